"""``gnome train`` / ``python -m training.gnoming.ppo``: parse, validate, train or resume."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agents.gnoming.learned import network_from_checkpoint, read_checkpoint
from gnome_env.gnoming.config import RulesConfig
from training.core.checkpoints import load_resume as core_load_resume
from training.core.config import (
    ArgumentParser,
    ConfigError,
    add_field_arguments,
    build_config,
    overrides_from_args,
)
from training.core.runs import add_run_options, check_new_run, train_to_end
from training.gnoming.ppo.config import RESUME_OVERRIDABLE, PPOConfig
from training.gnoming.ppo.run import load_init_policy, resolve_device, train

#: What a Gnoming training checkpoint's ``training`` dict holds besides config and optimizer.
RESUME_KEYS = ("update", "global_step", "elapsed", "update_rng", "selfplay", "history")


def build_parser() -> argparse.ArgumentParser:
    """``gnome train`` / ``python -m training.gnoming.ppo`` arguments."""
    parser = ArgumentParser(
        prog="gnome train",
        description="Self-play PPO on the vector engine (one policy for 3-7 seats).",
    )
    add_run_options(
        parser,
        config_help="YAML config file, e.g. configs/quickstart.yaml (without it: the built-in "
        "defaults, a full-length run)",
    )
    add_field_arguments(parser, PPOConfig)
    return parser


def load_resume(directory: str | Path, overrides: dict[str, Any]) -> tuple[PPOConfig, dict]:
    """The config and checkpoint to continue the run in ``directory`` (the core's
    :func:`training.core.checkpoints.load_resume`; errors: ValueError). Checkpoints from
    before ``fused_adam`` existed continue with the Adam they were made with."""
    return core_load_resume(
        PPOConfig, directory, overrides, RESUME_OVERRIDABLE, read_checkpoint,
        network_from_checkpoint, keys=RESUME_KEYS, saved_defaults={"fused_adam": False},
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Entry point: parse, validate, train. Bad input exits with status 2 and a message."""
    parser = build_parser()
    args = parser.parse_args(argv)
    overrides = overrides_from_args(args)
    try:
        if args.stop_after is not None and args.stop_after < 1:
            raise ConfigError(f"--stop_after {args.stop_after} is not allowed: must be >= 1")
        if args.resume:
            if args.config:
                parser.error("--resume uses the run's saved config; do not pass --config")
            cfg, data = load_resume(args.resume, overrides)
        else:
            cfg, data = build_config(PPOConfig, args.config, overrides), None
            check_new_run(cfg.output_dir, args.overwrite)
            if cfg.init_policy is not None:  # fail before any work if it cannot be used
                load_init_policy(cfg, RulesConfig())
        resolve_device(cfg.device)  # a CUDA device that is not there
    except (ConfigError, ValueError) as err:  # bad input: a message, no traceback
        parser.exit(2, f"gnome train: error: {err}\n")
    if not args.config and not args.resume:
        print(
            f"gnome train: no --config: training with the built-in defaults "
            f"(total_steps={cfg.total_steps:,}, output_dir={cfg.output_dir}); for the "
            "quickstart use --config configs/quickstart.yaml",
            file=sys.stderr,
            flush=True,
        )
    return train_to_end(train, cfg, data, args.stop_after, policy_line=False)


if __name__ == "__main__":
    sys.exit(main())
