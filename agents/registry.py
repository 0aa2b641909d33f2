"""Agents by spec string, the names used on the command line (``--opponents random``).

A spec is ``name`` or ``name:argument`` (later agents take an argument, e.g. a checkpoint
path). :func:`make_agent` is the one place that maps specs to agent classes.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.random_agent import RandomAgent
from gnome_env.config import RulesConfig
from gnome_env.policies import Policy


def _random(argument: str | None, seed: int, config: RulesConfig | None) -> Policy:
    if argument is not None:
        raise ValueError(f"agent spec 'random' takes no argument, got 'random:{argument}'")
    return RandomAgent(seed)


#: spec name -> factory(argument or None, seed, rules config or None)
AGENT_FACTORIES: dict[str, Callable[[str | None, int, RulesConfig | None], Policy]] = {
    "random": _random,
}


def known_specs() -> tuple[str, ...]:
    """The spec names :func:`make_agent` accepts, sorted."""
    return tuple(sorted(AGENT_FACTORIES))


def make_agent(spec: str, seed: int, config: RulesConfig | None = None) -> Policy:
    """Build the agent a spec names (``"random"``), seeded with ``seed``, for games under
    ``config`` (bots need the rules; ``None`` means the default rules).

    An unknown spec raises ``ValueError`` listing the known specs.
    """
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}")
    name, sep, argument = spec.strip().partition(":")
    factory = AGENT_FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown agent spec {spec!r}; known specs: {', '.join(known_specs())}")
    return factory(argument if sep else None, seed, config)
