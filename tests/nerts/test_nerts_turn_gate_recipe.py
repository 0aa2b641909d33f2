"""``gnome train --config configs/nerts_turn_gate.yaml``: the shipped turn gate's recipe as one
command (``training/nerts/turn_gate.py``). It must run exactly the documented distill
commands (label runs, then the fit on their files in order), resume an interrupted run
without redoing finished label runs, and refuse bad settings and existing runs clearly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import yaml

from agents.nerts.learned import read_checkpoint
from training.app.train_cmd import run_train
from training.nerts.distill import main as distill_main
from training.nerts.turn_gate import TurnGateConfig, fit_argv, label_argv

ROOT = Path(__file__).resolve().parents[2]

TINY = {
    "trainer": "nerts_turn_gate",
    "seed": 3,
    "label_seeds": [5, 6],
    "label_players": [[2], [2, 4]],
    "label_steps": 40,
    "envs": 8,
    "samples": 4,
    "hidden": [8],
    "epochs": 2,
    "workers": 1,
}


def _config(tmp_path: Path, **changes) -> Path:
    path = tmp_path / "gate.yaml"
    path.write_text(yaml.safe_dump({**TINY, "output_dir": str(tmp_path / "run"), **changes}))
    return path


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return read_checkpoint(path)["state_dict"]


def _same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_the_shipped_config_is_the_policy_readmes_commands():
    """configs/nerts_turn_gate.yaml gives the label and fit command lines the policy's README
    lists (the commands that made agents/policies/nerts_turn_gate/policy.pt)."""
    from training.core.config import build_config

    cfg = build_config(TurnGateConfig, ROOT / "configs" / "nerts_turn_gate.yaml")
    readme = (ROOT / "agents" / "policies" / "nerts_turn_gate" / "README.md").read_text()
    label = " ".join(label_argv(cfg, 3)).replace("runs/nerts_turn_gate/data/labels_101", "X")
    assert label.replace(" --overwrite", "") in readme.replace("runs/turnv_$s", "X").replace(
        "$s", "101"
    )
    fit = fit_argv(cfg)
    tail = fit[fit.index("--student") : fit.index("--samples-from")]
    assert " ".join(tail) in readme
    assert [Path(p).parent.name for p in fit[fit.index("--samples-from") + 1 : -1]] == [
        "labels_103", "labels_104", "labels_105", "labels_101", "labels_102",
    ]  # fmt: skip


def test_the_recipe_is_its_distill_commands_and_resumes(tmp_path, capsys):
    """Two label runs (two workers) and the fit give the same weights as the same distill
    commands run one by one; after a label run's summary is lost, --resume redoes that run
    only and the fit again gives the same weights."""
    assert run_train(["--config", str(_config(tmp_path, workers=2))]) == 0
    run = tmp_path / "run"
    out = capsys.readouterr().out
    assert "label run 5 (players [2]): to run" in out and "policy written to" in out
    cfg = TurnGateConfig(**{**TINY, "output_dir": str(tmp_path / "by_hand")})
    for i in range(2):
        assert distill_main(label_argv(cfg, i)) == 0
    assert distill_main(fit_argv(cfg)) == 0
    by_hand = _weights(tmp_path / "by_hand" / "data" / "fit" / "policy.pt")
    assert _same(_weights(run / "policy.pt"), by_hand)
    assert any(float(v.abs().sum()) > 0 for k, v in by_hand.items() if k.endswith("2.weight"))
    summary = json.loads((run / "summary.json").read_text())
    assert [r["seed"] for r in summary["labels"]] == [5, 6]
    assert summary["label_positions"] == sum(r["positions"] for r in summary["labels"]) > 0

    kept = run / "data" / "labels_5" / "samples.npz"
    stamp = kept.stat().st_mtime_ns
    (run / "data" / "labels_6" / "summary.json").unlink()
    (run / "policy.pt").unlink()
    assert run_train(["--resume", str(run)]) == 0
    out = capsys.readouterr().out
    assert "label run 5 (players [2]): done, kept" in out
    assert "label run 6 (players [2, 4]): to run" in out
    assert kept.stat().st_mtime_ns == stamp
    assert _same(_weights(run / "policy.pt"), by_hand)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"label_players": [[2]]}, "label_players has 1 entries and label_seeds 2"),
        ({"label_players": [[2], [7]]}, "label_players[1]=[7] is not allowed"),
        ({"label_seeds": [5, 5]}, "a seed twice"),
        ({"stage": "labels"}, "stage='labels' is not allowed: one of all, label, fit"),
        ({"workers": 0}, "workers"),
        ({"hidden": []}, "hidden=[] is not allowed"),
        ({"labelseeds": [1]}, "did you mean 'label_seeds'"),
    ],
)
def test_bad_settings_are_clear_errors_and_write_nothing(tmp_path, capsys, changes, message):
    assert run_train(["--config", str(_config(tmp_path, **changes))]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_fit_without_its_label_files_and_an_existing_run_are_refused(tmp_path, capsys):
    assert run_train(["--config", str(_config(tmp_path, stage="fit"))]) == 2
    assert "the label runs [5, 6] are not done" in capsys.readouterr().err
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "policy.pt").write_bytes(b"someone else's")
    config = _config(tmp_path, output_dir=str(tmp_path / "other"))
    assert run_train(["--config", str(config)]) == 2
    assert "already holds a run" in capsys.readouterr().err
    assert (tmp_path / "other" / "policy.pt").read_bytes() == b"someone else's"


def test_labelling_without_numba_is_a_clear_error(tmp_path, capsys, monkeypatch):
    import gnome_env.core.jit as jit

    monkeypatch.setattr(jit, "COMPILED", False)
    assert run_train(["--config", str(_config(tmp_path))]) == 2
    assert "labelling needs numba" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()
