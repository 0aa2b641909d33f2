"""examples/torchrl_ginny_o.py: TorchRL's PettingZoo wrapper on the Ginny-O AEC env, a masked
policy shared by the seats, PPO on the finished games, and the policy in the Ginny-O arena.

Needs TorchRL; ``.ci/run`` runs this file in its own virtual environment (``.venv-torchrl``).
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torchrl", reason="TorchRL is not installed (see .venv-torchrl in .ci/run)")
import torch
from tensordict import TensorDict
from torchrl.envs.utils import ExplorationType, check_env_specs, set_exploration_type

from gnome_env.ginny_o import GinnyGame, ginny_o_v0
from gnome_env.ginny_o.information import GinnyView

PATH = Path(__file__).resolve().parents[2] / "examples" / "torchrl_ginny_o.py"
# Seed 0, 2 seats, games capped at 8 turns: every 120-step rollout ends games.
ARGV = ["--players", "2", "--max-turns", "8", "--steps", "120", "--iters", "2"]
ARGV += ["--hidden", "32", "--epochs", "2", "--seed", "0"]
EVAL = ["--eval-games", "3"]  # rounded up to 4 games per opponent
OBS_SIZE, NUM_ACTIONS = 7944, 1864


def load_example():
    spec = importlib.util.spec_from_file_location("torchrl_ginny_o", PATH)
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


@pytest.mark.parametrize("players", [2, 4])
def test_wrapper_groups_every_seat_with_the_envs_spaces(example, players):
    env = example.make_env(players, 12)
    check_env_specs(env)  # raises on a spec mismatch
    assert env.group_map == {"agents": [f"player_{i}" for i in range(players)]}
    assert env.observation_spec[example.OBS].shape == (players, OBS_SIZE)
    assert env.observation_spec[example.MASK].shape == (players, NUM_ACTIONS)
    assert env.full_action_spec["agents", "action"].space.n == NUM_ACTIONS
    td = env.reset()
    acting = td[example.ACTING]
    assert int(acting.sum()) == 1, "an AEC env: one seat acts"
    seat = int(acting.nonzero())
    assert f"player_{seat}" == env.agent_selection
    legal = td[example.MASK]
    assert 0 < int(legal[seat].sum()) < NUM_ACTIONS
    assert legal[~acting].all(), "the wrapper fills the other seats' rows with True"


def test_torchrl_data_is_the_envs_own_play(example, one_thread):
    """Replaying the rollout's actions in a bare AEC env gives the same observations (every
    seat's), masks, acting seats, rewards and game ends, across the automatic resets
    (set_seed resets with the seed, the rollout's own reset and every later one draw the
    seed stream's next game); each game's rewards add up to the score mode's total."""
    torch.manual_seed(3)
    env = example.make_env(3, 9)
    env.set_seed(7)
    actor = example.make_actor(OBS_SIZE, NUM_ACTIONS, 16)
    with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
        data = env.rollout(100, actor, break_when_any_done=False)
    bare = ginny_o_v0.env(num_players=3, max_turns=9, reward_mode="score")
    bare.reset(seed=7)
    bare.reset()
    seats = bare.possible_agents
    game_rewards = np.zeros(3)
    ends = []
    for t in range(100):
        obs = {a: bare.observe(a) for a in seats}
        assert np.array_equal(
            np.stack([obs[a]["observation"] for a in seats]), data[example.OBS][t].numpy()
        )
        seat = seats.index(bare.agent_selection)
        assert data[example.ACTING][t].tolist() == [s == seat for s in range(3)]
        mask = data[example.MASK][t].numpy()
        assert np.array_equal(obs[seats[seat]]["action_mask"].astype(bool), mask[seat])
        assert np.delete(mask, seat, axis=0).all()
        action = int(data["agents", "action"][t, seat])
        assert mask[seat, action], "a masked-out action was sampled"
        bare.step(action)
        reward = np.array([bare.rewards[a] for a in seats])
        assert np.allclose(reward, data["next", "agents", "reward"][t].squeeze(-1).numpy())
        game_rewards += reward
        done = all(bare.terminations[a] or bare.truncations[a] for a in seats)
        assert done == bool(data["next", "done"][t])
        assert bool(data["next", "truncated"][t]) == all(bare.truncations[a] for a in seats)
        nxt = np.stack([bare.observe(a)["observation"] for a in seats])
        assert np.array_equal(nxt, data["next"][example.OBS][t].numpy())
        if done:
            # TorchRL marks the seat after the last mover as acting, with the env's all-zero
            # mask of a finished game: the rollout resets before the policy reads it.
            after = (seat + 1) % 3
            assert data["next"][example.ACTING][t].tolist() == [s == after for s in range(3)]
            assert not data["next"][example.MASK][t, after].any()
            final = np.array([bare.infos[a]["final_score"] for a in seats], dtype=float)
            others = (final.sum() - final) / 2
            assert np.allclose(game_rewards, (final - others) / 100, atol=1e-5)
            ends.append(t)
            game_rewards[:] = 0
            bare.reset()
    assert len(ends) == 3, f"the 9-turn cap ends three games in 100 steps, got {ends}"


def test_returns_to_game_end_by_game(example):
    """Steps 0-2 are one game (ends at step 2), steps 3-4 a game still running."""
    reward = torch.tensor([[1.0, -1.0], [2.0, 0.0], [3.0, 1.0], [4.0, 0.0], [5.0, 2.0]])
    done = torch.tensor([False, False, True, False, False])
    data = TensorDict(
        {"next": {"agents": {"reward": reward.unsqueeze(-1)}, "done": done.unsqueeze(-1)}},
        batch_size=[5],
    )
    ret = example.returns_to_game_end(data)
    assert torch.allclose(ret[:3], torch.tensor([[6.0, 0.0], [5.0, 1.0], [3.0, 1.0]]))
    assert ret[3:].isnan().all()


def test_rollout_one_seat_acts_legally_and_rewards_are_zero_sum(run):
    data = run["rollout"]
    acting = data["agents", "mask"]  # [T, 2]
    assert (acting.sum(-1) == 1).all(), "an AEC env: exactly one seat acts at every step"
    action = data["agents", "action"][acting]  # the acting seats' actions, [T]
    legal = data["agents", "action_mask"][acting]  # their masks, [T, 1864]
    assert legal.gather(-1, action.unsqueeze(-1)).all(), "a masked-out action was taken"
    assert (legal.sum(-1) < NUM_ACTIONS).all(), "an acting seat's row is the env's own mask"
    assert int(data["next", "done"].sum()) >= 2
    reward = data["next", "agents", "reward"].squeeze(-1)
    # reward_mode="score": r_i = (d_i - mean_{j != i} d_j) / 100, so sum_i r_i = 0 every step
    assert torch.allclose(reward.sum(-1), torch.zeros(len(reward)), atol=1e-5)
    assert (reward != 0).any()


def test_ppo_used_the_finished_games(run):
    """The last update used exactly the steps up to the rollout's last game end (one acting
    seat per step)."""
    done = run["rollout"]["next", "done"].squeeze(-1)
    last_end = int(done.nonzero().max())
    assert run["used"][-1] == last_end + 1
    assert len(run["used"]) == 2 and all(0 < u <= 120 for u in run["used"])


def test_ppo_update_changes_the_parameters_towards_advantaged_actions(example, one_thread):
    """The update moves every layer's weights, and after it sum(advantage x log-prob) of the
    batch's actions is higher: the policy moved towards the actions that did better."""
    from torchrl.objectives import ClipPPOLoss

    torch.manual_seed(1)
    env = example.make_env(2, 8)
    env.set_seed(4)
    actor = example.make_actor(OBS_SIZE, NUM_ACTIONS, 16)
    with torch.no_grad(), set_exploration_type(ExplorationType.RANDOM):
        data = env.rollout(90, actor, break_when_any_done=False)
    adv = example.returns_to_game_end(data)
    used = data["agents", "mask"] & ~adv.isnan()
    a = adv[used]
    a = (a - a.mean()) / (a.std() + 1e-8)

    def objective() -> float:
        with torch.no_grad():
            dist = actor.get_dist(TensorDict({"agents": data["agents"][used]}, batch_size=[]))
            return float((a * dist.log_prob(data["agents", "action"][used])).sum())

    before_params = [p.detach().clone() for p in actor.parameters()]
    before = objective()
    loss = ClipPPOLoss(actor, critic_network=None, entropy_coeff=0.0)
    loss.set_keys(advantage=("agents", "advantage"))
    optim = torch.optim.Adam(loss.parameters(), lr=1e-3)
    assert example.ppo_update(loss, optim, data, epochs=3) == int(used.sum()) > 10
    after_params = list(actor.parameters())
    assert len(after_params) == len(before_params) == 4  # two linear layers
    assert all(not torch.equal(b, p) for b, p in zip(before_params, after_params, strict=True))
    assert objective() > before


def test_arena_agent_acts_as_the_actor_on_the_envs_observation(example, one_thread):
    """On the positions of a game, the arena agent's choice from the seat's view is the
    actor's most likely legal action on the env's observation of that seat (same encoder,
    same mask), and it is legal."""
    torch.manual_seed(2)
    actor = example.make_actor(OBS_SIZE, NUM_ACTIONS, 16)
    agent = example.TorchRLGinnyAgent(actor)
    raw = ginny_o_v0.raw_env(num_players=3, max_turns=6)
    raw.reset(seed=11)
    checked = 0
    while not raw.game.game_over and checked < 40:
        game: GinnyGame = raw.game
        seat = game.current
        choice = agent.decide(GinnyView.from_game(game, seat))
        obs = raw.observe(raw.agent_selection)
        logits = actor.module[0].module(torch.as_tensor(obs["observation"])).detach()
        logits[~torch.as_tensor(obs["action_mask"], dtype=torch.bool)] = -math.inf
        assert choice == int(logits.argmax())
        assert choice in game.legal_actions()
        raw.step(choice)
        checked += 1
    assert checked >= 10


def test_arena_rows_and_games(run):
    rows = run["arena"]
    assert [r["opponents"] for r in rows] == ["random", "greedy", "expert"]
    for r in rows:
        assert r["num_players"] == 2 and r["equal_share"] == pytest.approx(0.5)
        assert r["games"] == math.ceil(3 / 2) * 2 == 4
        assert 0.0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1.0


def test_same_seed_same_rollout(run, example, one_thread):
    again = example.main([*ARGV, "--eval-games", "0"])
    assert again["arena"] == []
    for key in [("agents", "action"), ("next", "agents", "reward"), example.OBS, example.MASK]:
        assert torch.equal(again["rollout"][key], run["rollout"][key])
    other = example.main([*ARGV[:-1], "1", "--eval-games", "0", "--iters", "1"])
    assert not torch.equal(other["rollout"][example.OBS], run["rollout"][example.OBS])


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--players", "5"], "num_players=5 is not allowed: must be an integer from 2 to 4"),
        (["--max-turns", "0"], "max_turns=0 is not allowed"),
        (["--steps", "0"], "--steps must be >= 1, got 0"),
        (["--eval-games", "-1"], "--eval-games must be >= 0, got -1"),
        (["--eval-opponents", "random,nobody"], "unknown Ginny-O agent spec 'nobody'"),
        (["--reward-mode", "win"], "invalid choice: 'win'"),
    ],
)
def test_bad_flags_exit_with_a_message(example, capsys, flags, message):
    with pytest.raises(SystemExit) as info:
        example.main(flags)
    assert info.value.code == 2
    assert re.search(message, capsys.readouterr().err)


def test_out_writes_the_figures_and_keeps_an_existing_file(example, tmp_path, capsys, one_thread):
    out = tmp_path / "figures.json"
    run = example.main([*ARGV, "--iters", "1", "--eval-games", "2", "--out", str(out)])
    figures = json.loads(out.read_text())
    assert figures["decisions_collected"] == int(ARGV[ARGV.index("--steps") + 1])
    assert figures["decisions_used"] == sum(run["used"]) and figures["train_s"] > 0
    assert figures["arena"] == run["arena"] and len(figures["arena"]) == 3
    before = out.read_text()
    with pytest.raises(SystemExit) as info:
        example.main([*ARGV, "--out", str(out)])
    assert info.value.code == 2
    assert "already exists: give another file name" in capsys.readouterr().err
    assert out.read_text() == before  # nothing lost
