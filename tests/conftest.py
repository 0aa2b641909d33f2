"""Shared test helpers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent


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
