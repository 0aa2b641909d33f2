"""Game records: export a game (finished or not) as JSON and replay it exactly.

A record holds the format name and version, the rules config, the seed, any stacked
decks (test hook), the list of action ids, and fingerprints (:meth:`Game.digest`) taken at
the end of every round and at the last step, so an edited record is caught at the round
where it stops agreeing. An optional ``meta`` object says where the game came from (who sat
where, the arena's seed and deal, ...); it is carried along and never affects the replay.

Versions: 2 (``gnoming_a_round_v1``: deals and reshuffles from :mod:`gnome_env.core.rng`) is the
one written and read. :class:`RecordError` and :func:`read_record` are the shared ones of
:mod:`gnome_env.core.records` (every game's records use them). Version 1 records came
from v0, whose deals came from ``numpy.random``; their seeds deal other cards now, so they
are refused with a message that says so.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from gnome_env.core.records import RecordError, check_fields, check_format, read_record
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game

__all__ = ["RecordError", "load_record", "read_record", "replay", "save_record", "to_record"]

RECORD_FORMAT = "gnome_env.game_record"
RECORD_VERSION = 2
_KEYS = ("format", "version", "rules", "seed", "stacked_decks", "actions", "checkpoints", "final")
_OPTIONAL_KEYS = ("meta",)


def to_record(game: Game, meta: dict | None = None) -> dict:
    """The record of ``game`` so far, as a JSON-serializable dict; ``meta`` (a JSON-ready
    dict, e.g. ``{"players": [...], "seed": ...}``) is stored under ``"meta"`` if given."""
    if meta is not None and not isinstance(meta, dict):
        raise TypeError(f"meta must be a dict or None, got {type(meta).__name__}")
    replay = Game(game.config, game.seed, stacked_decks=game.stacked_decks)
    checkpoints = []
    rounds_done = 0
    for step, action in enumerate(game.actions):
        replay.step(action)
        if len(replay.round_results) > rounds_done:
            rounds_done = len(replay.round_results)
            checkpoints.append({"step": step, "round": rounds_done - 1, "digest": replay.digest()})
    record = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "rules": game.config.to_dict(),
        "seed": game.seed,
        "stacked_decks": {str(r): list(deck) for r, deck in sorted(game.stacked_decks.items())},
        "actions": list(game.actions),
        "checkpoints": checkpoints,
        "final": {
            "digest": game.digest(),
            "totals": list(game.totals),
            "round_scores": [list(r.round_scores) for r in game.round_results],
            "over": game.game_over,
        },
    }
    if meta is not None:
        record["meta"] = meta
    return record


def replay(record: dict) -> Game:
    """Rebuild the game a record describes; raise :class:`RecordError` naming the bad step."""
    check_format(record, RECORD_FORMAT, "gnome_env game record")
    if record.get("version") == 1:
        raise RecordError(
            "record version 1 was written by gnoming_a_round_v0, whose deals came from "
            "numpy.random; this gnome_env (gnoming_a_round_v1, its own generator) deals other "
            f"cards from the same seed and reads version {RECORD_VERSION} only"
        )
    if record.get("version") != RECORD_VERSION:
        raise RecordError(
            f"record version {record.get('version')!r} is not supported: "
            f"this gnome_env reads version {RECORD_VERSION}"
        )
    check_fields(record, _KEYS, _OPTIONAL_KEYS)
    try:
        config = RulesConfig.from_dict(record["rules"])
        stacked = {int(r): deck for r, deck in record["stacked_decks"].items()}
        game = Game(config, record["seed"], stacked_decks=stacked)
    except (ValueError, TypeError, AttributeError) as err:
        raise RecordError(f"record header is invalid: {err}") from None
    actions = record["actions"]
    if not isinstance(actions, list):
        raise RecordError("record 'actions' must be a list of action ids")
    checkpoints = {c.get("step"): c for c in record["checkpoints"] if isinstance(c, dict)}
    for step, action in enumerate(actions):
        try:
            game.step(action)
        except ValueError as err:
            raise RecordError(f"record does not replay at step {step}: {err}") from None
        check = checkpoints.get(step)
        if check is not None and check.get("digest") != game.digest():
            raise RecordError(
                f"record does not replay at step {step}: state at the end of round "
                f"{check.get('round')} differs from the recorded one (edited record?)"
            )
    final = record["final"]
    if not isinstance(final, dict) or final.get("digest") != game.digest():
        raise RecordError(
            f"record does not replay at step {len(actions) - 1}: final state differs from the "
            "recorded one (edited record?)"
        )
    return game


def save_record(game: Game, path: str | os.PathLike, meta: dict | None = None) -> None:
    """Write the record of ``game`` (with ``meta``, if given) to ``path`` as JSON
    (atomically: temp file + rename)."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(to_record(game, meta), indent=1))
    os.replace(tmp, path)


def load_record(path: str | os.PathLike) -> Game:
    """Read a JSON record from ``path`` and replay it."""
    return replay(read_record(path))
