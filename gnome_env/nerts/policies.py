"""The two shapes of a Nerts opponent in the single-seat env, and its default random policy.

* A **bot** is any object with ``decide(view) -> int``: ``view`` is the seat's
  :class:`gnome_env.nerts.information.NertsView` (its public information, N34) and the
  result an id from ``view.legal_actions``. The bots of ``agents/nerts`` have this shape.
* A **policy** is any object with ``act(observation, mask) -> int``: ``observation`` is the
  seat's float32 vector of :mod:`gnome_env.nerts.encoding`, ``mask`` the bool mask of its
  legal actions over the N36 table; the result a legal action id.

:class:`RandomPolicy` is the env's default opponent; it lives here because the env layer may
not import ``agents`` (docs/architecture.md).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from gnome_env.nerts.information import NertsView


@runtime_checkable
class Bot(Protocol):
    """Anything that picks an action from a seat's public view."""

    def decide(self, view: NertsView) -> int:
        """Return an id of ``view.legal_actions``."""
        ...


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
