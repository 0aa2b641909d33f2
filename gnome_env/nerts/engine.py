"""The Nerts engine: state, legal actions and the simultaneous step of RULES-nerts.md.

One :class:`NertsGame` is one whole game (N31): a hand is dealt at construction (N4, N5),
every seat submits one action per step (N18), and :meth:`NertsGame.step` resolves them as
one simultaneous event (N20-N29). When a hand ends, its final position stays readable and
:meth:`NertsGame.next_hand` deals the next one (ND9 in ``docs/rules-nerts.md``).

Decision API (integer seats 0..P-1):

* ``game.legal_actions(seat)`` (ascending ids) / ``game.legal_mask(seat)`` (int8 over the
  N36 table of :mod:`gnome_env.nerts.actions`) / ``game.legal_masks()`` (all seats);
* ``game.step(actions)`` -- one action per seat, judged against the state at the start of
  the step (N18). An action outside its seat's mask, a wrong-length list or a non-int
  raises ``ValueError`` and changes nothing (not even the step counter);
* ``game.next_hand()`` after ``hand_over``; ``game.winners()`` once ``game_over``.

Randomness (N4) comes only from the project's keyed generator :mod:`gnome_env.core.rng`: seat
``s``'s deck in hand ``h`` is ``rng.permutation(52 + jokers, NERTS_DEAL, seed, h, s)`` of the
canonical deck (ids ascending, top card first), and step ``k`` (0-based within the hand)
draws ``pi = rng.permutation(P, NERTS_PRIORITY, seed, h, k)`` whatever the actions are.
The state holds no generator, so copies are cheap and the game never depends on a global
random state.

State (public, read-only outside the engine and the test hook): per seat ``nerts``
(bottom -> top, N2), ``nerts_face_up``, ``work`` (W piles, bottom -> top), ``stock``
(bottom -> top: the top card is the *last* element, ND2; :meth:`NertsGame.stock_top_first`
gives the order the rules write), ``waste`` (bottom -> top), ``seen`` and ``exhausted``
(N24); foundation slots ``slot_suit`` (-1 unused), ``slot_top`` (0 unused), ``slot_complete``,
``slot_cards`` (physical ids, jokers 52/53), ``slot_declared`` (the N2 card each one is,
N33), ``slot_owners``, ``slots_used``; ``hand``, ``steps``, ``stall``, ``remedy_done``,
``totals``, ``hand_results``, ``hand_over``, ``end_reason``, ``game_over``.

Test hook (documented in :mod:`gnome_env.nerts.testing`): ``stacked_decks={hand: {seat:
deck}}`` replaces the shuffle of those seats' decks (a full deck, N2 tokens, top first),
and :func:`gnome_env.nerts.testing.build_game` writes a position directly.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gnome_env.core import rng
from gnome_env.nerts.actions import (
    CALL,
    RECYCLE,
    SHIFT,
    TURN,
    WAIT,
    Kind,
    action_table,
    source_name,
)
from gnome_env.nerts.cards import (
    JOKER,
    KING,
    NUM_NATURAL,
    SUIT_COLOUR,
    SUITS,
    assign_jokers,
    format_card,
    format_cards,
    parse_cards,
)
from gnome_env.nerts.config import NertsConfig

END_NERTS, END_BLOCKED, END_CAP = "nerts", "blocked", "cap"
END_REASONS = (END_NERTS, END_BLOCKED, END_CAP)
MAX_RUN = 13  # N9

# Lookup tables: rank and colour of every id (jokers: 0 / -1), faster than divmod per card.
_RANK = (*(c % 13 + 1 for c in range(NUM_NATURAL)), 0, 0)
_COL = (*(SUIT_COLOUR[c // 13] for c in range(NUM_NATURAL)), -1, -1)
_NO_ANCHOR = (-1, -1, -1)


@dataclass(frozen=True)
class StepResult:
    """What one step did (N20-N29); per-seat tuples are indexed by seat."""

    step: int
    """The step's index within its hand (0-based): the ``k`` of pi's stream key."""
    actions: tuple[int, ...]
    priority: tuple[int, ...]
    """pi (N20): seats in priority order, first = highest priority."""
    done: tuple[bool, ...]
    """The seat's action resolved (a wait counts as done); False only when blocked."""
    blocked: tuple[bool, ...]
    """N21: the seat's foundation play lost the tie and had no effect."""
    progress: bool
    """N23: some resolved action took a card out of a Nerts pile or waste, or onto a slot."""
    progress_by: tuple[bool, ...]
    called: tuple[bool, ...]
    """N22: the seat called Nerts in this step."""
    remedy: bool
    """N26: the table was stuck and every stock was re-formed at the end of this step."""
    hand_over: bool
    end_reason: str | None
    """``nerts``, ``blocked`` or ``cap`` when the hand ended with this step, else None."""
    hand_scores: tuple[int, ...]
    """N30 evaluated on the state after the step (the hand score once the hand is over)."""
    totals: tuple[int, ...]
    """N31 totals (include this hand's scores when the hand ended in this step)."""
    game_over: bool


@dataclass(frozen=True)
class HandResult:
    """The end of one hand (N29, N30)."""

    hand: int
    scores: tuple[int, ...]
    end_reason: str
    steps: int
    callers: tuple[int, ...]


def pile_anchor(pile: Sequence[int]) -> tuple[int, int, int]:
    """N9/N32: ``(rank at index 0, colour at index 0, index of the last natural)`` of a run,
    or ``(-1, -1, -1)`` when it holds no natural card (empty, or jokers alone).

    Every rank and colour of a run follows from any one natural card in it, so these three
    numbers describe what a work pile accepts; position ``i`` has rank ``r0 - i`` and
    colour ``c0 ^ (i & 1)``.
    """
    r0 = c0 = last = -1
    for i, c in enumerate(pile):
        if c < NUM_NATURAL:
            if r0 < 0:
                r0, c0 = _RANK[c] + i, _COL[c] ^ (i & 1)
            last = i
    return r0, c0, last


def is_run(pile: Sequence[int]) -> bool:
    """N9 with N32: whether some choice for the jokers makes ``pile`` (bottom -> top) a run
    of ranks 13..1 with alternating colours."""
    if len(pile) > MAX_RUN:
        return False
    r0, c0, _ = pile_anchor(pile)
    if r0 < 0:
        return True  # jokers alone (or empty): free, apart from the length (N32)
    if r0 > KING or r0 - (len(pile) - 1) < 1:
        return False
    for i, c in enumerate(pile):
        if c < NUM_NATURAL and (_RANK[c] != r0 - i or _COL[c] != c0 ^ (i & 1)):
            return False
    return True


def priority_order(players: int, seed: int, hand: int, step: int) -> tuple[int, ...]:
    """N4/N20 (ND1): pi of step ``step`` (0-based) of hand ``hand``, highest priority first."""
    order = rng.permutation(players, rng.NERTS_PRIORITY, seed, hand, step)
    return tuple(order.tolist())


def deal_order(deck_size: int, seed: int, hand: int, seat: int) -> list[int]:
    """N4/N5 (ND1): seat ``seat``'s shuffled deck in hand ``hand``, top card first (the
    canonical deck is ids 0..deck_size-1, so the permutation is the deck)."""
    return rng.permutation(deck_size, rng.NERTS_DEAL, seed, hand, seat).tolist()


def game_winners(totals: Sequence[int], last_scores: Sequence[int]) -> tuple[int, ...]:
    """N31 (ND18): the highest total wins; a tie goes to the higher last-hand score; a tie
    that remains is a shared win (all those seats, ascending)."""
    best = max(totals)
    tied = [i for i, t in enumerate(totals) if t == best]
    if len(tied) > 1:
        top = max(last_scores[i] for i in tied)
        tied = [i for i in tied if last_scores[i] == top]
    return tuple(tied)


def check_stacked_decks(
    config: NertsConfig, stacked_decks: Mapping[int, object] | None
) -> dict[int, dict[int, tuple[int, ...]]]:
    """Validate the test hook: ``{hand: {seat: deck}}`` (or ``{hand: [deck per seat or
    None]}``), each deck a full deck of N2 tokens, top first, as card ids."""
    out: dict[int, dict[int, tuple[int, ...]]] = {}
    if not stacked_decks:
        return out
    if not isinstance(stacked_decks, Mapping):
        raise ValueError("stacked_decks must map hand -> {seat: deck} or hand -> [deck, ...]")
    want = sorted(range(config.deck_size))
    for hand, decks in stacked_decks.items():
        if isinstance(hand, bool) or not isinstance(hand, (int, np.integer)) or hand < 0:
            raise ValueError(f"stacked_decks hand {hand!r} is not allowed: a hand index >= 0")
        if isinstance(decks, Mapping):
            items = list(decks.items())
        elif isinstance(decks, Sequence) and not isinstance(decks, str):
            items = [(s, d) for s, d in enumerate(decks) if d is not None]
        else:
            raise ValueError(f"stacked_decks[{hand}] must be a mapping or list of seat decks")
        per_seat: dict[int, tuple[int, ...]] = {}
        for seat, deck in items:
            if not isinstance(seat, (int, np.integer)) or not 0 <= seat < config.num_players:
                raise ValueError(f"stacked_decks[{hand}] seat {seat!r} is not a seat")
            cards = assign_jokers(parse_cards(deck), list(range(JOKER, config.deck_size)))
            if sorted(cards) != want:
                raise ValueError(
                    f"stacked_decks[{hand}][{seat}] is not one full deck of "
                    f"{config.deck_size} cards (52 + {config.jokers} jokers), each once"
                )
            per_seat[int(seat)] = tuple(cards)
        out[int(hand)] = per_seat
    return out


class NertsGame:
    """One game of Nerts under a :class:`NertsConfig`, driven by :meth:`step`."""

    # Mutable state, by how deep copy() must copy it (one list per seat / slot, etc.).
    _FLAT = ("seen", "exhausted", "slot_suit", "slot_top", "slot_complete", "totals")
    _FLAT += ("found_count", "hand_results")
    _NESTED = ("nerts", "nerts_face_up", "stock", "waste", "slot_cards", "slot_declared")
    _NESTED += ("slot_owners",)
    _SCALARS = ("hand", "steps", "stall", "remedy_done", "slots_used", "hand_over")
    _SCALARS += ("end_reason", "game_over", "_winners")

    def __init__(
        self,
        config: NertsConfig | None = None,
        seed: int = 0,
        stacked_decks: Mapping[int, object] | None = None,
    ) -> None:
        if config is None:
            config = NertsConfig()
        if not isinstance(config, NertsConfig):
            raise ValueError(f"config must be a NertsConfig, got {type(config).__name__}")
        bad = isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
        if bad or not 0 <= seed < rng.MAX_SEED:
            raise ValueError(
                f"seed={seed!r} is not allowed: must be an integer from 0 to {rng.MAX_SEED - 1}"
            )
        self.config = config
        self.seed = int(seed)
        self.num_players = config.num_players
        self.table = action_table(config)
        self.n_actions = self.table.n
        self.stacked_decks = check_stacked_decks(config, stacked_decks)
        p = config.num_players
        self.totals = [0] * p
        self.hand_results: list[HandResult] = []
        self.game_over = False
        self._winners: tuple[int, ...] | None = None
        self.last_result: StepResult | None = None
        self._deal(0)

    # ------------------------------------------------------------------ the deal
    def _deck(self, seat: int) -> list[int]:
        """N4: seat ``seat``'s deck for this hand, top first."""
        stacked = self.stacked_decks.get(self.hand)
        if stacked is not None and seat in stacked:
            return list(stacked[seat])
        return deal_order(self.config.deck_size, self.seed, self.hand, seat)

    def _deal(self, hand: int) -> None:
        """N5: deal hand ``hand`` (Nerts pile, work piles, stock; no waste, no foundations)."""
        cfg = self.config
        p, f, ns, w = cfg.num_players, cfg.num_slots, cfg.nerts_size, cfg.work_piles
        self.hand = hand
        self.nerts: list[list[int]] = []
        self.nerts_face_up: list[list[bool]] = []
        self.work: list[list[list[int]]] = []
        self.stock: list[list[int]] = []
        self.waste: list[list[int]] = [[] for _ in range(p)]
        for seat in range(p):  # seat 0's deck first, then seat 1's, ... (N4)
            deck = self._deck(seat)
            # The first card dealt is the bottom of the Nerts pile, the last one its face-up top.
            self.nerts.append(deck[:ns])
            self.nerts_face_up.append([False] * (ns - 1) + [True])
            self.work.append([[c] for c in deck[ns : ns + w]])
            stock = deck[ns + w :]
            stock.reverse()  # stored bottom -> top: the deck's next card is the stock top
            self.stock.append(stock)
        self.seen = [0] * p
        self.exhausted = [
            not (s or wa) for s, wa in zip(self.stock, self.waste, strict=True)
        ]  # N24
        self.slot_suit = [-1] * f
        self.slot_top = [0] * f
        self.slot_complete = [False] * f
        self.slot_cards: list[list[int]] = [[] for _ in range(f)]
        self.slot_declared: list[list[int]] = [[] for _ in range(f)]
        self.slot_owners: list[list[int]] = [[] for _ in range(f)]
        self.slots_used = 0
        self.found_count = [0] * p
        self.steps = 0
        self.stall = 0
        self.remedy_done = False
        self.hand_over = False
        self.end_reason: str | None = None
        self._invalidate()

    def next_hand(self) -> None:
        """N31: deal the next hand (fresh deal, totals carry over); only after ``hand_over``."""
        if self.game_over:
            raise ValueError("the game is over: no next hand (N31)")
        if not self.hand_over:
            raise ValueError(f"hand {self.hand} is still being played: next_hand() needs its end")
        self.last_result = None
        self._deal(self.hand + 1)

    # ------------------------------------------------------------------ public reads
    def stock_top_first(self, seat: int) -> list[int]:
        """Seat ``seat``'s stock in the order the rules write it: top card first."""
        return self.stock[seat][::-1]

    def cycle_size(self, seat: int) -> int:
        """N24: n_i, the seat's stock size plus waste size."""
        return len(self.stock[seat]) + len(self.waste[seat])

    def slot_state(self, f: int) -> str:
        """N7: ``unused``, ``open`` or ``complete``."""
        if self.slot_suit[f] < 0:
            return "unused"
        return "complete" if self.slot_complete[f] else "open"

    def hand_scores(self) -> list[int]:
        """N30 (ND17) on the current state: own foundation cards - 2 x Nerts cards left."""
        return [self.found_count[i] - 2 * len(self.nerts[i]) for i in range(self.num_players)]

    def ranking_keys(self) -> list[tuple[int, int]]:
        """The order of the seats, smaller is better and equal keys tied: ``(-total, -last
        hand's score)`` (N31 ranks by total; the last hand orders equal totals). Defined once
        the game is over (``ValueError`` before)."""
        if self._winners is None:
            raise ValueError("rankings are only defined once the game is over (N31)")
        last = self.hand_results[-1].scores if self.hand_results else [0] * self.num_players
        return [(-self.totals[s], -last[s]) for s in range(self.num_players)]

    def winners(self) -> tuple[int, ...]:
        """N31: the winning seats (shared win: several); ``ValueError`` before the game ends."""
        if self._winners is None:
            raise ValueError("winners are only defined once the game is over (N31)")
        return self._winners

    # ------------------------------------------------------------------ legality
    def _invalidate(self) -> None:
        """Forget the cached legal sets (after any state change, also by the test hook)."""
        self._legal: list[list[int] | None] = [None] * self.num_players
        self._legal_set: list[frozenset[int] | None] = [None] * self.num_players
        self._need: dict[int, list[int]] | None = None

    def _need_map(self) -> dict[int, list[int]]:
        """N8: for each natural card id, the open slots (ascending) that it fits."""
        if self._need is None:
            need: dict[int, list[int]] = {}
            for f in range(self.slots_used):
                if not self.slot_complete[f]:
                    # rank top+1 of suit s has the id 13*s + top
                    need.setdefault(13 * self.slot_suit[f] + self.slot_top[f], []).append(f)
            self._need = need
        return self._need

    def _check_seat(self, seat: object) -> int:
        if (
            isinstance(seat, (bool, np.bool_))
            or not isinstance(seat, (int, np.integer))
            or not 0 <= seat < self.num_players
        ):
            raise ValueError(f"seat={seat!r} is not allowed: must be 0..{self.num_players - 1}")
        return int(seat)

    def legal_actions(self, seat: int) -> list[int]:
        """The seat's legal action ids (ascending); empty once the hand is over."""
        seat = self._check_seat(seat)
        legal = self._legal[seat]
        if legal is None:
            legal = [] if self.hand_over else self._compute_legal(seat)
            self._legal[seat] = legal
            self._legal_set[seat] = frozenset(legal)
        return list(legal)

    def legal_mask(self, seat: int) -> np.ndarray:
        """The seat's legal mask: int8 of length N_ACTIONS (N36)."""
        mask = np.zeros(self.n_actions, dtype=np.int8)
        mask[self.legal_actions(seat)] = 1
        return mask

    def legal_masks(self) -> np.ndarray:
        """Every seat's legal mask, shape ``(players, N_ACTIONS)``, int8."""
        masks = np.zeros((self.num_players, self.n_actions), dtype=np.int8)
        for seat in range(self.num_players):
            masks[seat, self.legal_actions(seat)] = 1
        return masks

    def is_legal(self, seat: int, action: int) -> bool:
        """Whether ``action`` is in the seat's mask."""
        self.legal_actions(seat)
        legal_set = self._legal_set[seat]
        return legal_set is not None and action in legal_set

    def _joker_top(self, seat: int, s: int) -> tuple[int, int, int]:
        """N32/N33: what the joker on top of source ``s`` may be declared as:
        ``(fixed rank, fixed colour, highest rank)``; -1 where nothing is fixed (ND11)."""
        if s < 2:
            return -1, -1, KING  # not on a work pile: free
        pile = self.work[seat][s - 2]
        r0, c0, _ = pile_anchor(pile)
        top = len(pile) - 1
        if r0 >= 0:
            return r0 - top, c0 ^ (top & 1), r0 - top
        return -1, -1, KING - top  # jokers alone: the base is at most a King (ND11)

    def _compute_legal(self, seat: int) -> list[int]:
        """N10-N17, N19, N22, N32, N33, N36: every legal id of ``seat`` (ascending)."""
        cfg, table = self.config, self.table
        n_w, n_f = cfg.work_piles, table.num_slots
        b_slot, b_new, b_work = table.b_slot, table.b_new, table.b_work
        b_move, b_slide = table.b_move, table.b_slide
        nerts, waste, stock = self.nerts[seat], self.waste[seat], self.stock[seat]
        work = self.work[seat]
        out = [WAIT]  # N14, N19: waiting is always legal
        if not cfg.auto_call and not nerts:  # N22 (ND15)
            out.append(CALL)
        if stock:  # N15
            out.append(TURN)
        elif waste:  # N16
            out.append(RECYCLE)
        if self.exhausted[seat] and len(stock) >= 2:  # N17
            out.append(SHIFT)
        jokers = cfg.jokers > 0
        if jokers:
            anchors = [pile_anchor(p) for p in work]
        else:  # no jokers: a pile's base fixes it; the last natural is its top
            anchors = [(_RANK[p[0]], _COL[p[0]], len(p) - 1) if p else _NO_ANCHOR for p in work]
        need = self._need_map()
        can_start = self.slots_used < n_f  # N7, ND20: never false (slots cannot run out)

        # Sources -> foundations (N8, N11, N33).
        for s in range(2 + n_w):
            pile = nerts if s == 0 else waste if s == 1 else work[s - 2]
            if not pile:
                continue
            x = pile[-1]
            if x < NUM_NATURAL:
                for f in need.get(x, ()):
                    out.append(b_slot + s * n_f + f)
                if _RANK[x] == 1 and can_start:
                    out.append(b_new + s * 4 + x // 13)
                continue
            rank, colour, high = self._joker_top(seat, s)  # N33, ND12
            for f in range(self.slots_used):
                if self.slot_complete[f]:
                    continue
                r = self.slot_top[f] + 1
                if rank >= 0:
                    ok = r == rank and SUIT_COLOUR[self.slot_suit[f]] == colour
                else:
                    ok = r <= high
                if ok:
                    out.append(b_slot + s * n_f + f)
            if can_start and (rank < 0 or rank == 1):
                for u in range(4):
                    if rank < 0 or SUIT_COLOUR[u] == colour:
                        out.append(b_new + s * 4 + u)

        # Nerts/waste top -> work pile (N10) and slide under (N12).
        has_empty = any(not p for p in work)
        for t in (0, 1):
            pile = nerts if t == 0 else waste
            if not pile:
                continue
            x = pile[-1]
            rx, cx = _RANK[x], _COL[x]
            for w in range(n_w):
                length = len(work[w])
                r0, c0, _ = anchors[w]
                if length == 0:
                    ok = True  # an empty pile takes anything (N10)
                elif x < NUM_NATURAL:
                    ok = (
                        (rx == r0 - length and cx == c0 ^ (length & 1))
                        if r0 >= 0
                        else (rx + length <= KING)
                    )
                else:
                    ok = r0 - length >= 1 if r0 >= 0 else length + 1 <= MAX_RUN
                if ok:
                    out.append(b_work + t * n_w + w)
            if cfg.slide_under and has_empty:  # ND19
                for w in range(n_w):
                    length = len(work[w])
                    if length == 0:
                        continue
                    r0, c0, _ = anchors[w]
                    if x < NUM_NATURAL:
                        ok = (rx == r0 + 1 and cx != c0) if r0 >= 0 else rx - length >= 1
                    else:
                        ok = r0 + 1 <= KING if r0 >= 0 else length + 1 <= MAX_RUN
                    if ok:
                        out.append(b_slide + t * n_w + w)

        # Top c cards of work pile w -> work pile v (N10, N11, ND22).
        for w in range(n_w):
            lw = len(work[w])
            if lw == 0:
                continue
            r0w, c0w, lastw = anchors[w]
            for v in range(n_w):
                if v == w:
                    continue
                base = b_move + (w * n_w + v) * MAX_RUN
                lv = len(work[v])
                if lv == 0:
                    out.extend(range(base, base + lw))  # every c = 1..lw (N11)
                    continue
                r0v, c0v, _ = anchors[v]
                if not jokers:
                    # the moved part's bottom must be one rank below v's top: index i of w
                    i = r0w - r0v + lv
                    if 0 <= i < lw and c0w ^ (i & 1) == c0v ^ (lv & 1):
                        out.append(base + lw - i - 1)
                    continue
                for c in range(1, lw + 1):
                    i = lw - c
                    if r0w >= 0 and i <= lastw:  # the moved part holds a natural: fixed
                        rb, cb = r0w - i, c0w ^ (i & 1)
                        fixed = rb == r0v - lv and cb == c0v ^ (lv & 1)
                        ok = fixed if r0v >= 0 else rb + lv <= KING
                    else:  # jokers alone move, free again (ND10)
                        ok = r0v - lv - (c - 1) >= 1 if r0v >= 0 else lv + c <= MAX_RUN
                    if ok:
                        out.append(base + c - 1)
        out.sort()
        return out

    def explain_illegal(self, seat: int, action: int) -> str:
        """Why ``action`` is not legal for ``seat`` now (the text of step()'s ValueError)."""
        if self.game_over:
            return "the game is over (N31)"
        if self.hand_over:
            return f"hand {self.hand} is over ({self.end_reason}); call next_hand() (N31)"
        if self.is_legal(seat, action):
            return "it is legal"
        d = self.table.decode(action)
        k = d.kind
        nerts, waste, stock = self.nerts[seat], self.waste[seat], self.stock[seat]
        work = self.work[seat]
        if k == Kind.CALL:
            if self.config.auto_call:
                return "calling is never legal with auto_call=True (N22)"
            return f"the Nerts pile still holds {len(nerts)} card(s) (N22)"
        if k == Kind.TURN:
            return "the stock is empty (N15)"
        if k == Kind.RECYCLE:
            return "the stock is not empty (N16)" if stock else "the waste is empty (N16)"
        if k == Kind.SHIFT:
            if not self.exhausted[seat]:
                return "the player is not exhausted (N17, N24)"
            return f"the stock holds {len(stock)} card(s); a shift needs 2 (N17)"
        if k in (Kind.TO_SLOT, Kind.NEW_FOUNDATION, Kind.TO_WORK, Kind.SLIDE):
            s = d.source
            pile = nerts if s == 0 else waste if s == 1 else work[s - 2]
            if not pile:
                return f"the {source_name(s)} source is empty (N11)"
            x = pile[-1]
            tok = format_card(x)
            if k == Kind.TO_SLOT:
                f = d.slot
                if self.slot_state(f) != "open":
                    return f"slot {f} is {self.slot_state(f)}, not open (N7)"
                needed = format_card(13 * self.slot_suit[f] + self.slot_top[f])
                if x >= NUM_NATURAL:
                    return f"the joker is fixed on its work pile and cannot be {needed} (N32, N33)"
                return f"{tok} does not fit slot {f}, which needs {needed} (N8)"
            if k == Kind.NEW_FOUNDATION:
                if x >= NUM_NATURAL:
                    return (
                        f"the joker is fixed on its work pile and cannot be A{SUITS[d.suit]} (N33)"
                    )
                if _RANK[x] != 1:
                    return f"{tok} is not an ace (N8)"
                return f"{tok} starts a foundation of its own suit, not {SUITS[d.suit]} (N8)"
            if k == Kind.TO_WORK:
                return (
                    f"{tok} on work pile {d.pile} ({format_cards(work[d.pile])}) is not a run "
                    "(N9, N10)"
                )
            if not self.config.slide_under:
                return "sliding under is off (slide_under=False, N12)"
            if not work[d.pile]:
                return f"work pile {d.pile} is empty: nothing to slide under (N12)"
            if all(work):
                return "sliding under needs an empty work pile (N12)"
            return (
                f"{tok} under work pile {d.pile} ({format_cards(work[d.pile])}) is not a run (N12)"
            )
        if k == Kind.WORK_MOVE:
            w, v, c = d.pile, d.target, d.count
            if v == w:
                return "a work pile cannot move onto itself (N36)"
            if c > len(work[w]):
                return f"work pile {w} holds {len(work[w])} card(s), not {c} (N11)"
            return (
                f"the top {c} of work pile {w} ({format_cards(work[w])}) on work pile {v} "
                f"({format_cards(work[v])}) is not a run (N9, N10)"
            )
        return "it is not legal in this state"

    # ------------------------------------------------------------------ the step
    def _check_actions(self, actions: object) -> list[int]:
        """N18 (ND14): one int per seat, each in its seat's mask; else ``ValueError``."""
        if self.game_over:
            raise ValueError("the game is over (N31): no more steps")
        if self.hand_over:
            raise ValueError(
                f"hand {self.hand} is over ({self.end_reason}): call next_hand() first (N31)"
            )
        if isinstance(actions, (str, bytes)) or not isinstance(actions, (Sequence, np.ndarray)):
            raise ValueError(
                f"step() needs a sequence of one action per seat, got {type(actions).__name__}"
            )
        if len(actions) != self.num_players:
            raise ValueError(
                f"step() needs one action per seat: {self.num_players} actions, got {len(actions)}"
            )
        out = []
        for seat, a in enumerate(actions):
            if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
                raise ValueError(f"seat {seat}: action {a!r} is not an int")
            a = int(a)
            if not 0 <= a < self.n_actions:
                raise ValueError(
                    f"seat {seat}: action {a} is outside the action table 0..{self.n_actions - 1}"
                )
            if not self.is_legal(seat, a):
                raise ValueError(
                    f"seat {seat}: action {a} ({self.table.name(a)}) is not legal: "
                    f"{self.explain_illegal(seat, a)}"
                )
            out.append(a)
        return out

    def priority(self, step: int | None = None) -> tuple[int, ...]:
        """N4/N20: pi of step ``step`` (default: the next one) of this hand."""
        k = self.steps if step is None else step
        return priority_order(self.num_players, self.seed, self.hand, k)

    def _take(self, seat: int, s: int) -> int:
        """Remove and return the top card of source ``s`` of ``seat``."""
        if s == 0:
            self.nerts_face_up[seat].pop()
            return self.nerts[seat].pop()
        if s == 1:
            return self.waste[seat].pop()
        return self.work[seat][s - 2].pop()

    def _to_slot(self, f: int, card: int, declared: int, owner: int) -> None:
        self.slot_cards[f].append(card)
        self.slot_declared[f].append(declared)
        self.slot_owners[f].append(owner)
        self.found_count[owner] += 1

    def step(self, actions: Sequence[int]) -> StepResult:
        """N18-N29: resolve one action per seat as one simultaneous event."""
        acts = self._check_actions(actions)  # raises before anything changes
        cfg, table = self.config, self.table
        p = self.num_players
        k = self.steps
        pi = self.priority(k)  # N20.1: drawn every step, whatever the actions (N4)
        blocked = [False] * p
        progress_by = [False] * p
        called = [False] * p
        reset_seen = [False] * p  # own shift or own move between work piles (N24)
        work_moved = [False] * p
        turned = [0] * p
        both_keep = cfg.foundation_tie == "both_keep"
        played: set[int] = set()  # slots played on in this step (N20.2)
        touched: list[int] = []
        # Every action was judged against the start state (N18); only foundation plays
        # interact, so applying in pi order settles N20.2 and N20.3 (ND3).
        for seat in pi:
            a = acts[seat]
            if a == WAIT:
                continue
            if a < 5:
                if a == CALL:
                    called[seat] = True
                elif a == TURN:  # N15: s1 s2 s3 (top first) land bottom -> top
                    stock, waste = self.stock[seat], self.waste[seat]
                    n = min(cfg.turn_size, len(stock))
                    for _ in range(n):
                        waste.append(stock.pop())
                    turned[seat] = n
                elif a == RECYCLE:  # N16: the first card turned becomes the stock top
                    waste = self.waste[seat]
                    waste.reverse()
                    self.stock[seat] = waste
                    self.waste[seat] = []
                elif a == SHIFT:  # N17: stock top to the bottom
                    stock = self.stock[seat]
                    stock.insert(0, stock.pop())
                    reset_seen[seat] = True
                continue
            d = table.decode(a)
            kind = d.kind
            if kind == Kind.TO_SLOT:
                f = d.slot
                if f in played and not both_keep:  # N20.2 priority, N21 (ND6: a wait)
                    blocked[seat] = True
                    continue
                card = self._take(seat, d.source)
                if f in played:  # both_keep: an equal card; the top rose once already
                    declared = 13 * self.slot_suit[f] + self.slot_top[f] - 1
                else:
                    declared = 13 * self.slot_suit[f] + self.slot_top[f]
                    self.slot_top[f] += 1
                    played.add(f)
                    touched.append(f)
                self._to_slot(f, card, declared, seat)
                progress_by[seat] = True
            elif kind == Kind.NEW_FOUNDATION:  # N20.3: next unused slot, in pi order
                f = self.slots_used
                self.slots_used += 1
                card = self._take(seat, d.source)
                self.slot_suit[f] = d.suit
                self.slot_top[f] = 1
                self._to_slot(f, card, 13 * d.suit, seat)
                touched.append(f)
                progress_by[seat] = True
            elif kind == Kind.TO_WORK:  # N10: always progress (leaves Nerts pile or waste)
                card = self._take(seat, d.source)
                self.work[seat][d.pile].append(card)
                progress_by[seat] = True
            elif kind == Kind.SLIDE:  # N12
                card = self._take(seat, d.source)
                self.work[seat][d.pile].insert(0, card)
                progress_by[seat] = True
            else:  # WORK_MOVE (N11): not progress
                src = self.work[seat][d.pile]
                i = len(src) - d.count
                self.work[seat][d.target].extend(src[i:])
                del src[i:]
                work_moved[seat] = True
                reset_seen[seat] = True
        return self._end_step(
            k, acts, pi, blocked, progress_by, called, reset_seen, work_moved, turned, touched
        )

    def _end_step(
        self,
        k: int,
        acts: list[int],
        pi: tuple[int, ...],
        blocked: list[bool],
        progress_by: list[bool],
        called: list[bool],
        reset_seen: list[bool],
        work_moved: list[bool],
        turned: list[int],
        touched: list[int],
    ) -> StepResult:
        """N29: turn up Nerts tops, complete slots, counters (N23-N25), then the checks."""
        cfg = self.config
        p = self.num_players
        self.steps = k + 1
        for up in self.nerts_face_up:  # N13
            if up and not up[-1]:
                up[-1] = True
        for f in touched:  # N8
            if self.slot_top[f] == KING:
                self.slot_complete[f] = True
        progress = any(progress_by)
        if progress:  # N23, N24, N27: progress by anyone resets and re-arms (ND4)
            self.seen = [0] * p
            self.stall = 0
            self.remedy_done = False
        else:
            self.stall += 1  # N25 (ND7); a blocked play counts as a wait here too (ND6)
            for i in range(p):
                self.seen[i] = 0 if reset_seen[i] else self.seen[i] + turned[i]
        self._update_exhausted(work_moved)
        reason: str | None = None
        remedy = False
        if any(called) or (cfg.auto_call and any(not n for n in self.nerts)):  # N22
            reason = END_NERTS
        elif not progress and (all(self.exhausted) or self.stall >= cfg.stall_steps):  # N25
            if self.remedy_done:  # N27
                reason = END_BLOCKED
            else:
                self._remedy()
                self._update_exhausted(work_moved)
                remedy = True
        if reason is None and self.steps >= cfg.max_steps_per_hand:  # N28, checked last (ND16)
            reason = END_CAP
        if reason is not None:
            self._end_hand(reason, tuple(i for i in range(p) if called[i]))
        self._invalidate()
        result = StepResult(
            step=k,
            actions=tuple(acts),
            priority=pi,
            done=tuple(not b for b in blocked),
            blocked=tuple(blocked),
            progress=progress,
            progress_by=tuple(progress_by),
            called=tuple(called),
            remedy=remedy,
            hand_over=self.hand_over,
            end_reason=reason,
            hand_scores=tuple(self.hand_scores()),
            totals=tuple(self.totals),
            game_over=self.game_over,
        )
        self.last_result = result
        return result

    def _update_exhausted(self, work_moved: list[bool]) -> None:
        """N24 (ND5): exhausted = seen >= n_i and this step's action was no work-pile move."""
        for i in range(self.num_players):
            n = len(self.stock[i]) + len(self.waste[i])
            self.exhausted[i] = self.seen[i] >= n and not work_moved[i]

    def _remedy(self) -> None:
        """N26 (ND8): every stock becomes waste (turned over) + stock; its top goes under."""
        for i in range(self.num_players):
            cycle = self.waste[i] + self.stock[i][::-1]  # top first
            if len(cycle) >= 2:
                cycle.append(cycle.pop(0))
            cycle.reverse()  # stored bottom -> top
            self.stock[i] = cycle
            self.waste[i] = []
        self.seen = [0] * self.num_players
        self.stall = 0
        self.remedy_done = True

    def _end_hand(self, reason: str, callers: tuple[int, ...]) -> None:
        """N29-N31: score the hand, add to totals, and decide whether the game is over."""
        scores = tuple(self.hand_scores())
        for i, s in enumerate(scores):
            self.totals[i] += s
        self.hand_results.append(HandResult(self.hand, scores, reason, self.steps, callers))
        self.hand_over = True
        self.end_reason = reason
        cfg = self.config
        if max(self.totals) >= cfg.target_score or len(self.hand_results) >= cfg.max_hands:
            self.game_over = True
            self._winners = game_winners(self.totals, scores)

    # ------------------------------------------------------------------ copies, digests
    def copy(self) -> NertsGame:
        """An independent copy (lists copied as deep as they nest; no deepcopy)."""
        new = object.__new__(NertsGame)
        new.__dict__.update(self.__dict__)
        for name in self._FLAT:
            setattr(new, name, list(getattr(self, name)))
        for name in self._NESTED:
            setattr(new, name, [list(x) for x in getattr(self, name)])
        new.work = [[list(pile) for pile in piles] for piles in self.work]
        new._legal = list(self._legal)  # cached lists are never changed in place
        new._legal_set = list(self._legal_set)
        return new

    def state_tuple(self) -> tuple:
        """Everything that defines the game's state (what :meth:`digest` hashes)."""
        return (
            tuple(sorted(self.config.to_dict().items())),
            self.seed,
            tuple(sorted((h, tuple(sorted(d.items()))) for h, d in self.stacked_decks.items())),
            tuple(tuple(getattr(self, n)) for n in self._FLAT),
            tuple(tuple(map(tuple, getattr(self, n))) for n in self._NESTED),
            tuple(tuple(map(tuple, piles)) for piles in self.work),
            tuple(getattr(self, n) for n in self._SCALARS),
        )

    def digest(self) -> str:
        """A deterministic 16-hex-digit hash of :meth:`state_tuple`."""
        return hashlib.sha256(repr(self.state_tuple()).encode()).hexdigest()[:16]

    # ------------------------------------------------------------------ rendering
    def render(self, ansi: bool = False, reveal: bool = False) -> str:
        """The state as a text table in N2 notation (``ansi``: red suits in colour;
        ``reveal``: also the face-down Nerts cards, the stock order and the whole waste)."""

        def tok(c: int, owner: int | None = None) -> str:
            t = format_card(c, owner)
            if ansi and c < NUM_NATURAL and _COL[c] == 1:
                return f"\x1b[31m{t}\x1b[0m"
            return t

        def pile(cards: Sequence[int]) -> str:
            return " ".join(tok(c) for c in cards) or "-"

        cfg = self.config
        lines = [
            f"Nerts hand {self.hand}  step {self.steps}/{cfg.max_steps_per_hand}  "
            f"stall {self.stall}/{cfg.stall_steps}  remedy {'yes' if self.remedy_done else 'no'}"
            f"  totals {self.totals}"
            + (f"  hand over: {self.end_reason}" if self.hand_over else "")
            + ("  game over" if self.game_over else "")
        ]
        if self.last_result is not None:
            lines.append(
                f"last step pi {self.last_result.priority}  "
                f"blocked {list(self.last_result.blocked)}"
            )
        lines.append("foundations:")
        for f in range(self.slots_used):
            state = "complete" if self.slot_complete[f] else "open"
            cards = " ".join(
                tok(d, o) + ("(JK)" if c >= NUM_NATURAL else "")
                for c, d, o in zip(
                    self.slot_cards[f], self.slot_declared[f], self.slot_owners[f], strict=True
                )
            )
            lines.append(
                f"  slot {f:2d} {SUITS[self.slot_suit[f]]} top {self.slot_top[f]:2d} "
                f"{state:8s} {cards}"
            )
        if self.slots_used == 0:
            lines.append("  (none)")
        scores = self.hand_scores()
        for i in range(self.num_players):
            nerts = self.nerts[i]
            if reveal:
                nerts_text = pile(nerts)
            else:
                nerts_text = f"[{len(nerts)}] " + (tok(nerts[-1]) if nerts else "-")
            waste = self.waste[i]
            if reveal:
                waste_text = pile(waste)
                stock_text = pile(self.stock_top_first(i)) + " (top first)"
            else:
                waste_text = f"[{len(waste)}] " + (tok(waste[-1]) if waste else "-")
                stock_text = f"[{len(self.stock[i])}]"
            work = " | ".join(pile(p) for p in self.work[i])
            lines.append(
                f"p{i}: nerts {nerts_text}  work {work}  stock {stock_text}  waste {waste_text}  "
                f"seen {self.seen[i]}/{self.cycle_size(i)}"
                + ("  exhausted" if self.exhausted[i] else "")
                + f"  score {scores[i]}"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"NertsGame(players={self.num_players}, seed={self.seed}, hand={self.hand}, "
            f"steps={self.steps}, hand_over={self.hand_over}, game_over={self.game_over})"
        )
