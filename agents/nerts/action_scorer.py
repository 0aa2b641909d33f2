"""A per-action scoring head for Nerts policy networks: one set of weights for every action.

A plain policy head (one output per N36 action id) has to learn each id on its own: that
"waste -> slot 7" is worth playing when slot 7's top is one below the waste top is a separate
fact for each of the 24 slots and each source. :class:`ActionScorer` scores every action
from the pieces of the input it concerns instead, with weights shared across actions:

* the **source** block of the action: the Nerts top (its card, the pile's size), the waste
  top (its card, with ``memory`` the remembered card under it, the waste and stock sizes), a
  work pile (its cards, length, base and top ranks) or, for turn / recycle / shift, the stock
  (with ``memory`` the remembered cards the next two turns show, the stock and waste sizes);
  with ``memory`` the waste and the stock also read the own cycle block (where each
  remembered card of the stock and waste is in the cycle, :data:`agents.nerts.memory.CYCLE_FIELDS`);
* the **destination** block: a foundation slot (state, suit, top rank, whose cards) or a
  work pile;
* learned embeddings of the action's kind (N19), its source and destination places, the
  count of a work-pile move and the suit of a new foundation;
* the trunk's hidden state of the whole position.

These are summed, passed through two ReLU layers and read out as one logit per action, which
the network adds to its plain head's logits. The blocks are gathered from the network's
input (the ``nerts_v0`` observation of :mod:`gnome_env.nerts.encoding`, then with ``memory``
the features of :func:`agents.nerts.memory.memory_features`) by fixed index tables, so the
head reads exactly what the network reads: nothing a seat may not know.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from agents.nerts.memory import (
    CYCLE_FEATURES,
    FEATURE_CARDS,
    MEMORY_FEATURES,
    SEAT_FEATURES,
    TURNS_AHEAD,
)
from gnome_env.nerts.actions import Kind, action_table
from gnome_env.nerts.config import NertsConfig, num_actions
from gnome_env.nerts.encoding import CARD_IDS, NertsEncoder

SOURCE_WIDTH = 2 * CARD_IDS + 4 + CYCLE_FEATURES  # two card blocks, four numbers, the cycle
DEST_WIDTH = CARD_IDS + 14 + 3  # a work pile's cards, a slot's block, three numbers


def table_sizes(observation_size: int, n_actions: int) -> tuple[int, int]:
    """The ``(work_piles, jokers)`` whose observation and action sizes these are
    (``ValueError`` if none)."""
    for w in range(1, 9):
        for j in range(0, 3):
            if num_actions(w, j) != n_actions:
                continue
            if NertsEncoder(NertsConfig(work_piles=w, jokers=j)).size == observation_size:
                return w, j
    raise ValueError(
        f"no Nerts rules have observation size {observation_size} and {n_actions} actions"
    )


def index_tables(config: NertsConfig, memory: bool) -> dict[str, np.ndarray]:
    """The gather tables of the head (see the module docstring). Index ``n`` (the input's
    size) is a zero; sources are 0 Nerts, 1 waste, 2 + w work pile w, 2 + W stock, 3 + W
    none; destinations are f < F slots, F + w work piles, F + W none."""
    enc = NertsEncoder(config)
    table = action_table(config)
    w_count, f_count = config.work_piles, config.num_slots
    n = enc.size + (MEMORY_FEATURES if memory else 0)
    zero = n
    src = np.full((w_count + 4, SOURCE_WIDTH), zero, np.int64)
    dst = np.full((f_count + w_count + 1, DEST_WIDTH), zero, np.int64)

    def at(name: str) -> np.ndarray:
        s = enc.seat_slice(0, name)
        return np.arange(s.start, s.stop)

    def mem(k: int) -> np.ndarray:  # own seat's k-th memory card block (rotated seat 0)
        return enc.size + k * CARD_IDS + np.arange(CARD_IDS)

    c = CARD_IDS
    src[0, :c] = at("nerts_top")
    src[0, 2 * c] = at("nerts_size")[0]
    src[1, :c] = at("waste_top")
    if memory:
        src[1, c : 2 * c] = mem(TURNS_AHEAD)  # the card under the waste top
    src[1, 2 * c] = at("waste_size")[0]
    src[1, 2 * c + 1] = at("stock_size")[0]
    cards = at("work_cards").reshape(w_count, c)
    for w in range(w_count):  # a work pile reads the same as a source and a destination
        sizes = [at("work_len")[w], at("work_base")[w], at("work_top")[w]]
        src[2 + w, :c], src[2 + w, 2 * c : 2 * c + 3] = cards[w], sizes
        dst[f_count + w, :c], dst[f_count + w, c + 14 : c + 17] = cards[w], sizes
    stock = 2 + w_count
    if memory:
        src[stock, :c] = mem(0)
        src[stock, c : 2 * c] = mem(1)
    src[stock, 2 * c] = at("stock_size")[0]
    src[stock, 2 * c + 1] = at("waste_size")[0]
    if memory:  # the own cycle block: what turning or playing the waste top changes
        cycle = enc.size + SEAT_FEATURES + np.arange(CYCLE_FEATURES)
        src[1, 2 * c + 4 :] = cycle
        src[stock, 2 * c + 4 :] = cycle
    for f in range(f_count):
        base = enc.slices["slots"].start + f * enc.slot_width
        dst[f, c : c + enc.slot_width] = np.arange(base, base + enc.slot_width)
    if enc.slot_width != 14 or FEATURE_CARDS != TURNS_AHEAD + 1:
        raise AssertionError("the scorer's block widths disagree with the encoder")

    a_src = np.full(table.n, w_count + 3, np.int64)
    a_dst = np.full(table.n, f_count + w_count, np.int64)
    a_kind = np.zeros(table.n, np.int64)
    a_count = np.zeros(table.n, np.int64)
    a_suit = np.zeros(table.n, np.int64)
    for a in range(table.n):
        d = table.decode(a)
        a_kind[a] = int(d.kind)
        if d.kind in (Kind.TURN, Kind.RECYCLE, Kind.SHIFT):
            a_src[a] = stock
        elif d.kind == Kind.TO_SLOT:
            a_src[a], a_dst[a] = d.source, d.slot
        elif d.kind == Kind.NEW_FOUNDATION:
            a_src[a], a_suit[a] = d.source, d.suit + 1
        elif d.kind in (Kind.TO_WORK, Kind.SLIDE):
            a_src[a], a_dst[a] = d.source, f_count + d.pile
        elif d.kind == Kind.WORK_MOVE:
            a_src[a], a_dst[a], a_count[a] = 2 + d.pile, f_count + d.target, d.count
    return {
        "src": src, "dst": dst, "a_src": a_src, "a_dst": a_dst,
        "a_kind": a_kind, "a_count": a_count, "a_suit": a_suit,
    }  # fmt: skip


class ActionScorer(nn.Module):
    """One logit per N36 action from the action's source and destination blocks, its
    embeddings and the trunk's state (module docstring)."""

    def __init__(self, config: NertsConfig, trunk_width: int, width: int, memory: bool):
        super().__init__()
        tables = index_tables(config, memory)
        for name, value in tables.items():
            self.register_buffer(name, torch.as_tensor(value), persistent=False)
        self.width = int(width)
        self.src_proj = nn.Linear(SOURCE_WIDTH, width)
        self.dst_proj = nn.Linear(DEST_WIDTH, width)
        self.src_place = nn.Parameter(torch.zeros(tables["src"].shape[0], width))
        self.dst_place = nn.Parameter(torch.zeros(tables["dst"].shape[0], width))
        self.kind_emb = nn.Parameter(torch.zeros(len(Kind), width))
        self.count_emb = nn.Parameter(torch.zeros(14, width))
        self.suit_emb = nn.Parameter(torch.zeros(5, width))
        self.state_proj = nn.Linear(trunk_width, width)
        self.mid = nn.Linear(width, width)
        self.out = nn.Linear(width, 1)

    def reset_parameters(self, generator: torch.Generator) -> None:
        """Scaled normal weights from ``generator``, zero biases, and a zero read-out: the
        untrained head adds nothing to the plain head's logits."""
        with torch.no_grad():
            for layer in (self.src_proj, self.dst_proj, self.state_proj, self.mid):
                fan_in = layer.weight.shape[1]
                layer.weight.copy_(
                    torch.randn(layer.weight.shape, generator=generator) * (2.0 / fan_in) ** 0.5
                )
                layer.bias.zero_()
            for emb in (self.src_place, self.dst_place, self.kind_emb, self.count_emb,
                        self.suit_emb):  # fmt: skip
                emb.copy_(torch.randn(emb.shape, generator=generator) * 0.1)
            self.out.weight.zero_()
            self.out.bias.zero_()

    def forward(self, x: torch.Tensor, state: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Logits ``[B, N_ACTIONS]`` from the input ``x`` ``[B, n]``, the trunk's state and
        the legal-action mask; only legal actions are scored (the others get 0, for the
        network to mask)."""
        b = x.shape[0]
        legal = mask.sum(1)
        width = int(legal.max()) if b else 0
        # the legal ids first in each row (a stable sort keeps them in id order)
        ids = torch.argsort(mask.to(torch.int8), dim=1, descending=True, stable=True)[:, :width]
        xe = torch.cat([x, torch.zeros_like(x[:, :1])], 1)
        src = self.src_proj(xe[:, self.src]) + self.src_place  # [B, sources, width]
        dst = self.dst_proj(xe[:, self.dst]) + self.dst_place

        def pick(blocks: torch.Tensor, which: torch.Tensor) -> torch.Tensor:
            return blocks.gather(1, which[:, :, None].expand(-1, -1, blocks.shape[2]))

        fixed = (
            self.kind_emb[self.a_kind] + self.count_emb[self.a_count] + self.suit_emb[self.a_suit]
        )
        z = (
            self.state_proj(state)[:, None, :]
            + pick(src, self.a_src[ids])
            + pick(dst, self.a_dst[ids])
            + fixed[ids]
        )
        z = torch.relu(self.mid(torch.relu(z)))
        scores = self.out(z).squeeze(-1)  # [B, width]
        padded = torch.arange(width, device=mask.device)[None, :] >= legal[:, None]
        scores = scores.masked_fill(padded, 0.0)  # the illegal ids that filled short rows
        out = torch.zeros(mask.shape, dtype=scores.dtype, device=scores.device)
        return out.scatter(1, ids, scores)
