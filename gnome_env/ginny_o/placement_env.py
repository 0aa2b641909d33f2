"""Ginny-O with a whole turn per action: choose a listed placement, a return or a pass.

:class:`GinnyPlacementEnv` wraps the single-seat Gymnasium env
(:class:`gnome_env.ginny_o.gym_env.GinnySingleSeatEnv`, one learner seat, the others bots or
policies) so that one ``step`` is one whole turn of the learner. Over the 1,864 atomic ids a
placement is a sequence of PLACE, DECLARE and COMMIT steps, and a policy has to discover
what a placement scores; here it picks among the placements themselves, each described by
features that include its score (issue #32, item 4: a second action mode, to be measured
against the atomic one).

Actions (``Discrete(K + 10)``, ``K`` = ``max_candidates``, default :data:`MAX_CANDIDATES`):

=============  ===========================================================================
action         what the learner does this turn
=============  ===========================================================================
0 .. K-1       play candidate ``k``: the legal placements of this decision point ordered by
               score, highest first (ties: the move generator's order), the first ``K`` of
               them; the placement's canonical atomic sequence is played (G18-G28)
K .. K+7       return the tile in rack slot ``s = a - K`` alone, then redraw (G14)
K+8            return every tile of the rack, then redraw (G14)
K+9            pass (G14: only when the box is empty and nothing was drawn)
=============  ===========================================================================

``action_masks()`` is exact for this action set: an action is legal exactly when its atomic
sequence is legal in the game now. What the set leaves out, and a policy here can never do:
a placement ranked below the ``K`` best by score (``info["placements"]`` says how many there
were), and returns of 2..7 chosen tiles. With ``max_placements`` > 1 (G14) a turn holds
several placements, which this action set does not model: the wrapper refuses that rule.

Observation (``Dict``), from the learner's own view only (G17: the board, the scores, the
box size, every rack's size and its own rack; ``tests/ginny_o/test_ginny_placement_env.py``
re-deals the hidden tiles and checks nothing changes):

* ``"candidates"``: float32 ``[K, F]``, one row per candidate (zeros past the last one), the
  features :data:`CANDIDATE_FEATURES`: the placement's score (G28) / 100, tiles placed / 8,
  jokers placed, the premium squares it covers (red, blue, yellow, green: first covered,
  G26), and the rack it leaves -- real tiles kept / 8, jokers kept, pairs kept that are two
  thirds of a set and of a run (adjacent positions), the G30 penalty of the kept tiles /
  100 -- and 1 in the last column (a real row);
* ``"context"``: float32 ``[C]`` (:data:`CONTEXT_FEATURES`): own score and the opponents'
  mean / 1000, the margin / 100, the box size / 108, the turn / turn cap, own rack size /
  8, jokers and G30 penalty of the rack, whether it drew this turn, how many placements
  were legal / 100 and whether the list was cut at ``K``.

``step`` returns the learner's rewards summed over its turn and the opponents' turns after
it (the single-seat env's ``reward_mode``); ``info`` is the single-seat env's info plus
``placements`` (legal placements at the new decision point) and ``atomic_actions`` (the ids
the turn played). Seeding, opponents and episode ends are the single-seat env's: the same
reset seed gives the same game, and a game played here equals the single-seat env played
with the same atomic ids.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from gnome_env.core.spaces import LegalActionSpace
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import BLUE, GREEN, RED, SQUARE, YELLOW, run_positions
from gnome_env.ginny_o.cards import JOKER, penalty_value, rank_of, suit_of
from gnome_env.ginny_o.config import MAX_SLOTS
from gnome_env.ginny_o.gym_env import GinnySingleSeatEnv
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.movegen import Placement

#: Placements offered at most (the best by score).
MAX_CANDIDATES = 48
CANDIDATE_FEATURES = (
    "score",
    "tiles",
    "jokers",
    "red",
    "blue",
    "yellow",
    "green",
    "kept_tiles",
    "kept_jokers",
    "kept_set_pairs",
    "kept_run_pairs",
    "kept_penalty",
    "present",
)
CONTEXT_FEATURES = (
    "own_score",
    "opponents_score",
    "margin",
    "box",
    "turn",
    "rack_size",
    "rack_jokers",
    "rack_penalty",
    "drew",
    "placements",
    "cut",
)
#: Actions after the ``K`` candidates: 8 single-slot returns, return all, pass.
RETURN_ONE, RETURN_ALL, PASS = 0, MAX_SLOTS, MAX_SLOTS + 1
NUM_OTHER = MAX_SLOTS + 2
_PREMIUMS = (RED, BLUE, YELLOW, GREEN)


def _pairs(tiles: list[int]) -> tuple[int, int]:
    """(set pairs, run pairs) among real tiles: same rank in different suits; same suit at
    adjacent run positions (G9, G10)."""
    sets = runs = 0
    for i, a in enumerate(tiles):
        for b in tiles[i + 1 :]:
            if a == b:
                continue
            if rank_of(a) == rank_of(b):
                sets += 1
            elif suit_of(a) == suit_of(b):
                gap = min(
                    abs(p - q) for p in run_positions(rank_of(a)) for q in run_positions(rank_of(b))
                )
                runs += gap == 1
    return sets, runs


def rack_features(tiles: list[int]) -> tuple[int, int, int, int, int]:
    """(real tiles, jokers, set pairs, run pairs, G30 penalty) of a rack's kinds."""
    real = [t for t in tiles if t != JOKER]
    sets, runs = _pairs(real)
    return len(real), len(tiles) - len(real), sets, runs, sum(penalty_value(t) for t in real)


def candidate_row(view: GinnyView, placement: Placement) -> np.ndarray:
    """The :data:`CANDIDATE_FEATURES` of one placement of the acting seat's ``view``."""
    kept = [t for s, t in enumerate(view.slots) if t >= 0 and not view.slot_used[s]]
    for _, tile, _ in placement.tiles:
        kept.remove(tile)
    real, jokers, sets, runs, penalty = rack_features(kept)
    squares = [SQUARE[c] for c, _, _ in placement.tiles]
    return np.array(
        [
            placement.score / 100.0,
            len(placement.tiles) / 8.0,
            sum(tile == JOKER for _, tile, _ in placement.tiles),
            *(squares.count(kind) for kind in _PREMIUMS),
            real / 8.0,
            jokers,
            sets,
            runs,
            penalty / 100.0,
            1.0,
        ],
        dtype=np.float32,
    )


def candidate_order(view: GinnyView, k: int) -> list[int]:
    """Indices into ``view.placements`` of the candidates: by score, highest first (ties: the
    generator's order), the first ``k``."""
    scores = [p.score for p in view.placements]
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]


def observation(view: GinnyView, k: int, order: list[int]) -> dict[str, np.ndarray]:
    """The observation (module docstring) of ``view`` with the candidates ``order``
    (:func:`candidate_order`; empty once the game is over)."""
    rows = np.zeros((k, len(CANDIDATE_FEATURES)), np.float32)
    for row, i in enumerate(order):
        rows[row] = candidate_row(view, view.placements[i])
    placements = len(view.placements) if order else 0
    seat = view.seat
    own = view.scores[seat]
    others = [s for i, s in enumerate(view.scores) if i != seat]
    opp = float(np.mean(others)) if others else 0.0
    real, jokers, _, _, penalty = rack_features(list(view.rack))
    cap = view.config.max_turns or 1
    context = np.array(
        [
            own / 1000.0,
            opp / 1000.0,
            (own - opp) / 100.0,
            view.box_size / 108.0,
            view.turn / cap,
            (real + jokers) / 8.0,
            jokers,
            penalty / 100.0,
            float(view.drew),
            placements / 100.0,
            float(placements > k),
        ],
        dtype=np.float32,
    )
    return {"candidates": rows, "context": context}


def turn_actions(view: GinnyView, order: list[int], k: int, action: int) -> tuple[int, ...] | None:
    """The atomic ids that whole-turn ``action`` plays from the acting seat's ``view`` (with
    the candidates ``order``, :func:`candidate_order`), or None when it is not legal now."""
    if action < k:
        if action >= len(order):
            return None
        return tuple(view.placement_actions[order[action]])
    other = action - k
    if other < RETURN_ALL:
        seq: tuple[int, ...] = (A.return_slot(other), A.CONFIRM_RETURN)
    elif other == RETURN_ALL:
        filled = [s for s, t in enumerate(view.slots) if t >= 0]
        seq = (*(A.return_slot(s) for s in filled), A.CONFIRM_RETURN)
    elif other == PASS:
        seq = (A.PASS,)
    else:
        return None
    return seq if seq[0] in view.legal_actions else None


def turn_mask(view: GinnyView, order: list[int], k: int) -> np.ndarray:
    """Bool mask over the ``k + 10`` whole-turn actions of ``view``: exactly the legal ones
    (those :func:`turn_actions` gives ids for). A candidate is legal when it exists; every
    other action when its first atomic id is legal, and each of those starts with its own id
    (RETURN(s), or PASS)."""
    out = np.zeros(k + NUM_OTHER, dtype=bool)
    out[: len(order)] = True
    legal = set(view.legal_actions)
    out[k + RETURN_ONE : k + RETURN_ALL] = [A.return_slot(s) in legal for s in range(MAX_SLOTS)]
    out[k + RETURN_ALL] = bool(legal & {A.return_slot(s) for s in range(MAX_SLOTS)})
    out[k + PASS] = A.PASS in legal
    return out


class GinnyPlacementEnv(gymnasium.Wrapper):
    """One whole learner turn per step over a :class:`GinnySingleSeatEnv` (see the module
    docstring). Build it from an env or from the single-seat env's keywords:
    ``GinnyPlacementEnv(num_players=2, opponents=...)``."""

    def __init__(
        self,
        env: GinnySingleSeatEnv | None = None,
        max_candidates: int = MAX_CANDIDATES,
        **single_seat: Any,
    ) -> None:
        if env is None:
            env = GinnySingleSeatEnv(**single_seat)
        elif single_seat:
            raise ValueError(
                f"give either an env or the single-seat env's keywords, not both "
                f"(got {sorted(single_seat)})"
            )
        if not isinstance(env, GinnySingleSeatEnv):
            raise ValueError(f"env={env!r} is not allowed: must be a GinnySingleSeatEnv")
        if (
            isinstance(max_candidates, bool)
            or not isinstance(max_candidates, int)
            or not 1 <= max_candidates <= 512
        ):
            raise ValueError(
                f"max_candidates={max_candidates!r} is not allowed: an integer from 1 to 512"
            )
        limits = {aec.config.max_placements for aec in env.aecs.values()}
        if limits != {1}:
            raise ValueError(
                f"max_placements={max(limits)} is not allowed here: one step is one turn of one "
                "placement (G14 max_placements=1); use the atomic env for more"
            )
        super().__init__(env)
        self.k = max_candidates
        # sample() without a mask draws a legal action (as the single-seat env's space does)
        self.action_space = LegalActionSpace(self.k + NUM_OTHER, self._sample_mask)
        self.observation_space = gymnasium.spaces.Dict(
            {
                "candidates": gymnasium.spaces.Box(
                    -np.inf, np.inf, (self.k, len(CANDIDATE_FEATURES)), np.float32
                ),
                "context": gymnasium.spaces.Box(
                    -np.inf, np.inf, (len(CONTEXT_FEATURES),), np.float32
                ),
            }
        )
        self._order: list[int] = []  # candidate k -> index in view.placements
        self._view: GinnyView | None = None

    # ------------------------------------------------------------------ decision point
    def _decision(self) -> dict[str, np.ndarray]:
        """Read the learner's view, order its placements and build the observation."""
        inner: GinnySingleSeatEnv = self.env.unwrapped
        game = inner.game
        if game.game_over:
            self._view, self._order = None, []
            view = GinnyView.from_game(game, inner.learner_seat, moves=False)
        else:
            view = GinnyView.from_game(game, inner.learner_seat)
            self._view, self._order = view, candidate_order(view, self.k)
        return observation(view, self.k, self._order)

    def _sequence(self, action: int) -> tuple[int, ...] | None:
        """The atomic ids of ``action`` now, or None when it is not legal."""
        if self._view is None:
            return None
        return turn_actions(self._view, self._order, self.k, action)

    def _sample_mask(self) -> np.ndarray | None:
        return None if self._view is None else self.action_masks()

    def action_masks(self) -> np.ndarray:
        """Bool mask over the ``K + 10`` actions: exactly the ones legal now."""
        if self._view is None:
            return np.zeros(self.k + NUM_OTHER, dtype=bool)
        return turn_mask(self._view, self._order, self.k)

    # ------------------------------------------------------------------ episode
    def reset(self, **kwargs: Any) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The single-seat env's reset; the observation of the learner's first turn."""
        _, info = self.env.reset(**kwargs)
        obs = self._decision()
        return obs, self._info(info, ())

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        """Play the learner's whole turn for ``action``, then the opponents' turns."""
        if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
            action = action.item()
        if isinstance(action, np.integer):
            action = int(action)
        size = self.k + NUM_OTHER
        if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < size:
            raise ValueError(f"action {action!r} is not allowed: must be an integer 0..{size - 1}")
        if self._view is None:
            raise gymnasium.error.ResetNeeded("call reset() before step() (or the game is over)")
        seq = self._sequence(action)
        if seq is None:
            legal = np.flatnonzero(self.action_masks()).tolist()
            raise ValueError(
                f"action {action} is not legal now (nothing changed): the legal actions are "
                f"{legal} (0..{self.k - 1} candidates, {self.k}..{self.k + 7} return one slot, "
                f"{self.k + 8} return all, {self.k + 9} pass)"
            )
        total = 0.0
        terminated = truncated = False
        info: dict[str, Any] = {}
        for atomic in seq:
            _, reward, terminated, truncated, info = self.env.step(atomic)
            total += float(reward)
        obs = self._decision()
        return obs, total, terminated, truncated, self._info(info, seq)

    def _info(self, info: dict[str, Any], seq: tuple[int, ...]) -> dict[str, Any]:
        out = {k: v for k, v in info.items() if k != "action_mask"}
        out["placements"] = 0 if self._view is None else len(self._view.placements)
        out["atomic_actions"] = list(seq)
        return out


__all__ = [
    "CANDIDATE_FEATURES",
    "CONTEXT_FEATURES",
    "MAX_CANDIDATES",
    "GinnyPlacementEnv",
    "candidate_order",
    "candidate_row",
    "observation",
    "rack_features",
    "turn_actions",
    "turn_mask",
]
