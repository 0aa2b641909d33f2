"""Nerts players (built on :mod:`gnome_env.nerts` only): bots that decide from a public
:class:`~gnome_env.nerts.information.NertsView`, their spec registry and the Nerts side of
the arena (:mod:`agents.nerts.arena`). See ``docs/nerts.md``."""

from agents.nerts.bots import GreedyNertsAgent, NertsBot, RandomNertsAgent
from agents.nerts.registry import known_nerts_specs, make_nerts_agent

__all__ = [
    "GreedyNertsAgent",
    "NertsBot",
    "RandomNertsAgent",
    "known_nerts_specs",
    "make_nerts_agent",
]
