"""Every trainer's ``main()`` guards its output directory and ends Ctrl-C cleanly
(training/core/runs.py): a new run never replaces another by accident, ``--overwrite`` does
on purpose, and Ctrl-C says which checkpoint to continue from, exit status 130."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from training.app.cli import main as gnome

ROOT = Path(__file__).resolve().parents[2]
#: trainer: (module whose name is patched, that name, what Ctrl-C leaves behind)
TRAINERS = {
    "ppo": ("training.gnoming.ppo.command", "train", "checkpoint"),
    "qdistill": ("training.gnoming.qdistill", "run_stages", "chunks"),
    "search_distill": ("training.gnoming.search_distill", "run_stages", "chunks"),
    "nerts_ppo": ("training.nerts.ppo", "train", "checkpoint"),
    "ginny_ppo": ("training.ginny_o.ppo", "train", "checkpoint"),
}


def _config(tmp_path: Path, trainer: str) -> Path:
    cfg = tmp_path / "c.yaml"
    key = "" if trainer == "ppo" else f"trainer: {trainer}\n"
    cfg.write_text(f"{key}output_dir: {tmp_path / 'run'}\n")
    return cfg


def _run(argv: list[str]) -> int:
    try:
        return gnome(argv)
    except SystemExit as stop:  # the Gnoming PPO parser exits on bad input
        return int(stop.code)


@pytest.mark.parametrize("trainer", list(TRAINERS))
def test_ctrl_c_says_what_to_resume_and_exits_130(trainer, tmp_path, monkeypatch, capsys):
    import importlib

    module, name, kind = TRAINERS[trainer]
    run = tmp_path / "run"

    def interrupted_run(*args, **kwargs):
        run.mkdir(exist_ok=True)
        if kind == "checkpoint":
            (run / "checkpoint.pt").write_bytes(b"x")
        elif kind == "chunks":
            (run / "data").mkdir()
            (run / "data" / "w0_c0.npz").write_bytes(b"x")
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(module), name, interrupted_run)
    assert _run(["train", "--config", str(_config(tmp_path, trainer))]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err
    if kind == "checkpoint":
        assert f"the latest checkpoint is {run / 'checkpoint.pt'}" in err
    assert f"gnome train --resume {run}" in err


@pytest.mark.parametrize("trainer", list(TRAINERS))
def test_a_new_run_into_a_run_is_refused_unless_overwrite(trainer, tmp_path, monkeypatch, capsys):
    import importlib

    module, name, _ = TRAINERS[trainer]
    run = tmp_path / "run"
    run.mkdir()
    (run / "policy.pt").write_bytes(b"old")
    (run / "config.yaml").write_text("seed: 123\n")
    ran = []
    done = {"seconds": 0} if name == "train" else 0
    monkeypatch.setattr(
        importlib.import_module(module), name, lambda *a, **k: ran.append(1) or done
    )
    cfg = _config(tmp_path, trainer)
    assert _run(["train", "--config", str(cfg)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "already holds a run" in err
    assert "another --output_dir" in err and "--overwrite" in err
    assert f"--resume {run}" in err  # every trainer can continue a run
    assert (run / "policy.pt").read_bytes() == b"old" and not ran
    _run(["train", "--config", str(cfg), "--overwrite"])
    assert ran and not (run / "policy.pt").exists()


def test_the_next_stage_of_the_same_distill_run_is_not_refused(tmp_path, monkeypatch):
    import training.gnoming.qdistill as qdistill
    from training.core.config import to_yaml

    run = tmp_path / "run"
    run.mkdir()
    saved = qdistill.QDistillConfig(output_dir=str(run), stage="generate")
    (run / "config.yaml").write_text(to_yaml(saved))
    ran = []
    monkeypatch.setattr(qdistill, "run_stages", lambda cfg, *a: ran.append(cfg.stage) or 0)
    assert qdistill.main(["--output_dir", str(run), "--stage", "fit"]) == 0
    assert qdistill.main(["--resume", str(run), "--stage", "fit"]) == 0
    assert ran == ["fit", "fit"]


def test_sigint_to_a_training_process(tmp_path):
    """A real Ctrl-C: SIGINT to a ``gnome train`` process whose run has a checkpoint."""
    run = tmp_path / "run"
    cfg = _config(tmp_path, "ginny_ppo")
    code = (
        "import signal, sys, time\n"
        # a process started in the background (``cmd &``) inherits SIGINT ignored; a terminal's
        # Ctrl-C is what this test sends, so the child takes SIGINT as Python does by default
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import training.ginny_o.ppo as ppo\n"
        "from pathlib import Path\n"
        "def train(cfg, *a, **k):\n"
        "    Path(cfg.output_dir).mkdir(parents=True, exist_ok=True)\n"
        "    (Path(cfg.output_dir) / 'checkpoint.pt').write_bytes(b'x')\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(60)\n"
        "ppo.train = train\n"
        "from training.app.cli import main\n"
        f"sys.exit(main(['train', '--config', {str(cfg)!r}]))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and f"gnome train --resume {run}" in err
    assert (run / "checkpoint.pt").exists()
