"""training.gnoming.qdistill: chunks are pure functions of their index, advantages are measured for
exactly the legal actions, an interrupted run resumes, the fit writes a loadable policy that
follows Expert where it predicts no gain, and bad settings are clear errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gnome_env.gnoming import _kernels as K

pytestmark = pytest.mark.skipif(not K.COMPILED, reason="generating needs numba")

torch = pytest.importorskip("torch")

from agents.gnoming.expert_kernel import expert_actions_batch  # noqa: E402
from agents.gnoming.learned import PolicyAgent  # noqa: E402
from gnome_env.gnoming.config import RulesConfig  # noqa: E402
from training.core.config import ConfigError, build_config  # noqa: E402
from training.gnoming.qdistill import (  # noqa: E402
    QDistillConfig,
    chunk_path,
    fit,
    generate,
    generate_chunk,
    main,
)


def small(tmp_path, **kw) -> QDistillConfig:
    base = dict(
        output_dir=str(tmp_path), workers=1, chunks=2, chunk_positions=24, samples=3,
        batch_games=8, record_prob=0.5, opening_prob=0.1, hidden=[32], epochs=2,
        minibatch=16, holdout=0.5, seed=3,
    )  # fmt: skip
    base.update(kw)
    cfg = QDistillConfig(**base)
    cfg.validate()
    return cfg


def test_a_chunk_is_a_pure_function_of_its_index_with_advantages_of_legal_actions(tmp_path):
    cfg = small(tmp_path)
    a = generate_chunk(cfg, 0, 1)
    b = generate_chunk(cfg, 0, 1)
    for key in a:
        np.testing.assert_array_equal(a[key], b[key])
    other = generate_chunk(cfg, 0, 0)
    assert not np.array_equal(a["tokens"], other["tokens"])
    assert len(a["tokens"]) == cfg.chunk_positions
    rows = np.arange(len(a["adv"]))
    assert (a["adv"][rows, a["expert"]] == 0).all()  # Expert's own move: advantage 0
    np.testing.assert_array_equal(~np.isnan(a["adv"]), a["masks"])  # measured iff legal
    assert (a["masks"].sum(1) >= 2).all()  # only real choices are recorded
    # the recorded expert action is the compiled Expert's (= ExpertAgent's) move
    np.testing.assert_array_equal(
        a["expert"], expert_actions_batch(a["tokens"], a["masks"], RulesConfig())
    )
    opening = a["tokens"][:, K.TOK_PHASE] == 0
    assert opening.any() and (~opening).any()
    assert np.nanmax(a["adv"][opening]) == 0  # opening flips: Expert's flip is the best


def test_generate_resumes_and_fit_writes_a_policy_that_follows_expert(tmp_path, capsys):
    cfg = small(tmp_path)
    generate(cfg)
    first = chunk_path(cfg, 0, 0).read_bytes()
    chunk_path(cfg, 0, 1).unlink()  # as if interrupted
    generate(cfg)
    assert chunk_path(cfg, 0, 0).read_bytes() == first  # kept, not redone
    assert chunk_path(cfg, 0, 1).exists()
    summary = fit(cfg)
    assert summary["train_positions"] == 24 and summary["holdout_positions"] == 24
    sweep = summary["play_margin_sweep"]
    assert [row["play_margin"] for row in sweep] == cfg.play_margins
    best = max(sweep, key=lambda row: row["gain_per_position"])
    assert summary["play_margin"] == best["play_margin"]
    kept = summary["history"][summary["kept_epoch"] - 1]["holdout_loss"]
    assert kept == min(row["holdout_loss"] for row in summary["history"])  # early stopping
    agent = PolicyAgent.load(tmp_path / "policy.pt")
    assert agent.network.expert_hint and agent.network.features


def test_the_fit_moves_the_logit_differences_toward_the_measured_advantages(tmp_path):
    cfg = small(tmp_path, epochs=8, learning_rate=0.003, chunk_positions=48)
    generate(cfg)
    history = fit(cfg)["history"]
    assert history[-1]["train_loss"] < 0.8 * history[0]["train_loss"]


@pytest.mark.parametrize(
    ("override", "message"),
    [({"stage": "train"}, "stage='train'"), ({"num_players": [2]}, "num_players"),
     ({"samples": 0}, "samples"), ({"record_prob": 0}, "record_prob"),
     ({"play_margins": [-1.0]}, "play_margins")],
)  # fmt: skip
def test_bad_settings_are_clear_errors(override, message):
    with pytest.raises(ConfigError, match=message):
        build_config(QDistillConfig, None, override)


def test_fit_without_data_is_a_clear_error(tmp_path, capsys):
    assert main(["--output_dir", str(tmp_path), "--stage", "fit"]) == 2
    assert "missing: run --stage generate first" in capsys.readouterr().err


def test_gnome_train_runs_a_config_whose_trainer_is_qdistill(tmp_path, capsys):
    from training.app.cli import main as gnome

    cfg = tmp_path / "d.yaml"
    cfg.write_text(f"trainer: qdistill\noutput_dir: {tmp_path / 'run'}\nstage: fit\n")
    assert gnome(["train", "--config", str(cfg)]) == 2  # qdistill's own error: no data yet
    assert "missing: run --stage generate first" in capsys.readouterr().err
    cfg.write_text("trainer: qdistil\n")
    assert gnome(["train", f"--config={cfg}"]) == 2
    err = capsys.readouterr().err
    assert "trainer: 'qdistil' is not known; allowed: " in err and "qdistill" in err


def test_win_weight_changes_only_the_values_of_last_round_positions(tmp_path):
    # R23: only a rollout that ends the game (the last round) can earn the win bonus, so a
    # run with win_weight records the same positions as one without, with the same values
    # before the last round and other values in it.
    kw = dict(chunks=1, chunk_positions=60, record_prob=0.01, samples=2, batch_games=4)
    plain = generate_chunk(small(tmp_path, **kw), 0, 0)
    win = generate_chunk(small(tmp_path, win_weight=30.0, **kw), 0, 0)
    np.testing.assert_array_equal(plain["tokens"], win["tokens"])
    last = win["tokens"][:, K.TOK_ROUND] == RulesConfig().rounds - 1
    searched = win["tokens"][:, K.TOK_PHASE] != 0
    assert (last & searched).sum() >= 3 and (~last & searched).sum() >= 3
    np.testing.assert_array_equal(plain["adv"][~last], win["adv"][~last])
    changed = ~np.all(np.isclose(plain["adv"], win["adv"], equal_nan=True), axis=1)
    assert changed[last & searched].any()


SHIPPED = "agents/policies/distill2_3to7/policy.pt"


def test_a_rollout_network_changes_the_values_not_the_positions(tmp_path):
    # rollout_network: the recorded seat's later moves in the rollouts are the network's.
    # The positions (Expert's games, the same draws) stay; the values change where the
    # network plays otherwise than Expert, and Expert's own move keeps advantage 0.
    from pathlib import Path

    shipped = str(Path(__file__).resolve().parents[2] / SHIPPED)
    kw = dict(chunks=1, chunk_positions=40, record_prob=0.3, opening_prob=0.0, samples=2)
    plain = generate_chunk(small(tmp_path, **kw), 0, 0)
    net = generate_chunk(small(tmp_path, rollout_network=shipped, **kw), 0, 0)
    for key in ("tokens", "masks", "expert"):
        np.testing.assert_array_equal(plain[key], net[key])
    rows = np.arange(len(net["adv"]))
    assert (net["adv"][rows, net["expert"]] == 0).all()
    np.testing.assert_array_equal(~np.isnan(net["adv"]), net["masks"])
    changed = ~np.all(np.isclose(plain["adv"], net["adv"], equal_nan=True), axis=1)
    assert changed.sum() >= 5


@pytest.mark.parametrize(
    "setting, role", [("rollout_network", "the rollouts"), ("position_network", "its seat")]
)
def test_an_unusable_rollout_or_position_network_is_a_clear_error(tmp_path, capsys, setting, role):
    bad = tmp_path / "not_a_policy.pt"
    bad.write_text("hello")
    argv = ["--output_dir", str(tmp_path / "run"), "--stage", "generate", "--workers", "1"]
    assert main([*argv, f"--{setting}", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{setting}=" in err and f"cannot play {role}" in err
    assert not (tmp_path / "run" / "data").exists() or not any(
        (tmp_path / "run" / "data").iterdir()
    )


def test_two_workers_with_a_rollout_network_write_the_same_chunks_as_one(tmp_path):
    # The parent loads the network (torch) before starting the workers; they are spawned,
    # not forked (a fork of a process holding torch's threads could hang). A subprocess
    # with a timeout turns a hang into a failure. Chunks depend only on their index.
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    args = [
        "--rollout_network", str(root / SHIPPED), "--chunks", "1", "--chunk_positions", "6",
        "--samples", "2", "--batch_games", "4", "--record_prob", "0.3", "--seed", "5",
        "--stage", "generate",
    ]  # fmt: skip
    code = "import sys; from training.gnoming.qdistill import main; sys.exit(main(sys.argv[1:]))"
    two = tmp_path / "two"
    proc = subprocess.run(
        [sys.executable, "-c", code, *args, "--workers", "2", "--output_dir", str(two)],
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    cfg = QDistillConfig(
        rollout_network=str(root / SHIPPED), chunks=1, chunk_positions=6, samples=2,
        batch_games=4, record_prob=0.3, seed=5, workers=2, output_dir=str(two),
    )  # fmt: skip
    for worker in (0, 1):
        saved = np.load(two / "data" / f"w{worker}_c0.npz")
        again = generate_chunk(cfg, worker, 0)
        for key in again:
            np.testing.assert_array_equal(saved[key], again[key])


def test_distill_gain_reports_the_measured_advantage_of_the_policys_choices(tmp_path, capsys):
    # bench/distill_gain.py on a chunk whose advantages are 0 for Expert's move and exactly
    # +1 for every other legal action: the gain per deviation is 1 and the gain per
    # position is the share of positions where the policy leaves Expert's move.
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "distill_gain", root / "bench" / "distill_gain.py"
    )
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    chunk = generate_chunk(small(tmp_path, chunk_positions=200, opening_prob=0.0), 0, 0)
    rows = np.arange(len(chunk["adv"]))
    adv = np.where(chunk["masks"], 1.0, np.nan).astype(np.float32)
    adv[rows, chunk["expert"]] = 0.0
    (tmp_path / "data").mkdir()
    np.savez(tmp_path / "data" / "w0_c0.npz", **{**chunk, "adv": adv})
    (tmp_path / "data" / "w0_c1.tmp.npz").write_bytes(b"a chunk still being written")
    assert bench.main(["--data", str(tmp_path / "data"), "--policy", str(root / SHIPPED)]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("all"))
    n, share, gain, _, _, per_dev = line.split()[1:]
    assert int(n.replace(",", "")) == 200
    assert float(share) > 0 and per_dev == "+1.000"  # it leaves Expert's move somewhere
    assert float(gain) == pytest.approx(float(share), abs=1e-3)
    with pytest.raises(SystemExit):
        bench.main(["--data", str(tmp_path / "nothing"), "--policy", str(root / SHIPPED)])
    (tmp_path / "data" / "w0_c2.npz").write_bytes(b"damaged")
    with pytest.raises(SystemExit):
        bench.main(["--data", str(tmp_path / "data"), "--policy", str(root / SHIPPED)])
    assert "w0_c2.npz cannot be read" in capsys.readouterr().err


def test_a_fit_can_start_from_a_distilled_policy(tmp_path, capsys):
    # init_policy: the fit starts from the checkpoint's weights (its sizes, not hidden) and
    # counts the start as epoch 0 of the early stopping; with no epochs worth keeping the
    # written policy is the start itself (plus the chosen play margin on the hint weight).
    from pathlib import Path

    from agents.gnoming.learned import network_from_checkpoint, read_checkpoint

    shipped = str(Path(__file__).resolve().parents[2] / SHIPPED)
    cfg = small(tmp_path, init_policy=shipped, learning_rate=1.0, play_margins=[0.0])
    generate(cfg)
    summary = fit(cfg)
    assert [row["epoch"] for row in summary["history"]] == [0, 1, 2]
    assert summary["kept_epoch"] == 0  # a learning rate of 1.0 only makes it worse
    start = network_from_checkpoint(read_checkpoint(shipped)).state_dict()
    out = network_from_checkpoint(read_checkpoint(tmp_path / "policy.pt")).state_dict()
    assert all(torch.equal(start[k], out[k]) for k in start)


def test_an_unusable_init_policy_is_a_clear_error(tmp_path, capsys):
    from agents.gnoming.learned import PolicyNetwork, checkpoint_header, write_checkpoint

    plain = tmp_path / "plain.pt"
    write_checkpoint(checkpoint_header(PolicyNetwork(RulesConfig(), [16])), plain)
    cfg = small(tmp_path)
    generate(cfg)
    argv = ["--output_dir", str(tmp_path), "--stage", "fit", "--workers", "1", "--chunks", "2"]
    assert main([*argv, "--init_policy", str(plain)]) == 2
    assert "needs a network with features and expert_hint" in capsys.readouterr().err
    assert main([*argv, "--init_policy", str(tmp_path / "none.pt")]) == 2
    assert "cannot start the fit" in capsys.readouterr().err


def test_extra_data_chunks_join_the_training_part_and_a_bad_directory_is_a_clear_error(
    tmp_path, capsys
):
    # extra_data: every chunk of another run's data directory is trained on, none held out
    other = small(tmp_path / "other", seed=4, chunks=3)
    generate(other)
    cfg = small(tmp_path / "main")
    generate(cfg)
    plain = fit(cfg)
    extra = dataclasses.replace(cfg, extra_data=[str(tmp_path / "other" / "data")])
    summary = fit(extra)
    assert plain["train_positions"] == 24 and plain["holdout_positions"] == 24
    assert summary["train_positions"] == 24 + 3 * 24  # all three chunks of the other run
    assert summary["holdout_positions"] == 24  # the holdout is still the main run's own
    argv = ["--output_dir", str(tmp_path / "main"), "--stage", "fit", "--workers", "1"]
    argv += ["--chunks", "2", "--holdout", "0.5", "--overwrite"]  # a re-fit replaces policy.pt
    for bad in (tmp_path / "missing", tmp_path / "other"):  # no chunks directly inside
        assert main([*argv, "--extra_data", f"[{bad}]"]) == 2
        err = capsys.readouterr().err
        assert "holds no data chunks" in err and str(bad) in err
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "w0_c0.npz").write_bytes(b"not a chunk")
    assert main([*argv, "--extra_data", f"[{broken}]"]) == 2
    assert "w0_c0.npz cannot be read" in capsys.readouterr().err


def test_a_position_network_plays_one_seat_per_game_and_only_its_decisions_are_recorded(
    tmp_path,
):
    # position_network: in each game one seat, drawn per game from the chunk's own stream
    # default_rng([seed, worker, chunk, 1]) (every slot at the start, then each slot whose
    # game ended, in slot order), is played by the network; only that seat's decisions are
    # recorded. Replaying that contract independently, the recorded positions must be, in
    # order, a subsequence of the network seat's positions with a real choice, each with
    # Expert's move at that position -- which fails if the network does not play its seat
    # (the games would differ) or if other seats' decisions are recorded.
    from pathlib import Path

    from agents.gnoming.expert_kernel import expert_tables
    from agents.gnoming.learned import network_from_checkpoint, read_checkpoint
    from agents.gnoming.net_kernel import net_action, net_scratch, network_tables
    from gnome_env.core import rng as grng
    from gnome_env.gnoming.vector import VectorGame

    shipped = str(Path(__file__).resolve().parents[2] / SHIPPED)
    kw = dict(chunks=1, chunk_positions=30, record_prob=0.4, opening_prob=0.5, samples=2)
    cfg = small(tmp_path, position_network=shipped, batch_games=4, **kw)
    data = generate_chunk(cfg, 0, 0)
    plain = generate_chunk(small(tmp_path, batch_games=4, **kw), 0, 0)
    assert not np.array_equal(data["tokens"], plain["tokens"])

    rules = RulesConfig()
    vec = VectorGame(rules, cfg.batch_games, num_players=list(cfg.num_players))
    decision = vec.reset(seed=grng.derive_seed(grng.ARENA, cfg.seed, 1000, 1))
    seat_pick = np.random.default_rng([cfg.seed, 0, 0, 1])
    learner = seat_pick.integers(0, vec.num_players)
    tables = network_tables(network_from_checkpoint(read_checkpoint(shipped)))
    scratch = net_scratch(tables)
    wf, wi, _ = expert_tables(rules)
    wf, wi = wf.copy(), wi.copy()
    matched, deviations, steps = 0, 0, 0
    while matched < len(data["tokens"]) and steps < 20_000:
        experts = expert_actions_batch(decision.tokens, decision.mask, rules)
        actions = experts.copy()
        for b in range(cfg.batch_games):
            if decision.seat[b] != learner[b]:
                continue
            actions[b] = net_action(decision.tokens[b], decision.mask[b], wf, wi, tables, scratch)
            deviations += int(actions[b] != experts[b])
            if decision.mask[b].sum() < 2 or matched == len(data["tokens"]):
                continue
            if np.array_equal(decision.tokens[b], data["tokens"][matched]):
                assert data["expert"][matched] == experts[b]
                np.testing.assert_array_equal(data["masks"][matched], decision.mask[b])
                matched += 1
        step = vec.step(actions)
        decision = step
        ended = np.flatnonzero(step.done)
        learner[ended] = seat_pick.integers(0, vec.num_players[ended])
        steps += 1
    assert matched == len(data["tokens"])
    assert deviations > 0  # the network left Expert's move on the way: it did play
