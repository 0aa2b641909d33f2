"""Fit the value of Nerts' luck correction (``agents/nerts/luck_value.json``).

Games: ``--deals`` one-hand games (``max_hands=1``, hands capped at 400 steps, as the
documented Nerts evaluations play them) at 2 to 6 seats in turn, with the lineups
:data:`LINEUPS` in turn (expert and greedy bots, alone and mixed), game seeds from the
arena seed ``--seed`` (default :data:`FIT_SEED`, which no evaluation uses). Every step of
every game gives two samples of each seat's public features
(:data:`agents.nerts.luck.FEATURES`) after the step -- with the cards that have just shown
read as unknown (as the priority term reads them) and as known -- with its final win share
and its final hand score.

1. **Win.** A conditional logit per stage (the win probability of a seat is the softmax over
   the seats of a linear function of their features), fitted by Newton's method on the
   log-likelihood of the win shares, with a small ridge.
2. **Points to come.** For each seat, least squares of its final hand score less its score
   then on its features, per stage.
3. **Scale.** The control-variate coefficients of the summed win and total terms, where the
   arena uses them: over ``--scale-deals`` more deals (arena seed ``--seed`` + 1), each
   played in every seat rotation by one expert and n-1 greedy bots or one greedy and n-1
   expert bots, in turn, the coefficient that minimises the variance over deals of each
   entry's per-deal mean outcome less the coefficient times its per-deal mean terms.

Run:  python -m training.nerts.luck_fit --deals 400 --scale-deals 200 \\
          --out agents/nerts/luck_value.json --overwrite
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time

import numpy as np

from agents.core.arena import deal_seeds
from agents.nerts.arena import nerts_rules_dict, play_nerts_deal
from agents.nerts.luck import (
    FEATURES,
    NERTS_STAGES,
    NertsLuckValue,
    snapshot,
)
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.records import GameLog
from training.core.runs import add_output_file_options, checked_output_file, save_value_file

#: The arena seed of the fit's games: never used to evaluate anything.
FIT_SEED = 880088
#: The lineups of the fit's games, in turn (the first seats of the pattern fill the table).
LINEUPS = (("expert",), ("greedy",), ("expert", "greedy"), ("expert", "expert", "greedy"))
MAX_SEATS = 6
RIDGE = 1.0


def collect(deals: int, seed: int):
    """Per sample: stage, rows ``[6, F]`` (zero-padded), seat mask, win shares, points to
    come."""
    stages, rows, masks, shares, points = [], [], [], [], []
    start = time.perf_counter()
    for d in range(deals):
        n = 2 + d % 5
        pattern = LINEUPS[(d // 5) % len(LINEUPS)]
        config = NertsConfig(num_players=n, max_hands=1, max_steps_per_hand=400)
        game_seed, agent_seed = deal_seeds(seed, d)
        log = GameLog(config, game_seed)
        agents = [
            make_nerts_agent(pattern[s % len(pattern)], agent_seed + s, config) for s in range(n)
        ]
        game = log.game
        everything = [set(range(config.deck_size)) for _ in range(n)]
        # Each step gives two samples: the state as the priority term reads it (cards that
        # have just shown still unknown) and as the next step starts (every top known).
        seen: list[set[int]] = [set() for _ in range(n)]
        states = []
        while not game.hand_over:
            log.step([a.decide(NertsView.from_game(game, s)) for s, a in enumerate(agents)])
            if not game.hand_over:
                for reading in (seen, everything):
                    snap = snapshot(game, reading, 20.0)
                    states.append((snap.stage, snap.rows()))
            for s in range(n):
                seen[s].update(p[-1] for p in (*game.work[s], game.nerts[s], game.waste[s]) if p)
        final = np.array(game.hand_scores(), dtype=np.float64)
        winners = game.winners()
        share = np.array([1.0 / len(winners) if s in winners else 0.0 for s in range(n)])
        for st, r in states:
            padded = np.zeros((MAX_SEATS, len(FEATURES)))
            padded[:n] = r
            mask = np.zeros(MAX_SEATS, dtype=bool)
            mask[:n] = True
            stages.append(st)
            rows.append(padded)
            masks.append(mask)
            shares.append(np.pad(share, (0, MAX_SEATS - n)))
            points.append(np.pad(final - r[:, 0], (0, MAX_SEATS - n)))
        if (d + 1) % 50 == 0:
            print(f"  {d + 1}/{deals} games, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return (
        np.array(stages),
        np.array(rows),
        np.array(masks),
        np.array(shares),
        np.array(points),
    )


def fit_logit(x: np.ndarray, mask: np.ndarray, y: np.ndarray, iters: int = 30) -> np.ndarray:
    """Newton's method for the conditional logit ``softmax_i(x_i . theta)`` over the seats
    in ``mask``, maximising sum y_i log p_i less RIDGE/2 |theta|^2."""
    f = x.shape[-1]
    theta = np.zeros(f)
    for _ in range(iters):
        logit = np.where(mask, x @ theta, -np.inf)
        logit -= logit.max(axis=1, keepdims=True)
        p = np.exp(logit)
        p /= p.sum(axis=1, keepdims=True)
        grad = np.einsum("sif,si->f", x, y - p) - RIDGE * theta
        xbar = np.einsum("sif,si->sf", x, p)
        hess = np.einsum("sif,si,sig->fg", x, p, x) - xbar.T @ xbar + RIDGE * np.eye(f)
        step = np.linalg.solve(hess, grad)
        theta += step
        if np.abs(step).max() < 1e-8:
            break
    return theta


def fit_points(x: np.ndarray, mask: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Least squares of the points to come on ``[1, features]`` over the real seats."""
    a = np.concatenate([np.ones((mask.sum(), 1)), x[mask]], axis=1)
    b = target[mask]
    reg = RIDGE * np.eye(a.shape[1])
    return np.linalg.solve(a.T @ a + reg, a.T @ b)


def fit_scale(deals: int, seed: int, value: NertsLuckValue) -> tuple[float, float]:
    """The control-variate coefficients where the arena uses them. Over ``deals`` deals
    played as the arena plays them (every seat rotation, :func:`play_nerts_deal`) by
    lineups of one expert and n-1 greedy bots or one greedy and n-1 expert bots in turn, at
    2-6 seats: the coefficient c that minimises the variance over deals of an entry's
    per-deal mean outcome Y less c times its per-deal mean summed terms X (unscaled), i.e.
    Cov(X, Y) / Var(X) with X and Y centred per lineup entry, pooled over the entries (for
    the win shares and the hand scores)."""
    unscaled = dataclasses.replace(value, scale=(1.0, 1.0))
    groups: dict[tuple[int, int, int], list[np.ndarray]] = {}
    for d in range(deals):
        n = 2 + d % 5
        one, rest = ("expert", "greedy") if d % 2 == 0 else ("greedy", "expert")
        lineup = [one] + [rest] * (n - 1)
        rules = nerts_rules_dict({"max_hands": 1, "max_steps_per_hand": 400}, n)
        game_seed, agent_seed = deal_seeds(seed + 1, d)
        recs = play_nerts_deal(lineup, n, rules, game_seed, agent_seed, luck=unscaled)
        means = [
            np.mean([r[key] for r in recs], axis=0)
            for key in ("luck_win", "win_shares", "luck_total", "totals")
        ]
        for entry in range(n):
            groups.setdefault((n, d % 2, entry), []).append(np.array([m[entry] for m in means]))
    rows = [np.array(g) - np.array(g).mean(axis=0) for g in groups.values() if len(g) > 1]
    x = np.concatenate(rows)
    slope = lambda u, v: float(np.dot(u, v) / max(np.dot(u, u), 1e-12))  # noqa: E731
    return slope(x[:, 0], x[:, 1]), slope(x[:, 2], x[:, 3])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400, help="games (2-6 seats in turn)")
    parser.add_argument(
        "--scale-deals", type=int, default=200, help="rotated deals for the scale fit"
    )
    parser.add_argument("--seed", type=int, default=FIT_SEED, help="the fit's arena seed")
    add_output_file_options(parser)
    args = parser.parse_args(argv)
    if args.deals < 5:
        parser.error("--deals must be at least 5 (one game at each seat count)")
    if args.scale_deals < 20:
        parser.error("--scale-deals must be at least 20 (two deals of each seat count and lineup)")
    out = checked_output_file(parser, args)
    start = time.perf_counter()
    stages, x, mask, y, target = collect(args.deals, args.seed)
    base = NertsLuckValue.untrained()
    win, points = base.win.copy(), base.points.copy()
    counts = []
    for st in range(len(NERTS_STAGES) + 1):
        sel = stages == st
        counts.append(int(sel.sum()))
        if sel.sum() < 50:
            continue
        win[st] = fit_logit(x[sel], mask[sel], y[sel])
        points[st] = fit_points(x[sel], mask[sel], target[sel])
    value = NertsLuckValue(win, points, {})
    scale = fit_scale(args.scale_deals, args.seed, value)
    meta = {
        "fitted": True,
        "games": args.deals,
        "seed": args.seed,
        "samples_by_stage": counts,
        "seconds": round(time.perf_counter() - start, 1),
        "scale_deals": args.scale_deals,
        "command": (
            f"python -m training.nerts.luck_fit --deals {args.deals} "
            f"--scale-deals {args.scale_deals} --seed {args.seed}"
        ),
    }
    value = NertsLuckValue(win, points, meta, value.game_spread, scale)
    if not save_value_file(out, value.to_dict()):
        return 1
    print(f"wrote {out}: scale {scale[0]:.3f} / {scale[1]:.3f}, {meta['seconds']} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("interrupted: nothing written", file=sys.stderr)
        sys.exit(130)
