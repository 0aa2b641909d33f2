"""Ginny-O players (built on :mod:`gnome_env.ginny_o` only): bots that decide from a
:class:`~gnome_env.ginny_o.information.GinnyView`, their spec registry, the Ginny-O side of
the arena (:mod:`agents.ginny_o.arena`) and terminal play (:mod:`agents.ginny_o.human`)."""

from agents.ginny_o.bots import (
    GinnyBot,
    GreedyGinnyAgent,
    HeuristicGinnyAgent,
    RandomGinnyAgent,
)
from agents.ginny_o.registry import known_ginny_specs, make_ginny_agent

__all__ = [
    "GinnyBot",
    "GreedyGinnyAgent",
    "HeuristicGinnyAgent",
    "RandomGinnyAgent",
    "known_ginny_specs",
    "make_ginny_agent",
]
