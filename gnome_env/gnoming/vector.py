"""Vectorized engine: B games of Gnoming A Round stepped together, with automatic reset.

The rules, observations and rewards are exactly those of :class:`gnome_env.gnoming.engine.Game`,
:class:`gnome_env.gnoming.encoding.ObservationEncoder` and the AEC env
(:mod:`gnome_env.gnoming.gnoming_a_round_v1`); the differential tests in
``tests/gnoming/test_vector.py``
compare all of them at every step. The game logic is in :mod:`gnome_env.gnoming._kernels`,
compiled with numba when it is installed (``pip install gnome-env[fast]``).

Quick use::

    import numpy as np
    from gnome_env.gnoming import RulesConfig
    from gnome_env.gnoming.vector import VectorGame

    vec = VectorGame(RulesConfig(), batch_size=4096, num_players=[3, 4, 5, 6, 7])
    tokens, mask, seat = vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(100):
        actions = vec.sample_actions(rng)  # or your policy, from tokens/mask/seat
        tokens, mask, seat, rewards, done, info = vec.step(actions)
    obs = vec.observations()  # float32 [B, 1401], only when needed

API
---
``VectorGame(config=None, batch_size=1, *, num_players=None, players_per_slot=None,
reward_mode="win")``

* ``config``: a :class:`RulesConfig` (variants, deck, rounds, turn cap); its
  ``num_players`` is the default seat count.
* ``num_players``: an int (every game), or a sequence of seat counts from which every game
  draws its own, deterministically from its seed (see *Seeds*).
* ``players_per_slot``: a sequence of ``batch_size`` seat counts: slot ``b`` always plays
  ``players_per_slot[b]`` seats (overrides ``num_players``).
* ``reward_mode``: ``"win"``, ``"score"`` or ``"raw"`` (:mod:`gnome_env.gnoming.rewards`).

``reset(seed=None, *, seeds=None)`` starts a game in every slot and returns a
:class:`Decision` ``(tokens, mask, seat)``; ``step(actions)`` returns a :class:`StepResult`
``(tokens, mask, seat, rewards, done, info)``. Any invalid input raises ``ValueError`` (an
illegal action names the game, the action and the legal ones) and changes nothing.

Arrays (B = ``batch_size``, T = ``num_tokens``, 119 with the default deck)
--------------------------------------------------------------------------
============  =================  ==========================================================
name          shape, dtype       content
============  =================  ==========================================================
tokens        [B, T] int16       ``ObservationEncoder.tokens(game, seat)`` of the acting seat
mask          [B, 33] bool       legal actions of the acting seat (``Game.legal_mask()``)
seat          [B] int8           the acting seat (``Game.current_seat``)
rewards       [B, 7] float32     each seat's reward from this step (0 for absent seats)
done          [B] bool           the game in this slot ended with this step
============  =================  ==========================================================

``info`` holds arrays about the game each step was applied to (zero where nothing
happened, ``first_out`` -1): ``round_ended`` [B] bool; for a round that ended: ``round``
[B] int32 (its index), ``round_scores``, ``layout_scores`` and ``totals`` (after that
round) [B, 7] int32, ``first_out`` [B] int32 (-1: none), ``ended_by`` [B] int8 (index into
:data:`ENDED_BY`: ``""``, ``"endgame"``, ``"turn_cap"``, ``"no_draw"``); for a game that
ended: ``winners`` [B, 7] bool (R23), ``terminated`` / ``truncated`` [B] bool (truncated:
the last round ended at the turn cap, as in the AEC env); always: ``num_players`` [B] int32
and ``game_seed`` [B] int64 of that game. A finished game's final totals are
``info["totals"][b]``, its last round's scores ``info["round_scores"][b]``.

Also: ``legal_mask()``, ``sample_actions(rng)`` (uniform random legal actions, for tests
and demos), and the current games' ``num_players``, ``game_seeds`` and ``episodes``.

Automatic reset and reward timing
---------------------------------
A step's ``rewards``, ``done`` and ``info`` belong to the game the action was applied to;
rewards are those the AEC env pays after that action (``rewards.rewards_after_action``):
in ``"score"``/``"raw"`` mode at every round end, in ``"win"`` mode at game end, to every
seat of the game at once. When ``done[b]``, slot ``b`` already holds a new game, and
``tokens``, ``mask`` and ``seat`` are its first decision.

Seeds
-----
Slot ``b`` plays a stream of games ``e = 0, 1, 2, ...`` (``episodes``) under a key:
``(s, b)`` after ``reset(seed=s)``, ``(s_b, b)`` after ``reset(seeds=[s_0, ..., s_B-1])``
(``reset()`` takes ``s`` from OS entropy and keeps it in ``seed``). Game ``e`` is
``Game(config with n seats, game_seed)`` -- the same deals and reshuffles, through
:func:`gnome_env.gnoming.engine.deal_order` / :func:`~gnome_env.gnoming.engine.reshuffle_order` --
where
``game_seed, choice = game_stream(key, e, len(choices))`` (the project's generator,
:func:`gnome_env.core.rng.game_stream`), except that after ``reset(seeds=...)`` game 0 has
``game_seed = s_b`` itself (so it is ``Game(config, s_b)``). ``n`` is
``players_per_slot[b]`` if given, else ``choices[choice]`` (``choices``: the
``num_players`` sequence; an int is one choice). An auto-reset starts the slot's next
``e``. So trajectories depend only on the seed(s) and the actions; ``numpy.random`` and
``random`` are never used. Slot 0 after ``reset(seed=s)`` plays exactly the games of the
AEC env after ``reset(seed=s)`` and its later unseeded resets (same stream ``(s, 0)``).

Float observations
------------------
``observations()`` returns the latest decision's float32 ``[B, 1401]`` observations;
``expand(tokens)`` does the same for any token array. Both call
``ObservationEncoder.expand`` (one encoder per seat count, since the turn-cap scale may
depend on it; the seat count is read from the tokens' ``present`` block).

numba
-----
Without numba, or with the environment variable ``GNOME_NO_NUMBA=1`` set before import,
the same kernels run as plain Python: identical results, orders of magnitude slower.
``gnome_env.gnoming._kernels.COMPILED`` tells which is in use. The first compiled use takes
some seconds (cached on disk afterwards).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from gnome_env.core import rng
from gnome_env.gnoming import _kernels as K
from gnome_env.gnoming import actions as A
from gnome_env.gnoming import infos
from gnome_env.gnoming.cards import HAZARD, MULLIGAN, parse_card
from gnome_env.gnoming.config import MAX_PLAYERS, MIN_PLAYERS, RulesConfig, check_int, seat_counts
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import Game, check_stacked_decks, deal_order
from gnome_env.gnoming.rewards import REWARD_MODES, check_reward_mode

#: ``info["ended_by"]`` codes: index into this tuple (``RoundResult.ended_by``); the same
#: codes as the environments' infos (:mod:`gnome_env.gnoming.infos`).
ENDED_BY = infos.ENDED_BY
MAX_SEED = rng.MAX_SEED


class Decision(NamedTuple):
    """The decision every slot faces: tokens ``[B, T]`` int16, mask ``[B, 33]`` bool, seat
    ``[B]`` int8."""

    tokens: np.ndarray
    mask: np.ndarray
    seat: np.ndarray


class StepResult(NamedTuple):
    """What :meth:`VectorGame.step` returns (see the module docstring)."""

    tokens: np.ndarray
    mask: np.ndarray
    seat: np.ndarray
    rewards: np.ndarray
    done: np.ndarray
    info: dict[str, np.ndarray]


def game_stream(key: tuple[int, int], episode: int, num_choices: int = 1) -> tuple[int, int]:
    """``(game seed, choice)`` of game ``episode`` of the slot with ``key``: the seed, and an
    unbiased draw in ``0 .. num_choices - 1`` that picks the seat count
    (:func:`gnome_env.core.rng.game_stream`)."""
    seed, choice = rng.game_stream(key[0], key[1], episode, num_choices)
    return int(seed), int(choice)


class VectorGame:
    """``batch_size`` games stepped together (see the module docstring for the manual)."""

    def __init__(
        self,
        config: RulesConfig | None = None,
        batch_size: int = 1,
        *,
        num_players: int | Sequence[int] | None = None,
        players_per_slot: Sequence[int] | None = None,
        reward_mode: str = "win",
    ) -> None:
        if config is None:
            config = RulesConfig()
        if not isinstance(config, RulesConfig):
            raise ValueError(f"config must be a RulesConfig, got {type(config).__name__}")
        self.batch_size = check_int("batch_size", batch_size, 1, 2**31 - 1)
        self.reward_mode = check_reward_mode(reward_mode)
        if num_players is None:
            num_players = config.num_players
        choices = seat_counts(num_players)
        self.choices = choices
        slot_players = None
        if players_per_slot is not None:
            if isinstance(players_per_slot, str) or not isinstance(players_per_slot, Sequence):
                raise ValueError("players_per_slot must be a sequence of seat counts")
            if len(players_per_slot) != self.batch_size:
                raise ValueError(
                    f"players_per_slot has {len(players_per_slot)} entries, "
                    f"batch_size is {self.batch_size}"
                )
            slot_players = [
                check_int("players_per_slot", n, MIN_PLAYERS, MAX_PLAYERS) for n in players_per_slot
            ]
        self._slot_players = slot_players
        used = sorted(set(slot_players if slot_players is not None else choices))
        # One validated config per seat count (raises if the deck is too small, R1).
        self.configs = {n: config.replace(num_players=n) for n in used}
        self.config = config
        self.encoders = {n: ObservationEncoder(c) for n, c in self.configs.items()}
        enc = self.encoders[used[0]]
        self.num_tokens = enc.num_tokens
        self.observation_size = enc.size
        self._present = enc.token_slices["present"]
        starts, count = K.token_offsets(enc.num_kinds)
        if count != enc.num_tokens or any(
            enc.token_slices[name].start != start for name, start in starts.items()
        ):  # pragma: no cover - guards a change of the encoder's layout
            raise RuntimeError("the vector kernels' token layout differs from the encoder's")
        # R17 caps per seat count (int32 state; a larger cap is never reached anyway)
        self._turn_caps = {n: min(c.turn_cap, 2**31 - 1) for n, c in self.configs.items()}

        kinds = config.deck.kinds
        counts = [copies for _, copies in config.deck.counts]
        self._deck_size = config.deck.size
        self._kcode = np.array(kinds, dtype=np.int32)
        self._kind = {code: k for k, code in enumerate(kinds)}  # card code -> kind index
        self._kcount = np.array(counts, dtype=np.int32)
        # The canonical deck order of DeckSpec.cards(), as kind indices.
        self._canon = np.repeat(np.arange(len(kinds), dtype=np.int16), counts)
        prm = np.zeros(K.NUM_PARAMS, dtype=np.int32)
        prm[K.P_ROTATE] = config.rotate_start
        prm[K.P_DISCARD_TAKEN] = config.discard_taken_card
        prm[K.P_BOUNCE_UP] = config.bounce_face_up
        prm[K.P_TIE_LOWEST] = config.first_out_tie_is_lowest
        prm[K.P_ROUNDS] = config.rounds
        prm[K.P_REWARD] = REWARD_MODES.index(self.reward_mode)
        prm[K.P_KINDS] = len(kinds)
        prm[K.P_HAZ_K] = kinds.index(HAZARD) if HAZARD in kinds else -1
        prm[K.P_MULL_K] = kinds.index(MULLIGAN) if MULLIGAN in kinds else -1
        prm[K.P_DECK] = self._deck_size
        assert REWARD_MODES == ("win", "score", "raw")
        self._prm = prm

        b = self.batch_size
        self._st = np.zeros((b, K.C_SEEN + len(kinds)), dtype=np.int32)
        self._stk = np.zeros((b, 3, self._deck_size), dtype=np.int16)
        self._legal = np.zeros((b, A.NUM_ACTIONS), dtype=bool)
        self._paused = np.zeros(b, dtype=np.int64)
        self._seeds = np.zeros(b, dtype=np.int64)
        self._episodes = np.zeros(b, dtype=np.int64)
        self._keys: list[tuple[int, int]] = []
        # What the kernels need to start a slot's next game (supply_batch): the first word
        # of each slot's key (the second is the slot), the seat-count choices, the slot's
        # fixed seat count (0: drawn from the choices) and the turn cap per seat count.
        self._key0 = np.zeros(b, dtype=np.int64)
        self._choices = np.array(choices, dtype=np.int64)
        self._slot_n = np.array(slot_players or [0] * b, dtype=np.int64)
        self._caps = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
        for n, cap in self._turn_caps.items():
            self._caps[n] = cap
        self._tokens: np.ndarray | None = None
        self._seats: np.ndarray | None = None
        self.seed: int | None = None

    # ------------------------------------------------------------------ read-only views
    @property
    def num_players(self) -> np.ndarray:
        """Seat count of the game now in each slot, ``[B]`` int32."""
        return self._st[:, K.C_N].copy()

    @property
    def game_seeds(self) -> np.ndarray:
        """``Game`` seed of the game now in each slot, ``[B]`` int64."""
        return self._seeds.copy()

    @property
    def episodes(self) -> np.ndarray:
        """Index ``e`` of the game now in each slot within its stream, ``[B]`` int64."""
        return self._episodes.copy()

    def legal_mask(self) -> np.ndarray:
        """The current legal-action masks, ``[B, 33]`` bool (a copy)."""
        self._require_reset()
        return self._legal.copy()

    # ------------------------------------------------------------------ saving and restoring
    _STATE_ARRAYS = ("_st", "_stk", "_legal", "_seeds", "_episodes", "_key0", "_tokens", "_seats")

    def state_dict(self) -> dict[str, Any]:
        """Everything needed to continue these games exactly: numpy arrays and plain values.

        :meth:`load_state_dict` on a ``VectorGame`` built with the same arguments restores
        it; the next ``step`` then returns what this one's would (used to resume training).
        """
        self._require_reset()
        state: dict[str, Any] = {
            name[1:]: getattr(self, name).copy() for name in self._STATE_ARRAYS
        }
        state["seed"] = self.seed
        state["layout"] = self._layout()
        return state

    def _layout(self) -> dict[str, Any]:
        return {
            "batch_size": self.batch_size,
            "choices": list(self.choices),
            "players_per_slot": None if self._slot_players is None else list(self._slot_players),
            "reward_mode": self.reward_mode,
            "rules": self.config.to_dict(),
        }

    def load_state_dict(self, state: dict[str, Any]) -> Decision:
        """Restore :meth:`state_dict`'s games; returns the current decision. A state from a
        ``VectorGame`` built differently, or with arrays of the wrong shape, raises
        ``ValueError`` and changes nothing."""
        if not isinstance(state, dict) or "layout" not in state:
            raise ValueError("not a VectorGame state (use VectorGame.state_dict())")
        if state["layout"] != self._layout():
            raise ValueError(
                f"the saved games were built with {state['layout']}, this VectorGame with "
                f"{self._layout()}: build it with the same arguments"
            )
        expected = {  # (shape, dtype); _tokens and _seats are None before reset
            name: (getattr(self, name).shape, getattr(self, name).dtype)
            for name in self._STATE_ARRAYS[:-2]
        }
        expected["_tokens"] = ((self.batch_size, self.num_tokens), np.dtype(np.int16))
        expected["_seats"] = ((self.batch_size,), np.dtype(np.int8))
        arrays = {}
        for name, (shape, dtype) in expected.items():
            value = np.asarray(state.get(name[1:]))
            if value.shape != shape or value.dtype != dtype:
                raise ValueError(f"saved array {name[1:]!r} has the wrong shape or dtype")
            arrays[name] = value.copy()
        for name, value in arrays.items():
            setattr(self, name, value)
        self.seed = state["seed"]
        self._keys = [(int(k), slot) for slot, k in enumerate(self._key0)]
        return Decision(self._tokens.copy(), self._legal.copy(), self._seats.copy())

    # ------------------------------------------------------------------ episodes
    def reset(self, seed: int | None = None, *, seeds: Sequence[int] | None = None) -> Decision:
        """Start a new game in every slot (see *Seeds* in the module docstring)."""
        b = self.batch_size
        first: list[int | None] = [None] * b
        if seeds is not None:
            if seed is not None:
                raise ValueError("pass either seed or seeds, not both")
            if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__len__"):
                raise ValueError("seeds must be a sequence of batch_size non-negative integers")
            if len(seeds) != b:
                raise ValueError(f"seeds has {len(seeds)} entries, batch_size is {b}")
            first = [check_int("seeds[...]", s, 0, MAX_SEED - 1) for s in seeds]
            keys = [(s, slot) for slot, s in enumerate(first)]
            self.seed = None
        else:
            if seed is None:
                seed = rng.entropy_seed()
            seed = check_int("seed", seed, 0, MAX_SEED - 1)
            keys = [(seed, slot) for slot in range(b)]
            self.seed = seed
        self._keys = keys
        self._key0[:] = [key[0] for key in keys]
        self._episodes[:] = 0
        for slot in range(b):
            self._start_game(slot, first[slot])
        self._paused[:] = np.arange(b)
        tokens = np.empty((b, self.num_tokens), dtype=np.int16)
        seats = np.empty(b, dtype=np.int8)
        self._resume(b, tokens, seats)
        self._tokens = tokens
        self._seats = seats
        return Decision(tokens, self._legal.copy(), seats)

    def _start_game(self, slot: int, game_seed: int | None) -> None:
        """Set up game ``episodes[slot]`` of ``slot``: seed, seat count, round 0's deal."""
        episode = int(self._episodes[slot])
        derived, choice = game_stream(self._keys[slot], episode, len(self.choices))
        if game_seed is None:
            game_seed = derived
        slot_players = self._slot_players
        n = self.choices[choice] if slot_players is None else slot_players[slot]
        self._seeds[slot] = game_seed
        st = self._st
        st[slot, K.C_N] = n
        st[slot, K.C_TURN_CAP] = self._turn_caps[n]
        st[slot, K.C_NEED] = K.NEED_NEW_GAME
        self._stk[slot, 0, :] = self._canon[deal_order(game_seed, 0, self._deck_size)]

    def _supply_shuffles(self, count: int) -> None:
        """Give every paused game the shuffle it waits for (R3 deal, R8 reshuffle) and start
        the next game of every slot whose game is over -- in one kernel call, which draws the
        shuffles and game seeds with the functions of :mod:`gnome_env.core.rng` that deal_order /
        reshuffle_order / game_stream (and so :meth:`_start_game` and the scalar Game) use."""
        K.supply_batch(
            self._st,
            self._stk,
            self._paused,
            count,
            self._seeds,
            self._key0,
            self._episodes,
            self._choices,
            self._slot_n,
            self._caps,
            self._canon,
            self._prm,
        )

    def _resume(self, count: int, tokens: np.ndarray, seats: np.ndarray) -> None:
        K.resume_batch(
            self._st,
            self._stk,
            self._paused,
            count,
            self._prm,
            self._kcode,
            self._kcount,
            self._legal,
            tokens,
            seats,
        )

    def _require_reset(self) -> None:
        if self._tokens is None:
            raise RuntimeError("call reset() before using the games")

    # ------------------------------------------------------------------ stepping
    def _check_actions(self, actions: Any) -> np.ndarray:
        b = self.batch_size
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an integer array of shape ({b},), got dtype {arr.dtype}"
            )
        if arr.shape != (b,):
            raise ValueError(f"actions must have shape ({b},), got {arr.shape}")
        bad = np.flatnonzero((arr < 0) | (arr >= A.NUM_ACTIONS))
        if bad.size:
            g = int(bad[0])
            raise ValueError(
                f"action {int(arr[g])} for game {g} is out of range: must be an integer in "
                f"0..{A.NUM_ACTIONS - 1}"
            )
        arr = arr.astype(np.int64, copy=False)
        ok = self._legal[np.arange(b), arr]
        if not ok.all():
            g = int(np.flatnonzero(~ok)[0])
            a = int(arr[g])
            legal = np.flatnonzero(self._legal[g])
            allowed = ", ".join(f"{x} ({A.ACTION_NAMES[x]})" for x in legal)
            phase = ("OPENING_FLIP", "DRAW", "PLACE", "DISPLACED", "HAZARD_FLIP", "GAME_OVER")[
                self._st[g, K.C_PHASE]
            ]
            raise ValueError(
                f"illegal action {a} ({A.ACTION_NAMES[a]}) for game {g} (seat "
                f"{self._st[g, K.C_SEAT]}, phase {phase}); legal actions: {allowed}"
            )
        return np.ascontiguousarray(arr)

    def step(self, actions: Any) -> StepResult:
        """Apply ``actions[b]`` (an int array of shape ``[B]``) to every game."""
        self._require_reset()
        acts = self._check_actions(actions)
        b = self.batch_size
        tokens = np.empty((b, self.num_tokens), dtype=np.int16)
        seats = np.empty(b, dtype=np.int8)
        rewards = np.zeros((b, MAX_PLAYERS), dtype=np.float32)
        res = np.zeros((b, K.NUM_RESULTS), dtype=np.int32)
        game_seeds = self._seeds.copy()
        count = K.step_batch(
            self._st,
            self._stk,
            acts,
            self._prm,
            self._kcode,
            self._kcount,
            self._legal,
            tokens,
            seats,
            rewards,
            res,
            self._paused,
        )
        if count:
            self._supply_shuffles(count)
            self._resume(count, tokens, seats)
        self._tokens = tokens
        self._seats = seats
        done = res[:, K.R_DONE].astype(bool)
        truncated = res[:, K.R_TRUNCATED].astype(bool)
        seven = slice(0, MAX_PLAYERS)
        info = {
            "round_ended": res[:, K.R_ROUND_ENDED].astype(bool),
            "round": res[:, K.R_ROUND],
            "round_scores": res[:, K.R_ROUND_SCORES :][:, seven],
            "layout_scores": res[:, K.R_LAYOUT_SCORES :][:, seven],
            "totals": res[:, K.R_TOTALS :][:, seven],
            "first_out": np.where(res[:, K.R_ROUND_ENDED] != 0, res[:, K.R_FIRST_OUT], -1),
            "ended_by": res[:, K.R_ENDED_BY].astype(np.int8),
            "winners": res[:, K.R_WINNERS :][:, seven].astype(bool),
            "terminated": done & ~truncated,
            "truncated": truncated,
            "num_players": np.where(done, res[:, K.R_N], self._st[:, K.C_N]),
            "game_seed": game_seeds,
        }
        return StepResult(tokens, self._legal.copy(), seats, rewards, done, info)

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action per game, ``[B]`` int64 (for tests and demos)."""
        self._require_reset()
        legal = self._legal
        pick = (rng.random(self.batch_size) * np.count_nonzero(legal, axis=1)).astype(np.int8)
        ranks = np.cumsum(legal, axis=1, dtype=np.int8)  # 1 + rank of each legal action
        return np.argmax(ranks > pick[:, None], axis=1).astype(np.int64)

    # ------------------------------------------------------------------ float observations
    def expand(self, tokens: np.ndarray) -> np.ndarray:
        """Float32 observations ``[..., size]`` from tokens ``[..., T]``, exactly as
        ``ObservationEncoder.expand`` of each token row's seat count."""
        tokens = np.asarray(tokens)
        if tokens.ndim == 0 or tokens.shape[-1] != self.num_tokens:
            raise ValueError(f"tokens must have shape [..., {self.num_tokens}], got {tokens.shape}")
        lead = tokens.shape[:-1]
        flat = tokens.reshape(-1, self.num_tokens)
        seats = flat[:, self._present].sum(axis=1)
        unknown = set(np.unique(seats).tolist()) - set(self.encoders)
        if unknown:
            raise ValueError(f"tokens with seat counts {sorted(unknown)} not played here")
        if len(self.encoders) == 1:
            enc = next(iter(self.encoders.values()))
            return enc.expand(tokens)
        out = np.empty((flat.shape[0], self.observation_size), dtype=np.float32)
        for n, enc in self.encoders.items():
            rows = np.flatnonzero(seats == n)
            if rows.size:
                out[rows] = enc.expand(flat[rows])
        return out.reshape((*lead, self.observation_size))

    def observations(self) -> np.ndarray:
        """The latest decision's float32 observations, ``[B, size]``."""
        self._require_reset()
        return self.expand(self._tokens)


#: KernelGame.step's codes besides a seat (>= 0, the next decision, no round ended)
KERNEL_ROUND_ENDED = -1  # a round ended; the next round's first decision is at ``seat``
KERNEL_GAME_OVER = -2  # the game ended; the kernel state is its final state
KERNEL_ILLEGAL = -3  # the action is not legal now; nothing changed


class KernelGame:
    """One game on the compiled kernels, for the AEC env
    (:mod:`gnome_env.gnoming.gnoming_a_round_v1`).

    Each :meth:`step` is one compiled call that applies a legal action and writes the next
    decision: the acting seat's legal mask (:attr:`mask`), tokens (:attr:`tokens`) and float32
    observation (:attr:`obs`), exactly ``Game.legal_mask()`` and ``ObservationEncoder
    .tokens`` / ``.encode`` of the ``Game(config, seed)`` that played the same actions. A step
    that ends a round leaves its results in :attr:`rewards` (float64, the values of
    :func:`gnome_env.gnoming.rewards.rewards_after_action`) and :attr:`results` (``R_*`` columns of
    :mod:`gnome_env.gnoming._kernels`; :meth:`round_info` reads them as
    :func:`gnome_env.gnoming.rewards.round_info` does). When the game ends the kernel game stops
    there --
    no automatic reset -- so :meth:`observe` gives any seat's view of the final state.

    Test hook (documented, as ``Game``'s): ``reset(seed, stacked_decks={r: deck})`` deals
    round ``r`` from ``deck`` -- a full deck order in R2 tokens, top card first, validated as
    ``Game`` validates it -- instead of the shuffle (R3); other rounds and every reshuffle
    (R8) are drawn from ``seed`` as usual. :func:`gnome_env.gnoming.testing.stack_deck` builds such
    an order, and :class:`gnome_env.gnoming.testing.KernelRulesGame` runs the rule tests
    (``tests/test_rules_*.py``) on a kernel game through it. Without stacked decks the hook
    costs nothing: it is only looked at when the game pauses for a shuffle.

    Only worth using when the kernels are compiled (:data:`gnome_env.gnoming._kernels.COMPILED`);
    uncompiled (``GNOME_NO_NUMBA=1``) the same kernels run as plain Python, slowly.
    """

    def __init__(self, config: RulesConfig, reward_mode: str = "win") -> None:
        self.config = config
        self.reward_mode = reward_mode
        # A VectorGame of one slot holds the rule parameters and the game's arrays (its row
        # 0); the kernel game calls the kernels on them directly.
        self._vec = vec = VectorGame(config, 1, reward_mode=reward_mode)
        self.num_players = n = config.num_players
        self._turn_cap = vec._turn_caps[n]
        tok_off, tok_scale = vec.encoders[n].expansion_table()
        self._g, self._cards, legal = vec._st[0], vec._stk[0], vec._legal[0]
        #: the acting seat's tokens ``[T]`` int16, legal mask ``[33]`` int8 and observation
        #: ``[size]`` float32: buffers rewritten by every step (copy what you keep)
        self.tokens = np.zeros(vec.num_tokens, dtype=np.int16)
        self.mask = legal.view(np.int8)
        self.obs = np.zeros(vec.observation_size, dtype=np.float32)
        #: per-seat rewards ``[7]`` float64 and results ``[NUM_RESULTS]`` int32 of the last
        #: step (zero unless it ended a round)
        self.rewards = np.zeros(MAX_PLAYERS, dtype=np.float64)
        self.results = np.zeros(K.NUM_RESULTS, dtype=np.int32)
        #: the seat that decides now, -1 once the game is over
        self.seat = -1
        self.seed = 0
        # The test hook: round -> stacked deck as kind indices (empty: every deal shuffled).
        self._stacked: dict[int, np.ndarray] = {}
        # The kernels' arguments: always these very arrays, as the kernels are called
        # through entry points that do not check argument types.
        self._game_args = (self._g, self._cards, vec._prm, vec._kcode, vec._kcount)
        self._emit_args = (legal, self.tokens, tok_off, tok_scale, self.obs)
        self._step_args = (*self._game_args, *self._emit_args, self.rewards, self.results)
        self._observe_args = (np.zeros_like(self.tokens), tok_off, tok_scale)
        self._step = K.entry_point(K.single_step, *self._step_args, 0)
        self._supply_resume = K.entry_point(
            K.single_supply_resume, *self._game_args, *self._emit_args, vec._canon, 0
        )
        self._resume = K.entry_point(K.single_resume, *self._game_args, *self._emit_args)
        self._emit = K.entry_point(K.emit_observation, *self._game_args, *self._emit_args)
        self._observe = K.entry_point(
            K.observe_seat, *self._game_args, 0, *self._observe_args, np.empty_like(self.obs)
        )

    # Copies and pickles: the arrays' contents, into a kernel game built afresh (the views and
    # the compiled entry points are not copied).
    _STATE = ("_g", "_cards", "mask", "tokens", "obs", "rewards", "results")

    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self._STATE}
        state.update(config=self.config, reward_mode=self.reward_mode)
        state.update(seat=self.seat, seed=self.seed, stacked=self._stacked)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["config"], state["reward_mode"])
        for name in self._STATE:
            getattr(self, name)[...] = state[name]
        self.seat = state["seat"]
        self.seed = state["seed"]
        self._stacked = {r: deck.copy() for r, deck in state.get("stacked", {}).items()}

    def reset(
        self, seed: int, *, stacked_decks: Mapping[int, Sequence[object]] | None = None
    ) -> int:
        """Start ``Game(config, seed, stacked_decks=stacked_decks)``; returns the acting seat.

        ``stacked_decks`` is the documented test hook (see the class docstring); an invalid
        one raises ``ValueError`` (``Game``'s message) and changes nothing.
        """
        stacked: dict[int, np.ndarray] = {}
        if stacked_decks is not None:
            kind = {code: k for k, code in enumerate(self.config.deck.kinds)}
            for r, deck in check_stacked_decks(self.config, stacked_decks).items():
                stacked[r] = np.array([kind[parse_card(t)] for t in deck], dtype=np.int16)
        self._stacked = stacked
        g = self._g
        self.seed = seed
        g[K.C_N] = self.num_players
        g[K.C_TURN_CAP] = self._turn_cap
        g[K.C_NEED] = K.NEED_NEW_GAME  # round 0's deal (deal_order, or stacked), then start
        self.rewards[:] = 0.0
        self.results[:] = 0
        self.seat = self._carry_on()
        return self.seat

    def load(self, game: Game) -> int:
        """Install ``game``'s state (any :class:`Game` of this config, e.g. a determinized
        sample from :func:`gnome_env.gnoming.information.sample_game`) into the kernel game and
        write its decision; returns the acting seat (-1 if the game is over).

        Every field of :data:`gnome_env.gnoming.engine.STATE_FIELDS` goes into the kernel row, the
        card counting (``C_SEEN``) is recomputed from the cards in sight and the last
        finished round's scores come from ``game.round_results`` (0 without any). Future
        reshuffles and deals come from ``game.seed``; the stacked-deck hook is not carried.
        """
        if game.config != self.config:
            raise ValueError("game.config differs from this kernel game's config")
        write_game_row(game, self._g, self._cards, self._vec._kind)
        self._stacked = {}
        self.seed = game.seed
        self.rewards[:] = 0.0
        self.results[:] = 0
        self.seat = int(game.current_seat)
        if self.seat >= 0:
            self._emit(*self._game_args, *self._emit_args)
        return self.seat

    def step(self, action: int) -> int:
        """Apply ``action`` (an int in ``0..32``) if it is legal.

        Returns the next acting seat if no round ended, else KERNEL_ROUND_ENDED (the next
        round's first decision is at :attr:`seat`) or KERNEL_GAME_OVER; KERNEL_ILLEGAL
        (nothing changed) if the action is not legal now.
        """
        code = self._step(*self._step_args, action)
        if code >= 0:
            self.seat = code
            return code
        return self._after_pause(code)

    def _after_pause(self, code: int) -> int:
        """:meth:`step` once the kernel step returned ``code < 0`` (illegal, or paused)."""
        if code == K.STEP_ILLEGAL:
            return KERNEL_ILLEGAL
        if code == -K.NEED_NEW_GAME:  # not resumed: the final state stays for observe()
            self.seat = -1
            return KERNEL_GAME_OVER
        # a reshuffle or the next round's deal, then the next decision
        self.seat = self._carry_on()
        return KERNEL_ROUND_ENDED if code == -K.NEED_DEAL else self.seat

    def _carry_on(self) -> int:
        """Give the paused game what it waits for and resume it; returns the acting seat.

        A deal (R3) of a stacked round is written into the draw stack here and the game
        resumed; any other deal and every reshuffle (R8) is drawn in the kernel.
        """
        g = self._g
        if self._stacked:  # the test hook
            need = g[K.C_NEED]
            deck = None
            if need == K.NEED_DEAL:
                deck = self._stacked.get(int(g[K.C_ROUND]))
            elif need == K.NEED_NEW_GAME:
                deck = self._stacked.get(0)
            if deck is not None:
                self._cards[0, : deck.shape[0]] = deck
                return self._resume(*self._game_args, *self._emit_args)
        return self._supply_resume(*self._game_args, *self._emit_args, self._vec._canon, self.seed)

    def observe(self, seat: int) -> np.ndarray:
        """A new float32 observation of the game seen from ``seat`` (any seat, any time)."""
        obs = np.empty(self.obs.shape[0], dtype=np.float32)
        self._observe(*self._game_args, seat, *self._observe_args, obs)
        return obs

    @property
    def truncated(self) -> bool:
        """Whether the game ended with its last round at the turn cap (R17)."""
        return bool(self.results[K.R_TRUNCATED])

    def step_info(self, slots: int) -> dict[str, Any]:
        """:func:`gnome_env.gnoming.infos.round_end_info` of the round the last step ended, from the
        results row (same keys, types and values), with per-seat arrays of length ``slots``."""
        res = self.results
        n = self.num_players
        over = int(res[K.R_DONE] != 0)
        winners = np.zeros(slots, dtype=np.int8)
        if over:
            winners[:n] = res[K.R_WINNERS : K.R_WINNERS + n] != 0

        def seats(column: int) -> np.ndarray:
            out = np.zeros(slots, dtype=np.int64)
            out[:n] = res[column : column + n]
            return out

        info = {
            "round_ended": 1,
            "round": int(res[K.R_ROUND]),
            "round_scores": seats(K.R_ROUND_SCORES),
            "layout_scores": seats(K.R_LAYOUT_SCORES),
            "totals": seats(K.R_TOTALS),
            "first_out": int(res[K.R_FIRST_OUT]),
            "ended_by": int(res[K.R_ENDED_BY]),
            "game_over": over,
            "winners": winners,
            "num_players": n,
        }
        return info

    def round_info(self, agents: Sequence[str]) -> dict[str, Any]:
        """:func:`gnome_env.gnoming.rewards.round_info` of the round the last step ended (same keys,
        order and Python types)."""
        res = self.results
        n = self.num_players
        first_out = int(res[K.R_FIRST_OUT])

        def per_seat(column: int) -> dict[str, int]:
            return dict(zip(agents, res[column : column + n].tolist(), strict=True))

        info: dict[str, Any] = {
            "round": int(res[K.R_ROUND]),
            "round_scores": per_seat(K.R_ROUND_SCORES),
            "layout_scores": per_seat(K.R_LAYOUT_SCORES),
            "first_out": None if first_out < 0 else agents[first_out],
            "ended_by": ENDED_BY[res[K.R_ENDED_BY]],
            "totals": per_seat(K.R_TOTALS),
        }
        if res[K.R_DONE]:
            info["winners"] = [agents[s] for s in range(n) if res[K.R_WINNERS + s]]
        return info


def write_game_row(game: Game, g: np.ndarray, cards: np.ndarray, kind: dict[int, int]) -> None:
    """Write ``game``'s state into a kernel state row ``g`` and card stacks ``cards``
    (``kind``: card code -> kind index). See :meth:`KernelGame.load`."""
    n = game.num_players
    g[:] = 0
    cards[:] = 0
    g[K.C_N] = n
    g[K.C_TURN_CAP] = min(game.config.turn_cap, 2**31 - 1)
    g[K.C_ROUND] = game.round
    g[K.C_FIRST_PLAYER] = game.first_player
    g[K.C_RESHUFFLES] = game.reshuffles
    g[K.C_HAZ_REMOVED] = game.hazards_removed
    g[K.C_HELD] = -1 if game.held is None else kind[game.held]
    g[K.C_HELD_SRC] = int(game.held_source)
    g[K.C_HELD_DOWN] = int(game.held_was_face_down)
    g[K.C_FILLED] = game.filled
    g[K.C_TURNS] = game.turns_played
    g[K.C_FIRST_OUT] = -1 if game.first_out is None else game.first_out
    g[K.C_ENDGAME] = -1 if game.endgame_turns_left is None else game.endgame_turns_left
    g[K.C_PHASE] = int(game.phase)
    g[K.C_SEAT] = game.current_seat
    g[K.C_TURN_PLAYER] = game.turn_player
    queue = game.flip_queue
    g[K.C_FQ_POS] = 0
    g[K.C_FQ_LEN] = len(queue)
    g[K.C_FQ : K.C_FQ + len(queue)] = queue
    stacks = (game.draw_pile, *game.piles)
    for i, stack in enumerate(stacks):
        g[K.C_LEN + i] = len(stack)
        cards[i, : len(stack)] = [kind[c] for c in stack]
    last = game.round_results[-1].round_scores if game.round_results else (0,) * n
    seen = g[K.C_SEEN :]
    for s in range(n):
        g[K.C_DOWN + s] = game.down_count[s]
        g[K.C_TOTALS + s] = game.totals[s]
        g[K.C_LAST + s] = last[s]
        for q in range(9):
            k = kind[game.layouts[s][q]]
            g[K.C_LAY + 9 * s + q] = k
            if game.face_up[s][q]:
                g[K.C_SHOWN + 9 * s + q] = K.FIRST_KIND + k
                seen[k] += 1
            else:
                g[K.C_SHOWN + 9 * s + q] = K.FACE_DOWN
    for pile in game.piles:  # the card counting: every discard, the hand, removed hazards
        for c in pile:
            seen[kind[c]] += 1
    if game.held is not None:
        seen[kind[game.held]] += 1
    if game.hazards_removed:
        seen[kind[HAZARD]] += game.hazards_removed
