"""Observation encoding: a compact integer vector per seat, and the float32 vector derived from it.

Every observation is built in two steps:

1. :meth:`ObservationEncoder.tokens` writes a small ``int16`` vector -- card categories,
   counts, flags -- seen from one seat (the *compact* encoding, cheap to batch);
2. :meth:`ObservationEncoder.expand` turns tokens into the ``float32`` observation: each
   categorical token becomes a one-hot block, each count is multiplied by a fixed scale.

So the float observation is exactly a function of the tokens, for one seat or a batch.
Its size depends only on the deck's number of card kinds ``K`` (18 for the R1 default),
never on the seat count: seats are listed from the observer on, in turn order, and
absent seats (fewer than 7 players) are padded with the category "absent" and a zero
presence flag. :attr:`ObservationEncoder.slices` names every block (see the env docs).

Card category of a layout position, hand or pile top: ``0`` none / absent / empty pile,
``1`` face down, ``2 + k`` card kind ``k`` (kinds are the deck's card codes, sorted: the
default deck's kinds are -4..-1, M, 1..12, H).

Nothing here depends on a card the observer cannot see: all information in this game is
public except the face-down layout cards and the draw pile, and those enter only through
their number. "Unseen" counts per kind are the deck minus every card the seat has seen and
can still locate: face-up layout cards, every discard-pile card (each was shown when
discarded), the card in hand and the hazards removed from play.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gnome_env.gnoming.cards import HAZARD
from gnome_env.gnoming.config import MAX_PLAYERS, MAX_ROUNDS, RulesConfig
from gnome_env.gnoming.engine import Game, Phase, Source

NONE, FACE_DOWN, FIRST_KIND = 0, 1, 2
TOTALS_SCALE = 1 / 100


@dataclass(frozen=True)
class Field:
    """One block of the observation: ``count`` tokens, one-hot (``categories`` > 0) or scaled."""

    name: str
    count: int
    categories: int = 0
    scale: float | tuple[float, ...] = 1.0  # one scale, or one per token

    @property
    def width(self) -> int:
        """Number of float32 entries the block takes."""
        return self.count * (self.categories or 1)


class ObservationEncoder:
    """Encodes a :class:`Game` for one seat (``observe``) or in full (``state``)."""

    def __init__(self, config: RulesConfig, *, reveal: bool = False) -> None:
        self.config = config
        self.reveal = reveal
        self.kinds = config.deck.kinds
        self.num_kinds = len(self.kinds)
        self.deck_size = config.deck.size
        self._category = {code: FIRST_KIND + k for k, code in enumerate(self.kinds)}
        self._kind_index = {code: k for k, code in enumerate(self.kinds)}
        self._deck_counts = [copies for _, copies in config.deck.counts]
        cats = FIRST_KIND + self.num_kinds
        per_deck = 1 / self.deck_size
        per_kind = tuple(1 / c for c in self._deck_counts)  # fraction of each kind
        fields = [
            Field("layouts", MAX_PLAYERS * 9, cats),
            Field("present", MAX_PLAYERS),
            Field("hand", 1, cats),
            Field("hand_source", 1, len(Source)),
            Field("can_bounce", 1),
            Field("pile_tops", 2, cats),
            Field("pile_sizes", 2, 0, per_deck),
            Field("draw_pile_size", 1, 0, per_deck),
            Field("phase", 1, len(Phase)),
            Field("filled", 9),
            Field("turn_player", 1, MAX_PLAYERS),
            Field("first_out", 1, MAX_PLAYERS + 1),
            Field("endgame_turns_left", 1, 0, 1 / (MAX_PLAYERS - 1)),
            Field("round", 1, 0, 1 / max(1, config.rounds - 1)),
            Field("turns_played", 1, 0, 1 / config.turn_cap),
            Field("totals", MAX_PLAYERS, 0, TOTALS_SCALE),
            Field("unseen", self.num_kinds, 0, per_kind),
            Field("seat", 1, MAX_PLAYERS),
        ]
        if reveal:
            fields += [
                Field("face_up", MAX_PLAYERS * 9),
                Field("acting_seat", 1, MAX_PLAYERS + 1),
                Field("draw_pile_counts", self.num_kinds, 0, per_kind),
            ]
        self.fields = tuple(fields)
        self.token_slices: dict[str, slice] = {}
        self.slices: dict[str, slice] = {}
        cat_tok, cat_off, sc_tok, sc_out, sc_scale = [], [], [], [], []
        t = o = 0
        for f in self.fields:
            self.token_slices[f.name] = slice(t, t + f.count)
            self.slices[f.name] = slice(o, o + f.width)
            for i in range(f.count):
                if f.categories:
                    cat_tok.append(t + i)
                    cat_off.append(o + i * f.categories)
                else:
                    sc_tok.append(t + i)
                    sc_out.append(o + i)
                    sc_scale.append(f.scale[i] if isinstance(f.scale, tuple) else f.scale)
            t += f.count
            o += f.width
        self.num_tokens = t
        self.size = o
        self._cat_tok = np.array(cat_tok, dtype=np.intp)
        self._cat_off = np.array(cat_off, dtype=np.intp)
        self._sc_tok = np.array(sc_tok, dtype=np.intp)
        self._sc_out = np.array(sc_out, dtype=np.intp)
        self._sc_scale = np.array(sc_scale, dtype=np.float32)
        self.categories = np.array([f.categories for f in self.fields for _ in range(f.count)])

    # ------------------------------------------------------------------ compact tokens
    def tokens(self, game: Game, seat: int) -> np.ndarray:
        """The compact ``int16`` encoding of ``game`` seen from ``seat``."""
        out = [0] * self.num_tokens
        n = game.num_players
        cat = self._category
        ts = self.token_slices
        visible = [0] * self.num_kinds
        kind = self._kind_index
        reveal = self.reveal
        base = ts["layouts"].start
        present = ts["present"].start
        totals = ts["totals"].start
        for rel in range(n):
            s = (seat + rel) % n
            layout, up = game.layouts[s], game.face_up[s]
            for q in range(9):
                code = layout[q]
                if up[q]:
                    out[base + 9 * rel + q] = cat[code]
                    visible[kind[code]] += 1
                else:
                    out[base + 9 * rel + q] = cat[code] if reveal else FACE_DOWN
            out[present + rel] = 1
            out[totals + rel] = game.totals[s]
        if game.held is not None:
            out[ts["hand"].start] = cat[game.held]
            visible[kind[game.held]] += 1
        out[ts["hand_source"].start] = int(game.held_source)
        out[ts["can_bounce"].start] = int(game.can_bounce)
        tops, sizes = ts["pile_tops"].start, ts["pile_sizes"].start
        for i, pile in enumerate(game.piles):
            if pile:
                out[tops + i] = cat[pile[-1]]
                out[sizes + i] = len(pile)
                for code in pile:
                    visible[kind[code]] += 1
        if game.hazards_removed:
            visible[kind[HAZARD]] += game.hazards_removed
        out[ts["draw_pile_size"].start] = len(game.draw_pile)
        out[ts["phase"].start] = int(game.phase)
        filled = ts["filled"].start
        for q in range(9):
            out[filled + q] = game.filled >> q & 1
        out[ts["turn_player"].start] = (game.turn_player - seat) % n
        if game.first_out is not None:
            out[ts["first_out"].start] = 1 + (game.first_out - seat) % n
        if game.endgame_turns_left is not None:
            out[ts["endgame_turns_left"].start] = game.endgame_turns_left
        out[ts["round"].start] = game.round
        out[ts["turns_played"].start] = game.turns_played
        unseen = ts["unseen"].start
        for k in range(self.num_kinds):
            out[unseen + k] = self._deck_counts[k] - visible[k]
        out[ts["seat"].start] = seat
        if reveal:
            face_up = ts["face_up"].start
            for rel in range(n):
                up = game.face_up[(seat + rel) % n]
                for q in range(9):
                    out[face_up + 9 * rel + q] = int(up[q])
            if game.current_seat >= 0:
                out[ts["acting_seat"].start] = 1 + (game.current_seat - seat) % n
            counts = ts["draw_pile_counts"].start
            for code in game.draw_pile:
                out[counts + kind[code]] += 1
        return np.array(out, dtype=np.int16)

    # ------------------------------------------------------------------ float expansion
    def expand(self, tokens: np.ndarray) -> np.ndarray:
        """Float32 observation(s) from token vector(s): ``[..., num_tokens] -> [..., size]``."""
        tokens = np.asarray(tokens)
        if tokens.ndim == 1:  # one observation: the same result without the batch machinery
            if tokens.shape[0] != self.num_tokens:
                raise ValueError(f"expected {self.num_tokens} tokens, got {tokens.shape[0]}")
            out1 = np.zeros(self.size, dtype=np.float32)
            out1[self._cat_off + tokens[self._cat_tok]] = 1.0
            out1[self._sc_out] = tokens[self._sc_tok] * self._sc_scale
            return out1
        lead = tokens.shape[:-1]
        flat = tokens.reshape(-1, self.num_tokens)
        out = np.zeros((flat.shape[0], self.size), dtype=np.float32)
        rows = np.arange(flat.shape[0])[:, None]
        out[rows, self._cat_off + flat[:, self._cat_tok]] = 1.0
        out[:, self._sc_out] = flat[:, self._sc_tok] * self._sc_scale
        return out.reshape((*lead, self.size))

    def expansion_table(self) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`expand` token by token, for compiled code: ``(offset, scale)``, int32 and
        float32 ``[num_tokens]``. A scale of 0 marks a one-hot token (1.0 at ``offset +
        token``); otherwise the entry at ``offset`` is ``token * scale`` in float32."""
        offset = np.zeros(self.num_tokens, dtype=np.int32)
        scale = np.zeros(self.num_tokens, dtype=np.float32)
        offset[self._cat_tok] = self._cat_off
        offset[self._sc_tok] = self._sc_out
        scale[self._sc_tok] = self._sc_scale
        if not (scale[self._sc_tok] != 0).all():  # pragma: no cover - every scale is 1/x
            raise RuntimeError("a scaled observation field has scale 0")
        return offset, scale

    def decode(self, observation: np.ndarray) -> np.ndarray:
        """The token vector(s) an observation was expanded from (inverse of :meth:`expand`)."""
        obs = np.asarray(observation, dtype=np.float32)
        lead = obs.shape[:-1]
        flat = obs.reshape(-1, self.size)
        out = np.zeros((flat.shape[0], self.num_tokens), dtype=np.int16)
        for f in self.fields:
            tok, sl = self.token_slices[f.name], self.slices[f.name]
            block = flat[:, sl]
            if f.categories:
                out[:, tok] = block.reshape(-1, f.count, f.categories).argmax(axis=2)
            else:
                scale = np.asarray(f.scale, dtype=np.float64)
                out[:, tok] = np.rint(block.astype(np.float64) / scale)
        return out.reshape((*lead, self.num_tokens))

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """The float32 observation of ``game`` seen from ``seat``."""
        return self.expand(self.tokens(game, seat))

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Element-wise (low, high) of the float observation, for a gymnasium ``Box``."""
        low = np.zeros(self.size, dtype=np.float32)
        high = np.ones(self.size, dtype=np.float32)
        totals = self.slices["totals"]
        # |round score| <= 9 * 99 + 5 < 1000 for any allowed card values (R1, R21), and a
        # game has at most MAX_ROUNDS rounds. A fixed bound keeps the space the same for
        # every rules config with the same deck kinds (one network for all of them).
        bound = 1000 * MAX_ROUNDS * TOTALS_SCALE
        low[totals] = -bound
        high[totals] = bound
        return low, high
