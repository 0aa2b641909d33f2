"""The game descriptor: everything the command line, the arena, the benchmarks and the
PettingZoo/Gymnasium registrations need to know about one game, in one frozen record.

Every field that names code is a ``"module:attribute"`` string, resolved by :func:`load_ref`
only when used. So the descriptors of all games can be read (``gnome games``) without
importing any game, and a descriptor in ``gnome_env`` may name the game's bots (``agents``)
and trainers (``training``) without ``gnome_env`` importing those layers: only the layer that
uses a reference resolves it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any

API_KINDS = ("aec", "parallel")


def load_ref(ref: str) -> Any:
    """The object a ``"package.module:attribute"`` reference names (imported on first use)."""
    module_name, sep, attribute = ref.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"reference {ref!r} is not allowed: must be 'package.module:attribute'")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


@dataclass(frozen=True)
class ShippedPolicy:
    """A learned policy that ships with the project (weights under ``agents/policies/``)."""

    name: str
    spec: str
    """The agent spec that loads it, e.g. ``"ppo:agents/policies/NAME/policy.pt"``."""
    result: str
    """How it does against the game's best bot, in words, with the doc that has the command."""


@dataclass(frozen=True)
class Registration:
    """One id in PettingZoo's (``"aec"``/``"parallel"``) or Gymnasium's (``"gymnasium"``)
    registry."""

    registry: str
    env_id: str
    entry_point: str


@dataclass(frozen=True)
class GameSpec:
    """One game, as every game-agnostic part of the project sees it."""

    name: str
    """Short name used by ``--game`` and ``run_arena(game=...)``."""
    title: str
    api: str
    """``"aec"`` (turn-based PettingZoo AEC env) or ``"parallel"`` (simultaneous moves)."""
    min_players: int
    max_players: int
    default_players: int
    config: str
    """Reference to the game's rules config class (a frozen dataclass)."""
    envs: dict[str, str]
    """Env constructors by kind: ``"aec"``, ``"parallel"``, ``"gymnasium"`` where they exist."""
    registrations: tuple[Registration, ...]
    bots: tuple[str, ...]
    """Agent spec names of the game's bots, weakest first."""
    make_agent: str
    """Reference to ``make_agent(spec, seed, config)`` for this game's agent specs."""
    known_specs: str
    """Reference to the function listing every agent spec name the game accepts."""
    arena: str
    """Reference to the game's arena plug-in (an ``agents.core.arena.ArenaGame``)."""
    trainers: dict[str, str] = field(default_factory=dict)
    """Trainer name (a YAML config's ``trainer:`` value) -> reference to its ``main(argv)``."""
    commands: dict[str, str] = field(default_factory=dict)
    """``gnome`` command hooks by name (``"demo"``, ``"play"``, ``"options"``, ...)."""
    shipped: tuple[ShippedPolicy, ...] = ()
    """Shipped learned policies, strongest first."""
    docs: str = ""
    """The game's doc, relative to the repository root."""
    testing: str = ""
    """Reference to the function returning the game's conformance hooks (a
    :class:`gnome_env.core.testing.ConformanceHooks`), in the game's ``testing`` module."""

    def __post_init__(self) -> None:
        if self.api not in API_KINDS:
            raise ValueError(
                f"GameSpec {self.name!r}: api={self.api!r}: must be one of {API_KINDS}"
            )
        if not self.min_players <= self.default_players <= self.max_players:
            raise ValueError(f"GameSpec {self.name!r}: default_players outside the seat range")

    @property
    def seat_range(self) -> tuple[int, ...]:
        return tuple(range(self.min_players, self.max_players + 1))

    @property
    def env_ids(self) -> tuple[str, ...]:
        return tuple(r.env_id for r in self.registrations)

    @property
    def strongest_policy(self) -> ShippedPolicy | None:
        return self.shipped[0] if self.shipped else None

    def load(self, field_name: str, key: str | None = None) -> Any:
        """Resolve the reference in ``field_name`` (or ``field_name[key]`` for a table)."""
        value = getattr(self, field_name)
        if key is not None:
            if key not in value:
                raise KeyError(f"{self.name} has no {field_name} entry {key!r}")
            value = value[key]
        return load_ref(value)
