"""Ray RLlib policies for Gnoming A Round: a trained module as a player.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``): importing this module imports Ray.
Nothing else in ``agents.gnoming`` or ``gnome_env`` does; the registry imports it only for
``rllib:PATH`` specs.

:class:`MaskedPPOTorchRLModule` (and ``module_dir``, ``load_module``)
    The action-masking PPO module every game shares, from :mod:`agents.core.rllib_module`
    (kept importable from here: checkpoints written before it moved name this module),
    for the Dict observations ``{"observation": Box(1401), "action_mask": Box(33)}``.

:class:`RLlibAgent` (agent spec ``rllib:PATH``)
    Loads a module from an RLlib checkpoint -- the algorithm checkpoint
    ``training/gnoming/rllib_ppo.py``
    writes (``PATH/learner_group/learner/rl_module/shared_policy`` is found by itself) or a
    module directory -- and plays its most likely legal action (``forward_inference``).
    Modules are cached per resolved path, modification time and size, as for ``ppo:PATH``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.core.rllib_module import (  # noqa: F401 - the names this module always had
    MASKED_LOGIT,
    MODULE_SUBDIR,
    SHARED_POLICY,
    MaskedPPOTorchRLModule,
    greedy_legal_action,
    load_module,
    module_dir,
)
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.encoding import ObservationEncoder


class RLlibAgent:
    """A trained RLlib module as a player: the most likely legal action for ``act``."""

    def __init__(self, module: Any, config: RulesConfig | None = None) -> None:
        self.module = module
        self.config = config if config is not None else RulesConfig()
        size = ObservationEncoder(self.config).size
        space = getattr(module, "observation_space", None)
        inner = getattr(space, "spaces", {}).get("observation") if space is not None else None
        if inner is None or inner.shape != (size,):
            raise ValueError(
                f"the RLlib module takes observations {inner!r}; these rules give ({size},)"
            )

    @classmethod
    def load(cls, path: str | Path, config: RulesConfig | None = None) -> RLlibAgent:
        """The module in ``path`` (see :func:`module_dir`) as an agent."""
        return cls(load_module(path), config)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The legal action with the highest logit."""
        legal = np.asarray(mask, dtype=bool)
        if legal.shape != (A.NUM_ACTIONS,) or not legal.any():
            raise ValueError(f"mask must be {A.NUM_ACTIONS} booleans with a legal action")
        return greedy_legal_action(self.module, observation, legal)
