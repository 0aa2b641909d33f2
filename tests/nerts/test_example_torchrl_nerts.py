"""examples/torchrl_nerts.py: TorchRL's PettingZoo wrapper on the Nerts Parallel env, a
masked policy, PPO on the collected hands, and the policy in the Nerts arena.

Needs TorchRL; ``.ci/run`` runs this file in its own virtual environment (``.venv-torchrl``).
"""

from __future__ import annotations

import importlib.util
import math
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torchrl", reason="TorchRL is not installed (see .venv-torchrl in .ci/run)")
import torch
from tensordict import TensorDict
from torchrl.envs.utils import ExplorationType, check_env_specs, set_exploration_type

from gnome_env.nerts import nerts_v0

PATH = Path(__file__).resolve().parents[2] / "examples" / "torchrl_nerts.py"
# Seed 0, 3 seats, hands capped at 60 steps: 150 steps per rollout end two hands.
ARGV = ["--players", "3", "--hand-steps", "60", "--steps", "150", "--iters", "2"]
ARGV += ["--hidden", "32", "--epochs", "2", "--seed", "0"]
EVAL = ["--eval-games", "4"]  # rounded up to 6 games per opponent


def load_example():
    spec = importlib.util.spec_from_file_location("torchrl_nerts", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def example():
    return load_example()


@pytest.fixture(scope="module")
def one_thread():
    # Tiny batches: extra intra-op threads only contend for the shared CPUs.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def run(example, one_thread):
    return example.main(ARGV + EVAL)


@pytest.mark.parametrize("players", [2, 6])
def test_wrapper_groups_every_seat_with_the_envs_spaces(example, players):
    env = example.make_env(players, 50)
    check_env_specs(env)  # raises on a spec mismatch
    seats = [f"player_{i}" for i in range(players)]
    assert env.group_map == {"player": seats}
    raw = nerts_v0.parallel_env(num_players=players)
    assert env.observation_spec[example.OBS].shape == (
        players,
        *raw.observation_space("player_0")["observation"].shape,
    )
    assert env.full_action_spec["player", "action"].space.n == raw.action_space("player_0").n


def test_torchrl_data_is_the_envs_own_play(example, one_thread):
    """Replaying the rollout's actions in a bare Parallel env gives the same observations,
    masks, rewards and hand ends, across the automatic resets (set_seed resets with the
    seed, the rollout's own reset and every later one draw the seed stream's next game)."""
    torch.manual_seed(3)
    env = example.make_env(3, 40)
    env.set_seed(7)
    actor = example.make_actor(env.observation_spec[example.OBS].shape[-1], 397, 16)
    with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
        data = env.rollout(100, actor, break_when_any_done=False)
    bare = nerts_v0.parallel_env(num_players=3, max_steps_per_hand=40)
    bare.reset(seed=7)
    obs, _ = bare.reset()
    seats = bare.possible_agents
    ends = 0
    for t in range(100):
        assert np.array_equal(
            np.stack([obs[a]["observation"] for a in seats]), data[example.OBS][t].numpy()
        )
        mask = np.stack([obs[a]["action_mask"] for a in seats]).astype(bool)
        assert np.array_equal(mask, data[example.MASK][t].numpy())
        actions = data["player", "action"][t].tolist()
        assert mask[np.arange(3), actions].all(), "a masked-out action was sampled"
        obs, reward, term, trunc, _ = bare.step(dict(zip(seats, actions, strict=True)))
        assert np.allclose(
            [reward[a] for a in seats], data["next", "player", "reward"][t].squeeze(-1).numpy()
        )
        done = all(term[a] or trunc[a] for a in seats)
        assert done == bool(data["next", "done"][t])
        if done:
            ends += 1
            obs, _ = bare.reset()
    assert ends == 2, "the 40-step cap ends two hands in 100 steps"


def test_returns_to_hand_end_by_hand():
    """Steps 0-2 are one hand (ends at step 2), steps 3-4 a hand still running."""
    module = load_example()
    reward = torch.tensor([[1.0, -1.0], [2.0, 0.0], [3.0, 1.0], [4.0, 0.0], [5.0, 2.0]])
    done = torch.tensor([False, False, True, False, False])
    data = TensorDict(
        {"next": {"player": {"reward": reward.unsqueeze(-1)}, "done": done.unsqueeze(-1)}},
        batch_size=[5],
    )
    ret = module.returns_to_hand_end(data, gamma=0.5)
    # seat 0: 3; 2 + 0.5*3 = 3.5; 1 + 0.5*3.5 = 2.75.  seat 1: 1; 0 + 0.5; -1 + 0.25.
    assert torch.allclose(ret[:3], torch.tensor([[2.75, -0.75], [3.5, 0.5], [3.0, 1.0]]))
    assert ret[3:].isnan().all()


def test_rollout_actions_legal_and_every_seat_acts(run):
    data = run["rollout"]
    assert data["player", "mask"].all(), "Parallel env: every seat acts at every step"
    action = data["player", "action"]  # [T, 3]
    legal = data["player", "action_mask"]  # [T, 3, 397]
    assert legal.gather(-1, action.unsqueeze(-1)).all(), "a masked-out action was taken"
    ends = data["next", "done"].squeeze(-1)
    assert int(ends.sum()) == 2
    reward = data["next", "player", "reward"].squeeze(-1)
    # reward_mode="relative": r_i = dS_i - mean_{j != i} dS_j, so sum_i r_i = 0 every step
    assert torch.allclose(reward.sum(-1), torch.zeros(len(reward)), atol=1e-4)
    assert (reward != 0).any()


def test_ppo_used_the_finished_hands(run):
    # Two hands of 60 steps end in each 150-step rollout: 120 steps x 3 seats decisions.
    assert run["used"] == [360, 360]


def test_ppo_update_raises_the_likelihood_of_advantaged_actions(example, one_thread):
    """After the update, sum(advantage x log-prob) of the batch's actions is higher: the
    policy moved towards the actions that did better than average in their hand."""
    from torchrl.objectives import ClipPPOLoss

    torch.manual_seed(1)
    env = example.make_env(2, 30)
    env.set_seed(4)
    actor = example.make_actor(env.observation_spec[example.OBS].shape[-1], 397, 16)
    with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
        data = env.rollout(90, actor, break_when_any_done=False)
    adv = example.returns_to_hand_end(data, 1.0)
    used = ~adv.isnan()
    a = adv[used]
    a = (a - a.mean()) / (a.std() + 1e-8)

    def objective() -> float:
        with torch.no_grad():
            dist = actor.get_dist(TensorDict({"player": data["player"][used]}, batch_size=[]))
            return float((a * dist.log_prob(data["player", "action"][used])).sum())

    before = objective()
    loss = ClipPPOLoss(actor, critic_network=None, entropy_coeff=0.0)
    loss.set_keys(advantage=("player", "advantage"))
    optim = torch.optim.Adam(loss.parameters(), lr=1e-3)
    assert example.ppo_update(loss, optim, data, 1.0, epochs=3) == int(used.sum()) == 180
    assert objective() > before


def test_arena_figures_and_legal_arena_games(run):
    n = 3
    assert run["chance"] == pytest.approx(1 / n)
    for bot in ("random", "greedy"):
        fig = run[bot]
        low, high = fig["ci"]
        assert 0.0 <= low <= fig["win_rate"] <= high <= 1.0
        assert fig["games"] == math.ceil(4 / n) * n == 6
        for rec in fig["records"]:  # an illegal id would have raised in the engine
            assert rec["hands"] == 1 and rec["steps"] <= 60


def test_same_seed_same_rollout(run, example, one_thread):
    again = example.main([*ARGV, "--eval-games", "1"])
    assert torch.equal(again["rollout"]["player", "action"], run["rollout"]["player", "action"])
    assert torch.equal(
        again["rollout"]["next", "player", "reward"], run["rollout"]["next", "player", "reward"]
    )


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--players", "7"], "--players must be from 2 to 6, got 7"),
        (["--steps", "0"], "--steps must be >= 1, got 0"),
        (["--gamma", "0"], r"--gamma must be in \(0, 1\], got 0.0"),
    ],
)
def test_bad_flags_exit_with_a_message(example, capsys, flags, message):
    with pytest.raises(SystemExit) as info:
        example.main(flags)
    assert info.value.code == 2
    assert re.search(message, capsys.readouterr().err)
