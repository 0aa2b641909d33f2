"""Data in chunks for the trainers that generate their own data (:mod:`training.gnoming.qdistill`,
:mod:`training.gnoming.search_distill`).

A run writes ``output_dir/data/w{worker}_c{chunk}.npz``, each chunk a pure function of
``(seed, worker, chunk)`` and the config: :func:`write_chunks` skips the chunks that exist (an
interrupted run resumes) and writes each new one through a temporary file, so a chunk is
either whole or absent; :func:`run_workers` runs one such loop per worker process. The fit
reads them back with :func:`split_chunks` (the last ``holdout`` share of each worker's
chunks held out) and :func:`directory_chunks` (every chunk of a directory). A missing or
damaged chunk is a :class:`~training.core.config.ConfigError` that names it.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from training.core.config import ConfigError


def config_field(text: str, default: Any = dataclasses.MISSING, factory: Any = None) -> Any:
    """A config dataclass field with its ``--help`` text."""
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata={"help": text})
    return dataclasses.field(default=default, metadata={"help": text})


def chunk_file(output_dir: str | Path, worker: int, chunk: int) -> Path:
    """Where chunk ``chunk`` of worker ``worker`` of a run lives."""
    return Path(output_dir) / "data" / f"w{worker}_c{chunk}.npz"


def write_chunks(
    output_dir: str | Path,
    worker: int,
    chunks: int,
    make: Callable[[int], dict[str, np.ndarray]],
) -> int:
    """Write chunks ``0 .. chunks-1`` of ``worker`` that do not exist yet (``make(chunk)``
    gives a chunk's arrays); returns how many were written. A worker process exits before
    its next chunk once the run's main process is gone."""
    made = 0
    chunk_file(output_dir, worker, 0).parent.mkdir(parents=True, exist_ok=True)
    parent = multiprocessing.parent_process()  # None in the main process
    for chunk in range(chunks):
        if parent is not None and not parent.is_alive():
            # the run was stopped (its main process killed): a spawned worker would
            # otherwise go on writing chunks nobody asked for, then wait for work forever
            print(f"worker {worker}: the run's main process is gone, stopping", flush=True)
            os._exit(0)
        path = chunk_file(output_dir, worker, chunk)
        if path.exists():
            continue  # resume: chunks are pure functions of their index
        data = make(chunk)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **data)
        tmp.replace(path)
        made += 1
        print(f"worker {worker}: chunk {chunk + 1}/{chunks} written", flush=True)
    return made


def run_workers(target: Callable[[dict[str, Any], int], int], cfg: dict[str, Any], n: int) -> None:
    """``target(cfg, worker)`` for every worker: in this process for one, else in ``n``
    processes started with "spawn" (this process may hold torch's threads, and a child
    forked from it could hang on their locks). ``target`` must be a module-level function."""
    from concurrent.futures import ProcessPoolExecutor

    if n == 1:
        target(cfg, 0)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(n, mp_context=context) as pool:
        list(pool.map(target, [cfg] * n, range(n)))


def read_chunk(path: Path, keys: Sequence[str]) -> dict[str, np.ndarray]:
    """The arrays ``keys`` of one chunk; a damaged file is a clear error naming it."""
    try:
        with np.load(path) as data:
            return {key: data[key] for key in keys}
    except Exception as err:  # a damaged file: say which
        raise ConfigError(f"data chunk {path} cannot be read: {err}") from None


def directory_chunks(directory: str | Path, setting: str = "extra_data") -> list[Path]:
    """The chunk files of a data directory in (worker, chunk) order (a chunk still being
    written is not one); a directory without any is a clear error (about ``setting``)."""
    folder = Path(directory)
    found = []
    for path in folder.glob("w*_c*.npz") if folder.is_dir() else []:
        worker, _, chunk = path.stem[1:].partition("_c")
        if worker.isdigit() and chunk.isdigit():
            found.append((int(worker), int(chunk), path))
    if not found:
        raise ConfigError(
            f"{setting}: {str(directory)!r} holds no data chunks (w<worker>_c<chunk>.npz): "
            "give a directory that --stage generate wrote, e.g. runs/qdistill3/data"
        )
    return [path for _, _, path in sorted(found)]


def split_chunks(
    output_dir: str | Path, workers: int, chunks: int, holdout: float, keys: Sequence[str]
) -> tuple[dict[str, list[np.ndarray]], dict[str, list[np.ndarray]]]:
    """(train, held) lists of each key's arrays: the last ``holdout`` share of each
    worker's ``chunks`` chunks held out. A missing chunk is a clear error."""
    train: dict[str, list[np.ndarray]] = {key: [] for key in keys}
    held: dict[str, list[np.ndarray]] = {key: [] for key in keys}
    cut = chunks - round(holdout * chunks)
    for worker in range(workers):
        for chunk in range(chunks):
            path = chunk_file(output_dir, worker, chunk)
            if not path.exists():
                raise ConfigError(f"data chunk {path} is missing: run --stage generate first")
            part = read_chunk(path, keys)
            for key in keys:
                (train if chunk < cut else held)[key].append(part[key])
    return train, held


def join(parts: dict[str, list[np.ndarray]]) -> dict[str, np.ndarray]:
    """Each key's arrays concatenated (an empty list stays empty)."""
    return {key: np.concatenate(value) if value else value for key, value in parts.items()}


STAGES = ("all", "generate", "fit")


def check_stage(stage: str) -> None:
    """Raise :class:`ConfigError` unless ``stage`` is one of :data:`STAGES`."""
    if stage not in STAGES:
        raise ConfigError(f"stage={stage!r} is not allowed: one of {', '.join(STAGES)}")


def run_stages(cfg: Any, generate: Callable[[Any], None], fit: Callable[[Any], Any]) -> int:
    """A generate-then-fit trainer's command (:func:`training.core.runs.run_stages`):
    ``generate`` and/or ``fit`` as ``cfg.stage`` says (one of :data:`STAGES`); generating
    needs numba."""
    from training.core.runs import run_stages as run

    return run(cfg, (("generate", generate), ("fit", fit)), numba="generating")
