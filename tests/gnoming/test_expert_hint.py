"""The expert hint (agents.gnoming.features.expert_actions, PolicyNetwork(expert_hint=True)) and
the feature cache of PPO: a residual policy over the Expert bot, issue #13."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.gnoming.expert import ExpertAgent  # noqa: E402
from agents.gnoming.features import expert_actions  # noqa: E402
from agents.gnoming.learned import (  # noqa: E402
    HINT_INIT,
    PolicyAgent,
    PolicyNetwork,
    checkpoint_header,
    write_checkpoint,
)
from agents.gnoming.registry import make_agent  # noqa: E402
from gnome_env.gnoming.config import RulesConfig  # noqa: E402
from gnome_env.gnoming.encoding import ObservationEncoder  # noqa: E402
from gnome_env.gnoming.testing import hidden_card_twins  # noqa: E402
from gnome_env.gnoming.vector import VectorGame  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _hint_network(seed: int = 0, hidden=(32, 16), features: bool = True) -> PolicyNetwork:
    net = PolicyNetwork(RulesConfig(), hidden, features=features, expert_hint=True)
    net.reset_parameters(torch.Generator().manual_seed(seed))
    return net.eval()


def _positions(batch: int = 32, steps: int = 30, seed: int = 5):
    """(tokens, masks, float observations) along random games of 3-7 players."""
    vec = VectorGame(batch_size=batch, num_players=[3, 4, 5, 6, 7])
    vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        tokens, mask, *_ = vec.step(vec.sample_actions(rng))
    return tokens, mask, vec.observations()


def test_expert_actions_are_the_expert_bots_decisions_from_the_observation():
    """The hint computed from tokens is what ExpertAgent.act picks from the float
    observation (two decoding paths: SeatView.from_tokens and from_observation)."""
    tokens, masks, obs = _positions()
    expert = ExpertAgent(3, RulesConfig())
    hint = expert_actions(tokens, masks, RulesConfig())
    assert hint.dtype == np.int64 and masks[np.arange(len(hint)), hint].all()
    assert [expert.act(o, m) for o, m in zip(obs, masks, strict=True)] == hint.tolist()
    assert len(set(hint.tolist())) > 3  # real positions: several kinds of decision


def test_expert_actions_reject_mismatched_shapes():
    tokens, masks, _ = _positions(batch=4, steps=2)
    with pytest.raises(ValueError, match=r"masks \[N, 33\]"):
        expert_actions(tokens, masks[:3], RulesConfig())


@pytest.mark.parametrize("features", [False, True])
def test_untrained_hint_network_plays_the_experts_moves(features):
    """Its most likely action is the expert's in every position; it samples the expert's
    move with probability e^HINT_INIT / (e^HINT_INIT + k) for k other legal actions (the
    other logits start near 0)."""
    tokens, masks, obs = _positions()
    net = _hint_network(features=features)
    agent = PolicyAgent(net)
    hint = expert_actions(tokens, masks, RulesConfig())
    for o, m, h in zip(obs, masks, hint, strict=True):
        probs = agent.distribution(o, m)
        assert int(np.argmax(probs)) == h
        k = int(m.sum()) - 1
        expected = np.exp(HINT_INIT) / (np.exp(HINT_INIT) + k)
        assert abs(probs[h] - expected) < 0.05


def test_hint_network_token_path_equals_float_path():
    tokens, masks, obs = _positions()
    net = _hint_network(hidden=(64, 32))
    with torch.no_grad():
        net.hint_weight += torch.linspace(-1, 1, 33)  # not a uniform shift
        a_logits, a_value = net(torch.from_numpy(obs), torch.from_numpy(masks))
        b_logits, b_value = net.forward_tokens(torch.from_numpy(tokens), torch.from_numpy(masks))
    assert torch.allclose(a_logits, b_logits, atol=1e-4)
    assert torch.allclose(a_value, b_value, atol=1e-4)
    agent = PolicyAgent(net)
    probs = torch.softmax(a_logits.masked_fill(~torch.from_numpy(masks), -1e9), 1).numpy()
    for o, m, p in zip(obs[:8], masks[:8], probs[:8], strict=True):
        assert np.allclose(agent.distribution(o, m), p, atol=1e-5)


def test_hint_network_needs_the_masks():
    tokens, _, _ = _positions(batch=4, steps=2)
    with pytest.raises(ValueError, match="expert_hint needs the action masks"):
        _hint_network().forward_tokens(torch.from_numpy(tokens))


def test_hint_policy_ignores_hidden_cards():
    """No leak: permuting every card the deciding seat cannot see leaves the hint network's
    action probabilities unchanged."""
    rules = RulesConfig(num_players=4)
    enc = ObservationEncoder(rules)
    net = PolicyNetwork(rules, (32,), features=True, expert_hint=True)
    net.reset_parameters(torch.Generator().manual_seed(1))
    with torch.no_grad():
        net.hint_weight.fill_(0.5)  # the other terms matter too
    agent = PolicyAgent(net)
    compared = 0
    for game, twin in hidden_card_twins(rules, 4):
        seat, mask = game.current_seat, game.legal_mask()
        assert np.array_equal(
            agent.distribution(enc.encode(game, seat), mask),
            agent.distribution(enc.encode(twin, seat), mask),
        )
        compared += 1
    assert compared > 50


def test_hint_policy_checkpoint_round_trip(tmp_path):
    net = _hint_network()
    with torch.no_grad():
        net.hint_weight.fill_(1.25)
    path = write_checkpoint(checkpoint_header(net), tmp_path / "hint.pt")
    loaded = make_agent(f"ppo:{path}", 0)
    assert loaded.network.expert_hint and loaded.network.features
    assert torch.equal(loaded.network.hint_weight, net.hint_weight)
    _, masks, obs = _positions(batch=6, steps=3)
    agent = PolicyAgent(net)
    for o, m in zip(obs, masks, strict=True):
        assert np.array_equal(loaded.distribution(o, m), agent.distribution(o, m))


# ---------------------------------------------------------------------- training side
def _config(**kw):
    from training.gnoming.ppo import PPOConfig

    base = dict(
        seed=3, num_envs=12, rollout_steps=10, hidden=[32, 32], features=True,
        num_players=[3, 5], bot_opponents=["expert"], bot_fraction=0.5,
        self_play_fraction=0.3, minibatch_size=32, update_epochs=2, eval_interval=0,
        final_eval_games=0, tensorboard=False, progress=False, torch_threads=1,
    )  # fmt: skip
    base.update(kw)
    cfg = PPOConfig(**base)
    cfg.validate()
    return cfg


def _rollout(cfg):
    from training.gnoming.ppo import SelfPlay

    rules = RulesConfig()
    net = PolicyNetwork(rules, cfg.hidden, features=cfg.features, expert_hint=cfg.expert_hint)
    net.reset_parameters(torch.Generator().manual_seed(cfg.seed))
    play = SelfPlay(cfg, rules, torch.device("cpu"), net)
    try:
        ro = play.collect(net)
    finally:
        play.hints.close()
    return net, ro


def test_hint_pool_gives_the_same_decisions_for_any_number_of_workers():
    from training.gnoming.ppo import HintPool

    tokens, masks, _ = _positions(batch=48, steps=12)
    one = HintPool(RulesConfig(), 1)(tokens, masks)
    pool = HintPool(RulesConfig(), 2)
    try:
        two = pool(tokens, masks)
    finally:
        pool.close()
    assert np.array_equal(one, two)
    assert np.array_equal(one, expert_actions(tokens, masks, RulesConfig()))


def test_rollout_with_expert_seats_and_hint_is_the_same_for_any_hint_workers():
    """Expert bot seats and the hint are decided through the HintPool: the played games
    (and so every sample) do not depend on hint_workers."""
    _, a = _rollout(_config(expert_hint=True, hint_workers=1))
    _, b = _rollout(_config(expert_hint=True, hint_workers=2))
    for name in ("tokens", "actions", "log_probs", "rewards", "done"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    assert a.feats is not None and np.array_equal(a.feats.hint, b.feats.hint)
    # the stored hint is the expert's decision on each stored sample
    assert np.array_equal(a.feats.hint, expert_actions(a.tokens, a.masks, RulesConfig()))


@pytest.mark.parametrize("expert_hint", [False, True])
def test_cached_features_give_identical_losses_and_weights(expert_hint):
    """#13 item 3: the features computed once per sample during the rollout and reused in
    every update epoch give exactly the losses and weights of recomputing them in every
    forward pass (cache_features: false)."""
    from training.gnoming.ppo import advantages, ppo_update

    cfg = _config(expert_hint=expert_hint)
    net, ro = _rollout(cfg)
    assert ro.feats is not None
    adv, valid = advantages(ro, cfg.gamma, cfg.gae_lambda)
    results = []
    for cache in (True, False):
        c = copy.deepcopy(cfg)
        c.cache_features = cache
        model = copy.deepcopy(net).train()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-5)
        figures = ppo_update(model, opt, ro, adv, valid, c, np.random.default_rng(0), "cpu")
        results.append((figures, model.state_dict()))
    (fa, wa), (fb, wb) = results
    assert fa == fb
    assert fa["losses/approx_kl"] > 0  # the update really moved the policy
    for key in wa:
        assert torch.equal(wa[key], wb[key]), key


def test_init_policy_must_match_expert_hint(tmp_path, capsys):
    from training.gnoming.ppo import main

    path = write_checkpoint(checkpoint_header(_hint_network(hidden=(32, 32))), tmp_path / "h.pt")
    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(ROOT / "configs/quickstart.yaml"), "--hidden", "[32, 32]",
              "--features", "true", "--init_policy", str(path)])  # fmt: skip
    assert exit_info.value.code == 2
    assert "has expert_hint=True; the config says expert_hint=False" in capsys.readouterr().err


def test_hint_workers_must_be_positive(capsys):
    from training.gnoming.ppo import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(ROOT / "configs/quickstart.yaml"), "--hint_workers", "0"])
    assert exit_info.value.code == 2
    assert "hint_workers=0 is not allowed: must be >= 1" in capsys.readouterr().err


def test_stop_after_and_resume_with_the_hint_give_the_uninterrupted_weights(tmp_path, capsys):
    """`gnome train --stop_after N` stops at update N like a kill after a checkpoint;
    `--resume` then reaches the parameters of an uninterrupted run (hint and expert seats
    included, whatever hint_workers)."""
    from training.core.config import to_yaml
    from training.gnoming.ppo import main, train

    def config(out, **kw):
        cfg = _config(output_dir=str(out), expert_hint=True, total_steps=4 * 12 * 10,
                      checkpoint_interval=1, **kw)  # fmt: skip
        path = tmp_path / f"{out.name}.yaml"
        path.write_text(to_yaml(cfg))
        return cfg, path

    cfg, _ = config(tmp_path / "a")
    train(cfg)
    _, path = config(tmp_path / "b")
    main(["--config", str(path), "--stop_after", "2"])
    assert "stopped after update 2; continue with gnome train --resume" in capsys.readouterr().out
    assert not (tmp_path / "b" / "policy.pt").exists()
    main(["--resume", str(tmp_path / "b"), "--hint_workers", "2"])
    a = torch.load(tmp_path / "a" / "policy.pt", weights_only=True)["state_dict"]
    b = torch.load(tmp_path / "b" / "policy.pt", weights_only=True)["state_dict"]
    for key in a:
        assert torch.equal(a[key], b[key]), key
    assert not torch.equal(a["hint_weight"], torch.full((33,), HINT_INIT))  # it trained
    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(path), "--stop_after", "0"])
    assert exit_info.value.code == 2
    assert "--stop_after 0 is not allowed: must be >= 1" in capsys.readouterr().err


def test_fused_adam_changes_the_update_by_rounding_only():
    """#13 item 3: on the same rollout, the PPO update with the default fused Adam kernel
    gives the losses and weights of torch's plain Adam up to float rounding, and
    fused_adam: false (the foreach kernel) gives exactly plain Adam's."""
    from training.gnoming.ppo import advantages, ppo_update
    from training.gnoming.ppo.update import make_adam

    cfg = _config()
    net, ro = _rollout(cfg)
    adv, valid = advantages(ro, cfg.gamma, cfg.gae_lambda)
    results = {}
    for name in ("plain", "foreach", "fused"):
        model = copy.deepcopy(net).train()
        if name == "plain":
            opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-5)
        else:
            opt = make_adam(model.parameters(), 1e-3, fused=name == "fused")
        figures = ppo_update(model, opt, ro, adv, valid, cfg, np.random.default_rng(0), "cpu")
        results[name] = (figures, model.state_dict())
    (fp, wp), (ff, wf), (fu, wu) = results["plain"], results["foreach"], results["fused"]
    assert fp == ff
    for key in wp:
        assert torch.equal(wp[key], wf[key]), key
    for key in fp:
        assert abs(fu[key] - fp[key]) <= 1e-5 * max(1.0, abs(fp[key])), key
    moved = max(float((wp[k] - w).abs().max()) for k, w in net.state_dict().items())
    apart = max(float((wp[k] - wu[k]).abs().max()) for k in wp)
    assert moved > 1e-3  # the update really moved the weights ...
    assert apart < 1e-5  # ... and the two kernels agree to rounding
