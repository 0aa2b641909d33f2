"""The replay viewer's data (gnome_env.gnoming.viewer): round scoring shown as the rules say, no
hidden card in a seat's view, frames, and `gnome replay`'s errors. The page in a real
browser: tests/gnoming/test_viewer_browser.py."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from gnome_env.gnoming import Game, RulesConfig, save_record, to_record
from gnome_env.gnoming import viewer as V
from gnome_env.gnoming.cards import parse_layout
from gnome_env.gnoming.information import SeatView, sample_game
from gnome_env.gnoming.render_image import render_rgb
from training.app.cli import main


def random_game(n: int = 3, seed: int = 4, steps: int | None = None) -> Game:
    game = Game(RulesConfig(num_players=n), seed)
    rng = np.random.default_rng(seed)
    while not game.game_over and (steps is None or len(game.actions) < steps):
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    return game


def embedded(html_text: str) -> dict:
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html_text, re.S)
    assert m is not None
    return json.loads(m.group(1).replace("<\\/", "</"))


def test_r18_r20_scored_lines_of_the_worked_example():
    # RULES.md worked example: 5 5 M / 1 2 7 / 3 4 7 scores -2: the top row matches (5s,
    # the mulligan is wild) and the right column matches (M 7 7); they cross at the mulligan.
    lines = V.scored_lines(parse_layout(["5", "5", "M", 1, 2, 7, 3, 4, 7]))
    assert lines == [{"cells": [0, 1, 2], "value": 5}, {"cells": [2, 5, 8], "value": 7}]
    assert V.scored_lines(parse_layout([1, 2, 3, 4, 5, 6, 7, 8, 9])) == []
    # R18: a negative card breaks a line
    assert V.scored_lines(parse_layout([-4, 4, 4, 1, 2, 3, 5, 6, 7])) == []


def test_r21_r22_round_end_entries_match_the_engine_results():
    game = random_game(4, seed=11)
    ends = [e for e in V.build_entries(game) if e["kind"] == "round_end"]
    assert len(ends) == len(game.round_results) == 3
    running = [0] * 4
    for entry, result in zip(ends, game.round_results, strict=True):
        running = [t + s for t, s in zip(running, result.round_scores, strict=True)]
        assert entry["round_scores"] == list(result.round_scores)
        assert entry["layout_scores"] == list(result.layout_scores)
        assert entry["totals"] == running
        assert entry["first_out"] == result.first_out
        for s in range(4):  # R21: only the first-out player's score differs from the layout's
            assert (entry["bonus"][s] != 0) <= (s == result.first_out)
    assert ends[-1]["totals"] == list(game.totals)
    over = V.build_entries(game)[-1]
    assert over["kind"] == "game_over" and over["winners"] == list(game.winners())


def test_decision_entries_follow_the_record_step_by_step():
    game = random_game(3, seed=2)
    decisions = [e for e in V.build_entries(game) if e["kind"] == "decision"]
    assert [e["step"] for e in decisions] == list(range(len(game.actions)))
    assert [e["chosen"] for e in decisions] == list(game.actions)
    replay = Game(game.config, game.seed)
    for entry, action in zip(decisions, game.actions, strict=True):
        assert entry["seat"] == replay.current_seat
        assert [a for a, _, _ in entry["legal"]] == replay.legal_actions()
        assert entry["public"]["totals"] == list(replay.totals)
        replay.step(action)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_seat_view_unchanged_when_hidden_cards_are_permuted(seed):
    """No leak: re-deal every card the seats have not seen (face-down layout cards and the
    draw pile's order) consistently with the view; the public part of the entry, and so
    everything a seat's view shows, stays the same, while the hidden part does change."""
    game = random_game(5, seed=seed, steps=40 + 17 * seed)
    rng = np.random.default_rng(100 + seed)
    view = SeatView.from_game(game, game.current_seat)
    hidden_changed = False
    for _ in range(5):
        other = sample_game(view, rng)
        assert V.public_table(other) == V.public_table(game)
        words = [V.describe_action(other, a) for a in other.legal_actions()]
        assert words == [V.describe_action(game, a) for a in game.legal_actions()]
        hidden_changed |= V.hidden_table(other) != V.hidden_table(game)
    assert hidden_changed  # the permutation did move hidden cards


def test_a_page_for_one_seat_contains_no_hidden_card(tmp_path):
    game = random_game(3, seed=5)
    full = V.viewer_data(game, seat=None)
    one = V.viewer_data(game, seat=1)
    assert all("hidden" in e for e in full["entries"] if e["kind"] == "decision")
    assert not any("hidden" in e for e in one["entries"])
    V.write_html(one, tmp_path / "seat1.html")
    data = embedded((tmp_path / "seat1.html").read_text())
    assert data["seat_only"] == 1
    assert "hidden" not in json.dumps(data["entries"])
    # every face-down card in the seat's data is None, as many as the engine has face down
    replay = Game(game.config, game.seed)
    for entry, action in zip(
        [e for e in data["entries"] if e["kind"] == "decision"], game.actions, strict=True
    ):
        for s in range(3):
            shown = entry["public"]["layouts"][s]
            assert [c is None for c in shown] == [not up for up in replay.face_up[s]]
        replay.step(action)


def test_html_is_self_contained_and_survives_script_text_in_meta(tmp_path):
    game = random_game(3, seed=6, steps=30)
    data = V.viewer_data(game, {"players": ["</script><b>x", "b", "c"]})
    V.write_html(data, tmp_path / "v.html")
    text = (tmp_path / "v.html").read_text()
    assert embedded(text)["players"][0] == "</script><b>x"
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", text)  # nothing fetched
    assert "@import" not in text and "url(" not in text


def test_frames_are_the_rgb_array_render_of_each_step():
    game = random_game(3, seed=7, steps=25)
    pictures = list(V.frames(game))
    assert len(pictures) == len(game.actions) + 1
    replay = Game(game.config, game.seed)
    for step in (0, 10, 24):
        while len(replay.actions) < step:
            replay.step(game.actions[len(replay.actions)])
        assert np.array_equal(pictures[step], render_rgb(replay))
    assert len(list(V.frames(game, every=5))) == 5 + 1


def test_gnome_replay_writes_html_and_gif(tmp_path, capsys):
    pytest.importorskip("PIL")
    game = random_game(3, seed=8)
    save_record(game, tmp_path / "g.json", meta={"players": ["random", "random", "random"]})
    code = main(
        ["replay", str(tmp_path / "g.json"), "--html", str(tmp_path / "g.html"),
         "--gif", str(tmp_path / "g.gif"), "--every", "4"]
    )  # fmt: skip
    assert code == 0
    out = capsys.readouterr().out
    assert "HTML viewer written" in out and "GIF written" in out
    data = embedded((tmp_path / "g.html").read_text())
    assert data["players"] == ["random", "random", "random"]
    assert data["final_totals"] == list(game.totals)
    from PIL import Image

    with Image.open(tmp_path / "g.gif") as gif:
        assert gif.n_frames == -(-len(game.actions) // 4) + 1


def test_gnome_replay_shows_a_learned_agents_probabilities(tmp_path):
    """--probs auto: the decisions of a ppo:PATH seat carry its action probabilities, whose
    most likely action is the one that (deterministic) agent played."""
    pytest.importorskip("torch")
    from agents.gnoming.registry import make_agent
    from gnome_env.gnoming.encoding import ObservationEncoder

    spec = "ppo:agents/policies/distill2_3to7/policy.pt"
    config = RulesConfig(num_players=3)
    agents = [
        make_agent(spec, 0, config),
        make_agent("greedy", 1, config),
        make_agent("greedy", 2, config),
    ]
    enc = ObservationEncoder(config)
    game = Game(config, 9)
    while not game.game_over and len(game.actions) < 60:
        s = game.current_seat
        game.step(int(agents[s].act(enc.encode(game, s), game.legal_mask())))
    save_record(game, tmp_path / "g.json", meta={"players": [spec, "greedy", "greedy"]})
    assert main(["replay", str(tmp_path / "g.json"), "--html", str(tmp_path / "g.html"),
                 "--compare", "expert"]) == 0  # fmt: skip
    entries = [
        e for e in embedded((tmp_path / "g.html").read_text())["entries"] if e["kind"] == "decision"
    ]
    mine = [e for e in entries if e["seat"] == 0]
    assert mine and all("probs" in e for e in mine)
    assert not any("probs" in e for e in entries if e["seat"] != 0)
    for e in mine:
        probs = {int(a): p for a, p in e["probs"].items()}
        assert set(probs) == {a for a, _, _ in e["legal"]}
        assert abs(sum(probs.values()) - 1) < 1e-3
        assert max(probs, key=probs.get) == e["chosen"]
    assert all(e["compare"] in {a for a, _, _ in e["legal"]} for e in entries)


def test_gnome_replay_errors_are_clear(tmp_path, capsys):
    game = random_game(3, seed=10, steps=50)
    record = to_record(game)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(record))
    bad = dict(record, actions=list(record["actions"]))
    bad["actions"][7] = 99
    (tmp_path / "bad.json").write_text(json.dumps(bad))
    cases = [
        ([str(good)], "nothing to write"),
        (
            [str(tmp_path / "missing.json"), "--html", str(tmp_path / "o.html")],
            "cannot read record",
        ),
        ([str(tmp_path / "bad.json"), "--html", str(tmp_path / "o.html")], "at step 7"),
        ([str(good), "--html", str(tmp_path / "o.html"), "--seat", "3"], "use 0..2"),
        ([str(good), "--html", str(tmp_path / "no" / "o.html")], "does not exist"),
        ([str(good), "--html", str(tmp_path)], "is a directory"),
        ([str(good), "--gif", str(tmp_path / "o.gif"), "--fps", "0"], "--fps"),
        (
            [str(good), "--html", str(tmp_path / "o.html"), "--compare", "nobody"],
            "unknown agent spec",
        ),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exc:
            main(["replay", *argv])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert message in err, (argv, err)
        assert "Traceback" not in err
    assert not (tmp_path / "o.html").exists()  # nothing written on an error


def test_gnome_replay_mp4_without_ffmpeg_says_what_to_install(tmp_path, capsys, monkeypatch):
    game = random_game(3, seed=12, steps=20)
    save_record(game, tmp_path / "g.json")
    monkeypatch.setattr(V, "ffmpeg_path", lambda: None)
    with pytest.raises(SystemExit) as exc:
        main(["replay", str(tmp_path / "g.json"), "--mp4", str(tmp_path / "g.mp4")])
    assert exc.value.code == 2
    assert "ffmpeg" in capsys.readouterr().err
    assert not (tmp_path / "g.mp4").exists()


def test_gnome_replay_writes_an_mp4_with_ffmpeg(tmp_path):
    if V.ffmpeg_path() is None:
        pytest.skip("ffmpeg is not installed (apt-get install ffmpeg)")
    import subprocess

    game = random_game(3, seed=13, steps=30)
    save_record(game, tmp_path / "g.json")
    assert (
        main(["replay", str(tmp_path / "g.json"), "--mp4", str(tmp_path / "g.mp4"), "--fps", "5"])
        == 0
    )
    probe = subprocess.run(
        ["ffmpeg", "-v", "error", "-i", str(tmp_path / "g.mp4"), "-f", "null", "-"],
        capture_output=True,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    # 31 frames + 10 held at the end (2 s at 5 fps), every one decodable
    count = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
         "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", str(tmp_path / "g.mp4")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert count.returncode == 0, count.stderr  # ffprobe comes with ffmpeg
    assert int(count.stdout.strip()) == 31 + 10
