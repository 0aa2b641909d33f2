"""The environments' ``info`` dicts: the same keys with the same numeric types on every step.

Both environments (the AEC env's ``infos[agent]`` and the Gymnasium env's ``info``) carry
these keys after ``reset`` and after every step, whether or not a round ended -- so that
libraries which stack infos into arrays (Tianshou's buffers, TorchRL's specs) see one
fixed structure and never a ``None``, a string or a missing key. ``P`` is the number of
seats the env is built for: ``len(env.possible_agents)`` (the largest count of a
``num_players`` list); seats a game does not have read 0.

=============  ==============  ===========================================================
key            type            value
=============  ==============  ===========================================================
round_ended    int (0 or 1)    1 if a round ended since the agent's previous decision
round          int             index of that round (0-based), -1 if none ended
round_scores   int64 [P]       each seat's round score (R22: layout score + first-out R21)
layout_scores  int64 [P]       each seat's layout score (R18-R20), before the first-out rule
totals         int64 [P]       each seat's game total after that round (0 if none ended)
first_out      int             the seat that went out first in that round, -1 if nobody
                               (or no round ended)
ended_by       int             how that round ended: a code of :data:`ENDED_BY` (below)
game_over      int (0 or 1)    1 if that round was the last: the game is over
winners        int8 [P]        1 for each winning seat (R23, shared wins included) once the
                               game is over, else all 0
num_players    int             seats in this game (``env.config.num_players``)
=============  ==============  ===========================================================

``ended_by`` codes (:data:`ENDED_BY` maps a code to its name, as
:attr:`gnome_env.RoundResult.ended_by` spells it):

====  ============  =============================================================
code  name          meaning
====  ============  =============================================================
0     ``""``        no round ended
1     ``endgame``   the endgame after a player went out was played (R15)
2     ``turn_cap``  the turn cap was reached (R17); in the last round: truncation
3     ``no_draw``   no card could be drawn (R17)
====  ============  =============================================================

Every info has its own arrays, except the AEC env's infos of steps after which no round
ended (``round_ended == 0``): there the all-zero arrays are read-only and shared, which
keeps the common step cheap (the infos after ``reset`` and of absent seats have their own).
Seats are numbers (``player_i`` is seat ``i``). The round's results with agent names -- the
dict these infos held before -- stay available as ``env.last_round`` (see
:func:`gnome_env.gnoming.rewards.round_info`). The vector engine's ``info`` arrays use the same
codes (:mod:`gnome_env.gnoming.vector`); :meth:`gnome_env.gnoming.vector.KernelGame.step_info`
builds these
infos on the compiled path.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from gnome_env.gnoming.engine import Game

#: ``ended_by`` codes: the index of a :attr:`RoundResult.ended_by` name in this tuple.
ENDED_BY = ("", "endgame", "turn_cap", "no_draw")
ENDED_BY_CODE = {name: code for code, name in enumerate(ENDED_BY)}

#: Every key of an info, in order (the Gymnasium env adds ``action_mask`` and
#: ``learner_seat``).
INFO_KEYS = (
    "round_ended",
    "round",
    "round_scores",
    "layout_scores",
    "totals",
    "first_out",
    "ended_by",
    "game_over",
    "winners",
    "num_players",
)
#: The per-seat keys and their dtypes (the others are Python ints).
SEAT_KEYS = {
    "round_scores": np.int64,
    "layout_scores": np.int64,
    "totals": np.int64,
    "winners": np.int8,
}


def blank_info(slots: int, num_players: int) -> dict[str, Any]:
    """The info of a step after which no round ended (new arrays)."""
    return {
        "round_ended": 0,
        "round": -1,
        "round_scores": np.zeros(slots, dtype=np.int64),
        "layout_scores": np.zeros(slots, dtype=np.int64),
        "totals": np.zeros(slots, dtype=np.int64),
        "first_out": -1,
        "ended_by": 0,
        "game_over": 0,
        "winners": np.zeros(slots, dtype=np.int8),
        "num_players": num_players,
    }


def shared_blank_info(slots: int, num_players: int) -> Callable[[], dict[str, Any]]:
    """A function of no arguments returning :func:`blank_info` ``(slots, num_players)`` as a
    new dict whose arrays are read-only and shared by every such dict -- what the AEC env's
    common step hands out, at the cost of a dict copy."""
    return _blank_template(slots, num_players).copy


@functools.lru_cache(maxsize=64)
def _blank_template(slots: int, num_players: int) -> dict[str, Any]:
    info = blank_info(slots, num_players)
    for value in info.values():
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
    return info


def copy_info(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` with new copies of its arrays."""
    return {k: v.copy() if isinstance(v, np.ndarray) else v for k, v in info.items()}


def _padded(values: Any, slots: int, dtype: type) -> np.ndarray:
    out = np.zeros(slots, dtype=dtype)
    out[: len(values)] = values
    return out


def round_end_info(game: Game, slots: int) -> dict[str, Any]:
    """The info after the last finished round of ``game`` (``slots`` >= its seat count)."""
    result = game.round_results[-1]
    winners = np.zeros(slots, dtype=np.int8)
    over = game.game_over
    if over:
        winners[list(game.winners())] = 1
    return {
        "round_ended": 1,
        "round": int(result.round),
        "round_scores": _padded(result.round_scores, slots, np.int64),
        "layout_scores": _padded(result.layout_scores, slots, np.int64),
        "totals": _padded(game.totals, slots, np.int64),
        "first_out": -1 if result.first_out is None else int(result.first_out),
        "ended_by": ENDED_BY_CODE[result.ended_by],
        "game_over": int(over),
        "winners": winners,
        "num_players": game.num_players,
    }
