"""Nerts bots: players that decide from a :class:`~gnome_env.nerts.information.NertsView` only.

A bot is an object with a ``seed`` and ``decide(view) -> int``, an id from
``view.legal_actions``. The view is the seat's public information (N34): a bot never sees a
face-down Nerts card, a stock's order or a waste card under the top (N35), so it cannot
depend on them (``tests/nerts/test_nerts_bots.py`` permutes the hidden cards and checks every
bot decides the same). Randomness comes from the bot's own ``numpy`` Generator, seeded from
its seed; no global random state is read or changed.

* :class:`RandomNertsAgent` (spec ``random``): a uniformly random legal action.
* :class:`GreedyNertsAgent` (spec ``greedy``): a fixed order of useful moves -- foundations
  first, then whatever keeps the Nerts pile moving, then the stock (see its docstring).

The ``expert`` (:mod:`agents.nerts.expert`) plays greedy's moves in a race order; the
ladder random < greedy < expert is in ``docs/nerts.md``.
"""

from __future__ import annotations

import numpy as np

from gnome_env.nerts.actions import CALL, RECYCLE, SHIFT, TURN, WAIT, Kind, action_table
from gnome_env.nerts.cards import NUM_NATURAL, SUIT_COLOUR
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.information import NertsView

# Rank and colour by card id; jokers (52, 53) get rank 0 and colour -1, so no rank test
# written for natural cards ever matches a joker by accident.
_RANK = (*(c % 13 + 1 for c in range(NUM_NATURAL)), 0, 0)
_COL = (*(SUIT_COLOUR[c // 13] for c in range(NUM_NATURAL)), -1, -1)

NERTS_SOURCE, WASTE_SOURCE = 0, 1  # source index s of the action table (N36)


def fits_on(card: int | None, below: int | None) -> bool:
    """N9 for natural cards: whether ``card`` may lie on ``below`` in a run (one rank lower,
    other colour). False when either is missing or a joker (their identity is not fixed
    here; the legal set of the view is the authority)."""
    if card is None or below is None or card >= NUM_NATURAL or below >= NUM_NATURAL:
        return False
    return _RANK[card] == _RANK[below] - 1 and _COL[card] != _COL[below]


def needed_cards(view: NertsView) -> dict[int, list[int]]:
    """N8: for each natural card id, the open slots (ascending) it fits now."""
    need: dict[int, list[int]] = {}
    for f in range(view.slots_used):
        slot = view.slots[f]
        if not slot.complete:
            need.setdefault(13 * slot.suit + slot.top, []).append(f)
    return need


def playable_to_foundation(card: int | None, need: dict[int, list[int]]) -> bool:
    """Whether a natural ``card`` fits an open slot or starts a new one (an ace)."""
    if card is None or card >= NUM_NATURAL:
        return False
    return _RANK[card] == 1 or card in need


class NertsBot:
    """A seeded Nerts player that decides from a :class:`NertsView`. Subclasses implement
    :meth:`decide`."""

    spec = "bot"

    def __init__(self, seed: int | None = None, config: NertsConfig | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.config = config if config is not None else NertsConfig()

    def decide(self, view: NertsView) -> int:
        """A legal action id for ``view.seat``; ``view`` is all the bot may use."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


class RandomNertsAgent(NertsBot):
    """Uniformly random over the legal actions, from its own seeded generator (``random``)."""

    spec = "random"

    def decide(self, view: NertsView) -> int:
        """A uniformly random id of ``view.legal_actions``."""
        legal = view.legal_actions
        return legal[int(self.rng.integers(len(legal)))]


class _Options:
    """The legal actions of one view, sorted into the groups the heuristics rank."""

    __slots__ = (
        "call",
        "foundation",
        "nerts_to_work",
        "recycle",
        "shift",
        "slide",
        "turn",
        "waste_to_work",
        "work_moves",
    )

    def __init__(self, view: NertsView) -> None:
        table = action_table(view.config)
        self.call = self.turn = self.recycle = self.shift = False
        self.foundation: list[tuple[int, int, int]] = []  # (id, source, slot or -1)
        self.nerts_to_work: list[tuple[int, int]] = []  # (id, pile)
        self.waste_to_work: list[tuple[int, int]] = []
        self.slide: list[tuple[int, int, int]] = []  # (id, source, pile)
        self.work_moves: list[tuple[int, int, int, int]] = []  # (id, from, to, count)
        for a in view.legal_actions:
            if a < 5:
                if a == CALL:
                    self.call = True
                elif a == TURN:
                    self.turn = True
                elif a == RECYCLE:
                    self.recycle = True
                elif a == SHIFT:
                    self.shift = True
                continue
            d = table.decode(a)
            kind = d.kind
            if kind == Kind.TO_SLOT:
                self.foundation.append((a, d.source, d.slot))
            elif kind == Kind.NEW_FOUNDATION:
                self.foundation.append((a, d.source, -1))
            elif kind == Kind.TO_WORK:
                (self.nerts_to_work if d.source == NERTS_SOURCE else self.waste_to_work).append(
                    (a, d.pile)
                )
            elif kind == Kind.SLIDE:
                self.slide.append((a, d.source, d.pile))
            else:
                self.work_moves.append((a, d.pile, d.target, d.count))


class GreedyNertsAgent(NertsBot):
    """Spec ``greedy``: the first useful move in a fixed order, from the public view alone.

    1. **Call** Nerts (N22) when its hand score is at least every other seat's, or when
       nothing useful is left (no progress move, and its stock cycle is exhausted).
    2. **Foundations**: play the Nerts top, else the waste top, else a work-pile top (the
       shortest pile first, so a pile may empty) -- a card on a foundation scores and can
       be lost to a faster player.
    3. **Keep the Nerts pile moving**: the Nerts top onto a work pile, else slid under one
       (N12), else into an empty work pile.
    4. **Work-pile moves** that lead to progress, never others (so no ping-pong between
       piles): the top part of a pile that uncovers a card which can go to a foundation or
       take the Nerts top; a whole pile onto another pile, freeing a space for the Nerts top.
    5. **Waste** top onto a work pile (or slid under); into an empty pile only once the Nerts
       pile is empty (empty piles are kept for Nerts cards).
    6. **Stock**: shift when exhausted (N17: new cards come up), else turn, else recycle.
    7. Wait only when nothing else is legal.
    """

    spec = "greedy"

    # ------------------------------------------------------------------ the decision
    def decide(self, view: NertsView) -> int:
        """The first useful action in the order of the class docstring."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        opts = _Options(view)
        me = view.seat
        need = needed_cards(view)
        move = self.progress_move(view, opts, need)
        if opts.call and self.should_call(view, opts, move is not None):
            return CALL
        if move is not None:
            return move
        if opts.shift and view.exhausted[me]:
            return SHIFT
        if opts.turn:
            return TURN
        if opts.recycle:
            return RECYCLE
        return WAIT

    def should_call(self, view: NertsView, opts: _Options, useful: bool) -> bool:
        """N22: call when at least level with the best other hand score, or when nothing
        useful is left (no progress move and the seat's stock cycle exhausted)."""
        me = view.seat
        scores = view.hand_scores
        best_other = max(s for i, s in enumerate(scores) if i != me)
        return scores[me] >= best_other or (not useful and view.exhausted[me])

    def progress_move(
        self, view: NertsView, opts: _Options, need: dict[int, list[int]]
    ) -> int | None:
        """Steps 2-5 of the class docstring: the best progress move, or None."""
        choice = self.foundation_play(view, opts)
        if choice is not None:
            return choice
        choice = self.nerts_move(view, opts)
        if choice is not None:
            return choice
        choice = self.work_move(view, opts, need)
        if choice is not None:
            return choice
        return self.waste_move(view, opts)

    # ------------------------------------------------------------------ the steps
    def foundation_play(self, view: NertsView, opts: _Options) -> int | None:
        """Nerts top, then waste top, then the work-pile top of the shortest pile."""
        if not opts.foundation:
            return None
        work = view.work[view.seat]

        def key(item: tuple[int, int, int]) -> tuple[int, int, int]:
            a, s, _ = item
            return (min(s, 2), len(work[s - 2]) if s >= 2 else 0, a)

        return min(opts.foundation, key=key)[0]

    def nerts_move(self, view: NertsView, opts: _Options) -> int | None:
        """The Nerts top onto a run, else slid under a pile, else into an empty pile."""
        work = view.work[view.seat]
        onto = [a for a, w in opts.nerts_to_work if work[w]]
        if onto:
            return onto[0]
        under = [a for a, s, _ in opts.slide if s == NERTS_SOURCE]
        if under:
            return under[0]
        if opts.nerts_to_work:  # only empty piles are left
            return opts.nerts_to_work[0][0]
        return None

    def work_move(self, view: NertsView, opts: _Options, need: dict[int, list[int]]) -> int | None:
        """A move between work piles that leads to progress next step (else None)."""
        me = view.seat
        work = view.work[me]
        nerts_top = view.nerts_top[me]
        best: tuple[tuple[int, int], int] | None = None
        for a, w, v, c in opts.work_moves:
            pile = work[w]
            if c < len(pile):  # uncovers pile[-c - 1]
                under = pile[-c - 1]
                if playable_to_foundation(under, need):
                    rank = 0
                elif fits_on(nerts_top, under):
                    rank = 1
                else:
                    continue
                if not work[v]:
                    rank += 2  # uses up an empty pile: only if nothing better
            elif work[v] and nerts_top is not None:  # a whole pile onto another: a space
                rank = 4
            else:
                continue
            key = (rank, c)
            if best is None or key < best[0]:
                best = (key, a)
        return None if best is None else best[1]

    def waste_move(self, view: NertsView, opts: _Options) -> int | None:
        """The waste top onto a run or under a pile; into an empty pile only once the Nerts
        pile is empty."""
        me = view.seat
        work = view.work[me]
        onto = [a for a, w in opts.waste_to_work if work[w]]
        if onto:
            return onto[0]
        under = [a for a, s, _ in opts.slide if s == WASTE_SOURCE]
        if under:
            return under[0]
        if opts.waste_to_work and view.nerts_size[me] == 0:
            return opts.waste_to_work[0][0]
        return None
