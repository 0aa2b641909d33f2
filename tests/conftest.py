"""Shared test helpers."""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from pathlib import Path

import pytest

from gnome_env import _kernels as kernels
from gnome_env.engine import Game
from gnome_env.testing import KernelRulesGame

TESTS = Path(__file__).resolve().parent

# Uncompiled (GNOME_NO_NUMBA=1), the kernels' re-expression of numpy's shuffles (the section
# "numpy's shuffles" of gnome_env._kernels) overflows under NumPy 2 when it is handed a round
# or reshuffle number from the int32 state row (``v <= M32`` in entropy_word): every kernel
# deal after round 0 and every reshuffle fails there, in VectorGame as in KernelGame. That
# section is being replaced separately; until then the kernel leg of a rule test that needs
# such a shuffle is skipped, with this reason, when the kernels run uncompiled.
UNCOMPILED_SHUFFLE_SKIP = (
    "GNOME_NO_NUMBA=1: the uncompiled kernel shuffle (gnome_env._kernels.entropy_word) "
    "overflows on the int32 round/reshuffle number under NumPy 2; the compiled kernel leg "
    "runs this test"
)


def _skip_uncompiled_shuffle_overflow(method):
    def run(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except OverflowError as error:
            frames = {frame.name for frame in traceback.extract_tb(error.__traceback__)}
            if "supply_shuffle" not in frames:
                raise
            pytest.skip(UNCOMPILED_SHUFFLE_SKIP)

    return run


class _UncompiledKernelRulesGame(KernelRulesGame):
    """KernelRulesGame on the plain-Python kernels: skips where their shuffle overflows."""

    __init__ = _skip_uncompiled_shuffle_overflow(KernelRulesGame.__init__)
    apply = _skip_uncompiled_shuffle_overflow(KernelRulesGame.apply)

    def copy(self):
        new = super().copy()
        new.__class__ = _UncompiledKernelRulesGame
        return new


#: The engines every rule test (tests/test_rules_*.py) runs on: the pure-Python reference
#: and the kernels of gnome_env._kernels (through KernelGame; compiled with numba, or plain
#: Python under GNOME_NO_NUMBA=1).
ENGINES = {
    "game": Game,
    "kernel": KernelRulesGame if kernels.COMPILED else _UncompiledKernelRulesGame,
}


@pytest.fixture(params=list(ENGINES))
def engine(request):
    """The engine a rule test plays on, built like ``Game(config, seed, stacked_decks=...)``:
    :class:`gnome_env.engine.Game` (id ``game``) or :class:`gnome_env.testing.KernelRulesGame`
    (id ``kernel``: Game's API read back from the kernel state after every kernel step)."""
    return ENGINES[request.param]


@pytest.fixture
def run_uncompiled():
    """``run(module, expression)``: the printed value of ``expression`` evaluated after
    ``from <module> import *`` in a fresh interpreter with ``GNOME_NO_NUMBA=1`` (the kernels
    run as plain Python; the child checks they really are uncompiled)."""

    def run(module: str, expression: str) -> str:
        code = (
            "import sys; sys.path.insert(0, sys.argv[1]);"
            "from gnome_env import _kernels as k; assert not k.COMPILED;"
            f"from {module} import *; print({expression})"
        )
        out = subprocess.run(
            [sys.executable, "-c", code, str(TESTS)],
            env=dict(os.environ, GNOME_NO_NUMBA="1"),
            capture_output=True,
            text=True,
            check=True,
            cwd=TESTS.parent,
        )
        return out.stdout.strip()

    return run
