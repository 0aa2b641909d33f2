"""The layers point one way: training.app -> training -> agents -> gnome_env (imports read
from the source, so a lazy import inside a function counts too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# (package, prefixes it must never import)
RULES = [
    ("gnome_env", ("agents", "training")),
    ("agents", ("training",)),
    ("training", ("training.app",)),
]


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize(("package", "forbidden"), RULES, ids=[r[0] for r in RULES])
def test_no_import_points_upward(package, forbidden):
    files = [p for p in (ROOT / package).rglob("*.py") if "app" not in p.relative_to(ROOT).parts]
    assert len(files) > 3
    bad = sorted(
        f"{path.relative_to(ROOT)} imports {name}"
        for path in files
        for name in _imports(path)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    )
    assert not bad, "\n".join(bad)


def test_the_check_can_fail():
    """The application layer does import the layers below it (the scan sees real imports)."""
    cli = _imports(ROOT / "training" / "app" / "cli.py")
    assert any(name.startswith("training.core") for name in cli)
    assert any(name.startswith("agents") for name in cli)
