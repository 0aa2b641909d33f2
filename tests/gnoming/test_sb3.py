"""sb3-contrib integration: the MaskablePPO training script, SB3Agent (``sb3:PATH``), errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import gymnasium
import torch
import yaml

from agents.gnoming.arena import run_arena
from agents.gnoming.registry import make_agent
from agents.gnoming.sb3_agent import _MODEL_CACHE, SB3Agent
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.gym_env import GnomeSingleSeatEnv
from training.core.config import ConfigError, build_config
from training.gnoming.sb3_maskable_ppo import SB3Config, main

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = ROOT / "configs" / "sb3_maskable_ppo.yaml"


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of the script with a few hundred steps; its output directory."""
    out = tmp_path_factory.mktemp("sb3_run")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "training.gnoming.sb3_maskable_ppo",
            "--config",
            str(DEFAULT_CONFIG),
            "--total_timesteps",
            "256",
            "--n_steps",
            "64",
            "--batch_size",
            "32",
            "--eval_games",
            "0",
            "--verbose",
            "0",
            "--output_dir",
            str(out),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return out


# ---------------------------------------------------------------------- (a) the script
def test_script_writes_model_and_config(trained: Path) -> None:
    """The run exits 0 and leaves model.zip and a config.yaml that reads back to its config."""
    assert (trained / "model.zip").is_file()
    assert not list(trained.glob("*.tmp"))  # the atomic writes left no temporary files
    data = yaml.safe_load((trained / "config.yaml").read_text())
    assert data["total_timesteps"] == 256 and data["output_dir"] == str(trained)
    assert build_config(SB3Config, trained / "config.yaml").n_steps == 64


# ---------------------------------------------------------------------- (b) the agent
def test_arena_plays_sb3_spec(trained: Path) -> None:
    """``sb3:PATH`` plays arena games, every entry gets results, the model is read once."""
    spec = f"sb3:{trained / 'model.zip'}"
    result = run_arena([spec, "random", "random"], 3, games=3, seed=1, progress=False)
    assert len(result.stats) == 3 and all(st.games == 3 for st in result.stats)
    assert len(result.records) == 3
    assert all(len(rec["win_shares"]) == 3 for rec in result.records)
    assert sum(key[0].endswith("model.zip") for key in _MODEL_CACHE) == 1


def test_act_returns_legal_actions(trained: Path) -> None:
    """Deterministic and seeded sampling agents only choose actions legal under the mask."""
    path = trained / "model.zip"
    greedy = SB3Agent.load(path)
    assert SB3Agent.load(path).model is greedy.model  # cached, not read again
    sampler_a = SB3Agent.load(path, deterministic=False, seed=7)
    sampler_b = SB3Agent.load(path, deterministic=False, seed=7)
    env = GnomeSingleSeatEnv(3, learner_seat="random")
    obs, _ = env.reset(seed=3)
    for _ in range(60):
        mask = env.action_masks()
        choices = [greedy.act(obs, mask), sampler_a.act(obs, mask)]
        assert sampler_b.act(obs, mask) == choices[1]  # same seed, same samples
        for action in choices:
            assert isinstance(action, int) and mask[action]
        obs, _, terminated, truncated, _ = env.step(choices[0])
        if terminated or truncated:
            obs, _ = env.reset()
    with pytest.raises(ValueError, match="no legal action"):
        greedy.act(obs, np.zeros(A.NUM_ACTIONS, dtype=bool))


# ---------------------------------------------------------------------- (c) load errors
class _TinyEnv(gymnasium.Env):
    """An env with arbitrary spaces, only to build models with the wrong shapes."""

    def __init__(self, obs_size: int, num_actions: int) -> None:
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (obs_size,), dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(num_actions)


def _save_maskable(path: Path, obs_size: int, num_actions: int) -> Path:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        "MlpPolicy", _TinyEnv(obs_size, num_actions), n_steps=8, batch_size=8, device="cpu"
    )
    model.save(path)
    return path


def test_load_errors(tmp_path: Path) -> None:
    """Missing files, foreign files and models of the wrong shape raise a clear ValueError."""
    with pytest.raises(ValueError, match="does not exist"):
        SB3Agent.load(tmp_path / "missing.zip")
    with pytest.raises(ValueError, match="needs a model path"):
        make_agent("sb3", 0)
    text = tmp_path / "notes.zip"
    text.write_text("not a model\n")
    with pytest.raises(ValueError, match="not a zip file"):
        make_agent(f"sb3:{text}", 0)
    checkpoint = tmp_path / "weights.pt"
    torch.save({"w": torch.zeros(3)}, checkpoint)
    with pytest.raises(ValueError, match="not a stable-baselines3 model"):
        SB3Agent.load(checkpoint)
    small = _save_maskable(tmp_path / "small.zip", 10, A.NUM_ACTIONS)
    with pytest.raises(ValueError, match=r"observation space.*expected a Box of shape \(1401,\)"):
        SB3Agent.load(small)
    wrong_actions = _save_maskable(tmp_path / "actions.zip", 1401, 5)
    with pytest.raises(ValueError, match=r"action space.*expected Discrete\(33\)"):
        SB3Agent.load(wrong_actions)


def test_plain_ppo_is_refused(tmp_path: Path) -> None:
    """A PPO (not MaskablePPO) zip is refused: its policy cannot take action masks."""
    from stable_baselines3 import PPO

    path = tmp_path / "ppo.zip"
    model = PPO("MlpPolicy", _TinyEnv(1401, A.NUM_ACTIONS), n_steps=8, batch_size=8, device="cpu")
    model.save(path)
    with pytest.raises(ValueError, match="MaskablePPO"):
        SB3Agent.load(path)


# ---------------------------------------------------------------------- (d) config checks
@pytest.mark.parametrize(
    ("overrides", "words"),
    [
        ({"total_timesteps": -5}, ["total_timesteps=-5", ">= 1"]),
        ({"opponents": ["grumpy"]}, ["opponents", "grumpy", "known specs"]),
        ({"num_players": [2]}, ["num_players=[2]", "3 to 7"]),
        ({"batch_size": 10_000}, ["batch_size=10000", "rollout"]),
        ({"gamma": 1.5}, ["gamma=1.5", "(0.0, 1.0]"]),
        ({"net_arch": []}, ["net_arch=[]"]),
        ({"reward_mode": "points"}, ["reward_mode='points'", "win, score, raw"]),
        ({"n_stpes": 8}, ["did you mean 'n_steps'"]),
    ],
)
def test_bad_config_values(overrides: dict, words: list[str]) -> None:
    """Each bad value raises ConfigError naming the field, the value and what is allowed."""
    with pytest.raises(ConfigError) as info:
        build_config(SB3Config, DEFAULT_CONFIG, overrides)
    for word in words:
        assert word in str(info.value)


def test_bad_config_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    """The command exits 2 with the message on stderr, before any training."""
    assert main(["--config", str(DEFAULT_CONFIG), "--total_timesteps", "-5"]) == 2
    assert "total_timesteps=-5 is not allowed" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["--help"])  # every field's help text formats
    assert info.value.code == 0
    assert "--total_timesteps" in capsys.readouterr().out
