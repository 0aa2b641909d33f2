"""How well a distilled Nerts student finds its teacher's deviations on held-out games.

    python bench/nerts_heldout_deviations.py --policy runs/cyc_stock_s64/policy.pt \
        --samples runs/cyc2p_61/samples.npz --kinds stock

Reads a student checkpoint (``training/nerts/distill.py``) and a ``samples.npz`` that run
saved (``--save-samples``), keeps the held-out games (every ``HOLD_OUT``-th engine slot, as
the distillation does), takes the teacher's labels of ``--kinds`` (other labels count as the
expert's move, as ``--label-kinds`` does) and, for each shift δ of ``--deltas`` subtracted
from the expert move's logit, prints how often the student leaves the expert's move, how
many of those are the teacher's own deviation (precision) and how many of the teacher's
deviations it finds (recall).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from _script import run


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--policy", required=True, help="a student's policy.pt")
    p.add_argument("--samples", required=True, help="a distillation run's samples.npz")
    p.add_argument("--kinds", default="all", help="the teacher's deviations counted (N19)")
    p.add_argument("--deltas", type=float, nargs="+", default=[0, 1, 2, 3, 4, 5])
    args = p.parse_args(argv)

    import torch

    from agents.nerts.learned import network_from_checkpoint, read_checkpoint
    from gnome_env.nerts.actions import parse_kinds
    from training.nerts.distill import HOLD_OUT, kept_labels

    try:
        kinds = parse_kinds(args.kinds)
        net = network_from_checkpoint(read_checkpoint(args.policy))
        with np.load(args.samples, allow_pickle=False) as f:
            held = f["slot"] % HOLD_OUT == 0
            obs, mask = f["obs"][held], f["mask"][held]
            hint, label = f["hint"][held], f["label"][held]
    except (OSError, ValueError, KeyError) as err:
        p.error(str(err))
    if obs.shape[1] != net.input_size:
        p.error(f"the samples are {obs.shape[1]} wide; the student reads {net.input_size}")
    torch.set_num_threads(1)
    label = kept_labels(label, hint, kinds)
    with torch.no_grad():
        logits, _ = net(torch.as_tensor(obs).float(), torch.as_tensor(mask), torch.as_tensor(hint))
    rows = torch.arange(len(hint))
    off = label != hint
    print(f"held-out positions {len(hint)}, the teacher's deviations ({args.kinds}) {off.sum()}")
    for delta in args.deltas:
        shifted = logits.clone()
        shifted[rows, torch.as_tensor(hint)] -= delta
        pred = shifted.argmax(1).numpy()
        dev = pred != hint
        match = int((dev & (pred == label)).sum())
        print(
            f"delta {delta:g}: the student leaves the expert at {dev.sum()} ({dev.mean():.4f}); "
            f"the teacher's deviation at {match} (precision {match / max(dev.sum(), 1):.3f}, "
            f"recall {match / max(off.sum(), 1):.3f})"
        )
    return 0


if __name__ == "__main__":
    run(main)
