"""Nerts observations: one flat float32 vector per seat, built from a :class:`NertsView` only.

The observation of seat ``i`` is computed from ``NertsView.from_game(game, i)`` -- the public
information of N34 -- so it cannot depend on a face-down Nerts card, a stock's order or a
waste card under the top (N35). ``tests/nerts/test_nerts_env.py`` permutes those cards and checks
that no observation changes.

Seats are *rotated*: block ``r`` describes the seat ``r`` places after the observer (``r = 0``
is the observer), and the blocks are padded to six seats, so the size never depends on the
player count. Slot card counts per seat are rotated the same way. Action ids are absolute
(N36: every source is the acting seat's own), so the action mask is the seat's own mask and
is never rotated.

The size depends only on ``work_piles`` (W) and ``jokers`` (F = (4 + jokers) * 6):
``6 * seat_width + F * 14 + 19`` with ``seat_width = 134 + 57 W``; 2527 with the defaults
(W = 4, F = 24). See :data:`SEAT_FIELDS`, :data:`SLOT_FIELDS` and :data:`GLOBAL_FIELDS` for
the blocks; :class:`NertsEncoder` exposes them as slices (``slices``, ``seat_slice``,
``slot_slice``).

Card one-hots and membership sets have 54 entries (N2 ids: 52 naturals, jokers 52 and 53)
for every config. Values lie in [0, 1] except each seat's ``total`` (game total /
``target_score``, in ``[-2 nerts_size max_hands / target, (target - 1 + 52 + jokers) /
target]``); :meth:`NertsEncoder.bounds` gives the exact Box bounds.

:class:`StateEncoder` adds the hidden cards (every Nerts pile, stock and waste in order) to
seat 0's observation: the full-information ``state()`` of the env, for centralised critics.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gnome_env.nerts.actions import Kind, action_table
from gnome_env.nerts.cards import KING, NUM_NATURAL
from gnome_env.nerts.config import MAX_PLAYERS, NertsConfig
from gnome_env.nerts.engine import NertsGame, pile_anchor
from gnome_env.nerts.information import NertsView

CARD_IDS = NUM_NATURAL + 2  # 54: every N2 id, whatever the jokers setting
NUM_KINDS = len(Kind)  # 10 action kinds (N19)
SLOT_STATES = ("unused", "open", "complete")
MAX_NERTS = 20  # NertsConfig.nerts_size is at most 20
MAX_TURN = 3
MAX_JOKERS = 2


def seat_fields(work_piles: int) -> tuple[tuple[str, int, str], ...]:
    """``(name, width, meaning)`` of one seat block, in order (W = ``work_piles``)."""
    w = work_piles
    return (
        ("present", 1, "1 if the seat is at the table"),
        ("nerts_size", 1, "cards in the Nerts pile / nerts_size"),
        ("nerts_top", CARD_IDS, "one-hot N2 id of the face-up Nerts top (zeros: empty)"),
        ("work_cards", w * CARD_IDS, "per work pile, the 54-bit membership set of its cards"),
        ("work_len", w, "per work pile, its length / 13"),
        ("work_base", w, "per work pile, the rank of its base / 13 (0: empty or jokers only)"),
        ("work_top", w, "per work pile, the rank of its top / 13 (0: empty or jokers only)"),
        ("waste_top", CARD_IDS, "one-hot N2 id of the waste top (zeros: empty)"),
        ("waste_size", 1, "cards in the waste / deck size"),
        ("stock_size", 1, "cards in the stock / deck size"),
        ("seen", 1, "N24 seen / n, clipped to 1 (1 when n = 0)"),
        ("exhausted", 1, "N24 exhausted flag"),
        ("foundation", 1, "own cards on foundations / deck size"),
        ("hand_score", 1, "N30 hand score S, (S + 2 nerts_size) / (deck + 2 nerts_size)"),
        ("total", 1, "game total / target_score (not in [0, 1])"),
        ("last_blocked", 1, "N21: the seat's play was blocked in the last step"),
        ("last_priority", MAX_PLAYERS, "one-hot position of the seat in the last step's pi"),
        ("last_kind", NUM_KINDS, "one-hot kind (N19) of the seat's last action"),
    )


#: One foundation slot's block: (name, width, meaning).
SLOT_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("state", 3, "one-hot unused, open, complete"),
    ("suit", 4, "one-hot suit C D H S (zeros: unused)"),
    ("top", 1, "top rank / 13 (0: unused)"),
    ("owners", MAX_PLAYERS, "cards of each (rotated) seat on the slot / 13"),
)

#: The global block: (name, width, meaning).
GLOBAL_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("present", MAX_PLAYERS, "seats-present mask (rotated: the first P entries are 1)"),
    ("step", 1, "steps of this hand / max_steps_per_hand"),
    ("stall", 1, "N25 stall count / stall_steps"),
    ("remedy", 1, "N26 remedy flag (a remedy since the last progress)"),
    ("hand", 1, "hand index / max_hands"),
    ("slots_used", 1, "foundation slots in use / F"),
    ("hand_over", 1, "1 once the hand has ended"),
    (
        "rules",
        7,
        "players/6, nerts_size/20, turn_size/3, jokers/2, slide_under, auto_call, both_keep",
    ),
)


def _offsets(fields: Sequence[tuple[str, int, str]]) -> tuple[dict[str, slice], int]:
    out, at = {}, 0
    for name, width, _ in fields:
        out[name] = slice(at, at + width)
        at += width
    return out, at


class NertsEncoder:
    """The observation encoder of one :class:`NertsConfig` (see the module docstring)."""

    def __init__(self, config: NertsConfig) -> None:
        self.config = config
        self.players = config.num_players
        self.work_piles = config.work_piles
        self.num_slots = config.num_slots
        self.table = action_table(config)
        self.n_actions = self.table.n
        #: name -> slice within one seat block
        self.seat_fields, self.seat_width = _offsets(seat_fields(config.work_piles))
        #: name -> slice within one slot block
        self.slot_fields, self.slot_width = _offsets(SLOT_FIELDS)
        global_fields, global_width = _offsets(GLOBAL_FIELDS)
        seats_w = MAX_PLAYERS * self.seat_width
        slots_w = self.num_slots * self.slot_width
        #: top-level blocks of the observation: ``seats`` (6 seat blocks, rotated), ``slots``
        #: (F slot blocks) and each global field by name
        self.slices: dict[str, slice] = {
            "seats": slice(0, seats_w),
            "slots": slice(seats_w, seats_w + slots_w),
        }
        base = seats_w + slots_w
        for name, s in global_fields.items():
            self.slices[name] = slice(base + s.start, base + s.stop)
        self.size = base + global_width
        self._kind = np.array([int(a.kind) for a in self.table._decoded], dtype=np.int64)
        deck, ns = config.deck_size, config.nerts_size
        self._per_deck = 1.0 / deck
        self._score_lo = -2 * ns
        self._score_span = deck + 2 * ns
        c = config
        self._rules = np.array(
            [
                c.num_players / MAX_PLAYERS,
                c.nerts_size / MAX_NERTS,
                c.turn_size / MAX_TURN,
                c.jokers / MAX_JOKERS,
                float(c.slide_under),
                float(c.auto_call),
                float(c.foundation_tie == "both_keep"),
            ],
            dtype=np.float32,
        )
        self._total_bounds = (
            -2.0 * ns * c.max_hands / c.target_score,
            (c.target_score - 1 + deck) / c.target_score,
        )

    # ------------------------------------------------------------------ slices
    def seat_slice(self, r: int, name: str) -> slice:
        """Absolute slice of field ``name`` of rotated seat ``r`` (0 = the observer)."""
        s = self.seat_fields[name]
        base = r * self.seat_width
        return slice(base + s.start, base + s.stop)

    def slot_slice(self, f: int, name: str) -> slice:
        """Absolute slice of field ``name`` of foundation slot ``f``."""
        s = self.slot_fields[name]
        base = self.slices["slots"].start + f * self.slot_width
        return slice(base + s.start, base + s.stop)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` float32 Box bounds of the observation."""
        low = np.zeros(self.size, dtype=np.float32)
        high = np.ones(self.size, dtype=np.float32)
        lo, hi = self._total_bounds
        for r in range(MAX_PLAYERS):
            s = self.seat_slice(r, "total")
            low[s], high[s] = lo, hi
        return low, high

    # ------------------------------------------------------------------ encoding
    def tables(self, view: NertsView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The seat-independent part of every observation, in *absolute* seat order:
        ``(seats (P, seat_width), slots (F, slot_width), global)``. Reads ``view``'s public
        fields only (not its seat or mask)."""
        p, nw = self.players, self.work_piles
        sf = self.seat_fields
        seats = np.zeros((p, self.seat_width), dtype=np.float32)
        ns = self.config.nerts_size
        nerts_top = seats[:, sf["nerts_top"]]
        waste_top = seats[:, sf["waste_top"]]
        work_cards = seats[:, sf["work_cards"]].reshape(p, nw, CARD_IDS)
        work_len = seats[:, sf["work_len"]]
        work_base = seats[:, sf["work_base"]]
        work_top = seats[:, sf["work_top"]]
        last_priority = seats[:, sf["last_priority"]]
        last_kind = seats[:, sf["last_kind"]]
        seats[:, sf["present"]] = 1.0
        for s in range(p):
            top = view.nerts_top[s]
            if top is not None:
                nerts_top[s, top] = 1.0
            top = view.waste_top[s]
            if top is not None:
                waste_top[s, top] = 1.0
            for w, pile in enumerate(view.work[s]):
                if not pile:
                    continue
                work_cards[s, w, list(pile)] = 1.0
                work_len[s, w] = len(pile) / KING
                r0 = pile_anchor(pile)[0]
                if r0 >= 0:
                    work_base[s, w] = r0 / KING
                    work_top[s, w] = (r0 - len(pile) + 1) / KING
            n = view.stock_size[s] + view.waste_size[s]
            seats[s, sf["seen"]] = min(view.seen[s] / n, 1.0) if n else 1.0
        seats[:, sf["nerts_size"].start] = np.array(view.nerts_size) / ns
        seats[:, sf["waste_size"].start] = np.array(view.waste_size) * self._per_deck
        seats[:, sf["stock_size"].start] = np.array(view.stock_size) * self._per_deck
        seats[:, sf["exhausted"].start] = view.exhausted
        seats[:, sf["foundation"].start] = np.array(view.found_count) * self._per_deck
        seats[:, sf["hand_score"].start] = (
            np.array(view.hand_scores) - self._score_lo
        ) / self._score_span
        seats[:, sf["total"].start] = np.array(view.totals) / self.config.target_score
        if view.last_actions is not None:
            seats[:, sf["last_blocked"].start] = view.last_blocked
            for pos, s in enumerate(view.last_priority):
                last_priority[s, pos] = 1.0
            last_kind[np.arange(p), self._kind[list(view.last_actions)]] = 1.0

        slots = np.zeros((self.num_slots, self.slot_width), dtype=np.float32)
        lf = self.slot_fields
        state = slots[:, lf["state"]]
        suit = slots[:, lf["suit"]]
        owners = slots[:, lf["owners"]]
        top_col = lf["top"].start
        for f, slot in enumerate(view.slots):
            if slot.suit < 0:
                state[f, 0] = 1.0
                continue
            state[f, 2 if slot.complete else 1] = 1.0
            suit[f, slot.suit] = 1.0
            slots[f, top_col] = slot.top / KING
            for o in slot.owners:
                owners[f, o] += 1.0 / KING

        g = np.zeros(self.size - self.slices["present"].start, dtype=np.float32)
        base = self.slices["present"].start
        cfg = self.config

        def put(name: str, value: object) -> None:
            s = self.slices[name]
            g[s.start - base : s.stop - base] = value

        put("present", [1.0] * p + [0.0] * (MAX_PLAYERS - p))
        put("step", view.step / cfg.max_steps_per_hand)
        put("stall", min(view.stall / cfg.stall_steps, 1.0))
        put("remedy", float(view.remedy_done))
        put("hand", view.hand / cfg.max_hands)
        put("slots_used", view.slots_used / self.num_slots)
        put("hand_over", float(view.hand_over))
        put("rules", self._rules)
        return seats, slots, g

    def rotate(
        self, tables: tuple[np.ndarray, np.ndarray, np.ndarray], seat: int, out: np.ndarray
    ) -> np.ndarray:
        """Write the observation of ``seat`` (absolute) from :meth:`tables` into ``out``."""
        seats, slots, g = tables
        p = self.players
        order = [(seat + r) % p for r in range(p)]
        out[: self.slices["seats"].stop] = 0.0
        block = out[self.slices["seats"]].reshape(MAX_PLAYERS, self.seat_width)
        block[:p] = seats[order]
        sb = out[self.slices["slots"]].reshape(self.num_slots, self.slot_width)
        owners = self.slot_fields["owners"]
        sb[:, : owners.start] = slots[:, : owners.start]
        sb[:, owners] = 0.0
        sb[:, owners.start : owners.start + p] = slots[:, owners.start + np.array(order)]
        out[self.slices["present"].start :] = g
        return out

    def encode(self, view: NertsView) -> np.ndarray:
        """The observation of ``view.seat`` (a new float32 array)."""
        out = np.zeros(self.size, dtype=np.float32)
        return self.rotate(self.tables(view), view.seat, out)

    def mask(self, view: NertsView) -> np.ndarray:
        """The action mask of ``view.seat``: int8 over the N36 table (its own legal ids)."""
        mask = np.zeros(self.n_actions, dtype=np.int8)
        mask[list(view.legal_actions)] = 1
        return mask


class StateEncoder:
    """Full information (``state()``): seat 0's observation plus every hidden card.

    The hidden block follows the observation: for each of the six (absolute, padded) seats
    and each of the 54 card ids, four numbers -- in the Nerts pile, in the stock, in the
    waste, and the card's depth from the top of that pile / deck size (0 = the top). Work
    piles and foundations are in the observation part already.
    """

    PLACES = ("nerts", "stock", "waste")

    def __init__(self, config: NertsConfig) -> None:
        self.config = config
        self.observation = NertsEncoder(config)
        self.hidden_start = self.observation.size
        self.hidden_width = MAX_PLAYERS * CARD_IDS * 4
        self.size = self.hidden_start + self.hidden_width

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(low, high)`` float32 Box bounds of the state."""
        low, high = self.observation.bounds()
        return (
            np.concatenate([low, np.zeros(self.hidden_width, dtype=np.float32)]),
            np.concatenate([high, np.ones(self.hidden_width, dtype=np.float32)]),
        )

    def encode(self, game: NertsGame) -> np.ndarray:
        """The full-information state of ``game`` (a new float32 array)."""
        out = np.zeros(self.size, dtype=np.float32)
        self.observation.rotate(
            self.observation.tables(NertsView.from_game(game, 0)), 0, out[: self.hidden_start]
        )
        hidden = out[self.hidden_start :].reshape(MAX_PLAYERS, CARD_IDS, 4)
        per_deck = 1.0 / self.config.deck_size
        for s in range(game.num_players):
            # Every pile is stored bottom -> top (ND2): depth 0 is the last element.
            for k, pile in enumerate((game.nerts[s], game.stock[s], game.waste[s])):
                for depth, c in enumerate(reversed(pile)):
                    hidden[s, c, k] = 1.0
                    hidden[s, c, 3] = depth * per_deck
        return out
