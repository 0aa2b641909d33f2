"""Pilot decision rules for Ginny-O against n - 1 ``expert`` bots on pilot seeds (920100 and
up; never an evaluation seed): the expert with its class attributes overridden and, with
``OWN_WEIGHT`` set, the own-next-turn look-ahead of
:class:`agents.ginny_o.expert.LookaheadGinnyAgent` added to its equity. Prints one JSON row
per variant. ``OWN_WEIGHT=0.8,TILE_BONUS=0`` is ``LookaheadGinnyAgent`` (the same games).

Usage: python bench/ginny_lookahead_pilot.py --players 2 --games 400 --seed 920100 \\
    --variant OWN_WEIGHT=0.8,TILE_BONUS=0 --variant REPLY_WEIGHT=0.7
"""

from __future__ import annotations

import argparse
import json
import time

from agents.core.arena import run_arena
from agents.ginny_o.expert import ExpertGinnyAgent, LookaheadGinnyAgent

INTS = ("TOP_K", "SAMPLES", "OWN_SAMPLES")
KNOBS = (
    *INTS,
    "REPLY_WEIGHT",
    "REPLY_PER_SEAT",
    "OWN_WEIGHT",
    "TILE_BONUS",
    "JOKER_KEEP",
    "PARTNER",
)


class PilotExpert(ExpertGinnyAgent):
    """The expert; with ``OWN_WEIGHT`` other than 0 its equity adds the look-ahead."""

    OWN_WEIGHT = 0.0
    OWN_SAMPLES = LookaheadGinnyAgent.OWN_SAMPLES
    own_next = LookaheadGinnyAgent.own_next

    def equity(self, view, value, placement, racks):
        out = super().equity(view, value, placement, racks)
        if self.OWN_WEIGHT:
            out += self.OWN_WEIGHT * self.own_next(view, placement)
        return out


def variant(text: str) -> dict[str, float]:
    """``NAME=VALUE,...`` -> overrides (NAME one of :data:`KNOBS`)."""
    out: dict[str, float] = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        if name not in KNOBS:
            raise argparse.ArgumentTypeError(f"{name!r} is not a knob: one of {', '.join(KNOBS)}")
        out[name] = int(value) if name in INTS else float(value)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=920100)
    ap.add_argument("--variant", type=variant, action="append", default=[])
    args = ap.parse_args(argv)
    for overrides in args.variant or [{}]:
        cls = type("Variant", (PilotExpert,), dict(overrides))
        start = time.time()
        lineup = [cls] + ["expert"] * (args.players - 1)
        result = run_arena(
            lineup,
            args.players,
            args.games,
            seed=args.seed,
            workers=1,
            progress=False,
            game="ginny_o",
        )
        me = result.stats[0]
        row = {
            "variant": overrides,
            "players": args.players,
            "games": me.games,
            "seed": args.seed,
            "win": round(me.win_rate, 4),
            "ci": [round(me.ci_low, 4), round(me.ci_high, 4)],
            "score": round(me.mean_total, 1),
            "others_score": round(
                sum(st.mean_total for st in result.stats[1:]) / (len(result.stats) - 1), 1
            ),
            "seconds": round(time.time() - start),
        }
        print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
