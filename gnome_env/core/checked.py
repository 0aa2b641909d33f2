"""A turn-based game's checked AEC env (``env()``) without PettingZoo's wrapper chain.

PettingZoo's classic envs put the raw env behind ``OrderEnforcingWrapper(
AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw_env, -1)))``. Every attribute read
through that chain (``agent_selection``, ``terminations``, ``infos``, ... -- about forty per
step of the standard loop) passes three ``__getattr__`` layers, which costs a fast env as
much as its own step. :class:`CheckedAEC` gives a raw env class the same behaviour in one
layer:

* before the first ``reset``: ``agents``, ``agent_selection``, ``rewards``,
  ``terminations``, ``truncations``, ``infos`` and ``num_agents`` raise ``AttributeError``,
  and ``step``, ``observe``, ``state``, ``render`` and ``agent_iter`` are refused as
  ``OrderEnforcingWrapper`` refuses them; ``step`` once every agent is gone warns and does
  nothing;
* an action outside the action space (or a ``bool``) raises ``AssertionError`` naming the
  agent, the action and what is allowed, changing nothing
  (:class:`gnome_env.core.wrappers.BoundsCheckWrapper`);
* an action the raw env refuses as illegal (it raises :attr:`CheckedAEC.illegal_error`
  and changes nothing) ends the game with :attr:`CheckedAEC.illegal_reward` for the
  offender, 0 for the others, and PettingZoo's warning (``TerminateIllegalWrapper``).

``unwrapped`` is a raw env sharing the checked env's state (:class:`UncheckedView`). A
game declares the pair next to its raw env::

    class _UnwrappedView(UncheckedView, raw_env): ...

    class CheckedEnv(CheckedAEC, raw_env):
        unwrapped_class = _UnwrappedView
        illegal_error = IllegalActionError

Each game's tests hold its ``env()`` equal to the standard stack, call by call
(``tests/core/test_checked_env.py``).
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
from pettingzoo.utils.env_logger import EnvLogger

from gnome_env.core.wrappers import in_action_space, out_of_space_message


class BeforeReset:
    """Stands for an env attribute until ``reset()`` sets it (in the instance, which then
    takes precedence): reading it before raises ``AttributeError``, as PettingZoo's
    ``OrderEnforcingWrapper`` does. A ``__getattr__`` could do the same, but its mere
    presence makes every attribute access of the env slower."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, env: object, owner: type | None = None) -> Any:
        if env is None:
            return self
        raise AttributeError(f"{self.name} cannot be accessed before reset")


class UncheckedView:
    """Mixin for ``env().unwrapped``: the raw env's methods on a checked env's state (see
    :attr:`CheckedAEC.unwrapped`). Never constructed by ``__init__``."""

    @property
    def agents(self) -> list[str]:
        """The agents of the current game; all possible agents before the first reset."""
        agents = self.__dict__.get("agents")
        return self.possible_agents[:] if agents is None else agents  # type: ignore[attr-defined]

    @agents.setter
    def agents(self, agents: list[str]) -> None:
        self.__dict__["agents"] = agents

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game (the checked env then counts as reset too)."""
        self.__dict__["_has_reset"] = True
        super().reset(seed=seed, options=options)  # type: ignore[misc]


class CheckedAEC:
    """Mixin, first in the bases before a raw AEC env class: that env with the standard
    wrappers' checks (see the module docstring)."""

    #: The raw env's error for an illegal (masked-out) action; it must change nothing.
    illegal_error: ClassVar[type[Exception]] = ValueError
    #: The offender's reward for an illegal action (PettingZoo's classic envs: -1).
    illegal_reward: ClassVar[float] = -1.0
    #: ``UncheckedView`` + the raw env class: the type of :attr:`unwrapped`.
    unwrapped_class: ClassVar[type]

    # Refused before reset (reset() sets them on the instance).
    agents = BeforeReset()
    agent_selection = BeforeReset()
    rewards = BeforeReset()
    terminations = BeforeReset()
    truncations = BeforeReset()
    infos = BeforeReset()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.__dict__.pop("agents", None)  # refused before reset, as by OrderEnforcingWrapper
        self._has_reset = False
        # The common case of the bounds check, an int in 0..n-1 when every agent's space is
        # the same Discrete(n) from 0; -1 leaves every action to the space's own check.
        spaces = [self.action_space(a) for a in self.possible_agents]  # type: ignore[attr-defined]
        first = spaces[0]
        same = all(s == first for s in spaces) and isinstance(first, gymnasium.spaces.Discrete)
        self._fast_n = int(first.n) if same and int(first.start) == 0 else -1

    @property
    def unwrapped(self) -> Any:
        """The environment without the checks, as PettingZoo's wrappers' ``unwrapped``: a raw
        env sharing this env's state (every attribute), which answers ``agents`` and
        ``num_agents`` before reset (all possible agents) and whose ``step`` raises on an
        illegal action."""
        view = self.unwrapped_class.__new__(self.unwrapped_class)
        view.__dict__ = self.__dict__  # one state, two sets of methods
        return view

    @property
    def num_agents(self) -> int:
        """Number of agents still in the game."""
        if not self.__dict__.get("_has_reset"):
            raise AttributeError("num_agents cannot be accessed before reset")
        return len(self.agents)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game."""
        self._has_reset = True
        super().reset(seed=seed, options=options)  # type: ignore[misc]

    def observe(self, agent: str) -> Any:
        """As the raw env, refused before reset."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super().observe(agent)  # type: ignore[misc]

    def state(self) -> Any:
        """As the raw env, refused before reset."""
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return super().state()  # type: ignore[misc]

    def render(self) -> Any:
        """As the raw env, refused before reset."""
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()  # type: ignore[misc]

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """As the raw env, refused before reset."""
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return super().agent_iter(max_iter)  # type: ignore[misc]

    def _all_agents(self, value: Any, absent_value: Any) -> dict[str, Any]:
        """``dict.fromkeys(agents, value)``: the terminations, truncations and rewards after an
        illegal action (a game with absent seats answers ``absent_value`` for them)."""
        return dict.fromkeys(self.agents, value)

    def step(self, action: Any) -> None:
        """Order, bounds and legality checks, then the raw env's step."""
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        done = self.terminations[agent] or self.truncations[agent]
        if not (
            (type(action) is int and 0 <= action < self._fast_n)  # the common case, fast
            or (action is None and done)
            or in_action_space(self.action_spaces[agent], action)  # type: ignore[attr-defined]
        ):
            space = self.action_spaces[agent]  # type: ignore[attr-defined]
            raise AssertionError(out_of_space_message(agent, action, space))
        if done:
            # the wrappers route a dead agent's step to the raw env (which checks it is None)
            self._was_dead_step(action)  # type: ignore[attr-defined]
            return
        try:
            super().step(action)  # type: ignore[misc]
        except self.illegal_error:  # the raw env changed nothing
            EnvLogger.warn_on_illegal_move()
            self._cumulative_rewards[agent] = 0  # type: ignore[attr-defined]
            self.terminations = self._all_agents(True, True)
            self.truncations = self._all_agents(True, True)
            self.rewards = self._all_agents(0, 0.0)  # ints, exactly as the wrapper
            self.rewards[agent] = float(self.illegal_reward)
            self._accumulate_rewards()  # type: ignore[attr-defined]
            self._deads_step_first()  # type: ignore[attr-defined]


__all__ = ["BeforeReset", "CheckedAEC", "UncheckedView"]
