"""NetSearchAgent: a learned policy checked at decision time by Expert-played rollouts.

The policy network (a ``ppo:PATH`` checkpoint, e.g. ``agents/policies/distill_3to7``)
proposes; determinized rollouts on the compiled kernels decide between its few best
proposals. At each decision with more than one legal action the agent

1. computes the network's action probabilities from its own observation and takes the
   network's choice ``t`` (its most likely action);
2. makes every legal action whose log-probability is within ``window`` of ``t``'s a
   candidate (at most ``max_candidates``, the most likely first). If ``t`` is the only
   one -- the network is sure -- it plays ``t`` without searching. For a network fitted by
   :mod:`training.gnoming.qdistill` a log-probability gap is ``scale`` times the predicted gap in
   points (``scale`` = 0.5 there), so the window of 1 is "predicted at most 2 points
   worse";
3. otherwise samples ``samples`` complete games consistent with its
   :class:`~gnome_env.gnoming.information.SeatView`
   (:func:`gnome_env.gnoming.information.sample_game`:
   unseen cards dealt at random, a fresh seed for later reshuffles; the true hidden cards
   are never looked at), plays each candidate in each sample and the round out on the
   kernels with every seat playing Expert (:func:`agents.gnoming.rollout_search.evaluate`, common
   random numbers across candidates) -- or, with ``rollout_policy="network"``, its own seat
   playing the network's most likely moves (:mod:`agents.gnoming.net_kernel`), so that a candidate
   is valued by what the agent itself will do after it -- and values the end for its
   seat: the other seats' mean round score minus its own (R22), plus ``win_weight``
   points times its share of the win if the rollout ended the game (R23);
4. combines, for each other candidate ``c``, the network's predicted gain over ``t``
   (``(logp[c] - logp[t]) / scale`` points, a prior with standard deviation ``prior_sd``
   points) with the rollouts' mean paired gain (standard error from the paired
   differences) as a normal posterior (precision-weighted mean), and plays the ``c``
   with the largest posterior gain if it is more than ``margin`` points; otherwise ``t``.

So it is the network wherever the network is sure or the rollouts do not outweigh it: a
few noisy rollouts (a paired difference has a standard deviation of 10-18 points) move
the decision only as far as their precision allows. The decision depends only on
the observation and the agent's seed (deterministic; the budget is in samples, not time).

Spec strings: ``netsearch:PATH`` (defaults), ``netsearch:PATH:SAMPLES``, and either with
``:self`` appended (``rollout_policy="network"``: the network plays its own seat in the
rollouts, :mod:`agents.gnoming.net_kernel`). Needs torch and numba.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.gnoming.net_kernel import net_scratch, network_tables
from agents.gnoming.rollout_search import WIN_WEIGHT, evaluate, rollout_buffers, write_samples
from gnome_env.gnoming import _kernels as K
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.information import SeatView

DEFAULT_SAMPLES = 32
DEFAULT_MAX_STEPS = 5000
MIN_SAMPLES = 4
DEFAULT_WINDOW = 1.0
DEFAULT_MAX_CANDIDATES = 3
DEFAULT_SCALE = 0.5
DEFAULT_PRIOR_SD = 1.5
DEFAULT_MARGIN = 0.0
#: Who plays the searching seat's later moves in the rollouts: Expert (the default), or the
#: network itself (agents.gnoming.net_kernel), so that a candidate is valued by what follows it
#: under the policy that will actually play them.
ROLLOUT_POLICIES = ("expert", "network")


def posterior_gain(
    prior: np.ndarray, prior_sd: float, mean: np.ndarray, se: np.ndarray
) -> np.ndarray:
    """The normal posterior mean of a gain with prior ``N(prior, prior_sd**2)`` and a
    measurement ``mean`` with standard error ``se`` (precision-weighted; a zero standard
    error -- identical values in every sample -- takes the measurement)."""
    se2 = np.maximum(np.asarray(se, dtype=np.float64) ** 2, 1e-12)
    w = prior_sd**2 / (prior_sd**2 + se2)  # the measurement's weight
    return (1.0 - w) * prior + w * mean


class NetSearchAgent:
    """A policy network whose close calls are settled by rollouts (module docstring)."""

    spec = "netsearch"

    def __init__(
        self,
        path: str | Path,
        seed: int | None = None,
        config: RulesConfig | None = None,
        samples: int = DEFAULT_SAMPLES,
        max_steps: int = DEFAULT_MAX_STEPS,
        window: float = DEFAULT_WINDOW,
        max_candidates: int = DEFAULT_MAX_CANDIDATES,
        scale: float = DEFAULT_SCALE,
        prior_sd: float = DEFAULT_PRIOR_SD,
        margin: float = DEFAULT_MARGIN,
        win_weight: float = WIN_WEIGHT,
        from_round: int = 1,
        rollout_policy: str = "expert",
    ) -> None:
        from agents.gnoming.learned import PolicyAgent

        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 2:
            raise ValueError(f"samples={samples!r} is not allowed: must be an integer >= 2")
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or max_steps < 0:
            raise ValueError(
                f"max_steps={max_steps!r} is not allowed: an integer >= 0 (0: no limit)"
            )
        if (
            isinstance(max_candidates, bool)
            or not isinstance(max_candidates, int)
            or max_candidates < 1
        ):
            raise ValueError(
                f"max_candidates={max_candidates!r} is not allowed: must be an integer >= 1"
            )
        for name, value in (("window", window), ("margin", margin)):
            if not np.isfinite(value) or value < 0:
                raise ValueError(f"{name}={value!r} is not allowed: must be a number >= 0")
        for name, value in (("scale", scale), ("prior_sd", prior_sd)):
            if not np.isfinite(value) or value <= 0:
                raise ValueError(f"{name}={value!r} is not allowed: must be a number > 0")
        if isinstance(from_round, bool) or not isinstance(from_round, int) or from_round < 1:
            raise ValueError(f"from_round={from_round!r} is not allowed: an integer >= 1")
        if rollout_policy not in ROLLOUT_POLICIES:
            raise ValueError(
                f"rollout_policy={rollout_policy!r} is not allowed: one of {ROLLOUT_POLICIES}"
            )
        if not K.COMPILED:
            raise ValueError("the netsearch agent needs numba (the compiled kernels)")
        self.config = config if config is not None else RulesConfig()
        self.policy = PolicyAgent.load(path, seed=seed, config=self.config)
        self.path = str(path)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.samples = samples
        self.max_steps = max_steps
        self.window = float(window)
        self.max_candidates = max_candidates
        self.scale = float(scale)
        self.prior_sd = float(prior_sd)
        self.margin = float(margin)
        self.win_weight = float(win_weight)
        self.from_round = from_round
        self.rollout_policy = rollout_policy
        self._net: tuple | None = None
        if rollout_policy == "network":
            tables = network_tables(self.policy.network)
            self._net = (tables, net_scratch(tables))
        self.searched = 0  # decisions that ran rollouts (for the benchmark)
        self._buffers: tuple | None = None

    def _kernel_buffers(self) -> tuple:
        if self._buffers is None:
            self._buffers = rollout_buffers(self.config)
        return self._buffers

    def candidates(self, observation: np.ndarray, mask: np.ndarray) -> list[int]:
        """The network's choice first, then the other legal actions within ``window`` of
        its log-probability (most likely first, ``max_candidates`` in all)."""
        return self._candidates(observation, mask)[0]

    def _candidates(
        self, observation: np.ndarray, mask: np.ndarray
    ) -> tuple[list[int], np.ndarray]:
        """The candidates and their log-probabilities."""
        probs = self.policy.distribution(observation, mask).astype(np.float64)
        legal = np.flatnonzero(np.asarray(mask, dtype=bool))
        with np.errstate(divide="ignore"):
            logp = np.log(probs[legal])
        order = np.argsort(-logp, kind="stable")
        best = logp[order[0]]
        chosen = [i for i in order if logp[i] >= best - self.window][: self.max_candidates]
        return [int(legal[i]) for i in chosen], logp[chosen]

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The action for the seat ``observation`` belongs to (it must be deciding)."""
        cands, logp = self._candidates(observation, mask)
        if len(cands) == 1:
            return cands[0]
        view = SeatView.from_observation(observation, mask, self.config)
        if view.round + 1 < self.from_round:
            return cands[0]
        self.searched += 1
        vec, g, cards, tokens, legal_buf, rew, res, wf, wi = self._kernel_buffers()
        k = self.samples
        rows = np.zeros((k, g.shape[0]), dtype=g.dtype)
        stacks = np.zeros((k, *cards.shape), dtype=cards.dtype)
        seeds = np.zeros(k, dtype=np.int64)
        write_samples(view, self.rng, rows, stacks, seeds, vec._kind)
        values = np.zeros((k, len(cands)), dtype=np.float64)
        done = evaluate(
            rows, stacks, seeds, np.array(cands, dtype=np.int64), view.seat, vec._prm,
            vec._kcode, vec._kcount, vec._canon, g, cards, tokens, legal_buf, rew, res, wf, wi,
            self.win_weight, values, self.max_steps, min(MIN_SAMPLES, k), self._net,
        )  # fmt: skip
        k = int(done)
        gains = values[:k, 1:] - values[:k, :1]
        post = posterior_gain(
            (logp[1:] - logp[0]) / self.scale, self.prior_sd, gains.mean(axis=0),
            gains.std(axis=0, ddof=1) / np.sqrt(k),
        )  # fmt: skip
        best = int(np.argmax(post))
        return cands[1 + best] if post[best] > self.margin else cands[0]

    def __repr__(self) -> str:
        return (
            f"NetSearchAgent({self.path!r}, seed={self.seed!r}, samples={self.samples}, "
            f"max_steps={self.max_steps}, window={self.window}, "
            f"max_candidates={self.max_candidates}, scale={self.scale}, "
            f"prior_sd={self.prior_sd}, margin={self.margin}, "
            f"from_round={self.from_round}, rollout_policy={self.rollout_policy!r})"
        )
