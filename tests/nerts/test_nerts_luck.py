"""The Nerts luck correction (issue #33): chance events, their terms, the arena option.

Positions are stacked through the engine's test hook (``stacked_decks``,
:func:`gnome_env.nerts.testing.stack_deck`); expected cards and values are worked out from
the rules, not read from the code under test.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.core.arena import run_arena
from agents.nerts.arena import play_game
from agents.nerts.luck import (
    FEATURES,
    NERTS_STAGES,
    UNKNOWN,
    NertsLuckValue,
    PriorityEvent,
    RevealEvent,
    chance_terms,
    game_luck,
    shipped_value,
    snapshot,
    stage,
)
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts.actions import CALL, RECYCLE, TURN, WAIT, action_table
from gnome_env.nerts.cards import parse_cards
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.records import GameLog
from gnome_env.nerts.testing import stack_deck

STAGES = len(NERTS_STAGES) + 1


def score_only(coef: float = 1.0) -> NertsLuckValue:
    """A hand-made value: the win logit is ``coef`` x hand score, nothing else."""
    win = np.zeros((STAGES, len(FEATURES)))
    win[:, 0] = coef
    return NertsLuckValue(win, np.zeros((STAGES, len(FEATURES) + 1)), {"fitted": False})


def played_log(n: int, seed: int, specs: tuple[str, ...], **rules) -> GameLog:
    config = NertsConfig(num_players=n, max_hands=1, **rules)
    log = GameLog(config, seed)
    agents = [make_nerts_agent(specs[s % len(specs)], seed * 10 + s, config) for s in range(n)]
    play_game(log, agents)
    return log


def test_n5_deal_shows_four_work_cards_and_the_nerts_top_per_seat_each_from_the_unseen_deck():
    cfg = NertsConfig(num_players=2)
    decks = {0: [stack_deck(cfg, work=["KH", "QS", "5D", "AC"]), None]}
    tracker = chance_terms(cfg, 3, [[]], score_only(), stacked_decks=decks)
    deal = [e for e in tracker.events if isinstance(e, RevealEvent) and e.step == 0]
    assert [(e.seat, e.where) for e in deal] == [
        *[(0, "work")] * 4,
        (0, "nerts"),
        *[(1, "work")] * 4,
        (1, "nerts"),
    ]
    seat0 = [e for e in deal if e.seat == 0]
    assert [e.card for e in seat0[:4]] == parse_cards(["KH", "QS", "5D", "AC"])
    # each draw is uniform over the seat's 52 cards less those already shown
    for k, e in enumerate(seat0):
        assert len(e.unseen) == 52 - k
        assert e.card in e.unseen
        assert not set(e.unseen) & {x.card for x in seat0[:k]}


def test_n15_n16_waste_tops_are_chance_events_on_the_first_pass_only():
    """Turning 3 at a time through 35 stock cards shows 12 packet tops (the 3rd, 6th, ...,
    33rd card and the 35th); after the recycle (N16) the same packets come round in the same
    order, every top already seen: no more events."""
    cfg = NertsConfig(num_players=2)
    deck = stack_deck(cfg)
    game_log = GameLog(cfg, 5, stacked_decks={0: [deck, None]})
    stock = game_log.game.stock_top_first(0)
    assert len(stock) == 35
    steps = [[TURN, WAIT]] * 12 + [[RECYCLE, WAIT]] + [[TURN, WAIT]] * 12
    for joint in steps:
        game_log.step(joint)
    tracker = chance_terms(cfg, 5, game_log.hands, score_only(), stacked_decks={0: [deck, None]})
    waste = [e for e in tracker.events if isinstance(e, RevealEvent) and e.where == "waste"]
    assert [e.card for e in waste] == [stock[i] for i in (*range(2, 33, 3), 34)]
    assert [e.step for e in waste] == list(range(1, 13))
    assert all(e.seat == 0 for e in waste)


def collision_position():
    """Seat 0's Nerts top is the ace of clubs with the 2 of clubs under it; seat 1's Nerts
    top is its own 2 of clubs. Step 0: seat 0 starts the clubs foundation. Step 1: both play
    their 2 of clubs onto it (N20.2: one is blocked)."""
    cfg = NertsConfig(num_players=2, nerts_size=2)
    decks = {0: [stack_deck(cfg, nerts=["2C", "AC"]), stack_deck(cfg, nerts=["3D", "2C"])]}
    table = action_table(cfg)
    steps = [[table.new_foundation(0, 0), WAIT], [table.to_slot(0, 0), table.to_slot(0, 0)]]
    return cfg, decks, steps


def test_n20_collision_is_a_chance_event_over_its_two_winners_with_the_exact_term():
    cfg, decks, steps = collision_position()
    seed = 11
    log = GameLog(cfg, seed, stacked_decks=decks)
    for joint in steps:
        log.step(joint)
    winner = min((0, 1), key=log.game.priority(1).index)
    tracker = chance_terms(cfg, seed, log.hands, score_only(), stacked_decks=decks)
    (event,) = [e for e in tracker.events if isinstance(e, PriorityEvent)]
    assert event.groups == [(0, 1)] and event.winners == (winner,)
    # Hand scores after step 1 (N30): if seat 0 wins, seat 0 has 2 cards up and an empty
    # Nerts pile (+2), seat 1 none and 2 in its pile (-4); if seat 1 wins, both have one
    # card up and one in the pile (-1 each). Reveals change no score: their terms are 0.
    v0_if_0 = 1.0 / (1.0 + math.exp(-6.0))
    v0_if_1 = 0.5
    mean = (v0_if_0 + v0_if_1) / 2
    expect0 = (v0_if_0 if winner == 0 else v0_if_1) - mean
    assert tracker.win[0] == pytest.approx(expect0, abs=1e-12)
    assert tracker.win[1] == pytest.approx(-expect0, abs=1e-12)
    # totals: the predicted totals are the hand scores (no points to come)
    t0 = 2.0 if winner == 0 else -1.0
    assert tracker.total[0] == pytest.approx(t0 - 0.5, abs=1e-12)


def test_n20_no_term_under_both_keep_where_every_play_succeeds():
    cfg, decks, steps = collision_position()
    cfg = NertsConfig(num_players=2, nerts_size=2, foundation_tie="both_keep")
    log = GameLog(cfg, 11, stacked_decks=decks)
    for joint in steps:
        log.step(joint)
    tracker = chance_terms(cfg, 11, log.hands, score_only(), stacked_decks=decks)
    assert not [e for e in tracker.events if isinstance(e, PriorityEvent)]
    assert np.abs(tracker.win).max() < 1e-12


@pytest.mark.parametrize(("n", "seed"), [(2, 1), (3, 2), (4, 3), (6, 4)])
def test_n35_every_first_showing_is_an_event_over_exactly_the_cards_not_shown_before(n, seed):
    """Independently of the tracker: the cards of each seat ever visible in the public view
    (N34: Nerts top, waste top, work piles), step by step. Each event's card shows first at
    its step and its support is the seat's deck less everything shown before; every card
    that shows before the hand's last step has exactly one event (what shows in the step
    that ends the hand needs none: the value there is the scored outcome)."""
    log = played_log(n, seed, ("greedy", "random"))
    cfg = log.game.config
    replay = GameLog(cfg, seed).game
    shown: list[list[set[int]]] = []  # shown[k][s]: seat s's cards visible by step k

    def visible(game, s):
        view = NertsView.from_game(game, 0)
        cards = {c for pile in view.work[s] for c in pile}
        cards |= {c for c in (view.nerts_top[s], view.waste_top[s]) if c is not None}
        return cards

    shown.append([visible(replay, s) for s in range(n)])
    for joint in log.hands[0]:
        replay.step(joint)
        shown.append([shown[-1][s] | visible(replay, s) for s in range(n)])
    tracker = chance_terms(cfg, seed, log.hands, shipped_value())
    reveals = [e for e in tracker.events if isinstance(e, RevealEvent)]
    deck = set(range(cfg.deck_size))
    for s in range(n):
        mine = [e for e in reveals if e.seat == s]
        assert sorted(e.card for e in mine) == sorted(shown[-2][s])
        for e in mine:
            if e.step == 0:
                continue
            assert e.card in shown[e.step][s] and e.card not in shown[e.step - 1][s]
            assert sorted(e.unseen) == sorted(deck - shown[e.step - 1][s])


def test_win_terms_sum_to_zero_over_seats_and_average_to_zero_over_games():
    """Win probabilities sum to one in every outcome, so a game's win terms sum to zero over
    the seats. Each term has expectation zero when the support and weights of its event are
    the engine's own: over 60 games the mean of seat 0's summed terms lies within 4
    standard errors of zero (a wrong support, e.g. one that kept shown cards, would shift
    it)."""
    sums = []
    for seed in range(60):
        log = played_log(2, 100 + seed, ("greedy",), max_steps_per_hand=200)
        tracker = chance_terms(log.game.config, 100 + seed, log.hands, shipped_value())
        assert abs(tracker.win.sum()) < 1e-9
        sums.append(tracker.win[0])
    sums = np.array(sums)
    assert np.abs(sums).max() > 0.01  # the terms are not all zero
    assert abs(sums.mean()) < 4 * sums.std(ddof=1) / np.sqrt(len(sums))


def test_vectorised_reveal_terms_equal_the_features_recomputed_card_by_card():
    """The reveal term is computed for all possible cards at once from a few feature
    columns; recomputing every alternative's whole row with :meth:`Snapshot.row` gives the
    same terms."""
    from agents.nerts.luck import _Tracker

    log = played_log(3, 8, ("greedy", "random"))
    value = shipped_value()
    tracker = _Tracker(GameLog(log.game.config, 8).game, value)
    original = tracker._reveal_terms
    checked = []

    def check(snap, seat, where, index, card, unseen):
        slow = []
        for c in unseen:
            rows = snap.rows()
            if where == "work":
                saved = snap.work_tops[seat][index]
                snap.work_tops[seat][index] = c
                rows[seat] = snap.row(seat)
                snap.work_tops[seat][index] = saved
            elif where == "nerts":
                rows[seat] = snap.row(seat, nerts_top=c)
            else:
                rows[seat] = snap.row(seat, waste_top=c)
            slow.append(value.values(rows, snap.carried, snap.stage)[0])
        slow = np.array(slow)
        slow -= slow.mean(axis=0)
        for k, c in enumerate(unseen[:8]):
            before = tracker.win.copy()
            original(snap, seat, where, index, c, unseen)
            fast = tracker.win - before
            tracker.win = before
            assert np.allclose(fast, slow[k], atol=1e-12), (where, c)
        checked.append(where)
        original(snap, seat, where, index, card, unseen)

    tracker._reveal_terms = check
    tracker.reveals(0)
    for joint in log.hands[0]:
        tracker.step(joint)
    assert {"work", "nerts", "waste"} <= set(checked) and len(checked) > 50


def test_n35_the_value_reads_no_hidden_card():
    """Two deals that differ only in face-down Nerts cards and the stock order give the same
    public features (with the seen cards tracked and unseen tops read as unknown)."""
    cfg = NertsConfig(num_players=2)
    a = stack_deck(
        cfg, nerts=[*["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH", "QH", "KH", "AS"]]
    )
    b = stack_deck(
        cfg, nerts=[*["KH", "QH", "JH", "TH", "9H", "8H", "7H", "6H", "5H", "4H", "3H", "2H", "AS"]]
    )
    b_stock = b[17:]
    b = b[:17] + b_stock[::-1]
    rows = []
    for deck in (a, b):
        log = GameLog(cfg, 2, stacked_decks={0: [deck, deck]})
        game = log.game
        seen = [set(), set()]
        for s in range(2):
            seen[s].update(p[-1] for p in (*game.work[s], game.nerts[s]) if p)
        rows.append(snapshot(game, seen, 20.0).rows())
        masked = snapshot(game, [set(), set()], 20.0)
        assert masked.nerts_top == [UNKNOWN, UNKNOWN]
    assert np.array_equal(rows[0], rows[1])


def test_the_outcome_is_the_value_at_the_end_and_calls_are_read_exactly():
    """A one-hand game that ends by a call: the last state's value is the win share itself."""
    cfg = NertsConfig(num_players=2, nerts_size=1, max_hands=1)
    decks = {0: [stack_deck(cfg, nerts=["AC"]), stack_deck(cfg, nerts=["AD"])]}
    table = action_table(cfg)
    log = GameLog(cfg, 1, stacked_decks=decks)
    log.step([table.new_foundation(0, 0), WAIT])
    log.step([CALL, WAIT])
    assert log.game.game_over and log.game.winners() == (0,)
    snap = snapshot(log.game, [set(range(52))] * 2, 20.0)
    assert snap.outcome is not None
    assert list(snap.outcome[0]) == [1.0, 0.0]
    assert list(snap.outcome[1]) == [1.0, -2.0]


def test_luck_is_deterministic_and_stages():
    log = played_log(3, 9, ("greedy", "random"))
    one = game_luck(log.game.config, 9, log.hands)
    two = game_luck(log.game.config, 9, log.hands)
    assert one == two and one["events"] > 0
    assert [stage(m) for m in (0, 1, 2, 3, 5, 6, 9, 10, 13)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_arena_variance_reduction_for_nerts(tmp_path):
    kw = {"game": "nerts", "rules": {"max_hands": 1, "max_steps_per_hand": 120}}
    kw |= {"progress": False, "seed": 4}
    plain = run_arena(["greedy", "random", "random"], 3, 6, **kw)
    one = run_arena(["greedy", "random", "random"], 3, 6, variance_reduction=True, **kw)
    two = run_arena(["greedy", "random", "random"], 3, 6, variance_reduction=True, workers=2, **kw)
    assert [s.win_rate for s in plain.stats] == [s.win_rate for s in one.stats]
    assert one.stats == two.stats
    assert one.stats[0].corrected_win_rate is not None
    one.to_json(tmp_path / "r.json")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["settings"]["variance_reduction"]["value"] == "luck_value.json"
    assert isinstance(data["entries"][0]["variance_reduction"], float)


def test_value_file_errors(tmp_path):
    bad = tmp_path / "v.json"
    bad.write_text("[1, 2")
    with pytest.raises(ValueError, match="is not valid JSON"):
        NertsLuckValue.load(bad)
    bad.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match=r"not a gnome_env\.nerts_luck_value file"):
        NertsLuckValue.load(bad)
    data = shipped_value().to_dict()
    data["win"] = data["win"][:2]
    bad.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="win must have shape"):
        NertsLuckValue.load(bad)
    with pytest.raises(ValueError, match="cannot read"):
        NertsLuckValue.load(tmp_path / "missing.json")
    assert shipped_value().meta["fitted"] is True


def test_gnome_eval_game_nerts_variance_reduction(capsys, tmp_path):
    from training.app.cli import main

    out = tmp_path / "r.json"
    argv = ["eval", "--game", "nerts", "--players", "2", "--lineup", "greedy,random"]
    argv += ["--games", "4", "--max-hands", "1", "--max-steps", "100", "--no-progress"]
    assert main([*argv, "--variance-reduction", "--json", str(out)]) == 0
    assert "luck-corrected" in capsys.readouterr().out
    entry = json.loads(out.read_text())["entries"][0]
    assert entry["corrected_ci_low"] <= entry["corrected_win_rate"] <= entry["corrected_ci_high"]


def test_n31_each_hand_deals_afresh_and_the_total_carries_into_the_value():
    """In a game of several hands (N31) every hand's deal starts from the seat's whole deck
    again, and the value of a hand in progress reads the totals carried from earlier hands
    (a seat ahead on totals has the higher win value, all else equal)."""
    config = NertsConfig(num_players=2, max_hands=2, max_steps_per_hand=60, target_score=500)
    log = GameLog(config, 21)
    agents = [make_nerts_agent(s, 5, config) for s in ("greedy", "random")]
    play_game(log, agents)
    assert len(log.hands) == 2
    tracker = chance_terms(config, 21, log.hands, shipped_value())
    second = [e for e in tracker.events if isinstance(e, RevealEvent) and e.hand == 1]
    assert second[0].step == 0 and len(second[0].unseen) == 52
    game = GameLog(config, 21).game
    for joint in log.hands[0]:
        game.step(joint)
    game.next_hand()
    snap = snapshot(game, [set(), set()], shipped_value().game_spread)
    assert list(snap.carried) == list(game.totals) and game.totals[0] != game.totals[1]
    win, _ = shipped_value().values(snap.rows(), snap.carried, snap.stage)
    leader = int(np.argmax(game.totals))
    assert win[leader] > 0.5  # identical unknown layouts: only the totals differ


def test_fit_script_writes_a_loadable_value_and_never_replaces_a_file_unasked(tmp_path, capsys):
    from training.nerts.luck_fit import main

    out = tmp_path / "value.json"
    assert main(["--deals", "5", "--scale-deals", "20", "--out", str(out)]) == 0
    value = NertsLuckValue.load(out)
    assert value.meta["fitted"] is True and value.meta["games"] == 5
    before = out.read_text()
    with pytest.raises(SystemExit) as info:
        main(["--deals", "5", "--scale-deals", "20", "--out", str(out)])
    assert info.value.code == 2
    assert "already exists: pass --overwrite" in capsys.readouterr().err
    assert out.read_text() == before
    with pytest.raises(SystemExit):
        main(["--deals", "5", "--scale-deals", "3", "--out", str(tmp_path / "other.json")])
    assert "--scale-deals must be at least 20" in capsys.readouterr().err
