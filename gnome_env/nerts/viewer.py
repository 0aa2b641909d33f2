"""Watch a recorded Nerts game: the viewer's data, a self-contained HTML replay, GIF/MP4.

``gnome replay RECORD.json --html OUT.html`` (:mod:`agents.nerts.replay`) uses this module.
A Nerts record (:mod:`gnome_env.nerts.records`) is replayed step by step and turned into a
list of *entries* that the page steps through:

* a ``"step"`` entry for every step of the record: the table *before* the step (every
  seat's layout, the foundations with the owner of each card, the counters), the step's
  joint action (each seat's action id, name and what it did in words), its result (N20-N29:
  the priority order, which plays went through and which were blocked, the races for a
  foundation and how they were settled, progress, the stall counter, a remedy, the end of
  the hand);
* a ``"hand_end"`` entry after a hand's last step: the final table, why the hand ended
  (N29), and the hand score of every seat as N30 counts it (cards on foundations, -2 per
  card left in the Nerts pile) with the running totals;
* a final ``"game_over"`` entry (totals, winners, the N31 tie-break) if the game finished,
  or a ``"position"`` entry with the last table if the record stops in the middle of a hand.

**What a seat may know.** An entry's ``public`` part and the step's words and result are
built from :class:`~gnome_env.nerts.information.NertsView` (public information, N34) and the
step's public result alone; nothing in them depends on a face-down Nerts card, a stock's
order or a waste card under the top (N35). ``tests/nerts/test_nerts_viewer.py`` permutes
those and checks that the public part does not change. Unless the page is written for one
seat (``seat=S``), each entry also has a ``hidden`` part for the omniscient view: every
seat's face-down Nerts cards, its stock in order (top first) and its whole waste. In Nerts
nobody sees those, not even their owner, so a seat's view is the public part (plus that
seat's own legal actions); a page written with ``seat=S`` holds no hidden card at all.

:func:`write_html` embeds the entries as JSON in one HTML file with its own CSS and script
(the shared page of :mod:`gnome_env.core.viewer_page`; no network). :func:`frames` yields the
``rgb_array`` picture (:func:`gnome_env.nerts.render_image.render_rgb`) before the steps and
at every hand's end, for :func:`write_gif` and :func:`write_mp4`.
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
from gnome_env.nerts.actions import Kind, action_table
from gnome_env.nerts.describe import END_WORDS, card_words, stall_words, step_words
from gnome_env.nerts.engine import NertsGame, StepResult
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.records import GameLog

VIEWER_FORMAT = "gnome_env.nerts_replay_view"
VIEWER_VERSION = 1
HAND_END_HOLD_MS = 1500  #: how long a GIF shows the table at a hand's end


def short_label(label: str) -> str:
    """A player label short enough for a seat panel: an agent spec with a file path keeps
    the name of the file's folder (``ppo:agents/policies/nerts_ppo/policy.pt`` ->
    ``ppo:nerts_ppo``); anything else is cut at 24 characters."""
    kind, sep, rest = label.partition(":")
    if sep and "/" in rest:
        parts = [p for p in rest.replace("\\", "/").split("/") if p]
        name = parts[-2] if len(parts) >= 2 and "." in parts[-1] else parts[-1]
        return f"{kind}:{name}"[:24]
    return label[:24]


def _cards(cards: Sequence[int]) -> list[str]:
    return [card_words(c) for c in cards]


# ---------------------------------------------------------------------- tables
def public_table(view: NertsView) -> dict[str, Any]:
    """The table as every seat sees it (N34): a function of the view alone. Cards are
    written as :func:`~gnome_env.nerts.describe.card_words` (``5♥``)."""
    cfg = view.config
    seats = []
    for s in range(view.num_players):
        seats.append(
            {
                "nerts_size": view.nerts_size[s],
                "nerts_top": None if view.nerts_top[s] is None else card_words(view.nerts_top[s]),
                "work": [_cards(pile) for pile in view.work[s]],
                "stock_size": view.stock_size[s],
                "waste_size": view.waste_size[s],
                "waste_top": None if view.waste_top[s] is None else card_words(view.waste_top[s]),
                "seen": view.seen[s],
                "exhausted": view.exhausted[s],
                "on_foundations": view.found_count[s],
                "hand_score": view.hand_scores[s],
                "total": view.totals[s],
            }
        )
    slots = [
        {
            "slot": f,
            "state": view.slots[f].state,
            "cards": [
                [card_words(c), o]
                for c, o in zip(view.slots[f].cards, view.slots[f].owners, strict=True)
            ],
        }
        for f in range(view.slots_used)
    ]
    return {
        "hand": view.hand,
        "step": view.step,
        "max_steps": cfg.max_steps_per_hand,
        "stall": view.stall,
        "stall_steps": cfg.stall_steps,
        "remedy_done": view.remedy_done,
        "stall_words": stall_words(view),
        "seats": seats,
        "slots": slots,
        "totals": list(view.totals),
    }


def hidden_table(game: NertsGame) -> dict[str, Any]:
    """What no seat sees (N35), for the omniscient view: each seat's face-down Nerts cards
    (bottom -> top), its stock in order (top first) and its whole waste (bottom -> top)."""
    return {
        "seats": [
            {
                "nerts_down": _cards([c for c, up in zip(nerts, face_up, strict=True) if not up]),
                "stock": _cards(game.stock_top_first(s)),
                "waste": _cards(game.waste[s]),
            }
            for s, (nerts, face_up) in enumerate(zip(game.nerts, game.nerts_face_up, strict=True))
        ]
    }


# ---------------------------------------------------------------------- one step
def _collisions(
    view_after: NertsView, result: StepResult, cards: Sequence[int | None]
) -> list[dict[str, Any]]:
    """N20/N21: the foundation slots two or more seats played onto in the step, with the
    seats in priority order and who got through (``both_keep``: all of them)."""
    table = action_table(view_after.config)
    by_slot: dict[int, list[int]] = {}
    for s in result.priority:
        a = result.actions[s]
        if a >= 5 and table.decode(a).kind == Kind.TO_SLOT:
            by_slot.setdefault(table.decode(a).slot, []).append(s)
    out = []
    for slot, seats in sorted(by_slot.items()):
        if len(seats) < 2:
            continue
        out.append(
            {
                "slot": slot,
                "card": card_words(cards[seats[0]]),
                "seats": seats,
                "placed": [s for s in seats if not result.blocked[s]],
                "blocked": [s for s in seats if result.blocked[s]],
                "tie_rule": view_after.config.foundation_tie,
            }
        )
    return out


def _events(view_after: NertsView, result: StepResult) -> list[str]:
    """The step's table events in words: progress or the stall count (N23, N25), a remedy
    (N26), calls (N22) and the end of the hand (N29)."""
    events = []
    if result.progress:
        events.append(
            "progress: a card left a Nerts pile or a waste, or reached a foundation (N23)"
        )
    else:
        events.append(f"no progress: {stall_words(view_after)}")
    if result.remedy:
        events.append(
            "the table was stuck: every stock was re-formed from its waste and its top card "
            "moved to the bottom (remedy, N26)"
        )
    callers = [s for s in range(len(result.called)) if result.called[s]]
    if callers:
        events.append("Nerts called by " + ", ".join(f"player {s}" for s in callers) + " (N22)")
    if result.end_reason is not None:
        events.append(f"the hand ends: {END_WORDS[result.end_reason]}")
    return events


def step_public(view_before: NertsView, result: StepResult, view_after: NertsView) -> dict:
    """The public part of a step's entry: the table before it and the step's joint action,
    words and result. Depends on public information only (N34)."""
    table = action_table(view_before.config)
    words = step_words(view_after) or []
    cards = [w.card for w in words]
    return {
        "public": public_table(view_before),
        "actions": list(result.actions),
        "names": [table.name(a) for a in result.actions],
        "words": [w.text for w in words],
        "priority": list(result.priority),
        "blocked": list(result.blocked),
        "called": list(result.called),
        "progress": result.progress,
        "progress_by": list(result.progress_by),
        "remedy": result.remedy,
        "stall_after": view_after.stall,
        "end_reason": result.end_reason,
        "collisions": _collisions(view_after, result, cards),
        "events": _events(view_after, result),
    }


def step_entry(
    game: NertsGame, actions: Sequence[int], seat: int | None = None, play: bool = False
) -> dict[str, Any]:
    """The ``"step"`` entry of the step ``actions`` from ``game`` (the table before it).

    ``seat``: None for the omniscient view (a ``hidden`` part too) or the seat the page is
    written for. ``play``: step ``game`` itself (else a copy is stepped)."""
    before = NertsView.from_game(game, 0)
    legal = [list(game.legal_actions(s)) for s in range(game.num_players)]
    hidden = hidden_table(game) if seat is None else None
    target = game if play else game.copy()
    hand, k = target.hand, target.steps
    result = target.step(actions)
    entry: dict[str, Any] = {"kind": "step", "hand": hand, "step": k}
    entry.update(step_public(before, result, NertsView.from_game(target, 0)))
    entry["legal"] = legal  # public too: a function of the public state (N34)
    if hidden is not None:
        entry["hidden"] = hidden
    return entry


# ---------------------------------------------------------------------- hand and game ends
def _hand_end(game: NertsGame, seat: int | None) -> dict[str, Any]:
    """The table at the end of a hand, why it ended (N29) and N30's hand scores."""
    view = NertsView.from_game(game, 0)
    result = game.hand_results[-1]
    entry: dict[str, Any] = {
        "kind": "hand_end",
        "hand": game.hand,
        "step": game.steps - 1,
        "public": public_table(view),
        "reason": result.end_reason,
        "reason_words": END_WORDS[result.end_reason],
        "callers": list(result.callers),
        "on_foundations": list(view.found_count),
        "nerts_left": list(view.nerts_size),
        "scores": list(result.scores),
        "totals": list(game.totals),
        "game_over": game.game_over,
    }
    if seat is None:
        entry["hidden"] = hidden_table(game)
    return entry


def _game_over(game: NertsGame) -> dict[str, Any]:
    """N31: totals, winners and how a tie on the total was broken."""
    last = list(game.hand_results[-1].scores)
    best = max(game.totals)
    tied = [s for s in range(game.num_players) if game.totals[s] == best]
    if len(tied) == 1:
        why = f"the highest total, {best}"
    elif len(game.winners()) == 1:
        why = f"a tie on {best} points, broken by the last hand's score (N31)"
    else:
        why = f"a tie on {best} points and on the last hand's score: a shared win (N31)"
    return {
        "kind": "game_over",
        "hand": game.hand,
        "step": game.steps - 1,
        "totals": list(game.totals),
        "last_hand_scores": last,
        "winners": list(game.winners()),
        "why": why,
    }


def build_entries(log: GameLog, *, seat: int | None = None) -> list[dict[str, Any]]:
    """The viewer's entries for the whole of ``log`` (replayed from its seed and actions);
    ``seat``: None for the omniscient view, or the one seat the page is written for (no
    ``hidden`` parts)."""
    game = log.fresh_game()
    entries: list[dict[str, Any]] = []
    index = 0
    for h, steps in enumerate(log.hands):
        if h:
            game.next_hand()
        for actions in steps:
            entry = step_entry(game, actions, seat=seat, play=True)
            entry["index"] = index
            index += 1
            entries.append(entry)
            if game.hand_over:
                entries.append({**_hand_end(game, seat), "index": index - 1})
    if game.game_over:
        entries.append({**_game_over(game), "index": index - 1})
    elif not game.hand_over:
        entry = {
            "kind": "position",
            "hand": game.hand,
            "step": game.steps,
            "index": index,
            "public": public_table(NertsView.from_game(game, 0)),
        }
        if seat is None:
            entry["hidden"] = hidden_table(game)
        entries.append(entry)
    return entries


def viewer_data(
    log: GameLog,
    meta: Mapping[str, Any] | None = None,
    *,
    seat: int | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """Everything the page shows, as one JSON-ready dict (see :func:`build_entries`)."""
    game = log.game
    n = game.num_players
    if seat is not None and (
        isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n
    ):
        raise ValueError(f"seat={seat!r} is not allowed: use None (omniscient) or 0..{n - 1}")
    meta = dict(meta or {})
    players = meta.get("players")
    if not (isinstance(players, list) and len(players) == n):
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
        "game": "nerts",
        "title": title or f"Nerts, {n} players",
        "num_players": n,
        "rules": cfg.to_dict(),
        "work_piles": cfg.work_piles,
        "seed": str(game.seed),  # a string: the page's numbers are doubles
        "where": where,
        "players": [str(p) for p in players],
        "short_players": [short_label(str(p)) for p in players],
        "meta": meta,
        "seat_only": seat,
        "action_names": list(action_table(cfg).names),
        "final_totals": list(game.totals),
        "entries": build_entries(log, seat=seat),
    }


# ---------------------------------------------------------------------- HTML
def render_html(data: Mapping[str, Any]) -> str:
    """One self-contained HTML page (inline CSS and script, no network) for ``data``."""
    from gnome_env.nerts._viewer_page import PAGE

    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return PAGE.replace("__TITLE__", html.escape(str(data["title"]))).replace("__DATA__", payload)


def write_html(data: Mapping[str, Any], path: str | os.PathLike, overwrite: bool = False) -> Path:
    """Write :func:`render_html` to ``path`` (atomically); an existing file is a
    ``FileExistsError`` unless ``overwrite``."""
    return write_text(path, render_html(data), overwrite)


# ---------------------------------------------------------------------- pictures
def frames(
    log: GameLog, every: int = 1, names: Sequence[str] | None = None
) -> Iterator[tuple[np.ndarray, bool]]:
    """``(picture, hand_end)`` pairs: the ``rgb_array`` picture of the table before every
    ``every``-th step of the record (counted over all hands), at the end of every hand
    (``hand_end`` True) and at the record's end (a spectator's view: face-down cards as
    backs). ``names``: the players' labels written in the seat panels."""
    from gnome_env.nerts.render_image import render_rgb

    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise ValueError(f"every={every!r} is not allowed: use an integer >= 1")
    game = log.fresh_game()

    def picture() -> np.ndarray:
        end = game.end_reason if game.hand_over else None
        return render_rgb(NertsView.from_game(game, 0), end, names)

    index = 0
    for h, steps in enumerate(log.hands):
        if h:
            game.next_hand()
        for actions in steps:
            if index % every == 0:
                yield picture(), False
            game.step(actions)
            index += 1
        if game.hand_over:
            yield picture(), True
    if not game.hand_over:
        yield picture(), False


def _pictures(log: GameLog, every: int, names: Sequence[str] | None) -> tuple[list, dict]:
    pictures, hold = [], {}
    for i, (picture, hand_end) in enumerate(frames(log, every, names)):
        pictures.append(picture)
        if hand_end:
            hold[i] = HAND_END_HOLD_MS
    return pictures, hold


def write_gif(
    log: GameLog,
    path: str | os.PathLike,
    fps: float = 4.0,
    every: int = 1,
    names: Sequence[str] | None = None,
) -> int:
    """Write the game's frames as an animated GIF (needs Pillow); every hand's end is held
    1.5 s and the last frame 2 s. Returns the frame count."""
    pictures, hold = _pictures(log, every, names)
    return video.write_gif(pictures, path, fps, hold_ms=hold)


def ffmpeg_path() -> str | None:
    """The ``ffmpeg`` executable on PATH, or None."""
    return video.ffmpeg_path()


def write_mp4(
    log: GameLog,
    path: str | os.PathLike,
    fps: float = 4.0,
    every: int = 1,
    names: Sequence[str] | None = None,
) -> int:
    """Write the game's frames as an H.264 MP4 (needs the ``ffmpeg`` program); returns the
    frame count."""
    exe = ffmpeg_path()
    if exe is None:
        raise ValueError(
            "--mp4 needs the ffmpeg program on PATH (apt-get install ffmpeg); "
            "--gif needs only Pillow"
        )
    pictures, _ = _pictures(log, every, names)
    return video.write_mp4(pictures, path, fps, exe=exe)
