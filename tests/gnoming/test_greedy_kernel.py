"""The compiled Greedy (agents.gnoming.greedy_kernel) decides exactly as
agents.gnoming.greedy.GreedyAgent.

Positions come from real games of 3-7 seats in which every seat is played by Greedy, Expert
or uniformly random moves, under the rules variants and decks of the Expert kernel's test;
on every decision that draws no random number the kernel's action must equal
``GreedyAgent.decide(SeatView.from_tokens(tokens, mask, rules))``, and
``GreedyAgent.decide_tokens`` (kernel plus the bot for the random rows) must give the
actions and the generator state of deciding row by row in Python.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.gnoming.expert_kernel import expert_actions_batch
from agents.gnoming.greedy import GreedyAgent
from agents.gnoming.greedy_kernel import RANDOM, greedy_actions_batch
from gnome_env.gnoming import actions as A
from gnome_env.gnoming._kernels import COMPILED, TOK_PHASE
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.vector import VectorGame

#: the R1 deck without hazards and mulligans
PLAIN_DECK = {**{str(v): 7 for v in range(1, 11)}, "11": 6, "12": 6, "-1": 8, "-2": 6}
#: a small deck with extreme values and many mulligans and hazards
ODD_DECK = {"1": 6, "2": 6, "5": 7, "9": 5, "40": 4, "99": 3, "-99": 2, "-5": 4, "M": 6, "H": 6}
#: (rules, seat counts) of the agreement runs (those of tests/gnoming/test_expert_kernel.py)
VARIANTS = {
    "default": (RulesConfig(), [3, 4, 5, 6, 7]),
    "rediscard_bounce_up": (
        RulesConfig(discard_taken_card=True, bounce_face_up=True),
        [3, 4, 5, 6, 7],
    ),
    "tie_not_lowest_fixed_start_cap": (
        RulesConfig(first_out_tie_is_lowest=False, rotate_start=False, max_turns_per_round=25),
        [3, 5, 7],
    ),
    "no_hazard_no_mulligan": (RulesConfig(deck=PLAIN_DECK), [3, 4, 6]),
    "small_deck_big_values": (RulesConfig(deck=ODD_DECK, rounds=2), [3, 4]),
}


def play_positions(rules, num_players, batch, steps, seed, mix=(0.45, 0.2, 0.35)):
    """Yield ``(tokens, masks)`` per step of ``batch`` games in which each seat of each slot
    is played by Greedy, Expert or random moves (shares ``mix``)."""
    vec = VectorGame(rules, batch_size=batch, num_players=num_players)
    tokens, masks, seats = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    roles = rng.choice(3, size=(batch, 7), p=mix)
    player = GreedyAgent(seed, rules)
    for _ in range(steps):
        yield tokens, masks
        actions = vec.sample_actions(rng)
        role = roles[np.arange(batch), seats]
        greedy_rows = np.flatnonzero(role == 0)
        actions[greedy_rows] = player.decide_tokens(tokens[greedy_rows], masks[greedy_rows])
        expert_rows = np.flatnonzero(role == 1)
        actions[expert_rows] = expert_actions_batch(tokens[expert_rows], masks[expert_rows], rules)
        tokens, masks, seats, *_ = vec.step(actions)


def branch(action: int) -> str:
    """Which of Greedy's choices an action is (for the coverage check)."""
    if action == A.DRAW:
        return "draw"
    if action in (A.TAKE_A, A.TAKE_B):
        return "take"
    if action in (A.DISCARD_A, A.DISCARD_B):
        return "discard"
    if A.BOUNCE <= action < A.BOUNCE + 9:
        return "bounce"
    return "place" if A.PLACE <= action < A.PLACE + 9 else "other"


@pytest.mark.parametrize(
    ("name", "batch", "steps", "seed"),
    [
        ("default", 64, 300, 11),
        ("rediscard_bounce_up", 48, 160, 12),
        ("tie_not_lowest_fixed_start_cap", 48, 160, 13),
        ("no_hazard_no_mulligan", 48, 100, 14),
        ("small_deck_big_values", 48, 100, 15),
    ],
)
def test_kernel_decides_exactly_as_the_python_greedy(name, batch, steps, seed):
    rules, players = VARIANTS[name]
    python = GreedyAgent(0, rules)
    decided = 0
    phases: set[int] = set()
    branches = {"take": 0, "draw": 0, "place": 0, "discard": 0, "bounce": 0, "other": 0}
    for tokens, masks in play_positions(rules, players, batch, steps, seed):
        got = greedy_actions_batch(tokens, masks, rules)
        assert got.dtype == np.int64
        for i in range(len(got)):
            phase = int(tokens[i, TOK_PHASE])
            random_choice = masks[i].sum() > 1 and (
                phase == Phase.OPENING_FLIP
                or (phase == Phase.HAZARD_FLIP and masks[i, A.FLIP : A.FLIP + 9].any())
            )
            if random_choice:
                assert got[i] == RANDOM
                continue
            want = python.decide(SeatView.from_tokens(tokens[i], masks[i], rules))
            assert got[i] == want, (name, i, SeatView.from_tokens(tokens[i], masks[i], rules))
            decided += 1
            phases.add(phase)
            if masks[i].sum() > 1:
                branches[branch(int(want))] += 1
    assert decided > batch * steps // 2
    expected = {int(p) for p in (Phase.DRAW, Phase.PLACE, Phase.DISPLACED)}
    assert expected <= phases
    assert min(v for k, v in branches.items() if k != "other") > 0, branches


def test_decide_tokens_gives_the_python_actions_and_random_draws():
    """Two Greedy bots with one seed: one decides whole batches (kernel + bot for the rows
    that draw), the other every row in Python; same actions, same generator state."""
    rules, players = VARIANTS["default"]
    fast, slow = GreedyAgent(3, rules), GreedyAgent(3, rules)
    randoms = 0
    for tokens, masks in play_positions(rules, players, 48, 120, 21, mix=(0.3, 0.3, 0.4)):
        got = fast.decide_tokens(tokens, masks)
        views = [SeatView.from_tokens(t, m, rules) for t, m in zip(tokens, masks, strict=True)]
        want = [slow.decide(view) for view in views]
        assert got.tolist() == want
        randoms += int((greedy_actions_batch(tokens, masks, rules) == RANDOM).sum())
    assert randoms > 0  # opening and hazard flips were drawn
    assert fast.rng.bit_generator.state == slow.rng.bit_generator.state


@pytest.mark.skipif(not COMPILED, reason="without numba decide_tokens is the Python bot")
def test_batch_checks_shapes():
    rules = RulesConfig()
    tokens, masks = next(iter(play_positions(rules, [4], 8, 1, 0)))
    with pytest.raises(ValueError, match="tokens"):
        greedy_actions_batch(tokens[:, :-1], masks, rules)
    with pytest.raises(ValueError, match="masks"):
        greedy_actions_batch(tokens, masks[:3], rules)
