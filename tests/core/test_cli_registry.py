"""The ``gnome`` command knows no game: everything it says about games comes from the
registry (issue #30 items 2, 3 and 8), and its friction fixes."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from gnome_env import __version__
from gnome_env.registry import game_names, games
from training.app.cli import main as gnome

ROOT = Path(__file__).resolve().parents[2]
CLI = ROOT / "training" / "app" / "cli.py"


def test_the_entry_point_has_no_game_branch_and_is_short():
    text = CLI.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 450
    strings = [
        n.value for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Constant)
        and isinstance(n.value, str)
    ]  # fmt: skip
    for name in game_names():
        assert not [s for s in strings if re.search(rf"\b{name}\b", s)], name
    assert "args.game ==" not in text


def test_gnome_games_json_is_the_registry(capsys):
    assert gnome(["games", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == list(game_names())
    for row, spec in zip(rows, games(), strict=True):
        assert row["api"] == spec.api and row["env_ids"] == list(spec.env_ids)
        assert (row["min_players"], row["max_players"]) == (spec.min_players, spec.max_players)
        assert row["bots"] == list(spec.bots)
        if spec.shipped:
            assert row["strongest_policy"] == spec.shipped[0].spec
        else:
            assert "strongest_policy" not in row


def test_gnome_games_table_names_every_game(capsys):
    assert gnome(["games"]) == 0
    out = capsys.readouterr().out
    for spec in games():
        line = next(x for x in out.splitlines() if x.startswith(spec.name + " "))
        assert spec.api in line and f"{spec.min_players}..{spec.max_players}" in line
        assert all(e in line for e in spec.env_ids)


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        gnome(["--version"])
    assert stop.value.code == 0
    assert __version__ in capsys.readouterr().out


def test_help_covers_every_game_and_train_help_every_trainer(capsys):
    with pytest.raises(SystemExit):
        gnome(["--help"])
    out = capsys.readouterr().out
    assert all(spec.name in out and spec.title in out for spec in games())
    with pytest.raises(SystemExit):
        gnome(["train", "--help"])
    out = capsys.readouterr().out
    assert "trainer:" in out
    assert all(name in out for spec in games() for name in spec.trainers)


@pytest.mark.parametrize("trainer", ["nerts_ppo", "ginny_ppo"])
def test_other_trainers_say_gnome_train(trainer, tmp_path, capsys):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"trainer: {trainer}\ntotal_steps: -1\noutput_dir: {tmp_path / 'r'}\n")
    with pytest.raises(SystemExit):
        gnome(["train", "--config", str(cfg), "--help"])
    assert capsys.readouterr().out.startswith("usage: gnome train")
    assert gnome(["train", "--config", str(cfg)]) == 2
    assert capsys.readouterr().err.startswith("gnome train: error:")


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", "--num-players", "9"],
        ["eval", "--num-players", "9", "--lineup", "random"],
        ["play", "--num-players", "9"],
    ],
)
def test_a_bad_seat_count_names_the_spec_range_in_every_command(argv, capsys):
    with pytest.raises(SystemExit):
        gnome(argv)
    spec = games()[0]
    err = capsys.readouterr().err
    assert f"argument --num-players: 9 is not allowed for --game {spec.name}: use " in err
    assert f"use {spec.min_players}..{spec.max_players}" in err


def test_demo_and_eval_take_the_same_lineup_forms(capsys):
    """One spec for every seat, or one per seat: demo and eval agree."""
    assert gnome(["demo", "--game", "nerts", "--lineup", "greedy", "--max-hands", "1"]) == 0
    argv = ["eval", "--game", "nerts", "--num-players", "2", "--lineup", "greedy", "--games"]
    assert gnome([*argv, "2", "--max-hands", "1", "--no-progress"]) == 0
    capsys.readouterr()
    for command in (["demo"], ["eval", "--games", "2", "--no-progress"]):
        with pytest.raises(SystemExit):
            gnome([*command, "--game", "nerts", "--lineup", "greedy,greedy,greedy"])
        assert "3 specs given for 4 players" in capsys.readouterr().err


def test_demo_without_seed_draws_one_and_prints_it(capsys):
    seeds = []
    for _ in range(2):
        assert gnome(["demo", "--num-players", "3"]) == 0
        first = capsys.readouterr().out.splitlines()[0]
        seeds.append(int(re.search(r"seed (\d+)", first).group(1)))
    assert seeds[0] != seeds[1]
    assert gnome(["demo", "--num-players", "3", "--seed", str(seeds[0])]) == 0
    assert f"seed {seeds[0]}" in capsys.readouterr().out


def test_play_without_seed_draws_one(monkeypatch, capsys):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    gnome(["play", "--num-players", "3"])
    out = capsys.readouterr().out
    assert re.search(r"seed \d+", out) and "seed 0." not in out


@pytest.mark.parametrize("kind", ["binary", "missing", "directory", "bad-json"])
def test_replay_of_an_unreadable_file_is_one_line(kind, tmp_path, capsys):
    path = {
        "binary": ROOT / "agents" / "policies" / "ppo_3to7" / "policy.pt",
        "missing": tmp_path / "none.json",
        "directory": tmp_path,
        "bad-json": tmp_path / "bad.json",
    }[kind]
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(SystemExit) as stop:
        gnome(["replay", str(path), "--html", str(tmp_path / "o.html")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("gnome replay: error:")
    assert "Traceback" not in err
