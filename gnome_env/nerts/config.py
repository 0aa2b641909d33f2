"""The Nerts rules configuration: every ``[variant: ...]`` of RULES-nerts.md (N1-N31).

:class:`NertsConfig` is a frozen dataclass validated on construction: a bad value raises
``ValueError`` naming the field, the value and what is allowed. The facts that follow from
a config (F, N_ACTIONS, the deck size, the score range) are derived here, once, and used
everywhere else (the action table of :mod:`gnome_env.nerts.actions`, the engine, tests).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from gnome_env.core.config import PlainConfig, check_bool, check_int
from gnome_env.core.renamed import renamed_fields

MIN_PLAYERS = 2
MAX_PLAYERS = 6  # N3: the action table is sized for six (N36)
SLOTS_PER_SEAT_SIZE = 6  # N7: F = (4 + jokers) * 6, one slot per possible starter at 6 seats
FOUNDATION_TIES = ("priority", "both_keep")


@renamed_fields(players="num_players")
@dataclass(frozen=True)
class NertsConfig(PlainConfig):
    """One validated, immutable set of Nerts rule options (the variants of RULES-nerts.md).

    Construct with keywords or :meth:`from_dict`; :meth:`replace` derives a changed copy
    (:class:`gnome_env.core.config.PlainConfig`; the old field name ``players`` still works,
    warning once).
    """

    CONFIG_TITLE: ClassVar[str] = "Nerts"

    num_players: int = 4
    """N3: seats at the table, 2-6."""
    jokers: int = 0
    """N1: jokers per deck, 0-2 (N32, N33)."""
    nerts_size: int = 13
    """N5: cards in each Nerts pile, 1-20."""
    work_piles: int = 4
    """N5: work piles per player (W), 3-5."""
    slide_under: bool = True
    """N12: whether a Nerts/waste top may be slid under a work pile."""
    turn_size: int = 3
    """N15: cards turned from stock to waste at a time, 1-3."""
    foundation_tie: str = "priority"
    """N20: same-slot plays in one step: ``priority`` (first in pi) or ``both_keep``."""
    auto_call: bool = False
    """N22: the hand ends as soon as a Nerts pile is empty; calling is never legal."""
    stall_steps: int = 60
    """N25: quiet steps (no progress, no remedy) after which the table is stuck, >= 1."""
    max_steps_per_hand: int = 1000
    """N28: step cap of a hand, >= 1."""
    target_score: int = 100
    """N31: the game ends after a hand in which some total reaches this, >= 1."""
    max_hands: int = 50
    """N31: the game ends after this many hands at the latest, >= 1."""

    def __post_init__(self) -> None:
        # object.__setattr__: numpy ints are accepted and stored as plain ints (frozen).
        ints = {
            "num_players": (MIN_PLAYERS, MAX_PLAYERS),
            "jokers": (0, 2),
            "nerts_size": (1, 20),
            "work_piles": (3, 5),
            "turn_size": (1, 3),
            "stall_steps": (1, None),
            "max_steps_per_hand": (1, None),
            "target_score": (1, None),
            "max_hands": (1, None),
        }
        for name, (low, high) in ints.items():
            object.__setattr__(self, name, check_int(name, getattr(self, name), low, high))
        for name in ("slide_under", "auto_call"):
            object.__setattr__(self, name, check_bool(name, getattr(self, name)))
        if not isinstance(self.foundation_tie, str) or self.foundation_tie not in FOUNDATION_TIES:
            raise ValueError(
                f"foundation_tie={self.foundation_tie!r} is not allowed: must be one of "
                + ", ".join(repr(t) for t in FOUNDATION_TIES)
            )

    # ------------------------------------------------------------------ derived facts
    @property
    def deck_size(self) -> int:
        """N1: cards in each player's deck, 52 + jokers."""
        return 52 + self.jokers

    @property
    def num_slots(self) -> int:
        """N7: F = (4 + jokers) * 6 foundation slots."""
        return foundation_slots(self.jokers)

    @property
    def max_slots_used(self) -> int:
        """N7: at most (4 + jokers) * players slots are ever used."""
        return (4 + self.jokers) * self.num_players

    @property
    def n_actions(self) -> int:
        """N36: N_ACTIONS = 5 + (2+W)(F+4) + 4W + 13W^2 (397 with the defaults)."""
        return num_actions(self.work_piles, self.jokers)

    @property
    def stock_size(self) -> int:
        """N5: cards in each stock at the deal."""
        return self.deck_size - self.nerts_size - self.work_piles

    @property
    def score_range(self) -> tuple[int, int]:
        """N30: the lowest and highest possible hand score."""
        return -2 * self.nerts_size, self.deck_size


def foundation_slots(jokers: int) -> int:
    """N7: F = (4 + jokers) * 6."""
    return (4 + jokers) * SLOTS_PER_SEAT_SIZE


def num_actions(work_piles: int, jokers: int) -> int:
    """N36: N_ACTIONS = 5 + (2+W)(F+4) + 4W + 13W^2."""
    w, f = work_piles, foundation_slots(jokers)
    return 5 + (2 + w) * (f + 4) + 4 * w + 13 * w * w
