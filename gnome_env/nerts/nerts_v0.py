"""Nerts -- PettingZoo Parallel environment (RULES-nerts.md N1-N36).

=====================  ==============================================================
Import                 ``from gnome_env.nerts import nerts_v0``
Actions                Discrete(N_ACTIONS): 397 with the defaults (N36)
Agents                 ``player_0 .. player_{P-1}``, P = ``num_players`` (2..6, default 4)
Parallel API           yes (every agent acts every step, ``is_parallelizable=True``)
Manual control         no
Observation shape      ``observation``: (2527,) float32, ``action_mask``: (397,) int8
Observation values     ``observation`` in [0, 1] except ``total`` (see below)
State shape            (3823,) float32 (``state()``, full information)
Registered as          ``pettingzoo.make("parallel", "gnome_env/nerts_v0")``
=====================  ==============================================================

Shapes are for the defaults; they depend only on ``work_piles`` (W) and ``jokers`` (F = (4 +
jokers) x 6 foundation slots), **never on the player count**: seats are padded to six.

``parallel_env(**kw)`` is the environment (a :class:`NertsParallelEnv`). ``raw_env(**kw)``
is its AEC form (:class:`NertsAECEnv`: what PettingZoo's ``parallel_to_aec_wrapper`` does,
but it checks each agent's action at its own ``step``), and ``env(**kw)`` that form checked
as PettingZoo's standard wrappers check the classic envs (``OrderEnforcingWrapper(
BoundsCheckWrapper(TerminateIllegalWrapper(raw_env, -1)))``), in one layer, as every game's
``env()`` (:class:`gnome_env.core.checked.CheckedAEC`; ``tests/core/test_checked_env.py``
holds it equal to that stack).

Keyword arguments: ``num_players`` (2..6, default 4) and every other field of
:class:`gnome_env.nerts.NertsConfig` (``jokers``, ``nerts_size``, ``work_piles``,
``slide_under``, ``turn_size``, ``foundation_tie``, ``auto_call``, ``stall_steps``,
``max_steps_per_hand``, ``target_score``, ``max_hands``); ``reward_mode`` (``"relative"``,
``"score"``, ``"sparse"``); ``episode`` (``"hand"``, ``"game"``); ``render_mode`` (``None``,
``"human"``, ``"ansi"``, ``"rgb_array"``). A bad value or an unknown name raises
``ValueError`` naming it.

Observation Space
-----------------
``{"observation": Box(float32, (OBS,)), "action_mask": Box(int8 0/1, (N_ACTIONS,))}``, seen
from the agent's seat and built only from :class:`gnome_env.nerts.information.NertsView`
(the public information of N34; N35's hidden cards cannot leak). Seat blocks are *rotated*:
block ``r`` is the seat ``r`` places after the agent (``r = 0``: the agent), padded to six.
The encoder is :class:`gnome_env.nerts.encoding.NertsEncoder`; ``env.slices`` names the
top-level blocks, ``env.encoder.seat_slice(r, name)`` and ``env.encoder.slot_slice(f,
name)`` give any field's absolute slice. Offsets with the defaults (W = 4, F = 24):

==================  ====================  ===================================================
slice               block                 content
==================  ====================  ===================================================
[0, 2172)           ``seats``             6 seat blocks of 362 (rotated; zeros if absent)
[2172, 2508)        ``slots``             24 slot blocks of 14
[2508, 2514)        ``present``           seats-present mask (rotated: first P entries 1)
[2514, 2515)        ``step``              steps of this hand / max_steps_per_hand
[2515, 2516)        ``stall``             N25 stall count / stall_steps
[2516, 2517)        ``remedy``            N26 remedy flag
[2517, 2518)        ``hand``              hand index / max_hands
[2518, 2519)        ``slots_used``        slots in use / F
[2519, 2520)        ``hand_over``         1 once the hand has ended
[2520, 2527)        ``rules``             players/6, nerts_size/20, turn_size/3, jokers/2,
                                          slide_under, auto_call, foundation_tie=both_keep
==================  ====================  ===================================================

One seat block (offset ``r * 362``; widths for W = 4):

=================  ========  ==================================================================
field              width     content
=================  ========  ==================================================================
present            1         1 if the seat is at the table
nerts_size         1         cards in its Nerts pile / nerts_size
nerts_top          54        one-hot N2 id of its face-up Nerts top (zeros: empty)
work_cards         4 x 54    per work pile, membership set of its cards (N9: a run, so
                             the set, length and base rank give the order)
work_len           4         per work pile, length / 13
work_base          4         per work pile, rank of the base / 13 (0: empty or jokers only)
work_top           4         per work pile, rank of the top / 13 (0: empty or jokers only)
waste_top          54        one-hot N2 id of its waste top (zeros: empty)
waste_size         1         waste size / deck size (52 + jokers)
stock_size         1         stock size / deck size
seen               1         N24 seen / n, clipped to 1 (1 when n = 0)
exhausted          1         N24 exhausted flag
foundation         1         its cards on foundations / deck size
hand_score         1         N30 S, as (S + 2 nerts_size) / (deck size + 2 nerts_size)
total              1         game total / target_score: in [-2 nerts_size max_hands / target,
                             (target - 1 + deck size) / target] ([-13, 1.53] by default)
last_blocked       1         N21: its play was blocked in the last step
last_priority      6         one-hot position of the seat in the last step's pi (N20)
last_kind          10        one-hot kind (N19, ``actions.Kind``) of its last action
=================  ========  ==================================================================

One slot block (slot ``f`` at ``2172 + 14 f``): ``state`` (3: one-hot unused, open,
complete), ``suit`` (4: one-hot C D H S), ``top`` (1: top rank / 13), ``owners`` (6: the
cards of each rotated seat on the slot / 13). The last-step fields are zeros right after a
deal. ``observation_space(agent).contains(obs)`` holds for every observation.

Action Space
------------
``Discrete(N_ACTIONS)``, the flat N36 table (``gnome_env.nerts.actions``); with the defaults
(W = 4, F = 24):

========  ==============================================================================
ids       action
========  ==============================================================================
0         wait (always legal)
1         call Nerts (N22; legal with an empty Nerts pile, never with ``auto_call``)
2         turn (N15)
3         recycle (N16)
4         shift (N17)
5-148     source s -> open foundation slot f: ``5 + 24 s + f`` (s: 0 Nerts top, 1 waste
          top, 2 + w work pile w)
149-172   source s -> new foundation as the ace of suit u: ``149 + 4 s + u``
173-180   Nerts (t=0) / waste (t=1) top -> work pile w: ``173 + 4 t + w``
181-388   top c cards of work pile w -> work pile v: ``181 + 13 (4 w + v) + c - 1``
389-396   slide the Nerts (t=0) / waste (t=1) top under work pile w: ``389 + 4 t + w``
========  ==============================================================================

Ids are absolute: every source is the acting seat's own, so there is nothing to rotate.

Legal Actions Mask
------------------
``observation["action_mask"]`` is the agent's own legal set (``NertsGame.legal_mask``):
``wait`` is always legal while the hand runs; once the episode is over the mask is all
zeros. **An action outside the mask raises** ``ValueError`` naming the agent, the action id
and name and why it is illegal (N18: "the engine raises and substitutes nothing"), and the
env does not change -- no step is taken, no random draw is used. The same holds for an
action that is not an int (or a 0-d integer array), an id outside the table, a missing
action for a live agent, or a key that is not a live agent. PettingZoo's
``parallel_api_test`` samples with the mask, so it only submits legal actions; its
``parallel_seed_test`` samples *without* the mask, so with this env it stops at the first
step with that ``ValueError`` (the tests check exactly that, and check seeding with masked
samples instead).

The AEC forms collect the actions agent by agent and check each one at its agent's
``step``, before it is stored. ``raw_env``: an illegal or malformed action raises that
``ValueError`` and changes nothing. ``env``: calls before ``reset`` are refused; an action
outside ``Discrete(N_ACTIONS)`` (a float, a negative or too large id, a ``bool``) raises
``AssertionError`` naming the agent, the action and what is allowed, changing nothing; an id
the agent's mask leaves out ends the episode -- every agent terminated, reward -1 for the
offender, 0 for the others, and a warning (PettingZoo's ``TerminateIllegalWrapper``). Either
AEC form is its own ``unwrapped``; ``env.unwrapped.parallel`` is the Parallel env and
``env.unwrapped.game`` its game.

Rewards
-------
S_i is agent i's N30 hand score on the current state (``NertsGame.hand_scores()``; every
hand starts at -2 nerts_size). ΔS_i is its change over one step.

* ``"relative"`` (default): r_i = ΔS_i - mean_{j != i} ΔS_j every step; zero-sum, dense,
  and over a hand it sums to S_i - mean_{j != i} S_j (the final hand scores).
* ``"score"``: r_i = ΔS_i; over a hand it sums to S_i + 2 nerts_size.
* ``"sparse"``: 0, except in the step that ends a hand: S_i - mean_{j != i} S_j.

The reset of S by a new deal (``episode="game"``) is never a reward: the step that ends a
hand pays up to that hand's final scores, and the next hand counts from its own deal.

Episodes
--------
* ``"hand"`` (default): one hand of a fresh game. The episode is *terminated* when the
  hand ends by a call (N22) or as a blocked hand (N27), and *truncated* when it ends at the
  step cap (N28, ``max_steps_per_hand``).
* ``"game"``: the hands of one game back to back (N31). When a hand ends the env deals the
  next one at once (``NertsGame.next_hand``): the step's rewards and infos describe the
  finished hand (``hand_over=1``), its observations show the new deal. The episode ends at
  game end (N31: a total reaches ``target_score``, or ``max_hands`` hands); it is
  *truncated* if that last hand ended at the step cap and *terminated* otherwise. A capped
  hand before the last one is scored and play goes on (as in the sibling env
  ``gnoming_a_round_v1``, where a capped final round reports truncation).

All agents end together; afterwards ``agents`` is empty and ``step`` raises until ``reset``.

Infos
-----
Every agent's info has the same keys and numeric types after ``reset`` and every step:

=================  =======  =============================================================
key                type     meaning
=================  =======  =============================================================
``hand``           int      index of the hand this info describes (0-based)
``step``           int      steps played in that hand
``hand_over``      int      1 if that hand ended with this step
``end_reason``     int      0 none, 1 nerts (a call / auto_call), 2 blocked, 3 cap
``hand_score``     int      the agent's N30 S of that hand (its final score once over)
``total``          int      the agent's game total (N31; includes a finished hand)
``blocked``        int      1 if the agent's play was blocked in this step (N21)
``priority``       int      the agent's position in this step's pi (0 = first; -1 at reset)
``progress``       int      1 if the agent's action was progress (N23)
``remedy``         int      1 if the table was stuck and re-formed at this step (N26)
``game_over``      int      1 once the game is over (N31)
``won``            int      1 if the game is over and the agent is among the winners
``hand_scores``    int64[]  every seat's S (absolute seat order, length P)
``totals``         int64[]  every seat's total (absolute seat order, length P)
=================  =======  =============================================================

Seeding
-------
``reset(seed=s)`` (``s`` in ``0 .. 2**63 - 1``) plays ``NertsGame(config, seed=s)``: the same
deals and priority orders as the engine with that seed (N4: the project's keyed generator
:mod:`gnome_env.core.rng`; nothing depends on ``numpy.random`` or ``random``). Each later
unseeded reset starts the next game of that seed's stream: game ``e = 1, 2, ...`` has the
seed ``rng.game_stream(s, 0, e, 1)[0]``. An unseeded first reset draws ``s`` from the
operating system (``rng.entropy_seed()``). So a seed fixes every later episode too, as in
``gnoming_a_round_v1``. ``env.game_seed`` is the current game's seed; ``options`` is
accepted and ignored. Before the first ``reset``, ``agents`` lists every possible agent
(as PettingZoo's classic envs) but ``step``, ``state``, ``render`` and ``env.game`` raise
``ValueError``.

Rendering
---------
``"ansi"`` returns the engine's text table (``NertsGame.render()``: public information
only); ``"human"`` prints it with red suits coloured after ``reset`` and every step;
``"rgb_array"`` returns a uint8 (H, W, 3) picture (:mod:`gnome_env.nerts.render_image`:
cards with rank and suit, backs for stocks, foundations as small cards, the last step's
blocked plays framed in red) whose size depends only on the config.

State
-----
``state()`` is :class:`gnome_env.nerts.encoding.StateEncoder`: seat 0's observation vector
followed by every hidden card (for each of six seats and 54 ids: in Nerts pile, in stock,
in waste, depth from that pile's top / deck size), so face-down Nerts cards, stock order
and the whole waste are in it. ``state_space`` is its Box.

Speed (the compiled path)
-------------------------
With numba installed (the ``fast`` extra), each episode runs on one compiled game
(:class:`gnome_env.nerts.vector.KernelNertsGame`, the kernels of
:mod:`gnome_env.nerts._kernels`): one compiled call per ``step`` applies the actions, computes
the rewards and infos, deals the next hand (``episode="game"``) and writes every agent's
observation and mask into new arrays. Everything the env returns is what the pure-Python
engine gives (``tests/nerts/test_nerts_vector.py`` compares both paths at every step);
``env.game`` is then built from the compiled state on demand (once per step) and
``env.game = ...`` installs a position into it. ``env.use_kernels`` (default: numba is
importable and ``GNOME_NO_NUMBA`` is unset) chooses the path at the next ``reset`` or
``env.game = ...``; set it to False for the pure-Python engine.

Version History
---------------
* v0: initial release.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import AgentSelector

from gnome_env.core import jit, rng
from gnome_env.core.checked import CheckedAEC, UncheckedView
from gnome_env.core.renamed import env_keywords, old_property
from gnome_env.nerts import _kernels as _K
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.encoding import NertsEncoder, StateEncoder
from gnome_env.nerts.engine import END_BLOCKED, END_CAP, END_NERTS, NertsGame, StepResult
from gnome_env.nerts.information import NertsView

ENV_NAME = "nerts_v0"
ILLEGAL_ACTION_REWARD = -1.0  # env(): TerminateIllegalWrapper
RENDER_MODES = ("human", "ansi", "rgb_array")
REWARDS = ("relative", "score", "sparse")
EPISODES = ("hand", "game")
#: ``end_reason`` codes of the infos
END_CODES = {None: 0, END_NERTS: 1, END_BLOCKED: 2, END_CAP: 3}
INFO_KEYS = (
    "hand",
    "step",
    "hand_over",
    "end_reason",
    "hand_score",
    "total",
    "blocked",
    "priority",
    "progress",
    "remedy",
    "game_over",
    "won",
    "hand_scores",
    "totals",
)


def _check_choice(name: str, value: object, allowed: tuple[str | None, ...]) -> Any:
    if not (value is None or isinstance(value, str)) or value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name}={value!r} is not allowed: must be one of {shown}")
    return value


def relative(deltas: list[int]) -> list[float]:
    """r_i = d_i - mean_{j != i} d_j (zero-sum)."""
    total, others = sum(deltas), len(deltas) - 1
    return [d - (total - d) / others for d in deltas]


class NertsParallelEnv(ParallelEnv):
    """The Nerts Parallel environment (see the module docstring for the manual)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": ENV_NAME,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": True,
        "render_fps": 4,
    }

    reward = old_property("reward_mode", "reward", "NertsParallelEnv")  # the old name, warns once

    def __init__(
        self,
        num_players: int = 4,
        reward_mode: str = "relative",
        episode: str = "hand",
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        # the old keyword spellings (players=, reward=) still work, warning once
        num_players, reward_mode, rules = env_keywords(
            type(self).__name__, rules, num_players, reward_mode
        )
        self.config = NertsConfig.from_dict({"num_players": num_players, **rules})
        self.reward_mode = _check_choice("reward_mode", reward_mode, REWARDS)
        self.episode = _check_choice("episode", episode, EPISODES)
        self.render_mode = _check_choice("render_mode", render_mode, (None, *RENDER_MODES))
        p = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(p)]
        self.agents = self.possible_agents[:]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        # each agent's columns of the kernel's per-step results (its infos)
        columns = (_K.R_SCORES, _K.R_TOTALS, _K.R_BLOCKED, _K.R_PRIO_POS, _K.R_PROG_BY, _K.R_WON)
        self._info_columns = {a: tuple(c + i for c in columns) for a, i in self._seat.items()}
        self.encoder = NertsEncoder(self.config)
        self.state_encoder = StateEncoder(self.config)
        #: named top-level blocks of the observation (see the module docstring)
        self.slices = dict(self.encoder.slices)
        self.n_actions = self.encoder.n_actions
        low, high = self.encoder.bounds()
        # One space object per agent (equal for all): seeding one agent's space leaves the
        # others' samples alone.
        self.observation_spaces = {
            a: gymnasium.spaces.Dict(
                {
                    "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                    "action_mask": gymnasium.spaces.Box(0, 1, (self.n_actions,), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(self.n_actions) for a in self.possible_agents
        }
        s_low, s_high = self.state_encoder.bounds()
        self.state_space = gymnasium.spaces.Box(s_low, s_high, dtype=np.float32)
        #: whether episodes run on the compiled single-game path (numba present and not
        #: switched off); set it to False before ``reset()`` for the pure-Python engine
        self.use_kernels = jit.COMPILED
        self._kernel: Any = None  # gnome_env.nerts.vector.KernelNertsGame, built on first use
        self._on_kernel = False  # this episode runs on the kernel game
        self._game: NertsGame | None = None
        self._scores: list[int] = []  # S at the start of the next step (N30)
        self._seeds = rng.ResetSeeds()
        self.game_seed: int | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The observation space (one object per agent, the same for all)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """The action space: ``Discrete(N_ACTIONS)``."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the game
    @property
    def game(self) -> NertsGame:
        """The engine's game of this episode (full information; do not step it directly).
        On the compiled path it is built from the kernel state on demand (the same game,
        state and last step as the engine's), once per step."""
        return self._require_game()

    @game.setter
    def game(self, game: NertsGame) -> None:
        """Install a position (tests, analysis): the episode goes on from ``game``, with
        rewards counted from its current scores."""
        if not isinstance(game, NertsGame) or game.config != self.config:
            raise ValueError("env.game must be a NertsGame with this env's config")
        if self.use_kernels:
            self._kernel_game().load(game)  # raises (nothing changed) if it does not fit
            self._on_kernel = True
            self._game = None
        else:
            self._on_kernel = False
            self._game = game
        self._scores = game.hand_scores()
        self.agents = [] if game.hand_over else self.possible_agents[:]

    def _require_game(self) -> NertsGame:
        if self._on_kernel:
            return self._kernel.to_game()
        if self._game is None:
            raise ValueError("call reset() first")
        return self._game

    def _kernel_game(self) -> Any:
        """The compiled single game (:class:`gnome_env.nerts.vector.KernelNertsGame`)."""
        if self._kernel is None:
            from gnome_env.nerts.vector import KernelNertsGame, KernelParams

            params = KernelParams(self.config, self.reward_mode, self.episode)
            self._kernel = KernelNertsGame(params)
        return self._kernel

    # ------------------------------------------------------------------ episode
    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        """Deal a new game (see Seeding); returns ``(observations, infos)``."""
        game_seed = self._seeds.game_seed(seed)
        self.game_seed = game_seed
        self.agents = self.possible_agents[:]
        if self.use_kernels:
            kernel = self._kernel_game()
            kernel.reset(game_seed)
            self._on_kernel = True
            self._game = None
            obs = self._kernel_observations(self.agents)
            infos = self._kernel_infos(None)
        else:
            self._on_kernel = False
            self._game = NertsGame(self.config, game_seed)
            self._scores = self._game.hand_scores()
            infos = self._infos(None, self._game.hand, self._game.hand_scores())
            obs = self.observations()
        if self.render_mode == "human":
            self.render()
        return obs, infos

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """One simultaneous step (N18-N29): one action per live agent."""
        if self._on_kernel:
            return self._kernel_step(actions)
        game = self._require_game()
        if not self.agents:
            raise ValueError("the episode is over: call reset() before step()")
        acts = self._check_actions(actions)  # raises before anything changes
        agents = self.agents
        before = self._scores
        result = game.step(acts)
        after = list(result.hand_scores)
        hand = game.hand
        if self.reward_mode == "score":
            rewards = [float(a - b) for a, b in zip(after, before, strict=True)]
        elif self.reward_mode == "relative":
            rewards = relative([a - b for a, b in zip(after, before, strict=True)])
        elif result.hand_over:  # sparse
            rewards = relative(after)
        else:
            rewards = [0.0] * len(agents)
        done = result.hand_over and (self.episode == "hand" or result.game_over)
        if result.hand_over and not done:
            game.next_hand()  # episode="game": the new deal's S is no reward
        self._scores = game.hand_scores()
        truncated = done and result.end_reason == END_CAP
        rew = {a: float(rewards[self._seat[a]]) for a in agents}
        terms = dict.fromkeys(agents, done and not truncated)
        truncs = dict.fromkeys(agents, truncated)
        infos = self._infos(result, hand, after)
        obs = self.observations(agents)
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rew, terms, truncs, infos

    def _kernel_step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        """:meth:`step` on the compiled game: one kernel call steps the game, computes the
        rewards and info columns and writes every seat's mask and observation."""
        if not self.agents:
            raise ValueError("the episode is over: call reset() before step()")
        acts = self._check_actions(actions)  # raises before anything changes
        kernel = self._kernel
        code = kernel.step(acts)
        agents = self.agents
        done = code == 1
        truncated = done and bool(kernel.results[_K.R_TRUNC])
        rew = dict(zip(agents, kernel.rewards[: len(agents)].tolist(), strict=True))
        terms = dict.fromkeys(agents, done and not truncated)
        truncs = dict.fromkeys(agents, truncated)
        infos = self._kernel_infos(kernel.results)
        obs = self._kernel_observations(agents)
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rew, terms, truncs, infos

    def _kernel_observations(self, agents: list[str]) -> dict[str, dict[str, np.ndarray]]:
        """The kernel's new observation and mask arrays, one row per agent (views)."""
        obs, masks = self._kernel.obs, self._kernel.masks
        seat = self._seat
        return {a: {"observation": obs[seat[a]], "action_mask": masks[seat[a]]} for a in agents}

    def _kernel_infos(self, results: np.ndarray | None) -> dict[str, dict[str, Any]]:
        """:meth:`_infos` (same keys, types and values) from the kernel's info columns of
        the last step (``results``), or of the current state after a reset (``None``)."""
        kernel = self._kernel
        p = self.config.num_players
        if results is None:
            row = kernel.row
            r = [0] * _K.NUM_RESULTS
            r[_K.R_HAND], r[_K.R_STEP] = int(row[_K.C_HAND]), int(row[_K.C_STEPS])
            r[_K.R_GAME_OVER] = int(row[_K.C_GAME_OVER])
            r[_K.R_SCORES : _K.R_SCORES + p] = kernel.scores()
            r[_K.R_TOTALS : _K.R_TOTALS + p] = row[_K.S_TOTAL : _K.S_TOTAL + p].tolist()
            r[_K.R_PRIO_POS : _K.R_PRIO_POS + p] = [-1] * p
        else:
            r = results.tolist()
        hand, step, hand_over, end = r[_K.R_HAND], r[_K.R_STEP], r[_K.R_HAND_OVER], r[_K.R_END]
        remedy, game_over = r[_K.R_REMEDY], r[_K.R_GAME_OVER]
        scores = np.array(r[_K.R_SCORES : _K.R_SCORES + p], dtype=np.int64)
        totals = np.array(r[_K.R_TOTALS : _K.R_TOTALS + p], dtype=np.int64)
        out = {}
        for agent in self.agents:
            score, total, blocked, priority, progress, won = self._info_columns[agent]
            out[agent] = {
                "hand": hand,
                "step": step,
                "hand_over": hand_over,
                "end_reason": end,
                "hand_score": r[score],
                "total": r[total],
                "blocked": r[blocked],
                "priority": r[priority],
                "progress": r[progress],
                "remedy": remedy,
                "game_over": game_over,
                "won": r[won],
                "hand_scores": scores.copy(),
                "totals": totals.copy(),
            }
        return out

    def _check_actions(self, actions: object) -> list[int]:
        """One legal int per live agent, in seat order; ``ValueError`` otherwise."""
        if not isinstance(actions, Mapping):
            raise ValueError(
                f"step() needs a dict of one action per live agent, got {type(actions).__name__}"
            )
        missing = [a for a in self.agents if a not in actions]
        extra = [k for k in actions if k not in self._seat or k not in self.agents]
        if missing or extra:
            parts = []
            if missing:
                parts.append("no action for " + ", ".join(missing))
            if extra:
                parts.append(
                    "actions for agents not in the episode: " + ", ".join(map(repr, extra))
                )
            raise ValueError("step() needs one action per live agent: " + "; ".join(parts))
        if self._on_kernel:  # a plain legal int is the common case: one mask lookup
            masks, n = self._kernel.masks, self.n_actions
            out = []
            seats = self._seat
            for agent in self.agents:
                a = actions[agent]
                if type(a) is int and 0 <= a < n and masks[seats[agent], a]:
                    out.append(a)
                else:
                    out.append(self.check_action(agent, a))
            return out
        return [self.check_action(agent, actions[agent]) for agent in self.agents]

    def check_action(self, agent: str, action: object) -> int:
        """``action`` as an int if it is legal for live ``agent`` now; else ``ValueError``
        naming the agent, the action and what is allowed (nothing changes)."""
        if not self._on_kernel:
            self._require_game()
        if agent not in self.agents:
            raise ValueError(f"{agent!r} is not a live agent of the episode: {self.agents}")
        a = action
        if isinstance(a, np.ndarray) and a.shape == () and np.issubdtype(a.dtype, np.integer):
            a = a.item()
        allowed = f"must be an int in 0..{self.n_actions - 1} that its action_mask allows"
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise ValueError(f"{agent}: action {a!r} is not an int: {allowed}")
        a = int(a)
        seat = self._seat[agent]
        if not 0 <= a < self.n_actions:
            raise ValueError(
                f"{agent}: action {a} is outside Discrete({self.n_actions}) (N36): {allowed}"
            )
        if self._on_kernel and self._kernel.masks[seat, a]:
            return a
        game = self._require_game()
        if not game.is_legal(seat, a):
            raise ValueError(
                f"{agent}: action {a} ({game.table.name(a)}) is not legal (not in its "
                f"action_mask): {game.explain_illegal(seat, a)}"
            )
        return a

    # ------------------------------------------------------------------ reading
    def _views(self) -> list[NertsView]:
        """Every seat's :class:`NertsView`: seat 0's from the game, the others the same
        public fields with their own seat and legal set (what ``from_game`` returns)."""
        game = self._require_game()
        first = NertsView.from_game(game, 0)
        return [first] + [
            replace(first, seat=s, legal_actions=tuple(game.legal_actions(s)))
            for s in range(1, game.num_players)
        ]

    def observations(self, agents: list[str] | None = None) -> dict[str, dict[str, np.ndarray]]:
        """The current observation of each agent (default: every possible agent)."""
        if self._on_kernel:
            out = self._kernel_observations(self.possible_agents if agents is None else agents)
            return {a: {k: v.copy() for k, v in o.items()} for a, o in out.items()}
        views = self._views()
        tables = self.encoder.tables(views[0])
        out = {}
        for agent in self.possible_agents if agents is None else agents:
            view = views[self._seat[agent]]
            obs = np.empty(self.encoder.size, dtype=np.float32)
            out[agent] = {
                "observation": self.encoder.rotate(tables, view.seat, obs),
                "action_mask": self.encoder.mask(view),
            }
        return out

    def _infos(
        self, result: StepResult | None, hand: int, scores: list[int]
    ) -> dict[str, dict[str, Any]]:
        game = self._require_game()
        totals = list(game.totals)
        winners = set(game.winners()) if game.game_over else set()
        out = {}
        for agent in self.agents:
            i = self._seat[agent]
            out[agent] = {
                "hand": int(hand),
                "step": game.steps if result is None else result.step + 1,
                "hand_over": int(result is not None and result.hand_over),
                "end_reason": END_CODES[None if result is None else result.end_reason],
                "hand_score": int(scores[i]),
                "total": int(totals[i]),
                "blocked": int(result is not None and result.blocked[i]),
                "priority": -1 if result is None else result.priority.index(i),
                "progress": int(result is not None and result.progress_by[i]),
                "remedy": int(result is not None and result.remedy),
                "game_over": int(game.game_over),
                "won": int(i in winners),
                "hand_scores": np.array(scores, dtype=np.int64),
                "totals": np.array(totals, dtype=np.int64),
            }
        return out

    def state(self) -> np.ndarray:
        """Full information (hidden cards included), float32 of ``state_space.shape``."""
        if self._on_kernel:
            return self._kernel.state()
        return self.state_encoder.encode(self._require_game())

    def render(self) -> Any:
        """``"ansi"``: the table as text; ``"human"``: print it; ``"rgb_array"``: a picture."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
            return None
        game = self._require_game()
        if self.render_mode == "rgb_array":
            from gnome_env.nerts.render_image import render_rgb

            end = game.end_reason if game.hand_over else None
            return render_rgb(NertsView.from_game(game, 0), end)
        if self.render_mode == "human":
            print(game.render(ansi=True))
            return None
        return game.render()

    def close(self) -> None:
        """Nothing to release."""

    def __str__(self) -> str:
        return ENV_NAME


def parallel_env(**kwargs: Any) -> NertsParallelEnv:
    """The Nerts Parallel environment (see the module docstring)."""
    return NertsParallelEnv(**kwargs)


class NertsAECEnv(AECEnv):
    """The AEC form of a :class:`NertsParallelEnv`: what PettingZoo's
    ``parallel_to_aec_wrapper`` does (every live agent in seat order, the last one of a cycle
    steps the Parallel env), except that each agent's action is checked at that agent's own
    ``step``: an action that is not a legal int for it raises ``ValueError`` (the Parallel
    env's message) and changes nothing. It is an env of its own, so it is its own
    ``unwrapped`` (PettingZoo's wrappers, ``api_test`` and ``TerminateIllegalWrapper`` need
    that); ``parallel`` is the Parallel env it steps and ``game`` that env's game."""

    def __init__(self, parallel: NertsParallelEnv) -> None:
        super().__init__()
        self.parallel = parallel
        self.metadata = {**parallel.metadata, "is_parallelizable": True}
        self.render_mode = parallel.render_mode
        self.possible_agents = parallel.possible_agents
        self.agents = parallel.agents[:]
        self.state_space = parallel.state_space
        self.observation_spaces = parallel.observation_spaces
        self.action_spaces = parallel.action_spaces
        self.config = parallel.config

    @property
    def game(self) -> NertsGame:
        """The engine's game of this episode (full information; do not step it directly)."""
        return self.parallel.game

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.parallel.observation_space(agent)

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.parallel.action_space(agent)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._observations, self.infos = self.parallel.reset(seed=seed, options=options)
        self.agents = self.parallel.agents[:]
        self._actions: dict[str, Any] = dict.fromkeys(self.agents)
        self._agent_selector = AgentSelector(self.agents)
        self.agent_selection = self._agent_selector.reset()
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._observations[agent]

    def state(self) -> np.ndarray:
        return self.parallel.state()

    def step(self, action: Any) -> None:
        """Collect the selected agent's action (checked now); the last one steps the env."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._actions.pop(agent, None)
            self._was_dead_step(action)
            return
        self.parallel.check_action(agent, action)  # ValueError, nothing changed
        self._actions[agent] = action
        if self._agent_selector.is_last():
            obs, rewards, terms, truncs, infos = self.parallel.step(self._actions)
            self._observations = dict(obs)
            self.terminations = dict(terms)
            self.truncations = dict(truncs)
            self.infos = dict(infos)
            self.rewards = dict(rewards)
            self._cumulative_rewards = dict(rewards)
            if self.parallel.agents:
                self._actions = dict.fromkeys(self.parallel.agents)
                self._agent_selector = AgentSelector(self.parallel.agents)
                self.agent_selection = self._agent_selector.reset()
            self._deads_step_first()
        else:
            if self._agent_selector.is_first():
                self._clear_rewards()
            self.agent_selection = self._agent_selector.next()

    def render(self) -> Any:
        return self.parallel.render()

    def close(self) -> None:
        self.parallel.close()

    def __str__(self) -> str:
        return ENV_NAME


def raw_env(**kwargs: Any) -> NertsAECEnv:
    """The AEC form of :func:`parallel_env` without PettingZoo's order checks: an illegal or
    malformed action raises ``ValueError`` at its agent's ``step`` and changes nothing."""
    return NertsAECEnv(parallel_env(**kwargs))


class _UnwrappedView(UncheckedView, NertsAECEnv):
    """``env().unwrapped``: :class:`NertsAECEnv`'s methods on a :class:`CheckedEnv`'s state."""


class CheckedEnv(CheckedAEC, NertsAECEnv):
    """``env()``: :class:`NertsAECEnv` with the checks of PettingZoo's standard wrappers, in
    one layer (:class:`gnome_env.core.checked.CheckedAEC`)."""

    unwrapped_class = _UnwrappedView
    illegal_reward = ILLEGAL_ACTION_REWARD


def env(**kwargs: Any) -> CheckedEnv:
    """The checked AEC form of :func:`parallel_env`: what PettingZoo's classic envs get from
    ``OrderEnforcingWrapper(BoundsCheckWrapper(TerminateIllegalWrapper(raw_env, -1)))``, in
    one layer."""
    return CheckedEnv(parallel_env(**kwargs))
