"""The Ginny-O flat action table (RULES-ginny-o.md, RL notes): 1864 ids, built once.

=========  ==================  ===========================================================
ids        action              legal when
=========  ==================  ===========================================================
0-1799     ``PLACE(s, c)``     = 225 s + c: the tile in rack slot s goes on cell c; the
                               pending tiles still lead to a legal complete placement
1800-1851  ``DECLARE(k)``      = 1800 + k: the joker just placed stands for card k
1852       ``COMMIT``          the pending tiles form a legal placement: score it
1853-1860  ``RETURN(s)``       = 1853 + s: mark slot s to go back to the box (after a draw,
                               before any placement; slots in increasing order)
1861       ``CONFIRM_RETURN``  at least one slot is marked
1862       ``END_TURN``        ``max_placements`` > 1 and a placement was made this turn
1863       ``PASS``            no draw this turn (the box is empty) and nothing placed
=========  ==================  ===========================================================
"""

from __future__ import annotations

from gnome_env.ginny_o.board import NUM_CELLS, row_col
from gnome_env.ginny_o.cards import format_kind
from gnome_env.ginny_o.config import MAX_SLOTS

PLACE_BASE = 0
DECLARE_BASE = MAX_SLOTS * NUM_CELLS  # 1800
COMMIT = DECLARE_BASE + 52  # 1852
RETURN_BASE = COMMIT + 1  # 1853
CONFIRM_RETURN = RETURN_BASE + MAX_SLOTS  # 1861
END_TURN = CONFIRM_RETURN + 1  # 1862
PASS = END_TURN + 1  # 1863
NUM_ACTIONS = PASS + 1  # 1864
#: At most 8 PLACE + 4 DECLARE + 8 COMMIT + END_TURN steps in one turn (RL notes).
MAX_STEPS_PER_TURN = 21

assert NUM_ACTIONS == 1864


def place(slot: int, c: int) -> int:
    """The id of ``PLACE(slot, c)``."""
    return PLACE_BASE + NUM_CELLS * slot + c


def declare(card: int) -> int:
    """The id of ``DECLARE(card)``."""
    return DECLARE_BASE + card


def return_slot(slot: int) -> int:
    """The id of ``RETURN(slot)``."""
    return RETURN_BASE + slot


def kind_of(action: int) -> str:
    """``place``, ``declare``, ``commit``, ``return``, ``confirm_return``, ``end_turn`` or
    ``pass``; ``ValueError`` for an id outside 0..1863."""
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(
            f"action {action!r} is not allowed: must be an integer 0..{NUM_ACTIONS - 1}"
        )
    if action < DECLARE_BASE:
        return "place"
    if action < COMMIT:
        return "declare"
    if action == COMMIT:
        return "commit"
    if action < CONFIRM_RETURN:
        return "return"
    return {CONFIRM_RETURN: "confirm_return", END_TURN: "end_turn", PASS: "pass"}[action]


def describe(action: int, slots: list[int] | None = None) -> str:
    """Words for an action id, e.g. ``place slot 2 (7H) on (7,6)``; ``slots`` names the tiles."""
    what = kind_of(action)
    if what == "place":
        s, c = divmod(action - PLACE_BASE, NUM_CELLS)
        r, col = row_col(c)
        tile = ""
        if slots is not None and 0 <= s < len(slots) and slots[s] >= 0:
            tile = f" ({format_kind(slots[s])})"
        return f"place slot {s}{tile} on ({r},{col})"
    if what == "declare":
        return f"declare the joker as {format_kind(action - DECLARE_BASE)}"
    if what == "return":
        s = action - RETURN_BASE
        tile = f" ({format_kind(slots[s])})" if slots is not None and slots[s] >= 0 else ""
        return f"mark slot {s}{tile} for return"
    return {
        "commit": "commit the placement",
        "confirm_return": "return the marked tiles and redraw",
        "end_turn": "end the turn",
        "pass": "pass",
    }[what]
