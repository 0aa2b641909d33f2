"""Time the compiled Nerts bots (agents/nerts/_bot_kernels.py) per decision.

Steps B = 1024 four-player games 50 steps with random legal actions on the batched engine
(mid-hand positions), then times ``decide_batch`` deciding for every seat of every game, 20
times, for greedy and for the expert. Compare with ``bench/nerts_bot_speed.py`` (the Python
bots, which also need a ``NertsView`` per seat and step).

    python bench/nerts_bot_kernels_speed.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from agents.nerts import _bot_kernels as BK
from gnome_env.nerts import NertsConfig
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.vector import NertsVectorEngine


def main() -> int:
    engine = NertsVectorEngine(NertsConfig(), 1024, num_players=4, observations="none")
    engine.reset(seed=3)
    gen = np.random.default_rng(0)
    for _ in range(50):
        engine.step(engine.sample_actions(gen))
    st, prm, ids, counts = engine.compiled_state()
    sc = np.zeros(K.SCRATCH, np.int64)
    bs = BK.empty_scratch(engine.n_actions)
    out = np.zeros((1024, 6), np.int64)
    for name, kind in (("greedy", BK.KIND_GREEDY), ("expert", BK.KIND_EXPERT)):
        kinds = np.zeros((1024, 6), np.int64)
        kinds[:, :4] = kind
        BK.decide_batch(st, prm, ids, counts, kinds, sc, bs, out)  # compile first
        start = time.perf_counter()
        decisions = 0
        for _ in range(20):
            BK.decide_batch(st, prm, ids, counts, kinds, sc, bs, out)
            decisions += int((counts[:, :4] > 0).sum())
        seconds = time.perf_counter() - start
        print(f"{name}: {seconds / decisions * 1e6:.2f} us per decision ({decisions} decisions)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
