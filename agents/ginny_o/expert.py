"""The Ginny-O equity bot (spec ``expert``): score now, plus the leave, minus the reply.

Strong programs for Scrabble-like games choose a move by its *equity*: what it scores now,
plus the value of the tiles it keeps (the *leave*), minus what it opens for the opponent.
:class:`ExpertGinnyAgent` does that from its own view (G17) only:

1. every legal placement gets the heuristic bot's value -- its score (G28), a bonus per
   tile placed and the value of the rack it leaves
   (:meth:`~agents.ginny_o.bots.HeuristicGinnyAgent.leave_value`);
2. the :data:`~ExpertGinnyAgent.TOP_K` best by that value are looked at one ply deeper: the
   placement is put on a copy of the board and the next seat's best reply is estimated by
   the compiled move generator over :data:`~ExpertGinnyAgent.SAMPLES` racks drawn from the
   tiles this seat cannot see (``view.unseen``: the box and the other racks together, never
   which is where), the mean of each sampled rack's highest placement score;
3. equity = value - :data:`~ExpertGinnyAgent.REPLY_WEIGHT` x that mean reply; the highest
   equity wins (ties: the first in the generator's order).

Returns and passes are the heuristic bot's. Rack samples come from the bot's own seeded
generator, so a seed gives the same games. The weights were chosen on arena seeds
700000-700999 (``bench/ginny_expert_tune.py``); the ladder in ``docs/ginny_o.md`` is measured
on other seeds.
"""

from __future__ import annotations

import numpy as np

from agents.ginny_o.bots import HeuristicGinnyAgent, remaining_tiles
from gnome_env.ginny_o.cards import NUM_KINDS
from gnome_env.ginny_o.config import RACK_SIZE
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.movegen import Placement, best_score


class ExpertGinnyAgent(HeuristicGinnyAgent):
    """Equity: the heuristic value minus the expected best reply (see the module docstring)."""

    spec = "expert"

    #: Placements looked at one ply deeper (the best by the heuristic value).
    TOP_K = 6
    #: Racks sampled from the unseen tiles for each of them.
    SAMPLES = 6
    #: Weight of the next seat's expected best reply.
    REPLY_WEIGHT = 0.5
    #: When set, the reply weight is this times the number of other seats instead of
    #: :data:`REPLY_WEIGHT` (what a placement opens, any of them may take before this
    #: seat's next turn); ``None`` keeps the fixed weight.
    REPLY_PER_SEAT: float | None = None

    def reply_weight(self, view: GinnyView) -> float:
        """The reply's weight at ``view``'s table (see :data:`REPLY_PER_SEAT`)."""
        if self.REPLY_PER_SEAT is None:
            return self.REPLY_WEIGHT
        return self.REPLY_PER_SEAT * (len(view.scores) - 1)

    def reply(self, view: GinnyView, placement: Placement, racks: list[list[int]]) -> float:
        """The mean best score the sampled ``racks`` (53 counts each) could place after
        ``placement`` (0 for a rack with no placement)."""
        board = view.board.copy()
        for c, tile, card in placement.tiles:
            board.put(c, tile == 52, card, placement.region)
        cfg = view.config
        best = []
        for counts in racks:
            best.append(
                best_score(
                    board,
                    counts,
                    max_tiles=RACK_SIZE,
                    descending_runs=cfg.descending_runs,
                    rescore_existing=cfg.rescore_existing,
                )
            )
        return float(np.mean(best)) if best else 0.0

    def sample_racks(self, view: GinnyView) -> list[list[int]]:
        """:data:`SAMPLES` racks of up to 7 tiles drawn without replacement from the unseen
        tiles (``view.unseen``), as 53 counts each."""
        pool = np.repeat(np.arange(NUM_KINDS), np.asarray(view.unseen, dtype=np.int64))
        if pool.size == 0:
            return []
        size = min(RACK_SIZE, pool.size)
        out = []
        for _ in range(self.SAMPLES):
            rack = self.rng.choice(pool, size=size, replace=False)
            out.append(np.bincount(rack, minlength=NUM_KINDS).tolist())
        return out

    def equity(self, view: GinnyView, value: float, placement: Placement, racks) -> float:
        """A replied placement's equity: ``value`` minus the weighted expected reply."""
        return value - self.reply_weight(view) * self.reply(view, placement, racks)

    def choose(self, view: GinnyView) -> int:
        """The index in ``view.placements`` of the highest-equity placement."""
        values = [self.value(view, p) for p in view.placements]
        order = sorted(range(len(values)), key=lambda i: (-values[i], i))[: self.TOP_K]
        if len(order) == 1:
            return order[0]
        racks = self.sample_racks(view)
        best, best_equity = order[0], None
        for i in sorted(order):
            equity = self.equity(view, values[i], view.placements[i], racks)
            if best_equity is None or equity > best_equity:
                best, best_equity = i, equity
        return best


class LookaheadGinnyAgent(ExpertGinnyAgent):
    """The expert's equity plus a look at the seat's *own* next turn (two plies of its own).

    For each of the :data:`~ExpertGinnyAgent.TOP_K` placements it also estimates what this
    seat could score next turn: the placement is put on a copy of the board, the rack it
    leaves is refilled with as many tiles as it places (G15) drawn from the tiles this seat
    cannot see (``view.unseen``, by its own seeded generator, :data:`OWN_SAMPLES` times),
    and the compiled generator's best score of each refilled rack is averaged (the board is
    the one after this placement: the opponents' moves in between are not simulated).
    equity = value - REPLY_WEIGHT x reply + :data:`OWN_WEIGHT` x own next best score, where
    value is the heuristic's without the per-tile bonus (:data:`TILE_BONUS` 0: the
    simulated refill replaces it). Chosen on pilot seeds 920100-920300 against the expert
    (``agents/policies/ginny_lookahead/README.md``); not a registered spec: it is the
    teacher of the ``ginny_lookahead`` policy (:mod:`agents.ginny_o.turns`).
    """

    spec = "lookahead"

    TILE_BONUS = 0.0
    #: Weight of this seat's own expected best score next turn.
    OWN_WEIGHT = 0.8
    #: Refilled racks sampled for each own-next-turn estimate.
    OWN_SAMPLES = 6

    def own_next(self, view: GinnyView, placement: Placement) -> float:
        """The mean best score this seat could place next turn after ``placement`` (the rack
        it leaves, refilled from the unseen tiles; the board as ``placement`` leaves it)."""
        board = view.board.copy()
        for c, tile, card in placement.tiles:
            board.put(c, tile == 52, card, placement.region)
        left = np.bincount(
            np.asarray(remaining_tiles(view, placement), dtype=np.int64), minlength=NUM_KINDS
        )
        pool = np.repeat(np.arange(NUM_KINDS), np.asarray(view.unseen, dtype=np.int64))
        draw = min(len(placement.tiles), view.box_size, pool.size)
        cfg = view.config
        out = []
        for _ in range(self.OWN_SAMPLES):
            counts = left
            if draw:
                drawn = self.rng.choice(pool, size=draw, replace=False)
                counts = left + np.bincount(drawn, minlength=NUM_KINDS)
            out.append(
                best_score(
                    board,
                    counts.tolist(),
                    max_tiles=RACK_SIZE,
                    descending_runs=cfg.descending_runs,
                    rescore_existing=cfg.rescore_existing,
                )
            )
        return float(np.mean(out)) if out else 0.0

    def equity(self, view: GinnyView, value: float, placement: Placement, racks) -> float:
        """The expert's equity plus :data:`OWN_WEIGHT` x :meth:`own_next`."""
        equity = super().equity(view, value, placement, racks)
        return equity + self.OWN_WEIGHT * self.own_next(view, placement)


__all__ = ["ExpertGinnyAgent", "LookaheadGinnyAgent"]
