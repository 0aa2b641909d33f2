"""N36: the flat Nerts action table (one table for every player count), built from a config.

With W = work_piles and F = (4 + jokers) * 6 (N7), source index s: 0 = Nerts top, 1 = waste
top, 2 + w = top of work pile w; t: 0 = Nerts top, 1 = waste top; u: suit index (N2)::

    id                                   action
    0                                    wait
    1                                    call Nerts (N22)
    2                                    turn (N15)
    3                                    recycle (N16)
    4                                    shift (N17)
    5 + s*F + f                          source s -> open foundation slot f (N8, N33)
    B1 + s*4 + u,       B1 = 5 + (2+W)*F source s -> new foundation as the ace of suit u
    B2 + t*W + w,       B2 = B1 + 4(2+W) Nerts/waste top -> work pile w (N10)
    B3 + (w*W + v)*13 + (c-1),
                        B3 = B2 + 2W     top c cards of work pile w -> work pile v
    B4 + t*W + w,       B4 = B3 + 13W^2  slide Nerts/waste top under work pile w (N12)

N_ACTIONS = B4 + 2W = 5 + (2+W)(F+4) + 4W + 13W^2: 397 with the defaults, 433 with one
joker. Readable names: ``wait``, ``call``, ``turn``, ``recycle``, ``shift``,
``nerts->slot3``, ``work2->new:D`` (the ace of diamonds), ``waste->work1``,
``work2x3->work0`` (the top 3 cards of work pile 2 onto work pile 0), ``nerts->under1``.
"""

from __future__ import annotations

import functools
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from gnome_env.nerts.cards import SUITS
from gnome_env.nerts.config import NertsConfig, foundation_slots, num_actions

WAIT, CALL, TURN, RECYCLE, SHIFT = 0, 1, 2, 3, 4
NERTS, WASTE = 0, 1  # source / top index s (and t) of the Nerts top and the waste top
MAX_RUN = 13  # N9: a run holds at most 13 cards, so c is 1..13


class Kind(IntEnum):
    """What an action id does (N19)."""

    WAIT = 0
    CALL = 1
    TURN = 2
    RECYCLE = 3
    SHIFT = 4
    TO_SLOT = 5  # source -> open foundation slot
    NEW_FOUNDATION = 6  # source -> new foundation as an ace of suit u
    TO_WORK = 7  # Nerts/waste top -> work pile
    WORK_MOVE = 8  # top c cards of a work pile -> another work pile
    SLIDE = 9  # Nerts/waste top under a work pile


#: Named sets of kinds (besides each kind's own lower-case name): ``foundation`` plays,
#: ``work``-pile moves, ``stock`` moves, ``all``, ``none`` and ``not-wait``.
KIND_GROUPS: dict[str, frozenset[Kind]] = {
    "foundation": frozenset({Kind.TO_SLOT, Kind.NEW_FOUNDATION}),
    "work": frozenset({Kind.TO_WORK, Kind.WORK_MOVE, Kind.SLIDE}),
    "stock": frozenset({Kind.TURN, Kind.RECYCLE, Kind.SHIFT}),
    "all": frozenset(Kind),
    "none": frozenset(),
    "not-wait": frozenset(Kind) - {Kind.WAIT},
    **{k.name.lower(): frozenset({k}) for k in Kind},
}


def parse_kinds(text: str) -> frozenset[Kind]:
    """The kinds named by a comma-separated list of kinds and :data:`KIND_GROUPS`;
    ``ValueError`` naming what is allowed for an unknown name."""
    out: frozenset[Kind] = frozenset()
    for name in text.split(","):
        name = name.strip().lower()
        if name not in KIND_GROUPS:
            raise ValueError(
                f"unknown kind {name!r}: use kinds or groups from {', '.join(KIND_GROUPS)}, "
                "joined with commas"
            )
        out |= KIND_GROUPS[name]
    return out


class Action(NamedTuple):
    """A decoded action id; fields that do not apply are -1."""

    kind: Kind
    source: int = -1  # s (TO_SLOT, NEW_FOUNDATION) or t (TO_WORK, SLIDE): 0 Nerts, 1 waste
    slot: int = -1  # f
    suit: int = -1  # u
    pile: int = -1  # w: the work pile moved from, placed on, or slid under
    target: int = -1  # v: the work pile moved onto
    count: int = -1  # c


def source_name(s: int) -> str:
    """``nerts``, ``waste`` or ``work<w>`` for source index ``s``."""
    return ("nerts", "waste")[s] if s < 2 else f"work{s - 2}"


class ActionTable:
    """The N36 table for one (work_piles, jokers) pair: offsets, encode, decode, names."""

    def __init__(self, work_piles: int, jokers: int) -> None:
        w = work_piles
        f = foundation_slots(jokers)
        self.work_piles = w
        self.num_slots = f
        self.num_sources = 2 + w
        self.b_slot = 5
        self.b_new = 5 + (2 + w) * f  # B1
        self.b_work = self.b_new + 4 * (2 + w)  # B2
        self.b_move = self.b_work + 2 * w  # B3
        self.b_slide = self.b_move + 13 * w * w  # B4
        self.n = self.b_slide + 2 * w
        if self.n != num_actions(w, jokers):  # the formula of N36 and the layout agree
            raise AssertionError("N36 action table layout disagrees with its formula")
        self.names: tuple[str, ...] = tuple(self._name(a) for a in range(self.n))
        self._decoded: tuple[Action, ...] = tuple(self._decode(a) for a in range(self.n))

    # ------------------------------------------------------------------ encode
    def to_slot(self, s: int, f: int) -> int:
        """Id of source ``s`` -> open foundation slot ``f``."""
        self._check(0 <= s < self.num_sources and 0 <= f < self.num_slots, "to_slot", s, f)
        return self.b_slot + s * self.num_slots + f

    def new_foundation(self, s: int, u: int) -> int:
        """Id of source ``s`` -> new foundation as the ace of suit ``u``."""
        self._check(0 <= s < self.num_sources and 0 <= u < 4, "new_foundation", s, u)
        return self.b_new + s * 4 + u

    def to_work(self, t: int, w: int) -> int:
        """Id of Nerts (t=0) / waste (t=1) top -> work pile ``w``."""
        self._check(0 <= t < 2 and 0 <= w < self.work_piles, "to_work", t, w)
        return self.b_work + t * self.work_piles + w

    def work_move(self, w: int, v: int, c: int) -> int:
        """Id of the top ``c`` cards of work pile ``w`` -> work pile ``v``."""
        ok = 0 <= w < self.work_piles and 0 <= v < self.work_piles and 1 <= c <= MAX_RUN
        self._check(ok, "work_move", w, v, c)
        return self.b_move + (w * self.work_piles + v) * MAX_RUN + (c - 1)

    def slide(self, t: int, w: int) -> int:
        """Id of sliding the Nerts (t=0) / waste (t=1) top under work pile ``w``."""
        self._check(0 <= t < 2 and 0 <= w < self.work_piles, "slide", t, w)
        return self.b_slide + t * self.work_piles + w

    @staticmethod
    def _check(ok: bool, what: str, *args: int) -> None:
        if not ok:
            raise ValueError(f"{what}{args} is outside the action table")

    # ------------------------------------------------------------------ decode
    def decode(self, action: int) -> Action:
        """The :class:`Action` of id ``action`` (``ValueError`` if out of range)."""
        if not 0 <= action < self.n:
            raise ValueError(f"action {action!r} is outside the table 0..{self.n - 1}")
        return self._decoded[action]

    def name(self, action: int) -> str:
        """The readable name of id ``action`` (see the module docstring)."""
        if not 0 <= action < self.n:
            raise ValueError(f"action {action!r} is outside the table 0..{self.n - 1}")
        return self.names[action]

    def _decode(self, a: int) -> Action:
        w_count, f_count = self.work_piles, self.num_slots
        if a < 5:
            return Action(Kind(a))
        if a < self.b_new:
            s, f = divmod(a - self.b_slot, f_count)
            return Action(Kind.TO_SLOT, source=s, slot=f)
        if a < self.b_work:
            s, u = divmod(a - self.b_new, 4)
            return Action(Kind.NEW_FOUNDATION, source=s, suit=u)
        if a < self.b_move:
            t, w = divmod(a - self.b_work, w_count)
            return Action(Kind.TO_WORK, source=t, pile=w)
        if a < self.b_slide:
            pair, c1 = divmod(a - self.b_move, MAX_RUN)
            w, v = divmod(pair, w_count)
            return Action(Kind.WORK_MOVE, pile=w, target=v, count=c1 + 1)
        t, w = divmod(a - self.b_slide, w_count)
        return Action(Kind.SLIDE, source=t, pile=w)

    def _name(self, a: int) -> str:
        d = self._decode(a)
        k = d.kind
        if k <= Kind.SHIFT:
            return k.name.lower()
        if k == Kind.TO_SLOT:
            return f"{source_name(d.source)}->slot{d.slot}"
        if k == Kind.NEW_FOUNDATION:
            return f"{source_name(d.source)}->new:{SUITS[d.suit]}"
        if k == Kind.TO_WORK:
            return f"{source_name(d.source)}->work{d.pile}"
        if k == Kind.WORK_MOVE:
            return f"work{d.pile}x{d.count}->work{d.target}"
        return f"{source_name(d.source)}->under{d.pile}"

    def id_of(self, name: str) -> int:
        """The id of a readable name (inverse of :meth:`name`)."""
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"no action named {name!r}") from None

    def empty_mask(self) -> np.ndarray:
        """An all-zero int8 mask of length N_ACTIONS."""
        return np.zeros(self.n, dtype=np.int8)

    def of_kinds(self, kinds: frozenset[Kind] | set[Kind]) -> np.ndarray:
        """Boolean ``[N_ACTIONS]``: which ids are actions of one of ``kinds``."""
        return np.array([d.kind in kinds for d in self._decoded], dtype=bool)


@functools.cache
def _table(work_piles: int, jokers: int) -> ActionTable:
    return ActionTable(work_piles, jokers)


def action_table(config: NertsConfig) -> ActionTable:
    """The (cached) N36 table of ``config``."""
    return _table(config.work_piles, config.jokers)
