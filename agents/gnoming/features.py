"""Greedy's layout arithmetic as network features, computed from observation tokens.

A network reading the raw observation has to discover the line structure of R18-R20 from
one-hot card categories, which takes many millions of games. :class:`LayoutFeatures` hands
it the arithmetic the Greedy bot does instead -- a deterministic function of the acting
seat's observation tokens, so a policy that uses it still sees only what the seat may know:

* ``estimate``: :func:`agents.gnoming.greedy.greedy_value` of a layout, batched: face-up cards
  scored by R18-R20, every face-down card at the mean points of the unseen cards, minus
  ``PAIR_BONUS`` per line two-thirds built;
* ``__call__(tokens)`` gives, per observation,

  - ``action_bias [N, 33]``: the change of the acting seat's estimate that each action
    brings *right now* (the quantity Greedy minimises): ``place@q`` and ``bounce@q`` put
    the card in hand at ``q``; ``take_a``/``take_b`` place that pile's top at its best
    position (among those R12 allows); every other action is 0;
  - ``inputs [N, NUM_INPUTS]`` (divided by 10, the ``score`` reward's unit): the 27 changes
    of putting the hand card, top A or top B at each position, the estimate of every seat's
    layout (seen from the observer, absent seats 0) and the mean unseen card.

Lookup tables are built from :mod:`gnome_env.gnoming.scoring` and :mod:`agents.gnoming.greedy`
themselves,
so the rules live in one place; ``tests/gnoming/test_features.py`` compares every figure with
Greedy's own functions on positions from real games.

:func:`expert_actions` is the second kind of feature: the action the
:class:`~agents.gnoming.expert.ExpertAgent` would take, decided from the
:class:`~gnome_env.gnoming.information.SeatView` that the tokens and mask give (the seat's own
public information, nothing more). A network with ``expert_hint`` adds it to the logits as
a one-hot with a learned weight per action and reads it as an input, so the untrained
network plays Expert's moves and training learns where to deviate (a residual policy).
It costs one Expert decision per observation: ~0.2 ms in Python, a few microseconds with the
compiled Expert (:mod:`agents.gnoming.expert_kernel`, used when numba is there); training can spread
it over worker processes (:class:`training.gnoming.ppo.HintPool`).
"""

from __future__ import annotations

import numpy as np

from agents.gnoming.greedy import PAIR_BONUS, two_thirds_built
from agents.gnoming.heuristics import DEFAULT_MEAN
from gnome_env.gnoming import _kernels
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, LINES, MULLIGAN
from gnome_env.gnoming.config import MAX_PLAYERS, RulesConfig
from gnome_env.gnoming.encoding import FACE_DOWN, FIRST_KIND, NONE, ObservationEncoder
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.scoring import card_points, line_value

UNIT = 10.0  # features are divided by this (the ``score`` reward's unit)
CARDS = ("hand", "pile_a", "pile_b")  # the three cards whose placements are scored
NUM_INPUTS = len(CARDS) * 9 + MAX_PLAYERS + 1


class LayoutFeatures:
    """Batched Greedy layout estimates and per-action changes from observation tokens."""

    def __init__(self, rules: RulesConfig, pair_bonus: float | None = None) -> None:
        """``pair_bonus``: what a two-thirds-built line is worth (default Greedy's own
        ``PAIR_BONUS``; 0 gives the plain :func:`agents.gnoming.heuristics.layout_estimate`)."""
        if pair_bonus is None:
            pair_bonus = PAIR_BONUS
        enc = ObservationEncoder(rules)
        kinds = list(rules.deck.kinds)
        codes: list[int | None] = [None] * FIRST_KIND + kinds  # category -> code
        cats = len(codes)
        ts = enc.token_slices
        self.num_categories = cats
        self.layouts = ts["layouts"].start  # MAX_PLAYERS x 9, the observer's seat first
        self.hand = ts["hand"].start
        self.tops = ts["pile_tops"].start
        self.unseen = ts["unseen"]
        # line[a, b, c]: what the line adds to the estimate (-v when it matches, minus the
        # pair bonus when two-thirds built); face-down and empty places never match.
        self.line = np.zeros((cats, cats, cats), dtype=np.float64)
        self.matches = np.zeros((cats, cats, cats), dtype=bool)
        for a in range(cats):
            for b in range(cats):
                for c in range(cats):
                    trio = [codes[a], codes[b], codes[c]]
                    if None not in trio:
                        v = line_value(*trio)  # type: ignore[arg-type]
                        if v:
                            self.line[a, b, c] = -v
                            self.matches[a, b, c] = True
                            continue
                    self.line[a, b, c] = -pair_bonus * two_thirds_built(trio)
        self.points = np.array([0.0 if c is None else card_points(c) for c in codes])
        self.positive = np.array([c is not None and 0 < c < HAZARD for c in codes])
        self.kind_points = np.array([card_points(c) for c in kinds], dtype=np.float64)
        self.line_index = np.array(LINES, dtype=np.intp)  # [6, 3]
        self.membership = np.zeros((len(LINES), 9), dtype=np.float32)  # line k holds q
        for k, line in enumerate(LINES):
            self.membership[k, list(line)] = 1.0
        self.positive_points = np.where(self.positive, self.points, 0.0)
        self.mulligan = FIRST_KIND + kinds.index(MULLIGAN) if MULLIGAN in kinds else -1

    # ------------------------------------------------------------------ estimates
    def mean_unseen(self, tokens: np.ndarray) -> np.ndarray:
        """Mean points of an unseen card per observation ``[N]`` (the face-down estimate)."""
        unseen = tokens[:, self.unseen].astype(np.float64)
        total = unseen.sum(1)
        return np.where(total > 0, unseen @ self.kind_points / np.maximum(total, 1), DEFAULT_MEAN)

    def estimate(self, cat: np.ndarray, mean: np.ndarray) -> np.ndarray:
        """Greedy's estimate of layouts given as categories ``[..., 9]``; ``mean`` broadcasts
        against the leading dimensions. An all-empty layout (absent seat) is 0."""
        trios = cat[..., self.line_index]  # [..., 6, 3]
        key = (trios[..., 0] * self.num_categories + trios[..., 1]) * self.num_categories
        key += trios[..., 2]
        lines = self.line.ravel()[key].sum(-1)
        in_line = self.matches.ravel()[key].astype(np.float32) @ self.membership > 0  # [..., 9]
        up = self.points[cat].sum(-1) - np.where(in_line, self.positive_points[cat], 0.0).sum(-1)
        return lines + up + (cat == FACE_DOWN).sum(-1) * mean

    # ------------------------------------------------------------------ features
    def __call__(self, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(action_bias [N, 33], inputs [N, NUM_INPUTS])``, float32, from tokens ``[N, T]``.

        With numba a compiled loop computes them (:func:`_features_kernel`), else numpy
        (:meth:`features_numpy`); the same floats (``tests/gnoming/test_features.py``).
        """
        tokens = np.asarray(tokens)
        if tokens.ndim != 2:
            raise ValueError(f"tokens must be [N, T], got shape {tokens.shape}")
        if not _kernels.COMPILED:
            return self.features_numpy(tokens)
        n = tokens.shape[0]
        bias = np.zeros((n, A.NUM_ACTIONS), dtype=np.float32)
        inputs = np.empty((n, NUM_INPUTS), dtype=np.float32)
        _features_kernel(
            np.ascontiguousarray(tokens), *self.kernel_tables(), bias, inputs,
            np.empty(9, dtype=np.int64), np.empty((3, 9), dtype=np.float64),
        )  # fmt: skip
        return bias, inputs

    def kernel_tables(self) -> tuple:
        """The layout and tables :func:`_features_kernel` takes after the tokens, in its
        order (also passed along by :mod:`agents.gnoming.net_kernel`)."""
        return (
            np.int64(self.layouts), np.int64(self.hand), np.int64(self.tops),
            np.int64(self.unseen.start), np.int64(self.unseen.stop), self.kind_points,
            self.line.ravel(), self.matches.ravel(), np.int64(self.num_categories),
            self.points, self.positive_points, self.line_index, np.int64(self.mulligan),
        )  # fmt: skip

    def features_numpy(self, tokens: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`__call__` in numpy (the reference of the compiled loop)."""
        tokens = np.asarray(tokens)
        n = tokens.shape[0]
        layouts = tokens[:, self.layouts : self.layouts + 9 * MAX_PLAYERS].astype(np.intp)
        layouts = layouts.reshape(n, MAX_PLAYERS, 9)
        mean = self.mean_unseen(tokens)
        own = layouts[:, 0]  # [N, 9]
        cards = np.stack(
            [tokens[:, self.hand], tokens[:, self.tops], tokens[:, self.tops + 1]], 1
        ).astype(np.intp)  # [N, 3]
        # the 7 seats' layouts, then every (card, position) placement in the own layout
        trial = np.empty((n, MAX_PLAYERS + 27, 9), dtype=np.intp)
        trial[:, :MAX_PLAYERS] = layouts
        trial[:, MAX_PLAYERS:] = own[:, None, :]
        rows = MAX_PLAYERS + np.arange(27)
        trial[:, rows, np.tile(np.arange(9), 3)] = np.repeat(cards, 9, axis=1)
        values = self.estimate(trial, mean[:, None])  # [N, 34]
        seats = values[:, :MAX_PLAYERS]
        change = (values[:, MAX_PLAYERS:] - seats[:, :1]).reshape(n, 3, 9)
        change = np.where(cards[:, :, None] == NONE, 0.0, change)
        bias = np.zeros((n, A.NUM_ACTIONS), dtype=np.float32)
        bias[:, A.PLACE : A.PLACE + 9] = change[:, 0]
        bias[:, A.BOUNCE : A.BOUNCE + 9] = change[:, 0]
        # a pile top is judged at its best position R12 allows (mulligan_positions)
        shown = own == self.mulligan  # [N, 9]
        count = shown.sum(1, keepdims=True)
        allowed = (count == 0) | ((count == 1) & shown)  # where a mulligan may go
        allowed = allowed[:, None, :] | (cards[:, 1:, None] != self.mulligan)  # [N, 2, 9]
        best = np.where(allowed, change[:, 1:], np.inf).min(2)
        best = np.where(np.isfinite(best), best, 0.0)
        bias[:, A.TAKE_A] = best[:, 0]
        bias[:, A.TAKE_B] = best[:, 1]
        inputs = np.concatenate([change.reshape(n, 27), seats, mean[:, None]], 1) / UNIT
        return bias, inputs.astype(np.float32)


# ---------------------------------------------------------------------- compiled
@_kernels.maybe_njit
def _layout_estimate(cat, mean, line, matches, c, points, positive_points, line_index):
    """:meth:`LayoutFeatures.estimate` of one layout of categories ``cat [9]`` (numba).

    Every term but the last is an integer held exactly in float64 (line values, pair
    bonuses of 2, card points), so their sums do not depend on the order of the additions;
    the face-down cards' share is then added as in numpy, ``(lines + up) + down * mean``.
    """
    lines = 0.0
    in_line = 0
    for li in range(6):
        a = line_index[li, 0]
        b = line_index[li, 1]
        d = line_index[li, 2]
        key = (cat[a] * c + cat[b]) * c + cat[d]
        lines += line[key]
        if matches[key]:
            in_line |= (1 << a) | (1 << b) | (1 << d)
    face_up = 0.0
    in_lines = 0.0
    down = 0
    for q in range(9):
        face_up += points[cat[q]]
        if (in_line >> q) & 1:
            in_lines += positive_points[cat[q]]
        if cat[q] == FACE_DOWN:
            down += 1
    return (lines + (face_up - in_lines)) + down * mean


@_kernels.maybe_njit
def _features_kernel(
    tokens, layouts, hand, tops, unseen_start, unseen_stop, kind_points, line, matches, c,
    points, positive_points, line_index, mulligan, bias, inputs, cat, change,
):  # fmt: skip  # pragma: no cover - compiled
    """:meth:`LayoutFeatures.features_numpy` row by row into ``bias`` / ``inputs``
    (``cat [9]`` and ``change [3, 9]`` are scratch: the kernels allocate nothing)."""
    for i in range(tokens.shape[0]):
        row = tokens[i]
        unseen = 0.0
        total = 0.0
        for k in range(unseen_stop - unseen_start):
            copies = float(row[unseen_start + k])
            total += copies
            unseen += copies * kind_points[k]
        mean = unseen / max(total, 1.0) if total > 0 else DEFAULT_MEAN
        own = 0.0
        for s in range(MAX_PLAYERS):
            for q in range(9):
                cat[q] = row[layouts + 9 * s + q]
            value = _layout_estimate(
                cat, mean, line, matches, c, points, positive_points, line_index
            )
            if s == 0:
                own = value
            inputs[i, 27 + s] = value / UNIT
        inputs[i, 27 + MAX_PLAYERS] = mean / UNIT
        shown = 0
        for q in range(9):
            if row[layouts + q] == mulligan:
                shown += 1
        for j in range(3):
            card = row[hand] if j == 0 else row[tops + j - 1]
            for q in range(9):
                if card == NONE:
                    change[j, q] = 0.0
                    continue
                for p in range(9):
                    cat[p] = row[layouts + p]
                cat[q] = card
                value = _layout_estimate(
                    cat, mean, line, matches, c, points, positive_points, line_index
                )
                change[j, q] = value - own
        for q in range(9):
            bias[i, A_PLACE + q] = change[0, q]
            bias[i, A_BOUNCE + q] = change[0, q]
            for j in range(3):
                inputs[i, 9 * j + q] = change[j, q] / UNIT
        for j in (1, 2):  # a pile top at its best position R12 allows (mulligan_positions)
            card = row[tops + j - 1]
            best = np.inf
            for q in range(9):
                own_q = row[layouts + q]
                allowed = shown == 0 or (shown == 1 and own_q == mulligan) or card != mulligan
                if allowed and change[j, q] < best:
                    best = change[j, q]
            bias[i, A_TAKE_A + j - 1] = best if np.isfinite(best) else 0.0


A_PLACE, A_BOUNCE, A_TAKE_A = A.PLACE, A.BOUNCE, A.TAKE_A


# ---------------------------------------------------------------------- the expert hint
_EXPERTS: dict[RulesConfig, object] = {}


def expert_actions(tokens: np.ndarray, masks: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """The action :class:`~agents.gnoming.expert.ExpertAgent` picks for each row, ``[N]`` int64.

    Each row is decided from ``SeatView.from_tokens(tokens[i], masks[i], rules)``: the
    acting seat's own public information. The expert is deterministic (it draws no random
    numbers), so the result depends on the rows alone, not on how they are split up.

    With numba (``gnome_env.gnoming._kernels.COMPILED``) the compiled Expert of
    :mod:`agents.gnoming.expert_kernel` decides -- the same actions, ~30 times faster
    (``tests/gnoming/test_expert_kernel.py``, ``bench/expert_speed.py``); otherwise
    :func:`expert_actions_python`.
    """
    tokens, masks = _checked_rows(tokens, masks)
    if _kernels.COMPILED:
        from agents.gnoming.expert_kernel import expert_actions_batch

        return expert_actions_batch(tokens, masks, rules)
    return expert_actions_python(tokens, masks, rules)


def expert_actions_python(tokens: np.ndarray, masks: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """:func:`expert_actions` by the Python bot itself: ``ExpertAgent.decide`` on each row's
    :class:`~gnome_env.gnoming.information.SeatView` (the reference the compiled Expert matches)."""
    from agents.gnoming.expert import ExpertAgent  # the bots import numpy only; keep it lazy

    expert = _EXPERTS.get(rules)
    if expert is None:
        expert = _EXPERTS[rules] = ExpertAgent(0, rules)
    tokens, masks = _checked_rows(tokens, masks)
    decide = expert.decide  # type: ignore[attr-defined]
    return np.array(
        [decide(SeatView.from_tokens(t, m, rules)) for t, m in zip(tokens, masks, strict=True)],
        dtype=np.int64,
    )


def _checked_rows(tokens: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``tokens [N, T]`` and boolean ``masks [N, 33]``; a clear error for other shapes."""
    tokens = np.asarray(tokens)
    masks = np.asarray(masks, dtype=bool)
    if tokens.ndim != 2 or masks.shape != (tokens.shape[0], A.NUM_ACTIONS):
        raise ValueError(
            f"tokens [N, T] and masks [N, {A.NUM_ACTIONS}] are needed, got shapes "
            f"{tokens.shape} and {masks.shape}"
        )
    return tokens, masks


def one_hot(actions: np.ndarray) -> np.ndarray:
    """``[N, 33]`` float32 with a 1 at each row's action."""
    out = np.zeros((len(actions), A.NUM_ACTIONS), dtype=np.float32)
    out[np.arange(len(actions)), actions] = 1.0
    return out
