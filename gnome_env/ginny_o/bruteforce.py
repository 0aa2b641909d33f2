"""Brute-force reference enumerator of every legal Ginny-O placement, with its score.

This module is the *reference* that tests use to check the fast move generator: the two
must agree exactly. It was written from the rules text ``RULES-ginny-o.md`` alone (G6-G11,
G18-G28), without looking at the fast generator, and it imports nothing from ``gnome_env``.
It is deliberately simple and slow; correctness and readability matter, speed does not.

How it works (brute force):

1. For every row and every column, and every number of tiles k = 1..max_tiles, take every
   set of k empty cells such that no other empty cell lies between the first and the last
   of them (G18). k = 1 cells come from both a row and a column; cell sets are deduplicated.
2. Drop the cell sets that break a rule which depends on positions only: the first meld
   (G20), connected-or-new-region (G21, G22) and regions never merge (G23).
3. For each remaining cell set, try every ordered choice of distinct rack tiles for those
   cells and every declaration (0..51) of each joker among them.
4. Build the resulting board and scan the *whole* board for lines (maximal runs of >= 2
   orthogonally adjacent occupied cells, G8); every line must be a set (G9) or a run (G10),
   reading jokers as their declared cards (G11). This whole-board check is the final judge.
   Before it, the lines through the new tiles alone are checked as a cheap pre-filter (they
   are a subset of the whole-board lines, so the pre-filter never changes the answer).
5. Score the legal boards with G24-G28 and deduplicate by placement key.

Conventions:

- card kind = 13*suit + rank, suits C=0 D=1 H=2 S=3, ranks A=0, 2=1, ..., T=9, J=10, Q=11,
  K=12; joker tile kind = 52 (``JOKER``);
- cell = 15*row + col, row 0 at the top;
- board: ``cards`` (225 ints, -1 empty, else the card the tile reads as, the declared card
  for a joker), ``jokers`` (225 bools, True where the tile is a joker), ``regions`` (225
  ints, -1 empty, 0 = region founded at the centre, 1..8 = region founded on the red start
  square 1..8 in reading order, see ``RED_START_CELLS``);
- a placement key is ``tuple(sorted((cell, tile, card) for each new tile))``, where tile is
  the rack kind used (52 for a joker) and card the card it reads as.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache

SIZE = 15
NCELLS = SIZE * SIZE
JOKER = 52
CENTRE = 7 * SIZE + 7

#: The board of rule G6, one string per row: '*' centre, 'R' red, 'B' blue, 'y' yellow,
#: 'g' green, '.' plain.  ``LAYOUT[row][col]`` is the square at (row, col).
LAYOUT = [
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
]

# The coordinate lists printed under the G6 table, typed in separately as a cross-check.
# fmt: off
_G6_LISTS = {
    "R": [(1, 7), (3, 3), (3, 11), (7, 1), (7, 13), (11, 3), (11, 11), (13, 7)],
    "B": [(0, 4), (0, 10), (4, 0), (4, 14), (10, 0), (10, 14), (14, 4), (14, 10)],
    "g": [(0, 0), (0, 14), (5, 5), (5, 9), (9, 5), (9, 9), (14, 0), (14, 14)],
    "y": [
        (0, 7), (1, 5), (1, 9), (2, 2), (2, 12), (3, 7), (5, 1), (5, 13), (6, 6), (6, 8),
        (7, 0), (7, 3), (7, 11), (7, 14), (8, 6), (8, 8), (9, 1), (9, 13), (11, 7),
        (12, 2), (12, 12), (13, 5), (13, 9), (14, 7),
    ],
    "*": [(7, 7)],
}
# fmt: on


def _check_layout() -> None:
    """Import-time assertions: shape, counts, the G6 lists and the square's 8 symmetries."""
    assert len(LAYOUT) == SIZE and all(len(row) == SIZE for row in LAYOUT), "layout shape"
    assert set("".join(LAYOUT)) <= set("*RBgy."), "layout symbols"
    counts = {s: sum(row.count(s) for row in LAYOUT) for s in "*RBgy"}
    assert counts == {"*": 1, "R": 8, "B": 8, "g": 8, "y": 24}, counts
    for symbol, cells in _G6_LISTS.items():
        found = sorted((r, c) for r in range(SIZE) for c in range(SIZE) if LAYOUT[r][c] == symbol)
        assert found == sorted(cells), (symbol, found)
    assert LAYOUT[7][7] == "*"
    last = SIZE - 1
    symmetries = [
        lambda r, c: (r, c),
        lambda r, c: (c, last - r),  # rotate 90
        lambda r, c: (last - r, last - c),  # rotate 180
        lambda r, c: (last - c, r),  # rotate 270
        lambda r, c: (r, last - c),  # mirror left-right
        lambda r, c: (last - r, c),  # mirror top-bottom
        lambda r, c: (c, r),  # main diagonal
        lambda r, c: (last - c, last - r),  # anti-diagonal
    ]
    for f in symmetries:
        for r in range(SIZE):
            for c in range(SIZE):
                r2, c2 = f(r, c)
                assert LAYOUT[r2][c2] == LAYOUT[r][c], ("layout symmetry", r, c)


_check_layout()

#: Per cell: the tile multiplier (yellow 2, green 3, else 1) and the meld multiplier
#: (red 2, blue 3, else 1; the centre gives nothing), G26/G27.
TILE_MULT = [{"y": 2, "g": 3}.get(LAYOUT[c // SIZE][c % SIZE], 1) for c in range(NCELLS)]
MELD_MULT = [{"R": 2, "B": 3}.get(LAYOUT[c // SIZE][c % SIZE], 1) for c in range(NCELLS)]

#: The 8 red start squares in reading order; region id i (1..8) was founded on the i-th.
RED_START_CELLS = tuple(
    sorted(r * SIZE + c for r in range(SIZE) for c in range(SIZE) if LAYOUT[r][c] == "R")
)
assert [(c // SIZE, c % SIZE) for c in RED_START_CELLS] == _G6_LISTS["R"]

#: The 30 board lines of cells: 15 rows (left to right), then 15 columns (top to bottom).
ROWS = [tuple(r * SIZE + c for c in range(SIZE)) for r in range(SIZE)]
COLS = [tuple(r * SIZE + c for r in range(SIZE)) for c in range(SIZE)]


def neighbours(cell: int) -> list[int]:
    """The orthogonal neighbours of ``cell`` on the board."""
    r, c = divmod(cell, SIZE)
    out = []
    if r > 0:
        out.append(cell - SIZE)
    if r < SIZE - 1:
        out.append(cell + SIZE)
    if c > 0:
        out.append(cell - 1)
    if c < SIZE - 1:
        out.append(cell + 1)
    return out


# ----------------------------------------------------------------------------------------
# Melds (G9, G10, G11) and tile values (G24)
# ----------------------------------------------------------------------------------------


def _fits_position(card: int, position: int) -> bool:
    """G10 rank positions: ace low = 1, 2..K = 2..13, ace high = 14."""
    rank = card % 13
    if rank == 0:
        return position in (1, 14)
    return position == rank + 1


def _ascending_run(line_cards: tuple[int, ...]) -> bool:
    """One suit, consecutive positions within 1..14, ascending in the given order."""
    n = len(line_cards)
    if n < 3 or len({card // 13 for card in line_cards}) != 1:
        return False
    for start in range(1, 14 - n + 2):  # the last position start + n - 1 must be <= 14
        if all(_fits_position(card, start + i) for i, card in enumerate(line_cards)):
            return True
    return False


def _is_set(line_cards: tuple[int, ...]) -> bool:
    """G9: 3 or 4 tiles, one rank, all suits different (any order)."""
    return (
        len(line_cards) in (3, 4)
        and len({card % 13 for card in line_cards}) == 1
        and len({card // 13 for card in line_cards}) == len(line_cards)
    )


@cache
def meld_type(line_cards: tuple[int, ...], descending_runs: bool = False) -> str | None:
    """``"set"``, ``"run"`` or None for a line's cards in reading order (jokers given as
    their declared cards, G11)."""
    if _is_set(line_cards):
        return "set"
    if _ascending_run(line_cards):
        return "run"
    if descending_runs and _ascending_run(tuple(reversed(line_cards))):
        return "run"
    return None


def tile_value(card: int, is_joker: bool, kind: str) -> int:
    """G24: ace 1 in a run, 15 in a set; 2-10 face value; J, Q, K 10; a joker 0."""
    if is_joker:
        return 0
    rank = card % 13
    if rank == 0:
        return 1 if kind == "run" else 15
    if rank <= 9:
        return rank + 1
    return 10


# ----------------------------------------------------------------------------------------
# Board helpers
# ----------------------------------------------------------------------------------------


def board_lines(occupied: Sequence[bool]) -> list[tuple[int, ...]]:
    """G8: every maximal run of >= 2 orthogonally adjacent occupied cells, scanning the
    whole board; each as its cells in reading order (rows left to right, then columns top
    to bottom)."""
    lines = []
    for cells in ROWS + COLS:
        run: list[int] = []
        for cell in (*cells, None):  # None is a sentinel that closes the last run
            if cell is not None and occupied[cell]:
                run.append(cell)
            else:
                if len(run) >= 2:
                    lines.append(tuple(run))
                run = []
    return lines


def _candidate_cell_sets(board: list[int], k: int) -> list[tuple[int, ...]]:
    """G18 shape: every set of k empty cells in one row or one column such that every cell
    between the first and the last of them is occupied or one of them. Sorted, no
    duplicates (k = 1 cells are found from a row and from a column)."""
    found = set()
    for cells in ROWS + COLS:
        empty = [i for i, cell in enumerate(cells) if board[cell] == -1]
        for chosen in itertools.combinations(empty, k):
            chosen_set = set(chosen)
            between = range(chosen[0], chosen[-1] + 1)
            if all(i in chosen_set or board[cells[i]] != -1 for i in between):
                found.add(tuple(sorted(cells[i] for i in chosen)))
    return sorted(found)


def _position_ok(cells: tuple[int, ...], board: list[int], regions: list[int]) -> bool:
    """The rules that depend only on where the new tiles go: G20, G21/G22, G23."""
    k = len(cells)
    if all(card == -1 for card in board):
        # G20: the first meld covers the centre and has at least 3 tiles.
        return CENTRE in cells and k >= 3
    touched = [n for cell in cells for n in neighbours(cell) if board[n] != -1]
    if not touched:
        # G22: a new region needs a free red start square (not the centre) and >= 3 tiles.
        free_starts = [s for s in RED_START_CELLS if board[s] == -1]
        return k >= 3 and any(s in cells for s in free_starts)
    # G21: connected. G23: the new tiles may not touch tiles of two or more regions.
    return len({regions[n] for n in touched}) == 1


def _validate_board(cards, jokers, regions) -> tuple[list[int], list[bool], list[int]]:
    board = [int(x) for x in cards]
    is_joker = [bool(x) for x in jokers]
    region = [int(x) for x in regions]
    if not (len(board) == len(is_joker) == len(region) == NCELLS):
        raise ValueError("cards, jokers and regions must each have 225 entries")
    for cell in range(NCELLS):
        if not -1 <= board[cell] <= 51:
            raise ValueError(f"cell {cell}: card {board[cell]} is not -1..51")
        if board[cell] == -1 and (is_joker[cell] or region[cell] != -1):
            raise ValueError(f"cell {cell} is empty but has a joker flag or a region")
        if board[cell] != -1 and not 0 <= region[cell] <= 8:
            raise ValueError(f"cell {cell} is occupied but its region is {region[cell]}")
    return board, is_joker, region


# ----------------------------------------------------------------------------------------
# Scoring (G24-G28)
# ----------------------------------------------------------------------------------------


def _score(
    new_board: list[int],
    new_joker: list[bool],
    new_cells: set[int],
    lines: list[tuple[int, ...]],
    descending_runs: bool,
    rescore_existing: bool,
) -> int:
    total = 0
    for line in lines:
        if not any(cell in new_cells for cell in line):
            continue  # G25: only lines that contain a new tile score
        kind = meld_type(tuple(new_board[cell] for cell in line), descending_runs)
        assert kind is not None
        new = old = 0
        mult = 1
        for cell in line:
            value = tile_value(new_board[cell], new_joker[cell], kind)
            if cell in new_cells:
                new += value * TILE_MULT[cell]
                mult *= MELD_MULT[cell]
            else:
                old += value
        total += new * mult + (old if rescore_existing else 0)
    return total


# ----------------------------------------------------------------------------------------
# The enumerator
# ----------------------------------------------------------------------------------------


def brute_force_placements(
    cards: Sequence[int],
    jokers: Sequence[bool],
    regions: Sequence[int],
    rack: Sequence[int],
    *,
    descending_runs: bool = False,
    rescore_existing: bool = True,
    max_tiles: int | None = None,
) -> dict[tuple[tuple[int, int, int], ...], int]:
    """Every legal placement (G18-G23) from ``rack`` on the given board, with its score
    (G24-G28).

    Returns ``{key: score}`` with ``key = tuple(sorted((cell, tile, card), ...))`` over the
    new tiles: ``tile`` is the rack kind used (52 for a joker) and ``card`` what it reads as.
    Identical rack tiles give one placement. ``max_tiles`` (default ``len(rack)``) caps the
    number of tiles a placement uses.
    """
    board, is_joker, region = _validate_board(cards, jokers, regions)
    rack = [int(t) for t in rack]
    if len(rack) > 8 or any(not 0 <= t <= JOKER for t in rack):
        raise ValueError(f"bad rack {rack}")
    kmax = len(rack) if max_tiles is None else min(int(max_tiles), len(rack))

    result: dict[tuple[tuple[int, int, int], ...], int] = {}
    for k in range(1, kmax + 1):
        # Every ordered choice of k distinct rack slots, as kinds (identical tiles collapse).
        tile_orders = sorted(set(itertools.permutations(rack, k)))
        for cells in _candidate_cell_sets(board, k):
            if not _position_ok(cells, board, region):
                continue
            new_cells = set(cells)
            occupied = [board[c] != -1 or c in new_cells for c in range(NCELLS)]
            lines = board_lines(occupied)  # the whole board after this placement
            lines_through_new = [ln for ln in lines if any(c in new_cells for c in ln)]
            for tiles in tile_orders:
                declarations = [range(52) if t == JOKER else (t,) for t in tiles]
                for read_as in itertools.product(*declarations):
                    new_board = list(board)
                    new_joker = list(is_joker)
                    for cell, tile, card in zip(cells, tiles, read_as, strict=True):
                        new_board[cell] = card
                        new_joker[cell] = tile == JOKER
                    # Cheap pre-filter: the lines through the new tiles (G19).
                    if any(
                        meld_type(tuple(new_board[c] for c in ln), descending_runs) is None
                        for ln in lines_through_new
                    ):
                        continue
                    # Final judge: every line on the whole board is a meld (G8).
                    if any(
                        meld_type(tuple(new_board[c] for c in ln), descending_runs) is None
                        for ln in lines
                    ):
                        continue
                    key = tuple(sorted(zip(cells, tiles, read_as, strict=True)))
                    score = _score(
                        new_board,
                        new_joker,
                        new_cells,
                        lines,
                        descending_runs,
                        rescore_existing,
                    )
                    # The same key can only come from the same board, hence the same score.
                    if result.setdefault(key, score) != score:
                        raise AssertionError(f"two scores for placement {key}")
    return result


__all__ = [
    "CENTRE",
    "JOKER",
    "LAYOUT",
    "MELD_MULT",
    "RED_START_CELLS",
    "TILE_MULT",
    "board_lines",
    "brute_force_placements",
    "meld_type",
    "neighbours",
    "tile_value",
]
