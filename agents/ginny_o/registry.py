"""Ginny-O agents by spec string, the names used on the command line (``--lineup greedy,random``).

:func:`make_ginny_agent` is the one place that maps Ginny-O specs to agent classes, as
:func:`agents.nerts.registry.make_nerts_agent` does for Nerts. A spec is ``name`` or
``name:argument``: ``random``, ``greedy`` and ``heuristic`` take no argument; ``ppo:PATH``
and ``ppo-sample:PATH`` load a learned policy checkpoint with
``agents.ginny_o.learned.GinnyPolicyAgent`` (imported only when such a spec is built; it
needs torch); ``turns:PATH`` and ``turns-sample:PATH`` load a whole-turn policy with
``agents.ginny_o.turns.TurnPolicyAgent`` (likewise).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.ginny_o.bots import GreedyGinnyAgent, HeuristicGinnyAgent, RandomGinnyAgent
from agents.ginny_o.expert import ExpertGinnyAgent
from gnome_env.ginny_o.config import GinnyConfig

GinnyFactory = Callable[[str | None, int, GinnyConfig | None], Any]


def _no_argument(name: str, cls: Callable[[int, GinnyConfig | None], Any]) -> GinnyFactory:
    """A factory for a spec that takes no ``:argument``."""

    def factory(argument: str | None, seed: int, config: GinnyConfig | None) -> Any:
        if argument is not None:
            raise ValueError(
                f"Ginny-O agent spec {name!r} takes no argument, got '{name}:{argument}'"
            )
        return cls(seed, config)

    return factory


def _learned(name: str, sample: bool) -> GinnyFactory:
    """A factory for ``ppo:PATH`` / ``ppo-sample:PATH`` (a learned policy; needs torch)."""

    def factory(argument: str | None, seed: int, config: GinnyConfig | None) -> Any:
        if not argument:
            raise ValueError(f"Ginny-O agent spec {name!r} needs a checkpoint path: {name}:PATH")
        try:
            from agents.ginny_o.learned import GinnyPolicyAgent
        except ModuleNotFoundError as err:
            if err.name in ("agents.ginny_o.learned", "agents.ginny_o"):
                raise ValueError(
                    f"Ginny-O agent spec {name!r} is not available yet: there is no learned "
                    "Ginny-O policy module (agents/ginny_o/learned.py)"
                ) from None
            raise ValueError(f"Ginny-O agent spec {name!r} needs torch: {err}") from None
        except ImportError as err:
            raise ValueError(f"Ginny-O agent spec {name!r} needs torch: {err}") from None
        return GinnyPolicyAgent(argument, seed=seed, config=config, sample=sample)

    return factory


def _turns(name: str, sample: bool) -> GinnyFactory:
    """A factory for ``turns:PATH`` / ``turns-sample:PATH`` (a whole-turn policy checkpoint,
    :mod:`agents.ginny_o.turns`; needs torch, imported only here)."""

    def factory(argument: str | None, seed: int, config: GinnyConfig | None) -> Any:
        if not argument:
            raise ValueError(f"Ginny-O agent spec {name!r} needs a checkpoint path: {name}:PATH")
        try:
            from agents.ginny_o.turns import TurnPolicyAgent
        except ImportError as err:
            raise ValueError(f"Ginny-O agent spec {name!r} needs torch: {err}") from None
        return TurnPolicyAgent(argument, seed=seed, config=config, sample=sample)

    return factory


#: spec name -> factory(argument or None, seed, config or None)
GINNY_AGENT_FACTORIES: dict[str, GinnyFactory] = {
    "random": _no_argument("random", RandomGinnyAgent),
    "greedy": _no_argument("greedy", GreedyGinnyAgent),
    "heuristic": _no_argument("heuristic", HeuristicGinnyAgent),
    "expert": _no_argument("expert", ExpertGinnyAgent),
    "ppo": _learned("ppo", sample=False),
    "ppo-sample": _learned("ppo-sample", sample=True),
    "turns": _turns("turns", sample=False),
    "turns-sample": _turns("turns-sample", sample=True),
}


def known_ginny_specs() -> tuple[str, ...]:
    """The spec names :func:`make_ginny_agent` accepts, sorted."""
    return tuple(sorted(GINNY_AGENT_FACTORIES))


def make_ginny_agent(spec: str, seed: int, config: GinnyConfig | None = None) -> Any:
    """Build the Ginny-O agent a spec names, seeded with ``seed``, for games under ``config``
    (None: the default rules). Every agent has ``decide(view) -> int``.

    Specs: ``random``, ``greedy``, ``heuristic`` (:mod:`agents.ginny_o.bots`), ``ppo:PATH``
    (a learned policy checkpoint, most likely action), ``ppo-sample:PATH`` (sampling it), and
    ``turns:PATH`` / ``turns-sample:PATH`` (a whole-turn policy, :mod:`agents.ginny_o.turns`).
    An unknown spec raises ``ValueError`` listing the known Ginny-O specs.
    """
    if not isinstance(spec, str):
        raise ValueError(f"Ginny-O agent spec must be a string, got {spec!r}")
    if config is not None and not isinstance(config, GinnyConfig):
        raise ValueError(f"config must be a GinnyConfig or None, got {type(config).__name__}")
    name, sep, argument = spec.strip().partition(":")
    factory = GINNY_AGENT_FACTORIES.get(name)
    if factory is None:
        raise ValueError(
            f"unknown Ginny-O agent spec {spec!r}; known Ginny-O specs: "
            f"{', '.join(known_ginny_specs())}"
        )
    return factory(argument if sep else None, seed, config)
