"""The shipped policy (agents/policies/ppo_3to7): loads, fits the env, plays well, is small."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.arena import run_arena  # noqa: E402
from agents.learned import PolicyAgent, read_checkpoint  # noqa: E402
from gnome_env import RulesConfig  # noqa: E402
from gnome_env.encoding import ObservationEncoder  # noqa: E402
from training.config import build_config  # noqa: E402
from training.ppo import PPOConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
POLICY_DIR = ROOT / "agents" / "policies" / "ppo_3to7"
POLICY = POLICY_DIR / "policy.pt"


def test_shipped_policy_is_small_and_fits_the_default_rules():
    assert POLICY.stat().st_size < 10 * 2**20
    data = read_checkpoint(POLICY, RulesConfig())
    assert data["observation_size"] == ObservationEncoder(RulesConfig()).size
    assert data["env"]["name"] == "gnoming_a_round_v0"
    assert "training" not in data  # weights only: no optimizer, no games in progress


def test_shipped_config_is_the_config_it_was_trained_with():
    saved = build_config(PPOConfig, POLICY_DIR / "config.yaml")
    summary = read_checkpoint(POLICY)["training_summary"]
    assert summary["config"]["seed"] == saved.seed
    network = PolicyAgent.load(POLICY).network
    assert summary["config"]["hidden"] == saved.hidden == network.hidden
    assert summary["config"]["features"] is saved.features is network.features is True
    assert summary["config"]["total_steps"] == saved.total_steps
    assert saved.num_players == [3, 4, 5, 6, 7]


@pytest.mark.parametrize("n", [3, 7])
def test_shipped_policy_beats_random_play(n):
    """A regression guard: if the observation or the rules drift, the policy falls apart."""
    result = run_arena([f"ppo:{POLICY}"] + ["random"] * (n - 1), n, 6 * n, seed=11, progress=False)
    assert result.stats[0].win_rate >= 0.8
