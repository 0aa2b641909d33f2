"""The arena on Ginny-O (``run_arena(..., game="ginny_o")``, agents.ginny_o.arena) and the
``gnome eval`` / ``gnome demo`` commands with ``--game ginny_o``."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from agents.ginny_o.arena import GINNY_ARENA, play_game, play_ginny_deal
from agents.ginny_o.bots import GinnyBot, GreedyGinnyAgent
from agents.gnoming.arena import STAT_FIELDS, normal_ci, run_arena
from gnome_env.ginny_o import GinnyConfig, GinnyGame
from training.app.cli import main as gnome

SHORT = {"max_turns": 30}  # short games keep the file fast


class LastLegalBot(GinnyBot):
    """Deterministic: the highest legal id (ignores its seed)."""

    def decide(self, view):
        return view.legal_actions[-1]


def _ginny(lineup, n, games, **kw):
    kw.setdefault("rules", SHORT)
    return run_arena(lineup, n, games, progress=False, game="ginny_o", **kw)


# ---------------------------------------------------------------------- rotation and records
def test_seat_rotation_every_entry_plays_every_seat_equally_often():
    result = _ginny(["greedy", "random", "heuristic"], 3, 5, seed=3, rules={"max_turns": 12})
    assert result.settings["games"] == 6 and result.settings["games_requested"] == 5
    assert result.settings["game"] == "ginny_o" and result.game == "ginny_o"
    for i in range(3):
        assert Counter(rec["seats"][i] for rec in result.records) == {0: 2, 1: 2, 2: 2}
    for rec in result.records:
        assert rec["seats"] == [(i + rec["rotation"]) % 3 for i in range(3)]
        assert rec["turns"] == 12 and rec["end_reason"] == "turn_cap"  # G29d
    assert all(st.games == 6 for st in result.stats)


def test_g31_ranks_win_shares_and_scores():
    result = _ginny(["greedy", "random"], 2, 4, seed=1)
    for rec in result.records:
        assert rec["totals"] == [
            s - p for s, p in zip(rec["scores"], rec["penalties"], strict=True)
        ]
        assert rec["game_scores"] == [[t] for t in rec["totals"]]
        keys = [(-t, p) for t, p in zip(rec["totals"], rec["penalties"], strict=True)]  # G31
        winners = [i for i, k in enumerate(keys) if k == min(keys)]
        assert [i for i, s in enumerate(rec["win_shares"]) if s > 0] == winners
        assert sum(rec["win_shares"]) == pytest.approx(1.0)
        assert min(rec["ranks"]) == (1 + len(winners)) / 2
        assert rec["game_seed"] == result.records[2 * rec["deal"]]["game_seed"]  # common deals
    for i, st in enumerate(result.stats):
        per_deal = [
            sum(r["win_shares"][i] for r in result.records if r["deal"] == d) / 2 for d in range(2)
        ]
        assert (st.win_rate, st.ci_low, st.ci_high) == pytest.approx(normal_ci(per_deal))
        assert st.mean_round_score == pytest.approx(st.mean_total)  # one unit: the game
        assert 0 <= st.ci_low <= st.win_rate <= st.ci_high <= 1


def test_greedy_beats_random_with_an_interval():
    result = _ginny(["greedy", "random"], 2, 6, seed=0, rules={"max_turns": 40})
    greedy, rand = result.stats
    assert greedy.ci_low > 0.5 > rand.ci_high  # 3 deals: an interval, not [0, 1]
    assert greedy.win_rate + rand.win_rate == pytest.approx(1.0)
    assert greedy.mean_total > rand.mean_total and greedy.rating_mu > rand.rating_mu


def test_same_seed_same_result_and_the_record_replays():
    first = _ginny(["greedy", "greedy"], 2, 2, seed=5, rules={"max_turns": 20})
    again = _ginny(["greedy", "greedy"], 2, 2, seed=5, rules={"max_turns": 20})
    assert first.records == again.records and first.stats == again.stats
    other = _ginny(["greedy", "greedy"], 2, 2, seed=6, rules={"max_turns": 20})
    assert other.records != first.records
    rec = first.records[1]
    game = GinnyGame(GinnyConfig(num_players=2, max_turns=20), rec["game_seed"])
    play_game(game, [GreedyGinnyAgent(0), GreedyGinnyAgent(1)])  # greedy ignores its seed
    assert game.digest() == rec["digest"]


def test_play_deal_is_pure_and_factories_are_entries():
    rules = GinnyConfig(num_players=2, max_turns=20).to_dict()
    first = play_ginny_deal([LastLegalBot, "random"], 2, rules, 123, 456)
    assert play_ginny_deal([LastLegalBot, "random"], 2, rules, 123, 456) == first
    other = play_ginny_deal([LastLegalBot, "random"], 2, rules, 123, 457)
    assert [r["digest"] for r in other] != [r["digest"] for r in first]
    assert [r["game_seed"] for r in first] == [123, 123]
    saved = play_ginny_deal([LastLegalBot, "random"], 2, rules, 123, 456, record_rotations=[1])
    record = saved[1].pop("record")  # the rotation saved (gnome_env.ginny_o.records)
    assert "record" not in saved[0] and record["final"]["digest"] == first[1]["digest"]
    assert saved == first  # saving changes nothing


def test_table_json_and_rules_line(tmp_path):
    result = _ginny(["random", "random"], 2, 2, rules={"max_turns": 10, "jokers_per_set": 1})
    table = result.table()
    assert table.startswith("Arena (Ginny-O): 2 players, 2 games = 1 deals x 2 seat rotations")
    assert "rules: max_turns=10, max_placements=1, jokers_per_set=1" in table
    assert "mean game" in table and "random#1" in table
    assert (
        GINNY_ARENA.rules_line(GINNY_ARENA.rules_dict(None, 4), 4)
        == "rules: max_turns=240 (60 x 4 players), max_placements=1"
    )
    result.to_json(tmp_path / "out.json")
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["settings"]["game"] == "ginny_o" and data["settings"]["rules"]["max_turns"] == 10
    assert [tuple(e) for e in data["entries"]] == [STAT_FIELDS] * 2


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: _ginny(["random"] * 5, 5, 5), "num_players=5 is not allowed: must be "),
        (lambda: _ginny(["random"] * 2, 3, 3), "give exactly 3 entries"),
        (lambda: _ginny(["random", "master"], 2, 2), r"known Ginny-O specs: expert, greedy"),
        (lambda: _ginny(["random"] * 2, 2, 2, rules={"players": 3}), "must agree"),
        (lambda: _ginny(["random"] * 2, 2, 2, rules={"rounds": 3}), "unknown Ginny-O config"),
        (lambda: _ginny(["random"] * 2, 2, 2, rules={"max_turns": 0}), "max_turns=0 is not"),
        (lambda: _ginny(["random"] * 2, 2, 2, save_every=0), "save_every=0 is not allowed"),
        (lambda: run_arena(["random"] * 2, 2, 2, game="chess"), "gnoming, nerts, ginny_o"),
    ],
)
def test_bad_arguments_say_what_is_allowed(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------- the command line
EVAL = ["eval", "--game", "ginny_o", "--lineup", "greedy,random", "--games", "2",
        "--max-turns", "20", "--no-progress", "--seed", "1"]  # fmt: skip


def test_gnome_eval_game_ginny_o_prints_the_table_and_writes_json(tmp_path, capsys):
    assert gnome([*EVAL, "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "Arena (Ginny-O): 2 players, 2 games" in out and "greedy" in out
    assert "max_turns=20" in out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["settings"]["game"] == "ginny_o" and data["settings"]["rules"]["num_players"] == 2
    assert data["settings"]["lineup"] == ["greedy", "random"]
    argv = [
        *("eval", "--game", "ginny_o", "--players", "3", "--lineup", "greedy,heuristic,random"),
        *("--games", "3", "--max-turns", "9", "--max-placements", "2", "--no-progress"),
    ]
    assert gnome(argv) == 0
    assert "rules: max_turns=9, max_placements=2" in capsys.readouterr().out


def test_gnome_demo_game_ginny_o_plays_a_game_turn_by_turn(capsys):
    assert gnome(["demo", "--game", "ginny_o", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Ginny-O, 2 players, seed 2, seats: greedy, greedy\n")
    assert " @ " in out and "points (score " in out and "returned" in out
    assert "rack penalty" in out and "Winner" in out and "   0   1   2" in out
    argv = ["demo", "--game", "ginny_o", "--players", "3", "--lineup", "random,greedy,heuristic",
            "--max-turns", "6"]  # fmt: skip
    assert gnome(argv) == 0
    out = capsys.readouterr().out
    assert "seats: random, greedy, heuristic" in out and "turn cap" in out
    assert "turn   5  P" in out and "turn   6" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["eval", "--game", "ginny_o", "--players", "5", "--lineup", "random"],
            "argument --players: 5 is not allowed for --game ginny_o: use 2..4",
        ),
        (
            ["eval", "--game", "ginny_o", "--lineup", "greedy,master"],
            "argument --lineup: unknown Ginny-O agent spec 'master'; known Ginny-O specs: expert",
        ),
        (
            ["eval", "--game", "ginny_o", "--players", "3", "--lineup", "greedy,random"],
            "argument --lineup: 2 specs given for 3 players",
        ),
        (
            [*EVAL, "--rounds", "2"],
            "argument --rounds: only with --game gnoming (this is --game ginny_o)",
        ),
        (
            [*EVAL, "--target", "5"],
            "argument --target: only with --game nerts (this is --game ginny_o)",
        ),
        ([*EVAL, "--overwrite"], "argument --overwrite: only with --save-games DIR"),
        ([*EVAL, "--max-turns", "0"], "argument --max-turns: max_turns=0 is not allowed"),
        ([*EVAL, "--max-placements", "9"], "argument --max-placements: max_placements=9 is not"),
        (
            ["eval", "--players", "3", "--lineup", "random,random,random", "--max-placements", "2"],
            "argument --max-placements: only with --game ginny_o (this is --game gnoming)",
        ),
        (
            [
                "eval",
                "--game",
                "nerts",
                "--lineup",
                "random,random",
                "--players",
                "2",
                "--max-turns",
                "5",
            ],
            "argument --max-turns: only with --game gnoming or --game ginny_o",
        ),
        (["demo", "--game", "ginny_o", "--players", "1"], "argument --players: 1 is not allowed"),
        (["demo", "--game", "ginny_o", "--record", "r.json"], "argument --record: only with"),
        (
            ["demo", "--game", "ginny_o", "--lineup", "nope"],
            "known Ginny-O specs: expert, greedy, heuristic",
        ),
        (
            ["demo", "--game", "ginny_o", "--lineup", "a,b,c"],
            "give one Ginny-O spec for every seat",
        ),
        (["demo", "--max-turns", "5"], "argument --max-turns: only with --game ginny_o"),
        (["demo", "--game", "ginny_o", "--seed", "-1"], "argument --seed: -1 is not allowed"),
        (["eval", "--game", "ginny", "--lineup", "x"], "invalid choice: 'ginny' (choose from"),
    ],
)
def test_gnome_bad_ginny_options_are_parser_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        gnome(argv)
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
    assert "win rate" not in captured.out
