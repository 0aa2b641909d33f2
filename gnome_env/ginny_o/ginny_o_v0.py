"""Ginny-O -- PettingZoo AEC environment (RULES-ginny-o.md G1-G31 and its RL notes).

=====================  ==============================================================
Import                 ``from gnome_env.ginny_o import ginny_o_v0``
Actions                Discrete(1864)
Agents                 ``player_0 .. player_{n-1}``, n = ``num_players`` (2..4, default 2)
Parallel API           no (turn-based, ``is_parallelizable=False``)
Manual control         no
Observation shape      ``observation``: (7944,) float32, ``action_mask``: (1864,) int8
Observation values     ``observation`` in [0, 1] except the seats' ``score`` (see below)
State shape            (8213,) float32 (``state()``, full information)
Registered as          ``pettingzoo.make("aec", "gnome_env/ginny_o_v0")``
=====================  ==============================================================

The shapes are the same for every seat count and every rule option.

``env(**kw)`` is the checked environment: it behaves as ``raw_env(**kw)`` in PettingZoo's
standard wrappers, as the classic envs have them (``OrderEnforcingWrapper(
AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw_env, -1)))``), implemented in one layer
(:class:`gnome_env.core.checked.CheckedAEC`) because the generic wrappers' attribute
forwarding cost a third of a step; ``tests/core/test_checked_env.py`` holds it equal to that
stack call by call. Calls before ``reset`` are refused, an action outside ``Discrete(1864)``
(or a ``bool``) raises ``AssertionError`` naming the agent, the action and what is allowed,
changing nothing, and an illegal (masked-out) action ends the game with reward -1 for the
offender, 0 for the others, and a warning. ``env().unwrapped`` is a :class:`raw_env` sharing
its state. ``raw_env(**kw)`` has no such checks: an illegal action raises
:class:`gnome_env.ginny_o.IllegalActionError` (a ``ValueError``) with the agent's name and
the engine's reason, and changes nothing (no step, no draw).

Keyword arguments: ``num_players`` (2..4, default 2), ``reward_mode`` (``"rank"``,
``"score"``), ``render_mode`` (``None``, ``"human"``, ``"ansi"``, ``"rgb_array"``) and every
other field of
:class:`gnome_env.ginny_o.GinnyConfig` (``jokers_per_set``, ``descending_runs``,
``max_placements``, ``first_player``, ``rescore_existing``, ``dead_check``,
``stall_rounds``, ``max_turns``). A bad value or an unknown name raises ``ValueError``
naming it.

Turns
-----
A turn is played as atomic steps (RL notes): the acting seat stays ``agent_selection`` for
every step of its turn -- each PLACE, DECLARE, COMMIT, RETURN, ... -- and the next seat
is selected when the turn ends. The turn's draw (G13) and the refills (G14, G15) are chance
events inside ``step``, from the game's own seeded generator (G4). A turn has at most
:data:`MAX_STEPS_PER_TURN` = 21 steps and a game at most ``max_turns`` turns, so at most
``max_turns x 21`` steps (:func:`max_game_length`; 2,520 with 2 players and the defaults).

Observation Space
-----------------
``{"observation": Box(float32, (7944,)), "action_mask": Box(int8 0/1, (1864,))}``, the
agent's own, built only from its :class:`gnome_env.ginny_o.information.GinnyView` (G17:
other racks and the box cannot leak; the tests reshuffle them and check). The encoder is
:mod:`gnome_env.ginny_o.encoding` (``encode``, ``SLICES``, ``describe_slices()``):

===============  ===============  ===============================================================
block            offsets          content
===============  ===============  ===============================================================
board            [0, 7425)        15 x 15 cells x 33: occupied; suit (4); rank (13, a joker's
                                  declared card); joker; pending; region (9: centre, then the
                                  8 red squares in reading order); uncovered premium (4: y, g,
                                  R, B)
rack             [7425, 7865)     8 slots x 55: kind one-hot (53); marked for return; used
                                  this turn (committed or pending)
unseen           [7865, 7918)     per kind: copies not visible to the agent / copies in play
seats            [7918, 7930)     4 x (present, score / 100, rack size / 8): the agent first,
                                  then in turn order, padded with zeros
globals          [7930, 7944)     box size / tiles in play; turn / max_turns; stall / limit;
                                  phase (5); direction (3); placements this turn / max;
                                  drew this turn; first meld made
===============  ===============  ===============================================================

A seat that is not acting sees zeros in the turn-in-progress parts (pending tiles, marked /
used slots, phase, direction, placements, drew); its own rack, sorted, fills rack slots
``0 .. len - 1``. ``score`` / 100 is bounded by +-10^4 in the Box (no game comes near it:
see :mod:`gnome_env.ginny_o.encoding`). ``observation_space(agent).contains(obs)`` holds for
every observation.

Legal Actions Mask
------------------
``observation["action_mask"]`` is 1 on the acting agent's legal ids (``GinnyGame.legal_mask``,
built from the move generator's prefix trie: every masked sequence ends in a legal turn, and
the mask of the acting agent is never empty) and all zero for every other agent and once the
game is over.

Action Space
------------
``Discrete(1864)``, the flat table of the RL notes (:mod:`gnome_env.ginny_o.actions`):

=========  ==================  ===========================================================
ids        action              legal when
=========  ==================  ===========================================================
0-1799     ``PLACE(s, c)``     = 225 s + c: the tile in rack slot s goes on cell
                               c = 15 row + col; the pending tiles still lead to a legal
                               placement (tiles go down in reading order along one line;
                               among identical tiles only the lowest unused slot)
1800-1851  ``DECLARE(k)``      = 1800 + k: the joker just placed stands for card k
1852       ``COMMIT``          the pending tiles form a legal placement (G18-G23): score it
1853-1860  ``RETURN(s)``       = 1853 + s: mark slot s for the box (after a draw, before any
                               placement, slots in increasing order)
1861       ``CONFIRM_RETURN``  at least one slot is marked: return them and redraw (G14)
1862       ``END_TURN``        ``max_placements`` > 1 and a placement was committed
1863       ``PASS``            no draw this turn (the box is empty) and nothing placed
=========  ==================  ===========================================================

Rewards
-------
* ``"rank"`` (default): terminal and zero-sum, ``GinnyGame.rank_rewards()``: r_i =
  (opponents ranked below i - opponents ranked above i) / (n - 1) in the G31 order (final
  score, then the smaller rack penalty). With 2 players a win is +1, a loss -1, a shared
  win 0. Every other step pays 0. :data:`UTILITY_RANGE` = (-1, 1).
* ``"score"``: dense and zero-sum, paid at the end of every turn to every seat i:
  (d_i - mean of d_j over the opponents j) / 100, where d is each seat's score change (G28)
  over that turn; in the turn that ends the game d runs to the final scores (G30 penalties
  included). Over a game the rewards of seat i sum to (F_i - mean_j F_j) / 100 (F the final
  scores) for a game that starts from zero scores.

Termination and truncation: when the game ends (G29 a-c) every agent is terminated; when it
ends at the turn cap (G29d, ``GinnyGame.truncated``) every agent is truncated instead. Either
way the game is scored and the rewards above are paid in that step.

Infos
-----
Every agent's info has the same keys, all Python ints, after ``reset`` and after every
step (:data:`INFO_KEYS`):

======================  =======================================================================
key                     value
======================  =======================================================================
seat                    the agent's seat (``player_i`` is seat i)
turn                    completed turns of the game (G29)
current                 the acting seat, -1 once the game is over
is_acting               1 if the agent is to act now
phase                   the acting agent's phase, an index of ``engine.PHASES`` (choose,
                        placing, declaring, returning, after_commit); -1 for the others
placements_available    legal placements the acting agent can start now (0 while a placement
                        is pending or slots are marked; 0 for the others)
box_size                tiles in the box (public, G17)
score                   the agent's cumulative score (G28)
rack_size               tiles on the agent's rack
points                  points the last step scored, for the agent that took it (0 otherwise)
game_over               1 once the game is over
end_reason              0 while playing, then 1 passes (G29a), 2 dead (G29b), 3 stall (G29c),
                        4 turn cap (G29d)
penalty                 the agent's rack penalty (G30) once the game is over, else 0
final_score             the agent's final score (G30) once the game is over, else 0
won                     1 for each winner (G31, shared wins included) once over, else 0
======================  =======================================================================

State
-----
``state()`` (full information, for centralized critics) is float32 of :data:`STATE_SIZE` =
8213: ``[0, 7944)`` the acting seat's observation (the last acting seat's once the game is
over); ``[7944, 7948)`` one-hot of the acting seat (absolute; zeros once over); ``[7948,
8160)`` every seat's rack, 4 absolute seats (padded) x 53 kinds, count / copies in play;
``[8160, 8213)`` the box, count per kind / copies in play. ``state_space`` is its Box.

Render
------
``"ansi"``: ``GinnyGame.render()`` -- scores, box size, the board with coordinates and the
acting seat's rack; ``"human"``: prints that text after ``reset`` and every step (and
``render()`` prints it and returns ``None``); ``"rgb_array"``: a uint8 (544, 454, 3) picture
of the same (:func:`gnome_env.ginny_o.render_image.render_rgb`). Neither shows another
seat's rack.

Seeding
-------
``reset(seed=s)`` (``s`` in 0 .. 2**63 - 1) plays ``GinnyGame(config, s)``, and fixes every
later unseeded reset: game ``e`` after it (e = 1, 2, ...) has seed
``gnome_env.core.rng.game_stream(s, 0, e, 1)[0]``. An unseeded reset before any seed draws ``s``
from ``gnome_env.core.rng.entropy_seed()``. All randomness (G4, G12) is the project's own
generator. ``env.game_seed`` is the current game's seed.

Positions
---------
``env.unwrapped.game`` is the engine's game (full information; do not step it directly).
Assigning a :class:`GinnyGame` with the same number of players (for example one built by
:func:`gnome_env.ginny_o.testing.stacked_game`) installs that position: the episode goes on
from it, with ``"score"`` rewards counted from its current scores.

Version History
---------------
* v0: initial release.
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from gnome_env.core import rng
from gnome_env.core.checked import CheckedAEC, UncheckedView
from gnome_env.core.renamed import env_keywords, old_property
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.cards import NUM_KINDS
from gnome_env.ginny_o.config import MAX_PLAYERS, GinnyConfig
from gnome_env.ginny_o.encoding import OBS_SIZE, bounds, encode
from gnome_env.ginny_o.engine import END_REASONS, PHASES, GinnyGame, IllegalActionError
from gnome_env.ginny_o.information import GinnyView

ENV_NAME = "ginny_o_v0"
RENDER_MODES = ("human", "ansi", "rgb_array")
REWARDS = ("rank", "score")
#: Static facts (RL notes), declared once.
NUM_ACTIONS = A.NUM_ACTIONS
MAX_STEPS_PER_TURN = A.MAX_STEPS_PER_TURN
UTILITY_RANGE = (-1.0, 1.0)  # reward="rank"
ILLEGAL_ACTION_REWARD = -1.0  # env(): TerminateIllegalWrapper
INFORMATION = "imperfect information, with chance (the draws)"
SCORE_SCALE = 100.0
#: ``end_reason`` codes of the infos: 0 while playing, then 1 + the index in END_REASONS.
END_CODES = {None: 0, **{reason: i + 1 for i, reason in enumerate(END_REASONS)}}
INFO_KEYS = (
    "seat",
    "turn",
    "current",
    "is_acting",
    "phase",
    "placements_available",
    "box_size",
    "score",
    "rack_size",
    "points",
    "game_over",
    "end_reason",
    "penalty",
    "final_score",
    "won",
)
#: The full-information state: the acting seat's observation, its seat, racks, box.
STATE_SLICES = (
    ("observation", 0, OBS_SIZE),
    ("acting_seat", OBS_SIZE, OBS_SIZE + MAX_PLAYERS),
    ("racks", OBS_SIZE + MAX_PLAYERS, OBS_SIZE + MAX_PLAYERS + MAX_PLAYERS * NUM_KINDS),
    (
        "box",
        OBS_SIZE + MAX_PLAYERS + MAX_PLAYERS * NUM_KINDS,
        OBS_SIZE + MAX_PLAYERS + (MAX_PLAYERS + 1) * NUM_KINDS,
    ),
)
STATE_SIZE = STATE_SLICES[-1][2]

assert NUM_ACTIONS == 1864 and MAX_STEPS_PER_TURN == 21 and STATE_SIZE == 8213


def max_game_length(config: GinnyConfig) -> int:
    """The most steps a game of ``config`` can take: ``turn_cap x 21`` (RL notes)."""
    return config.turn_cap * MAX_STEPS_PER_TURN


def _check_choice(name: str, value: object, allowed: tuple[str | None, ...]) -> Any:
    if not (value is None or isinstance(value, str)) or value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name}={value!r} is not allowed: must be one of {shown}")
    return value


def relative(deltas: list[int]) -> list[float]:
    """``(d_i - mean of the opponents' d_j) / 100`` per seat (zero-sum)."""
    total, others = sum(deltas), len(deltas) - 1
    return [(d - (total - d) / others) / SCORE_SCALE for d in deltas]


def state_vector(game: GinnyGame) -> np.ndarray:
    """The full-information state of ``game`` (float32, :data:`STATE_SIZE`; the layout is in
    the module docstring)."""
    out = np.zeros(STATE_SIZE, dtype=np.float32)
    encode(GinnyView.from_game(game, game.current), out[:OBS_SIZE])
    if not game.game_over:
        out[OBS_SIZE + game.current] = 1.0
    copies = game.config.copies().astype(np.float64)
    inverse = np.divide(1.0, copies, out=np.zeros(NUM_KINDS), where=copies > 0)
    racks = out[STATE_SLICES[2][1] : STATE_SLICES[2][2]].reshape(MAX_PLAYERS, NUM_KINDS)
    for s, rack in enumerate(game.racks):
        racks[s] = np.bincount(rack, minlength=NUM_KINDS) * inverse
    box = np.bincount(np.asarray(game.box, dtype=np.int64), minlength=NUM_KINDS)
    out[STATE_SLICES[3][1] :] = box * inverse
    return out


def _state_bounds() -> tuple[np.ndarray, np.ndarray]:
    low, high = bounds()
    extra = STATE_SIZE - OBS_SIZE
    return (
        np.concatenate([low, np.zeros(extra, dtype=np.float32)]),
        np.concatenate([high, np.ones(extra, dtype=np.float32)]),
    )


class raw_env(AECEnv):
    """The Ginny-O AEC environment without wrappers (see the module docstring for the manual):
    an illegal action raises ``IllegalActionError`` (a ``ValueError``) and changes nothing."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": ENV_NAME,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 2,
    }

    reward = old_property("reward_mode", "reward", "raw_env")  # the old name, warns once

    def __init__(
        self,
        num_players: int = 2,
        reward_mode: str = "rank",
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        super().__init__()
        # the old keyword spellings (players=, reward=) still work, warning once
        num_players, reward_mode, rules = env_keywords(
            type(self).__name__, rules, num_players, reward_mode
        )
        self.config = GinnyConfig.from_dict({"num_players": num_players, **rules})
        self.reward_mode = _check_choice("reward_mode", reward_mode, REWARDS)
        self.render_mode = _check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        low, high = bounds()
        # One space object per agent (equal for all): seeding one agent's space leaves the
        # others' samples alone.
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents
        }
        s_low, s_high = _state_bounds()
        self.state_space = gymnasium.spaces.Box(s_low, s_high, dtype=np.float32)
        self.num_actions = NUM_ACTIONS
        self.max_steps_per_turn = MAX_STEPS_PER_TURN
        self.max_game_length = max_game_length(self.config)
        self.utility_range = UTILITY_RANGE if self.reward_mode == "rank" else None
        self._game: GinnyGame | None = None
        self._turn_scores: list[int] = []  # scores when the current turn started
        self._last_points = (-1, 0)  # (seat, points) of the last step
        self._seeds = rng.ResetSeeds()
        self.game_seed: int | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The observation space (one object per agent, the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """The action space: ``Discrete(1864)``."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the game
    @property
    def game(self) -> GinnyGame:
        """The engine's game of this episode (full information; do not step it directly)."""
        if self._game is None:
            raise ValueError("call reset() first")
        return self._game

    @game.setter
    def game(self, game: GinnyGame) -> None:
        """Install a position: the episode goes on from ``game`` (same number of players)."""
        if not isinstance(game, GinnyGame) or game.config.num_players != self.config.num_players:
            raise ValueError(
                f"env.game must be a GinnyGame with {self.config.num_players} players, got {game!r}"
            )
        self._install(game)

    def _install(self, game: GinnyGame) -> None:
        self._game = game
        self._turn_scores = list(game.scores)
        self._last_points = (-1, 0)
        self.agents = [] if game.game_over else self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = self._make_infos()
        self.agent_selection = self.possible_agents[game.current]

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game (see Seeding in the module docstring)."""
        game_seed = self._seeds.game_seed(seed)
        self.game_seed = game_seed
        self._install(GinnyGame(self.config, game_seed))
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation and action mask (all zero unless it is to act)."""
        view = GinnyView.from_game(self.game, self._seat[agent], moves=False)
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if view.acting:
            mask[self.game.legal_actions()] = 1
        return {"observation": encode(view), "action_mask": mask}

    def step(self, action: Any) -> None:
        """Apply one atomic step of the acting agent (``None`` for an agent that is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        try:
            result = game.step(action)
        except IllegalActionError as err:
            raise IllegalActionError(f"{agent}: {err}") from None
        n = game.num_players
        self._last_points = (result.seat, result.points)
        rewards = [0.0] * n
        if result.turn_over:
            if self.reward_mode == "score":
                now = game.final_scores if game.game_over else game.scores
                assert now is not None
                rewards = relative([a - b for a, b in zip(now, self._turn_scores, strict=True)])
                self._turn_scores = list(game.scores)
            elif game.game_over:
                rewards = game.rank_rewards()
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(rewards[self._seat[a]]) for a in self.agents}
        if game.game_over:
            truncated = bool(game.truncated)
            self.terminations = dict.fromkeys(self.agents, not truncated)
            self.truncations = dict.fromkeys(self.agents, truncated)
            self.agent_selection = self.possible_agents[(result.seat + 1) % n]
        else:
            self.agent_selection = self.possible_agents[game.current]
        self.infos = self._make_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _make_infos(self) -> dict[str, dict[str, int]]:
        game = self.game
        over = game.game_over
        winners = set(game.winners()) if over else set()
        placements = game.num_placements if not over else 0
        last_seat, last_points = self._last_points
        out = {}
        for agent in self.agents:
            s = self._seat[agent]
            acting = not over and s == game.current
            out[agent] = {
                "seat": s,
                "turn": int(game.turn),
                "current": -1 if over else int(game.current),
                "is_acting": int(acting),
                "phase": PHASES.index(game.phase) if acting else -1,
                "placements_available": placements if acting else 0,
                "box_size": len(game.box),
                "score": int(game.scores[s]),
                "rack_size": len(game.racks[s]),
                "points": int(last_points) if s == last_seat else 0,
                "game_over": int(over),
                "end_reason": END_CODES[game.end_reason],
                "penalty": int(game.penalties[s]) if over and game.penalties else 0,
                "final_score": int(game.final_scores[s]) if over and game.final_scores else 0,
                "won": int(s in winners),
            }
        return out

    def state(self) -> np.ndarray:
        """Full information (every rack and the box), float32 of ``state_space.shape``."""
        return state_vector(self.game)

    def render(self) -> Any:
        """``"ansi"``: the game as text; ``"human"``: print it; ``"rgb_array"``: a picture (the
        acting seat's rack)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        game = self.game
        if self.render_mode == "rgb_array":
            from gnome_env.ginny_o.render_image import render_rgb

            return render_rgb(game)
        if self.render_mode == "human":
            print(game.render())
            return None
        return game.render()

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return ENV_NAME


class _UnwrappedView(UncheckedView, raw_env):
    """``env().unwrapped``: raw_env's methods on a :class:`CheckedEnv`'s state."""


class CheckedEnv(CheckedAEC, raw_env):
    """``env()``: raw_env with the checks of PettingZoo's standard wrappers, in one layer
    (:class:`gnome_env.core.checked.CheckedAEC`; see the module docstring)."""

    unwrapped_class = _UnwrappedView
    illegal_error = IllegalActionError
    illegal_reward = ILLEGAL_ACTION_REWARD


def env(**kwargs: Any) -> CheckedEnv:
    """The checked AEC environment (see the module docstring)."""
    return CheckedEnv(**kwargs)


__all__ = [
    "END_CODES",
    "ENV_NAME",
    "INFO_KEYS",
    "MAX_STEPS_PER_TURN",
    "NUM_ACTIONS",
    "STATE_SIZE",
    "UTILITY_RANGE",
    "CheckedEnv",
    "env",
    "max_game_length",
    "raw_env",
    "state_vector",
]
