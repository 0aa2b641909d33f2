"""The learning step: advantages along each seat's chain of decisions (GAE) and the
PPO-clip update over one rollout -- the part of the algorithm CleanRL's ``ppo.py`` shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from agents.gnoming.learned import PolicyNetwork, TokenInputs, masked_entropy, masked_log_probs
from gnome_env.gnoming.config import MAX_PLAYERS
from training.gnoming.ppo.config import PPOConfig
from training.gnoming.ppo.selfplay import Rollout


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


def make_adam(params: Any, lr: float, fused: bool) -> torch.optim.Adam:
    """The Adam optimizer of training (eps 1e-5, as CleanRL), as one fused kernel per step
    (``fused_adam: true``) or as torch's per-tensor loop, batched (``foreach``: the same
    arithmetic as the plain loop, so the same weights to the bit)."""
    kernel = {"fused": True} if fused else {"foreach": True}
    return torch.optim.Adam(params, lr=lr, eps=1e-5, **kernel)


def set_adam_kernel(optimizer: torch.optim.Optimizer, fused: bool) -> None:
    """Make a loaded optimizer (``load_state_dict`` restores the saved groups' flags) run
    as :func:`make_adam` says; the fused kernel wants every ``step`` on the parameter's
    device, in float32."""
    for group in optimizer.param_groups:
        group["fused"], group["foreach"] = (True, None) if fused else (None, True)
    if fused:
        for param, state in optimizer.state.items():
            if "step" in state:
                state["step"] = state["step"].to(device=param.device, dtype=torch.float32)


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
    # Everything a minibatch reads is converted once per update (the first layer's rows and
    # counts are a pure function of the tokens); each epoch puts it in its shuffled order
    # with one gather per tensor, and a minibatch is then a slice (a view, no copy): the same
    # rows, in the same order, as indexing every tensor per minibatch.
    data: dict[str, torch.Tensor] = {
        "masks": torch.from_numpy(ro.masks[idx]).to(device),
        "actions": torch.from_numpy(ro.actions[idx]).to(device),
        "old_logp": torch.from_numpy(ro.log_probs[idx]).to(device),
        "old_values": torch.from_numpy(ro.values[idx]).to(device),
        "advantages": torch.from_numpy(adv[idx].astype(np.float32)).to(device),
    }
    data["returns"] = data["advantages"] + data["old_values"]
    inputs = net.token_inputs(tokens)
    data["rows"], data["counts"] = inputs.rows, inputs.counts
    # the features were computed once, when the rollout was played (None: recomputed here)
    feats = None
    if ro.feats is not None and cfg.cache_features:
        feats = ro.feats.take(idx).to_torch(device)
    elif net.uses_features:
        data["tokens"] = tokens
    n = idx.size
    figures: dict[str, list[float]] = {k: [] for k in ("pg", "v", "ent", "kl", "old_kl", "clip")}
    for _epoch in range(cfg.update_epochs):
        order = torch.from_numpy(rng.permutation(n)).to(device)
        epoch = {k: v.index_select(0, order) for k, v in data.items()}
        epoch_feats = None if feats is None else feats.take(order)
        for start in range(0, n, cfg.minibatch_size):
            mb = slice(start, start + cfg.minibatch_size)
            masks = epoch["masks"][mb]
            if feats is not None:
                mb_feats = epoch_feats.take(mb)
            elif net.uses_features:  # cache_features: false, the behaviour before issue #13
                mb_feats = net.feature_arrays(
                    epoch["tokens"][mb].cpu().numpy(), masks.cpu().numpy()
                )
            else:
                mb_feats = None
            logits, value = net.forward_inputs(
                TokenInputs(epoch["rows"][mb], epoch["counts"][mb]), mb_feats
            )
            logp_all = masked_log_probs(logits, masks)
            logp = logp_all.gather(1, epoch["actions"][mb][:, None])[:, 0]
            log_ratio = logp - epoch["old_logp"][mb]
            ratio = log_ratio.exp()
            with torch.no_grad():
                figures["old_kl"].append(float((-log_ratio).mean()))
                figures["kl"].append(float(((ratio - 1) - log_ratio).mean()))
                figures["clip"].append(float(((ratio - 1.0).abs() > cfg.clip_coef).float().mean()))
            a = epoch["advantages"][mb]
            if cfg.norm_adv and a.numel() > 1:
                a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(
                -a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)
            ).mean()
            old_values, returns = epoch["old_values"][mb], epoch["returns"][mb]
            if cfg.clip_vloss:
                v_clipped = old_values + (value - old_values).clamp(-cfg.clip_coef, cfg.clip_coef)
                v_loss = 0.5 * torch.max((value - returns) ** 2, (v_clipped - returns) ** 2).mean()
            else:
                v_loss = 0.5 * ((value - returns) ** 2).mean()
            entropy = masked_entropy(logp_all, masks).mean()
            loss = pg_loss - cfg.ent_coef * entropy + cfg.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm, foreach=True)
            optimizer.step()
            figures["pg"].append(float(pg_loss.detach()))
            figures["v"].append(float(v_loss.detach()))
            figures["ent"].append(float(entropy.detach()))
        if cfg.target_kl is not None and figures["kl"][-1] > cfg.target_kl:
            break
    old_values, returns = data["old_values"], data["returns"]
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
