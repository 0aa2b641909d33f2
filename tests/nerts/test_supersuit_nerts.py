"""SuperSuit 3.11 on the Nerts Parallel env: what docs/integrations.md says works and fails.

Needs SuperSuit (the ``dev`` extra installs it); skipped where it is absent. The snippet of
docs/integrations.md (SuperSuit's vector route into sb3-contrib's MaskablePPO) runs as
written, and needs sb3-contrib too (the ``train`` extra).
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

ss = pytest.importorskip("supersuit", reason="SuperSuit is not installed (the 'dev' extra)")

from gnome_env.nerts import nerts_v0  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "integrations.md"


def _env(**kw):
    kw.setdefault("max_steps_per_hand", 40)
    return nerts_v0.parallel_env(num_players=3, **kw)


def _legal(obs, rng) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}


@pytest.mark.parametrize(
    ("name", "make", "error"),
    [
        ("flatten_v0", lambda e: ss.flatten_v0(e), "'Dict' object has no attribute 'low'"),
        ("dtype_v0", lambda e: ss.dtype_v0(e, np.float32), "'Dict' object has no attribute 'low'"),
        ("normalize_obs_v0", lambda e: ss.normalize_obs_v0(e), "has no attribute 'low'"),
        ("pad_observations_v0", lambda e: ss.pad_observations_v0(e), "only supports Discrete"),
        ("black_death_v3", lambda e: ss.black_death_v3(e), "must be Box spaces"),
        ("frame_stack_v2", lambda e: ss.frame_stack_v2(e, 2), "only allowed for Box"),
        ("agent_indicator_v0", lambda e: ss.agent_indicator_v0(e), "must be 1d, 2d, or 3d Box"),
    ],
)
def test_observation_wrappers_refuse_the_dict_observation(name, make, error):
    """SuperSuit's observation wrappers take Box (or Discrete) spaces; the env's
    observation is PettingZoo's classic Dict of ``observation`` and ``action_mask``. Some
    refuse it when built, black_death_v3 at its first reset."""
    with pytest.raises((AttributeError, AssertionError), match=re.escape(error)):
        make(_env()).reset(seed=0)


@pytest.mark.parametrize(
    "make",
    [lambda e: ss.sticky_actions_v0(e, 0.5), lambda e: ss.delay_observations_v0(e, 1)],
    ids=["sticky_actions_v0", "delay_observations_v0"],
)
def test_action_repeating_and_delaying_wrappers_send_actions_the_mask_forbids(make):
    """Repeating an old action or acting on an old observation plays an id that is no
    longer legal; the env raises (N18) instead of substituting one."""
    env = make(_env())
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="is not legal"):
        for _ in range(40):
            obs, *_ = env.step(_legal(obs, rng))


def test_reward_and_action_wrappers_leave_the_game_alone():
    """clip_reward_v0 clips the env's own rewards; pad_action_space_v0 changes nothing (every
    seat has the same action space); observations and masks are the env's."""
    bare = _env()
    clipped = ss.clip_reward_v0(ss.pad_action_space_v0(_env()), -0.5, 0.5)
    obs, _ = bare.reset(seed=4)
    wrapped, _ = clipped.reset(seed=4)
    rng = np.random.default_rng(1)
    seen_clip = False
    for _ in range(40):
        assert all(np.array_equal(obs[a]["action_mask"], wrapped[a]["action_mask"]) for a in obs)
        actions = _legal(obs, rng)
        obs, reward, term, trunc, _ = bare.step(actions)
        wrapped, wreward, *_ = clipped.step(actions)
        for a in reward:
            assert wreward[a] == pytest.approx(np.clip(reward[a], -0.5, 0.5))
            seen_clip |= abs(reward[a]) > 0.5
        if all(term.values()) or all(trunc.values()):
            break
    assert seen_clip, "some reward must have been clipped"


def test_vector_route_one_slot_per_seat_with_the_envs_masks_and_rewards():
    vec = ss.pettingzoo_env_to_vec_env_v1(_env())
    assert vec.num_envs == 3
    obs, _ = vec.reset(seed=2)
    bare = _env()
    expected, _ = bare.reset(seed=2)
    seats = bare.possible_agents
    assert obs["action_mask"].shape == (3, bare.action_space("player_0").n)
    rng = np.random.default_rng(2)
    for _ in range(10):
        masks = np.stack([expected[a]["action_mask"] for a in seats])
        assert np.array_equal(obs["action_mask"], masks)
        actions = _legal(expected, rng)
        obs, reward, *_ = vec.step(np.array([actions[a] for a in seats]))
        expected, bare_reward, *_ = bare.step(actions)
        assert np.allclose(reward, [bare_reward[a] for a in seats])


def _snippet() -> str:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    found = [code for code in blocks if "import supersuit" in code]
    assert len(found) == 1, "docs/integrations.md has one SuperSuit snippet"
    return found[0]


def test_the_docs_snippet_trains_maskable_ppo_through_supersuit(capsys):
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed (the 'train' extra)")
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        namespace: dict = {}
        exec(compile(_snippet(), "docs/integrations.md SuperSuit snippet", "exec"), namespace)
    finally:
        torch.set_num_threads(threads)
    # 2 tables x 3 seats = 6 slots, one rollout of 64 steps each; an illegal id would raise
    assert capsys.readouterr().out.split() == ["384", "6"]
    model = namespace["model"]
    assert model.num_timesteps == 384
