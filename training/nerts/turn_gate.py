"""The shipped Nerts turn gate's recipe (agents/policies/nerts_turn_gate) as one trainer.

    gnome train --config configs/nerts_turn_gate.yaml

It runs :mod:`training.nerts.distill` the way the policy's README lists it, in two stages:

1. **label** -- one distill run per entry of ``label_seeds`` (seat counts: the entry of
   ``label_players`` at the same place), each on the batched engine: the turn-only memory
   search (``--memory --candidates turn --target value``, ``samples``, ``z``, ``margin``)
   values seat 0's positions in one-hand games against compiled experts, ``label_steps``
   steps of ``envs`` games, and the positions are saved
   (``output_dir/data/labels_<seed>/samples.npz``; the run's throwaway one-epoch student is
   kept there too, as distill writes it). ``workers`` label runs go at a time, each on one
   core. A label run whose ``summary.json`` exists is done and is skipped, so ``--resume DIR``
   continues an interrupted run; an unfinished one is started again.
2. **fit** -- ``distill --student gate`` on every label file in ``label_seeds`` order
   (``--samples-from``; ``seed``, ``hidden``, ``value_margin``, ``epochs``, ``--save-epochs``)
   into ``output_dir/data/fit``, then ``output_dir/policy.pt`` (the last epoch's gate) and
   ``output_dir/summary.json`` (every stage's settings, sizes and seconds).

``stage: label`` or ``stage: fit`` runs one stage (the fit needs every label file). The
defaults are the shipped policy's settings: the same commands, so on CPU (one torch thread
a process, numba) the same label files and the same weights. Needs numba and torch.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from training.core.config import ConfigError, check_at_least, to_dict
from training.core.runs import INTERRUPTED, run_stages
from training.core.runs import config_from_command_line as run_command_line

STAGES = ("all", "label", "fit")


@dataclass
class TurnGateConfig:
    """Settings of a turn-gate run (see the module docstring)."""

    trainer: str = field(default="nerts_turn_gate", metadata={"help": "must be nerts_turn_gate"})
    seed: int = field(default=7, metadata={"help": "the fit's seed (init, order of samples)"})
    output_dir: str = field(
        default="runs/nerts_turn_gate", metadata={"help": "where data/, policy.pt go"}
    )
    stage: str = field(default="all", metadata={"help": "all, label or fit"})
    label_seeds: list[int] = field(
        default_factory=lambda: [103, 104, 105, 101, 102],
        metadata={"help": "one label run per seed (its engine seed); the fit reads them in order"},
    )
    label_players: list[list[int]] = field(
        default_factory=lambda: [[2], [2], [2], [2, 4, 6], [2, 4, 6]],
        metadata={"help": "seat counts of each label run's games (cycled over its games, 2..6)"},
    )
    label_steps: int = field(default=2400, metadata={"help": "engine steps of each label run"})
    envs: int = field(default=128, metadata={"help": "games stepped together in a label run"})
    samples: int = field(default=64, metadata={"help": "the search's sampled deals a position"})
    z: float = field(default=2.0, metadata={"help": "the search's deviation test"})
    margin: float = field(default=0.1, metadata={"help": "the search's margin"})
    workers: int = field(default=2, metadata={"help": "label runs at a time (one core each)"})
    hidden: list[int] = field(default_factory=lambda: [64, 64], metadata={"help": "gate MLP"})
    value_margin: float = field(
        default=0.01, metadata={"help": "playout value a turn must gain to be a positive target"}
    )
    epochs: int = field(default=8, metadata={"help": "passes of the fit over the samples"})

    def validate(self) -> None:
        if self.trainer != "nerts_turn_gate":
            raise ConfigError(f"trainer={self.trainer!r} is not allowed: must be nerts_turn_gate")
        if self.stage not in STAGES:
            raise ConfigError(f"stage={self.stage!r} is not allowed: one of {', '.join(STAGES)}")
        if not self.label_seeds:
            raise ConfigError("label_seeds=[] is not allowed: give at least one seed")
        if len(set(self.label_seeds)) != len(self.label_seeds):
            raise ConfigError(f"label_seeds={self.label_seeds} is not allowed: a seed twice")
        if len(self.label_players) != len(self.label_seeds):
            raise ConfigError(
                f"label_players has {len(self.label_players)} entries and label_seeds "
                f"{len(self.label_seeds)}: give one list of seat counts per seed"
            )
        for i, counts in enumerate(self.label_players):
            if not counts or any(n < 2 or n > 6 for n in counts):
                raise ConfigError(
                    f"label_players[{i}]={counts} is not allowed: a non-empty list of seat "
                    "counts 2..6"
                )
        for name in ("label_steps", "envs", "samples", "workers", "epochs"):
            check_at_least(name, getattr(self, name), 1)
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ConfigError(
                f"hidden={self.hidden} is not allowed: a non-empty list of sizes >= 1"
            )
        if self.z < 0 or self.margin < 0:
            raise ConfigError(f"z={self.z}, margin={self.margin}: neither may be negative")


def label_dir(cfg: TurnGateConfig, seed: int) -> Path:
    """Where the label run of ``seed`` writes (``samples.npz``, ``summary.json``, its log)."""
    return Path(cfg.output_dir) / "data" / f"labels_{seed}"


def search_args(cfg: TurnGateConfig) -> list[str]:
    """The teacher's settings, the same in every label run and in the fit (which checks that
    its samples files were labelled by this teacher)."""
    return [
        "--envs", str(cfg.envs), "--samples", str(cfg.samples),
        "--z", f"{cfg.z:g}", "--margin", f"{cfg.margin:g}", "--memory",
        "--candidates", "turn", "--target", "value",
    ]  # fmt: skip


def label_argv(cfg: TurnGateConfig, i: int) -> list[str]:
    """The distill command line of label run ``i`` (the README's label commands)."""
    seed = cfg.label_seeds[i]
    return [
        "--out", str(label_dir(cfg, seed)), "--seed", str(seed),
        "--players", *map(str, cfg.label_players[i]), "--rounds", "1",
        "--steps", str(cfg.label_steps), *search_args(cfg), "--save-samples",
        "--epochs", "1", "--overwrite",
    ]  # fmt: skip


def fit_argv(cfg: TurnGateConfig) -> list[str]:
    """The distill command line of the fit (the README's fit command)."""
    files = [str(label_dir(cfg, s) / "samples.npz") for s in cfg.label_seeds]
    return [
        "--out", str(Path(cfg.output_dir) / "data" / "fit"), "--seed", str(cfg.seed),
        "--rounds", "1", *search_args(cfg), "--student", "gate", "--hidden", *map(str, cfg.hidden),
        "--value-margin", f"{cfg.value_margin:g}", "--epochs", str(cfg.epochs),
        "--save-epochs", "--samples-from", *files, "--overwrite",
    ]  # fmt: skip


def label_done(cfg: TurnGateConfig, seed: int) -> bool:
    """Whether the label run of ``seed`` finished (distill writes its summary last)."""
    folder = label_dir(cfg, seed)
    return (folder / "summary.json").is_file() and (folder / "samples.npz").is_file()


def _distill(argv: list[str], log: str) -> int:
    """One distill run in this process, its output (and errors) to ``log`` (a spawned
    worker's task)."""
    from training.nerts import distill

    Path(log).parent.mkdir(parents=True, exist_ok=True)
    with (
        open(log, "w") as stream,
        contextlib.redirect_stdout(stream),
        contextlib.redirect_stderr(stream),
    ):
        try:
            return distill.main(argv)
        except KeyboardInterrupt:
            return INTERRUPTED


def label(cfg: TurnGateConfig) -> None:
    """Stage 1: every label run not done yet, ``workers`` at a time."""
    todo = [i for i, s in enumerate(cfg.label_seeds) if not label_done(cfg, s)]
    for i, seed in enumerate(cfg.label_seeds):
        state = "to run" if i in todo else "done, kept"
        print(f"label run {seed} (players {cfg.label_players[i]}): {state}", flush=True)
    if not todo:
        return
    argvs = [label_argv(cfg, i) for i in todo]
    logs = [str(label_dir(cfg, cfg.label_seeds[i]).with_suffix(".log")) for i in todo]
    start = time.perf_counter()
    if cfg.workers == 1 or len(todo) == 1:
        codes = [_distill(argv, log) for argv, log in zip(argvs, logs, strict=True)]
    else:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        context = multiprocessing.get_context("spawn")  # no torch threads inherited
        with ProcessPoolExecutor(min(cfg.workers, len(todo)), mp_context=context) as pool:
            codes = list(pool.map(_distill, argvs, logs))
    for i, code in zip(todo, codes, strict=True):
        seed = cfg.label_seeds[i]
        if code == INTERRUPTED:
            raise KeyboardInterrupt
        if code != 0 or not label_done(cfg, seed):
            log = label_dir(cfg, seed).with_suffix(".log")
            raise ConfigError(f"label run {seed} failed (status {code}); its output: {log}")
        print(f"label run {seed}: written ({time.perf_counter() - start:.0f} s)", flush=True)


def fit(cfg: TurnGateConfig) -> dict[str, Any]:
    """Stage 2: the gate fitted on every label file; ``policy.pt`` and ``summary.json``."""
    missing = [s for s in cfg.label_seeds if not label_done(cfg, s)]
    if missing:
        raise ConfigError(
            f"the label runs {missing} are not done in {cfg.output_dir}/data: run the label "
            "stage first (stage: all or label)"
        )
    out = Path(cfg.output_dir)
    log = out / "data" / "fit.log"
    code = _distill(fit_argv(cfg), str(log))
    if code == INTERRUPTED:
        raise KeyboardInterrupt
    fitted = out / "data" / "fit"
    if code != 0 or not (fitted / "policy.pt").is_file():
        raise ConfigError(f"the fit failed (status {code}); its output: {log}")
    shutil.copyfile(fitted / "policy.pt", out / "policy.pt")
    labels = []
    for i, seed in enumerate(cfg.label_seeds):
        run = json.loads((label_dir(cfg, seed) / "summary.json").read_text())
        labels.append({
            "seed": seed, "players": cfg.label_players[i],
            "positions": run["rounds"][0]["new_samples"], "seconds": run["seconds"],
            "command": run["command"],
        })  # fmt: skip
    fit_run = json.loads((fitted / "summary.json").read_text())
    summary = {
        "config": to_dict(cfg),
        "labels": labels,
        "label_positions": sum(r["positions"] for r in labels),
        "label_core_seconds": round(sum(r["seconds"] for r in labels), 1),
        "fit": {
            "command": fit_run["command"],
            "seconds": fit_run["seconds"],
            "held_out": fit_run["rounds"][-1],
        },
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(
        f"policy written to {out / 'policy.pt'}: {summary['label_positions']:,} labelled "
        f"positions ({summary['label_core_seconds']:.0f} core-s), fit {fit_run['seconds']:.0f} s",
        flush=True,
    )
    return summary


def main(argv: list[str] | None = None) -> int:
    """``gnome train --config FILE [--FIELD VALUE ...]`` (``--resume DIR`` continues a run:
    the finished label runs are kept); Ctrl-C says what is kept."""
    cfg = run_command_line(
        TurnGateConfig,
        "gnome train",
        __doc__.split("\n\n")[0],
        argv,
        same_run_ignores=("stage", "workers"),
    )
    if cfg is None:
        return 2
    try:
        return run_stages(cfg, (("label", label), ("fit", fit)), numba="labelling")
    except KeyboardInterrupt:
        out = Path(cfg.output_dir)
        done = [s for s in cfg.label_seeds if label_done(cfg, s)]
        print(
            f"\ngnome train: interrupted (Ctrl-C); the finished label runs {done} are kept in "
            f"{out / 'data'}; continue with gnome train --resume {out}",
            file=sys.stderr,
            flush=True,
        )
        return INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
