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
)

LABEL = "Ginny-O "

_TURNS = ("--max-turns", {"type": int, "help": "G29d turn cap of the whole game (default 60 x "
          "players)"})  # fmt: skip
_PLACEMENTS = (
    "--max-placements",
    {"type": int, "help": "G14 placements a player may make in one turn, 1..8 (default 1)"},
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
    "eval": (_TURNS, _PLACEMENTS),
    "play": (_TURNS, _PLACEMENTS),
}


def config(args: argparse.Namespace, players: int) -> Any:
    """The GinnyConfig of the seat count, ``--max-turns`` and ``--max-placements``."""
    from gnome_env.ginny_o import GinnyConfig

    options = {"max_turns": "--max-turns", "max_placements": "--max-placements"}
    return config_from_options(args, GinnyConfig, ("num_players", players), options)


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
    """``gnome play --game ginny_o``: a human seat against Ginny-O bots (stdin/stdout)."""
    from agents.ginny_o.human import play_ginny_interactive
    from agents.ginny_o.registry import make_ginny_agent

    parser: argparse.ArgumentParser = args.parser
    n = args.players
    check_seat(parser, args.seat, n)
    check_seed(parser, args.seed)
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
    play_ginny_interactive(rules, args.seat, opponents, ask, print, seed=args.seed, names=names)
    return 0
