"""The compiled network forward (agents/gnoming/net_kernel.py) against torch, and rollouts where
the searching seat plays the network (agents/rollout_search.evaluate with ``net``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.gnoming.expert_kernel import expert_tables  # noqa: E402
from agents.gnoming.learned import (  # noqa: E402
    PolicyAgent,
    PolicyNetwork,
    network_from_checkpoint,
    read_checkpoint,
)
from gnome_env.gnoming import _kernels as K  # noqa: E402
from gnome_env.gnoming.config import RulesConfig  # noqa: E402
from gnome_env.gnoming.vector import VectorGame  # noqa: E402

pytestmark = pytest.mark.skipif(not K.COMPILED, reason="needs numba")

from agents.gnoming.net_kernel import net_action, net_logits, net_scratch, network_tables  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "policies" / "distill2_3to7" / "policy.pt"


def _positions(batch: int = 48, steps: int = 60, seed: int = 3):
    """Real (tokens, masks) of the deciding seats, from random play, 3-7 seats."""
    vec = VectorGame(batch_size=batch, num_players=[3, 4, 5, 6, 7])
    tokens, masks, *_ = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    out_t, out_m = [tokens], [masks]
    for _ in range(steps):
        tokens, masks, *_ = vec.step(vec.sample_actions(rng))
        out_t.append(tokens)
        out_m.append(masks)
    return np.concatenate(out_t), np.concatenate(out_m).astype(bool)


def _random_network(hidden, features: bool, hint: bool, seed: int) -> PolicyNetwork:
    net = PolicyNetwork(RulesConfig(), hidden, features=features, expert_hint=hint)
    net.reset_parameters(torch.Generator().manual_seed(seed))
    with torch.no_grad():  # the heads start near zero: make every part matter
        net.policy_head.weight.mul_(100.0)
        if features:
            net.bias_weight.normal_(0.0, 1.0, generator=torch.Generator().manual_seed(seed))
    return net.eval()


def _kernel_logits(net: PolicyNetwork, tokens: np.ndarray, masks: np.ndarray) -> np.ndarray:
    tables = network_tables(net)
    scratch = net_scratch(tables)
    wf, wi = (t.copy() for t in expert_tables(net.rules)[:2])
    out = np.zeros((len(tokens), masks.shape[1]), dtype=np.float32)
    for i in range(len(tokens)):
        net_logits(tokens[i].copy(), masks[i].copy(), wf, wi, tables, scratch)
        out[i] = scratch[2]
    return out


NETWORKS = [
    ("features+hint", (64, 64), True, True),
    ("features", (32, 32, 32), True, False),
    ("plain", (48,), False, False),
]


@pytest.mark.parametrize("name,hidden,features,hint", NETWORKS, ids=[n[0] for n in NETWORKS])
def test_compiled_logits_equal_torch_on_real_positions(name, hidden, features, hint):
    tokens, masks = _positions()
    net = _random_network(hidden, features, hint, seed=len(name))
    with torch.no_grad():
        want, _ = net.forward_tokens(torch.from_numpy(tokens), torch.from_numpy(masks))
    got = _kernel_logits(net, tokens, masks)
    want = want.numpy()
    assert np.abs(want).max() > 1.0  # not a trivially small network
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_compiled_action_is_the_shipped_policys_greedy_action():
    # the shipped distilled policy (features + Expert hint): the compiled action equals
    # what `ppo:PATH` plays from the float observation, except at near-exact ties
    net = network_from_checkpoint(read_checkpoint(SHIPPED), str(SHIPPED))
    agent = PolicyAgent(net)
    vec = VectorGame(batch_size=32, num_players=[3, 5, 7])
    tokens, masks, *_ = vec.reset(seed=9)
    rng = np.random.default_rng(9)
    tables = network_tables(net)
    scratch = net_scratch(tables)
    wf, wi = (t.copy() for t in expert_tables(net.rules)[:2])
    compared = differ = 0
    for _ in range(40):
        obs = vec.observations()
        for i in range(len(tokens)):
            legal = masks[i].astype(bool)
            if legal.sum() < 2:
                continue
            got = net_action(tokens[i].copy(), legal.copy(), wf, wi, tables, scratch)
            probs = agent.distribution(obs[i], legal)
            top = np.sort(probs[legal])[-2:]
            compared += 1
            if got != agent.act(obs[i], legal):
                differ += 1
                assert top[1] - top[0] < 1e-4, (got, probs)
        tokens, masks, *_ = vec.step(vec.sample_actions(rng))
    assert compared > 300 and differ <= 2


def test_network_tables_refuse_hidden_layers_of_different_sizes():
    net = PolicyNetwork(RulesConfig(), (64, 32))
    with pytest.raises(ValueError, match="one size"):
        network_tables(net)


# ---------------------------------------------------------------------- rollouts with the network
@pytest.mark.parametrize("players", [3, 7])
def test_rollouts_with_the_network_equal_python_play_of_the_policy(players):
    # agents.gnoming.rollout_search.evaluate(net=...) against an independent reference: the Python
    # engine, the Python Expert for the other seats and the float-observation PolicyAgent
    # (`ppo:PATH`) for the searching seat, from the same sampled games.
    import random

    from test_rollout_search import python_rollout

    from agents.gnoming.expert import ExpertAgent
    from agents.gnoming.net_search import NetSearchAgent
    from agents.gnoming.rollout_search import evaluate
    from gnome_env.gnoming.encoding import ObservationEncoder
    from gnome_env.gnoming.engine import Game
    from gnome_env.gnoming.information import SeatView, sample_game
    from gnome_env.gnoming.vector import write_game_row

    rules = RulesConfig(num_players=players)
    enc = ObservationEncoder(rules)
    expert = ExpertAgent(0, rules)
    agent = NetSearchAgent(SHIPPED, seed=0, config=rules, rollout_policy="network")
    policy = agent.policy
    vec, g, cards, tokens, legal, rew, res, wf, wi = agent._kernel_buffers()
    game = Game(rules, 30 + players)
    rng = random.Random(players)
    sampler = np.random.default_rng(players)
    checked = differ_from_expert = 0
    while not game.game_over and checked < 6:
        legal_actions = game.legal_actions()
        if len(legal_actions) > 1 and rng.random() < 0.2:
            seat = game.current_seat
            view = SeatView.from_game(game, seat)
            samples = [sample_game(view, sampler) for _ in range(2)]
            rows = np.zeros((2, g.shape[0]), g.dtype)
            stacks = np.zeros((2, *cards.shape), cards.dtype)
            seeds = np.zeros(2, np.int64)
            for i, s in enumerate(samples):
                write_game_row(s, rows[i], stacks[i], vec._kind)
                seeds[i] = s.seed
            cands = np.array(legal_actions[:2], dtype=np.int64)
            got = {}
            for name, net in (("network", agent._net), ("expert", None)):
                values = np.zeros((2, 2))
                evaluate(
                    rows, stacks, seeds, cands, seat, vec._prm, vec._kcode, vec._kcount,
                    vec._canon, g, cards, tokens, legal, rew, res, wf, wi, 30.0, values, 0, 1,
                    net,
                )  # fmt: skip
                got[name] = values

            def own(sim, seat=seat):  # the searching seat's move: what `ppo:PATH` plays
                return policy.act(enc.encode(sim, seat), sim.legal_mask())

            want = np.array(
                [[python_rollout(s, int(a), seat, expert, own) for a in cands] for s in samples]
            )
            np.testing.assert_array_equal(got["network"], want)
            differ_from_expert += int((got["network"] != got["expert"]).any())
            checked += 1
        game.step(legal_actions[rng.randrange(len(legal_actions))])
    assert checked == 6 and differ_from_expert >= 1


def test_netsearch_spec_with_self_rollouts():
    from agents.gnoming.net_search import NetSearchAgent
    from agents.gnoming.registry import make_agent

    rules = RulesConfig(num_players=3)
    a = make_agent(f"netsearch:{SHIPPED}:self", 0, rules)
    b = make_agent(f"netsearch:{SHIPPED}:8:self", 0, rules)
    c = make_agent(f"netsearch:{SHIPPED}:8", 0, rules)
    assert isinstance(a, NetSearchAgent) and a.rollout_policy == "network" and a.samples == 32
    assert b.rollout_policy == "network" and b.samples == 8
    assert c.rollout_policy == "expert" and c.samples == 8
    with pytest.raises(ValueError, match="rollout_policy='bots' is not allowed"):
        NetSearchAgent(SHIPPED, 0, rules, rollout_policy="bots")
