"""The game registry, the descriptors and the layout rules of docs/architecture.md: games are
siblings over one core, no game imports another, old module paths are the moved modules."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gnome_env.core.spec import GameSpec, load_ref
from gnome_env.registry import GAME_PACKAGES, game_names, games, get_game

ROOT = Path(__file__).resolve().parents[2]
GAMES = game_names()
LAYERS = ("gnome_env", "agents", "training")


def test_every_registered_package_has_one_spec_named_after_its_folder():
    assert GAMES == ("gnoming", "nerts", "ginny_o")
    for package, spec in zip(GAME_PACKAGES, games(), strict=True):
        assert isinstance(spec, GameSpec)
        assert package == f"gnome_env.{spec.name}"
        assert spec.min_players <= spec.default_players <= spec.max_players


def test_get_game_names_the_registered_games_when_asked_for_another():
    assert get_game("nerts").title == "Nerts"
    with pytest.raises(
        ValueError, match="game='chess' is not allowed: must be one of gnoming, nerts, ginny_o"
    ):
        get_game("chess")


@pytest.mark.parametrize("name", GAMES)
def test_every_reference_of_a_descriptor_resolves(name):
    spec = get_game(name)
    refs = [spec.config, spec.make_agent, spec.known_specs, spec.arena]
    refs += list(spec.envs.values()) + list(spec.trainers.values())
    refs += list(spec.commands.values()) + [r.entry_point for r in spec.registrations]
    for ref in refs:
        assert load_ref(ref) is not None, ref
    known = load_ref(spec.known_specs)()
    assert set(spec.bots) <= set(known), (spec.bots, known)
    assert load_ref(spec.arena).name == name
    assert (load_ref(spec.arena).min_players, load_ref(spec.arena).max_players) == (
        spec.min_players,
        spec.max_players,
    )
    for policy in spec.shipped:
        path = policy.spec.partition(":")[2]
        assert (ROOT / path).is_file(), policy


def test_load_ref_refuses_a_reference_without_an_attribute():
    with pytest.raises(ValueError, match=r"must be 'package\.module:attribute'"):
        load_ref("gnome_env.registry")


def _imports(path: Path) -> set[str]:
    """Every module a file imports (absolute names; relative imports resolved)."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_no_game_imports_another_game(layer):
    offenders = []
    for game in GAMES:
        folder = ROOT / layer / game
        if not folder.is_dir():
            continue
        others = [g for g in GAMES if g != game]
        for path in folder.rglob("*.py"):
            for name in _imports(path):
                parts = name.split(".")
                if len(parts) > 1 and parts[0] in LAYERS and parts[1] in others:
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
                # the old top-level paths are Gnoming's modules under another name
                if game != "gnoming" and parts[0] in LAYERS and len(parts) > 1:
                    table = importlib.import_module(parts[0]).__dict__.get("MOVED", {})
                    if ".".join(parts[:2]) in table:
                        offenders.append(f"{path.relative_to(ROOT)} imports {name} (moved)")
    assert not offenders, "\n".join(offenders)


def test_dependencies_point_one_way():
    """gnome_env imports neither agents nor training; agents does not import training."""
    offenders = []
    for layer, forbidden in (("gnome_env", ("agents", "training")), ("agents", ("training",))):
        for path in (ROOT / layer).rglob("*.py"):
            for name in _imports(path):
                if name.split(".")[0] in forbidden:
                    offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not offenders, "\n".join(offenders)


def test_importing_one_game_imports_no_other():
    code = (
        "import sys, gnome_env.nerts, gnome_env.nerts.nerts_v0, agents.nerts.arena;"
        "import gnome_env.ginny_o.ginny_o_v0, agents.ginny_o.arena;"
        "print(sorted(m for m in sys.modules if '.gnoming.' in m and not m.endswith('.spec')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    # only the lazy package __init__s (gnome_env.gnoming, agents.gnoming) and the descriptor
    assert out.stdout.strip() == "[]", out.stdout


@pytest.mark.parametrize("package", LAYERS)
def test_every_old_module_path_is_the_moved_module_itself(package):
    table = importlib.import_module(package).MOVED
    assert table
    for old, new in table.items():
        try:
            moved = importlib.import_module(new)
        except ImportError as err:  # v0 (replaced) and the extras not installed here
            with pytest.raises(ImportError, match=re.escape(str(err)[:40])):
                importlib.import_module(old)
            continue
        assert importlib.import_module(old) is moved, old


def test_old_public_names_keep_working():
    import gnome_env.vector

    import gnome_env
    from gnome_env import Game, RulesConfig, gnoming_a_round_v1
    from gnome_env.gnoming.engine import Game as MovedGame

    assert Game is MovedGame
    assert RulesConfig is importlib.import_module("gnome_env.gnoming.config").RulesConfig
    assert gnoming_a_round_v1 is importlib.import_module("gnome_env.gnoming.gnoming_a_round_v1")
    assert (
        gnome_env.vector.VectorGame
        is importlib.import_module("gnome_env.gnoming.vector").VectorGame
    )
    from agents.arena import run_arena

    from agents.core.arena import run_arena as core_run_arena

    assert run_arena is core_run_arena
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        gnome_env.no_such_name  # noqa: B018


def test_python_dash_m_still_runs_a_moved_trainer():
    out = subprocess.run(
        [sys.executable, "-m", "training.nerts_ppo", "--help"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "--total_steps" in out.stdout
