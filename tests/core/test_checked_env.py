"""Every game's checked AEC env (``env()``, :class:`gnome_env.core.checked.CheckedAEC`)
behaves like its raw env behind PettingZoo's standard wrapper stack, call by call: the same
errors before reset, for out-of-range actions and for a dead agent's action, the same
termination and warning for an illegal action, and the same observations, rewards,
terminations, truncations and infos at every step of a whole game."""

from __future__ import annotations

import importlib
import logging

import numpy as np
import pytest
from conftest import aec_snapshot
from pettingzoo.utils import wrappers

from gnome_env.core.checked import CheckedAEC
from gnome_env.core.testing import ConformanceHooks
from gnome_env.core.wrappers import BoundsCheckWrapper
from gnome_env.registry import games

SPECS = [spec for spec in games() if "aec" in spec.envs]
by_game = pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])


def env_module(spec):
    return importlib.import_module(spec.envs["aec"].split(":")[0])


def checked(spec, players: int, **kwargs):
    hooks: ConformanceHooks = spec.load("testing")()
    return spec.load("envs", "aec")(**hooks.kwargs(players), **kwargs)


def standard_stack(spec, players: int, **kwargs):
    hooks: ConformanceHooks = spec.load("testing")()
    raw = env_module(spec).raw_env(**hooks.kwargs(players), **kwargs)
    # PettingZoo's AssertOutOfBoundsWrapper, with the project's message naming what is allowed
    return wrappers.OrderEnforcingWrapper(
        BoundsCheckWrapper(wrappers.TerminateIllegalWrapper(raw, -1))
    )


def outcome(fn):
    try:
        return ("ok", fn())
    except Exception as err:
        return (type(err).__name__, str(err))


def random_action(env, rng: np.random.Generator):
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        return None
    return int(rng.choice(np.flatnonzero(obs["action_mask"])))


def scripted_run(env, illegal_at: int, caplog):
    """Calls before reset, out-of-bounds actions, an illegal action, then stepping out."""
    trace = [outcome(lambda: env.step(0)), outcome(lambda: env.observe("player_0"))]
    for name in ("agent_selection", "num_agents", "agents", "rewards", "infos"):
        trace.append(outcome(lambda name=name: getattr(env, name)))
    trace.append(outcome(lambda: env.render()))
    trace.append(outcome(lambda: env.state()))
    trace.append(outcome(lambda: next(iter(env.agent_iter()))))
    trace.append(outcome(lambda: env.unwrapped.num_agents))
    env.reset(seed=5)
    rng = np.random.default_rng(2)
    for _ in range(illegal_at):
        trace.append(aec_snapshot(env))
        env.step(random_action(env, rng))
    assert env.agents, "the game ended before the illegal action: choose a smaller illegal_at"
    n = env.action_space(env.agent_selection).n
    for bad in (n, -1, True, 1.5, "x", np.int64(n)):
        trace.append(outcome(lambda bad=bad: env.step(bad)))  # out of range or malformed
    trace.append(aec_snapshot(env))
    mask = env.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    caplog.clear()
    env.step(illegal)
    trace.append(("warned", any("illegal" in r.getMessage().lower() for r in caplog.records)))
    trace.append(aec_snapshot(env))
    trace.append(outcome(lambda: env.step(0)))  # a dead agent may only step None
    while env.agents:
        trace.append(aec_snapshot(env))
        env.step(None)
    trace.append(aec_snapshot(env))
    caplog.clear()
    env.step(None)  # after the game: a warning, nothing else
    trace.append(("warned", bool(caplog.records)))
    return trace


@by_game
def test_env_is_the_native_checked_env(spec):
    env = checked(spec, spec.min_players)
    assert isinstance(env, CheckedAEC)
    assert type(env.unwrapped) is env.unwrapped_class
    assert not isinstance(env.unwrapped, CheckedAEC)


@by_game
@pytest.mark.parametrize("illegal_at", [0, 5, 12])
def test_checked_env_behaves_like_the_standard_wrapper_stack(spec, illegal_at, caplog):
    caplog.set_level(logging.WARNING)
    players = spec.min_players + 1
    native = scripted_run(checked(spec, players), illegal_at, caplog)
    wrapped = scripted_run(standard_stack(spec, players), illegal_at, caplog)
    assert len(native) == len(wrapped)
    for a, b in zip(native, wrapped, strict=True):
        assert repr(a) == repr(b)
    assert ("warned", True) in native
    assert native[0][0] != "ok"  # stepping before reset is refused


@by_game
def test_checked_env_full_game_matches_the_standard_stack_step_by_step(spec):
    native = checked(spec, spec.min_players)
    wrapped = standard_stack(spec, spec.min_players)
    for seed in (9, 10):
        native.reset(seed=seed)
        wrapped.reset(seed=seed)
        rng_a, rng_b = np.random.default_rng(seed), np.random.default_rng(seed)
        steps = 0
        for agent_a, agent_b in zip(native.agent_iter(), wrapped.agent_iter(), strict=True):
            assert agent_a == agent_b
            assert repr(aec_snapshot(native)) == repr(aec_snapshot(wrapped))
            native.step(random_action(native, rng_a))
            wrapped.step(random_action(wrapped, rng_b))
            steps += 1
        assert native.agents == wrapped.agents == []
        assert repr(aec_snapshot(native)) == repr(aec_snapshot(wrapped))
        assert steps > 10


@by_game
def test_the_unwrapped_env_shares_the_state_and_raises_on_an_illegal_action(spec):
    env = checked(spec, spec.min_players)
    raw = env.unwrapped
    assert raw.agents == raw.possible_agents  # answered before reset, as a raw env
    env.reset(seed=3)
    view = env.unwrapped
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    before = repr(aec_snapshot(env))
    with pytest.raises(ValueError):
        view.step(int(np.flatnonzero(mask == 0)[0]))
    assert repr(aec_snapshot(env)) == before  # nothing changed
    legal = int(np.flatnonzero(mask)[0])
    view.step(legal)  # stepping the view steps the checked env
    assert repr(aec_snapshot(env)) != before
