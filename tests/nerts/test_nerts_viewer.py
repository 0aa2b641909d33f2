"""The Nerts replay viewer (gnome_env.nerts.viewer): entries that follow the record, races for
a foundation as N20/N21 settle them, stall and remedy events (N25-N27), hand scores as N30
counts them, no hidden card in a seat's view (N35, a permutation test), the HTML page, the
frames, and `gnome replay` of a Nerts record. The page in a real browser:
tests/nerts/test_nerts_viewer_browser.py."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from agents.nerts.arena import play_game
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig
from gnome_env.nerts import viewer as V
from gnome_env.nerts.actions import WAIT, action_table
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.records import GameLog, save_record, to_record
from gnome_env.nerts.render_image import render_rgb
from gnome_env.nerts.testing import build_game, permute_hidden, step_with_priority
from training.app.cli import main


def greedy_log(n: int = 3, seed: int = 5, **rules) -> GameLog:
    config = NertsConfig(num_players=n, **rules)
    log = GameLog(config, seed)
    play_game(log, [make_nerts_agent("greedy", s, config) for s in range(n)])
    return log


@pytest.fixture(scope="module")
def game_log() -> GameLog:
    return greedy_log(3, seed=5, max_hands=2)


def embedded(html_text: str) -> dict:
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html_text, re.S)
    assert m is not None
    return json.loads(m.group(1).replace("<\\/", "</"))


def _public(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k != "hidden"}


# ---------------------------------------------------------------------- entries
def test_step_entries_follow_the_record_and_show_the_table_before_each_step(game_log):
    entries = V.build_entries(game_log)
    steps = [e for e in entries if e["kind"] == "step"]
    assert len(steps) == game_log.num_steps
    game = game_log.fresh_game()
    it = iter(steps)
    for h, hand in enumerate(game_log.hands):
        if h:
            game.next_hand()
        for k, actions in enumerate(hand):
            entry = next(it)
            assert (entry["hand"], entry["step"]) == (h, k)
            assert entry["actions"] == actions
            table = entry["public"]
            assert [s["nerts_size"] for s in table["seats"]] == [len(n) for n in game.nerts]
            assert [s["stock_size"] for s in table["seats"]] == [len(x) for x in game.stock]
            assert table["totals"] == game.totals and table["step"] == game.steps == k
            assert entry["legal"] == [game.legal_actions(s) for s in range(3)]
            result = game.step(actions)
            assert entry["priority"] == list(result.priority)
            assert entry["blocked"] == list(result.blocked)
            assert entry["progress"] == result.progress and entry["remedy"] == result.remedy
            assert entry["end_reason"] == result.end_reason
            assert len(entry["words"]) == 3 and all(entry["words"])


def test_n29_n30_hand_end_entries_score_as_the_rules_say(game_log):
    entries = V.build_entries(game_log)
    ends = [e for e in entries if e["kind"] == "hand_end"]
    assert len(ends) == len(game_log.game.hand_results) == 2
    running = [0, 0, 0]
    for entry, result in zip(ends, game_log.game.hand_results, strict=True):
        running = [t + s for t, s in zip(running, result.scores, strict=True)]
        assert entry["scores"] == list(result.scores) and entry["totals"] == running
        assert entry["reason"] == result.end_reason and entry["callers"] == list(result.callers)
        for s in range(3):  # N30: +1 per own foundation card, -2 per card left in the Nerts pile
            assert entry["scores"][s] == entry["on_foundations"][s] - 2 * entry["nerts_left"][s]
        assert entry["reason_words"]
    over = entries[-1]
    assert over["kind"] == "game_over" and over["winners"] == list(game_log.game.winners())
    assert over["totals"] == list(game_log.game.totals)


def test_a_record_that_stops_in_a_hand_ends_with_its_position():
    config = NertsConfig(num_players=2)
    log = GameLog(config, 2)
    for _ in range(5):
        log.step([2, 2])
    entries = V.build_entries(log)
    assert [e["kind"] for e in entries] == ["step"] * 5 + ["position"]
    last = entries[-1]
    assert last["step"] == 5 and last["public"]["step"] == 5
    assert [s["waste_size"] for s in last["public"]["seats"]] == [15, 15]  # N15: 5 turns of 3


def _race(tie: str):
    config = NertsConfig(num_players=2, foundation_tie=tie)
    k = step_with_priority(config, (1, 0))
    game = build_game(
        config,
        seats={0: {"nerts": "5H"}, 1: {"waste": "5H"}},
        foundations=["p1:AH..4H"],
        steps=k,
    )
    table = action_table(config)
    return game, [table.to_slot(0, 0), table.to_slot(1, 0)]


def test_n20_n21_a_race_for_a_foundation_names_the_winner_and_the_blocked_seat():
    game, actions = _race("priority")
    entry = V.step_entry(game, actions)
    assert entry["priority"] == [1, 0]
    assert entry["collisions"] == [
        {
            "slot": 0,
            "card": "5♥",
            "seats": [1, 0],
            "placed": [1],
            "blocked": [0],
            "tie_rule": "priority",
        }
    ]
    assert entry["blocked"] == [True, False]
    assert entry["words"][1] == "played 5♥ from the waste onto foundation 0"
    assert entry["words"][0] == (
        "blocked: player 1 got to foundation 0 first, so 5♥ stays in the Nerts pile (N20, N21)"
    )
    assert game.steps == entry["step"]  # step_entry stepped a copy


def test_n20_both_keep_places_both_cards():
    game, actions = _race("both_keep")
    entry = V.step_entry(game, actions)
    (race,) = entry["collisions"]
    assert race["placed"] == [1, 0] and race["blocked"] == [] and race["tie_rule"] == "both_keep"
    assert entry["words"] == [
        "played 5♥ from the Nerts pile onto foundation 0",
        "played 5♥ from the waste onto foundation 0",
    ]


def test_n25_to_n27_the_stall_the_remedy_and_the_blocked_hand_are_events():
    config = NertsConfig(num_players=2)
    seats = {s: {"stock": "", "rest": "nerts"} for s in (0, 1)}  # nothing to turn
    log_game = build_game(config, seats=seats, steps=3)
    first = V.step_entry(log_game, [WAIT, WAIT], play=True)
    assert first["remedy"] and not first["progress"] and first["end_reason"] is None
    assert any("remedy, N26" in text for text in first["events"])
    assert first["stall_after"] == 0  # N26: the stall count restarts
    second = V.step_entry(log_game, [WAIT, WAIT], play=True)
    assert second["end_reason"] == "blocked" and not second["remedy"]
    assert any("stuck again after the remedy (N27)" in text for text in second["events"])
    assert second["public"]["remedy_done"] is True


# ---------------------------------------------------------------------- what a seat may know
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_n35_a_seat_view_does_not_change_when_hidden_cards_are_permuted(game_log, seed):
    """Re-deal every card nobody sees (face-down Nerts cards, every stock's order, the waste
    under its top: permute_hidden) before a step: the public part of the step's entry is the
    same, while the omniscient part does change (so the test can fail)."""
    rng = np.random.default_rng(seed)
    game = game_log.fresh_game()
    changed = 0
    for k, actions in enumerate(game_log.hands[0]):
        if k % 7 == 3:
            other = permute_hidden(game, rng)
            mine, theirs = V.step_entry(game, actions), V.step_entry(other, actions)
            assert _public(mine) == _public(theirs), k
            assert V.step_entry(other, actions, seat=1) == _public(theirs)
            changed += mine["hidden"] != theirs["hidden"]
        game.step(actions)
    assert changed >= 5


def test_a_page_for_one_seat_holds_no_hidden_card(game_log, tmp_path):
    everything = V.viewer_data(game_log)
    mine = V.viewer_data(game_log, seat=2)
    assert mine["seat_only"] == 2 and everything["seat_only"] is None
    assert all("hidden" not in e for e in mine["entries"])
    assert sum("hidden" in e for e in everything["entries"]) == len(everything["entries"]) - 1
    for a, b in zip(mine["entries"], everything["entries"], strict=True):
        assert a == _public(b)
    path = V.write_html(mine, tmp_path / "seat2.html")
    payload = re.search(r'id="game-data">(.*?)</script>', path.read_text(), re.S).group(1)
    assert '"hidden"' not in payload and "nerts_down" not in payload and '"stock":' not in payload
    with pytest.raises(ValueError, match=r"seat=3 is not allowed: use None \(omniscient\) or 0..2"):
        V.viewer_data(game_log, seat=3)


# ---------------------------------------------------------------------- the page
def test_the_page_is_self_contained_and_survives_script_text_in_meta(game_log, tmp_path):
    data = V.viewer_data(game_log, {"players": ["</script><b>x", "greedy", "greedy"]})
    path = V.write_html(data, tmp_path / "v.html")
    text = path.read_text()
    got = embedded(text)
    assert got["players"][0] == "</script><b>x" and got == json.loads(json.dumps(data))
    assert got["game"] == "nerts" and got["final_totals"] == list(game_log.game.totals)
    assert len(got["action_names"]) == game_log.game.n_actions
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text)  # nothing fetched
    assert "@import" not in text and "url(" not in text
    for control in ('id="next-hand"', 'id="play"', 'id="jump"', 'id="view"', 'id="status"'):
        assert control in text
    with pytest.raises(FileExistsError):
        V.write_html(data, path)
    assert embedded(V.write_html(data, path, overwrite=True).read_text()) == got


def test_frames_are_the_rgb_array_render_before_the_steps_and_at_every_hand_end(game_log):
    pictures = list(V.frames(game_log, every=10))
    index = [i for i, hand in enumerate(game_log.hands) for _ in hand]
    assert len(pictures) == -(-len(index) // 10) + len(game_log.game.hand_results)
    assert sum(end for _, end in pictures) == 2
    game = game_log.fresh_game()
    first_end = len(game_log.hands[0])
    for actions in game_log.hands[0]:
        game.step(actions)
    hand_end = next(p for p, end in pictures if end)
    assert np.array_equal(hand_end, render_rgb(NertsView.from_game(game, 0), game.end_reason))
    assert np.array_equal(pictures[0][0], render_rgb(NertsView.from_game(game_log.fresh_game(), 0)))
    assert first_end > 10
    with pytest.raises(ValueError, match="every=0 is not allowed"):
        list(V.frames(game_log, every=0))


def test_write_gif_holds_every_hand_end(game_log, tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image

    count = V.write_gif(game_log, tmp_path / "g.gif", fps=5, every=25)
    ends = [i for i, (_, end) in enumerate(V.frames(game_log, every=25)) if end]
    with Image.open(tmp_path / "g.gif") as gif:
        assert gif.n_frames == count == len(list(V.frames(game_log, every=25)))
        durations = []
        for i in range(gif.n_frames):
            gif.seek(i)
            durations.append(gif.info["duration"])
    assert [durations[i] for i in ends] == [V.HAND_END_HOLD_MS, 2000]  # the last frame: 2 s
    assert durations[0] == 200


# ---------------------------------------------------------------------- gnome replay
def test_gnome_replay_writes_a_nerts_page_and_gif(game_log, tmp_path, capsys):
    pytest.importorskip("PIL")
    save_record(game_log, tmp_path / "g.json", meta={"players": ["greedy", "random", "x"]})
    argv = ["replay", str(tmp_path / "g.json"), "--html", str(tmp_path / "g.html")]
    assert main([*argv, "--gif", str(tmp_path / "g.gif"), "--every", "20"]) == 0
    out = capsys.readouterr().out
    assert "HTML viewer written" in out and "omniscient and seat views" in out
    assert "GIF written" in out
    data = embedded((tmp_path / "g.html").read_text())
    assert data["players"] == ["greedy", "random", "x"]
    assert data["final_totals"] == list(game_log.game.totals)
    assert [e["actions"] for e in data["entries"] if e["kind"] == "step"] == [
        a for hand in game_log.hands for a in hand
    ]
    assert main(["replay", str(tmp_path / "g.json"), "--html", str(tmp_path / "s.html"),
                 "--seat", "1"]) == 0  # fmt: skip
    assert "seat 1's view only" in capsys.readouterr().out
    seat_page = embedded((tmp_path / "s.html").read_text())
    assert seat_page["seat_only"] == 1 and all("hidden" not in e for e in seat_page["entries"])


def test_gnome_replay_of_a_nerts_record_errors_are_clear(game_log, tmp_path, capsys):
    record = to_record(game_log)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    bad = json.loads(json.dumps(record))
    bad["hands"][0]["steps"][3][1] = 9_999
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    taken = tmp_path / "taken.html"
    taken.write_text("mine")
    for game in ("chess", "ginny_o"):
        (tmp_path / f"{game}.json").write_text(json.dumps({**record, "game": game}))
    out = str(tmp_path / "o.html")
    cases = [
        ([str(tmp_path / "bad.json"), "--html", out], "RECORD: record does not replay at hand 0, "
         "step 3: seat 1: action 9999 is outside the action table"),
        ([str(good), "--html", out, "--seat", "3"], "use 0..2"),
        ([str(good), "--html", out, "--compare", "greedy"], "--compare: only for Gnoming"),
        ([str(good), "--html", str(taken)], "already exists: give another file name, or"),
        ([str(tmp_path / "chess.json"), "--html", out], "its game 'chess' is not one of"),
        ([str(tmp_path / "ginny_o.json"), "--html", out],
         "not a Ginny-O game record: format is 'gnome_env.nerts_record'"),
    ]  # fmt: skip
    for argv, message in cases:
        with pytest.raises(SystemExit) as exc:
            main(["replay", *argv])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert message in err, (argv, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) <= 2
    assert not (tmp_path / "o.html").exists() and taken.read_text() == "mine"
    assert main(["replay", str(good), "--html", str(taken), "--overwrite"]) == 0
    assert embedded(taken.read_text())["game"] == "nerts"
