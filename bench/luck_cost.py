"""What the arena's luck correction costs per game, beside the game itself (issue #33, item 3).

For each seat count, plays ``--deals`` deals of a lineup (default: the game's shipped
policy of :data:`POLICIES` against n-1 ``expert`` bots) with the arena's own work unit, once
without and once with ``luck=True``, alternating deal by deal so that both see the same
machine load, and prints the seconds per game of each and their ratio (the issue asks for at
most 2x for Gnoming). One process, one core. Nerts games are single hands capped at 400
steps, as its documented evaluations play them.

Run:  python bench/luck_cost.py --players 5 7 --deals 40
      python bench/luck_cost.py --game nerts --players 2 4 6 --deals 20
"""

from __future__ import annotations

import argparse
import json
import time

from agents.core.arena import arena_game, deal_seeds

#: The lineup's entry 0 by game (the rest: expert bots).
POLICIES = {
    "gnoming": "ppo:agents/policies/distill2_3to7/policy.pt",
    "nerts": "ppo:agents/policies/nerts_expert_ppo/policy.pt",
    "ginny_o": "turns:agents/policies/ginny_turns/policy.pt",
}
#: Rules other than the defaults, by game.
RULES = {"nerts": {"max_hands": 1, "max_steps_per_hand": 400}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=sorted(POLICIES), default="gnoming")
    parser.add_argument("--players", type=int, nargs="+", default=[5, 7])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument("--seed", type=int, default=990001)
    parser.add_argument("--entry", help="lineup entry 0 (the rest: expert); default by game")
    args = parser.parse_args(argv)
    game = arena_game(args.game)
    play_deal = game.play_deal
    entry = args.entry or POLICIES[args.game]
    game.luck()  # load (and compile) the value before timing
    rows = []
    for n in args.players:
        if not game.min_players <= n <= game.max_players:
            parser.error(f"--players {n}: {args.game} takes {game.min_players}-{game.max_players}")
        rules = game.rules_dict(RULES.get(args.game), n)
        lineup = [entry] + ["expert"] * (n - 1)
        play_deal(lineup, n, rules, *deal_seeds(args.seed, 10**6), luck=True)  # warm up
        plain = corrected = 0.0
        for d in range(args.deals):
            seeds = deal_seeds(args.seed, d)
            start = time.perf_counter()
            play_deal(lineup, n, rules, *seeds)
            plain += time.perf_counter() - start
            start = time.perf_counter()
            play_deal(lineup, n, rules, *seeds, luck=True)
            corrected += time.perf_counter() - start
        games = args.deals * n
        row = {
            "game": args.game,
            "players": n,
            "games": games,
            "seconds_per_game": round(plain / games, 4),
            "seconds_per_game_with_luck": round(corrected / games, 4),
            "ratio": round(corrected / plain, 2),
        }
        rows.append(row)
        print(
            f"{n} players, {games} games: {row['seconds_per_game'] * 1000:.1f} ms per game, "
            f"{row['seconds_per_game_with_luck'] * 1000:.1f} ms with the luck correction "
            f"({row['ratio']:.2f}x)"
        )
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
