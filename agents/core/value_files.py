"""The parameter files of the arena's luck-correction values (one JSON file per game).

Each game's value class (:mod:`agents.gnoming.luck`, :mod:`agents.nerts.luck`,
:mod:`agents.ginny_o.luck`) checks its own arrays; reading the file, its JSON and its
``format`` and ``version`` is the same for all and lives here, as does writing one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agents.core.checkpoint_io import atomic_write


def read_value_file(path: str | Path, fmt: str) -> dict[str, Any]:
    """The JSON object of a value file whose ``format`` is ``fmt`` and ``version`` 1; a
    ``ValueError`` naming the file and what is wrong otherwise (unreadable, not JSON, another
    format, another version)."""
    try:
        text = Path(path).read_text()
    except OSError as err:
        raise ValueError(f"cannot read the value parameters {path}: {err.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not valid JSON: {err}") from None
    check_value_header(data, fmt, str(path))
    return data


def check_value_header(data: Any, fmt: str, source: str) -> None:
    """``ValueError`` unless ``data`` is a mapping with ``format`` ``fmt`` and version 1."""
    if not isinstance(data, dict) or data.get("format") != fmt:
        raise ValueError(f"{source}: not a {fmt} file")
    if data.get("version", 1) != 1:
        raise ValueError(f"{source}: version {data.get('version')!r} is not supported (1 is)")


def write_value_file(path: str | Path, data: dict[str, Any]) -> Path:
    """Write ``data`` as indented JSON, atomically (a reader never sees half a file)."""
    text = json.dumps(data, indent=1) + "\n"
    return atomic_write(path, lambda f: f.write(text.encode()))
