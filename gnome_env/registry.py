"""The registered games: one line per game. A game is a package under ``gnome_env/`` whose
``spec`` module holds ``SPEC``, a :class:`~gnome_env.core.spec.GameSpec` (docs/architecture.md
says what a new game provides). The command line, the arena, ``gnome bench``, the conformance
tests and the PettingZoo/Gymnasium registrations all loop over :func:`games`."""

from __future__ import annotations

import importlib

from gnome_env.core.spec import GameSpec

GAME_PACKAGES: tuple[str, ...] = (
    "gnome_env.gnoming",
    "gnome_env.nerts",
    "gnome_env.ginny_o",
)


def games() -> tuple[GameSpec, ...]:
    """Every registered game's descriptor, in registry order (imports only the spec modules)."""
    return tuple(importlib.import_module(f"{package}.spec").SPEC for package in GAME_PACKAGES)


def game_names() -> tuple[str, ...]:
    return tuple(spec.name for spec in games())


def get_game(name: object) -> GameSpec:
    """The descriptor of the game called ``name``; anything else is a ``ValueError`` naming the
    registered games."""
    for spec in games():
        if spec.name == name:
            return spec
    raise ValueError(f"game={name!r} is not allowed: must be one of {', '.join(game_names())}")
