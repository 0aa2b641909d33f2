"""Saved game records (issue #18 item 1): ``run_arena(save_games=...)``, ``gnome eval
--save-games DIR [--save-every K]`` and ``gnome play --save PATH``.

Every saved record replays exactly (:func:`gnome_env.load_record`), and its ``meta`` says
who sat where; saving never changes the arena's results.
"""

from __future__ import annotations

import io
import json
import math
import re
import sys
from pathlib import Path

import pytest

from agents.gnoming.arena import agent_seed_for, deal_seeds, run_arena
from agents.gnoming.registry import make_agent
from gnome_env.gnoming import RecordError, load_record, read_record, replay, to_record
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.information import SeatView
from training.app.cli import main as gnome

SHORT = {"rounds": 1, "max_turns_per_round": 30}  # short games keep the file fast
LINEUP = ["random", "greedy", "random"]


def _arena(**kw):
    return run_arena(LINEUP, 3, 6, seed=7, rules=SHORT, progress=False, **kw)


def _files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def _play_again(meta: dict, game_seed: int, config: RulesConfig) -> list[int]:
    """The actions of the game the meta describes, played again by the agents it names
    (built from ``players`` and ``agent_seeds``, decided as the arena decides)."""
    encoder = ObservationEncoder(config)
    agents = [
        make_agent(spec, seed, config)
        for spec, seed in zip(meta["players"], meta["agent_seeds"], strict=True)
    ]
    game = Game(config, game_seed)
    while not game.game_over:
        seat = game.current_seat
        agent = agents[seat]
        if callable(getattr(agent, "decide", None)):
            game.step(agent.decide(SeatView.from_game(game, seat)))
        else:
            game.step(agent.act(encoder.encode(game, seat), game.legal_mask()))
    return list(game.actions)


# ---------------------------------------------------------------------- run_arena
def test_arena_records_replay_and_match_the_arena_games(tmp_path):
    out = tmp_path / "deep" / "games"  # parents are created
    result = _arena(save_games=out)
    assert _files(out) == [f"game_{k:06d}.json" for k in range(6)]
    config = RulesConfig.from_dict({**SHORT, "num_players": 3})
    by_game = {(rec["deal"], rec["rotation"]): rec for rec in result.records}
    for path in sorted(out.iterdir()):
        record = read_record(path)
        meta = record["meta"]
        d, r = meta["deal"], meta["rotation"]
        arena_rec = by_game[(d, r)]
        game = load_record(path)  # replays exactly, or raises RecordError
        assert game.game_over
        assert game.digest() == arena_rec["digest"] == record["final"]["digest"]
        assert [game.totals[s] for s in arena_rec["seats"]] == arena_rec["totals"]
        assert len(game.actions) == arena_rec["decisions"]
        game_seed, agent_seed = deal_seeds(7, d)
        assert record["seed"] == game_seed == arena_rec["game_seed"]
        assert meta["source"] == "gnome eval"
        assert meta["num_players"] == 3 and meta["arena_seed"] == 7
        assert meta["game_index"] == 3 * d + r and path.name == f"game_{3 * d + r:06d}.json"
        assert meta["lineup"] == LINEUP
        assert meta["seats"] == arena_rec["seats"] == [(i + r) % 3 for i in range(3)]
        for i, seat in enumerate(meta["seats"]):
            assert meta["players"][seat] == LINEUP[i]
            assert meta["agent_seeds"][seat] == agent_seed_for(agent_seed, r, i)
        # the named agents, seeded as the meta says, play the very same game again
        assert _play_again(meta, game_seed, config) == record["actions"]
    assert {(read_record(p)["meta"]["deal"], read_record(p)["meta"]["rotation"])
            for p in out.iterdir()} == set(by_game)  # fmt: skip


def test_save_every_k_saves_the_games_whose_index_is_a_multiple_of_k(tmp_path):
    result = _arena(save_games=tmp_path, save_every=4)
    games = result.settings["games"]
    assert games == 6
    names = _files(tmp_path)
    assert len(names) == math.ceil(games / 4) == 2
    assert names == ["game_000000.json", "game_000004.json"]
    meta = read_record(tmp_path / "game_000004.json")["meta"]
    assert (meta["deal"], meta["rotation"], meta["game_index"]) == (1, 1, 4)
    # only the indices written are overwritten; other files in DIR stay
    (tmp_path / "game_000001.json").write_text("keep")
    (tmp_path / "game_000000.json").write_text("stale")
    _arena(save_games=tmp_path, save_every=4)
    assert (tmp_path / "game_000001.json").read_text() == "keep"
    assert load_record(tmp_path / "game_000000.json").game_over
    assert not list(tmp_path.glob("*.tmp"))


def test_saving_does_not_change_the_result_for_one_or_two_workers(tmp_path):
    plain = _arena()
    saved = _arena(save_games=tmp_path / "one", workers=1)
    two = _arena(save_games=tmp_path / "two", save_every=2, workers=2)
    assert saved.to_dict() == plain.to_dict()
    assert (two.settings["workers"], saved.settings["workers"]) == (2, 1)
    assert two.stats == saved.stats
    assert {k: v for k, v in two.settings.items() if k != "workers"} == {
        k: v for k, v in saved.settings.items() if k != "workers"
    }  # everything but the worker count is the same
    assert saved.records == plain.records == two.records
    assert all("record" not in rec for rec in saved.records)
    for name in _files(tmp_path / "two"):
        assert (tmp_path / "two" / name).read_text() == (tmp_path / "one" / name).read_text()


def test_factory_entries_are_named_by_their_label(tmp_path):
    def first_legal(seed, config):
        from agents.gnoming.random_agent import RandomAgent

        return RandomAgent(seed)

    run_arena(
        [first_legal, "random", "random"], 3, 3, rules=SHORT, progress=False, save_games=tmp_path
    )
    meta = read_record(tmp_path / "game_000002.json")["meta"]
    assert meta["lineup"] == ["first_legal", "random", "random"]
    assert meta["players"][meta["seats"][0]] == "first_legal"


def test_bad_save_arguments_are_clear_errors(tmp_path):
    a_file = tmp_path / "taken"
    a_file.write_text("x")
    with pytest.raises(ValueError, match=r"is an existing file, not a directory"):
        _arena(save_games=a_file)
    with pytest.raises(ValueError, match=r"taken/sub'?: cannot create the directory: \S"):
        _arena(save_games=a_file / "sub")
    with pytest.raises(ValueError, match="save_every=0 is not allowed: must be an integer >= 1"):
        _arena(save_games=tmp_path / "g", save_every=0)
    with pytest.raises(ValueError, match=r"save_every=1\.5 is not allowed"):
        _arena(save_games=tmp_path / "g", save_every=1.5)
    assert not (tmp_path / "g").exists()  # checked before anything is created


def test_a_record_whose_meta_is_not_an_object_is_refused():
    game = Game(RulesConfig(num_players=3), 1)
    record = to_record(game, {"source": "test"})
    assert replay(record).digest() == game.digest()
    record["meta"] = ["not", "an", "object"]
    with pytest.raises(RecordError, match="'meta' must be a JSON object, got list"):
        replay(record)


# ---------------------------------------------------------------------- gnome eval
EVAL = ["eval", "--players", "3", "--lineup", "random,greedy,random", "--games", "6",
        "--rounds", "1", "--max-turns", "30", "--no-progress", "--seed", "2"]  # fmt: skip


def test_gnome_eval_save_games_writes_the_records(tmp_path, capsys):
    out = tmp_path / "games"
    assert gnome([*EVAL, "--save-games", str(out), "--save-every", "2"]) == 0
    stdout = capsys.readouterr().out
    assert f"3 game records written to {out}" in stdout
    assert stdout.index("win rate") < stdout.index("game records written")
    assert _files(out) == ["game_000000.json", "game_000002.json", "game_000004.json"]
    record = read_record(out / "game_000002.json")
    assert record["meta"]["arena_seed"] == 2 and record["meta"]["lineup"] == LINEUP
    assert load_record(out / "game_000002.json").game_over


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--save-every", "2"], "argument --save-every: only with --save-games DIR"),
        (
            ["--save-games", "{tmp}/g", "--save-every", "0"],
            "argument --save-every: 0 is not allowed: use an integer >= 1",
        ),
        (["--save-games", "{tmp}/file"], "argument --save-games: save_games="),
        (["--save-games", "{tmp}/file/sub"], "cannot create the directory"),
    ],
)
def test_gnome_eval_bad_save_options_are_parser_errors(extra, message, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    argv = [*EVAL, *(a.replace("{tmp}", str(tmp_path)) for a in extra)]
    with pytest.raises(SystemExit) as stop:
        gnome(argv)
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert "gnome eval: error:" in captured.err and message in captured.err
    assert "Traceback" not in captured.err and "win rate" not in captured.out
    assert not (tmp_path / "g").exists()


def test_gnome_eval_an_existing_file_as_save_games_says_so(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit):
        gnome([*EVAL, "--save-games", str(tmp_path / "file")])
    err = capsys.readouterr().err
    assert "is an existing file, not a directory" in err
    assert (tmp_path / "file").read_text() == "x"


# ---------------------------------------------------------------------- gnome play
PLAY = ["play", "--players", "3", "--seat", "1", "--opponents", "random,greedy", "--seed", "5"]


def test_gnome_play_save_writes_the_humans_game(tmp_path, monkeypatch, capsys):
    path = tmp_path / "mine.json"
    # seat 1: two opening flips (menu entry 1 each time), then leave
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n1\nq\n"))
    assert gnome([*PLAY, "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f"record written to {path}")
    record = read_record(path)
    assert record["meta"] == {
        "source": "gnome play",
        "num_players": 3,
        "players": ["random", "human", "greedy"],
        "human_seat": 1,
        "seed": 5,
    }
    assert record["seed"] == 5 and not record["final"]["over"]
    game = load_record(path)
    assert not game.game_over
    moves = [line for line in out.splitlines() if re.match(r"(you \(seat 1\)|seat [02]): ", line)]
    assert sum(line.startswith("you (seat 1): flip") for line in moves) == 2
    assert len(game.actions) == len(moves)  # every move shown is in the record


def test_gnome_play_save_after_a_finished_game(tmp_path, monkeypatch, capsys):
    path = tmp_path / "done.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 500))
    argv = ["play", "--players", "3", "--seed", "2", "--max-turns", "3", "--save", str(path)]
    assert gnome(argv) == 0
    assert "Game over." in capsys.readouterr().out
    game = load_record(path)
    assert game.game_over and read_record(path)["meta"]["players"] == ["human", "random", "random"]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing/dir/game.json", "does not exist"),
        (".", "is a directory"),
    ],
)
def test_gnome_play_unwritable_save_path_stops_before_the_game(
    target, message, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n1\nq\n"))
    with pytest.raises(SystemExit) as stop:
        gnome([*PLAY, "--save", target])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no game was started
    assert "gnome play: error: argument --save:" in captured.err and message in captured.err
    assert list(tmp_path.iterdir()) == []


def test_saved_play_record_is_plain_json(tmp_path, monkeypatch, capsys):
    path = tmp_path / "g.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert gnome(["play", "--players", "4", "--seat", "0", "--save", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["meta"]["players"] == ["human", "random", "random", "random"]
    assert data["meta"]["human_seat"] == 0 and data["actions"] == []
    assert not list(tmp_path.glob("*.tmp"))  # the writability probe left nothing behind
