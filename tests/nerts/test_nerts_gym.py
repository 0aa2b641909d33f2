"""The Nerts single-seat Gymnasium env (gnome_env/Nerts-v0): API checks, the simultaneous step
(N18), opponents' views (N34, N35), seeding, parity with the Parallel env, errors, and the
sb3-contrib example on a tiny budget."""

from __future__ import annotations

import functools
import importlib.util
import json
import math
import pickle
import random
import warnings
import zlib
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gnome_env  # noqa: F401  (registers gnome_env/Nerts-v0)
from agents.nerts import GreedyNertsAgent, RandomNertsAgent, make_nerts_agent
from gnome_env.nerts import NertsConfig
from gnome_env.nerts import nerts_v0 as nv
from gnome_env.nerts.actions import WAIT
from gnome_env.nerts.encoding import NertsEncoder
from gnome_env.nerts.gym_env import ENV_ID, NertsSingleSeatEnv
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.policies import RandomPolicy
from gnome_env.nerts.render_image import image_size
from gnome_env.nerts.testing import build_game, permute_hidden

EXTRA_INFO_KEYS = {"action_mask", "learner_seat", "num_players"}
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def play_episode(env: NertsSingleSeatEnv, seed: int | None, learner_rng_seed: int = 0) -> list:
    """One episode with a seeded masked random learner: (obs, reward, term, trunc, info)s."""
    gen = np.random.default_rng(learner_rng_seed)
    obs, info = env.reset(seed=seed)
    trace = [(obs, 0.0, False, False, info)]
    while True:
        action = int(gen.choice(np.flatnonzero(env.action_masks())))
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
    for (obs_a, *rest_a, info_a), (obs_b, *rest_b, info_b) in zip(a, b, strict=True):
        assert np.array_equal(obs_a, obs_b)
        assert rest_a == rest_b
        assert_infos_equal(info_a, info_b)


class RecordingBot:
    """A bot (``decide(view)``) that plays a seeded random legal action and records its views."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.views: list[NertsView] = []
        self.choices: list[int] = []

    def decide(self, view: NertsView) -> int:
        self.views.append(view)
        choice = int(self.rng.choice(view.legal_actions))
        self.choices.append(choice)
        return choice


class RecordingPolicy:
    """A policy (``act(observation, mask)``) that plays a seeded random legal action and
    records what it was given."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.given: list[tuple[np.ndarray, np.ndarray]] = []
        self.choices: list[int] = []

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        self.given.append((observation.copy(), mask.copy()))
        choice = int(self.rng.choice(np.flatnonzero(mask)))
        self.choices.append(choice)
        return choice


class HashPolicy:
    """A policy whose choice is a fixed function of every byte of its observation: any
    change to what it is shown (a leak of a hidden card included) changes its choice."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[zlib.crc32(observation.tobytes()) % legal.size])


class HashBot:
    """A bot whose choice is a fixed function of its whole view."""

    def decide(self, view: NertsView) -> int:
        legal = view.legal_actions
        return legal[zlib.crc32(repr(view).encode()) % len(legal)]


# ---------------------------------------------------------------------- Gymnasium API
@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_check_env_passes_without_warnings(num_players):
    env = gymnasium.make(ENV_ID, num_players=num_players, max_steps_per_hand=60)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # every render mode too: the env has a spec
    assert [str(w.message) for w in caught if issubclass(w.category, UserWarning)] == []


def test_check_env_passes_with_bot_opponents_and_game_episodes():
    env = gymnasium.make(
        ENV_ID,
        num_players=3,
        opponents=GreedyNertsAgent,
        episode="game",
        nerts_size=3,
        target_score=8,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped, skip_render_check=True)
    assert [str(w.message) for w in caught if issubclass(w.category, UserWarning)] == []


def test_make_passes_kwargs_and_the_mask_is_the_learners_legal_mask():
    env = gymnasium.make(
        ENV_ID,
        num_players=3,
        opponents=[GreedyNertsAgent, RandomPolicy(3)],
        learner_seat=1,
        reward_mode="score",
        jokers=1,
        work_piles=5,
        max_steps_per_hand=300,
    )
    unwrapped = env.unwrapped
    assert isinstance(unwrapped, NertsSingleSeatEnv)
    assert unwrapped.config == NertsConfig(
        num_players=3, jokers=1, work_piles=5, max_steps_per_hand=300
    )
    par = nv.parallel_env(num_players=3, jokers=1, work_piles=5)
    assert env.observation_space == par.observation_space("player_1")["observation"]
    assert env.action_space == gymnasium.spaces.Discrete(par.n_actions)
    obs, info = env.reset(seed=11)
    steps = 0
    while True:
        game = unwrapped.game
        assert env.observation_space.contains(obs)
        mask = unwrapped.action_masks()
        assert mask.dtype == bool
        assert np.array_equal(mask, game.legal_mask(1).astype(bool))
        assert np.array_equal(info["action_mask"], game.legal_mask(1))
        assert info["learner_seat"] == 1 and info["num_players"] == 3
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[-1]))
        steps += 1
        assert isinstance(reward, float)
        if terminated or truncated:
            break
    assert unwrapped.game.hand_over and info["hand_over"] == 1 and info["step"] == steps
    assert not info["action_mask"].any() and not unwrapped.action_masks().any()
    assert info["hand_scores"].tolist() == unwrapped.game.hand_scores()


# ---------------------------------------------------------------------- the simultaneous step
@pytest.mark.parametrize("num_players", [2, 4])
def test_n18_learner_and_opponents_act_as_one_step_on_the_start_of_step_state(num_players):
    """Each step equals ``NertsGame.step`` on a copy of the start-of-step state with the
    learner's action and each opponent's decision on its own view of that same state."""
    cfg = {"num_players": num_players, "max_steps_per_hand": 400}
    env = NertsSingleSeatEnv(opponents=GreedyNertsAgent, learner_seat=num_players - 1, **cfg)
    env.reset(seed=2)
    gen = np.random.default_rng(0)
    learner = num_players - 1
    changed_by_others = 0
    while True:
        before = env.game.copy()
        action = int(gen.choice(np.flatnonzero(env.action_masks())))
        joint = [
            action
            if seat == learner
            else GreedyNertsAgent(0, before.config).decide(NertsView.from_game(before, seat))
            for seat in range(num_players)
        ]
        expected = before.copy()
        result = expected.step(joint)
        _, _, terminated, truncated, _ = env.step(action)
        assert env.game.digest() == expected.digest()
        assert list(env.game.last_result.actions) == joint
        changed_by_others += any(a != WAIT for s, a in enumerate(joint) if s != learner)
        if terminated or truncated:
            assert result.hand_over
            break
    assert changed_by_others > 10  # the opponents really played


@pytest.mark.parametrize("shape", ["bot", "policy"])
def test_n34_each_opponent_gets_its_own_view_of_the_start_of_step_state(shape):
    players = [RecordingBot(s) if shape == "bot" else RecordingPolicy(s) for s in (1, 2, 3)]
    env = NertsSingleSeatEnv(
        num_players=4, opponents=players, learner_seat=2, max_steps_per_hand=120
    )
    assert env.reset(seed=4)[1]["learner_seat"] == 2
    assert env.seat_policies == {3: players[0], 0: players[1], 1: players[2]}
    gen = np.random.default_rng(1)
    states = []
    while True:
        states.append(env.game.copy())
        _, _, terminated, truncated, _ = env.step(
            int(gen.choice(np.flatnonzero(env.action_masks())))
        )
        if terminated or truncated:
            break
    encoder = NertsEncoder(env.config)
    for player, seat in zip(players, (3, 0, 1), strict=True):
        assert len(player.choices) == len(states)  # asked exactly once per step
        for k, state in enumerate(states):
            view = NertsView.from_game(state, seat)
            if shape == "bot":
                assert player.views[k] == view
            else:
                obs, mask = player.given[k]
                assert np.array_equal(obs, encoder.encode(view))
                assert mask.dtype == bool
                assert np.array_equal(mask, state.legal_mask(seat).astype(bool))
        # its choice is what the step applied for its seat
        applied = [s.last_result.actions[seat] for s in states[1:]]
        assert applied == player.choices[:-1]


def test_n35_opponents_decisions_do_not_depend_on_hidden_cards():
    """Permuting every seat's hidden cards (face-down Nerts cards, stock order, the waste under
    its top; the learner's too) leaves every opponent's decision unchanged."""
    cfg = NertsConfig(num_players=4)
    seats = {
        0: {"nerts": "2C 7D KS 4H", "waste": "9H 4S 5D", "stock": "AH 3C"},
        1: {"waste": "JD QS", "rest": "nerts"},
        2: {"nerts": "TC 3S", "waste": "2H 8S 6C"},
    }
    base = build_game(cfg, seats=seats, foundations=["p3:AC", "p1:AD..3D"], steps=17)
    opponents = [HashPolicy(), HashBot(), functools.partial(make_nerts_agent, "greedy")]
    env = NertsSingleSeatEnv(num_players=4, opponents=opponents, learner_seat=0)
    decisions, digests = set(), set()
    for k in range(12):
        env.reset(seed=0)
        game = base.copy() if k == 0 else permute_hidden(base, np.random.default_rng(k))
        env.parallel.game = game
        digests.add(game.digest())
        env.step(WAIT)
        decisions.add(tuple(env.game.last_result.actions))
    assert len(digests) == 12  # the permutations really moved hidden cards
    assert len(decisions) == 1
    # ... while a public change (another learner position) does change the hash opponents
    env.reset(seed=0)
    env.parallel.game = build_game(cfg, seats={**seats, 3: {"waste": "5C"}}, steps=17)
    env.step(WAIT)
    assert tuple(env.game.last_result.actions) not in decisions


# ---------------------------------------------------------------------- parity, seeding
@pytest.mark.parametrize(
    ("kwargs", "learner_seat"),
    [
        ({"num_players": 2}, 0),
        ({"num_players": 3, "reward_mode": "score"}, 2),
        ({"num_players": 4, "reward_mode": "sparse"}, 1),
        ({"num_players": 2, "max_steps_per_hand": 30}, 1),  # truncated at the N28 cap
        ({"num_players": 3, "episode": "game", "nerts_size": 3, "target_score": 10}, 0),
    ],
)
def test_learner_gets_exactly_what_the_parallel_env_gives_its_seat(kwargs, learner_seat):
    players = [RecordingPolicy(s) for s in range(kwargs["num_players"] - 1)]
    env = NertsSingleSeatEnv(opponents=players, learner_seat=learner_seat, **kwargs)
    trace = play_episode(env, seed=77, learner_rng_seed=learner_seat)
    others = [(learner_seat + 1 + k) % kwargs["num_players"] for k in range(len(players))]

    par = nv.parallel_env(**kwargs)
    me = f"player_{learner_seat}"
    obs, infos = par.reset(seed=77)
    seen = [(obs[me]["observation"], 0.0, False, False, infos[me])]
    gen = np.random.default_rng(learner_seat)
    for t in range(len(trace) - 1):
        joint = {f"player_{s}": p.choices[t] for s, p in zip(others, players, strict=True)}
        joint[me] = int(gen.choice(np.flatnonzero(obs[me]["action_mask"])))
        obs, rew, term, trunc, infos = par.step(joint)
        seen.append((obs[me]["observation"], rew[me], term[me], trunc[me], infos[me]))
    assert not par.agents  # the Parallel env's episode ended at the same step
    assert par.game.digest() == env.game.digest()
    for mine, theirs in zip(trace, seen, strict=True):
        assert np.array_equal(mine[0], theirs[0])
        assert mine[1:4] == theirs[1:4]
        info = {k: v for k, v in mine[4].items() if k not in EXTRA_INFO_KEYS}
        assert_infos_equal(info, theirs[4])
    returns = sum(step[1] for step in trace)
    if kwargs.get("reward_mode", "relative") != "score":  # zero-sum: the hand scores' spread
        scores = trace[-1][4]["hand_scores"]
        others_mean = (scores.sum() - scores[learner_seat]) / (len(scores) - 1)
        if kwargs.get("episode") != "game":
            assert returns == pytest.approx(scores[learner_seat] - others_mean)
    capped = "max_steps_per_hand" in kwargs
    assert trace[-1][3] is capped and trace[-1][2] is (not capped)


@pytest.mark.parametrize("learner_seat", [0, "random"])
def test_same_seed_same_episode_with_seeded_bots_even_if_global_random_state_is_disturbed(
    learner_seat,
):
    def make() -> NertsSingleSeatEnv:
        return NertsSingleSeatEnv(
            num_players=3,
            opponents=[RandomNertsAgent, functools.partial(make_nerts_agent, "random")],
            learner_seat=learner_seat,
            max_steps_per_hand=150,
        )

    traces = []
    for disturb in (1, 2):
        np.random.seed(disturb)
        random.seed(disturb)
        traces.append(play_episode(make(), seed=5, learner_rng_seed=9))
    assert_traces_equal(*traces)
    env = make()
    play_episode(env, seed=5, learner_rng_seed=9)
    assert_traces_equal(traces[0], play_episode(env, seed=5, learner_rng_seed=9))  # same env
    other = play_episode(make(), seed=6, learner_rng_seed=9)
    with pytest.raises(AssertionError):  # a different seed is a different episode
        assert_traces_equal(traces[0], other)


def test_an_opponent_with_a_reseed_hook_is_reseeded_every_reset():
    class Reseeded(RecordingBot):
        def __init__(self) -> None:
            super().__init__()
            self.seeds: list[int] = []

        def reseed(self, seed: int) -> None:
            self.seeds.append(seed)
            self.rng = np.random.default_rng(seed)

    bot = Reseeded()
    env = NertsSingleSeatEnv(num_players=3, opponents=bot, max_steps_per_hand=80)
    first = play_episode(env, seed=3)
    assert_traces_equal(first, play_episode(env, seed=3))
    assert len(bot.seeds) == 2 and bot.seeds[0] == bot.seeds[1]  # once per reset, same seed
    play_episode(env, seed=4)
    assert bot.seeds[2] != bot.seeds[0]


def test_unseeded_resets_deal_the_same_games_as_the_parallel_env():
    env = NertsSingleSeatEnv(num_players=3)
    par = nv.parallel_env(num_players=3)
    env.reset(seed=123)
    par.reset(seed=123)
    for _ in range(3):
        assert env.game.digest() == par.game.digest()
        env.reset()
        par.reset()


def test_random_learner_seat_and_seat_count_are_drawn_per_episode_from_the_reset_seed():
    env = NertsSingleSeatEnv(num_players=[2, 4, 6], learner_seat="random", max_steps_per_hand=5)
    assert env.learner_seat is None
    drawn = {}
    for seed in range(40):
        obs, info = env.reset(seed=seed)
        n = env.game.num_players
        drawn[seed] = (n, env.learner_seat)
        assert env.config.num_players == n == info["num_players"]
        assert 0 <= env.learner_seat < n and info["learner_seat"] == env.learner_seat
        assert sorted(env.seat_policies) == sorted(set(range(n)) - {env.learner_seat})
        assert info["hand_scores"].shape == info["totals"].shape == (6,)  # the largest count
        assert env.observation_space.contains(obs)
    assert {n for n, _ in drawn.values()} == {2, 4, 6}
    assert len({s for _, s in drawn.values()}) > 3
    again = NertsSingleSeatEnv(num_players=[2, 4, 6], learner_seat="random")
    for seed in (0, 7, 39):
        again.reset(seed=seed)
        assert (again.game.num_players, again.learner_seat) == drawn[seed]


def test_seat_count_list_uses_the_first_opponents_and_one_frame_size():
    players = [RecordingBot(s) for s in range(3)]
    env = NertsSingleSeatEnv(
        num_players=[2, 4], opponents=players, render_mode="rgb_array", max_steps_per_hand=5
    )
    sizes, used = set(), {}
    for seed in range(12):
        env.reset(seed=seed)
        n = env.game.num_players
        used[n] = list(env.seat_policies.values())
        sizes.add(env.render().shape)
    assert used == {2: players[:1], 4: players}
    big = image_size(NertsConfig(num_players=4))
    assert sizes == {(*big, 3)}
    assert image_size(NertsConfig(num_players=2)) != big  # the padding was needed


# ---------------------------------------------------------------------- errors
def test_illegal_learner_action_raises_and_changes_nothing():
    bot = RecordingBot()
    env = NertsSingleSeatEnv(num_players=2, opponents=bot)
    env.reset(seed=8)
    mask = env.action_masks()
    before = env.game.digest()
    rng_state = env.np_random.bit_generator.state
    for bad in (int(np.flatnonzero(~mask)[0]), env.n_actions, -1, 1.5, "x", True, None):
        with pytest.raises(ValueError, match="player_0"):
            env.step(bad)
        assert env.game.digest() == before
        assert env.np_random.bit_generator.state == rng_state
    assert bot.choices == []  # no opponent was asked
    legal = int(np.flatnonzero(mask)[-1])
    after_error = env.step(legal)
    fresh = NertsSingleSeatEnv(num_players=2, opponents=RecordingBot())
    fresh.reset(seed=8)
    assert_traces_equal([after_error], [fresh.step(legal)])


def test_opponent_illegal_action_raises_value_error_naming_its_seat_and_changes_nothing():
    class Stubborn:
        def decide(self, view):
            return 3  # recycle: never legal with a full stock and an empty waste

    env = NertsSingleSeatEnv(num_players=3, opponents=[RandomPolicy(0), Stubborn()])
    env.reset(seed=0)
    before = env.game.digest()
    with pytest.raises(ValueError, match=r"opponent at seat 2 .*recycle"):
        env.step(WAIT)
    assert env.game.digest() == before and env.game.steps == 0


def test_a_factory_that_builds_no_player_is_refused_at_reset_and_changes_nothing():
    calls = []

    def fails_second_time(seed: int, config: NertsConfig):
        calls.append(config)
        return "greedy" if len(calls) == 2 else GreedyNertsAgent(seed, config)

    env = NertsSingleSeatEnv(num_players=2, opponents=fails_second_time)
    env.reset(seed=5)
    first = env.game.digest()
    with pytest.raises(ValueError, match=r"seat 1 .*returned 'greedy'"):
        env.reset()
    assert env.game.digest() == first  # still the first game
    env.reset()  # the next game of the stream, as if the failed reset never happened
    fresh = NertsSingleSeatEnv(num_players=2, opponents=GreedyNertsAgent)
    fresh.reset(seed=5)
    fresh.reset()
    assert env.game.digest() == fresh.game.digest() != first
    assert all(c == NertsConfig(num_players=2) for c in calls)  # the episode's rules


def test_step_and_masks_before_reset_and_after_the_end_need_a_reset():
    env = NertsSingleSeatEnv(num_players=2, max_steps_per_hand=3)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(WAIT)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.action_masks()
    assert env.game is None
    play_episode(env, seed=1)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(WAIT)


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"opponents": [RandomPolicy()] * 2}, "opponents"),
        ({"opponents": [RandomPolicy()] * 4}, "opponents"),
        ({"opponents": object()}, "opponents"),
        ({"opponents": [RandomPolicy(), RandomPolicy(), "greedy"]}, r"opponents\[2\]"),
        ({"opponents": "greedy"}, r"functools.partial\(agents.nerts.make_nerts_agent, 'greedy'\)"),
        ({"learner_seat": 4}, "learner_seat"),
        ({"learner_seat": -1}, "learner_seat"),
        ({"learner_seat": True}, "learner_seat"),
        ({"learner_seat": "first"}, "learner_seat"),
        ({"reward_mode": "win"}, "reward_mode"),
        ({"episode": "round"}, "episode"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"num_players": [2, 7]}, "num_players"),
        ({"num_players": []}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": [2, 4], "learner_seat": 2}, "learner_seat"),
        ({"num_players": [2, 4], "opponents": [RandomPolicy()]}, "opponents"),
        ({"jokers": 3}, "jokers"),
        ({"max_steps_per_hand": 0}, "max_steps_per_hand"),
        ({"colour": "red"}, "colour"),
        ({"players": 3}, "players"),
    ],
)
def test_bad_arguments_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        NertsSingleSeatEnv(**kwargs)


def test_bad_arguments_and_seeds_raise_through_gymnasium_make_too():
    with pytest.raises(ValueError, match="learner_seat"):
        gymnasium.make(ENV_ID, num_players=2, learner_seat=2)
    env = gymnasium.make(ENV_ID, num_players=2)
    for bad in (-1, 2**63, 1.5):
        with pytest.raises(ValueError, match="seed"):
            env.reset(seed=bad)


# ---------------------------------------------------------------------- render, spaces
def test_render_modes_delegate_to_the_parallel_env(capsys):
    env = NertsSingleSeatEnv(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    assert env.render() == env.game.render()
    rgb = NertsSingleSeatEnv(num_players=3, render_mode="rgb_array")
    rgb.reset(seed=0)
    frame = rgb.render()
    assert frame.dtype == np.uint8 and frame.shape == (*image_size(rgb.config), 3)
    human = NertsSingleSeatEnv(num_players=3, render_mode="human")
    capsys.readouterr()
    human.reset(seed=0)
    assert "p2:" in capsys.readouterr().out  # printed at reset
    assert human.render() is None
    silent = NertsSingleSeatEnv(num_players=3)
    silent.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert silent.render() is None


def test_action_space_samples_legal_actions_and_pickles_as_plain_discrete():
    env = NertsSingleSeatEnv(num_players=2, max_steps_per_hand=200)
    env.reset(seed=0)
    env.action_space.seed(0)
    done = False
    while not done:
        action = env.action_space.sample()
        assert env.action_masks()[action]
        _, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    copy = pickle.loads(pickle.dumps(env.action_space))
    assert copy == gymnasium.spaces.Discrete(env.n_actions)
    assert {int(copy.sample()) for _ in range(5000)} == set(range(env.n_actions))


# ---------------------------------------------------------------------- the sb3 example
def load_example(name: str):
    """Import examples/<name>.py as a module (examples/ is a plain folder, not a package)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EXAMPLE_ARGS = ["--players", "2,3", "--steps", "256", "--n-steps", "64", "--batch-size", "32"]
EXAMPLE_ARGS += ["--opponents", "greedy", "--eval-episodes", "2", "--eval-games", "3"]
EXAMPLE_ARGS += ["--max-steps-per-hand", "150", "--seed", "1"]


@pytest.fixture(scope="module")
def example():
    pytest.importorskip("sb3_contrib", reason="the sb3 example needs the 'train' extra")
    return load_example("sb3_nerts_maskable")


@pytest.fixture(scope="module")
def example_runs(example, tmp_path_factory):
    runs = []
    for i, extra in enumerate(([], ["--variance-reduction"])):  # the second with the correction
        log_dir = tmp_path_factory.mktemp(f"nerts_sb3_{i}")
        out = log_dir / "figures.json"
        argv = [*EXAMPLE_ARGS, *extra, "--log-dir", str(log_dir), "--out", str(out)]
        runs.append((example.main(argv), log_dir, out))
    return runs


def test_example_trains_maskable_ppo_on_make_vec_env_defaults(example_runs):
    figures, _, out = example_runs[0]
    assert figures["vec_env"] == "DummyVecEnv"  # make_vec_env's default
    assert figures["render_mode"] == ["rgb_array", "rgb_array"]  # make_vec_env's default
    assert figures["steps"] == 256  # two rollouts of 2 envs x 64 steps
    assert json.loads(out.read_text()) == json.loads(json.dumps(figures))


def test_example_eval_callback_logged_whole_hands(example_runs):
    figures, log_dir, _ = example_runs[0]
    logged = np.load(log_dir / "evaluations.npz")
    assert logged["timesteps"].tolist() == figures["eval_timesteps"] == [128, 256]
    assert logged["results"].shape == (2, 2)  # 2 evaluations of 2 episodes
    assert ((logged["ep_lengths"] > 0) & (logged["ep_lengths"] <= 150)).all()  # one hand
    # "relative": a hand's return is S_i - mean_j S_j, within the N30 range's spread
    cfg = NertsConfig()
    low, high = cfg.score_range
    assert (np.abs(logged["results"]) <= high - low).all()
    assert figures["eval_mean_rewards"] == pytest.approx(logged["results"].mean(axis=1).tolist())


def test_example_arena_rows(example_runs):
    rows = example_runs[0][0]["arena"]
    assert [(r["num_players"], r["opponents"]) for r in rows] == [(2, "greedy"), (3, "greedy")]
    for r in rows:
        n = r["num_players"]
        assert r["games"] == math.ceil(3 / n) * n  # rounded up to whole rotations
        assert 0.0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1.0
        assert r["equal_share"] == pytest.approx(1 / n)
        low, high = NertsConfig().score_range
        assert low <= r["mean_hand_score"] <= high


CORRECTED = ("corrected_win_rate", "corrected_ci_low", "corrected_ci_high", "variance_reduction")


def test_example_same_seed_same_figures(example_runs):
    # the second run adds --variance-reduction: the plain figures are the same
    skip = {"train_seconds", "steps_per_second", "eval_log"}
    a, b = ({k: v for k, v in run[0].items() if k not in skip} for run in example_runs)
    b["arena"] = [{k: v for k, v in row.items() if k not in CORRECTED} for row in b["arena"]]
    assert a == b


def test_example_variance_reduction_adds_the_corrected_figures(example_runs):
    plain, corrected = example_runs[0][0]["arena"], example_runs[1][0]["arena"]
    assert not any(key in row for row in plain for key in CORRECTED)
    for row in corrected:
        assert row["corrected_ci_low"] <= row["corrected_win_rate"] <= row["corrected_ci_high"]
        factor = row["variance_reduction"]
        assert factor is None or factor >= 0.0
    assert corrected[1]["variance_reduction"] is None  # 3 games at 3 seats: one deal
    out = example_runs[1][2]
    assert json.loads(out.read_text())["arena"] == corrected


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--opponents", "grandmaster"], "known Nerts specs: expert, greedy"),
        (["--players", "7"], "num_players"),
        (["--players", "two"], "invalid literal"),
        (["--steps", "0"], "--steps must be at least 1"),
        (["--vec-env", "ray"], "invalid choice"),
    ],
)
def test_example_bad_flags_are_cli_errors(example, capsys, flags, message):
    with pytest.raises(SystemExit) as exit_info:
        example.parse_args(flags)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
