"""Ginny-O in words a newcomer reads: the premium squares (G6, G7, G26), the lines a placement
scored with their arithmetic (G24-G28), why the game ended (G29), the rack penalties (G30)
and who won (G31).

:func:`scored_lines` recomputes a placement's score from first principles, line by line: it
puts the new tiles on a copy of the board as it was before the placement and, for every line
through a new tile (G25), lists each tile's value in that line (G24), the tile multiplier of
the square under a new tile (yellow 2, green 3) and its meld multiplier (red 2, blue 3), and
adds them up as G27 says: ``new x mult + old``. The record (:mod:`gnome_env.ginny_o.records`)
keeps these lines for every placement and the replay viewer
(:mod:`gnome_env.ginny_o.viewer`) shows them; the tests hold their sum equal to the score the
engine gave. Everything here reads the board and the placed tiles, which are public (G17).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gnome_env.ginny_o.board import (
    LAYOUT,
    MELD_MULT,
    NEIGHBOURS,
    RUN,
    SET,
    SIZE,
    START_SQUARES,
    TILE_MULT,
    Board,
    meld_type,
    row_col,
)
from gnome_env.ginny_o.cards import JOKER, format_kind, format_tile, penalty_value

#: G29: the rule of each end reason of :data:`gnome_env.ginny_o.engine.END_REASONS`.
END_RULES = {"passes": "G29a", "dead": "G29b", "stall": "G29c", "turn_cap": "G29d"}
#: G29: each end reason in words.
END_WORDS = {
    "passes": "the box is empty and every player passed in turn (G29a)",
    "dead": "no legal placement was left for anybody (G29b)",
    "stall": "no tile was placed for stall_rounds rounds of turns (G29c)",
    "turn_cap": "the turn cap max_turns was reached (G29d, a truncation scored like any end)",
}
#: G6/G7/G26: the premium squares as the layout writes them, what each does, and its colour.
PREMIUMS = (
    ("R", "red", "double meld: the new tiles of every line through it count x2 (G27); "
     "also a start square for a new region (G22)"),
    ("B", "blue", "triple meld: the new tiles of every line through it count x3 (G27)"),
    ("y", "yellow", "double tile: the tile on it counts x2 in every line through it (G27)"),
    ("g", "green", "triple tile: the tile on it counts x3 in every line through it (G27)"),
    ("*", "centre", "the first meld covers it (G20); it gives no bonus (G7)"),
)  # fmt: skip
PREMIUM_NOTE = (
    "A premium counts only for the placement that first covers it (G26): a tile already on "
    "a premium square scores its plain value in later lines."
)


def square_letter(c: int) -> str:
    """G6: the layout letter of cell ``c`` (``.`` plain, ``y g R B``, ``*`` the centre)."""
    r, col = row_col(c)
    return LAYOUT[r][col]


def cell_words(c: int) -> str:
    """``(7,6)``: a cell as ``(row,col)``, 0-based (G3)."""
    r, col = row_col(c)
    return f"({r},{col})"


@dataclass(frozen=True)
class LineTerm:
    """One tile of a scored line: its value in the line (G24) and, for a new tile, the tile
    and meld multipliers of the square under it (G26, G27; 1 for a tile already there)."""

    cell: int
    tile: int
    """The tile's kind (52 for a joker)."""
    card: int
    """The card it reads as (a joker: its declaration)."""
    value: int
    new: bool
    tile_mult: int
    meld_mult: int

    @property
    def text(self) -> str:
        """``7H`` or ``*=QS``."""
        return format_tile(self.tile, self.card)


@dataclass(frozen=True)
class LineScore:
    """One line scored by a placement (G25) and its G27 arithmetic:
    ``score = new * mult + old`` (``old`` is 0 with ``rescore_existing=false``)."""

    cells: tuple[int, ...]
    horizontal: bool
    meld: str
    """``set`` or ``run`` (G9, G10)."""
    terms: tuple[LineTerm, ...]
    new: int
    mult: int
    old: int
    score: int
    rescore_existing: bool

    def where(self) -> str:
        """``row 0, columns 4-7`` or ``column 7, rows 0-7``."""
        (r0, c0), (r1, c1) = row_col(self.cells[0]), row_col(self.cells[-1])
        if self.horizontal:
            return f"row {r0}, columns {c0}-{c1}"
        return f"column {c0}, rows {r0}-{r1}"

    def reads(self) -> str:
        """The line in reading order: ``AD AH AS AC``."""
        return " ".join(t.text for t in self.terms)

    def arithmetic(self) -> str:
        """G27 written out: ``(15x3 + 15 + 15) x 3 + 15 = 150``; a new tile on a yellow or
        green square is ``value x tile multiplier``, the meld multiplier (red, blue squares
        under new tiles) multiplies the new part only, then the old tiles' values are added."""
        new = [f"{t.value}x{t.tile_mult}" if t.tile_mult > 1 else str(t.value)
               for t in self.terms if t.new]  # fmt: skip
        old = [str(t.value) for t in self.terms if not t.new]
        grouped = len(new) > 1 and (self.mult > 1 or (old and self.rescore_existing))
        text = f"({' + '.join(new)})" if grouped else " + ".join(new)
        if self.mult > 1:
            text += f" x {self.mult}"
        if old and self.rescore_existing:
            text += " + " + (f"({' + '.join(old)})" if len(old) > 1 else old[0])
        text += f" = {self.score}"
        if old and not self.rescore_existing:
            text += " (old tiles not counted: rescore_existing=false)"
        return text


def _line_score(
    after: Board, line: list[int], tiles: dict[int, int], meld: int, rescore: bool
) -> LineScore:
    """G24-G27 for one line of the board ``after`` the placement of ``tiles`` (cell -> kind)."""
    terms = []
    new = old = 0
    mult = 1
    for x in line:
        value = after.tile_value(x, meld)
        is_new = x in tiles
        tile = tiles.get(x, JOKER if after.joker[x] else after.card[x])
        tm, mm = (TILE_MULT[x], MELD_MULT[x]) if is_new else (1, 1)
        terms.append(LineTerm(x, tile, after.card[x], value, is_new, tm, mm))
        if is_new:
            new += value * tm
            mult *= mm
        else:
            old += value
    score = new * mult + (old if rescore else 0)
    horizontal = len(line) > 1 and line[1] == line[0] + 1
    return LineScore(
        tuple(line), horizontal, "set" if meld == SET else "run", tuple(terms), new, mult, old,
        score, rescore,
    )  # fmt: skip


def scored_lines(
    board: Board,
    tiles: Sequence[tuple[int, int, int]],
    *,
    descending_runs: bool = False,
    rescore_existing: bool = True,
) -> list[LineScore]:
    """G25-G27: every line through a new tile of the placement ``tiles`` (``(cell, tile,
    card)`` triples) on ``board`` as it was *before* the placement, main line first (for one
    tile: its row, then its column), then the cross lines in reading order. ``ValueError`` if
    a line through a new tile is not a meld (not a legal placement)."""
    after = board.copy()
    kinds = {c: t for c, t, _ in tiles}
    for c, t, card in sorted(tiles):
        after.put(c, t == JOKER, card, 0)
    cells = sorted(kinds)
    horizontal = len(cells) < 2 or cells[1] // SIZE == cells[0] // SIZE
    lines: list[list[int]] = []
    for axis in (horizontal, not horizontal):
        for c in cells:
            line = after.line_cells(c, axis)
            if len(line) >= 2 and line not in lines:
                lines.append(line)
            if axis == horizontal and len(cells) > 1:
                break  # the main line holds every new tile
    out = []
    for line in lines:
        meld = meld_type([after.card[x] for x in line], descending_runs)
        if meld not in (SET, RUN):
            raise ValueError(f"the line {cell_words(line[0])}-{cell_words(line[-1])} is not a meld")
        out.append(_line_score(after, line, kinds, meld, rescore_existing))
    return out


def founds_region(board: Board, tiles: Sequence[tuple[int, int, int]]) -> bool:
    """G20/G22: the placement touches no tile on ``board`` (before it): the first meld, or a
    new region on a start square."""
    return not any(board.card[x] >= 0 for c, _, _ in tiles for x in NEIGHBOURS[c])


def premiums_covered(tiles: Sequence[tuple[int, int, int]]) -> list[tuple[int, str]]:
    """``(cell, letter)`` of the premium squares (and the centre) the new tiles cover."""
    return [(c, square_letter(c)) for c, _, _ in sorted(tiles) if square_letter(c) != "."]


def region_words(region: int, founded: bool, first: bool) -> str:
    """Where a placement went: the first meld (G20), a new region (G22) or the region it
    joined (G21, G23)."""
    if first:
        return "the first meld, covering the centre (7,7) (G20)"
    if region == 0:
        return "joins the centre's region (G21, G23)"
    start = cell_words(START_SQUARES[region - 1])
    if founded:
        return f"founds a new region on the start square {start} (G22)"
    return f"joins the region of {start} (G21, G23)"


def penalty_words(rack: Sequence[int]) -> str:
    """G30 written out: ``AH 15 + * 0 + KD 10 + 3S 3 = 28`` (``0`` for an empty rack)."""
    if not rack:
        return "empty rack: 0"
    terms = [f"{format_kind(t)} {penalty_value(t)}" for t in rack]
    return f"{' + '.join(terms)} = {sum(penalty_value(t) for t in rack)}"


def winner_words(final: Sequence[int], penalties: Sequence[int], winners: Sequence[int]) -> str:
    """G31: why the winners won: the highest final score, a tie broken by the smaller rack
    penalty, or a tie that remains (a shared win)."""
    best = max(final)
    tied = [s for s in range(len(final)) if final[s] == best]
    if len(tied) == 1:
        return f"the highest final score, {best} (G31)"
    if len(winners) == 1:
        return (
            f"a tie on {best} points, broken by the smaller rack penalty "
            f"({penalties[winners[0]]}) (G31)"
        )
    return f"a tie on {best} points and on the rack penalty: a shared win (G31)"


__all__ = [
    "END_RULES",
    "END_WORDS",
    "PREMIUMS",
    "PREMIUM_NOTE",
    "LineScore",
    "LineTerm",
    "cell_words",
    "founds_region",
    "penalty_words",
    "premiums_covered",
    "region_words",
    "scored_lines",
    "square_letter",
    "winner_words",
]
