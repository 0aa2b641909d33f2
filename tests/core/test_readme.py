"""The README's Python snippets run as written (each in a fresh namespace)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
SNIPPETS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_has_the_aec_gymnasium_and_engine_snippets():
    assert len(SNIPPETS) == 3
    assert "gnoming_a_round_v1.env(" in SNIPPETS[0]
    assert "MaskablePPO" in SNIPPETS[1]
    assert "Game(RulesConfig(" in SNIPPETS[2]


@pytest.mark.parametrize("index", range(len(SNIPPETS)))
def test_readme_snippet_runs(index, capsys):
    if "sb3_contrib" in SNIPPETS[index]:
        pytest.importorskip("sb3_contrib")
    exec(compile(SNIPPETS[index], f"README.md snippet {index}", "exec"), {})
    out = capsys.readouterr().out
    assert out.strip(), "every snippet prints its result"


def test_readme_commands_match_ci():
    ci = (README.parent / ".ci" / "run").read_text()
    text = README.read_text()
    assert ".venv/bin/python -m pytest -q" in text and ".venv/bin/python -m pytest -q" in ci
    assert 'pip install -e ".[train,dev]"' in text and 'pip install -q -e ".[train,dev]"' in ci
    main_job = "gnome train --config configs/quickstart.yaml"
    assert main_job in text.split("Run the tests:")[0]  # the setup-and-run command
    assert main_job in ci
