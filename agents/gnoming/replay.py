"""Gnoming A Round's ``gnome replay`` hook (``GameSpec.commands["replay"]``): a record as an
HTML replay, a GIF or an MP4.

The page and the pictures come from :mod:`gnome_env.gnoming.viewer`; this module adds what
needs the agents: the action probabilities of learned agents named in the record's ``meta``
(``--probs``) and another agent's choice at every decision (``--compare SPEC``).
:mod:`training.app.replay_cmd` has already checked the output options and read the record.
"""

from __future__ import annotations

import argparse
from typing import Any

from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.records import RecordError
from gnome_env.gnoming.records import replay as replay_record


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


def replay(args: argparse.Namespace, record: dict[str, Any]) -> int:
    """``gnome replay`` of a Gnoming A Round record: replay it, then write the page, the GIF
    and/or the MP4."""
    from gnome_env.gnoming import viewer as R

    parser: argparse.ArgumentParser = args.parser
    if args.mp4 and R.ffmpeg_path() is None:
        parser.error("argument --mp4: needs the ffmpeg program on PATH (apt-get install ffmpeg)")
    try:
        game = replay_record(record)
    except RecordError as err:
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
