"""Tuning the Nerts expert: variants of ``ExpertNertsAgent`` against n-1 greedy bots.

Usage:
    python bench/nerts_expert_tune.py --players 2 4 6 --deals 200 --seed 10001 \
        --variant expert '{}' --variant no_hold '{"hold_waste": false}' [--json OUT]

Each variant (a name and a JSON object of ``agents.nerts.expert.ExpertSettings``
fields; ``{}`` is the shipped expert) plays one seat against n-1 ``greedy`` bots in every
seat rotation of the same one-hand deals (``max_hands=1``; the arena's deals of
``--seed``, so the variants meet the same cards: common random numbers). It prints, per
variant and seat count, the win share with its 95% interval over deals (the arena's win
rate and interval), the gain over 1/n, and the mean hand-score difference (the variant's
minus the mean of the greedy seats') with one standard error. With every switch off the
variant plays exactly as greedy, so its win share is exactly 1/n on every deal.

Tuning uses seeds 10,000-19,999 only; the ladder in ``docs/nerts.md`` is measured on seeds
never used here.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from agents.core.arena import deal_seeds, normal_ci
from agents.nerts.arena import nerts_rules_dict, play_nerts_deal
from agents.nerts.expert import ExpertNertsAgent, ExpertSettings


def _factory(params: dict):
    settings = ExpertSettings.from_dict(params)

    def make(seed, config):
        return ExpertNertsAgent(seed, config, settings)

    return make


def play_deals(args: tuple) -> list[tuple[float, float]]:
    """(win share, score difference) of entry 0 for every rotation of the given deals."""
    params, n, seed, deals, opponent = args
    rules = nerts_rules_dict({"max_hands": 1}, n)
    lineup = [_factory(params)] + [opponent] * (n - 1)
    out = []
    for d in deals:
        game_seed, agent_seed = deal_seeds(seed, d)
        per = []
        for rec in play_nerts_deal(lineup, n, rules, game_seed, agent_seed):
            scores = [h[0] for h in rec["hand_scores"]]
            diff = scores[0] - sum(scores[1:]) / (n - 1)
            per.append((rec["win_shares"][0], diff))
        out.append((sum(w for w, _ in per) / len(per), sum(x for _, x in per) / len(per)))
    return out


def measure(params: dict, n: int, seed: int, deals: int, workers: int, opponent: str):
    """Per-deal (mean win share, mean score difference) of a variant."""
    chunks = [list(range(k, deals, workers)) for k in range(workers)]
    jobs = [(params, n, seed, c, opponent) for c in chunks if c]
    if workers == 1:
        rows = [r for job in jobs for r in play_deals(job)]
    else:
        with ProcessPoolExecutor(workers) as pool:
            rows = [r for part in pool.map(play_deals, jobs) for r in part]
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=10001)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--variant", nargs=2, action="append", metavar=("NAME", "JSON"))
    parser.add_argument("--json", type=Path, help="write the rows as JSON (a new file)")
    parser.add_argument("--force", action="store_true", help="overwrite an existing --json")
    args = parser.parse_args(argv)
    if args.json and args.json.exists() and not args.force:
        parser.error(f"--json {args.json} exists; use --force to replace it")
    if not 10_000 <= args.seed <= 19_999:
        parser.error(f"--seed {args.seed}: tuning seeds are 10000..19999")
    variants = args.variant or [["expert", "{}"]]
    parsed = []
    for name, text in variants:
        try:
            parsed.append((name, ExpertSettings.from_dict(json.loads(text)).__dict__))
        except (ValueError, TypeError) as err:  # bad JSON, unknown or mistyped settings
            parser.error(f"--variant {name} {text!r}: {err}")
    results = []
    for name, params in parsed:
        for n in args.players:
            t0 = time.time()
            rows = measure(params, n, args.seed, args.deals, args.workers, args.opponent)
            win, lo, hi = normal_ci([w for w, _ in rows])
            diffs = [x for _, x in rows]
            mean = sum(diffs) / len(diffs)
            sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / max(1, len(diffs) - 1))
            se = sd / math.sqrt(len(diffs))
            row = {
                "variant": name,
                "params": params,
                "players": n,
                "deals": args.deals,
                "games": args.deals * n,
                "seed": args.seed,
                "win": win,
                "ci": [lo, hi],
                "gain": win - 1 / n,
                "score_diff": mean,
                "score_se": se,
                "seconds": time.time() - t0,
            }
            results.append(row)
            print(
                f"{name:18s} n={n} games={row['games']:5d} win {win:.3f} [{lo:.3f}, {hi:.3f}]"
                f" gain {win - 1 / n:+.3f}  diff {mean:+.2f} ± {se:.2f}  ({row['seconds']:.0f} s)",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
