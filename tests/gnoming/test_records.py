"""Game records: export, exact replay, and clear errors for records that do not replay."""

from __future__ import annotations

import json
import random

import pytest

from gnome_env.gnoming import (
    Game,
    RecordError,
    RulesConfig,
    load_record,
    replay,
    save_record,
    to_record,
)
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.testing import stack_deck


def random_game(config: RulesConfig, seed: int, steps: int | None = None) -> Game:
    game = Game(config, seed)
    rng = random.Random(seed)
    while not game.game_over and (steps is None or len(game.actions) < steps):
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])
    return game


@pytest.mark.parametrize("num_players", [3, 5, 7])
def test_finished_game_replays_to_identical_state_and_scores(num_players, tmp_path):
    config = RulesConfig(num_players=num_players, bounce_face_up=True)
    game = random_game(config, seed=num_players)
    path = tmp_path / "game.json"
    save_record(game, path)
    again = load_record(path)
    assert again.state_tuple() == game.state_tuple()
    assert again.totals == game.totals
    assert again.winners() == game.winners()
    assert [r.round_scores for r in again.round_results] == [
        r.round_scores for r in game.round_results
    ]
    data = json.loads(path.read_text())
    assert data["format"] == "gnome_env.game_record"
    assert data["version"] == 2
    assert data["seed"] == num_players
    assert data["rules"] == config.to_dict()
    assert data["actions"] == game.actions
    assert [c["round"] for c in data["checkpoints"]] == [0, 1, 2]


def test_unfinished_game_replays_and_continues_identically():
    config = RulesConfig(num_players=4)
    game = random_game(config, seed=11, steps=150)
    assert not game.game_over
    again = replay(json.loads(json.dumps(to_record(game))))
    assert again.state_tuple() == game.state_tuple()
    assert again.legal_actions() == game.legal_actions()
    action = game.legal_actions()[-1]
    game.step(action)
    again.step(action)
    assert again.digest() == game.digest()


def test_record_with_stacked_deck_replays():
    config = RulesConfig(num_players=3, rounds=1)
    deck = stack_deck(config, layouts=["5 5 M / 1 2 7 / 3 4 7"], top=["9", "2"])
    game = Game(config, seed=3, stacked_decks={0: deck})
    for _ in range(20):
        game.step(game.legal_actions()[0])
    again = replay(to_record(game))
    assert again.layouts[0] == game.layouts[0]
    assert again.state_tuple() == game.state_tuple()


def test_record_with_illegal_action_names_the_step():
    record = to_record(random_game(RulesConfig(num_players=3), seed=1, steps=40))
    record["actions"][10] = 32  # "decline" is never legal in the opening or a turn's draw
    with pytest.raises(RecordError, match="at step 10: illegal action 32"):
        replay(record)


def test_record_with_out_of_range_action_names_the_step():
    record = to_record(random_game(RulesConfig(num_players=3), seed=1, steps=40))
    record["actions"][3] = 99
    with pytest.raises(RecordError, match="at step 3: action 99 is out of range"):
        replay(record)


def test_edited_record_with_legal_but_different_action_is_caught_at_round_end():
    config = RulesConfig(num_players=3, rounds=1)
    game = random_game(config, seed=5)
    record = to_record(game)
    # Swap the first discard of the game to the other pile: still legal, different game.
    step = next(i for i, a in enumerate(record["actions"]) if a == A.DISCARD_A)
    record["actions"][step] = A.DISCARD_B
    edited = Game(config, 5)
    for action in record["actions"]:
        edited.step(action)  # precondition: the edit replays without an illegal action
    assert edited.digest() != game.digest()
    last = len(record["actions"]) - 1
    with pytest.raises(RecordError, match=f"step {last}: state at the end of round 0 differs"):
        replay(record)


def test_edited_final_totals_in_unfinished_record_is_caught():
    record = to_record(random_game(RulesConfig(num_players=3), seed=2, steps=30))
    record["final"]["digest"] = "0" * 16
    with pytest.raises(RecordError, match="step 29: final state differs"):
        replay(record)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda r: r.update(version=3), "version 3 is not supported"),
        (lambda r: r.update(version=1), "version 1 was written by gnoming_a_round_v0"),
        (lambda r: r.update(format="chess"), "not a gnome_env game record"),
        (lambda r: r["rules"].update(num_players=9), "num_players=9"),
        (lambda r: r.update(seed=-1), "seed=-1"),
        (lambda r: r.pop("actions"), "missing \\['actions'\\]"),
        (lambda r: r.update(extra=1), "unknown \\['extra'\\]"),
    ],
)
def test_bad_record_header_is_a_clear_error(edit, message):
    record = to_record(random_game(RulesConfig(num_players=3), seed=2, steps=5))
    edit(record)
    with pytest.raises(RecordError, match=message):
        replay(record)


def test_unreadable_or_corrupt_record_file(tmp_path):
    with pytest.raises(RecordError, match="cannot read record"):
        load_record(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(RecordError, match="not valid JSON"):
        load_record(bad)
