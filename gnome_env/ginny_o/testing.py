"""The documented Ginny-O test hook: a stacked box, given racks and a prepared board.

Rule tests build exact positions with :func:`stacked_game`::

    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "4C 5C 6C 7C 8C 2H 9D", 1: "AC 2C 3C KD KH 5S 6S"},
        draws="TD JD",                      # the next tiles drawn, in order
        board=["9H 9S 9D @ 8,7 across"],    # tiles already on the board
        scores=[10, 0],
        first_player=0,
    )

* The racks are given (7 tiles each; with ``rest="out"`` any number 0-8, for the end of
  the game) and the box is *stacked*: draws take its first tile, and returned tiles go to
  its end. Its order is ``draws``, then every other tile in play in kind order -- unless
  ``rest="out"``, which takes the other tiles out of play (a box that is empty after
  ``draws``, for the end-of-game rules; :attr:`GinnyGame.in_play` records the reduced
  tile counts).
* The first player's turn starts at once, so that seat holds 8 tiles: its 7 plus
  ``draws``' first tile (if any).
* ``board`` placements (notation of :mod:`gnome_env.ginny_o.notation`) are put down in
  order without scoring; each joins the region it touches, else founds the region of the
  start square it covers (the centre: region 0). Each must leave only melds on the board.
* A tile asked for more often than it exists raises ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gnome_env.ginny_o.board import CENTRE, NEIGHBOURS, REGION_OF_START, Board, meld_type
from gnome_env.ginny_o.cards import JOKER, format_kind, parse_kinds
from gnome_env.ginny_o.config import RACK_SIZE, GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.notation import parse_placement


def build_board(placements: Sequence[str], descending_runs: bool = False) -> Board:
    """A board with ``placements`` put down in order (no scoring, see the module docstring)."""
    board = Board()
    for text in placements:
        tiles = parse_placement(text, board)
        touched = {
            board.region[x] for c, _, _ in tiles for x in NEIGHBOURS[c] if board.card[x] >= 0
        }
        if len(touched) > 1:
            raise ValueError(f"{text!r} touches regions {sorted(touched)}")
        if touched:
            region = touched.pop()
        else:
            cells = {c for c, _, _ in tiles}
            if CENTRE in cells:
                region = 0
            else:
                starts = [REGION_OF_START[c] for c in cells if c in REGION_OF_START]
                if not starts:
                    raise ValueError(f"{text!r} touches nothing and covers no start square")
                region = starts[0]
        for c, t, cd in tiles:
            board.put(c, t == JOKER, cd, region)
        for line in board.lines():
            if not meld_type([board.card[x] for x in line], descending_runs):
                raise ValueError(f"after {text!r} a line is not a meld")
    return board


def stacked_game(
    config: GinnyConfig | None = None,
    *,
    racks: Mapping[int, str | Sequence[str]],
    draws: str | Sequence[str] = "",
    board: Sequence[str] = (),
    scores: Sequence[int] | None = None,
    first_player: int = 0,
    turn: int = 0,
    rest: str = "box",
    seed: int = 0,
) -> GinnyGame:
    """A game from a stacked box (see the module docstring)."""
    config = (config or GinnyConfig()).replace(first_player=first_player)
    n = config.num_players
    if rest not in ("box", "out"):
        raise ValueError(f"rest={rest!r} is not allowed: must be 'box' or 'out'")
    if sorted(racks) != list(range(n)):
        raise ValueError(f"racks must give every seat 0..{n - 1}, got seats {sorted(racks)}")
    pool = config.copies().copy()
    built = build_board(board, config.descending_runs)

    def take(kinds: list[int], what: str) -> list[int]:
        for k in kinds:
            pool[k] -= 1
            if pool[k] < 0:
                raise ValueError(f"{what}: no copy of {format_kind(k)} is left in the tile sets")
        return kinds

    for c in range(225):
        if built.card[c] >= 0:
            take([JOKER if built.joker[c] else built.card[c]], "board")
    given: list[list[int]] = []
    for seat in range(n):
        rack = take(parse_kinds(racks[seat]), f"rack of seat {seat}")
        if len(rack) != RACK_SIZE and (rest != "out" or len(rack) > 8):
            raise ValueError(
                f"rack of seat {seat} has {len(rack)} tiles; give exactly 7 "
                "(or 0-8 with rest='out')"
            )
        given.append(rack)
    order = take(parse_kinds(draws), "draws")
    rest_tiles = [k for k in range(53) for _ in range(int(pool[k]))]
    in_play = config.copies().copy()
    if rest == "box":
        order.extend(rest_tiles)
    else:
        for k in rest_tiles:
            in_play[k] -= 1
    game = GinnyGame(
        config,
        seed,
        draw_order=order,
        board=built,
        scores=scores,
        turn=turn,
        in_play=in_play,
        racks=given,
    )
    return game


def conformance_hooks():
    """The hooks of the game-agnostic conformance suite (``GameSpec.testing``)."""
    from gnome_env.core.testing import ConformanceHooks
    from gnome_env.ginny_o import records
    from gnome_env.ginny_o.hidden import permute_hidden
    from gnome_env.ginny_o.validate import check_invariants

    return ConformanceHooks(
        kwargs=lambda players: {"num_players": players, "max_turns": 8},
        permute_hidden=permute_hidden,
        check=check_invariants,
        digest=lambda game: game.digest(),
        to_record=records.to_record,
        from_record=lambda record: records.replay(record).game,
    )


__all__ = ["build_board", "conformance_hooks", "stacked_game"]
