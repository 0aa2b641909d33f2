"""training.gnoming.chunks: chunks are written whole and resumed, a worker process exits once the
run's main process is gone, and the holdout split takes the last share of each worker's
chunks."""

from __future__ import annotations

import numpy as np
import pytest

from training.core.config import ConfigError
from training.gnoming import chunks as C


def make(chunk: int) -> dict[str, np.ndarray]:
    return {"x": np.full(3, chunk, dtype=np.int64)}


def test_chunks_are_written_once_and_split_into_train_and_holdout(tmp_path):
    assert C.write_chunks(tmp_path, 0, 4, make) == 4
    assert C.write_chunks(tmp_path, 1, 4, make) == 4
    assert C.write_chunks(tmp_path, 0, 4, make) == 0  # resume: nothing left to write
    assert not list((tmp_path / "data").glob("*.tmp.npz"))
    train, held = C.split_chunks(tmp_path, 2, 4, 0.25, ["x"])
    assert [int(a[0]) for a in train["x"]] == [0, 1, 2, 0, 1, 2]  # worker 0, then 1
    assert [int(a[0]) for a in held["x"]] == [3, 3]  # the last quarter of each worker
    with pytest.raises(ConfigError, match=r"w0_c4\.npz is missing"):
        C.split_chunks(tmp_path, 2, 5, 0.25, ["x"])


def test_a_worker_stops_once_the_main_process_is_gone(tmp_path, monkeypatch, capsys):
    class Gone:
        def is_alive(self) -> bool:
            return False

    def leave(status: int) -> None:
        raise SystemExit(status)

    monkeypatch.setattr(C.multiprocessing, "parent_process", lambda: Gone())
    monkeypatch.setattr(C.os, "_exit", leave)  # the worker process ends itself
    with pytest.raises(SystemExit):
        C.write_chunks(tmp_path, 0, 3, make)
    assert "main process is gone" in capsys.readouterr().out
    assert not (tmp_path / "data").exists() or not any((tmp_path / "data").iterdir())
