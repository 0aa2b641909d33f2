"""What the games' record files share: the error, reading one JSON record, writing one safely.

A *game record* is a JSON object that rebuilds one game exactly: each game's ``records``
module (:mod:`gnome_env.gnoming.records`, :mod:`gnome_env.nerts.records`) defines its fields,
its version and its ``replay``. This module knows no game; it only

* reads a file into the JSON object (:func:`read_record`: an unreadable file, a binary file
  or bad JSON is a :class:`RecordError` naming the file and what is wrong),
* names the game a record belongs to (:func:`record_game`: its ``"game"`` key; records
  without one were written before there were other games and are Gnoming A Round's),
* writes a file atomically, refusing to replace an existing one unless asked
  (:func:`write_text`, :func:`write_json`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: The game of a record without a ``"game"`` key (Gnoming A Round's records have none).
UNNAMED_RECORD_GAME = "gnoming"


class RecordError(ValueError):
    """A record that cannot be read or does not replay."""


def check_format(record: Any, record_format: str, what: str) -> None:
    """``RecordError`` unless ``record`` is a JSON object whose ``format`` is
    ``record_format`` (``what`` names the kind of record in the message)."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {type(record).__name__}")
    if record.get("format") != record_format:
        raise RecordError(
            f"not a {what}: format is {record.get('format')!r}, expected {record_format!r}"
        )


def check_fields(record: dict, keys: Sequence[str], optional: Sequence[str]) -> None:
    """``RecordError`` unless ``record`` has every field of ``keys`` and no field outside
    ``keys`` and ``optional``, and its optional ``meta`` is a JSON object."""
    missing = [k for k in keys if k not in record]
    unknown = [k for k in record if k not in keys and k not in optional]
    if missing or unknown:
        raise RecordError(
            f"record fields wrong: missing {missing}, unknown {unknown}; expected "
            f"{list(keys)} and optionally {list(optional)}"
        )
    if not isinstance(record.get("meta", {}), dict):
        raise RecordError(
            f"record 'meta' must be a JSON object, got {type(record['meta']).__name__}"
        )


def read_record(path: str | os.PathLike) -> Any:
    """The JSON value stored at ``path`` (not yet replayed: the game's ``replay`` checks it);
    an unreadable file or bad JSON is a :class:`RecordError`."""
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise RecordError(f"cannot read record {str(path)!r}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(
            f"record {str(path)!r} is not a game record: a binary file, not JSON text"
        ) from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordError(f"record {str(path)!r} is not valid JSON: {err}") from None
    return record


def record_game(record: Any) -> str:
    """The name of the game ``record`` belongs to: its ``"game"`` key, or
    :data:`UNNAMED_RECORD_GAME` for a record without one. Not a JSON object, or a ``"game"``
    that is not a string: :class:`RecordError`."""
    if not isinstance(record, dict):
        raise RecordError(f"a record is a JSON object, got {type(record).__name__}")
    game = record.get("game", UNNAMED_RECORD_GAME)
    if not isinstance(game, str):
        raise RecordError(f"record 'game' must be a game name (a string), got {game!r}")
    return game


def write_text(path: str | os.PathLike, text: str, overwrite: bool = False) -> Path:
    """Write ``text`` to ``path`` atomically (a temp file, then a rename).

    An existing ``path`` is a ``FileExistsError`` (nothing written) unless ``overwrite``.
    """
    path = Path(path)
    if path.exists() and not overwrite:
        raise FileExistsError(
            f"{str(path)!r} already exists: choose another path, or ask for it to be replaced"
        )
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_json(path: str | os.PathLike, data: Any, overwrite: bool = False) -> Path:
    """Write ``data`` as JSON (indented) to ``path`` with :func:`write_text`."""
    return write_text(path, json.dumps(data, indent=1), overwrite)
