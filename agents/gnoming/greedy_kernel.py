"""The Greedy bot (:class:`agents.gnoming.greedy.GreedyAgent`) compiled: the same action, much
faster.

:func:`greedy_actions_batch` decides a batch of observation-token rows (``[N, T]`` int16, as
:class:`gnome_env.gnoming.vector.VectorGame` returns them) with their legal masks, exactly as
``GreedyAgent.decide(SeatView.from_tokens(tokens[i], masks[i], rules))`` does -- except the
decisions that draw a random number (an opening flip, a hazard flip with a choice), which
it leaves to the Python bot by answering ``RANDOM`` (-1): the caller decides those rows with
the bot itself, in row order, so the bot's generator draws exactly the numbers it would
have drawn (:meth:`GreedyAgent.decide_tokens`). PPO's rollouts play Greedy seats this way
(``training.gnoming.ppo.selfplay.policy_actions``).

It is built from the compiled Expert's pieces (:mod:`agents.gnoming.expert_kernel`: the card
codes, the layout estimate of :func:`agents.gnoming.heuristics.layout_estimate`, R12's mulligan
positions, :func:`agents.gnoming.heuristics.choose_discard_pile`) with the same scratch arrays, and
keeps every branch, loop order, tie-break and float operation of :mod:`agents.gnoming.greedy`, so
the actions are the same (``tests/gnoming/test_greedy_kernel.py`` checks every decision of real
games).
"""

from __future__ import annotations

import numpy as np

from agents import greedy
from agents.gnoming.expert_kernel import (
    BOUNCE,
    CODE0,
    DECLINE,
    DISCARD_A,
    DISCARD_B,
    DRAW,
    F_DEFAULT_MEAN,
    FLIP,
    HAZ_POINTS,
    HAZARD_CODE,
    I_COUNT,
    I_KCODE,
    I_LAY,
    I_N,
    I_PRM,
    I_TOTAL,
    I_TURN_PLAYER,
    MAX_SEATS,
    MULLIGAN_CODE,
    NUM_ACTIONS,
    P_KINDS,
    PLACE,
    TAKE_A,
    TAKE_B,
    W_FPR,
    W_MEAN,
    card_of,
    checked_batch,
    choose_discard_pile,
    estimate,
    expert_tables,
    load_layout,
    mulligan_spots,
    placeable,
)
from gnome_env.gnoming._kernels import (
    LINES,
    PH_DRAW,
    PH_HAZARD,
    PH_OPENING,
    PH_PLACE,
    TOK_HAND,
    TOK_PHASE,
    TOK_PILE_TOPS,
    TOK_PRESENT,
    TOK_TURN_PLAYER,
    TOK_UNSEEN,
    maybe_njit,
)
from gnome_env.gnoming.config import RulesConfig

RANDOM = -1  # the decision draws a random number: the Python bot makes it
PAIR_BONUS = float(greedy.PAIR_BONUS)
INF = np.inf


@maybe_njit
def two_thirds_built(a, b, c):
    """greedy.two_thirds_built of a line of codes (``DOWN`` for a face-down card)."""
    value = 0
    fillers = 0
    for code in (a, b, c):
        if code < 0 or code == HAZARD_CODE:  # DOWN is negative
            continue
        if code == MULLIGAN_CODE:
            fillers += 1
        elif value == 0 or code == value:
            value = code
            fillers += 1
    return value != 0 and fillers == 2


@maybe_njit
def greedy_value(wi, lay, wf):
    """greedy.greedy_value of the layout at ``wi[lay:lay + 9]`` (the pair bonus subtracted
    line by line, as the Python loop does)."""
    total = estimate(wi, lay, wf)
    for li in range(6):
        if two_thirds_built(wi[lay + LINES[li, 0]], wi[lay + LINES[li, 1]], wi[lay + LINES[li, 2]]):
            total -= PAIR_BONUS
    return total


@maybe_njit
def placed_value(q, card, wf, wi):
    """greedy_value of the own layout with ``card`` at ``q``."""
    old = wi[I_LAY + q]
    wi[I_LAY + q] = card
    value = greedy_value(wi, I_LAY, wf)
    wi[I_LAY + q] = old
    return value


@maybe_njit
def best_place(card, mask, use_legal, wf, wi):
    """GreedyAgent._best_place: (value, action) of the best place action for ``card`` among
    the legal ones (``use_legal``) or every position R12 allows; (inf, -1) if none."""
    best_value = INF
    best_action = -1
    count, where = mulligan_spots(wi, I_LAY)
    for q in range(9):
        action = PLACE + q
        if use_legal:
            if not mask[action]:
                continue
        elif not placeable(card, q, count, where):
            continue
        value = placed_value(q, card, wf, wi)
        if value < best_value:
            best_value = value
            best_action = action
    return best_value, best_action


@maybe_njit
def setup(tok, wf, wi):
    """What a decision reads: seats, turn player, the unseen cards' mean (CardStats) and
    the own layout (slot 0)."""
    kinds = wi[I_PRM + P_KINDS]
    n = 0
    for i in range(MAX_SEATS):
        n += int(tok[TOK_PRESENT + i])
    wi[I_N] = n
    wi[I_TURN_PLAYER] = int(tok[TOK_TURN_PLAYER])
    total = 0
    points = 0
    for k in range(kinds):
        code = wi[I_KCODE + k]
        copies = int(tok[TOK_UNSEEN + k])
        wi[I_COUNT + code + CODE0] = copies
        total += copies
        points += (HAZ_POINTS if code == HAZARD_CODE else code) * copies
    wi[I_TOTAL] = total
    wf[W_MEAN] = points / total if total else wf[W_FPR + F_DEFAULT_MEAN]
    load_layout(tok, 0, wi, I_LAY)


@maybe_njit
def greedy_decide(tok, mask, wf, wi):
    """GreedyAgent.decide on one token row and its legal mask; ``RANDOM`` where the bot
    would draw a random number."""
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
        return RANDOM
    if phase == PH_HAZARD:
        for q in range(9):
            if mask[FLIP + q]:
                return RANDOM
        return DECLINE
    setup(tok, wf, wi)
    if phase == PH_DRAW:  # GreedyAgent._draw
        best_action = -1
        best_value = greedy_value(wi, I_LAY, wf)
        for action in range(TAKE_A, TAKE_B + 1):
            if not mask[action]:
                continue
            top = card_of(int(tok[TOK_PILE_TOPS + action - TAKE_A]), wi)
            value, _ = best_place(top, mask, False, wf, wi)
            if value < best_value - 1e-9:
                best_action = action
                best_value = value
        if best_action >= 0:
            return best_action
        return DRAW if mask[DRAW] else first
    hand = card_of(int(tok[TOK_HAND]), wi)
    if phase == PH_PLACE:  # GreedyAgent._place
        value, action = best_place(hand, mask, True, wf, wi)
        if (mask[DISCARD_A] or mask[DISCARD_B]) and (
            action < 0 or value >= greedy_value(wi, I_LAY, wf) - 1e-9
        ):
            return choose_discard_pile(tok, mask, wf, wi)
        return action if action >= 0 else first
    # GreedyAgent._displaced
    best_value = greedy_value(wi, I_LAY, wf) - 1e-9
    best_action = -1
    for action in range(BOUNCE, BOUNCE + 9):
        if mask[action]:
            value = placed_value(action - BOUNCE, hand, wf, wi)
            if value < best_value:
                best_value = value
                best_action = action
    if best_action >= 0:
        return best_action
    return choose_discard_pile(tok, mask, wf, wi)


@maybe_njit
def greedy_batch(tokens, masks, wf, wi, out):
    """:func:`greedy_decide` for every row of ``tokens`` / ``masks`` into ``out``."""
    for i in range(tokens.shape[0]):
        out[i] = greedy_decide(tokens[i], masks[i], wf, wi)


def greedy_actions_batch(tokens: np.ndarray, masks: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """The action :class:`~agents.gnoming.greedy.GreedyAgent` picks for each row, ``[N]`` int64, or
    ``RANDOM`` (-1) where it would draw a random number (see the module docstring).

    ``tokens`` ``[N, T]`` (``ObservationEncoder.tokens`` of the deciding seat), ``masks``
    ``[N, 33]``; ``rules`` the game's rules (the seat count is read from the tokens).
    """
    wf, wi, num_tokens = expert_tables(rules)
    tokens, masks = checked_batch(tokens, masks, num_tokens)
    out = np.empty(tokens.shape[0], dtype=np.int64)
    greedy_batch(tokens, masks, wf.copy(), wi.copy(), out)
    return out
