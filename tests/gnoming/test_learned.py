"""Learned policies (agents.gnoming.learned): masked distribution, network, agent, checkpoint
files."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.gnoming.arena import run_arena  # noqa: E402
from agents.gnoming.learned import (  # noqa: E402
    CHECKPOINT_FORMAT,
    NetFeatures,
    PolicyAgent,
    PolicyNetwork,
    checkpoint_header,
    masked_entropy,
    masked_log_probs,
    read_checkpoint,
    sample_masked,
    write_checkpoint,
)
from agents.gnoming.registry import make_agent  # noqa: E402
from gnome_env.core.jit import COMPILED  # noqa: E402
from gnome_env.gnoming import RulesConfig  # noqa: E402
from gnome_env.gnoming.actions import NUM_ACTIONS  # noqa: E402
from gnome_env.gnoming.cards import DeckSpec  # noqa: E402
from gnome_env.gnoming.vector import VectorGame  # noqa: E402


def _network(seed: int = 0, hidden=(32, 16), features: bool = False) -> PolicyNetwork:
    net = PolicyNetwork(RulesConfig(), hidden, features=features)
    net.reset_parameters(torch.Generator().manual_seed(seed))
    return net


def _played_decisions(batch: int = 64, steps: int = 40):
    """Real (tokens, masks, float observations) from random play on the vector engine."""
    vec = VectorGame(batch_size=batch, num_players=[3, 4, 5, 6, 7])
    vec.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(steps):
        tokens, mask, *_ = vec.step(vec.sample_actions(rng))
    return tokens, mask, vec.observations()


# ---------------------------------------------------------------------- masked distribution
def test_masked_sampling_never_picks_an_illegal_action():
    rng = np.random.default_rng(0)
    mask = rng.random((500, NUM_ACTIONS)) < 0.2
    mask[np.arange(500), rng.integers(NUM_ACTIONS, size=500)] = True  # at least one legal
    # logits that strongly favour illegal actions: masking must still win
    logits = torch.from_numpy(np.where(mask, -5.0, 30.0).astype(np.float32))
    gen = torch.Generator().manual_seed(1)
    m = torch.from_numpy(mask)
    for _ in range(20):
        actions = sample_masked(logits, m, gen).numpy()
        assert mask[np.arange(500), actions].all()


def test_masked_sampling_follows_the_legal_softmax():
    logits = torch.tensor([[0.0, 1.0, 2.0, 5.0] + [0.0] * (NUM_ACTIONS - 4)])
    mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
    mask[0, :3] = True  # action 3 (the largest logit) is illegal
    gen = torch.Generator().manual_seed(2)
    draws = sample_masked(logits.expand(40_000, -1), mask.expand(40_000, -1), gen).numpy()
    freq = np.bincount(draws, minlength=NUM_ACTIONS)[:3] / draws.size
    expected = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    assert np.abs(freq - expected).max() < 0.01
    logp = masked_log_probs(logits, mask)[0]
    assert torch.allclose(logp[:3].exp(), torch.tensor(expected, dtype=torch.float32), atol=1e-6)
    assert float(logp[3:].exp().sum()) == 0.0


def test_single_legal_action_has_probability_one_and_zero_entropy():
    logits = torch.randn(4, NUM_ACTIONS, generator=torch.Generator().manual_seed(3)) * 10
    mask = torch.zeros(4, NUM_ACTIONS, dtype=torch.bool)
    only = torch.tensor([0, 7, 19, 32])
    mask[torch.arange(4), only] = True
    logp = masked_log_probs(logits, mask)
    assert torch.equal(logp.argmax(1), only)
    assert torch.allclose(logp[torch.arange(4), only], torch.zeros(4))
    assert torch.allclose(masked_entropy(logp, mask), torch.zeros(4))
    assert torch.equal(sample_masked(logits, mask, torch.Generator().manual_seed(0)), only)


def test_masked_entropy_counts_legal_actions_only():
    logits = torch.zeros(1, NUM_ACTIONS)
    mask = torch.zeros(1, NUM_ACTIONS, dtype=torch.bool)
    mask[0, [2, 5, 9, 30]] = True
    ent = masked_entropy(masked_log_probs(logits, mask), mask)
    assert abs(float(ent[0]) - np.log(4)) < 1e-6


def test_masked_entropy_gives_the_plain_formulas_floats_and_gradients():
    # masked_entropy zeroes the illegal entries before exp (a speed-up); the plain formula
    # -sum(exp(lp) * lp) over legal actions must give the same floats, forward and back.
    gen = torch.Generator().manual_seed(11)
    logits = torch.randn(512, NUM_ACTIONS, generator=gen) * 4
    mask = torch.rand(512, NUM_ACTIONS, generator=gen) < 0.3
    mask[torch.arange(512), torch.randint(NUM_ACTIONS, (512,), generator=gen)] = True
    weights = torch.randn(512, generator=gen)
    results = []
    for entropy in (
        masked_entropy,
        lambda lp, m: -(lp.exp() * lp).masked_fill(~m, 0.0).sum(-1),
    ):
        x = logits.clone().requires_grad_()
        ent = entropy(masked_log_probs(x, mask), mask)
        (ent * weights).sum().backward()
        results.append((ent.detach(), x.grad))
    assert torch.equal(results[0][0], results[1][0])
    assert torch.equal(results[0][1], results[1][1])
    assert bool((results[0][1] != 0).any())


# ---------------------------------------------------------------------- the network
@pytest.mark.parametrize("features", [False, True])
def test_token_path_equals_float_path_on_real_observations(features):
    tokens, _, obs = _played_decisions()
    net = _network(hidden=(64, 32), features=features)
    with torch.no_grad():
        a_logits, a_value = net(torch.from_numpy(obs))
        b_logits, b_value = net.forward_tokens(torch.from_numpy(tokens))
    assert torch.allclose(a_logits, b_logits, atol=1e-4)
    assert torch.allclose(a_value, b_value, atol=1e-4)


def test_feature_network_adds_each_actions_estimate_change_to_its_logit():
    """With features=True, raising the learned weight of the Greedy bias by 1 moves every
    logit by exactly that action's estimate change (agents.gnoming.features)."""
    from agents.gnoming.features import LayoutFeatures

    tokens, _, _ = _played_decisions(batch=16, steps=30)
    net = _network(features=True)
    t = torch.from_numpy(tokens)
    with torch.no_grad():
        before, value_before = net.forward_tokens(t)
        net.bias_weight += 1.0
        after, value_after = net.forward_tokens(t)
    bias, _ = LayoutFeatures(RulesConfig())(tokens)
    assert np.abs(bias).max() > 1  # real positions have real estimate changes
    assert torch.allclose(after - before, torch.from_numpy(bias), atol=1e-4)
    assert torch.equal(value_before, value_after)


def test_network_init_depends_only_on_its_generator():
    a, b, c = _network(4), _network(4), _network(5)
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
        assert torch.equal(x, y), name
    assert not torch.equal(a.first, c.first)


def test_bad_hidden_sizes_are_rejected():
    with pytest.raises(ValueError, match="hidden"):
        PolicyNetwork(RulesConfig(), [])
    with pytest.raises(ValueError, match="hidden"):
        PolicyNetwork(RulesConfig(), [16, 0])


# ---------------------------------------------------------------------- the agent
@pytest.mark.parametrize("features", [False, True])
def test_greedy_agent_plays_the_most_likely_legal_action(features):
    _, masks, obs = _played_decisions(batch=32, steps=25)
    net = _network(features=features)
    agent = PolicyAgent(net, mode="greedy")
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(obs))
        probs = masked_log_probs(logits, torch.from_numpy(masks)).exp().numpy()
    for i in range(32):
        best = int(np.argmax(np.where(masks[i], logits[i].numpy(), -np.inf)))
        assert agent.act(obs[i], masks[i]) == best
        # the agent's numpy path gives the network's masked distribution
        assert np.allclose(agent.distribution(obs[i], masks[i]), probs[i], atol=1e-5)


def test_sampling_agent_is_legal_and_reproducible_from_its_seed():
    _, masks, obs = _played_decisions(batch=32, steps=25)
    net = _network()
    runs = []
    for _ in range(2):
        agent = PolicyAgent(net, mode="sample", seed=11)
        runs.append([agent.act(obs[i], masks[i]) for i in range(32) for _ in range(5)])
    assert runs[0] == runs[1]
    assert all(masks[i // 5][a] for i, a in enumerate(runs[0]))


def test_agent_rejects_bad_input():
    agent = PolicyAgent(_network())
    obs = np.zeros(agent.network.observation_size, dtype=np.float32)
    with pytest.raises(ValueError, match="legal action"):
        agent.act(obs, np.zeros(NUM_ACTIONS, dtype=bool))
    with pytest.raises(ValueError, match="shape"):
        agent.act(obs[:-1], np.ones(NUM_ACTIONS, dtype=bool))
    with pytest.raises(ValueError, match="mode"):
        PolicyAgent(agent.network, mode="argmax")


# ---------------------------------------------------------------------- checkpoint files
@pytest.mark.parametrize("features", [False, True])
def test_checkpoint_roundtrip_through_ppo_spec_plays_legal_arena_games(tmp_path, features):
    net = _network(7, features=features)
    path = write_checkpoint(checkpoint_header(net), tmp_path / "policy.pt")
    agent = PolicyAgent.load(path)
    assert agent.network.features is features
    for (name, x), (_, y) in zip(
        net.state_dict().items(), agent.network.state_dict().items(), strict=True
    ):
        assert torch.equal(x, y), name
    result = run_arena([f"ppo:{path}", "random", "random"], 3, 6, seed=1, progress=False)
    assert result.stats[0].games == 6  # every game finished (an illegal action would raise)
    assert isinstance(make_agent(f"ppo-sample:{path}", 3), PolicyAgent)


def test_missing_path_in_spec_is_a_clear_error():
    with pytest.raises(ValueError, match="needs a checkpoint path"):
        make_agent("ppo", 0)


@pytest.mark.parametrize(
    ("make_file", "message"),
    [
        (lambda p: None, "does not exist"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_text("hello, not a checkpoint"), "cannot be read as a torch"),
        (lambda p: torch.save({"weights": torch.zeros(3)}, p), "not a gnome_env policy"),
        (lambda p: torch.save([1, 2, 3], p), "not a gnome_env policy"),
    ],
    ids=["missing", "directory", "text", "foreign-dict", "list"],
)
def test_unusable_checkpoint_files_give_clear_errors(tmp_path, make_file, message):
    path = tmp_path / "ckpt.pt"
    make_file(path)
    with pytest.raises(ValueError, match=message):
        read_checkpoint(path)
    with pytest.raises(ValueError, match=message):
        PolicyAgent.load(path)


class _Arbitrary:
    """An object a weights_only load must refuse to build."""


def test_checkpoint_with_arbitrary_objects_is_refused(tmp_path):
    path = tmp_path / "evil.pt"
    torch.save({"format": "gnome_env-policy", "payload": _Arbitrary()}, path)
    with pytest.raises(ValueError, match="cannot be read as a torch"):
        read_checkpoint(path)


def test_truncated_checkpoint_is_a_clear_error(tmp_path):
    path = write_checkpoint(checkpoint_header(_network()), tmp_path / "policy.pt")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt, truncated"):
        PolicyAgent.load(path)


def test_checkpoint_for_another_observation_size_is_refused(tmp_path):
    small_deck = DeckSpec.from_dict({"1": 20, "2": 20, "3": 20, "4": 20, "5": 20, "H": 3})
    rules = RulesConfig(deck=small_deck)
    net = PolicyNetwork(rules, (16,))
    path = write_checkpoint(checkpoint_header(net), tmp_path / "small.pt")
    read_checkpoint(path, rules)  # fits its own rules
    with pytest.raises(ValueError, match="observations of size"):
        read_checkpoint(path, RulesConfig())
    with pytest.raises(ValueError, match="observations of size"):
        PolicyAgent.load(path, config=RulesConfig())


def test_checkpoint_with_wrong_fields_is_refused(tmp_path):
    header = checkpoint_header(_network())
    for change, message in (
        ({"version": 99}, "version"),
        ({"num_actions": 40}, "40 actions"),
        ({"observation_size": 12}, "inconsistent"),
    ):
        path = tmp_path / "bad.pt"
        torch.save({**header, **change}, path)
        with pytest.raises(ValueError, match=message):
            read_checkpoint(path)
    del header["state_dict"]
    torch.save(header, tmp_path / "incomplete.pt")
    with pytest.raises(ValueError, match="lacks state_dict"):
        read_checkpoint(tmp_path / "incomplete.pt")


def test_failed_write_keeps_the_previous_checkpoint(tmp_path):
    path = write_checkpoint(checkpoint_header(_network(1)), tmp_path / "policy.pt")
    before = path.read_bytes()
    with pytest.raises(Exception):  # noqa: B017 - whatever torch.save raises for a lambda
        write_checkpoint({"bad": lambda: None}, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["policy.pt"]  # no temporary file left behind
    assert Path(tmp_path / "policy.pt").stat().st_size == len(before)


# ---------------------------------------------------------------------- issue #13 item 3
def _reference_forward_tokens(net: PolicyNetwork, tokens: torch.Tensor, masks: torch.Tensor):
    """``PolicyNetwork.forward_tokens`` as written before issue #13 item 3 (the reference
    the faster code must match): features from the tokens, ``embedding_bag`` plus the
    scaled counts, then the heads."""
    from torch.nn import functional as F

    feats = net.feature_arrays(tokens.numpy(), masks.numpy()) if net.uses_features else None
    t = tokens.long()
    h = F.embedding_bag(t[:, net.cat_tok] + net.cat_off, net.first, mode="sum")
    counts = t[:, net.sc_tok].float() * net.sc_scale[t[:, net.present_tok].sum(1)]
    h = h + counts @ net.first[net.sc_row]
    return net._heads(h, feats)


def _gnoming_checkpoint(path: Path) -> bool:
    """A shipped Gnoming policy (agents/policies also holds other games' policies, such as
    the Nerts baseline, whose checkpoints have their own format)."""
    return torch.load(path, map_location="cpu", weights_only=True).get("format") == (
        CHECKPOINT_FORMAT
    )


SHIPPED = [
    p
    for p in sorted(
        (Path(__file__).resolve().parents[2] / "agents" / "policies").glob("*/policy.pt")
    )
    if _gnoming_checkpoint(p)
]


@pytest.mark.parametrize("path", SHIPPED, ids=[p.parent.name for p in SHIPPED])
def test_shipped_policies_give_the_logits_of_the_previous_forward_pass(path):
    """Every shipped policy loads and, on positions from real games, gives the logits and
    values of the forward pass before issue #13 item 3 (to 1e-5; in fact to the bit), in
    inference and with gradients on (the compiled first layer), and its agent plays them."""
    agent = PolicyAgent.load(path)
    net = agent.network
    tokens, masks, obs = _played_decisions(batch=48, steps=30)
    t, m = torch.from_numpy(tokens), torch.from_numpy(masks)
    with torch.no_grad():
        want_logits, want_value = _reference_forward_tokens(net, t, m)
        logits, value = net.forward_tokens(t, m)
    assert torch.allclose(logits, want_logits, atol=1e-5, rtol=0)
    assert torch.allclose(value, want_value, atol=1e-5, rtol=0)
    train_net = copy.deepcopy(net).train()
    grad_logits, grad_value = train_net.forward_tokens(t, m)
    assert grad_logits.requires_grad
    assert torch.allclose(grad_logits.detach(), want_logits, atol=1e-5, rtol=0)
    assert torch.allclose(grad_value.detach(), want_value, atol=1e-5, rtol=0)
    want_probs = masked_log_probs(want_logits, m).exp().numpy()
    for i in range(0, 48, 5):
        assert np.allclose(agent.distribution(obs[i], masks[i]), want_probs[i], atol=1e-5)


@pytest.mark.skipif(not COMPILED, reason="the compiled first layer needs numba")
@pytest.mark.parametrize("batch", [40, 520])  # below and above 32,768 first-layer indices
def test_compiled_first_layer_gives_the_values_and_gradients_of_embedding_bag(batch, monkeypatch):
    """FirstLayer (the compiled backward) against the plain embedding_bag path on real
    positions: the same outputs and the same gradient of every parameter, to the bit; and
    the first layer's gradient against a float64 computation of it, to rounding."""
    import agents.gnoming.learned as learned

    tokens, masks, obs = _played_decisions(batch=batch, steps=35)
    t = torch.from_numpy(tokens)
    net = _network(3, hidden=(64, 32), features=True)
    feats = net.feature_arrays(tokens, masks)
    up = torch.randn(batch, NUM_ACTIONS + 1, generator=torch.Generator().manual_seed(4))

    def run(fast: bool):
        monkeypatch.setattr(learned, "_fast_first_layer", lambda first: fast)
        model = copy.deepcopy(net)
        logits, value = model.forward_tokens(t, feats=feats)
        (logits * up[:, :-1]).sum().add((value * up[:, -1]).sum()).backward()
        return torch.cat([logits, value[:, None]], 1).detach(), {
            k: p.grad for k, p in model.named_parameters()
        }

    out, grads = run(True)
    ref_out, ref_grads = run(False)
    assert torch.equal(out, ref_out)
    for key, grad in ref_grads.items():
        assert torch.equal(grads[key], grad), key
    # the gradient itself: d first = X^T d h for the float observations X, in float64
    x = torch.from_numpy(obs).double()
    model = copy.deepcopy(net).double()
    h = (x @ model.first).detach().requires_grad_()
    logits, value = model._heads(
        h, NetFeatures(*(torch.from_numpy(f).double() for f in feats[:2]), None)
    )
    (logits * up[:, :-1].double()).sum().add((value * up[:, -1].double()).sum()).backward()
    want = x.T @ h.grad
    assert torch.allclose(grads["first"].double(), want, atol=1e-5, rtol=1e-5)
    assert grads["first"].abs().sum() > 0


def test_token_inputs_sliced_per_minibatch_give_the_forward_pass():
    """Training computes token_inputs once per rollout and slices it per minibatch."""
    tokens, masks, _ = _played_decisions(batch=40, steps=20)
    t = torch.from_numpy(tokens)
    net = _network(5, features=True)
    inputs = net.token_inputs(t)
    feats = net.feature_arrays(tokens, masks)
    with torch.no_grad():
        whole, _ = net.forward_tokens(t, feats=feats)
        part, _ = net.forward_inputs(inputs.take(slice(8, 24)), feats.take(slice(8, 24)))
    assert torch.equal(part, whole[8:24])
    with pytest.raises(ValueError, match="feats"):
        net.forward_inputs(inputs)
