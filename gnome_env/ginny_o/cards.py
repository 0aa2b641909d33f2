"""Ginny-O tiles: kinds, notation and values (RULES-ginny-o.md G1, G3, G24, G30).

A tile *kind* is ``13 * suit + rank`` with suits ``C D H S`` = 0..3 and ranks ``A 2 .. 9 T J
Q K`` = 0..12 (G3); a joker is kind :data:`JOKER` = 52, so there are 53 kinds. A tile on the
board reads as a *card* (0..51): a real tile reads as itself, a joker as the card it was
declared as (G11). Notation: ``7H``, ``TS``, ``*`` (a joker in a rack), ``*=QS`` (a placed
joker standing for Q-spades).
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "CDHS"
JOKER = 52
NUM_CARDS = 52
NUM_KINDS = 53
SET_SIZES = (3, 4)  # G9
MIN_RUN = 3  # G10
MAX_RUN = 14  # G10: A-2-...-K-A


def kind(suit: int, rank: int) -> int:
    """G3: the kind id of the card of ``suit`` (0..3) and ``rank`` (0 = ace .. 12 = king)."""
    return 13 * suit + rank


def suit_of(card: int) -> int:
    """G3: the suit (0..3) of card ``card`` (0..51)."""
    return card // 13


def rank_of(card: int) -> int:
    """G3: the rank (0 = ace .. 12 = king) of card ``card`` (0..51)."""
    return card % 13


def format_kind(k: int) -> str:
    """``7H`` for a card, ``*`` for the joker kind (G3)."""
    if k == JOKER:
        return "*"
    if not 0 <= k < NUM_CARDS:
        raise ValueError(f"tile kind {k!r} is not allowed: must be 0..52")
    return RANKS[rank_of(k)] + SUITS[suit_of(k)]


def format_tile(tile: int, card: int) -> str:
    """A placed tile: ``7H``, or ``*=QS`` for a joker declared as Q-spades (G3)."""
    if tile == JOKER:
        return "*=" + format_kind(card)
    return format_kind(tile)


def parse_kind(text: str) -> int:
    """The kind of ``7H`` / ``th`` / ``10H`` / ``*`` (any case); ``ValueError`` otherwise."""
    if not isinstance(text, str):
        raise ValueError(f"a tile is written like 7H, TS or *, got {text!r}")
    t = text.strip().upper()
    if t in ("*", "JK", "JOKER"):
        return JOKER
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(
            f"{text!r} is not a tile: write rank then suit, ranks {' '.join(RANKS)} "
            f"(or 10), suits {' '.join(SUITS)}, e.g. 7H or TS; a joker is *"
        )
    return kind(SUITS.index(t[1]), RANKS.index(t[0]))


def parse_tile(text: str) -> tuple[int, int]:
    """``(tile, card)`` of ``7H`` (a real tile) or ``*=QS`` (a joker declared as Q-spades)."""
    t = text.strip()
    if t.startswith("*="):
        card = parse_kind(t[2:])
        if card == JOKER:
            raise ValueError(f"{text!r}: a joker must be declared as a card, e.g. *=QS")
        return JOKER, card
    k = parse_kind(t)
    if k == JOKER:
        raise ValueError(f"{text!r}: a placed joker needs its declaration, e.g. *=QS")
    return k, k


def parse_kinds(text: str | Iterable[str]) -> list[int]:
    """Kinds of ``"7H 8H *"`` (space-separated) or of a sequence of tokens."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return [parse_kind(t) for t in tokens]


def run_value(card: int) -> int:
    """G24: value of a card in a run (ace 1, 2-10 face value, J Q K 10)."""
    r = card % 13
    return 1 if r == 0 else min(r + 1, 10)


def set_value(card: int) -> int:
    """G24: value of a card in a set (ace 15, 2-10 face value, J Q K 10)."""
    r = card % 13
    return 15 if r == 0 else min(r + 1, 10)


def penalty_value(k: int) -> int:
    """G30: rack penalty of a tile kind (ace 15, 2-10 face, J Q K 10, joker 0)."""
    return 0 if k == JOKER else set_value(k)
