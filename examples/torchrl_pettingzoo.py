"""Gnoming A Round with TorchRL: PettingZoo wrapper, masked policy, a PPO step, arena check.

What it shows, in TorchRL's own idiom (only the environment construction is ours):

1. ``PettingZooWrapper`` around the AEC env with a seat-count list (every reset draws the
   game's seat count; absent seats observe zeros) and ``check_env_specs``.
2. A masked policy: an MLP gives logits, ``ProbabilisticActor`` with ``MaskedCategorical``
   samples only legal actions (``action_mask``). One network plays every seat
   (``ALL_IN_ONE_GROUP``); ``mask`` marks the seat that acts.
3. A few iterations of ``env.rollout`` + ``ClipPPOLoss`` (no critic: the advantage is each
   seat's Monte-Carlo return of the finished games, centred and scaled).
4. The policy as an arena agent against n-1 ``random`` and n-1 ``greedy`` bots.

Run:  python examples/torchrl_pettingzoo.py --players 3 4 5 --steps 2000 --seed 0
Tested with torchrl 0.14.1, tensordict 0.14.3, torch 2.13.0 (CPU), pettingzoo 1.27.0.
"""

from __future__ import annotations

import argparse

import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule
from torchrl.envs import MarlGroupMapType, PettingZooWrapper
from torchrl.envs.utils import ExplorationType, check_env_specs, set_exploration_type
from torchrl.modules import MLP, MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss

from agents.gnoming.arena import run_arena
from gnome_env.gnoming import gnoming_a_round_v1

OBS = ("agents", "observation", "observation")  # the env's observation dict minus its mask
MASK = ("agents", "action_mask")  # legal actions; TorchRL sets non-acting seats' rows to True


def make_actor(obs_dim: int, n_actions: int) -> ProbabilisticActor:
    net = MLP(in_features=obs_dim, out_features=n_actions, num_cells=[128, 128])
    logits = TensorDictModule(net, in_keys=[OBS], out_keys=[("agents", "logits")])
    return ProbabilisticActor(
        logits,
        in_keys={"logits": ("agents", "logits"), "mask": MASK},
        out_keys=[("agents", "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
    )


def monte_carlo_advantage(data: TensorDict) -> torch.Tensor:
    """Each seat's undiscounted return to the end of its game; NaN after the last game end."""
    reward = data["next", "agents", "reward"].squeeze(-1)  # [T, seats]
    done = data["next", "done"].squeeze(-1)  # [T]: a game ended at this step
    ret, g = torch.full_like(reward, float("nan")), torch.full_like(reward[0], float("nan"))
    for t in reversed(range(len(reward))):
        g = reward[t] + (0.0 if done[t] else g)  # an unfinished game stays NaN
        ret[t] = g
    return ret


class TorchRLAgent:
    """An arena agent: ``act(observation, mask)`` is the actor's most likely legal action."""

    def __init__(self, actor: ProbabilisticActor) -> None:
        self.actor = actor

    def act(self, obs, mask) -> int:
        td = TensorDict(
            {OBS: torch.as_tensor(obs)[None], MASK: torch.as_tensor(mask, dtype=torch.bool)[None]},
            batch_size=[],
        )
        with torch.no_grad(), set_exploration_type(ExplorationType.DETERMINISTIC):
            return int(self.actor(td)["agents", "action"][0])


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, nargs="+", default=[3, 4, 5])
    p.add_argument("--steps", type=int, default=2000, help="env steps per collection")
    p.add_argument("--iters", type=int, default=2, help="collect + PPO update iterations")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--eval-players", type=int, default=4)
    p.add_argument("--eval-games", type=int, default=40)
    args = p.parse_args(argv)

    # MaskedCategorical samples with torch's global generator (torch.distributions takes no
    # generator argument), so the global seed fixes the network init and the sampled actions.
    torch.manual_seed(args.seed)
    env = PettingZooWrapper(
        env=gnoming_a_round_v1.env(num_players=args.players),
        use_mask=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,  # one "agents" group: one shared network
    )
    check_env_specs(env)
    env.set_seed(args.seed)

    actor = make_actor(
        env.observation_spec[OBS].shape[-1], env.full_action_spec["agents", "action"].space.n
    )
    loss = ClipPPOLoss(actor, critic_network=None, entropy_coeff=0.01)
    loss.set_keys(advantage=("agents", "advantage"))
    optim = torch.optim.Adam(loss.parameters(), lr=3e-4)

    for it in range(args.iters):
        with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
            data = env.rollout(args.steps, actor, break_when_any_done=False)
        adv = monte_carlo_advantage(data)
        acting = data["agents", "mask"] & ~adv.isnan()  # decisions of finished games
        batch = TensorDict(agents=data["agents"][acting], batch_size=[int(acting.sum())])
        if len(batch) > 1:
            a = adv[acting]
            batch["agents", "advantage"] = ((a - a.mean()) / (a.std() + 1e-8)).unsqueeze(-1)
            for _ in range(4):  # PPO epochs over the whole batch
                out = loss(batch)
                total = out["loss_objective"] + out["loss_entropy"]
                optim.zero_grad()
                total.backward()
                optim.step()
        games = int(data["next", "done"].sum())
        print(f"iter {it}: {args.steps} steps, {games} games ended, {len(batch)} decisions used")

    n = args.eval_players
    figures = {"rollout": data}
    for bot in ("random", "greedy"):
        # A lineup entry may be a factory (seed, rules) -> agent; this agent needs no seed.
        lineup = [lambda seed, config: TorchRLAgent(actor)] + [bot] * (n - 1)
        res = run_arena(lineup, n, args.eval_games, seed=args.seed, workers=1, progress=False)
        s = res.stats[0]
        print(
            f"torchrl policy vs {n - 1} x {bot}: win rate {s.win_rate:.3f} "
            f"[95% CI {s.ci_low:.3f}, {s.ci_high:.3f}], 1/n = {1 / n:.3f}, {s.games} games"
        )
        figures[bot] = {"win_rate": s.win_rate, "ci": (s.ci_low, s.ci_high), "games": s.games}
    figures["chance"] = 1 / n
    return figures


if __name__ == "__main__":
    main()
