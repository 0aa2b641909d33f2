"""PPO end-to-end throughput: learner samples/s and decisions/s of training.ppo.

    python bench/ppo_speed.py [--updates 20] [--num-envs 256] [--threads 1]
                              [--features config|on|off|both] [--cache on|off|both]
                              [--json PATH]

Runs ``--updates`` PPO iterations (rollout on the vector engine + update) of
configs/full.yaml's settings with evaluation, TensorBoard and final arena off, in a
temporary directory, and prints decisions/s (every seat's decisions), samples/s (learner
decisions that are trained on), and the split between rollout and update. ``--features
both`` runs it twice, without and with the Greedy features (agents.features), and prints
their ratio. ``--cache both`` runs it with the features recomputed in every forward pass
(``cache_features: false``, the behaviour before issue #13) and then computed once per
sample, and prints that ratio (same training results, tests/test_expert_hint.py). As a
reference
measured in the same run it also times the vector engine alone (random legal actions
drawn with numpy) at the same batch size. Figures depend on the machine's load: compare
ratios within a run.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def vector_rate(batch: int, seconds: float, seed: int = 0) -> float:
    """Decisions/s of the vector engine alone, random legal actions, ``batch`` games."""
    from gnome_env.vector import VectorGame

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
    parser.add_argument("--json", default=None, metavar="PATH")
    args = parser.parse_args(argv)
    if args.updates < 1 or args.num_envs < 1 or args.threads < 1:
        parser.error("--updates, --num-envs and --threads must be >= 1")
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


def measure(
    args: argparse.Namespace, features: bool | None, cache: bool = True
) -> dict[str, float]:
    """One PPO run of ``args.updates`` updates; prints and returns its figures."""
    import torch

    from training.config import build_config
    from training.ppo import PPOConfig, train

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
            cache_features=cache,
        )
        if features is not None:
            cfg = dataclasses.replace(cfg, features=features)
        start = time.perf_counter()
        summary = train(cfg)
        wall = time.perf_counter() - start
    loop = summary["rollout_seconds"] + summary["update_seconds"]
    figures = {
        "updates": args.updates,
        "num_envs": args.num_envs,
        "torch_threads": args.threads,
        "features": cfg.features,
        "cache_features": cfg.cache_features,
        "decisions_per_s": summary["decisions_this_session"] / loop,
        "samples_per_s": summary["samples_this_session"] / loop,
        "rollout_share": summary["rollout_seconds"] / loop,
        "wall_seconds_incl_startup": wall,
        "vector_engine_alone_decisions_per_s": vector_rate(args.num_envs, 3.0),
    }
    figures["ppo_vs_engine"] = (
        figures["decisions_per_s"] / figures["vector_engine_alone_decisions_per_s"]
    )
    print(
        f"PPO end to end ({args.updates} updates, {args.num_envs} games, "
        f"{args.threads} torch thread(s), features {'on' if cfg.features else 'off'}"
        f"{', cached' if cfg.features and cfg.cache_features else ''}):\n"
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
