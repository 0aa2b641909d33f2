"""The policy interface shared by bots, learned policies and the environments' opponents.

A policy is any object with ``act(observation, mask) -> int``: ``observation`` is the
float32 vector of :mod:`gnome_env.gnoming.encoding` seen from the acting seat, ``mask`` the
action mask (bool or int8 over the action table); the result is a legal action id.
:class:`Policy` and the default opponent :class:`RandomPolicy` are the shared ones of
:mod:`gnome_env.core.opponents`.
"""

from __future__ import annotations

from gnome_env.core.opponents import Policy, RandomPolicy

__all__ = ["Policy", "RandomPolicy"]
