"""Nerts on the compiled kernels: B games stepped together, and one game for ``nerts_v0``.

The rules, observations, masks, rewards and infos are exactly those of
:class:`gnome_env.nerts.engine.NertsGame`, :class:`gnome_env.nerts.encoding.NertsEncoder` and
the Parallel env :mod:`gnome_env.nerts.nerts_v0`; ``tests/nerts/test_nerts_vector.py``
compares all of them after every step. The game logic is :mod:`gnome_env.nerts._kernels`,
compiled with numba when it is installed (``pip install gnome-env[fast]``).

Quick use::

    import numpy as np
    from gnome_env.nerts import NertsConfig
    from gnome_env.nerts.vector import NertsVectorEngine

    vec = NertsVectorEngine(NertsConfig(), batch_size=1024, num_players=[2, 3, 4, 5, 6])
    obs, masks = vec.reset(seed=0)
    gen = np.random.default_rng(0)
    for _ in range(100):
        actions = vec.sample_actions(gen)  # or a policy, from obs / masks
        obs, masks, rewards, dones, info = vec.step(actions)

API
---
``NertsVectorEngine(config=None, batch_size=1, *, num_players=None, players_per_slot=None,
reward_mode="relative", episode="hand", observations="seats")``

* ``config``: a :class:`NertsConfig` (every rule variant; one for the whole batch). Its
  ``num_players`` is the default seat count.
* ``num_players``: an int, or a sequence of seat counts (2..6) from which every game draws
  its own, deterministically from its seed (see *Seeds*); ``players_per_slot``: one fixed
  seat count per slot (overrides ``num_players``). Seat counts mix freely in one batch.
* ``reward_mode`` and ``episode``: as ``nerts_v0`` (``"relative"`` / ``"score"`` /
  ``"sparse"``; ``"hand"`` / ``"game"``).
* ``observations``: ``"seats"`` (every seat's ``nerts_v0`` observation, ``[B, 6, OBS]``),
  ``"table"`` (one ``[B, OBS]`` row per game: seat 0's observation, which holds every seat
  in absolute order -- every other seat's observation is a fixed gather of it, see
  :meth:`NertsVectorEngine.expand`) or ``"none"`` (masks only; :meth:`observations`
  writes them on demand).

``reset(seed=None, *, seeds=None)`` starts a game in every slot and returns
``(obs, masks)``; ``step(actions)`` (int ``[B, 6]``: one action per seat, entries of
absent seats ignored) returns a :class:`StepResult` ``(obs, masks, rewards, dones,
info)``. An illegal action raises ``ValueError`` naming the game, the seat, the action and
the legal ones, and changes nothing. ``obs`` and ``masks`` are read-only views of buffers
that the next ``step`` or ``reset`` rewrites (copy what you keep); ``rewards``, ``dones``
and ``info`` are new arrays.

Arrays (B = ``batch_size``, N = N_ACTIONS, OBS = the observation size)
---------------------------------------------------------------------
===========  ================  ==============================================================
name         shape, dtype      content
===========  ================  ==============================================================
obs          [B, 6, OBS] f32   ``nerts_v0``'s observation of each seat (zeros for absent
                               seats); ``[B, OBS]`` with ``observations="table"``
masks        [B, 6, N] int8    each seat's ``action_mask`` (zeros for absent seats)
rewards      [B, 6] float32    ``nerts_v0``'s reward of each seat for this step
dones        [B] bool          the episode of this slot ended with this step
===========  ================  ==============================================================

``info`` holds ``nerts_v0``'s infos as arrays, about the game each step was applied to:
``hand``, ``step``, ``hand_over``, ``end_reason``, ``remedy``, ``game_over``,
``terminated``, ``truncated``, ``num_players`` and ``game_seed`` ``[B]``; ``hand_scores``,
``totals``, ``blocked``, ``priority``, ``progress``, ``won`` and ``called`` ``[B, 6]``
(int32; 0 for absent seats). A hand's result is ``hand_scores`` of the step with
``hand_over``; a game's winners are ``won`` of the step with ``game_over``.

Automatic reset
---------------
A step's ``rewards``, ``dones`` and ``info`` belong to the game the actions were applied
to. When ``dones[b]``, slot ``b`` already holds its next game, and ``obs`` / ``masks`` are
that game's first ones. With ``episode="game"``, a hand that ends before the game does is
followed by the next hand's deal within the step, as ``nerts_v0`` does.

Seeds
-----
Slot ``b`` plays games ``e = 0, 1, 2, ...`` (``episodes``) of a key: ``(s, b)`` after
``reset(seed=s)``, ``(s_b, b)`` after ``reset(seeds=[s_0, ..., s_B-1])``. Game ``e`` is
``NertsGame(config with n seats, game_seed)`` where ``game_seed, choice =
rng.game_stream(key, e, len(choices))`` (:func:`gnome_env.core.rng.game_stream`), except
that after ``reset(seeds=...)`` game 0 has ``game_seed = s_b``; ``n`` is
``players_per_slot[b]`` if given, else ``choices[choice]``. So trajectories depend only on
the seeds and the actions; ``numpy.random`` and ``random`` are never used.

Also: :meth:`NertsVectorEngine.game` (slot ``b``'s game as a :class:`NertsGame`, for
tests and analysis), ``num_players``, ``game_seeds``, ``episodes``, ``legal_counts``.

numba
-----
Without numba, or with ``GNOME_NO_NUMBA=1`` set before import, the same kernels run as
plain Python: identical results, much slower (``gnome_env.nerts._kernels.COMPILED`` tells
which). The first compiled use takes a while (cached on disk afterwards).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from gnome_env.core import rng
from gnome_env.core.config import check_int
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.actions import action_table
from gnome_env.nerts.cards import KING
from gnome_env.nerts.config import MAX_PLAYERS, MIN_PLAYERS, NertsConfig
from gnome_env.nerts.encoding import NertsEncoder, StateEncoder
from gnome_env.nerts.engine import (
    END_REASONS,
    HandResult,
    NertsGame,
    game_winners,
)
from gnome_env.nerts.engine import StepResult as EngineStep

MAX_SEED = rng.MAX_SEED
#: ``end_reason`` codes (as ``nerts_v0``'s infos): index -> the engine's reason
END_NAMES = (None, *END_REASONS)
OBSERVATION_MODES = ("seats", "table", "none")
_OBS_ROWS = {"seats": 6, "table": 1, "none": 0}


def _choice(name: str, value: object, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"{name}={value!r} is not allowed: must be one of {shown}")
    return value


class KernelParams:
    """The kernels' parameters of one config, reward mode and episode: ``prm`` (int64),
    ``fprm`` (float64), ``rules`` (float32) and ``own`` (float32), checked against the
    encoder's layout."""

    def __init__(self, config: NertsConfig, reward_mode: str, episode: str) -> None:
        self.config = config
        self.reward_mode = _choice("reward_mode", reward_mode, K.REWARD_MODES)
        self.episode = _choice("episode", episode, K.EPISODES)
        table = action_table(config)
        self.table = table
        enc = NertsEncoder(config)
        self.encoder = enc
        self.n_actions = table.n
        self.obs_size = enc.size
        prm = np.zeros(K.NUM_PARAMS, dtype=np.int64)
        prm[K.P_W] = config.work_piles
        prm[K.P_JOKERS] = config.jokers
        prm[K.P_NS] = config.nerts_size
        prm[K.P_F] = config.num_slots
        prm[K.P_DECK] = config.deck_size
        prm[K.P_TURN] = config.turn_size
        prm[K.P_SLIDE] = int(config.slide_under)
        prm[K.P_BOTH] = int(config.foundation_tie == "both_keep")
        prm[K.P_AUTO] = int(config.auto_call)
        # the int32 row holds the counters; a larger limit is never reached anyway
        prm[K.P_STALL] = min(config.stall_steps, 2**31 - 1)
        prm[K.P_MAXSTEPS] = min(config.max_steps_per_hand, 2**31 - 1)
        prm[K.P_TARGET] = min(config.target_score, 2**31 - 1)
        prm[K.P_MAXHANDS] = min(config.max_hands, 2**31 - 1)
        prm[K.P_NACT] = table.n
        prm[K.P_B_NEW] = table.b_new
        prm[K.P_B_WORK] = table.b_work
        prm[K.P_B_MOVE] = table.b_move
        prm[K.P_B_SLIDE] = table.b_slide
        prm[K.P_REWARD] = K.REWARD_MODES.index(self.reward_mode)
        prm[K.P_EPISODE] = K.EPISODES.index(self.episode)
        prm[K.P_OBS] = enc.size
        prm[K.P_SW] = enc.seat_width
        prm[K.P_SLOTS0] = enc.slices["slots"].start
        prm[K.P_GLOBAL0] = enc.slices["present"].start
        for i, name in enumerate(K.SEAT_OFFSETS):
            prm[K.P_OFF + i] = enc.seat_fields[name].start
        self._check_layout(enc)
        self.prm = prm
        fprm = np.zeros(K.NUM_FPARAMS, dtype=np.float64)
        fprm[K.FP_PER_DECK] = enc._per_deck
        fprm[K.FP_SCORE_LO] = enc._score_lo
        fprm[K.FP_SCORE_SPAN] = enc._score_span
        fprm[K.FP_NS] = config.nerts_size
        fprm[K.FP_TARGET] = config.target_score
        fprm[K.FP_MAXSTEPS] = config.max_steps_per_hand
        fprm[K.FP_STALL] = config.stall_steps
        fprm[K.FP_MAXHANDS] = config.max_hands
        fprm[K.FP_F] = config.num_slots
        self.fprm = fprm
        self.rules = enc._rules.copy()
        # A slot's owner count is summed in float32, 1/13 at a time, as the encoder sums it.
        own = np.zeros(K.MAX_DECK + 1, dtype=np.float32)
        acc = np.zeros((1, 1), dtype=np.float32)
        for count in range(1, own.shape[0]):
            acc[0, 0] += 1.0 / KING
            own[count] = acc[0, 0]
        self.own = own

    @staticmethod
    def _check_layout(enc: NertsEncoder) -> None:
        """The kernels' slot and global offsets are the encoder's (a guard for changes)."""
        lf = enc.slot_fields
        slot = (lf["state"].start, lf["suit"].start, lf["top"].start, lf["owners"].start)
        g0 = enc.slices["present"].start
        glob = tuple(
            enc.slices[n].start - g0
            for n in ("present", "step", "stall", "remedy", "hand", "slots_used", "hand_over")
        )
        want_glob = (K.G_PRESENT, K.G_STEP, K.G_STALL, K.G_REMEDY, K.G_HAND, K.G_SLOTS)
        if (
            enc.slot_width != K.SLOT_WIDTH
            or slot != (K.SLOT_STATE, K.SLOT_SUIT, K.SLOT_TOP, K.SLOT_OWNERS)
            or glob != (*want_glob, K.G_HAND_OVER)
            or enc.slices["rules"].start - g0 != K.G_RULES
            or enc.size - enc.slices["rules"].start != K.NUM_RULES
        ):  # pragma: no cover - guards a change of the encoder's layout
            raise RuntimeError("the Nerts kernels' observation layout differs from the encoder's")

    def args(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(prm, fprm, rules, own)``: the leading arguments of the kernels."""
        return self.prm, self.fprm, self.rules, self.own


# ---------------------------------------------------------------------- converters
def write_game(game: NertsGame, g: np.ndarray) -> None:
    """Write ``game``'s state into the kernel row ``g`` (every field of
    ``NertsGame.state_tuple`` and the last step's result). The game's hand results, seed
    and stacked decks are not in the row (the caller keeps them). ``ValueError`` if the
    position does not fit the row (a Nerts top face down, a pile too long)."""
    cfg = game.config
    p = game.num_players
    g[:] = 0
    g[K.C_P] = p
    g[K.C_HAND] = game.hand
    g[K.C_STEPS] = game.steps
    g[K.C_STALL] = game.stall
    g[K.C_REMEDY] = int(game.remedy_done)
    g[K.C_SLOTS_USED] = game.slots_used
    g[K.C_HAND_OVER] = int(game.hand_over)
    g[K.C_END] = END_NAMES.index(game.end_reason)
    g[K.C_GAME_OVER] = int(game.game_over)
    g[K.C_HANDS] = len(game.hand_results)
    last = game.last_result
    if last is not None:
        g[K.C_HAS_LAST] = 1
        g[K.C_LAST_STEP] = last.step
        g[K.C_LAST_REMEDY] = int(last.remedy)
        for pos, seat in enumerate(last.priority):
            g[K.S_LAST_PI + pos] = seat
    scores = game.hand_results[-1].scores if game.hand_results else (0,) * p
    for s in range(p):
        g[K.S_SEEN + s] = game.seen[s]
        g[K.S_EXH + s] = int(game.exhausted[s])
        g[K.S_TOTAL + s] = game.totals[s]
        g[K.S_FOUND + s] = game.found_count[s]
        g[K.S_LAST_SCORE + s] = scores[s]
        if last is not None:
            g[K.S_LAST_ACT + s] = last.actions[s]
            g[K.S_LAST_BLOCKED + s] = int(last.blocked[s])
            g[K.S_LAST_PROG + s] = int(last.progress_by[s])
            g[K.S_LAST_CALLED + s] = int(last.called[s])
        up = game.nerts_face_up[s]
        if up and (not up[-1] or any(up[:-1])):
            raise ValueError(f"seat {s}: only the Nerts top may be face up (N13)")
        for pile, length_col, base, cap in (
            (game.nerts[s], K.S_NLEN, K.NERTS, K.MAX_DECK),
            (game.stock[s], K.S_SLEN, K.STOCK, K.MAX_DECK),
            (game.waste[s], K.S_WLEN, K.WASTE, K.MAX_DECK),
        ):
            if len(pile) > cap:
                raise ValueError(f"seat {s}: a pile of {len(pile)} cards does not fit")
            g[length_col + s] = len(pile)
            g[base + s * K.MAX_DECK : base + s * K.MAX_DECK + len(pile)] = pile
        for w, pile in enumerate(game.work[s]):
            if len(pile) > K.RUN:
                raise ValueError(f"seat {s}: work pile {w} holds {len(pile)} cards (N9: 13)")
            g[K.S_WORK_LEN + s * K.MAX_W + w] = len(pile)
            at = K.work_at(s, w)
            g[at : at + len(pile)] = pile
    log = 0
    for f in range(cfg.num_slots):
        g[K.SL_SUIT + f] = game.slot_suit[f]
        g[K.SL_TOP + f] = game.slot_top[f]
        g[K.SL_DONE + f] = int(game.slot_complete[f])
        for c, d, o in zip(
            game.slot_cards[f], game.slot_declared[f], game.slot_owners[f], strict=True
        ):
            g[K.LOG_CARD + log] = c
            g[K.LOG_DECL + log] = d
            g[K.LOG_OWNER + log] = o
            g[K.LOG_SLOT + log] = f
            g[K.SL_OWN + f * K.MAX_P + o] += 1
            log += 1
    for f in range(cfg.num_slots, K.MAX_F):
        g[K.SL_SUIT + f] = -1
    g[K.C_LOG_LEN] = log


def read_game(
    g: np.ndarray,
    config: NertsConfig,
    seed: int,
    hand_results: Sequence[HandResult] = (),
    stacked_decks: Mapping[int, Mapping[int, tuple[int, ...]]] | None = None,
) -> NertsGame:
    """The :class:`NertsGame` of kernel row ``g`` (the inverse of :func:`write_game`):
    equal ``state_tuple()`` and ``last_result`` to the engine's game that played the same
    steps, given its ``seed``, ``hand_results`` and ``stacked_decks`` (that game's
    ``stacked_decks``: card ids, as the engine holds them)."""
    p = int(g[K.C_P])
    if p != config.num_players:
        raise ValueError(f"the row holds {p} seats, the config {config.num_players}")
    row = g.tolist()
    game = object.__new__(NertsGame)
    game.config = config
    game.seed = int(seed)
    game.num_players = p
    game.table = action_table(config)
    game.n_actions = game.table.n
    game.stacked_decks = {h: dict(d) for h, d in (stacked_decks or {}).items()}
    game.hand_results = list(hand_results)
    game.totals = row[K.S_TOTAL : K.S_TOTAL + p]
    game.game_over = bool(row[K.C_GAME_OVER])
    game.hand = row[K.C_HAND]
    nw, nf = config.work_piles, config.num_slots
    game.nerts, game.nerts_face_up, game.work, game.stock, game.waste = [], [], [], [], []
    for s in range(p):
        n = row[K.S_NLEN + s]
        game.nerts.append(row[K.NERTS + s * K.MAX_DECK : K.NERTS + s * K.MAX_DECK + n])
        game.nerts_face_up.append([False] * (n - 1) + [True] if n else [])
        piles = []
        for w in range(nw):
            at = K.work_at(s, w)
            piles.append(row[at : at + row[K.S_WORK_LEN + s * K.MAX_W + w]])
        game.work.append(piles)
        n = row[K.S_SLEN + s]
        game.stock.append(row[K.STOCK + s * K.MAX_DECK : K.STOCK + s * K.MAX_DECK + n])
        n = row[K.S_WLEN + s]
        game.waste.append(row[K.WASTE + s * K.MAX_DECK : K.WASTE + s * K.MAX_DECK + n])
    game.seen = row[K.S_SEEN : K.S_SEEN + p]
    game.exhausted = [bool(x) for x in row[K.S_EXH : K.S_EXH + p]]
    game.slot_suit = row[K.SL_SUIT : K.SL_SUIT + nf]
    game.slot_top = row[K.SL_TOP : K.SL_TOP + nf]
    game.slot_complete = [bool(x) for x in row[K.SL_DONE : K.SL_DONE + nf]]
    game.slot_cards = [[] for _ in range(nf)]
    game.slot_declared = [[] for _ in range(nf)]
    game.slot_owners = [[] for _ in range(nf)]
    for i in range(row[K.C_LOG_LEN]):
        f = row[K.LOG_SLOT + i]
        game.slot_cards[f].append(row[K.LOG_CARD + i])
        game.slot_declared[f].append(row[K.LOG_DECL + i])
        game.slot_owners[f].append(row[K.LOG_OWNER + i])
    game.slots_used = row[K.C_SLOTS_USED]
    game.found_count = row[K.S_FOUND : K.S_FOUND + p]
    game.steps = row[K.C_STEPS]
    game.stall = row[K.C_STALL]
    game.remedy_done = bool(row[K.C_REMEDY])
    game.hand_over = bool(row[K.C_HAND_OVER])
    game.end_reason = END_NAMES[row[K.C_END]]
    last_scores = row[K.S_LAST_SCORE : K.S_LAST_SCORE + p]
    totals = game.totals
    game._winners = game_winners(totals, last_scores) if game.game_over else None
    game.last_result = _last_result(row, game) if row[K.C_HAS_LAST] else None
    game._invalidate()
    return game


def _last_result(row: list[int], game: NertsGame) -> EngineStep:
    """The engine's ``last_result`` of a row (the state has not changed since that step)."""
    p = game.num_players
    blocked = tuple(bool(x) for x in row[K.S_LAST_BLOCKED : K.S_LAST_BLOCKED + p])
    progress_by = tuple(bool(x) for x in row[K.S_LAST_PROG : K.S_LAST_PROG + p])
    return EngineStep(
        step=row[K.C_LAST_STEP],
        actions=tuple(row[K.S_LAST_ACT : K.S_LAST_ACT + p]),
        priority=tuple(row[K.S_LAST_PI : K.S_LAST_PI + p]),
        done=tuple(not b for b in blocked),
        blocked=blocked,
        progress=any(progress_by),
        progress_by=progress_by,
        called=tuple(bool(x) for x in row[K.S_LAST_CALLED : K.S_LAST_CALLED + p]),
        remedy=bool(row[K.C_LAST_REMEDY]),
        hand_over=game.hand_over,
        end_reason=game.end_reason,
        hand_scores=tuple(game.hand_scores()),
        totals=tuple(game.totals),
        game_over=game.game_over,
    )


def hand_result(res: np.ndarray, num_players: int) -> HandResult:
    """The :class:`HandResult` of a step (results row ``res``) that ended a hand."""
    r = res.tolist()
    p = num_players
    return HandResult(
        hand=r[K.R_HAND],
        scores=tuple(r[K.R_SCORES : K.R_SCORES + p]),
        end_reason=END_NAMES[r[K.R_END]],
        steps=r[K.R_STEP],
        callers=tuple(s for s in range(p) if r[K.R_CALLED + s]),
    )


def stacked_deck_rows(
    config: NertsConfig, stacked: Mapping[int, Mapping[int, Sequence[int]]], hand: int
) -> tuple[np.ndarray, int]:
    """``(decks, bits)`` for :func:`gnome_env.nerts._kernels.deal_hand`: the stacked decks
    of ``hand`` (validated card ids, top first) and the bit set of their seats."""
    decks = np.zeros((K.MAX_P, K.MAX_DECK), dtype=np.int32)
    bits = 0
    for seat, deck in stacked.get(hand, {}).items():
        decks[seat, : len(deck)] = deck
        bits |= 1 << seat
    return decks, bits


# ---------------------------------------------------------------------- one game
class KernelNertsGame:
    """One game on the compiled kernels, for ``nerts_v0``
    (:class:`gnome_env.nerts.nerts_v0.NertsParallelEnv`).

    Each :meth:`step` is one compiled call: the N18-N29 step, the env's rewards
    (:attr:`rewards`) and info columns (:attr:`results`), the next hand's deal with
    ``episode="game"``, and every seat's mask and observation -- written into *new*
    arrays :attr:`masks` ``[P, N]`` int8 and :attr:`obs` ``[P, OBS]`` float32, so what an
    earlier step returned is never overwritten. :meth:`to_game` gives the equivalent
    :class:`NertsGame` (built on demand, cached until the next change); :meth:`load`
    installs one. The stacked-deck test hook of a loaded game is honoured for its later
    hands.
    """

    def __init__(self, params: KernelParams) -> None:
        self.params = params
        self.config = config = params.config
        self.num_players = p = config.num_players
        n = params.n_actions
        self.row = np.zeros(K.ROW, dtype=np.int32)
        self.ids = np.zeros((p, n), dtype=np.int16)
        self.counts = np.zeros(p, dtype=np.int64)
        self.rewards = np.zeros(K.MAX_P, dtype=np.float64)
        self.results = np.zeros(K.NUM_RESULTS, dtype=np.int32)
        self.acts = np.zeros(K.MAX_P, dtype=np.int64)
        self.masks = np.zeros((p, n), dtype=np.int8)
        self.obs = np.zeros((p, params.obs_size), dtype=np.float32)
        self.seed = 0
        self.hand_results: list[HandResult] = []
        self.stacked_decks: dict[int, dict[int, tuple[int, ...]]] = {}
        self._decks = np.zeros((K.MAX_P, K.MAX_DECK), dtype=np.int32)
        self._next_bits = 0
        self._sc = np.zeros(K.SCRATCH, dtype=np.int64)
        self._game: NertsGame | None = None
        head = params.args()
        self._head = head
        self._step = K.entry_point(
            K.single_step,
            self.row,
            *head,
            self.acts,
            self.seed,
            self.rewards,
            self.results,
            self._decks,
            0,
            self.masks,
            self.ids,
            self.counts,
            self.obs,
            self._sc,
        )
        self._emit = K.entry_point(
            K.single_emit, self.row, *head, self.masks, self.ids, self.counts, self.obs, self._sc
        )
        self._state_size = StateEncoder(config).size

    # Copies and pickles: the state, into a kernel game built afresh (the compiled entry
    # points are not copied).
    _ARRAYS = ("row", "ids", "counts", "rewards", "results", "masks", "obs", "_decks")

    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name).copy() for name in self._ARRAYS}
        state.update(params=self.params, seed=self.seed, next_bits=self._next_bits)
        state.update(hand_results=list(self.hand_results), stacked=self.stacked_decks)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["params"])
        for name in self._ARRAYS:
            setattr(self, name, state[name].copy())
        self.seed = state["seed"]
        self._next_bits = state["next_bits"]
        self.hand_results = list(state["hand_results"])
        self.stacked_decks = {h: dict(d) for h, d in state["stacked"].items()}

    def _new_buffers(self) -> None:
        self.masks = np.empty_like(self.masks)
        self.obs = np.empty_like(self.obs)

    def _emit_now(self) -> None:
        self._new_buffers()
        self._emit(self.row, *self._head, self.masks, self.ids, self.counts, self.obs, self._sc)
        self._game = None
        self._prepare_next_hand()

    def _prepare_next_hand(self) -> None:
        """The stacked decks (test hook) of the hand after this one, if any."""
        if self.stacked_decks:
            decks, self._next_bits = stacked_deck_rows(
                self.config, self.stacked_decks, int(self.row[K.C_HAND]) + 1
            )
            self._decks[...] = decks
        else:
            self._next_bits = 0

    def reset(self, seed: int) -> None:
        """``NertsGame(config, seed)``."""
        self.seed = int(seed)
        self.hand_results = []
        self.stacked_decks = {}
        K.new_game(self.row, self.params.prm, self.num_players, self.seed, self._decks, 0)
        self._emit_now()

    def load(self, game: NertsGame) -> None:
        """Install ``game`` (any position of this config, e.g. from the test hook)."""
        if game.config != self.config:
            raise ValueError("the game's config differs from this kernel game's")
        row = np.zeros_like(self.row)
        write_game(game, row)  # raises before anything changes
        self.row[:] = row
        self.seed = game.seed
        self.hand_results = list(game.hand_results)
        self.stacked_decks = {h: dict(d) for h, d in game.stacked_decks.items()}
        self._emit_now()

    def scores(self) -> list[int]:
        """N30 hand scores on the current state."""
        r = self.row
        p = self.num_players
        found = r[K.S_FOUND : K.S_FOUND + p]
        return (found - 2 * r[K.S_NLEN : K.S_NLEN + p]).tolist()

    def step(self, actions: Sequence[int]) -> int:
        """One step with ``actions`` (legal, one per seat; not checked here). Returns the
        kernel's code: 0, 1 (the episode ended) or 2 (the next hand was dealt)."""
        acts = self.acts
        for s, a in enumerate(actions):
            acts[s] = a
        self._new_buffers()
        code = self._step(
            self.row,
            *self._head,
            acts,
            self.seed,
            self.rewards,
            self.results,
            self._decks,
            self._next_bits,
            self.masks,
            self.ids,
            self.counts,
            self.obs,
            self._sc,
        )
        self._game = None
        if self.results[K.R_HAND_OVER]:
            self.hand_results.append(hand_result(self.results, self.num_players))
            if code == 2:
                self._prepare_next_hand()
        return code

    def to_game(self) -> NertsGame:
        """The :class:`NertsGame` of the current state (cached until the next change)."""
        if self._game is None:
            self._game = read_game(
                self.row, self.config, self.seed, self.hand_results, self.stacked_decks
            )
        return self._game

    def state(self) -> np.ndarray:
        """``StateEncoder.encode`` of the current state (a new float32 array)."""
        out = np.empty(self._state_size, dtype=np.float32)
        K.write_state(self.row, *self._head, out)
        return out


# ---------------------------------------------------------------------- B games
def _read_only(array: np.ndarray) -> np.ndarray:
    view = array.view()
    view.flags.writeable = False
    return view


class StepResult(NamedTuple):
    """What :meth:`NertsVectorEngine.step` returns (see the module docstring)."""

    obs: np.ndarray | None
    masks: np.ndarray
    rewards: np.ndarray
    dones: np.ndarray
    info: dict[str, np.ndarray]


def _seat_counts(value: object) -> tuple[int, ...]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        values = [value]
    elif isinstance(value, Sequence) and not isinstance(value, str) and len(value) > 0:
        values = list(value)
    else:
        raise ValueError(
            f"num_players={value!r} is not allowed: an int or a non-empty sequence of "
            f"ints {MIN_PLAYERS}..{MAX_PLAYERS}"
        )
    return tuple(check_int("num_players", v, MIN_PLAYERS, MAX_PLAYERS) for v in values)


class NertsVectorEngine:
    """``batch_size`` Nerts games stepped together (see the module docstring)."""

    def __init__(
        self,
        config: NertsConfig | None = None,
        batch_size: int = 1,
        *,
        num_players: int | Sequence[int] | None = None,
        players_per_slot: Sequence[int] | None = None,
        reward_mode: str = "relative",
        episode: str = "hand",
        observations: str = "seats",
    ) -> None:
        if config is None:
            config = NertsConfig()
        if not isinstance(config, NertsConfig):
            raise ValueError(f"config must be a NertsConfig, got {type(config).__name__}")
        self.config = config
        self.batch_size = b = check_int("batch_size", batch_size, 1, 2**31 - 1)
        self.observation_mode = _choice("observations", observations, OBSERVATION_MODES)
        self.choices = _seat_counts(config.num_players if num_players is None else num_players)
        slot_n = np.zeros(b, dtype=np.int64)
        if players_per_slot is not None:
            if isinstance(players_per_slot, str) or not isinstance(players_per_slot, Sequence):
                raise ValueError("players_per_slot must be a sequence of seat counts")
            if len(players_per_slot) != b:
                raise ValueError(
                    f"players_per_slot has {len(players_per_slot)} entries, batch_size is {b}"
                )
            slot_n[:] = [
                check_int("players_per_slot", n, MIN_PLAYERS, MAX_PLAYERS) for n in players_per_slot
            ]
        self._slot_n = slot_n
        self.params = KernelParams(config, reward_mode, episode)
        self.reward_mode = self.params.reward_mode
        self.episode = self.params.episode
        self.n_actions = n = self.params.n_actions
        self.observation_size = self.params.obs_size
        self._table = self.params.table
        self._configs = {p: config.replace(num_players=p) for p in range(2, 7)}
        self._st = np.zeros((b, K.ROW), dtype=np.int32)
        self._ids = np.zeros((b, K.MAX_P, n), dtype=np.int16)
        self._counts = np.zeros((b, K.MAX_P), dtype=np.int64)
        self._masks = np.zeros((b, K.MAX_P, n), dtype=np.int8)
        rows = _OBS_ROWS[self.observation_mode]
        self._obs_rows = rows
        self._obs_shape = (b, max(rows, 1), self.observation_size)
        self._obs = np.zeros(self._obs_shape if rows else (b, 1, 1), dtype=np.float32)
        self._seeds = np.zeros(b, dtype=np.int64)
        self._key0 = np.zeros(b, dtype=np.int64)
        self._episodes = np.zeros(b, dtype=np.int64)
        self._choices = np.array(self.choices, dtype=np.int64)
        self._decks = np.zeros((K.MAX_P, K.MAX_DECK), dtype=np.int32)
        self._sc = np.zeros(K.SCRATCH, dtype=np.int64)
        self._hand_results: list[list[HandResult]] = [[] for _ in range(b)]
        self._started = False
        self.seed: int | None = None
        self._rotation: dict[int, np.ndarray] = {}

    # ------------------------------------------------------------------ read-only views
    @property
    def num_players(self) -> np.ndarray:
        """Seat count of the game now in each slot, ``[B]`` int64."""
        return self._st[:, K.C_P].astype(np.int64)

    @property
    def game_seeds(self) -> np.ndarray:
        """Seed of the game now in each slot (``NertsGame(config, seed)``), ``[B]`` int64."""
        return self._seeds.copy()

    @property
    def episodes(self) -> np.ndarray:
        """Index ``e`` of the game now in each slot within its stream, ``[B]`` int64."""
        return self._episodes.copy()

    @property
    def legal_counts(self) -> np.ndarray:
        """How many actions each seat may take now, ``[B, 6]`` int64 (0: absent seat)."""
        return self._counts.copy()

    def legal_mask(self) -> np.ndarray:
        """The current masks, ``[B, 6, N]`` int8 (a copy)."""
        self._require_reset()
        return self._masks.copy()

    def compiled_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(rows [B, ROW] int32, prm, ids [B, 6, N] int16, counts [B, 6] int64)``: the
        engine's own buffers (not copies), for compiled code that reads the games where
        they are -- the compiled bots of :mod:`agents.nerts._bot_kernels` decide from them.
        ``ids[b, s, :counts[b, s]]`` are seat ``s``'s legal ids, ascending. Read only: a
        write corrupts the games."""
        self._require_reset()
        return self._st, self.params.prm, self._ids, self._counts

    def game(self, b: int) -> NertsGame:
        """Slot ``b``'s current game as a :class:`NertsGame` (equal state, last step and
        hand results to the engine's game that played the same actions)."""
        self._require_reset()
        b = check_int("b", b, 0, self.batch_size - 1)
        config = self._configs[int(self._st[b, K.C_P])]
        return read_game(self._st[b], config, int(self._seeds[b]), self._hand_results[b])

    def load_slot(self, b: int, game: NertsGame, episode: int) -> None:
        """Put ``game`` (a position of this batch's rules with that slot's seat count) into
        slot ``b`` as game ``episode`` of the slot's stream, as if the slot had played to it
        (a trainer resuming a run replays each slot's game on the Python engine and loads
        it here). The slot's later games follow its stream from ``episode + 1``; its
        observations and masks are rewritten. ``ValueError`` before anything changes if the
        game does not fit."""
        self._require_reset()
        b = check_int("b", b, 0, self.batch_size - 1)
        episode = check_int("episode", episode, 0, 2**62)
        if not isinstance(game, NertsGame) or game.config != self._configs.get(game.num_players):
            raise ValueError("the game's rules differ from this batch's")
        if self._slot_n[b] and game.num_players != self._slot_n[b]:
            raise ValueError(
                f"slot {b} plays {self._slot_n[b]} seats, the game has {game.num_players}"
            )
        if game.stacked_decks:
            raise ValueError("a game with stacked decks cannot be loaded into the batch")
        row = np.zeros_like(self._st[b])
        write_game(game, row)  # raises before anything changes
        self._st[b] = row
        self._seeds[b] = game.seed
        self._episodes[b] = episode
        self._hand_results[b] = list(game.hand_results)
        K.emit_batch(
            self._st, *self.params.args(), self._masks, self._ids, self._counts, self._obs,
            self._obs_rows, self._sc,
        )  # fmt: skip

    # ------------------------------------------------------------------ episodes
    def reset(
        self, seed: int | None = None, *, seeds: Sequence[int] | None = None
    ) -> tuple[np.ndarray | None, np.ndarray]:
        """Start a game in every slot (see *Seeds*); returns ``(obs, masks)``."""
        b = self.batch_size
        if seeds is not None:
            if seed is not None:
                raise ValueError("pass either seed or seeds, not both")
            if isinstance(seeds, (str, bytes)) or not hasattr(seeds, "__len__"):
                raise ValueError("seeds must be a sequence of batch_size non-negative integers")
            if len(seeds) != b:
                raise ValueError(f"seeds has {len(seeds)} entries, batch_size is {b}")
            first = [check_int("seeds[...]", s, 0, MAX_SEED - 1) for s in seeds]
            keys = first
            self.seed = None
        else:
            if seed is None:
                seed = rng.entropy_seed()
            seed = check_int("seed", seed, 0, MAX_SEED - 1)
            keys = [seed] * b
            first = None
            self.seed = seed
        self._key0[:] = keys
        self._episodes[:] = 0
        prm = self.params.prm
        for slot in range(b):
            game_seed, choice = rng.game_stream(keys[slot], slot, 0, len(self.choices))
            if first is not None:
                game_seed = first[slot]
            n = int(self._slot_n[slot]) or self.choices[int(choice)]
            self._seeds[slot] = int(game_seed)
            K.new_game(self._st[slot], prm, n, int(game_seed), self._decks, 0)
        self._hand_results = [[] for _ in range(b)]
        self._started = True
        K.emit_batch(
            self._st,
            *self.params.args(),
            self._masks,
            self._ids,
            self._counts,
            self._obs,
            self._obs_rows,
            self._sc,
        )
        return self._out_obs(), _read_only(self._masks)

    def _out_obs(self) -> np.ndarray | None:
        """A read-only view of the observation buffer (``None`` without observations)."""
        if self._obs_rows == 0:
            return None
        return _read_only(self._obs[:, 0] if self._obs_rows == 1 else self._obs)

    def _require_reset(self) -> None:
        if not self._started:
            raise RuntimeError("call reset() before using the games")

    # ------------------------------------------------------------------ stepping
    def _check_actions(self, actions: Any) -> np.ndarray:
        """``[B, 6]`` int64 actions, absent seats zeroed; ``ValueError`` (nothing changes)
        for a wrong shape or type or an action outside a present seat's mask."""
        b = self.batch_size
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise ValueError(
                f"actions must be an integer array of shape ({b}, 6), got dtype {arr.dtype}"
            )
        if arr.shape != (b, K.MAX_P):
            raise ValueError(f"actions must have shape ({b}, 6), got {arr.shape}")
        present = np.arange(K.MAX_P)[None, :] < self._st[:, K.C_P][:, None]
        acts = np.where(present, arr, 0).astype(np.int64)
        bad = (acts < 0) | (acts >= self.n_actions)
        if bad.any():
            g, s = (int(x[0]) for x in np.nonzero(bad))
            raise ValueError(
                f"game {g}, seat {s}: action {int(acts[g, s])} is outside the action table "
                f"0..{self.n_actions - 1}"
            )
        ok = np.take_along_axis(self._masks, acts[:, :, None], axis=2)[:, :, 0] | ~present
        if not ok.all():
            g, s = (int(x[0]) for x in np.nonzero(ok == 0))
            a = int(acts[g, s])
            legal = np.flatnonzero(self._masks[g, s])
            names = ", ".join(f"{x} ({self._table.name(int(x))})" for x in legal)
            raise ValueError(
                f"game {g}, seat {s}: action {a} ({self._table.name(a)}) is not legal "
                f"(N18); legal actions: {names}"
            )
        return acts

    def step(self, actions: Any) -> StepResult:
        """Apply ``actions[b, seat]`` (int ``[B, 6]``) to every game (see the module
        docstring for what comes back)."""
        self._require_reset()
        acts = self._check_actions(actions)
        b = self.batch_size
        rew = np.empty((b, K.MAX_P), dtype=np.float32)
        res = np.empty((b, K.NUM_RESULTS), dtype=np.int32)
        seeds = self._seeds.copy()
        players = self._st[:, K.C_P].copy()
        K.step_batch(
            self._st,
            *self.params.args(),
            acts,
            self._seeds,
            self._key0,
            self._episodes,
            self._choices,
            self._slot_n,
            rew,
            res,
            self._decks,
            self._masks,
            self._ids,
            self._counts,
            self._obs,
            self._obs_rows,
            self._sc,
        )
        ended = np.flatnonzero(res[:, K.R_HAND_OVER])
        for g in ended.tolist():
            self._hand_results[g].append(hand_result(res[g], int(players[g])))
            if res[g, K.R_DONE]:
                self._hand_results[g] = []
        info = self._info(res, seeds, players)
        dones = res[:, K.R_DONE] != 0
        return StepResult(self._out_obs(), _read_only(self._masks), rew, dones, info)

    @staticmethod
    def _info(res: np.ndarray, seeds: np.ndarray, players: np.ndarray) -> dict[str, np.ndarray]:
        def seats(col: int) -> np.ndarray:
            return res[:, col : col + K.MAX_P]

        return {
            "hand": res[:, K.R_HAND],
            "step": res[:, K.R_STEP],
            "hand_over": res[:, K.R_HAND_OVER],
            "end_reason": res[:, K.R_END],
            "remedy": res[:, K.R_REMEDY],
            "game_over": res[:, K.R_GAME_OVER],
            "terminated": (res[:, K.R_DONE] != 0) & (res[:, K.R_TRUNC] == 0),
            "truncated": res[:, K.R_TRUNC] != 0,
            "hand_scores": seats(K.R_SCORES),
            "totals": seats(K.R_TOTALS),
            "blocked": seats(K.R_BLOCKED),
            "priority": seats(K.R_PRIO_POS),
            "progress": seats(K.R_PROG_BY),
            "won": seats(K.R_WON),
            "called": seats(K.R_CALLED),
            "num_players": players.astype(np.int32),
            "game_seed": seeds,
        }

    def sample_actions(self, gen: np.random.Generator) -> np.ndarray:
        """A uniformly random legal action for every seat, ``[B, 6]`` int64 (0 for absent
        seats), drawn with ``gen`` (for tests, demos and benchmarks)."""
        self._require_reset()
        u = gen.random((self.batch_size, K.MAX_P))
        out = np.empty((self.batch_size, K.MAX_P), dtype=np.int64)
        K.sample_batch(self._counts, self._ids, u, out)
        return out

    # ------------------------------------------------------------------ observations
    def observations(self) -> np.ndarray:
        """Every seat's observation of the current state, ``[B, 6, OBS]`` float32 (new)."""
        self._require_reset()
        out = np.empty((self.batch_size, K.MAX_P, self.observation_size), dtype=np.float32)
        K.observe_batch(self._st, *self.params.args(), out)
        return out

    def rotation_index(self, num_players: int) -> np.ndarray:
        """``[6, OBS + 1]`` int64 gather indices: seat ``s``'s observation of a
        ``num_players`` game is ``table_ext[index[s, :OBS]]`` where ``table_ext`` is the
        ``"table"`` row with one 0 appended (index ``OBS`` picks it: padded seats)."""
        p = check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
        if p not in self._rotation:
            size = self.observation_size
            table = np.arange(size, dtype=np.float64)
            out = np.full((K.MAX_P, size), size, dtype=np.int64)
            prm = self.params.prm
            rotated = np.empty(size, dtype=np.float64)
            for s in range(p):
                K.rotate(table, p, s, prm, rotated)
                out[s] = rotated.astype(np.int64)
            self._rotation[p] = out
        return self._rotation[p]

    def expand(self, tables: np.ndarray, num_players: np.ndarray) -> np.ndarray:
        """``[B, 6, OBS]`` observations from ``"table"`` rows ``[B, OBS]`` and each game's
        seat count (``info["num_players"]`` or :attr:`num_players` of the same step)."""
        tables = np.asarray(tables, dtype=np.float32)
        n = np.asarray(num_players)
        ext = np.concatenate([tables, np.zeros((tables.shape[0], 1), np.float32)], axis=1)
        out = np.empty((tables.shape[0], K.MAX_P, self.observation_size), dtype=np.float32)
        for p in np.unique(n).tolist():
            rows = np.flatnonzero(n == p)
            out[rows] = ext[rows[:, None, None], self.rotation_index(p)[None]]
        return out
