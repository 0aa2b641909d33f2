"""Reward schemes shared by every environment (AEC, Gymnasium, vector).

* ``"win"`` (default) -- only at game end: the winners (R23, shared wins included) split
  +1; the other seats split -1, so rewards sum to zero. If every seat shares the win, all
  get 0.
* ``"score"`` -- at each round end: (mean of the other seats' round scores - own round
  score) / 10. Zero-sum.
* ``"raw"`` -- at each round end: -(own round score) / 10.
"""

from __future__ import annotations

from collections.abc import Sequence

REWARD_MODES = ("win", "score", "raw")
SCORE_SCALE = 10.0


def check_reward_mode(mode: object) -> str:
    """Return ``mode`` if it is a known reward mode, else raise ``ValueError``."""
    if mode not in REWARD_MODES:
        raise ValueError(f"reward_mode={mode!r} is not allowed: must be one of {REWARD_MODES}")
    return mode  # type: ignore[return-value]


def round_end_rewards(mode: str, round_scores: Sequence[int]) -> list[float]:
    """Per-seat rewards paid when a round ends (zeros in ``"win"`` mode)."""
    n = len(round_scores)
    if mode == "raw":
        return [-s / SCORE_SCALE for s in round_scores]
    if mode == "score":
        total = sum(round_scores)
        return [((total - s) / (n - 1) - s) / SCORE_SCALE for s in round_scores]
    return [0.0] * n


def game_end_rewards(mode: str, winners: Sequence[int], num_players: int) -> list[float]:
    """Per-seat rewards paid when the game ends (zeros unless ``"win"`` mode)."""
    if mode != "win" or len(winners) == num_players:
        return [0.0] * num_players
    win, lose = 1.0 / len(winners), -1.0 / (num_players - len(winners))
    return [win if s in winners else lose for s in range(num_players)]
