"""Tianshou DQN for one seat of Gnoming A Round, the other seats played by our bots.

Shows the PettingZoo env with Tianshou's multi-agent API as in Tianshou's tic-tac-toe
example: ``PettingZooEnv(gnoming_a_round_v1.env(...))``, a ``MultiAgentOffPolicyAlgorithm``
with a DQN learner on ``player_0`` (Q-values masked by the env's action mask) and a
never-learning algorithm per bot seat, ``DummyVectorEnv`` + ``Collector`` +
``VectorReplayBuffer`` and Tianshou's off-policy trainer. The learned Q-network is then
evaluated in our arena against n-1 random, greedy and expert bots.

Run (in a venv with Tianshou; tested with Python 3.11, tianshou 2.0.1, torch 2.13.0 CPU,
gymnasium 1.4.0, pettingzoo 1.27.0, numpy 2.4.6, numba 0.68.1):

    python examples/tianshou_dqn.py --players 4 --steps 20000 --opponents random \
        --eval-games 200 --out dqn.json

Tianshou's multi-agent scheme (library behaviour): all seats' transitions share one buffer
in play order and each sampled batch is split by seat, so the learner gets ~1/n of it
(hence a batch of 64 x n). Its n-step target bootstraps from whichever seat acts n steps
later, and a game's reward (``reward_mode="win"``: +-1 split at the end) reaches the
learner only if the game ends within n env steps of one of its decisions -- hence an
n-step horizon of 3 x players. The "Sequence has shape (k, n)" log lines are Tianshou's
statistics meeting per-seat returns; harmless.

Determinism: the same --seed gives the same figures on CPU. Tianshou's epsilon-greedy
draws from numpy's global generator, so that one is seeded globally; the replay buffer
samples from its own generator, which Tianshou seeds with 42.
"""

from __future__ import annotations

import argparse
import json
import math
import time

import numpy as np
import torch
from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm, TrainingStats
from tianshou.algorithm.algorithm_base import Policy as TianshouPolicy
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import gnome_env
from agents.gnoming.arena import run_arena
from agents.gnoming.registry import make_agent
from gnome_env.gnoming import gnoming_a_round_v1

NUM_ENVS = 16
BUFFER_SIZE = 50_000  # transitions of all seats
BATCH_SIZE = 64  # learner transitions per gradient step (the sampled batch is 64 x n)
UPDATES_PER_DECISION = 0.25  # gradient steps per learner decision
HIDDEN = [256, 256]
LR = 3e-4
GAMMA = 0.999  # a game is ~550 env steps with 4 players; the reward comes at its end
TARGET_UPDATE = 500
EVAL_OPPONENTS = ("random", "greedy", "expert")


def make_env(num_players: int) -> PettingZooEnv:
    return PettingZooEnv(gnoming_a_round_v1.env(num_players=num_players))


class BotAlgorithm(OffPolicyAlgorithm):
    """One of our bots as a Tianshou algorithm that plays but never learns."""

    class Policy(TianshouPolicy):
        def __init__(self, bot, action_space) -> None:
            super().__init__(action_space=action_space)
            self.bot = bot

        def forward(self, batch, state=None, **kwargs):
            obs = np.asarray(batch.obs.obs, dtype=np.float32)
            mask = np.asarray(batch.obs.mask, dtype=np.int8)
            return Batch(act=np.array([self.bot.act(o, m) for o, m in zip(obs, mask, strict=True)]))

    def __init__(self, bot, action_space) -> None:
        super().__init__(policy=self.Policy(bot, action_space))

    def _update_with_batch(self, batch) -> TrainingStats:
        return TrainingStats()


class QAgent:
    """The trained Q-network as an arena agent: the legal action with the highest Q."""

    def __init__(self, net: torch.nn.Module) -> None:
        self.net = net

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        with torch.no_grad():
            q = self.net(observation[None])[0][0].numpy()
        return int(np.flatnonzero(mask)[np.argmax(q[mask != 0])])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--steps", type=int, default=20_000, help="learner decisions to train")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--opponents", default="random", help="bot spec for the other seats")
    p.add_argument("--eval-games", type=int, default=200, help="arena games per opponent")
    p.add_argument("--out", default=None, help="write the figures to this JSON file")
    return p.parse_args(argv)


def train(args: argparse.Namespace) -> tuple[MultiAgentOffPolicyAlgorithm, Collector, dict]:
    n = args.players
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # a small MLP: more threads only contend on a few CPU cores
    np.random.seed(args.seed)  # Tianshou's epsilon-greedy uses numpy's global generator
    env = make_env(n)
    config = gnome_env.RulesConfig(num_players=n)
    net = Net(
        state_shape=env.observation_space["observation"].shape,
        action_shape=env.action_space.n,
        hidden_sizes=HIDDEN,
    )
    learner = DQN(
        policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=1.0),
        optim=AdamOptimizerFactory(lr=LR),
        gamma=GAMMA,
        n_step_return_horizon=3 * n,
        target_update_freq=TARGET_UPDATE,
    )
    bots = [
        BotAlgorithm(make_agent(args.opponents, args.seed + i, config), env.action_space)
        for i in range(1, n)
    ]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *bots], env=env)

    train_envs = DummyVectorEnv([lambda: make_env(n) for _ in range(NUM_ENVS)])
    train_envs.seed(args.seed)
    collector = Collector[CollectStats](
        algorithm, train_envs, VectorReplayBuffer(BUFFER_SIZE, NUM_ENVS), exploration_noise=True
    )
    collector.reset()

    # --steps counts the learner's decisions; the trainer counts every seat's (about n times
    # as many). Epsilon falls linearly from 1 to 0.05 over the first half of training.
    env_steps = args.steps * n
    epoch_steps = min(env_steps, 10_000)

    def set_eps(epoch: int, env_step: int) -> None:
        learner.policy.set_eps_training(max(0.05, 1 - env_step / (0.5 * env_steps)))

    start = time.perf_counter()
    result = algorithm.run_training(
        OffPolicyTrainerParams(
            training_collector=collector,
            max_epochs=math.ceil(env_steps / epoch_steps),
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=10 * NUM_ENVS,
            update_step_num_gradient_steps_per_sample=UPDATES_PER_DECISION / n,
            batch_size=BATCH_SIZE * n,
            training_fn=set_eps,
            multi_agent_return_reduction=lambda rews: rews[:, 0],
        )
    )
    seconds = time.perf_counter() - start
    timing = {
        "env_steps": int(result.train_step),
        "train_seconds": round(seconds, 2),
        "learner_steps_per_s": round(result.train_step / n / seconds, 1),
    }
    return algorithm, collector, timing


def evaluate(net: torch.nn.Module, args: argparse.Namespace) -> dict:
    n = args.players
    net.eval()
    table = {}
    for spec in EVAL_OPPONENTS:
        arena = run_arena(
            [lambda seed, config: QAgent(net)] + [spec] * (n - 1),
            n,
            args.eval_games,
            seed=args.seed,
            workers=1,
            progress=False,
        )
        me, others = arena.stats[0], arena.stats[1:]
        table[spec] = {
            "games": me.games,
            "win_rate": me.win_rate,
            "ci_low": me.ci_low,
            "ci_high": me.ci_high,
            "equal_share": 1 / n,
            "mean_round_score": me.mean_round_score,
            "opponents_mean_round_score": float(np.mean([s.mean_round_score for s in others])),
        }
    return table


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    algorithm, _, timing = train(args)
    table = evaluate(algorithm.get_algorithm("player_0").policy.model, args)
    print(
        f"trained ~{timing['env_steps'] // args.players} learner steps "
        f"({timing['learner_steps_per_s']}/s) against {args.opponents}"
    )
    print(f"{'vs n-1':<8}{'games':>6}  {'win rate [95% CI]':<22}{'1/n':>6}{'round score':>13}")
    for spec, row in table.items():
        ci = f"{row['win_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}]"
        print(
            f"{spec:<8}{row['games']:>6}  {ci:<22}{row['equal_share']:>6.3f}"
            f"{row['mean_round_score']:>13.2f}"
        )
    figures = {
        "players": args.players,
        "steps": args.steps,
        "seed": args.seed,
        "opponents": args.opponents,
        "timing": timing,
        "eval": table,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(figures, f, indent=2)
    return figures


if __name__ == "__main__":
    main()
