"""gnome_env: the card game Gnoming A Round (RULES.md R1-R23) as an RL environment.

The engine (:class:`Game`) is pure Python + numpy; its deals come from the project's own
generator (:mod:`gnome_env.rng`). Start with::

    from gnome_env import Game, RulesConfig
    game = Game(RulesConfig(num_players=5), seed=0)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    print(game.totals, game.winners())
"""

from gnome_env import actions
from gnome_env.actions import ACTION_NAMES, NUM_ACTIONS, action_name
from gnome_env.cards import HAZARD, MULLIGAN, DeckSpec, card_token, parse_card
from gnome_env.config import RulesConfig
from gnome_env.engine import Game, Phase, RoundResult, Source
from gnome_env.records import (
    RecordError,
    load_record,
    read_record,
    replay,
    save_record,
    to_record,
)
from gnome_env.scoring import score_layout
from gnome_env.validate import InvariantError, check_invariants

__version__ = "0.1.0"


def _register() -> None:
    """Register the environments with PettingZoo's and Gymnasium's registries (by name only)."""
    try:
        from pettingzoo import register as register_aec
    except ImportError:  # PettingZoo without a registry (< 1.27)
        pass
    else:
        import warnings

        with warnings.catch_warnings():  # re-registering on reload is harmless
            warnings.simplefilter("ignore")
            register_aec(
                "aec",
                "gnome_env/gnoming_a_round_v1",
                entry_point="gnome_env.gnoming_a_round_v1:env",
            )
            register_aec(
                "parallel",
                "gnome_env/nerts_v0",
                entry_point="gnome_env.nerts.nerts_v0:parallel_env",
            )
            register_aec(
                "aec",
                "gnome_env/ginny_o_v0",
                entry_point="gnome_env.ginny_o.ginny_o_v0:env",
            )
    try:
        import gymnasium
    except ImportError:  # pragma: no cover - gymnasium is a dependency
        return
    # Only v1 is registered: gymnasium.make("gnome_env/GnomingARound-v0") raises Gymnasium's
    # DeprecatedEnv error, which names v1 (v0 dealt from numpy.random; see gnoming_a_round_v1).
    if "gnome_env/GnomingARound-v1" not in gymnasium.registry:  # re-import: already there
        gymnasium.register(
            id="gnome_env/GnomingARound-v1",
            entry_point="gnome_env.gym_env:GnomeSingleSeatEnv",
        )


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
