"""Compiled kernels of the vectorized engine (:mod:`gnome_env.gnoming.vector`): R1-R23 over arrays.

This module is the scalar engine (:mod:`gnome_env.gnoming.engine`) rewritten over preallocated
integer arrays, one row per game, so that numba can compile it. The functions are plain
Python that numba accepts; :func:`maybe_njit` compiles them when numba is importable and
``GNOME_NO_NUMBA`` is not set, otherwise they run (slowly) as they are.

A game ``b`` is one row of each of two arrays; the kernels take the rows ``g = st[b]``
and ``cards = stk[b]``:

* ``st[b]`` (int32, named columns ``C_*``, ``C_SEEN + number of kinds`` wide): every
  scalar of :class:`~gnome_env.gnoming.engine.Game`; per-seat blocks (face-down counts, totals,
  last round scores); the layouts (``C_LAY + 9 * seat + pos``); what everybody sees there
  (``C_SHOWN + ...``: ``1`` face down, ``2 + kind`` face up -- the token category of
  ObservationEncoder); the flip queue; and per card kind the number of cards *seen*
  (``C_SEEN + kind``: face-up layout cards, discard-pile cards, the card in hand, removed
  hazards -- the encoder's card counting), kept up to date by every transition;
* ``stk[b]`` (int16, ``[3, deck size]``): three stacks, bottom first -- ``0`` the draw
  pile (top card last, as the engine's list), ``1`` discard pile A, ``2`` pile B; their
  lengths are ``st[b, C_LEN + i]``.

Cards are stored as *kind indices* ``k`` (position of the card code in the deck's sorted
``kinds``); ``kcode[k]`` is the card code. ``-1`` means "no card" / "None".

When a game needs a shuffle (a round's deal, R3, or a reshuffle, R8), the kernel stops
that game with a *need* code; :func:`supply_batch` then fills ``stk[b, 0]`` with the
permutation of :func:`gnome_env.gnoming.engine.deal_order` /
:func:`~gnome_env.gnoming.engine.reshuffle_order`
-- drawn here by the compiled functions of :mod:`gnome_env.core.rng`, the same ones the scalar
engine calls -- and starts a slot's next game (auto-reset) as
:func:`gnome_env.gnoming.vector.game_stream` seeds it; :func:`resume_batch` then
carries on. At most one such pause happens per game and step: a reshuffle is followed by the
PLACE decision, and a new round (or a new game after auto-reset) by its first opening flip.

The last section runs *one* game for the AEC env (:class:`gnome_env.gnoming.vector.KernelGame`):
:func:`single_step` applies an action and writes the next decision, float observation
included, in one call. A game that ends there is not resumed (no NEED_NEW_GAME supply): its
final state -- every card revealed and counted as seen, phase PH_OVER, C_SEAT -1 -- stays,
and :func:`observe_seat` encodes it for any seat exactly as the encoder encodes the Game.

For speed, the hot paths avoid two Python constructs numba compiles poorly: ``%`` (Python
modulo semantics; see :func:`relative`) and ``and``/``or`` used as values (they are fine
in ``if`` conditions).
"""

from __future__ import annotations

import numpy as np

from gnome_env.core import rng
from gnome_env.core.jit import COMPILED, compile_notice, entry_point, maybe_njit, numba  # noqa: F401 (re-exported)
from gnome_env.gnoming import actions as A
from gnome_env.gnoming import cards as cards_module
from gnome_env.gnoming import encoding, engine
from gnome_env.gnoming.cards import HAZARD, MULLIGAN
from gnome_env.gnoming.config import MAX_PLAYERS
from gnome_env.gnoming.engine import Phase, Source

compile_notice(__file__)  # one line on stderr if nothing is compiled yet

# ---------------------------------------------------------------------- shared constants
# Plain ints (numba freezes module globals into the compiled code), taken from the modules
# that define them.
HAZARD_CODE = HAZARD
MULLIGAN_CODE = MULLIGAN
HAZARD_POINTS = cards_module.HAZARD_POINTS  # R19
FIRST_OUT_BONUS = engine.FIRST_OUT_BONUS  # R21
ALL_FILLED = engine.ALL_FILLED
MAX_SEATS = MAX_PLAYERS
FACE_DOWN = encoding.FACE_DOWN  # ObservationEncoder categories: 1 face down,
FIRST_KIND = encoding.FIRST_KIND  # FIRST_KIND + kind face up

DRAW, TAKE_A, TAKE_B, PLACE = A.DRAW, A.TAKE_A, A.TAKE_B, A.PLACE
DISCARD_A, DISCARD_B, BOUNCE, FLIP, DECLINE = A.DISCARD_A, A.DISCARD_B, A.BOUNCE, A.FLIP, A.DECLINE
NUM_ACTIONS = A.NUM_ACTIONS

PH_OPENING = int(Phase.OPENING_FLIP)
PH_DRAW = int(Phase.DRAW)
PH_PLACE = int(Phase.PLACE)
PH_DISPLACED = int(Phase.DISPLACED)
PH_HAZARD = int(Phase.HAZARD_FLIP)
PH_OVER = int(Phase.GAME_OVER)
SRC_NONE = int(Source.NONE)
SRC_DRAW = int(Source.DRAW_PILE)
SRC_PILE_A = int(Source.PILE_A)
SRC_PILE_B = int(Source.PILE_B)
SRC_DISPLACED = int(Source.DISPLACED)

# R2: the six lines (rows, then columns) of a layout.
LINES = np.array(cards_module.LINES, dtype=np.int64)

# Why a game is paused (st[b, C_NEED]); 0: not paused.
NEED_RESHUFFLE = 1  # R8: stk[b, 0, :len] holds the gathered discards; permute them
NEED_DEAL = 2  # R3: write round st[b, C_ROUND]'s deck into stk[b, 0, :deck size]
NEED_NEW_GAME = 3  # the game is over: set C_N, C_TURN_CAP and round 0's deck

# How a round ended (RoundResult.ended_by): 0 = no round ended.
ENDED_ENDGAME, ENDED_TURN_CAP, ENDED_NO_DRAW = 1, 2, 3

# ---------------------------------------------------------------------- state columns
C_N = 0  # seats in this game (3..7)
C_TURN_CAP = 1  # R17 turn cap of this game's config
C_ROUND = 2
C_FIRST_PLAYER = 3  # R6
C_RESHUFFLES = 4  # reshuffles so far this round (R8)
C_HAZ_REMOVED = 5  # hazards removed from play this round (R4, R13)
C_HELD = 6  # kind in hand, -1: none
C_HELD_SRC = 7  # SRC_*
C_HELD_DOWN = 8  # the card in hand was face down before it was displaced (R11)
C_FILLED = 9  # bit mask of positions filled this turn (R11)
C_TURNS = 10  # turns played this round
C_FIRST_OUT = 11  # R15 seat, -1: none
C_ENDGAME = 12  # endgame turns left (R15), -1: endgame not started
C_PHASE = 13  # PH_*
C_SEAT = 14  # the seat that decides now, -1 once the game is over
C_TURN_PLAYER = 15
C_FQ_POS = 16  # index of the deciding seat in the flip queue
C_FQ_LEN = 17
C_NEED = 18  # NEED_* while paused
C_LEN = 19  # + i: length of stack i (0 draw pile, 1 pile A, 2 pile B)
C_DOWN = C_LEN + 3  # + seat: face-down cards
C_TOTALS = C_DOWN + MAX_SEATS  # + seat: game totals so far
C_LAST = C_TOTALS + MAX_SEATS  # + seat: last finished round's scores (R23 tie-break)
C_FQ = C_LAST + MAX_SEATS  # + i: flip queue (R5 opening flips, R13 hazard flips)
C_LAY = C_FQ + 2 * MAX_SEATS  # + 9 * seat + pos: layout card kinds
C_SHOWN = C_LAY + 9 * MAX_SEATS  # + 9 * seat + pos: FACE_DOWN, or 2 + kind if face up
C_SEEN = C_SHOWN + 9 * MAX_SEATS  # + kind: cards of that kind seen (see the docstring)
# The state is C_SEEN + number of kinds columns wide.

#: Row columns that hold no Game state field (engine.STATE_FIELDS), and why.
KERNEL_ONLY_COLUMNS = {
    "C_N": "the seat count (Game: config.num_players)",
    "C_TURN_CAP": "the R17 cap (Game: config.turn_cap)",
    "C_NEED": "the shuffle a paused game waits for",
    "C_SEEN": "card counting for the observation tokens (derived from the state)",
}


def check_state_columns() -> None:
    """The state is declared once (engine.STATE_FIELDS): every column a state field names
    is a column here, and every column here belongs to a state field or to
    :data:`KERNEL_ONLY_COLUMNS`. Run at import; raises ``ImportError`` naming the gap."""
    columns = {name for name, value in globals().items() if name.startswith("C_")}
    claimed = {col for f in engine.STATE_FIELDS for col in f.kernel}
    unknown = sorted(claimed - columns)
    unclaimed = sorted(columns - claimed - set(KERNEL_ONLY_COLUMNS))
    if unknown or unclaimed:
        raise ImportError(
            f"engine.STATE_FIELDS and the kernel row disagree: columns named by state fields "
            f"but not defined here {unknown}; columns here that no state field names (add "
            f"them to a StateField or to KERNEL_ONLY_COLUMNS) {unclaimed}"
        )


check_state_columns()

# ---------------------------------------------------------------------- rule parameters
P_ROTATE = 0  # R6 rotate_start
P_DISCARD_TAKEN = 1  # R9 discard_taken_card
P_BOUNCE_UP = 2  # R11 bounce_face_up
P_TIE_LOWEST = 3  # R21 first_out_tie_is_lowest
P_ROUNDS = 4  # R23 rounds
P_REWARD = 5  # reward mode: REWARD_WIN / REWARD_SCORE / REWARD_RAW
P_KINDS = 6  # number of card kinds
P_HAZ_K = 7  # kind index of the hazard, -1 if the deck has none
P_MULL_K = 8  # kind index of the mulligan, -1 if the deck has none
P_DECK = 9  # deck size
NUM_PARAMS = 10
REWARD_WIN, REWARD_SCORE, REWARD_RAW = 0, 1, 2

# ---------------------------------------------------------------------- token fields
# Where each field of ObservationEncoder (reveal=False) starts in the token vector: the
# encoder's field order and sizes, fixed except for the number of card kinds K.
# gnome_env.gnoming.vector checks these against ``encoder.token_slices`` (token_offsets below).
TOK_LAYOUTS = 0  # 7 seats x 9 positions
TOK_PRESENT = TOK_LAYOUTS + 9 * MAX_SEATS  # 7
TOK_HAND = TOK_PRESENT + MAX_SEATS
TOK_HAND_SOURCE = TOK_HAND + 1
TOK_CAN_BOUNCE = TOK_HAND_SOURCE + 1
TOK_PILE_TOPS = TOK_CAN_BOUNCE + 1  # 2
TOK_PILE_SIZES = TOK_PILE_TOPS + 2  # 2
TOK_DRAW_SIZE = TOK_PILE_SIZES + 2
TOK_PHASE = TOK_DRAW_SIZE + 1
TOK_FILLED = TOK_PHASE + 1  # 9
TOK_TURN_PLAYER = TOK_FILLED + 9
TOK_FIRST_OUT = TOK_TURN_PLAYER + 1
TOK_ENDGAME = TOK_FIRST_OUT + 1
TOK_ROUND = TOK_ENDGAME + 1
TOK_TURNS = TOK_ROUND + 1
TOK_TOTALS = TOK_TURNS + 1  # 7
TOK_UNSEEN = TOK_TOTALS + MAX_SEATS  # K, then the seat (1)


def token_offsets(num_kinds):
    """``{field: start}`` of the token layout the kernels write, and the token count."""
    starts = {
        "layouts": TOK_LAYOUTS,
        "present": TOK_PRESENT,
        "hand": TOK_HAND,
        "hand_source": TOK_HAND_SOURCE,
        "can_bounce": TOK_CAN_BOUNCE,
        "pile_tops": TOK_PILE_TOPS,
        "pile_sizes": TOK_PILE_SIZES,
        "draw_pile_size": TOK_DRAW_SIZE,
        "phase": TOK_PHASE,
        "filled": TOK_FILLED,
        "turn_player": TOK_TURN_PLAYER,
        "first_out": TOK_FIRST_OUT,
        "endgame_turns_left": TOK_ENDGAME,
        "round": TOK_ROUND,
        "turns_played": TOK_TURNS,
        "totals": TOK_TOTALS,
        "unseen": TOK_UNSEEN,
        "seat": TOK_UNSEEN + num_kinds,
    }
    return starts, TOK_UNSEEN + num_kinds + 1


# ---------------------------------------------------------------------- step results
R_ROUND_ENDED = 0  # 1 if a round ended in this step
R_DONE = 1  # 1 if the game ended in this step
R_TRUNCATED = 2  # the game ended and its last round ended at the cap (R17)
R_ROUND = 3  # index of the round that ended
R_FIRST_OUT = 4  # its first-out seat, -1: none
R_ENDED_BY = 5  # ENDED_*
R_N = 6  # seats of the game the results belong to
R_ROUND_SCORES = 7  # + seat (R22)
R_LAYOUT_SCORES = R_ROUND_SCORES + MAX_SEATS  # + seat (R18-R20)
R_TOTALS = R_LAYOUT_SCORES + MAX_SEATS  # + seat: totals after that round
R_WINNERS = R_TOTALS + MAX_SEATS  # + seat: 1 for the winners (R23), at game end
NUM_RESULTS = R_WINNERS + MAX_SEATS


# ====================================================================== helpers
@maybe_njit
def relative(seat, observer, n):
    """``(seat - observer) mod n`` for seats in 0..n-1, without a division (hot path)."""
    d = seat - observer
    return d + n if d < 0 else d


# ====================================================================== legality
@maybe_njit
def face_up_mulligans(g, seat, mull_k):
    """R12: (number, last position) of face-up mulligans in ``seat``'s layout."""
    count = 0
    where = -1
    if mull_k < 0:
        return count, where
    shown = C_SHOWN + 9 * seat
    for q in range(9):
        if g[shown + q] == FIRST_KIND + mull_k:
            count += 1
            where = q
    return count, where


@maybe_njit
def can_take(g, seat, kind, prm):
    """R9/R12 (D8): a taken card needs a legal use -- placing it, or discarding it again."""
    if kind != prm[P_MULL_K] or prm[P_DISCARD_TAKEN] != 0:
        return True
    count, _ = face_up_mulligans(g, seat, prm[P_MULL_K])
    return count <= 1


@maybe_njit
def reshuffle_size(g):
    """R8 (D4): how many cards a reshuffle gives -- every discard but each pile's top."""
    a = g[C_LEN + 1]
    c = g[C_LEN + 2]
    return (a - 1 if a > 0 else 0) + (c - 1 if c > 0 else 0)


@maybe_njit
def pile_top(g, cards, pile):
    """Kind on top of stack ``pile`` (1 = A, 2 = B), -1 if empty."""
    n = g[C_LEN + pile]
    if n == 0:
        return -1
    return cards[pile, n - 1]


@maybe_njit
def write_draw_actions(g, cards, seat, prm, out):
    """R7/R8/R12 (D8): set the legal draw actions in ``out``."""
    if g[C_LEN] > 0 or reshuffle_size(g) > 0:
        out[DRAW] = True
    for pile in range(1, 3):
        top = pile_top(g, cards, pile)
        if top >= 0 and can_take(g, seat, top, prm):
            out[TAKE_A + pile - 1] = True


@maybe_njit
def can_draw(g, cards, seat, prm):
    """True if ``seat`` has any draw action (R7, R8, R12)."""
    if g[C_LEN] > 0 or reshuffle_size(g) > 0:
        return True
    for pile in range(1, 3):
        top = pile_top(g, cards, pile)
        if top >= 0 and can_take(g, seat, top, prm):
            return True
    return False


@maybe_njit
def write_discard_actions(g, card, prm, out):
    """R13/R14 (D5): a hazard leaves play (one action); else an empty pile must be refilled."""
    if card == prm[P_HAZ_K]:
        out[DISCARD_A] = True
        return
    a_empty = g[C_LEN + 1] == 0
    b_empty = g[C_LEN + 2] == 0
    if a_empty and not b_empty:
        out[DISCARD_A] = True
    elif b_empty and not a_empty:
        out[DISCARD_B] = True
    else:
        out[DISCARD_A] = True
        out[DISCARD_B] = True


@maybe_njit
def displaced_can_bounce(g, prm, kcode):
    """R11: the displaced card was face down (or variant), is positive and matches a
    face-up positive card of the layout; some position is still unfilled this turn."""
    card = g[C_HELD]
    code = kcode[card]
    if not (0 < code < HAZARD_CODE):
        return False
    if g[C_HELD_DOWN] == 0 and prm[P_BOUNCE_UP] == 0:
        return False
    if g[C_FILLED] == ALL_FILLED:
        return False
    tp = g[C_TURN_PLAYER]
    for q in range(9):
        if g[C_SHOWN + 9 * tp + q] == FIRST_KIND + card:
            return True
    return False


@maybe_njit
def write_legal(g, cards, prm, kcode, out):
    """The game's legal-action mask into ``out`` (Game._compute_legal)."""
    for a in range(NUM_ACTIONS):
        out[a] = False
    phase = g[C_PHASE]
    seat = g[C_SEAT]
    if phase == PH_DRAW:
        write_draw_actions(g, cards, seat, prm, out)
    elif phase == PH_PLACE:
        held = g[C_HELD]
        if held == prm[P_MULL_K]:  # R12: only where no other face-up mulligan is
            count, where = face_up_mulligans(g, seat, held)
            if count == 0:
                for q in range(9):
                    out[PLACE + q] = True
            elif count == 1:
                out[PLACE + where] = True
        else:
            for q in range(9):
                out[PLACE + q] = True
        if g[C_HELD_SRC] == SRC_DRAW or prm[P_DISCARD_TAKEN] != 0:  # R9
            write_discard_actions(g, held, prm, out)
    elif phase == PH_DISPLACED:
        if displaced_can_bounce(g, prm, kcode):  # R11: to a position not filled
            filled = g[C_FILLED]
            for q in range(9):
                if not (filled >> q) & 1:
                    out[BOUNCE + q] = True
        write_discard_actions(g, g[C_HELD], prm, out)  # R10
    elif phase == PH_OPENING or phase == PH_HAZARD:  # noqa: SIM109 -- R5, R13: own face-down
        shown = C_SHOWN + 9 * seat
        for q in range(9):
            if g[shown + q] == FACE_DOWN:
                out[FLIP + q] = True
        if phase == PH_HAZARD:
            out[DECLINE] = True


# ====================================================================== scoring
@maybe_njit
def line_value(a, b, c):
    """R18: the value v of a matching line (it scores -v), or 0 if it does not match."""
    value = 0
    for code in (a, b, c):
        if code == MULLIGAN_CODE:
            continue
        if code < 0 or code == HAZARD_CODE:
            return 0
        if value != 0 and code != value:
            return 0
        value = code
    return value


@maybe_njit
def layout_score(g, seat, kcode):
    """R18-R20: score of ``seat``'s layout, every card counted as revealed."""
    lay = C_LAY + 9 * seat
    in_line = 0
    total = 0
    for li in range(6):  # R18, R20: every matching line scores -v, crossing lines too
        p0 = LINES[li, 0]
        p1 = LINES[li, 1]
        p2 = LINES[li, 2]
        value = line_value(kcode[g[lay + p0]], kcode[g[lay + p1]], kcode[g[lay + p2]])
        if value != 0:
            total -= value
            in_line |= (1 << p0) | (1 << p1) | (1 << p2)
    for q in range(9):  # R19: card points, except positive cards inside a matching line
        code = kcode[g[lay + q]]
        if not (0 < code < HAZARD_CODE and (in_line >> q) & 1):
            total += HAZARD_POINTS if code == HAZARD_CODE else code
    return total


# ====================================================================== transitions
@maybe_njit
def start_round(g, cards, prm):
    """R3-R6: deal the deck waiting in ``cards[0]`` (top card first) for round C_ROUND."""
    n = g[C_N]
    r = g[C_ROUND]
    deck_size = prm[P_DECK]
    first = r % n if prm[P_ROTATE] != 0 else 0  # R6
    g[C_FIRST_PLAYER] = first
    g[C_RESHUFFLES] = 0
    for p in range(n):  # R3: nine face-down cards each, in deck order
        for q in range(9):
            g[C_LAY + 9 * p + q] = cards[0, 9 * p + q]
            g[C_SHOWN + 9 * p + q] = FACE_DOWN
        g[C_DOWN + p] = 9
    # The rest is the draw pile; its top is the first undealt card, kept at the end.
    lo = 9 * n
    hi = deck_size - 1
    while lo < hi:
        tmp = cards[0, lo]
        cards[0, lo] = cards[0, hi]
        cards[0, hi] = tmp
        lo += 1
        hi -= 1
    rest = deck_size - 9 * n
    for i in range(rest):
        cards[0, i] = cards[0, 9 * n + i]
    g[C_LEN] = rest
    g[C_LEN + 1] = 0
    g[C_LEN + 2] = 0
    g[C_HAZ_REMOVED] = 0
    for k in range(prm[P_KINDS]):
        g[C_SEEN + k] = 0
    haz = prm[P_HAZ_K]
    for pile in range(1, 3):  # R4: turn up a card for each pile; hazards leave play
        while g[C_LEN] > 0:
            g[C_LEN] -= 1
            card = cards[0, g[C_LEN]]
            g[C_SEEN + card] += 1  # turned up: seen, on the pile or removed
            if card == haz:
                g[C_HAZ_REMOVED] += 1
                continue
            cards[pile, 0] = card
            g[C_LEN + pile] = 1
            break
    g[C_HELD] = -1
    g[C_HELD_SRC] = SRC_NONE
    g[C_HELD_DOWN] = 0
    g[C_FILLED] = 0
    g[C_TURNS] = 0
    g[C_FIRST_OUT] = -1
    g[C_ENDGAME] = -1
    for i in range(n):  # R5 (D1): each seat flips twice, in order from the first player
        seat = (first + i) % n
        g[C_FQ + 2 * i] = seat
        g[C_FQ + 2 * i + 1] = seat
    g[C_FQ_POS] = 0
    g[C_FQ_LEN] = 2 * n
    g[C_PHASE] = PH_OPENING
    g[C_TURN_PLAYER] = first
    g[C_SEAT] = first


@maybe_njit
def new_game(g, cards, prm):
    """A fresh game: C_N, C_TURN_CAP and round 0's deck (in ``cards[0]``) are already set."""
    for s in range(MAX_SEATS):
        g[C_TOTALS + s] = 0
        g[C_LAST + s] = 0
        g[C_DOWN + s] = 0
    for i in range(9 * MAX_SEATS):
        g[C_LAY + i] = 0
        g[C_SHOWN + i] = 0
    g[C_ROUND] = 0
    start_round(g, cards, prm)


@maybe_njit
def round_reward(mode, total, score, n):
    """gnome_env.gnoming.rewards.round_end_rewards for one seat, same float64 operations."""
    if mode == REWARD_RAW:
        return -score / 10.0
    if mode == REWARD_SCORE:
        return ((total - score) / (n - 1) - score) / 10.0
    return 0.0


@maybe_njit
def end_round(g, ended_by, prm, kcode, rew, res):
    """R16-R23: reveal, score, pay rewards; returns NEED_DEAL or NEED_NEW_GAME."""
    n = g[C_N]
    for s in range(n):  # R16: every face-down card is turned up
        for q in range(9):
            i = 9 * s + q
            if g[C_SHOWN + i] == FACE_DOWN:
                # Seen now. Only the game's final state shows it (a next round resets the
                # counts), where the observation must count the revealed cards as the
                # encoder does.
                g[C_SEEN + g[C_LAY + i]] += 1
            g[C_SHOWN + i] = FIRST_KIND + g[C_LAY + i]
        g[C_DOWN + s] = 0
    res[R_ROUND_ENDED] = 1
    res[R_ROUND] = g[C_ROUND]
    res[R_ENDED_BY] = ended_by
    res[R_N] = n
    for s in range(n):  # R18-R20
        score = layout_score(g, s, kcode)
        res[R_LAYOUT_SCORES + s] = score
        res[R_ROUND_SCORES + s] = score
    first_out = g[C_FIRST_OUT]
    res[R_FIRST_OUT] = first_out
    if first_out >= 0:  # R21: -5 if lowest (ties per variant), else +5
        mine = res[R_LAYOUT_SCORES + first_out]
        best_other = 1 << 30
        for s in range(n):
            if s != first_out and res[R_LAYOUT_SCORES + s] < best_other:
                best_other = res[R_LAYOUT_SCORES + s]
        lowest = mine < best_other
        if mine == best_other and prm[P_TIE_LOWEST] != 0:
            lowest = True
        res[R_ROUND_SCORES + first_out] += -FIRST_OUT_BONUS if lowest else FIRST_OUT_BONUS
    total = 0
    for s in range(n):  # R22
        score = res[R_ROUND_SCORES + s]
        g[C_TOTALS + s] += score
        g[C_LAST + s] = score
        res[R_TOTALS + s] = g[C_TOTALS + s]
        total += score
    if g[C_ROUND] + 1 < prm[P_ROUNDS]:
        for s in range(n):
            rew[s] = round_reward(prm[P_REWARD], total, res[R_ROUND_SCORES + s], n)
        g[C_ROUND] += 1
        return NEED_DEAL
    # R23: lowest total; tie -> lowest last-round score; still tied -> shared win.
    best_total = 1 << 30
    best_last = 1 << 30
    for s in range(n):
        t = g[C_TOTALS + s]
        last = g[C_LAST + s]
        if t < best_total or (t == best_total and last < best_last):
            best_total = t
            best_last = last
    winners = 0
    for s in range(n):
        if g[C_TOTALS + s] == best_total and g[C_LAST + s] == best_last:
            res[R_WINNERS + s] = 1
            winners += 1
    mode = prm[P_REWARD]
    for s in range(n):  # game_end_rewards, added to round_end_rewards as rewards.py does
        end = 0.0
        if mode == REWARD_WIN and winners != n:
            end = 1.0 / winners if res[R_WINNERS + s] != 0 else -1.0 / (n - winners)
        rew[s] = round_reward(mode, total, res[R_ROUND_SCORES + s], n) + end
    res[R_DONE] = 1
    res[R_TRUNCATED] = 1 if ended_by == ENDED_TURN_CAP else 0
    g[C_PHASE] = PH_OVER
    g[C_SEAT] = -1
    g[C_FQ_LEN] = 0
    g[C_FQ_POS] = 0
    return NEED_NEW_GAME


@maybe_njit
def begin_turn(g, cards, player, prm):
    """Start ``player``'s turn (R7); False if they have nothing to draw (D3)."""
    g[C_TURN_PLAYER] = player
    g[C_SEAT] = player
    g[C_PHASE] = PH_DRAW
    g[C_FILLED] = 0
    return can_draw(g, cards, player, prm)


@maybe_njit
def nobody_can_draw(g, cards, prm):
    """D3 / R17: no seat has a draw action."""
    for s in range(g[C_N]):
        if can_draw(g, cards, s, prm):
            return False
    return True


@maybe_njit
def end_turn(g, cards, prm, kcode, rew, res):
    """Game._end_turn and the following Game._start_turn; loops over passed turns (D3).

    Returns a NEED_* code if the round ended, else 0.
    """
    n = g[C_N]
    while True:
        player = g[C_TURN_PLAYER]
        g[C_TURNS] += 1
        if g[C_ENDGAME] >= 0:
            g[C_ENDGAME] -= 1
        elif g[C_DOWN + player] == 0:  # R15: first out; everybody else has one turn
            g[C_FIRST_OUT] = player
            g[C_ENDGAME] = n - 1
        if g[C_ENDGAME] == 0:
            return end_round(g, ENDED_ENDGAME, prm, kcode, rew, res)
        if g[C_TURNS] >= g[C_TURN_CAP]:  # R17 (D7)
            return end_round(g, ENDED_TURN_CAP, prm, kcode, rew, res)
        following = player + 1  # the next seat (no % in the hot path)
        if following == n:
            following = 0
        if begin_turn(g, cards, following, prm):
            return 0
        if nobody_can_draw(g, cards, prm):  # D3: the round ends
            return end_round(g, ENDED_NO_DRAW, prm, kcode, rew, res)
        # D3: this player passes; the pass counts as their turn (loop = _end_turn again)


@maybe_njit
def gather_reshuffle(g, cards):
    """R8 (D4): every discard-pile card but each pile's top moves, pile A's first and bottom
    first, onto the (empty) draw pile, waiting for the shuffle."""
    m = 0
    for pile in range(1, 3):
        size = g[C_LEN + pile]
        if size > 1:
            for i in range(size - 1):
                card = cards[pile, i]
                cards[0, m] = card
                g[C_SEEN + card] -= 1  # hidden again in the draw pile
                m += 1
            cards[pile, 0] = cards[pile, size - 1]
            g[C_LEN + pile] = 1
    g[C_LEN] = m
    g[C_RESHUFFLES] += 1


@maybe_njit
def finish_draw(g, cards):
    """R7: take the draw pile's top card into the hand."""
    g[C_LEN] -= 1
    card = cards[0, g[C_LEN]]
    g[C_HELD] = card
    g[C_SEEN + card] += 1
    g[C_HELD_SRC] = SRC_DRAW
    g[C_PHASE] = PH_PLACE


@maybe_njit
def put(g, pos):
    """R10: the card in hand goes face up to ``pos``; the card there is displaced."""
    seat = g[C_TURN_PLAYER]
    lay = C_LAY + 9 * seat + pos
    shown = C_SHOWN + 9 * seat + pos
    displaced = g[lay]
    was_down = g[shown] == FACE_DOWN
    g[lay] = g[C_HELD]
    g[shown] = FIRST_KIND + g[C_HELD]  # D2: placed cards lie face up
    if was_down:  # R10: the displaced card is turned up
        g[C_DOWN + seat] -= 1
        g[C_SEEN + displaced] += 1
    g[C_FILLED] |= 1 << pos
    g[C_HELD] = displaced
    g[C_HELD_SRC] = SRC_DISPLACED
    g[C_HELD_DOWN] = 1 if was_down else 0
    g[C_PHASE] = PH_DISPLACED


@maybe_njit
def discard(g, cards, action, prm, kcode, rew, res):
    """R13/R14: discard the card in hand; this ends the turn's chain."""
    card = g[C_HELD]
    g[C_HELD] = -1
    g[C_HELD_SRC] = SRC_NONE
    g[C_HELD_DOWN] = 0
    if card == prm[P_HAZ_K]:  # R13: the hazard leaves play
        g[C_HAZ_REMOVED] += 1
        # D6: no flips if the round ends with this turn (last endgame turn or the cap)
        if not (g[C_ENDGAME] == 1 or g[C_TURNS] + 1 >= g[C_TURN_CAP]):
            n = g[C_N]
            me = g[C_TURN_PLAYER]
            count = 0
            for i in range(1, n):  # in seat order after the discarder; not their last card
                s = me + i
                if s >= n:
                    s -= n
                if g[C_DOWN + s] >= 2:  # D9: judged now
                    g[C_FQ + count] = s
                    count += 1
            if count > 0:
                g[C_FQ_POS] = 0
                g[C_FQ_LEN] = count
                g[C_PHASE] = PH_HAZARD
                g[C_SEAT] = g[C_FQ]
                return 0
    else:  # R14
        pile = 1 + action - DISCARD_A
        cards[pile, g[C_LEN + pile]] = card
        g[C_LEN + pile] += 1
    return end_turn(g, cards, prm, kcode, rew, res)


@maybe_njit
def flip(g, pos):
    """R5/R13: the deciding seat turns its own card at ``pos`` face up."""
    seat = g[C_SEAT]
    card = g[C_LAY + 9 * seat + pos]
    g[C_SHOWN + 9 * seat + pos] = FIRST_KIND + card
    g[C_SEEN + card] += 1
    g[C_DOWN + seat] -= 1


@maybe_njit
def next_in_flip_queue(g):
    """The deciding seat has flipped (R5, R13): hand the decision to the next seat in the
    flip queue and return True, or empty the queue and return False."""
    g[C_FQ_POS] += 1
    if g[C_FQ_POS] < g[C_FQ_LEN]:
        g[C_SEAT] = g[C_FQ + g[C_FQ_POS]]
        return True
    g[C_FQ_LEN] = 0
    g[C_FQ_POS] = 0
    return False


@maybe_njit
def apply_action(g, cards, action, prm, kcode, rew, res):
    """Game.apply for a legal ``action``; returns a NEED_* code if the game must pause."""
    phase = g[C_PHASE]
    if phase == PH_DRAW:  # R7
        if action == DRAW:
            if g[C_LEN] == 0:  # R8: reshuffle first (Python supplies the shuffle)
                gather_reshuffle(g, cards)
                return NEED_RESHUFFLE
            finish_draw(g, cards)
        else:
            pile = action - TAKE_A + 1
            g[C_LEN + pile] -= 1
            g[C_HELD] = cards[pile, g[C_LEN + pile]]
            g[C_HELD_SRC] = SRC_PILE_A if pile == 1 else SRC_PILE_B
            g[C_PHASE] = PH_PLACE
        return 0
    if phase == PH_PLACE:  # R9
        if action < DISCARD_A:
            put(g, action - PLACE)
            return 0
        return discard(g, cards, action, prm, kcode, rew, res)
    if phase == PH_DISPLACED:  # R10/R11
        if action >= BOUNCE:
            put(g, action - BOUNCE)
            return 0
        return discard(g, cards, action, prm, kcode, rew, res)
    if phase == PH_OPENING:  # R5
        flip(g, action - FLIP)
        if next_in_flip_queue(g):
            return 0
        if begin_turn(g, cards, g[C_FIRST_PLAYER], prm):
            return 0
        if nobody_can_draw(g, cards, prm):  # D3
            return end_round(g, ENDED_NO_DRAW, prm, kcode, rew, res)
        return end_turn(g, cards, prm, kcode, rew, res)
    # PH_HAZARD, R13
    if action != DECLINE:
        flip(g, action - FLIP)
    if next_in_flip_queue(g):
        return 0
    return end_turn(g, cards, prm, kcode, rew, res)


# ====================================================================== observation
@maybe_njit
def write_tokens(g, cards, prm, kcode, kcount, out):
    """ObservationEncoder.tokens(game, current seat) into ``out`` (reveal=False)."""
    write_seat_tokens(g, cards, prm, kcode, kcount, g[C_SEAT], out)


@maybe_njit
def write_seat_tokens(g, cards, prm, kcode, kcount, seat, out):
    """ObservationEncoder.tokens(game, seat) into ``out`` (reveal=False), for any seat of
    the game -- also once it is over (phase PH_OVER, every card revealed, C_SEAT -1)."""
    for t in range(out.shape[0]):
        out[t] = 0
    n = g[C_N]
    s = seat
    for rel in range(n):  # seats from the observer on, in turn order; absent seats 0
        for q in range(9):
            out[TOK_LAYOUTS + 9 * rel + q] = g[C_SHOWN + 9 * s + q]
        out[TOK_PRESENT + rel] = 1
        out[TOK_TOTALS + rel] = g[C_TOTALS + s]
        s += 1
        if s == n:
            s = 0
    held = g[C_HELD]
    if held >= 0:
        out[TOK_HAND] = FIRST_KIND + held
    out[TOK_HAND_SOURCE] = g[C_HELD_SRC]
    if g[C_PHASE] == PH_DISPLACED and displaced_can_bounce(g, prm, kcode):
        out[TOK_CAN_BOUNCE] = 1
    for i in range(2):
        size = g[C_LEN + 1 + i]
        if size > 0:
            out[TOK_PILE_TOPS + i] = FIRST_KIND + cards[1 + i, size - 1]
            out[TOK_PILE_SIZES + i] = size
    out[TOK_DRAW_SIZE] = g[C_LEN]
    out[TOK_PHASE] = g[C_PHASE]
    filled = g[C_FILLED]
    for q in range(9):
        out[TOK_FILLED + q] = (filled >> q) & 1
    out[TOK_TURN_PLAYER] = relative(g[C_TURN_PLAYER], seat, n)
    if g[C_FIRST_OUT] >= 0:
        out[TOK_FIRST_OUT] = 1 + relative(g[C_FIRST_OUT], seat, n)
    if g[C_ENDGAME] >= 0:
        out[TOK_ENDGAME] = g[C_ENDGAME]
    out[TOK_ROUND] = g[C_ROUND]
    out[TOK_TURNS] = g[C_TURNS]
    num_kinds = prm[P_KINDS]
    for k in range(num_kinds):  # card counting: the deck minus every card seen
        out[TOK_UNSEEN + k] = kcount[k] - g[C_SEEN + k]
    out[TOK_UNSEEN + num_kinds] = seat


# ====================================================================== batch kernels
@maybe_njit
def emit(g, cards, prm, kcode, kcount, legal, tokens):
    """Write a game's next decision: its legal mask and the acting seat's tokens."""
    write_legal(g, cards, prm, kcode, legal)
    write_tokens(g, cards, prm, kcode, kcount, tokens)


@maybe_njit
def step_batch(st, stk, actions, prm, kcode, kcount, legal, tokens, seats, rew, res, paused):
    """Apply ``actions[b]`` (already checked legal) to every game ``b``.

    Games that need a shuffle are left paused and listed in ``paused``; the others get their
    next decision written. Returns the number of paused games.
    """
    count = 0
    for b in range(st.shape[0]):
        g = st[b]
        need = apply_action(g, stk[b], actions[b], prm, kcode, rew[b], res[b])
        if need != 0:
            g[C_NEED] = need
            paused[count] = b
            count += 1
        else:
            emit(g, stk[b], prm, kcode, kcount, legal[b], tokens[b])
            seats[b] = g[C_SEAT]
    return count


@maybe_njit
def resume_game(g, cards, prm):
    """Carry on a game paused with ``g[C_NEED]`` once its shuffle is in ``cards[0]``."""
    need = g[C_NEED]
    g[C_NEED] = 0
    if need == NEED_RESHUFFLE:  # R8 done: now draw (R7)
        finish_draw(g, cards)
    elif need == NEED_DEAL:  # R3 for the next round
        start_round(g, cards, prm)
    else:  # a new game (auto-reset, or KernelGame.reset)
        new_game(g, cards, prm)


@maybe_njit
def resume_batch(st, stk, paused, count, prm, kcode, kcount, legal, tokens, seats):
    """Carry on the paused games once Python has written their shuffles into ``stk[b, 0]``."""
    for i in range(count):
        b = paused[i]
        g = st[b]
        resume_game(g, stk[b], prm)
        emit(g, stk[b], prm, kcode, kcount, legal[b], tokens[b])
        seats[b] = g[C_SEAT]


# ====================================================================== shuffles
# The deals (engine.deal_order), reshuffles (engine.reshuffle_order) and the vector engine's
# game seeds (vector.game_stream) come from gnome_env.core.rng, whose compiled functions the
# kernels call directly: the same source as the scalar engine's, not a re-expression.


@maybe_njit
def deal_into(cards, canon, seed, round_index, deck_size):
    """R3: round ``round_index``'s deck, top card first, into ``cards[0]``: ``canon[
    engine.deal_order(seed, round_index, deck_size)]`` (``canon``: the canonical deck)."""
    row = cards[0]
    for i in range(deck_size):
        row[i] = canon[i]
    rng.shuffle(row, deck_size, rng.DEAL, seed, round_index, 0)


@maybe_njit
def supply_shuffle(g, cards, seed, canon, prm):
    """Write the shuffle a paused game waits for into ``cards[0]`` (``seed``: its Game seed):
    R8's reshuffle (``engine.reshuffle_order``) of the ``C_LEN`` gathered discards, or the
    deal (``engine.deal_order``) of round C_ROUND -- round 0 for a new game."""
    need = g[C_NEED]
    if need == NEED_RESHUFFLE:
        rng.shuffle(cards[0], g[C_LEN], rng.RESHUFFLE, seed, g[C_ROUND], g[C_RESHUFFLES])
    elif need == NEED_DEAL:
        deal_into(cards, canon, seed, g[C_ROUND], prm[P_DECK])
    else:
        deal_into(cards, canon, seed, 0, prm[P_DECK])


@maybe_njit
def supply_batch(st, stk, paused, count, seeds, keys, episodes, choices, slot_n, caps, canon, prm):
    """Give every paused game the shuffle it waits for (VectorGame's auto-reset included).

    A game over (NEED_NEW_GAME) makes way for its slot's next game: episode ``e + 1`` of the
    slot's stream, seeded as :func:`gnome_env.core.rng.game_stream` ``(keys[b], b, e + 1,
    len(choices))`` says, with ``slot_n[b]`` seats, or if that is 0 ``choices[choice]``;
    ``caps[n]`` is the turn cap of ``n`` seats. ``seeds[b]`` is the Game seed of the game in
    slot ``b``.
    """
    for i in range(count):
        b = paused[i]
        g = st[b]
        if g[C_NEED] == NEED_NEW_GAME:
            episodes[b] += 1
            seed, choice = rng.game_stream(keys[b], b, episodes[b], choices.shape[0])
            n = slot_n[b]
            if n == 0:
                n = choices[choice]
            seeds[b] = seed
            g[C_N] = n
            g[C_TURN_CAP] = caps[n]
        supply_shuffle(g, stk[b], seeds[b], canon, prm)


# ====================================================================== one game, for the AEC env
# KernelGame (gnome_env.gnoming.vector) runs one game for the AEC env on these kernels: each call
# applies one action *and* writes the next decision -- legal mask, tokens and the float32
# observation the env hands out -- so that a step costs one compiled call.
#
# ``tok_off`` / ``tok_scale`` (ObservationEncoder.expansion_table) describe the float
# expansion token by token: scale 0 marks a one-hot token (1.0 at ``tok_off + token``),
# otherwise the entry at ``tok_off`` is ``token * scale`` in float32, as the encoder computes.

STEP_ILLEGAL = -100  # single_step: the action is not legal now; nothing changed


@maybe_njit
def expand_tokens(tokens, tok_off, tok_scale, out):
    """ObservationEncoder.expand of one token vector into ``out`` (float32)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    for t in range(tokens.shape[0]):
        scale = tok_scale[t]
        if scale == 0.0:
            out[tok_off[t] + tokens[t]] = 1.0
        else:
            out[tok_off[t]] = np.float32(tokens[t]) * scale


@maybe_njit
def emit_observation(g, cards, prm, kcode, kcount, legal, tokens, tok_off, tok_scale, obs):
    """The next decision of a game: legal mask, the acting seat's tokens and observation."""
    write_legal(g, cards, prm, kcode, legal)
    write_tokens(g, cards, prm, kcode, kcount, tokens)
    expand_tokens(tokens, tok_off, tok_scale, obs)


@maybe_njit
def single_step(
    g, cards, prm, kcode, kcount, legal, tokens, tok_off, tok_scale, obs, rew, res, action
):
    """Apply ``action`` (0 <= action < NUM_ACTIONS) to one game if ``legal[action]``.

    Returns the next acting seat (its decision written by :func:`emit_observation`); or
    ``-need`` when the game paused (``g[C_NEED]``; a round that ended has its results in
    ``rew`` / ``res``, zero otherwise); or STEP_ILLEGAL, changing nothing.
    """
    if not legal[action]:
        return STEP_ILLEGAL
    for s in range(rew.shape[0]):
        rew[s] = 0.0
    for i in range(res.shape[0]):
        res[i] = 0
    need = apply_action(g, cards, action, prm, kcode, rew, res)
    if need != 0:
        g[C_NEED] = need
        return -need
    emit_observation(g, cards, prm, kcode, kcount, legal, tokens, tok_off, tok_scale, obs)
    return g[C_SEAT]


@maybe_njit
def single_resume(g, cards, prm, kcode, kcount, legal, tokens, tok_off, tok_scale, obs):
    """:func:`resume_game`, then the next decision as in :func:`single_step`; returns the
    acting seat."""
    resume_game(g, cards, prm)
    emit_observation(g, cards, prm, kcode, kcount, legal, tokens, tok_off, tok_scale, obs)
    return g[C_SEAT]


@maybe_njit
def single_supply_resume(
    g, cards, prm, kcode, kcount, legal, tokens, tok_off, tok_scale, obs, canon, seed
):
    """:func:`supply_shuffle` (``seed``: the Game seed), then :func:`single_resume`."""
    supply_shuffle(g, cards, seed, canon, prm)
    return single_resume(g, cards, prm, kcode, kcount, legal, tokens, tok_off, tok_scale, obs)


@maybe_njit
def observe_seat(g, cards, prm, kcode, kcount, seat, tokens, tok_off, tok_scale, obs):
    """Tokens and float32 observation of the game seen from ``seat`` (any seat, any time)."""
    write_seat_tokens(g, cards, prm, kcode, kcount, seat, tokens)
    expand_tokens(tokens, tok_off, tok_scale, obs)
