"""A learned turn gate for Nerts: the expert's move, or turning the stock (N15) where a small
network predicts that the turn gains.

The memory search asked one question (``search:...:candidates=turn``: is turning the stock
better than the expert's move here?) beats the expert at 2, 4 and 6 players, and networks
that read the raw observation and memory features did not learn where its turns pay
(``docs/nerts.md``). :class:`NertsTurnGate` reads instead :data:`TURN_FEATURES`, built by
:func:`turn_features` from the same input (the seat's ``nerts_v0`` observation followed by
its memory features, :mod:`agents.nerts.memory`) and the expert's move: which foundation or
work pile each card can go to, and what the seat remembers of the cards that this pass and
the next pass through its stock will show -- with and without a play of the waste top now,
which changes the next pass's grouping of three. An MLP maps them to one number, the logit
of the turn against the expert's move (0): a gate trained by ``training/nerts/distill.py
--student gate`` regresses it on ``--value-scale`` x (the search's playout value of the turn
- that of the expert's move - ``--value-margin``), so it turns where the predicted gain
clears the margin.

The network has the interface of :class:`agents.nerts.learned.NertsPolicyNetwork` (with
``expert_hint`` and ``memory``): ``forward(obs, mask, hint)`` gives masked logits in which
only the expert's move and, where it is legal and not the expert's move, the turn are
finite. So :class:`~agents.nerts.learned.NertsPolicyAgent` (spec ``ppo:PATH``), the
checkpoints and the benches play it unchanged. Every feature is a function of the seat's
view and memory (N34, N35): it reads nothing hidden. Only the default table (4 work piles,
no jokers) is supported, like the search.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.nerts.memory import CARD_IDS, CYCLE_FIELDS, FEATURE_CARDS, SEAT_FEATURES
from gnome_env.nerts.actions import TURN, action_table
from gnome_env.nerts.cards import NUM_NATURAL, SUIT_COLOUR
from gnome_env.nerts.config import MAX_PLAYERS, NertsConfig
from gnome_env.nerts.encoding import NUM_KINDS, NertsEncoder

MASKED_LOGIT = -1e9
#: A gap (ranks still missing below a card on its best foundation) or an absent card reads as
#: this many, and gaps are divided by it.
FAR = 14.0
#: The card sets of the seat's own stock cycle (:data:`agents.nerts.memory.CYCLE_FIELDS`):
#: remembered cards in the stock, in the waste, shown by this pass's turns, by the next pass's
#: turns, and by the next pass's turns if the waste top were played first.
SETS = CYCLE_FIELDS
#: Per card set: its size, how many of its cards fit a foundation now (gap 0), within one or
#: two ranks, fit one of the seat's work piles, and the smallest gap.
SET_STATS = ("n", "gap0", "gap1", "gap2", "work", "min_gap")
#: Sources of the expert's move (one-hot): none (wait, call, stock moves), the Nerts top, the
#: waste top, work pile 0-3.
HINT_SOURCES = 7

TURN_FEATURES: tuple[str, ...] = (
    *(f"{s}_{t}" for s in SETS for t in SET_STATS),
    *(f"next_minus_if_played_{t}" for t in SET_STATS),
    "stock_cards", "waste_cards", "remembered_share",
    "waste_top", "waste_top_rank", "waste_top_gap", "waste_top_work",
    "under_known", "under_gap", "under_work",
    *(f"turn{k + 1}_{t}" for k in range(3) for t in ("known", "gap", "work")),
    "nerts_top", "nerts_top_gap", "nerts_top_work", "nerts_size",
    "others_nerts_min", "others_nerts_mean", "others_nerts_top_gap", "others_nerts_tops_gap0",
    "others_waste_top_gap", "others_waste_tops_gap0",
    *(f"others_turn{k + 1}_gap" for k in range(3)),
    "others_foundation_max",
    "step", "stall", "seen", "exhausted", "foundation", "players", "cards_gap0",
    *(f"hint_kind{k}" for k in range(NUM_KINDS)),
    *(f"hint_source{k - 1}" for k in range(HINT_SOURCES)),
)  # fmt: skip


class _Layout:
    """Index tensors of the default table's observation and memory features."""

    def __init__(self) -> None:
        config = NertsConfig()
        enc = NertsEncoder(config)
        self.obs_size = enc.size
        self.work_piles = config.work_piles
        self.slots = config.num_slots
        self.n_actions = config.n_actions
        self.seat = lambda r, name: enc.seat_slice(r, name)
        self.slot_base = enc.slices["slots"].start
        self.slot_width = enc.slot_width
        self.slot_fields = enc.slot_fields
        self.step = enc.slices["step"].start
        self.stall = enc.slices["stall"].start
        self.deck = config.deck_size
        cards = torch.arange(NUM_NATURAL)
        self.rank = (cards % 13 + 1).float()
        self.suit = cards // 13
        self.colour = torch.tensor(SUIT_COLOUR)[self.suit]
        table = action_table(config)
        decoded = [table.decode(a) for a in range(table.n)]
        self.kind = torch.tensor([int(d.kind) for d in decoded])
        self.source = torch.tensor([int(d.source) + 1 for d in decoded])  # -1 (none) -> 0


_LAYOUT: _Layout | None = None


def _layout() -> _Layout:
    global _LAYOUT
    if _LAYOUT is None:
        _LAYOUT = _Layout()
    return _LAYOUT


def _card_of(onehot: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(whether a natural card is named, its id) of one-hot card rows ``[B, 54]``."""
    natural = onehot[:, :NUM_NATURAL]
    return natural.sum(1) > 0.5, natural.argmax(1)


def turn_features(x: torch.Tensor, hint: torch.Tensor) -> torch.Tensor:
    """:data:`TURN_FEATURES` ``[B, len(TURN_FEATURES)]`` of input rows ``x`` (the seat's
    observation then its memory features, ``[B, obs + MEMORY_FEATURES]``) and the expert's
    moves ``hint`` ``[B]`` (module docstring). Gaps and absent cards are capped at
    :data:`FAR` and divided by it; counts are divided by 4, card totals by the deck."""
    lay = _layout()
    x = x.float()
    b = x.shape[0]
    rows = torch.arange(b)
    # foundations: a card's gap is the ranks missing below it on the best open slot of its
    # suit (0: it can go there now); from a new ace if no slot of its suit is below it
    base = lay.slot_base
    width = lay.slot_width
    slots = x[:, base : base + lay.slots * width].reshape(b, lay.slots, width)
    sf = lay.slot_fields
    open_ = slots[:, :, sf["state"].start + 1] > 0.5
    suit = slots[:, :, sf["suit"]] > 0.5  # [B, F, 4]
    top = torch.round(slots[:, :, sf["top"].start] * 13)  # [B, F]
    ok = open_[:, :, None] & suit[:, :, lay.suit] & (top[:, :, None] < lay.rank)  # [B, F, 52]
    gaps = torch.where(ok, lay.rank - top[:, :, None] - 1, torch.full_like(top[:, :, None], FAR))
    gap = torch.minimum(gaps.min(1).values, (lay.rank - 1).expand(b, -1))  # [B, 52]
    # the seat's own work piles: a card fits one if it is one rank below its top in the
    # other colour, or if a pile is empty
    w = lay.work_piles
    cards = x[:, lay.seat(0, "work_cards")].reshape(b, w, CARD_IDS)[:, :, :NUM_NATURAL] > 0.5
    length = x[:, lay.seat(0, "work_len")]
    wtop = torch.round(x[:, lay.seat(0, "work_top")] * 13)  # [B, W]
    is_top = cards & (lay.rank == wtop[:, :, None])  # [B, W, 52]
    has_top = is_top.any(2)
    top_colour = (is_top.float() * lay.colour.float()).sum(2)  # [B, W]
    fits = (
        has_top[:, :, None]
        & (lay.colour.float() != top_colour[:, :, None])
        & (lay.rank == wtop[:, :, None] - 1)
    )
    work = fits.any(1) | (length < 1e-6).any(1, keepdim=True)  # [B, 52]
    gap0 = gap == 0

    out: list[torch.Tensor] = []
    far = torch.full_like(gap[:, 0], FAR)

    def card(present: torch.Tensor, which: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        g = torch.where(present, gap[rows, which], far)
        return g / FAR, (present & work[rows, which]).float()

    mem = x[:, lay.obs_size :]
    cyc = mem[:, SEAT_FEATURES:].reshape(b, len(SETS), CARD_IDS)[:, :, :NUM_NATURAL] > 0.5
    stats = []
    far_cards = torch.full_like(gap, FAR)
    for i in range(len(SETS)):
        s = cyc[:, i]
        stats.append(
            torch.stack(
                [
                    s.sum(1) / 4,
                    (s & gap0).sum(1) / 4,
                    (s & (gap <= 1)).sum(1) / 4,
                    (s & (gap <= 2)).sum(1) / 4,
                    (s & work).sum(1) / 4,
                    torch.where(s, gap, far_cards).min(1).values / FAR,
                ],
                1,
            )
        )
    out += stats
    out.append(stats[3] - stats[4])
    stock = x[:, lay.seat(0, "stock_size")][:, 0] * lay.deck
    waste = x[:, lay.seat(0, "waste_size")][:, 0] * lay.deck
    remembered = (cyc[:, 0].sum(1) + cyc[:, 1].sum(1)).float()
    out.append(
        torch.stack([stock / lay.deck, waste / lay.deck, remembered / (stock + waste).clamp(1)], 1)
    )
    has, wcard = _card_of(x[:, lay.seat(0, "waste_top")])
    g, wk = card(has, wcard)
    out.append(torch.stack([has.float(), torch.where(has, lay.rank[wcard], 0) / 13, g, wk], 1))
    has, c = _card_of(mem[:, 3 * CARD_IDS : 4 * CARD_IDS])  # the card under the waste top
    g, wk = card(has, c)
    out.append(torch.stack([has.float(), g, wk], 1))
    for k in range(3):  # the waste top after each of the next three turns
        has, c = _card_of(mem[:, k * CARD_IDS : (k + 1) * CARD_IDS])
        g, wk = card(has, c)
        out.append(torch.stack([has.float(), g, wk], 1))
    has, c = _card_of(x[:, lay.seat(0, "nerts_top")])
    g, wk = card(has, c)
    out.append(torch.stack([has.float(), g, wk, x[:, lay.seat(0, "nerts_size")][:, 0]], 1))
    # the other seats (rotated blocks 1-5; absent ones ignored)
    present = torch.stack([x[:, lay.seat(r, "present")][:, 0] > 0.5 for r in range(1, 6)], 1)
    count = present.sum(1).clamp(1)
    sizes = torch.stack([x[:, lay.seat(r, "nerts_size")][:, 0] for r in range(1, 6)], 1)
    others = [
        torch.where(present, sizes, torch.ones_like(sizes)).min(1).values,
        (sizes * present).sum(1) / count,
    ]
    for field in ("nerts_top", "waste_top"):
        gs = []
        for r in range(1, 6):
            has, c = _card_of(x[:, lay.seat(r, field)])
            gs.append(torch.where(has, gap[rows, c], far))
        gs = torch.where(present, torch.stack(gs, 1), FAR)
        others += [gs.min(1).values / FAR, (gs == 0).sum(1) / 4]
    for k in range(3):
        gs = []
        for r in range(1, 6):
            at = (r * FEATURE_CARDS + k) * CARD_IDS
            has, c = _card_of(mem[:, at : at + CARD_IDS])
            gs.append(torch.where(has, gap[rows, c], far))
        gs = torch.where(present, torch.stack(gs, 1), FAR)
        others.append(gs.min(1).values / FAR)
    found = torch.stack([x[:, lay.seat(r, "foundation")][:, 0] for r in range(1, 6)], 1)
    others.append((found * present).max(1).values)
    out.append(torch.stack(others, 1))
    out.append(
        torch.stack(
            [
                x[:, lay.step],
                x[:, lay.stall],
                x[:, lay.seat(0, "seen")][:, 0],
                x[:, lay.seat(0, "exhausted")][:, 0],
                x[:, lay.seat(0, "foundation")][:, 0],
                (present.sum(1) + 1) / MAX_PLAYERS,
                gap0.sum(1) / 4,
            ],
            1,
        )
    )
    out.append(nn.functional.one_hot(lay.kind[hint], NUM_KINDS).float())
    out.append(nn.functional.one_hot(lay.source[hint], HINT_SOURCES).float())
    return torch.cat(out, 1)


class NertsTurnGate(nn.Module):
    """Expert's move or turn: an MLP over :func:`turn_features` gives the turn's logit
    against the expert's move's 0 (module docstring). The second output of ``forward`` is
    that logit too (masked where the turn is not open)."""

    expert_hint = True
    memory = True
    scorer = 0

    def __init__(self, observation_size: int, num_actions: int, hidden: Sequence[int] = (64, 64)):
        super().__init__()
        lay = _layout()
        if int(observation_size) != lay.obs_size or int(num_actions) != lay.n_actions:
            raise ValueError(
                f"a turn gate reads the default table only (observation {lay.obs_size}, "
                f"{lay.n_actions} actions), not {observation_size} / {num_actions}"
            )
        from agents.nerts.memory import MEMORY_FEATURES

        self.observation_size = int(observation_size)
        self.input_size = self.observation_size + MEMORY_FEATURES
        self.num_actions = int(num_actions)
        self.hidden = [int(h) for h in hidden]
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden={hidden!r} is not allowed: a non-empty list of sizes >= 1")
        layers: list[nn.Module] = []
        width = len(TURN_FEATURES)
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        layers.append(nn.Linear(width, 1))
        self.mlp = nn.Sequential(*layers)

    def reset_parameters(self, generator: torch.Generator) -> None:
        """He-normal weights from an explicit generator, zero biases; the last layer starts
        at zero weights and bias -1, so the untrained gate always plays the expert's move."""
        linears = [m for m in self.mlp if isinstance(m, nn.Linear)]
        with torch.no_grad():
            for layer in linears[:-1]:
                std = (2.0 / layer.in_features) ** 0.5
                layer.weight.copy_(torch.randn(layer.weight.shape, generator=generator) * std)
                layer.bias.zero_()
            linears[-1].weight.zero_()
            linears[-1].bias.fill_(-1.0)

    def gate(self, obs: torch.Tensor, hint: torch.Tensor) -> torch.Tensor:
        """The turn's logit against the expert's move, ``[B]``."""
        return self.mlp(turn_features(obs, hint))[:, 0]

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, hint: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(masked logits, the turn's logit): finite only at the expert's move (0) and, where
        the turn is legal and not the expert's move, at the turn. The gate runs on those
        rows only (elsewhere there is nothing to decide, and the turn's logit is masked)."""
        if hint is None:
            raise ValueError("a turn gate needs the expert's actions (hint)")
        rows = torch.arange(len(hint))
        open_turn = mask[:, TURN] & (hint != TURN)
        turn = torch.full((len(hint),), MASKED_LOGIT)
        if open_turn.any():
            turn[open_turn] = self.gate(obs[open_turn], hint[open_turn])
        logits = torch.full((len(hint), self.num_actions), MASKED_LOGIT)
        logits[:, TURN] = turn
        logits[rows, hint] = 0.0
        return logits, turn

    def describe(self) -> dict[str, Any]:
        """Constructor arguments for checkpoints (``kind`` tells it from the plain network)."""
        return {"kind": "turn_gate", "hidden": list(self.hidden)}


def feature_table(x: np.ndarray, hint: np.ndarray) -> np.ndarray:
    """:func:`turn_features` of numpy rows, as float32 numpy (for analysis scripts)."""
    with torch.no_grad():
        return turn_features(torch.as_tensor(x), torch.as_tensor(hint)).numpy()
