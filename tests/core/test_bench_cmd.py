"""``gnome bench --game NAME``: every registered game's benchmark behind one command."""

from __future__ import annotations

import json

import pytest

from gnome_env.registry import games
from training.app.cli import main as gnome


@pytest.mark.parametrize("spec", games(), ids=lambda s: s.name)
def test_every_game_has_a_benchmark_whose_help_names_the_game(spec, capsys):
    assert "bench" in spec.commands
    with pytest.raises(SystemExit) as stop:
        gnome(["bench", "--game", spec.name, "--help"])
    assert stop.value.code == 0
    assert f"usage: gnome bench --game {spec.name}" in capsys.readouterr().out


def test_an_unknown_game_is_one_line_naming_the_registered_ones(capsys):
    assert gnome(["bench", "--game", "chess"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "'chess' is not allowed: choose from gnoming, nerts, ginny_o" in err


def test_nerts_benchmark_measures_the_seat_counts_asked_for(capsys):
    from gnome_env.core.jit import COMPILED

    args = ["--seconds", "0.05", "--num-players", "3", "--batch-size", "8", "--json"]
    assert gnome(["bench", "--game", "nerts", *args]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert {r["players"] for r in rows} == {3}
    want = {"engine", "engine floor", "env", "env floor"}
    if COMPILED:  # the batched engine and the env's Python path
        want |= {"vector none", "vector table", "vector seats", "env python"}
    assert {r["what"] for r in rows} == want
    assert all(r["steps_per_s"] > 0 for r in rows)
    assert all(r["batch_size"] == 8 for r in rows if r["what"].startswith("vector"))


def test_a_bad_option_is_the_game_benchmarks_own_parser_error(capsys):
    with pytest.raises(SystemExit) as stop:
        gnome(["bench", "--game", "nerts", "--num-players", "9"])
    assert stop.value.code == 2
    assert "every --num-players value 2..6" in capsys.readouterr().err
