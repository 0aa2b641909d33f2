"""What every game's config shares: the argument checks and the plain-data config base.

The checks raise a ``ValueError`` whose message names the argument, the value given and what
is allowed; :class:`PlainConfig` gives a frozen config dataclass ``field_names``,
``from_dict`` (unknown keys are named, with the known fields), ``to_dict`` and ``replace``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import ClassVar, TypeVar

import numpy as np

from gnome_env.core.renamed import rename_keys

_C = TypeVar("_C", bound="PlainConfig")


# ---------------------------------------------------------------------- range checks
# The project's one set of argument checks (the engine, the vector engine, the arena and the
# training configs use them): a ValueError whose message names the argument, the value
# given and what is allowed.
def check_bool(name: str, value: object) -> bool:
    """``value`` if it is a bool, else a ValueError naming ``name``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} is not allowed: must be true or false")
    return bool(value)


def check_int(name: str, value: object, low: int, high: int | None = None, extra: str = "") -> int:
    """``value`` as an int if it is an integer (Python or numpy, not a bool) in
    ``low..high`` (no upper bound if ``high`` is None), else a ValueError naming ``name``;
    ``extra`` is appended to the message."""
    allowed = f"an integer from {low} to {high}" if high is not None else f"an integer >= {low}"
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, np.integer))
        or value < low
        or (high is not None and value > high)
    ):
        raise ValueError(f"{name}={value!r} is not allowed: must be {allowed}{extra}")
    return int(value)


def check_float(
    name: str, value: float, low: float, high: float | None, *, low_open: bool = False
) -> float:
    """``value`` if it is finite and ``low <= value <= high`` (``low < value`` if
    ``low_open``; no upper bound if ``high`` is None), else a ValueError naming ``name``."""
    too_low = value <= low if low_open else value < low
    if not math.isfinite(value) or too_low or (high is not None and value > high):
        left = "(" if low_open else "["
        right = f"{high}]" if high is not None else "inf)"
        raise ValueError(f"{name}={value!r} is not allowed: must be in {left}{low}, {right}")
    return value


class PlainConfig:
    """Plain-data methods shared by the games' frozen config dataclasses:
    ``field_names``, ``from_dict`` (unknown keys raise ``ValueError`` naming them and the
    known fields), ``to_dict`` and ``replace``. A subclass sets ``CONFIG_TITLE`` (the game's
    name in messages)."""

    CONFIG_TITLE: ClassVar[str] = "game"
    RENAMED: ClassVar[dict[str, str]] = {}
    """Old field name -> new name (:func:`gnome_env.core.renamed.renamed_fields`): still
    accepted, warning once."""

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        """Names of every configurable field, in declaration order."""
        return tuple(f.name for f in dataclasses.fields(cls))  # type: ignore[arg-type]

    @classmethod
    def from_dict(cls: type[_C], values: Mapping[str, object]) -> _C:
        """Build from a plain mapping (JSON/YAML); unknown keys raise ``ValueError``."""
        title = cls.CONFIG_TITLE
        if not isinstance(values, Mapping):
            raise ValueError(f"{title} config must be a mapping of field to value, got {values!r}")
        values = rename_keys(f"{title} config", values, cls.RENAMED)
        known = cls.field_names()
        unknown = [k for k in values if k not in known]
        if unknown:
            raise ValueError(
                f"unknown {title} config field(s) {', '.join(map(repr, unknown))}; "
                f"known fields: {', '.join(known)}"
            )
        return cls(**values)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON-friendly mapping; ``from_dict(to_dict())`` gives an equal config."""
        return {name: getattr(self, name) for name in self.field_names()}

    def replace(self: _C, **changes: object) -> _C:
        """A copy with some fields changed (validated; unknown fields raise ``ValueError``)."""
        merged = self.to_dict()
        merged.update(changes)
        return type(self).from_dict(merged)
