"""``gnome bench [--game NAME] [options]``: the speed benchmark of one registered game, the
``bench`` hook its descriptor names (``GameSpec.commands``); without ``--game``, the
registry's first game. Each game's benchmark has its own options
(``gnome bench --game NAME --help``)."""

from __future__ import annotations

import argparse
import sys

from gnome_env.registry import game_names, games, get_game


def split_game(argv: list[str]) -> tuple[str | None, list[str]]:
    """``(--game value or None, the other arguments)``."""
    picker = argparse.ArgumentParser(prog="gnome bench", add_help=False, allow_abbrev=False)
    picker.add_argument("--game", default=None)
    known, rest = picker.parse_known_args(argv)
    return known.game, rest


def run_bench(argv: list[str]) -> int:
    name, rest = split_game(argv)
    benched = [s.name for s in games() if "bench" in s.commands]
    if name is None:
        name = benched[0]
        if rest[:1] in (["-h"], ["--help"]):
            print(
                f"gnome bench [--game {{{','.join(benched)}}}] [options]: the game's speed "
                f"benchmark (default {name}); its options follow.\n"
            )
    try:
        spec = get_game(name)
    except ValueError:
        print(
            f"gnome bench: error: argument --game: {name!r} is not allowed: choose from "
            f"{', '.join(game_names())}",
            file=sys.stderr,
        )
        return 2
    if "bench" not in spec.commands:
        print(f"gnome bench: error: {spec.title} has no benchmark", file=sys.stderr)
        return 2
    return spec.load("commands", "bench")(rest, prog=f"gnome bench --game {spec.name}")
