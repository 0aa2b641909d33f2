"""What one seat may know in Ginny-O (G17): a structured view of a game.

:class:`GinnyView` holds, for one seat: the board (every placed tile, joker declarations and
regions), the scores, the box size, every rack's size, the seat's own rack, and -- when the
seat is acting -- the turn in progress (slots, used and marked slots, pending tiles, phase),
its legal action ids and the legal placements with their canonical action sequences. It
never holds another rack or the box's contents or order.

Bots read a view (never the game), and the environment's observation is built from one, so
neither can depend on hidden tiles: the no-leak tests permute other racks and the box and
check that the view does not change.
"""

from __future__ import annotations

from dataclasses import dataclass

from gnome_env.ginny_o.board import Board
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.movegen import Placement


@dataclass(frozen=True)
class GinnyView:
    """G17 information seen by ``seat`` (seats are absolute)."""

    config: GinnyConfig
    seat: int
    current: int
    """The acting seat."""
    turn: int
    board: Board
    """A copy of the board (cards as read, joker flags, regions)."""
    scores: tuple[int, ...]
    box_size: int
    rack_sizes: tuple[int, ...]
    rack: tuple[int, ...]
    """The seat's own tiles (kinds, sorted; during its turn, including used-up slots' tiles
    until they are committed)."""
    unseen: tuple[int, ...]
    """Per kind (53): copies in play this seat cannot see (box plus other racks)."""
    first_meld_made: bool
    stall: int
    pass_streak: int
    game_over: bool
    # The turn in progress (meaningful when seat == current; empty otherwise):
    phase: str
    slots: tuple[int, ...]
    slot_used: tuple[bool, ...]
    slot_marked: tuple[bool, ...]
    pending: tuple[tuple[int, int, int], ...]
    """``(cell, slot, card)`` of tiles placed but not committed (card -1: undeclared joker)."""
    direction: int
    drew: bool
    placements_made: int
    legal_actions: tuple[int, ...]
    placements: tuple[Placement, ...]
    """Legal placements when a new placement can start (phase choose / after_commit)."""
    placement_actions: tuple[tuple[int, ...], ...]
    """The canonical action sequence of each of ``placements``."""

    @classmethod
    def _fast(cls, **fields: object) -> GinnyView:
        """``cls(**fields)`` without the frozen dataclass's per-field ``__setattr__`` (every
        field must be given; :meth:`from_game` gives them all)."""
        view = object.__new__(cls)
        view.__dict__.update(fields)
        return view

    @property
    def acting(self) -> bool:
        return self.seat == self.current and not self.game_over

    @classmethod
    def from_game(cls, game: GinnyGame, seat: int, *, moves: bool = True) -> GinnyView:
        """The view of ``seat`` (0..n-1) of ``game`` now; ``moves=False`` leaves
        ``legal_actions``, ``placements`` and ``placement_actions`` empty (for the
        observation encoder, which reads none of them: it is cheaper)."""
        n = game.num_players
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError(f"seat={seat!r} is not allowed: must be 0..{n - 1}")
        acting = seat == game.current and not game.game_over
        listed = acting and moves
        placements = tuple(game.legal_placements()) if listed else ()
        return cls._fast(
            config=game.config,
            seat=seat,
            current=game.current,
            turn=game.turn,
            board=game.board.copy(),
            scores=tuple(game.scores),
            box_size=len(game.box),
            rack_sizes=tuple(len(r) for r in game.racks),
            rack=tuple(game.racks[seat]),
            unseen=tuple(game.unseen_list(seat)),
            first_meld_made=game.first_meld_made,
            stall=game.stall,
            pass_streak=game.pass_streak,
            game_over=game.game_over,
            phase=game.phase if acting else "",
            slots=tuple(game.slots) if acting else (),
            slot_used=tuple(game.slot_used) if acting else (),
            slot_marked=tuple(game.slot_marked) if acting else (),
            pending=tuple(game.pending) if acting else (),
            direction=game.direction if acting else 0,
            drew=game.drew if acting else False,
            placements_made=game.placements_made if acting else 0,
            legal_actions=tuple(game.legal_actions()) if listed else (),
            placements=placements,
            placement_actions=game.placement_sequences() if listed else (),
        )
