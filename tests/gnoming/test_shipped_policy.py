"""The shipped policies (agents/policies/*): load, fit the env, play well, are small, and say
how they were made."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from agents.gnoming.arena import run_arena  # noqa: E402
from agents.gnoming.learned import PolicyAgent, read_checkpoint  # noqa: E402
from gnome_env.gnoming import RulesConfig  # noqa: E402
from gnome_env.gnoming.encoding import ObservationEncoder  # noqa: E402
from training.core.config import build_config  # noqa: E402
from training.gnoming.ppo import PPOConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "agents" / "policies"
#: name -> the network options it was trained with
SHIPPED = {
    "ppo_3to7": {"features": True, "expert_hint": False},
    "ppo_hint_3to7": {"features": True, "expert_hint": True},
}


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_policy_is_small_and_fits_the_default_rules(name):
    policy = POLICIES / name / "policy.pt"
    assert policy.stat().st_size < 10 * 2**20
    data = read_checkpoint(policy, RulesConfig())
    assert data["observation_size"] == ObservationEncoder(RulesConfig()).size
    # trained on v0, whose observations and actions v1 keeps (only the deals changed)
    assert data["env"]["name"] == "gnoming_a_round_v0"
    assert "training" not in data  # weights only: no optimizer, no games in progress


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_config_is_the_config_it_was_trained_with(name):
    saved = build_config(PPOConfig, POLICIES / name / "config.yaml")
    summary = read_checkpoint(POLICIES / name / "policy.pt")["training_summary"]
    assert summary["config"]["seed"] == saved.seed
    network = PolicyAgent.load(POLICIES / name / "policy.pt").network
    assert summary["config"]["hidden"] == saved.hidden == network.hidden
    for option, value in SHIPPED[name].items():
        recorded = summary["config"].get(option, False)  # older policies predate the hint
        assert recorded is getattr(saved, option) is getattr(network, option)
        assert getattr(network, option) is value
    assert summary["config"]["total_steps"] == saved.total_steps == summary["decisions"]
    assert saved.num_players == [3, 4, 5, 6, 7]


def test_the_recipe_config_is_the_hint_policys_config():
    """configs/beat_expert.yaml is the run of ppo_hint_3to7 (everything but the process
    count, which does not change the result)."""
    recipe = build_config(PPOConfig, ROOT / "configs" / "beat_expert.yaml")
    shipped = build_config(PPOConfig, POLICIES / "ppo_hint_3to7" / "config.yaml")
    for field in PPOConfig.__dataclass_fields__:
        if field not in ("progress", "hint_workers"):
            assert getattr(recipe, field) == getattr(shipped, field), field


@pytest.mark.parametrize("name", SHIPPED)
@pytest.mark.parametrize("n", [3, 7])
def test_shipped_policy_beats_random_play(name, n):
    """A regression guard: if the observation or the rules drift, the policy falls apart."""
    spec = f"ppo:{POLICIES / name / 'policy.pt'}"
    result = run_arena([spec] + ["random"] * (n - 1), n, 6 * n, seed=11, progress=False)
    assert result.stats[0].win_rate >= 0.8


@pytest.mark.parametrize(
    ("policy", "recipe_file"),
    [("distill_3to7", "qdistill.yaml"), ("distill2_3to7", "qdistill2.yaml")],
)
def test_the_distilled_policy_is_the_recipes_fit(policy, recipe_file):
    """agents/policies/distill_3to7 is configs/qdistill.yaml's run (distill2_3to7:
    qdistill2.yaml's): the same settings in its config.yaml and in the checkpoint's summary
    (apart from the stage last run), a network with features and hint, and a play margin
    taken from the recipe's list."""
    from training.gnoming.qdistill import QDistillConfig

    recipe = build_config(QDistillConfig, ROOT / "configs" / recipe_file)
    shipped = build_config(QDistillConfig, POLICIES / policy / "config.yaml")
    data = read_checkpoint(POLICIES / policy / "policy.pt", RulesConfig())
    summary = data["training_summary"]
    for field, spec in QDistillConfig.__dataclass_fields__.items():
        if field != "stage":  # a setting added after the fit has the default it ran with
            default = spec.default
            if spec.default_factory is not dataclasses.MISSING:  # e.g. extra_data: []
                default = spec.default_factory()
            ran = summary["config"].get(field, default)
            assert getattr(recipe, field) == getattr(shipped, field) == ran
    assert data["network"] == {"hidden": [256, 256], "features": True, "expert_hint": True}
    assert summary["play_margin"] in recipe.play_margins
    assert summary["train_positions"] + summary["holdout_positions"] == 240_000


@pytest.mark.parametrize(("policy", "n"), [("distill_3to7", 3), ("distill2_3to7", 7)])
def test_distilled_policy_beats_random_play(policy, n):
    spec = f"ppo:{POLICIES / policy / 'policy.pt'}"
    result = run_arena([spec] + ["random"] * (n - 1), n, 6 * n, seed=11, progress=False)
    assert result.stats[0].win_rate >= 0.8
