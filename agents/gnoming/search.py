"""SearchAgent: determinized Monte Carlo search over the seat's public information.

For each decision the agent

1. samples complete games consistent with its :class:`~gnome_env.gnoming.information.SeatView`
   (:func:`gnome_env.gnoming.information.sample_game`: unseen cards dealt at random, a fresh seed
   for future reshuffles and deals -- the true hidden cards are never looked at);
2. applies each candidate action to the same sample and plays on, sharing one rollout
   seed across candidates (common random numbers);
3. scores the end of the rollout for its own seat and picks the action with the best mean.

A rollout runs until the current round ends (then the exact round scores count: R18-R22)
or until ``horizon`` more turns after the current one have ended (0, the default: the end
of the current turn; ``None``: no horizon).

* ``guided=True`` (default): the seat's own later decisions in the rollout are the
  :class:`~agents.gnoming.expert.ExpertAgent`'s, other seats use the fast :class:`RolloutPolicy`,
  and the end is valued by the expert's layout value (expected score minus line potential,
  R21 expectation when the seat has just gone out). The value is minus that estimate, or
  minus the exact round score when the round ended.
* ``guided=False``: every seat plays the fast :class:`RolloutPolicy`; the end is valued by
  face-up cards plus the mean unseen card for each face-down one; the value is the mean of
  the other seats' (estimated or exact) round scores minus the agent's own.

In the last round the agent's share of the game win is added with weight ``WIN_WEIGHT``.
Measured (docs/bots.md, results/gnoming/ladder): it does not beat the expert at a budget of at most
50 ms per decision (2,000 games per seat count at 10 ms: clearly weaker; 150 at 50 ms: level
with the expert or below).

Budget: ``rollouts`` (total rollouts per decision, deterministic) and optionally
``max_ms`` (stop sampling after that many milliseconds; not reproducible across machines).
Spec strings: ``search`` (defaults), ``search:400`` (rollouts), ``search:50ms`` (time).
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np

from agents.gnoming.base import BotAgent
from agents.gnoming.expert import ExpertAgent
from agents.gnoming.heuristics import CardStats, layout_estimate
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, MULLIGAN
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game, Phase
from gnome_env.gnoming.information import SeatView, sample_game
from gnome_env.gnoming.scoring import card_points

WIN_WEIGHT = 30.0


def estimated_layout_score(layout: Sequence[int], face_up: Sequence[bool], mean: float) -> float:
    """Face-up cards scored by R18-R20 (lines only among face-up cards), face-down at ``mean``."""
    return layout_estimate([c if u else None for c, u in zip(layout, face_up, strict=True)], mean)


class RolloutPolicy:
    """A cheap heuristic player used inside rollouts (it reads the sampled game directly).

    Draw: take a pile top that is negative, low (<= 3), matches an own card, or is much
    better than the worst face-up card. Place/bounce: onto the target that gains most
    (a face-down card is valued at 5.5, a match adds 2); a poor card is discarded instead.
    Flips: a random face-down card.
    """

    def __init__(self, rng: np.random.Generator) -> None:
        self.random = rng.random

    def act(self, game: Game) -> int:
        """A legal action for ``game.current_seat``."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        phase = game.phase
        seat = game.current_seat
        layout, up = game.layouts[seat], game.face_up[seat]
        if phase == Phase.DRAW:
            worst = 0
            for q in range(9):
                if up[q] and layout[q] != HAZARD and layout[q] > worst:
                    worst = layout[q]
            piles = game.piles
            for action in legal:
                if action == A.TAKE_A or action == A.TAKE_B:
                    top = piles[action - A.TAKE_A][-1]
                    if top in (HAZARD, MULLIGAN):
                        continue
                    if top < 0 or top <= 3 or top in layout or top < worst - 4:
                        return action
            return A.DRAW if legal[0] == A.DRAW else legal[0]
        if phase == Phase.PLACE or phase == Phase.DISPLACED:
            card = game.held
            points = card_points(card)
            matches = 0 < card < HAZARD and card in layout
            base = A.PLACE if phase == Phase.PLACE else A.BOUNCE
            best, best_gain = -1, 0.0
            discard = -1
            for action in legal:
                if action == A.DISCARD_A or action == A.DISCARD_B:
                    if discard < 0 or self.random() < 0.5:
                        discard = action
                    continue
                q = action - base
                old = card_points(layout[q]) if up[q] else 5.5
                gain = old - points + (2.0 if matches else 0.0)
                if gain > best_gain:
                    best, best_gain = action, gain
            good = phase == Phase.DISPLACED or points <= 4  # a bouncing card matches
            if best >= 0 and (good or best_gain > 3.0 or discard < 0):
                return best
            if discard >= 0:
                return discard
            return legal[int(self.random() * len(legal))]
        if legal[-1] == A.DECLINE:
            return legal[int(self.random() * (len(legal) - 1))]
        return legal[int(self.random() * len(legal))]


class SearchAgent(BotAgent):
    """Determinized Monte Carlo search (see the module docstring)."""

    spec = "search"

    def __init__(
        self,
        seed: int | None = None,
        config: RulesConfig | None = None,
        rollouts: int = 64,
        max_ms: float | None = None,
        horizon: int | None = 0,
        guided: bool = True,
    ) -> None:
        super().__init__(seed, config)
        if rollouts < 1:
            raise ValueError(f"rollouts={rollouts!r} is not allowed: must be at least 1")
        if max_ms is not None and max_ms <= 0:
            raise ValueError(f"max_ms={max_ms!r} is not allowed: must be positive or None")
        if horizon is not None and horizon < 0:
            raise ValueError(f"horizon={horizon!r} is not allowed: must be at least 0 or None")
        self.rollouts = rollouts
        self.max_ms = max_ms
        self.horizon = horizon
        self.guided = guided
        # In guided mode the seat's own later decisions in a rollout, and the value of the
        # rollout's end, come from the expert's evaluation (lower is better there).
        self._expert = ExpertAgent(seed, config) if guided else None
        self._decisions: dict[SeatView, int] = {}
        self._values: dict[SeatView, float] = {}

    def decide(self, view: SeatView) -> int:
        """The candidate action with the best mean rollout value."""
        legal = list(view.legal_actions)
        if len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        mean = CardStats(view.unseen).mean
        # Different samples often reach the same public situation (the view depends only on
        # the cards the seat sees), so the expert's decisions and values are memoized per
        # decision, keyed by the view: the same results, computed once.
        self._decisions = {}
        self._values = {}
        values = np.zeros(len(legal))
        samples = 0
        while samples == 0 or (samples + 1) * len(legal) <= self.rollouts:
            if (
                self.max_ms is not None
                and samples
                and ((time.perf_counter() - start) * 1000 >= self.max_ms)
            ):
                break
            sample = sample_game(view, self.rng)
            rollout_seed = int(self.rng.integers(2**63 - 1))
            for k, action in enumerate(legal):
                game = sample.copy()
                game.step(action)
                policy = RolloutPolicy(np.random.default_rng(rollout_seed))
                values[k] += self._rollout(game, view.seat, policy, mean)
            samples += 1
        return legal[int(np.argmax(values))]

    def _rollout(self, game: Game, seat: int, policy: RolloutPolicy, mean: float) -> float:
        """Play on until the round ends (or the horizon) and value the outcome for ``seat``."""
        rounds = len(game.round_results)
        stop = None if self.horizon is None else game.turns_played + 1 + self.horizon
        expert = self._expert
        while len(game.round_results) == rounds and not game.game_over:
            if stop is not None and game.turns_played >= stop:
                if expert is not None:
                    return -self._expert_value(SeatView.from_game(game, seat))
                n = game.num_players
                est = [
                    estimated_layout_score(game.layouts[s], game.face_up[s], mean) for s in range(n)
                ]
                return (sum(est) - est[seat]) / (n - 1) - est[seat]
            if expert is not None and game.current_seat == seat:
                game.step(self._expert_decision(SeatView.from_game(game, seat)))
            else:
                game.step(policy.act(game))
        scores = game.round_results[-1].round_scores
        n = len(scores)
        if expert is not None:
            value = -float(scores[seat])
        else:
            value = (sum(scores) - scores[seat]) / (n - 1) - scores[seat]
        if game.game_over:
            winners = game.winners()
            if seat in winners:
                value += WIN_WEIGHT / len(winners)
        return value

    def _expert_value(self, view: SeatView) -> float:
        """The expert's layout value of ``view`` (memoized for the current decision)."""
        value = self._values.get(view)
        if value is None:
            value = self._values[view] = self._expert.layout_value(view)
        return value

    def _expert_decision(self, view: SeatView) -> int:
        """The expert's action in ``view`` (memoized for the current decision)."""
        action = self._decisions.get(view)
        if action is None:
            action = self._decisions[view] = self._expert.decide(view)
        return action

    def __repr__(self) -> str:
        budget = f"rollouts={self.rollouts}"
        if self.max_ms is not None:
            budget += f", max_ms={self.max_ms}"
        return (
            f"SearchAgent(seed={self.seed!r}, {budget}, horizon={self.horizon}, "
            f"guided={self.guided})"
        )
