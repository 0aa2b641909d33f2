"""Training labels from the true deal: every search candidate played on in the real game.

For training only -- this reads every seat's hidden cards, so it is never a bot. At seat 0 of
each batched-engine row it takes the search's candidates (:func:`agents.nerts.search.
candidates`: the expert's move first) and plays the hand on from a copy of the row *as it
is* (the true face-down Nerts cards and stock orders): the seat plays the candidate, then
every seat the compiled expert, for ``horizon`` steps or to the end of the hand, valued as
the search values a playout (win share plus ``score_weight`` times the score lead). Every
candidate meets the same deal and the same N20 priority stream, so the differences are
paired.

One such playout is one draw from the real distribution of what the seat cannot see given
what it sees -- the other seats' play included, which the search's uniform samples ignore --
so a candidate's value minus the expert move's is an unbiased estimate of the one-step gain
of leaving the expert's move there, conditioned on the seat's observation. Each label is
very noisy (one deal); a student that regresses on millions of them averages the noise out
over positions that look alike (``python -m training.nerts.distill --teacher oracle``).
"""

from __future__ import annotations

import numpy as np

from agents.nerts import _bot_kernels as BK
from agents.nerts.search import EVERY_CANDIDATE, add_sample, candidates
from gnome_env.core.jit import maybe_njit
from gnome_env.nerts import _kernels as K


@maybe_njit
def oracle_batch(st, prm, ids, counts, keys, horizon, score_weight, g, buf_ids, sc, bs, acts,
                 cands, values, now, sq, qv):  # fmt: skip
    """``qv[b, a]``: seat 0's playout value of candidate ``a`` in row ``b`` from the true
    deal (NaN for every other action; all NaN where seat 0 has fewer than two candidates);
    the priority stream of row ``b``'s playouts is keyed by ``keys[b]``."""
    for b in range(st.shape[0]):
        for x in range(qv.shape[1]):
            qv[b, x] = np.nan
        n = counts[b, 0]
        if n < 2:
            continue
        base = st[b]
        nc = candidates(base, prm, 0, ids[b, 0], n, sc, bs, cands, EVERY_CANDIDATE)
        if nc < 2:
            continue
        for c in range(nc):
            values[c] = 0.0
        add_sample(base, prm, 0, cands, nc, horizon, keys[b], 0, score_weight, g, buf_ids, sc,
                   bs, acts, values, now, sq)  # fmt: skip
        for c in range(nc):
            qv[b, cands[c]] = values[c]


class OracleBuffers:
    """The scratch arrays of :func:`oracle_batch` for ``n_actions``."""

    def __init__(self, n_actions: int) -> None:
        self.g = np.zeros(K.ROW, np.int32)
        self.ids = np.zeros(n_actions, np.int16)
        self.sc = np.zeros(K.SCRATCH, np.int64)
        self.bs = BK.empty_scratch(n_actions)
        self.acts = np.zeros(K.MAX_P, np.int64)
        self.cands = np.zeros(n_actions + 1, np.int64)
        self.values = np.zeros(n_actions + 1, np.float64)
        self.now = np.zeros(n_actions + 1, np.float64)
        self.sq = np.zeros(n_actions + 1, np.float64)

    def tail(self) -> tuple:
        """The buffers after ``score_weight`` in :func:`oracle_batch`'s argument order."""
        return (self.g, self.ids, self.sc, self.bs, self.acts, self.cands, self.values,
                self.now, self.sq)  # fmt: skip
