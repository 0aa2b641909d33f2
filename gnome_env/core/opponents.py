"""The opponents of every game's single-seat Gymnasium env: their shapes and the default one.

* A **policy** is any object with ``act(observation, mask) -> int``: ``observation`` is the
  seat's float32 vector (the game's encoder), ``mask`` the bool (or int8) mask of its legal
  actions; the result a legal action id.
* A **bot** (Nerts, Ginny-O) is any object with ``decide(view) -> int``: ``view`` is the
  seat's public view of the game (``<game>.information``), never the game.
* A **factory** is a class or callable ``factory(seed, config) -> bot or policy`` (the shape
  of the arena's lineup entries), built at every ``reset`` for each seat it plays.

:class:`RandomPolicy` is the envs' default opponent; it lives in the env layer because that
layer may not import ``agents`` (docs/architecture.md).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

#: What an opponent may be, for error messages.
OPPONENT_SHAPES = (
    "a bot (an object with decide(view) -> int), a policy (an object with "
    "act(observation, mask) -> int) or a factory(seed, config) returning one"
)


@runtime_checkable
class Policy(Protocol):
    """Anything that picks an action from an observation and a legal-action mask."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """Return a legal action id."""
        ...


class RandomPolicy:
    """Uniformly random over the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("RandomPolicy.act: the mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])

    def __repr__(self) -> str:
        return f"RandomPolicy(seed={self.seed!r})"


def opponent_shape(obj: object) -> str | None:
    """``"factory"`` (a class or a callable without ``decide``/``act``), ``"bot"``
    (``decide``), ``"policy"`` (``act``) or None (none of these)."""
    if isinstance(obj, type):
        return "factory"
    if callable(getattr(obj, "decide", None)):
        return "bot"
    if callable(getattr(obj, "act", None)):
        return "policy"
    if callable(obj):
        return "factory"
    return None


def spec_hint(obj: object, make_agent: str) -> str:
    """For an agent spec string given as an opponent: how to pass that bot instead (the env
    layer cannot build agents from specs); ``make_agent`` names the game's agent factory."""
    if not isinstance(obj, str):
        return ""
    return f"; for a bot by its spec pass functools.partial({make_agent}, {obj!r})"


def check_seat_counts(num_players: object, low: int, high: int) -> tuple[int, ...]:
    """The seat counts a ``num_players`` argument allows: an int in ``low..high`` or a
    non-empty list or tuple of them; anything else is a ``ValueError``."""
    allowed = f"an integer in {low}..{high} or a non-empty list of them"
    values = num_players if isinstance(num_players, (list, tuple)) else [num_players]
    if not values or any(
        isinstance(n, (bool, np.bool_))
        or not isinstance(n, (int, np.integer))
        or not low <= n <= high
        for n in values
    ):
        raise ValueError(f"num_players={num_players!r} is not allowed: must be {allowed}")
    return tuple(int(n) for n in values)


__all__ = [
    "OPPONENT_SHAPES",
    "Policy",
    "RandomPolicy",
    "check_seat_counts",
    "opponent_shape",
    "spec_hint",
]
