"""NetSearchAgent (agents/gnoming/net_search.py): the network where it is sure, rollouts that settle
its close calls by the stated rule, the seat's view only, a step budget, clear spec errors."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from gnome_env.gnoming import _kernels as K

pytestmark = pytest.mark.skipif(not K.COMPILED, reason="the netsearch agent needs numba")

pytest.importorskip("torch")

from test_rollout_search import python_rollout  # noqa: E402  (Python Expert to round end)

from agents.gnoming.expert import ExpertAgent  # noqa: E402
from agents.gnoming.learned import PolicyAgent  # noqa: E402
from agents.gnoming.net_search import NetSearchAgent  # noqa: E402
from agents.gnoming.registry import make_agent  # noqa: E402
from agents.gnoming.rollout_search import evaluate  # noqa: E402
from gnome_env.gnoming.config import RulesConfig  # noqa: E402
from gnome_env.gnoming.encoding import ObservationEncoder  # noqa: E402
from gnome_env.gnoming.engine import Game  # noqa: E402
from gnome_env.gnoming.information import SeatView, sample_game  # noqa: E402
from gnome_env.gnoming.testing import hidden_card_twins  # noqa: E402
from gnome_env.gnoming.vector import write_game_row  # noqa: E402

POLICY = Path(__file__).resolve().parents[2] / "agents" / "policies" / "distill_3to7" / "policy.pt"


def positions(rules: RulesConfig, seed: int, every: int, limit: int):
    """(game, seat) at every ``every``-th decision with a choice of a random game."""
    rng = random.Random(seed)
    game = Game(rules, seed)
    found = step = 0
    while not game.game_over and found < limit:
        legal = game.legal_actions()
        if len(legal) > 1:
            if step % every == 0:
                yield game, game.current_seat
                found += 1
            step += 1
        game.step(legal[rng.randrange(len(legal))])


def test_where_the_network_is_sure_it_plays_the_network_without_search():
    rules = RulesConfig(num_players=4)
    enc = ObservationEncoder(rules)
    agent = NetSearchAgent(POLICY, seed=0, config=rules, window=0.0)
    plain = PolicyAgent.load(POLICY, config=rules)
    checked = 0
    for game, seat in positions(rules, seed=5, every=3, limit=40):
        obs, mask = enc.encode(game, seat), game.legal_mask()
        assert agent.act(obs, mask) == plain.act(obs, mask)
        checked += 1
    assert checked == 40 and agent.searched == 0


@pytest.mark.parametrize("players", [3, 7])
def test_close_calls_follow_the_rule_on_python_expert_rollouts(players):
    # The decision equals the documented rule applied to values computed independently,
    # on the Python engine with the Python Expert, from the same sampled games.
    rules = RulesConfig(num_players=players)
    enc = ObservationEncoder(rules)
    expert = ExpertAgent(0, rules)
    kw = dict(samples=3, max_steps=0, window=3.0, max_candidates=3, prior_sd=4.0, margin=0.0)
    plain = PolicyAgent.load(POLICY, config=rules)
    searched = deviated = 0
    for game, seat in positions(rules, seed=players, every=4, limit=14):
        obs, mask = enc.encode(game, seat), game.legal_mask()
        agent = NetSearchAgent(POLICY, seed=9, config=rules, **kw)
        cands = agent.candidates(obs, mask)
        action = agent.act(obs, mask)
        if len(cands) == 1:
            assert action == cands[0]
            continue
        searched += 1
        rng = np.random.default_rng(9)  # the agent's generator: it draws the samples in order
        view = SeatView.from_game(game, seat)
        samples = [sample_game(view, rng) for _ in range(3)]
        values = np.array([[python_rollout(s, a, seat, expert) for a in cands] for s in samples])
        gains = values[:, 1:] - values[:, :1]
        mean, var = gains.mean(0), np.maximum(gains.var(0, ddof=1) / 3, 1e-12)
        logp = np.log(plain.distribution(obs, mask).astype(np.float64)[cands])
        prior = (logp[1:] - logp[0]) / 0.5  # points: the network's predicted gain
        post = (prior / 16.0 + mean / var) / (1 / 16.0 + 1 / var)  # normal posterior, sd 4
        want = cands[1 + int(np.argmax(post))] if post.max() > 0.0 else cands[0]
        assert action == want
        deviated += action != cands[0]
    assert searched >= 5 and deviated >= 1


def test_decisions_ignore_hidden_cards():
    rules = RulesConfig(num_players=5)
    enc = ObservationEncoder(rules)
    checked = searched = 0
    for k, (game, twin) in enumerate(hidden_card_twins(rules, seed=21)):
        if k % 5:
            continue
        twin.seed = game.seed + 1  # later reshuffles are unknown too
        seat = game.current_seat
        a = NetSearchAgent(POLICY, seed=4, config=rules, samples=4, window=3.0)
        b = NetSearchAgent(POLICY, seed=4, config=rules, samples=4, window=3.0)
        assert a.act(enc.encode(game, seat), game.legal_mask()) == b.act(
            enc.encode(twin, seat), twin.legal_mask()
        )
        checked += 1
        searched += a.searched
        if checked == 25:
            break
    assert checked == 25 and searched >= 5


def test_the_step_budget_stops_sampling_but_keeps_the_minimum():
    rules = RulesConfig(num_players=6)
    game, seat = next(positions(rules, seed=2, every=1, limit=1))
    agent = NetSearchAgent(POLICY, seed=0, config=rules)
    vec, g, cards, tokens, legal, rew, res, wf, wi = agent._kernel_buffers()
    view = SeatView.from_game(game, seat)
    rng = np.random.default_rng(0)
    k = 12
    rows = np.zeros((k, g.shape[0]), g.dtype)
    stacks = np.zeros((k, *cards.shape), cards.dtype)
    seeds = np.zeros(k, np.int64)
    for i in range(k):
        sample = sample_game(view, rng)
        write_game_row(sample, rows[i], stacks[i], vec._kind)
        seeds[i] = sample.seed
    cands = np.array(view.legal_actions[:2], dtype=np.int64)

    def run(max_steps, min_samples):
        values = np.zeros((k, 2))
        done = evaluate(
            rows, stacks, seeds, cands, seat, vec._prm, vec._kcode, vec._kcount, vec._canon,
            g, cards, tokens, legal, rew, res, wf, wi, 30.0, values, max_steps, min_samples,
        )  # fmt: skip
        return int(done), values

    full_n, full = run(0, 1)
    assert full_n == k
    # a rollout of a 6-seat round from the opening takes far more than 1 step: stop after
    # the minimum; the samples done are the same as without a budget
    few_n, few = run(1, 3)
    assert few_n == 3
    np.testing.assert_array_equal(few[:3], full[:3])
    assert run(10**9, 1)[0] == k


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("netsearch", "needs a checkpoint path"),
        ("netsearch:/no/such/policy.pt", "no/such/policy.pt"),
        (f"netsearch:{POLICY}:1", "samples=1 is not allowed"),
    ],
)
def test_bad_specs_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, 0, RulesConfig(num_players=3))


def test_spec_with_samples():
    agent = make_agent(f"netsearch:{POLICY}:6", 0, RulesConfig(num_players=3))
    assert isinstance(agent, NetSearchAgent) and agent.samples == 6
    assert make_agent(f"netsearch:{POLICY}", 0, RulesConfig(num_players=3)).samples == 32
