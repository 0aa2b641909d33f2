"""N34/N35: a seat's view of a Nerts game holds public information only."""

from __future__ import annotations

import numpy as np
import pytest

from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.testing import permute_hidden


def _played(config: NertsConfig, seed: int, steps: int) -> NertsGame:
    game = NertsGame(config, seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.hand_over:
            game.next_hand()
        acts = []
        for s in range(game.num_players):
            legal = game.legal_actions(s)
            acts.append(legal[int(rng.integers(len(legal)))])
        game.step(acts)
    return game


@pytest.mark.parametrize("players,seed,steps", [(2, 1, 15), (4, 2, 40), (6, 3, 80)])
def test_n35_view_unchanged_when_hidden_cards_are_permuted(players, seed, steps):
    game = _played(NertsConfig(num_players=players), seed, steps)
    rng = np.random.default_rng(seed)
    moved = False
    for _ in range(4):
        other = permute_hidden(game, rng)
        moved |= other.digest() != game.digest()
        for s in range(players):
            assert NertsView.from_game(other, s) == NertsView.from_game(game, s)
    assert moved  # the permutation did change the hidden cards


def test_n34_view_shows_the_public_cards():
    game = _played(NertsConfig(num_players=3), 5, 30)
    view = NertsView.from_game(game, 1)
    for s in range(3):
        assert view.nerts_size[s] == len(game.nerts[s])
        assert view.nerts_top[s] == (game.nerts[s][-1] if game.nerts[s] else None)
        assert [list(p) for p in view.work[s]] == game.work[s]
        assert view.waste_top[s] == (game.waste[s][-1] if game.waste[s] else None)
        assert view.stock_size[s] == len(game.stock[s])
    assert view.legal_actions == tuple(game.legal_actions(1))
    assert view.hand_scores == tuple(game.hand_scores())
    with pytest.raises(ValueError, match="seat=3"):
        NertsView.from_game(game, 3)
