"""What the Nerts search would gain from knowing more of the hidden cards (N35): the search in
one seat against n-1 compiled experts (the pilot's table), each sample redealing only what
``--knows`` leaves unknown.

    python bench/nerts_search_knowledge.py --players 4 --games 1000 --seed 31 \
        --knows memory --z 2 --margin 0.1

``--knows``:

- ``none``: every hidden card is redealt, as the search does (the same samples: this is the
  pilot's search exactly, tested);
- ``memory``: every card that has been a waste top earlier in the hand stays where it is and
  the rest are redealt. That is knowledge a seat may have: a player learns their own stock
  order by remembering waste tops (N35), every waste top is public (N34), and where a
  remembered card is now follows from public moves (N15-N17, N26). It is the pilot's search
  with ``--memory`` exactly (tested), and the bot ``search:memory=1``
  (:mod:`agents.nerts.memory`);
- ``own``: the seat's own stock and waste (more than memory gives: an upper bound);
- ``stocks``: every seat's stock and waste; only the face-down Nerts cards are redealt (an
  upper bound, not a seat's knowledge);
- ``all``: nothing is redealt, every sample is the true deal (with ``--samples 1``, the
  values of :mod:`training.nerts.oracle`, tested).

Only ``none`` and ``memory`` are players a seat could be; the others measure what the rest of
the hidden cards are worth. Prints the win share with a 95% interval, as the pilot does;
``--seed`` picks the deals, so rows run with one seed meet the same deals.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
from nerts_search_pilot import SearchTable, add_search_options, play, report, search_settings

from agents.nerts import search as S
from gnome_env.core import rng as grng
from gnome_env.core.jit import maybe_njit
from gnome_env.nerts import _kernels as K

KNOWS = ("none", "memory", "own", "stocks", "all")
NONE, MEMORY, OWN, STOCKS, ALL = range(len(KNOWS))


@maybe_njit
def _redeal(det, base, me, key, sample, seen, mode, places, row, unknown):
    """``det`` = ``base`` with each seat's hidden cards that ``mode`` does not know redealt
    among their places: sorted, then shuffled with the search's stream (SEARCH, key, sample,
    seat), so that with nothing known this is the search's own sample."""
    for i in range(base.shape[0]):
        det[i] = base[i]
    for j in range(base[K.C_P]):
        n = S.hidden_places(det, j, places)
        face_down = max(det[K.S_NLEN + j] - 1, 0)  # the first places: the Nerts pile's
        m = 0
        for i in range(n):
            c = det[places[i]]
            stock = i >= face_down
            known = (mode == ALL or (mode == STOCKS and stock)
                     or (mode == OWN and stock and j == me)
                     or (mode == MEMORY and stock and seen[j, c]))  # fmt: skip
            if not known:
                row[m] = c
                unknown[m] = places[i]
                m += 1
        for i in range(1, m):  # insertion sort, as hidden_from_row
            x = row[i]
            k = i - 1
            while k >= 0 and row[k] > x:
                row[k + 1] = row[k]
                k -= 1
            row[k + 1] = x
        grng.shuffle(row, m, S.SEARCH, key, sample, j)
        for i in range(m):
            det[unknown[i]] = row[i]


@maybe_njit
def known_values(base, prm, me, cands, nc, samples, horizon, key, score_weight, seen, mode, det,
                 g, ids, sc, bs, acts, places, row, unknown, out, now, sq):  # fmt: skip
    """:func:`agents.nerts.search.search_values` with the samples of :func:`_redeal`."""
    for c in range(nc):
        out[c] = 0.0
        sq[c] = 0.0
    for i in range(samples):
        _redeal(det, base, me, key, i, seen, mode, places, row, unknown)
        S.add_sample(det, prm, me, cands, nc, horizon, key, i, score_weight, g, ids, sc, bs,
                     acts, out, now, sq)  # fmt: skip
    for c in range(nc):
        out[c] /= samples
        sq[c] /= samples


@maybe_njit
def knowing_batch(st, prm, ids, counts, who, keys, samples, horizon, score_weight, margin, z,
                  seen, mode, det, g, bids, sc, bs, acts, places, row, unknown, cands, values,
                  now, sq, out, deviated):  # fmt: skip
    """:func:`agents.nerts.search.search_batch` with the samples of :func:`_redeal`."""
    for b in range(st.shape[0]):
        base = st[b]
        for s in range(base[K.C_P]):
            n = counts[b, s]
            if who[b, s] == 0 or n == 0:
                continue
            deviated[b, s] = 0
            if n == 1:
                out[b, s] = ids[b, s, 0]
                continue
            nc = S.candidates(base, prm, s, ids[b, s], n, sc, bs, cands)
            out[b, s] = cands[0]
            if nc == 1:
                continue
            known_values(base, prm, s, cands, nc, samples, horizon, keys[b, s], score_weight,
                         seen[b], mode, det, g, bids, sc, bs, acts, places, row, unknown,
                         values, now, sq)  # fmt: skip
            best = 0
            for c in range(1, nc):
                if values[c] > values[best]:
                    best = c
            if best != 0 and S.clear_gain(values, sq, best, samples, margin, z):
                out[b, s] = cands[best]
                deviated[b, s] = 1


def knowing_table(knows: str) -> type[SearchTable]:
    """A :class:`SearchTable` whose search knows ``knows`` (module docstring)."""
    mode = KNOWS.index(knows)

    class KnowingTable(SearchTable):
        def __init__(self, players: int, envs: int, seed: int) -> None:
            super().__init__(players, envs, seed)  # (it keeps the waste tops seen: .seen)
            self.row = np.zeros(K.MAX_DECK, np.int32)
            self.unknown = np.zeros(K.MAX_DECK, np.int64)

        def search(self, who, keys, settings: dict, out: np.ndarray, dev: np.ndarray) -> None:
            b = self.bufs
            knowing_batch(self.st, self.prm, self.ids, self.counts, who, keys,
                          settings["samples"], settings["horizon"], settings["score_weight"],
                          settings["margin"], settings["z"], self.seen, mode, b.det, b.g, b.ids,
                          b.sc, b.bs, b.acts, b.places, self.row, self.unknown, b.cands,
                          b.values, b.now, b.sq, out, dev)  # fmt: skip

    return KnowingTable


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4, choices=range(2, 7))
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=31, help="the engine seed of the deals")
    p.add_argument("--envs", type=int, default=250, help="games stepped together")
    p.add_argument("--knows", choices=KNOWS, default="memory", help="what the search knows")
    add_search_options(p)
    args = p.parse_args(argv)
    if min(args.games, args.envs) < 1 or not 0 <= args.seed < 2**62:
        p.error("--games and --envs must be at least 1, --seed in 0..2**62-1")
    settings = search_settings(p, args)
    start = time.perf_counter()
    shares, decisions, deviations = play(
        args.players, args.games, args.seed, args.envs, settings, knowing_table(args.knows)
    )
    print(report(args.players, args.seed, f", knows {args.knows}", shares, decisions,
                 deviations, time.perf_counter() - start))  # fmt: skip
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("interrupted")
