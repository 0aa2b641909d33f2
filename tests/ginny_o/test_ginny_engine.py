"""The Ginny-O engine's API: configuration errors, illegal actions, copies, determinism,
the notation and the test hook's errors (rules are in tests/ginny_o/test_ginny_rules.py)."""

from __future__ import annotations

import numpy as np
import pytest

from gnome_env.ginny_o import GinnyConfig, GinnyGame, IllegalActionError
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import Board
from gnome_env.ginny_o.notation import format_placement, parse_placement
from gnome_env.ginny_o.testing import build_board, stacked_game
from gnome_env.ginny_o.validate import GinnyInvariantError, check_invariants


def test_config_round_trip_and_clear_errors():
    cfg = GinnyConfig(num_players=3, max_placements=2, max_turns=50, first_player=1)
    assert GinnyConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.replace(num_players=4).num_players == 4
    with pytest.raises(ValueError, match=r"unknown Ginny-O config field.*'jokers'.*known fields"):
        GinnyConfig.from_dict({"jokers": 2})
    with pytest.raises(
        ValueError, match="max_placements=9 is not allowed: must be an integer from 1 to 8"
    ):
        GinnyConfig(max_placements=9)
    with pytest.raises(ValueError, match="descending_runs=1 is not allowed: must be true or false"):
        GinnyConfig(descending_runs=1)
    with pytest.raises(ValueError, match="first_player='first'"):
        GinnyConfig(first_player="first")
    with pytest.raises(ValueError, match="max_turns=0"):
        GinnyConfig(max_turns=0)
    with pytest.raises(ValueError, match="stall_rounds=-1"):
        GinnyConfig(stall_rounds=-1)
    with pytest.raises(ValueError, match="must be a mapping"):
        GinnyConfig.from_dict([("num_players", 2)])


def test_seed_and_config_errors():
    for bad in (-1, 2**63, 1.5, "3", True):
        with pytest.raises(ValueError, match="seed="):
            GinnyGame(GinnyConfig(), bad)
    with pytest.raises(ValueError, match="config must be a GinnyConfig"):
        GinnyGame({"num_players": 2}, 0)


def test_illegal_actions_raise_say_why_and_change_nothing():
    game = GinnyGame(GinnyConfig(num_players=2), 5)
    before = game.digest()
    cases = {
        -1: "must be an integer 0..1863",
        1864: "must be an integer 0..1863",
        A.PASS: "PASS is legal only when no tile was drawn",
        A.END_TURN: "END_TURN needs max_placements > 1",
        A.CONFIRM_RETURN: "mark at least one slot first",
        A.declare(5): "DECLARE only follows the placement of a joker",
        A.COMMIT: "do not form a legal placement",
        A.place(0, 0): "no legal placement",
    }
    for action, message in cases.items():
        with pytest.raises(IllegalActionError, match=message):
            game.step(action)
    for bad in ("place", 3.0, None, True):
        with pytest.raises(IllegalActionError):
            game.step(bad)  # type: ignore[arg-type]
    assert game.digest() == before
    assert issubclass(IllegalActionError, ValueError)


def test_numpy_ints_are_accepted():
    game = GinnyGame(GinnyConfig(num_players=2), 5)
    a = np.int64(game.legal_actions()[0])
    game.step(a)
    assert game.log[-1][1] == int(a)


def test_copy_is_independent_and_digest_follows_state():
    game = GinnyGame(GinnyConfig(num_players=3), 9)
    twin = game.copy()
    assert twin.digest() == game.digest()
    twin.step(twin.legal_actions()[-1])
    assert twin.digest() != game.digest()
    check_invariants(game)
    check_invariants(twin)


def test_same_seed_same_actions_same_game_and_no_global_random_state():
    def play(seed: int, disturb: bool) -> list[str]:
        game = GinnyGame(GinnyConfig(num_players=4), seed)
        pick = np.random.default_rng(0)
        out = []
        while not game.game_over and game.turn < 40:
            if disturb:  # global generators must not matter
                np.random.seed(123)
                np.random.random(5)
                import random

                random.random()
            legal = game.legal_actions()
            game.step(legal[int(pick.integers(len(legal)))])
            out.append(game.digest())
        return out

    assert play(17, False) == play(17, True)
    assert play(17, False) != play(18, False)


def test_game_over_accepts_nothing():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "5D", 1: "2H"},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
        rest="out",
    )
    game.step(A.PASS)
    assert game.game_over and game.legal_actions() == [] and not game.legal_mask().any()
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.step(A.PASS)


def test_validator_catches_a_broken_game():
    game = GinnyGame(GinnyConfig(num_players=2), 2)
    broken = game.copy()
    broken.box.pop()
    with pytest.raises(GinnyInvariantError, match="tiles not conserved"):
        check_invariants(broken)
    broken = game.copy()
    broken.scores[0] += 1
    with pytest.raises(GinnyInvariantError, match="scores"):
        check_invariants(broken)
    broken = game.copy()
    broken.board.put(0, False, 5, 0)  # a tile out of nowhere, touching nothing
    with pytest.raises(GinnyInvariantError):
        check_invariants(broken)


def test_notation_round_trip_and_errors():
    board = build_board(["4C 5C 6C @ 7,6 across"])
    tiles = parse_placement("3C 7C @ 7,5 across", board)  # skips the occupied cells
    assert [c for c, _, _ in tiles] == [7 * 15 + 5, 7 * 15 + 9]
    assert format_placement(tiles) == "3C 7C @ 7,5 across"
    assert parse_placement("*=QS @ 11,10", Board()) == [(11 * 15 + 10, 52, 13 * 3 + 11)]
    for text, message in (
        ("7H 8H", "is not a placement"),
        ("@ 7,7", "names no tiles"),
        ("7H @ 15,2", "off the board"),
        ("7H 8H @ 2,2", "need a direction"),
        ("7H 8H @ 2,2 sideways", "is not across or down"),
        ("7H @ x,2", "must be numbers"),
        ("* @ 2,2", "needs its declaration"),
        ("7H 8H 9H @ 0,13 across", "run off the board"),
        ("7H @ 7,7 across", "already holds a tile"),
    ):
        with pytest.raises(ValueError, match=message):
            parse_placement(text, board)


def test_test_hook_errors():
    with pytest.raises(ValueError, match="no copy of 7H is left"):
        stacked_game(
            GinnyConfig(num_players=2), racks={0: "7H 7H 2C 3C 4C 5C 6C", 1: "2D 3D 4D 5D 6D 7D 8D"}
        )
    with pytest.raises(ValueError, match="give exactly 7"):
        stacked_game(GinnyConfig(num_players=2), racks={0: "7H", 1: "2D 3D 4D 5D 6D 7D 8D"})
    with pytest.raises(ValueError, match="every seat"):
        stacked_game(GinnyConfig(num_players=3), racks={0: "7H"})
    with pytest.raises(ValueError, match="covers no start square"):
        build_board(["2C 3C 4C @ 0,0 across"])
    with pytest.raises(ValueError, match="not a meld"):
        build_board(["2C 3C 4C @ 7,7 across", "5D @ 7,10"])
