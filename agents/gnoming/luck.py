"""Luck correction for Gnoming A Round: a zero-mean control variate from the chance events.

A game's outcome mixes skill with the luck of the cards. Following AIVAT (Burch et al., AAAI
2018), the arena subtracts from each seat's outcome the luck it can see: at every chance
event, the value of the outcome that happened minus the exact expectation of that value over
the outcomes the engine could have produced. Each term has expectation zero given everything
before it, so the corrected outcome has the same expectation as the plain one -- for *any*
value function -- and a smaller variance the better the value predicts (``docs/arena.md``,
"Luck correction", has the derivation).

**Chance events.** The deck is shuffled before each round (R3), but nobody sees a face-down
card or the order of the draw pile until a card is turned, so the game is equivalent to one
that *deals lazily*: a card's identity is drawn when it first becomes known to anyone, uniform
over the cards nobody has seen yet (the multiset ``unseen``: the round's deck minus every card
turned up so far this round). Those moments are the chance events:

* the R4 starting cards of the discard piles (and hazards removed there);
* a face-down card turned where it lies: an opening flip (R5), a hazard flip (R13);
* the reveal at the end of the round (R16): every face-down card at once, one joint event
  whose expectation is estimated without bias from sampled reveals;
* a face-down card displaced into the hand (R10);
* a card drawn from the draw pile (R7), uniform over ``unseen`` -- or, after an R8 reshuffle,
  uniform over the reshuffled pile's cards not yet drawn, which are known cards in an unknown
  order.

No agent sees a face-down card, and agents' own randomness is independent of the deck, so the
conditional distribution of each event given the public history is exactly that uniform one.
Decisions are not corrected (their correction is zero for deterministic bots and needs the
action distribution otherwise).

**Value.** :mod:`agents.gnoming.luck_kernel`: the public state's win probability per seat
(and predicted total) from fitted layout estimates; the parameters are
``agents/gnoming/luck_value.json``, fitted by ``training/gnoming/luck_fit.py`` on self-play
games of seeds the arena never uses for evaluation.

:func:`game_luck` returns, per seat, the sum of the correction terms of one finished game
(``win``: for the win share; ``total``: for the game total); the arena subtracts them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agents.core.value_files import check_value_header, read_value_file
from agents.gnoming import luck_kernel as K
from gnome_env.core import rng
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game, Phase

#: The shipped value parameters (see ``training/gnoming/luck_fit.py``).
VALUE_FILE = Path(__file__).with_name("luck_value.json")
VALUE_FORMAT = "gnome_env.gnoming_luck_value"
MAX_DOWN = 9


@dataclass(frozen=True)
class LuckValue:
    """The value function's parameters: ``coef[phase, face-down count, clock, feature]`` of
    the layout estimate and ``sigma[4, 2]`` of the win model
    (see :mod:`~agents.gnoming.luck_kernel`)."""

    coef: np.ndarray
    sigma: np.ndarray
    meta: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": VALUE_FORMAT,
            "version": 1,
            "features": list(K.FEATURES),
            "coef": np.round(self.coef, 6).tolist(),
            "sigma": np.round(self.sigma, 6).tolist(),
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: Any, source: str = "value parameters") -> LuckValue:
        check_value_header(data, VALUE_FORMAT, source)
        try:
            coef = np.asarray(data["coef"], dtype=np.float64)
            sigma = np.asarray(data["sigma"], dtype=np.float64)
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(
                f"{source}: coef and sigma must be arrays of numbers ({err})"
            ) from None
        want = (3, MAX_DOWN + 1, K.CLOCKS, K.NUM_FEATURES)
        if coef.shape != want or sigma.shape != (4, 2):
            raise ValueError(
                f"{source}: coef must have shape {want} and sigma (4, 2), got "
                f"{coef.shape} and {sigma.shape}"
            )
        if not (np.isfinite(coef).all() and np.isfinite(sigma).all()):
            raise ValueError(f"{source}: coef and sigma must be finite numbers")
        return cls(coef, sigma, dict(data.get("meta", {})))

    @classmethod
    def load(cls, path: str | Path = VALUE_FILE) -> LuckValue:
        return cls.from_dict(read_value_file(path, VALUE_FORMAT), str(path))

    @staticmethod
    def untrained() -> LuckValue:
        """A value that knows only the face-up points (an unfitted starting point)."""
        coef = np.zeros((3, MAX_DOWN + 1, K.CLOCKS, K.NUM_FEATURES))
        coef[..., 1] = 1.0
        coef[..., 2] = 1.0
        coef[..., 3] = 10.0
        coef[..., 4] = 1.0
        coef[..., 0] = 5.0 * np.arange(MAX_DOWN + 1)[:, None]
        sigma = np.array([[4.0, 4.0], [4.0, 4.0], [1.0, 4.0], [8.0, 0.0]])
        return LuckValue(coef, sigma, {"fitted": False})


@lru_cache(maxsize=1)
def shipped_value() -> LuckValue:
    """The shipped parameters (``luck_value.json``), loaded once per process."""
    return LuckValue.load(VALUE_FILE)


@dataclass
class ChanceEvent:
    """One chance event and the public state right after it.

    ``vals``/``known`` (``[n, 9]``): the layouts after the event, face-down positions marked
    unknown; ``kind`` (:data:`~agents.gnoming.luck_kernel.REVEAL_AT`, ``DRAWN``,
    ``DISPLACED``), ``seat``, ``pos`` (the position turned or emptied), ``card`` (what came),
    ``support``/``counts``: the cards that could have come and how many of each;
    ``totals``: the totals before this round; ``phase``, ``rounds_left`` (rounds after this
    one), ``first_out`` (-1: nobody), ``filled`` (the positions filled this turn, a bit mask).
    ``seed``: the game's (it keys the samples of :func:`event_terms`).

    The end-of-round reveal (R16) is one event of kind ``REVEAL_ALL``: ``vals`` are the
    revealed layouts, ``known`` says which cards were face up before it, ``seat``, ``pos``
    and ``card`` are -1; its cards are drawn together from ``support``.
    """

    round: int
    kind: int
    seat: int
    pos: int
    card: int
    support: np.ndarray
    counts: np.ndarray
    vals: np.ndarray
    known: np.ndarray
    totals: np.ndarray
    phase: int
    rounds_left: int
    first_out: int
    filled: int
    seed: int = 0


def _support(pool: Counter[int]) -> tuple[np.ndarray, np.ndarray]:
    cards = sorted(c for c, k in pool.items() if k > 0)
    return np.array(cards, dtype=np.int64), np.array([pool[c] for c in cards], dtype=np.float64)


def _take(pool: Counter[int], card: int, what: str) -> None:
    if pool[card] <= 0:  # the lazy-deal bookkeeping disagrees with the engine: a bug
        raise AssertionError(f"{what}: card {card} is not among the cards it could be")
    pool[card] -= 1


def chance_events(
    config: RulesConfig,
    seed: int,
    actions: Sequence[int],
    stacked_decks: Mapping[int, Sequence[object]] | None = None,
) -> Iterator[ChanceEvent]:
    """Replay ``Game(config, seed, stacked_decks=...)`` with ``actions`` and yield every
    chance event in order (the R4 cards only update ``unseen``: the value does not look at
    discard piles)."""
    game = Game(config, seed, stacked_decks=stacked_decks)
    n = game.num_players
    deck = Counter(config.deck.cards())
    rounds = config.rounds

    def round_start() -> Counter[int]:
        unseen = Counter(deck)
        for pile in game.piles:  # R4
            for card in pile:
                _take(unseen, card, "R4 discard")
        for _ in range(game.hazards_removed):
            _take(unseen, HAZARD, "R4 hazard")
        return unseen

    unseen = round_start()

    def event(kind, who, pos, card, pool, layouts, up, totals, phase, first_out, filled):
        """The event, with copies of the state after it."""
        support, counts = pool
        return ChanceEvent(
            r,
            kind,
            who,
            pos,
            card,
            support,
            counts,
            np.array(layouts, dtype=np.int64),
            np.array(up, dtype=np.bool_),
            np.asarray(totals, dtype=np.float64),
            phase,
            rounds - 1 - r,
            first_out,
            filled,
            seed,
        )

    for action in actions:
        phase = game.phase
        seat = game.current_seat
        turn_player = game.turn_player
        r = game.round
        pre_up = [list(row) for row in game.face_up]
        pre_pile_empty = not game.draw_pile
        pre_reshuffled = game.reshuffles > 0
        n_results = len(game.round_results)
        game.step(action)
        ended = len(game.round_results) > n_results
        own: ChanceEvent | None = None
        # the state right after this step's own effect, before any end of round
        if ended:
            res = game.round_results[-1]
            layouts = [list(x) for x in res.layouts]
            totals = [game.totals[s] - res.round_scores[s] for s in range(n)]
            first_out = -1 if res.first_out is None else res.first_out
            up = pre_up
        else:
            layouts = game.layouts
            totals = list(game.totals)
            first_out = -1 if game.first_out is None else game.first_out
            up = game.face_up
        play_phase = K.PLAY if first_out < 0 else K.ENDGAME
        if phase in (Phase.OPENING_FLIP, Phase.HAZARD_FLIP) and A.FLIP <= action < A.DECLINE:
            pos = action - A.FLIP
            if ended:
                up = [list(row) for row in pre_up]
                up[seat][pos] = True
            card = layouts[seat][pos]
            pool = _support(unseen)
            _take(unseen, card, "flip")
            own = event(
                K.REVEAL_AT, seat, pos, card, pool, layouts, up, totals, play_phase, first_out, 0
            )
        elif phase == Phase.DRAW and action == A.DRAW:
            card = game.held
            if pre_reshuffled or pre_pile_empty:  # R8: a known pile in an unknown order
                pile = Counter(game.draw_pile)
                pile[card] += 1
                pool = _support(pile)
            else:
                pool = _support(unseen)
                _take(unseen, card, "draw")
            own = event(
                K.DRAWN, turn_player, 0, card, pool, layouts, up, totals, play_phase, first_out, 0
            )
        elif phase in (Phase.PLACE, Phase.DISPLACED):
            pos = -1
            if phase == Phase.PLACE and A.PLACE <= action < A.DISCARD_A:
                pos = action - A.PLACE
            elif phase == Phase.DISPLACED and action >= A.BOUNCE:
                pos = action - A.BOUNCE
            if pos >= 0 and not pre_up[turn_player][pos]:
                card = game.held
                pool = _support(unseen)
                _take(unseen, card, "displaced")
                own = event(
                    K.DISPLACED,
                    turn_player,
                    pos,
                    card,
                    pool,
                    layouts,
                    up,
                    totals,
                    play_phase,
                    first_out,
                    game.filled,
                )
        if own is not None:
            yield own
        if not ended:
            continue
        # R16: every face-down card is turned at once: one joint event
        known_now = [list(row) for row in up]
        if own is not None and own.kind == K.REVEAL_AT:
            known_now[own.seat][own.pos] = True
        hidden = [layouts[s][p] for s in range(n) for p in range(9) if not known_now[s][p]]
        if hidden:
            pool = _support(unseen)
            for card in hidden:
                _take(unseen, card, "R16 reveal")
            yield event(
                K.REVEAL_ALL, -1, -1, -1, pool, layouts, known_now, totals, K.REVEAL, first_out, 0
            )
        if not game.game_over:
            unseen = round_start()


#: Sampled reveals per end-of-round event (see :func:`event_terms`).
REVEAL_SAMPLES = 64


def revealed_values(
    event: ChanceEvent, value: LuckValue, tie: bool, vals: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(win, predicted total) per seat of a round scored with every card known: the joint R16
    event's layouts, or ``vals`` in their place."""
    n = event.vals.shape[0]
    win, est = np.zeros(n), np.zeros(n)
    K.state_values(
        event.vals if vals is None else vals,
        np.ones_like(event.known),
        event.totals,
        K.REVEAL,
        event.rounds_left,
        event.first_out,
        tie,
        value.coef,
        value.sigma,
        win,
        est,
    )
    return win, est


def value_table(event: ChanceEvent, value: LuckValue, tie: bool) -> tuple[np.ndarray, np.ndarray]:
    """(win, predicted total), ``[len(support), n]`` each: the state after a single-card
    event for every card it could have produced."""
    k, n = len(event.support), event.vals.shape[0]
    win, est = np.zeros((k, n)), np.zeros((k, n))
    K.event_values(
        event.vals,
        event.known,
        event.totals,
        event.phase,
        event.rounds_left,
        event.first_out,
        tie,
        event.kind,
        event.seat,
        max(event.pos, 0),
        event.filled,
        event.support,
        value.coef,
        value.sigma,
        win,
        est,
    )
    return win, est


def _reveal_terms(event: ChanceEvent, value: LuckValue, tie: bool) -> tuple[np.ndarray, np.ndarray]:
    """R16's joint event: the exact value of the revealed layouts minus the mean value of
    :data:`REVEAL_SAMPLES` reveals drawn from the unseen cards (each a uniformly random
    assignment of them to the face-down positions, from the stream ``(LUCK_SAMPLE, game
    seed, round, sample)``). The sample mean is an unbiased estimate of the expectation and
    independent of the cards that came, so the term still has expectation zero."""
    win, est = revealed_values(event, value, tie)
    pool = np.repeat(event.support, event.counts.astype(np.int64))
    hidden = np.flatnonzero(~event.known.ravel())
    mean_w, mean_t = np.zeros_like(win), np.zeros_like(est)
    for m in range(REVEAL_SAMPLES):
        order = rng.permutation(len(pool), rng.LUCK_SAMPLE, event.seed, event.round, m)
        vals = event.vals.copy().ravel()
        vals[hidden] = pool[order[: len(hidden)]]
        w, t = revealed_values(event, value, tie, vals.reshape(event.vals.shape))
        mean_w += w
        mean_t += t
    return win - mean_w / REVEAL_SAMPLES, est - mean_t / REVEAL_SAMPLES


def event_terms(
    event: ChanceEvent, value: LuckValue, tie_lowest: bool
) -> tuple[np.ndarray, np.ndarray]:
    """The correction terms of one event, per seat: (win, total) = value after the card that
    came minus the expectation over ``support`` weighted by ``counts`` (for the joint R16
    event, an unbiased sampled expectation: :func:`_reveal_terms`)."""
    if event.kind == K.REVEAL_ALL:
        return _reveal_terms(event, value, tie_lowest)
    win, est = value_table(event, value, tie_lowest)
    p = event.counts / event.counts.sum()
    idx = int(np.searchsorted(event.support, event.card))
    return win[idx] - p @ win, est[idx] - p @ est


def game_luck(
    config: RulesConfig,
    seed: int,
    actions: Sequence[int],
    value: LuckValue | None = None,
    stacked_decks: Mapping[int, Sequence[object]] | None = None,
) -> dict[str, Any]:
    """The summed correction terms of one finished game, per seat: ``{"win": [n], "total":
    [n], "events": count}``. Subtract ``win`` from the win shares and ``total`` from the
    totals to get the corrected outcomes."""
    value = shipped_value() if value is None else value
    tie = bool(config.first_out_tie_is_lowest)
    n = config.num_players
    win = np.zeros(n)
    total = np.zeros(n)
    count = 0
    for event in chance_events(config, seed, actions, stacked_decks):
        w, t = event_terms(event, value, tie)
        win += w
        total += t
        count += 1
    return {"win": win.tolist(), "total": total.tolist(), "events": count}
