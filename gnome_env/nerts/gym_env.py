"""Nerts -- Gymnasium single-seat environment (one learner, the other seats are bots or policies).

=====================  ==========================================================
Import                 ``import gnome_env; gymnasium.make("gnome_env/Nerts-v0")``
Class                  :class:`NertsSingleSeatEnv` (``gnome_env.nerts.gym_env``)
Actions                ``Discrete(N_ACTIONS)``: 397 with the defaults (the N36 table of
                       :mod:`gnome_env.nerts.nerts_v0`)
Observation            ``Box`` (2527,) float32 with the defaults: the Parallel env's
                       ``observation`` seen from the learner seat, with the same bounds
Action mask            ``env.action_masks()`` (bool, for sb3-contrib's ``MaskablePPO``)
                       and ``info["action_mask"]`` (int8) after ``reset`` and every ``step``
=====================  ==========================================================

Nerts is simultaneous (N18): every seat acts in every step. One seat is the learner; each
other seat is played by an opponent. ``step(action)`` takes the learner's action; then every
opponent picks its own action from its own view of the **same** start-of-step state (none of
them sees the learner's action or another opponent's), and the joint action is applied as
one step of :class:`gnome_env.nerts.nerts_v0.NertsParallelEnv`, which this env wraps: the
rules live in :class:`gnome_env.nerts.NertsGame`, the rewards and infos in the Parallel env;
this module only routes decisions.

An opponent is one of:

* a **bot**, anything with ``decide(view) -> int`` (:class:`gnome_env.nerts.policies.Bot`,
  e.g. the bots of ``agents.nerts``): it gets ``NertsView.from_game(game, its_seat)``, the
  seat's public information (N34), never the game;
* a **policy**, anything with ``act(observation, mask) -> int``
  (:class:`gnome_env.nerts.policies.Policy`): it gets its own seat's ``observation`` of the
  Parallel env and the bool mask of its legal actions;
* a **factory** ``factory(seed, config) -> bot or policy`` (a class such as
  ``GreedyNertsAgent``, or ``functools.partial(make_nerts_agent, "greedy")``, the shape of
  the arena's lineup entries): called at every ``reset`` for each seat it plays, with a seed
  drawn from the episode seed and the episode's :class:`~gnome_env.nerts.NertsConfig`, so the
  same reset seed gives the same opponents.

Keyword arguments
-----------------
* ``num_players`` -- 2..6 (default 4), or a list of seat counts such as ``[2, 4, 6]``:
  every ``reset`` then draws the game's seat count from the list (see Seeding). The
  observation and action spaces are the same for every count (seats are padded to six);
  ``possible_agents`` and the per-seat info arrays are those of the largest count,
  ``env.config`` is the current game's rules.
* ``opponents`` -- ``None`` (default): a :class:`~gnome_env.nerts.policies.RandomPolicy` per
  other seat, seeded at every ``reset`` from the episode seed. One opponent (bot, policy or
  factory): it plays every other seat (a bot or policy as the same object; a factory builds
  one per seat). A list or tuple of ``num_players - 1`` opponents (with a list of seat
  counts: the largest count - 1, of which a game with ``n`` seats uses the first ``n - 1``):
  ``opponents[k]`` plays seat ``(learner_seat + 1 + k) % n``, the seats after the learner,
  so the list keeps its meaning when the learner seat is drawn at random.
  ``env.seat_policies`` maps each other seat to its bot or policy for the current episode.
  A bot or policy object with a ``reseed(seed)`` method is re-seeded at every ``reset``
  from the episode seed (once per object); other objects are used as they are, so the
  episode repeats only if they are deterministic (``greedy``) or seeded by the caller --
  pass a factory to get fresh seeded opponents per episode.
* ``learner_seat`` -- a seat ``0..n-1`` for the smallest count ``n`` (default 0), or
  ``"random"``: drawn at every ``reset`` from the episode seed (``env.learner_seat`` and
  ``info["learner_seat"]`` hold the current one).
* ``reward_mode`` -- ``"relative"`` (default), ``"score"`` or ``"sparse"``; ``episode`` --
  ``"hand"`` (default) or ``"game"``; ``render_mode`` -- ``None``, ``"human"``, ``"ansi"``,
  ``"rgb_array"``: all as in :mod:`gnome_env.nerts.nerts_v0`.
* every other field of :class:`gnome_env.nerts.NertsConfig` (``jokers``, ``nerts_size``,
  ``work_piles``, ``slide_under``, ``turn_size``, ``foundation_tie``, ``auto_call``,
  ``stall_steps``, ``max_steps_per_hand``, ``target_score``, ``max_hands``).

A bad argument raises ``ValueError`` naming it and what is allowed.

Seeding
-------
``reset(seed=s)`` (``s`` in ``0 .. 2**63 - 1``) plays exactly what the Parallel env plays:
game ``e`` after the seeded reset has the seed ``g = s`` for ``e = 0`` and ``g =
rng.game_stream(s, 0, e, 1)[0]`` after it (:meth:`gnome_env.core.rng.ResetSeeds.game_seed`),
and is ``NertsGame(config, g)``; an unseeded first reset draws ``s`` from the operating
system. With a list of seat counts the count is ``num_players[rng.draw_index(len, rng.SEAT,
g, 2)]``; the learner seat (``"random"``) is ``rng.draw_index(n, rng.SEAT, g)`` and the seed
of the opponent playing ``opponents[k]``'s seat is ``rng.derive_seed(rng.SEAT, g, 1, k)``
(:mod:`gnome_env.core.rng`, the project's keyed generator). ``env.np_random`` is seeded as
Gymnasium does but the env does not use it; no global random state is used.

Rewards, termination, truncation, infos
---------------------------------------
The learner gets exactly what the Parallel env gives its seat for the joint step: its
reward (``reward_mode``), ``terminated`` and ``truncated`` (``episode="hand"``: truncated
when the hand ends at the N28 step cap, terminated when it ends by a call or blocked;
``"game"``: the same for the game's last hand). ``info`` is the Parallel env's info of the
learner (the table of :mod:`gnome_env.nerts.nerts_v0`; ``hand_scores`` and ``totals``
padded with zeros to the largest seat count) plus ``num_players`` (int), ``learner_seat``
(int) and ``action_mask`` (int8 [N_ACTIONS], all zeros once the episode is over), with the
same keys and types after ``reset`` and every ``step``.

Errors
------
An illegal or malformed learner action raises ``ValueError`` (the Parallel env's message)
and changes nothing; no opponent is asked. An opponent that returns an illegal action
raises ``ValueError`` naming its seat, before the step is applied: the game is unchanged
(the opponents asked so far may have used their random generators). A factory that returns
neither a bot nor a policy raises ``ValueError`` at ``reset``, naming the seat; the env keeps
its current game and seed stream. ``step`` before
``reset`` or after the episode ended raises ``gymnasium.error.ResetNeeded``.

``action_space`` equals ``Discrete(N_ACTIONS)``; its ``sample()`` without a mask draws among
the learner's legal actions (plain uniform sampling once the episode is over, and in a
pickled copy), so random-action loops and ``gymnasium.utils.env_checker.check_env`` only
ever send legal actions.

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
    episode_seats,
    opponent_shape,
    seat_opponents,
)
from gnome_env.core.opponents import check_seat_counts as core_seat_counts
from gnome_env.core.spaces import LegalActionSpace
from gnome_env.nerts.config import MAX_PLAYERS, MIN_PLAYERS, NertsConfig
from gnome_env.nerts.encoding import NertsEncoder
from gnome_env.nerts.engine import NertsGame
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.nerts_v0 import RENDER_MODES, NertsParallelEnv

ENV_ID = "gnome_env/Nerts-v0"
#: keywords of the Parallel env's old spellings, refused here (this env never had them)
OLD_KEYWORDS = {"players": "num_players", "reward": "reward_mode"}
MAKE_AGENT = "agents.nerts.make_nerts_agent"


def check_seat_counts(num_players: object) -> tuple[int, ...]:
    """The seat counts a ``num_players`` argument allows (N3): an int in 2..6 or a non-empty
    list or tuple of them; anything else is a ``ValueError``."""
    return core_seat_counts(num_players, MIN_PLAYERS, MAX_PLAYERS)


class NertsSingleSeatEnv(gymnasium.Env):
    """One learner seat of Nerts; every other seat is played by a bot or policy (see the
    module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "Nerts-v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": 4,
    }

    def __init__(
        self,
        num_players: int | Sequence[int] = 4,
        opponents: Any = None,
        learner_seat: int | str = 0,
        reward_mode: str = "relative",
        episode: str = "hand",
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        for old, new in OLD_KEYWORDS.items():
            if old in rules:
                raise ValueError(f"{old}= is not a keyword of {ENV_ID}: use {new}=")
        self.seat_counts = check_seat_counts(num_players)
        #: one Parallel env per seat count (each validates the rules and options)
        self.parallels = {
            n: NertsParallelEnv(
                num_players=n,
                reward_mode=reward_mode,
                episode=episode,
                render_mode=render_mode,
                **rules,
            )
            for n in sorted(set(self.seat_counts))
        }
        most, fewest = max(self.parallels), min(self.parallels)
        self.parallel = self.parallels[most]  # the current game's env (set again by reset)
        self.config: NertsConfig = self.parallel.config
        self.reward_mode, self.episode = reward_mode, episode
        self.render_mode = render_mode
        self._seat_choice = check_learner_seat(learner_seat, fewest, num_players)
        self.learner_seat: int | None = None if learner_seat == RANDOM_SEAT else int(learner_seat)
        self._opponents = check_opponents(opponents, most, MAKE_AGENT)
        self._seeds = rng.ResetSeeds()  # the games of reset: see Seeding
        self.possible_agents = list(self.parallel.possible_agents)
        self.observation_space = self.parallel.observation_space("player_0")["observation"]
        self.n_actions = self.parallel.n_actions
        self.action_space = LegalActionSpace(self.n_actions, self._sample_mask)
        self.seat_policies: dict[int, Any] = {}
        self._started = False
        self._done = False

    # ------------------------------------------------------------------ the game
    @property
    def game(self) -> NertsGame | None:
        """The current episode's game (full information; do not step it), None before reset."""
        return self.parallel.game if self._started else None

    @property
    def encoder(self) -> NertsEncoder:
        """The current game's observation encoder."""
        return self.parallel.encoder

    def _agent(self, seat: int) -> str:
        return self.possible_agents[seat]

    # ------------------------------------------------------------------ episode
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game (see Seeding) and pick this episode's seats and opponents.

        ``options`` is accepted for the Gymnasium API and not used.
        """
        saved = (self._seeds.stream, self._seeds.episode)
        game_seed = self._seeds.game_seed(seed)  # ValueError for a bad seed, nothing changed
        n, learner = episode_seats(self.seat_counts, self._seat_choice, game_seed)
        try:
            seat_policies = seat_opponents(
                self._opponents, self.parallels[n].config, n, learner, game_seed
            )
        except ValueError:  # a factory built no player: the env stays as it was
            self._seeds.stream, self._seeds.episode = saved
            raise
        super().reset(seed=seed)
        self.parallel = self.parallels[n]
        self.config = self.parallel.config
        self.learner_seat, self.seat_policies = learner, seat_policies
        obs, infos = self.parallel.reset(seed=game_seed)
        self._started, self._done = True, False
        agent = self._agent(learner)
        return obs[agent]["observation"], self._info(infos[agent])

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Take the learner's action, let every opponent decide on the same state, and apply
        the joint action as one simultaneous step (N18)."""
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if self._done:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset() before step()")
        par = self.parallel
        agent = self._agent(self.learner_seat)
        actions = {agent: par.check_action(agent, action)}  # ValueError, nothing changed
        actions.update(self.opponent_actions())
        obs, rewards, terms, truncs, infos = par.step(actions)
        terminated, truncated = bool(terms[agent]), bool(truncs[agent])
        self._done = terminated or truncated
        return (
            obs[agent]["observation"],
            float(rewards[agent]),
            terminated,
            truncated,
            self._info(infos[agent]),
        )

    def opponent_actions(self) -> dict[str, int]:
        """Every opponent's action on the current state, each from its own view, checked;
        ``ValueError`` naming the seat of the first that returns an illegal one."""
        par = self.parallel
        game = par.game
        policies = [s for s, p in self.seat_policies.items() if opponent_shape(p) == "policy"]
        observations = par.observations([self._agent(s) for s in policies]) if policies else {}
        out = {}
        for seat, player in self.seat_policies.items():
            agent = self._agent(seat)
            if agent in observations:
                seen = observations[agent]
                choice = player.act(seen["observation"], seen["action_mask"].astype(bool))
            else:
                choice = player.decide(NertsView.from_game(game, seat))
            try:
                out[agent] = par.check_action(agent, choice)
            except ValueError as err:
                raise ValueError(f"the opponent at seat {seat} ({player!r}) failed: {err}") from err
        return out

    # ------------------------------------------------------------------ views
    def _info(self, info: dict[str, Any]) -> dict[str, Any]:
        out = dict(info)
        slots = len(self.possible_agents)
        for key in ("hand_scores", "totals"):
            padded = np.zeros(slots, dtype=np.int64)
            padded[: len(info[key])] = info[key]
            out[key] = padded
        out["num_players"] = self.config.num_players
        out["learner_seat"] = self.learner_seat
        out["action_mask"] = self.action_masks().astype(np.int8)
        return out

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the episode is over)."""
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before action_masks()")
        if self._done:
            return np.zeros(self.n_actions, dtype=bool)
        return self.parallel.game.legal_mask(self.learner_seat).astype(bool)

    def _sample_mask(self) -> np.ndarray | None:
        if not self._started or self._done:
            return None
        return self.action_masks()

    def render(self) -> Any:
        """``"ansi"``: the table as text; ``"human"``: print it; ``"rgb_array"``: its picture,
        uint8 (H, W, 3), the same size for every game of this env (padded to the largest
        seat count's frame)."""
        if self.render_mode is not None and not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        frame = self.parallel.render()
        if self.render_mode != "rgb_array" or len(self.parallels) == 1:
            return frame
        from gnome_env.nerts.render_image import image_size

        sizes = [image_size(p.config) for p in self.parallels.values()]
        out = np.empty((max(h for h, _ in sizes), max(w for _, w in sizes), 3), dtype=np.uint8)
        out[...] = frame[0, 0]  # the table's background colour
        out[: frame.shape[0], : frame.shape[1]] = frame
        return out

    def close(self) -> None:
        """Nothing to release."""
