"""The game state is declared once (engine.STATE_FIELDS): Game's slots, copy(), state_tuple(),
the public constructor from_state() and the kernel row's columns all follow the table."""

from __future__ import annotations

import random

import pytest

from gnome_env.gnoming import _kernels as kernels
from gnome_env.gnoming import engine
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import HISTORY_AND_CACHE, STATE_FIELDS, Game, Phase
from gnome_env.gnoming.validate import check_invariants

NAMES = [f.name for f in STATE_FIELDS]


def midgame(seed: int = 3, steps: int = 60, players: int = 4) -> Game:
    game = Game(RulesConfig(num_players=players), seed)
    pick = random.Random(seed)
    for _ in range(steps):
        game.step(pick.choice(game.legal_actions()))
    return game


def test_slots_are_the_state_fields_and_the_history_and_caches():
    assert set(Game.__slots__) == set(NAMES) | set(HISTORY_AND_CACHE)
    assert len(NAMES) == len(set(NAMES))


def test_state_tuple_has_one_entry_per_field_in_table_order():
    game = midgame()
    state = game.state_tuple()
    assert len(state) == len(STATE_FIELDS)
    assert state[NAMES.index("round")] == game.round
    assert state[NAMES.index("layouts")] == tuple(map(tuple, game.layouts))
    assert state[NAMES.index("phase")] == int(game.phase)


def changed(value):
    """A different value of the same shape (for the field tests below)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if value is None:
        return 1
    if isinstance(value, list):
        if value and isinstance(value[0], list):
            return [[*value[0], 99], *value[1:]]
        return [*value, 99]
    if isinstance(value, dict):
        return {**value, 5: ("X",)}
    if isinstance(value, RulesConfig):
        return RulesConfig(num_players=value.num_players, rounds=value.rounds + 1)
    raise AssertionError(f"no change defined for {value!r}")


@pytest.mark.parametrize("name", NAMES)
def test_every_field_counts_in_state_tuple(name):
    game = midgame()
    other = game.copy()
    setattr(other, name, changed(getattr(other, name)))
    assert other.state_tuple() != game.state_tuple()


@pytest.mark.parametrize("field", [f for f in STATE_FIELDS if f.copy != engine.SHARED])
def test_copy_is_independent_in_every_mutable_field(field):
    game = midgame()
    before = game.state_tuple()
    copy = game.copy()
    value = getattr(copy, field.name)
    if field.copy == engine.NESTED:
        value[0].append(99)
    else:
        value.append(99)
    assert game.state_tuple() == before
    assert copy.state_tuple() != before


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_from_state_rebuilds_a_game_that_plays_on_identically(seed):
    game = midgame(seed, steps=40 + 17 * seed, players=3 + seed)
    rebuilt = Game.from_state(**{name: getattr(game, name) for name in NAMES})
    assert rebuilt.state_tuple() == game.state_tuple()
    assert rebuilt.actions == []
    check_invariants(rebuilt)
    pick = random.Random(seed)
    while not game.game_over:  # the same future: reshuffles and deals come from the seed
        assert rebuilt.legal_actions() == game.legal_actions()
        action = pick.choice(game.legal_actions())
        game.step(action)
        rebuilt.step(action)
        assert rebuilt.state_tuple() == game.state_tuple()
    assert rebuilt.phase == Phase.GAME_OVER


def test_from_state_names_missing_and_unknown_fields():
    fields = {name: getattr(midgame(), name) for name in NAMES}
    del fields["reshuffles"]
    fields["colour"] = "red"
    with pytest.raises(
        ValueError, match=r"missing fields \['reshuffles'\].*unknown fields \['colour'\]"
    ):
        Game.from_state(**fields)


def test_kernel_row_and_state_table_are_checked_against_each_other(monkeypatch):
    kernels.check_state_columns()  # as at import: they agree
    extra = engine.StateField("colour", engine.SHARED, None, ("C_COLOUR",))
    monkeypatch.setattr(engine, "STATE_FIELDS", (*STATE_FIELDS, extra))
    with pytest.raises(ImportError, match=r"not defined here \['C_COLOUR'\]"):
        kernels.check_state_columns()
    without_round = tuple(f for f in STATE_FIELDS if f.name != "round")
    monkeypatch.setattr(engine, "STATE_FIELDS", without_round)
    with pytest.raises(ImportError, match=r"no state field names .*\['C_ROUND'\]"):
        kernels.check_state_columns()


def test_the_kernel_state_reader_covers_every_state_field():
    """gnome_env.gnoming.testing.kernel_state reads each state field the kernel row holds; the rest
    (config, seed, stacked decks, round results) the kernel rules game keeps itself."""
    from gnome_env.gnoming.testing import KernelRulesGame, kernel_state

    game = KernelRulesGame(RulesConfig(num_players=4), 7)
    kgame = game._kgame
    read = kernel_state(kgame._g, kgame._cards, kgame._vec._kcode)
    kept = {"config", "seed", "stacked_decks", "round_results"}
    assert set(read) - {"num_players", "_turn_cap"} == set(NAMES) - kept
