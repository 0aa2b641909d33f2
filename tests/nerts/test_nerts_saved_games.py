"""Saved Nerts games: ``run_arena(..., game="nerts", save_games=DIR)`` and ``gnome eval --game
nerts --save-games DIR [--save-every K] [--overwrite]``.

Every saved record replays exactly (gnome_env.nerts.records), its ``meta`` says who sat where
and the named agents, seeded as it says, play the very same game again; saving never
changes the arena's results, and the command never replaces a record unless asked.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from agents.core.arena import agent_seed_for, deal_seeds, run_arena
from agents.nerts.arena import play_game
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig
from gnome_env.nerts.records import GameLog, load_record, read_record
from training.app.cli import main as gnome

RULES = {"max_hands": 1, "max_steps_per_hand": 120}
LINEUP = ["greedy", "random", "greedy"]


def _arena(**kw):
    return run_arena(LINEUP, 3, 6, seed=4, rules=RULES, progress=False, game="nerts", **kw)


def _files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir())


def test_arena_records_replay_and_match_the_arena_games(tmp_path):
    out = tmp_path / "deep" / "games"
    result = _arena(save_games=out)
    assert _files(out) == [f"game_{k:06d}.json" for k in range(6)]
    config = NertsConfig(num_players=3, **RULES)
    by_game = {(rec["deal"], rec["rotation"]): rec for rec in result.records}
    for path in sorted(out.iterdir()):
        record = read_record(path)
        meta = record["meta"]
        d, r = meta["deal"], meta["rotation"]
        arena_rec = by_game[(d, r)]
        log = load_record(path)  # replays exactly, or raises RecordError
        assert log.game.game_over
        assert log.game.digest() == arena_rec["digest"] == record["final"]["digest"]
        assert [log.game.totals[s] for s in arena_rec["seats"]] == arena_rec["totals"]
        assert log.num_steps == arena_rec["steps"]
        game_seed, agent_seed = deal_seeds(4, d)
        assert record["seed"] == game_seed == arena_rec["game_seed"]
        assert meta["source"] == "gnome eval" and meta["arena_seed"] == 4
        assert meta["game_index"] == 3 * d + r and path.name == f"game_{3 * d + r:06d}.json"
        assert meta["seats"] == arena_rec["seats"] == [(i + r) % 3 for i in range(3)]
        for i, seat in enumerate(meta["seats"]):
            assert meta["players"][seat] == LINEUP[i]
            assert meta["agent_seeds"][seat] == agent_seed_for(agent_seed, r, i)
        # the named agents, seeded as the meta says, play the very same game again
        again = GameLog(config, game_seed)
        named = zip(meta["players"], meta["agent_seeds"], strict=True)
        play_game(again, [make_nerts_agent(p, s, config) for p, s in named])
        assert again.hands == log.hands


def test_save_every_k_and_saving_does_not_change_the_result(tmp_path):
    plain = _arena()
    saved = _arena(save_games=tmp_path / "a", save_every=4)
    two = _arena(save_games=tmp_path / "b", save_every=4, workers=2)
    assert _files(tmp_path / "a") == ["game_000000.json", "game_000004.json"]
    assert len(_files(tmp_path / "a")) == math.ceil(6 / 4)
    assert saved.to_dict() == plain.to_dict() and saved.records == plain.records
    assert two.stats == saved.stats and two.records == saved.records
    for name in _files(tmp_path / "a"):
        assert (tmp_path / "a" / name).read_text() == (tmp_path / "b" / name).read_text()
    assert not list((tmp_path / "a").glob("*.tmp"))


# ---------------------------------------------------------------------- gnome eval
EVAL = ["eval", "--game", "nerts", "--players", "3", "--lineup", ",".join(LINEUP), "--games",
        "6", "--max-hands", "1", "--max-steps", "120", "--no-progress", "--seed", "4"]  # fmt: skip


def test_gnome_eval_save_games_writes_records_that_gnome_replay_reads(tmp_path, capsys):
    out = tmp_path / "games"
    assert gnome([*EVAL, "--save-games", str(out), "--save-every", "2"]) == 0
    stdout = capsys.readouterr().out
    assert f"3 Nerts game records written to {out}" in stdout
    assert stdout.index("win rate") < stdout.index("game records written")
    assert _files(out) == ["game_000000.json", "game_000002.json", "game_000004.json"]
    assert load_record(out / "game_000002.json").game.game_over
    page = tmp_path / "g.html"
    assert gnome(["replay", str(out / "game_000002.json"), "--html", str(page)]) == 0
    assert page.is_file() and "HTML viewer written" in capsys.readouterr().out


def test_gnome_eval_never_replaces_saved_records_unless_asked(tmp_path, capsys):
    out = tmp_path / "games"
    out.mkdir()
    (out / "game_000003.json").write_text("keep")
    (out / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit) as stop:
        gnome([*EVAL, "--save-games", str(out)])
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert "already holds 1 of the 6 records this run writes (game_000003.json)" in captured.err
    assert "--overwrite" in captured.err and "win rate" not in captured.out
    assert _files(out) == ["game_000003.json", "notes.txt"]
    assert gnome([*EVAL, "--save-games", str(out), "--save-every", "2"]) == 0  # 0, 2, 4 only
    assert (out / "game_000003.json").read_text() == "keep"
    capsys.readouterr()
    assert gnome([*EVAL, "--save-games", str(out), "--overwrite"]) == 0
    assert load_record(out / "game_000003.json").game.game_over
    assert (out / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--save-every", "2"], "argument --save-every: only with --save-games DIR"),
        (["--overwrite"], "argument --overwrite: only with --save-games DIR"),
        (
            ["--save-games", "{tmp}/g", "--save-every", "0"],
            "argument --save-every: 0 is not allowed: use an integer >= 1",
        ),
        (["--save-games", "{tmp}/file"], "is an existing file, not a directory"),
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
    assert not (tmp_path / "g").exists() and (tmp_path / "file").read_text() == "x"


def test_overwrite_is_a_nerts_option(capsys):
    argv = ["eval", "--players", "3", "--lineup", "random", "--games", "3", "--overwrite"]
    with pytest.raises(SystemExit):
        gnome(argv)
    assert "argument --overwrite: only with --game nerts" in capsys.readouterr().err
