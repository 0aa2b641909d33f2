"""Ginny-O's ``gnome replay`` hook (``GameSpec.commands["replay"]``): a Ginny-O game record
as an HTML replay, a GIF or an MP4 (:mod:`gnome_env.ginny_o.viewer`).

:mod:`training.app.replay_cmd` has already checked the output options and read the record;
this hook replays it (:func:`gnome_env.ginny_o.records.replay`: a record that does not replay
is one line naming the turn, the seat and the action) and writes what was asked for.
``--seat S`` writes only seat S's view (its own rack and moves; no other rack, G17), for the
page and for the GIF / MP4 frames alike.
"""

from __future__ import annotations

import argparse
from typing import Any


def replay(args: argparse.Namespace, record: dict[str, Any]) -> int:
    """``gnome replay`` of a Ginny-O record: replay it, then write the page, GIF and/or MP4."""
    from gnome_env.ginny_o import viewer as V
    from gnome_env.ginny_o.records import RecordError
    from gnome_env.ginny_o.records import replay as replay_record

    parser: argparse.ArgumentParser = args.parser
    if args.compare:
        parser.error("argument --compare: only for Gnoming A Round records")
    if args.mp4 and V.ffmpeg_path() is None:
        parser.error("argument --mp4: needs the ffmpeg program on PATH (apt-get install ffmpeg)")
    try:
        log = replay_record(record)
    except RecordError as err:
        parser.exit(2, f"{parser.prog}: error: RECORD: {err}\n")
    n = log.num_players
    if args.seat is not None and not 0 <= args.seat < n:
        parser.error(
            f"argument --seat: {args.seat} is not a seat of this {n}-player game: use 0..{n - 1}"
        )
    meta = record.get("meta") or {}
    data = V.viewer_data(log, meta, seat=args.seat, players=record["players"])
    overwrite = bool(getattr(args, "overwrite", False))
    if args.html:
        V.write_html(data, args.html, overwrite=overwrite)
        view = "omniscient and seat views" if args.seat is None else f"seat {args.seat}'s view only"
        print(f"HTML viewer written to {args.html} ({len(data['entries'])} entries, {view})")
    try:
        if args.gif:
            count = V.write_gif(log, args.gif, fps=args.fps, every=args.every, seat=args.seat)
            print(f"GIF written to {args.gif} ({count} frames)")
        if args.mp4:
            count = V.write_mp4(log, args.mp4, fps=args.fps, every=args.every, seat=args.seat)
            print(f"MP4 written to {args.mp4} ({count} frames)")
    except ValueError as err:
        parser.error(str(err))
    return 0
