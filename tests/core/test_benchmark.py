"""The throughput benchmark (training/gnoming/bench.py, ``gnome bench``): its parts are sound.

No speed is asserted here (shared machines are noisy); these tests check that the
reference env is a valid AEC env, that the sampler only draws legal actions, and that the
command's report is complete and self-consistent.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import bench_script
from pettingzoo.test import api_test

from training.app.cli import main
from training.core.bench import FloorEnv, wrapped_floor
from training.gnoming.bench import random_legal_actions


@pytest.mark.parametrize("wrapped", [False, True])
def test_floor_env_is_a_valid_aec_env(wrapped):
    env = wrapped_floor(4, 1401, 33) if wrapped else FloorEnv(4, 1401, 33)
    api_test(env, num_cycles=50)


def test_floor_env_episode_length_and_turn_order():
    env = FloorEnv(3, 5, 4, length=7)
    env.reset(seed=0)
    order = []
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        order.append(agent)
        env.step(None if term or trunc else 0)
    # 7 live steps in turn order, then one dead step per agent
    assert order[:7] == [f"player_{i % 3}" for i in range(7)]
    assert len(order) == 7 + 3


def test_random_legal_actions_only_legal_and_all_reached():
    rng = np.random.default_rng(0)
    mask = np.zeros((3, 33), dtype=bool)
    mask[0, [0, 5, 32]] = True
    mask[1, 7] = True
    mask[2, :] = True
    seen = [set(), set(), set()]
    for _ in range(400):
        actions = random_legal_actions(mask, rng)
        for b, a in enumerate(actions):
            assert mask[b, a]
            seen[b].add(int(a))
    assert seen[0] == {0, 5, 32}
    assert seen[1] == {7}
    assert len(seen[2]) == 33


def test_gnome_bench_tiny_run_writes_a_consistent_report(tmp_path, capsys):
    path = tmp_path / "bench.json"
    code = main(
        [
            "bench",
            "--seconds",
            "0.05",
            "--players",
            "3",
            "--batches",
            "2",
            "--no-references",
            "--json",
            str(path),
        ]
    )
    assert code == 0
    report = json.loads(path.read_text())
    rates = report["rates"]
    for name in ("engine", "env", "raw_env", "floor_bare", "floor_wrapped", "vector_B2"):
        assert rates[name] > 0, name
    assert "connect_four_v3" not in rates
    ratios = report["ratios"]
    assert ratios["raw_env / floor_bare"] == pytest.approx(rates["raw_env"] / rates["floor_bare"])
    assert ratios["vector_B2 / env"] == pytest.approx(rates["vector_B2"] / rates["env"])
    assert int(report["vector_peak_bytes"]["2"]) > 0
    out = capsys.readouterr().out
    assert "raw_env / floor_bare" in out and "targets:" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--seconds", "0"], "--seconds"), (["--batches", "0"], "--batches")],
)
def test_gnome_bench_rejects_bad_values(args, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", *args])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_ppo_speed_script_reports_consistent_figures(tmp_path):
    """bench/ppo_speed.py (#5 item 4) runs real PPO updates and writes coherent figures."""
    pytest.importorskip("torch")
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "ppo.json"
    proc = subprocess.run(
        [sys.executable, "bench/ppo_speed.py", "--updates", "2", "--num-envs", "16",
         "--features", "both", "--json", str(out)],
        capture_output=True, text=True, cwd=root, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    runs = json.loads(out.read_text())
    assert [r["features"] for r in runs] == [False, True]
    assert "with features / without:" in proc.stdout
    figures = runs[1]
    assert figures["updates"] == 2 and figures["num_envs"] == 16
    assert 0 < figures["samples_per_s"] <= figures["decisions_per_s"]
    assert 0 < figures["rollout_share"] < 1
    assert figures["vector_engine_alone_decisions_per_s"] > figures["decisions_per_s"]
    assert "learner samples/s" in proc.stdout


def test_ppo_speed_script_compares_cached_and_recomputed_features(tmp_path):
    """bench/ppo_speed.py --cache both (#13 item 3): the same settings with the features
    recomputed in every forward pass and computed once per sample, and their ratio."""
    pytest.importorskip("torch")
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "ppo.json"
    proc = subprocess.run(
        [sys.executable, "bench/ppo_speed.py", "--updates", "1", "--num-envs", "16",
         "--features", "on", "--cache", "both", "--json", str(out)],
        capture_output=True, text=True, cwd=root, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    runs = json.loads(out.read_text())
    assert [(r["features"], r["cache_features"]) for r in runs] == [(True, False), (True, True)]
    ratio = runs[1]["decisions_per_s"] / runs[0]["decisions_per_s"]
    assert f"features cached / recomputed: {ratio:.2f}x" in proc.stdout


def _ppo_speed_script():
    """bench/ppo_speed.py loaded as a module (it is a script, not a package module)."""
    pytest.importorskip("torch")
    return bench_script("ppo_speed")


def test_ppo_speed_before_after_compares_one_setting(capsys):
    """bench/ppo_speed.py --before REV (#13 item 3) measures one setting on both trees."""
    module = _ppo_speed_script()
    for args in (["--cache", "both"], ["--features", "both"], ["--rounds", "0"]):
        with pytest.raises(SystemExit) as exc:
            module.main(["--before", "HEAD", *args])
        assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--before compares one setting" in err and "--rounds must be >= 1" in err


def test_ppo_speed_measures_a_tree_from_before_cache_features(monkeypatch):
    """bench/ppo_speed.py --before 64617f6 (#13 item 3): the code the issue was filed on
    has no cache_features field; the bench leaves it out (that tree recomputes the features,
    its only behaviour), records the run as not cached, and its figures come from the
    tree's own train() summary."""
    module = _ppo_speed_script()
    import dataclasses

    import training.core.config
    import training.gnoming.ppo

    @dataclasses.dataclass
    class OldConfig:  # the fields measure() sets, and no cache_features
        output_dir: str = "runs/x"
        num_envs: int = 256
        rollout_steps: int = 64
        total_steps: int = 1
        eval_interval: int = 100
        final_eval_games: int = 200
        tensorboard: bool = True
        progress: bool = True
        torch_threads: int = 1
        features: bool = True

        @property
        def steps_per_update(self):
            return self.num_envs * self.rollout_steps

    seen = []

    def fake_train(cfg):
        seen.append(cfg)
        return {"decisions_this_session": 3000, "samples_this_session": 1200,
                "rollout_seconds": 0.5, "update_seconds": 1.5}  # fmt: skip

    monkeypatch.setattr(training.core.config, "build_config", lambda cls, path: OldConfig())
    monkeypatch.setattr(training.gnoming.ppo, "train", fake_train)
    monkeypatch.setattr(module, "vector_rate", lambda batch, seconds: 1e6)
    args = module.argparse.Namespace(updates=3, num_envs=16, threads=1)
    figures = module.measure(args, True, cache=True)
    assert [type(c) for c in seen] == [OldConfig, OldConfig]  # warm-up, then the run
    assert seen[1].total_steps == 3 * 16 * 64 and seen[1].eval_interval == 0
    assert figures["cache_features"] is False
    assert figures["decisions_per_s"] == 1500.0 and figures["samples_per_s"] == 600.0
    assert figures["rollout_share"] == 0.25


def test_gnome_bench_without_pygame_skips_the_references_with_a_note(monkeypatch, capsys):
    # issue #15: PettingZoo's classic envs need the bench extra (pygame); without it the
    # bench runs the rest and says why the references are missing
    import builtins

    real_import = builtins.__import__

    def no_classic(name, *args, **kwargs):
        if name.startswith("pettingzoo.classic"):
            raise ModuleNotFoundError("No module named 'pygame'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_classic)
    code = main(["bench", "--seconds", "0.02", "--players", "3", "--batches", "2"])
    assert code == 0
    out = capsys.readouterr().out
    assert "note: connect_four_v3 and texas_holdem_v4 skipped: No module named 'pygame'" in out
    assert "pip install -e '.[bench]'" in out and "connect_four_v3 " not in out.split("note:")[0]


def test_ginny_env_before_after_measures_both_trees_and_cleans_up(tmp_path):
    """bench/ginny_env_before_after.py (#32 item 1): a bad revision is refused with the
    reason; a run measures env() and raw_env() at 2 and 4 players in both trees, writes every
    figure and removes its worktree."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    script = root / "bench" / "ginny_env_before_after.py"
    worktrees = subprocess.run(
        ["git", "-C", str(root), "worktree", "list"], capture_output=True, text=True
    ).stdout
    bad = subprocess.run(
        [sys.executable, str(script), "--before", "no-such-revision"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1
    assert "'no-such-revision' is not a commit" in bad.stderr
    assert "Traceback" not in bad.stderr
    out = tmp_path / "ba.json"
    args = ["--before", "HEAD", "--rounds", "1", "--seconds", "0.1", "--json", str(out)]
    run = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    record = json.loads(out.read_text())
    assert record["before"] == "HEAD"
    assert sorted(record["runs"]) == sorted(
        f"{kind}, {n} players" for kind in ("env", "raw_env") for n in (2, 4)
    )
    for sides in record["runs"].values():
        assert len(sides["before"]) == len(sides["now"]) == 1
        assert min(sides["before"] + sides["now"]) > 0
    assert run.stdout.count("steps/s now") == 4
    after = subprocess.run(
        ["git", "-C", str(root), "worktree", "list"], capture_output=True, text=True
    ).stdout
    assert after == worktrees
