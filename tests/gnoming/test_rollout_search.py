"""ExpertRolloutAgent (agents/gnoming/rollout_search.py): its kernel rollouts are exactly Expert's
play
on the scalar engine, it decides from the seat's view alone, and it is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from gnome_env.gnoming import _kernels as K

pytestmark = pytest.mark.skipif(not K.COMPILED, reason="the rollout agent needs numba")

from agents.gnoming.expert import ExpertAgent  # noqa: E402
from agents.gnoming.registry import make_agent  # noqa: E402
from agents.gnoming.rollout_search import ExpertRolloutAgent, evaluate  # noqa: E402
from gnome_env.gnoming.config import RulesConfig  # noqa: E402
from gnome_env.gnoming.engine import Game  # noqa: E402
from gnome_env.gnoming.information import SeatView, sample_game  # noqa: E402
from gnome_env.gnoming.testing import hidden_card_twins  # noqa: E402
from gnome_env.gnoming.vector import write_game_row  # noqa: E402


def python_rollout(
    sample: Game, action: int, seat: int, expert: ExpertAgent, own_move=None
) -> float:
    """The candidate, then every seat plays the Python Expert to the end of the round --
    except ``seat`` when ``own_move`` is given: ``own_move(game)`` is its action then."""
    sim = sample.copy()
    rounds = len(sim.round_results)
    sim.step(action)
    while len(sim.round_results) == rounds:
        if own_move is not None and sim.current_seat == seat:
            sim.step(own_move(sim))
        else:
            sim.step(expert.decide(SeatView.from_game(sim, sim.current_seat)))
    scores = sim.round_results[-1].round_scores
    n = sim.num_players
    value = sum(scores[o] for o in range(n) if o != seat) / (n - 1) - scores[seat]
    if sim.game_over and seat in sim.winners():
        value += 30.0 / len(sim.winners())
    return value


@pytest.mark.parametrize("players", [3, 6])
def test_kernel_rollouts_are_expert_play_on_the_scalar_engine(players):
    rules = RulesConfig(num_players=players)
    agent = ExpertRolloutAgent(1, rules, samples=1)
    expert = ExpertAgent(0, rules)
    game = Game(rules, 11 + players)
    rng = np.random.default_rng(players)
    checked = 0
    while not game.game_over and checked < 25:
        seat = game.current_seat
        view = SeatView.from_game(game, seat)
        if len(view.legal_actions) > 1 and game.turns_played % 3 == 0:
            vec, g, cards, tokens, mask, rew, res, wf, wi, _ = agent._buffers(rules)
            sample = sample_game(view, rng)
            rows = np.zeros((1, g.shape[0]), g.dtype)
            stacks = np.zeros((1, *cards.shape), cards.dtype)
            write_game_row(sample, rows[0], stacks[0], vec._kind)
            candidates = np.array(view.legal_actions, dtype=np.int64)
            values = np.zeros((1, len(candidates)))
            evaluate(
                rows, stacks, np.array([sample.seed]), candidates, seat, vec._prm, vec._kcode,
                vec._kcount, vec._canon, g, cards, tokens, mask, rew, res, wf, wi, 30.0, values,
            )  # fmt: skip
            for c, action in enumerate(candidates):
                assert values[0, c] == python_rollout(sample, int(action), seat, expert)
            checked += 1
        game.step(expert.decide(view))
    assert checked == 25


def test_decisions_depend_on_the_view_alone_and_the_seed():
    rules = RulesConfig(num_players=4)
    seen = 0
    for game, twin in hidden_card_twins(rules, 3):
        seat = game.current_seat
        a = ExpertRolloutAgent(5, rules, samples=2).decide(SeatView.from_game(game, seat))
        b = ExpertRolloutAgent(5, rules, samples=2).decide(SeatView.from_game(twin, seat))
        assert a == b
        seen += 1
        if seen == 30:
            break
    assert seen == 30


@pytest.mark.parametrize(
    ("spec", "message"),
    [("rollout:0", "samples=0"), ("rollout:x", "rollout:SAMPLES"), ("rollout:4:y", "MARGIN")],
)
def test_bad_rollout_specs_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, 0)


def test_rollout_spec_sets_samples_and_margin():
    agent = make_agent("rollout:6:1.5", 0)
    assert (agent.samples, agent.margin) == (6, 1.5)
