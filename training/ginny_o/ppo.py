"""PPO for Ginny-O on the PettingZoo AEC env ``ginny_o_v0``: one file, read top to bottom.

CleanRL's PPO (clipped objective, GAE, advantage normalisation per minibatch, no value
clipping, orthogonal init, Adam with eps 1e-5, gradient-norm clipping), with what a
turn-based game played as atomic steps needs:

* **parameter sharing**: one network (:class:`agents.ginny_o.learned.GinnyPolicyNetwork`)
  plays every learner seat of every environment;
* **opponents**, cycled over the environments: ``random`` -- seat 0 is the learner and the
  other seats play uniformly random legal ids (the arena's ``random``); ``self`` -- every
  seat is the learner and every seat's decisions are trained on. Environment ``e`` has
  ``num_players[e % len(num_players)]`` seats and opponents
  ``opponents[(e // len(num_players)) % len(opponents)]``, so every pairing occurs;
* **a turn is several steps of one seat, and rewards arrive late**: each (environment, seat)
  is one *stream* -- that seat's own decisions, in order, whoever acted in between. The
  reward of a decision is everything the env pays that seat from the decision up to the
  seat's next one (with ``reward_mode: score`` the end of its own turn pays its points, the
  opponents' turns pay minus theirs; with ``reward_mode: rank`` only the game's end pays). GAE
  runs along each stream (``gamma``, ``gae_lambda`` per decision); a decision that ends the
  seat's game is terminal. A seat's last decision of a rollout whose game is still going is
  not trained on (its return is not known yet): it only bootstraps the one before it.
  Rewards that belong to no trained decision (paid before the seat's first decision of a
  game, or after its untrained last decision of a rollout) are dropped;
* **action masks**: illegal logits are -1e9, so a sampled action is always legal and the
  entropy runs over legal actions only.

``reward_mode`` is the env's option: ``score`` (dense, zero-sum: own points minus the opponents'
mean per turn, / 100, rack penalties at the end; over a game it sums to the final score
margin) or ``rank`` (terminal, zero-sum, +-1 for a 2-player win or loss). The shipped
baseline uses ``score``: it learned faster than ``rank`` in the comparison of
``docs/ginny_o_baseline.md``.

A training step is one learner decision; ``total_steps`` counts them. Every random draw
comes from explicit generators seeded from ``seed`` (each game's seed, the opponents' and
the learner's action draws, the minibatch order, the init), so a run with one torch thread
on CPU repeats exactly. Every ``checkpoint_interval`` updates ``checkpoint.pt`` is written
(atomically): weights, optimizer, generator states, counters, log, and the games in
progress as (game seed, actions so far) -- the env replays them on ``--resume DIR``, which
continues the run exactly as if it had not stopped (``--stop_after N`` stops after update
N, as if killed there). ``policy.pt`` (weights only, about 2 MB) is written at the end.

At the end the final policy (its most likely action) plays the arena
(``run_arena(..., game="ginny_o")``) against n-1 ``random`` and n-1 ``greedy`` at each player
count, and the table is printed and saved in ``summary.json``. Run: ``gnome train --config
configs/ginny_ppo.yaml`` (or ``python -m training.ginny_o.ppo --config ...``); ``--help``
lists every field. ``--eval_policy PATH`` plays only the arena table for a saved policy.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from training.core.checkpoints import CHECKPOINT, restore, save_checkpoint
from training.core.checkpoints import load_resume as core_load_resume
from training.core.config import (
    ArgumentParser,
    ConfigError,
    add_field_arguments,
    check_at_least,
    renamed_fields,
    to_dict,
)
from training.core.ppo import (
    annealed_lr,
    begin_run,
    check_ppo_settings,
    masked_entropy_mean,
    run_updates,
)
from training.core.ppo import gae_streams as stream_advantages
from training.core.ppo import ppo_update as core_update
from training.core.runs import RESUME_WITH_CONFIG_HELP, add_run_options, resume_or_new, train_to_end

OPPONENTS = ("random", "self")
RECENT_GAMES = 100  # training games the log's win rates and scores are taken over
REWARDS = ("score", "rank")
#: Fields a ``--resume`` may change (how long to run, how to evaluate); the rest must match.
RESUME_OVERRIDABLE = frozenset(
    {"total_steps", "output_dir", "eval_games", "eval_seed", "workers", "checkpoint_interval"}
)


@renamed_fields(players="num_players", reward="reward_mode")
@dataclass
class GinnyPPOConfig:
    """Settings of a Ginny-O PPO run (see the module docstring)."""

    trainer: str = field(default="ginny_ppo", metadata={"help": "must be ginny_ppo"})
    seed: int = field(default=1, metadata={"help": "run seed (games, sampling, init, order)"})
    output_dir: str = field(default="runs/ginny_ppo", metadata={"help": "where policy.pt goes"})
    num_players: list[int] = field(
        default_factory=lambda: [2, 4],
        metadata={"help": "player count of each env, cycled over the envs (2..4)"},
    )
    opponents: list[str] = field(
        default_factory=lambda: ["random"],
        metadata={"help": "random or self per env, cycled over the envs (see docstring)"},
    )
    reward_mode: str = field(
        default="score", metadata={"help": "the env's reward_mode: score or rank"}
    )
    num_envs: int = field(default=8, metadata={"help": "environments stepped side by side"})
    num_steps: int = field(default=64, metadata={"help": "learner decisions per env per update"})
    total_steps: int = field(default=200_000, metadata={"help": "learner decisions in all"})
    learning_rate: float = field(default=2.5e-4, metadata={"help": "Adam learning rate"})
    anneal_lr: bool = field(default=True, metadata={"help": "linearly decay the rate to 0"})
    gamma: float = field(default=0.99, metadata={"help": "discount per decision of a seat"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda"})
    update_epochs: int = field(default=4, metadata={"help": "passes over each rollout"})
    num_minibatches: int = field(default=4, metadata={"help": "minibatches per pass"})
    clip_coef: float = field(default=0.2, metadata={"help": "PPO clip range"})
    ent_coef: float = field(default=0.01, metadata={"help": "entropy bonus"})
    vf_coef: float = field(default=0.5, metadata={"help": "value loss weight"})
    max_grad_norm: float = field(default=0.5, metadata={"help": "gradient-norm clip"})
    hidden: list[int] = field(
        default_factory=lambda: [256, 256], metadata={"help": "trunk MLP sizes"}
    )
    channels: int = field(default=16, metadata={"help": "board conv channels"})
    embedding: int = field(default=32, metadata={"help": "slot/cell embedding size (PLACE)"})
    checkpoint_interval: int = field(
        default=10, metadata={"help": "write checkpoint.pt every this many updates"}
    )
    eval_games: int = field(
        default=200, metadata={"help": "arena games per row at the end (0: none)"}
    )
    eval_seed: int = field(default=7, metadata={"help": "arena seed of the final table"})
    workers: int = field(default=1, metadata={"help": "arena worker processes"})
    torch_threads: int = field(default=1, metadata={"help": "torch threads"})

    def validate(self) -> None:
        """Raise ConfigError naming a bad field, its value and what is allowed."""
        if self.trainer != "ginny_ppo":
            raise ConfigError(f"trainer={self.trainer!r} is not allowed here: must be ginny_ppo")
        if not self.num_players or any(not 2 <= p <= 4 for p in self.num_players):
            raise ConfigError(
                f"num_players={self.num_players!r} is not allowed: a non-empty list of 2..4"
            )
        if not self.opponents or any(o not in OPPONENTS for o in self.opponents):
            raise ConfigError(
                f"opponents={self.opponents!r} is not allowed: a non-empty list of {OPPONENTS}"
            )
        if self.reward_mode not in REWARDS:
            raise ConfigError(f"reward_mode={self.reward_mode!r} is not allowed: one of {REWARDS}")
        for name in ("num_envs", "num_steps", "total_steps", "update_epochs", "num_minibatches"):
            check_at_least(name, getattr(self, name), 1)
        for name in ("torch_threads", "workers", "checkpoint_interval", "channels", "embedding"):
            check_at_least(name, getattr(self, name), 1)
        check_at_least("eval_games", self.eval_games, 0)
        check_at_least("num_steps", self.num_steps, 2)  # a stream needs 2 decisions to train
        check_ppo_settings(self)

    @property
    def steps_per_update(self) -> int:
        """Learner decisions per update (``num_envs x num_steps``)."""
        return self.num_envs * self.num_steps

    @property
    def num_updates(self) -> int:
        """Updates in the run (at least 1)."""
        return max(1, self.total_steps // self.steps_per_update)


# ---------------------------------------------------------------------- the games
class Tables:
    """The ``num_envs`` environments, who plays each seat, and their game counters.

    A game is identified by its seed (``derive_seed(GAME, seed, env, game index)``) and its
    actions so far (``game.log``): :meth:`state` / :meth:`load_state` save and replay them.
    """

    def __init__(self, cfg: GinnyPPOConfig) -> None:
        from gnome_env.ginny_o.ginny_o_v0 import raw_env

        self.cfg = cfg
        self.envs = [
            raw_env(
                num_players=cfg.num_players[e % len(cfg.num_players)],
                reward_mode=cfg.reward_mode,
            )
            for e in range(cfg.num_envs)
        ]
        self.counts = [env.config.num_players for env in self.envs]
        self.opponents = [
            cfg.opponents[(e // len(cfg.num_players)) % len(cfg.opponents)]
            for e in range(cfg.num_envs)
        ]
        #: learner[e][seat]: the network plays (and learns from) this seat
        self.learner = [
            [o == "self" or s == 0 for s in range(n)]
            for o, n in zip(self.opponents, self.counts, strict=True)
        ]
        self.games_started = [0] * cfg.num_envs

    def game_seed(self, e: int, index: int) -> int:
        """The seed of game ``index`` of environment ``e``."""
        from gnome_env.core import rng as grng

        return grng.derive_seed(grng.GAME, self.cfg.seed, e, index)

    def new_game(self, e: int) -> None:
        """Start the next game of environment ``e``."""
        self.envs[e].reset(seed=self.game_seed(e, self.games_started[e]))
        self.games_started[e] += 1

    def acting(self, e: int) -> int:
        """The seat to act in environment ``e``."""
        return self.envs[e].game.current

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps of the games: counters, seeds and actions so far."""
        return {
            "games_started": list(self.games_started),
            "game_seeds": [int(env.game.seed) for env in self.envs],
            "actions": [[int(a) for _, a in env.game.log] for env in self.envs],
        }

    def load_state(self, state: dict[str, Any]) -> None:
        """Replay the saved games through the env (same seeds, same actions)."""
        self.games_started = [int(x) for x in state["games_started"]]
        for env, seed, actions in zip(
            self.envs, state["game_seeds"], state["actions"], strict=True
        ):
            env.reset(seed=int(seed))
            for a in actions:
                env.step(int(a))


def random_legal(mask: np.ndarray, gen: np.random.Generator) -> int:
    """A uniformly random legal id of ``mask`` (the arena's ``random`` bot's rule)."""
    legal = np.flatnonzero(mask)
    return int(legal[gen.integers(len(legal))])


class Rollouts:
    """The env adapter: the games (:class:`Tables`) played into a ``[T, E]`` rollout of
    learner decisions -- row ``t`` of column ``e`` is one decision of seat ``seat[t, e]`` of
    environment ``e`` (its observation, mask, action, log-probability, value), and its reward
    is what the env pays that seat up to its next decision (``done``: the decision ended the
    seat's game). Opponent seats play uniformly random legal ids in between."""

    def __init__(self, cfg: GinnyPPOConfig, obs_size: int, n_actions: int) -> None:
        self.cfg = cfg
        self.tables = Tables(cfg)
        T, E = cfg.num_steps, cfg.num_envs
        self.obs = np.zeros((T, E, obs_size), np.float32)
        self.mask = np.zeros((T, E, n_actions), bool)
        self.act = np.zeros((T, E), np.int64)
        self.logp = np.zeros((T, E), np.float32)
        self.val = np.zeros((T, E), np.float32)
        self.rew = np.zeros((T, E), np.float32)
        self.done = np.zeros((T, E), bool)  # the decision ended its seat's game
        self.seat = np.zeros((T, E), np.int64)
        # open_row[e][seat]: rollout row of that seat's latest decision whose reward is
        # still being summed (-1: none in this rollout)
        self.open_row = [[-1] * n for n in self.tables.counts]
        self.finished: list[dict[str, Any]] = []  # the latest RECENT_GAMES training games
        self.games = 0
        self.env_steps = 0

    def new_games(self) -> None:
        """Start every environment's first game."""
        for e in range(self.cfg.num_envs):
            self.tables.new_game(e)

    def state(self) -> dict[str, Any]:
        """What a checkpoint keeps of the rollouts: the games and the log of finished ones."""
        return {
            "tables": self.tables.state(),
            "finished": json.dumps(self.finished),
            "games": self.games,
        }

    def load_state(self, training: dict[str, Any]) -> None:
        """Replay the saved games; take back the counters and the log."""
        self.tables.load_state(training["tables"])
        self.env_steps = int(training["env_steps"])
        self.finished = json.loads(training["finished"])
        self.games = int(training["games"])

    def step_env(self, e: int, action: int) -> None:
        """Step environment ``e``; pay the rewards into the open rows; restart a game over."""
        env, open_row = self.tables.envs[e], self.open_row[e]
        env.step(action)
        for seat, agent in enumerate(env.possible_agents):
            row = open_row[seat]
            if row >= 0:
                self.rew[row, e] += env.rewards.get(agent, 0.0)
        game = env.game
        if game.game_over:
            for seat, row in enumerate(open_row):
                if row >= 0:
                    self.done[row, e] = True
                    open_row[seat] = -1
            t = self.tables
            self.finished.append(game_summary(game, t.learner[e], t.opponents[e]))
            del self.finished[:-RECENT_GAMES]
            self.games += 1
            t.new_game(e)

    def collect(self, net: Any, act_rng: np.random.Generator) -> None:
        """Fill the rollout: ``num_steps`` learner decisions in every environment (the
        network samples by Gumbel-max from ``act_rng``, never torch's global generator)."""
        import torch

        tables, envs = self.tables, self.tables.envs
        E = self.cfg.num_envs
        for rows in self.open_row:
            rows[:] = [-1] * len(rows)
        self.rew[:] = 0.0
        self.done[:] = False
        for t in range(self.cfg.num_steps):
            for e in range(E):  # opponents act until a learner seat is to act
                while not tables.learner[e][tables.acting(e)]:
                    seat = tables.acting(e)
                    mask = envs[e].observe(envs[e].possible_agents[seat])["action_mask"]
                    self.step_env(e, random_legal(mask, act_rng))
            for e in range(E):
                seat = tables.acting(e)
                o = envs[e].observe(envs[e].possible_agents[seat])
                self.obs[t, e] = o["observation"]
                self.mask[t, e] = o["action_mask"].astype(bool)
                self.seat[t, e] = seat
            with torch.no_grad():
                logits, value = net(torch.as_tensor(self.obs[t]), torch.as_tensor(self.mask[t]))
                logp_all = torch.log_softmax(logits, -1).numpy()
            u = act_rng.random(logp_all.shape).clip(1e-12, 1 - 1e-12)
            actions = np.where(self.mask[t], logp_all - np.log(-np.log(u)), -np.inf).argmax(1)
            self.act[t] = actions
            self.logp[t] = logp_all[np.arange(E), actions]
            self.val[t] = value.numpy()
            for e in range(E):
                self.open_row[e][self.seat[t, e]] = t
                self.step_env(e, int(actions[e]))
            self.env_steps += E


# ---------------------------------------------------------------------- training
#: What a Ginny-O training checkpoint's ``training`` dict holds besides config and optimizer.
RESUME_KEYS = ("updates", "env_steps", "seconds", "torch_generator", "act_rng", "tables")
RESUME_KEYS += ("history", "finished", "games")


def train(
    cfg: GinnyPPOConfig, resume_from: dict[str, Any] | None = None, stop_after: int | None = None
) -> dict[str, Any]:
    """Run (or continue) PPO; write ``checkpoint.pt``, ``policy.pt``, ``config.yaml`` and
    ``summary.json``; return the summary. ``stop_after`` stops after that many updates in
    all (a checkpoint is written, nothing else), as if the run were killed there."""
    import torch

    from agents.ginny_o.learned import GinnyPolicyNetwork, checkpoint_payload, write_checkpoint
    from gnome_env.ginny_o.config import GinnyConfig

    out = begin_run(cfg)
    gen = torch.Generator().manual_seed(cfg.seed)
    net = GinnyPolicyNetwork(cfg.hidden, channels=cfg.channels, embedding=cfg.embedding)
    net.reset_parameters(gen)
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    act_rng = np.random.default_rng([cfg.seed, 1])  # learner and opponents' actions
    rngs = {"torch_generator": gen, "act_rng": act_rng}
    play = Rollouts(cfg, net.observation_size, net.num_actions)
    first_update, elapsed, history = 0, 0.0, []
    if resume_from is None:
        play.new_games()
    else:
        t = restore(resume_from, net, opt, rngs)
        play.load_state(t)
        first_update, elapsed = int(t["updates"]), float(t["seconds"])
        history = json.loads(t["history"])
    updates, start = cfg.num_updates, time.perf_counter()

    def seconds() -> float:
        return round(elapsed + time.perf_counter() - start, 1)

    def counters(updates_done: int) -> dict[str, Any]:
        return {"updates": updates_done, "env_steps": play.env_steps, "seconds": seconds()}

    def checkpoint(updates_done: int) -> None:  # the core's training checkpoint
        save_checkpoint(
            out / CHECKPOINT, checkpoint_payload(net, GinnyConfig(), {}), config=cfg,
            optimizer=opt, counters=counters(updates_done), rngs=rngs,
            extras={**play.state(), "history": json.dumps(history)},
        )  # fmt: skip

    def one_update(update: int) -> None:
        if cfg.anneal_lr:
            opt.param_groups[0]["lr"] = annealed_lr(cfg.learning_rate, update, updates)
        t_roll = time.perf_counter()
        play.collect(net, act_rng)
        p = play
        adv, valid = stream_advantages(p.rew, p.val, p.done, p.seat, cfg.gamma, cfg.gae_lambda)
        t_upd = time.perf_counter()
        stats = ppo_update(net, opt, gen, cfg, p, adv, adv + p.val, valid)
        history.append(
            {"update": update + 1, "env_steps": p.env_steps, "seconds": seconds(),
             "rollout_s": round(t_upd - t_roll, 2),
             "update_s": round(time.perf_counter() - t_upd, 2),
             "lr": opt.param_groups[0]["lr"], **stats, "games": p.games,
             **recent_figures(p.finished)}
        )  # fmt: skip
        print(json.dumps(history[-1]), flush=True)

    stopped = run_updates(
        first_update, updates, one_update, checkpoint, cfg.checkpoint_interval, stop_after
    )
    if stopped is not None:
        return {"stopped_after": stopped}
    training = {"config": to_dict(cfg), **counters(updates)}
    write_checkpoint(checkpoint_payload(net, GinnyConfig(), training), out / "policy.pt")
    summary: dict[str, Any] = {
        "config": to_dict(cfg),
        "env_steps": play.env_steps,
        "games": play.games,
        "seconds": seconds(),
        "history": history,
    }
    if cfg.eval_games > 0:
        summary["arena"] = evaluate(out / "policy.pt", cfg)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def ppo_update(
    net: Any,
    opt: Any,
    gen: Any,
    cfg: GinnyPPOConfig,
    rollout: Rollouts,
    adv: np.ndarray,
    ret: np.ndarray,
    valid: np.ndarray,
) -> dict[str, float]:
    """The core's PPO update over the rollout's valid rows; the mean losses, entropy,
    approximate KL, clip fraction and the value's explained variance."""
    import torch

    T, E = rollout.act.shape
    obs, mask = rollout.obs.reshape(T * E, -1), rollout.mask.reshape(T * E, -1)
    act, logp_old = rollout.act.reshape(-1), rollout.logp.reshape(-1)
    adv, ret, valid = adv.reshape(-1), ret.reshape(-1), valid.reshape(-1)
    idx_all = np.flatnonzero(valid)
    rows = torch.as_tensor(idx_all)
    f_obs, f_mask = torch.as_tensor(obs), torch.as_tensor(mask)
    data = {
        "obs": f_obs[rows],
        "masks": f_mask[rows],
        "actions": torch.as_tensor(act)[rows],
        "old_logp": torch.as_tensor(logp_old)[rows],
        "advantages": torch.as_tensor(adv)[rows],
        "returns": torch.as_tensor(ret)[rows],
    }

    def policy(b: dict[str, Any]) -> tuple[Any, Any]:
        logits, value = net(b["obs"], b["masks"])
        return torch.log_softmax(logits, -1), value

    figures = core_update(
        net, opt, data, policy, masked_entropy_mean,
        lambda n: torch.randperm(n, generator=gen),
        epochs=cfg.update_epochs, minibatch_size=max(2, len(idx_all) // cfg.num_minibatches),
        clip_coef=cfg.clip_coef, ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef,
        max_grad_norm=cfg.max_grad_norm, min_size=2,
    )  # fmt: skip
    names = {"pg": "pg", "v": "v", "ent": "ent", "kl": "kl", "clip": "clipfrac"}
    out: dict[str, Any] = {name: round(figures[k], 5) for k, name in names.items()}
    y = ret[idx_all]
    with torch.no_grad():
        pred = np.concatenate(
            [
                net(f_obs[torch.as_tensor(c)], f_mask[torch.as_tensor(c)])[1].numpy()
                for c in np.array_split(idx_all, max(1, len(idx_all) // 512))
            ]
        ) if len(idx_all) else np.zeros(0)  # fmt: skip
    var = float(np.var(y)) if len(y) else 0.0
    out["explained_variance"] = round(1 - float(np.var(y - pred)) / var, 4) if var > 0 else 0.0
    out["samples"] = len(idx_all)
    return out


def game_summary(game: Any, learner: list[bool], opponents: str) -> dict[str, Any]:
    """What the log keeps of a finished training game."""
    n = game.num_players
    winners = game.winners()
    placed = [0] * n
    for seat, _, _ in game.placement_log:
        placed[seat] += 1
    return {
        "players": n,
        "opponents": opponents,
        "turns": int(game.turn),
        "end": game.end_reason,
        "seat0_final": int(game.final_scores[0]),
        "seat0_win": (1.0 / len(winners)) if 0 in winners else 0.0,
        "seat0_placements": placed[0],
        "mean_final": float(np.mean(game.final_scores)),
        "learners": int(sum(learner)),
    }


def recent_figures(games: list[dict[str, Any]]) -> dict[str, Any]:
    """Seat 0's win rate, final score and placements per turn over recent training games,
    per (player count, opponents)."""
    out: dict[str, Any] = {}
    keys = sorted({(g["players"], g["opponents"]) for g in games})
    for n, opp in keys:
        mine = [g for g in games if g["players"] == n and g["opponents"] == opp]
        tag = f"{n}p_{opp}"
        out[f"win_{tag}"] = round(float(np.mean([g["seat0_win"] for g in mine])), 3)
        out[f"score_{tag}"] = round(float(np.mean([g["seat0_final"] for g in mine])), 1)
        per_turn = [g["seat0_placements"] / max(1, g["turns"] / n) for g in mine]
        out[f"place_per_turn_{tag}"] = round(float(np.mean(per_turn)), 3)
        out[f"n_{tag}"] = len(mine)
    return out


# ---------------------------------------------------------------------- evaluation
def evaluate(path: Path | str, cfg: GinnyPPOConfig) -> list[dict[str, Any]]:
    """The policy (most likely action) against n-1 random and n-1 greedy at each player
    count of ``cfg.num_players`` (the arena, ``cfg.eval_games`` games per row, ``eval_seed``)."""
    from agents.core.arena import run_arena

    rows = []
    for n in sorted(set(cfg.num_players)):
        for other in ("random", "greedy"):
            lineup = [f"ppo:{path}"] + [other] * (n - 1)
            result = run_arena(
                lineup, n, cfg.eval_games, seed=cfg.eval_seed, workers=cfg.workers,
                progress=False, game="ginny_o",
            )  # fmt: skip
            s, o = result.stats[0], result.stats[1:]
            rows.append(
                {"players": n, "opponents": other, "games": s.games, "win_rate": s.win_rate,
                 "ci": [s.ci_low, s.ci_high], "one_over_n": 1 / n,
                 "mean_score": s.mean_total,
                 "opponents_mean_score": float(np.mean([x.mean_total for x in o]))}
            )  # fmt: skip
            print(
                f"{n} players vs {n - 1} x {other}: win rate {s.win_rate:.3f} "
                f"[{s.ci_low:.3f}, {s.ci_high:.3f}] (1/n = {1 / n:.3f}, {s.games} games, "
                f"mean score {s.mean_total:.1f} vs {rows[-1]['opponents_mean_score']:.1f})",
                flush=True,
            )
    return rows


# ---------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    """``python -m training.ginny_o.ppo`` / ``gnome train`` (``trainer: ginny_ppo``) options."""
    parser = ArgumentParser(
        prog="gnome train", description="PPO for Ginny-O (ginny_o_v0, trainer: ginny_ppo)"
    )
    add_run_options(parser, RESUME_WITH_CONFIG_HELP)
    parser.add_argument(
        "--eval_policy",
        default=None,
        metavar="PATH",
        help="no training: play the arena table (eval_games, eval_seed, num_players) for PATH",
    )
    add_field_arguments(parser, GinnyPPOConfig)
    return parser


def load_resume(directory: str | Path, overrides: dict[str, Any]) -> tuple[GinnyPPOConfig, dict]:
    """The config and checkpoint to continue the run in ``directory`` (the core's
    :func:`training.core.checkpoints.load_resume`; errors: ValueError)."""
    from agents.ginny_o.learned import network_from_checkpoint, read_checkpoint

    return core_load_resume(
        GinnyPPOConfig, directory, overrides, RESUME_OVERRIDABLE, read_checkpoint,
        network_from_checkpoint, keys=RESUME_KEYS,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Parse, validate, train (or resume, or only evaluate); bad input exits with 2."""
    args = build_parser().parse_args(argv)
    try:
        cfg, data = resume_or_new(args, GinnyPPOConfig, load_resume, guard=args.eval_policy is None)
        if args.eval_policy is not None:
            from agents.ginny_o.learned import read_checkpoint

            read_checkpoint(args.eval_policy)
    except (ConfigError, ValueError) as err:  # bad input: a message, no traceback
        print(f"gnome train: error: {err}", file=sys.stderr)
        return 2
    if args.eval_policy is not None:
        import torch

        torch.set_num_threads(cfg.torch_threads)
        rows = evaluate(args.eval_policy, cfg)
        print(json.dumps(rows))
        return 0
    return train_to_end(train, cfg, data, args.stop_after)


if __name__ == "__main__":
    sys.exit(main())
