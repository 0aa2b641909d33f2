"""bench/game_ladder.py, the Nerts and Ginny-O bot ladder: a rung is exactly the arena run
``gnome eval`` plays, its JSON is kept unless --force, the summary is rebuilt from the
files, and bad flags are refused (bench/nerts_ladder.py is the same script for Nerts)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import bench_script

from agents.core.arena import run_arena

ROOT = Path(__file__).resolve().parents[2]
game_ladder = bench_script("game_ladder")


def test_a_ginny_rung_is_the_arena_run_and_is_kept(tmp_path, capsys):
    argv = ["--game", "ginny_o", "--pairs", "greedy,random", "--players", "2", "--games", "4"]
    argv += ["--seed", "31", "--out", str(tmp_path)]
    assert game_ladder.main(argv) == 0
    path = tmp_path / "greedy_vs_random_2p.json"
    data = json.loads(path.read_text())
    same = run_arena(["greedy", "random"], 2, 4, seed=31, progress=False, game="ginny_o")
    assert data["entries"] == json.loads(json.dumps(same.to_dict()["entries"]))
    assert data["settings"]["rules"] == same.settings["rules"]  # the default rules
    first = data["entries"][0]
    row = f"| greedy | random | 2 | 4 | 31 | {first['win_rate']:.3f} "
    summary = (tmp_path / "README.md").read_text()
    assert summary.startswith("# Ginny-O bot ladder") and row in summary
    # a second run keeps the rung's file
    before = path.read_text()
    assert game_ladder.main([*argv[:-2], "--seed", "32", "--out", str(tmp_path)]) == 0
    assert path.read_text() == before
    assert "exists (use --force to replace it); kept" in capsys.readouterr().out


def test_nerts_rungs_are_one_hand_games(tmp_path):
    argv = ["--game", "nerts", "--pairs", "greedy,random", "--players", "3", "--games", "3"]
    assert game_ladder.main([*argv, "--seed", "4", "--out", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "greedy_vs_random_3p.json").read_text())
    assert data["settings"]["rules"]["max_hands"] == 1 and data["settings"]["game"] == "nerts"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--game", "ginny_o", "--players", "5"],
            "--players: 5 is not allowed: Ginny-O seats 2..4",
        ),
        (["--game", "nerts", "--players", "7"], "--players: 7 is not allowed: Nerts seats 2..6"),
        (["--game", "ginny_o", "--pairs", "expert"], "--pairs: 'expert' is not STRONG,WEAK"),
        (["--game", "ginny_o", "--games", "0"], "--games and --workers must be >= 1"),
        (["--game", "chess"], "invalid choice: 'chess'"),
    ],
)
def test_bad_flags_are_refused(argv, message, capsys, tmp_path):
    with pytest.raises(SystemExit) as info:
        game_ladder.main([*argv, "--out", str(tmp_path)])
    assert info.value.code == 2
    assert message in capsys.readouterr().err
    assert not list(tmp_path.iterdir())  # nothing written


def test_nerts_ladder_is_game_ladder_for_nerts():
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "nerts_ladder.py"), "--players", "8"],
        capture_output=True, text=True, cwd=ROOT, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert "--players: 8 is not allowed: Nerts seats 2..6" in done.stderr
