"""Lazy package exports: a package names what it exports and where from, and a name is
imported only when first used (PEP 562), so importing one game never imports another."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``. ``exports`` maps an exported name to
    ``"module"`` (the name is that module) or ``"module:attribute"``."""

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module_name, _, attribute = target.partition(":")
        value = importlib.import_module(module_name)
        if attribute:
            value = getattr(value, attribute)
        return value

    def __dir__() -> list[str]:
        return sorted(exports)

    return __getattr__, __dir__
