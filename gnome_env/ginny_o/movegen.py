"""The Ginny-O move generator: every legal placement (G18-G23) of a rack on a board, scored.

:func:`generate` lists every legal placement, with its joker declarations and its score
(G24-G28), for a multiset of tiles (a rack, or for G29b all unplayed tiles) on a
:class:`~gnome_env.ginny_o.board.Board`. ``tests/ginny_o/test_ginny_movegen.py`` checks it against
the independent brute-force enumerator :mod:`gnome_env.ginny_o.bruteforce` on random
positions (the two must agree exactly, placements and scores).

How it works (the "generator hint" of the rules' RL notes)
---------------------------------------------------------
A placement along one axis fills *every* empty cell of a segment ``[a, b]`` of one row or
column whose outer neighbours ``a - 1`` and ``b + 1`` are empty (G18): the segment is the
main line after the placement, so it is a meld of 3 or more cards (G19) and the new tiles
are exactly its empty cells. So the generator walks the segments of every line, with at
most ``max_tiles`` empty cells, and for each:

1. *cross checks*: each empty cell's perpendicular neighbours (the tiles above/below, or
   left/right) must form a meld with the new card (G19); the allowed cards and the line's
   old value are computed once per cell and call;
2. *regions*: the regions touched by the segment's tiles and the cross lines (G23), and,
   when nothing is touched, the start rules (G20 centre on an empty board, G22 a free red
   square), both with at least 3 tiles;
3. *melds*: with tiles already in the segment, the meld is fixed by them (a run's suit and
   window, or a set's rank and the free suits); an all-new segment takes the rack's own
   melds of that length (listed once per call);
4. *tiles*: each new card comes from a real tile in the rack or from a joker declared as it
   (G11), every combination once.

A single tile (k = 1) lies on two lines; it is generated once, along the row if it has a
horizontal neighbour, else along the column. Placements come in a fixed order (rows, then
columns; segment starts and ends increasing), so the generator is deterministic.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from itertools import permutations
from typing import NamedTuple

import numpy as np

from gnome_env.core.jit import COMPILED
from gnome_env.ginny_o.board import (
    CENTRE,
    MELD_MULT,
    NEIGHBOURS,
    NUM_CELLS,
    REGION_OF_START,
    RUN,
    SET,
    SIZE,
    START_SQUARES,
    TILE_MULT,
    Board,
    card_value,
    meld_type,
    rank_at,
    run_cards,
    run_positions,
)
from gnome_env.ginny_o.cards import JOKER, kind, rank_of, suit_of

#: A new tile: ``(cell, tile kind, card)``; ``tile`` is 52 for a joker, ``card`` what it reads as.
Tile = tuple[int, int, int]


class Placement(NamedTuple):
    """One legal placement: its new tiles in reading order, its score and its region."""

    tiles: tuple[Tile, ...]
    score: int
    """G28: the placement score (before any end-of-game penalty)."""
    region: int
    """G23: the region its tiles join (or found: 0 centre, 1..8 a start square)."""
    horizontal: bool
    """The main line's axis (for one tile: the axis it was generated along)."""

    @property
    def key(self) -> tuple[Tile, ...]:
        """The placement's identity: its sorted ``(cell, tile, card)`` triples."""
        return self.tiles


class _Cross(NamedTuple):
    allowed: dict[int, tuple[int, int]]  # card -> (meld type, old value of the line)
    regions: frozenset[int]


class _Generator:
    """One call's state: the board, the tile counts and the per-cell caches."""

    def __init__(
        self, board: Board, counts: list[int], max_tiles: int, descending: bool, rescore: bool
    ) -> None:
        self.board = board
        self.counts = counts
        self.max_tiles = max_tiles
        self.descending = descending
        self.rescore = rescore
        self.steps = (1, -1) if descending else (1,)
        self.cross_cache: dict[tuple[int, bool], _Cross | None] = {}
        self.rack_melds: dict[int, list[tuple[tuple[int, ...], int]]] = {}
        self.free_starts = {c: REGION_OF_START[c] for c in board.free_starts()}

    # ---------------------------------------------------------------- cross checks
    def cross(self, c: int, horizontal: bool) -> _Cross | None:
        """The line through empty cell ``c`` along ``horizontal`` that a new card would join:
        None if both neighbours on that axis are empty, else the cards allowed there (with
        the line's type and old value) and the regions of its tiles."""
        key = (c, horizontal)
        if key in self.cross_cache:
            return self.cross_cache[key]
        card = self.board.card
        step = 1 if horizontal else SIZE
        r, col = divmod(c, SIZE)
        pos = col if horizontal else r
        before: list[int] = []
        p, q = c, pos
        while q > 0 and card[p - step] >= 0:
            p -= step
            q -= 1
            before.append(p)
        before.reverse()
        after: list[int] = []
        p, q = c, pos
        while q < SIZE - 1 and card[p + step] >= 0:
            p += step
            q += 1
            after.append(p)
        if not before and not after:
            self.cross_cache[key] = None
            return None
        cells = before + after
        regions = frozenset(self.board.region[x] for x in cells)
        allowed: dict[int, tuple[int, int]] = {}
        if len(cells) >= 2:
            # The melds the line can become, fixed by its tiles; the new card is the one at
            # the empty cell's offset.
            offset = len(before)
            fixed = [(o, card[x]) for o, x in enumerate(before)]
            fixed += [(offset + 1 + o, card[x]) for o, x in enumerate(after)]
            for cards, meld in self.fixed_melds(len(cells) + 1, fixed):
                old = sum(self.board.tile_value(y, meld) for y in cells) if self.rescore else 0
                allowed[cards[offset]] = (meld, old)
        result = _Cross(allowed, regions)
        self.cross_cache[key] = result
        return result

    # ---------------------------------------------------------------- rack melds
    def feasible(self, cards: tuple[int, ...]) -> bool:
        """Whether the tiles can supply ``cards`` (real tiles first, jokers for the rest)."""
        need: dict[int, int] = {}
        for x in cards:
            need[x] = need.get(x, 0) + 1
        short = sum(max(0, m - self.counts[x]) for x, m in need.items())
        return short <= self.counts[JOKER]

    def melds_of_length(self, n: int) -> list[tuple[tuple[int, ...], int]]:
        """Every meld of ``n`` cards (with its type) that the tiles can supply, in a fixed
        order (runs by suit, direction and start; then sets by rank and suit order)."""
        if n in self.rack_melds:
            return self.rack_melds[n]
        counts = self.counts
        jokers = counts[JOKER]
        out: list[tuple[tuple[int, ...], int]] = []
        for s in range(4):
            # have[p]: the card at run position p (1..14) is in the tiles.
            have = [0] + [1 if counts[kind(s, rank_at(p))] > 0 else 0 for p in range(1, 15)]
            for step in self.steps:
                for start in range(1, 15):
                    end = start + step * (n - 1)
                    if not 1 <= end <= 14:
                        continue
                    lo, hi = min(start, end), max(start, end)
                    if n - sum(have[lo : hi + 1]) > jokers:
                        continue
                    cards = run_cards(s, start, step, n)
                    if cards is not None and (n < 14 or self.feasible(cards)):
                        out.append((cards, RUN))
        if n in (3, 4):
            for r in range(13):
                have_suits = [s for s in range(4) if counts[kind(s, r)] > 0]
                if len(have_suits) + jokers < n:
                    continue
                for suits in permutations(range(4), n):
                    if sum(1 for x in suits if x not in have_suits) <= jokers:
                        out.append((tuple(kind(x, r) for x in suits), SET))
        self.rack_melds[n] = out
        return out

    def fixed_melds(
        self, n: int, fixed: list[tuple[int, int]]
    ) -> list[tuple[tuple[int, ...], int]]:
        """Every meld of ``n`` cards that agrees with the ``(offset, card)`` already there."""
        out: list[tuple[tuple[int, ...], int]] = []
        off0, c0 = fixed[0]
        s0, r0 = suit_of(c0), rank_of(c0)
        if all(suit_of(c) == s0 for _, c in fixed):
            for step in self.steps:
                for p0 in run_positions(r0):
                    cards = run_cards(s0, p0 - step * off0, step, n)
                    if cards is not None and all(cards[o] == c for o, c in fixed):
                        out.append((cards, RUN))
        if n in (3, 4) and all(rank_of(c) == r0 for _, c in fixed):
            used = [suit_of(c) for _, c in fixed]
            if len(set(used)) == len(used):
                free_offsets = [o for o in range(n) if all(o != f for f, _ in fixed)]
                rest = [s for s in range(4) if s not in used]
                for suits in permutations(rest, len(free_offsets)):
                    cards = [0] * n
                    for o, c in fixed:
                        cards[o] = c
                    for o, s in zip(free_offsets, suits, strict=True):
                        cards[o] = kind(s, r0)
                    out.append((tuple(cards), SET))
        return out

    # ---------------------------------------------------------------- tile choices
    def tile_choices(self, cards: list[int]) -> list[list[int]]:
        """Every way to supply ``cards`` from the tiles: a list of tile kinds per choice."""
        counts = self.counts
        out: list[list[int]] = []
        chosen: list[int] = []

        def walk(i: int, jokers: int) -> None:
            if i == len(cards):
                out.append(chosen.copy())
                return
            x = cards[i]
            if counts[x] > 0:
                counts[x] -= 1
                chosen.append(x)
                walk(i + 1, jokers)
                chosen.pop()
                counts[x] += 1
            if jokers > 0:
                chosen.append(JOKER)
                walk(i + 1, jokers - 1)
                chosen.pop()

        walk(0, counts[JOKER])
        return out

    def next_to(self, ref: int, side: int, fits: set[int] | None) -> set[int]:
        """The cards that may stand right after (``side`` 1) or right before (-1) card
        ``ref`` in one line: ``ref``'s rank in another suit (a set) or the next run position
        of ``ref``'s suit in reading order (either way with ``descending_runs``); intersected
        with ``fits`` unless it is None."""
        s, r = suit_of(ref), rank_of(ref)
        out = {kind(t, r) for t in range(4) if t != s}
        for step in self.steps:
            for pos in run_positions(r):
                q = pos + side * step
                if 1 <= q <= 14:
                    out.add(kind(s, rank_at(q)))
        return out if fits is None else out & fits

    # ---------------------------------------------------------------- the walk
    def run(self, limit: int | None) -> list[Placement]:
        self.limit = limit
        out: list[Placement] = []
        board = self.board
        card = board.card
        first = board.empty
        counts = self.counts
        jokers = counts[JOKER] > 0
        has_neighbour = [any(card[x] >= 0 for x in NEIGHBOURS[c]) for c in range(SIZE * SIZE)]
        for horizontal in (True, False):
            for i in range(SIZE):
                cells = [SIZE * i + p if horizontal else SIZE * p + i for p in range(SIZE)]
                occ = [card[c] >= 0 for c in cells]
                if not any(occ) and not any(has_neighbour[c] for c in cells):
                    # a line with nothing on or next to it: only a start square can found here
                    if first:
                        if CENTRE not in cells:
                            continue
                    elif not any(c in self.free_starts for c in cells):
                        continue
                # An empty cell that no tile can fill blocks every segment through it: its
                # cross line must stay a meld (G19), and a segment through it always holds
                # its occupied neighbours on this line, next to which the card must continue
                # a set or a run (G9, G10).
                blocked = [False] * SIZE
                for p, c in enumerate(cells):
                    if occ[p] or not has_neighbour[c]:
                        continue
                    x = self.cross(c, not horizontal)
                    fits: set[int] | None = None if x is None else set(x.allowed)
                    if p > 0 and occ[p - 1]:
                        fits = self.next_to(card[cells[p - 1]], 1, fits)
                    if p < SIZE - 1 and occ[p + 1]:
                        fits = self.next_to(card[cells[p + 1]], -1, fits)
                    if fits is not None and not ((jokers and fits) or any(counts[y] for y in fits)):
                        blocked[p] = True
                anchor = [
                    occ[p] or has_neighbour[c] or (c == CENTRE if first else c in self.free_starts)
                    for p, c in enumerate(cells)
                ]
                for a in range(SIZE):
                    if a > 0 and occ[a - 1]:
                        continue
                    k = 0
                    anchored = False
                    for b in range(a, SIZE):
                        if not occ[b]:
                            if blocked[b]:
                                break
                            k += 1
                            if k > self.max_tiles:
                                break
                        anchored = anchored or anchor[b]
                        if b + 1 < SIZE and occ[b + 1]:
                            continue
                        if b - a + 1 < 3 or k == 0 or not anchored:
                            continue
                        if k == b - a + 1 and not self.melds_of_length(k):
                            continue  # all new, and the tiles hold no meld of that length
                        self.segment(cells[a : b + 1], k, horizontal, first, has_neighbour, out)
                        if self.limit is not None and len(out) >= self.limit:
                            return out[: self.limit]
        return out

    def segment(
        self,
        cells: list[int],
        k: int,
        horizontal: bool,
        first: bool,
        has_neighbour: list[bool],
        out: list[Placement],
    ) -> None:
        """Add the placements filling the empty cells of ``cells`` (a future main line); stop
        once ``self.limit`` placements are listed."""
        board = self.board
        card = board.card
        n = len(cells)
        if k == 1 and not horizontal:
            c = next(x for x in cells if card[x] < 0)
            col = c % SIZE
            if (col > 0 and card[c - 1] >= 0) or (col < SIZE - 1 and card[c + 1] >= 0):
                return  # generated along the row
        fixed: list[tuple[int, int]] = []
        empties: list[tuple[int, int]] = []
        regions: set[int] = set()
        crosses: list[_Cross | None] = []
        for o, c in enumerate(cells):
            if card[c] >= 0:
                fixed.append((o, card[c]))
                regions.add(board.region[c])
            else:
                empties.append((o, c))
                x = self.cross(c, not horizontal) if has_neighbour[c] else None
                if x is not None:
                    if not x.allowed:
                        return
                    regions |= x.regions
                crosses.append(x)
        if len(regions) > 1:
            return  # G23
        if regions:
            region = next(iter(regions))
        else:
            if k < 3:
                return
            if first:
                if CENTRE not in cells:
                    return  # G20
                region = 0
            else:
                starts = [c for c in cells if c in self.free_starts]
                if not starts:
                    return  # G22
                region = self.free_starts[starts[0]]
        melds = self.fixed_melds(n, fixed) if fixed else self.melds_of_length(n)
        limit = self.limit
        for cards, meld in melds:
            wanted = []
            for (o, _), x in zip(empties, crosses, strict=True):
                cd = cards[o]
                if x is not None and cd not in x.allowed:
                    break
                wanted.append(cd)
            else:
                choices = self.tile_choices(wanted)
                if not choices:
                    continue
                base_old = 0
                if self.rescore:
                    base_old = sum(board.tile_value(cells[o], meld) for o, _ in fixed)
                for tiles in choices:
                    score = self.score(cards, meld, empties, crosses, tiles, base_old)
                    out.append(
                        Placement(
                            tuple(
                                (c, t, cards[o]) for (o, c), t in zip(empties, tiles, strict=True)
                            ),
                            score,
                            region,
                            horizontal,
                        )
                    )
                    if limit is not None and len(out) >= limit:
                        return

    def score(
        self,
        cards: tuple[int, ...],
        meld: int,
        empties: list[tuple[int, int]],
        crosses: list[_Cross | None],
        tiles: list[int],
        old: int,
    ) -> int:
        """G25-G28: the main line plus every cross line through a new tile."""
        new = 0
        mult = 1
        total = 0
        for (o, c), x, t in zip(empties, crosses, tiles, strict=True):
            value = 0 if t == JOKER else card_value(cards[o], meld)
            new += value * TILE_MULT[c]
            mult *= MELD_MULT[c]
            if x is not None:
                cross_meld, cross_old = x.allowed[cards[o]]
                cross_value = 0 if t == JOKER else card_value(cards[o], cross_meld)
                total += cross_value * TILE_MULT[c] * MELD_MULT[c] + cross_old
        return total + new * mult + old


def generate(
    board: Board,
    counts: list[int],
    *,
    max_tiles: int = 8,
    descending_runs: bool = False,
    rescore_existing: bool = True,
    limit: int | None = None,
) -> list[Placement]:
    """Every legal placement of the tiles ``counts`` (53 counts by kind) on ``board``.

    ``max_tiles`` caps the tiles per placement (the rack size, or 8 for G29b); ``limit``
    stops after that many placements (G29b asks for one). Pure: ``board`` and ``counts``
    are left as they were. With numba this runs the compiled generator
    (:func:`generate_compiled`), else the reference (:func:`generate_reference`): the same
    placements in the same order.
    """
    if COMPILED and not _REFERENCE_ONLY:
        return generate_compiled(
            board,
            counts,
            max_tiles=max_tiles,
            descending_runs=descending_runs,
            rescore_existing=rescore_existing,
            limit=limit,
        )
    return generate_reference(
        board,
        counts,
        max_tiles=max_tiles,
        descending_runs=descending_runs,
        rescore_existing=rescore_existing,
        limit=limit,
    )


_REFERENCE_ONLY: list[bool] = []  # non-empty inside reference_generator()


@contextmanager
def reference_generator() -> Iterator[None]:
    """Within this block :func:`generate` runs the reference generator even with numba (the
    speed benchmark's "before" and the tests' comparisons)."""
    _REFERENCE_ONLY.append(True)
    try:
        yield
    finally:
        _REFERENCE_ONLY.pop()


def _checked(counts: list[int], max_tiles: int) -> tuple[list[int], int]:
    counts = list(counts)
    if len(counts) != 53:
        raise ValueError(f"counts must have 53 entries (one per tile kind), got {len(counts)}")
    return counts, min(max_tiles, 8, sum(counts))


def generate_reference(
    board: Board,
    counts: list[int],
    *,
    max_tiles: int = 8,
    descending_runs: bool = False,
    rescore_existing: bool = True,
    limit: int | None = None,
) -> list[Placement]:
    """:func:`generate` by the pure-Python generator of this module (the reference)."""
    counts, max_tiles = _checked(counts, max_tiles)
    if max_tiles < 1:
        return []
    gen = _Generator(board, counts, max_tiles, descending_runs, rescore_existing)
    return gen.run(limit)


_WORKSPACE: list = []  # the compiled generator's workspace, made on first use
_ENTRY: dict[str, object] = {}  # the kernels compiled for their argument types


def _kernel(name: str, *args: object):
    """The kernel ``name`` of :mod:`gnome_env.ginny_o._movegen_kernel`, as an entry point
    for the (always the same) argument types (:func:`gnome_env.core.jit.entry_point`)."""
    fn = _ENTRY.get(name)
    if fn is None:
        from gnome_env.core.jit import entry_point
        from gnome_env.ginny_o import _movegen_kernel as K

        fn = _ENTRY[name] = entry_point(getattr(K, name), *args)
    return fn


def _kernel_board(board: Board) -> tuple[np.ndarray, ...]:
    """The kernel's board arrays (card, joker, region, start_region), kept in the board's
    memo and updated from the previous ones after a put."""
    memo = board.memo
    head = memo.get("kernel_board")
    if head is not None:
        return head
    before = memo.get("parent", {}).get("kernel_board")
    if before is not None:
        head = tuple(a.copy() for a in before)
        for c in memo["added"]:
            head[0][c] = board.card[c]
            head[1][c] = board.joker[c]
            head[2][c] = board.region[c]
            head[3][c] = -1  # a covered red square founds nothing (G22)
    else:
        start_region = np.full(NUM_CELLS, -1, dtype=np.int64)
        for c in START_SQUARES:
            if board.card[c] < 0:
                start_region[c] = REGION_OF_START[c]
        head = (
            np.array(board.card, dtype=np.int64),
            np.array(board.joker, dtype=np.int64),
            np.array(board.region, dtype=np.int64),
            start_region,
        )
    memo["kernel_board"] = head
    return head


def _run_kernel(
    board: Board,
    counts: list[int],
    max_tiles: int,
    descending_runs: bool,
    rescore_existing: bool,
    limit: int | None,
):
    """Run the compiled generator; ``(workspace, number of placements)``."""
    from gnome_env.ginny_o import _movegen_kernel as K

    if not _WORKSPACE:
        _WORKSPACE.append(K.Workspace())
    head = _kernel_board(board)
    tail = (int(max_tiles), bool(descending_runs), bool(rescore_existing))
    tail += (-1 if limit is None else int(limit),)
    while True:
        ws = _WORKSPACE[0]
        args = (
            *head,
            np.array(counts, dtype=np.int64),
            *tail,
            ws.cross_state,
            ws.cross_meld,
            ws.cross_old,
            ws.cross_regions,
            ws.cross_allowed,
            ws.rack_state,
            ws.rack_count,
            ws.rack_cards,
            ws.rack_type,
            ws.fix_cards,
            ws.fix_type,
            ws.scratch,
            ws.out_tiles,
            ws.out_k,
            ws.out_score,
            ws.out_region,
            ws.out_horiz,
        )
        n = _kernel("generate_kernel", *args)(*args)
        if n >= 0:
            return ws, n
        _WORKSPACE[0] = K.Workspace(4 * ws.capacity)  # more placements than it holds


def _placements_of(tiles, k, score, region, horiz) -> list[Placement]:
    """Placement objects of the generator's output arrays (``n`` rows each)."""
    return [
        Placement(tuple(map(tuple, t[:kk])), sc, rg, bool(h))
        for t, kk, sc, rg, h in zip(
            tiles.tolist(), k.tolist(), score.tolist(), region.tolist(), horiz.tolist(), strict=True
        )
    ]


def generate_compiled(
    board: Board,
    counts: list[int],
    *,
    max_tiles: int = 8,
    descending_runs: bool = False,
    rescore_existing: bool = True,
    limit: int | None = None,
) -> list[Placement]:
    """:func:`generate` by the compiled kernel :mod:`gnome_env.ginny_o._movegen_kernel`
    (plain Python, and slow, where numba is missing)."""
    counts, max_tiles = _checked(counts, max_tiles)
    if max_tiles < 1 or (limit is not None and limit <= 0):
        return []
    ws, n = _run_kernel(board, counts, max_tiles, descending_runs, rescore_existing, limit)
    return _placements_of(
        ws.out_tiles[:n], ws.out_k[:n], ws.out_score[:n], ws.out_region[:n], ws.out_horiz[:n]
    )


def best_score(
    board: Board,
    counts: list[int],
    *,
    max_tiles: int = 8,
    descending_runs: bool = False,
    rescore_existing: bool = True,
) -> int:
    """The highest score (G28) among :func:`generate`'s placements, 0 when there is none;
    with numba it reads the compiled generator's score column without building the
    placements (the bots' reply estimates call this many times a turn)."""
    if COMPILED and not _REFERENCE_ONLY:
        counts, max_tiles = _checked(counts, max_tiles)
        if max_tiles < 1:
            return 0
        ws, n = _run_kernel(board, counts, max_tiles, descending_runs, rescore_existing, None)
        return int(ws.out_score[:n].max()) if n else 0
    found = generate(
        board,
        counts,
        max_tiles=max_tiles,
        descending_runs=descending_runs,
        rescore_existing=rescore_existing,
    )
    return max((p.score for p in found), default=0)


class PlacementTable:
    """Every legal placement of one decision point as arrays (row ``i``: ``k[i]`` tiles
    ``tiles[i, :k[i]]`` as ``(cell, tile, card)``, ``score``, ``region``, ``horiz``) with
    each one's canonical action sequence (``acts[i, :alen[i]]``, padded with -1), in the
    generator's order. Immutable once built: the engine's copies share it."""

    __slots__ = ("_placements", "_sequences", "acts", "alen", "horiz", "k", "n", "region")
    __slots__ += ("score", "tiles")

    def __init__(self, tiles, k, score, region, horiz, acts, alen) -> None:
        self.n = len(k)
        self.tiles, self.k, self.score, self.region, self.horiz = tiles, k, score, region, horiz
        self.acts, self.alen = acts, alen
        self._placements: list[Placement] | None = None
        self._sequences: tuple[tuple[int, ...], ...] | None = None

    def placements(self) -> list[Placement]:
        """The rows as :class:`Placement` objects (made once)."""
        if self._placements is None:
            self._placements = _placements_of(
                self.tiles, self.k, self.score, self.region, self.horiz
            )
        return self._placements

    def placement(self, i: int) -> Placement:
        """Row ``i`` as a :class:`Placement`."""
        if self._placements is not None:
            return self._placements[i]
        return _placements_of(
            self.tiles[i : i + 1],
            self.k[i : i + 1],
            self.score[i : i + 1],
            self.region[i : i + 1],
            self.horiz[i : i + 1],
        )[0]

    def sequences(self) -> tuple[tuple[int, ...], ...]:
        """Each row's canonical action sequence (made once)."""
        if self._sequences is None:
            self._sequences = tuple(
                tuple(a[:m]) for a, m in zip(self.acts.tolist(), self.alen.tolist(), strict=True)
            )
        return self._sequences


def placement_table(
    board: Board,
    counts: list[int],
    slots: list[int],
    slot_used: list[bool],
    *,
    max_tiles: int = 8,
    descending_runs: bool = False,
    rescore_existing: bool = True,
) -> PlacementTable:
    """:func:`generate` as a :class:`PlacementTable`, with the action sequences of the tiles
    in ``slots`` (8 kinds, -1 empty) not ``slot_used`` (``counts`` must come from them)."""
    from gnome_env.ginny_o import _movegen_kernel as K

    counts, max_tiles = _checked(counts, max_tiles)
    if max_tiles < 1:
        n = 0
        cols = (np.zeros((0, 8, 3), np.int64), *(np.zeros(0, np.int64) for _ in range(4)))
    elif COMPILED and not _REFERENCE_ONLY:
        ws, n = _run_kernel(board, counts, max_tiles, descending_runs, rescore_existing, None)
        cols = tuple(
            a[:n].copy()
            for a in (ws.out_tiles, ws.out_k, ws.out_score, ws.out_region, ws.out_horiz)
        )
    else:
        found = generate_reference(
            board,
            counts,
            max_tiles=max_tiles,
            descending_runs=descending_runs,
            rescore_existing=rescore_existing,
        )
        n = len(found)
        tiles = np.zeros((n, 8, 3), np.int64)
        for i, p in enumerate(found):
            tiles[i, : len(p.tiles)] = p.tiles
        cols = (
            tiles,
            np.array([len(p.tiles) for p in found], np.int64),
            np.array([p.score for p in found], np.int64),
            np.array([p.region for p in found], np.int64),
            np.array([p.horizontal for p in found], np.int64),
        )
    acts = np.zeros((n, K.MAX_ACTS), np.int64)
    alen = np.zeros(n, np.int64)
    slot_arr = np.array(slots, np.int64)
    used_arr = np.array(slot_used, np.int64)
    args = (n, cols[0], cols[1], slot_arr, used_arr, acts, alen)
    if n and _kernel("actions_kernel", *args)(*args) < 0:
        raise ValueError("a placement uses a tile that no free slot holds")
    return PlacementTable(*cols, acts, alen)


def rack_counts(tiles: list[int]) -> list[int]:
    """53 counts by kind of a list of tile kinds."""
    out = [0] * 53
    for t in tiles:
        out[t] += 1
    return out


def score_placement(
    board: Board,
    tiles: list[Tile] | tuple[Tile, ...],
    *,
    rescore_existing: bool = True,
    descending_runs: bool = False,
) -> int:
    """G25-G28 from first principles: put ``tiles`` on a copy of ``board`` and score every
    line through a new tile (used by tests and the validator as a second opinion)."""
    after = board.copy()
    new_cells = {c for c, _, _ in tiles}
    for c, t, cd in tiles:
        after.put(c, t == JOKER, cd, 0)
    total = 0
    seen: set[tuple[int, ...]] = set()
    for c in new_cells:
        for horizontal in (True, False):
            line = after.line_cells(c, horizontal)
            if len(line) < 2 or tuple(line) in seen:
                continue
            seen.add(tuple(line))
            meld = meld_type([after.card[x] for x in line], descending_runs)
            if not meld:
                raise ValueError("the placement leaves a line that is not a meld")
            new, mult = 0, 1
            old = 0
            for x in line:
                v = after.tile_value(x, meld)
                if x in new_cells:
                    new += v * TILE_MULT[x]
                    mult *= MELD_MULT[x]
                else:
                    old += v
            total += new * mult + (old if rescore_existing else 0)
    return total


__all__ = [
    "Placement",
    "PlacementTable",
    "Tile",
    "best_score",
    "generate",
    "generate_compiled",
    "generate_reference",
    "placement_table",
    "rack_counts",
    "reference_generator",
    "score_placement",
]
