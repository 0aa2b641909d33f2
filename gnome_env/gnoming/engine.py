"""The pure game engine: state, legal actions, transitions and scoring for R1-R23.

One :class:`Game` is one whole game (all rounds). The decision API is:

* ``game.current_seat`` -- the seat that must decide now (also out of turn: opening flips
  R5 and hazard flips R13 are decisions of the seat concerned); ``-1`` once the game is over;
* ``game.phase`` -- a :class:`Phase`;
* ``game.legal_actions()`` (list of ids) / ``game.legal_mask()`` (bool array over the
  action table of :mod:`gnome_env.gnoming.actions`);
* ``game.step(action)`` -- an illegal or malformed action raises ``ValueError`` and leaves
  the state unchanged.

Every random choice comes from the project's own counter-based generator
(:mod:`gnome_env.core.rng`), keyed by ``(seed, round)`` for the deal (R3) and ``(seed, round,
k)`` for the k-th reshuffle (R8) of that round: :func:`deal_order` and
:func:`reshuffle_order`, the very functions the kernels of the vectorized engine
(:mod:`gnome_env.gnoming.vector`) compile. The state therefore holds no generator, only counters:
the same seed and the same actions always give the same game, on any numpy version, and
copies are cheap.

The state is declared once, in :data:`STATE_FIELDS`: ``Game``'s slots, :meth:`Game.copy`,
:meth:`Game.state_tuple` and the public constructor :meth:`Game.from_state` follow it, and
the kernels (:mod:`gnome_env.gnoming._kernels`) check their row columns against it at import.

Test hook (documented, used by the rule tests): ``Game(config, seed, stacked_decks={r: deck})``
replaces round ``r``'s shuffled deck with ``deck``, a full deck order in R2 tokens, top card
first. :func:`gnome_env.gnoming.testing.stack_deck` builds such an order from the layouts and pile
cards a test wants. :class:`gnome_env.gnoming.vector.KernelGame` takes the same hook, so every rule
test runs on both engines (:class:`gnome_env.gnoming.testing.KernelRulesGame`).
"""

from __future__ import annotations

import functools
import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from gnome_env.core.renamed import old_method, old_property
from gnome_env.core.rng import MAX_SEED, deal_order, reshuffle_order
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, LAYOUT_SIZE, MULLIGAN, card_token, parse_card
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.scoring import layout_score_codes

FIRST_OUT_BONUS = 5  # R21
ALL_FILLED = (1 << LAYOUT_SIZE) - 1


class Phase(IntEnum):
    """What kind of decision the current seat faces."""

    OPENING_FLIP = 0  # R5: flip one of your own face-down cards
    DRAW = 1  # R7: draw, or take a discard-pile top
    PLACE = 2  # R9: card in hand: place it (R10) or discard it (R14)
    DISPLACED = 3  # R10/R11: a displaced card: bounce it, or discard it
    HAZARD_FLIP = 4  # R13: flip one of your own face-down cards, or decline
    GAME_OVER = 5


class Source(IntEnum):
    """Where the card in hand came from."""

    NONE = 0
    DRAW_PILE = 1
    PILE_A = 2
    PILE_B = 3
    DISPLACED = 4


@dataclass(frozen=True)
class RoundResult:
    """What happened at the end of one round (R16-R22)."""

    round: int
    layouts: tuple[tuple[int, ...], ...]  # revealed layouts, card codes
    layout_scores: tuple[int, ...]  # R18-R20
    first_out: int | None  # R15
    round_scores: tuple[int, ...]  # R22
    ended_by: str  # "endgame" (R15), "turn_cap" or "no_draw" (R17)
    turns: int


# ---------------------------------------------------------------------- the state, once
# How a field is copied by Game.copy(): SHARED (immutable, or never changed in place), LIST
# (a flat list, copied) or NESTED (a list of lists, copied two deep).
SHARED, LIST, NESTED = "shared", "list", "nested"


class StateField(NamedTuple):
    """One field of a :class:`Game`'s state (see :data:`STATE_FIELDS`)."""

    name: str
    copy: str  # SHARED, LIST or NESTED
    key: Callable[[Any], Any] | None  # its form in state_tuple(); None: the value itself
    kernel: tuple[str, ...]  # the kernel row columns (gnome_env.gnoming._kernels C_*) that hold it
    note: str = ""  # where the kernels keep it if not in the row, or what it means


def _decks_key(decks: Mapping[int, Sequence[str]]) -> tuple:
    return tuple(sorted((r, tuple(d)) for r, d in decks.items()))


def _nested_key(rows: Sequence[Sequence[Any]]) -> tuple:
    return tuple(map(tuple, rows))


#: Every field that defines a game, declared once. :class:`Game`'s ``__slots__``,
#: :meth:`Game.copy`, :meth:`Game.state_tuple` and the public constructor
#: :meth:`Game.from_state` are derived from this table, and :mod:`gnome_env.gnoming._kernels`
#: checks at import that every kernel column named here exists -- so a new field is one
#: edit here (plus the rule code that uses it). The order is the order of state_tuple().
STATE_FIELDS: tuple[StateField, ...] = (
    StateField("config", SHARED, lambda c: _config_key(c), (), "the prm / VectorGame params"),
    StateField("seed", SHARED, None, (), "VectorGame._seeds / KernelGame.seed"),
    StateField("stacked_decks", SHARED, _decks_key, (), "test hook; KernelGame.stacked_decks"),
    StateField("totals", LIST, tuple, ("C_TOTALS",), "game totals after finished rounds"),
    StateField("round_results", LIST, tuple, ("C_LAST",), "kernels: last round's scores"),
    StateField("round", SHARED, None, ("C_ROUND",)),
    StateField("first_player", SHARED, None, ("C_FIRST_PLAYER",), "R6"),
    StateField("layouts", NESTED, _nested_key, ("C_LAY",), "card codes, row-major"),
    StateField("face_up", NESTED, _nested_key, ("C_SHOWN",)),
    StateField("down_count", LIST, tuple, ("C_DOWN",), "face-down cards per seat"),
    StateField("draw_pile", LIST, tuple, ("C_LEN",), "top card last; cards in stack 0"),
    StateField("piles", NESTED, _nested_key, ("C_LEN",), "discard piles A, B; stacks 1, 2"),
    StateField("hazards_removed", SHARED, None, ("C_HAZ_REMOVED",), "R4, R13"),
    StateField("phase", SHARED, int, ("C_PHASE",)),
    StateField("current_seat", SHARED, None, ("C_SEAT",), "-1 once the game is over"),
    StateField("turn_player", SHARED, None, ("C_TURN_PLAYER",)),
    StateField("held", SHARED, None, ("C_HELD",), "card code in hand or None"),
    StateField("held_source", SHARED, int, ("C_HELD_SRC",)),
    StateField("held_was_face_down", SHARED, None, ("C_HELD_DOWN",), "R11"),
    StateField("filled", SHARED, None, ("C_FILLED",), "R11: positions filled this turn"),
    StateField("turns_played", SHARED, None, ("C_TURNS",), "R17"),
    StateField("first_out", SHARED, None, ("C_FIRST_OUT",), "R15, None: nobody yet"),
    StateField("endgame_turns_left", SHARED, None, ("C_ENDGAME",), "R15, None: no endgame"),
    StateField("flip_queue", LIST, tuple, ("C_FQ", "C_FQ_POS", "C_FQ_LEN"), "R5, R13"),
    StateField("reshuffles", SHARED, None, ("C_RESHUFFLES",), "R8, this round"),
)
#: Not state but kept on a Game: the action history, and values derived from the config
#: or cached (recomputed by from_state).
HISTORY_AND_CACHE = ("actions", "num_players", "_turn_cap", "_legal")


def _copied(field: StateField, value: Any) -> Any:
    """``value`` copied as ``field.copy`` says (SHARED values are shared)."""
    if field.copy == LIST:
        return list(value)
    if field.copy == NESTED:
        return [list(row) for row in value]
    return value


def opening_flip_queue(first_player: int, num_players: int, down_count: Sequence[int]) -> list[int]:
    """R5: the opening flips still to come -- seats in order from the first player, each
    once per flip it has left (two at the deal, ``2 - flipped`` later)."""
    n = num_players
    order = [(first_player + i) % n for i in range(n)]
    return [s for s in order for _ in range(2 - (LAYOUT_SIZE - down_count[s]))]


def hazard_flip_queue(turn_player: int, num_players: int, down_count: Sequence[int]) -> list[int]:
    """R13: the seats offered a flip after ``turn_player`` discards a hazard -- the others in
    turn order with at least two face-down cards."""
    n = num_players
    return [s for s in ((turn_player + i) % n for i in range(1, n)) if down_count[s] >= 2]


class Game:
    """One game of Gnoming A Round under a :class:`RulesConfig`, driven by :meth:`step`."""

    # The old spellings (before one vocabulary for every engine): warn once.
    apply = old_method("step", "apply", "Game")
    is_over = old_property("game_over", "is_over", "Game")

    __slots__ = tuple(sorted({f.name for f in STATE_FIELDS} | set(HISTORY_AND_CACHE)))

    def __init__(
        self,
        config: RulesConfig | None = None,
        seed: int = 0,
        *,
        stacked_decks: Mapping[int, Sequence[object]] | None = None,
    ) -> None:
        if config is None:
            config = RulesConfig()
        if not isinstance(config, RulesConfig):
            raise ValueError(f"config must be a RulesConfig, got {type(config).__name__}")
        bad = isinstance(seed, bool) or not isinstance(seed, (int, np.integer))
        if bad or not 0 <= seed < MAX_SEED:
            raise ValueError(
                f"seed={seed!r} is not allowed: must be an integer from 0 to {MAX_SEED - 1}"
            )
        self.config = config
        self.seed = int(seed)
        self.num_players = config.num_players
        self._turn_cap = config.turn_cap
        self.stacked_decks = check_stacked_decks(config, stacked_decks)
        self.actions: list[int] = []
        self.totals = [0] * self.num_players
        self.round_results: list[RoundResult] = []
        self._start_round(0)

    # ------------------------------------------------------------------ static facts
    @staticmethod
    def max_decisions(config: RulesConfig) -> int:
        """Upper bound on the number of decisions in a game (used to prove termination).

        Per round: 2 opening flips a seat, then at most ``turn_cap`` turns of at most
        1 draw + 1 place + 8 bounces + 1 discard + (players - 1) hazard flips.
        """
        n = config.num_players
        return config.rounds * (2 * n + config.turn_cap * (11 + n - 1))

    # ------------------------------------------------------------------ round set-up
    def _start_round(self, r: int) -> None:
        cfg = self.config
        n = self.num_players
        self.round = r
        self.first_player = r % n if cfg.rotate_start else 0  # R6
        self.reshuffles = 0
        if r in self.stacked_decks:
            deck = [parse_card(token) for token in self.stacked_decks[r]]
        else:  # R3
            cards = cfg.deck.cards()
            deck = [cards[i] for i in deal_order(self.seed, r, len(cards))]
        self.layouts = [deck[9 * p : 9 * p + 9] for p in range(n)]
        self.face_up = [[False] * 9 for _ in range(n)]
        self.down_count = [9] * n
        rest = deck[9 * n :]
        rest.reverse()  # top of the draw pile is the end of the list
        self.draw_pile = rest
        self.piles: list[list[int]] = [[], []]
        self.hazards_removed = 0
        for pile in self.piles:  # R4
            while self.draw_pile:
                card = self.draw_pile.pop()
                if card == HAZARD:
                    self.hazards_removed += 1
                    continue
                pile.append(card)
                break
        self.held = None
        self.held_source = Source.NONE
        self.held_was_face_down = False
        self.filled = 0
        self.turns_played = 0
        self.first_out: int | None = None
        self.endgame_turns_left: int | None = None
        self.flip_queue = opening_flip_queue(self.first_player, n, self.down_count)  # R5
        self.phase = Phase.OPENING_FLIP
        self.turn_player = self.first_player
        self.current_seat = self.flip_queue[0]
        self._legal: list[int] | None = None

    # ------------------------------------------------------------------ legality
    def _can_take(self, seat: int, card: int) -> bool:
        """R9/R12: a taken card must have a legal use: placing it, or discarding it again."""
        if card != MULLIGAN or self.config.discard_taken_card:
            return True
        return bool(mulligan_positions(self.visible_layout(seat)))

    def _reshuffle_size(self) -> int:
        """R8: how many cards a reshuffle would give (all discards but the pile tops)."""
        a, b = self.piles
        return (len(a) - 1 if a else 0) + (len(b) - 1 if b else 0)

    def _draw_actions(self, seat: int) -> list[int]:
        out = []
        if self.draw_pile or self._reshuffle_size() > 0:
            out.append(A.DRAW)
        a, b = self.piles
        if a and self._can_take(seat, a[-1]):
            out.append(A.TAKE_A)
        if b and self._can_take(seat, b[-1]):
            out.append(A.TAKE_B)
        return out

    def _discard_actions(self, card: int) -> list[int]:
        """R13/R14: hazards leave play (one action); else an empty pile must be refilled."""
        if card == HAZARD:
            return [A.DISCARD_A]
        a_empty = not self.piles[0]
        b_empty = not self.piles[1]
        if a_empty and not b_empty:
            return [A.DISCARD_A]
        if b_empty and not a_empty:
            return [A.DISCARD_B]
        return [A.DISCARD_A, A.DISCARD_B]

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        seat = self.current_seat
        if phase == Phase.DRAW:
            return self._draw_actions(seat)
        if phase == Phase.PLACE:
            held = self.held
            if held == MULLIGAN:  # R12
                out = [A.PLACE + q for q in mulligan_positions(self.visible_layout(seat))]
            else:
                out = list(range(A.PLACE, A.PLACE + 9))
            if self.held_source == Source.DRAW_PILE or self.config.discard_taken_card:
                out += self._discard_actions(held)
            return out
        if phase == Phase.DISPLACED:
            out = []
            if self._displaced_can_bounce():
                filled = self.filled
                out = [A.BOUNCE + q for q in range(9) if not filled >> q & 1]
            return out + self._discard_actions(self.held)
        if phase == Phase.OPENING_FLIP or phase == Phase.HAZARD_FLIP:
            up = self.face_up[seat]
            out = [A.FLIP + q for q in range(9) if not up[q]]
            if phase == Phase.HAZARD_FLIP:
                out.append(A.DECLINE)
            return out
        return []

    def _displaced_can_bounce(self) -> bool:
        """R11: face down before (or variant), positive, matches a face-up positive card."""
        card = self.held
        if not (0 < card < HAZARD):
            return False
        if not (self.held_was_face_down or self.config.bounce_face_up):
            return False
        if self.filled == ALL_FILLED:
            return False
        layout, up = self.layouts[self.turn_player], self.face_up[self.turn_player]
        for q in range(9):
            if up[q] and layout[q] == card:
                return True
        return False

    def legal_actions(self) -> list[int]:
        """Ids of the legal actions for ``current_seat`` (empty once the game is over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        return list(legal)

    def legal_mask(self) -> np.ndarray:
        """Boolean mask over the action table: True where :meth:`step` accepts the action."""
        mask = np.zeros(A.NUM_ACTIONS, dtype=bool)
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        mask[legal] = True
        return mask

    @property
    def game_over(self) -> bool:
        """True once every round has been played."""
        return self.phase == Phase.GAME_OVER

    @property
    def can_bounce(self) -> bool:
        """Whether the card in hand is a displaced card that may bounce (R11)."""
        return self.phase == Phase.DISPLACED and self._displaced_can_bounce()

    # ------------------------------------------------------------------ transitions
    def step(self, action: int) -> None:
        """Carry out ``action`` for ``current_seat``; illegal actions raise ``ValueError``."""
        if type(action) is not int:
            action = A.coerce_action(action)
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal()
        if action not in legal:
            self._reject(action, legal)
        self._legal = None
        self.actions.append(action)
        phase = self.phase
        if phase == Phase.DRAW:
            self._do_draw(action)
        elif phase == Phase.PLACE:
            if action < A.DISCARD_A:
                self._put(action - A.PLACE)
            else:
                self._discard(action)
        elif phase == Phase.DISPLACED:
            if action >= A.BOUNCE:
                self._put(action - A.BOUNCE)
            else:
                self._discard(action)
        elif phase == Phase.OPENING_FLIP:
            self._flip(action - A.FLIP)
            self.flip_queue.pop(0)
            if self.flip_queue:
                self.current_seat = self.flip_queue[0]
            else:
                self._start_turn(self.first_player)
        else:  # HAZARD_FLIP
            if action != A.DECLINE:
                self._flip(action - A.FLIP)
            self.flip_queue.pop(0)
            if self.flip_queue:
                self.current_seat = self.flip_queue[0]
            else:
                self._end_turn()

    def _reject(self, action: int, legal: list[int]) -> None:
        if not 0 <= action < A.NUM_ACTIONS:
            A.coerce_action(action)  # raises the out-of-range message
        allowed = ", ".join(f"{a} ({A.ACTION_NAMES[a]})" for a in legal) or "none"
        raise ValueError(
            f"illegal action {action} ({A.ACTION_NAMES[action]}) in phase {self.phase.name} "
            f"for seat {self.current_seat}; legal actions: {allowed}"
        )

    def _do_draw(self, action: int) -> None:
        if action == A.DRAW:
            if not self.draw_pile:
                self._reshuffle()
            self.held = self.draw_pile.pop()
            self.held_source = Source.DRAW_PILE
        else:
            pile = action - A.TAKE_A
            self.held = self.piles[pile].pop()
            self.held_source = Source.PILE_B if pile else Source.PILE_A
        self.phase = Phase.PLACE

    def _reshuffle(self) -> None:
        """R8: every discard-pile card but each pile's top becomes a new, shuffled draw pile."""
        cards: list[int] = []
        for pile in self.piles:
            if len(pile) > 1:
                cards.extend(pile[:-1])
                del pile[:-1]
        self.reshuffles += 1
        order = reshuffle_order(self.seed, self.round, self.reshuffles, len(cards))
        self.draw_pile = [cards[i] for i in order]

    def _flip(self, pos: int) -> None:
        seat = self.current_seat
        self.face_up[seat][pos] = True
        self.down_count[seat] -= 1

    def _put(self, pos: int) -> None:
        """R10: the card in hand goes face up to ``pos``; the card there is displaced."""
        seat = self.turn_player
        layout, up = self.layouts[seat], self.face_up[seat]
        displaced = layout[pos]
        was_down = not up[pos]
        layout[pos] = self.held
        if was_down:
            up[pos] = True
            self.down_count[seat] -= 1
        self.filled |= 1 << pos
        self.held = displaced
        self.held_source = Source.DISPLACED
        self.held_was_face_down = was_down
        self.phase = Phase.DISPLACED

    def _discard(self, action: int) -> None:
        """R13/R14: discard the card in hand; this ends the turn's chain."""
        card = self.held
        self.held = None
        self.held_source = Source.NONE
        self.held_was_face_down = False
        if card == HAZARD:
            self.hazards_removed += 1
            if not self._round_ends_after_this_turn():
                queue = hazard_flip_queue(self.turn_player, self.num_players, self.down_count)
                if queue:
                    self.flip_queue = queue
                    self.phase = Phase.HAZARD_FLIP
                    self.current_seat = queue[0]
                    return
        else:
            self.piles[action - A.DISCARD_A].append(card)
        self._end_turn()

    def _round_ends_after_this_turn(self) -> bool:
        """R13: the last endgame turn (R15) or the turn that reaches the cap (R17)."""
        return self.endgame_turns_left == 1 or self.turns_played + 1 >= self._turn_cap

    def _end_turn(self) -> None:
        player = self.turn_player
        self.turns_played += 1
        if self.endgame_turns_left is not None:
            self.endgame_turns_left -= 1
        elif self.down_count[player] == 0:  # R15
            self.first_out = player
            self.endgame_turns_left = self.num_players - 1
        if self.endgame_turns_left == 0:
            self._end_round("endgame")
        elif self.turns_played >= self._turn_cap:
            self._end_round("turn_cap")
        else:
            self._start_turn((player + 1) % self.num_players)

    def _start_turn(self, player: int) -> None:
        self.turn_player = player
        self.current_seat = player
        self.phase = Phase.DRAW
        self.filled = 0
        legal = self._draw_actions(player)
        if legal:
            self._legal = legal
            return
        # Nothing this player may draw (only untakeable mulligans left, R12). See
        # docs/rules.md, decision D3: the round ends if no player can draw (R17),
        # otherwise this player passes; the pass counts as their turn.
        if not any(self._draw_actions(s) for s in range(self.num_players)):
            self._end_round("no_draw")
        else:
            self._end_turn()

    def _end_round(self, ended_by: str) -> None:
        n = self.num_players
        for seat in range(n):  # R16
            self.face_up[seat] = [True] * 9
            self.down_count[seat] = 0
        layout_scores = [layout_score_codes(layout) for layout in self.layouts]
        round_scores = list(layout_scores)
        first_out = self.first_out
        if first_out is not None:  # R21
            mine = layout_scores[first_out]
            best_other = min(layout_scores[s] for s in range(n) if s != first_out)
            lowest = mine < best_other or (
                mine == best_other and self.config.first_out_tie_is_lowest
            )
            round_scores[first_out] += -FIRST_OUT_BONUS if lowest else FIRST_OUT_BONUS
        for seat in range(n):
            self.totals[seat] += round_scores[seat]
        self.round_results.append(
            RoundResult(
                round=self.round,
                layouts=tuple(tuple(layout) for layout in self.layouts),
                layout_scores=tuple(layout_scores),
                first_out=first_out,
                round_scores=tuple(round_scores),
                ended_by=ended_by,
                turns=self.turns_played,
            )
        )
        if self.round + 1 < self.config.rounds:
            self._start_round(self.round + 1)
        else:
            self.phase = Phase.GAME_OVER
            self.current_seat = -1
            self.flip_queue = []
            self._legal = []

    # ------------------------------------------------------------------ results
    def winners(self) -> tuple[int, ...]:
        """R23: lowest total; tie -> lowest last-round score; still tied -> shared win.

        Defined once the game is over; raises ``ValueError`` before that.
        """
        keys = self.ranking_keys()
        best = min(keys)
        return tuple(s for s in range(self.num_players) if keys[s] == best)

    def ranking_keys(self) -> list[tuple[int, int]]:
        """R23 order of the seats: ``(total, last-round score)`` each, lower is better; seats
        with equal keys are tied. Defined once the game is over (``ValueError`` before)."""
        if not self.game_over:
            raise ValueError("winners and rankings are only defined once the game is over")
        last = self.round_results[-1].round_scores
        return [(total, last[s]) for s, total in enumerate(self.totals)]

    # ------------------------------------------------------------------ views
    def visible_layout(self, seat: int) -> list[int | None]:
        """Seat's layout as everyone sees it: card codes, ``None`` where face down."""
        up = self.face_up[seat]
        return [code if up[q] else None for q, code in enumerate(self.layouts[seat])]

    def card_count(self) -> Counter[int]:
        """Every card of the round as a multiset: layouts, piles, hand, removed hazards."""
        counts: Counter[int] = Counter()
        for layout in self.layouts:
            counts.update(layout)
        counts.update(self.draw_pile)
        counts.update(self.piles[0])
        counts.update(self.piles[1])
        if self.held is not None:
            counts[self.held] += 1
        counts[HAZARD] += self.hazards_removed
        return +counts

    def copy(self) -> Game:
        """An independent copy (same future randomness)."""
        new = Game.__new__(Game)
        for f in STATE_FIELDS:
            setattr(new, f.name, _copied(f, getattr(self, f.name)))
        new.actions = list(self.actions)
        new.num_players = self.num_players
        new._turn_cap = self._turn_cap
        new._legal = None if self._legal is None else list(self._legal)
        return new

    @classmethod
    def from_state(cls, **fields: Any) -> Game:
        """A game in the given state: every field of :data:`STATE_FIELDS` by name, nothing
        else (``config`` a :class:`RulesConfig`; lists are copied). The new game has no
        action history. A missing or unknown field raises ``ValueError`` naming it; the
        state itself is not validated here (:func:`gnome_env.gnoming.validate.check_invariants`
        does that). Used by the information-set sampler
        (:func:`gnome_env.gnoming.information.sample_game`)."""
        names = [f.name for f in STATE_FIELDS]
        missing = [name for name in names if name not in fields]
        unknown = sorted(set(fields) - set(names))
        if missing or unknown:
            raise ValueError(
                f"Game.from_state: missing fields {missing}, unknown fields {unknown}; "
                f"the state fields are {names}"
            )
        config = fields["config"]
        if not isinstance(config, RulesConfig):
            raise ValueError(f"config must be a RulesConfig, got {type(config).__name__}")
        game = cls.__new__(cls)
        for f in STATE_FIELDS:
            setattr(game, f.name, _copied(f, fields[f.name]))
        game.phase = Phase(game.phase)
        game.held_source = Source(game.held_source)
        game.actions = []
        game.num_players = config.num_players
        game._turn_cap = config.turn_cap
        game._legal = None
        return game

    def state_tuple(self) -> tuple:
        """Every field that defines the game (:data:`STATE_FIELDS`, in its order), as a
        comparable tuple (hidden cards included)."""
        return tuple(
            getattr(self, f.name) if f.key is None else f.key(getattr(self, f.name))
            for f in STATE_FIELDS
        )

    def digest(self) -> str:
        """A short fingerprint of :meth:`state_tuple`, for records and determinism tests."""
        return hashlib.sha256(repr(self.state_tuple()).encode()).hexdigest()[:16]

    def render(self) -> str:
        """A plain-text picture of the table: layouts as 3x3 grids, face-down cards as ``##``.

        ``<`` marks the seat that decides now, ``*`` the first-out player. ``total`` under a
        layout is the seat's game total (the rounds already scored), not the layout's score.
        """
        rounds = self.config.rounds
        if self.phase == Phase.GAME_OVER:
            head = f"Game over | {rounds} round{'s' if rounds > 1 else ''} played"
        elif self.phase == Phase.OPENING_FLIP:
            head = (
                f"Round {self.round + 1}/{rounds} | phase OPENING_FLIP | seat {self.current_seat}"
            )
        else:
            head = (
                f"Round {self.round + 1}/{rounds} | phase {self.phase.name} | turn "
                f"{self.turns_played + 1} of at most {self._turn_cap}, seat {self.turn_player}"
            )
            if self.current_seat != self.turn_player:  # a hazard flip: another seat decides
                head += f"'s turn; seat {self.current_seat} decides"
        lines = [head]
        tops = [card_token(p[-1]) if p else "--" for p in self.piles]
        lines.append(
            f"Draw pile {len(self.draw_pile)} | pile A {tops[0]} ({len(self.piles[0])}) | "
            f"pile B {tops[1]} ({len(self.piles[1])}) | hazards removed {self.hazards_removed}"
        )
        if self.held is not None:
            lines.append(f"In hand: {card_token(self.held)} ({self.held_source.name.lower()})")
        width = 12
        heads, grid, foot = [], [[], [], []], []
        for seat in range(self.num_players):
            mark = ("<" if seat == self.current_seat else "") + (
                "*" if seat == self.first_out else ""
            )
            heads.append(f"seat {seat}{mark}".ljust(width))
            cells = [
                " ##" if c is None else f"{card_token(c):>3}" for c in self.visible_layout(seat)
            ]
            for row in range(3):
                grid[row].append("".join(cells[3 * row : 3 * row + 3]).ljust(width))
            foot.append(f"total {self.totals[seat]}".ljust(width))
        lines.append("".join(heads).rstrip())
        lines.extend("".join(row).rstrip() for row in grid)
        lines.append("".join(foot).rstrip())
        lines.append("(total: points of the rounds scored so far; a layout is scored at round end)")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"Game(players={self.num_players}, seed={self.seed}, round={self.round}, "
            f"phase={self.phase.name}, seat={self.current_seat})"
        )


def mulligan_positions(visible: Sequence[int | None]) -> list[int]:
    """R12: the positions of a layout (``None`` = face down) where a mulligan may be placed.

    Anywhere with no face-up mulligan; only on the face-up mulligan's own position with one;
    nowhere with two or more. The engine and the bots both ask this function.
    """
    shown = [q for q in range(LAYOUT_SIZE) if visible[q] == MULLIGAN]
    if not shown:
        return list(range(LAYOUT_SIZE))
    return shown if len(shown) == 1 else []


@functools.lru_cache(maxsize=64)
def _config_key(config: RulesConfig) -> str:
    """A stable text form of a config (computed once per config; it is immutable)."""
    return repr(config)


def check_stacked_decks(
    config: RulesConfig, stacked: Mapping[int, Sequence[object]] | None
) -> dict[int, tuple[str, ...]]:
    """Validate the test hook: each stacked deck is a full permutation of the deck spec.

    Returns the decks as normalized R2 tokens (the form records store).
    """
    if not stacked:
        return {}
    if not isinstance(stacked, Mapping):
        raise ValueError("stacked_decks must map round index to a deck order")
    want = config.deck.counter()
    out: dict[int, tuple[str, ...]] = {}
    for r, deck in stacked.items():
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < config.rounds:
            raise ValueError(
                f"stacked_decks: round {r!r} is not allowed: "
                f"must be an int in 0..{config.rounds - 1}"
            )
        codes = tuple(parse_card(c) for c in deck)
        got = Counter(codes)
        if got != want:
            missing = want - got
            extra = got - want
            raise ValueError(
                f"stacked_decks[{r}] is not a permutation of the deck: "
                f"missing {dict((card_token(c), k) for c, k in missing.items())}, "
                f"extra {dict((card_token(c), k) for c, k in extra.items())}"
            )
        out[r] = tuple(card_token(c) for c in codes)
    return out
