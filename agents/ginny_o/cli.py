"""Ginny-O's ``gnome`` command hooks (named in ``gnome_env.ginny_o.spec.SPEC.commands``;
:mod:`agents.core.cli` says what each is)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from agents.core.cli import (
    check_seat,
    check_seed,
    config_from_options,
    demo_lineup,
    make_agents,
    parse_lineup,
    save_games_options,
)

LABEL = "Ginny-O "

_TURNS = ("--max-turns", {"type": int, "help": "G29d turn cap of the whole game (default 60 x "
          "players)"})  # fmt: skip
_PLACEMENTS = (
    "--max-placements",
    {"type": int, "help": "G14 placements a player may make in one turn, 1..8 (default 1)"},
)
_SAVE_GAMES = save_games_options("Ginny-O game records (JSON: seed, rules, every turn's action ids")
_SAVE = (
    (
        "--save",
        {
            "metavar": "PATH",
            "help": "after the game (finished or left with quit), write its Ginny-O record "
            "(JSON; gnome replay turns it into a page) here; checked before the game starts, "
            "an existing file is refused unless --overwrite",
        },
    ),
    ("--overwrite", {"action": "store_true", "help": "with --save: replace an existing file"}),
)
OPTIONS: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "demo": (
        (
            "--lineup",
            {
                "help": "one Ginny-O spec for every seat, or one per seat, comma-separated "
                "(default greedy)"
            },
        ),
        _TURNS,
        _PLACEMENTS,
    ),
    "eval": (_TURNS, _PLACEMENTS, *_SAVE_GAMES),
    "play": (_TURNS, _PLACEMENTS, *_SAVE),
}


def config(args: argparse.Namespace, players: int) -> Any:
    """The GinnyConfig of the seat count, ``--max-turns`` and ``--max-placements``."""
    from gnome_env.ginny_o import GinnyConfig

    options = {"max_turns": "--max-turns", "max_placements": "--max-placements"}
    return config_from_options(args, GinnyConfig, ("num_players", players), options)


def eval_extras(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """``gnome eval --game ginny_o``'s ``--save-games``, ``--save-every`` and ``--overwrite``
    (:func:`agents.core.cli.save_games_extras`)."""
    from agents.core.cli import save_games_extras

    return save_games_extras(args, "Ginny-O")


def _check_save(parser: argparse.ArgumentParser, path: str | None, overwrite: bool) -> None:
    """``gnome play``'s ``--save PATH`` and ``--overwrite``, checked before the game starts
    (a human does not play a game whose record is then lost)."""
    from pathlib import Path

    from agents.core.cli import unwritable

    if path is None:
        if overwrite:
            parser.error("argument --overwrite: only with --save PATH")
        return
    problem = unwritable(path)
    if problem:
        parser.error(f"argument --save: {problem}")
    if Path(path).exists() and not overwrite:
        parser.error(
            f"argument --save: {path} already exists: give another file name, or --overwrite "
            "to replace it"
        )


def _specs() -> list[str]:
    from agents.ginny_o.registry import known_ginny_specs

    return list(known_ginny_specs())


def demo(args: argparse.Namespace) -> int:
    """``gnome demo --game ginny_o``: one Ginny-O game of bots, turn by turn (every placement
    in notation with its score, returned tiles named), the final board and the result."""
    from agents.ginny_o.human import format_result, play_bot_turn
    from agents.ginny_o.registry import make_ginny_agent
    from gnome_env.ginny_o import GinnyGame

    n = args.players
    rules, specs, agents = demo_lineup(args, config, _specs(), make_ginny_agent, LABEL)
    game = GinnyGame(rules, seed=args.seed)
    print(f"Ginny-O, {n} players, seed {args.seed}, seats: {', '.join(specs)}")
    print(
        f"P{game.first_player} goes first (G12); at most {rules.max_placements} placement"
        f"{'s' if rules.max_placements > 1 else ''} a turn, {rules.turn_cap} turns"
    )
    while not game.game_over:
        seat, turn = game.current, game.turn
        for line in play_bot_turn(game, agents[seat], reveal=True):
            print(f"turn {turn:>3}  P{seat} ({specs[seat]}): {line}")
    print()
    print(game.render())
    print()
    print(format_result(game, names=specs))
    return 0


def play(args: argparse.Namespace) -> int:
    """``gnome play --game ginny_o``: a human seat against Ginny-O bots (stdin/stdout);
    with ``--save PATH`` the game's record is written when it ends or the human leaves."""
    from agents.ginny_o.human import play_ginny_interactive
    from agents.ginny_o.registry import make_ginny_agent

    parser: argparse.ArgumentParser = args.parser
    n = args.players
    check_seat(parser, args.seat, n)
    check_seed(parser, args.seed)
    save, overwrite = getattr(args, "save", None), bool(getattr(args, "overwrite", None))
    _check_save(parser, save, overwrite)
    rules = config(args, n)
    others = [s for s in range(n) if s != args.seat]
    specs = parse_lineup(
        parser, "--opponents", args.opponents or "greedy", n - 1, _specs(), LABEL, "opponent"
    )
    seeds = [8 * args.seed + s for s in others]
    opponents = make_agents(parser, "--opponents", make_ginny_agent, specs, seeds, rules)
    echo = not sys.stdin.isatty()  # a scripted input is echoed, so the transcript shows it

    def ask(prompt: str) -> str:
        line = input(prompt)
        if echo:
            print(line)
        return line

    names = ["you"] * n
    for spec, s in zip(specs, others, strict=True):
        names[s] = spec
    game = play_ginny_interactive(
        rules, args.seat, opponents, ask, print, seed=args.seed, names=names
    )
    if save is not None:
        from gnome_env.ginny_o.records import save_record

        players = ["human" if s == args.seat else names[s] for s in range(n)]
        meta = {
            "source": "gnome play",
            "num_players": n,
            "players": players,
            "human_seat": args.seat,
            "seed": args.seed,
        }
        try:
            save_record(game, save, meta, overwrite=overwrite)
        except OSError as err:  # FileExistsError too: the file appeared during the game
            print(
                f"gnome play: error: cannot write the record to {save!r}: {err.strerror or err}",
                file=sys.stderr,
            )
            return 2
        print(f"record written to {save} (view it: gnome replay {save} --html game.html)")
    return 0
