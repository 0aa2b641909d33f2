"""Training checkpoints of every PPO trainer, written once: save, check and restore.

A training checkpoint is the trainer's policy header (its ``format``, ``version``, sizes,
rules and ``state_dict``: what ``ppo:PATH`` agents read, so a checkpoint is also a policy
file) plus a ``training`` dict: the config, the counters, the optimizer's state, every
random generator's state and the trainer's extras (its games in progress, its log). The
key names are the trainer's own, so the files each trainer wrote before this module
existed still load. Files are written atomically (:func:`agents.core.checkpoint_io.
atomic_write`) and read with ``torch.load(weights_only=True)``; a missing, corrupt, foreign
or incomplete file is a ``ValueError`` that says which.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from training.core.config import resume_config, to_dict

#: The training checkpoint's name in a run's output directory.
CHECKPOINT = "checkpoint.pt"


def rng_state(gen: Any) -> Any:
    """The state of a numpy ``Generator`` or a ``torch.Generator`` (what a checkpoint keeps)."""
    if isinstance(gen, np.random.Generator):
        return gen.bit_generator.state
    return gen.get_state()


def set_rng_state(gen: Any, state: Any) -> None:
    """Put a numpy ``Generator`` or a ``torch.Generator`` back in a saved state."""
    if isinstance(gen, np.random.Generator):
        gen.bit_generator.state = state
    else:
        gen.set_state(state)


def save_checkpoint(
    path: str | Path,
    header: Mapping[str, Any],
    *,
    config: Any,
    optimizer: Any,
    counters: Mapping[str, Any],
    rngs: Mapping[str, Any],
    extras: Mapping[str, Any] = {},
) -> Path:
    """Write ``{**header, "training": {config, counters, optimizer, rngs, extras}}`` to
    ``path`` atomically. ``header`` is the trainer's policy payload (format, version,
    weights); ``config`` a config dataclass; ``rngs`` maps each key to a generator."""
    from agents.core.checkpoint_io import write_checkpoint

    training = {
        "config": to_dict(config),
        **counters,
        "optimizer": optimizer.state_dict(),
        **{key: rng_state(gen) for key, gen in rngs.items()},
        **extras,
    }
    return write_checkpoint({**header, "training": training}, path)


def read_training_checkpoint(
    directory: str | Path,
    read: Callable[[Path], dict[str, Any]],
    keys: Iterable[str] = (),
) -> tuple[dict[str, Any], str]:
    """``(checkpoint, "checkpoint 'PATH'")`` of the run in ``directory`` (its
    :data:`CHECKPOINT`; or a file). ``read`` is the trainer's policy reader (it refuses a
    missing, corrupt or foreign file); a policy alone (no optimizer) or a ``training`` dict
    without every name in ``keys`` is a ``ValueError``."""
    path = Path(directory)
    if path.is_dir():
        path = path / CHECKPOINT
    data = read(path)
    where = f"checkpoint {str(path)!r}"
    training = data.get("training")
    if not isinstance(training, dict) or "optimizer" not in training:
        raise ValueError(
            f"{where} holds a policy only (no optimizer or games): --resume needs a "
            "training checkpoint (checkpoint.pt)"
        )
    missing = [k for k in ("config", *keys) if k not in training]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}: the file is incomplete")
    return data, where


def load_resume(
    cls: type,
    directory: str | Path,
    overrides: Mapping[str, Any],
    overridable: Iterable[str],
    read: Callable[[Path], dict[str, Any]],
    network: Callable[[dict[str, Any], str], Any],
    keys: Iterable[str] = (),
    saved_defaults: Mapping[str, Any] = {},
) -> tuple[Any, dict[str, Any]]:
    """The config (a ``cls``) and the checkpoint to continue the run in ``directory``:
    the saved config (``saved_defaults`` under it) with ``overrides``, which may change only
    the fields in ``overridable``; ``network(data, where)`` checks that the weights fit. The
    output_dir is ``directory`` unless an override says otherwise. Errors: ValueError (a
    ConfigError for a field that may not change)."""
    data, where = read_training_checkpoint(directory, read, keys)
    saved = {**saved_defaults, **data["training"]["config"]}
    cfg = resume_config(cls, saved, dict(overrides), frozenset(overridable), where)
    network(data, where)  # the weights fit
    if "output_dir" not in overrides:
        out = Path(directory)
        cfg = dataclasses.replace(cfg, output_dir=str(out if out.is_dir() else out.parent))
    return cfg, data


def restore(data: Mapping[str, Any], net: Any, optimizer: Any, rngs: Mapping[str, Any]) -> Any:
    """Load a checkpoint's weights, optimizer state and generator states (``rngs`` maps each
    key of :func:`save_checkpoint` to the generator to set); returns its ``training`` dict
    (the counters and extras for the trainer to take back)."""
    training = data["training"]
    net.load_state_dict(data["state_dict"])
    optimizer.load_state_dict(training["optimizer"])
    for key, gen in rngs.items():
        set_rng_state(gen, training[key])
    return training
