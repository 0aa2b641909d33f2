"""PPO end-to-end throughput: learner samples/s and decisions/s of training.gnoming.ppo.

    python bench/ppo_speed.py [--updates 20] [--num-envs 256] [--threads 1]
                              [--features config|on|off|both] [--cache on|off|both]
                              [--before REV [--rounds 2]] [--json PATH]

Runs ``--updates`` PPO iterations (rollout on the vector engine + update) of
configs/full.yaml's settings with evaluation, TensorBoard and final arena off, in a
temporary directory, and prints decisions/s (every seat's decisions), samples/s (learner
decisions that are trained on), and the split between rollout and update. Each measured run
follows, in the same process, a second of random games and a one-update run that are not
counted (numba kernels loaded or compiled, torch warmed up). ``--features
both`` runs it twice, without and with the Greedy features (agents.gnoming.features), and prints
their ratio. ``--cache both`` runs it with the features recomputed in every forward pass
(``cache_features: false``, the behaviour before issue #13) and then computed once per
sample, and prints that ratio (same training results, tests/gnoming/test_expert_hint.py). As a
reference
measured in the same run it also times the vector engine alone (random legal actions
drawn with numpy) at the same batch size. Figures depend on the machine's load: compare
ratios within a run.

``--before REV`` measures the code of commit ``REV`` against this working tree in one run
(issue #13 item 3): ``REV`` is checked out into a temporary git worktree, and this script
runs the same measurement alternately with each tree's packages (``PYTHONPATH``), in a
fresh process each time, ``--rounds`` times per side (before, after, before, after, ...),
so that both see the same load, after one uncounted run per side that compiles each tree's
numba kernels to its disk cache. It prints the best and median decisions/s of each side,
after / before, and each side's share of the vector engine alone; ``--json`` then writes
every run, the commits and the load average (``os.getloadavg``) at the start and end.
``--features`` must be on, off or config there, ``--cache`` on or off. A tree from before
``cache_features`` existed (``64617f6``, the code issue #13 was filed on) recomputes the
features in every forward pass whatever ``--cache`` says; its runs are recorded with
``cache_features: false``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def vector_rate(batch: int, seconds: float, seed: int = 0) -> float:
    """Decisions/s of the vector engine alone, random legal actions, ``batch`` games."""
    from gnome_env.gnoming.vector import VectorGame

    vec = VectorGame(batch_size=batch, num_players=[3, 4, 5, 6, 7])
    vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(5):  # compile and warm up
        vec.step(vec.sample_actions(rng))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        vec.step(vec.sample_actions(rng))
        steps += 1
    return steps * batch / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    """Measure and print; ``--json`` also writes the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=20, help="PPO iterations (default 20)")
    parser.add_argument("--num-envs", type=int, default=256, help="games at once (default 256)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument(
        "--features",
        default="config",
        choices=["config", "on", "off", "both"],
        help="Greedy features as in configs/full.yaml (default), on, off, or both in turn",
    )
    parser.add_argument(
        "--cache",
        default="on",
        choices=["on", "off", "both"],
        help="features computed once per sample (on, default), in every forward pass (off), "
        "or both in turn",
    )
    parser.add_argument(
        "--before",
        default=None,
        metavar="REV",
        help="also measure commit REV (a temporary git worktree), alternating with this tree",
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="with --before: runs per side (default 2)"
    )
    parser.add_argument("--json", default=None, metavar="PATH")
    args = parser.parse_args(argv)
    if args.updates < 1 or args.num_envs < 1 or args.threads < 1 or args.rounds < 1:
        parser.error("--updates, --num-envs, --threads and --rounds must be >= 1")
    if args.before is not None:
        if args.features == "both" or args.cache == "both":
            parser.error("--before compares one setting: --features and --cache cannot be both")
        return before_after(args)
    settings = {"config": [None], "on": [True], "off": [False], "both": [False, True]}
    caches = {"on": [True], "off": [False], "both": [False, True]}[args.cache]
    runs = [
        measure(args, features, cache) for features in settings[args.features] for cache in caches
    ]

    def rate(features: bool, cache: bool) -> float:
        return next(
            r["decisions_per_s"]
            for r in runs
            if r["features"] == features and r["cache_features"] == cache
        )

    if args.features == "both":
        ratio = rate(True, caches[-1]) / rate(False, caches[-1])
        print(f"with features / without: {ratio:.2f} of the decisions/s")
    if args.cache == "both" and args.features != "off":
        ratio = rate(True, True) / rate(True, False)
        print(f"features cached / recomputed: {ratio:.2f}x the decisions/s")
    if args.json:
        Path(args.json).write_text(json.dumps(runs, indent=1), encoding="utf-8")
    return 0


def git(*argv: str) -> str:
    """Output of a git command in this repository."""
    out = subprocess.run(["git", "-C", str(ROOT), *argv], check=True, capture_output=True)
    return out.stdout.decode().strip()


def before_after(args: argparse.Namespace) -> int:
    """``--before REV``: the same measurement on REV's code and on this tree, alternately."""
    load_start = os.getloadavg()
    commit = git("rev-parse", "--verify", f"{args.before}^{{commit}}")
    head = git("rev-parse", "HEAD")
    dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        tree = tmp_path / "before"
        git("worktree", "add", "--detach", "-q", str(tree), commit)
        trees = {"before": tree, "after": ROOT}

        def run(side: str, updates: int, out: Path) -> dict:
            cmd = [sys.executable, str(Path(__file__).resolve())]
            cmd += ["--updates", str(updates), "--num-envs", str(args.num_envs)]
            cmd += ["--threads", str(args.threads), "--features", args.features]
            cmd += ["--cache", args.cache, "--json", str(out)]
            env = dict(os.environ, PYTHONPATH=str(trees[side]))
            subprocess.run(cmd, cwd=trees[side], env=env, check=True)
            (figures,) = json.loads(out.read_text(encoding="utf-8"))
            return figures

        try:
            for side in ("before", "after"):  # compile each tree's kernels to disk (not counted)
                print(f"warm-up, {side}:", flush=True)
                run(side, 1, tmp_path / f"warm_{side}.json")
            for r in range(args.rounds):
                for side in ("before", "after"):
                    load = os.getloadavg()[0]
                    print(f"round {r + 1}/{args.rounds}, {side} ({load:.2f} load):", flush=True)
                    figures = run(side, args.updates, tmp_path / f"{side}{r}.json")
                    figures["load_average_1min_at_start"] = load
                    runs[side].append(figures)
        finally:
            git("worktree", "remove", "--force", str(tree))
    summary: dict[str, float] = {}
    for side in ("before", "after"):
        rates = [run["decisions_per_s"] for run in runs[side]]
        summary[f"{side}_best_decisions_per_s"] = max(rates)
        summary[f"{side}_median_decisions_per_s"] = statistics.median(rates)
        summary[f"{side}_median_update_share"] = statistics.median(
            1 - run["rollout_share"] for run in runs[side]
        )
        summary[f"{side}_median_decisions_per_cpu_s"] = statistics.median(
            run["decisions_per_cpu_s_incl_startup"] for run in runs[side]
        )
    engine = statistics.median(
        run["vector_engine_alone_decisions_per_s"] for side in runs.values() for run in side
    )
    summary["vector_engine_alone_median_decisions_per_s"] = engine
    summary["after_over_before_best"] = (
        summary["after_best_decisions_per_s"] / summary["before_best_decisions_per_s"]
    )
    summary["after_over_before_median"] = (
        summary["after_median_decisions_per_s"] / summary["before_median_decisions_per_s"]
    )
    summary["after_over_before_cpu_median"] = (
        summary["after_median_decisions_per_cpu_s"] / summary["before_median_decisions_per_cpu_s"]
    )
    for side in ("before", "after"):
        summary[f"{side}_vs_engine_best"] = summary[f"{side}_best_decisions_per_s"] / engine
    load_end = os.getloadavg()
    print(
        f"\n{'':8s} {'best':>10s} {'median':>10s}  decisions/s ({args.rounds} runs each)\n"
        f"{'before':8s} {summary['before_best_decisions_per_s']:10,.0f} "
        f"{summary['before_median_decisions_per_s']:10,.0f}  ({args.before} = {commit[:10]})\n"
        f"{'after':8s} {summary['after_best_decisions_per_s']:10,.0f} "
        f"{summary['after_median_decisions_per_s']:10,.0f}  (this tree: {head[:10]}"
        f"{' + changes' if dirty else ''})\n"
        f"after / before: {summary['after_over_before_best']:.2f}x (best), "
        f"{summary['after_over_before_median']:.2f}x (median); per CPU second of the "
        f"process (startup included): {summary['after_over_before_cpu_median']:.2f}x "
        f"(median)\n"
        f"vector engine alone: {engine:,.0f} decisions/s; PPO runs at "
        f"{summary['before_vs_engine_best']:.2%} of it before, "
        f"{summary['after_vs_engine_best']:.2%} after\n"
        f"load average (1, 5, 15 min): {load_start[0]:.2f} {load_start[1]:.2f} "
        f"{load_start[2]:.2f} at the start, {load_end[0]:.2f} {load_end[1]:.2f} "
        f"{load_end[2]:.2f} at the end, on {os.cpu_count()} CPUs"
    )
    if args.json:
        report = {
            "command": "python bench/ppo_speed.py " + " ".join(sys.argv[1:]),
            "before": {"rev": args.before, "commit": commit},
            "after": {"commit": head, "uncommitted_changes": dirty},
            "load_average_start": load_start,
            "load_average_end": load_end,
            "cpu_count": os.cpu_count(),
            "summary": summary,
            "runs": runs,
        }
        Path(args.json).write_text(json.dumps(report, indent=1), encoding="utf-8")
    return 0


def measure(
    args: argparse.Namespace, features: bool | None, cache: bool = True
) -> dict[str, float]:
    """One PPO run of ``args.updates`` updates; prints and returns its figures."""
    import torch

    from training.core.config import build_config
    from training.gnoming.ppo import PPOConfig, train

    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        cfg = build_config(PPOConfig, ROOT / "configs" / "full.yaml")
        cfg = dataclasses.replace(
            cfg,
            output_dir=tmp,
            num_envs=args.num_envs,
            total_steps=args.updates * args.num_envs * cfg.rollout_steps,
            eval_interval=0,
            final_eval_games=0,
            tensorboard=False,
            progress=False,
            torch_threads=args.threads,
        )
        # a tree from before cache_features (issue #13's "today", 64617f6) has no such
        # field: it recomputes the features in every forward pass, its only behaviour
        if any(f.name == "cache_features" for f in dataclasses.fields(cfg)):
            cfg = dataclasses.replace(cfg, cache_features=cache)
        if features is not None:
            cfg = dataclasses.replace(cfg, features=features)
        # not counted: random games to their ends and one update, which load (or compile)
        # the numba kernels and warm torch up
        vector_rate(args.num_envs, 1.0)
        warm = dataclasses.replace(
            cfg, output_dir=str(Path(tmp) / "warm-up"), total_steps=cfg.steps_per_update
        )
        train(warm)
        start, cpu = time.perf_counter(), time.process_time()
        summary = train(cfg)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    loop = summary["rollout_seconds"] + summary["update_seconds"]
    figures = {
        "updates": args.updates,
        "num_envs": args.num_envs,
        "torch_threads": args.threads,
        "features": cfg.features,
        "cache_features": bool(getattr(cfg, "cache_features", False)),
        "decisions_per_s": summary["decisions_this_session"] / loop,
        "samples_per_s": summary["samples_this_session"] / loop,
        "rollout_share": summary["rollout_seconds"] / loop,
        "wall_seconds_incl_startup": wall,
        # CPU time of this process over the whole train() call (startup and the policy file
        # included): less sensitive than wall time to other processes on the machine
        "cpu_seconds_incl_startup": cpu,
        "decisions_per_cpu_s_incl_startup": summary["decisions_this_session"] / cpu,
        "vector_engine_alone_decisions_per_s": vector_rate(args.num_envs, 3.0),
    }
    figures["ppo_vs_engine"] = (
        figures["decisions_per_s"] / figures["vector_engine_alone_decisions_per_s"]
    )
    print(
        f"PPO end to end ({args.updates} updates, {args.num_envs} games, "
        f"{args.threads} torch thread(s), features {'on' if cfg.features else 'off'}"
        f"{', cached' if cfg.features and figures['cache_features'] else ''}):\n"
        f"  {figures['decisions_per_s']:,.0f} decisions/s (all seats), "
        f"{figures['samples_per_s']:,.0f} learner samples/s; rollout "
        f"{figures['rollout_share']:.0%} of the loop, update {1 - figures['rollout_share']:.0%}\n"
        f"  vector engine alone, same batch: "
        f"{figures['vector_engine_alone_decisions_per_s']:,.0f} decisions/s "
        f"(PPO runs at {figures['ppo_vs_engine']:.1%} of it)"
    )
    return figures


if __name__ == "__main__":
    sys.exit(main())
