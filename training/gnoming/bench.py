"""Throughput benchmark: our engine and environments against PettingZoo's reference envs.

``gnome bench`` (or ``python bench/throughput.py``) measures, in one run and one process,
with the same random-legal-action loop everywhere:

* ``engine``: :class:`gnome_env.Game` alone, sampling from ``legal_mask()`` with numpy;
* ``env()`` and ``raw_env()``: the AEC loop of PettingZoo's docs -- ``agent_iter``,
  ``last()``, a uniformly random legal action drawn from the mask with numpy, ``step``;
* ``connect_four_v3`` and ``texas_holdem_v4`` (``pettingzoo[classic]``) in that same loop;
* the *API floor*: :class:`FloorEnv`, a turn-based AEC env that does nothing but has our
  observation and action sizes, bare and behind PettingZoo's standard wrappers
  (``OrderEnforcing(AssertOutOfBounds(TerminateIllegal(...)))``): what any AEC env can reach
  in this loop;
* the vector engine (:mod:`gnome_env.gnoming.vector`) at several batch sizes: decisions/s with
  compact observations and masks, and its peak memory (``tracemalloc``, numpy buffers
  included) at the largest batch.

Then it prints ratios against the references measured in the same run. Every figure is a
rate over about ``seconds`` of wall time on one core; the machines are shared and noisy,
so compare ratios from one run rather than figures from different runs.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np

from gnome_env.gnoming import Game, RulesConfig, actions
from gnome_env.gnoming import gnoming_a_round_v1 as gnome_aec
from training.core.bench import FloorEnv, aec_steps_per_s, wrapped_floor

DEFAULT_BATCHES = (1, 64, 1024, 4096)


def engine_games(config: RulesConfig, seconds: float, seed: int) -> tuple[int, int, float]:
    """(games, decisions, seconds) of the bare engine in ~``seconds``, each decision a
    uniformly random legal action drawn from ``legal_mask()`` with numpy."""
    rng = np.random.default_rng(seed)
    decisions = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = Game(config, seed + games)
        while not game.game_over:
            legal = np.flatnonzero(game.legal_mask())
            game.step(int(legal[rng.integers(len(legal))]))
            decisions += 1
        games += 1
    return games, decisions, time.perf_counter() - start


def engine_decisions_per_s(num_players: int, seconds: float, seed: int) -> float:
    """Decisions/s of the bare engine (see :func:`engine_games`)."""
    _, decisions, elapsed = engine_games(RulesConfig(num_players=num_players), seconds, seed)
    return decisions / elapsed


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a boolean ``[B, A]`` mask."""
    scores = rng.random(mask.shape, dtype=np.float32)  # in [0, 1)
    scores += mask  # legal actions in [1, 2): the row's maximum is a uniform legal action
    return scores.argmax(axis=1)


def vector_decisions_per_s(
    batch: int, num_players: int | list[int], seconds: float, seed: int
) -> tuple[float, float, int]:
    """(decisions/s, decisions/s inside ``step`` alone, peak traced bytes) of the vector
    engine at batch size ``batch``.

    The rate counts every game's decision per step (tokens and masks are produced for all);
    the random legal actions are drawn with numpy from the masks inside the timed loop. The
    second rate leaves out that sampling (a policy network replaces it in training).
    The memory figure comes from a separate short run under ``tracemalloc`` (which slows
    allocation, so it is not used while timing): the peak of everything allocated from
    building the engine through 20 steps, numpy arrays included.
    """
    from gnome_env.gnoming.vector import VectorGame

    rng = np.random.default_rng(seed)
    games = VectorGame(RulesConfig(), batch_size=batch, num_players=num_players)
    step = games.reset(seed=seed)
    step = games.step(random_legal_actions(step.mask, rng))  # numba compiles before the clock
    decisions = 0
    in_step = 0.0
    clock = time.perf_counter
    start = clock()
    while clock() - start < seconds:
        for _ in range(20):
            actions_ = random_legal_actions(step.mask, rng)
            before = clock()
            step = games.step(actions_)
            in_step += clock() - before
        decisions += 20 * batch
    rate = decisions / (clock() - start)
    step_rate = decisions / in_step
    del games, step
    gc.collect()
    tracemalloc.start()
    games = VectorGame(RulesConfig(), batch_size=batch, num_players=num_players)
    step = games.reset(seed=seed)
    for _ in range(20):
        step = games.step(random_legal_actions(step.mask, rng))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return rate, step_rate, peak


# ---------------------------------------------------------------------- the run
def run_benchmark(
    seconds: float = 3.0,
    num_players: int = 5,
    batches: tuple[int, ...] = DEFAULT_BATCHES,
    seed: int = 0,
    references: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Measure everything once; return figures (rates per second) and ratios."""
    say = progress or (lambda _msg: None)
    probe = gnome_aec.raw_env(num_players=num_players)
    obs_size = probe.encoder.size
    n_actions = actions.NUM_ACTIONS
    rates: dict[str, float] = {}

    def measure(name: str, fn: Callable[[], float]) -> None:
        say(f"measuring {name} ...")
        rates[name] = fn()

    measure("engine", lambda: engine_decisions_per_s(num_players, seconds, seed))
    measure(
        "env",
        lambda: aec_steps_per_s(lambda: gnome_aec.env(num_players=num_players), seconds, seed),
    )
    measure(
        "raw_env",
        lambda: aec_steps_per_s(lambda: gnome_aec.raw_env(num_players=num_players), seconds, seed),
    )
    measure(
        "floor_bare",
        lambda: aec_steps_per_s(lambda: FloorEnv(num_players, obs_size, n_actions), seconds, seed),
    )
    measure(
        "floor_wrapped",
        lambda: aec_steps_per_s(
            lambda: wrapped_floor(num_players, obs_size, n_actions), seconds, seed
        ),
    )
    notes: list[str] = []
    if references:
        try:  # PettingZoo's classic envs need pygame (and rlcard): the ``bench`` extra
            from pettingzoo.classic import connect_four_v3, texas_holdem_v4
        except ImportError as err:
            notes.append(
                f"connect_four_v3 and texas_holdem_v4 skipped: {err} (they need the bench "
                "extra: pip install -e '.[bench]'; --no-references skips them quietly)"
            )
            say(notes[-1])
            references = False
    if references:
        measure("connect_four_v3", lambda: aec_steps_per_s(connect_four_v3.env, seconds, seed))
        measure("texas_holdem_v4", lambda: aec_steps_per_s(texas_holdem_v4.env, seconds, seed))
    peak = {}
    for b in batches:
        say(f"measuring vector engine at B={b} ...")
        rate, step_rate, peak[b] = vector_decisions_per_s(b, num_players, seconds, seed)
        rates[f"vector_B{b}"] = rate
        rates[f"vector_B{b}_step_only"] = step_rate
    ratios: dict[str, float] = {}
    if "connect_four_v3" in rates:
        ratios["env / connect_four_v3"] = rates["env"] / rates["connect_four_v3"]
        ratios["raw_env / connect_four_v3"] = rates["raw_env"] / rates["connect_four_v3"]
    ratios["raw_env / floor_bare"] = rates["raw_env"] / rates["floor_bare"]
    ratios["env / floor_wrapped"] = rates["env"] / rates["floor_wrapped"]
    if batches:
        top = max(batches)
        ratios[f"vector_B{top} / env"] = rates[f"vector_B{top}"] / rates["env"]
        ratios[f"vector_B{top} / engine"] = rates[f"vector_B{top}"] / rates["engine"]
        ratios[f"vector_B{top}_step_only / env"] = rates[f"vector_B{top}_step_only"] / rates["env"]
    return {
        "settings": {
            "seconds": seconds,
            "num_players": num_players,
            "batches": list(batches),
            "seed": seed,
            "loop": "random legal action drawn from the mask with numpy",
        },
        "machine": {
            "python": platform.python_version(),
            "numpy": np.__version__,
            "processor": platform.machine(),
            "numba": _numba_version(),
        },
        "rates": rates,
        "ratios": ratios,
        "vector_peak_bytes": {str(b): v for b, v in peak.items()},
        "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "targets": _targets(rates, ratios, peak),
        "notes": notes,
    }


def _numba_version() -> str | None:
    try:
        import numba
    except ImportError:
        return None
    return numba.__version__


TARGETS = (
    ("env / connect_four_v3", 5.0),
    ("raw_env / floor_bare", 0.5),
)


def _targets(
    rates: dict[str, float], ratios: dict[str, float], peak: dict[int, int]
) -> list[dict[str, Any]]:
    """The issue's targets, each with the measured figure and whether it is met."""
    out = []
    for name, goal in TARGETS:
        if name in ratios:
            out.append(
                {
                    "target": f"{name} >= {goal:g}",
                    "value": ratios[name],
                    "met": ratios[name] >= goal,
                }
            )
    if 4096 in peak:
        rate = rates["vector_B4096"]
        out.append(
            {"target": "vector_B4096 >= 1,000,000 decisions/s", "value": rate, "met": rate >= 1e6}
        )
        ratio = ratios["vector_B4096 / env"]
        out.append({"target": "vector_B4096 / env >= 20", "value": ratio, "met": ratio >= 20})
        out.append(
            {
                "target": "vector B=4096 peak memory < 1 GB",
                "value": peak[4096],
                "met": peak[4096] < 1e9,
            }
        )
    return out


def format_report(report: dict[str, Any]) -> str:
    """The human-readable table of :func:`run_benchmark`'s result."""
    s, m = report["settings"], report["machine"]
    lines = [
        f"gnome_env throughput, {s['num_players']} players, ~{s['seconds']:g} s per figure, "
        f"one core; Python {m['python']}, numpy {m['numpy']}, numba {m['numba'] or 'absent'}",
        f"loop: {s['loop']}",
        "",
        f"{'what':<24} {'steps or decisions/s':>22}",
    ]
    for name, rate in report["rates"].items():
        lines.append(f"{name:<24} {rate:>22,.0f}")
    lines += ["", "ratios (same run):"]
    for name, value in report["ratios"].items():
        lines.append(f"  {name:<34} {value:>8.2f}")
    if report["vector_peak_bytes"]:
        lines += ["", "vector engine peak traced memory:"]
        for b, v in report["vector_peak_bytes"].items():
            lines.append(f"  B={b:<6} {v / 2**20:>8.1f} MiB")
    lines.append(f"process max RSS {report['max_rss_bytes'] / 2**20:,.0f} MiB")
    lines += [f"note: {note}" for note in report.get("notes", [])]
    lines += ["", "targets:"]
    for t in report["targets"]:
        value = t["value"]
        shown = f"{value / 2**20:,.1f} MiB" if "memory" in t["target"] else f"{value:,.2f}"
        lines.append(f"  [{'met' if t['met'] else 'NOT met'}] {t['target']}: {shown}")
    return "\n".join(lines)


def save_json(report: dict[str, Any], path: str) -> None:
    """Write the report as JSON."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
        f.write("\n")


def _bench(args: Any) -> int:
    """Measure throughput against the reference environments and print a table."""
    parser: argparse.ArgumentParser = args.parser
    if args.seconds <= 0:
        parser.error(f"argument --seconds: {args.seconds} is not allowed: use a positive number")
    if any(b < 1 for b in args.batches):
        parser.error(f"argument --batches: {args.batches} is not allowed: every batch size >= 1")
    report = run_benchmark(
        seconds=args.seconds,
        num_players=args.players,
        batches=tuple(args.batches),
        seed=args.seed,
        references=not args.no_references,
        progress=lambda msg: print(msg, file=sys.stderr, flush=True),
    )
    print(format_report(report))
    if args.json:
        save_json(report, args.json)
        print(f"JSON written to {args.json}")
    return 0


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """``gnome bench --game gnoming`` (the default game of ``gnome bench``)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Measure, in one run and with one random-legal-action loop, Gnoming A "
        "Round's engine, env() and raw_env(), PettingZoo's connect_four_v3 and texas_holdem_v4, "
        "a do-nothing AEC env of our sizes (bare and wrapped) and the vector engine; print "
        "ratios.",
    )
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure (default 3)")
    parser.add_argument(
        "--num-players",
        "--players",
        dest="players",
        type=int,
        default=5,
        choices=range(3, 8),
        metavar="{3..7}",
    )
    parser.add_argument(
        "--batches",
        type=int,
        nargs="*",
        default=[1, 64, 1024, 4096],
        help="vector engine batch sizes (default 1 64 1024 4096; none to skip)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--no-references", action="store_true", help="skip connect_four_v3 and texas_holdem_v4"
    )
    parser.add_argument(
        "--json", default=None, metavar="PATH", help="also write the figures as JSON"
    )
    args = parser.parse_args(argv)
    args.parser = parser
    return _bench(args)
