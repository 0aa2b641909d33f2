"""Players of gnome_env: heuristic bots, learned-policy loaders and the arena (built on
gnome_env only). ``agents.core`` is what every game shares (the arena's run loop, checkpoint
reading); ``agents.gnoming``, ``agents.nerts`` and ``agents.ginny_o`` hold each game's bots,
learned agent, arena plug-in and terminal play.

The top-level names are Gnoming A Round's and are imported on first use; moved modules keep
their old paths (``agents.expert`` is ``agents.gnoming.expert``): :data:`MOVED`.
"""

from agents.gnoming import _EXPORTS as _gnoming_exports
from gnome_env.core import moved as _moved
from gnome_env.core.lazy import lazy_exports

MOVED: dict[str, str] = {
    "agents.arena": "agents.gnoming.arena",
    "agents.arena_core": "agents.core.arena",
    "agents.base": "agents.gnoming.base",
    "agents.checkpoint_io": "agents.core.checkpoint_io",
    "agents.expert": "agents.gnoming.expert",
    "agents.expert_kernel": "agents.gnoming.expert_kernel",
    "agents.features": "agents.gnoming.features",
    "agents.greedy": "agents.gnoming.greedy",
    "agents.greedy_kernel": "agents.gnoming.greedy_kernel",
    "agents.heuristics": "agents.gnoming.heuristics",
    "agents.human": "agents.gnoming.human",
    "agents.learned": "agents.gnoming.learned",
    "agents.net_kernel": "agents.gnoming.net_kernel",
    "agents.net_search": "agents.gnoming.net_search",
    "agents.random_agent": "agents.gnoming.random_agent",
    "agents.registry": "agents.gnoming.registry",
    "agents.rllib_agent": "agents.gnoming.rllib_agent",
    "agents.rollout_search": "agents.gnoming.rollout_search",
    "agents.sb3_agent": "agents.gnoming.sb3_agent",
    "agents.search": "agents.gnoming.search",
}
_moved.install(MOVED)

_EXPORTS = {
    **_gnoming_exports,  # Gnoming's bots and agent specs
    **{old.split(".", 1)[1]: new for old, new in MOVED.items()},
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = ["ExpertAgent", "GreedyAgent", "RandomAgent", "known_specs", "make_agent"]
