"""The learned turn gate (agents/nerts/turn_gate.py): its features read the foundations, the
work piles and the remembered stock cycle as the rules say (N8, N10, N15, N16), it can only
play the expert's move or a turn, it reads no hidden card (N35), and ``distill.py --student
gate`` trains one that every Nerts consumer plays."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from conftest import policy_and_expert_moves, student_pilot_matches_agents

from agents.nerts.expert import ExpertNertsAgent
from agents.nerts.learned import (
    NertsPolicyAgent,
    checkpoint_payload,
    network_from_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from agents.nerts.memory import WasteMemory, memory_features
from agents.nerts.registry import make_nerts_agent
from agents.nerts.turn_gate import FAR, TURN_FEATURES, NertsTurnGate, feature_table
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.actions import TURN, Kind, action_table
from gnome_env.nerts.cards import parse_card
from gnome_env.nerts.encoding import NertsEncoder
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.testing import build_game, permute_hidden
from training.nerts.distill import main as distill_main
from training.nerts.distill import parse_args

RULES = NertsConfig()


def _gate(bias: float | None = None, seed: int = 0) -> NertsTurnGate:
    """A gate with random weights; with ``bias`` its output is that constant."""
    net = NertsTurnGate(NertsEncoder(RULES).size, RULES.n_actions, [16])
    gen = torch.Generator().manual_seed(seed)
    net.reset_parameters(gen)
    last = net.mlp[-1]
    with torch.no_grad():
        if bias is None:
            last.weight.copy_(torch.randn(last.weight.shape, generator=gen))
            last.bias.fill_(0.0)
        else:
            last.bias.fill_(bias)
    return net


def _save(net: NertsTurnGate, path) -> str:
    write_checkpoint(checkpoint_payload(net, RULES, {}), path)
    return str(path)


def test_n8_n10_n15_n16_features_read_gaps_work_fits_and_the_remembered_passes():
    """Seat 0's waste top 5H can go onto p1's AH..4H now (gap 0) and onto none of its work
    piles (9S TD KC QH: it needs a black 6); its Nerts top 8D has no diamond foundation below
    it (gap 7, from a new ace) and fits on 9S. The other seat's Nerts top 6H is one rank short
    (gap 1). With a remembered stock a b c d e (top e) and waste f g (top g), this pass shows
    c, a and g, the next pass e, b, a, and with g played first d, a (as in the memory test):
    here e = 6H (gap 1), b = AC (an ace: gap 0), a = KD (gap 12), d = AD (0), c = 9C (gap 8,
    fits on TD), f = 3S (gap 2), g = 5H."""
    game = build_game(
        NertsConfig(num_players=2),
        seats={
            0: {"nerts": "8D", "work": ["9S", "TD", "KC", "QH"], "waste": "3S 5H"},
            1: {"nerts": "6H"},
        },
        foundations=["p1:AH..4H"],
    )
    view = NertsView.from_game(game, 0)
    memory = WasteMemory()
    a, b, c, d, e, f, g = (parse_card(t) for t in ["KD", "AC", "9C", "AD", "6H", "3S", "5H"])
    memory.stock = [[a, b, c, d, e], []]
    memory.waste = [[f, g], []]
    x = np.concatenate([NertsEncoder(game.config).encode(view), memory_features(memory, view)])
    hint = action_table(RULES).id_of("waste->slot0")
    feats = dict(zip(TURN_FEATURES, feature_table(x[None], np.array([hint]))[0], strict=True))
    expect = {
        "waste_top": 1.0, "waste_top_rank": 5 / 13, "waste_top_gap": 0.0, "waste_top_work": 0.0,
        "nerts_top": 1.0, "nerts_top_gap": 7 / FAR, "nerts_top_work": 1.0,
        "others_nerts_top_gap": 1 / FAR,
        "next_n": 3 / 4, "next_gap0": 1 / 4, "next_gap1": 2 / 4, "next_gap2": 2 / 4,
        "next_min_gap": 0.0, "next_work": 0.0,
        "next_if_played_n": 2 / 4, "next_if_played_gap0": 1 / 4, "next_if_played_gap1": 1 / 4,
        "next_minus_if_played_n": 1 / 4, "next_minus_if_played_gap1": 1 / 4,
        "now_n": 3 / 4, "now_gap0": 1 / 4, "now_work": 1 / 4, "now_min_gap": 0.0,
        "in_stock_n": 5 / 4, "in_waste_n": 2 / 4, "in_waste_gap2": 2 / 4,
        "players": 2 / 6,
        f"hint_kind{int(Kind.TO_SLOT)}": 1.0, "hint_source1": 1.0, "hint_source0": 0.0,
    }  # fmt: skip
    for name, value in expect.items():
        assert feats[name] == pytest.approx(value), name


def test_the_gate_plays_only_the_experts_move_or_a_turn():
    """Logits are finite only at the expert's move (0) and, where the turn is legal and not
    the expert's move, at the turn; the gate's sign decides between them."""
    game = NertsGame(NertsConfig(num_players=3), seed=4)
    expert = ExpertNertsAgent(0, game.config)
    enc = NertsEncoder(game.config)
    rows, masks, hints = [], [], []
    while len(rows) < 200 and not game.hand_over:
        for seat in range(3):
            view = NertsView.from_game(game, seat)
            rows.append(np.concatenate([enc.encode(view), np.zeros(1566, np.float32)]))
            mask = np.zeros(RULES.n_actions, bool)
            mask[list(view.legal_actions)] = True
            masks.append(mask)
            hints.append(expert.decide(view))
        game.step([hints[-3], hints[-2], hints[-1]])
    x, mask, hint = (torch.as_tensor(np.array(v)) for v in (rows, masks, hints))
    open_turn = (mask[:, TURN] & (hint != TURN)).numpy()
    assert open_turn.any() and not open_turn.all()
    for bias, turn_wins in ((5.0, True), (-5.0, False)):
        logits, _ = _gate(bias)(x, mask, hint)
        finite = (logits > -1e8).numpy()
        assert finite[np.arange(len(hint)), hint.numpy()].all()
        assert (finite.sum(1) == 1 + open_turn).all()
        expected = np.where(open_turn & turn_wins, TURN, hint.numpy())
        assert np.array_equal(logits.argmax(1).numpy(), expected)


def test_an_untrained_gate_plays_the_expert(tmp_path):
    path = _save(_untrained(), tmp_path / "gate.pt")
    config = NertsConfig(num_players=2)
    agent = NertsPolicyAgent(path, 0, config)
    expert = ExpertNertsAgent(0, config)
    game = NertsGame(config, seed=9)
    for _ in range(60):
        views = [NertsView.from_game(game, s) for s in range(2)]
        moves = [expert.decide(v) for v in views]
        assert agent.decide(views[0]) == moves[0]
        game.step(moves)


def _untrained() -> NertsTurnGate:
    net = NertsTurnGate(NertsEncoder(RULES).size, RULES.n_actions, [16])
    net.reset_parameters(torch.Generator().manual_seed(1))
    return net


def test_n35_the_gate_reads_no_hidden_card(tmp_path):
    """Permuting every seat's hidden cards (face-down Nerts cards, stock order, waste under
    its top) changes no output of a gate agent that watched every step."""
    path = _save(_gate(None, seed=5), tmp_path / "gate.pt")
    config = NertsConfig(num_players=3)
    agent = NertsPolicyAgent(path, 0, config)
    expert = ExpertNertsAgent(1, config)
    game = NertsGame(config, seed=21)
    rng = np.random.default_rng(0)
    compared = 0
    for _ in range(120):
        if game.hand_over:
            break
        view = NertsView.from_game(game, 0)
        agent.decide(view)  # (keeps its memory)
        if TURN in view.legal_actions:
            p = agent.distribution(view)
            q = agent.distribution(NertsView.from_game(permute_hidden(game, rng), 0))
            np.testing.assert_array_equal(p, q)
            compared += 1
        game.step([expert.decide(NertsView.from_game(game, s)) for s in range(3)])
    assert compared > 20


def test_the_student_pilot_plays_a_gate_as_its_agent_does(tmp_path):
    """bench/nerts_student_pilot.py decides for a gate exactly as ``NertsPolicyAgent`` does
    from the seat's views, and the gate leaves the expert only for turns."""
    path = _save(_gate(None, seed=2), tmp_path / "gate.pt")
    assert isinstance(network_from_checkpoint(read_checkpoint(path)), NertsTurnGate)
    moves = student_pilot_matches_agents(path, 3, 6)
    assert any(left for _, left in moves)
    assert all(move == TURN for move, left in moves if left)


TINY = ["--players", "2", "--envs", "8", "--steps", "40", "--rounds", "1", "--samples", "4",
        "--memory", "--candidates", "turn", "--target", "value", "--student", "gate",
        "--hidden", "8", "--epochs", "2"]  # fmt: skip


def test_distill_trains_a_gate_that_the_registry_plays(tmp_path, capsys):
    """``--student gate`` fits a turn gate to the turn's values (a second run repeats it
    exactly), and ``ppo:PATH`` plays it."""
    for name in ("a", "b"):
        assert distill_main(["--out", str(tmp_path / name), *TINY]) == 0
    a = read_checkpoint(tmp_path / "a" / "policy.pt")
    b = read_checkpoint(tmp_path / "b" / "policy.pt")
    assert a["network"] == {"kind": "turn_gate", "hidden": [8]}
    assert all(torch.equal(a["state_dict"][k], b["state_dict"][k]) for k in b["state_dict"])
    assert any(float(v.abs().sum()) > 0 for k, v in a["state_dict"].items() if "2.weight" in k)
    config = NertsConfig(num_players=2)
    agent = make_nerts_agent(f"ppo:{tmp_path / 'a' / 'policy.pt'}", 0, config)
    game = NertsGame(config, seed=3)
    for _ in range(30):
        view = NertsView.from_game(game, 0)
        move = agent.decide(view)
        assert move in view.legal_actions
        game.step([move, 0])  # (seat 1 waits)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--student", "gate", "--target", "value"], "--student gate needs --memory"),
        (["--student", "gate", "--memory"], "--student gate needs --memory and --target value"),
        (["--student", "gate", "--memory", "--target", "value", "--scorer", "8"], "no --scorer"),
        (["--student", "gate", "--memory", "--target", "value", "--label-kinds", "stock"],
         "fits turns only"),
    ],
)  # fmt: skip
def test_a_gate_with_the_wrong_teacher_settings_is_a_clear_error(tmp_path, capsys, flags, message):
    with pytest.raises(SystemExit) as exc:
        parse_args(["--out", str(tmp_path / "x"), *flags])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_the_shipped_gate_is_the_strongest_policy_and_leaves_the_expert_only_to_turn():
    """agents/policies/nerts_turn_gate: Nerts' strongest_policy, the documented fit's gate
    (64 x 64); in expert games at 2, 4 and 6 players it plays the expert's move except for
    some turns of the stock."""
    import json
    from pathlib import Path

    from gnome_env.registry import get_game

    root = Path(__file__).resolve().parents[2] / "agents" / "policies" / "nerts_turn_gate"
    assert get_game("nerts").strongest_policy.name == "nerts_turn_gate"
    assert read_checkpoint(root / "policy.pt")["network"] == {"kind": "turn_gate",
                                                             "hidden": [64, 64]}  # fmt: skip
    summary = json.loads((root / "summary.json").read_text())
    assert "--student gate --hidden 64 64 --value-margin 0.01 --epochs 8" in summary["command"]
    pairs = policy_and_expert_moves(f"ppo:{root / 'policy.pt'}", 50)
    assert len(pairs) >= 100
    assert all(mine in (expert, TURN) for mine, expert in pairs)
    turns = sum(mine != expert for mine, expert in pairs)
    assert turns >= 1 and turns <= 0.1 * len(pairs)
