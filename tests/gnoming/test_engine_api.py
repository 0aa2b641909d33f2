"""The decision-level API: determinism, copies, masks, errors, static facts."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gnome_env.gnoming import NUM_ACTIONS, Game, Phase, RulesConfig, Source
from gnome_env.gnoming import actions as A


def play(game: Game, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if game.game_over:
            return
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])


def test_same_seed_same_game_even_if_global_random_state_is_disturbed():
    config = RulesConfig(num_players=5)
    a, b = Game(config, 42), Game(config, 42)
    ra, rb = random.Random(7), random.Random(7)
    while not a.game_over:
        np.random.seed(random.randrange(2**31))  # disturb the global generators
        random.seed(np.random.randint(2**31))
        play(a, ra, 1)
        play(b, rb, 1)
        assert a.state_tuple() == b.state_tuple()
    assert a.totals == b.totals


def test_different_seeds_deal_differently_and_rounds_deal_differently():
    config = RulesConfig(num_players=3)
    assert Game(config, 1).layouts != Game(config, 2).layouts
    game = Game(config, 1)
    first_deal = [list(x) for x in game.layouts]
    rng = random.Random(0)
    while game.round == 0:
        play(game, rng, 1)
    assert game.layouts != first_deal


def test_copy_is_independent_and_continues_identically():
    game = Game(RulesConfig(num_players=4), 3)
    play(game, random.Random(1), 60)
    twin = game.copy()
    assert twin.state_tuple() == game.state_tuple()
    play(twin, random.Random(2), 30)
    assert twin.state_tuple() != game.state_tuple()
    clone = game.copy()
    play(game, random.Random(9), 500)
    play(clone, random.Random(9), 500)
    assert clone.state_tuple() == game.state_tuple()


def test_mask_and_list_agree_and_have_action_table_size():
    game = Game(RulesConfig(num_players=6), 0)
    rng = random.Random(0)
    while not game.game_over:
        mask = game.legal_mask()
        assert mask.shape == (NUM_ACTIONS,)
        assert mask.dtype == bool
        assert list(np.flatnonzero(mask)) == sorted(game.legal_actions())
        play(game, rng, 1)
    assert not game.legal_mask().any()
    assert game.current_seat == -1


def test_legal_actions_returns_a_copy():
    game = Game(RulesConfig(num_players=3), 0)
    legal = game.legal_actions()
    legal.clear()
    assert game.legal_actions() == [A.FLIP + q for q in range(9)]


def test_apply_after_game_over_is_rejected():
    config = RulesConfig(num_players=3, rounds=1, max_turns_per_round=3)
    game = Game(config, 0)
    play(game, random.Random(0), 10_000)
    assert game.game_over
    with pytest.raises(ValueError, match=r"phase GAME_OVER.*legal actions: none"):
        game.step(A.DRAW)


def test_winners_before_game_over_is_an_error():
    with pytest.raises(ValueError, match="once the game is over"):
        Game(RulesConfig(num_players=3), 0).winners()


@pytest.mark.parametrize("seed", [-1, 1.5, "3", True, None])
def test_bad_seed_is_rejected(seed):
    with pytest.raises(ValueError, match="seed"):
        Game(RulesConfig(num_players=3), seed)


def test_bad_stacked_deck_is_rejected():
    config = RulesConfig(num_players=3)
    with pytest.raises(ValueError, match="not a permutation of the deck"):
        Game(config, 0, stacked_decks={0: ["1"] * 110})
    with pytest.raises(ValueError, match="round 5"):
        Game(config, 0, stacked_decks={5: config.deck.cards()})


def test_max_decisions_bounds_a_capped_game():
    config = RulesConfig(num_players=7, max_turns_per_round=5)
    # 3 rounds x (14 opening flips + 5 turns x (11 + 6))
    assert Game.max_decisions(config) == 3 * (14 + 5 * 17)


def test_action_names_cover_the_table():
    assert A.ACTION_NAMES[0] == "draw"
    assert A.ACTION_NAMES[A.PLACE + 4] == "place@4"
    assert A.ACTION_NAMES[A.BOUNCE + 8] == "bounce@8"
    assert A.ACTION_NAMES[A.FLIP] == "flip@0"
    assert A.ACTION_NAMES[A.DECLINE] == "decline"
    assert all(A.action_from_name(A.action_name(a)) == a for a in range(NUM_ACTIONS))
    with pytest.raises(ValueError, match="unknown action name"):
        A.action_from_name("pass")


def test_render_shows_hidden_cards_as_hashes():
    game = Game(RulesConfig(num_players=3), 0)
    text = game.render()
    assert "phase OPENING_FLIP" in text
    assert text.count("##") == 27
    game.step(A.FLIP + 4)
    assert game.render().count("##") == 26
    assert game.phase == Phase.OPENING_FLIP


def test_held_source_names_the_pile_a_card_was_taken_from():
    game = Game(RulesConfig(num_players=3), 0)
    while game.phase == Phase.OPENING_FLIP:
        game.step(game.legal_actions()[0])
    game.step(A.TAKE_B)
    assert game.held_source is Source.PILE_B
    assert "(pile_b)" in game.render()
