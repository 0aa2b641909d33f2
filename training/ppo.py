"""Self-play PPO on the vector engine: one policy for every seat count (3-7).

Run it::

    gnome train --config configs/quickstart.yaml                 # ~8 minutes on 2 cores
    gnome train --config configs/full.yaml --output_dir runs/full
    gnome train --config configs/quickstart.yaml --total_steps 500000 --seed 3   # overrides
    gnome train --resume runs/quickstart                         # continue a killed run

(``python -m training.ppo ...`` is the same.) The file reads top to bottom, as CleanRL's
``ppo.py`` does: the config → the games and who plays each seat → the network → rollouts →
advantages → the PPO update → evaluation, checkpoints and the final report.

How the games are played
------------------------
:class:`gnome_env.vector.VectorGame` runs ``num_envs`` games at once; each new game draws
its seat count from ``num_players`` (from its seed) and its *seat controllers*:

* with probability ``self_play_fraction`` every seat is the learner (the current network);
* otherwise one seat, drawn at random, is the learner and every other seat is one opponent
  from the pool: a bot from ``bot_opponents`` (with probability ``bot_fraction``) or a
  frozen snapshot of the network -- the untrained one at the start, then one every
  ``snapshot_interval`` updates (the pool keeps the latest ``pool_size``; with
  ``pool_size: 0`` the bots play every non-self-play game).

Every learner decision is a training sample. A seat's reward for a decision is the sum of
the rewards the engine pays that seat from this decision up to its next one (rewards
``[B, 7]`` arrive for every seat at round or game end, whoever acted), and the advantage
runs along each (game, seat) chain of decisions (GAE, ``gamma``/``gae_lambda``). The last
decision of a chain that is still open when the rollout ends only bootstraps the one
before it and is not trained on (its return is not known yet).

What you get in ``output_dir``
------------------------------
``config.yaml`` (resolved config), ``checkpoint.pt`` (latest training checkpoint: weights,
optimizer, config, sizes, env version, random states and the games in progress, written
atomically every ``checkpoint_interval`` updates), ``policy.pt`` (the final policy alone,
small, what ``ppo:PATH`` loads), ``tb/`` (TensorBoard: ``losses/*``, ``charts/*``,
``eval/win_rate/<bot>/<n>p``), ``history.json`` (evaluations), ``learning_curve.png`` and
``arena.json``/``arena.md`` (the final arena table).

Determinism: one seed drives everything (network init, action sampling, minibatches,
seat controllers, games); no global random state is used. On CPU with the same
``torch_threads`` the same config gives the same parameters, also across ``--resume``.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import BotAgent
from agents.features import expert_actions
from agents.learned import (
    NetFeatures,
    PolicyAgent,
    PolicyNetwork,
    checkpoint_header,
    masked_entropy,
    masked_log_probs,
    network_from_checkpoint,
    read_checkpoint,
    sample_masked,
    write_checkpoint,
)
from agents.registry import make_agent
from gnome_env.config import MAX_PLAYERS, MIN_PLAYERS, RulesConfig
from gnome_env.information import SeatView
from gnome_env.rewards import REWARD_MODES
from gnome_env.vector import VectorGame
from training.config import (
    ConfigError,
    add_field_arguments,
    build_config,
    from_mapping,
    overrides_from_args,
    to_dict,
    to_yaml,
)


# ====================================================================== 1. the config
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
    reward_mode: str = _f("score", "reward scheme of gnome_env.rewards: win, score or raw")
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
        "give the network Greedy's layout arithmetic (agents.features): every action's "
        "change of the layout estimate, added to its logit with a learned weight, and the "
        "estimates as inputs",
    )
    expert_hint: bool = _f(
        False,
        "give the network the Expert bot's action (agents.features.expert_actions) as an "
        "input and as a logit bonus with a learned weight: the untrained network plays "
        "Expert's moves and PPO learns where to deviate",
    )
    cache_features: bool = _f(
        True,
        "compute the network's features once per sample and reuse them in every update "
        "epoch (false: recompute them in every forward pass, as before; same results)",
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
     "hint_workers", "cache_features"}
)  # fmt: skip


# ====================================================================== 2. who plays each seat
LEARNER = -1  # controller code of a learner seat; snapshots are 0.., bots are -2, -3, ...


def bot_code(j: int) -> int:
    """Controller code of ``bot_opponents[j]``."""
    return -2 - j


class SeatControllers:
    """Which policy plays each seat of each game (``codes [B, 7]``), drawn per new game."""

    def __init__(self, cfg: PPOConfig, rng: np.random.Generator) -> None:
        self.cfg = cfg
        self.rng = rng
        self.codes = np.full((cfg.num_envs, MAX_PLAYERS), LEARNER, dtype=np.int64)
        self.learner_seat = np.full(cfg.num_envs, -1, dtype=np.int64)  # -1: all seats

    def assign(self, slots: np.ndarray, players: np.ndarray, pool_len: int) -> None:
        """Draw the controllers of the new games in ``slots`` (seat counts ``players``)."""
        cfg, rng = self.cfg, self.rng
        for b, n in zip(slots.tolist(), players.tolist(), strict=True):
            self.codes[b] = LEARNER
            self.learner_seat[b] = -1
            if rng.random() < cfg.self_play_fraction:
                continue
            use_bot = bool(cfg.bot_opponents) and (pool_len == 0 or rng.random() < cfg.bot_fraction)
            if not use_bot and pool_len == 0:
                continue  # pool_size 0 and no bots: self-play
            seat = int(rng.integers(n))
            code = (
                bot_code(int(rng.integers(len(cfg.bot_opponents))))
                if use_bot
                else int(rng.integers(pool_len))
            )
            self.codes[b, :n] = code
            self.codes[b, seat] = LEARNER
            self.learner_seat[b] = seat


def policy_actions(
    policy: Any, tokens: np.ndarray, masks: np.ndarray, rules: RulesConfig, vec: VectorGame
) -> np.ndarray:
    """One action per row from a bot or any policy, given the rows' tokens and masks.

    Bots decide from :meth:`SeatView.from_tokens` (no float round trip); any other policy
    (e.g. a ``ppo:PATH`` agent) acts on the float observations ``vec.expand`` gives.
    """
    if isinstance(policy, BotAgent):
        views = (SeatView.from_tokens(t, m, rules) for t, m in zip(tokens, masks, strict=True))
        return np.array([policy.decide(view) for view in views], dtype=np.int64)
    obs = vec.expand(tokens)
    return np.array([policy.act(o, m) for o, m in zip(obs, masks, strict=True)], dtype=np.int64)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a bool mask ``[R, 33]``."""
    pick = (rng.random(mask.shape[0]) * np.count_nonzero(mask, axis=1)).astype(np.int64)
    ranks = np.cumsum(mask, axis=1)
    return np.argmax(ranks > pick[:, None], axis=1)


class HintPool:
    """Expert decisions for many rows at once, spread over ``workers`` processes.

    Serves the expert hint of networks with ``expert_hint`` and the seats of ``expert``
    bots. The expert is deterministic, so the actions do not depend on ``workers``; this
    process computes one share itself while the others run.
    """

    def __init__(self, rules: RulesConfig, workers: int) -> None:
        self.rules = rules
        self.workers = workers
        self._pool: Any = None

    def __call__(self, tokens: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """``expert_actions(tokens, masks)``, ``[N]`` int64."""
        n = len(tokens)
        if self.workers <= 1 or n < 4 * self.workers:
            return expert_actions(tokens, masks, self.rules)
        if self._pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # fork: the workers start at once and import nothing again (they run no torch)
            method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
            context = multiprocessing.get_context(method)
            self._pool = ProcessPoolExecutor(self.workers - 1, mp_context=context)
        chunks = np.array_split(np.arange(n), self.workers)
        futures = [
            self._pool.submit(expert_actions, tokens[c], masks[c], self.rules) for c in chunks[1:]
        ]
        first = expert_actions(tokens[chunks[0]], masks[chunks[0]], self.rules)
        return np.concatenate([first] + [f.result() for f in futures])

    def close(self) -> None:
        """Stop the worker processes (a later call starts them again)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None


# ====================================================================== 3. rollouts
@dataclass
class Rollout:
    """The learner's decisions of one rollout plus every seat's rewards at every step."""

    tokens: np.ndarray  # [N, T] int16
    masks: np.ndarray  # [N, 33] bool
    actions: np.ndarray  # [N] int64
    log_probs: np.ndarray  # [N] float32
    values: np.ndarray  # [N] float32
    slot: np.ndarray  # [N] int64
    seat: np.ndarray  # [N] int64
    step_start: np.ndarray  # [steps + 1]: samples of step t are step_start[t]:step_start[t+1]
    rewards: np.ndarray  # [steps, B, 7] float32
    done: np.ndarray  # [steps, B] bool
    potentials: np.ndarray | None = None  # [N] shaping potential of each decision (or none)
    feats: NetFeatures | None = None  # [N] the network's features, computed once (or none)


class LayoutPotential:
    """Shaping potential of a decision: minus Greedy's estimate of the acting seat's own
    layout score, / 10 (the ``score`` reward's unit), from the observation tokens alone.

    The estimate is :func:`agents.heuristics.layout_estimate`: face-up cards scored by
    R18-R20, each face-down card at the mean points of the unseen cards -- the arithmetic of
    :class:`agents.features.LayoutFeatures` without Greedy's pair bonus. ``tests/test_ppo.py``
    compares it with the heuristic on real positions.
    """

    def __init__(self, rules: RulesConfig) -> None:
        from agents.features import LayoutFeatures

        self.features = LayoutFeatures(rules, pair_bonus=0.0)

    def estimate(self, tokens: np.ndarray) -> np.ndarray:
        """Greedy's layout-score estimate of the acting seat, ``[N]`` float64."""
        f = self.features
        own = tokens[:, f.layouts : f.layouts + 9].astype(np.intp)
        return f.estimate(own, f.mean_unseen(tokens))

    def __call__(self, tokens: np.ndarray) -> np.ndarray:
        """The potential ``-estimate / 10``, ``[N]`` float32."""
        return (-self.estimate(tokens) / 10.0).astype(np.float32)


def advantages(ro: Rollout, gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along every (game, seat) chain of learner decisions; returns (advantages, valid).

    Walks the rollout backwards keeping, per slot and seat, the reward collected since the
    seat's next decision, that decision's value and advantage. A game that ended resets
    its slot's chains (terminal: next value 0). A chain's last decision has no next value
    yet: it is marked invalid and contributes only its value to the decision before it.
    With ``ro.potentials`` each reward gets the potential-based shaping term
    ``gamma * phi(next decision) - phi(this decision)`` (``phi`` = 0 after the game's end),
    which leaves the optimal policy unchanged (Ng, Harada and Russell, 1999).
    """
    b = ro.rewards.shape[1]
    acc = np.zeros((b, MAX_PLAYERS), dtype=np.float64)
    next_value = np.zeros((b, MAX_PLAYERS), dtype=np.float64)
    next_adv = np.zeros((b, MAX_PLAYERS), dtype=np.float64)
    known = np.zeros((b, MAX_PLAYERS), dtype=bool)  # the next value is known (or terminal)
    next_phi = np.zeros((b, MAX_PLAYERS), dtype=np.float64)
    adv = np.zeros(len(ro.actions), dtype=np.float64)
    valid = np.zeros(len(ro.actions), dtype=bool)
    for t in range(ro.rewards.shape[0] - 1, -1, -1):
        ended = ro.done[t]
        acc[ended] = 0.0
        next_phi[ended] = 0.0
        next_value[ended] = 0.0
        next_adv[ended] = 0.0
        known[ended] = True
        acc += ro.rewards[t]
        i = slice(ro.step_start[t], ro.step_start[t + 1])
        s, p = ro.slot[i], ro.seat[i]
        v = ro.values[i].astype(np.float64)
        ok = known[s, p]
        delta = acc[s, p] + gamma * next_value[s, p] - v
        if ro.potentials is not None:
            phi = ro.potentials[i].astype(np.float64)
            delta = delta + gamma * next_phi[s, p] - phi
            next_phi[s, p] = phi
        a = np.where(ok, delta + gamma * lam * next_adv[s, p], 0.0)
        adv[i], valid[i] = a, ok
        next_value[s, p] = v
        next_adv[s, p] = a
        acc[s, p] = 0.0
        known[s, p] = True
    return adv, valid


class SelfPlay:
    """The games, the seat controllers, the opponent pool and the bots of one run."""

    def __init__(
        self, cfg: PPOConfig, rules: RulesConfig, device: torch.device, initial: PolicyNetwork
    ) -> None:
        self.cfg = cfg
        self.rules = rules
        self.potential = LayoutPotential(rules)
        self.device = device
        self.rng = np.random.default_rng([cfg.seed, 1])
        self.gen = torch.Generator().manual_seed(cfg.seed * 7919 + 17)
        self.vec = VectorGame(
            rules, cfg.num_envs, num_players=list(cfg.num_players), reward_mode=cfg.reward_mode
        )
        self.controllers = SeatControllers(cfg, np.random.default_rng([cfg.seed, 2]))
        self.pool: list[PolicyNetwork] = []
        self.pool_next = 0  # ring-buffer position of the next snapshot
        self.bots = [
            None if spec == "random" else make_agent(spec, cfg.seed * 1000 + j, rules)
            for j, spec in enumerate(cfg.bot_opponents)
        ]
        # expert seats and the expert hint are decided together, in parallel (HintPool)
        self.expert_bots = [spec == "expert" for spec in cfg.bot_opponents]
        self.hints = HintPool(rules, cfg.hint_workers)
        self.tokens, self.mask, self.seat = self.vec.reset(seed=cfg.seed)
        self.add_snapshot(initial)  # the untrained network: the pool is never empty
        self.controllers.assign(np.arange(cfg.num_envs), self.vec.num_players, len(self.pool))
        # learner-seat outcomes against each bot, per seat count: [bot, n] -> sums
        self.bot_games = np.zeros((len(cfg.bot_opponents), MAX_PLAYERS + 1))
        self.bot_wins = np.zeros((len(cfg.bot_opponents), MAX_PLAYERS + 1))

    @staticmethod
    def _frozen(net: PolicyNetwork) -> PolicyNetwork:
        """A copy of ``net`` in eval mode that no gradient reaches."""
        snap = copy.deepcopy(net).eval()
        for p in snap.parameters():
            p.requires_grad_(False)
        return snap

    def add_snapshot(self, net: PolicyNetwork) -> None:
        """Freeze a copy of ``net`` into the pool (replacing the oldest when full)."""
        if self.cfg.pool_size == 0:
            return
        snap = self._frozen(net)
        if len(self.pool) < self.cfg.pool_size:
            self.pool.append(snap)
        else:
            self.pool[self.pool_next] = snap
        self.pool_next = (self.pool_next + 1) % self.cfg.pool_size

    def _sample(self, net: PolicyNetwork, rows: np.ndarray, hint: np.ndarray):
        feats = net.feature_arrays(
            self.tokens[rows], self.mask[rows], hint[rows] if net.expert_hint else None
        )
        tok = torch.from_numpy(self.tokens[rows]).to(self.device)
        msk = torch.from_numpy(self.mask[rows]).to(self.device)
        logits, value = net.forward_tokens(tok, feats=feats)
        action = sample_masked(logits.cpu(), msk.cpu(), self.gen)
        logp = masked_log_probs(logits.cpu(), msk.cpu()).gather(1, action[:, None])[:, 0]
        return action.numpy(), logp.numpy(), value.cpu().numpy(), feats

    def _expert_decisions(self, net: PolicyNetwork, code: np.ndarray) -> np.ndarray:
        """The expert's action ``[B]`` (-1 where not needed) for the rows that an expert
        bot plays and, with ``expert_hint``, the rows that a network plays."""
        need = np.zeros(len(code), dtype=bool)
        for j, is_expert in enumerate(self.expert_bots):
            if is_expert:
                need |= code == bot_code(j)
        if net.expert_hint:
            need |= code >= LEARNER  # the learner and the snapshots
        out = np.full(len(code), -1, dtype=np.int64)
        rows = np.flatnonzero(need)
        if rows.size:
            out[rows] = self.hints(self.tokens[rows], self.mask[rows])
        return out

    @torch.no_grad()
    def collect(self, net: PolicyNetwork) -> Rollout:
        """Play ``rollout_steps`` vector steps; the learner's decisions become samples."""
        cfg, vec = self.cfg, self.vec
        b = cfg.num_envs
        arange = np.arange(b)
        parts: dict[str, list[np.ndarray]] = {
            k: [] for k in ("tok", "msk", "act", "lp", "v", "b", "s")
        }
        feat_parts: list[NetFeatures] = []
        step_start = [0]
        rewards = np.zeros((cfg.rollout_steps, b, MAX_PLAYERS), dtype=np.float32)
        done = np.zeros((cfg.rollout_steps, b), dtype=bool)
        for t in range(cfg.rollout_steps):
            seat = self.seat.astype(np.int64)
            code = self.controllers.codes[arange, seat]
            actions = np.zeros(b, dtype=np.int64)
            expert = self._expert_decisions(net, code)
            rows = np.flatnonzero(code == LEARNER)
            if rows.size:
                a, lp, v, feats = self._sample(net, rows, expert)
                actions[rows] = a
                if feats is not None:
                    feat_parts.append(feats)
                for key, val in (
                    ("tok", self.tokens[rows]), ("msk", self.mask[rows]), ("act", a),
                    ("lp", lp), ("v", v), ("b", rows), ("s", seat[rows]),
                ):  # fmt: skip
                    parts[key].append(val)
            step_start.append(step_start[-1] + rows.size)
            for k in np.unique(code[code >= 0]).tolist():
                rows = np.flatnonzero(code == k)
                actions[rows] = self._sample(self.pool[k], rows, expert)[0]
            for j, bot in enumerate(self.bots):
                rows = np.flatnonzero(code == bot_code(j))
                if not rows.size:
                    continue
                if self.expert_bots[j]:  # decided above, with the hint
                    actions[rows] = expert[rows]
                    continue
                if bot is None:  # "random": the same distribution as RandomAgent, vectorized
                    actions[rows] = random_legal(self.mask[rows], self.rng)
                    continue
                actions[rows] = policy_actions(
                    bot, self.tokens[rows], self.mask[rows], self.rules, vec
                )
            res = vec.step(actions)
            rewards[t], done[t] = res.rewards, res.done
            self.tokens, self.mask, self.seat = res.tokens, res.mask, res.seat
            if res.done.any():
                ended = np.flatnonzero(res.done)
                self._count_bot_games(ended, res.info)
                self.controllers.assign(ended, vec.num_players[ended], len(self.pool))

        def cat(key: str, dtype: Any, width: int | None = None) -> np.ndarray:
            if parts[key]:
                return np.concatenate(parts[key]).astype(dtype, copy=False)
            return np.zeros((0, width) if width else 0, dtype=dtype)

        tokens = cat("tok", np.int16, vec.num_tokens)
        return Rollout(
            tokens=tokens,
            masks=cat("msk", bool, 33),
            actions=cat("act", np.int64),
            log_probs=cat("lp", np.float32),
            values=cat("v", np.float32),
            slot=cat("b", np.int64),
            seat=cat("s", np.int64),
            step_start=np.array(step_start, dtype=np.int64),
            rewards=rewards,
            done=done,
            potentials=None if not cfg.shaping else cfg.shaping * self.potential(tokens),
            feats=NetFeatures.concatenate(feat_parts) if feat_parts else None,
        )

    def _count_bot_games(self, ended: np.ndarray, info: dict[str, np.ndarray]) -> None:
        codes = self.controllers.codes
        for b in ended.tolist():
            seat = int(self.controllers.learner_seat[b])
            if seat < 0:
                continue
            opp = int(codes[b, (seat + 1) % int(info["num_players"][b])])
            if opp <= -2:
                winners = info["winners"][b]
                n = int(info["num_players"][b])
                self.bot_games[-2 - opp, n] += 1
                self.bot_wins[-2 - opp, n] += winners[seat] / max(1, winners.sum())

    # -- saving the games in progress (for --resume)
    def state(self) -> dict[str, Any]:
        """Everything needed to continue exactly: games, controllers, pool, random states."""
        vec = {
            k: (torch.from_numpy(v) if isinstance(v, np.ndarray) else v)
            for k, v in self.vec.state_dict().items()
        }
        return {
            "vector": vec,
            "codes": torch.from_numpy(self.controllers.codes.copy()),
            "learner_seat": torch.from_numpy(self.controllers.learner_seat.copy()),
            "pool": [p.state_dict() for p in self.pool],
            "pool_next": self.pool_next,
            "rng": self.rng.bit_generator.state,
            "controller_rng": self.controllers.rng.bit_generator.state,
            "torch_gen": self.gen.get_state(),
            "bot_rngs": [None if bot is None else bot.rng.bit_generator.state for bot in self.bots],
            "bot_games": torch.from_numpy(self.bot_games.copy()),
            "bot_wins": torch.from_numpy(self.bot_wins.copy()),
        }

    def load_state(self, state: dict[str, Any], net: PolicyNetwork) -> None:
        """Restore :meth:`state` (the pool's networks are built like ``net``)."""
        vec = {
            k: (v.numpy() if isinstance(v, torch.Tensor) else v) for k, v in state["vector"].items()
        }
        self.tokens, self.mask, self.seat = self.vec.load_state_dict(vec)
        self.controllers.codes[:] = state["codes"].numpy()
        self.controllers.learner_seat[:] = state["learner_seat"].numpy()
        self.pool = []
        for sd in state["pool"]:
            snap = self._frozen(net)
            snap.load_state_dict(sd)
            self.pool.append(snap)
        self.pool_next = int(state["pool_next"])
        self.rng.bit_generator.state = state["rng"]
        self.controllers.rng.bit_generator.state = state["controller_rng"]
        self.gen.set_state(state["torch_gen"])
        for bot, st in zip(self.bots, state["bot_rngs"], strict=True):
            if bot is not None:
                bot.rng.bit_generator.state = st
        self.bot_games[:] = state["bot_games"].numpy()
        self.bot_wins[:] = state["bot_wins"].numpy()


# ====================================================================== 4a. imitation warm start
PRETRAIN_CHUNK_ENVS = 64  # games per recording chunk
PRETRAIN_CHUNKS = 8  # independent chunks, spread over pretrain_workers processes


def teacher_chunk(
    spec: str, rules_dict: dict[str, Any], num_players: list[int], reward_mode: str,
    gamma: float, steps: int, seed: int,
) -> dict[str, np.ndarray]:  # fmt: skip
    """Record ``steps`` vector steps of ``PRETRAIN_CHUNK_ENVS`` games where the teacher
    plays every seat: every decision (tokens, mask, action), its seat's Monte Carlo return
    and whether that return is known (``finished``: the game ended within the recording;
    else the return is 0). A pure function of its arguments, so chunks run anywhere."""
    rules = RulesConfig.from_dict(rules_dict)
    b = PRETRAIN_CHUNK_ENVS
    vec = VectorGame(rules, b, num_players=list(num_players), reward_mode=reward_mode)
    tokens, mask, seat = vec.reset(seed=seed)
    teacher = make_agent(spec, seed, rules)
    keep: dict[str, list[np.ndarray]] = {"tok": [], "msk": [], "act": [], "s": []}
    rewards = np.zeros((steps, b, MAX_PLAYERS), dtype=np.float32)
    done = np.zeros((steps, b), dtype=bool)
    for t in range(steps):
        actions = policy_actions(teacher, tokens, mask, rules, vec)
        for key, val in (("tok", tokens), ("msk", mask), ("act", actions), ("s", seat)):
            keep[key].append(val)
        res = vec.step(actions)
        rewards[t], done[t] = res.rewards, res.done
        tokens, mask, seat = res.tokens, res.mask, res.seat
    n = steps * b
    ro = Rollout(
        tokens=np.concatenate(keep["tok"]),
        masks=np.concatenate(keep["msk"]),
        actions=np.concatenate(keep["act"]).astype(np.int64),
        log_probs=np.zeros(n, np.float32),
        values=np.zeros(n, np.float32),
        slot=np.tile(np.arange(b), steps),
        seat=np.concatenate(keep["s"]).astype(np.int64),
        step_start=np.arange(0, n + 1, b),
        rewards=rewards,
        done=done,
    )
    returns, _ = advantages(ro, gamma, 1.0)  # values 0, lambda 1: sum of later rewards
    # That sum is the Monte Carlo return only where the game ended within the recording.
    ended_later = np.flip(np.logical_or.accumulate(np.flip(done, 0), 0), 0)  # [steps, B]
    finished = ended_later.reshape(-1)  # sample i = step i // b, slot i % b
    return {
        "tokens": ro.tokens,
        "masks": ro.masks,
        "actions": ro.actions,
        "returns": np.where(finished, returns, 0.0).astype(np.float32),
        "finished": finished,
    }


def pretrain(
    net: PolicyNetwork, cfg: PPOConfig, rules: RulesConfig, device: torch.device, log: Any
) -> dict[str, float]:
    """Behaviour cloning of ``pretrain_teacher`` (policy head) and its returns (value head).

    The teacher plays every seat of games on the vector engine; the network learns its
    actions (cross-entropy over the masked distribution) and the seats' returns under
    ``reward_mode`` (mean squared error, weight ``vf_coef``). 5% of the decisions are held
    out to report how often the network picks the teacher's action.
    """
    from joblib import Parallel, delayed

    chunks = PRETRAIN_CHUNKS  # fixed, so the data do not depend on pretrain_workers
    steps = max(1, math.ceil(cfg.pretrain_decisions / (chunks * PRETRAIN_CHUNK_ENVS)))
    seeds = np.random.SeedSequence([cfg.seed, 4]).generate_state(chunks, np.uint64) >> 1
    t0 = time.perf_counter()
    parts = Parallel(n_jobs=cfg.pretrain_workers, backend="loky")(
        delayed(teacher_chunk)(
            cfg.pretrain_teacher,
            rules.to_dict(),
            list(cfg.num_players),
            cfg.reward_mode,
            cfg.gamma,
            steps,
            int(seed),
        )
        for seed in seeds
    )
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    record_s = time.perf_counter() - t0
    n = len(data["actions"])
    rng = np.random.default_rng([cfg.seed, 5])
    order = rng.permutation(n)
    held = order[: max(1, n // 20)]
    train_idx = order[len(held) :]
    as_t = {key: torch.from_numpy(value) for key, value in data.items()}

    def agreement() -> float:
        net.eval()
        with torch.no_grad():
            hb = torch.from_numpy(held)
            logits, _ = net.forward_tokens(as_t["tokens"][hb].to(device), as_t["masks"][hb])
            picked = masked_log_probs(logits, as_t["masks"][hb].to(device)).argmax(1).cpu()
        return float((picked == as_t["actions"][hb]).float().mean())

    before = agreement()
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.pretrain_learning_rate, eps=1e-5)
    total = cfg.pretrain_epochs * math.ceil(len(train_idx) / cfg.minibatch_size)
    step = 0
    figures: dict[str, float] = {}
    for epoch in range(cfg.pretrain_epochs):
        net.train()
        shuffled = rng.permutation(train_idx)
        for start in range(0, len(shuffled), cfg.minibatch_size):
            optimizer.param_groups[0]["lr"] = cfg.pretrain_learning_rate * (1 - step / total)
            mb = torch.from_numpy(shuffled[start : start + cfg.minibatch_size])
            logits, value = net.forward_tokens(as_t["tokens"][mb].to(device), as_t["masks"][mb])
            logp = masked_log_probs(logits, as_t["masks"][mb].to(device))
            policy_loss = -logp.gather(1, as_t["actions"][mb].to(device)[:, None]).mean()
            known = as_t["finished"][mb].to(device)  # returns known: games that ended
            value_loss = (
                0.5
                * ((value - as_t["returns"][mb].to(device))[known] ** 2).sum()
                / max(1, int(known.sum()))
            )
            loss = policy_loss + cfg.vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
            step += 1
        net.eval()
        with torch.no_grad():
            hb = torch.from_numpy(held)
            logits, value = net.forward_tokens(as_t["tokens"][hb].to(device), as_t["masks"][hb])
            logp = masked_log_probs(logits, as_t["masks"][hb].to(device))
            picked = logp.argmax(1).cpu()
            known = as_t["finished"][hb]
            returns, value = as_t["returns"][hb][known], value.cpu()[known]
            figures = {
                "pretrain/policy_loss": float(-logp.gather(1, as_t["actions"][hb][:, None]).mean()),
                "pretrain/value_loss": float(0.5 * ((value - returns) ** 2).mean()),
                "pretrain/accuracy": float((picked == as_t["actions"][hb]).float().mean()),
                "pretrain/explained_variance": float("nan")
                if len(returns) < 2 or float(returns.var()) == 0
                else 1.0 - float(((value - returns) ** 2).mean() / returns.var()),
            }
        log(figures, epoch + 1)
    figures.update(
        {"pretrain/decisions": float(n), "pretrain/record_s": record_s,
         "pretrain/accuracy_before": before,
         "pretrain/seconds": time.perf_counter() - t0}
    )  # fmt: skip
    return figures


# ====================================================================== 4. the PPO update
def ppo_update(
    net: PolicyNetwork,
    optimizer: torch.optim.Optimizer,
    ro: Rollout,
    adv: np.ndarray,
    valid: np.ndarray,
    cfg: PPOConfig,
    rng: np.random.Generator,
    device: torch.device,
) -> dict[str, float]:
    """PPO-clip epochs over the valid samples of one rollout; returns the logged figures."""
    idx = np.flatnonzero(valid)
    if idx.size == 0:
        return {}
    tokens = torch.from_numpy(ro.tokens[idx]).to(device)
    masks = torch.from_numpy(ro.masks[idx]).to(device)
    # the features were computed once, when the rollout was played (None: recomputed here)
    feats = None
    if ro.feats is not None and cfg.cache_features:
        feats = ro.feats.take(idx).to_torch(device)
    actions = torch.from_numpy(ro.actions[idx]).to(device)
    old_logp = torch.from_numpy(ro.log_probs[idx]).to(device)
    old_values = torch.from_numpy(ro.values[idx]).to(device)
    advantages_t = torch.from_numpy(adv[idx].astype(np.float32)).to(device)
    returns = advantages_t + old_values
    n = idx.size
    figures: dict[str, list[float]] = {k: [] for k in ("pg", "v", "ent", "kl", "old_kl", "clip")}
    for _epoch in range(cfg.update_epochs):
        order = rng.permutation(n)
        for start in range(0, n, cfg.minibatch_size):
            mb = torch.from_numpy(order[start : start + cfg.minibatch_size]).to(device)
            logits, value = net.forward_tokens(
                tokens[mb], masks[mb], None if feats is None else feats.take(mb)
            )
            logp_all = masked_log_probs(logits, masks[mb])
            logp = logp_all.gather(1, actions[mb][:, None])[:, 0]
            log_ratio = logp - old_logp[mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                figures["old_kl"].append(float((-log_ratio).mean()))
                figures["kl"].append(float(((ratio - 1) - log_ratio).mean()))
                figures["clip"].append(float(((ratio - 1.0).abs() > cfg.clip_coef).float().mean()))
            a = advantages_t[mb]
            if cfg.norm_adv and a.numel() > 1:
                a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(
                -a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
            ).mean()
            if cfg.clip_vloss:
                v_clipped = old_values[mb] + (value - old_values[mb]).clamp(
                    -cfg.clip_coef, cfg.clip_coef
                )
                v_loss = (
                    0.5
                    * torch.max((value - returns[mb]) ** 2, (v_clipped - returns[mb]) ** 2).mean()
                )
            else:
                v_loss = 0.5 * ((value - returns[mb]) ** 2).mean()
            entropy = masked_entropy(logp_all, masks[mb]).mean()
            loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
            figures["pg"].append(float(pg_loss.detach()))
            figures["v"].append(float(v_loss.detach()))
            figures["ent"].append(float(entropy.detach()))
        if cfg.target_kl is not None and figures["kl"][-1] > cfg.target_kl:
            break
    y_pred, y_true = old_values.cpu().numpy(), returns.cpu().numpy()
    var_y = float(np.var(y_true))
    return {
        "losses/policy_loss": float(np.mean(figures["pg"])),
        "losses/value_loss": float(np.mean(figures["v"])),
        "losses/entropy": float(np.mean(figures["ent"])),
        "losses/approx_kl": float(np.mean(figures["kl"])),
        "losses/old_approx_kl": float(np.mean(figures["old_kl"])),
        "losses/clipfrac": float(np.mean(figures["clip"])),
        "losses/explained_variance": float("nan")
        if var_y == 0
        else 1.0 - float(np.var(y_true - y_pred)) / var_y,
        "charts/samples": float(n),
    }


# ====================================================================== 5. evaluation
def evaluate(
    net: PolicyNetwork,
    rules: RulesConfig,
    seat_counts: list[int],
    opponents: list[str],
    games: int,
    seed: int,
    progress: bool = False,
) -> dict[str, dict[int, dict[str, float]]]:
    """Arena games of the greedy policy vs n-1 copies of each bot, per seat count.

    Returns ``{bot: {n: {"win_rate", "low", "high", "mean_round_score", "games"}}}``.
    """
    from agents.arena import run_arena

    frozen = copy.deepcopy(net).cpu().eval()

    def policy(agent_seed: int, config: RulesConfig) -> PolicyAgent:
        return PolicyAgent(frozen, mode="greedy", seed=agent_seed)

    out: dict[str, dict[int, dict[str, float]]] = {}
    for bot in opponents:
        out[bot] = {}
        for n in seat_counts:
            res = run_arena(
                [policy] + [bot] * (n - 1),
                n,
                games,
                seed=seed,
                rules=rules.replace(num_players=n),
                progress=progress,
            )
            s = res.stats[0]
            out[bot][n] = {
                "win_rate": s.win_rate,
                "low": s.ci_low,
                "high": s.ci_high,
                "mean_round_score": s.mean_round_score,
                "games": res.settings["games"],
            }
    return out


def arena_table(results: dict[str, dict[int, dict[str, float]]]) -> str:
    """Markdown table of :func:`evaluate`'s results, with the 1/n a coin-flip seat gets."""
    lines = [
        "| opponents | seats | games | win rate | 95% interval | 1/n | mean round score |",
        "|---|---|---|---|---|---|---|",
    ]
    for bot, per_n in results.items():
        for n, r in sorted(per_n.items()):
            lines.append(
                f"| {n - 1} x {bot} | {n} | {r['games']} | {r['win_rate']:.3f} | "
                f"[{r['low']:.3f}, {r['high']:.3f}] | {1 / n:.3f} | {r['mean_round_score']:.2f} |"
            )
    return "\n".join(lines)


def plot_learning_curve(history: list[dict[str, Any]], path: Path) -> None:
    """Win rate vs each bot (mean over seat counts, and per seat count) against steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals = [h for h in history if "eval" in h]
    if not evals:
        return
    bots = list(evals[0]["eval"])
    fig, axes = plt.subplots(1, len(bots), figsize=(5.5 * len(bots), 4), squeeze=False)
    for ax, bot in zip(axes[0], bots, strict=True):
        steps = [h["global_step"] for h in evals]
        for n in sorted({int(k) for h in evals for k in h["eval"][bot]}):
            ys = [h["eval"][bot][str(n)]["win_rate"] for h in evals]
            ax.plot(steps, ys, marker="o", label=f"{n} seats")
            ax.axhline(1 / n, color=ax.lines[-1].get_color(), linestyle=":", linewidth=0.8)
        ax.set_title(f"policy (most likely action) vs n-1 {bot} (dotted: 1/n)")
        ax.set_xlabel("decisions played (all seats)")
        ax.set_ylabel("arena win rate")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ====================================================================== 6. the run
def _device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device='cuda' is not allowed: no CUDA device is available (use auto)")
    return torch.device(name)


def _stringify(results: dict[str, dict[int, dict[str, float]]]) -> dict[str, Any]:
    return {bot: {str(n): r for n, r in per_n.items()} for bot, per_n in results.items()}


def load_init_policy(cfg: PPOConfig, rules: RulesConfig) -> PolicyNetwork:
    """The network in ``cfg.init_policy``; ValueError/ConfigError if it does not fit."""
    where = f"init_policy {cfg.init_policy!r}"
    start = network_from_checkpoint(read_checkpoint(cfg.init_policy, rules), where)
    if start.hidden != list(cfg.hidden):
        raise ConfigError(
            f"{where} has hidden layers {start.hidden}; the config says hidden="
            f"{list(cfg.hidden)}: set hidden to {start.hidden}"
        )
    for name in ("features", "expert_hint"):
        have, want = getattr(start, name), getattr(cfg, name)
        if have != want:
            raise ConfigError(
                f"{where} has {name}={have}; the config says {name}={want}: set {name} to {have}"
            )
    return start


def train(
    cfg: PPOConfig, resume_from: dict[str, Any] | None = None, stop_after: int | None = None
) -> dict[str, Any]:
    """Run (or continue) training; returns a summary (final arena results, timings).

    ``stop_after`` (for tests) stops after that many updates in total, writing a checkpoint
    and nothing else, as if the run had been killed right after a checkpoint.
    """
    if cfg.torch_threads:
        torch.set_num_threads(cfg.torch_threads)
    device = _device(cfg.device)
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    rules = RulesConfig()
    (out / "config.yaml").write_text(to_yaml(cfg), encoding="utf-8")

    net = PolicyNetwork(rules, cfg.hidden, features=cfg.features, expert_hint=cfg.expert_hint)
    net.reset_parameters(torch.Generator().manual_seed(cfg.seed))
    net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    update_rng = np.random.default_rng([cfg.seed, 3])
    start_update, global_step, elapsed = 0, 0, 0.0
    history: list[dict[str, Any]] = []
    if resume_from is not None:
        t = resume_from["training"]
        net.load_state_dict(resume_from["state_dict"])
        optimizer.load_state_dict(t["optimizer"])
        update_rng.bit_generator.state = t["update_rng"]
        start_update, global_step = int(t["update"]), int(t["global_step"])
        elapsed = float(t["elapsed"])
        history = json.loads(t["history"])

    writer = None
    if cfg.tensorboard:
        from torch.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(str(out / "tb"))

    def log(figures: dict[str, float], step: int) -> None:
        if writer is not None:
            for key, value in figures.items():
                if not (isinstance(value, float) and math.isnan(value)):
                    writer.add_scalar(key, value, step)

    if resume_from is None and cfg.init_policy is not None:
        net.load_state_dict(load_init_policy(cfg, rules).state_dict())
        print(f"starting from the weights in {cfg.init_policy}", file=sys.stderr)
    if resume_from is None and cfg.pretrain_teacher is not None:
        print(
            f"warm start: imitating {cfg.pretrain_teacher} on {cfg.pretrain_decisions:,} decisions",
            file=sys.stderr,
        )
        done = pretrain(net, cfg, rules, device, log)
        elapsed += done["pretrain/seconds"]
        print(
            f"warm start: {done['pretrain/decisions']:,.0f} decisions recorded in "
            f"{done['pretrain/record_s']:.0f} s; held-out agreement with the teacher "
            f"{done['pretrain/accuracy']:.3f}, value explained variance "
            f"{done['pretrain/explained_variance']:.3f}; {done['pretrain/seconds']:.0f} s",
            file=sys.stderr,
        )
    play = SelfPlay(cfg, rules, device, net)
    if resume_from is not None:
        play.load_state(resume_from["training"]["selfplay"], net)

    def save(update: int) -> None:
        payload = checkpoint_header(net)
        payload["training"] = {
            "config": to_dict(cfg),
            "update": update,
            "global_step": global_step,
            "elapsed": elapsed + (time.perf_counter() - t0),
            "optimizer": optimizer.state_dict(),
            "selfplay": play.state(),
            "update_rng": update_rng.bit_generator.state,
            "history": json.dumps(history),
        }
        write_checkpoint(payload, out / "checkpoint.pt")

    def run_eval(update: int, games: int, progress: bool = False) -> dict[str, Any]:
        results = evaluate(
            net, rules, list(cfg.num_players), list(cfg.eval_opponents), games,
            seed=cfg.seed + 100_003, progress=progress,
        )  # fmt: skip
        for bot, per_n in results.items():
            for n, r in per_n.items():
                log({f"eval/win_rate/{bot}/{n}p": r["win_rate"]}, global_step)
            mean = float(np.mean([r["win_rate"] * n for n, r in per_n.items()]))
            log({f"eval/win_rate_over_1_n/{bot}": mean}, global_step)
        history.append({"update": update, "global_step": global_step, "eval": _stringify(results)})
        return results

    from tqdm import tqdm

    num_updates = cfg.num_updates
    print(
        f"training: {num_updates} updates x {cfg.steps_per_update:,} decisions "
        f"({cfg.num_envs} games x {cfg.rollout_steps} steps), seats {cfg.num_players}, "
        f"device {device}; writing to {out}"
        + (f" (tensorboard --logdir {out / 'tb'})" if cfg.tensorboard else ""),
        file=sys.stderr,
    )
    t0 = time.perf_counter()
    samples_done, rollout_s, update_s, decisions_done = 0, 0.0, 0.0, 0
    bar = tqdm(
        total=num_updates, initial=start_update, unit="update", disable=not cfg.progress,
        file=sys.stderr, dynamic_ncols=True,
    )  # fmt: skip
    last_eval = ""
    for update in range(start_update, num_updates):
        if cfg.anneal_lr:
            optimizer.param_groups[0]["lr"] = cfg.learning_rate * (1.0 - update / num_updates)
        t_roll = time.perf_counter()
        net.eval()
        ro = play.collect(net)
        adv, valid = advantages(ro, cfg.gamma, cfg.gae_lambda)
        t_upd = time.perf_counter()
        net.train()
        figures = ppo_update(net, optimizer, ro, adv, valid, cfg, update_rng, device)
        t_end = time.perf_counter()
        global_step += cfg.steps_per_update
        samples_done += int(valid.sum())
        decisions_done += cfg.steps_per_update
        rollout_s += t_upd - t_roll
        update_s += t_end - t_upd
        figures["charts/learning_rate"] = optimizer.param_groups[0]["lr"]
        figures["charts/decisions_per_s"] = cfg.steps_per_update / (t_end - t_roll)
        figures["charts/samples_per_s"] = int(valid.sum()) / (t_end - t_roll)
        figures["charts/rollout_s"] = t_upd - t_roll
        figures["charts/update_s"] = t_end - t_upd
        figures["charts/pool_size"] = len(play.pool)
        for j, bot in enumerate(cfg.bot_opponents):
            played = play.bot_games[j] > 0
            if played.any():  # win rate x n, averaged over the seat counts played
                per_n = play.bot_wins[j] / np.maximum(play.bot_games[j], 1)
                rate = float((per_n * np.arange(MAX_PLAYERS + 1))[played].mean())
                figures[f"charts/train_win_rate_over_1_n/{bot}"] = rate
        play.bot_games[:] = 0
        play.bot_wins[:] = 0
        log(figures, global_step)
        if (update + 1) % cfg.snapshot_interval == 0:
            play.add_snapshot(net)
        done_all = update + 1 == num_updates
        if cfg.eval_interval and (update + 1) % cfg.eval_interval == 0 and not done_all:
            res = run_eval(update + 1, cfg.eval_games)
            last_eval = " ".join(
                f"{bot[:6]}:{np.mean([r['win_rate'] * n for n, r in per_n.items()]):.2f}"
                for bot, per_n in res.items()
            )
        if (update + 1) % cfg.checkpoint_interval == 0 or done_all:
            save(update + 1)
        bar.set_postfix_str(
            f"sps={figures['charts/samples_per_s']:.0f} ent={figures.get('losses/entropy', 0):.2f}"
            f" kl={figures.get('losses/approx_kl', 0):.3f}"
            + (f" win_rate*n[{last_eval}]" if last_eval else ""),
            refresh=False,
        )
        bar.update(1)
        if stop_after is not None and update + 1 >= stop_after and not done_all:
            save(update + 1)
            bar.close()
            play.hints.close()
            if writer is not None:
                writer.close()
            return {"stopped_after": update + 1}
    bar.close()
    play.hints.close()
    train_seconds = elapsed + (time.perf_counter() - t0)

    # the shipped artefact: weights, sizes, rules, env version; no optimizer or games
    payload = checkpoint_header(net.cpu())
    payload["training_summary"] = {
        "config": to_dict(cfg),
        "updates": num_updates,
        "decisions": global_step,
        "train_seconds": train_seconds,
    }
    write_checkpoint(payload, out / "policy.pt")
    summary: dict[str, Any] = {
        "train_seconds": train_seconds,
        "decisions": global_step,
        "samples_this_session": samples_done,
        "decisions_this_session": decisions_done,
        "rollout_seconds": rollout_s,
        "update_seconds": update_s,
        "policy": str(out / "policy.pt"),
    }
    if cfg.final_eval_games:
        print(
            f"\nfinal arena: {cfg.final_eval_games} games per seat count vs "
            f"{', '.join(cfg.eval_opponents)}",
            file=sys.stderr,
        )
        results = run_eval(num_updates, cfg.final_eval_games, progress=cfg.progress)
        table = arena_table(results)
        (out / "arena.md").write_text(table + "\n", encoding="utf-8")
        (out / "arena.json").write_text(json.dumps(_stringify(results), indent=1), encoding="utf-8")
        summary["arena"] = results
        print(table)
    (out / "history.json").write_text(json.dumps(history, indent=1), encoding="utf-8")
    plot_learning_curve(history, out / "learning_curve.png")
    if writer is not None:
        writer.close()
    print(
        f"trained {global_step:,} decisions in {train_seconds / 60:.1f} min; "
        f"policy: {out / 'policy.pt'} (use it as ppo:{out / 'policy.pt'})"
    )
    return summary


# ====================================================================== 7. command line
def build_parser() -> argparse.ArgumentParser:
    """``gnome train`` / ``python -m training.ppo`` arguments."""
    parser = argparse.ArgumentParser(
        prog="gnome train",
        description="Self-play PPO on the vector engine (one policy for 3-7 seats).",
    )
    parser.add_argument("--config", default=None, help="YAML config (configs/quickstart.yaml)")
    parser.add_argument(
        "--resume",
        default=None,
        metavar="DIR",
        help="continue the run in DIR from DIR/checkpoint.pt with its saved config",
    )
    parser.add_argument(
        "--stop_after",
        type=int,
        default=None,
        metavar="N",
        help="stop once N updates are done in all (a checkpoint is written, nothing else), "
        "as if the run were killed there; --resume continues it, e.g. with a new total_steps",
    )
    add_field_arguments(parser, PPOConfig)
    return parser


def load_resume(directory: str | Path, overrides: dict[str, Any]) -> tuple[PPOConfig, dict]:
    """The config and checkpoint to continue the run in ``directory`` (errors: ValueError)."""
    path = Path(directory)
    if path.is_dir():
        path = path / "checkpoint.pt"
    data = read_checkpoint(path)
    if "training" not in data:
        raise ValueError(
            f"checkpoint {str(path)!r} holds a policy only (no optimizer or games): "
            "--resume needs a training checkpoint (checkpoint.pt)"
        )
    saved = data["training"]["config"]
    bad = sorted(
        k for k in overrides if k not in RESUME_OVERRIDABLE and overrides[k] != saved.get(k)
    )
    if bad:
        raise ConfigError(
            f"--resume continues the saved config; these fields cannot change: {', '.join(bad)} "
            f"(allowed: {', '.join(sorted(RESUME_OVERRIDABLE))})"
        )
    cfg = from_mapping(PPOConfig, {**saved, **overrides}, f"checkpoint {str(path)!r}")
    network_from_checkpoint(data, f"checkpoint {str(path)!r}")  # the weights fit
    return cfg, data


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse, validate, train. Bad input exits with status 2 and a message."""
    parser = build_parser()
    args = parser.parse_args(argv)
    overrides = overrides_from_args(args)
    try:
        if args.resume:
            if args.config:
                parser.error("--resume uses the run's saved config; do not pass --config")
            cfg, data = load_resume(args.resume, overrides)
            if "output_dir" not in overrides:
                cfg = dataclasses.replace(cfg, output_dir=str(Path(args.resume)))
        else:
            cfg, data = build_config(PPOConfig, args.config, overrides), None
            if cfg.init_policy is not None:  # fail before any work if it cannot be used
                load_init_policy(cfg, RulesConfig())
        if args.stop_after is not None and args.stop_after < 1:
            raise ConfigError(f"--stop_after {args.stop_after} is not allowed: must be >= 1")
    except (ConfigError, ValueError) as err:  # bad input: a message, no traceback
        parser.exit(2, f"gnome train: error: {err}\n")
    summary = train(cfg, data, stop_after=args.stop_after)
    if "stopped_after" in summary:
        print(
            f"stopped after update {summary['stopped_after']}; continue with "
            f"gnome train --resume {cfg.output_dir}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
