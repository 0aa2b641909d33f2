"""The conformance hooks a game provides (``GameSpec.testing``) so that one game-agnostic
suite (``tests/core/test_conformance.py``) runs PettingZoo's tests and the project's own
checks on every registered game: a game added to the registry with its hooks is covered
without new test code."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


def _observe(env: Any, agent: str) -> Any:
    return env.observe(agent)


def _game(env: Any) -> Any:
    return env.unwrapped.game


def _install(env: Any, game: Any) -> None:
    env.unwrapped.game = game


@dataclass(frozen=True)
class ConformanceHooks:
    """What the conformance suite needs to know about one game, beyond its descriptor."""

    kwargs: Callable[[int], dict[str, Any]]
    """Env keyword arguments for ``players`` seats, with rules that keep a game short."""
    permute_hidden: Callable[[Any, int, int], Any]
    """``(game, seat, seed) -> copy`` with the cards ``seat`` cannot see re-dealt at random."""
    check: Callable[[Any], None]
    """The validator: raises ``AssertionError`` if a game breaks an invariant."""
    digest: Callable[[Any], str]
    """A digest of a game's whole state (equal digests: equal games)."""
    observe: Callable[[Any, str], Any] = _observe
    """``(env, agent) -> observation`` of the game's main env (``spec.api``)."""
    game: Callable[[Any], Any] = _game
    """``env -> game``: the engine's game of any env of the game."""
    install: Callable[[Any, Any], None] = _install
    """``(env, game)``: the main env goes on from ``game``."""
    to_record: Callable[[Any], dict] | None = None
    """``game -> record`` (a JSON-ready dict), where the game has records."""
    from_record: Callable[[dict], Any] | None = None
    """``record -> game``: the replayed game."""


__all__ = ["ConformanceHooks"]
