"""Luck correction for Ginny-O: the chance terms of the box draws (issue #33).

The same control variate as Gnoming's (:mod:`agents.gnoming.luck`; ``docs/arena.md``,
"Luck correction", has the derivation): each game's outcome minus, at every chance event,
the value after the outcome that happened minus its exact expectation.

**Chance events.** Every tile drawn from the box (G4: the i-th draw takes a uniformly random
box position) -- the deal (G12), the turn's draw (G13), the refill after a placement (G15)
and the redraw after a return (G14), one tile at a time. Whatever anyone knows, the box's
contents are the tiles in play less the board and every rack, and each draw is uniform over
them, so the expectation is a sum over the box's tile kinds weighted by their copies. (The
first player, G12, is drawn once per deal; the arena's seat rotations already give each
entry the first turn equally often, and the value below does not look at it, so its term
would be zero.)

**Value.** A seat's predicted final score is its score now plus a linear function of its
rack -- real tiles, jokers, pairs that are two thirds of a set or of a run, and the G30
penalty the rack would cost -- with coefficients per stage of the game (how many tiles are
left in the box); its win probability is a softmax of the predicted final scores over a
spread that shrinks with the box. The value uses every rack, which is allowed: the
correction needs the exact distribution of each event given what the value looks at, and
the box is unknown to everyone. Parameters: ``agents/ginny_o/luck_value.json``, fitted by
``python -m training.ginny_o.luck_fit`` on games of an arena seed no evaluation uses.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agents.core.value_files import read_value_file
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.placement_env import rack_features

VALUE_FILE = Path(__file__).with_name("luck_value.json")
VALUE_FORMAT = "gnome_env.ginny_o_luck_value"
#: Upper edges of the box-size stages (a stage per bucket; the last is everything above).
BOX_STAGES = (0, 10, 30, 60)
FEATURES = ("one", "tiles", "jokers", "set_pairs", "run_pairs", "penalty")


def stage(box: int) -> int:
    """The stage of a box size: 0 (empty), 1 (1-10), 2 (11-30), 3 (31-60), 4 (more)."""
    for i, edge in enumerate(BOX_STAGES):
        if box <= edge:
            return i
    return len(BOX_STAGES)


def rack_row(rack: Sequence[int]) -> np.ndarray:
    """The :data:`FEATURES` of one rack."""
    return np.array([1.0, *rack_features(list(rack))])


@dataclass(frozen=True)
class GinnyLuckValue:
    """``coef[stage, feature]`` of a rack's predicted points to come and ``sigma = (a, b)``:
    the win model's spread is ``sqrt(a + b * box)``. ``scale = (win, total)`` multiplies the
    summed terms (a control variate's coefficient, fitted: any fixed number keeps the
    correction unbiased, the best one minimises the variance it leaves)."""

    coef: np.ndarray
    sigma: np.ndarray
    meta: dict[str, Any]
    scale: tuple[float, float] = (1.0, 1.0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": VALUE_FORMAT,
            "version": 1,
            "features": list(FEATURES),
            "coef": np.round(self.coef, 6).tolist(),
            "sigma": np.round(self.sigma, 6).tolist(),
            "scale": [round(float(x), 6) for x in self.scale],
            "meta": self.meta,
        }

    @classmethod
    def load(cls, path: str | Path = VALUE_FILE) -> GinnyLuckValue:
        data = read_value_file(path, VALUE_FORMAT)
        try:
            coef = np.asarray(data["coef"], dtype=np.float64)
            sigma = np.asarray(data["sigma"], dtype=np.float64)
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"{path}: coef and sigma must be arrays of numbers ({err})") from None
        want = (len(BOX_STAGES) + 1, len(FEATURES))
        if coef.shape != want or sigma.shape != (2,) or not np.isfinite(coef).all():
            raise ValueError(f"{path}: coef must have shape {want} and sigma (2,), finite")
        scale = data.get("scale", [1.0, 1.0])
        if (
            not isinstance(scale, list)
            or len(scale) != 2
            or not all(isinstance(x, (int, float)) and np.isfinite(x) for x in scale)
        ):
            raise ValueError(f"{path}: scale must be two finite numbers")
        return cls(coef, sigma, dict(data.get("meta", {})), (float(scale[0]), float(scale[1])))

    @staticmethod
    def untrained() -> GinnyLuckValue:
        """Score plus minus the rack's penalty: a starting point for the fit."""
        coef = np.zeros((len(BOX_STAGES) + 1, len(FEATURES)))
        coef[:, 5] = -1.0
        return GinnyLuckValue(coef, np.array([400.0, 20.0]), {"fitted": False})

    def predicted(self, scores: np.ndarray, rows: np.ndarray, box: int) -> np.ndarray:
        """Predicted final scores: ``scores`` plus each rack's (``rows[s]``) points to come."""
        return scores + rows @ self.coef[stage(box)]

    def win(self, predicted: np.ndarray, box: int) -> np.ndarray:
        """Win probabilities (rows of ``predicted``: alternatives x seats)."""
        scale = np.sqrt(max(self.sigma[0] + self.sigma[1] * box, 1e-6))
        z = predicted / scale
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)


@lru_cache(maxsize=1)
def shipped_value() -> GinnyLuckValue:
    """The shipped parameters, loaded once per process."""
    return GinnyLuckValue.load(VALUE_FILE)


@dataclass
class DrawEvent:
    """One tile drawn from the box: by ``seat``, the ``tile`` kind that came, the box's
    kinds before it (``support``) and their copies (``counts``), every rack and score right
    after it, and the box size after it."""

    seat: int
    tile: int
    support: np.ndarray
    counts: np.ndarray
    racks: list[list[int]]
    scores: np.ndarray
    box: int


class _TracedGame(GinnyGame):
    """A :class:`GinnyGame` that records its draws one tile at a time (the engine's own
    draw, called once per tile: the same tiles in the same order)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.events: list[DrawEvent] = []
        super().__init__(*args, **kwargs)

    def _draw(self, seat: int, count: int) -> int:
        drawn = 0
        while drawn < count and self.box:
            pool = Counter(self.box)
            before = Counter(self.racks[seat])
            got = super()._draw(seat, 1)
            (tile,) = (Counter(self.racks[seat]) - before).elements()
            kinds = sorted(pool)
            self.events.append(
                DrawEvent(
                    seat,
                    int(tile),
                    np.array(kinds, dtype=np.int64),
                    np.array([pool[k] for k in kinds], dtype=np.float64),
                    [list(r) for r in self.racks],
                    np.array(self.scores, dtype=np.float64),
                    len(self.box),
                )
            )
            drawn += got
        return drawn


def chance_events(
    config: GinnyConfig, seed: int, actions: Sequence[int], draw_order: Sequence[int] | None = None
) -> list[DrawEvent]:
    """Replay ``GinnyGame(config, seed)`` (or the test hook's ``draw_order``) with
    ``actions`` and return every box draw in order."""
    game = _TracedGame(config, seed, draw_order=draw_order)
    for action in actions:
        game.step(int(action))
    return game.events


def predicted_table(event: DrawEvent, coef: np.ndarray) -> np.ndarray:
    """Predicted final scores, ``[len(support), n]``: the state after the draw for every tile
    kind the box could have yielded (the drawer's rack changes, the others do not)."""
    base = np.array([rack_row(r) for r in event.racks])
    mine = list(event.racks[event.seat])
    mine.remove(event.tile)
    rows = np.repeat(base[None], len(event.support), axis=0)
    rows[:, event.seat] = np.array([rack_row([*mine, int(k)]) for k in event.support])
    return event.scores[None, :] + rows @ coef[stage(event.box)]


def event_terms(event: DrawEvent, value: GinnyLuckValue) -> tuple[np.ndarray, np.ndarray]:
    """Per seat: (win, total) value after the tile that came minus its expectation over the
    box's kinds weighted by their copies."""
    predicted = predicted_table(event, value.coef)
    win = value.win(predicted, event.box)
    p = event.counts / event.counts.sum()
    idx = int(np.searchsorted(event.support, event.tile))
    return win[idx] - p @ win, predicted[idx] - p @ predicted


def game_luck(
    config: GinnyConfig,
    seed: int,
    actions: Sequence[int],
    value: GinnyLuckValue | None = None,
    draw_order: Sequence[int] | None = None,
) -> dict[str, Any]:
    """Per seat, the summed terms of one finished game: ``{"win", "total", "events"}``."""
    value = shipped_value() if value is None else value
    n = config.num_players
    win, total = np.zeros(n), np.zeros(n)
    events = chance_events(config, seed, actions, draw_order)
    for event in events:
        w, t = event_terms(event, value)
        win += w
        total += t
    win *= value.scale[0]
    total *= value.scale[1]
    return {"win": win.tolist(), "total": total.tolist(), "events": len(events)}
