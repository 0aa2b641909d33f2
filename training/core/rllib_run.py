"""What the games' Ray RLlib trainers (``training/<game>/rllib_ppo.py``) share: the run loop
with its checkpoints, the figures of one iteration, and the fixed hash seed.

Needs the ``rllib`` extra; Ray is imported inside the functions only, so importing this
module imports no Ray.

* :func:`train_algorithm` -- start (or join) Ray, build the algorithm from its config, call
  ``algo.train()`` ``cfg.iterations`` times with one log line each, save the algorithm
  (``algo.save_to_path``) every ``cfg.checkpoint_every`` iterations and at the end into
  ``cfg.output_dir/checkpoint``, and the figures of every iteration into ``history.json``;
* :func:`fix_hash_seed` -- RLlib iterates over sets of agent ids in places, whose order
  follows Python's per-process hash randomisation: without a fixed ``PYTHONHASHSEED`` two
  runs with the same seed batch the same data in another order and drift apart.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from training.core.config import ConfigError, check_at_least, check_in_range, to_yaml

CHECKPOINT_DIR = "checkpoint"
CONFIG_FILE = "config.yaml"
HISTORY_FILE = "history.json"


def check_rllib_settings(
    cfg: Any, reward_modes: tuple[str, ...], agent_steps: int, limit: str
) -> None:
    """The checks every game's RLlib trainer config shares (a ``ConfigError`` naming the
    first bad field): run lengths, seeds and CPUs, ``reward_mode`` in ``reward_modes``,
    ``minibatch_size`` from 2 to ``agent_steps`` (the agent steps of one train batch,
    ``limit`` says so in words), the PPO coefficients, ``hidden`` and ``output_dir``."""
    for name in ("iterations", "num_epochs", "torch_threads", "checkpoint_every"):
        check_at_least(name, getattr(cfg, name), 1)
    for name in ("seed", "num_env_runners", "eval_games"):
        check_at_least(name, getattr(cfg, name), 0)
    if cfg.num_cpus is not None and cfg.num_cpus < 1:
        raise ConfigError(f"num_cpus={cfg.num_cpus!r} is not allowed: null or >= 1")
    if cfg.reward_mode not in reward_modes:
        raise ConfigError(
            f"reward_mode={cfg.reward_mode!r} is not allowed: must be one of "
            f"{', '.join(reward_modes)}"
        )
    if not 2 <= cfg.minibatch_size <= agent_steps:
        raise ConfigError(
            f"minibatch_size={cfg.minibatch_size!r} is not allowed: must be from 2 to {limit}"
        )
    check_in_range("lr", cfg.lr, 0.0, None, low_open=True)
    check_in_range("gamma", cfg.gamma, 0.0, 1.0, low_open=True)
    check_in_range("lambda_", cfg.lambda_, 0.0, 1.0)
    check_in_range("clip_param", cfg.clip_param, 0.0, None, low_open=True)
    check_in_range("entropy_coeff", cfg.entropy_coeff, 0.0, None)
    if not cfg.hidden or any(h < 1 for h in cfg.hidden):
        raise ConfigError(f"hidden={cfg.hidden!r} is not allowed: positive layer sizes")
    if not cfg.output_dir.strip():
        raise ConfigError("output_dir='' is not allowed: give a directory path")


def result_figures(result: dict[str, Any], policy: str) -> dict[str, float]:
    """The figures of one ``algo.train()`` result that the log line shows: env steps (all
    seats' decisions of one env step count once), agent steps, games, and the learner's
    losses of module ``policy``."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(policy, {})
    agent_steps = runners.get("num_agent_steps_sampled_lifetime", {})
    out = {
        "env_steps": runners.get("num_env_steps_sampled_lifetime", float("nan")),
        "agent_steps": sum(agent_steps.values()) if isinstance(agent_steps, dict) else agent_steps,
        "episodes": runners.get("num_episodes_lifetime", 0),
        "policy_loss": learner.get("policy_loss", float("nan")),
        "vf_loss": learner.get("vf_loss", float("nan")),
        "entropy": learner.get("entropy", float("nan")),
        "kl": learner.get("mean_kl_loss", float("nan")),
    }
    return {k: float(v) for k, v in out.items()}


def train_algorithm(cfg: Any, algo_config: Any, policy: str, log: Any = print) -> Path:
    """Run the ``cfg.iterations`` iterations of ``algo_config`` (an RLlib AlgorithmConfig);
    the final checkpoint's path (see the module docstring). ``cfg`` needs the fields
    ``output_dir``, ``iterations``, ``checkpoint_every``, ``torch_threads``, ``address`` and
    ``num_cpus``; it is written to ``output_dir/config.yaml`` first."""
    import ray
    import torch

    torch.set_num_threads(cfg.torch_threads)
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / CONFIG_FILE).write_text(to_yaml(cfg), encoding="utf-8")
    started_ray = not ray.is_initialized()
    if started_ray:
        kwargs: dict[str, Any] = {"address": cfg.address, "log_to_driver": False}
        if cfg.address is None:
            kwargs.update(num_cpus=cfg.num_cpus, include_dashboard=False)
        ray.init(**kwargs)
    algo = algo_config.build_algo()
    checkpoint = out / CHECKPOINT_DIR
    history = []
    try:
        for it in range(1, cfg.iterations + 1):
            t0 = time.perf_counter()
            figures = result_figures(algo.train(), policy)
            figures["iteration"] = it
            figures["seconds"] = time.perf_counter() - t0
            history.append(figures)
            log(
                f"iteration {it}/{cfg.iterations}: {figures['env_steps']:.0f} env steps, "
                f"{figures['episodes']:.0f} games, policy loss {figures['policy_loss']:.4f}, "
                f"vf loss {figures['vf_loss']:.4f}, entropy {figures['entropy']:.3f}, "
                f"{figures['seconds']:.1f} s"
            )
            if it % cfg.checkpoint_every == 0 or it == cfg.iterations:
                algo.save_to_path(str(checkpoint.resolve()))
        (out / HISTORY_FILE).write_text(json.dumps(history, indent=1), encoding="utf-8")
    finally:
        algo.stop()
        if started_ray:
            ray.shutdown()
    return checkpoint


def fix_hash_seed(module: str) -> None:
    """Re-run ``python -m module`` (with this process's arguments) under
    ``PYTHONHASHSEED=0`` unless the variable is set already (see the module docstring). It
    must be set before the interpreter starts, hence the re-exec; the Ray processes a local
    run starts inherit it (on a cluster, start Ray with it too)."""
    if os.environ.get("PYTHONHASHSEED") is None:
        env = dict(os.environ, PYTHONHASHSEED="0")
        os.execve(sys.executable, [sys.executable, "-m", module, *sys.argv[1:]], env)
