"""Pieces every game's speed benchmark shares (``gnome bench --game ...``).

* :class:`FloorEnv`: a turn-based AEC env that does nothing but has a game's observation
  and action sizes -- what any AEC env can reach in the benchmark loop (the *API floor*);
  :func:`wrapped_floor` puts it behind PettingZoo's standard classic-env wrappers;
* :func:`aec_steps_per_s`: that loop (``agent_iter``, ``last()``, a uniformly random legal
  action from the mask, ``step``) around any AEC env.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


# ---------------------------------------------------------------------- the API floor
class FloorEnv(AECEnv):
    """A turn-based AEC env that does nothing, with the observation/action sizes of ours.

    ``num_players`` agents act in turn for ``length`` steps, then every agent terminates.
    Observations are one preallocated float32 vector and an all-legal mask, so the only
    cost is PettingZoo's bookkeeping that every AEC env pays.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "name": "floor_v0",
        "render_modes": [],
        "is_parallelizable": False,
    }

    def __init__(self, num_players: int, obs_size: int, num_actions: int, length: int = 300):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(0.0, 1.0, (obs_size,), dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = dict.fromkeys(
            self.possible_agents, gymnasium.spaces.Discrete(num_actions)
        )
        self._obs = {
            "observation": np.zeros(obs_size, dtype=np.float32),
            "action_mask": np.ones(num_actions, dtype=np.int8),
        }
        self.length = length

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._turn = 0
        self._steps = 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._obs

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        self._steps += 1
        if self._steps >= self.length:
            self.terminations = dict.fromkeys(self.agents, True)
        self._turn = (self._turn + 1) % len(self.agents)
        self.agent_selection = self.agents[self._turn]
        self._accumulate_rewards()


def wrapped_floor(num_players: int, obs_size: int, num_actions: int) -> AECEnv:
    """:class:`FloorEnv` behind PettingZoo's standard classic-env wrappers."""
    env = FloorEnv(num_players, obs_size, num_actions)
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


def aec_steps_per_s(make_env: Callable[[], AECEnv], seconds: float, seed: int) -> float:
    """Steps/s of the standard AEC loop with uniformly random legal actions from the mask."""
    env = make_env()
    env.reset(seed=seed)  # one-time costs (numba loading its compiled kernels) off the clock
    rng = np.random.default_rng(seed)
    steps = 0
    episode = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for _agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
    elapsed = time.perf_counter() - start
    env.close()
    return steps / elapsed


__all__ = ["FloorEnv", "aec_steps_per_s", "wrapped_floor"]
