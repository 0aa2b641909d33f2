"""Ginny-O with TorchRL: PettingZoo wrapper on the AEC env, masked policy, PPO, arena check.

What it shows, in TorchRL's own idiom (only the environment construction is ours):

1. ``PettingZooWrapper`` around ``ginny_o_v0.env`` (turn-based: one seat acts per step; a
   turn is several atomic steps of the same seat) with ``use_mask=True``, the group map
   ``ALL_IN_ONE_GROUP`` (one group ``"agents"``: the data is stacked over the seats) and
   ``check_env_specs``. ``("agents", "mask")`` marks the one seat that acts at a step;
   ``("agents", "action_mask")`` is that seat's legal set (its row of the 1,864 atomic ids)
   and all True for the other seats (the wrapper's fill). At the step that ends a game,
   ``next`` marks the seat after the last mover as acting with an all-False mask row (the
   env's mask once the game is over); the rollout resets before the policy reads it.
2. A masked policy: an MLP gives logits, ``ProbabilisticActor`` with ``MaskedCategorical``
   samples only legal actions. The MLP works on the last dimension, so one network plays
   every seat (parameter sharing): each seat's observation is its own (G17, seats listed
   from the observer), so the same weights fit every seat. The actions it samples for the
   seats that are not acting are ignored by the wrapper and by the loss.
3. A few iterations of ``env.rollout`` + ``ClipPPOLoss`` (no critic). The reward is the
   env's ``reward_mode="score"`` (the default here; ``--reward-mode rank`` for the terminal
   win/loss reward): at the end of every turn each seat gets its score change minus the
   opponents' mean, / 100, so a seat's rewards over a game add up to (its final score minus
   the opponents' mean) / 100. The advantage of a decision is the acting seat's undiscounted
   return from that step to the end of its game (rewards paid during the other seats' turns
   included), over the games that ended in the rollout, centred and scaled over the batch.
4. The policy as a Ginny-O arena agent (``decide(view)``: the env's own encoder on the
   seat's view, so it sees only what its seat may know) against n-1 copies of each of
   ``--eval-opponents`` (default ``random``, ``greedy``, ``expert``), seats rotated.

Every game is capped at ``--max-turns`` turns (G29d, a truncation; the game is still scored)
so that short budgets finish games; the arena plays under the same rules.

Run:  python examples/torchrl_ginny_o.py --players 2 --steps 600 --iters 3 --seed 0
Tested with torchrl 0.14.1, tensordict 0.14.3, torch 2.13.0 (CPU), pettingzoo 1.27.0.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torchrl.envs import MarlGroupMapType, PettingZooWrapper
from torchrl.envs.utils import ExplorationType, check_env_specs, set_exploration_type
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss

from agents.core.arena import one_against_bots
from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o import GinnyConfig, ginny_o_v0
from gnome_env.ginny_o.encoding import encode

GROUP = "agents"  # TorchRL's ALL_IN_ONE_GROUP: player_0 .. player_{n-1} in one group
OBS = (GROUP, "observation", "observation")  # the env's observation dict minus its mask
MASK = (GROUP, "action_mask")  # the acting seat's legal atomic ids (all True for the others)
ACTING = (GROUP, "mask")  # True for the seat that acts at this step
NUM_ACTIONS = ginny_o_v0.NUM_ACTIONS  # 1864


def make_env(players: int, max_turns: int, reward_mode: str = "score") -> PettingZooWrapper:
    """The Ginny-O AEC env (one game an episode, capped at ``max_turns`` turns) in TorchRL's
    PettingZoo wrapper, every seat in one group."""
    return PettingZooWrapper(
        env=ginny_o_v0.env(num_players=players, max_turns=max_turns, reward_mode=reward_mode),
        use_mask=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,  # one "agents" group: one shared network
    )


def make_actor(obs_dim: int, n_actions: int, hidden: int) -> ProbabilisticActor:
    """MLP logits -> MaskedCategorical over the legal actions of each seat."""
    net = MLP(in_features=obs_dim, out_features=n_actions, num_cells=[hidden])
    logits = TensorDictModule(net, in_keys=[OBS], out_keys=[(GROUP, "logits")])
    return ProbabilisticActor(
        logits,
        in_keys={"logits": (GROUP, "logits"), "mask": MASK},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )


def returns_to_game_end(data: TensorDict) -> torch.Tensor:
    """Each seat's undiscounted return from each step to the end of its game, ``[T, seats]``;
    NaN for the steps of a game still running when the rollout stopped."""
    reward = data["next", GROUP, "reward"].squeeze(-1)  # [T, seats]
    done = data["next", "done"].squeeze(-1)  # [T]: a game ended at this step
    ret, g = torch.full_like(reward, float("nan")), torch.full_like(reward[0], float("nan"))
    for t in reversed(range(len(reward))):
        g = reward[t] + (0.0 if done[t] else g)  # an unfinished game stays NaN
        ret[t] = g
    return ret


def ppo_update(loss: ClipPPOLoss, optim: torch.optim.Optimizer, data: TensorDict,
               epochs: int) -> int:  # fmt: skip
    """PPO epochs on the acting seats' decisions of the finished games; the number used."""
    adv = returns_to_game_end(data)
    used = data[ACTING] & ~adv.isnan()  # [T, seats]: the acting seat of finished games
    batch = TensorDict({GROUP: data[GROUP][used]}, batch_size=[int(used.sum())])
    if len(batch) > 1:
        a = adv[used]
        batch[GROUP, "advantage"] = ((a - a.mean()) / (a.std() + 1e-8)).unsqueeze(-1)
        for _ in range(epochs):
            out = loss(batch)
            total = out["loss_objective"] + out["loss_entropy"]
            optim.zero_grad()
            total.backward()
            optim.step()
    return len(batch)


class TorchRLGinnyAgent:
    """A Ginny-O arena agent: ``decide(view)`` is the actor's most likely legal atomic step on
    the seat's view, encoded by the env's own encoder (what the env would observe)."""

    def __init__(self, actor: ProbabilisticActor) -> None:
        self.actor = actor

    def decide(self, view) -> int:
        """The chosen action id (always one of ``view.legal_actions``)."""
        mask = torch.zeros(NUM_ACTIONS, dtype=torch.bool)
        mask[list(view.legal_actions)] = True
        obs = torch.as_tensor(encode(view))
        td = TensorDict({OBS: obs[None], MASK: mask[None]}, batch_size=[])
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(self.actor(td)[GROUP, "action"][0])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=2, help="seats, 2..4")
    p.add_argument("--max-turns", type=int, default=20, help="turn cap of a game (G29d)")
    p.add_argument("--reward-mode", choices=ginny_o_v0.REWARDS, default="score")
    p.add_argument("--steps", type=int, default=600, help="env steps per collection")
    p.add_argument("--iters", type=int, default=3, help="collect + PPO update iterations")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per collection")
    p.add_argument("--hidden", type=int, default=128, help="width of the MLP's hidden layer")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=20, help="arena games per opponent (0: none)")
    p.add_argument("--eval-opponents", default="random,greedy,expert", help="arena opponent specs")
    p.add_argument(
        "--out",
        help="write the figures (decisions, training time, arena rows) to this new JSON file",
    )
    args = p.parse_args(argv)
    if args.out is not None and Path(args.out).exists():
        p.error(f"--out: {args.out} already exists: give another file name")
    for name in ("steps", "iters", "epochs", "hidden"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be >= 1, got {getattr(args, name)}")
    if args.eval_games < 0:
        p.error(f"--eval-games must be >= 0, got {args.eval_games}")
    if not args.lr > 0:
        p.error(f"--lr must be > 0, got {args.lr}")
    try:
        # GinnyConfig names a bad seat count or turn cap; the registry names the known specs.
        config = GinnyConfig(num_players=args.players, max_turns=args.max_turns)
        args.eval_opponents = [s.strip() for s in args.eval_opponents.split(",")]
        for spec in args.eval_opponents:
            make_ginny_agent(spec, 0, config)
    except ValueError as err:
        p.error(str(err))
    return args


def main(argv: list[str] | None = None) -> dict:
    """Wrap, check, train for ``--iters`` rollouts, evaluate; the figures and last rollout."""
    args = parse_args(argv)
    torch.set_num_threads(1)  # a small MLP: one thread is faster on a small shared CPU
    # MaskedCategorical samples with torch's global generator (torch.distributions takes no
    # generator argument), so the global seed fixes the network init and the sampled actions.
    torch.manual_seed(args.seed)
    env = make_env(args.players, args.max_turns, args.reward_mode)
    check_env_specs(env)
    env.set_seed(args.seed)  # reset(seed=...): later games follow the env's seed stream

    actor = make_actor(
        env.observation_spec[OBS].shape[-1],
        env.full_action_spec[GROUP, "action"].space.n,
        args.hidden,
    )
    loss = ClipPPOLoss(actor, critic_network=None, entropy_coeff=0.01)
    loss.set_keys(advantage=(GROUP, "advantage"))
    optim = torch.optim.Adam(loss.parameters(), lr=args.lr)

    used_per_iter = []
    start = time.perf_counter()
    for it in range(args.iters):
        with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
            data = env.rollout(args.steps, actor, break_when_any_done=False)
        used_per_iter.append(ppo_update(loss, optim, data, args.epochs))
        games = int(data["next", "done"].sum())
        print(f"iter {it}: {args.steps} steps, {games} games ended, "
              f"{used_per_iter[-1]} decisions used")  # fmt: skip
    env.close()
    train_s = time.perf_counter() - start

    rows = []
    if args.eval_games:
        rows = one_against_bots(
            lambda seed, config: TorchRLGinnyAgent(actor),  # a factory; it needs no seed
            [args.players],
            args.eval_opponents,
            args.eval_games,
            args.seed,
            {"max_turns": args.max_turns},
            "ginny_o",
        )
    if args.out is not None:
        figures = {
            "args": {k: v for k, v in vars(args).items() if k != "out"},
            "decisions_collected": args.steps * args.iters,
            "decisions_used": sum(used_per_iter),
            "train_s": train_s,
            "arena": rows,
        }
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    return {"rollout": data, "actor": actor, "used": used_per_iter, "arena": rows}


if __name__ == "__main__":
    main()
