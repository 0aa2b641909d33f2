"""The own-turn look-ahead (agents.ginny_o.expert.LookaheadGinnyAgent) and the whole-turn
features and trainer built on it (agents/ginny_o/turns.py with ``own`` > 0, the
``ginny_lookahead`` policy): the rule the features report is the bot's, the estimate is the
documented mean, no hidden tile reaches the features (G17), checkpoints say which feature set
they use, and the trainer repeats itself."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.core.arena import run_arena
from agents.ginny_o.bots import remaining_tiles
from agents.ginny_o.expert import ExpertGinnyAgent, LookaheadGinnyAgent
from agents.ginny_o.turns import (
    CANDIDATE_FEATURES,
    LOOKAHEAD_FEATURES,
    TurnFeatures,
    TurnPolicyNetwork,
    candidate_features,
    read_checkpoint,
    save_policy,
)
from gnome_env.ginny_o.cards import NUM_KINDS
from gnome_env.ginny_o.config import RACK_SIZE, GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.hidden import permute_hidden
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.movegen import best_score

NAMES = candidate_features(6)
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "agents" / "policies" / "ginny_lookahead" / "policy.pt"


def _turn_starts(players: int, seed: int, turns: int):
    game = GinnyGame(GinnyConfig(num_players=players), seed)
    bots = [ExpertGinnyAgent(s) for s in range(players)]
    out = []
    while not game.game_over and len(out) < turns:
        view = GinnyView.from_game(game, game.current)
        if view.phase == "choose":
            out.append((game.copy(), view))
        game.step(bots[game.current].decide(view))
    return out


def test_own_next_is_the_mean_best_score_of_refilled_racks():
    """own_next: the placement on a board copy, the rack it leaves plus as many tiles as it
    places drawn from the unseen tiles, the best score of each such rack, averaged."""
    checked = 0
    for _, view in _turn_starts(2, 31, 12):
        if not view.placements:
            continue
        p = view.placements[0]
        bot = LookaheadGinnyAgent(8)
        got = bot.own_next(view, p)
        rng = np.random.default_rng(8)
        board = view.board.copy()
        for c, tile, card in p.tiles:
            board.put(c, tile == 52, card, p.region)
        pool = np.repeat(np.arange(NUM_KINDS), np.asarray(view.unseen, dtype=np.int64))
        left = np.bincount(np.asarray(remaining_tiles(view, p), dtype=np.int64), minlength=53)
        draw = min(len(p.tiles), view.box_size, pool.size)
        want = []
        for _ in range(LookaheadGinnyAgent.OWN_SAMPLES):
            counts = left + np.bincount(rng.choice(pool, size=draw, replace=False), minlength=53)
            want.append(best_score(board, counts.tolist(), max_tiles=RACK_SIZE))
        assert got == pytest.approx(float(np.mean(want)))
        checked += 1
    assert checked >= 5


def test_the_lookahead_choice_in_the_features_is_the_bots_choice():
    """With the same seed the features' ``expert`` action is LookaheadGinnyAgent's placement
    (one seeded stream, drawn in the same order), and it differs from the expert's somewhere."""
    feats = TurnFeatures(42, GinnyConfig(num_players=2), own=6, own_weight=0.8)
    assert feats.names == NAMES and NAMES[-1] == "own_next"
    bot = LookaheadGinnyAgent(42, GinnyConfig(num_players=2))
    plain = ExpertGinnyAgent(42, GinnyConfig(num_players=2))
    compared = differ = looked = 0
    for _, view in _turn_starts(2, 9, 40):
        f = feats.build(view)
        assert f["candidates"].shape[1] == len(NAMES)
        if len(view.placements) < 2:
            continue
        pick = bot.choose(view)
        assert f["order"][f["expert"]] == pick
        differ += pick != plain.choose(view)
        row = f["candidates"][f["expert"]]
        assert row[NAMES.index("expert_choice")] == 1.0
        own = f["candidates"][:, NAMES.index("own_next")]
        replied = f["candidates"][:, NAMES.index("replied")] == 1.0
        assert (own[~replied] == 0).all()  # only the replied candidates are looked at
        looked += bool((own[replied] > 0).any())
        compared += 1
    assert compared >= 10 and differ >= 1 and looked >= compared // 2


def test_a_per_seat_reply_weight_scales_with_the_other_seats():
    """REPLY_PER_SEAT w weights the reply by w x (n - 1): at 2 players the rule is the fixed
    weight w's, at 4 players the fixed weight 3w's (the same seed draws the same racks), and
    at 4 players it differs from the fixed 0.5 somewhere."""

    def rule(weight: float | None, fixed: float, players: int):
        attrs = {"REPLY_PER_SEAT": weight, "REPLY_WEIGHT": fixed}
        return type("Rule", (LookaheadGinnyAgent,), attrs)(5, GinnyConfig(num_players=players))

    compared = differ = 0
    for players in (2, 4):
        for _, view in _turn_starts(players, 23, 30):
            if len(view.placements) < 2:
                continue
            per_seat = rule(0.5, 0.5, players)
            assert per_seat.reply_weight(view) == 0.5 * (players - 1)
            fixed = rule(None, 0.5 * (players - 1), players)
            assert per_seat.choose(view) == fixed.choose(view)
            if players == 4:
                differ += per_seat.choose(view) != rule(None, 0.5, 4).choose(view)
            compared += 1
    assert compared >= 20 and differ >= 1


def test_the_features_follow_a_per_seat_reply_weight():
    """TurnFeatures with ``reply_per_seat`` reports the per-seat rule's pick and equity, and a
    bad value is a clear error."""
    feats = TurnFeatures(42, GinnyConfig(num_players=4), own=6, reply_per_seat=0.5)
    bot = type("Rule", (LookaheadGinnyAgent,), {"REPLY_PER_SEAT": 0.5})(
        42, GinnyConfig(num_players=4)
    )
    compared = 0
    for _, view in _turn_starts(4, 19, 24):
        f = feats.build(view)
        if len(view.placements) < 2:
            continue
        assert f["order"][f["expert"]] == bot.choose(view)
        rows = f["candidates"][f["candidates"][:, NAMES.index("replied")] == 1.0]
        value, reply, own, equity = (
            rows[:, NAMES.index(n)] for n in ("value", "reply", "own_next", "equity")
        )
        np.testing.assert_allclose(equity, value - 1.5 * reply + 0.8 * own, atol=1e-5)
        compared += 1
    assert compared >= 10
    for bad in (-1.0, "1", True):
        with pytest.raises(ValueError, match="reply_per_seat"):
            TurnFeatures(1, GinnyConfig(num_players=4), reply_per_seat=bad)


def test_the_lookahead_features_hold_no_hidden_tile():
    """G17: re-dealing the box and the other racks leaves every feature equal (the own-turn
    refills, like the reply racks, come from the unseen multiset and the agent's generator)."""
    checked = 0
    for players in (2, 4):
        for game, view in _turn_starts(players, 17, 10):
            seat = game.current
            mine = TurnFeatures(7, game.config, own=4).build(view)
            for shuffle in range(2):
                other = permute_hidden(game, seat, 900 + shuffle)
                assert other.digest() != game.digest()
                view2 = GinnyView.from_game(other, seat)
                theirs = TurnFeatures(7, game.config, own=4).build(view2)
                assert theirs["order"] == mine["order"] and theirs["expert"] == mine["expert"]
                for key in ("candidates", "context", "mask"):
                    np.testing.assert_array_equal(theirs[key], mine[key])
                checked += 1
    assert checked >= 30


def test_checkpoints_name_their_feature_set(tmp_path):
    assert candidate_features(0) == CANDIDATE_FEATURES
    assert candidate_features(3) == CANDIDATE_FEATURES + LOOKAHEAD_FEATURES
    search = {"top": 6, "samples": 6, "own": 6, "own_weight": 0.8}
    net = TurnPolicyNetwork(hidden=8, own=True)
    path = save_policy(net, tmp_path / "own.pt", {"note": "untrained"}, search)
    loaded, data = read_checkpoint(path)
    assert loaded.own and data["features"]["candidates"] == list(NAMES)
    assert data["search"] == search
    with pytest.raises(ValueError, match="disagree"):
        save_policy(TurnPolicyNetwork(hidden=8), tmp_path / "x.pt", {}, search)
    with pytest.raises(ValueError, match="disagree"):
        save_policy(net, tmp_path / "y.pt", {}, {"top": 6, "samples": 6})
    data = torch.load(path, weights_only=True)
    data["search"] = {"top": 6, "samples": 6}  # claims the plain features
    torch.save(data, tmp_path / "z.pt")
    with pytest.raises(ValueError, match="other features"):
        read_checkpoint(tmp_path / "z.pt")
    with pytest.raises(ValueError, match="own=-1 is not allowed"):
        TurnFeatures(0, None, own=-1)
    # an own-turn checkpoint plays legal, repeatable games
    lineup = [f"turns:{path}", "expert"]
    a = run_arena(lineup, 2, 2, seed=5, workers=1, progress=False, game="ginny_o")
    b = run_arena(lineup, 2, 2, seed=5, workers=1, progress=False, game="ginny_o")
    assert [g["digest"] for g in a.records] == [g["digest"] for g in b.records]


def test_the_trainer_with_a_lookahead_teacher_repeats_itself(tmp_path):
    from training.ginny_o import turns as trainer

    argv = [
        *("--seed", "3", "--bc-games-2p", "1", "--bc-games-4p", "0", "--bc-epochs", "2"),
        *("--ppo-games", "1", "--ppo-batch", "1", "--hidden", "8"),
        *("--reply-top", "3", "--reply-samples", "2", "--own-samples", "2"),
    ]
    assert trainer.main(["--out", str(tmp_path / "a"), *argv]) == 0
    assert trainer.main(["--out", str(tmp_path / "b"), *argv]) == 0
    for name in ("bc.pt", "policy.pt"):
        wa = torch.load(tmp_path / "a" / name, weights_only=True)
        wb = torch.load(tmp_path / "b" / name, weights_only=True)
        assert wa["search"] == {"top": 3, "samples": 2, "own": 2, "own_weight": 0.8}
        assert wa["network"]["own"] is True
        assert all(torch.equal(wa["state_dict"][k], wb["state_dict"][k]) for k in wa["state_dict"])
    log = json.loads((tmp_path / "a" / "train_log.json").read_text())
    assert log["config"]["own_samples"] == 2
    with pytest.raises(SystemExit):
        trainer.main(["--out", str(tmp_path / "c"), "--own-samples", "-1"])
    with pytest.raises(SystemExit):
        trainer.main(["--out", str(tmp_path / "c"), "--reply-per-seat", "-0.5"])
    # the per-seat reply weight travels in the checkpoint's search settings
    assert trainer.main(["--out", str(tmp_path / "d"), *argv, "--reply-per-seat", "0.5"]) == 0
    wd = torch.load(tmp_path / "d" / "policy.pt", weights_only=True)
    assert wd["search"] == {
        "top": 3,
        "samples": 2,
        "own": 2,
        "own_weight": 0.8,
        "reply_per_seat": 0.5,
    }
    net, data = read_checkpoint(tmp_path / "d" / "policy.pt")
    assert (
        TurnFeatures(1, GinnyConfig(num_players=4), net.k, **data["search"]).expert.REPLY_PER_SEAT
        == 0.5
    )


@pytest.mark.skipif(not SHIPPED.exists(), reason="the look-ahead policy is not shipped")
def test_the_shipped_lookahead_policy_is_the_strongest_and_follows_its_teacher():
    from gnome_env.registry import get_game

    spec = get_game("ginny_o")
    assert spec.strongest_policy.spec == "turns:agents/policies/ginny_lookahead/policy.pt"
    net, data = read_checkpoint(SHIPPED)
    assert SHIPPED.stat().st_size < 5_000_000
    assert net.own and data["search"] == {"top": 6, "samples": 6, "own": 6, "own_weight": 0.8}
    feats = TurnFeatures(5, GinnyConfig(num_players=2), net.k, **data["search"])
    agree = total = 0
    for _, view in _turn_starts(2, 21, 25):
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
