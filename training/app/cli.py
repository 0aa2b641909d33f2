"""The ``gnome`` command line. Subcommands import what they need lazily."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from gnome_env.gnoming import Game, RulesConfig, save_record
from training.core.config import ArgumentParser

#: The games ``gnome demo``, ``gnome eval`` and ``gnome play`` play (``--game``), with their
#: seat ranges and default seat counts.
GAMES = {"gnoming": (3, 7, 5), "nerts": (2, 6, 4), "ginny_o": (2, 4, 2)}
#: Default seat count of ``gnome play`` by game (Gnoming's play default is 4, not 5).
PLAY_PLAYERS = {"gnoming": 4, "ginny_o": 2}
#: Options that only some games have, by command: option -> (its argparse dest, the games
#: that take it). An option given for another game is a parser error.
GAME_ONLY: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "demo": {
        "--record": ("record", ("gnoming",)),
        "--lineup": ("lineup", ("nerts", "ginny_o")),
        "--target": ("target", ("nerts",)),
        "--max-hands": ("max_hands", ("nerts",)),
        "--max-steps": ("max_steps", ("nerts",)),
        "--max-turns": ("max_turns", ("ginny_o",)),
        "--max-placements": ("max_placements", ("ginny_o",)),
    },
    "eval": {
        "--rounds": ("rounds", ("gnoming",)),
        "--max-turns": ("max_turns", ("gnoming", "ginny_o")),
        "--save-games": ("save_games", ("gnoming",)),
        "--save-every": ("save_every", ("gnoming",)),
        "--target": ("target", ("nerts",)),
        "--max-hands": ("max_hands", ("nerts",)),
        "--max-steps": ("max_steps", ("nerts",)),
        "--max-placements": ("max_placements", ("ginny_o",)),
    },
    "play": {
        "--rounds": ("rounds", ("gnoming",)),
        "--save": ("save", ("gnoming",)),
        "--max-placements": ("max_placements", ("ginny_o",)),
    },
}


class _GameAction(argparse.Action):
    """``--game NAME`` (one of :data:`GAMES`). A number is the mistyped ``--games`` of
    ``gnome eval`` (``--game 6``): it is reported as an unrecognized option with that hint,
    as the parser reports every other typo."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        if values in GAMES:
            setattr(namespace, self.dest, values)
            return
        known = ", ".join(GAMES)
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


def _check_game_options(args: argparse.Namespace, command: str) -> None:
    """Parser errors for ``--players`` out of the game's range and for options of another
    game; fills in the game's default seat count."""
    parser: argparse.ArgumentParser = args.parser
    low, high, default = GAMES[args.game]
    if command == "play":
        default = PLAY_PLAYERS.get(args.game, default)
    if args.players is None:
        args.players = default
    elif not low <= args.players <= high:
        parser.error(
            f"argument --players: {args.players} is not allowed for --game {args.game}: "
            f"use {low}..{high}"
        )
    for option, (dest, games) in GAME_ONLY[command].items():
        if args.game not in games and getattr(args, dest) is not None:
            allowed = " or ".join(f"--game {g}" for g in games)
            parser.error(f"argument {option}: only with {allowed} (this is --game {args.game})")


def _ginny_config(args: argparse.Namespace, players: int) -> object:
    """The GinnyConfig of ``--players``, ``--max-turns`` and ``--max-placements`` (parser
    errors name the option)."""
    from gnome_env.ginny_o import GinnyConfig

    options = {
        "max_turns": ("--max-turns", args.max_turns),
        "max_placements": ("--max-placements", args.max_placements),
    }
    values = {field: value for field, (_, value) in options.items() if value is not None}
    try:
        return GinnyConfig(players=players, **values)
    except ValueError as err:
        option = next((o for f, (o, _) in options.items() if str(err).startswith(f)), "--players")
        args.parser.error(f"argument {option}: {err}")


def _ginny_specs(args: argparse.Namespace, text: str, n: int, option: str) -> list[str]:
    """One Ginny-O spec for every seat or ``n`` comma-separated specs (parser errors)."""
    from agents.ginny_o.registry import known_ginny_specs

    specs = [s.strip() for s in text.split(",")]
    if len(specs) not in (1, n) or any(not s for s in specs):
        args.parser.error(
            f"argument {option}: {text!r}: give one Ginny-O spec for every seat or {n} "
            f"comma-separated specs, one per seat; known Ginny-O specs: "
            f"{', '.join(known_ginny_specs())}"
        )
    return specs * n if len(specs) == 1 else specs


def _nerts_config(args: argparse.Namespace, players: int) -> object:
    """The NertsConfig of ``--players``, ``--target``, ``--max-hands`` and ``--max-steps``
    (parser errors name the option)."""
    from gnome_env.nerts import NertsConfig

    options = {
        "target_score": ("--target", args.target),
        "max_hands": ("--max-hands", args.max_hands),
        "max_steps_per_hand": ("--max-steps", args.max_steps),
    }
    values = {field: value for field, (_, value) in options.items() if value is not None}
    try:
        return NertsConfig(players=players, **values)
    except ValueError as err:
        option = next((o for f, (o, _) in options.items() if str(err).startswith(f)), "--players")
        args.parser.error(f"argument {option}: {err}")


def _demo(args: argparse.Namespace) -> int:
    """Play one game and print its scores: Gnoming A Round with uniformly random legal
    actions, or Nerts (``--game nerts``) with the ``--lineup`` bots."""
    _check_game_options(args, "demo")
    if args.game == "nerts":
        return _demo_nerts(args)
    if args.game == "ginny_o":
        return _demo_ginny(args)
    import numpy as np

    from agents.gnoming.human import format_round_result, format_winners

    config = RulesConfig(num_players=args.players)
    game = Game(config, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    print(f"Gnoming A Round, {args.players} players, seed {args.seed}, random legal play")
    totals = [0] * config.num_players
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


def _demo_nerts(args: argparse.Namespace) -> int:
    """``gnome demo --game nerts``: one Nerts game of bots, hand by hand, then the final
    position of its last hand."""
    from agents.nerts.arena import play_game
    from agents.nerts.registry import known_nerts_specs, make_nerts_agent
    from gnome_env.nerts import NertsGame

    parser: argparse.ArgumentParser = args.parser
    n = args.players
    if not 0 <= args.seed < 2**63:
        parser.error(
            f"argument --seed: {args.seed} is not allowed: use an integer from 0 to {2**63 - 1}"
        )
    config = _nerts_config(args, n)
    specs = [s.strip() for s in (args.lineup or "greedy").split(",")]
    known = ", ".join(known_nerts_specs())
    if len(specs) not in (1, n) or any(not s for s in specs):
        parser.error(
            f"argument --lineup: {args.lineup!r}: give one Nerts spec for every seat or {n} "
            f"comma-separated specs, one per seat; known Nerts specs: {known}"
        )
    if len(specs) == 1:
        specs = specs * n
    try:
        agents = [
            make_nerts_agent(spec, args.seed + seat, config) for seat, spec in enumerate(specs)
        ]
    except ValueError as err:
        parser.error(f"argument --lineup: {err}")
    game = NertsGame(config, seed=args.seed)
    steps = play_game(game, agents)
    print(f"Nerts, {n} players, seed {args.seed}, seats: {', '.join(specs)}")
    print(
        f"game ends at a total of {config.target_score} or after {config.max_hands} hands; "
        f"hands are capped at {config.max_steps_per_hand} steps"
    )
    totals = [0] * n
    for h in game.hand_results:
        totals = [t + s for t, s in zip(totals, h.scores, strict=True)]
        callers = f", called by {', '.join(f'p{c}' for c in h.callers)}" if h.callers else ""
        print(
            f"hand {h.hand}: {h.end_reason} after {h.steps} steps{callers}; "
            f"scores {list(h.scores)}, totals {totals}"
        )
    print()
    print(game.render())
    print()
    winners = ", ".join(f"p{s} ({specs[s]})" for s in game.winners())
    print(f"winner{'s' if len(game.winners()) > 1 else ''}: {winners}; {steps} steps")
    return 0


def _demo_ginny(args: argparse.Namespace) -> int:
    """``gnome demo --game ginny_o``: one Ginny-O game of bots, turn by turn (every placement
    in notation with its score, returned tiles named), the final board and the result."""
    from agents.ginny_o.human import format_result, play_bot_turn
    from agents.ginny_o.registry import make_ginny_agent
    from gnome_env.ginny_o import GinnyGame

    parser: argparse.ArgumentParser = args.parser
    n = args.players
    if not 0 <= args.seed < 2**63:
        parser.error(
            f"argument --seed: {args.seed} is not allowed: use an integer from 0 to {2**63 - 1}"
        )
    config = _ginny_config(args, n)
    specs = _ginny_specs(args, args.lineup or "greedy", n, "--lineup")
    try:
        agents = [
            make_ginny_agent(spec, args.seed + seat, config) for seat, spec in enumerate(specs)
        ]
    except ValueError as err:
        parser.error(f"argument --lineup: {err}")
    game = GinnyGame(config, seed=args.seed)
    print(f"Ginny-O, {n} players, seed {args.seed}, seats: {', '.join(specs)}")
    print(
        f"P{game.first_player} goes first (G12); at most {config.max_placements} placement"
        f"{'s' if config.max_placements > 1 else ''} a turn, {config.turn_cap} turns"
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


def _play(args: argparse.Namespace) -> int:
    """Play one game in the terminal: a human seat against agent opponents (stdin/stdout)."""
    from agents import known_specs
    from agents.gnoming.human import make_opponents, play_interactive

    parser: argparse.ArgumentParser = args.parser
    if args.game == "nerts":
        parser.error(
            "argument --game: nerts cannot be played in the terminal (it is simultaneous); "
            "use --game gnoming or --game ginny_o"
        )
    _check_game_options(args, "play")
    if args.game == "ginny_o":
        return _play_ginny(args)
    if args.rounds is None:
        args.rounds = 3
    n = args.players
    if not 0 <= args.seat < n:
        parser.error(f"argument --seat: {args.seat} is not a seat of {n} players: use 0..{n - 1}")
    if args.seed < 0:
        parser.error(f"argument --seed: {args.seed} is not allowed: use a non-negative integer")
    specs = [s.strip() for s in (args.opponents or "random").split(",")]
    if len(specs) not in (1, n - 1):
        parser.error(
            f"argument --opponents: {len(specs)} specs given; use one spec for every opponent "
            f"or {n - 1} comma-separated specs (one per other seat, in seat order); "
            f"known specs: {', '.join(known_specs())}"
        )
    try:
        rules = RulesConfig(num_players=n, max_turns_per_round=args.max_turns, rounds=args.rounds)
    except ValueError as err:
        option = "--max-turns" if str(err).startswith("max_turns_per_round") else "--rounds"
        parser.error(f"argument {option}: {err}")
    try:
        opponents = make_opponents(specs, n, args.seat, args.seed, rules)
    except ValueError as err:
        parser.error(f"argument --opponents: {err}")
    if args.save is not None:
        problem = _unwritable(args.save)
        if problem:
            parser.error(f"argument --save: {problem}")
    game = play_interactive(n, args.seat, opponents, args.seed, sys.stdin, sys.stdout, rules)
    if args.save is not None:
        opponent_specs = specs * (n - 1) if len(specs) == 1 else specs
        others = iter(opponent_specs)
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


def _play_ginny(args: argparse.Namespace) -> int:
    """``gnome play --game ginny_o``: a human seat against Ginny-O bots (stdin/stdout)."""
    from agents.ginny_o.human import play_ginny_interactive
    from agents.ginny_o.registry import make_ginny_agent

    parser: argparse.ArgumentParser = args.parser
    n = args.players
    if not 0 <= args.seat < n:
        parser.error(f"argument --seat: {args.seat} is not a seat of {n} players: use 0..{n - 1}")
    if not 0 <= args.seed < 2**63:
        parser.error(
            f"argument --seed: {args.seed} is not allowed: use an integer from 0 to {2**63 - 1}"
        )
    config = _ginny_config(args, n)
    others = [s for s in range(n) if s != args.seat]
    specs = _ginny_specs(args, args.opponents or "greedy", n - 1, "--opponents")
    try:
        opponents = [
            make_ginny_agent(spec, 8 * args.seed + s, config)
            for spec, s in zip(specs, others, strict=True)
        ]
    except ValueError as err:
        parser.error(f"argument --opponents: {err}")
    echo = not sys.stdin.isatty()  # a scripted input is echoed, so the transcript shows it

    def ask(prompt: str) -> str:
        line = input(prompt)
        if echo:
            print(line)
        return line

    names = ["you"] * n
    for spec, s in zip(specs, others, strict=True):
        names[s] = spec
    play_ginny_interactive(config, args.seat, opponents, ask, print, seed=args.seed, names=names)
    return 0


def _unwritable(path: str) -> str | None:
    """Why the game record cannot be written to ``path`` (None: it can): checked before a
    game starts, so a human does not play a game whose record is then lost."""
    from pathlib import Path

    target = Path(path)
    if path == "" or target.is_dir():
        return f"{path!r} is a directory: give a file path for the game record (JSON)"
    parent = target.parent
    if not parent.is_dir():
        return f"the directory {str(parent)!r} of {path!r} does not exist"
    probe = target.with_name(target.name + ".tmp")  # where save_record writes first
    try:
        with probe.open("x"):
            pass
    except FileExistsError:
        pass  # a leftover temp file: save_record will replace it
    except OSError as err:
        return f"cannot write {path!r}: {err.strerror or err}"
    else:
        probe.unlink()
    return None


def _lineup(
    parser: argparse.ArgumentParser, text: str, n: int, known_specs: Sequence[str], kind: str
) -> list[str]:
    """``--lineup``: exactly ``n`` non-empty comma-separated specs (``kind``: "" or "Nerts ")."""
    known = ", ".join(known_specs)
    lineup = [s.strip() for s in text.split(",")]
    if len(lineup) != n:
        parser.error(
            f"argument --lineup: {len(lineup)} specs given for {n} players; give exactly {n} "
            f"comma-separated {kind}specs, one per lineup entry (repeat a spec to seat it more "
            f"than once); known {kind}specs: {known}"
        )
    if any(not s for s in lineup):
        parser.error(f"argument --lineup: an empty spec in {text!r}; known {kind}specs: {known}")
    return lineup


def _check_run_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--games``, ``--workers``, ``--seed`` and ``--address`` of ``gnome eval`` (both games)."""
    if args.games < 1:
        parser.error(f"argument --games: {args.games} is not allowed: use an integer >= 1")
    if args.workers < 1:
        parser.error(f"argument --workers: {args.workers} is not allowed: use an integer >= 1")
    if args.seed < 0:
        parser.error(f"argument --seed: {args.seed} is not allowed: use a non-negative integer")
    if args.address is not None and args.backend == "loky":
        parser.error("argument --address: only with --backend ray or --backend dask")


def _eval(args: argparse.Namespace) -> int:
    """Play a lineup of agents over many rotated, common deals and print the arena table."""
    from agents.gnoming.arena import prepare_save_dir, run_arena
    from agents.gnoming.registry import known_specs, make_agent

    _check_game_options(args, "eval")
    if args.game == "nerts":
        return _eval_nerts(args)
    if args.game == "ginny_o":
        return _eval_ginny(args)
    parser: argparse.ArgumentParser = args.parser
    n = args.players
    if args.rounds is None:
        args.rounds = 3
    lineup = _lineup(parser, args.lineup, n, known_specs(), "")
    _check_run_flags(parser, args)
    if args.save_every is not None and args.save_games is None:
        parser.error("argument --save-every: only with --save-games DIR")
    save_every = 1 if args.save_every is None else args.save_every
    if save_every < 1:
        parser.error(
            f"argument --save-every: {save_every} is not allowed: use an integer >= 1 "
            "(1 saves every game, K every K-th game)"
        )
    try:
        rules = RulesConfig(num_players=n, max_turns_per_round=args.max_turns, rounds=args.rounds)
    except ValueError as err:
        option = "--max-turns" if str(err).startswith("max_turns_per_round") else "--rounds"
        parser.error(f"argument {option}: {err}")
    for spec in lineup:
        try:
            make_agent(spec, 0, rules)
        except ValueError as err:
            parser.error(f"argument --lineup: {err}")
    if args.save_games is not None:
        try:
            prepare_save_dir(args.save_games)
        except ValueError as err:
            parser.error(f"argument --save-games: {err}")
    try:
        result = run_arena(
            lineup,
            n,
            args.games,
            seed=args.seed,
            workers=args.workers,
            rules=rules,
            progress=not args.no_progress,
            backend=args.backend,
            address=args.address,
            save_games=args.save_games,
            save_every=save_every,
        )
    except ValueError as err:
        if "needs" not in str(err):  # a missing backend package: say what to install
            raise
        parser.error(f"argument --backend: {err}")
    print(result.table())
    if args.save_games is not None:
        written = -(-result.settings["games"] // save_every)
        print(f"{written} game records written to {args.save_games}")
    _write_outputs(result, args)
    return 0


def _write_outputs(result: object, args: argparse.Namespace) -> None:
    """``--json``, ``--csv`` and ``--plot`` of ``gnome eval``."""
    if args.json:
        result.to_json(args.json)
        print(f"JSON written to {args.json}")
    if args.csv:
        result.to_csv(args.csv)
        print(f"CSV written to {args.csv}")
    if args.plot:
        result.plot(args.plot)
        print(f"plot written to {args.plot}")


def _eval_nerts(args: argparse.Namespace) -> int:
    """``gnome eval --game nerts``: the arena on Nerts (agents.nerts.arena)."""
    from agents.nerts.registry import known_nerts_specs, make_nerts_agent

    config = _nerts_config(args, args.players)
    return _eval_plugged_game(
        args, "nerts", "Nerts ", known_nerts_specs(), make_nerts_agent, config
    )


def _eval_ginny(args: argparse.Namespace) -> int:
    """``gnome eval --game ginny_o``: the arena on Ginny-O (agents.ginny_o.arena)."""
    from agents.ginny_o.registry import known_ginny_specs, make_ginny_agent

    config = _ginny_config(args, args.players)
    return _eval_plugged_game(
        args, "ginny_o", "Ginny-O ", list(known_ginny_specs()), make_ginny_agent, config
    )


def _eval_plugged_game(
    args: argparse.Namespace,
    game: str,
    label: str,
    known: Sequence[str],
    make_agent: Callable[[str, int, object], object],
    config: object,
) -> int:
    """``gnome eval`` for a game other than Gnoming: check the lineup (``label`` names the
    game's specs in messages) and the run flags, run the shared arena, print and write."""
    from agents.gnoming.arena import run_arena

    parser: argparse.ArgumentParser = args.parser
    n = args.players
    lineup = _lineup(parser, args.lineup, n, known, label)
    _check_run_flags(parser, args)
    for spec in lineup:
        try:
            make_agent(spec, 0, config)
        except ValueError as err:
            parser.error(f"argument --lineup: {err}")
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
            game=game,
        )
    except ValueError as err:
        if "needs" not in str(err):  # a missing backend package: say what to install
            raise
        parser.error(f"argument --backend: {err}")
    print(result.table())
    _write_outputs(result, args)
    return 0


def _bench(args: argparse.Namespace) -> int:
    """Measure throughput against the reference environments and print a table."""
    from training.app.benchmark import format_report, run_benchmark, save_json

    parser: argparse.ArgumentParser = args.parser
    if args.seconds <= 0:
        parser.error(f"argument --seconds: {args.seconds} is not allowed: use a positive number")
    if any(b < 1 for b in args.batches):
        parser.error(f"argument --batches: {args.batches} is not allowed: every batch size >= 1")
    report = run_benchmark(
        seconds=args.seconds,
        num_players=args.players,
        batches=tuple(args.batches),
        seed=args.seed,
        references=not args.no_references,
        progress=lambda msg: print(msg, file=sys.stderr, flush=True),
    )
    print(format_report(report))
    if args.json:
        save_json(report, args.json)
        print(f"JSON written to {args.json}")
    return 0


def _add_game_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--game",
        default="gnoming",
        action=_GameAction,
        metavar="{gnoming,nerts,ginny_o}",
        help="the game: gnoming (Gnoming A Round, default), nerts (docs/nerts.md) or ginny_o "
        "(Ginny-O, docs/rules-ginny-o.md)",
    )


def _add_players_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        metavar="N",
        help="seats: 3..7 for gnoming (default 5), 2..6 for nerts (default 4), 2..4 for "
        "ginny_o (default 2)",
    )


def _add_nerts_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        type=int,
        default=None,
        help="nerts only: N31 target total that ends the game (default 100)",
    )
    parser.add_argument(
        "--max-hands",
        type=int,
        default=None,
        help="nerts only: N31 hands per game at most (default 50; 1 = one-hand games)",
    )
    parser.add_argument(
        "--max-steps",
        type=int,
        default=None,
        help="nerts only: N28 step cap per hand (default 1000)",
    )


def _add_ginny_options(parser: argparse.ArgumentParser, max_turns: bool) -> None:
    """``--max-placements`` (and ``--max-turns`` where the command has no shared one)."""
    if max_turns:
        parser.add_argument(
            "--max-turns",
            type=int,
            default=None,
            help="ginny_o only: G29d turn cap of the whole game (default 60 x players)",
        )
    parser.add_argument(
        "--max-placements",
        type=int,
        default=None,
        help="ginny_o only: G14 placements a player may make in one turn, 1..8 (default 1)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``gnome`` command."""
    from agents.gnoming.registry import known_specs

    parser = ArgumentParser(prog="gnome", description="Gnoming A Round RL environment")
    sub = parser.add_subparsers(dest="command", required=True)
    from agents.ginny_o.registry import known_ginny_specs
    from agents.nerts.registry import known_nerts_specs

    nerts_known = ", ".join(known_nerts_specs())
    ginny_known = ", ".join(known_ginny_specs())
    demo = sub.add_parser(
        "demo",
        help="play one random game and print the scores",
        description="Play one game and print its scores: Gnoming A Round with uniformly "
        "random legal actions (default), or Nerts (--game nerts) or Ginny-O (--game ginny_o, "
        "turn by turn) with the --lineup bots.",
    )
    _add_game_option(demo)
    _add_players_option(demo)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument(
        "--record", default=None, help="write the game record (JSON) here (gnoming only)"
    )
    demo.add_argument(
        "--lineup",
        default=None,
        help="nerts and ginny_o: one spec for every seat, or one per seat, comma-separated "
        f"(default greedy); known Nerts specs: {nerts_known}; known Ginny-O specs: "
        f"{ginny_known}",
    )
    _add_nerts_options(demo)
    _add_ginny_options(demo, max_turns=True)
    demo.set_defaults(func=_demo, parser=demo)
    play = sub.add_parser(
        "play",
        help="play one game in the terminal against agent opponents",
        description="Play Gnoming A Round at one seat: read moves (menu numbers) from stdin, "
        "print the table and every move to stdout. Enter q to leave. With --game ginny_o: "
        "play Ginny-O, typing placements like '7H 8H 9H @ 7,6 across' (help lists the "
        "commands).",
    )
    play.add_argument(
        "--game",
        default="gnoming",
        action=_GameAction,
        metavar="{gnoming,ginny_o}",
        help="the game: gnoming (Gnoming A Round, default) or ginny_o (Ginny-O)",
    )
    play.add_argument(
        "--players",
        type=int,
        default=None,
        choices=range(2, 8),
        metavar="{2..7}",
        help="seats: 3..7 for gnoming (default 4), 2..4 for ginny_o (default 2)",
    )
    play.add_argument("--seat", type=int, default=0, help="your seat, 0..players-1 (default 0)")
    play.add_argument(
        "--opponents",
        default=None,
        help="agent spec for every opponent, or one spec per other seat, comma-separated "
        f"in seat order; known specs: {', '.join(known_specs())} (default: random); known "
        f"Ginny-O specs (--game ginny_o): {ginny_known} (default: greedy)",
    )
    play.add_argument("--seed", type=int, default=0, help="game seed (deal and opponents)")
    play.add_argument(
        "--max-turns",
        type=int,
        default=None,
        help="R17 turn cap per round (default 60 x players); ginny_o: G29d turn cap of the "
        "whole game (default 60 x players)",
    )
    play.add_argument(
        "--rounds", type=int, default=None, help="gnoming only: R23 rounds per game (default 3)"
    )
    _add_ginny_options(play, max_turns=False)
    play.add_argument(
        "--save",
        default=None,
        metavar="PATH",
        help="gnoming only: after the game (finished or left with q), write its record (JSON, "
        "replayable with gnome_env.load_record) here; checked before the game starts",
    )
    play.set_defaults(func=_play, parser=play)
    ev = sub.add_parser(
        "eval",
        help="arena: play a lineup of agents over many games and report win rates and ratings",
        description="Evaluate a lineup of agents (one per seat). Each deal is played once per "
        "seat rotation with the same cards, so every entry plays every seat equally often; "
        "--games is rounded up to a multiple of --players. Reports win rate with a 95% CI, "
        "mean round score, mean total, mean rank and an OpenSkill rating (docs/arena.md).",
    )
    _add_game_option(ev)
    _add_players_option(ev)
    ev.add_argument(
        "--lineup",
        required=True,
        help="comma-separated agent specs, exactly one per player, e.g. "
        f"expert,greedy,greedy,random,random; known specs: {', '.join(known_specs())}; "
        f"known Nerts specs (--game nerts): {nerts_known}; known Ginny-O specs (--game "
        f"ginny_o): {ginny_known}",
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
    ev.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON")
    ev.add_argument("--csv", default=None, metavar="PATH", help="write the results as CSV")
    ev.add_argument("--plot", default=None, metavar="PATH", help="write a win-rate plot (PNG)")
    ev.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    ev.add_argument(
        "--save-games",
        default=None,
        metavar="DIR",
        help="gnoming only: write game records (JSON, replayable with gnome_env.load_record) "
        "to DIR/game_NNNNNN.json, NNNNNN = deal x players + rotation (DIR is created)",
    )
    ev.add_argument(
        "--save-every",
        type=int,
        default=None,
        metavar="K",
        help="with --save-games: save every K-th game, those with index %% K == 0 (default 1)",
    )
    ev.add_argument(
        "--max-turns",
        type=int,
        default=None,
        help="gnoming: R17 turn cap per round; ginny_o: G29d turn cap of the whole game "
        "(default 60 x players for both)",
    )
    ev.add_argument(
        "--rounds", type=int, default=None, help="gnoming only: R23 rounds per game (default 3)"
    )
    _add_nerts_options(ev)
    _add_ginny_options(ev, max_turns=False)
    ev.set_defaults(func=_eval, parser=ev)
    bench = sub.add_parser(
        "bench",
        help="throughput of the engine, the AEC envs and the vector engine vs references",
        description="Measure, in one run and with one random-legal-action loop, the engine, "
        "env() and raw_env(), PettingZoo's connect_four_v3 and texas_holdem_v4, a do-nothing "
        "AEC env of our sizes (bare and wrapped) and the vector engine; print ratios.",
    )
    bench.add_argument("--seconds", type=float, default=3.0, help="time per figure (default 3)")
    bench.add_argument("--players", type=int, default=5, choices=range(3, 8), metavar="{3..7}")
    bench.add_argument(
        "--batches",
        type=int,
        nargs="*",
        default=[1, 64, 1024, 4096],
        help="vector engine batch sizes (default 1 64 1024 4096; none to skip)",
    )
    bench.add_argument("--seed", type=int, default=0)
    bench.add_argument(
        "--no-references", action="store_true", help="skip connect_four_v3 and texas_holdem_v4"
    )
    bench.add_argument(
        "--json", default=None, metavar="PATH", help="also write the figures as JSON"
    )
    bench.set_defaults(func=_bench, parser=bench)
    sub.add_parser(
        "train",
        add_help=False,
        help="self-play PPO training (gnome train --config configs/quickstart.yaml; "
        "gnome train --help for every option)",
    )
    sub.add_parser(
        "distill",
        add_help=False,
        help="rollout-distilled policy (training/gnoming/qdistill.py: gnome distill --config "
        "configs/qdistill.yaml; gnome distill --help for every option)",
    )
    from training.app.replay_cmd import add_parser as add_replay_parser

    add_replay_parser(sub)
    return parser


def _config_trainer(argv: list[str]) -> str | None:
    """The ``trainer`` key of the YAML file given by ``--config`` in ``argv``, or without
    ``--config`` of ``DIR/config.yaml`` for ``--resume DIR`` (every trainer saves its config
    there). None: no config, no such key, or a file the trainer's own parser will report on."""
    path = resume = None
    for i, arg in enumerate(argv):
        if arg == "--config" and i + 1 < len(argv):
            path = argv[i + 1]
        elif arg.startswith("--config="):
            path = arg.split("=", 1)[1]
        elif arg == "--resume" and i + 1 < len(argv):
            resume = argv[i + 1]
        elif arg.startswith("--resume="):
            resume = arg.split("=", 1)[1]
    if path is None and resume is not None:
        saved = Path(resume) / "config.yaml"
        path = str(saved) if saved.is_file() else None
    if path is None:
        return None
    from training.core.config import ConfigError, read_yaml

    try:
        value = read_yaml(path).get("trainer")
    except ConfigError:
        return None
    return None if value is None else str(value)


#: Exit status when the reader of stdout went away (``gnome demo | head``): 128 + SIGPIPE,
#: what a shell reports for a program that the signal stopped.
BROKEN_PIPE_STATUS = 141


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``gnome`` command.

    A closed stdout (``gnome demo ... | head``) ends the command quietly with status
    :data:`BROKEN_PIPE_STATUS` instead of a traceback: the rest of the output goes nowhere.
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


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["train"]:  # training has its own parser (one option per config field)
        trainer = _config_trainer(argv[1:])
        if (
            trainer == "qdistill"
        ):  # a config with ``trainer: qdistill`` (training/gnoming/qdistill.py)
            from training.gnoming.qdistill import main as distill_main

            return distill_main(argv[1:])
        if trainer == "search_distill":  # expert iteration (training/gnoming/search_distill.py)
            from training.gnoming.search_distill import main as exit_main

            return exit_main(argv[1:])
        if trainer == "nerts_ppo":  # ``trainer: nerts_ppo`` (training/nerts/ppo.py)
            from training.nerts.ppo import main as nerts_main

            return nerts_main(argv[1:])
        if trainer == "ginny_ppo":  # ``trainer: ginny_ppo`` (training/ginny_o/ppo.py)
            from training.ginny_o.ppo import main as ginny_main

            return ginny_main(argv[1:])
        if trainer is not None:
            print(
                f"gnome train: error: the config's trainer: {trainer!r} is not known; "
                "allowed: qdistill, search_distill, nerts_ppo, ginny_ppo (leave the key out "
                "for PPO)",
                file=sys.stderr,
            )
            return 2
        from training.gnoming.ppo import main as train_main

        return train_main(argv[1:])
    if argv[:1] == ["distill"]:  # as train: its own parser
        from training.gnoming.qdistill import main as distill_main

        return distill_main(argv[1:])
    args = build_parser().parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
