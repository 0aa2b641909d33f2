"""The move generator (gnome_env.ginny_o.movegen) against the brute-force reference.

The reference (:mod:`gnome_env.ginny_o.bruteforce`) was written separately from the rules
text alone; on random positions the two must list exactly the same placements (G18-G23,
with joker declarations) with exactly the same scores (G24-G28). Positions come from
random games part-way through (so the boards are real), racks are small random multisets
of tiles (the reference is slow), and the rule variants that change placements or scores
(``descending_runs``, ``rescore_existing``) are both exercised.
"""

from __future__ import annotations

import numpy as np
import pytest

from gnome_env.ginny_o import GinnyConfig, GinnyGame
from gnome_env.ginny_o import bruteforce as bf
from gnome_env.ginny_o.board import LAYOUT, Board
from gnome_env.ginny_o.cards import JOKER
from gnome_env.ginny_o.movegen import generate, generate_reference, rack_counts, score_placement


def _random_position(seed: int, players: int, turns: int, descending: bool) -> GinnyGame:
    """A game after ``turns`` turns of a placing-biased random player."""
    game = GinnyGame(GinnyConfig(num_players=players, descending_runs=descending), seed)
    gen = np.random.default_rng(seed)
    while not game.game_over and game.turn < turns:
        legal = game.legal_actions()
        places = [a for a in legal if a < 1853]
        pick = places if places and gen.random() < 0.9 else legal
        game.step(int(pick[gen.integers(len(pick))]))
    return game


def _compare(board: Board, rack: list[int], descending: bool, rescore: bool) -> int:
    fast = generate(
        board,
        rack_counts(rack),
        max_tiles=len(rack),
        descending_runs=descending,
        rescore_existing=rescore,
    )
    # generate() is the compiled generator where numba is installed: the reference must
    # list the same placements in the same order
    assert fast == generate_reference(
        board,
        rack_counts(rack),
        max_tiles=len(rack),
        descending_runs=descending,
        rescore_existing=rescore,
    )
    fast_map = {p.tiles: p.score for p in fast}
    assert len(fast_map) == len(fast), "the generator listed a placement twice"
    ref = bf.brute_force_placements(
        board.card,
        board.joker,
        board.region,
        rack,
        descending_runs=descending,
        rescore_existing=rescore,
    )
    missing = set(ref) - set(fast_map)
    extra = set(fast_map) - set(ref)
    assert not missing and not extra, (
        f"rack {rack}: missing {sorted(missing)[:5]}, extra {sorted(extra)[:5]}"
    )
    for key, score in ref.items():
        assert fast_map[key] == score, f"{key}: generator {fast_map[key]}, reference {score}"
    return len(ref)


def test_layout_G6_same_as_the_reference_and_symmetric():
    assert list(LAYOUT) == list(bf.LAYOUT)
    for r in range(15):
        for c in range(15):
            assert LAYOUT[r][c] == LAYOUT[c][r] == LAYOUT[14 - r][c] == LAYOUT[r][14 - c]


@pytest.mark.parametrize("case", range(24))
def test_G18_G28_generator_equals_brute_force_on_random_positions(case):
    gen = np.random.default_rng(1000 + case)
    players = int(gen.integers(2, 5))
    descending = bool(case % 3 == 1)
    rescore = bool(case % 4 != 2)
    game = _random_position(500 + case, players, int(gen.integers(0, 30)), descending)
    # A small rack: 3 or 4 tiles drawn from the tiles not on the board, at most one joker.
    pool = [k for k in range(53) for _ in range(int(game.unseen_counts(game.current)[k]))]
    pool += list(game.racks[game.current])
    for _ in range(3):
        size = int(gen.integers(3, 5))
        rack = sorted(int(x) for x in gen.choice(pool, size=size, replace=False))
        if rack.count(JOKER) > 1:
            rack = [t for t in rack if t != JOKER] + [JOKER]
        _compare(game.board, rack, descending, rescore)


def test_G20_first_meld_generator_equals_brute_force():
    gen = np.random.default_rng(7)
    total = 0
    for _ in range(6):
        rack = sorted(int(x) for x in gen.choice(52, size=4, replace=False))
        total += _compare(Board(), rack, False, True)
    total += _compare(Board(), [2, 3, 4, JOKER], False, True)
    assert total > 0


def test_G18_placements_found_by_both_on_a_crowded_board():
    """A late-game board: the comparison must not pass vacuously."""
    game = _random_position(99, 4, 60, False)
    assert game.board.count >= 30
    found = 0
    for seed in range(3):
        game = _random_position(90 + seed, 4, 60, False)
        plays = generate(game.board, rack_counts(game.racks[game.current]))
        small = [p for p in plays if len(p.tiles) <= 3 and all(t != JOKER for _, t, _ in p.tiles)]
        if not small:
            continue
        rack = [*sorted(t for _, t, _ in small[0].tiles), JOKER]
        found += _compare(game.board, rack, False, True)
    assert found >= 2


def test_G28_generator_scores_equal_the_first_principles_score():
    """Every placement of a full rack (too big for the reference) scores as recomputed."""
    for seed in range(4):
        game = _random_position(40 + seed, 3, 25, False)
        for p in generate(game.board, rack_counts(game.racks[game.current])):
            assert p.score == score_placement(game.board, p.tiles)


def test_limit_stops_early_and_is_a_prefix():
    game = _random_position(3, 2, 10, False)
    counts = rack_counts(game.racks[game.current])
    everything = generate(game.board, counts)
    assert generate(game.board, counts, limit=1) == everything[:1]
    assert generate(game.board, counts, limit=3) == everything[:3]


@pytest.mark.parametrize("case", range(8))
def test_G18_G28_generator_equals_brute_force_on_racks_that_can_play(case):
    """Racks built from a legal placement's tiles plus a joker or a random tile, so that
    both enumerators have many placements to agree on (not just empty lists)."""
    gen = np.random.default_rng(2000 + case)
    descending = case % 2 == 1
    for attempt in range(20):  # the first position (in a fixed order) with a small play
        game = _random_position(700 + 20 * case + attempt, 2 + case % 3, 4 + 5 * case, descending)
        plays = generate(
            game.board, rack_counts(game.racks[game.current]), descending_runs=descending
        )
        small = [p for p in plays if len(p.tiles) <= 3 and JOKER not in [t for _, t, _ in p.tiles]]
        if small:
            break
    assert small, "no position with a small placement to build a rack from"
    base = sorted(t for _, t, _ in small[int(gen.integers(len(small)))].tiles)
    extra = JOKER if case % 2 == 0 else int(gen.integers(52))
    found = _compare(game.board, [*base, extra], descending, case != 5)
    assert found >= 1
