"""Measured gain of a policy's choices on rollout-distillation data.

    python bench/distill_gain.py --data runs/qdistill4/data \
        --policy agents/policies/distill2_3to7/policy.pt

Reads every chunk ``w*_c*.npz`` written by ``training/gnoming/qdistill.py`` (positions, legal
masks, Expert's move and every legal action's measured advantage over Expert's move),
lets the policy (a ``ppo:`` checkpoint) choose at each position (its most likely legal
action) and prints the mean measured advantage of its choices per position with rollouts
(95% half-width), how often it leaves Expert's move and the mean gain when it does --
overall and per seat count. On data the policy was not fitted on this is an unbiased
offline estimate of its gain over Expert per decision, in points, under whatever played
the rollouts (Expert, or ``rollout_network``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="a qdistill data directory")
    parser.add_argument("--policy", required=True, help="a policy checkpoint (ppo:PATH file)")
    args = parser.parse_args(argv)
    import torch

    from agents.gnoming.learned import network_from_checkpoint, read_checkpoint
    from gnome_env.gnoming import _kernels as K
    from training.core.config import ConfigError
    from training.gnoming.chunks import directory_chunks, read_chunk

    torch.set_num_threads(1)
    try:  # the chunk files in (worker, chunk) order; a chunk still being written is skipped
        files = directory_chunks(args.data, "--data")
    except ConfigError as err:
        parser.error(str(err))
    try:
        net = network_from_checkpoint(read_checkpoint(args.policy), args.policy)
    except ValueError as err:
        parser.error(str(err))
    parts: dict[str, list[np.ndarray]] = {"tokens": [], "masks": [], "expert": [], "adv": []}
    for path in files:
        try:
            chunk = read_chunk(path, parts)
        except ConfigError as err:
            parser.error(str(err))
        for key in parts:
            parts[key].append(chunk[key])
    tokens, masks, expert, adv = (np.concatenate(parts[k]) for k in parts)
    choice = np.empty(len(tokens), dtype=np.int64)
    with torch.inference_mode():
        for i in range(0, len(tokens), 4096):
            rows = slice(i, i + 4096)
            logits, _ = net.forward_tokens(
                torch.from_numpy(tokens[rows]), torch.from_numpy(masks[rows])
            )
            logits = logits.numpy()
            logits[~masks[rows]] = -np.inf
            choice[rows] = logits.argmax(1)
    gain = adv[np.arange(len(tokens)), choice].astype(np.float64)
    searched = tokens[:, K.TOK_PHASE] != 0  # opening flips carry no rollouts
    deviates = searched & (choice != expert)
    seats = tokens[:, net.present_tok.numpy()].sum(1)
    print(f"{len(files)} chunks, {len(tokens):,} positions, {searched.sum():,} with rollouts")
    print("seats  positions  leaves Expert  gain per position (95%)  gain per deviation")
    for label, pick in [("all", searched)] + [
        (str(n), searched & (seats == n)) for n in range(3, 8)
    ]:
        n = int(pick.sum())
        if n == 0:
            continue
        g = gain[pick]
        dev = deviates & pick
        per_dev = f"{gain[dev].mean():+.3f}" if dev.any() else "-"
        print(
            f"{label:>5s}  {n:9,d}  {dev.sum() / n:13.3f}  "
            f"{g.mean():+.4f} +- {1.96 * g.std() / np.sqrt(n):.4f}        {per_dev}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
