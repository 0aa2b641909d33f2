"""Layout scoring, R18-R20 (the first-out bonus R21 is applied by the engine)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gnome_env.gnoming.cards import HAZARD, HAZARD_POINTS, LINES, MULLIGAN, parse_layout


def line_value(a: int, b: int, c: int) -> int:
    """R18: the value v of a matching line (it scores -v), or 0 if the line does not match."""
    value = 0
    for code in (a, b, c):
        if code == MULLIGAN:
            continue
        if code < 0 or code == HAZARD:
            return 0
        if value and code != value:
            return 0
        value = code
    return value


def card_points(code: int) -> int:
    """R19: what a card scores outside a matching line (value; mulligan 0; hazard +10)."""
    return HAZARD_POINTS if code == HAZARD else code


def layout_score_codes(layout: Sequence[int]) -> int:
    """R18-R20 score of a fully revealed layout given as 9 card codes."""
    in_line = [False] * 9
    total = 0
    for a, b, c in LINES:
        value = line_value(layout[a], layout[b], layout[c])
        if value:
            total -= value
            in_line[a] = in_line[b] = in_line[c] = True
    for pos, code in enumerate(layout):
        if not (0 < code < HAZARD and in_line[pos]):  # a positive card in a line adds nothing
            total += card_points(code)
    return total


def score_layout(cards: Iterable[object]) -> int:
    """Layout score (R18-R20) of 9 cards in R2 notation, row-major; no first-out bonus.

    >>> score_layout(["5", "5", "M", 1, 2, 7, 3, 4, 7])
    -2
    """
    return layout_score_codes(parse_layout(cards))
