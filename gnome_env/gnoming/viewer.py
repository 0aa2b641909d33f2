"""Watch a recorded game: the viewer's data, a self-contained HTML replay, GIF/MP4 frames.

``gnome replay RECORD.json --html OUT.html`` (:mod:`agents.gnoming.replay`) uses this
module. A game record (:mod:`gnome_env.gnoming.records`) is replayed action by action and turned
into
a list of *entries* that the page steps through:

* a ``"decision"`` entry for every action of the record: the table *before* the decision,
  the deciding seat, its legal options (id, name, words) and the one chosen;
* a ``"round_end"`` entry after the action that ends a round: the revealed layouts, the
  lines that scored (R18, with R20's crossings), each layout score (R18-R20), the first-out
  player and bonus (R21), the round scores (R22) and the running totals;
* a final ``"game_over"`` entry (winners, totals) if the game finished.

**What a seat may know.** Every entry has a ``public`` part built only from
:meth:`gnome_env.gnoming.information.SeatView.from_game` (face-up cards, pile tops and sizes, the
card in hand, counts) and :func:`gnome_env.gnoming.describe.describe_action` (which reads public
information only), plus -- unless the file is written for one seat (``seat=S``) -- a
``hidden`` part for the omniscient view: the face-down cards and the draw pile's top card.
In Gnoming A Round nothing is private (:mod:`gnome_env.gnoming.information`), so every seat's view
is
this public part; a page written with ``seat=S`` contains no hidden card at all, and the
public part of an entry does not change when the hidden cards are dealt differently
(``tests/test_replay.py`` permutes them with :func:`gnome_env.gnoming.information.sample_game`).
Round-end layouts are public: R16 turns every card up.

:func:`write_html` embeds the entries as JSON in one HTML file with its own CSS and script
(no network, no external scripts or fonts). :func:`frames` yields the ``rgb_array`` picture
(:func:`gnome_env.gnoming.render_image.render_rgb`) of every entry's table for GIF/MP4 output
(:func:`write_gif`, :func:`write_mp4`).
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
from gnome_env.gnoming.actions import action_name
from gnome_env.gnoming.cards import HAZARD, LINES, MULLIGAN
from gnome_env.gnoming.describe import describe_action
from gnome_env.gnoming.engine import Game, Phase, Source
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.records import to_record
from gnome_env.gnoming.scoring import line_value

VIEWER_FORMAT = "gnome_env.replay_view"
VIEWER_VERSION = 1
PHASE_WORDS = {
    Phase.OPENING_FLIP: "opening flip (R5)",
    Phase.DRAW: "draw (R7)",
    Phase.PLACE: "place or discard (R9-R14)",
    Phase.DISPLACED: "displaced card (R10-R11)",
    Phase.HAZARD_FLIP: "hazard flip (R13)",
    Phase.GAME_OVER: "game over",
}
SOURCE_WORDS = {
    Source.NONE: "",
    Source.DRAW_PILE: "from the draw pile",
    Source.PILE_A: "from pile A",
    Source.PILE_B: "from pile B",
    Source.DISPLACED: "displaced from the layout",
}


def card_label(code: int | None) -> str | None:
    """A card as the viewer writes it: ``7``, ``-2``, ``M`` (mulligan), ``H`` (hazard)."""
    if code is None:
        return None
    if code == MULLIGAN:
        return "M"
    if code == HAZARD:
        return "H"
    return str(int(code))


def short_label(label: str) -> str:
    """A player label short enough for a seat panel: an agent spec with a file path keeps
    the name of the file's folder (``ppo:agents/policies/distill2_3to7/policy.pt`` ->
    ``ppo:distill2_3to7``); anything else is kept (cut at 24 characters)."""
    kind, sep, rest = label.partition(":")
    if sep and "/" in rest:
        parts = [p for p in rest.replace("\\", "/").split("/") if p]
        name = parts[-2] if len(parts) >= 2 and "." in parts[-1] else parts[-1]
        return f"{kind}:{name}"[:24]
    return label[:24]


def _labels(codes: Sequence[int | None]) -> list[str | None]:
    return [card_label(c) for c in codes]


# ---------------------------------------------------------------------- entries
def public_table(game: Game) -> dict[str, Any]:
    """The table as every seat sees it: a function of :class:`SeatView` alone (plus the
    public words of the legal actions). Face-down cards are ``None``."""
    seat = game.current_seat if game.current_seat >= 0 else 0
    view = SeatView.from_game(game, seat)
    return {
        "round": view.round + 1,
        "rounds": view.config.rounds,
        "phase": PHASE_WORDS[Phase(view.phase)],
        "current_seat": view.current_seat,
        "turn_player": view.turn_player,
        "turns_played": view.turns_played,
        "layouts": [_labels(layout) for layout in view.layouts],
        "pile_tops": _labels(view.pile_tops),
        "pile_sizes": list(view.pile_sizes),
        "draw_size": view.draw_pile_size,
        "hand": card_label(view.hand),
        "hand_source": SOURCE_WORDS[Source(view.hand_source)],
        "hazards_removed": view.hazards_removed,
        "first_out": view.first_out,
        "endgame_turns_left": view.endgame_turns_left,
        "totals": list(view.totals),
    }


def hidden_table(game: Game) -> dict[str, Any]:
    """What no seat sees: the face-down cards (``None`` where a card is face up) and the
    draw pile's top card."""
    layouts = [
        [None if up else card_label(c) for c, up in zip(lay, shown, strict=True)]
        for lay, shown in zip(game.layouts, game.face_up, strict=True)
    ]
    top = card_label(game.draw_pile[-1]) if game.draw_pile else None
    return {"layouts": layouts, "draw_top": top}


def scored_lines(layout: Sequence[int]) -> list[dict[str, Any]]:
    """R18: the matching rows and columns of a revealed layout, each with the positions and
    the value v it scores as -v (R20: a card may be in a row and a column)."""
    out = []
    for line in LINES:
        value = line_value(*(layout[q] for q in line))
        if value:
            out.append({"cells": list(line), "value": value})
    return out


def _round_end(game: Game, index: int) -> dict[str, Any]:
    result = game.round_results[index]
    totals = [
        sum(r.round_scores[s] for r in game.round_results[: index + 1])
        for s in range(len(result.round_scores))
    ]
    return {
        "kind": "round_end",
        "round": result.round + 1,
        "layouts": [_labels(layout) for layout in result.layouts],
        "lines": [scored_lines(layout) for layout in result.layouts],
        "layout_scores": list(result.layout_scores),
        "first_out": result.first_out,
        "bonus": [r - s for r, s in zip(result.round_scores, result.layout_scores, strict=True)],
        "round_scores": list(result.round_scores),
        "totals": totals,
        "ended_by": result.ended_by,
        "turns": result.turns,
    }


def build_entries(
    game: Game,
    *,
    seat: int | None = None,
    probabilities: Mapping[int, Mapping[int, float]] | None = None,
    compare: Mapping[int, int] | None = None,
) -> list[dict[str, Any]]:
    """The viewer's entries for the whole of ``game`` (replayed from its seed and actions).

    ``seat``: None for a file with the omniscient view, or the one seat the file is written
    for (no ``hidden`` parts). ``probabilities``: step -> {action id: probability} for
    decisions whose agent could be asked; ``compare``: step -> the action another agent
    would have chosen there."""
    replay = Game(game.config, game.seed, stacked_decks=game.stacked_decks)
    entries: list[dict[str, Any]] = []
    rounds_done = 0
    for step, action in enumerate(game.actions):
        legal = replay.legal_actions()
        entry: dict[str, Any] = {
            "kind": "decision",
            "step": step,
            "seat": replay.current_seat,
            "public": public_table(replay),
            "legal": [[a, action_name(a), describe_action(replay, a)] for a in legal],
            "chosen": int(action),
        }
        if seat is None:
            entry["hidden"] = hidden_table(replay)
        if probabilities and step in probabilities:
            entry["probs"] = {str(a): round(float(p), 4) for a, p in probabilities[step].items()}
        if compare and step in compare:
            entry["compare"] = int(compare[step])
        entries.append(entry)
        replay.step(action)
        while len(replay.round_results) > rounds_done:
            entries.append({**_round_end(replay, rounds_done), "step": step})
            rounds_done += 1
    if replay.game_over:
        entries.append(
            {
                "kind": "game_over",
                "step": len(game.actions) - 1,
                "totals": list(replay.totals),
                "winners": list(replay.winners()),
            }
        )
    return entries


def viewer_data(
    game: Game,
    meta: Mapping[str, Any] | None = None,
    *,
    seat: int | None = None,
    probabilities: Mapping[int, Mapping[int, float]] | None = None,
    compare: Mapping[int, int] | None = None,
    compare_label: str | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """Everything the page shows, as one JSON-ready dict (see :func:`build_entries`)."""
    n = game.num_players
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n
    ):
        raise ValueError(f"seat={seat!r} is not allowed: use None (omniscient) or 0..{n - 1}")
    meta = dict(meta or {})
    players = meta.get("players")
    if not (isinstance(players, list) and len(players) == n):
        players = [f"seat {s}" for s in range(n)]
    record = to_record(game)
    where = ", ".join(
        f"{key.replace('_', ' ')} {meta[key]}"
        for key in ("source", "arena_seed", "deal", "rotation", "human_seat")
        if key in meta
    )
    return {
        "format": VIEWER_FORMAT,
        "version": VIEWER_VERSION,
        "title": title or f"Gnoming A Round, {n} players",
        "num_players": n,
        "rounds": game.config.rounds,
        "seed": str(game.seed),  # a string: the page's numbers are doubles
        "where": where,
        "players": [str(p) for p in players],
        "short_players": [short_label(str(p)) for p in players],
        "meta": meta,
        "seat_only": seat,
        "compare_label": compare_label,
        "final_totals": record["final"]["totals"],
        "entries": build_entries(game, seat=seat, probabilities=probabilities, compare=compare),
    }


# ---------------------------------------------------------------------- HTML
def render_html(data: Mapping[str, Any]) -> str:
    """One self-contained HTML page (inline CSS and script, no network) for ``data``."""
    from gnome_env.gnoming._viewer_page import PAGE

    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return PAGE.replace("__TITLE__", html.escape(str(data["title"]))).replace("__DATA__", payload)


def write_html(data: Mapping[str, Any], path: str | os.PathLike) -> Path:
    """Write :func:`render_html` to ``path`` (atomically: temp file + rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(render_html(data), encoding="utf-8")
    os.replace(tmp, path)
    return path


# ---------------------------------------------------------------------- pictures
def frames(game: Game, every: int = 1) -> Iterator[np.ndarray]:
    """The ``rgb_array`` picture of the table before every ``every``-th decision of ``game``
    and at the end (a spectator's view: face-down cards as backs)."""
    from gnome_env.gnoming.render_image import render_rgb

    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ValueError(f"every={every!r} is not allowed: use an integer >= 1")
    replay = Game(game.config, game.seed, stacked_decks=game.stacked_decks)
    for step, action in enumerate(game.actions):
        if step % every == 0:
            yield render_rgb(replay)
        replay.step(action)
    yield render_rgb(replay)


def write_gif(game: Game, path: str | os.PathLike, fps: float = 4.0, every: int = 1) -> int:
    """Write the game's frames as an animated GIF (needs Pillow); returns the frame count.
    The last frame (the final table) is held for two seconds
    (:func:`gnome_env.core.video.write_gif`)."""
    return video.write_gif(frames(game, every), path, fps)


def ffmpeg_path() -> str | None:
    """The ``ffmpeg`` executable on PATH, or None."""
    return video.ffmpeg_path()


def write_mp4(game: Game, path: str | os.PathLike, fps: float = 4.0, every: int = 1) -> int:
    """Write the game's frames as an H.264 MP4 through the ``ffmpeg`` program (raw frames on
    its stdin, :func:`gnome_env.core.video.write_mp4`); returns the frame count. A clear
    ValueError if ffmpeg is not installed."""
    exe = ffmpeg_path()
    if exe is None:
        raise ValueError(
            "--mp4 needs the ffmpeg program on PATH (apt-get install ffmpeg); "
            "--gif needs only Pillow"
        )
    return video.write_mp4(frames(game, every), path, fps, exe=exe)
