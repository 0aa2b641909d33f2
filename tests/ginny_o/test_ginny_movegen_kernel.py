"""The compiled move generator (gnome_env.ginny_o._movegen_kernel) against the reference.

The reference is the pure-Python generator (:func:`~gnome_env.ginny_o.movegen.
generate_reference`), itself held equal to the brute-force enumerator in
``test_ginny_movegen.py`` (which now runs the compiled generator through ``generate`` and
checks the reference against it too). Here the two generators must list the same
placements in the same order -- tiles, joker declarations, scores (G24-G28), regions
(G23) and axes -- on positions of real games (2-4 players, every turn, each rule variant
that changes placements or scores), for the acting seat's rack, for part of it, and for
the G29b multiset of every unplayed tile (with and without a limit); the engine on the
compiled path plays the same games as on the reference path; the masks' prefix trie
(the placement table's action sequences) is the engine's canonical sequences; and the
kernel run as plain Python (no numba) gives the same lists.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from gnome_env.core.jit import COMPILED
from gnome_env.ginny_o import GinnyConfig, GinnyGame
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o import movegen as M
from gnome_env.ginny_o.movegen import (
    generate_compiled,
    generate_reference,
    placement_table,
    rack_counts,
    reference_generator,
)

VARIANTS = [
    {},
    {"descending_runs": True},
    {"rescore_existing": False},
    {"descending_runs": True, "jokers_per_set": 4},
]


def _positions(seed: int, players: int, cfg: dict, games: int = 2):
    """Every choose-phase position of ``games`` placement-biased random games."""
    gen = np.random.default_rng(seed)
    for _ in range(games):
        game = GinnyGame(GinnyConfig(num_players=players, **cfg), int(gen.integers(2**62)))
        while not game.game_over:
            if game.phase == "choose":
                yield game
            legal = game.legal_actions()
            places = [a for a in legal if a <= A.COMMIT]
            pick = places if places and gen.random() < 0.9 else legal
            game.step(int(pick[gen.integers(len(pick))]))


def _kw(cfg: dict) -> dict:
    return {
        "descending_runs": cfg.get("descending_runs", False),
        "rescore_existing": cfg.get("rescore_existing", True),
    }


@pytest.mark.skipif(not COMPILED, reason="numba is not installed")
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_G18_G28_compiled_generator_equals_the_reference_on_real_games(players, variant):
    cfg = VARIANTS[variant]
    kw = _kw(cfg)
    gen = np.random.default_rng(1000 * players + variant)
    positions = placements = 0
    for game in _positions(7 * players + variant, players, cfg, games=3):
        rack = [t for t in game.slots if t >= 0]
        part = [t for t in rack if gen.random() < 0.6]
        for tiles in (rack, part):
            counts = rack_counts(tiles)
            want = generate_reference(game.board, counts, max_tiles=len(tiles), **kw)
            got = generate_compiled(game.board, counts, max_tiles=len(tiles), **kw)
            assert got == want, (game.seed, game.turn, tiles)
            placements += len(want)
        # G29b: from every unplayed tile, up to 8 per placement, with the early exit
        unplayed = rack_counts(list(game.box) + [t for r in game.racks for t in r])
        for limit in (1, 25):
            want = generate_reference(game.board, unplayed, max_tiles=8, limit=limit, **kw)
            assert generate_compiled(game.board, unplayed, max_tiles=8, limit=limit, **kw) == want
        positions += 1
    assert positions >= 40 and placements > 200, (positions, placements)


@pytest.mark.skipif(not COMPILED, reason="numba is not installed")
def test_a_full_listing_larger_than_the_workspace_is_retried_and_complete():
    game = next(g for g in _positions(5, 2, {}, 1) if g.turn >= 6)
    unplayed = rack_counts(list(game.box) + [t for r in game.racks for t in r])
    want = generate_reference(game.board, unplayed, max_tiles=4)
    assert len(want) > 40
    from gnome_env.ginny_o import _movegen_kernel as K

    M._WORKSPACE[:] = [K.Workspace(capacity=8)]
    try:
        assert generate_compiled(game.board, unplayed, max_tiles=4) == want
        assert M._WORKSPACE[0].capacity >= len(want)
    finally:
        M._WORKSPACE[:] = []


@pytest.mark.parametrize("variant", [0, 1])
def test_placement_table_sequences_are_the_engines_canonical_actions(variant):
    """The table behind the mask: row i's actions are ``placement_actions`` of placement i,
    and at every prefix the legal trie ids are the next actions of the matching rows."""
    cfg = VARIANTS[variant]
    checked = 0
    for game in _positions(40 + variant, 2, cfg, games=1):
        placements = game.legal_placements()
        seqs = game.placement_sequences()
        assert [list(s) for s in seqs] == [game.placement_actions(p) for p in placements]
        if not placements:
            continue
        # walk one placement's sequence; at each step compare the mask's trie part
        target = seqs[len(seqs) // 2]
        g = game.copy()
        for depth, action in enumerate(target):
            want = {s[depth] for s in seqs if s[:depth] == target[:depth]}
            got = {a for a in g.legal_actions() if a <= A.COMMIT}
            assert got == want, (game.seed, game.turn, depth)
            g.step(action)
        checked += 1
    assert checked >= 5


def test_the_engine_plays_the_same_games_on_both_generators():
    """Same seed and actions, same game: every state digest and legal list agrees."""
    for seed in (3, 4):
        gen = np.random.default_rng(seed)
        fast = GinnyGame(GinnyConfig(num_players=3), seed)
        with reference_generator():
            slow = GinnyGame(GinnyConfig(num_players=3), seed)
        while not fast.game_over:
            legal = fast.legal_actions()
            with reference_generator():
                assert slow.legal_actions() == legal
            action = int(legal[gen.integers(len(legal))])
            fast.step(action)
            with reference_generator():
                slow.step(action)
            assert fast.digest() == slow.digest()
        assert slow.game_over and fast.final_scores == slow.final_scores


def test_placement_table_refuses_tiles_that_are_in_no_free_slot():
    game = GinnyGame(GinnyConfig(), 11)
    tiles = [t for t in game.slots if t >= 0]
    with pytest.raises(ValueError, match="no free slot"):
        placement_table(game.board, rack_counts(tiles), [-1] * 8, [False] * 8, max_tiles=7)


def test_the_kernel_as_plain_python_lists_the_same_placements():
    """GNOME_NO_NUMBA=1: generate() runs the reference and generate_compiled() the kernel's
    Python source; on positions of a real game they agree."""
    code = (
        "import numpy as np\n"
        "from gnome_env.core.jit import COMPILED\n"
        "from gnome_env.ginny_o import GinnyConfig, GinnyGame\n"
        "from gnome_env.ginny_o.movegen import generate_compiled, generate_reference, "
        "rack_counts\n"
        "assert not COMPILED\n"
        "game = GinnyGame(GinnyConfig(num_players=2), 21)\n"
        "gen = np.random.default_rng(0)\n"
        "seen = 0\n"
        "while not game.game_over and seen < 6:\n"
        "    if game.phase == 'choose':\n"
        "        c = rack_counts([t for t in game.slots if t >= 0])\n"
        "        a = generate_reference(game.board, c)\n"
        "        assert generate_compiled(game.board, c) == a\n"
        "        seen += 1\n"
        "    legal = game.legal_actions()\n"
        "    game.step(int(legal[0]))\n"
        "print('agree', seen)\n"
    )
    env = dict(os.environ, GNOME_NO_NUMBA="1")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["agree", "6"]


def test_the_speed_benchmark_checks_its_two_generators_agree_and_refuses_bad_flags(capsys):
    import json

    from training.ginny_o.bench import main

    assert main(["--positions", "3", "--games", "1", "--seconds", "0.2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    g = report["generator"]
    assert g["agreeing_positions"] == g["positions"] == 3 and g["compiled"] == COMPILED
    assert [row["players"] for row in report["env"]] == [2, 4]
    for row in report["env"]:
        for name in ("env", "raw_env"):
            assert row[name]["steps_per_s"] > 0 and row[name]["floor_steps_per_s"] > 0
    with pytest.raises(SystemExit) as err:
        main(["--seconds", "0"])
    assert err.value.code == 2 and "--seconds > 0" in capsys.readouterr().err
