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
- ``features``: of the remembered cards, only those the memory features of a learned
  policy name (:func:`agents.nerts.memory.memory_features`: the waste top after each seat's
  next three turns and the card under its waste top) stay in place: what a student reading
  those features could know, at most;
- ``cycle``: ``features``, and every remembered card of the seat's own stock and waste (the
  memory features' cycle block, :data:`agents.nerts.memory.CYCLE_FIELDS`, places each of
  them);
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
from _script import run
from nerts_search_pilot import SearchTable, add_search_options, play, report, search_settings

from agents.nerts import memory as M
from agents.nerts import search as S
from gnome_env.core.jit import maybe_njit
from gnome_env.nerts import _kernels as K

KNOWS = ("none", "memory", "own", "stocks", "all", "features", "cycle")
NONE, MEMORY, OWN, STOCKS, ALL, FEATURES, CYCLE = range(len(KNOWS))


@maybe_njit
def named_by_features(g, j, place, turn):
    """Whether hidden ``place`` of row ``g`` holds a card of seat ``j`` that the memory
    features name (if remembered): the waste top after each of the next three turns, or the
    card under the waste top (:func:`agents.nerts.memory.memory_features_rows`)."""
    for k in range(M.FEATURE_CARDS):
        if M.feature_cell(g, j, k, turn) == place:
            return True
    return False


@maybe_njit
def known_cells(g, seen, me, mode, known, places, turn):
    """``known[cell]`` = 1 for every hidden place of row ``g`` whose card ``mode`` lets the
    searching seat ``me`` know (module docstring; ``seen``: the row's waste tops seen), 0
    elsewhere: the search keeps those cards in place and redeals the rest
    (:func:`agents.nerts.search.free_places`), so with nothing known it is the search."""
    for i in range(known.shape[0]):
        known[i] = 0
    for j in range(g[K.C_P]):
        face_down = max(g[K.S_NLEN + j] - 1, 0)  # the first hidden places: the Nerts pile's
        for i in range(S.hidden_places(g, j, places)):
            stock = i >= face_down
            if (mode == ALL or (mode == STOCKS and stock) or (mode == OWN and stock and j == me)
                    or (mode == MEMORY and stock and seen[j, g[places[i]]])
                    or (mode >= FEATURES and stock and seen[j, g[places[i]]]
                        and (named_by_features(g, j, places[i], turn)
                             or (mode == CYCLE and j == me)))):  # fmt: skip
                known[places[i]] = 1


@maybe_njit
def knowing_batch(st, prm, ids, counts, who, keys, samples, horizon, score_weight, margin, z,
                  allow, seen, mode, hid, hid_n, known, det, g, bids, sc, bs, acts, hid_work,
                  places, cands, values, now, sq, out, deviated):  # fmt: skip
    """:func:`agents.nerts.search.search_batch` with what ``mode`` knows
    (:func:`known_cells`) left in place in every sample, and the candidates ``allow``
    allows."""
    for b in range(st.shape[0]):
        base = st[b]
        for s in range(base[K.C_P]):
            if who[b, s] == 0 or counts[b, s] == 0:
                continue
            known_cells(base, seen[b], s, mode, known, places, prm[K.P_TURN])
            S.hidden_from_row(base, hid, hid_n, known, places)
            a, dev, _ = S.search_core(base, prm, s, ids[b, s], counts[b, s], hid, hid_n, known,
                                      keys[b, s], samples, horizon, score_weight, margin, z,
                                      allow, det, g, bids, sc, bs, acts, hid_work, places, cands,
                                      values, now, sq)  # fmt: skip
            out[b, s] = a
            deviated[b, s] = dev


def knowing_table(knows: str) -> type[SearchTable]:
    """A :class:`SearchTable` whose search knows ``knows`` (module docstring)."""
    mode = KNOWS.index(knows)

    class KnowingTable(SearchTable):
        def search(self, who, keys, settings: dict, out: np.ndarray, dev: np.ndarray) -> None:
            b = self.bufs  # (the table keeps the waste tops seen: .seen)
            knowing_batch(self.st, self.prm, self.ids, self.counts, who, keys,
                          settings["samples"], settings["horizon"], settings["score_weight"],
                          settings["margin"], settings["z"], self.allow(settings),
                          self.seen, mode, b.hid, b.hid_n,
                          b.known, *b.tail(), out, dev)  # fmt: skip

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
    run(main)
