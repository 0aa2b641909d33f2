"""The evaluation arena (agents.gnoming.arena) and the ``gnome eval`` command.

Test-local agents are factories ``factory(seed, config) -> agent`` (a BotAgent subclass is
one), so these tests need no registered bot besides ``random``.
"""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from agents.gnoming.arena import (
    STAT_FIELDS,
    Z_95,
    ArenaResult,
    average_ranks,
    entry_names,
    game_outcome,
    ladder_lineup,
    normal_ci,
    play_deal,
    run_arena,
    summarize,
)
from agents.gnoming.base import BotAgent
from gnome_env.gnoming import _kernels as kernels
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, HAZARD_POINTS, MULLIGAN
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game, Phase
from gnome_env.gnoming.testing import stack_deck

ROOT = Path(__file__).resolve().parents[2]
SHORT = {"rounds": 1, "max_turns_per_round": 30}  # short games keep the file fast


def _points(card: int | None) -> float:
    if card == HAZARD:
        return HAZARD_POINTS
    return 0 if card in (MULLIGAN, None) else card


class LowCardBot(BotAgent):
    """Much stronger than random: takes low pile tops, swaps a card in where it lowers the score."""

    def decide(self, view):
        legal = view.legal_actions
        discards = [a for a in legal if a in (A.DISCARD_A, A.DISCARD_B)]
        if view.phase == Phase.HAZARD_FLIP:
            return A.DECLINE
        if view.phase == Phase.DRAW:
            for action, top in zip((A.TAKE_A, A.TAKE_B), view.pile_tops, strict=True):
                if action in legal and top is not None and _points(top) <= 2:
                    return action
            return A.DRAW if A.DRAW in legal else legal[0]
        if view.phase == Phase.PLACE:
            layout = view.layouts[view.seat]
            best, gain = None, 0.0
            for q in range(9):
                if A.PLACE + q in legal:
                    there = 5.5 if layout[q] is None else _points(layout[q])
                    if there - _points(view.hand) > gain:
                        best, gain = A.PLACE + q, there - _points(view.hand)
            if best is not None:
                return best
        return discards[0] if discards else legal[0]


class FirstLegalBot(BotAgent):
    """Deterministic: always the lowest legal action id (ignores its seed)."""

    def decide(self, view):
        return view.legal_actions[0]


class ActOnlyFirstLegal:
    """A policy without ``decide``: the arena must call ``act(observation, mask)``."""

    def __init__(self, seed, config):
        self.calls = 0

    def act(self, observation, mask):
        assert observation.dtype == np.float32 and mask.dtype == bool
        return int(np.flatnonzero(mask)[0])


class DecideOnlyBot(FirstLegalBot):
    """Fails if the arena takes the slow path through ``act``."""

    def act(self, observation, mask):
        raise AssertionError("the arena must call decide(view) on an agent that has it")


# ---------------------------------------------------------------------- rotation and deals
def test_seat_balance_every_entry_plays_every_seat_games_over_n_times():
    result = run_arena(["random"] * 4, 4, 10, seed=3, rules=SHORT, progress=False)
    assert result.settings["games"] == 12 and result.settings["games_requested"] == 10
    assert "rounded up to 12" in result.table()
    assert len(result.records) == 12
    for i in range(4):
        seats = Counter(rec["seats"][i] for rec in result.records)
        assert seats == {0: 3, 1: 3, 2: 3, 3: 3}
    for rec in result.records:  # rotation r seats entry i at (i + r) % n
        assert rec["seats"] == [(i + rec["rotation"]) % 4 for i in range(4)]
    assert all(st.games == 12 for st in result.stats)


def test_common_deals_every_rotation_of_a_deal_gets_the_same_cards():
    # Identical deterministic players: with the same cards every rotation is the same game,
    # so each seat's total (and the final state) repeats; other deals differ.
    result = run_arena([FirstLegalBot] * 3, 3, 9, seed=5, rules=SHORT, progress=False)
    by_deal: dict[int, list[dict]] = {}
    for rec in result.records:
        by_deal.setdefault(rec["deal"], []).append(rec)
    assert len(by_deal) == 3
    for recs in by_deal.values():
        assert len({rec["game_seed"] for rec in recs}) == 1
        assert len({rec["digest"] for rec in recs}) == 1
        seat_totals = [tuple(sorted(zip(rec["seats"], rec["totals"], strict=True))) for rec in recs]
        assert len(set(seat_totals)) == 1
    assert len({recs[0]["game_seed"] for recs in by_deal.values()}) == 3
    assert len({recs[0]["digest"] for recs in by_deal.values()}) == 3
    # the recorded seed is the game's seed: replaying it gives the same final state
    rec = result.records[0]
    game = Game(RulesConfig(num_players=3, **SHORT), rec["game_seed"])
    while not game.game_over:
        game.step(game.legal_actions()[0])
    assert game.digest() == rec["digest"]


def test_mixed_lineup_rotations_share_the_game_seed_and_agents_get_fresh_seeds():
    records = play_deal([LowCardBot, "random", "random"], 3, SHORT, 123, 456)
    assert [rec["game_seed"] for rec in records] == [123, 123, 123]
    assert [rec["rotation"] for rec in records] == [0, 1, 2]
    again = play_deal([LowCardBot, "random", "random"], 3, SHORT, 123, 456)
    assert again == records  # a pure function of its arguments
    other = play_deal([LowCardBot, "random", "random"], 3, SHORT, 123, 457)
    assert [r["digest"] for r in other] != [r["digest"] for r in records]


def test_decide_fast_path_and_act_path():
    records = play_deal([DecideOnlyBot, ActOnlyFirstLegal, "random"], 3, SHORT, 7, 8)
    assert len(records) == 3 and all(rec["decisions"] > 0 for rec in records)


# ---------------------------------------------------------------------- metrics
def test_normal_ci_matches_a_hand_computed_case():
    # shares 1, 0, 0, 1, 0.5: mean 0.5, squared deviations sum 1.0, s = sqrt(1/4) = 0.5,
    # half width 1.96 * 0.5 / sqrt(5) = 0.438269
    mean, low, high = normal_ci([1, 0, 0, 1, 0.5], z=1.96)
    assert mean == 0.5
    assert low == pytest.approx(0.5 - 0.438269, abs=1e-6)
    assert high == pytest.approx(0.5 + 0.438269, abs=1e-6)
    assert abs(Z_95 - 1.96) < 1e-3
    # 1, 1, 1, 0.5: mean 0.875, s = 0.25, half 1.96 * 0.25 / 2 = 0.245 -> high clipped to 1
    mean, low, high = normal_ci([1, 1, 1, 0.5], z=1.96)
    assert (mean, high) == (0.875, 1.0) and low == pytest.approx(0.63)
    assert normal_ci([0.25]) == (0.25, 0.0, 1.0)  # one sample: no spread estimate


def test_arena_ci_is_the_normal_ci_of_per_deal_mean_win_shares():
    result = run_arena(["random"] * 3, 3, 15, seed=2, rules=SHORT, progress=False)
    for i, st in enumerate(result.stats):
        per_deal = [
            np.mean([r["win_shares"][i] for r in result.records if r["deal"] == d])
            for d in range(5)
        ]
        assert (st.win_rate, st.ci_low, st.ci_high) == pytest.approx(normal_ci(per_deal))
    assert sum(st.win_rate for st in result.stats) == pytest.approx(1.0)
    assert sum(st.mean_rank for st in result.stats) == pytest.approx(1 + 2 + 3)


def _record(deal, rotation, totals, last, shares):
    keys = list(zip(totals, last, strict=True))
    return {
        "deal": deal,
        "rotation": rotation,
        "totals": totals,
        "round_scores": [[t - x, x] for t, x in zip(totals, last, strict=True)],
        "ranks": average_ranks(keys),
        "win_shares": shares,
    }


def test_mean_rank_ties_share_the_average_rank():
    assert average_ranks([10, 5, 5, 20]) == [3.0, 1.5, 1.5, 4.0]
    assert average_ranks([7, 7, 7]) == [2.0, 2.0, 2.0]
    # R23: equal totals are split by the last round: (5, 3) ranks below (5, 1)
    assert average_ranks([(5, 3), (5, 1), (9, 0)]) == [2.0, 1.0, 3.0]
    records = [
        _record(0, 0, [10, 10, 20], [4, 4, 1], [0.5, 0.5, 0.0]),  # ranks 1.5, 1.5, 3
        _record(0, 1, [30, 12, 12], [1, 2, 2], [0.0, 0.5, 0.5]),  # ranks 3, 1.5, 1.5
        _record(0, 2, [8, 9, 8], [2, 0, 2], [0.5, 0.0, 0.5]),  # ranks 1.5, 3, 1.5
    ]
    stats = summarize(["a", "b", "c"], records)
    assert [st.mean_rank for st in stats] == pytest.approx([2.0, 2.0, 2.0])
    assert [st.win_rate for st in stats] == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    assert [st.mean_total for st in stats] == pytest.approx([16.0, 31 / 3, 40 / 3])
    assert stats[0].mean_round_score == pytest.approx(48 / 6)


def test_r23_shared_win_splits_the_win_share_in_a_real_game():
    # Three identical layouts (1..9, no line matches: 45 each), one round, one turn in
    # which seat 0 draws and discards: every seat ends on 45, a three-way shared win.
    config = RulesConfig(num_players=3, rounds=1, max_turns_per_round=1)
    same = "1 2 3 / 4 5 6 / 7 8 9"
    deck = stack_deck(config, layouts=[same, same, same], top=["10", "11", "12"])
    game = Game(config, seed=0, stacked_decks={0: deck})
    while game.phase == Phase.OPENING_FLIP:
        game.step(game.legal_actions()[0])
    game.step(A.DRAW)
    game.step(A.DISCARD_A)
    assert game.game_over and game.totals == [45, 45, 45]
    ranks, shares = game_outcome(game)
    assert ranks == [2.0, 2.0, 2.0]
    assert shares == pytest.approx([1 / 3, 1 / 3, 1 / 3])


def test_rank_one_seats_are_exactly_the_winners_in_played_games():
    result = run_arena(["random"] * 3, 3, 30, seed=9, rules=SHORT, progress=False)
    for rec in result.records:
        best = min(rec["ranks"])
        winners = [i for i, share in enumerate(rec["win_shares"]) if share > 0]
        assert [i for i, r in enumerate(rec["ranks"]) if r == best] == winners
        assert best == (1 + len(winners)) / 2
        assert math.isclose(sum(rec["win_shares"]), 1.0)


def test_openskill_the_entry_that_always_wins_gets_the_highest_mu():
    records = [
        _record(d, 0, [1, 2 + d % 2, 3 - d % 2], [0, 0, 0], [1.0, 0.0, 0.0]) for d in range(8)
    ]
    stats = summarize(["winner", "b", "c"], records)
    assert stats[0].rating_mu > max(stats[1].rating_mu, stats[2].rating_mu)
    # and in play: the strong bot wins (nearly) always and is rated highest
    result = run_arena([LowCardBot, "random", "random"], 3, 12, seed=1, progress=False)
    strong, *weak = result.stats
    assert strong.win_rate > 0.9 and strong.mean_rank < 1.2
    assert strong.rating_mu > max(st.rating_mu for st in weak)


# ---------------------------------------------------------------------- determinism, output
def test_same_seed_same_results_for_one_and_two_workers():
    one = run_arena(["random"] * 3, 3, 12, seed=4, workers=1, rules=SHORT, progress=False)
    two = run_arena(["random"] * 3, 3, 12, seed=4, workers=2, rules=SHORT, progress=False)
    assert one.records == two.records
    assert one.stats == two.stats
    other = run_arena(["random"] * 3, 3, 12, seed=5, rules=SHORT, progress=False)
    assert other.records != one.records


def test_json_csv_and_plot_have_the_exact_fields(tmp_path):
    result = run_arena(["random", LowCardBot, "random"], 3, 6, rules=SHORT, progress=False)
    assert result.names == ("random#1", "LowCardBot", "random#2")
    result.to_json(tmp_path / "out.json")
    data = json.loads((tmp_path / "out.json").read_text())
    assert set(data) == {"settings", "entries"}
    assert [tuple(entry) for entry in data["entries"]] == [STAT_FIELDS] * 3
    assert STAT_FIELDS == (
        "name",
        "games",
        "win_rate",
        "ci_low",
        "ci_high",
        "mean_round_score",
        "mean_total",
        "mean_rank",
        "rating_mu",
        "rating_sigma",
    )
    assert data["settings"]["seed"] == 0 and data["settings"]["games"] == 6
    assert data["settings"]["rules"]["rounds"] == 1
    result.to_csv(tmp_path / "out.csv")
    with (tmp_path / "out.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [tuple(row) for row in rows] == [STAT_FIELDS] * 3
    assert [row["name"] for row in rows] == list(result.names)
    assert float(rows[1]["win_rate"]) == pytest.approx(result.stats[1].win_rate)
    result.plot(tmp_path / "out.png")
    assert (tmp_path / "out.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert isinstance(result, ArenaResult)


# ---------------------------------------------------------------------- arguments
def test_lineup_names_ladder_and_bad_arguments():
    assert entry_names(["greedy", "random", "greedy"]) == ["greedy#1", "random", "greedy#2"]
    assert ladder_lineup("expert", "greedy", 5) == ["expert"] + ["greedy"] * 4
    with pytest.raises(ValueError, match="give exactly 3 entries"):
        run_arena(["random"] * 2, 3, 3, progress=False)
    with pytest.raises(ValueError, match=r"known specs: .*random"):
        run_arena(["random", "random", "nope"], 3, 3, progress=False)
    with pytest.raises(ValueError, match="games=0 is not allowed"):
        run_arena(["random"] * 3, 3, 0, progress=False)
    with pytest.raises(ValueError, match="workers=0 is not allowed"):
        run_arena(["random"] * 3, 3, 3, workers=0, progress=False)
    with pytest.raises(ValueError, match="must agree"):
        run_arena(["random"] * 3, 3, 3, rules={"num_players": 4}, progress=False)
    with pytest.raises(ValueError, match="from 3 to 7"):
        run_arena(["random"] * 2, 2, 3, progress=False)


def _gnome() -> str:
    return str(Path(sys.executable).with_name("gnome"))


def test_gnome_eval_subprocess_tiny_run(tmp_path):
    proc = subprocess.run(
        [_gnome(), "eval", "--players", "3", "--lineup", "random,random,random", "--games",
         "6", "--seed", "0", "--no-progress", "--json", "out.json", "--rounds", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "random#1" in proc.stdout and "win rate" in proc.stdout
    assert [
        line for line in proc.stderr.splitlines() if "numba kernels" not in line
    ] == []  # --no-progress: no bar
    data = json.loads((tmp_path / "out.json").read_text())
    assert [e["name"] for e in data["entries"]] == ["random#1", "random#2", "random#3"]
    assert all(e["games"] == 6 for e in data["entries"])


def test_gnome_eval_bad_lineup_length_says_what_is_allowed():
    proc = subprocess.run(
        [_gnome(), "eval", "--players", "4", "--lineup", "random,random"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "gnome eval: error: argument --lineup: 2 specs given for 4 players" in proc.stderr
    assert "known specs:" in proc.stderr


@pytest.mark.skipif(not kernels.COMPILED, reason="the compiled Expert needs numba")
@pytest.mark.parametrize("players", [3, 5, 7])
def test_expert_seats_play_the_same_games_compiled_and_in_python(players, monkeypatch):
    """The arena's expert seats use the compiled Expert (agents.gnoming.expert_kernel.game_decider):
    every deal is played exactly as with the Python ExpertAgent."""
    from agents import arena

    lineup = ["expert", "greedy", *["expert"] * (players - 2)]
    rules = {"rounds": 2}
    fast = [play_deal(lineup, players, rules, 40 + d, 90 + d) for d in range(2)]
    monkeypatch.setattr(arena, "USE_COMPILED_EXPERT", False)
    slow = [play_deal(lineup, players, rules, 40 + d, 90 + d) for d in range(2)]
    assert [[r["digest"] for r in deal] for deal in fast] == [
        [r["digest"] for r in deal] for deal in slow
    ]
    assert fast == slow
