"""PPO for Nerts on the compiled batched engine: one file, read top to bottom.

CleanRL's PPO (clipped objective, GAE, advantage normalisation per minibatch, value
clipping off, orthogonal init, Adam with eps 1e-5, gradient-norm clipping), with the
things a multi-agent simultaneous game needs:

* **the batched engine**: the ``num_envs`` games are the slots of one
  :class:`gnome_env.nerts.vector.NertsVectorEngine` (the rules, observations, masks and
  rewards of ``nerts_v0``, compiled with numba when it is there), slot ``e`` with
  ``num_players[e % len(num_players)]`` seats; the observation is the same size for every
  count, so one network serves them all;
* **parameter sharing**: one network plays every learner seat; each seat of each slot is one
  *stream* of the rollout (its own rewards, values and GAE);
* **opponents**: ``self`` -- every seat is the learner and every seat's transitions are
  trained on; ``random`` -- seat 0 is the learner, the others play uniformly random legal
  actions; any other Nerts agent spec (``greedy``, ``expert``, ``ppo:PATH``) -- seat 0 is
  the learner and that agent plays every other seat from its own view (:class:`NertsView`
  of the slot's game; agents seeded from the hand's seed and the seat);
* **rewards** (``reward``): ``relative`` -- the env's (zero-sum, summing over a hand to the
  score difference, RULES-nerts.md RL notes); ``win`` -- 0 until the hand ends, then 1/k to
  each of the k seats with the best hand score less 1/n (what the one-hand arena counts);
* **imitation first** (``pretrain_teacher``): before PPO the network learns a teacher agent's
  decisions (:mod:`training.nerts.imitate`, with ``pretrain_dagger`` DAgger rounds), or
  starts from a checkpoint (``init_policy``); ``value_warmup`` first updates then train the
  value head alone so that PPO's first advantages do not undo the imitation;
* **action masks**: illegal logits are -1e9 (:class:`agents.nerts.learned.NertsPolicyNetwork`),
  so the sampled action is always legal and the entropy runs over legal actions.

Episodes are hands (``episode="hand"``); a hand that ends at the step cap is treated as
ended (no bootstrap), like CleanRL's time-limit handling. Every random draw comes from
explicit generators seeded from ``seed`` (the engine's slot streams, the action sampling,
minibatch order, the init, the imitation hands), so a run with one torch thread on CPU
repeats exactly. The rollout collection is this file's env adapter (:class:`Rollouts`); the
update, GAE, the run loop and the checkpoints are the core's (``training/core/ppo.py``,
``training/core/checkpoints.py``). Every ``checkpoint_interval`` updates and at the end
``checkpoint.pt`` is written (atomically): weights, optimizer, generator states, counters,
log, and the hands in progress as (hand seed, index in the slot's stream, joint actions so
far) -- they are replayed on ``--resume DIR``, which continues the run exactly as if it had
not stopped (``--stop_after N`` stops after update N, as if killed there).

At the end the final policy (its most likely action) plays the arena (``game="nerts"``)
against n-1 of each ``eval_opponents`` agent at each player count -- one-hand games by
default (``eval_max_hands``), a game being won by the best hand score -- and the table is
printed and saved. Run: ``gnome train --config configs/nerts_ppo.yaml`` (or
``configs/nerts_expert.yaml``, or ``python -m training.nerts.ppo --config ...``); ``--help``
lists every field.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from training.core.checkpoints import CHECKPOINT, restore, save_checkpoint
from training.core.checkpoints import load_resume as core_load_resume
from training.core.config import (
    ArgumentParser,
    ConfigError,
    add_field_arguments,
    check_at_least,
    renamed_fields,
    to_dict,
)
from training.core.ppo import (
    annealed_lr,
    begin_run,
    check_ppo_settings,
    gae_columns,
    masked_entropy_mean,
    ppo_update,
    run_updates,
)
from training.core.runs import RESUME_WITH_CONFIG_HELP, add_run_options, resume_or_new, train_to_end

OPPONENTS = ("self", "random")  # or any Nerts agent spec (a bot or ppo:PATH): see the docstring
REWARDS = ("relative", "win")
RECENT_HANDS = 50  # finished training hands the log's recent figures are taken over
#: Fields a ``--resume`` may change (how long to run, how to evaluate); the rest must match.
RESUME_OVERRIDABLE = frozenset(
    {"total_steps", "output_dir", "eval_games", "eval_seed", "eval_max_hands", "workers"}
    | {"checkpoint_interval"}
)


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
    opponents: str = field(
        default="self", metadata={"help": "self, random or a Nerts agent spec (see docstring)"}
    )
    reward: str = field(
        default="relative", metadata={"help": "relative (the env's) or win (see docstring)"}
    )
    expert_hint: bool = field(
        default=False,
        metadata={"help": "the expert bot's action as an input and logit bonus (residual)"},
    )
    hint_init: float = field(
        default=5.0,
        metadata={"help": "initial logit bonus of the expert's action (expert_hint only)"},
    )
    init_policy: str = field(
        default="", metadata={"help": "a Nerts policy checkpoint to start from ('': fresh init)"}
    )
    pretrain_teacher: str = field(
        default="", metadata={"help": "agent spec to imitate before PPO ('': none)"}
    )
    pretrain_hands: int = field(default=2000, metadata={"help": "teacher hands to imitate"})
    pretrain_samples: int = field(
        default=500_000, metadata={"help": "at most this many imitation samples"}
    )
    pretrain_epochs: int = field(default=6, metadata={"help": "passes over those samples"})
    pretrain_lr: float = field(default=1e-3, metadata={"help": "Adam rate of the imitation"})
    pretrain_dagger: int = field(
        default=0, metadata={"help": "DAgger rounds after the first fit (see imitate.py)"}
    )
    value_warmup: int = field(
        default=0, metadata={"help": "first updates that train the value head only"}
    )
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
    checkpoint_interval: int = field(
        default=10, metadata={"help": "write checkpoint.pt every this many updates"}
    )
    eval_games: int = field(
        default=400, metadata={"help": "arena games per row at the end (0: none)"}
    )
    eval_opponents: list[str] = field(
        default_factory=lambda: ["random", "greedy"],
        metadata={"help": "agent specs the final table plays n-1 of"},
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
            check_opponent_spec(self.opponents)
        if self.reward not in REWARDS:
            raise ConfigError(f"reward={self.reward!r} is not allowed: one of {REWARDS}")
        if not 0.0 <= self.hint_init <= 50.0:
            raise ConfigError(f"hint_init={self.hint_init!r} is not allowed: a number in [0, 50]")
        check_at_least("value_warmup", self.value_warmup, 0)
        for name in ("pretrain_hands", "pretrain_samples", "pretrain_epochs"):
            check_at_least(name, getattr(self, name), 1)
        check_at_least("pretrain_dagger", self.pretrain_dagger, 0)
        if self.pretrain_teacher:
            check_opponent_spec(self.pretrain_teacher, "pretrain_teacher")
            if self.expert_hint:
                raise ConfigError(
                    "expert_hint and pretrain_teacher exclude each other: with the hint the "
                    "untrained network already plays the expert's moves"
                )
            if self.init_policy:
                raise ConfigError("init_policy and pretrain_teacher exclude each other: pick one")
        if self.init_policy:
            initial_policy(self)
        for name in ("num_envs", "num_steps", "total_steps", "max_steps_per_hand", "update_epochs"):
            check_at_least(name, getattr(self, name), 1)
        for name in ("num_minibatches", "torch_threads", "workers", "checkpoint_interval"):
            check_at_least(name, getattr(self, name), 1)
        check_at_least("eval_games", self.eval_games, 0)
        check_at_least("eval_max_hands", self.eval_max_hands, 1)
        for spec in self.eval_opponents:
            check_opponent_spec(spec, "eval_opponents")
        check_ppo_settings(self)


def check_opponent_spec(spec: str, name: str = "opponents") -> None:
    """A ``ConfigError`` unless ``spec`` builds a Nerts agent (``greedy``, ``ppo:PATH``...)."""
    from agents.nerts.registry import make_nerts_agent

    try:
        make_nerts_agent(spec, 0)
    except ValueError as err:
        allowed = "self, random or a Nerts agent spec" if name == "opponents" else "an agent spec"
        raise ConfigError(f"{name}={spec!r} is not allowed: {allowed} ({err})") from None


def hand_winners(scores: list[int]) -> list[int]:
    """N31 for a one-hand game (the engine's :func:`game_winners` with the hand's scores as
    the totals): the seats with the best hand score (shared when tied)."""
    from gnome_env.nerts.engine import game_winners

    return list(game_winners(scores, scores))


#: opponent specs played by the compiled bots (agents.nerts._bot_kernels)
COMPILED_BOTS = ("greedy", "expert")


class Rollouts:
    """The env adapter: ``num_envs`` games on the compiled batched engine
    (:class:`gnome_env.nerts.vector.NertsVectorEngine`, the same rules, observations, masks
    and rewards as ``nerts_v0``; slot ``e`` has ``num_players[e % len]`` seats) played into
    a ``[T, S]`` rollout whose column ``s`` is one stream (a seat of a slot,
    :attr:`streams`) that decides at every step. Slot ``e`` plays the games of its seed
    stream (``reset(seed=seed)``); a game in progress is identified by its seed, its index in
    the stream and its joint actions so far: :meth:`state` / :meth:`load_state` save them
    and replay them on the Python engine into the slot."""

    def __init__(self, cfg: NertsPPOConfig) -> None:
        from agents.nerts import _bot_kernels as BK
        from gnome_env.nerts._kernels import SCRATCH
        from gnome_env.nerts.config import NertsConfig
        from gnome_env.nerts.vector import NertsVectorEngine

        self.cfg = cfg
        self.counts = [cfg.num_players[e % len(cfg.num_players)] for e in range(cfg.num_envs)]
        self.rules = NertsConfig(max_steps_per_hand=cfg.max_steps_per_hand)
        self.engine = NertsVectorEngine(
            self.rules, cfg.num_envs, players_per_slot=self.counts, observations="seats"
        )
        self.streams = [(e, k) for e, n in enumerate(self.counts) for k in range(n)]
        self._slot = np.array([e for e, _ in self.streams])
        self._seat = np.array([k for _, k in self.streams])
        #: learner[s]: stream ``s`` is the network's and is trained on
        self.learner = np.array([cfg.opponents == "self" or k == 0 for _, k in self.streams])
        self.learner_rows = np.flatnonzero(self.learner)
        #: opponents played by agents (a spec other than self/random): slot -> seat -> agent
        self.bot_spec = None if cfg.opponents in OPPONENTS else cfg.opponents
        self.bots: list[dict[int, Any]] = [{} for _ in self.counts]
        #: opponents played by Python agents (any spec but self, random, greedy and expert)
        self.python_bots = self.bot_spec is not None and self.bot_spec not in COMPILED_BOTS
        self.obs_size = self.engine.observation_size
        self.n_actions = self.engine.n_actions
        # greedy and expert opponents (and the expert's hints) play as the compiled bots of
        # agents.nerts._bot_kernels, on the engine's rows: the same decisions as the Python
        # bots (tests/nerts/test_nerts_bot_kernels.py), which hold no state between steps
        self.compiled_kinds = self._compiled_kinds(cfg)
        self._bk_scratch = (np.zeros(SCRATCH, np.int64), BK.empty_scratch(self.n_actions))
        T, S = cfg.num_steps, len(self.streams)
        self.obs = np.zeros((T, S, self.obs_size), np.float32)
        self.hint = np.zeros((T, S), np.int64)  # the expert's action (expert_hint only)
        self.hinting = bool(cfg.expert_hint)  # the learner rows get the expert's action
        self.mask = np.zeros((T, S, self.n_actions), bool)
        self.act = np.zeros((T, S), np.int64)
        self.logp = np.zeros((T, S), np.float32)
        self.val = np.zeros((T, S), np.float32)
        self.rew = np.zeros((T, S), np.float32)
        self.done = np.zeros((T, S), np.float32)  # 1: the hand ended with this step
        self.played: list[list[list[int]]] = [[] for _ in self.counts]  # this hand's steps
        self.current: tuple[np.ndarray, np.ndarray] | None = None  # (obs, masks) of streams
        self.finished: list[dict[str, float]] = []  # the latest RECENT_HANDS finished hands
        self.hands_done = 0
        self.env_steps = 0

    def _compiled_kinds(self, cfg: NertsPPOConfig) -> np.ndarray | None:
        """The compiled bots' kinds ``[B, 6]`` for :func:`agents.nerts._bot_kernels.
        decide_batch`: the opponents' seats (``greedy`` / ``expert`` opponents) and the
        learner's seats (the expert, for ``expert_hint``); None when neither plays."""
        from agents.nerts import _bot_kernels as BK

        kinds = {"greedy": BK.KIND_GREEDY, "expert": BK.KIND_EXPERT}
        assert set(kinds) == set(COMPILED_BOTS)
        out = np.zeros((cfg.num_envs, 6), np.int64)
        if self.bot_spec in kinds:
            for e, n in enumerate(self.counts):
                out[e, 1:n] = kinds[self.bot_spec]
        if cfg.expert_hint:
            out[self._slot[self.learner_rows], self._seat[self.learner_rows]] = BK.KIND_EXPERT
        return out if out.any() else None

    def compiled_actions(self) -> np.ndarray | None:
        """The compiled bots' actions now ``[B, 6]`` (0 where no bot plays), in one pass over
        the games; None without compiled bots."""
        from agents.nerts import _bot_kernels as BK

        if self.compiled_kinds is None:
            return None
        out = np.zeros((len(self.counts), 6), np.int64)
        st, prm, ids, counts = self.engine.compiled_state()
        BK.decide_batch(st, prm, ids, counts, self.compiled_kinds, *self._bk_scratch, out)
        return out

    def _gather(self, obs: Any, masks: Any) -> tuple[np.ndarray, np.ndarray]:
        """The streams' rows of the engine's ``[B, 6, ...]`` observations and masks."""
        return obs[self._slot, self._seat], masks[self._slot, self._seat].astype(bool)

    def seat_bots(self, e: int, seed: int | None = None) -> dict[int, Any]:
        """The opponent agents of slot ``e``'s hand of seed ``seed`` (default: the hand now in
        the slot): seat ``k >= 1`` seeded from the hand's seed."""
        from agents.nerts.registry import make_nerts_agent
        from gnome_env.core import rng as grng

        seed = int(self.engine.game_seeds[e]) if seed is None else seed
        rules = self.rules.replace(num_players=self.counts[e])
        return {
            k: make_nerts_agent(self.bot_spec, grng.derive_seed(grng.GAME, seed, k), rules)
            for k in range(1, self.counts[e])
        }

    def bot_actions(self, e: int, game: Any = None) -> dict[int, int]:
        """What slot ``e``'s opponent agents play now (each from its seat's view)."""
        from gnome_env.nerts.information import NertsView

        game = self.engine.game(e) if game is None else game
        return {k: int(bot.decide(NertsView.from_game(game, k))) for k, bot in self.bots[e].items()}

    def start(self) -> None:
        """Deal every slot's first hand."""
        self.current = self._gather(*self.engine.reset(seed=self.cfg.seed))
        if self.python_bots:
            self.bots = [self.seat_bots(e) for e in range(len(self.counts))]

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps: the hands in progress, the counters, the recent hands."""
        return {
            "hands": [int(x) for x in self.engine.episodes],
            "hand_seeds": [int(x) for x in self.engine.game_seeds],
            "played": [[list(step) for step in steps] for steps in self.played],
            "finished": json.dumps(self.finished),
            "hands_done": self.hands_done,
        }

    def load_state(self, training: dict[str, Any]) -> None:
        """Replay the saved hands on the Python engine (same seeds, same joint actions, the
        opponent agents deciding again so that they are where they were) into the slots."""
        from gnome_env.nerts.engine import NertsGame

        self.engine.reset(seed=self.cfg.seed)
        rows = zip(training["hands"], training["hand_seeds"], training["played"], strict=True)
        for e, (episode, seed, steps) in enumerate(rows):
            game = NertsGame(self.rules.replace(num_players=self.counts[e]), int(seed))
            if self.python_bots:
                self.bots[e] = self.seat_bots(e, int(seed))
            for step in steps:
                if self.python_bots:
                    self.bot_actions(e, game)
                game.step([int(a) for a in step])
            self.engine.load_slot(e, game, int(episode))
            self.played[e] = [[int(a) for a in step] for step in steps]
        self.current = self._gather(self.engine.observations(), self.engine.legal_mask())
        self.env_steps = int(training["env_steps"])
        self.finished = json.loads(training["finished"])
        self.hands_done = int(training["hands_done"])

    def hints(self, bots: np.ndarray | None) -> np.ndarray:
        """The expert's action for every learner stream now (0 elsewhere, and everywhere
        without ``expert_hint``), each from its own seat's public information: read from
        ``bots``, the compiled bots' actions of this step (:meth:`compiled_actions`)."""
        out = np.zeros(len(self.streams), np.int64)
        if not self.hinting:
            return out
        rows = self.learner_rows
        out[rows] = bots[self._slot[rows], self._seat[rows]]
        return out

    def slot_game(self, e: int, games: dict[int, Any]) -> Any:
        """Slot ``e``'s game now as a Python game, built once per step into ``games``."""
        if e not in games:
            games[e] = self.engine.game(e)
        return games[e]

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """Every stream's observation and action mask now."""
        assert self.current is not None, "start() or load_state() first"
        return self.current

    def collect(self, net: Any, act_rng: np.random.Generator) -> None:
        """Fill the rollout: ``num_steps`` steps of every slot (Gumbel-max sampling from
        ``act_rng``, never torch's global generator; with ``opponents: random`` the other
        seats play uniformly random legal actions, with an agent spec that agent's)."""
        import torch

        rows = self.learner_rows
        for t in range(self.cfg.num_steps):
            obs, mask = self.observe()
            games: dict[int, Any] = {}
            bots = self.compiled_actions()  # greedy / expert opponents and hints
            hint = self.hints(bots)
            with torch.no_grad():
                logits, value = net(
                    torch.as_tensor(obs[rows]), torch.as_tensor(mask[rows]), self._hint(hint)
                )
                logp_all = torch.log_softmax(logits, -1).numpy()
            gumbel = -np.log(-np.log(act_rng.random(logp_all.shape).clip(1e-12, 1 - 1e-12)))
            actions = np.zeros(len(self.streams), np.int64)
            actions[rows] = np.where(mask[rows], logp_all + gumbel, -np.inf).argmax(1)
            if self.cfg.opponents == "random":  # opponents: uniform over their legal actions
                noise = np.where(mask, act_rng.random(mask.shape), -1.0)
                actions = np.where(self.learner, actions, noise.argmax(1))
            elif self.bot_spec in COMPILED_BOTS:
                actions = np.where(self.learner, actions, bots[self._slot, self._seat])
            elif self.python_bots:  # opponents: agents deciding from their views
                first = 0
                for e, n in enumerate(self.counts):
                    for k, a in self.bot_actions(e, self.slot_game(e, games)).items():
                        actions[first + k] = a
                    first += n
            self.obs[t], self.mask[t], self.act[t], self.hint[t] = obs, mask, actions, hint
            self.logp[t, rows] = logp_all[np.arange(len(rows)), actions[rows]]
            self.val[t, rows] = value.numpy()
            self.step(t, actions)
            self.env_steps += self.cfg.num_envs

    def step(self, t: int, actions: np.ndarray) -> None:
        """Step every slot with its seats' ``actions``; book row ``t``'s rewards and ends
        (the engine deals the next hand where one ended)."""
        joint = np.zeros((len(self.counts), 6), np.int64)
        joint[self._slot, self._seat] = actions
        for e, n in enumerate(self.counts):
            self.played[e].append([int(a) for a in joint[e, :n]])
        obs, masks, rew, dones, info = self.engine.step(joint)
        reward = rew[self._slot, self._seat]
        if self.cfg.reward == "win":  # 1/k to each of k winners, less 1/n, at the end
            reward = np.zeros(len(self.streams), np.float32)
        first = 0
        for e, n in enumerate(self.counts):
            if dones[e]:
                scores = [int(x) for x in info["hand_scores"][e, :n]]
                if self.cfg.reward == "win":
                    won = hand_winners(scores)
                    for k in range(n):
                        reward[first + k] = (1 / len(won) if k in won else 0.0) - 1 / n
                hand = {"players": n, "seat0": scores[0], "steps": int(info["step"][e])}
                self.finished = [*self.finished[1 - RECENT_HANDS :], hand]
                self.hands_done += 1
                self.played[e] = []
                if self.python_bots:
                    self.bots[e] = self.seat_bots(e)
            first += n
        self.rew[t] = reward
        self.done[t] = dones[self._slot].astype(np.float32)
        self.current = self._gather(obs, masks)

    def next_value(self, net: Any) -> np.ndarray:
        """The values of the states after the rollout (GAE's bootstrap)."""
        import torch

        obs, mask = self.observe()
        values = np.zeros(len(self.streams), np.float32)
        rows = self.learner_rows
        hint = self._hint(self.hints(self.compiled_actions() if self.hinting else None))
        with torch.no_grad():
            values[rows] = net(torch.as_tensor(obs[rows]), torch.as_tensor(mask[rows]), hint)[
                1
            ].numpy()
        return values

    def _hint(self, hint: np.ndarray) -> Any:
        """The learner rows' hints as the network's input (None without ``expert_hint``)."""
        import torch

        return torch.as_tensor(hint[self.learner_rows]) if self.hinting else None

    def recent(self) -> dict[str, Any]:
        """The log's figures of the recent finished hands."""
        recent = self.finished
        if not recent:
            return {"hands": self.hands_done, "recent_seat0_score": None, "recent_hand_steps": None}
        return {
            "hands": self.hands_done,
            "recent_seat0_score": round(float(np.mean([h["seat0"] for h in recent])), 2),
            "recent_hand_steps": round(float(np.mean([h["steps"] for h in recent])), 1),
        }


#: What a Nerts training checkpoint's ``training`` dict holds besides config and optimizer.
RESUME_KEYS = ("updates", "env_steps", "seconds", "torch_generator", "act_rng", "hands")
RESUME_KEYS += ("hand_seeds",)
RESUME_KEYS += ("played", "finished", "hands_done", "history")


def train(
    cfg: NertsPPOConfig, resume_from: dict[str, Any] | None = None, stop_after: int | None = None
) -> dict[str, Any]:
    """Run (or continue) PPO; write ``checkpoint.pt``, ``policy.pt``, ``config.yaml`` and
    ``summary.json``; return the summary. ``stop_after`` stops after that many updates in
    all (a checkpoint is written, nothing else), as if the run were killed there."""
    import torch

    from agents.nerts.learned import NertsPolicyNetwork, checkpoint_payload, write_checkpoint

    out = begin_run(cfg)
    play = Rollouts(cfg)
    gen = torch.Generator().manual_seed(cfg.seed)
    net = NertsPolicyNetwork(
        play.obs_size, play.n_actions, cfg.hidden, cfg.expert_hint, cfg.hint_init
    )
    net.reset_parameters(gen)
    if cfg.init_policy and resume_from is None:
        load_initial_policy(net, cfg)
    pretrain: dict[str, float] = {}
    if cfg.pretrain_teacher and resume_from is None:
        pretrain = imitate_teacher(net, gen, cfg, out, play.rules)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5, fused=True)
    act_rng = np.random.default_rng([cfg.seed, 1])
    rngs = {"torch_generator": gen, "act_rng": act_rng}
    first_update, elapsed, history = 0, 0.0, []
    if resume_from is None:
        play.start()
    else:
        t = restore(resume_from, net, opt, rngs)
        play.load_state(t)
        first_update, elapsed = int(t["updates"]), float(t["seconds"])
        history = json.loads(t["history"])
    updates = max(1, cfg.total_steps // (cfg.num_steps * cfg.num_envs))
    rules, start = play.rules, time.perf_counter()

    def seconds() -> float:
        return round(elapsed + time.perf_counter() - start, 1)

    def checkpoint(updates_done: int) -> None:  # the core's training checkpoint
        counters = {"updates": updates_done, "env_steps": play.env_steps, "seconds": seconds()}
        save_checkpoint(
            out / CHECKPOINT, checkpoint_payload(net, rules, {}), config=cfg, optimizer=opt,
            counters=counters, rngs=rngs, extras={**play.state(), "history": json.dumps(history)},
        )  # fmt: skip

    def one_update(update: int) -> None:
        if cfg.anneal_lr:
            opt.param_groups[0]["lr"] = annealed_lr(cfg.learning_rate, update, updates)
        play.collect(net, act_rng)
        p = play
        adv = gae_columns(p.rew, p.val, p.done, p.next_value(net), cfg.gamma, cfg.gae_lambda)
        warm = update < cfg.value_warmup  # the value head alone learns (the policy is kept)
        for module in (net.trunk, net.policy):
            module.requires_grad_(not warm)
        stats = learn(
            net, opt, gen, cfg, p.obs, p.mask, p.act, p.logp, adv, adv + p.val, p.learner,
            p.hint if cfg.expert_hint else None,
        )  # fmt: skip
        for module in (net.trunk, net.policy):
            module.requires_grad_(True)
        row = {"update": update + 1, "env_steps": p.env_steps, "seconds": seconds(), **stats}
        history.append({**row, **p.recent()})
        if (update + 1) % 10 == 0 or update + 1 == updates:
            print(json.dumps(history[-1]), flush=True)

    stopped = run_updates(
        first_update, updates, one_update, checkpoint, cfg.checkpoint_interval, stop_after
    )
    if stopped is not None:
        return {"stopped_after": stopped}
    training = {"config": to_dict(cfg), "updates": updates, "env_steps": play.env_steps}
    write_checkpoint(checkpoint_payload(net, rules, training), out / "policy.pt")
    summary: dict[str, Any] = {
        "config": to_dict(cfg),
        "env_steps": play.env_steps,
        "learner_decisions": int(
            play.env_steps * np.mean(play.counts) if cfg.opponents == "self" else play.env_steps
        ),
        "seconds": seconds(),
        "pretrain": pretrain,
        "history": history,
    }
    if cfg.eval_games > 0:
        summary["arena"] = evaluate(out / "policy.pt", cfg)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def imitate_teacher(net: Any, gen: Any, cfg: NertsPPOConfig, out: Path, rules: Any) -> dict:
    """The pre-training stage (:mod:`training.nerts.imitate`): ``pretrain_hands`` teacher
    hands at the run's player counts, fitted into ``net``; ``pretrain.pt`` keeps the result."""
    from agents.nerts.learned import checkpoint_payload, write_checkpoint
    from training.nerts.imitate import fit, greedy_student, teacher_samples

    start = time.perf_counter()
    data = teacher_samples(
        cfg.pretrain_teacher, cfg.pretrain_hands, cfg.num_players, cfg.seed,
        cfg.max_steps_per_hand, cfg.pretrain_samples,
    )  # fmt: skip
    figures = fit(net, data, gen, cfg.pretrain_epochs, cfg.pretrain_lr)
    for r in range(cfg.pretrain_dagger):  # DAgger: the student's positions, teacher's labels
        more = teacher_samples(
            cfg.pretrain_teacher, cfg.pretrain_hands, cfg.num_players, cfg.seed,
            cfg.max_steps_per_hand, cfg.pretrain_samples, student=greedy_student(net),
            first_hand=(r + 1) * cfg.pretrain_hands,
        )  # fmt: skip
        data = tuple(np.concatenate(pair) for pair in zip(data, more, strict=True))
        figures = fit(net, data, gen, cfg.pretrain_epochs, cfg.pretrain_lr)
        figures["dagger_rounds"] = r + 1
    figures["seconds"] = round(time.perf_counter() - start, 1)
    write_checkpoint(checkpoint_payload(net, rules, {"pretrain": figures}), out / "pretrain.pt")
    return figures


def initial_policy(cfg: NertsPPOConfig) -> dict[str, Any]:
    """The checked ``init_policy`` checkpoint: a ``ConfigError`` when it is missing,
    unreadable or of another shape than this run's network (saying what differs)."""
    from agents.nerts.learned import read_checkpoint
    from gnome_env.nerts.config import NertsConfig
    from gnome_env.nerts.encoding import NertsEncoder

    path = cfg.init_policy
    if not Path(path).is_file():
        raise ConfigError(f"init_policy={path!r} is not a file")
    try:
        data = read_checkpoint(path)
    except ValueError as err:
        raise ConfigError(f"init_policy: {err}") from None
    rules = NertsConfig()  # the default table sizes, as the run's envs have them
    net = data["network"]
    have = (data["observation_size"], data["num_actions"], net.get("hidden"))
    have += (bool(net.get("expert_hint", False)),)
    want = (NertsEncoder(rules).size, rules.n_actions, list(cfg.hidden), cfg.expert_hint)
    if have != want:
        raise ConfigError(
            f"init_policy={path!r} has (observation size, actions, hidden, expert_hint) "
            f"{have}; this run has {want}"
        )
    return data


def load_initial_policy(net: Any, cfg: NertsPPOConfig) -> None:
    """Start from the weights of the ``init_policy`` checkpoint."""
    net.load_state_dict(initial_policy(cfg)["state_dict"])


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
    hint: np.ndarray | None = None,
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
    if hint is not None:
        data["hint"] = torch.as_tensor(hint.reshape(-1))[rows]

    def policy(b: dict[str, Any]) -> tuple[Any, Any]:
        logits, value = net(b["obs"], b["masks"], b.get("hint"))
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
    """The policy against n-1 of each ``eval_opponents`` agent at each player count (arena)."""
    from agents.core.arena import run_arena

    rows = []
    for n in sorted(set(cfg.num_players)):
        for other in cfg.eval_opponents:
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


def build_parser() -> argparse.ArgumentParser:
    """``python -m training.nerts.ppo`` / ``gnome train`` (``trainer: nerts_ppo``) options."""
    parser = ArgumentParser(
        prog="gnome train", description="PPO for Nerts (nerts_v0, trainer: nerts_ppo)"
    )
    add_run_options(parser, RESUME_WITH_CONFIG_HELP)
    add_field_arguments(parser, NertsPPOConfig)
    return parser


def load_resume(directory: str | Path, overrides: dict[str, Any]) -> tuple[NertsPPOConfig, dict]:
    """The config and checkpoint to continue the run in ``directory`` (the core's
    :func:`training.core.checkpoints.load_resume`; errors: ValueError)."""
    from agents.nerts.learned import network_from_checkpoint, read_checkpoint

    return core_load_resume(
        NertsPPOConfig, directory, overrides, RESUME_OVERRIDABLE, read_checkpoint,
        network_from_checkpoint, keys=RESUME_KEYS,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Parse, validate, train (or resume); bad input exits with 2."""
    args = build_parser().parse_args(argv)
    try:
        cfg, data = resume_or_new(args, NertsPPOConfig, load_resume)
    except (ConfigError, ValueError) as err:  # bad input: a message, no traceback
        print(f"gnome train: error: {err}", file=sys.stderr)
        return 2
    return train_to_end(train, cfg, data, args.stop_after)


if __name__ == "__main__":
    sys.exit(main())
