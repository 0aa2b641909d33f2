"""G17: what one seat sees of a Ginny-O game never depends on the tiles it cannot see.

At many points of random 2-4 player games, the tiles hidden from a seat -- the box and the
other racks -- are re-dealt among themselves (:func:`gnome_env.ginny_o.hidden.permute_hidden`);
that seat's view, its observation vector and the env's observation must not change. As a
check that the test can fail, the seats whose own racks were re-dealt must see a change.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gnome_env.ginny_o import GinnyConfig, GinnyGame
from gnome_env.ginny_o import ginny_o_v0 as gv
from gnome_env.ginny_o.cards import JOKER
from gnome_env.ginny_o.encoding import encode
from gnome_env.ginny_o.hidden import hidden_seats, permute_hidden
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.testing import stacked_game


def view_key(view: GinnyView) -> tuple:
    """Every field of a view, the board as its three lists (``Board`` has no ``__eq__``)."""
    out = []
    for f in dataclasses.fields(view):
        value = getattr(view, f.name)
        if f.name == "board":
            value = (tuple(value.card), tuple(value.joker), tuple(value.region), value.count)
        out.append((f.name, value))
    return tuple(out)


def tiles_conserved(game: GinnyGame) -> bool:
    """Box + racks + board = the tiles in play, kind by kind (pending tiles are in a rack)."""
    counts = np.bincount(np.asarray(game.box, dtype=np.int64), minlength=53)
    for rack in game.racks:
        counts = counts + np.bincount(np.asarray(rack, dtype=np.int64), minlength=53)
    for c in range(225):
        if game.board.card[c] >= 0:
            counts[JOKER if game.board.joker[c] else game.board.card[c]] += 1
    return bool(np.array_equal(counts, game.in_play))


def random_points(players: int, seed: int, every: int, **rules):
    """Positions of one random game (seeded masked-uniform steps): every ``every``-th step,
    and the finished game."""
    game = GinnyGame(GinnyConfig(num_players=players, **rules), seed)
    gen = np.random.default_rng(seed)
    k = 0
    while not game.game_over:
        if k % every == 0:
            yield game
        legal = game.legal_actions()
        game.step(legal[int(gen.integers(len(legal)))])
        k += 1
    yield game


@pytest.mark.parametrize(
    "players,seed,every,rules",
    [
        (2, 1, 7, {}),
        (3, 2, 9, {"max_turns": 60}),
        (4, 3, 7, {"max_turns": 60, "max_placements": 3}),
        (2, 4, 5, {"max_turns": 40, "max_placements": 2, "jokers_per_set": 4}),
    ],
)
def test_g17_view_and_observation_unchanged_when_hidden_tiles_are_reshuffled(
    players, seed, every, rules
):
    env = gv.raw_env(players=players, **rules)
    env.reset(seed=0)
    points = changed = 0
    phases = set()
    for game in random_points(players, seed, every, **rules):
        points += 1
        phases.add("over" if game.game_over else game.phase)
        for s in range(players):
            other = permute_hidden(game, s, seed=1000 * points + s)
            assert tiles_conserved(other)
            mine, theirs = GinnyView.from_game(game, s), GinnyView.from_game(other, s)
            assert view_key(theirs) == view_key(mine)
            np.testing.assert_array_equal(encode(theirs), encode(mine))
            agent = f"player_{s}"
            env.game = game
            before = env.observe(agent)
            env.game = other
            after = env.observe(agent)
            np.testing.assert_array_equal(after["observation"], before["observation"])
            np.testing.assert_array_equal(after["action_mask"], before["action_mask"])
            # Sanity: a seat whose own rack was re-dealt does see the change.
            for t in hidden_seats(game, s):
                if other.racks[t] == game.racks[t]:
                    continue
                changed += 1
                assert view_key(GinnyView.from_game(other, t)) != view_key(
                    GinnyView.from_game(game, t)
                )
                assert not np.array_equal(
                    encode(GinnyView.from_game(other, t)), encode(GinnyView.from_game(game, t))
                )
                env.game = other
                seen = env.observe(f"player_{t}")["observation"]
                env.game = game
                assert not np.array_equal(seen, env.observe(f"player_{t}")["observation"])
    assert points >= 10
    assert changed >= points  # the re-deal really moved tiles, at nearly every point
    assert {"choose", "placing", "over"} <= phases


def test_permute_hidden_keeps_the_original_and_the_copy_plays_on():
    game = next(p for i, p in enumerate(random_points(3, 5, 4)) if i == 6)
    digest = game.digest()
    other = permute_hidden(game, 0, seed=7)
    assert game.digest() == digest  # the original is untouched
    assert other.digest() != digest
    assert [len(r) for r in other.racks] == [len(r) for r in game.racks]
    assert len(other.box) == len(game.box)
    assert all(r == sorted(r) for r in other.racks)
    assert other.racks[0] == game.racks[0]
    # The re-dealt game is a consistent game: its acting seat's mask is its own legal set.
    seat = other.current
    view = GinnyView.from_game(other, seat)
    assert view.legal_actions == tuple(other.legal_actions())
    other.step(other.legal_actions()[0])
    assert tiles_conserved(other)


def test_permute_hidden_rebuilds_a_fresh_turn_of_the_acting_seat():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "4C 5C 6C 7C 8C 2H 9D", 1: "AC 2C 3C KD KH 5S 6S"},
        draws="TD",
    )
    assert game.current == 0 and game.phase == "choose"
    assert hidden_seats(game, 1) == [0]
    other = permute_hidden(game, 1, seed=3)
    assert other.racks[1] == game.racks[1]
    assert other.slots[: len(other.racks[0])] == other.racks[0]
    assert other.legal_actions() == sorted(other.legal_actions())
    placements = {p.key for p in other.legal_placements()}
    from gnome_env.ginny_o.movegen import generate, rack_counts

    fresh = generate(other.board, rack_counts(other.racks[0]), max_tiles=8)
    assert placements == {p.key for p in fresh}


def test_permute_hidden_leaves_a_turn_in_progress_alone():
    game = stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "4C 5C 6C 7C 8C 2H 9D", 1: "AC 2C 3C KD KH 5S 6S"},
        draws="TD",
    )
    game.step(game.legal_actions()[0])  # a PLACE: the turn has begun
    assert game.phase in ("placing", "declaring")
    assert hidden_seats(game, 1) == []
    other = permute_hidden(game, 1, seed=3)
    assert other.racks == game.racks  # only the box moved
    assert sorted(other.box) == sorted(game.box)
    with pytest.raises(ValueError, match="seat=2"):
        permute_hidden(game, 2, seed=0)


def test_g17_view_holds_only_public_facts_and_own_rack():
    game = next(p for i, p in enumerate(random_points(4, 8, 5)) if i == 5)
    for s in range(4):
        view = GinnyView.from_game(game, s)
        assert view.rack == tuple(game.racks[s])
        assert view.rack_sizes == tuple(len(r) for r in game.racks)
        assert view.box_size == len(game.box)
        assert list(view.unseen) == game.unseen_counts(s).tolist()
        if s != game.current:
            assert view.slots == () and view.pending == () and view.legal_actions == ()
