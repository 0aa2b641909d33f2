"""Memory of waste tops: where every remembered stock and waste card of each seat is now.

A player learns a stock's order only by remembering waste tops (N35), and every waste top
is public (N34). Every move of stock and waste cards is public and fixed by the rules --
turn (N15), recycle (N16), shift (N17), the remedy (N26) and plays of the waste top -- so a
seat that remembers each waste top it has seen knows where that card is now, in any seat's
stock or waste. The observation (``nerts_v0``) shows the current state only: memory is the
agent's job (N35), and this is that job for a bot.

:class:`WasteMemory` follows one seat's sequence of views. Each seat's stock and waste are
kept bottom -> top like the engine's lists, a card id where it is remembered and -1 where
not; every step replays the step's public actions (``view.last_actions`` /
``view.last_blocked``) and the remedy, then writes the waste tops now showing. Another view
of the step already taken in (another seat's) changes nothing: the memory is public, so one
object may watch several seats. If a step was missed (the views do not follow one another)
or the sizes do not match the view's, what is remembered is dropped rather than guessed.

:func:`remember_waste_tops` is the same memory on the batched engine's rows, as the set of
cards that have been waste tops: the rows hold every card where it is, so a remembered
card's place is read there (the tests hold the two equal). :func:`memory_features` (from a
``WasteMemory``) and :func:`memory_features_rows` (from the rows) give a learned policy what
the memory says comes next.
"""

from __future__ import annotations

import numpy as np

from gnome_env.core.jit import maybe_njit
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.actions import RECYCLE, SHIFT, TURN, Kind, action_table
from gnome_env.nerts.encoding import CARD_IDS
from gnome_env.nerts.information import NertsView

UNKNOWN = -1
WASTE_SOURCE = 1  # source s / t of a play (N36): 0 the Nerts top, 1 the waste top
#: Turns ahead whose waste top the memory features name (:func:`memory_features`).
TURNS_AHEAD = 3
#: Cards named per seat: the waste top after each of the next TURNS_AHEAD turns, and the
#: card under the waste top now.
FEATURE_CARDS = TURNS_AHEAD + 1
#: Width of the per-seat part: 6 rotated seat blocks of FEATURE_CARDS one-hot card ids.
SEAT_FEATURES = K.MAX_P * FEATURE_CARDS * CARD_IDS
#: For each remembered card of the observer's own stock and waste (by card id), where it
#: is in the cycle of its stock (N15, N16): in the stock, in the waste, a waste top after
#: one of this pass's turns (stock cards; the waste top now), a waste top after one of the
#: next pass's turns as things stand, and the same if the waste top were played first (a
#: play from the waste shifts which cards the next pass's turns show).
CYCLE_FIELDS = ("in_stock", "in_waste", "now", "next", "next_if_played")
CYCLE_FEATURES = len(CYCLE_FIELDS) * CARD_IDS
#: Width of the memory features: the seat blocks, then the own cycle block.
MEMORY_FEATURES = SEAT_FEATURES + CYCLE_FEATURES


class WasteMemory:
    """What one seat remembers of every seat's stock and waste (module docstring)."""

    def __init__(self) -> None:
        self.stock: list[list[int]] = []  # per seat, bottom -> top; UNKNOWN where forgotten
        self.waste: list[list[int]] = []
        self._at: tuple[int, int] | None = None  # (hand, step) of the last view
        self._remedy_done = False
        self._from_waste: frozenset[int] | None = None
        self._config = None

    def observe(self, view: NertsView) -> None:
        """Take in ``view``, the seat's view at the start of a step."""
        if self._config != view.config:
            table = action_table(view.config)
            waste_plays = (Kind.TO_SLOT, Kind.NEW_FOUNDATION, Kind.TO_WORK, Kind.SLIDE)
            self._from_waste = frozenset(
                a
                for a in range(view.config.n_actions)
                if table.decode(a).kind in waste_plays and table.decode(a).source == WASTE_SOURCE
            )
            self._config = view.config
            self._at = None
        if self._at == (view.hand, view.step) and len(self.stock) == view.num_players:
            return  # this step again (another seat's view: the memory is the same, N34)
        follows = (
            self._at == (view.hand, view.step - 1)
            and view.last_actions is not None
            and view.last_blocked is not None
            and len(self.stock) == view.num_players
        )
        if follows:
            for j in range(view.num_players):
                self._replay(j, view.last_actions[j], view.last_blocked[j], view.config.turn_size)
            if view.remedy_done and not self._remedy_done:  # N26 happened in that step
                for j in range(view.num_players):
                    self._remedy(j)
        else:
            self.stock = [[] for _ in range(view.num_players)]
            self.waste = [[] for _ in range(view.num_players)]
        for j in range(view.num_players):
            stock, waste = self.stock[j], self.waste[j]
            if len(stock) != view.stock_size[j] or len(waste) != view.waste_size[j]:
                self.stock[j] = [UNKNOWN] * view.stock_size[j]
                self.waste[j] = [UNKNOWN] * view.waste_size[j]
            if view.waste_size[j]:
                self.waste[j][-1] = int(view.waste_top[j])
        self._at = (view.hand, view.step)
        self._remedy_done = view.remedy_done

    def _replay(self, j: int, action: int, blocked: bool, turn_size: int) -> None:
        stock, waste = self.stock[j], self.waste[j]
        if blocked:
            return
        if action == TURN:  # N15: s1 s2 s3 (top first) land bottom -> top
            for _ in range(min(turn_size, len(stock))):
                waste.append(stock.pop())
        elif action == RECYCLE:  # N16: the first card turned becomes the stock top
            waste.reverse()
            self.stock[j], self.waste[j] = waste, []
        elif action == SHIFT and stock:  # N17: the stock top to the bottom
            stock.insert(0, stock.pop())
        elif action in self._from_waste and waste:
            waste.pop()

    def _remedy(self, j: int) -> None:
        """N26: the waste turned over, then the stock; its top goes to the bottom."""
        cycle = self.waste[j] + self.stock[j][::-1]  # top first
        if len(cycle) >= 2:
            cycle.append(cycle.pop(0))
        cycle.reverse()
        self.stock[j], self.waste[j] = cycle, []

    def known(self, seat: int) -> list[tuple[int, int]]:
        """``(row cell, card)`` of every remembered card in ``seat``'s hidden places (its
        stock, its waste under the top), for a kernel row (:mod:`gnome_env.nerts._kernels`)."""
        out = []
        for i, card in enumerate(self.stock[seat]):
            if card != UNKNOWN:
                out.append((K.STOCK + seat * K.MAX_DECK + i, card))
        for i, card in enumerate(self.waste[seat][:-1]):
            if card != UNKNOWN:
                out.append((K.WASTE + seat * K.MAX_DECK + i, card))
        return out


@maybe_njit
def remember_waste_tops(st, seen):
    """``seen[b, j, c]``: card ``c`` of seat ``j`` has been a waste top in row ``b``'s hand
    (cleared when a hand is dealt, at step 0). Call after every step of the batched engine."""
    for b in range(st.shape[0]):
        g = st[b]
        if g[K.C_STEPS] == 0:
            for j in range(seen.shape[1]):
                for c in range(seen.shape[2]):
                    seen[b, j, c] = False
        for j in range(g[K.C_P]):
            w = g[K.S_WLEN + j]
            if w > 0:
                seen[b, j, g[K.WASTE + j * K.MAX_DECK + w - 1]] = True


def seen_array(envs: int) -> np.ndarray:
    """An empty ``seen`` array for :func:`remember_waste_tops` of ``envs`` rows."""
    return np.zeros((envs, K.MAX_P, K.MAX_DECK), np.bool_)


@maybe_njit
def _ahead(size, turn_size, k):
    """Depth from the stock top of the card that is the waste top after ``k`` more turns
    (1-based), or -1 when the stock runs out before the ``k``-th turn."""
    if turn_size * (k - 1) >= size:
        return -1
    return min(turn_size * k, size) - 1


@maybe_njit
def feature_cell(g, j, k, turn):
    """The row cell of the card that seat ``j``'s ``k``-th memory feature names (``k`` <
    :data:`TURNS_AHEAD`: the waste top after turn ``k + 1`` from now; ``k`` =
    :data:`TURNS_AHEAD`: the card under the waste top), or -1 when there is none."""
    if k < TURNS_AHEAD:
        size = g[K.S_SLEN + j]
        depth = _ahead(size, turn, k + 1)
        return K.STOCK + j * K.MAX_DECK + size - 1 - depth if depth >= 0 else -1
    w = g[K.S_WLEN + j]
    return K.WASTE + j * K.MAX_DECK + w - 2 if w >= 2 else -1


@maybe_njit
def _shown(i, n, turn):
    """Whether the card ``i`` places from the top (0-based) of an ``n``-card stock is a
    waste top after one of the turns of a pass through it (N15: the last turn takes what is
    left)."""
    return i % turn == turn - 1 or i == n - 1


@maybe_njit
def _cycle_card(out, base, card, in_stock, depth, stock_size, waste_size, turn):
    """Write the :data:`CYCLE_FIELDS` of one remembered card at ``out[base:]``: ``depth`` is
    its place from the stock top (a stock card) or from the waste bottom (a waste card)."""
    n = stock_size + waste_size
    if in_stock:
        out[base + card] = 1.0
        if _shown(depth, stock_size, turn):
            out[base + 2 * CARD_IDS + card] = 1.0
        at = waste_size + depth  # next pass: the waste bottom first, then these (N16)
        played = at - 1 if waste_size > 0 else at
        n_played = n - 1 if waste_size > 0 else n
    else:
        out[base + CARD_IDS + card] = 1.0
        if depth == waste_size - 1:
            out[base + 2 * CARD_IDS + card] = 1.0  # the waste top shows now
        at = depth
        played = -1 if depth == waste_size - 1 else depth
        n_played = n - 1
    if _shown(at, n, turn):
        out[base + 3 * CARD_IDS + card] = 1.0
    if played >= 0 and _shown(played, n_played, turn):
        out[base + 4 * CARD_IDS + card] = 1.0


def memory_features(memory: WasteMemory, view: NertsView) -> np.ndarray:
    """What ``view.seat``'s memory says comes next, float32 ``[MEMORY_FEATURES]``: for each
    seat ``r`` places after the observer (rotated as the observation's seat blocks), the
    one-hot card id of the waste top after each of its next :data:`TURNS_AHEAD` turns and of
    the card under its waste top now, where remembered (zeros where not, or no such card);
    then, for each remembered card of the observer's own stock and waste, its
    :data:`CYCLE_FIELDS`."""
    out = np.zeros(MEMORY_FEATURES, np.float32)
    p, turn = view.num_players, view.config.turn_size
    for r in range(p):
        j = (view.seat + r) % p
        stock, waste = memory.stock[j], memory.waste[j]
        base = r * FEATURE_CARDS * CARD_IDS
        for k in range(1, TURNS_AHEAD + 1):
            depth = _ahead(len(stock), turn, k)
            if depth >= 0 and stock[len(stock) - 1 - depth] != UNKNOWN:
                out[base + (k - 1) * CARD_IDS + stock[len(stock) - 1 - depth]] = 1.0
        if len(waste) >= 2 and waste[-2] != UNKNOWN:
            out[base + TURNS_AHEAD * CARD_IDS + waste[-2]] = 1.0
    stock, waste = memory.stock[view.seat], memory.waste[view.seat]
    for i, card in enumerate(stock):
        if card != UNKNOWN:
            _cycle_card(out, SEAT_FEATURES, card, True, len(stock) - 1 - i, len(stock),
                        len(waste), turn)  # fmt: skip
    for i, card in enumerate(waste):
        if card != UNKNOWN:
            _cycle_card(out, SEAT_FEATURES, card, False, i, len(stock), len(waste), turn)
    return out


@maybe_njit
def memory_features_rows(st, seen, seats, turn, out):
    """:func:`memory_features` on the batched engine's rows: ``out[b]`` for observer
    ``seats[b]`` of row ``b``, from ``seen`` (:func:`remember_waste_tops`)."""
    for b in range(st.shape[0]):
        g = st[b]
        p = g[K.C_P]
        for x in range(out.shape[1]):
            out[b, x] = 0.0
        for r in range(p):
            j = (seats[b] + r) % p
            base = r * FEATURE_CARDS * CARD_IDS
            for k in range(FEATURE_CARDS):
                cell = feature_cell(g, j, k, turn)
                if cell >= 0 and seen[b, j, g[cell]]:
                    out[b, base + k * CARD_IDS + g[cell]] = 1.0
        j = seats[b]
        size, w = g[K.S_SLEN + j], g[K.S_WLEN + j]
        for i in range(size):
            c = g[K.STOCK + j * K.MAX_DECK + i]
            if seen[b, j, c]:
                _cycle_card(out[b], SEAT_FEATURES, c, True, size - 1 - i, size, w, turn)
        for i in range(w):
            c = g[K.WASTE + j * K.MAX_DECK + i]
            if seen[b, j, c]:
                _cycle_card(out[b], SEAT_FEATURES, c, False, i, size, w, turn)
