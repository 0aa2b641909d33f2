"""ExpertRolloutAgent: one step of policy improvement over Expert, by Expert-played rollouts.

At each decision that has a choice (draw, place, displaced card, hazard flip; the opening
flips are Expert's) the agent

1. samples ``samples`` complete games consistent with its own
   :class:`~gnome_env.gnoming.information.SeatView`
   (:func:`gnome_env.gnoming.information.sample_game`:
   the unseen cards dealt at random, a fresh seed for later reshuffles -- the true hidden
   cards are never looked at), and installs each into a kernel row
   (:func:`gnome_env.gnoming.vector.write_game_row`);
2. for every legal action, plays it in every sample and then plays the round out on the
   compiled kernels with **every seat playing Expert** (:mod:`agents.gnoming.expert_kernel`, each
   seat deciding from its own observation tokens), the same sample and seed for every
   action (common random numbers);
3. values the end of the round for its seat: the other seats' mean round score minus its
   own (R22), plus ``WIN_WEIGHT`` times its share of the win if the game ended (R23);
4. takes the action with the best mean value, unless it beats Expert's own action by less
   than ``margin`` points, in which case it plays Expert's action.

So against Expert opponents the rollouts simulate exactly the opponents it meets, and the
agent is Expert wherever the samples see no clear gain. The decision depends only on the
seat's view and the agent's seed (deterministic; no time budget). Spec strings:
``rollout`` (defaults) or ``rollout:SAMPLES``. Needs numba (the kernels compiled).
"""

from __future__ import annotations

import numpy as np

from agents.gnoming.base import BotAgent
from agents.gnoming.expert_kernel import expert_decide, expert_tables
from agents.gnoming.net_kernel import net_action
from gnome_env.gnoming import _kernels as K
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.information import SeatView, sample_game
from gnome_env.gnoming.vector import VectorGame, write_game_row

WIN_WEIGHT = 30.0
SEARCHED = (Phase.DRAW, Phase.PLACE, Phase.DISPLACED, Phase.HAZARD_FLIP)


@K.maybe_njit
def advance(g, cards, action, prm, kcode, canon, seed, rew, res):
    """Apply a legal ``action``; supply a reshuffle (R8) if one is needed. True when the
    round (or the game) ended."""
    need = K.apply_action(g, cards, action, prm, kcode, rew, res)
    if need == K.NEED_RESHUFFLE:
        g[K.C_NEED] = need
        K.supply_shuffle(g, cards, seed, canon, prm)
        K.resume_game(g, cards, prm)
        return False
    return need != 0


@K.maybe_njit
def load_row(g, cards, row, stack):
    """Copy a sample's row and card stacks into the working arrays."""
    for j in range(g.shape[0]):
        g[j] = row[j]
    for i in range(cards.shape[0]):
        for j in range(cards.shape[1]):
            cards[i, j] = stack[i, j]


@K.maybe_njit
def round_value(res, seat, n, win_weight):
    """The rollout's value for ``seat`` from the round-end results ``res``."""
    mine = res[K.R_ROUND_SCORES + seat]
    others = 0.0
    for s in range(n):
        if s != seat:
            others += res[K.R_ROUND_SCORES + s]
    value = others / (n - 1) - mine
    if res[K.R_DONE] != 0:
        winners = 0
        for s in range(n):
            winners += res[K.R_WINNERS + s]
        if res[K.R_WINNERS + seat] != 0:
            value += win_weight / winners
    return value


@K.maybe_njit
def evaluate(
    rows, stacks, seeds, candidates, seat, prm, kcode, kcount, canon,
    g, cards, tokens, legal, rew, res, wf, wi, win_weight, values, max_steps=0, min_samples=1,
    net=None,
):  # fmt: skip
    """``values[i, c]``: the value of candidate ``c`` in sample ``i`` (rows[i], stacks[i]):
    the candidate, then every seat plays Expert to the end of the round -- or, with
    ``net`` = ``(tables, scratch)`` (:mod:`agents.gnoming.net_kernel`), ``seat`` plays that
    network's most likely action and the other seats Expert. Returns the number of
    samples done: all of them, or (``max_steps`` > 0) the samples done before the rollouts
    had taken ``max_steps`` decisions in all, at least ``min_samples`` (a budget that does
    not depend on the machine)."""
    n = rows[0, K.C_N]
    steps = 0
    for i in range(rows.shape[0]):
        if max_steps > 0 and i >= min_samples and steps >= max_steps:
            return i
        for c in range(candidates.shape[0]):
            load_row(g, cards, rows[i], stacks[i])
            for s in range(rew.shape[0]):
                rew[s] = 0.0
            for j in range(res.shape[0]):
                res[j] = 0
            ended = advance(g, cards, candidates[c], prm, kcode, canon, seeds[i], rew, res)
            while not ended:
                K.write_legal(g, cards, prm, kcode, legal)
                K.write_seat_tokens(g, cards, prm, kcode, kcount, g[K.C_SEAT], tokens)
                if net is not None and g[K.C_SEAT] == seat:
                    action = net_action(tokens, legal, wf, wi, net[0], net[1])
                else:
                    action = expert_decide(tokens, legal, wf, wi)
                ended = advance(g, cards, action, prm, kcode, canon, seeds[i], rew, res)
                steps += 1
            values[i, c] = round_value(res, seat, n, win_weight)
    return rows.shape[0]


@K.maybe_njit
def root_expert(row, stack, prm, kcode, kcount, g, cards, tokens, legal, wf, wi):
    """Expert's action at the root (the seat's tokens are the same in every sample)."""
    load_row(g, cards, row, stack)
    K.write_legal(g, cards, prm, kcode, legal)
    K.write_seat_tokens(g, cards, prm, kcode, kcount, g[K.C_SEAT], tokens)
    return expert_decide(tokens, legal, wf, wi)


def rollout_buffers(rules: RulesConfig) -> tuple:
    """What :func:`evaluate` works in, for games under ``rules``: a one-game
    :class:`~gnome_env.gnoming.vector.VectorGame` (its tables), a state row, card stacks, token
    and legal-mask buffers, reward and result buffers, and Expert's own tables."""
    vec = VectorGame(rules, 1)
    wf, wi, num_tokens = expert_tables(rules)
    return (
        vec,
        np.zeros(vec._st.shape[1], dtype=vec._st.dtype),
        np.zeros(vec._stk.shape[1:], dtype=vec._stk.dtype),
        np.zeros(num_tokens, dtype=np.int16),
        np.zeros(33, dtype=np.bool_),
        np.zeros(7, dtype=np.float64),
        np.zeros(K.NUM_RESULTS, dtype=np.int32),
        wf.copy(),
        wi.copy(),
    )


def write_samples(
    view: SeatView, rng: np.random.Generator, rows: np.ndarray, stacks: np.ndarray,
    seeds: np.ndarray, kind: np.ndarray,
) -> None:  # fmt: skip
    """Fill ``rows[i]``, ``stacks[i]`` and ``seeds[i]`` with ``len(rows)`` complete games
    sampled from ``view`` (:func:`gnome_env.gnoming.information.sample_game`, drawn from ``rng`` in
    order), as kernel rows for :func:`evaluate`; ``kind`` is the VectorGame's card table."""
    for i in range(len(rows)):
        game = sample_game(view, rng)
        write_game_row(game, rows[i], stacks[i], kind)
        seeds[i] = game.seed


class ExpertRolloutAgent(BotAgent):
    """Expert improved by one step of Expert-played rollouts (see the module docstring)."""

    def __init__(
        self,
        seed: int | None = None,
        config: RulesConfig | None = None,
        samples: int = 8,
        margin: float = 0.5,
        win_weight: float = WIN_WEIGHT,
    ) -> None:
        super().__init__(seed, config)
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ValueError(f"samples={samples!r} is not allowed: must be an integer >= 1")
        if not K.COMPILED:
            raise ValueError("the rollout agent needs numba (the compiled kernels)")
        self.samples = samples
        self.margin = float(margin)
        self.win_weight = float(win_weight)
        self._tables: dict[RulesConfig, tuple] = {}

    def _buffers(self, rules: RulesConfig) -> tuple:
        hit = self._tables.get(rules)
        if hit is None:
            hit = self._tables[rules] = (*rollout_buffers(rules), len(rules.deck.kinds))
        return hit

    def decide(self, view: SeatView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        rules = view.config
        vec, g, cards, tokens, mask, rew, res, wf, wi, _ = self._buffers(rules)
        k = self.samples
        rows = np.zeros((k, g.shape[0]), dtype=g.dtype)
        stacks = np.zeros((k, *cards.shape), dtype=cards.dtype)
        seeds = np.zeros(k, dtype=np.int64)
        write_samples(view, self.rng, rows, stacks, seeds, vec._kind)
        prm, kcode, kcount, canon = vec._prm, vec._kcode, vec._kcount, vec._canon
        expert = int(
            root_expert(rows[0], stacks[0], prm, kcode, kcount, g, cards, tokens, mask, wf, wi)
        )
        if view.phase not in SEARCHED:
            return expert
        candidates = np.array(legal, dtype=np.int64)
        values = np.zeros((k, len(legal)), dtype=np.float64)
        evaluate(
            rows, stacks, seeds, candidates, view.seat, prm, kcode, kcount, canon,
            g, cards, tokens, mask, rew, res, wf, wi, self.win_weight, values,
        )  # fmt: skip
        means = values.mean(axis=0)
        best = int(np.argmax(means))
        if means[best] - means[legal.index(expert)] <= self.margin:
            return expert
        return legal[best]

    def __repr__(self) -> str:
        return f"ExpertRolloutAgent(samples={self.samples}, margin={self.margin})"
