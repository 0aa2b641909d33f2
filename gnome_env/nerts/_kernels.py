"""Compiled Nerts kernels: N4-N33 and the observation of N34 over flat integer arrays.

This module is :class:`gnome_env.nerts.engine.NertsGame` (the reference, unchanged) rewritten
over one preallocated ``int32`` row per game, so that numba can compile it
(:func:`gnome_env.core.jit.maybe_njit`; without numba, or with ``GNOME_NO_NUMBA=1``, the same
functions run as plain Python). The batched engine :class:`gnome_env.nerts.vector.
NertsVectorEngine` steps many rows at once; :class:`gnome_env.nerts.vector.KernelNertsGame`
runs one row for the Parallel env ``nerts_v0``. ``tests/nerts/test_nerts_vector.py`` holds
both equal to the engine (every state, mask, observation, reward and info).

The row of a game (named columns ``C_*`` for scalars, ``S_*`` for per-seat blocks of six,
the piles, the slots and the foundation log):

* scalars: seats, hand, steps, stall (N25), remedy flag (N26), slots used, hand over, end
  reason (``END_*``), game over, hands played, whether a last step exists (and its
  index and remedy flag), the log length;
* per seat: seen / exhausted (N24), totals, own foundation cards, the last finished
  hand's scores, the last step's action / blocked / progress / call, pi of the last step
  (``S_LAST_PI + position``: the seat), and the pile lengths;
* piles, every one bottom -> top like the engine's lists (ND2): the Nerts pile, the stock
  and the waste (54 cells each, the test hook can build a Nerts pile of the whole deck),
  the work piles (13 cells each, N9);
* slots: suit (-1 unused), top rank, complete, and the cards of each owner (N7, N8);
* the foundation log: every card put on a foundation, in order, with its declared card
  (N33), owner and slot -- a slot's cards are its log entries in order.

Action ids are those of :mod:`gnome_env.nerts.actions` (offsets in ``prm``); the card ids
those of :mod:`gnome_env.nerts.cards`. Random numbers come from the functions of
:mod:`gnome_env.core.rng` that the engine calls: seat ``s``'s deck of hand ``h`` is the
shuffle ``(NERTS_DEAL, seed, h, s)`` of the canonical deck, pi of step ``k`` the shuffle
``(NERTS_PRIORITY, seed, h, k)`` of the seats (N4).

For speed the kernels allocate nothing (scratch lives in the row) and are compiled without
numba's reference counting (see :func:`gnome_env.core.jit.maybe_njit`).
"""

from __future__ import annotations

import numpy as np

from gnome_env.core import rng
from gnome_env.core.jit import COMPILED, compile_notice, entry_point, maybe_njit  # noqa: F401
from gnome_env.nerts import actions as A
from gnome_env.nerts.cards import KING, NUM_NATURAL, SUIT_COLOUR
from gnome_env.nerts.config import MAX_PLAYERS

compile_notice(__file__)  # one line on stderr if nothing is compiled yet

# ---------------------------------------------------------------------- sizes
MAX_P = MAX_PLAYERS  # 6 seats (N3)
MAX_W = 5  # work piles (N5)
MAX_DECK = NUM_NATURAL + 2  # 54 cards per deck with two jokers (N1)
MAX_F = 36  # (4 + 2) * 6 foundation slots (N7)
RUN = 13  # a work pile holds at most 13 cards (N9)
MAX_LOG = MAX_P * MAX_DECK  # every card of every deck on a foundation
KING_RANK = KING
NATURAL = NUM_NATURAL

WAIT, CALL, TURN, RECYCLE, SHIFT = A.WAIT, A.CALL, A.TURN, A.RECYCLE, A.SHIFT
K_TO_SLOT = int(A.Kind.TO_SLOT)
K_NEW = int(A.Kind.NEW_FOUNDATION)
K_TO_WORK = int(A.Kind.TO_WORK)
K_MOVE = int(A.Kind.WORK_MOVE)
K_SLIDE = int(A.Kind.SLIDE)

END_NONE, END_NERTS, END_BLOCKED, END_CAP = 0, 1, 2, 3  # the env's end_reason codes

# ---------------------------------------------------------------------- the row
C_P = 0  # seats
C_HAND = 1
C_STEPS = 2
C_STALL = 3  # N25 (ND7)
C_REMEDY = 4  # N26 remedy_done
C_SLOTS_USED = 5
C_HAND_OVER = 6
C_END = 7  # END_* of the hand (0 while it runs)
C_GAME_OVER = 8
C_HANDS = 9  # hands played (len(hand_results))
C_HAS_LAST = 10  # a last step exists (last_result is not None)
C_LAST_STEP = 11
C_LAST_REMEDY = 12
C_LOG_LEN = 13
NUM_SCALARS = 16

S_SEEN = NUM_SCALARS
S_EXH = S_SEEN + MAX_P
S_TOTAL = S_EXH + MAX_P
S_FOUND = S_TOTAL + MAX_P  # own cards on foundations (found_count)
S_LAST_SCORE = S_FOUND + MAX_P  # scores of the last finished hand (N31 ties)
S_LAST_ACT = S_LAST_SCORE + MAX_P
S_LAST_BLOCKED = S_LAST_ACT + MAX_P
S_LAST_PI = S_LAST_BLOCKED + MAX_P  # + position: the seat (pi of the last step)
S_LAST_PROG = S_LAST_PI + MAX_P
S_LAST_CALLED = S_LAST_PROG + MAX_P
S_NLEN = S_LAST_CALLED + MAX_P
S_SLEN = S_NLEN + MAX_P
S_WLEN = S_SLEN + MAX_P
S_WORK_LEN = S_WLEN + MAX_P  # + seat * MAX_W + w
T_RESET = S_WORK_LEN + MAX_P * MAX_W  # step scratch: own shift / work move (N24)
T_MOVED = T_RESET + MAX_P  # a move between work piles this step
T_TURNED = T_MOVED + MAX_P  # cards turned this step
T_PI = T_TURNED + MAX_P  # this step's pi
T_BEFORE = T_PI + MAX_P  # hand scores at the start of the step
T_DELTA = T_BEFORE + MAX_P  # their change (or the scores: sparse rewards)
NERTS = T_DELTA + MAX_P  # + seat * MAX_DECK + i
STOCK = NERTS + MAX_P * MAX_DECK
WASTE = STOCK + MAX_P * MAX_DECK
WORK = WASTE + MAX_P * MAX_DECK  # + (seat * MAX_W + w) * RUN + i
SL_SUIT = WORK + MAX_P * MAX_W * RUN
SL_TOP = SL_SUIT + MAX_F
SL_DONE = SL_TOP + MAX_F
SL_OWN = SL_DONE + MAX_F  # + f * MAX_P + owner
LOG_CARD = SL_OWN + MAX_F * MAX_P
LOG_DECL = LOG_CARD + MAX_LOG
LOG_OWNER = LOG_DECL + MAX_LOG
LOG_SLOT = LOG_OWNER + MAX_LOG
T_CYCLE = LOG_SLOT + MAX_LOG  # scratch: a deck, a re-formed stock (N26)
ROW = T_CYCLE + MAX_DECK

# ---------------------------------------------------------------------- rule parameters
P_W = 0
P_JOKERS = 1
P_NS = 2
P_F = 3
P_DECK = 4
P_TURN = 5
P_SLIDE = 6
P_BOTH = 7  # foundation_tie == "both_keep"
P_AUTO = 8
P_STALL = 9
P_MAXSTEPS = 10
P_TARGET = 11
P_MAXHANDS = 12
P_NACT = 13
P_B_NEW = 14
P_B_WORK = 15
P_B_MOVE = 16
P_B_SLIDE = 17
P_REWARD = 18  # index into REWARD_MODES
P_EPISODE = 19  # index into EPISODES
P_OBS = 20  # observation size
P_SW = 21  # seat block width
P_SLOTS0 = 22  # start of the slot blocks
P_GLOBAL0 = 23  # start of the global block
P_OFF = 24  # + field index: offsets within a seat block (SEAT_OFFSETS order)
NUM_PARAMS = P_OFF + 18

REWARD_MODES = ("relative", "score", "sparse")
EPISODES = ("hand", "game")
#: the seat-block fields of :func:`gnome_env.nerts.encoding.seat_fields`, in order
SEAT_OFFSETS = (
    "present",
    "nerts_size",
    "nerts_top",
    "work_cards",
    "work_len",
    "work_base",
    "work_top",
    "waste_top",
    "waste_size",
    "stock_size",
    "seen",
    "exhausted",
    "foundation",
    "hand_score",
    "total",
    "last_blocked",
    "last_priority",
    "last_kind",
)
(
    O_PRESENT,
    O_NSIZE,
    O_NTOP,
    O_WCARDS,
    O_WLEN,
    O_WBASE,
    O_WTOP,
    O_WASTE_TOP,
    O_WASTE_SIZE,
    O_STOCK_SIZE,
    O_SEEN,
    O_EXH,
    O_FOUND,
    O_SCORE,
    O_TOTAL,
    O_BLOCKED,
    O_PRIO,
    O_KIND,
) = range(len(SEAT_OFFSETS))

# Float parameters of the observation (computed as NertsEncoder computes them).
FP_PER_DECK = 0  # 1.0 / deck size
FP_SCORE_LO = 1
FP_SCORE_SPAN = 2
FP_NS = 3
FP_TARGET = 4
FP_MAXSTEPS = 5
FP_STALL = 6
FP_MAXHANDS = 7
FP_F = 8
NUM_FPARAMS = 9

# ---------------------------------------------------------------------- per-step results
R_HAND = 0  # the hand the step was played in
R_STEP = 1  # steps played in that hand after the step
R_HAND_OVER = 2
R_END = 3
R_REMEDY = 4
R_GAME_OVER = 5
R_DONE = 6  # the episode ended (hand, or game with episode="game")
R_TRUNC = 7  # ... at the step cap
R_PROGRESS = 8  # some progress (N23)
R_SCORES = 16  # + seat: N30 S after the step (the hand's scores when it ended)
R_TOTALS = R_SCORES + MAX_P
R_BLOCKED = R_TOTALS + MAX_P
R_PRIO_POS = R_BLOCKED + MAX_P  # the seat's position in pi
R_PROG_BY = R_PRIO_POS + MAX_P
R_WON = R_PROG_BY + MAX_P
R_CALLED = R_WON + MAX_P
NUM_RESULTS = R_CALLED + MAX_P

# Card tables (numba freezes global arrays into the compiled code).
RANK = np.array([c % 13 + 1 for c in range(NATURAL)] + [0, 0], dtype=np.int64)
COLOUR = np.array([SUIT_COLOUR[c // 13] for c in range(NATURAL)] + [-1, -1], dtype=np.int64)
SUIT_COL = np.array(SUIT_COLOUR, dtype=np.int64)


# ---------------------------------------------------------------------- small reads
@maybe_njit
def work_at(seat, w):
    """Row index of work pile ``w`` of ``seat``'s first cell."""
    return WORK + (seat * MAX_W + w) * RUN


@maybe_njit
def anchor(g, seat, w, jokers):
    """N9/N32 (:func:`gnome_env.nerts.engine.pile_anchor`) of a work pile: ``(rank at
    index 0, colour at index 0, index of the last natural)``, ``(-1, -1, -1)`` without a
    natural card."""
    length = g[S_WORK_LEN + seat * MAX_W + w]
    if length == 0:
        return -1, -1, -1
    base = work_at(seat, w)
    if not jokers:
        c = g[base]
        return RANK[c], COLOUR[c], length - 1
    r0 = -1
    c0 = -1
    last = -1
    for i in range(length):
        c = g[base + i]
        if c < NATURAL:
            if r0 < 0:
                r0 = RANK[c] + i
                c0 = COLOUR[c] ^ (i & 1)
            last = i
    return r0, c0, last


@maybe_njit
def source_top(g, seat, s):
    """``(length, top card)`` of source ``s`` (0 Nerts, 1 waste, 2 + w work pile w)."""
    if s == 0:
        n = g[S_NLEN + seat]
        if n == 0:
            return 0, -1
        return n, g[NERTS + seat * MAX_DECK + n - 1]
    if s == 1:
        n = g[S_WLEN + seat]
        if n == 0:
            return 0, -1
        return n, g[WASTE + seat * MAX_DECK + n - 1]
    w = s - 2
    n = g[S_WORK_LEN + seat * MAX_W + w]
    if n == 0:
        return 0, -1
    return n, g[work_at(seat, w) + n - 1]


@maybe_njit
def joker_top(g, seat, s, jokers):
    """N32/N33 (``NertsGame._joker_top``): ``(fixed rank, fixed colour, highest rank)`` a
    joker on top of source ``s`` may be declared as; -1 where nothing is fixed (ND11)."""
    if s < 2:
        return -1, -1, KING_RANK
    w = s - 2
    r0, c0, _ = anchor(g, seat, w, jokers)
    top = g[S_WORK_LEN + seat * MAX_W + w] - 1
    if r0 >= 0:
        return r0 - top, c0 ^ (top & 1), r0 - top
    return -1, -1, KING_RANK - top


@maybe_njit
def hand_score(g, seat):
    """N30 (ND17): own foundation cards - 2 x Nerts cards left."""
    return g[S_FOUND + seat] - 2 * g[S_NLEN + seat]


@maybe_njit
def kind_of(a, prm):
    """N19: the :class:`gnome_env.nerts.actions.Kind` of action id ``a``."""
    if a < 5:
        return a
    if a < prm[P_B_NEW]:
        return K_TO_SLOT
    if a < prm[P_B_WORK]:
        return K_NEW
    if a < prm[P_B_MOVE]:
        return K_TO_WORK
    if a < prm[P_B_SLIDE]:
        return K_MOVE
    return K_SLIDE


# ---------------------------------------------------------------------- legal actions
@maybe_njit
def legal_specials(g, prm, seat, ids, n):
    """N14-N17, N22 (ND15): wait, call, turn / recycle, shift; returns the new count."""
    ids[n] = WAIT
    n += 1
    if prm[P_AUTO] == 0 and g[S_NLEN + seat] == 0:
        ids[n] = CALL
        n += 1
    sl = g[S_SLEN + seat]
    if sl > 0:
        ids[n] = TURN
        n += 1
    elif g[S_WLEN + seat] > 0:
        ids[n] = RECYCLE
        n += 1
    if g[S_EXH + seat] != 0 and sl >= 2:
        ids[n] = SHIFT
        n += 1
    return n


# Scratch of the legal-action kernels (int64, one array for a whole batch call):
SC_NEED = 0  # + card id: bit set of the open slots that need the card (N8)
SC_R0 = SC_NEED + MAX_DECK  # + w: the seat's work-pile anchors (rank, colour, last natural)
SC_C0 = SC_R0 + MAX_W
SC_LAST = SC_C0 + MAX_W
SCRATCH = SC_LAST + MAX_W


@maybe_njit
def fill_need(g, sc):
    """N8 (``NertsGame._need_map``): for each natural card id, the open slots it fits."""
    for x in range(NATURAL):
        sc[SC_NEED + x] = 0
    for f in range(g[C_SLOTS_USED]):
        if g[SL_DONE + f] == 0:  # rank top+1 of suit s has the id 13*s + top
            sc[SC_NEED + 13 * g[SL_SUIT + f] + g[SL_TOP + f]] |= np.int64(1) << np.int64(f)


@maybe_njit
def fill_anchors(g, prm, seat, sc):
    """Every work pile's :func:`anchor` of ``seat`` into the scratch."""
    jokers = prm[P_JOKERS] > 0
    for w in range(prm[P_W]):
        r0, c0, last = anchor(g, seat, w, jokers)
        sc[SC_R0 + w] = r0
        sc[SC_C0 + w] = c0
        sc[SC_LAST + w] = last


@maybe_njit
def legal_foundations(g, prm, seat, ids, n, sc):
    """N8, N11, N33 (ND12, ND20): source -> open slot, then source -> new foundation."""
    nw = prm[P_W]
    nf = prm[P_F]
    jokers = prm[P_JOKERS] > 0
    used = g[C_SLOTS_USED]
    for s in range(2 + nw):
        length, x = source_top(g, seat, s)
        if length == 0:
            continue
        base = 5 + s * nf
        if x < NATURAL:
            bits = sc[SC_NEED + x]
            f = 0
            while bits != 0:  # the slots that need x, ascending
                if bits & 1:
                    ids[n] = base + f
                    n += 1
                bits >>= 1
                f += 1
            continue
        rank, colour, high = joker_top(g, seat, s, jokers)
        for f in range(used):
            if g[SL_DONE + f] != 0:
                continue
            r = g[SL_TOP + f] + 1
            if rank >= 0:
                if r != rank or SUIT_COL[g[SL_SUIT + f]] != colour:
                    continue
            elif r > high:
                continue
            ids[n] = base + f
            n += 1
    if used >= nf:  # N7: never (slots cannot run out), as the engine checks
        return n
    b_new = prm[P_B_NEW]
    for s in range(2 + nw):
        length, x = source_top(g, seat, s)
        if length == 0:
            continue
        if x < NATURAL:
            if RANK[x] == 1:
                ids[n] = b_new + s * 4 + x // 13
                n += 1
            continue
        rank, colour, _ = joker_top(g, seat, s, jokers)
        if rank < 0 or rank == 1:
            for u in range(4):
                if rank < 0 or SUIT_COL[u] == colour:
                    ids[n] = b_new + s * 4 + u
                    n += 1
    return n


@maybe_njit
def fits_on(g, seat, w, x, sc):
    """N10/N32: whether the Nerts/waste top ``x`` may go on work pile ``w``."""
    length = g[S_WORK_LEN + seat * MAX_W + w]
    if length == 0:
        return True  # an empty pile takes anything (N10)
    r0 = sc[SC_R0 + w]
    if x < NATURAL:
        if r0 >= 0:
            return RANK[x] == r0 - length and COLOUR[x] == sc[SC_C0 + w] ^ (length & 1)
        return RANK[x] + length <= KING_RANK
    if r0 >= 0:
        return r0 - length >= 1
    return length + 1 <= RUN


@maybe_njit
def fits_under(g, seat, w, x, sc):
    """N12/N32 (ND19): whether ``x`` may be slid under non-empty work pile ``w``."""
    length = g[S_WORK_LEN + seat * MAX_W + w]
    r0 = sc[SC_R0 + w]
    if x < NATURAL:
        if r0 >= 0:
            return RANK[x] == r0 + 1 and COLOUR[x] != sc[SC_C0 + w]
        return RANK[x] - length >= 1
    if r0 >= 0:
        return r0 + 1 <= KING_RANK
    return length + 1 <= RUN


@maybe_njit
def legal_moves(g, prm, seat, ids, n, sc):
    """N11 (ND10, ND22): the top c cards of work pile w -> work pile v."""
    nw = prm[P_W]
    jokers = prm[P_JOKERS] > 0
    b_move = prm[P_B_MOVE]
    for w in range(nw):
        lw = g[S_WORK_LEN + seat * MAX_W + w]
        if lw == 0:
            continue
        r0w = sc[SC_R0 + w]
        c0w = sc[SC_C0 + w]
        lastw = sc[SC_LAST + w]
        for v in range(nw):
            if v == w:
                continue
            base = b_move + (w * nw + v) * RUN
            lv = g[S_WORK_LEN + seat * MAX_W + v]
            if lv == 0:
                for c in range(lw):  # every c = 1..lw (N11)
                    ids[n] = base + c
                    n += 1
                continue
            r0v = sc[SC_R0 + v]
            c0v = sc[SC_C0 + v]
            if not jokers:
                i = r0w - r0v + lv  # the moved part's bottom is one rank below v's top
                if 0 <= i < lw and c0w ^ (i & 1) == c0v ^ (lv & 1):
                    ids[n] = base + lw - i - 1
                    n += 1
                continue
            for c in range(1, lw + 1):
                i = lw - c
                if r0w >= 0 and i <= lastw:  # the moved part holds a natural: fixed
                    rb = r0w - i
                    cb = c0w ^ (i & 1)
                    ok = rb + lv <= KING_RANK
                    if r0v >= 0:
                        ok = rb == r0v - lv
                        if ok:
                            ok = cb == c0v ^ (lv & 1)
                elif r0v >= 0:  # jokers alone move, free again (ND10)
                    ok = r0v - lv - (c - 1) >= 1
                else:
                    ok = lv + c <= RUN
                if ok:
                    ids[n] = base + c - 1
                    n += 1
    return n


@maybe_njit
def legal_work(g, prm, seat, ids, n, sc):
    """N10 (Nerts/waste top -> work pile), N11 (work moves), N12 (ND19: slides)."""
    nw = prm[P_W]
    b_work = prm[P_B_WORK]
    has_empty = False
    for w in range(nw):
        if g[S_WORK_LEN + seat * MAX_W + w] == 0:
            has_empty = True
    for t in range(2):
        length, x = source_top(g, seat, t)
        if length == 0:
            continue
        for w in range(nw):
            if fits_on(g, seat, w, x, sc):
                ids[n] = b_work + t * nw + w
                n += 1
    n = legal_moves(g, prm, seat, ids, n, sc)
    if prm[P_SLIDE] != 0 and has_empty:
        b_slide = prm[P_B_SLIDE]
        for t in range(2):
            length, x = source_top(g, seat, t)
            if length == 0:
                continue
            for w in range(nw):
                if g[S_WORK_LEN + seat * MAX_W + w] > 0 and fits_under(g, seat, w, x, sc):
                    ids[n] = b_slide + t * nw + w
                    n += 1
    return n


@maybe_njit
def seat_legal(g, prm, seat, ids, sc):
    """N10-N17, N19, N22, N32, N33, N36 (``NertsGame._compute_legal``): ``seat``'s legal
    ids, ascending, into ``ids``; returns their count (0 once the hand is over). Needs
    :func:`fill_need` of the current state in ``sc``."""
    if g[C_HAND_OVER] != 0:
        return 0
    fill_anchors(g, prm, seat, sc)
    n = legal_specials(g, prm, seat, ids, 0)
    n = legal_foundations(g, prm, seat, ids, n, sc)
    return legal_work(g, prm, seat, ids, n, sc)


@maybe_njit
def write_masks(g, prm, masks, ids, counts, sc, incremental):
    """Every seat's mask (rows ``0..P-1`` of ``masks``; further rows zero), legal ids
    (``ids[seat, :counts[seat]]``) and counts. ``incremental``: ``masks``, ``ids`` and
    ``counts`` hold the previous call's output, so only its ids are cleared; otherwise
    every row is cleared."""
    p = g[C_P]
    nact = prm[P_NACT]
    fill_need(g, sc)
    for seat in range(masks.shape[0]):
        row = masks[seat]
        lst = ids[seat]
        if incremental:
            for i in range(counts[seat]):
                row[lst[i]] = 0
        else:
            for a in range(nact):
                row[a] = 0
        if seat >= p:
            counts[seat] = 0
            continue
        n = seat_legal(g, prm, seat, lst, sc)
        counts[seat] = n
        for i in range(n):
            row[lst[i]] = 1


# ---------------------------------------------------------------------- the deal
@maybe_njit
def deal_hand(g, prm, seed, hand, decks, stacked):
    """N4/N5 (``NertsGame._deal``): deal hand ``hand``. Seat ``s``'s deck (top first) is
    the keyed shuffle of the canonical deck, or ``decks[s]`` when bit ``s`` of
    ``stacked`` is set (the test hook)."""
    p = g[C_P]
    ns = prm[P_NS]
    nw = prm[P_W]
    deck = prm[P_DECK]
    g[C_HAND] = hand
    tmp = g[T_CYCLE : T_CYCLE + MAX_DECK]
    for seat in range(p):  # seat 0's deck first, then seat 1's, ... (N4)
        if (stacked >> seat) & 1:
            for i in range(deck):
                tmp[i] = decks[seat, i]
        else:
            for i in range(deck):
                tmp[i] = i
            rng.shuffle(tmp, deck, rng.NERTS_DEAL, seed, hand, seat)
        nb = NERTS + seat * MAX_DECK
        for i in range(ns):  # the first card dealt is the Nerts pile's bottom
            g[nb + i] = tmp[i]
        g[S_NLEN + seat] = ns
        for w in range(nw):
            g[work_at(seat, w)] = tmp[ns + w]
            g[S_WORK_LEN + seat * MAX_W + w] = 1
        for w in range(nw, MAX_W):
            g[S_WORK_LEN + seat * MAX_W + w] = 0
        rest = deck - ns - nw
        sb = STOCK + seat * MAX_DECK
        for i in range(rest):  # stored bottom -> top: the deck's next card is the top
            g[sb + i] = tmp[deck - 1 - i]
        g[S_SLEN + seat] = rest
        g[S_WLEN + seat] = 0
        g[S_SEEN + seat] = 0
        g[S_EXH + seat] = 1 if rest == 0 else 0  # N24
    for f in range(MAX_F):
        g[SL_SUIT + f] = -1
        g[SL_TOP + f] = 0
        g[SL_DONE + f] = 0
    for i in range(MAX_F * MAX_P):
        g[SL_OWN + i] = 0
    for seat in range(MAX_P):
        g[S_FOUND + seat] = 0
    g[C_SLOTS_USED] = 0
    g[C_LOG_LEN] = 0
    g[C_STEPS] = 0
    g[C_STALL] = 0
    g[C_REMEDY] = 0
    g[C_HAND_OVER] = 0
    g[C_END] = END_NONE
    g[C_HAS_LAST] = 0  # next_hand() forgets the last step


@maybe_njit
def new_game(g, prm, num_players, seed, decks, stacked):
    """``NertsGame(config, seed)``: totals 0, no hands played, hand 0 dealt."""
    for i in range(ROW):
        g[i] = 0
    g[C_P] = num_players
    deal_hand(g, prm, seed, 0, decks, stacked)


# ---------------------------------------------------------------------- the step
@maybe_njit
def take(g, seat, s):
    """Remove and return the top card of source ``s`` of ``seat``."""
    if s == 0:
        n = g[S_NLEN + seat] - 1
        g[S_NLEN + seat] = n
        return g[NERTS + seat * MAX_DECK + n]
    if s == 1:
        n = g[S_WLEN + seat] - 1
        g[S_WLEN + seat] = n
        return g[WASTE + seat * MAX_DECK + n]
    at = S_WORK_LEN + seat * MAX_W + s - 2
    n = g[at] - 1
    g[at] = n
    return g[work_at(seat, s - 2) + n]


@maybe_njit
def to_slot(g, f, card, declared, owner):
    """Put ``card`` (declared as ``declared``, N33) of ``owner`` on slot ``f``."""
    i = g[C_LOG_LEN]
    g[LOG_CARD + i] = card
    g[LOG_DECL + i] = declared
    g[LOG_OWNER + i] = owner
    g[LOG_SLOT + i] = f
    g[C_LOG_LEN] = i + 1
    g[SL_OWN + f * MAX_P + owner] += 1
    g[S_FOUND + owner] += 1


@maybe_njit
def apply_special(g, prm, seat, a):
    """N15 turn, N16 recycle, N17 shift, N22 call (wait does nothing)."""
    if a == CALL:
        g[S_LAST_CALLED + seat] = 1
    elif a == TURN:  # N15: s1 s2 s3 (top first) land bottom -> top
        sb = STOCK + seat * MAX_DECK
        wb = WASTE + seat * MAX_DECK
        sl = g[S_SLEN + seat]
        wl = g[S_WLEN + seat]
        n = min(prm[P_TURN], sl)
        for _ in range(n):
            sl -= 1
            g[wb + wl] = g[sb + sl]
            wl += 1
        g[S_SLEN + seat] = sl
        g[S_WLEN + seat] = wl
        g[T_TURNED + seat] = n
    elif a == RECYCLE:  # N16: the first card turned becomes the stock top
        sb = STOCK + seat * MAX_DECK
        wb = WASTE + seat * MAX_DECK
        wl = g[S_WLEN + seat]
        for i in range(wl):
            g[sb + i] = g[wb + wl - 1 - i]
        g[S_SLEN + seat] = wl
        g[S_WLEN + seat] = 0
    elif a == SHIFT:  # N17: stock top to the bottom
        sb = STOCK + seat * MAX_DECK
        sl = g[S_SLEN + seat]
        top = g[sb + sl - 1]
        for i in range(sl - 1, 0, -1):
            g[sb + i] = g[sb + i - 1]
        g[sb] = top
        g[T_RESET + seat] = 1


@maybe_njit
def apply_action(g, prm, seat, a, played):
    """N20.2-N20.4 for one seat's (legal) action, in pi order; returns the updated bit set
    ``played`` of the slots played on in this step."""
    if a < 5:
        apply_special(g, prm, seat, a)
        return played
    nf = prm[P_F]
    nw = prm[P_W]
    if a < prm[P_B_NEW]:  # source -> open slot (N8, N20.2)
        s = (a - 5) // nf
        f = (a - 5) - s * nf
        bit = np.int64(1) << np.int64(f)
        if played & bit:
            if prm[P_BOTH] == 0:  # N21: blocked, as if waiting (ND6)
                g[S_LAST_BLOCKED + seat] = 1
                return played
            declared = 13 * g[SL_SUIT + f] + g[SL_TOP + f] - 1  # both_keep: an equal card
        else:
            declared = 13 * g[SL_SUIT + f] + g[SL_TOP + f]
            g[SL_TOP + f] += 1
            played |= bit
        to_slot(g, f, take(g, seat, s), declared, seat)
        g[S_LAST_PROG + seat] = 1
    elif a < prm[P_B_WORK]:  # N20.3: the next unused slot, in pi order
        s = (a - prm[P_B_NEW]) // 4
        u = (a - prm[P_B_NEW]) - 4 * s
        f = g[C_SLOTS_USED]
        g[C_SLOTS_USED] = f + 1
        card = take(g, seat, s)
        g[SL_SUIT + f] = u
        g[SL_TOP + f] = 1
        to_slot(g, f, card, 13 * u, seat)
        g[S_LAST_PROG + seat] = 1
    elif a < prm[P_B_MOVE]:  # N10: Nerts/waste top -> work pile
        t = (a - prm[P_B_WORK]) // nw
        w = (a - prm[P_B_WORK]) - t * nw
        card = take(g, seat, t)
        at = S_WORK_LEN + seat * MAX_W + w
        g[work_at(seat, w) + g[at]] = card
        g[at] += 1
        g[S_LAST_PROG + seat] = 1
    elif a < prm[P_B_SLIDE]:  # N11: top c cards of pile w onto pile v (not progress)
        pair = (a - prm[P_B_MOVE]) // RUN
        c = (a - prm[P_B_MOVE]) - pair * RUN + 1
        w = pair // nw
        v = pair - w * nw
        aw = S_WORK_LEN + seat * MAX_W + w
        av = S_WORK_LEN + seat * MAX_W + v
        lw = g[aw]
        lv = g[av]
        bw = work_at(seat, w)
        bv = work_at(seat, v)
        for i in range(c):
            g[bv + lv + i] = g[bw + lw - c + i]
        g[aw] = lw - c
        g[av] = lv + c
        g[T_MOVED + seat] = 1
        g[T_RESET + seat] = 1
    else:  # N12: slide under pile w
        t = (a - prm[P_B_SLIDE]) // nw
        w = (a - prm[P_B_SLIDE]) - t * nw
        card = take(g, seat, t)
        at = S_WORK_LEN + seat * MAX_W + w
        bw = work_at(seat, w)
        for i in range(g[at], 0, -1):
            g[bw + i] = g[bw + i - 1]
        g[bw] = card
        g[at] += 1
        g[S_LAST_PROG + seat] = 1
    return played


@maybe_njit
def update_exhausted(g):
    """N24 (ND5): exhausted = seen >= n_i and this step's action was no work-pile move."""
    for i in range(g[C_P]):
        n = g[S_SLEN + i] + g[S_WLEN + i]
        g[S_EXH + i] = 1 if g[S_SEEN + i] >= n and g[T_MOVED + i] == 0 else 0


@maybe_njit
def remedy(g):
    """N26 (ND8): every stock becomes waste (turned over) + stock, its top goes under."""
    tmp = T_CYCLE
    for i in range(g[C_P]):
        sb = STOCK + i * MAX_DECK
        wb = WASTE + i * MAX_DECK
        wl = g[S_WLEN + i]
        sl = g[S_SLEN + i]
        n = wl + sl
        # the cycle, top first: the waste bottom -> top, then the stock top -> bottom
        for j in range(wl):
            g[tmp + j] = g[wb + j]
        for j in range(sl):
            g[tmp + wl + j] = g[sb + sl - 1 - j]
        if n >= 2:  # its top card goes to the bottom
            first = g[tmp]
            for j in range(n - 1):
                g[tmp + j] = g[tmp + j + 1]
            g[tmp + n - 1] = first
        for j in range(n):  # stored bottom -> top
            g[sb + j] = g[tmp + n - 1 - j]
        g[S_SLEN + i] = n
        g[S_WLEN + i] = 0
        g[S_SEEN + i] = 0
    g[C_STALL] = 0
    g[C_REMEDY] = 1


@maybe_njit
def end_hand(g, prm, reason):
    """N29-N31 (ND9, ND18): score the hand, add to totals, decide the game and winners."""
    p = g[C_P]
    g[C_HAND_OVER] = 1
    g[C_END] = reason
    g[C_HANDS] += 1
    best = -(1 << 30)
    for i in range(p):
        s = hand_score(g, i)
        g[S_LAST_SCORE + i] = s
        g[S_TOTAL + i] += s
        best = max(best, g[S_TOTAL + i])
    if best >= prm[P_TARGET] or g[C_HANDS] >= prm[P_MAXHANDS]:
        g[C_GAME_OVER] = 1


@maybe_njit
def is_winner(g, seat):
    """N31 (ND18, ``game_winners``): the highest total; among tied seats the highest score
    in the final hand; a tie that remains is a shared win."""
    p = g[C_P]
    best = -(1 << 30)
    for i in range(p):
        best = max(best, g[S_TOTAL + i])
    if g[S_TOTAL + seat] != best:
        return False
    top = -(1 << 30)
    for i in range(p):
        if g[S_TOTAL + i] == best:
            top = max(top, g[S_LAST_SCORE + i])
    return g[S_LAST_SCORE + seat] == top


@maybe_njit
def end_step(g, prm, k):
    """N29 (``NertsGame._end_step``): complete slots, counters (N23-N25), then a call or
    auto_call (N22), a stuck table (N25-N27), the step cap (N28)."""
    p = g[C_P]
    g[C_STEPS] = k + 1
    for f in range(g[C_SLOTS_USED]):  # N8: a slot whose top is a King is complete
        if g[SL_TOP + f] == KING_RANK:
            g[SL_DONE + f] = 1
    progress = False
    called = False
    for i in range(p):
        if g[S_LAST_PROG + i] != 0:
            progress = True
        if g[S_LAST_CALLED + i] != 0:
            called = True
    if progress:  # N23, N24, N27: progress by anyone resets and re-arms (ND4)
        for i in range(p):
            g[S_SEEN + i] = 0
        g[C_STALL] = 0
        g[C_REMEDY] = 0
    else:
        g[C_STALL] += 1  # N25 (ND7); a blocked play counts as a wait (ND6)
        for i in range(p):
            if g[T_RESET + i] != 0:
                g[S_SEEN + i] = 0
            else:
                g[S_SEEN + i] += g[T_TURNED + i]
    update_exhausted(g)
    reason = END_NONE
    remedied = 0
    empty = False
    if prm[P_AUTO] != 0:
        for i in range(p):
            if g[S_NLEN + i] == 0:
                empty = True
    if called or empty:  # N22
        reason = END_NERTS
    elif not progress:
        stuck = g[C_STALL] >= prm[P_STALL]
        if not stuck:
            stuck = True
            for i in range(p):
                if g[S_EXH + i] == 0:
                    stuck = False
        if stuck:  # N25
            if g[C_REMEDY] != 0:  # N27
                reason = END_BLOCKED
            else:
                remedy(g)
                update_exhausted(g)
                remedied = 1
    if reason == END_NONE and g[C_STEPS] >= prm[P_MAXSTEPS]:  # N28, checked last (ND16)
        reason = END_CAP
    g[C_LAST_REMEDY] = remedied
    if reason != END_NONE:
        end_hand(g, prm, reason)
    return progress


@maybe_njit
def play_step(g, prm, acts, seed):
    """N18-N29 (``NertsGame.step``): resolve one legal action per seat (``acts[seat]``)
    as one simultaneous event; returns whether there was progress (N23)."""
    p = g[C_P]
    k = g[C_STEPS]
    pi = g[T_PI : T_PI + MAX_P]
    for i in range(p):
        pi[i] = i
    rng.shuffle(pi, p, rng.NERTS_PRIORITY, seed, g[C_HAND], k)  # N20.1, drawn every step
    for i in range(MAX_P):
        g[S_LAST_BLOCKED + i] = 0
        g[S_LAST_PROG + i] = 0
        g[S_LAST_CALLED + i] = 0
        g[T_RESET + i] = 0
        g[T_MOVED + i] = 0
        g[T_TURNED + i] = 0
        g[S_LAST_ACT + i] = 0
        g[S_LAST_PI + i] = 0
    played = np.int64(0)
    for pos in range(p):  # pi order settles N20.2 and N20.3 (ND3)
        seat = pi[pos]
        g[S_LAST_PI + pos] = seat
        a = acts[seat]
        g[S_LAST_ACT + seat] = a
        if a != WAIT:
            played = apply_action(g, prm, seat, a, played)
    g[C_HAS_LAST] = 1
    g[C_LAST_STEP] = k
    return end_step(g, prm, k)


@maybe_njit
def relative_reward(deltas, p, seat):
    """r_i = d_i - mean_{j != i} d_j (``nerts_v0.relative``, the same float64 arithmetic)."""
    total = 0
    for j in range(p):
        total += deltas[j]
    d = deltas[seat]
    return d - (total - d) / (p - 1)


@maybe_njit
def step_results(g, prm, progress, rew, res):
    """The env's rewards (``reward_mode``) and infos of the step just played: rewards
    into ``rew[:P]`` (0 beyond), the info columns ``R_*`` into ``res``; returns ``done``."""
    p = g[C_P]
    over = g[C_HAND_OVER] != 0
    mode = prm[P_REWARD]
    after = g[T_DELTA : T_DELTA + MAX_P]
    for i in range(p):
        s = hand_score(g, i)
        res[R_SCORES + i] = s
        after[i] = s - g[T_BEFORE + i] if mode != 2 else s
    for i in range(MAX_P):
        rew[i] = 0.0
    for i in range(p):
        if mode == 1:  # score: dS_i
            rew[i] = after[i]
        elif mode == 0 or over:  # relative, or sparse at the end of the hand
            rew[i] = relative_reward(after, p, i)
    done = over and (prm[P_EPISODE] == 0 or g[C_GAME_OVER] != 0)
    res[R_HAND] = g[C_HAND]
    res[R_STEP] = g[C_STEPS]
    res[R_HAND_OVER] = 1 if over else 0
    res[R_END] = g[C_END]
    res[R_REMEDY] = g[C_LAST_REMEDY]
    res[R_GAME_OVER] = g[C_GAME_OVER]
    res[R_DONE] = 1 if done else 0
    res[R_TRUNC] = 1 if done and g[C_END] == END_CAP else 0
    res[R_PROGRESS] = 1 if progress else 0
    game_over = g[C_GAME_OVER] != 0
    for i in range(MAX_P):
        if i >= p:
            for col in (R_SCORES, R_TOTALS, R_BLOCKED, R_PRIO_POS, R_PROG_BY, R_WON, R_CALLED):
                res[col + i] = 0
            continue
        res[R_TOTALS + i] = g[S_TOTAL + i]
        res[R_BLOCKED + i] = g[S_LAST_BLOCKED + i]
        res[R_PROG_BY + i] = g[S_LAST_PROG + i]
        res[R_CALLED + i] = g[S_LAST_CALLED + i]
        res[R_WON + i] = 1 if game_over and is_winner(g, i) else 0
        res[R_PRIO_POS + g[S_LAST_PI + i]] = i
    return done


@maybe_njit
def step_game(g, prm, acts, seed, rew, res, decks, stacked):
    """One env step of one game: :func:`play_step`, rewards and infos, and -- with
    ``episode="game"`` when the game goes on -- the next hand's deal (N31; ``decks`` /
    ``stacked`` as :func:`deal_hand` takes them). Returns 0, 1 when the episode ended
    (``done``), or 2 when the next hand was dealt."""
    for i in range(g[C_P]):
        g[T_BEFORE + i] = hand_score(g, i)
    progress = play_step(g, prm, acts, seed)
    done = step_results(g, prm, progress, rew, res)
    if done:
        return 1
    if g[C_HAND_OVER] != 0:
        deal_hand(g, prm, seed, g[C_HAND] + 1, decks, stacked)
        return 2
    return 0


# ---------------------------------------------------------------------- observations
# One slot block (encoding.SLOT_FIELDS) and the global block (encoding.GLOBAL_FIELDS).
SLOT_WIDTH = 14
SLOT_STATE, SLOT_SUIT, SLOT_TOP, SLOT_OWNERS = 0, 3, 7, 8
G_PRESENT, G_STEP, G_STALL, G_REMEDY, G_HAND, G_SLOTS, G_HAND_OVER, G_RULES = (
    0,
    6,
    7,
    8,
    9,
    10,
    11,
    12,
)
NUM_RULES = 7


@maybe_njit
def write_seat_block(g, prm, fprm, seat, out, b):
    """Seat ``seat``'s block (``NertsEncoder.tables``, one row) at ``out[b:]`` (zeroed)."""
    nw = prm[P_W]
    jokers = prm[P_JOKERS] > 0
    off = prm[P_OFF : P_OFF + len(SEAT_OFFSETS)]
    out[b + off[O_PRESENT]] = 1.0
    nl = g[S_NLEN + seat]
    out[b + off[O_NSIZE]] = nl / fprm[FP_NS]
    if nl > 0:  # between steps the Nerts top is face up (N13)
        out[b + off[O_NTOP] + g[NERTS + seat * MAX_DECK + nl - 1]] = 1.0
    for w in range(nw):
        length = g[S_WORK_LEN + seat * MAX_W + w]
        if length == 0:
            continue
        wb = work_at(seat, w)
        cards = b + off[O_WCARDS] + w * MAX_DECK
        for i in range(length):
            out[cards + g[wb + i]] = 1.0
        out[b + off[O_WLEN] + w] = length / 13.0
        r0, _, _ = anchor(g, seat, w, jokers)
        if r0 >= 0:
            out[b + off[O_WBASE] + w] = r0 / 13.0
            out[b + off[O_WTOP] + w] = (r0 - length + 1) / 13.0
    wl = g[S_WLEN + seat]
    sl = g[S_SLEN + seat]
    if wl > 0:
        out[b + off[O_WASTE_TOP] + g[WASTE + seat * MAX_DECK + wl - 1]] = 1.0
    n = sl + wl
    out[b + off[O_SEEN]] = min(g[S_SEEN + seat] / n, 1.0) if n > 0 else 1.0
    per_deck = fprm[FP_PER_DECK]
    out[b + off[O_WASTE_SIZE]] = wl * per_deck
    out[b + off[O_STOCK_SIZE]] = sl * per_deck
    out[b + off[O_EXH]] = 1.0 if g[S_EXH + seat] != 0 else 0.0
    out[b + off[O_FOUND]] = g[S_FOUND + seat] * per_deck
    out[b + off[O_SCORE]] = (hand_score(g, seat) - fprm[FP_SCORE_LO]) / fprm[FP_SCORE_SPAN]
    out[b + off[O_TOTAL]] = g[S_TOTAL + seat] / fprm[FP_TARGET]
    if g[C_HAS_LAST] != 0:
        out[b + off[O_BLOCKED]] = 1.0 if g[S_LAST_BLOCKED + seat] != 0 else 0.0
        out[b + off[O_KIND] + kind_of(g[S_LAST_ACT + seat], prm)] = 1.0


@maybe_njit
def write_table(g, prm, fprm, rules, own, out):
    """Seat 0's observation (``NertsEncoder.encode``; its seat blocks are in absolute
    order, so it is also the table every other seat's observation rotates) into ``out``."""
    p = g[C_P]
    sw = prm[P_SW]
    for i in range(prm[P_OBS]):
        out[i] = 0.0
    for s in range(p):
        write_seat_block(g, prm, fprm, s, out, s * sw)
    if g[C_HAS_LAST] != 0:  # one-hot position of each seat in the last step's pi
        prio = prm[P_OFF + O_PRIO]
        for pos in range(p):
            out[g[S_LAST_PI + pos] * sw + prio + pos] = 1.0
    used = g[C_SLOTS_USED]
    s0 = prm[P_SLOTS0]
    for f in range(prm[P_F]):
        b = s0 + f * SLOT_WIDTH
        suit = g[SL_SUIT + f]
        if f >= used or suit < 0:
            out[b + SLOT_STATE] = 1.0
            continue
        out[b + SLOT_STATE + (2 if g[SL_DONE + f] != 0 else 1)] = 1.0
        out[b + SLOT_SUIT + suit] = 1.0
        out[b + SLOT_TOP] = g[SL_TOP + f] / 13.0
        for o in range(p):
            out[b + SLOT_OWNERS + o] = own[g[SL_OWN + f * MAX_P + o]]
    g0 = prm[P_GLOBAL0]
    for r in range(p):
        out[g0 + G_PRESENT + r] = 1.0
    out[g0 + G_STEP] = g[C_STEPS] / fprm[FP_MAXSTEPS]
    out[g0 + G_STALL] = min(g[C_STALL] / fprm[FP_STALL], 1.0)
    out[g0 + G_REMEDY] = 1.0 if g[C_REMEDY] != 0 else 0.0
    out[g0 + G_HAND] = g[C_HAND] / fprm[FP_MAXHANDS]
    out[g0 + G_SLOTS] = used / fprm[FP_F]
    out[g0 + G_HAND_OVER] = 1.0 if g[C_HAND_OVER] != 0 else 0.0
    out[g0 + G_RULES] = np.float32(p / 6.0)
    for i in range(1, NUM_RULES):
        out[g0 + G_RULES + i] = rules[i]


@maybe_njit
def rotate(table, p, seat, prm, out):
    """The observation of ``seat`` from the table (``NertsEncoder.rotate``): seat block
    ``r`` is seat ``(seat + r) % p``, slot owners rotated the same way."""
    sw = prm[P_SW]
    size = prm[P_OBS]
    for r in range(p):
        src = ((seat + r) % p) * sw
        dst = r * sw
        for i in range(sw):
            out[dst + i] = table[src + i]
    for i in range(p * sw, size):
        out[i] = table[i]
    s0 = prm[P_SLOTS0]
    for f in range(prm[P_F]):
        b = s0 + f * SLOT_WIDTH + SLOT_OWNERS
        for r in range(p):
            out[b + r] = table[b + (seat + r) % p]


@maybe_njit
def write_observations(g, prm, fprm, rules, own, obs, clear):
    """Every seat's observation: ``obs[seat]`` for the seats at the table (``obs`` has
    one row for each seat or six rows); with ``clear``, rows beyond the seats are zeroed
    (otherwise they are left as they are: zeros from an earlier call)."""
    p = g[C_P]
    table = obs[0]
    write_table(g, prm, fprm, rules, own, table)
    for seat in range(1, obs.shape[0]):
        if seat < p:
            rotate(table, p, seat, prm, obs[seat])
        elif clear:
            row = obs[seat]
            for i in range(prm[P_OBS]):
                row[i] = 0.0


@maybe_njit
def write_state(g, prm, fprm, rules, own, out):
    """``StateEncoder.encode``: the table, then every hidden card -- per seat (six,
    padded) and card id, in Nerts pile / stock / waste and its depth from the top."""
    size = prm[P_OBS]
    write_table(g, prm, fprm, rules, own, out)
    for i in range(size, out.shape[0]):
        out[i] = 0.0
    per_deck = fprm[FP_PER_DECK]
    for s in range(g[C_P]):
        for k in range(3):
            if k == 0:
                base, n = NERTS + s * MAX_DECK, g[S_NLEN + s]
            elif k == 1:
                base, n = STOCK + s * MAX_DECK, g[S_SLEN + s]
            else:
                base, n = WASTE + s * MAX_DECK, g[S_WLEN + s]
            for depth in range(n):
                c = g[base + n - 1 - depth]
                at = size + (s * MAX_DECK + c) * 4
                out[at + k] = 1.0
                out[at + 3] = depth * per_deck


# ---------------------------------------------------------------------- one game (nerts_v0)
@maybe_njit
def single_step(
    g, prm, fprm, rules, own, acts, seed, rew, res, decks, stacked, masks, ids, counts, obs, sc
):
    """``nerts_v0``'s step on one game: :func:`step_game`, then every seat's mask and
    observation (of the next hand when one was dealt) into the new arrays ``masks`` and
    ``obs``. Returns step_game's code."""
    code = step_game(g, prm, acts, seed, rew, res, decks, stacked)
    write_masks(g, prm, masks, ids, counts, sc, False)
    write_observations(g, prm, fprm, rules, own, obs, True)
    return code


@maybe_njit
def single_emit(g, prm, fprm, rules, own, masks, ids, counts, obs, sc):
    """Every seat's mask and observation of the current state (after a reset or a load)."""
    write_masks(g, prm, masks, ids, counts, sc, False)
    write_observations(g, prm, fprm, rules, own, obs, True)


# ---------------------------------------------------------------------- B games
@maybe_njit
def start_slot(g, prm, b, key0, episode, choices, slot_n, decks):
    """Game ``episode`` of slot ``b`` (auto-reset): its seed and seat count from
    :func:`gnome_env.core.rng.game_stream` of the slot's key ``(key0, b)``; returns the seed."""
    seed, choice = rng.game_stream(key0, b, episode, choices.shape[0])
    n = slot_n if slot_n > 0 else choices[choice]
    new_game(g, prm, n, seed, decks, 0)
    return seed


@maybe_njit
def emit_game(g, prm, fprm, rules, own, masks, ids, counts, obs, obs_rows, sc, fresh):
    """One game's masks and, with ``obs_rows`` 6 or 1, observations or table (``fresh``:
    the buffers hold nothing of this game yet, clear them)."""
    write_masks(g, prm, masks, ids, counts, sc, not fresh)
    if obs_rows == 6:
        write_observations(g, prm, fprm, rules, own, obs, fresh)
    elif obs_rows == 1:
        write_table(g, prm, fprm, rules, own, obs[0])


@maybe_njit
def emit_batch(st, prm, fprm, rules, own, masks, ids, counts, obs, obs_rows, sc):
    """Masks (and observations) of every game, buffers cleared first (after a reset)."""
    for b in range(st.shape[0]):
        out = (masks[b], ids[b], counts[b], obs[b])
        emit_game(st[b], prm, fprm, rules, own, *out, obs_rows, sc, True)


@maybe_njit
def step_batch(
    st, prm, fprm, rules, own, acts, seeds, keys, episodes, choices, slot_n, rew, res, decks,
    masks, ids, counts, obs, obs_rows, sc,
):  # fmt: skip
    """One step of every game (actions ``acts[b, seat]``, legal), rewards and infos into
    ``rew`` / ``res``; a game whose episode ended starts the slot's next game (auto-reset);
    then every game's masks and observations, updating the previous step's buffers."""
    for b in range(st.shape[0]):
        g = st[b]
        code = step_game(g, prm, acts[b], seeds[b], rew[b], res[b], decks, 0)
        if code == 1:
            episodes[b] += 1
            seeds[b] = start_slot(g, prm, b, keys[b], episodes[b], choices, slot_n[b], decks)
        out = (masks[b], ids[b], counts[b], obs[b])
        emit_game(g, prm, fprm, rules, own, *out, obs_rows, sc, code == 1)


@maybe_njit
def sample_batch(counts, ids, u, out):
    """A uniformly random legal action per seat: ``ids[b, s, floor(u[b, s] * count)]``
    (0 for an absent seat)."""
    for b in range(counts.shape[0]):
        for s in range(counts.shape[1]):
            n = counts[b, s]
            if n == 0:
                out[b, s] = 0
                continue
            k = int(u[b, s] * n)
            if k >= n:
                k = n - 1
            out[b, s] = ids[b, s, k]


@maybe_njit
def observe_batch(st, prm, fprm, rules, own, obs):
    """Every seat's observation of every game into ``obs`` ``[B, 6, OBS]`` (zeros for
    absent seats)."""
    for b in range(st.shape[0]):
        write_observations(st[b], prm, fprm, rules, own, obs[b], True)
