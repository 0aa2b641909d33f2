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
from typing import Any

from gnome_env.gnoming.engine import Game

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


def rewards_after_action(mode: str, game: Game, rounds_before: int) -> list[float] | None:
    """Per-seat rewards earned by the action just applied, or ``None`` if no round ended.

    ``rounds_before`` is ``len(game.round_results)`` before the action. Every environment
    pays rewards through this one function.
    """
    if len(game.round_results) == rounds_before:
        return None
    rewards = round_end_rewards(mode, game.round_results[-1].round_scores)
    if game.game_over:
        end = game_end_rewards(mode, game.winners(), game.num_players)
        rewards = [a + b for a, b in zip(rewards, end, strict=True)]
    return rewards


def round_info(game: Game, agents: Sequence[str]) -> dict[str, Any]:
    """The public results of the last finished round, keyed by agent name (for infos)."""
    result = game.round_results[-1]
    info: dict[str, Any] = {
        "round": result.round,
        "round_scores": dict(zip(agents, result.round_scores, strict=True)),
        "layout_scores": dict(zip(agents, result.layout_scores, strict=True)),
        "first_out": None if result.first_out is None else agents[result.first_out],
        "ended_by": result.ended_by,
        "totals": dict(zip(agents, game.totals, strict=True)),
    }
    if game.game_over:
        info["winners"] = [agents[s] for s in game.winners()]
    return info


def ended_by_cap(game: Game) -> bool:
    """True when the game is over and its last round ended at the round cap (truncation)."""
    return game.game_over and game.round_results[-1].ended_by == "turn_cap"
