"""Expert speed: the Python ExpertAgent vs the compiled Expert on the same positions (not a
test -- prints figures).

Usage: python bench/expert_speed.py [--positions 20000] [--python 3000] [--seconds 3]
       [--players 3 4 5 6 7] [--seed 0] [--json]

Positions are the decisions of ``VectorGame`` games in which 70% of the moves are Expert's
and the rest uniformly random (see :func:`positions`). On them it measures,
in the same run and on one core:

* ``python``: ``agents.gnoming.features.expert_actions_python`` -- ``SeatView.from_tokens`` and
  ``ExpertAgent.decide`` per row (what the expert hint cost before the kernel), on
  ``--python`` positions drawn at random from them;
* ``python decide``: ``ExpertAgent.decide`` alone on views built beforehand;
* ``kernel``: ``agents.gnoming.expert_kernel.expert_actions_batch`` on the same positions and on
  all of them, each repeated for about ``--seconds`` (compiled once before timing);

and checks that both give the same actions. Decisions/s per phase follow for the kernel.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np

from agents.gnoming.expert import ExpertAgent
from agents.gnoming.expert_kernel import expert_actions_batch
from agents.gnoming.features import expert_actions_python
from gnome_env.gnoming import _kernels
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.vector import VectorGame


def positions(rules: RulesConfig, players: list[int], count: int, seed: int):
    """``count`` (tokens, masks) rows from games played 70% by Expert, 30% at random: every
    third step of 256 games after 300 steps of warm-up (so all rounds and phases occur in
    their usual proportions)."""
    batch = 256
    vec = VectorGame(rules, batch_size=batch, num_players=players)
    tokens, masks, _ = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rows_t, rows_m = [], []
    step = 0
    while sum(len(t) for t in rows_t) < count:
        if step >= 300 and step % 3 == 0:
            rows_t.append(tokens.copy())
            rows_m.append(masks.copy())
        actions = expert_actions_batch(tokens, masks, rules)
        random = vec.sample_actions(rng)
        pick = rng.random(batch) < 0.3
        actions[pick] = random[pick]
        tokens, masks, *_ = vec.step(actions)
        step += 1
    return np.concatenate(rows_t)[:count], np.concatenate(rows_m)[:count]


def rate(fn, rows: int, seconds: float) -> float:
    """Rows per second of ``fn()`` (which decides ``rows`` rows), repeated ~``seconds``."""
    done = 0
    start = time.perf_counter()
    while True:
        fn()
        done += rows
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return done / elapsed


def main() -> None:
    """Run the benchmark and print a table (or JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=20000)
    parser.add_argument("--python", type=int, default=3000, help="positions the Python bot gets")
    parser.add_argument("--seconds", type=float, default=3.0, help="time per kernel measurement")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6, 7])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()

    rules = RulesConfig()
    tokens, masks = positions(rules, args.players, args.positions, args.seed)
    n_py = min(args.python, len(tokens))
    sample = np.sort(np.random.default_rng(args.seed).permutation(len(tokens))[:n_py])
    t_py, m_py = tokens[sample], masks[sample]

    expert_actions_python(t_py[:20], m_py[:20], rules)  # one-time set-up out of the timing
    start = time.perf_counter()
    reference = expert_actions_python(t_py, m_py, rules)
    python = n_py / (time.perf_counter() - start)
    views = [SeatView.from_tokens(t, m, rules) for t, m in zip(t_py, m_py, strict=True)]
    expert = ExpertAgent(0, rules)
    start = time.perf_counter()
    for view in views:
        expert.decide(view)
    python_decide = n_py / (time.perf_counter() - start)

    kernel_actions = expert_actions_batch(tokens, masks, rules)  # compiles (or loads) first
    if not np.array_equal(kernel_actions[sample], reference):
        raise SystemExit(
            "the kernel and the Python Expert disagree: run tests/gnoming/test_expert_kernel.py"
        )
    kernel = rate(lambda: expert_actions_batch(tokens, masks, rules), len(tokens), args.seconds)
    kernel_same = rate(lambda: expert_actions_batch(t_py, m_py, rules), n_py, args.seconds)
    phases = tokens[:, _kernels.TOK_PHASE]
    per_phase = {}
    for phase in Phase:
        pick = phases == int(phase)
        if pick.any():
            t, m = tokens[pick], masks[pick]
            per_phase[phase.name] = (
                int(pick.sum()),
                rate(lambda t=t, m=m: expert_actions_batch(t, m, rules), len(t), args.seconds / 3),
            )
    result = {
        "machine": platform.processor() or platform.machine(),
        "compiled": _kernels.COMPILED,
        "positions": len(tokens),
        "python_positions": n_py,
        "python_per_s": python,
        "python_decide_per_s": python_decide,
        "kernel_per_s": kernel,
        "kernel_python_positions_per_s": kernel_same,
        "speedup": kernel_same / python,
        "kernel_per_phase": {k: {"positions": c, "per_s": r} for k, (c, r) in per_phase.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    numba = "on" if _kernels.COMPILED else "OFF"
    print(f"Expert decisions/s on {len(tokens)} positions of {args.players}-seat games "
          f"(seed {args.seed}; numba {numba}), one core")  # fmt: skip
    print(f"  python  (from_tokens + decide) {python:>12,.0f}   ({n_py} positions)")
    print(f"  python  (decide only)          {python_decide:>12,.0f}")
    print(f"  kernel  (expert_actions_batch) {kernel_same:>12,.0f}   on the same {n_py} positions: "
          f"x{kernel_same / python:.0f} vs python")  # fmt: skip
    print(f"  kernel  (expert_actions_batch) {kernel:>12,.0f}   on all {len(tokens)} positions")
    print("  kernel per phase:")
    for name, (count, per_s) in per_phase.items():
        print(f"    {name:<13} {count:>7} positions {per_s:>12,.0f}/s")
    print(f"  same actions on the {n_py} positions both decided: yes")


if __name__ == "__main__":
    main()
