"""The one-step greedy bot (spec ``greedy``).

It judges a layout by :func:`agents.gnoming.heuristics.expected_layout_score` (face-down cards count
as the mean unseen card) minus a small bonus for every line two-thirds built (two equal
positive cards, or one and a mulligan, with the third place still open), and always makes
the move that lowers that estimate most right now:

* draw: take a discard-pile top if placing it would lower the estimate, else draw;
* place: put the card where it lowers the estimate most, else discard it;
* displaced card: bounce it where that lowers the estimate, else discard it;
* discard onto the pile whose top would help the next player most (hiding it);
* opening flips: corners, in a random order; hazard flips: always flip (information).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from agents.gnoming.base import BotAgent
from agents.gnoming.heuristics import (
    CardStats,
    Layout,
    choose_discard_pile,
    discard_actions,
    expected_layout_score,
    flip_actions,
    placeable,
    placed,
)
from gnome_env.gnoming import _kernels
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, LINES, MULLIGAN
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.information import SeatView

#: Points a line with two of its three cards matching is worth to the greedy bot.
PAIR_BONUS = 2.0
CORNERS = (0, 2, 6, 8)


def two_thirds_built(line: Sequence[int | None]) -> bool:
    """Whether a line of three cards (``None``: face down) earns Greedy's pair bonus: two of
    its places hold one positive value (or a mulligan) and the third does not complete it."""
    value = 0
    fillers = 0
    for code in line:
        if code is None or code < 0 or code == HAZARD:
            continue
        if code == MULLIGAN:
            fillers += 1
        elif not value or code == value:
            value = code
            fillers += 1
    return bool(value) and fillers == 2


def greedy_value(layout: Layout, stats: CardStats) -> float:
    """The greedy estimate of a layout: expected score minus the two-thirds-built bonus."""
    key = tuple(layout)
    total = expected_layout_score(key, stats)
    for _ in range(_lines_two_thirds_built(key)):
        total -= PAIR_BONUS
    return total


@functools.lru_cache(maxsize=1 << 15)
def _lines_two_thirds_built(layout: tuple[int | None, ...]) -> int:
    """How many lines of ``layout`` earn the pair bonus (an integer, so cached exactly)."""
    return sum(two_thirds_built((layout[a], layout[b], layout[c])) for a, b, c in LINES)


class GreedyAgent(BotAgent):
    """One-step improvement over the greedy layout estimate; see the module docstring."""

    spec = "greedy"

    def decide(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        phase = view.phase
        if phase == Phase.OPENING_FLIP:
            return self._opening_flip(legal)
        if phase == Phase.HAZARD_FLIP:
            flips = flip_actions(legal)
            return flips[int(self.rng.integers(len(flips)))] if flips else A.DECLINE
        stats = CardStats(view.unseen)
        layout = view.layouts[view.seat]
        if phase == Phase.DRAW:
            return self._draw(view, stats, layout)
        if phase == Phase.PLACE:
            return self._place(view, stats, layout)
        return self._displaced(view, stats, layout)

    def decide_tokens(
        self, tokens: np.ndarray, masks: np.ndarray, config: RulesConfig | None = None
    ) -> np.ndarray:
        """:meth:`BotAgent.decide_tokens`; with numba the compiled Greedy
        (:mod:`agents.gnoming.greedy_kernel`) decides every row that draws no random number, and
        this bot the others, in row order: the same actions and the same random draws."""
        rules = config if config is not None else self.config
        if not _kernels.COMPILED:
            return super().decide_tokens(tokens, masks, rules)
        from agents.gnoming.greedy_kernel import RANDOM, greedy_actions_batch

        out = greedy_actions_batch(tokens, masks, rules)
        for i in np.flatnonzero(out == RANDOM).tolist():
            out[i] = self.decide(SeatView.from_tokens(tokens[i], masks[i], rules))
        return out

    def _opening_flip(self, legal: tuple[int, ...]) -> int:
        corners = [A.FLIP + q for q in CORNERS if A.FLIP + q in legal]
        pool = corners or flip_actions(legal)
        return pool[int(self.rng.integers(len(pool)))]

    def _best_place(
        self, layout: Layout, card: int, stats: CardStats, legal: tuple[int, ...] | None
    ) -> tuple[float, int]:
        """(value, action) of the best place action for ``card`` (legal=None: every position
        R12 allows); (inf, -1) if none."""
        best_value, best_action = float("inf"), -1
        for q in range(9):
            action = A.PLACE + q
            if legal is not None and action not in legal:
                continue
            if legal is None and not placeable(layout, card, q):
                continue  # R12
            value = greedy_value(placed(layout, q, card), stats)
            if value < best_value:
                best_value, best_action = value, action
        return best_value, best_action

    def _draw(self, view: SeatView, stats: CardStats, layout: Layout) -> int:
        legal = view.legal_actions
        base = greedy_value(layout, stats)
        best_action, best_value = -1, base
        for action in (A.TAKE_A, A.TAKE_B):
            if action not in legal:
                continue
            top = view.pile_tops[action - A.TAKE_A]
            value, _ = self._best_place(layout, top, stats, None)
            if value < best_value - 1e-9:
                best_action, best_value = action, value
        if best_action >= 0:
            return best_action
        return A.DRAW if A.DRAW in legal else legal[0]

    def _place(self, view: SeatView, stats: CardStats, layout: Layout) -> int:
        legal = view.legal_actions
        value, action = self._best_place(layout, view.hand, stats, legal)
        discards = discard_actions(legal)
        if discards and (action < 0 or value >= greedy_value(layout, stats) - 1e-9):
            return choose_discard_pile(view, stats)
        return action if action >= 0 else legal[0]

    def _displaced(self, view: SeatView, stats: CardStats, layout: Layout) -> int:
        legal = view.legal_actions
        card = view.hand
        best_value = greedy_value(layout, stats) - 1e-9
        best_action = -1
        for action in legal:
            if A.BOUNCE <= action < A.BOUNCE + 9:
                value = greedy_value(placed(layout, action - A.BOUNCE, card), stats)
                if value < best_value:
                    best_value, best_action = value, action
        if best_action >= 0:
            return best_action
        return choose_discard_pile(view, stats)
