"""Ginny-O (RULES-ginny-o.md G1-G31): rummy melds laid crossword-style, engine layer.

Everything here is state, pure transitions and checks (numpy only). Start with::

    from gnome_env.ginny_o import GinnyConfig, GinnyGame
    game = GinnyGame(GinnyConfig(num_players=2), seed=0)
    while not game.game_over:
        game.step(game.legal_actions()[0])
    print(game.final_scores, game.winners())

See ``docs/rules-ginny-o.md`` for how the engine reads the rules (decisions GD1, GD2, ...).
"""

from gnome_env.ginny_o.actions import NUM_ACTIONS
from gnome_env.ginny_o.board import Board, meld_type
from gnome_env.ginny_o.cards import format_kind, format_tile, parse_kind, parse_kinds, parse_tile
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import END_REASONS, GinnyGame, IllegalActionError, StepResult
from gnome_env.ginny_o.movegen import Placement, generate, rack_counts, score_placement

__all__ = [
    "END_REASONS",
    "NUM_ACTIONS",
    "Board",
    "GinnyConfig",
    "GinnyGame",
    "IllegalActionError",
    "Placement",
    "StepResult",
    "format_kind",
    "format_tile",
    "generate",
    "meld_type",
    "parse_kind",
    "parse_kinds",
    "parse_tile",
    "rack_counts",
    "score_placement",
]
