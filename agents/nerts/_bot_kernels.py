"""Compiled Nerts bots: ``greedy`` and ``expert`` over the batched engine's flat game rows.

:class:`agents.nerts.bots.GreedyNertsAgent` and :class:`agents.nerts.expert.ExpertNertsAgent`
(the references, unchanged) rewritten over one ``int32`` row of
:mod:`gnome_env.nerts._kernels`, so that a trainer or a search can let bots play many games
without building a :class:`~gnome_env.nerts.information.NertsView` per seat and step.

One function, :func:`bot_decide`, plays both: greedy is the expert with every switch off,
as :class:`~agents.nerts.expert.ExpertSettings` defines it. Everything it reads is public
(N34): the tops, the work piles, the slots, the hand scores, the Nerts pile sizes and the
N24 flags -- never a face-down Nerts card, a stock or a waste card under the top (N35).
The legal ids it chooses from are the engine's own (``seat_legal``), ascending, as
``view.legal_actions`` lists them. ``tests/nerts/test_nerts_bot_kernels.py`` holds every
decision equal to the Python bots' over whole games (2-6 seats and the variants), with numba
and without.

Settings codes (``kind``): 0 no bot, 1 greedy, 2 expert (starving at 2 players only, the
default), 3 expert starving at every table, 4 expert never starving.
"""

from __future__ import annotations

import numpy as np

from gnome_env.core.jit import compile_notice, maybe_njit
from gnome_env.nerts import _kernels as K

compile_notice(__file__)

KIND_NONE, KIND_GREEDY, KIND_EXPERT, KIND_EXPERT_STARVE, KIND_EXPERT_NO_STARVE = range(5)

# Scratch layout (int64): the other seats' predicted plays, then one category per legal id.
PRED_SLOT = 0  # + seat
PRED_CARD = PRED_SLOT + K.MAX_P
CAT = PRED_CARD + K.MAX_P  # + index into ids
CAT_NONE, CAT_NERTS, CAT_BUSY, CAT_IDLE, CAT_WITHHELD = 0, 1, 2, 3, 4


def scratch_size(n_actions: int) -> int:
    """Length of the int64 scratch :func:`bot_decide` needs for ``n_actions`` ids."""
    return CAT + int(n_actions)


# ---------------------------------------------------------------------- small reads
@maybe_njit
def _top(g, seat, s):
    """The card on top of source ``s`` of ``seat`` (0 Nerts, 1 waste, 2 + w), -1 if empty."""
    return K.source_top(g, seat, s)[1]


@maybe_njit
def _work_len(g, seat, w):
    return g[K.S_WORK_LEN + seat * K.MAX_W + w]


@maybe_njit
def _natural(x):
    return 0 <= x < K.NATURAL


@maybe_njit
def _fits_on(card, below):
    """``agents.nerts.bots.fits_on``: natural cards only, one rank lower, other colour."""
    if not _natural(card) or not _natural(below):
        return False
    return K.RANK[card] == K.RANK[below] - 1 and K.COLOUR[card] != K.COLOUR[below]


@maybe_njit
def _playable(card, sc):
    """``playable_to_foundation``: a natural card that is an ace or fits an open slot."""
    if not _natural(card):
        return False
    return K.RANK[card] == 1 or sc[K.SC_NEED + card] != 0


@maybe_njit
def _first_slot(bits):
    f = 0
    while bits & 1 == 0:
        bits >>= 1
        f += 1
    return f


@maybe_njit
def _best_other(g, seat):
    p = g[K.C_P]
    best = -(1 << 30)
    for i in range(p):
        if i != seat:
            s = K.hand_score(g, i)
            if s > best:
                best = s
    return best


@maybe_njit
def _predict_card(x, seat, sc, bs):
    """Whether greedy plays card ``x`` (a top of ``seat``) to a foundation: an ace onto a new
    one (slot -1), another natural card onto the lowest slot that needs it; recorded in ``bs``."""
    if not _natural(x):
        return False
    if K.RANK[x] == 1:
        bs[PRED_CARD + seat] = x
        return True
    bits = sc[K.SC_NEED + x]
    if bits == 0:
        return False
    bs[PRED_SLOT + seat] = _first_slot(bits)
    bs[PRED_CARD + seat] = x
    return True


@maybe_njit
def _predict(g, prm, seat, sc, bs):
    """``agents.nerts.expert.predicted_play`` of ``seat`` into ``bs``: greedy's foundation
    play, (slot, card); (-1, -1) with none or when the seat is expected to call."""
    bs[PRED_SLOT + seat] = -1
    bs[PRED_CARD + seat] = -1
    if prm[K.P_AUTO] == 0 and g[K.S_NLEN + seat] == 0:
        if K.hand_score(g, seat) >= _best_other(g, seat):
            return
    for s in range(2):  # the Nerts top, then the waste top
        if _predict_card(_top(g, seat, s), seat, sc, bs):
            return
    for length in range(1, K.RUN + 1):  # work tops, shortest pile first (stable)
        for w in range(prm[K.P_W]):
            if _work_len(g, seat, w) != length:
                continue
            if _predict_card(_top(g, seat, 2 + w), seat, sc, bs):
                return


@maybe_njit
def _contested(f, p, bs):
    if f < 0:
        return 0
    k = 0
    for j in range(p):
        if bs[PRED_SLOT + j] == f:
            k += 1
    return k


@maybe_njit
def _on_other_top(g, prm, me, card):
    """Whether another seat has ``card`` as its Nerts top, waste top or a work-pile top."""
    p = g[K.C_P]
    for j in range(p):
        if j == me:
            continue
        for s in range(2 + prm[K.P_W]):
            if _top(g, j, s) == card:
                return True
    return False


@maybe_njit
def _found_play(a, prm):
    """(source s, slot f or -1) of a foundation play id (N36)."""
    b_new = prm[K.P_B_NEW]
    if a < b_new:
        rel = a - 5
        return rel // prm[K.P_F], rel % prm[K.P_F]
    return (a - b_new) // 4, -1


@maybe_njit
def _is_found(a, prm):
    return 5 <= a < prm[K.P_B_WORK]


@maybe_njit
def _is_idle(g, prm, me, s, f, card, sc, bs):
    """``ExpertNertsAgent.is_idle``: a waste or work card's foundation play that does nothing
    for the seat now."""
    if not _natural(card):
        return False
    if _contested(f, g[K.C_P], bs) > 0 or _on_other_top(g, prm, me, card):
        return False
    if K.RANK[card] < K.KING_RANK:
        for t in range(2 + prm[K.P_W]):
            if _top(g, me, t) == card + 1:
                return False
    if s >= 2:
        w = s - 2
        length = _work_len(g, me, w)
        if length == 1:
            return False
        under = g[K.work_at(me, w) + length - 2]
        if _playable(under, sc) or _fits_on(_top(g, me, 0), under):
            return False
    return True


@maybe_njit
def _feeds_other(g, prm, me, card):
    if not _natural(card) or K.RANK[card] == K.KING_RANK:
        return False
    return _on_other_top(g, prm, me, card + 1)


@maybe_njit
def _pick(g, prm, me, ids, n, bs, cat, avoid):
    """Greedy's pick among the foundation plays of category ``cat``: Nerts top, waste top,
    then the shortest work pile; among equal slots the fewest predicted rivals; -1 if none."""
    p = g[K.C_P]
    best = -1
    k0 = k1 = k2 = 0
    for i in range(n):
        if bs[CAT + i] != cat:
            continue
        a = ids[i]
        s, f = _found_play(a, prm)
        key0 = s if s < 2 else 2
        key1 = _work_len(g, me, s - 2) if s >= 2 else 0
        key2 = _contested(f, p, bs) if avoid else 0
        if best < 0 or (key0, key1, key2) < (k0, k1, k2):
            best, k0, k1, k2 = a, key0, key1, key2
    return best


@maybe_njit
def _source_move(prm, me, g, ids, n, t, kind_lo, kind_hi, need_nonempty):
    """The first id in ``[kind_lo, kind_hi)`` (to-work or slide ids, ``t * W + w`` from the
    base) with source ``t``, onto a non-empty pile when ``need_nonempty``; -1 if none."""
    nw = prm[K.P_W]
    for i in range(n):
        a = ids[i]
        if a < kind_lo or a >= kind_hi:
            continue
        rel = a - kind_lo
        if rel // nw != t:
            continue
        if need_nonempty and _work_len(g, me, rel % nw) == 0:
            continue
        return a
    return -1


@maybe_njit
def _nerts_or_waste_move(g, prm, me, ids, n, t, allow_empty):
    """Greedy's Nerts-top (t = 0) or waste-top (t = 1) move onto a run, else slid under a
    pile, else (when ``allow_empty``) into an empty pile."""
    b_work, b_move, b_slide = prm[K.P_B_WORK], prm[K.P_B_MOVE], prm[K.P_B_SLIDE]
    a = _source_move(prm, me, g, ids, n, t, b_work, b_move, True)
    if a >= 0:
        return a
    a = _source_move(prm, me, g, ids, n, t, b_slide, b_slide + 2 * prm[K.P_W], False)
    if a >= 0 or not allow_empty:
        return a
    return _source_move(prm, me, g, ids, n, t, b_work, b_move, False)


@maybe_njit
def _work_move(g, prm, me, ids, n, sc):
    """Greedy's moves between work piles that lead to progress next step (-1 if none)."""
    nw = prm[K.P_W]
    b_move, b_slide = prm[K.P_B_MOVE], prm[K.P_B_SLIDE]
    nerts_top = _top(g, me, 0)
    best = -1
    br = bc = 0
    for i in range(n):
        a = ids[i]
        if a < b_move or a >= b_slide:
            continue
        rel = a - b_move
        pair = rel // K.RUN
        c = rel % K.RUN + 1
        w = pair // nw
        v = pair % nw
        lw = _work_len(g, me, w)
        lv = _work_len(g, me, v)
        if c < lw:
            under = g[K.work_at(me, w) + lw - c - 1]
            if _playable(under, sc):
                rank = 0
            elif _fits_on(nerts_top, under):
                rank = 1
            else:
                continue
            if lv == 0:
                rank += 2
        elif lv > 0 and g[K.S_NLEN + me] > 0:
            rank = 4
        else:
            continue
        if best < 0 or (rank, c) < (br, bc):
            best, br, bc = a, rank, c
    return best


@maybe_njit
def bot_decide(g, prm, me, ids, n, sc, bs, kind):
    """The action of bot ``kind`` (1 greedy, 2-4 expert) for seat ``me`` of game row ``g``.

    ``ids[:n]``: the seat's legal ids, ascending (``seat_legal``); ``sc``: the engine's
    scratch with :func:`gnome_env.nerts._kernels.fill_need` of this state; ``bs``: int64
    scratch of :func:`scratch_size`. Plays exactly as the Python bot of that kind."""
    if n == 1:
        return ids[0]
    p = g[K.C_P]
    expert = kind >= KIND_EXPERT
    avoid = expert
    hold = expert
    defer = expert
    starve = kind == KIND_EXPERT_STARVE or (kind == KIND_EXPERT and p == 2)
    has_call = has_turn = has_recycle = has_shift = False
    for i in range(n):
        a = ids[i]
        if a == K.CALL:
            has_call = True
        elif a == K.TURN:
            has_turn = True
        elif a == K.RECYCLE:
            has_recycle = True
        elif a == K.SHIFT:
            has_shift = True
    for j in range(K.MAX_P):
        bs[PRED_SLOT + j] = -1
        bs[PRED_CARD + j] = -1
    if expert:
        for j in range(p):
            if j != me:
                _predict(g, prm, j, sc, bs)
    any_withheld = False
    for i in range(n):
        a = ids[i]
        bs[CAT + i] = CAT_NONE
        if not _is_found(a, prm):
            continue
        s, f = _found_play(a, prm)
        if s == 0:
            bs[CAT + i] = CAT_NERTS
            continue
        card = _top(g, me, s)
        if defer and _is_idle(g, prm, me, s, f, card, sc, bs):
            if starve and _feeds_other(g, prm, me, card):
                bs[CAT + i] = CAT_WITHHELD
                any_withheld = True
            else:
                bs[CAT + i] = CAT_IDLE
        else:
            bs[CAT + i] = CAT_BUSY
    move = _pick(g, prm, me, ids, n, bs, CAT_NERTS, avoid)
    if move < 0:
        move = _pick(g, prm, me, ids, n, bs, CAT_BUSY, avoid)
    if move < 0:
        move = _nerts_or_waste_move(g, prm, me, ids, n, 0, True)
    if move < 0:
        move = _work_move(g, prm, me, ids, n, sc)
    if move < 0:
        move = _pick(g, prm, me, ids, n, bs, CAT_IDLE, avoid)
    if move < 0:
        move = _nerts_or_waste_move(g, prm, me, ids, n, 1, g[K.S_NLEN + me] == 0)
    if has_call:
        if K.hand_score(g, me) >= _best_other(g, me) or (move < 0 and g[K.S_EXH + me] != 0):
            return K.CALL
    if move >= 0:
        return move
    if has_shift and g[K.S_EXH + me] != 0:
        return K.SHIFT
    if hold:
        x = _top(g, me, 1)
        if _natural(x) and K.RANK[x] != 1 and sc[K.SC_NEED + x] == 0:
            for j in range(p):
                if bs[PRED_CARD + j] == x - 1:
                    return K.WAIT
    if has_turn:
        return K.TURN
    if has_recycle:
        return K.RECYCLE
    if any_withheld:
        return _pick(g, prm, me, ids, n, bs, CAT_WITHHELD, avoid)
    return K.WAIT


@maybe_njit
def decide_row(g, prm, me, kind, ids, sc, bs):
    """:func:`bot_decide` for a row on its own: computes the seat's legal ids first."""
    K.fill_need(g, sc)
    n = K.seat_legal(g, prm, me, ids, sc)
    return bot_decide(g, prm, me, ids, n, sc, bs, kind)


@maybe_njit
def decide_batch(st, prm, ids, counts, kinds, sc, bs, out):
    """``out[b, s]`` = the action of bot ``kinds[b, s]`` for every seat with a bot
    (``kinds`` 0 leaves ``out`` as it is); ``ids`` / ``counts``: the engine's legal ids."""
    for b in range(st.shape[0]):
        g = st[b]
        filled = False
        for s in range(g[K.C_P]):
            kind = kinds[b, s]
            if kind == KIND_NONE or counts[b, s] == 0:
                continue
            if not filled:
                K.fill_need(g, sc)
                filled = True
            out[b, s] = bot_decide(g, prm, s, ids[b, s], counts[b, s], sc, bs, kind)


def empty_scratch(n_actions: int) -> np.ndarray:
    """A scratch array for :func:`bot_decide` / :func:`decide_batch`."""
    return np.zeros(scratch_size(n_actions), dtype=np.int64)
