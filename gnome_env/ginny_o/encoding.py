"""Ginny-O observations: one flat float32 vector of 7944 values per seat, from a view only.

:func:`encode` reads a :class:`~gnome_env.ginny_o.information.GinnyView` -- what one seat
may know (G17) -- and never the game, so an observation cannot depend on another rack or on
the box (``tests/ginny_o/test_ginny_information.py`` reshuffles those and checks that nothing
changes). The layout is the table of the rules' RL notes, declared once below as named
``(name, start, end)`` slices (:data:`SLICES` for the five blocks; :data:`CELL_FIELDS`,
:data:`SLOT_FIELDS`, :data:`SEAT_FIELDS` and :data:`GLOBAL_FIELDS` inside one cell, one
rack slot, one seat and the globals). :func:`named_views` gives the blocks of a buffer as
reshaped numpy views; :func:`describe_slices` prints every field with its absolute offsets.

===============  ===============  ===============================================================
block            offsets          content
===============  ===============  ===============================================================
``board``        [0, 7425)        15 x 15 cells (reading order) x 33 (:data:`CELL_FIELDS`)
``rack``         [7425, 7865)     8 slots x 55 (:data:`SLOT_FIELDS`)
``unseen``       [7865, 7918)     per kind (53): copies this seat cannot see / copies in play
``seats``        [7918, 7930)     4 seats x 3 (:data:`SEAT_FIELDS`): self first, then in turn
                                  order, padded with zeros to 4
``globals``      [7930, 7944)     14 (:data:`GLOBAL_FIELDS`)
===============  ===============  ===============================================================

Reading the fields (all values in [0, 1] except ``score``):

* **board cell**: ``occupied``; ``suit`` one-hot C D H S and ``rank`` one-hot A 2 .. K of the
  card the tile reads as (a joker: its declared card, G11); ``joker``; ``pending`` (placed
  this turn, not committed); ``region`` one-hot (index 0 the centre region, 1..8 the red
  start squares in reading order -- the region ids of :mod:`gnome_env.ginny_o.board`; a
  pending tile has no region yet); ``premium`` one-hot y, g, R, B of a square not covered by
  a committed tile (R: the red squares other than the centre; the centre and plain squares
  are all zero). A pending tile keeps its square's premium bit: the premium is still
  uncovered and will count for the pending placement (G26). A pending joker not yet declared
  has only ``occupied``, ``joker`` and ``pending``.
* **rack slot**: ``kind`` one-hot (53; an empty slot is all zero), ``marked`` for return,
  ``used`` this turn (committed, or pending on the board). For the acting seat these are the
  turn's fixed slots (RL notes). For a seat that is not acting there is no turn in progress:
  its own rack (``view.rack``, sorted by kind, jokers last) fills slots ``0 .. len - 1`` and
  ``marked`` / ``used`` are zero.
* **unseen**: ``view.unseen / config.copies()`` (the box plus the other racks, G17); a kind
  with no copies in play (jokers with ``jokers_per_set=0``) reads 0.
* **seat**: ``present``; ``score`` = cumulative score (G28) / 100; ``rack_size`` = tiles on
  the rack / 8. Seat block ``r`` is the seat ``r`` places after the observer.
* **globals**: ``box`` = box size / tiles in play; ``turn`` = completed turns / turn cap
  (G29d); ``stall`` = stall count / (stall_rounds x players) (0 when G29c is off); ``phase``
  one-hot choose, placing, declaring, returning, after_commit; ``direction`` one-hot none,
  horizontal, vertical (the pending tiles' axis); ``placements`` = placements this turn /
  max_placements; ``drew`` (G13); ``first_meld`` made (G20). ``turn`` and ``stall`` are
  clipped to 1 (only a stacked test position can exceed them).

The turn-in-progress parts (``pending``, rack ``marked`` / ``used``, ``phase``,
``direction``, ``placements``, ``drew``) are zero for a seat that is not acting (its view
leaves them empty), and for every seat once the game is over.

``score`` has no natural bound; :func:`bounds` gives it ``[-SCORE_BOUND, SCORE_BOUND]`` with
``SCORE_BOUND = 10**4`` (a score of one million). No game gets near it: one placement scores
at most 8,370 (at most 8 new tiles, each in at most 2 scored lines, worth at most 15 x 3
with a meld multiplier of at most 3 x 3 (no line crosses more than two meld squares): 6,480;
plus at most 9 scored lines each with old tiles worth at most 14 x 15: 1,890), and a game
has at most 112 placements (one per tile in play: at most 2 sets of 56).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gnome_env.ginny_o.board import BLUE, GREEN, NUM_CELLS, NUM_REGIONS, RED, SIZE, SQUARE, YELLOW
from gnome_env.ginny_o.cards import JOKER, NUM_KINDS
from gnome_env.ginny_o.config import MAX_PLAYERS, MAX_SLOTS, GinnyConfig
from gnome_env.ginny_o.engine import PHASES
from gnome_env.ginny_o.information import GinnyView

Fields = tuple[tuple[str, int, int], ...]
DIRECTIONS = ("none", "horizontal", "vertical")
PREMIUMS = ("y", "g", "R", "B")
SCORE_SCALE = 100.0
SCORE_BOUND = 10_000.0  # score / 100: see the module docstring


def _table(widths: Sequence[tuple[str, int]]) -> Fields:
    """``(name, start, end)`` rows laid end to end from ``(name, width)`` rows."""
    out, at = [], 0
    for name, width in widths:
        out.append((name, at, at + width))
        at += width
    return tuple(out)


#: One board cell (33 values).
CELL_FIELDS: Fields = _table(
    [
        ("occupied", 1),
        ("suit", 4),
        ("rank", 13),
        ("joker", 1),
        ("pending", 1),
        ("region", NUM_REGIONS),
        ("premium", len(PREMIUMS)),
    ]
)
CELL_WIDTH = CELL_FIELDS[-1][2]
#: One rack slot (55 values).
SLOT_FIELDS: Fields = _table([("kind", NUM_KINDS), ("marked", 1), ("used", 1)])
SLOT_WIDTH = SLOT_FIELDS[-1][2]
#: One seat (3 values).
SEAT_FIELDS: Fields = _table([("present", 1), ("score", 1), ("rack_size", 1)])
SEAT_WIDTH = SEAT_FIELDS[-1][2]
#: The globals block (14 values).
GLOBAL_FIELDS: Fields = _table(
    [
        ("box", 1),
        ("turn", 1),
        ("stall", 1),
        ("phase", len(PHASES)),
        ("direction", len(DIRECTIONS)),
        ("placements", 1),
        ("drew", 1),
        ("first_meld", 1),
    ]
)
GLOBAL_WIDTH = GLOBAL_FIELDS[-1][2]
#: The five blocks of the observation: ``(name, start, end)``.
SLICES: Fields = _table(
    [
        ("board", NUM_CELLS * CELL_WIDTH),
        ("rack", MAX_SLOTS * SLOT_WIDTH),
        ("unseen", NUM_KINDS),
        ("seats", MAX_PLAYERS * SEAT_WIDTH),
        ("globals", GLOBAL_WIDTH),
    ]
)
OBS_SIZE = SLICES[-1][2]
#: The shape of each block in :func:`named_views`.
SHAPES = {
    "board": (SIZE, SIZE, CELL_WIDTH),
    "rack": (MAX_SLOTS, SLOT_WIDTH),
    "unseen": (NUM_KINDS,),
    "seats": (MAX_PLAYERS, SEAT_WIDTH),
    "globals": (GLOBAL_WIDTH,),
}
MEANINGS = {
    "board": "15 x 15 cells in reading order",
    "occupied": "a tile is on the cell (committed or pending)",
    "suit": "one-hot C D H S of the card the tile reads as",
    "rank": "one-hot A 2 .. K of that card (a joker: its declared card)",
    "joker": "the tile is a joker",
    "pending": "placed this turn, not committed",
    "region": "one-hot region: the centre, then the 8 red squares in reading order",
    "premium": "one-hot y g R B of a square no committed tile covers (not the centre)",
    "rack": "8 slots (acting: the turn's slots; otherwise the sorted rack)",
    "kind": "one-hot tile kind (52: joker); empty slot all zero",
    "marked": "slot marked for return",
    "used": "slot's tile committed or pending this turn",
    "unseen": "per kind: copies this seat cannot see / copies in play",
    "seats": "self first, then in turn order, padded to 4",
    "present": "the seat is at the table",
    "score": "cumulative score / 100",
    "rack_size": "tiles on the rack / 8",
    "globals": "game and turn facts",
    "box": "box size / tiles in play",
    "turn": "completed turns / turn cap (G29d)",
    "stall": "stall count / stall limit (G29c; 0 when off)",
    "phase": "one-hot choose placing declaring returning after_commit",
    "direction": "one-hot none horizontal vertical (pending tiles' axis)",
    "placements": "placements this turn / max_placements",
    "drew": "a tile was drawn this turn (G13)",
    "first_meld": "the first meld has been made (G20)",
}

assert CELL_WIDTH == 33 and SLOT_WIDTH == 55 and GLOBAL_WIDTH == 14
assert OBS_SIZE == 7944

_BLOCK = {name: (start, end) for name, start, end in SLICES}
_CELL = {name: (start, end) for name, start, end in CELL_FIELDS}
_SLOT = {name: (start, end) for name, start, end in SLOT_FIELDS}
_SEAT = {name: start for name, start, _ in SEAT_FIELDS}
_GLOBAL = {name: start for name, start, _ in GLOBAL_FIELDS}
_PHASE_INDEX = {p: i for i, p in enumerate(PHASES)}
_OCC, _SUIT, _RANK = _CELL["occupied"][0], _CELL["suit"][0], _CELL["rank"][0]
_JOKER, _PENDING, _REGION = _CELL["joker"][0], _CELL["pending"][0], _CELL["region"][0]
_PREMIUM = slice(*_CELL["premium"])
_KIND, _MARKED, _USED = _SLOT["kind"][0], _SLOT["marked"][0], _SLOT["used"][0]


def _premium_table() -> np.ndarray:
    """(225, 4) one-hot premium of every square of the layout (G6): y, g, R, B."""
    out = np.zeros((NUM_CELLS, len(PREMIUMS)), dtype=np.float32)
    for c, square in enumerate(SQUARE):
        if square in (YELLOW, GREEN, RED, BLUE):  # the centre (START) has no premium (G7)
            out[c, (YELLOW, GREEN, RED, BLUE).index(square)] = 1.0
    return out


PREMIUM_TABLE = _premium_table()
PREMIUM_TABLE.setflags(write=False)


def slice_of(block: str) -> slice:
    """The absolute slice of block ``block`` (``board``, ``rack``, ``unseen``, ``seats``,
    ``globals``)."""
    start, end = _BLOCK[block]
    return slice(start, end)


def global_slice(name: str) -> slice:
    """The absolute slice of global field ``name`` (e.g. ``phase``)."""
    base = _BLOCK["globals"][0]
    for field, start, end in GLOBAL_FIELDS:
        if field == name:
            return slice(base + start, base + end)
    raise KeyError(name)


def named_views(obs: np.ndarray) -> dict[str, np.ndarray]:
    """The five blocks of an observation as reshaped views (writing them writes ``obs``)."""
    return {name: obs[start:end].reshape(SHAPES[name]) for name, start, end in SLICES}


def describe_slices() -> str:
    """A text table of every block and field with its absolute offsets and meaning."""
    rows = [f"{'field':<22}{'offsets':<18}{'shape':<14}meaning"]
    inner = {"board": CELL_FIELDS, "rack": SLOT_FIELDS, "seats": SEAT_FIELDS}
    for name, start, end in SLICES:
        shape = " x ".join(map(str, SHAPES[name]))
        rows.append(f"{name:<22}{f'[{start}, {end})':<18}{shape:<14}{MEANINGS[name]}")
        if name == "globals":
            for field, a, b in GLOBAL_FIELDS:
                where = f"[{start + a}, {start + b})"
                rows.append(f"  {field:<20}{where:<18}{b - a:<14}{MEANINGS[field]}")
        elif name in inner:
            for field, a, b in inner[name]:
                rows.append(f"  {field:<20}{f'+{a}:{b}':<18}{b - a:<14}{MEANINGS[field]}")
    rows.append(f"{'total':<22}{f'[0, {OBS_SIZE})':<18}{OBS_SIZE}")
    return "\n".join(rows)


def bounds() -> tuple[np.ndarray, np.ndarray]:
    """``(low, high)`` float32 Box bounds: [0, 1] except the seats' ``score``."""
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    base = _BLOCK["seats"][0] + _SEAT["score"]
    idx = base + SEAT_WIDTH * np.arange(MAX_PLAYERS)
    low[idx], high[idx] = -SCORE_BOUND, SCORE_BOUND
    return low, high


def seat_order(view: GinnyView) -> list[int]:
    """The absolute seats of seat blocks ``0 .. n-1``: the observer, then in turn order."""
    n = view.config.num_players
    return [(view.seat + r) % n for r in range(n)]


_BOARD_END = _BLOCK["board"][1]
_RACK0, _UNSEEN0 = _BLOCK["rack"][0], _BLOCK["unseen"][0]
_SEATS0, _GLOBALS0 = _BLOCK["seats"][0], _BLOCK["globals"][0]


def board_block(board) -> np.ndarray:
    """The board block of the observation for the committed tiles of ``board`` (flat,
    read-only; made once per board state and kept in the board's memo)."""
    memo = board.memo
    block = memo.get("obs_board")
    if block is not None:
        return block
    before = memo.get("parent", {}).get("obs_board")
    if before is not None:  # the block before the last puts, and the cells they added
        block = before.copy()
        for c in memo["added"]:
            at = c * CELL_WIDTH
            card = board.card[c]
            block[at + _OCC] = 1.0
            block[at + _SUIT + card // 13] = 1.0
            block[at + _RANK + card % 13] = 1.0
            block[at + _JOKER] = 1.0 if board.joker[c] else 0.0
            block[at + _REGION + board.region[c]] = 1.0
            block[at + _PREMIUM.start : at + _PREMIUM.stop] = 0.0
    else:
        cells = np.zeros((NUM_CELLS, CELL_WIDTH), dtype=np.float32)
        card = np.asarray(board.card, dtype=np.int64)
        idx = np.flatnonzero(card >= 0)
        on = card[idx]
        cells[idx, _OCC] = 1.0
        cells[idx, _SUIT + on // 13] = 1.0
        cells[idx, _RANK + on % 13] = 1.0
        cells[idx, _JOKER] = np.asarray(board.joker, dtype=np.float32)[idx]
        cells[idx, _REGION + np.asarray(board.region, dtype=np.int64)[idx]] = 1.0
        cells[:, _PREMIUM] = PREMIUM_TABLE
        cells[idx, _PREMIUM] = 0.0
        block = cells.reshape(-1)
    block.setflags(write=False)
    memo["obs_board"] = block  # the memo is shared with the board's copies: they see it too
    return block


_S_PRESENT, _S_SCORE, _S_RACK = _SEAT["present"], _SEAT["score"], _SEAT["rack_size"]
_G_BOX, _G_TURN, _G_STALL = (_GLOBALS0 + _GLOBAL[k] for k in ("box", "turn", "stall"))
_G_PHASE, _G_DIRECTION = _GLOBALS0 + _GLOBAL["phase"], _GLOBALS0 + _GLOBAL["direction"]
_G_PLACEMENTS, _G_DREW = _GLOBALS0 + _GLOBAL["placements"], _GLOBALS0 + _GLOBAL["drew"]
_G_FIRST = _GLOBALS0 + _GLOBAL["first_meld"]
_CONSTS: dict[GinnyConfig, tuple] = {}


def _consts(cfg: GinnyConfig) -> tuple:
    """What the encoder needs of a config, kept per config: the copies in play (float64,
    a kind with none as 1: its unseen count is 0), tiles in play, the turn cap, the stall
    limit, ``max_placements`` and the seat count."""
    out = _CONSTS.get(cfg)
    if out is None:
        if len(_CONSTS) > 64:
            _CONSTS.clear()
        copies = cfg.copies().astype(np.float64)
        copies[copies == 0] = 1.0
        out = _CONSTS[cfg] = (
            copies,
            cfg.tiles_in_play,
            cfg.turn_cap,
            cfg.stall_limit,
            cfg.max_placements,
            cfg.num_players,
        )
    return out


def encode(view: GinnyView, out: np.ndarray | None = None) -> np.ndarray:
    """The observation of ``view.seat`` (float32, :data:`OBS_SIZE`); written into ``out`` if
    given (it is zeroed first), else a new array."""
    if out is None:
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
    else:
        obs = out
        obs[_BOARD_END:] = 0.0
    copies, tiles_in_play, turn_cap, stall_limit, max_placements, n = _consts(view.config)
    acting = view.acting

    # Board: the committed tiles' block, then the pending tiles on top.
    obs[:_BOARD_END] = board_block(view.board)
    if acting:
        slots_kind = view.slots
        used = list(view.slot_used)
        for c, s, declared in view.pending:
            at = c * CELL_WIDTH
            obs[at + _OCC] = 1.0
            obs[at + _PENDING] = 1.0
            if slots_kind[s] == JOKER:
                obs[at + _JOKER] = 1.0
            if declared >= 0:
                obs[at + _SUIT + declared // 13] = 1.0
                obs[at + _RANK + declared % 13] = 1.0
            used[s] = True
        # Rack: the turn's slots, with the marked and used ones.
        for s, k in enumerate(slots_kind):
            at = _RACK0 + s * SLOT_WIDTH
            if k >= 0:
                obs[at + _KIND + k] = 1.0
            if used[s]:
                obs[at + _USED] = 1.0
        for s, m in enumerate(view.slot_marked):
            if m:
                obs[_RACK0 + s * SLOT_WIDTH + _MARKED] = 1.0
    else:
        # Rack: sorted by kind (jokers last) in slots 0 .. len - 1.
        for s, k in enumerate(view.rack):
            obs[_RACK0 + s * SLOT_WIDTH + _KIND + k] = 1.0

    # Unseen: copies not visible / copies in play (divided in float64).
    obs[_UNSEEN0 : _UNSEEN0 + NUM_KINDS] = np.array(view.unseen, dtype=np.float64) / copies

    # Seats: the observer first, then in turn order.
    scores, sizes, seat = view.scores, view.rack_sizes, view.seat
    for r in range(n):
        s = (seat + r) % n
        at = _SEATS0 + r * SEAT_WIDTH
        obs[at + _S_PRESENT] = 1.0
        obs[at + _S_SCORE] = scores[s] / SCORE_SCALE
        obs[at + _S_RACK] = sizes[s] / MAX_SLOTS

    # Globals.
    obs[_G_BOX] = view.box_size / tiles_in_play
    obs[_G_TURN] = min(view.turn / turn_cap, 1.0)
    obs[_G_STALL] = min(view.stall / stall_limit, 1.0) if stall_limit else 0.0
    if acting:
        obs[_G_PHASE + _PHASE_INDEX[view.phase]] = 1.0
        obs[_G_DIRECTION + view.direction] = 1.0
        obs[_G_PLACEMENTS] = view.placements_made / max_placements
        obs[_G_DREW] = float(view.drew)
    obs[_G_FIRST] = float(view.first_meld_made)
    return obs


__all__ = [
    "CELL_FIELDS",
    "GLOBAL_FIELDS",
    "OBS_SIZE",
    "PREMIUM_TABLE",
    "SEAT_FIELDS",
    "SLICES",
    "SLOT_FIELDS",
    "bounds",
    "describe_slices",
    "encode",
    "global_slice",
    "named_views",
    "seat_order",
    "slice_of",
]
