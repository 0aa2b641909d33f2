"""The luck correction of the arena (agents/gnoming/luck.py, issue #33): its chance events,
their distributions, the exact terminal value, the corrected statistics and the options."""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from agents.core.arena import corrected_stats, run_arena
from agents.gnoming import luck_kernel as K
from agents.gnoming.luck import LuckValue, chance_events, event_terms, game_luck, shipped_value
from agents.gnoming.registry import make_agent
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.testing import layout_tokens, stack_deck

CFG3 = RulesConfig(num_players=3)


def _play(config: RulesConfig, seed: int, spec: str = "greedy", stacked=None) -> Game:
    """A game of ``spec`` self-play; ``"random"``: uniform legal actions (seeded)."""
    game = Game(config, seed, stacked_decks=stacked)
    if spec == "random":
        pick = np.random.default_rng(seed)
        while not game.game_over:
            legal = game.legal_actions()
            game.step(legal[int(pick.integers(len(legal)))])
        return game
    agents = [make_agent(spec, 100 + s, config) for s in range(config.num_players)]
    while not game.game_over:
        s = game.current_seat
        game.step(agents[s].decide(SeatView.from_game(game, s)))
    return game


def _opening(deck_top):
    layouts = ["5 5 M / 1 2 7 / 3 4 7", "8 8 8 / 1 1 1 / 2 2 2", "-1 -2 3 / 4 5 6 / 9 10 11"]
    deck = stack_deck(CFG3, layouts=layouts, top=deck_top)
    return deck, [layout_tokens(x) for x in layouts]


def test_r4_r5_r7_events_and_the_unseen_cards_they_come_from():
    """R4: the pile starters (a hazard turned up removed) leave the unseen cards; R5: each
    opening flip is a reveal from the unseen cards; R7: a draw from the pile is a card in
    hand, uniform over the cards still unseen."""
    deck, _layouts = _opening(["H", "9", "2", "7"])
    flips = [A.FLIP + 0, A.FLIP + 1] * 3  # every seat flips positions 0 and 1 (D1)
    actions = [*flips, A.DRAW]
    events = list(chance_events(CFG3, 0, actions, {0: deck}))
    assert [e.kind for e in events] == [K.REVEAL_AT] * 6 + [K.DRAWN]
    assert [(e.seat, e.pos) for e in events[:6]] == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0), (2, 1)]
    assert [e.card for e in events[:6]] == [5, 5, 8, 8, -1, -2]
    full = CFG3.deck.counter()
    unseen = full - Counter([100, 9, 2])  # R4: H removed, 9 on A, 2 on B
    for event, card in zip(events, [5, 5, 8, 8, -1, -2, 7], strict=False):
        assert dict(zip(event.support.tolist(), event.counts.tolist(), strict=False)) == {
            c: float(k) for c, k in sorted(unseen.items()) if k > 0
        }
        assert event.card == card
        unseen[card] -= 1
    draw = events[-1]
    assert draw.seat == 0 and draw.phase == K.PLAY and draw.rounds_left == 2
    assert draw.known[0].tolist() == [True, True] + [False] * 7
    assert draw.totals.tolist() == [0.0, 0.0, 0.0]


def test_r10_a_displaced_face_down_card_is_a_reveal_into_the_hand():
    """R10: putting the drawn 7 on face-down position 4 turns the card there (a 2) face up
    into the hand: a DISPLACED event whose support no longer holds the drawn 7."""
    deck, _ = _opening(["H", "9", "2", "7"])
    actions = [*([A.FLIP + 0, A.FLIP + 1] * 3), A.DRAW, A.PLACE + 4]
    events = list(chance_events(CFG3, 0, actions, {0: deck}))
    draw, displaced = events[-2], events[-1]
    assert displaced.kind == K.DISPLACED and displaced.seat == 0 and displaced.pos == 4
    assert displaced.card == 2
    assert displaced.vals[0][4] == 7 and displaced.known[0][4]
    before = dict(zip(draw.support.tolist(), draw.counts.tolist(), strict=False))
    after = dict(zip(displaced.support.tolist(), displaced.counts.tolist(), strict=False))
    assert after[7] == before[7] - 1
    assert sum(after.values()) == sum(before.values()) - 1


def test_r16_reveal_is_one_joint_event_and_the_last_value_is_the_exact_r23_outcome():
    """R16: a round that ends with face-down cards ends with one REVEAL_ALL event (the
    revealed layouts, the face-up mask before, the unseen cards); after the game's last one
    the value is the exact R23 win share and total."""
    checked = 0
    for seed in (3, 4, 5, 6):
        game = _play(CFG3, seed)
        events = list(chance_events(CFG3, seed, game.actions))
        for r, result in enumerate(game.round_results):
            mine = [e for e in events if e.round == r]
            joint = [e for e in mine if e.kind == K.REVEAL_ALL]
            assert len(joint) <= 1 and (not joint or mine[-1] is joint[0])
            if not joint:
                continue
            event = joint[0]
            assert event.vals.tolist() == [list(x) for x in result.layouts]
            assert event.phase == K.REVEAL and event.rounds_left == 2 - r
            assert event.counts.sum() >= (~event.known).sum() > 0
        final = events[-1]
        if final.kind == K.REVEAL_ALL and final.rounds_left == 0:
            win, est = np.zeros(3), np.zeros(3)
            value = shipped_value()
            K.state_values(
                final.vals,
                np.ones_like(final.known),
                final.totals,
                K.REVEAL,
                0,
                final.first_out,
                True,
                value.coef,
                value.sigma,
                win,
                est,
            )
            shares = [1 / len(game.winners()) if s in game.winners() else 0.0 for s in range(3)]
            assert win.tolist() == pytest.approx(shares)
            assert est.tolist() == pytest.approx(game.totals)
            checked += 1
    assert checked > 0


def test_r8_draws_after_a_reshuffle_come_from_the_reshuffled_pile():
    """R8: every seat draws and discards until the draw pile is gone; the draw that finds it
    empty reshuffles the discards (D4: each pile keeps its top), and that draw and the next
    ones are uniform over the reshuffled pile's cards -- known cards -- never over the
    unseen ones."""
    config = RulesConfig(num_players=7)
    game = Game(config, 21)
    actions: list[int] = []
    piles: list[Counter] = []
    while len(piles) < 6:
        phase = game.phase.name
        if phase == "OPENING_FLIP":
            action = game.legal_actions()[0]
        elif phase == "DRAW":
            action = A.DRAW
        elif phase == "PLACE":
            action = A.DISCARD_A
        else:  # HAZARD_FLIP: decline
            action = A.DECLINE
        reshuffled = phase == "DRAW" and (game.reshuffles > 0 or not game.draw_pile)
        game.step(action)
        actions.append(action)
        if reshuffled:
            piles.append(Counter(game.draw_pile) + Counter([game.held]))
    assert game.reshuffles == 1 and game.round == 0
    draws = [e for e in chance_events(config, 21, actions) if e.kind == K.DRAWN]
    for event, pile in zip(draws[-6:], piles, strict=True):
        assert dict(zip(event.support.tolist(), event.counts.tolist(), strict=True)) == {
            c: float(k) for c, k in sorted(pile.items())
        }
    # the first draw came from the unseen cards: the deck less the R4 cards (two starters
    # and any hazard turned up there) and the 14 opening flips (R5)
    r4_hazards = Game(config, 21).hazards_removed
    assert draws[0].counts.sum() == 110 - 2 - r4_hazards - 14


def test_win_corrections_sum_to_zero_over_seats_and_luck_is_deterministic():
    game = _play(CFG3, 11)
    a = game_luck(CFG3, 11, game.actions)
    b = game_luck(CFG3, 11, game.actions)
    assert a == b
    assert sum(a["win"]) == pytest.approx(0.0, abs=1e-9)
    assert a["events"] == len(list(chance_events(CFG3, 11, game.actions)))
    assert any(abs(x) > 1e-3 for x in a["win"])


def test_event_terms_are_zero_mean_over_the_support():
    """Each term is value(card) - E[value]: its mean over the support, weighted by the
    counts, is 0 whatever the value function (here the shipped and an unfitted one)."""
    game = _play(CFG3, 12)
    for value in (shipped_value(), LuckValue.untrained()):
        events = [e for e in chance_events(CFG3, 12, game.actions) if e.kind != K.REVEAL_ALL]
        for event in events[::25]:
            total_w = np.zeros(3)
            total_t = np.zeros(3)
            for card, count in zip(event.support, event.counts, strict=False):
                event.card = int(card)
                w, t = event_terms(event, value, True)
                total_w += count * w
                total_t += count * t
            assert np.allclose(total_w, 0.0, atol=1e-9) and np.allclose(total_t, 0.0, atol=1e-6)


def test_corrected_stats_arithmetic():
    """Two deals of two rotations; the corrected share is share - luck_win, the factor the
    ratio of the per-deal-mean variances."""
    recs = [
        {
            "deal": 0,
            "win_shares": [1.0, 0.0],
            "totals": [10, 20],
            "luck_win": [0.5, -0.5],
            "luck_total": [-2.0, 2.0],
        },
        {
            "deal": 0,
            "win_shares": [1.0, 0.0],
            "totals": [12, 18],
            "luck_win": [0.3, -0.3],
            "luck_total": [0.0, 0.0],
        },
        {
            "deal": 1,
            "win_shares": [0.0, 1.0],
            "totals": [30, 5],
            "luck_win": [-0.4, 0.4],
            "luck_total": [4.0, -4.0],
        },
        {
            "deal": 1,
            "win_shares": [0.0, 1.0],
            "totals": [28, 7],
            "luck_win": [-0.2, 0.2],
            "luck_total": [2.0, -2.0],
        },
    ]
    st = corrected_stats(0, recs)
    # corrected per-deal means: deal 0 (0.5 + 0.7) / 2 = 0.6, deal 1 (0.4 + 0.2) / 2 = 0.3
    assert st["corrected_win_rate"] == pytest.approx(0.45)
    half = 1.959963984540054 * np.std([0.6, 0.3], ddof=1) / math.sqrt(2)
    assert st["corrected_ci_low"] == pytest.approx(0.45 - half)
    assert st["variance_reduction"] == pytest.approx(
        np.var([1.0, 0.0], ddof=1) / np.var([0.6, 0.3], ddof=1)
    )
    # totals: deal 0 (12 + 12) / 2 = 12, deal 1 (26 + 26) / 2 = 26
    assert st["corrected_mean_total"] == pytest.approx(19.0)
    assert st["total_variance_reduction"] == pytest.approx(
        np.var([11, 29], ddof=1) / np.var([12, 26], ddof=1)
    )


def test_arena_variance_reduction_keeps_the_plain_figures_and_is_worker_independent(tmp_path):
    lineup = ["greedy", "expert", "random"]
    plain = run_arena(lineup, 3, 12, seed=5, progress=False)
    one = run_arena(lineup, 3, 12, seed=5, progress=False, variance_reduction=True)
    two = run_arena(lineup, 3, 12, seed=5, progress=False, variance_reduction=True, workers=2)
    for a, b in zip(plain.stats, one.stats, strict=False):
        assert (a.win_rate, a.ci_low, a.ci_high, a.mean_total) == (
            b.win_rate,
            b.ci_low,
            b.ci_high,
            b.mean_total,
        )
        assert a.corrected_win_rate is None and b.corrected_win_rate is not None
    assert one.stats == two.stats
    one.to_json(tmp_path / "r.json")
    entry = json.loads((tmp_path / "r.json").read_text())["entries"][0]
    for key in (
        "corrected_win_rate",
        "corrected_ci_low",
        "corrected_ci_high",
        "variance_reduction",
    ):
        assert isinstance(entry[key], float)
    assert (
        "value_meta"
        in json.loads((tmp_path / "r.json").read_text())["settings"]["variance_reduction"]
    )
    plain.to_json(tmp_path / "p.json")
    assert "corrected_win_rate" not in json.loads((tmp_path / "p.json").read_text())["entries"][0]
    assert "luck-corrected" in one.table() and "luck-corrected" not in plain.table()


def without_luck(monkeypatch, name: str) -> None:
    """Make game ``name``'s arena look like one without a luck correction (every game of
    the project has one; the refusal is for games registered without)."""
    import dataclasses

    import agents.core.arena as core

    real = core.arena_game
    monkeypatch.setattr(
        core,
        "arena_game",
        lambda g: dataclasses.replace(real(g), luck=None) if g == name else real(g),
    )


def test_variance_reduction_is_refused_for_a_game_without_it(monkeypatch):
    without_luck(monkeypatch, "nerts")
    with pytest.raises(ValueError, match="variance_reduction is not available for game='nerts'"):
        run_arena(["greedy", "greedy"], 2, 2, game="nerts", progress=False, variance_reduction=True)


def test_value_file_errors_name_the_problem(tmp_path):
    bad = tmp_path / "v.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="is not valid JSON"):
        LuckValue.load(bad)
    data = shipped_value().to_dict()
    data["coef"] = data["coef"][:2]
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="coef must have shape"):
        LuckValue.load(bad)
    with pytest.raises(ValueError, match="cannot read"):
        LuckValue.load(tmp_path / "missing.json")
    assert shipped_value().meta["fitted"] is True


def test_gnome_eval_variance_reduction_flag(capsys, tmp_path, monkeypatch):
    """The flag prints the corrected block and writes the fields; for a game without a luck
    correction it is refused with an argparse error naming the games that have one."""
    from training.app.cli import main

    out = tmp_path / "r.json"
    argv = ["eval", "--players", "3", "--lineup", "greedy,random,random", "--games", "6"]
    assert main([*argv, "--variance-reduction", "--no-progress", "--json", str(out)]) == 0
    assert "luck-corrected" in capsys.readouterr().out
    assert "variance_reduction" in json.loads(out.read_text())["entries"][0]
    without_luck(monkeypatch, "nerts")
    with pytest.raises(SystemExit) as info:
        main(
            [
                "eval",
                "--game",
                "nerts",
                "--players",
                "2",
                "--lineup",
                "greedy,random",
                "--games",
                "2",
                "--variance-reduction",
            ]
        )
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "argument --variance-reduction: not available for --game nerts" in err
    assert "games with one: gnoming, ginny_o" in err  # nerts has one too, hidden here
