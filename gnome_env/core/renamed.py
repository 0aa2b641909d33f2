"""Old spellings that keep working after the one-vocabulary rename (docs/architecture.md):
each warns once per process with a ``DeprecationWarning`` naming the new spelling.

* :func:`old_method` / :func:`old_property`: an engine's ``apply`` -> ``step``,
  ``is_over`` -> ``game_over``, ``order_keys`` -> ``ranking_keys``;
* :func:`rename_keys`: a keyword or mapping key (``players`` -> ``num_players``,
  ``reward`` -> ``reward_mode``), refusing both spellings at once;
* :func:`renamed_fields`: a config dataclass built with an old field name, or asked for it.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

_WARNED: set[tuple[str, str]] = set()
T = TypeVar("T")


def warn_renamed(where: str, old: str, new: str, stacklevel: int = 3) -> None:
    """One ``DeprecationWarning`` per process for ``where``'s old name ``old``."""
    if (where, old) in _WARNED:
        return
    _WARNED.add((where, old))
    warnings.warn(
        f"{where}: {old!r} is renamed {new!r}; the old name still works but will be removed",
        DeprecationWarning,
        stacklevel=stacklevel,
    )


def rename_keys(
    where: str, values: Mapping[str, Any], renames: Mapping[str, str]
) -> dict[str, Any]:
    """``values`` with every old key of ``renames`` under its new name (warning once);
    both spellings with different values is a ``ValueError``."""
    out = dict(values)
    for old, new in renames.items():
        if old in out:
            if new in out and out[new] != out[old]:
                raise ValueError(
                    f"{where}: {new}={out[new]!r} and its old name {old}={out[old]!r} disagree; "
                    f"give {new!r} only"
                )
            warn_renamed(where, old, new, stacklevel=4)
            out[new] = out.pop(old)
    return out


def old_method(new: str, old: str, owner: str) -> Callable[..., Any]:
    """A method named ``old`` that warns once and calls ``new``."""

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        warn_renamed(owner, old, new)
        return getattr(self, new)(*args, **kwargs)

    method.__name__ = old
    method.__doc__ = f"Old name of :meth:`{new}` (warns once)."
    return method


def old_property(new: str, old: str, owner: str) -> property:
    """A read-only property named ``old`` that warns once and reads ``new``."""

    def getter(self: Any) -> Any:
        warn_renamed(owner, old, new)
        return getattr(self, new)

    return property(getter, doc=f"Old name of ``{new}`` (warns once).")


def renamed_fields(**renames: str) -> Callable[[type[T]], type[T]]:
    """Class decorator (above ``@dataclass``): the constructor accepts each old field name
    (``players=3`` for ``num_players=3``) and the old name reads the new field, both warning
    once. ``PlainConfig.from_dict`` honours the same table (``RENAMED``)."""

    def decorate(cls: type[T]) -> type[T]:
        init = cls.__init__
        title = getattr(cls, "__name__", "config")

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **rename_keys(title, kwargs, renames))

        cls.__init__ = __init__  # type: ignore[method-assign]
        cls.RENAMED = {**getattr(cls, "RENAMED", {}), **renames}  # type: ignore[attr-defined]
        for old, new in renames.items():
            setattr(cls, old, old_property(new, old, title))
        return cls

    return decorate


#: The env keywords renamed by the one vocabulary (Nerts and Ginny-O envs).
ENV_KEYWORDS = {"players": "num_players", "reward": "reward_mode"}


def env_keywords(
    owner: str, rules: Mapping[str, Any], num_players: Any, reward_mode: Any
) -> tuple[Any, Any, dict[str, Any]]:
    """``(num_players, reward_mode, other rules)`` of an env's keywords, the old spellings
    (:data:`ENV_KEYWORDS`) taken with a warning."""
    rest = rename_keys(owner, rules, ENV_KEYWORDS)
    return rest.pop("num_players", num_players), rest.pop("reward_mode", reward_mode), rest
