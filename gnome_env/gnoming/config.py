"""The rules configuration: every ``[variant: ...]`` of RULES.md plus the seat count and deck."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from gnome_env.core.config import PlainConfig, check_bool, check_float, check_int
from gnome_env.gnoming.cards import LAYOUT_SIZE, DeckSpec

__all__ = [
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "PlainConfig",
    "RulesConfig",
    "check_bool",
    "check_float",
    "check_int",
    "seat_counts",
]

MIN_PLAYERS = 3
MAX_PLAYERS = 7
MAX_ROUNDS = 100
TURNS_PER_PLAYER_CAP = 60  # R17 default: 60 * players turns per round.


def seat_counts(num_players: object, name: str = "num_players") -> tuple[int, ...]:
    """The seat counts a ``num_players`` argument allows: an int (one choice) or a non-empty
    sequence of them, each in ``MIN_PLAYERS..MAX_PLAYERS``; anything else is a ``ValueError``."""
    allowed = f"an integer in {MIN_PLAYERS}..{MAX_PLAYERS} or a non-empty sequence of them"
    if isinstance(num_players, (int, np.integer)) and not isinstance(num_players, bool):
        values: list[object] = [num_players]
    elif isinstance(num_players, Sequence) and not isinstance(num_players, (str, bytes)):
        values = list(num_players)
        if not values:
            raise ValueError(f"{name}=[] is not allowed: must be {allowed}")
    else:
        raise ValueError(f"{name}={num_players!r} is not allowed: must be {allowed}")
    for n in values:
        if (
            isinstance(n, (bool, np.bool_))
            or not isinstance(n, (int, np.integer))
            or not MIN_PLAYERS <= n <= MAX_PLAYERS
        ):
            raise ValueError(f"{name}={num_players!r} is not allowed: must be {allowed}")
    return tuple(int(n) for n in values)  # type: ignore[call-overload]


@dataclass(frozen=True)
class RulesConfig(PlainConfig):
    """One validated, immutable set of rule options (RULES.md variants, R1 deck, seat count).

    Construct with keywords or :meth:`from_dict`; any bad value raises ``ValueError``
    naming the field, the value and what is allowed. Use :meth:`replace` to derive a
    changed copy (validated again).
    """

    CONFIG_TITLE: ClassVar[str] = "rules"

    num_players: int = 4
    """Seats at the table, 3..7."""
    rotate_start: bool = True
    """R6: round r starts with seat r mod players; False: seat 0 starts every round."""
    discard_taken_card: bool = False
    """R9: whether a card taken from a discard pile may be discarded again the same turn."""
    bounce_face_up: bool = False
    """R11: whether a displaced card that was already face up may bounce."""
    max_turns_per_round: int | None = None
    """R17: turn cap per round; None means 60 x num_players."""
    first_out_tie_is_lowest: bool = True
    """R21: whether the first-out player tying for lowest layout score counts as lowest."""
    rounds: int = 3
    """R23: rounds per game."""
    deck: DeckSpec = field(default_factory=DeckSpec.default)
    """R1: the deck spec (a ``{token: copies}`` mapping is accepted and converted)."""

    def __post_init__(self) -> None:
        check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        for name in (
            "rotate_start",
            "discard_taken_card",
            "bounce_face_up",
            "first_out_tie_is_lowest",
        ):
            check_bool(name, getattr(self, name))
        if self.max_turns_per_round is not None:
            check_int(
                "max_turns_per_round",
                self.max_turns_per_round,
                1,
                None,
                " or null (= 60 x num_players)",
            )
        check_int("rounds", self.rounds, 1, MAX_ROUNDS)
        if isinstance(self.deck, Mapping):  # a {token: copies} mapping is converted
            object.__setattr__(self, "deck", DeckSpec.from_dict(self.deck))
        if not isinstance(self.deck, DeckSpec):
            raise ValueError(
                f"deck={self.deck!r} is not allowed: must be a DeckSpec or a mapping "
                "of card token to copies"
            )
        need = LAYOUT_SIZE * self.num_players + 3
        if self.deck.size < need:
            raise ValueError(
                f"deck has {self.deck.size} cards, too small for {self.num_players} players: "
                f"at least 9 x players + 3 = {need} cards are required (R1)"
            )

    @property
    def turn_cap(self) -> int:
        """R17: the effective number of turns after which a round ends."""
        if self.max_turns_per_round is None:
            return TURNS_PER_PLAYER_CAP * self.num_players
        return self.max_turns_per_round

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-friendly mapping; ``from_dict(to_dict())`` gives an equal config."""
        out: dict[str, object] = {}
        for name in self.field_names():
            value = getattr(self, name)
            out[name] = value.to_dict() if isinstance(value, DeckSpec) else value
        return out

    def replace(self, **changes: object) -> RulesConfig:
        """A copy with some fields changed (validated; unknown fields raise ``ValueError``)."""
        merged = {name: getattr(self, name) for name in self.field_names()}
        merged.update(changes)
        return RulesConfig.from_dict(merged)
