"""Pool several arena runs of the same lineup (different seeds) into one win rate per seat.

    python bench/pool_arena.py RUN.json [RUN.json ...] [--entry 0] [--json OUT]

Each ``RUN.json`` is what ``gnome eval --json`` / ``bench/ladder.py`` writes. Runs are
grouped by seat count; the runs of one group must have the same lineup. For the entry
``--entry`` (default 0, the first seat's agent) the pooled win rate is the deal-weighted
mean of the runs' win rates, and its standard error combines the runs' own standard errors
(independent seeds): ``sqrt(sum_i (D_i * se_i)^2) / sum_i D_i``, where ``D_i`` is the run's
number of deals and ``se_i = (ci_high - ci_low) / (2 * z)`` is read back from the run's
interval (the arena's normal approximation over deals, with the arena's own 95% quantile
``z``, ``agents.core.arena.Z_95``). The 95% interval is ``pooled +- z * se``. A run whose
interval was clipped at 0 or 1 cannot be read back this way and is refused.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from agents.core.arena import Z_95 as Z


class PoolError(ValueError):
    """A run file that cannot be pooled (unreadable, not an arena run, mismatched)."""


def read_run(path: Path, entry: int) -> dict[str, Any]:
    """The figures of one run that the pooling needs."""
    try:
        data = json.loads(path.read_text())
    except OSError as exc:
        raise PoolError(f"cannot read {path}: {exc.strerror or exc}") from None
    except json.JSONDecodeError as exc:
        raise PoolError(f"{path} is not JSON ({exc.msg} at line {exc.lineno})") from None
    try:
        settings = data["settings"]
        row = data["entries"][entry]
        run = {
            "path": str(path),
            "seed": int(settings["seed"]),
            "num_players": int(settings["num_players"]),
            "lineup": list(settings["lineup"]),
            "games": int(settings["games"]),
            "deals": int(settings["deals"]),
            "name": str(row["name"]),
            "win_rate": float(row["win_rate"]),
            "ci_low": float(row["ci_low"]),
            "ci_high": float(row["ci_high"]),
        }
    except (KeyError, IndexError, TypeError, ValueError):
        raise PoolError(
            f"{path} is not an arena run with an entry {entry} (expected the JSON that "
            "gnome eval --json or bench/ladder.py writes)"
        ) from None
    if run["deals"] < 2:
        raise PoolError(f"{path} has {run['deals']} deal(s); pooling needs at least 2 per run")
    if run["ci_low"] <= 0.0 or run["ci_high"] >= 1.0:
        raise PoolError(f"{path}: its interval is clipped at 0 or 1, so its error is unknown")
    run["se"] = (run["ci_high"] - run["ci_low"]) / (2 * Z)
    return run


def pool(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Pooled win rate, standard error and 95% interval of runs of one lineup."""
    lineups = {tuple(r["lineup"]) for r in runs}
    if len(lineups) != 1:
        raise PoolError(
            "runs of one seat count have different lineups: "
            + "; ".join(f"{r['path']}: {','.join(r['lineup'])}" for r in runs)
        )
    seeds = [r["seed"] for r in runs]
    if len(set(seeds)) != len(seeds):
        raise PoolError(
            f"the same seed appears twice among {seeds}: those games are not independent"
        )
    deals = sum(r["deals"] for r in runs)
    rate = sum(r["deals"] * r["win_rate"] for r in runs) / deals
    se = math.sqrt(sum((r["deals"] * r["se"]) ** 2 for r in runs)) / deals
    return {
        "num_players": runs[0]["num_players"],
        "name": runs[0]["name"],
        "lineup": runs[0]["lineup"],
        "seeds": seeds,
        "games": sum(r["games"] for r in runs),
        "deals": deals,
        "win_rate": rate,
        "se": se,
        "ci_low": rate - Z * se,
        "ci_high": rate + Z * se,
        "equal_share": 1.0 / runs[0]["num_players"],
        "above_equal_share": rate - Z * se > 1.0 / runs[0]["num_players"],
    }


def main(argv: list[str] | None = None) -> int:
    """Print one pooled row per seat count; ``--json`` also writes them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="arena JSON files")
    parser.add_argument("--entry", type=int, default=0, help="which lineup entry (default 0)")
    parser.add_argument("--json", type=Path, default=None, help="write the pooled rows here")
    args = parser.parse_args(argv)
    if args.entry < 0:
        parser.error(f"--entry {args.entry} is not allowed: must be >= 0")
    try:
        runs = [read_run(p, args.entry) for p in args.runs]
        by_seats: dict[int, list[dict[str, Any]]] = {}
        for run in runs:
            by_seats.setdefault(run["num_players"], []).append(run)
        rows = [pool(by_seats[n]) for n in sorted(by_seats)]
    except PoolError as exc:
        print(f"pool_arena: {exc}", file=sys.stderr)
        return 2
    print("| seats | seeds | games | deals | win rate | 95% interval | 1/n | above 1/n |")
    print("|---:|---|---:|---:|---:|---|---:|---|")
    for r in rows:
        print(
            f"| {r['num_players']} | {', '.join(map(str, r['seeds']))} | {r['games']} | "
            f"{r['deals']} | {r['win_rate']:.4f} | [{r['ci_low']:.4f}, {r['ci_high']:.4f}] | "
            f"{r['equal_share']:.3f} | {'yes' if r['above_equal_share'] else 'no'} |"
        )
    if args.json is not None:
        try:
            args.json.write_text(json.dumps({"entry": args.entry, "pooled": rows}, indent=1))
        except OSError as exc:
            print(f"pool_arena: cannot write {args.json}: {exc.strerror or exc}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
