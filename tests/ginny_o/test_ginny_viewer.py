"""The Ginny-O replay viewer (gnome_env.ginny_o.viewer): entries that follow the record (the
board, scores and box after every turn, tiles conserved), the rules' worked examples line by
line with their premium squares (G6, G24-G28), the end (G29-G31), what a seat may know (G17:
games with the same public history and other hidden tiles, and re-dealt hidden tiles, give
the same seat data), the HTML page, the frames and GIF, and ``gnome replay`` of a Ginny-O
record. The page in a real browser: tests/ginny_o/test_ginny_viewer_browser.py."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o import GinnyConfig
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o import viewer as V
from gnome_env.ginny_o.board import START_SQUARES, row_col
from gnome_env.ginny_o.cards import JOKER, parse_tile
from gnome_env.ginny_o.hidden import permute_hidden
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.notation import parse_placement
from gnome_env.ginny_o.records import GameLog, save_record, to_record
from gnome_env.ginny_o.render_image import render_rgb
from training.app.cli import main

WORKED = {
    "racks": {0: "4C 5C 6C 7C 8C AD AH", 1: "AC 2C 3C 9C 9H 9D QD"},
    "draws": "AS 6H 6D 6S TD QH 7H * JD 2S 3H QC QS 4S 5S 8S KS 2D 3D 4D 5D 7D 8D",
}
WORKED_PLAYS = [
    "4C 5C 6C 7C 8C @ 3,7 down",
    "AC 2C 3C @ 0,7 down",
    "AD AH AS @ 0,4 across",
    "9C 9H 9D @ 8,7 across",
    "6H 6D @ 5,5 across",
    "QD *=QS QH @ 11,9 across",
    "6S @ 5,8",
    "QC @ 11,12",
]


def worked_log(setup=WORKED) -> GameLog:
    """The rules' worked-example game, every play of its table made (the game goes on)."""
    log = GameLog(GinnyConfig(num_players=2, first_player=0), 0, stacked=setup)
    for text in WORKED_PLAYS:
        wanted = tuple(sorted(parse_placement(text, log.game.board)))
        (placement,) = [p for p in log.game.legal_placements() if p.tiles == wanted]
        for action in log.game.placement_actions(placement):
            log.step(action)
    return log


def bot_log(n: int, seed: int, specs=("greedy",), **rules) -> GameLog:
    config = GinnyConfig(num_players=n, **rules)
    log = GameLog(config, seed)
    agents = [make_ginny_agent(specs[s % len(specs)], s, config) for s in range(n)]
    while not log.game.game_over:
        seat = log.game.current
        log.step(agents[seat].decide(GinnyView.from_game(log.game, seat)))
    return log


@pytest.fixture(scope="module")
def game_log() -> GameLog:
    return bot_log(3, seed=5, specs=("greedy", "random", "greedy"))


def embedded(html_text: str) -> dict:
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html_text, re.S)
    assert m is not None
    return json.loads(m.group(1).replace("<\\/", "</"))


def _public(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k != "private"}


# ---------------------------------------------------------------------- entries
def test_entries_follow_the_record_turn_by_turn(game_log):
    entries = V.build_entries(game_log)
    config = game_log.game.config
    assert [e["kind"] for e in entries] == ["start"] + ["turn"] * len(game_log.turns) + [
        "game_over"
    ]
    assert [e["index"] for e in entries] == list(range(len(entries)))
    game = game_log.fresh_game()
    start = entries[0]["public"]
    assert start["scores"] == [0, 0, 0] and start["board"] == []
    assert start["rack_sizes"] == [8 if s == game.current else 7 for s in range(3)]  # G12, G13
    assert start["box"] == config.tiles_in_play - 3 * 7 - 1
    for entry, (seat, actions) in zip(entries[1:-1], game_log.turn_actions, strict=True):
        assert entry["seat"] == seat == game.current and entry["turn"] == game.turn
        before = set(c for c in range(225) if game.board.card[c] >= 0)
        score = game.scores[seat]
        for a in actions:
            game.step(a)
        pub = entry["public"]
        assert pub["scores"] == game.scores
        assert entry["play"]["points"] == game.scores[seat] - score
        shown = {(r, c): text for r, c, text, _, _ in pub["board"]}
        for c in range(225):
            if game.board.card[c] >= 0:
                tile, card = parse_tile(shown[row_col(c)])
                assert card == game.board.card[c] and (tile == JOKER) == game.board.joker[c]
        assert len(shown) == game.board.count
        fresh = {tuple(t[:2]) for p in entry["play"]["placements"] for t in p["tiles"]}
        assert fresh == {row_col(c) for c in range(225) if game.board.card[c] >= 0} - {
            row_col(c) for c in before
        }
        # G4, G5: box + racks + board = every tile in play, at every turn's end
        assert pub["box"] + sum(pub["rack_sizes"]) + len(pub["board"]) == config.tiles_in_play
        for p in entry["play"]["placements"]:
            assert sum(line["score"] for line in p["lines"]) == p["score"]  # G28
        if entry["play"]["kind"] == "return":
            assert entry["play"]["returned"] >= 1 and not entry["play"]["placements"]
    over = entries[-1]
    assert over["end"]["final_scores"] == game.final_scores
    assert over["end"]["penalties"] == game.penalties
    assert over["end"]["winners"] == list(game.winners())
    assert over["end"]["reason"] == game.end_reason


def test_g6_g24_g28_the_worked_examples_on_the_page():
    """The rules' worked examples: every line's parts as the table works them out by hand,
    the premium squares each play covers (the G6 layout) and where each play went."""
    data = V.viewer_data(worked_log())
    turns = [e for e in data["entries"] if e["kind"] == "turn"]
    assert [t["play"]["points"] for t in turns] == [34, 44, 150, 81, 30, 40, 24, 30]

    def lines(t):
        (p,) = turns[t]["play"]["placements"]
        return [(ln["new"], ln["mult"], ln["old"], ln["score"]) for ln in p["lines"]]

    assert lines(0) == [(34, 1, 0, 34)]
    assert lines(1) == [(7, 2, 30, 44)]
    assert lines(2) == [(45, 3, 15, 150)]
    assert lines(3) == [(36, 1, 0, 36), (9, 1, 36, 45)]
    assert lines(4) == [(24, 1, 6, 30)]
    assert lines(5) == [(20, 2, 0, 40)]
    (row2,) = turns[1]["play"]["placements"][0]["lines"]
    assert row2["cells"] == [[r, 7] for r in range(8)]
    # [row, col, tile, value, new, tile mult, meld mult]: (0,7) yellow doubles the ace, (1,7)
    # red doubles the new tiles, (3,7)'s yellow was used by the first meld (G26)
    assert row2["terms"][:5] == [
        [0, 7, "AC", 1, True, 2, 1],
        [1, 7, "2C", 2, True, 1, 2],
        [2, 7, "3C", 3, True, 1, 1],
        [3, 7, "4C", 4, False, 1, 1],
        [4, 7, "5C", 5, False, 1, 1],
    ]
    covered = [[tuple(q) for q in t["play"]["placements"][0]["premiums"]] for t in turns]
    assert covered[0] == [(3, 7, "y"), (7, 7, "*")]
    assert covered[1] == [(0, 7, "y"), (1, 7, "R")]
    assert covered[2] == [(0, 4, "B")]
    assert covered[4] == [(5, 5, "g")]
    assert covered[5] == [(11, 11, "R")]
    places = [t["play"]["placements"][0] for t in turns]
    assert places[0]["founded"] and "first meld" in places[0]["where"]
    assert places[5]["founded"] and "(11,11)" in places[5]["where"]  # G22
    assert not any(p["founded"] for p in places[1:5] + places[6:])
    assert places[7]["region"] == places[5]["region"] == 1 + START_SQUARES.index(11 * 15 + 11)
    assert data["entries"][-1]["kind"] == "position"  # the record stops, the game goes on
    # the legend names every square kind, and the layout is the rules' G6 board
    assert {q["letter"] for q in data["legend"]["squares"]} == {"R", "B", "y", "g", "*"}
    reds = [(1, 7), (3, 3), (3, 11), (7, 1), (7, 13), (11, 3), (11, 11), (13, 7)]
    blues = [(0, 4), (0, 10), (4, 0), (4, 14), (10, 0), (10, 14), (14, 4), (14, 10)]
    greens = [(0, 0), (0, 14), (5, 5), (5, 9), (9, 5), (9, 9), (14, 0), (14, 14)]
    for letter, cells in (("R", reds), ("B", blues), ("g", greens)):
        assert sorted((r, c) for r in range(15) for c in range(15)
                      if data["layout"][r][c] == letter) == sorted(cells)  # fmt: skip
    assert sum(row.count("y") for row in data["layout"]) == 24


def test_g29_g30_g31_the_end_entry_with_the_rules_examples():
    """G30: a final rack of AH, *, KD, 3S costs 28; G31: 120 each, P0 with the smaller
    penalty (5 against 12) wins."""
    config = GinnyConfig(num_players=3, first_player=0)
    setup = {"racks": {0: "AH * KD 3S", 1: "2D", 2: ""}, "board": ["4C 5C 6C 7C 8C @ 3,7 down"],
             "rest": "out", "scores": [50, 40, 30]}  # fmt: skip
    log = GameLog(config, 0, stacked=setup)
    for _ in range(3):
        log.step(A.PASS)
    entries = V.build_entries(log)
    assert [e["play"]["kind"] for e in entries if e["kind"] == "turn"] == ["pass"] * 3
    assert entries[-2]["play"]["end"]["rule"] == "G29a"
    end = entries[-1]["end"]
    assert (end["reason"], end["penalties"], end["final_scores"]) == ("passes", [28, 2, 0],
                                                                      [22, 38, 30])  # fmt: skip
    assert end["winners"] == [1]
    words = entries[-1]["private"][0]["penalty_words"]
    assert words.endswith("= 28") and all(t in words for t in ("AH 15", "* 0", "KD 10", "3S 3"))
    tie = GameLog(
        GinnyConfig(num_players=2, first_player=0),
        0,
        stacked={"racks": {0: "5D", 1: "2H TC"}, "board": ["4C 5C 6C 7C 8C @ 3,7 down"],
                 "rest": "out", "scores": [125, 132]},
    )  # fmt: skip
    tie.step(A.PASS)
    end = V.build_entries(tie)[-1]["end"]
    assert end["final_scores"] == [120, 120] and end["winners"] == [0] and end["rule"] == "G29b"
    assert "smaller rack penalty" in end["why"]


# ---------------------------------------------------------------------- what a seat may know
def _other_hidden_tiles() -> dict:
    """The worked example with P1's never-played 7H swapped for KH, a tile nobody draws in
    the record: the same public history, other hidden tiles (and P1's slots differ, so its
    action ids differ too)."""
    assert " 7H " in WORKED["draws"] and "KH" not in WORKED["draws"]
    return {**WORKED, "draws": WORKED["draws"].replace(" 7H ", " KH ")}


def test_g17_same_public_history_other_hidden_tiles_gives_the_same_seat_page():
    mine, other = worked_log(), worked_log(_other_hidden_tiles())
    assert [t.actions for t in mine.turns if t.seat == 1] != [
        t.actions for t in other.turns if t.seat == 1
    ]  # P1's PLACE ids name other slots
    assert V.viewer_data(mine, seat=0) == V.viewer_data(other, seat=0)
    assert V.viewer_data(mine) != V.viewer_data(other)  # so the comparison can fail
    assert V.viewer_data(mine, seat=1) != V.viewer_data(other, seat=1)
    html = V.render_html(V.viewer_data(mine, seat=0))
    payload = html[html.index('id="game-data"') :]
    assert "7H" not in payload  # P1's hidden tile appears nowhere on P0's page


@pytest.mark.parametrize("observer", [0, 1, 2])
def test_g17_a_seat_view_does_not_change_when_hidden_tiles_are_re_dealt(game_log, observer):
    """Before each of the observer's own turns, re-deal every tile it cannot see (the other
    racks and the box: permute_hidden) and play the same turn: the public part of the turn's
    entry and the observer's own page data are the same; the omniscient part does change."""
    game = game_log.fresh_game()
    compared = changed = 0
    for k, (seat, actions) in enumerate(game_log.turn_actions):
        if seat == observer and len(game.box) > 8:
            other = permute_hidden(game, observer, seed=k)
            a, b = V.turn_entry(game, actions), V.turn_entry(other, actions)
            assert _public(a) == _public(b), k
            mine = V.turn_entry(game, actions, observer)
            theirs = V.turn_entry(other, actions, observer)
            assert [p is None for p in mine["private"]] == [s != observer for s in range(3)]
            rack = mine["private"][observer]["turn"]["rack_before"]
            assert rack == theirs["private"][observer]["turn"]["rack_before"]
            assert _public(mine) == _public(theirs)
            compared += 1
            changed += a["private"] != b["private"]
        for action in actions:
            game.step(action)
    assert compared >= 5 and changed == compared


def test_a_page_for_one_seat_holds_only_that_seats_private_part(game_log, tmp_path):
    everything = V.viewer_data(game_log)
    mine = V.viewer_data(game_log, seat=2)
    assert mine["seat_only"] == 2 and everything["seat_only"] is None
    for a, b in zip(mine["entries"], everything["entries"], strict=True):
        assert _public(a) == _public(b)
        assert a["private"] == [None, None, b["private"][2]]
        assert all(p is not None for p in b["private"])
    path = V.write_html(mine, tmp_path / "seat2.html")
    data = embedded(path.read_text())
    turns = [e for e in data["entries"] if e["kind"] == "turn"]
    assert all("actions" not in e["play"] for e in turns)  # slot ids are private (G17)
    assert all(("turn" in e["private"][2]) == (e["seat"] == 2) for e in turns)
    with pytest.raises(ValueError, match=r"seat=3 is not allowed: use None \(omniscient\) or 0..2"):
        V.viewer_data(game_log, seat=3)


# ---------------------------------------------------------------------- the page
def test_the_page_is_self_contained_and_survives_script_text_in_players(game_log, tmp_path):
    data = V.viewer_data(game_log, {"players": ["</script><b>x", "greedy", "random"]})
    path = V.write_html(data, tmp_path / "v.html")
    text = path.read_text()
    got = embedded(text)
    assert got["players"][0] == "</script><b>x" and got == json.loads(json.dumps(data))
    assert got["game"] == "ginny_o" and got["final_scores"] == game_log.game.final_scores
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text)  # nothing fetched
    assert "@import" not in text and "url(" not in text
    for control in ('id="next-play"', 'id="play"', 'id="jump"', 'id="view"', 'id="status"'):
        assert control in text
    with pytest.raises(FileExistsError):
        V.write_html(data, path)
    assert embedded(V.write_html(data, path, overwrite=True).read_text()) == got


def test_frames_are_the_rgb_array_render_at_the_start_and_after_every_kth_turn(game_log):
    pictures = list(V.frames(game_log, every=10))
    turns = game_log.turn_actions
    assert len(pictures) == 1 + len(range(10, len(turns) + 1, 10)) + (len(turns) % 10 != 0)
    game = game_log.fresh_game()
    assert np.array_equal(pictures[0], render_rgb(game))
    for _, actions in turns[:10]:
        for a in actions:
            game.step(a)
    mover = turns[9][0]  # no seat given: drawn for the seat that just moved
    assert np.array_equal(pictures[1], render_rgb(game, mover))
    seat1 = list(V.frames(game_log, every=10, seat=1))
    assert len(seat1) == len(pictures) and np.array_equal(seat1[1], render_rgb(game, 1))
    with pytest.raises(ValueError, match="every=0 is not allowed"):
        list(V.frames(game_log, every=0))


def test_write_gif_holds_the_start_and_the_end(game_log, tmp_path):
    pytest.importorskip("PIL")
    from PIL import Image

    count = V.write_gif(game_log, tmp_path / "g.gif", fps=5, every=8)
    with Image.open(tmp_path / "g.gif") as gif:
        assert gif.n_frames == count == len(list(V.frames(game_log, every=8)))
        durations = []
        for i in range(gif.n_frames):
            gif.seek(i)
            durations.append(gif.info["duration"])
    assert durations[0] == V.START_HOLD_MS and durations[-1] == 2000
    assert set(durations[1:-1]) == {200}


# ---------------------------------------------------------------------- gnome replay
def test_gnome_replay_writes_a_ginny_o_page_and_gif(game_log, tmp_path, capsys):
    pytest.importorskip("PIL")
    save_record(game_log, tmp_path / "g.json", meta={"players": ["greedy", "random", "x"]})
    argv = ["replay", str(tmp_path / "g.json"), "--html", str(tmp_path / "g.html")]
    assert main([*argv, "--gif", str(tmp_path / "g.gif"), "--every", "20"]) == 0
    out = capsys.readouterr().out
    assert "HTML viewer written" in out and "omniscient and seat views" in out
    assert "GIF written" in out and (tmp_path / "g.gif").stat().st_size > 0
    data = embedded((tmp_path / "g.html").read_text())
    assert data["players"] == ["greedy", "random", "x"]
    assert data["final_scores"] == game_log.game.final_scores
    turns = [e for e in data["entries"] if e["kind"] == "turn"]
    assert [e["private"][e["seat"]]["turn"]["actions"] for e in turns] == [
        a for _, a in game_log.turn_actions
    ]
    page = str(tmp_path / "s.html")
    assert main(["replay", str(tmp_path / "g.json"), "--html", page, "--seat", "1"]) == 0
    assert "seat 1's view only" in capsys.readouterr().out
    seat_page = embedded((tmp_path / "s.html").read_text())
    assert seat_page["seat_only"] == 1
    assert all(e["private"][0] is None and e["private"][2] is None for e in seat_page["entries"])


def test_gnome_replay_of_a_ginny_o_record_errors_are_clear(game_log, tmp_path, capsys):
    record = to_record(game_log)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    bad = json.loads(json.dumps(record))
    bad["turns"][3]["actions"][0] = 99_999
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    other = {"format": "gnome_env.nerts_record", "version": 1, "game": "ginny_o"}
    (tmp_path / "nerts.json").write_text(json.dumps(other))
    taken = tmp_path / "taken.html"
    taken.write_text("mine")
    out = str(tmp_path / "o.html")
    seat = record["turns"][3]["seat"]
    cases = [
        ([str(tmp_path / "bad.json"), "--html", out],
         f"RECORD: record does not replay at turn 3 (seat {seat}), action 0 (id 99999)"),
        ([str(good), "--html", out, "--seat", "3"], "use 0..2"),
        ([str(good), "--html", out, "--compare", "greedy"], "--compare: only for Gnoming"),
        ([str(good), "--html", str(taken)], "already exists: give another file name, or"),
        ([str(tmp_path / "nerts.json"), "--html", out],
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
    assert embedded(taken.read_text())["game"] == "ginny_o"
