"""Train one learner seat with sb3-contrib's MaskablePPO against fixed bots, save it, evaluate it.

Run::

    python -m training.gnoming.sb3_maskable_ppo --config configs/sb3_maskable_ppo.yaml [--FIELD
    VALUE ...]

The file reads top to bottom in the order a run happens:

1. :class:`SB3Config` -- every setting, with its help text and its checks;
2. :func:`make_env` -- one :class:`gnome_env.gnoming.gym_env.GnomeSingleSeatEnv` per entry of
   ``num_players`` (a fixed seat count each, the learner seat drawn at every reset), the
   other seats played by the ``opponents`` bots, in a ``DummyVecEnv`` (one process: the
   bots are cheap, and two cores leave no room for subprocess workers);
3. :func:`train` -- ``MaskablePPO("MlpPolicy", ...)``, which reads each sub-env's
   ``action_masks()`` and so only ever samples legal actions;
4. :func:`save` -- ``model.zip`` and the resolved ``config.yaml`` in ``output_dir``, each
   written to a temporary file in that directory and moved into place with ``os.replace``
   (a reader never sees half a file);
5. :func:`evaluate` -- ``eval_games`` arena games per seat count, the saved model
   (``sb3:PATH``, most likely legal action) against the opponents, and a table of win rates
   with 95% confidence intervals against the equal-strength rate 1/n.

Seeding
-------
Everything derives from ``seed``: the opponents' seeds (``SeedSequence(seed, spawn_key=(i,))``
for sub-env ``i``), the env resets and the network's initialisation and sampling. The last two
come from ``MaskablePPO(seed=seed)``: sb3's ``set_random_seed`` then seeds *global* random
state itself -- Python's ``random``, numpy's legacy ``np.random`` and torch's global
generator (``torch.manual_seed``) -- and calls ``VecEnv.seed(seed)``, which makes the first
reset of sub-env ``i`` use seed ``seed + i`` (later resets continue each env's own
generator). This script adds no global random state of its own; the evaluation is seeded
through :func:`agents.gnoming.arena.run_arena`'s ``seed``. Runs with the same config on the same
machine and library versions give the same model; ``torch_threads`` > 1 may change the
float rounding, hence the model.

``total_timesteps`` is rounded up by sb3 to whole rollouts of ``n_steps x len(num_players)``
steps. The exit status is 0 on success and 2 for a bad config (the message names the field,
what was given and what is allowed).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gnome_env.gnoming.config import MAX_PLAYERS, MIN_PLAYERS, RulesConfig
from gnome_env.gnoming.rewards import REWARD_MODES
from training.core.config import (
    ConfigError,
    check_at_least,
    check_in_range,
    config_from_command_line,
    to_yaml,
)

MODEL_FILE = "model.zip"
CONFIG_FILE = "config.yaml"


# ---------------------------------------------------------------------- 1. the config
@dataclass(frozen=True)
class SB3Config:
    """Settings of one MaskablePPO run (YAML file + ``--FIELD VALUE`` overrides)."""

    seed: int = field(default=0, metadata={"help": "seed of everything in the run (>= 0)"})
    num_players: list[int] = field(
        default_factory=lambda: [3, 4, 5, 6, 7],
        metadata={"help": "seat count of each training sub-env (one env per entry, 3..7)"},
    )
    opponents: list[str] = field(
        default_factory=lambda: ["random"],
        metadata={
            "help": "agent specs for the other seats (agents.gnoming.registry), used in turn "
            "after the learner: the k-th seat after it plays opponents[k mod len(opponents)]"
        },
    )
    reward_mode: str = field(
        default="score", metadata={"help": f"reward scheme, one of {', '.join(REWARD_MODES)}"}
    )
    total_timesteps: int = field(
        default=50_000, metadata={"help": "learner decisions to train on, all sub-envs together"}
    )
    n_steps: int = field(
        default=512, metadata={"help": "steps per sub-env per rollout (PPO n_steps, >= 2)"}
    )
    batch_size: int = field(
        default=256,
        metadata={"help": "PPO minibatch size, 2..n_steps x len(num_players) (best a divisor)"},
    )
    n_epochs: int = field(default=10, metadata={"help": "PPO epochs over each rollout (>= 1)"})
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam learning rate (> 0)"})
    gamma: float = field(default=0.99, metadata={"help": "discount factor, in (0, 1]"})
    gae_lambda: float = field(default=0.95, metadata={"help": "GAE lambda, in [0, 1]"})
    clip_range: float = field(default=0.2, metadata={"help": "PPO clip range (> 0)"})
    ent_coef: float = field(default=0.01, metadata={"help": "entropy bonus coefficient (>= 0)"})
    net_arch: list[int] = field(
        default_factory=lambda: [128, 128],
        metadata={"help": "hidden layer widths of the policy and of the value network"},
    )
    output_dir: str = field(
        default="runs/sb3_maskable_ppo",
        metadata={"help": f"directory for {MODEL_FILE} and {CONFIG_FILE} (created if missing)"},
    )
    eval_games: int = field(
        default=60,
        metadata={"help": "arena games per seat count after training, vs the opponents (0: skip)"},
    )
    torch_threads: int = field(default=1, metadata={"help": "torch CPU threads (>= 1)"})
    verbose: int = field(
        default=1, metadata={"help": "0: quiet, 1: sb3's table after every rollout"}
    )

    def validate(self) -> None:
        """Raise ConfigError naming the first field whose value is not allowed."""
        for name in ("total_timesteps", "n_epochs", "torch_threads"):
            check_at_least(name, getattr(self, name), 1)
        for name in ("seed", "eval_games"):
            check_at_least(name, getattr(self, name), 0)
        check_at_least("n_steps", self.n_steps, 2)
        if not self.num_players:
            raise ConfigError("num_players=[] is not allowed: give at least one seat count")
        for n in self.num_players:
            if not MIN_PLAYERS <= n <= MAX_PLAYERS:
                raise ConfigError(
                    f"num_players={self.num_players!r} is not allowed: every seat count must "
                    f"be from {MIN_PLAYERS} to {MAX_PLAYERS}"
                )
        rollout = self.n_steps * len(self.num_players)
        if not 2 <= self.batch_size <= rollout:
            raise ConfigError(
                f"batch_size={self.batch_size!r} is not allowed: must be from 2 to n_steps x "
                f"len(num_players) = {rollout} (the rollout size)"
            )
        if self.reward_mode not in REWARD_MODES:
            raise ConfigError(
                f"reward_mode={self.reward_mode!r} is not allowed: must be one of "
                f"{', '.join(REWARD_MODES)}"
            )
        check_in_range("learning_rate", self.learning_rate, 0.0, None, low_open=True)
        check_in_range("gamma", self.gamma, 0.0, 1.0, low_open=True)
        check_in_range("gae_lambda", self.gae_lambda, 0.0, 1.0)
        check_in_range("clip_range", self.clip_range, 0.0, None, low_open=True)
        check_in_range("ent_coef", self.ent_coef, 0.0, None)
        if not self.net_arch or any(width < 1 for width in self.net_arch):
            raise ConfigError(
                f"net_arch={self.net_arch!r} is not allowed: must be a non-empty list of "
                "positive layer widths, e.g. [128, 128]"
            )
        if not self.output_dir.strip():
            raise ConfigError("output_dir='' is not allowed: give a directory path")
        if self.verbose not in (0, 1):
            raise ConfigError(f"verbose={self.verbose!r} is not allowed: must be 0 or 1")
        _check_opponents(self.opponents, min(self.num_players))


def _check_opponents(specs: list[str], num_players: int) -> None:
    """ConfigError unless every spec builds an agent (so typos fail before training)."""
    from agents.gnoming.registry import known_specs, make_agent

    if not specs:
        raise ConfigError(
            "opponents=[] is not allowed: give at least one agent spec "
            f"({', '.join(known_specs())})"
        )
    for spec in specs:
        try:
            make_agent(spec, 0, RulesConfig(num_players=num_players))
        except (ValueError, ImportError) as err:
            raise ConfigError(f"opponents: {spec!r} is not allowed: {err}") from None


# ---------------------------------------------------------------------- 2. the environments
def opponent_seeds(seed: int, env_index: int, count: int) -> list[int]:
    """Seeds of the ``count`` opponents of sub-env ``env_index`` (non-negative 63-bit ints)."""
    words = np.random.SeedSequence(seed, spawn_key=(env_index,)).generate_state(count, np.uint64)
    return [int(w) >> 1 for w in words]


def make_env(config: SB3Config, env_index: int) -> Callable[[], Any]:
    """A factory of sub-env ``env_index``: ``num_players[env_index]`` seats, bots, Monitor."""

    def build() -> Any:
        from stable_baselines3.common.monitor import Monitor

        from agents.gnoming.registry import make_agent
        from gnome_env.gnoming.gym_env import GnomeSingleSeatEnv

        n = config.num_players[env_index]
        rules = RulesConfig(num_players=n)
        seeds = opponent_seeds(config.seed, env_index, n - 1)
        opponents = [
            make_agent(config.opponents[k % len(config.opponents)], seeds[k], rules)
            for k in range(n - 1)
        ]
        env = GnomeSingleSeatEnv(
            n, opponents=opponents, learner_seat="random", reward_mode=config.reward_mode
        )
        return Monitor(env)  # episode returns and lengths for sb3's rollout/ep_* log lines

    return build


# ---------------------------------------------------------------------- 3. training
def train(config: SB3Config) -> Any:
    """Build the vectorized envs and a MaskablePPO, and learn for ``total_timesteps``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(config.torch_threads)
    venv = DummyVecEnv([make_env(config, i) for i in range(len(config.num_players))])
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        policy_kwargs={"net_arch": list(config.net_arch)},
        seed=config.seed,  # seeds python/numpy/torch global RNGs and the env resets (see top)
        device="cpu",
        verbose=config.verbose,
    )
    model.learn(total_timesteps=config.total_timesteps)
    venv.close()
    return model


# ---------------------------------------------------------------------- 4. saving
def save(model: Any, config: SB3Config) -> Path:
    """Write ``model.zip`` and ``config.yaml`` into ``output_dir``; the model's path."""
    from agents.gnoming.learned import atomic_write

    out = Path(config.output_dir)
    out.mkdir(parents=True, exist_ok=True)
    model_path = out / MODEL_FILE
    atomic_write(model_path, model.save)  # sb3 writes the zip to an open file as well
    atomic_write(out / CONFIG_FILE, lambda h: h.write(to_yaml(config).encode("utf-8")))
    return model_path


# ---------------------------------------------------------------------- 5. evaluation
def evaluate(config: SB3Config, model_path: Path) -> list[dict[str, Any]]:
    """Arena games of the saved model against the opponents, per seat count; one row each."""
    from agents.gnoming.arena import run_arena

    rows = []
    for n in dict.fromkeys(config.num_players):  # each seat count once, in config order
        lineup = [f"sb3:{model_path}"] + [
            config.opponents[k % len(config.opponents)] for k in range(n - 1)
        ]
        result = run_arena(lineup, n, config.eval_games, seed=config.seed, progress=False)
        learner = result.stats[0]
        rows.append(
            {
                "num_players": n,
                "games": learner.games,
                "win_rate": learner.win_rate,
                "ci_low": learner.ci_low,
                "ci_high": learner.ci_high,
                "equal": 1 / n,
                "mean_rank": learner.mean_rank,
            }
        )
    return rows


def eval_table(rows: list[dict[str, Any]], opponents: list[str]) -> str:
    """The evaluation rows as a compact text table."""
    lines = [
        f"learner (sb3, most likely action) vs {', '.join(opponents)}; "
        "win rate = mean win share, 95% CI over deals",
        f"{'seats':>5}  {'games':>5}  {'win rate [95% CI]':<22}  {'1/n':>5}  {'mean rank':>9}",
    ]
    for r in rows:
        ci = f"{r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        lines.append(
            f"{r['num_players']:>5}  {r['games']:>5}  {ci:<22}  {r['equal']:>5.3f}  "
            f"{r['mean_rank']:>9.2f}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------- the command
def main(argv: list[str] | None = None) -> int:
    """Parse the config, train, save, evaluate; 0 on success, 2 for a bad config."""
    config = config_from_command_line(
        SB3Config,
        "python -m training.gnoming.sb3_maskable_ppo",
        "Train a MaskablePPO learner seat against fixed bots (sb3-contrib).",
        argv,
    )
    if config is None:
        return 2

    print(to_yaml(config), end="", flush=True)
    start = time.perf_counter()
    model = train(config)
    trained = time.perf_counter() - start
    print(
        f"trained {model.num_timesteps} steps in {trained:.1f} s "
        f"({model.num_timesteps / trained:.0f} steps/s)",
        flush=True,
    )
    model_path = save(model, config)
    print(f"saved {model_path} and {model_path.parent / CONFIG_FILE}", flush=True)
    if config.eval_games > 0:
        start = time.perf_counter()
        rows = evaluate(config, model_path)
        print(eval_table(rows, config.opponents))
        print(f"evaluated in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
