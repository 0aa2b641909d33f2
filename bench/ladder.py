"""The strength ladder: one stronger bot against n-1 copies of a weaker one, for 3-7 seats.

Usage:
    python bench/ladder.py --pairs greedy,random expert,greedy --players 3 4 5 6 7 \
        --games 2000 --workers 2 --out results/gnoming/ladder

For every pair and seat count it runs the arena (seat-rotated, common deals) and writes the
arena JSON to ``OUT/<strong>_vs_<weak>_<n>p.json``; then it (re)writes ``OUT/README.md``
with one table row per JSON file found there: the stronger bot's win rate, its 95%
interval, the 1/n baseline, and whether the whole interval lies above 1/n. Pair names are
agent specs (``search:64`` is a SearchAgent with 64 rollouts per decision).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from agents.gnoming.arena import ladder_lineup, run_arena


def pair_file(out: Path, strong: str, weak: str, n: int) -> Path:
    """Where the arena JSON of one ladder rung goes."""

    def short(spec: str) -> str:  # a checkpoint spec names its file, not its whole path
        name, _, arg = spec.partition(":")
        if "/" not in arg:
            return spec
        extra = ""  # settings after the path (netsearch:PATH:64:self) keep their own file
        head, slash, last = arg.rpartition("/")
        if ":" in last:
            last, _, extra = last.partition(":")
            arg = head + slash + last
        base = f"{name}-{Path(arg).parent.name or Path(arg).stem}"
        return f"{base}-{extra}" if extra else base

    safe = f"{short(strong)}_vs_{short(weak)}_{n}p".replace(":", "-")
    return out / f"{safe}.json"


def write_summary(out: Path) -> str:
    """Rebuild ``out/README.md`` from every rung's JSON; return the table."""
    rows = []
    for path in sorted(out.glob("*_vs_*p.json")):
        data = json.loads(path.read_text())
        settings, first = data["settings"], data["entries"][0]
        n = settings["num_players"]
        above = first["ci_low"] > 1 / n
        rows.append(
            (
                settings["lineup"][0],
                settings["lineup"][1],
                n,
                settings["games"],
                settings.get("seed"),
                first["win_rate"],
                first["ci_low"],
                first["ci_high"],
                1 / n,
                "yes" if above else "no",
                settings.get("seconds"),
            )
        )
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    # a note under the title (lines starting with ">", e.g. which rows were measured on
    # which environment version) is kept when the table is rebuilt
    readme = out / "README.md"
    old = readme.read_text(encoding="utf-8").splitlines() if readme.exists() else []
    body = old[1:]
    while body and not body[0].strip():
        body.pop(0)
    note = []
    for line in body:  # the ">" lines and the blank lines between them
        if line.strip() and not line.startswith(">"):
            break
        note.append(line)
    while note and not note[-1].strip():
        note.pop()
    lines = [
        "# Strength ladder",
        "",
        *note,
        *([""] if note else []),
        "One stronger bot against n-1 copies of a weaker one; seat-rotated, common deals, "
        "95% interval over deals (see docs/arena.md). Produced by `python bench/ladder.py`.",
        "",
        "| strong | weak | seats | games | seed | strong win rate | 95% interval | 1/n | above 1/n "
        "| s |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: |",
    ]
    for strong, weak, n, games, seed, rate, lo, hi, base, verdict, secs in rows:
        secs_text = f"{secs:.0f}" if secs is not None else ""
        lines.append(
            f"| {strong} | {weak} | {n} | {games} | {seed} | {rate:.3f} | [{lo:.3f}, {hi:.3f}] | "
            f"{base:.3f} | {verdict} | {secs_text} |"
        )
    table = "\n".join(lines) + "\n"
    readme.write_text(table, encoding="utf-8")
    return table


def main() -> None:
    """Run the requested rungs, then print and write the summary table."""
    parser = argparse.ArgumentParser(description="strength ladder (arena runs)")
    parser.add_argument(
        "--pairs",
        nargs="+",
        default=["greedy,random", "expert,greedy"],
        help="STRONG,WEAK pairs of agent specs, e.g. expert,greedy or search:64,expert",
    )
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6, 7])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("results/gnoming/ladder"))
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for pair in args.pairs:
        strong, sep, weak = pair.partition(",")
        if not sep:
            parser.error(f"--pairs: {pair!r} is not STRONG,WEAK")
        for n in args.players:
            start = time.perf_counter()
            result = run_arena(
                ladder_lineup(strong, weak, n),
                n,
                args.games,
                seed=args.seed,
                workers=args.workers,
                progress=False,
            )
            data = result.to_dict()
            data["settings"]["seconds"] = time.perf_counter() - start
            pair_file(args.out, strong, weak, n).write_text(json.dumps(data, indent=1))
            first = result.stats[0]
            print(
                f"{strong} vs {weak} x{n - 1}: win {first.win_rate:.3f} "
                f"[{first.ci_low:.3f}, {first.ci_high:.3f}] (1/n = {1 / n:.3f}) "
                f"in {data['settings']['seconds']:.0f} s",
                flush=True,
            )
    print(write_summary(args.out))


if __name__ == "__main__":
    main()
