"""Ginny-O hidden information (G17), for the no-leak tests of views, observations and bots.

:func:`permute_hidden` re-deals the tiles one seat cannot see -- the box and the other
seats' racks -- at random among those places. That seat cannot tell the two games apart, so
its view, its observation and any decision made from them must not change.
"""

from __future__ import annotations

import numpy as np

from gnome_env.ginny_o.engine import GinnyGame


def hidden_seats(game: GinnyGame, seat: int) -> list[int]:
    """The seats whose racks :func:`permute_hidden` re-deals for observer ``seat``: every
    other seat, except the acting seat once its turn has begun (a placement pending or
    committed, or slots marked): its turn's slots are tied to its tiles."""
    out = []
    for s in range(game.num_players):
        if s == seat:
            continue
        if s == game.current and not game.game_over and game.phase != "choose":
            continue
        out.append(s)
    return out


def permute_hidden(game: GinnyGame, seat: int, seed: int) -> GinnyGame:
    """A copy of ``game`` in which the tiles ``seat`` cannot see -- the box and the racks of
    :func:`hidden_seats` -- are shuffled together (numpy ``Generator`` seeded with ``seed``)
    and dealt back with every rack's size kept (racks sorted, as the engine keeps them).

    When the acting seat's rack is re-dealt (phase ``choose``: nothing placed or marked yet),
    its turn's slots and legal placements are rebuilt from the new rack. ``game`` is left as
    it was.
    """
    n = game.num_players
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise ValueError(f"seat={seat!r} is not allowed: must be 0..{n - 1}")
    gen = np.random.default_rng(seed)
    other = game.copy()
    seats = hidden_seats(other, seat)
    pool = list(other.box)
    for s in seats:
        pool.extend(other.racks[s])
    pool = [pool[i] for i in gen.permutation(len(pool))]
    at = 0
    for s in seats:
        size = len(other.racks[s])
        other.racks[s] = sorted(pool[at : at + size])
        at += size
    other.box = pool[at:]
    if not other.game_over and other.current in seats:
        other.lay_out_rack()  # the acting seat's new rack into its slots (phase choose)
    return other


__all__ = ["hidden_seats", "permute_hidden"]
