"""Time per decision of a search agent, one process (one core), against n-1 Expert bots.

    python bench/search_time.py --spec netsearch:agents/policies/distill_3to7/policy.pt \
        --players 3 5 7 --games 20 [--reference ppo:agents/policies/distill_3to7/policy.pt] \
        [--seed 0] [--json PATH]

For each seat count it plays ``--games`` games (seeds ``seed + i``) with the agent at seat
``i % n`` and the compiled Expert at the other seats, times every decision of the agent
(``act`` on the encoded observation, from the call to the answer) and prints decisions
per game, the mean, median, p99 and max in milliseconds, and, for agents that count them
(``searched``), the share of decisions that ran rollouts. The ``--reference`` agent (by
default none) is timed the same way in the same run, on the same games. Before timing,
each agent is warmed up on a separate game (seed ``seed - 1``) until it has decided once
(and, for a searching agent, searched once): numba loads or compiles its code there.
Figures depend on the machine's load; the run prints the load average at the start and
end.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def time_agent(spec: str, n: int, games: int, seed: int) -> dict[str, float]:
    """Per-decision timings of ``spec`` against n-1 compiled Experts."""
    from agents.gnoming.expert_kernel import game_decider
    from agents.gnoming.registry import make_agent
    from gnome_env.gnoming import Game, RulesConfig
    from gnome_env.gnoming.encoding import ObservationEncoder

    rules = RulesConfig(num_players=n)
    enc = ObservationEncoder(rules)
    expert = game_decider(rules)
    agent = make_agent(spec, seed, rules)
    warm_up(agent, rules, enc, expert, seed - 1)
    times: list[float] = []
    searched_before = getattr(agent, "searched", 0)
    for i in range(games):
        game = Game(rules, seed + i)
        me = i % n
        while not game.game_over:
            seat = game.current_seat
            if seat != me:
                game.step(expert(game, seat))
                continue
            obs, mask = enc.encode(game, seat), game.legal_mask()
            start = time.perf_counter()
            action = agent.act(obs, mask)
            times.append(time.perf_counter() - start)
            game.step(action)
    ms = np.array(times) * 1000.0
    out = {
        "spec": spec,
        "players": n,
        "games": games,
        "decisions_per_game": len(ms) / games,
        "mean_ms": float(ms.mean()),
        "median_ms": float(np.median(ms)),
        "p99_ms": float(np.percentile(ms, 99)),
        "max_ms": float(ms.max()),
    }
    searched = getattr(agent, "searched", None)
    if searched is not None:
        out["searched_share"] = (searched - searched_before) / len(ms)
    return out


def warm_up(agent, rules, enc, expert, seed: int) -> None:
    """Let ``agent`` decide (and search, if it counts searches) at least once."""
    from gnome_env.gnoming import Game

    game = Game(rules, max(seed, 0))
    while not game.game_over:
        seat = game.current_seat
        action = agent.act(enc.encode(game, seat), game.legal_mask())
        if getattr(agent, "searched", 1) > 0:
            return
        game.step(action)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--spec", required=True, help="the agent to time (an agent spec)")
    parser.add_argument("--reference", default=None, help="an agent spec timed the same way")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 5, 7])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, metavar="PATH")
    args = parser.parse_args(argv)
    if args.games < 1 or any(not 3 <= n <= 7 for n in args.players):
        parser.error("--games must be >= 1 and --players each in 3..7")
    load_start = os.getloadavg()[0]
    rows = []
    for n in args.players:
        for spec in [args.spec] + ([args.reference] if args.reference else []):
            try:
                row = time_agent(spec, n, args.games, args.seed)
            except ValueError as err:
                parser.error(str(err))
            rows.append(row)
            searched = row.get("searched_share")
            print(
                f"{n} seats  {spec}: {row['decisions_per_game']:.1f} decisions/game, "
                f"mean {row['mean_ms']:.2f} ms, median {row['median_ms']:.2f}, "
                f"p99 {row['p99_ms']:.1f}, max {row['max_ms']:.1f}"
                + (f", searched {searched:.0%}" if searched is not None else ""),
                flush=True,
            )
    load_end = os.getloadavg()[0]
    print(f"load average (1 min): {load_start:.2f} at the start, {load_end:.2f} at the end")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"rows": rows, "load_start": load_start, "load_end": load_end}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
