"""training/nerts/ppo.py: a short run trains, repeats exactly, and its policy plays."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

from conftest import nerts_agent_plays_legal_moves  # noqa: E402

from agents.nerts.learned import read_checkpoint  # noqa: E402
from agents.nerts.registry import make_nerts_agent  # noqa: E402
from gnome_env.nerts import NertsConfig  # noqa: E402
from gnome_env.nerts.information import NertsView  # noqa: E402
from training.nerts.ppo import NertsPPOConfig, main, train  # noqa: E402

SHORT = dict(num_envs=2, num_steps=16, total_steps=64, eval_games=0, num_players=[2, 3])


def test_a_short_run_repeats_bit_for_bit_and_its_policy_plays(tmp_path):
    a = train(NertsPPOConfig(output_dir=str(tmp_path / "a"), **SHORT))
    b = train(NertsPPOConfig(output_dir=str(tmp_path / "b"), **SHORT))
    train(NertsPPOConfig(output_dir=str(tmp_path / "c"), seed=2, **SHORT))
    wa = read_checkpoint(tmp_path / "a" / "policy.pt")["state_dict"]
    wb = read_checkpoint(tmp_path / "b" / "policy.pt")["state_dict"]
    wc = read_checkpoint(tmp_path / "c" / "policy.pt")["state_dict"]
    assert all(torch.equal(wa[k], wb[k]) for k in wa)  # same seed: same weights
    assert not all(torch.equal(wa[k], wc[k]) for k in wa)  # another seed: others
    assert [r["pg"] for r in a["history"]] == [r["pg"] for r in b["history"]]
    assert a["env_steps"] == 64 and len(a["history"]) == 2
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["config"]["seed"] == 1
    # the checkpoint loads as a Nerts agent and plays legal moves from a seat's view
    config = NertsConfig(players=3)
    agent = make_nerts_agent(f"ppo:{tmp_path / 'a' / 'policy.pt'}", 0, config)
    game = nerts_agent_plays_legal_moves(agent, config, 5, 20)
    p = agent.distribution(NertsView.from_game(game, 0))
    assert abs(p.sum() - 1) < 1e-5


def test_resume_continues_the_run_exactly(tmp_path, capsys):
    """A run of 4 updates equals a run stopped after 2 (checkpoint.pt: weights, optimizer,
    both generators, the hands in progress as seed + joint actions, replayed) and resumed
    for 2 more: the same final weights and log. Hands of at most 20 steps, so some end
    before the stop and one is in progress at it."""
    cfg = dict(SHORT, total_steps=128, max_steps_per_hand=20, checkpoint_interval=1)
    train(NertsPPOConfig(output_dir=str(tmp_path / "whole"), **cfg))
    assert (tmp_path / "whole" / "checkpoint.pt").is_file()  # also at the end
    stopped = train(NertsPPOConfig(output_dir=str(tmp_path / "part"), **cfg), stop_after=2)
    assert stopped == {"stopped_after": 2}
    assert not (tmp_path / "part" / "policy.pt").exists()
    saved = torch.load(tmp_path / "part" / "checkpoint.pt", weights_only=True)["training"]
    assert saved["updates"] == 2 and any(saved["played"])  # a hand in progress
    assert main(["--resume", str(tmp_path / "part")]) == 0
    whole = read_checkpoint(tmp_path / "whole" / "policy.pt")
    part = read_checkpoint(tmp_path / "part" / "policy.pt")
    assert all(
        torch.equal(whole["state_dict"][k], part["state_dict"][k]) for k in whole["state_dict"]
    )
    assert part["training"]["env_steps"] == whole["training"]["env_steps"] == 128
    a = json.loads((tmp_path / "whole" / "summary.json").read_text())["history"]
    b = json.loads((tmp_path / "part" / "summary.json").read_text())["history"]
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in a] == [
        {k: v for k, v in r.items() if k != "seconds"} for r in b
    ]
    assert a[-1]["hands"] > 0
    # a resume may not change what the run is, and needs a training checkpoint
    capsys.readouterr()
    assert main(["--resume", str(tmp_path / "part"), "--seed", "5"]) == 2
    assert "cannot change: seed" in capsys.readouterr().err
    assert main(["--resume", str(tmp_path / "whole" / "policy.pt")]) == 2
    assert "holds a policy only" in capsys.readouterr().err
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "checkpoint.pt").write_bytes(b"PK\x03\x04 not really a zip")
    assert main(["--resume", str(tmp_path / "bad")]) == 2
    assert "cannot be read as a torch checkpoint" in capsys.readouterr().err


def test_bad_config_values_are_clear_errors(capsys):
    for flag, value, words in [
        ("--num_players", "[1, 4]", "num_players=[1, 4]"),
        ("--opponents", "bots", "opponents='bots'"),
        ("--gamma", "1.5", "gamma=1.5"),
        ("--num_envs", "0", "num_envs"),
    ]:
        assert main([flag, value]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err


def test_a_damaged_checkpoint_is_a_clear_error(tmp_path):
    bad = tmp_path / "policy.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="cannot be read as a torch checkpoint"):
        make_nerts_agent(f"ppo:{bad}", 0, NertsConfig(players=2))
    with pytest.raises(ValueError, match="does not exist"):
        make_nerts_agent(f"ppo:{tmp_path / 'missing.pt'}", 0, NertsConfig(players=2))


def test_the_shipped_nerts_policy_is_the_recipes_run_and_plays():
    """agents/policies/nerts_ppo is configs/nerts_ppo.yaml's run (all but output_dir)."""
    from pathlib import Path

    from training.core.config import build_config, from_mapping, to_dict

    root = Path(__file__).resolve().parents[2]
    shipped = root / "agents" / "policies" / "nerts_ppo"
    assert (shipped / "policy.pt").stat().st_size < 10 * 2**20
    data = read_checkpoint(shipped / "policy.pt")
    recipe = build_config(NertsPPOConfig, root / "configs" / "nerts_ppo.yaml")
    with pytest.warns(DeprecationWarning, match="now called 'num_players'"):
        saved = build_config(NertsPPOConfig, shipped / "config.yaml")  # the old key: players
    with pytest.warns(DeprecationWarning, match="now called 'num_players'"):
        trained = to_dict(from_mapping(NertsPPOConfig, data["training"]["config"], "checkpoint"))
    for name in NertsPPOConfig.__dataclass_fields__:
        if name != "output_dir":
            assert getattr(recipe, name) == getattr(saved, name) == trained[name], name
    assert data["training"]["env_steps"] == recipe.total_steps
    # it plays: a one-hand 2-player arena against random, won clearly (the README's table
    # has 1,000 games on another seed)
    from agents.gnoming.arena import run_arena

    result = run_arena(
        [f"ppo:{shipped / 'policy.pt'}", "random"], 2, 20, seed=3, progress=False,
        game="nerts", rules={"max_hands": 1},
    )  # fmt: skip
    assert result.stats[0].win_rate > 0.5
