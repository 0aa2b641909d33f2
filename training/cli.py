"""The ``gnome`` command line. Subcommands import what they need lazily."""

from __future__ import annotations

import argparse
import sys

from gnome_env import Game, RulesConfig, save_record
from gnome_env.cards import card_token


def _demo(args: argparse.Namespace) -> int:
    """Play one game with uniformly random legal actions and print every round's scores."""
    import numpy as np

    config = RulesConfig(num_players=args.players)
    game = Game(config, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    print(f"Gnoming A Round, {args.players} players, seed {args.seed}, random legal play")
    for result in game.round_results:
        print(
            f"\nround {result.round + 1}: ended by {result.ended_by} after {result.turns} turns"
            + (f", first-out seat {result.first_out}" if result.first_out is not None else "")
        )
        for seat, layout in enumerate(result.layouts):
            cells = [f"{card_token(c):>3}" for c in layout]
            rows = " /".join("".join(cells[i : i + 3]) for i in (0, 3, 6))
            print(
                f"  seat {seat}: {rows}   layout {result.layout_scores[seat]:>4}"
                f"   round {result.round_scores[seat]:>4}"
            )
    print("\ntotals:", ", ".join(f"seat {s}: {t}" for s, t in enumerate(game.totals)))
    winners = game.winners()
    print(
        "winner" + ("s (shared)" if len(winners) > 1 else "") + ":",
        ", ".join(f"seat {s}" for s in winners),
    )
    print(f"{len(game.actions)} decisions")
    if args.record:
        save_record(game, args.record)
        print(f"record written to {args.record}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gnome`` command."""
    parser = argparse.ArgumentParser(prog="gnome", description="Gnoming A Round RL environment")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="play one random game and print the scores")
    demo.add_argument("--players", type=int, default=5, choices=range(3, 8), metavar="{3..7}")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--record", default=None, help="write the game record (JSON) here")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gnome`` command."""
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
