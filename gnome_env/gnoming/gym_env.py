"""Gnoming A Round -- Gymnasium single-seat environment (one learner, the other seats are policies).

=====================  ==========================================================
Import                 ``import gnome_env; gymnasium.make("gnome_env/GnomingARound-v1")``
Class                  :class:`GnomeSingleSeatEnv` (``gnome_env.gnoming.gym_env``)
Actions                ``Discrete(33)`` (the table of :mod:`gnome_env.gnoming.gnoming_a_round_v1`)
Observation            ``Box`` (1401,) float32 with the default deck: the AEC env's
                       ``observation`` seen from the learner seat, with the same bounds
Action mask            ``env.action_masks()`` (bool, for sb3-contrib's ``MaskablePPO``)
                       and ``info["action_mask"]`` (int8) after ``reset`` and every ``step``
=====================  ==========================================================

One seat of the table is the learner; every other seat is played by a policy -- anything
with ``act(observation, mask) -> int`` (:class:`gnome_env.gnoming.policies.Policy`) -- which sees
only its own observation (``ObservationEncoder.encode(game, its_seat)``) and the bool mask
of its legal actions (``Game.legal_mask()``). ``step(action)`` applies the learner's action,
then lets the other seats decide until the learner must decide again or the game is over.
The rules live in :class:`gnome_env.Game` and the rewards in :mod:`gnome_env.gnoming.rewards`; this
module only routes decisions.

Keyword arguments
-----------------
* ``num_players`` -- 3..7 (default 4), or a list of seat counts such as ``[3, 4, 5, 6, 7]``:
  every ``reset`` then draws the game's seat count from the list, from the same stream as
  the game seed (see Seeding), exactly as the AEC env does. The observation and action
  spaces are the same for every count; ``possible_agents`` and the per-seat info arrays are
  those of the largest count, ``env.config`` is the current game's rules.
* ``opponents`` -- ``None`` (default): a :class:`~gnome_env.gnoming.policies.RandomPolicy` per other
  seat, re-seeded at every ``reset`` from the episode seed, so the same reset seed gives the
  same episode. One policy: it plays every other seat (the same object). A list or tuple of
  ``num_players - 1`` policies (with a list of seat counts: the largest count - 1, of which
  a game with ``n`` seats uses the first ``n - 1``): ``opponents[k]`` plays seat
  ``(learner_seat + 1 + k) % n``, i.e. the seats in turn order after the learner (so the
  list keeps its meaning when the learner seat is drawn at random). ``env.seat_policies``
  maps each other seat to its policy for the current episode. Passed policies are used as
  they are: the episode is reproducible only if they are deterministic or seeded by the
  caller.
* ``learner_seat`` -- a seat ``0..n-1`` for the smallest count ``n`` (default 0), or
  ``"random"``: drawn at
  every ``reset`` from the episode seed (``env.learner_seat`` and ``info["learner_seat"]``
  hold the current one).
* ``reward_mode`` -- ``"win"`` (default), ``"score"`` or ``"raw"``, see
:mod:`gnome_env.gnoming.rewards`.
* ``render_mode`` -- ``None``, ``"ansi"`` (``render()`` returns ``Game.render()``'s text),
  ``"human"`` (prints it after ``reset`` and every ``step``) or ``"rgb_array"`` (``render()``
  returns a uint8 (H, W, 3) picture of the table, :mod:`gnome_env.gnoming.render_image`, one frame
  size per env: what sb3's ``make_vec_env`` and video recorders ask for).
* every field of :class:`gnome_env.RulesConfig` (``rotate_start``, ``discard_taken_card``,
  ``bounce_face_up``, ``max_turns_per_round``, ``first_out_tie_is_lowest``, ``rounds``,
  ``deck``), validated by :func:`gnome_env.gnoming.gnoming_a_round_v1.make_config`.

A bad argument raises ``ValueError`` naming it.

Seeding
-------
``reset(seed=s)`` (``s`` in ``0 .. 2**63 - 1``) picks the game exactly as the AEC env does
-- game ``e`` after the seeded reset is ``Game(config with n seats, game_seed)`` with
``game_seed, choice = gnome_env.core.rng.game_stream(s, 0, e, len(seat_counts))`` and ``n =
seat_counts[choice]`` -- so both environments deal the same game for the same reset seed
and ``num_players``, also for later unseeded resets. The learner seat (``"random"``) and
the default opponents' seeds are drawn from the stream ``(rng.SEAT, game_seed)`` of the
project's generator (:mod:`gnome_env.core.rng`). ``env.np_random`` is seeded as Gymnasium does
but the env does not use it; no global random state is used.

Rewards, termination, truncation, infos
---------------------------------------
The learner gets exactly what the AEC env gives its seat: ``step`` returns the sum of the
rewards paid to the learner since its previous decision (round-end rewards and, at game end,
the game-end rewards of :mod:`gnome_env.gnoming.rewards`, per applied action as the AEC env sums
them). When the game is over the episode ends: ``truncated=True`` if the last round ended at
the turn cap (R17, ``round_results[-1].ended_by == "turn_cap"``), else ``terminated=True``.
``info`` has the same keys with the same types after ``reset`` and every ``step``: the
AEC env's (the table of :mod:`gnome_env.gnoming.infos`, describing the round that ended since the
learner's previous decision, blank if none did; per-seat arrays have one entry per seat of
the largest count), plus ``action_mask`` (int8 [33], all zeros once the game is over) and
``learner_seat`` (int). Every info has its own arrays. ``env.last_round`` holds the last
finished round with agent names (:func:`gnome_env.gnoming.rewards.round_info`), ``None`` until a
round ends.

Errors
------
An illegal learner action raises ``ValueError`` and leaves the state unchanged. An opponent
that returns an illegal action raises ``ValueError`` naming its seat (the learner's action
has then been applied; call ``reset``). ``step`` before ``reset`` or after the episode ended
raises ``gymnasium.error.ResetNeeded``.

``action_space`` equals ``Discrete(33)``; its ``sample()`` without a mask draws among the
learner's legal actions (plain uniform sampling once the game is over, and in a pickled
copy), so random-action loops and ``gymnasium.utils.env_checker.check_env`` only ever
send legal actions.

Version history
---------------
* v1: the game stream of the project's own generator (see Seeding). Later changes, with no
  change to observations, actions or rewards: ``info`` has one fixed structure on every
  step (the round's results with agent names moved to ``env.last_round``);
  ``num_players`` may be a list of seat counts; ``render_mode="rgb_array"``.
* v0: initial release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np

from gnome_env.core import rng
from gnome_env.core.opponents import RANDOM_SEAT, check_learner_seat
from gnome_env.core.spaces import LegalActionSpace
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import check_int, seat_counts
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.gnoming_a_round_v1 import (
    RENDER_MODES,
    check_render_mode,
    make_config,
    render_game,
)
from gnome_env.gnoming.infos import blank_info, round_end_info
from gnome_env.gnoming.policies import Policy, RandomPolicy
from gnome_env.gnoming.rewards import (
    check_reward_mode,
    ended_by_cap,
    rewards_after_action,
    round_info,
)

ENV_ID = "gnome_env/GnomingARound-v1"


def _is_policy(obj: object) -> bool:
    return callable(getattr(obj, "act", None))


class GnomeSingleSeatEnv(gymnasium.Env):
    """One learner seat of Gnoming A Round; the other seats are played by policies."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "GnomingARound-v1",
        "render_modes": list(RENDER_MODES),
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int | Sequence[int] = 4,
        opponents: Policy | Sequence[Policy] | None = None,
        learner_seat: int | str = 0,
        reward_mode: str = "win",
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        # One seat count, or a list of them: each reset then draws one (see Seat counts).
        self.seat_counts = seat_counts(num_players)
        self.configs = {c: make_config(c, **rules) for c in sorted(set(self.seat_counts))}
        n = max(self.configs)
        fewest = min(self.configs)
        self.config = self.configs[n]  # the current game's rules (set again by reset)
        self.reward_mode = check_reward_mode(reward_mode)
        self.render_mode = check_render_mode(render_mode)
        self._seat_choice = check_learner_seat(learner_seat, fewest, num_players)
        self._seeds = rng.ResetSeeds()  # the games of reset: see Seeding
        self._opponents = self._check_opponents(opponents, n)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._encoders = {c: ObservationEncoder(cfg) for c, cfg in self.configs.items()}
        self.encoder = self._encoders[n]
        low, high = self.encoder.bounds()
        self.observation_space = gymnasium.spaces.Box(low, high, dtype=np.float32)
        self.action_space = LegalActionSpace(A.NUM_ACTIONS, self._sample_mask)
        self.game: Game | None = None
        self.learner_seat: int | None = None if learner_seat == RANDOM_SEAT else int(learner_seat)
        self.seat_policies: dict[int, Policy] = {}
        self._rounds_seen = 0  # round results the learner had seen at its previous decision
        #: the last finished round's results with agent names (:func:`rewards.round_info`),
        #: what ``info`` held before it became fixed arrays; None until a round ends
        self.last_round: dict[str, Any] | None = None

    @staticmethod
    def _check_opponents(opponents: object, n: int) -> list[Policy] | Policy | None:
        if opponents is None:
            return None
        if _is_policy(opponents):
            return opponents  # type: ignore[return-value]
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != n - 1:
                raise ValueError(
                    f"opponents has {len(opponents)} policies: must have one per other seat, "
                    f"{n - 1} for {n} players (the largest seat count)"
                )
            for k, policy in enumerate(opponents):
                if not _is_policy(policy):
                    raise ValueError(
                        f"opponents[{k}]={policy!r} is not allowed: must have a method "
                        "act(observation, mask) -> int"
                    )
            return list(opponents)
        raise ValueError(
            f"opponents={opponents!r} is not allowed: must be None, a policy (an object with "
            f"act(observation, mask) -> int) or a list of {n - 1} policies"
        )

    # ------------------------------------------------------------------ episode
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Deal a new game and play the other seats up to the learner's first decision.

        ``options`` is accepted for the Gymnasium API and not used.
        """
        if seed is not None:
            seed = check_int("seed", seed, 0, rng.MAX_SEED - 1)
        super().reset(seed=seed)
        stream, episode = self._seeds.next(seed)
        episode_seed, choice = rng.game_stream(stream, 0, episode, len(self.seat_counts))
        episode_seed = int(episode_seed)
        n = self.seat_counts[int(choice)]
        self.config = self.configs[n]
        self.encoder = self._encoders[n]
        if self._seat_choice == RANDOM_SEAT:
            self.learner_seat = rng.draw_index(n, rng.SEAT, episode_seed)
        learner = self.learner_seat
        others = [(learner + 1 + k) % n for k in range(n - 1)]
        if self._opponents is None:
            seeds = [rng.derive_seed(rng.SEAT, episode_seed, 1, k) for k in range(n - 1)]
            self.seat_policies = {s: RandomPolicy(x) for s, x in zip(others, seeds, strict=True)}
        elif isinstance(self._opponents, list):  # the first n - 1 (all but in seat-count mode)
            self.seat_policies = dict(zip(others, self._opponents[: n - 1], strict=True))
        else:
            self.seat_policies = dict.fromkeys(others, self._opponents)
        self.game = Game(self.config, episode_seed)
        self._rounds_seen = 0
        self.last_round = None
        self._play_others(0.0)  # no round can end before the learner's first decision
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply the learner's action, then the other seats' until the learner decides again."""
        game = self.game
        if game is None:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        if game.game_over:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset() before step()")
        rounds_seen = len(game.round_results)
        reward = self._apply(action)  # ValueError for an illegal action, state unchanged
        self._rounds_seen = rounds_seen
        reward = self._play_others(reward)
        truncated = ended_by_cap(game)
        terminated = game.game_over and not truncated
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, terminated, truncated, self._info()

    def _play_others(self, reward: float) -> float:
        """Let the other seats decide until it is the learner's turn or the game is over."""
        game = self.game
        while not game.game_over and game.current_seat != self.learner_seat:
            seat = game.current_seat
            policy = self.seat_policies[seat]
            action = policy.act(self.encoder.encode(game, seat), game.legal_mask())
            try:
                reward += self._apply(action)
            except ValueError as err:
                raise ValueError(f"the opponent at seat {seat} ({policy!r}) failed: {err}") from err
        return reward

    def _apply(self, action: Any) -> float:
        """Apply one action of the current seat; the learner's reward for it, as the AEC env."""
        game = self.game
        rounds_before = len(game.round_results)
        game.step(action)
        rewards = rewards_after_action(self.reward_mode, game, rounds_before)
        return 0.0 if rewards is None else rewards[self.learner_seat]

    # ------------------------------------------------------------------ views
    def _observe(self) -> np.ndarray:
        return self.encoder.encode(self.game, self.learner_seat)

    def _info(self) -> dict[str, Any]:
        game = self.game
        slots = len(self.possible_agents)
        if len(game.round_results) > self._rounds_seen:  # a round ended since last decision
            self.last_round = round_info(game, self.possible_agents[: game.num_players])
            info = round_end_info(game, slots)
        else:
            info = blank_info(slots, game.num_players)
        info["action_mask"] = self.action_masks().astype(np.int8)
        info["learner_seat"] = self.learner_seat
        return info

    def action_masks(self) -> np.ndarray:
        """Bool mask of the learner's legal actions (all False once the game is over)."""
        game = self.game
        if game is None:
            raise gymnasium.error.ResetNeeded("call reset() before action_masks()")
        if game.game_over:
            return np.zeros(A.NUM_ACTIONS, dtype=bool)
        return game.legal_mask()

    def _sample_mask(self) -> np.ndarray | None:
        game = self.game
        if game is None or game.game_over:
            return None
        return game.legal_mask()

    def render(self) -> Any:
        """``"ansi"``: the table as text; ``"human"``: print it; ``"rgb_array"``: its
        picture, uint8 (H, W, 3), the same size for every game of this env."""
        if self.render_mode is not None and self.game is None:
            raise gymnasium.error.ResetNeeded("call reset() before render()")
        return render_game(self.game, self.render_mode, len(self.possible_agents))

    def close(self) -> None:
        """Nothing to release."""
