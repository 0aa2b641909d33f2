"""Play Gnoming A Round in a terminal: one human seat against policy opponents.

The human answers with the *menu number* (1-based) of a legal move; ``q`` (or end of
input) leaves the game. Every decision of the human seat is asked for, including the
opening flips (R5) and the flips a hazard offers (R13), which are taken out of turn. The
human sees only public information: :meth:`Game.render` and the move descriptions of
:mod:`gnome_env.gnoming.describe`. Opponents are :class:`gnome_env.gnoming.policies.Policy` objects
and
see the observation of :mod:`gnome_env.gnoming.encoding` for their own seat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TextIO

from agents.gnoming.registry import make_agent
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import card_token
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.describe import card_words, describe_action
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import Game, Phase, RoundResult
from gnome_env.gnoming.policies import Policy

QUIT_WORDS = ("q", "quit")
ENDED_BY_WORDS = {
    "endgame": "ended by the endgame (R15)",
    "turn_cap": "ended at the turn cap (R17)",
    "no_draw": "ended because no player could draw (R17)",
}


def opponent_seed(seed: int, seat: int) -> int:
    """The seed of the opponent at ``seat`` in a game played with ``seed`` (distinct per pair)."""
    return 8 * seed + seat  # 8 > MAX_PLAYERS seats, so (seed, seat) pairs never collide


def make_opponents(
    specs: Sequence[str],
    num_players: int,
    seat: int,
    seed: int,
    config: RulesConfig | None = None,
) -> list[Policy]:
    """One agent per seat other than ``seat``, in seat order, from one spec or one per seat."""
    n_opp = num_players - 1
    if len(specs) == 1:
        specs = list(specs) * n_opp
    if len(specs) != n_opp:
        raise ValueError(
            f"{len(specs)} opponent specs given for {num_players} players: "
            f"give 1 spec (used for every opponent) or {n_opp}, one per other seat"
        )
    others = [s for s in range(num_players) if s != seat]
    return [
        make_agent(spec, opponent_seed(seed, s), config)
        for spec, s in zip(specs, others, strict=True)
    ]


def _layout_text(layout: Sequence[int]) -> str:
    cells = [f"{card_token(c):>3}" for c in layout]
    return " /".join("".join(cells[i : i + 3]) for i in (0, 3, 6))


def _seat_name(seat: int, human: int) -> str:
    return f"seat {seat} (you)" if seat == human else f"seat {seat}"


def format_round_result(result: RoundResult, totals: Sequence[int], human: int) -> str:
    """A round's end (R16-R22): revealed layouts, layout and round scores, first-out, totals."""
    first_out = "none" if result.first_out is None else _seat_name(result.first_out, human)
    lines = [
        f"Round {result.round + 1} over: {ENDED_BY_WORDS.get(result.ended_by, result.ended_by)}"
        f" after {result.turns} turns; first-out: {first_out}"
    ]
    width = max(len(_seat_name(s, human)) for s in range(len(result.layouts)))
    for seat, layout in enumerate(result.layouts):
        lines.append(
            f"  {_seat_name(seat, human).ljust(width)}  {_layout_text(layout)}"
            f"   layout {result.layout_scores[seat]:>4}   round {result.round_scores[seat]:>4}"
        )
    lines.append(
        "Totals: " + ", ".join(f"{_seat_name(s, human)} {t}" for s, t in enumerate(totals))
    )
    return "\n".join(lines)


def format_winners(game: Game, human: int) -> str:
    """R23: the winner line of a finished game."""
    winners = game.winners()
    names = ", ".join(_seat_name(s, human) for s in winners)
    if len(winners) > 1:
        return f"Game over. Winners (shared): {names}"
    return f"Game over. Winner: {names}"


def _phase_hint(game: Game) -> str:
    phase = game.phase
    if phase == Phase.OPENING_FLIP:
        return "opening flip (R5): turn one of your face-down cards face up"
    if phase == Phase.DRAW:
        return "draw (R7): take the top card of the draw pile or of a discard pile"
    legal = game.legal_actions()
    can_discard = A.DISCARD_A in legal or A.DISCARD_B in legal
    if phase == Phase.PLACE:
        held = card_words(game.held)  # type: ignore[arg-type]
        if not can_discard:
            return f"you hold {held}: place it in your layout (R10; no discard is allowed now)"
        return f"you hold {held}: place it in your layout (R10) or discard it (R14)"
    if phase == Phase.DISPLACED:
        held = card_words(game.held)  # type: ignore[arg-type]
        if not can_discard:
            return f"{held} was displaced: bounce it (R11)"
        if all(A.DISCARD_A <= a <= A.DISCARD_B for a in legal):
            return f"{held} was displaced: discard it (R14)"
        return f"{held} was displaced: bounce it (R11) or discard it (R14)"
    return (
        f"seat {game.turn_player} discarded a hazard (R13): "
        "flip one of your face-down cards, or decline"
    )


def _revealed(game: Game, action: int, actor: int, results_before: int) -> str:
    """What the move just applied turned face up (public from now on), as a suffix."""
    if action == A.DRAW:
        return f" -> drew {card_words(game.held)}"  # type: ignore[arg-type]
    if A.PLACE <= action < A.DISCARD_A or A.BOUNCE <= action < A.FLIP:
        if game.held_was_face_down:  # R10: the displaced face-down card is turned up
            return f" -> turned up {card_words(game.held)}"  # type: ignore[arg-type]
        return ""
    if A.FLIP <= action < A.DECLINE:
        pos = action - A.FLIP
        if len(game.round_results) > results_before:  # the layouts were dealt anew
            code = game.round_results[-1].layouts[actor][pos]
        else:
            code = game.layouts[actor][pos]
        return f" -> turned up {card_words(code)}"
    return ""


class _Console:
    """The human's side of the table: prints to ``output``, reads menu numbers from ``input``."""

    def __init__(self, input_stream: TextIO, output_stream: TextIO) -> None:
        self.input = input_stream
        self.output = output_stream
        isatty = getattr(input_stream, "isatty", None)
        # A scripted (non-terminal) input is echoed so the transcript shows what was chosen.
        self.echo = not (callable(isatty) and isatty())

    def say(self, text: str = "") -> None:
        print(text, file=self.output)

    def ask(self, game: Game, seat: int) -> int | None:
        """Show the table and the menu; return the chosen action, or None to leave."""
        legal = game.legal_actions()
        menu = [describe_action(game, a) for a in legal]
        self.say()
        self.say(game.render())
        self.say(f"Your decision, seat {seat}: {_phase_hint(game)}")
        for i, text in enumerate(menu, start=1):
            self.say(f"  {i:>2}. {text}")
        only = len(menu) == 1
        if only:
            allowed = "press Enter (or 1) to make the only possible move, or q to quit"
        else:
            allowed = f"enter a move number from 1 to {len(menu)}, or q to quit"
        while True:
            prompt = (
                "Only one move: Enter plays it (q quits): "
                if only
                else f"Your move (1-{len(menu)}, q quits): "
            )
            print(prompt, end="", file=self.output)
            self.output.flush()
            line = self.input.readline()
            if not line:
                self.say()
                self.say("End of input: leaving the game unfinished.")
                return None
            text = line.strip()
            if self.echo:
                self.say(text)
            if text.lower() in QUIT_WORDS:
                self.say("You quit: leaving the game unfinished.")
                return None
            if not text:
                if only:
                    return legal[0]
                self.say(f"Nothing entered: {allowed}.")
                continue
            try:
                choice = int(text)
            except ValueError:
                self.say(f"{text!r} is not a number: {allowed}.")
                continue
            if not 1 <= choice <= len(menu):
                self.say(f"{choice} is not on the menu: {allowed}.")
                continue
            return legal[choice - 1]


def play_interactive(
    num_players: int,
    seat: int,
    opponents: Sequence[Policy],
    seed: int,
    input_stream: TextIO,
    output_stream: TextIO,
    rules: RulesConfig | None = None,
    *,
    stacked_decks: Mapping[int, Sequence[object]] | None = None,
) -> Game:
    """Play one game with a human at ``seat`` and ``opponents`` at the other seats, in order.

    ``rules`` defaults to ``RulesConfig(num_players=num_players)``; ``stacked_decks`` is the
    engine's test hook. Returns the game: over, or unfinished if the human left (``q`` or
    end of input). An opponent that returns an illegal action raises ``ValueError``.
    """
    if rules is None:
        rules = RulesConfig(num_players=num_players)
    if rules.num_players != num_players:
        raise ValueError(
            f"num_players={num_players} does not match rules.num_players={rules.num_players}"
        )
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < num_players:
        raise ValueError(f"seat={seat!r} is not allowed: must be 0..{num_players - 1}")
    others = [s for s in range(num_players) if s != seat]
    if len(opponents) != len(others):
        raise ValueError(
            f"{len(opponents)} opponents given: {num_players} players need "
            f"{len(others)}, one per seat other than {seat}"
        )
    for policy in opponents:
        if not isinstance(policy, Policy):
            raise ValueError(f"opponent {policy!r} is not a Policy (it has no act method)")
    policy_of = dict(zip(others, opponents, strict=True))
    game = Game(rules, seed, stacked_decks=stacked_decks)
    encoder = ObservationEncoder(rules)
    console = _Console(input_stream, output_stream)
    console.say(
        f"Gnoming A Round: {num_players} players, {rules.rounds} rounds, seed {seed}. "
        f"You are seat {seat}."
    )
    console.say(
        "Opponents: " + ", ".join(f"seat {s} {policy_of[s]!r}" for s in others) + ". "
        "Lowest total wins (R23)."
    )
    console.say("Answer each decision with the number of a move on its menu; q quits.")
    while not game.game_over:
        actor = game.current_seat
        if actor == seat:
            action = console.ask(game, seat)
            if action is None:
                return game
            who = f"you (seat {seat})"
        else:
            action = A.coerce_action(
                policy_of[actor].act(encoder.encode(game, actor), game.legal_mask())
            )
            if action not in game.legal_actions():
                raise ValueError(
                    f"opponent {policy_of[actor]!r} at seat {actor} chose the illegal action "
                    f"{action} ({A.ACTION_NAMES[action]}) in phase {game.phase.name}"
                )
            who = f"seat {actor}"
        text = describe_action(game, action)
        results_before = len(game.round_results)
        game.step(action)
        console.say(f"{who}: {text}{_revealed(game, action, actor, results_before)}")
        for result in game.round_results[results_before:]:
            console.say()
            console.say(format_round_result(result, game.totals, seat))
    console.say(format_winners(game, seat))
    return game
