"""Gymnasium spaces shared by the single-seat envs of every game."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np


class LegalActionSpace(gymnasium.spaces.Discrete):
    """``Discrete(n)`` whose unmasked ``sample()`` draws among the env's current legal actions.

    ``contains`` and equality are those of ``Discrete(n)``; legality is checked by ``step``.
    """

    def __init__(self, n: int, legal_mask: Callable[[], np.ndarray | None] | None = None) -> None:
        super().__init__(n)
        self._legal_mask = legal_mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None):
        """A random action: legal for the learner now, unless ``mask``/``probability`` is given."""
        if mask is None and probability is None and self._legal_mask is not None:
            legal = self._legal_mask()
            if legal is not None:
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __getstate__(self) -> dict[str, Any]:
        # A pickled space (e.g. saved with a model) must not drag the env along.
        state = dict(self.__dict__)
        state["_legal_mask"] = None
        return state

    def __deepcopy__(self, memo: dict[int, Any]) -> LegalActionSpace:
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))  # the copy follows the env copy
        return new
