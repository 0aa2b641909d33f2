"""Who plays each seat, and the rollouts: games on the vector engine, the seat controllers,
the opponent pool (frozen snapshots and bots) and the expert decisions (:class:`HintPool`).

:meth:`SelfPlay.collect` plays ``rollout_steps`` vector steps and returns a :class:`Rollout`
of the learner's decisions (tokens, masks, actions, log-probabilities, values, the
network's features) and every seat's rewards at every step.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from agents.gnoming.base import BotAgent
from agents.gnoming.features import expert_actions
from agents.gnoming.learned import NetFeatures, PolicyNetwork, masked_log_probs, sample_masked
from agents.gnoming.registry import make_agent
from gnome_env.gnoming.config import MAX_PLAYERS, RulesConfig
from gnome_env.gnoming.vector import VectorGame
from training.gnoming.ppo.config import PPOConfig

# ---------------------------------------------------------------------- who plays each seat
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
    if isinstance(policy, BotAgent):  # the Greedy bot decides most rows compiled
        return policy.decide_tokens(tokens, masks, rules)
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


# ---------------------------------------------------------------------- rollouts
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

    The estimate is :func:`agents.gnoming.heuristics.layout_estimate`: face-up cards scored by
    R18-R20, each face-down card at the mean points of the unseen cards -- the arithmetic of
    :class:`agents.gnoming.features.LayoutFeatures` without Greedy's pair bonus.
    ``tests/gnoming/test_ppo.py``
    compares it with the heuristic on real positions.
    """

    def __init__(self, rules: RulesConfig) -> None:
        from agents.gnoming.features import LayoutFeatures

        self.features = LayoutFeatures(rules, pair_bonus=0.0)

    def estimate(self, tokens: np.ndarray) -> np.ndarray:
        """Greedy's layout-score estimate of the acting seat, ``[N]`` float64."""
        f = self.features
        own = tokens[:, f.layouts : f.layouts + 9].astype(np.intp)
        return f.estimate(own, f.mean_unseen(tokens))

    def __call__(self, tokens: np.ndarray) -> np.ndarray:
        """The potential ``-estimate / 10``, ``[N]`` float32."""
        return (-self.estimate(tokens) / 10.0).astype(np.float32)


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

    def _features(self, net: PolicyNetwork, code: np.ndarray, hint: np.ndarray) -> Any:
        """The features of every row a network plays (learner and snapshots, which are
        built alike), in one batch; ``None`` if the network takes none. Each row's features
        depend on that row alone, so slicing them per network changes no value."""
        if not net.uses_features:
            return None
        rows = np.flatnonzero(code >= LEARNER)
        feats = net.feature_arrays(
            self.tokens[rows], self.mask[rows], hint[rows] if net.expert_hint else None
        )
        where = np.full(len(code), -1, dtype=np.int64)
        where[rows] = np.arange(len(rows))
        return feats, where

    def _sample(self, net: PolicyNetwork, rows: np.ndarray, all_feats: Any):
        feats = None if all_feats is None else all_feats[0].take(all_feats[1][rows])
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

    @torch.inference_mode()
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
            net_feats = self._features(net, code, expert)
            rows = np.flatnonzero(code == LEARNER)
            if rows.size:
                a, lp, v, feats = self._sample(net, rows, net_feats)
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
                actions[rows] = self._sample(self.pool[k], rows, net_feats)[0]
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
