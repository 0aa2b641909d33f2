"""Typed placements: ``7H 8H 9H @ 7,6 across`` (the notation of ``gnome play`` and the tests).

``TILES @ ROW,COL [across|down]``: the first tile goes on ``(ROW, COL)`` and each next tile
on the next *empty* cell in the direction (``across`` = rightwards along the row, ``down`` =
downwards along the column), skipping cells that already hold tiles, as in a crossword. A
joker is written with its declaration, ``*=QS``. One tile needs no direction. Coordinates
are 0-based (G3). :func:`parse_placement` checks only the notation and the board's edges
and occupied cells; whether the placement is legal is the engine's business.
"""

from __future__ import annotations

from gnome_env.ginny_o.board import SIZE, Board, cell, row_col
from gnome_env.ginny_o.cards import format_tile, parse_tile

DIRECTIONS = {"across": True, "a": True, "h": True, "down": False, "d": False, "v": False}

USAGE = (
    "write TILES @ ROW,COL [across|down], e.g. '7H 8H 9H @ 7,6 across' or '*=QS @ 11,10'; "
    "rows and columns are 0-14; a joker is *=CARD"
)


def parse_placement(text: str, board: Board) -> list[tuple[int, int, int]]:
    """The ``(cell, tile, card)`` triples of a typed placement on ``board``; ``ValueError``
    with the reason and the notation for anything malformed."""
    if not isinstance(text, str) or "@" not in text:
        raise ValueError(f"{text!r} is not a placement: {USAGE}")
    left, _, right = text.partition("@")
    tokens = left.split()
    if not tokens:
        raise ValueError(f"{text!r} names no tiles: {USAGE}")
    tiles = [parse_tile(t) for t in tokens]
    where = right.replace(",", " ").split()
    if len(where) not in (2, 3):
        raise ValueError(f"{text!r}: after @ give ROW,COL and a direction: {USAGE}")
    try:
        r, c = int(where[0]), int(where[1])
    except ValueError:
        raise ValueError(f"{text!r}: ROW and COL must be numbers 0-14: {USAGE}") from None
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        raise ValueError(f"{text!r}: ({r},{c}) is off the board; rows and columns are 0-14")
    if len(where) == 3:
        d = where[2].lower()
        if d not in DIRECTIONS:
            raise ValueError(f"{text!r}: direction {where[2]!r} is not across or down")
        horizontal = DIRECTIONS[d]
    elif len(tiles) == 1:
        horizontal = True
    else:
        raise ValueError(f"{text!r}: {len(tiles)} tiles need a direction (across or down)")
    out = []
    for i, (tile, card) in enumerate(tiles):
        while 0 <= r < SIZE and 0 <= c < SIZE and board.card[cell(r, c)] >= 0:
            if i == 0:
                raise ValueError(f"{text!r}: ({r},{c}) already holds a tile")
            r, c = (r, c + 1) if horizontal else (r + 1, c)
        if not (0 <= r < SIZE and 0 <= c < SIZE):
            raise ValueError(f"{text!r}: the tiles run off the board")
        out.append((cell(r, c), tile, card))
        r, c = (r, c + 1) if horizontal else (r + 1, c)
    return out


def format_placement(tiles: tuple[tuple[int, int, int], ...] | list[tuple[int, int, int]]) -> str:
    """The notation of a placement's ``(cell, tile, card)`` triples (reading order)."""
    tiles = sorted(tiles)
    words = " ".join(format_tile(t, cd) for _, t, cd in tiles)
    r, c = row_col(tiles[0][0])
    if len(tiles) == 1:
        return f"{words} @ {r},{c}"
    across = tiles[1][0] // SIZE == tiles[0][0] // SIZE
    return f"{words} @ {r},{c} {'across' if across else 'down'}"
