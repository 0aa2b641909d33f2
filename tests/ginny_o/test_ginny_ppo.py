"""training/ginny_o/ppo.py and agents/ginny_o/learned.py: a short run trains, repeats exactly,
resumes exactly, and its policy plays; the shipped policy loads and plays."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.ginny_o.learned import (  # noqa: E402
    CHECKPOINT_FORMAT,
    GinnyPolicyAgent,
    GinnyPolicyNetwork,
    read_checkpoint,
)
from agents.ginny_o.registry import make_ginny_agent  # noqa: E402
from gnome_env.ginny_o import GinnyConfig, GinnyGame  # noqa: E402
from gnome_env.ginny_o.encoding import OBS_SIZE  # noqa: E402
from gnome_env.ginny_o.information import GinnyView  # noqa: E402
from training.ginny_o.ppo import GinnyPPOConfig, main, stream_advantages, train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "policies" / "ginny_ppo"
# 2 envs: a 2-player game against random (seat 0 learns) and a 3-player self-play game
SHORT = dict(
    num_envs=2, num_steps=24, total_steps=144, eval_games=0, num_players=[2, 3],
    opponents=["random", "self"], hidden=[32], channels=4, embedding=8,
)  # fmt: skip


def _weights(path: Path) -> dict:
    return read_checkpoint(path)["state_dict"]


def _same(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def _plays_legal_moves(spec: str, players: int, seed: int, steps: int) -> None:
    """The agent of ``spec`` plays every seat of a game for ``steps`` steps, legally."""
    config = GinnyConfig(players=players)
    agent = make_ginny_agent(spec, 0, config)
    game = GinnyGame(config, seed)
    for _ in range(steps):
        if game.game_over:
            break
        view = GinnyView.from_game(game, game.current)
        action = agent.decide(view)
        assert action in view.legal_actions
        game.step(action)


def test_a_short_run_repeats_bit_for_bit_and_its_policy_plays(tmp_path):
    a = train(GinnyPPOConfig(output_dir=str(tmp_path / "a"), **SHORT))
    b = train(GinnyPPOConfig(output_dir=str(tmp_path / "b"), **SHORT))
    train(GinnyPPOConfig(output_dir=str(tmp_path / "c"), seed=2, **SHORT))
    wa, wb = _weights(tmp_path / "a" / "policy.pt"), _weights(tmp_path / "b" / "policy.pt")
    assert _same(wa, wb)  # same seed, one torch thread: the same weights
    assert not _same(wa, _weights(tmp_path / "c" / "policy.pt"))  # another seed: others
    assert [r["pg"] for r in a["history"]] == [r["pg"] for r in b["history"]]
    assert a["env_steps"] == 144 and len(a["history"]) == 3
    assert all(r["samples"] > 0 for r in a["history"])
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["config"]["seed"] == 1 and summary["config"]["trainer"] == "ginny_ppo"
    # the checkpoint loads through the registry and plays legal moves from a seat's view
    path = tmp_path / "a" / "policy.pt"
    _plays_legal_moves(f"ppo:{path}", 3, 5, 40)
    _plays_legal_moves(f"ppo-sample:{path}", 2, 6, 40)
    agent = GinnyPolicyAgent(path)
    game = GinnyGame(GinnyConfig(num_players=2), 5)
    p = agent.distribution(GinnyView.from_game(game, game.current))
    assert abs(p.sum() - 1) < 1e-6
    assert set(np.flatnonzero(p)) <= set(GinnyView.from_game(game, game.current).legal_actions)
    with pytest.raises(ValueError, match="not to act"):
        agent.distribution(GinnyView.from_game(game, 1 - game.current))


def test_resume_continues_the_run_exactly(tmp_path):
    """Stopped after update 1 and resumed (the games in progress are replayed), a run ends
    with the weights of the run that was never stopped."""
    cfg = dict(SHORT, checkpoint_interval=1)
    train(GinnyPPOConfig(output_dir=str(tmp_path / "whole"), **cfg))
    stopped = train(GinnyPPOConfig(output_dir=str(tmp_path / "part"), **cfg), stop_after=1)
    assert stopped == {"stopped_after": 1}
    assert not (tmp_path / "part" / "policy.pt").exists()
    assert main(["--resume", str(tmp_path / "part")]) == 0
    whole = _weights(tmp_path / "whole" / "policy.pt")
    assert _same(whole, _weights(tmp_path / "part" / "policy.pt"))
    a = json.loads((tmp_path / "whole" / "summary.json").read_text())["history"]
    b = json.loads((tmp_path / "part" / "summary.json").read_text())["history"]
    strip = ("seconds", "rollout_s", "update_s")
    assert [{k: v for k, v in r.items() if k not in strip} for r in a] == [
        {k: v for k, v in r.items() if k not in strip} for r in b
    ]
    # a resume may not change what the run is, and needs a training checkpoint
    assert main(["--resume", str(tmp_path / "part"), "--seed", "5"]) == 2
    assert main(["--resume", str(tmp_path / "whole" / "policy.pt")]) == 2


def test_gae_runs_along_each_seats_own_decisions():
    """Two seats alternate in one env; rewards reach a seat's decision until its next one,
    and a seat's last open decision only bootstraps."""
    seat = np.array([[0], [1], [0], [1], [0]])
    rew = np.array([[1.0], [2.0], [0.5], [-1.0], [0.0]], np.float32)
    val = np.array([[0.1], [0.2], [0.3], [0.4], [0.5]], np.float32)
    done = np.array([[False], [False], [False], [True], [False]])
    adv, valid = stream_advantages(rew, val, done, seat, gamma=0.9, lam=0.5)
    assert valid[:, 0].tolist() == [True, True, True, True, False]
    # seat 1: row 3 ends its game; row 1's successor is row 3
    assert adv[3, 0] == pytest.approx(-1.0 - 0.4)
    assert adv[1, 0] == pytest.approx(2.0 + 0.9 * 0.4 - 0.2 + 0.45 * adv[3, 0])
    # seat 0: row 4 is open (bootstrap only); row 2 -> row 4, row 0 -> row 2
    assert adv[2, 0] == pytest.approx(0.5 + 0.9 * 0.5 - 0.3)
    assert adv[0, 0] == pytest.approx(1.0 + 0.9 * 0.3 - 0.1 + 0.45 * adv[2, 0])


def test_the_network_masks_illegal_actions_and_fits_the_observation():
    net = GinnyPolicyNetwork(hidden=[16], channels=4, embedding=8)
    net.reset_parameters(torch.Generator().manual_seed(0))
    obs = torch.rand(3, OBS_SIZE)
    mask = torch.zeros(3, net.num_actions, dtype=torch.bool)
    mask[:, [5, 1800, 1852, 1863]] = True
    with torch.no_grad():
        logits, value = net(obs, mask)
    p = torch.softmax(logits, -1)
    assert value.shape == (3,) and logits.shape == (3, 1864)
    assert torch.allclose(p[:, [5, 1800, 1852, 1863]].sum(-1), torch.ones(3))
    # the untrained policy is near uniform over the legal actions
    assert float(p[:, [5, 1800, 1852, 1863]].min()) > 0.2


def test_bad_config_values_are_clear_errors(capsys):
    for flag, value, words in [
        ("--num_players", "[1, 4]", "num_players=[1, 4]"),
        ("--opponents", "[bots]", "opponents=['bots']"),
        ("--reward_mode", "points", "reward_mode='points'"),
        ("--reward", "points", "reward_mode='points'"),  # the old name still works
        ("--gamma", "1.5", "gamma=1.5"),
        ("--num_envs", "0", "num_envs"),
    ]:
        assert main([flag, value]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err


def test_a_damaged_or_foreign_checkpoint_is_a_clear_error(tmp_path):
    config = GinnyConfig(num_players=2)
    bad = tmp_path / "policy.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="cannot be read as a torch checkpoint"):
        make_ginny_agent(f"ppo:{bad}", 0, config)
    with pytest.raises(ValueError, match="does not exist"):
        make_ginny_agent(f"ppo:{tmp_path / 'missing.pt'}", 0, config)
    foreign = tmp_path / "nerts.pt"
    torch.save({"format": "gnome_env-nerts-policy", "version": 1}, foreign)
    with pytest.raises(ValueError, match="not a Ginny-O policy checkpoint"):
        make_ginny_agent(f"ppo:{foreign}", 0, config)
    net = GinnyPolicyNetwork(hidden=[16], channels=4, embedding=8)
    state = {k: v.clone() for k, v in net.state_dict().items()}
    state.pop("value.bias")
    broken = tmp_path / "broken.pt"
    torch.save(
        {"format": CHECKPOINT_FORMAT, "version": 1, "observation_size": OBS_SIZE,
         "num_actions": 1864, "rules": {}, "network": net.describe(), "state_dict": state},
        broken,
    )  # fmt: skip
    with pytest.raises(ValueError, match="weights do not fit the network"):
        GinnyPolicyAgent(broken)
    # a truncated copy of a real checkpoint
    torch.save(
        {"format": CHECKPOINT_FORMAT, "version": 1, "observation_size": OBS_SIZE,
         "num_actions": 1864, "rules": {}, "network": net.describe(),
         "state_dict": net.state_dict()},
        tmp_path / "good.pt",
    )  # fmt: skip
    GinnyPolicyAgent(tmp_path / "good.pt")
    (tmp_path / "cut.pt").write_bytes((tmp_path / "good.pt").read_bytes()[:5000])
    with pytest.raises(ValueError, match="cannot be read as a torch checkpoint"):
        GinnyPolicyAgent(tmp_path / "cut.pt")


def test_gnome_train_dispatches_on_trainer_ginny_ppo(tmp_path):
    from training.app.cli import main as gnome

    config = tmp_path / "tiny.yaml"
    settings = dict(SHORT, total_steps=48, output_dir=str(tmp_path / "run"), trainer="ginny_ppo")
    config.write_text(json.dumps(settings))  # JSON is YAML
    assert gnome(["train", "--config", str(config)]) == 0
    assert read_checkpoint(tmp_path / "run" / "policy.pt")["training"]["env_steps"] == 48


def test_the_shipped_policy_is_the_recipes_run_and_plays():
    """agents/policies/ginny_ppo is configs/ginny_ppo.yaml's run (all but output_dir)."""
    from training.core.config import build_config, from_mapping, to_dict

    assert (SHIPPED / "policy.pt").stat().st_size < 5 * 2**20
    data = read_checkpoint(SHIPPED / "policy.pt")
    recipe = build_config(GinnyPPOConfig, ROOT / "configs" / "ginny_ppo.yaml")
    with pytest.warns(DeprecationWarning, match="now called 'num_players'"):
        saved = build_config(GinnyPPOConfig, SHIPPED / "config.yaml")  # the old key: players
    with pytest.warns(DeprecationWarning, match="now called 'num_players'"):
        trained = to_dict(from_mapping(GinnyPPOConfig, data["training"]["config"], "checkpoint"))
    for name in GinnyPPOConfig.__dataclass_fields__:
        if name != "output_dir":
            assert getattr(recipe, name) == getattr(saved, name) == trained[name], name
    assert data["training"]["env_steps"] == recipe.num_updates * recipe.steps_per_update
    _plays_legal_moves(f"ppo:{SHIPPED / 'policy.pt'}", 4, 11, 60)


def test_the_shipped_policy_beats_random_at_two_players():
    """A small fixed arena (4 deals x 2 seat rotations, seed 3): the README's table has 200
    games per row on arena seed 8, where it wins 0.96 of them."""
    from agents.gnoming.arena import run_arena

    result = run_arena(
        [f"ppo:{SHIPPED / 'policy.pt'}", "random"], 2, 8, seed=3, progress=False, game="ginny_o"
    )
    assert result.stats[0].win_rate >= 0.75
