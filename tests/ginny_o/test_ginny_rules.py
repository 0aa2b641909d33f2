"""Ginny-O rule tests (RULES-ginny-o.md G1-G31): exact positions from the stacked-box test
hook (:mod:`gnome_env.ginny_o.testing`), exact outcomes; every test names its rule."""

from __future__ import annotations

import pytest

from gnome_env.ginny_o import GinnyConfig, GinnyGame, IllegalActionError, meld_type, parse_kinds
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import (
    BLUE,
    CENTRE,
    GREEN,
    MELD_MULT,
    RED,
    SQUARE,
    START,
    START_SQUARES,
    TILE_MULT,
    YELLOW,
    cell,
)
from gnome_env.ginny_o.cards import JOKER, parse_kind
from gnome_env.ginny_o.notation import format_placement, parse_placement
from gnome_env.ginny_o.testing import stacked_game
from gnome_env.ginny_o.validate import check_invariants, check_mask_matches_engine


# ---------------------------------------------------------------------------- helpers
def find(game: GinnyGame, text: str):
    """The legal placement typed as ``text``, or None."""
    wanted = tuple(sorted(parse_placement(text, game.board)))
    for p in game.legal_placements():
        if p.tiles == wanted:
            return p
    return None


def play(game: GinnyGame, text: str) -> int:
    """Play the typed placement through its canonical actions; the points it scored."""
    p = find(game, text)
    assert p is not None, f"{text} is not legal here"
    points = 0
    for a in game.placement_actions(p):
        points += game.step(a).points
    check_invariants(game)
    return points


def rejected(game: GinnyGame, text: str) -> None:
    """The typed placement is not legal: it is not listed, and typing it as actions fails --
    the first action outside the mask raises IllegalActionError and changes nothing, or
    (when its tiles are the start of some other legal placement) COMMIT stays illegal."""
    assert find(game, text) is None
    tiles = parse_placement(text, game.board)
    trial = game.copy()
    slots_used: set[int] = set()
    for c, t, card in tiles:
        s = min(i for i, k in enumerate(trial.slots) if k == t and i not in slots_used)
        slots_used.add(s)
        seq = [A.place(s, c)] + ([A.declare(card)] if t == JOKER else [])
        for a in seq:
            before = trial.digest()
            try:
                trial.step(a)
            except IllegalActionError:
                assert trial.digest() == before
                return
    before = trial.digest()
    with pytest.raises(IllegalActionError):
        trial.step(A.COMMIT)
    assert trial.digest() == before


def finish_turn_without_play(game: GinnyGame) -> None:
    """Return the last slot's tile (a turn that places nothing)."""
    s = max(i for i, k in enumerate(game.slots) if k >= 0)
    game.step(A.return_slot(s))
    game.step(A.CONFIRM_RETURN)


# ---------------------------------------------------------------------------- worked examples
def _worked_example_game() -> GinnyGame:
    """The 2-player game of the worked-examples table, draws stacked so that every play of
    the table is in the mover's rack when it is due (fillers are tiles the table never uses)."""
    return stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "4C 5C 6C 7C 8C AD AH", 1: "AC 2C 3C 9C 9H 9D QD"},
        draws=(
            "AS 6H 6D 6S TD"  # T1 P0: draw AS; refill 4
            " QH 7H *"  # T2 P1: draw QH; refill 2
            " JD 2S 3H"  # T3 P0: draw JD; refill 2
            " QC QS 4S"  # T4 P1: draw QC; refill 2
            " 5S 8S"  # T5 P0: draw 5S; refill 1
            " KS 2D 3D"  # T6 P1: draw KS; refill 2
            " 4D 5D"  # T7 P0: draw 4D; refill 1
            " 7D 8D"  # T8 P1: draw 7D; refill 1
        ),
        first_player=0,
    )


def test_worked_examples_table_every_row_in_order():
    game = _worked_example_game()
    # 1: first meld covers the centre (G20); (3,7) yellow doubles the 4.
    assert play(game, "4C 5C 6C 7C 8C @ 3,7 down") == 34
    # 2: extends the run upward with a low ace (G10); red (1,7) doubles the new tiles only (G27).
    assert play(game, "AC 2C 3C @ 0,7 down") == 44
    # 3: the set of four aces on row 0 (aces 15 in a set, G24); blue (0,4) triples the new tiles.
    assert play(game, "AD AH AS @ 0,4 across") == 150
    # 4: the set of nines plus the cross line, column 7 from AC to 9C (G25).
    assert play(game, "9C 9H 9D @ 8,7 across") == 81
    # 5: the set of sixes through 6C; green (5,5) triples the 6H.
    assert play(game, "6H 6D @ 5,5 across") == 30
    # x: 7H at (6,8) would form the 2-tile line 7C 7H (G8, G19).
    rejected(game, "7H @ 6,8")
    # 6: a new region on red (11,11) (G22); the joker scores 0 (G11).
    assert play(game, "QD *=QS QH @ 11,9 across") == 40
    assert game.board.region[cell(11, 10)] == 1 + START_SQUARES.index(cell(11, 11))
    # x: TD JD would join region 0 (9D) and region (11,11) (QD) (G23).
    rejected(game, "TD JD @ 9,9 down")
    # 7: the fourth six (G9).
    assert play(game, "6S @ 5,8") == 24
    # x: the joker already stands for QS (G9, G11).
    rejected(game, "QS @ 11,12")
    # 8: completes QD QS(joker) QH QC.
    assert play(game, "QC @ 11,12") == 30
    assert game.scores == [34 + 150 + 30 + 24, 44 + 81 + 40 + 30]
    check_mask_matches_engine(game)


def test_worked_example_row2_G27_rescore_existing_false_scores_14():
    game = stacked_game(
        GinnyConfig(num_players=2, rescore_existing=False),
        racks={0: "4C 5C 6C 7C 8C AD AH", 1: "AC 2C 3C 9C 9H 9D QD"},
        draws="AS 6H 6D 6S TD QH",
    )
    assert play(game, "4C 5C 6C 7C 8C @ 3,7 down") == 34
    assert play(game, "AC 2C 3C @ 0,7 down") == 14


def test_worked_example_G10_descending_run_only_with_the_variant():
    board = ["4C 5C 6C 7C 8C @ 3,7 down"]
    for descending, legal in ((False, False), (True, True)):
        game = stacked_game(
            GinnyConfig(num_players=2, descending_runs=descending),
            racks={0: "JS TS 9S 2D 3D 4H 5H", 1: "KC KD 2H 3H 4D 5D 6D"},
            board=board,
        )
        found = find(game, "JS TS 9S @ 3,11 across")  # a new region on red (3,11)
        assert (found is not None) is legal
        if legal:
            assert found.score == (10 + 10 + 9) * 2
    assert meld_type(parse_kinds("JS TS 9S")) == 0
    assert meld_type(parse_kinds("JS TS 9S"), descending=True) == 2


def test_worked_example_G10_no_run_round_the_corner_K_A_2():
    assert meld_type(parse_kinds("KH AH 2H")) == 0
    assert meld_type(parse_kinds("KH AH 2H"), descending=True) == 0
    assert meld_type(parse_kinds("2H AH KH"), descending=True) == 0
    game = stacked_game(
        GinnyConfig(num_players=2, descending_runs=True),
        racks={0: "KH AH 2H 5C 9D TS 4S", 1: "KC KD 2C 3H 4D 5D 6D"},
    )
    assert all(
        {t for _, t, _ in p.tiles} != set(parse_kinds("KH AH 2H")) for p in game.legal_placements()
    )


def test_worked_example_G22_new_region_needs_three_tiles():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "5H 6H 7H 2C 9D TS 4S", 1: "KC KD 2D 3H 4D 5D 6D"},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
    )
    rejected(game, "5H 6H @ 3,3 across")
    assert find(game, "5H 6H 7H @ 3,3 across").score == (5 + 6 + 7) * 2  # red (3,3) doubles


def test_worked_example_G20_first_meld_must_cover_the_centre():
    game = stacked_game(
        GinnyConfig(num_players=2), racks={0: "2S 3S 4S 9D TD KC KH", 1: "AC 2C 3C 4C 5C 6C 7C"}
    )
    rejected(game, "2S 3S 4S @ 6,6 across")
    assert find(game, "2S 3S 4S @ 7,6 across").score == 9  # the centre gives no bonus
    assert find(game, "2S 3S 4S @ 7,5 across").score == 9
    assert find(game, "2S 3S 4S @ 7,7 across").score == 9


def test_worked_example_G30_rack_penalty_28_and_G29a_passes_end_the_game():
    game = stacked_game(
        GinnyConfig(num_players=3),
        racks={0: "AH * KD 3S", 1: "2D", 2: ""},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
        rest="out",
        scores=[50, 40, 30],
    )
    # The box is empty: no draw, so PASS is the only choice without a placement (G13, G14).
    assert not game.drew and game.legal_actions()[-1] == A.PASS
    while not game.game_over:
        game.step(A.PASS)
    assert game.end_reason == "passes" and game.turn == 3  # G29a: n passes in a row
    assert game.penalties == [28, 2, 0]
    assert game.final_scores == [50 - 28, 40 - 2, 30]
    assert game.winners() == (1,)


def test_worked_example_G31_tie_goes_to_the_smaller_rack_penalty():
    # Both finish on 120: P0 with a penalty of 5, P1 with 12.
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "5D", 1: "2H TC"},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
        rest="out",
        scores=[125, 132],
    )
    game.step(A.PASS)
    assert game.end_reason == "dead"  # G29b: no rack can place anything
    assert game.final_scores == [120, 120]
    assert game.winners() == (0,)
    assert game.rank_rewards() == [1.0, -1.0]


def test_G31_a_remaining_tie_is_shared():
    game = stacked_game(
        GinnyConfig(num_players=3),
        racks={0: "5D", 1: "5H", 2: "KS"},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
        rest="out",
        scores=[25, 25, 40],
    )
    while not game.game_over:
        game.step(A.PASS)
    assert game.final_scores == [20, 20, 30]
    assert game.winners() == (2,)
    assert game.rank_rewards() == [-0.5, -0.5, 1.0]
    game2 = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "5D", 1: "5H"},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
        rest="out",
        scores=[25, 25],
    )
    while not game2.game_over:
        game2.step(A.PASS)
    assert game2.winners() == (0, 1) and game2.rank_rewards() == [0.0, 0.0]


# ---------------------------------------------------------------------------- components
def test_G1_tile_set_54_tiles_and_jokers_variant_validated():
    assert GinnyConfig().tiles_per_set == 54
    assert GinnyConfig(jokers_per_set=0).all_tiles().count(JOKER) == 0
    assert GinnyConfig(num_players=3, jokers_per_set=4).all_tiles().count(JOKER) == 8
    for bad in (-1, 5, "2", True, 1.0):
        with pytest.raises(ValueError, match="jokers_per_set"):
            GinnyConfig(jokers_per_set=bad)


def test_G2_one_set_for_two_players_two_sets_for_three_or_four():
    assert len(GinnyConfig(num_players=2).all_tiles()) == 54
    for n in (3, 4):
        tiles = GinnyConfig(num_players=n).all_tiles()
        assert len(tiles) == 108
        assert all(tiles.count(k) == 2 for k in range(52))
    for bad in (1, 5):
        with pytest.raises(ValueError, match="players"):
            GinnyConfig(num_players=bad)


def test_G3_notation_and_kind_ids():
    assert parse_kind("7H") == 13 * 2 + 6
    assert parse_kind("TS") == 13 * 3 + 9 == parse_kind("10s")
    assert parse_kind("AC") == 0 and parse_kind("KS") == 51 and parse_kind("*") == JOKER
    from gnome_env.ginny_o.cards import format_tile, parse_tile

    assert parse_tile("*=QS") == (JOKER, 13 * 3 + 11)
    assert format_tile(JOKER, 13 * 3 + 11) == "*=QS"
    for bad in ("1H", "7X", "", "HH7"):
        with pytest.raises(ValueError, match="rank then suit"):
            parse_kind(bad)
    with pytest.raises(ValueError, match="declared"):
        parse_tile("*=*")
    assert cell(7, 7) == CENTRE == 112


def test_G4_G12_same_seed_same_game_and_the_first_player_is_drawn():
    a, b = GinnyGame(GinnyConfig(num_players=3), 11), GinnyGame(GinnyConfig(num_players=3), 11)
    assert a.racks == b.racks and a.current == b.current
    firsts = {GinnyGame(GinnyConfig(num_players=4), s).current for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert any(GinnyGame(GinnyConfig(num_players=3), s).racks != a.racks for s in range(12, 15))
    assert GinnyGame(GinnyConfig(num_players=3, first_player=2), 11).current == 2
    with pytest.raises(ValueError, match="first_player"):
        GinnyConfig(num_players=3, first_player=3)


def test_G12_deal_order_first_player_draws_first():
    """From the first player in seat order, 7 each: the deal takes draws 0-6 for the first
    player, 7-13 for the next seat; the first player's turn draw is draw 14 (G13)."""
    game = GinnyGame(GinnyConfig(num_players=3, first_player=1), 5)
    assert game.draws == 3 * 7 + 1
    assert [len(r) for r in game.racks] == [7, 8, 7]


def test_G4_a_returned_tile_is_mixed_in_and_can_come_back():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "2C 5D 9H JS KD 4H 7S", 1: "3C 3D 3H 8S 8D TC TD"},
        draws="QH",
        rest="out",
    )
    assert game.drew and len(game.box) == 0
    # Return two of the 8 tiles: the rack holds 6 and draws one. The box holds only the two
    # returned tiles, so the redraw brings one of them back (G14: mixed in before redrawing).
    game.step(A.return_slot(game.slots.index(parse_kind("KD"))))
    game.step(A.return_slot(game.slots.index(parse_kind("QH"))))
    game.step(A.CONFIRM_RETURN)
    assert len(game.racks[0]) == 7 and parse_kind("KD") in game.racks[0]
    assert game.box == [] and parse_kind("QH") in game.racks[1]  # P1's turn draw took it


def test_G5_G13_seven_between_turns_eight_after_the_draw():
    game = GinnyGame(GinnyConfig(num_players=2), 3)
    mover = game.current
    assert len(game.racks[mover]) == 8 and game.drew
    assert len(game.racks[1 - mover]) == 7
    finish_turn_without_play(game)
    assert len(game.racks[mover]) == 7 and len(game.racks[1 - mover]) == 8


# ---------------------------------------------------------------------------- the board
def test_G6_layout_squares_where_the_rules_list_them():
    listed = {
        RED: "(1,7) (3,3) (3,11) (7,1) (7,13) (11,3) (11,11) (13,7)",
        BLUE: "(0,4) (0,10) (4,0) (4,14) (10,0) (10,14) (14,4) (14,10)",
        GREEN: "(0,0) (0,14) (5,5) (5,9) (9,5) (9,9) (14,0) (14,14)",
        YELLOW: "(0,7) (1,5) (1,9) (2,2) (2,12) (3,7) (5,1) (5,13) (6,6) (6,8) (7,0) (7,3) "
        "(7,11) (7,14) (8,6) (8,8) (9,1) (9,13) (11,7) (12,2) (12,12) (13,5) (13,9) (14,7)",
    }
    for square, text in listed.items():
        cells = sorted(cell(*map(int, rc.strip("()").split(","))) for rc in text.split())
        assert [c for c in range(225) if SQUARE[c] == square] == cells
    assert SQUARE[CENTRE] == START


def test_G7_centre_gives_nothing_red_starts_and_doubles_blue_triples_tiles_y2_g3():
    assert TILE_MULT[CENTRE] == MELD_MULT[CENTRE] == 1
    assert all(MELD_MULT[c] == 2 and TILE_MULT[c] == 1 for c in START_SQUARES)
    assert {MELD_MULT[c] for c in range(225) if SQUARE[c] == BLUE} == {3}
    assert {TILE_MULT[c] for c in range(225) if SQUARE[c] == YELLOW} == {2}
    assert {TILE_MULT[c] for c in range(225) if SQUARE[c] == GREEN} == {3}


def test_G8_diagonal_contact_does_not_connect():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "9H 9S 9D 2C 3D 4H 5S", 1: "KC KD 2H 3H 4D 5D 6D"},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
    )
    # (8,8) only touches (7,7) diagonally: not connected, and no start square is covered.
    assert find(game, "9H 9S 9D @ 8,8 across") is None
    # (8,6)...(8,8) neither; but with (8,7) under the 8C it would extend the column.
    assert find(game, "9H 9S 9D @ 9,8 down") is None


# ---------------------------------------------------------------------------- melds
def test_G9_sets_three_or_four_distinct_suits_no_duplicate_card():
    assert meld_type(parse_kinds("7H 7C 7S")) == 1
    assert meld_type(parse_kinds("7H 7C 7S 7D")) == 1
    assert meld_type(parse_kinds("7H 7C 7H")) == 0  # two copies of one card (two sets)
    assert meld_type(parse_kinds("7H 7C")) == 0


def test_G10_runs_ace_low_or_high_14_longest():
    assert meld_type(parse_kinds("AH 2H 3H")) == 2
    assert meld_type(parse_kinds("QH KH AH")) == 2
    full = parse_kinds("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH")
    assert meld_type(full) == 2
    assert meld_type(full + parse_kinds("2H")) == 0
    assert meld_type(parse_kinds("4H 5H 7H")) == 0 and meld_type(parse_kinds("4H 5S 6H")) == 0


def test_G11_joker_declared_card_may_duplicate_a_board_card_and_scores_zero():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "* 2D 9H JS KD 4H 7S", 1: "3C 3D 3H 8S 8D TC TD"},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
    )
    # A single joker as 5C in row 4 would make 5C 5C (2 tiles): illegal. As 9C at (8,7)
    # it extends the run; it scores 0 itself but the old tiles count (G27): 4+...+8 = 30.
    p = find(game, "*=9C @ 8,7")
    assert p is not None and p.score == 30
    # Not twice in one line: next to the 6C, a joker as 6C would make 6C 6C ... (G9).
    assert find(game, "*=6C @ 5,8") is None


def test_G11_a_joker_may_read_as_a_card_that_is_on_the_board_elsewhere():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "* 9H 9S 2D JS KD 7S", 1: "3C 3D 3H 8S 8D TH TD"},
        board=["4C 5C 6C 7C 8C @ 3,7 down", "9C TC JC @ 3,11 across"],
    )
    # The joker reads as 9C under the 8C (extending the run) while the real 9C is in the
    # other region; row 8 reads 9H 9C 9S, a set. (8,6) and (8,8) are yellow.
    p = find(game, "9H *=9C 9S @ 8,6 across")
    assert p is not None
    assert p.score == (9 * 2 + 0 + 9 * 2) + (0 + 4 + 5 + 6 + 7 + 8)
    # Canonical actions (RL notes): reading order, the joker's DECLARE right after it.
    slot = game.slots.index
    assert game.placement_actions(p) == [
        A.place(slot(parse_kind("9H")), cell(8, 6)),
        A.place(slot(JOKER), cell(8, 7)),
        A.declare(parse_kind("9C")),
        A.place(slot(parse_kind("9S")), cell(8, 8)),
        A.COMMIT,
    ]


# ---------------------------------------------------------------------------- a turn
def test_G14_return_marks_increasing_slots_then_confirms_and_redraws():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "2C 5D 9H JS KD 4H 7S", 1: "3C 3D 3H 8S 8D TC TD"},
        draws="QH AS AD",
    )
    assert A.PASS not in game.legal_actions()  # a draw happened: no pass (G14)
    game.step(A.return_slot(2))
    legal = game.legal_actions()
    assert A.return_slot(1) not in legal and A.return_slot(3) in legal and A.CONFIRM_RETURN in legal
    assert all(a >= A.RETURN_BASE for a in legal)  # no placing once tiles are marked
    game.step(A.return_slot(5))
    back = [game.slots[2], game.slots[5]]
    game.step(A.CONFIRM_RETURN)
    assert game.current == 1
    rack0 = game.racks[0]
    # 8 - 2 = 6 tiles: one redraw (AS) back to 7; AD is P1's turn draw.
    assert len(rack0) == 7 and parse_kind("AS") in rack0 and parse_kind("AD") in game.racks[1]
    assert game.box[-2:] == back  # stacked box: returned tiles go to its end


def test_G14_no_return_after_placing_and_pass_only_without_a_draw():
    game = _worked_example_game()
    p = find(game, "4C 5C 6C 7C 8C @ 3,7 down")
    game.step(game.placement_actions(p)[0])
    assert not any(A.RETURN_BASE <= a <= A.CONFIRM_RETURN for a in game.legal_actions())
    assert A.PASS not in game.legal_actions()


def test_G14_max_placements_two_placements_then_the_turn_ends_by_itself():
    game = stacked_game(
        GinnyConfig(num_players=2, max_placements=2),
        racks={0: "4C 5C 6C 7C 8C 9C TC", 1: "3C 3D 3H 8S 8D TH TD"},
        draws="JC QC",
    )
    assert play(game, "4C 5C 6C @ 7,7 across") == 15
    assert game.current == 0 and game.phase == "after_commit"
    assert A.END_TURN in game.legal_actions()
    assert play(game, "7C @ 7,10") == 7 + 15
    assert game.current == 1  # the limit of 2 is reached: the turn ended
    assert len(game.racks[0]) == 7  # refilled once, at the end (G15)


def test_G14_end_turn_after_one_of_two_placements():
    game = stacked_game(
        GinnyConfig(num_players=2, max_placements=2),
        racks={0: "4C 5C 6C 2D 9H JS KD", 1: "3C 3D 3H 8S 8D TC TD"},
        draws="QS",
    )
    play(game, "4C 5C 6C @ 7,7 across")
    game.step(A.END_TURN)
    assert game.current == 1 and len(game.racks[0]) == 7


def test_G14_with_one_placement_allowed_there_is_no_end_turn():
    game = _worked_example_game()
    play(game, "4C 5C 6C 7C 8C @ 3,7 down")
    assert game.current == 1 and A.END_TURN not in game.legal_actions()


def test_G15_refill_to_seven_after_a_play_or_what_the_box_has():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "4C 5C 6C 7C 8C 2D 9H", 1: "3C 3D 3H 8S 8D TC TD"},
        draws="QS KS",
        rest="out",
    )
    play(game, "4C 5C 6C 7C 8C @ 3,7 down")
    assert sorted(game.racks[0]) == sorted(parse_kinds("2D 9H QS KS"))  # box ran out
    assert game.box == []


# ---------------------------------------------------------------------------- placements
def test_G18_tiles_may_straddle_board_tiles_but_leave_no_gap():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "3C 7C 8C 2D 9H JS KD", 1: "3H 3D 3S 8S 8D TC TD"},
        board=["4C 5C 6C @ 7,6 across"],
    )
    # 3C left of the run, 7C right of it: one row, the board tiles between (G18).
    p = find(game, "3C 7C @ 7,5 across")
    assert p is not None and p.score == (3 + 7) + (4 + 5 + 6)
    cells = {frozenset(c for c, _, _ in q.tiles) for q in game.legal_placements()}
    assert frozenset({cell(7, 5), cell(7, 10)}) not in cells  # (7,9) would stay empty
    assert find(game, "3C 7C 8C @ 7,5 across") is not None
    assert format_placement(p.tiles) == "3C 7C @ 7,5 across"


def test_G19_every_line_with_a_new_tile_must_be_a_meld():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "9S 9D 9H 2D 3H JS KD", 1: "3C 3D 3S 8S 8D TC TD"},
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
    )
    # Row 4 through 5C: 9S 9D next to 5C would read 9S 9D 5C.
    assert find(game, "9S 9D @ 4,5 across") is None
    # Column 7 below 8C: 9? no 9C; the set 9S 9D 9H placed from (8,6) would put 9D
    # under 8C, making the column 4C..8C 9D.
    assert find(game, "9S 9D 9H @ 8,6 across") is None


def test_G20_empty_board_only_three_plus_tiles_covering_the_centre():
    found = 0
    for seed in range(20, 30):
        game = GinnyGame(GinnyConfig(num_players=2), seed)
        for p in game.legal_placements():
            assert len(p.tiles) >= 3 and CENTRE in {c for c, _, _ in p.tiles} and p.region == 0
            found += 1
    assert found > 10


def test_G21_a_single_connected_tile_is_a_placement():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "3C 2D 9H JS KD 4H 7S", 1: "3H 3D 3S 8S 8D TC TD"},
        board=["4C 5C 6C @ 7,6 across"],
    )
    p = find(game, "3C @ 7,5")
    assert p is not None and p.score == 3 + 15


def test_G22_a_covered_red_square_is_no_longer_a_start_square():
    game = _worked_example_game()
    play(game, "4C 5C 6C 7C 8C @ 3,7 down")
    assert cell(1, 7) in game.board.free_starts()
    play(game, "AC 2C 3C @ 0,7 down")  # covers red (1,7) by extension
    assert cell(1, 7) not in game.board.free_starts()
    assert game.board.region[cell(1, 7)] == 0  # it joined region 0 (G23)


def test_G23_new_tiles_join_the_region_they_touch():
    game = _worked_example_game()
    for text in ("4C 5C 6C 7C 8C @ 3,7 down", "AC 2C 3C @ 0,7 down", "AD AH AS @ 0,4 across"):
        play(game, text)
    assert {game.board.region[c] for c in range(225) if game.board.card[c] >= 0} == {0}


def test_G28_no_bonus_for_using_every_tile():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "2C 3C 4C 5C 6C 7C 8C", 1: "3H 3D 3S 8S 8D TC TD"},
        draws="KD",
    )
    # (7,1) red doubles the meld, (7,3) yellow doubles the 4C: (2+3+8+5+6+7+8) * 2.
    assert find(game, "2C 3C 4C 5C 6C 7C 8C @ 7,1 across").score == 78


# ---------------------------------------------------------------------------- the end
def test_G29c_stall_counts_only_turns_after_the_first_meld():
    game = stacked_game(
        GinnyConfig(num_players=2, stall_rounds=1),
        racks={0: "2C 5D 9H JS KD 4H 7S", 1: "3C 3D 3H 8S 8D TC TD"},
    )
    for _ in range(4):  # empty board: these turns do not count
        finish_turn_without_play(game)
    assert not game.game_over and game.stall == 0
    game2 = stacked_game(
        GinnyConfig(num_players=2, stall_rounds=1),
        racks={0: "2C 5D 9H JS KD 4H 7S", 1: "3C 3D 3H 8S 8D TC TD"},
        board=["4C 5C 6C @ 7,6 across"],
    )
    finish_turn_without_play(game2)
    assert not game2.game_over and game2.stall == 1
    finish_turn_without_play(game2)
    assert game2.game_over and game2.end_reason == "stall" and not game2.truncated


def test_G29d_turn_cap_truncates_and_scores_like_any_end():
    game = GinnyGame(GinnyConfig(num_players=2, max_turns=3, stall_rounds=0), 4)
    for _ in range(3):
        finish_turn_without_play(game)
    assert game.game_over and game.end_reason == "turn_cap" and game.truncated
    assert game.final_scores == [s - p for s, p in zip(game.scores, game.penalties, strict=False)]
    assert GinnyConfig(num_players=3).turn_cap == 180


def test_G29b_dead_with_an_empty_box_means_no_rack_can_place():
    kw = dict(board=["4C 5C 6C 7C 8C @ 3,7 down"], rest="out")
    live = stacked_game(GinnyConfig(num_players=2), racks={0: "KD", 1: "9C 2H"}, **kw)
    assert not live.is_dead()  # seat 1 could extend the run with 9C
    dead = stacked_game(GinnyConfig(num_players=2), racks={0: "KD", 1: "2H QS"}, **kw)
    assert dead.is_dead()
    off = stacked_game(GinnyConfig(num_players=2, dead_check=False), racks={0: "KD", 1: "2H"}, **kw)
    off.step(A.PASS)
    assert not off.game_over  # G29b switched off; G29a needs n passes
    off.step(A.PASS)
    assert off.end_reason == "passes"


def test_G29b_dead_with_a_full_box_looks_at_every_unplayed_tile():
    game = GinnyGame(GinnyConfig(num_players=2), 8)
    assert not game.is_dead()


# ---------------------------------------------------------------------------- more named rules
def test_G13_no_draw_once_the_box_is_empty():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "2C 5D 9H JS KD 4H 7S", 1: "3C 3D 3H 8S 8D TC TD"},
        rest="out",
    )
    assert not game.drew and len(game.racks[0]) == 7 and game.box == []
    assert A.PASS in game.legal_actions()
    assert not any(A.RETURN_BASE <= a < A.CONFIRM_RETURN for a in game.legal_actions())


def test_G16_melds_have_no_owner_any_seat_extends_any_meld():
    game = _worked_example_game()
    play(game, "4C 5C 6C 7C 8C @ 3,7 down")  # P0's meld
    assert game.current == 1
    assert play(game, "AC 2C 3C @ 0,7 down") == 44  # P1 extends it
    assert game.scores == [34, 44]


def test_G17_a_view_holds_the_public_state_and_only_the_own_rack():
    from gnome_env.ginny_o.information import GinnyView

    game = GinnyGame(GinnyConfig(num_players=3), 12)
    other = (game.current + 1) % 3
    view = GinnyView.from_game(game, other)
    assert view.rack == tuple(game.racks[other])
    assert view.rack_sizes == tuple(len(r) for r in game.racks)
    assert view.box_size == len(game.box)
    assert view.legal_actions == () and view.placements == () and view.slots == ()
    names = set(GinnyView.__dataclass_fields__)
    assert not names & {"racks", "box"}


def test_G24_an_ace_at_a_crossing_counts_1_in_its_run_and_15_in_its_set():
    game = _worked_example_game()
    for text in ("4C 5C 6C 7C 8C @ 3,7 down", "AC 2C 3C @ 0,7 down"):
        play(game, text)
    # Row 3 of the table: the AC at (0,7) is read in the set A-D A-H A-S A-C (15) while it
    # counts 1 in the column run; only the row is scored: 45 x 3 (blue (0,4)) + 15.
    assert play(game, "AD AH AS @ 0,4 across") == 45 * 3 + 15


def test_G25_the_main_line_and_every_cross_line_are_scored_once_each():
    game = _worked_example_game()
    for text in ("4C 5C 6C 7C 8C @ 3,7 down", "AC 2C 3C @ 0,7 down", "AD AH AS @ 0,4 across"):
        play(game, text)
    # Row 4 of the table: 9C 9H 9D on row 8. Main line, the set: 9 + 9 x 2 (yellow (8,8))
    # + 9 = 36. Cross line through the 9C only, column 7 AC..9C (a run): new 9, old
    # 1+2+3+4+5+6+7+8 = 36, so 45. The 9H and 9D have no cross lines. Nothing else counts.
    main = 9 + 9 * 2 + 9
    cross = 9 + sum(range(1, 9))
    assert play(game, "9C 9H 9D @ 8,7 across") == main + cross == 81


def test_G26_a_premium_counts_only_for_the_placement_that_covers_it():
    game = _worked_example_game()
    assert play(game, "4C 5C 6C 7C 8C @ 3,7 down") == 34  # (3,7) yellow: 4 x 2
    # Extending the column: the 4C on (3,7) now counts 4, not 8 (row 2 of the table).
    assert play(game, "AC 2C 3C @ 0,7 down") == (1 * 2 + 2 + 3) * 2 + (4 + 5 + 6 + 7 + 8)
