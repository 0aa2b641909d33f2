"""Self-play with sb3-contrib MaskablePPO on the PettingZoo AEC env, then an n-player evaluation.

What it shows: the pattern of PettingZoo's "SB3: Action Masked PPO" tutorial -- a small
wrapper turns the AEC env into one single-agent ``gymnasium.Env`` in which every decision of
every seat is a step, so one model plays all seats -- written for gymnasium >= 1. (The
tutorial's wrapper is a ``pettingzoo.utils.BaseWrapper``, which ``ActionMasker``, a
``gymnasium.Wrapper``, refuses there: ``TypeError: Expected env to be a `gymnasium.Env```.
This one subclasses ``gymnasium.Env``.) Its ``action_masks()`` method is what ``MaskablePPO``
reads, so no ``ActionMasker`` is needed.

Rewards: each seat is handed what the env paid it since its previous decision, and when the
game is over every seat gets one closing step (the AEC's "step None for a done agent", with a
single allowed action) that hands it the rest; so per seat they add up to the env's rewards.
Instead of the tutorial's two-player win rate, the model then plays n-player arena games
against n - 1 ``random``, ``greedy`` and ``expert`` bots.

Caveat of the pattern (not of the env): one trajectory interleaves the seats, so PPO's
advantages mix the seats' points of view. For cleaner training use a per-seat setup (the
Gymnasium single-seat env, or a multi-agent library).

The default ``--steps`` trains for about 10-15 minutes on 2 shared CPU cores (measured
335-516 steps/s).

Run::

    python examples/sb3_selfplay_aec.py --players 4 --steps 300000 --eval-games 200 \
        --out selfplay_figures.json

Tested with stable-baselines3 2.9.2, sb3-contrib 2.9.2, gymnasium 1.4.0, pettingzoo 1.27.0,
torch 2.13 (CPU).
"""

from __future__ import annotations

import argparse
import json
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO

from agents.gnoming.arena import run_arena
from agents.gnoming.sb3_agent import SB3Agent  # the model's most likely legal action
from gnome_env.gnoming import gnoming_a_round_v1


class SelfPlayEnv(gymnasium.Env):
    """The AEC env as one single-agent env: the observation is always the deciding seat's."""

    metadata = {"render_modes": []}  # noqa: RUF012

    def __init__(self, num_players=4, reward_mode="score"):
        self.aec = gnoming_a_round_v1.env(num_players=num_players, reward_mode=reward_mode)
        first = self.aec.possible_agents[0]
        self.observation_space = self.aec.observation_space(first)["observation"]
        self.action_space = self.aec.action_space(first)
        self.returns = {}  # rewards handed out per seat in this game

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        self.owed = dict.fromkeys(self.aec.agents, 0.0)  # paid by the env, not handed out yet
        self.returns = dict.fromkeys(self.aec.agents, 0.0)
        return self._observe(), {}

    def _observe(self):
        obs = self.aec.observe(self.aec.agent_selection)
        self.mask = obs["action_mask"].astype(bool)
        if not self.mask.any():  # the game is over: a closing step, action 0 stands for None
            self.mask[0] = True
        return obs["observation"]

    def action_masks(self):
        return self.mask

    def step(self, action):
        if not self.mask[action]:
            raise ValueError(f"illegal action {action}: the model must use action_masks()")
        agent = self.aec.agent_selection
        done = self.aec.terminations[agent] or self.aec.truncations[agent]
        truncated = self.aec.truncations[agent]
        self.aec.step(None if done else int(action))
        for seat, paid in self.aec.rewards.items():
            self.owed[seat] += paid
        reward, self.owed[agent] = self.owed[agent], 0.0
        self.returns[agent] += reward
        if not self.aec.agents:  # every seat has had its closing step
            obs = self.aec.observe(agent)["observation"]
            return obs, reward, not truncated, truncated, {}
        return self._observe(), reward, False, False, {}


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="4", help="seat count or list, e.g. 4 or 3,4,5")
    parser.add_argument("--steps", type=int, default=300_000, help="training decisions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reward-mode", default="score", help="win, score or raw")
    parser.add_argument("--eval-games", type=int, default=200, help="arena games per opponent")
    parser.add_argument("--n-steps", type=int, default=2048, help="PPO rollout length")
    parser.add_argument("--out", help="write the figures to this JSON file")
    args = parser.parse_args(argv)
    args.players = [int(p) for p in args.players.split(",")]
    return args


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(1)  # one thread: same seed, same model
    players = args.players[0] if len(args.players) == 1 else args.players
    env = SelfPlayEnv(num_players=players, reward_mode=args.reward_mode)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, seed=args.seed, verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    train_s = time.perf_counter() - start
    figures = {
        "players": args.players,
        "reward_mode": args.reward_mode,
        "steps": model.num_timesteps,
        "train_seconds": round(train_s, 1),
        "steps_per_second": round(model.num_timesteps / train_s, 1),
        "arena": [],
    }
    print(f"trained {model.num_timesteps} steps in {train_s:.1f} s")
    print(
        f"{'seats':>5}  {'opponents':<9}  {'games':>5}  {'win rate [95% CI]':<22}  "
        f"{'1/n':>5}  {'round score':>11}"
    )
    for n in dict.fromkeys(args.players):
        for bot in ("random", "greedy", "expert"):
            lineup = [lambda seed, config: SB3Agent(model)] + [bot] * (n - 1)
            result = run_arena(lineup, n, args.eval_games, seed=args.seed, progress=False)
            me = result.stats[0]
            figures["arena"].append(
                {
                    "num_players": n,
                    "opponents": bot,
                    "games": me.games,
                    "win_rate": me.win_rate,
                    "ci_low": me.ci_low,
                    "ci_high": me.ci_high,
                    "equal_share": 1 / n,
                    "mean_round_score": me.mean_round_score,
                }
            )
            ci = f"{me.win_rate:.3f} [{me.ci_low:.3f}, {me.ci_high:.3f}]"
            print(
                f"{n:>5}  {bot:<9}  {me.games:>5}  {ci:<22}  {1 / n:>5.3f}  "
                f"{me.mean_round_score:>11.2f}"
            )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(figures, f, indent=2)
    return figures


if __name__ == "__main__":
    main()
