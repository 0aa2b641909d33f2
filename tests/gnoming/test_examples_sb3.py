"""The stable-baselines3 examples (examples/sb3_*.py) on tiny budgets: what they report holds."""

from __future__ import annotations

import importlib.util
import math
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the sb3 examples need the 'train' extra (sb3-contrib)")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BOTS = ("random", "greedy", "expert")


def load_example(name: str):
    """Import examples/<name>.py as a module (examples/ is a plain folder, not a package)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def without_timings(figures: dict) -> dict:
    skip = {"train_seconds", "steps_per_second", "eval_log"}
    return {k: v for k, v in figures.items() if k not in skip}


def check_arena_rows(rows: list[dict], expected: list[tuple[int, str]], games: int) -> None:
    assert [(r["num_players"], r["opponents"]) for r in rows] == expected
    for r in rows:
        n = r["num_players"]
        assert r["games"] == math.ceil(games / n) * n  # rounded up to whole rotations
        assert 0.0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1.0
        assert r["equal_share"] == pytest.approx(1 / n)
        assert r["mean_round_score"] > 0  # round scores of a real game, not a default


# ---------------------------------------------------------------- make_vec_env + SubprocVecEnv
VEC_ARGS = ["--players", "3,5", "--steps", "256", "--n-steps", "64", "--seed", "1"]
VEC_ARGS += ["--opponents", "random", "--eval-games", "6"]


@pytest.fixture(scope="module")
def vec_runs(tmp_path_factory):
    # SubprocVecEnv's workers fork from multiprocessing's fork server; have it import the
    # heavy modules once, not every worker (the example run as a script gets this for free:
    # the fork server preloads __main__). Only takes effect if no fork server runs yet.
    multiprocessing.set_forkserver_preload(
        ["stable_baselines3.common.env_util", "agents.gnoming.arena"]
    )
    example = load_example("sb3_maskable_vec_env")
    runs = []
    for i, extra in enumerate(([], ["--variance-reduction"])):  # the second with the correction
        log_dir = tmp_path_factory.mktemp(f"vec{i}")
        out = log_dir / "figures.json"
        argv = [*VEC_ARGS, *extra, "--log-dir", str(log_dir), "--out", str(out)]
        runs.append((example.main(argv), log_dir, out))
    return runs


def test_vec_env_example_uses_subproc_workers_with_rgb_array(vec_runs):
    figures, _, _ = vec_runs[0]
    assert figures["vec_env"] == "SubprocVecEnv"
    assert figures["render_mode"] == ["rgb_array", "rgb_array"]  # make_vec_env's default
    assert figures["steps"] >= 256 and figures["steps"] % (2 * 64) == 0  # whole rollouts


def test_vec_env_example_eval_callback_logged(vec_runs):
    figures, log_dir, _ = vec_runs[0]
    logged = np.load(log_dir / "evaluations.npz")
    assert len(figures["eval_timesteps"]) >= 2
    assert logged["timesteps"].tolist() == figures["eval_timesteps"]
    assert logged["results"].shape == (len(figures["eval_timesteps"]), 5)  # 5 episodes each
    assert (logged["ep_lengths"] > 0).all()
    # reward_mode "win": a game's return is a share of +1 or of -1
    assert (np.abs(logged["results"]) <= 1.0 + 1e-6).all()


def test_vec_env_example_arena_and_json(vec_runs):
    figures, _, out = vec_runs[0]
    check_arena_rows(figures["arena"], [(3, "random"), (5, "random")], games=6)
    import json

    assert json.loads(out.read_text()) == json.loads(json.dumps(figures))


CORRECTED = ("corrected_win_rate", "corrected_ci_low", "corrected_ci_high", "variance_reduction")


def without_corrected(figures: dict) -> dict:
    arena = [{k: v for k, v in row.items() if k not in CORRECTED} for row in figures["arena"]]
    return {**figures, "arena": arena}


def test_vec_env_example_same_seed_same_figures(vec_runs):
    # the second run adds --variance-reduction: the plain figures are the same
    plain, corrected = vec_runs[0][0], vec_runs[1][0]
    assert without_timings(plain) == without_corrected(without_timings(corrected))


def test_vec_env_example_variance_reduction_adds_the_corrected_figures(vec_runs):
    plain, corrected = vec_runs[0][0], vec_runs[1][0]
    assert not any(key in row for row in plain["arena"] for key in CORRECTED)
    for row in corrected["arena"]:
        assert row["corrected_ci_low"] <= row["corrected_win_rate"] <= row["corrected_ci_high"]
        factor = row["variance_reduction"]
        assert factor is None or factor >= 0.0
    import json

    out = vec_runs[1][2]
    assert json.loads(out.read_text()) == json.loads(json.dumps(corrected))


# ---------------------------------------------------------------- self-play on the AEC env
SELF_ARGS = ["--players", "4", "--steps", "300", "--n-steps", "64", "--seed", "2"]
SELF_ARGS += ["--eval-games", "4"]


@pytest.fixture(scope="module")
def selfplay():
    return load_example("sb3_selfplay_aec")


@pytest.fixture(scope="module")
def selfplay_runs(selfplay):
    return [selfplay.main(SELF_ARGS) for _ in range(2)]


def test_selfplay_example_trains_and_evaluates_against_three_bots(selfplay_runs):
    figures = selfplay_runs[0]
    assert figures["steps"] == 320  # 5 rollouts of 64; the wrapper raises on an illegal action
    check_arena_rows(figures["arena"], [(4, bot) for bot in BOTS], games=4)


def test_selfplay_example_same_seed_same_figures(selfplay_runs):
    assert without_timings(selfplay_runs[0]) == without_timings(selfplay_runs[1])


def play_one_game(env, seed: int):
    """A game of random legal actions through the wrapper; the per-step record."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    record = []
    done = False
    while not done:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        agent = env.aec.agent_selection
        closing = env.aec.terminations[agent] or env.aec.truncations[agent]
        action = int(rng.choice(np.flatnonzero(mask)))
        _, reward, terminated, truncated, _ = env.step(action)
        record.append((agent, closing, mask.sum(), reward))
        done = terminated or truncated
    return record


@pytest.mark.parametrize("num_players", [3, [4, 6]])
def test_selfplay_wrapper_rewards_add_up_per_seat(selfplay, num_players):
    env = selfplay.SelfPlayEnv(num_players=num_players, reward_mode="score")
    for seed in range(2):
        record = play_one_game(env, seed)
        totals = env.aec.unwrapped.last_round["totals"]
        seats = list(totals)
        # one closing step per seat at the end, each with a single allowed action
        closing = [(agent, allowed) for agent, c, allowed, _ in record if c]
        assert sorted(a for a, _ in closing) == seats
        assert all(allowed == 1 for _, allowed in closing)
        assert not any(c for _, c, _, _ in record[: -len(seats)])
        # "score": a seat earns (mean of the others' round scores - its own) / 10 per round
        for seat in seats:
            others = np.mean([totals[s] for s in seats if s != seat])
            expected = (others - totals[seat]) / 10
            handed = sum(r for agent, _, _, r in record if agent == seat)
            assert handed == pytest.approx(expected, abs=1e-9)
            assert env.returns[seat] == pytest.approx(expected, abs=1e-9)


def test_selfplay_wrapper_win_rewards_and_illegal_action(selfplay):
    env = selfplay.SelfPlayEnv(num_players=5, reward_mode="win")
    play_one_game(env, 7)
    winners = set(env.aec.unwrapped.last_round["winners"])
    assert winners
    for seat, handed in env.returns.items():
        expected = 1 / len(winners) if seat in winners else -1 / (5 - len(winners))
        assert handed == pytest.approx(expected)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    agent = env.aec.agent_selection
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    assert env.aec.agent_selection == agent and not env.aec.terminations[agent]
