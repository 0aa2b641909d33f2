"""The base class of the heuristic and search bots.

Every player has the policy interface ``act(observation, mask) -> int`` (see
:mod:`gnome_env.gnoming.policies`). A bot reasons over a
:class:`~gnome_env.gnoming.information.SeatView`,
the public information of its seat: :meth:`BotAgent.act` rebuilds that view from the
observation alone, so a bot can never know more than its observation tells it. Callers
that hold the game (the arena) may call :meth:`BotAgent.decide` with
``SeatView.from_game(game, seat)`` directly -- the same view, without decoding.
"""

from __future__ import annotations

import numpy as np

from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.information import SeatView


class BotAgent:
    """A seeded player that decides from a :class:`SeatView`. Subclasses implement ``decide``."""

    spec = "bot"

    def __init__(self, seed: int | None = None, config: RulesConfig | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.config = config if config is not None else RulesConfig()

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The action for the seat that ``observation`` belongs to (it must be deciding)."""
        return self.decide(SeatView.from_observation(observation, mask, self.config))

    def decide(self, view: SeatView) -> int:
        """A legal action for ``view.seat``; ``view`` is all the bot may use."""
        raise NotImplementedError

    def decide_tokens(
        self, tokens: np.ndarray, masks: np.ndarray, config: RulesConfig | None = None
    ) -> np.ndarray:
        """:meth:`decide` for each row of observation tokens ``[N, T]`` (as
        :class:`~gnome_env.gnoming.vector.VectorGame` returns them) and legal masks ``[N, 33]``, in
        row order; ``[N]`` int64. ``config``: the game's rules (default the bot's own; the
        seat count is read from the tokens). Subclasses may decide faster, with the same
        actions and random draws."""
        rules = config if config is not None else self.config
        return np.array(
            [
                self.decide(SeatView.from_tokens(t, m, rules))
                for t, m in zip(tokens, masks, strict=True)
            ],
            dtype=np.int64,
        )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"
