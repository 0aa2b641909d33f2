"""Soak runs of the Ginny-O engine: many random games over every variant, checked after
every decision.

Every game draws its config from a seeded generator: 2-4 players, jokers_per_set 0-4,
descending_runs, max_placements 1-3, rescore_existing, dead_check, stall_rounds 0-4 and
sometimes a small max_turns, so every G29 ending (passes, dead board, stall, turn cap)
occurs. Seats play random legal actions: uniformly over the mask in one game in three
(mostly returns: short games), otherwise preferring placements (PLACE/DECLARE/COMMIT with
probability 0.9) so that boards get crowded.

After every decision :func:`check_invariants` runs (conservation, every line a meld,
regions, every placement's score recomputed from first principles, G30 at the end);
:func:`check_mask_matches_engine` (every masked id accepted on a copy and leaves a valid
game; a spread sample of 64 unmasked ids rejected without change) runs after every
decision of every ``MASK_EVERY``-th game and at one decision of every other game.

The fast test (30 games) runs in CI. The slow one (5,000 games) is deselected by default
(``pyproject.toml``: ``-m 'not slow'``); run it with
``.venv/bin/python -m pytest -m slow tests/ginny_o/test_ginny_soak.py``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from gnome_env.ginny_o import GinnyConfig, GinnyGame
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.validate import check_invariants, check_mask_matches_engine

FAST_GAMES = 30
SLOW_GAMES = 5_000
MASK_EVERY = 25


def random_config(gen: np.random.Generator) -> GinnyConfig:
    """One variant mix: every option of RULES-ginny-o.md drawn."""
    players = int(gen.integers(2, 5))
    return GinnyConfig(
        players=players,
        jokers_per_set=int(gen.integers(0, 5)),
        descending_runs=bool(gen.integers(2)),
        max_placements=int(gen.choice([1, 1, 2, 3])),
        first_player="random" if gen.random() < 0.5 else int(gen.integers(players)),
        rescore_existing=bool(gen.random() < 0.7),
        dead_check=bool(gen.random() < 0.8),
        stall_rounds=int(gen.integers(0, 5)),
        max_turns=int(gen.integers(10, 80)) if gen.random() < 0.2 else None,
    )


def soak(games: int, seed: int) -> Counter:
    """Play ``games`` random games with the checks of the module docstring; end reasons."""
    gen = np.random.default_rng(seed)
    reasons: Counter = Counter()
    for g in range(games):
        config = random_config(gen)
        game = GinnyGame(config, int(gen.integers(2**62)))
        uniform = g % 3 == 0
        full_masks = g % MASK_EVERY == 0
        spot = int(gen.integers(40))
        decisions = 0
        while not game.game_over:
            legal = game.legal_actions()
            plays = [a for a in legal if a <= A.COMMIT]
            pool = plays if plays and not uniform and gen.random() < 0.9 else legal
            game.step(int(pool[gen.integers(len(pool))]))
            decisions += 1
            check_invariants(game)
            if full_masks or decisions == spot:
                check_mask_matches_engine(game, illegal_sample=64)
        reasons[game.end_reason] += 1
    return reasons


def test_soak_fast_every_decision_validated():
    reasons = soak(FAST_GAMES, seed=1)
    assert sum(reasons.values()) == FAST_GAMES
    assert {"dead", "stall"} <= set(reasons)


@pytest.mark.slow
def test_soak_slow_5000_games():
    reasons = soak(SLOW_GAMES, seed=2)
    assert sum(reasons.values()) == SLOW_GAMES
    assert set(reasons) == {"passes", "dead", "stall", "turn_cap"}
