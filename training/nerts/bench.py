"""Nerts speed: the engine, the batched engine and the Parallel env with random legal
actions (not a test -- prints figures).

Usage: gnome bench --game nerts [--seconds 3] [--num-players 2 4 6] [--batch-size 1024]
[--seed 0] [--json] (or ``python bench/nerts_speed.py`` with the same options)

For each seat count, in one run and one process (one core), with one loop per API:

* ``engine``: :class:`gnome_env.nerts.NertsGame` stepped with one uniformly random legal
  action per seat (``legal_actions(seat)``), whole hands (``max_hands=1`` games);
* ``engine floor``: the same loop around :class:`FloorGame`, a do-nothing game with the same
  API, the same number of seats, legal lists of the engine's mean size and hands of the
  engine's mean length -- the cost of the loop itself;
* ``vector none`` / ``vector table`` / ``vector seats`` (numba only):
  :class:`gnome_env.nerts.vector.NertsVectorEngine` with ``batch_size`` games (auto-reset,
  one-hand episodes), random legal actions from ``sample_actions`` every step, writing masks
  only / one observation-sized table per game (seat 0's observation, from which every
  seat's is a fixed gather) / every seat's float32 observation; ``step_decisions_per_s``
  leaves out drawing the actions;
* ``env``: ``parallel_env(num_players=P)`` in the standard Parallel loop (``reset``, then
  ``step`` with one random legal action per agent drawn from its ``action_mask``, until
  every agent is done) -- on the compiled single-game path when numba is there;
  ``env python``: the same env on the pure-Python engine (``use_kernels = False``);
* ``env floor``: the same loop around :class:`FloorParallelEnv`, a do-nothing PettingZoo
  ``ParallelEnv`` with the same agents, observation and action spaces and episode length,
  returning preallocated observations -- what any Parallel env pays in this loop.

Figures are steps/s (one step = one action for every seat of a game; for the batched engine
``batch_size`` game steps per call) and seat decisions/s, on one core; the machines are
shared and noisy, so compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import ParallelEnv

from gnome_env.core.jit import COMPILED
from gnome_env.nerts import NertsConfig, NertsGame


# ---------------------------------------------------------------------- the do-nothing floors
class FloorGame:
    """A do-nothing game with NertsGame's stepping API: ``num_players`` seats, a fixed legal
    list of ``legal_size`` ids per seat, and hands of ``length`` steps."""

    def __init__(self, num_players: int, legal_size: int, length: int) -> None:
        self.num_players = num_players
        self._legal = list(range(legal_size))
        self.length = length
        self.steps = 0
        self.hand_over = False

    def legal_actions(self, seat: int) -> list[int]:
        return self._legal

    def step(self, actions: list[int]) -> None:
        self.steps += 1
        self.hand_over = self.steps >= self.length


class FloorParallelEnv(ParallelEnv):
    """A do-nothing Parallel env with given agents, spaces and episode length: every step
    returns the same preallocated observation (all actions legal) for every agent."""

    metadata: ClassVar[dict[str, Any]] = {"name": "nerts_floor_v0", "is_parallelizable": True}

    def __init__(
        self,
        agents: list[str],
        observation_space: gymnasium.spaces.Dict,
        action_space: gymnasium.spaces.Discrete,
        length: int,
    ) -> None:
        self.possible_agents = list(agents)
        self.agents = list(agents)
        self.observation_spaces = dict.fromkeys(agents, observation_space)
        self.action_spaces = dict.fromkeys(agents, action_space)
        shape = observation_space["observation"].shape
        self._obs = {
            "observation": np.zeros(shape, dtype=np.float32),
            "action_mask": np.ones(action_space.n, dtype=np.int8),
        }
        self.length = length
        self._steps = 0

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        self.agents = list(self.possible_agents)
        self._steps = 0
        return dict.fromkeys(self.agents, self._obs), {a: {} for a in self.agents}

    def step(self, actions: dict[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        self._steps += 1
        done = self._steps >= self.length
        agents = self.agents
        obs = dict.fromkeys(agents, self._obs)
        rewards = dict.fromkeys(agents, 0.0)
        terms = dict.fromkeys(agents, done)
        truncs = dict.fromkeys(agents, False)
        infos = {a: {} for a in agents}
        if done:
            self.agents = []
        return obs, rewards, terms, truncs, infos


# ---------------------------------------------------------------------- the loops
def engine_loop(make_game: Any, seconds: float, seed: int) -> dict[str, float]:
    """Steps of whole hands with one uniformly random legal action per seat, for about
    ``seconds``; also the mean legal-list size and hand length (for the floor)."""
    rng = np.random.default_rng(seed)
    steps = hands = legal_total = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        game = make_game(seed + hands)
        p = game.num_players
        while not game.hand_over:
            actions = []
            for seat in range(p):
                legal = game.legal_actions(seat)
                legal_total += len(legal)
                actions.append(legal[int(rng.integers(len(legal)))])
            game.step(actions)
            steps += 1
        hands += 1
    elapsed = time.perf_counter() - start
    return {
        "steps_per_s": steps / elapsed,
        "decisions_per_s": steps * p / elapsed,
        "mean_legal": legal_total / (steps * p),
        "steps_per_hand": steps / hands,
        "hands": hands,
    }


def parallel_loop(env: ParallelEnv, seconds: float, seed: int) -> dict[str, float]:
    """Steps/s of the standard Parallel loop, random legal actions drawn from the masks."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)  # one-time costs off the clock
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _ = env.reset(seed=seed + episodes)
        episodes += 1
        while env.agents:
            actions = {}
            for agent in env.agents:
                legal = np.flatnonzero(obs[agent]["action_mask"])
                actions[agent] = int(legal[rng.integers(len(legal))])
            obs, _, _, _, _ = env.step(actions)
            steps += 1
    elapsed = time.perf_counter() - start
    p = len(env.possible_agents)
    return {
        "steps_per_s": steps / elapsed,
        "decisions_per_s": steps * p / elapsed,
        "steps_per_episode": steps / episodes,
        "episodes": episodes,
    }


def vector_loop(
    config: NertsConfig, batch_size: int, observations: str, seconds: float, seed: int
) -> dict[str, float]:
    """Decisions/s of :class:`NertsVectorEngine` stepped with random legal actions."""
    from gnome_env.nerts.vector import NertsVectorEngine

    vec = NertsVectorEngine(config, batch_size, observations=observations)
    vec.reset(seed=seed)
    gen = np.random.default_rng(seed)
    for _ in range(3):  # one-time costs off the clock
        vec.step(vec.sample_actions(gen))
    steps = 0
    in_step = 0.0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = vec.sample_actions(gen)
        t0 = time.perf_counter()
        vec.step(actions)
        in_step += time.perf_counter() - t0
        steps += 1
    elapsed = time.perf_counter() - start
    games = steps * batch_size
    return {
        "steps_per_s": games / elapsed,
        "decisions_per_s": games * config.num_players / elapsed,
        "step_decisions_per_s": games * config.num_players / in_step,
        "batch_size": batch_size,
        "calls": steps,
    }


def measure(players: int, seconds: float, seed: int, batch_size: int) -> list[dict[str, Any]]:
    """The engine, batched engine, env and floor rows of one seat count."""
    config = NertsConfig(num_players=players, max_hands=1)
    rows = []
    engine = engine_loop(lambda s: NertsGame(config, s), seconds, seed)
    floor = engine_loop(
        lambda s: FloorGame(
            players, max(1, round(engine["mean_legal"])), round(engine["steps_per_hand"])
        ),
        seconds,
        seed,
    )
    rows.append({"players": players, "what": "engine", **engine})
    rows.append({"players": players, "what": "engine floor", **floor})
    if COMPILED:
        for mode in ("none", "table", "seats"):
            measured = vector_loop(config, batch_size, mode, seconds, seed)
            rows.append({"players": players, "what": f"vector {mode}", **measured})
    try:
        from gnome_env.nerts import nerts_v0
    except ImportError as err:
        print(f"(no env rows: gnome_env.nerts.nerts_v0 cannot be imported: {err})")
        return rows
    env = nerts_v0.parallel_env(num_players=players)
    measured = parallel_loop(env, seconds, seed)
    agent = env.possible_agents[0]
    floor_env = FloorParallelEnv(
        env.possible_agents,
        env.observation_space(agent),
        env.action_space(agent),
        max(1, round(measured["steps_per_episode"])),
    )
    rows.append({"players": players, "what": "env", **measured})
    if COMPILED:
        python_env = nerts_v0.parallel_env(num_players=players)
        python_env.use_kernels = False
        rows.append(
            {"players": players, "what": "env python", **parallel_loop(python_env, seconds, seed)}
        )
    rows.append(
        {"players": players, "what": "env floor", **parallel_loop(floor_env, seconds, seed)}
    )
    return rows


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark and print a table (or JSON): ``gnome bench --game nerts``."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure (default 3)")
    parser.add_argument(
        "--num-players", "--players", dest="players", type=int, nargs="+", default=[2, 4, 6]
    )
    parser.add_argument(
        "--batch-size", type=int, default=1024, help="games of the batched engine (default 1024)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or any(not 2 <= p <= 6 for p in args.players):
        parser.error("--seconds must be > 0 and every --num-players value 2..6")
    if args.batch_size < 1:
        parser.error("--batch-size must be >= 1")
    if not 0 <= args.seed < 2**63:
        parser.error("--seed must be an integer from 0 to 2**63 - 1")

    rows = [
        row for p in args.players for row in measure(p, args.seconds, args.seed, args.batch_size)
    ]
    info = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "numba": _numba_version(),
    }
    if args.json:
        print(json.dumps({"info": info, "rows": rows}, indent=1))
        return 0
    print(
        f"Nerts, random legal actions, one core, Python {info['python']} ({info['machine']}), "
        f"numba {info['numba'] or 'absent (no vector rows; the env runs the Python engine)'}"
    )
    print(f"{'players':>7}  {'what':<13} {'steps/s':>10} {'decisions/s':>12}  {'vs floor':>8}")
    floors = {(r["players"], r["what"]): r["steps_per_s"] for r in rows if "floor" in r["what"]}
    for r in rows:
        base = "env" if r["what"].startswith("env ") else r["what"]
        floor = floors.get((r["players"], f"{base} floor"))
        ratio = f"{r['steps_per_s'] / floor:8.3f}" if floor and "floor" not in r["what"] else ""
        print(
            f"{r['players']:>7}  {r['what']:<13} {r['steps_per_s']:>10,.0f} "
            f"{r['decisions_per_s']:>12,.0f}  {ratio:>8}"
        )
    print(
        "vs floor: steps/s divided by the do-nothing floor of the same seats, legal-list size "
        "and hand length (engine) or agents, spaces and episode length (env, env python)"
    )
    if any(r["what"].startswith("vector") for r in rows):
        print(
            f"vector: B = {args.batch_size} games per call, steps/s counts game steps; "
            "none = masks only, table = + one observation-sized row per game, seats = + every "
            "seat's observation; decisions/s include drawing the random actions"
        )
    return 0


def _numba_version() -> str | None:
    """numba's version when the kernels are compiled, else None."""
    if not COMPILED:
        return None
    import numba

    return numba.__version__


if __name__ == "__main__":
    raise SystemExit(main())
