"""The oracle labeller (training/nerts/oracle.py) and the figures distill.py reports from its
labels: which actions it values, that it reads the true deal, and exact label and gain sums."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.nerts import _bot_kernels as BK
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.vector import NertsVectorEngine
from training.nerts.distill import HOLD_OUT, held_gains, oracle_labels, parse_args
from training.nerts.oracle import OracleBuffers, oracle_batch


def _table(players: int, envs: int, seed: int, steps: int):
    """``envs`` games of ``players`` after ``steps`` steps of compiled experts everywhere."""
    config = NertsConfig(num_players=players, max_hands=1, max_steps_per_hand=400)
    engine = NertsVectorEngine(config, envs, observations="none")
    engine.reset(seed=seed)
    st, prm, ids, counts = engine.compiled_state()
    kinds = np.zeros((envs, 6), np.int64)
    kinds[:, :players] = BK.KIND_EXPERT
    sc, bs = np.zeros(K.SCRATCH, np.int64), BK.empty_scratch(engine.n_actions)
    for _ in range(steps):
        joint = np.zeros((envs, 6), np.int64)
        BK.decide_batch(st, prm, ids, counts, kinds, sc, bs, joint)
        engine.step(joint)
    joint = np.zeros((envs, 6), np.int64)
    BK.decide_batch(st, prm, ids, counts, kinds, sc, bs, joint)
    return engine, joint[:, 0]


def _values(engine, keys, horizon=40):
    st, prm, ids, counts = engine.compiled_state()
    qv = np.zeros((st.shape[0], engine.n_actions), np.float32)
    bufs = OracleBuffers(engine.n_actions)
    oracle_batch(st, prm, ids, counts, keys, horizon, 0.1, *bufs.tail(), qv)
    return qv


def test_the_oracle_values_legal_candidates_only_the_experts_move_among_them():
    engine, expert = _table(3, 32, 5, 25)
    st, _, ids, counts = engine.compiled_state()
    before = st.copy()
    qv = _values(engine, np.arange(32, dtype=np.int64))
    assert np.array_equal(st, before)  # the games themselves are not touched
    valued = ~np.isnan(qv).all(1)
    assert valued.sum() >= 16
    for b in range(32):
        legal = set(ids[b, 0, : counts[b, 0]].tolist())
        got = set(np.flatnonzero(~np.isnan(qv[b])).tolist())
        if valued[b]:
            assert len(got) >= 2 and got <= legal and int(expert[b]) in got
        else:
            assert not got


def test_the_oracle_reads_the_true_deal_and_repeats_itself():
    """Swapping two face-down cards of seat 1's stock changes some of seat 0's values (the
    labels come from the real hidden cards); the same rows and keys give the same values."""
    engine, _ = _table(2, 48, 9, 10)
    keys = np.arange(48, dtype=np.int64) * 7
    first = _values(engine, keys, horizon=200)
    assert np.array_equal(first, _values(engine, keys, horizon=200), equal_nan=True)
    st = engine.compiled_state()[0]
    swapped = 0
    for b in range(48):
        if st[b, K.S_SLEN + 1] >= 2:
            at = K.STOCK + 1 * K.MAX_DECK
            st[b, at], st[b, at + 1] = st[b, at + 1], st[b, at]
            swapped += 1
    assert swapped > 40
    second = _values(engine, keys, horizon=200)
    assert np.array_equal(np.isnan(first), np.isnan(second))  # the same candidates
    assert not np.array_equal(first, second, equal_nan=True)


def test_oracle_labels_leave_the_expert_only_beyond_the_margin():
    nan = np.nan
    qv = np.array(
        [
            [0.5, 0.7, 0.3, nan],  # 0.2 above the expert's (action 0): leaves it
            [0.5, 0.55, nan, nan],  # 0.05 above: stays at margin 0.1
            [nan, nan, nan, nan],  # nothing valued: the expert's move
            [0.2, nan, 0.9, 0.1],  # the expert's move is action 3 here
        ],
        np.float32,
    )
    hint = np.array([0, 0, 1, 3])
    assert oracle_labels(qv, hint, 0.1).tolist() == [1, 0, 1, 2]
    assert oracle_labels(qv, hint, 0.0).tolist() == [1, 1, 1, 2]


def test_held_gains_sum_the_values_of_the_students_choices():
    """Three positions, the expert's move is action 0 in each: the student leaves it for a
    move worth +0.3, for one worth -0.1, and for one not valued (counted 0); a shift of 1.5 on
    the expert's logit keeps only the first deviation (its logit lead is 2)."""
    nan = float("nan")
    value = torch.tensor([[0.2, 0.5, nan], [0.4, 0.3, nan], [0.1, 0.0, nan]])
    logits = torch.tensor([[0.0, 2.0, -5.0], [0.0, 1.0, -5.0], [0.0, -5.0, 1.0]])
    hint = torch.tensor([0, 0, 0])
    figures = held_gains(logits, hint, value)
    assert figures["shift0_off"] == pytest.approx(1.0)
    assert figures["shift0_gain"] == pytest.approx((0.3 - 0.1 + 0.0) / 3)
    assert figures["shift0_unvalued"] == pytest.approx(1 / 3)
    assert figures["shift1_off"] == pytest.approx(1 / 3)  # shift 1: ties of 1.0 vs 1.0 stay
    assert figures["shift1_gain"] == pytest.approx(0.3 / 3)
    assert figures["shift4_off"] == 0.0 and figures["shift4_gain"] == 0.0


def test_oracle_round_zero_plays_the_expert_so_its_labels_never_steer_the_games():
    """Two round-0 collections whose oracle labels differ (margins 0 and 0.5) meet the same
    positions: seat 0 plays the expert's move there, not the label. Every sample records
    its engine slot, by which distill holds out whole games."""
    from training.nerts.distill import collect

    flags = ["--envs", "20", "--steps", "12", "--players", "2", "--teacher", "oracle",
             "--target", "value"]  # fmt: skip
    runs = [
        collect(parse_args(["--out", "/nonexistent", *flags, "--margin", m]), None, 0, print)
        for m in ("0", "0.5")
    ]
    assert not np.array_equal(runs[0]["label"], runs[1]["label"])
    for key in ("obs", "mask", "hint", "slot"):
        assert np.array_equal(runs[0][key], runs[1][key])
    assert set(runs[0]["slot"].tolist()) <= set(range(20))
    assert (runs[0]["slot"] % HOLD_OUT == 0).any() and (runs[0]["slot"] % HOLD_OUT != 0).any()


def test_the_oracle_teacher_needs_value_targets(tmp_path, capsys):
    with pytest.raises(SystemExit):
        parse_args(["--out", str(tmp_path / "x"), "--teacher", "oracle"])
    assert "--teacher oracle needs --target value" in capsys.readouterr().err


def test_kind_gains_group_the_candidates_differences_by_kind():
    """bench/nerts_oracle_kinds.py: two positions (the expert waits in the first, turns in the
    second); each other valued candidate's difference lands in its kind, the expert's own
    move and unvalued actions in none."""
    from conftest import bench_script

    from gnome_env.nerts.actions import Kind

    script = bench_script("nerts_oracle_kinds")
    nan = np.nan
    values = np.full((2, 397), nan)
    values[0, :4] = [0.5, nan, 1.0, 0.0]  # wait (expert), -, turn +0.5, recycle -0.5
    values[1, :4] = [0.0, 1.0, 0.5, nan]  # wait -0.5, call +0.5, turn (expert), -
    values[1, 5] = 1.0  # a foundation play, +0.5
    gains = script.kind_gains(values, np.array([0, 2]))
    assert gains[Kind.TURN].tolist() == [0.5]
    assert gains[Kind.RECYCLE].tolist() == [-0.5]
    assert gains[Kind.WAIT].tolist() == [-0.5]
    assert gains[Kind.CALL].tolist() == [0.5]
    assert gains[Kind.TO_SLOT].tolist() == [0.5]
    assert all(len(gains[k]) == 0 for k in (Kind.SHIFT, Kind.TO_WORK, Kind.SLIDE))


def test_no_wait_deviations_drops_the_value_of_waiting_where_the_expert_acts():
    from training.nerts.distill import collect

    flags = ["--envs", "12", "--steps", "15", "--players", "2", "--teacher", "oracle",
             "--target", "value"]  # fmt: skip
    plain = collect(parse_args(["--out", "/nonexistent", *flags]), None, 0, lambda _l: None)
    dropped = collect(parse_args(["--out", "/nonexistent", *flags, "--no-wait-deviations"]),
                      None, 0, lambda _l: None)  # fmt: skip
    acts = plain["hint"] != 0  # the expert does something other than wait (action 0)
    assert (~np.isnan(plain["value"][acts, 0])).sum() > 10  # waiting was valued there
    assert np.isnan(dropped["value"][acts, 0]).all()
    waits = ~acts & ~np.isnan(plain["value"]).all(1)
    assert np.array_equal(plain["value"][waits], dropped["value"][waits], equal_nan=True)
    assert np.array_equal(plain["value"][:, 1:], dropped["value"][:, 1:], equal_nan=True)
