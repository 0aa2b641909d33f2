"""training.gnoming.search_distill (expert iteration): the recorded moves are the search bot's in
its own games (replayed independently), chunks are pure functions of their index, the fit
keeps the epoch with the lowest held-out cross-entropy, and bad settings are clear errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gnome_env.gnoming import _kernels as K

pytestmark = pytest.mark.skipif(not K.COMPILED, reason="the search bot needs numba")

torch = pytest.importorskip("torch")

from training.gnoming.search_distill import (  # noqa: E402
    SearchDistillConfig,
    chunk_path,
    fit,
    generate,
    generate_chunk,
    main,
)

SHIPPED = str(Path(__file__).resolve().parents[2] / "agents/policies/distill2_3to7/policy.pt")


def small(tmp_path, **kw) -> SearchDistillConfig:
    base = dict(
        output_dir=str(tmp_path), workers=1, chunks=2, chunk_positions=24, batch_games=4,
        num_players=[3, 5], epochs=2, minibatch=8, holdout=0.5, seed=5,
        search_policy=SHIPPED, init_policy=SHIPPED,
    )  # fmt: skip
    base.update(kw)
    cfg = SearchDistillConfig(**base)
    cfg.validate()
    return cfg


def test_the_recorded_moves_are_the_search_bots_at_every_real_choice_of_its_seat(tmp_path):
    # Replays the documented contract: the stream default_rng([seed, worker, chunk, 2])
    # gives the search bot's seed, then its seat in every slot, then one for each slot whose
    # game ended (slot order); the other seats play Expert. Every decision of that seat with
    # two or more legal actions is recorded, in order, with Expert's and the bot's move.
    from agents.gnoming.expert_kernel import expert_actions_batch
    from agents.gnoming.net_search import NetSearchAgent
    from gnome_env.core import rng as grng
    from gnome_env.gnoming.config import RulesConfig
    from gnome_env.gnoming.encoding import ObservationEncoder
    from gnome_env.gnoming.vector import VectorGame

    cfg = small(tmp_path)
    data = generate_chunk(cfg, 0, 1)
    again = generate_chunk(cfg, 0, 1)
    for key in data:
        np.testing.assert_array_equal(data[key], again[key])  # a pure function of its index
    assert len(data["tokens"]) == cfg.chunk_positions
    assert (data["masks"].sum(1) >= 2).all()
    assert data["masks"][np.arange(len(data["search"])), data["search"]].all()

    rules = RulesConfig()
    stream = np.random.default_rng([cfg.seed, 0, 1, 2])
    bot = NetSearchAgent(SHIPPED, seed=int(stream.integers(2**62)))
    enc = ObservationEncoder(rules)
    vec = VectorGame(rules, cfg.batch_games, num_players=cfg.num_players)
    decision = vec.reset(seed=grng.derive_seed(grng.ARENA, cfg.seed, 2000, 2))
    seat = stream.integers(0, vec.num_players)
    seen: dict[str, list] = {"tokens": [], "expert": [], "search": []}
    while len(seen["tokens"]) < cfg.chunk_positions:
        experts = expert_actions_batch(decision.tokens, decision.mask, rules)
        actions = experts.copy()
        for b in range(cfg.batch_games):
            if decision.seat[b] != seat[b] or decision.mask[b].sum() < 2:
                continue
            actions[b] = bot.act(enc.expand(decision.tokens[b]), decision.mask[b])
            seen["tokens"].append(decision.tokens[b].copy())
            seen["expert"].append(experts[b])
            seen["search"].append(actions[b])
        decision = vec.step(actions)
        ended = np.flatnonzero(decision.done)
        seat[ended] = stream.integers(0, vec.num_players[ended])
    n = cfg.chunk_positions
    np.testing.assert_array_equal(data["tokens"], np.array(seen["tokens"][:n]))
    np.testing.assert_array_equal(data["expert"], np.array(seen["expert"][:n]))
    np.testing.assert_array_equal(data["search"], np.array(seen["search"][:n]))


def test_generate_resumes_and_the_fit_keeps_the_best_epoch(tmp_path, capsys):
    cfg = small(tmp_path)
    generate(cfg)
    first = chunk_path(cfg, 0, 0).read_bytes()
    chunk_path(cfg, 0, 1).unlink()  # as if interrupted
    generate(cfg)
    assert chunk_path(cfg, 0, 0).read_bytes() == first and chunk_path(cfg, 0, 1).exists()
    summary = fit(cfg)
    assert summary["train_positions"] == 24 and summary["holdout_positions"] == 24
    history = summary["history"]
    assert [row["epoch"] for row in history] == [0, 1, 2]
    kept = history[summary["kept_epoch"]]["holdout_cross_entropy"]
    assert kept == min(row["holdout_cross_entropy"] for row in history)
    assert all(0.0 <= row["holdout_agrees_with_search"] <= 1.0 for row in history)
    # a learning rate far too large only makes it worse: the start (epoch 0) is kept
    from agents.gnoming.learned import network_from_checkpoint, read_checkpoint

    wild = fit(small(tmp_path, learning_rate=5.0))
    assert wild["kept_epoch"] == 0
    start = network_from_checkpoint(read_checkpoint(SHIPPED)).state_dict()
    out = network_from_checkpoint(read_checkpoint(tmp_path / "policy.pt")).state_dict()
    assert all(torch.equal(start[k], out[k]) for k in start)


def test_bad_settings_are_clear_errors(tmp_path, capsys):
    from training.app.cli import main as gnome

    bad = tmp_path / "not_a_policy.pt"
    bad.write_text("hello")
    argv = ["--output_dir", str(tmp_path / "run"), "--stage", "generate", "--workers", "1"]
    assert main([*argv, "--search_policy", str(bad)]) == 2
    assert "search_policy=" in capsys.readouterr().err
    assert main([*argv, "--num_players", "[2]"]) == 2
    assert "num_players" in capsys.readouterr().err
    assert main(["--output_dir", str(tmp_path / "x"), "--stage", "fit", "--chunks", "1"]) == 2
    assert "is missing: run --stage generate first" in capsys.readouterr().err
    config = tmp_path / "exit.yaml"
    config.write_text(f"trainer: search_distill\noutput_dir: {tmp_path / 'y'}\nstage: fit\n")
    assert gnome(["train", "--config", str(config), "--chunks", "1"]) == 2  # dispatched here
    assert "is missing" in capsys.readouterr().err
