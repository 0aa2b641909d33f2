"""Golden-string tests of ``Game.render()`` for scripted positions (built with stack_deck).

Each expected picture is written out by hand from the stacked deck: a face-down card is
``##``, ``<`` marks the seat that decides now, ``*`` the first-out player (R15); pile tops
show as ``--`` when the pile is empty. Each seat's column is 12 characters wide and
trailing blanks are stripped. Positions are row-major (R2): 0 1 2 / 3 4 5 / 6 7 8.
"""

from __future__ import annotations

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.testing import stack_deck

SEAT0 = "12 -4 3 / 4 M 6 / 7 8 9"
SEAT1 = "1 2 3 / 4 5 6 / 7 8 -3"
SEAT2 = "10 11 H / -1 -1 -1 / 2 2 2"


def dealt_game() -> Game:
    """3 seats; R4: the first card turned up is a hazard (removed), so A = 9 and B = -2."""
    cfg = RulesConfig(num_players=3)
    deck = stack_deck(cfg, layouts=[SEAT0, SEAT1, SEAT2], top=["H", "9", "-2"])
    return Game(cfg, seed=0, stacked_decks={0: deck})


def test_render_r3_r5_opening_flips_show_face_down_cards_as_hashes():
    game = dealt_game()
    assert game.render() == (
        "Round 1/3 | phase OPENING_FLIP | seat 0\n"
        "Draw pile 80 | pile A 9 (1) | pile B -2 (1) | hazards removed 1\n"
        "seat 0<     seat 1      seat 2\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        "total 0     total 0     total 0"
        "\n(total: points of the rounds scored so far; a layout is scored at round end)"
    )
    # Seat 0 turns up the 12 (position 0) and the mulligan (4); seat 1 then turns up its -3 (8).
    for pos in (0, 4):
        game.step(A.FLIP + pos)
    game.step(A.FLIP + 8)
    assert game.render() == (
        "Round 1/3 | phase OPENING_FLIP | seat 1\n"
        "Draw pile 80 | pile A 9 (1) | pile B -2 (1) | hazards removed 1\n"
        "seat 0      seat 1<     seat 2\n"
        " 12 ## ##    ## ## ##    ## ## ##\n"
        " ##  M ##    ## ## ##    ## ## ##\n"
        " ## ## ##    ## ## -3    ## ## ##\n"
        "total 0     total 0     total 0"
        "\n(total: points of the rounds scored so far; a layout is scored at round end)"
    )


def test_render_r7_r10_r14_card_in_hand_taken_then_displaced_then_discarded():
    game = dealt_game()
    for _ in range(3):  # R5: every seat turns up positions 0 and 1
        game.step(A.FLIP + 0)
        game.step(A.FLIP + 1)
    game.step(A.TAKE_A)  # R7: seat 0 takes the 9 from pile A, which is now empty
    assert game.render() == (
        "Round 1/3 | phase PLACE | turn 1 of at most 180, seat 0\n"
        "Draw pile 80 | pile A -- (0) | pile B -2 (1) | hazards removed 1\n"
        "In hand: 9 (pile_a)\n"
        "seat 0<     seat 1      seat 2\n"
        " 12 -4 ##     1  2 ##    10 11 ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        "total 0     total 0     total 0"
        "\n(total: points of the rounds scored so far; a layout is scored at round end)"
    )
    game.step(A.PLACE + 2)  # R10: the 9 displaces the face-down 3 (no face-up 3: no bounce)
    assert game.render() == (
        "Round 1/3 | phase DISPLACED | turn 1 of at most 180, seat 0\n"
        "Draw pile 80 | pile A -- (0) | pile B -2 (1) | hazards removed 1\n"
        "In hand: 3 (displaced)\n"
        "seat 0<     seat 1      seat 2\n"
        " 12 -4  9     1  2 ##    10 11 ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        "total 0     total 0     total 0"
        "\n(total: points of the rounds scored so far; a layout is scored at round end)"
    )
    assert game.legal_actions() == [A.DISCARD_A]  # R14: the empty pile must be refilled
    game.step(A.DISCARD_A)
    assert game.render() == (
        "Round 1/3 | phase DRAW | turn 2 of at most 180, seat 1\n"
        "Draw pile 80 | pile A 3 (1) | pile B -2 (1) | hazards removed 1\n"
        "seat 0      seat 1<     seat 2\n"
        " 12 -4  9     1  2 ##    10 11 ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        "total 0     total 0     total 0"
        "\n(total: points of the rounds scored so far; a layout is scored at round end)"
    )


# Seat 0 goes out in one turn with a bounce chain (R11): it shows 5 5 after its opening
# flips, draws a 6 and puts it on position 2; the face-down 5 there bounces to 3, that 5
# to 4, 5, 6 and 7 in turn; the 6 displaced from 7 matches the placed 6 and bounces to 8;
# the 6 displaced from 8 is discarded onto pile A. Seat 0 ends 5 5 6 / 5 5 5 / 5 5 6.
OUT_SEAT0 = "5 5 5 / 5 5 5 / 5 6 6"
OUT_SEAT1 = "1 2 3 / 4 -1 -2 / 7 8 9"
OUT_SEAT2 = "10 10 10 / -3 -3 -3 / H M 12"


def first_out_game(rounds: int) -> Game:
    """Seat 0 is first-out after turn 1 (R15); seats 1 and 2 still have one turn each."""
    cfg = RulesConfig(num_players=3, rounds=rounds)
    round0 = stack_deck(
        cfg, layouts=[OUT_SEAT0, OUT_SEAT1, OUT_SEAT2], top=["9", "-2", "6", "11", "12"]
    )
    decks = {0: round0}
    if rounds > 1:
        decks[1] = stack_deck(cfg, top=["7", "8"])
    game = Game(cfg, seed=0, stacked_decks=decks)
    for _ in range(3):
        game.step(A.FLIP + 0)
        game.step(A.FLIP + 1)
    game.step(A.DRAW)
    game.step(A.PLACE + 2)
    for pos in range(3, 9):
        game.step(A.BOUNCE + pos)
    game.step(A.DISCARD_A)
    return game


def test_render_r15_first_out_star_and_next_seat_arrow():
    game = first_out_game(rounds=1)
    assert game.first_out == 0
    assert game.render() == (
        "Round 1/1 | phase DRAW | turn 2 of at most 180, seat 1\n"
        "Draw pile 80 | pile A 6 (2) | pile B -2 (1) | hazards removed 0\n"
        "seat 0*     seat 1<     seat 2\n"
        "  5  5  6     1  2 ##    10 10 ##\n"
        "  5  5  5    ## ## ##    ## ## ##\n"
        "  5  5  6    ## ## ##    ## ## ##\n"
        "total 0     total 0     total 0"
        "\n(total: points of the rounds scored so far; a layout is scored at round end)"
    )


def test_render_r16_r22_game_over_reveals_layouts_and_totals():
    game = first_out_game(rounds=1)
    for _ in range(2):  # R15: seats 1 and 2 take their last turn: draw, discard onto B
        game.step(A.DRAW)
        game.step(A.DISCARD_B)
    assert game.game_over
    # Layout scores (R18-R20): seat 0 columns 0 and 1 of 5s and row 1 of 5s (-15) + 6 + 6 = -3,
    # lowest, so first-out gets -5 (R21): -8. Seat 1: 1+2+3+4+7+8+9 - 1 - 2 = 31. Seat 2: row
    # of 10s -10, -3 x3 = -9, hazard +10, mulligan 0, 12 = 3.
    assert game.render() == (
        "Game over | 1 round played\n"
        "Draw pile 78 | pile A 6 (2) | pile B 12 (3) | hazards removed 0\n"
        "seat 0*     seat 1      seat 2\n"
        "  5  5  6     1  2  3    10 10 10\n"
        "  5  5  5     4 -1 -2    -3 -3 -3\n"
        "  5  5  6     7  8  9     H  M 12\n"
        "total -8    total 31    total 3"
        "\n(total: points of the rounds scored so far; a layout is scored at round end)"
    )


def test_render_r6_next_round_starts_at_seat_1_with_totals_carried():
    game = first_out_game(rounds=2)
    for _ in range(2):
        game.step(A.DRAW)
        game.step(A.DISCARD_B)
    assert game.round == 1
    assert game.render() == (
        "Round 2/2 | phase OPENING_FLIP | seat 1\n"
        "Draw pile 81 | pile A 7 (1) | pile B 8 (1) | hazards removed 0\n"
        "seat 0      seat 1<     seat 2\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        " ## ## ##    ## ## ##    ## ## ##\n"
        "total -8    total 31    total 3"
        "\n(total: points of the rounds scored so far; a layout is scored at round end)"
    )
