"""Ray RLlib policies: the action-masking PPO module, and a trained module as a player.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``): importing this module imports Ray.
Nothing else in ``agents`` or ``gnome_env`` does; the registry imports it only for
``rllib:PATH`` specs.

:class:`MaskedPPOTorchRLModule`
    RLlib's public default PPO module (``DefaultPPOTorchRLModule``: MLP encoder, policy and
    value heads, built by ``PPOCatalog`` from ``model_config``) for our Dict observations
    ``{"observation": Box(1401), "action_mask": Box(33)}``. The catalog is built for the
    ``observation`` Box alone; every forward pass takes the mask out of the batch, runs the
    default module on the observation, and sets the logits of illegal actions to
    ``MASKED_LOGIT`` (-1e9), so their probability is exactly 0 in float32 and they are never
    sampled, neither in exploration nor in inference, and the loss sees the same masked
    distribution. The value function ignores the mask.

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

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.encoding import ObservationEncoder

MASKED_LOGIT = -1e9
#: The module id of the one policy every seat shares (training/gnoming/rllib_ppo.py).
SHARED_POLICY = "shared_policy"
#: Where an algorithm checkpoint keeps a module's own checkpoint.
MODULE_SUBDIR = ("learner_group", "learner", "rl_module")


try:
    import gymnasium
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
        DefaultPPOTorchRLModule,
    )
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule
except ImportError as err:  # pragma: no cover - depends on the installed extras
    raise ImportError(
        "rllib:PATH agents and training/gnoming/rllib_ppo.py need Ray RLlib, which is not "
        "installed; "
        "install the 'rllib' extra (pip install -e '.[rllib]')"
    ) from err


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO module on ``observation``, with ``action_mask`` applied to the
    logits (see the module docstring)."""

    def __init__(self, *args: Any, observation_space: Any = None, **kwargs: Any) -> None:
        if not (
            isinstance(observation_space, gymnasium.spaces.Dict)
            and set(observation_space.spaces) == {"observation", "action_mask"}
        ):
            raise ValueError(
                "MaskedPPOTorchRLModule needs the env's Dict observation space with "
                f"'observation' and 'action_mask'; got {observation_space!r}"
            )
        # The default catalog builds the encoder for the observation Box alone.
        super().__init__(*args, observation_space=observation_space["observation"], **kwargs)
        self.observation_space = observation_space

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[dict[str, Any], Any]:
        obs = batch[Columns.OBS]
        inner = dict(batch)
        inner[Columns.OBS] = obs["observation"]
        return inner, obs["action_mask"]

    @staticmethod
    def _mask(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        logits = out[Columns.ACTION_DIST_INPUTS]
        out[Columns.ACTION_DIST_INPUTS] = torch.where(
            mask.bool(), logits, torch.full_like(logits, MASKED_LOGIT)
        )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, mask = self._split(batch)
        return self._mask(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        inner, mask = self._split(batch)
        return self._mask(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if embeddings is None:
            batch, _ = self._split(batch)
        return super().compute_values(batch, embeddings)


# ---------------------------------------------------------------------- the agent
_MODULE_CACHE: dict[tuple[str, int, int], Any] = {}


def module_dir(path: str | Path) -> Path:
    """The module checkpoint inside an algorithm checkpoint ``path`` (or ``path`` itself if it
    is a module checkpoint); ``ValueError`` if neither is there."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"RLlib checkpoint {str(path)!r} does not exist")
    candidates = [path / Path(*MODULE_SUBDIR) / SHARED_POLICY, path / SHARED_POLICY, path]
    for candidate in candidates:
        if (candidate / "class_and_ctor_args.pkl").is_file():
            return candidate
    raise ValueError(
        f"{str(path)!r} is not an RLlib checkpoint of training/gnoming/rllib_ppo.py: expected an "
        f"algorithm checkpoint (with {'/'.join((*MODULE_SUBDIR, SHARED_POLICY))}) or a module "
        "checkpoint (with class_and_ctor_args.pkl)"
    )


def load_module(path: str | Path) -> Any:
    """The trained RLModule in checkpoint ``path`` (cached; ``ValueError`` if unusable)."""
    where = module_dir(path).resolve()
    stat = (where / "class_and_ctor_args.pkl").stat()
    key = (str(where), stat.st_mtime_ns, stat.st_size)
    module = _MODULE_CACHE.get(key)
    if module is None:
        try:
            module = RLModule.from_checkpoint(str(where))
        except Exception as err:  # RLlib raises many types on damaged checkpoints
            raise ValueError(f"RLlib checkpoint {str(path)!r} cannot be loaded: {err}") from None
        module.eval()
        _MODULE_CACHE[key] = module
    return module


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
        obs = {
            "observation": torch.as_tensor(np.asarray(observation, np.float32)[None]),
            "action_mask": torch.as_tensor(legal[None].astype(np.float32)),
        }
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: obs})
        logits = out[Columns.ACTION_DIST_INPUTS][0].numpy()
        return int(np.argmax(np.where(legal, logits, -np.inf)))
