"""Self-play PPO (training.gnoming.ppo): config, advantages, a real short run, resume, errors."""

from __future__ import annotations

import dataclasses
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("yaml")

from conftest import pinned_digest  # noqa: E402

from agents.gnoming.learned import PolicyAgent, PolicyNetwork, checkpoint_header, write_checkpoint  # noqa: E402
from training.app.cli import main as gnome_main  # noqa: E402
from training.core.config import ConfigError, build_config  # noqa: E402
from training.gnoming.ppo import PPOConfig, Rollout, advantages, load_resume, main, train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------- configuration
@pytest.mark.parametrize("name", ["quickstart.yaml", "full.yaml", "beat_expert.yaml"])
def test_shipped_configs_are_valid_and_cover_every_seat_count(name):
    cfg = build_config(PPOConfig, ROOT / "configs" / name)
    assert cfg.num_players == [3, 4, 5, 6, 7]
    assert cfg.num_updates >= 100


def test_command_line_overrides_win_over_the_file_and_are_read_as_yaml(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("seed: 4\nnum_envs: 32\nnum_players: [3, 4]\n")
    cfg = build_config(PPOConfig, path, {"num-envs": 8, "num_players": [5, 7]})
    assert (cfg.seed, cfg.num_envs, cfg.num_players) == (4, 8, [5, 7])
    assert cfg.learning_rate == PPOConfig().learning_rate  # untouched fields keep defaults


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("learning_rat: 0.1\n", "unknown field 'learning_rat' (did you mean 'learning_rate'?)"),
        ("num_envs: many\n", "num_envs='many' is not allowed: must be an integer"),
        ("num_envs: 0\n", "num_envs=0 is not allowed: must be >= 1"),
        ("num_players: [2, 3]\n", "must be a non-empty list of seat counts 3..7"),
        ("reward_mode: points\n", "reward_mode='points' is not allowed"),
        ("bot_opponents: [grumpy]\n", "unknown agent spec 'grumpy'"),
        ("gamma: 1.5\n", "gamma=1.5 is not allowed: must be in (0, 1]"),
        ("hidden: 256\n", "hidden=256 is not allowed: must be a list of an integer"),
        ("- 1\n- 2\n", "must hold a mapping"),
        ("seed: [1\n", "is not valid YAML"),
    ],
)
def test_bad_config_files_raise_errors_naming_the_problem(tmp_path, text, message):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as err:
        build_config(PPOConfig, path)
    assert message in str(err.value)


def test_missing_config_file_and_bad_override_exit_with_status_2(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(tmp_path / "nope.yaml")])
    assert exit_info.value.code == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(ROOT / "configs/quickstart.yaml"), "--total-steps", "-5"])
    assert exit_info.value.code == 2
    assert "total_steps=-5 is not allowed: must be >= 1" in capsys.readouterr().err


# ---------------------------------------------------------------------- advantages
def test_advantages_follow_each_seats_own_decisions_and_reset_at_game_end():
    """Two games (slots), five vector steps, gamma 1, lambda 0.5; expected values by hand.

    Slot 0: seats 0,1,0,1,0 decide at t=0..4 with values .5 .2 .4 .1 .3; a round ends at
    t=3 paying [1, -1, 0]. Slot 1: seat 2 (v .6) at t=0, seat 0 (v .2) at t=1 ends the game
    paying [2, 0, -2]; in the new game seat 1 (v .3) decides at t=2.
    """
    z = np.zeros
    samples = [  # (step, slot, seat, value)
        (0, 0, 0, 0.5), (0, 1, 2, 0.6),
        (1, 0, 1, 0.2), (1, 1, 0, 0.2),
        (2, 0, 0, 0.4), (2, 1, 1, 0.3),
        (3, 0, 1, 0.1),
        (4, 0, 0, 0.3),
    ]  # fmt: skip
    rewards = z((5, 2, 7), dtype=np.float32)
    rewards[3, 0, :3] = [1, -1, 0]
    rewards[1, 1, :3] = [2, 0, -2]
    done = z((5, 2), dtype=bool)
    done[1, 1] = True
    n = len(samples)
    ro = Rollout(
        tokens=z((n, 119), np.int16),
        masks=np.ones((n, 33), bool),
        actions=z(n, np.int64),
        log_probs=z(n, np.float32),
        values=np.array([s[3] for s in samples], np.float32),
        slot=np.array([s[1] for s in samples]),
        seat=np.array([s[2] for s in samples]),
        step_start=np.array([0, 2, 4, 6, 7, 8]),
        rewards=rewards,
        done=done,
    )
    adv, valid = advantages(ro, gamma=1.0, lam=0.5)
    # slot 0, seat 0: t=2: 1 + .3 - .4 = .9 (t=4 is the open end); t=0: (.4 - .5) + .5 * .9
    # slot 0, seat 1: t=1: 0 + .1 - .2 (t=3 is open: its advantage does not flow back)
    # slot 1: t=1: 2 - .2 (terminal); t=0: -2 - .6 (terminal); t=2: open
    expected = [0.35, -2.6, -0.1, 1.8, 0.9, 0.0, 0.0, 0.0]
    assert np.allclose(adv, expected, atol=1e-6)
    assert valid.tolist() == [True, True, True, True, True, False, False, False]


# ---------------------------------------------------------------------- a real run
def _read_scalars(tb_dir: Path) -> set[str]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(tb_dir))
    acc.Reload()
    return set(acc.Tags()["scalars"])


def test_short_training_run_in_a_subprocess_writes_every_artefact(tmp_path):
    out = tmp_path / "run"
    cmd = [
        sys.executable, "-m", "training.app.cli", "train",
        "--config", str(ROOT / "configs/quickstart.yaml"),
        "--output_dir", str(out), "--total_steps", "2048", "--num_envs", "16",
        "--rollout_steps", "32", "--num_players", "[3, 5]", "--minibatch_size", "128",
        "--eval_interval", "2", "--eval_games", "3", "--final_eval_games", "5",
        "--eval_opponents", "[random, greedy]", "--bot_opponents", "[greedy, random]",
        "--bot_fraction", "0.5", "--snapshot_interval", "1", "--torch_threads", "1",
        "--progress", "false", "--hidden", "[64, 64]",
    ]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for name in ("config.yaml", "checkpoint.pt", "policy.pt", "history.json", "arena.md"):
        assert (out / name).is_file(), name
    assert (out / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "policy.pt").stat().st_size < (out / "checkpoint.pt").stat().st_size
    table = (out / "arena.md").read_text()
    assert table.count("\n| ") == 4  # 2 bots x 2 seat counts
    assert "| 2 x random | 3 |" in proc.stdout and "| 4 x greedy | 5 |" in proc.stdout
    tags = _read_scalars(out / "tb")
    for tag in (
        "losses/policy_loss", "losses/value_loss", "losses/approx_kl", "losses/clipfrac",
        "losses/explained_variance", "losses/entropy", "charts/samples_per_s",
        "eval/win_rate/random/3p", "eval/win_rate/greedy/5p",
    ):  # fmt: skip
        assert tag in tags, tag
    saved = build_config(PPOConfig, out / "config.yaml")
    assert saved.total_steps == 2048 and saved.hidden == [64, 64]
    agent = PolicyAgent.load(out / "policy.pt")
    assert agent.network.hidden == [64, 64]


def _tiny_config(out: Path, **changes) -> PPOConfig:
    cfg = PPOConfig(
        seed=3,
        output_dir=str(out),
        total_steps=6 * 16 * 12,
        num_envs=16,
        rollout_steps=12,
        num_players=[3, 4, 6],
        bot_opponents=["greedy", "random"],
        bot_fraction=0.5,
        snapshot_interval=1,
        pool_size=2,
        minibatch_size=64,
        hidden=[32, 32],
        eval_interval=0,
        final_eval_games=0,
        checkpoint_interval=3,
        torch_threads=1,
        progress=False,
        tensorboard=False,
    )
    return dataclasses.replace(cfg, **changes)


def _weights(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, weights_only=True)["state_dict"]


def test_resume_after_a_kill_gives_the_same_parameters_as_an_uninterrupted_run(tmp_path):
    train(_tiny_config(tmp_path / "a"))
    stopped = train(_tiny_config(tmp_path / "b"), stop_after=3)
    assert stopped == {"stopped_after": 3}
    assert not (tmp_path / "b" / "policy.pt").exists()
    cfg, data = load_resume(tmp_path / "b", {})
    assert data["training"]["update"] == 3
    train(cfg, data)
    a, b = _weights(tmp_path / "a" / "policy.pt"), _weights(tmp_path / "b" / "policy.pt")
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key
    # the comparison can fail: another seed gives other parameters
    train(_tiny_config(tmp_path / "c", seed=4))
    c = _weights(tmp_path / "c" / "policy.pt")
    assert not all(torch.equal(a[k], c[k]) for k in a)


def test_resume_errors_say_what_is_wrong(tmp_path, capsys):
    with pytest.raises(ValueError, match="does not exist"):
        load_resume(tmp_path / "nothing", {})
    net = PolicyNetwork(hidden=[8])
    write_checkpoint(checkpoint_header(net), tmp_path / "policy.pt")
    with pytest.raises(ValueError, match="holds a policy only"):
        load_resume(tmp_path / "policy.pt", {})
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "checkpoint.pt").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(SystemExit) as exit_info:
        main(["--resume", str(tmp_path / "broken")])
    assert exit_info.value.code == 2
    assert "cannot be read as a torch checkpoint" in capsys.readouterr().err
    train(_tiny_config(tmp_path / "run"), stop_after=3)
    with pytest.raises(ConfigError, match="cannot change: learning_rate"):
        load_resume(tmp_path / "run", {"learning_rate": 0.1})
    cfg, _ = load_resume(tmp_path / "run", {"total_steps": 10_000})  # allowed: run longer
    assert cfg.total_steps == 10_000


def test_trained_policy_plays_in_gnome_play_and_eval(tmp_path, monkeypatch, capsys):
    net = PolicyNetwork(hidden=[16])
    net.reset_parameters(torch.Generator().manual_seed(0))
    path = write_checkpoint(checkpoint_header(net), tmp_path / "p.pt")
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    args = ["play", "--players", "3", "--seat", "2", "--opponents", f"ppo:{path}"]
    assert gnome_main(args) == 0
    assert capsys.readouterr().out.count("PolicyAgent(") == 2
    lineup = f"ppo:{path},greedy,random"
    assert gnome_main(["eval", "--players", "3", "--lineup", lineup, "--games", "3",
                       "--no-progress"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "ppo:" in out and "greedy" in out


# ---------------------------------------------------------------------- imitation warm start
def test_teacher_chunks_are_pure_and_record_legal_teacher_actions():
    from gnome_env.gnoming import RulesConfig
    from training.gnoming.ppo import teacher_chunk

    short = RulesConfig(rounds=1, max_turns_per_round=3).to_dict()  # games end within 40 steps
    args = ("greedy", short, [3, 6], "score", 1.0, 40, 17)
    a, b = teacher_chunk(*args), teacher_chunk(*args)
    for key in a:
        assert np.array_equal(a[key], b[key]), key
    assert len(a["actions"]) == 40 * 64  # every decision of every game
    assert a["masks"][np.arange(len(a["actions"])), a["actions"]].all()
    done, open_ = a["finished"], ~a["finished"]
    assert done.any() and open_.any()  # games that ended, and the games begun after them
    assert np.any(a["returns"][done] != 0) and np.all(a["returns"][open_] == 0)
    c = teacher_chunk(*args[:-1], 18)
    assert not np.array_equal(a["actions"][:200], c["actions"][:200])


def test_warm_start_learns_to_agree_with_the_teacher(tmp_path):
    from gnome_env.gnoming import RulesConfig
    from training.gnoming.ppo import pretrain

    cfg = _tiny_config(
        tmp_path, pretrain_teacher="greedy", pretrain_decisions=12000, pretrain_epochs=4,
        hidden=[64, 64], minibatch_size=64, pretrain_learning_rate=0.003,
    )  # fmt: skip
    net = PolicyNetwork(RulesConfig(), cfg.hidden)
    net.reset_parameters(torch.Generator().manual_seed(0))
    logged = []
    figures = pretrain(net, cfg, RulesConfig(), torch.device("cpu"), lambda f, s: logged.append(s))
    assert logged == [1, 2, 3, 4]  # one report per epoch
    assert figures["pretrain/decisions"] > 8000  # decisions of chains still open are dropped
    assert figures["pretrain/accuracy"] > figures["pretrain/accuracy_before"] + 0.15


def test_init_policy_starts_from_given_weights_and_bad_ones_are_refused(tmp_path, capsys):
    start = PolicyNetwork(hidden=[32, 32])
    start.reset_parameters(torch.Generator().manual_seed(99))
    path = write_checkpoint(checkpoint_header(start), tmp_path / "start.pt")
    cfg = _tiny_config(tmp_path / "run", init_policy=str(path), total_steps=1, learning_rate=1e-9)
    train(cfg)  # one update with a negligible step: the weights stay those of start.pt
    trained = _weights(tmp_path / "run" / "policy.pt")
    for key, value in start.state_dict().items():
        assert torch.allclose(trained[key], value, atol=1e-6), key
    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(ROOT / "configs/quickstart.yaml"), "--init_policy", str(path)])
    assert exit_info.value.code == 2
    assert (
        "has hidden layers [32, 32]; the config says hidden=[256, 256]" in capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        main(["--config", str(ROOT / "configs/quickstart.yaml"), "--init_policy", "nope.pt"])
    assert "does not exist" in capsys.readouterr().err
    # a network with the Greedy features cannot start a run without them (and vice versa)
    with_features = PolicyNetwork(hidden=[32, 32], features=True)
    path = write_checkpoint(checkpoint_header(with_features), tmp_path / "features.pt")
    with pytest.raises(SystemExit) as exit_info:
        main(["--config", str(ROOT / "configs/quickstart.yaml"), "--hidden", "[32, 32]",
              "--features", "false", "--init_policy", str(path)])  # fmt: skip
    assert exit_info.value.code == 2
    assert "has features=True; the config says features=False" in capsys.readouterr().err


# ---------------------------------------------------------------------- reward shaping
def test_layout_potential_equals_greedys_estimate_on_real_positions():
    from agents.gnoming.heuristics import expected_layout_score
    from gnome_env.gnoming import RulesConfig
    from gnome_env.gnoming.information import SeatView
    from gnome_env.gnoming.vector import VectorGame
    from training.gnoming.ppo import LayoutPotential

    rules = RulesConfig()
    potential = LayoutPotential(rules)
    vec = VectorGame(rules, 64, num_players=[3, 5, 7])
    vec.reset(seed=4)
    rng = np.random.default_rng(4)
    seen = set()
    for _ in range(300):
        tokens, mask, *_ = vec.step(vec.sample_actions(rng))
        got = potential.estimate(tokens)
        for b in range(0, 64, 5):
            view = SeatView.from_tokens(tokens[b], mask[b], rules)
            want = expected_layout_score(view.layouts[view.seat], view.unseen_counter())
            assert got[b] == pytest.approx(want, abs=1e-9)
            seen.add(round(want, 3))
    assert len(seen) > 100  # many different layouts were compared, lines included
    assert np.allclose(potential(tokens), -potential.estimate(tokens) / 10)


def test_shaping_adds_gamma_phi_next_minus_phi_along_each_chain():
    """One slot, seat 0 decides at t=0,1 (potentials .2 then .5), the game ends at t=1
    paying 1; seat 1's decision at t=2 (new game) stays open. gamma .9, lambda 1, values 0."""
    z = np.zeros
    rewards = z((3, 1, 7), dtype=np.float32)
    rewards[1, 0, 0] = 1.0
    done = z((3, 1), dtype=bool)
    done[1, 0] = True
    ro = Rollout(
        tokens=z((3, 119), np.int16), masks=np.ones((3, 33), bool), actions=z(3, np.int64),
        log_probs=z(3, np.float32), values=z(3, np.float32), slot=z(3, np.int64),
        seat=np.array([0, 0, 1]), step_start=np.array([0, 1, 2, 3]), rewards=rewards,
        done=done, potentials=np.array([0.2, 0.5, 0.7], np.float32),
    )  # fmt: skip
    adv, valid = advantages(ro, gamma=0.9, lam=1.0)
    # t=1: reward 1, terminal: 1 + .9 * 0 - .5 = .5; t=0: 0 + .9 * .5 - .2 + .9 * .5 = .7
    assert np.allclose(adv, [0.7, 0.5, 0.0], atol=1e-6)
    assert valid.tolist() == [True, True, False]


# The weights of the run below, on CPU, one torch thread, torch 2.13.0+cpu, numpy 2.4.6.
# History: first recorded with the single-file training/gnoming/ppo.py (digest f6b52ea2...), and the
# training.gnoming.ppo package reproduced it bit for bit (issue #14 item 4). The v1 generator (item
# 1)
# deals other games, so the digest was re-recorded then, with the package unchanged.
# Issue #13 item 3 (faster PPO) left every other part of the arithmetic as it was -- the
# compiled first-layer backward, the compiled Greedy bot, the minibatch slicing and the
# foreach Adam all give the same floats -- so ``fused_adam: false`` still reproduces that
# digest; the default ``fused_adam: true`` (torch's fused Adam kernel, whose rounding
# differs in the last bits: same losses to ~1e-6 after an update,
# test_fused_adam_changes_the_weights_by_rounding_only) has its own.
# Recorded on an AMD EPYC machine (through 80e0433) and again, on the same code, on an Intel
# Xeon one (2026-12-02, issue #30 session): the processors' torch/numba kernels round apart.
PINNED_DIGEST = {
    "AuthenticAMD": "44bb5881464c8bb6996e7fe6c130648a1716485e2f94a091c5532b98ae75a12c",
    "GenuineIntel": "11dc103a883a7541e43a0d974e9f79c96649ecda249d0894b61769d528c3e0cb",
}
PINNED_DIGEST_FUSED_ADAM = {
    "AuthenticAMD": "2aa6436176142f89387a58a08be4dca9e0fca0d34eb12754e810503c651cb721",
    "GenuineIntel": "4946d8fa1e205570fb5fd8461a9227493a1eb2b46e5bdf9351e6d28c282fd224",
}


@pytest.mark.parametrize("fused_adam", [False, True])
def test_a_short_training_run_reaches_the_pinned_weights(tmp_path, fused_adam):
    """A short run through every part (self-play, snapshots, greedy, random and expert bots,
    features and expert hint, shaping, imitation warm start, evaluations, checkpoints) gives
    bit-identical weights to the pinned run (see PINNED_DIGEST for its history)."""
    import hashlib

    import numpy as np

    if torch.__version__ != "2.13.0+cpu" or not np.__version__.startswith("2.4."):
        pytest.skip(
            f"the digest was recorded with torch 2.13.0+cpu and numpy 2.4.x (here torch "
            f"{torch.__version__}, numpy {np.__version__})"
        )
    cfg = PPOConfig(
        seed=5, output_dir=str(tmp_path), total_steps=5 * 12 * 10, num_envs=12,
        rollout_steps=10, num_players=[3, 5, 7], bot_opponents=["greedy", "random", "expert"],
        bot_fraction=0.6, self_play_fraction=0.3, snapshot_interval=2, pool_size=2,
        minibatch_size=32, update_epochs=2, hidden=[32, 32], features=True, expert_hint=True,
        shaping=0.5, pretrain_teacher="greedy", pretrain_decisions=512, pretrain_epochs=1,
        eval_interval=2, eval_games=3, eval_opponents=["random"], final_eval_games=3,
        checkpoint_interval=2, torch_threads=1, progress=False, tensorboard=False,
        fused_adam=fused_adam,
    )  # fmt: skip
    cfg.validate()
    train(cfg)
    weights = _weights(tmp_path / "policy.pt")
    digest = hashlib.sha256()
    for key in sorted(weights):
        digest.update(key.encode())
        digest.update(weights[key].numpy().tobytes())
    table = PINNED_DIGEST_FUSED_ADAM if fused_adam else PINNED_DIGEST
    assert digest.hexdigest() == pinned_digest(table, "the Gnoming PPO pin")


def test_determinism_scope_a_two_thread_run_repeats_bit_for_bit(tmp_path):
    """docs/determinism.md's scope: on one machine a run repeats bit for bit at a fixed
    torch thread count, also at 2 threads (the quickstart's setting), where the dense
    products of a 256-wide network split their work between the threads. (The thread count
    is part of the recipe: another count may round differently; not asserted, as that
    depends on the machine's math library.)"""

    def weights_after(name: str) -> dict[str, torch.Tensor]:
        cfg = PPOConfig(
            seed=3, output_dir=str(tmp_path / name), total_steps=4 * 32 * 16, num_envs=32,
            rollout_steps=16, num_players=[3, 5, 7], bot_opponents=["greedy"],
            bot_fraction=0.3, self_play_fraction=0.5, minibatch_size=128, update_epochs=2,
            hidden=[256, 256], features=True, eval_interval=0, final_eval_games=0,
            torch_threads=2, progress=False, tensorboard=False,
        )  # fmt: skip
        cfg.validate()
        train(cfg)
        return _weights(tmp_path / name / "policy.pt")

    before = torch.get_num_threads()
    try:
        a, b = weights_after("a"), weights_after("b")
    finally:
        torch.set_num_threads(before)
    assert a.keys() == b.keys()
    assert all(torch.equal(a[k], b[k]) for k in a)
