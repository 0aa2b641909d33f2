"""The run: :func:`train` sets up, optionally warm-starts, then repeats rollout ->
advantages -> PPO update, with snapshots, evaluations and checkpoints, and ends with the
final report. The pieces it calls (:class:`Run` for the state a checkpoint holds,
:class:`Reporter` for what a run reports) are below it.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.gnoming.learned import (
    PolicyNetwork,
    checkpoint_header,
    network_from_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from gnome_env.gnoming.config import MAX_PLAYERS, RulesConfig
from training.core.checkpoints import CHECKPOINT, restore, save_checkpoint
from training.core.config import ConfigError, to_dict
from training.core.ppo import annealed_lr, begin_run, run_updates
from training.gnoming.ppo.config import PPOConfig
from training.gnoming.ppo.evaluation import arena_table, evaluate, plot_learning_curve
from training.gnoming.ppo.pretrain import pretrain
from training.gnoming.ppo.selfplay import SelfPlay
from training.gnoming.ppo.update import advantages, make_adam, ppo_update, set_adam_kernel


def train(
    cfg: PPOConfig, resume_from: dict[str, Any] | None = None, stop_after: int | None = None
) -> dict[str, Any]:
    """Run (or continue) training; returns a summary (final arena results, timings).

    ``stop_after`` stops after that many updates in total, writing a checkpoint and nothing
    else, as if the run had been killed right after a checkpoint (``--resume`` continues).
    """
    out = begin_run(cfg)
    run = Run.start(cfg, resume_from)
    report = Reporter(out, run)
    if resume_from is None:
        run.warm_start(report)
    play = SelfPlay(cfg, run.rules, run.device, run.net)
    if resume_from is not None:
        play.load_state(resume_from["training"]["selfplay"], run.net)
    report.announce()

    num_updates = cfg.num_updates

    def one_update(update: int) -> None:
        if cfg.anneal_lr:
            run.optimizer.param_groups[0]["lr"] = annealed_lr(
                cfg.learning_rate, update, num_updates
            )
        t_roll = time.perf_counter()
        run.net.eval()
        ro = play.collect(run.net)
        adv, valid = advantages(ro, cfg.gamma, cfg.gae_lambda)
        t_upd = time.perf_counter()
        run.net.train()
        net, opt, rng = run.net, run.optimizer, run.update_rng
        figures = ppo_update(net, opt, ro, adv, valid, cfg, rng, run.device)
        rollout_s, update_s = t_upd - t_roll, time.perf_counter() - t_upd
        run.count(update + 1, int(valid.sum()), rollout_s, update_s)
        figures.update(loop_figures(run, play, int(valid.sum()), rollout_s, update_s))
        report.log(figures, run.global_step)
        if (update + 1) % cfg.snapshot_interval == 0:
            play.add_snapshot(run.net)
        done_all = update + 1 == num_updates
        if cfg.eval_interval and (update + 1) % cfg.eval_interval == 0 and not done_all:
            report.evaluate(cfg.eval_games)
        report.progress(figures)

    stopped = run_updates(
        run.update, num_updates, one_update, lambda _: run.save(out / CHECKPOINT, play),
        cfg.checkpoint_interval, stop_after,
    )  # fmt: skip
    if stopped is not None:
        report.close()
        play.hints.close()
        return {"stopped_after": stopped}
    report.close_bar()
    play.hints.close()
    return finish(cfg, out, run, report)


# ---------------------------------------------------------------------- the run's state
def resolve_device(name: str) -> torch.device:
    """The torch device ``device: auto|cpu|cuda`` names; ConfigError if it is not there."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device='cuda' is not allowed: no CUDA device is available (use auto)")
    return torch.device(name)


def load_init_policy(cfg: PPOConfig, rules: RulesConfig) -> PolicyNetwork:
    """The network in ``cfg.init_policy``; ValueError/ConfigError if it does not fit."""
    where = f"init_policy {cfg.init_policy!r}"
    start = network_from_checkpoint(read_checkpoint(cfg.init_policy, rules), where)
    if start.hidden != list(cfg.hidden):
        raise ConfigError(
            f"{where} has hidden layers {start.hidden}; the config says hidden="
            f"{list(cfg.hidden)}: set hidden to {start.hidden}"
        )
    for name in ("features", "expert_hint"):
        have, want = getattr(start, name), getattr(cfg, name)
        if have != want:
            raise ConfigError(
                f"{where} has {name}={have}; the config says {name}={want}: set {name} to {have}"
            )
    return start


@dataclass
class Run:
    """The network, the optimizer, the minibatch generator, the counters and the evaluation
    history of a run: what a checkpoint holds besides the games (:class:`SelfPlay`)."""

    cfg: PPOConfig
    rules: RulesConfig
    device: torch.device
    net: PolicyNetwork
    optimizer: torch.optim.Optimizer
    update_rng: np.random.Generator
    update: int = 0  # updates done in all
    global_step: int = 0  # decisions played in all
    elapsed: float = 0.0  # seconds of earlier sessions (and of the warm start)
    history: list[dict[str, Any]] = field(default_factory=list)
    t0: float = field(default_factory=time.perf_counter)  # this session's start
    samples: int = 0  # this session's trained samples, decisions and seconds
    decisions: int = 0
    rollout_s: float = 0.0
    update_s: float = 0.0

    @classmethod
    def start(cls, cfg: PPOConfig, resume_from: dict[str, Any] | None) -> Run:
        """A fresh network from ``cfg.seed``, or everything a checkpoint saved."""
        device = resolve_device(cfg.device)
        rules = RulesConfig()
        net = PolicyNetwork(rules, cfg.hidden, features=cfg.features, expert_hint=cfg.expert_hint)
        net.reset_parameters(torch.Generator().manual_seed(cfg.seed))
        net.to(device)
        optimizer = make_adam(net.parameters(), cfg.learning_rate, cfg.fused_adam)
        run = cls(cfg, rules, device, net, optimizer, np.random.default_rng([cfg.seed, 3]))
        if resume_from is not None:
            t = restore(resume_from, net, optimizer, {"update_rng": run.update_rng})
            set_adam_kernel(optimizer, cfg.fused_adam)
            run.update, run.global_step = int(t["update"]), int(t["global_step"])
            run.elapsed = float(t["elapsed"])
            run.history = json.loads(t["history"])
        return run

    def warm_start(self, report: Reporter) -> None:
        """``init_policy`` weights, then the ``pretrain_teacher`` imitation, if configured."""
        cfg = self.cfg
        if cfg.init_policy is not None:
            self.net.load_state_dict(load_init_policy(cfg, self.rules).state_dict())
            print(f"starting from the weights in {cfg.init_policy}", file=sys.stderr)
        if cfg.pretrain_teacher is None:
            return
        print(
            f"warm start: imitating {cfg.pretrain_teacher} on {cfg.pretrain_decisions:,} decisions",
            file=sys.stderr,
        )
        done = pretrain(self.net, cfg, self.rules, self.device, report.log)
        self.elapsed += done["pretrain/seconds"]
        print(
            f"warm start: {done['pretrain/decisions']:,.0f} decisions recorded in "
            f"{done['pretrain/record_s']:.0f} s; held-out agreement with the teacher "
            f"{done['pretrain/accuracy']:.3f}, value explained variance "
            f"{done['pretrain/explained_variance']:.3f}; {done['pretrain/seconds']:.0f} s",
            file=sys.stderr,
        )

    def count(self, update: int, samples: int, rollout_s: float, update_s: float) -> None:
        """Book one finished update."""
        self.update = update
        self.global_step += self.cfg.steps_per_update
        self.samples += samples
        self.decisions += self.cfg.steps_per_update
        self.rollout_s += rollout_s
        self.update_s += update_s

    def seconds(self) -> float:
        """Training seconds in all, earlier sessions included."""
        return self.elapsed + (time.perf_counter() - self.t0)

    def save(self, path: Path, play: SelfPlay) -> None:
        """The training checkpoint (the core's, written atomically)."""
        save_checkpoint(
            path, checkpoint_header(self.net), config=self.cfg, optimizer=self.optimizer,
            counters={"update": self.update, "global_step": self.global_step,
                      "elapsed": self.seconds()},
            rngs={"update_rng": self.update_rng},
            extras={"selfplay": play.state(), "history": json.dumps(self.history)},
        )  # fmt: skip


def loop_figures(
    run: Run, play: SelfPlay, samples: int, rollout_s: float, update_s: float
) -> dict[str, float]:
    """The ``charts/`` figures of one update; resets the training-game win counts."""
    cfg = run.cfg
    seconds = rollout_s + update_s
    figures = {
        "charts/learning_rate": run.optimizer.param_groups[0]["lr"],
        "charts/decisions_per_s": cfg.steps_per_update / seconds,
        "charts/samples_per_s": samples / seconds,
        "charts/rollout_s": rollout_s,
        "charts/update_s": update_s,
        "charts/pool_size": len(play.pool),
    }
    for j, bot in enumerate(cfg.bot_opponents):
        played = play.bot_games[j] > 0
        if played.any():  # win rate x n, averaged over the seat counts played
            per_n = play.bot_wins[j] / np.maximum(play.bot_games[j], 1)
            rate = float((per_n * np.arange(MAX_PLAYERS + 1))[played].mean())
            figures[f"charts/train_win_rate_over_1_n/{bot}"] = rate
    play.bot_games[:] = 0
    play.bot_wins[:] = 0
    return figures


# ---------------------------------------------------------------------- what a run reports
def _stringify(results: dict[str, dict[int, dict[str, float]]]) -> dict[str, Any]:
    return {bot: {str(n): r for n, r in per_n.items()} for bot, per_n in results.items()}


class Reporter:
    """TensorBoard scalars, the arena evaluations (history) and the progress bar of a run."""

    def __init__(self, out: Path, run: Run) -> None:
        self.cfg, self.out, self.run = run.cfg, out, run
        self.writer = None
        if self.cfg.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(out / "tb"))
        self.bar: Any = None
        self.last_eval = ""

    def log(self, figures: dict[str, float], step: int) -> None:
        """Scalars to TensorBoard (NaNs skipped)."""
        if self.writer is not None:
            for key, value in figures.items():
                if not (isinstance(value, float) and math.isnan(value)):
                    self.writer.add_scalar(key, value, step)

    def announce(self) -> None:
        """Say what the run will do, start the clock of this session and the progress bar."""
        from tqdm import tqdm

        cfg, run = self.cfg, self.run
        print(
            f"training: {cfg.num_updates} updates x {cfg.steps_per_update:,} decisions "
            f"({cfg.num_envs} games x {cfg.rollout_steps} steps), seats {cfg.num_players}, "
            f"device {run.device}; writing to {self.out}"
            + (f" (tensorboard --logdir {self.out / 'tb'})" if cfg.tensorboard else ""),
            file=sys.stderr,
        )
        run.t0 = time.perf_counter()
        self.bar = tqdm(
            total=cfg.num_updates, initial=run.update, unit="update", disable=not cfg.progress,
            file=sys.stderr, dynamic_ncols=True,
        )  # fmt: skip

    def evaluate(self, games: int, progress: bool = False) -> dict[str, Any]:
        """Arena games of the network against each ``eval_opponents`` bot; logged and kept
        in the history."""
        cfg, run = self.cfg, self.run
        results = evaluate(
            run.net, run.rules, list(cfg.num_players), list(cfg.eval_opponents), games,
            seed=cfg.seed + 100_003, progress=progress,
        )  # fmt: skip
        for bot, per_n in results.items():
            for n, r in per_n.items():
                self.log({f"eval/win_rate/{bot}/{n}p": r["win_rate"]}, run.global_step)
            mean = float(np.mean([r["win_rate"] * n for n, r in per_n.items()]))
            self.log({f"eval/win_rate_over_1_n/{bot}": mean}, run.global_step)
        run.history.append(
            {"update": run.update, "global_step": run.global_step, "eval": _stringify(results)}
        )
        self.last_eval = " ".join(
            f"{bot[:6]}:{np.mean([r['win_rate'] * n for n, r in per_n.items()]):.2f}"
            for bot, per_n in results.items()
        )
        return results

    def progress(self, figures: dict[str, float]) -> None:
        """Advance the progress bar by one update."""
        self.bar.set_postfix_str(
            f"sps={figures['charts/samples_per_s']:.0f} ent={figures.get('losses/entropy', 0):.2f}"
            f" kl={figures.get('losses/approx_kl', 0):.3f}"
            + (f" win_rate*n[{self.last_eval}]" if self.last_eval else ""),
            refresh=False,
        )
        self.bar.update(1)

    def close_bar(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def close(self) -> None:
        """Close the progress bar and the TensorBoard writer."""
        self.close_bar()
        if self.writer is not None:
            self.writer.close()


def finish(cfg: PPOConfig, out: Path, run: Run, report: Reporter) -> dict[str, Any]:
    """Write ``policy.pt``, play the final arena table, write the history and the plot."""
    train_seconds = run.seconds()
    # the shipped artefact: weights, sizes, rules, env version; no optimizer or games
    payload = checkpoint_header(run.net.cpu())
    payload["training_summary"] = {
        "config": to_dict(cfg),
        "updates": cfg.num_updates,
        "decisions": run.global_step,
        "train_seconds": train_seconds,
    }
    write_checkpoint(payload, out / "policy.pt")
    summary: dict[str, Any] = {
        "train_seconds": train_seconds,
        "decisions": run.global_step,
        "samples_this_session": run.samples,
        "decisions_this_session": run.decisions,
        "rollout_seconds": run.rollout_s,
        "update_seconds": run.update_s,
        "policy": str(out / "policy.pt"),
    }
    if cfg.final_eval_games:
        print(
            f"\nfinal arena: {cfg.final_eval_games} games per seat count vs "
            f"{', '.join(cfg.eval_opponents)}",
            file=sys.stderr,
        )
        results = report.evaluate(cfg.final_eval_games, progress=cfg.progress)
        table = arena_table(results)
        (out / "arena.md").write_text(table + "\n", encoding="utf-8")
        (out / "arena.json").write_text(json.dumps(_stringify(results), indent=1), encoding="utf-8")
        summary["arena"] = results
        print(table)
    (out / "history.json").write_text(json.dumps(run.history, indent=1), encoding="utf-8")
    plot_learning_curve(run.history, out / "learning_curve.png")
    report.close()
    print(
        f"trained {run.global_step:,} decisions in {train_seconds / 60:.1f} min; "
        f"policy: {out / 'policy.pt'} (use it as ppo:{out / 'policy.pt'})"
    )
    return summary
