"""Observation encoding: exact blocks for a scripted position, perspective, batching, docs."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from gnome_env.gnoming import Game, RulesConfig, gnoming_a_round_v1, gym_env
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, MULLIGAN
from gnome_env.gnoming.encoding import FACE_DOWN, FIRST_KIND, NONE, ObservationEncoder
from gnome_env.gnoming.testing import stack_deck

CFG = RulesConfig(num_players=3)
ENC = ObservationEncoder(CFG)
KINDS = list(CFG.deck.kinds)  # -4..-1, M, 1..12, H
CATS = FIRST_KIND + len(KINDS)


def cat(code: int) -> int:
    return FIRST_KIND + KINDS.index(code)


def layout_categories(obs: np.ndarray, rel_seat: int) -> list[int]:
    block = obs[ENC.slices["layouts"]].reshape(7, 9, CATS)
    assert (block.sum(axis=2) == 1).all(), "every layout slot is exactly one-hot"
    return block[rel_seat].argmax(axis=1).tolist()


@pytest.fixture
def flipped_game() -> Game:
    # Seat 0: 5 5 M / 1 2 7 / 3 4 7, seat 1: H 9 9 / ..., piles A=8, B=-2, draw pile top 6.
    deck = stack_deck(
        CFG,
        layouts=["5 5 M / 1 2 7 / 3 4 7", "H 9 9 / 1 2 3 / 4 5 6", "-1 -1 -1 / 10 10 10 / 2 3 4"],
        top=["8", "-2", "6"],
    )
    game = Game(CFG, seed=0, stacked_decks={0: deck})
    for pos in (2, 0, 0, 1, 4, 5):  # seat 0 flips M and 5, seat 1 H and 9, seat 2 10 and 10
        game.step(A.FLIP + pos)
    return game


def test_layout_blocks_show_face_up_kinds_face_down_and_absent_seats(flipped_game):
    obs = ENC.encode(flipped_game, 0)
    d = FACE_DOWN
    assert layout_categories(obs, 0) == [cat(5), d, cat(MULLIGAN), d, d, d, d, d, d]
    assert layout_categories(obs, 1) == [cat(HAZARD), cat(9), d, d, d, d, d, d, d]
    assert layout_categories(obs, 2) == [d, d, d, d, cat(10), cat(10), d, d, d]
    for rel in range(3, 7):
        assert layout_categories(obs, rel) == [NONE] * 9
    assert obs[ENC.slices["present"]].tolist() == [1, 1, 1, 0, 0, 0, 0]


def test_observation_is_seen_from_the_observer_in_turn_order(flipped_game):
    obs = ENC.encode(flipped_game, 2)
    assert layout_categories(obs, 0)[4] == cat(10)  # seat 2 first
    assert layout_categories(obs, 1)[0] == cat(5)  # then seat 0
    assert layout_categories(obs, 2)[0] == cat(HAZARD)  # then seat 1
    turn = obs[ENC.slices["turn_player"]]
    assert turn.tolist() == [0, 1, 0, 0, 0, 0, 0]  # seat 0's turn is one seat after seat 2


def test_piles_hand_phase_and_unseen_counts(flipped_game):
    game = flipped_game
    game.step(A.DRAW)  # seat 0 draws the 6
    obs = ENC.encode(game, 0)
    tops = obs[ENC.slices["pile_tops"]].reshape(2, CATS).argmax(axis=1).tolist()
    assert tops == [cat(8), cat(-2)]
    assert obs[ENC.slices["pile_sizes"]].tolist() == pytest.approx([1 / 110, 1 / 110])
    assert obs[ENC.slices["hand"]].argmax() == cat(6)
    assert obs[ENC.slices["hand_source"]].argmax() == 1  # the draw pile
    assert obs[ENC.slices["phase"]].argmax() == 2  # PLACE
    assert obs[ENC.slices["draw_pile_size"]][0] == pytest.approx((110 - 27 - 2 - 1) / 110)
    # Seen: 5, M, H, 9, 10, 10 face up; 8 and -2 on the piles; the 6 in hand.
    unseen = obs[ENC.slices["unseen"]] * np.array([c for _, c in CFG.deck.counts])
    seen = {5: 1, MULLIGAN: 1, HAZARD: 1, 9: 1, 10: 2, 8: 1, -2: 1, 6: 1}
    expected = [copies - seen.get(code, 0) for code, copies in CFG.deck.counts]
    assert np.rint(unseen).astype(int).tolist() == expected


def test_tokens_stay_inside_their_categories_and_batch_expansion_matches():
    game = Game(RulesConfig(num_players=7), 3)
    rng = random.Random(0)
    enc = ObservationEncoder(game.config)
    batch = []
    while not game.game_over and len(batch) < 300:
        tokens = enc.tokens(game, game.current_seat)
        cats = enc.categories
        assert ((cats == 0) | (tokens < np.maximum(cats, 1))).all()
        assert (tokens >= 0)[cats > 0].all()
        batch.append(tokens)
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])
    batch = np.stack(batch)
    expanded = enc.expand(batch)
    assert expanded.shape == (len(batch), enc.size)
    for i in (0, 57, len(batch) - 1):
        assert np.array_equal(expanded[i], enc.expand(batch[i]))


def test_module_docstring_slice_table_matches_the_encoder():
    doc = gnoming_a_round_v1.__doc__
    rows = re.findall(r"^\[(\d+), (\d+)\)\s+(\w+)", doc, flags=re.M)
    starts = [(int(a), int(b)) for a, b, _ in rows]
    assert starts == [(s.start, s.stop) for s in ENC.slices.values()]
    assert f"({ENC.size},) float32" in doc
    assert f"({ObservationEncoder(CFG, reveal=True).size},) float32" in doc
    assert f"``Box`` ({ENC.size},) float32" in gym_env.__doc__


@pytest.mark.parametrize("num_players", [3, 7])
def test_decode_recovers_the_tokens_exactly(num_players):
    config = RulesConfig(num_players=num_players, max_turns_per_round=37, rounds=4)
    enc = ObservationEncoder(config)
    game = Game(config, 5)
    rng = random.Random(1)
    while not game.game_over:
        seat = game.current_seat
        tokens = enc.tokens(game, seat)
        assert np.array_equal(enc.decode(enc.expand(tokens)), tokens)
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])
