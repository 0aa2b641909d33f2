"""Ginny-O -- Gymnasium single-seat environment (one learner, the other seats are bots or policies).

=====================  ==========================================================
Import                 ``import gnome_env; gymnasium.make("gnome_env/GinnyO-v0")``
Class                  :class:`GinnySingleSeatEnv` (``gnome_env.ginny_o.gym_env``)
Actions                ``Discrete(1864)``: the atomic steps of :mod:`gnome_env.ginny_o.actions`
Observation            ``Box`` (7944,) float32: the AEC env's ``observation`` seen from the
                       learner seat, with the same bounds
Action mask            ``env.action_masks()`` (bool, for sb3-contrib's ``MaskablePPO``)
                       and ``info["action_mask"]`` (int8) after ``reset`` and every ``step``
=====================  ==========================================================

Ginny-O is turn-based and a turn is several atomic steps (PLACE, DECLARE, COMMIT, RETURN,
...; RL notes). One seat is the learner; each other seat is played by an opponent.
``step(action)`` applies one atomic step of the learner; when that ends its turn, the other
seats play theirs, step by step, until the learner must decide again or the game is over.
The rules live in :class:`gnome_env.ginny_o.GinnyGame`, the observations, rewards and infos
in :class:`gnome_env.ginny_o.ginny_o_v0.raw_env`, which this env wraps; this module only
routes decisions.

An opponent is one of (:mod:`gnome_env.core.opponents`):

* a **bot**, anything with ``decide(view) -> int`` (the bots of ``agents.ginny_o``): it gets
  ``GinnyView.from_game(game, its_seat)``, the seat's own information (G17), never the game;
* a **policy**, anything with ``act(observation, mask) -> int``: it gets its own seat's
  ``observation`` of the AEC env and the bool mask of its legal actions;
* a **factory** ``factory(seed, config) -> bot or policy`` (a class, or
  ``functools.partial(agents.ginny_o.make_ginny_agent, "greedy")``): called at every
  ``reset`` for each seat it plays, with a seed drawn from the episode seed and the
  episode's :class:`~gnome_env.ginny_o.GinnyConfig`, so the same reset seed gives the same
  opponents.

Keyword arguments
-----------------
* ``num_players`` -- 2..4 (default 2), or a list of seat counts such as ``[2, 4]``: every
  ``reset`` then draws the game's seat count from the list (see Seeding). The spaces are the
  same for every count; ``possible_agents`` are those of the largest count, ``env.config``
  is the current game's rules.
* ``opponents`` -- ``None`` (default): a :class:`~gnome_env.core.opponents.RandomPolicy` per
  other seat, seeded at every ``reset`` from the episode seed. One opponent (bot, policy or
  factory): it plays every other seat (a bot or policy as the same object; a factory builds
  one per seat). A list or tuple of ``num_players - 1`` opponents (with a list of seat
  counts: the largest count - 1, of which a game with ``n`` seats uses the first ``n - 1``):
  ``opponents[k]`` plays seat ``(learner_seat + 1 + k) % n``, the seats in turn order after
  the learner. ``env.seat_policies`` maps each other seat to its opponent for the current
  episode. An opponent object with a ``reseed(seed)`` method is re-seeded at every ``reset``
  from the episode seed (once per object); other objects are used as they are.
* ``learner_seat`` -- a seat ``0..n-1`` for the smallest count ``n`` (default 0), or
  ``"random"``: drawn at every ``reset`` from the episode seed (``env.learner_seat`` and
  ``info["learner_seat"]`` hold the current one).
* ``reward_mode`` -- ``"rank"`` (default) or ``"score"``; ``render_mode`` -- ``None``,
  ``"human"``, ``"ansi"``, ``"rgb_array"``: as in :mod:`gnome_env.ginny_o.ginny_o_v0`.
* every other field of :class:`gnome_env.ginny_o.GinnyConfig` (``jokers_per_set``,
  ``descending_runs``, ``max_placements``, ``first_player``, ``rescore_existing``,
  ``dead_check``, ``stall_rounds``, ``max_turns``). ``max_turns`` must be at least the
  largest seat count, so that the learner always gets a turn.

A bad argument raises ``ValueError`` naming it and what is allowed.

Seeding
-------
``reset(seed=s)`` (``s`` in ``0 .. 2**63 - 1``) plays what the AEC env plays: game ``e``
after the seeded reset has the seed ``g = s`` for ``e = 0`` and ``g = rng.game_stream(s, 0,
e, 1)[0]`` after it (:meth:`gnome_env.core.rng.ResetSeeds.game_seed`) and is
``GinnyGame(config, g)``; an unseeded first reset draws ``s`` from the operating system.
With a list of seat counts the count is ``num_players[rng.draw_index(len, rng.SEAT, g,
2)]``; the learner seat (``"random"``) is ``rng.draw_index(n, rng.SEAT, g)`` and the seed of
the opponent playing ``opponents[k]``'s seat is ``rng.derive_seed(rng.SEAT, g, 1, k)``
(:mod:`gnome_env.core.rng`). ``env.np_random`` is seeded as Gymnasium does but the env does
not use it; no global random state is used.

Rewards, termination, truncation, infos
---------------------------------------
``step`` returns the sum of the rewards the AEC env paid the learner's agent over the
learner's step and every opponent step after it (``reward_mode="rank"``: the terminal rank
reward; ``"score"``: the per-turn score differences). When the game ends the episode ends:
``truncated=True`` at the turn cap (G29d), else ``terminated=True``. ``info`` is the AEC
env's info of the learner (the table of :mod:`gnome_env.ginny_o.ginny_o_v0`) plus
``num_players``, ``learner_seat`` and ``action_mask`` (int8 [1864], all zeros once the
episode is over), with the same keys and types after ``reset`` and every ``step``.

Errors
------
An illegal or malformed learner action raises ``ValueError`` naming it and why, and changes
nothing. An opponent that returns an illegal action raises ``ValueError`` naming its seat
(the steps before it have been applied; call ``reset``). A factory that returns neither a
bot nor a policy raises ``ValueError`` at ``reset``, naming the seat; the env keeps its
current game and seed stream. ``step`` before ``reset`` or after the episode ended raises
``gymnasium.error.ResetNeeded``.

``action_space`` equals ``Discrete(1864)``; its ``sample()`` without a mask draws among the
learner's legal actions (plain uniform sampling once the episode is over, and in a pickled
copy), so random-action loops and ``gymnasium.utils.env_checker.check_env`` only ever send
legal actions.

Version history
---------------
* v0: initial release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from gnome_env.core import rng
from gnome_env.core.opponents import (
    RANDOM_SEAT,
    check_learner_seat,
    check_opponents,
    check_seat_counts,
    episode_seats,
    opponent_shape,
    seat_opponents,
)
from gnome_env.core.spaces import LegalActionSpace
from gnome_env.ginny_o.actions import NUM_ACTIONS
from gnome_env.ginny_o.config import MAX_PLAYERS, MIN_PLAYERS, GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.ginny_o_v0 import RENDER_MODES, raw_env
from gnome_env.ginny_o.information import GinnyView

ENV_ID = "gnome_env/GinnyO-v0"
MAKE_AGENT = "agents.ginny_o.make_ginny_agent"


class GinnySingleSeatEnv(gymnasium.Env):
    """One learner seat of Ginny-O; every other seat is played by a bot or policy (see the
    module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "GinnyO-v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int | Sequence[int] = 2,
        opponents: Any = None,
        learner_seat: int | str = 0,
        reward_mode: str = "rank",
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        for old, new in {"players": "num_players", "reward": "reward_mode"}.items():
            if old in rules:
                raise ValueError(f"{old}= is not a keyword of {ENV_ID}: use {new}=")
        self.seat_counts = check_seat_counts(num_players, MIN_PLAYERS, MAX_PLAYERS)
        #: one AEC env per seat count (each validates the rules and options)
        self.aecs = {
            n: raw_env(num_players=n, reward_mode=reward_mode, render_mode=render_mode, **rules)
            for n in sorted(set(self.seat_counts))
        }
        most, fewest = max(self.aecs), min(self.aecs)
        cap = self.aecs[most].config.max_turns
        if cap is not None and cap < most:
            raise ValueError(
                f"max_turns={cap} is not allowed here: the single-seat env needs at least "
                f"{most} turns (the largest seat count), so that the learner gets a turn"
            )
        self.aec = self.aecs[most]  # the current game's env (set again by reset)
        self.config: GinnyConfig = self.aec.config
        self.reward_mode, self.render_mode = reward_mode, render_mode
        self._seat_choice = check_learner_seat(learner_seat, fewest, num_players)
        self.learner_seat: int | None = None if learner_seat == RANDOM_SEAT else int(learner_seat)
        self._opponents = check_opponents(opponents, most, MAKE_AGENT)
        self._seeds = rng.ResetSeeds()
        self.possible_agents = list(self.aec.possible_agents)
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = LegalActionSpace(NUM_ACTIONS, self._sample_mask)
        self.seat_policies: dict[int, Any] = {}
        self._started = False
        self._done = False

    # ------------------------------------------------------------------ the game
    @property
    def game(self) -> GinnyGame | None:
        """The current episode's game (full information; do not step it), None before reset."""
        return self.aec.game if self._started else None

    def _agent(self, seat: int) -> str:
        return self.possible_agents[seat]

    # ------------------------------------------------------------------ episode
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game (see Seeding), pick this episode's seats and opponents, and let
        the opponents before the learner play. ``options`` is accepted and not used."""
        saved = (self._seeds.stream, self._seeds.episode)
        game_seed = self._seeds.game_seed(seed)  # ValueError for a bad seed, nothing changed
        n, learner = episode_seats(self.seat_counts, self._seat_choice, game_seed)
        try:
            seat_policies = seat_opponents(
                self._opponents, self.aecs[n].config, n, learner, game_seed
            )
        except ValueError:  # a factory built no player: the env stays as it was
            self._seeds.stream, self._seeds.episode = saved
            raise
        super().reset(seed=seed)
        self.aec = self.aecs[n]
        self.config = self.aec.config
        self.learner_seat, self.seat_policies = learner, seat_policies
        self.aec.reset(seed=game_seed)
        self._started, self._done = True, False
        self._play_others(0.0)  # the seats before the learner (G12: a random first player)
        agent = self._agent(learner)
        return self.aec.observe(agent)["observation"], self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply one atomic step of the learner; if it ended the learner's turn, let the other
        seats play until the learner must decide again or the game is over."""
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if self._done:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset() before step()")
        agent = self._agent(self.learner_seat)
        aec = self.aec
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        if isinstance(action, np.integer):
            action = int(action)
        if isinstance(action, bool) or not isinstance(action, int):
            raise ValueError(
                f"action {action!r} is not allowed: must be an integer 0..{NUM_ACTIONS - 1} "
                "that env.action_masks() allows"
            )
        aec.step(action)  # IllegalActionError (a ValueError) names why; nothing changed
        reward = self._play_others(float(aec.rewards.get(agent, 0.0)))
        game = aec.game
        self._done = game.game_over
        truncated = bool(game.game_over and game.truncated)
        terminated = bool(game.game_over and not game.truncated)
        return aec.observe(agent)["observation"], reward, terminated, truncated, self._info()

    def _play_others(self, reward: float) -> float:
        """Let the opponents act until the learner is to act or the game is over; ``reward``
        plus what the AEC env paid the learner's agent on their steps."""
        aec = self.aec
        game = aec.game
        learner = self._agent(self.learner_seat)
        while not game.game_over and game.current != self.learner_seat:
            seat = game.current
            player = self.seat_policies[seat]
            if opponent_shape(player) == "policy":
                seen = aec.observe(self._agent(seat))
                choice = player.act(seen["observation"], seen["action_mask"].astype(bool))
            else:
                choice = player.decide(GinnyView.from_game(game, seat))
            try:
                aec.step(int(choice))
            except (ValueError, TypeError) as err:
                raise ValueError(f"the opponent at seat {seat} ({player!r}) failed: {err}") from err
            reward += float(aec.rewards.get(learner, 0.0))
        return reward

    # ------------------------------------------------------------------ views
    def _info(self) -> dict[str, Any]:
        out = dict(self.aec.infos[self._agent(self.learner_seat)])
        out["num_players"] = self.config.num_players
        out["learner_seat"] = self.learner_seat
        out["action_mask"] = self.action_masks().astype(np.int8)
        return out

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the episode is over)."""
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before action_masks()")
        game = self.aec.game
        if game.game_over:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return game.legal_mask(self.learner_seat).astype(bool)

    def _sample_mask(self) -> np.ndarray | None:
        if not self._started or self._done:
            return None
        return self.action_masks()

    def render(self) -> Any:
        """As the AEC env renders (``"ansi"`` text, ``"human"`` printed, ``"rgb_array"`` a
        uint8 picture of one size for every seat count)."""
        if self.render_mode is not None and not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        return self.aec.render()

    def close(self) -> None:
        """Nothing to release."""


__all__ = ["ENV_ID", "GinnySingleSeatEnv"]
