"""Tests of the decisions gnome_env took where RULES.md is silent (docs/rules.md, D1-D9).

Each test cites the decision and the rule it refines. Positions come from the stacked-deck
test hook; expected values are worked out by hand from the rules and the decision text.
Each test runs on both engines (the ``engine`` fixture of ``tests/conftest.py``: ``[game]``,
``[kernel]``).
"""

from __future__ import annotations

from collections import Counter

from gnome_env.gnoming import Game, Phase, RulesConfig, check_invariants
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import MULLIGAN
from gnome_env.gnoming.testing import stack_deck

NO_MULLIGAN = "2 3 4 / 5 6 2 / 3 4 5"
TWO_MULLIGANS = "M M 4 / 5 6 2 / 3 4 5"


def flips_at_0_and_1(game: Game) -> None:
    while game.phase == Phase.OPENING_FLIP:
        game.step(A.FLIP + 9 - game.down_count[game.current_seat])


def d3_game(engine, layouts: list[str]) -> Game:
    """Seat 0 draws the only draw-pile card, a hazard; both piles then show a lone mulligan."""
    top = ["M", "M", "H"]  # R4: pile A = M, pile B = M, draw pile = [H]
    # The deck is exactly these 30 cards (the minimum for 3 players, R1).
    cards = Counter(top)
    for layout in layouts:
        cards.update(layout.replace("/", " ").split())
    cfg = RulesConfig(num_players=3, rounds=1, deck=dict(cards))
    deck = stack_deck(cfg, layouts=layouts, top=top)
    game = engine(cfg, seed=0, stacked_decks={0: deck})
    flips_at_0_and_1(game)
    game.step(A.DRAW)
    game.step(A.DISCARD_A)  # D5: the hazard leaves play; R13 flips for seats 1 and 2
    return game


def test_d3_r17_round_ends_when_no_player_can_draw(engine):
    # Every layout shows two mulligans (R12): nobody may take the piles' mulligans, and the
    # draw pile is empty with nothing under the pile tops (R8).
    game = d3_game(engine, [TWO_MULLIGANS, TWO_MULLIGANS, TWO_MULLIGANS])
    assert game.phase == Phase.HAZARD_FLIP  # the no-draw end is not known "this turn" (D6)
    game.step(A.DECLINE)
    game.step(A.DECLINE)
    result = game.round_results[0]
    assert result.ended_by == "no_draw"
    assert result.turns == 1
    assert result.first_out is None
    assert game.game_over
    check_invariants(game)


def test_d3_r17_player_who_cannot_draw_passes_and_the_pass_is_a_turn(engine):
    # Seat 1 shows two mulligans and cannot take; seat 2 shows none and can.
    game = d3_game(engine, [TWO_MULLIGANS, TWO_MULLIGANS, NO_MULLIGAN])
    game.step(A.DECLINE)
    game.step(A.DECLINE)
    assert game.turn_player == 2  # seat 1 passed without a decision
    assert game.turns_played == 2  # seat 0's turn and seat 1's pass
    assert game.phase == Phase.DRAW
    assert game.legal_actions() == [A.TAKE_A, A.TAKE_B]
    game.step(A.TAKE_B)
    assert game.held == MULLIGAN
    check_invariants(game)


def test_d7_r17_cap_during_endgame_keeps_first_out_bonus(engine):
    # Seat 0 goes out on turn 1 with a bounce chain over ``1 5 5 / 5 5 5 / 5 5 9``
    # (opening flips 0 and 1): draw 3, place at 2, bounce the 5s along 3..8, discard the 9.
    # Final layout 1 5 3 / 5 5 5 / 5 5 5: rows 3-5 and 6-8 (-10), column 1-4-7 (-5), 1 + 3.
    cfg = RulesConfig(num_players=3, rounds=1, max_turns_per_round=2)
    others = "2 3 4 / -1 -2 -3 / 6 -1 -2"  # no line matches: 2+3+4+6-9 = 6
    deck = stack_deck(cfg, layouts=["1 5 5 / 5 5 5 / 5 5 9", others, others], top=["8", "9", "3"])
    game = engine(cfg, seed=0, stacked_decks={0: deck})
    flips_at_0_and_1(game)
    game.step(A.DRAW)
    game.step(A.PLACE + 2)
    for q in range(3, 9):
        game.step(A.BOUNCE + q)
    game.step(A.DISCARD_A)
    assert game.first_out == 0
    game.step(A.DRAW)  # seat 1's turn is the cap's second turn
    game.step(A.DISCARD_A)
    result = game.round_results[0]
    assert result.ended_by == "turn_cap"
    assert result.first_out == 0
    assert result.layout_scores == (-11, 6, 6)
    assert result.round_scores == (-16, 6, 6)


def test_d4_r8_reshuffle_with_one_empty_pile_keeps_only_the_other_top(engine):
    # 3 players, a 30-card deck: after the deal 3 cards remain: pile A = 7, pile B = 6, draw [2].
    cfg = RulesConfig(
        num_players=3, rounds=1, deck={"2": 9, "3": 9, "4": 9, "7": 1, "6": 1, "5": 1}
    )
    layouts = ["2 2 2 / 2 2 2 / 2 2 2", "3 3 3 / 3 3 3 / 3 3 3", "4 4 4 / 4 4 4 / 4 4 4"]
    deck = stack_deck(cfg, layouts=layouts, top=["7", "6", "5"])
    game = engine(cfg, seed=0, stacked_decks={0: deck})
    flips_at_0_and_1(game)
    game.step(A.TAKE_B)  # seat 0 takes the 6: pile B empty
    game.step(A.PLACE + 8)  # displaces a face-down 2, which matches (R11) -- decline
    assert game.legal_actions()[-1] == A.DISCARD_B  # R14: only the empty pile B
    game.step(A.DISCARD_B)  # B = [2]
    game.step(A.DRAW)  # seat 1 draws the 5: draw pile empty
    game.step(A.DISCARD_A)  # A = [7, 5]
    # seat 2 draws: reshuffle the cards under the tops -> only the 7; tops 5 and 2 stay.
    game.step(A.DRAW)
    assert game.held == 7
    assert game.piles == [[5], [2]]
    assert game.draw_pile == []
    check_invariants(game)
