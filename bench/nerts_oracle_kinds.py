"""How much leaving the Nerts expert's move gains, by kind of move, on the true deal.

    python bench/nerts_oracle_kinds.py --players 2 --steps 300 --horizon 400 --score-weight 0

Plays ``--envs`` one-hand games of compiled experts on the batched engine for ``--steps``
steps (the positions of ``python -m training.nerts.distill --teacher oracle``, round 0) and
labels seat 0's positions with :mod:`training.nerts.oracle`: every search candidate played on
once on the true deal. For each kind of move (N36) it prints how often it was a candidate
other than the expert's move, the mean and spread of its value minus the expert move's, and
how often that difference was positive or negative. With ``--horizon 400 --score-weight 0``
a value is the seat's final win share, so the mean is the candidate's expected gain in wins
there, and the spread is the noise one label carries.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from _script import run

from gnome_env.nerts.actions import Kind, action_table
from gnome_env.nerts.config import NertsConfig
from training.nerts.distill import collect, parse_args


def kind_gains(values: np.ndarray, hint: np.ndarray) -> dict[Kind, np.ndarray]:
    """Each kind's value differences from the expert's move, over the positions and
    candidates of that kind other than the expert's move (NaN values: not candidates)."""
    table = action_table(NertsConfig())
    kinds = np.array([int(table.decode(a).kind) for a in range(values.shape[1])])
    rows = np.arange(len(hint))
    gain = values - values[rows, hint][:, None]
    other = ~np.isnan(gain)
    other[rows, hint] = False
    return {k: gain[:, kinds == int(k)][other[:, kinds == int(k)]] for k in Kind}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=2, choices=range(2, 7))
    p.add_argument("--envs", type=int, default=256)
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--horizon", type=int, default=400)
    p.add_argument("--score-weight", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=99)
    args = p.parse_args(argv)
    if min(args.envs, args.steps, args.horizon) < 1 or args.score_weight < 0:
        p.error("--envs, --steps and --horizon must be at least 1, --score-weight at least 0")
    distill = parse_args(["--out", "/nonexistent/never-written", "--teacher", "oracle",
                          "--target", "value", "--players", str(args.players), "--envs",
                          str(args.envs), "--steps", str(args.steps), "--horizon",
                          str(args.horizon), "--score-weight", str(args.score_weight),
                          "--seed", str(args.seed)])  # fmt: skip
    start = time.perf_counter()
    data = collect(distill, None, 0, lambda _line: None)
    print(f"players {args.players}: {len(data['hint']):,} positions of seat 0, "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    print(f"{'kind':15s} {'candidates':>10s} {'mean gain':>10s} {'(se)':>8s} {'sd':>6s} "
          f"{'P(>0)':>6s} {'P(<0)':>6s}")  # fmt: skip
    for kind, g in kind_gains(data["value"], data["hint"]).items():
        if len(g) < 2:
            continue
        print(f"{kind.name.lower():15s} {len(g):10,d} {g.mean():+10.4f} "
              f"{g.std() / np.sqrt(len(g)):8.4f} {g.std():6.3f} {np.mean(g > 0):6.3f} "
              f"{np.mean(g < 0):6.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    run(main)
