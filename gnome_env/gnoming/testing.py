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

The compiled kernels (:mod:`gnome_env.gnoming._kernels`) take the same hook through
``KernelGame.reset(seed, stacked_decks={round: deck})``
(:class:`gnome_env.gnoming.vector.KernelGame`).
:class:`KernelRulesGame` puts ``Game``'s API on such a kernel game -- every value read back
from the kernel's state after each kernel step, legality from the kernel's mask -- so that
one rule test runs on both engines: the rule tests (``tests/test_rules_*.py``) take the
``engine`` fixture of ``tests/conftest.py``, which is ``Game`` or ``KernelRulesGame``::

    game = KernelRulesGame(config, seed=0, stacked_decks={0: deck})  # same calls as Game
"""

from __future__ import annotations

import copy
import hashlib
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import card_token, parse_card, parse_layout
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game, Phase, RoundResult, Source, check_stacked_decks


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
    while not game.game_over:
        legal = game.legal_actions()
        if len(legal) > 1:
            yield game, permute_hidden_cards(game, rng)
        game.step(legal[rng.randrange(len(legal))])


# ------------------------------------------------------------------ the kernels, as a Game
def kernel_state(g: np.ndarray, cards: np.ndarray, kcode: np.ndarray) -> dict[str, Any]:
    """The state fields of :class:`~gnome_env.gnoming.engine.Game` read from a kernel game.

    ``g`` is the game's state row (``C_*`` columns of :mod:`gnome_env.gnoming._kernels`), ``cards``
    its three card stacks (draw pile, pile A, pile B; bottom first) and ``kcode`` the card
    code of each kind index. The keys are ``Game``'s attribute names and the values have
    ``Game``'s types (lists of card codes, ``None`` for no card / no seat, :class:`Phase`,
    :class:`Source`). What a kernel row does not hold -- the config, the seed, the
    actions, the round results -- is not here (:class:`KernelRulesGame` keeps those).
    """
    from gnome_env.gnoming import _kernels as K

    n = int(g[K.C_N])

    def code(kind: int) -> int | None:
        return None if kind < 0 else int(kcode[kind])

    def optional(value: int) -> int | None:
        return None if value < 0 else int(value)

    lay, shown = K.C_LAY, K.C_SHOWN
    return {
        "num_players": n,
        "round": int(g[K.C_ROUND]),
        "first_player": int(g[K.C_FIRST_PLAYER]),
        "reshuffles": int(g[K.C_RESHUFFLES]),
        "hazards_removed": int(g[K.C_HAZ_REMOVED]),
        "held": code(int(g[K.C_HELD])),
        "held_source": Source(int(g[K.C_HELD_SRC])),
        "held_was_face_down": bool(g[K.C_HELD_DOWN]),
        "filled": int(g[K.C_FILLED]),
        "turns_played": int(g[K.C_TURNS]),
        "first_out": optional(int(g[K.C_FIRST_OUT])),
        "endgame_turns_left": optional(int(g[K.C_ENDGAME])),
        "phase": Phase(int(g[K.C_PHASE])),
        "current_seat": int(g[K.C_SEAT]),
        "turn_player": int(g[K.C_TURN_PLAYER]),
        "flip_queue": [int(s) for s in g[K.C_FQ + g[K.C_FQ_POS] : K.C_FQ + g[K.C_FQ_LEN]]],
        "layouts": [[int(kcode[g[lay + 9 * s + q]]) for q in range(9)] for s in range(n)],
        "face_up": [
            [bool(g[shown + 9 * s + q] != K.FACE_DOWN) for q in range(9)] for s in range(n)
        ],
        "down_count": [int(d) for d in g[K.C_DOWN : K.C_DOWN + n]],
        "draw_pile": [int(kcode[k]) for k in cards[0, : g[K.C_LEN]]],
        "piles": [[int(kcode[k]) for k in cards[i, : g[K.C_LEN + i]]] for i in (1, 2)],
        "totals": [int(t) for t in g[K.C_TOTALS : K.C_TOTALS + n]],
        "_turn_cap": int(g[K.C_TURN_CAP]),
    }


class KernelRulesGame:
    """``Game``'s API on a :class:`gnome_env.gnoming.vector.KernelGame`: one game on the kernels.

    Built like ``Game(config, seed, stacked_decks=...)`` (the stacked decks go to the
    kernel game's test hook). It holds no rules of its own:

    * every state field (``phase``, ``current_seat``, ``layouts``, ``face_up``, ``piles``,
      ``draw_pile``, ``held``, ``totals``, ... -- see :func:`kernel_state`) is read from the
      kernel's state after each kernel step;
    * ``legal_actions()`` / ``legal_mask()`` are the kernel's mask (listed in ``Game``'s
      order: ascending, except that bounces come before the two discards); ``apply`` hands
      the action to the kernel step, which refuses an action its mask does not allow --
      then ``apply`` raises ``ValueError`` (``Game``'s message) and nothing changed;
      malformed or out-of-range actions are refused before the kernel, as ``Game`` does;
    * ``round_results`` are the kernel's results (``R_*`` columns) of each round end,
      with the revealed layouts and the turn count read from the kernel's state before the
      next round is dealt; ``winners()`` is the kernel's R23 result (``R_WINNERS``);
      ``can_bounce`` is the kernel's R11 answer (the ``can_bounce`` token it writes);
    * ``visible_layout``, ``card_count`` and ``render`` are ``Game``'s, over these fields.

    ``state_tuple()`` / ``digest()`` cover the raw kernel arrays (and the results kept
    here), so "a rejected action changes nothing" is checked on the kernel state itself.
    """

    # The old spellings (before one vocabulary for every engine): warn once.
    # Game's views of its own fields: no rules in them, so the kernel fields can use them;
    # and Game's old spellings (apply, is_over), which warn once and call step / game_over.
    apply = Game.apply
    is_over = Game.is_over
    visible_layout = Game.visible_layout
    card_count = Game.card_count
    render = Game.render

    def __init__(
        self,
        config: RulesConfig | None = None,
        seed: int = 0,
        *,
        stacked_decks: Mapping[int, Sequence[object]] | None = None,
    ) -> None:
        from gnome_env.gnoming.vector import KernelGame

        if config is None:
            config = RulesConfig()
        self.config = config
        self.seed = int(seed)
        self.stacked_decks = check_stacked_decks(config, stacked_decks)
        self.actions: list[int] = []
        self.round_results: list[RoundResult] = []
        self._winners: tuple[int, ...] | None = None
        self._kgame = KernelGame(config)
        self._kgame.reset(self.seed, stacked_decks=stacked_decks)
        self._read()

    def _read(self) -> None:
        """Read the state fields from the kernel (after every kernel step)."""
        kg = self._kgame
        self._state = kernel_state(kg._g, kg._cards, kg._vec._kcode)

    def __getattr__(self, name: str) -> Any:
        state = self.__dict__.get("_state")
        if state is not None and name in state:
            return state[name]
        raise AttributeError(f"{type(self).__name__} has no attribute {name!r}")

    # ------------------------------------------------------------------ decisions
    @property
    def game_over(self) -> bool:
        return self._state["phase"] == Phase.GAME_OVER

    @property
    def can_bounce(self) -> bool:
        """R11, as the kernel wrote it into the acting seat's tokens."""
        from gnome_env.gnoming import _kernels as K

        return self.phase == Phase.DISPLACED and bool(self._kgame.tokens[K.TOK_CAN_BOUNCE])

    def legal_mask(self) -> np.ndarray:
        """The kernel's legal mask (a copy). Once the game is over the kernel writes no
        further decision; its legality function (``write_legal``) then allows nothing."""
        from gnome_env.gnoming import _kernels as K

        kg = self._kgame
        if not self.game_over:
            return kg.mask.astype(bool)
        mask = np.zeros(A.NUM_ACTIONS, dtype=bool)
        vec = kg._vec
        K.write_legal(kg._g, kg._cards, vec._prm, vec._kcode, mask)
        return mask

    def legal_actions(self) -> list[int]:
        discards = (A.DISCARD_A, A.DISCARD_B)
        ids = np.flatnonzero(self.legal_mask()).tolist()
        return sorted(ids, key=lambda a: (a in discards, a))

    def step(self, action: object) -> None:
        """The kernel step of ``action``; an illegal or malformed one raises ``ValueError``
        and changes nothing."""
        from gnome_env.gnoming import _kernels as K

        action = A.coerce_action(action)  # malformed or out of range: never reaches the kernel
        kg = self._kgame
        if self.game_over:  # the kernel step would read a stale mask: nothing is legal now
            self._reject(action)
        code = kg._step(*kg._step_args, action)
        if code == K.STEP_ILLEGAL:
            self._reject(action)
        self.actions.append(action)
        if code < 0:  # paused: a reshuffle, or a round (or the game) ended
            if kg.results[K.R_ROUND_ENDED]:
                self._record_round_end()
            kg._after_pause(code)  # KernelGame.step's own continuation
        else:
            kg.seat = code
        self._read()

    def _reject(self, action: int) -> None:
        legal = self.legal_actions()
        allowed = ", ".join(f"{a} ({A.ACTION_NAMES[a]})" for a in legal) or "none"
        raise ValueError(
            f"illegal action {action} ({A.ACTION_NAMES[action]}) in phase {self.phase.name} "
            f"for seat {self.current_seat}; legal actions: {allowed}"
        )

    def _record_round_end(self) -> None:
        """The kernel's results of the round that just ended; the kernel state still shows
        that round (revealed layouts, turn count) until the next deal."""
        from gnome_env.gnoming import _kernels as K
        from gnome_env.gnoming.vector import ENDED_BY

        kg = self._kgame
        res = kg.results
        n = self.config.num_players
        state = kernel_state(kg._g, kg._cards, kg._vec._kcode)
        first_out = int(res[K.R_FIRST_OUT])
        self.round_results.append(
            RoundResult(
                round=int(res[K.R_ROUND]),
                layouts=tuple(tuple(layout) for layout in state["layouts"]),
                layout_scores=tuple(int(x) for x in res[K.R_LAYOUT_SCORES :][:n]),
                first_out=None if first_out < 0 else first_out,
                round_scores=tuple(int(x) for x in res[K.R_ROUND_SCORES :][:n]),
                ended_by=ENDED_BY[res[K.R_ENDED_BY]],
                turns=state["turns_played"],
            )
        )
        if res[K.R_DONE]:
            self._winners = tuple(s for s in range(n) if res[K.R_WINNERS + s])

    # ------------------------------------------------------------------ results and copies
    def winners(self) -> tuple[int, ...]:
        """R23 as the kernel decided it; ``ValueError`` before the game is over."""
        if self._winners is None:
            raise ValueError("winners and rankings are only defined once the game is over")
        return self._winners

    def copy(self) -> KernelRulesGame:
        """An independent copy (a new kernel game with copies of the kernel arrays)."""
        new = KernelRulesGame.__new__(KernelRulesGame)
        new.__dict__.update(self.__dict__)
        new.actions = list(self.actions)
        new.round_results = list(self.round_results)
        new._kgame = copy.copy(self._kgame)  # KernelGame's __getstate__ / __setstate__
        new._read()
        return new

    def state_tuple(self) -> tuple:
        """The raw kernel state (row, card stacks, mask, seat) and the results kept here."""
        kg = self._kgame
        return (
            repr(self.config),
            self.seed,
            tuple(sorted(self.stacked_decks.items())),
            kg._g.tobytes(),
            kg._cards.tobytes(),
            kg.mask.tobytes(),
            kg.seat,
            tuple(self.round_results),
            self._winners,
        )

    def digest(self) -> str:
        return hashlib.sha256(repr(self.state_tuple()).encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        return (
            f"KernelRulesGame(players={self.num_players}, seed={self.seed}, "
            f"round={self.round}, phase={self.phase.name}, seat={self.current_seat})"
        )


# ------------------------------------------------------------------ conformance hooks
def conformance_hooks():
    """The hooks of the game-agnostic conformance suite (``GameSpec.testing``)."""
    from gnome_env.core.testing import ConformanceHooks
    from gnome_env.gnoming import records
    from gnome_env.gnoming.validate import check_invariants

    return ConformanceHooks(
        kwargs=lambda players: {"num_players": players, "rounds": 1},
        permute_hidden=lambda game, seat, seed: permute_hidden_cards(game, random.Random(seed)),
        check=check_invariants,
        digest=lambda game: game.digest(),
        to_record=records.to_record,
        from_record=records.replay,
    )
