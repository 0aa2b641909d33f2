"""bench/_script.py: a bench script's exit status is its main()'s, and Ctrl-C ends it with a
one-line message instead of a traceback."""

from __future__ import annotations

import pytest
from conftest import bench_script


def test_run_exits_with_mains_status_and_says_interrupted_on_ctrl_c():
    run = bench_script("_script").run
    with pytest.raises(SystemExit) as done:
        run(lambda: 3)
    assert done.value.code == 3

    def stopped() -> int:
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as stop:
        run(stopped)
    assert stop.value.code == "interrupted"
