"""``gnome train`` and ``gnome distill``: the trainer a config's ``trainer:`` key names, among
the trainers of every registered game (``GameSpec.trainers``)."""

from __future__ import annotations

import sys
from pathlib import Path

from gnome_env.core.spec import GameSpec
from gnome_env.registry import games

#: The trainer of a ``gnome train`` config without a ``trainer:`` key.
DEFAULT_TRAINER = "ppo"
#: The trainer of ``gnome distill``.
DISTILL_TRAINER = "qdistill"


def _config_trainer(argv: list[str]) -> str | None:
    """The ``trainer`` key of the YAML file given by ``--config`` in ``argv``, or without
    ``--config`` of ``DIR/config.yaml`` for ``--resume DIR`` (every trainer saves its config
    there). None: no config, no such key, or a file the trainer's own parser will report on."""
    path = resume = None
    for i, arg in enumerate(argv):
        if arg == "--config" and i + 1 < len(argv):
            path = argv[i + 1]
        elif arg.startswith("--config="):
            path = arg.split("=", 1)[1]
        elif arg == "--resume" and i + 1 < len(argv):
            resume = argv[i + 1]
        elif arg.startswith("--resume="):
            resume = arg.split("=", 1)[1]
    if path is None and resume is not None:
        saved = Path(resume) / "config.yaml"
        path = str(saved) if saved.is_file() else None
    if path is None:
        return None
    from training.core.config import ConfigError, read_yaml

    try:
        value = read_yaml(path).get("trainer")
    except ConfigError:
        return None
    return None if value is None else str(value)


def trainers() -> dict[str, tuple[GameSpec, str]]:
    """Every trainer of every registered game: name -> (its game, its ``main`` reference)."""
    return {name: (spec, ref) for spec in games() for name, ref in spec.trainers.items()}


def trainers_help() -> str:
    """What ``gnome train --help`` says before the default trainer's options."""
    lines = [
        "gnome train --config FILE [--FIELD VALUE ...] | --resume DIR",
        "",
        "The config's trainer: key picks the trainer (no key: "
        f"{DEFAULT_TRAINER}); each has its own fields (gnome train --config FILE --help):",
    ]
    for name, (spec, ref) in trainers().items():
        lines.append(f"  trainer: {name:<15} {spec.title} ({spec.name}), {ref.split(':')[0]}")
    lines += ["", f"The options of the default trainer ({DEFAULT_TRAINER}):", ""]
    return "\n".join(lines)


def run_train(argv: list[str]) -> int:
    """``gnome train``: the trainer named by the config's ``trainer:`` key."""
    name = _config_trainer(argv) or DEFAULT_TRAINER
    table = trainers()
    if name not in table:
        print(
            f"gnome train: error: the config's trainer: {name!r} is not known; allowed: "
            f"{', '.join(table)} (leave the key out for {DEFAULT_TRAINER})",
            file=sys.stderr,
        )
        return 2
    if name == DEFAULT_TRAINER and _config_trainer(argv) is None and {"-h", "--help"} & set(argv):
        print(trainers_help(), flush=True)
    spec, _ = table[name]
    return spec.load("trainers", name)(argv)
