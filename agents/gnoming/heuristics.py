"""Shared evaluation helpers of the heuristic bots (``greedy``, ``expert``).

Everything here works on what a seat may know (a :class:`~gnome_env.gnoming.information.SeatView`):
layouts with ``None`` for face-down cards, and the multiset of *unseen* cards (face down
anywhere or in the draw pile). A face-down card is a random draw from the unseen cards, so
card counting is just statistics over ``view.unseen``.

Two layout estimates:

* :func:`expected_layout_score` (greedy): every face-down card counts as the mean unseen
  card; only fully face-up lines can match (R18);
* :class:`Evaluator` (expert): the expected score with the chance that face-down cards
  complete a line, plus a *potential* term -- a line one card short of matching is worth
  the chance of getting that card in the turns left, times what completing it saves.

Lower is better for both (scores, R18-R20).
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Sequence

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, HAZARD_POINTS, LINES, MULLIGAN
from gnome_env.gnoming.engine import FIRST_OUT_BONUS, mulligan_positions
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.scoring import card_points, layout_score_codes

Layout = Sequence[int | None]

#: ``LINES_OF[q]`` = (index of q's row in LINES, index of q's column in LINES).
LINES_OF: tuple[tuple[int, int], ...] = tuple(
    tuple(i for i, line in enumerate(LINES) if q in line)  # type: ignore[misc]
    for q in range(9)
)
#: A negative card value that stands in for a face-down card: it is never part of a line.
_PLACEHOLDER = -99
#: Fallback mean of a face-down card when nothing is unseen (never used by a real view).
DEFAULT_MEAN = 4.6


class CardStats:
    """Statistics of the unseen cards (card counting): counts, mean and variance of points."""

    __slots__ = ("counts", "mean", "mulligans", "total", "var")

    def __init__(self, unseen: Iterable[tuple[int, int]]) -> None:
        counts = dict(unseen)
        total = sum(counts.values())
        self.counts = counts
        self.total = total
        self.mulligans = counts.get(MULLIGAN, 0)
        if total:
            mean = sum(card_points(c) * k for c, k in counts.items()) / total
            var = sum((card_points(c) - mean) ** 2 * k for c, k in counts.items()) / total
        else:
            mean, var = DEFAULT_MEAN, 0.0
        self.mean = mean
        self.var = var

    def fill_probability(self, value: int) -> float:
        """Chance that one unseen card is ``value`` or a mulligan (it would fill a line of
        ``value``)."""
        if not self.total:
            return 0.0
        return (self.counts.get(value, 0) + self.mulligans) / self.total

    def kinds(self) -> list[tuple[int, float]]:
        """``(code, probability)`` for every unseen kind, in code order."""
        total = self.total
        if not total:
            return []
        return [(c, k / total) for c, k in sorted(self.counts.items())]


def layout_estimate(layout: Layout, mean: float) -> float:
    """Face-up cards scored by R18-R20 (:func:`gnome_env.gnoming.scoring.layout_score_codes`), each
    face-down card at ``mean``; a face-down card never completes a line."""
    score, hidden = _face_up_score(tuple(layout))
    return score + (mean - _PLACEHOLDER) * hidden


@functools.lru_cache(maxsize=1 << 15)
def _face_up_score(layout: tuple[int | None, ...]) -> tuple[int, int]:
    """(score of the layout with every face-down card as ``_PLACEHOLDER``, face-down count):
    integers, so caching them changes no result (the bots ask for the same layouts often)."""
    hidden = 0
    masked = []
    for code in layout:
        if code is None:
            hidden += 1
            masked.append(_PLACEHOLDER)
        else:
            masked.append(code)
    return layout_score_codes(masked), hidden


def expected_layout_score(layout: Layout, stats: CardStats | Counter[int]) -> float:
    """Greedy's estimate of a layout's score: :func:`layout_estimate` at the mean unseen card."""
    if not isinstance(stats, CardStats):
        stats = CardStats(stats.items())
    return layout_estimate(layout, stats.mean)


def placed(layout: Layout, pos: int, code: int) -> list[int | None]:
    """A copy of ``layout`` with ``code`` at ``pos``."""
    out = list(layout)
    out[pos] = code
    return out


def placeable(layout: Layout, card: int, pos: int) -> bool:
    """R12: whether ``card`` may be put at ``pos`` (asks the engine's rule)."""
    return card != MULLIGAN or pos in mulligan_positions(layout)


def line_shape(a: int | None, b: int | None, c: int | None) -> tuple[int, int, int, bool, int]:
    """What a line is made of: ``(v, nonfill, unknown, blocked, known_points)``.

    ``v`` is the value the line can match on (the value of its positive cards: the paired one
    if two differ, the highest if all differ; 0 if it has no positive card), ``nonfill`` the
    number of places not holding ``v`` or a mulligan, ``unknown`` the face-down places,
    ``blocked`` whether a face-up card other than ``v`` or a mulligan is in the way, and
    ``known_points`` the points of its face-up cards.
    """
    unknown = 0
    mulls = 0
    blocked = False
    positives: list[int] = []
    known_points = 0
    for code in (a, b, c):
        if code is None:
            unknown += 1
        elif code == MULLIGAN:
            mulls += 1
        elif code < 0 or code == HAZARD:
            blocked = True
            known_points += card_points(code)
        else:
            positives.append(code)
            known_points += code
    if not positives:
        return (0, 3 - mulls, unknown, blocked, known_points)
    if len(positives) == 1 or positives[0] == positives[1]:
        value = positives[0]
    elif len(positives) == 3 and positives[1] == positives[2]:
        value = positives[1]
    elif len(positives) == 3 and positives[0] == positives[2]:
        value = positives[0]
    else:
        value = max(positives)  # no pair: the highest is the best line to build
    fillers = mulls + positives.count(value)
    if len(positives) > positives.count(value):
        blocked = True
    return (value, 3 - fillers, unknown, blocked, known_points)


_SHAPES: dict[tuple[int | None, int | None, int | None], tuple[int, int, int, bool, int]] = {}


class Evaluator:
    """The expert's layout value: expected score minus the worth of lines about to match.

    ``horizon`` is the number of turns the seat expects to have left in the round; the
    potential of an incomplete line grows with it (0 turns left: pure expected score).
    ``weight`` scales the potential of lines one card short, ``weight2`` of lines two short.
    Results of line evaluations are cached (the same lines recur across candidate moves).
    """

    __slots__ = (
        "_cache",
        "_q",
        "_sights",
        "horizon",
        "mean",
        "stats",
        "weight",
        "weight2",
    )

    def __init__(
        self,
        stats: CardStats,
        horizon: float,
        weight: float = 0.6,
        weight2: float = 0.3,
        sights_per_turn: float = 1.5,
    ) -> None:
        self.stats = stats
        self.mean = stats.mean
        self.horizon = horizon
        self.weight = weight
        self.weight2 = weight2
        self._cache: dict[tuple[int | None, int | None, int | None], tuple[float, int, float]] = {}
        self._q: dict[int, float] = {}
        self._sights = max(0.0, horizon) * sights_per_turn

    def completion_chance(self, value: int) -> float:
        """Chance of getting a card that fills a line of ``value`` in the turns left."""
        q = self._q.get(value)
        if q is None:
            f = self.stats.fill_probability(value)
            q = 1.0 - (1.0 - f) ** self._sights if self._sights > 0 else 0.0
            self._q[value] = q
        return q

    def line(self, a: int | None, b: int | None, c: int | None) -> tuple[float, int, float]:
        """``(p, v, potential)``: chance the line matches when revealed, its value, and the
        worth (points, >= 0) of being able to complete it later."""
        key = (a, b, c)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        shape = _SHAPES.get(key)
        if shape is None:
            shape = _SHAPES[key] = line_shape(a, b, c)
        value, nonfill, unknown, blocked, known_points = shape
        result: tuple[float, int, float]
        if not value:
            result = (0.0, 0, 0.0)
        elif not nonfill:
            result = (1.0, value, 0.0)
        else:
            p = 0.0
            if not blocked and nonfill == unknown:  # only face-down cards stand in the way
                stats = self.stats
                f = stats.fill_probability(value)
                if unknown == 1:
                    p = f
                elif stats.total > 1:
                    p = f * max(0.0, (f * stats.total - 1) / (stats.total - 1))
            gain = known_points + unknown * self.mean + value
            q = self.completion_chance(value)
            if nonfill == 1:
                pot = self.weight * q * gain * (1.0 - p)
            else:
                pot = self.weight2 * q * q * gain * (1.0 - p)
            result = (p, value, pot)
        self._cache[key] = result
        return result

    def prepare(self, layout: Layout) -> Prepared:
        """Evaluate ``layout`` once, so that single-card changes are cheap (:meth:`value_at`)."""
        line = self.line
        lines = [line(layout[a], layout[b], layout[c]) for a, b, c in LINES]
        ps = [entry[0] for entry in lines]
        pots = [entry[2] for entry in lines]
        total = 0.0
        for p, v, _ in lines:
            total -= v * p
        mean = self.mean
        pts = [0.0] * 9
        contrib = [0.0] * 9
        flex = [False] * 9
        for q in range(9):
            code = layout[q]
            if code is None:
                point, scaled = mean, True
            elif code <= 0:
                point, scaled = code, False
            elif code == HAZARD:
                point, scaled = HAZARD_POINTS, False
            else:
                point, scaled = code, True
            pts[q] = point
            flex[q] = scaled
            if scaled:
                r, c = LINES_OF[q]
                point = point * (1.0 - ps[r]) * (1.0 - ps[c])
            contrib[q] = point
            total += point
        return Prepared(tuple(layout), lines, ps, pts, flex, contrib, total, sum(pots))

    def value(self, layout: Layout) -> float:
        """Expected score minus potential: lower is better."""
        return self.prepare(layout).total

    def value_at(self, base: Prepared, pos: int, code: int) -> float:
        """:meth:`value` of ``base``'s layout with ``code`` at ``pos`` (only the row and the
        column through ``pos`` are evaluated again)."""
        layout = base.layout
        line = self.line
        r, k = LINES_OF[pos]
        a, b, c = LINES[r]
        lr = line(
            code if a == pos else layout[a],
            code if b == pos else layout[b],
            code if c == pos else layout[c],
        )
        a, b, c = LINES[k]
        lk = line(
            code if a == pos else layout[a],
            code if b == pos else layout[b],
            code if c == pos else layout[c],
        )
        old_r = base.lines[r]
        old_k = base.lines[k]
        total = (
            base.total
            + old_r[1] * old_r[0]
            + old_r[2]
            + old_k[1] * old_k[0]
            + old_k[2]
            - lr[1] * lr[0]
            - lr[2]
            - lk[1] * lk[0]
            - lk[2]
        )
        pr = lr[0]
        pk = lk[0]
        ps = base.ps
        flex = base.flex
        pts = base.pts
        contrib = base.contrib
        for j in LINES[r]:
            if j != pos and flex[j]:
                total += pts[j] * (1.0 - pr) * (1.0 - ps[LINES_OF[j][1]]) - contrib[j]
        for j in LINES[k]:
            if j != pos and flex[j]:
                total += pts[j] * (1.0 - pk) * (1.0 - ps[LINES_OF[j][0]]) - contrib[j]
        total -= contrib[pos]
        if code <= 0:
            total += code
        elif code == HAZARD:
            total += HAZARD_POINTS
        else:
            total += code * (1.0 - pr) * (1.0 - pk)
        return total

    def expected_score(self, layout: Layout) -> float:
        """Expected score when the layout is revealed as it is (no potential)."""
        return self.prepare(layout).expected


class Prepared:
    """A layout evaluated by :meth:`Evaluator.prepare`: per-line and per-card terms.

    ``expected`` is the expected score, ``potential`` the worth of its incomplete lines,
    ``total`` = ``expected - potential`` the evaluator's value.
    """

    __slots__ = (
        "contrib",
        "down",
        "expected",
        "flex",
        "layout",
        "lines",
        "potential",
        "ps",
        "pts",
        "total",
    )

    def __init__(
        self,
        layout: tuple[int | None, ...],
        lines: list[tuple[float, int, float]],
        ps: list[float],
        pts: list[float],
        flex: list[bool],
        contrib: list[float],
        expected: float,
        potential: float,
    ) -> None:
        self.layout = layout
        self.lines = lines
        self.ps = ps
        self.pts = pts
        self.flex = flex
        self.contrib = contrib
        self.expected = expected
        self.potential = potential
        self.total = expected - potential
        self.down = layout.count(None)


def normal_cdf(x: float) -> float:
    """Standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def lowest_chance(
    my_score: float,
    opponents: Sequence[tuple[float, float]],
    tie_is_lowest: bool = True,
) -> float:
    """Chance that ``my_score`` is the lowest, opponents' final scores being independent
    normals ``(mean, standard deviation)``."""
    edge = 0.5 if tie_is_lowest else -0.5  # integer scores: a tie is a half-point band
    chance = 1.0
    for mean, sd in opponents:
        chance *= normal_cdf((mean - my_score + edge) / max(sd, 0.5))
    return chance


def first_out_value(my_score: float, lowest: float) -> float:
    """Expected round score of going out (R21) with a known layout score."""
    return my_score + FIRST_OUT_BONUS - 2 * FIRST_OUT_BONUS * lowest


def discard_actions(legal: Iterable[int]) -> list[int]:
    """The legal discard actions (R14)."""
    return [a for a in legal if a in (A.DISCARD_A, A.DISCARD_B)]


def flip_actions(legal: Iterable[int]) -> list[int]:
    """The legal flip actions (R5, R13)."""
    return [a for a in legal if A.FLIP <= a < A.FLIP + 9]


def next_seat(view: SeatView, seat: int) -> int:
    """The seat that plays after ``seat``."""
    return (seat + 1) % view.num_players


def usefulness(layout: Layout, card: int, stats: CardStats) -> float:
    """How much placing ``card`` would help ``layout`` (greedy estimate, >= 0)."""
    if card == HAZARD:
        return 0.0
    base = expected_layout_score(layout, stats)
    best = 0.0
    for q in range(9):
        if not placeable(layout, card, q):
            continue
        gain = base - expected_layout_score(placed(layout, q, card), stats)
        if gain > best:
            best = gain
    return best


def choose_discard_pile(view: SeatView, stats: CardStats) -> int:
    """R14: of the legal discard actions, the one covering the pile top that would help the
    next player most (the card in hand shows on top either way)."""
    legal = discard_actions(view.legal_actions)
    if len(legal) == 1:
        return legal[0]
    nxt = next_seat(view, view.turn_player)
    layout = view.layouts[nxt]
    best_action, best_help = legal[0], -1.0
    for action in legal:
        top = view.pile_tops[action - A.DISCARD_A]
        helps = usefulness(layout, top, stats) if top is not None else 0.0
        if helps > best_help:
            best_action, best_help = action, helps
    return best_action
