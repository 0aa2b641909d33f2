"""bench/pool_arena.py: arena runs on several seeds pooled into one interval per seat count."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from conftest import bench_script

pool_arena = bench_script("pool_arena")

LINEUP = ["ppo:p.pt", "expert", "expert"]


def run_file(tmp_path: Path, seed: int, deals: int, rate: float, half: float, **kw) -> Path:
    """An arena JSON with the fields the pooling reads (the shape gnome eval --json writes)."""
    n = kw.get("num_players", 3)
    data = {
        "settings": {
            "lineup": kw.get("lineup", LINEUP),
            "num_players": n,
            "games": deals * n,
            "deals": deals,
            "seed": seed,
        },
        "entries": [
            {"name": "ppo:p.pt", "win_rate": rate, "ci_low": rate - half, "ci_high": rate + half}
        ],
    }
    path = tmp_path / f"run{seed}_{n}.json"
    path.write_text(json.dumps(data))
    return path


def test_two_runs_pool_by_deals_and_their_errors_combine(tmp_path):
    # run A: 100 deals, 0.40 +- z * 0.02 (se 0.02); run B: 300 deals, 0.36 +- z * 0.01 (se 0.01),
    # z the arena's own 95% quantile (its intervals are read back with it)
    z = 1.959963984540054
    a = pool_arena.read_run(run_file(tmp_path, 1, 100, 0.40, z * 0.02), 0)
    b = pool_arena.read_run(run_file(tmp_path, 2, 300, 0.36, z * 0.01), 0)
    row = pool_arena.pool([a, b])
    # (100 * 0.40 + 300 * 0.36) / 400 = 0.37; se = sqrt((100*0.02)^2 + (300*0.01)^2) / 400
    assert row["win_rate"] == pytest.approx(0.37)
    assert row["se"] == pytest.approx(math.sqrt(2.0**2 + 3.0**2) / 400)
    assert row["ci_low"] == pytest.approx(0.37 - z * math.sqrt(13) / 400)
    assert (row["games"], row["deals"], row["seeds"]) == (1200, 400, [1, 2])
    assert row["above_equal_share"] is True  # 0.37 - 0.0177 > 1/3


def test_one_run_pools_to_itself(tmp_path):
    row = pool_arena.pool([pool_arena.read_run(run_file(tmp_path, 5, 50, 0.35, 0.03), 0)])
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(0.32), pytest.approx(0.38))
    assert row["above_equal_share"] is False  # 0.32 < 1/3


def test_runs_that_cannot_be_pooled_are_refused_with_the_reason(tmp_path, capsys):
    a = run_file(tmp_path, 1, 100, 0.40, 0.04)
    same_seed = run_file(tmp_path, 1, 100, 0.40, 0.04, num_players=3)
    other = run_file(tmp_path, 3, 100, 0.40, 0.04, lineup=["ppo:q.pt", "expert", "expert"])
    clipped = run_file(tmp_path, 4, 100, 0.02, 0.05)
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(pool_arena.PoolError, match="different lineups"):
        pool_arena.pool([pool_arena.read_run(p, 0) for p in (a, other)])
    with pytest.raises(pool_arena.PoolError, match="same seed appears twice"):
        pool_arena.pool([pool_arena.read_run(p, 0) for p in (a, same_seed)])
    with pytest.raises(pool_arena.PoolError, match="clipped"):
        pool_arena.read_run(clipped, 0)
    with pytest.raises(pool_arena.PoolError, match="entry 3"):
        pool_arena.read_run(a, 3)
    assert pool_arena.main([str(broken)]) == 2
    assert "is not JSON" in capsys.readouterr().err
    assert pool_arena.main([str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_main_groups_runs_by_seat_count(tmp_path, capsys):
    files = [
        run_file(tmp_path, 1, 100, 0.40, 0.04),
        run_file(tmp_path, 1, 100, 0.16, 0.01, num_players=7, lineup=["ppo:p.pt"] + 6 * ["e"]),
        run_file(tmp_path, 2, 100, 0.36, 0.04),
    ]
    out = tmp_path / "pooled.json"
    assert pool_arena.main([str(p) for p in files] + ["--json", str(out)]) == 0
    rows = json.loads(out.read_text())["pooled"]
    assert [(r["num_players"], r["seeds"]) for r in rows] == [(3, [1, 2]), (7, [1])]
    assert rows[0]["win_rate"] == pytest.approx(0.38)
    assert "| 7 | 1 | 700 | 100 | 0.1600 |" in capsys.readouterr().out
