"""Nerts cards as ints: N1 (decks, ranks) and N2 (notation, ids, colours).

A card is an int. Natural cards have the N2 id ``13 * suit + rank - 1`` (0-51) with the
suit index C=0, D=1, H=2, S=3 and ranks A=1 ... K=13; the jokers are 52 and 53. Every
player owns one deck (N1), so a card id alone does not say whose card it is: the owner is
tracked separately wherever cards of several decks meet (the foundations).

Notation (N2): a rank ``A 2 3 4 5 6 7 8 9 T J Q K`` followed by a suit ``C D H S``
(``7H``, ``TD``); a joker is ``JK`` (both jokers print as ``JK``: ND13 in
``docs/rules-nerts.md``); with an owner, ``p2:7H``. Piles are written bottom -> top.
"""

from __future__ import annotations

from collections.abc import Iterable

RANKS = "A23456789TJQK"
SUITS = "CDHS"
NUM_NATURAL = 52
JOKER = 52  # the first joker's id; the second is 53 (N2)
MAX_JOKERS = 2
KING = 13

#: N2 colours: C and S are black (0), D and H are red (1).
BLACK, RED = 0, 1
SUIT_COLOUR = (BLACK, RED, RED, BLACK)


def card_id(rank: int, suit: int) -> int:
    """N2: the id of the natural card of ``rank`` (1-13) and ``suit`` (0-3)."""
    if not (1 <= rank <= KING and 0 <= suit <= 3):
        raise ValueError(f"no card of rank {rank!r} and suit {suit!r}: rank 1-13, suit 0-3")
    return 13 * suit + rank - 1


def is_joker(card: int) -> bool:
    """Whether ``card`` is a joker (id 52 or 53)."""
    return card >= NUM_NATURAL


def rank_of(card: int) -> int:
    """N1: the rank 1-13 of a natural card (A=1, K=13)."""
    if not 0 <= card < NUM_NATURAL:
        raise ValueError(f"card {card!r} has no rank: only natural cards 0-51 do")
    return card % 13 + 1


def suit_of(card: int) -> int:
    """N2: the suit index 0-3 (C D H S) of a natural card."""
    if not 0 <= card < NUM_NATURAL:
        raise ValueError(f"card {card!r} has no suit: only natural cards 0-51 do")
    return card // 13


def colour_of(card: int) -> int:
    """N2: ``RED`` (1) for diamonds and hearts, ``BLACK`` (0) for clubs and spades."""
    return SUIT_COLOUR[suit_of(card)]


def deck(jokers: int = 0) -> list[int]:
    """N1: one player's deck in canonical order: ids 0-51, then the jokers 52, 53."""
    if not 0 <= jokers <= MAX_JOKERS:
        raise ValueError(f"jokers={jokers!r} is not allowed: must be an integer from 0 to 2")
    return list(range(NUM_NATURAL + jokers))


def format_card(card: int, owner: int | None = None) -> str:
    """N2 token of ``card`` (``7H``, ``JK``), prefixed ``p<owner>:`` when an owner is given."""
    if not 0 <= card < NUM_NATURAL + MAX_JOKERS:
        raise ValueError(f"card id {card!r} is not allowed: must be 0-53")
    token = "JK" if card >= NUM_NATURAL else RANKS[card % 13] + SUITS[card // 13]
    return token if owner is None else f"p{owner}:{token}"


def parse_card(token: str) -> int:
    """N2: the id of a token like ``7H``, ``TD`` or ``JK`` (``JK`` is the first joker, 52)."""
    if not isinstance(token, str):
        raise ValueError(f"card token {token!r} is not allowed: must be a string like '7H'")
    t = token.strip().upper()
    if t == "JK":
        return JOKER
    if len(t) == 3 and t.startswith("10"):  # a forgiving spelling of T
        t = "T" + t[2]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise ValueError(
            f"card token {token!r} is not allowed: a rank of {' '.join(RANKS)} followed by a "
            f"suit of {' '.join(SUITS)} (like '7H'), or 'JK'"
        )
    return card_id(RANKS.index(t[0]) + 1, SUITS.index(t[1]))


def parse_owned(token: str) -> tuple[int | None, int]:
    """N2: ``(owner, card)`` of ``p2:7H`` (owner ``None`` when the token has no ``p<k>:``)."""
    if not isinstance(token, str):
        raise ValueError(f"card token {token!r} is not allowed: must be a string like 'p2:7H'")
    if ":" not in token:
        return None, parse_card(token)
    who, card = token.split(":", 1)
    who = who.strip().lower()
    if not (who.startswith("p") and who[1:].isdigit()):
        raise ValueError(f"card token {token!r} is not allowed: the owner is written 'p<seat>:'")
    return int(who[1:]), parse_card(card)


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """Ids of a pile written as tokens (a space-separated string or a sequence), in order.

    Jokers come back as 52 each time; :func:`assign_jokers` gives the second one id 53.
    ``""`` and ``"-"`` are the empty pile.
    """
    tokens = text.split() if isinstance(text, str) else list(text)
    if tokens == ["-"]:
        return []
    return [parse_card(t) for t in tokens]


def assign_jokers(cards: list[int], jokers_left: list[int]) -> list[int]:
    """``cards`` with each joker (52) replaced by the next id of ``jokers_left`` (consumed).

    ND13: within one deck the first ``JK`` written is joker 52 and the second 53.
    """
    out = []
    for c in cards:
        if c >= NUM_NATURAL:
            if not jokers_left:
                raise ValueError("more jokers written than the deck has")
            c = jokers_left.pop(0)
        out.append(c)
    return out


def format_cards(cards: Iterable[int]) -> str:
    """A pile written as space-separated N2 tokens (``-`` for the empty pile)."""
    text = " ".join(format_card(c) for c in cards)
    return text or "-"
