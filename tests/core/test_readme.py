"""The Python snippets of the README and of docs/gnoming.md (where the README's API tour
moved) run as written, each in a fresh namespace; the README's two commands are CI's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
# the pages whose ```python blocks are executed here
PAGES = [README, ROOT / "docs" / "gnoming.md"]
SNIPPETS = [
    (page.relative_to(ROOT).as_posix(), index, code)
    for page in PAGES
    for index, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S))
]


def test_the_aec_gymnasium_and_engine_snippets_are_covered():
    codes = [code for _, _, code in SNIPPETS]
    assert any("gnoming_a_round_v1.env(" in code for code in codes)
    assert any("MaskablePPO" in code for code in codes)
    assert any("Game(RulesConfig(" in code for code in codes)


@pytest.mark.parametrize(
    ("page", "index", "code"), SNIPPETS, ids=[f"{page}-{index}" for page, index, _ in SNIPPETS]
)
def test_snippet_runs(page, index, code, capsys):
    if "sb3_contrib" in code:
        pytest.importorskip("sb3_contrib")
    exec(compile(code, f"{page} snippet {index}", "exec"), {})
    out = capsys.readouterr().out
    assert out.strip(), "every snippet prints its result"


def test_readme_commands_match_ci():
    ci = (ROOT / ".ci" / "run").read_text()
    text = README.read_text()
    assert ".venv/bin/python -m pytest -q" in text and ".venv/bin/python -m pytest -q" in ci
    assert 'pip install -e ".[train,dev]"' in text and 'pip install -q -e ".[train,dev]"' in ci
    main_job = "gnome train --config configs/quickstart.yaml"
    assert main_job in text.split("Run the tests:")[0]  # the setup-and-run command
    assert main_job in ci
