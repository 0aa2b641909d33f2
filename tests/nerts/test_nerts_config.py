"""NertsConfig: every variant of RULES-nerts.md, validated, with its derived facts (N7, N36)."""

from __future__ import annotations

import numpy as np
import pytest

from gnome_env.nerts.actions import action_table
from gnome_env.nerts.config import NertsConfig, foundation_slots, num_actions

DEFAULTS = {
    "num_players": 4,
    "jokers": 0,
    "nerts_size": 13,
    "work_piles": 4,
    "slide_under": True,
    "turn_size": 3,
    "foundation_tie": "priority",
    "auto_call": False,
    "stall_steps": 60,
    "max_steps_per_hand": 1000,
    "target_score": 100,
    "max_hands": 50,
}


def test_defaults_match_the_rules_variants():
    assert NertsConfig().to_dict() == DEFAULTS


def test_n7_n36_derived_facts_with_defaults_and_one_joker():
    cfg = NertsConfig()
    assert cfg.num_slots == 24 and cfg.n_actions == 397
    assert cfg.deck_size == 52 and cfg.stock_size == 35
    assert cfg.score_range == (-26, 52)
    one = NertsConfig(jokers=1)
    assert one.num_slots == 30 and one.n_actions == 433
    assert action_table(one).n == 433 and action_table(cfg).n == 397
    assert foundation_slots(2) == 36 and num_actions(5, 2) == 5 + 7 * 40 + 20 + 325


@pytest.mark.parametrize(
    ("field", "value", "allowed"),
    [
        ("num_players", 1, "from 2 to 6"),
        ("num_players", 7, "from 2 to 6"),
        ("num_players", True, "from 2 to 6"),
        ("num_players", 4.0, "from 2 to 6"),
        ("jokers", 3, "from 0 to 2"),
        ("jokers", -1, "from 0 to 2"),
        ("nerts_size", 0, "from 1 to 20"),
        ("nerts_size", 21, "from 1 to 20"),
        ("work_piles", 2, "from 3 to 5"),
        ("work_piles", 6, "from 3 to 5"),
        ("turn_size", 0, "from 1 to 3"),
        ("turn_size", 4, "from 1 to 3"),
        ("stall_steps", 0, ">= 1"),
        ("max_steps_per_hand", 0, ">= 1"),
        ("target_score", 0, ">= 1"),
        ("max_hands", 0, ">= 1"),
        ("max_hands", "3", ">= 1"),
        ("slide_under", 1, "true or false"),
        ("auto_call", "yes", "true or false"),
        ("foundation_tie", "first", "'priority', 'both_keep'"),
        ("foundation_tie", None, "'priority', 'both_keep'"),
    ],
)
def test_bad_values_name_field_value_and_allowed(field, value, allowed):
    with pytest.raises(ValueError) as err:
        NertsConfig(**{field: value})
    text = str(err.value)
    assert f"{field}={value!r}" in text and allowed in text


def test_numpy_ints_and_bools_are_accepted_and_stored_plain():
    cfg = NertsConfig(num_players=np.int64(3), auto_call=np.bool_(True))
    assert cfg.num_players == 3 and type(cfg.num_players) is int
    assert cfg.auto_call is True


def test_to_dict_from_dict_round_trip_and_replace():
    cfg = NertsConfig(num_players=6, jokers=2, foundation_tie="both_keep", turn_size=1)
    assert NertsConfig.from_dict(cfg.to_dict()) == cfg
    assert cfg.replace(num_players=2).num_players == 2
    with pytest.raises(ValueError, match="players=9"):
        cfg.replace(num_players=9)


def test_unknown_keys_rejected_with_the_known_ones():
    with pytest.raises(ValueError) as err:
        NertsConfig.from_dict({"num_players": 3, "teams": 2})
    assert "'teams'" in str(err.value)
    assert "known fields: " + ", ".join(DEFAULTS) in str(err.value)
    with pytest.raises(ValueError, match="mapping"):
        NertsConfig.from_dict([("num_players", 3)])  # type: ignore[arg-type]


def test_config_is_frozen():
    with pytest.raises(AttributeError):
        NertsConfig().num_players = 3  # type: ignore[misc]
