"""Luck correction for Nerts: the chance terms of card reveals and priority orders (issue #33).

The same control variate as Gnoming's and Ginny-O's (``docs/arena.md``, "Luck correction",
has the derivation): each game's outcome minus, at every chance event, the value after the
outcome that happened minus its exact expectation over the outcomes that could have
happened. Any value function keeps the estimate unbiased; a good one removes more noise.

**Chance events.**

* *Reveals* (N4, N5, N13, N15). Each seat's deck is shuffled uniformly, and a card stays
  unknown to everyone until it is face up (N35: face-down Nerts cards, every stock's order,
  waste cards under the top). Treating the deal as lazy, each time a card of seat i shows
  for the first time in the hand -- the four work cards and the Nerts top of the deal, a
  Nerts top turned up (N13), a waste top after a turn (N15) or after the top was played --
  it is a uniform draw from the cards of seat i's deck that have not shown yet: which
  positions show depends only on public play, so the positions never shown hold the unseen
  cards in uniformly random order. A card that showed before (a waste top seen on an
  earlier pass) is known where it lies, and its return is no chance event.
* *Priority orders* (N20). Each step's pi is uniform over the n! orders. It matters only
  where two or more seats play onto the same open slot (``foundation_tie=priority``): each
  such group's winner is its first member in pi, and for disjoint groups these winners are
  independent and uniform over each group. The expectation is over every combination of
  winners, each resolved by the engine itself (a copy of the game stepped with an order
  that puts those winners first). The slots that new foundations take (N20.3) are not read
  by the value, so they need no term. Within a step, pi comes first, then the reveals
  (seat 0's first); the value between them reads a card that has not shown yet as unknown.

**Value.** Public (N34) features of each seat: its hand score (N30), its Nerts pile size,
whether its Nerts top and waste top fit a foundation (or are unknown), whether its Nerts top
fits a work pile, how many of its work tops fit a foundation and how many work piles are
empty. The win probabilities are a conditional logit (softmax over seats of a linear
function of these features) and the hand score to come a linear function, both with
coefficients per stage of the hand (the smallest Nerts pile at the table). Once the game is
over the value is the outcome itself. In games of several hands (N31) the logit adds each
seat's total carried from earlier hands over a fixed spread. Parameters:
``agents/nerts/luck_value.json``, fitted by ``python -m training.nerts.luck_fit`` on
one-hand games of an arena seed no evaluation uses.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agents.core.value_files import read_value_file
from gnome_env.nerts.actions import Kind
from gnome_env.nerts.cards import NUM_NATURAL, SUIT_COLOUR
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.engine import NertsGame

VALUE_FILE = Path(__file__).with_name("luck_value.json")
VALUE_FORMAT = "gnome_env.nerts_luck_value"
#: Upper edges of the stages by the smallest Nerts pile at the table (the last: above).
NERTS_STAGES = (0, 2, 5, 9)
FEATURES = (
    "score",
    "nerts_size",
    "nerts_top_found",
    "nerts_top_work",
    "nerts_top_unknown",
    "waste_top_found",
    "waste_top_unknown",
    "work_tops_found",
    "empty_work",
    "leader",
    "stock_waste",
)
#: A card that has not shown yet (the value reads it as unknown).
UNKNOWN = -2

_RANK = tuple(c % 13 + 1 for c in range(NUM_NATURAL))
_COL = tuple(SUIT_COLOUR[c // 13] for c in range(NUM_NATURAL))


def stage(min_nerts: int) -> int:
    """The stage of the smallest Nerts pile size: 0 (a pile is empty), 1 (1-2), 2 (3-5),
    3 (6-9), 4 (more)."""
    for i, edge in enumerate(NERTS_STAGES):
        if min_nerts <= edge:
            return i
    return len(NERTS_STAGES)


@dataclass(frozen=True)
class NertsLuckValue:
    """``win[stage, feature]``: the conditional logit's coefficients; ``points[stage, 1 +
    feature]``: the hand points to come (an intercept, then the features); ``game_spread``:
    the spread of carried totals in the logit of a several-hand game; ``scale = (win,
    total)``: the control variate's coefficients (any fixed number keeps the correction
    unbiased, the fitted one minimises the variance it leaves)."""

    win: np.ndarray
    points: np.ndarray
    meta: dict[str, Any]
    game_spread: float = 20.0
    scale: tuple[float, float] = (1.0, 1.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": VALUE_FORMAT,
            "version": 1,
            "features": list(FEATURES),
            "win": np.round(self.win, 6).tolist(),
            "points": np.round(self.points, 6).tolist(),
            "game_spread": self.game_spread,
            "scale": [round(float(x), 6) for x in self.scale],
            "meta": self.meta,
        }

    @classmethod
    def load(cls, path: str | Path = VALUE_FILE) -> NertsLuckValue:
        data = read_value_file(path, VALUE_FORMAT)
        try:
            win = np.asarray(data["win"], dtype=np.float64)
            points = np.asarray(data["points"], dtype=np.float64)
            spread = float(data.get("game_spread", 20.0))
            scale = tuple(float(x) for x in data.get("scale", [1.0, 1.0]))
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path}: win and points must be arrays of numbers ({err})") from None
        stages = len(NERTS_STAGES) + 1
        ok = (
            win.shape == (stages, len(FEATURES))
            and points.shape == (stages, len(FEATURES) + 1)
            and len(scale) == 2
            and np.isfinite(win).all()
            and np.isfinite(points).all()
            and np.isfinite(scale).all()
            and np.isfinite(spread)
            and spread > 0
        )
        if not ok:
            raise ValueError(
                f"{path}: win must have shape {(stages, len(FEATURES))}, points "
                f"{(stages, len(FEATURES) + 1)}, scale two numbers and game_spread a positive "
                "number, all finite"
            )
        return cls(win, points, dict(data.get("meta", {})), spread, (scale[0], scale[1]))

    @staticmethod
    def untrained() -> NertsLuckValue:
        """The hand score alone: a starting point for the fit."""
        stages = len(NERTS_STAGES) + 1
        win = np.zeros((stages, len(FEATURES)))
        win[:, 0] = 0.2
        return NertsLuckValue(win, np.zeros((stages, len(FEATURES) + 1)), {"fitted": False})

    def values(
        self, rows: np.ndarray, carried: np.ndarray, st: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(win probabilities, predicted game totals) for feature rows ``[..., n, F]``."""
        logit = rows @ self.win[st] + carried / self.game_spread
        logit = logit - logit.max(axis=-1, keepdims=True)
        e = np.exp(logit)
        win = e / e.sum(axis=-1, keepdims=True)
        total = carried + rows[..., 0] + rows @ self.points[st, 1:] + self.points[st, 0]
        return win, total


@lru_cache(maxsize=1)
def shipped_value() -> NertsLuckValue:
    """The shipped parameters, loaded once per process."""
    return NertsLuckValue.load(VALUE_FILE)


# ---------------------------------------------------------------------- public features
def _found_ok(card: int, need: dict[int, list[int]]) -> bool:
    """A known card that fits a foundation now: an ace, a needed card or a joker (N33)."""
    return card >= NUM_NATURAL or _RANK[card] == 1 or card in need


def _work_ok(card: int, tops: Sequence[int | None]) -> bool:
    """A known card that fits one of the seat's work piles: an empty one, or one rank below a
    natural top of the other colour (N10); a joker always fits (N32)."""
    if card >= NUM_NATURAL:
        return True
    for top in tops:
        if top is None:
            return True
        if 0 <= top < NUM_NATURAL and _RANK[top] == _RANK[card] + 1 and _COL[top] != _COL[card]:
            return True
    return False


#: ``_FITS[a, b]``: card a may lie on natural card b in a run (N9; a joker fits anything,
#: N32; nothing is read as fitting on a joker top).
_FITS = np.zeros((NUM_NATURAL + 2, NUM_NATURAL + 2), dtype=bool)
for _a in range(NUM_NATURAL + 2):
    for _b in range(NUM_NATURAL):
        _FITS[_a, _b] = _a >= NUM_NATURAL or (_RANK[_b] == _RANK[_a] + 1 and _COL[_b] != _COL[_a])


def _found_table(need: dict[int, list[int]]) -> np.ndarray:
    """``table[c]``: card c fits a foundation now (:func:`_found_ok` for every card id)."""
    table = np.zeros(NUM_NATURAL + 2, dtype=np.float64)
    table[NUM_NATURAL:] = 1.0
    table[0:NUM_NATURAL:13] = 1.0  # aces
    for c in need:
        table[c] = 1.0
    return table


def _work_fit(cards: np.ndarray, tops: Sequence[int | None]) -> np.ndarray:
    """:func:`_work_ok` for every card of ``cards`` (unknown tops read as nothing)."""
    if any(t is None for t in tops):
        return np.ones(len(cards))
    fit = cards >= NUM_NATURAL
    for t in tops:
        if t != UNKNOWN and 0 <= t < NUM_NATURAL:
            fit = fit | _FITS[cards, t]
    return fit.astype(np.float64)


@dataclass
class Snapshot:
    """The public state the value reads, one entry per seat (``UNKNOWN`` for a card that has
    not shown yet, None for an empty pile)."""

    scores: list[int]
    nerts_size: list[int]
    nerts_top: list[int | None]
    waste_top: list[int | None]
    work_tops: list[list[int | None]]
    need: dict[int, list[int]]
    cycle: list[int]
    carried: np.ndarray
    outcome: tuple[np.ndarray, np.ndarray] | None = None  # exact (win, total) once decided

    def row(self, seat: int, nerts_top: int | None = None, waste_top: int | None = None) -> list:
        """The :data:`FEATURES` of ``seat`` (``nerts_top`` / ``waste_top``: a replacement)."""
        nt = self.nerts_top[seat] if nerts_top is None else nerts_top
        wt = self.waste_top[seat] if waste_top is None else waste_top
        tops = self.work_tops[seat]
        known_nt = nt is not None and nt != UNKNOWN
        known_wt = wt is not None and wt != UNKNOWN
        return [
            self.scores[seat],
            self.nerts_size[seat],
            float(known_nt and _found_ok(nt, self.need)),
            float(known_nt and _work_ok(nt, tops)),
            float(nt == UNKNOWN),
            float(known_wt and _found_ok(wt, self.need)),
            float(wt == UNKNOWN),
            float(
                sum(1 for t in tops if t is not None and t != UNKNOWN and _found_ok(t, self.need))
            ),
            float(sum(1 for t in tops if t is None)),
            float(self.nerts_size[seat] == min(self.nerts_size)),
            float(self.cycle[seat]),
        ]

    def rows(self) -> np.ndarray:
        return np.array([self.row(s) for s in range(len(self.scores))], dtype=np.float64)

    @property
    def stage(self) -> int:
        return stage(min(self.nerts_size))


def _mask(card: int | None, seen: set[int]) -> int | None:
    return card if card is None or card in seen else UNKNOWN


def snapshot(game: NertsGame, seen: Sequence[set[int]], spread: float) -> Snapshot:
    """The public state of ``game``, reading every card not in ``seen[seat]`` as unknown."""
    n = game.num_players
    carried = np.array(game.totals, dtype=np.float64)  # before this hand while it lasts
    snap = Snapshot(
        scores=game.hand_scores(),
        nerts_size=[len(p) for p in game.nerts],
        nerts_top=[_mask(p[-1] if p else None, seen[s]) for s, p in enumerate(game.nerts)],
        waste_top=[_mask(w[-1] if w else None, seen[s]) for s, w in enumerate(game.waste)],
        work_tops=[[_mask(p[-1] if p else None, seen[s]) for p in game.work[s]] for s in range(n)],
        need=game._need_map(),
        cycle=[game.cycle_size(s) for s in range(n)],
        carried=carried,
    )
    if game.hand_over:
        totals = np.array(game.totals, dtype=np.float64)
        if game.game_over:
            winners = game.winners()
            win = np.array([1.0 / len(winners) if s in winners else 0.0 for s in range(n)])
        else:
            z = totals / spread
            e = np.exp(z - z.max())
            win = e / e.sum()
        snap.outcome = (win, totals)
    return snap


def snapshot_value(snap: Snapshot, value: NertsLuckValue) -> tuple[np.ndarray, np.ndarray]:
    """(win, total) by seat of one public state (the outcome itself once decided)."""
    if snap.outcome is not None:
        return snap.outcome
    return value.values(snap.rows(), snap.carried, snap.stage)


# ---------------------------------------------------------------------- the events
@dataclass
class RevealEvent:
    """A card of ``seat`` showing for the first time (``where``: ``"nerts"``, ``"waste"`` or
    ``"work"``), uniform over ``unseen`` (the seat's cards not shown before it, sorted)."""

    seat: int
    where: str
    card: int
    unseen: list[int]
    hand: int
    step: int


@dataclass
class PriorityEvent:
    """A step whose pi decided a collision: the groups of seats playing onto one slot, the
    winners that happened (each combination of winners, one per group, is equally likely)."""

    hand: int
    step: int
    groups: list[tuple[int, ...]]
    winners: tuple[int, ...]


def _collision_groups(game: NertsGame, actions: Sequence[int]) -> list[tuple[int, ...]]:
    """N20.2: groups of two or more seats playing onto the same open slot (priority ties)."""
    if game.config.foundation_tie != "priority":
        return []
    by_slot: dict[int, list[int]] = {}
    table = game.table
    for seat, a in enumerate(actions):
        if a >= 5:
            d = table.decode(int(a))
            if d.kind == Kind.TO_SLOT:
                by_slot.setdefault(d.slot, []).append(seat)
    return [tuple(g) for _, g in sorted(by_slot.items()) if len(g) > 1]


def _forced_step(game: NertsGame, actions: Sequence[int], winners: Sequence[int]) -> NertsGame:
    """A copy of ``game`` stepped with a priority order that puts ``winners`` first."""
    copy = game.copy()
    order = tuple(winners) + tuple(s for s in range(game.num_players) if s not in winners)
    copy.priority = lambda step=None: order  # type: ignore[method-assign]
    copy.step(list(actions))
    return copy


class _Tracker:
    """Replays a game and yields the correction terms of its chance events, in order."""

    def __init__(self, game: NertsGame, value: NertsLuckValue) -> None:
        self.game = game
        self.value = value
        self.deck = list(range(game.config.deck_size))
        self.seen: list[set[int]] = [set() for _ in range(game.num_players)]
        self.events: list[RevealEvent | PriorityEvent] = []
        self.win = np.zeros(game.num_players)
        self.total = np.zeros(game.num_players)

    def _add(self, after: tuple[np.ndarray, np.ndarray], mean: tuple[np.ndarray, np.ndarray]):
        self.win += after[0] - mean[0]
        self.total += after[1] - mean[1]

    def reveals(self, step: int) -> None:
        """Every card that shows for the first time in the current state, seat by seat."""
        game = self.game
        snap = snapshot(game, self.seen, self.value.game_spread)
        if snap.outcome is not None:  # hand over: a call ends it before any top is read
            self._reveal_over()
            return
        for seat in range(game.num_players):
            spots: list[tuple[str, int, int]] = []  # (where, index, card)
            for w, pile in enumerate(game.work[seat]):
                if pile and pile[-1] not in self.seen[seat]:
                    spots.append(("work", w, pile[-1]))
            if game.nerts[seat] and game.nerts[seat][-1] not in self.seen[seat]:
                spots.append(("nerts", 0, game.nerts[seat][-1]))
            if game.waste[seat] and game.waste[seat][-1] not in self.seen[seat]:
                spots.append(("waste", 0, game.waste[seat][-1]))
            for where, index, card in spots:
                unseen = [c for c in self.deck if c not in self.seen[seat]]
                self.events.append(RevealEvent(seat, where, card, unseen, game.hand, step))
                self._reveal_terms(snap, seat, where, index, card, unseen)
                self.seen[seat].add(card)
                self._set(snap, seat, where, index, card)

    def _reveal_over(self) -> None:
        """At a hand's end the value is the scored outcome, which no unseen card changes:
        the cards still show (they are recorded as seen) but every term is zero."""
        game = self.game
        for seat in range(game.num_players):
            for card in [p[-1] for p in game.work[seat] if p] + [
                x[-1] for x in (game.nerts[seat], game.waste[seat]) if x
            ]:
                self.seen[seat].add(card)

    @staticmethod
    def _set(snap: Snapshot, seat: int, where: str, index: int, card: int) -> None:
        if where == "work":
            snap.work_tops[seat][index] = card
        elif where == "nerts":
            snap.nerts_top[seat] = card
        else:
            snap.waste_top[seat] = card

    def _reveal_terms(
        self, snap: Snapshot, seat: int, where: str, index: int, card: int, unseen: list[int]
    ) -> None:
        """The term of one reveal: the seat's row for every card it could have been (the
        features that read the new card, vectorised over ``unseen``)."""
        base = snap.rows()
        cards = np.array(unseen)
        found = _found_table(snap.need)[cards]
        rows = np.repeat(base[None], len(unseen), axis=0)
        tops = snap.work_tops[seat]
        if where == "nerts":
            rows[:, seat, 2] = found
            rows[:, seat, 3] = _work_fit(cards, tops)
            rows[:, seat, 4] = 0.0
        elif where == "waste":
            rows[:, seat, 5] = found
            rows[:, seat, 6] = 0.0
        else:
            others = [t for w, t in enumerate(tops) if w != index]
            known = [t for t in others if t is not None and t != UNKNOWN]
            rows[:, seat, 7] = sum(_found_ok(t, snap.need) for t in known) + found
            nt = snap.nerts_top[seat]
            if nt is not None and nt != UNKNOWN:
                # the Nerts top fits a work pile: one of the others, or the new card
                fits_other = _work_ok(nt, others) if others else False
                rows[:, seat, 3] = fits_other | _FITS[nt, cards]
        win, total = self.value.values(rows, snap.carried, snap.stage)
        idx = unseen.index(card)
        self._add((win[idx], total[idx]), (win.mean(axis=0), total.mean(axis=0)))

    def step(self, actions: Sequence[int]) -> None:
        game = self.game
        k = game.steps
        groups = _collision_groups(game, actions)
        if groups:
            pi = game.priority(k)
            happened = tuple(min(g, key=pi.index) for g in groups)
            combos = list(itertools.product(*groups))
            values = []
            for combo in combos:
                after = _forced_step(game, actions, combo)
                values.append(
                    snapshot_value(snapshot(after, self.seen, self.value.game_spread), self.value)
                )
            wins = np.array([v[0] for v in values])
            totals = np.array([v[1] for v in values])
            idx = combos.index(happened)
            self._add((wins[idx], totals[idx]), (wins.mean(axis=0), totals.mean(axis=0)))
            self.events.append(PriorityEvent(game.hand, k, groups, happened))
        game.step(list(actions))
        self.reveals(k + 1)

    def next_hand(self) -> None:
        self.game.next_hand()
        self.seen = [set() for _ in range(self.game.num_players)]
        self.reveals(0)


def chance_terms(
    config: NertsConfig,
    seed: int,
    hands: Sequence[Sequence[Sequence[int]]],
    value: NertsLuckValue | None = None,
    stacked_decks: Any = None,
) -> _Tracker:
    """Replay ``NertsGame(config, seed)`` (or the test hook's ``stacked_decks``) with every
    hand's joint actions; the tracker holds the events and the summed terms (unscaled)."""
    value = shipped_value() if value is None else value
    tracker = _Tracker(NertsGame(config, seed, stacked_decks=stacked_decks), value)
    tracker.reveals(0)
    for h, steps in enumerate(hands):
        if h > 0:
            tracker.next_hand()
        for actions in steps:
            tracker.step(actions)
    return tracker


def game_luck(
    config: NertsConfig,
    seed: int,
    hands: Sequence[Sequence[Sequence[int]]],
    value: NertsLuckValue | None = None,
    stacked_decks: Any = None,
) -> dict[str, Any]:
    """Per seat, the summed terms of one finished game: ``{"win", "total", "events"}``."""
    value = shipped_value() if value is None else value
    tracker = chance_terms(config, seed, hands, value, stacked_decks)
    return {
        "win": (tracker.win * value.scale[0]).tolist(),
        "total": (tracker.total * value.scale[1]).tolist(),
        "events": len(tracker.events),
    }
