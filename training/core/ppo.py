"""The PPO core every game's trainer calls: GAE over per-seat decision streams, the clipped
update with its minibatch loop, and the run loop's skeleton (with its checkpoints).

A trainer keeps what is its own -- the network, the env adapter that turns games into
decision streams, the opponent pool, the features, the log -- and calls these. The
arithmetic here is the one each trainer had before (the same float operations in the
same order, the same random draws), so a fixed-seed CPU run gives the same weights to
the bit (``tests/core/test_trainer_digests.py``, ``tests/gnoming/test_ppo.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np


def check_ppo_settings(cfg: Any) -> None:
    """The PPO settings every trainer's config has, checked: ``hidden`` (layer sizes),
    ``learning_rate``, ``gamma``, ``gae_lambda`` and ``clip_coef`` in (0, 1], ``ent_coef``,
    ``vf_coef`` and ``max_grad_norm`` >= 0; a ``ConfigError`` names the field."""
    from training.core.config import ConfigError

    if not cfg.hidden or any(h < 1 for h in cfg.hidden):
        raise ConfigError(f"hidden={cfg.hidden!r} is not allowed: a non-empty list of sizes >= 1")
    for name in ("learning_rate", "gamma", "gae_lambda", "clip_coef"):
        value = getattr(cfg, name)
        if not 0 < value <= 1:
            raise ConfigError(f"{name}={value!r} is not allowed: must be in (0, 1]")
    for name in ("ent_coef", "vf_coef", "max_grad_norm"):
        if getattr(cfg, name) < 0:
            raise ConfigError(f"{name}={getattr(cfg, name)!r} is not allowed: must be >= 0")


# ---------------------------------------------------------------------- advantages (GAE)
def gae_step(
    reward: Any,
    value: Any,
    next_value: Any,
    next_adv: Any,
    live: Any,
    gamma: float,
    lam: float,
    potential: Any = None,
    next_potential: Any = None,
) -> Any:
    """One decision's GAE advantage from its successor's value and advantage (arrays or
    scalars, elementwise). ``live`` is 0 where the decision ended its stream (terminal) and
    1 where it did not. With ``potential`` the reward gets the potential-based shaping term
    ``gamma * next_potential - potential`` (Ng, Harada and Russell, 1999)."""
    delta = reward + gamma * next_value * live - value
    if potential is not None:
        delta = delta + gamma * next_potential - potential
    return delta + gamma * lam * live * next_adv


def gae_columns(
    rew: np.ndarray,
    val: np.ndarray,
    done: np.ndarray,
    next_value: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE of a ``[T, S]`` rollout whose column ``s`` is one stream that decides at every
    step (``done[t]``: 1 where the decision ended the stream's episode); ``next_value`` is
    the value of each stream's state after the rollout. Returns the advantages."""
    T = rew.shape[0]
    adv = np.zeros_like(rew)
    last = np.zeros(rew.shape[1:], rew.dtype)
    for t in reversed(range(T)):
        nv = next_value if t == T - 1 else val[t + 1]
        live = 1.0 - done[t]
        last = gae_step(rew[t], val[t], nv, last, live, gamma, lam)
        adv[t] = last
    return adv


def gae_streams(
    rew: np.ndarray,
    val: np.ndarray,
    done: np.ndarray,
    seat: np.ndarray,
    gamma: float,
    lam: float,
) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each (column, seat) stream of a ``[T, E]`` rollout.

    Row ``t`` of column ``e`` is one decision of seat ``seat[t, e]``; its successor is that
    seat's next row in the column. A decision with ``done`` is terminal; the last decision
    of a seat with no successor and no ``done`` is not valid (its return is not known yet:
    it only bootstraps its predecessor with its value). Returns ``(advantages, valid)``.
    """
    T, E = rew.shape
    adv = np.zeros((T, E), np.float32)
    valid = np.zeros((T, E), bool)
    for e in range(E):
        next_value: dict[int, float] = {}  # seat -> value of its successor decision
        next_adv: dict[int, float] = {}
        for t in reversed(range(T)):
            s = int(seat[t, e])
            if done[t, e]:
                a = gae_step(rew[t, e], val[t, e], 0.0, 0.0, 0.0, gamma, lam)
            elif s in next_value:
                a = gae_step(rew[t, e], val[t, e], next_value[s], next_adv[s], 1.0, gamma, lam)
            else:  # open at the end of the rollout: bootstrap only
                next_value[s], next_adv[s] = float(val[t, e]), 0.0
                continue
            adv[t, e], valid[t, e] = a, True
            next_value[s], next_adv[s] = float(val[t, e]), float(a)
    return adv, valid


# ---------------------------------------------------------------------- the update
def _take(value: Any, index: Any) -> Any:
    """Rows ``index`` (an index tensor or a slice) of a tensor or of an object with ``take``."""
    import torch

    if isinstance(value, torch.Tensor):
        return value.index_select(0, index) if isinstance(index, torch.Tensor) else value[index]
    return value.take(index)


def ppo_update(
    net: Any,
    optimizer: Any,
    data: Mapping[str, Any],
    policy: Callable[[dict[str, Any]], tuple[Any, Any]],
    entropy: Callable[[Any, Any], Any],
    permute: Callable[[int], Any],
    *,
    epochs: int,
    minibatch_size: int,
    clip_coef: float,
    ent_coef: float,
    vf_coef: float,
    max_grad_norm: float,
    norm_adv: bool = True,
    clip_vloss: bool = False,
    target_kl: float | None = None,
    min_size: int = 1,
) -> dict[str, float]:
    """``epochs`` passes of clipped PPO (CleanRL's) over the samples in ``data``.

    ``data`` holds one row per sample: ``masks``, ``actions``, ``old_logp``, ``advantages``
    and ``returns`` (and ``old_values`` with ``clip_vloss``), plus whatever ``policy``
    reads (tensors, or objects with ``take``). ``policy(minibatch)`` gives the legal
    actions' log-probabilities ``[B, A]`` and the values ``[B]``; ``entropy(log_probs,
    masks)`` the mean entropy; ``permute(n)`` each epoch's order (an index tensor: the
    trainer's own generator). A minibatch smaller than ``min_size`` is skipped. Returns the
    mean policy loss, value loss, entropy, approximate KL (both estimators), clip fraction
    and the number of minibatches.
    """
    import torch

    n = len(data["actions"])
    figures: dict[str, list[float]] = {k: [] for k in ("pg", "v", "ent", "kl", "old_kl", "clip")}
    for _epoch in range(epochs):
        order = permute(n)
        epoch = {k: _take(v, order) for k, v in data.items()}
        for start in range(0, n, minibatch_size):
            mb = slice(start, start + minibatch_size)
            b = {k: _take(v, mb) for k, v in epoch.items()}
            if len(b["actions"]) < min_size:
                continue
            logp_all, value = policy(b)
            logp = logp_all.gather(1, b["actions"][:, None])[:, 0]
            log_ratio = logp - b["old_logp"]
            ratio = log_ratio.exp()
            with torch.no_grad():
                figures["old_kl"].append(float((-log_ratio).mean()))
                figures["kl"].append(float(((ratio - 1) - log_ratio).mean()))
                figures["clip"].append(float(((ratio - 1.0).abs() > clip_coef).float().mean()))
            a = b["advantages"]
            if norm_adv and a.numel() > 1:
                a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - clip_coef, 1 + clip_coef)).mean()
            returns = b["returns"]
            if clip_vloss:
                old = b["old_values"]
                v_clipped = old + (value - old).clamp(-clip_coef, clip_coef)
                v_loss = 0.5 * torch.max((value - returns) ** 2, (v_clipped - returns) ** 2).mean()
            else:
                v_loss = 0.5 * ((value - returns) ** 2).mean()
            ent = entropy(logp_all, b["masks"])
            loss = pg_loss - ent_coef * ent + vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), max_grad_norm, foreach=True)
            optimizer.step()
            figures["pg"].append(float(pg_loss.detach()))
            figures["v"].append(float(v_loss.detach()))
            figures["ent"].append(float(ent.detach()))
        if target_kl is not None and figures["kl"] and figures["kl"][-1] > target_kl:
            break
    out = {k: float(np.mean(v)) if v else 0.0 for k, v in figures.items()}
    out["minibatches"] = float(len(figures["pg"]))
    return out


def masked_entropy_mean(log_probs: Any, mask: Any) -> Any:
    """The mean entropy over the legal actions of rows whose illegal log-probabilities are
    huge negative numbers (``exp`` gives 0 there; the mask zeroes their log)."""
    return -(log_probs.exp() * log_probs.masked_fill(~mask, 0.0)).sum(-1).mean()


# ---------------------------------------------------------------------- the run loop
def begin_run(cfg: Any) -> Path:
    """A run's start: ``cfg.torch_threads`` torch threads (where set), the output directory
    made and ``config.yaml`` written there; returns the directory."""
    from training.core.config import to_yaml

    if getattr(cfg, "torch_threads", None):
        import torch

        torch.set_num_threads(cfg.torch_threads)
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(to_yaml(cfg), encoding="utf-8")
    return out


def run_updates(
    first: int,
    total: int,
    update: Callable[[int], None],
    checkpoint: Callable[[int], None] | None = None,
    checkpoint_interval: int = 1,
    stop_after: int | None = None,
) -> int | None:
    """Updates ``first .. total - 1``: ``update(u)`` collects, computes the advantages,
    learns and logs; then ``checkpoint(u + 1)`` every ``checkpoint_interval`` updates and
    after the last. With ``stop_after`` the loop stops (after a checkpoint) once that many
    updates are done in all, as if the run were killed there: returns that count, else
    None (the run is complete)."""
    for u in range(first, total):
        update(u)
        done_all = u + 1 == total
        if checkpoint is not None and ((u + 1) % checkpoint_interval == 0 or done_all):
            checkpoint(u + 1)
        if stop_after is not None and u + 1 >= stop_after and not done_all:
            if checkpoint is not None:
                checkpoint(u + 1)
            return u + 1
    return None


def annealed_lr(base: float, update: int, total: int) -> float:
    """The learning rate of update ``update`` of ``total``, decayed linearly to 0."""
    return base * (1 - update / total)
