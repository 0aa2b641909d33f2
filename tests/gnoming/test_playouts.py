"""Seeded random playouts for every seat count and variant mix, validated after every decision.

The CI set plays a few hundred games; the ``slow`` soak plays 100,000 (``pytest -m slow``).
"""

from __future__ import annotations

import random

import pytest

from gnome_env.gnoming import Game, RulesConfig, check_invariants

VARIANTS = [
    {},
    {"bounce_face_up": True, "discard_taken_card": True},
    {"rotate_start": False, "first_out_tie_is_lowest": False},
    {"max_turns_per_round": 12, "rounds": 2},
    {"bounce_face_up": True, "max_turns_per_round": 25, "rounds": 1},
    # a small deck: the draw pile runs out and reshuffles (R8) often
    {"deck": {"1": 6, "2": 6, "3": 6, "4": 6, "-1": 3, "M": 3, "H": 3}, "rounds": 1},
]


def play_random_game(config: RulesConfig, seed: int, full_check_every: int) -> Game:
    """Play uniformly random legal actions, checking invariants after every decision."""
    game = Game(config, seed)
    rng = random.Random(seed)
    bound = Game.max_decisions(config)
    steps = 0
    while not game.game_over:
        check_invariants(game, check_actions=steps % full_check_every == 0)
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])
        steps += 1
        assert steps <= bound, "game did not end within Game.max_decisions"
    check_invariants(game)
    assert len(game.round_results) == config.rounds
    assert game.totals == [
        sum(r.round_scores[s] for r in game.round_results) for s in range(config.num_players)
    ]
    return game


@pytest.mark.parametrize("num_players", [3, 4, 5, 6, 7])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_random_playouts_keep_invariants(num_players, variant):
    values = dict(VARIANTS[variant], num_players=num_players)
    if "deck" in values and num_players > 3:
        values["deck"] = dict(values["deck"], **{"5": 9 * num_players})
    config = RulesConfig.from_dict(values)
    for seed in range(8):
        play_random_game(config, seed=1000 * variant + seed, full_check_every=1)


def test_small_deck_playouts_reach_reshuffle_and_turn_cap():
    """The small-deck variant really exercises R8 and R17 (so the playouts above cover them)."""
    config = RulesConfig.from_dict(dict(VARIANTS[5], num_players=3))
    ended_by = set()
    reshuffled = False
    for seed in range(20):
        game = Game(config, seed)
        rng = random.Random(seed)
        while not game.game_over:
            legal = game.legal_actions()
            if game.phase.name == "DRAW" and not game.draw_pile and 0 in legal:
                reshuffled = True
            game.step(legal[rng.randrange(len(legal))])
        ended_by.update(r.ended_by for r in game.round_results)
    assert reshuffled
    assert "endgame" in ended_by


@pytest.mark.slow
def test_soak_100k_random_games():
    """100,000 games over every seat count and variant mix (not in CI: ``pytest -m slow``)."""
    games = 0
    for seed in range(20_000):
        for num_players in range(3, 8):
            values = dict(VARIANTS[seed % len(VARIANTS)], num_players=num_players)
            if "deck" in values and num_players > 3:
                values["deck"] = dict(values["deck"], **{"5": 9 * num_players})
            play_random_game(RulesConfig.from_dict(values), seed, full_check_every=50)
            games += 1
    assert games == 100_000
