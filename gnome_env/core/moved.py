"""Old module paths that keep working after a move: ``import gnome_env.engine`` gives the very
module object of ``gnome_env.gnoming.engine`` (not a copy), so classes, isinstance checks,
module state and pickled references stay one and the same.

Each top-level package calls :func:`install` with its table of ``old dotted name -> new dotted
name``; a finder on ``sys.meta_path`` answers the old names by importing the new module. The
alias is resolved on first import only, so nothing is imported before it is asked for.
``python -m OLD`` works too (the finder hands runpy the new module's code).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Mapping
from types import ModuleType

_TABLE: dict[str, str] = {}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, new_name: str) -> None:
        self.new_name = new_name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.new_name)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the new module is already imported."""

    def get_code(self, fullname: str):  # runpy (``python -m OLD``) asks for the code
        spec = importlib.util.find_spec(self.new_name)
        if spec is None or spec.loader is None:  # pragma: no cover - the table names real modules
            raise ImportError(f"{fullname} moved to {self.new_name}, which cannot be found")
        return spec.loader.get_code(self.new_name)  # type: ignore[attr-defined]


class _AliasFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        new_name = _TABLE.get(fullname)
        if new_name is None:
            return None
        real = importlib.util.find_spec(new_name)
        if real is None:  # pragma: no cover
            return None
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(new_name), is_package=False)
        if real.submodule_search_locations is not None:
            spec.submodule_search_locations = list(real.submodule_search_locations)
        return spec


_FINDER = _AliasFinder()


def install(table: Mapping[str, str]) -> None:
    """Make every old name in ``table`` import as its new module (idempotent)."""
    _TABLE.update(table)
    if _FINDER not in sys.meta_path:
        sys.meta_path.append(_FINDER)


def moved_modules() -> dict[str, str]:
    """Every old module path registered so far and where it now lives."""
    return dict(_TABLE)
