"""Ginny-O speed: the move generator, the G29b dead-board check and whole games (not a test --
prints figures).

Usage: gnome bench --game ginny_o [--positions 30] [--games 10] [--seconds 3] [--seed 0]
[--json] (or ``python bench/ginny_speed.py`` with the same options)

In one run and one process:

* **positions**: random games (2-4 players, a placement-biased random player) stopped at
  their 10th, 40th and 70th turn, so boards go from sparse to crowded (the table reports
  the mean number of tiles on the board);
* **generator**: the reference generator (:func:`gnome_env.ginny_o.movegen.
  generate_reference`, pure Python) and the compiled one (:func:`~gnome_env.ginny_o.
  movegen.generate_compiled`, numba) on the acting seat's full rack (8 tiles): time per
  call -- the cost of one decision point, since the mask trie is built from one call --
  overall and on crowded boards (40+ tiles), their ratio, and whether every position's
  placements agree;
* **env**: ``ginny_o_v0.env()`` and ``raw_env()`` in PettingZoo's AEC loop with uniformly
  random legal actions from the mask (:func:`training.core.bench.aec_steps_per_s`), at 2
  and 4 players, with the reference generator and with the compiled one, beside a
  do-nothing AEC env with the same spaces (:class:`training.core.bench.FloorEnv`), behind
  PettingZoo's standard wrappers for ``env()`` (:func:`training.core.bench.wrapped_floor`:
  the checks ``env()`` makes, there in three layers) and bare for ``raw_env()``: steps/s
  and the ratios. (The reference-generator rows run today's env
  code otherwise: its placement table, encoder and caches.)
* **reference**: the brute-force enumerator :mod:`gnome_env.ginny_o.bruteforce` and the
  generator on the same positions with the rack cut to its first 3 tiles, jokers removed
  (the reference is exponential in the rack size): the ratio is the generator's speed-up;
* **dead check** (G29b, box not empty): ``generate(..., unplayed tiles, max_tiles=8,
  limit=1)`` -- the early exit -- against the same call without the limit (every placement
  from the whole unplayed multiset, up to 8 tiles), capped at 10 positions;
* **games**: whole 2- and 4-player games of uniformly random and placement-biased players
  through the engine, turns/s and decisions/s.

The machines are shared and noisy: compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from typing import Any

import numpy as np

from gnome_env.core.jit import COMPILED
from gnome_env.ginny_o import GinnyConfig, GinnyGame, ginny_o_v0
from gnome_env.ginny_o import bruteforce as bf
from gnome_env.ginny_o.actions import NUM_ACTIONS
from gnome_env.ginny_o.cards import JOKER
from gnome_env.ginny_o.encoding import OBS_SIZE
from gnome_env.ginny_o.movegen import (
    generate,
    generate_compiled,
    generate_reference,
    rack_counts,
    reference_generator,
)
from training.core.bench import FloorEnv, aec_steps_per_s, wrapped_floor


def random_action(game: GinnyGame, gen: np.random.Generator, biased: bool) -> int:
    legal = game.legal_actions()
    plays = [a for a in legal if a <= 1852]
    pool = plays if biased and plays and gen.random() < 0.9 else legal
    return int(pool[gen.integers(len(pool))])


def positions(count: int, seed: int) -> list[GinnyGame]:
    """``count`` positions at turns 10, 40 and 70 (cycled) of placement-biased random games."""
    gen = np.random.default_rng(seed)
    out = []
    i = 0
    while len(out) < count:
        target = (10, 40, 70)[i % 3]
        game = GinnyGame(GinnyConfig(num_players=2 + i % 3), int(gen.integers(2**62)))
        while not game.game_over and game.turn < target:
            game.step(random_action(game, gen, True))
        i += 1
        if not game.game_over and game.phase == "choose":
            out.append(game)
    return out


def timed(fn, *args, **kw) -> tuple[Any, float]:
    t = time.perf_counter()
    result = fn(*args, **kw)
    return result, time.perf_counter() - t


def bench_generator(games: list[GinnyGame]) -> dict[str, Any]:
    generate_compiled(games[0].board, rack_counts(games[0].racks[0]))  # load the kernel
    rows = []
    agree = 0
    for g in games:
        counts = rack_counts([t for t in g.slots if t >= 0])
        plays, dt = timed(generate_reference, g.board, counts)
        fast, ft = timed(generate_compiled, g.board, counts)
        agree += fast == plays
        rows.append((g.board.count, len(plays), dt, ft))
    crowded = [r for r in rows if r[0] >= 40]

    def ms(rs: list, i: int) -> float | None:
        return 1000 * statistics.mean(r[i] for r in rs) if rs else None

    ref, fast = ms(rows, 2), ms(rows, 3)
    ref_c, fast_c = ms(crowded, 2), ms(crowded, 3)
    return {
        "positions": len(rows),
        "compiled": COMPILED,
        "mean_board_tiles": statistics.mean(r[0] for r in rows),
        "mean_placements": statistics.mean(r[1] for r in rows),
        "reference_ms": ref,
        "reference_max_ms": 1000 * max(r[2] for r in rows),
        "compiled_ms": fast,
        "compiled_max_ms": 1000 * max(r[3] for r in rows),
        "speedup": ref / fast,
        "crowded_positions": len(crowded),
        "crowded_reference_ms": ref_c,
        "crowded_compiled_ms": fast_c,
        "crowded_speedup": ref_c / fast_c if crowded else None,
        "agreeing_positions": agree,
    }


def bench_env(seconds: float, seed: int) -> list[dict[str, Any]]:
    """``ginny_o_v0.env()`` and ``raw_env()``, each with the reference generator and the
    compiled one, beside the do-nothing floor (behind the standard wrappers, and bare)."""
    out = []
    for players in (2, 4):
        row: dict[str, Any] = {"players": players}
        for name, make_env, floor in (
            ("env", ginny_o_v0.env, wrapped_floor),
            ("raw_env", ginny_o_v0.raw_env, FloorEnv),
        ):

            def make(players: int = players, make_env: Any = make_env) -> Any:
                return make_env(num_players=players)

            with reference_generator():
                before = aec_steps_per_s(make, seconds, seed)
            now = aec_steps_per_s(make, seconds, seed)
            bare = aec_steps_per_s(
                lambda players=players, floor=floor: floor(players, OBS_SIZE, NUM_ACTIONS),
                seconds,
                seed,
            )
            row[name] = {
                "reference_steps_per_s": before,
                "steps_per_s": now,
                "floor_steps_per_s": bare,
                "speedup": now / before,
                "vs_floor": now / bare,
            }
        out.append(row)
    return out


def bench_reference(games: list[GinnyGame]) -> dict[str, Any]:
    fast_t = ref_t = 0.0
    agree = 0
    for g in games:
        rack = [t for t in g.slots if 0 <= t != JOKER][:3]
        fast, dt = timed(generate, g.board, rack_counts(rack), max_tiles=3)
        ref, rt = timed(
            bf.brute_force_placements, g.board.card, g.board.joker, g.board.region, rack
        )
        fast_t += dt
        ref_t += rt
        agree += {p.tiles: p.score for p in fast} == ref
    return {
        "positions": len(games),
        "generator_ms": 1000 * fast_t / len(games),
        "reference_ms": 1000 * ref_t / len(games),
        "speedup": ref_t / fast_t,
        "agreeing_positions": agree,
    }


def bench_dead(games: list[GinnyGame]) -> dict[str, Any]:
    early = full = 0.0
    found = 0
    sample = games[:10]
    for g in sample:
        unplayed = list(g.box) + [t for r in g.racks for t in r]
        counts = rack_counts(unplayed)
        _one, dt = timed(generate, g.board, counts, max_tiles=8, limit=1)
        every, ft = timed(generate, g.board, counts, max_tiles=8)
        early += dt
        full += ft
        found += len(every)
    return {
        "positions": len(sample),
        "early_exit_ms": 1000 * early / len(sample),
        "without_limit_ms": 1000 * full / len(sample),
        "mean_placements_without_limit": found / len(sample),
        "ratio": full / early,
    }


def bench_games(count: int, seed: int) -> list[dict[str, Any]]:
    out = []
    for players in (2, 4):
        for biased in (False, True):
            gen = np.random.default_rng(seed)
            turns = decisions = 0
            t = time.perf_counter()
            for _ in range(count):
                game = GinnyGame(GinnyConfig(num_players=players), int(gen.integers(2**62)))
                while not game.game_over:
                    game.step(random_action(game, gen, biased))
                    decisions += 1
                turns += game.turn
            dt = time.perf_counter() - t
            out.append(
                {
                    "players": players,
                    "player": "placement-biased" if biased else "uniform",
                    "games": count,
                    "turns_per_game": turns / count,
                    "turns_per_s": turns / dt,
                    "decisions_per_s": decisions / dt,
                }
            )
    return out


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark and print it (or JSON): ``gnome bench --game ginny_o``."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=30, help="positions to time (>= 3)")
    parser.add_argument("--games", type=int, default=10, help="games per game row (>= 1)")
    parser.add_argument(
        "--seconds", type=float, default=3.0, help="wall time of each env row (> 0)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.positions < 3 or args.games < 1 or not args.seconds > 0:
        parser.error("--positions must be >= 3, --games >= 1 and --seconds > 0")
    games = positions(args.positions, args.seed)
    result = {
        "machine": f"{platform.machine()} {platform.python_implementation()} "
        f"{platform.python_version()}",
        "generator": bench_generator(games),
        "reference": bench_reference(games),
        "dead_check": bench_dead(games),
        "env": bench_env(args.seconds, args.seed),
        "games": bench_games(args.games, args.seed),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    g, r, d = result["generator"], result["reference"], result["dead_check"]
    print(f"Ginny-O speed on {result['machine']} (one core; compare ratios of one run)")
    state = "compiled" if g["compiled"] else "NOT compiled (numba missing): plain Python"
    print(
        f"generator, full rack, {g['positions']} positions, mean {g['mean_board_tiles']:.0f} "
        f"tiles on the board, {g['mean_placements']:.0f} placements: reference "
        f"{g['reference_ms']:.2f} ms/decision point (max {g['reference_max_ms']:.1f}), "
        f"{state} {g['compiled_ms']:.3f} ms (max {g['compiled_max_ms']:.2f}): "
        f"x{g['speedup']:.1f}; {g['agreeing_positions']}/{g['positions']} positions agree"
    )
    if g["crowded_positions"]:
        print(
            f"  crowded boards (>= 40 tiles), {g['crowded_positions']} positions: reference "
            f"{g['crowded_reference_ms']:.2f} ms, compiled {g['crowded_compiled_ms']:.3f} ms: "
            f"x{g['crowded_speedup']:.1f} (target >= x20)"
        )
    print(
        f"reference (3-tile racks, no jokers): brute force {r['reference_ms']:.1f} ms, "
        f"generator {r['generator_ms']:.3f} ms: x{r['speedup']:,.0f}; "
        f"{r['agreeing_positions']}/{r['positions']} positions agree exactly"
    )
    print(
        f"dead check (G29b, box not empty): early exit {d['early_exit_ms']:.2f} ms vs "
        f"{d['without_limit_ms']:.1f} ms listing all {d['mean_placements_without_limit']:,.0f} "
        f"placements: x{d['ratio']:,.0f}"
    )
    for row in result["env"]:
        for name in ("env", "raw_env"):
            e = row[name]
            print(
                f"ginny_o_v0.{name}(), {row['players']} players, random legal play: "
                f"{e['steps_per_s']:,.0f} steps/s (with the reference generator "
                f"{e['reference_steps_per_s']:,.0f}: x{e['speedup']:.1f}); do-nothing AEC env "
                f"of the same spaces{' behind the standard wrappers' if name == 'env' else ''} "
                f"{e['floor_steps_per_s']:,.0f}: {e['vs_floor']:.3f} of it"
            )
    for row in result["games"]:
        print(
            f"games, {row['players']} players, {row['player']}: {row['turns_per_game']:.0f} "
            f"turns/game, {row['turns_per_s']:.0f} turns/s, {row['decisions_per_s']:.0f} "
            "decisions/s"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
