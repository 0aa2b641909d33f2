"""R18-R20 layout scoring through the public helper, and R2 notation parsing."""

import numpy as np
import pytest

from gnome_env.gnoming import score_layout
from gnome_env.gnoming.cards import HAZARD, MULLIGAN, parse_card


def cards(text: str) -> list[str]:
    return text.replace("/", " ").split()


# Every worked example of RULES.md (layout, score).
WORKED_EXAMPLES = [
    ("6 6 6 / 1 2 3 / 4 5 7", 16),
    ("6 6 6 / 6 2 3 / 6 5 7", 5),
    ("6 6 M / 1 2 3 / 4 5 7", 16),
    ("5 5 M / 1 2 7 / 3 4 7", -2),
    ("M M 8 / 1 2 3 / 4 5 6", 13),
    ("M M M / 1 2 3 / 4 5 6", 21),
    ("M 1 2 / 3 M 4 / 5 6 7", 28),
    ("-2 -2 -2 / 1 2 3 / 4 5 7", 16),
    ("H 2 3 / 9 9 9 / 1 5 7", 19),
]


@pytest.mark.parametrize(("layout", "expected"), WORKED_EXAMPLES)
def test_r18_r20_worked_examples(layout, expected):
    assert score_layout(cards(layout)) == expected


def test_r20_crossing_example_from_r20_text():
    # R20: -5 (row) -7 (column 2,5,8) +1+2+3+4 = -2
    assert score_layout(["5", "5", "M", 1, 2, 7, 3, 4, 7]) == -2


@pytest.mark.parametrize(
    ("layout", "expected"),
    [
        ("M M M / M M M / M M M", 0),  # no line has a value; mulligans score 0
        ("4 4 4 / 4 4 4 / 4 4 4", -24),  # six matching lines of 4s, nothing else
        ("7 -1 7 / 7 7 7 / 7 H 7", -21 - 1 + 10),  # middle row, outer columns of 7s
        ("3 3 5 / 3 3 5 / 5 5 H", 3 + 3 + 5 + 3 + 3 + 5 + 5 + 5 + 10),  # nothing matches
        ("2 2 2 / -3 -3 -3 / 1 1 1", -2 - 9 - 1),  # negatives never form a line
    ],
)
def test_r18_r20_more_hand_worked_layouts(layout, expected):
    assert score_layout(cards(layout)) == expected


def test_r18_column_matches_and_rows_do_not():
    # Column 1 is 4,4,4 -> -4; other cards 1+2+3+5+6+7 = 24.
    assert score_layout(cards("1 4 2 / 3 4 5 / 6 4 7")) == 20


def test_r18_line_with_hazard_or_negative_does_not_match():
    assert score_layout(cards("H 9 9 / 1 2 3 / 4 5 6")) == 10 + 18 + 21
    assert score_layout(cards("-1 9 9 / 1 2 3 / 4 5 6")) == -1 + 18 + 21


def test_r18_mixed_values_do_not_match_even_with_mulligan():
    assert score_layout(cards("9 M 8 / 1 2 3 / 4 5 6")) == 17 + 21


def test_r19_whole_layout_of_one_value_scores_every_line():
    # 3 rows and 3 columns of 7s: -42, no card scores beyond its lines.
    assert score_layout(["7"] * 9) == -42


def test_r19_mulligan_and_hazard_points():
    assert score_layout(cards("M H M / -4 -4 -4 / H M H")) == 30 - 12


def test_r2_accepts_ints_numpy_ints_and_tokens():
    assert score_layout([np.int64(6), 6, "6", 1, 2, 3, 4, 5, 7]) == 16
    assert parse_card(" m ") == MULLIGAN
    assert parse_card("H") == HAZARD
    assert parse_card("-3") == -3


@pytest.mark.parametrize(
    "bad",
    [
        ["1"] * 8,
        ["1"] * 10,
        ["X"] + ["1"] * 8,
        [0] + ["1"] * 8,
        ["0"] + ["1"] * 8,
        ["7.5"] + ["1"] * 8,
        [True] + ["1"] * 8,
        [None] + ["1"] * 8,
        [150] + ["1"] * 8,
        "123456789",
    ],
)
def test_r2_bad_layout_raises_value_error(bad):
    with pytest.raises(ValueError):
        score_layout(bad)


def test_r2_error_names_the_problem():
    with pytest.raises(ValueError, match="exactly 9 cards"):
        score_layout(["1"] * 8)
    with pytest.raises(ValueError, match="value 0"):
        score_layout([0] + ["1"] * 8)
    with pytest.raises(ValueError, match="unknown card 'X'"):
        score_layout(["X"] + ["1"] * 8)
