"""Nerts expert bot (draft for tuning)."""

from __future__ import annotations

from agents.nerts.bots import (
    NERTS_SOURCE,
    WASTE_SOURCE,
    NertsBot,
    fits_on,
    needed_cards,
    playable_to_foundation,
)
from gnome_env.nerts.actions import CALL, RECYCLE, SHIFT, TURN, WAIT, Kind, action_table
from gnome_env.nerts.cards import NUM_NATURAL, SUIT_COLOUR
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.information import NertsView

_RANK = (*(c % 13 + 1 for c in range(NUM_NATURAL)), 0, 0)
_COL = (*(SUIT_COLOUR[c // 13] for c in range(NUM_NATURAL)), -1, -1)

DEFAULTS: dict[str, object] = {
    "call": "greedy",
    "last_step": False,
    "nerts_work_first": False,
    "idle_found": "play",
    "order": ("NF", "F", "F0", "NW", "WM", "WW"),
    "collide": False,
    "no_feed": False,
    "hold_waste": False,
    "endgame": None,
    "toward": False,
    "starve": False,
    "feed_who": "all",
}


class Opts:
    """Legal actions of a view grouped by kind, with the card each one moves."""

    __slots__ = ("call", "turn", "recycle", "shift", "found", "to_work", "slide", "moves")

    def __init__(self, view: NertsView) -> None:
        table = action_table(view.config)
        me = view.seat
        work = view.work[me]
        tops = (view.nerts_top[me], view.waste_top[me], *(p[-1] if p else None for p in work))
        self.call = self.turn = self.recycle = self.shift = False
        self.found: list[tuple[int, int, int, int]] = []  # (id, source, slot or -1, card)
        self.to_work: list[tuple[int, int, int]] = []  # (id, source, pile)
        self.slide: list[tuple[int, int, int]] = []  # (id, source, pile)
        self.moves: list[tuple[int, int, int, int]] = []  # (id, from, to, count)
        for a in view.legal_actions:
            if a < 5:
                if a == CALL:
                    self.call = True
                elif a == TURN:
                    self.turn = True
                elif a == RECYCLE:
                    self.recycle = True
                elif a == SHIFT:
                    self.shift = True
                continue
            d = table.decode(a)
            kind = d.kind
            if kind == Kind.TO_SLOT:
                self.found.append((a, d.source, d.slot, tops[d.source]))
            elif kind == Kind.NEW_FOUNDATION:
                self.found.append((a, d.source, -1, tops[d.source]))
            elif kind == Kind.TO_WORK:
                self.to_work.append((a, d.source, d.pile))
            elif kind == Kind.SLIDE:
                self.slide.append((a, d.source, d.pile))
            else:
                self.moves.append((a, d.pile, d.target, d.count))


def predict_all(view: NertsView, need) -> list:
    """The greedy model of every other seat's action this step.

    One entry per seat (None for the viewer): ``(kind, slot, card, gain, calls, maxgain)``.
    """
    out: list = []
    scores = view.hand_scores
    auto = view.config.auto_call
    for j in range(view.num_players):
        if j == view.seat:
            out.append(None)
            continue
        out.append(predict_seat(view, j, need, scores, auto))
    return out


def predict_seat(view: NertsView, j: int, need, scores, auto) -> tuple:
    work = view.work[j]
    x0 = view.nerts_top[j]
    calls = (
        not auto
        and view.nerts_size[j] == 0
        and scores[j] >= max(s for i, s in enumerate(scores) if i != j)
    )
    nerts_found = x0 is not None and (x0 >= NUM_NATURAL or _RANK[x0] == 1 or x0 in need)
    has_empty = any(not q for q in work)
    nerts_work = x0 is not None and (
        has_empty or x0 >= NUM_NATURAL or any(q and fits_on(x0, q[-1]) for q in work)
    )
    maxgain = 3 if nerts_found else 2 if nerts_work else 0
    pred = None
    sources = [x0, view.waste_top[j]]
    order = sorted(range(len(work)), key=lambda w: len(work[w]))
    sources += [work[w][-1] if work[w] else None for w in order]
    for k, x in enumerate(sources):
        if x is None or x >= NUM_NATURAL:
            continue
        if _RANK[x] == 1:
            pred = ("new", -1, x, 3 if k == 0 else 1)
            break
        slots = need.get(x)
        if slots:
            pred = ("slot", slots[0], x, 3 if k == 0 else 1)
            break
    if pred is None:
        pred = ("other", -1, None, 2 if nerts_work else 0)
    if maxgain == 0 and pred[3] > 0:
        maxgain = 1
    return (pred[0], pred[1], pred[2], 0 if calls else pred[3], calls, maxgain)


class ExpertNertsAgent(NertsBot):
    """Spec ``expert`` (draft)."""

    spec = "expert"

    def __init__(
        self,
        seed: int | None = None,
        config: NertsConfig | None = None,
        params: dict[str, object] | None = None,
    ) -> None:
        super().__init__(seed, config)
        self.params = dict(DEFAULTS)
        if params:
            unknown = set(params) - set(DEFAULTS)
            if unknown:
                raise ValueError(f"unknown expert params {sorted(unknown)}")
            self.params.update(params)

    # ------------------------------------------------------------------ decision
    def decide(self, view: NertsView) -> int:
        legal = view.legal_actions
        if len(legal) == 1:
            return legal[0]
        p = self.params
        opts = Opts(view)
        me = view.seat
        need = needed_cards(view)
        self.pred = predict_all(view, need)
        move = self.progress_move(view, opts, need)
        if opts.call and self.should_call(view, opts, move is not None):
            return CALL
        if p["last_step"] and any(pr[4] for pr in self.pred if pr is not None):
            last = self.best_gain(view, opts, need)
            if last is not None:
                return last
        if move is not None:
            return move
        if opts.shift and view.exhausted[me]:
            return SHIFT
        if p["hold_waste"] and self.waste_soon(view, need):
            return WAIT
        if opts.turn:
            return TURN
        if opts.recycle:
            return RECYCLE
        if self.fed:
            return self.pick_found(view, self.fed)
        return WAIT

    def should_call(self, view: NertsView, opts: Opts, useful: bool) -> bool:
        me = view.seat
        scores = view.hand_scores
        best_other = max(s for i, s in enumerate(scores) if i != me)
        mode = self.params["call"]
        stuck = not useful and view.exhausted[me]
        if mode == "greedy":
            return scores[me] >= best_other or stuck
        mine = scores[me]
        if mode == "safe":
            ok = all(mine > scores[j] + pr[5] for j, pr in enumerate(self.pred) if pr)
        else:  # "pred": the greedy model's gain
            ok = all(mine > scores[j] + pr[3] for j, pr in enumerate(self.pred) if pr)
        if ok:
            return True
        if mode == "safe" and all(
            mine > scores[j] + pr[3] for j, pr in enumerate(self.pred) if pr
        ):
            return True
        return stuck

    def best_gain(self, view: NertsView, opts: Opts, need) -> int | None:
        """The move with the largest immediate score gain (the hand ends this step)."""
        best = None
        for a, s, f, card in opts.found:
            g = 3 if s == NERTS_SOURCE else 1
            g -= 0.5 * self.contest(view, f, card)
            if best is None or g > best[0]:
                best = (g, a)
        for a, s, _ in opts.to_work + opts.slide:
            if s == NERTS_SOURCE and (best is None or 2 > best[0]):
                best = (2, a)
        return None if best is None else best[1]

    def contest(self, view: NertsView, f: int, card) -> int:
        """How many other seats the greedy model predicts on slot f this step."""
        if f < 0:
            return 0
        return sum(1 for pr in self.pred if pr is not None and pr[1] == f)

    def waste_soon(self, view: NertsView, need) -> bool:
        """Whether another seat's predicted play makes the waste top fit a slot next step."""
        x = view.waste_top[view.seat]
        if x is None or x >= NUM_NATURAL or x in need or _RANK[x] == 1:
            return False
        for pr in self.pred:
            if pr is not None and pr[2] is not None and pr[2] == x - 1 and _RANK[x] > 1:
                return True
        if self.params["hold_waste"] == 2 and (x - 1) in need:
            return self.others_have(view, x - 1, need)
        return False

    def progress_move(self, view: NertsView, opts: Opts, need) -> int | None:
        p = self.params
        me = view.seat
        found = opts.found
        nf = [x for x in found if x[1] == NERTS_SOURCE]
        rest = [x for x in found if x[1] != NERTS_SOURCE]
        if p["idle_found"] != "play" or p["no_feed"]:
            busy = [x for x in rest if not self.idle(view, x, need)]
            idle = [x for x in rest if self.idle(view, x, need)]
        else:
            busy, idle = rest, []
        self.fed = []
        if p["starve"]:
            pool = idle + ([x for x in busy if not self.raced(view, x, need)] if p["starve"] == 2 else [])
            self.fed = [x for x in pool if x[3] is not None and _RANK[x[3]] < 13 and self.feeds(view, x[3] + 1)]
            if p["starve"] == 3:
                self.fed += [
                    x
                    for x in busy
                    if x[3] is not None
                    and _RANK[x[3]] < 13
                    and not self.raced(view, x, need)
                    and any(
                        view.nerts_top[j] == x[3] + 1
                        for j in range(view.num_players)
                        if j != me
                    )
                ]
            idle = [x for x in idle if x not in self.fed]
            busy = [x for x in busy if x not in self.fed]
        groups = {
            "NF": lambda: self.pick_found(view, nf),
            "F": lambda: self.pick_found(view, busy),
            "F0": lambda: self.pick_found(view, idle),
            "Fu": lambda: self.pick_found(view, [x for x in busy if not self.contest(view, x[2], x[3])]),
            "Fk": lambda: self.pick_found(view, [x for x in busy if self.contest(view, x[2], x[3])]),
            "F0u": lambda: self.pick_found(view, [x for x in idle if not self.contest(view, x[2], x[3])]),
            "Fc": lambda: self.pick_found(view, [x for x in busy if self.raced(view, x, need)]),
            "NFf": lambda: self.pick_found(
                view, [x for x in nf if not self.contest(view, x[2], x[3])]
            ),
            "NW": lambda: self.nerts_move(view, opts),
            "WM": lambda: self.work_move(view, opts, need),
            "WW": lambda: self.waste_move(view, opts),
        }
        order = p["order"]
        if p["endgame"] and self.near_end(view):
            order = p["endgame"]
            busy = busy + idle
            idle = []
        for name in order:
            choice = groups[name]()
            if choice is not None:
                return choice
        return None

    def raced(self, view: NertsView, item, need) -> bool:
        """Whether another seat may take this foundation play's slot first (N20)."""
        _, _, f, card = item
        return bool(self.contest(view, f, card)) or self.others_have(view, card, need)

    def near_end(self, view: NertsView) -> bool:
        """Whether another seat may call within a step or two (N22)."""
        for j, pr in enumerate(self.pred):
            if pr is None:
                continue
            if view.nerts_size[j] == 0 or (view.nerts_size[j] == 1 and pr[5] >= 2):
                return True
        return False

    def pick_found(self, view: NertsView, found) -> int | None:
        if not found:
            return None
        work = view.work[view.seat]
        collide = self.params["collide"]

        def key(item):
            a, s, f, card = item
            k = self.contest(view, f, card) if collide else 0
            return (min(s, 2), len(work[s - 2]) if s >= 2 else 0, k, a)

        return min(found, key=key)[0]

    def idle(self, view: NertsView, item, need) -> bool:
        """A work/waste foundation play that does nothing for this seat's own layout."""
        a, s, f, card = item
        p = self.params
        me = view.seat
        if s == NERTS_SOURCE or card is None or card >= NUM_NATURAL:
            return False
        if self.contest(view, f, card) or self.others_have(view, card, need):
            return False  # racing for it: play it now
        nxt = card + 1 if _RANK[card] < 13 else None
        mine = {view.nerts_top[me], view.waste_top[me], *(q[-1] for q in view.work[me] if q)}
        if nxt is not None and nxt in mine:
            return False
        top = view.nerts_top[me]
        if (
            p["toward"]
            and top is not None
            and top < NUM_NATURAL
            and top // 13 == card // 13
            and card < top
        ):
            return False
        if s >= 2:
            pile = view.work[me][s - 2]
            if len(pile) == 1:
                return False
            under = pile[-2]
            if playable_to_foundation(under, need) or fits_on(view.nerts_top[me], under):
                return False
        feeds = nxt is not None and self.feeds(view, nxt)
        if p["no_feed"] and feeds:
            return True
        if p["idle_found"] == "play":
            return False
        if s == WASTE_SOURCE and p["idle_found"] == "late_work":
            return False
        return True

    def others_have(self, view: NertsView, card: int, need, seats=None) -> bool:
        """Whether another seat has ``card`` on a top (it could take the slot first)."""
        for j in range(view.num_players) if seats is None else seats:
            if j == view.seat:
                continue
            if card in (view.nerts_top[j], view.waste_top[j]):
                return True
            if any(q and q[-1] == card for q in view.work[j]):
                return True
        return False

    def feeds(self, view: NertsView, card: int) -> bool:
        """Whether another seat's Nerts top is ``card``."""
        if self.params["no_feed"] == 4:
            me = view.seat
            return any(
                view.nerts_top[j] == card and view.nerts_size[j] <= view.nerts_size[me]
                for j in range(view.num_players)
                if j != me
            )
        if self.params["no_feed"] == 3:
            return self.others_have(view, card, None) or any(
                card in q for j in range(view.num_players) if j != view.seat for q in view.work[j]
            )
        if self.params["no_feed"] == 2:
            who = self.params["feed_who"]
            seats = None
            if who != "all":
                sizes = view.nerts_size
                me = view.seat
                others = [j for j in range(view.num_players) if j != me]
                if who == "ahead":
                    seats = [j for j in others if sizes[j] <= sizes[me]]
                else:
                    low = min(sizes[j] for j in others)
                    seats = [j for j in others if sizes[j] == low]
            return self.others_have(view, card, None, seats)
        return any(
            view.nerts_top[j] == card for j in range(view.num_players) if j != view.seat
        )

    def nerts_move(self, view: NertsView, opts: Opts) -> int | None:
        work = view.work[view.seat]
        onto = [a for a, s, w in opts.to_work if s == NERTS_SOURCE and work[w]]
        if onto:
            return onto[0]
        under = [a for a, s, _ in opts.slide if s == NERTS_SOURCE]
        if under:
            return under[0]
        empty = [a for a, s, w in opts.to_work if s == NERTS_SOURCE]
        if empty:
            return empty[0]
        return None

    def work_move(self, view: NertsView, opts: Opts, need) -> int | None:
        me = view.seat
        work = view.work[me]
        nerts_top = view.nerts_top[me]
        best = None
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
            key = (rank, c)
            if best is None or key < best[0]:
                best = (key, a)
        return None if best is None else best[1]

    def waste_move(self, view: NertsView, opts: Opts) -> int | None:
        me = view.seat
        work = view.work[me]
        onto = [a for a, s, w in opts.to_work if s == WASTE_SOURCE and work[w]]
        if onto:
            return onto[0]
        under = [a for a, s, _ in opts.slide if s == WASTE_SOURCE]
        if under:
            return under[0]
        empty = [a for a, s, w in opts.to_work if s == WASTE_SOURCE]
        if empty and view.nerts_size[me] == 0:
            return empty[0]
        return None
