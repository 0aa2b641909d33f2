"""Checkpoint files of every game's learned policies: atomic writes and a checked load.

Game-independent (torch only), so that each game's learned-policy module can use it without
importing another game's. :func:`atomic_write` is also what the sb3 script saves with.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

import torch


def atomic_write(path: str | Path, write: Callable[[BinaryIO], object]) -> Path:
    """Call ``write(binary file)`` on a temporary file next to ``path``, fsync it, then move
    it into place with ``os.replace``: a reader never sees half a file, and a failed
    ``write`` leaves the previous file as it was (and no temporary file behind)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it 0600; the result is an ordinary file
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable where the platform allows it
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return path
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
    return path


def load_torch_file(path: str | Path) -> tuple[Any, str]:
    """``(torch.load(path, weights_only=True), "checkpoint 'PATH'")``; a missing file, a
    directory, or bytes torch cannot read are a ``ValueError`` that says which."""
    path = Path(path)
    where = f"checkpoint {str(path)!r}"
    if not path.exists():
        raise ValueError(f"{where} does not exist")
    if path.is_dir():
        raise ValueError(f"{where} is a directory, not a checkpoint file")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # torch.load raises many types on foreign or damaged bytes
        text = str(err).strip()
        first = f"{type(err).__name__}: {text.splitlines()[0] if text else ''}"
        raise ValueError(
            f"{where} cannot be read as a torch checkpoint (corrupt, truncated or not a "
            f"torch file): {first[:300]}"
        ) from None
    return data, where


def write_checkpoint(payload: dict[str, Any], path: str | Path) -> Path:
    """``torch.save`` ``payload`` to ``path`` atomically (:func:`atomic_write`); every game's
    learned module writes its checkpoints with this."""
    return atomic_write(path, lambda f: torch.save(payload, f))


def policy_payload(
    fmt: str, version: int, net: Any, rules: dict[str, Any], training: dict[str, Any]
) -> dict[str, Any]:
    """The checkpoint of a policy network of the Nerts and Ginny-O learned modules: its
    ``format`` and ``version``, the observation and action sizes, the rule options it was
    trained under, ``net.describe()``, a copy of its weights and the ``training`` record."""
    return {
        "format": fmt,
        "version": version,
        "observation_size": net.observation_size,
        "num_actions": net.num_actions,
        "rules": rules,
        "network": net.describe(),
        "state_dict": {k: v.detach().clone() for k, v in net.state_dict().items()},
        "training": training,
    }


def check_policy_header(
    data: Any, where: str, fmt: str, version: int, game: str, writer: str
) -> dict[str, Any]:
    """``data`` if it is a complete :func:`policy_payload` checkpoint of format ``fmt`` and
    ``version``; else a ``ValueError`` naming ``where``, the ``game`` and its ``writer``."""
    if not isinstance(data, dict) or data.get("format") != fmt:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(
            f"{where} is not a {game} policy checkpoint (expected format={fmt!r}, as written "
            f"by {writer}; found {found!r})"
        )
    if data.get("version") != version:
        raise ValueError(f"{where} has version {data.get('version')!r}; this reads {version}")
    keys = ("observation_size", "num_actions", "rules", "network", "state_dict")
    missing = [k for k in keys if k not in data]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}: the file is incomplete")
    return data
