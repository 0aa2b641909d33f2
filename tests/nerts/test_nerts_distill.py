"""Distilling the Nerts search bot (training/nerts/distill.py): what a round collects, that a
run repeats exactly, that its policy loads and plays, and its argument errors."""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest
import torch
from conftest import nerts_agent_plays_legal_moves, policy_and_expert_moves

from agents.nerts.learned import NertsPolicyNetwork, read_checkpoint
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig
from gnome_env.nerts.encoding import NertsEncoder
from training.nerts.distill import collect, main, parse_args

TINY = ["--envs", "4", "--steps", "30", "--rounds", "2", "--samples", "2", "--hidden", "16"]
TINY += ["--epochs", "1", "--players", "2", "3"]


def test_round_zero_plays_the_teacher_and_labels_every_multi_action_position():
    """A round's samples are seat 0's positions with more than one legal action; labels
    (the search's moves) and hints (the compiled expert's, equal to the Python expert's by
    test_nerts_bot_kernels.py) are legal there, and the labels leave the hint somewhere."""
    args = parse_args(["--out", "/nonexistent/never-written", *TINY])
    rules = NertsConfig()
    net = NertsPolicyNetwork(NertsEncoder(rules).size, rules.n_actions, [16], expert_hint=True)
    data = collect(args, net, 0, lambda _line: None)
    n = len(data["label"])
    assert n > 60 and data["obs"].shape == (n, NertsEncoder(rules).size)
    assert all(data["mask"][i, data["label"][i]] for i in range(n))  # labels are legal
    assert all(data["mask"][i, data["hint"][i]] for i in range(n))
    assert data["mask"].sum(1).min() > 1  # single-action positions are not samples
    assert (data["label"] != data["hint"]).any()


def test_a_run_repeats_exactly_and_its_policy_plays(tmp_path, capsys):
    assert main(["--out", str(tmp_path / "a"), *TINY]) == 0
    assert main(["--out", str(tmp_path / "b"), *TINY]) == 0
    a = read_checkpoint(tmp_path / "a" / "policy.pt")
    b = read_checkpoint(tmp_path / "b" / "policy.pt")["state_dict"]
    assert all(torch.equal(a["state_dict"][k], b[k]) for k in b)  # same command, same weights
    assert a["network"] == {"hidden": [16], "expert_hint": True}
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert [r["round"] for r in summary["rounds"]] == [0, 1]
    assert summary["rounds"][1]["samples"] > summary["rounds"][0]["samples"]
    config = NertsConfig(num_players=2)
    agent = make_nerts_agent(f"ppo:{tmp_path / 'a' / 'policy.pt'}", 0, config)
    nerts_agent_plays_legal_moves(agent, config, 3, 30)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--players", "7"], "--players must be seat counts 2..6"),
        (["--rounds", "0"], "--rounds must be at least 1"),
        (["--lr", "0"], "--hidden and --lr must be positive"),
        (["--hint-init", "60"], "--hint-init must be in [0, 50]"),
    ],
)
def test_bad_arguments_are_clear_errors(tmp_path, capsys, flags, message):
    with pytest.raises(SystemExit) as exc:
        parse_args(["--out", str(tmp_path / "x"), *flags])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_an_existing_output_directory_is_never_replaced_unasked(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "policy.pt").write_text("someone's file")
    with pytest.raises(SystemExit):
        parse_args(["--out", str(out)])
    assert "already exists" in capsys.readouterr().err
    assert (out / "policy.pt").read_text() == "someone's file"
    assert isinstance(parse_args(["--out", str(out), "--overwrite"]), argparse.Namespace)


def test_the_hint_network_starts_at_the_expert():
    """Untrained, the student's most likely move is the hint (the expert's) everywhere."""
    rules = NertsConfig()
    net = NertsPolicyNetwork(NertsEncoder(rules).size, rules.n_actions, [16], expert_hint=True)
    net.reset_parameters(torch.Generator().manual_seed(0))
    args = parse_args(["--out", "/nonexistent/never-written", *TINY])
    data = collect(args, net, 0, lambda _line: None)
    with torch.no_grad():
        logits, _ = net(
            torch.as_tensor(data["obs"]).float(),
            torch.as_tensor(data["mask"]),
            torch.as_tensor(data["hint"]),
        )
    assert np.array_equal(logits.argmax(1).numpy(), data["hint"])


def test_value_targets_hold_the_searched_candidates_only():
    """``--target value``: a sample's values are NaN but for the searched candidates, which
    include the expert's move (the hint) and the label whenever anything was searched."""
    args = parse_args(["--out", "/nonexistent/never-written", *TINY, "--target", "value"])
    rules = NertsConfig()
    net = NertsPolicyNetwork(NertsEncoder(rules).size, rules.n_actions, [16], expert_hint=True)
    data = collect(args, net, 0, lambda _line: None)
    value = data["value"].astype(np.float32)
    searched = ~np.isnan(value).all(1)
    assert searched.sum() > 30
    for i in np.flatnonzero(searched):
        cands = np.flatnonzero(~np.isnan(value[i]))
        assert data["hint"][i] in cands and data["label"][i] in cands
        assert data["mask"][i, cands].all()  # only legal actions are searched


def test_a_teacher_with_turn_candidates_values_the_experts_move_and_the_turn_only(tmp_path, capsys):
    """``--candidates turn``: where anything was searched, exactly the expert's move and
    the turn have values and every label is one of them; the saved file serves a label
    student, and a run with other candidates refuses it before writing anything."""
    from gnome_env.nerts.actions import Kind, action_table

    out = tmp_path / "turn"
    flags = [*TINY, "--rounds", "1", "--target", "value", "--candidates", "turn"]
    assert main(["--out", str(out), *flags, "--save-samples"]) == 0
    saved = np.load(out / "samples.npz")
    table = action_table(NertsConfig())
    value = saved["value"].astype(np.float32)
    searched = np.flatnonzero(~np.isnan(value).all(1))
    assert len(searched) > 20
    for i in searched:
        cands = set(np.flatnonzero(~np.isnan(value[i])).tolist())
        hint = int(saved["hint"][i])
        assert hint in cands and len(cands) == 2
        assert table.decode((cands - {hint}).pop()).kind == Kind.TURN
    left = saved["label"][saved["label"] != saved["hint"]]
    assert {table.decode(int(a)).kind for a in left} <= {Kind.TURN}
    npz = str(out / "samples.npz")
    label = [f for f in flags if f not in ("--target", "value")]
    student = tmp_path / "label"
    more = ["--samples-from", npz, "--epochs", "2", "--save-epochs"]
    assert main(["--out", str(student), *label, *more]) == 0
    # --save-epochs: the student after each epoch; the last one is policy.pt
    final = read_checkpoint(student / "policy.pt")["state_dict"]
    first, second = (read_checkpoint(student / f"policy_epoch{k}.pt") for k in (1, 2))
    assert all(torch.equal(second["state_dict"][k], v) for k, v in final.items())
    assert not all(torch.equal(first["state_dict"][k], v) for k, v in final.items())
    assert first["training"]["distill"]["epoch"] == 1
    other = [f for f in flags if f not in ("--candidates", "turn")]
    assert main(["--out", str(tmp_path / "other"), *other, "--samples-from", npz]) == 2
    assert "'candidates': 'turn'" in capsys.readouterr().err
    assert not (tmp_path / "other").exists()
    with pytest.raises(SystemExit) as stop:
        main(["--out", str(tmp_path / "bad"), *flags, "--candidates", "turns"])
    assert stop.value.code == 2 and "unknown kind 'turns'" in capsys.readouterr().err


def test_value_loss_is_zero_exactly_at_its_targets():
    """Two legal candidates besides the expert's move (action 0) and one legal non-candidate:
    logits at the regression targets and the non-candidate 1 below the expert give loss 0;
    moving any of them gives a positive loss."""
    from training.nerts.distill import value_loss

    args = argparse.Namespace(value_scale=10.0, value_margin=0.1)
    nan = float("nan")
    value = torch.tensor([[0.5, 0.7, 0.3, nan, nan]])
    mask = torch.tensor([[True, True, True, True, False]])
    hint = torch.tensor([0])
    # targets: 10 * (0.7 - 0.5 - 0.1) = 1.0 and 10 * (0.3 - 0.5 - 0.1) = -3.0
    logits = torch.tensor([[2.0, 3.0, -1.0, 1.0, -1e9]])
    assert float(value_loss(logits, mask, hint, value, args)) == pytest.approx(0.0, abs=1e-9)
    for k, delta in ((1, 0.5), (2, -0.5), (3, 0.5)):
        moved = logits.clone()
        moved[0, k] += delta
        assert float(value_loss(moved, mask, hint, value, args)) > 0.01


def test_the_shipped_student_mostly_plays_the_expert():
    """agents/policies/nerts_search_distill: Nerts' second policy (the turn gate is the
    strongest, test_nerts_turn_gate.py), the documented run's
    network (expert hint, 256 x 256), and a student of the search: on the positions of
    expert games at 2, 4 and 6 players it plays the expert's move almost always (the
    search leaves it at about 9% of positions, the student at about 4%) but not always."""
    from pathlib import Path

    from gnome_env.registry import get_game

    root = Path(__file__).resolve().parents[2] / "agents" / "policies" / "nerts_search_distill"
    assert [p.name for p in get_game("nerts").shipped][:2] == ["nerts_turn_gate",
                                                               "nerts_search_distill"]  # fmt: skip
    ckpt = read_checkpoint(root / "policy.pt")
    assert ckpt["network"] == {"hidden": [256, 256], "expert_hint": True}
    summary = json.loads((root / "summary.json").read_text())
    assert summary["command"] == (
        "python -m training.nerts.distill --out runs/nerts_search_distill_v2 --seed 1 "
        "--rounds 4 --steps 800 --envs 48"
    )
    pairs = policy_and_expert_moves(f"ppo:{root / 'policy.pt'}", 40)
    same = sum(mine == expert for mine, expert in pairs)
    differ = len(pairs) - same
    assert same + differ >= 100
    assert differ >= 1 and same >= 0.85 * (same + differ)


def test_a_memory_run_writes_a_student_that_reads_its_seats_memory(tmp_path):
    """``--memory``: the teacher remembers waste tops and the student's network reads the
    memory features after the observation; the agent loaded from it keeps a WasteMemory
    from the views it is shown and plays legal moves."""
    from agents.nerts.memory import MEMORY_FEATURES, WasteMemory

    assert main(["--out", str(tmp_path / "m"), *TINY, "--memory"]) == 0
    data = read_checkpoint(tmp_path / "m" / "policy.pt")
    assert data["network"] == {"hidden": [16], "expert_hint": True, "memory": True}
    rules = NertsConfig()
    first = data["state_dict"]["trunk.0.weight"]
    assert first.shape[1] == NertsEncoder(rules).size + MEMORY_FEATURES
    config = NertsConfig(num_players=2)
    agent = make_nerts_agent(f"ppo:{tmp_path / 'm' / 'policy.pt'}", 0, config)
    assert isinstance(agent.memory, WasteMemory)
    nerts_agent_plays_legal_moves(agent, config, 3, 60)
    assert sum(len(agent.memory.known(j)) for j in range(2)) > 0  # it watched the steps
    with pytest.raises(ValueError, match="memory"):
        NertsPolicyNetwork(10, 4, [8], memory="yes")


def test_label_kinds_keep_only_the_chosen_kinds_of_deviation(capsys):
    """``--label-kinds stock``: a teacher's turn stays a label, its foundation play or wait
    becomes the expert's move; a label equal to the expert's move is kept whatever its kind."""
    from gnome_env.nerts.actions import RECYCLE, TURN, WAIT, Kind, action_table
    from training.nerts.distill import kept_labels

    table = action_table(NertsConfig())
    play = table.to_slot(1, 3)
    work = table.to_work(1, 2)
    label = np.array([TURN, play, WAIT, RECYCLE, work])
    hint = np.array([play, TURN, TURN, RECYCLE, work])
    args = parse_args(["--out", "/nonexistent/never-written", "--label-kinds", "stock"])
    assert args.kept_kinds == {Kind.TURN, Kind.RECYCLE, Kind.SHIFT}
    assert kept_labels(label, hint, args.kept_kinds).tolist() == [TURN, TURN, TURN, RECYCLE, work]
    everything = parse_args(["--out", "/nonexistent/never-written"]).kept_kinds
    assert kept_labels(label, hint, everything).tolist() == label.tolist()
    with pytest.raises(SystemExit):
        parse_args(["--out", "/nonexistent/never-written", "--label-kinds", "stocks"])
    assert "--label-kinds: unknown kind 'stocks'" in capsys.readouterr().err


def test_label_kinds_drop_the_values_of_other_kinds_but_the_experts_move():
    from gnome_env.nerts.actions import TURN, WAIT, action_table, parse_kinds
    from training.nerts.distill import kept_values

    table = action_table(NertsConfig())
    play = table.to_slot(1, 3)
    value = np.full((2, table.n), np.nan, np.float32)
    value[0, [TURN, play, WAIT]] = [0.4, 0.3, 0.2]  # the expert plays ``play``
    value[1, [TURN, WAIT]] = [0.1, 0.5]  # the expert turns
    hint = np.array([play, TURN])
    out = kept_values(value, hint, parse_kinds("stock"))
    assert out[0, TURN] == np.float32(0.4) and out[0, play] == np.float32(0.3)
    assert np.isnan(out[0, WAIT]) and np.isnan(out[1, WAIT]) and out[1, TURN] == np.float32(0.1)
    assert np.isnan(out).sum() == np.isnan(value).sum() + 2
    assert kept_values(value, hint, parse_kinds("all")) is value
