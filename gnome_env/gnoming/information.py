"""What one seat knows: a structured view of public information, and states sampled from it.

In Gnoming A Round nothing is private: every seat sees the same face-up cards, pile tops
and counts, and nobody has seen the face-down layout cards or the draw-pile order. A
:class:`SeatView` holds exactly that public information, seen by one seat. It can be built
from a game (:meth:`SeatView.from_game`) or from the seat's float observation alone
(:meth:`SeatView.from_observation`) -- both give the same view, so a bot that reads a view
knows no more than its observation tells it.

:func:`sample_game` deals out the unknown cards at random, consistently with a view, and
returns a complete :class:`~gnome_env.gnoming.engine.Game` to search over (determinization). It
never changes anything the seat can see: ``SeatView.from_game(sample_game(view, rng),
view.seat) == view``.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass

import numpy as np

from gnome_env.gnoming.cards import HAZARD
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.encoding import FACE_DOWN, FIRST_KIND, ObservationEncoder
from gnome_env.gnoming.engine import Game, Phase, Source, hazard_flip_queue, opening_flip_queue


@dataclass(frozen=True)
class SeatView:
    """Public information seen by ``seat``. Seats are absolute; ``None`` marks a face-down card."""

    config: RulesConfig
    seat: int
    phase: Phase
    current_seat: int
    turn_player: int
    layouts: tuple[tuple[int | None, ...], ...]
    hand: int | None
    hand_source: Source
    can_bounce: bool
    filled: int  # bitmask of positions filled this turn
    pile_tops: tuple[int | None, int | None]
    pile_sizes: tuple[int, int]
    below_tops: tuple[tuple[int, int], ...]  # (card, copies) under the pile tops, both piles
    draw_pile_size: int
    unseen: tuple[tuple[int, int], ...]  # (card, copies) face down or in the draw pile
    hazards_removed: int
    round: int
    turns_played: int
    first_out: int | None
    endgame_turns_left: int | None
    totals: tuple[int, ...]
    legal_actions: tuple[int, ...]

    @property
    def num_players(self) -> int:
        """Seats in the game."""
        return self.config.num_players

    def face_down(self, seat: int) -> list[int]:
        """Positions of ``seat``'s face-down cards."""
        return [q for q, c in enumerate(self.layouts[seat]) if c is None]

    def unseen_counter(self) -> Counter[int]:
        """The unseen cards (face down or in the draw pile) as a multiset."""
        return Counter(dict(self.unseen))

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_game(cls, game: Game, seat: int) -> SeatView:
        """The view of ``seat`` on ``game``."""
        known = Counter()
        for s in range(game.num_players):
            known.update(c for c, up in zip(game.layouts[s], game.face_up[s], strict=True) if up)
        below = Counter()
        for pile in game.piles:
            known.update(pile)
            below.update(pile[:-1])
        if game.held is not None:
            known[game.held] += 1
        known[HAZARD] += game.hazards_removed
        unseen = game.config.deck.counter() - known
        return cls(
            config=game.config,
            seat=seat,
            phase=game.phase,
            current_seat=game.current_seat,
            turn_player=game.turn_player,
            layouts=tuple(tuple(game.visible_layout(s)) for s in range(game.num_players)),
            hand=game.held,
            hand_source=game.held_source,
            can_bounce=game.can_bounce,
            filled=game.filled,
            pile_tops=tuple(p[-1] if p else None for p in game.piles),
            pile_sizes=tuple(len(p) for p in game.piles),
            below_tops=tuple(sorted(below.items())),
            draw_pile_size=len(game.draw_pile),
            unseen=tuple(sorted((+unseen).items())),
            hazards_removed=game.hazards_removed,
            round=game.round,
            turns_played=game.turns_played,
            first_out=game.first_out,
            endgame_turns_left=game.endgame_turns_left,
            totals=tuple(game.totals),
            legal_actions=tuple(sorted(game.legal_actions())),
        )

    @classmethod
    def from_observation(
        cls, observation: np.ndarray, mask: np.ndarray, config: RulesConfig
    ) -> SeatView:
        """The view encoded in the deciding seat's float observation and action mask.

        ``config`` must be the game's rules (its ``num_players`` may differ: the seat count
        is read from the observation).
        """
        enc0 = _encoder(config)
        n = int(enc0.decode(observation)[enc0.token_slices["present"]].sum())
        if n != config.num_players:
            config = config.replace(num_players=n)
        return cls.from_tokens(_encoder(config).decode(observation), mask, config)

    @classmethod
    def from_tokens(cls, tokens: np.ndarray, mask: np.ndarray, config: RulesConfig) -> SeatView:
        """The same view from the deciding seat's compact tokens (``ObservationEncoder.tokens``,
        as :class:`gnome_env.gnoming.vector.VectorGame` returns them) instead of the float
        vector."""
        enc0 = _encoder(config)
        # Python ints from here on: the per-card work below is much faster on a list than
        # on numpy scalars (this runs once per bot decision in training).
        tok = np.asarray(tokens).astype(int).tolist()
        n = sum(tok[enc0.token_slices["present"]])
        if n != config.num_players:
            config = _with_players(config, n)
        enc = _encoder(config)
        ts = enc.token_slices
        kinds = config.deck.kinds

        def card(category: int) -> int | None:
            return None if category < FIRST_KIND else kinds[category - FIRST_KIND]

        def one(name: str) -> int:
            return tok[ts[name].start]

        seat = one("seat")
        layouts: list[tuple[int | None, ...]] = [()] * n
        cats = tok[ts["layouts"]]  # 7 x 9, the observer's seat first
        for rel in range(n):
            layouts[(seat + rel) % n] = tuple(
                None if c == FACE_DOWN else card(c) for c in cats[9 * rel : 9 * rel + 9]
            )
        tops = tuple(card(c) for c in tok[ts["pile_tops"]])
        sizes = tuple(tok[ts["pile_sizes"]])
        hand = card(one("hand"))
        unseen = Counter({kinds[k]: x for k, x in enumerate(tok[ts["unseen"]]) if x})
        known = config.deck.counter() - unseen
        visible = Counter(c for layout in layouts for c in layout if c is not None)
        visible.update(c for c in tops if c is not None)
        if hand is not None:
            visible[hand] += 1
        hazards_removed = known[HAZARD] - visible[HAZARD]  # hazards never lie on a pile
        known[HAZARD] = visible[HAZARD]
        below = known - visible
        first_out_tok = one("first_out")
        phase = Phase(one("phase"))
        endgame = one("endgame_turns_left")
        filled_bits = tok[ts["filled"]]
        return cls(
            config=config,
            seat=seat,
            phase=phase,
            current_seat=seat,
            turn_player=(seat + one("turn_player")) % n,
            layouts=tuple(layouts),
            hand=hand,
            hand_source=Source(one("hand_source")),
            can_bounce=bool(one("can_bounce")),
            filled=sum(b << q for q, b in enumerate(filled_bits)),
            pile_tops=tops,
            pile_sizes=sizes,
            below_tops=tuple(sorted((+below).items())),
            draw_pile_size=one("draw_pile_size"),
            unseen=tuple(sorted(unseen.items())),
            hazards_removed=hazards_removed,
            round=one("round"),
            turns_played=one("turns_played"),
            first_out=None if first_out_tok == 0 else (seat + first_out_tok - 1) % n,
            endgame_turns_left=endgame if first_out_tok else None,
            totals=tuple(tok[ts["totals"].start + (s - seat) % n] for s in range(n)),
            legal_actions=tuple(np.flatnonzero(mask).tolist()),
        )


@functools.lru_cache(maxsize=64)
def _with_players(config: RulesConfig, n: int) -> RulesConfig:
    """``config.replace(num_players=n)``, built once (configs are immutable; a replace
    validates every field, ~50 µs)."""
    return config.replace(num_players=n)


@functools.lru_cache(maxsize=32)
def _encoder(config: RulesConfig) -> ObservationEncoder:
    """One encoder per rules config (configs are immutable; building one costs ~60 µs)."""
    return ObservationEncoder(config)


def sample_game(view: SeatView, rng: np.random.Generator) -> Game:
    """A complete game consistent with ``view``: unseen cards dealt at random (determinization).

    The face-down positions and the draw pile get a random arrangement of the unseen cards;
    the cards under the pile tops are split at random between the piles (their order never
    matters: R8 shuffles them). The game gets a fresh seed from ``rng``, so its future
    reshuffles and later deals are as unknown as the real ones. Earlier rounds' results are
    not part of a view: the sample's ``round_results`` is empty, its ``totals`` are the view's.
    """
    config = view.config
    n = config.num_players
    hidden = list(view.unseen_counter().elements())
    order = rng.permutation(len(hidden))
    hidden = [hidden[i] for i in order]
    first_player = view.round % n if config.rotate_start else 0
    layouts, face_up = [], []
    for s in range(n):
        layout, up = [], []
        for card in view.layouts[s]:
            if card is None:
                layout.append(hidden.pop())
                up.append(False)
            else:
                layout.append(card)
                up.append(True)
        layouts.append(layout)
        face_up.append(up)
    down_count = [up.count(False) for up in face_up]
    if len(hidden) != view.draw_pile_size:
        raise ValueError(
            f"view is inconsistent: {len(hidden)} unseen cards left for a draw pile of "
            f"{view.draw_pile_size}"
        )
    below = list(Counter(dict(view.below_tops)).elements())
    below = [below[i] for i in rng.permutation(len(below))]
    piles: list[list[int]] = [[], []]
    for i in range(2):
        if view.pile_tops[i] is not None:
            take = view.pile_sizes[i] - 1
            piles[i] = [*below[:take], view.pile_tops[i]]
            below = below[take:]
    return Game.from_state(
        config=config,
        seed=int(rng.integers(2**63 - 1)),
        stacked_decks={},
        totals=view.totals,
        round_results=[],
        round=view.round,
        first_player=first_player,
        layouts=layouts,
        face_up=face_up,
        down_count=down_count,
        draw_pile=hidden,
        piles=piles,
        hazards_removed=view.hazards_removed,
        phase=view.phase,
        current_seat=view.current_seat if view.phase != Phase.GAME_OVER else -1,
        turn_player=view.turn_player,
        held=view.hand,
        held_source=view.hand_source,
        held_was_face_down=view.phase == Phase.DISPLACED and view.can_bounce,
        filled=view.filled,
        turns_played=view.turns_played,
        first_out=view.first_out,
        endgame_turns_left=view.endgame_turns_left,
        flip_queue=_flip_queue(view, first_player, down_count),
        reshuffles=0,
    )


def _flip_queue(view: SeatView, first_player: int, down_count: list[int]) -> list[int]:
    """The flips still to come (R5 opening, R13 hazard), starting with the deciding seat --
    the engine's own queues (:func:`gnome_env.gnoming.engine.opening_flip_queue` /
    :func:`~gnome_env.gnoming.engine.hazard_flip_queue`) from the seat's public information."""
    n = view.num_players
    if view.phase == Phase.OPENING_FLIP:
        return opening_flip_queue(first_player, n, down_count)
    if view.phase == Phase.HAZARD_FLIP:
        queue = hazard_flip_queue(view.turn_player, n, down_count)
        return queue[queue.index(view.current_seat) :]
    return []
