"""The learning step: advantages along each seat's chain of decisions (GAE) and the
PPO-clip update over one rollout -- the part of the algorithm CleanRL's ``ppo.py`` shows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from agents.gnoming.learned import PolicyNetwork, TokenInputs, masked_entropy, masked_log_probs
from gnome_env.gnoming.config import MAX_PLAYERS
from training.core.ppo import gae_step
from training.core.ppo import ppo_update as core_update
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
        phi = nphi = None
        if ro.potentials is not None:
            phi, nphi = ro.potentials[i].astype(np.float64), next_phi[s, p]
        a = gae_step(acc[s, p], v, next_value[s, p], next_adv[s, p], 1.0, gamma, lam, phi, nphi)
        a = np.where(ok, a, 0.0)
        if phi is not None:
            next_phi[s, p] = phi
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
    data: dict[str, Any] = {
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
    if feats is not None:
        data["feats"] = feats

    def policy(b: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        if "feats" in b:
            mb_feats = b["feats"]
        elif net.uses_features:  # cache_features: false, the behaviour before issue #13
            mb_feats = net.feature_arrays(b["tokens"].cpu().numpy(), b["masks"].cpu().numpy())
        else:
            mb_feats = None
        logits, value = net.forward_inputs(TokenInputs(b["rows"], b["counts"]), mb_feats)
        return masked_log_probs(logits, b["masks"]), value

    n = idx.size
    figures = core_update(
        net, optimizer, data, policy, lambda lp, m: masked_entropy(lp, m).mean(),
        lambda n: torch.from_numpy(rng.permutation(n)).to(device),
        epochs=cfg.update_epochs, minibatch_size=cfg.minibatch_size, clip_coef=cfg.clip_coef,
        ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm,
        norm_adv=cfg.norm_adv, clip_vloss=cfg.clip_vloss, target_kl=cfg.target_kl,
    )  # fmt: skip
    old_values, returns = data["old_values"], data["returns"]
    y_pred, y_true = old_values.cpu().numpy(), returns.cpu().numpy()
    var_y = float(np.var(y_true))
    return {
        "losses/policy_loss": figures["pg"],
        "losses/value_loss": figures["v"],
        "losses/entropy": figures["ent"],
        "losses/approx_kl": figures["kl"],
        "losses/old_approx_kl": figures["old_kl"],
        "losses/clipfrac": figures["clip"],
        "losses/explained_variance": float("nan")
        if var_y == 0
        else 1.0 - float(np.var(y_true - y_pred)) / var_y,
        "charts/samples": float(n),
    }
