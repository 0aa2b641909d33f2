"""The project's own generator (gnome_env.core.rng): known answers, an independent reference,
compiled == uncompiled, unbiasedness, and the streams the engines use.

The known answers pin the first outputs for fixed keys, so that no change of numpy, numba
or Python can move a deal: if one of these fails, the deals of every seed have changed.
"""

from __future__ import annotations

import numpy as np
import pytest

from gnome_env.core import rng
from gnome_env.gnoming import _kernels as kernels
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game, deal_order, reshuffle_order
from gnome_env.gnoming.vector import VectorGame, game_stream

M64 = 2**64 - 1


# ---------------------------------------------------------------- an independent reference
def ref_mix(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
    return z ^ (z >> 31)


def ref_splitmix64(state: int, count: int) -> list[int]:
    """SplitMix64 as published: state += golden; output mix(state)."""
    out = []
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) % 2**64
        out.append(ref_mix(state))
    return out


def ref_key(domain: int, a: int, b: int, c: int) -> int:
    h = ref_mix((domain + 0x9E3779B97F4A7C15) % 2**64)
    for w in (a, b, c):
        h = ref_mix(((h ^ w) + 0x9E3779B97F4A7C15) % 2**64)
    return h


def ref_permutation(n: int, key: int) -> list[int]:
    items = list(range(n))
    words = iter(ref_splitmix64(key, 10 * n + 10))
    for i in range(n - 1, 0, -1):
        bound = i + 1
        while True:
            x = next(words)
            if x < 2**64 - 2**64 % bound:
                break
        j = x % bound
        items[i], items[j] = items[j], items[i]
    return items


# ---------------------------------------------------------------- known answers
def test_word_is_published_splitmix64():
    # SplitMix64 from state 0: the reference outputs of the algorithm's authors' code
    assert [int(rng.word(0, i)) for i in range(3)] == [
        0xE220A8397B1DCDAF,
        0x6E789E6AA1B965F4,
        0x06C45D188009454F,
    ]
    assert [int(rng.word(12345, i)) for i in range(5)] == ref_splitmix64(12345, 5)


def test_known_answers_pin_the_streams():
    assert int(rng.stream_key(rng.DEAL, 0, 0, 0)) == 0xE28195DDD9EE4956
    assert deal_order(0, 0, 10).tolist() == [3, 2, 5, 9, 8, 0, 7, 6, 4, 1]
    assert deal_order(2026, 2, 12).tolist() == KNOWN_DEAL_2026_2
    assert reshuffle_order(7, 1, 3, 8).tolist() == KNOWN_RESHUFFLE_7_1_3
    assert game_stream((5, 0), 0, 5) == KNOWN_GAME_5_0_0
    assert game_stream((2**63 - 1, 6), 9, 3) == KNOWN_GAME_MAX_6_9


# Pinned when the generator was written (and checked against the reference below then).
KNOWN_DEAL_2026_2 = [1, 10, 6, 4, 9, 11, 8, 3, 5, 7, 2, 0]
KNOWN_RESHUFFLE_7_1_3 = [2, 4, 7, 3, 6, 5, 0, 1]
KNOWN_GAME_5_0_0 = (3157146058157960324, 0)
KNOWN_GAME_MAX_6_9 = (3701295745139349083, 0)


def test_the_first_deal_of_seed_0_is_pinned():
    """R3 on the default deck: the top cards of round 0 of Game(seed=0) (pinned)."""
    game = Game(RulesConfig(num_players=3), 0)
    assert [game.layouts[s][:3] for s in range(3)] == KNOWN_LAYOUT_STARTS


KNOWN_LAYOUT_STARTS = [[5, -4, 4], [2, 6, -2], [0, 10, 3]]


# ---------------------------------------------------------------- against the reference
def test_keys_words_and_shuffles_match_the_reference():
    cases = [(0, 0, 0), (1, 2, 3), (2**63 - 1, 11, 7), (2**32, 0, 1), (98765, 2, 0)]
    for domain in (rng.DEAL, rng.RESHUFFLE, rng.GAME):
        for a, b, c in cases:
            key = ref_key(domain, a, b, c)
            assert int(rng.stream_key(domain, a, b, c)) == key
            for n in (0, 1, 2, 10, 52, 110):
                assert rng.permutation(n, domain, a, b, c).tolist() == ref_permutation(n, key)


def test_deal_and_reshuffle_are_the_documented_streams():
    assert deal_order(9, 2, 60).tolist() == ref_permutation(60, ref_key(rng.DEAL, 9, 2, 0))
    assert reshuffle_order(9, 2, 4, 33).tolist() == ref_permutation(
        33, ref_key(rng.RESHUFFLE, 9, 2, 4)
    )
    key = ref_key(rng.GAME, 9, 3, 5)
    seed = ref_splitmix64(key, 1)[0] >> 1
    assert game_stream((9, 3), 5, 1) == (seed, 0)


def test_rejection_draws_again_and_stays_unbiased():
    """below(): a bound of 2**62 + 1 rejects about a quarter of the words; each value returned is
    the first accepted word's remainder, and the counter says how many words were used."""
    n = 2**62 + 1
    key = ref_key(rng.GAME, 1, 2, 3)
    words = ref_splitmix64(key, 200)
    counter = 0
    rejected = 0
    for _ in range(100):
        x, nxt = rng.below(np.uint64(key) if kernels.COMPILED else key, counter, n)
        while words[counter] >= 2**64 - 2**64 % n:
            counter += 1
            rejected += 1
        assert (int(x), int(nxt)) == (words[counter] % n, counter + 1)
        counter += 1
        if counter > 150:
            break
    assert rejected > 5  # the rejection branch really ran


def test_bounded_draws_are_uniform():
    """5 x 30,000 draws below 5 from consecutive keys: chi-square well inside 99.9%."""
    counts = np.zeros(5)
    for k in range(30_000):
        counts[rng.draw_index(5, rng.SEAT, 77, k)] += 1
    chi2 = float(((counts - 6000) ** 2 / 6000).sum())
    assert chi2 < 18.47  # 4 degrees of freedom, p = 0.001


def test_every_position_is_equally_likely_in_a_shuffle():
    """Fisher-Yates: over 12,000 shuffles of 4 items all 24 orders appear about 500 times."""
    seen: dict[tuple[int, ...], int] = {}
    for k in range(12_000):
        order = tuple(rng.permutation(4, rng.DEAL, k, 0, 0).tolist())
        seen[order] = seen.get(order, 0) + 1
    assert len(seen) == 24
    chi2 = sum((c - 500) ** 2 / 500 for c in seen.values())
    assert chi2 < 49.7  # 23 degrees of freedom, p = 0.001


# ---------------------------------------------------------------- one source, two runs
def streams(count: int) -> list:
    """A fingerprint of many outputs (used compiled and uncompiled)."""
    out = []
    for i in range(count):
        out.append(deal_order(i * 977, i % 4, 20 + i % 90).tolist())
        out.append(reshuffle_order(2**62 + i, 1, 1 + i % 3, i % 40).tolist())
        out.append(game_stream((i, i % 7), i, 1 + i % 5))
    return out


def test_uncompiled_generator_gives_the_same_numbers(run_uncompiled):
    expected = streams(60)
    if not kernels.COMPILED:
        return
    assert run_uncompiled("test_rng", "streams(60)") == str(expected)


def test_kernel_deals_are_the_engine_deals():
    canon = np.repeat(np.arange(12, dtype=np.int16), 8)[:96]
    for n in (66, 75, 96):
        cards = np.zeros((3, n), dtype=np.int16)
        for s, r in ((0, 0), (5, 2), (2**63 - 1, 1), (2**40, 0)):
            kernels.deal_into(cards, canon, s, r, n)
            np.testing.assert_array_equal(cards[0], canon[:n][deal_order(s, r, n)])


@pytest.mark.parametrize("choices", [(3,), (3, 4), (3, 4, 5, 6, 7), (5, 7, 4)])
def test_supply_batch_starts_the_next_game_as_game_stream_says(choices):
    vec = VectorGame(RulesConfig(), 6, num_players=list(choices))
    vec.reset(seed=2**40 + 3)
    st = vec._st
    st[:, kernels.C_NEED] = kernels.NEED_NEW_GAME
    vec._paused[:] = np.arange(6)
    vec._supply_shuffles(6)
    for b in range(6):
        game_seed, choice = game_stream((2**40 + 3, b), 1, len(choices))
        n = choices[choice]
        assert vec._seeds[b] == game_seed
        assert vec._episodes[b] == 1
        assert st[b, kernels.C_N] == n
        assert st[b, kernels.C_TURN_CAP] == vec._turn_caps[n]
        np.testing.assert_array_equal(
            vec._stk[b, 0], vec._canon[deal_order(game_seed, 0, vec._deck_size)]
        )


def test_no_numpy_random_in_a_game(monkeypatch):
    """Deals, reshuffles and the vector engine's game streams never call numpy.random."""

    def refuse(*args, **kwargs):
        raise AssertionError("numpy.random was used")

    monkeypatch.setattr(np.random, "default_rng", refuse)
    monkeypatch.setattr(np.random, "SeedSequence", refuse)
    small = {"1": 6, "2": 6, "3": 6, "4": 6, "-1": 3, "M": 3, "H": 3, "5": 33}  # 66 cards
    config = RulesConfig.from_dict({"deck": small, "rounds": 2})
    game = Game(config, 4)
    reshuffles = 0
    while not game.game_over:
        legal = game.legal_actions()  # draw and discard: the draw pile runs out
        game.step(next((a for a in (A.DRAW, A.DISCARD_A) if a in legal), legal[0]))
        reshuffles = max(reshuffles, game.reshuffles)
    assert reshuffles > 0  # R8 happened, without numpy.random
    vec = VectorGame(config, 4, num_players=[3, 7])
    decision = vec.reset(seed=3)
    for _ in range(3000):
        mask = decision.mask
        actions = np.where(mask[:, A.DRAW], A.DRAW, np.argmax(mask, axis=1))
        decision = vec.step(np.where(mask[:, A.DISCARD_A], A.DISCARD_A, actions))
    assert vec.episodes.sum() > 0  # auto-resets drew new games


def test_a_notice_before_the_first_numba_compile_and_only_then(tmp_path, monkeypatch, capsys):
    # issue #15: the first use compiles for a while; one line says so, once per process,
    # and nothing is printed when the module's compiled code is already cached
    from gnome_env.core import jit as _jit

    if not _jit.COMPILED:
        pytest.skip("without numba nothing is compiled")
    module = tmp_path / "kern.py"
    module.write_text("")
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(_jit, "_NOTICE_GIVEN", False)
    _jit.compile_notice(str(module))
    _jit.compile_notice(str(module))
    err = capsys.readouterr().err
    assert err.count("compiling the numba kernels on first use") == 1
    monkeypatch.setattr(_jit, "_NOTICE_GIVEN", False)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "kern.step-12.py311.nbi").write_bytes(b"")
    _jit.compile_notice(str(module))
    assert capsys.readouterr().err == ""


def test_reset_seeds_seeded_stream_then_unseeded_episodes():
    from gnome_env.core.rng import ResetSeeds, game_stream

    seeds = ResetSeeds()
    assert seeds.next(7) == (7, 0)
    assert seeds.next(None) == (7, 1)
    assert seeds.next(None) == (7, 2)
    assert seeds.next(3) == (3, 0)
    other = ResetSeeds()
    assert other.game_seed(11) == 11
    assert other.game_seed(None) == int(game_stream(11, 0, 1, 1)[0]) != 11
    fresh = ResetSeeds()
    stream, episode = fresh.next(None)  # no seed ever: the operating system's
    assert episode == 0 and 0 <= stream < 2**63
    for bad in (-1, 2**63, 1.5, "3", True):
        with pytest.raises(ValueError, match="seed="):
            ResetSeeds().next(bad)
