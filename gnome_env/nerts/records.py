"""Nerts game records: a game as JSON (seed, rules, every step's joint action) that replays
exactly, and the check that names the step where a record stops agreeing.

Nothing in a Nerts game is random but the deals and the priority orders (N4), and both are
functions of the seed, so the seed, the rules and the joint action of every step (N18: one
action per seat) rebuild the whole game. A :class:`GameLog` is a game plus those actions; it
plays like the game (``log.step(actions)``, ``log.next_hand()``) and remembers them.

A record (format ``gnome_env.nerts_record``, version 1) is a JSON object::

    {"format": "gnome_env.nerts_record", "version": 1, "game": "nerts",
     "rules": {NertsConfig.to_dict()}, "seed": 7, "stacked_decks": {},
     "hands": [{"steps": [[0, 2, 5, 0], ...], "digests": "3fa91c...", "end": {...}}, ...],
     "final": {"digest": "...", "totals": [...], "hand_over": true, "game_over": true},
     "meta": {...}}

* ``hands[h].steps[k]`` is the joint action of step ``k`` of hand ``h``: one N36 action id
  per seat, in seat order. A hand that is not the last one ended (N29) after its last step;
  the last hand may still be in play (or just dealt, with no steps).
* ``hands[h].digests`` holds 6 hex digits per step: the start of the SHA-256 of the state
  digest (:meth:`NertsGame.digest`) after the step and of the step's joint action. A record
  whose actions were edited (even into other legal ones), or that another engine replays
  differently, is caught at the first step that differs.
* ``hands[h].end`` is ``{"reason", "scores", "callers"}`` of a finished hand (N29, N30),
  ``null`` for a hand in play; ``final`` is the state at the end.
* ``stacked_decks`` is the engine's test hook (``{hand: {seat: [tokens, top first]}}``);
  ``meta`` (optional, any JSON object) says where the game came from and never affects the
  replay.

:func:`replay` raises :class:`~gnome_env.core.records.RecordError` naming the hand, the step
and the seat for a record that is not one (wrong format, version, fields, lengths) or does
not replay (an illegal action, a hand that ends elsewhere, a digest that differs).
:func:`save_record` never replaces an existing file unless asked (``overwrite=True``).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gnome_env.core.records import RecordError, check_fields, check_format, read_record, write_text
from gnome_env.nerts.cards import format_card
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.engine import NertsGame, StepResult

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "GameLog",
    "RecordError",
    "load_record",
    "read_record",
    "replay",
    "save_record",
    "step_check",
    "to_record",
]

RECORD_FORMAT = "gnome_env.nerts_record"
RECORD_VERSION = 1
GAME = "nerts"
CHECK_DIGITS = 6  #: hex digits of the per-step check
_KEYS = ("format", "version", "game", "rules", "seed", "stacked_decks", "hands", "final")
_OPTIONAL_KEYS = ("meta",)
_HAND_KEYS = ("steps", "digests", "end")


class GameLog:
    """A :class:`NertsGame` and the joint action of every step it was played with.

    ``log.step(actions)`` and ``log.next_hand()`` play the game as
    :meth:`NertsGame.step` / :meth:`NertsGame.next_hand` do (an illegal step raises and is
    not logged); ``log.hands[h]`` is the list of hand ``h``'s joint actions.
    """

    def __init__(
        self,
        config: NertsConfig | None = None,
        seed: int = 0,
        stacked_decks: Mapping[int, object] | None = None,
    ) -> None:
        self.game = NertsGame(config, seed, stacked_decks=stacked_decks)
        self.hands: list[list[list[int]]] = [[]]

    @property
    def num_players(self) -> int:
        """Seats at the table."""
        return self.game.num_players

    @property
    def num_steps(self) -> int:
        """Steps played in all hands together."""
        return sum(len(h) for h in self.hands)

    def step(self, actions: Sequence[int]) -> StepResult:
        """N18: one action per seat, resolved by the game; logged once it resolved."""
        result = self.game.step(actions)
        self.hands[-1].append([int(a) for a in actions])
        return result

    def next_hand(self) -> None:
        """N31: deal the next hand."""
        self.game.next_hand()
        self.hands.append([])

    def fresh_game(self) -> NertsGame:
        """A new game with the same rules, seed and stacked decks, before its first step."""
        return NertsGame(self.game.config, self.game.seed, stacked_decks=_decks_of(self.game))


def step_check(game: NertsGame, actions: Sequence[int]) -> str:
    """The per-step check of a record: :data:`CHECK_DIGITS` hex digits of the SHA-256 of
    ``game``'s digest (after the step) and the step's joint action."""
    text = f"{game.digest()}|{','.join(str(int(a)) for a in actions)}"
    return hashlib.sha256(text.encode()).hexdigest()[:CHECK_DIGITS]


def _decks_of(game: NertsGame) -> dict[int, dict[int, list[str]]]:
    """The game's stacked decks (test hook) as N2 tokens, top first."""
    return {
        h: {s: [format_card(c) for c in deck] for s, deck in decks.items()}
        for h, decks in game.stacked_decks.items()
    }


def _hand_end(game: NertsGame) -> dict[str, Any] | None:
    if not game.hand_over:
        return None
    result = game.hand_results[-1]
    return {
        "reason": result.end_reason,
        "scores": list(result.scores),
        "callers": list(result.callers),
    }


def _final(game: NertsGame) -> dict[str, Any]:
    return {
        "digest": game.digest(),
        "hand": game.hand,
        "steps": game.steps,
        "totals": list(game.totals),
        "hand_over": bool(game.hand_over),
        "game_over": bool(game.game_over),
    }


def to_record(log: GameLog, meta: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The record of ``log`` so far, as a JSON-ready dict (``meta``, a JSON-ready mapping,
    is stored under ``"meta"`` if given). The log is replayed from its seed to take the
    per-step checks; a log whose actions do not give its game is a ``ValueError``."""
    if meta is not None and not isinstance(meta, Mapping):
        raise TypeError(f"meta must be a mapping or None, got {type(meta).__name__}")
    game = log.fresh_game()
    hands = []
    for h, steps in enumerate(log.hands):
        if h:
            game.next_hand()
        digests = []
        for actions in steps:
            game.step(actions)
            digests.append(step_check(game, actions))
        hands.append({"steps": [list(a) for a in steps], "digests": "".join(digests)})
        hands[-1]["end"] = _hand_end(game)
    if game.digest() != log.game.digest():
        raise ValueError("the log's actions do not give its game: was it stepped past the log?")
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "game": GAME,
        "rules": game.config.to_dict(),
        "seed": game.seed,
        "stacked_decks": {
            str(h): {str(s): deck for s, deck in decks.items()}
            for h, decks in _decks_of(game).items()
        },
        "hands": hands,
        "final": _final(game),
    }
    if meta is not None:
        record["meta"] = dict(meta)
    return record


# ---------------------------------------------------------------------- replay
def _check_header(record: Any) -> None:
    """Format, version, game and the set of fields (before anything is replayed)."""
    check_format(record, RECORD_FORMAT, "Nerts game record")
    version = record.get("version")
    if version != RECORD_VERSION or isinstance(version, bool):
        raise RecordError(
            f"Nerts record version {version!r} is not supported: this gnome_env reads "
            f"version {RECORD_VERSION}"
        )
    if record.get("game") != GAME:
        raise RecordError(f"record 'game' is {record.get('game')!r}, expected {GAME!r}")
    check_fields(record, _KEYS, _OPTIONAL_KEYS)


def _new_log(record: dict[str, Any]) -> GameLog:
    """The log of the record's rules, seed and stacked decks, before its first step."""
    try:
        config = NertsConfig.from_dict(record["rules"])
        decks = record["stacked_decks"]
        if not isinstance(decks, dict) or not all(isinstance(d, dict) for d in decks.values()):
            raise ValueError("'stacked_decks' must map hand -> {seat: deck}")
        stacked = {int(h): {int(s): deck for s, deck in d.items()} for h, d in decks.items()}
        seed = record["seed"]
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed={seed!r} is not allowed: must be an integer")
        return GameLog(config, seed, stacked_decks=stacked)
    except (ValueError, TypeError, AttributeError) as err:
        raise RecordError(f"record header is invalid: {err}") from None


def _check_hand_fields(h: int, hand: Any, n: int) -> list[list[int]]:
    """Hand ``h``'s fields and shapes: ``steps`` a list of ``n`` action ids per step,
    ``digests`` :data:`CHECK_DIGITS` hex digits per step."""
    where = f"record hand {h}"
    if not isinstance(hand, dict) or sorted(hand) != sorted(_HAND_KEYS):
        got = sorted(hand) if isinstance(hand, dict) else type(hand).__name__
        raise RecordError(f"{where} must be an object with fields {list(_HAND_KEYS)}, got {got}")
    steps = hand["steps"]
    if not isinstance(steps, list):
        raise RecordError(f"{where}: 'steps' must be a list of joint actions")
    for k, actions in enumerate(steps):
        ok = isinstance(actions, list) and all(
            isinstance(a, int) and not isinstance(a, bool) for a in actions
        )
        if not ok:
            raise RecordError(
                f"{where}, step {k}: a joint action is a list of {n} action ids (integers), "
                f"got {actions!r}"
            )
        if len(actions) != n:
            raise RecordError(
                f"{where}, step {k}: {len(actions)} actions for {n} seats: a step holds one "
                "action id per seat (N18)"
            )
    digests = hand["digests"]
    if not isinstance(digests, str) or len(digests) != CHECK_DIGITS * len(steps):
        size = len(digests) if isinstance(digests, str) else type(digests).__name__
        raise RecordError(
            f"{where}: 'digests' must be a string of {CHECK_DIGITS} hex digits per step "
            f"({CHECK_DIGITS * len(steps)} for {len(steps)} steps), got {size}"
        )
    return steps


def _replay_hand(log: GameLog, h: int, hand: dict[str, Any], last: bool) -> None:
    """Play hand ``h`` of a record into ``log``, checking every step and the hand's end."""
    game = log.game
    steps = _check_hand_fields(h, hand, log.num_players)
    digests = hand["digests"]
    for k, actions in enumerate(steps):
        where = f"record does not replay at hand {h}, step {k}"
        if game.hand_over:
            raise RecordError(
                f"{where}: the hand ended after step {k - 1} ({game.end_reason}, N29), but "
                f"the record has {len(steps)} steps in it"
            )
        try:
            log.step(actions)
        except ValueError as err:
            raise RecordError(f"{where}: {err}") from None
        check = digests[CHECK_DIGITS * k : CHECK_DIGITS * (k + 1)]
        if check != step_check(game, actions):
            raise RecordError(
                f"{where}: the state after this step differs from the recorded one (an "
                "edited record, or one written by another engine version)"
            )
    if not last and not game.hand_over:
        raise RecordError(
            f"record does not replay at hand {h}: the hand is still in play after its "
            f"{len(steps)} steps, but the record goes on with hand {h + 1}"
        )
    if hand["end"] != _hand_end(game):
        raise RecordError(
            f"record does not replay at hand {h}: its recorded end {hand['end']!r} differs "
            f"from the replayed one {_hand_end(game)!r}"
        )


def replay(record: Any) -> GameLog:
    """Rebuild the game a record describes (:class:`GameLog`); raise :class:`RecordError`
    naming the hand, step and seat where it is not a record or stops agreeing."""
    _check_header(record)
    log = _new_log(record)
    hands = record["hands"]
    if not isinstance(hands, list) or not hands:
        raise RecordError("record 'hands' must be a non-empty list (hand 0 is dealt at once)")
    for h, hand in enumerate(hands):
        if h:
            if log.game.game_over:
                raise RecordError(
                    f"record does not replay at hand {h}: the game ended after hand {h - 1} "
                    f"(N31), but the record has {len(hands)} hands"
                )
            log.next_hand()
        _replay_hand(log, h, hand, last=h == len(hands) - 1)
    final = record["final"]
    if not isinstance(final, dict) or final.get("digest") != log.game.digest():
        raise RecordError(
            f"record does not replay at its end (hand {log.game.hand}, step "
            f"{log.game.steps}): the final state differs from the recorded one (edited record?)"
        )
    return log


# ---------------------------------------------------------------------- files
def _is_flat(value: Any) -> bool:
    return not any(isinstance(v, (dict, list)) for v in value)


def _json(value: Any, level: int) -> str:
    """``value`` as indented JSON whose lists without lists or objects in them (a joint
    action, scores, totals) stay on one line."""
    pad = " " * level
    if isinstance(value, dict) and value:
        items = [f"{pad} {json.dumps(k)}: {_json(v, level + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list) and value and not _is_flat(value):
        items = [f"{pad} {_json(v, level + 1)}" for v in value]
        return "[\n" + ",\n".join(items) + f"\n{pad}]"
    return json.dumps(value)


def record_text(record: Mapping[str, Any]) -> str:
    """A record as JSON text: indented, with every list of plain values (a joint action,
    scores, totals) on one line, and a final newline. ``json.loads`` of it gives ``record``
    back."""
    return _json(dict(record), 0) + "\n"


def save_record(
    log: GameLog,
    path: str | os.PathLike,
    meta: Mapping[str, Any] | None = None,
    overwrite: bool = False,
) -> Path:
    """Write the record of ``log`` (with ``meta``) to ``path`` (atomically); an existing file
    is a ``FileExistsError`` and stays as it was, unless ``overwrite``."""
    return write_text(path, record_text(to_record(log, meta)), overwrite)


def load_record(path: str | os.PathLike) -> GameLog:
    """Read a Nerts record from ``path`` and replay it (:class:`RecordError` if it fails)."""
    return replay(read_record(path))
