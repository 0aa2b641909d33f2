"""Watch a recorded Ginny-O game: the viewer's data, a self-contained HTML replay, GIF/MP4.

``gnome replay RECORD.json --html OUT.html`` (:mod:`agents.ginny_o.replay`) uses this module.
A Ginny-O record (:mod:`gnome_env.ginny_o.records`) is replayed turn by turn and turned into
a list of *entries* that the page steps through:

* a ``"start"`` entry: the board the game starts from, the first player (G12) with its
  first draw made (G13), every seat's score and rack size and the box count;
* a ``"turn"`` entry for every turn of the record: the board *after* the turn with the
  turn's new tiles, and what the turn did (:class:`~gnome_env.ginny_o.records.TurnLog`):
  each placement with its cells and tiles, where it went (the first meld, a new region, the
  region it joined; G20-G23), the premium squares it covered and every line it scored with
  the G27 arithmetic (``new x mult + old``); a return (how many tiles, G14) or a pass; the
  box count before the turn's draw and at its end; the scores and rack sizes at the turn's
  end; and, when the turn ended the game, the G29 end condition;
* a final ``"game_over"`` entry (the G29 reason, the scores, the G30 rack penalties, the
  final scores and the G31 winners with why), or a ``"position"`` entry with the last
  board if the record stops before the game's end.

**What a seat may know** (G17). An entry's ``public`` part is built from the board, the
scores, the box size, the rack sizes and the turn's public description only; nothing in it
depends on a tile in a rack or on the box's order: the action ids, which name rack slots
and so tell a rack's order, are not in it either. Each entry also has ``private``: one item
per seat, that seat's rack (and, in the seat's own turn, its action ids, the rack it held
after the draw, the tiles it returned and the ones it drew at the turn's end; at the game's
end its rack penalty written out). A page written for the omniscient view holds every
seat's item; a page written for one seat (``seat=S``) holds only seat ``S``'s, the others
``None``. ``tests/ginny_o/test_ginny_viewer.py`` re-deals the hidden tiles (other racks and
the box) and builds games with the same public history and different hidden tiles, and
checks that a seat's data does not change.

:func:`write_html` embeds the entries as JSON in one HTML file with its own CSS and script
(the shared page of :mod:`gnome_env.core.viewer_page`; no network). :func:`frames` yields the
``rgb_array`` picture (:func:`gnome_env.ginny_o.render_image.render_rgb`) at the start and
after every turn, for :func:`write_gif` and :func:`write_mp4`.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gnome_env.core import video
from gnome_env.core.records import write_text
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import LAYOUT, START_SQUARES, row_col
from gnome_env.ginny_o.cards import format_kind, format_tile
from gnome_env.ginny_o.config import MAX_SLOTS
from gnome_env.ginny_o.describe import (
    PREMIUM_NOTE,
    PREMIUMS,
    LineScore,
    penalty_words,
    region_words,
)
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.notation import format_placement
from gnome_env.ginny_o.records import EndLog, GameLog, PlacementLog, TurnLog, end_log, play_turn

VIEWER_FORMAT = "gnome_env.ginny_o_replay_view"
VIEWER_VERSION = 1
START_HOLD_MS = 1500  #: how long a GIF shows the start (the last frame: 2 s)

#: The page's colour of each square kind of the layout (G6; the rgb_array render's colours).
SQUARE_COLOURS = {
    ".": "#d6c8a0",
    "y": "#ebcd46",
    "g": "#46a550",
    "R": "#cd3732",
    "B": "#3c64cd",
    "*": "#f096a5",
}


def short_label(label: str) -> str:
    """A player label short enough for a seat row: an agent spec with a file path keeps the
    name of the file's folder (``ppo:agents/policies/ginny_ppo/policy.pt`` ->
    ``ppo:ginny_ppo``); anything else is cut at 24 characters."""
    kind, sep, rest = label.partition(":")
    if sep and "/" in rest:
        parts = [p for p in rest.replace("\\", "/").split("/") if p]
        name = parts[-2] if len(parts) >= 2 and "." in parts[-1] else parts[-1]
        return f"{kind}:{name}"[:24]
    return label[:24]


def _rc(c: int) -> list[int]:
    return list(row_col(c))


def _tiles(kinds: Sequence[int]) -> list[str]:
    return [format_kind(t) for t in kinds]


# ---------------------------------------------------------------------- public parts
def board_cells(game: GinnyGame) -> list[list[Any]]:
    """Every tile on the board: ``[row, col, text, is joker, region]`` in reading order
    (``text`` a card, ``7H``, or a joker with its declaration, ``*=QS``)."""
    b = game.board
    return [
        [*_rc(c), format_tile(52 if b.joker[c] else b.card[c], b.card[c]), b.joker[c], b.region[c]]
        for c in range(len(b.card))
        if b.card[c] >= 0
    ]


def public_state(game: GinnyGame, turn: TurnLog | None = None) -> dict[str, Any]:
    """The table as every seat sees it (G17): the board, the scores, the box size, every
    rack's size, the stall and pass counters (G29a, G29c) and the free start squares (G22).
    With ``turn``, the counts are the ones at that turn's end (before the next seat's
    draw)."""
    cfg = game.config
    return {
        "turn": game.turn if turn is None else turn.turn,
        "board": board_cells(game),
        "scores": list(game.scores if turn is None else turn.scores),
        "box": len(game.box) if turn is None else turn.box_end,
        "rack_sizes": [len(r) for r in game.racks] if turn is None else list(turn.rack_sizes),
        "stall": game.stall if turn is None else turn.stall,
        "stall_limit": cfg.stall_limit,
        "pass_streak": game.pass_streak if turn is None else turn.pass_streak,
        "turn_cap": cfg.turn_cap,
        "free_starts": [_rc(c) for c in game.board.free_starts()],
        "current": game.current,
        "game_over": game.game_over,
    }


def line_data(line: LineScore) -> dict[str, Any]:
    """One scored line (G25-G27) as the page shows it: where it is, what it reads, its meld,
    each tile ``[row, col, text, value, new, tile mult, meld mult]`` and the arithmetic."""
    return {
        "where": line.where(),
        "reads": line.reads(),
        "meld": line.meld,
        "cells": [_rc(c) for c in line.cells],
        "terms": [
            [*_rc(t.cell), t.text, t.value, t.new, t.tile_mult, t.meld_mult] for t in line.terms
        ],
        "new": line.new,
        "mult": line.mult,
        "old": line.old,
        "score": line.score,
        "arithmetic": line.arithmetic(),
    }


def placement_data(p: PlacementLog) -> dict[str, Any]:
    """One placement: its notation, tiles, where it went, the premium squares it covered
    and the lines it scored (their scores add up to ``score``, G28)."""
    premiums = [[*_rc(c), LAYOUT[row_col(c)[0]][row_col(c)[1]]] for c, _, _ in p.tiles]
    return {
        "notation": format_placement(p.tiles),
        "tiles": [[*_rc(c), format_tile(t, card)] for c, t, card in p.tiles],
        "score": p.score,
        "region": p.region,
        "founded": p.founded,
        "where": region_words(p.region, p.founded, p.first),
        "premiums": [q for q in premiums if q[2] != "."],
        "lines": [line_data(line) for line in p.lines],
    }


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def end_data(end: EndLog) -> dict[str, Any]:
    """The public part of the game's end: G29's reason, the scores, the G30 penalties (the
    amounts; the tiles are private), the final scores and the G31 winners with why."""
    return {
        "reason": end.reason,
        "rule": end.rule,
        "words": end.words,
        "truncated": end.truncated,
        "scores": list(end.scores),
        "penalties": list(end.penalties),
        "final_scores": list(end.final_scores),
        "winners": list(end.winners),
        "why": end.why,
    }


def turn_words(t: TurnLog) -> list[str]:
    """What the turn did, in public words (one sentence each)."""
    out = []
    if t.drew:
        out.append(f"drew a tile from the box (G13): {t.box_start} -> {t.box_start - 1} tiles")
    else:
        out.append("drew nothing: the box is empty (G13)")
    for p in t.placements:
        out.append(
            f"placed {format_placement(p.tiles)} for {p.score} points: "
            f"{region_words(p.region, p.founded, p.first)}"
        )
    if t.kind == "return":
        drawn = t.box_start - int(t.drew) + t.returned - t.box_end
        out.append(
            f"returned {_plural(t.returned, 'tile')} to the box and drew {drawn} (G14); "
            "which tiles is known to this player only (G17)"
        )
    elif t.kind == "pass":
        out.append(
            f"passed (G14): {_plural(t.pass_streak, 'pass')} in a row with the box empty "
            "(G29a ends the game when every player has passed)"
        )
    elif t.kind == "play":
        refill = t.box_start - int(t.drew) - t.box_end
        out.append(f"refilled the rack with {_plural(refill, 'tile')} (G15)")
    else:
        out.append("the record ends in the middle of this turn")
    out.append(f"box: {t.box_end} tiles at the end of the turn")
    if t.end is not None:
        out.append(f"the game ends: {t.end.words}")
    return out


def turn_public(t: TurnLog) -> dict[str, Any]:
    """The public description of a turn (G17): everything in :class:`TurnLog` but its
    private fields (action ids, tiles returned or drawn, racks)."""
    return {
        "seat": t.seat,
        "turn": t.turn,
        "kind": t.kind,
        "drew": t.drew,
        "box_start": t.box_start,
        "box_end": t.box_end,
        "returned": t.returned,
        "points": t.points,
        "placements": [placement_data(p) for p in t.placements],
        "words": turn_words(t),
        "end": None if t.end is None else end_data(t.end),
    }


# ---------------------------------------------------------------------- private parts
def _turn_private(t: TurnLog) -> dict[str, Any]:
    """What only the mover knows about its turn: its action ids (in words), the rack it held
    after the draw, the tiles it returned and the ones it drew at the turn's end."""
    slots = list(t.rack_before) + [-1] * (MAX_SLOTS - len(t.rack_before))
    return {
        "rack_before": _tiles(t.rack_before),
        "actions": list(t.actions),
        "action_words": [A.describe(a, slots) for a in t.actions],
        "returned_tiles": _tiles(t.returned_tiles),
        "refill": _tiles(t.refill),
    }


def _only(private: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any] | None]:
    """``private`` for the omniscient view (``seat`` None) or only ``seat``'s item."""
    return [p if seat is None or s == seat else None for s, p in enumerate(private)]


def start_entry(game: GinnyGame, seat: int | None = None) -> dict[str, Any]:
    """The ``"start"`` entry: the position before the first turn of the record."""
    return {
        "kind": "start",
        "turn": game.turn,
        "step": game.turn,
        "first_player": game.current,
        "public": public_state(game),
        "private": _only([{"rack": _tiles(r)} for r in game.racks], seat),
    }


def turn_entry(
    game: GinnyGame, actions: Sequence[int], seat: int | None = None, play: bool = False
) -> dict[str, Any]:
    """The ``"turn"`` entry of one whole turn played with ``actions`` from ``game`` (at the
    start of the turn). ``seat``: None for the omniscient view, else the seat the page is
    written for. ``play``: step ``game`` itself (else a copy is stepped)."""
    target = game if play else game.copy()
    t = play_turn(target, actions)
    private = []
    for s, rack in enumerate(t.racks_after):
        item: dict[str, Any] = {"rack": _tiles(rack)}
        if s == t.seat:
            item["turn"] = _turn_private(t)
        private.append(item)
    return {
        "kind": "turn",
        "turn": t.turn,
        "step": t.turn,
        "seat": t.seat,
        "public": public_state(target, t),
        "play": turn_public(t),
        "private": _only(private, seat),
    }


def game_over_entry(game: GinnyGame, seat: int | None = None) -> dict[str, Any]:
    """The ``"game_over"`` entry: the final board, the end (G29-G31) and, privately, each
    rack left and its penalty written out (G30)."""
    end = end_log(game)
    return {
        "kind": "game_over",
        "turn": game.turn - 1,
        "step": game.turn - 1,
        "public": public_state(game),
        "end": end_data(end),
        "private": _only(
            [{"rack": _tiles(r), "penalty_words": penalty_words(r)} for r in end.racks], seat
        ),
    }


def build_entries(log: GameLog, *, seat: int | None = None) -> list[dict[str, Any]]:
    """The viewer's entries for the whole of ``log`` (replayed from its seed, its stacked
    position and its actions); ``seat``: None for the omniscient view, or the one seat the
    page is written for (the others' private items are None)."""
    game = log.fresh_game()
    entries = [start_entry(game, seat)]
    for _, actions in log.turn_actions:
        entries.append(turn_entry(game, actions, seat=seat, play=True))
    if game.game_over:
        entries.append(game_over_entry(game, seat))
    else:
        entries.append(
            {
                "kind": "position",
                "turn": game.turn,
                "step": game.turn,
                "public": public_state(game),
                "private": _only([{"rack": _tiles(r)} for r in game.racks], seat),
            }
        )
    for i, entry in enumerate(entries):
        entry["index"] = i
    return entries


def legend() -> dict[str, Any]:
    """The premium squares (G6, G7, G26, G27) as the page's legend explains them."""
    return {
        "squares": [
            {"letter": letter, "name": name, "effect": effect, "colour": SQUARE_COLOURS[letter]}
            for letter, name, effect in PREMIUMS
        ],
        "note": PREMIUM_NOTE,
    }


def viewer_data(
    log: GameLog,
    meta: Mapping[str, Any] | None = None,
    *,
    seat: int | None = None,
    title: str | None = None,
    players: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Everything the page shows, as one JSON-ready dict (see :func:`build_entries`).
    ``players`` labels the seats (default: ``meta["players"]``, else ``seat 0`` ...)."""
    game = log.game
    n = game.num_players
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n
    ):
        raise ValueError(f"seat={seat!r} is not allowed: use None (omniscient) or 0..{n - 1}")
    meta = dict(meta or {})
    if players is None:
        given = meta.get("players")
        players = given if isinstance(given, list) and len(given) == n else None
    if players is None or len(players) != n:
        players = [f"seat {s}" for s in range(n)]
    where = ", ".join(
        f"{key.replace('_', ' ')} {meta[key]}"
        for key in ("source", "arena_seed", "deal", "rotation")
        if key in meta
    )
    cfg = game.config
    return {
        "format": VIEWER_FORMAT,
        "version": VIEWER_VERSION,
        "game": "ginny_o",
        "title": title or f"Ginny-O, {n} players",
        "num_players": n,
        "rules": cfg.to_dict(),
        "seed": str(game.seed),  # a string: the page's numbers are doubles
        "where": where,
        "players": [str(p) for p in players],
        "short_players": [short_label(str(p)) for p in players],
        "seat_only": seat,
        "layout": list(LAYOUT),
        "start_squares": [_rc(c) for c in START_SQUARES],
        "legend": legend(),
        "final_scores": None if game.final_scores is None else list(game.final_scores),
        "entries": build_entries(log, seat=seat),
    }


# ---------------------------------------------------------------------- HTML
def render_html(data: Mapping[str, Any]) -> str:
    """One self-contained HTML page (inline CSS and script, no network) for ``data``."""
    from gnome_env.ginny_o._viewer_page import PAGE

    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return PAGE.replace("__TITLE__", html.escape(str(data["title"]))).replace("__DATA__", payload)


def write_html(data: Mapping[str, Any], path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write :func:`render_html` to ``path`` (atomically); an existing file is a
    ``FileExistsError`` unless ``overwrite``."""
    return write_text(path, render_html(data), overwrite)


# ---------------------------------------------------------------------- pictures
def frames(log: GameLog, every: int = 1, seat: int | None = None) -> Iterator[np.ndarray]:
    """The ``rgb_array`` pictures of the record: at its start, after every ``every``-th turn
    and after its last turn. Drawn for ``seat`` (its rack only, G17), or, with None, for the
    seat that just moved (at the start: the first player), so that every rack is seen in
    turn."""
    from gnome_env.ginny_o.render_image import render_rgb

    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ValueError(f"every={every!r} is not allowed: use an integer >= 1")
    n = log.num_players
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < n):
        raise ValueError(f"seat={seat!r} is not allowed: use None or 0..{n - 1}")
    game = log.fresh_game()
    yield render_rgb(game, seat)
    turns = log.turn_actions
    for i, (mover, actions) in enumerate(turns):
        play_turn(game, actions)
        if (i + 1) % every == 0 or i == len(turns) - 1:
            yield render_rgb(game, mover if seat is None else seat)


def _pictures(log: GameLog, every: int, seat: int | None) -> tuple[list, dict]:
    pictures = list(frames(log, every, seat))
    return pictures, ({0: START_HOLD_MS} if len(pictures) > 1 else {})


def write_gif(
    log: GameLog,
    path: str | os.PathLike,
    fps: float = 4.0,
    every: int = 1,
    seat: int | None = None,
) -> int:
    """Write the game's frames as an animated GIF (needs Pillow); the first frame is held
    1.5 s and the last one 2 s. Returns the frame count."""
    pictures, hold = _pictures(log, every, seat)
    return video.write_gif(pictures, path, fps, hold_ms=hold)


def ffmpeg_path() -> str | None:
    """The ``ffmpeg`` executable on PATH, or None."""
    return video.ffmpeg_path()


def write_mp4(
    log: GameLog,
    path: str | os.PathLike,
    fps: float = 4.0,
    every: int = 1,
    seat: int | None = None,
) -> int:
    """Write the game's frames as an H.264 MP4 (needs the ``ffmpeg`` program); returns the
    frame count."""
    exe = ffmpeg_path()
    if exe is None:
        raise ValueError(
            "--mp4 needs the ffmpeg program on PATH (apt-get install ffmpeg); "
            "--gif needs only Pillow"
        )
    pictures, _ = _pictures(log, every, seat)
    return video.write_mp4(pictures, path, fps, exe=exe)


__all__ = [
    "VIEWER_FORMAT",
    "VIEWER_VERSION",
    "board_cells",
    "build_entries",
    "frames",
    "game_over_entry",
    "legend",
    "public_state",
    "render_html",
    "start_entry",
    "turn_entry",
    "turn_public",
    "viewer_data",
    "write_gif",
    "write_html",
    "write_mp4",
]
