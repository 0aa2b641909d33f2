"""Cards, the R2 notation, and the deck spec of R1.

Inside the engine a card is a small integer *code*:

* a numbered card is its value (a non-zero int, ``-MAX_VALUE..MAX_VALUE``);
* a mulligan is ``MULLIGAN`` (0 -- a value no numbered card may have, R1);
* a hazard is ``HAZARD`` (100, above every allowed value).

So ``0 < code < HAZARD`` means "positive card", ``code < 0`` means "negative card".
Outside the engine cards are written as R2 tokens: ``"7"``, ``"-2"``, ``"M"``, ``"H"``
(ints are accepted for numbered cards).
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

MULLIGAN = 0
HAZARD = 100
MAX_VALUE = 99
HAZARD_POINTS = 10  # R19: a hazard left in a layout scores +10.

LAYOUT_SIZE = 9
#: R2: rows then columns, row-major positions 0..8. No diagonals.
LINES: tuple[tuple[int, int, int], ...] = (
    (0, 1, 2),
    (3, 4, 5),
    (6, 7, 8),
    (0, 3, 6),
    (1, 4, 7),
    (2, 5, 8),
)

_TOKEN_HELP = (
    f"a card is a non-zero integer value between -{MAX_VALUE} and {MAX_VALUE} "
    "(int or string such as '7', '-2'), 'M' (mulligan) or 'H' (hazard)"
)


def is_positive(code: int) -> bool:
    """True for a positive numbered card."""
    return 0 < code < HAZARD


def is_negative(code: int) -> bool:
    """True for a negative numbered card."""
    return code < 0


def parse_card(token: object) -> int:
    """Turn one R2 token (``"7"``, ``-2``, ``"M"``, ``"H"``) into a card code."""
    if isinstance(token, bool):
        raise ValueError(f"card {token!r} is not valid: {_TOKEN_HELP}")
    if isinstance(token, str):
        text = token.strip().upper()
        if text == "M":
            return MULLIGAN
        if text == "H":
            return HAZARD
        try:
            value = int(text)
        except ValueError:
            raise ValueError(f"unknown card {token!r}: {_TOKEN_HELP}") from None
    else:
        try:
            value = operator.index(token)
        except TypeError:
            raise ValueError(f"unknown card {token!r}: {_TOKEN_HELP}") from None
    if value == 0:
        raise ValueError(f"card value 0 is not allowed (R1): {_TOKEN_HELP}")
    if not -MAX_VALUE <= value <= MAX_VALUE:
        raise ValueError(f"card value {value} is out of range: {_TOKEN_HELP}")
    return value


def card_token(code: int) -> str:
    """The R2 token of a card code."""
    if code == MULLIGAN:
        return "M"
    if code == HAZARD:
        return "H"
    return str(code)


def parse_layout(cards: Iterable[object]) -> list[int]:
    """Parse 9 R2 tokens (row-major) into card codes."""
    if isinstance(cards, (str, bytes)):
        raise ValueError(f"a layout is a sequence of 9 cards, not the string {cards!r}")
    try:
        items = list(cards)
    except TypeError:
        raise ValueError(f"a layout is a sequence of 9 cards, got {cards!r}") from None
    if len(items) != LAYOUT_SIZE:
        raise ValueError(f"a layout has exactly 9 cards (R2), got {len(items)}")
    return [parse_card(c) for c in items]


@dataclass(frozen=True)
class DeckSpec:
    """How many cards of each kind the deck holds (R1). Immutable and validated.

    ``counts`` is a sorted tuple of ``(card code, copies)`` pairs with copies >= 1.
    Build one with :meth:`from_dict` (R2 tokens as keys) or use :meth:`default`.
    """

    counts: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if not isinstance(self.counts, tuple):
            raise ValueError("deck: counts must be a tuple of (card code, copies) pairs")
        seen = set()
        for pair in self.counts:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise ValueError(f"deck: entry {pair!r} is not a (card code, copies) pair")
            code, copies = pair
            if code != HAZARD and code != MULLIGAN:
                parse_card(code)  # raises for value 0 / out of range / non-int
            if code in seen:
                raise ValueError(f"deck: card {card_token(code)} is listed twice")
            seen.add(code)
            if isinstance(copies, bool) or not isinstance(copies, int) or copies < 1:
                raise ValueError(
                    f"deck: copies of card {card_token(code)} must be a positive integer, "
                    f"got {copies!r}"
                )
        if list(self.counts) != sorted(self.counts):
            raise ValueError("deck: counts must be sorted by card code (use DeckSpec.from_dict)")

    @classmethod
    def from_dict(cls, mapping: Mapping[object, object]) -> DeckSpec:
        """Build a deck spec from ``{token: copies}``, e.g. ``{"1": 7, "-2": 6, "M": 3, "H": 3}``.

        Entries with 0 copies are dropped.
        """
        if not isinstance(mapping, Mapping):
            raise ValueError(
                f"deck must be a mapping of card token to number of copies, got {mapping!r}"
            )
        counts: dict[int, int] = {}
        for token, copies in mapping.items():
            try:
                code = parse_card(token)
            except ValueError as err:
                raise ValueError(f"deck: {err}") from None
            if code in counts:
                raise ValueError(f"deck: card {card_token(code)} is listed twice")
            if isinstance(copies, bool) or not isinstance(copies, int) or copies < 0:
                raise ValueError(
                    f"deck: copies of card {token!r} must be a non-negative integer, got {copies!r}"
                )
            if copies:
                counts[code] = copies
        return cls(tuple(sorted(counts.items())))

    @classmethod
    def default(cls) -> DeckSpec:
        """The R1 default: 110 cards (82 positive, 22 negative, 3 hazards, 3 mulligans)."""
        spec: dict[object, int] = {v: 7 for v in range(1, 11)}
        spec.update({11: 6, 12: 6, -1: 8, -2: 6, -3: 5, -4: 3, "M": 3, "H": 3})
        return cls.from_dict(spec)

    def to_dict(self) -> dict[str, int]:
        """``{token: copies}`` with string keys (JSON friendly)."""
        return {card_token(code): copies for code, copies in self.counts}

    @property
    def size(self) -> int:
        """Number of cards in the deck."""
        return sum(copies for _, copies in self.counts)

    def counter(self) -> Counter[int]:
        """The deck as a multiset of card codes."""
        return Counter(dict(self.counts))

    def cards(self) -> list[int]:
        """Every card of the deck as a code, in a fixed canonical order."""
        out: list[int] = []
        for code, copies in self.counts:
            out.extend([code] * copies)
        return out

    @property
    def kinds(self) -> tuple[int, ...]:
        """The distinct card codes in this deck, sorted."""
        return tuple(code for code, _ in self.counts)
