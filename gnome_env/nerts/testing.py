"""The documented Nerts test hook: stacked decks and directly built positions.

Rule tests build exact positions in one of two ways. Cards are N2 tokens (``7H``, ``TD``,
``JK``); piles are written bottom -> top, except stocks, which are written **top first**, as
the rules write them (``stock="4C 9D KS"``: ``4C`` is turned first).

1. **Stacked decks** (N4, N5): ``NertsGame(config, seed, stacked_decks={hand: {seat:
   deck}})`` deals ``deck`` (a full deck of 52 + jokers tokens, top card first) to ``seat``
   in ``hand`` instead of the shuffled one; other seats and hands are shuffled as usual. The
   deal takes the first ``nerts_size`` cards for the Nerts pile (the first card dealt is its
   bottom, the last one its face-up top), the next ``work_piles`` cards for work piles 0,
   1, ..., and the rest as the stock, top first. :func:`stack_deck` writes such a deck::

       deck = stack_deck(config, nerts="2C 3C ... 5H", work=["9S", "TD", "4C", "KH"],
                         stock="4C 9D KS")
       game = NertsGame(config, seed=0, stacked_decks={0: {1: deck}})

2. **Positions** (:func:`build_game`): any reachable-looking position, written directly::

       game = build_game(
           NertsConfig(num_players=3),
           seats={0: {"nerts": "5H"}, 2: {"waste": "5H", "stock": "KC", "rest": "nerts"}},
           foundations=["p1:AC", "p1:AD", "p1:AS", "p1:AH..4H"],
           steps=57,
       )

   ``seats[seat]`` may give ``nerts`` (bottom -> top), ``work`` (a list of W piles, each
   bottom -> top, ``""`` or ``"-"`` for an empty pile), ``stock`` (top first) and ``waste``
   (bottom -> top). Every card of the seat that is neither given nor on a foundation is a
   *leftover*, taken in the order of that seat's real shuffle for the hand: a part not given
   is dealt from the leftovers as N5 deals (``nerts_size`` cards to the Nerts pile, one card
   to each work pile, all the rest to the stock; the waste is empty). When the stock *is*
   given, the remaining leftovers go where ``rest`` says: ``"stock"`` (default; under the
   given stock cards), ``"nerts"`` (under the Nerts pile, face down) or ``"error"``.
   ``foundations[f]`` is slot f, bottom -> top, each card with its owner: ``p1:AH p1:2H
   p0:3H``; ``p1:AH..4H`` is p1's ``AH 2H 3H 4H``; a joker is written ``p0:JK=5H`` (declared
   as 5H, N33). Within a seat, jokers are numbered in the order they are written
   (foundations first, then Nerts pile, work piles, stock, waste): 52, then 53 (ND13).
   Counters may be set too (``hand``, ``steps``, ``stall``, ``remedy_done``, ``seen``,
   ``exhausted``, and ``past_hands``: the scores of earlier hands, which give the totals).
   The position is validated with :func:`~gnome_env.nerts.validate.check_invariants`.

:func:`step_with_priority` finds a step index whose pi is a wanted order, so that a test can
set ``steps=`` to meet a worked example's pi. :func:`joint` writes a step's action list.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gnome_env.nerts.actions import WAIT
from gnome_env.nerts.cards import (
    JOKER,
    NUM_NATURAL,
    RANKS,
    SUITS,
    assign_jokers,
    format_card,
    parse_card,
    parse_cards,
    parse_owned,
)
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.engine import HandResult, NertsGame, deal_order, priority_order

SEAT_KEYS = ("nerts", "work", "stock", "waste", "rest")
REST_PLACES = ("stock", "nerts", "error")


def stack_deck(
    config: NertsConfig,
    nerts: str | Sequence[str] | None = None,
    work: Sequence[str | None] | None = None,
    stock: str | Sequence[str] = (),
) -> list[str]:
    """A full deck (tokens, top first) that deals ``nerts`` (all ``nerts_size`` cards, bottom
    -> top), ``work`` (one card per pile; ``None`` entries filled) and a stock starting
    with ``stock`` (top first). The cards not named follow in canonical order (N1)."""
    ns, w_count = config.nerts_size, config.work_piles
    pool = list(range(config.deck_size))
    jokers = list(range(JOKER, config.deck_size))

    def take(cards: list[int]) -> list[int]:
        cards = assign_jokers(cards, jokers)
        for c in cards:
            if c not in pool:
                raise ValueError(f"stack_deck: {format_card(c)} is named twice or not in the deck")
            pool.remove(c)
        return cards

    nerts_cards = None if nerts is None else take(parse_cards(nerts))
    if nerts_cards is not None and len(nerts_cards) != ns:
        raise ValueError(f"stack_deck: nerts needs exactly nerts_size={ns} cards")
    work_cards: list[int | None] = [None] * w_count
    if work is not None:
        if len(work) != w_count:
            raise ValueError(f"stack_deck: work needs {w_count} entries (one card each)")
        for w, tok in enumerate(work):
            if tok is not None:
                work_cards[w] = take([parse_card(tok)])[0]
    stock_cards = take(parse_cards(stock))
    if nerts_cards is None:
        nerts_cards = [pool.pop(0) for _ in range(ns)]
    filled = [c if c is not None else pool.pop(0) for c in work_cards]
    deck = nerts_cards + filled + stock_cards + pool
    return [format_card(c) for c in deck]


def _foundation_tokens(text: str | Sequence[str]) -> list[str]:
    """Expand ``p1:AH..4H`` into ``p1:AH p1:2H p1:3H p1:4H``."""
    tokens = text.split() if isinstance(text, str) else list(text)
    out: list[str] = []
    for tok in tokens:
        if ".." not in tok:
            out.append(tok)
            continue
        head, last = tok.split("..", 1)
        owner, first = parse_owned(head)
        end = parse_card(last)
        if owner is None or first >= NUM_NATURAL or end // 13 != first // 13 or end < first:
            raise ValueError(f"foundation range {tok!r} must look like 'p1:AH..4H'")
        out.extend(f"p{owner}:{format_card(c)}" for c in range(first, end + 1))
    return out


def build_game(
    config: NertsConfig | None = None,
    seats: Mapping[int, Mapping[str, Any]] | None = None,
    foundations: Sequence[str | Sequence[str]] = (),
    *,
    seed: int = 0,
    hand: int | None = None,
    steps: int = 0,
    stall: int = 0,
    remedy_done: bool = False,
    seen: Sequence[int] | None = None,
    exhausted: Sequence[bool] | None = None,
    past_hands: Sequence[Sequence[int]] = (),
    check: bool = True,
) -> NertsGame:
    """A :class:`NertsGame` set to the given position (see the module docstring)."""
    from gnome_env.nerts.validate import check_invariants

    config = config or NertsConfig()
    seats = seats or {}
    p, ns, w_count, f_count = (
        config.num_players,
        config.nerts_size,
        config.work_piles,
        config.num_slots,
    )
    for seat, spec in seats.items():
        if not 0 <= seat < p:
            raise ValueError(f"build_game: seat {seat} is not a seat of {p} players")
        unknown = set(spec) - set(SEAT_KEYS)
        if unknown:
            raise ValueError(f"build_game: unknown seat keys {sorted(unknown)}; use {SEAT_KEYS}")
    if len(foundations) > f_count:
        raise ValueError(f"build_game: {len(foundations)} slots given, F = {f_count}")
    hand_index = len(past_hands) if hand is None else hand
    game = NertsGame(config, seed)
    game._deal(hand_index)
    pools = [deal_order(config.deck_size, seed, hand_index, s) for s in range(p)]
    jokers_left = [list(range(JOKER, config.deck_size)) for _ in range(p)]

    def take(seat: int, cards: list[int]) -> list[int]:
        try:
            cards = assign_jokers(cards, jokers_left[seat])
        except ValueError:
            raise ValueError(
                f"build_game: more jokers written for p{seat} than its deck has "
                f"(jokers={config.jokers})"
            ) from None
        for c in cards:
            if c not in pools[seat]:
                raise ValueError(
                    f"build_game: p{seat}:{format_card(c)} is used twice or not in the deck"
                )
            pools[seat].remove(c)
        return cards

    # Foundations first: their cards leave their owners' pools.
    for f, text in enumerate(foundations):
        for tok in _foundation_tokens(text):
            owner_text, _, card_text = tok.partition(":")
            physical_text, _, declared_text = card_text.partition("=")
            owner, _ = parse_owned(f"{owner_text}:{physical_text}")
            if owner is None or not 0 <= owner < p:
                raise ValueError(f"build_game: foundation card {tok!r} needs an owner p0..p{p - 1}")
            physical = take(owner, [parse_card(physical_text)])[0]
            if physical >= NUM_NATURAL:
                if not declared_text:
                    raise ValueError(f"build_game: joker {tok!r} needs its card: 'p0:JK=5H'")
                declared = parse_card(declared_text)
            else:
                declared = physical
            game.slot_cards[f].append(physical)
            game.slot_declared[f].append(declared)
            game.slot_owners[f].append(owner)
            game.found_count[owner] += 1
        if game.slot_cards[f]:
            game.slot_suit[f] = game.slot_declared[f][0] // 13
            game.slot_top[f] = game.slot_declared[f][-1] % 13 + 1
            game.slot_complete[f] = game.slot_top[f] == 13
            game.slots_used = f + 1

    for seat in range(p):
        spec = seats.get(seat, {})
        rest_place = spec.get("rest", "stock")
        if rest_place not in REST_PLACES:
            raise ValueError(f"build_game: rest={rest_place!r}; use one of {REST_PLACES}")
        nerts = None if spec.get("nerts") is None else take(seat, parse_cards(spec["nerts"]))
        work: list[list[int] | None] = [None] * w_count
        if spec.get("work") is not None:
            if len(spec["work"]) != w_count:
                raise ValueError(f"build_game: seat {seat} work needs {w_count} piles")
            work = [take(seat, parse_cards(pile)) for pile in spec["work"]]
        stock = None if spec.get("stock") is None else take(seat, parse_cards(spec["stock"]))
        waste = [] if spec.get("waste") is None else take(seat, parse_cards(spec["waste"]))
        rest = pools[seat]  # leftovers, in the seat's shuffled order
        if nerts is None:
            nerts, rest = rest[:ns], rest[ns:]
        for w in range(w_count):
            if work[w] is None:
                work[w], rest = rest[:1], rest[1:]
        if stock is None:
            stock, rest = rest, []
        elif rest:
            if rest_place == "error":
                raise ValueError(
                    f"build_game: seat {seat} leaves {len(rest)} cards unplaced: "
                    + " ".join(format_card(c) for c in rest)
                )
            if rest_place == "stock":
                stock = stock + rest
            else:
                nerts = rest + nerts
        game.nerts[seat] = list(nerts)
        game.nerts_face_up[seat] = [False] * (len(nerts) - 1) + [True] if nerts else []
        game.work[seat] = [list(pile or []) for pile in work]
        game.stock[seat] = list(reversed(stock))  # stored bottom -> top
        game.waste[seat] = list(waste)

    game.steps = steps
    game.stall = stall
    game.remedy_done = remedy_done
    game.seen = [0] * p if seen is None else [int(x) for x in seen]
    if exhausted is None:
        game.exhausted = [game.seen[i] >= game.cycle_size(i) for i in range(p)]
    else:
        game.exhausted = [bool(x) for x in exhausted]
    game.hand_results = [
        HandResult(h, tuple(int(x) for x in scores), "nerts", 0, ())
        for h, scores in enumerate(past_hands)
    ]
    game.totals = [sum(r.scores[i] for r in game.hand_results) for i in range(p)]
    game._invalidate()
    if check:
        check_invariants(game)
    return game


def step_with_priority(
    config: NertsConfig, order: Sequence[int], seed: int = 0, hand: int = 0, start: int = 0
) -> int:
    """The first step index ``k >= start`` whose pi (N20) is ``order``."""
    want = tuple(order)
    if sorted(want) != list(range(config.num_players)):
        raise ValueError(f"{want} is not an order of {config.num_players} seats")
    for k in range(start, start + 100_000):
        if priority_order(config.num_players, seed, hand, k) == want:
            return k
    raise ValueError(f"no step in {start}..{start + 99_999} has pi = {want}")


def step_with_priority_before(
    config: NertsConfig, first: int, second: int, seed: int = 0, hand: int = 0, start: int = 0
) -> int:
    """The first step index ``k >= start`` whose pi puts seat ``first`` before ``second``."""
    for k in range(start, start + 100_000):
        pi = priority_order(config.num_players, seed, hand, k)
        if pi.index(first) < pi.index(second):
            return k
    raise ValueError("no such step")  # pragma: no cover - half of all steps qualify


def joint(game: NertsGame, actions: Mapping[int, int] | None = None) -> list[int]:
    """A step's action list: ``actions[seat]`` for the seats given, ``wait`` for the rest."""
    out = [WAIT] * game.num_players
    for seat, a in (actions or {}).items():
        out[seat] = a
    return out


def run_cards(owner: int, suit: str, top: str) -> str:
    """Foundation text of ``owner``'s cards from the ace up to ``top`` of ``suit``
    (``run_cards(1, "H", "4")`` is ``p1:AH p1:2H p1:3H p1:4H``)."""
    s = SUITS.index(suit)
    return " ".join(f"p{owner}:{RANKS[r]}{SUITS[s]}" for r in range(RANKS.index(top) + 1))


def permute_hidden(game: NertsGame, rng: np.random.Generator) -> NertsGame:
    """A copy of ``game`` with every seat's hidden cards (N35: face-down Nerts cards, the
    stock's order and the waste under its top) re-dealt at random among those same hidden
    places. No seat can tell the two apart, so a view, an observation or a bot's decision
    must not change -- the no-leak tests of the information layer, the env and the bots."""
    other = game.copy()
    for s in range(other.num_players):
        places = [("n", i) for i, up in enumerate(other.nerts_face_up[s]) if not up]
        places += [("s", i) for i in range(len(other.stock[s]))]
        places += [("w", i) for i in range(max(0, len(other.waste[s]) - 1))]
        piles = {"n": other.nerts[s], "s": other.stock[s], "w": other.waste[s]}
        cards = [piles[k][i] for k, i in places]
        cards = [cards[j] for j in rng.permutation(len(cards))]
        for (k, i), c in zip(places, cards, strict=True):
            piles[k][i] = c
    other._invalidate()
    return other


def conformance_hooks():
    """The hooks of the game-agnostic conformance suite (``GameSpec.testing``)."""
    from gnome_env.core.testing import ConformanceHooks
    from gnome_env.nerts.validate import check_invariants

    return ConformanceHooks(
        kwargs=lambda players: {"num_players": players, "max_steps_per_hand": 40},
        permute_hidden=lambda game, seat, seed: permute_hidden(game, np.random.default_rng(seed)),
        check=check_invariants,
        digest=lambda game: game.digest(),
        observe=lambda env, agent: env.observations([agent])[agent],
    )
