"""Ray RLlib PPO (new API stack) on the PettingZoo AEC env: one shared policy for 3-7 seats.

Run (needs the ``rllib`` extra)::

    python -m training.gnoming.rllib_ppo --config configs/rllib_ppo.yaml [--FIELD VALUE ...]

On a Ray cluster, start it first (``ray start --head`` on one machine, ``ray start
--address=HEAD_IP:6379`` on the others, the project installed on every node) and add
``--address auto`` (or set ``RAY_ADDRESS``): ``ray.init(address="auto")`` joins it, and
``num_env_runners`` sampling actors spread over its nodes. Without an address, Ray starts
locally.

The file reads top to bottom in the order a run happens:

1. :class:`RLlibConfig` -- every setting, with its help text and its checks;
2. :class:`GnomePettingZooEnv` and :func:`make_env` -- ``gnoming_a_round_v1.raw_env`` with
   ``num_players`` as a *list*, so every reset draws the seat count from the env's seed,
   wrapped in RLlib's :class:`PettingZooEnv`. The subclass only fixes the agent set:
   RLlib's wrapper takes the agents of one ``reset()`` as *all* agents, which with a drawn
   seat count could be 3 of 7; ours declares ``possible_agents`` (always 7) and their
   spaces, so one policy is built once and serves every seat count;
3. :func:`algorithm_config` -- the settings that matter:

   - ``disable_env_checking=True``: RLlib's env checker steps the env with random actions
     from the action space, ignoring the mask; our raw env (rightly) raises on an illegal
     action, so the check would fail on a correct env;
   - one module ``shared_policy`` for every agent (``policy_mapping_fn``), of class
     :class:`agents.gnoming.rllib_agent.MaskedPPOTorchRLModule`: RLlib's public default PPO module
     with the action mask applied to its logits, so no illegal action is ever sampled. The
     env is the *raw* env, which raises ``ValueError`` on an illegal action -- so a run
     that finishes is a run that never sampled one;
   - ``reward_mode: score`` (dense, zero-sum per round), ``gamma`` 1;

4. :func:`train` -- ``algo.train()`` per iteration, a line of figures each, a checkpoint
   (``algo.save_to_path``) every ``checkpoint_every`` iterations and at the end, in
   ``output_dir/checkpoint``; ``rllib:output_dir/checkpoint`` is then an arena lineup entry;
5. :func:`evaluate` -- arena games per seat count of the checkpoint against ``eval_opponents``.

Seeding: ``seed`` goes to ``config.debugging(seed=...)``, which seeds the module
initialisation and every env runner's env resets (RLlib adds the runner index). RLlib also
iterates over sets of agent ids, whose order follows Python's hash randomisation, so the
command re-runs itself with ``PYTHONHASHSEED=0`` when that variable is unset. Then, with
``num_env_runners: 0`` (sampling in the driver) and one torch thread, two runs with the same
config give the same weights (``tests/gnoming/test_rllib.py`` checks it). Bad config values exit
with status 2 and a message.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.gnoming.rllib_agent import SHARED_POLICY, MaskedPPOTorchRLModule
from gnome_env.gnoming.config import seat_counts
from gnome_env.gnoming.rewards import REWARD_MODES
from training.core.config import (
    ConfigError,
    config_from_command_line,
    to_yaml,
)
from training.core.rllib_run import (
    CHECKPOINT_DIR,
    CONFIG_FILE,
    check_rllib_settings,
    fix_hash_seed,
    train_algorithm,
)

ENV_NAME = "gnoming_a_round_v1"


# ---------------------------------------------------------------------- 1. the config
@dataclass(frozen=True)
class RLlibConfig:
    """Settings of one RLlib PPO run (YAML file + ``--FIELD VALUE`` overrides)."""

    seed: int = field(default=0, metadata={"help": "seed of the module and env resets (>= 0)"})
    num_players: list[int] = field(
        default_factory=lambda: [3, 4, 5, 6, 7],
        metadata={"help": "seat counts; each game draws one (3..7)"},
    )
    reward_mode: str = field(
        default="score", metadata={"help": f"reward scheme, one of {', '.join(REWARD_MODES)}"}
    )
    iterations: int = field(default=20, metadata={"help": "algo.train() calls (>= 1)"})
    address: str | None = field(
        default=None,
        metadata={
            "help": "Ray cluster to join: null starts Ray locally (or joins RAY_ADDRESS); "
            "'auto' joins the cluster this machine belongs to; or HOST:PORT"
        },
    )
    num_env_runners: int = field(
        default=0,
        metadata={"help": "sampling actors (0: sample in the driver process)"},
    )
    num_cpus: int | None = field(
        default=None,
        metadata={"help": "CPUs a local Ray may use (null: all); ignored with an address"},
    )
    train_batch_size: int = field(
        default=4000, metadata={"help": "env steps (all agents) per training iteration"}
    )
    minibatch_size: int = field(default=500, metadata={"help": "PPO minibatch size"})
    num_epochs: int = field(default=4, metadata={"help": "PPO epochs per train batch (>= 1)"})
    lr: float = field(default=3e-4, metadata={"help": "Adam learning rate (> 0)"})
    gamma: float = field(default=1.0, metadata={"help": "discount factor, in (0, 1]"})
    lambda_: float = field(default=0.95, metadata={"help": "GAE lambda, in [0, 1]"})
    clip_param: float = field(default=0.2, metadata={"help": "PPO clip range (> 0)"})
    entropy_coeff: float = field(default=0.01, metadata={"help": "entropy bonus (>= 0)"})
    hidden: list[int] = field(
        default_factory=lambda: [256, 256],
        metadata={"help": "hidden layer sizes (RLlib fcnet_hiddens)"},
    )
    torch_threads: int = field(default=1, metadata={"help": "torch CPU threads (>= 1)"})
    output_dir: str = field(
        default="runs/rllib_ppo",
        metadata={"help": f"directory for {CHECKPOINT_DIR}/, {CONFIG_FILE} and history.json"},
    )
    checkpoint_every: int = field(
        default=10, metadata={"help": "iterations between checkpoints (>= 1; also at the end)"}
    )
    eval_games: int = field(
        default=60, metadata={"help": "arena games per seat count after training (0: skip)"}
    )
    eval_opponents: list[str] = field(
        default_factory=lambda: ["random", "greedy"],
        metadata={"help": "bots the final arena plays the checkpoint against"},
    )

    def validate(self) -> None:
        """Raise ConfigError naming the first field whose value is not allowed."""
        try:
            seat_counts(self.num_players)
        except ValueError as err:
            raise ConfigError(str(err)) from None
        limit = f"train_batch_size ({self.train_batch_size})"
        check_rllib_settings(self, REWARD_MODES, self.train_batch_size, limit)
        from agents.gnoming.registry import make_agent

        for spec in self.eval_opponents:
            try:
                make_agent(spec, 0)
            except (ValueError, ImportError) as err:
                raise ConfigError(f"eval_opponents: {spec!r} is not allowed: {err}") from None


# ---------------------------------------------------------------------- 2. the environment
def _pettingzoo_env_class() -> type:
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    class GnomePettingZooEnv(PettingZooEnv):
        """RLlib's PettingZooEnv with the agent set of ``possible_agents`` (see the top)."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            agents = list(env.possible_agents)
            self._agent_ids = set(agents)
            self.agents = agents
            self.possible_agents = list(agents)
            self.observation_spaces = {a: env.observation_space(a) for a in agents}
            self.action_spaces = {a: env.action_space(a) for a in agents}
            import gymnasium

            self.observation_space = gymnasium.spaces.Dict(self.observation_spaces)
            self.action_space = gymnasium.spaces.Dict(self.action_spaces)

    return GnomePettingZooEnv


def make_env(env_config: dict[str, Any]) -> Any:
    """The env RLlib builds on every runner: the raw AEC env in RLlib's wrapper."""
    from gnome_env.gnoming import gnoming_a_round_v1

    raw = gnoming_a_round_v1.raw_env(
        num_players=list(env_config["num_players"]), reward_mode=env_config["reward_mode"]
    )
    return _pettingzoo_env_class()(raw)


# ---------------------------------------------------------------------- 3. the algorithm
def algorithm_config(cfg: RLlibConfig) -> Any:
    """The RLlib ``PPOConfig`` of a run (see the module docstring for each choice)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={"fcnet_hiddens": list(cfg.hidden), "vf_share_layers": False},
    )
    return (
        PPOConfig()
        .environment(
            ENV_NAME,
            env_config={"num_players": list(cfg.num_players), "reward_mode": cfg.reward_mode},
            disable_env_checking=True,
        )
        .framework("torch")
        .env_runners(num_env_runners=cfg.num_env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .multi_agent(
            policies={SHARED_POLICY},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: SHARED_POLICY,
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            clip_param=cfg.clip_param,
            entropy_coeff=cfg.entropy_coeff,
        )
        .debugging(seed=cfg.seed)
    )


# ---------------------------------------------------------------------- 4. training
def train(cfg: RLlibConfig, log: Any = print) -> Path:
    """Run ``iterations`` training iterations; the final checkpoint's path
    (:func:`training.core.rllib_run.train_algorithm`)."""
    return train_algorithm(cfg, algorithm_config(cfg), SHARED_POLICY, log)


# ---------------------------------------------------------------------- 5. evaluation
def evaluate(cfg: RLlibConfig, checkpoint: Path) -> str:
    """A markdown table: the checkpoint against n-1 copies of each bot, per seat count."""
    from agents.gnoming.arena import run_arena

    lines = [
        "| opponents | seats | games | win rate | 95% interval | 1/n |",
        "|---|---|---|---|---|---|",
    ]
    for bot in cfg.eval_opponents:
        for n in sorted(set(cfg.num_players)):
            res = run_arena(
                [f"rllib:{checkpoint}"] + [bot] * (n - 1), n, cfg.eval_games, seed=cfg.seed,
                progress=False,
            )  # fmt: skip
            s = res.stats[0]
            lines.append(
                f"| {n - 1} x {bot} | {n} | {s.games} | {s.win_rate:.3f} | "
                f"[{s.ci_low:.3f}, {s.ci_high:.3f}] | {1 / n:.3f} |"
            )
    return "\n".join(lines)


# ---------------------------------------------------------------------- the command
def main(argv: list[str] | None = None) -> int:
    """Parse the config, train, checkpoint, evaluate; 0 on success, 2 for a bad config."""
    cfg = config_from_command_line(
        RLlibConfig,
        "python -m training.gnoming.rllib_ppo",
        "Ray RLlib PPO with action masking: one shared policy for 3-7 seats.",
        argv,
    )
    if cfg is None:
        return 2
    print(to_yaml(cfg), end="", flush=True)
    start = time.perf_counter()
    checkpoint = train(cfg, log=lambda line: print(line, flush=True))
    print(f"trained in {time.perf_counter() - start:.1f} s; checkpoint: {checkpoint} "
          f"(use it as rllib:{checkpoint})", flush=True)  # fmt: skip
    if cfg.eval_games > 0:
        print(evaluate(cfg, checkpoint))
    return 0


if __name__ == "__main__":
    fix_hash_seed("training.gnoming.rllib_ppo")
    sys.exit(main())
