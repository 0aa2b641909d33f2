"""Time per decision of the Nerts bots on the same views (not a test -- prints figures).

Usage: python bench/nerts_bot_speed.py [--players 2 4 6] [--hands 5] [--repeat 5]

The views are every seat's view before every step of ``--hands`` one-hand games of greedy
bots (seeds 0, 1, ...); each bot's ``decide`` is timed over all of them, ``--repeat`` times,
and the best run is reported, with the cost of building the views beside it.
"""

from __future__ import annotations

import argparse
import sys
import time

from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.information import NertsView


def views_of(players: int, hands: int) -> tuple[list[NertsView], float]:
    """Every view of ``hands`` greedy one-hand games, and the seconds per view built."""
    cfg = NertsConfig(num_players=players, max_hands=1)
    views: list[NertsView] = []
    build = 0.0
    for seed in range(hands):
        game = NertsGame(cfg, seed)
        bots = [make_nerts_agent("greedy", s, cfg) for s in range(players)]
        while not game.hand_over:
            start = time.perf_counter()
            step_views = [NertsView.from_game(game, s) for s in range(players)]
            build += time.perf_counter() - start
            views += step_views
            game.step([b.decide(v) for b, v in zip(bots, step_views, strict=True)])
    return views, build / len(views)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Nerts bot decision times")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--hands", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--specs", nargs="+", default=["random", "greedy", "expert"])
    args = parser.parse_args(argv)
    for n in args.players:
        views, build = views_of(n, args.hands)
        cfg = views[0].config
        line = [f"{n} players, {len(views)} views: view {build * 1e6:.1f} us"]
        for spec in args.specs:
            bot = make_nerts_agent(spec, 0, cfg)
            best = float("inf")
            for _ in range(args.repeat):
                start = time.perf_counter()
                for v in views:
                    bot.decide(v)
                best = min(best, time.perf_counter() - start)
            line.append(f"{spec} {best / len(views) * 1e6:.1f} us")
        print(", ".join(line), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
