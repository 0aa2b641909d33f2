"""How consistent the Nerts search's deviations are: the same positions searched twice with
different sample streams.

    python bench/nerts_search_agreement.py --players 4 --steps 200 --z 2 --margin 0.1

``--envs`` one-hand games on :class:`gnome_env.nerts.vector.NertsVectorEngine`, every seat
played by the compiled expert; at each of ``--steps`` steps seat 0's position is searched
twice (:func:`agents.nerts.search.search_batch`, two sample-stream keys per position). It
prints how often each search left the expert's move and how often the second search made
the same deviation where the first made one. A student imitating the search's moves can at
best learn the part of its deviations that the position decides; when the two searches
rarely agree, the rest comes from the samples (``docs/nerts.md``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from _script import run
from nerts_search_pilot import SearchTable, add_search_options, search_settings

from agents.nerts import _bot_kernels as BK
from gnome_env.nerts.actions import action_table, parse_kinds
from gnome_env.nerts.config import NertsConfig


def agreement(
    players: int,
    steps: int,
    envs: int,
    seed: int,
    settings: dict,
    streams=(1, 2),
    kinds: frozenset | None = None,
) -> tuple[int, int, int, int]:
    """``(positions, deviations of the first search, of the second, the same deviation in
    both)`` over seat 0's positions with more than one legal action; ``streams``: the two
    searches' stream numbers (equal numbers: the same search twice); ``kinds``: count only
    the deviations to moves of these kinds (N19; None: every kind)."""
    table = SearchTable(players, envs, seed)
    allowed = np.ones(table.engine.n_actions, bool)
    if kinds is not None:
        allowed = action_table(NertsConfig()).of_kinds(kinds)
    counts = table.counts
    kinds = np.zeros((envs, 6), np.int64)
    kinds[:, :players] = BK.KIND_EXPERT
    who = np.zeros((envs, 6), np.int64)
    who[:, 0] = 1
    positions = first = second = same = 0
    for step in range(steps):
        joint = np.zeros((envs, 6), np.int64)
        table.experts(kinds, joint)
        moves, devs = [], []
        for stream in streams:
            out = joint.copy()
            dev = np.zeros((envs, 6), np.int64)
            keys = np.zeros((envs, 6), np.int64)
            keys[:, 0] = ((seed * 1_000_003 + np.arange(envs) * 10_007 + step) * 4 + stream) % 2**62
            table.search(who, keys, settings, out, dev)
            moves.append(out[:, 0].copy())
            devs.append((dev[:, 0] == 1) & allowed[out[:, 0]])
        positions += int((counts[:, 0] > 1).sum())
        first += int(devs[0].sum())
        second += int(devs[1].sum())
        same += int((devs[0] & devs[1] & (moves[0] == moves[1])).sum())
        table.step(joint)  # the experts' game goes on
    return positions, first, second, same


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4, choices=range(2, 7))
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--envs", type=int, default=50, help="games stepped together")
    p.add_argument("--seed", type=int, default=77, help="the engine seed of the deals")
    p.add_argument(
        "--kinds", default="all", help="count only deviations to moves of these kinds (N19)"
    )
    add_search_options(p)
    args = p.parse_args(argv)
    try:
        kinds = parse_kinds(args.kinds)
    except ValueError as err:
        p.error(f"--kinds: {err}")
    if min(args.steps, args.envs) < 1 or not 0 <= args.seed < 2**40:
        p.error("--steps and --envs must be at least 1, --seed in 0..2**40-1")
    settings = search_settings(p, args)
    start = time.perf_counter()
    positions, first, second, same = agreement(
        args.players, args.steps, args.envs, args.seed, settings, kinds=kinds
    )
    who = ", ".join(f"{k} {v}" for k, v in settings.items())
    print(
        f"players {args.players} ({who}; deviations to {args.kinds} moves): {positions:,} "
        "positions; the first search left the "
        f"expert's move at {first:,} ({first / max(positions, 1):.1%}), the second at "
        f"{second:,}; the same deviation in both at {same:,} = {same / max(first, 1):.0%} of "
        f"the first search's deviations, {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    run(main)
