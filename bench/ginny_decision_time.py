"""Seconds per whole-turn decision of a Ginny-O agent spec, at the start of each of its
turns (phase ``choose``), seat 0 against n - 1 ``expert`` bots: 6 two-player and 3
four-player games, seeds 930000 onward.

Usage: python bench/ginny_decision_time.py turns:agents/policies/ginny_lookahead/policy.pt
"""

from __future__ import annotations

import sys
import time

import numpy as np

from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.information import GinnyView


def main(argv: list[str] | None = None) -> int:
    spec = (argv if argv is not None else sys.argv[1:])[0]
    for n, games in ((2, 6), (4, 3)):
        times = []
        for g in range(games):
            game = GinnyGame(GinnyConfig(num_players=n), 930000 + g)
            agents = [make_ginny_agent(spec if s == 0 else "expert", s) for s in range(n)]
            while not game.game_over:
                view = GinnyView.from_game(game, game.current)
                start = time.perf_counter()
                action = agents[game.current].decide(view)
                elapsed = time.perf_counter() - start
                if game.current == 0 and view.phase == "choose":
                    times.append(elapsed)
                game.step(action)
        t = np.array(times) * 1000
        print(
            f"{spec} {n}p: {len(t)} turns, mean {t.mean():.1f} ms, "
            f"p99 {np.percentile(t, 99):.1f} ms, max {t.max():.1f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
