"""The Ginny-O engine: state and pure transitions for RULES-ginny-o.md G1-G31.

:class:`GinnyGame` is one game. A turn is played as the atomic steps of the rules' RL
notes (:mod:`gnome_env.ginny_o.actions`): the turn's draw (G13) happens when the turn
starts, then the acting seat (:attr:`GinnyGame.current`) sends action ids to :meth:`step`
until its turn ends. The mask (:meth:`legal_mask`) is exact: at the start of each placement
the move generator (:mod:`gnome_env.ginny_o.movegen`) lists every legal placement, each is
written as its canonical action sequence, and the sequences form a prefix trie whose
children are the legal PLACE / DECLARE / COMMIT ids. An illegal id raises
:class:`IllegalActionError` (a ``ValueError``) saying why, and changes nothing.

Randomness is the project's own generator (:mod:`gnome_env.core.rng`): the first player is
``draw_index(n, GINNY_FIRST, seed)`` (G12) and the ``i``-th draw of the game takes box
position ``draw_index(len(box), GINNY_DRAW, seed, i)`` (G4); a returned tile is appended
to the box (its order is hidden and only the draw position matters). Same seed and same
actions give the same game. ``docs/rules-ginny-o.md`` lists how the engine reads the
rules where the text leaves a choice (GD1, GD2, ...).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from gnome_env.core import rng
from gnome_env.core.renamed import old_method
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import NUM_CELLS, Board, row_col
from gnome_env.ginny_o.cards import JOKER, format_kind, format_tile, penalty_value
from gnome_env.ginny_o.config import MAX_SLOTS, RACK_SIZE, GinnyConfig
from gnome_env.ginny_o.movegen import (
    Placement,
    PlacementTable,
    generate,
    placement_table,
    rack_counts,
)

_NO_PLACEMENTS = PlacementTable(
    np.zeros((0, 8, 3), np.int64),
    *(np.zeros(0, np.int64) for _ in range(4)),
    np.zeros((0, 17), np.int64),
    np.zeros(0, np.int64),
)
PHASES = ("choose", "placing", "declaring", "returning", "after_commit")
END_REASONS = ("passes", "dead", "stall", "turn_cap")  # G29 a, b, c, d


class IllegalActionError(ValueError):
    """An action id the engine does not accept now (the game is unchanged)."""


class StepResult(NamedTuple):
    """What one :meth:`GinnyGame.step` did."""

    seat: int
    """The seat that acted."""
    points: int
    """Points scored by this step (a COMMIT's placement score, else 0)."""
    turn_over: bool
    """The step ended the seat's turn."""
    game_over: bool


class GinnyGame:
    """One game of Ginny-O (see the module docstring).

    Public state: ``config``, ``seed``, ``num_players``, ``board`` (a
    :class:`~gnome_env.ginny_o.board.Board`), ``box`` (list of tile kinds; hidden),
    ``racks`` (one sorted list of kinds per seat; private), ``scores`` (G28 cumulative),
    ``current``, ``turn`` (completed turns), ``first_meld_made``, ``pass_streak``,
    ``stall``, and for the turn in progress ``slots`` (8 kinds, -1 empty), ``slot_used``,
    ``slot_marked``, ``pending`` (``(cell, slot, card)``, card -1 while a joker waits for
    its declaration), ``phase`` (one of :data:`PHASES`), ``drew``, ``placements_made``.
    After the end: ``game_over``, ``end_reason`` (one of :data:`END_REASONS`),
    ``truncated`` (G29d), ``penalties`` (G30), ``final_scores``.

    The keyword arguments after ``seed`` are the test hook of
    :mod:`gnome_env.ginny_o.testing` (a stacked box and a prepared board).
    """

    def __init__(
        self,
        config: GinnyConfig | None = None,
        seed: int = 0,
        *,
        draw_order: Sequence[int] | None = None,
        board: Board | None = None,
        scores: Sequence[int] | None = None,
        turn: int = 0,
        in_play: np.ndarray | None = None,
        racks: Sequence[Sequence[int]] | None = None,
    ) -> None:
        if config is None:
            config = GinnyConfig()
        if not isinstance(config, GinnyConfig):
            raise ValueError(f"config must be a GinnyConfig, got {type(config).__name__}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed={seed!r} is not allowed: must be an integer 0..2**63-1")
        if not 0 <= int(seed) < rng.MAX_SEED:
            raise ValueError(f"seed={seed!r} is not allowed: must be an integer 0..2**63-1")
        self.config = config
        self.seed = int(seed)
        n = self.num_players = config.num_players
        self.board = board.copy() if board is not None else Board()
        self.initial_board = self.board.copy()
        self.initial_scores = (
            [0] * config.num_players if scores is None else [int(x) for x in scores]
        )
        #: Every committed placement: ``(seat, tiles, score)`` (for the validator and records).
        self.placement_log: list[tuple[int, tuple[tuple[int, int, int], ...], int]] = []
        self.stacked = draw_order is not None
        #: Copies of each kind in play (the config's, or fewer through the test hook).
        self.in_play = config.copies() if in_play is None else np.asarray(in_play, dtype=np.int64)
        if draw_order is not None:
            self.box = [int(t) for t in draw_order]
        else:
            self.box = config.all_tiles()
        self.draws = 0
        self.racks: list[list[int]] = [[] for _ in range(n)]
        self.scores = [0] * n if scores is None else [int(s) for s in scores]
        self.turn = int(turn)
        self.first_meld_made = not self.board.empty
        self.pass_streak = 0
        self.stall = 0
        self.game_over = False
        self.truncated = False
        self.end_reason: str | None = None
        self.penalties: list[int] | None = None
        self.final_scores: list[int] | None = None
        self.log: list[tuple[int, int]] = []  # (seat, action) of every accepted step
        fp = config.first_player
        self.first_player = (
            fp if isinstance(fp, int) else rng.draw_index(n, rng.GINNY_FIRST, self.seed)
        )
        if racks is not None:  # the test hook's racks (no deal)
            self.racks = [sorted(int(t) for t in r) for r in racks]
        else:
            for i in range(n):  # G12: from the first player, in seat order, 7 tiles each
                seat = (self.first_player + i) % n
                self._draw(seat, RACK_SIZE)
        self.current = self.first_player
        self._start_turn()

    # ------------------------------------------------------------------ chance
    def _draw(self, seat: int, count: int) -> int:
        """G4: ``seat`` draws up to ``count`` tiles from the box; the number drawn."""
        drawn = 0
        while drawn < count and self.box:
            if self.stacked:
                i = 0
            else:
                i = rng.draw_index(len(self.box), rng.GINNY_DRAW, self.seed, self.draws)
            self.draws += 1
            self.racks[seat].append(self.box.pop(i))
            drawn += 1
        self.racks[seat].sort()
        return drawn

    # ------------------------------------------------------------------ turn structure
    def _start_turn(self) -> None:
        seat = self.current
        self.drew = self._draw(seat, 1) == 1  # G13
        self.lay_out_rack()

    def lay_out_rack(self) -> None:
        """Lay the acting seat's rack into the turn's slots (GD4) and list its placements:
        the start of a turn after the draw. Tools that change that rack before anything is
        placed or marked (the no-leak tests' :func:`~gnome_env.ginny_o.hidden.permute_hidden`)
        call it again."""
        rack = self.racks[self.current]
        self.slots = rack + [-1] * (MAX_SLOTS - len(rack))
        self.slot_used = [False] * MAX_SLOTS
        self.slot_marked = [False] * MAX_SLOTS
        self.pending: list[tuple[int, int, int]] = []
        self.placements_made = 0
        self.phase = "choose"
        self._build_trie()

    def available(self) -> list[int]:
        """The acting seat's tiles not used or pending this turn (kinds, sorted)."""
        return [
            t
            for s, t in enumerate(self.slots)
            if t >= 0 and not self.slot_used[s] and all(p[1] != s for p in self.pending)
        ]

    def legal_placements(self) -> list[Placement]:
        """Every legal placement (G18-G23) the acting seat can make now from its unused tiles,
        scored; empty while a placement is pending or tiles are marked for return."""
        if self.game_over or self.phase not in ("choose", "after_commit"):
            return []
        return list(self._table.placements())

    @property
    def num_placements(self) -> int:
        """``len(legal_placements())``, without making the placement objects."""
        if self.game_over or self.phase not in ("choose", "after_commit"):
            return 0
        return self._table.n

    def placement_sequences(self) -> tuple[tuple[int, ...], ...]:
        """The canonical action sequence (:meth:`placement_actions`) of each of
        :meth:`legal_placements`, in the same order."""
        if self.game_over or self.phase not in ("choose", "after_commit"):
            return ()
        return self._table.sequences()

    def _build_trie(self) -> None:
        """List the legal placements with their action sequences (the mask's prefix trie:
        the rows still consistent with the pending steps, ``_rows``, at depth ``_depth``)."""
        tiles = self.available()
        self._table = placement_table(
            self.board,
            rack_counts(tiles),
            self.slots,
            self.slot_used,
            max_tiles=len(tiles),
            descending_runs=self.config.descending_runs,
            rescore_existing=self.config.rescore_existing,
        )
        self._rows = np.arange(self._table.n)
        self._depth = 0
        self._set_next()

    def _set_next(self) -> None:
        """The trie's legal ids after the pending steps: the next action of every row left."""
        self._legal = None
        if self._rows.size:
            self._next = sorted(set(self._table.acts[self._rows, self._depth].tolist()))
        else:
            self._next = []

    def _advance(self, action: int) -> None:
        """Keep the rows whose next action is ``action`` (a legal PLACE or DECLARE)."""
        self._rows = self._rows[self._table.acts[self._rows, self._depth] == action]
        self._depth += 1
        self._set_next()

    def placement_actions(self, placement: Placement) -> list[int]:
        """The canonical action sequence of a placement from the current slots: PLACE in
        reading order, each joker followed by its DECLARE, then COMMIT; among identical tiles
        the lowest unused slot (RL notes)."""
        used = self.slot_used.copy()
        out = []
        for c, t, card in placement.tiles:
            s = next((i for i in range(MAX_SLOTS) if self.slots[i] == t and not used[i]), None)
            if s is None:
                raise ValueError(f"no unused slot holds {format_kind(t)} for this placement")
            used[s] = True
            out.append(A.place(s, c))
            if t == JOKER:
                out.append(A.declare(card))
        out.append(A.COMMIT)
        return out

    # ------------------------------------------------------------------ masks
    def legal_actions(self) -> list[int]:
        """The acting seat's legal action ids, increasing (empty once the game is over)."""
        cached = self.__dict__.get("_legal")
        if cached is None:  # reset by every change (step, _set_next)
            cached = self._legal = self._list_legal()
        return list(cached)

    def _list_legal(self) -> list[int]:
        if self.game_over:
            return []
        phase = self.phase
        out: list[int] = []
        if phase in ("choose", "after_commit", "placing", "declaring"):
            out.extend(self._next)
        if phase == "choose":
            if self.drew:
                out.extend(A.return_slot(s) for s in range(MAX_SLOTS) if self.slots[s] >= 0)
            else:
                out.append(A.PASS)
        elif phase == "returning":
            last = max(s for s in range(MAX_SLOTS) if self.slot_marked[s])
            out.extend(A.return_slot(s) for s in range(last + 1, MAX_SLOTS) if self.slots[s] >= 0)
            out.append(A.CONFIRM_RETURN)
        elif phase == "after_commit":
            out.append(A.END_TURN)
        return sorted(out)

    def legal_mask(self, seat: int | None = None) -> np.ndarray:
        """int8 mask over the 1864 ids for ``seat`` (default: the acting seat); all zero for a
        seat that is not acting."""
        mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
        if seat is None or seat == self.current:
            mask[self.legal_actions()] = 1
        return mask

    def explain_illegal(self, action: object) -> str:
        """Why ``action`` is not legal now (the text of :class:`IllegalActionError`)."""
        if self.game_over:
            return "the game is over: no action is legal"
        try:
            what = A.kind_of(action)  # type: ignore[arg-type]
        except ValueError as err:
            return str(err)
        words = A.describe(action, self.slots)  # type: ignore[arg-type]
        phase = self.phase
        if what == "pass":
            return f"{words}: PASS is legal only when no tile was drawn this turn (G14)"
        if what in ("return", "confirm_return"):
            if not self.drew:
                return f"{words}: returning needs a draw this turn (G14)"
            if phase not in ("choose", "returning"):
                return f"{words}: returning is not allowed once a tile is placed (G14)"
            if what == "confirm_return":
                return f"{words}: mark at least one slot first"
            return f"{words}: slot empty or not above the last marked slot (RL notes)"
        if what == "end_turn":
            return f"{words}: END_TURN needs max_placements > 1 and a committed placement (G14)"
        if phase == "returning":
            return f"{words}: tiles are marked for return; only RETURN or CONFIRM_RETURN"
        if what == "declare" and phase != "declaring":
            return f"{words}: DECLARE only follows the placement of a joker (G11)"
        if phase == "declaring":
            return (
                f"{words}: the joker just placed must be declared first, as a card that "
                "leads to a legal placement (G11)"
            )
        if what == "commit":
            return f"{words}: the pending tiles do not form a legal placement (G18-G23)"
        return (
            f"{words}: no legal placement (G18-G23) continues this way "
            f"(tiles go down in reading order along one line; identical tiles use the lowest slot)"
        )

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> StepResult:
        """Apply one action of the acting seat; :class:`IllegalActionError` if it is not legal."""
        if isinstance(action, np.integer):
            action = int(action)
        if self.game_over or isinstance(action, bool) or not isinstance(action, int):
            raise IllegalActionError(self.explain_illegal(action))
        legal = self.__dict__.get("_legal")
        if legal is None:
            legal = self._legal = self._list_legal()
        if action not in legal:
            raise IllegalActionError(self.explain_illegal(action))
        seat = self.current
        self._legal = None
        self.log.append((seat, action))
        what = A.kind_of(action)
        points = 0
        turn_over = False
        if what == "place":
            s, c = divmod(action, NUM_CELLS)
            joker = self.slots[s] == JOKER
            self.pending.append((c, s, -1 if joker else self.slots[s]))
            self._advance(action)
            self.phase = "declaring" if joker else "placing"
        elif what == "declare":
            c, s, _ = self.pending[-1]
            self.pending[-1] = (c, s, action - A.DECLARE_BASE)
            self._advance(action)
            self.phase = "placing"
        elif what == "commit":
            rows = self._rows[self._table.acts[self._rows, self._depth] == A.COMMIT]
            placement = self._table.placement(int(rows[-1]))
            points = self._commit(placement)
            if self.placements_made >= self.config.max_placements or not self.available():
                self._end_turn("play")
                turn_over = True
            else:
                self.phase = "after_commit"
                self._build_trie()
        elif what == "return":
            self.slot_marked[action - A.RETURN_BASE] = True
            self.phase = "returning"
        elif what == "confirm_return":
            back = [self.slots[s] for s in range(MAX_SLOTS) if self.slot_marked[s]]
            rack = self.racks[seat]
            for t in back:
                rack.remove(t)
            self.box.extend(back)  # G14: mixed in before the redraw
            self._draw(seat, RACK_SIZE - len(rack))
            self._end_turn("return")
            turn_over = True
        elif what == "end_turn":
            self._end_turn("play")
            turn_over = True
        else:  # pass
            self._end_turn("pass")
            turn_over = True
        return StepResult(seat, points, turn_over, self.game_over)

    def _commit(self, placement: Placement) -> int:
        """G22-G28: put the pending tiles down, join/found their region, score them."""
        seat = self.current
        rack = self.racks[seat]
        for c, s, card in self.pending:
            tile = self.slots[s]
            self.board.put(c, tile == JOKER, card, placement.region)
            self.slot_used[s] = True
            rack.remove(tile)
        self.pending = []
        self.scores[seat] += placement.score
        self.placement_log.append((seat, placement.tiles, placement.score))
        self.placements_made += 1
        self.first_meld_made = True
        return placement.score

    def _end_turn(self, kind: str) -> None:
        """G15 refill, G29 end conditions, then the next seat's turn."""
        n = self.num_players
        seat = self.current
        if kind == "play":
            self._draw(seat, RACK_SIZE - len(self.racks[seat]))  # G15
            self.stall = 0
        elif self.first_meld_made:
            self.stall += 1  # G29c: only turns after the first meld count
        self.pass_streak = self.pass_streak + 1 if kind == "pass" else 0
        self.turn += 1
        self.phase = "choose"
        self.pending = []
        reason = None
        if not self.box and self.pass_streak >= n:
            reason = "passes"  # G29a
        elif self.config.dead_check and self.is_dead():
            reason = "dead"  # G29b
        elif self.config.stall_limit and self.stall >= self.config.stall_limit:
            reason = "stall"  # G29c
        elif self.turn >= self.config.turn_cap:
            reason = "turn_cap"  # G29d (a truncation)
        if reason is not None:
            self._finish(reason)
            return
        self.current = (seat + 1) % n
        self._start_turn()

    def is_dead(self) -> bool:
        """G29b: no legal placement exists for anybody (box not empty: from any <= 8 of all
        unplayed tiles; box empty: from any player's own rack)."""
        kw = {
            "descending_runs": self.config.descending_runs,
            "rescore_existing": self.config.rescore_existing,
            "limit": 1,
        }
        if self.box:
            unplayed = list(self.box)
            for rack in self.racks:
                unplayed.extend(rack)
            return not generate(self.board, rack_counts(unplayed), max_tiles=8, **kw)
        return all(
            not generate(self.board, rack_counts(r), max_tiles=len(r), **kw) for r in self.racks
        )

    def _finish(self, reason: str) -> None:
        """G30-G31: rack penalties, final scores."""
        self.game_over = True
        self.end_reason = reason
        self.truncated = reason == "turn_cap"
        self.penalties = [sum(penalty_value(t) for t in r) for r in self.racks]
        self.final_scores = [s - p for s, p in zip(self.scores, self.penalties, strict=False)]
        self.slots = [-1] * MAX_SLOTS
        self.slot_used = [False] * MAX_SLOTS
        self.slot_marked = [False] * MAX_SLOTS
        self._table = _NO_PLACEMENTS
        self._rows = self._table.k
        self._depth = 0
        self._next = []

    # ------------------------------------------------------------------ outcome
    def winners(self) -> tuple[int, ...]:
        """G31: the highest final score; a tie goes to the smaller rack penalty; a tie that
        remains is shared."""
        if not self.game_over:
            raise ValueError("the game is not over yet")
        keys = self.ranking_keys()
        best = min(keys)
        return tuple(s for s in range(self.num_players) if keys[s] == best)

    def ranking_keys(self) -> list[tuple[int, int]]:
        """G31 sort key per seat (smaller is better; equal keys are tied):
        ``(-final score, penalty)``."""
        assert self.final_scores is not None and self.penalties is not None
        return [(-f, p) for f, p in zip(self.final_scores, self.penalties, strict=False)]

    order_keys = old_method("ranking_keys", "order_keys", "GinnyGame")

    def rank_rewards(self) -> list[float]:
        """RL notes: ``(opponents ranked below - opponents ranked above) / (n - 1)`` per seat."""
        keys = self.ranking_keys()
        n = self.num_players
        return [
            (sum(keys[j] > keys[i] for j in range(n)) - sum(keys[j] < keys[i] for j in range(n)))
            / (n - 1)
            for i in range(n)
        ]

    # ------------------------------------------------------------------ views
    @property
    def direction(self) -> int:
        """Axis of the pending tiles: 0 none (fewer than 2), 1 horizontal, 2 vertical."""
        if len(self.pending) < 2:
            return 0
        (a, _, _), (b, _, _) = self.pending[0], self.pending[1]
        return 1 if a // 15 == b // 15 else 2

    def unseen_counts(self, seat: int) -> np.ndarray:
        """Per kind (53): copies in play that ``seat`` cannot see (box plus other racks)."""
        return np.array(self.unseen_list(seat), dtype=np.int64)

    def unseen_list(self, seat: int) -> list[int]:
        """:meth:`unseen_counts` as a list of ints."""
        cached = self.__dict__.get("_off_board")
        if cached is None or cached[0] is not self.board or cached[1] != self.board.count:
            left = self.in_play.tolist()
            for c in range(NUM_CELLS):
                if self.board.card[c] >= 0:
                    left[JOKER if self.board.joker[c] else self.board.card[c]] -= 1
            # tiles only ever join the board: its size (and the object) identify its state
            cached = self._off_board = (self.board, self.board.count, left)
        out = list(cached[2])
        for t in self.racks[seat]:
            out[t] -= 1
        return out

    def pending_text(self) -> str:
        return " ".join(
            f"{format_tile(self.slots[s], card) if card >= 0 else '*=?'}@{row_col(c)}"
            for c, s, card in self.pending
        )

    def copy(self) -> GinnyGame:
        """An independent copy (the trie is shared: it is never changed after it is built)."""
        out = GinnyGame.__new__(GinnyGame)
        out.__dict__.update(self.__dict__)
        out.board = self.board.copy()
        out.box = list(self.box)
        out.racks = [list(r) for r in self.racks]
        out.scores = list(self.scores)
        out.log = list(self.log)
        out.placement_log = list(self.placement_log)
        for name in ("slots", "slot_used", "slot_marked", "pending"):
            setattr(out, name, list(getattr(self, name)))
        for name in ("penalties", "final_scores"):
            v = getattr(self, name)
            setattr(out, name, None if v is None else list(v))
        return out

    def state_tuple(self) -> tuple:
        """Everything that decides the game from here (for digests and equality tests)."""
        b = self.board
        return (
            tuple(sorted(self.config.to_dict().items())),
            self.seed,
            tuple(b.card),
            tuple(b.joker),
            tuple(b.region),
            tuple(self.box),
            self.draws,
            tuple(map(tuple, self.racks)),
            tuple(self.scores),
            self.current,
            self.turn,
            self.pass_streak,
            self.stall,
            self.first_meld_made,
            self.phase,
            tuple(self.slots),
            tuple(self.slot_used),
            tuple(self.slot_marked),
            tuple(self.pending),
            self.drew,
            self.placements_made,
            self.game_over,
            self.end_reason,
        )

    def digest(self) -> str:
        """A short hash of :meth:`state_tuple` (equal games, equal digests)."""
        return hashlib.sha256(repr(self.state_tuple()).encode()).hexdigest()[:16]

    def render(self, seat: int | None = None) -> str:
        """Text: scores, box size, the board with coordinates, and ``seat``'s rack (default:
        the acting seat) with its slot numbers."""
        seat = self.current if seat is None else seat
        lines = [
            f"Ginny-O  turn {self.turn}  box {len(self.box)}  "
            + "  ".join(f"P{s}:{self.scores[s]}" for s in range(self.num_players))
        ]
        lines.append(self.board.render())
        if self.game_over:
            lines.append(
                f"game over ({self.end_reason}); penalties {self.penalties}; "
                f"final {self.final_scores}; winners {list(self.winners())}"
            )
            return "\n".join(lines)
        if seat == self.current:
            rack = "  ".join(
                f"{s}:{format_kind(t)}{'x' if self.slot_used[s] else ''}"
                f"{'r' if self.slot_marked[s] else ''}"
                for s, t in enumerate(self.slots)
                if t >= 0
            )
        else:
            rack = " ".join(format_kind(t) for t in self.racks[seat])
        lines.append(f"P{seat} rack: {rack}")
        if self.pending:
            lines.append(f"pending: {self.pending_text()}")
        lines.append(f"to act: P{self.current} ({self.phase})")
        return "\n".join(lines)


__all__ = ["END_REASONS", "PHASES", "GinnyGame", "IllegalActionError", "StepResult"]
