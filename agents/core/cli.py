"""What every game's ``gnome`` command hooks (``agents/<game>/cli.py``) share: one lineup rule,
one seed rule and the game-config-from-options step. The command line itself
(``training/app/cli.py``) knows no game: it calls the hooks a game's descriptor names in
``GameSpec.commands``:

``options``
    ``{command: ((flag, argparse keywords), ...)}``: the game's own options of ``gnome demo``,
    ``eval`` and ``play`` (an option several games share is added once; given for a game
    that does not list it, it is a parser error);
``config``
    ``config(args, players)``: the game's rules config from those options (parser errors);
``demo``, ``play``
    ``demo(args)`` / ``play(args)``: the command for this game (``play`` missing: the game
    has no terminal play);
``eval``
    ``eval(args)``: ``(run_arena keywords, after)`` for the game's own ``gnome eval``
    options (``after(result)`` prints what they wrote, or is None);
``label``
    how messages name the game's agent specs (``"Nerts "`` in "known Nerts specs");
``play_players``
    ``gnome play``'s default seat count where it is not the descriptor's default;
``replay``
    ``replay(args, record)``: ``gnome replay`` of one of the game's records (the record
    already read, the output options checked: :mod:`training.app.replay_cmd`); missing:
    the game has no records.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

#: Seeds the commands accept: what every game's engine takes.
SEED_LIMIT = 2**63


def parse_lineup(
    parser: argparse.ArgumentParser,
    option: str,
    text: str,
    n: int,
    known: Sequence[str],
    label: str = "",
    what: str = "seat",
) -> list[str]:
    """The one lineup rule of ``gnome demo``, ``eval`` and ``play`` (``--lineup``,
    ``--opponents``): one spec for every ``what`` (seat or opponent), or exactly ``n``
    comma-separated non-empty specs, one per ``what`` in seat order. Else a parser error
    naming the known specs (``label``: how the game's specs are named, ``"Nerts "``)."""
    specs = [s.strip() for s in text.split(",")]
    names = ", ".join(known)
    if any(not s for s in specs):
        parser.error(f"argument {option}: an empty spec in {text!r}; known {label}specs: {names}")
    if len(specs) not in (1, n):
        whom = "players" if what == "seat" else f"{what}{'s' if n != 1 else ''}"
        parser.error(
            f"argument {option}: {len(specs)} specs given for {n} {whom}; give one "
            f"{label}spec for every {what} or {n} comma-separated {label}specs, one per {what} "
            f"in seat order (repeat a spec to seat it more than once); known {label}specs: "
            f"{names}"
        )
    return specs * n if len(specs) == 1 else specs


def check_seed(parser: argparse.ArgumentParser, seed: int) -> None:
    """``--seed`` must be an integer from 0 to 2**63 - 1 (every game takes those)."""
    if not 0 <= seed < SEED_LIMIT:
        parser.error(
            f"argument --seed: {seed} is not allowed: use an integer from 0 to {SEED_LIMIT - 1}"
        )


def check_seat(parser: argparse.ArgumentParser, seat: int, n: int) -> None:
    if not 0 <= seat < n:
        parser.error(f"argument --seat: {seat} is not a seat of {n} players: use 0..{n - 1}")


def config_from_options(
    args: argparse.Namespace,
    config_cls: Callable[..., Any],
    players: tuple[str, int],
    options: dict[str, str],
) -> Any:
    """``config_cls(**{players_field: n, field: value of --option ...})`` for the options
    given (``options``: config field -> option; ``players``: (seat-count field, n)). A
    ``ValueError`` is a parser error naming the option whose field it names."""
    values = {}
    for field, option in options.items():
        value = getattr(args, option.lstrip("-").replace("-", "_"))
        if value is not None:
            values[field] = value
    try:
        return config_cls(**{players[0]: players[1]}, **values)
    except ValueError as err:
        option = next((o for f, o in options.items() if str(err).startswith(f)), "--num-players")
        args.parser.error(f"argument {option}: {err}")


def make_agents(
    parser: argparse.ArgumentParser,
    option: str,
    make: Callable[[str, int, Any], Any],
    specs: Sequence[str],
    seeds: Sequence[int],
    config: Any,
) -> list[Any]:
    """One agent per spec (``make(spec, seed, config)``); a bad spec is a parser error."""
    try:
        return [make(spec, seed, config) for spec, seed in zip(specs, seeds, strict=True)]
    except ValueError as err:
        parser.error(f"argument {option}: {err}")


def demo_lineup(
    args: argparse.Namespace,
    config: Callable[[argparse.Namespace, int], Any],
    known: Sequence[str],
    make: Callable[[str, int, Any], Any],
    label: str,
) -> tuple[Any, list[str], list[Any]]:
    """``(rules, specs, agents)`` of a bots-only ``gnome demo``: the seed checked, the game's
    config from its options (``config(args, n)``), ``--lineup`` (default ``greedy``) read by
    the one lineup rule, and the agent at seat ``s`` seeded ``seed + s``."""
    parser: argparse.ArgumentParser = args.parser
    n = args.players
    check_seed(parser, args.seed)
    rules = config(args, n)
    specs = parse_lineup(parser, "--lineup", args.lineup or "greedy", n, known, label)
    seeds = [args.seed + seat for seat in range(n)]
    return rules, specs, make_agents(parser, "--lineup", make, specs, seeds, rules)


def seat_bots(
    seat: object, n: int, opponents: Sequence[Any], names: Sequence[str] | None
) -> tuple[dict[int, Any], list[str]]:
    """Terminal play's table: the human's ``seat`` (0..n-1, else ``ValueError``), one bot of
    ``opponents`` per other seat in seat order (a wrong count is a ``ValueError`` saying how
    many), and every seat's label (``names``, default ``you`` and each bot's ``spec``).
    Returns ``(bot of each other seat, labels)``."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"seat={seat!r} is not allowed: must be 0..{n - 1}")
    others = [s for s in range(n) if s != seat]
    if len(opponents) != len(others):
        raise ValueError(
            f"{len(opponents)} opponents given: {n} players need {len(others)}, one per seat "
            f"other than {seat}"
        )
    bot_of = dict(zip(others, opponents, strict=True))
    if names is None:
        names = ["you" if s == seat else getattr(bot_of[s], "spec", "bot") for s in range(n)]
    return bot_of, list(names)


def unwritable(path: str) -> str | None:
    """Why a game record cannot be written to ``path`` (None: it can): checked before a
    game starts, so a human does not play a game whose record is then lost."""
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


def add_sequential_options(parser: argparse.ArgumentParser) -> None:
    """``gnome eval``'s ``--until-significant`` and ``--against`` (sequential stopping,
    :func:`agents.core.arena.run_arena`'s ``until_significant`` and ``against``) and
    ``--variance-reduction`` (its ``variance_reduction``)."""
    parser.add_argument(
        "--until-significant",
        action="store_true",
        help="sequential stopping: play the deals in batches of 25 and stop as soon as an "
        "anytime-valid 95%% interval (a confidence sequence, valid however often it is looked "
        "at) of the first lineup entry's win rate excludes --against; --games is then the "
        "most it plays, and the table says how many it used (docs/arena.md)",
    )
    parser.add_argument(
        "--against",
        type=float,
        default=None,
        metavar="RATE",
        help="with --until-significant: the win rate to exclude, 0 < RATE < 1 (default 1/n, "
        "equal strength)",
    )
    parser.add_argument(
        "--variance-reduction",
        action="store_true",
        help="also report luck-corrected win rates and mean totals with their 95%% intervals "
        "and the variance-reduction factors (a control variate from the chance events, "
        "docs/arena.md; every game); the plain figures do not change",
    )


def check_sequential_flags(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """``--against`` only with ``--until-significant``, and strictly between 0 and 1;
    ``--variance-reduction`` only for a game whose arena has a luck correction."""
    if getattr(args, "variance_reduction", False):
        from agents.core.arena import GAMES, arena_game

        game = getattr(args, "game", "gnoming")
        if arena_game(game).luck is None:
            have = ", ".join(g for g in GAMES if arena_game(g).luck is not None)
            parser.error(
                f"argument --variance-reduction: not available for --game {game} yet (its "
                f"arena has no luck correction); games with one: {have}"
            )
    if args.against is None:
        return
    if not args.until_significant:
        parser.error("argument --against: only with --until-significant")
    if not 0 < args.against < 1:
        parser.error(
            f"argument --against: {args.against} is not allowed: a win rate strictly between 0 "
            "and 1 (default 1/n)"
        )


def save_games_options(records: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """``gnome eval``'s ``--save-games``, ``--save-every`` and ``--overwrite`` for a game whose
    arena writes records; ``records`` says what they are, e.g. ``"Nerts game records (JSON:
    seed, rules, every step's joint action"`` (read with :func:`save_games_extras`)."""
    return (
        (
            "--save-games",
            {
                "metavar": "DIR",
                "help": f"write {records}; gnome replay turns one into a page or a GIF) to "
                "DIR/game_NNNNNN.json, NNNNNN = deal x players + rotation (DIR is created; "
                "existing records are kept unless --overwrite)",
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
        (
            "--overwrite",
            {
                "action": "store_true",
                "help": "with --save-games: replace game records already in DIR",
            },
        ),
    )


def save_games_extras(args: argparse.Namespace, title: str) -> tuple[dict[str, Any], Any]:
    """``gnome eval``'s ``--save-games``, ``--save-every`` and ``--overwrite`` for a game whose
    records are written by the arena (``title``: its name in the closing line, ``Nerts``):
    ``run_arena`` keywords and what to print after the table. Records already in DIR that
    the run would write are a parser error unless ``--overwrite``."""
    from agents.core.arena import prepare_save_dir, saved_record_paths

    parser: argparse.ArgumentParser = args.parser
    if args.save_games is None:
        for flag, value in (("--save-every", args.save_every), ("--overwrite", args.overwrite)):
            if value:
                parser.error(f"argument {flag}: only with --save-games DIR")
        return {}, None
    every = 1 if args.save_every is None else args.save_every
    if every < 1:
        parser.error(
            f"argument --save-every: {every} is not allowed: use an integer >= 1 "
            "(1 saves every game, K every K-th game)"
        )
    try:
        directory = prepare_save_dir(args.save_games)
    except ValueError as err:
        parser.error(f"argument --save-games: {err}")
    games = -(-args.games // args.players) * args.players
    paths = saved_record_paths(directory, games, every)
    taken = [p.name for p in paths if p.exists()]
    if taken and not args.overwrite:
        parser.error(
            f"argument --save-games: {args.save_games} already holds {len(taken)} of the "
            f"{len(paths)} records this run writes ({', '.join(taken[:3])}"
            f"{', ...' if len(taken) > 3 else ''}): use another directory, or --overwrite "
            "to replace them"
        )

    def after(result: Any) -> None:
        # the games played: fewer than asked for when --until-significant stopped early
        written = saved_record_paths(directory, result.settings["games"], every)
        print(
            f"{len(written)} {title} game records written to {args.save_games} "
            f"(view one: gnome replay {written[0]} --html game.html)"
        )

    return {"save_games": args.save_games, "save_every": every}, after
