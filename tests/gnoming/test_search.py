"""SearchAgent: legal, honest (never uses hidden cards), deterministic, budget respected."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.gnoming.search import RolloutPolicy, SearchAgent, estimated_layout_score
from gnome_env.gnoming import Game, RulesConfig
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.scoring import layout_score_codes
from gnome_env.gnoming.testing import permute_hidden_cards


def positions(config: RulesConfig, seed: int, every: int):
    game = Game(config, seed)
    rng = random.Random(seed)
    step = 0
    while not game.game_over:
        if step % every == 0 and len(game.legal_actions()) > 1:
            yield game
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])
        step += 1


@pytest.mark.parametrize(("num_players", "guided"), [(3, True), (5, False), (7, True)])
def test_search_only_chooses_legal_actions(num_players, guided):
    config = RulesConfig(num_players=num_players, bounce_face_up=num_players == 5)
    agent = SearchAgent(seed=0, config=config, rollouts=8, horizon=2, guided=guided)
    chosen = 0
    for game in positions(config, seed=num_players, every=9):
        action = agent.decide(SeatView.from_game(game, game.current_seat))
        assert action in game.legal_actions()
        chosen += 1
    assert chosen > 20


def test_search_decision_ignores_hidden_cards():
    config = RulesConfig(num_players=4)
    rng = random.Random(0)
    checked = 0
    for game in positions(config, seed=3, every=13):
        twin = permute_hidden_cards(game, rng)
        twin.seed = game.seed + 1  # even the seed (future reshuffles and deals) is unknown
        seat = game.current_seat
        a = SearchAgent(seed=7, config=config, rollouts=12).decide(SeatView.from_game(game, seat))
        b = SearchAgent(seed=7, config=config, rollouts=12).decide(SeatView.from_game(twin, seat))
        assert a == b
        checked += 1
    assert checked > 10


def test_search_act_on_observation_equals_decide_on_view():
    config = RulesConfig(num_players=3)
    enc = ObservationEncoder(config)
    for game in positions(config, seed=5, every=17):
        seat = game.current_seat
        by_obs = SearchAgent(seed=1, config=config, rollouts=10).act(
            enc.encode(game, seat), game.legal_mask()
        )
        by_view = SearchAgent(seed=1, config=config, rollouts=10).decide(
            SeatView.from_game(game, seat)
        )
        assert by_obs == by_view


def test_search_rollout_budget_counts_rollouts():
    config = RulesConfig(num_players=3)
    game = next(positions(config, seed=2, every=1))
    calls = []

    class Counting(SearchAgent):
        def _rollout(self, game, seat, policy, mean):
            calls.append(1)
            return 0.0

    legal = len(game.legal_actions())
    Counting(seed=0, config=config, rollouts=5 * legal).decide(SeatView.from_game(game, 0))
    assert len(calls) == 5 * legal
    calls.clear()
    Counting(seed=0, config=config, rollouts=1).decide(SeatView.from_game(game, 0))
    assert len(calls) == legal  # at least one sample per candidate


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"rollouts": 0}, "rollouts=0"), ({"max_ms": 0}, "max_ms=0"), ({"horizon": -1}, "horizon=-1")],
)
def test_search_bad_budget_is_a_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SearchAgent(seed=0, **kwargs)


def test_estimated_layout_score_values_face_down_cards_at_the_mean():
    layout = [5, 5, 5, 1, 2, 3, 9, 9, 9]
    assert estimated_layout_score(layout, [True] * 9, 4.0) == layout_score_codes(layout)
    up = [True, True, True, True, True, True, False, False, True]
    # Row 0 of 5s still matches (-5); 1+2+3+9 face up; two face-down cards at 4.0 each.
    assert estimated_layout_score(layout, up, 4.0) == -5 + 1 + 2 + 3 + 9 + 8.0


def test_rollout_policy_plays_legal_moves_to_the_end():
    config = RulesConfig(num_players=5)
    game = Game(config, 9)
    policy = RolloutPolicy(np.random.default_rng(0))
    while not game.game_over:
        action = policy.act(game)
        assert action in game.legal_actions()
        game.step(action)
    assert len(game.round_results) == 3


@pytest.mark.parametrize(
    ("spec", "rollouts", "max_ms"),
    [("search", 64, None), ("search:200", 200, None), ("search:50ms", 10**9, 50.0)],
)
def test_search_specs_set_the_budget(spec, rollouts, max_ms):
    from agents import make_agent

    agent = make_agent(spec, seed=3, config=RulesConfig(num_players=4))
    assert isinstance(agent, SearchAgent)
    assert (agent.rollouts, agent.max_ms, agent.seed) == (rollouts, max_ms, 3)


@pytest.mark.parametrize("spec", ["search:0", "search:-5ms", "search:fast"])
def test_bad_search_spec_says_what_is_allowed(spec):
    from agents import make_agent

    with pytest.raises(ValueError, match="search:ROLLOUTS"):
        make_agent(spec, seed=0)
