"""Gnoming A Round's players (built on :mod:`gnome_env.gnoming`): Random, Greedy, Expert and
search bots, learned-policy loaders, the arena plug-in and terminal play."""

from gnome_env.core.lazy import lazy_exports

_EXPORTS = {
    "ExpertAgent": "agents.gnoming.expert:ExpertAgent",
    "GreedyAgent": "agents.gnoming.greedy:GreedyAgent",
    "RandomAgent": "agents.gnoming.random_agent:RandomAgent",
    "known_specs": "agents.gnoming.registry:known_specs",
    "make_agent": "agents.gnoming.registry:make_agent",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
