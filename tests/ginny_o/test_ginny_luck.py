"""Ginny-O's luck correction (agents/ginny_o/luck.py, issue #33): the box draws as chance
events, their exact distributions, zero-mean terms and the arena option."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from agents.core.arena import run_arena
from agents.ginny_o.arena import play_game
from agents.ginny_o.luck import (
    GinnyLuckValue,
    chance_events,
    event_terms,
    game_luck,
    shipped_value,
    stage,
)
from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame


def _played(config: GinnyConfig, seed: int, spec: str = "greedy") -> GinnyGame:
    game = GinnyGame(config, seed)
    play_game(game, [make_ginny_agent(spec, 50 + s, config) for s in range(config.num_players)])
    return game


def test_g4_g12_g13_deal_and_turn_draw_are_box_draws_with_the_box_as_support():
    """G12: from the first player (seat 1 here), 7 tiles each, one at a time; G13: the first
    turn's draw. With the test hook's draw order every draw takes the box's first tile, so
    each event's tile is known and its support is exactly the box before it (G4)."""
    config = GinnyConfig(num_players=2, first_player=1)
    order = list(reversed(config.all_tiles()))
    events = chance_events(config, 0, [], draw_order=order)
    assert len(events) == 15
    assert [e.seat for e in events] == [1] * 7 + [0] * 7 + [1]
    for k, event in enumerate(events):
        assert event.tile == order[k]
        box = Counter(order[k:])
        assert dict(zip(event.support.tolist(), event.counts.tolist(), strict=True)) == {
            t: float(c) for t, c in sorted(box.items())
        }
        assert event.box == len(order) - k - 1
        assert event.tile in event.racks[event.seat]
    assert sorted(events[6].racks[1]) == sorted(order[:7])
    assert events[-1].racks[0] == sorted(order[7:14])


def test_replayed_draws_are_the_games_own_draws():
    """Tracing draws one tile at a time changes nothing: the traced replay ends in the very
    state the game ended in (same digest), and its events are all of the game's draws."""
    from agents.ginny_o.luck import _TracedGame

    config = GinnyConfig(num_players=3, max_turns=30)
    game = _played(config, 7)
    traced = _TracedGame(config, 7)
    for _, action in game.log:
        traced.step(action)
    assert traced.digest() == game.digest()
    assert len(traced.events) == game.draws
    assert [e.tile for e in traced.events] == [
        e.tile for e in chance_events(config, 7, [a for _, a in game.log])
    ]


def test_terms_are_zero_mean_over_the_box_for_any_value():
    config = GinnyConfig(num_players=2, max_turns=40)
    game = _played(config, 3)
    events = chance_events(config, 3, [a for _, a in game.log])
    for value in (shipped_value(), GinnyLuckValue.untrained()):
        for event in events[::9]:
            total_w, total_t = np.zeros(2), np.zeros(2)
            came = event.tile
            for tile, count in zip(event.support, event.counts, strict=True):
                racks = [list(r) for r in event.racks]
                racks[event.seat].remove(came)
                racks[event.seat].append(int(tile))
                event.racks, event.tile = racks, int(tile)
                w, t = event_terms(event, value)
                total_w += count * w
                total_t += count * t
                came = int(tile)
            assert np.allclose(total_w, 0, atol=1e-9) and np.allclose(total_t, 0, atol=1e-6)


def test_luck_is_deterministic_and_sums_to_zero_over_seats():
    config = GinnyConfig(num_players=3, max_turns=30)
    game = _played(config, 5)
    actions = [a for _, a in game.log]
    a, b = game_luck(config, 5, actions), game_luck(config, 5, actions)
    assert a == b and sum(a["win"]) == pytest.approx(0, abs=1e-9)
    assert any(abs(x) > 1e-3 for x in a["win"])


def test_stages_of_the_box():
    assert [stage(b) for b in (0, 1, 10, 11, 30, 31, 60, 61, 100)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_arena_variance_reduction_for_ginny_o(tmp_path):
    kw = {"game": "ginny_o", "rules": {"max_turns": 16}, "progress": False, "seed": 4}
    plain = run_arena(["greedy", "random"], 2, 6, **kw)
    one = run_arena(["greedy", "random"], 2, 6, variance_reduction=True, **kw)
    two = run_arena(["greedy", "random"], 2, 6, variance_reduction=True, workers=2, **kw)
    assert [s.win_rate for s in plain.stats] == [s.win_rate for s in one.stats]
    assert one.stats == two.stats
    assert one.stats[0].corrected_win_rate is not None
    one.to_json(tmp_path / "r.json")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["settings"]["variance_reduction"]["value"] == "luck_value.json"
    assert isinstance(data["entries"][0]["variance_reduction"], float)


def test_value_file_errors(tmp_path):
    bad = tmp_path / "v.json"
    bad.write_text("[1, 2")
    with pytest.raises(ValueError, match="is not valid JSON"):
        GinnyLuckValue.load(bad)
    bad.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match=r"not a gnome_env\.ginny_o_luck_value file"):
        GinnyLuckValue.load(bad)
    assert shipped_value().meta["fitted"] is True
