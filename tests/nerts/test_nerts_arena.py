"""The arena on Nerts (``run_arena(..., game="nerts")``, agents.nerts.arena) and the
``gnome eval`` / ``gnome demo`` commands with ``--game nerts``."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from agents.gnoming.arena import STAT_FIELDS, normal_ci, run_arena
from agents.nerts.arena import play_game, play_nerts_deal
from agents.nerts.bots import GreedyNertsAgent, NertsBot
from gnome_env.nerts import NertsConfig, NertsGame
from training.app.cli import main as gnome

ONE_HAND = {"max_hands": 1, "max_steps_per_hand": 300}  # short games keep the file fast


class FirstLegalBot(NertsBot):
    """Deterministic: the highest legal id (ignores its seed)."""

    def decide(self, view):
        return view.legal_actions[-1]


def _nerts(lineup, n, games, **kw):
    kw.setdefault("rules", ONE_HAND)
    return run_arena(lineup, n, games, progress=False, game="nerts", **kw)


# ---------------------------------------------------------------------- rotation and deals
def test_seat_rotation_every_entry_plays_every_seat_equally_often():
    result = _nerts(["greedy", "random", "random"], 3, 7, seed=3)
    assert result.settings["games"] == 9 and result.settings["games_requested"] == 7
    assert result.settings["game"] == "nerts" and result.game == "nerts"
    for i in range(3):
        assert Counter(rec["seats"][i] for rec in result.records) == {0: 3, 1: 3, 2: 3}
    for rec in result.records:
        assert rec["seats"] == [(i + rec["rotation"]) % 3 for i in range(3)]
        assert rec["hands"] == 1 and len(rec["hand_scores"][0]) == 1
    assert all(st.games == 9 for st in result.stats)


def test_common_deals_identical_deterministic_bots_play_the_same_game_in_every_rotation():
    # greedy never draws a random number and pi depends on (seed, hand, step) only (N4), so
    # with the same cards every rotation is the same game; other deals differ.
    result = _nerts(["greedy"] * 3, 3, 9, seed=5, rules={"max_hands": 2})
    by_deal: dict[int, list[dict]] = {}
    for rec in result.records:
        by_deal.setdefault(rec["deal"], []).append(rec)
    for recs in by_deal.values():
        assert len({rec["game_seed"] for rec in recs}) == 1
        assert len({rec["digest"] for rec in recs}) == 1
        by_seat = [sorted(zip(rec["seats"], rec["totals"], strict=True)) for rec in recs]
        assert all(s == by_seat[0] for s in by_seat)
    assert len({recs[0]["digest"] for recs in by_deal.values()}) == 3
    # the recorded seed is the game's seed: replaying it gives the same final state
    rec = result.records[0]
    config = NertsConfig(num_players=3, max_hands=2)
    game = NertsGame(config, rec["game_seed"])
    play_game(game, [GreedyNertsAgent(s, config) for s in range(3)])
    assert game.digest() == rec["digest"]


def test_play_deal_is_pure_and_factories_are_entries():
    rules = NertsConfig(num_players=2, **ONE_HAND).to_dict()
    first = play_nerts_deal([FirstLegalBot, "random"], 2, rules, 123, 456)
    assert play_nerts_deal([FirstLegalBot, "random"], 2, rules, 123, 456) == first
    other = play_nerts_deal([FirstLegalBot, "random"], 2, rules, 123, 457)
    assert [r["digest"] for r in other] != [r["digest"] for r in first]
    assert [r["game_seed"] for r in first] == [123, 123]
    saved = play_nerts_deal([FirstLegalBot, "random"], 2, rules, 123, 456, record_rotations=[1])
    assert "record" not in saved[0] and saved[1]["record"]["seed"] == 123
    assert [{k: v for k, v in r.items() if k != "record"} for r in saved] == first


def test_ranks_win_shares_and_scores_follow_n31():
    result = _nerts(["greedy", "random", "random", "random"], 4, 12, seed=2, rules={"max_hands": 2})
    for rec in result.records:
        keys = [(-t, -h[-1]) for t, h in zip(rec["totals"], rec["hand_scores"], strict=True)]
        best = min(keys)
        winners = [i for i, k in enumerate(keys) if k == best]
        assert [i for i, s in enumerate(rec["win_shares"]) if s > 0] == winners
        assert min(rec["ranks"]) == (1 + len(winners)) / 2
        assert sum(rec["win_shares"]) == pytest.approx(1.0)
        assert [sum(h) for h in rec["hand_scores"]] == rec["totals"]
    for i, st in enumerate(result.stats):
        hands = [x for rec in result.records for x in rec["hand_scores"][i]]
        assert st.mean_round_score == pytest.approx(np.mean(hands))  # mean hand score
        per_deal = [
            np.mean([r["win_shares"][i] for r in result.records if r["deal"] == d])
            for d in range(3)
        ]
        assert (st.win_rate, st.ci_low, st.ci_high) == pytest.approx(normal_ci(per_deal))
    assert sum(st.mean_rank for st in result.stats) == pytest.approx(1 + 2 + 3 + 4)


# ---------------------------------------------------------------------- strength, determinism
def test_greedy_beats_random_significantly_two_players():
    result = _nerts(["greedy", "random"], 2, 24, seed=0)
    greedy, rand = result.stats
    assert greedy.ci_low > 0.6 and rand.ci_high < 0.4
    assert greedy.mean_round_score > rand.mean_round_score + 10
    assert greedy.rating_mu > rand.rating_mu and greedy.mean_rank < 1.3


def test_same_results_for_one_and_two_workers():
    one = _nerts(["greedy", "random"], 2, 8, seed=4, workers=1)
    two = _nerts(["greedy", "random"], 2, 8, seed=4, workers=2)
    assert one.records == two.records and one.stats == two.stats
    other = _nerts(["greedy", "random"], 2, 8, seed=5)
    assert other.records != one.records


def test_table_json_and_rules(tmp_path):
    result = _nerts(["random", "random"], 2, 2, rules={"max_hands": 1, "jokers": 1})
    table = result.table()
    assert table.startswith("Arena (Nerts): 2 players, 2 games = 1 deals x 2 seat rotations")
    assert "rules: target_score=100, max_hands=1, max_steps_per_hand=1000, jokers=1" in table
    assert "mean hand" in table and "random#1" in table
    result.to_json(tmp_path / "out.json")
    data = json.loads((tmp_path / "out.json").read_text())
    assert data["settings"]["game"] == "nerts" and data["settings"]["rules"]["jokers"] == 1
    assert [tuple(e) for e in data["entries"]] == [STAT_FIELDS] * 2
    gnoming = run_arena(["random"] * 3, 3, 3, progress=False, rules={"rounds": 1})
    assert "game" not in gnoming.settings and gnoming.table().startswith("Arena: 3 players")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: _nerts(["random"] * 7, 7, 7), "num_players=7 is not allowed: must be an "),
        (lambda: _nerts(["random"] * 2, 3, 3), "give exactly 3 entries"),
        (
            lambda: _nerts(["random", "grandmaster"], 2, 2),
            r"known Nerts specs: expert, greedy, ppo",
        ),
        (lambda: _nerts(["random"] * 2, 2, 2, rules={"players": 3}), "must agree"),
        (lambda: _nerts(["random"] * 2, 2, 2, rules={"turns": 3}), "unknown Nerts config"),
        (lambda: _nerts(["random"] * 2, 2, 2, save_every=0, save_games="x"), "save_every=0"),
        (lambda: run_arena(["random"] * 2, 2, 2, game="chess"), "must be one of gnoming, nerts"),
    ],
)
def test_bad_arguments_say_what_is_allowed(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------------- the command line
EVAL = ["eval", "--game", "nerts", "--players", "2", "--lineup", "greedy,random", "--games",
        "4", "--max-hands", "1", "--no-progress", "--seed", "1"]  # fmt: skip


def test_gnome_eval_game_nerts_prints_the_table_and_writes_json(tmp_path, capsys):
    assert gnome([*EVAL, "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "Arena (Nerts): 2 players, 4 games" in out and "greedy" in out
    assert "max_hands=1" in out
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["settings"]["game"] == "nerts" and data["settings"]["rules"]["num_players"] == 2
    assert data["settings"]["lineup"] == ["greedy", "random"]


def test_gnome_demo_game_nerts_plays_a_game(capsys):
    argv = ["demo", "--game", "nerts", "--players", "3", "--seed", "2", "--max-hands", "2"]
    assert gnome(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("Nerts, 3 players, seed 2, seats: greedy, greedy, greedy")
    assert "hand 0: " in out and "hand 1: " in out and "winner" in out
    assert gnome([*argv[:-2], "--max-hands", "1", "--lineup", "random"]) == 0
    assert "seats: random, random, random" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["eval", "--game", "nerts", "--players", "7", "--lineup", "random"],
            "argument --players: 7 is not allowed for --game nerts: use 2..6",
        ),
        (
            ["eval", "--game", "nerts", "--players", "2", "--lineup", "greedy,grandmaster"],
            "argument --lineup: unknown Nerts agent spec 'grandmaster'; known Nerts specs: expert",
        ),
        (
            ["eval", "--game", "nerts", "--players", "3", "--lineup", "greedy,random"],
            "argument --lineup: 2 specs given for 3 players",
        ),
        (
            [*EVAL, "--rounds", "2"],
            "argument --rounds: only with --game gnoming (this is --game nerts)",
        ),
        (
            [*EVAL, "--save-every", "2"],
            "argument --save-every: only with --save-games DIR",
        ),
        (
            ["eval", "--players", "3", "--lineup", "random,random,random", "--target", "5"],
            "argument --target: only with --game nerts (this is --game gnoming)",
        ),
        ([*EVAL, "--max-hands", "0"], "argument --max-hands: max_hands=0 is not allowed"),
        ([*EVAL, "--target", "0"], "argument --target: target_score=0 is not allowed"),
        (["eval", "--game", "chess", "--lineup", "x"], "invalid choice: 'chess' (choose from"),
        (["demo", "--players", "2"], "argument --players: 2 is not allowed for --game gnoming"),
        (["demo", "--game", "nerts", "--record", "r.json"], "argument --record: only with"),
        (
            ["demo", "--game", "nerts", "--players", "2", "--lineup", "nope"],
            "known Nerts specs: expert, greedy, ppo, ppo-sample, random, rllib",
        ),
    ],
)
def test_gnome_bad_nerts_options_are_parser_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        gnome(argv)
    assert stop.value.code == 2
    captured = capsys.readouterr()
    assert message in captured.err and "Traceback" not in captured.err
    assert "win rate" not in captured.out
