"""Anytime-valid intervals for the arena's sequential stopping (``--until-significant``).

The arena's usual interval (:func:`agents.core.arena.normal_ci`) is valid for a number of
deals fixed in advance. Looking at it after every batch and stopping once it excludes 1/n
makes false claims far more often than 5% of the time. A *confidence sequence* is a sequence
of intervals that holds at every sample size at once: with probability at least 1 - alpha
the true mean lies in every one of them, so a run may look after every deal and stop
whenever it likes.

This module builds one for the mean of observations in [0, 1] (here: the per-deal mean win
shares of one lineup entry, independent across deals) by *testing by betting*, the "hedged
capital" construction of Waudby-Smith and Ramdas ("Estimating means of bounded random
variables by betting", JRSS-B 2024). For a candidate mean ``m``, two gamblers start with
wealth 1; before observation ``t`` each stakes a fraction chosen from the earlier
observations only (predictable), one betting that ``x_t`` is above ``m``, one below:

    K+_t(m) = prod_i (1 + l+_i (x_i - m)),   K-_t(m) = prod_i (1 - l-_i (x_i - m)),

with ``0 <= l+_i <= c / m`` and ``0 <= l-_i <= c / (1 - m)`` (``c`` = :data:`MAX_BET`), so
no factor drops below ``1 - c > 0``. If the mean of every ``x_i`` given the past is ``m``,
each factor has expectation 1, both products are nonnegative martingales, and so is their
average ``K_t(m) = (K+_t + K-_t) / 2``, which starts at 1. Ville's inequality then gives
``P(K_t(m) >= 1/alpha for some t) <= alpha``: rejecting ``m`` the first time the wealth
reaches ``1/alpha`` is wrong with probability at most alpha, however often one looks. The
confidence sequence at time ``t`` is every ``m`` not rejected; :meth:`interval` reports its
smallest and largest grid point.

The stake is the predictable plug-in of the paper (its eq. for ``lambda_t^PrPl``):
``l_t = sqrt(2 log(2/alpha) / (s2_{t-1} * t * log(1 + t)))``, with ``s2`` a running variance
that starts from 1/4, truncated as above. Any predictable choice keeps the guarantee; this
one makes the intervals shrink at about the rate of a normal interval.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

#: The largest fraction of the allowed stake a gambler bets (``c`` above).
MAX_BET = 0.5
#: Candidate means the interval is read from: 0, 0.0005, ..., 1.
GRID = np.linspace(0.0, 1.0, 2001)
METHOD = (
    "confidence sequence by betting (hedged capital, Waudby-Smith & Ramdas 2024; predictable "
    "plug-in stakes, c = 0.5) over the per-deal mean win shares of the first lineup entry; "
    "valid at every number of deals at once"
)


class BettingConfidenceSequence:
    """A confidence sequence for the mean of independent observations in [0, 1] (see the
    module docstring). Feed observations with :meth:`update`; ask :meth:`rejects` or
    :meth:`interval` at any time."""

    def __init__(
        self, alpha: float = 0.05, points: Iterable[float] = (), grid: Iterable[float] | None = None
    ) -> None:
        """``points``: candidate means to track exactly besides the grid (the rate a run
        tests against, say); ``grid``: the candidate means (default :data:`GRID`)."""
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha={alpha!r} is not allowed: must lie strictly between 0 and 1")
        self.alpha = float(alpha)
        base = GRID if grid is None else np.asarray(list(grid), dtype=np.float64)
        self.grid = np.union1d(base, np.asarray(list(points), dtype=np.float64))
        self.t = 0
        self._sum = 0.0
        self._sq = 0.0  # running sum of squared deviations from the running mean
        self._mean = 0.5
        # log wealth of the two gamblers for every candidate mean on the grid
        self._log_up = np.zeros_like(self.grid)
        self._log_down = np.zeros_like(self.grid)

    def _stake(self) -> float:
        """The untruncated stake for the next observation, from the earlier ones only."""
        t = self.t + 1
        variance = (0.25 + self._sq) / t  # starts at 1/4, the largest variance on [0, 1]
        return math.sqrt(2.0 * math.log(2.0 / self.alpha) / (variance * t * math.log(1.0 + t)))

    def update(self, observations: Iterable[float]) -> None:
        """Take the next observations (each in [0, 1]), in order."""
        m = self.grid
        with np.errstate(divide="ignore"):
            cap_up = np.where(m > 0, MAX_BET / np.maximum(m, 1e-300), np.inf)
            cap_down = np.where(m < 1, MAX_BET / np.maximum(1.0 - m, 1e-300), np.inf)
        for x in observations:
            x = float(x)
            if not 0.0 <= x <= 1.0 or math.isnan(x):
                raise ValueError(f"observation {x!r} is not allowed: must lie in [0, 1]")
            stake = self._stake()
            up = np.minimum(stake, cap_up)
            down = np.minimum(stake, cap_down)
            self._log_up += np.log1p(up * (x - m))
            self._log_down += np.log1p(-down * (x - m))
            self.t += 1
            self._sum += x
            # the paper's running mean (the prior 1/2 counts as one pseudo-observation) and
            # its sum of squared deviations from it
            self._mean = (0.5 + self._sum) / (self.t + 1)
            self._sq += (x - self._mean) ** 2

    def log_wealth(self) -> np.ndarray:
        """log K_t(m) for every grid point (the average of the two gamblers' wealth)."""
        hi = np.maximum(self._log_up, self._log_down)
        return hi + np.log(0.5 * (np.exp(self._log_up - hi) + np.exp(self._log_down - hi)))

    def wealth_at(self, m: float) -> float:
        """K_t(m) at one candidate mean (the nearest grid point: exact for ``points``)."""
        i = int(np.argmin(np.abs(self.grid - m)))
        return float(np.exp(self.log_wealth()[i]))

    def rejects(self, m: float) -> bool:
        """Whether the mean ``m`` (its nearest grid point: exact for ``points``) is outside
        the sequence now."""
        i = int(np.argmin(np.abs(self.grid - m)))
        return bool(self.log_wealth()[i] >= math.log(1.0 / self.alpha))

    def interval(self) -> tuple[float, float]:
        """The smallest and largest grid point not rejected ((nan, nan) if none is left,
        which happens with probability at most alpha)."""
        kept = self.grid[self.log_wealth() < math.log(1.0 / self.alpha)]
        if kept.size == 0:
            return (math.nan, math.nan)
        return (float(kept[0]), float(kept[-1]))


__all__ = ["GRID", "MAX_BET", "METHOD", "BettingConfidenceSequence"]
