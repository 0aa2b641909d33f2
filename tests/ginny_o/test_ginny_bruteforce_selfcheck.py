"""Self-check of the brute-force Ginny-O placement enumerator (gnome_env/ginny_o/bruteforce.py).

Every expected set and score here was worked out by hand from RULES-ginny-o.md, including
the rows of its worked-examples table (one 2-player game, played in order). The module is
loaded by file path so that this test does not depend on the package's ``__init__``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[2] / "gnome_env" / "ginny_o" / "bruteforce.py"
_SPEC = importlib.util.spec_from_file_location("ginny_o_bruteforce_selfcheck", _PATH)
bruteforce = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(bruteforce)

JOKER = 52


def card(text: str) -> int:
    """'7H' -> kind 13*suit + rank."""
    return 13 * "CDHS".index(text[1]) + "A23456789TJQK".index(text[0])


def tile(text: str) -> tuple[int, int]:
    """'4C' -> (4C, 4C); '*=QS' -> (joker, QS): the rack kind and what it reads as."""
    if text.startswith("*="):
        return JOKER, card(text[2:])
    return card(text), card(text)


def key(*items: tuple[int, int, str]) -> tuple:
    """Placement key from (row, col, '4C' or '*=QS') items."""
    return tuple(sorted((15 * r + c, *tile(t)) for r, c, t in items))


def board(tiles):
    """(cards, jokers, regions) from (row, col, '4C' or '*=QS', region) items."""
    cards, jokers, regions = [-1] * 225, [False] * 225, [-1] * 225
    for r, c, text, region in tiles:
        kind, read_as = tile(text)
        cell = 15 * r + c
        assert cards[cell] == -1
        cards[cell], jokers[cell], regions[cell] = read_as, kind == JOKER, region
    return cards, jokers, regions


def rack(*texts: str) -> list[int]:
    return [JOKER if t == "*" else card(t) for t in texts]


def placements(tiles, rack_tiles, **options):
    return bruteforce.brute_force_placements(*board(tiles), rack_tiles, **options)


def line(cells, cards_text, region=0):
    return [(r, c, t, region) for (r, c), t in zip(cells, cards_text, strict=True)]


# ---------------------------------------------------------------------------------------
# The worked-example game, state after each legal row of the table.
# ---------------------------------------------------------------------------------------

ROW1 = [((3, 7), "4C"), ((4, 7), "5C"), ((5, 7), "6C"), ((6, 7), "7C"), ((7, 7), "8C")]
ROW2 = [((0, 7), "AC"), ((1, 7), "2C"), ((2, 7), "3C")]
ROW3 = [((0, 4), "AD"), ((0, 5), "AH"), ((0, 6), "AS")]
ROW4 = [((8, 7), "9C"), ((8, 8), "9H"), ((8, 9), "9D")]
ROW5 = [((5, 5), "6H"), ((5, 6), "6D")]
ROW6 = [((11, 9), "QD"), ((11, 10), "*=QS"), ((11, 11), "QH")]  # region 7: red (11,11)
ROW7 = [((5, 8), "6S")]
ROW8 = [((11, 12), "QC")]
GAME = [ROW1, ROW2, ROW3, ROW4, ROW5, ROW6, ROW7, ROW8]
REGION = {6: 7, 8: 7}  # table rows whose tiles are in region 7; the rest are region 0


def state_before(row: int):
    """Board tiles before table row ``row`` (1-based) is played."""
    tiles = []
    for number, played in enumerate(GAME[: row - 1], start=1):
        tiles += [(r, c, t, REGION.get(number, 0)) for (r, c), t in played]
    return tiles


def played_key(played):
    return key(*[(r, c, t) for (r, c), t in played])


def played_rack(played):
    return [tile(t)[0] for _, t in played]


@pytest.mark.parametrize(
    ("row", "score", "score_without_rescore"),
    [
        (1, 34, 34),
        (2, 44, 14),
        (3, 150, 135),
        (4, 81, 45),
        (5, 30, 24),
        (6, 40, 40),
        (7, 24, 6),
        (8, 30, 10),
    ],
)
def test_worked_examples_legal_rows_G20_G27(row, score, score_without_rescore):
    played = GAME[row - 1]
    tiles = state_before(row)
    result = placements(tiles, played_rack(played))
    assert result[played_key(played)] == score
    result = placements(tiles, played_rack(played), rescore_existing=False)
    assert result[played_key(played)] == score_without_rescore


def test_row1_first_meld_all_cover_centre_G20():
    result = placements([], rack("4C", "5C", "6C", "7C", "8C"))
    assert result
    for k in result:
        cells = [cell for cell, _, _ in k]
        assert 7 * 15 + 7 in cells and len(cells) >= 3


def test_illegal_7H_two_tile_line_G8_G19():
    # After row 5, 7H next to 7C at (6,8) makes the 2-tile line 7C 7H; 7H has no legal spot.
    assert placements(state_before(6), rack("7H")) == {}


def test_illegal_TD_JD_touches_two_regions_G23():
    tiles = state_before(7)
    result = placements(tiles, rack("TD", "JD"))
    assert key((9, 9, "TD"), (10, 9, "JD")) not in result
    # The same board with every tile in one region: the run 9D TD JD QD is then legal.
    # TD on green (9,9): 30, JD 10; old 9 + 10.
    merged = [(r, c, t, 0) for r, c, t, _ in tiles]
    assert placements(merged, rack("TD", "JD"))[key((9, 9, "TD"), (10, 9, "JD"))] == 59


def test_illegal_QS_with_joker_QS_in_set_G9_G11():
    result = placements(state_before(8), rack("QS"))
    assert all(cell != 11 * 15 + 12 for k in result for cell, _, _ in k)
    # QC there is legal (row 8): the joker stands for QS, so QS would repeat the suit.
    assert key((11, 12, "QC")) in placements(state_before(8), rack("QC"))


def test_joker_declarations_are_distinct_placements_G11():
    # Row 6's set Q♦ * Q♥ can also take the joker as Q♣ (another placement, same score).
    result = placements(state_before(6), rack("QD", "*", "QH"))
    cells = ((11, 9, "QD"), (11, 11, "QH"))
    assert result[key(*cells, (11, 10, "*=QS"))] == 40
    assert result[key(*cells, (11, 10, "*=QC"))] == 40
    assert key(*cells, (11, 10, "*=QD")) not in result


# ---------------------------------------------------------------------------------------
# The ✗ rows that need no game state, as exact sets on the empty board.
# ---------------------------------------------------------------------------------------

ROW7_CELLS = [[(7, c) for c in range(s, s + 3)] for s in (5, 6, 7)]
COL7_CELLS = [[(r, 7) for r in range(s, s + 3)] for s in (5, 6, 7)]


def first_melds(texts):
    """The 6 three-tile first melds (row 7 or column 7, covering the centre) of ``texts``
    in that reading order."""
    return {
        key(*[(r, c, t) for (r, c), t in zip(cells, texts, strict=True)])
        for cells in ROW7_CELLS + COL7_CELLS
    }


def test_first_meld_exact_set_G20():
    # Row 7 cols 5-9 and column 7 rows 5-9 are plain squares (apart from the centre).
    result = placements([], rack("4C", "5C", "6C"))
    assert result == dict.fromkeys(first_melds(["4C", "5C", "6C"]), 15)
    # The ✗ row: 2S 3S 4S at (6,6)..(6,8) does not cover the centre.
    result = placements([], rack("2S", "3S", "4S"))
    assert key((6, 6, "2S"), (6, 7, "3S"), (6, 8, "4S")) not in result
    assert result == dict.fromkeys(first_melds(["2S", "3S", "4S"]), 9)


def test_first_meld_needs_three_tiles_G20():
    assert placements([], rack("4C", "5C")) == {}
    assert placements([], rack("4C", "5C", "6C"), max_tiles=2) == {}


def test_descending_runs_variant_G10():
    # ✗ row: JS TS 9S left to right is illegal by default, legal with descending_runs.
    default = placements([], rack("JS", "TS", "9S"))
    assert default == dict.fromkeys(first_melds(["9S", "TS", "JS"]), 29)
    variant = placements([], rack("JS", "TS", "9S"), descending_runs=True)
    expected = first_melds(["9S", "TS", "JS"]) | first_melds(["JS", "TS", "9S"])
    assert variant == dict.fromkeys(expected, 29)


def test_no_run_round_the_corner_G10():
    assert placements([], rack("KH", "AH", "2H")) == {}
    assert placements([], rack("KH", "AH", "2H"), descending_runs=True) == {}


def test_ace_high_and_low_G10_G24():
    assert placements([], rack("QH", "KH", "AH")) == dict.fromkeys(
        first_melds(["QH", "KH", "AH"]), 21
    )
    result = placements([], rack("AH", "2H", "3H"), descending_runs=True)
    expected = first_melds(["AH", "2H", "3H"]) | first_melds(["3H", "2H", "AH"])
    assert result == dict.fromkeys(expected, 6)


def test_set_any_suit_order_aces_15_G9_G24():
    import itertools

    result = placements([], rack("AC", "AD", "AH"))
    expected = set()
    for order in itertools.permutations(["AC", "AD", "AH"]):
        expected |= first_melds(list(order))
    assert len(expected) == 36
    assert result == dict.fromkeys(expected, 45)


def test_max_tiles_G18():
    full = placements([], rack("4C", "5C", "6C", "7C"))
    # 4C-5C-6C (15) and 5C-6C-7C (18): 6 each; 4C..7C (22): 4 positions x 2 lines.
    assert sorted(full.values()) == [15] * 6 + [18] * 6 + [22] * 8
    capped = placements([], rack("4C", "5C", "6C", "7C"), max_tiles=3)
    assert capped == {k: s for k, s in full.items() if len(k) == 3}
    assert len(capped) == 12


# ---------------------------------------------------------------------------------------
# Hand-built positions with exact expected sets.
# ---------------------------------------------------------------------------------------

RUN_456 = line([(7, 6), (7, 7), (7, 8)], ["4C", "5C", "6C"])


def test_extend_run_single_tiles_G21_G27():
    assert placements(RUN_456, rack("3C")) == {key((7, 5, "3C")): 18}
    assert placements(RUN_456, rack("3C"), rescore_existing=False) == {key((7, 5, "3C")): 3}
    assert placements(RUN_456, rack("7C")) == {key((7, 9, "7C")): 22}


def test_extend_both_ends_over_existing_tiles_G18():
    assert placements(RUN_456, rack("3C", "7C")) == {
        key((7, 5, "3C")): 18,
        key((7, 9, "7C")): 22,
        key((7, 5, "3C"), (7, 9, "7C")): 25,
    }


def test_identical_rack_tiles_give_one_placement():
    assert placements(RUN_456, rack("3C", "3C")) == {key((7, 5, "3C")): 18}


def test_lone_joker_G11_G24():
    assert placements(RUN_456, rack("*")) == {
        key((7, 5, "*=3C")): 15,
        key((7, 9, "*=7C")): 15,
    }


def test_card_and_joker_exact_set():
    # Column 6 and 7 runs through 4C and 5C; (6,6) and (8,6) are yellow.
    assert placements(RUN_456, rack("3C", "*")) == {
        key((7, 5, "3C")): 18,
        key((7, 5, "*=3C")): 15,
        key((7, 9, "*=7C")): 15,
        key((7, 4, "*=2C"), (7, 5, "3C")): 18,
        key((7, 5, "3C"), (7, 9, "*=7C")): 18,
        key((5, 6, "*=2C"), (6, 6, "3C")): 10,  # 3C on yellow: 6, old 4C
        key((5, 7, "3C"), (6, 7, "*=4C")): 8,
        key((6, 6, "3C"), (8, 6, "*=5C")): 10,  # joker on yellow still 0
    }


def test_single_tile_scores_both_lines_G25_G26():
    # Row 7: 4C 5C 6C at cols 4-6; column 3: 3S 3D 3H at rows 4-6. 3C on yellow (7,3)
    # completes both: run (6 + 15) and set (6 + 9). 3C on red (3,3) tops the set: 3*2 + 9.
    tiles = line([(7, 4), (7, 5), (7, 6)], ["4C", "5C", "6C"]) + line(
        [(4, 3), (5, 3), (6, 3)], ["3S", "3D", "3H"]
    )
    assert placements(tiles, rack("3C")) == {key((7, 3, "3C")): 36, key((3, 3, "3C")): 15}
    assert placements(tiles, rack("3C"), rescore_existing=False) == {
        key((7, 3, "3C")): 12,
        key((3, 3, "3C")): 6,
    }


ROW1_BOARD = line([(r, 7) for r in range(3, 8)], ["4C", "5C", "6C", "7C", "8C"])


def test_new_region_on_red_square_G22():
    result = placements(ROW1_BOARD, rack("2S", "3S", "4S"))
    # (7,0) yellow, (7,1) red: (2*2 + 3 + 4) * 2.
    assert result[key((7, 0, "2S"), (7, 1, "3S"), (7, 2, "4S"))] == 22
    assert result[key((6, 1, "2S"), (7, 1, "3S"), (8, 1, "4S"))] == 18
    # Touching nothing and covering no red square: illegal.
    assert key((10, 1, "2S"), (10, 2, "3S"), (10, 3, "4S")) not in result
    # A joker on the red square: 0 points, but the meld is still doubled.
    result = placements(ROW1_BOARD, rack("2S", "*", "4S"))
    assert result[key((7, 0, "2S"), (7, 1, "*=3S"), (7, 2, "4S"))] == 16


def test_new_region_needs_three_tiles_G22():
    # ✗ row: 5H 6H on red (3,3), touching nothing.
    assert placements(ROW1_BOARD, rack("5H", "6H")) == {}
    result = placements(ROW1_BOARD, rack("5H", "6H", "7H"))
    assert result[key((3, 3, "5H"), (3, 4, "6H"), (3, 5, "7H"))] == 36
    assert placements(ROW1_BOARD, rack("5H", "6H", "7H"), max_tiles=2) == {}


def test_centre_is_not_a_start_square_on_a_nonempty_board_G22():
    tiles = line([(3, 3), (3, 4), (3, 5)], ["5H", "6H", "7H"], region=2)
    result = placements(tiles, rack("2S", "3S", "4S"))
    assert key((7, 6, "2S"), (7, 7, "3S"), (7, 8, "4S")) not in result
    assert result[key((7, 0, "2S"), (7, 1, "3S"), (7, 2, "4S"))] == 22


def test_whole_board_is_checked_G8():
    # A pre-existing 2-tile line elsewhere makes every placement illegal (whole-board check).
    tiles = RUN_456 + line([(0, 0), (0, 1)], ["KD", "KH"], region=1)
    assert placements(tiles, rack("3C")) == {}


# ---------------------------------------------------------------------------------------
# Building blocks.
# ---------------------------------------------------------------------------------------


def test_layout_G6():
    layout = bruteforce.LAYOUT
    assert len(layout) == 15 and all(len(row) == 15 for row in layout)
    flat = "".join(layout)
    assert [flat.count(s) for s in "*RBgy"] == [1, 8, 8, 8, 24]
    assert layout[7][7] == "*" and layout[0][4] == "B" and layout[11][11] == "R"
    assert layout[9][9] == "g" and layout[3][7] == "y" and layout[7][2] == "."
    for r in range(15):
        for c in range(15):
            assert layout[r][c] == layout[c][r] == layout[14 - r][c] == layout[r][14 - c]
    assert bruteforce.MELD_MULT[7 * 15 + 7] == 1 and bruteforce.TILE_MULT[7 * 15 + 7] == 1


def melds(texts, descending=False):
    return bruteforce.meld_type(tuple(card(t) for t in texts), descending)


def test_meld_type_G9_G10():
    assert melds(["5C", "5D", "5H"]) == "set"
    assert melds(["5S", "5C", "5H", "5D"]) == "set"
    assert melds(["5C", "5D", "5C"]) is None
    assert melds(["5C", "5D"]) is None
    assert melds(["AC", "2C", "3C"]) == "run"
    assert melds(["QC", "KC", "AC"]) == "run"
    assert melds(["KC", "AC", "2C"]) is None
    assert melds(["KC", "AC", "2C"], descending=True) is None
    assert melds(["3C", "2C", "AC"]) is None
    assert melds(["3C", "2C", "AC"], descending=True) == "run"
    assert melds(["AH", "KH", "QH"], descending=True) == "run"
    assert melds(["4C", "5D", "6C"]) is None
    assert melds(["4C", "6C", "7C"]) is None
    full = ["AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "TD", "JD", "QD", "KD", "AD"]
    assert melds(full) == "run"
    assert melds([*full, "2D"]) is None
    assert melds(["2D", *full[1:]]) is None


def test_tile_value_G24():
    assert bruteforce.tile_value(card("AC"), False, "run") == 1
    assert bruteforce.tile_value(card("AC"), False, "set") == 15
    assert bruteforce.tile_value(card("AC"), True, "set") == 0
    values = [bruteforce.tile_value(card(r + "H"), False, "run") for r in "23456789TJQK"]
    assert values == [*range(2, 11), 10, 10, 10]
