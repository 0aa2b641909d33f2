"""Ray RLlib pieces every game shares: the action-masking PPO module and module checkpoints.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``): importing this module imports Ray.
Nothing in ``gnome_env`` and no game's bots or arena import it; the games' RLlib agents
(:mod:`agents.gnoming.rllib_agent`, :mod:`agents.nerts.rllib_agent`) and trainers
(``training/<game>/rllib_ppo.py``) do.

:class:`MaskedPPOTorchRLModule`
    RLlib's public default PPO module (``DefaultPPOTorchRLModule``: MLP encoder, policy and
    value heads, built by ``PPOCatalog`` from ``model_config``) for the games' Dict
    observations ``{"observation": Box(OBS), "action_mask": Box(N_ACTIONS)}`` (PettingZoo's
    classic-env layout, which every env here uses). The catalog is built for the
    ``observation`` Box alone; every forward pass takes the mask out of the batch, runs the
    default module on the observation, and sets the logits of illegal actions to
    ``MASKED_LOGIT`` (-1e9), so their probability is exactly 0 in float32 and they are never
    sampled, neither in exploration nor in inference, and the loss sees the same masked
    distribution. The value function ignores the mask.

:func:`module_dir` / :func:`load_module`
    Find and load (cached per resolved path, modification time and size, as for
    ``ppo:PATH``) the module of one policy in an algorithm checkpoint
    (``PATH/learner_group/learner/rl_module/<policy>``) or a module checkpoint directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

MASKED_LOGIT = -1e9
#: The module id of the one policy every seat shares (training/<game>/rllib_ppo.py).
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
        "rllib:PATH agents and the training/<game>/rllib_ppo.py trainers need Ray RLlib, "
        "which is not installed; install the 'rllib' extra (pip install -e '.[rllib]')"
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


def greedy_legal_action(module: Any, observation: Any, legal: Any) -> int:
    """The legal action with the highest logit of ``module.forward_inference`` for one
    observation vector and its boolean mask (the arena agents' choice)."""
    import numpy as np

    obs = {
        "observation": torch.as_tensor(np.asarray(observation, np.float32)[None]),
        "action_mask": torch.as_tensor(np.asarray(legal)[None].astype(np.float32)),
    }
    with torch.no_grad():
        out = module.forward_inference({Columns.OBS: obs})
    logits = out[Columns.ACTION_DIST_INPUTS][0].numpy()
    return int(np.argmax(np.where(legal, logits, -np.inf)))


# ---------------------------------------------------------------------- checkpoints
_MODULE_CACHE: dict[tuple[str, int, int], Any] = {}


def module_dir(path: str | Path, policy: str = SHARED_POLICY) -> Path:
    """The module checkpoint of ``policy`` inside an algorithm checkpoint ``path`` (or
    ``path`` itself if it is a module checkpoint); ``ValueError`` if neither is there."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"RLlib checkpoint {str(path)!r} does not exist")
    candidates = [path / Path(*MODULE_SUBDIR) / policy, path / policy, path]
    for candidate in candidates:
        if (candidate / "class_and_ctor_args.pkl").is_file():
            return candidate
    raise ValueError(
        f"{str(path)!r} is not an RLlib checkpoint of a training/<game>/rllib_ppo.py run: "
        f"expected an algorithm checkpoint (with {'/'.join((*MODULE_SUBDIR, policy))}) or a "
        "module checkpoint (with class_and_ctor_args.pkl)"
    )


def load_module(path: str | Path, policy: str = SHARED_POLICY) -> Any:
    """The trained RLModule in checkpoint ``path`` (cached; ``ValueError`` if unusable)."""
    where = module_dir(path, policy).resolve()
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
