"""Nerts in words a newcomer reads: cards (``5♥``), places (``the Nerts pile``, ``work pile
2``, ``foundation 3``) and what every seat did in the last step, with who won a race for a
foundation (N20, N21).

Everything here reads a :class:`~gnome_env.nerts.information.NertsView` *after* the step
(public information, N34: the step's joint action, the blocked plays and pi are public once
the step is over). The card each action moved is read from where it went (or, for a blocked
play, from where it stayed), never from a card the step turned up, so the words of a step do
not depend on any card that was hidden before it (N35). The replay viewer
(:mod:`gnome_env.nerts.viewer`) and the ``rgb_array`` picture
(:mod:`gnome_env.nerts.render_image`) both use these words.
"""

from __future__ import annotations

from dataclasses import dataclass

from gnome_env.nerts.actions import CALL, RECYCLE, SHIFT, TURN, WAIT, Kind, action_table
from gnome_env.nerts.cards import NUM_NATURAL
from gnome_env.nerts.information import NertsView

SUIT_SYMBOLS = "♣♦♥♠"  #: C D H S (N2 suit index order)
RANK_WORDS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
END_WORDS = {
    "nerts": "Nerts was called (N22)",
    "blocked": "the table was stuck again after the remedy (N27)",
    "cap": "the step cap was reached (N28)",
}


def card_words(card: int | None) -> str:
    """A card as a newcomer reads it: ``5♥``, ``10♠``, ``joker``; ``-`` for none."""
    if card is None:
        return "-"
    if card >= NUM_NATURAL:
        return "joker"
    return RANK_WORDS[card % 13] + SUIT_SYMBOLS[card // 13]


def card_token(card: int) -> str:
    """A card as ``card_words`` writes it, jokers ``JK`` (short, for card faces)."""
    return "JK" if card >= NUM_NATURAL else card_words(card)


def source_words(s: int) -> str:
    """N19 source index: 0 the Nerts pile, 1 the waste, 2 + w work pile w."""
    return ("the Nerts pile", "the waste")[s] if s < 2 else f"work pile {s - 2}"


def seat_name(seat: int) -> str:
    """``player 2`` (seats are numbered from 0, as everywhere in the project)."""
    return f"player {seat}"


@dataclass(frozen=True)
class SeatStep:
    """What one seat did in a step, in words: ``text`` (past tense), whether its play was
    ``blocked`` (N21) and by whom (``beaten_by``), and the card it moved (None for wait,
    call, turn, recycle, shift)."""

    seat: int
    action: int
    text: str
    blocked: bool = False
    beaten_by: tuple[int, ...] = ()
    card: int | None = None


def _source_top(view: NertsView, seat: int, s: int) -> int | None:
    """The card on top of source ``s`` of ``seat`` (where a blocked play's card stayed)."""
    if s == 0:
        return view.nerts_top[seat]
    if s == 1:
        return view.waste_top[seat]
    pile = view.work[seat][s - 2]
    return pile[-1] if pile else None


def _new_slot(view: NertsView, seat: int, suit: int) -> int | None:
    """The latest foundation ``seat`` started with the ace of ``suit`` (N20.3)."""
    found = [
        f
        for f in range(view.slots_used)
        if view.slots[f].owners[:1] == (seat,) and view.slots[f].cards[0] == 13 * suit
    ]
    return found[-1] if found else None


def _winners(view: NertsView, slot: int) -> tuple[int, ...]:
    """The seats whose play onto ``slot`` in the last step went through."""
    table = action_table(view.config)
    assert view.last_actions is not None and view.last_blocked is not None
    out = []
    for s in view.last_priority or range(view.num_players):
        a = view.last_actions[s]
        if a >= 5 and not view.last_blocked[s]:
            d = table.decode(a)
            if d.kind == Kind.TO_SLOT and d.slot == slot:
                out.append(s)
    return tuple(out)


def _simple(a: int) -> str:
    return {
        WAIT: "waited",
        CALL: "called Nerts! (the hand ends with this step, N22)",
        TURN: "turned cards from the stock onto the waste (N15)",
        RECYCLE: "turned the waste over into a new stock (N16)",
        SHIFT: "moved the top card of the stock to the bottom (N17)",
    }[a]


def seat_step(view: NertsView, seat: int) -> SeatStep | None:
    """What ``seat`` did in the step that led to ``view`` (None before the hand's first
    step)."""
    if view.last_actions is None or view.last_blocked is None:
        return None
    a = view.last_actions[seat]
    if a < 5:
        return SeatStep(seat, a, _simple(a))
    d = action_table(view.config).decode(a)
    src = source_words(d.source) if d.kind != Kind.WORK_MOVE else ""
    if d.kind == Kind.TO_SLOT:
        if view.last_blocked[seat]:
            card = _source_top(view, seat, d.source)
            first = _winners(view, d.slot)
            who = " and ".join(seat_name(s) for s in first) or "another player"
            text = (
                f"blocked: {who} got to foundation {d.slot} first, so {card_words(card)} stays "
                f"in {src} (N20, N21)"
            )
            return SeatStep(seat, a, text, blocked=True, beaten_by=first, card=card)
        card = view.slots[d.slot].cards[-1]
        return SeatStep(
            seat, a, f"played {card_words(card)} from {src} onto foundation {d.slot}", card=card
        )
    if d.kind == Kind.NEW_FOUNDATION:
        f = _new_slot(view, seat, d.suit)
        where = f"foundation {f}" if f is not None else "a new foundation"
        ace = 13 * d.suit
        return SeatStep(seat, a, f"started {where} with {card_words(ace)} from {src}", card=ace)
    pile = view.work[seat][d.pile]
    if d.kind == Kind.TO_WORK:
        card = pile[-1] if pile else None
        return SeatStep(
            seat, a, f"put {card_words(card)} from {src} on work pile {d.pile}", card=card
        )
    if d.kind == Kind.SLIDE:
        card = pile[0] if pile else None
        text = f"slid {card_words(card)} from {src} under work pile {d.pile} (N12)"
        return SeatStep(seat, a, text, card=card)
    target = view.work[seat][d.target]
    run = target[len(target) - d.count :]
    if d.count == 1:
        what = card_words(run[0])
    elif d.count <= 4:
        what = f"{d.count} cards ({' '.join(card_words(c) for c in run)})"
    else:
        what = f"{d.count} cards ({card_words(run[0])} ... {card_words(run[-1])})"
    text = f"moved {what} from work pile {d.pile} onto work pile {d.target}"
    return SeatStep(seat, a, text, card=run[0])


def step_words(view: NertsView) -> list[SeatStep] | None:
    """:func:`seat_step` of every seat (None before the hand's first step)."""
    if view.last_actions is None:
        return None
    steps = [seat_step(view, s) for s in range(view.num_players)]
    return [s for s in steps if s is not None]


def priority_words(priority: tuple[int, ...] | None) -> str:
    """pi (N20) as ``player 2, then player 0, then player 1``."""
    if priority is None:
        return ""
    return ", then ".join(seat_name(s) for s in priority)


def stall_words(view: NertsView) -> str:
    """The stall counter and the remedy flag (N25-N27) in words."""
    cfg = view.config
    steps = f"{view.stall} step{'s' if view.stall != 1 else ''}"
    if view.remedy_done:  # set by a remedy, cleared by any progress (N27)
        if view.stall == 0:
            return (
                "no progress: the table was stuck, so every stock was re-formed (N26); "
                "stuck again, the hand ends (N27)"
            )
        return (
            f"no progress for {steps} since the stocks were re-formed (N26); stuck again, "
            "the hand ends (N27)"
        )
    if view.stall == 0:
        text = "progress in the last step" if view.step else "nobody has played yet"
    else:
        text = f"no progress for {steps}"
    return text + f"; at {cfg.stall_steps}, or when all are stuck, stocks are re-formed (N25)"


def rank_label(rank: int) -> str:
    """``A``, ``2`` ... ``10``, ``J``, ``Q``, ``K`` of a rank 1..13."""
    return RANK_WORDS[rank - 1]


__all__ = [
    "END_WORDS",
    "RANK_WORDS",
    "SUIT_SYMBOLS",
    "SeatStep",
    "card_token",
    "card_words",
    "priority_words",
    "rank_label",
    "seat_name",
    "seat_step",
    "source_words",
    "stall_words",
    "step_words",
]
