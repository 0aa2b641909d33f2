"""The policy interface shared by bots, learned policies and the environments' opponents.

A policy is any object with ``act(observation, mask) -> int``: ``observation`` is the
float32 vector of :mod:`gnome_env.gnoming.encoding` seen from the acting seat, ``mask`` the
action mask (bool or int8 over the action table); the result is a legal action id.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Policy(Protocol):
    """Anything that picks an action from an observation and a legal-action mask."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """Return a legal action id."""
        ...


class RandomPolicy:
    """Uniformly random over the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("RandomPolicy.act: the mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])
