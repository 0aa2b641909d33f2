"""Ray RLlib: the masked PPO module, a short training run, and its checkpoint in the arena.

Needs the ``rllib`` extra; ``.ci/run`` runs this file in its own virtual environment
(``.venv-rllib``), and it is skipped where Ray is not installed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

from agents.gnoming.arena import run_arena  # noqa: E402
from agents.gnoming.rllib_agent import MaskedPPOTorchRLModule, RLlibAgent, module_dir  # noqa: E402
from gnome_env.gnoming import gnoming_a_round_v1  # noqa: E402
from gnome_env.gnoming.actions import NUM_ACTIONS  # noqa: E402
from training.core.config import ConfigError, build_config  # noqa: E402
from training.gnoming.rllib_ppo import RLlibConfig, make_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "rllib_ppo.yaml"


def _module():
    env = gnoming_a_round_v1.raw_env(num_players=5)
    return MaskedPPOTorchRLModule(
        observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config={"fcnet_hiddens": [32], "vf_share_layers": False},
    )


def _batch(rng: np.random.Generator, b: int = 64):
    from ray.rllib.core.columns import Columns

    obs = rng.random((b, 1401), dtype=np.float32)
    mask = rng.random((b, NUM_ACTIONS)) < 0.15
    mask[np.arange(b), rng.integers(NUM_ACTIONS, size=b)] = True  # at least one legal
    mask[0] = False
    mask[0, 7] = True  # a single legal action
    batch = {
        Columns.OBS: {
            "observation": torch.from_numpy(obs),
            "action_mask": torch.from_numpy(mask.astype(np.float32)),
        }
    }
    return batch, mask


def test_masked_module_never_samples_an_illegal_action():
    from ray.rllib.core.columns import Columns

    module = _module()
    rng = np.random.default_rng(0)
    batch, mask = _batch(rng)
    dist_cls = module.get_exploration_action_dist_cls()
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward(batch)[Columns.ACTION_DIST_INPUTS].detach()
        dist = dist_cls.from_logits(logits)
        torch.manual_seed(0)
        for _ in range(20):
            actions = dist.sample().numpy()
            assert mask[np.arange(len(actions)), actions].all()
        probs = torch.softmax(logits, -1).numpy()
        assert (probs[~mask] == 0).all()
        assert probs[0, 7] == pytest.approx(1.0)


def test_masked_module_value_ignores_the_mask():
    module = _module()
    batch, _ = _batch(np.random.default_rng(1))
    values = module.compute_values(batch)
    batch["obs"]["action_mask"] = torch.ones_like(batch["obs"]["action_mask"])
    assert torch.equal(values, module.compute_values(batch))


def test_module_refuses_an_observation_space_without_the_mask():
    import gymnasium

    with pytest.raises(ValueError, match="'observation' and 'action_mask'"):
        MaskedPPOTorchRLModule(
            observation_space=gymnasium.spaces.Box(0, 1, (1401,)),
            action_space=gymnasium.spaces.Discrete(NUM_ACTIONS),
            model_config={"fcnet_hiddens": [8]},
        )


def test_rllib_wrapper_declares_every_possible_agent_whatever_the_first_game():
    """RLlib's own PettingZooEnv takes the agents of its first reset as all agents; ours
    declares possible_agents (the largest seat count), so 3- and 7-seat games both fit."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    declared = set()
    for seed in range(12):
        raw = gnoming_a_round_v1.raw_env(num_players=[3, 7])
        raw.reset(seed=seed)  # the wrapper's own (unseeded) reset continues from this seed
        declared.add(len(PettingZooEnv(raw).observation_spaces))
    assert declared == {3, 7}  # the problem the subclass fixes
    env = make_env({"num_players": [3, 7], "reward_mode": "score"})
    assert sorted(env.possible_agents) == [f"player_{i}" for i in range(7)]
    assert set(env.observation_spaces) == set(env.possible_agents)
    seen = set()
    for seed in range(8):
        obs, _ = env.reset(seed=seed)
        (agent,) = obs
        assert set(obs[agent]) == {"observation", "action_mask"}
        assert agent in env.observation_spaces
        seen.add(env.env.config.num_players)
    assert seen == {3, 7}


def test_bad_config_values_are_refused():
    with pytest.raises(ConfigError, match="num_players"):
        build_config(RLlibConfig, None, {"num_players": [2, 3]})
    with pytest.raises(ConfigError, match="minibatch_size=9000"):
        build_config(RLlibConfig, None, {"minibatch_size": 9000})
    with pytest.raises(ConfigError, match="eval_opponents: 'nobody'"):
        build_config(RLlibConfig, None, {"eval_opponents": ["nobody"]})
    build_config(RLlibConfig, ROOT / "configs" / "rllib_ppo.yaml")  # the shipped config


def test_two_iterations_train_and_the_checkpoint_plays_legal_arena_games(tmp_path):
    """A real run in a subprocess (its own Ray): the raw env raises on an illegal action, so
    finishing means none was sampled; the checkpoint then plays full arena games, and a
    missing or foreign path is a clear error."""
    out = tmp_path / "run"
    args = "--iterations 2 --train_batch_size 300 --minibatch_size 100 --num_epochs 1"
    args += " --hidden [64] --num_players [3,7] --eval_games 6 --eval_opponents [random]"
    command = [sys.executable, "-m", "training.gnoming.rllib_ppo", "--config", str(CONFIG)]
    proc = subprocess.run(
        [*command, *args.split(), "--output_dir", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "iteration 2/2: 600 env steps" in proc.stdout
    assert "| 6 x random | 7 |" in proc.stdout
    checkpoint = out / "checkpoint"
    agent = RLlibAgent.load(checkpoint)
    assert agent.module.observation_space["observation"].shape == (1401,)
    result = run_arena([f"rllib:{checkpoint}", "random", "random"], 3, 6, seed=2, progress=False)
    assert result.stats[0].games == 6  # an illegal action would have raised
    with pytest.raises(ValueError, match="is not an RLlib checkpoint"):
        module_dir(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        module_dir(tmp_path / "nope")


def test_same_seed_gives_the_same_weights(tmp_path):
    """Two runs of the command with the same config (sampling in the driver, one torch
    thread) end with identical weights; the command fixes PYTHONHASHSEED itself."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    weights = []
    for run in ("a", "b"):
        args = "--iterations 1 --train_batch_size 200 --minibatch_size 100 --num_epochs 1"
        args += f" --hidden [32] --eval_games 0 --output_dir {tmp_path / run}"
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "training.gnoming.rllib_ppo",
                "--config",
                str(CONFIG),
                *args.split(),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        module = RLlibAgent.load(tmp_path / run / "checkpoint").module
        weights.append({k: v.clone() for k, v in module.state_dict().items()})
    assert weights[0].keys() == weights[1].keys()
    for key, value in weights[0].items():
        assert torch.equal(value, weights[1][key]), key


def test_the_core_packages_do_not_import_ray():
    """With Ray installed, importing the env, the bots, the arena and our own PPO trainer
    leaves Ray unimported; only agents.gnoming.rllib_agent and training.gnoming.rllib_ppo load
    it."""
    code = (
        "import sys, gnome_env, gnome_env.gnoming.gnoming_a_round_v1, gnome_env.gnoming.vector, "
        "agents.gnoming.arena, "
        "agents.gnoming.registry, agents.gnoming.learned, training.gnoming.ppo, training.app.cli; "
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]"
