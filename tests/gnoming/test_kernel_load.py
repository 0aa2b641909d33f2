"""KernelGame.load(game): a Game's state installed into the kernel row plays on exactly as the
kernel game that reached the same state by playing the same actions."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gnome_env.gnoming import _kernels as K
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.testing import kernel_state
from gnome_env.gnoming.vector import KernelGame

SMALL_DECK = {"1": 6, "2": 6, "3": 6, "4": 6, "-1": 3, "M": 3, "H": 3, "5": 33}  # reshuffles

pytestmark = pytest.mark.skipif(not K.COMPILED, reason="KernelGame needs compiled kernels")


def snapshot(kgame: KernelGame) -> tuple:
    g = kgame._g
    return (
        kernel_state(g, kgame._cards, kgame._vec._kcode),
        g[K.C_SEEN : K.C_SEEN + kgame._vec._kcode.shape[0]].tolist(),
        kgame.seat,
        kgame.tokens.tolist(),
        kgame.mask.tolist(),
    )


@pytest.mark.parametrize(
    ("rules", "players", "seed"),
    [({}, 3, 1), ({}, 5, 2), ({"bounce_face_up": True}, 7, 3), ({"deck": SMALL_DECK}, 4, 4)],
)
def test_a_loaded_game_plays_on_as_the_kernel_game_that_played_it(rules, players, seed):
    config = RulesConfig.from_dict({**rules, "num_players": players})
    pick = random.Random(seed)
    for trial in range(6):
        game = Game(config, seed * 100 + trial)
        played = KernelGame(config)
        played.reset(game.seed)
        for _ in range(pick.randrange(0, 400)):  # to a random point, round ends included
            if game.game_over:
                break
            action = pick.choice(game.legal_actions())
            game.step(action)
            played.step(action)
        loaded = KernelGame(config)
        seat = loaded.load(game)
        assert seat == played.seat == game.current_seat
        if seat < 0:
            continue
        assert snapshot(loaded) == snapshot(played)
        while not game.game_over:  # the same future, step by step
            action = pick.choice(game.legal_actions())
            game.step(action)
            code_a, code_b = played.step(action), loaded.step(action)
            assert code_a == code_b
            np.testing.assert_array_equal(loaded.results, played.results)
            assert snapshot(loaded) == snapshot(played)


def test_load_refuses_a_game_of_other_rules():
    kgame = KernelGame(RulesConfig(num_players=4))
    with pytest.raises(ValueError, match="config differs"):
        kgame.load(Game(RulesConfig(num_players=5), 0))
