"""The per-action scoring head of Nerts networks (agents/nerts/action_scorer.py): each
action's logit reads its own source and destination blocks only, the untrained head adds
nothing, the rule sizes are recovered from the network's sizes, and a distillation run can
train such a student from saved samples."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from conftest import bench_script, nerts_agent_plays_legal_moves, student_pilot_matches_agents

from agents.nerts.action_scorer import ActionScorer, index_tables, table_sizes
from agents.nerts.learned import (
    NertsPolicyNetwork,
    checkpoint_payload,
    network_from_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from agents.nerts.memory import FEATURE_CARDS, MEMORY_FEATURES, SEAT_FEATURES, TURNS_AHEAD
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig
from gnome_env.nerts.actions import Kind, action_table
from gnome_env.nerts.encoding import CARD_IDS, NertsEncoder
from training.nerts.distill import main

RULES = NertsConfig()


def scores_after_changing(span: slice, memory: bool = True) -> np.ndarray:
    """Which actions' head scores change when the input entries ``span`` change (the trunk
    state held fixed), every action legal."""
    enc = NertsEncoder(RULES)
    n = enc.size + (MEMORY_FEATURES if memory else 0)
    head = ActionScorer(RULES, 32, 16, memory)
    gen = torch.Generator().manual_seed(3)
    head.reset_parameters(gen)
    with torch.no_grad():
        head.out.weight.copy_(torch.randn(head.out.weight.shape, generator=gen))
    x = torch.rand(1, n, generator=gen)
    state = torch.rand(1, 32, generator=gen)
    mask = torch.ones(1, RULES.n_actions, dtype=torch.bool)
    y = x.clone()
    y[0, span] = torch.rand(span.stop - span.start, generator=gen)
    with torch.no_grad():
        a, b = head(x, state, mask), head(y, state, mask)
    return np.flatnonzero((a != b).numpy()[0])


def test_a_work_piles_cards_move_only_the_actions_from_or_onto_that_pile():
    enc = NertsEncoder(RULES)
    cards = enc.seat_slice(0, "work_cards")
    pile2 = slice(cards.start + 2 * CARD_IDS, cards.start + 3 * CARD_IDS)
    table = action_table(RULES)
    expected = [
        a
        for a in range(table.n)
        if (
            (d := table.decode(a)).kind in (Kind.TO_WORK, Kind.SLIDE, Kind.WORK_MOVE)
            and 2 in (d.pile, d.target)
        )
        or (d.kind in (Kind.TO_SLOT, Kind.NEW_FOUNDATION) and d.source == 4)
    ]
    assert len(expected) > 40
    assert scores_after_changing(pile2).tolist() == expected


def test_the_nerts_top_moves_only_the_nerts_tops_actions():
    table = action_table(RULES)
    expected = [a for a in range(table.n) if table.decode(a).source == 0]
    assert scores_after_changing(NertsEncoder(RULES).seat_slice(0, "nerts_top")).tolist() == (
        expected
    )


def test_a_slots_block_moves_only_the_plays_onto_that_slot():
    enc = NertsEncoder(RULES)
    span = enc.slot_slice(5, "top")
    table = action_table(RULES)
    expected = [a for a in range(table.n) if table.decode(a).slot == 5]
    assert scores_after_changing(span).tolist() == expected


def test_memory_blocks_move_the_stock_and_waste_actions_only():
    """N35 memory: the card under the waste top is read by the waste's plays; the next
    turns' cards by turn, recycle and shift; the own cycle block by both; another seat's
    memory by none of them."""
    enc = NertsEncoder(RULES)
    table = action_table(RULES)
    under = slice(enc.size + TURNS_AHEAD * CARD_IDS, enc.size + FEATURE_CARDS * CARD_IDS)
    waste = [a for a in range(table.n) if table.decode(a).source == 1]
    assert scores_after_changing(under).tolist() == waste
    turn1 = slice(enc.size, enc.size + CARD_IDS)
    stock = [int(Kind.TURN), int(Kind.RECYCLE), int(Kind.SHIFT)]
    assert scores_after_changing(turn1).tolist() == stock
    third_turn = slice(enc.size + 2 * CARD_IDS, enc.size + 3 * CARD_IDS)  # not read
    assert scores_after_changing(third_turn).tolist() == []
    other_seat = slice(enc.size + FEATURE_CARDS * CARD_IDS, enc.size + SEAT_FEATURES)
    assert scores_after_changing(other_seat).tolist() == []
    cycle = slice(enc.size + SEAT_FEATURES, enc.size + MEMORY_FEATURES)  # the own cycle
    assert scores_after_changing(cycle).tolist() == sorted(waste + stock)


def test_illegal_actions_are_not_scored():
    enc = NertsEncoder(RULES)
    head = ActionScorer(RULES, 8, 8, False)
    gen = torch.Generator().manual_seed(1)
    head.reset_parameters(gen)
    with torch.no_grad():
        head.out.weight.fill_(1.0)
        head.out.bias.fill_(1.0)
    mask = torch.zeros(2, RULES.n_actions, dtype=torch.bool)
    mask[0, [0, 7, 300]] = True
    mask[1, [2]] = True
    out = head(torch.rand(2, enc.size, generator=gen), torch.rand(2, 8, generator=gen), mask)
    assert (out[mask] != 0).all() and (out[~mask] == 0).all()


@pytest.mark.parametrize(("work_piles", "jokers"), [(3, 0), (4, 0), (4, 1), (5, 2)])
def test_the_rule_sizes_are_recovered_from_the_network_sizes(work_piles, jokers):
    rules = NertsConfig(work_piles=work_piles, jokers=jokers)
    assert table_sizes(NertsEncoder(rules).size, rules.n_actions) == (work_piles, jokers)
    with pytest.raises(ValueError, match="no Nerts rules"):
        table_sizes(NertsEncoder(rules).size + 1, rules.n_actions)


def test_index_tables_point_inside_the_input_or_at_its_zero():
    for memory in (False, True):
        t = index_tables(RULES, memory)
        n = NertsEncoder(RULES).size + (MEMORY_FEATURES if memory else 0)
        assert t["src"].max() == n and t["dst"].max() == n and t["src"].min() >= 0
        assert t["a_src"].max() < len(t["src"]) and t["a_dst"].max() < len(t["dst"])


def test_an_untrained_scorer_network_plays_as_the_plain_network():
    """The head's read-out starts at zero and draws its weights after the trunk's: the
    same seed gives the same logits with and without it."""
    enc = NertsEncoder(RULES)
    plain = NertsPolicyNetwork(enc.size, RULES.n_actions, [16], expert_hint=True)
    scored = NertsPolicyNetwork(enc.size, RULES.n_actions, [16], expert_hint=True, scorer=8)
    plain.reset_parameters(torch.Generator().manual_seed(5))
    scored.reset_parameters(torch.Generator().manual_seed(5))
    gen = torch.Generator().manual_seed(6)
    obs = torch.rand(4, enc.size, generator=gen)
    mask = torch.rand(4, RULES.n_actions, generator=gen) < 0.05
    mask[:, 0] = True
    hint = torch.zeros(4, dtype=torch.long)
    with torch.no_grad():
        assert torch.equal(plain(obs, mask, hint)[0], scored(obs, mask, hint)[0])
    assert scored.describe() == {"hidden": [16], "expert_hint": True, "scorer": 8}
    for bad in (-1, True, 2.5, 5000):
        with pytest.raises(ValueError, match="scorer"):
            NertsPolicyNetwork(enc.size, RULES.n_actions, [16], scorer=bad)


TINY = ["--envs", "4", "--steps", "30", "--samples", "2", "--hidden", "16"]
TINY += ["--epochs", "1", "--players", "2", "3", "--memory"]


def test_a_scorer_student_trains_from_saved_samples(tmp_path, capsys):
    """``--save-samples`` keeps round 0's labels; ``--samples-from`` trains another student
    (here with the per-action head) on them without playing round 0 again, and refuses a
    file labelled otherwise, before anything is written."""
    first = tmp_path / "first"
    assert main(["--out", str(first), *TINY, "--rounds", "1", "--save-samples"]) == 0
    saved = np.load(first / "samples.npz")
    n = len(saved["label"])
    second = tmp_path / "second"
    npz = str(first / "samples.npz")
    flags = [*TINY, "--rounds", "2", "--scorer", "8", "--samples-from", npz, npz]
    assert main(["--out", str(second), *flags]) == 0
    summary = json.loads((second / "summary.json").read_text())
    assert summary["rounds"][0]["new_samples"] == 2 * n  # both files
    assert summary["rounds"][1]["samples"] > 2 * n
    data = read_checkpoint(second / "policy.pt")
    assert data["network"]["scorer"] == 8
    config = NertsConfig(num_players=2)
    agent = make_nerts_agent(f"ppo:{second / 'policy.pt'}", 0, config)
    nerts_agent_plays_legal_moves(agent, config, 2, 40)

    # the held-out bench reads the same file: the teacher's deviations on the held-out
    # games, and with the expert's move pushed far down the student leaves it everywhere
    script = bench_script("nerts_heldout_deviations")
    held = saved["slot"] % 16 == 0
    teacher = int((saved["label"][held] != saved["hint"][held]).sum())
    capsys.readouterr()  # (the runs' logs)
    assert script.main(["--policy", str(second / "policy.pt"), "--samples", npz,
                        "--deltas", "0", "1000"]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"held-out positions {held.sum()}, the teacher's deviations (all) {teacher}"
    assert lines[2].startswith(f"delta 1000: the student leaves the expert at {held.sum()} ")

    plain = [f for f in TINY if f != "--memory"]
    third = tmp_path / "third"
    code = main(["--out", str(third), *plain, "--samples-from", str(first / "samples.npz")])
    assert code == 2 and not third.exists()
    assert "'memory': True" in capsys.readouterr().err
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    assert main(["--out", str(third), *TINY, "--samples-from", str(tmp_path / "junk.npz")]) == 2
    assert "cannot be read as samples" in capsys.readouterr().err


def test_the_student_pilot_decides_as_the_policy_agent_that_watched_every_step(tmp_path):
    """bench/nerts_student_pilot.py plays a memory student with a per-action head on the
    batched engine's rows exactly as ``NertsPolicyAgent`` plays it from the seat's views
    (observation, memory features, the Python expert's hint), and a large delta leaves the
    expert's move wherever there is a choice."""
    script = bench_script("nerts_student_pilot")
    rules = NertsConfig()
    net = NertsPolicyNetwork(NertsEncoder(rules).size, rules.n_actions, [16], expert_hint=True,
                             hint_init=0.5, memory=True, scorer=8)  # fmt: skip
    gen = torch.Generator().manual_seed(3)
    net.reset_parameters(gen)
    with torch.no_grad():  # (the scorer's read-out starts at zero: make every part count)
        for p in net.parameters():
            p.add_(0.3 * torch.randn(p.shape, generator=gen))
    path = tmp_path / "student.pt"
    write_checkpoint(checkpoint_payload(net, rules, {}), path)
    moves = student_pilot_matches_agents(path, 3, 5)
    assert len(moves) == 240 and any(left for _, left in moves)
    net = network_from_checkpoint(read_checkpoint(path))
    far = script.student_table(net, 1000.0)(2, 3, 5)
    who = np.zeros((3, 6), np.int64)
    who[:, 0] = 1
    out, dev = np.zeros((3, 6), np.int64), np.zeros((3, 6), np.int64)
    far.search(who, who, {}, out, dev)
    assert np.array_equal(dev[:, 0], (far.counts[:, 0] > 1).astype(np.int64))
