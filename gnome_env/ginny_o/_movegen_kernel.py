"""The compiled Ginny-O move generator: :mod:`gnome_env.ginny_o.movegen` over flat arrays.

This is :class:`gnome_env.ginny_o.movegen._Generator` (the reference, unchanged) rewritten
over integer arrays so that numba can compile it (:func:`gnome_env.core.jit.maybe_njit`).
It walks the same segments, melds and tile choices in the same order, so it lists the same
placements in the same order with the same scores and regions;
``tests/ginny_o/test_ginny_movegen_kernel.py`` holds the two equal on positions of real
games and against the brute-force enumerator. :func:`gnome_env.ginny_o.movegen.generate`
calls it when numba is available and runs the reference otherwise (or with
``GNOME_NO_NUMBA=1``).

The kernel allocates nothing: every cache and the output live in a :class:`Workspace`
made once per process and reused. Its output holds, per placement ``i``: ``out_k[i]`` new
tiles ``out_tiles[i, j] = (cell, tile kind, card)`` in reading order, ``out_score[i]``
(G28), ``out_region[i]`` (G23) and ``out_horiz[i]`` (the main line's axis). When more
placements exist than the output holds, the kernel returns -1 and the caller retries with
a larger workspace.

Encodings: ``card`` -1 empty or the card 0..51 a tile reads as; ``joker`` 1 for a joker
tile; ``region`` -1 empty or the region id; ``start_region[c]`` the region a new placement
founds on uncovered red square ``c`` (G22), else -1; meld types ``SET`` = 1, ``RUN`` = 2
(:mod:`gnome_env.ginny_o.board`).
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from gnome_env.core.jit import COMPILED, compile_notice, maybe_njit  # noqa: F401
from gnome_env.ginny_o.board import CENTRE, MELD_MULT, NEIGHBOURS, NUM_CELLS, SIZE, TILE_MULT

compile_notice(__file__)  # one line on stderr if nothing is compiled yet

JOKER_K = 52
SET_T, RUN_T = 1, 2
DECLARE_BASE_K = 8 * NUM_CELLS  # the ids of gnome_env.ginny_o.actions (checked there)
COMMIT_K = DECLARE_BASE_K + 52
#: The longest canonical action sequence: 8 PLACE, 8 DECLARE and COMMIT.
MAX_ACTS = 17
#: The most melds of one length a multiset can supply: 4 suits x 2 directions x 14 starts
#: of runs and 13 ranks x 24 suit orders of sets.
MAX_RACK_MELDS = 4 * 2 * 14 + 13 * 24
MAX_FIXED_MELDS = 32

TILE_MULT_A = np.array(TILE_MULT, dtype=np.int64)
MELD_MULT_A = np.array(MELD_MULT, dtype=np.int64)
NEIGH_A = np.full((NUM_CELLS, 4), -1, dtype=np.int64)
for _c, _ns in enumerate(NEIGHBOURS):
    NEIGH_A[_c, : len(_ns)] = _ns


def _perm_tables() -> tuple[np.ndarray, np.ndarray]:
    """``PERM[R, L, i]``: the i-th of ``itertools.permutations(range(R), L)`` (its order)."""
    tab = np.zeros((5, 5, 24, 4), dtype=np.int64)
    cnt = np.zeros((5, 5), dtype=np.int64)
    for r in range(5):
        for length in range(r + 1):
            for i, p in enumerate(permutations(range(r), length)):
                tab[r, length, i, :length] = p
                cnt[r, length] = i + 1
    return tab, cnt


PERM_TAB, PERM_CNT = _perm_tables()


def _next_masks() -> np.ndarray:
    """``NEXT_MASK[ref, side, descending]``: bit mask of the cards that may stand right
    after (side 1) or right before (side 0) card ``ref`` in one line (movegen's
    ``next_to``): its rank in another suit, or the next run position of its suit in reading
    order (either direction with ``descending``)."""
    out = np.zeros((52, 2, 2), dtype=np.int64)
    for ref in range(52):
        s, r = divmod(ref, 13)
        for side_i, side in enumerate((-1, 1)):
            for desc in (0, 1):
                bits = 0
                for t in range(4):
                    if t != s:
                        bits |= 1 << (13 * t + r)
                for step in (1, -1) if desc else (1,):
                    for pos in (1, 14) if r == 0 else (r + 1,):
                        q = pos + side * step
                        if 1 <= q <= 14:
                            bits |= 1 << (13 * s + (0 if q in (1, 14) else q - 1))
                out[ref, side_i, desc] = bits
    return out


NEXT_MASK = _next_masks()


class Workspace:
    """The kernel's caches, scratch and output for up to ``capacity`` placements."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self.cross_state = np.zeros((2, NUM_CELLS), np.int64)  # 0 unknown, 1 none, 2 a line
        self.cross_meld = np.zeros((2, NUM_CELLS, 52), np.int64)  # 0: the card is not allowed
        self.cross_old = np.zeros((2, NUM_CELLS, 52), np.int64)
        self.cross_regions = np.zeros((2, NUM_CELLS), np.int64)  # bit mask of region ids
        self.cross_allowed = np.zeros((2, NUM_CELLS), np.int64)  # bit mask of allowed cards
        self.rack_state = np.zeros(16, np.int64)  # melds_of_length computed for n
        self.rack_count = np.zeros(16, np.int64)
        self.rack_cards = np.zeros((16, MAX_RACK_MELDS, 8), np.int64)
        self.rack_type = np.zeros((16, MAX_RACK_MELDS), np.int64)
        self.fix_cards = np.zeros((MAX_FIXED_MELDS, 16), np.int64)
        self.fix_type = np.zeros(MAX_FIXED_MELDS, np.int64)
        self.scratch = np.zeros((16, 16), np.int64)  # rows named in generate_kernel
        self.out_tiles = np.zeros((capacity, 8, 3), np.int64)
        self.out_k = np.zeros(capacity, np.int64)
        self.out_score = np.zeros(capacity, np.int64)
        self.out_region = np.zeros(capacity, np.int64)
        self.out_horiz = np.zeros(capacity, np.int64)
        self.out_acts = np.zeros((capacity, MAX_ACTS), np.int64)
        self.out_alen = np.zeros(capacity, np.int64)


@maybe_njit
def _rank_at(pos):
    return 0 if pos == 1 or pos == 14 else pos - 1


@maybe_njit
def _card_value(cd, meld):
    r = cd % 13
    if r == 0:
        return 15 if meld == SET_T else 1
    return r + 1 if r < 10 else 10


@maybe_njit
def _fixed_melds(n, foff, fcard, nf, descending, out_cards, out_type, tmp):
    """movegen's ``fixed_melds``: every meld of ``n`` cards agreeing with the ``nf`` fixed
    ``(offset, card)`` pairs, into ``out_cards`` / ``out_type``; returns how many. ``tmp``:
    scratch for the free offsets (entries 0-3) and the free suits (4-7)."""
    m = 0
    c0 = fcard[0]
    s0 = c0 // 13
    r0 = c0 % 13
    off0 = foff[0]
    same_suit = True
    same_rank = True
    for i in range(nf):
        if fcard[i] // 13 != s0:
            same_suit = False
        if fcard[i] % 13 != r0:
            same_rank = False
    if same_suit:
        for si in range(2 if descending else 1):
            step = 1 if si == 0 else -1
            for pi in range(2 if r0 == 0 else 1):
                p0 = (1 if pi == 0 else 14) if r0 == 0 else r0 + 1
                start = p0 - step * off0
                end = start + step * (n - 1)
                if not (1 <= start <= 14 and 1 <= end <= 14):
                    continue
                ok = True
                for i in range(nf):
                    if 13 * s0 + _rank_at(start + step * foff[i]) != fcard[i]:
                        ok = False
                        break
                if ok:
                    for o in range(n):
                        out_cards[m, o] = 13 * s0 + _rank_at(start + step * o)
                    out_type[m] = RUN_T
                    m += 1
    if (n == 3 or n == 4) and same_rank:
        used = 0
        distinct = True
        for i in range(nf):
            bit = 1 << (fcard[i] // 13)
            if used & bit:
                distinct = False
            used |= bit
        if distinct:
            nfree = 0
            for o in range(n):
                taken = False
                for i in range(nf):
                    if foff[i] == o:
                        taken = True
                if not taken:
                    tmp[nfree] = o
                    nfree += 1
            nrest = 0
            for s in range(4):
                if not used & (1 << s):
                    tmp[4 + nrest] = s
                    nrest += 1
            for pi in range(PERM_CNT[nrest, nfree]):
                for i in range(nf):
                    out_cards[m, foff[i]] = fcard[i]
                for j in range(nfree):
                    out_cards[m, tmp[j]] = 13 * tmp[4 + PERM_TAB[nrest, nfree, pi, j]] + r0
                out_type[m] = SET_T
                m += 1
    return m


@maybe_njit
def _cross(
    c,
    hz,
    card,
    joker,
    region,
    rescore,
    descending,
    ws_state,
    ws_meld,
    ws_old,
    ws_regions,
    ws_allowed,
    scratch,
    fix_cards,
    fix_type,
):
    """movegen's ``cross(c, horizontal)`` for axis ``hz`` (0 along the row, 1 the column):
    fills the workspace rows of ``(hz, c)`` once (``ws_allowed``: the bit mask of the cards
    allowed there); returns the state (1 no line, 2 a line)."""
    st = ws_state[hz, c]
    if st != 0:
        return st
    step = 1 if hz == 0 else SIZE
    r = c // SIZE
    col = c % SIZE
    pos = col if hz == 0 else r
    cells = scratch[0]  # the line's cells without c, in reading order
    nb = 0
    p = c
    q = pos
    while q > 0 and card[p - step] >= 0:
        p -= step
        q -= 1
        nb += 1
    for i in range(nb):
        cells[i] = p + step * i
    na = 0
    p = c
    q = pos
    while q < SIZE - 1 and card[p + step] >= 0:
        p += step
        q += 1
        cells[nb + na] = p
        na += 1
    if nb + na == 0:
        ws_state[hz, c] = 1
        return 1
    ncell = nb + na
    regs = 0
    for i in range(ncell):
        regs |= 1 << region[cells[i]]
    ws_regions[hz, c] = regs
    for x in range(52):
        ws_meld[hz, c, x] = 0
    allowed = 0
    if ncell >= 2:
        foff = scratch[1]
        fcard = scratch[2]
        for i in range(nb):
            foff[i] = i
            fcard[i] = card[cells[i]]
        for i in range(na):
            foff[nb + i] = nb + 1 + i
            fcard[nb + i] = card[cells[nb + i]]
        m = _fixed_melds(
            ncell + 1, foff, fcard, ncell, descending, fix_cards, fix_type, scratch[15]
        )
        for j in range(m):
            meld = fix_type[j]
            old = 0
            if rescore:
                for i in range(ncell):
                    y = cells[i]
                    if not joker[y]:
                        old += _card_value(card[y], meld)
            x = fix_cards[j, nb]
            allowed |= np.int64(1) << x
            # a dict assignment: a later meld with the same card overwrites the earlier
            ws_meld[hz, c, x] = meld
            ws_old[hz, c, x] = old
    ws_allowed[hz, c] = allowed
    ws_state[hz, c] = 2
    return 2


@maybe_njit
def _rack_melds(n, counts, descending, rack_state, rack_count, rack_cards, rack_type):
    """movegen's ``melds_of_length(n)``: cached in the workspace; returns how many."""
    if rack_state[n]:
        return rack_count[n]
    jokers = counts[JOKER_K]
    m = 0
    for s in range(4):
        for si in range(2 if descending else 1):
            step = 1 if si == 0 else -1
            for start in range(1, 15):
                end = start + step * (n - 1)
                if not 1 <= end <= 14:
                    continue
                lo = min(start, end)
                hi = max(start, end)
                have = 0
                for p in range(lo, hi + 1):
                    if counts[13 * s + _rank_at(p)] > 0:
                        have += 1
                if n - have > jokers:
                    continue
                for o in range(n):
                    rack_cards[n, m, o] = 13 * s + _rank_at(start + step * o)
                rack_type[n, m] = RUN_T
                m += 1
    if n == 3 or n == 4:
        for r in range(13):
            have = 0
            nh = 0
            for s in range(4):
                if counts[13 * s + r] > 0:
                    have |= 1 << s
                    nh += 1
            if nh + jokers < n:
                continue
            for pi in range(PERM_CNT[4, n]):
                missing = 0
                for j in range(n):
                    if not have & (1 << PERM_TAB[4, n, pi, j]):
                        missing += 1
                if missing <= jokers:
                    for j in range(n):
                        rack_cards[n, m, j] = 13 * PERM_TAB[4, n, pi, j] + r
                    rack_type[n, m] = SET_T
                    m += 1
    rack_state[n] = 1
    rack_count[n] = m
    return m


@maybe_njit
def generate_kernel(
    card,
    joker,
    region,
    start_region,
    counts,
    max_tiles,
    descending,
    rescore,
    limit,
    cross_state,
    cross_meld,
    cross_old,
    cross_regions,
    cross_allowed,
    rack_state,
    rack_count,
    rack_cards,
    rack_type,
    fix_cards,
    fix_type,
    scratch,
    out_tiles,
    out_k,
    out_score,
    out_region,
    out_horiz,
):
    """Every legal placement, as movegen's ``_Generator.run`` lists them; returns their
    count (at most ``limit`` when ``limit`` >= 0), or -1 when the output is too small.

    ``scratch`` rows: 0-2 for ``_cross``; 3 the line's cells, 4 occupied, 5 has a
    neighbour, 6 blocked, 7 anchor, 8 fixed offsets, 9 fixed cards, 10 empty offsets,
    11 empty cells, 12 wanted cards, 13 the tile choice, 14 the choice's option state, 15
    ``_fixed_melds``' scratch."""
    cap = out_k.shape[0]
    for h in range(2):
        for c in range(NUM_CELLS):
            cross_state[h, c] = 0
    for n in range(16):
        rack_state[n] = 0
    first = True
    for c in range(NUM_CELLS):
        if card[c] >= 0:
            first = False
            break
    jokers_avail = counts[JOKER_K] > 0
    have = np.int64(0)  # bit mask of the cards the tiles hold
    for x in range(52):
        if counts[x] > 0:
            have |= np.int64(1) << x
    desc_i = 1 if descending else 0
    nout = 0
    cells = scratch[3]
    occ = scratch[4]
    hasnb = scratch[5]
    blocked = scratch[6]
    anchor = scratch[7]
    foff = scratch[8]
    fcard = scratch[9]
    eoff = scratch[10]
    ecell = scratch[11]
    wanted = scratch[12]
    choice = scratch[13]
    opt = scratch[14]
    for hzi in range(2):
        horizontal = hzi == 0
        cross_axis = 1 - hzi  # the perpendicular axis
        for i in range(SIZE):
            any_occ = False
            any_nb = False
            has_centre = False
            has_start = False
            for p in range(SIZE):
                c = SIZE * i + p if horizontal else SIZE * p + i
                cells[p] = c
                occ[p] = 1 if card[c] >= 0 else 0
                nbv = 0
                for j in range(4):
                    y = NEIGH_A[c, j]
                    if y >= 0 and card[y] >= 0:
                        nbv = 1
                hasnb[p] = nbv
                any_occ = any_occ or occ[p] == 1
                any_nb = any_nb or nbv == 1
                if c == CENTRE:
                    has_centre = True
                if start_region[c] >= 0:
                    has_start = True
            if not any_occ and not any_nb:
                if first:
                    if not has_centre:
                        continue
                elif not has_start:
                    continue
            for p in range(SIZE):
                blocked[p] = 0
                c = cells[p]
                if occ[p] or not hasnb[p]:
                    continue
                st = _cross(
                    c,
                    cross_axis,
                    card,
                    joker,
                    region,
                    rescore,
                    descending,
                    cross_state,
                    cross_meld,
                    cross_old,
                    cross_regions,
                    cross_allowed,
                    scratch,
                    fix_cards,
                    fix_type,
                )
                has_fits = st == 2
                fit = cross_allowed[cross_axis, c] if has_fits else np.int64(0)
                if p > 0 and occ[p - 1]:
                    nxt = NEXT_MASK[card[cells[p - 1]], 1, desc_i]
                    fit = fit & nxt if has_fits else nxt
                    has_fits = True
                if p < SIZE - 1 and occ[p + 1]:
                    nxt = NEXT_MASK[card[cells[p + 1]], 0, desc_i]
                    fit = fit & nxt if has_fits else nxt
                    has_fits = True
                if has_fits and not ((jokers_avail and fit != 0) or (fit & have) != 0):
                    blocked[p] = 1
            for p in range(SIZE):
                c = cells[p]
                if occ[p] or hasnb[p]:
                    anchor[p] = 1
                elif first:
                    anchor[p] = 1 if c == CENTRE else 0
                else:
                    anchor[p] = 1 if start_region[c] >= 0 else 0
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
                        if k > max_tiles:
                            break
                    anchored = anchored or anchor[b] == 1
                    if b + 1 < SIZE and occ[b + 1]:
                        continue
                    n = b - a + 1
                    if n < 3 or k == 0 or not anchored:
                        continue
                    if (
                        k == n
                        and _rack_melds(
                            n, counts, descending, rack_state, rack_count, rack_cards, rack_type
                        )
                        == 0
                    ):
                        continue
                    # ------------------------------------------------ segment(cells[a..b])
                    if k == 1 and not horizontal:
                        c1 = -1
                        for o in range(n):
                            if card[cells[a + o]] < 0:
                                c1 = cells[a + o]
                                break
                        col1 = c1 % SIZE
                        if (col1 > 0 and card[c1 - 1] >= 0) or (
                            col1 < SIZE - 1 and card[c1 + 1] >= 0
                        ):
                            continue  # generated along the row
                    nf = 0
                    ne = 0
                    regs = 0
                    dead = False
                    for o in range(n):
                        c = cells[a + o]
                        if card[c] >= 0:
                            foff[nf] = o
                            fcard[nf] = card[c]
                            nf += 1
                            regs |= 1 << region[c]
                        else:
                            eoff[ne] = o
                            ecell[ne] = c
                            ne += 1
                            if hasnb[a + o]:
                                st = _cross(
                                    c,
                                    cross_axis,
                                    card,
                                    joker,
                                    region,
                                    rescore,
                                    descending,
                                    cross_state,
                                    cross_meld,
                                    cross_old,
                                    cross_regions,
                                    cross_allowed,
                                    scratch,
                                    fix_cards,
                                    fix_type,
                                )
                                if st == 2:
                                    if cross_allowed[cross_axis, c] == 0:
                                        dead = True
                                        break
                                    regs |= cross_regions[cross_axis, c]
                    if dead:
                        continue
                    if regs & (regs - 1):
                        continue  # G23: more than one region
                    if regs:
                        seg_region = 0
                        while not regs & (1 << seg_region):
                            seg_region += 1
                    else:
                        if k < 3:
                            continue
                        if first:
                            found = False
                            for o in range(n):
                                if cells[a + o] == CENTRE:
                                    found = True
                            if not found:
                                continue  # G20
                            seg_region = 0
                        else:
                            seg_region = -1
                            for o in range(n):
                                if start_region[cells[a + o]] >= 0:
                                    seg_region = start_region[cells[a + o]]
                                    break
                            if seg_region < 0:
                                continue  # G22
                    if nf > 0:
                        nm = _fixed_melds(
                            n, foff, fcard, nf, descending, fix_cards, fix_type, scratch[15]
                        )
                    else:
                        nm = _rack_melds(
                            n, counts, descending, rack_state, rack_count, rack_cards, rack_type
                        )
                    for mi in range(nm):
                        meld = fix_type[mi] if nf > 0 else rack_type[n, mi]
                        ok = True
                        for j in range(ne):
                            cd = fix_cards[mi, eoff[j]] if nf > 0 else rack_cards[n, mi, eoff[j]]
                            c = ecell[j]
                            if hasnb[a + eoff[j]] and cross_state[cross_axis, c] == 2:
                                if cross_meld[cross_axis, c, cd] == 0:
                                    ok = False
                                    break
                            wanted[j] = cd
                        if not ok:
                            continue
                        base_old = 0
                        if rescore:
                            for j in range(nf):
                                y = cells[a + foff[j]]
                                if not joker[y]:
                                    base_old += _card_value(card[y], meld)
                        # tile choices: depth first, a real tile before a joker (movegen)
                        jokers = counts[JOKER_K]
                        lvl = 0
                        opt[0] = -1
                        while lvl >= 0:
                            x = wanted[lvl]
                            if opt[lvl] == 0:
                                counts[x] += 1
                            elif opt[lvl] == 1:
                                jokers += 1
                            o = opt[lvl] + 1
                            took = False
                            while o <= 1:
                                if o == 0 and counts[x] > 0:
                                    counts[x] -= 1
                                    took = True
                                    break
                                if o == 1 and jokers > 0:
                                    jokers -= 1
                                    took = True
                                    break
                                o += 1
                            if not took:
                                opt[lvl] = 2
                                lvl -= 1
                                continue
                            opt[lvl] = o
                            choice[lvl] = x if o == 0 else JOKER_K
                            if lvl + 1 < ne:
                                lvl += 1
                                opt[lvl] = -1
                                continue
                            # a complete choice: score it (movegen's ``score``) and list it
                            if nout >= cap:
                                for u in range(lvl + 1):  # restore the counts
                                    if opt[u] == 0:
                                        counts[wanted[u]] += 1
                                return -1
                            new = 0
                            mult = 1
                            total = 0
                            for j in range(ne):
                                c = ecell[j]
                                cd = wanted[j]
                                t = choice[j]
                                value = 0 if t == JOKER_K else _card_value(cd, meld)
                                new += value * TILE_MULT_A[c]
                                mult *= MELD_MULT_A[c]
                                if hasnb[a + eoff[j]] and cross_state[cross_axis, c] == 2:
                                    cm = cross_meld[cross_axis, c, cd]
                                    cv = 0 if t == JOKER_K else _card_value(cd, cm)
                                    total += (
                                        cv * TILE_MULT_A[c] * MELD_MULT_A[c]
                                        + cross_old[cross_axis, c, cd]
                                    )
                                out_tiles[nout, j, 0] = c
                                out_tiles[nout, j, 1] = t
                                out_tiles[nout, j, 2] = cd
                            out_k[nout] = ne
                            out_score[nout] = total + new * mult + base_old
                            out_region[nout] = seg_region
                            out_horiz[nout] = 1 if horizontal else 0
                            nout += 1
                            if limit >= 0 and nout >= limit:
                                for u in range(lvl + 1):
                                    if opt[u] == 0:
                                        counts[wanted[u]] += 1
                                return nout
    return nout


@maybe_njit
def actions_kernel(n, out_tiles, out_k, slots, slot_used, out_acts, out_alen):
    """The canonical action sequence of each of the ``n`` listed placements (the engine's
    ``placement_actions``): PLACE(slot, cell) in reading order, each joker followed by its
    DECLARE, then COMMIT; among identical tiles the lowest slot not used this turn nor
    earlier in the placement. Rows are padded with -1; returns 0, or -1 when a tile is in
    no free slot (the tiles did not come from these slots)."""
    width = out_acts.shape[1]
    for i in range(n):
        taken = 0
        m = 0
        for j in range(out_k[i]):
            c = out_tiles[i, j, 0]
            t = out_tiles[i, j, 1]
            s = -1
            for q in range(slots.shape[0]):
                if slots[q] == t and not slot_used[q] and not (taken >> q) & 1:
                    s = q
                    break
            if s < 0:
                return -1
            taken |= 1 << s
            out_acts[i, m] = NUM_CELLS * s + c
            m += 1
            if t == JOKER_K:
                out_acts[i, m] = DECLARE_BASE_K + out_tiles[i, j, 2]
                m += 1
        out_acts[i, m] = COMMIT_K
        m += 1
        out_alen[i] = m
        for u in range(m, width):
            out_acts[i, u] = -1
    return 0
