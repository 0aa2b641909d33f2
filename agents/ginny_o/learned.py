"""A learned Ginny-O policy: the network, its checkpoints, and the agent that plays it.

Needs torch. The network (:class:`GinnyPolicyNetwork`) reads the ``ginny_o_v0`` observation
(7944 floats, :mod:`gnome_env.ginny_o.encoding`) in its own shape rather than as one flat
vector, because 7425 of the floats are the 15 x 15 board and 1800 of the 1864 actions are
``PLACE(slot, cell)``:

* **board**: two 3x3 convolutions over the 33 cell fields give every cell a feature vector
  that knows its neighbours (which lines it would join, the premiums around it);
* **trunk**: a few channels of those cell features, flattened, plus the rack, the unseen
  counts, the seats and the globals, through an MLP (``hidden``) -> ``z``;
* **PLACE logits** are a product ``slot_embedding[s] . cell_embedding[c]`` (plus a
  per-cell bias), where the slot embedding reads the slot's 55 fields and ``z`` and the cell
  embedding is a 1x1 convolution of the cell features. So "place this tile here" is scored
  from what the tile and the cell are, and what is learned about one cell carries over to
  the others, where a flat 1800-way head would have to learn each (slot, cell) pair apart;
* the other 64 logits (DECLARE, COMMIT, RETURN, CONFIRM_RETURN, END_TURN, PASS) and the
  value are linear heads on ``z``.

Illegal logits are ``-1e9`` (:data:`MASKED_LOGIT`), so softmax gives them probability 0 and
the entropy runs over legal actions only. The whole network has about 0.5 M parameters: a
checkpoint is about 2 MB and a decision takes well under a millisecond on one CPU thread.

The agent (:class:`GinnyPolicyAgent`, specs ``ppo:PATH`` and ``ppo-sample:PATH`` in
:mod:`agents.ginny_o.registry`) decides from a
:class:`~gnome_env.ginny_o.information.GinnyView` -- the observation is
:func:`gnome_env.ginny_o.encoding.encode` of the view, the env's own encoder, so it sees
what its seat may know only (G17) -- and plays its most likely legal action
(``sample=True``: samples one, from its own seeded torch generator).

A checkpoint is a ``torch.save`` dict of plain values and tensors (``weights_only`` loads):
``format`` ``gnome_env-ginny_o-policy``, ``version``, ``observation_size``,
``num_actions``, ``rules`` (the :class:`GinnyConfig` fields it was trained with, ``players``
left out: informative only, since every rule option has the same observation and action
sizes), ``network`` (constructor arguments), ``state_dict``, and ``training`` (the run's
config and counters; a training checkpoint adds the optimizer and the games in progress).
:func:`read_checkpoint` turns every unusable file into a ``ValueError`` saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.core.checkpoint_io import check_policy_header, load_torch_file, policy_payload
from agents.core.checkpoint_io import write_checkpoint as write_checkpoint  # re-exported
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import NUM_CELLS, SIZE
from gnome_env.ginny_o.config import MAX_SLOTS, GinnyConfig
from gnome_env.ginny_o.encoding import CELL_WIDTH, OBS_SIZE, SLOT_WIDTH, slice_of

CHECKPOINT_FORMAT = "gnome_env-ginny_o-policy"
CHECKPOINT_VERSION = 1
MASKED_LOGIT = -1e9
NUM_ACTIONS = A.NUM_ACTIONS
NUM_PLACE = A.DECLARE_BASE  # 1800 = 8 slots x 225 cells, slot-major (225 s + c)
BOARD = slice_of("board")
RACK = slice_of("rack")

assert NUM_PLACE == MAX_SLOTS * NUM_CELLS and A.PLACE_BASE == 0


def _orthogonal_(weight: torch.Tensor, gain: float, generator: torch.Generator) -> None:
    """Orthogonal init of ``weight`` (any shape, rows = dim 0) from an explicit generator."""
    rows = weight.shape[0]
    cols = weight.numel() // rows
    flat = torch.randn((rows, cols), generator=generator)
    tall = rows >= cols
    q, r = torch.linalg.qr(flat if tall else flat.T)
    q = q * torch.sign(torch.diagonal(r))
    with torch.no_grad():
        weight.copy_(gain * (q if tall else q.T).reshape(weight.shape))


class GinnyPolicyNetwork(nn.Module):
    """Observation (7944) -> (masked logits over the 1864 actions, value); see the module
    docstring for the layout."""

    def __init__(
        self,
        hidden: Sequence[int] = (256, 256),
        channels: int = 16,
        trunk_channels: int = 4,
        embedding: int = 32,
    ) -> None:
        super().__init__()
        self.hidden = [int(h) for h in hidden]
        self.channels = int(channels)
        self.trunk_channels = int(trunk_channels)
        self.embedding = int(embedding)
        self.observation_size = OBS_SIZE
        self.num_actions = NUM_ACTIONS
        c = self.channels
        self.board = nn.Sequential(
            nn.Conv2d(CELL_WIDTH, c, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(c, c, 3, padding=1),
            nn.ReLU(),
        )
        self.board_to_trunk = nn.Conv2d(c, self.trunk_channels, 1)
        width = self.trunk_channels * NUM_CELLS + (OBS_SIZE - BOARD.stop)
        layers: list[nn.Module] = []
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        e = self.embedding
        self.cell_embedding = nn.Conv2d(c, e, 1)
        self.cell_bias = nn.Parameter(torch.zeros(NUM_CELLS))
        self.slot_in = nn.Linear(SLOT_WIDTH, e)
        self.slot_context = nn.Linear(width, e, bias=False)
        self.slot_out = nn.Linear(e, e)
        self.other = nn.Linear(width, NUM_ACTIONS - NUM_PLACE)
        self.value = nn.Linear(width, 1)

    def reset_parameters(self, generator: torch.Generator) -> None:
        """Orthogonal init from an explicit generator (CleanRL's gains: sqrt 2 inside, 0.01
        for the layers that make logits, so the first policy is near uniform over legal
        actions, 1 for the value); biases zero."""
        small = {self.slot_out, self.other}
        for module in self.modules():
            if isinstance(module, (nn.Linear, nn.Conv2d)):
                gain = 0.01 if module in small else 1.0 if module is self.value else 2**0.5
                _orthogonal_(module.weight, gain, generator)
                if module.bias is not None:
                    with torch.no_grad():
                        module.bias.zero_()
        with torch.no_grad():
            self.cell_bias.zero_()

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(masked logits ``[B, 1864]``, value ``[B]``) for observations ``[B, 7944]`` and
        boolean masks ``[B, 1864]``."""
        batch = obs.shape[0]
        cells = obs[:, BOARD].reshape(batch, SIZE, SIZE, CELL_WIDTH).permute(0, 3, 1, 2)
        features = self.board(cells)  # [B, C, 15, 15]
        to_trunk = torch.relu(self.board_to_trunk(features)).flatten(1)
        z = self.trunk(torch.cat([to_trunk, obs[:, BOARD.stop :]], dim=1))
        slots = obs[:, RACK].reshape(batch, MAX_SLOTS, SLOT_WIDTH)
        slot = torch.relu(self.slot_in(slots) + self.slot_context(z)[:, None, :])
        slot = self.slot_out(slot)  # [B, 8, E]
        cell = self.cell_embedding(features).flatten(2)  # [B, E, 225]
        place = torch.bmm(slot, cell) + self.cell_bias  # [B, 8, 225]: 225 s + c
        logits = torch.cat([place.flatten(1), self.other(z)], dim=1)
        return logits.masked_fill(~mask, MASKED_LOGIT), self.value(z).squeeze(-1)

    def describe(self) -> dict[str, Any]:
        """Constructor arguments, for checkpoints."""
        return {
            "hidden": list(self.hidden),
            "channels": self.channels,
            "trunk_channels": self.trunk_channels,
            "embedding": self.embedding,
        }


def trained_rules(config: GinnyConfig) -> dict[str, Any]:
    """The rule options of ``config`` a checkpoint records (``num_players`` left out)."""
    rules = config.to_dict()
    rules.pop("num_players", None)
    return rules


def checkpoint_payload(net: GinnyPolicyNetwork, config: GinnyConfig, training: dict) -> dict:
    """What :func:`write_checkpoint` stores for ``net`` trained under ``config``."""
    return policy_payload(
        CHECKPOINT_FORMAT, CHECKPOINT_VERSION, net, trained_rules(config), training
    )


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load and check a Ginny-O policy checkpoint; any problem is a ``ValueError``."""
    data, where = load_torch_file(path)
    check_policy_header(
        data, where, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, "Ginny-O", "training/ginny_o/ppo.py"
    )
    if data["observation_size"] != OBS_SIZE or data["num_actions"] != NUM_ACTIONS:
        raise ValueError(
            f"{where} has observation size {data['observation_size']} and "
            f"{data['num_actions']} actions; ginny_o_v0 has {OBS_SIZE} and {NUM_ACTIONS}"
        )
    return data


def network_from_checkpoint(data: dict[str, Any], where: str = "checkpoint") -> GinnyPolicyNetwork:
    """Rebuild the network of a checked checkpoint dict (in eval mode)."""
    try:
        net = GinnyPolicyNetwork(**data["network"])
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where}: bad network arguments {data['network']!r}: {err}") from None
    try:
        net.load_state_dict(data["state_dict"])
    except (RuntimeError, KeyError, TypeError) as err:
        raise ValueError(f"{where}: weights do not fit the network: {str(err)[:200]}") from None
    net.eval()
    return net


class GinnyPolicyAgent:
    """Plays a Ginny-O checkpoint from a seat's :class:`GinnyView`: its most likely legal
    action, or one sampled from its own seeded generator with ``sample=True``."""

    def __init__(
        self,
        path: str | Path,
        seed: int = 0,
        config: GinnyConfig | None = None,
        sample: bool = False,
    ) -> None:
        data = read_checkpoint(path)
        self.net = network_from_checkpoint(data, f"checkpoint {str(path)!r}")
        self.config = config
        self.rules = data["rules"]
        self.sample = bool(sample)
        self.generator = torch.Generator().manual_seed(int(seed) % 2**63)
        self.path = str(path)

    def distribution(self, view: Any) -> np.ndarray:
        """Action probabilities (1864, 0 for illegal ids) from the acting seat's view."""
        from gnome_env.ginny_o.encoding import encode

        legal = list(view.legal_actions)
        if not legal:
            raise ValueError(f"seat {view.seat} is not to act: its view has no legal actions")
        obs = torch.as_tensor(encode(view))[None]
        mask = torch.zeros((1, NUM_ACTIONS), dtype=torch.bool)
        mask[0, legal] = True
        with torch.no_grad():
            logits, _ = self.net(obs, mask)
            return torch.softmax(logits, -1)[0].numpy().astype(np.float64)

    def decide(self, view: Any) -> int:
        """The chosen action id (one of ``view.legal_actions``)."""
        if len(view.legal_actions) == 1:
            return int(view.legal_actions[0])
        p = self.distribution(view)
        if self.sample:
            return int(torch.multinomial(torch.as_tensor(p), 1, generator=self.generator))
        return int(np.argmax(p))

    def __repr__(self) -> str:
        return f"GinnyPolicyAgent({self.path!r}, sample={self.sample})"
