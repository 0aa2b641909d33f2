"""Average several policy networks into one: the mean of their logits as a single network.

    python -m training.gnoming.ensemble --out runs/ens/policy.pt A.pt B.pt C.pt

Members are :class:`~agents.gnoming.learned.PolicyNetwork` checkpoints (``ppo:PATH`` files) with the
same rules, the same inputs (features, expert hint) and the same number of hidden layers.
The packed network puts the members side by side: its first layer is theirs concatenated
(hidden sizes add up), every further hidden layer is block-diagonal (a member's units only
see that member's units), and the policy and value heads read every member's last layer
with ``1/K`` of its weights. The per-action weights of the Greedy bias and of the expert
hint are averaged. So its logits and value equal the mean of the members' (to float
rounding) and it loads and plays like any ``ppo:`` policy; it costs the members' forward
passes together. A member that does not fit (other rules, inputs or depth, an unreadable
file) is a clear error.

This is how the ensemble of issue #13's ablation (``docs/training.md``) was built; it did
not beat its best member in the arena, so no shipped policy is an ensemble.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import torch

from agents.gnoming.learned import (
    PolicyNetwork,
    checkpoint_header,
    network_from_checkpoint,
    read_checkpoint,
    write_checkpoint,
)


def pack_ensemble(nets: Sequence[PolicyNetwork]) -> PolicyNetwork:
    """One network whose logits and value are the mean of ``nets``' (see the module
    docstring); ``ValueError`` if they cannot be packed."""
    if not nets:
        raise ValueError("an ensemble needs at least one member network")
    first = nets[0]
    for i, net in enumerate(nets[1:], start=2):
        if net.rules != first.rules:
            raise ValueError(f"member {i} was made for other rules than member 1")
        if (net.features, net.expert_hint) != (first.features, first.expert_hint):
            raise ValueError(
                f"member {i} has other inputs than member 1 (features {net.features}, "
                f"expert_hint {net.expert_hint} against {first.features}, {first.expert_hint})"
            )
        if len(net.hidden) != len(first.hidden):
            raise ValueError(
                f"member {i} has {len(net.hidden)} hidden layers, member 1 {len(first.hidden)}: "
                "members need the same depth"
            )
    k = len(nets)
    hidden = [sum(net.hidden[layer] for net in nets) for layer in range(len(first.hidden))]
    packed = PolicyNetwork(
        first.rules, hidden, features=first.features, expert_hint=first.expert_hint
    )
    states = [net.state_dict() for net in nets]

    def side_by_side(key: str, dim: int) -> torch.Tensor:
        return torch.cat([s[key] for s in states], dim)

    def mean(key: str) -> torch.Tensor:
        return torch.stack([s[key] for s in states]).mean(0)

    out = packed.state_dict()
    out["first"] = side_by_side("first", 1)
    out["first_bias"] = side_by_side("first_bias", 0)
    if first.features:
        out["feature_in"] = side_by_side("feature_in", 1)
        out["bias_weight"] = mean("bias_weight")
    if first.expert_hint:
        out["hint_in"] = side_by_side("hint_in", 1)
        out["hint_weight"] = mean("hint_weight")
    for layer in range(len(first.trunk)):
        out[f"trunk.{layer}.weight"] = torch.block_diag(
            *[s[f"trunk.{layer}.weight"] for s in states]
        )
        out[f"trunk.{layer}.bias"] = side_by_side(f"trunk.{layer}.bias", 0)
    for head in ("policy_head", "value_head"):
        out[f"{head}.weight"] = side_by_side(f"{head}.weight", 1) / k
        out[f"{head}.bias"] = mean(f"{head}.bias")
    packed.load_state_dict(out)
    return packed.eval()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.gnoming.ensemble", description=__doc__.splitlines()[0]
    )
    parser.add_argument("members", nargs="+", help="policy checkpoints (ppo:PATH files)")
    parser.add_argument("--out", required=True, help="where to write the packed checkpoint")
    args = parser.parse_args(argv)
    try:
        nets = [
            network_from_checkpoint(read_checkpoint(path), f"member {path}")
            for path in args.members
        ]
        packed = pack_ensemble(nets)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    payload = checkpoint_header(packed)
    payload["training_summary"] = {"ensemble_of": [str(p) for p in args.members]}
    path = write_checkpoint(payload, Path(args.out))
    size = path.stat().st_size / 1e6
    print(f"packed {len(nets)} networks into {path} (hidden {packed.hidden}, {size:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
