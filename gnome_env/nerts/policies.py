"""The two shapes of a Nerts opponent in the single-seat env, and its default random policy.

* A **bot** is any object with ``decide(view) -> int``: ``view`` is the seat's
  :class:`gnome_env.nerts.information.NertsView` (its public information, N34) and the
  result an id from ``view.legal_actions``. The bots of ``agents/nerts`` have this shape.
* A **policy** is any object with ``act(observation, mask) -> int``: ``observation`` is the
  seat's float32 vector of :mod:`gnome_env.nerts.encoding`, ``mask`` the bool mask of its
  legal actions over the N36 table; the result a legal action id.

:class:`RandomPolicy` (the env's default opponent) and :class:`Policy` are the shared ones of
:mod:`gnome_env.core.opponents`.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from gnome_env.core.opponents import Policy, RandomPolicy
from gnome_env.nerts.information import NertsView


@runtime_checkable
class Bot(Protocol):
    """Anything that picks an action from a seat's public view."""

    def decide(self, view: NertsView) -> int:
        """Return an id of ``view.legal_actions``."""
        ...


__all__ = ["Bot", "Policy", "RandomPolicy"]
