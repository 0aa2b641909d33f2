"""What one seat may know in Nerts (N34, N35): a structured public view of a game.

:class:`NertsView` holds exactly the public information of N34, seen by one seat: every
Nerts top and size, all work piles in full, each waste top with the sizes of every stock
and waste, every foundation slot (state, suit, top rank, the declared card and owner of each
card on it), scores, totals, seen counters, exhaustion, the stall count, the remedy flag and
the last step's actions, results and priority order. It never holds a face-down Nerts card,
a stock's order or a waste card under the top (N35) -- not even the seat's own.

Bots read a view (never the game), and the environment's observation is built from it, so
neither can depend on hidden cards: ``tests/nerts/test_nerts_information.py`` permutes them and
checks the view does not change.
"""

from __future__ import annotations

from dataclasses import dataclass

from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.engine import NertsGame


@dataclass(frozen=True)
class SlotView:
    """One foundation slot (N7, N34). ``suit`` -1 and ``top`` 0 while unused."""

    suit: int
    top: int
    complete: bool
    cards: tuple[int, ...]
    """The declared card (N2 id 0-51) of every card on it, bottom -> top (N33: a joker
    counts as the card it was declared as)."""
    owners: tuple[int, ...]

    @property
    def state(self) -> str:
        """``unused``, ``open`` or ``complete``."""
        if self.suit < 0:
            return "unused"
        return "complete" if self.complete else "open"


@dataclass(frozen=True)
class NertsView:
    """Public information (N34) seen by ``seat``. Seats are absolute."""

    config: NertsConfig
    seat: int
    hand: int
    step: int
    nerts_size: tuple[int, ...]
    nerts_top: tuple[int | None, ...]
    """Each seat's face-up Nerts top (N13), None when the pile is empty."""
    work: tuple[tuple[tuple[int, ...], ...], ...]
    """``work[s][w]``: seat s's work pile w, bottom -> top (physical ids; jokers 52/53)."""
    waste_top: tuple[int | None, ...]
    waste_size: tuple[int, ...]
    stock_size: tuple[int, ...]
    seen: tuple[int, ...]
    exhausted: tuple[bool, ...]
    slots: tuple[SlotView, ...]
    slots_used: int
    found_count: tuple[int, ...]
    hand_scores: tuple[int, ...]
    totals: tuple[int, ...]
    stall: int
    remedy_done: bool
    hand_over: bool
    game_over: bool
    last_actions: tuple[int, ...] | None
    last_blocked: tuple[bool, ...] | None
    last_priority: tuple[int, ...] | None
    legal_actions: tuple[int, ...]
    """The seat's own legal actions (N36): a function of the public state."""

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self.config.num_players

    @classmethod
    def from_game(cls, game: NertsGame, seat: int) -> NertsView:
        """The view of ``seat`` on ``game``."""
        p = game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < p:
            raise ValueError(f"seat={seat!r} is not allowed: must be 0..{p - 1}")
        slots = tuple(
            SlotView(
                suit=game.slot_suit[f],
                top=game.slot_top[f],
                complete=bool(game.slot_complete[f]),
                cards=tuple(game.slot_declared[f]),
                owners=tuple(game.slot_owners[f]),
            )
            for f in range(game.config.num_slots)
        )
        last = game.last_result
        return cls(
            config=game.config,
            seat=seat,
            hand=game.hand,
            step=game.steps,
            nerts_size=tuple(len(n) for n in game.nerts),
            nerts_top=tuple(
                n[-1] if n and up[-1] else None
                for n, up in zip(game.nerts, game.nerts_face_up, strict=True)
            ),
            work=tuple(tuple(tuple(pile) for pile in piles) for piles in game.work),
            waste_top=tuple(w[-1] if w else None for w in game.waste),
            waste_size=tuple(len(w) for w in game.waste),
            stock_size=tuple(len(s) for s in game.stock),
            seen=tuple(game.seen),
            exhausted=tuple(bool(e) for e in game.exhausted),
            slots=slots,
            slots_used=game.slots_used,
            found_count=tuple(game.found_count),
            hand_scores=tuple(game.hand_scores()),
            totals=tuple(game.totals),
            stall=game.stall,
            remedy_done=bool(game.remedy_done),
            hand_over=bool(game.hand_over),
            game_over=bool(game.game_over),
            last_actions=None if last is None else tuple(last.actions),
            last_blocked=None if last is None else tuple(last.blocked),
            last_priority=None if last is None else tuple(last.priority),
            legal_actions=tuple(game.legal_actions(seat)),
        )
