"""Every ``gnome`` command refuses abbreviated or mistyped options with a "did you mean"
(issue #15): a typo must not silently set another option or start a run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from training.app.cli import main as gnome


@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["train", "--learning_rat", "0.1"], "--learning_rat: did you mean --learning_rate"),
        (["train", "--total_step=5"], "--total_step: did you mean --total_steps"),
        (["distill", "--sampels", "3"], "--sampels: did you mean --samples"),
        (
            ["eval", "--lineup", "random,random,random", "--game", "6"],
            "--game: did you mean --games",
        ),
        (["play", "--player", "4"], "--player: did you mean --players"),
    ],
)
def test_mistyped_or_abbreviated_options_are_errors_with_a_suggestion(argv, wanted, capsys):
    with pytest.raises(SystemExit) as stop:
        gnome(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized arguments" in err and wanted in err
    assert len(err.splitlines()) <= 3  # a short usage line, not the whole option list


def test_an_unrelated_word_gets_no_suggestion(capsys):
    with pytest.raises(SystemExit):
        gnome(["eval", "--lineup", "random,random,random", "--zzzzqqq", "1"])
    err = capsys.readouterr().err
    assert "unrecognized arguments: --zzzzqqq 1" in err and "did you mean" not in err


def test_gnome_train_without_a_config_says_what_it_will_run(monkeypatch, tmp_path, capsys):
    import training.gnoming.ppo.command as command

    ran = []
    monkeypatch.setattr(command, "train", lambda cfg, data, stop_after: ran.append(cfg) or {})
    assert gnome(["train", "--output_dir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "no --config: training with the built-in defaults (total_steps=2,000,000" in err
    assert "--config configs/quickstart.yaml" in err
    assert ran[0].total_steps == 2_000_000
    cfg = tmp_path / "c.yaml"
    cfg.write_text("total_steps: 640\n")
    assert gnome(["train", "--config", str(cfg), "--output_dir", str(tmp_path)]) == 0
    assert "no --config" not in capsys.readouterr().err


def test_train_resume_without_config_goes_to_the_trainer_saved_in_the_run(tmp_path):
    """``gnome train --resume DIR`` reads ``DIR/config.yaml``'s ``trainer:`` key."""
    from training.app.cli import _config_trainer

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.yaml").write_text("trainer: ginny_ppo\nseed: 1\n", encoding="utf-8")
    assert _config_trainer(["--resume", str(run)]) == "ginny_ppo"
    assert _config_trainer([f"--resume={run}"]) == "ginny_ppo"
    (run / "config.yaml").write_text("seed: 1\n", encoding="utf-8")  # a Gnoming PPO run
    assert _config_trainer(["--resume", str(run)]) is None
    assert _config_trainer(["--resume", str(tmp_path / "missing")]) is None


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", "--seed", "3"],
        ["demo", "--game", "nerts", "--max-hands", "1"],
        ["demo", "--game", "ginny_o", "--max-turns", "40"],
    ],
)
def test_a_closed_stdout_ends_the_command_quietly(argv):
    # `gnome demo | head -1`: the reader goes away. The read end of the pipe is closed
    # before the command writes anything, so its first flush fails, whatever the buffering.
    from training.app.cli import BROKEN_PIPE_STATUS

    code = f"import sys; from training.app.cli import main; sys.exit(main({argv!r}))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=Path(__file__).resolve().parents[2],
    )
    proc.stdout.close()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == BROKEN_PIPE_STATUS, err.decode()
    assert b"Traceback" not in err and b"BrokenPipe" not in err and b"Exception" not in err
