"""What RL libraries need from both environments without glue (issue #15): rgb_array
pictures, infos with one fixed structure on every step, absent seats in seat-count mode,
``env().unwrapped`` before reset, and the Gymnasium env with a seat-count list."""

from __future__ import annotations

import math
import random

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from gnome_env.gnoming import actions as A
from gnome_env.gnoming import gnoming_a_round_v1
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game, Phase
from gnome_env.gnoming.gym_env import ENV_ID, GnomeSingleSeatEnv
from gnome_env.gnoming.infos import ENDED_BY, INFO_KEYS, SEAT_KEYS
from gnome_env.gnoming.render_image import (
    CARD_H,
    CARD_W,
    FRAME,
    GAP,
    MARGIN,
    PAD,
    PANEL_H,
    PANEL_W,
    PANELS_PER_ROW,
    TEXT_H,
    TOP_H,
    image_size,
    render_rgb,
)
from gnome_env.gnoming.testing import permute_hidden_cards

SCALARS = set(INFO_KEYS) - set(SEAT_KEYS)


def random_action(env, rng: random.Random):
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        return None
    return rng.choice(np.flatnonzero(obs["action_mask"]).tolist())


# ---------------------------------------------------------------------- rgb_array
def panel_origin(seat: int) -> tuple[int, int]:
    row, col = divmod(seat, PANELS_PER_ROW)
    return TOP_H + row * (PANEL_H + MARGIN), MARGIN + col * (PANEL_W + MARGIN)


def card_region(img: np.ndarray, seat: int, position: int) -> np.ndarray:
    y, x = panel_origin(seat)
    r, c = divmod(position, 3)
    y += PAD + TEXT_H + PAD + r * (CARD_H + GAP)
    x += PAD + c * (CARD_W + GAP)
    return img[y : y + CARD_H, x : x + CARD_W]


def has_frame(img: np.ndarray, seat: int) -> bool:
    y, x = panel_origin(seat)
    return tuple(img[y + 1, x + PANEL_W // 2]) == FRAME


def test_rgb_array_is_a_uint8_picture_of_fixed_size_and_the_same_for_the_same_state():
    game = Game(RulesConfig(num_players=5), seed=3)
    img = render_rgb(game)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    assert img.shape[:2] == image_size(5)
    assert len(np.unique(img.reshape(-1, 3), axis=0)) > 5  # a picture, not a blank
    again = render_rgb(Game(RulesConfig(num_players=5), seed=3))
    assert np.array_equal(img, again)
    assert render_rgb(game, 7).shape[:2] == image_size(7)
    with pytest.raises(ValueError, match="slots=4 is not allowed"):
        render_rgb(game, 4)


def test_rgb_array_changes_where_a_card_is_turned_and_the_frame_follows_the_deciding_seat():
    game = Game(RulesConfig(num_players=3), seed=0)
    assert game.phase == Phase.OPENING_FLIP and game.current_seat == 0
    before = render_rgb(game)
    assert has_frame(before, 0) and not has_frame(before, 1) and not has_frame(before, 2)
    game.step(A.FLIP + 4)  # seat 0 turns up its centre card
    after = render_rgb(game)
    assert not np.array_equal(card_region(before, 0, 4), card_region(after, 0, 4))
    for q in (0, 1, 2, 3, 5, 6, 7, 8):  # the other cards look the same
        assert np.array_equal(card_region(before, 0, q), card_region(after, 0, q))
    assert np.array_equal(card_region(before, 1, 4), card_region(after, 1, 4))
    game.step(A.FLIP + 0)  # seat 0's second opening flip: seat 1 decides next
    assert game.current_seat == 1
    moved = render_rgb(game)
    assert not has_frame(moved, 0) and has_frame(moved, 1)


def test_rgb_array_is_a_spectator_view_that_never_shows_face_down_cards():
    game = Game(RulesConfig(num_players=4), seed=5)
    rng = random.Random(1)
    checked = 0
    for step in range(300):
        if game.game_over:
            break
        if step % 5 == 0:
            twin = permute_hidden_cards(game, rng)
            assert np.array_equal(render_rgb(game), render_rgb(twin))
            checked += 1
        game.step(rng.choice(game.legal_actions()))
    assert checked > 30


def test_rgb_array_through_both_envs_keeps_one_frame_size_in_seat_count_mode():
    aec = gnoming_a_round_v1.env(num_players=[3, 7], render_mode="rgb_array")
    assert "rgb_array" in aec.metadata["render_modes"]
    shapes, counts = set(), set()
    for seed in range(8):
        aec.reset(seed=seed)
        counts.add(aec.config.num_players)
        frame = aec.render()
        shapes.add(frame.shape)
        assert np.array_equal(frame, render_rgb(aec.game, 7))
    assert counts == {3, 7} and shapes == {(*image_size(7), 3)}
    gym_env = gymnasium.make(ENV_ID, num_players=4, render_mode="rgb_array")
    assert "rgb_array" in gym_env.metadata["render_modes"]
    gym_env.reset(seed=2)
    frame = gym_env.render()
    assert frame.dtype == np.uint8
    assert np.array_equal(frame, render_rgb(gym_env.unwrapped.game))
    _, _, _, _, _ = gym_env.step(int(np.flatnonzero(gym_env.unwrapped.action_masks())[0]))
    assert not np.array_equal(frame, gym_env.render())  # a card was turned


def test_rgb_array_at_game_over_marks_the_winners_and_no_deciding_seat():
    env = gnoming_a_round_v1.raw_env(num_players=3, rounds=1, render_mode="rgb_array")
    env.reset(seed=4)
    rng = random.Random(0)
    while not env.game.game_over:
        env.step(random_action(env, rng))
    img = env.render()
    assert not any(has_frame(img, s) for s in range(3))
    losers = [s for s in range(3) if s not in env.game.winners()]
    winner = env.game.winners()[0]
    y, x = panel_origin(winner)
    header = img[y + PAD : y + PAD + TEXT_H, x + PANEL_W // 2 : x + PANEL_W]
    y, x = panel_origin(losers[0])
    plain = img[y + PAD : y + PAD + TEXT_H, x + PANEL_W // 2 : x + PANEL_W]
    assert not np.array_equal(header, plain)  # "WIN"


# ---------------------------------------------------------------------- infos
def check_info(info: dict, slots: int, extra: set[str] = frozenset()) -> None:
    """One fixed structure: the keys, Python ints, int64/int8 arrays of length ``slots``."""
    assert set(info) == set(INFO_KEYS) | extra
    for key in SCALARS:
        assert type(info[key]) is int, key
    for key, dtype in SEAT_KEYS.items():
        value = info[key]
        assert isinstance(value, np.ndarray) and value.dtype == dtype and value.shape == (slots,)
    assert set(np.unique(info["winners"])) <= {0, 1}
    assert info["round_ended"] in (0, 1) and info["game_over"] in (0, 1)
    assert 0 <= info["ended_by"] < len(ENDED_BY)
    assert -1 <= info["first_out"] < info["num_players"]
    if not info["round_ended"]:
        assert info["round"] == -1 and info["ended_by"] == 0 and info["first_out"] == -1
    else:
        assert info["round"] >= 0 and info["ended_by"] > 0
    assert not info["winners"].any() or info["game_over"]
    for key in SEAT_KEYS:
        assert not info[key][info["num_players"] :].any()
    for value in info.values():
        assert value is not None
        assert np.all(np.isfinite(value))


@pytest.mark.parametrize("use_kernels", [True, False])
@pytest.mark.parametrize("mode", ["win", "score", "raw"])
def test_aec_infos_have_one_structure_on_every_step_for_every_possible_agent(mode, use_kernels):
    """Many random games, some truncated by the turn cap: after reset and every step, every
    possible agent's info (absent seats included) has the same keys and types, no None,
    no NaN; the round-end values appear, and the rewards are finite."""
    env = gnoming_a_round_v1.raw_env(num_players=[3, 4, 5, 6, 7], reward_mode=mode, rounds=2)
    env._use_kernels = env._use_kernels and use_kernels
    seen_ended_by, seen_over, steps = set(), 0, 0
    for seed in range(12):
        if seed % 4 == 3:
            env = gnoming_a_round_v1.raw_env(
                num_players=[3, 7], reward_mode=mode, rounds=1, max_turns_per_round=6
            )
            env._use_kernels = env._use_kernels and use_kernels
        env.reset(seed=seed)
        rng = random.Random(seed)
        while True:
            absent = env.possible_agents[env.config.num_players :]
            for agent in env.agents + absent:  # (agents stepped out at the end are gone)
                info = env.infos[agent]
                check_info(info, len(env.possible_agents))
                seen_ended_by.add(info["ended_by"])
                seen_over += info["game_over"]
                assert math.isfinite(env.rewards[agent])
            if not env.agents:
                break
            env.step(random_action(env, rng))
            steps += 1
    assert steps > 1000
    assert {0, 1, 2} <= seen_ended_by and seen_over > 0


def test_gym_infos_have_one_structure_on_every_step():
    env = GnomeSingleSeatEnv(num_players=[3, 5], learner_seat="random", rounds=2)
    extra = {"action_mask", "learner_seat"}
    ended = set()
    for seed in range(10):
        _, info = env.reset(seed=seed)
        check_info(info, 5, extra)
        rng = np.random.default_rng(seed)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, terminated, truncated, info = env.step(action)
            check_info(info, 5, extra)
            assert type(info["learner_seat"]) is int
            assert info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (33,)
            assert math.isfinite(reward)
            ended.add(info["ended_by"])
            done = terminated or truncated
        assert info["game_over"] == 1
        assert info["winners"].tolist()[: env.game.num_players] == [
            int(s in env.game.winners()) for s in range(env.game.num_players)
        ]
    assert 1 in ended


# ---------------------------------------------------------------------- env().unwrapped
@pytest.mark.parametrize("num_players", [4, [3, 5, 7]])
def test_unwrapped_answers_agents_and_num_agents_before_reset_as_classic_envs(num_players):
    env = gnoming_a_round_v1.env(num_players=num_players)
    raw = env.unwrapped
    n = 4 if num_players == 4 else 7
    expected = [f"player_{i}" for i in range(n)]
    assert raw.possible_agents == expected
    assert raw.agents == expected and raw.num_agents == n and raw.max_num_agents == n
    with pytest.raises(AttributeError, match="before reset"):
        env.agents  # noqa: B018 -- the checked env still refuses, as OrderEnforcingWrapper
    with pytest.raises(AttributeError, match="before reset"):
        env.num_agents  # noqa: B018
    plain = gnoming_a_round_v1.raw_env(num_players=num_players)
    assert plain.agents == expected and plain.num_agents == n
    assert plain.unwrapped is plain
    # After reset: one state, seen through both
    env.reset(seed=1)
    raw = env.unwrapped
    assert raw.agents == env.agents and raw.num_agents == env.num_agents
    assert raw.agent_selection == env.agent_selection
    rng = random.Random(0)
    env.step(random_action(env, rng))
    assert raw.agent_selection == env.agent_selection
    mask = raw.observe(raw.agent_selection)["action_mask"]
    with pytest.raises(ValueError, match=r"illegal|not legal"):  # raw semantics: no termination
        raw.step(int(np.flatnonzero(mask == 0)[0]))
    assert not any(env.terminations.values())
    raw.step(int(np.flatnonzero(mask)[0]))  # stepping the unwrapped env moves env() too
    assert env.agent_selection == raw.agent_selection


def test_reset_through_unwrapped_counts_as_a_reset_of_the_checked_env():
    env = gnoming_a_round_v1.env(num_players=3)
    env.unwrapped.reset(seed=0)
    assert env.agents == ["player_0", "player_1", "player_2"]
    env.step(random_action(env, random.Random(0)))


# ---------------------------------------------------------------------- Gymnasium seat-count list
def test_gym_env_with_a_seat_count_list_draws_counts_from_the_seed():
    env = gymnasium.make(ENV_ID, num_players=[3, 4, 5, 6, 7])
    unwrapped = env.unwrapped
    fixed = GnomeSingleSeatEnv(num_players=3)
    assert env.observation_space == fixed.observation_space
    assert env.action_space == fixed.action_space
    assert unwrapped.possible_agents == [f"player_{i}" for i in range(7)]
    drawn = []
    aec = gnoming_a_round_v1.raw_env(num_players=[3, 4, 5, 6, 7])
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        n = unwrapped.game.num_players
        drawn.append(n)
        assert unwrapped.config.num_players == n == info["num_players"]
        assert env.observation_space.contains(obs)
        assert sorted(unwrapped.seat_policies) == list(range(1, n))
        aec.reset(seed=seed)  # the same seed deals the same game in both envs
        assert aec.game.digest() == unwrapped.game.digest()
    assert set(drawn) == {3, 4, 5, 6, 7}
    again = GnomeSingleSeatEnv(num_players=[3, 4, 5, 6, 7])
    for seed in (0, 11, 39):
        again.reset(seed=seed)
        assert again.game.num_players == drawn[seed]
    # unseeded resets continue the stream of the last seed, in both envs
    env.reset(seed=5)
    aec.reset(seed=5)
    for _ in range(5):
        env.reset()
        aec.reset()
        assert aec.game.digest() == unwrapped.game.digest()


def test_gym_env_with_a_seat_count_list_passes_check_env_and_plays_whole_games():
    made = gymnasium.make(ENV_ID, num_players=[3, 6], learner_seat="random", reward_mode="score")
    env = made.unwrapped
    check_env(env)
    counts = set()
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        counts.add(env.game.num_players)
        done = False
        while not done:
            assert env.game.current_seat == env.learner_seat < env.game.num_players
            obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
            assert env.observation_space.contains(obs)
            done = terminated or truncated
    assert counts == {3, 6}


def test_gym_env_opponent_list_in_seat_count_mode_uses_the_first_seats_after_the_learner():
    class First:
        def act(self, observation, mask):
            return int(np.flatnonzero(mask)[0])

    bots = [First() for _ in range(4)]
    env = GnomeSingleSeatEnv(num_players=[3, 5], opponents=bots, learner_seat=1)
    seen = set()
    for seed in range(10):
        env.reset(seed=seed)
        n = env.game.num_players
        seen.add(n)
        others = [(1 + 1 + k) % n for k in range(n - 1)]
        assert env.seat_policies == dict(zip(others, bots[: n - 1], strict=True))
    assert seen == {3, 5}
