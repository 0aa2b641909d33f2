"""Tune the Ginny-O equity bot (``agents.ginny_o.expert``): each variant (class attributes
overridden) plays against n - 1 greedy bots in the arena on tuning seeds (700000 + ...),
which the ladder in docs/ginny_o.md never uses. Prints one row per variant and writes the
rows as JSON (``--out``).

Usage: python bench/ginny_expert_tune.py --players 2 --games 400 \\
    --variant REPLY_WEIGHT=0.5 --variant REPLY_WEIGHT=1.0,TOP_K=8 [--out rows.json]
"""

from __future__ import annotations

import argparse
import json
import sys

from agents.core.arena import run_arena
from agents.ginny_o.expert import ExpertGinnyAgent

TUNE_SEED = 700000
KNOBS = ("REPLY_WEIGHT", "TOP_K", "SAMPLES", "TILE_BONUS", "JOKER_KEEP", "PARTNER")


def variant(text: str) -> dict[str, float]:
    """``NAME=VALUE,NAME=VALUE`` -> overrides (NAME one of :data:`KNOBS`)."""
    out: dict[str, float] = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        if name not in KNOBS:
            raise argparse.ArgumentTypeError(f"{name!r} is not a knob: one of {', '.join(KNOBS)}")
        try:
            out[name] = int(value) if name in ("TOP_K", "SAMPLES") else float(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{part!r}: the value must be a number") from None
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=TUNE_SEED)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--variant", type=variant, action="append", default=[])
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    rows = []
    for overrides in args.variant or [{}]:
        cls = type("TunedExpert", (ExpertGinnyAgent,), dict(overrides))
        lineup = [cls] + ["greedy"] * (args.players - 1)
        result = run_arena(
            lineup,
            args.players,
            args.games,
            seed=args.seed,
            workers=args.workers,
            progress=False,
            game="ginny_o",
        )
        me = result.stats[0]
        row = {
            "players": args.players,
            "overrides": overrides,
            "games": me.games,
            "win_rate": me.win_rate,
            "ci": [me.ci_low, me.ci_high],
            "mean_score": me.mean_round_score,
        }
        rows.append(row)
        print(
            f"{args.players}p {overrides}: {me.win_rate:.3f} [{me.ci_low:.3f}, {me.ci_high:.3f}]"
            f" of {me.games}, mean score {me.mean_round_score:.1f}",
            flush=True,
        )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
