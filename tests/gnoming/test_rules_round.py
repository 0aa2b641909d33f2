"""Rule tests for set-up, hazards, round end, scoring and winning (RULES.md R3-R6, R13, R15-R23).

Every position is built with the documented test hook
(:func:`gnome_env.gnoming.testing.stack_deck`),
and every expected value below is derived by hand from RULES.md. Each test runs on both
engines through the ``engine`` fixture (``tests/conftest.py``): ``[game]`` plays on
:class:`~gnome_env.gnoming.engine.Game`, ``[kernel]`` on the compiled kernels
(:class:`gnome_env.gnoming.testing.KernelRulesGame`).

Tricks used to reach a round end quickly:

* a "chain" layout ``a v v / v v v / v v b`` whose opening flips are positions 0 and 1
  (``a`` and a ``v`` face up): the owner draws X, places it at 2 and bounces (R11) the
  displaced ``v`` along 3, 4, ..., so one turn turns up every face-down card it passes. Going
  all the way to 8 empties the layout of face-down cards (the seat goes out, R15); the final
  layout is ``a v X / v v v / v v v`` and ``b`` is discarded. Its score (R18-R20) is
  ``a + X - 3v`` for positive ``a``, ``X`` other than ``v``: row 3-5 (-v), row 6-8 (-v),
  column 1-4-7 (-v); ``a`` and ``X`` are in no matching line;
* "no-line" layouts ``p q r / -1 -2 -3 / s -1 -2`` (p, q, r not all equal): every line but
  the first row holds a negative card, so nothing matches and the score is
  ``p + q + r + s - 9``;
* a small ``max_turns_per_round`` (R17).
"""

from __future__ import annotations

import pytest

from gnome_env.gnoming import (
    HAZARD,
    MULLIGAN,
    Game,
    Phase,
    RulesConfig,
    check_invariants,
    parse_card,
)
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.testing import layout_tokens, stack_deck

H = HAZARD
M = MULLIGAN

# No-line layouts (see module docstring), named by their R18-R20 score.
S1 = "1 2 3 / -1 -2 -3 / 4 -1 -2"  # 1+2+3+4-9 = 1
S4 = "2 3 4 / -1 -2 -3 / 4 -1 -2"  # 2+3+4+4-9 = 4
S5 = "2 3 4 / -1 -2 -3 / 5 -1 -2"  # 2+3+4+5-9 = 5
S6 = "2 3 4 / -1 -2 -3 / 6 -1 -2"  # 2+3+4+6-9 = 6
S9 = "2 3 5 / -1 -2 -3 / 8 -1 -2"  # 2+3+5+8-9 = 9
S10 = "3 4 5 / -1 -2 -3 / 7 -1 -2"  # 3+4+5+7-9 = 10
S11 = "3 4 5 / -1 -2 -3 / 8 -1 -2"  # 3+4+5+8-9 = 11
S20 = "6 7 8 / -1 -2 -3 / 8 -1 -2"  # 6+7+8+8-9 = 20


# ---------------------------------------------------------------------- helpers
def chain_layout(a: object, v: int, b: object) -> str:
    """The chain layout ``a v v / v v v / v v b`` (see module docstring)."""
    return f"{a} {v} {v} / {v} {v} {v} / {v} {v} {b}"


def codes(layout: str) -> tuple[int, ...]:
    """A layout written in R2 notation as a tuple of card codes."""
    return tuple(layout_tokens(layout))


def make_game(engine, cfg: RulesConfig, layouts=(), top=(), seed: int = 0, round_: int = 0) -> Game:
    deck = stack_deck(cfg, layouts=layouts, top=top)
    return engine(cfg, seed=seed, stacked_decks={round_: deck})


def opening_flips(game: Game, flips: dict[int, tuple[int, int]] | None = None) -> list[int]:
    """Do every R5 opening flip (positions 0 then 1 unless ``flips`` says otherwise).

    Returns the seats in the order they were asked to flip.
    """
    order = []
    while game.phase == Phase.OPENING_FLIP:
        seat = game.current_seat
        done = 9 - game.down_count[seat]
        pos = (flips or {}).get(seat, (0, 1))[done]
        order.append(seat)
        game.step(A.FLIP + pos)
    return order


def draw_discard(game: Game) -> None:
    """A whole "draw from the pile and discard it onto pile A" turn.

    Should the card be a hazard (only in unstacked games), every offered flip is declined.
    """
    assert game.phase == Phase.DRAW
    game.step(A.DRAW)
    game.step(A.DISCARD_A)
    while game.phase == Phase.HAZARD_FLIP:
        game.step(A.DECLINE)


def chain_turn(game: Game, last: int = 8) -> None:
    """Draw, place at 2, bounce the displaced card along 3..last, discard the last one onto A.

    On a chain layout with opening flips 0 and 1, ``last=8`` turns every card face up.
    """
    assert game.phase == Phase.DRAW
    game.step(A.DRAW)
    game.step(A.PLACE + 2)
    for q in range(3, last + 1):
        game.step(A.BOUNCE + q)
    game.step(A.DISCARD_A)


def finish_round(game: Game) -> None:
    """Play draw-and-discard turns until the current round is over."""
    start = len(game.round_results)
    while len(game.round_results) == start:
        draw_discard(game)


def play_first_out_round(game: Game, out_seat: int) -> None:
    """Opening flips, draw-and-discard turns until ``out_seat`` goes out with a full chain,
    then draw-and-discard turns until the round ends."""
    start = len(game.round_results)
    opening_flips(game)
    while game.turn_player != out_seat:
        draw_discard(game)
    chain_turn(game, 8)
    while len(game.round_results) == start:
        draw_discard(game)


def cap_round_game(engine, rounds_layouts: list[list[str]], **cfg_kw) -> Game:
    """A 3-player game whose rounds end after one draw-and-discard turn (R17 cap of 1)."""
    cfg = RulesConfig(num_players=3, rounds=len(rounds_layouts), max_turns_per_round=1, **cfg_kw)
    decks = {
        r: stack_deck(cfg, layouts=layouts, top=["9", "10", "12"])
        for r, layouts in enumerate(rounds_layouts)
    }
    game = engine(cfg, seed=0, stacked_decks=decks)
    while not game.game_over:
        opening_flips(game)
        draw_discard(game)
    return game


# ---------------------------------------------------------------------- R3 deal
def test_r3_stacked_deal_gives_seat_p_cards_9p_to_9p_plus_8_face_down(engine):
    cfg = RulesConfig(num_players=4)
    deck = stack_deck(cfg, top=["9", "10"], rest_seed=3)
    game = engine(cfg, seed=0, stacked_decks={0: deck})
    for p in range(4):
        assert game.layouts[p] == [parse_card(t) for t in deck[9 * p : 9 * p + 9]]
        assert game.face_up[p] == [False] * 9
        assert game.down_count[p] == 9
        assert game.visible_layout(p) == [None] * 9
    # R3/R4: the next two cards start piles A and B; the rest is the draw pile, top first.
    assert game.piles == [[9], [10]]
    assert list(reversed(game.draw_pile)) == [parse_card(t) for t in deck[38:]]
    assert len(game.draw_pile) == 110 - 36 - 2
    check_invariants(game)


def test_r3_stacked_layouts_land_in_position_order(engine):
    cfg = RulesConfig(num_players=3)
    game = make_game(
        engine, cfg, layouts=["5 5 M / 1 2 7 / 3 4 7", None, "H -4 12 / 1 1 1 / 2 2 2"]
    )
    assert game.layouts[0] == [5, 5, M, 1, 2, 7, 3, 4, 7]
    assert game.layouts[2] == [H, -4, 12, 1, 1, 1, 2, 2, 2]
    assert game.down_count == [9, 9, 9]


def test_r3_same_seed_same_deal_different_seed_different_deal(engine):
    cfg = RulesConfig(num_players=3)
    a, b, c = engine(cfg, seed=5), engine(cfg, seed=5), engine(cfg, seed=6)
    assert a.layouts == b.layouts
    assert a.piles == b.piles
    assert a.draw_pile == b.draw_pile
    assert a.layouts != c.layouts
    for g in (a, c):  # R3: a shuffle of all 110 cards
        assert sum(g.card_count().values()) == 110
        check_invariants(g)


def test_r3_each_round_deals_from_its_own_seed_stream(engine):
    cfg = RulesConfig(num_players=3, rounds=2, max_turns_per_round=1)
    one = engine(cfg, seed=11)
    deal0 = [list(x) for x in one.layouts]
    opening_flips(one)
    draw_discard(one)
    assert one.round == 1
    assert one.layouts != deal0  # round 1's deal differs from round 0's

    # Round 1's deal does not depend on what happened in round 0 ...
    two = engine(cfg, seed=11)
    opening_flips(two, {0: (7, 8), 1: (2, 5), 2: (4, 6)})
    two.step(A.DRAW)
    two.step(A.PLACE + 4)
    two.step(A.DISCARD_B)
    assert two.round == 1
    assert two.layouts == one.layouts
    assert two.draw_pile == one.draw_pile
    assert two.piles == one.piles

    # ... nor on whether round 0 was shuffled or stacked.
    three = make_game(engine, cfg, layouts=[S4], top=["9", "10", "12"], seed=11)
    opening_flips(three)
    draw_discard(three)
    assert three.round == 1
    assert three.layouts == one.layouts
    check_invariants(three)


# ---------------------------------------------------------------------- R4 discard piles
def test_r4_first_turned_card_starts_pile_a_second_pile_b(engine):
    cfg = RulesConfig(num_players=3)
    game = make_game(engine, cfg, top=["9", "2", "8", "7"])
    assert game.piles == [[9], [2]]
    assert game.draw_pile[-1] == 8
    assert game.draw_pile[-2] == 7
    assert game.hazards_removed == 0
    check_invariants(game)


@pytest.mark.parametrize(
    ("top", "removed"),
    [
        (["H", "9", "2", "8"], 1),  # hazard in place of pile A's card
        (["9", "H", "2", "8"], 1),  # hazard in place of pile B's card
        (["H", "H", "9", "H", "2", "8"], 3),  # all three hazards, before and between
    ],
)
def test_r4_hazard_turned_up_is_removed_and_next_card_turned(engine, top, removed):
    cfg = RulesConfig(num_players=3)
    game = make_game(engine, cfg, layouts=[S4, S5, S6], top=top)
    assert game.piles == [[9], [2]]
    assert game.hazards_removed == removed
    assert game.draw_pile[-1] == 8
    # No flips happen: the round starts with the ordinary opening flips, all cards down.
    assert game.phase == Phase.OPENING_FLIP
    assert game.current_seat == 0
    assert game.down_count == [9, 9, 9]
    check_invariants(game)


# ---------------------------------------------------------------------- R5 opening flips
def test_r5_opening_flips_two_per_seat_in_seat_order_from_first_player(engine):
    cfg = RulesConfig(num_players=3)
    game = make_game(engine, cfg, layouts=[S4, S5, S6], top=["9", "10"])
    seen = []
    for seat, pos in [(0, 3), (0, 8), (1, 0), (1, 4), (2, 7), (2, 2)]:
        assert game.phase == Phase.OPENING_FLIP
        seen.append(game.current_seat)
        game.step(A.FLIP + pos)
        assert game.face_up[seat][pos]
    assert seen == [0, 0, 1, 1, 2, 2]
    assert game.face_up[0] == [False, False, False, True, False, False, False, False, True]
    assert game.visible_layout(1) == [2, None, None, None, -2, None, None, None, None]
    assert game.down_count == [7, 7, 7]
    assert game.phase == Phase.DRAW
    assert game.current_seat == game.turn_player == 0
    check_invariants(game)


def test_r5_only_face_down_positions_may_be_flipped(engine):
    cfg = RulesConfig(num_players=3)
    game = make_game(engine, cfg, top=["9", "10"])
    assert sorted(game.legal_actions()) == [A.FLIP + q for q in range(9)]
    game.step(A.FLIP + 4)
    assert game.current_seat == 0
    assert sorted(game.legal_actions()) == [A.FLIP + q for q in range(9) if q != 4]
    before = game.digest()
    for action in (A.FLIP + 4, A.DRAW, A.DECLINE, A.TAKE_A):
        with pytest.raises(ValueError):
            game.step(action)
    assert game.digest() == before
    check_invariants(game)


@pytest.mark.parametrize(
    ("players", "rounds_done", "order"),
    [
        (3, 1, [1, 1, 2, 2, 0, 0]),
        (3, 2, [2, 2, 0, 0, 1, 1]),
        (4, 2, [2, 2, 3, 3, 0, 0, 1, 1]),
        (4, 3, [3, 3, 0, 0, 1, 1, 2, 2]),
    ],
)
def test_r5_opening_flip_order_starts_with_the_rounds_first_player(
    engine, players, rounds_done, order
):
    cfg = RulesConfig(num_players=players, rounds=rounds_done + 1, max_turns_per_round=1)
    game = engine(cfg, seed=2)
    for _ in range(rounds_done):
        opening_flips(game)
        draw_discard(game)
    assert game.round == rounds_done
    assert game.down_count == [9] * players
    assert opening_flips(game) == order


# ---------------------------------------------------------------------- R6 first player
@pytest.mark.parametrize(
    ("rotate", "firsts"),
    [(True, [0, 1, 2, 0, 1]), (False, [0, 0, 0, 0, 0])],
)
def test_r6_first_player_of_each_round(engine, rotate, firsts):
    cfg = RulesConfig(num_players=3, rounds=5, max_turns_per_round=1, rotate_start=rotate)
    game = engine(cfg, seed=4)
    seen = []
    for r in range(5):
        assert game.round == r
        assert game.phase == Phase.OPENING_FLIP
        first = game.current_seat
        opening_flips(game)
        assert game.phase == Phase.DRAW
        assert game.turn_player == first
        seen.append(first)
        draw_discard(game)
    assert seen == firsts
    assert game.game_over


@pytest.mark.parametrize(("rotate", "first"), [(True, 1), (False, 0)])
def test_r6_round_1_first_player_after_a_played_out_round(engine, rotate, first):
    cfg = RulesConfig(num_players=3, rounds=2, rotate_start=rotate)
    game = make_game(
        engine, cfg, layouts=[chain_layout(3, 1, 12)], top=["9", "10", "4", "12", "11"]
    )
    play_first_out_round(game, 0)
    res = game.round_results[0]
    assert (res.ended_by, res.first_out, res.turns) == ("endgame", 0, 3)
    assert game.round == 1
    assert game.phase == Phase.OPENING_FLIP
    assert game.current_seat == first
    order = opening_flips(game)
    assert order == [(first + i // 2) % 3 for i in range(6)]
    assert game.phase == Phase.DRAW
    assert game.turn_player == game.current_seat == first
    draw_discard(game)
    assert game.turn_player == (first + 1) % 3  # increasing seat order
    check_invariants(game)


# ---------------------------------------------------------------------- R13 hazards
def _hazard_game(engine, players: int = 3, rounds: int = 1, cap: int | None = None, **kw) -> Game:
    cfg = RulesConfig(num_players=players, rounds=rounds, max_turns_per_round=cap)
    return make_game(engine, cfg, **kw)


def test_r13_drawn_hazard_discarded_is_removed_and_others_flip_in_seat_order(engine):
    game = _hazard_game(engine, layouts=[S4, S5, S6], top=["9", "10", "12", "H"])
    opening_flips(game)
    draw_discard(game)  # seat 0: 12 onto pile A
    assert game.turn_player == 1
    game.step(A.DRAW)
    assert game.held == H
    # R13/R14: a hazard goes to no pile; the single discard action removes it.
    assert A.DISCARD_A in game.legal_actions()
    assert A.DISCARD_B not in game.legal_actions()
    game.step(A.DISCARD_A)
    assert game.hazards_removed == 1
    assert game.piles == [[9, 12], [10]]
    assert game.held is None
    assert game.turns_played == 1  # seat 1's turn is not over until the flips are done
    # Seat 2 (after the discarder) is asked first.
    assert game.phase == Phase.HAZARD_FLIP
    assert game.turn_player == 1
    assert game.current_seat == 2
    assert sorted(game.legal_actions()) == [A.FLIP + q for q in range(2, 9)] + [A.DECLINE]
    check_invariants(game)
    game.step(A.FLIP + 5)
    assert game.face_up[2][5]
    assert game.down_count[2] == 6
    # Then seat 0, which declines (action 32): nothing changes.
    assert game.phase == Phase.HAZARD_FLIP
    assert game.current_seat == 0
    faces = [list(x) for x in game.face_up]
    check_invariants(game)
    game.step(A.DECLINE)
    assert game.face_up == faces
    assert game.down_count == [7, 7, 6]
    # Seat 1 is never asked; play goes on with seat 2's turn.
    assert game.phase == Phase.DRAW
    assert game.turn_player == game.current_seat == 2
    assert game.turns_played == 2
    check_invariants(game)


@pytest.mark.parametrize(
    ("discarder", "order"),
    [(0, [1, 2, 3]), (1, [2, 3, 0]), (2, [3, 0, 1]), (3, [0, 1, 2])],
)
def test_r13_hazard_flips_offered_in_seat_order_starting_after_discarder(engine, discarder, order):
    game = _hazard_game(engine, players=4, top=["9", "10"] + ["12"] * discarder + ["H"])
    opening_flips(game)
    for _ in range(discarder):
        draw_discard(game)
    assert game.turn_player == discarder
    game.step(A.DRAW)
    game.step(A.DISCARD_A)
    asked = []
    while game.phase == Phase.HAZARD_FLIP:
        asked.append(game.current_seat)
        game.step(A.DECLINE)
    assert asked == order
    assert game.turn_player == (discarder + 1) % 4
    assert game.down_count == [7, 7, 7, 7]


def test_r13_hazard_displaced_from_layout_is_removed_and_offers_flips(engine):
    game = _hazard_game(engine, layouts=["2 3 4 / -1 H -3 / 6 -1 -2", S5, S6], top=["9", "10", "5"])
    opening_flips(game)
    game.step(A.DRAW)
    game.step(A.PLACE + 4)
    assert game.held == H
    assert game.face_up[0][4]
    assert game.layouts[0][4] == 5
    assert not game.can_bounce
    assert game.legal_actions() == [A.DISCARD_A]
    game.step(A.DISCARD_A)
    assert game.hazards_removed == 1
    assert game.piles == [[9], [10]]
    asked = []
    while game.phase == Phase.HAZARD_FLIP:
        asked.append(game.current_seat)
        game.step(A.DECLINE)
    assert asked == [1, 2]
    assert game.turn_player == 1
    check_invariants(game)


def test_r13_hazard_flips_skip_player_with_one_face_down_card(engine):
    # Seat 0 chains 2..7 (R11): only position 8 stays face down.
    game = _hazard_game(engine, layouts=[chain_layout(3, 1, 12), S5, S6], top=["9", "10", "4", "H"])
    opening_flips(game)
    chain_turn(game, last=7)
    assert game.down_count[0] == 1
    assert game.face_up[0] == [True] * 8 + [False]
    assert game.turn_player == 1
    game.step(A.DRAW)
    game.step(A.DISCARD_A)
    assert game.phase == Phase.HAZARD_FLIP
    assert game.current_seat == 2
    game.step(A.FLIP + 8)
    # Seat 0 (one face-down card) is skipped: seat 2's turn starts.
    assert game.phase == Phase.DRAW
    assert game.turn_player == 2
    assert game.down_count == [1, 7, 6]
    check_invariants(game)


def test_r13_hazard_flips_offered_to_player_with_exactly_two_face_down_cards(engine):
    game = _hazard_game(engine, layouts=[chain_layout(3, 1, 12), S5, S6], top=["9", "10", "4", "H"])
    opening_flips(game)
    chain_turn(game, last=6)
    assert game.down_count[0] == 2
    game.step(A.DRAW)
    game.step(A.DISCARD_A)
    assert game.current_seat == 2
    game.step(A.DECLINE)
    assert game.phase == Phase.HAZARD_FLIP
    assert game.current_seat == 0
    assert sorted(game.legal_actions()) == [A.FLIP + 7, A.FLIP + 8, A.DECLINE]
    game.step(A.FLIP + 7)
    assert game.down_count[0] == 1
    assert game.phase == Phase.DRAW
    assert game.turn_player == 2
    check_invariants(game)


def test_r13_hazard_discarded_on_the_going_out_turn_still_offers_flips(engine):
    # Seat 0 goes out; the last displaced card of its chain is a hazard. The round does
    # not end at the end of this turn (two endgame turns follow), so flips are offered.
    game = _hazard_game(engine, layouts=[chain_layout(3, 1, "H"), S5, S6], top=["9", "10", "4"])
    opening_flips(game)
    chain_turn(game, 8)
    assert game.down_count[0] == 0
    assert game.hazards_removed == 1
    asked = []
    while game.phase == Phase.HAZARD_FLIP:
        asked.append(game.current_seat)
        game.step(A.DECLINE)
    assert asked == [1, 2]
    assert game.first_out == 0
    assert game.endgame_turns_left == 2
    assert game.turn_player == 1


def test_r13_hazard_flips_skip_first_out_player_in_endgame(engine):
    game = _hazard_game(engine, layouts=[chain_layout(3, 1, 12), S5, S6], top=["9", "10", "4", "H"])
    opening_flips(game)
    chain_turn(game, 8)
    assert game.first_out == 0
    game.step(A.DRAW)  # seat 1's endgame turn, not the last one
    game.step(A.DISCARD_A)
    asked = []
    while game.phase == Phase.HAZARD_FLIP:
        asked.append(game.current_seat)
        game.step(A.DECLINE)
    assert asked == [2]
    assert game.turn_player == 2
    assert not game.game_over


def test_r13_no_hazard_flips_on_the_last_endgame_turn(engine):
    game = _hazard_game(
        engine, layouts=[chain_layout(3, 1, 12), S5, S6], top=["9", "10", "4", "12", "H"]
    )
    opening_flips(game)
    chain_turn(game, 8)
    draw_discard(game)  # seat 1
    assert game.turn_player == 2
    assert game.endgame_turns_left == 1
    game.step(A.DRAW)
    assert game.held == H
    game.step(A.DISCARD_A)
    # No HAZARD_FLIP phase: the round (and this one-round game) is over at once.
    assert game.game_over
    assert game.hazards_removed == 1
    res = game.round_results[0]
    assert (res.ended_by, res.first_out, res.turns) == ("endgame", 0, 3)
    check_invariants(game)


@pytest.mark.parametrize(("cap", "flips_offered"), [(2, False), (3, True)])
def test_r13_no_hazard_flips_when_turn_cap_is_reached_on_this_turn(engine, cap, flips_offered):
    game = _hazard_game(engine, cap=cap, layouts=[S4, S5, S6], top=["9", "10", "12", "H"])
    opening_flips(game)
    draw_discard(game)
    game.step(A.DRAW)  # seat 1, turn 2
    game.step(A.DISCARD_A)
    assert game.hazards_removed == 1
    if flips_offered:
        assert game.phase == Phase.HAZARD_FLIP
        assert game.current_seat == 2
    else:
        assert game.game_over
        res = game.round_results[0]
        assert (res.ended_by, res.first_out, res.turns) == ("turn_cap", None, 2)
    check_invariants(game)


def test_r13_hazard_kept_in_layout_scores_plus_ten(engine):
    game = _hazard_game(engine, cap=1, layouts=[S6, S5, S9], top=["9", "10", "H"])
    opening_flips(game)
    game.step(A.DRAW)
    game.step(A.PLACE + 0)  # keep the hazard (R9); the face-up 2 is displaced
    assert game.held == 2
    game.step(A.DISCARD_A)
    assert game.game_over
    assert game.hazards_removed == 0
    res = game.round_results[0]
    assert res.layouts[0] == (H, 3, 4, -1, -2, -3, 6, -1, -2)
    # 10 (hazard) + 3 + 4 + 6 - 1 - 2 - 3 - 1 - 2; the top row holds a hazard: no line.
    assert res.layout_scores == (14, 5, 9)
    check_invariants(game)


# ---------------------------------------------------------------------- R15 endgame
@pytest.mark.parametrize("players", [3, 4, 5])
def test_r15_first_out_seat_0_then_each_other_player_one_more_turn(engine, players):
    cfg = RulesConfig(num_players=players, rounds=2)
    fillers = ["12", "11", "10", "9"][: players - 1]
    game = make_game(engine, cfg, layouts=[chain_layout(3, 1, 12)], top=["9", "10", "4", *fillers])
    opening_flips(game)
    chain_turn(game, 8)
    assert game.down_count[0] == 0
    assert game.first_out == 0
    assert game.endgame_turns_left == players - 1
    turns = []
    while game.round == 0:
        assert game.first_out == 0
        turns.append(game.turn_player)
        draw_discard(game)
    assert turns == list(range(1, players))
    res = game.round_results[0]
    assert (res.ended_by, res.first_out, res.turns) == ("endgame", 0, players)
    check_invariants(game)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_r15_first_out_last_seat_then_each_other_player_one_more_turn(engine, players):
    cfg = RulesConfig(num_players=players, rounds=2)
    last = players - 1
    layouts = [None] * last + [chain_layout(3, 1, 12)]
    draws = ["12"] * last + ["4"] + ["11"] * last
    game = make_game(engine, cfg, layouts=layouts, top=["9", "10", *draws])
    opening_flips(game)
    for seat in range(last):
        assert game.turn_player == seat
        draw_discard(game)
        assert game.first_out is None
    assert game.turn_player == last
    chain_turn(game, 8)
    assert game.first_out == last
    turns = []
    while game.round == 0:
        turns.append(game.turn_player)
        draw_discard(game)
    assert turns == list(range(last))
    res = game.round_results[0]
    assert (res.ended_by, res.first_out, res.turns) == ("endgame", last, 2 * last + 1)


def test_r15_first_out_last_seat_scores_in_three_player_round(engine):
    cfg = RulesConfig(num_players=3, rounds=1)
    game = make_game(
        engine,
        cfg,
        layouts=[S4, S9, chain_layout(4, 1, 12)],
        top=["9", "10", "12", "11", "5", "12", "11"],
    )
    play_first_out_round(game, 2)
    res = game.round_results[0]
    assert res.first_out == 2
    assert res.turns == 5
    assert res.layouts == (codes(S4), codes(S9), (4, 1, 5, 1, 1, 1, 1, 1, 1))
    assert res.layout_scores == (4, 9, 6)  # seat 2: 4 + 5 - 3
    assert res.round_scores == (4, 9, 11)  # 6 is not the lowest: +5


def test_r15_only_first_player_out_triggers_the_endgame(engine):
    cfg = RulesConfig(num_players=3, rounds=1)
    game = make_game(
        engine,
        cfg,
        layouts=[chain_layout(3, 1, 12), chain_layout(5, 2, 12), S11],
        top=["9", "10", "4", "6", "11"],
    )
    opening_flips(game)
    chain_turn(game, 8)  # seat 0 goes out
    assert (game.first_out, game.endgame_turns_left) == (0, 2)
    chain_turn(game, 8)  # seat 1 goes out too, on its endgame turn
    assert game.down_count[1] == 0
    assert (game.first_out, game.endgame_turns_left) == (0, 1)
    assert not game.game_over
    assert game.turn_player == 2
    draw_discard(game)
    assert game.game_over
    res = game.round_results[0]
    assert (res.ended_by, res.first_out, res.turns) == ("endgame", 0, 3)
    # seat 0: 3 + 4 - 3 = 4; seat 1: 5 + 6 - 6 = 5; seat 2: 11. Bonus for seat 0 only.
    assert res.layout_scores == (4, 5, 11)
    assert res.round_scores == (-1, 5, 11)


def test_r15_no_first_out_before_a_player_has_no_face_down_card(engine):
    cfg = RulesConfig(num_players=3, rounds=1)
    game = make_game(engine, cfg, layouts=[chain_layout(3, 1, 12)], top=["9", "10", "4", "12"])
    opening_flips(game)
    chain_turn(game, 7)  # one face-down card left
    assert game.down_count[0] == 1
    assert game.first_out is None
    assert game.endgame_turns_left is None
    assert game.turn_player == 1


# ---------------------------------------------------------------------- R16 reveal
def test_r16_every_face_down_card_revealed_in_place_at_round_end(engine):
    seat1 = "M 3 4 / -1 -2 -3 / 6 -1 H"
    seat2 = "5 5 M / 1 2 7 / 3 4 7"
    game = _hazard_game(engine, cap=1, layouts=[S6, seat1, seat2], top=["9", "10", "12"])
    opening_flips(game)
    draw_discard(game)
    assert game.game_over
    assert game.face_up == [[True] * 9] * 3
    assert game.down_count == [0, 0, 0]
    res = game.round_results[0]
    assert res.layouts == (codes(S6), codes(seat1), codes(seat2))
    assert game.layouts == [list(codes(S6)), list(codes(seat1)), list(codes(seat2))]
    # seat 1: 3 + 4 + 6 - 1 - 2 - 3 - 1 + 10 (revealed hazard stays) + 0 (mulligan) = 16
    # seat 2: the R20 example, -2
    assert res.layout_scores == (6, 16, -2)
    assert res.round_scores == (6, 16, -2)
    check_invariants(game)


def test_r16_reveal_keeps_layout_changes_made_during_the_round(engine):
    game = _hazard_game(engine, cap=2, layouts=[S6, S5, S9], top=["9", "10", "7", "8"])
    opening_flips(game)
    game.step(A.DRAW)  # seat 0 draws 7, puts it on face-down position 8 (a -2)
    game.step(A.PLACE + 8)
    assert game.held == -2
    game.step(A.DISCARD_B)
    game.step(A.DRAW)  # seat 1 draws 8, puts it on face-up position 0 (a 2)
    game.step(A.PLACE + 0)
    game.step(A.DISCARD_A)
    assert game.game_over
    res = game.round_results[0]
    assert res.layouts[0] == (2, 3, 4, -1, -2, -3, 6, -1, 7)
    assert res.layouts[1] == (8, 3, 4, -1, -2, -3, 5, -1, -2)
    assert res.layouts[2] == codes(S9)
    # seat 0: 2+3+4+6+7 -1-2-3-1 = 15; seat 1: 8+3+4+5 -9 = 11
    assert res.layout_scores == (15, 11, 9)
    assert game.piles == [[9, 2], [10, -2]]


# ---------------------------------------------------------------------- R17 round cap
@pytest.mark.parametrize("cap", [1, 4, 5])
def test_r17_round_ends_after_max_turns_per_round_with_no_first_out(engine, cap):
    cfg = RulesConfig(num_players=3, rounds=2, max_turns_per_round=cap)
    game = make_game(engine, cfg, layouts=[S4, S5, S9], top=["9", "10"] + ["12"] * cap)
    opening_flips(game)
    for t in range(cap):
        assert game.round == 0
        assert game.turns_played == t
        assert game.turn_player == t % 3
        draw_discard(game)
    assert game.round == 1
    assert game.turns_played == 0
    assert game.phase == Phase.OPENING_FLIP
    res = game.round_results[0]
    assert res.ended_by == "turn_cap"
    assert res.turns == cap
    assert res.first_out is None
    assert res.layouts == (codes(S4), codes(S5), codes(S9))
    assert res.layout_scores == (4, 5, 9)
    assert res.round_scores == (4, 5, 9)  # no first-out bonus
    assert game.totals == [4, 5, 9]
    check_invariants(game)


def test_r17_default_cap_is_60_turns_per_player(engine):
    assert RulesConfig(num_players=3).turn_cap == 180
    assert RulesConfig(num_players=7).turn_cap == 420
    assert RulesConfig(num_players=3, max_turns_per_round=7).turn_cap == 7
    # ... and the cap each engine enforces (Game's field; the kernel's C_TURN_CAP column).
    for cfg, cap in [
        (RulesConfig(num_players=3), 180),
        (RulesConfig(num_players=7), 420),
        (RulesConfig(num_players=3, max_turns_per_round=7), 7),
    ]:
        assert engine(cfg, seed=0)._turn_cap == cap


# ---------------------------------------------------------------------- R21 first-out bonus
def _first_out_round(engine, seat0_a: int, seat0_x: int, seat1: str, seat2: str, **cfg_kw) -> Game:
    """Seat 0 goes out on the first turn with ``a 1 X / 1 1 1 / 1 1 1`` (score a + X - 3);
    seats 1 and 2 keep their dealt layouts (one draw-and-discard turn each)."""
    cfg = RulesConfig(num_players=3, rounds=1, **cfg_kw)
    game = make_game(
        engine,
        cfg,
        layouts=[chain_layout(seat0_a, 1, 12), seat1, seat2],
        top=["9", "10", str(seat0_x), "12", "11"],
    )
    play_first_out_round(game, 0)
    assert game.game_over
    return game


def test_r21_first_out_with_lowest_score_subtracts_5(engine):
    # RULES.md: first-out 4, others 6 and 9 -> 4 - 5 = -1.
    game = _first_out_round(engine, 3, 4, S6, S9)
    res = game.round_results[0]
    assert res.first_out == 0
    assert res.ended_by == "endgame"
    assert res.layouts[0] == (3, 1, 4, 1, 1, 1, 1, 1, 1)
    assert res.layout_scores == (4, 6, 9)
    assert res.round_scores == (-1, 6, 9)
    check_invariants(game)


def test_r21_first_out_not_lowest_adds_5(engine):
    # RULES.md: first-out 6, others 4 and 9 -> 6 + 5 = 11.
    game = _first_out_round(engine, 4, 5, S4, S9)
    res = game.round_results[0]
    assert res.first_out == 0
    assert res.layouts[0] == (4, 1, 5, 1, 1, 1, 1, 1, 1)
    assert res.layout_scores == (6, 4, 9)
    assert res.round_scores == (11, 4, 9)


@pytest.mark.parametrize(("tie_is_lowest", "bonus_score"), [(True, -1), (False, 9)])
def test_r21_first_out_tied_for_lowest(engine, tie_is_lowest, bonus_score):
    # RULES.md: first-out 4, others 4 and 9 -> -1 (tie counts as lowest by default).
    game = _first_out_round(engine, 3, 4, S4, S9, first_out_tie_is_lowest=tie_is_lowest)
    res = game.round_results[0]
    assert res.first_out == 0
    assert res.layout_scores == (4, 4, 9)
    assert res.round_scores == (bonus_score, 4, 9)


def test_r21_first_out_compared_with_every_other_player(engine):
    # First-out 6 beats seat 2 (9) but not seat 1 (5): not the lowest, +5.
    game = _first_out_round(engine, 4, 5, S5, S9)
    res = game.round_results[0]
    assert res.layout_scores == (6, 5, 9)
    assert res.round_scores == (11, 5, 9)


# ---------------------------------------------------------------------- R22/R23 totals, winning
def test_r22_round_score_is_layout_score_plus_bonus_and_totals_add(engine):
    cfg = RulesConfig(num_players=3, rounds=2)
    deck0 = stack_deck(
        cfg, layouts=[chain_layout(3, 1, 12), S6, S9], top=["9", "10", "4", "12", "11"]
    )
    # Round 1 starts with seat 1 (R6), which goes out on its first turn.
    deck1 = stack_deck(
        cfg, layouts=[S9, chain_layout(4, 1, 12), S4], top=["9", "10", "5", "12", "11"]
    )
    game = engine(cfg, seed=0, stacked_decks={0: deck0, 1: deck1})
    play_first_out_round(game, 0)
    assert game.totals == [-1, 6, 9]
    assert game.round == 1
    play_first_out_round(game, 1)
    assert game.game_over
    r0, r1 = game.round_results
    assert (r0.first_out, r0.layout_scores, r0.round_scores) == (0, (4, 6, 9), (-1, 6, 9))
    assert r1.layouts[1] == (4, 1, 5, 1, 1, 1, 1, 1, 1)
    assert (r1.first_out, r1.layout_scores, r1.round_scores) == (1, (9, 6, 4), (9, 11, 4))
    assert game.totals == [-1 + 9, 6 + 11, 9 + 4]
    assert game.winners() == (0,)
    check_invariants(game)


def test_r23_three_rounds_totals_add_up(engine):
    game = cap_round_game(engine, [[S10, S5, S20], [S5, S10, S1], [S1, S1, S4]])
    assert [r.round_scores for r in game.round_results] == [(10, 5, 20), (5, 10, 1), (1, 1, 4)]
    assert game.totals == [16, 16, 25]
    # Tied on 16: the last round is 1 each, still tied -> shared.
    assert game.winners() == (0, 1)


def test_r23_lowest_total_wins(engine):
    game = cap_round_game(engine, [[S10, S5, S20]])
    assert game.totals == [10, 5, 20]
    assert game.winners() == (1,)


@pytest.mark.parametrize(
    ("round0", "round1", "totals", "winners"),
    [
        # Seats 0 and 1 tie on 15; seat 0 scored less in the last round.
        ([S10, S5, S20], [S5, S10, S1], [15, 15, 21], (0,)),
        ([S5, S10, S20], [S10, S5, S1], [15, 15, 21], (1,)),
        # Seat 0 has the lowest last round but not a tied-lowest total: it does not win.
        ([S20, S10, S5], [S1, S5, S10], [21, 15, 15], (1,)),
    ],
)
def test_r23_total_tie_goes_to_lowest_last_round_score(engine, round0, round1, totals, winners):
    game = cap_round_game(engine, [round0, round1])
    assert game.totals == totals
    assert game.winners() == winners


@pytest.mark.parametrize(
    ("round0", "round1", "totals", "winners"),
    [
        ([S10, S10, S20], [S5, S5, S1], [15, 15, 21], (0, 1)),
        ([S20, S10, S10], [S1, S5, S5], [21, 15, 15], (1, 2)),
        ([S10, S10, S10], [S5, S5, S5], [15, 15, 15], (0, 1, 2)),
    ],
)
def test_r23_remaining_tie_is_a_shared_win(engine, round0, round1, totals, winners):
    game = cap_round_game(engine, [round0, round1])
    assert game.totals == totals
    assert game.winners() == winners


def test_r23_winners_undefined_before_game_over(engine):
    game = engine(RulesConfig(num_players=3), seed=0)
    with pytest.raises(ValueError):
        game.winners()
