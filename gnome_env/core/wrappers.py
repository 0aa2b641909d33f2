"""The action-space check every game's checked AEC env (``env()``) shares.

PettingZoo's ``AssertOutOfBoundsWrapper`` raises ``AssertionError("action is not in action
space")``; :class:`BoundsCheckWrapper` raises the same error type, with a message that also
names the agent, the action and what is allowed. It refuses a ``bool`` too (``Discrete``
would take ``True`` as 1). The error comes before anything changes.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper


def in_action_space(space: gymnasium.spaces.Space, action: object) -> bool:
    """``space.contains(action)``, refusing a ``bool`` (or a numpy bool)."""
    if isinstance(action, (bool, np.bool_)):
        return False
    return bool(space.contains(action))


def out_of_space_message(agent: object, action: object, space: gymnasium.spaces.Space) -> str:
    """``"action is not in action space: ..."`` naming the agent, the action and what is
    allowed."""
    allowed = (
        f"an int in 0..{space.start + space.n - 1}"
        if isinstance(space, gymnasium.spaces.Discrete)
        else f"an element of {space}"
    )
    return (
        f"action is not in action space: {agent} stepped {action!r}; must be {allowed} "
        f"({space}), or None for an agent that is done"
    )


class BoundsCheckWrapper(AssertOutOfBoundsWrapper):
    """``AssertOutOfBoundsWrapper`` with an error message that names what is allowed."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        done = self.terminations[agent] or self.truncations[agent]
        space = self.action_space(agent)
        if not ((action is None and done) or in_action_space(space, action)):
            raise AssertionError(out_of_space_message(agent, action, space))
        self.env.step(action)


__all__ = ["BoundsCheckWrapper", "in_action_space", "out_of_space_message"]
