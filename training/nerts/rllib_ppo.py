"""Ray RLlib multi-agent PPO (new API stack) on the Nerts Parallel env: one shared policy.

Run (needs the ``rllib`` extra)::

    python -m training.nerts.rllib_ppo --config configs/rllib_nerts_ppo.yaml [--FIELD VALUE ...]

On a Ray cluster, start it first (``ray start --head`` on one machine, ``ray start
--address=HEAD_IP:6379`` on the others, the project installed on every node) and add
``--address auto`` with ``--num_env_runners K``: the K sampling actors spread over the
nodes. Without an address, Ray starts locally.

The file reads top to bottom in the order a run happens:

1. :class:`RLlibNertsConfig` -- every setting, with its help text and its checks;
2. :class:`NertsParallelPettingZooEnv` and :func:`make_env` -- ``nerts_v0.parallel_env``
   (one hand an episode, ``episode="hand"``; every seat acts at every step, N18-N20) in
   RLlib's :class:`ParallelPettingZooEnv`. The subclass only fixes the order of the agent
   ids: RLlib's wrapper lists them from a ``set``, whose order follows Python's hash
   randomisation; ours keeps ``player_0 .. player_{n-1}``. Unlike the Gnoming env the seat
   count is fixed per env (``num_players``, 2..6): the Nerts Parallel env takes no list;
3. :func:`algorithm_config` -- the settings that matter:

   - ``disable_env_checking=True``: RLlib's env checker steps random actions from the
     action space, ignoring the mask; the Nerts env (rightly) raises ``ValueError`` on an
     illegal action (N18), so the check would fail on a correct env;
   - **one module ``shared_policy`` for every seat** (``policy_mapping_fn``), of class
     :class:`agents.core.rllib_module.MaskedPPOTorchRLModule` (RLlib's default PPO module
     with the action mask applied to its logits, so no illegal action is ever sampled; a
     run that finishes is a run that never sampled one). One policy suits every seat
     because each seat's observation is seen from that seat (N34: the seat blocks are
     rotated so that block 0 is the observer), and the arena plays the policy in every seat
     anyway. Per-seat policies would be a ``policies={...}`` set with a
     ``policy_mapping_fn`` returning ``agent_id``; they see 1/n of the data each;
   - ``reward_mode: relative`` (the env's default: each step, the seat's score change minus
     the others' mean; dense and zero-sum, RULES-nerts.md RL notes);
   - ``train_batch_size`` counts *env* steps; each gives one decision per seat, so the
     learner gets ``num_players`` x as many agent steps (``agent_steps`` in history.json);

4. :func:`training.core.rllib_run.train_algorithm` -- ``algo.train()`` per iteration, a line
   of figures each, a checkpoint (``algo.save_to_path``) every ``checkpoint_every``
   iterations and at the end, in ``output_dir/checkpoint``;
5. :func:`evaluate` -- one-hand arena games (``game="nerts"``, the hand cap of training) of
   the checkpoint (:class:`agents.nerts.rllib_agent.RLlibNertsAgent`, the most likely legal
   action from its seat's public view) against n-1 copies of each ``eval_opponents`` bot.

Seeding: ``seed`` goes to ``config.debugging(seed=...)``, which seeds the module
initialisation and the first env reset of every env runner (RLlib adds the runner index;
later hands follow the env's own seed stream). The command re-runs itself with
``PYTHONHASHSEED=0`` when that variable is unset
(:func:`training.core.rllib_run.fix_hash_seed`). Then, with ``num_env_runners: 0`` (sampling
in the driver) and one torch thread, two runs with the same config give the same weights
(``tests/nerts/test_rllib_nerts.py`` checks it). Bad config values exit with status 2 and a
message; a new run into a directory holding one is refused unless ``--overwrite``.
"""

from __future__ import annotations

import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gnome_env.core.config import check_int
from gnome_env.nerts.config import MAX_PLAYERS, MIN_PLAYERS, NertsConfig
from training.core.config import (
    ArgumentParser,
    ConfigError,
    add_field_arguments,
    build_config,
    check_at_least,
    overrides_from_args,
    to_yaml,
)
from training.core.rllib_run import (
    CHECKPOINT_DIR,
    CONFIG_FILE,
    HISTORY_FILE,
    check_rllib_settings,
    fix_hash_seed,
    train_algorithm,
)
from training.core.runs import INTERRUPTED, OVERWRITE_HELP, check_new_run

ENV_NAME = "nerts_v0"
PROG = "python -m training.nerts.rllib_ppo"
REWARD_MODES = ("relative", "score", "sparse")  # nerts_v0's reward_mode choices
#: The files that mark a directory as holding a run of this trainer.
RUN_MARKERS = (CONFIG_FILE, HISTORY_FILE, CHECKPOINT_DIR)


# ---------------------------------------------------------------------- 1. the config
@dataclass(frozen=True)
class RLlibNertsConfig:
    """Settings of one RLlib PPO run on Nerts (YAML file + ``--FIELD VALUE`` overrides)."""

    seed: int = field(default=0, metadata={"help": "seed of the module and env resets (>= 0)"})
    num_players: int = field(
        default=4, metadata={"help": f"seats of every game ({MIN_PLAYERS}..{MAX_PLAYERS})"}
    )
    reward_mode: str = field(
        default="relative",
        metadata={"help": f"nerts_v0 reward scheme, one of {', '.join(REWARD_MODES)}"},
    )
    max_steps_per_hand: int = field(
        default=400, metadata={"help": "N28 step cap of a hand, in training and the arena"}
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
        default=0, metadata={"help": "sampling actors (0: sample in the driver process)"}
    )
    num_cpus: int | None = field(
        default=None,
        metadata={"help": "CPUs a local Ray may use (null: all); ignored with an address"},
    )
    train_batch_size: int = field(
        default=2000,
        metadata={"help": "env steps per iteration (each: one decision of every seat)"},
    )
    minibatch_size: int = field(default=500, metadata={"help": "PPO minibatch size"})
    num_epochs: int = field(default=4, metadata={"help": "PPO epochs per train batch (>= 1)"})
    lr: float = field(default=3e-4, metadata={"help": "Adam learning rate (> 0)"})
    gamma: float = field(default=0.995, metadata={"help": "discount factor, in (0, 1]"})
    lambda_: float = field(default=0.95, metadata={"help": "GAE lambda, in [0, 1]"})
    clip_param: float = field(default=0.2, metadata={"help": "PPO clip range (> 0)"})
    entropy_coeff: float = field(default=0.01, metadata={"help": "entropy bonus (>= 0)"})
    hidden: list[int] = field(
        default_factory=lambda: [256, 256],
        metadata={"help": "hidden layer sizes (RLlib fcnet_hiddens)"},
    )
    torch_threads: int = field(default=1, metadata={"help": "torch CPU threads (>= 1)"})
    output_dir: str = field(
        default="runs/rllib_nerts_ppo",
        metadata={"help": f"directory for {CHECKPOINT_DIR}/, {CONFIG_FILE} and {HISTORY_FILE}"},
    )
    checkpoint_every: int = field(
        default=10, metadata={"help": "iterations between checkpoints (>= 1; also at the end)"}
    )
    eval_games: int = field(
        default=60, metadata={"help": "one-hand arena games per opponent after training (0: skip)"}
    )
    eval_opponents: list[str] = field(
        default_factory=lambda: ["random", "greedy"],
        metadata={"help": "Nerts bots the final arena plays the checkpoint against"},
    )

    def validate(self) -> None:
        """Raise ConfigError naming the first field whose value is not allowed."""
        try:
            check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        except ValueError as err:
            raise ConfigError(str(err)) from None
        check_at_least("max_steps_per_hand", self.max_steps_per_hand, 1)
        steps = self.train_batch_size * self.num_players
        limit = f"train_batch_size x num_players ({steps} agent steps)"
        check_rllib_settings(self, REWARD_MODES, steps, limit)
        from agents.nerts.registry import make_nerts_agent

        for spec in self.eval_opponents:
            try:
                make_nerts_agent(spec, 0, self.rules())
            except (ValueError, ImportError) as err:
                raise ConfigError(f"eval_opponents: {spec!r} is not allowed: {err}") from None

    def rules(self) -> NertsConfig:
        """The Nerts rules of training and of the arena games (one hand, the step cap)."""
        return NertsConfig(
            num_players=self.num_players, max_steps_per_hand=self.max_steps_per_hand, max_hands=1
        )


# ---------------------------------------------------------------------- 2. the environment
def _parallel_env_class() -> type:
    from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv

    class NertsParallelPettingZooEnv(ParallelPettingZooEnv):
        """RLlib's ParallelPettingZooEnv with the agent ids in seat order (see the top)."""

        def __init__(self, env: Any) -> None:
            super().__init__(env)
            agents = list(env.possible_agents)
            self.agents = agents
            self.possible_agents = list(agents)

    return NertsParallelPettingZooEnv


def make_env(env_config: dict[str, Any]) -> Any:
    """The env RLlib builds on every runner: the Nerts Parallel env in RLlib's wrapper."""
    from gnome_env.nerts import nerts_v0

    raw = nerts_v0.parallel_env(
        num_players=int(env_config["num_players"]),
        reward_mode=env_config["reward_mode"],
        max_steps_per_hand=int(env_config["max_steps_per_hand"]),
    )
    return _parallel_env_class()(raw)


# ---------------------------------------------------------------------- 3. the algorithm
def algorithm_config(cfg: RLlibNertsConfig) -> Any:
    """The RLlib ``PPOConfig`` of a run (see the module docstring for each choice)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from agents.core.rllib_module import SHARED_POLICY, MaskedPPOTorchRLModule

    register_env(ENV_NAME, make_env)
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        model_config={"fcnet_hiddens": list(cfg.hidden), "vf_share_layers": False},
    )
    env_config = {
        "num_players": cfg.num_players,
        "reward_mode": cfg.reward_mode,
        "max_steps_per_hand": cfg.max_steps_per_hand,
    }
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
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
def train(cfg: RLlibNertsConfig, log: Any = print) -> Path:
    """Run ``iterations`` training iterations; the final checkpoint's path."""
    from agents.core.rllib_module import SHARED_POLICY

    return train_algorithm(cfg, algorithm_config(cfg), SHARED_POLICY, log)


# ---------------------------------------------------------------------- 5. evaluation
def evaluate(cfg: RLlibNertsConfig, checkpoint: Path) -> str:
    """A markdown table: the checkpoint against n-1 copies of each bot, one-hand games."""
    from agents.core.arena import run_arena
    from agents.nerts.rllib_agent import RLlibNertsEntry

    n = cfg.num_players
    rules = {"max_hands": 1, "max_steps_per_hand": cfg.max_steps_per_hand}
    lines = [
        "| opponents | seats | games | win rate | 95% interval | mean hand score | 1/n |",
        "|---|---|---|---|---|---|---|",
    ]
    for bot in cfg.eval_opponents:
        lineup = [RLlibNertsEntry(checkpoint)] + [bot] * (n - 1)
        res = run_arena(
            lineup, n, cfg.eval_games, seed=cfg.seed, rules=rules, progress=False, game="nerts"
        )
        s = res.stats[0]
        lines.append(
            f"| {n - 1} x {bot} | {n} | {s.games} | {s.win_rate:.3f} | "
            f"[{s.ci_low:.3f}, {s.ci_high:.3f}] | {s.mean_round_score:.1f} | {1 / n:.3f} |"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------- the command
def parse(argv: list[str] | None = None) -> RLlibNertsConfig | None:
    """``--config FILE``, ``--FIELD VALUE`` overrides and ``--overwrite`` into a validated
    config whose output_dir is safe to write; on bad input print ``PROG: error: ...`` to
    stderr and return None. A directory holding a run (``config.yaml``, ``history.json`` or
    ``checkpoint/``) is refused unless ``--overwrite``, which removes those first."""
    parser = ArgumentParser(
        prog=PROG, description="Ray RLlib PPO with action masking on Nerts: one shared policy."
    )
    parser.add_argument("--config", default=None, help="YAML file of config fields")
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    add_field_arguments(parser, RLlibNertsConfig)
    args = parser.parse_args(argv)
    try:
        cfg = build_config(RLlibNertsConfig, args.config, overrides_from_args(args))
        check_new_run(cfg.output_dir, args.overwrite, resumable=False, markers=RUN_MARKERS)
    except ConfigError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return None
    old = Path(cfg.output_dir) / CHECKPOINT_DIR
    if args.overwrite and old.is_dir():
        shutil.rmtree(old)  # check_new_run removes the files; the checkpoint is a directory
    return cfg


def main(argv: list[str] | None = None) -> int:
    """Parse the config, train, checkpoint, evaluate; 0 on success, 2 for a bad config,
    130 after Ctrl-C (with a note naming the last checkpoint, if any)."""
    cfg = parse(argv)
    if cfg is None:
        return 2
    print(to_yaml(cfg), end="", flush=True)
    start = time.perf_counter()
    try:
        checkpoint = train(cfg, log=lambda line: print(line, flush=True))
        print(f"trained in {time.perf_counter() - start:.1f} s; checkpoint: {checkpoint}",
              flush=True)  # fmt: skip
        if cfg.eval_games > 0:
            print(evaluate(cfg, checkpoint))
    except KeyboardInterrupt:
        kept = Path(cfg.output_dir) / CHECKPOINT_DIR
        note = f"the last checkpoint is {kept}" if kept.is_dir() else "no checkpoint was written"
        print(f"\n{PROG}: interrupted (Ctrl-C); {note}", file=sys.stderr, flush=True)
        return INTERRUPTED
    return 0


if __name__ == "__main__":
    fix_hash_seed("training.nerts.rllib_ppo")
    sys.exit(main())
