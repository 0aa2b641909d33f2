"""The Nerts engine as a whole: API contract, determinism, copies, the validator and a soak.

Rule-by-rule behaviour is in ``tests/nerts/test_nerts_rules.py``; here are the properties that
hold across rules (N4 determinism, N18 rejection, invariants after every step).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from gnome_env.nerts import (
    NertsConfig,
    NertsGame,
    NertsInvariantError,
    StepResult,
    check_invariants,
    check_mask_matches_engine,
)
from gnome_env.nerts.actions import TURN, WAIT, Kind
from gnome_env.nerts.cards import parse_card, parse_cards
from gnome_env.nerts.testing import build_game, joint, stack_deck

PLAYS = (Kind.TO_SLOT, Kind.NEW_FOUNDATION, Kind.TO_WORK, Kind.SLIDE)


def eager_actions(game: NertsGame, rnd: random.Random) -> list[int]:
    """A random policy that prefers plays, then turns; it reaches every kind of ending."""
    out = []
    for seat in range(game.num_players):
        legal = game.legal_actions(seat)
        plays = [a for a in legal if game.table.decode(a).kind in PLAYS]
        if plays and rnd.random() < 0.8:
            out.append(rnd.choice(plays))
        elif TURN in legal and rnd.random() < 0.6:
            out.append(TURN)
        else:
            out.append(rnd.choice(legal))
    return out


def play_hand(game: NertsGame, rnd: random.Random, check: bool = False) -> list[StepResult]:
    results = []
    while not game.hand_over:
        results.append(game.step(eager_actions(game, rnd)))
        if check:
            check_invariants(game, dealt=True)
    return results


# ---------------------------------------------------------------------- API contract
def test_construction_defaults_and_bad_arguments():
    game = NertsGame()
    assert game.config == NertsConfig() and game.seed == 0 and game.num_players == 4
    assert game.n_actions == 397 and game.hand == 0 and game.steps == 0
    for seed in (-1, 2**63, 1.5, True, "1"):
        with pytest.raises(ValueError, match="seed="):
            NertsGame(NertsConfig(), seed=seed)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NertsConfig"):
        NertsGame({"num_players": 3})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seat="):
        game.legal_actions(4)


def test_masks_are_int8_of_n_actions_and_match_legal_actions():
    game = NertsGame(NertsConfig(num_players=3, jokers=1), seed=4)
    masks = game.legal_masks()
    assert masks.shape == (3, 433) and masks.dtype == np.int8
    for seat in range(3):
        mask = game.legal_mask(seat)
        assert mask.dtype == np.int8 and mask.shape == (433,)
        assert np.flatnonzero(mask).tolist() == game.legal_actions(seat)
        assert (masks[seat] == mask).all() and mask[WAIT] == 1


def test_step_result_fields():
    game = NertsGame(NertsConfig(num_players=3), seed=1)
    res = game.step([TURN, WAIT, TURN])
    assert res.step == 0 and res.actions == (TURN, WAIT, TURN)
    assert sorted(res.priority) == [0, 1, 2]
    assert res.done == (True,) * 3 and res.blocked == (False,) * 3
    assert not res.progress and res.progress_by == (False,) * 3
    assert res.called == (False,) * 3 and not res.remedy
    assert not res.hand_over and res.end_reason is None
    assert res.hand_scores == (-26, -26, -26) and res.totals == (0, 0, 0)
    assert not res.game_over and game.last_result is res


def test_rejected_actions_change_nothing():
    game = NertsGame(NertsConfig(num_players=3), seed=2)
    game.step([TURN] * 3)
    before = game.digest()
    masks = game.legal_masks()
    illegal = int(np.flatnonzero(masks[1] == 0)[0])
    with pytest.raises(ValueError, match=f"seat 1: action {illegal}"):
        game.step([WAIT, illegal, WAIT])
    with pytest.raises(ValueError, match="one action per seat"):
        game.step([WAIT, WAIT])
    with pytest.raises(ValueError, match="not an int"):
        game.step([WAIT, WAIT, np.float64(0)])
    assert game.digest() == before and game.steps == 1
    assert (game.legal_masks() == masks).all()
    # and the very next step is the one the game would have played anyway (same pi)
    twin = game.copy()
    assert game.step([WAIT] * 3).priority == twin.step([WAIT] * 3).priority


def test_explain_illegal_names_the_reason():
    game = build_game(
        NertsConfig(),
        seats={0: {"nerts": "5C", "work": ["9S", "TD", "", "KH"], "stock": "", "rest": "nerts"}},
    )
    t = game.table
    assert "auto_call" not in game.explain_illegal(0, 1) and "Nerts pile" in game.explain_illegal(
        0, 1
    )
    assert "stock is empty" in game.explain_illegal(0, TURN)
    assert "onto itself" in game.explain_illegal(0, t.work_move(0, 0, 1))
    assert "holds 1 card" in game.explain_illegal(0, t.work_move(0, 1, 2))
    assert "not a run" in game.explain_illegal(0, t.to_work(0, 0))
    assert "unused" in game.explain_illegal(0, t.to_slot(0, 0))
    assert "not an ace" in game.explain_illegal(0, t.new_foundation(0, 0))
    assert "waste source is empty" in game.explain_illegal(0, t.to_work(1, 0))


# ---------------------------------------------------------------------- N4 determinism
def run_game(seed: int, disturb: bool) -> list[str]:
    cfg = NertsConfig(num_players=3, max_hands=2, max_steps_per_hand=150)
    game = NertsGame(cfg, seed=seed)
    rnd = random.Random(1234)  # the policy's own generator
    noise = random.Random(99)  # only disturbs the global generators
    digests = []
    while not game.game_over:
        if game.hand_over:
            game.next_hand()
        if disturb:  # a global random state must not matter
            random.seed(noise.random())
            np.random.seed(int(noise.random() * 1000))
            random.random()
            np.random.rand(3)
        game.step(eager_actions(game, rnd))
        digests.append(game.digest())
    return digests


def test_n4_same_seed_same_game_whatever_the_global_random_state():
    a = run_game(7, disturb=False)
    b = run_game(7, disturb=True)
    assert a == b and len(a) > 10
    assert run_game(8, disturb=False) != a


def test_n4_deal_differs_by_seat_hand_and_seed():
    g = NertsGame(NertsConfig(num_players=3), seed=0)
    assert g.nerts[0] != g.nerts[1] != g.nerts[2]
    assert NertsGame(NertsConfig(num_players=3), seed=1).nerts[0] != g.nerts[0]


# ---------------------------------------------------------------------- copies and digests
def test_copy_is_independent():
    game = NertsGame(NertsConfig(num_players=2), seed=3)
    twin = game.copy()
    assert twin.digest() == game.digest()
    twin.step([TURN, TURN])
    assert twin.digest() != game.digest()
    assert game.waste == [[], []] and game.steps == 0
    game.step([TURN, TURN])
    assert twin.digest() == game.digest()
    twin.work[0][0].append(99)
    assert 99 not in game.work[0][0]


def test_digest_is_deterministic_and_state_sensitive():
    a = NertsGame(NertsConfig(), seed=5)
    b = NertsGame(NertsConfig(), seed=5)
    assert a.digest() == b.digest() and len(a.digest()) == 16
    b.seen[0] = 1
    assert a.digest() != b.digest()


def test_render_shows_public_state_in_n2_notation():
    game = build_game(
        NertsConfig(num_players=2),
        seats={0: {"nerts": "3C 5H", "work": ["9S 8H", "", "4D", "5D"], "waste": "KS"}},
        foundations=["p1:AH..4H"],
    )
    text = game.render()
    assert "p0: nerts [2] 5H" in text and "9S 8H" in text and "[1] KS" in text
    assert "slot  0 H top  4" in text and "p1:4H" in text
    assert "3C" not in text.split("p0:")[1].split("work")[0]  # face-down card hidden
    assert "3C 5H" in game.render(reveal=True)
    assert "\x1b[31m" in game.render(ansi=True) and "\x1b[" not in text


# ---------------------------------------------------------------------- the validator
def corrupt(change) -> NertsGame:
    game = build_game(
        NertsConfig(num_players=2),
        seats={0: {"nerts": "3C 5H", "work": ["9S 8H", "", "4D", "5D"], "waste": "KS"}},
        foundations=["p1:AH..4H"],
    )
    change(game)
    game._invalidate()
    return game


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda g: g.work[0][2].append(g.work[0][3][0]), "not conserved"),  # a duplicate card
        (lambda g: g.stock[0].pop(), "not conserved"),
        (lambda g: g.stock[1].append(parse_card("5H")), "not conserved"),
        (lambda g: g.work[0][0].append(parse_card("8C")), "not conserved"),
        (lambda g: g.work[0].__setitem__(0, parse_cards("9S 8D")), "not conserved"),
        (lambda g: g.nerts_face_up[0].__setitem__(0, True), "face up"),
        (lambda g: g.slot_top.__setitem__(0, 5), "top rank"),
        (lambda g: g.slot_complete.__setitem__(0, True), "complete"),
        (lambda g: g.slot_suit.__setitem__(1, 2), "beyond the used slots"),
        (lambda g: g.found_count.__setitem__(1, 3), "foundation counts"),
        (lambda g: g.totals.__setitem__(0, 5), "totals"),
        (lambda g: setattr(g, "stall", 60), "stall"),
        (lambda g: g.exhausted.__setitem__(0, True), "exhausted"),
    ],
)
def test_validator_catches_corrupted_states(change, message):
    with pytest.raises(NertsInvariantError, match=message):
        check_invariants(corrupt(change))


def test_validator_catches_a_broken_run_and_bad_slot_order():
    def swap(g: NertsGame) -> None:
        g.work[0][0].reverse()  # 8H 9S: same cards, no run

    with pytest.raises(NertsInvariantError, match="not a run"):
        check_invariants(corrupt(swap))

    def reorder(g: NertsGame) -> None:
        g.slot_cards[0][1], g.slot_cards[0][2] = g.slot_cards[0][2], g.slot_cards[0][1]
        g.slot_declared[0] = list(g.slot_cards[0])

    with pytest.raises(NertsInvariantError, match="built up in suit"):
        check_invariants(corrupt(reorder))


def test_validator_dealt_checks_nerts_size():
    game = build_game(NertsConfig(num_players=2), seats={0: {"stock": "2C", "rest": "nerts"}})
    check_invariants(game)
    with pytest.raises(NertsInvariantError, match="nerts_size"):
        check_invariants(game, dealt=True)


def test_mask_matches_engine_in_varied_positions():
    game = build_game(
        NertsConfig(num_players=3, jokers=1),
        seats={
            0: {"nerts": "5H", "work": ["9S JK", "", "TD 9C", "KH"], "waste": "QS JH"},
            1: {"waste": "5H", "work": ["JK", "QC", "7D", "2S"]},
        },
        foundations=["p2:AH..4H", "p2:AC..QC"],
    )
    check_mask_matches_engine(game)
    rnd = random.Random(3)
    for cfg in (NertsConfig(num_players=2, turn_size=1), NertsConfig(num_players=5, jokers=2)):
        game = NertsGame(cfg, seed=11)
        for _ in range(60):
            game.step(eager_actions(game, rnd))
            if game.hand_over:
                break
        check_mask_matches_engine(game)


# ---------------------------------------------------------------------- hook errors
def test_stacked_decks_and_builder_reject_bad_input():
    cfg = NertsConfig(num_players=2)
    with pytest.raises(ValueError, match="full deck"):
        NertsGame(cfg, stacked_decks={0: {0: ["AS"] * 52}})
    with pytest.raises(ValueError, match="not a seat"):
        NertsGame(cfg, stacked_decks={0: {5: stack_deck(cfg)}})
    with pytest.raises(ValueError, match="used twice"):
        build_game(cfg, seats={0: {"nerts": "5H", "waste": "5H"}})
    with pytest.raises(ValueError, match="unplaced"):
        build_game(cfg, seats={0: {"stock": "5H", "rest": "error"}})
    with pytest.raises(ValueError, match="unknown seat keys"):
        build_game(cfg, seats={0: {"hand": "5H"}})
    with pytest.raises(ValueError, match="owner"):
        build_game(cfg, foundations=["AH"])
    deck = stack_deck(cfg)
    game = NertsGame(cfg, stacked_decks={0: [None, deck]})
    assert game.stock_top_first(1) == [parse_card(t) for t in deck[17:]]


def test_stacked_deck_with_jokers_numbers_them_in_order():
    cfg = NertsConfig(num_players=2, jokers=2)
    deck = stack_deck(cfg, nerts="JK 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC JK")
    game = NertsGame(cfg, stacked_decks={0: {0: deck}})
    assert game.nerts[0][0] == 52 and game.nerts[0][-1] == 53
    check_invariants(game, dealt=True)


def test_joint_fills_waits():
    game = NertsGame(NertsConfig(num_players=3))
    assert joint(game, {1: TURN}) == [WAIT, TURN, WAIT]


# ---------------------------------------------------------------------- soak
def test_random_play_soak_keeps_every_invariant():
    rnd = random.Random(2024)
    reasons: dict[str, int] = {}
    hands = 0
    for g in range(30):
        cfg = NertsConfig(
            players=2 + g % 5,
            jokers=rnd.choice([0, 0, 1, 2]),
            nerts_size=rnd.choice([1, 5, 13, 20]),
            work_piles=rnd.choice([3, 4, 5]),
            slide_under=rnd.random() < 0.7,
            turn_size=rnd.choice([1, 2, 3]),
            foundation_tie=rnd.choice(["priority", "both_keep"]),
            auto_call=rnd.random() < 0.3,
            stall_steps=rnd.choice([1, 8, 60]),
            max_steps_per_hand=rnd.choice([40, 300, 1000]),
            max_hands=1,
        )
        game = NertsGame(cfg, seed=g)
        check_invariants(game, dealt=True)
        results = play_hand(game, rnd, check=True)
        hands += 1
        last = results[-1]
        assert last.hand_over and last.end_reason in ("nerts", "blocked", "cap")
        assert len(results) == game.hand_results[0].steps <= cfg.max_steps_per_hand
        if last.end_reason == "cap":
            assert len(results) == cfg.max_steps_per_hand
        if last.end_reason == "nerts":
            assert any(last.called) or (cfg.auto_call and any(not n for n in game.nerts))
        low, high = cfg.score_range
        assert all(low <= s <= high for s in last.hand_scores)
        assert game.game_over and game.winners()
        for res in results:  # N21: only foundation plays are ever blocked
            for seat, b in enumerate(res.blocked):
                if b:
                    assert game.table.decode(res.actions[seat]).kind == Kind.TO_SLOT
        reasons[last.end_reason] = reasons.get(last.end_reason, 0) + 1
    assert hands == 30 and set(reasons) == {"nerts", "blocked", "cap"}, reasons


def test_waiting_table_ends_blocked_after_remedy_and_stall():
    cfg = NertsConfig(num_players=2, stall_steps=60)
    game = NertsGame(cfg, seed=0)
    results = [game.step([WAIT, WAIT]) for _ in range(120)]
    assert results[59].remedy and not results[59].hand_over
    assert results[119].end_reason == "blocked" and game.hand_results[0].steps == 120


def test_full_game_reaches_game_over_with_totals():
    cfg = NertsConfig(num_players=3, max_hands=3, max_steps_per_hand=200)
    game = NertsGame(cfg, seed=17)
    rnd = random.Random(5)
    while not game.game_over:
        if game.hand_over:
            game.next_hand()
        play_hand(game, rnd)
    assert len(game.hand_results) <= 3
    assert game.totals == [sum(r.scores[i] for r in game.hand_results) for i in range(3)]
    check_invariants(game, dealt=True)
    assert game.winners()


# ---------------------------------------------------------------------- an independent mask
def brute_assignments(pile: list[int]) -> list[tuple[int, int]]:
    """Every (base rank, base colour) that makes ``pile`` a run (N9, N32), by brute force."""
    out = []
    for base in range(1, 14):
        for colour in (0, 1):
            if base - (len(pile) - 1) < 1:
                continue
            if all(
                c >= 52 or (c % 13 + 1 == base - i and (c // 13 in (1, 2)) == (colour ^ (i & 1)))
                for i, c in enumerate(pile)
            ):
                out.append((base, colour))
    return out


def brute_run(pile: list[int]) -> bool:
    return not pile or bool(brute_assignments(pile))


def reference_legal(game: NertsGame, seat: int) -> list[int]:
    """The legal ids of RULES-nerts.md N10-N17, N22, N32, N33 by brute force (no shortcuts)."""
    cfg, t = game.config, game.table
    nerts, waste, stock, work = (
        game.nerts[seat],
        game.waste[seat],
        game.stock[seat],
        game.work[seat],
    )
    out = {WAIT}
    if not nerts and not cfg.auto_call:
        out.add(1)
    if stock:
        out.add(TURN)
    if not stock and waste:
        out.add(3)
    if game.exhausted[seat] and len(stock) >= 2:
        out.add(4)
    sources = [nerts, waste, *work]
    for s, pile in enumerate(sources):
        if not pile:
            continue
        x = pile[-1]
        if x < 52:
            options = {(x % 13 + 1, x // 13)}
        elif s < 2:
            options = {(r, u) for r in range(1, 14) for u in range(4)}
        else:
            top = len(pile) - 1
            options = {
                (b - top, u)
                for b, col in brute_assignments(pile)
                for u in range(4)
                if (u in (1, 2)) == (col ^ (top & 1))
            }
        for f in range(game.slots_used):
            if game.slot_complete[f]:
                continue
            if (game.slot_top[f] + 1, game.slot_suit[f]) in options:
                out.add(t.to_slot(s, f))
        for u in range(4):
            if (1, u) in options:
                out.add(t.new_foundation(s, u))
    for tt, pile in enumerate((nerts, waste)):
        if not pile:
            continue
        for w in range(cfg.work_piles):
            if brute_run(work[w] + [pile[-1]]):
                out.add(t.to_work(tt, w))
            if cfg.slide_under and work[w] and any(not p for p in work):
                if brute_run([pile[-1], *work[w]]):
                    out.add(t.slide(tt, w))
    for w in range(cfg.work_piles):
        for v in range(cfg.work_piles):
            if v == w:
                continue
            for c in range(1, len(work[w]) + 1):
                if brute_run(work[v] + work[w][-c:]):
                    out.add(t.work_move(w, v, c))
    return sorted(out)


def test_mask_equals_a_brute_force_reading_of_the_rules():
    rnd = random.Random(77)
    checked = 0
    for g in range(16):
        cfg = NertsConfig(
            players=2 + g % 3,
            jokers=[0, 1, 2, 2][g % 4],
            work_piles=3 + g % 3,
            slide_under=g % 5 != 0,
            auto_call=g % 7 == 3,
        )
        game = NertsGame(cfg, seed=100 + g)
        for _ in range(150):
            for seat in range(cfg.num_players):
                assert game.legal_actions(seat) == reference_legal(game, seat), game.render(
                    reveal=True
                )
                checked += 1
            game.step(eager_actions(game, rnd))
            if game.hand_over:
                break
    assert checked > 2000


def test_mask_equals_brute_force_with_joker_piles():
    cfg = NertsConfig(num_players=2, jokers=2, work_piles=5)
    positions = [  # at most two jokers per deck
        {"work": ["JK JK", "", "KS", "5C", "QH"], "waste": "JD", "nerts": "2C"},
        {"work": ["JK JK", "", "KS", "5C", "QH"], "waste": "QD", "nerts": "2D"},
        {"work": ["9S JK 7C", "JK", "", "8D", "TD"], "waste": "QD", "nerts": "6H"},
        {"work": ["JK JK 3C", "4D", "5H", "", "2H"], "waste": "2S", "nerts": "AH"},
        {"work": ["JK", "KD", "5H", "4C", "2H"], "waste": "QS", "nerts": "JK"},
        {"work": ["8H", "", "5H", "4C", "TD 9C"], "waste": "JK", "nerts": "JK"},
    ]
    for spec in positions:
        game = build_game(cfg, seats={0: spec}, foundations=["p1:AH..7H", "p1:AC..QC", "p1:AS"])
        assert game.legal_actions(0) == reference_legal(game, 0)
        check_mask_matches_engine(game)
