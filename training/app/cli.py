"""The ``gnome`` command line. It knows no game: ``--game`` choices, seat ranges, each game's
options, demo, play and eval extras (``GameSpec.commands``, :mod:`agents.core.cli`) and the
trainers of ``gnome train`` (``GameSpec.trainers``) all come from the registry
(:mod:`gnome_env.registry`). Subcommands import what they need lazily."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from agents.core.cli import add_sequential_options, check_sequential_flags
from gnome_env.core.spec import GameSpec
from gnome_env.registry import game_names, games, get_game
from training.app.bench_cmd import run_bench
from training.app.train_cmd import DISTILL_TRAINER, _config_trainer, run_train, trainers
from training.core.config import ArgumentParser

__all__ = ["BROKEN_PIPE_STATUS", "_config_trainer", "build_parser", "main"]

#: Exit status when the reader of stdout went away (``gnome demo | head``): 128 + SIGPIPE,
#: what a shell reports for a program that the signal stopped.
BROKEN_PIPE_STATUS = 141
#: Exit status after Ctrl-C: 128 + SIGINT.
INTERRUPTED_STATUS = 130
#: The commands that play one game (``--game``) and take the games' own options.
GAME_COMMANDS = ("demo", "eval", "play")


def _hook(spec: GameSpec, name: str, default: Any = None) -> Any:
    """The game's ``gnome`` command hook ``name`` (``GameSpec.commands``), or ``default``."""
    return spec.load("commands", name) if name in spec.commands else default


def _playable() -> list[str]:
    return [spec.name for spec in games() if "play" in spec.commands]


class _GameAction(argparse.Action):
    """``--game NAME`` (a registered game). A number is the mistyped ``--games`` of
    ``gnome eval`` (``--game 6``): it is reported as an unrecognized option with that hint,
    as the parser reports every other typo."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        if values in game_names():
            setattr(namespace, self.dest, values)
            return
        known = ", ".join(game_names())
        if str(values).lstrip("+-").isdigit():
            usage = parser.format_usage()
            if usage.count("\n") > 3:
                usage = f"usage: {parser.prog} [options]; {parser.prog} --help lists them\n"
            parser.exit(
                2,
                f"{usage}{parser.prog}: error: unrecognized arguments: {option_string} {values} "
                f"({option_string}: did you mean --games? {option_string} names the game: "
                f"{known})\n",
            )
        parser.error(f"argument {option_string}: invalid choice: {values!r} (choose from {known})")


class _SeatsAction(argparse.Action):
    """``--num-players N`` (or its alias ``--players``): remembers which one was typed."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        setattr(namespace, self.dest, values)
        namespace.players_flag = option_string


def _seat_default(spec: GameSpec, command: str) -> int:
    if command == "play":
        return _hook(spec, "play_players", spec.default_players)
    return spec.default_players


def _check_game_options(args: argparse.Namespace, command: str) -> GameSpec:
    """Parser errors for a seat count outside the game's range (from its descriptor) and for
    options of another game; fills in the game's default seat count."""
    parser: argparse.ArgumentParser = args.parser
    spec = get_game(args.game)
    if args.players is None:
        args.players = _seat_default(spec, command)
    elif not spec.min_players <= args.players <= spec.max_players:
        parser.error(
            f"argument {args.players_flag}: {args.players} is not allowed for --game "
            f"{spec.name}: use {spec.min_players}..{spec.max_players}"
        )
    for option, (dest, names) in args.game_only.items():
        if spec.name not in names and getattr(args, dest) is not None:
            allowed = " or ".join(f"--game {g}" for g in names)
            parser.error(f"argument {option}: only with {allowed} (this is --game {spec.name})")
    return spec


def _demo(args: argparse.Namespace) -> int:
    """``gnome demo``: the game's demo hook, with a fresh seed unless ``--seed`` is given."""
    spec = _check_game_options(args, "demo")
    _fresh_seed(args)
    return _hook(spec, "demo")(args)


def _play(args: argparse.Namespace) -> int:
    """``gnome play``: the game's play hook (a human seat in the terminal)."""
    spec = get_game(args.game)
    if "play" not in spec.commands:
        why = " (it is simultaneous)" if spec.api == "parallel" else ""
        others = " or ".join(f"--game {g}" for g in _playable())
        args.parser.error(
            f"argument --game: {spec.name} cannot be played in the terminal{why}; use {others}"
        )
    _check_game_options(args, "play")
    _fresh_seed(args)
    return _hook(spec, "play")(args)


def _fresh_seed(args: argparse.Namespace) -> None:
    """No ``--seed``: a fresh one (printed by the command, so the deal can be replayed)."""
    if args.seed is None:
        from gnome_env.core.rng import entropy_seed

        args.seed = entropy_seed() >> 33  # 30 bits: short enough to retype


def _check_run_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--games``, ``--workers``, ``--seed`` and ``--address`` of ``gnome eval``."""
    if args.games < 1:
        parser.error(f"argument --games: {args.games} is not allowed: use an integer >= 1")
    if args.workers < 1:
        parser.error(f"argument --workers: {args.workers} is not allowed: use an integer >= 1")
    if args.seed < 0:
        parser.error(f"argument --seed: {args.seed} is not allowed: use a non-negative integer")
    if args.address is not None and args.backend == "loky":
        parser.error("argument --address: only with --backend ray or --backend dask")
    check_sequential_flags(parser, args)


def _eval(args: argparse.Namespace) -> int:
    """Play a lineup of agents over many rotated, common deals and print the arena table."""
    from agents.core.arena import run_arena
    from agents.core.cli import make_agents, parse_lineup

    spec = _check_game_options(args, "eval")
    parser: argparse.ArgumentParser = args.parser
    n = args.players
    known = list(spec.load("known_specs")())
    lineup = parse_lineup(parser, "--lineup", args.lineup, n, known, _hook(spec, "label", ""))
    _check_run_flags(parser, args)
    config = _hook(spec, "config")(args, n)
    make_agents(parser, "--lineup", spec.load("make_agent"), lineup, [0] * n, config)
    extras, after = _hook(spec, "eval", lambda _: ({}, None))(args)
    try:
        result = run_arena(
            lineup,
            n,
            args.games,
            seed=args.seed,
            workers=args.workers,
            rules=config,
            progress=not args.no_progress,
            backend=args.backend,
            address=args.address,
            game=spec.name,
            until_significant=args.until_significant,
            against=args.against,
            variance_reduction=args.variance_reduction,
            **extras,
        )
    except ValueError as err:
        if "needs" not in str(err):  # a missing backend package: say what to install
            raise
        parser.error(f"argument --backend: {err}")
    print(result.table())
    if after is not None:
        after(result)
    for flag, write, what in (("json", "to_json", "JSON"), ("csv", "to_csv", "CSV")):
        if getattr(args, flag):
            getattr(result, write)(getattr(args, flag))
            print(f"{what} written to {getattr(args, flag)}")
    if args.plot:
        result.plot(args.plot)
        print(f"plot written to {args.plot}")
    return 0


def _games_epilog() -> str:
    lines = ["games (--game NAME, gnome games lists them):"]
    for spec in games():
        play = "" if "play" in spec.commands else "; no terminal play"
        lines.append(
            f"  {spec.name:<8} {spec.title}: {spec.min_players}..{spec.max_players} seats "
            f"(default {spec.default_players}), {spec.api} env{play}; {spec.docs}"
        )
    return "\n".join(lines)


def _add_game_option(parser: argparse.ArgumentParser, names: list[str]) -> None:
    parser.add_argument(
        "--game",
        default=names[0],
        action=_GameAction,
        metavar="{" + ",".join(names) + "}",
        help="the game: "
        + ", ".join(f"{s.name} ({s.title}, {s.docs})" for s in games() if s.name in names)
        + f" (default {names[0]})",
    )


def _add_players_option(parser: argparse.ArgumentParser, command: str) -> None:
    seats = ", ".join(
        f"{s.min_players}..{s.max_players} for {s.name} (default {_seat_default(s, command)})"
        for s in games()
        if command != "play" or "play" in s.commands
    )
    parser.add_argument(
        "--num-players",
        "--players",
        dest="players",
        type=int,
        default=None,
        action=_SeatsAction,
        metavar="N",
        help=f"seats: {seats}",
    )
    parser.set_defaults(players_flag="--num-players")


def _add_game_only_options(parser: argparse.ArgumentParser, command: str) -> None:
    """Every game's own options of ``command`` (hook ``options``), each added once; the
    table of which games take which goes to ``args.game_only``."""
    found: dict[str, tuple[dict[str, Any], list[tuple[str, str]]]] = {}
    for spec in games():
        for flag, kwargs in _hook(spec, "options", {}).get(command, ()):
            found.setdefault(flag, (kwargs, []))[1].append((spec.name, kwargs.get("help", "")))
    table = {}
    for flag, (kwargs, helps) in found.items():
        names = [g for g, _ in helps]
        if len({h for _, h in helps}) == 1:
            text = f"{' and '.join(names)}{' only' if len(names) == 1 else ''}: {helps[0][1]}"
        else:
            text = "; ".join(f"{g}: {h}" for g, h in helps)
        action = parser.add_argument(flag, **{**kwargs, "default": None, "help": text})
        table[flag] = (action.dest, tuple(names))
    parser.set_defaults(game_only=table)


def _summary(hook: Any) -> str:
    """What a command hook does: its docstring's first sentence after the ``gnome ...:``."""
    return (hook.__doc__ or "").split(":", 1)[-1].split(".")[0].strip()


def _known_specs_text(names: list[str]) -> str:
    return "; ".join(
        f"known {s.name} specs: {', '.join(s.load('known_specs')())}"
        for s in games()
        if s.name in names
    )


def _add_demo(sub: Any) -> None:
    """``gnome demo``: one game of bots, printed."""
    every = list(game_names())
    demo = sub.add_parser(
        "demo",
        help="play one game of bots and print it",
        description="Play one game and print it. "
        + " ".join(f"--game {s.name}: {_summary(_hook(s, 'demo'))}." for s in games())
        + " Without --seed a fresh seed is drawn and printed.",
    )
    _add_game_option(demo, every)
    _add_players_option(demo, "demo")
    demo.add_argument("--seed", type=int, default=None, help="game seed (default: a fresh one)")
    _add_game_only_options(demo, "demo")
    demo.set_defaults(func=_demo, parser=demo)


def _add_play(sub: Any) -> None:
    """``gnome play``: one game at one seat in the terminal."""
    every = list(game_names())
    playable = _playable()
    play = sub.add_parser(
        "play",
        help="play one game in the terminal against agent opponents",
        description="Play one game at one seat in the terminal: moves are read from stdin, the "
        "table and every move go to stdout (help lists the commands, q leaves). Games with "
        f"terminal play: {', '.join(playable)}. Without --seed a fresh seed is drawn and "
        "printed.",
    )
    _add_game_option(play, every)
    _add_players_option(play, "play")
    play.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    play.add_argument(
        "--opponents",
        default=None,
        help="agent spec for every opponent, or one spec per other seat, comma-separated "
        f"in seat order (default: the game's weakest useful bot); {_known_specs_text(playable)}",
    )
    play.add_argument(
        "--seed", type=int, default=None, help="game seed (deal and opponents; default: fresh)"
    )
    _add_game_only_options(play, "play")
    play.set_defaults(func=_play, parser=play)


def _add_eval(sub: Any) -> None:
    """``gnome eval``: the arena."""
    every = list(game_names())
    ev = sub.add_parser(
        "eval",
        help="arena: play a lineup of agents over many games and report win rates and ratings",
        description="Evaluate a lineup of agents (one per seat). Each deal is played once per "
        "seat rotation with the same cards, so every entry plays every seat equally often; "
        "--games is rounded up to a multiple of the seat count. Reports win rate with a 95% "
        "CI, mean round score, mean total, mean rank and an OpenSkill rating (docs/arena.md).",
    )
    _add_game_option(ev, every)
    _add_players_option(ev, "eval")
    ev.add_argument(
        "--lineup",
        required=True,
        help="one agent spec for every seat, or exactly one per seat, comma-separated, e.g. "
        f"expert,greedy,greedy,random,random; {_known_specs_text(every)}",
    )
    ev.add_argument("--games", type=int, default=1000, help="games to play, >= 1 (default 1000)")
    ev.add_argument("--seed", type=int, default=0, help="run seed (deals and agents; default 0)")
    ev.add_argument(
        "--workers", type=int, default=1, help="parallel worker processes, >= 1 (default 1)"
    )
    ev.add_argument(
        "--backend",
        default="loky",
        choices=["loky", "ray", "dask"],
        help="where the deals run (joblib backends): loky = local processes (default); ray = a "
        "Ray cluster (pip install -e '.[rllib]'); dask = a Dask cluster "
        "(pip install -e '.[dask]'). Every backend gives the same results for the same seed",
    )
    ev.add_argument(
        "--address",
        default=None,
        help="cluster to join: for ray, a Ray address ('auto': the cluster this machine "
        "belongs to; default: RAY_ADDRESS or a local Ray); for dask, a scheduler address "
        "(default: a local cluster of --workers processes)",
    )
    add_sequential_options(ev)
    ev.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    ev.add_argument("--csv", default=None, metavar="PATH", help="write the results as CSV")
    ev.add_argument("--plot", default=None, metavar="PATH", help="write a win-rate plot (PNG)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    _add_game_only_options(ev, "eval")
    ev.set_defaults(func=_eval, parser=ev)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gnome`` command."""
    from gnome_env import __version__

    parser = ArgumentParser(
        prog="gnome",
        description="Card games as reinforcement-learning environments: "
        + ", ".join(s.title for s in games())
        + ". Every command that plays a game takes --game NAME.",
        epilog=_games_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"gnome {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    _add_demo(sub)
    _add_play(sub)
    _add_eval(sub)
    sub.add_parser(
        "train",
        add_help=False,
        help="train a policy; the config's trainer: key picks the trainer (gnome train --help "
        "lists every trainer of every game)",
    )
    sub.add_parser(
        "distill",
        add_help=False,
        help=f"the {DISTILL_TRAINER} trainer (gnome distill --config configs/qdistill.yaml; "
        "gnome distill --help for every option)",
    )
    sub.add_parser(
        "bench",
        add_help=False,
        help="speed benchmark of one game (gnome bench --game NAME --help for its options)",
    )
    from training.app import games_cmd, replay_cmd

    games_cmd.add_parser(sub)
    replay_cmd.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gnome`` command.

    A closed stdout (``gnome demo ... | head``) ends the command quietly with status
    :data:`BROKEN_PIPE_STATUS` instead of a traceback: the rest of the output goes nowhere.
    Ctrl-C ends it with :data:`INTERRUPTED_STATUS` and a one-line note (the trainers say
    which checkpoint to resume from).
    """
    try:
        status = _main(argv)
        sys.stdout.flush()  # here, not at exit, where a closed pipe could not be caught
        return status
    except BrokenPipeError:
        # Python would report the error again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return BROKEN_PIPE_STATUS
    except KeyboardInterrupt:
        print("\ngnome: interrupted", file=sys.stderr)
        return INTERRUPTED_STATUS


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["train"]:  # each trainer has its own parser (one option per config field)
        return run_train(argv[1:])
    if argv[:1] == ["bench"]:  # each game's benchmark has its own parser
        return run_bench(argv[1:])
    if argv[:1] == ["distill"]:  # as train: its own parser
        spec, _ = trainers()[DISTILL_TRAINER]
        return spec.load("trainers", DISTILL_TRAINER)(argv[1:])
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
