"""gnome_env: three card games as reinforcement-learning environments -- Gnoming A Round
(:mod:`gnome_env.gnoming`), Nerts (:mod:`gnome_env.nerts`) and Ginny-O (:mod:`gnome_env.ginny_o`),
siblings over one shared core (:mod:`gnome_env.core`), registered in :mod:`gnome_env.registry`.

The top-level names are Gnoming A Round's (the project's first game) and are imported on first
use, so ``import gnome_env.nerts`` does not import Gnoming::

    from gnome_env import Game, RulesConfig
    game = Game(RulesConfig(num_players=5), seed=0)
    while not game.game_over:
        game.step(game.legal_actions()[0])
    print(game.totals, game.winners())

Modules that moved keep their old paths (``gnome_env.engine`` is ``gnome_env.gnoming.engine``,
the same module object): :data:`MOVED`, listed in docs/architecture.md.
"""

from gnome_env.core import moved as _moved
from gnome_env.core.lazy import lazy_exports
from gnome_env.gnoming import _EXPORTS as _gnoming_exports

__version__ = "0.1.0"

MOVED: dict[str, str] = {
    "gnome_env._kernels": "gnome_env.gnoming._kernels",
    "gnome_env._viewer_page": "gnome_env.gnoming._viewer_page",
    "gnome_env.actions": "gnome_env.gnoming.actions",
    "gnome_env.cards": "gnome_env.gnoming.cards",
    "gnome_env.config": "gnome_env.gnoming.config",
    "gnome_env.describe": "gnome_env.gnoming.describe",
    "gnome_env.encoding": "gnome_env.gnoming.encoding",
    "gnome_env.engine": "gnome_env.gnoming.engine",
    "gnome_env.gnoming_a_round_v0": "gnome_env.gnoming.gnoming_a_round_v0",
    "gnome_env.gnoming_a_round_v1": "gnome_env.gnoming.gnoming_a_round_v1",
    "gnome_env.gym_env": "gnome_env.gnoming.gym_env",
    "gnome_env.information": "gnome_env.gnoming.information",
    "gnome_env.infos": "gnome_env.gnoming.infos",
    "gnome_env.policies": "gnome_env.gnoming.policies",
    "gnome_env.records": "gnome_env.gnoming.records",
    "gnome_env.render_image": "gnome_env.gnoming.render_image",
    "gnome_env.rewards": "gnome_env.gnoming.rewards",
    "gnome_env.scoring": "gnome_env.gnoming.scoring",
    "gnome_env.testing": "gnome_env.gnoming.testing",
    "gnome_env.validate": "gnome_env.gnoming.validate",
    "gnome_env.vector": "gnome_env.gnoming.vector",
    "gnome_env.viewer": "gnome_env.gnoming.viewer",
    "gnome_env.rng": "gnome_env.core.rng",
    "gnome_env._jit": "gnome_env.core.jit",
    "gnome_env._draw": "gnome_env.core.draw",
}
_moved.install(MOVED)

_EXPORTS = {
    **_gnoming_exports,  # Gnoming's public names (Game, RulesConfig, ...)
    # every moved module under its old name: gnome_env.engine is gnome_env.gnoming.engine
    **{old.split(".", 1)[1]: new for old, new in MOVED.items()},
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


def _register() -> None:
    """Register every registered game's envs with PettingZoo's and Gymnasium's registries, by
    name only (nothing is imported until an env is made)."""
    import warnings

    from gnome_env.registry import games

    try:
        from pettingzoo import register as register_pettingzoo
    except ImportError:  # PettingZoo without a registry (< 1.27)
        register_pettingzoo = None
    try:
        import gymnasium
    except ImportError:  # pragma: no cover - gymnasium is a dependency
        gymnasium = None
    for spec in games():
        for entry in spec.registrations:
            if entry.registry == "gymnasium":
                # Only v1 of Gnoming is registered: gymnasium.make("gnome_env/GnomingARound-v0")
                # raises Gymnasium's DeprecatedEnv error, which names v1.
                if gymnasium is not None and entry.env_id not in gymnasium.registry:
                    gymnasium.register(id=entry.env_id, entry_point=entry.entry_point)
            elif register_pettingzoo is not None:
                with warnings.catch_warnings():  # re-registering on reload is harmless
                    warnings.simplefilter("ignore")
                    register_pettingzoo(entry.registry, entry.env_id, entry_point=entry.entry_point)


_register()

__all__ = [
    "ACTION_NAMES",
    "HAZARD",
    "MULLIGAN",
    "NUM_ACTIONS",
    "DeckSpec",
    "Game",
    "InvariantError",
    "Phase",
    "RecordError",
    "RoundResult",
    "RulesConfig",
    "Source",
    "action_name",
    "actions",
    "card_token",
    "check_invariants",
    "load_record",
    "parse_card",
    "read_record",
    "replay",
    "save_record",
    "score_layout",
    "to_record",
]
