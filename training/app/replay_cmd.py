"""``gnome replay RECORD.json``: a game record as an HTML replay, a GIF or an MP4.

The page and the pictures come from :mod:`gnome_env.gnoming.viewer`; this module adds what needs
the agents: the action probabilities of learned agents named in the record's ``meta``
(``--probs``) and another agent's choice at every decision (``--compare SPEC``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from gnome_env.gnoming import RecordError, read_record, replay
from gnome_env.gnoming.engine import Game


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``replay`` subcommand."""
    rp = sub.add_parser(
        "replay",
        help="turn a game record into a self-contained HTML replay, a GIF or an MP4",
        description="Replay a game record (gnome eval --save-games, gnome play --save, gnome "
        "demo --record) and write a step-through HTML page (no network needed to view it), "
        "and/or an animation of the table (docs/viewer.md).",
    )
    rp.add_argument("record", metavar="RECORD.json", help="a game record (JSON)")
    rp.add_argument("--html", default=None, metavar="OUT.html", help="write the HTML viewer")
    rp.add_argument(
        "--seat",
        type=int,
        default=None,
        help="write the page for one seat: only what that seat may know (no face-down card "
        "values, no draw-pile order); default: omniscient view plus every seat's view",
    )
    rp.add_argument(
        "--probs",
        choices=["auto", "off"],
        default="auto",
        help="auto (default): show the action probabilities of every learned agent named in "
        "the record's meta.players that can be loaded (ppo:PATH checkpoints); off: none",
    )
    rp.add_argument(
        "--compare",
        default=None,
        metavar="SPEC",
        help="an agent spec (e.g. expert) whose choice is marked at every decision",
    )
    rp.add_argument("--gif", default=None, metavar="OUT.gif", help="write an animated GIF")
    rp.add_argument(
        "--mp4", default=None, metavar="OUT.mp4", help="write an MP4 (needs ffmpeg on PATH)"
    )
    rp.add_argument("--fps", type=float, default=4.0, help="GIF/MP4 frames per second (default 4)")
    rp.add_argument(
        "--every", type=int, default=1, help="GIF/MP4: one frame every K decisions (default 1)"
    )
    rp.set_defaults(func=run, parser=rp)
    return rp


def _agent_choices(game: Game, spec: str, seats: list[int] | None) -> dict[int, Any]:
    """step -> the agent (built from ``spec``) at every decision of ``seats`` (None: all):
    its action probabilities if it has ``distribution`` else its chosen action."""
    from agents.gnoming.registry import make_agent
    from gnome_env.gnoming.encoding import ObservationEncoder

    agent = make_agent(spec, 0, game.config)
    encoder = ObservationEncoder(game.config)
    dist = getattr(agent, "distribution", None)
    walk = Game(game.config, game.seed, stacked_decks=game.stacked_decks)
    out: dict[int, Any] = {}
    for step, action in enumerate(game.actions):
        seat = walk.current_seat
        if seats is None or seat in seats:
            obs, mask = encoder.encode(walk, seat), walk.legal_mask()
            if seats is not None:
                if not callable(dist):
                    raise ValueError(f"agent {spec!r} gives no action probabilities")
                p = dist(obs, mask)
                out[step] = {a: float(p[a]) for a in walk.legal_actions()}
            else:
                out[step] = int(agent.act(obs, mask))
        walk.step(action)
    return out


def learned_probabilities(
    game: Game, players: Any
) -> tuple[dict[int, dict[int, float]], list[str]]:
    """(step -> probabilities, notes) for the seats whose ``meta.players`` label is a
    loadable learned-policy spec (``ppo:PATH`` / ``ppo-sample:PATH``). Seats whose agent
    cannot be loaded get a note instead."""
    probs: dict[int, dict[int, float]] = {}
    notes: list[str] = []
    if not isinstance(players, list) or len(players) != game.num_players:
        return probs, notes
    by_spec: dict[str, list[int]] = {}
    for seat, label in enumerate(players):
        if isinstance(label, str) and label.split(":", 1)[0] in ("ppo", "ppo-sample"):
            by_spec.setdefault(label, []).append(seat)
    for spec, seats in by_spec.items():
        try:
            probs.update(_agent_choices(game, spec, seats))
        except (ValueError, OSError, ImportError) as err:
            notes.append(f"no probabilities for {spec} (seats {seats}): {err}")
    return probs, notes


def run(args: argparse.Namespace) -> int:
    """``gnome replay``: check every option first, then write what was asked for."""
    from gnome_env.gnoming import viewer as R

    parser: argparse.ArgumentParser = args.parser
    if not (args.html or args.gif or args.mp4):
        parser.error("nothing to write: give --html OUT.html, --gif OUT.gif and/or --mp4 OUT.mp4")
    if not args.fps > 0:
        parser.error(f"argument --fps: {args.fps} is not allowed: use a positive number")
    if args.every < 1:
        parser.error(f"argument --every: {args.every} is not allowed: use an integer >= 1")
    for flag, out in (("--html", args.html), ("--gif", args.gif), ("--mp4", args.mp4)):
        if out is None:
            continue
        path = Path(out)
        if path.is_dir():
            parser.error(f"argument {flag}: {out} is a directory: give a file name")
        if not path.parent.is_dir():
            parser.error(f"argument {flag}: directory {str(path.parent)!r} does not exist")
    if args.mp4 and R.ffmpeg_path() is None:
        parser.error("argument --mp4: needs the ffmpeg program on PATH (apt-get install ffmpeg)")
    try:
        record = read_record(args.record)
        game = replay(record)
    except (RecordError, OSError, UnicodeDecodeError) as err:
        # one line, no usage: the options were fine, the file is not a record
        parser.exit(2, f"{parser.prog}: error: RECORD: {err}\n")
    n = game.num_players
    if args.seat is not None and not 0 <= args.seat < n:
        parser.error(
            f"argument --seat: {args.seat} is not a seat of this {n}-player game: use 0..{n - 1}"
        )
    meta = record.get("meta") or {}
    compare = None
    if args.compare:
        try:
            compare = _agent_choices(game, args.compare, None)
        except ValueError as err:
            parser.error(f"argument --compare: {err}")
    probs: dict[int, dict[int, float]] = {}
    if args.probs == "auto":
        probs, notes = learned_probabilities(game, meta.get("players"))
        for note in notes:
            print(note)
    if args.html:
        data = R.viewer_data(
            game,
            meta,
            seat=args.seat,
            probabilities=probs,
            compare=compare,
            compare_label=args.compare,
        )
        R.write_html(data, args.html)
        view = "omniscient and seat views" if args.seat is None else f"seat {args.seat}'s view only"
        print(f"HTML viewer written to {args.html} ({len(data['entries'])} entries, {view})")
    try:
        if args.gif:
            count = R.write_gif(game, args.gif, fps=args.fps, every=args.every)
            print(f"GIF written to {args.gif} ({count} frames)")
        if args.mp4:
            count = R.write_mp4(game, args.mp4, fps=args.fps, every=args.every)
            print(f"MP4 written to {args.mp4} ({count} frames)")
    except ValueError as err:
        parser.error(str(err))
    return 0
