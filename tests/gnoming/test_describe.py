"""gnome_env.gnoming.describe: every kind of legal action in words, for scripted positions.

Positions are built with the deck-stacking hook (:func:`gnome_env.gnoming.testing.stack_deck`);
positions are row-major (R2): 0 1 2 / 3 4 5 / 6 7 8, written 1-based as row, column.
"""

from __future__ import annotations

import pytest

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.describe import card_words, describe_action, position_words
from gnome_env.gnoming.engine import Game, Phase
from gnome_env.gnoming.testing import stack_deck


def new_game(
    layouts: list[str | None], top: list[str], *, flips: bool = True, **rules: object
) -> Game:
    """A 3-seat stacked game; with ``flips`` every seat has turned up positions 0 and 1 (R5)."""
    cfg = RulesConfig(num_players=3, **rules)  # type: ignore[arg-type]
    game = Game(cfg, seed=0, stacked_decks={0: stack_deck(cfg, layouts=layouts, top=top)})
    if flips:
        for _ in range(3):
            game.step(A.FLIP + 0)
            game.step(A.FLIP + 1)
    return game


def all_descriptions(game: Game) -> dict[int, str]:
    return {a: describe_action(game, a) for a in game.legal_actions()}


def test_card_and_position_words():
    assert [card_words(c) for c in (7, -2, 0, 100)] == [
        "the 7",
        "the -2",
        "the mulligan",
        "the hazard",
    ]
    assert card_words(5, article="a") == "a 5"
    assert [position_words(q) for q in (0, 2, 3, 7, 8)] == [
        "row 1, column 1",
        "row 1, column 3",
        "row 2, column 1",
        "row 3, column 2",
        "row 3, column 3",
    ]


def test_r5_opening_flip_words_and_draw_is_not_legal_yet():
    game = new_game([None, None, None], ["9", "-2"], flips=False)
    assert game.phase == Phase.OPENING_FLIP
    assert describe_action(game, A.FLIP + 0) == "flip the card at row 1, column 1"
    assert describe_action(game, A.FLIP + 7) == "flip the card at row 3, column 2"
    game.step(A.FLIP + 7)
    with pytest.raises(ValueError, match=r"action 30 \(flip@7\) is not legal now"):
        describe_action(game, A.FLIP + 7)  # already face up
    with pytest.raises(ValueError, match="phase OPENING_FLIP, seat 0"):
        describe_action(game, A.DRAW)


def test_r7_draw_and_take_words_name_pile_size_and_tops():
    game = new_game([None, None, None], ["M", "-2"])
    assert all_descriptions(game) == {
        A.DRAW: "draw from the draw pile (81 cards)",
        A.TAKE_A: "take the mulligan from pile A",
        A.TAKE_B: "take the -2 from pile B",
    }


def test_r9_r10_place_words_say_what_is_replaced_and_r14_discard_names_the_pile():
    # Seat 0 shows 5 and M after its opening flips; it draws a 9.
    game = new_game(["5 M 1 / 2 3 4 / 6 7 -2", None, None], ["8", "-1", "9"])
    game.step(A.DRAW)
    words = all_descriptions(game)
    assert words[A.PLACE + 0] == "place the 9 at row 1, column 1 (replacing the face-up 5)"
    assert words[A.PLACE + 1] == "place the 9 at row 1, column 2 (replacing the face-up mulligan)"
    assert words[A.PLACE + 5] == "place the 9 at row 2, column 3 (replacing a face-down card)"
    assert words[A.DISCARD_A] == "discard the 9 onto pile A"
    assert words[A.DISCARD_B] == "discard the 9 onto pile B"
    assert len(words) == 11


def test_r9_taken_card_cannot_be_discarded_so_no_discard_words():
    game = new_game([None, None, None], ["8", "-1"])
    game.step(A.TAKE_B)
    assert describe_action(game, A.PLACE + 8) == (
        "place the -1 at row 3, column 3 (replacing a face-down card)"
    )
    with pytest.raises(ValueError, match=r"discard_a\) is not legal now \(phase PLACE"):
        describe_action(game, A.DISCARD_A)


def test_r13_discarded_hazard_is_removed_from_play_then_flip_or_decline():
    game = new_game([None, None, None], ["8", "-1", "H"])
    game.step(A.DRAW)
    assert describe_action(game, A.DISCARD_A) == "discard the hazard (removed from play)"
    assert describe_action(game, A.PLACE + 4) == (
        "place the hazard at row 2, column 2 (replacing a face-down card)"
    )
    with pytest.raises(ValueError):
        describe_action(game, A.DISCARD_B)  # a hazard has one discard action only
    game.step(A.DISCARD_A)
    assert game.phase == Phase.HAZARD_FLIP and game.current_seat == 1
    words = all_descriptions(game)
    assert words[A.FLIP + 2] == "flip the card at row 1, column 3"
    assert words[A.DECLINE] == "decline the flip"
    assert A.FLIP + 0 not in words  # seat 1 turned position 0 up at the start


def test_r11_bounce_words_and_displaced_discard():
    # Seat 0 shows 5 5; the 9 it draws goes on position 2 and displaces a face-down 5,
    # which matches the face-up 5s and may bounce to any position not filled this turn.
    game = new_game(["5 5 5 / 4 3 -2 / 6 7 8", None, None], ["8", "-1", "9"])
    game.step(A.DRAW)
    assert describe_action(game, A.PLACE + 2) == (
        "place the 9 at row 1, column 3 (replacing a face-down card)"
    )
    game.step(A.PLACE + 2)
    assert game.phase == Phase.DISPLACED
    words = all_descriptions(game)
    assert words[A.BOUNCE + 0] == "bounce the 5 to row 1, column 1 (replacing the face-up 5)"
    assert words[A.BOUNCE + 3] == "bounce the 5 to row 2, column 1 (replacing a face-down card)"
    assert words[A.DISCARD_A] == "discard the 5 onto pile A"
    assert words[A.DISCARD_B] == "discard the 5 onto pile B"
    assert A.BOUNCE + 2 not in words  # R11: position 2 was filled this turn
    with pytest.raises(ValueError, match=r"bounce@2\) is not legal now"):
        describe_action(game, A.BOUNCE + 2)


def test_r13_displaced_hazard_discard_words():
    game = new_game(["5 5 H / 4 3 -2 / 6 7 8", None, None], ["8", "-1", "9"])
    game.step(A.DRAW)
    game.step(A.PLACE + 2)
    assert all_descriptions(game) == {A.DISCARD_A: "discard the hazard (removed from play)"}


def test_r8_empty_draw_pile_draw_words_count_the_reshuffled_discards():
    # A 30-card deck (the R1 minimum for 3 players): 27 dealt, piles A and B, 1 to draw.
    deck = {"1": 9, "2": 9, "3": 9, "4": 3}
    game = new_game([None, None, None], ["4", "4", "4"], deck=deck)
    assert describe_action(game, A.DRAW) == "draw from the draw pile (1 card)"
    game.step(A.DRAW)
    game.step(A.DISCARD_A)
    assert not game.draw_pile
    assert describe_action(game, A.DRAW) == (
        "draw from the draw pile (empty: reshuffle 1 card of discards)"
    )


def test_describe_rejects_malformed_actions_and_any_action_once_the_game_is_over():
    game = new_game([None, None, None], ["8", "-1"], max_turns_per_round=1, rounds=1)
    with pytest.raises(ValueError, match="out of range"):
        describe_action(game, 33)
    with pytest.raises(ValueError, match="malformed"):
        describe_action(game, "draw")  # type: ignore[arg-type]
    while not game.game_over:
        game.step(game.legal_actions()[0])
    with pytest.raises(ValueError, match="none \\(the game is over\\)"):
        describe_action(game, A.DRAW)


def test_describe_reads_public_information_only():
    """Two games that differ only in a face-down card describe every action the same."""
    a = new_game(["5 M 1 / 2 3 4 / 6 7 -2", None, None], ["8", "-1", "9"])
    b = new_game(["5 M 12 / 2 3 4 / 6 7 -2", None, None], ["8", "-1", "9"])
    for game in (a, b):
        game.step(A.DRAW)
    assert a.layouts[0] != b.layouts[0]
    assert all_descriptions(a) == all_descriptions(b)
