"""The whole-turn learned policy (agents/ginny_o/turns.py, spec ``turns:PATH``) and its trainer
(training/ginny_o/turns.py): exact masks, the expert's choice among the features, no hidden
tile in the features (G17), an equivariant network, legal and repeatable games, checkpoint
errors, the shipped policy, and the trainer's outputs and refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.core.arena import run_arena
from agents.ginny_o.expert import ExpertGinnyAgent
from agents.ginny_o.registry import make_ginny_agent
from agents.ginny_o.turns import (
    CANDIDATE_FEATURES,
    CONTEXT_FEATURES,
    EQUITY_FEATURES,
    MAX_CANDIDATES,
    NUM_OTHER,
    PASS,
    WEAK_RETURN,
    TurnFeatures,
    TurnPolicyAgent,
    TurnPolicyNetwork,
    read_checkpoint,
    save_policy,
    turn_actions,
)
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.hidden import permute_hidden
from gnome_env.ginny_o.information import GinnyView

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "policies" / "ginny_turns" / "policy.pt"
K = MAX_CANDIDATES


def _turn_starts(players: int, seed: int, turns: int):
    """(game copy, view) at the start of each of the first ``turns`` turns of a game of
    greedy bots (phase ``choose``: where the whole-turn policy decides)."""
    game = GinnyGame(GinnyConfig(num_players=players), seed)
    bots = [make_ginny_agent("greedy", s) for s in range(players)]
    out = []
    while not game.game_over and len(out) < turns:
        view = GinnyView.from_game(game, game.current)
        if view.phase == "choose":
            out.append((game.copy(), view))
        game.step(bots[game.current].decide(view))
    return out


@pytest.fixture(scope="module")
def tiny_policy(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("turns") / "tiny.pt"
    save_policy(TurnPolicyNetwork(hidden=8), path, {"note": "untrained"})
    return path


@pytest.mark.parametrize("players", [2, 4])
def test_masks_are_exact_and_each_action_is_one_whole_legal_turn(players):
    """G14: a turn is one placement (G18-G28), a return with a redraw, or a pass."""
    seen = set()
    for game, view in _turn_starts(players, 5, 30):
        feats = TurnFeatures(1, game.config).build(view)
        mask, order = feats["mask"], feats["order"]
        assert len(order) == min(K, len(view.placements))
        for action in range(K + NUM_OTHER):
            seq = turn_actions(view, order, K, action)
            assert (seq is not None) == bool(mask[action])
            if seq is None:
                continue
            seen.add(min(action, K))
            trial = game.copy()
            seat = trial.current
            for atomic in seq:
                assert atomic in trial.legal_actions()
                trial.step(atomic)
            assert trial.game_over or trial.current != seat  # the turn is over
        # the weak-tile return is the greedy bot's return (agents.ginny_o.bots.weak_slots)
        if mask[K + WEAK_RETURN]:
            assert turn_actions(view, order, K, K + WEAK_RETURN)[-1] == A.CONFIRM_RETURN
        assert mask[K + PASS] == (A.PASS in view.legal_actions)
    assert {0, K} <= seen  # placements and returns were both checked


def test_the_expert_choice_in_the_features_is_the_expert_bots_choice():
    """With the same seed the features' ``expert`` action is the placement ExpertGinnyAgent
    chooses (both draw the reply racks from one seeded stream in the same order)."""
    feats = TurnFeatures(42, GinnyConfig(num_players=2))
    bot = ExpertGinnyAgent(42, GinnyConfig(num_players=2))
    compared = 0
    for _, view in _turn_starts(2, 9, 25):
        f = feats.build(view)
        if not view.placements:
            continue
        assert f["order"][f["expert"]] == bot.choose(view)
        row = f["candidates"][f["expert"]]
        assert row[CANDIDATE_FEATURES.index("expert_choice")] == 1.0
        assert row[CANDIDATE_FEATURES.index("equity_gap")] == pytest.approx(0.0)
        assert f["candidates"][:, CANDIDATE_FEATURES.index("expert_choice")].sum() == 1.0
        # candidates come by heuristic value, best first
        values = f["candidates"][: len(f["order"]), CANDIDATE_FEATURES.index("value")]
        assert np.all(np.diff(values) <= 1e-6)
        compared += 1
    assert compared >= 10


def test_a_wider_reply_search_looks_at_more_candidates_with_more_racks():
    """``top`` and ``samples`` set the reply search (the expert's TOP_K and SAMPLES: 6, 6)."""
    wide = TurnFeatures(3, GinnyConfig(num_players=2), top=8, samples=12)
    assert (wide.expert.TOP_K, wide.expert.SAMPLES) == (8, 12)
    assert ExpertGinnyAgent.TOP_K == 6 and ExpertGinnyAgent.SAMPLES == 6  # the class unchanged
    replied = CANDIDATE_FEATURES.index("replied")
    for _, view in _turn_starts(2, 9, 10):
        f = wide.build(view)
        assert f["candidates"][:, replied].sum() == min(8, len(view.placements)) or (
            len(view.placements) == 1
        )
        assert len(wide.expert.sample_racks(view)) in (0, 12)
    with pytest.raises(ValueError, match="samples=0 is not allowed"):
        TurnFeatures(0, None, samples=0)


def test_the_features_hold_no_hidden_tile():
    """G17: re-dealing the box and the other racks changes nothing in a seat's features
    (the reply racks are sampled from the unseen tiles as a multiset, with the agent's own
    generator, so they are equal too)."""
    checked = 0
    for players in (2, 3):
        for game, view in _turn_starts(players, 13, 14):
            seat = game.current
            mine = TurnFeatures(7, game.config).build(view)
            for shuffle in range(2):
                other = permute_hidden(game, seat, 500 + shuffle)
                assert other.digest() != game.digest()
                theirs = TurnFeatures(7, game.config).build(GinnyView.from_game(other, seat))
                assert theirs["order"] == mine["order"] and theirs["expert"] == mine["expert"]
                for key in ("candidates", "context", "mask"):
                    np.testing.assert_array_equal(theirs[key], mine[key])
                checked += 1
    assert checked >= 40


def test_the_network_is_permutation_equivariant_over_candidates():
    torch.manual_seed(3)
    net = TurnPolicyNetwork(hidden=16)
    cands = torch.randn(2, K, len(CANDIDATE_FEATURES))
    ctx = torch.randn(2, len(CONTEXT_FEATURES))
    mask = torch.ones(2, K + NUM_OTHER, dtype=torch.bool)
    mask[1, 10:K] = False
    logits, value = net(cands, ctx, mask)
    perm = torch.randperm(10)
    cands2 = cands.clone()
    cands2[:, :10] = cands[:, perm]
    logits2, value2 = net(cands2, ctx, mask)
    torch.testing.assert_close(logits2[:, :10], logits[:, :10][:, perm])
    torch.testing.assert_close(logits2[:, K:], logits[:, K:])
    torch.testing.assert_close(value2, value)
    assert (logits[1, 10:K] < -1e8).all()  # absent candidates are masked
    # the ablation zeroes the equity features: changing them changes nothing
    plain = TurnPolicyNetwork(hidden=16, drop=EQUITY_FEATURES)
    bumped = cands.clone()
    for name in EQUITY_FEATURES:
        bumped[..., CANDIDATE_FEATURES.index(name)] += 5.0
    torch.testing.assert_close(plain(bumped, ctx, mask)[0], plain(cands, ctx, mask)[0])
    with pytest.raises(ValueError, match="unknown candidate features"):
        TurnPolicyNetwork(drop=("nope",))


@pytest.mark.parametrize("players", [2, 4])
def test_the_agent_plays_legal_games_and_a_seed_repeats_them(tiny_policy, players):
    lineup = [f"turns:{tiny_policy}", "expert", "greedy", "random"][:players]
    first = run_arena(lineup, players, 1, seed=17, workers=1, progress=False, game="ginny_o")
    again = run_arena(lineup, players, 1, seed=17, workers=1, progress=False, game="ginny_o")
    digests = [g["digest"] for g in first.records]
    assert len(digests) == players and digests == [g["digest"] for g in again.records]
    sampled = run_arena(
        [f"turns-sample:{tiny_policy}", "greedy"],
        2,
        1,
        seed=4,
        workers=1,
        progress=False,
        game="ginny_o",
    )
    assert len(sampled.records) == 2


def test_bad_checkpoints_are_clear_errors(tiny_policy, tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        make_ginny_agent(f"turns:{tmp_path / 'missing.pt'}", 0)
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="cannot be read as a torch checkpoint"):
        make_ginny_agent(f"turns:{bad}", 0)
    other = tmp_path / "other.pt"
    torch.save({"format": "something-else"}, other)
    with pytest.raises(ValueError, match="not a Ginny-O whole-turn policy checkpoint"):
        make_ginny_agent(f"turns:{other}", 0)
    data = torch.load(tiny_policy, weights_only=True)
    data["features"]["context"] = data["features"]["context"][:-1]
    torch.save(data, other)
    with pytest.raises(ValueError, match="other features"):
        read_checkpoint(other)
    data = torch.load(tiny_policy, weights_only=True)
    data["network"]["hidden"] = 9
    torch.save(data, other)
    with pytest.raises(ValueError, match="weights do not fit"):
        read_checkpoint(other)
    data = torch.load(tiny_policy, weights_only=True)
    del data["search"]
    torch.save(data, other)
    with pytest.raises(ValueError, match="lacks search"):
        read_checkpoint(other)
    data = torch.load(tiny_policy, weights_only=True)
    data["search"] = {"top": 0, "samples": 6}
    torch.save(data, other)
    with pytest.raises(ValueError, match="top=0 is not allowed"):
        read_checkpoint(other)
    with pytest.raises(ValueError, match=r"'turns' needs a checkpoint path"):
        make_ginny_agent("turns", 0)
    assert isinstance(make_ginny_agent(f"turns:{tiny_policy}", 3), TurnPolicyAgent)


def test_gnome_eval_with_a_missing_checkpoint_is_one_line(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "training.app.cli",
            "eval",
            "--game",
            "ginny_o",
            "--lineup",
            f"turns:{tmp_path / 'none.pt'},greedy",
            "--games",
            "1",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert out.returncode != 0
    assert "does not exist" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.skipif(not SHIPPED.exists(), reason="the shipped policy is not there")
def test_the_shipped_policy_loads_and_is_shipped():
    net, data = read_checkpoint(SHIPPED)
    assert SHIPPED.stat().st_size < 5_000_000
    assert data["training"]["config"]["seed"] == 1
    from gnome_env.registry import get_game

    spec = get_game("ginny_o")
    shipped = {p.name: p.spec for p in spec.shipped}
    assert shipped["ginny_turns"] == "turns:agents/policies/ginny_turns/policy.pt"
    # it imitated the expert: on these positions it picks the expert's placement mostly
    feats = TurnFeatures(5, GinnyConfig(num_players=2), net.k, **data["search"])
    agree = total = 0
    for _, view in _turn_starts(2, 21, 30):
        f = feats.build(view)
        with torch.no_grad():
            logits, _ = net(
                torch.as_tensor(f["candidates"])[None],
                torch.as_tensor(f["context"])[None],
                torch.as_tensor(f["mask"])[None],
            )
        agree += int(logits.argmax()) == f["expert"]
        total += 1
    assert agree >= 0.8 * total


def test_the_trainer_writes_its_files_repeats_and_refuses_an_existing_out(tmp_path):
    from training.ginny_o import turns as trainer

    argv = [
        "--seed",
        "2",
        "--bc-games-2p",
        "1",
        "--bc-games-4p",
        "0",
        "--bc-epochs",
        "2",
        "--ppo-games",
        "1",
        "--ppo-batch",
        "1",
        "--hidden",
        "8",
    ]
    assert trainer.main(["--out", str(tmp_path / "a"), *argv]) == 0
    assert trainer.main(["--out", str(tmp_path / "b"), *argv]) == 0
    for name in ("bc.pt", "policy.pt"):
        wa = torch.load(tmp_path / "a" / name, weights_only=True)["state_dict"]
        wb = torch.load(tmp_path / "b" / name, weights_only=True)["state_dict"]
        assert all(torch.equal(wa[k], wb[k]) for k in wa)
    log = json.loads((tmp_path / "a" / "train_log.json").read_text())
    assert [r["phase"] for r in log["log"]] == ["bc", "bc", "ppo"]
    with pytest.raises(SystemExit):
        trainer.main(["--out", str(tmp_path / "a"), *argv])
    with pytest.raises(SystemExit):
        trainer.main(["--out", str(tmp_path / "c"), "--bc-games-2p", "0", "--bc-games-4p", "0"])


def test_best_score_is_the_highest_generated_score():
    """movegen.best_score (the expert's reply estimate) equals the highest score (G28) of
    generate's placements, compiled and reference, and 0 without a placement."""
    from gnome_env.ginny_o.movegen import best_score, generate, reference_generator

    expert = ExpertGinnyAgent(5)
    checked = 0
    for _, view in _turn_starts(2, 3, 12):
        for counts in expert.sample_racks(view)[:3]:
            want = max((p.score for p in generate(view.board, counts, max_tiles=7)), default=0)
            assert best_score(view.board, counts, max_tiles=7) == want
            if checked % 4 == 0:
                with reference_generator():
                    assert best_score(view.board, counts, max_tiles=7) == want
            checked += 1
    assert checked >= 30
    _, view = _turn_starts(2, 3, 1)[0]
    assert best_score(view.board, [0] * 53, max_tiles=7) == 0


def test_an_empty_rack_offers_no_return():
    """G14: a return needs a tile; with every slot empty only the legal pass is offered."""
    from types import SimpleNamespace

    from agents.ginny_o.turns import turn_mask

    view = SimpleNamespace(
        slots=(-1,) * 8, legal_actions=(A.PASS,), placements=(), placement_actions=()
    )
    assert turn_actions(view, [], K, K + WEAK_RETURN) is None
    assert turn_mask(view, [], K).tolist() == [False] * (K + 2) + [True]
    assert turn_actions(view, [], K, K + PASS) == (A.PASS,)
