"""sb3-contrib MaskablePPO on the Nerts single-seat Gymnasium env, built by SB3's ``make_vec_env``.

What it shows: the env id goes straight into ``make_vec_env`` with its defaults (a
``DummyVecEnv``, ``render_mode="rgb_array"``; ``--vec-env subproc`` for a ``SubprocVecEnv``);
the other seats are Nerts bots named by their agent specs (``--opponents greedy``, built by
``agents.nerts.registry.make_nerts_agent`` with a fresh seed every episode);
``MaskablePPO`` finds the legal-action masks through the env's ``action_masks()`` method; a
``MaskableEvalCallback`` evaluates on a separate vec env while training; and the trained model
then plays one-hand Nerts games against the bots in the project's arena.

Run::

    python examples/sb3_nerts_maskable.py --players 2 --steps 50000 --opponents greedy \
        --eval-games 100 --out nerts_sb3_figures.json

``--players`` takes one seat count (``2``) or a list (``2,4``: every episode draws its count).
``--variance-reduction`` adds the luck-corrected win rate, its interval and the
variance-reduction factor to every arena row (docs/arena.md, "Luck correction").
Tested with stable-baselines3 2.9.2, sb3-contrib 2.9.2, gymnasium 1.4.0, torch 2.13 (CPU).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import tempfile
import time

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import gnome_env  # noqa: F401  (registers gnome_env/Nerts-v0)
from agents.core.arena import one_against_bots
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig
from gnome_env.nerts.encoding import NertsEncoder

ENV_ID = "gnome_env/Nerts-v0"
VEC_ENVS = {"dummy": DummyVecEnv, "subproc": SubprocVecEnv}


class SB3NertsAgent:
    """The trained model as a Nerts bot (``decide(view) -> int``): its most likely legal action."""

    def __init__(self, model: MaskablePPO) -> None:
        self.model = model
        self.encoders: dict[NertsConfig, NertsEncoder] = {}

    def decide(self, view) -> int:
        encoder = self.encoders.setdefault(view.config, NertsEncoder(view.config))
        mask = encoder.mask(view).astype(bool)
        action, _ = self.model.predict(encoder.encode(view), action_masks=mask, deterministic=True)
        return int(action)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2", help="seat count or list, e.g. 2 or 2,4")
    parser.add_argument("--steps", type=int, default=50_000, help="training timesteps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", default="random", help="a Nerts agent spec: random, greedy")
    parser.add_argument("--n-envs", type=int, default=2, help="environments of the vec env")
    parser.add_argument("--n-steps", type=int, default=512, help="PPO rollout length per env")
    parser.add_argument("--batch-size", type=int, default=64, help="PPO minibatch size")
    parser.add_argument("--vec-env", choices=sorted(VEC_ENVS), default="dummy")
    parser.add_argument("--max-steps-per-hand", type=int, default=1000, help="N28 step cap")
    parser.add_argument("--eval-episodes", type=int, default=5, help="episodes per evaluation")
    parser.add_argument("--eval-games", type=int, default=100, help="arena games (0: none)")
    parser.add_argument(
        "--eval-opponents",
        help="arena opponent specs, e.g. random,greedy,expert (default: --opponents)",
    )
    parser.add_argument("--log-dir", help="for evaluations.npz (default: a new temp dir)")
    parser.add_argument("--save", help="save the model here")
    parser.add_argument("--out", help="write the figures to this JSON file")
    parser.add_argument(
        "--variance-reduction",
        action="store_true",
        help="also report the luck-corrected win rate and variance-reduction factor of every "
        "arena row (docs/arena.md, 'Luck correction'; the plain figures do not change)",
    )
    args = parser.parse_args(argv)
    try:
        args.players = [int(p) for p in args.players.split(",")]
        for n in args.players:
            NertsConfig(num_players=n, max_steps_per_hand=args.max_steps_per_hand)
        make_nerts_agent(args.opponents, 0)  # an unknown spec names the known ones
        args.eval_opponents = (args.eval_opponents or args.opponents).split(",")
        for spec in args.eval_opponents:
            make_nerts_agent(spec, 0)
    except ValueError as err:
        parser.error(str(err))
    for name in ("steps", "n_envs", "n_steps", "batch_size", "eval_episodes"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.eval_games < 0:
        parser.error("--eval-games must be at least 0")
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(1)  # one thread: same seed, same model (and no oversubscription)
    players = args.players[0] if len(args.players) == 1 else args.players
    # A factory(seed, config): the env builds fresh seeded bots every episode.
    opponents = functools.partial(make_nerts_agent, args.opponents)
    env_kwargs = dict(
        num_players=players,
        opponents=opponents,
        learner_seat="random",
        max_steps_per_hand=args.max_steps_per_hand,
    )
    vec_cls = VEC_ENVS[args.vec_env]
    # make_vec_env's defaults, as in SB3's docs; only the env id and its kwargs are ours.
    vec_env = make_vec_env(
        ENV_ID, n_envs=args.n_envs, seed=args.seed, vec_env_cls=vec_cls, env_kwargs=env_kwargs
    )
    eval_env = make_vec_env(
        ENV_ID, n_envs=1, seed=args.seed + 1000, vec_env_cls=vec_cls, env_kwargs=env_kwargs
    )
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="sb3_nerts_eval_")
    eval_callback = MaskableEvalCallback(
        eval_env,
        n_eval_episodes=args.eval_episodes,
        eval_freq=max(args.steps // (2 * args.n_envs), 1),  # about 2 evaluations
        log_path=log_dir,
        deterministic=True,
        verbose=0,
    )
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        seed=args.seed,
        verbose=0,
    )
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
    figures["arena"] = arena_rows(model, args) if args.eval_games else []
    print(f"trained {model.num_timesteps} steps in {train_s:.1f} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(figures, f, indent=2)
    return figures


def arena_rows(model: MaskablePPO, args: argparse.Namespace) -> list[dict]:
    """The trained model in the arena: one seat against n - 1 bots, seats rotated, one hand
    per game, arena seed ``--seed``; one row (and one printed line) per seat count and
    opponent spec of ``--eval-opponents``."""
    rules = {"max_hands": 1, "max_steps_per_hand": args.max_steps_per_hand}
    return one_against_bots(
        lambda seed, config: SB3NertsAgent(model),
        args.players,
        args.eval_opponents,
        args.eval_games,
        args.seed,
        rules,
        "nerts",
        variance_reduction=args.variance_reduction,
    )


if __name__ == "__main__":
    main()
