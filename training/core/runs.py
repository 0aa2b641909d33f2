"""What every trainer's ``main()`` shares about its output directory: a new run never
replaces another by accident (:func:`check_new_run`, ``--overwrite``), and Ctrl-C ends with
a note saying which checkpoint to continue from (:func:`interrupted`), no traceback, status
:data:`INTERRUPTED`."""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from training.core.config import ConfigError

#: The files that mark a directory as holding a run.
RUN_FILES = ("checkpoint.pt", "policy.pt", "config.yaml")
#: What ``--overwrite`` removes besides :data:`RUN_FILES`: the other outputs of a run.
RUN_OUTPUTS = (
    "summary.json",
    "history.json",
    "arena.md",
    "arena.json",
    "learning_curve.png",
    "tb",
    "data",
)
#: Exit status after Ctrl-C: 128 + SIGINT, what a shell reports.
INTERRUPTED = 130
OVERWRITE_HELP = (
    "replace the run already in output_dir (its checkpoint, policy, config, summary and data); "
    "without it a new run into a directory that holds one is refused"
)


def existing_run(output_dir: str | Path, markers: Iterable[str] = RUN_FILES) -> list[str]:
    """The run files (``markers``, :data:`RUN_FILES`) in ``output_dir``; empty: no run."""
    out = Path(output_dir)
    return [name for name in markers if (out / name).exists()]


def check_new_run(
    output_dir: str | Path,
    overwrite: bool,
    resumable: bool = True,
    keep: Iterable[str] = (),
    markers: Iterable[str] = RUN_FILES,
) -> None:
    """A new run into ``output_dir``: a :class:`ConfigError` (one line) when the directory
    already holds a run, unless ``overwrite``, which removes the old run's outputs (but the
    names in ``keep``) first."""
    found = existing_run(output_dir, markers)
    if not found:
        return
    out = str(output_dir)
    if not overwrite:
        resume = f"continue it with gnome train --resume {out}, " if resumable else ""
        raise ConfigError(
            f"output_dir {out!r} already holds a run ({', '.join(found)}): {resume}choose "
            "another --output_dir, or pass --overwrite to replace it"
        )
    for name in (*RUN_FILES, *RUN_OUTPUTS):
        path = Path(output_dir) / name
        if name in keep or not path.exists():
            continue
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()


def interrupted(output_dir: str | Path, kind: str = "checkpoint", stream=None) -> int:  # type: ignore[no-untyped-def]
    """After Ctrl-C: say what the run in ``output_dir`` kept and how to go on; returns
    :data:`INTERRUPTED`. ``kind``: ``"checkpoint"`` (a trainer that writes checkpoint.pt)
    or ``"chunks"`` (a generate-then-fit trainer: data chunks are kept)."""
    stream = sys.stderr if stream is None else stream
    out = Path(output_dir)
    note = "\ngnome train: interrupted (Ctrl-C); "
    if kind == "checkpoint":
        ckpt = out / "checkpoint.pt"
        if ckpt.is_file():
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ckpt.stat().st_mtime))
            note += (
                f"the latest checkpoint is {ckpt} (written {when}); continue with "
                f"gnome train --resume {out}"
            )
        else:
            note += (
                f"no checkpoint was written yet ({ckpt} does not exist); start again with "
                "--overwrite (or a lower checkpoint_interval)"
            )
    else:  # "chunks"
        chunks = sorted((out / "data").glob("w*_c*.npz")) if (out / "data").is_dir() else []
        note += (
            f"{len(chunks)} data chunks are kept in {out / 'data'}; continue with "
            f"gnome train --resume {out}"
        )
    print(note, file=stream, flush=True)
    return INTERRUPTED


def config_from_command_line(
    cls: type,
    prog: str,
    description: str,
    argv: list[str] | None = None,
    resumable: bool = True,
    same_run_ignores: Iterable[str] = (),
):  # type: ignore[no-untyped-def]
    """``--config FILE``, ``--FIELD VALUE`` overrides, ``--overwrite`` and (``resumable``)
    ``--resume DIR`` into a validated ``cls`` whose output_dir is safe to write; on bad input
    print ``PROG: error: ...`` to stderr and return None (the caller exits with 2).

    ``--resume DIR`` continues the run saved in ``DIR/config.yaml`` (``--config`` and
    overrides on top). A new run into a directory that holds a run is refused (see
    :func:`check_new_run`) unless the saved config is this one but for the fields in
    ``same_run_ignores`` (e.g. ``stage``: the next stage of the same run)."""
    from training.core.config import (
        ArgumentParser,
        add_field_arguments,
        build_config,
        from_mapping,
        overrides_from_args,
        read_yaml,
        to_dict,
    )

    parser = ArgumentParser(prog=prog, description=description)
    parser.add_argument("--config", default=None, help="YAML file of config fields")
    if resumable:
        parser.add_argument(
            "--resume",
            default=None,
            metavar="DIR",
            help="continue the run in DIR with its saved config (DIR/config.yaml)",
        )
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    add_field_arguments(parser, cls)
    args = parser.parse_args(argv)
    resume = getattr(args, "resume", None)
    try:
        if resume is not None:
            saved = Path(resume) / "config.yaml"
            if not saved.is_file():
                raise ConfigError(f"--resume {resume}: {str(saved)!r} does not exist")
            data = {**read_yaml(saved), **(read_yaml(args.config) if args.config else {})}
            data = {**data, **overrides_from_args(args), "output_dir": str(resume)}
            return from_mapping(cls, data, f"run {str(resume)!r} (saved config + overrides)")
        cfg = build_config(cls, args.config, overrides_from_args(args))
        ignore = {"output_dir", *same_run_ignores}
        saved = Path(cfg.output_dir) / "config.yaml"
        if same_run_ignores and saved.is_file() and not args.overwrite:
            mine = {k: v for k, v in to_dict(cfg).items() if k not in ignore}
            theirs = {k: v for k, v in read_yaml(saved).items() if k not in ignore}
            if {**mine, **theirs} == mine and set(theirs) <= set(mine):
                return cfg  # the same run, e.g. its next stage
        if getattr(cfg, "stage", None) == "fit":
            # a fit (re)fits the data in output_dir: only a fitted policy would be lost
            check_new_run(cfg.output_dir, args.overwrite, resumable, ("data",), ("policy.pt",))
        else:
            check_new_run(cfg.output_dir, args.overwrite, resumable)
        return cfg
    except ConfigError as err:
        print(f"{prog}: error: {err}", file=sys.stderr)
        return None


def run_stages(cfg, stages, numba: str = "") -> int:  # type: ignore[no-untyped-def]
    """A staged trainer's command (generate-then-fit and the like): write
    ``output_dir/config.yaml``, then run every stage of ``stages`` (``(name, function)`` pairs,
    each called with ``cfg``) in order when ``cfg.stage`` is ``"all"``, else the one it names.
    ``numba``, if given, says what the first stage does ("generating"): that stage needs
    numba, and without it the command is a message and status 2. A :class:`ConfigError` from
    a stage is a message and status 2."""
    from gnome_env.core.jit import COMPILED
    from training.core.config import to_yaml

    first = stages[0][0]
    if numba and not COMPILED and cfg.stage in ("all", first):
        print(f"error: {numba} needs numba (pip install -e '.[fast]')", file=sys.stderr)
        return 2
    out = Path(cfg.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.yaml").write_text(to_yaml(cfg))
    try:
        for name, stage in stages:
            if cfg.stage in ("all", name):
                stage(cfg)
    except ConfigError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


# ---------------------------------------------------------------------- a PPO trainer's main()
RESUME_HELP = "continue the run in DIR from DIR/checkpoint.pt with its saved config"
RESUME_WITH_CONFIG_HELP = (
    RESUME_HELP + " (a --config given too must agree with it, but for the fields a resume may "
    "change)"
)
STOP_AFTER_HELP = (
    "stop once N updates are done in all (a checkpoint is written, nothing else), as if the "
    "run were killed there; --resume continues it, e.g. with a new total_steps"
)


def add_run_options(  # type: ignore[no-untyped-def]
    parser, resume_help: str = RESUME_HELP, config_help: str = "YAML file of config fields"
) -> None:
    """``--config``, ``--resume DIR``, ``--stop_after N`` and ``--overwrite``: the run options
    of every checkpointing trainer."""
    parser.add_argument("--config", default=None, help=config_help)
    parser.add_argument("--resume", default=None, metavar="DIR", help=resume_help)
    parser.add_argument("--stop_after", type=int, default=None, metavar="N", help=STOP_AFTER_HELP)
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)


def resume_or_new(args, cls: type, load_resume, guard: bool = True):  # type: ignore[no-untyped-def]
    """``(config, checkpoint data or None)`` of a trainer's command line: ``--resume DIR``
    continues the run in DIR (a ``--config`` given too, which is how ``gnome train`` finds the
    trainer, and the overrides must agree with the saved config but for what a resume may
    change: ``load_resume(DIR, values)``); otherwise a new run of ``cls`` from ``--config``
    and overrides, into an output directory that holds no run (``guard``; see
    :func:`check_new_run`). Bad input raises ``ConfigError`` or ``ValueError``."""
    from training.core.config import build_config, overrides_from_args, read_yaml

    if args.stop_after is not None and args.stop_after < 1:
        raise ConfigError(f"--stop_after {args.stop_after} is not allowed: must be >= 1")
    overrides = overrides_from_args(args)
    if args.resume:
        file_values = read_yaml(args.config) if args.config else {}
        file_values.pop("output_dir", None)
        return load_resume(args.resume, {**file_values, **overrides})
    cfg = build_config(cls, args.config, overrides)
    if guard:
        check_new_run(cfg.output_dir, args.overwrite)
    return cfg, None


def train_to_end(train, cfg, data, stop_after: int | None, policy_line: bool = True) -> int:  # type: ignore[no-untyped-def]
    """Run ``train(cfg, data, stop_after=...)`` and say how it ended: Ctrl-C (the checkpoint
    to resume from, :data:`INTERRUPTED`), stopped after ``--stop_after`` (the ``--resume``
    command) or the policy written (``policy_line``). Returns the exit status."""
    try:
        summary = train(cfg, data, stop_after=stop_after)
    except KeyboardInterrupt:
        return interrupted(cfg.output_dir)
    if "stopped_after" in summary:
        print(
            f"stopped after update {summary['stopped_after']}; continue with "
            f"gnome train --resume {cfg.output_dir}"
        )
    elif policy_line:
        print(f"policy written to {Path(cfg.output_dir) / 'policy.pt'} ({summary['seconds']} s)")
    return 0


def add_output_file_options(parser, what: str = "the parameter file to write (JSON)") -> None:  # type: ignore[no-untyped-def]
    """``--out FILE`` (required) and ``--overwrite``, for a script that writes one file."""
    parser.add_argument("--out", required=True, help=what)
    parser.add_argument("--overwrite", action="store_true", help="replace an existing --out")


def checked_output_file(parser, args) -> Path:  # type: ignore[no-untyped-def]
    """``args.out`` as a path; an argparse error when it exists and ``--overwrite`` is not
    given (a script never replaces a file it did not create unless asked)."""
    out = Path(args.out)
    if out.exists() and not args.overwrite:
        parser.error(f"--out {out} already exists: pass --overwrite to replace it")
    return out


def save_value_file(out: Path, data: dict) -> bool:  # type: ignore[type-arg]
    """Write a fitted value's parameters atomically; False (with the reason on stderr) when
    the file cannot be written."""
    from agents.core.value_files import write_value_file

    try:
        write_value_file(out, data)
    except OSError as err:
        print(f"error: cannot write {out}: {err.strerror}", file=sys.stderr)
        return False
    return True
