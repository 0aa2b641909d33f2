"""Tune the Nerts search bot: one setting of ``SearchNertsAgent`` against n-1 expert bots.

Plays ``--games`` one-hand games on the Python engine, the search bot in seat ``k % n`` of
game ``k`` and experts elsewhere, deal ``--seed + k // n`` (so every deal is played from
every seat: common deals, rotated), and prints the search bot's win share, how often it left
the expert's move, and the time. The settings in ``agents/nerts/search.py`` were chosen with
it on seeds 123456 onwards (``docs/nerts.md``); the arena's figures use other seeds.

    python bench/nerts_search_tune.py --players 2 --games 400 --samples 16 --horizon 60 \
        --margin 0.3 --score-weight 0.1
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.nerts.expert import ExpertNertsAgent
from agents.nerts.search import SearchNertsAgent
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.information import NertsView


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=2, choices=range(2, 7))
    p.add_argument("--games", type=int, default=400)
    p.add_argument("--seed", type=int, default=123456, help="deal of the first game")
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--horizon", type=int, default=60)
    p.add_argument("--margin", type=float, default=0.3)
    p.add_argument("--score-weight", type=float, default=0.1)
    args = p.parse_args(argv)
    n = args.players
    config = NertsConfig(num_players=n, max_steps_per_hand=400)
    share = 0.0
    decisions = deviated = 0
    start = time.perf_counter()
    for k in range(args.games):
        seat = k % n
        game = NertsGame(config, args.seed + k // n)
        bots = [ExpertNertsAgent(0, config) for _ in range(n)]
        search = SearchNertsAgent(
            k, config, args.samples, args.horizon, args.score_weight, args.margin
        )
        bots[seat] = search
        while not game.hand_over:
            game.step([b.decide(NertsView.from_game(game, s)) for s, b in enumerate(bots)])
        scores = game.hand_results[-1].scores
        best = [i for i in range(n) if scores[i] == max(scores)]
        share += 1 / len(best) if seat in best else 0.0
        decisions += search.decisions
        deviated += search.deviated
    print(
        f"players {n}, games {args.games}, samples {args.samples}, horizon {args.horizon}, "
        f"margin {args.margin}, score weight {args.score_weight}: win share "
        f"{share / args.games:.3f} (1/n = {1 / n:.3f}), left the expert at {deviated} of "
        f"{decisions} decisions, {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
