"""Gnoming A Round's ``gnome`` command hooks (named in ``gnome_env.gnoming.spec.SPEC.commands``;
:mod:`agents.core.cli` says what each is)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agents.core.cli import (
    check_seat,
    check_seed,
    config_from_options,
    parse_lineup,
    unwritable,
)

LABEL = ""
#: ``gnome play``'s default seat count (demo and eval use the descriptor's default, 5).
PLAY_PLAYERS = 4

_ROUNDS = ("--rounds", {"type": int, "help": "R23 rounds per game (default 3)"})
_TURNS = ("--max-turns", {"type": int, "help": "R17 turn cap per round (default 60 x players)"})
OPTIONS: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "demo": (("--record", {"metavar": "PATH", "help": "write the game record (JSON) here"}),),
    "eval": (
        _ROUNDS,
        _TURNS,
        (
            "--save-games",
            {
                "metavar": "DIR",
                "help": "write game records (JSON, replayable with gnome_env.load_record) "
                "to DIR/game_NNNNNN.json, NNNNNN = deal x players + rotation (DIR is created)",
            },
        ),
        (
            "--save-every",
            {
                "type": int,
                "metavar": "K",
                "help": "with --save-games: save every K-th game, those with index %% K == 0 "
                "(default 1)",
            },
        ),
    ),
    "play": (
        _ROUNDS,
        _TURNS,
        (
            "--save",
            {
                "metavar": "PATH",
                "help": "after the game (finished or left with q), write its record (JSON, "
                "replayable with gnome_env.load_record) here; checked before the game starts",
            },
        ),
    ),
}


def config(args: argparse.Namespace, players: int) -> Any:
    """The RulesConfig of the seat count, ``--max-turns`` and ``--rounds``."""
    from gnome_env.gnoming.config import RulesConfig

    options = {"max_turns_per_round": "--max-turns", "rounds": "--rounds"}
    options = {f: o for f, o in options.items() if hasattr(args, o[2:].replace("-", "_"))}
    return config_from_options(args, RulesConfig, ("num_players", players), options)


def demo(args: argparse.Namespace) -> int:
    """``gnome demo``: one game of uniformly random legal actions, round by round."""
    import numpy as np

    from agents.gnoming.human import format_round_result, format_winners
    from gnome_env.gnoming import Game, save_record

    check_seed(args.parser, args.seed)
    rules = config(args, args.players)
    game = Game(rules, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    while not game.game_over:
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    print(f"Gnoming A Round, {args.players} players, seed {args.seed}, random legal play")
    totals = [0] * rules.num_players
    for result in game.round_results:
        totals = [t + s for t, s in zip(totals, result.round_scores, strict=True)]
        print()
        print(format_round_result(result, totals, human=-1))
    print()
    print(format_winners(game, human=-1))
    print(f"{len(game.actions)} decisions")
    if args.record:
        save_record(game, args.record)
        print(f"record written to {args.record}")
    return 0


def play(args: argparse.Namespace) -> int:
    """``gnome play``: a human seat against agent opponents (stdin/stdout)."""
    from agents.gnoming.human import make_opponents, play_interactive
    from agents.gnoming.registry import known_specs
    from gnome_env.gnoming import save_record

    parser: argparse.ArgumentParser = args.parser
    n = args.players
    check_seat(parser, args.seat, n)
    check_seed(parser, args.seed)
    specs = parse_lineup(
        parser, "--opponents", args.opponents or "random", n - 1, known_specs(), LABEL, "opponent"
    )
    rules = config(args, n)
    try:
        opponents = make_opponents(specs, n, args.seat, args.seed, rules)
    except ValueError as err:
        parser.error(f"argument --opponents: {err}")
    if args.save is not None:
        problem = unwritable(args.save)
        if problem:
            parser.error(f"argument --save: {problem}")
    game = play_interactive(n, args.seat, opponents, args.seed, sys.stdin, sys.stdout, rules)
    if args.save is not None:
        others = iter(specs)
        meta = {
            "source": "gnome play",
            "num_players": n,
            "players": ["human" if s == args.seat else next(others) for s in range(n)],
            "human_seat": args.seat,
            "seed": args.seed,
        }
        try:
            save_record(game, args.save, meta)
        except OSError as err:
            print(
                f"gnome play: error: cannot write the record to {args.save!r}: "
                f"{err.strerror or err}",
                file=sys.stderr,
            )
            return 2
        print(f"record written to {args.save}")
    return 0


def eval_extras(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """``gnome eval``'s ``--save-games`` and ``--save-every``: ``run_arena`` keywords and
    what to print after the table."""
    from agents.gnoming.arena import prepare_save_dir

    parser: argparse.ArgumentParser = args.parser
    if args.save_every is not None and args.save_games is None:
        parser.error("argument --save-every: only with --save-games DIR")
    every = 1 if args.save_every is None else args.save_every
    if every < 1:
        parser.error(
            f"argument --save-every: {every} is not allowed: use an integer >= 1 "
            "(1 saves every game, K every K-th game)"
        )
    if args.save_games is None:
        return {}, None
    try:
        prepare_save_dir(args.save_games)
    except ValueError as err:
        parser.error(f"argument --save-games: {err}")

    def after(result: Any) -> None:
        written = -(-result.settings["games"] // every)
        print(f"{written} game records written to {args.save_games}")

    return {"save_games": args.save_games, "save_every": every}, after
