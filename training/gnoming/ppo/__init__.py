"""Self-play PPO on the vector engine: one policy for every seat count (3-7).

Run it::

    gnome train --config configs/quickstart.yaml                 # ~11 minutes on 2 cores
    gnome train --config configs/full.yaml --output_dir runs/full
    gnome train --config configs/quickstart.yaml --total_steps 500000 --seed 3   # overrides
    gnome train --resume runs/quickstart                         # continue a killed run

(``python -m training.gnoming.ppo ...`` is the same.) The package reads in the order of a run, as
CleanRL's ``ppo.py`` does:

* :mod:`training.gnoming.ppo.config` -- every setting (:class:`PPOConfig`);
* :mod:`training.gnoming.ppo.selfplay` -- the games, who plays each seat, the opponent pool, the
  expert decisions and the rollouts;
* :mod:`training.gnoming.ppo.update` -- advantages (GAE along each seat's decisions) and the
  PPO-clip update;
* :mod:`training.gnoming.ppo.pretrain` -- the optional imitation warm start;
* :mod:`training.gnoming.ppo.evaluation` -- arena evaluation, its table and plot;
* :mod:`training.gnoming.ppo.run` -- :func:`train`: the loop with checkpoints, resume and report;
* :mod:`training.gnoming.ppo.command` -- ``gnome train``'s command line.

How the games are played
------------------------
:class:`gnome_env.gnoming.vector.VectorGame` runs ``num_envs`` games at once; each new game draws
its seat count from ``num_players`` (from its seed) and its *seat controllers*:

* with probability ``self_play_fraction`` every seat is the learner (the current network);
* otherwise one seat, drawn at random, is the learner and every other seat is one opponent
  from the pool: a bot from ``bot_opponents`` (with probability ``bot_fraction``) or a
  frozen snapshot of the network -- the untrained one at the start, then one every
  ``snapshot_interval`` updates (the pool keeps the latest ``pool_size``; with
  ``pool_size: 0`` the bots play every non-self-play game).

Every learner decision is a training sample. A seat's reward for a decision is the sum of
the rewards the engine pays that seat from this decision up to its next one (rewards
``[B, 7]`` arrive for every seat at round or game end, whoever acted), and the advantage
runs along each (game, seat) chain of decisions (GAE, ``gamma``/``gae_lambda``). The last
decision of a chain that is still open when the rollout ends only bootstraps the one
before it and is not trained on (its return is not known yet).

What you get in ``output_dir``
------------------------------
``config.yaml`` (resolved config), ``checkpoint.pt`` (latest training checkpoint: weights,
optimizer, config, sizes, env version, random states and the games in progress, written
atomically every ``checkpoint_interval`` updates), ``policy.pt`` (the final policy alone,
small, what ``ppo:PATH`` loads), ``tb/`` (TensorBoard: ``losses/*``, ``charts/*``,
``eval/win_rate/<bot>/<n>p``), ``history.json`` (evaluations), ``learning_curve.png`` and
``arena.json``/``arena.md`` (the final arena table).

Determinism: one seed drives everything (network init, action sampling, minibatches,
seat controllers, games); no global random state is used. On CPU with the same
``torch_threads`` the same config gives the same parameters, also across ``--resume``.
"""

from __future__ import annotations

from training.gnoming.ppo.command import build_parser, load_resume, main
from training.gnoming.ppo.config import RESUME_OVERRIDABLE, PPOConfig
from training.gnoming.ppo.evaluation import arena_table, evaluate, plot_learning_curve
from training.gnoming.ppo.pretrain import (
    PRETRAIN_CHUNK_ENVS,
    PRETRAIN_CHUNKS,
    pretrain,
    teacher_chunk,
)
from training.gnoming.ppo.run import Reporter, Run, load_init_policy, train
from training.gnoming.ppo.selfplay import (
    LEARNER,
    HintPool,
    LayoutPotential,
    Rollout,
    SeatControllers,
    SelfPlay,
    bot_code,
    policy_actions,
    random_legal,
)
from training.gnoming.ppo.update import advantages, ppo_update

__all__ = [
    "LEARNER",
    "PRETRAIN_CHUNKS",
    "PRETRAIN_CHUNK_ENVS",
    "RESUME_OVERRIDABLE",
    "HintPool",
    "LayoutPotential",
    "PPOConfig",
    "Reporter",
    "Rollout",
    "Run",
    "SeatControllers",
    "SelfPlay",
    "advantages",
    "arena_table",
    "bot_code",
    "build_parser",
    "evaluate",
    "load_init_policy",
    "load_resume",
    "main",
    "plot_learning_curve",
    "policy_actions",
    "ppo_update",
    "pretrain",
    "random_legal",
    "teacher_chunk",
    "train",
]
