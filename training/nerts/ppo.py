"""PPO for Nerts on the PettingZoo Parallel env ``nerts_v0``: one file, read top to bottom.

CleanRL's PPO (clipped objective, GAE, advantage normalisation per minibatch, value
clipping off, orthogonal init, Adam with eps 1e-5, gradient-norm clipping), with the
things a multi-agent simultaneous game needs:

* **parameter sharing**: one network plays every seat of every environment; each seat of
  each environment is one *stream* of the rollout (its own rewards, values and GAE);
* **opponents**: ``self`` -- every seat is the learner and every seat's transitions are
  trained on; ``random`` -- seat 0 is the learner, the others play uniformly random legal
  actions (only seat 0's transitions are trained on);
* **action masks**: illegal logits are -1e9 (:class:`agents.nerts.learned.NertsPolicyNetwork`),
  so the sampled action is always legal and the entropy runs over legal actions;
* **player counts**: environment ``e`` has ``num_players[e % len(num_players)]`` seats; the
  observation is the same size for every count, so one network serves them all.

Episodes are hands (``episode="hand"``); a hand that ends at the step cap is treated as
ended (no bootstrap), like CleanRL's time-limit handling. Rewards are the env's
``relative`` rewards (zero-sum, summing over a hand to the score difference, RULES-nerts.md
RL notes). Every random draw comes from explicit generators seeded from ``seed`` (the
environments' resets, the action sampling, minibatch order, the init), so a run with one
torch thread on CPU repeats exactly.

At the end the final policy (its most likely action) plays the arena (``agents.gnoming.arena``,
``game="nerts"``) against n-1 ``random`` and n-1 ``greedy`` at each player count -- one-hand
games by default (``eval_max_hands``), a game being won by the best hand score -- and the
table is printed and saved. Run: ``gnome train --config configs/nerts_ppo.yaml`` (or
``python -m training.nerts.ppo --config ...``); ``--help`` lists every field.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from training.core.config import (
    ConfigError,
    check_at_least,
    renamed_fields,
    to_dict,
    to_yaml,
)
from training.core.ppo import gae_columns, masked_entropy_mean, ppo_update
from training.core.runs import config_from_command_line as run_command_line
from training.core.runs import interrupted

OPPONENTS = ("self", "random")


@renamed_fields(players="num_players")
@dataclass
class NertsPPOConfig:
    """Settings of a Nerts PPO run (see the module docstring)."""

    trainer: str = field(default="nerts_ppo", metadata={"help": "must be nerts_ppo"})
    seed: int = field(default=1, metadata={"help": "run seed (envs, sampling, init, order)"})
    output_dir: str = field(default="runs/nerts_ppo", metadata={"help": "where policy.pt goes"})
    num_players: list[int] = field(
        default_factory=lambda: [2, 4],
        metadata={"help": "player count of each env, cycled over the envs (2..6)"},
    )
    opponents: str = field(default="self", metadata={"help": "self or random (see docstring)"})
    num_envs: int = field(default=8, metadata={"help": "environments stepped side by side"})
    num_steps: int = field(default=128, metadata={"help": "env steps per env per update"})
    total_steps: int = field(default=400_000, metadata={"help": "env steps in all (x num seats)"})
    max_steps_per_hand: int = field(default=400, metadata={"help": "N28 step cap per hand"})
    learning_rate: float = field(default=2.5e-4, metadata={"help": "Adam learning rate"})
    anneal_lr: bool = field(default=True, metadata={"help": "linearly decay the rate to 0"})
    gamma: float = field(default=0.995, metadata={"help": "discount per step"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    update_epochs: int = field(default=4, metadata={"help": "passes over each rollout"})
    num_minibatches: int = field(default=4, metadata={"help": "minibatches per pass"})
    clip_coef: float = field(default=0.2, metadata={"help": "PPO clip range"})
    ent_coef: float = field(default=0.01, metadata={"help": "entropy bonus"})
    vf_coef: float = field(default=0.5, metadata={"help": "value loss weight"})
    max_grad_norm: float = field(default=0.5, metadata={"help": "gradient-norm clip"})
    hidden: list[int] = field(default_factory=lambda: [256, 256], metadata={"help": "MLP sizes"})
    eval_games: int = field(
        default=400, metadata={"help": "arena games per row at the end (0: none)"}
    )
    eval_seed: int = field(default=7, metadata={"help": "arena seed of the final table"})
    eval_max_hands: int = field(
        default=1, metadata={"help": "N31 max_hands of the arena games (1: one-hand games)"}
    )
    workers: int = field(default=1, metadata={"help": "arena worker processes"})
    torch_threads: int = field(default=1, metadata={"help": "torch threads"})

    def validate(self) -> None:
        """Raise ConfigError naming a bad field, its value and what is allowed."""
        if self.trainer != "nerts_ppo":
            raise ConfigError(f"trainer={self.trainer!r} is not allowed here: must be nerts_ppo")
        if not self.num_players or any(not 2 <= p <= 6 for p in self.num_players):
            raise ConfigError(
                f"num_players={self.num_players!r} is not allowed: a non-empty list of 2..6"
            )
        if self.opponents not in OPPONENTS:
            raise ConfigError(f"opponents={self.opponents!r} is not allowed: one of {OPPONENTS}")
        for name in ("num_envs", "num_steps", "total_steps", "max_steps_per_hand", "update_epochs"):
            check_at_least(name, getattr(self, name), 1)
        for name in ("num_minibatches", "torch_threads", "workers"):
            check_at_least(name, getattr(self, name), 1)
        check_at_least("eval_games", self.eval_games, 0)
        check_at_least("eval_max_hands", self.eval_max_hands, 1)
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ConfigError(
                f"hidden={self.hidden!r} is not allowed: a non-empty list of sizes >= 1"
            )
        for name in ("learning_rate", "gamma", "gae_lambda", "clip_coef"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ConfigError(f"{name}={value!r} is not allowed: must be in (0, 1]")
        for name in ("ent_coef", "vf_coef", "max_grad_norm"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name}={getattr(self, name)!r} is not allowed: must be >= 0")


def train(cfg: NertsPPOConfig) -> dict[str, Any]:
    """Run PPO; write ``policy.pt``, ``config.yaml`` and ``summary.json``; return the summary."""
    import torch

    from agents.nerts.learned import NertsPolicyNetwork, checkpoint_payload, write_checkpoint
    from gnome_env.core import rng as grng
    from gnome_env.nerts.nerts_v0 import parallel_env

    torch.set_num_threads(cfg.torch_threads)
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(to_yaml(cfg))
    envs = [
        parallel_env(
            players=cfg.num_players[e % len(cfg.num_players)],
            max_steps_per_hand=cfg.max_steps_per_hand,
        )
        for e in range(cfg.num_envs)
    ]
    counts = [len(env.possible_agents) for env in envs]
    streams = [(e, a) for e, env in enumerate(envs) for a in env.possible_agents]
    learner = [
        cfg.opponents == "self" or a == env.possible_agents[0]
        for (e, a) in streams
        for env in [envs[e]]
    ]
    learner = np.array(learner)
    n_streams = len(streams)
    first = envs[0]
    obs_size = first.observation_space(first.possible_agents[0])["observation"].shape[0]
    n_actions = first.action_space(first.possible_agents[0]).n
    gen = torch.Generator().manual_seed(cfg.seed)
    net = NertsPolicyNetwork(obs_size, n_actions, cfg.hidden)
    net.reset_parameters(gen)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5, fused=True)
    act_rng = np.random.default_rng([cfg.seed, 1])
    hands = [0] * cfg.num_envs

    def reset(e: int) -> dict:
        obs, _ = envs[e].reset(seed=grng.derive_seed(grng.GAME, cfg.seed, e, hands[e]))
        hands[e] += 1
        return obs

    current = [reset(e) for e in range(cfg.num_envs)]
    T, S = cfg.num_steps, n_streams
    b_obs = np.zeros((T, S, obs_size), np.float32)
    b_mask = np.zeros((T, S, n_actions), bool)
    b_act = np.zeros((T, S), np.int64)
    b_logp = np.zeros((T, S), np.float32)
    b_val = np.zeros((T, S), np.float32)
    b_rew = np.zeros((T, S), np.float32)
    b_done = np.zeros((T, S), np.float32)  # 1: the hand ended with this step
    steps_per_update = T * cfg.num_envs
    updates = max(1, cfg.total_steps // steps_per_update)
    finished_hands: list[dict[str, float]] = []
    history = []
    start = time.perf_counter()
    env_steps = 0
    for update in range(updates):
        if cfg.anneal_lr:
            opt.param_groups[0]["lr"] = cfg.learning_rate * (1 - update / updates)
        for t in range(T):
            obs = np.stack([current[e][a]["observation"] for e, a in streams])
            mask = np.stack([current[e][a]["action_mask"] for e, a in streams]).astype(bool)
            with torch.no_grad():
                logits, value = net(torch.as_tensor(obs), torch.as_tensor(mask))
                logp_all = torch.log_softmax(logits, -1).numpy()
            # Gumbel-max sampling from our own generator (never torch's global one)
            gumbel = -np.log(-np.log(act_rng.random(logp_all.shape).clip(1e-12, 1 - 1e-12)))
            actions = np.where(mask, logp_all + gumbel, -np.inf).argmax(1)
            if cfg.opponents == "random":  # opponents: uniform over their legal actions
                noise = np.where(mask, act_rng.random(mask.shape), -1.0)
                actions = np.where(learner, actions, noise.argmax(1))
            b_obs[t], b_mask[t], b_act[t] = obs, mask, actions
            b_logp[t] = logp_all[np.arange(S), actions]
            b_val[t] = value.numpy()
            i = 0
            for e, env in enumerate(envs):
                chosen = {a: int(actions[i + k]) for k, a in enumerate(env.possible_agents)}
                nxt, rew, term, trunc, _ = env.step(chosen)
                ended = any(term.values()) or any(trunc.values())
                for k, a in enumerate(env.possible_agents):
                    b_rew[t, i + k] = rew[a]
                    b_done[t, i + k] = float(ended)
                if ended:
                    scores = env.unwrapped.game.hand_scores()
                    finished_hands.append(
                        {
                            "players": counts[e],
                            "seat0": scores[0],
                            "steps": env.unwrapped.game.steps,
                        }
                    )
                    nxt = reset(e)
                current[e] = nxt
                i += counts[e]
            env_steps += cfg.num_envs
        # bootstrap values of the states after the rollout
        obs = np.stack([current[e][a]["observation"] for e, a in streams])
        mask = np.stack([current[e][a]["action_mask"] for e, a in streams]).astype(bool)
        with torch.no_grad():
            _, next_value = net(torch.as_tensor(obs), torch.as_tensor(mask))
        adv = gae_columns(b_rew, b_val, b_done, next_value.numpy(), cfg.gamma, cfg.gae_lambda)
        stats = learn(net, opt, gen, cfg, b_obs, b_mask, b_act, b_logp, adv, adv + b_val, learner)
        recent = finished_hands[-50:]
        row = {
            "update": update + 1,
            "env_steps": env_steps,
            "seconds": round(time.perf_counter() - start, 1),
            **stats,
            "hands": len(finished_hands),
            "recent_seat0_score": round(float(np.mean([h["seat0"] for h in recent])), 2)
            if recent
            else None,
            "recent_hand_steps": round(float(np.mean([h["steps"] for h in recent])), 1)
            if recent
            else None,
        }
        history.append(row)
        if (update + 1) % 10 == 0 or update + 1 == updates:
            print(json.dumps(row), flush=True)
    payload = checkpoint_payload(
        net,
        envs[0].unwrapped.config,
        {"config": to_dict(cfg), "updates": updates, "env_steps": env_steps},
    )
    write_checkpoint(payload, out / "policy.pt")
    summary: dict[str, Any] = {
        "config": to_dict(cfg),
        "env_steps": env_steps,
        "learner_decisions": int(
            env_steps * np.mean(counts) if cfg.opponents == "self" else env_steps
        ),
        "seconds": round(time.perf_counter() - start, 1),
        "history": history,
    }
    if cfg.eval_games > 0:
        summary["arena"] = evaluate(out / "policy.pt", cfg)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def learn(
    net: Any,
    opt: Any,
    gen: Any,
    cfg: NertsPPOConfig,
    obs: np.ndarray,
    mask: np.ndarray,
    act: np.ndarray,
    logp: np.ndarray,
    adv: np.ndarray,
    ret: np.ndarray,
    learner: np.ndarray,
) -> dict[str, float]:
    """The core's PPO update over the learner streams' rows of a ``[T, S]`` rollout; the
    mean losses, entropy, approximate KL and clip fraction."""
    import torch

    T, S = act.shape
    rows = torch.as_tensor(np.flatnonzero(np.broadcast_to(learner, (T, S)).reshape(-1)))
    data = {
        "obs": torch.as_tensor(obs.reshape(T * S, -1))[rows],
        "masks": torch.as_tensor(mask.reshape(T * S, -1))[rows],
        "actions": torch.as_tensor(act.reshape(-1))[rows],
        "old_logp": torch.as_tensor(logp.reshape(-1))[rows],
        "advantages": torch.as_tensor(adv.reshape(-1))[rows],
        "returns": torch.as_tensor(ret.reshape(-1))[rows],
    }

    def policy(b: dict[str, Any]) -> tuple[Any, Any]:
        logits, value = net(b["obs"], b["masks"])
        return torch.log_softmax(logits, -1), value

    figures = ppo_update(
        net, opt, data, policy, masked_entropy_mean,
        lambda n: torch.randperm(n, generator=gen),
        epochs=cfg.update_epochs, minibatch_size=max(1, len(rows) // cfg.num_minibatches),
        clip_coef=cfg.clip_coef, ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm,
    )  # fmt: skip
    names = {"pg": "pg", "v": "v", "ent": "ent", "kl": "kl", "clip": "clipfrac"}
    return {name: round(figures[k], 5) for k, name in names.items()}


def evaluate(path: Path, cfg: NertsPPOConfig) -> list[dict[str, Any]]:
    """The policy against n-1 random and n-1 greedy at each player count (arena)."""
    from agents.core.arena import run_arena

    rows = []
    for n in sorted(set(cfg.num_players)):
        for other in ("random", "greedy"):
            lineup = [f"ppo:{path}"] + [other] * (n - 1)
            rules = {"max_steps_per_hand": cfg.max_steps_per_hand, "max_hands": cfg.eval_max_hands}
            result = run_arena(
                lineup, n, cfg.eval_games, seed=cfg.eval_seed, workers=cfg.workers,
                progress=False, game="nerts", rules=rules,
            )  # fmt: skip
            s = result.stats[0]
            rows.append(
                {"players": n, "opponents": other, "games": result.settings["games"],
                 "win_rate": s.win_rate, "ci": [s.ci_low, s.ci_high], "one_over_n": 1 / n}
            )  # fmt: skip
            print(
                f"{n} players vs {n - 1} x {other}: win rate {s.win_rate:.3f} "
                f"[{s.ci_low:.3f}, {s.ci_high:.3f}] (1/n = {1 / n:.3f}, "
                f"{result.settings['games']} games)",
                flush=True,
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    """``python -m training.nerts.ppo --config FILE [--FIELD VALUE ...]``."""
    cfg = run_command_line(
        NertsPPOConfig,
        "gnome train",
        "PPO for Nerts (nerts_v0, trainer: nerts_ppo)",
        argv,
        resumable=False,
    )
    if cfg is None:
        return 2
    try:
        summary = train(cfg)
    except KeyboardInterrupt:
        return interrupted(cfg.output_dir, kind="none")
    print(f"policy written to {Path(cfg.output_dir) / 'policy.pt'} ({summary['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
