"""Play Ginny-O in a terminal: one human seat against bots (``gnome play --game ginny_o``).

The human types a placement in the notation of :mod:`gnome_env.ginny_o.notation`
(``7H 8H 9H @ 7,6 across``; a joker with its declaration, ``*=QS``), or a command:
``return 7H 2C`` (tiles back to the box and redraw, G14, only after a draw), ``pass`` (only
when the box was empty, G14), ``end`` (end the turn after a placement when
``max_placements`` > 1), ``hint`` (a few legal placements with their scores), ``board``,
``help`` and ``quit``. A typed placement is looked up among the engine's legal placements
(:meth:`GinnyGame.legal_placements`, compared as sorted ``(cell, tile, card)`` triples) and
played through its canonical action sequence; one that is not legal gets the reason
(:func:`explain_placement`, citing G18-G23) and the human is asked again, with nothing
changed.

Input and output are callables, so the loop is testable: ``ask(prompt) -> str`` behaves
like the builtin ``input`` (``EOFError`` at the end of input leaves the game) and
``say(text)`` prints one block of text. The human sees only their own information (G17):
:meth:`GinnyGame.render` of their seat, the bots' placements, and how many tiles a bot
returned (not which).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

from agents.core.cli import seat_bots
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import CENTRE, NEIGHBOURS, SIZE, meld_type, row_col
from gnome_env.ginny_o.cards import JOKER, format_kind, format_tile, parse_kinds
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.movegen import Placement
from gnome_env.ginny_o.notation import format_placement, parse_placement

QUIT_WORDS = ("q", "quit", "exit")
HINTS = 5  #: placements shown by ``hint``

END_WORDS = {
    "passes": "every player passed with the box empty (G29a)",
    "dead": "no legal placement was left for anybody (G29b)",
    "stall": "no tile was placed for too many turns (G29c)",
    "turn_cap": "the turn cap was reached (G29d)",
}

HELP = """\
Commands (one per line):
  7H 8H 9H @ 7,6 across   place tiles: the first on (row,col), each next one on the next
                          empty cell rightwards (across) or downwards (down); rows and
                          columns are 0-14; a joker is written with its card: *=QS
  return 7H 2C            put these tiles back in the box and draw again (only after a
                          draw, before any placement; ends the turn, G14)
  pass                    pass (only when the box was empty and you drew nothing, G14)
  end                     end the turn after a placement (when more are allowed, G14)
  hint                    show a few legal placements with their scores
  board                   show the board and your rack again
  help                    this text
  quit                    leave the game
Melds: a set is 3-4 tiles of one rank in different suits; a run is 3+ tiles of one suit in
ascending order along the row or column (A low in A-2-3, high in Q-K-A). The first meld
covers the centre (7,7); later ones touch the board or found a new region on a red square."""


def seat_name(seat: int, human: int, names: Sequence[str] | None = None) -> str:
    """``P1 (greedy)``, ``P0 (you)``; ``names`` labels each seat (None: no label)."""
    if seat == human:
        return f"P{seat} (you)"
    if names is None:
        return f"P{seat}"
    return f"P{seat} ({names[seat]})"


def format_result(game: GinnyGame, human: int = -1, names: Sequence[str] | None = None) -> str:
    """G29-G31: why the game ended, every seat's score, rack penalty and final score, and the
    winner(s)."""
    assert game.game_over and game.final_scores is not None and game.penalties is not None
    lines = [
        f"Game over after {game.turn} turns: {END_WORDS.get(game.end_reason, game.end_reason)}."
    ]
    for s in range(game.num_players):
        lines.append(
            f"  {seat_name(s, human, names):<16} score {game.scores[s]:>4}  "
            f"rack penalty {game.penalties[s]:>3}  final {game.final_scores[s]:>4}"
        )
    winners = game.winners()
    who = ", ".join(seat_name(s, human, names) for s in winners)
    lines.append(f"Winners (shared): {who}" if len(winners) > 1 else f"Winner: {who}")
    return "\n".join(lines)


# ---------------------------------------------------------------------- explaining
def _where(c: int) -> str:
    """``7,6``: a cell as the notation writes it."""
    r, col = row_col(c)
    return f"{r},{col}"


def _line_text(board: Any, line: list[int]) -> str:
    return " ".join(
        format_tile(JOKER if board.joker[x] else board.card[x], board.card[x]) for x in line
    )


def explain_placement(game: GinnyGame, tiles: Sequence[tuple[int, int, int]]) -> str:
    """Why the ``(cell, tile, card)`` triples are not a legal placement for the acting seat
    now, citing the rule (G18-G23); assumes they are not among the legal placements."""
    board = game.board
    cells = [c for c, _, _ in tiles]
    have = list(game.available())
    for _, t, _ in tiles:
        if t not in have:
            rack = " ".join(format_kind(x) for x in game.available())
            return f"you have no {format_kind(t)} to place (your tiles: {rack})"
        have.remove(t)
    rows = {c // SIZE for c in cells}
    cols = {c % SIZE for c in cells}
    if len(rows) > 1 and len(cols) > 1:
        return "the tiles are not all in one row or one column (G18)"
    step = 1 if len(rows) == 1 else SIZE
    for c in range(min(cells), max(cells) + 1, step):
        if c not in cells and board.card[c] < 0:
            return f"the cell {_where(c)} between the new tiles stays empty (G18)"
    if board.empty:
        if CENTRE not in cells:
            return "the first meld must cover the centre (7,7) (G20)"
        if len(tiles) < 3:
            return "the first meld needs at least 3 tiles (G20)"
    else:
        touched = {board.region[x] for c in cells for x in NEIGHBOURS[c] if board.card[x] >= 0}
        if len(touched) > 1:
            return "it would join two regions, and regions never merge (G23)"
        if not touched:
            free = set(board.free_starts())
            if not free & set(cells):
                return (
                    "it touches no tile on the board: a placement that touches nothing must "
                    "cover a free red start square (G21, G22)"
                )
            if len(tiles) < 3:
                return "a new region needs at least 3 tiles (G22)"
    after = board.copy()
    for c, t, card in tiles:
        after.put(c, t == JOKER, card, 0)
    for c in cells:
        for horizontal in (True, False):
            line = after.line_cells(c, horizontal)
            if len(line) < 2:
                continue
            if not meld_type([after.card[x] for x in line], game.config.descending_runs):
                what = "row" if horizontal else "column"
                order = "" if game.config.descending_runs else "; runs ascend in reading order"
                return (
                    f"the {what} from {_where(line[0])} to {_where(line[-1])} would read "
                    f"{_line_text(after, line)}, which is not a meld (G8-G11: a set is 3-4 "
                    f"tiles of one rank in different suits, a run 3+ tiles of one suit{order})"
                )
    return "it is not a legal placement (G18-G23)"


def find_placement(game: GinnyGame, tiles: Sequence[tuple[int, int, int]]) -> Placement | None:
    """The legal placement with exactly these ``(cell, tile, card)`` triples, or None."""
    key = sorted(tiles)
    for p in game.legal_placements():
        if sorted(p.tiles) == key:
            return p
    return None


def hint_lines(game: GinnyGame, count: int = HINTS) -> list[str]:
    """The ``count`` highest-scoring legal placements (ties in generator order), as notation."""
    ranked = sorted(game.legal_placements(), key=lambda p: -p.score)[:count]
    return [f"  {p.score:>4}  {format_placement(p.tiles)}" for p in ranked]


# ---------------------------------------------------------------------- bots
def play_bot_turn(game: GinnyGame, agent: Any, reveal: bool = False) -> list[str]:
    """Play the acting seat's whole turn with ``agent`` (it decides from its
    :class:`GinnyView`); one line per placement, return or pass. ``reveal`` names returned
    tiles (a spectator's view; hidden from the other players by G17)."""
    seat = game.current
    lines: list[str] = []
    returned: list[int] = []
    while True:
        view = GinnyView.from_game(game, seat)
        action = agent.decide(view)
        if not isinstance(action, int):  # a numpy integer from a learned policy
            action = operator.index(action)
        if action not in view.legal_actions:
            raise ValueError(
                f"agent {agent!r} at seat {seat} chose the illegal action {action!r}: "
                f"{game.explain_illegal(action)}"
            )
        what = A.kind_of(action)
        placed = [(c, game.slots[s], card) for c, s, card in game.pending]
        if what == "return":
            returned.append(game.slots[action - A.RETURN_BASE])
        result = game.step(action)
        if what == "commit":
            lines.append(
                f"{format_placement(placed)} for {result.points} points (score {game.scores[seat]})"
            )
        elif what == "confirm_return":
            shown = f": {' '.join(format_kind(t) for t in returned)}" if reveal else ""
            lines.append(f"returned {len(returned)} tile{'s' if len(returned) > 1 else ''}{shown}")
        elif what == "pass":
            lines.append("passed (the box is empty)")
        elif what == "end_turn":
            lines.append("ended the turn")
        if result.turn_over:
            return lines


# ---------------------------------------------------------------------- the human
class _HumanTurn:
    """One turn of the human seat: reads commands until the turn is over or the human quits."""

    def __init__(
        self, game: GinnyGame, seat: int, ask: Callable[[str], str], say: Callable[[str], None]
    ):
        self.game = game
        self.seat = seat
        self.ask = ask
        self.say = say

    def run(self) -> bool:
        """Play the turn; False when the human left (``quit`` or end of input)."""
        game = self.game
        self.show()
        while True:
            try:
                line = self.ask(f"P{self.seat}> ")
            except EOFError:
                self.say("End of input: leaving the game unfinished.")
                return False
            text = line.strip()
            low = text.lower()
            if low in QUIT_WORDS:
                self.say("You quit: leaving the game unfinished.")
                return False
            if not text:
                self.say(self.prompt_hint())
                continue
            if low in ("help", "h", "?"):
                self.say(HELP)
                continue
            if low == "board":
                self.show()
                continue
            if low == "hint":
                hints = hint_lines(game)
                if hints:
                    self.say("Best legal placements (points, placement):\n" + "\n".join(hints))
                else:
                    self.say(f"No legal placement: {self.no_placement_advice()}")
                continue
            if "@" in text:
                done = self.place(text)
            elif low == "pass":
                done = self.simple(A.PASS, "passed", self.why_not_pass)
            elif low in ("end", "end turn"):
                done = self.simple(A.END_TURN, "ended the turn", self.why_not_end)
            elif low.split()[0] == "return":
                done = self.return_tiles(text.split()[1:])
            else:
                self.say(f"{text!r} is not a placement or a command. {self.prompt_hint()}")
                continue
            if done:
                return True

    # -------------------------------------------------------------- text
    def show(self) -> None:
        self.say(self.game.render(self.seat))
        self.say(self.prompt_hint())

    def prompt_hint(self) -> str:
        game = self.game
        if game.phase == "after_commit":
            left = game.config.max_placements - game.placements_made
            return (
                f"You may make {left} more placement{'s' if left > 1 else ''} this turn or "
                "type end (hint, help, quit)."
            )
        if game.drew:
            return (
                "Type a placement (e.g. 7H 8H 9H @ 7,6 across), or return TILES to exchange; "
                "hint, help, quit."
            )
        return "The box is empty: type a placement or pass; hint, help, quit."

    def no_placement_advice(self) -> str:
        game = self.game
        if game.phase == "after_commit":
            return "type end to end your turn"
        if game.drew:
            return "return some tiles (e.g. return 7H) to exchange them"
        return "type pass"

    def why_not_pass(self) -> str:
        if self.game.phase == "after_commit":
            return "you placed tiles this turn: type end to end it"
        return (
            "you drew a tile this turn, so you cannot pass: pass is only for a turn without a "
            "draw, when the box is empty (G14); return tiles instead (e.g. return 7H)"
        )

    def why_not_end(self) -> str:
        if self.game.config.max_placements == 1:
            return "end is only for max_placements > 1: place, return or pass (G14)"
        return "end only ends a turn after a placement (G14): place, return or pass first"

    # -------------------------------------------------------------- actions
    def simple(self, action: int, words: str, why_not: Callable[[], str]) -> bool:
        if action not in self.game.legal_actions():
            self.say(f"Not allowed now: {why_not()}.")
            return False
        self.game.step(action)
        self.say(f"P{self.seat} (you): {words}")
        return True

    def place(self, text: str) -> bool:
        game = self.game
        if game.phase not in ("choose", "after_commit"):  # cannot happen between commands
            self.say("Not allowed now: finish the current step first.")
            return False
        try:
            tiles = parse_placement(text, game.board)
        except ValueError as err:
            self.say(f"Not a placement: {err}")
            return False
        placement = find_placement(game, tiles)
        if placement is None:
            self.say(
                f"Illegal placement {text.strip()!r}: {explain_placement(game, tiles)}. Try again."
            )
            return False
        result = None
        for action in game.placement_actions(placement):
            result = game.step(action)
        assert result is not None
        self.say(
            f"P{self.seat} (you): {format_placement(placement.tiles)} for {result.points} points "
            f"(score {game.scores[self.seat]})"
        )
        if result.turn_over:
            return True
        self.show()
        return False

    def return_tiles(self, words: list[str]) -> bool:
        game = self.game
        if not words:
            self.say("Name the tiles to return, e.g. return 7H 2C.")
            return False
        if not game.drew:
            self.say(
                "Not allowed now: returning needs a draw this turn and the box is empty (G14); "
                "type pass or place tiles."
            )
            return False
        if game.phase != "choose":
            self.say("Not allowed now: you cannot return tiles after a placement (G14).")
            return False
        try:
            kinds = parse_kinds(words)
        except ValueError as err:
            self.say(f"Not a tile list: {err}")
            return False
        chosen: list[int] = []
        for k in kinds:
            slot = next((s for s, t in enumerate(game.slots) if t == k and s not in chosen), None)
            if slot is None:
                self.say(
                    f"You have no{' other' if k in [game.slots[s] for s in chosen] else ''} "
                    f"{format_kind(k)} to return."
                )
                return False
            chosen.append(slot)
        for slot in sorted(chosen):
            game.step(A.return_slot(slot))
        game.step(A.CONFIRM_RETURN)
        rack = " ".join(format_kind(t) for t in game.racks[self.seat])
        self.say(
            f"P{self.seat} (you): returned {' '.join(format_kind(k) for k in kinds)}; "
            f"your rack is now {rack}"
        )
        return True


def play_ginny_interactive(
    config: GinnyConfig,
    seat: int,
    opponents: Sequence[Any],
    ask: Callable[[str], str],
    say: Callable[[str], None],
    *,
    seed: int = 0,
    game: GinnyGame | None = None,
    names: Sequence[str] | None = None,
) -> GinnyGame:
    """Play one Ginny-O game with a human at ``seat`` and ``opponents`` (bots with
    ``decide(view)``, one per other seat, in seat order).

    ``game`` (default ``GinnyGame(config, seed)``) may be a prepared position (the test hook
    :func:`gnome_env.ginny_o.testing.stacked_game`); ``names`` labels every seat in the
    output (default: each bot's ``spec``). Returns the game: over, or unfinished if the
    human left (``quit`` or end of input). A bot's illegal action raises ``ValueError``.
    """
    if game is None:
        game = GinnyGame(config, seed)
    n = game.num_players
    bot_of, names = seat_bots(seat, n, opponents, names)
    cfg = game.config
    say(
        f"Ginny-O: {n} players, seed {game.seed}. You are P{seat}. Opponents: "
        + ", ".join(seat_name(s, seat, names) for s in bot_of)
        + f". Highest final score wins (G31); at most {cfg.max_placements} placement"
        f"{'s' if cfg.max_placements > 1 else ''} a turn, {cfg.turn_cap} turns."
    )
    say("Type help for the commands and the notation.")
    while not game.game_over:
        actor = game.current
        if actor == seat:
            if not _HumanTurn(game, seat, ask, say).run():
                return game
            continue
        for line in play_bot_turn(game, bot_of[actor]):
            say(f"{seat_name(actor, seat, names)}: {line}")
    say(game.render(seat))
    say(format_result(game, seat, names))
    return game


__all__ = [
    "END_WORDS",
    "HELP",
    "explain_placement",
    "find_placement",
    "format_result",
    "hint_lines",
    "play_bot_turn",
    "play_ginny_interactive",
    "seat_name",
]
