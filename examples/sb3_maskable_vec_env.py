"""sb3-contrib MaskablePPO on the Gymnasium single-seat env, built by SB3's ``make_vec_env``.

What it shows: the env id goes straight into ``make_vec_env`` (with its default
``render_mode="rgb_array"``) and a ``SubprocVecEnv``; ``MaskablePPO`` finds the legal-action
masks through the env's ``action_masks()`` method (sb3-contrib calls it with
``env_method``), a ``MaskableEvalCallback`` evaluates on a separate vec env while training,
and the trained model then plays n-player games against the bots in the project's arena.

Run::

    python examples/sb3_maskable_vec_env.py --players 4 --steps 50000 --opponents greedy \
        --eval-games 200 --eval-opponents random,greedy,expert --out sb3_figures.json

``--players`` takes one seat count (``4``) or a list (``3,4,5``: every game draws its count).
``--variance-reduction`` adds the luck-corrected win rate, its interval and the
variance-reduction factor to every arena row (docs/arena.md, "Luck correction").
Tested with stable-baselines3 2.9.2, sb3-contrib 2.9.2, gymnasium 1.4.0, torch 2.13 (CPU).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

import gnome_env  # noqa: F401  (registers gnome_env/GnomingARound-v1)
from agents.core.arena import corrected_fields, corrected_text
from agents.gnoming.arena import run_arena
from agents.gnoming.registry import make_agent
from agents.gnoming.sb3_agent import SB3Agent  # the model's most likely legal action
from gnome_env.gnoming import RulesConfig

ENV_ID = "gnome_env/GnomingARound-v1"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="4", help="seat count or list, e.g. 4 or 3,4,5")
    parser.add_argument("--steps", type=int, default=50_000, help="training timesteps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", default="random", help="random, greedy or expert")
    parser.add_argument("--eval-games", type=int, default=200, help="arena games per seat count")
    parser.add_argument("--n-steps", type=int, default=512, help="PPO rollout length per env")
    parser.add_argument("--log-dir", help="for evaluations.npz (default: a new temp dir)")
    parser.add_argument(
        "--eval-opponents", help="arena opponents, e.g. random,greedy,expert (default --opponents)"
    )
    parser.add_argument("--save", help="save the model here (the arena loads it as sb3:PATH)")
    parser.add_argument("--out", help="write the figures to this JSON file")
    parser.add_argument(
        "--variance-reduction",
        action="store_true",
        help="also report the luck-corrected win rate and variance-reduction factor of every "
        "arena row (docs/arena.md, 'Luck correction'; the plain figures do not change)",
    )
    args = parser.parse_args(argv)
    args.players = [int(p) for p in args.players.split(",")]
    args.eval_opponents = (args.eval_opponents or args.opponents).split(",")
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(1)  # one thread: same seed, same model (and no oversubscription)
    players = args.players[0] if len(args.players) == 1 else args.players
    # The other seats: one bot per seat of the largest game (the env uses the first n - 1).
    most = max(args.players)
    rules = RulesConfig(num_players=most)
    seeds = np.random.SeedSequence(args.seed).generate_state(most - 1)  # a seeded stream
    bots = [make_agent(args.opponents, int(s), rules) for s in seeds]
    env_kwargs = dict(num_players=players, opponents=bots, learner_seat="random")

    # make_vec_env's defaults, as in SB3's docs; only the env id and its kwargs are ours.
    vec_env = make_vec_env(
        ENV_ID, n_envs=2, seed=args.seed, vec_env_cls=SubprocVecEnv, env_kwargs=env_kwargs
    )
    eval_env = make_vec_env(
        ENV_ID, n_envs=1, seed=args.seed + 1000, vec_env_cls=SubprocVecEnv, env_kwargs=env_kwargs
    )
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="sb3_eval_")
    eval_callback = MaskableEvalCallback(
        eval_env,
        n_eval_episodes=5,
        eval_freq=max(args.steps // (2 * 4), 1),  # about 4 evaluations (calls per sub-env)
        log_path=log_dir,
        deterministic=True,
        verbose=0,
    )
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=args.n_steps, seed=args.seed, verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=eval_callback)
    train_s = time.perf_counter() - start
    figures = {
        "players": args.players,
        "opponents": args.opponents,
        "steps": model.num_timesteps,
        "train_seconds": round(train_s, 1),
        "steps_per_second": round(model.num_timesteps / train_s, 1),
        "vec_env": type(vec_env).__name__,
        "render_mode": vec_env.get_attr("render_mode"),
        "eval_log": os.path.join(log_dir, "evaluations.npz"),
        "eval_timesteps": [int(t) for t in eval_callback.evaluations_timesteps],
        "eval_mean_rewards": [float(np.mean(r)) for r in eval_callback.evaluations_results],
    }
    vec_env.close()
    eval_env.close()
    if args.save:
        model.save(args.save)

    # The trained model in the arena: one seat against n - 1 bots, seats rotated.
    figures["arena"] = []
    head = (
        f"{'seats':>5}  {'opponents':<10} {'games':>5}  {'win rate [95% CI]':<22}  "
        f"{'1/n':>5}  {'round score':>11}"
    )
    if args.variance_reduction:
        head += f"  {'luck-corrected [95% CI]':<25}  {'var. red.':>9}"
    print(head)
    for n, bot in [(n, bot) for n in dict.fromkeys(args.players) for bot in args.eval_opponents]:
        lineup = [lambda seed, config: SB3Agent(model)] + [bot] * (n - 1)
        result = run_arena(
            lineup,
            n,
            args.eval_games,
            seed=args.seed,
            workers=1,
            progress=False,
            variance_reduction=args.variance_reduction,
        )
        me = result.stats[0]
        row = {
            "num_players": n,
            "opponents": bot,
            "games": me.games,
            "win_rate": me.win_rate,
            "ci_low": me.ci_low,
            "ci_high": me.ci_high,
            "equal_share": 1 / n,
            "mean_round_score": me.mean_round_score,
        }
        ci = f"{me.win_rate:.3f} [{me.ci_low:.3f}, {me.ci_high:.3f}]"
        score = f"{me.mean_round_score:>11.2f}"
        line = f"{n:>5}  {bot:<10} {me.games:>5}  {ci:<22}  {1 / n:>5.3f}  {score}"
        if args.variance_reduction:
            row.update(corrected_fields(me))
            line += "  " + corrected_text(me)
        figures["arena"].append(row)
        print(line)
    print(f"trained {model.num_timesteps} steps in {train_s:.1f} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(figures, f, indent=2)
    return figures


if __name__ == "__main__":
    main()
