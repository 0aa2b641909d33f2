"""Optional imitation warm start (``pretrain_teacher``): behaviour cloning of a bot."""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import torch

from agents.gnoming.learned import PolicyNetwork, masked_log_probs
from agents.gnoming.registry import make_agent
from gnome_env.gnoming.config import MAX_PLAYERS, RulesConfig
from gnome_env.gnoming.vector import VectorGame
from training.gnoming.ppo.config import PPOConfig
from training.gnoming.ppo.selfplay import Rollout, policy_actions
from training.gnoming.ppo.update import advantages, make_adam

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
    optimizer = make_adam(net.parameters(), cfg.pretrain_learning_rate, cfg.fused_adam)
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
