"""Engine speed: random legal play through the decision API (not a test -- prints figures).

Usage: python bench/engine_speed.py [--seconds 5] [--players 3 5 7] [--json]

For each seat count it plays whole games with uniformly random legal actions for about
``--seconds`` on one core, two ways: with ``legal_actions()`` (list of ids) and with
``legal_mask()`` (numpy bool mask, what the environments use), and prints decisions/s and
games/s. A reference measured in the same run -- the cost of the bare loop with a
do-nothing "game" -- shows how much of each figure is the loop itself.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import time

from gnome_env.gnoming import Game, RulesConfig
from training.gnoming.bench import engine_games  # the legal_mask loop, shared with gnome bench


def run_list_api(config: RulesConfig, seconds: float, seed: int) -> tuple[int, int, float]:
    """Games and decisions played in ~``seconds`` using ``legal_actions()``."""
    rng = random.Random(seed)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game(config, seed + games)
        while not game.game_over:
            legal = game.legal_actions()
            game.step(legal[rng.randrange(len(legal))])
            decisions += 1
        games += 1
    return games, decisions, time.perf_counter() - start


def run_empty_loop(seconds: float, seed: int) -> float:
    """Iterations/s of the same list loop around a do-nothing game (the loop's own cost)."""
    rng = random.Random(seed)
    legal = [0, 1, 2]
    iterations = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(1000):
            choice = legal[rng.randrange(len(legal))]
            legal = [choice, 1, 2]
        iterations += 1000
    return iterations / (time.perf_counter() - start)


def main() -> None:
    """Run the benchmark and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 5, 7])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()

    rows = []
    for n in args.players:
        config = RulesConfig(num_players=n)
        for api, fn in (("legal_actions", run_list_api), ("legal_mask", engine_games)):
            games, decisions, elapsed = fn(config, args.seconds, args.seed)
            rows.append(
                {
                    "players": n,
                    "api": api,
                    "games": games,
                    "decisions": decisions,
                    "decisions_per_s": decisions / elapsed,
                    "games_per_s": games / elapsed,
                    "decisions_per_game": decisions / games,
                }
            )
    loop = run_empty_loop(min(args.seconds, 2.0), args.seed)
    info = {"python": platform.python_version(), "machine": platform.machine(), "loop_only": loop}
    if args.json:
        print(json.dumps({"info": info, "rows": rows}, indent=1))
        return
    print(f"gnome_env engine, random legal play, one core, Python {info['python']}")
    print(f"{'players':>7} {'api':>14} {'decisions/s':>12} {'games/s':>9} {'dec/game':>9}")
    for r in rows:
        print(
            f"{r['players']:>7} {r['api']:>14} {r['decisions_per_s']:>12,.0f} "
            f"{r['games_per_s']:>9,.1f} {r['decisions_per_game']:>9,.0f}"
        )
    print(f"reference: the bare sampling loop alone runs {loop:,.0f} iterations/s")


if __name__ == "__main__":
    main()
