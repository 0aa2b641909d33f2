"""The Ginny-O rules configuration: every ``[variant: ...]`` of RULES-ginny-o.md.

:class:`GinnyConfig` is a frozen dataclass validated on construction: a bad value raises
``ValueError`` naming the field, the value and what is allowed (the checks are the shared
ones of :mod:`gnome_env.gnoming.config`). The facts that follow from a config (sets in play, tiles
in play, the turn cap) are derived here once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from gnome_env.core.config import PlainConfig, check_bool, check_int
from gnome_env.core.renamed import renamed_fields
from gnome_env.ginny_o.cards import JOKER, NUM_KINDS

MIN_PLAYERS = 2
MAX_PLAYERS = 4  # G2
RACK_SIZE = 7  # G5
MAX_SLOTS = 8  # G5: 7 + the turn's draw
TURNS_PER_PLAYER = 60  # G29d default: max_turns = 60 * players


@renamed_fields(players="num_players")
@dataclass(frozen=True)
class GinnyConfig(PlainConfig):
    """One validated, immutable set of Ginny-O rule options.

    Construct with keywords or :meth:`from_dict`; :meth:`replace` derives a changed copy
    (:class:`gnome_env.core.config.PlainConfig`; the old field name ``players`` still works,
    warning once).
    """

    CONFIG_TITLE: ClassVar[str] = "Ginny-O"

    num_players: int = 2
    """G2: seats at the table, 2-4 (2: one tile set; 3-4: two sets)."""
    jokers_per_set: int = 2
    """G1: jokers in each tile set, 0-4."""
    descending_runs: bool = False
    """G10: runs may also read descending."""
    max_placements: int = 1
    """G14: placements a player may make in one turn, 1-8."""
    first_player: str | int = "random"
    """G12: ``"random"`` (drawn by the game's generator) or a seat index."""
    rescore_existing: bool = True
    """G27: a scored line also counts the tiles already on the board (``old``)."""
    dead_check: bool = True
    """G29b: end the game when no legal placement exists for anybody."""
    stall_rounds: int = 4
    """G29c: rounds (of n turns) without a placed tile, after the first meld, that end the
    game; 0 switches the rule off."""
    max_turns: int | None = None
    """G29d: the turn cap (a truncation); None means 60 * players."""

    def __post_init__(self) -> None:
        # object.__setattr__: numpy ints are accepted and stored as plain ints (frozen).
        players = check_int("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        object.__setattr__(self, "num_players", players)
        for name, low, high in (("jokers_per_set", 0, 4), ("max_placements", 1, 8)):
            object.__setattr__(self, name, check_int(name, getattr(self, name), low, high))
        object.__setattr__(self, "stall_rounds", check_int("stall_rounds", self.stall_rounds, 0))
        for name in ("descending_runs", "rescore_existing", "dead_check"):
            object.__setattr__(self, name, check_bool(name, getattr(self, name)))
        fp = self.first_player
        if isinstance(fp, str):
            if fp != "random":
                raise ValueError(
                    f"first_player={fp!r} is not allowed: must be 'random' or a seat index "
                    f"0..{players - 1}"
                )
        else:
            extra = " (or 'random')"
            object.__setattr__(
                self, "first_player", check_int("first_player", fp, 0, players - 1, extra)
            )
        if self.max_turns is not None:
            object.__setattr__(
                self, "max_turns", check_int("max_turns", self.max_turns, 1, None, " (or null)")
            )

    # ------------------------------------------------------------------ derived facts
    @property
    def sets_in_play(self) -> int:
        """G2: one tile set with 2 players, two with 3 or 4."""
        return 1 if self.num_players == 2 else 2

    @property
    def tiles_per_set(self) -> int:
        """G1: 52 cards plus the jokers."""
        return 52 + self.jokers_per_set

    @property
    def tiles_in_play(self) -> int:
        """G2: every tile of the sets in play."""
        return self.sets_in_play * self.tiles_per_set

    @property
    def turn_cap(self) -> int:
        """G29d: ``max_turns``, or 60 * players when it is None."""
        return self.max_turns if self.max_turns is not None else TURNS_PER_PLAYER * self.num_players

    @property
    def stall_limit(self) -> int:
        """G29c: consecutive turns without a placed tile that end the game (0: never)."""
        return self.stall_rounds * self.num_players

    def copies(self) -> np.ndarray:
        """Copies in play of each of the 53 kinds (int64, length 53)."""
        out = np.full(NUM_KINDS, self.sets_in_play, dtype=np.int64)
        out[JOKER] = self.sets_in_play * self.jokers_per_set
        return out

    def all_tiles(self) -> list[int]:
        """Every tile in play as a kind, in kind order (the box before the game starts)."""
        return [k for k, c in enumerate(self.copies().tolist()) for _ in range(c)]
