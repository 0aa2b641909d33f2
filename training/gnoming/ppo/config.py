"""The settings of a training run: :class:`PPOConfig` (YAML file + ``--FIELD VALUE``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from agents.gnoming.registry import make_agent
from gnome_env.gnoming.config import MAX_PLAYERS, MIN_PLAYERS
from gnome_env.gnoming.rewards import REWARD_MODES
from training.core.config import ConfigError


def _f(default: Any, help: str) -> Any:
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass
class PPOConfig:
    """Every setting of a training run (YAML file + ``--FIELD VALUE`` overrides)."""

    # run
    seed: int = _f(1, "seed of everything: network init, sampling, games, minibatches")
    output_dir: str = _f("runs/ppo", "where checkpoints, logs, plots and reports go")
    total_steps: int = _f(2_000_000, "decisions to play in the vector engine (all seats)")
    torch_threads: int = _f(0, "torch CPU threads (0: torch's default)")
    device: str = _f("auto", "auto (cuda if available), cpu or cuda")
    # games
    num_players: list[int] = _f([3, 4, 5, 6, 7], "seat counts; each game draws one")
    reward_mode: str = _f("score", "reward scheme of gnome_env.gnoming.rewards: win, score or raw")
    shaping: float = _f(0.0, "weight of the potential-based layout-score shaping (0: off)")
    num_envs: int = _f(256, "games played at once")
    rollout_steps: int = _f(64, "vector steps per rollout (num_envs decisions each)")
    # who plays the other seats
    self_play_fraction: float = _f(0.5, "share of games where the learner plays every seat")
    bot_opponents: list[str] = _f(["random", "greedy"], "bot specs in the opponent pool")
    bot_fraction: float = _f(0.3, "share of non-self-play games against bots (else snapshots)")
    snapshot_interval: int = _f(10, "updates between snapshots added to the pool")
    pool_size: int = _f(8, "snapshots kept in the pool (oldest dropped)")
    init_policy: str | None = _f(
        None, "start from this policy checkpoint's weights (e.g. a shipped policy.pt)"
    )
    # imitation warm start (before PPO; skipped on --resume)
    pretrain_teacher: str | None = _f(None, "bot spec to imitate first, e.g. expert (null: none)")
    pretrain_decisions: int = _f(500_000, "teacher decisions to record for the warm start")
    pretrain_epochs: int = _f(4, "passes over the teacher's decisions")
    pretrain_learning_rate: float = _f(1e-3, "Adam learning rate of the warm start")
    pretrain_workers: int = _f(1, "processes recording teacher games (same data for any number)")
    # PPO
    learning_rate: float = _f(3e-4, "Adam learning rate")
    anneal_lr: bool = _f(True, "decay the learning rate linearly to 0")
    gamma: float = _f(1.0, "discount per decision of the seat")
    gae_lambda: float = _f(0.95, "GAE lambda")
    update_epochs: int = _f(4, "passes over each rollout")
    minibatch_size: int = _f(2048, "samples per gradient step")
    clip_coef: float = _f(0.2, "PPO ratio clip")
    clip_vloss: bool = _f(True, "clip the value loss as in CleanRL")
    ent_coef: float = _f(0.01, "entropy bonus (over legal actions)")
    vf_coef: float = _f(0.5, "value loss weight")
    max_grad_norm: float = _f(0.5, "gradient norm clip")
    target_kl: float | None = _f(None, "stop an update's epochs early above this approx KL")
    norm_adv: bool = _f(True, "normalise advantages per minibatch")
    hidden: list[int] = _f([256, 256], "hidden layer sizes of the network")
    features: bool = _f(
        False,
        "give the network Greedy's layout arithmetic (agents.gnoming.features): every action's "
        "change of the layout estimate, added to its logit with a learned weight, and the "
        "estimates as inputs",
    )
    expert_hint: bool = _f(
        False,
        "give the network the Expert bot's action (agents.gnoming.features.expert_actions) as an "
        "input and as a logit bonus with a learned weight: the untrained network plays "
        "Expert's moves and PPO learns where to deviate",
    )
    cache_features: bool = _f(
        True,
        "compute the network's features once per sample and reuse them in every update "
        "epoch (false: recompute them in every forward pass, as before; same results)",
    )
    fused_adam: bool = _f(
        True,
        "run Adam as one fused kernel per step (torch's fused=True), several times faster "
        "than one kernel per tensor; its rounding differs in the last bits (false: the "
        "per-tensor arithmetic of earlier versions, bit for bit)",
    )
    hint_workers: int = _f(
        1,
        "processes (this one included) that compute Expert decisions for the hint and the "
        "expert bot seats (the same results for any number)",
    )
    # evaluation, logging, checkpoints
    eval_interval: int = _f(50, "updates between arena evaluations (0: only at the end)")
    eval_games: int = _f(60, "arena games per seat count and bot at each evaluation")
    eval_opponents: list[str] = _f(["random", "greedy"], "bots the arena plays against")
    final_eval_games: int = _f(300, "arena games per seat count and bot at the end (0: none)")
    checkpoint_interval: int = _f(20, "updates between checkpoints")
    progress: bool = _f(True, "show a progress bar")
    tensorboard: bool = _f(True, "write TensorBoard logs to output_dir/tb")

    def validate(self) -> None:
        """Raise ConfigError naming the first field whose value is not allowed."""

        def need(ok: bool, name: str, allowed: str) -> None:
            if not ok:
                raise ConfigError(f"{name}={getattr(self, name)!r} is not allowed: {allowed}")

        need(self.seed >= 0, "seed", "must be >= 0")
        need(bool(self.output_dir.strip()), "output_dir", "must be a directory path")
        need(self.total_steps >= 1, "total_steps", "must be >= 1")
        need(self.torch_threads >= 0, "torch_threads", "must be >= 0 (0: torch's default)")
        need(self.device in ("auto", "cpu", "cuda"), "device", "must be auto, cpu or cuda")
        need(
            bool(self.num_players)
            and all(MIN_PLAYERS <= n <= MAX_PLAYERS for n in self.num_players),
            "num_players",
            f"must be a non-empty list of seat counts {MIN_PLAYERS}..{MAX_PLAYERS}",
        )
        need(self.reward_mode in REWARD_MODES, "reward_mode", f"must be one of {REWARD_MODES}")
        need(self.shaping >= 0, "shaping", "must be >= 0 (0: no shaping)")
        need(self.num_envs >= 1, "num_envs", "must be >= 1")
        need(self.rollout_steps >= 1, "rollout_steps", "must be >= 1")
        need(0.0 <= self.self_play_fraction <= 1.0, "self_play_fraction", "must be in [0, 1]")
        need(0.0 <= self.bot_fraction <= 1.0, "bot_fraction", "must be in [0, 1]")
        for name in ("bot_opponents", "eval_opponents"):
            for spec in getattr(self, name):
                try:
                    make_agent(spec, 0)
                except ValueError as err:
                    raise ConfigError(f"{name}: {err}") from None
        need(
            self.bot_fraction == 0 or bool(self.bot_opponents),
            "bot_fraction",
            "must be 0 when bot_opponents is empty",
        )
        need(self.snapshot_interval >= 1, "snapshot_interval", "must be >= 1")
        need(self.pool_size >= 0, "pool_size", "must be >= 0")
        need(
            self.self_play_fraction == 1.0 or self.pool_size > 0 or bool(self.bot_opponents),
            "pool_size",
            "must be > 0 unless bot_opponents are given or self_play_fraction is 1",
        )
        need(
            self.init_policy is None or bool(self.init_policy.strip()),
            "init_policy",
            "must be null or a checkpoint path",
        )
        if self.pretrain_teacher is not None:
            try:
                make_agent(self.pretrain_teacher, 0)
            except ValueError as err:
                raise ConfigError(f"pretrain_teacher: {err}") from None
        need(self.pretrain_decisions >= 1, "pretrain_decisions", "must be >= 1")
        need(self.pretrain_epochs >= 1, "pretrain_epochs", "must be >= 1")
        need(self.pretrain_learning_rate > 0, "pretrain_learning_rate", "must be > 0")
        need(self.pretrain_workers >= 1, "pretrain_workers", "must be >= 1")
        need(self.learning_rate > 0, "learning_rate", "must be > 0")
        need(0.0 < self.gamma <= 1.0, "gamma", "must be in (0, 1]")
        need(0.0 <= self.gae_lambda <= 1.0, "gae_lambda", "must be in [0, 1]")
        need(self.update_epochs >= 1, "update_epochs", "must be >= 1")
        need(self.minibatch_size >= 1, "minibatch_size", "must be >= 1")
        need(self.clip_coef > 0, "clip_coef", "must be > 0")
        need(self.ent_coef >= 0, "ent_coef", "must be >= 0")
        need(self.vf_coef >= 0, "vf_coef", "must be >= 0")
        need(self.max_grad_norm > 0, "max_grad_norm", "must be > 0")
        need(self.target_kl is None or self.target_kl > 0, "target_kl", "must be null or > 0")
        need(
            bool(self.hidden) and all(h >= 1 for h in self.hidden),
            "hidden",
            "must be a non-empty list of layer sizes >= 1",
        )
        need(self.hint_workers >= 1, "hint_workers", "must be >= 1")
        need(self.eval_interval >= 0, "eval_interval", "must be >= 0")
        need(self.eval_games >= 1, "eval_games", "must be >= 1")
        need(self.final_eval_games >= 0, "final_eval_games", "must be >= 0")
        need(self.checkpoint_interval >= 1, "checkpoint_interval", "must be >= 1")

    @property
    def steps_per_update(self) -> int:
        """Decisions played per rollout (all seats)."""
        return self.num_envs * self.rollout_steps

    @property
    def num_updates(self) -> int:
        """Rollout + update iterations the run makes."""
        return max(1, math.ceil(self.total_steps / self.steps_per_update))


#: Fields a ``--resume`` may change (how long to run, how to report); the rest must match.
RESUME_OVERRIDABLE = frozenset(
    {"total_steps", "progress", "tensorboard", "eval_interval", "eval_games",
     "final_eval_games", "checkpoint_interval", "torch_threads", "device", "output_dir",
     "hint_workers", "cache_features", "fused_adam"}
)  # fmt: skip
