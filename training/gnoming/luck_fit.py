"""Fit the value function of the arena's luck correction (``agents/gnoming/luck_value.json``).

Games: the arena's own work unit plays ``--deals`` deals (all seat rotations) of bot lineups
at 3-7 seats -- ``expert`` self-play and, for one deal in five, ``greedy`` self-play -- on the
arena seed ``--seed`` (default :data:`FIT_SEED`, which no evaluation in this project uses).
Every chance event of every game (:func:`agents.gnoming.luck.chance_events`) is a sample:

1. **Layout estimate.** For each seat not holding a card, its layout's features after the
   event and the round score it ended with (R22); one least-squares fit per (phase,
   face-down count) with a small ridge toward the face-up points.
2. **Win model.** With those estimates fixed, the predicted totals after each event and the
   game's win shares fit the spread ``sigma`` of the softmax win model by maximum likelihood
   (cross-entropy, Adam on the log-parameters).
3. **Direct search.** Starting there, a coordinate search over the spreads on the first
   ``--tune-deals`` games keeps what most reduces the variance the correction leaves.

Run:  python -m training.gnoming.luck_fit --deals 500 --out agents/gnoming/luck_value.json \
          --overwrite
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from agents.core.arena import deal_seeds
from agents.gnoming import luck_kernel as K
from agents.gnoming.luck import (
    MAX_DOWN,
    LuckValue,
    chance_events,
    game_luck,
    revealed_values,
    value_table,
)
from agents.gnoming.registry import make_agent
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.information import SeatView
from training.core.runs import add_output_file_options, checked_output_file, save_value_file

#: The arena seed of the fit's games: never used to evaluate anything.
FIT_SEED = 770077
RIDGE = 1.0


def play(config: RulesConfig, game_seed: int, spec: str, agent_seed: int) -> Game:
    """One game of ``spec`` self-play (the compiled Expert where it can)."""
    n = config.num_players
    if spec == "expert":
        from agents.gnoming.expert_kernel import game_decider

        decide = game_decider(config)
        deciders = [decide] * n
    else:
        agents = [make_agent(spec, agent_seed + s, config) for s in range(n)]
        deciders = [lambda g, s, a=a: a.decide(SeatView.from_game(g, s)) for a in agents]
    game = Game(config, game_seed)
    while not game.game_over:
        game.step(deciders[game.current_seat](game, game.current_seat))
    return game


def collect(deals: int, seed: int, progress: bool = True):
    """The samples of ``deals`` deals: (layout rows, game rows)."""
    layout_rows = []  # (phase, down, features..., target)
    games = []  # (config, seed, actions, win shares, round scores)
    scratch = np.zeros(K.NUM_FEATURES)
    start = time.perf_counter()
    for d in range(deals):
        n = 3 + d % 5
        spec = "greedy" if d % 5 == 4 else "expert"
        config = RulesConfig(num_players=n)
        game_seed, agent_seed = deal_seeds(seed, d)
        game = play(config, game_seed, spec, agent_seed)
        winners = game.winners()
        shares = np.array([1.0 / len(winners) if s in winners else 0.0 for s in range(n)])
        scores = [r.round_scores for r in game.round_results]
        games.append((config, game_seed, list(game.actions), shares, scores))
        for ev in chance_events(config, game_seed, game.actions):
            if ev.kind == K.REVEAL_ALL:  # scored exactly: nothing to estimate
                continue
            holder = ev.seat if ev.kind != K.REVEAL_AT else -1
            downs = (~ev.known).sum(axis=1)
            for s in range(n):
                if s == holder:
                    continue
                down = K.layout_features(ev.vals[s], ev.known[s], scratch)
                if ev.phase == K.REVEAL and down == 0:
                    continue
                tb = K.clock(int(np.delete(downs, s).min()))
                layout_rows.append([ev.phase, down, tb, *scratch, scores[ev.round][s]])
        if progress and (d + 1) % 50 == 0:
            print(f"  {d + 1}/{deals} deals, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    return np.array(layout_rows, dtype=np.float64), games


def _ridge(x: np.ndarray, y: np.ndarray, prior: np.ndarray, strength: float) -> np.ndarray:
    """Least squares pulled toward ``prior`` (the intercept too when ``strength`` is large)."""
    reg = strength * np.eye(x.shape[1])
    return np.linalg.solve(x.T @ x + reg, x.T @ y + reg @ prior)


def fit_layout(rows: np.ndarray) -> np.ndarray:
    """Least squares per (phase, face-down count), then per clock bucket pulled toward that
    fit; a bucket with too few samples keeps its neighbour's coefficients."""
    coef = LuckValue.untrained().coef.copy()
    for phase in range(3):
        for down in range(MAX_DOWN + 1):
            sel = (rows[:, 0] == phase) & (rows[:, 1] == down)
            if sel.sum() < 50:
                if down > 0:
                    coef[phase, down] = coef[phase, down - 1]
                    coef[phase, down, :, 0] += 5.0
                continue
            x, y = rows[sel, 3:-1], rows[sel, -1]
            pooled = _ridge(x, y, coef[phase, down, 0], RIDGE)
            for tb in range(K.CLOCKS):
                sub = sel & (rows[:, 2] == tb)
                coef[phase, down, tb] = (
                    _ridge(rows[sub, 3:-1], rows[sub, -1], pooled, 50.0 * RIDGE)
                    if sub.sum() >= 50
                    else pooled
                )
    return coef


def win_rows(games, coef: np.ndarray):
    """(predicted totals, mean face-down, phase, rounds left, shares) after each event."""
    value = LuckValue(coef, LuckValue.untrained().sigma, {})
    out = []
    for config, seed, actions, shares, _ in games:
        n = config.num_players
        tie = bool(config.first_out_tie_is_lowest)
        for ev in chance_events(config, seed, actions):
            if ev.kind == K.REVEAL_ALL:
                if ev.rounds_left == 0:
                    continue  # exact: no spread to fit
                _, est = revealed_values(ev, value, tie)
                out.append((est, 0.0, 3, ev.rounds_left, shares))
                continue
            _, est = value_table(ev, value, tie)
            idx = int(np.searchsorted(ev.support, ev.card))
            down = (~ev.known).sum() / n
            out.append((est[idx], down, ev.phase, ev.rounds_left, shares))
    return out


def fit_sigma(rows, steps: int = 300, seed: int = 0) -> np.ndarray:
    """Maximum-likelihood spread of the softmax win model (torch, Adam on log-parameters)."""
    import torch

    torch.manual_seed(seed)
    groups: dict[int, list] = {}
    for row in rows:
        groups.setdefault(len(row[0]), []).append(row)
    tensors = []
    for _, items in groups.items():
        est = torch.tensor(np.array([r[0] for r in items]), dtype=torch.float64)
        down = torch.tensor([r[1] for r in items], dtype=torch.float64)
        phase = torch.tensor([r[2] for r in items], dtype=torch.long)
        left = torch.tensor([r[3] for r in items], dtype=torch.float64)
        shares = torch.tensor(np.array([r[4] for r in items]), dtype=torch.float64)
        tensors.append((est, down, phase, left, shares))
    log_a = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    log_b = torch.zeros(3, dtype=torch.float64, requires_grad=True)
    log_c = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([log_a, log_b, log_c], lr=0.05)
    count = sum(len(t[0]) for t in tensors)
    for _ in range(steps):
        opt.zero_grad()
        loss = torch.zeros((), dtype=torch.float64)
        for est, down, phase, left, shares in tensors:
            a = torch.cat([log_a.exp(), torch.zeros(1, dtype=torch.float64)])[phase]
            b = torch.cat([log_b.exp(), torch.zeros(1, dtype=torch.float64)])[phase]
            var = a + b * down + log_c.exp() ** 2 * left
            logits = -est / var.clamp_min(1e-6).sqrt()[:, None]
            loss = loss - (shares * torch.log_softmax(logits, dim=1)).sum()
        (loss / count).backward()
        opt.step()
    sigma = np.zeros((4, 2))
    sigma[:3, 0] = log_a.exp().detach().numpy()
    sigma[:3, 1] = log_b.exp().detach().numpy()
    sigma[3, 0] = float(log_c.detach().exp())
    return sigma


def corrected_mse(games, value: LuckValue) -> float:
    """Mean square of (win share - luck correction - 1/n) over the seats of ``games``: the
    per-game variance the correction leaves (the quantity the arena's intervals shrink with)."""
    out = []
    for config, seed, actions, shares, _ in games:
        luck = game_luck(config, seed, actions, value)["win"]
        out.extend(shares - np.asarray(luck) - 1.0 / config.num_players)
    return float(np.mean(np.square(out)))


def tune_sigma(games, coef: np.ndarray, sigma: np.ndarray, sweeps: int = 2) -> np.ndarray:
    """Coordinate search over the spreads (factors 1/4, 1/2, 2, 4) for the smallest
    :func:`corrected_mse` on ``games``: the likelihood fit predicts winners, this one
    minimises what the correction leaves."""
    best = corrected_mse(games, LuckValue(coef, sigma, {}))
    for _ in range(sweeps):
        for i, j in ((0, 0), (0, 1), (1, 0), (1, 1), (3, 0)):
            for factor in (0.25, 0.5, 2.0, 4.0):
                trial = sigma.copy()
                trial[i, j] *= factor
                val = corrected_mse(games, LuckValue(coef, trial, {}))
                if val < best:
                    best, sigma = val, trial
    return sigma


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=400, help="deals to play (3-7 seats in turn)")
    parser.add_argument("--seed", type=int, default=FIT_SEED, help="the fit's arena seed")
    parser.add_argument(
        "--tune-deals", type=int, default=100, help="games of the spread's direct search"
    )
    add_output_file_options(parser)
    args = parser.parse_args(argv)
    if args.deals < 5:
        parser.error("--deals must be at least 5 (one deal at each seat count)")
    out = checked_output_file(parser, args)
    start = time.perf_counter()
    rows, games = collect(args.deals, args.seed)
    coef = fit_layout(rows)
    print(
        f"layout estimate: {len(rows)} samples, {time.perf_counter() - start:.0f} s",
        file=sys.stderr,
    )
    sigma = fit_sigma(win_rows(games, coef))
    print(f"win model: {time.perf_counter() - start:.0f} s", file=sys.stderr)
    sigma = tune_sigma(games[: args.tune_deals], coef, sigma)
    value = LuckValue(
        coef,
        sigma,
        {
            "fitted": True,
            "command": "python -m training.gnoming.luck_fit " + " ".join(argv or sys.argv[1:]),
            "deals": args.deals,
            "arena_seed": args.seed,
            "layout_samples": len(rows),
            "seconds": round(time.perf_counter() - start, 1),
        },
    )

    if not save_value_file(out, value.to_dict()):
        return 1
    print(f"wrote {out} ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
