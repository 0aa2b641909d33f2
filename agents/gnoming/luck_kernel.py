"""The value function of the luck correction (:mod:`agents.gnoming.luck`), compiled.

Everything here is a function of the *public* state of a round -- the face-up cards of every
layout, the totals of the rounds before, who went out, the card in hand -- and of a fitted
parameter table (``agents/gnoming/luck_value.json``, written by
``training/gnoming/luck_fit.py``). Layouts are ``int64[n, 9]`` card codes with a ``bool[n, 9]``
``known`` mask; an unknown position's code is never read.

* :func:`layout_features` describes one layout by what is face up: the points of the positive
  cards outside complete matching lines (R18, R19), the negatives, the hazards, the complete
  lines' bonus, the open lines (a line with a face-down card whose face-up cards could still
  match) and how far the high cards stand above 6.
* The estimated final score of a layout in the round is a linear function of those features
  with coefficients per (phase, face-down count, :func:`clock`): phase :data:`PLAY` (nobody
  out) or :data:`ENDGAME` (someone went out, R15). Once the round is over (:data:`REVEAL`,
  R16) every layout is known and scored exactly (R18-R22).
* Win probabilities: predicted final totals ``F = totals + estimate``; a seat wins with
  probability ``softmax(-F / sigma)`` (the winner of independent Gumbel noises), where
  ``sigma^2`` grows with the face-down cards left and the rounds still to play. When the last
  round is over and every card is known, the probabilities are the exact R23 win shares.

:func:`event_values` evaluates, for every card a chance event could produce, the value of
every seat after it: the input of the correction's expectation.
"""

from __future__ import annotations

import numpy as np

from gnome_env.core.jit import COMPILED, numba
from gnome_env.gnoming._kernels import LINES as _LINES
from gnome_env.gnoming._kernels import line_value as _line_value

# Card codes (gnome_env.gnoming.cards): mulligan 0, hazard 100, numbered cards their value.
_MULLIGAN = 0
_HAZARD = 100
_HAZARD_POINTS = 10
_BONUS = 5  # R21

PLAY, ENDGAME, REVEAL = 0, 1, 2
#: Event kinds: a face-down card turned where it lies (R5, R13); a card drawn from the draw
#: pile into the hand (R7); a face-down card displaced into the hand (R10); every face-down
#: card turned at the end of a round (R16), one joint event.
REVEAL_AT, DRAWN, DISPLACED, REVEAL_ALL = 0, 1, 2, 3
#: The layout features, in order (the estimate is ``coef[phase, down, clock] @ features``).
FEATURES = ("one", "points", "negatives", "hazards", "lines", "open_lines", "high")
NUM_FEATURES = len(FEATURES)
NUM_FEATURES_CONST = 7  # the same, as a literal numba can fold
#: Buckets of :func:`clock`.
CLOCKS = 4
#: sigma^2 = s[phase, 0] + s[phase, 1] * mean face-down cards + SIGMA_ROUND^2 * rounds left
#: (the parameter table's "sigma"); the round's spread in its own column.


def _jit(fn):
    if not COMPILED:
        return fn
    return numba.njit(cache=True)(fn)


@_jit
def layout_score(vals) -> int:
    """R18-R20 score of a fully known layout (9 codes)."""
    in_line = np.zeros(9, dtype=np.bool_)
    total = 0
    for li in range(6):
        a, b, c = _LINES[li, 0], _LINES[li, 1], _LINES[li, 2]
        v = _line_value(vals[a], vals[b], vals[c])
        if v != 0:
            total -= v
            in_line[a] = True
            in_line[b] = True
            in_line[c] = True
    for p in range(9):
        code = vals[p]
        if code == _HAZARD:
            total += _HAZARD_POINTS
        elif code < 0 or (code > 0 and not in_line[p]):
            total += code
    return total


@_jit
def layout_features(vals, known, out) -> int:
    """Fill ``out`` (float64[NUM_FEATURES]) with the features of one layout; return how many
    of its cards are face down."""
    in_line = np.zeros(9, dtype=np.bool_)
    lines = 0.0
    open_lines = 0.0
    for li in range(6):
        a, b, c = _LINES[li, 0], _LINES[li, 1], _LINES[li, 2]
        if known[a] and known[b] and known[c]:
            v = _line_value(vals[a], vals[b], vals[c])
            if v != 0:
                lines -= v
                in_line[a] = True
                in_line[b] = True
                in_line[c] = True
        else:
            value = 0
            ok = True
            for q in (a, b, c):
                if not known[q]:
                    continue
                code = vals[q]
                if code == _MULLIGAN:
                    continue
                if code < 0 or code == _HAZARD or (value != 0 and code != value):
                    ok = False
                    break
                value = code
            if ok and value != 0:
                open_lines += 1.0
    points = 0.0
    negatives = 0.0
    hazards = 0.0
    high = 0.0
    down = 0
    for p in range(9):
        if not known[p]:
            down += 1
            continue
        code = vals[p]
        if code == _HAZARD:
            hazards += 1.0
        elif code < 0:
            negatives += code
        elif code > 0 and not in_line[p]:
            points += code
            if code > 6:
                high += code - 6
    out[0] = 1.0
    out[1] = points
    out[2] = negatives
    out[3] = hazards
    out[4] = lines
    out[5] = open_lines
    out[6] = high
    return down


@_jit
def clock(others_min_down: int) -> int:
    """How close the round is to its end, seen from one seat: the fewest face-down cards
    among the other seats (0-1, 2-3, 4-5, 6+ -> 0..3; someone about to go out ends it, R15)."""
    return min(others_min_down // 2, CLOCKS - 1)


@_jit
def layout_estimate(vals, known, phase: int, tb: int, coef, scratch) -> float:
    """The estimated final score of one layout in this round (exact when the round is over
    and the layout is fully known); ``tb`` is the seat's :func:`clock`."""
    down = layout_features(vals, known, scratch)
    if phase == REVEAL and down == 0:
        return float(layout_score(vals))
    total = 0.0
    for f in range(scratch.shape[0]):
        total += coef[phase, down, tb, f] * scratch[f]
    return total


@_jit
def _best_use(
    vals, known, card: int, filled: int, displaced: bool, phase: int, tb: int, coef, scratch
):
    """The lowest estimate the holder of ``card`` can reach with it: keep the layout (discard
    it) or put it face up at a position (for a displaced card, R11: only a positive card that
    matches a face-up positive card, at a position not filled this turn)."""
    best = layout_estimate(vals, known, phase, tb, coef, scratch)
    if card in (_MULLIGAN, _HAZARD) or card < 0:
        if displaced:
            return best
    elif displaced:
        match = False
        for p in range(9):
            if known[p] and vals[p] == card:
                match = True
        if not match:
            return best
    for p in range(9):
        if displaced and (filled >> p) & 1:
            continue
        old_v = vals[p]
        old_k = known[p]
        vals[p] = card
        known[p] = True
        e = layout_estimate(vals, known, phase, tb, coef, scratch)
        vals[p] = old_v
        known[p] = old_k
        if e < best:
            best = e
    return best


@_jit
def _round_scores(vals, first_out: int, tie_lowest: bool, out) -> None:
    """R18-R22 round scores of fully known layouts."""
    n = vals.shape[0]
    for s in range(n):
        out[s] = layout_score(vals[s])
    if first_out >= 0:
        mine = out[first_out]
        best_other = 1 << 30
        for s in range(n):
            if s != first_out and out[s] < best_other:
                best_other = out[s]
        if mine < best_other or (mine == best_other and tie_lowest):
            out[first_out] -= _BONUS
        else:
            out[first_out] += _BONUS


@_jit
def _values_of(
    vals,
    known,
    totals,
    phase,
    rounds_left,
    first_out,
    tie_lowest,
    holder,
    held,
    filled,
    displaced,
    coef,
    sigma,
    est,
    win,
    scratch,
    rs,
) -> None:
    """Win probabilities ``win[n]`` and predicted totals ``est[n]`` (totals of the rounds
    before plus the round's estimate) of a public state."""
    n = vals.shape[0]
    all_known = True
    down_sum = 0
    for s in range(n):
        rs[s] = 0
        for p in range(9):
            if not known[s, p]:
                all_known = False
                down_sum += 1
                rs[s] += 1
    if phase == REVEAL and all_known:
        _round_scores(vals, first_out, tie_lowest, rs)
        for s in range(n):
            est[s] = totals[s] + rs[s]
        if rounds_left == 0:  # R23, exactly
            best = 1e18
            for s in range(n):
                if est[s] < best:
                    best = est[s]
            best_last = 1 << 30
            for s in range(n):
                if est[s] == best and rs[s] < best_last:
                    best_last = rs[s]
            k = 0
            for s in range(n):
                if est[s] == best and rs[s] == best_last:
                    k += 1
            for s in range(n):
                win[s] = 1.0 / k if (est[s] == best and rs[s] == best_last) else 0.0
            return
        var = sigma[3, 0] * sigma[3, 0] * rounds_left
    else:
        for s in range(n):
            m = 9
            for o in range(n):
                if o != s and rs[o] < m:
                    m = rs[o]
            tb = clock(m)
            if s == holder:
                e = _best_use(vals[s], known[s], held, filled, displaced, phase, tb, coef, scratch)
            else:
                e = layout_estimate(vals[s], known[s], phase, tb, coef, scratch)
            est[s] = totals[s] + e
        var = (
            sigma[phase, 0]
            + sigma[phase, 1] * down_sum / n
            + sigma[3, 0] * sigma[3, 0] * rounds_left
        )
    scale = np.sqrt(max(var, 1e-6))
    lo = 1e18
    for s in range(n):
        if est[s] < lo:
            lo = est[s]
    z = 0.0
    for s in range(n):
        win[s] = np.exp(-(est[s] - lo) / scale)
        z += win[s]
    for s in range(n):
        win[s] /= z


@_jit
def state_values(
    vals, known, totals, phase, rounds_left, first_out, tie_lowest, coef, sigma, out_win, out_est
) -> None:
    """``out_win[s]`` and ``out_est[s]`` of one public state with no card in hand."""
    n = vals.shape[0]
    scratch = np.zeros(NUM_FEATURES_CONST, dtype=np.float64)
    rs = np.zeros(n, dtype=np.int64)
    _values_of(
        vals,
        known,
        totals,
        phase,
        rounds_left,
        first_out,
        tie_lowest,
        -1,
        0,
        0,
        False,
        coef,
        sigma,
        out_est,
        out_win,
        scratch,
        rs,
    )


@_jit
def event_values(
    vals,
    known,
    totals,
    phase,
    rounds_left,
    first_out,
    tie_lowest,
    kind,
    seat,
    pos,
    filled,
    cards,
    coef,
    sigma,
    out_win,
    out_est,
) -> None:
    """For each card ``cards[k]`` a chance event of ``kind`` could produce, the public state
    after it: ``out_win[k, s]`` (seat ``s``'s win probability) and ``out_est[k, s]`` (its
    predicted total). ``vals``/``known`` are the state after the event with position ``pos``
    of ``seat`` as it then is (:data:`REVEAL_AT`: the card lies there face up and is replaced
    by each alternative; :data:`DRAWN`, :data:`DISPLACED`: ``seat`` holds the card). The
    arrays are restored before returning."""
    n = vals.shape[0]
    scratch = np.zeros(NUM_FEATURES_CONST, dtype=np.float64)
    rs = np.zeros(n, dtype=np.int64)
    saved = vals[seat, pos] if kind == REVEAL_AT else 0
    holder = -1 if kind == REVEAL_AT else seat
    for k in range(cards.shape[0]):
        if kind == REVEAL_AT:
            vals[seat, pos] = cards[k]
        _values_of(
            vals,
            known,
            totals,
            phase,
            rounds_left,
            first_out,
            tie_lowest,
            holder,
            cards[k],
            filled,
            kind == DISPLACED,
            coef,
            sigma,
            out_est[k],
            out_win[k],
            scratch,
            rs,
        )
    if kind == REVEAL_AT:
        vals[seat, pos] = saved
