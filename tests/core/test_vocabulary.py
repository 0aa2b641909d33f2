"""One vocabulary on every game (issue #30 item 3): ``num_players``, ``reward_mode``,
``step``, ``game_over``, ``ranking_keys``; the old spellings still work and warn once."""

from __future__ import annotations

import warnings

import pytest

from gnome_env.core import renamed
from gnome_env.ginny_o import GinnyConfig, GinnyGame
from gnome_env.ginny_o.ginny_o_v0 import raw_env as ginny_raw_env
from gnome_env.gnoming import Game, RulesConfig
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.nerts_v0 import parallel_env as nerts_parallel_env


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    """Each test sees the once-per-process warnings afresh."""
    monkeypatch.setattr(renamed, "_WARNED", set())


def _play_out(game, pick):
    while not game.game_over:
        pick(game)


def test_every_engine_says_step_and_game_over_and_ranking_keys():
    gnoming = Game(RulesConfig(num_players=3, rounds=1), seed=4)
    _play_out(gnoming, lambda g: g.step(g.legal_actions()[0]))
    nerts = NertsGame(NertsConfig(num_players=2, target_score=1), seed=4)

    def nerts_move(g):
        if g.hand_over:
            g.next_hand()
        else:
            g.step([g.legal_actions(s)[-1] for s in range(g.num_players)])

    _play_out(nerts, nerts_move)
    ginny = GinnyGame(GinnyConfig(num_players=2), seed=4)
    _play_out(ginny, lambda g: g.step(g.legal_actions()[-1]))
    for game in (gnoming, nerts, ginny):
        keys = game.ranking_keys()
        assert len(keys) == game.num_players
        best = min(keys)
        assert game.winners() == tuple(s for s, k in enumerate(keys) if k == best)


def test_nerts_ranking_keys_are_total_then_last_hand_and_only_after_the_end():
    game = NertsGame(NertsConfig(num_players=2, target_score=1), seed=9)
    with pytest.raises(ValueError, match="only defined once the game is over"):
        game.ranking_keys()
    while not game.game_over:
        if game.hand_over:
            game.next_hand()
        else:
            game.step([game.legal_actions(s)[-1] for s in range(2)])
    last = game.hand_results[-1].scores
    assert game.ranking_keys() == [(-game.totals[s], -last[s]) for s in range(2)]


def test_gnoming_apply_and_is_over_are_step_and_game_over_warning_once():
    old, new = (Game(RulesConfig(num_players=3, rounds=1), seed=2) for _ in range(2))
    with pytest.warns(DeprecationWarning, match="'apply' is renamed 'step'"):
        old.apply(old.legal_actions()[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second use is silent
        old.apply(old.legal_actions()[0])
    new.step(new.legal_actions()[0])
    new.step(new.legal_actions()[0])
    assert old.actions == new.actions
    with pytest.warns(DeprecationWarning, match="'is_over' is renamed 'game_over'"):
        assert old.is_over is False


def test_ginny_order_keys_is_ranking_keys_warning_once():
    game = GinnyGame(GinnyConfig(num_players=2), seed=1)
    while not game.game_over:
        game.step(game.legal_actions()[-1])
    with pytest.warns(DeprecationWarning, match="'order_keys' is renamed 'ranking_keys'"):
        assert game.order_keys() == game.ranking_keys()


@pytest.mark.parametrize("config_cls", [NertsConfig, GinnyConfig])
def test_configs_take_num_players_and_the_old_players_with_a_warning(config_cls):
    new = config_cls(num_players=3)
    with pytest.warns(DeprecationWarning, match="'players' is renamed 'num_players'"):
        old = config_cls(players=3)
    assert old == new
    renamed._WARNED.clear()
    with pytest.warns(DeprecationWarning, match="'players' is renamed 'num_players'"):
        assert config_cls.from_dict({"players": 3}) == new
    renamed._WARNED.clear()
    with pytest.warns(DeprecationWarning):
        assert new.players == 3
    assert "players" not in new.to_dict() and new.to_dict()["num_players"] == 3
    with pytest.raises(ValueError, match="num_players=3 and its old name players=2 disagree"):
        config_cls.from_dict({"num_players": 3, "players": 2})


@pytest.mark.parametrize(
    ("make", "reward"), [(nerts_parallel_env, "score"), (ginny_raw_env, "score")]
)
def test_envs_take_num_players_and_reward_mode_and_the_old_keywords(make, reward):
    env = make(num_players=3, reward_mode=reward)
    assert env.config.num_players == 3 and env.reward_mode == reward
    assert len(env.possible_agents) == 3
    with pytest.warns(DeprecationWarning):
        old = make(players=3, reward=reward)
    assert old.config == env.config and old.reward_mode == reward
    with pytest.raises(ValueError, match="reward_mode"):
        make(num_players=3, reward_mode="points")
