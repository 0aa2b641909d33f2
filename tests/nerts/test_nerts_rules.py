"""Rule tests for Nerts (RULES-nerts.md N4-N33, N36) and every row of its worked examples.

Positions are built with the documented hook :mod:`gnome_env.nerts.testing` (piles bottom
-> top, stocks top first); expected values are derived from RULES-nerts.md by hand. Tests
named ``test_nXX_example_*`` are the rows of the worked-examples table, in order.
"""

from __future__ import annotations

import pytest

from gnome_env.core import rng
from gnome_env.nerts.actions import CALL, RECYCLE, SHIFT, TURN, WAIT, Kind, action_table
from gnome_env.nerts.cards import parse_card, parse_cards
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.engine import NertsGame, game_winners, is_run
from gnome_env.nerts.testing import (
    build_game,
    joint,
    stack_deck,
    step_with_priority,
    step_with_priority_before,
)
from gnome_env.nerts.validate import check_invariants

C = parse_card
DEFAULT = NertsConfig()
T = action_table(DEFAULT)
NERTS, WASTE = 0, 1


def cards(text: str) -> list[int]:
    return parse_cards(text)


def src(w: int) -> int:
    """Source index of work pile w (N36)."""
    return 2 + w


def step(game: NertsGame, actions: dict[int, int] | None = None):
    """One step with the given seats' actions (others wait), validated afterwards."""
    result = game.step(joint(game, actions))
    check_invariants(game)
    return result


def legal(game: NertsGame, seat: int) -> set[int]:
    return set(game.legal_actions(seat))


# Four filler slots (owned by p3) so that a worked example's slot numbers come out right.
FILL = ["p3:AC", "p3:AD", "p3:AS", "p3:AH"]


# ====================================================================== worked examples
def test_n20_example_priority_blocks_second_play():
    cfg = NertsConfig(num_players=3)
    k = step_with_priority(cfg, (2, 0, 1), start=57)
    game = build_game(
        cfg,
        seats={0: {"nerts": "3C 5H"}, 2: {"waste": "9C 5H"}},
        foundations=["p1:AC", "p1:AD", "p1:AS", "p1:AH..4H"],
        steps=k,
    )
    t = action_table(cfg)
    assert t.to_slot(NERTS, 3) == 8 and t.to_slot(WASTE, 3) == 32
    assert 8 in legal(game, 0) and 32 in legal(game, 2)
    res = step(game, {0: 8, 2: 32})
    assert res.priority == (2, 0, 1)
    assert res.blocked == (True, False, False) and res.done == (False, True, True)
    assert game.slot_cards[3][-1] == C("5H") and game.slot_owners[3][-1] == 2
    assert game.slot_top[3] == 5
    assert game.nerts[0] == cards("3C 5H")  # p0's 5H stays on its Nerts pile
    assert game.waste[2] == cards("9C")
    assert res.progress and res.progress_by == (False, False, True)
    assert game.found_count == [0, 7, 1]


def test_n20_example_both_keep_stacks_equal_cards():
    cfg = NertsConfig(num_players=3, foundation_tie="both_keep")
    k = step_with_priority(cfg, (2, 0, 1), start=57)
    game = build_game(
        cfg,
        seats={0: {"nerts": "3C 5H"}, 1: {"waste": "6H"}, 2: {"waste": "9C 5H"}},
        foundations=["p1:AC", "p1:AD", "p1:AS", "p1:AH..4H"],
        steps=k,
    )
    res = step(game, {0: 8, 2: 32})
    assert res.blocked == (False, False, False)
    assert game.slot_declared[3] == cards("AH 2H 3H 4H 5H 5H")
    assert game.slot_owners[3] == [1, 1, 1, 1, 2, 0]
    assert game.slot_top[3] == 5  # the next card needed is 6H
    assert action_table(cfg).to_slot(WASTE, 3) in legal(game, 1)  # p1's 6H fits
    assert game.hand_scores()[0] == 1 - 2 * 1 and game.found_count[2] == 1


def test_n7_example_new_foundations_in_priority_order():
    k = step_with_priority_before(DEFAULT, 0, 1)
    game = build_game(
        DEFAULT,
        seats={0: {"work": ["5C", "9H", "AD", "KS"]}, 1: {"waste": "AS"}},
        foundations=["p2:AC", "p2:AD", "p2:AH", "p3:AC", "p3:AH"],
        steps=k,
    )
    assert T.new_foundation(WASTE, 3) == 156 and T.new_foundation(src(2), 1) == 166
    res = step(game, {0: 166, 1: 156})
    assert res.priority.index(0) < res.priority.index(1)
    assert game.slot_suit[5] == 1 and game.slot_owners[5] == [0]  # AD to slot 5
    assert game.slot_suit[6] == 3 and game.slot_owners[6] == [1]  # AS to slot 6
    assert game.slots_used == 7 and res.blocked == (False,) * 4


def test_n20_new_foundations_follow_priority_the_other_way_round():
    k = step_with_priority_before(DEFAULT, 1, 0)
    game = build_game(
        DEFAULT,
        seats={0: {"work": ["5C", "9H", "AD", "KS"]}, 1: {"waste": "AS"}},
        foundations=["p2:AC", "p2:AD", "p2:AH", "p3:AC", "p3:AH"],
        steps=k,
    )
    step(game, {0: 166, 1: 156})
    assert game.slot_suit[5] == 3 and game.slot_owners[5] == [1]
    assert game.slot_suit[6] == 1 and game.slot_owners[6] == [0]


def test_n22_example_call_ends_hand_after_others_resolve():
    game = build_game(
        DEFAULT,
        seats={
            0: {"waste": "2D 7C"},
            1: {"nerts": "QH", "work": ["KS", "2D", "3D", "4D"]},
        },
        foundations=[*FILL, "p2:AH", "p2:AC..6C"],
        steps=209,
    )
    assert CALL not in legal(game, 1)
    step(game, {1: T.to_work(NERTS, 0)})  # step 209: p1 plays its last Nerts card QH
    assert game.nerts[1] == [] and not game.hand_over
    assert T.to_slot(WASTE, 5) == 34
    assert CALL in legal(game, 1) and 34 in legal(game, 0)
    res = step(game, {1: 1, 0: 34})  # step 210
    assert res.step == 210 and res.called == (False, True, False, False)
    assert res.hand_over and res.end_reason == "nerts" and game.end_reason == "nerts"
    assert game.slot_cards[5][-1] == C("7C") and game.slot_owners[5][-1] == 0  # it counts
    assert game.hand_results[-1].scores[0] == 1 - 2 * len(game.nerts[0])
    assert game.hand_results[-1].callers == (1,)


def test_n22_example_no_call_with_one_nerts_card_left():
    game = build_game(DEFAULT, seats={1: {"nerts": "QH", "work": ["KS", "2D", "3D", "4D"]}})
    assert CALL not in legal(game, 1)
    step(game, {1: T.to_work(NERTS, 0)})
    assert CALL in legal(game, 1)


def test_n15_n16_example_turn_turn_recycle():
    game = build_game(DEFAULT, seats={0: {"stock": "4C 9D KS 2H 7C", "rest": "nerts"}})
    step(game, {0: TURN})
    assert game.waste[0] == cards("4C 9D KS")  # top KS
    assert game.stock_top_first(0) == cards("2H 7C")
    step(game, {0: TURN})  # only 2 cards left: both turned
    assert game.waste[0][-1] == C("7C") and game.stock[0] == []
    assert TURN not in legal(game, 0) and RECYCLE in legal(game, 0)
    step(game, {0: RECYCLE})
    assert game.stock_top_first(0) == cards("4C 9D KS 2H 7C") and game.waste[0] == []


def exhaustion_example() -> NertsGame:
    """Worked example N24-N27: two players, no progress since step 100; p0 has a stock of 8;
    p1 a stock of 1 and a waste of 3. Steps 101-103 turn and recycle to exhaustion."""
    game = build_game(
        NertsConfig(num_players=2),
        seats={
            0: {"stock": "2C 3C 4C 5C 6C 7C 8C 9C", "rest": "nerts"},
            1: {"stock": "KD", "waste": "2S 3S 4S", "rest": "nerts"},
        },
        steps=101,
    )
    assert game.cycle_size(0) == 8 and game.cycle_size(1) == 4
    r1 = step(game, {0: TURN, 1: TURN})
    assert game.seen == [3, 1] and not any(game.exhausted) and not r1.remedy
    r2 = step(game, {0: TURN, 1: RECYCLE})
    assert game.seen == [6, 1] and not r2.remedy
    r3 = step(game, {0: TURN, 1: TURN})
    assert r3.remedy and not r3.hand_over  # both exhausted at the end of step 103
    return game


def test_n24_n26_example_both_exhausted_gives_remedy():
    game = exhaustion_example()
    assert game.remedy_done and game.stall == 0 and game.seen == [0, 0]
    assert game.waste == [[], []]
    assert game.stock_top_first(0) == cards("3C 4C 5C 6C 7C 8C 9C 2C")
    assert game.stock_top_first(1) == cards("3S 4S KD 2S")


def test_n27_example_exhausted_again_ends_hand_blocked():
    game = exhaustion_example()
    step(game, {0: TURN, 1: TURN})
    step(game, {0: TURN, 1: TURN})  # p1 has turned its 4 cards: exhausted
    assert game.exhausted == [False, True]
    res = step(game, {0: TURN})  # p0 turns its last 2: both exhausted, no progress
    assert res.hand_over and res.end_reason == "blocked" and not res.remedy


def test_n27_example_sixty_quiet_steps_after_remedy_end_hand_blocked():
    game = exhaustion_example()
    for _ in range(59):
        assert not step(game).hand_over
    assert game.stall == 59
    res = step(game)
    assert res.hand_over and res.end_reason == "blocked"


def test_n26_example_remedy_reforms_and_shifts():
    game = build_game(
        NertsConfig(num_players=2),
        seats={
            0: {"waste": "4C 9D KS", "stock": "2H 7C", "rest": "nerts"},
            1: {"stock": "5D", "rest": "nerts"},
        },
        seen=[5, 1],
    )
    assert game.exhausted == [True, True]
    res = step(game)  # both wait, still exhausted: the table is stuck
    assert res.remedy and not res.hand_over
    assert game.stock_top_first(0) == cards("9D KS 2H 7C 4C") and game.waste[0] == []
    assert game.stock_top_first(1) == cards("5D")  # fewer than 2 cards: the shift is a no-op
    step(game, {0: TURN})
    assert game.waste[0][-1] == C("2H")
    step(game, {0: TURN})
    assert game.waste[0][-1] == C("4C")


def test_n11_example_move_three_cards_onto_pile():
    game = build_game(DEFAULT, seats={0: {"work": ["9S 8H 7C 6D", "5C", "TD 9C", "KH"]}})
    assert T.work_move(0, 2, 3) == 209
    assert 209 in legal(game, 0)
    assert T.work_move(0, 2, 2) not in legal(game, 0)  # 7C 6D onto 9C is no run
    step(game, {0: 209})
    assert game.work[0][0] == cards("9S")
    assert game.work[0][2] == cards("TD 9C 8H 7C 6D")


def test_n12_example_slide_king_under_queen():
    game = build_game(DEFAULT, seats={0: {"work": ["5C", "QS JH", "8D", ""], "waste": "KH"}})
    assert T.slide(WASTE, 1) == 394 and 394 in legal(game, 0)
    res = step(game, {0: 394})
    assert game.work[0][1] == cards("KH QS JH") and game.work[0][3] == []
    assert res.progress
    full = build_game(DEFAULT, seats={0: {"work": ["5C", "QS JH", "8D", "2S"], "waste": "KH"}})
    assert 394 not in legal(full, 0)  # no empty pile: no slide


def test_n30_example_hand_scores():
    cfg = NertsConfig(num_players=3)
    game = build_game(
        cfg,
        seats={
            0: {"nerts": ""},
            1: {"nerts": "2C 3C 4C 5C"},
            2: {"nerts": "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC"},
        },
        foundations=["p0:AC..KC", "p0:AD..TD", "p1:AH..KH", "p1:AS..4S", "p2:AS..6S"],
    )
    assert game.found_count == [23, 17, 6]
    res = step(game, {0: CALL})
    assert res.hand_scores == (23, 9, -16) and game.hand_results[-1].scores == (23, 9, -16)
    assert game.totals == [23, 9, -16]


def test_n31_example_tie_on_total_won_on_last_hand():
    cfg = NertsConfig(num_players=3)
    game = build_game(
        cfg,
        seats={0: {"nerts": ""}, 1: {"nerts": ""}, 2: {"nerts": ""}},
        foundations=["p0:AC..QC", "p1:AD..9D", "p2:AH..3H"],
        past_hands=[(92, 95, 60), *[(0, 0, 0)] * 6],
    )
    assert game.hand == 7 and game.totals == [92, 95, 60]
    res = step(game, {0: CALL})
    assert res.hand_scores == (12, 9, 3) and game.totals == [104, 104, 63]
    assert res.game_over and game.game_over
    assert game.winners() == (0,)


def test_n32_n33_example_joker_in_work_pile_is_red_eight():
    cfg = NertsConfig(jokers=1)
    assert cfg.num_slots == 30 and cfg.n_actions == 433
    t = action_table(cfg)
    game = build_game(
        cfg,
        seats={0: {"work": ["9S JK", "4D", "5D", "6D"], "waste": "7C"}},
        foundations=["p1:AH..7H", "p1:AC..7C"],
    )
    assert t.to_slot(src(0), 0) in legal(game, 0)  # as 8H onto the 7H slot
    assert t.to_slot(src(0), 1) not in legal(game, 0)  # not as 8C onto the 7C slot
    assert t.to_work(WASTE, 0) in legal(game, 0)  # 7C on the red 8
    red = build_game(
        cfg, seats={0: {"work": ["9S JK", "4D", "5D", "6D"], "waste": "7H"}}, foundations=[]
    )
    assert t.to_work(WASTE, 0) not in legal(red, 0)  # 7H on a red 8: no
    step(game, {0: t.to_slot(src(0), 0)})
    assert game.slot_cards[0][-1] == 52 and game.slot_declared[0][-1] == C("8H")
    assert game.slot_top[0] == 8 and game.slot_owners[0][-1] == 0


# ====================================================================== N4-N5: deal
def test_n4_each_seats_deck_is_the_keyed_shuffle():
    game = NertsGame(NertsConfig(num_players=3, jokers=1), seed=11)
    for seat in range(3):
        deck = rng.permutation(53, rng.NERTS_DEAL, 11, 0, seat).tolist()
        assert game.nerts[seat] == deck[:13]
        assert [p[0] for p in game.work[seat]] == deck[13:17]
        assert game.stock_top_first(seat) == deck[17:]


def test_n4_priority_drawn_every_step_whatever_the_actions():
    a = NertsGame(DEFAULT, seed=5)
    b = NertsGame(DEFAULT, seed=5)
    for k in range(6):
        ra = a.step([WAIT] * 4)
        rb = b.step([TURN] * 4)
        want = tuple(rng.permutation(4, rng.NERTS_PRIORITY, 5, 0, k).tolist())
        assert ra.priority == rb.priority == want
        assert ra.step == k


def test_n4_stacking_one_seat_leaves_the_others_shuffled():
    plain = NertsGame(DEFAULT, seed=3)
    deck = stack_deck(DEFAULT)
    stacked = NertsGame(DEFAULT, seed=3, stacked_decks={0: {1: deck}})
    assert stacked.nerts[0] == plain.nerts[0] and stacked.nerts[2] == plain.nerts[2]
    assert stacked.nerts[1] != plain.nerts[1]


def test_n5_deal_from_a_stacked_deck():
    nerts = "2C 3C 5C 6C 7C 8C 9C TC JC QC KC AD 5H"
    deck = stack_deck(DEFAULT, nerts=nerts, work=["9S", "TD", None, "KH"], stock="4C 9D KS")
    game = NertsGame(DEFAULT, seed=0, stacked_decks={0: {0: deck}})
    assert game.nerts[0] == cards(nerts) and game.nerts[0][-1] == C("5H")
    assert game.nerts_face_up[0] == [False] * 12 + [True]
    assert game.work[0][0] == cards("9S") and game.work[0][1] == cards("TD")
    assert game.work[0][3] == cards("KH") and len(game.work[0][2]) == 1
    assert game.stock_top_first(0)[:3] == cards("4C 9D KS") and len(game.stock[0]) == 35
    assert game.waste[0] == [] and game.slots_used == 0
    assert game.slot_state(0) == "unused"


def test_n5_stock_size_follows_variants():
    cfg = NertsConfig(num_players=2, jokers=2, nerts_size=7, work_piles=5)
    game = NertsGame(cfg, seed=1)
    assert [len(s) for s in game.stock] == [54 - 7 - 5] * 2
    assert all(len(w) == 5 for w in game.work)


# ====================================================================== N6-N14: building
def test_n6_actions_touch_only_own_layout_and_foundation_cards_stay():
    game = build_game(DEFAULT, seats={0: {"nerts": "AS", "work": ["9S 8H", "7C", "", "4D"]}})
    others = [(game.nerts[s], game.work[s], game.stock[s]) for s in (1, 2, 3)]
    others = [(list(n), [list(p) for p in w], list(st)) for n, w, st in others]
    step(game, {0: T.new_foundation(NERTS, 3)})
    step(game, {0: T.work_move(1, 0, 1)})
    assert [(game.nerts[s], game.work[s], game.stock[s]) for s in (1, 2, 3)] == others
    for _ in range(3):
        step(game, {s: TURN for s in range(4)})
    assert game.slot_cards[0] == cards("AS") and game.slot_owners[0] == [0]
    kinds = {T.decode(a).kind for a in range(T.n)}
    assert kinds == set(Kind)  # no kind moves cards off a foundation or onto another layout


def test_n7_slots_fill_in_order_and_are_never_reused():
    game = build_game(
        DEFAULT, seats={0: {"nerts": "AH", "waste": "AC"}}, foundations=["p1:AS..KS", "p1:AD"]
    )
    assert game.slot_state(0) == "complete" and game.slot_state(1) == "open"
    for f in (0, 2):  # complete and unused slots take nothing
        assert all(T.to_slot(s, f) not in legal(game, 0) for s in range(6))
    step(game, {0: T.new_foundation(NERTS, 2)})
    assert game.slot_suit[2] == 2 and game.slot_state(0) == "complete"
    step(game, {0: T.new_foundation(WASTE, 0)})
    assert game.slot_suit[3] == 0 and game.slots_used == 4
    assert DEFAULT.num_slots == 24 and DEFAULT.max_slots_used == 16


def test_n8_anyone_builds_on_any_slot_and_king_completes():
    game = build_game(DEFAULT, seats={2: {"waste": "KS"}}, foundations=["p0:AS..QS"])
    assert T.to_slot(WASTE, 0) in legal(game, 2)
    res = step(game, {2: T.to_slot(WASTE, 0)})
    assert res.progress and game.slot_owners[0][-1] == 2
    assert game.slot_top[0] == 13 and game.slot_complete[0]
    assert game.slot_state(0) == "complete"


def test_n8_card_fits_only_rank_plus_one_of_the_suit():
    game = build_game(DEFAULT, seats={0: {"nerts": "5H", "waste": "5D"}}, foundations=["p1:AH..4H"])
    assert T.to_slot(NERTS, 0) in legal(game, 0)
    assert T.to_slot(WASTE, 0) not in legal(game, 0)
    other = build_game(DEFAULT, seats={0: {"nerts": "6H"}}, foundations=["p1:AH..4H"])
    assert T.to_slot(NERTS, 0) not in legal(other, 0)


def test_n9_runs_alternate_colour_and_descend():
    assert is_run(cards("9S 8H 7C 6D")) and is_run([]) and is_run(cards("KD"))
    assert not is_run(cards("9S 8S")) and not is_run(cards("9S 7H")) and not is_run(cards("8H 9S"))
    assert is_run([52, 52]) and is_run(cards("9S JK 7C"))
    assert not is_run(cards("JK KS")) and not is_run([52] * 14)


def test_n10_empty_pile_takes_anything_else_one_below_opposite_colour():
    game = build_game(
        DEFAULT, seats={0: {"nerts": "QD", "waste": "8H", "work": ["9S", "", "9H", "TC"]}}
    )
    lg = legal(game, 0)
    assert T.to_work(NERTS, 1) in lg  # any card on an empty pile, not only a King
    assert T.to_work(WASTE, 0) in lg  # 8H on 9S
    assert T.to_work(WASTE, 2) not in lg  # 8H on 9H: same colour
    assert T.to_work(NERTS, 3) not in lg  # QD on TC: not one below
    step(game, {0: T.to_work(WASTE, 0)})
    assert game.work[0][0] == cards("9S 8H")
    lg2 = build_game(DEFAULT, seats={0: {"waste": "8D", "work": ["9S", "2C", "3C", "4C"]}})
    assert T.to_work(WASTE, 0) in legal(lg2, 0)


def test_n11_only_tops_move_and_any_top_part_of_a_pile():
    game = build_game(
        DEFAULT,
        seats={0: {"nerts": "AS 5D", "waste": "AC 9H", "work": ["2C AH", "9S 8H 7C", "TD", "8D"]}},
        foundations=["p1:AC"],
    )
    lg = legal(game, 0)
    assert T.new_foundation(src(0), 2) in lg  # AH, the top of work pile 0
    assert T.to_slot(src(0), 0) not in lg  # 2C lies under AH
    assert T.new_foundation(NERTS, 3) not in lg and T.new_foundation(WASTE, 0) not in lg
    assert T.work_move(1, 2, 3) in lg  # 9S 8H 7C onto TD
    assert T.work_move(1, 3, 1) in lg  # 7C onto 8D
    assert T.work_move(1, 2, 2) not in lg and T.work_move(1, 3, 2) not in lg


def test_n11_whole_pile_may_move_to_an_empty_pile():
    game = build_game(DEFAULT, seats={0: {"work": ["9S 8H", "", "4C", "5C"]}})
    lg = legal(game, 0)
    assert T.work_move(0, 1, 2) in lg and T.work_move(0, 1, 1) in lg
    assert T.work_move(0, 0, 1) not in lg and T.work_move(0, 1, 3) not in lg
    step(game, {0: T.work_move(0, 1, 2)})
    assert game.work[0][0] == [] and game.work[0][1] == cards("9S 8H")


def test_n12_slide_under_from_nerts_needs_variant_and_empty_pile():
    seats = {0: {"nerts": "TS", "work": ["9H 8C", "", "4C", "5C"]}}
    game = build_game(DEFAULT, seats=seats)
    assert T.slide(NERTS, 0) in legal(game, 0)
    off = build_game(NertsConfig(slide_under=False), seats=seats)
    assert T.slide(NERTS, 0) not in legal(off, 0)
    assert T.slide(NERTS, 1) not in legal(game, 0)  # nothing to slide under an empty pile
    step(game, {0: T.slide(NERTS, 0)})
    assert game.work[0][0] == cards("TS 9H 8C") and game.work[0][1] == []


def test_n13_next_nerts_card_turns_up_automatically():
    game = build_game(
        DEFAULT, seats={0: {"nerts": "3C 4C 9D AS", "work": ["TS", "2D", "3D", "4D"]}}
    )
    assert game.nerts_face_up[0] == [False, False, False, True]
    step(game, {0: T.new_foundation(NERTS, 3)})
    assert game.nerts[0] == cards("3C 4C 9D") and game.nerts_face_up[0] == [False, False, True]
    step(game, {0: T.to_work(NERTS, 0)})
    assert game.nerts[0] == cards("3C 4C") and game.nerts_face_up[0] == [False, True]


def test_n14_nothing_is_forced():
    game = build_game(DEFAULT, seats={0: {"nerts": "AS", "work": ["", "2D", "3D", "4D"]}})
    assert WAIT in legal(game, 0) and T.new_foundation(NERTS, 3) in legal(game, 0)
    res = step(game)
    assert not res.progress and game.nerts[0] == cards("AS") and game.work[0][0] == []


# ====================================================================== N15-N17: stock
@pytest.mark.parametrize(("size", "waste"), [(1, "4C"), (2, "4C 9D"), (3, "4C 9D KS")])
def test_n15_turn_moves_turn_size_cards_top_becomes_last(size, waste):
    cfg = NertsConfig(turn_size=size)
    game = build_game(cfg, seats={0: {"stock": "4C 9D KS 2H", "rest": "nerts"}})
    step(game, {0: TURN})
    assert game.waste[0] == cards(waste) and game.seen[0] == size
    assert len(game.stock[0]) == 4 - size


def test_n15_turn_legal_iff_stock_not_empty_and_only_waste_top_plays():
    game = build_game(DEFAULT, seats={0: {"stock": "", "waste": "AS 7D", "rest": "nerts"}})
    assert TURN not in legal(game, 0)
    assert T.new_foundation(WASTE, 3) not in legal(game, 0)  # AS is under the top
    assert TURN in legal(build_game(DEFAULT), 0)


def test_n16_recycle_legal_only_on_empty_stock_and_passes_unlimited():
    game = build_game(DEFAULT, seats={0: {"stock": "4C 9D KS 2H 7C", "rest": "nerts"}})
    assert RECYCLE not in legal(game, 0)
    for _ in range(3):  # three full passes, same order each time
        step(game, {0: TURN})
        step(game, {0: TURN})
        step(game, {0: RECYCLE})
        assert game.stock_top_first(0) == cards("4C 9D KS 2H 7C")
    empty = build_game(DEFAULT, seats={0: {"stock": "", "waste": "", "rest": "nerts"}})
    assert RECYCLE not in legal(empty, 0) and TURN not in legal(empty, 0)


def test_n17_shift_only_when_exhausted_moves_top_to_bottom_and_resets():
    cfg = NertsConfig(num_players=2)
    seats = {0: {"stock": "4C 9D KS", "rest": "nerts"}}
    fresh = build_game(cfg, seats=seats)
    assert SHIFT not in legal(fresh, 0)
    game = build_game(cfg, seats=seats, seen=[3, 0])
    assert game.exhausted[0] and SHIFT in legal(game, 0)
    step(game, {0: SHIFT})
    assert game.stock_top_first(0) == cards("9D KS 4C")
    assert game.seen[0] == 0 and not game.exhausted[0]
    short = build_game(cfg, seats={0: {"stock": "4C", "waste": "9D", "rest": "nerts"}}, seen=[2, 0])
    assert short.exhausted[0] and SHIFT not in legal(short, 0)


# ====================================================================== N18-N21: steps
def test_n18_all_actions_judged_against_start_state():
    game = build_game(
        NertsConfig(num_players=2),
        seats={0: {"nerts": "AH"}, 1: {"nerts": "2H"}},
    )
    # p1's 2H has no slot yet: p0's ace arriving in the same step does not make it legal
    assert T.to_slot(NERTS, 0) not in legal(game, 1)
    with pytest.raises(ValueError, match="seat 1"):
        game.step([T.new_foundation(NERTS, 2), T.to_slot(NERTS, 0)])
    step(game, {0: T.new_foundation(NERTS, 2)})
    assert T.to_slot(NERTS, 0) in legal(game, 1)


def test_n18_illegal_actions_raise_and_change_nothing():
    game = build_game(DEFAULT, seats={0: {"nerts": "5H"}}, foundations=["p1:AH..3H"])
    before = game.digest()
    bad = T.to_slot(NERTS, 0)
    with pytest.raises(ValueError) as err:
        game.step([bad, 0, 0, 0])
    text = str(err.value)
    assert "seat 0" in text and f"action {bad}" in text and "nerts->slot0" in text
    assert "needs 4H" in text
    for actions in (
        [0, 0, 0],
        [0, 0, 0, 0, 0],
        [0, 0, 0, True],
        [0, 0, 0, "2"],
        [0, 0, 0, 397],
        [0, 0, 0, -1],
        "0000",
        None,
        [0, 0, 0, 1.0],
    ):
        with pytest.raises(ValueError):
            game.step(actions)  # type: ignore[arg-type]
    assert game.digest() == before and game.steps == 0


def test_n19_every_action_kind_has_ids():
    kinds = [T.decode(a).kind for a in range(T.n)]
    assert kinds[:5] == [Kind.WAIT, Kind.CALL, Kind.TURN, Kind.RECYCLE, Kind.SHIFT]
    counts = {k: kinds.count(k) for k in Kind}
    assert counts[Kind.TO_SLOT] == 6 * 24 and counts[Kind.NEW_FOUNDATION] == 24
    assert counts[Kind.TO_WORK] == 8 and counts[Kind.WORK_MOVE] == 208 and counts[Kind.SLIDE] == 8


def test_n20_three_way_tie_first_in_priority_wins():
    cfg = NertsConfig(num_players=3)
    k = step_with_priority(cfg, (1, 2, 0))
    game = build_game(
        cfg,
        seats={0: {"nerts": "5H"}, 1: {"waste": "5H"}, 2: {"work": ["5H", "2C", "3C", "4C"]}},
        foundations=["p0:AH..4H"],
        steps=k,
    )
    res = step(game, {0: T.to_slot(NERTS, 0), 1: T.to_slot(WASTE, 0), 2: T.to_slot(src(0), 0)})
    assert res.blocked == (True, False, True) and game.slot_owners[0][-1] == 1
    assert game.nerts[0][-1] == C("5H") and game.work[2][0] == cards("5H")


def test_n20_other_actions_apply_beside_a_conflict():
    cfg = NertsConfig(num_players=3)
    k = step_with_priority(cfg, (0, 2, 1))
    game = build_game(
        cfg,
        seats={0: {"nerts": "5H"}, 1: {"waste": "5H"}, 2: {"stock": "KC", "rest": "nerts"}},
        foundations=["p0:AH..4H"],
        steps=k,
    )
    res = step(game, {0: T.to_slot(NERTS, 0), 1: T.to_slot(WASTE, 0), 2: TURN})
    assert res.blocked == (False, True, False) and game.waste[2] == cards("KC")


def test_n20_both_keep_kings_complete_the_slot():
    cfg = NertsConfig(num_players=2, foundation_tie="both_keep")
    game = build_game(
        cfg, seats={0: {"nerts": "KS"}, 1: {"waste": "KS"}}, foundations=["p1:AS..QS"]
    )
    step(game, {0: T.to_slot(NERTS, 0), 1: T.to_slot(WASTE, 0)})
    assert game.slot_top[0] == 13 and game.slot_complete[0]
    assert game.slot_declared[0][-2:] == cards("KS KS")


def test_n21_blocked_play_leaves_card_in_place_and_counts_as_wait():
    cfg = NertsConfig(num_players=2)
    k = step_with_priority(cfg, (1, 0))
    game = build_game(
        cfg,
        seats={0: {"nerts": "5H"}, 1: {"waste": "5H"}},
        foundations=["p1:AH..4H"],
        steps=k,
        seen=[4, 0],
    )
    res = step(game, {0: T.to_slot(NERTS, 0), 1: T.to_slot(WASTE, 0)})
    assert res.blocked == (True, False) and res.progress_by == (False, True)
    assert game.nerts[0] == cards("5H") and game.steps == k + 1


# ====================================================================== N22-N29: ending
def test_n22_several_calls_in_one_step_and_no_bonus():
    cfg = NertsConfig(num_players=3)
    game = build_game(cfg, seats={0: {"nerts": ""}, 1: {"nerts": ""}}, foundations=["p0:AC..3C"])
    res = step(game, {0: CALL, 1: CALL})
    assert res.end_reason == "nerts" and res.called == (True, True, False)
    assert game.hand_results[-1].scores[:2] == (3, 0)


def test_n22_caller_may_play_on_instead_of_calling():
    game = build_game(DEFAULT, seats={0: {"nerts": "", "waste": "AS"}})
    res = step(game, {0: T.new_foundation(WASTE, 3)})
    assert not res.hand_over and CALL in legal(game, 0)


def test_n22_auto_call_ends_hand_when_a_nerts_pile_empties():
    cfg = NertsConfig(auto_call=True)
    game = build_game(
        cfg, seats={0: {"nerts": "AS", "waste": "AH"}, 2: {"stock": "KC", "rest": "nerts"}}
    )
    assert CALL not in legal(game, 0)
    res = step(game, {0: T.new_foundation(NERTS, 3), 2: TURN})
    assert res.hand_over and res.end_reason == "nerts" and res.called == (False,) * 4
    assert game.waste[2] == cards("KC")  # the others' actions resolved


@pytest.mark.parametrize(
    ("action", "progress"),
    [
        (T.to_work(WASTE, 0), True),  # out of the waste
        (T.to_work(NERTS, 2), True),  # out of the Nerts pile
        (T.to_slot(src(3), 0), True),  # onto a foundation
        (T.work_move(1, 2, 1), False),
        (TURN, False),
        (WAIT, False),
    ],
)
def test_n23_progress_events(action, progress):
    seats = {0: {"nerts": "5S", "waste": "8H", "work": ["9S", "TD 9C", "", "KH"], "stock": "2D"}}
    game = build_game(DEFAULT, seats=seats, foundations=["p1:AH..QH"])
    assert action in legal(game, 0)
    res = step(game, {0: action})
    assert res.progress is progress and res.progress_by[0] is progress


def test_n23_slide_from_waste_is_progress():
    game = build_game(DEFAULT, seats={0: {"waste": "JC", "work": ["TD 9C", "", "3D", "4D"]}})
    assert step(game, {0: T.slide(WASTE, 0)}).progress


def test_n24_seen_counts_turned_cards_and_resets():
    cfg = NertsConfig(num_players=2)
    game = build_game(
        cfg,
        seats={
            0: {"stock": "2C 3C 4C 5C 6C 7C", "work": ["9S 8H", "", "4D", "5D"], "rest": "nerts"},
            1: {"waste": "8H", "work": ["9S", "2D", "3D", "4D"], "stock": "KC 2C"},
        },
    )
    step(game, {0: TURN, 1: TURN})
    assert game.seen == [3, 3]
    step(game, {0: T.work_move(0, 1, 1)})  # own move between work piles resets own count
    assert game.seen == [0, 3]
    step(game, {0: TURN})
    assert game.seen == [3, 3]
    step(game, {0: RECYCLE})  # recycling turns nothing
    assert game.seen == [3, 3]
    step(game, {0: TURN, 1: TURN})
    assert game.seen == [6, 6]
    game2 = build_game(
        cfg,
        seats={
            0: {"stock": "2C 3C 4C 5C", "rest": "nerts"},
            1: {"waste": "8H", "work": ["9S", "2D", "3D", "4D"]},
        },
    )
    step(game2, {0: TURN})
    assert game2.seen == [3, 0]
    step(game2, {0: TURN, 1: T.to_work(WASTE, 0)})  # ND4: progress by anyone wins
    assert game2.seen == [0, 0]


def test_n24_empty_cycle_is_exhausted_unless_work_piles_just_moved():
    cfg = NertsConfig(num_players=2)
    game = build_game(
        cfg, seats={0: {"stock": "", "work": ["9S 8H", "", "4D", "5D"], "rest": "nerts"}}
    )
    assert game.exhausted[0]
    step(game, {0: T.work_move(0, 1, 1)})
    assert not game.exhausted[0]
    step(game)
    assert game.exhausted[0]


def test_n25_stall_steps_quiet_steps_make_the_table_stuck():
    cfg = NertsConfig(num_players=2, stall_steps=5)
    game = build_game(cfg)
    for i in range(4):
        res = step(game)
        assert not res.remedy and game.stall == i + 1
    res = step(game)
    assert res.remedy and game.stall == 0 and game.remedy_done


def test_n25_all_exhausted_makes_the_table_stuck():
    cfg = NertsConfig(num_players=2)
    game = build_game(
        cfg,
        seats={0: {"stock": "4C", "rest": "nerts"}, 1: {"stock": "", "rest": "nerts"}},
    )
    assert game.exhausted == [False, True]
    res = step(game, {0: TURN})
    assert res.remedy and game.stock_top_first(0) == cards("4C")


def test_n27_progress_rearms_the_remedy():
    cfg = NertsConfig(num_players=2, stall_steps=3)
    game = build_game(cfg, seats={0: {"nerts": "AS"}}, stall=2)
    assert step(game).remedy
    res = step(game, {0: T.new_foundation(NERTS, 3)})
    assert res.progress and not game.remedy_done
    for _ in range(2):
        step(game)
    res = step(game)
    assert res.remedy and not res.hand_over
    for _ in range(2):
        step(game)
    res = step(game)
    assert res.hand_over and res.end_reason == "blocked"


def test_n28_step_cap_ends_hand_with_reason_cap():
    cfg = NertsConfig(num_players=2, max_steps_per_hand=7)
    game = NertsGame(cfg, seed=2)
    for _ in range(6):
        assert not step(game, {0: TURN, 1: TURN}).hand_over
    res = step(game, {0: TURN, 1: TURN})
    assert res.hand_over and res.end_reason == "cap" and game.steps == 7
    assert res.hand_scores == (-26, -26) and game.totals == [-26, -26]
    assert game.legal_actions(0) == []


def test_n29_call_beats_blocked_and_cap():
    cfg = NertsConfig(num_players=2, max_steps_per_hand=5)
    game = build_game(cfg, seats={0: {"nerts": ""}}, steps=4, stall=59, remedy_done=True)
    res = step(game, {0: CALL})
    assert res.end_reason == "nerts"


def test_n29_blocked_beats_cap_and_remedy_precedes_cap():
    cfg = NertsConfig(num_players=2, max_steps_per_hand=5)
    blocked = build_game(cfg, steps=4, stall=59, remedy_done=True)
    assert step(blocked).end_reason == "blocked"
    remedied = build_game(cfg, steps=4, stall=59)
    res = step(remedied)
    assert res.remedy and res.end_reason == "cap"


def test_n29_tops_turn_up_and_slots_complete_before_the_checks():
    cfg = NertsConfig(num_players=2, auto_call=True)
    game = build_game(cfg, seats={0: {"nerts": "KS"}}, foundations=["p1:AS..QS"])
    res = step(game, {0: T.to_slot(NERTS, 0)})
    assert res.end_reason == "nerts" and game.slot_complete[0]


# ====================================================================== N30-N31: scoring
def test_n30_score_is_foundation_cards_minus_twice_nerts():
    game = build_game(
        NertsConfig(num_players=2),
        seats={0: {"nerts": "5C 6C"}, 1: {"nerts": "5C"}},
        foundations=["p0:AH..3H p1:4H", "p1:AS"],
    )
    assert game.hand_scores() == [3 - 4, 2 - 2]
    fresh = NertsGame(DEFAULT, seed=0)
    assert fresh.hand_scores() == [-26] * 4


def test_n31_hands_repeat_with_fresh_deals_and_totals_carry():
    cfg = NertsConfig(num_players=2, max_steps_per_hand=2, max_hands=3)
    game = NertsGame(cfg, seed=9)
    first = [list(n) for n in game.nerts]
    step(game)
    step(game)
    assert game.hand_over and game.totals == [-26, -26] and not game.game_over
    with pytest.raises(ValueError, match="next_hand"):
        game.step([0, 0])
    game.next_hand()
    assert game.hand == 1 and game.steps == 0 and game.nerts != first
    assert game.nerts[0] == rng.permutation(52, rng.NERTS_DEAL, 9, 1, 0).tolist()[:13]
    for _ in range(4):
        step(game)
        if game.hand_over and not game.game_over:
            game.next_hand()
    assert game.game_over and len(game.hand_results) == 3 and game.totals == [-78, -78]
    assert game.winners() == (0, 1)  # shared win
    with pytest.raises(ValueError, match="game is over"):
        game.next_hand()


def test_n31_next_hand_only_after_hand_end_and_winners_only_at_game_end():
    game = NertsGame(DEFAULT, seed=0)
    with pytest.raises(ValueError, match="still being played"):
        game.next_hand()
    with pytest.raises(ValueError, match="game is over"):
        game.winners()


def test_n31_winner_rules():
    assert game_winners([104, 104, 63], [12, 9, 5]) == (0,)
    assert game_winners([104, 104, 63], [9, 9, 5]) == (0, 1)
    assert game_winners([50, 104, 104], [30, 1, 2]) == (2,)
    assert game_winners([-10, -20], [0, 0]) == (0,)


# ====================================================================== N32-N33: jokers
def test_n32_pile_of_jokers_alone_is_free_up_to_13():
    cfg = NertsConfig(jokers=2)
    t = action_table(cfg)

    def position(waste: str) -> NertsGame:
        return build_game(cfg, seats={0: {"work": ["JK JK", "", "KS", "5C"], "waste": waste}})

    assert t.to_work(WASTE, 0) in legal(position("JD"), 0)  # jokers as K, Q under a J
    assert t.to_work(WASTE, 0) not in legal(position("QD"), 0)  # would need a rank 14
    assert t.slide(WASTE, 0) in legal(position("QD"), 0)  # Q under jokers as J, T
    assert t.slide(WASTE, 0) not in legal(position("2D"), 0)  # would need a rank 0
    assert t.work_move(0, 1, 2) in legal(position("2D"), 0)
    assert is_run([52] * 13) and not is_run([52] * 14)


def test_n32_joker_fixed_by_natural_and_free_when_moved_alone():
    cfg = NertsConfig(jokers=1)
    t = action_table(cfg)
    game = build_game(cfg, seats={0: {"work": ["9S JK", "4C", "", "QD"]}})
    lg = legal(game, 0)
    assert t.work_move(0, 1, 1) in lg  # ND10: the joker alone moves on as a red 3
    assert t.work_move(0, 3, 2) not in lg  # 9S JK onto QD: 9 under Q is no run
    assert t.work_move(0, 2, 2) in lg


def test_n32_natural_onto_joker_must_fit_its_fixed_rank():
    cfg = NertsConfig(jokers=1)
    t = action_table(cfg)
    game = build_game(cfg, seats={0: {"work": ["JK", "KS", "8C", "5D"], "waste": "QH"}})
    lg = legal(game, 0)
    assert t.to_work(WASTE, 0) in lg  # QH on a lone joker (a black K)
    assert t.work_move(1, 0, 1) not in lg  # KS on a joker would make it rank 14


def test_n33_joker_from_waste_declares_any_needed_card():
    cfg = NertsConfig(jokers=1)
    t = action_table(cfg)
    game = build_game(cfg, seats={0: {"waste": "JK"}}, foundations=["p1:AH..4H", "p1:AC..QC"])
    lg = legal(game, 0)
    assert t.to_slot(WASTE, 0) in lg and t.to_slot(WASTE, 1) in lg
    assert all(t.new_foundation(WASTE, u) in lg for u in range(4))
    step(game, {0: t.new_foundation(WASTE, 1)})
    assert game.slot_suit[2] == 1 and game.slot_declared[2] == cards("AD")
    assert game.slot_cards[2] == [52] and game.found_count[0] == 1


def test_n33_fixed_joker_declaration_must_agree():
    cfg = NertsConfig(jokers=1)
    t = action_table(cfg)
    game = build_game(cfg, seats={0: {"work": ["2S JK", "KS", "8C", "5D"]}})
    lg = legal(game, 0)
    assert t.new_foundation(src(0), 1) in lg and t.new_foundation(src(0), 2) in lg  # red ace
    assert t.new_foundation(src(0), 0) not in lg and t.new_foundation(src(0), 3) not in lg


def test_n33_joker_under_an_ace_cannot_go_out():
    cfg = NertsConfig(jokers=2)
    t = action_table(cfg)
    game = build_game(
        cfg, seats={0: {"work": ["JK JK", "KS", "8C", "5D"]}}, foundations=["p1:AC..QC"]
    )
    lg = legal(game, 0)
    assert t.to_slot(src(0), 0) not in lg  # ND11: the top of two jokers is at most a Q
    assert all(t.new_foundation(src(0), u) in lg for u in range(4))


# ====================================================================== N36: action ids
def test_n36_action_table_formula_and_offsets():
    assert (T.b_new, T.b_work, T.b_move, T.b_slide, T.n) == (149, 173, 181, 389, 397)
    assert T.to_slot(NERTS, 3) == 8 and T.to_slot(WASTE, 3) == 32 and T.to_slot(WASTE, 5) == 34
    assert T.new_foundation(WASTE, 3) == 156 and T.new_foundation(src(2), 1) == 166
    assert T.work_move(0, 2, 3) == 209 and T.slide(WASTE, 1) == 394
    for a in range(T.n):
        assert T.id_of(T.name(a)) == a
    assert T.name(8) == "nerts->slot3" and T.name(209) == "work0x3->work2"
    assert T.name(166) == "work2->new:D" and T.name(394) == "waste->under1"
    one = action_table(NertsConfig(jokers=1))
    assert one.n == 433 and one.b_new == 5 + 6 * 30


def test_n36_natural_ace_has_exactly_one_new_foundation_suit():
    game = build_game(DEFAULT, seats={0: {"nerts": "AH"}})
    news = [
        a
        for a in legal(game, 0)
        if T.decode(a).kind == Kind.NEW_FOUNDATION and T.decode(a).source == NERTS
    ]
    assert news == [T.new_foundation(NERTS, 2)]


def test_n36_ids_with_v_equal_w_are_never_legal():
    game = build_game(DEFAULT, seats={0: {"work": ["9S 8H", "", "4C", "5C"]}})
    for w in range(4):
        for c in range(1, 14):
            assert T.work_move(w, w, c) not in legal(game, 0)


def test_n3_n36_one_table_for_every_player_count():
    for players in range(2, 7):
        cfg = NertsConfig(num_players=players)
        assert cfg.n_actions == 397 and cfg.num_slots == 24
        game = NertsGame(cfg, seed=players)
        assert game.legal_masks().shape == (players, 397)
