"""``gnome replay RECORD.json``: a game record as an HTML replay, a GIF or an MP4.

This module knows no game. It reads the options, checks the output paths, reads the record
(:func:`gnome_env.core.records.read_record`) and hands it to the ``replay`` command hook of
the game the record names (:func:`gnome_env.core.records.record_game`; ``GameSpec.commands``
of :mod:`gnome_env.registry`): ``replay(args, record) -> exit status``. The hooks
(:mod:`agents.gnoming.replay`, :mod:`agents.nerts.replay`, :mod:`agents.ginny_o.replay`)
replay the record, write what was
asked for with the game's viewer, and report a record that does not replay as one line.

An output file that already exists is refused unless ``--overwrite`` is given.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gnome_env.core.records import RecordError, read_record, record_game
from gnome_env.registry import game_names, games, get_game

OUTPUTS = (("--html", "html"), ("--gif", "gif"), ("--mp4", "mp4"))


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``replay`` subcommand."""
    with_records = ", ".join(s.title for s in games() if "replay" in s.commands)
    rp = sub.add_parser(
        "replay",
        help="turn a game record into a self-contained HTML replay, a GIF or an MP4",
        description="Replay a game record (gnome eval --save-games, gnome play --save, gnome "
        "demo --record) and write a step-through HTML page (no network needed to view it), "
        f"and/or an animation of the table (docs/viewer.md). Games with records: "
        f"{with_records}; the record says which game it is.",
    )
    rp.add_argument("record", metavar="RECORD.json", help="a game record (JSON)")
    rp.add_argument("--html", default=None, metavar="OUT.html", help="write the HTML viewer")
    rp.add_argument(
        "--seat",
        type=int,
        default=None,
        help="write the page for one seat: only what that seat may know (no face-down card "
        "values, no draw-pile or stock order, no other rack); default: omniscient view plus "
        "every seat's view",
    )
    rp.add_argument(
        "--probs",
        choices=["auto", "off"],
        default="auto",
        help="Gnoming A Round: auto (default) shows the action probabilities of every learned "
        "agent named in the record's meta.players that can be loaded (ppo:PATH checkpoints); "
        "off: none",
    )
    rp.add_argument(
        "--compare",
        default=None,
        metavar="SPEC",
        help="Gnoming A Round: an agent spec (e.g. expert) whose choice is marked at every "
        "decision",
    )
    rp.add_argument("--gif", default=None, metavar="OUT.gif", help="write an animated GIF")
    rp.add_argument(
        "--mp4", default=None, metavar="OUT.mp4", help="write an MP4 (needs ffmpeg on PATH)"
    )
    rp.add_argument("--fps", type=float, default=4.0, help="GIF/MP4 frames per second (default 4)")
    rp.add_argument(
        "--every",
        type=int,
        default=1,
        help="GIF/MP4: one frame every K decisions (Nerts: steps, Ginny-O: turns) (default 1)",
    )
    rp.add_argument(
        "--overwrite",
        action="store_true",
        help="replace output files that already exist (default: refuse them)",
    )
    rp.set_defaults(func=run, parser=rp)
    return rp


def _check_outputs(args: argparse.Namespace) -> None:
    """Parser errors for the options that need no record: something to write, ``--fps``,
    ``--every`` and each output path (not a directory, its directory exists, not an
    existing file unless ``--overwrite``)."""
    parser: argparse.ArgumentParser = args.parser
    if not (args.html or args.gif or args.mp4):
        parser.error("nothing to write: give --html OUT.html, --gif OUT.gif and/or --mp4 OUT.mp4")
    if not args.fps > 0:
        parser.error(f"argument --fps: {args.fps} is not allowed: use a positive number")
    if args.every < 1:
        parser.error(f"argument --every: {args.every} is not allowed: use an integer >= 1")
    for flag, dest in OUTPUTS:
        out = getattr(args, dest)
        if out is None:
            continue
        path = Path(out)
        if path.is_dir():
            parser.error(f"argument {flag}: {out} is a directory: give a file name")
        if not path.parent.is_dir():
            parser.error(f"argument {flag}: directory {str(path.parent)!r} does not exist")
        if path.exists() and not args.overwrite:
            parser.error(
                f"argument {flag}: {out} already exists: give another file name, or "
                "--overwrite to replace it"
            )


def run(args: argparse.Namespace) -> int:
    """``gnome replay``: check every option, read the record, then the game's hook writes
    what was asked for."""
    parser: argparse.ArgumentParser = args.parser
    _check_outputs(args)
    try:
        record = read_record(args.record)
        name = record_game(record)
    except (RecordError, OSError, UnicodeDecodeError) as err:
        # one line, no usage: the options were fine, the file is not a record
        parser.exit(2, f"{parser.prog}: error: RECORD: {err}\n")
    if name not in game_names():
        parser.exit(
            2,
            f"{parser.prog}: error: RECORD: its game {name!r} is not one of "
            f"{', '.join(game_names())}\n",
        )
    spec = get_game(name)
    if "replay" not in spec.commands:
        parser.exit(2, f"{parser.prog}: error: RECORD: {spec.title} has no game records\n")
    return spec.load("commands", "replay")(args, record)
