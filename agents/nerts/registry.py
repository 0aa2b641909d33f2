"""Nerts agents by spec string, the names used on the command line (``--lineup greedy,random``).

:func:`make_nerts_agent` is the one place that maps Nerts specs to agent classes, as
:func:`agents.gnoming.registry.make_agent` does for Gnoming A Round. A spec is ``name`` or
``name:argument``: ``random``, ``greedy`` and ``expert`` take no argument; ``ppo:PATH`` and
``ppo-sample:PATH`` load a learned policy checkpoint (:mod:`agents.nerts.learned`, needs
torch).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.nerts.bots import GreedyNertsAgent, RandomNertsAgent
from agents.nerts.expert import ExpertNertsAgent
from gnome_env.nerts.config import NertsConfig

NertsFactory = Callable[[str | None, int, NertsConfig | None], Any]


def _no_argument(name: str, cls: Callable[[int, NertsConfig | None], Any]) -> NertsFactory:
    """A factory for a spec that takes no ``:argument``."""

    def factory(argument: str | None, seed: int, config: NertsConfig | None) -> Any:
        if argument is not None:
            raise ValueError(
                f"Nerts agent spec {name!r} takes no argument, got '{name}:{argument}'"
            )
        return cls(seed, config)

    return factory


def _learned(name: str, sample: bool) -> NertsFactory:
    """A factory for ``ppo:PATH`` / ``ppo-sample:PATH`` (a learned policy; needs torch)."""

    def factory(argument: str | None, seed: int, config: NertsConfig | None) -> Any:
        if not argument:
            raise ValueError(f"Nerts agent spec {name!r} needs a checkpoint path: {name}:PATH")
        try:
            from agents.nerts.learned import NertsPolicyAgent
        except ImportError as err:
            raise ValueError(f"Nerts agent spec {name!r} needs torch: {err}") from None
        return NertsPolicyAgent(argument, seed=seed, config=config, sample=sample)

    return factory


def _rllib(argument: str | None, seed: int, config: NertsConfig | None) -> Any:
    """``rllib:PATH``: an RLlib module trained by training/nerts/rllib_ppo.py (needs ray)."""
    if not argument:
        raise ValueError("Nerts agent spec 'rllib' needs a checkpoint path: rllib:PATH")
    try:
        from agents.nerts.rllib_agent import RLlibNertsAgent
    except ImportError as err:
        raise ValueError(f"Nerts agent spec 'rllib' needs ray[rllib]: {err}") from None
    return RLlibNertsAgent.load(argument, config)


#: the settings a ``search:KEY=VALUE:...`` spec may give, and their types
SEARCH_SETTINGS = {
    "samples": int, "horizon": int, "score_weight": float, "margin": float, "z": float,
    "memory": int, "candidates": str,
}  # fmt: skip


def search_settings(argument: str | None) -> dict[str, Any]:
    """The settings of a ``search:KEY=VALUE:...`` spec (``search`` alone: none, the
    defaults); ``ValueError`` naming the allowed keys for anything else."""
    if argument is None:
        return {}
    allowed = ", ".join(SEARCH_SETTINGS)
    out: dict[str, Any] = {}
    for item in argument.split(":"):
        key, eq, text = item.strip().partition("=")
        key = key.strip()
        if not eq or key not in SEARCH_SETTINGS:
            raise ValueError(
                f"Nerts agent spec 'search:{argument}': {item.strip()!r} is not KEY=VALUE "
                f"with KEY one of {allowed} (e.g. search:z=2:margin=0.1)"
            )
        if key in out:
            raise ValueError(f"Nerts agent spec 'search:{argument}' sets {key} twice")
        try:
            out[key] = SEARCH_SETTINGS[key](text.strip())
        except ValueError:
            kind = "an integer" if SEARCH_SETTINGS[key] is int else "a number"
            raise ValueError(
                f"Nerts agent spec 'search:{argument}': {key} must be {kind}, got {text!r}"
            ) from None
    return out


def _search(argument: str | None, seed: int, config: NertsConfig | None) -> Any:
    """``search`` or ``search:KEY=VALUE:...`` (keys: samples, horizon, score_weight,
    margin, z, memory, candidates): the sampled-playout bot (compiled kernels; imported on
    first use)."""
    settings = search_settings(argument)
    from agents.nerts.search import SearchNertsAgent

    return SearchNertsAgent(seed, config, **settings)


#: spec name -> factory(argument or None, seed, config or None)
NERTS_AGENT_FACTORIES: dict[str, NertsFactory] = {
    "random": _no_argument("random", RandomNertsAgent),
    "greedy": _no_argument("greedy", GreedyNertsAgent),
    "expert": _no_argument("expert", ExpertNertsAgent),
    "search": _search,
    "ppo": _learned("ppo", sample=False),
    "ppo-sample": _learned("ppo-sample", sample=True),
    "rllib": _rllib,
}


def known_nerts_specs() -> tuple[str, ...]:
    """The spec names :func:`make_nerts_agent` accepts, sorted."""
    return tuple(sorted(NERTS_AGENT_FACTORIES))


def make_nerts_agent(spec: str, seed: int, config: NertsConfig | None = None) -> Any:
    """Build the Nerts agent a spec names, seeded with ``seed``, for games under ``config``
    (None: the default rules). Every agent has ``decide(view) -> int``.

    Specs: ``random``, ``greedy`` (:mod:`agents.nerts.bots`), ``expert``
    (:mod:`agents.nerts.expert`), ``search`` or ``search:KEY=VALUE:...``
    (:mod:`agents.nerts.search`; e.g. ``search:z=2:margin=0.1``), ``ppo:PATH`` (a
    learned policy checkpoint, most likely action) and ``ppo-sample:PATH`` (sampling it).
    An unknown spec raises ``ValueError`` listing the known Nerts specs.
    """
    if not isinstance(spec, str):
        raise ValueError(f"Nerts agent spec must be a string, got {spec!r}")
    if config is not None and not isinstance(config, NertsConfig):
        raise ValueError(f"config must be a NertsConfig or None, got {type(config).__name__}")
    name, sep, argument = spec.strip().partition(":")
    factory = NERTS_AGENT_FACTORIES.get(name)
    if factory is None:
        raise ValueError(
            f"unknown Nerts agent spec {spec!r}; known Nerts specs: "
            f"{', '.join(known_nerts_specs())}"
        )
    return factory(argument if sep else None, seed, config)
