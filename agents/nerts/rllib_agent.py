"""A Ray RLlib module trained on the Nerts Parallel env, as a Nerts arena player.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``): importing this module imports Ray.
Nothing else in ``agents.nerts`` or ``gnome_env`` does.

:class:`RLlibNertsAgent`
    Loads the shared module of an RLlib checkpoint (the algorithm checkpoint
    ``training/nerts/rllib_ppo.py`` writes, or a module directory; see
    :func:`agents.core.rllib_module.module_dir`) and plays, from a seat's
    :class:`gnome_env.nerts.information.NertsView` -- the public information of N34, encoded
    by the env's own :class:`gnome_env.nerts.encoding.NertsEncoder`, so exactly what the env
    would have observed -- the legal action (N36 id in ``view.legal_actions``) with the
    highest logit. Deterministic: it ignores its seed.

:class:`RLlibNertsEntry`
    A lineup entry for :func:`agents.core.arena.run_arena` (``game="nerts"``): a picklable
    factory ``(seed, config) -> RLlibNertsAgent`` for one checkpoint, so the arena's local
    processes and its Ray and Dask workers can build the agent themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from agents.core.rllib_module import greedy_legal_action, load_module
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.encoding import NertsEncoder


class RLlibNertsAgent:
    """A trained RLlib module as a Nerts player (see the module docstring)."""

    def __init__(self, module: Any, config: NertsConfig | None = None) -> None:
        self.module = module
        self.config = config if config is not None else NertsConfig()
        self.encoder = NertsEncoder(self.config)
        space = getattr(module, "observation_space", None)
        inner = getattr(space, "spaces", {}).get("observation") if space is not None else None
        n_actions = getattr(getattr(module, "action_space", None), "n", None)
        size, actions = self.encoder.size, self.config.n_actions
        if inner is None or inner.shape != (size,) or n_actions != actions:
            raise ValueError(
                f"the RLlib module takes observations {inner!r} and {n_actions} actions; these "
                f"Nerts rules give ({size},) and {actions} (the "
                "table sizes depend on work_piles and jokers)"
            )

    @classmethod
    def load(cls, path: str | Path, config: NertsConfig | None = None) -> RLlibNertsAgent:
        """The shared module in checkpoint ``path`` as an agent (``ValueError`` if unusable)."""
        return cls(load_module(path), config)

    def decide(self, view: Any) -> int:
        """The legal N36 id with the highest logit for the seat's public view."""
        legal = np.zeros(self.config.n_actions, dtype=bool)
        legal[list(view.legal_actions)] = True
        if len(view.legal_actions) == 1:
            return int(view.legal_actions[0])
        return greedy_legal_action(self.module, self.encoder.encode(view), legal)

    def __repr__(self) -> str:
        return f"RLlibNertsAgent({type(self.module).__name__})"


class RLlibNertsEntry:
    """A picklable lineup entry: ``RLlibNertsEntry(path)(seed, config)`` is the agent."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.__name__ = f"rllib:{self.path}"  # the arena's label of the entry

    def __call__(self, seed: int, config: NertsConfig) -> RLlibNertsAgent:
        return RLlibNertsAgent.load(self.path, config)
