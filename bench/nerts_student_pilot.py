"""A fast pilot for Nerts students: a learned policy (a ``distill.py`` checkpoint with the
expert hint) in one seat against n-1 compiled experts on the batched engine.

    python bench/nerts_student_pilot.py --policy runs/student/policy.pt --players 2 \
        --games 1000 --seed 11 --deltas 0 1

The games, the seat rotation, the deals of ``--seed`` and the report are those of
``bench/nerts_search_pilot.py`` (the same seed meets the same deals there). The student
decides for every game at once from the tested seat's ``nerts_v0`` observation (with
``--memory`` checkpoints, followed by that seat's memory features,
:func:`agents.nerts.memory.memory_features_rows`), its mask and the compiled expert's move
as the hint -- what :class:`agents.nerts.learned.NertsPolicyAgent` reads from its views --
and plays its most likely move. Each ``--deltas`` value is one run of the same deals with
the expert move's logit lowered by that much (0: the policy as it is; a negative value
makes it leave the expert less often). ``--paired`` also plays the expert in the tested seat
on the same deals and prints each run's per-game difference from it with its 95% interval
(common deals make it far tighter than the two win shares' own intervals).

A pilot, not a result: the arena (``gnome eval``) on a seed no pilot used gives the figures
in ``docs/nerts.md``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from _script import run
from nerts_search_pilot import SearchTable, play, report


def student_table(net, delta: float) -> type[SearchTable]:
    """A :class:`SearchTable` whose "search" is the student ``net`` with the expert move's
    logit lowered by ``delta``."""
    import torch

    from agents.nerts import _bot_kernels as BK
    from agents.nerts.memory import MEMORY_FEATURES, memory_features_rows
    from gnome_env.nerts import _kernels as K

    class StudentTable(SearchTable):
        observations = "seats"

        def __init__(self, players: int, envs: int, seed: int) -> None:
            super().__init__(players, envs, seed)
            #: every row's memory features (memory_features_rows rewrites each row per step)
            self.features = np.zeros((envs, MEMORY_FEATURES), np.float32)

        def search(self, who, keys, settings: dict, out: np.ndarray, dev: np.ndarray) -> None:
            rows, seats = np.nonzero(who)
            kinds = np.zeros_like(who)
            kinds[rows, seats] = BK.KIND_EXPERT
            hints = np.zeros_like(who)
            self.experts(kinds, hints)
            hint = hints[rows, seats]
            obs = np.asarray(self.obs)[rows, seats]
            mask = np.asarray(self.masks)[rows, seats].astype(bool)
            if net.memory:
                observer = np.zeros(self.st.shape[0], np.int64)
                observer[rows] = seats
                memory_features_rows(self.st, self.seen, observer, int(self.prm[K.P_TURN]),
                                     self.features)  # fmt: skip
                obs = np.concatenate([obs, self.features[rows]], axis=1)
            with torch.no_grad():
                logits, _ = net(torch.as_tensor(obs).float(), torch.as_tensor(mask),
                                torch.as_tensor(hint))  # fmt: skip
            logits[torch.arange(len(rows)), torch.as_tensor(hint)] -= delta
            pick = logits.argmax(1).numpy()
            out[rows, seats] = pick
            dev[rows, seats] = (pick != hint) & (self.counts[rows, seats] > 1)

    return StudentTable


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--policy", required=True, help="a distill.py checkpoint (policy.pt)")
    p.add_argument("--players", type=int, default=2, choices=range(2, 7))
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=11, help="the engine seed of the deals")
    p.add_argument("--envs", type=int, default=250, help="games stepped together")
    p.add_argument("--deltas", type=float, nargs="+", default=[0.0],
                   help="lower the expert move's logit by each (one run per value)")  # fmt: skip
    p.add_argument("--paired", action="store_true",
                   help="also play the expert in the tested seat on the same deals and give "
                   "each run's paired difference from it")  # fmt: skip
    args = p.parse_args(argv)
    if min(args.games, args.envs) < 1 or not 0 <= args.seed < 2**62:
        p.error("--games and --envs must be at least 1, --seed in 0..2**62-1")
    import torch

    from agents.nerts.learned import network_from_checkpoint, read_checkpoint

    try:
        net = network_from_checkpoint(read_checkpoint(args.policy))
    except (OSError, ValueError) as err:
        p.error(str(err))
    if not net.expert_hint:
        p.error(f"{args.policy} has no expert hint: this pilot is for distill.py students")
    torch.set_num_threads(1)
    net.eval()
    expert = None
    if args.paired:
        start = time.perf_counter()
        expert, _, _ = play(args.players, args.games, args.seed, args.envs, None)
        print(report(args.players, args.seed, " (the expert)", expert, None, 0,
                     time.perf_counter() - start), flush=True)  # fmt: skip
    for delta in args.deltas:
        start = time.perf_counter()
        table = student_table(net, delta)
        shares, decisions, deviations = play(args.players, args.games, args.seed, args.envs,
                                             {}, table)  # fmt: skip
        label = f" ({Path(args.policy).parent.name}, delta {delta:g})"
        print(report(args.players, args.seed, label, shares, decisions, deviations,
                     time.perf_counter() - start), flush=True)  # fmt: skip
        if expert is not None:
            print(f"  paired with the expert on the same deals: {paired(shares, expert)}")
    return 0


def paired(shares: np.ndarray, expert: np.ndarray) -> str:
    """The mean per-game difference of two runs on the same deals, with its 95% interval."""
    diff = (shares - expert).ravel()
    diff = diff[~np.isnan(diff)]
    half = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    return f"{diff.mean():+.4f} [{diff.mean() - half:+.4f}, {diff.mean() + half:+.4f}]"


if __name__ == "__main__":
    run(main)
