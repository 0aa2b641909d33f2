"""Agents by spec string, the names used on the command line (``--opponents random``).

A spec is ``name`` or ``name:argument`` (later agents take an argument, e.g. a checkpoint
path). :func:`make_agent` is the one place that maps specs to agent classes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.gnoming.expert import ExpertAgent
from agents.gnoming.greedy import GreedyAgent
from agents.gnoming.random_agent import RandomAgent
from agents.gnoming.search import SearchAgent
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.policies import Policy


def _no_argument(name: str, build: Callable[[int, RulesConfig | None], Policy]):
    """A factory for an agent spec that takes no ``:argument``."""

    def factory(argument: str | None, seed: int, config: RulesConfig | None) -> Policy:
        if argument is not None:
            raise ValueError(f"agent spec {name!r} takes no argument, got '{name}:{argument}'")
        return build(seed, config)

    return factory


def _search(argument: str | None, seed: int, config: RulesConfig | None) -> Policy:
    """``search`` (default budget), ``search:ROLLOUTS`` or ``search:MSms`` (time budget)."""
    if argument is None:
        return SearchAgent(seed, config)
    text = argument.strip().lower()
    try:
        if text.endswith("ms"):
            return SearchAgent(seed, config, rollouts=10**9, max_ms=float(text[:-2]))
        return SearchAgent(seed, config, rollouts=int(text))
    except ValueError as err:
        raise ValueError(
            f"agent spec 'search:{argument}' is not allowed ({err}): use search, "
            "search:ROLLOUTS (a positive integer) or search:MSms (e.g. search:50ms)"
        ) from None


def _rollout(argument: str | None, seed: int, config: RulesConfig | None) -> Policy:
    """``rollout`` (defaults), ``rollout:SAMPLES`` or ``rollout:SAMPLES:MARGIN``
    (agents.gnoming.rollout_search; needs numba)."""
    from agents.gnoming.rollout_search import ExpertRolloutAgent

    if argument is None:
        return ExpertRolloutAgent(seed, config)
    samples, _, margin = argument.partition(":")
    try:
        kwargs: dict[str, float | int] = {"samples": int(samples)}
        if margin:
            kwargs["margin"] = float(margin)
        return ExpertRolloutAgent(seed, config, **kwargs)  # type: ignore[arg-type]
    except ValueError as err:
        raise ValueError(
            f"agent spec 'rollout:{argument}' is not allowed ({err}): use rollout, "
            "rollout:SAMPLES (a positive integer) or rollout:SAMPLES:MARGIN (points, e.g. "
            "rollout:8:0.5)"
        ) from None


def _netsearch(argument: str | None, seed: int, config: RulesConfig | None) -> Policy:
    """``netsearch:PATH[:SAMPLES][:self]`` (agents.gnoming.net_search; torch, numba): ``SAMPLES``
    determinized samples, ``self``: the network plays its own seat in the rollouts."""
    if not argument:
        raise ValueError(
            "agent spec 'netsearch' needs a checkpoint path: netsearch:PATH, "
            "netsearch:PATH:SAMPLES, netsearch:PATH:self or netsearch:PATH:SAMPLES:self"
        )
    from agents.gnoming.net_search import NetSearchAgent

    path = argument
    kwargs: dict[str, Any] = {}
    head, sep, tail = path.rpartition(":")
    if sep and tail.strip() == "self":
        kwargs["rollout_policy"] = "network"
        path = head
    head, sep, tail = path.rpartition(":")
    if sep and tail.strip().isdigit():
        kwargs["samples"] = int(tail)
        path = head
    try:
        return NetSearchAgent(path, seed, config, **kwargs)
    except ValueError as err:
        raise ValueError(f"agent spec 'netsearch:{argument}' is not allowed: {err}") from None


def _learned(name: str, mode: str):
    """A factory for ``ppo:PATH`` / ``ppo-sample:PATH`` (agents.gnoming.learned, needs torch)."""

    def factory(argument: str | None, seed: int, config: RulesConfig | None) -> Policy:
        if not argument:
            raise ValueError(f"agent spec {name!r} needs a checkpoint path: {name}:PATH")
        from agents.gnoming.learned import PolicyAgent

        return PolicyAgent.load(argument, mode=mode, seed=seed, config=config)

    return factory


def _sb3(argument: str | None, seed: int, config: RulesConfig | None) -> Policy:
    """``sb3:PATH``: a saved sb3-contrib MaskablePPO model (agents.gnoming.sb3_agent)."""
    if not argument:
        raise ValueError("agent spec 'sb3' needs a model path: sb3:PATH (a MaskablePPO .zip)")
    from agents.gnoming.sb3_agent import SB3Agent

    return SB3Agent.load(argument, seed=seed, config=config)


def _rllib(argument: str | None, seed: int, config: RulesConfig | None) -> Policy:
    """``rllib:PATH``: a module trained by training/gnoming/rllib_ppo.py
    (agents.gnoming.rllib_agent)."""
    if not argument:
        raise ValueError("agent spec 'rllib' needs a checkpoint path: rllib:PATH")
    try:
        from agents.gnoming.rllib_agent import RLlibAgent
    except ImportError as err:
        raise ValueError(str(err)) from None
    return RLlibAgent.load(argument, config=config)


#: spec name -> factory(argument or None, seed, rules config or None)
AGENT_FACTORIES: dict[str, Callable[[str | None, int, RulesConfig | None], Policy]] = {
    "random": _no_argument("random", lambda seed, config: RandomAgent(seed)),
    "greedy": _no_argument("greedy", GreedyAgent),
    "expert": _no_argument("expert", ExpertAgent),
    "search": _search,
    "rollout": _rollout,
    "netsearch": _netsearch,
    "ppo": _learned("ppo", "greedy"),
    "ppo-sample": _learned("ppo-sample", "sample"),
    "sb3": _sb3,
    "rllib": _rllib,
}


def known_specs() -> tuple[str, ...]:
    """The spec names :func:`make_agent` accepts, sorted."""
    return tuple(sorted(AGENT_FACTORIES))


def make_agent(spec: str, seed: int, config: RulesConfig | None = None) -> Policy:
    """Build the agent a spec names, seeded with ``seed``, for games under ``config``.

    Specs: ``random``, ``greedy``, ``expert``, ``search``, ``search:64`` (rollouts),
    ``search:50ms`` (time budget), ``rollout``, ``rollout:8`` (samples per decision; Expert
    improved by Expert-played rollouts, needs numba), ``ppo:PATH`` (a learned policy
    checkpoint, most likely action), ``ppo-sample:PATH`` (the same, sampling its
    distribution), ``sb3:PATH`` (a saved sb3-contrib MaskablePPO model), ``rllib:PATH``
    (an RLlib checkpoint of training/gnoming/rllib_ppo.py; needs the ``rllib`` extra),
    ``netsearch:PATH`` / ``netsearch:PATH:SAMPLES`` (a policy checkpoint whose close calls
    are settled by Expert-played rollouts; needs torch and numba). Learned
    policies need torch. Bots need the rules; ``None`` means the default rules.

    An unknown spec raises ``ValueError`` listing the known specs.
    """
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, got {spec!r}")
    name, sep, argument = spec.strip().partition(":")
    factory = AGENT_FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown agent spec {spec!r}; known specs: {', '.join(known_specs())}")
    return factory(argument if sep else None, seed, config)
