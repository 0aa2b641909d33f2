"""The learning step: advantages along each seat's chain of decisions (GAE) and the
PPO-clip update over one rollout -- the part of the algorithm CleanRL's ``ppo.py`` shows.
"""

from __future__ import annotations

import numpy as np
import torch

from agents.learned import PolicyNetwork, masked_entropy, masked_log_probs
from gnome_env.config import MAX_PLAYERS
from training.ppo.config import PPOConfig
from training.ppo.selfplay import Rollout


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
