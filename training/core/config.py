"""Run configurations: a dataclass per script, filled from a YAML file plus command-line overrides.

Every field of a config dataclass carries its help text in ``metadata["help"]``. A run's
configuration is, in this order of precedence:

1. ``--FIELD VALUE`` on the command line (any field; ``--total-steps`` and ``--total_steps``
   both work; the value is read as YAML, so ``--num-players "[3, 5]"`` gives a list);
2. the YAML file given with ``--config`` (a mapping of field names to values);
3. the dataclass defaults.

Unknown keys, values of the wrong type and values outside their allowed range (checked by
the dataclass's ``validate()``) raise :class:`ConfigError`, naming the field, what was
given and what is allowed. Nothing is read from the environment or from global state.
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import functools
import types
import typing
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from gnome_env.core.config import check_float, check_int

C = TypeVar("C")


class ConfigError(ValueError):
    """A configuration file or override that cannot be used; the message says why."""


class ArgumentParser(argparse.ArgumentParser):
    """The parser of every ``gnome`` command: no prefix matching of long options (a
    mistyped ``--learning_rat`` is an error, not ``--learning_rate``), and an unrecognized
    option gets a "did you mean" naming the closest known ones (of the command and its
    subcommands)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def known_options(self) -> list[str]:
        """The long option strings of this parser and of its subcommands' parsers."""
        found: list[str] = []
        for action in self._actions:
            found += [o for o in action.option_strings if o.startswith("--")]
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    if isinstance(sub, ArgumentParser):
                        found += sub.known_options()
        return sorted(set(found))

    def error(self, message: str) -> typing.NoReturn:
        prefix = "unrecognized arguments: "
        if message.startswith(prefix):
            known = self.known_options()
            hints = []
            for word in message[len(prefix) :].split():
                if word.startswith("--"):
                    name = word.split("=", 1)[0]
                    close = difflib.get_close_matches(name, known, n=3, cutoff=0.6)
                    if close:
                        hints.append(f"{name}: did you mean {' or '.join(close)}?")
            if hints:
                message += " (" + "; ".join(hints) + ")"
        usage = self.format_usage()
        if usage.count("\n") > 3:  # a long option list: point at --help instead
            usage = f"usage: {self.prog} [options]; {self.prog} --help lists them\n"
        self.exit(2, f"{usage}{self.prog}: error: {message}\n")


def renamed_fields(**aliases: str) -> Any:
    """Class decorator of a config dataclass: ``renamed_fields(players="num_players")`` lets
    the old name ``players`` still be given -- to the constructor, in a YAML file, as
    ``--players`` and in a saved config (a run directory's config.yaml, a checkpoint's
    config dict) -- with a DeprecationWarning naming the new one; giving both is an error."""

    def wrap(cls: type[C]) -> type[C]:
        cls.__field_aliases__ = dict(aliases)  # type: ignore[attr-defined]
        init = cls.__init__

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            init(self, *args, **resolve_aliases(cls, kwargs, cls.__name__))

        cls.__init__ = __init__  # type: ignore[method-assign]
        return cls

    return wrap


def field_aliases(cls: type) -> dict[str, str]:
    """Old field name -> new field name of a config dataclass (:func:`renamed_fields`)."""
    return dict(getattr(cls, "__field_aliases__", {}))


def resolve_aliases(cls: type, data: Mapping[str, Any], source: str) -> dict[str, Any]:
    """``data`` with the old field names of ``cls`` replaced by the new ones (one
    DeprecationWarning per old name given); an old and its new name together are a
    ConfigError."""
    out = dict(data)
    for old, new in field_aliases(cls).items():
        if old not in out:
            continue
        if new in out:
            raise ConfigError(
                f"{source}: both {old!r} and {new!r} are given; {old!r} is the old name of "
                f"{new!r}: give only {new!r}"
            )
        warnings.warn(
            f"{source}: the field {old!r} is deprecated; it is now called {new!r}",
            DeprecationWarning,
            stacklevel=3,
        )
        out[new] = out.pop(old)
    return out


def _type_name(tp: Any) -> str:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return " or ".join(_type_name(a) for a in typing.get_args(tp))
    if origin in (list, tuple, Sequence):
        (arg, *_) = typing.get_args(tp) or (Any,)
        return f"a list of {_type_name(arg)}"
    if tp is type(None):
        return "null"
    return {int: "an integer", float: "a number", str: "a string", bool: "true/false"}.get(
        tp, getattr(tp, "__name__", str(tp))
    )


def _coerce(name: str, tp: Any, value: Any) -> Any:
    """``value`` as type ``tp`` (int, float, str, bool, list[...], X | None), else ConfigError."""
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(tp)
        if value is None and type(None) in args:
            return None
        for arg in args:
            if arg is type(None):
                continue
            try:
                return _coerce(name, arg, value)
            except ConfigError:
                continue
        raise ConfigError(f"{name}={value!r} is not allowed: must be {_type_name(tp)}")
    if origin in (list, tuple):
        (arg,) = typing.get_args(tp)[:1] or (Any,)
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
            raise ConfigError(f"{name}={value!r} is not allowed: must be {_type_name(tp)}")
        return [_coerce(f"{name}[{i}]", arg, v) for i, v in enumerate(value)]
    if tp is bool:
        if isinstance(value, bool):
            return value
    elif tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            return int(value)  # 1e6 in YAML is a float
    elif tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    elif tp is str:
        if isinstance(value, str):
            return value
    elif tp is Any:
        return value
    raise ConfigError(f"{name}={value!r} is not allowed: must be {_type_name(tp)}")


def field_types(cls: type) -> dict[str, Any]:
    """Field name -> resolved type annotation of a config dataclass."""
    hints = typing.get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def from_mapping(cls: type[C], data: Mapping[str, Any], source: str = "config") -> C:
    """A ``cls`` from a mapping of field values (missing fields keep their defaults)."""
    if not isinstance(data, Mapping):
        raise ConfigError(f"{source} must be a mapping of field names to values, got {data!r}")
    types_ = field_types(cls)
    values: dict[str, Any] = {}
    data = resolve_aliases(cls, {str(k).replace("-", "_"): v for k, v in data.items()}, source)
    for key, value in data.items():
        name = key
        if name not in types_:
            close = difflib.get_close_matches(name, types_, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(
                f"{source}: unknown field {key!r}{hint}; allowed fields: {', '.join(types_)}"
            )
        values[name] = _coerce(name, types_[name], value)
    config = cls(**values)
    validate = getattr(config, "validate", None)
    if validate is not None:
        try:
            validate()
        except ConfigError as err:
            raise ConfigError(f"{source}: {err}") from None
    return config


def read_yaml(path: str | Path) -> dict[str, Any]:
    """The mapping in a YAML file; a missing, unreadable or malformed file raises ConfigError."""
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file {str(path)!r} does not exist") from None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"config file {str(path)!r} cannot be read: {err}") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {err}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(
            f"config file {str(path)!r} must hold a mapping of field names to values, "
            f"got {type(data).__name__}"
        )
    return data


def add_field_arguments(parser: argparse.ArgumentParser, cls: type) -> None:
    """Add ``--FIELD VALUE`` (and ``--FIELD-NAME``) for every field of ``cls`` to ``parser``."""
    group = parser.add_argument_group("config fields (override the YAML file; values are YAML)")
    for f in dataclasses.fields(cls):
        flags = [f"--{f.name}"]
        if "_" in f.name:
            flags.append(f"--{f.name.replace('_', '-')}")
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()  # type: ignore[misc]
        group.add_argument(
            *flags,
            dest=f"field__{f.name}",
            default=argparse.SUPPRESS,
            metavar="VALUE",
            help=f"{f.metadata.get('help', '')} (default: {default!r})".replace("%", "%%"),
        )
    for old, new in field_aliases(cls).items():
        flags = [f"--{old}"] + ([f"--{old.replace('_', '-')}"] if "_" in old else [])
        group.add_argument(
            *flags,
            dest=f"field__{old}",
            default=argparse.SUPPRESS,
            metavar="VALUE",
            help=f"deprecated: the old name of --{new}",
        )


def overrides_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The ``--FIELD VALUE`` overrides given on the command line, values parsed as YAML."""
    import yaml

    out: dict[str, Any] = {}
    for key, text in vars(args).items():
        if key.startswith("field__"):
            name = key[len("field__") :]
            try:
                out[name] = yaml.safe_load(text)
            except yaml.YAMLError:
                out[name] = text
            if out[name] is None and text.strip().lower() not in ("null", "none", "~"):
                out[name] = text
    return out


def resume_config(
    cls: type[C],
    saved: Mapping[str, Any],
    overrides: Mapping[str, Any],
    overridable: Sequence[str] | set[str] | frozenset[str],
    source: str,
) -> C:
    """The config a resumed run continues with: the ``saved`` fields with the command
    line's ``overrides``, which may only change the fields in ``overridable`` (any other
    override must equal the saved value, else a :class:`ConfigError` names them)."""
    saved = resolve_aliases(cls, saved, source)
    overrides = resolve_aliases(cls, overrides, "command line")
    bad = sorted(k for k in overrides if k not in overridable and overrides[k] != saved.get(k))
    if bad:
        raise ConfigError(
            f"--resume continues the saved config; these fields cannot change: {', '.join(bad)} "
            f"(allowed: {', '.join(sorted(overridable))})"
        )
    return from_mapping(cls, {**saved, **overrides}, source)


def build_config(
    cls: type[C], path: str | Path | None = None, overrides: Mapping[str, Any] | None = None
) -> C:
    """Defaults, then the YAML file at ``path`` (if any), then ``overrides``; validated."""
    data: dict[str, Any] = read_yaml(path) if path is not None else {}
    source = f"config file {str(path)!r}" if path is not None else "config"
    data = resolve_aliases(cls, {str(k).replace("-", "_"): v for k, v in data.items()}, source)
    if overrides:
        flags = {k.replace("-", "_"): v for k, v in overrides.items()}
        data = {**data, **resolve_aliases(cls, flags, "command line")}
        source = "config (file + command-line overrides)" if path is not None else "overrides"
    return from_mapping(cls, data, source)


def check_at_least(name: str, value: int, low: int) -> None:
    """ConfigError unless the integer ``value`` is >= ``low`` (``check_int``)."""
    try:
        check_int(name, value, low)
    except ValueError as err:
        raise ConfigError(str(err)) from None


def check_in_range(
    name: str, value: float, low: float, high: float | None, *, low_open: bool = False
) -> None:
    """ConfigError unless ``value`` is finite and in range (``check_float``)."""
    try:
        check_float(name, value, low, high, low_open=low_open)
    except ValueError as err:
        raise ConfigError(str(err)) from None


def config_from_command_line(
    cls: type[C], prog: str, description: str, argv: list[str] | None = None
) -> C | None:
    """Parse ``--config FILE`` and ``--FIELD VALUE`` overrides into a validated ``cls``; on a
    bad value print ``error: ...`` to stderr and return None (the caller exits with 2)."""
    import sys

    parser = ArgumentParser(prog=prog, description=description)
    parser.add_argument("--config", default=None, help="YAML file of config fields")
    add_field_arguments(parser, cls)
    args = parser.parse_args(argv)
    try:
        return build_config(cls, args.config, overrides_from_args(args))
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return None


def to_dict(config: Any) -> dict[str, Any]:
    """A config dataclass as a plain dict (lists, not tuples), for YAML and checkpoints."""
    return {f.name: getattr(config, f.name) for f in dataclasses.fields(config)}


def to_yaml(config: Any) -> str:
    """A config dataclass as YAML text that :func:`build_config` reads back to an equal config."""
    import yaml

    return yaml.safe_dump(to_dict(config), sort_keys=False)
