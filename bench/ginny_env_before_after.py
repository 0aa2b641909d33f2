"""``ginny_o_v0`` steps/s now against an earlier commit, in one run (issue #32 item 1).

    python bench/ginny_env_before_after.py [--before bb38b79] [--rounds 3] [--seconds 4]

Checks ``--before`` out into a temporary git worktree (default ``bb38b79``, the last commit
before the compiled move generator: "today's" env of the issue) and measures
``ginny_o_v0.env()`` and ``raw_env()`` at 2 and 4 players in both trees, alternately
(before, now, before, now, ...) so that both see the same machine load. Every figure is
the standard AEC loop of this tree's :func:`training.core.bench.aec_steps_per_s`
(``agent_iter``, ``last()``, a uniformly random legal action from the mask, ``step``; the
same file is loaded in both trees, so only the env differs) for ``--seconds`` seconds in a
fresh process with one thread; one-time costs (numba loading kernels) are off the clock.
"Now" is this working tree, uncommitted changes included. Prints each side's median over
the rounds and now / before; ``--json PATH`` writes every figure. The machines are shared
and noisy: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from before_after import ROOT, remove_worktree, worktree  # the Gnoming before/after script

LOOP = ROOT / "training" / "core" / "bench.py"
FIGURES = [(kind, players) for players in (2, 4) for kind in ("env", "raw_env")]

# Run in a child process with the tree to measure first on sys.path.
CHILD = """
import importlib.util, json, sys
tree, loop, kind, players, seconds = sys.argv[1:6]
sys.path.insert(0, tree)
spec = importlib.util.spec_from_file_location("_loop", loop)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
import gnome_env
assert gnome_env.__file__.startswith(tree), gnome_env.__file__
from gnome_env.ginny_o import ginny_o_v0
make = getattr(ginny_o_v0, kind)
rate = mod.aec_steps_per_s(lambda: make(num_players=int(players)), float(seconds), 20261205)
print(json.dumps(rate))
"""


def measure(tree: Path, kind: str, players: int, seconds: float) -> float:
    """Steps/s of ``ginny_o_v0.<kind>(num_players=players)`` from ``tree``."""
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    env.pop("PYTHONPATH", None)
    cmd = [sys.executable, "-c", CHILD, str(tree), str(LOOP), kind, str(players), str(seconds)]
    out = subprocess.run(cmd, cwd=tree, env=env, check=True, capture_output=True, text=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="bb38b79", help="commit to compare against")
    parser.add_argument("--rounds", type=int, default=3, help="alternations per figure")
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds per measurement")
    parser.add_argument("--json", type=Path, default=None, help="write every figure here")
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.seconds <= 0:
        parser.error("--rounds must be >= 1 and --seconds > 0")
    runs: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        before = worktree(args.before, Path(tmp))
        try:
            for tree in (before, ROOT):  # warm-up: each tree compiles / loads its kernels
                measure(tree, "raw_env", 2, 0.2)
            for kind, players in FIGURES:
                name = f"{kind}, {players} players"
                runs[name] = {"before": [], "now": []}
                for _ in range(args.rounds):
                    runs[name]["before"].append(measure(before, kind, players, args.seconds))
                    runs[name]["now"].append(measure(ROOT, kind, players, args.seconds))
                b = statistics.median(runs[name]["before"])
                n = statistics.median(runs[name]["now"])
                print(
                    f"ginny_o_v0.{name}: {n:,.0f} steps/s now, {b:,.0f} at {args.before}: "
                    f"x{n / b:.2f} (medians of {args.rounds}; each pair x"
                    + ", x".join(
                        f"{x / y:.2f}"
                        for x, y in zip(runs[name]["now"], runs[name]["before"], strict=True)
                    )
                    + ")",
                    flush=True,
                )
        finally:
            remove_worktree(before)
    if args.json is not None:
        record = {"before": args.before, "seconds": args.seconds, "runs": runs}
        args.json.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("interrupted: nothing was written")
