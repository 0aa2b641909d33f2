"""Ginny-O game records: a game as JSON (seed, rules, players, every turn's action ids) that
replays exactly, and the check that names the turn, the seat and the action where a record
stops agreeing.

Nothing in a Ginny-O game is random but the first player (G12) and the draws (G4), and both
are functions of the seed (:mod:`gnome_env.ginny_o.engine`), so the seed, the rules and the
action ids of every turn (the atomic steps of the rules' RL notes) rebuild the whole game. A
:class:`GameLog` is a game plus those actions, turn by turn; it plays like the game
(``log.step(action)``) and describes every turn as it goes (:class:`TurnLog`): the
placements with their cells and tiles and the lines each one scored with the G27 arithmetic
(:func:`gnome_env.ginny_o.describe.scored_lines`), the returns (how many tiles; which ones
only in the mover's private part), the passes, the box count, and at the end the G29 end
condition, the G30 rack penalties, the final scores and the G31 winners.

A record (format ``gnome_env.ginny_o_record``, version 1) is a JSON object::

    {"format": "gnome_env.ginny_o_record", "version": 1, "game": "ginny_o",
     "rules": {GinnyConfig.to_dict()}, "seed": 7, "players": ["greedy", "random"],
     "stacked": null,
     "turns": [{"seat": 1, "actions": [1507, 1732, 1283, 1852], "check": "3fa91c"}, ...],
     "final": {"turn": 25, "scores": [...], "game_over": true, "end_reason": "dead",
               "penalties": [...], "final_scores": [...], "winners": [0], "digest": "..."},
     "meta": {...}}

* ``players`` labels every seat (``meta["players"]`` when it is one label per seat, else
  ``seat 0``, ``seat 1``, ...).
* ``turns[t]`` is the ``t``-th turn of the record: the acting seat and the action ids it
  sent, in order. Every turn but the last one is complete; the last one may be unfinished
  (a game left in the middle of a turn). ``check`` is 6 hex digits: the start of the
  SHA-256 of the state digest (:meth:`GinnyGame.digest`) after the turn and of its action
  ids. A record whose actions were edited (even into other legal ones), or that another
  engine replays differently, is caught at the first turn that differs.
* ``final`` is the state at the record's end; ``stacked`` is ``null``, or the position of
  the engine's test hook (:func:`gnome_env.ginny_o.testing.stacked_game`: racks, the stacked
  ``draws``, a prepared ``board`` in placement notation, ``scores``, ``turn``, ``rest``)
  the game started from. ``meta`` (optional, any JSON object) says where the game came
  from and never affects the replay.

:func:`replay` raises :class:`~gnome_env.core.records.RecordError` with one line naming the
turn, the seat and the action for a record that is not one (wrong format, version, fields)
or does not replay (an illegal action, a turn that ends elsewhere, a check or a final score
that differs). :func:`save_record` never replaces an existing file unless asked
(``overwrite=True``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from gnome_env.core.records import RecordError, check_fields, check_format, read_record, write_text
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.describe import (
    END_RULES,
    END_WORDS,
    LineScore,
    founds_region,
    scored_lines,
    winner_words,
)
from gnome_env.ginny_o.engine import GinnyGame, IllegalActionError, StepResult

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "EndLog",
    "GameLog",
    "PlacementLog",
    "RecordError",
    "TurnLog",
    "end_log",
    "load_record",
    "play_turn",
    "read_record",
    "record_text",
    "replay",
    "save_record",
    "to_record",
    "turn_check",
]

RECORD_FORMAT = "gnome_env.ginny_o_record"
RECORD_VERSION = 1
GAME = "ginny_o"
CHECK_DIGITS = 6  #: hex digits of the per-turn check
_KEYS = ("format", "version", "game", "rules", "seed", "players", "stacked", "turns", "final")
_OPTIONAL_KEYS = ("meta",)
_TURN_KEYS = ("seat", "actions", "check")
_STACKED_KEYS = ("racks", "draws", "board", "scores", "turn", "rest")
_HEX = set("0123456789abcdef")


# ---------------------------------------------------------------------- what a turn did
@dataclass(frozen=True)
class PlacementLog:
    """One committed placement (G18-G28): its new tiles ``(cell, tile, card)`` in reading
    order, its score, the region it joined or founded (G22, G23) and the lines it scored."""

    tiles: tuple[tuple[int, int, int], ...]
    score: int
    region: int
    founded: bool
    """It touched no tile: the first meld (G20) or a new region (G22)."""
    first: bool
    """The first meld of the game (G20)."""
    lines: tuple[LineScore, ...]


@dataclass(frozen=True)
class EndLog:
    """How the game ended: the G29 reason, the scores before the G30 penalties, the
    penalties, the final scores, the G31 winners and why; ``racks`` (private) the tiles left
    on each rack."""

    reason: str
    rule: str
    words: str
    truncated: bool
    scores: tuple[int, ...]
    penalties: tuple[int, ...]
    final_scores: tuple[int, ...]
    winners: tuple[int, ...]
    why: str
    racks: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class TurnLog:
    """One turn of one seat (G13-G15), as it was played.

    Public (G17): ``turn`` (the engine's turn number), ``seat``, ``drew`` (G13), the box
    size before the turn's draw and at the turn's end (``box_start``, ``box_end``), ``kind``
    (``play``, ``return``, ``pass``, or ``unfinished`` for a record's last turn left in the
    middle), the ``placements``, ``returned`` (how many tiles went back to the box), the
    turn's ``points``, every seat's ``scores`` and rack size at the turn's end, the stall and
    pass counters (G29a, G29c) and, when the turn ended the game, ``end``.

    Private to the mover: ``actions`` (the ids name rack slots, so they tell the rack's
    order), ``rack_before`` (after the draw), ``rack_after``, ``returned_tiles`` and
    ``refill`` (the tiles drawn at the turn's end, G14, G15); ``racks_after`` holds every
    seat's rack at the turn's end (omniscient only).
    """

    turn: int
    seat: int
    drew: bool
    box_start: int
    box_end: int
    kind: str
    placements: tuple[PlacementLog, ...]
    returned: int
    points: int
    scores: tuple[int, ...]
    rack_sizes: tuple[int, ...]
    stall: int
    pass_streak: int
    end: EndLog | None
    actions: tuple[int, ...]
    rack_before: tuple[int, ...]
    rack_after: tuple[int, ...]
    returned_tiles: tuple[int, ...]
    refill: tuple[int, ...]
    racks_after: tuple[tuple[int, ...], ...]

    @property
    def finished(self) -> bool:
        return self.kind != "unfinished"


def _minus(a: Sequence[int], b: Sequence[int]) -> list[int]:
    """The multiset ``a - b``, sorted."""
    left = Counter(a)
    left.subtract(b)
    return sorted(left.elements())


def end_log(game: GinnyGame) -> EndLog:
    """The :class:`EndLog` of a finished game (G29-G31)."""
    assert game.end_reason is not None and game.penalties is not None
    assert game.final_scores is not None
    winners = game.winners()
    return EndLog(
        reason=game.end_reason,
        rule=END_RULES[game.end_reason],
        words=END_WORDS[game.end_reason],
        truncated=game.truncated,
        scores=tuple(game.scores),
        penalties=tuple(game.penalties),
        final_scores=tuple(game.final_scores),
        winners=tuple(winners),
        why=winner_words(game.final_scores, game.penalties, winners),
        racks=tuple(tuple(r) for r in game.racks),
    )


class _TurnBuilder:
    """Watches the steps of one turn of ``game`` (from its start, after the draw) and
    describes it (:meth:`snapshot`)."""

    def __init__(self, game: GinnyGame) -> None:
        self.game = game
        self.turn = game.turn
        self.seat = game.current
        self.drew = bool(game.drew)
        self.box_start = len(game.box) + int(self.drew)
        self.racks_before = tuple(tuple(r) for r in game.racks)
        self.actions: list[int] = []
        self.placements: list[PlacementLog] = []
        self.returned: list[int] = []
        self.points = 0
        self.kind = "unfinished"
        self.closed: TurnLog | None = None

    def step(self, action: int) -> StepResult:
        """``game.step(action)``, described; an illegal action raises and changes nothing."""
        game = self.game
        if isinstance(action, np.integer):
            action = int(action)
        pending = board = tile = None
        if action == A.COMMIT:
            pending = [(c, game.slots[s], card) for c, s, card in game.pending]
            board = game.board.copy()
        elif isinstance(action, int) and A.RETURN_BASE <= action < A.CONFIRM_RETURN:
            tile = game.slots[action - A.RETURN_BASE]
        first = not game.first_meld_made
        result = game.step(action)
        self.actions.append(int(action))
        if pending is not None and board is not None:
            cfg = game.config
            lines = scored_lines(
                board,
                pending,
                descending_runs=cfg.descending_runs,
                rescore_existing=cfg.rescore_existing,
            )
            self.placements.append(
                PlacementLog(
                    tiles=tuple(sorted(pending)),
                    score=result.points,
                    region=game.board.region[pending[0][0]],
                    founded=founds_region(board, pending),
                    first=first,
                    lines=tuple(lines),
                )
            )
            self.points += result.points
        if tile is not None:
            self.returned.append(tile)
        if result.turn_over:
            what = A.kind_of(int(action))
            self.kind = {"confirm_return": "return", "pass": "pass"}.get(what, "play")
            self.closed = self.snapshot()
        return result

    def snapshot(self) -> TurnLog:
        """The turn so far (``kind`` ``unfinished`` while it is in progress)."""
        if self.closed is not None:
            return self.closed
        game = self.game
        over = self.kind != "unfinished"
        sizes = [len(r) for r in game.racks]
        box_end = len(game.box)
        if over and not game.game_over and game.drew:  # the next seat's draw (G13) is not ours
            sizes[game.current] -= 1
            box_end += 1
        rack_after = tuple(game.racks[self.seat])
        racks_after = list(self.racks_before)
        racks_after[self.seat] = rack_after
        placed = [t for p in self.placements for _, t, _ in p.tiles]
        kept = _minus(_minus(self.racks_before[self.seat], placed), self.returned)
        return TurnLog(
            turn=self.turn,
            seat=self.seat,
            drew=self.drew,
            box_start=self.box_start,
            box_end=box_end,
            kind=self.kind,
            placements=tuple(self.placements),
            returned=len(self.returned) if self.kind == "return" else 0,
            points=self.points,
            scores=tuple(game.scores),
            rack_sizes=tuple(sizes),
            stall=game.stall,
            pass_streak=game.pass_streak,
            end=end_log(game) if game.game_over else None,
            actions=tuple(self.actions),
            rack_before=self.racks_before[self.seat],
            rack_after=rack_after,
            returned_tiles=tuple(sorted(self.returned)) if self.kind == "return" else (),
            refill=tuple(_minus(rack_after, kept)) if over else (),
            racks_after=tuple(racks_after),
        )


def play_turn(game: GinnyGame, actions: Sequence[int]) -> TurnLog:
    """Play one whole turn of ``game`` (from its start) with ``actions`` and describe it
    (:class:`TurnLog`); an action that is not legal raises ``IllegalActionError``."""
    builder = _TurnBuilder(game)
    for a in actions:
        builder.step(a)
    return builder.snapshot()


def turn_check(game: GinnyGame, actions: Sequence[int]) -> str:
    """The per-turn check of a record: :data:`CHECK_DIGITS` hex digits of the SHA-256 of
    ``game``'s digest (after the turn) and the turn's action ids."""
    text = f"{game.digest()}|{','.join(str(int(a)) for a in actions)}"
    return hashlib.sha256(text.encode()).hexdigest()[:CHECK_DIGITS]


# ---------------------------------------------------------------------- the log
def _stacked_setup(stacked: Mapping[str, Any]) -> dict[str, Any]:
    """The record's form of the test hook's position (racks and draws as token lists)."""
    unknown = sorted(set(stacked) - set(_STACKED_KEYS))
    if unknown:
        raise ValueError(f"unknown stacked field(s) {unknown}; known: {list(_STACKED_KEYS)}")
    racks = stacked.get("racks")
    if isinstance(racks, Mapping):
        racks = [racks[s] for s in sorted(racks, key=int)]
    if not isinstance(racks, Sequence) or isinstance(racks, str):
        raise ValueError("stacked 'racks' must give one rack per seat")
    draws = stacked.get("draws", "")
    scores = stacked.get("scores")
    return {
        "racks": [r.split() if isinstance(r, str) else list(r) for r in racks],
        "draws": draws.split() if isinstance(draws, str) else list(draws),
        "board": list(stacked.get("board", ())),
        "scores": None if scores is None else [int(x) for x in scores],
        "turn": int(stacked.get("turn", 0)),
        "rest": stacked.get("rest", "box"),
    }


class GameLog:
    """A :class:`GinnyGame` and every turn it was played with.

    ``log.step(action)`` plays the game as :meth:`GinnyGame.step` does (an illegal action
    raises and is not logged); ``log.turns`` describes every turn so far
    (:class:`TurnLog`; the last one ``unfinished`` while it is in progress) and
    ``log.turn_actions`` holds each turn's ``(seat, action ids)``.

    ``stacked`` starts the game from a position of the test hook
    (:func:`gnome_env.ginny_o.testing.stacked_game`: ``racks`` (one per seat), ``draws``,
    ``board``, ``scores``, ``turn``, ``rest``; the first player is ``config.first_player``,
    which must then be a seat). The log is what a record is made from
    (:func:`to_record`) and what :func:`replay` returns.
    """

    def __init__(
        self,
        config: GinnyConfig | None = None,
        seed: int = 0,
        stacked: Mapping[str, Any] | None = None,
    ) -> None:
        config = config or GinnyConfig()
        self.stacked = None if stacked is None else _stacked_setup(stacked)
        self.game = self._new_game(config, seed)
        self._closed: list[TurnLog] = []
        self._checks: list[str] = []
        self._open: _TurnBuilder | None = None

    def _new_game(self, config: GinnyConfig, seed: int) -> GinnyGame:
        if self.stacked is None:
            return GinnyGame(config, seed)
        from gnome_env.ginny_o.testing import stacked_game

        first = config.first_player
        if not isinstance(first, int):
            raise ValueError("a stacked game needs first_player to be a seat, not 'random'")
        s = self.stacked
        return stacked_game(
            config,
            racks={i: list(r) for i, r in enumerate(s["racks"])},
            draws=s["draws"],
            board=s["board"],
            scores=s["scores"],
            first_player=first,
            turn=s["turn"],
            rest=s["rest"],
            seed=seed,
        )

    @classmethod
    def from_game(cls, game: GinnyGame) -> GameLog:
        """The log of a game made by ``GinnyGame(config, seed)`` and played since, rebuilt
        from its seed and its accepted steps (``game.log``). A game built with the test
        hook's keywords has no record this way (``ValueError``): play it through a
        ``GameLog(config, seed, stacked=...)``."""
        if not isinstance(game, GinnyGame):
            raise ValueError(f"a record is made from a GinnyGame, got {type(game).__name__}")
        plain = GinnyGame(game.config, game.seed)
        if (
            game.stacked
            or game.initial_board != plain.initial_board
            or game.initial_scores != plain.initial_scores
            or list(game.in_play) != list(plain.in_play)
        ):
            raise ValueError(
                "this game was built with the test hook (a stacked box, a prepared board or "
                "scores): play it through GameLog(config, seed, stacked=...) to record it"
            )
        log = cls(game.config, game.seed)
        for _, action in game.log:
            log.step(action)
        if log.game.digest() != game.digest():
            raise ValueError(
                "the game's steps from its seed do not give the game: was it changed outside "
                "step() (given racks, a changed box)? Such a game has no record"
            )
        return log

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self.game.num_players

    def fresh_game(self) -> GinnyGame:
        """A new game with the same rules, seed and stacked position, before its first turn."""
        return self._new_game(self.game.config, self.game.seed)

    def step(self, action: int) -> StepResult:
        """One atomic action of the acting seat, described and logged once it is accepted."""
        if self._open is None:
            if self.game.game_over:
                raise IllegalActionError(self.game.explain_illegal(action))
            self._open = _TurnBuilder(self.game)
        result = self._open.step(action)
        if result.turn_over:
            self._closed.append(self._open.snapshot())
            self._checks.append(turn_check(self.game, self._open.actions))
            self._open = None
        return result

    @property
    def turns(self) -> list[TurnLog]:
        """Every turn so far, described; an unfinished last turn is included."""
        out = list(self._closed)
        if self._open is not None:
            out.append(self._open.snapshot())
        return out

    @property
    def turn_actions(self) -> list[tuple[int, list[int]]]:
        """``(seat, action ids)`` of every turn so far (the last one may be unfinished)."""
        return [(t.seat, list(t.actions)) for t in self.turns]

    @property
    def num_actions(self) -> int:
        """Action ids played in all turns together."""
        return sum(len(t.actions) for t in self.turns)

    def checks(self) -> list[str]:
        """The per-turn check (:func:`turn_check`) of every turn so far."""
        out = list(self._checks)
        if self._open is not None:
            out.append(turn_check(self.game, self._open.actions))
        return out


# ---------------------------------------------------------------------- to a record
def _final(game: GinnyGame) -> dict[str, Any]:
    over = game.game_over
    return {
        "turn": game.turn,
        "scores": list(game.scores),
        "game_over": bool(over),
        "end_reason": game.end_reason,
        "penalties": list(game.penalties) if over and game.penalties is not None else None,
        "final_scores": (
            list(game.final_scores) if over and game.final_scores is not None else None
        ),
        "winners": list(game.winners()) if over else [],
        "digest": game.digest(),
    }


def _players(meta: Mapping[str, Any] | None, n: int, players: Sequence[str] | None) -> list[str]:
    if players is None and meta is not None:
        given = meta.get("players")
        if isinstance(given, list) and len(given) == n:
            players = given
    if players is None:
        return [f"seat {s}" for s in range(n)]
    if isinstance(players, str) or len(players) != n:
        raise ValueError(f"players must give one label per seat ({n}), got {players!r}")
    return [str(p) for p in players]


def to_record(
    log: GameLog | GinnyGame,
    meta: Mapping[str, Any] | None = None,
    players: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The record of ``log`` so far (a :class:`GameLog`, or a game made by
    ``GinnyGame(config, seed)``, see :meth:`GameLog.from_game`) as a JSON-ready dict.
    ``meta`` (a JSON-ready mapping) is stored under ``"meta"`` if given; ``players`` labels
    the seats (default: ``meta["players"]`` when it has one label per seat)."""
    if meta is not None and not isinstance(meta, Mapping):
        raise TypeError(f"meta must be a mapping or None, got {type(meta).__name__}")
    if isinstance(log, GinnyGame):
        log = GameLog.from_game(log)
    game = log.game
    if len(game.log) != log.num_actions:
        raise ValueError("the log's game was stepped outside the log: step the log instead")
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "game": GAME,
        "rules": game.config.to_dict(),
        "seed": game.seed,
        "players": _players(meta, game.num_players, players),
        "stacked": None if log.stacked is None else json.loads(json.dumps(log.stacked)),
        "turns": [
            {"seat": seat, "actions": actions, "check": check}
            for (seat, actions), check in zip(log.turn_actions, log.checks(), strict=True)
        ],
        "final": _final(game),
    }
    if meta is not None:
        record["meta"] = dict(meta)
    return record


# ---------------------------------------------------------------------- replay
def _check_header(record: Any) -> None:
    """Format, version, game and the set of fields (before anything is replayed)."""
    check_format(record, RECORD_FORMAT, "Ginny-O game record")
    version = record.get("version")
    if version != RECORD_VERSION or isinstance(version, bool):
        raise RecordError(
            f"Ginny-O record version {version!r} is not supported: this gnome_env reads "
            f"version {RECORD_VERSION}"
        )
    if record.get("game") != GAME:
        raise RecordError(f"record 'game' is {record.get('game')!r}, expected {GAME!r}")
    check_fields(record, _KEYS, _OPTIONAL_KEYS)


def _new_log(record: dict[str, Any]) -> GameLog:
    """The log of the record's rules, seed and stacked position, before its first turn."""
    try:
        rules = record["rules"]
        if not isinstance(rules, dict):
            raise ValueError(f"'rules' must be an object of GinnyConfig fields, got {rules!r}")
        config = GinnyConfig.from_dict(rules)
        seed = record["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed={seed!r} is not allowed: must be an integer")
        stacked = record["stacked"]
        if stacked is not None and not isinstance(stacked, dict):
            raise ValueError(f"'stacked' must be null or an object, got {stacked!r}")
        log = GameLog(config, seed, stacked=stacked)
    except (ValueError, TypeError, AttributeError, KeyError) as err:
        raise RecordError(f"record header is invalid: {err}") from None
    players = record["players"]
    n = config.num_players
    if not (isinstance(players, list) and len(players) == n):
        raise RecordError(
            f"record 'players' must list one label per seat ({n} for num_players={n}), "
            f"got {players!r}"
        )
    return log


def _check_turn_fields(t: int, turn: Any, n: int) -> tuple[int, list[int], str]:
    where = f"record turn entry {t}"
    if not isinstance(turn, dict) or sorted(turn) != sorted(_TURN_KEYS):
        got = sorted(turn) if isinstance(turn, dict) else type(turn).__name__
        raise RecordError(f"{where} must be an object with fields {list(_TURN_KEYS)}, got {got}")
    seat, actions, check = turn["seat"], turn["actions"], turn["check"]
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n:
        raise RecordError(f"{where}: 'seat' must be a seat 0..{n - 1}, got {seat!r}")
    ok = isinstance(actions, list) and all(
        isinstance(a, int) and not isinstance(a, bool) for a in actions
    )
    if not ok or not actions:
        raise RecordError(
            f"{where}: 'actions' must be a non-empty list of action ids, got {actions!r}"
        )
    if not isinstance(check, str) or len(check) != CHECK_DIGITS or not set(check) <= _HEX:
        raise RecordError(f"{where}: 'check' must be {CHECK_DIGITS} hex digits, got {check!r}")
    return seat, actions, check


def _replay_turn(log: GameLog, t: int, turn: Any, last: bool) -> None:
    """Play turn entry ``t`` of a record into ``log``, checking every action and the turn."""
    game = log.game
    seat, actions, check = _check_turn_fields(t, turn, game.num_players)
    if game.game_over:
        raise RecordError(
            f"record does not replay at turn {game.turn} (seat {seat}): the game ended after "
            f"turn {game.turn - 1} ({END_WORDS.get(game.end_reason or '', '')}), but the record "
            "goes on"
        )
    number = game.turn
    if seat != game.current:
        raise RecordError(
            f"record does not replay at turn {number}: the record has seat {seat} act, but it "
            f"is seat {game.current}'s turn (G12: seats play in increasing order)"
        )
    for k, action in enumerate(actions):
        where = f"record does not replay at turn {number} (seat {seat}), action {k} (id {action})"
        if k and log._open is None:
            raise RecordError(
                f"{where}: the turn ended after action {k - 1}, but the record has "
                f"{len(actions)} actions in it"
            )
        try:
            log.step(action)
        except IllegalActionError as err:
            raise RecordError(f"{where}: {err}") from None
    if not last and log._open is not None:
        raise RecordError(
            f"record does not replay at turn {number} (seat {seat}): the turn is still in "
            f"progress after its {len(actions)} actions, but the record goes on"
        )
    if check != log.checks()[-1]:
        raise RecordError(
            f"record does not replay at turn {number} (seat {seat}): the state after this turn "
            "differs from the recorded one (an edited record, or one written by another "
            "engine version)"
        )


def _check_final(log: GameLog, final: Any) -> None:
    game = log.game
    where = f"record does not replay at its end (turn {game.turn})"
    if not isinstance(final, dict):
        raise RecordError(f"record 'final' must be an object, got {type(final).__name__}")
    mine = _final(game)
    for key, what in (
        ("game_over", "whether the game is over"),
        ("end_reason", "the end condition (G29)"),
        ("scores", "the scores"),
        ("penalties", "the rack penalties (G30)"),
        ("final_scores", "the final scores (G30)"),
        ("winners", "the winners (G31)"),
        ("turn", "the turn count"),
    ):
        if final.get(key) != mine[key]:
            raise RecordError(
                f"{where}: {what}: replayed {mine[key]!r}, recorded {final.get(key)!r}"
            )
    if final.get("digest") != mine["digest"]:
        raise RecordError(
            f"{where}: the final state differs from the recorded one (edited record?)"
        )


def replay(record: Any) -> GameLog:
    """Rebuild the game a record describes (:class:`GameLog`); raise :class:`RecordError`
    naming the turn, seat and action where it is not a record or stops agreeing."""
    _check_header(record)
    log = _new_log(record)
    turns = record["turns"]
    if not isinstance(turns, list):
        raise RecordError("record 'turns' must be a list of turn entries")
    for t, turn in enumerate(turns):
        _replay_turn(log, t, turn, last=t == len(turns) - 1)
    _check_final(log, record["final"])
    return log


# ---------------------------------------------------------------------- files
def _small(value: Any) -> bool:
    """A list of plain values, or an object whose values are plain or such lists."""
    if isinstance(value, list):
        return not any(isinstance(v, (dict, list)) for v in value)
    if isinstance(value, dict):
        return all(
            not isinstance(v, (dict, list)) or (isinstance(v, list) and _small(v))
            for v in value.values()
        )
    return True


def _json(value: Any, level: int) -> str:
    """``value`` as indented JSON whose small parts (a turn entry, the rules, a list of
    scores) stay on one line."""
    pad = " " * level
    if _small(value):
        return json.dumps(value)
    if isinstance(value, dict):
        items = [f"{pad} {json.dumps(k)}: {_json(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    items = [f"{pad} {_json(v, level + 1)}" for v in value]
    return "[\n" + ",\n".join(items) + f"\n{pad}]"


def record_text(record: Mapping[str, Any]) -> str:
    """A record as JSON text: indented, one turn a line, and a final newline.
    ``json.loads`` of it gives ``record`` back."""
    return _json(dict(record), 0) + "\n"


def save_record(
    log: GameLog | GinnyGame,
    path: str | os.PathLike,
    meta: Mapping[str, Any] | None = None,
    overwrite: bool = False,
    players: Sequence[str] | None = None,
) -> Path:
    """Write the record of ``log`` (with ``meta``) to ``path`` (atomically); an existing file
    is a ``FileExistsError`` and stays as it was, unless ``overwrite``."""
    return write_text(path, record_text(to_record(log, meta, players)), overwrite)


def load_record(path: str | os.PathLike) -> GameLog:
    """Read a Ginny-O record from ``path`` and replay it (:class:`RecordError` if it fails)."""
    return replay(read_record(path))
