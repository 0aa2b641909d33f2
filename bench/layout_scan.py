"""Size figures of the source tree: functions over 50 and over 100 lines, the lines of the
``gnome`` entry-point module, and lines per game and per layer.

    python bench/layout_scan.py                 # this checkout
    python bench/layout_scan.py --root OLD_TREE # another checkout (e.g. a git worktree)
    python bench/layout_scan.py --json

It reads both layouts: the sibling one (``<layer>/<game>/``, ``<layer>/core/``) and the
one-game layout before it (Gnoming's modules loose at the top of each layer, the other games
in ``<layer>/nerts/``, ``<layer>/ginny_o/`` and ``training/<game>_ppo.py``). Lines are
physical lines of ``.py`` files in ``gnome_env/``, ``agents/`` and ``training/``.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

LAYERS = ("gnome_env", "agents", "training")
GAMES = ("gnoming", "nerts", "ginny_o")
#: shared modules of the one-game layout (everything else loose at the top was Gnoming's)
OLD_SHARED = {
    "gnome_env/__init__.py",
    "gnome_env/rng.py",
    "gnome_env/_jit.py",
    "gnome_env/_draw.py",
    "agents/__init__.py",
    "agents/arena_core.py",
    "agents/checkpoint_io.py",
    "training/__init__.py",
    "training/config.py",
}
OLD_GAME_FILES = {"training/nerts_ppo.py": "nerts", "training/ginny_ppo.py": "ginny_o"}


def owner(rel: str) -> str:
    """``gnoming``, ``nerts``, ``ginny_o`` or ``shared`` for a file path relative to the root."""
    parts = rel.split("/")
    if len(parts) > 2 and parts[1] in GAMES:
        return parts[1]
    if rel in OLD_GAME_FILES:
        return OLD_GAME_FILES[rel]
    if len(parts) > 2 and parts[1] in ("core", "app"):
        return "shared"
    if rel in OLD_SHARED or rel in ("gnome_env/registry.py",):
        return "shared"
    if parts[0] == "training" and parts[1] == "ppo":  # the old Gnoming PPO package
        return "gnoming"
    return "gnoming" if len(parts) == 2 or parts[1] not in ("core", "app") else "shared"


def functions(path: Path) -> list[tuple[str, int]]:
    """``(qualified name, lines)`` of every function and method in a file."""
    tree = ast.parse(path.read_text())
    out: list[tuple[str, int]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([d.lineno for d in child.decorator_list] + [child.lineno])
                out.append((prefix + child.name, child.end_lineno - start + 1))
                walk(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                walk(child, prefix + child.name + ".")

    walk(tree, "")
    return out


def scan(root: Path) -> dict:
    per_game = dict.fromkeys((*GAMES, "shared"), 0)
    per_layer = dict.fromkeys(LAYERS, 0)
    long50: list[tuple[str, int]] = []
    long100: list[tuple[str, int]] = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            n = len(path.read_text().splitlines())
            per_game[owner(rel)] += n
            per_layer[layer] += n
            for name, length in functions(path):
                if length > 50:
                    long50.append((f"{rel}:{name}", length))
                if length > 100:
                    long100.append((f"{rel}:{name}", length))
    cli = root / "training" / "app" / "cli.py"
    return {
        "root": str(root),
        "functions_over_50": len(long50),
        "functions_over_100": len(long100),
        "over_100": sorted(long100, key=lambda x: -x[1]),
        "entry_point_lines": len(cli.read_text().splitlines()) if cli.exists() else None,
        "lines_per_game": per_game,
        "lines_per_layer": per_layer,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    root = Path(args.root)
    if not all((root / layer).is_dir() for layer in LAYERS):
        parser.error(f"--root {root}: not a checkout (needs {', '.join(LAYERS)}/)")
    figures = scan(root)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"tree: {figures['root']}")
    print(f"functions over 50 lines: {figures['functions_over_50']}")
    print(f"functions over 100 lines: {figures['functions_over_100']}")
    for name, length in figures["over_100"]:
        print(f"  {length:4d}  {name}")
    print(f"entry-point module (training/app/cli.py): {figures['entry_point_lines']} lines")
    print("lines per game: " + ", ".join(f"{k} {v}" for k, v in figures["lines_per_game"].items()))
    print(
        "lines per layer: " + ", ".join(f"{k} {v}" for k, v in figures["lines_per_layer"].items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
