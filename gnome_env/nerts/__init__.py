"""Nerts (RULES-nerts.md N1-N36): a simultaneous racing patience game, engine layer.

Everything here is state, pure transitions and checks (numpy only). Start with::

    from gnome_env.nerts import NertsConfig, NertsGame
    game = NertsGame(NertsConfig(num_players=3), seed=0)
    while not game.game_over:
        if game.hand_over:
            game.next_hand()
        game.step([game.legal_actions(seat)[-1] for seat in range(game.num_players)])
    print(game.totals, game.winners())

See ``docs/rules-nerts.md`` for how the engine reads the rules (decisions ND1, ND2, ...).
The environments are :mod:`gnome_env.nerts.nerts_v0` (PettingZoo Parallel and AEC) and
:mod:`gnome_env.nerts.gym_env` (the single-seat Gymnasium env ``gnome_env/Nerts-v0``); neither
is imported here.
"""

from gnome_env.nerts.actions import Action, ActionTable, Kind, action_table
from gnome_env.nerts.cards import format_card, parse_card, parse_cards
from gnome_env.nerts.config import NertsConfig, foundation_slots, num_actions
from gnome_env.nerts.engine import (
    END_REASONS,
    HandResult,
    NertsGame,
    StepResult,
    game_winners,
    is_run,
    priority_order,
)
from gnome_env.nerts.validate import (
    NertsInvariantError,
    check_invariants,
    check_mask_matches_engine,
)

__all__ = [
    "END_REASONS",
    "Action",
    "ActionTable",
    "HandResult",
    "Kind",
    "NertsConfig",
    "NertsGame",
    "NertsInvariantError",
    "StepResult",
    "action_table",
    "check_invariants",
    "check_mask_matches_engine",
    "format_card",
    "foundation_slots",
    "game_winners",
    "is_run",
    "num_actions",
    "parse_card",
    "parse_cards",
    "priority_order",
]
