"""The expert heuristic bot (spec ``expert``).

It values a layout with :class:`agents.gnoming.heuristics.Evaluator`: the expected score over the
unseen cards (card counting: a face-down card is the mean unseen card, and a line whose
face-down cards could complete it counts with that chance), minus the *potential* of lines
one or two cards short of matching -- worth the chance of drawing or taking a filler
(the line's value or a mulligan) in the turns left, times the points completing the line
saves. The turns left come from the opponents' face-down counts (the closest one to going
out sets the pace); in the endgame (someone went out) this is the last turn, so the bot
minimizes its expected score now.

* Draw: compare the best use of each discard-pile top with the expected best use of a
  drawn card (over every unseen kind).
* Place / bounce: the move with the lowest resulting value; a face-down card turned up by a
  placement may bounce, and bounces are judged the same way (each step of a chain is
  decided once the next displaced card is seen).
* Going out (turning its last face-down card, R15): the value is the layout's score plus
  the expected R21 bonus, +5 - 10 x P(lowest), where P(lowest) compares the score with
  every opponent's expected final score (their face-up cards, expected face-down cards and
  one more turn of improvement) as a normal distribution. So it goes out when it is likely
  lowest and otherwise keeps a face-down card.
* Discard: onto the pile whose top would help the next player most (hiding it).
* Opening flips: two cards of one row (a pair found early is a line to build).
* Hazard flips (R13): always flip. Flipping never changes the expected score; it adds
  information (a bad card is found and can be replaced, a filler completes a line now)
  and brings the seat closer to going out, and a flip never turns the last card. Its only
  cost is that a face-up card can no longer bounce (R11), which is worth less than the
  information. It flips the card most likely to complete a line.
"""

from __future__ import annotations

import math

from agents.gnoming.base import BotAgent
from agents.gnoming.heuristics import (
    LINES_OF,
    CardStats,
    Evaluator,
    Prepared,
    choose_discard_pile,
    discard_actions,
    first_out_value,
    flip_actions,
    lowest_chance,
    placeable,
    placed,
)
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, LINES, MULLIGAN
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.scoring import layout_score_codes

OPENING = (0, 1, 2, 3, 4, 5, 6, 7, 8)


class _Context:
    """What one decision needs: the seat's layout, the card statistics and the evaluator."""

    __slots__ = ("base", "evaluator", "last_turn", "layout", "opponents", "stats", "view")

    def __init__(self, agent: ExpertAgent, view: SeatView) -> None:
        self.view = view
        self.stats = stats = CardStats(view.unseen)
        me = view.seat
        self.layout = view.layouts[me]
        # No turn after this one: the endgame was triggered (R15), or the seat has just
        # turned its last card (it is going out; only the bounce chain is left to decide).
        self.last_turn = view.endgame_turns_left is not None or (
            view.phase == Phase.DISPLACED and None not in self.layout
        )
        if self.last_turn:
            horizon = 0.0
        else:
            down = [
                sum(1 for c in view.layouts[s] if c is None)
                for s in range(view.num_players)
                if s != me
            ]
            closest = min(down) if down else 9
            horizon = 1.0 + agent.pace * max(0, closest - 1)
        self.evaluator = Evaluator(
            stats, horizon, agent.weight, agent.weight2, agent.sights_per_turn
        )
        self.base = self.evaluator.prepare(self.layout)
        self.opponents: list[tuple[float, float]] | None = None

    def opponent_outlook(self, agent: ExpertAgent) -> list[tuple[float, float]]:
        """(expected final score, sd) of every opponent if this seat goes out now."""
        if self.opponents is None:
            view = self.view
            ev = self.evaluator
            var = self.stats.var
            out = []
            for s in range(view.num_players):
                if s == view.seat:
                    continue
                layout = view.layouts[s]
                down = sum(1 for c in layout if c is None)
                mean = ev.expected_score(layout) - agent.last_turn_gain
                sd = math.sqrt(down * var + agent.last_turn_sd**2)
                out.append((mean, sd))
            self.opponents = out
        return self.opponents


class ExpertAgent(BotAgent):
    """Card counting, line building and endgame timing; see the module docstring."""

    spec = "expert"

    #: potential weight of lines one card short of matching (see Evaluator)
    weight = 0.6
    #: potential weight of lines two cards short
    weight2 = 0.3
    #: cards seen per turn when estimating the chance of getting a filler
    sights_per_turn = 1.5
    #: turns per face-down card of the opponent closest to going out
    pace = 1.5
    #: expected improvement of an opponent's last turn after this seat goes out
    last_turn_gain = 2.5
    last_turn_sd = 3.0
    #: opening flips: the first face-down positions in this order
    opening = OPENING
    #: whether a placement on a face-down card counts the chance to bounce what it turns up
    bounce_lookahead = True
    bounce_margin = 3.0
    #: whether hazard flips are taken
    hazard_flip = True

    def decide(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        phase = view.phase
        if phase == Phase.OPENING_FLIP:
            return self._opening_flip(view)
        ctx = _Context(self, view)
        if phase == Phase.HAZARD_FLIP:
            return self._hazard_flip(ctx)
        if phase == Phase.DRAW:
            return self._draw(ctx)
        if phase == Phase.PLACE:
            return self._place(ctx)
        return self._displaced(ctx)

    # ------------------------------------------------------------------ values
    def layout_value(self, view: SeatView) -> float:
        """The expert's value (lower is better) of ``view.seat``'s layout as it stands.

        A seat that has just gone out (R15) gets the R21 expectation of its exact score;
        otherwise the evaluator's expected score minus line potential. The search bot uses
        this to value the end of its rollouts.
        """
        ctx = _Context(self, view)
        if view.first_out == view.seat and view.endgame_turns_left == view.num_players - 1:
            score = layout_score_codes(ctx.layout)  # type: ignore[arg-type]
            chance = lowest_chance(
                score, ctx.opponent_outlook(self), view.config.first_out_tie_is_lowest
            )
            return first_out_value(score, chance)
        return ctx.base.total

    def _outcome(self, ctx: _Context, base: Prepared, pos: int, card: int) -> float:
        """Value (lower is better) of the seat's layout ``base`` with ``card`` put at ``pos``,
        as it stands at the end of this turn; going out (R15) gets the R21 expectation."""
        if ctx.last_turn or base.down != 1 or base.layout[pos] is not None:
            return ctx.evaluator.value_at(base, pos, card)
        score = layout_score_codes(placed(base.layout, pos, card))  # type: ignore[arg-type]
        chance = lowest_chance(
            score,
            ctx.opponent_outlook(self),
            ctx.view.config.first_out_tie_is_lowest,
        )
        return first_out_value(score, chance)

    def _best_place(
        self,
        ctx: _Context,
        base: Prepared,
        card: int,
        legal: tuple[int, ...] | None,
        bounces: bool = False,
    ) -> tuple[float, int]:
        """(value, action) of the best place action for ``card`` (legal=None: every R12-legal
        position). With ``bounces``, a face-down card it turns up may bounce (R11)."""
        best_value, best_action = math.inf, -1
        layout = base.layout
        check = card == MULLIGAN and legal is None
        plain: list[tuple[float, int]] = []
        for q in range(9):
            action = A.PLACE + q
            if legal is not None and action not in legal:
                continue
            if check and not placeable(layout, card, q):
                continue  # R12
            value = self._outcome(ctx, base, q, card)
            plain.append((value, q))
            if value < best_value:
                best_value, best_action = value, action
        if bounces and base.down > 1 and not ctx.last_turn:
            # A face-down card turned up may bounce: worth a few points at most, so only
            # the places within ``bounce_margin`` of the best are looked at again.
            limit = best_value + self.bounce_margin
            for value, q in plain:
                if layout[q] is None and value < limit:
                    value = self._with_bounce(ctx, base, q, card, value)
                    if value < best_value or (value == best_value and A.PLACE + q < best_action):
                        best_value, best_action = value, A.PLACE + q
        return best_value, best_action

    def _with_bounce(
        self, ctx: _Context, base: Prepared, pos: int, card: int, keep: float
    ) -> float:
        """Expected value of putting ``card`` on the face-down card at ``pos``: the card turned
        up is discarded (value ``keep``) or, if it matches (R11), bounced where best."""
        after = ctx.evaluator.prepare(placed(base.layout, pos, card))
        targets = [
            q for q in range(9) if q != pos and not (ctx.view.filled >> q & 1)
        ]  # a bounce may go to any place not filled this turn
        total = 0.0
        for shown, prob in ctx.stats.kinds():
            best = keep
            if 0 < shown < HAZARD and shown in after.layout:
                for q in targets:
                    value = self._outcome(ctx, after, q, shown)
                    if value < best:
                        best = value
            total += prob * best
        return total if ctx.stats.total else keep

    # ------------------------------------------------------------------ phases
    def _opening_flip(self, view: SeatView) -> int:
        legal = view.legal_actions
        for q in self.opening:
            if A.FLIP + q in legal:
                return A.FLIP + q
        return legal[0]

    def _hazard_flip(self, ctx: _Context) -> int:
        flips = flip_actions(ctx.view.legal_actions)
        if not flips or not self.hazard_flip:
            return A.DECLINE
        ev = ctx.evaluator
        layout = ctx.layout
        best_action, best_p = flips[0], -1.0
        for action in flips:
            q = action - A.FLIP
            p = 0.0
            for i in LINES_OF[q]:
                a, b, c = LINES[i]
                p += ev.line(layout[a], layout[b], layout[c])[0]
            if p > best_p + 1e-12:
                best_action, best_p = action, p
        return best_action

    def _draw(self, ctx: _Context) -> int:
        view = ctx.view
        legal = view.legal_actions
        base = ctx.base
        can_rediscard = view.config.discard_taken_card
        keep = base.total
        options: list[tuple[float, int]] = []
        for action in (A.TAKE_A, A.TAKE_B):
            if action not in legal:
                continue
            top = view.pile_tops[action - A.TAKE_A]
            value, _ = self._best_place(ctx, base, top, None)
            if can_rediscard:
                value = min(value, keep)
            options.append((value, action))
        if A.DRAW in legal:
            options.append((self._draw_value(ctx, keep), A.DRAW))
        return min(options)[1]

    def _draw_value(self, ctx: _Context, keep: float) -> float:
        """Expected value of drawing: the best use of each unseen kind, weighted."""
        base = ctx.base
        total = 0.0
        for card, prob in ctx.stats.kinds():
            if card == HAZARD:
                best = keep
            else:
                best, _ = self._best_place(ctx, base, card, None)
                best = min(best, keep)
            total += prob * best
        if not ctx.stats.total:
            return keep
        return total

    def _place(self, ctx: _Context) -> int:
        view = ctx.view
        legal = view.legal_actions
        value, action = self._best_place(ctx, ctx.base, view.hand, legal, self.bounce_lookahead)
        if discard_actions(legal) and (action < 0 or value >= ctx.base.total - 1e-9):
            return choose_discard_pile(view, ctx.stats)
        return action if action >= 0 else legal[0]

    def _displaced(self, ctx: _Context) -> int:
        view = ctx.view
        legal = view.legal_actions
        base = ctx.base
        card = view.hand
        best_value = base.total - 1e-9
        best_action = -1
        for action in legal:
            if A.BOUNCE <= action < A.BOUNCE + 9:
                value = self._outcome(ctx, base, action - A.BOUNCE, card)
                if value < best_value:
                    best_value, best_action = value, action
        if best_action >= 0:
            return best_action
        return choose_discard_pile(view, ctx.stats)
