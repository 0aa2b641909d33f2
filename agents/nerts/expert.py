"""The Nerts expert bot (spec ``expert``): greedy's moves, ordered for the race (N18-N22).

A hand of Nerts is a race: the seat that first empties its Nerts pile and calls (N22) wins
it almost always (greedy against greedy: 94% of 2-player hands), and every step spent is a
step the others also get. :class:`ExpertNertsAgent` keeps greedy's kinds of move
(:class:`agents.nerts.bots.GreedyNertsAgent`) and decides, from the seat's public view
(N34) alone, four things greedy does not:

1. **Defer idle foundation plays.** A waste or work card that fits a foundation is *idle*
   when playing it now does nothing for the seat: no other seat can take that slot first
   (N20: no predicted play onto it, no other seat with the same card on a top), the next
   card of its suit is not on one of the seat's own tops, and it does not empty a work pile
   or uncover a card that can be played or take the Nerts top. Idle plays come after the
   Nerts top's moves and greedy's useful work-pile moves (but still before the waste goes
   onto work piles and before a turn): a step goes to the Nerts pile first.
2. **Starve the opponent** (2 players only): an idle play whose next card (rank + 1, same
   suit) lies on a top of the other seat -- its Nerts top, waste top or a work-pile top --
   would hand it a play. Such plays wait until the stock cannot be turned or recycled.
   At 4 and 6 players, starving did not help (each card withheld helps the other
   opponents), so it is off there.
3. **Hold the waste top** (N15, N20): when another seat's predicted play puts the card
   just below the waste top onto a foundation this step, the waste top fits next step; the
   expert waits instead of turning it away.
4. **Avoid collisions** (N20, N21): among open slots that need the same card, it plays
   onto one that no other seat is predicted to play onto, so that neither play is blocked.

The other seats' plays are predicted with greedy's own order (Nerts top, then waste top,
then work-pile tops from the shortest pile, each onto the lowest slot that needs it):
everything it reads -- tops, piles, slots, scores -- is public (N34), and the priority
order pi of the step is not (it is drawn after the actions, N20, ND1), so the expert never
guesses it. Calls (N22) follow greedy's rule (call when level with or ahead of every other
seat, or when nothing useful is left); the measured alternatives were no better
(``docs/nerts.md``).

The bot is deterministic (it draws no random numbers; the seed is kept for the interface)
and never reads a hidden card (N35): ``tests/nerts/test_nerts_expert.py`` permutes them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from agents.nerts.bots import (
    NERTS_SOURCE,
    WASTE_SOURCE,
    NertsBot,
    fits_on,
    needed_cards,
    playable_to_foundation,
)
from gnome_env.nerts.actions import CALL, RECYCLE, SHIFT, TURN, WAIT, Kind, action_table
from gnome_env.nerts.cards import NUM_NATURAL
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.information import NertsView

_RANK = (*(c % 13 + 1 for c in range(NUM_NATURAL)), 0, 0)  # jokers: rank 0
_KING = 13

#: A foundation play: (action id, source index s, slot f or -1 for a new foundation, card).
Play = tuple[int, int, int, int | None]


@dataclass(frozen=True)
class ExpertSettings:
    """The expert's switches, each one idea of the module docstring (all on by default).

    ``starve`` None means: only at a 2-player table. Turning every switch off gives
    exactly greedy's play (the tuning script checks it).
    """

    defer_idle: bool = True
    starve: bool | None = None
    hold_waste: bool = True
    avoid_collisions: bool = True

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not isinstance(value, bool) and not (f.name == "starve" and value is None):
                allowed = "true, false or null" if f.name == "starve" else "true or false"
                raise ValueError(f"expert setting {f.name}={value!r} is not allowed: {allowed}")

    @classmethod
    def from_dict(cls, values: dict[str, object]) -> ExpertSettings:
        """Settings from a mapping of field names; an unknown name raises ``ValueError``."""
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - names)
        if unknown:
            raise ValueError(f"unknown expert settings {unknown}; known: {sorted(names)}")
        return cls(**values)  # type: ignore[arg-type]


class _Options:
    """The legal actions of one view, grouped, with the card each foundation play moves."""

    __slots__ = ("call", "found", "moves", "recycle", "shift", "slide", "to_work", "turn")

    def __init__(self, view: NertsView) -> None:
        table = action_table(view.config)
        me = view.seat
        work = view.work[me]
        tops = (view.nerts_top[me], view.waste_top[me], *(p[-1] if p else None for p in work))
        self.call = self.turn = self.recycle = self.shift = False
        self.found: list[Play] = []
        self.to_work: list[tuple[int, int, int]] = []  # (id, source t, pile w)
        self.slide: list[tuple[int, int, int]] = []  # (id, source t, pile w)
        self.moves: list[tuple[int, int, int, int]] = []  # (id, from w, to v, count c)
        for a in view.legal_actions:
            if a < 5:
                self.call |= a == CALL
                self.turn |= a == TURN
                self.recycle |= a == RECYCLE
                self.shift |= a == SHIFT
                continue
            d = table.decode(a)
            if d.kind == Kind.TO_SLOT:
                self.found.append((a, d.source, d.slot, tops[d.source]))
            elif d.kind == Kind.NEW_FOUNDATION:
                self.found.append((a, d.source, -1, tops[d.source]))
            elif d.kind == Kind.TO_WORK:
                self.to_work.append((a, d.source, d.pile))
            elif d.kind == Kind.SLIDE:
                self.slide.append((a, d.source, d.pile))
            else:
                self.moves.append((a, d.pile, d.target, d.count))


def predicted_play(view: NertsView, seat: int, need: dict[int, list[int]]) -> tuple[int, int]:
    """Greedy's foundation play for ``seat`` from the public view: ``(slot, card)``.

    The order is greedy's: the Nerts top, the waste top, then work-pile tops from the
    shortest pile; a card goes onto the lowest open slot that needs it (N8), an ace onto a
    new foundation (slot -1, N20.3: never blocked). ``(-1, -1)`` when the seat has no
    natural card to play, or is expected to call (N22: its Nerts pile is empty and its
    score is at least every other seat's), which is its whole action. Jokers are not
    predicted (their declaration is free, N33).
    """
    scores = view.hand_scores
    if (
        not view.config.auto_call
        and view.nerts_size[seat] == 0
        and scores[seat] >= max(s for i, s in enumerate(scores) if i != seat)
    ):
        return -1, -1
    work = view.work[seat]
    sources = [view.nerts_top[seat], view.waste_top[seat]]
    sources += [
        work[w][-1] for w in sorted(range(len(work)), key=lambda w: len(work[w])) if work[w]
    ]
    for x in sources:
        if x is None or x >= NUM_NATURAL:
            continue
        if _RANK[x] == 1:
            return -1, x
        slots = need.get(x)
        if slots:
            return slots[0], x
    return -1, -1


class ExpertNertsAgent(NertsBot):
    """Spec ``expert``: greedy's moves in the race order of the module docstring.

    Each step, in this order: the Nerts top to a foundation; waste and work cards to
    foundations that are not idle; the Nerts top onto a work pile (a run, slid under, an
    empty pile); greedy's useful work-pile moves; idle foundation plays (except those that
    feed the opponent, at 2 players); the waste top onto a work pile. A call (N22) comes
    before all of these when greedy's rule says so. With no such move: shift when
    exhausted (N17), wait if the waste top is about to fit, turn, recycle, the withheld
    plays, and wait only when nothing else is legal.
    """

    spec = "expert"

    def __init__(
        self,
        seed: int | None = None,
        config: NertsConfig | None = None,
        settings: ExpertSettings | None = None,
    ) -> None:
        super().__init__(seed, config)
        if settings is not None and not isinstance(settings, ExpertSettings):
            raise ValueError(f"settings must be ExpertSettings or None, got {settings!r}")
        self.settings = settings if settings is not None else ExpertSettings()

    # ------------------------------------------------------------------ the decision
    def decide(self, view: NertsView) -> int:
        """A legal action id for ``view.seat`` (see the class docstring)."""
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        me = view.seat
        opts = _Options(view)
        need = needed_cards(view)
        predicted = [
            predicted_play(view, j, need) if j != me else (-1, -1) for j in range(view.num_players)
        ]
        withheld: list[Play] = []
        move = self.progress_move(view, opts, need, predicted, withheld)
        if opts.call and self.should_call(view, move is not None):
            return CALL
        if move is not None:
            return move
        if opts.shift and view.exhausted[me]:
            return SHIFT
        if self.settings.hold_waste and self.waste_fits_next(view, need, predicted):
            return WAIT
        if opts.turn:
            return TURN
        if opts.recycle:
            return RECYCLE
        if withheld:
            return self.pick(view, withheld, predicted)
        return WAIT

    def should_call(self, view: NertsView, useful: bool) -> bool:
        """N22, greedy's rule: call when at least level with the best other hand score, or
        when nothing useful is left (no progress move and the stock cycle exhausted)."""
        me = view.seat
        scores = view.hand_scores
        best_other = max(s for i, s in enumerate(scores) if i != me)
        return scores[me] >= best_other or (not useful and view.exhausted[me])

    def progress_move(
        self,
        view: NertsView,
        opts: _Options,
        need: dict[int, list[int]],
        predicted: list[tuple[int, int]],
        withheld: list[Play],
    ) -> int | None:
        """The first move of the race order (class docstring), or None. Plays held back to
        starve the opponent are appended to ``withheld``."""
        nerts = [x for x in opts.found if x[1] == NERTS_SOURCE]
        rest = [x for x in opts.found if x[1] != NERTS_SOURCE]
        if self.settings.defer_idle:
            idle = [x for x in rest if self.is_idle(view, x, need, predicted)]
            busy = [x for x in rest if x not in idle]
        else:
            busy, idle = rest, []
        starve = self.settings.starve
        if starve or (starve is None and view.num_players == 2):
            withheld.extend(x for x in idle if self.feeds_other(view, x[3]))
            idle = [x for x in idle if x not in withheld]
        steps = (
            lambda: self.pick(view, nerts, predicted),
            lambda: self.pick(view, busy, predicted),
            lambda: self.nerts_move(view, opts),
            lambda: self.work_move(view, opts, need),
            lambda: self.pick(view, idle, predicted),
            lambda: self.waste_move(view, opts),
        )
        for step in steps:
            choice = step()
            if choice is not None:
                return choice
        return None

    # ------------------------------------------------------------------ foundations
    def contested(self, slot: int, predicted: list[tuple[int, int]]) -> int:
        """How many other seats are predicted to play onto open slot ``slot`` (N20)."""
        if slot < 0:
            return 0
        return sum(1 for f, _ in predicted if f == slot)

    def pick(
        self, view: NertsView, plays: list[Play], predicted: list[tuple[int, int]]
    ) -> int | None:
        """Greedy's pick among foundation plays (Nerts top, waste top, then the shortest
        work pile), choosing among equal slots the one with the fewest predicted rivals."""
        if not plays:
            return None
        work = view.work[view.seat]
        avoid = self.settings.avoid_collisions

        def key(item: Play) -> tuple[int, int, int, int]:
            a, s, f, _ = item
            rivals = self.contested(f, predicted) if avoid else 0
            return (min(s, 2), len(work[s - 2]) if s >= 2 else 0, rivals, a)

        return min(plays, key=key)[0]

    def is_idle(
        self,
        view: NertsView,
        play: Play,
        need: dict[int, list[int]],
        predicted: list[tuple[int, int]],
    ) -> bool:
        """Whether a waste or work card's foundation play does nothing for this seat now
        (module docstring, idea 1)."""
        _, s, f, card = play
        me = view.seat
        if card is None or card >= NUM_NATURAL:
            return False
        if self.contested(f, predicted) or self.on_other_top(view, card):
            return False  # another seat may take the slot first (N20): play it now
        if _RANK[card] < _KING:
            mine = (view.nerts_top[me], view.waste_top[me], *(q[-1] for q in view.work[me] if q))
            if card + 1 in mine:
                return False  # it opens the slot for one of this seat's own tops
        if s >= 2:
            pile = view.work[me][s - 2]
            if len(pile) == 1:
                return False  # it empties a work pile
            under = pile[-2]
            if playable_to_foundation(under, need) or fits_on(view.nerts_top[me], under):
                return False
        return True

    def on_other_top(self, view: NertsView, card: int) -> bool:
        """Whether another seat has ``card`` as its Nerts top, waste top or a work top."""
        for j in range(view.num_players):
            if j == view.seat:
                continue
            if card == view.nerts_top[j] or card == view.waste_top[j]:
                return True
            if any(q and q[-1] == card for q in view.work[j]):
                return True
        return False

    def feeds_other(self, view: NertsView, card: int | None) -> bool:
        """Whether playing ``card`` opens a foundation play for another seat: the next card
        of its suit is on one of that seat's tops (module docstring, idea 2)."""
        if card is None or card >= NUM_NATURAL or _RANK[card] == _KING:
            return False
        return self.on_other_top(view, card + 1)

    def waste_fits_next(
        self, view: NertsView, need: dict[int, list[int]], predicted: list[tuple[int, int]]
    ) -> bool:
        """Whether another seat's predicted play makes the waste top fit a foundation in the
        next step (idea 3): it is about to play the card just below it (N8)."""
        x = view.waste_top[view.seat]
        if x is None or x >= NUM_NATURAL or _RANK[x] == 1 or x in need:
            return False
        return any(card == x - 1 for _, card in predicted)

    # ------------------------------------------------------------------ greedy's moves
    def nerts_move(self, view: NertsView, opts: _Options) -> int | None:
        """The Nerts top onto a run, else slid under a pile (N12), else into an empty pile."""
        work = view.work[view.seat]
        for a, t, w in opts.to_work:
            if t == NERTS_SOURCE and work[w]:
                return a
        for a, t, _ in opts.slide:
            if t == NERTS_SOURCE:
                return a
        for a, t, _ in opts.to_work:
            if t == NERTS_SOURCE:
                return a
        return None

    def work_move(self, view: NertsView, opts: _Options, need: dict[int, list[int]]) -> int | None:
        """Greedy's moves between work piles that lead to progress next step (else None):
        uncover a card for a foundation or for the Nerts top, or free a space by moving a
        whole pile onto another."""
        work = view.work[view.seat]
        nerts_top = view.nerts_top[view.seat]
        best: tuple[tuple[int, int], int] | None = None
        for a, w, v, c in opts.moves:
            pile = work[w]
            if c < len(pile):
                under = pile[-c - 1]
                if playable_to_foundation(under, need):
                    rank = 0
                elif fits_on(nerts_top, under):
                    rank = 1
                else:
                    continue
                if not work[v]:
                    rank += 2
            elif work[v] and nerts_top is not None:
                rank = 4
            else:
                continue
            if best is None or (rank, c) < best[0]:
                best = ((rank, c), a)
        return None if best is None else best[1]

    def waste_move(self, view: NertsView, opts: _Options) -> int | None:
        """The waste top onto a run or under a pile; into an empty pile only once the Nerts
        pile is empty (empty piles are kept for Nerts cards)."""
        me = view.seat
        work = view.work[me]
        for a, t, w in opts.to_work:
            if t == WASTE_SOURCE and work[w]:
                return a
        for a, t, _ in opts.slide:
            if t == WASTE_SOURCE:
                return a
        if view.nerts_size[me] == 0:
            for a, t, _ in opts.to_work:
                if t == WASTE_SOURCE:
                    return a
        return None
