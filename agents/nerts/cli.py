"""Nerts's ``gnome`` command hooks (named in ``gnome_env.nerts.spec.SPEC.commands``;
:mod:`agents.core.cli` says what each is). Terminal play (:func:`play`) reads the human's
move of each simultaneous step, then shows the bots' moves of the same step
(:mod:`agents.nerts.human`)."""

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

LABEL = "Nerts "
#: ``gnome play``'s default seat count: you and one bot (demo and eval use 4).
PLAY_PLAYERS = 2
#: ``gnome play``'s default ``--max-hands``: one hand (a hand is a few hundred steps).
PLAY_HANDS = 1

_RULES = (
    ("--target", {"type": int, "help": "N31 target total that ends the game (default 100)"}),
    (
        "--max-hands",
        {"type": int, "help": "N31 hands per game at most (default 50; 1 = one-hand games)"},
    ),
    ("--max-steps", {"type": int, "help": "N28 step cap per hand (default 1000)"}),
)
_SAVE = save_games_options("Nerts game records (JSON: seed, rules, every step's joint action")
OPTIONS: dict[str, tuple[tuple[str, dict[str, Any]], ...]] = {
    "demo": (
        (
            "--lineup",
            {
                "help": "one Nerts spec for every seat, or one per seat, comma-separated (default "
                "greedy)"
            },
        ),
        *_RULES,
    ),
    "eval": (*_RULES, *_SAVE),
    "play": _RULES,
}


def config(args: argparse.Namespace, players: int) -> Any:
    """The NertsConfig of the seat count, ``--target``, ``--max-hands`` and ``--max-steps``."""
    from gnome_env.nerts import NertsConfig

    options = {
        "target_score": "--target",
        "max_hands": "--max-hands",
        "max_steps_per_hand": "--max-steps",
    }
    return config_from_options(args, NertsConfig, ("num_players", players), options)


def eval_extras(args: argparse.Namespace) -> tuple[dict[str, Any], Any]:
    """``gnome eval --game nerts``'s ``--save-games``, ``--save-every`` and ``--overwrite``
    (:func:`agents.core.cli.save_games_extras`)."""
    from agents.core.cli import save_games_extras

    return save_games_extras(args, "Nerts")


def demo(args: argparse.Namespace) -> int:
    """``gnome demo --game nerts``: one Nerts game of bots, hand by hand, then the final
    position of its last hand."""
    from agents.nerts.arena import play_game
    from agents.nerts.registry import known_nerts_specs, make_nerts_agent
    from gnome_env.nerts import NertsGame

    n = args.players
    rules, specs, agents = demo_lineup(args, config, known_nerts_specs(), make_nerts_agent, LABEL)
    game = NertsGame(rules, seed=args.seed)
    steps = play_game(game, agents)
    print(f"Nerts, {n} players, seed {args.seed}, seats: {', '.join(specs)}")
    print(
        f"game ends at a total of {rules.target_score} or after {rules.max_hands} hands; "
        f"hands are capped at {rules.max_steps_per_hand} steps"
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


def play(args: argparse.Namespace) -> int:
    """``gnome play --game nerts``: a human seat against Nerts bots, one step at a time
    (stdin/stdout); one hand unless ``--max-hands`` says more."""
    from agents.nerts.human import play_nerts_interactive
    from agents.nerts.registry import known_nerts_specs, make_nerts_agent

    parser: argparse.ArgumentParser = args.parser
    n = args.players
    check_seat(parser, args.seat, n)
    check_seed(parser, args.seed)
    if args.max_hands is None:
        args.max_hands = PLAY_HANDS
    rules = config(args, n)
    others = [s for s in range(n) if s != args.seat]
    known = list(known_nerts_specs())
    specs = parse_lineup(
        parser, "--opponents", args.opponents or "greedy", n - 1, known, LABEL, "opponent"
    )
    seeds = [8 * args.seed + s for s in others]  # 8 > 6 seats: one seed per (game, seat)
    opponents = make_agents(parser, "--opponents", make_nerts_agent, specs, seeds, rules)
    echo = not sys.stdin.isatty()  # a scripted input is echoed, so the transcript shows it

    def ask(prompt: str) -> str:
        line = input(prompt)
        if echo:
            print(line)
        return line

    names = ["you"] * n
    for spec, s in zip(specs, others, strict=True):
        names[s] = spec
    outcome = play_nerts_interactive(
        rules, args.seat, opponents, ask, print, seed=args.seed, names=names
    )
    return 130 if outcome.ended == "interrupted" else 0  # 128 + SIGINT, as gnome's Ctrl-C
