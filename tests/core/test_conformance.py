"""One conformance suite over every registered game (``gnome_env.registry.games()``).

Each test reads only the game's descriptor (``GameSpec``) and the conformance hooks it names
(``GameSpec.testing``, a :class:`gnome_env.core.testing.ConformanceHooks`): a game added to
the registry with its hooks is covered without new test code. The env kinds are those of
``spec.envs``: every ``"aec"`` env gets PettingZoo's AEC tests, every ``"parallel"`` env the
Parallel ones; the game's main env is ``spec.envs[spec.api]``.

The project's convention for actions, checked here for every game:

* a checked AEC env (``env()``) raises ``AssertionError`` naming what is allowed for an
  action outside the action space, changing nothing, and ends the game with -1 for an
  action its mask leaves out (PettingZoo's ``TerminateIllegalWrapper``);
* its ``unwrapped`` (the raw AEC env) and a Parallel env raise ``ValueError`` naming what is
  allowed for both, changing nothing. So PettingZoo's ``parallel_seed_test``, which samples
  without the mask, stops with that error; seeding is checked with masked samples.
"""

from __future__ import annotations

import importlib
import json
import logging
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    performance_benchmark,
    render_test,
    seed_test,
    state_test,
)
from pettingzoo.test.save_obs_test import test_save_obs as pettingzoo_save_obs_test

from gnome_env.core.testing import ConformanceHooks
from gnome_env.registry import games

SPECS = games()
IDS = [spec.name for spec in SPECS]
by_game = pytest.mark.parametrize("spec", SPECS, ids=IDS)
MALFORMED = (10**6, -1, 1.5, "x", True, None)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's notes (all-zero masks, illegal moves)
        yield


def hooks_of(spec) -> ConformanceHooks:
    return spec.load("testing")()


def make(spec, kind: str, players: int | None = None, **kwargs):
    hooks = hooks_of(spec)
    return spec.load("envs", kind)(**hooks.kwargs(players or spec.min_players), **kwargs)


def aec_kinds(spec) -> list[str]:
    return [kind for kind in ("aec",) if kind in spec.envs]


def parallel_kind(spec) -> str:
    if "parallel" not in spec.envs:
        pytest.skip(f"{spec.name} has no Parallel env")
    return "parallel"


def masked_choice(mask: np.ndarray, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def aec_random_steps(env, rng: np.random.Generator, steps: int, after=None) -> None:
    """Up to ``steps`` masked random steps of an AEC env (``after()`` after each)."""
    for _ in range(steps):
        if not env.agents:
            return
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(masked_choice(env.observe(agent)["action_mask"], rng))
        if after is not None:
            after()


def parallel_actions(obs: dict, agents: list[str], rng: np.random.Generator) -> dict:
    return {a: masked_choice(obs[a]["action_mask"], rng) for a in agents}


def first_illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask == 0)[0])


def aec_snapshot(env, hooks: ConformanceHooks) -> tuple:
    agent = env.agent_selection
    obs = env.observe(agent)
    return (
        agent,
        list(env.agents),
        hooks.digest(hooks.game(env)),
        env.state().tobytes(),
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
    )


def parallel_snapshot(env, hooks: ConformanceHooks) -> tuple:
    return (
        list(env.agents),
        hooks.digest(hooks.game(env)),
        env.state().tobytes(),
        *(hooks.observe(env, a)["observation"].tobytes() for a in env.agents),
    )


# ---------------------------------------------------------------------- the descriptor
@by_game
def test_the_descriptor_names_the_hooks_and_the_main_env(spec):
    assert spec.testing, f"{spec.name}: GameSpec.testing names no conformance hooks"
    assert isinstance(hooks_of(spec), ConformanceHooks)
    assert spec.api in spec.envs
    assert aec_kinds(spec), "every game has an AEC env (its own, or the AEC form of a Parallel env)"


# ---------------------------------------------------------------------- PettingZoo's tests
@by_game
def test_pettingzoo_api_test(spec):
    for kind in aec_kinds(spec):
        for players in sorted({spec.min_players, spec.max_players}):
            api_test(make(spec, kind, players), num_cycles=100)


@by_game
def test_pettingzoo_parallel_api_test(spec):
    kind = parallel_kind(spec)
    for players in sorted({spec.min_players, spec.max_players}):
        parallel_api_test(make(spec, kind, players), num_cycles=100)


@by_game
def test_pettingzoo_seed_test(spec):
    for kind in aec_kinds(spec):
        seed_test(lambda kind=kind: make(spec, kind), num_cycles=100)


@by_game
def test_pettingzoo_parallel_seed_test_stops_at_an_unmasked_action(spec):
    kind = parallel_kind(spec)
    with pytest.raises(ValueError, match=r"must be|not legal"):
        parallel_seed_test(lambda: make(spec, kind), num_cycles=30)


@by_game
def test_parallel_env_is_deterministic_with_masked_samples(spec):
    kind = parallel_kind(spec)
    runs = []
    for _ in range(2):
        env = make(spec, kind)
        obs, infos = env.reset(seed=42)
        rng = np.random.default_rng(42)
        trace = [(obs, infos)]
        for _ in range(40):
            if not env.agents:
                break
            trace.append(env.step(parallel_actions(obs, env.agents, rng)))
            obs = trace[-1][0]
        runs.append(trace)
    assert len(runs[0]) == len(runs[1])
    for a, b in zip(*runs, strict=True):
        assert data_equivalence(a, b)


@by_game
def test_pettingzoo_state_test(spec):
    for kind in aec_kinds(spec):
        other = make(spec, "parallel") if "parallel" in spec.envs else make(spec, kind)
        state_test(make(spec, kind), other, num_cycles=10)


@by_game
def test_pettingzoo_render_test(spec, capsys):
    for kind in aec_kinds(spec):
        render_test(lambda render_mode=None, kind=kind: make(spec, kind, render_mode=render_mode))


@by_game
def test_pettingzoo_save_obs_test(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for kind in aec_kinds(spec):
        pettingzoo_save_obs_test(make(spec, kind))


class _FastClock:
    """``time.time()`` that runs a second per call, so the 5 s benchmark takes a few cycles."""

    def __init__(self) -> None:
        self.now = 0.0

    def time(self) -> float:
        self.now += 1.0
        return self.now


@by_game
def test_pettingzoo_performance_benchmark(spec, monkeypatch, capsys):
    bench = importlib.import_module("pettingzoo.test.performance_benchmark")  # the module

    for kind in aec_kinds(spec):
        monkeypatch.setattr(bench, "time", _FastClock())
        performance_benchmark(make(spec, kind))
        out = capsys.readouterr().out
        turns = float(out.split(" turns per second")[0].split()[-1])
        assert turns > 0, out


@by_game
def test_gymnasium_env_checker(spec):
    if "gymnasium" not in spec.envs:
        pytest.skip(f"{spec.name} has no Gymnasium env")
    from gymnasium.utils.env_checker import check_env

    for players in sorted({spec.min_players, spec.max_players}):
        env = make(spec, "gymnasium", players)
        # check_env steps with an action sampled from the action space before it seeds it;
        # masked spaces sample a legal action of the current state, so an unseeded sample
        # makes the later step-determinism check depend on chance (an action legal before
        # its seeded reset need not be legal after it). Seeding makes every run the same.
        env.unwrapped.action_space.seed(0)
        check_env(env.unwrapped, skip_render_check=True)
        env.close()


# ---------------------------------------------------------------------- rendering
@by_game
def test_every_render_mode_of_every_env(spec, capsys):
    for kind in spec.envs:
        if kind not in ("aec", "parallel"):
            continue
        modes = make(spec, kind).metadata["render_modes"]
        assert "human" in modes and "ansi" in modes and "rgb_array" in modes, (kind, modes)
        for mode in modes:
            env = make(spec, kind, render_mode=mode)
            rng = np.random.default_rng(0)
            if kind == "parallel":
                obs, _ = env.reset(seed=0)
                for _ in range(3):
                    obs, *_ = env.step(parallel_actions(obs, env.agents, rng))
            else:
                env.reset(seed=0)
                aec_random_steps(env, rng, 3 * len(env.possible_agents))
            capsys.readouterr()
            out = env.render()
            if mode == "human":
                assert out is None and capsys.readouterr().out.strip(), (kind, mode)
            elif mode == "ansi":
                assert isinstance(out, str) and out.strip(), (kind, mode)
            else:
                assert isinstance(out, np.ndarray) and out.dtype == np.uint8, (kind, mode)
                assert out.ndim == 3 and out.shape[2] == 3, (kind, mode)
            env.close()


# ---------------------------------------------------------------------- actions
@by_game
def test_malformed_actions_raise_naming_what_is_allowed_and_change_nothing(spec):
    hooks = hooks_of(spec)
    for kind in aec_kinds(spec):
        env = make(spec, kind)
        env.reset(seed=3)
        aec_random_steps(env, np.random.default_rng(3), 3)  # mid-game (mid-cycle)
        raw = env.unwrapped
        for action in MALFORMED:
            before = aec_snapshot(env, hooks)
            with pytest.raises(AssertionError, match="must be"):
                env.step(action)
            assert aec_snapshot(env, hooks) == before, (kind, action)
            with pytest.raises(ValueError, match="must be"):
                raw.step(action)
            assert aec_snapshot(env, hooks) == before, (kind, "unwrapped", action)
    if "parallel" in spec.envs:
        env = make(spec, "parallel")
        obs, _ = env.reset(seed=3)
        rng = np.random.default_rng(3)
        obs, *_ = env.step(parallel_actions(obs, env.agents, rng))
        for action in MALFORMED:
            before = parallel_snapshot(env, hooks)
            actions = parallel_actions(obs, env.agents, rng)
            actions[env.agents[-1]] = action
            with pytest.raises(ValueError, match="must be"):
                env.step(actions)
            assert parallel_snapshot(env, hooks) == before, ("parallel", action)
        with pytest.raises(ValueError, match="one action per live agent"):
            env.step({})
        assert parallel_snapshot(env, hooks) == before


@by_game
def test_an_unmasked_action(spec, caplog):
    """AEC ``env()``: ends the game, -1 for the offender, a warning. Its ``unwrapped`` and a
    Parallel env: ``ValueError``, nothing changed."""
    hooks = hooks_of(spec)
    for kind in aec_kinds(spec):
        env = make(spec, kind)
        env.reset(seed=5)
        aec_random_steps(env, np.random.default_rng(5), 3)
        agent = env.agent_selection
        illegal = first_illegal(env.observe(agent)["action_mask"])
        before = aec_snapshot(env, hooks)
        with pytest.raises(ValueError):
            env.unwrapped.step(illegal)
        assert aec_snapshot(env, hooks) == before, kind
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            env.step(illegal)
        assert "illegal" in caplog.text.lower(), kind
        assert all(env.terminations.values()) and env.rewards[agent] == -1.0, kind
        while env.agents:
            env.step(None)
    if "parallel" in spec.envs:
        env = make(spec, "parallel")
        obs, _ = env.reset(seed=5)
        actions = {a: first_illegal(obs[a]["action_mask"]) for a in env.agents}
        before = parallel_snapshot(env, hooks)
        with pytest.raises(ValueError, match="not legal"):
            env.step(actions)
        assert parallel_snapshot(env, hooks) == before


# ---------------------------------------------------------------------- information
@by_game
def test_no_leak_when_the_hidden_cards_of_a_seat_are_permuted(spec):
    """A seat's observation does not change when the cards it cannot see are re-dealt (and
    the full state does, at least once: the permutation is real)."""
    hooks = hooks_of(spec)
    players = spec.max_players
    env = make(spec, spec.api, players)
    rng = np.random.default_rng(11)
    checks = state_changed = 0
    if spec.api == "parallel":
        obs, _ = env.reset(seed=11)
    else:
        env.reset(seed=11)
    for _ in range(6):
        for _ in range(5):
            if not env.agents:
                break
            if spec.api == "parallel":
                obs, *_ = env.step(parallel_actions(obs, env.agents, rng))
            else:
                aec_random_steps(env, rng, 1)
        if not env.agents:
            break
        game = hooks.game(env)
        state = env.state()
        for seat, agent in enumerate(env.possible_agents):
            mine = hooks.observe(env, agent)
            twin = hooks.permute_hidden(game, seat, int(rng.integers(2**31)))
            hooks.install(env, twin)
            theirs = hooks.observe(env, agent)
            state_changed += not np.array_equal(state, env.state())
            hooks.install(env, game)
            for key in mine:
                np.testing.assert_array_equal(mine[key], theirs[key], err_msg=f"{agent} {key}")
            checks += 1
    assert checks >= players
    assert state_changed > 0


# ---------------------------------------------------------------------- whole games
def play_out(
    spec, hooks: ConformanceHooks, seed: int, players=None, after=None, max_steps: int = 5000
):
    """A masked random game of the main env to its end; ``after(game)`` after every step."""
    env = make(spec, spec.api, players)
    rng = np.random.default_rng(seed)

    def check() -> None:
        if after is not None:
            after(hooks.game(env))

    if spec.api == "parallel":
        obs, _ = env.reset(seed=seed)
        check()
        for _ in range(max_steps):
            if not env.agents:
                break
            obs, *_ = env.step(parallel_actions(obs, env.agents, rng))
            check()
    else:
        env.reset(seed=seed)
        check()
        aec_random_steps(env, rng, max_steps, check)
    assert not env.agents, f"{spec.name}: no end in {max_steps} steps"
    return hooks.game(env)


@by_game
def test_random_games_keep_every_invariant_after_every_step(spec):
    hooks = hooks_of(spec)
    for players in sorted({spec.min_players, spec.max_players}):
        for seed in (7, 8):
            steps = []
            play_out(
                spec,
                hooks,
                seed,
                players,
                after=lambda game, steps=steps: (hooks.check(game), steps.append(1)),
            )
            assert len(steps) > 10, (players, seed)


@by_game
def test_records_round_trip(spec):
    hooks = hooks_of(spec)
    if hooks.to_record is None:
        pytest.skip(f"{spec.name} has no game records")
    for players in sorted({spec.min_players, spec.max_players}):
        game = play_out(spec, hooks, 9, players)
        record = json.loads(json.dumps(hooks.to_record(game)))
        assert hooks.digest(hooks.from_record(record)) == hooks.digest(game), players
