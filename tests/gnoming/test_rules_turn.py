"""Rule tests for the turn mechanics: R7-R12 and R14, plus the apply() error contract.

Every position is built with the documented deck-stacking hook
(:func:`gnome_env.gnoming.testing.stack_deck`); expected values are derived from RULES.md by hand.
Each test runs on both engines through the ``engine`` fixture (``tests/conftest.py``):
``[game]`` plays on :class:`~gnome_env.gnoming.engine.Game`, ``[kernel]`` on the compiled kernels
(:class:`gnome_env.gnoming.testing.KernelRulesGame`).
Positions are row-major (R2): 0 1 2 / 3 4 5 / 6 7 8.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, MULLIGAN, DeckSpec
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game, Phase, Source
from gnome_env.gnoming.testing import layout_tokens, stack_deck
from gnome_env.gnoming.validate import check_invariants

M = MULLIGAN
H = HAZARD
PLACES = [A.PLACE + q for q in range(9)]
DISCARDS = [A.DISCARD_A, A.DISCARD_B]
DEFAULT_DRAW_PILE = 110 - 3 * 9 - 2  # R1/R3/R4 with 3 players and no hazard turned up


def bounces(*positions: int) -> list[int]:
    return [A.BOUNCE + q for q in positions]


def opening_flips(game: Game, flips: dict[int, tuple[int, int]] | None = None) -> None:
    """R5: each seat flips two cards (default positions 0 and 1), seat 0 first in round 0."""
    flips = flips or {}
    for seat in range(game.num_players):
        for pos in flips.get(seat, (0, 1)):
            assert game.phase == Phase.OPENING_FLIP
            assert game.current_seat == seat
            game.step(A.FLIP + pos)
    assert game.phase == Phase.DRAW
    assert game.current_seat == 0
    assert game.turn_player == 0


def new_game(
    engine,
    layouts: list[str | None],
    top: list[str],
    *,
    flips: dict[int, tuple[int, int]] | None = None,
    deck: DeckSpec | None = None,
    **variants: bool,
) -> Game:
    """A 3-seat game stacked with ``layouts``/``top``, opening flips done, seat 0 to draw."""
    kwargs: dict[str, object] = dict(variants)
    if deck is not None:
        kwargs["deck"] = deck
    cfg = RulesConfig(num_players=3, **kwargs)
    order = stack_deck(cfg, layouts=layouts, top=top)
    game = engine(cfg, seed=0, stacked_decks={0: order})
    opening_flips(game, flips)
    check_invariants(game)
    return game


def decline_hazard_flips(game: Game, seats: list[int]) -> None:
    """R13: the listed seats, in order, are offered a flip and decline it."""
    for seat in seats:
        assert game.phase == Phase.HAZARD_FLIP
        assert game.current_seat == seat
        game.step(A.DECLINE)


def assert_rejected(game: Game, action: object) -> str:
    """``action`` raises ValueError and leaves the state (digest, legal actions) unchanged."""
    before = game.digest()
    legal = game.legal_actions()
    with pytest.raises(ValueError) as info:
        game.step(action)  # type: ignore[arg-type]
    assert game.digest() == before
    assert game.legal_actions() == legal
    return str(info.value)


PLAIN = "1 2 3 / 4 5 6 / 7 8 9"


# ---------------------------------------------------------------------------------- R7


def test_r7_draw_takes_top_of_draw_pile_into_hand(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "12", "9"])
    assert game.piles == [[10], [11]]
    assert len(game.draw_pile) == DEFAULT_DRAW_PILE
    assert game.draw_pile[-2:] == [9, 12]
    assert game.legal_actions() == [A.DRAW, A.TAKE_A, A.TAKE_B]

    game.step(A.DRAW)
    assert game.held == 12
    assert game.held_source == Source.DRAW_PILE
    assert game.phase == Phase.PLACE
    assert game.current_seat == 0
    assert len(game.draw_pile) == DEFAULT_DRAW_PILE - 1
    assert game.draw_pile[-1] == 9
    assert game.piles == [[10], [11]]
    check_invariants(game)

    # Keep it: 12 goes to position 4; the displaced 5 matches nothing (face up: 1 2 12).
    game.step(A.PLACE + 4)
    assert game.layouts[0] == [1, 2, 3, 4, 12, 6, 7, 8, 9]
    assert game.held == 5
    assert game.legal_actions() == DISCARDS
    game.step(A.DISCARD_A)
    assert game.piles == [[10, 5], [11]]
    assert game.held is None
    assert game.phase == Phase.DRAW
    assert game.current_seat == 1
    check_invariants(game)


@pytest.mark.parametrize(
    ("take", "card", "source", "piles_after"),
    [
        (A.TAKE_A, 10, Source.PILE_A, [[], [11]]),
        (A.TAKE_B, 11, Source.PILE_B, [[10], []]),
    ],
)
def test_r7_take_top_of_discard_pile_into_hand(engine, take, card, source, piles_after):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    game.step(take)
    assert game.held == card
    assert game.held_source == source
    assert game.phase == Phase.PLACE
    assert game.piles == piles_after
    assert len(game.draw_pile) == DEFAULT_DRAW_PILE  # the draw pile is untouched
    assert game.draw_pile[-1] == 12
    check_invariants(game)

    game.step(A.PLACE + 8)
    assert game.layouts[0] == [1, 2, 3, 4, 5, 6, 7, 8, card]
    assert game.face_up[0][8]
    assert game.held == 9
    check_invariants(game)


def test_r7_take_top_of_pile_takes_the_last_discarded_card(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    game.step(A.DRAW)
    game.step(A.DISCARD_A)  # seat 0 discards the 12 onto A
    assert game.piles == [[10, 12], [11]]
    game.step(A.TAKE_A)  # seat 1 takes the top of A: the 12, not the 10
    assert game.current_seat == 1
    assert game.held == 12
    assert game.piles == [[10], [11]]
    check_invariants(game)


# ---------------------------------------------------------------------------------- R8

# A 33-card deck (R1 allows any deck of at least 9 x 3 + 3 cards): values 1..11, three each.
SMALL_DECK = DeckSpec.from_dict({str(v): 3 for v in range(1, 12)})
SMALL_LAYOUTS = ["7 7 7 / 8 8 8 / 9 9 9", "10 10 10 / 11 11 11 / 1 1 2", "2 3 3 / 4 4 5 / 5 6 6"]


def test_r8_empty_draw_pile_reshuffles_all_but_each_pile_top(engine):
    # Pile A starts with 1, pile B with 2; the draw pile is 3, 4, 5, 6 (top first).
    game = new_game(engine, SMALL_LAYOUTS, ["1", "2", "3", "4", "5", "6"], deck=SMALL_DECK)
    assert game.piles == [[1], [2]]
    assert game.draw_pile == [6, 5, 4, 3]
    for seat, discard in [(0, A.DISCARD_A), (1, A.DISCARD_B), (2, A.DISCARD_A), (0, A.DISCARD_A)]:
        assert game.current_seat == seat
        game.step(A.DRAW)
        game.step(discard)
    assert game.draw_pile == []
    assert game.piles == [[1, 3, 5, 6], [2, 4]]
    assert game.current_seat == 1
    assert game.legal_actions() == [A.DRAW, A.TAKE_A, A.TAKE_B]
    check_invariants(game)

    game.step(A.DRAW)
    # Each pile keeps its own top (6 and 4); the under-top cards 1 3 5 and 2 form the new
    # draw pile, of which one card is now in hand.
    assert game.piles == [[6], [4]]
    assert game.held_source == Source.DRAW_PILE
    assert len(game.draw_pile) == 3
    assert Counter([*game.draw_pile, game.held]) == Counter([1, 3, 5, 2])
    check_invariants(game)


def test_r8_draw_is_illegal_when_reshuffle_would_yield_nothing(engine):
    deck = DeckSpec.from_dict({**{str(v): 3 for v in range(1, 10)}, "10": 2, "H": 1})
    layouts = ["1 1 1 / 2 2 2 / 3 3 3", "4 4 4 / 5 5 5 / 6 6 6", "7 7 7 / 8 8 8 / 9 9 9"]
    game = new_game(engine, layouts, ["10", "10", "H"], deck=deck)
    assert game.draw_pile == [H]
    game.step(A.DRAW)
    assert game.held == H
    game.step(A.DISCARD_A)  # R13: the hazard leaves play
    decline_hazard_flips(game, [1, 2])
    assert game.draw_pile == []
    assert game.piles == [[10], [10]]
    assert game.phase == Phase.DRAW
    assert game.current_seat == 1
    # Both piles hold only their top card: a reshuffle would give no card.
    assert game.legal_actions() == [A.TAKE_A, A.TAKE_B]
    assert not game.legal_mask()[A.DRAW]
    assert_rejected(game, A.DRAW)
    check_invariants(game)


# ---------------------------------------------------------------------------------- R9


def test_r9_drawn_card_may_be_kept_or_discarded(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    game.step(A.DRAW)
    assert game.legal_actions() == PLACES + DISCARDS
    game.step(A.DISCARD_B)
    assert game.piles == [[10], [11, 12]]
    assert game.layouts[0] == layout_tokens(PLAIN)
    assert game.face_up[0] == [True, True] + [False] * 7
    assert game.phase == Phase.DRAW
    assert game.current_seat == 1
    check_invariants(game)


@pytest.mark.parametrize("take", [A.TAKE_A, A.TAKE_B])
def test_r9_taken_card_may_not_be_discarded_by_default(engine, take):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    game.step(take)
    assert game.legal_actions() == PLACES
    for action in DISCARDS:
        assert_rejected(game, action)
    check_invariants(game)


@pytest.mark.parametrize(
    ("take", "discard", "piles_after"),
    [(A.TAKE_A, A.DISCARD_A, [[10], [11]]), (A.TAKE_B, A.DISCARD_B, [[10], [11]])],
)
def test_r9_discard_taken_card_variant_allows_discarding_it(engine, take, discard, piles_after):
    game = new_game(engine, [PLAIN], ["10", "11", "12"], discard_taken_card=True)
    game.step(take)
    # The taken pile is now empty, so R14 sends the discard back onto it.
    assert game.legal_actions() == [*PLACES, discard]
    game.step(discard)
    assert game.piles == piles_after
    assert game.layouts[0] == layout_tokens(PLAIN)
    assert game.phase == Phase.DRAW
    assert game.current_seat == 1
    check_invariants(game)


def test_r9_discard_taken_card_variant_both_piles_open(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "12"], discard_taken_card=True)
    game.step(A.DRAW)
    game.step(A.DISCARD_A)  # A = 10 12, B = 11
    game.step(A.TAKE_A)  # seat 1 takes the 12; A still holds the 10
    assert game.legal_actions() == PLACES + DISCARDS
    game.step(A.DISCARD_B)
    assert game.piles == [[10], [11, 12]]
    check_invariants(game)


# ---------------------------------------------------------------------------------- R10


def test_r10_displaced_face_down_card_is_revealed_and_placed_card_is_face_up(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    assert game.down_count[0] == 7
    game.step(A.DRAW)
    game.step(A.PLACE + 4)
    assert game.layouts[0] == [1, 2, 3, 4, 12, 6, 7, 8, 9]
    assert game.face_up[0] == [True, True, False, False, True, False, False, False, False]
    assert game.down_count[0] == 6
    assert game.held == 5  # the face-down 5, now in hand for everyone to see
    assert game.held_source == Source.DISPLACED
    assert game.held_was_face_down
    assert game.phase == Phase.DISPLACED
    assert game.filled == 1 << 4
    check_invariants(game)
    game.step(A.DISCARD_B)
    assert game.piles == [[10], [11, 5]]
    assert game.layouts[0] == [1, 2, 3, 4, 12, 6, 7, 8, 9]
    check_invariants(game)


def test_r10_replacing_a_face_up_card(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    game.step(A.DRAW)
    game.step(A.PLACE + 0)
    assert game.layouts[0] == [12, 2, 3, 4, 5, 6, 7, 8, 9]
    assert game.face_up[0] == [True, True] + [False] * 7
    assert game.down_count[0] == 7
    assert game.held == 1
    assert not game.held_was_face_down
    assert game.legal_actions() == DISCARDS
    game.step(A.DISCARD_A)
    assert game.piles == [[10, 1], [11]]
    check_invariants(game)


def test_r10_taken_card_is_placed_face_up(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    game.step(A.TAKE_B)
    game.step(A.PLACE + 7)
    assert game.layouts[0] == [1, 2, 3, 4, 5, 6, 7, 11, 9]
    assert game.face_up[0][7]
    assert game.held == 8
    check_invariants(game)


# ---------------------------------------------------------------------------------- R11

CHAIN = "6 8 6 / 8 1 9 / 2 3 4"  # face up after the opening flips: 6 (pos 0), 8 (pos 1)


def test_r11_two_bounce_chain(engine):
    game = new_game(engine, [CHAIN], ["10", "11", "5"])
    game.step(A.DRAW)
    assert game.held == 5
    game.step(A.PLACE + 2)
    # The face-down 6 matches the face-up 6 at position 0.
    assert game.held == 6
    assert game.can_bounce
    assert game.legal_actions() == bounces(0, 1, 3, 4, 5, 6, 7, 8) + DISCARDS
    game.step(A.BOUNCE + 3)
    assert game.layouts[0] == [6, 8, 5, 6, 1, 9, 2, 3, 4]
    assert game.face_up[0][3]
    # The face-down 8 from position 3 matches the face-up 8 at position 1.
    assert game.held == 8
    assert game.held_was_face_down
    assert game.legal_actions() == bounces(0, 1, 4, 5, 6, 7, 8) + DISCARDS
    check_invariants(game)
    game.step(A.BOUNCE + 5)
    # The face-down 9 matches nothing (face up: 6 8 5 6 8): the chain must end.
    assert game.held == 9
    assert not game.can_bounce
    assert game.legal_actions() == DISCARDS
    game.step(A.DISCARD_A)
    assert game.layouts[0] == [6, 8, 5, 6, 1, 8, 2, 3, 4]
    assert game.face_up[0] == [True, True, True, True, False, True, False, False, False]
    assert game.down_count[0] == 4
    assert game.piles == [[10, 9], [11]]
    assert game.phase == Phase.DRAW
    assert game.current_seat == 1
    check_invariants(game)


def test_r11_bounce_is_optional_player_may_discard_instead(engine):
    game = new_game(engine, [CHAIN], ["10", "11", "5"])
    game.step(A.DRAW)
    game.step(A.PLACE + 2)
    assert game.can_bounce
    game.step(A.DISCARD_B)
    assert game.layouts[0] == [6, 8, 5, 8, 1, 9, 2, 3, 4]
    assert game.face_up[0] == [True, True, True] + [False] * 6
    assert game.piles == [[10], [11, 6]]
    assert game.phase == Phase.DRAW
    assert game.current_seat == 1
    check_invariants(game)


def test_r11_bounce_targets_exclude_positions_filled_this_turn(engine):
    game = new_game(engine, [CHAIN], ["10", "11", "5"])
    game.step(A.DRAW)
    game.step(A.PLACE + 2)
    assert_rejected(game, A.BOUNCE + 2)
    game.step(A.BOUNCE + 3)
    assert game.filled == (1 << 2) | (1 << 3)
    assert_rejected(game, A.BOUNCE + 2)
    assert_rejected(game, A.BOUNCE + 3)
    assert A.BOUNCE + 2 not in game.legal_actions()
    assert A.BOUNCE + 3 not in game.legal_actions()
    check_invariants(game)


FACE_UP_TARGET = "6 4 6 / 1 2 3 / 5 7 9"  # face up: 6 (pos 0), 4 (pos 1)


def _bounce_onto_face_up_four(game: Game) -> None:
    game.step(A.DRAW)
    assert game.held == 4
    game.step(A.PLACE + 2)  # displaces the face-down 6 (matches pos 0)
    game.step(A.BOUNCE + 1)  # onto the face-up 4
    assert game.layouts[0] == [6, 6, 4, 1, 2, 3, 5, 7, 9]
    assert game.held == 4
    assert not game.held_was_face_down


def test_r11_displaced_face_up_card_cannot_bounce(engine):
    game = new_game(engine, [FACE_UP_TARGET], ["10", "11", "4"])
    _bounce_onto_face_up_four(game)
    # The 4 matches the 4 just placed at position 2, but it was face up: the chain ends.
    assert not game.can_bounce
    assert game.legal_actions() == DISCARDS
    assert_rejected(game, A.BOUNCE + 3)
    game.step(A.DISCARD_A)
    assert game.piles == [[10, 4], [11]]
    assert game.layouts[0] == [6, 6, 4, 1, 2, 3, 5, 7, 9]
    check_invariants(game)


def test_r11_bounce_face_up_variant_lets_face_up_card_bounce(engine):
    game = new_game(engine, [FACE_UP_TARGET], ["10", "11", "4"], bounce_face_up=True)
    _bounce_onto_face_up_four(game)
    assert game.can_bounce
    assert game.legal_actions() == bounces(0, 3, 4, 5, 6, 7, 8) + DISCARDS
    game.step(A.BOUNCE + 3)
    assert game.layouts[0] == [6, 6, 4, 4, 2, 3, 5, 7, 9]
    assert game.held == 1  # face down before, but no face-up 1 to match
    assert game.legal_actions() == DISCARDS
    check_invariants(game)


def test_r11_bounce_face_up_variant_still_needs_a_match(engine):
    # With the variant on, a face-up displaced card that matches nothing still cannot bounce.
    game = new_game(engine, [PLAIN], ["10", "11", "12"], bounce_face_up=True)
    game.step(A.DRAW)
    game.step(A.PLACE + 0)  # displaces the face-up 1; face up now: 12 2
    assert game.held == 1
    assert game.legal_actions() == DISCARDS
    check_invariants(game)


@pytest.mark.parametrize(
    ("pos", "displaced", "legal"),
    [
        (2, -2, DISCARDS),  # negative: a face-up -2 is shown, still no bounce
        (3, M, DISCARDS),  # mulligan: a face-up mulligan is shown, still no bounce
        (4, H, [A.DISCARD_A]),  # hazard: never bounces; only "discard" (= remove, R13)
    ],
)
@pytest.mark.parametrize("bounce_face_up", [False, True])
def test_r11_negative_mulligan_and_hazard_never_bounce(
    engine, pos, displaced, legal, bounce_face_up
):
    game = new_game(
        engine, ["-2 M -2 / M H 1 / 2 3 4"], ["10", "11", "7"], bounce_face_up=bounce_face_up
    )
    game.step(A.DRAW)
    game.step(A.PLACE + pos)
    assert game.held == displaced
    assert game.held_was_face_down
    assert not game.can_bounce
    assert game.legal_actions() == legal
    check_invariants(game)


def test_r11_positive_card_matching_nothing_cannot_bounce(engine):
    game = new_game(engine, ["9 10 7 / 1 2 3 / 4 5 6"], ["11", "12", "8"])
    game.step(A.DRAW)
    game.step(A.PLACE + 2)  # face up now: 9 10 8; the displaced 7 matches none
    assert game.held == 7
    assert game.held_was_face_down
    assert not game.can_bounce
    assert game.legal_actions() == DISCARDS
    assert_rejected(game, A.BOUNCE + 3)
    check_invariants(game)


def test_r11_card_just_placed_counts_as_a_match(engine):
    game = new_game(engine, ["9 10 7 / 1 2 3 / 4 5 6"], ["11", "12", "7"])
    game.step(A.DRAW)
    game.step(A.PLACE + 2)  # the placed 7 is the only face-up 7
    assert game.held == 7
    assert game.can_bounce
    assert game.legal_actions() == bounces(0, 1, 3, 4, 5, 6, 7, 8) + DISCARDS
    game.step(A.BOUNCE + 4)
    assert game.layouts[0] == [9, 10, 7, 1, 7, 3, 4, 5, 6]
    assert game.held == 2
    assert game.legal_actions() == DISCARDS
    check_invariants(game)


def test_r11_face_up_mulligan_never_counts_as_a_match(engine):
    game = new_game(engine, ["M 5 8 / 1 2 3 / 4 6 7"], ["10", "11", "3"])
    game.step(A.DRAW)
    game.step(A.PLACE + 2)  # face up now: M 5 3; the displaced 8 matches no positive card
    assert game.held == 8
    assert game.held_was_face_down
    assert not game.can_bounce
    assert game.legal_actions() == DISCARDS
    check_invariants(game)


def test_r11_chain_fills_each_position_once_at_most_eight_bounces(engine):
    # With bounce_face_up every displaced card matches, so the chain runs until all nine
    # positions are filled: one placement and eight bounces.
    game = new_game(engine, ["5 6 5 / 6 5 6 / 5 6 5"], ["10", "11", "7"], bounce_face_up=True)
    game.step(A.DRAW)
    game.step(A.PLACE + 2)
    unfilled = [0, 1, 3, 4, 5, 6, 7, 8]
    expected_held = [5, 6, 5, 6, 5, 6, 5, 5, 6]  # held after the placement, then each bounce
    assert game.held == expected_held[0]
    for step, target in enumerate([3, 4, 5, 6, 7, 8, 0, 1], start=1):
        assert game.legal_actions() == bounces(*unfilled) + DISCARDS
        game.step(A.BOUNCE + target)
        unfilled.remove(target)
        assert game.held == expected_held[step]
    assert game.filled == (1 << 9) - 1
    assert not game.can_bounce
    assert game.legal_actions() == DISCARDS
    game.step(A.DISCARD_A)
    assert game.layouts[0] == [5, 5, 7, 5, 6, 5, 6, 5, 6]
    assert game.face_up[0] == [True] * 9
    assert game.piles == [[10, 6], [11]]
    check_invariants(game)


# ---------------------------------------------------------------------------------- R12


def test_r12_no_face_up_mulligan_mulligan_may_go_anywhere(engine):
    game = new_game(engine, ["1 2 M / 3 4 5 / 6 7 8"], ["10", "11", "M"])  # a face-down M at 2
    game.step(A.DRAW)
    assert game.held == M
    assert game.legal_actions() == PLACES + DISCARDS
    check_invariants(game)


def test_r12_one_face_up_mulligan_only_its_own_position(engine):
    game = new_game(engine, ["M 5 1 / 2 3 4 / 6 7 8"], ["10", "11", "M"])
    game.step(A.DRAW)
    assert game.held == M
    assert game.legal_actions() == [A.PLACE + 0, *DISCARDS]
    assert_rejected(game, A.PLACE + 2)
    game.step(A.PLACE + 0)
    assert game.held == M
    assert not game.held_was_face_down
    assert game.legal_actions() == DISCARDS
    game.step(A.DISCARD_B)
    assert game.layouts[0] == [M, 5, 1, 2, 3, 4, 6, 7, 8]
    assert game.piles == [[10], [11, M]]
    check_invariants(game)


def test_r12_one_face_up_mulligan_may_take_mulligan_from_pile(engine):
    game = new_game(engine, ["M 5 1 / 2 3 4 / 6 7 8"], ["M", "11"])
    assert game.legal_actions() == [A.DRAW, A.TAKE_A, A.TAKE_B]
    game.step(A.TAKE_A)
    assert game.held == M
    assert game.legal_actions() == [A.PLACE + 0]
    check_invariants(game)


def test_r12_two_face_up_mulligans_cannot_take_mulligan_from_pile(engine):
    game = new_game(engine, ["M M 1 / 2 3 4 / 5 6 7"], ["M", "11"])
    assert game.legal_actions() == [A.DRAW, A.TAKE_B]
    assert not game.legal_mask()[A.TAKE_A]
    assert_rejected(game, A.TAKE_A)
    check_invariants(game)


def test_r12_two_face_up_mulligans_take_allowed_with_discard_taken_card(engine):
    game = new_game(engine, ["M M 1 / 2 3 4 / 5 6 7"], ["M", "11"], discard_taken_card=True)
    assert game.legal_actions() == [A.DRAW, A.TAKE_A, A.TAKE_B]
    game.step(A.TAKE_A)
    # No position accepts it; it can only be discarded, and pile A is now the empty pile.
    assert game.legal_actions() == [A.DISCARD_A]
    game.step(A.DISCARD_A)
    assert game.piles == [[M], [11]]
    assert game.layouts[0] == [M, M, 1, 2, 3, 4, 5, 6, 7]
    assert game.current_seat == 1
    check_invariants(game)


def test_r12_two_face_up_mulligans_drawn_mulligan_can_only_be_discarded(engine):
    game = new_game(engine, ["M M 1 / 2 3 4 / 5 6 7"], ["10", "11", "M"])
    game.step(A.DRAW)
    assert game.held == M
    assert game.legal_actions() == DISCARDS
    for pos in range(9):
        assert_rejected(game, A.PLACE + pos)
    game.step(A.DISCARD_B)
    assert game.piles == [[10], [11, M]]
    assert game.layouts[0] == [M, M, 1, 2, 3, 4, 5, 6, 7]
    check_invariants(game)


# ---------------------------------------------------------------------------------- R14


@pytest.mark.parametrize(
    ("take", "only", "other", "piles_after"),
    [
        (A.TAKE_A, A.DISCARD_A, A.DISCARD_B, [[3], [11]]),
        (A.TAKE_B, A.DISCARD_B, A.DISCARD_A, [[10], [3]]),
    ],
)
def test_r14_discard_must_go_on_the_only_empty_pile(engine, take, only, other, piles_after):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    game.step(take)
    game.step(A.PLACE + 2)  # displaces the face-down 3, which matches nothing
    assert game.held == 3
    assert game.legal_actions() == [only]
    assert_rejected(game, other)
    game.step(only)
    assert game.piles == piles_after
    check_invariants(game)


@pytest.mark.parametrize(
    ("discard", "piles_after"),
    [(A.DISCARD_A, [[10, 12], [11]]), (A.DISCARD_B, [[10], [11, 12]])],
)
def test_r14_both_piles_non_empty_player_chooses(engine, discard, piles_after):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    game.step(A.DRAW)
    assert game.legal_actions() == PLACES + DISCARDS
    game.step(discard)
    assert game.piles == piles_after
    check_invariants(game)


def test_r14_both_piles_empty_player_chooses(engine):
    # Seats 0 and 1 each take a pile's only card and displace a face-down hazard, which
    # leaves play (R13): both piles end up empty.
    game = new_game(engine, ["1 2 H / 3 4 5 / 6 7 8", "1 2 H / 3 4 5 / 6 7 8"], ["10", "11", "9"])
    game.step(A.TAKE_A)
    game.step(A.PLACE + 2)
    assert game.held == H
    assert game.legal_actions() == [A.DISCARD_A]
    game.step(A.DISCARD_A)
    decline_hazard_flips(game, [1, 2])
    assert game.piles == [[], [11]]
    assert game.current_seat == 1
    assert game.legal_actions() == [A.DRAW, A.TAKE_B]
    game.step(A.TAKE_B)
    game.step(A.PLACE + 2)
    assert game.held == H
    game.step(A.DISCARD_A)
    decline_hazard_flips(game, [2, 0])
    assert game.piles == [[], []]
    assert game.hazards_removed == 2
    assert game.current_seat == 2
    assert game.legal_actions() == [A.DRAW]
    game.step(A.DRAW)
    assert game.held == 9
    assert game.legal_actions() == PLACES + DISCARDS
    game.step(A.DISCARD_B)
    assert game.piles == [[], [9]]
    check_invariants(game)


def test_r14_discarded_drawn_hazard_is_removed_from_play(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "H"])
    assert game.hazards_removed == 0
    game.step(A.DRAW)
    assert game.held == H
    assert game.legal_actions() == [*PLACES, A.DISCARD_A]
    assert_rejected(game, A.DISCARD_B)
    game.step(A.DISCARD_A)
    assert game.held is None
    assert game.piles == [[10], [11]]
    assert game.hazards_removed == 1
    assert game.phase == Phase.HAZARD_FLIP  # R13 flips for the other seats
    assert game.current_seat == 1
    check_invariants(game)


def test_r14_displaced_hazard_is_removed_from_play(engine):
    game = new_game(engine, ["1 2 H / 3 4 5 / 6 7 8"], ["10", "11", "12"])
    game.step(A.DRAW)
    game.step(A.PLACE + 2)
    assert game.held == H
    assert game.legal_actions() == [A.DISCARD_A]
    game.step(A.DISCARD_A)
    assert game.layouts[0] == [1, 2, 12, 3, 4, 5, 6, 7, 8]
    assert game.piles == [[10], [11]]
    assert game.hazards_removed == 1
    check_invariants(game)


# ------------------------------------------------------------------ apply() error contract


def test_illegal_action_in_draw_phase_names_phase_and_legal_actions(engine):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    message = assert_rejected(game, A.PLACE + 0)
    assert "DRAW" in message
    assert "place@0" in message
    for action in [A.DRAW, A.TAKE_A, A.TAKE_B]:
        assert f"{action} ({A.ACTION_NAMES[action]})" in message
    check_invariants(game)


def test_illegal_action_in_place_phase_names_phase_and_legal_actions(engine):
    game = new_game(engine, ["M 5 1 / 2 3 4 / 6 7 8"], ["M", "11"])
    game.step(A.TAKE_A)
    message = assert_rejected(game, A.DISCARD_A)
    assert "PLACE" in message
    assert f"{A.PLACE} (place@0)" in message
    assert "place@1" not in message
    check_invariants(game)


def test_illegal_opening_flip_of_face_up_card_is_rejected(engine):
    cfg = RulesConfig(num_players=3)
    game = engine(cfg, seed=0, stacked_decks={0: stack_deck(cfg, layouts=[PLAIN], top=["10"])})
    game.step(A.FLIP + 4)
    message = assert_rejected(game, A.FLIP + 4)
    assert "OPENING_FLIP" in message
    assert game.legal_actions() == [A.FLIP + q for q in range(9) if q != 4]
    check_invariants(game)


@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint8, np.intp])
def test_numpy_integer_actions_are_accepted(engine, kind):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    twin = game.copy()
    game.step(kind(A.TAKE_B))
    twin.step(A.TAKE_B)
    assert game.digest() == twin.digest()
    assert game.held == 11
    assert game.actions[-1] == A.TAKE_B
    assert type(game.actions[-1]) is int
    check_invariants(game)


@pytest.mark.parametrize(
    "bad",
    [
        True,
        False,
        0.0,
        1.0,
        np.float64(0.0),
        np.bool_(True),
        -1,
        33,
        10**9,
        np.int64(33),
        "0",
        None,
    ],
)
def test_malformed_or_out_of_range_actions_are_rejected(engine, bad):
    game = new_game(engine, [PLAIN], ["10", "11", "12"])
    assert_rejected(game, bad)
    check_invariants(game)
