"""Nerts game records (gnome_env.nerts.records): a record replays exactly (N4: the seed and
the joint action of every step, N18, rebuild the game), and a record that is not one or
does not replay is refused naming the hand, the step and the seat."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.nerts.arena import play_game
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.actions import WAIT
from gnome_env.nerts.records import (
    CHECK_DIGITS,
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
from gnome_env.nerts.testing import stack_deck


def greedy_log(n: int = 3, seed: int = 5, **rules) -> GameLog:
    """A whole game of greedy bots, logged."""
    config = NertsConfig(num_players=n, **rules)
    log = GameLog(config, seed)
    play_game(log, [make_nerts_agent("greedy", s, config) for s in range(n)])
    return log


def random_log(n: int, seed: int, steps: int, **rules) -> GameLog:
    """``steps`` steps of uniformly random legal actions (hands dealt as they end)."""
    log = GameLog(NertsConfig(num_players=n, **rules), seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if log.game.hand_over:
            if log.game.game_over:
                break
            log.next_hand()
        legal = [log.game.legal_actions(s) for s in range(n)]
        log.step([int(a[rng.integers(len(a))]) for a in legal])
    return log


@pytest.fixture(scope="module")
def game_log() -> GameLog:
    return greedy_log(3, seed=5, max_hands=3)


def _first_step(log: GameLog, hand: int, want) -> int:
    return next(k for k, actions in enumerate(log.hands[hand]) if want(actions))


# ---------------------------------------------------------------------- round trips
@pytest.mark.parametrize(("n", "seed"), [(2, 1), (4, 2), (6, 3)])
def test_n4_n18_a_finished_game_replays_to_the_same_state_and_scores(n, seed, tmp_path):
    log = greedy_log(n, seed, max_hands=2)
    assert log.game.game_over and len(log.hands) == 2
    path = save_record(log, tmp_path / "g.json", meta={"players": ["greedy"] * n})
    again = load_record(path)
    assert again.game.digest() == log.game.digest()
    assert again.hands == log.hands
    assert again.game.hand_results == log.game.hand_results
    assert again.game.totals == log.game.totals and again.game.winners() == log.game.winners()
    record = read_record(path)
    assert record["format"] == RECORD_FORMAT and record["version"] == RECORD_VERSION
    assert record["game"] == "nerts" and record["meta"] == {"players": ["greedy"] * n}
    assert record["rules"] == log.game.config.to_dict() and record["seed"] == seed
    assert [h["end"]["scores"] for h in record["hands"]] == [
        list(r.scores) for r in log.game.hand_results
    ]


def test_the_replay_goes_through_the_very_same_states_step_by_step(game_log):
    """Not only the end: stepping the original actions on a fresh game and on the replayed
    log's fresh game gives the same digest after every step."""
    again = replay(json.loads(json.dumps(to_record(game_log))))
    a, b = game_log.fresh_game(), again.fresh_game()
    for h, steps in enumerate(again.hands):
        if h:
            a.next_hand()
            b.next_hand()
        for actions in steps:
            a.step(actions)
            b.step(actions)
            assert a.digest() == b.digest()
    assert a.digest() == game_log.game.digest()


def test_a_record_in_the_middle_of_a_hand_replays_and_plays_on_identically():
    log = random_log(3, seed=4, steps=70, max_steps_per_hand=50)
    assert len(log.hands) == 2 and not log.game.hand_over  # hand 1 is in play
    again = replay(to_record(log))
    assert again.game.digest() == log.game.digest()
    rng = np.random.default_rng(0)
    for _ in range(10):
        actions = [int(rng.choice(log.game.legal_actions(s))) for s in range(3)]
        log.step(actions)
        again.step(actions)
    assert again.game.digest() == log.game.digest()


def test_a_record_of_a_hand_just_dealt_has_an_empty_last_hand():
    log = random_log(2, seed=8, steps=20, max_steps_per_hand=20)
    assert log.game.hand_over
    log.next_hand()
    record = to_record(log)
    assert record["hands"][-1] == {"steps": [], "digests": "", "end": None}
    assert replay(record).game.digest() == log.game.digest()


def test_n4_stacked_decks_are_part_of_the_record():
    config = NertsConfig(num_players=2, jokers=1)
    deck = stack_deck(config, nerts="2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", stock="JK 4D")
    log = GameLog(config, 3, stacked_decks={0: {1: deck}})
    for _ in range(6):
        log.step([WAIT, log.game.legal_actions(1)[-1]])
    record = json.loads(record_text(to_record(log)))
    nerts = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
    assert " ".join(record["stacked_decks"]["0"]["1"][:13]) == nerts
    again = replay(record)
    assert again.game.digest() == log.game.digest()
    assert again.game.nerts[1] == log.game.nerts[1]


def test_record_text_is_json_with_one_joint_action_a_line(game_log):
    record = to_record(game_log, meta={"note": "a [1, 2] string, [3,4]"})
    text = record_text(record)
    assert json.loads(text) == record  # strings that look like lists are left alone
    lines = text.splitlines()
    steps = game_log.hands[0]
    for k in (0, len(steps) // 2, len(steps) - 1):
        assert json.dumps(steps[k]) + ("," if k < len(steps) - 1 else "") in {
            line.strip() for line in lines
        }


# ---------------------------------------------------------------------- bad records
def test_n18_an_illegal_action_names_the_hand_step_and_seat(game_log):
    record = to_record(game_log)
    record["hands"][1]["steps"][7][2] = 99_999
    with pytest.raises(RecordError, match=r"at hand 1, step 7: seat 2: action 99999 is outside"):
        replay(record)
    record = to_record(game_log)
    k = _first_step(game_log, 0, lambda a: a[0] != 1)
    record["hands"][0]["steps"][k][0] = 1  # call Nerts (N22) with a full Nerts pile
    with pytest.raises(
        RecordError, match=rf"at hand 0, step {k}: seat 0: action 1 \(call\) is not"
    ):
        replay(record)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        ([0, 0], r"hand 0, step 4: 2 actions for 3 seats: a step holds one action id per seat"),
        ([0, 0, 0, 0], r"hand 0, step 4: 4 actions for 3 seats"),
        ([0, "2", 0], r"hand 0, step 4: a joint action is a list of 3 action ids"),
        ([0, True, 0], r"hand 0, step 4: a joint action is a list of 3 action ids"),
        (2, r"hand 0, step 4: a joint action is a list"),
    ],
)
def test_n18_a_step_that_is_not_one_action_per_seat_is_refused(game_log, actions, message):
    record = to_record(game_log)
    record["hands"][0]["steps"][4] = actions
    with pytest.raises(RecordError, match=message):
        replay(record)


def test_an_edited_but_legal_action_is_caught_at_its_step(game_log):
    record = to_record(game_log)
    k = _first_step(game_log, 1, lambda a: a[1] != WAIT)
    record["hands"][1]["steps"][k][1] = WAIT  # always legal (N19): only the check sees it
    with pytest.raises(RecordError, match=rf"at hand 1, step {k}: the state after this step"):
        replay(record)


def test_an_edited_check_is_caught_at_its_step(game_log):
    record = to_record(game_log)
    digests = record["hands"][0]["digests"]
    k = 9
    i = CHECK_DIGITS * k
    record["hands"][0]["digests"] = (
        digests[:i] + ("0" if digests[i] != "0" else "1") + digests[i + 1 :]
    )
    with pytest.raises(RecordError, match=r"at hand 0, step 9: the state after this step differs"):
        replay(record)


def test_n29_a_hand_with_steps_after_its_end_is_refused(game_log):
    record = to_record(game_log)
    hand = record["hands"][0]
    last = len(hand["steps"]) - 1
    hand["steps"].append([WAIT] * 3)
    hand["digests"] += "0" * CHECK_DIGITS
    with pytest.raises(
        RecordError, match=rf"at hand 0, step {last + 1}: the hand ended after step {last} "
    ):
        replay(record)


def test_n29_a_hand_cut_short_before_the_next_one_is_refused(game_log):
    record = to_record(game_log)
    hand = record["hands"][0]
    del hand["steps"][-3:]
    hand["digests"] = hand["digests"][: -3 * CHECK_DIGITS]
    steps = len(hand["steps"])
    with pytest.raises(
        RecordError,
        match=rf"at hand 0: the hand is still in play after its {steps} steps, but the record "
        "goes on with hand 1",
    ):
        replay(record)


def test_n31_hands_after_the_game_ended_are_refused(game_log):
    record = to_record(game_log)
    assert game_log.game.game_over
    record["hands"].append({"steps": [], "digests": "", "end": None})
    with pytest.raises(RecordError, match=r"at hand 3: the game ended after hand 2 \(N31\)"):
        replay(record)


def test_edited_hand_end_or_final_state_is_caught(game_log):
    record = to_record(game_log)
    record["hands"][0]["end"]["scores"][0] += 1
    with pytest.raises(RecordError, match=r"at hand 0: its recorded end .* differs"):
        replay(record)
    record = to_record(game_log)
    record["final"]["digest"] = "0" * 16
    with pytest.raises(RecordError, match=r"at its end \(hand 2, step \d+\): the final state"):
        replay(record)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.update(format="gnome_env.game_record"), "not a Nerts game record: format"),
        (lambda r: r.update(version=2), "Nerts record version 2 is not supported: .* version 1"),
        (lambda r: r.update(version=True), "Nerts record version True is not supported"),
        (lambda r: r.update(game="gnoming"), "record 'game' is 'gnoming', expected 'nerts'"),
        (lambda r: r.pop("seed"), r"missing \['seed'\]"),
        (lambda r: r.update(moves=[]), r"unknown \['moves'\]"),
        (lambda r: r.update(meta=[1]), "'meta' must be a JSON object, got list"),
        (lambda r: r["rules"].update(num_players=9), "header is invalid: num_players=9"),
        (lambda r: r.update(seed="7"), "header is invalid: seed='7'"),
        (lambda r: r.update(stacked_decks={"0": {"1": ["AC"]}}), "header is invalid: stacked"),
        (lambda r: r.update(hands=[]), "'hands' must be a non-empty list"),
        (lambda r: r["hands"][1].pop("end"), "record hand 1 must be an object with fields"),
        (lambda r: r["hands"][0].update(digests="abc"), r"record hand 0: 'digests' must be"),
        (lambda r: r["hands"][0].update(steps={}), r"record hand 0: 'steps' must be a list"),
    ],
)
def test_a_bad_record_header_or_shape_is_a_clear_error(game_log, edit, message):
    record = to_record(game_log)
    edit(record)
    with pytest.raises(RecordError, match=message):
        replay(record)


def test_a_record_that_is_not_an_object_is_refused():
    with pytest.raises(RecordError, match="a record is a JSON object, got list"):
        replay([1, 2])


def test_unreadable_corrupt_or_binary_record_files(tmp_path, game_log):
    with pytest.raises(RecordError, match="cannot read record"):
        load_record(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text('{"format": ')
    with pytest.raises(RecordError, match="is not valid JSON"):
        load_record(tmp_path / "bad.json")
    (tmp_path / "bin.json").write_bytes(b"\x80\x81\xfe\xff")
    with pytest.raises(RecordError, match="a binary file, not JSON text"):
        load_record(tmp_path / "bin.json")
    path = save_record(game_log, tmp_path / "good.json")
    text = path.read_text()
    path.write_text(text[: len(text) // 2])  # truncated on the way
    with pytest.raises(RecordError, match="is not valid JSON"):
        load_record(path)


# ---------------------------------------------------------------------- writing
def test_save_record_never_replaces_a_file_unless_asked(tmp_path, game_log):
    path = tmp_path / "g.json"
    path.write_text("keep me")
    with pytest.raises(FileExistsError, match="already exists"):
        save_record(game_log, path)
    assert path.read_text() == "keep me"
    assert not list(tmp_path.glob("*.tmp"))
    save_record(game_log, path, overwrite=True)
    assert load_record(path).game.digest() == game_log.game.digest()


def test_the_log_keeps_only_steps_that_resolved():
    log = GameLog(NertsConfig(num_players=2), 1)
    with pytest.raises(ValueError, match="seat 1: action 1 \\(call\\) is not legal"):
        log.step([WAIT, 1])
    with pytest.raises(ValueError, match="one action per seat"):
        log.step([WAIT])
    assert log.hands == [[]] and log.game.steps == 0
    log.step([WAIT, WAIT])
    assert log.hands == [[[WAIT, WAIT]]] and log.num_steps == 1


def test_a_log_whose_game_was_played_past_it_cannot_be_recorded():
    log = GameLog(NertsConfig(num_players=2), 1)
    log.step([WAIT, WAIT])
    log.game.step([2, 2])  # the game itself, not through the log
    with pytest.raises(ValueError, match="do not give its game"):
        to_record(log)
    with pytest.raises(TypeError, match="meta must be a mapping"):
        to_record(GameLog(NertsConfig(num_players=2), 1), meta=[1])


def test_a_fresh_game_is_the_logged_game_before_its_first_step(game_log):
    fresh = game_log.fresh_game()
    assert fresh.digest() == NertsGame(game_log.game.config, game_log.game.seed).digest()
    assert fresh.steps == 0 and fresh.hand == 0
