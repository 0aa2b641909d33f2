"""The Ginny-O invariant validator (used by tests and the soak after every decision).

:func:`check_invariants` checks a game against the rules from scratch:

* tiles are conserved: box + racks + board = the tiles in play (G1, G2), racks never hold
  more than 8 tiles and, between turns, 7 while the box can refill them (G5);
* every line on the board is a meld (G8-G11);
* regions: every tile has one, touching tiles share it and each region is one connected
  group (G23);
* scores: replaying the committed placements from the starting board, each one's score
  recomputed from first principles (:func:`~gnome_env.ginny_o.movegen.score_placement`)
  equals the score the engine gave, and each seat's score is the sum of its placements;
  at the end, final score = score - rack penalty (G30);
* the turn in progress: pending tiles sit on empty cells in one line and come from unused
  slots.

:func:`check_mask_matches_engine` checks that every masked id is accepted (on a copy) and
that rejected ids raise :class:`~gnome_env.ginny_o.engine.IllegalActionError` and change
nothing. Both raise :class:`GinnyInvariantError` naming what is wrong.
"""

from __future__ import annotations

import numpy as np

from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import NEIGHBOURS, NUM_CELLS, meld_type, row_col
from gnome_env.ginny_o.cards import JOKER, NUM_KINDS, penalty_value
from gnome_env.ginny_o.config import MAX_SLOTS, RACK_SIZE
from gnome_env.ginny_o.engine import GinnyGame, IllegalActionError
from gnome_env.ginny_o.movegen import score_placement


class GinnyInvariantError(AssertionError):
    """A Ginny-O invariant does not hold."""


def _fail(message: str) -> None:
    raise GinnyInvariantError(message)


def check_invariants(game: GinnyGame) -> None:
    """Raise :class:`GinnyInvariantError` if any invariant of the module docstring fails."""
    board = game.board
    cfg = game.config
    # Conservation (G1, G2, G5).
    counts = np.zeros(NUM_KINDS, dtype=np.int64)
    for t in game.box:
        counts[t] += 1
    for rack in game.racks:
        for t in rack:
            counts[t] += 1
    for c in range(NUM_CELLS):
        if board.card[c] >= 0:
            counts[JOKER if board.joker[c] else board.card[c]] += 1
    if not np.array_equal(counts, game.in_play):
        diff = {
            k: int(counts[k] - game.in_play[k])
            for k in range(NUM_KINDS)
            if counts[k] != game.in_play[k]
        }
        _fail(f"tiles not conserved (kind: surplus) {diff}")
    if board.count != sum(1 for c in range(NUM_CELLS) if board.card[c] >= 0):
        _fail("board.count disagrees with the occupied cells")
    for seat, rack in enumerate(game.racks):
        if len(rack) > MAX_SLOTS:
            _fail(f"seat {seat} holds {len(rack)} tiles (at most 8)")
        if rack != sorted(rack):
            _fail(f"seat {seat}'s rack is not sorted")
        between = game.game_over or seat != game.current
        if between and game.box and len(rack) != RACK_SIZE:
            _fail(f"seat {seat} holds {len(rack)} tiles between turns with a non-empty box (G5)")
    # Lines (G8-G11).
    for line in board.lines():
        if not meld_type([board.card[x] for x in line], cfg.descending_runs):
            _fail(f"the line {[row_col(x) for x in line]} is not a meld")
    # Regions (G23).
    seen: dict[int, int] = {}
    for c in range(NUM_CELLS):
        if board.card[c] < 0:
            if board.region[c] != -1 or board.joker[c]:
                _fail(f"empty cell {row_col(c)} has a region or a joker flag")
            continue
        if not 0 <= board.region[c] <= 8:
            _fail(f"tile at {row_col(c)} has no region")
        for x in NEIGHBOURS[c]:
            if board.card[x] >= 0 and board.region[x] != board.region[c]:
                _fail(f"regions {board.region[c]} and {board.region[x]} touch at {row_col(c)}")
        seen.setdefault(board.region[c], c)
    for region, start in seen.items():
        group = {start}
        todo = [start]
        while todo:
            c = todo.pop()
            for x in NEIGHBOURS[c]:
                if board.card[x] >= 0 and x not in group:
                    group.add(x)
                    todo.append(x)
        size = sum(1 for c in range(NUM_CELLS) if board.region[c] == region)
        if len(group) != size:
            _fail(f"region {region} is not one connected group")
    # Scores (G24-G28, G30).
    replay = game.initial_board.copy()
    totals = list(game.initial_scores)
    for seat, tiles, score in game.placement_log:
        expected = score_placement(
            replay,
            tiles,
            rescore_existing=cfg.rescore_existing,
            descending_runs=cfg.descending_runs,
        )
        if expected != score:
            _fail(f"placement {tiles} scored {score}, recomputed {expected}")
        for c, t, cd in tiles:
            replay.put(c, t == JOKER, cd, board.region[c])
        totals[seat] += score
    if totals != game.scores:
        _fail(f"scores {game.scores} are not the sums of the placements {totals}")
    if replay.card != board.card or replay.joker != board.joker:
        _fail("the board is not the starting board plus the committed placements")
    if game.game_over:
        penalties = [sum(penalty_value(t) for t in r) for r in game.racks]
        if game.penalties != penalties:
            _fail(f"penalties {game.penalties}, recomputed {penalties} (G30)")
        finals = [s - p for s, p in zip(game.scores, penalties, strict=False)]
        if game.final_scores != finals:
            _fail(f"final scores {game.final_scores}, expected {finals} (G30)")
        return
    # The turn in progress.
    used_slots = [s for _, s, _ in game.pending]
    if len(set(used_slots)) != len(used_slots):
        _fail("a slot is pending twice")
    for c, s, _ in game.pending:
        if board.card[c] >= 0:
            _fail(f"pending tile on occupied cell {row_col(c)}")
        if game.slot_used[s] or game.slots[s] < 0:
            _fail(f"pending tile from used or empty slot {s}")
    rows = {c // 15 for c, _, _ in game.pending}
    cols = {c % 15 for c, _, _ in game.pending}
    if len(rows) > 1 and len(cols) > 1:
        _fail("pending tiles are not in one line")


def check_mask_matches_engine(game: GinnyGame, illegal_sample: int | None = None) -> None:
    """Every id in the mask is accepted on a copy (and leaves a valid game); ids outside it
    raise :class:`IllegalActionError` and leave the game unchanged. ``illegal_sample``
    checks only that many rejected ids (spread evenly), None checks all."""
    mask = game.legal_mask()
    if game.game_over:
        if mask.any():
            _fail("a finished game has legal actions")
        return
    if not mask.any():
        _fail("the acting seat has an empty mask (RL notes: never empty)")
    before = game.digest()
    legal = np.flatnonzero(mask).tolist()
    for a in legal:
        trial = game.copy()
        try:
            trial.step(a)
        except IllegalActionError as err:
            _fail(f"masked action {a} ({A.describe(a, game.slots)}) rejected: {err}")
        check_invariants(trial)
    illegal = np.flatnonzero(mask == 0).tolist()
    if illegal_sample is not None and len(illegal) > illegal_sample:
        stride = len(illegal) / illegal_sample
        illegal = [illegal[int(i * stride)] for i in range(illegal_sample)]
    for a in illegal:
        try:
            game.step(a)
        except IllegalActionError:
            continue
        _fail(f"unmasked action {a} ({A.describe(a, game.slots)}) was accepted")
    if game.digest() != before:
        _fail("a rejected action changed the game")


__all__ = ["GinnyInvariantError", "check_invariants", "check_mask_matches_engine"]
