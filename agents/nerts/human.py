"""Play Nerts in a terminal: one human seat against bots, one step at a time
(``gnome play --game nerts``).

Nerts is simultaneous (N18): every step each seat makes one move, all judged against the
position at the start of the step. Here the human's move is read first; the bots choose
from their own views of that same start position (:class:`NertsView`, N34), so they never
see the human's move, and then the joint step is applied and told in words: every seat's
move, the priority order, collisions on a foundation slot with who won them and why (N20,
N21), a stuck table's remedy (N26) and the end of a hand with its scores (N29-N31).

The notation (:func:`choose_move`; ``HELP`` is the full list, ``docs/nerts.md`` the manual):

* the action names of the N36 table: ``wait``, ``call``, ``turn``, ``recycle``, ``shift``,
  ``nerts->slot3``, ``work2->new:D``, ``waste->work1``, ``work2x3->work0``,
  ``nerts->under1``;
* short forms: ``t`` turn, ``r`` recycle, ``s`` shift, ``c`` call; a source ``n`` (the Nerts
  top), ``w`` (the waste top), ``2`` / ``work2`` (work pile 2; ``2x3``: its top 3 cards) or a
  card (``7H``: that card with the cards on it) followed by a destination ``f`` (a foundation
  it fits, a new one for an ace), ``f3`` / ``slot3``, ``new`` / ``new:D``, ``1`` / ``work1``
  (onto work pile 1) or ``u1`` / ``under1`` (slid under work pile 1, N12); a source alone
  means any of its moves;
* a bare number: that entry of the numbered list of legal moves (``moves``).

A form that fits several legal moves is ambiguous: the candidates are listed. One that fits
none is refused with the reason (:meth:`NertsGame.explain_illegal`, citing the rule), and
the human is asked again; nothing changes until a legal move is chosen. ``hint`` asks the
strongest bot the registry knows (``expert`` where there is one, else ``greedy``) what it
would do from the human's own view.

Input and output are callables, as in :mod:`agents.ginny_o.human`: ``ask(prompt) -> str``
behaves like the builtin ``input`` (``EOFError`` at the end of input, ``KeyboardInterrupt``
on Ctrl-C: both leave the game with a message) and ``say(text)`` prints one block. The
human sees only their public view (N34): never a face-down Nerts card, a stock's order or
a waste card under the top (N35), not even their own.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agents.core.cli import seat_bots
from agents.nerts.registry import known_nerts_specs, make_nerts_agent
from gnome_env.nerts.actions import CALL, RECYCLE, SHIFT, TURN, WAIT, Kind, action_table
from gnome_env.nerts.cards import NUM_NATURAL, format_card, parse_card
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.engine import NertsGame, StepResult
from gnome_env.nerts.information import NertsView

QUIT_WORDS = ("q", "quit", "exit")
HELP_WORDS = ("help", "h", "?")
MOVES_WORDS = ("moves", "legal", "m", "l")
SHOW_WORDS = ("show", "table", "board")
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
#: One-word moves (N15-N17, N19, N22).
WORDS = {
    "wait": WAIT,
    "call": CALL,
    "c": CALL,
    "turn": TURN,
    "t": TURN,
    "recycle": RECYCLE,
    "r": RECYCLE,
    "shift": SHIFT,
    "s": SHIFT,
}
FOUNDATION_KINDS = (Kind.TO_SLOT, Kind.NEW_FOUNDATION)
END_WORDS = {
    "blocked": "the table was stuck again with no progress since the remedy (N27)",
    "cap": "the step cap was reached (N28)",
}

HELP = """\
Every step all players move once, at the same time (N18): you type your move, the bots
choose theirs from the same position without seeing yours, and then everything happens
together. Two plays onto the same foundation slot: the player first in this step's random
priority order gets it, the other card stays where it was (N20, N21).
Work piles and foundation slots are numbered as on the screen (work 0-3, slot 0, 1, ...).

  t  or turn        turn the stock: up to 3 cards onto the waste (N15)
  r  or recycle     turn the waste over as the new stock, when the stock is empty (N16)
  s  or shift       move the stock's top card to the bottom, only when exhausted (N17)
  c  or call        call Nerts: the hand ends after this step (N22; Nerts pile empty)
  wait              do nothing this step
  n f               your Nerts top to a foundation it fits (an ace starts a new one)
  w f3              your waste top to slot 3 (also: w slot3)
  2 f               the top card of work pile 2 to a foundation
  n new:D           the Nerts top (an ace, or a joker) to a new foundation of diamonds
  n 1   w 2         the Nerts / waste top onto work pile 1 / 2
  n u1              slide the Nerts top under work pile 1 (N12; needs an empty pile)
  2 0               top cards of work pile 2 onto work pile 0 (as many as make a run)
  2x3 0             exactly the top 3 cards of work pile 2 onto work pile 0
  7H f   7H 0   7H  by card: 7H (with the cards on it) to a foundation, onto work pile 0,
                    or anywhere it may go
  n   w   work2     any move of that source
  nerts->slot3      the action names of the moves list (waste->work1, work2x3->work0,
                    nerts->new:D, nerts->under1, turn, call, ...); "->" may be a space
  4                 move number 4 of the moves list
Commands: moves (or legal) lists the legal moves, hint suggests one, show draws the table
again, help, quit. A move that fits several legal moves is ambiguous: you get the list."""


class MoveError(ValueError):
    """A typed move that cannot be played now: not notation, ambiguous (``candidates``: the
    legal ids it fits) or illegal (the reason, citing the rule)."""

    def __init__(self, message: str, candidates: Sequence[int] = ()) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


@dataclass(frozen=True)
class MoveForm:
    """What a typed move may mean: every table id it fits, legal or not, and in words."""

    ids: tuple[int, ...]
    what: str


@dataclass(frozen=True)
class NertsPlay:
    """How a terminal game ended: ``ended`` is ``game_over``, ``quit``, ``end_of_input``
    or ``interrupted`` (Ctrl-C)."""

    game: NertsGame
    ended: str


# ---------------------------------------------------------------------- words
def seat_name(seat: int, human: int, names: Sequence[str] | None = None) -> str:
    """``you`` for the human, ``p1 (greedy)`` for a bot (``p1`` without ``names``)."""
    if seat == human:
        return "you"
    return f"p{seat}" if names is None else f"p{seat} ({names[seat]})"


def _join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _source_words(s: int) -> str:
    """N36 source index ``s``: the Nerts pile, the waste or work pile ``s - 2``."""
    return ("the Nerts pile", "the waste")[s] if s < 2 else f"work pile {s - 2}"


def _top(view: NertsView, seat: int, s: int) -> int | None:
    """The card on top of source ``s`` of ``seat`` (public, N34), None when empty."""
    if s == 0:
        return view.nerts_top[seat]
    if s == 1:
        return view.waste_top[seat]
    pile = view.work[seat][s - 2]
    return pile[-1] if pile else None


def _cards(cards: Sequence[int]) -> str:
    return " ".join(format_card(c) for c in cards) or "-"


def _on(pile: Sequence[int]) -> str:
    return f"(on {format_card(pile[-1])})" if pile else "(empty)"


def _slot_need(view: NertsView, f: int) -> int:
    """N8: the card that open slot ``f`` needs."""
    slot = view.slots[f]
    return 13 * slot.suit + slot.top


def describe(view: NertsView, seat: int, action: int) -> str:
    """``action`` of ``seat`` in words, read from ``view`` (the position the step starts
    from): ``5H from the Nerts pile to slot 3 (on 4H)``, ``turn 3 cards from the stock``."""
    cfg = view.config
    d = action_table(cfg).decode(action)
    k = d.kind
    if k == Kind.WAIT:
        return "wait"
    if k == Kind.CALL:
        return "call Nerts"
    if k == Kind.TURN:
        n = min(cfg.turn_size, view.stock_size[seat])
        return f"turn {n} card{'s' if n != 1 else ''} from the stock"
    if k == Kind.RECYCLE:
        return f"turn the waste ({view.waste_size[seat]} cards) over as the new stock"
    if k == Kind.SHIFT:
        return "move the stock's top card to the bottom"
    work = view.work[seat]
    if k == Kind.WORK_MOVE:
        moved = work[d.pile][-d.count :]
        return f"{_cards(moved)} from work pile {d.pile} onto work pile {d.target} " + _on(
            work[d.target]
        )
    card = _top(view, seat, d.source)
    token = "-" if card is None else format_card(card)
    where = _source_words(d.source)
    if k == Kind.TO_SLOT:
        need = _slot_need(view, d.slot)
        below = format_card(need - 1)
        if card is not None and card >= NUM_NATURAL:
            token = f"JK as {format_card(need)}"
        return f"{token} from {where} to slot {d.slot} (on {below})"
    if k == Kind.NEW_FOUNDATION:
        if card is not None and card >= NUM_NATURAL:
            token = f"JK as {format_card(13 * d.suit)}"
        return f"{token} from {where} to a new foundation"
    if k == Kind.TO_WORK:
        return f"{token} from {where} onto work pile {d.pile} {_on(work[d.pile])}"
    base = work[d.pile]
    return f"{token} from {where} under work pile {d.pile} (under {format_card(base[0])})"


def short_form(config: NertsConfig, action: int) -> str:
    """The short notation of ``action`` (``n f3``, ``w 2``, ``2x3 0``, ``n u1``, ``t``);
    :func:`choose_move` reads it back as exactly ``action``."""
    d = action_table(config).decode(action)
    k = d.kind
    if k <= Kind.SHIFT:
        return {WAIT: "wait", CALL: "c", TURN: "t", RECYCLE: "r", SHIFT: "s"}[int(k)]
    if k == Kind.WORK_MOVE:
        return f"{d.pile}x{d.count} {d.target}"
    src = ("n", "w")[d.source] if d.source < 2 else str(d.source - 2)
    if k == Kind.TO_SLOT:
        return f"{src} f{d.slot}"
    if k == Kind.NEW_FOUNDATION:
        return f"{src} new:{'CDHS'[d.suit]}"
    if k == Kind.TO_WORK:
        return f"{src} {d.pile}"
    return f"{src} u{d.pile}"


def _move_line(view: NertsView, action: int) -> str:
    """One entry of the moves list: number, short form, action name, words."""
    number = view.legal_actions.index(action) + 1
    name = action_table(view.config).name(action)
    return (
        f"  {number:>2}  {short_form(view.config, action):<9} {name:<16} "
        f"{describe(view, view.seat, action)}"
    )


def move_lines(view: NertsView) -> list[str]:
    """The numbered list of the seat's legal moves: number, short form, name, words."""
    return [_move_line(view, a) for a in view.legal_actions]


# ---------------------------------------------------------------------- the screen
def _slot_cards(view: NertsView, f: int) -> str:
    """Slot ``f``'s cards with their owners, runs of one owner as ``p1:AH..4H`` (N34)."""
    slot = view.slots[f]
    groups: list[list[tuple[int, int]]] = []
    for card, owner in zip(slot.cards, slot.owners, strict=True):
        last = groups[-1][-1] if groups else None
        if last is not None and last[1] == owner and card == last[0] + 1:
            groups[-1].append((card, owner))
        else:
            groups.append([(card, owner)])
    parts = []
    for g in groups:
        first, owner = g[0]
        text = f"p{owner}:{format_card(first)}"
        parts.append(text + (f"..{format_card(g[-1][0])}" if len(g) > 1 else ""))
    return " ".join(parts)


def _foundation_lines(view: NertsView) -> list[str]:
    if view.slots_used == 0:
        return ["  (none yet: an ace starts one)"]
    lines = []
    for f in range(view.slots_used):
        slot = view.slots[f]
        state = "complete" if slot.complete else f"needs {format_card(_slot_need(view, f))}"
        lines.append(
            f"  slot {f:>2}  {SUIT_NAMES[slot.suit]:<8}  {state:<10}  {_slot_cards(view, f)}"
        )
    return lines


def _seat_line(view: NertsView, s: int) -> str:
    """One seat's public layout summary (N34): Nerts size and top, stock, waste, score."""
    top = view.nerts_top[s]
    nerts = f"Nerts {view.nerts_size[s]}" + (f", top {format_card(top)}" if top is not None else "")
    waste = view.waste_top[s]
    waste_text = f"waste {view.waste_size[s]}" + (
        f", top {format_card(waste)}" if waste is not None else ""
    )
    cycle = view.stock_size[s] + view.waste_size[s]
    return (
        f"{nerts}   stock {view.stock_size[s]}   {waste_text}   seen {view.seen[s]}/{cycle}"
        + (" (exhausted)" if view.exhausted[s] else "")
        + f"   hand score {view.hand_scores[s]}"
    )


def format_screen(view: NertsView, names: Sequence[str] | None = None, prompt: bool = True) -> str:
    """What the human at ``view.seat`` sees before a step: the hand, step, stall count and
    totals, the foundations with owners, their own layout and every other seat's public
    layout (N34 only; hands and steps counted from 1); ``prompt``: the closing line that
    counts the legal moves."""
    cfg, me = view.config, view.seat
    remedy = "used; stuck again ends the hand" if view.remedy_done else "not used yet"
    totals = ", ".join(
        f"{seat_name(s, me, names)} {view.totals[s]}" for s in range(view.num_players)
    )
    when = (
        f"over after {view.step} step{'s' if view.step != 1 else ''}"
        if view.hand_over
        else f"step {view.step + 1} (cap {cfg.max_steps_per_hand})"
    )
    lines = [
        f"Hand {view.hand + 1}, {when}. "
        f"Steps without progress: {view.stall} (stuck at {cfg.stall_steps}); "
        f"remedy {remedy} (N25-N27).",
        f"Totals: {totals}.",
        "Foundations:",
        *_foundation_lines(view),
        f"You (p{me}): {_seat_line(view, me)}",
    ]
    for w, pile in enumerate(view.work[me]):
        lines.append(f"  work {w}: {_cards(pile)}")
    for s in range(view.num_players):
        if s != me:
            work = " | ".join(_cards(p) for p in view.work[s])
            lines.append(f"{seat_name(s, me, names)}: {_seat_line(view, s)}")
            lines.append(f"  work: {work}")
    n = len(view.legal_actions)
    if prompt:
        lines.append(
            f"{n} legal move{'s' if n != 1 else ''}: type yours (moves lists them; hint, help, "
            "quit)."
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------- the notation
_WORK_SOURCE = re.compile(r"(?:work)?(\d)(?:x(\d+))?")
_DEST_WORK = re.compile(r"(?:work)?(\d)")
_DEST_SLOT = re.compile(r"(?:f|slot)(\d+)")
_DEST_UNDER = re.compile(r"(?:u|under)(\d)")
_DEST_NEW = re.compile(r"new(?::([cdhs]))?")


def _check_pile(view: NertsView, w: int, text: str) -> int:
    n = view.config.work_piles
    if not 0 <= w < n:
        raise MoveError(f"{text!r}: there is no work pile {w}; work piles are 0..{n - 1}")
    return w


def _sources(token: str, view: NertsView) -> tuple[list[tuple[int, int | None]], str]:
    """The sources a source token names, as ``(N36 source index s, count or None)``, and
    the words for them. A card names where it lies in the seat's own public layout."""
    if token in ("n", "nerts"):
        return [(0, None)], "the Nerts top"
    if token in ("w", "waste"):
        return [(1, None)], "the waste top"
    m = _WORK_SOURCE.fullmatch(token)
    if m:
        w = _check_pile(view, int(m.group(1)), token)
        count = None if m.group(2) is None else int(m.group(2))
        if count is not None and not 1 <= count <= 13:
            raise MoveError(f"{token!r}: 1 to 13 cards move at a time (N9, N11)")
        what = f"work pile {w}" if count is None else f"the top {count} of work pile {w}"
        return [(2 + w, count)], what
    try:
        card = parse_card(token)
    except ValueError:
        raise MoveError(
            f"{token!r} is not a move: a source is n (Nerts top), w (waste top), a work pile "
            "number (2, 2x3) or one of your face-up cards (7H); help lists the notation"
        ) from None
    return _card_sources(card, view), format_card(card)


def _card_sources(card: int, view: NertsView) -> list[tuple[int, int | None]]:
    """Where ``card`` (a joker: either joker) lies among the seat's movable cards."""
    me = view.seat

    def same(c: int | None) -> bool:
        return c is not None and (c == card or (card >= NUM_NATURAL and c >= NUM_NATURAL))

    found: list[tuple[int, int | None]] = []
    if same(view.nerts_top[me]):
        found.append((0, None))
    if same(view.waste_top[me]):
        found.append((1, None))
    for w, pile in enumerate(view.work[me]):
        for i, c in enumerate(pile):
            if same(c):
                found.append((2 + w, len(pile) - i))
    if not found:
        visible = [f"Nerts top {_cards([c])}" for c in (view.nerts_top[me],) if c is not None]
        visible += [f"waste top {_cards([c])}" for c in (view.waste_top[me],) if c is not None]
        visible += [f"work {w}: {_cards(p)}" for w, p in enumerate(view.work[me])]
        raise MoveError(
            f"{format_card(card)} is not one of your movable cards ({'; '.join(visible)})"
        )
    return found


def _dest(token: str, view: NertsView) -> tuple[tuple[str, int | None], str]:
    """A destination token as ``(kind, index)`` and in words."""
    if token in ("f", "found", "foundation"):
        return ("found", None), "a foundation"
    m = _DEST_SLOT.fullmatch(token)
    if m:
        f, n = int(m.group(1)), view.config.num_slots
        if not 0 <= f < n:
            raise MoveError(f"{token!r}: there is no slot {f}; slots are 0..{n - 1}")
        return ("slot", f), f"slot {f}"
    m = _DEST_NEW.fullmatch(token)
    if m:
        suit = None if m.group(1) is None else "cdhs".index(m.group(1))
        return ("new", suit), "a new foundation"
    m = _DEST_UNDER.fullmatch(token)
    if m:
        w = _check_pile(view, int(m.group(1)), token)
        return ("under", w), f"under work pile {w}"
    m = _DEST_WORK.fullmatch(token)
    if m:
        w = _check_pile(view, int(m.group(1)), token)
        return ("work", w), f"onto work pile {w}"
    raise MoveError(
        f"{token!r} is not a destination: f (a foundation), f3 or slot3, new or new:D, a work "
        "pile number (1), or u1 (under work pile 1); help lists the notation"
    )


def _fits(d: Any, source: tuple[int, int | None], dest: tuple[str, int | None] | None) -> bool:
    """Whether the decoded action ``d`` moves from ``source`` to ``dest`` (None: anywhere)."""
    s, count = source
    k = d.kind
    if k in FOUNDATION_KINDS:
        ok = d.source == s and count in (None, 1)
    elif k in (Kind.TO_WORK, Kind.SLIDE):
        ok = s < 2 and d.source == s
    elif k == Kind.WORK_MOVE:
        ok = s >= 2 and d.pile == s - 2 and count in (None, d.count)
    else:
        return False
    if not ok or dest is None:
        return ok
    kind, index = dest
    if kind == "found":
        return k in FOUNDATION_KINDS
    if kind == "slot":
        return k == Kind.TO_SLOT and d.slot == index
    if kind == "new":
        return k == Kind.NEW_FOUNDATION and index in (None, d.suit)
    if kind == "under":
        return k == Kind.SLIDE and d.pile == index
    return (k == Kind.TO_WORK and d.pile == index) or (k == Kind.WORK_MOVE and d.target == index)


def match_move(text: str, view: NertsView) -> MoveForm:
    """Every N36 id (legal or not) that the typed ``text`` may mean for ``view.seat``, in
    the notation of the module docstring (not a menu number); ``MoveError`` when it is not
    notation."""
    table = action_table(view.config)
    low = " ".join(text.strip().lower().split())
    if low in WORDS:
        return MoveForm((WORDS[low],), low)
    name = re.sub(r"\s*->\s*", "->", low)
    names = {n.lower(): a for a, n in enumerate(table.names)}
    if name in names:
        return MoveForm((names[name],), table.names[names[name]])
    tokens = [t for t in re.split(r"\s*->\s*|\s+to\s+|\s+", low) if t]
    if not 1 <= len(tokens) <= 2:
        raise MoveError(
            f"{text.strip()!r} is not a move: write a source and a destination, e.g. n f"
        )
    sources, what = _sources(tokens[0], view)
    dest, where = (None, "anywhere") if len(tokens) == 1 else _dest(tokens[1], view)
    ids = tuple(
        a for a in range(5, table.n) if any(_fits(table.decode(a), src, dest) for src in sources)
    )
    words = (
        f"{what} {where}"
        if where.startswith(("onto", "under", "anywhere"))
        else (f"{what} to {where}")
    )
    if not ids:
        raise MoveError(f"{text.strip()!r} names no move: {_no_such_move(sources, dest)}")
    return MoveForm(ids, words)


def _no_such_move(sources: list[tuple[int, int | None]], dest: Any) -> str:
    """Why a source/destination pair names no entry of the action table at all."""
    kind = None if dest is None else dest[0]
    if kind in ("found", "slot", "new") and all(s >= 2 for s, _ in sources):
        return "only the top card of a work pile may go to a foundation (N11)"
    if kind == "under":
        return "only the Nerts top or the waste top slides under a work pile (N12)"
    return "the Nerts top and the waste top go only to a foundation or a work pile (N11)"


def _why_none(game: NertsGame, view: NertsView, form: MoveForm) -> str:
    """Why none of ``form``'s ids is legal: the engine's reason where they all share one,
    else a reason for the form as a whole (citing the rule)."""
    seat = view.seat
    reasons = list(dict.fromkeys(game.explain_illegal(seat, a) for a in form.ids))
    if len(reasons) == 1:
        return reasons[0]
    table = action_table(view.config)
    decoded = [table.decode(a) for a in form.ids]
    sources = {d.source for d in decoded if d.kind in FOUNDATION_KINDS}
    if all(d.kind in FOUNDATION_KINDS for d in decoded) and len(sources) == 1:
        s = sources.pop()
        card = _top(view, seat, s)
        if card is None:
            return f"{_source_words(s)} is empty (N11)"
        needs = sorted(
            {_slot_need(view, f) for f in range(view.slots_used) if not view.slots[f].complete}
        )
        needs = [format_card(c) for c in needs]
        open_text = f"the open slots need {', '.join(needs)}" if needs else "no slot is open"
        return (
            f"{format_card(card)} fits no foundation: {open_text}, and only an ace starts one (N8)"
        )
    pairs = {(d.pile, d.target) for d in decoded if d.kind == Kind.WORK_MOVE}
    if all(d.kind == Kind.WORK_MOVE for d in decoded) and len(pairs) == 1:
        w, v = pairs.pop()
        work = view.work[seat]
        if not work[w]:
            return f"work pile {w} is empty (N11)"
        return (
            f"no top part of work pile {w} ({_cards(work[w])}) makes a run on work pile {v} "
            f"({_cards(work[v])}) (N9, N10)"
        )
    return f"no legal move takes {form.what} now"


def choose_move(game: NertsGame, seat: int, text: str, view: NertsView | None = None) -> int:
    """The one legal id that the typed ``text`` means for ``seat`` (a menu number of
    :func:`move_lines`, or the notation of :func:`match_move`). ``MoveError`` otherwise:
    not notation, ambiguous (listing the candidates) or illegal (why, citing the rule).
    Reads the game only through ``view`` and :meth:`NertsGame.explain_illegal`; changes
    nothing."""
    view = NertsView.from_game(game, seat) if view is None else view
    legal = view.legal_actions
    stripped = text.strip()
    if stripped.isdigit():
        i = int(stripped)
        if not 1 <= i <= len(legal):
            raise MoveError(
                f"there is no move number {i}: the legal moves are numbered 1..{len(legal)} "
                "(moves lists them)"
            )
        return legal[i - 1]
    form = match_move(stripped, view)
    allowed = set(legal)
    fits = [a for a in form.ids if a in allowed]
    if len(fits) == 1:
        return fits[0]
    if fits:
        listed = "\n".join(_move_line(view, a) for a in fits)
        raise MoveError(
            f"{stripped!r} is ambiguous: it fits {len(fits)} legal moves; type one of them "
            f"(its number or its short form):\n{listed}",
            fits,
        )
    raise MoveError(f"Illegal move {stripped!r}: {_why_none(game, view, form)}. Try again.")


# ---------------------------------------------------------------------- a step's outcome
def _priority_text(result: StepResult, human: int) -> str:
    return ", ".join(seat_name(s, human, None) for s in result.priority)


def _pile_of(seat: int, human: int, s: int) -> str:
    whose = "your" if seat == human else "its"
    return f"{whose} {_source_words(s).removeprefix('the ')}"


def _possessive(seat: int, human: int) -> str:
    return "your" if seat == human else f"p{seat}'s"


def collision_lines(
    view: NertsView, result: StepResult, human: int, names: Sequence[str] | None = None
) -> list[str]:
    """N20/N21 in words: every slot that several seats played to in this step (who had
    priority and what happened to the other cards), and new foundations started together
    (which slot each took). ``view`` is the position the step started from."""
    cfg = view.config
    table = action_table(cfg)
    by_slot: dict[int, list[int]] = {}
    new: list[int] = []
    for seat in result.priority:
        d = table.decode(result.actions[seat])
        if d.kind == Kind.TO_SLOT:
            by_slot.setdefault(d.slot, []).append(seat)
        elif d.kind == Kind.NEW_FOUNDATION:
            new.append(seat)
    order = _priority_text(result, human)
    lines = []
    for f, seats in sorted(by_slot.items()):
        if len(seats) < 2:
            continue
        need = format_card(_slot_need(view, f))
        who = _join([seat_name(s, human, names) for s in sorted(seats)])
        both = "both" if len(seats) == 2 else "all"
        head = f"{who} {both} played to slot {f} ({SUIT_NAMES[view.slots[f].suit]}, needs {need})"
        if cfg.foundation_tie == "both_keep":
            lines.append(
                f"{head}: with foundation_tie=both_keep every card goes on, stacked in priority "
                f"order ({order}), and each scores for its owner (N20)."
            )
            continue
        winner, losers = seats[0], seats[1:]
        stayed = []
        for s in losers:
            card = _top(view, s, table.decode(result.actions[s]).source)
            src = table.decode(result.actions[s]).source
            token = "card" if card is None else format_card(card)
            stayed.append(f"{_possessive(s, human)} {token} stayed on {_pile_of(s, human, src)}")
        lines.append(
            f"{head}; {seat_name(winner, human, names)} had priority this step ({order}), so "
            f"{_join(stayed)} (N20, N21)."
        )
    if len(new) > 1:
        took = []
        for i, s in enumerate(new):
            d = table.decode(result.actions[s])
            ace = format_card(13 * d.suit)
            took.append(f"{_possessive(s, human)} {ace} to slot {view.slots_used + i}")
        lines.append(
            f"New foundations take the next unused slots in priority order ({order}): "
            f"{', '.join(took)} (N7, N20)."
        )
    return lines


def _stuck_reason(view: NertsView) -> str:
    if view.stall + 1 >= view.config.stall_steps:
        return f"{view.config.stall_steps} steps in a row without progress"
    return "every player had turned through their whole stock since the last progress"


def outcome_lines(
    view: NertsView, result: StepResult, human: int, names: Sequence[str] | None = None
) -> list[str]:
    """One step told in words: the priority order, every seat's move (``blocked`` where it
    lost a collision), the collisions explained, and a remedy. Only public information
    (N34): ``view`` is the start position of the step, ``result`` its public outcome."""
    lines = [f"Step {result.step + 1}, priority order {_priority_text(result, human)} (N20):"]
    for s in range(view.num_players):
        text = describe(view, s, result.actions[s])
        lines.append(
            f"  {seat_name(s, human, names)}: {text}"
            + ("  -- blocked" if result.blocked[s] else "")
        )
    lines += collision_lines(view, result, human, names)
    if result.remedy:
        lines.append(
            f"The table was stuck ({_stuck_reason(view)}): every stock was re-formed from its "
            "waste and its top card moved to the bottom (N25, N26). Stuck again before any "
            "progress, the hand ends (N27)."
        )
    return lines


def hand_end_lines(
    game: NertsGame, view: NertsView, human: int, names: Sequence[str] | None = None
) -> list[str]:
    """N29-N31: why the hand ended, every seat's score (cards on foundations, cards left in
    the Nerts pile) and the totals; ``view`` is the final position."""
    h = game.hand_results[-1]
    if h.end_reason == "nerts" and h.callers:
        why = f"{_join([seat_name(s, human, names) for s in h.callers])} called Nerts (N22)"
    elif h.end_reason == "nerts":
        why = "a Nerts pile was empty and auto_call is on (N22)"
    else:
        why = END_WORDS[h.end_reason]
    steps = f"{h.steps} step{'s' if h.steps != 1 else ''}"
    lines = [f"Hand {h.hand + 1} over after {steps}: {why}."]
    for s in range(game.num_players):
        left = view.nerts_size[s]
        lines.append(
            f"  {seat_name(s, human, names):<16} {view.found_count[s]:>2} on foundations, "
            f"{left:>2} left in the Nerts pile ({-2 * left:>3}): hand score {h.scores[s]:>3}, "
            f"total {game.totals[s]:>4}"
        )
    return lines


def winner_line(game: NertsGame, human: int, names: Sequence[str] | None = None) -> str:
    """N31: the winner(s) of a finished game with their total."""
    winners = game.winners()
    who = _join([seat_name(s, human, names) for s in winners])
    label = "Winners (shared)" if len(winners) > 1 else "Winner"
    return f"Game over. {label}: {who}, total {game.totals[winners[0]]} (N31)."


# ---------------------------------------------------------------------- the loop
def default_hint_spec() -> str:
    """The bot that ``hint`` asks: ``expert`` where the registry knows one, else ``greedy``."""
    return "expert" if "expert" in known_nerts_specs() else "greedy"


def bot_action(game: NertsGame, seat: int, agent: Any) -> int:
    """The bot's move for ``seat``, decided from its own view (N34); an illegal one raises
    ``ValueError`` naming the agent and why."""
    view = NertsView.from_game(game, seat)
    action = agent.decide(view)
    if not isinstance(action, int):  # a numpy integer from a learned policy
        action = operator.index(action)
    if action not in view.legal_actions:
        why = (
            game.explain_illegal(seat, action)
            if 0 <= action < game.n_actions
            else f"outside the action table 0..{game.n_actions - 1}"
        )
        raise ValueError(
            f"agent {agent!r} at seat {seat} chose the illegal action {action!r}: {why}"
        )
    return action


class _HumanSeat:
    """Reads the human's move for one step: commands, then one legal id (or leaving)."""

    def __init__(
        self,
        game: NertsGame,
        seat: int,
        ask: Callable[[str], str],
        say: Callable[[str], None],
        names: Sequence[str],
        hint: Any,
    ) -> None:
        self.game, self.seat, self.ask, self.say = game, seat, ask, say
        self.names, self.hint = names, hint

    def read(self, view: NertsView) -> int | str:
        """A legal id, or ``quit`` / ``end_of_input`` when the human leaves."""
        while True:
            try:
                line = self.ask(f"p{self.seat} step {view.step + 1}> ")
            except EOFError:
                self.say("End of input: leaving the game unfinished.")
                return "end_of_input"
            text = " ".join(line.split())
            low = text.lower()
            if low in QUIT_WORDS:
                self.say("You quit: leaving the game unfinished.")
                return "quit"
            if not text and len(view.legal_actions) == 1:
                self.say("Your only legal move: wait.")  # wait is always legal (N14)
                return view.legal_actions[0]
            if not text:
                self.say(
                    "Type a move (t turns the stock, n f plays your Nerts top to a "
                    "foundation), or moves, hint, help, quit; Enter alone only waits when "
                    "nothing else is legal."
                )
            elif low in HELP_WORDS:
                self.say(HELP)
            elif low in MOVES_WORDS:
                self.say(
                    "Your legal moves (number, short form, name, what it does):\n"
                    + "\n".join(move_lines(view))
                )
            elif low in SHOW_WORDS:
                self.say(format_screen(view, self.names))
            elif low == "hint":
                self.say(self.hint_text(view))
            else:
                try:
                    return choose_move(self.game, self.seat, text, view)
                except MoveError as err:
                    self.say(str(err))

    def hint_text(self, view: NertsView) -> str:
        """What the hint bot would play from the human's own view (N34)."""
        a = self.hint.decide(view)
        spec = getattr(self.hint, "spec", "bot")
        return (
            f"Hint ({spec}): {short_form(view.config, a)} = {describe(view, self.seat, a)} "
            f"({action_table(view.config).name(a)}, move {view.legal_actions.index(a) + 1})"
        )


def play_nerts_interactive(
    config: NertsConfig,
    seat: int,
    opponents: Sequence[Any],
    ask: Callable[[str], str],
    say: Callable[[str], None],
    *,
    seed: int = 0,
    game: NertsGame | None = None,
    names: Sequence[str] | None = None,
    hint: Any | None = None,
) -> NertsPlay:
    """Play one Nerts game with a human at ``seat`` and ``opponents`` (bots with
    ``decide(view)``, one per other seat, in seat order), one step at a time.

    ``game`` (default ``NertsGame(config, seed)``) may be a prepared position (the test
    hook :func:`gnome_env.nerts.testing.build_game`); ``names`` labels every seat (default:
    each bot's ``spec``); ``hint`` is the agent ``hint`` asks (default
    :func:`default_hint_spec`). A bot's illegal action raises ``ValueError``.
    """
    game = NertsGame(config, seed) if game is None else game
    n = game.num_players
    bot_of, names = seat_bots(seat, n, opponents, names)
    if hint is None:
        hint = make_nerts_agent(default_hint_spec(), 8 * game.seed + 7, game.config)
    cfg = game.config
    hands = (
        "one hand"
        if cfg.max_hands == 1
        else f"to {cfg.target_score} points or {cfg.max_hands} hands"
    )
    say(
        f"Nerts: {n} players, seed {game.seed}. You are p{seat}. Opponents: "
        + ", ".join(seat_name(s, seat, names) for s in bot_of)
        + f". The game is {hands} (N31); a hand ends when someone calls Nerts, when the table "
        f"is stuck twice, or after {cfg.max_steps_per_hand} steps."
    )
    say("Every step all players move at once; type help for the notation.")
    reader = _HumanSeat(game, seat, ask, say, names, hint)
    try:
        return _loop(game, seat, bot_of, reader, say, names)
    except KeyboardInterrupt:
        say("Interrupted (Ctrl-C): leaving the game unfinished.")
        return NertsPlay(game, "interrupted")


def _loop(
    game: NertsGame,
    seat: int,
    bot_of: dict[int, Any],
    reader: _HumanSeat,
    say: Callable[[str], None],
    names: Sequence[str],
) -> NertsPlay:
    """Steps until the game ends (N31) or the human leaves."""
    n = game.num_players
    while True:
        view = NertsView.from_game(game, seat)
        # The bots decide first, from the start position: they cannot see the human's move.
        actions = [WAIT] * n
        for s, agent in bot_of.items():
            actions[s] = bot_action(game, s, agent)
        say(format_screen(view, names))
        choice = reader.read(view)
        if isinstance(choice, str):
            return NertsPlay(game, choice)
        actions[seat] = choice
        result = game.step(actions)
        say("\n".join(outcome_lines(view, result, seat, names)))
        if not game.hand_over:
            continue
        final = NertsView.from_game(game, seat)
        say("Final position:\n" + format_screen(final, names, prompt=False))
        say("\n".join(hand_end_lines(game, final, seat, names)))
        if game.game_over:
            say(winner_line(game, seat, names))
            return NertsPlay(game, "game_over")
        game.next_hand()
        say(f"Hand {game.hand + 1}: a fresh deal; the totals carry over (N31).")


__all__ = [
    "HELP",
    "MoveError",
    "MoveForm",
    "NertsPlay",
    "bot_action",
    "choose_move",
    "collision_lines",
    "default_hint_spec",
    "describe",
    "format_screen",
    "hand_end_lines",
    "match_move",
    "move_lines",
    "outcome_lines",
    "play_nerts_interactive",
    "seat_name",
    "short_form",
    "winner_line",
]
