"""Shared test helpers."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.testing import KernelRulesGame

TESTS = Path(__file__).resolve().parent
#: The test folders (tests/core, tests/<game>): a child interpreter imports test modules from them.
TEST_DIRS = [str(d) for d in sorted(TESTS.iterdir()) if d.is_dir() and d.name[0] not in "._"]


def _cpuinfo(field: str) -> str | None:
    """The value of the first ``field`` line of /proc/cpuinfo, or None (no such line, or no
    /proc/cpuinfo)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith(field):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def cpu_vendor() -> str:
    """The processor's vendor id from /proc/cpuinfo (``GenuineIntel``, ``AuthenticAMD``), or
    ``unknown``: torch's and numba's kernels differ between processors in their last bits,
    so a pinned weights digest holds for the processor it was recorded on."""
    return _cpuinfo("vendor_id") or "unknown"


def cpu_isa() -> str:
    """``avx512`` when the processor has AVX-512 (``avx512f`` in /proc/cpuinfo's flags), else
    ``avx2`` or ``other``: torch's CPU kernels take other code paths, and round differently,
    with and without AVX-512, so two processors of one vendor can give different digests
    (an AMD EPYC without AVX-512 did not reproduce the AMD pins recorded on another one)."""
    flags = (_cpuinfo("flags") or "").split()
    return "avx512" if "avx512f" in flags else "avx2" if "avx2" in flags else "other"


def pinned_digest(table: dict[str, str], what: str) -> str:
    """The digest ``table`` pins for this machine's processor: the entry ``VENDOR/ISA``
    (``AuthenticAMD/avx2``, :func:`cpu_isa`) if there is one, else the entry ``VENDOR``;
    skips (naming both, so that someone can record it) on a processor the table does not
    know."""
    vendor, isa = cpu_vendor(), cpu_isa()
    for key in (f"{vendor}/{isa}", vendor):
        if key in table:
            return table[key]
    pytest.skip(f"{what}: no digest recorded for a {vendor}/{isa} processor (known: {list(table)})")


#: The engines every rule test (tests/test_rules_*.py) runs on: the pure-Python reference
#: and the kernels of gnome_env.gnoming._kernels (through KernelGame; compiled with numba, or plain
#: Python under GNOME_NO_NUMBA=1).
ENGINES = {
    "game": Game,
    "kernel": KernelRulesGame,
}


@pytest.fixture(autouse=True, scope="session")
def _sb3_logs_in_a_temporary_folder(tmp_path_factory):
    """Stable-Baselines3 makes a folder ``$TMPDIR/SB3-<time>`` at every ``learn()`` unless
    ``SB3_LOGDIR`` names one: the tests' go under pytest's temporary folder instead (child
    processes inherit it)."""
    before = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))
    yield
    if before is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = before


@pytest.fixture(params=list(ENGINES))
def engine(request):
    """The engine a rule test plays on, built like ``Game(config, seed, stacked_decks=...)``:
    :class:`gnome_env.gnoming.engine.Game` (id ``game``) or
    :class:`gnome_env.gnoming.testing.KernelRulesGame`
    (id ``kernel``: Game's API read back from the kernel state after every kernel step)."""
    return ENGINES[request.param]


@pytest.fixture
def run_uncompiled():
    """``run(module, expression)``: the printed value of ``expression`` evaluated after
    ``from <module> import *`` in a fresh interpreter with ``GNOME_NO_NUMBA=1`` (the kernels
    run as plain Python; the child checks they really are uncompiled)."""

    def run(module: str, expression: str) -> str:
        code = (
            "import sys; sys.path[:0] = sys.argv[1:];"
            "from gnome_env import _kernels as k; assert not k.COMPILED;"
            f"from {module} import *; print({expression})"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, *TEST_DIRS],
            env=dict(os.environ, GNOME_NO_NUMBA="1"),
            capture_output=True,
            text=True,
            check=True,
            cwd=TESTS.parent,
        )
        return out.stdout.strip()

    return run


def nerts_agent_plays_legal_moves(agent, config, seed: int, steps: int):
    """Seat ``agent`` (a Nerts agent) in every seat of ``NertsGame(config, seed)`` for up to
    ``steps`` steps (or the hand's end), asserting every move is in the seat's legal set;
    returns the game where it stopped."""
    from gnome_env.nerts import NertsGame
    from gnome_env.nerts.information import NertsView

    game = NertsGame(config, seed)
    for _ in range(steps):
        views = [NertsView.from_game(game, s) for s in range(config.num_players)]
        actions = [agent.decide(v) for v in views]
        assert all(a in v.legal_actions for a, v in zip(actions, views, strict=True))
        game.step(actions)
        if game.hand_over:
            break
    return game


def student_pilot_matches_agents(path, games: int, seed: int, steps: int = 80) -> list[tuple]:
    """Play the Nerts checkpoint ``path`` in seat 0 of ``games`` two-player games of
    bench/nerts_student_pilot.py (seat 1 the compiled expert) for ``steps`` steps, asserting
    at every step that the pilot's move is what a ``NertsPolicyAgent`` that watched every
    view of that game decides; returns every ``(move, left the expert)`` of seat 0."""
    import numpy as np

    from agents.nerts import _bot_kernels as BK
    from agents.nerts.learned import NertsPolicyAgent, network_from_checkpoint, read_checkpoint
    from gnome_env.nerts.information import NertsView

    script = bench_script("nerts_student_pilot")
    net = network_from_checkpoint(read_checkpoint(path))
    table = script.student_table(net, 0.0)(2, games, seed)
    config = table.engine.config
    agents: dict = {}
    who = np.zeros((games, 6), np.int64)
    who[:, 0] = 1
    moves = []
    for _ in range(steps):
        out, dev = np.zeros((games, 6), np.int64), np.zeros((games, 6), np.int64)
        table.search(who, who, {}, out, dev)
        joint = np.zeros((games, 6), np.int64)
        kinds = np.zeros((games, 6), np.int64)
        kinds[:, 1] = BK.KIND_EXPERT
        table.experts(kinds, joint)
        for b in range(games):
            game = table.engine.game(b)
            if game.steps == 0 or b not in agents:
                agents[b] = NertsPolicyAgent(path, 0, config)
            assert out[b, 0] == agents[b].decide(NertsView.from_game(game, 0))
            moves.append((int(out[b, 0]), bool(dev[b, 0])))
        joint[:, 0] = out[:, 0]
        table.step(joint)
    return moves


def policy_and_expert_moves(spec: str, seed: int) -> list[tuple[int, int]]:
    """``(the agent's move, the expert's move)`` for seat 0 at every step with a choice of
    one expert-played hand at 2, 4 and 6 players (game seed ``seed + n``), the Nerts agent
    of ``spec`` watching seat 0's every view."""
    from agents.nerts.expert import ExpertNertsAgent
    from agents.nerts.registry import make_nerts_agent
    from gnome_env.nerts import NertsConfig, NertsGame
    from gnome_env.nerts.information import NertsView

    out = []
    for n in (2, 4, 6):
        config = NertsConfig(num_players=n)
        agent = make_nerts_agent(spec, 0, config)
        experts = [ExpertNertsAgent(0, config) for _ in range(n)]
        game = NertsGame(config, seed + n)
        while not game.hand_over:
            views = [NertsView.from_game(game, s) for s in range(n)]
            moves = [e.decide(v) for e, v in zip(experts, views, strict=True)]
            mine = agent.decide(views[0])  # (every step: a memory agent keeps its memory)
            assert mine in views[0].legal_actions
            if len(views[0].legal_actions) > 1:
                out.append((mine, moves[0]))
            game.step(moves)
    return out


def aec_snapshot(env) -> tuple:
    """What ``last()`` and the reward dicts of an AEC env show now (for comparing two envs
    step by step; repr tells every float bit apart)."""
    if not env.agents:
        return ("no agents", dict(env.rewards))
    obs, reward, term, trunc, info = env.last()
    return (
        env.agent_selection,
        env.num_agents,
        obs["observation"].tobytes(),
        obs["action_mask"].tobytes(),
        reward,
        term,
        trunc,
        info,
        dict(env.rewards),
        dict(env.terminations),
        dict(env.truncations),
        dict(env._cumulative_rewards),
    )


def bench_script(name: str):
    """``bench/<name>.py`` loaded as a module (the bench files are scripts, not package
    modules). The bench directory goes on ``sys.path`` first, as it is for a script run
    from the command line, so that a script importing a sibling loads the same way."""
    bench = str(TESTS.parent / "bench")
    if bench not in sys.path:
        sys.path.insert(0, bench)
    spec = importlib.util.spec_from_file_location(name, TESTS.parent / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
