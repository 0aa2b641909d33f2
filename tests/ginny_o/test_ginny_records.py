"""Ginny-O game records (gnome_env.ginny_o.records): a record replays exactly (G4, G12: the
seed and every turn's action ids rebuild the game), every turn's description (placements,
the lines they scored with the G27 arithmetic, returns, passes, the box, the G29 end and
the G30 penalties) agrees with the engine and with the rules' worked examples, a record that
is not one or does not replay is refused in one line naming the turn, the seat and the
action, and the arena (``--save-games``) and terminal play (``--save``) write records."""

from __future__ import annotations

import io
import json
import sys

import pytest

from agents.core.arena import agent_seed_for, deal_seeds, run_arena
from agents.ginny_o.arena import play_game
from agents.ginny_o.human import play_bot_turn
from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o import GinnyConfig, GinnyGame
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import cell
from gnome_env.ginny_o.cards import format_kind
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.movegen import score_placement
from gnome_env.ginny_o.notation import parse_placement
from gnome_env.ginny_o.records import (
    RECORD_FORMAT,
    RECORD_VERSION,
    GameLog,
    RecordError,
    load_record,
    read_record,
    record_text,
    replay,
    save_record,
    to_record,
)
from training.app.cli import main as gnome

#: The 2-player game of the rules' worked examples (RULES-ginny-o.md), its draws stacked so
#: that every play of the table is in the mover's rack when it is due.
WORKED = {
    "racks": {0: "4C 5C 6C 7C 8C AD AH", 1: "AC 2C 3C 9C 9H 9D QD"},
    "draws": "AS 6H 6D 6S TD QH 7H * JD 2S 3H QC QS 4S 5S 8S KS 2D 3D 4D 5D 7D 8D",
}
#: The table's plays in order, with the score the rules work out by hand for each.
WORKED_PLAYS = [
    ("4C 5C 6C 7C 8C @ 3,7 down", 34),
    ("AC 2C 3C @ 0,7 down", 44),
    ("AD AH AS @ 0,4 across", 150),
    ("9C 9H 9D @ 8,7 across", 81),
    ("6H 6D @ 5,5 across", 30),
    ("QD *=QS QH @ 11,9 across", 40),
    ("6S @ 5,8", 24),
    ("QC @ 11,12", 30),
]


def worked_log(plays: int = len(WORKED_PLAYS), **rules) -> GameLog:
    """The worked-example game (P0 first), its first ``plays`` plays made through a log."""
    log = GameLog(GinnyConfig(num_players=2, first_player=0, **rules), 0, stacked=WORKED)
    for text, _ in WORKED_PLAYS[:plays]:
        play_text(log, text)
    return log


def play_text(log: GameLog, text: str) -> None:
    """Play the typed placement through its canonical action sequence."""
    wanted = tuple(sorted(parse_placement(text, log.game.board)))
    (placement,) = [p for p in log.game.legal_placements() if p.tiles == wanted]
    for action in log.game.placement_actions(placement):
        log.step(action)


def bot_log(n: int, seed: int, spec: str = "greedy", **rules) -> tuple[GameLog, list[str]]:
    """A whole game of ``spec`` bots played through a log, and the digest after every turn
    (taken from the game while it was played, not from the log)."""
    config = GinnyConfig(num_players=n, **rules)
    log = GameLog(config, seed)
    agents = [make_ginny_agent(spec, s, config) for s in range(n)]
    digests = []
    while not log.game.game_over:
        seat = log.game.current
        if log.step(agents[seat].decide(GinnyView.from_game(log.game, seat))).turn_over:
            digests.append(log.game.digest())
    return log, digests


@pytest.fixture(scope="module")
def game3() -> GameLog:
    return bot_log(3, seed=5)[0]


# ---------------------------------------------------------------------- round trips
@pytest.mark.parametrize(("n", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_g4_g12_a_finished_game_replays_to_the_same_state_turn_by_turn(n, seed, tmp_path):
    log, digests = bot_log(n, seed)
    path = save_record(log, tmp_path / "g.json", meta={"note": "x"}, players=["greedy"] * n)
    record = read_record(path)
    assert record["format"] == RECORD_FORMAT and record["version"] == RECORD_VERSION
    assert record["game"] == "ginny_o" and record["seed"] == seed and record["stacked"] is None
    assert record["rules"] == log.game.config.to_dict() and record["meta"] == {"note": "x"}
    assert record["players"] == ["greedy"] * n
    assert [a for t in record["turns"] for a in t["actions"]] == [a for _, a in log.game.log]
    again = load_record(path)
    game = again.fresh_game()  # the record's actions, turn by turn, on a fresh game
    for turn, want in zip(record["turns"], digests, strict=True):
        assert game.current == turn["seat"]
        for a in turn["actions"]:
            game.step(a)
        assert game.digest() == want
    assert again.game.digest() == log.game.digest() == game.digest()
    final = record["final"]
    assert final["final_scores"] == log.game.final_scores == again.game.final_scores
    assert final["winners"] == list(log.game.winners()) and final["game_over"]
    assert final["end_reason"] == log.game.end_reason


def test_a_game_played_without_a_log_gives_the_same_record(game3):
    config = game3.game.config
    game = GinnyGame(config, 5)
    play_game(game, [make_ginny_agent("greedy", s, config) for s in range(3)])
    assert to_record(game) == to_record(game3)


def test_a_record_in_the_middle_of_a_turn_replays_and_plays_on_identically():
    """G14 with max_placements=2: the record stops after a commit, before END_TURN."""
    log = worked_log(0, max_placements=2)
    play_text(log, "4C 5C 6C 7C 8C @ 3,7 down")
    assert log.game.phase == "after_commit" and log.turns[-1].kind == "unfinished"
    record = json.loads(record_text(to_record(log)))
    assert record["turns"][-1]["actions"][-1] == A.COMMIT
    again = replay(record)
    assert again.game.digest() == log.game.digest() and again.stacked == log.stacked
    for action in (A.END_TURN, *log.game.placement_actions(log.game.legal_placements()[0])):
        if action in log.game.legal_actions():
            log.step(action)
            again.step(action)
    assert again.game.digest() == log.game.digest()


def test_a_record_of_a_game_just_started_has_no_turns():
    log = GameLog(GinnyConfig(num_players=3), 9)
    record = to_record(log)
    assert record["turns"] == [] and record["final"]["turn"] == 0
    assert replay(record).game.digest() == log.game.digest()


def test_record_text_is_json_with_one_turn_a_line(game3):
    record = to_record(game3, meta={"note": 'a {"seat": 1} string'})
    text = record_text(record)
    assert json.loads(text) == record
    lines = {line.strip().rstrip(",") for line in text.splitlines()}
    for turn in record["turns"]:
        assert json.dumps(turn) in lines


# ---------------------------------------------------------------------- what a turn did
def test_g24_g28_the_worked_examples_score_line_by_line_as_the_rules_work_them_out():
    """Every play of the rules' worked-examples table, its lines and their G27 parts
    (new x mult + old) as the table's "why" column works them out by hand."""
    log = worked_log()
    turns = log.turns
    assert [t.points for t in turns] == [score for _, score in WORKED_PLAYS]
    assert [t.seat for t in turns] == [0, 1] * 4 and all(t.kind == "play" for t in turns)

    def parts(t: int) -> list[tuple[str, int, int, int, int]]:
        (p,) = turns[t].placements
        return [(ln.meld, ln.new, ln.mult, ln.old, ln.score) for ln in p.lines]

    assert parts(0) == [("run", 4 * 2 + 5 + 6 + 7 + 8, 1, 0, 34)]  # (3,7) yellow
    assert parts(1) == [("run", 1 * 2 + 2 + 3, 2, 30, 44)]  # (0,7) yellow, (1,7) red
    assert parts(2) == [("set", 45, 3, 15, 150)]  # (0,4) blue; AC is 15 in the set
    assert parts(3) == [("set", 9 + 9 * 2 + 9, 1, 0, 36), ("run", 9, 1, 36, 45)]  # cross line
    assert parts(4) == [("set", 6 * 3 + 6, 1, 6, 30)]  # (5,5) green
    assert parts(5) == [("set", 10 + 0 + 10, 2, 0, 40)]  # (11,11) red; the joker is 0
    assert parts(6) == [("set", 6, 1, 18, 24)]
    assert parts(7) == [("set", 10, 1, 20, 30)]
    (first,) = turns[0].placements
    assert first.first and first.founded and first.region == 0
    (new_region,) = turns[5].placements
    assert new_region.founded and not new_region.first and new_region.region > 0
    (ace_row,) = turns[2].placements
    assert [(t.text, t.value) for t in ace_row.lines[0].terms] == [
        ("AD", 15), ("AH", 15), ("AS", 15), ("AC", 15)
    ]  # fmt: skip
    assert turns[2].placements[0].lines[0].cells == tuple(cell(0, c) for c in range(4, 8))


def test_g27_rescore_existing_false_counts_only_the_new_tiles():
    log = worked_log(0, rescore_existing=False)
    play_text(log, "4C 5C 6C 7C 8C @ 3,7 down")
    play_text(log, "AC 2C 3C @ 0,7 down")
    (p,) = log.turns[1].placements
    (line,) = p.lines
    assert (line.new, line.mult, line.old, line.score) == (7, 2, 30, 14)  # the rules: 14


def test_every_placement_of_real_games_adds_up_its_lines_to_the_engine_score(game3):
    """The lines' G27 sums against the engine's score and against the first-principles
    scorer of the move generator (an independent implementation)."""
    game = game3.fresh_game()
    placements = 0
    for turn in game3.turns:
        for p in turn.placements:
            assert sum(ln.score for ln in p.lines) == p.score
            rescore = game.config.rescore_existing
            assert score_placement(game.board, p.tiles, rescore_existing=rescore) == p.score
            for c, t, card in p.tiles:
                game.board.put(c, t == 52, card, p.region)
            placements += 1
    assert placements > 20


def test_g13_g15_returns_passes_and_the_box_count(game3):
    """Conservation (box + racks + board = tiles in play) at every turn's end, the box count
    going from one turn to the next, returns counted but not named publicly."""
    config = game3.game.config
    board = 0
    turns = game3.turns
    for prev, turn in zip([None, *turns], turns, strict=False):
        if prev is not None:
            assert turn.box_start == prev.box_end
        board += sum(len(p.tiles) for p in turn.placements)
        assert turn.box_end + sum(turn.rack_sizes) + board == config.tiles_in_play
        assert turn.scores[turn.seat] - turn.points == (prev.scores[turn.seat] if prev else 0)
        if turn.kind == "return":
            assert turn.returned == len(turn.returned_tiles) >= 1 and not turn.placements
            assert turn.actions[-1] == A.CONFIRM_RETURN
            kept = sorted(turn.rack_before)
            for t in turn.returned_tiles:
                kept.remove(t)
            assert sorted(kept + list(turn.refill)) == sorted(turn.rack_after)
        elif turn.kind == "pass":
            assert not turn.drew and turn.actions == (A.PASS,) and turn.box_end == 0
        else:
            assert turn.kind == "play" and turn.returned == 0 and len(turn.placements) == 1
    assert {t.kind for t in turns} >= {"play", "return"}


def test_g29_g30_g31_the_last_turn_ends_the_game_with_the_penalties(game3):
    end = game3.turns[-1].end
    game = game3.game
    assert end is not None and all(t.end is None for t in game3.turns[:-1])
    assert end.reason == game.end_reason == "dead" and end.rule == "G29b"
    assert end.racks == tuple(tuple(r) for r in game.racks)
    values = {0: 15, 10: 10, 11: 10, 12: 10}  # G30: ace 15, J Q K 10, 2-10 face, joker 0
    for s, rack in enumerate(end.racks):
        want = sum(0 if t == 52 else values.get(t % 13, t % 13 + 1) for t in rack)
        assert end.penalties[s] == want
        assert end.final_scores[s] == end.scores[s] - want
    best = max(end.final_scores)
    assert end.winners == tuple(s for s in range(3) if end.final_scores[s] == best)


def test_g29a_g30_the_rules_rack_penalty_example():
    """RULES-ginny-o.md: a final rack of AH, *, KD, 3S costs 15 + 0 + 10 + 3 = 28."""
    config = GinnyConfig(num_players=3, first_player=0)
    setup = {
        "racks": {0: "AH * KD 3S", 1: "2D", 2: ""},
        "board": ["4C 5C 6C 7C 8C @ 3,7 down"],
        "rest": "out",
        "scores": [50, 40, 30],
    }
    log = GameLog(config, 0, stacked=setup)
    for _ in range(3):
        log.step(A.PASS)
    end = log.turns[-1].end
    assert end.reason == "passes" and end.rule == "G29a"
    assert end.penalties == (28, 2, 0) and end.final_scores == (22, 38, 30)
    assert end.winners == (1,)
    assert [t.kind for t in log.turns] == ["pass"] * 3
    assert replay(json.loads(json.dumps(to_record(log)))).game.digest() == log.game.digest()


# ---------------------------------------------------------------------- bad records
def _refused(record, *parts: str) -> str:
    with pytest.raises(RecordError) as err:
        replay(record)
    text = str(err.value)
    assert "\n" not in text
    for part in parts:
        assert part in text, text
    return text


def test_an_illegal_action_names_the_turn_seat_and_action(game3):
    record = to_record(game3)
    seat = record["turns"][6]["seat"]
    record["turns"][6]["actions"][1] = 99_999
    _refused(record, f"turn 6 (seat {seat}), action 1 (id 99999):", "must be an integer 0..1863")
    record = to_record(game3)
    record["turns"][2]["actions"][0] = A.PASS  # the box is not empty: a draw was made
    _refused(record, "turn 2 (seat", "action 0 (id 1863)", "PASS is legal only when no tile")


def test_an_edited_but_legal_action_is_caught_by_the_turn_check(game3):
    record = to_record(game3)
    t = next(
        i
        for i, turn in enumerate(game3.turns)
        if turn.actions == (A.RETURN_BASE, A.CONFIRM_RETURN)
        and turn.rack_before[0] != turn.rack_before[1]
    )
    record["turns"][t]["actions"][0] = A.RETURN_BASE + 1  # return another tile: still legal
    _refused(record, f"turn {t} (seat", "the state after this turn differs from the recorded")
    record = to_record(game3)
    record["turns"][3]["check"] = "000000" if record["turns"][3]["check"] != "000000" else "111111"
    _refused(record, "at turn 3 (seat", "differs from the recorded one")


def test_turns_that_end_elsewhere_or_the_wrong_seat_are_named(game3):
    record = to_record(game3)
    record["turns"][4]["actions"].append(A.COMMIT)
    n = len(record["turns"][4]["actions"])
    _refused(record, f"action {n - 1} (id 1852): the turn ended after action {n - 2}")
    record = to_record(game3)
    record["turns"][4]["actions"].pop()
    _refused(record, "at turn 4 (seat", "still in progress after its")
    record = to_record(game3)
    record["turns"][5]["seat"] = (record["turns"][5]["seat"] + 1) % 3
    _refused(record, "at turn 5: the record has seat", "G12")
    record = to_record(game3)
    record["turns"].append(dict(record["turns"][-1]))
    _refused(record, f"turn {len(game3.turns)}", "the game ended after turn", "G29")


def test_mismatched_final_scores_and_a_wrong_version_are_named(game3):
    record = to_record(game3)
    record["final"]["final_scores"][1] += 5
    _refused(record, "at its end (turn", "the final scores (G30): replayed")
    record = to_record(game3)
    record["final"]["winners"] = [9]
    _refused(record, "the winners (G31)")
    record = to_record(game3)
    _refused({**record, "version": 2}, "version 2 is not supported", "reads version 1")
    _refused({**record, "format": "x"}, "not a Ginny-O game record: format is 'x'")
    _refused({**record, "game": "nerts"}, "record 'game' is 'nerts', expected 'ginny_o'")
    _refused({**record, "extra": 1}, "unknown ['extra']")
    _refused({k: v for k, v in record.items() if k != "turns"}, "missing ['turns']")
    _refused({**record, "rules": {**record["rules"], "num_players": 9}}, "header is invalid",
             "num_players=9 is not allowed")  # fmt: skip
    _refused({**record, "players": ["a"]}, "one label per seat (3")
    _refused({**record, "turns": [{"seat": 0, "actions": []}]}, "turn entry 0 must be an object")
    _refused({**record, "turns": [{"seat": 0, "actions": [], "check": "abcdef"}]}, "non-empty")


def test_corrupt_files_and_no_overwrite(game3, tmp_path):
    path = save_record(game3, tmp_path / "g.json")
    before = path.read_text()
    with pytest.raises(FileExistsError):
        save_record(game3, path)
    assert path.read_text() == before
    save_record(game3, path, meta={"x": 1}, overwrite=True)
    assert read_record(path)["meta"] == {"x": 1}
    (tmp_path / "bad.json").write_text(before[:-40])
    with pytest.raises(RecordError, match="is not valid JSON"):
        load_record(tmp_path / "bad.json")
    with pytest.raises(RecordError, match="cannot read record"):
        load_record(tmp_path / "none.json")


def test_a_stacked_game_is_recorded_only_through_a_log():
    from gnome_env.ginny_o.testing import stacked_game

    game = stacked_game(GinnyConfig(num_players=2), racks=WORKED["racks"], draws=WORKED["draws"])
    with pytest.raises(ValueError, match="built with the test hook"):
        to_record(game)
    log = worked_log(3)
    record = json.loads(json.dumps(to_record(log)))
    assert record["stacked"]["racks"][1] == ["AC", "2C", "3C", "9C", "9H", "9D", "QD"]
    assert replay(record).game.scores == [34 + 150, 44]


# ---------------------------------------------------------------------- saving from the arena
SAVE_RULES = {"max_turns": 24}


def test_arena_records_replay_and_match_the_arena_games(tmp_path):
    out = tmp_path / "deep" / "games"
    lineup = ["greedy", "random"]
    kw = {"seed": 4, "rules": SAVE_RULES, "progress": False, "game": "ginny_o"}
    plain = run_arena(lineup, 2, 4, **kw)
    result = run_arena(lineup, 2, 4, save_games=out, save_every=1, **kw)
    assert result.records == plain.records and result.stats == plain.stats
    assert sorted(p.name for p in out.iterdir()) == [f"game_{k:06d}.json" for k in range(4)]
    by_game = {(rec["deal"], rec["rotation"]): rec for rec in result.records}
    config = GinnyConfig(num_players=2, **SAVE_RULES)
    for path in sorted(out.iterdir()):
        record = read_record(path)
        meta = record["meta"]
        d, r = meta["deal"], meta["rotation"]
        arena_rec = by_game[(d, r)]
        log = load_record(path)
        assert log.game.digest() == arena_rec["digest"] == record["final"]["digest"]
        assert [log.game.final_scores[s] for s in arena_rec["seats"]] == arena_rec["totals"]
        game_seed, agent_seed = deal_seeds(4, d)
        assert record["seed"] == game_seed and meta["source"] == "gnome eval"
        assert record["players"] == meta["players"]
        assert [meta["players"][s] for s in meta["seats"]] == lineup
        # the named agents, seeded as the meta says, play the very same game again
        again = GinnyGame(config, game_seed)
        seeds = [agent_seed_for(agent_seed, r, i) for i in range(2)]
        assert [meta["agent_seeds"][s] for s in meta["seats"]] == seeds
        named = zip(meta["players"], meta["agent_seeds"], strict=True)
        play_game(again, [make_ginny_agent(p, s, config) for p, s in named])
        assert again.digest() == log.game.digest()


EVAL = ["eval", "--game", "ginny_o", "--lineup", "greedy,random", "--games", "4",
        "--max-turns", "16", "--no-progress", "--seed", "2"]  # fmt: skip


def test_gnome_eval_save_games_never_replaces_records_unless_asked(tmp_path, capsys):
    out = tmp_path / "games"
    assert gnome([*EVAL, "--save-games", str(out), "--save-every", "2"]) == 0
    assert f"2 Ginny-O game records written to {out}" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["game_000000.json", "game_000002.json"]
    assert load_record(out / "game_000002.json").game.game_over
    (out / "game_000001.json").write_text("keep")
    with pytest.raises(SystemExit) as stop:
        gnome([*EVAL, "--save-games", str(out)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "already holds 3 of the 4 records this run writes" in err and "--overwrite" in err
    assert (out / "game_000001.json").read_text() == "keep"
    assert gnome([*EVAL, "--save-games", str(out), "--overwrite"]) == 0
    assert load_record(out / "game_000001.json").game.game_over


# ---------------------------------------------------------------------- saving from play
def test_gnome_play_save_writes_the_human_game_and_refuses_an_existing_file(
    tmp_path, monkeypatch, capsys
):
    path = tmp_path / "mine.json"
    argv = ["play", "--game", "ginny_o", "--seed", "3", "--opponents", "greedy"]
    config = GinnyConfig(num_players=2)
    game = GinnyGame(config, 3)
    if game.current == 1:  # the bot moves first
        play_bot_turn(game, make_ginny_agent("greedy", 25, config))
    tile = format_kind(game.racks[0][-1])  # a tile the human holds at its first turn
    monkeypatch.setattr(sys, "stdin", io.StringIO(f"return {tile}\nquit\n"))
    assert gnome([*argv, "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"record written to {path}" in out
    record = read_record(path)
    assert record["meta"]["source"] == "gnome play" and record["meta"]["human_seat"] == 0
    assert record["players"] == ["human", "greedy"]
    log = load_record(path)
    assert not log.game.game_over and log.game.seed == 3
    (human,) = [t for t in log.turns if t.seat == 0]
    assert human.kind == "return" and human.returned_tiles == (game.racks[0][-1],)
    path.write_text("mine")
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    with pytest.raises(SystemExit) as stop:
        gnome([*argv, "--save", str(path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "argument --save:" in err and "already exists" in err and "--overwrite" in err
    assert path.read_text() == "mine"
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert gnome([*argv, "--save", str(path), "--overwrite"]) == 0
    assert load_record(path).game.seed == 3
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit):
        gnome([*argv, "--overwrite"])
    assert "argument --overwrite: only with --save PATH" in capsys.readouterr().err
