"""Gnoming A Round (RULES.md R1-R23, docs/rules.md D1-D9): engine, envs, vector engine,
records and viewer. Start with::

    from gnome_env.gnoming import Game, RulesConfig
    game = Game(RulesConfig(num_players=5), seed=0)
    while not game.game_over:
        game.step(game.legal_actions()[0])
    print(game.totals, game.winners())

The names below are imported on first use (``import gnome_env.gnoming`` imports nothing else).
"""

from gnome_env.core.lazy import lazy_exports

_EXPORTS = {
    "actions": "gnome_env.gnoming.actions",
    "ACTION_NAMES": "gnome_env.gnoming.actions:ACTION_NAMES",
    "NUM_ACTIONS": "gnome_env.gnoming.actions:NUM_ACTIONS",
    "action_name": "gnome_env.gnoming.actions:action_name",
    "HAZARD": "gnome_env.gnoming.cards:HAZARD",
    "MULLIGAN": "gnome_env.gnoming.cards:MULLIGAN",
    "DeckSpec": "gnome_env.gnoming.cards:DeckSpec",
    "card_token": "gnome_env.gnoming.cards:card_token",
    "parse_card": "gnome_env.gnoming.cards:parse_card",
    "RulesConfig": "gnome_env.gnoming.config:RulesConfig",
    "Game": "gnome_env.gnoming.engine:Game",
    "Phase": "gnome_env.gnoming.engine:Phase",
    "RoundResult": "gnome_env.gnoming.engine:RoundResult",
    "Source": "gnome_env.gnoming.engine:Source",
    "RecordError": "gnome_env.gnoming.records:RecordError",
    "load_record": "gnome_env.gnoming.records:load_record",
    "read_record": "gnome_env.gnoming.records:read_record",
    "replay": "gnome_env.gnoming.records:replay",
    "save_record": "gnome_env.gnoming.records:save_record",
    "to_record": "gnome_env.gnoming.records:to_record",
    "score_layout": "gnome_env.gnoming.scoring:score_layout",
    "InvariantError": "gnome_env.gnoming.validate:InvariantError",
    "check_invariants": "gnome_env.gnoming.validate:check_invariants",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
