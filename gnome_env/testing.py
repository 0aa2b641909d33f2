"""The documented test hook: stack the deck to build exact positions.

A stacked deck is a full deck order in R2 tokens, top card first. Dealing (R3) gives seat
``p`` the cards ``9p .. 9p+8`` as positions 0..8; the next cards are turned up for discard
piles A then B (R4: a hazard turned up is removed and the next card is turned instead); the
rest is the draw pile, top first. Pass it to the engine as
``Game(config, seed, stacked_decks={round: deck})``.

Example -- seat 0 holds ``5 5 M / 1 2 7 / 3 4 7``, pile A starts with a 9, pile B with a 2,
and the first card drawn is a hazard::

    deck = stack_deck(config, layouts=["5 5 M / 1 2 7 / 3 4 7"], top=["9", "2", "H"])
    game = Game(config, seed=0, stacked_decks={0: deck})
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence

import numpy as np

from gnome_env.cards import card_token, parse_card, parse_layout
from gnome_env.config import RulesConfig
from gnome_env.engine import Game


def layout_tokens(layout: str | Sequence[object]) -> list[int]:
    """Parse a layout written ``"5 5 M / 1 2 7 / 3 4 7"`` or as 9 tokens into card codes."""
    if isinstance(layout, str):
        layout = [t for t in layout.replace("/", " ").split()]
    return parse_layout(layout)


def stack_deck(
    config: RulesConfig,
    layouts: Sequence[str | Sequence[object] | None] = (),
    top: Sequence[object] = (),
    rest_seed: int | None = 0,
) -> list[str]:
    """A full deck order (tokens, top first) with the given layouts and following cards.

    ``layouts[p]`` is seat ``p``'s 9 cards (``None`` or missing: filled from the rest);
    ``top`` are the cards right after the deal (normally pile A, pile B, then the draw
    pile from the top). Every other card of the deck spec follows, shuffled with
    ``rest_seed`` (``None``: canonical order). Asking for more copies of a card than the
    deck has raises ``ValueError``.
    """
    n = config.num_players
    if len(layouts) > n:
        raise ValueError(f"{len(layouts)} layouts given for {n} players")
    wanted: list[list[int] | None] = [None] * n
    for p, layout in enumerate(layouts):
        if layout is not None:
            wanted[p] = layout_tokens(layout)
    top_codes = [parse_card(t) for t in top]
    pool = config.deck.counter()
    used = Counter(top_codes)
    for layout in wanted:
        if layout is not None:
            used.update(layout)
    over = used - pool
    if over:
        raise ValueError(
            "stack_deck asks for more cards than the deck has: "
            + ", ".join(f"{card_token(c)} x{k} too many" for c, k in over.items())
        )
    rest = list((pool - used).elements())
    if rest_seed is not None:
        rng = np.random.default_rng(rest_seed)
        rest = [rest[i] for i in rng.permutation(len(rest))]
    deck: list[int] = []
    for layout in wanted:
        if layout is None:
            deck.extend(rest[:9])
            del rest[:9]
        else:
            deck.extend(layout)
    deck.extend(top_codes)
    deck.extend(rest)
    return [card_token(c) for c in deck]


def permute_hidden_cards(game: Game, rng: random.Random) -> Game:
    """A copy of ``game`` with every card nobody can see shuffled among the hidden places.

    The hidden places are the face-down layout positions of every seat and the draw pile.
    Used by the no-leak tests: nothing a seat observes or decides may change.
    """
    other = game.copy()
    places = [(s, q) for s in range(other.num_players) for q in range(9) if not other.face_up[s][q]]
    hidden = [other.layouts[s][q] for s, q in places] + other.draw_pile
    rng.shuffle(hidden)
    for (s, q), card in zip(places, hidden, strict=False):
        other.layouts[s][q] = card
    other.draw_pile = hidden[len(places) :]
    return other


def hidden_card_twins(rules: RulesConfig, seed: int) -> Iterator[tuple[Game, Game]]:
    """``(game, twin)`` at every decision with a choice along one random game: ``twin`` is
    :func:`permute_hidden_cards` of ``game``. The game goes on with uniformly random legal
    actions drawn from ``random.Random(seed)``, whatever the caller does with the pair."""
    rng = random.Random(seed)
    game = Game(rules, seed)
    while not game.is_over:
        legal = game.legal_actions()
        if len(legal) > 1:
            yield game, permute_hidden_cards(game, rng)
        game.apply(legal[rng.randrange(len(legal))])
