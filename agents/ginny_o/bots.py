"""Ginny-O bots: players that decide from a :class:`~gnome_env.ginny_o.information.GinnyView` only.

A bot is an object with a ``seed`` and ``decide(view) -> int``, an id from
``view.legal_actions`` of the acting seat. The view is the seat's own information (G17): the
board, the scores, every rack's size, the box's size and the seat's own tiles -- never
another rack or the box's contents -- so a bot cannot depend on them
(``tests/ginny_o/test_ginny_bots.py`` permutes the hidden tiles and checks every bot decides the
same). Randomness comes from the bot's own ``numpy`` Generator, seeded from its seed; no
global random state is read or changed.

* :class:`RandomGinnyAgent` (spec ``random``): a uniformly random legal action id. A turn is
  several atomic steps (RL notes), so it mostly returns tiles and rarely finishes a
  placement: a floor, not a player.
* :class:`GreedyGinnyAgent` (spec ``greedy``): the highest-scoring legal placement
  (G28), else returns its *weak* tiles (:func:`weak_slots`) after a draw, else passes.
* :class:`HeuristicGinnyAgent` (spec ``heuristic``): greedy's choice, but a placement is
  worth its points plus a bonus per tile placed and a small value of the rack it leaves
  (:meth:`HeuristicGinnyAgent.leave_value`: jokers kept, tiles that still belong to a
  partial meld, and the rack penalty once the box runs low).

A placement is several steps (PLACE, DECLARE, COMMIT). The greedy bots choose a whole
placement at the first step, keep its canonical action sequence (``view.placement_actions``)
as a plan, and at every later step check that the planned action is in
``view.legal_actions``; if not, the plan is dropped and recomputed from the view.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.cards import JOKER, penalty_value, rank_of, suit_of
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.movegen import Placement


# ---------------------------------------------------------------------- tile arithmetic
def _positions(card: int) -> tuple[int, ...]:
    """G10: run positions of a card (ace 1 and 14, 2..K = 2..13)."""
    r = rank_of(card)
    return (1, 14) if r == 0 else (r + 1,)


def are_partners(a: int, b: int) -> bool:
    """Whether two tile kinds could sit in one meld together with a third tile: the same rank
    in different suits (a set, G9), or the same suit 1 or 2 run positions apart (a run with
    at most one gap, G10). Jokers and two copies of one card are never partners."""
    if JOKER in (a, b) or a == b:
        return False
    if rank_of(a) == rank_of(b):
        return True
    if suit_of(a) != suit_of(b):
        return False
    gap = min(abs(p - q) for p in _positions(a) for q in _positions(b))
    return 1 <= gap <= 2


#: :func:`are_partners` of every pair of kinds (53 x 53), so the bots look pairs up.
_PARTNERS = tuple(tuple(are_partners(a, b) for b in range(JOKER + 1)) for a in range(JOKER + 1))


def partner_counts(tiles: Sequence[int]) -> list[int]:
    """For each tile of ``tiles`` (kinds), how many of the others are its partners
    (:func:`are_partners`); a joker counts 0."""
    rows = [_PARTNERS[t] for t in tiles]
    return [sum(row[u] for j, u in enumerate(tiles) if j != i) for i, row in enumerate(rows)]


def weak_slots(slots: Sequence[int]) -> list[int]:
    """The rack slots greedy returns to the box when it cannot place (G14 "return").

    A tile is *weak* when no other rack tile is its partner (:func:`are_partners`: not the
    same rank, not the same suit within 2 ranks), so it is in no partial meld of the rack.
    Jokers are never weak. Every weak slot is returned, in increasing order. If no tile is
    weak, the single worst tile is returned: the fewest partners, then the highest rack
    penalty (G30), then the highest slot. A rack of jokers only returns its last joker (G14
    asks for at least one tile). ``slots`` holds kinds, -1 for an empty slot.
    """
    filled = [s for s, t in enumerate(slots) if t >= 0]
    tiles = [slots[s] for s in filled]
    counts = partner_counts(tiles)
    weak = [s for s, t, c in zip(filled, tiles, counts, strict=True) if t != JOKER and c == 0]
    if weak:
        return weak
    real = [
        (c, -penalty_value(t), -s)
        for s, t, c in zip(filled, tiles, counts, strict=True)
        if t != JOKER
    ]
    if not real:
        return [filled[-1]]
    return [-min(real)[2]]


def remaining_tiles(view: GinnyView, placement: Placement) -> list[int]:
    """The acting seat's unused tiles (kinds) that ``placement`` would leave on the rack."""
    left = [t for s, t in enumerate(view.slots) if t >= 0 and not view.slot_used[s]]
    for _, tile, _ in placement.tiles:
        left.remove(tile)
    return left


# ---------------------------------------------------------------------- the bots
class GinnyBot:
    """A seeded Ginny-O player that decides from a :class:`GinnyView`. Subclasses implement
    :meth:`decide`."""

    spec = "bot"

    def __init__(self, seed: int | None = None, config: GinnyConfig | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.config = config if config is not None else GinnyConfig()

    def decide(self, view: GinnyView) -> int:
        """A legal action id for ``view.seat`` (the acting seat); ``view`` is all it may use."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


class RandomGinnyAgent(GinnyBot):
    """Uniformly random over the legal action ids, from its own seeded generator (``random``)."""

    spec = "random"

    def decide(self, view: GinnyView) -> int:
        """A uniformly random id of ``view.legal_actions``."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} is not acting: there is no legal action")
        return legal[int(self.rng.integers(len(legal)))]


class GreedyGinnyAgent(GinnyBot):
    """The highest-scoring placement, played step by step (``greedy``).

    At the start of a turn, or after a commit when ``max_placements`` allows another
    placement, it takes the legal placement with the highest score (G28); ties go to the
    first in the move generator's order. With no placement: after a draw it returns
    :func:`weak_slots` (RETURN in increasing slot order, then CONFIRM_RETURN); without a
    draw it passes; after a commit it ends the turn (END_TURN). It never draws a random
    number.
    """

    spec = "greedy"

    def __init__(self, seed: int | None = None, config: GinnyConfig | None = None) -> None:
        super().__init__(seed, config)
        self._plan: list[int] = []
        self._plan_for: tuple[int, int] | None = None  # (turn, seat) the plan was made in

    def value(self, view: GinnyView, placement: Placement) -> float:
        """How much the bot likes ``placement``: greedy takes its score."""
        return placement.score

    def choose(self, view: GinnyView) -> int:
        """The index in ``view.placements`` of the placement to make (the first of the best)."""
        best, best_value = 0, None
        for i, p in enumerate(view.placements):
            v = self.value(view, p)
            if best_value is None or v > best_value:
                best, best_value = i, v
        return best

    def return_slots(self, view: GinnyView) -> list[int]:
        """The slots to return when no placement is made (greedy: :func:`weak_slots`)."""
        return weak_slots(view.slots)

    def decide(self, view: GinnyView) -> int:
        """The next step of the plan if it is still legal, else the first step of a new plan."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} is not acting: there is no legal action")
        if self._plan and self._plan_for == (view.turn, view.seat) and self._plan[0] in legal:
            return self._plan.pop(0)
        plan = self._new_plan(view)
        self._plan, self._plan_for = plan[1:], (view.turn, view.seat)
        return plan[0]

    def _new_plan(self, view: GinnyView) -> list[int]:
        legal = view.legal_actions
        if view.placements:
            return list(view.placement_actions[self.choose(view)])
        phase = view.phase
        if phase == "after_commit":
            return [A.END_TURN]
        if phase == "choose":
            if not view.drew:
                return [A.PASS]
            return [*(A.return_slot(s) for s in self.return_slots(view)), A.CONFIRM_RETURN]
        if phase == "returning":  # the plan was lost part way: finish the return from here
            marked = [s for s, m in enumerate(view.slot_marked) if m]
            more = [
                A.return_slot(s)
                for s in self.return_slots(view)
                if s > marked[-1] and A.return_slot(s) in legal
            ]
            return [*more, A.CONFIRM_RETURN]
        # placing / declaring without a plan (a placement started elsewhere): the trie only
        # offers steps towards legal placements, so commit as soon as possible.
        return [A.COMMIT] if A.COMMIT in legal else [legal[0]]


class HeuristicGinnyAgent(GreedyGinnyAgent):
    """Greedy with a value for the rack a placement leaves (``heuristic``).

    A placement is worth ``score + TILE_BONUS * tiles placed + leave_value(tiles it leaves)``
    (:meth:`leave_value`), so it prefers plays that use more tiles (each is replaced by a
    fresh draw, G15, and can no longer cost a rack penalty, G30), keeps jokers unless the
    play pays for them, keeps tiles that still form partial melds, and, once the box runs
    low, prefers to shed tiles that would cost a rack penalty. Returns and passes as greedy.

    Measured against greedy (``results/ginny_o/ladder/``, arena seed 0): not measurably
    stronger -- 0.515 [0.486, 0.544] of 400 two-player games (13.6 points a game more) and
    0.255 [0.212, 0.298] of 200 four-player games against three greedy bots (1/n = 0.25).
    The weights were picked on seeds 11 and 12, where variants scored 0.51-0.53.
    """

    spec = "heuristic"

    #: What a joker kept on the rack is worth (a joker scores 0 itself, G11, but enables melds).
    JOKER_KEEP = 12.0
    #: What a tile with at least one partner on the rack is worth (it is half of a meld).
    PARTNER = 2.0
    #: The box size below which the rack penalty starts to count (fully at 0 tiles).
    ENDGAME_BOX = 12
    #: What each tile placed is worth beyond its points (a fresh tile drawn for it).
    TILE_BONUS = 4.0

    def leave_value(self, view: GinnyView, tiles: Sequence[int]) -> float:
        """The value of keeping ``tiles`` (kinds) on the rack in the position of ``view``."""
        counts = partner_counts(tiles)
        late = max(0.0, 1.0 - view.box_size / self.ENDGAME_BOX)
        total = 0.0
        for t, c in zip(tiles, counts, strict=True):
            if t == JOKER:
                total += self.JOKER_KEEP * (1.0 - late)
                continue
            if c:
                total += self.PARTNER * (1.0 - late)
            total -= late * penalty_value(t)
        return total

    def value(self, view: GinnyView, placement: Placement) -> float:
        """The placement's score, its tile bonus and the value of the tiles it leaves."""
        left = remaining_tiles(view, placement)
        return (
            placement.score + self.TILE_BONUS * len(placement.tiles) + self.leave_value(view, left)
        )


__all__ = [
    "GinnyBot",
    "GreedyGinnyAgent",
    "HeuristicGinnyAgent",
    "RandomGinnyAgent",
    "are_partners",
    "partner_counts",
    "remaining_tiles",
    "weak_slots",
]
