"""The Ginny-O board: layout (G6-G7), lines (G8), melds (G9-G11) and line scores (G24-G27).

Cells are ints ``15 * row + col`` (G3). :class:`Board` keeps three flat lists of 225 entries:
``card`` (-1 empty, else the card 0..51 the tile reads as; a joker reads as its declared
card), ``joker`` (the tile is a joker) and ``region`` (-1 empty, else the region id: 0 for
the centre, 1..8 for the red start squares in reading order, G23).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from gnome_env.ginny_o.cards import MAX_RUN, kind, rank_of, run_value, set_value, suit_of

SIZE = 15
NUM_CELLS = SIZE * SIZE
CENTRE = 7 * SIZE + 7

#: G6: the board, one string per row (``*`` centre, R red, B blue, y yellow, g green).
LAYOUT = (
    "g...B..y..B...g",
    ".....y.R.y.....",
    "..y.........y..",
    "...R...y...R...",
    "B.............B",
    ".y...g...g...y.",
    "......y.y......",
    "yR.y...*...y.Ry",
    "......y.y......",
    ".y...g...g...y.",
    "B.............B",
    "...R...y...R...",
    "..y.........y..",
    ".....y.R.y.....",
    "g...B..y..B...g",
)

PLAIN, YELLOW, GREEN, RED, BLUE, START = 0, 1, 2, 3, 4, 5
_CODES = {".": PLAIN, "y": YELLOW, "g": GREEN, "R": RED, "B": BLUE, "*": START}
#: Square kind of each cell (PLAIN, YELLOW, GREEN, RED, BLUE or START for the centre).
SQUARE = [_CODES[LAYOUT[c // SIZE][c % SIZE]] for c in range(NUM_CELLS)]
#: G26/G27: tile multiplier of each cell (yellow 2, green 3) and meld multiplier (red 2, blue 3).
TILE_MULT = [{YELLOW: 2, GREEN: 3}.get(s, 1) for s in SQUARE]
MELD_MULT = [{RED: 2, BLUE: 3}.get(s, 1) for s in SQUARE]
#: G7/G22: the red start squares in reading order; region ``i + 1`` is founded on
#: ``START_SQUARES[i]``.
START_SQUARES = tuple(c for c in range(NUM_CELLS) if SQUARE[c] == RED)
NUM_REGIONS = 1 + len(START_SQUARES)
REGION_OF_START = {c: i + 1 for i, c in enumerate(START_SQUARES)}

assert len(START_SQUARES) == 8 and SQUARE.count(BLUE) == 8
assert SQUARE.count(GREEN) == 8 and SQUARE.count(YELLOW) == 24 and SQUARE[CENTRE] == START


def cell(row: int, col: int) -> int:
    """G3: the cell id of ``(row, col)``."""
    return SIZE * row + col


def row_col(c: int) -> tuple[int, int]:
    """G3: ``(row, col)`` of cell ``c``."""
    return divmod(c, SIZE)


def neighbours(c: int) -> Iterator[int]:
    """The orthogonal neighbours of cell ``c`` on the board."""
    r, col = divmod(c, SIZE)
    if r > 0:
        yield c - SIZE
    if r < SIZE - 1:
        yield c + SIZE
    if col > 0:
        yield c - 1
    if col < SIZE - 1:
        yield c + 1


NEIGHBOURS = [tuple(neighbours(c)) for c in range(NUM_CELLS)]


# ---------------------------------------------------------------------------- melds
def run_positions(rank: int) -> tuple[int, ...]:
    """G10: rank positions a card may take in a run (ace 1 or 14, 2..K = 2..13)."""
    return (1, 14) if rank == 0 else (rank + 1,)


def rank_at(position: int) -> int:
    """G10: the rank at run position 1..14 (1 and 14 are the ace)."""
    return 0 if position in (1, 14) else position - 1


SET, RUN = 1, 2


def meld_type(cards: Sequence[int], descending: bool = False) -> int:
    """G9/G10: :data:`SET`, :data:`RUN` or 0 (not a meld) for a line of cards in reading order.

    A set has 3 or 4 cards of one rank with all suits different; a run has 3 to 14 cards of
    one suit on consecutive positions in 1..14, ascending in reading order (or, with
    ``descending``, also descending). Jokers are passed as their declared cards (G11).
    """
    n = len(cards)
    if n < 3:
        return 0
    first = cards[0]
    if n <= 4:
        r = rank_of(first)
        if all(rank_of(c) == r for c in cards) and len({suit_of(c) for c in cards}) == n:
            return SET
    if n > MAX_RUN:
        return 0
    s = suit_of(first)
    if any(suit_of(c) != s for c in cards):
        return 0
    for step in (1, -1) if descending else (1,):
        for start in run_positions(rank_of(first)):
            end = start + step * (n - 1)
            if not 1 <= end <= 14:
                continue
            if all(rank_of(cards[i]) == rank_at(start + step * i) for i in range(1, n)):
                return RUN
    return 0


def card_value(card: int, meld: int) -> int:
    """G24: value of a (non-joker) card in a line of type ``meld`` (ace 15 in a set, 1 in a run)."""
    return set_value(card) if meld == SET else run_value(card)


def run_cards(suit: int, start: int, step: int, n: int) -> tuple[int, ...] | None:
    """The cards of the run of ``suit`` from position ``start`` in direction ``step``, or None
    if it leaves 1..14."""
    end = start + step * (n - 1)
    if not (1 <= start <= 14 and 1 <= end <= 14):
        return None
    return tuple(kind(suit, rank_at(start + step * i)) for i in range(n))


# ---------------------------------------------------------------------------- the board
class Board:
    """The tiles on the board (see the module docstring for the three lists)."""

    __slots__ = ("card", "count", "joker", "memo", "region")

    def __init__(self) -> None:
        self.card = [-1] * NUM_CELLS
        self.joker = [False] * NUM_CELLS
        self.region = [-1] * NUM_CELLS
        self.count = 0
        #: Values derived from this board state (e.g. its observation block), shared with
        #: its copies until :meth:`put` changes it; after a put it holds ``parent`` (the
        #: memo before) and ``added`` (the cells put since), so a derived value can be
        #: updated rather than rebuilt. Code that writes the lists directly must reset it
        #: (``board.memo = {}``).
        self.memo: dict = {}

    def copy(self) -> Board:
        out = Board.__new__(Board)
        out.card = self.card.copy()
        out.joker = self.joker.copy()
        out.region = self.region.copy()
        out.count = self.count
        out.memo = self.memo
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Board):
            return NotImplemented
        return (self.card, self.joker, self.region) == (other.card, other.joker, other.region)

    __hash__ = None  # type: ignore[assignment]  # mutable

    @property
    def empty(self) -> bool:
        return self.count == 0

    def free_starts(self) -> list[int]:
        """G22: the red squares still uncovered (start squares of new regions)."""
        return [c for c in START_SQUARES if self.card[c] < 0]

    def put(self, c: int, tile_is_joker: bool, card: int, region: int) -> None:
        """Put one tile on empty cell ``c`` (no rule checks: the engine checks first)."""
        if self.card[c] >= 0:
            raise ValueError(f"cell {row_col(c)} is already occupied")
        self.card[c] = card
        self.joker[c] = tile_is_joker
        self.region[c] = region
        self.count += 1
        old = self.memo
        if "added" in old and len(old) == 2:  # nothing derived since the last put
            self.memo = {"parent": old["parent"], "added": (*old["added"], c)}
        else:  # what was derived before, and the cells added since (to update it from)
            derived = {k: v for k, v in old.items() if k not in ("parent", "added")}
            self.memo = {"parent": derived, "added": (c,)}

    def tile_value(self, c: int, meld: int) -> int:
        """G24: value of the tile on ``c`` in a line of type ``meld`` (a joker is 0)."""
        return 0 if self.joker[c] else card_value(self.card[c], meld)

    def line_cells(self, c: int, horizontal: bool) -> list[int]:
        """The maximal occupied segment through occupied cell ``c`` along one axis."""
        step = 1 if horizontal else SIZE
        r, col = divmod(c, SIZE)
        lo_limit = c - (col if horizontal else r) * step
        hi_limit = c + ((SIZE - 1 - col) if horizontal else (SIZE - 1 - r)) * step
        lo = c
        while lo - step >= lo_limit and self.card[lo - step] >= 0:
            lo -= step
        hi = c
        while hi + step <= hi_limit and self.card[hi + step] >= 0:
            hi += step
        return list(range(lo, hi + step, step))

    def lines(self) -> Iterator[list[int]]:
        """G8: every line on the board (maximal runs of 2+ occupied cells), rows then columns."""
        for horizontal in (True, False):
            for i in range(SIZE):
                run: list[int] = []
                for p in range(SIZE + 1):
                    c = (SIZE * i + p if horizontal else SIZE * p + i) if p < SIZE else -1
                    if c >= 0 and self.card[c] >= 0:
                        run.append(c)
                        continue
                    if len(run) >= 2:
                        yield run
                    run = []

    def render(self) -> str:
        """Plain-text board with row and column numbers: a tile as ``7H``, a joker as ``*QS``
        (``*`` + its declared card), an empty square as its layout letter (G6)."""
        from gnome_env.ginny_o.cards import format_kind

        head = "    " + "".join(f"{c:>4}" for c in range(SIZE))
        rows = [head]
        for r in range(SIZE):
            cells = []
            for col in range(SIZE):
                c = cell(r, col)
                if self.card[c] < 0:
                    cells.append(f"{LAYOUT[r][col]:>4}")
                else:
                    text = format_kind(self.card[c])
                    cells.append(f"{('*' + text) if self.joker[c] else text:>4}")
            rows.append(f"{r:>4}" + "".join(cells))
        return "\n".join(rows)
