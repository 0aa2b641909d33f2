"""The kernels' re-expression of numpy's shuffles (gnome_env._kernels) against numpy.

engine.deal_order / reshuffle_order (``default_rng(entropy).permutation(n)``) and
vector.game_stream (``SeedSequence(entropy).generate_state(2, uint64)``) are the reference;
the kernels must reproduce them bit for bit, compiled and uncompiled (GNOME_NO_NUMBA=1).
"""

from __future__ import annotations

import numpy as np
import pytest

from gnome_env import _kernels as kernels
from gnome_env.engine import deal_order, reshuffle_order
from gnome_env.vector import game_stream

# Seeds where the entropy words change: 0 (one word), 2**32 - 1 (the last one-word int),
# 2**32 (two words, low word 0), and the largest seed.
EDGE_SEEDS = (0, 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1)


def cases(count: int, seed: int = 0):
    """``count`` random (seed, round, k, n, key1, episode) tuples, edge seeds included."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        if i < len(EDGE_SEEDS):
            s = EDGE_SEEDS[i]
        elif i % 3 == 0:
            s = int(rng.integers(0, 2**32))
        else:
            s = int(rng.integers(0, 2**63))
        yield (
            s,
            int(rng.integers(0, 12)),
            int(rng.integers(1, 8)),
            int(rng.integers(0, 201)),
            int(rng.integers(0, 5000)),
            int(rng.integers(0, 10_000)),
        )


def mismatches(count: int, seed: int = 0) -> list[tuple]:
    """The cases where the kernels differ from numpy (empty when they agree)."""
    bad = []
    for s, r, k, n, key1, e in cases(count, seed):
        row = np.arange(n, dtype=np.int64)
        kernels.shuffle_row(row, n, s, r, 0, 2)
        if not np.array_equal(row, deal_order(s, r, n)):
            bad.append(("deal", s, r, n))
        row = np.arange(n, dtype=np.int64)
        kernels.shuffle_row(row, n, s, r, k, 3)
        if not np.array_equal(row, reshuffle_order(s, r, k, n)):
            bad.append(("reshuffle", s, r, k, n))
        game_seed, word = game_stream((s, key1), e)
        got, lo, hi = kernels.game_stream_words(s, key1, e)
        if (got, (hi << 32) | lo) != (game_seed, word):
            bad.append(("stream", s, key1, e))
    return bad


def test_entropy_words_split_ints_as_numpy_does():
    # 0 is one word; an int below 2**32 one word; larger ints little-endian words
    assert kernels.entropy_words(0, 0, 0, 2) == 2
    assert [kernels.entropy_word(2**32 + 5, 7, 0, 2, i) for i in range(4)] == [5, 1, 7, -1]
    assert kernels.entropy_words(2**32 + 5, 7, 0, 2) == 3


def test_kernels_reproduce_numpy_shuffles_and_game_streams():
    assert mismatches(3000) == []


def test_deck_sized_deals_write_the_canonical_deck_shuffled():
    canon = np.repeat(np.arange(12, dtype=np.int16), 8)[:96]
    for n in (66, 75, 96):
        cards = np.zeros((3, n), dtype=np.int16)
        for s, r, *_ in cases(200, seed=n):
            kernels.deal_into(cards, canon, s, r, n)
            np.testing.assert_array_equal(cards[0], canon[:n][deal_order(s, r, n)])


def test_reshuffle_of_a_card_row_is_the_engine_reshuffle():
    rng = np.random.default_rng(3)
    for s, r, k, *_ in cases(300, seed=4):
        m = int(rng.integers(0, 40))
        row = rng.integers(0, 12, size=60).astype(np.int16)
        expected = row.copy()
        expected[:m] = row[:m][reshuffle_order(s, r, k, m)]
        kernels.shuffle_row(row, m, s, r, k, 3)
        np.testing.assert_array_equal(row, expected)


def test_uncompiled_kernels_reproduce_numpy_too(run_uncompiled):
    if not kernels.COMPILED:
        assert mismatches(300, seed=1) == []
        return
    assert run_uncompiled("test_shuffle_kernel", "mismatches(300, seed=1)") == "[]"


@pytest.mark.parametrize("choices", [(3,), (3, 4), (3, 4, 5, 6, 7), (5, 7, 4)])
def test_supply_batch_starts_the_next_game_as_game_stream_says(choices):
    from gnome_env.config import RulesConfig
    from gnome_env.vector import VectorGame

    vec = VectorGame(RulesConfig(), 6, num_players=list(choices))
    vec.reset(seed=2**40 + 3)
    st = vec._st
    st[:, kernels.C_NEED] = kernels.NEED_NEW_GAME
    vec._paused[:] = np.arange(6)
    vec._supply_shuffles(6)
    for b in range(6):
        game_seed, word = game_stream((2**40 + 3, b), 1)
        n = choices[word % len(choices)]
        assert vec._seeds[b] == game_seed
        assert vec._episodes[b] == 1
        assert st[b, kernels.C_N] == n
        assert st[b, kernels.C_TURN_CAP] == vec._turn_caps[n]
        np.testing.assert_array_equal(
            vec._stk[b, 0], vec._canon[deal_order(game_seed, 0, vec._deck_size)]
        )
