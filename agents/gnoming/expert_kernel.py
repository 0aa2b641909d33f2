"""The Expert bot (:class:`agents.gnoming.expert.ExpertAgent`) compiled: the same action, much
faster.

:func:`expert_actions_batch` decides a batch of observation-token rows (``[N, T]`` int16, as
:class:`gnome_env.gnoming.vector.VectorGame` returns them) with their legal masks, exactly as
``ExpertAgent.decide(SeatView.from_tokens(tokens[i], masks[i], rules))`` does -- the same
action on every decision. The functions below are :mod:`agents.gnoming.expert` and
:mod:`agents.gnoming.heuristics` rewritten over integer and float arrays so that numba compiles them
(:func:`gnome_env.gnoming._kernels.maybe_njit`; with ``GNOME_NO_NUMBA=1`` they run as plain Python).

Exactness. Every branch, loop order and tie-break of the Python bot is kept, and every float
is computed with the same operations in the same order (IEEE arithmetic is deterministic, and
numba neither reassociates nor fuses without ``fastmath``). Two library calls need care:

* ``x ** 2`` (the variance of the unseen cards) is the C library's ``pow(x, 2.0)`` in
  CPython, which is not always ``x * x``; numba turns a constant exponent into a product, so
  the exponent comes from a run-time parameter (``F_TWO``) and both call ``pow``;
* ``math.erf`` (the normal distribution of :func:`agents.gnoming.heuristics.lowest_chance`) and
  ``pow`` with a fractional exponent (:meth:`Evaluator.completion_chance`) are the same C
  library functions in CPython and in numba.

``tests/gnoming/test_expert_kernel.py`` checks the agreement on positions from real games.

Representation. A card is its code (:mod:`gnome_env.gnoming.cards`); a face-down card (``None`` in
the Python bot) is ``DOWN``, a missing card (empty pile, no hand) ``NO_CARD``. A per-code
table is indexed by ``code + CODE0``. One decision works in two scratch arrays, ``wf``
(float64) and ``wi`` (int64), at the ``W_*`` / ``I_*`` offsets: the parameters (the rules'
``P_*`` and the deck's card codes in ``wi``, the expert's constants ``F_*`` in ``wf``; filled
in once per rules by :func:`expert_tables`), the card statistics
(:class:`agents.gnoming.heuristics.CardStats`), three :class:`~agents.gnoming.heuristics.Prepared`
layouts
(slot 0 the seat's own layout, slot 1 a layout after a placement, slot 2 an opponent's) and
the opponents' outlook (:meth:`agents.gnoming.expert._Context.opponent_outlook`). Two arrays rather
than many keep the calls cheap (numba passes every array as seven words); the innermost
function, :func:`line_eval`, is inlined.
"""

from __future__ import annotations

import math

import numpy as np

from agents import heuristics
from gnome_env.gnoming import _kernels
from gnome_env.gnoming import actions as A
from gnome_env.gnoming._kernels import (
    FIRST_KIND,
    LINES,
    PH_DISPLACED,
    PH_DRAW,
    PH_HAZARD,
    PH_OPENING,
    PH_PLACE,
    TOK_FILLED,
    TOK_FIRST_OUT,
    TOK_HAND,
    TOK_LAYOUTS,
    TOK_PHASE,
    TOK_PILE_TOPS,
    TOK_PRESENT,
    TOK_TURN_PLAYER,
    TOK_UNSEEN,
    line_value,  # R18, the kernels' own
    maybe_njit,
    token_offsets,
)
from gnome_env.gnoming.cards import HAZARD, HAZARD_POINTS, MAX_VALUE, MULLIGAN
from gnome_env.gnoming.config import MAX_PLAYERS, RulesConfig
from gnome_env.gnoming.encoding import FACE_DOWN
from gnome_env.gnoming.engine import FIRST_OUT_BONUS


def inline_njit(fn):
    """:func:`~gnome_env.gnoming._kernels.maybe_njit` for the innermost function
    (:func:`line_eval`):
    numba inlines it where it is called (``inline="always"``), which saves a call with all
    its array arguments per line evaluated; few call sites keep the compile time down."""
    if _kernels.numba is None:
        return fn
    try:
        return _kernels.numba.njit(cache=True, _nrt=False, inline="always")(fn)
    except (TypeError, KeyError, ValueError):  # pragma: no cover - as maybe_njit
        return _kernels.numba.njit(cache=True, inline="always")(fn)


# Plain ints and floats (numba freezes module globals into the compiled code).
HAZARD_CODE = HAZARD
MULLIGAN_CODE = MULLIGAN
HAZ_POINTS = HAZARD_POINTS  # R19
BONUS = FIRST_OUT_BONUS  # R21
FACE_DOWN_CAT = FACE_DOWN
MAX_SEATS = MAX_PLAYERS
PLACEHOLDER = heuristics._PLACEHOLDER  # a face-down card in layout_estimate
DOWN = -1000  # a face-down card (None)
NO_CARD = -2000  # no card: an empty pile, no hand
CODE0 = 128  # per-code tables: index code + CODE0
CODE_SLOTS = 256
assert MAX_VALUE + CODE0 < CODE_SLOTS and HAZARD + CODE0 < CODE_SLOTS and CODE0 > MAX_VALUE

DRAW, TAKE_A, TAKE_B, PLACE = A.DRAW, A.TAKE_A, A.TAKE_B, A.PLACE
DISCARD_A, DISCARD_B, BOUNCE, FLIP, DECLINE = A.DISCARD_A, A.DISCARD_B, A.BOUNCE, A.FLIP, A.DECLINE
NUM_ACTIONS = A.NUM_ACTIONS

# ---------------------------------------------------------------------- parameters
# prm (int64): rules and the expert's switches
P_KINDS = 0  # number of card kinds K
P_DISCARD_TAKEN = 1  # R9 discard_taken_card
P_TIE_LOWEST = 2  # R21 first_out_tie_is_lowest
P_LOOKAHEAD = 3  # ExpertAgent.bounce_lookahead
P_HAZARD_FLIP = 4  # ExpertAgent.hazard_flip
P_NUM_OPENING = 5  # len(ExpertAgent.opening)
P_OPENING = 6  # + i: ExpertAgent.opening[i]
NUM_PRM = P_OPENING + 9
# fpr (float64): the expert's constants
F_WEIGHT = 0
F_WEIGHT2 = 1
F_SIGHTS = 2  # sights_per_turn
F_PACE = 3
F_LAST_GAIN = 4  # last_turn_gain
F_LAST_SD = 5  # last_turn_sd
F_MARGIN = 6  # bounce_margin
F_TWO = 7  # 2.0, the exponent of a square (pow, as CPython's ``x ** 2``)
F_DEFAULT_MEAN = 8
F_SQRT2 = 9  # math.sqrt(2.0)
NUM_FPR = 10

# ---------------------------------------------------------------------- scratch layout
# wf (float64)
W_MEAN = 0  # CardStats.mean
W_SIGHTS = 2  # Evaluator._sights
W_PREP = 8  # + PREP_SIZE * slot: a Prepared layout
PREP_SIZE = 64
PR_P = 0  # + line: chance the line matches
PR_V = 6  # + line: its value
PR_POT = 12  # + line: its potential
PR_PTS = 18  # + pos
PR_FLEX = 27  # + pos: 1.0 if scaled
PR_CONTRIB = 36  # + pos
PR_TOTAL = 45  # expected - potential
PR_EXPECTED = 46
PR_BEFORE = 47  # + pos: value_at's sum before the new lines (total + the old row and column)
PR_MISS = 56  # + line: 1 - its chance to match
W_OPP_MEAN = W_PREP + 3 * PREP_SIZE  # + opponent: expected final score
W_OPP_SD = W_OPP_MEAN + MAX_SEATS
W_PLAIN = W_OPP_SD + MAX_SEATS  # + i: values of _best_place's plain placements
W_FPR = 240  # + F_*: the expert's constants (fpr)
W_FILL = 256  # + code + CODE0: CardStats.fill_probability(code)
W_CHANCE = W_FILL + CODE_SLOTS  # + code + CODE0: Evaluator.completion_chance, -1 unknown
WF_SIZE = W_CHANCE + CODE_SLOTS
# wi (int64)
I_TOTAL = 0  # CardStats.total
I_MULLIGANS = 1  # CardStats.mulligans
I_LAST_TURN = 2  # _Context.last_turn
I_OPPONENTS = 3  # opponents in the outlook; -1 until computed
I_N = 4  # seats
I_SEAT = 5  # the deciding seat (absolute)
I_FILLED = 6  # positions filled this turn (bit mask)
I_TURN_PLAYER = 7  # relative to the seat
I_DOWN = 8  # + slot: face-down cards of the Prepared layout
I_LAY = 16  # + 9 * slot + pos: the Prepared layouts
I_TMP = 48  # + pos: a scratch layout (scores)
I_NEXT = 64  # + pos: a scratch layout (the next player's, choose_discard_pile)
I_PLAIN_Q = 80  # + i: positions of _best_place's plain placements
I_PRM = 96  # + P_*: the rules parameters (prm)
I_COUNT = 128  # + code + CODE0: unseen copies
I_KCODE = I_COUNT + CODE_SLOTS  # + kind: its card code (kcode)
WI_SIZE = I_KCODE + CODE_SLOTS
assert W_PLAIN + 9 <= W_FPR and W_FPR + NUM_FPR <= W_FILL and PR_MISS + 6 <= PREP_SIZE
assert I_LAY + 27 <= I_TMP and I_PLAIN_Q + 9 <= I_PRM and I_PRM + NUM_PRM <= I_COUNT


# ====================================================================== heuristics
@maybe_njit
def card_of(cat, wi):
    """The card code of a token category (``DOWN`` face down, ``NO_CARD`` none / absent)."""
    if cat == FACE_DOWN_CAT:
        return DOWN
    if cat < FIRST_KIND:
        return NO_CARD
    return wi[I_KCODE + cat - FIRST_KIND]


@inline_njit
def completion_chance(value, wf):
    """Evaluator.completion_chance: a filler of a line of ``value`` in the turns left."""
    q = wf[W_CHANCE + value + CODE0]
    if q < 0.0:
        sights = wf[W_SIGHTS]
        f = wf[W_FILL + value + CODE0]
        q = 1.0 - float(1.0 - f) ** float(sights) if sights > 0 else 0.0
        wf[W_CHANCE + value + CODE0] = q
    return q


@inline_njit
def line_eval(a, b, c, wf, wi):
    """Evaluator.line (with heuristics.line_shape): ``(p, v, potential)`` of a line."""
    unknown = 0
    mulls = 0
    blocked = False
    known = 0
    npos = 0
    p0 = 0
    p1 = 0
    p2 = 0
    for code in (a, b, c):
        if code == DOWN:
            unknown += 1
        elif code == MULLIGAN_CODE:
            mulls += 1
        elif code < 0 or code == HAZARD_CODE:
            blocked = True
            known += HAZ_POINTS if code == HAZARD_CODE else code
        else:
            if npos == 0:
                p0 = code
            elif npos == 1:
                p1 = code
            else:
                p2 = code
            npos += 1
            known += code
    if npos == 0:
        return 0.0, 0, 0.0
    if npos == 1 or p0 == p1:
        value = p0
    elif npos == 3 and p1 == p2:
        value = p1
    elif npos == 3 and p0 == p2:
        value = p0
    else:  # no pair: the highest
        value = p0 if p0 > p1 else p1
        if npos == 3 and p2 > value:
            value = p2
    same = 0
    if p0 == value:
        same += 1
    if npos > 1 and p1 == value:
        same += 1
    if npos > 2 and p2 == value:
        same += 1
    fillers = mulls + same
    if npos > same:
        blocked = True
    nonfill = 3 - fillers
    if nonfill == 0:
        return 1.0, value, 0.0
    p = 0.0
    if not blocked and nonfill == unknown:  # only face-down cards stand in the way
        total = wi[I_TOTAL]
        f = wf[W_FILL + value + CODE0]
        if unknown == 1:
            p = f
        elif total > 1:
            t = (f * total - 1) / (total - 1)
            p = f * (t if t > 0.0 else 0.0)  # max(0.0, t)
    gain = known + unknown * wf[W_MEAN] + value
    q = completion_chance(value, wf)
    if nonfill == 1:
        pot = wf[W_FPR + F_WEIGHT] * q * gain * (1.0 - p)
    else:
        pot = wf[W_FPR + F_WEIGHT2] * q * q * gain * (1.0 - p)
    return p, value, pot


@maybe_njit
def line_of(a, b, c, wf, wi):
    """:func:`line_eval`, not inlined (for the callers off the hot path)."""
    return line_eval(a, b, c, wf, wi)


@maybe_njit
def prepare(slot, wf, wi):
    """Evaluator.prepare of the layout in ``slot`` (I_LAY) into its W_PREP block."""
    lay = I_LAY + 9 * slot
    pr = W_PREP + PREP_SIZE * slot
    for li in range(6):
        a = LINES[li, 0]
        b = LINES[li, 1]
        c = LINES[li, 2]
        p, v, pot = line_of(wi[lay + a], wi[lay + b], wi[lay + c], wf, wi)
        wf[pr + PR_P + li] = p
        wf[pr + PR_V + li] = v
        wf[pr + PR_POT + li] = pot
    total = 0.0
    for li in range(6):
        total -= wf[pr + PR_V + li] * wf[pr + PR_P + li]
        wf[pr + PR_MISS + li] = 1.0 - wf[pr + PR_P + li]
    mean = wf[W_MEAN]
    down = 0
    for q in range(9):
        code = wi[lay + q]
        if code == DOWN:
            point = mean
            scaled = True
            down += 1
        elif code <= 0:
            point = float(code)
            scaled = False
        elif code == HAZARD_CODE:
            point = float(HAZ_POINTS)
            scaled = False
        else:
            point = float(code)
            scaled = True
        wf[pr + PR_PTS + q] = point
        wf[pr + PR_FLEX + q] = 1.0 if scaled else 0.0
        if scaled:
            point = point * wf[pr + PR_MISS + q // 3] * wf[pr + PR_MISS + 3 + q % 3]
        wf[pr + PR_CONTRIB + q] = point
        total += point
    potential = 0.0
    for li in range(6):
        potential += wf[pr + PR_POT + li]
    wf[pr + PR_EXPECTED] = total
    value = total - potential
    wf[pr + PR_TOTAL] = value
    wi[I_DOWN + slot] = down
    for pos in range(9):  # the first terms of value_at, in its order
        r = pos // 3
        k = 3 + pos % 3
        wf[pr + PR_BEFORE + pos] = (
            value
            + wf[pr + PR_V + r] * wf[pr + PR_P + r]
            + wf[pr + PR_POT + r]
            + wf[pr + PR_V + k] * wf[pr + PR_P + k]
            + wf[pr + PR_POT + k]
        )


@maybe_njit
def value_at(slot, pos, code, wf, wi):
    """Evaluator.value_at: the value of ``slot``'s layout with ``code`` at ``pos``."""
    lay = I_LAY + 9 * slot
    pr = W_PREP + PREP_SIZE * slot
    r = pos // 3
    k = 3 + pos % 3
    lr_p = lr_pot = lk_p = lk_pot = 0.0
    lr_v = lk_v = 0
    for t in range(2):  # the row, then the column (one call site: line_eval is inlined)
        a = 3 * r if t == 0 else k - 3
        step = 1 if t == 0 else 3
        x0 = code if a == pos else wi[lay + a]
        x1 = code if a + step == pos else wi[lay + a + step]
        x2 = code if a + 2 * step == pos else wi[lay + a + 2 * step]
        p, v, pot = line_eval(x0, x1, x2, wf, wi)
        if t == 0:
            lr_p, lr_v, lr_pot = p, v, pot
        else:
            lk_p, lk_v, lk_pot = p, v, pot
    total = wf[pr + PR_BEFORE + pos] - lr_v * lr_p - lr_pot - lk_v * lk_p - lk_pot
    for i in range(3):
        j = 3 * r + i
        if j != pos and wf[pr + PR_FLEX + j] != 0.0:
            total += (
                wf[pr + PR_PTS + j] * (1.0 - lr_p) * wf[pr + PR_MISS + 3 + j % 3]
                - wf[pr + PR_CONTRIB + j]
            )
    for i in range(3):
        j = k - 3 + 3 * i
        if j != pos and wf[pr + PR_FLEX + j] != 0.0:
            total += (
                wf[pr + PR_PTS + j] * (1.0 - lk_p) * wf[pr + PR_MISS + j // 3]
                - wf[pr + PR_CONTRIB + j]
            )
    total -= wf[pr + PR_CONTRIB + pos]
    if code <= 0:
        total += code
    elif code == HAZARD_CODE:
        total += HAZ_POINTS
    else:
        total += code * (1.0 - lr_p) * (1.0 - lk_p)
    return total


@maybe_njit
def score_codes(wi, lay):
    """scoring.layout_score_codes of the layout at ``wi[lay:lay + 9]``, a face-down card
    standing as PLACEHOLDER (as heuristics.layout_estimate masks it)."""
    in_line = 0
    total = 0
    for li in range(6):
        a = LINES[li, 0]
        b = LINES[li, 1]
        c = LINES[li, 2]
        ca = wi[lay + a]
        cb = wi[lay + b]
        cc = wi[lay + c]
        value = line_value(
            PLACEHOLDER if ca == DOWN else ca,
            PLACEHOLDER if cb == DOWN else cb,
            PLACEHOLDER if cc == DOWN else cc,
        )
        if value != 0:
            total -= value
            in_line |= (1 << a) | (1 << b) | (1 << c)
    for q in range(9):
        code = wi[lay + q]
        if code == DOWN:
            code = PLACEHOLDER
        if not (0 < code < HAZARD_CODE and (in_line >> q) & 1):
            total += HAZ_POINTS if code == HAZARD_CODE else code
    return total


@maybe_njit
def estimate(wi, lay, wf):
    """heuristics.layout_estimate at the mean unseen card (expected_layout_score)."""
    hidden = 0
    for q in range(9):
        if wi[lay + q] == DOWN:
            hidden += 1
    return score_codes(wi, lay) + (wf[W_MEAN] - PLACEHOLDER) * hidden


@maybe_njit
def mulligan_spots(wi, lay):
    """engine.mulligan_positions as (number of face-up mulligans, the position of the last)."""
    count = 0
    where = -1
    for q in range(9):
        if wi[lay + q] == MULLIGAN_CODE:
            count += 1
            where = q
    return count, where


@maybe_njit
def placeable(card, q, count, where):
    """heuristics.placeable given mulligan_spots."""
    if card != MULLIGAN_CODE:
        return True
    if count == 0:
        return True
    return count == 1 and q == where


@maybe_njit
def load_layout(tok, rel, wi, lay):
    """The layout of the seat ``rel`` places after the observer into ``wi[lay:lay + 9]``;
    returns its number of face-down cards."""
    down = 0
    for q in range(9):
        code = card_of(int(tok[TOK_LAYOUTS + 9 * rel + q]), wi)
        wi[lay + q] = code
        if code == DOWN:
            down += 1
    return down


@maybe_njit
def card_variance(wf, wi):
    """CardStats.var: the variance of the unseen cards' points (0 if none is unseen)."""
    total = wi[I_TOTAL]
    if not total:
        return 0.0
    mean = wf[W_MEAN]
    var = 0.0
    for k in range(wi[I_PRM + P_KINDS]):
        code = wi[I_KCODE + k]
        copies = wi[I_COUNT + code + CODE0]
        if copies:
            pts = HAZ_POINTS if code == HAZARD_CODE else code
            var += float(pts - mean) ** float(wf[W_FPR + F_TWO]) * copies  # pow, as CPython
    return var / total


@maybe_njit
def opponent_outlook(tok, wf, wi):
    """_Context.opponent_outlook into W_OPP_MEAN / W_OPP_SD (once per decision)."""
    if wi[I_OPPONENTS] >= 0:
        return
    n = wi[I_N]
    seat = wi[I_SEAT]
    var = card_variance(wf, wi)
    j = 0
    for s in range(n):  # absolute seat order, as the Python loop
        if s == seat:
            continue
        rel = s - seat
        if rel < 0:
            rel += n
        down = load_layout(tok, rel, wi, I_LAY + 18)
        prepare(2, wf, wi)
        wf[W_OPP_MEAN + j] = wf[W_PREP + 2 * PREP_SIZE + PR_EXPECTED] - wf[W_FPR + F_LAST_GAIN]
        wf[W_OPP_SD + j] = math.sqrt(
            down * var + float(wf[W_FPR + F_LAST_SD]) ** float(wf[W_FPR + F_TWO])
        )
        j += 1
    wi[I_OPPONENTS] = j


@maybe_njit
def lowest_chance(score, wf, wi):
    """heuristics.lowest_chance of ``score`` against the opponents' outlook."""
    edge = 0.5 if wi[I_PRM + P_TIE_LOWEST] != 0 else -0.5
    chance = 1.0
    for j in range(wi[I_OPPONENTS]):
        sd = wf[W_OPP_SD + j]
        x = (wf[W_OPP_MEAN + j] - score + edge) / (0.5 if sd < 0.5 else sd)
        chance *= 0.5 * (1.0 + math.erf(float(x / wf[W_FPR + F_SQRT2])))
    return chance


@maybe_njit
def outcome(slot, pos, code, tok, wf, wi):
    """ExpertAgent._outcome: ``slot``'s layout with ``code`` at ``pos`` at the end of the
    turn; turning the last face-down card (going out, R15) gets the R21 expectation."""
    lay = I_LAY + 9 * slot
    if wi[I_LAST_TURN] != 0 or wi[I_DOWN + slot] != 1 or wi[lay + pos] != DOWN:
        return value_at(slot, pos, code, wf, wi)
    for q in range(9):
        wi[I_TMP + q] = wi[lay + q]
    wi[I_TMP + pos] = code
    score = score_codes(wi, I_TMP)
    opponent_outlook(tok, wf, wi)
    chance = lowest_chance(score, wf, wi)
    return score + BONUS - 2 * BONUS * chance  # heuristics.first_out_value


@maybe_njit
def with_bounce(pos, card, keep, tok, wf, wi):
    """ExpertAgent._with_bounce: ``card`` put on the face-down card at ``pos`` (slot 0); the
    card turned up is discarded (``keep``) or bounced where best (R11)."""
    for q in range(9):
        wi[I_LAY + 9 + q] = wi[I_LAY + q]
    wi[I_LAY + 9 + pos] = card
    prepare(1, wf, wi)
    filled = wi[I_FILLED]
    count = wi[I_TOTAL]
    total = 0.0
    for kind in range(wi[I_PRM + P_KINDS]):
        shown = wi[I_KCODE + kind]
        copies = wi[I_COUNT + shown + CODE0]
        if copies == 0:
            continue
        prob = copies / count
        best = keep
        if 0 < shown < HAZARD_CODE:
            present = False
            for q in range(9):
                if wi[I_LAY + 9 + q] == shown:
                    present = True
            if present:
                for q in range(9):
                    if q == pos or (filled >> q) & 1:
                        continue
                    value = outcome(1, q, shown, tok, wf, wi)
                    if value < best:
                        best = value
        total += prob * best
    return total if count else keep


@maybe_njit
def best_place(card, mask, use_legal, bounces, tok, wf, wi):
    """ExpertAgent._best_place on the own layout (slot 0): ``(value, action)``; with
    ``use_legal`` only the place actions of ``mask``, else every R12-legal position."""
    best_value = np.inf
    best_action = -1
    check = card == MULLIGAN_CODE and not use_legal
    count, where = mulligan_spots(wi, I_LAY)
    plain = 0
    for q in range(9):
        action = PLACE + q
        if use_legal and not mask[action]:
            continue
        if check and not placeable(card, q, count, where):
            continue  # R12
        value = outcome(0, q, card, tok, wf, wi)
        wf[W_PLAIN + plain] = value
        wi[I_PLAIN_Q + plain] = q
        plain += 1
        if value < best_value:
            best_value = value
            best_action = action
    if bounces and wi[I_DOWN] > 1 and wi[I_LAST_TURN] == 0:
        limit = best_value + wf[W_FPR + F_MARGIN]
        for i in range(plain):
            value = wf[W_PLAIN + i]
            q = wi[I_PLAIN_Q + i]
            if wi[I_LAY + q] == DOWN and value < limit:
                value = with_bounce(q, card, value, tok, wf, wi)
                if value < best_value or (value == best_value and PLACE + q < best_action):
                    best_value = value
                    best_action = PLACE + q
    return best_value, best_action


@maybe_njit
def usefulness(card, wi, lay, wf):
    """heuristics.usefulness of ``card`` to the layout at ``wi[lay:lay + 9]``."""
    if card == HAZARD_CODE:
        return 0.0
    base = estimate(wi, lay, wf)
    best = 0.0
    count, where = mulligan_spots(wi, lay)
    for q in range(9):
        if not placeable(card, q, count, where):
            continue
        old = wi[lay + q]
        wi[lay + q] = card
        gain = base - estimate(wi, lay, wf)
        wi[lay + q] = old
        if gain > best:
            best = gain
    return best


@maybe_njit
def choose_discard_pile(tok, mask, wf, wi):
    """heuristics.choose_discard_pile: cover the pile top that helps the next player most."""
    if mask[DISCARD_A] and not mask[DISCARD_B]:
        return DISCARD_A
    if mask[DISCARD_B] and not mask[DISCARD_A]:
        return DISCARD_B
    if not mask[DISCARD_A]:
        return -1  # no discard is legal (the Python bot never gets here)
    nxt = wi[I_TURN_PLAYER] + 1
    if nxt >= wi[I_N]:
        nxt -= wi[I_N]
    load_layout(tok, nxt, wi, I_NEXT)
    best_action = DISCARD_A
    best_help = -1.0
    for action in range(DISCARD_A, DISCARD_B + 1):
        top = card_of(int(tok[TOK_PILE_TOPS + action - DISCARD_A]), wi)
        helps = usefulness(top, wi, I_NEXT, wf) if top != NO_CARD else 0.0
        if helps > best_help:
            best_action = action
            best_help = helps
    return best_action


# ====================================================================== the decisions
@maybe_njit
def draw_value(keep, tok, wf, wi, mask):
    """ExpertAgent._draw_value: the best use of each unseen kind, weighted."""
    count = wi[I_TOTAL]
    total = 0.0
    for kind in range(wi[I_PRM + P_KINDS]):
        card = wi[I_KCODE + kind]
        copies = wi[I_COUNT + card + CODE0]
        if copies == 0:
            continue
        prob = copies / count
        if card == HAZARD_CODE:
            best = keep
        else:
            best, _ = best_place(card, mask, False, False, tok, wf, wi)
            best = keep if keep < best else best  # min(best, keep)
        total += prob * best
    if count == 0:
        return keep
    return total


@maybe_njit
def decide_draw(tok, mask, wf, wi):
    """ExpertAgent._draw: the lowest (value, action) of the pile tops and the draw pile."""
    keep = wf[W_PREP + PR_TOTAL]
    best_value = 0.0
    best_action = -1
    for action in range(TAKE_A, TAKE_B + 1):
        if not mask[action]:
            continue
        top = card_of(int(tok[TOK_PILE_TOPS + action - TAKE_A]), wi)
        value, _ = best_place(top, mask, False, False, tok, wf, wi)
        if wi[I_PRM + P_DISCARD_TAKEN] != 0:
            value = keep if keep < value else value  # min(value, keep)
        if best_action < 0 or value < best_value or (value == best_value and action < best_action):
            best_value = value
            best_action = action
    if mask[DRAW]:
        value = draw_value(keep, tok, wf, wi, mask)
        if best_action < 0 or value < best_value or (value == best_value and best_action > DRAW):
            best_value = value
            best_action = DRAW
    return best_action


@maybe_njit
def first_legal(mask):
    """The lowest legal action, -1 if none."""
    for a in range(NUM_ACTIONS):
        if mask[a]:
            return a
    return -1


@maybe_njit
def decide_place(tok, mask, wf, wi):
    """ExpertAgent._place: the best placement (bounce lookahead), else a discard."""
    hand = card_of(int(tok[TOK_HAND]), wi)
    value, action = best_place(hand, mask, True, wi[I_PRM + P_LOOKAHEAD] != 0, tok, wf, wi)
    if (mask[DISCARD_A] or mask[DISCARD_B]) and (
        action < 0 or value >= wf[W_PREP + PR_TOTAL] - 1e-9
    ):
        return choose_discard_pile(tok, mask, wf, wi)
    return action if action >= 0 else first_legal(mask)


@maybe_njit
def decide_displaced(tok, mask, wf, wi):
    """ExpertAgent._displaced: bounce where it lowers the value most, else discard."""
    card = card_of(int(tok[TOK_HAND]), wi)
    best_value = wf[W_PREP + PR_TOTAL] - 1e-9
    best_action = -1
    for action in range(BOUNCE, BOUNCE + 9):
        if mask[action]:
            value = outcome(0, action - BOUNCE, card, tok, wf, wi)
            if value < best_value:
                best_value = value
                best_action = action
    if best_action >= 0:
        return best_action
    return choose_discard_pile(tok, mask, wf, wi)


@maybe_njit
def decide_hazard_flip(mask, wf, wi):
    """ExpertAgent._hazard_flip: flip the card most likely to complete a line."""
    if wi[I_PRM + P_HAZARD_FLIP] == 0:
        return DECLINE
    best_action = -1
    best_p = -1.0
    for q in range(9):
        action = FLIP + q
        if not mask[action]:
            continue
        if best_action < 0:
            best_action = action
        r = 3 * (q // 3)
        c = q % 3
        p = 0.0
        p += line_of(wi[I_LAY + r], wi[I_LAY + r + 1], wi[I_LAY + r + 2], wf, wi)[0]
        p += line_of(wi[I_LAY + c], wi[I_LAY + c + 3], wi[I_LAY + c + 6], wf, wi)[0]
        if p > best_p + 1e-12:
            best_action = action
            best_p = p
    if best_action < 0:
        return DECLINE
    return best_action


@maybe_njit
def setup(tok, wf, wi):
    """_Context: card statistics, the own layout (prepared in slot 0), last turn, horizon."""
    kinds = wi[I_PRM + P_KINDS]
    n = 0
    for i in range(MAX_SEATS):
        n += int(tok[TOK_PRESENT + i])
    wi[I_N] = n
    wi[I_SEAT] = int(tok[TOK_UNSEEN + kinds])
    wi[I_TURN_PLAYER] = int(tok[TOK_TURN_PLAYER])
    filled = 0
    for q in range(9):
        if tok[TOK_FILLED + q] != 0:
            filled |= 1 << q
    wi[I_FILLED] = filled
    wi[I_OPPONENTS] = -1
    # CardStats
    total = 0
    points = 0
    mulligans = 0
    for k in range(kinds):
        code = wi[I_KCODE + k]
        copies = int(tok[TOK_UNSEEN + k])
        wi[I_COUNT + code + CODE0] = copies
        total += copies
        points += (HAZ_POINTS if code == HAZARD_CODE else code) * copies
        if code == MULLIGAN_CODE:
            mulligans = copies
    wi[I_TOTAL] = total
    wi[I_MULLIGANS] = mulligans
    wf[W_MEAN] = points / total if total else wf[W_FPR + F_DEFAULT_MEAN]
    for k in range(kinds):
        code = wi[I_KCODE + k]
        if total:
            wf[W_FILL + code + CODE0] = (wi[I_COUNT + code + CODE0] + mulligans) / total
        else:
            wf[W_FILL + code + CODE0] = 0.0
        wf[W_CHANCE + code + CODE0] = -1.0
    # the own layout, last turn and horizon
    own_down = load_layout(tok, 0, wi, I_LAY)
    last = tok[TOK_FIRST_OUT] != 0 or (tok[TOK_PHASE] == PH_DISPLACED and own_down == 0)
    wi[I_LAST_TURN] = 1 if last else 0
    if last:
        horizon = 0.0
    else:
        closest = 9
        for rel in range(1, n):
            down = 0
            for q in range(9):
                if tok[TOK_LAYOUTS + 9 * rel + q] == FACE_DOWN_CAT:
                    down += 1
            if down < closest:
                closest = down
        horizon = 1.0 + wf[W_FPR + F_PACE] * max(0, closest - 1)
    wf[W_SIGHTS] = (horizon if horizon > 0.0 else 0.0) * wf[W_FPR + F_SIGHTS]
    prepare(0, wf, wi)


@maybe_njit
def expert_decide(tok, mask, wf, wi):
    """ExpertAgent.decide on one token row and its legal mask."""
    legal = 0
    first = -1
    for a in range(NUM_ACTIONS):
        if mask[a]:
            if first < 0:
                first = a
            legal += 1
    if legal <= 1:
        return first
    phase = tok[TOK_PHASE]
    if phase == PH_OPENING:
        for i in range(wi[I_PRM + P_NUM_OPENING]):
            action = FLIP + wi[I_PRM + P_OPENING + i]
            if mask[action]:
                return action
        return first
    setup(tok, wf, wi)
    if phase == PH_HAZARD:
        return decide_hazard_flip(mask, wf, wi)
    if phase == PH_DRAW:
        return decide_draw(tok, mask, wf, wi)
    if phase == PH_PLACE:
        return decide_place(tok, mask, wf, wi)
    return decide_displaced(tok, mask, wf, wi)


@maybe_njit
def expert_batch(tokens, masks, wf, wi, out):
    """:func:`expert_decide` for every row of ``tokens`` / ``masks`` into ``out``."""
    for i in range(tokens.shape[0]):
        out[i] = expert_decide(tokens[i], masks[i], wf, wi)


# ====================================================================== Python side
_TABLES: dict[tuple[RulesConfig, type], tuple[np.ndarray, np.ndarray, int]] = {}


def expert_tables(
    rules: RulesConfig, agent: type | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """``(wf, wi, num_tokens)``: the scratch arrays of a decision with the parameters filled
    in (rules at I_PRM, card codes at I_KCODE, the expert's constants at W_FPR), for ``rules``
    and the expert class ``agent`` (default :class:`agents.gnoming.expert.ExpertAgent`; its
    constants
    are read from the class). Cached; copy them before use."""
    if agent is None:
        from agents.gnoming.expert import ExpertAgent

        agent = ExpertAgent
    key = (rules, agent)
    hit = _TABLES.get(key)
    if hit is not None:
        return hit
    kinds = rules.deck.kinds
    if len(kinds) > CODE_SLOTS:  # pragma: no cover - a deck has at most 2 * 99 + 2 kinds
        raise ValueError(f"a deck with {len(kinds)} card kinds is too large")
    wi = np.zeros(WI_SIZE, dtype=np.int64)
    wi[I_KCODE : I_KCODE + len(kinds)] = kinds
    prm = wi[I_PRM : I_PRM + NUM_PRM]
    prm[P_KINDS] = len(kinds)
    prm[P_DISCARD_TAKEN] = int(rules.discard_taken_card)
    prm[P_TIE_LOWEST] = int(rules.first_out_tie_is_lowest)
    prm[P_LOOKAHEAD] = int(bool(agent.bounce_lookahead))
    prm[P_HAZARD_FLIP] = int(bool(agent.hazard_flip))
    opening = [int(q) for q in agent.opening]
    if len(opening) > 9 or any(not 0 <= q < 9 for q in opening):
        raise ValueError(f"opening={agent.opening!r}: at most 9 positions in 0..8")
    prm[P_NUM_OPENING] = len(opening)
    prm[P_OPENING : P_OPENING + len(opening)] = opening
    wf = np.zeros(WF_SIZE, dtype=np.float64)
    fpr = wf[W_FPR : W_FPR + NUM_FPR]
    fpr[F_WEIGHT] = agent.weight
    fpr[F_WEIGHT2] = agent.weight2
    fpr[F_SIGHTS] = agent.sights_per_turn
    fpr[F_PACE] = agent.pace
    fpr[F_LAST_GAIN] = agent.last_turn_gain
    fpr[F_LAST_SD] = agent.last_turn_sd
    fpr[F_MARGIN] = agent.bounce_margin
    fpr[F_TWO] = 2.0
    fpr[F_DEFAULT_MEAN] = heuristics.DEFAULT_MEAN
    fpr[F_SQRT2] = math.sqrt(2.0)
    _, num_tokens = token_offsets(len(kinds))
    wf.setflags(write=False)
    wi.setflags(write=False)
    hit = _TABLES[key] = (wf, wi, num_tokens)
    return hit


def expert_actions_batch(
    tokens: np.ndarray, masks: np.ndarray, rules: RulesConfig, agent: type | None = None
) -> np.ndarray:
    """The action :class:`~agents.gnoming.expert.ExpertAgent` picks for each row, ``[N]`` int64.

    ``tokens`` ``[N, T]`` (``ObservationEncoder.tokens`` of the deciding seat) and ``masks``
    ``[N, 33]`` (its legal actions); ``rules`` the game's rules (the seat count is read from
    the tokens). The same result as ``agents.gnoming.features.expert_actions`` computed in Python.
    """
    wf, wi, num_tokens = expert_tables(rules, agent)
    tokens, masks = checked_batch(tokens, masks, num_tokens)
    out = np.empty(tokens.shape[0], dtype=np.int64)
    expert_batch(tokens, masks, wf.copy(), wi.copy(), out)
    return out


def checked_batch(
    tokens: np.ndarray, masks: np.ndarray, num_tokens: int
) -> tuple[np.ndarray, np.ndarray]:
    """``tokens`` as contiguous int16 ``[N, num_tokens]`` and ``masks`` as contiguous bool
    ``[N, 33]``, or a ValueError naming the shapes needed and given."""
    tokens = np.ascontiguousarray(tokens, dtype=np.int16)
    masks = np.ascontiguousarray(masks, dtype=np.bool_)
    if (
        tokens.ndim != 2
        or tokens.shape[1] != num_tokens
        or masks.shape != (tokens.shape[0], NUM_ACTIONS)
    ):
        raise ValueError(
            f"tokens [N, {num_tokens}] and masks [N, {NUM_ACTIONS}] are needed, got shapes "
            f"{tokens.shape} and {masks.shape}"
        )
    return tokens, masks


def game_decider(rules: RulesConfig):
    """``decide(game, seat) -> action``: Expert's decision for ``seat`` of a scalar
    :class:`~gnome_env.gnoming.engine.Game` under ``rules``, through the compiled Expert (the seat's
    tokens from :meth:`ObservationEncoder.tokens
    <gnome_env.gnoming.encoding.ObservationEncoder.tokens>`,
    the game's legal mask) -- the action ``ExpertAgent.decide(SeatView.from_game(game,
    seat))`` gives, several times faster. ``None`` when the kernels are not compiled. The
    arena uses it for its ``expert`` seats."""
    if not _kernels.COMPILED:
        return None
    from gnome_env.gnoming.encoding import ObservationEncoder

    wf, wi, _ = expert_tables(rules)
    wf, wi = wf.copy(), wi.copy()
    tokens = ObservationEncoder(rules).tokens

    def decide(game, seat: int) -> int:
        return int(expert_decide(tokens(game, seat), game.legal_mask(), wf, wi))

    return decide
