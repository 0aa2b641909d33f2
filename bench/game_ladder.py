"""The bot ladder of Nerts or Ginny-O: one stronger bot against n-1 copies of a weaker one.

Usage:
    python bench/game_ladder.py --game nerts --pairs expert,greedy greedy,random expert,random \
        --players 2 4 6 --games 3000 --seed 900000 --workers 1 --out results/nerts/ladder
    python bench/game_ladder.py --game ginny_o --pairs expert,greedy greedy,random \
        expert,random --players 2 4 --games 2000 --seed 910000 --out results/ginny_o/ladder/expert

(``bench/nerts_ladder.py`` is this script with ``--game nerts``.) Every rung is
``run_arena([strong] + [weak] * (n - 1), n, games, seed, game=GAME, rules=RULES)`` with the
game's ladder rules (:data:`LADDER_RULES`: Nerts one-hand games, Ginny-O the default rules)
-- exactly what ``gnome eval --game GAME --players N --lineup STRONG,WEAK,... --games G
--seed S`` (plus ``--max-hands 1`` for Nerts) plays: seat-rotated common deals, the win
rate as the mean win share (a shared win among k counts 1/k) with its 95% interval over
deals. The arena JSON of each rung goes to ``OUT/<strong>_vs_<weak>_<n>p.json``, and
``OUT/README.md`` is rebuilt from every JSON there: a rung passes when the whole interval
lies above 1/n. An existing JSON is not overwritten unless ``--force`` is given.

Seeds: the Nerts expert was tuned on arena seeds 10,000-19,999
(``bench/nerts_expert_tune.py``), and its ladder in ``docs/nerts.md`` uses seed 900,000; the
Ginny-O expert was tuned on seeds 700,000-700,999 (``bench/ginny_expert_tune.py``), and its
ladder in ``docs/ginny_o.md`` uses seed 910,000. Tuning never touched either ladder seed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from agents.core.arena import run_arena

#: Per game: (title, the rules of every rung, seat range, what a game is, gnome eval flags).
LADDER_RULES = {
    "nerts": (
        "Nerts",
        {"max_hands": 1},
        (2, 6),
        "one-hand games (`max_hands=1`)",
        " --max-hands 1",
    ),
    "ginny_o": ("Ginny-O", {}, (2, 4), "whole games, default rules", ""),
}


def rung_file(out: Path, strong: str, weak: str, n: int) -> Path:
    """Where the arena JSON of one rung goes."""
    return out / f"{strong}_vs_{weak}_{n}p.json".replace(":", "-")


def write_summary(out: Path, game: str = "nerts") -> str:
    """Rebuild ``out/README.md`` from every rung's JSON; return its text."""
    title, _, _, what, _ = LADDER_RULES[game]
    rows = []
    for path in sorted(out.glob("*_vs_*p.json")):
        data = json.loads(path.read_text())
        settings, entries = data["settings"], data["entries"]
        n = settings["num_players"]
        first, rest = entries[0], entries[1:]
        rows.append(
            (
                settings["lineup"][0],
                settings["lineup"][1],
                n,
                settings["games"],
                settings["seed"],
                first,
                sum(e["win_rate"] for e in rest) / len(rest),
                sum(e["mean_round_score"] for e in rest) / len(rest),
                settings.get("seconds"),
            )
        )
    rows.sort(
        key=lambda r: (
            ("greedy", "expert").index(r[0]) if r[0] in ("greedy", "expert") else 9,
            r[1],
            r[2],
        )
    )
    lines = [
        f"# {title} bot ladder",
        "",
        f"One stronger bot against n-1 copies of a weaker one, {what}, "
        "seat-rotated common deals; win rate = mean win share (a shared win among k counts "
        "1/k), 95% interval over deals (docs/arena.md). Produced by "
        f"`python bench/game_ladder.py --game {game}`; one arena JSON per row beside this "
        "file.",
        "",
        "| strong | weak | seats | games | seed | strong win rate | 95% interval | 1/n "
        f"| above 1/n | each weak seat | mean {'hand' if game == 'nerts' else 'final'} score "
        "strong / weak | s |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | --- | ---: | --- | ---: |",
    ]
    for strong, weak, n, games, seed, first, weak_rate, weak_score, secs in rows:
        verdict = "yes" if first["ci_low"] > 1 / n else "no"
        secs_text = f"{secs:.0f}" if secs is not None else ""
        lines.append(
            f"| {strong} | {weak} | {n} | {games} | {seed} | {first['win_rate']:.3f} "
            f"| [{first['ci_low']:.3f}, {first['ci_high']:.3f}] | {1 / n:.3f} | {verdict} "
            f"| {weak_rate:.3f} | {first['mean_round_score']:.2f} / {weak_score:.2f} "
            f"| {secs_text} |"
        )
    text = "\n".join(lines) + "\n"
    (out / "README.md").write_text(text, encoding="utf-8")
    return text


def main(argv: list[str] | None = None) -> int:
    """Run the requested rungs, then print and write the summary table."""
    parser = argparse.ArgumentParser(description="Nerts or Ginny-O bot ladder (arena runs)")
    parser.add_argument("--game", choices=sorted(LADDER_RULES), required=True)
    parser.add_argument(
        "--pairs",
        nargs="+",
        default=["expert,greedy", "greedy,random", "expert,random"],
        help="STRONG,WEAK pairs of the game's agent specs",
    )
    parser.add_argument(
        "--players", type=int, nargs="+", help="seat counts (default 2 4 6, Ginny-O 2 4)"
    )
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, help="arena seed (default 900000, Ginny-O 910000)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, help="default results/<game>/ladder")
    parser.add_argument("--force", action="store_true", help="overwrite existing rung JSON")
    args = parser.parse_args(argv)
    title, rules, (low, high), _, _ = LADDER_RULES[args.game]
    nerts = args.game == "nerts"
    if args.players is None:
        args.players = [2, 4, 6] if nerts else [2, 4]
    if args.seed is None:
        args.seed = 900_000 if nerts else 910_000
    if args.out is None:
        args.out = Path("results") / args.game / "ladder"
    if args.games < 1 or args.workers < 1:
        parser.error("--games and --workers must be >= 1")
    pairs = []
    for pair in args.pairs:
        strong, sep, weak = pair.partition(",")
        if not sep or not strong or not weak:
            parser.error(f"--pairs: {pair!r} is not STRONG,WEAK")
        pairs.append((strong, weak))
    for n in args.players:
        if not low <= n <= high:
            parser.error(f"--players: {n} is not allowed: {title} seats {low}..{high}")
    args.out.mkdir(parents=True, exist_ok=True)
    try:
        for strong, weak in pairs:
            for n in args.players:
                path = rung_file(args.out, strong, weak, n)
                if path.exists() and not args.force:
                    print(f"{path} exists (use --force to replace it); kept", flush=True)
                    continue
                start = time.perf_counter()
                result = run_arena(
                    [strong] + [weak] * (n - 1),
                    n,
                    args.games,
                    seed=args.seed,
                    workers=args.workers,
                    rules=rules,
                    progress=False,
                    game=args.game,
                )
                data = result.to_dict()
                data["settings"]["seconds"] = time.perf_counter() - start
                path.write_text(json.dumps(data, indent=1) + "\n")
                first = result.stats[0]
                print(
                    f"{strong} vs {weak} x{n - 1}: win {first.win_rate:.3f} "
                    f"[{first.ci_low:.3f}, {first.ci_high:.3f}] (1/n = {1 / n:.3f}) "
                    f"{result.stats[0].games} games in {data['settings']['seconds']:.0f} s",
                    flush=True,
                )
    except KeyboardInterrupt:
        print("interrupted; finished rungs are kept", file=sys.stderr)
        return 130
    print(write_summary(args.out, args.game))
    return 0


if __name__ == "__main__":
    sys.exit(main())
