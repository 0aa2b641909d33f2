"""The project's own random numbers: one small counter-based generator, keyed by the game.

Every random choice of a game -- a round's deal (R3), each reshuffle (R8) and, in the
environments, the seed and seat count of the next game -- is a pure function of a *key*
and a *counter*. Nothing here keeps state, and neither ``numpy.random`` nor ``random`` is
used, so no library upgrade can move a deal: ``tests/core/test_rng.py`` pins the first outputs
for fixed keys (known answers).

The generator (all arithmetic modulo 2**64)
-------------------------------------------
* ``mix64(z)``: the SplitMix64 output function (Steele, Lea and Flood, 2014; the
  constants of Stafford's "variant 13")::

      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
      z = (z ^ (z >> 27)) * 0x94D049BB133111EB
      return z ^ (z >> 31)

* a key from a *domain* (what the numbers are for) and three non-negative ints ``a, b, c``
  (e.g. seed, round, reshuffle number)::

      h = mix64(domain + G)            # G = 0x9E3779B97F4A7C15, the golden-ratio increment
      for w in (a, b, c): h = mix64((h ^ w) + G)

* output ``i`` (``i = 0, 1, 2, ...``) of a key: ``word(key, i) = mix64(key + (i + 1) * G)``
  -- exactly the ``i``-th output of SplitMix64 started at state ``key``;
* an unbiased draw below ``n``: take words from the counter on and return the first
  ``x % n`` whose ``x <= 2**64 - 1 - (2**64 % n)`` (rejection; the chance of even one
  rejection is below ``n / 2**64``). It returns the value and the next counter;
* a shuffle of ``m`` items: Fisher-Yates from the end -- for ``i = m - 1, ..., 1``, draw
  ``j`` below ``i + 1`` (counter starting at 0) and swap items ``i`` and ``j``.

Streams of the game
-------------------
======================  ======================================  ================================
domain                  key ``(a, b, c)``                       use
======================  ======================================  ================================
``DEAL`` (1)            (game seed, round, 0)                   R3: :func:`deal_order`
``RESHUFFLE`` (2)       (game seed, round, k)                   R8: :func:`reshuffle_order`
``GAME`` (3)            (stream seed, slot, episode)            :func:`game_stream`
``SEAT`` (4)            (game seed, 0, 0)                       the Gymnasium env's random
                                                                learner seat and opponents
``ARENA`` (5)           (arena seed, deal, 0) /                 :mod:`agents.gnoming.arena` deal
seeds
                        (agent seed, rotation, entry)
``NERTS_DEAL`` (6)      (game seed, hand, seat)                 Nerts N4/N5: one seat's deck
                                                                shuffle for one hand
``NERTS_PRIORITY`` (7)  (game seed, hand, step)                 Nerts N4/N20: the priority order
                                                                pi of one step of a hand
``GINNY_FIRST`` (8)     (game seed, 0, 0)                       Ginny-O G12: the first player
``GINNY_DRAW`` (9)      (game seed, draw number, 0)             Ginny-O G4: which box tile the
                                                                game's n-th draw takes
``LUCK_SAMPLE`` (10)    (game seed, round, sample)              the arena's luck correction:
                                                                one sampled R16 reveal
                                                                (:mod:`agents.gnoming.luck`)
======================  ======================================  ================================

The same source serves both engines: the functions below are plain Python that numba
compiles (:func:`gnome_env.core.jit.maybe_njit`) -- the scalar
:class:`~gnome_env.gnoming.engine.Game`
and the kernels call the very same compiled functions, and with ``GNOME_NO_NUMBA=1`` both
run them as plain Python, where Python ints masked to 64 bits give the same numbers
(tested). Keys never cross into Python: the compiled entry points take ``(domain, a, b,
c)`` and return values below ``2**63`` or ``2**64`` as Python ints.
"""

from __future__ import annotations

import numpy as np

from gnome_env.core.jit import COMPILED, maybe_njit

#: Seeds are below this (63 bits), so that they fit numpy's and numba's int64.
MAX_SEED = 2**63
MASK64 = 0xFFFFFFFFFFFFFFFF
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

DEAL = 1
RESHUFFLE = 2
GAME = 3
SEAT = 4
ARENA = 5
NERTS_DEAL = 6  # Nerts (gnome_env.nerts): one seat's deck, N4/N5
NERTS_PRIORITY = 7  # Nerts: one step's priority permutation, N4/N20
GINNY_FIRST = 8  # Ginny-O (gnome_env.ginny_o): the first player, G12
GINNY_DRAW = 9  # Ginny-O: the box position of one draw, G4
LUCK_SAMPLE = 10  # the arena's luck correction: one sampled end-of-round reveal (R16)
NERTS_SEARCH = 11  # the Nerts search bot (agents.nerts.search): sampled hidden cards, priorities

# Compiled, the arithmetic is on numba's uint64 (wrapping); as plain Python, on ints
# masked to 64 bits. ``_U`` converts to that type, ``_I`` back to an index.
_U = np.uint64 if COMPILED else int
_I = np.int64 if COMPILED else int


@maybe_njit
def mix64(z):
    """SplitMix64's output function of a 64-bit value."""
    z = _U(z) & _U(MASK64)
    z = ((z ^ (z >> _U(30))) * _U(MIX1)) & _U(MASK64)
    z = ((z ^ (z >> _U(27))) * _U(MIX2)) & _U(MASK64)
    return z ^ (z >> _U(31))


@maybe_njit
def stream_key(domain, a, b, c):
    """The key of the stream ``domain`` for ``(a, b, c)`` (each below ``2**64``)."""
    h = mix64((_U(domain) + _U(GOLDEN)) & _U(MASK64))
    h = mix64(((h ^ (_U(a) & _U(MASK64))) + _U(GOLDEN)) & _U(MASK64))
    h = mix64(((h ^ (_U(b) & _U(MASK64))) + _U(GOLDEN)) & _U(MASK64))
    return mix64(((h ^ (_U(c) & _U(MASK64))) + _U(GOLDEN)) & _U(MASK64))


@maybe_njit
def word(key, i):
    """Output ``i`` of the stream ``key``: SplitMix64's ``i``-th output from state ``key``."""
    return mix64((_U(key) + _U(GOLDEN) * (_U(i) + _U(1))) & _U(MASK64))


@maybe_njit
def below(key, counter, n):
    """``(x, next counter)``: ``x`` uniform in ``0 .. n - 1`` (``1 <= n < 2**63``), unbiased, from
    the words of ``key`` at ``counter``, ``counter + 1``, ... (see the module docstring)."""
    un = _U(n)
    top = _U(MASK64) - ((_U(MASK64) % un) + _U(1)) % un
    while True:
        x = word(key, counter)
        counter += 1
        if x <= top:
            return _I(x % un), counter


@maybe_njit
def shuffle_key(row, m, key):
    """Fisher-Yates shuffle of ``row[:m]`` in place from the stream ``key``."""
    counter = 0
    for i in range(m - 1, 0, -1):
        j, counter = below(key, counter, i + 1)
        tmp = row[i]
        row[i] = row[j]
        row[j] = tmp


@maybe_njit
def shuffle(row, m, domain, a, b, c):
    """Shuffle ``row[:m]`` in place with the stream ``(domain, a, b, c)``."""
    shuffle_key(row, m, stream_key(domain, a, b, c))


@maybe_njit
def draw_word(domain, a, b, c, i):
    """Output ``i`` of the stream ``(domain, a, b, c)`` shifted to 63 bits (a valid seed)."""
    return _I(word(stream_key(domain, a, b, c), i) >> _U(1))


@maybe_njit
def draw_below(domain, a, b, c, counter, n):
    """:func:`below` on the stream ``(domain, a, b, c)``: ``(x, next counter)``."""
    return below(stream_key(domain, a, b, c), counter, n)


@maybe_njit
def game_stream(a, b, episode, num_choices):
    """``(game seed, choice)`` of game ``episode`` of the stream ``(a, b)``: the seed is
    output 0 of ``(GAME, a, b, episode)`` shifted to 63 bits, the choice (of a seat count,
    ``0 .. num_choices - 1``) the unbiased draw from output 1 on."""
    key = stream_key(GAME, a, b, episode)
    seed = _I(word(key, 0) >> _U(1))
    choice, _ = below(key, 1, num_choices)
    return seed, choice


def permutation(n: int, domain: int, a: int, b: int, c: int) -> np.ndarray:
    """``arange(n)`` shuffled by the stream ``(domain, a, b, c)`` (int64)."""
    row = np.arange(n, dtype=np.int64)
    shuffle(row, n, domain, a, b, c)
    return row


def deal_order(seed: int, round_index: int, deck_size: int) -> np.ndarray:
    """R3: the shuffle of round ``round_index``'s deck of game ``seed``.

    Round ``r``'s deck, top card first, is ``[cards[i] for i in deal_order(seed, r, n)]``
    where ``cards = config.deck.cards()`` (the canonical order) and ``n = len(cards)``.
    """
    return permutation(deck_size, DEAL, seed, round_index, 0)


def reshuffle_order(seed: int, round_index: int, k: int, num_cards: int) -> np.ndarray:
    """R8: the shuffle of the ``k``-th reshuffle (1, 2, ...) of round ``round_index``.

    The new draw pile (bottom card first, top card last) is ``[cards[i] for i in order]``
    where ``cards`` are the reshuffled discards in pile order: pile A's cards under its top,
    bottom first, then pile B's.
    """
    return permutation(num_cards, RESHUFFLE, seed, round_index, k)


def derive_seed(domain: int, a: int, b: int = 0, c: int = 0, i: int = 0) -> int:
    """A non-negative 63-bit int from output ``i`` of the stream ``(domain, a, b, c)``."""
    return int(draw_word(domain, a, b, c, i))


def draw_index(n: int, domain: int, a: int, b: int = 0, c: int = 0, counter: int = 0) -> int:
    """An unbiased draw in ``0 .. n - 1`` from the stream ``(domain, a, b, c)``."""
    return int(draw_below(domain, a, b, c, counter, n)[0])


def entropy_seed() -> int:
    """A fresh 63-bit seed from the operating system (for unseeded resets)."""
    import os

    return int.from_bytes(os.urandom(8), "little") >> 1


class ResetSeeds:
    """The seed stream behind an environment's resets (the "Seeding" of every env manual).

    ``next(seed)``: a reset with a seed starts the stream ``seed`` at episode 0; an unseeded
    reset goes on to the next episode of the current stream, or, if no stream was ever
    started, starts one from the operating system (:func:`entropy_seed`). Returns
    ``(stream, episode)``; each env turns that into its game with :func:`game_stream` (or
    :meth:`game_seed`). A seed that is not an int in ``0 .. MAX_SEED - 1`` raises
    ``ValueError``.
    """

    def __init__(self) -> None:
        self.stream: int | None = None
        self.episode = 0

    def next(self, seed: object | None) -> tuple[int, int]:
        if seed is not None:
            if (
                isinstance(seed, (bool, np.bool_))
                or not isinstance(seed, (int, np.integer))
                or not 0 <= seed < MAX_SEED
            ):
                raise ValueError(
                    f"seed={seed!r} is not allowed: must be an integer from 0 to {MAX_SEED - 1}"
                )
            self.stream, self.episode = int(seed), 0
        elif self.stream is None:
            self.stream, self.episode = entropy_seed(), 0
        else:
            self.episode += 1
        return self.stream, self.episode

    def game_seed(self, seed: object | None) -> int:
        """:meth:`next`, then the game seed of Nerts and Ginny-O: the stream itself for
        episode 0, else output 0 of ``game_stream(stream, 0, episode, 1)``."""
        stream, episode = self.next(seed)
        return stream if episode == 0 else int(game_stream(stream, 0, episode, 1)[0])
