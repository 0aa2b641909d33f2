"""The opponents of every game's single-seat Gymnasium env: their shapes and the default one.

* A **policy** is any object with ``act(observation, mask) -> int``: ``observation`` is the
  seat's float32 vector (the game's encoder), ``mask`` the bool (or int8) mask of its legal
  actions; the result a legal action id.
* A **bot** (Nerts, Ginny-O) is any object with ``decide(view) -> int``: ``view`` is the
  seat's public view of the game (``<game>.information``), never the game.
* A **factory** is a class or callable ``factory(seed, config) -> bot or policy`` (the shape
  of the arena's lineup entries), built at every ``reset`` for each seat it plays.

:class:`RandomPolicy` is the envs' default opponent; it lives in the env layer because that
layer may not import ``agents`` (docs/architecture.md).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from gnome_env.core import rng

#: ``learner_seat="random"``: the single-seat envs draw the learner's seat at every reset.
RANDOM_SEAT = "random"
#: What an opponent may be, for error messages.
OPPONENT_SHAPES = (
    "a bot (an object with decide(view) -> int), a policy (an object with "
    "act(observation, mask) -> int) or a factory(seed, config) returning one"
)


@runtime_checkable
class Policy(Protocol):
    """Anything that picks an action from an observation and a legal-action mask."""

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """Return a legal action id."""
        ...


class RandomPolicy:
    """Uniformly random over the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """A uniformly random legal action."""
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError("RandomPolicy.act: the mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])

    def __repr__(self) -> str:
        return f"RandomPolicy(seed={self.seed!r})"


def opponent_shape(obj: object) -> str | None:
    """``"factory"`` (a class or a callable without ``decide``/``act``), ``"bot"``
    (``decide``), ``"policy"`` (``act``) or None (none of these)."""
    if isinstance(obj, type):
        return "factory"
    if callable(getattr(obj, "decide", None)):
        return "bot"
    if callable(getattr(obj, "act", None)):
        return "policy"
    if callable(obj):
        return "factory"
    return None


def spec_hint(obj: object, make_agent: str) -> str:
    """For an agent spec string given as an opponent: how to pass that bot instead (the env
    layer cannot build agents from specs); ``make_agent`` names the game's agent factory."""
    if not isinstance(obj, str):
        return ""
    return f"; for a bot by its spec pass functools.partial({make_agent}, {obj!r})"


def check_seat_counts(num_players: object, low: int, high: int) -> tuple[int, ...]:
    """The seat counts a ``num_players`` argument allows: an int in ``low..high`` or a
    non-empty list or tuple of them; anything else is a ``ValueError``."""
    allowed = f"an integer in {low}..{high} or a non-empty list of them"
    values = num_players if isinstance(num_players, (list, tuple)) else [num_players]
    if not values or any(
        isinstance(n, (bool, np.bool_))
        or not isinstance(n, (int, np.integer))
        or not low <= n <= high
        for n in values
    ):
        raise ValueError(f"num_players={num_players!r} is not allowed: must be {allowed}")
    return tuple(int(n) for n in values)


def check_learner_seat(learner_seat: object, fewest: int, num_players: object) -> int | str:
    """A single-seat env's ``learner_seat`` argument: :data:`RANDOM_SEAT`, or a seat that
    every game of the env has (``0 .. fewest - 1``, ``fewest`` the smallest seat count), as
    an int; anything else is a ``ValueError`` naming what is allowed."""
    if learner_seat == RANDOM_SEAT:
        return RANDOM_SEAT
    if (
        isinstance(learner_seat, (bool, np.bool_))
        or not isinstance(learner_seat, (int, np.integer))
        or not 0 <= learner_seat < fewest
    ):
        raise ValueError(
            f"learner_seat={learner_seat!r} is not allowed: must be an integer from 0 to "
            f"{fewest - 1} (num_players={num_players!r}) or {RANDOM_SEAT!r}"
        )
    return int(learner_seat)


def check_opponents(opponents: object, n: int, make_agent: str) -> Any:
    """A single-seat env's ``opponents`` argument (None, one bot, policy or factory for every
    seat, or a list of ``n - 1`` of them, ``n`` the largest seat count), the list as a list;
    anything else is a ``ValueError`` naming what is allowed (``make_agent``: the game's
    agent factory, named in the hint for a spec string)."""
    if opponents is None:
        return None
    if opponent_shape(opponents) is not None:
        return opponents
    if isinstance(opponents, (list, tuple)):
        if len(opponents) != n - 1:
            raise ValueError(
                f"opponents has {len(opponents)} entries: must have one per other seat, "
                f"{n - 1} for {n} players (the largest seat count)"
            )
        for k, entry in enumerate(opponents):
            if opponent_shape(entry) is None:
                raise ValueError(
                    f"opponents[{k}]={entry!r} is not allowed: must be {OPPONENT_SHAPES}"
                    + spec_hint(entry, make_agent)
                )
        return list(opponents)
    raise ValueError(
        f"opponents={opponents!r} is not allowed: must be None, {OPPONENT_SHAPES}, or a "
        f"list of {n - 1} of them{spec_hint(opponents, make_agent)}"
    )


def episode_seats(
    seat_counts: tuple[int, ...], seat_choice: int | str, game_seed: int
) -> tuple[int, int]:
    """``(n, learner)`` of the episode with game seed ``game_seed``: the seat count
    ``seat_counts[rng.draw_index(len, rng.SEAT, game_seed, 2)]`` (the only one if there is
    one) and the learner's seat, ``seat_choice`` or, for :data:`RANDOM_SEAT`,
    ``rng.draw_index(n, rng.SEAT, game_seed)``."""
    if len(seat_counts) > 1:
        n = seat_counts[rng.draw_index(len(seat_counts), rng.SEAT, game_seed, 2)]
    else:
        n = seat_counts[0]
    if seat_choice == RANDOM_SEAT:
        return n, rng.draw_index(n, rng.SEAT, game_seed)
    return n, int(seat_choice)


def seat_opponents(
    opponents: Any, config: Any, n: int, learner: int, game_seed: int
) -> dict[int, Any]:
    """Each other seat's bot or policy for an episode of ``n`` seats of a single-seat env,
    keyed by seat, in seat order after the ``learner``: ``opponents`` is None (a
    :class:`RandomPolicy` each), one entry for every seat or a list (one per seat, in that
    order). Factories are built here with ``factory(seed, config)``; a bot or policy object
    with a ``reseed(seed)`` hook is reseeded once. The seat playing ``entries[k]`` gets the
    seed ``rng.derive_seed(rng.SEAT, game_seed, 1, k)``. A factory that returns no bot or
    policy is a ``ValueError`` naming the seat."""
    others = [(learner + 1 + k) % n for k in range(n - 1)]
    if opponents is None:
        entries: list[Any] = [None] * (n - 1)
    elif isinstance(opponents, list):
        entries = opponents[: n - 1]
    else:
        entries = [opponents] * (n - 1)
    out: dict[int, Any] = {}
    reseeded: set[int] = set()
    for k, (seat, entry) in enumerate(zip(others, entries, strict=True)):
        seed = rng.derive_seed(rng.SEAT, game_seed, 1, k)
        if entry is None:
            player = RandomPolicy(seed)
        elif opponent_shape(entry) == "factory":
            player = entry(seed, config)
            if opponent_shape(player) not in ("bot", "policy") or isinstance(player, type):
                raise ValueError(
                    f"the opponent factory for seat {seat} ({entry!r}) returned "
                    f"{player!r}: must return a bot (decide(view) -> int) or a policy "
                    "(act(observation, mask) -> int)"
                )
        else:
            player = entry
            hook = getattr(player, "reseed", None)
            if callable(hook) and id(player) not in reseeded:
                hook(seed)
                reseeded.add(id(player))
        out[seat] = player
    return out


__all__ = [
    "OPPONENT_SHAPES",
    "RANDOM_SEAT",
    "Policy",
    "RandomPolicy",
    "check_learner_seat",
    "check_opponents",
    "check_seat_counts",
    "episode_seats",
    "opponent_shape",
    "seat_opponents",
    "spec_hint",
]
