"""The flat action table: one integer id per decision, shared by every API.

======  =========================  ==============================================
id      name                       meaning
======  =========================  ==============================================
0       ``draw``                   R7: take the top card of the draw pile (R8 reshuffle)
1       ``take_a``                 R7: take the top card of discard pile A
2       ``take_b``                 R7: take the top card of discard pile B
3-11    ``place@0`` .. ``place@8``  R9/R10: put the card in hand at layout position 0..8
12      ``discard_a``              R14: discard the card in hand onto pile A
                                   (for a hazard: discard it, i.e. remove it, R13)
13      ``discard_b``              R14: discard the card in hand onto pile B
14-22   ``bounce@0`` .. ``bounce@8``  R11: bounce the displaced card to position 0..8
23-31   ``flip@0`` .. ``flip@8``    R5/R13: turn own face-down card at position 0..8 up
32      ``decline``                R13: decline the flip a hazard offers
======  =========================  ==============================================

Layout positions are row-major (R2): 0 1 2 / 3 4 5 / 6 7 8.
"""

from __future__ import annotations

import operator

DRAW = 0
TAKE_A = 1
TAKE_B = 2
PLACE = 3  # PLACE + position
DISCARD_A = 12
DISCARD_B = 13
BOUNCE = 14  # BOUNCE + position
FLIP = 23  # FLIP + position
DECLINE = 32
NUM_ACTIONS = 33


def _names() -> tuple[str, ...]:
    names = ["draw", "take_a", "take_b"]
    names += [f"place@{q}" for q in range(9)]
    names += ["discard_a", "discard_b"]
    names += [f"bounce@{q}" for q in range(9)]
    names += [f"flip@{q}" for q in range(9)]
    names.append("decline")
    return tuple(names)


#: ``ACTION_NAMES[action_id]`` is the readable name of an action.
ACTION_NAMES: tuple[str, ...] = _names()
assert len(ACTION_NAMES) == NUM_ACTIONS


def action_name(action: int) -> str:
    """Readable name of an action id, e.g. ``place@4``."""
    return ACTION_NAMES[action]


def action_from_name(name: str) -> int:
    """Inverse of :func:`action_name`."""
    try:
        return ACTION_NAMES.index(name)
    except ValueError:
        raise ValueError(
            f"unknown action name {name!r}; known names: {', '.join(ACTION_NAMES)}"
        ) from None


def coerce_action(action: object) -> int:
    """Turn an int-like action (int, numpy integer) into an int in the table, or raise."""
    allowed = f"must be an integer in 0..{NUM_ACTIONS - 1}"
    if isinstance(action, bool):
        raise ValueError(f"action {action!r} is malformed: {allowed}")
    try:
        value = operator.index(action)
    except TypeError:
        raise ValueError(f"action {action!r} is malformed: {allowed}") from None
    if not 0 <= value < NUM_ACTIONS:
        raise ValueError(f"action {value} is out of range: {allowed}")
    return value
