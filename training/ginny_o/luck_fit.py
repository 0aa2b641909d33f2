"""Fit the value of Ginny-O's luck correction (``agents/ginny_o/luck_value.json``).

Games: ``--deals`` games at 2, 3 and 4 seats in turn, every seat the same bot (``expert``,
or ``greedy`` one game in four), game seeds from the arena seed ``--seed`` (default
:data:`FIT_SEED`, which no evaluation uses). Every box draw of every game
(:func:`agents.ginny_o.luck.chance_events`) is a sample:

1. **Points to come.** For each seat, its rack's features after the draw and the points it
   went on to make (final score, G30 penalty included, less its score then); least squares
   per box stage.
2. **Spread.** A grid search over the win model's ``sigma = (a, b)`` for the smallest
   variance the correction leaves on these games (mean square of win share - correction -
   1/n).
3. **Scale.** The control-variate coefficients of the summed win and total terms: the
   least-squares slope of the outcome on them over these games.

Run:  python -m training.ginny_o.luck_fit --deals 240 --out agents/ginny_o/luck_value.json \\
          --overwrite
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from agents.core.arena import deal_seeds
from agents.ginny_o.arena import play_game
from agents.ginny_o.luck import (
    BOX_STAGES,
    FEATURES,
    GinnyLuckValue,
    chance_events,
    event_terms,
    predicted_table,
    rack_row,
    stage,
)
from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from training.core.runs import add_output_file_options, checked_output_file, save_value_file

#: The arena seed of the fit's games: never used to evaluate anything.
FIT_SEED = 660066
A_GRID = (25.0, 100.0, 400.0, 1600.0, 6400.0, 25600.0)
B_GRID = (0.0, 5.0, 20.0, 80.0, 320.0, 1280.0)


def collect(deals: int, seed: int):
    """Rows (stage, features..., points to come) and, per game, what the spread search needs."""
    rows, games = [], []
    start = time.perf_counter()
    for d in range(deals):
        n = 2 + d % 3
        spec = "greedy" if d % 4 == 3 else "expert"
        config = GinnyConfig(num_players=n)
        game_seed, agent_seed = deal_seeds(seed, d)
        game = GinnyGame(config, game_seed)
        agents = [make_ginny_agent(spec, agent_seed + s, config) for s in range(n)]
        play_game(game, agents)
        final = np.array(game.final_scores, dtype=np.float64)
        winners = game.winners()
        shares = np.array([1.0 / len(winners) if s in winners else 0.0 for s in range(n)])
        events = chance_events(config, game_seed, [a for _, a in game.log])
        for ev in events:
            for s in range(n):
                rows.append([stage(ev.box), *rack_row(ev.racks[s]), final[s] - ev.scores[s]])
        games.append((events, shares, final))
        if (d + 1) % 20 == 0:
            print(f"  {d + 1}/{deals} games, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return np.array(rows), games


def fit_coef(rows: np.ndarray) -> np.ndarray:
    coef = GinnyLuckValue.untrained().coef.copy()
    for st in range(len(BOX_STAGES) + 1):
        sel = rows[:, 0] == st
        if sel.sum() < 50:
            continue
        x, y = rows[sel, 1:-1], rows[sel, -1]
        reg = 1.0 * np.eye(x.shape[1])
        coef[st] = np.linalg.solve(x.T @ x + reg, x.T @ y + reg @ coef[st])
    return coef


def search_sigma(games, coef: np.ndarray) -> np.ndarray:
    """The grid point of (a, b) with the smallest corrected mean square."""
    prepared = []
    for events, shares, _ in games:
        items = []
        for ev in events:
            predicted = predicted_table(ev, coef)
            p = ev.counts / ev.counts.sum()
            idx = int(np.searchsorted(ev.support, ev.tile))
            items.append((predicted, p, idx, ev.box))
        prepared.append((items, shares))
    best, best_sigma = np.inf, None
    for a in A_GRID:
        for b in B_GRID:
            value = GinnyLuckValue(coef, np.array([a, b]), {})
            res = []
            for items, shares in prepared:
                luck = np.zeros(len(shares))
                for predicted, p, idx, box in items:
                    win = value.win(predicted, box)
                    luck += win[idx] - p @ win
                res.extend(shares - luck - 1.0 / len(shares))
            mse = float(np.mean(np.square(res)))
            if mse < best:
                best, best_sigma = mse, np.array([a, b])
    return best_sigma


def fit_scale(games, coef: np.ndarray, sigma: np.ndarray) -> tuple[float, float]:
    """Least-squares slopes (through the origin, outcomes centred per game) of the win
    shares and final scores on their summed terms."""
    value = GinnyLuckValue(coef, sigma, {})
    xw, yw, xt, yt = [], [], [], []
    for events, shares, final in games:
        n = len(shares)
        win, total = np.zeros(n), np.zeros(n)
        for ev in events:
            w, t = event_terms(ev, value)
            win += w
            total += t
        xw.extend(win)
        yw.extend(shares - 1.0 / n)
        xt.extend(total - total.mean())
        yt.extend(final - final.mean())
    slope = lambda x, y: float(np.dot(x, y) / max(np.dot(x, x), 1e-12))  # noqa: E731
    return slope(np.array(xw), np.array(yw)), slope(np.array(xt), np.array(yt))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=240, help="games (2-4 seats in turn)")
    parser.add_argument("--seed", type=int, default=FIT_SEED, help="the fit's arena seed")
    add_output_file_options(parser)
    args = parser.parse_args(argv)
    if args.deals < 3:
        parser.error("--deals must be at least 3 (one game at each seat count)")
    out = checked_output_file(parser, args)
    start = time.perf_counter()
    rows, games = collect(args.deals, args.seed)
    coef = fit_coef(rows)
    sigma = search_sigma(games, coef)
    scale = fit_scale(games, coef, sigma)
    value = GinnyLuckValue(
        coef,
        sigma,
        {
            "fitted": True,
            "command": "python -m training.ginny_o.luck_fit " + " ".join(argv or sys.argv[1:]),
            "deals": args.deals,
            "arena_seed": args.seed,
            "samples": len(rows),
            "features": list(FEATURES),
            "seconds": round(time.perf_counter() - start, 1),
        },
        scale,
    )
    if not save_value_file(out, value.to_dict()):
        return 1
    print(f"wrote {out} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
