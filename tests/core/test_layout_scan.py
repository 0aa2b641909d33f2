"""bench/layout_scan.py: the size figures of issue #30 item 9, on a tree built here."""

from __future__ import annotations

from conftest import bench_script


def _scan_module():
    return bench_script("layout_scan")


def _function(name: str, body_lines: int) -> str:
    return f"def {name}():\n" + "    x = 1\n" * (body_lines - 1)


def test_counts_long_functions_entry_point_and_lines_per_game(tmp_path):
    files = {
        "gnome_env/core/rng.py": _function("f", 120),  # shared, one over 100
        "gnome_env/nerts/engine.py": _function("g", 60) + _function("h", 10),  # one over 50
        "agents/gnoming/bots.py": "class A:\n"
        + "    "
        + _function("m", 51).replace("\n", "\n    "),
        "training/app/cli.py": "x = 1\n" * 7,
        "training/ginny_ppo.py": "y = 2\n" * 3,  # the one-game layout's Ginny-O trainer
        "gnome_env/engine.py": "z = 3\n" * 5,  # loose at the top: Gnoming's (old layout)
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    figures = _scan_module().scan(tmp_path)
    assert figures["functions_over_100"] == 1
    assert figures["functions_over_50"] == 3  # f (120), g (60), A.m (51)
    assert figures["entry_point_lines"] == 7
    assert figures["lines_per_game"] == {
        "gnoming": 53 + 5,
        "nerts": 70,
        "ginny_o": 3,
        "shared": 120 + 7,
    }
