"""Seat views (public information) and determinized sampling of full states."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gnome_env.gnoming import Game, RulesConfig, check_invariants
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.information import SeatView, sample_game
from gnome_env.gnoming.testing import permute_hidden_cards

CONFIGS = [
    RulesConfig(num_players=3),
    RulesConfig(num_players=5, bounce_face_up=True, rounds=2),
    RulesConfig(num_players=7, max_turns_per_round=40),
    RulesConfig(
        num_players=3, rounds=1, deck={"1": 6, "2": 6, "3": 6, "4": 6, "-1": 3, "M": 3, "H": 3}
    ),
]


def random_states(config: RulesConfig, seed: int, every: int = 3):
    """Yield the game at every ``every``-th decision of a random playout."""
    game = Game(config, seed)
    rng = random.Random(seed)
    step = 0
    while not game.game_over:
        if step % every == 0:
            yield game
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])
        step += 1


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p")
def test_view_from_observation_equals_view_from_game(config):
    enc = ObservationEncoder(config)
    checked = 0
    for game in random_states(config, seed=config.num_players):
        seat = game.current_seat
        obs = enc.encode(game, seat)
        mask = game.legal_mask().astype(np.int8)
        assert SeatView.from_observation(obs, mask, config) == SeatView.from_game(game, seat)
        checked += 1
    assert checked > 20


def test_view_from_observation_reads_the_seat_count_from_the_observation():
    game = Game(RulesConfig(num_players=6), 1)
    obs = ObservationEncoder(game.config).encode(game, 0)
    view = SeatView.from_observation(obs, game.legal_mask(), RulesConfig(num_players=3))
    assert view.num_players == 6
    assert view == SeatView.from_game(game, 0)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p")
def test_sample_game_never_changes_what_the_seat_has_seen(config):
    rng = np.random.default_rng(0)
    differs = 0
    for game in random_states(config, seed=10 + config.num_players, every=7):
        seat = game.current_seat
        view = SeatView.from_game(game, seat)
        sample = sample_game(view, rng)
        assert SeatView.from_game(sample, seat) == view
        assert sample.card_count() == config.deck.counter()
        check_invariants(sample)
        hidden_true = [game.layouts[s][q] for s in range(game.num_players) for q in range(9)]
        hidden_sample = [sample.layouts[s][q] for s in range(game.num_players) for q in range(9)]
        differs += hidden_true != hidden_sample or game.draw_pile != sample.draw_pile
    assert differs > 5


def test_sampled_games_play_to_the_end():
    config = RulesConfig(num_players=4)
    rng = np.random.default_rng(3)
    for game in random_states(config, seed=2, every=40):
        sample = sample_game(SeatView.from_game(game, game.current_seat), rng)
        play = random.Random(0)
        while not sample.game_over:
            legal = sample.legal_actions()
            sample.step(legal[play.randrange(len(legal))])
        assert sample.totals != list(game.totals) or sample.round_results


def test_views_ignore_hidden_cards():
    config = RulesConfig(num_players=5)
    rng = random.Random(0)
    for game in random_states(config, seed=4, every=11):
        twin = permute_hidden_cards(game, rng)
        for seat in range(5):
            assert SeatView.from_game(twin, seat) == SeatView.from_game(game, seat)


def test_seat_view_from_tokens_equals_view_from_float_observation():
    """The vector engine's tokens and the float observation decode to the same public view."""
    from gnome_env.gnoming.vector import VectorGame

    vec = VectorGame(batch_size=48, num_players=[3, 4, 5, 6, 7])
    vec.reset(seed=9)
    rng = np.random.default_rng(9)
    config = RulesConfig()
    checked = 0
    for _ in range(60):
        tokens, mask, *_ = vec.step(vec.sample_actions(rng))
        obs = vec.observations()
        for b in range(0, 48, 7):
            a = SeatView.from_tokens(tokens[b], mask[b], config)
            assert a == SeatView.from_observation(obs[b], mask[b], config)
            checked += 1
    assert checked == 60 * 7
