"""The Ginny-O single-seat Gymnasium env (gnome_env/GinnyO-v0): API checks, parity with the AEC
env, opponents' views (G17), seeding, errors, and the sb3-contrib example on a tiny budget."""

from __future__ import annotations

import functools
import importlib.util
import json
import pickle
import random
import warnings
import zlib
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gnome_env  # noqa: F401  (registers gnome_env/GinnyO-v0)
from agents.ginny_o import make_ginny_agent
from gnome_env.core import rng
from gnome_env.ginny_o import ginny_o_v0 as gv
from gnome_env.ginny_o.actions import NUM_ACTIONS
from gnome_env.ginny_o.gym_env import ENV_ID, GinnySingleSeatEnv
from gnome_env.ginny_o.information import GinnyView

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXTRA_INFO_KEYS = {"action_mask", "learner_seat", "num_players"}


class HashPolicy:
    """A policy whose choice is a fixed function of every byte of its observation."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[zlib.crc32(observation.tobytes()) % legal.size])


class RecordingBot:
    """A bot (``decide(view)``) that plays a seeded random legal action and keeps its views."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.views: list[GinnyView] = []

    def decide(self, view: GinnyView) -> int:
        self.views.append(view)
        return int(self.rng.choice(view.legal_actions))


def play_episode(env: GinnySingleSeatEnv, seed: int | None, learner_seed: int = 0) -> list:
    """One episode with a seeded masked random learner: (obs, reward, term, trunc, info)s."""
    gen = np.random.default_rng(learner_seed)
    obs, info = env.reset(seed=seed)
    trace = [(obs, 0.0, False, False, info)]
    while True:
        action = int(gen.choice(np.flatnonzero(env.action_masks())))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            return trace


def assert_traces_equal(a: list, b: list) -> None:
    assert len(a) == len(b)
    for (obs_a, *rest_a, info_a), (obs_b, *rest_b, info_b) in zip(a, b, strict=True):
        assert np.array_equal(obs_a, obs_b) and rest_a == rest_b
        assert info_a.keys() == info_b.keys()
        for key in info_a:
            assert np.array_equal(info_a[key], info_b[key]), key


# ---------------------------------------------------------------------- Gymnasium API
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_check_env_passes_without_warnings(num_players):
    """check_env's step-determinism check samples its action from the mask of the state
    before its seeded reset; in Ginny-O the legal set depends on the rack, so that action is
    legal after the reset only if the sample was: the action space is seeded to make the
    check the same every run (the env's own determinism is tested below)."""
    env = gymnasium.make(ENV_ID, num_players=num_players)
    env.unwrapped.action_space.seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=True)


def test_make_passes_kwargs_and_the_mask_is_the_learners_legal_mask():
    env = gymnasium.make(ENV_ID, num_players=3, learner_seat=2, max_placements=2, max_turns=30)
    inner = env.unwrapped
    obs, info = env.reset(seed=5)
    assert inner.config.num_players == 3 and inner.config.max_placements == 2
    assert env.observation_space.shape == (7944,) and env.action_space.n == NUM_ACTIONS
    game = inner.game
    assert game.current == 2 and info["learner_seat"] == 2 and info["num_players"] == 3
    assert np.array_equal(inner.action_masks(), game.legal_mask(2).astype(bool))
    assert np.array_equal(info["action_mask"], game.legal_mask(2))
    assert set(info) == set(gv.INFO_KEYS) | EXTRA_INFO_KEYS
    assert np.array_equal(obs, inner.aec.observe("player_2")["observation"])


@pytest.mark.parametrize(
    ("kwargs", "learner_seat"),
    [({"num_players": 2}, 0), ({"num_players": 4, "reward_mode": "score"}, 3)],
)
def test_learner_gets_exactly_what_the_aec_env_gives_its_seat(kwargs, learner_seat):
    """The same game played in the AEC env with the same actions (learner's recorded, the
    opponents' HashPolicy choices): the learner's observations, masks, summed rewards and
    the end agree at every learner decision."""
    env = GinnySingleSeatEnv(opponents=HashPolicy(), learner_seat=learner_seat, **kwargs)
    trace = play_episode(env, seed=17, learner_seed=3)
    aec = gv.raw_env(**kwargs)
    aec.reset(seed=17)
    me = f"player_{learner_seat}"
    policy = HashPolicy()
    gen = np.random.default_rng(3)
    reward = 0.0
    decisions = []  # (obs, summed reward since the previous decision)
    while not aec.game.game_over:
        agent = aec.agent_selection
        seen = aec.observe(agent)
        if agent == me:
            decisions.append((seen["observation"], reward))
            reward = 0.0
            action = int(gen.choice(np.flatnonzero(seen["action_mask"])))
        else:
            action = policy.act(seen["observation"], seen["action_mask"].astype(bool))
        aec.step(action)
        reward += aec.rewards[me]
    assert len(decisions) == len(trace) - 1
    for step, (want_obs, _) in zip(trace[:-1], decisions, strict=True):
        assert np.array_equal(step[0], want_obs)
    got_rewards = [step[1] for step in trace[1:]]
    want_rewards = [r for _, r in decisions[1:]] + [reward]
    assert got_rewards == pytest.approx(want_rewards)
    final = trace[-1]
    assert final[2] != final[3]  # exactly one of terminated / truncated
    assert final[3] == bool(aec.game.truncated)
    assert not final[4]["action_mask"].any()


def test_g17_bot_opponents_get_their_own_view_and_never_the_learners_rack():
    bot = RecordingBot(4)
    env = GinnySingleSeatEnv(num_players=3, opponents=bot, learner_seat=1)
    play_episode(env, seed=8)
    assert len(bot.views) > 20
    for view in bot.views:
        assert view.seat == view.current != 1 and view.acting
        assert view.legal_actions  # the view of a seat to act lists its moves
    # the same bot object played both other seats, each from its own seat
    assert {v.seat for v in bot.views} == {0, 2}


def test_same_seed_same_episode_even_if_global_random_state_is_disturbed():
    def make() -> GinnySingleSeatEnv:
        return GinnySingleSeatEnv(
            num_players=[2, 4],
            learner_seat="random",
            opponents=functools.partial(make_ginny_agent, "greedy"),
        )

    first = play_episode(make(), seed=99)
    random.seed(1)
    np.random.seed(1)
    second = play_episode(make(), seed=99)
    assert_traces_equal(first, second)


def test_random_learner_seat_and_seat_count_are_drawn_per_episode_from_the_reset_seed():
    env = GinnySingleSeatEnv(num_players=[2, 3, 4], learner_seat="random")
    seen = set()
    for seed in range(30):
        _, info = env.reset(seed=seed)
        n = [2, 3, 4][rng.draw_index(3, rng.SEAT, seed, 2)]
        assert info["num_players"] == n == env.config.num_players
        assert info["learner_seat"] == rng.draw_index(n, rng.SEAT, seed)
        assert env.game.current == info["learner_seat"]  # reset ends at the learner's turn
        seen.add((n, info["learner_seat"]))
    assert len(seen) >= 6


def test_an_opponent_list_plays_the_seats_after_the_learner():
    bots = [RecordingBot(1), RecordingBot(2), RecordingBot(3)]
    env = GinnySingleSeatEnv(num_players=4, opponents=bots, learner_seat=2)
    play_episode(env, seed=12)
    assert [{v.seat for v in b.views} for b in bots] == [{3}, {0}, {1}]


# ---------------------------------------------------------------------- errors
def test_illegal_learner_action_raises_and_changes_nothing():
    env = GinnySingleSeatEnv()
    env.reset(seed=2)
    before = env.game.digest()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    for bad in (illegal, -1, NUM_ACTIONS, True, "7", 2.5):
        with pytest.raises(ValueError):
            env.step(bad)
        assert env.game.digest() == before


def test_opponent_illegal_action_raises_value_error_naming_its_seat():
    class Cheat:
        def act(self, observation, mask):
            return int(np.flatnonzero(~mask)[0])

    env = GinnySingleSeatEnv(opponents=Cheat(), learner_seat=0, first_player=1)
    with pytest.raises(ValueError, match="the opponent at seat 1"):
        env.reset(seed=1)


def test_a_factory_that_builds_no_player_is_refused_at_reset_and_changes_nothing():
    env = GinnySingleSeatEnv(opponents=functools.partial(make_ginny_agent, "greedy"))
    env.reset(seed=3)
    before = env.game.digest()
    env._opponents = lambda seed, config: "not a bot"
    with pytest.raises(ValueError, match="returned 'not a bot'"):
        env.reset(seed=4)
    assert env.game.digest() == before


def test_step_and_masks_before_reset_and_after_the_end_need_a_reset():
    env = GinnySingleSeatEnv(max_turns=4)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.action_masks()
    play_episode(env, seed=1)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(0)
    assert not env.action_masks().any()


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"num_players": 5}, "num_players=5"),
        ({"num_players": []}, "num_players=[]"),
        ({"learner_seat": 2}, "learner_seat=2"),
        ({"opponents": "greedy"}, "functools.partial(agents.ginny_o.make_ginny_agent, 'greedy')"),
        ({"opponents": [HashPolicy(), HashPolicy()]}, "opponents has 2 entries"),
        ({"num_players": 3, "opponents": [HashPolicy(), 3]}, "opponents[1]=3"),
        ({"reward_mode": "win"}, "reward_mode"),
        ({"max_turns": 1}, "max_turns=1 is not allowed here"),
        ({"players": 2}, "players= is not a keyword"),
        ({"jokers": 2}, "jokers"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, words):
    with pytest.raises(ValueError) as err:
        GinnySingleSeatEnv(**kwargs)
    assert words in str(err.value)


def test_action_space_samples_legal_actions_and_pickles_as_plain_discrete():
    env = GinnySingleSeatEnv()
    env.reset(seed=6)
    env.action_space.seed(0)
    for _ in range(20):
        assert env.action_masks()[env.action_space.sample()]
    copy = pickle.loads(pickle.dumps(env.action_space))
    assert copy == gymnasium.spaces.Discrete(NUM_ACTIONS)


# ---------------------------------------------------------------------- the sb3 example
def load_example(name: str):
    """Import examples/<name>.py as a module (examples/ is a plain folder, not a package)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE_ARGS = ["--players", "2,3", "--steps", "256", "--n-steps", "64", "--batch-size", "32"]
EXAMPLE_ARGS += ["--opponents", "greedy", "--eval-episodes", "2", "--eval-games", "3"]
EXAMPLE_ARGS += ["--max-turns", "24", "--seed", "1"]


@pytest.fixture(scope="module")
def example():
    pytest.importorskip("sb3_contrib", reason="the sb3 example needs the 'train' extra")
    return load_example("sb3_ginny_maskable")


@pytest.fixture(scope="module")
def example_runs(example, tmp_path_factory):
    runs = []
    for i in range(2):
        log_dir = tmp_path_factory.mktemp(f"ginny_sb3_{i}")
        out = log_dir / "figures.json"
        figures = example.main([*EXAMPLE_ARGS, "--log-dir", str(log_dir), "--out", str(out)])
        runs.append((figures, log_dir, out))
    return runs


def test_example_trains_maskable_ppo_on_make_vec_env_defaults_with_eval_callback(example_runs):
    figures, log_dir, out = example_runs[0]
    assert figures["vec_env"] == "DummyVecEnv"  # make_vec_env's default
    assert figures["render_mode"] == ["rgb_array", "rgb_array"]  # make_vec_env's default
    assert figures["steps"] == 256  # two rollouts of 2 envs x 64 steps
    assert json.loads(out.read_text()) == json.loads(json.dumps(figures))
    logged = np.load(log_dir / "evaluations.npz")
    assert logged["timesteps"].tolist() == figures["eval_timesteps"] == [128, 256]
    assert logged["results"].shape == (2, 2)  # 2 evaluations of 2 episodes
    # "rank" reward: a whole game's return is its rank reward, in [-1, 1]
    assert (np.abs(logged["results"]) <= 1.0).all() and (logged["ep_lengths"] > 0).all()


def test_example_arena_rows_and_same_seed_same_figures(example_runs):
    rows = example_runs[0][0]["arena"]
    assert [(r["num_players"], r["opponents"]) for r in rows] == [(2, "greedy"), (3, "greedy")]
    for r in rows:
        n = r["num_players"]
        assert r["games"] == -(-3 // n) * n  # rounded up to whole rotations
        assert 0.0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1.0
    skip = {"train_seconds", "steps_per_second", "eval_log"}
    a, b = ({k: v for k, v in run[0].items() if k not in skip} for run in example_runs)
    assert a == b


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--opponents", "grandmaster"], "greedy"),
        (["--players", "5"], "num_players"),
        (["--steps", "0"], "--steps must be at least 1"),
        (["--max-turns", "0"], "max_turns"),
    ],
)
def test_example_bad_flags_are_cli_errors(example, capsys, flags, message):
    with pytest.raises(SystemExit) as exit_info:
        example.parse_args(flags)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_render_modes_delegate_to_the_aec_env_with_one_frame_size(capsys):
    frames = []
    for n in (2, 4):
        env = GinnySingleSeatEnv(num_players=n, render_mode="rgb_array")
        env.reset(seed=n)
        frames.append(env.render())
    assert frames[0].dtype == np.uint8 and frames[0].shape == frames[1].shape
    env = GinnySingleSeatEnv(render_mode="ansi")
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.render()
    env.reset(seed=1)
    assert env.render() == env.aec.render()
