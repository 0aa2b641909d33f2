"""examples/torchrl_pettingzoo.py: TorchRL's PettingZoo wrapper, masked policy, PPO step, arena."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

pytest.importorskip("torchrl", reason="TorchRL is not installed (see .venv-torchrl in .ci/run)")
import torch
from torchrl.envs import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

from gnome_env.gnoming import gnoming_a_round_v1

PATH = Path(__file__).resolve().parents[2] / "examples" / "torchrl_pettingzoo.py"
# Seed 0 with 700 steps: the first game (4 seats) ends inside the rollout, the next has 5.
ARGV = ["--players", "3", "4", "5", "--steps", "700", "--iters", "2", "--seed", "0"]
EVAL = ["--eval-players", "4", "--eval-games", "5"]  # rounded up to 8 games


def load_example():
    spec = importlib.util.spec_from_file_location("torchrl_pettingzoo", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def one_thread():
    # Tiny batches: extra intra-op threads only contend for the shared CPUs (10x slower).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def run(one_thread):
    return load_example().main(ARGV + EVAL)


def test_check_env_specs_with_seat_count_list():
    env = PettingZooWrapper(env=gnoming_a_round_v1.env(num_players=[3, 4, 5]), use_mask=True)
    check_env_specs(env)  # raises on a spec mismatch
    assert len(env.group_map) == 5  # one group per possible agent: the largest count


def test_rollout_actions_legal_and_absent_seats_zero(run):
    data = run["rollout"]
    acting = data["agents", "mask"]  # [T, 5]
    assert (acting.sum(-1) == 1).all(), "AEC: exactly one seat acts at every step"
    seat = acting.long().argmax(-1)
    steps = torch.arange(len(seat))
    action = data["agents", "action"][steps, seat]
    legal = data["agents", "action_mask"][steps, seat]
    assert legal[steps, action].all(), "a masked-out action was taken"
    assert (legal.sum(-1) >= 1).all()

    seats = data["agents", "info", "num_players"].amax(-1).long()  # the game's seat count
    absent = torch.arange(5)[None, :] >= seats[:, None]  # [T, 5]
    assert absent.any(), "the rollout must contain games with absent seats"
    obs = data["agents", "observation", "observation"]
    assert (obs[absent] == 0).all() and (obs[~absent].abs().sum(-1) > 0).all()
    assert not acting[absent].any()
    # The reward of a finished game goes only to the seats in it.
    reward = data["next", "agents", "reward"].squeeze(-1)
    assert (reward[absent] == 0).all()
    ends = data["next", "done"].squeeze(-1)
    assert ends.any(), "a game must end inside the rollout"
    assert torch.allclose(reward[ends].sum(-1), torch.zeros(int(ends.sum())), atol=1e-5)
    assert (reward[~ends] == 0).all(), "reward_mode='win' pays only at game end"
    assert len(set(seats.tolist())) >= 2, "several seat counts expected in the rollout"
    assert set(seats.tolist()) <= {3, 4, 5}


def test_arena_figures(run):
    n = 4
    assert run["chance"] == pytest.approx(1 / n)
    for bot in ("random", "greedy"):
        fig = run[bot]
        low, high = fig["ci"]
        assert 0.0 <= low <= fig["win_rate"] <= high <= 1.0
        assert fig["games"] == math.ceil(5 / n) * n == 8


def test_same_seed_same_rollout(run, one_thread):
    again = load_example().main([*ARGV, "--eval-players", "3", "--eval-games", "1"])
    assert torch.equal(again["rollout"]["agents", "action"], run["rollout"]["agents", "action"])
    assert torch.equal(
        again["rollout"]["next", "agents", "reward"], run["rollout"]["next", "agents", "reward"]
    )
