"""examples/tianshou_dqn.py on a tiny budget: what it stores, what it reports, reproducibility.

Runs only where Tianshou is installed (its own venv, .venv-tianshou); elsewhere it skips.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip(
    "tianshou", reason="tianshou is not installed (the example runs in .venv-tianshou)"
)

from tianshou.data import Batch

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tianshou_dqn.py"


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("tianshou_dqn_example", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def numeric_arrays(batch: Batch, prefix: str = ""):
    """(name, array) for every numeric array in a (nested) Tianshou Batch."""
    for key in batch.get_keys():
        value = batch[key]
        if isinstance(value, Batch):
            yield from numeric_arrays(value, f"{prefix}{key}.")
        elif isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            yield prefix + key, value


def test_replay_buffer_is_finite_legal_and_zero_sum(example):
    args = example.parse_args(["--players", "3", "--steps", "300", "--seed", "1"])
    _, collector, timing = example.train(args)
    buffer = collector.buffer
    assert len(buffer) == timing["env_steps"]  # nothing was overwritten
    data = buffer[buffer.sample_indices(0)]

    names = {name for name, _ in numeric_arrays(data)}
    assert {"obs.obs", "obs.mask", "act", "rew", "info.round_scores", "info.winners"} <= names
    for name, array in numeric_arrays(data):
        assert np.isfinite(array.astype(np.float64)).all(), f"non-finite values in {name}"

    # Every stored action (learner and bots) is legal under the stored mask.
    rows = np.arange(len(data))
    assert data.obs.mask[rows, data.act].all()
    learner = data.obs.agent_id == "player_0"
    # --steps counts the learner's decisions (every seat decides about equally often).
    assert 0.7 * args.steps <= learner.sum() <= 1.5 * args.steps
    assert len(np.unique(data.act[learner])) > 5  # exploring, not one stuck action

    # reward_mode="win": rewards only on the step that ends a game, +-1 split, zero-sum.
    rew, done = data.rew, data.terminated | data.truncated
    assert rew.shape == (len(data), args.players)
    assert not rew[~done].any()
    assert np.allclose(rew.sum(axis=1), 0.0)
    if done.any():
        assert np.allclose(np.abs(rew[done]).sum(axis=1), 2.0)


def test_eval_table_and_same_seed_same_figures(example, tmp_path):
    out = tmp_path / "figures.json"
    argv = ["--players", "4", "--steps", "200", "--eval-games", "6", "--seed", "3"]
    first = example.main([*argv, "--out", str(out)])
    assert json.loads(out.read_text()) == json.loads(json.dumps(first))

    assert list(first["eval"]) == ["random", "greedy", "expert"]
    for row in first["eval"].values():
        assert row["games"] == 8  # 6 rounded up to a multiple of 4 seats
        assert 0.0 <= row["ci_low"] <= row["win_rate"] <= row["ci_high"] <= 1.0
        assert row["equal_share"] == 0.25
        assert math.isfinite(row["mean_round_score"])
        assert math.isfinite(row["opponents_mean_round_score"])
    assert first["timing"]["env_steps"] >= 4 * 200

    # Tianshou on CPU is deterministic given the seeds the example sets (torch, numpy's
    # global generator for epsilon-greedy, the envs, the bots, the arena).
    second = example.main(argv)
    assert second["eval"] == first["eval"]
    assert second["timing"]["env_steps"] == first["timing"]["env_steps"]
