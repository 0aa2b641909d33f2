"""Gnoming A Round -- PettingZoo AEC environment.

=====================  ==========================================================
Import                 ``from gnome_env import gnoming_a_round_v1``
Actions                Discrete(33)
Agents                 ``player_0 .. player_{n-1}``, n = ``num_players`` (3..7, or drawn)
Parallel API           no (turn-based, ``is_parallelizable=False``)
Observation shape      ``observation``: (1401,) float32, ``action_mask``: (33,) int8
Observation values     ``observation`` in [0, 1] except ``totals`` (see below)
State shape            (1490,) float32 (``state()``, full information)
=====================  ==========================================================

``env(**kw)`` is the checked environment: calls before ``reset`` are refused, an action
outside ``Discrete(33)`` (or a ``bool``) raises ``AssertionError`` naming the agent, the action
and what is allowed, changing nothing, and an illegal (masked-out) action ends
the game with reward -1 for the offender and a warning -- the behaviour of PettingZoo's
standard wrapper stack (``OrderEnforcingWrapper(AssertOutOfBoundsWrapper(
TerminateIllegalWrapper(raw_env, -1)))``), implemented natively because those generic
wrappers cost more than a whole game step here. ``raw_env(**kw)`` has no such checks: an
illegal action raises ``ValueError`` and leaves the state unchanged.

Keyword arguments: ``num_players`` (3..7, default 4, or a list of seat counts -- see
below), ``reward_mode`` (``"win"``,
``"score"``, ``"raw"``), ``render_mode`` (``None``, ``"human"``, ``"ansi"``,
``"rgb_array"``: a uint8 (H, W, 3) picture of the table, :mod:`gnome_env.gnoming.render_image`,
one frame size per env) and every
field of :class:`gnome_env.RulesConfig` (``rotate_start``, ``discard_taken_card``,
``bounce_face_up``, ``max_turns_per_round``, ``first_out_tie_is_lowest``, ``rounds``,
``deck``). A bad value raises ``ValueError`` naming it.

Seat count drawn per game
-------------------------
``num_players=[3, 4, 5, 6, 7]`` (any non-empty list of counts in 3..7) makes every
``reset`` draw the game's seat count from the list, uniformly, from the same stream as the
game seed (so a seed fixes both; see Seeding). ``possible_agents``, the
observation, action and state spaces are those of the largest count and never change --
what libraries that build their spaces once (RLlib) need to train one policy for every seat
count. After a reset, ``agents`` is ``player_0 .. player_{n-1}`` and ``env.config`` is the
game's rules. Observations are the same size for every count (seats are padded to 7).

Absent seats: a possible agent the current game does not have (``player_5`` in a 3-seat
game) observes an all-zero ``observation`` and an all-zero ``action_mask`` (the same
structure and space as every agent), and ``rewards``, ``terminations``, ``truncations``
and ``infos`` answer for it -- 0.0, True, True (so that an ``all()`` over every possible
agent equals one over the game's agents) and a blank info -- while their keys stay the
game's agents, as PettingZoo's API requires. So libraries that read every possible agent
at every step (TorchRL's ``PettingZooWrapper``) work unchanged. A name that is not a
possible agent raises ``KeyError``.

Before reset
------------
As PettingZoo's classic envs behind their wrappers: ``env()`` refuses ``agents``,
``num_agents``, ``observe``, ``step``, ... before the first ``reset`` (as
``OrderEnforcingWrapper`` does), while ``env().unwrapped`` -- a :class:`raw_env` view of the
same env, without the checks -- and ``raw_env()`` answer ``possible_agents``, ``agents``
(all possible agents until the first reset) and ``num_agents``. Stepping the unwrapped view
is stepping ``raw_env`` (an illegal action raises ``ValueError``).

Action space
------------
One flat table (``gnome_env.gnoming.actions``), the same in every phase; the mask says which ids are
legal now.

======  ====================  ==========================================================
id      name                  meaning
======  ====================  ==========================================================
0       draw                  take the top card of the draw pile (R7, reshuffle R8)
1, 2    take_a, take_b        take the top card of discard pile A / B (R7)
3-11    place@0..place@8      put the card in hand at layout position 0..8 (R9, R10)
12, 13  discard_a, discard_b  discard onto pile A / B (R14); a hazard: 12 only (removed)
14-22   bounce@0..bounce@8    bounce the displaced card to position 0..8 (R11)
23-31   flip@0..flip@8        turn an own face-down card up (opening R5, hazard R13)
32      decline               decline the flip a hazard offers (R13)
======  ====================  ==========================================================

Positions are row-major: 0 1 2 / 3 4 5 / 6 7 8.

Legal actions mask
------------------
``observation["action_mask"]`` is 1 where the action is legal for the agent to act, and all
zeros for every other agent. Opening flips and hazard flips are decisions of the seat
concerned, so the acting agent is not always the player whose turn it is.

Observation space
-----------------
Seen from the observing agent; seats are listed from the observer on, in turn order, and
padded to 7 (so one network plays every seat count). With the default deck (K = 18 card
kinds: -4..-1, M, 1..12, H; a custom deck changes K) the blocks are:

==================  ===========  ==============================================================
slice               block        content
==================  ===========  ==============================================================
[0, 1260)           layouts      7 seats x 9 positions x one-hot(K+2): absent, face down, kind
[1260, 1267)        present      1 for seats in the game
[1267, 1287)        hand         one-hot(K+2) card in hand (drawn, taken or displaced)
[1287, 1292)        hand_source  one-hot: none, draw pile, pile A, pile B, displaced
[1292, 1293)        can_bounce   1 if the card in hand is a displaced card that may bounce
[1293, 1333)        pile_tops    2 x one-hot(K+2): top of pile A, top of pile B (0 = empty)
[1333, 1335)        pile_sizes   cards in pile A, B / deck size
[1335, 1336)        draw_pile    cards in the draw pile / deck size
[1336, 1342)        phase        one-hot: opening flip, draw, place, displaced, hazard flip, over
[1342, 1351)        filled       positions filled this turn (not a bounce target)
[1351, 1358)        turn_player  one-hot relative seat whose turn it is
[1358, 1366)        first_out    one-hot: none, or relative seat of the first-out player
[1366, 1367)        endgame      endgame turns left / 6
[1367, 1368)        round        round index / (rounds - 1)
[1368, 1369)        turns        turns played this round / turn cap
[1369, 1376)        totals       running totals / 100, relative seat order (not in [0, 1])
[1376, 1394)        unseen       per kind: cards not seen / copies in deck (card counting)
[1394, 1401)        seat         one-hot: the observer's own seat number
==================  ===========  ==============================================================

Everything is public information: a seat's observation does not change when the cards it
cannot see (face-down layout cards, draw-pile order) are permuted. ``state()`` encodes the
same blocks from seat 0 with every card revealed, plus face-up flags, the acting seat and
the draw pile's composition, for centralized critics.

Rewards
-------
``reward_mode="win"`` (default): at game end the winners split +1 and the others split -1
(zero-sum; all 0 if everybody ties). ``"score"``: at each round end,
(mean of the other seats' round scores - own round score) / 10 (zero-sum). ``"raw"``: at
each round end, -own round score / 10. If the last round ended at the round cap (R17) the
game is scored normally but reported as truncated, not terminated.

Infos
-----
Every agent's info has the same keys with the same numeric types after ``reset`` and every
step (no ``None``, no strings, no key that comes and goes), the table of
:mod:`gnome_env.gnoming.infos`: ``round_ended``, ``round``, ``first_out`` (-1 or a seat),
``ended_by`` (0 none, 1 endgame, 2 turn_cap, 3 no_draw), ``game_over``, ``num_players``
(ints); ``round_scores``, ``layout_scores``, ``totals`` (int64) and ``winners`` (int8, 0/1)
with one entry per possible agent, 0 for seats not in the game. When a round ends every
agent's info describes it, until that agent next acts; otherwise the values are blank
(-1, 0, zeros). ``env.last_round`` holds the last finished round of the current game with
agent names (``{"round", "round_scores": {agent: score}, "layout_scores", "first_out":
agent or None, "ended_by": name, "totals", "winners": [agents]}``, what the infos held
before), ``None`` until a round ends.

Speed
-----
With numba installed (the ``fast`` and ``train`` extras) the env plays on the vector
engine's compiled kernels (:class:`gnome_env.gnoming.vector.KernelGame`): legality, rewards, infos
and every seat's observation come from there, and ``env.game`` (a :class:`Game`) is
replayed from the actions only when something asks for it (``render``, ``state``, an
illegal action's error, reading ``env.game``). Observable behaviour is identical; tests
compare both paths at every step. Without numba (or with ``GNOME_NO_NUMBA=1``) the env
steps the ``Game`` directly. ``gnome bench`` measures both against PettingZoo's classic
envs.

Seeding
-------
``reset(seed=s)`` (``s`` in ``0 .. 2**63 - 1``) fixes that game and every later unseeded
reset: game ``e`` of the stream is ``Game(config, game_seed)`` with ``game_seed, choice =
gnome_env.gnoming.vector.game_stream((s, 0), e, len(seat_counts))`` -- exactly the games slot 0 of
a :class:`gnome_env.gnoming.vector.VectorGame` plays after ``reset(seed=s)``. All randomness comes
from the project's own generator (:mod:`gnome_env.core.rng`), never from ``numpy.random``, so
a seed deals the same cards on every platform and library version.

Version history
---------------
* v1: the project's own counter-based generator (:mod:`gnome_env.core.rng`) deals and reshuffles
  instead of ``numpy.random`` (whose streams numpy does not promise to keep), and seeds the
  games of a reset stream. Same rules, observations, actions, rewards and infos as v0; the
  same seed deals other cards. Game records are format version 2. ``gnoming_a_round_v0``
  and ``GnomingARound-v0`` are gone: importing or making them raises an error that names
  v1; version-1 records are refused with a message that names the version.
  Later changes, with no change to observations, actions or rewards: ``infos`` have one
  fixed structure on every step (the round's results with agent names moved to
  ``env.last_round``); absent seats of a seat-count list observe as zeros instead of
  raising; ``raw_env()`` and ``env().unwrapped`` answer ``agents`` before reset;
  ``render_mode="rgb_array"``.
* v0: initial release (deals from ``numpy.random.default_rng``). Later addition, with no
  change to any existing behaviour: ``num_players`` may be a list of seat counts (one drawn
  per reset).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from gnome_env.core import rng
from gnome_env.core.checked import CheckedAEC, UncheckedView
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig, seat_counts
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.infos import blank_info, copy_info, round_end_info, shared_blank_info
from gnome_env.gnoming.rewards import (
    check_reward_mode,
    ended_by_cap,
    rewards_after_action,
    round_info,
)

# KernelGame.step's codes (gnome_env.gnoming.vector, which imports the kernels, is loaded lazily).
KERNEL_ROUND_ENDED, KERNEL_GAME_OVER, KERNEL_ILLEGAL = -1, -2, -3

ENV_NAME = "gnoming_a_round_v1"
RENDER_MODES = ("human", "ansi", "rgb_array")
ILLEGAL_ACTION_REWARD = -1.0


def _kernels_compiled() -> bool:
    """Whether the vector engine's kernels are compiled (numba installed and not disabled)."""
    try:
        from gnome_env.gnoming import _kernels
    except ImportError:  # pragma: no cover - the module itself imports only numpy
        return False
    return _kernels.COMPILED


def make_config(num_players: int = 4, **rules: Any) -> RulesConfig:
    """Build a validated :class:`RulesConfig` from env keyword arguments."""
    return RulesConfig.from_dict({"num_players": num_players, **rules})


def check_render_mode(render_mode: object) -> str | None:
    """Return ``render_mode`` if the environments support it, else raise ``ValueError``."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(
            f"render_mode={render_mode!r} is not allowed: must be None or one of {RENDER_MODES}"
        )
    return render_mode  # type: ignore[return-value]


def render_game(game: Game, render_mode: str | None, slots: int | None = None) -> Any:
    """Render for both environments: ``"ansi"`` returns the table, ``"human"`` prints it,
    ``"rgb_array"`` returns its picture (:func:`gnome_env.gnoming.render_image.render_rgb`, with
    room for ``slots`` seats so that every frame of an env has one size)."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode=")
        return None
    if render_mode == "rgb_array":
        from gnome_env.gnoming.render_image import render_rgb

        return render_rgb(game, slots)
    text = game.render()
    if render_mode == "human":
        print(text)
        return None
    return text


class AbsentSeatDict(dict):
    """A dict keyed by the agents in the game that also answers for the possible agents a
    game does not have (seat-count mode): reading one of those (``absent``) gives ``value``
    (or ``value()`` if it is callable) instead of a ``KeyError``. Its keys, length and
    iteration are the agents in the game only, as PettingZoo's API requires."""

    def __init__(self, items: Any, absent: frozenset[str], value: Any) -> None:
        super().__init__(items)
        self.absent = absent
        self.value = value

    def __missing__(self, key: str) -> Any:
        if key in self.absent:
            value = self.value
            return value() if callable(value) else value
        raise KeyError(key)


class raw_env(AECEnv):
    """The AEC environment without checks: an illegal action raises ``ValueError``."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": ENV_NAME,
        "render_modes": list(RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int | Sequence[int] = 4,
        reward_mode: str = "win",
        render_mode: str | None = None,
        **rules: Any,
    ) -> None:
        super().__init__()
        # One seat count, or a list of them: each reset then draws one (see the docstring).
        self.seat_counts = seat_counts(num_players)
        self.configs = {n: make_config(n, **rules) for n in sorted(set(self.seat_counts))}
        self._encoders = {
            n: (ObservationEncoder(c), ObservationEncoder(c, reveal=True))
            for n, c in self.configs.items()
        }
        n = max(self.configs)
        self.config = self.configs[n]  # the current game's rules (set again by reset)
        self.reward_mode = check_reward_mode(reward_mode)
        self.render_mode = check_render_mode(render_mode)
        self.possible_agents = [f"player_{i}" for i in range(n)]
        # Before the first reset the agents are all possible agents, as PettingZoo's classic
        # envs have them (env() hides this; its unwrapped view shows it).
        self.agents = self.possible_agents[:]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        # The possible agents the current game does not have (seat-count mode), and the info
        # of a step after which no round ended (gnome_env.gnoming.infos).
        self._absent: frozenset[str] = frozenset()
        self._blank_info = shared_blank_info(n, n)
        #: the finished round's results with agent names (gnome_env.gnoming.rewards.round_info) --
        #: what ``infos`` held before they became fixed arrays; None until a round ends
        self.last_round: dict[str, Any] | None = None
        self.encoder, self.state_encoder = self._encoders[n]
        low, high = self.encoder.bounds()
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(low, high, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, (A.NUM_ACTIONS,), dtype=np.int8),
            }
        )
        act_space = gymnasium.spaces.Discrete(A.NUM_ACTIONS)
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, act_space)
        s_low, s_high = self.state_encoder.bounds()
        self.state_space = gymnasium.spaces.Box(s_low, s_high, dtype=np.float32)
        # The stream of games (see reset): its seed, and the index of the current game.
        self._seeds = rng.ResetSeeds()
        # How the game is held. Without the kernels (no numba, GNOME_NO_NUMBA=1, or
        # _use_kernels set False before reset) the Game in ``_game`` is the whole state and
        # every step applies to it. With them, a KernelGame (gnome_env.gnoming.vector) plays the
        # game: while ``_live``, the kernel game is the state -- its step validates the action
        # and yields the next decision, rewards and round results -- and the Game is synced
        # lazily: ``_game`` (created from ``_game_seed`` on first need) plus the actions in
        # ``_pending`` is the kernel game's game. render(), state(), error messages and the
        # ``game`` property sync it first. Once the ``game`` property has handed the Game
        # out (``_game_shown``), every step also applies to it at once, so that a reference
        # to it stays current. Assigning ``env.game`` installs that Game and takes the
        # kernel game out of play until the next reset.
        self._use_kernels = _kernels_compiled()
        self._kernel_game = None
        self._kernel_games: dict[int, Any] = {}  # one KernelGame per seat count, made when needed
        self._live = False
        self._game: Game | None = None
        self._game_seed = 0
        self._pending: list[int] = []
        self._game_shown = False
        self._shown_decisions = 0  # len(game.actions) of the Game handed out
        # The agent whose observation and mask are in the kernel game's buffers: the acting seat
        # while live and the game is not over, else None.
        self._obs_agent: str | None = None

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        """The observation space (the same for every agent)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        """The action space (the same for every agent)."""
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the Game
    @property
    def game(self) -> Game | None:
        """The scalar :class:`Game` of this episode (the reference engine), up to date."""
        game = self._synced_game()
        if self._live and not self._game_shown:
            self._game_shown = True  # from now on, keep it current at every step
            self._shown_decisions = len(game.actions)
        return game

    @game.setter
    def game(self, game: Game | None) -> None:
        self._game = game
        self._pending = []
        self._stop_kernel_game()

    def _stop_kernel_game(self) -> None:
        """Play on with the Game alone (until the next reset)."""
        self._live = False
        self._obs_agent = None

    def _check_shown_game(self) -> None:
        """If the Game handed out has been played on directly, follow it alone from now on
        (as one assigned to ``env.game``)."""
        if self._game_shown and len(self._game.actions) != self._shown_decisions:
            self._stop_kernel_game()

    def _synced_game(self) -> Game | None:
        """The Game, with the actions the kernel game played since the last sync applied."""
        game = self._game
        if game is None and self._live:
            game = self._game = Game(self.config, self._game_seed)
        if self._pending:
            for action in self._pending:
                game.step(action)
            self._pending = []
        return game

    # ------------------------------------------------------------------ episode
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. A seed fixes this game and every later unseeded reset.

        Game ``e`` after ``reset(seed=s)`` (``e = 0`` for that reset, then 1, 2, ... for the
        unseeded resets that follow) is ``Game(config with n seats, game_seed)`` where
        ``game_seed, choice = vector.game_stream((s, 0), e, len(seat_counts))`` and ``n =
        seat_counts[choice]``. Without any seed, ``s`` comes from the operating system.
        """
        stream, episode = self._seeds.next(seed)
        game_seed, choice = rng.game_stream(stream, 0, episode, len(self.seat_counts))
        game_seed = int(game_seed)
        if len(self.seat_counts) > 1:
            n = self.seat_counts[int(choice)]
            self.config = self.configs[n]
            self.encoder, self.state_encoder = self._encoders[n]
        self._pending = []
        self._game_shown = False
        if self._use_kernels:
            kgame = self._kernel_games.get(self.config.num_players)  # for this config and mode
            stale = kgame is None or kgame.config is not self.config
            if stale or kgame.reward_mode != self.reward_mode:
                from gnome_env.gnoming import vector

                assert (KERNEL_ROUND_ENDED, KERNEL_GAME_OVER, KERNEL_ILLEGAL) == (
                    vector.KERNEL_ROUND_ENDED,
                    vector.KERNEL_GAME_OVER,
                    vector.KERNEL_ILLEGAL,
                )
                kgame = vector.KernelGame(self.config, self.reward_mode)
                self._kernel_games[self.config.num_players] = kgame
            self._kernel_game = kgame
            seat = kgame.reset(game_seed)
            self._game = None  # Game(config, game_seed), made when needed
            self._game_seed = game_seed
            self._live = True
            self._obs_agent = self.possible_agents[seat]
        else:
            self._kernel_game = None
            self._game = Game(self.config, game_seed)
            self._stop_kernel_game()
            seat = self._game.current_seat
        n = self.config.num_players
        self.agents = self.possible_agents[:n]
        self._absent = frozenset(self.possible_agents[n:])
        slots = len(self.possible_agents)
        self._blank_info = shared_blank_info(slots, n)  # for the steps (read-only arrays)
        self.last_round = None
        self.rewards = self._seat_dict(0.0, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = self._seat_dict(False, True)
        self.truncations = self._seat_dict(False, True)
        blank = functools.partial(blank_info, slots, n)  # new arrays
        self.infos: dict[str, dict] = self._seat_dict(None, blank)
        for agent in self.agents:
            self.infos[agent] = blank()
        self.agent_selection = self.possible_agents[seat]

    def _seat_dict(self, value: Any, absent_value: Any) -> dict[str, Any]:
        """``dict.fromkeys(agents, value)``; with absent seats an :class:`AbsentSeatDict` that
        answers ``absent_value`` for them."""
        if self._absent:
            return AbsentSeatDict(dict.fromkeys(self.agents, value), self._absent, absent_value)
        return dict.fromkeys(self.agents, value)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation and action mask (all zeros unless it is to act)."""
        if self._game_shown:
            self._check_shown_game()
        if agent == self._obs_agent and agent == self.agent_selection:
            kgame = self._kernel_game  # the acting agent: its decision is in the buffers
            return {"observation": kgame.obs.copy(), "action_mask": kgame.mask.copy()}
        seat = self._seat[agent]  # KeyError for a name that is not a possible agent
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        if seat >= self.config.num_players:  # an absent seat (seat-count mode): all zeros
            return {
                "observation": np.zeros(self.encoder.size, dtype=np.float32),
                "action_mask": mask,
            }
        if self._live:  # another agent, or the game is over
            return {"observation": self._kernel_game.observe(seat), "action_mask": mask}
        game = self._game
        if seat == game.current_seat and agent == self.agent_selection:
            mask[game.legal_actions()] = 1
        return {"observation": self.encoder.encode(game, seat), "action_mask": mask}

    def state(self) -> np.ndarray:
        """Full-information state (every card revealed), from seat 0, for central critics."""
        return self.state_encoder.encode(self._synced_game(), 0)

    def step(self, action: Any) -> None:
        """Apply the acting agent's action (``None`` for an agent that is done)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if self._live:
            if type(action) is not int:
                action = A.coerce_action(action)  # as Game.apply: ValueError if malformed
            if self._game_shown:
                code = self._play_on_shown_game(action)
            elif 0 <= action < A.NUM_ACTIONS:
                code = self._kernel_game.step(action)
                if code != KERNEL_ILLEGAL:
                    self._pending.append(action)  # the Game catches up when needed
            else:
                code = KERNEL_ILLEGAL
            if code >= 0:  # the common case: no round ended, so every reward is 0.0
                self._cumulative_rewards[agent] = 0.0
                self.infos[agent] = self._blank_info()
                if self._absent:
                    self.rewards = self._seat_dict(0.0, 0.0)
                else:
                    self.rewards = dict.fromkeys(self.agents, 0.0)  # see _after_apply
                self.agent_selection = self._obs_agent = self.possible_agents[code]
                if self.render_mode == "human":
                    self.render()
                return
            if code != KERNEL_ILLEGAL:
                self._after_round_end(agent, code)
                return
            if self._live:
                self._refuse(action)
        # The Game alone (the kernel game is not in play): an illegal action raises ValueError
        # and changes nothing.
        game = self._game
        rounds_before = len(game.round_results)
        game.step(action)
        self._after_apply(agent, rounds_before)

    def _refuse(self, action: int) -> None:
        """Raise Game.apply's ValueError for an action the kernel game refused (nothing changes)."""
        self._synced_game().step(action)
        raise RuntimeError(f"the kernel game refused the legal action {action}")  # a bug

    def _play_on_shown_game(self, action: int) -> int:
        """The kernel game step of step() once the Game has been handed out: the Game is kept
        current. KERNEL_ILLEGAL, changing nothing, if the action is not legal -- or if the
        Game has been played on directly (the kernel game stops, step() goes on with the Game)."""
        self._check_shown_game()
        if not (self._live and 0 <= action < A.NUM_ACTIONS):
            return KERNEL_ILLEGAL
        code = self._kernel_game.step(action)
        if code != KERNEL_ILLEGAL:
            self._game.step(action)
            self._shown_decisions += 1
        return code

    def _after_round_end(self, agent: str, code: int) -> None:
        """_after_apply for a kernel game step that ended a round (or the game): rewards, infos
        and terminations from the kernel game's results, exactly as rewards.py makes them."""
        kgame = self._kernel_game
        self._cumulative_rewards[agent] = 0.0
        rewards = kgame.rewards.tolist()
        self.rewards = self._seat_dict(0.0, 0.0)
        for a in self.agents:
            self.rewards[a] = rewards[self._seat[a]]
        self.last_round = kgame.round_info(self.agents)
        info = kgame.step_info(len(self.possible_agents))
        for a in self.agents:
            self.infos[a] = copy_info(info)
        if code == KERNEL_GAME_OVER:
            truncated = kgame.truncated
            self.terminations = self._seat_dict(not truncated, True)
            self.truncations = self._seat_dict(truncated, True)
        self._accumulate_rewards()
        if code == KERNEL_GAME_OVER:
            seat = (self._seat[agent] + 1) % len(self.agents)
            self.agent_selection = self.possible_agents[seat]
            self._obs_agent = None
        else:
            self.agent_selection = self._obs_agent = self.possible_agents[kgame.seat]
        if self.render_mode == "human":
            self.render()

    def _after_apply(self, agent: str, rounds_before: int) -> None:
        game = self._game
        self._cumulative_rewards[agent] = 0.0
        self.infos[agent] = self._blank_info()
        rewards = rewards_after_action(self.reward_mode, game, rounds_before)
        self.rewards = self._seat_dict(0.0, 0.0)
        if rewards is not None:
            # (No round ended: every reward is 0.0, and adding 0.0 changes no sum -- they
            # start at +0.0 -- so _accumulate_rewards is skipped.)
            for a in self.agents:
                self.rewards[a] = rewards[self._seat[a]]
            self.last_round = round_info(game, self.agents)
            info = round_end_info(game, len(self.possible_agents))
            for a in self.agents:
                self.infos[a] = copy_info(info)
            if game.game_over:
                truncated = ended_by_cap(game)
                self.terminations = self._seat_dict(not truncated, True)
                self.truncations = self._seat_dict(truncated, True)
            self._accumulate_rewards()
        if game.game_over:
            self.agent_selection = self.possible_agents[(self._seat[agent] + 1) % game.num_players]
        else:
            self.agent_selection = self.possible_agents[game.current_seat]
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        """``"ansi"``: the table as text; ``"human"``: print it; ``"rgb_array"``: its picture,
        uint8 (H, W, 3), the same size for every game of this env."""
        return render_game(self._synced_game(), self.render_mode, len(self.possible_agents))

    def close(self) -> None:
        """Nothing to release."""


class _UnwrappedView(UncheckedView, raw_env):
    """``env().unwrapped``: raw_env's methods on a CheckedEnv's state (see
    :attr:`gnome_env.core.checked.CheckedAEC.unwrapped`)."""


class CheckedEnv(CheckedAEC, raw_env):
    """``env()``: raw_env plus the standard wrappers' checks, implemented natively
    (:class:`gnome_env.core.checked.CheckedAEC`)."""

    unwrapped_class = _UnwrappedView
    illegal_reward = ILLEGAL_ACTION_REWARD

    def _all_agents(self, value: Any, absent_value: Any) -> dict[str, Any]:
        return self._seat_dict(value, absent_value)  # absent seats answer too

    def _refuse(self, action: int) -> None:
        """An illegal action: step() ends the game, without Game.apply's message (so without
        syncing the Game to write it)."""
        raise ValueError(f"illegal action {action}")


def env(**kwargs: Any) -> CheckedEnv:
    """The checked AEC environment (see the module docstring)."""
    return CheckedEnv(**kwargs)
