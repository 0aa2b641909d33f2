"""Nerts with TorchRL: PettingZoo wrapper on the Parallel env, masked policy, PPO, arena check.

What it shows, in TorchRL's own idiom (only the environment construction is ours):

1. ``PettingZooWrapper`` around ``nerts_v0.parallel_env`` (every seat acts at every step)
   with ``use_mask=True`` and ``check_env_specs``. TorchRL's default group map for a
   Parallel env puts ``player_0 .. player_{n-1}`` into one group, ``"player"``: its data is
   stacked over the seats, ``("player", "action_mask")`` is every seat's legal set.
2. A masked policy: an MLP gives logits, ``ProbabilisticActor`` with ``MaskedCategorical``
   samples only legal actions. The MLP works on the last dimension, so one network plays
   every seat (parameter sharing): the observation is seen from the acting seat (N34, seat
   blocks rotated), so the same weights fit every seat.
3. A few iterations of ``env.rollout`` + ``ClipPPOLoss`` (no critic: the advantage is each
   seat's discounted return to the end of its hand, over the hands that finished in the
   rollout, centred and scaled). ``reward_mode="relative"`` (the default) pays every step
   the seat's score change minus the others' mean: dense and zero-sum.
4. The policy as a Nerts arena agent (``decide(view)``: the env's own encoder on the
   seat's public view) against n-1 ``random`` and n-1 ``greedy`` bots, one hand a game.

Every hand is capped at ``--hand-steps`` steps (N28, ``max_steps_per_hand``) so that short
budgets still see finished hands; the arena plays under the same rules.

Run:  python examples/torchrl_nerts.py --players 3 --steps 600 --iters 3 --seed 0
Tested with torchrl 0.14.1, tensordict 0.14.3, torch 2.13.0 (CPU), pettingzoo 1.27.0.
"""

from __future__ import annotations

import argparse

import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import ExplorationType, check_env_specs, set_exploration_type
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss

from agents.core.arena import run_arena
from gnome_env.nerts import NertsConfig, nerts_v0
from gnome_env.nerts.encoding import NertsEncoder

GROUP = "player"  # TorchRL's default group of player_0 .. player_{n-1}
OBS = (GROUP, "observation", "observation")  # the env's observation dict minus its mask
MASK = (GROUP, "action_mask")  # each seat's legal actions (N36 ids)


def make_env(players: int, hand_steps: int) -> PettingZooWrapper:
    """The Nerts Parallel env (one hand an episode) in TorchRL's PettingZoo wrapper."""
    return PettingZooWrapper(
        env=nerts_v0.parallel_env(num_players=players, max_steps_per_hand=hand_steps),
        use_mask=True,
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


def returns_to_hand_end(data: TensorDict, gamma: float) -> torch.Tensor:
    """Each seat's discounted return to the end of its hand, ``[T, seats]``; NaN for the
    steps of a hand still running when the rollout stopped."""
    reward = data["next", GROUP, "reward"].squeeze(-1)  # [T, seats]
    done = data["next", "done"].squeeze(-1)  # [T]: a hand ended at this step
    ret, g = torch.full_like(reward, float("nan")), torch.full_like(reward[0], float("nan"))
    for t in reversed(range(len(reward))):
        g = reward[t] + (0.0 if done[t] else gamma * g)  # an unfinished hand stays NaN
        ret[t] = g
    return ret


def ppo_update(loss: ClipPPOLoss, optim: torch.optim.Optimizer, data: TensorDict, gamma: float,
               epochs: int) -> int:  # fmt: skip
    """PPO epochs on the decisions of the finished hands; the number of decisions used."""
    adv = returns_to_hand_end(data, gamma)
    used = data[GROUP, "mask"] & ~adv.isnan()  # [T, seats]: live seats of finished hands
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


class TorchRLNertsAgent:
    """A Nerts arena agent: ``decide(view)`` is the actor's most likely legal action on the
    seat's public view, encoded by the env's own encoder (what the env would observe)."""

    def __init__(self, actor: ProbabilisticActor, config: NertsConfig) -> None:
        self.actor = actor
        self.encoder = NertsEncoder(config)
        self.n_actions = config.n_actions

    def decide(self, view) -> int:
        """The chosen N36 id (always one of ``view.legal_actions``)."""
        mask = torch.zeros(self.n_actions, dtype=torch.bool)
        mask[list(view.legal_actions)] = True
        obs = torch.as_tensor(self.encoder.encode(view), dtype=torch.float32)
        td = TensorDict({OBS: obs[None], MASK: mask[None]}, batch_size=[])
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(self.actor(td)[GROUP, "action"][0])


def evaluate(actor: ProbabilisticActor, args: argparse.Namespace) -> dict:
    """Arena games (one hand each) of the policy against n-1 copies of each bot."""
    n = args.players
    rules = {"max_hands": 1, "max_steps_per_hand": args.hand_steps}
    figures = {}
    for bot in ("random", "greedy"):
        # A lineup entry may be a factory (seed, config) -> agent; this one needs no seed.
        lineup = [lambda seed, config: TorchRLNertsAgent(actor, config)] + [bot] * (n - 1)
        res = run_arena(
            lineup, n, args.eval_games, seed=args.seed, rules=rules, progress=False, game="nerts"
        )
        s = res.stats[0]
        print(
            f"torchrl policy vs {n - 1} x {bot}: win rate {s.win_rate:.3f} "
            f"[95% CI {s.ci_low:.3f}, {s.ci_high:.3f}], 1/n = {1 / n:.3f}, "
            f"mean hand score {s.mean_round_score:.1f}, {s.games} games"
        )
        figures[bot] = {
            "win_rate": s.win_rate,
            "ci": (s.ci_low, s.ci_high),
            "games": s.games,
            "records": res.records,
        }
    return figures


def main(argv: list[str] | None = None) -> dict:
    """Wrap, check, train for ``--iters`` rollouts, evaluate; the figures and last rollout."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=3, help="seats, 2..6")
    p.add_argument("--hand-steps", type=int, default=150, help="step cap of a hand (N28)")
    p.add_argument("--steps", type=int, default=600, help="env steps per collection")
    p.add_argument("--iters", type=int, default=3, help="collect + PPO update iterations")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per collection")
    p.add_argument("--hidden", type=int, default=128, help="width of the MLP's hidden layer")
    p.add_argument("--gamma", type=float, default=0.99, help="discount within a hand")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-games", type=int, default=30, help="arena games per opponent")
    args = p.parse_args(argv)
    for name in ("steps", "iters", "epochs", "hidden", "eval_games", "hand_steps"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    if not 2 <= args.players <= 6:
        p.error(f"--players must be from 2 to 6, got {args.players}")
    if not 0.0 < args.gamma <= 1.0:
        p.error(f"--gamma must be in (0, 1], got {args.gamma}")

    # MaskedCategorical samples with torch's global generator (torch.distributions takes no
    # generator argument), so the global seed fixes the network init and the sampled actions.
    torch.manual_seed(args.seed)
    env = make_env(args.players, args.hand_steps)
    check_env_specs(env)
    env.set_seed(args.seed)  # reset(seed=...): later hands follow the env's seed stream

    actor = make_actor(
        env.observation_spec[OBS].shape[-1],
        env.full_action_spec[GROUP, "action"].space.n,
        args.hidden,
    )
    loss = ClipPPOLoss(actor, critic_network=None, entropy_coeff=0.01)
    loss.set_keys(advantage=(GROUP, "advantage"))
    optim = torch.optim.Adam(loss.parameters(), lr=args.lr)

    used_per_iter = []
    for it in range(args.iters):
        with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
            data = env.rollout(args.steps, actor, break_when_any_done=False)
        used_per_iter.append(ppo_update(loss, optim, data, args.gamma, args.epochs))
        hands = int(data["next", "done"].sum())
        print(f"iter {it}: {args.steps} steps, {hands} hands ended, "
              f"{used_per_iter[-1]} decisions used")  # fmt: skip

    figures = {"rollout": data, "actor": actor, "used": used_per_iter}
    figures.update(evaluate(actor, args))
    figures["chance"] = 1 / args.players
    return figures


if __name__ == "__main__":
    main()
