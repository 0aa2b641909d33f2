"""The Gymnasium single-seat env: API checks, seeding, AEC parity, opponents, errors."""

from __future__ import annotations

import pickle
import random
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gnome_env
from gnome_env.gnoming import NUM_ACTIONS
from gnome_env.gnoming.gnoming_a_round_v1 import raw_env
from gnome_env.gnoming.gym_env import ENV_ID, GnomeSingleSeatEnv
from gnome_env.gnoming.infos import ENDED_BY
from gnome_env.gnoming.policies import RandomPolicy

EXTRA_INFO_KEYS = {"action_mask", "learner_seat"}


def play_episode(env: GnomeSingleSeatEnv, seed: int | None, learner_rng_seed: int = 0) -> list:
    """Play one episode with a seeded random learner; return (obs, reward, term, trunc, info)s."""
    rng = np.random.default_rng(learner_rng_seed)
    obs, info = env.reset(seed=seed)
    trace = [(obs, 0.0, False, False, info)]
    while True:
        action = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            return trace


def assert_infos_equal(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for key in a:
        assert type(a[key]) is type(b[key]), key
        if isinstance(a[key], np.ndarray):
            assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key
        else:
            assert a[key] == b[key], key


def assert_traces_equal(a: list, b: list) -> None:
    assert len(a) == len(b)
    for (obs_a, rew_a, term_a, trunc_a, info_a), (obs_b, rew_b, term_b, trunc_b, info_b) in zip(
        a, b, strict=True
    ):
        assert np.array_equal(obs_a, obs_b)
        assert (rew_a, term_a, trunc_a) == (rew_b, term_b, trunc_b)
        assert_infos_equal(info_a, info_b)


# ---------------------------------------------------------------------- Gymnasium API
@pytest.mark.parametrize("num_players", [3, 7])
def test_check_env_passes_without_warnings(num_players):
    env = gymnasium.make(ENV_ID, num_players=num_players)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught if issubclass(w.category, UserWarning)] == []


def test_make_after_import_passes_kwargs_and_plays_a_whole_episode():
    env = gymnasium.make(
        ENV_ID,
        num_players=5,
        opponents=RandomPolicy(3),
        learner_seat=2,
        reward_mode="score",
        rotate_start=False,
        rounds=2,
    )
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, GnomeSingleSeatEnv)
    assert unwrapped.config.num_players == 5
    assert unwrapped.config.rotate_start is False
    assert unwrapped.config.rounds == 2
    assert unwrapped.reward_mode == "score"
    assert env.action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
    aec_space = raw_env(num_players=5, rounds=2).observation_space("player_0")["observation"]
    assert env.observation_space == aec_space
    obs, info = env.reset(seed=11)
    rounds_reported = []
    for _ in range(10_000):
        assert env.observation_space.contains(obs)
        mask = unwrapped.action_masks()
        assert mask.dtype == bool
        assert np.array_equal(info["action_mask"], mask.astype(np.int8))
        assert info["learner_seat"] == 2
        assert unwrapped.game.current_seat == 2
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
        assert isinstance(reward, float)
        if info["round_ended"]:
            rounds_reported.append(info["round"])
        if terminated or truncated:
            break
    assert unwrapped.game.game_over
    assert rounds_reported == [0, 1]
    assert info["game_over"] == 1
    assert info["winners"].tolist() == [int(s in unwrapped.game.winners()) for s in range(5)]
    assert unwrapped.last_round["winners"] == [f"player_{s}" for s in unwrapped.game.winners()]
    assert not info["action_mask"].any()


def test_reregistering_on_reimport_does_not_warn():
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        importlib.reload(gnome_env)
    assert ENV_ID in gymnasium.registry


# ---------------------------------------------------------------------- seeding
@pytest.mark.parametrize("learner_seat", [0, "random"])
def test_same_seed_same_episode_even_if_global_random_state_is_disturbed(learner_seat):
    traces = []
    for disturb in (1, 2):
        np.random.seed(disturb)
        random.seed(disturb)
        env = GnomeSingleSeatEnv(num_players=4, learner_seat=learner_seat, reward_mode="raw")
        traces.append(play_episode(env, seed=5, learner_rng_seed=9))
    assert_traces_equal(*traces)
    other = play_episode(
        GnomeSingleSeatEnv(num_players=4, learner_seat=learner_seat, reward_mode="raw"),
        seed=6,
        learner_rng_seed=9,
    )
    with pytest.raises(AssertionError):  # a different seed is a different episode
        assert_traces_equal(traces[0], other)


def test_random_learner_seat_is_drawn_per_episode_from_the_reset_seed():
    env = GnomeSingleSeatEnv(num_players=5, learner_seat="random")
    assert env.learner_seat is None
    seats = {}
    for seed in range(30):
        _, info = env.reset(seed=seed)
        seats[seed] = env.learner_seat
        assert info["learner_seat"] == env.learner_seat
        assert env.game.current_seat == env.learner_seat
        assert sorted(env.seat_policies) == sorted(set(range(5)) - {env.learner_seat})
    assert len(set(seats.values())) > 1
    again = GnomeSingleSeatEnv(num_players=5, learner_seat="random")
    for seed in (0, 7, 29):
        again.reset(seed=seed)
        assert again.learner_seat == seats[seed]


def test_unseeded_resets_deal_the_same_games_as_the_aec_env():
    gym_env = GnomeSingleSeatEnv(num_players=4, learner_seat="random")
    aec = raw_env(num_players=4)
    gym_env.reset(seed=123)
    aec.reset(seed=123)
    for _ in range(3):
        assert gym_env.game.seed == aec.game.seed
        gym_env.reset()
        aec.reset()


# ---------------------------------------------------------------------- parity with the AEC env
@pytest.mark.parametrize(
    ("reward_mode", "learner_seat", "rules"),
    [
        ("win", 0, {}),
        ("score", 0, {}),
        ("raw", 0, {}),
        ("win", 2, {}),
        ("score", 3, {"num_players": 5, "rounds": 2}),
        ("raw", 1, {"max_turns_per_round": 5, "rounds": 2}),  # truncated by the turn cap
        ("win", 2, {"max_turns_per_round": 5, "rounds": 1}),
    ],
)
def test_learner_gets_exactly_what_the_aec_env_gives_its_seat(reward_mode, learner_seat, rules):
    kwargs = {"num_players": 4, **rules, "reward_mode": reward_mode}
    env = GnomeSingleSeatEnv(learner_seat=learner_seat, **kwargs)
    trace = play_episode(env, seed=77, learner_rng_seed=learner_seat)
    actions = list(env.game.actions)

    aec = raw_env(**kwargs)
    aec.reset(seed=77)
    learner = f"player_{learner_seat}"
    seen = []  # what the AEC env shows the learner each time it is selected
    it = iter(actions)
    for agent in aec.agent_iter():
        obs, reward, terminated, truncated, info = aec.last()
        if agent == learner:
            seen.append((obs["observation"], reward, terminated, truncated, info, obs))
        aec.step(None if terminated or truncated else next(it))
    assert next(it, None) is None
    assert aec.game.digest() == env.game.digest()

    assert len(seen) == len(trace)
    for mine, theirs in zip(trace, seen, strict=True):
        obs, reward, terminated, truncated, info = mine
        a_obs, a_rew, a_term, a_trunc, a_info, d = theirs
        assert np.array_equal(obs, a_obs)
        assert reward == a_rew
        assert (terminated, truncated) == (a_term, a_trunc)
        assert_infos_equal({k: v for k, v in info.items() if k not in EXTRA_INFO_KEYS}, a_info)
        assert np.array_equal(info["action_mask"], d["action_mask"])
    returns = sum(step[1] for step in trace)
    aec_returns = sum(step[1] for step in seen)
    assert returns == aec_returns
    if reward_mode != "win":
        assert returns != 0.0  # the comparison above is not vacuous
    truncated_game = env.game.round_results[-1].ended_by == "turn_cap"
    assert truncated_game == ("max_turns_per_round" in rules)  # both outcomes are covered
    assert trace[-1][3] == truncated_game and trace[-1][2] == (not truncated_game)


# ---------------------------------------------------------------------- seats and opponents
class RecordingPolicy:
    """Plays the first legal action and records the seat, observation and mask it was given."""

    def __init__(self) -> None:
        self.env: GnomeSingleSeatEnv | None = None
        self.calls: list[tuple[int, bool, bool, np.dtype]] = []

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        game = self.env.game
        seat = game.current_seat
        expected_mask = np.zeros(NUM_ACTIONS, dtype=bool)
        expected_mask[game.legal_actions()] = True
        own_obs = np.array_equal(observation, self.env.encoder.encode(game, seat))
        self.calls.append((seat, own_obs, np.array_equal(mask, expected_mask), mask.dtype))
        return int(np.flatnonzero(mask)[0])


def test_opponents_list_plays_the_seats_after_the_learner_in_turn_order():
    policies = [RecordingPolicy() for _ in range(3)]
    env = GnomeSingleSeatEnv(num_players=4, learner_seat=1, opponents=policies, rounds=1)
    for policy in policies:
        policy.env = env
    play_episode(env, seed=3)
    assert env.seat_policies == {2: policies[0], 3: policies[1], 0: policies[2]}
    for policy, seat in zip(policies, (2, 3, 0), strict=True):
        assert policy.calls, "every opponent decides at least once"
        assert {c[0] for c in policy.calls} == {seat}  # called only for its own seat
        assert all(c[1] for c in policy.calls)  # sees its own observation
        assert all(c[2] for c in policy.calls)  # mask is exactly the legal set
        assert all(c[3] == np.dtype(bool) for c in policy.calls)


def test_single_opponent_plays_every_other_seat_and_learner_sees_its_own_view():
    policy = RecordingPolicy()
    env = GnomeSingleSeatEnv(num_players=3, learner_seat=2, opponents=policy, rounds=1)
    policy.env = env
    obs, _ = env.reset(seed=4)
    while True:
        assert env.game.current_seat == 2
        assert np.array_equal(obs, env.encoder.encode(env.game, 2))
        obs, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        if terminated or truncated:
            break
    assert {c[0] for c in policy.calls} == {0, 1}
    assert all(c[1] and c[2] for c in policy.calls)


def test_opponent_illegal_action_raises_value_error_naming_its_seat():
    class Stubborn:
        def act(self, observation, mask):
            return 0  # draw: never legal during the opening flips

    env = GnomeSingleSeatEnv(num_players=3, learner_seat=2, opponents=Stubborn())
    with pytest.raises(ValueError, match="seat 0"):
        env.reset(seed=0)


# ---------------------------------------------------------------------- rounds and truncation
def test_r17_turn_cap_truncates_the_episode():
    env = GnomeSingleSeatEnv(num_players=3, max_turns_per_round=2, rounds=1, reward_mode="raw")
    trace = play_episode(env, seed=0)
    _, reward, terminated, truncated, info = trace[-1]
    assert truncated is True and terminated is False
    assert info["ended_by"] == ENDED_BY.index("turn_cap") == 2
    assert env.last_round["ended_by"] == "turn_cap"
    assert info["winners"].any()
    assert env.game.round_results[-1].turns == 2
    assert (
        reward == -info["round_scores"][0] / 10 == -env.last_round["round_scores"]["player_0"] / 10
    )


def test_game_that_ends_normally_is_terminated_not_truncated():
    env = GnomeSingleSeatEnv(num_players=3, rounds=1)
    trace = play_episode(env, seed=2)
    _, reward, terminated, truncated, info = trace[-1]
    assert terminated is True and truncated is False
    assert info["ended_by"] in (ENDED_BY.index("endgame"), ENDED_BY.index("no_draw"))
    winners = int(info["winners"].sum())
    assert reward == (1.0 / winners if info["winners"][0] else -1.0 / (3 - winners))


# ---------------------------------------------------------------------- errors
def test_illegal_learner_action_raises_and_leaves_the_state_unchanged():
    env = GnomeSingleSeatEnv(num_players=4)
    env.reset(seed=8)
    mask = env.action_masks()
    before = env.game.state_tuple()
    rng_state = env.np_random.bit_generator.state
    for bad in (int(np.flatnonzero(~mask)[0]), NUM_ACTIONS, -1, 1.5):
        with pytest.raises(ValueError):
            env.step(bad)
        assert env.game.state_tuple() == before
        assert env.np_random.bit_generator.state == rng_state
    legal = int(np.flatnonzero(mask)[0])
    after_error = env.step(legal)
    fresh = GnomeSingleSeatEnv(num_players=4)
    fresh.reset(seed=8)
    assert_traces_equal([after_error], [fresh.step(legal)])


def test_step_before_reset_and_after_the_end_needs_a_reset():
    env = GnomeSingleSeatEnv(num_players=3, rounds=1)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(23)
    play_episode(env, seed=1)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"opponents": [RandomPolicy(), RandomPolicy()]}, "opponents"),
        ({"opponents": [RandomPolicy()] * 4}, "opponents"),
        ({"opponents": object()}, "opponents"),
        ({"opponents": [RandomPolicy(), RandomPolicy(), "bot"]}, r"opponents\[2\]"),
        ({"learner_seat": 4}, "learner_seat"),
        ({"learner_seat": -1}, "learner_seat"),
        ({"learner_seat": True}, "learner_seat"),
        ({"learner_seat": "first"}, "learner_seat"),
        ({"reward_mode": "points"}, "reward_mode"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"num_players": [3, 8]}, "num_players"),
        ({"num_players": [3, 5], "learner_seat": 3}, "learner_seat"),
        ({"num_players": [3, 5], "opponents": [RandomPolicy()] * 2}, "opponents"),
        ({"num_players": 8}, "num_players"),
        ({"rounds": 0}, "rounds"),
        ({"max_turns_per_round": 0}, "max_turns_per_round"),
        ({"bounce_face_up": "yes"}, "bounce_face_up"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        GnomeSingleSeatEnv(**kwargs)


def test_bad_arguments_raise_through_gymnasium_make_too():
    with pytest.raises(ValueError, match="learner_seat"):
        gymnasium.make(ENV_ID, num_players=3, learner_seat=3)


# ---------------------------------------------------------------------- render, spaces
def test_render_modes_delegate_to_the_game(capsys):
    env = GnomeSingleSeatEnv(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.game.render()
    human = GnomeSingleSeatEnv(num_players=3, render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert env.game.render() in capsys.readouterr().out
    silent = GnomeSingleSeatEnv(num_players=3)
    silent.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert silent.render() is None


def test_action_space_samples_legal_actions_and_pickles_as_plain_discrete():
    env = GnomeSingleSeatEnv(num_players=3, rounds=1)
    env.reset(seed=0)
    env.action_space.seed(0)
    done = False
    while not done:
        action = env.action_space.sample()
        assert env.action_masks()[action]
        _, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    only_draw = np.zeros(NUM_ACTIONS, dtype=np.int8)
    only_draw[0] = 1
    assert env.action_space.sample(mask=only_draw) == 0
    copy = pickle.loads(pickle.dumps(env.action_space))
    assert copy == gymnasium.spaces.Discrete(NUM_ACTIONS)
    assert {int(copy.sample()) for _ in range(2000)} == set(range(NUM_ACTIONS))


# ---------------------------------------------------------------------- sb3-contrib
def test_maskable_ppo_trains_and_predicts_legal_actions():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    env = GnomeSingleSeatEnv(num_players=3, rounds=1)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0)
    model.learn(128)
    obs, _ = env.reset(seed=1)
    for _ in range(50):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        assert env.action_masks()[int(action)]
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
