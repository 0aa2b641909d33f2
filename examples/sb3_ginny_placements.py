"""sb3-contrib MaskablePPO on Ginny-O's whole-turn action mode, then the arena.

One action is one whole turn (``gnome_env.ginny_o.placement_env.GinnyPlacementEnv``): one of
the best ``--max-candidates`` placements by score, each described by its features (score,
tiles, jokers, premium squares, the rack it leaves), a return of one tile or of all, or a
pass. The policy is SB3's ``MultiInputPolicy`` over the ``Dict`` observation; masks come
from ``action_masks()``. The trained model then plays in the Ginny-O arena as a bot
(:class:`WholeTurnAgent`: at the start of each of its turns it picks a whole-turn action
from its own view and plays that action's atomic ids) against n-1 copies of each of
``--eval-opponents``.

Run:  python examples/sb3_ginny_placements.py --players 2 --turns 20000 --opponents greedy \\
          --eval-opponents random,greedy,expert --eval-games 400 --seed 11

``--variance-reduction`` adds the luck-corrected win rate, its interval and the
variance-reduction factor to every arena row (docs/arena.md, "Luck correction").
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env

from agents.core.arena import one_against_bots
from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o import GinnyConfig
from gnome_env.ginny_o.placement_env import (
    MAX_CANDIDATES,
    GinnyPlacementEnv,
    candidate_order,
    observation,
    turn_actions,
    turn_mask,
)


class WholeTurnAgent:
    """A whole-turn policy (``choose(observation, mask) -> action``) as a Ginny-O bot
    (``decide(view) -> atomic id``): at the start of a turn it chooses from the seat's own
    view and keeps the chosen action's atomic ids as the turn's plan."""

    def __init__(self, choose, k: int = MAX_CANDIDATES) -> None:
        self.choose, self.k = choose, k
        self.plan: list[int] = []
        self.plan_turn = -1

    def decide(self, view) -> int:
        if self.plan and view.turn == self.plan_turn and self.plan[0] in view.legal_actions:
            return self.plan.pop(0)
        order = candidate_order(view, self.k)
        mask = turn_mask(view, order, self.k)
        action = int(self.choose(observation(view, self.k, order), mask))
        seq = turn_actions(view, order, self.k, action)
        if seq is None:
            raise ValueError(f"the policy chose {action}, which is not legal (mask {mask})")
        self.plan, self.plan_turn = list(seq[1:]), view.turn
        return seq[0]


def model_chooser(model: MaskablePPO):
    """``choose(observation, mask)``: the model's most likely legal whole-turn action."""

    def choose(obs, mask) -> int:
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        return int(action)

    return choose


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, help="seats, 2..4")
    parser.add_argument("--turns", type=int, default=20_000, help="learner turns to train on")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponents", default="greedy", help="a Ginny-O agent spec")
    parser.add_argument("--reward-mode", choices=("rank", "score"), default="score")
    parser.add_argument("--max-candidates", type=int, default=MAX_CANDIDATES)
    parser.add_argument("--n-envs", type=int, default=4, help="environments of the vec env")
    parser.add_argument("--n-steps", type=int, default=256, help="PPO rollout length per env")
    parser.add_argument("--batch-size", type=int, default=64, help="PPO minibatch size")
    parser.add_argument("--eval-games", type=int, default=100, help="arena games (0: none)")
    parser.add_argument("--eval-opponents", default="random,greedy,expert")
    parser.add_argument("--save", help="save the model here (a new file)")
    parser.add_argument("--out", help="write the figures to this new JSON file")
    parser.add_argument(
        "--variance-reduction",
        action="store_true",
        help="also report the luck-corrected win rate and variance-reduction factor of every "
        "arena row (docs/arena.md, 'Luck correction'; the plain figures do not change)",
    )
    args = parser.parse_args(argv)
    for name in ("turns", "n_envs", "n_steps", "batch_size"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.eval_games < 0:
        parser.error("--eval-games must be at least 0")
    for flag in ("save", "out"):
        path = getattr(args, flag)
        if path is not None and Path(path).exists():
            parser.error(f"--{flag}: {path} already exists: give another file name")
    try:
        config = GinnyConfig(num_players=args.players)
        args.eval_opponents = [s.strip() for s in args.eval_opponents.split(",")]
        for spec in [args.opponents, *args.eval_opponents]:
            make_ginny_agent(spec, 0, config)
        GinnyPlacementEnv(num_players=args.players, max_candidates=args.max_candidates)
    except ValueError as err:
        parser.error(str(err))
    return args


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    torch.set_num_threads(1)  # one thread: same seed, same model (and no oversubscription)

    def make() -> GinnyPlacementEnv:
        return GinnyPlacementEnv(
            num_players=args.players,
            opponents=functools.partial(make_ginny_agent, args.opponents),
            learner_seat="random",
            reward_mode=args.reward_mode,
            max_candidates=args.max_candidates,
        )

    vec_env = make_vec_env(make, n_envs=args.n_envs, seed=args.seed)
    model = MaskablePPO(
        "MultiInputPolicy",
        vec_env,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        seed=args.seed,
        verbose=0,
    )
    start = time.perf_counter()
    model.learn(total_timesteps=args.turns)
    train_s = time.perf_counter() - start
    if args.save:
        model.save(args.save)
    rows = (
        one_against_bots(
            lambda seed, config: WholeTurnAgent(model_chooser(model), args.max_candidates),
            [args.players],
            args.eval_opponents,
            args.eval_games,
            args.seed,
            None,
            "ginny_o",
            variance_reduction=args.variance_reduction,
        )
        if args.eval_games
        else []
    )
    figures = {
        "args": {k: v for k, v in vars(args).items() if k not in ("save", "out")},
        "turns": model.num_timesteps,
        "train_seconds": round(train_s, 1),
        "arena": rows,
    }
    print(f"trained {model.num_timesteps} turns in {train_s:.1f} s")
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    return {**figures, "model": model}


if __name__ == "__main__":
    main()
