"""Soak runs of the Nerts engine: many random games over every variant, checked after every step.

Every game draws its config from a seeded generator -- 2-6 players, jokers 0-2, turn_size
1-3, work_piles 3-5, nerts_size, slide_under, foundation_tie, auto_call, stall_steps and
small step caps / targets / hand counts, so games stay short and every N25-N31 ending
(``nerts``, ``blocked``, ``cap``, game end by target or by hand count) occurs. Seats play
uniformly random legal actions; in one game in three, one seat plays the ``greedy`` bot, so
play also reaches deep positions (complete foundations, empty Nerts piles, calls).

After every step :func:`check_invariants` runs (``dealt=True``: positions reached from a
deal); :func:`check_mask_matches_engine` (every id of every seat tried against ``step``,
slow) runs at one random step of every ``MASK_EVERY``-th game.

The fast test (50 games) runs in CI. The slow one (10,000 games) is deselected by default
(``pyproject.toml``: ``-m 'not slow'``); run it with
``.venv/bin/python -m pytest -m slow tests/nerts/test_nerts_soak.py``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from agents.nerts.bots import GreedyNertsAgent
from gnome_env.nerts import NertsConfig, NertsGame, check_invariants, check_mask_matches_engine
from gnome_env.nerts.config import FOUNDATION_TIES
from gnome_env.nerts.information import NertsView

FAST_GAMES = 50
SLOW_GAMES = 10_000
MASK_EVERY = 10  # games per check_mask_matches_engine in the slow soak


def random_config(rng: np.random.Generator) -> NertsConfig:
    """One variant mix: every option of RULES-nerts.md drawn, with small caps."""
    return NertsConfig(
        players=int(rng.integers(2, 7)),
        jokers=int(rng.integers(0, 3)),
        nerts_size=int(rng.choice([1, 2, 4, 8, 13, 20])),
        work_piles=int(rng.integers(3, 6)),
        slide_under=bool(rng.integers(2)),
        turn_size=int(rng.integers(1, 4)),
        foundation_tie=str(rng.choice(FOUNDATION_TIES)),
        auto_call=bool(rng.random() < 0.25),
        stall_steps=int(rng.choice([1, 3, 10, 60])),
        max_steps_per_hand=int(rng.choice([20, 60, 150])),
        target_score=int(rng.choice([3, 10, 100])),
        max_hands=int(rng.choice([1, 2, 3])),
    )


def play_checked(
    config: NertsConfig, seed: int, rng: np.random.Generator, mask_check: bool
) -> Counter:
    """Play one game to its end with invariant checks after every step; what happened."""
    game = NertsGame(config, seed)
    check_invariants(game, dealt=True)
    p = config.num_players
    greedy_seat = int(rng.integers(p)) if rng.random() < 1 / 3 else -1
    greedy = GreedyNertsAgent(seed, config)
    mask_step = int(rng.integers(0, 30)) if mask_check else -1
    seen: Counter = Counter()
    steps = 0
    while True:
        if game.hand_over:
            seen[f"end:{game.end_reason}"] += 1
            if game.game_over:
                break
            game.next_hand()
            check_invariants(game, dealt=True)
        if steps == mask_step:
            check_mask_matches_engine(game)
            seen["mask_checks"] += 1
        actions = []
        for seat in range(p):
            if seat == greedy_seat:
                actions.append(greedy.decide(NertsView.from_game(game, seat)))
            else:
                legal = game.legal_actions(seat)
                actions.append(legal[int(rng.integers(len(legal)))])
        result = game.step(actions)
        check_invariants(game, dealt=True)
        steps += 1
        seen["blocked"] += sum(result.blocked)
        seen["remedies"] += result.remedy
        seen["calls"] += sum(result.called)
    winners = game.winners()
    assert winners and all(game.totals[w] == max(game.totals) for w in winners)
    seen["games"] += 1
    seen["steps"] += steps
    seen["hands"] += len(game.hand_results)
    seen[f"players:{p}"] += 1
    seen["complete_slots"] += sum(game.slot_complete)
    seen["ended_by_target"] += max(game.totals) >= config.target_score
    return seen


def run_soak(games: int, seed: int, mask_every: int) -> Counter:
    """``games`` checked random games; mask checks in every ``mask_every``-th game."""
    rng = np.random.default_rng(seed)
    total: Counter = Counter()
    for g in range(games):
        config = random_config(rng)
        total += play_checked(config, int(rng.integers(2**62)), rng, g % mask_every == 0)
    return total


def _assert_coverage(seen: Counter, games: int) -> None:
    assert seen["games"] == games
    assert {f"players:{p}" for p in range(2, 7)} <= set(seen)
    for reason in ("nerts", "blocked", "cap"):  # every N29 ending occurred
        assert seen[f"end:{reason}"] > 0, seen
    assert seen["hands"] > games  # some games had several hands (N31)
    assert seen["ended_by_target"] > 0
    assert seen["blocked"] > 0 and seen["remedies"] > 0 and seen["calls"] > 0
    assert seen["mask_checks"] > 0


def test_fast_soak_random_games_over_every_variant_keep_the_invariants():
    seen = run_soak(FAST_GAMES, seed=2024, mask_every=10)
    _assert_coverage(seen, FAST_GAMES)


@pytest.mark.slow
def test_slow_soak_ten_thousand_random_games_keep_the_invariants():
    seen = run_soak(SLOW_GAMES, seed=7, mask_every=MASK_EVERY)
    _assert_coverage(seen, SLOW_GAMES)
    assert seen["complete_slots"] > 0  # some foundation reached its King (N8)
