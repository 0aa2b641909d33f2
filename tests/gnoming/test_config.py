"""R1 deck spec and the rules config: every variant field validated, immutable, round-trips."""

import dataclasses

import pytest

from gnome_env.gnoming import DeckSpec, RulesConfig
from gnome_env.gnoming.cards import HAZARD, MULLIGAN


def test_r1_default_deck_has_110_cards_by_kind():
    deck = DeckSpec.default()
    counts = dict(deck.counts)
    assert deck.size == 110
    assert sum(k for c, k in counts.items() if 0 < c < HAZARD) == 82
    assert sum(k for c, k in counts.items() if c < 0) == 22
    assert counts[HAZARD] == 3
    assert counts[MULLIGAN] == 3
    assert [counts[v] for v in range(1, 13)] == [7] * 10 + [6, 6]
    assert [counts[v] for v in (-1, -2, -3, -4)] == [8, 6, 5, 3]


def test_r1_deck_spec_round_trips_through_dict():
    deck = DeckSpec.default()
    assert DeckSpec.from_dict(deck.to_dict()) == deck


def test_rules_config_defaults_match_rules_md_variants():
    cfg = RulesConfig()
    assert cfg.rotate_start is True
    assert cfg.discard_taken_card is False
    assert cfg.bounce_face_up is False
    assert cfg.max_turns_per_round is None
    assert cfg.first_out_tie_is_lowest is True
    assert cfg.rounds == 3
    assert cfg.deck == DeckSpec.default()
    for n in range(3, 8):
        assert RulesConfig(num_players=n).turn_cap == 60 * n  # R17 default


def test_rules_config_is_immutable_and_hashable():
    cfg = RulesConfig(num_players=5)
    with pytest.raises(dataclasses.FrozenInstanceError):
        cfg.num_players = 6  # type: ignore[misc]
    assert hash(cfg) == hash(RulesConfig(num_players=5))


def test_rules_config_round_trips_through_dict():
    cfg = RulesConfig(num_players=6, bounce_face_up=True, max_turns_per_round=50, rounds=2)
    assert RulesConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.replace(rounds=3) == RulesConfig(
        num_players=6, bounce_face_up=True, max_turns_per_round=50
    )


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("num_players", 2, "from 3 to 7"),
        ("num_players", 8, "from 3 to 7"),
        ("num_players", "4", "from 3 to 7"),
        ("max_turns_per_round", -1, ">= 1"),
        ("max_turns_per_round", 0, ">= 1"),
        ("rounds", 0, "from 1 to"),
        ("rotate_start", 1, "true or false"),
        ("bounce_face_up", "yes", "true or false"),
        ("first_out_tie_is_lowest", None, "true or false"),
        ("discard_taken_card", 0, "true or false"),
    ],
)
def test_rules_config_bad_value_names_field_value_and_allowed(field, value, allowed):
    with pytest.raises(ValueError) as err:
        RulesConfig.from_dict({field: value})
    text = str(err.value)
    assert field in text
    assert repr(value) in text
    assert allowed in text


def test_rules_config_unknown_field_is_value_error_listing_allowed():
    with pytest.raises(
        ValueError, match=r"unknown rules config field.*'colour'.*known fields: num_players"
    ):
        RulesConfig.from_dict({"colour": "red"})
    with pytest.raises(ValueError, match="'colour'"):
        RulesConfig().replace(colour="red")


def test_r1_deck_too_small_for_players():
    small = {"1": 30, "H": 3}  # 33 cards: enough for 3 players (30), not for 4 (39)
    assert RulesConfig(num_players=3, deck=DeckSpec.from_dict(small)).deck.size == 33
    with pytest.raises(ValueError, match=r"deck has 33 cards.*at least 9 x players \+ 3 = 39"):
        RulesConfig.from_dict({"num_players": 4, "deck": small})


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        ({"0": 5}, "value 0"),
        ({0: 5}, "value 0"),
        ({"J": 2}, "unknown card 'J'"),
        ({"joker": 2}, "unknown card 'joker'"),
        ({"5": -1}, "non-negative integer"),
        ({"5": 2.5}, "non-negative integer"),
        ({"5": 2, 5: 1}, "listed twice"),
        ([("5", 2)], "mapping"),
    ],
)
def test_r1_bad_deck_spec(deck, message):
    with pytest.raises(ValueError, match=message):
        RulesConfig.from_dict({"deck": deck})


def test_one_range_check_gives_the_same_message_everywhere():
    """gnome_env.gnoming.config.check_int is the project's one integer check: the rules config, the
    vector engine, the arena and the training configs all answer with its message."""
    import numpy as np

    from agents.gnoming.arena import run_arena
    from gnome_env.gnoming.config import check_float, check_int
    from gnome_env.gnoming.vector import VectorGame
    from training.core.config import ConfigError, check_at_least

    assert check_int("n", np.int64(4), 3, 7) == 4 and type(check_int("n", 4, 3)) is int
    for bad in (True, np.bool_(True), 2.0, "4", 8):
        with pytest.raises(
            ValueError, match=r"n=.* is not allowed: must be an integer from 3 to 7"
        ):
            check_int("n", bad, 3, 7)
    with pytest.raises(
        ValueError, match="batch_size=0 is not allowed: must be an integer from 1 to"
    ):
        VectorGame(batch_size=0)
    with pytest.raises(ValueError, match="games=0 is not allowed: must be an integer >= 1"):
        run_arena(["random"] * 3, 3, 0)
    with pytest.raises(
        ValueError, match="num_players=8 is not allowed: must be an integer from 3 to 7"
    ):
        run_arena(["random"] * 3, 8, 3)
    with pytest.raises(ConfigError, match="workers=0 is not allowed: must be an integer >= 1"):
        check_at_least("workers", 0, 1)
    assert check_float("gamma", 1.0, 0.0, 1.0, low_open=True) == 1.0
    for bad in (0.0, float("nan"), 1.5):
        with pytest.raises(ValueError, match=r"gamma=.* is not allowed: must be in \(0.0, 1.0\]"):
            check_float("gamma", bad, 0.0, 1.0, low_open=True)
