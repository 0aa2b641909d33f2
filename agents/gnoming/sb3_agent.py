"""A saved sb3-contrib ``MaskablePPO`` model as a player (agent spec ``sb3:PATH``).

:meth:`SB3Agent.load` reads a model written by ``model.save(...)`` (for instance by
``python -m training.gnoming.sb3_maskable_ppo``), always onto the CPU, and checks that it fits the
game: a ``MaskablePPO`` with a maskable policy, an observation space of shape
``(ObservationEncoder(config).size,)`` and the action space ``Discrete(33)``. Anything else
raises ``ValueError`` saying what was found and what is expected.

The arena builds a fresh agent for every game, so loaded models are cached in this module,
keyed by the file's resolved path, modification time and size: a file rewritten in place
is read again, an unchanged one is read once per process. Agents built from the same file
share one model object; that is safe because prediction does not change it.

Actions
-------
* ``deterministic=True`` (the default): ``model.predict(..., deterministic=True)``, the most
  likely legal action; no random numbers are used.
* ``deterministic=False`` without a seed: ``model.predict(..., deterministic=False)``, which
  samples with torch's global generator (as sb3 does).
* ``deterministic=False`` with a seed: the agent computes the policy's masked action
  probabilities itself and samples them with its own ``numpy.random.default_rng(seed)``, so
  the choices are reproducible and no global random state is read or changed.

sb3 and sb3-contrib are imported only when a model is loaded, so ``agents`` imports without
them. Loading unpickles parts of the zip (sb3's format): load only files you trust.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.encoding import ObservationEncoder

#: (resolved path, mtime in ns, size in bytes) -> loaded MaskablePPO model
_MODEL_CACHE: dict[tuple[str, int, int], Any] = {}


def clear_model_cache() -> None:
    """Forget every cached model (the next load reads its file again)."""
    _MODEL_CACHE.clear()


def _import_maskable_ppo() -> tuple[Any, Any]:
    """``(MaskablePPO, MaskableActorCriticPolicy)``, or ImportError saying what to install."""
    try:
        from sb3_contrib import MaskablePPO
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError as err:
        raise ImportError(
            "sb3:PATH agents need stable-baselines3 and sb3-contrib, which are not installed; "
            "install the 'train' extra (pip install 'gnome-env[train]')"
        ) from err
    return MaskablePPO, MaskableActorCriticPolicy


def _read_model(path: Path) -> Any:
    """Load the MaskablePPO zip at ``path`` onto the CPU; ValueError if it is not one."""
    maskable_ppo, maskable_policy = _import_maskable_ppo()
    if not zipfile.is_zipfile(path):
        raise ValueError(
            f"sb3 model {str(path)!r} is not a zip file: expected a MaskablePPO model saved "
            "with model.save(...) (a .zip holding 'data' and 'policy.pth')"
        )
    with zipfile.ZipFile(path) as archive:
        names = set(archive.namelist())
    missing = [name for name in ("data", "policy.pth") if name not in names]
    if missing:
        raise ValueError(
            f"sb3 model {str(path)!r} is a zip file but not a stable-baselines3 model (it lacks "
            f"{', '.join(missing)}; a torch checkpoint, perhaps?): expected a MaskablePPO model "
            "saved with model.save(...)"
        )
    try:
        model = maskable_ppo.load(path, device="cpu")
    except Exception as err:  # sb3 raises many kinds of errors for foreign or broken files
        raise ValueError(
            f"sb3 model {str(path)!r} cannot be loaded as a MaskablePPO model "
            f"({type(err).__name__}: {err}): expected a MaskablePPO model saved with "
            "model.save(...)"
        ) from err
    if not isinstance(model.policy, maskable_policy):
        raise ValueError(
            f"sb3 model {str(path)!r} has policy {type(model.policy).__name__}, which cannot "
            "take action masks: expected a MaskablePPO model (MaskableActorCriticPolicy)"
        )
    model.policy.set_training_mode(False)
    return model


def _check_spaces(model: Any, path: Path, config: RulesConfig) -> None:
    """ValueError unless the model's spaces are those of the game under ``config``."""
    import gymnasium

    size = ObservationEncoder(config).size
    obs_space = model.observation_space
    if not isinstance(obs_space, gymnasium.spaces.Box) or obs_space.shape != (size,):
        raise ValueError(
            f"sb3 model {str(path)!r} has observation space {obs_space}: expected a Box of "
            f"shape ({size},), the observation size of gnome_env for these rules"
        )
    act_space = model.action_space
    if not isinstance(act_space, gymnasium.spaces.Discrete) or int(act_space.n) != A.NUM_ACTIONS:
        raise ValueError(
            f"sb3 model {str(path)!r} has action space {act_space}: expected "
            f"Discrete({A.NUM_ACTIONS}), the action table of gnome_env"
        )


class SB3Agent:
    """Plays a saved sb3-contrib MaskablePPO model (spec ``sb3:PATH``)."""

    spec = "sb3"

    def __init__(
        self,
        model: Any,
        *,
        deterministic: bool = True,
        seed: int | None = None,
        path: str | None = None,
    ) -> None:
        self.model = model
        self.deterministic = bool(deterministic)
        self.seed = seed
        self.path = path
        # Own generator only where it is used: seeded sampling (see the module docstring).
        self._rng = None if deterministic or seed is None else np.random.default_rng(seed)

    def __repr__(self) -> str:
        return (
            f"SB3Agent(path={self.path!r}, deterministic={self.deterministic}, seed={self.seed!r})"
        )

    @classmethod
    def load(
        cls,
        path: str | os.PathLike[str],
        *,
        deterministic: bool = True,
        seed: int | None = None,
        config: RulesConfig | None = None,
    ) -> SB3Agent:
        """An agent playing the MaskablePPO zip at ``path`` (cached per file version, on CPU)."""
        resolved = Path(path).expanduser().resolve()
        if not resolved.exists():
            raise ValueError(
                f"sb3 model {str(path)!r} does not exist: expected the path of a MaskablePPO "
                "model .zip (written by model.save(...))"
            )
        if not resolved.is_file():
            raise ValueError(
                f"sb3 model {str(path)!r} is not a file: expected the path of a MaskablePPO "
                "model .zip"
            )
        stat = resolved.stat()
        key = (str(resolved), stat.st_mtime_ns, stat.st_size)
        model = _MODEL_CACHE.get(key)
        if model is None:
            model = _read_model(resolved)
            # One entry per path: an older version of a rewritten file is never used again.
            for old in [k for k in _MODEL_CACHE if k[0] == key[0]]:
                del _MODEL_CACHE[old]
            _MODEL_CACHE[key] = model
        _check_spaces(model, resolved, config if config is not None else RulesConfig())
        return cls(model, deterministic=deterministic, seed=seed, path=str(resolved))

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The model's action for ``observation`` among the legal actions of ``mask``."""
        legal = np.asarray(mask).astype(bool, copy=False)
        if legal.shape != (A.NUM_ACTIONS,):
            raise ValueError(
                f"SB3Agent.act: mask has shape {legal.shape}: expected ({A.NUM_ACTIONS},)"
            )
        if not legal.any():
            raise ValueError("SB3Agent.act: the mask has no legal action")
        obs = np.asarray(observation, dtype=np.float32)
        if self._rng is not None:
            action = self._sample(obs, legal)
        else:
            predicted, _ = self.model.predict(
                obs, action_masks=legal, deterministic=self.deterministic
            )
            action = int(np.asarray(predicted).reshape(-1)[0])
        if not legal[action]:  # masking makes this unreachable; guard against a broken model
            raise ValueError(f"SB3Agent.act: the model chose illegal action {action}")
        return action

    def _sample(self, obs: np.ndarray, legal: np.ndarray) -> int:
        """Sample the masked policy distribution with the agent's own generator."""
        import torch

        policy = self.model.policy
        obs_tensor, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            dist = policy.get_distribution(obs_tensor, action_masks=legal)
            probs = dist.distribution.probs.reshape(-1).cpu().numpy().astype(np.float64)
        probs = np.where(legal, probs, 0.0)  # masked logits leave tiny non-zero mass
        total = probs.sum()
        if not np.isfinite(total) or total <= 0.0:
            probs, total = legal.astype(np.float64), float(legal.sum())
        return int(self._rng.choice(A.NUM_ACTIONS, p=probs / total))
