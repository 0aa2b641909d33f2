"""The uniform random player: :class:`gnome_env.gnoming.policies.RandomPolicy` under its spec
name."""

from __future__ import annotations

from gnome_env.gnoming.policies import RandomPolicy


class RandomAgent(RandomPolicy):
    """Picks a legal action uniformly at random from its own seeded generator (spec ``random``)."""

    spec = "random"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.seed = seed

    def __repr__(self) -> str:
        return f"RandomAgent(seed={self.seed!r})"
