"""``gnome bench`` on two commits in one run: is a change as fast as what it replaced?

    python bench/before_after.py --before 75529aa [--after HEAD] [--rounds 2] [--seconds 2]

Checks the ``--before`` commit out into a temporary git worktree and runs ``gnome bench``
(``python -m training.app.cli bench --no-references --json``: our figures only, not
PettingZoo's reference games) alternately on the two trees, ``--rounds``
times each (before, after, before, after, ...), so that both see the same machine load.
``--after`` is the working tree itself by default (uncommitted changes included), or a
commit (then also a temporary worktree). Each tree compiles its own kernels first (a warm-up
bench of 0.2 s per figure that is not counted). Prints, per figure, the best rate of each
side and after / before; ``--json PATH`` writes every run. The interpreter is the one
running this script, so both trees must work with the installed dependencies.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def worktree(rev: str, parent: Path) -> Path:
    """A detached worktree of ``rev`` under ``parent``; ``SystemExit`` with the reason if
    ``rev`` names no commit."""
    known = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    if known.returncode != 0:
        raise SystemExit(f"{rev!r} is not a commit of {ROOT}: give a hash, a branch or a tag")
    path = parent / rev.replace("/", "_")
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(path), rev], check=True
    )
    return path


def remove_worktree(path: Path) -> None:
    """Remove a worktree made by :func:`worktree` (its files and git's record of it)."""
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False
    )


def bench(tree: Path, seconds: float, players: int, out: Path) -> dict:
    """One ``gnome bench`` run from ``tree``; its JSON figures."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-m", "training.app.cli", "bench", "--seconds", str(seconds)]
    cmd += ["--players", str(players), "--no-references", "--json", str(out)]
    subprocess.run(cmd, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="commit to compare against")
    parser.add_argument("--after", default=None, help="commit (default: this working tree)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        trees = {"before": worktree(args.before, tmp_path)}
        trees["after"] = worktree(args.after, tmp_path) if args.after else ROOT
        try:
            for side, tree in trees.items():  # compile each side's kernels (not counted)
                bench(tree, 0.2, args.players, tmp_path / f"warm_{side}.json")
            runs: dict[str, list[dict]] = {"before": [], "after": []}
            for r in range(args.rounds):
                for side in ("before", "after"):
                    runs[side].append(
                        bench(trees[side], args.seconds, args.players, tmp_path / f"{side}{r}.json")
                    )
                    print(f"round {r + 1}/{args.rounds}: {side} done", flush=True)
        finally:
            for tree in trees.values():
                if tree != ROOT:
                    remove_worktree(tree)
    names = list(runs["after"][0]["rates"])
    print(f"\n{'figure':28s} {'before':>14s} {'after':>14s} {'after/before':>13s}")
    for name in names:
        before = max(run["rates"].get(name, 0.0) for run in runs["before"])
        after = max(run["rates"][name] for run in runs["after"])
        ratio = after / before if before else float("nan")
        print(f"{name:28s} {before:14,.0f} {after:14,.0f} {ratio:13.2f}")
    print(
        f"\n(best of {args.rounds} runs per side, {args.seconds} s per figure; before = "
        f"{args.before}, after = {args.after or 'working tree'})"
    )
    if args.json:
        args.json.write_text(
            json.dumps({"args": vars(args) | {"json": str(args.json)}, "runs": runs}, indent=1)
        )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("interrupted: nothing was written")
