"""Terminal play of Nerts (agents.nerts.human) and ``gnome play --game nerts``.

The human's lines are scripted; every prompt records the game's digest, so a test can check
that a rejected input changed nothing. Expected action ids are written with the N36
formula, never taken from the parser."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.nerts.arena import play_game
from agents.nerts.bots import GreedyNertsAgent, RandomNertsAgent
from agents.nerts.human import (
    MoveError,
    choose_move,
    format_screen,
    move_lines,
    play_nerts_interactive,
    short_form,
)
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.cards import parse_card
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.testing import build_game, permute_hidden, step_with_priority
from training.app.cli import main as gnome

ROOT = Path(__file__).resolve().parents[2]
TWO = NertsConfig(num_players=2)
ONE_HAND = NertsConfig(num_players=2, max_hands=1)

# N36 with the defaults: W = 4 work piles, F = 24 slots.
W, F = 4, 24
B1 = 5 + (2 + W) * F
B2 = B1 + 4 * (2 + W)
B3 = B2 + 2 * W
B4 = B3 + 13 * W * W
WAIT_ID, CALL_ID, TURN_ID, RECYCLE_ID = 0, 1, 2, 3


def to_slot(s: int, f: int) -> int:
    return 5 + s * F + f


def new_foundation(s: int, u: int) -> int:
    return B1 + s * 4 + u


def to_work(t: int, w: int) -> int:
    return B2 + t * W + w


def work_move(w: int, v: int, c: int) -> int:
    return B3 + (w * W + v) * 13 + (c - 1)


def slide(t: int, w: int) -> int:
    return B4 + t * W + w


NERTS, WASTE = 0, 1
SPADES = 3


class Scripted:
    """A bot that plays the given ids in order (then waits) and keeps every view it got."""

    spec = "scripted"

    def __init__(self, moves: list[int] = (), log: list[str] | None = None) -> None:
        self.moves = list(moves)
        self.views: list[NertsView] = []
        self.log = log

    def decide(self, view: NertsView) -> int:
        self.views.append(view)
        if self.log is not None:
            self.log.append("bot")
        return self.moves.pop(0) if self.moves else WAIT_ID


class Script:
    """``ask`` for play_nerts_interactive: the scripted lines, then end of input; records
    the game's digest and the order of prompts at every ask."""

    def __init__(self, game: NertsGame, lines: list[str], log: list[str] | None = None) -> None:
        self.game = game
        self.lines = list(lines)
        self.digests: list[str] = []
        self.prompts: list[str] = []
        self.out: list[str] = []
        self.log = log

    def ask(self, prompt: str) -> str:
        self.digests.append(self.game.digest())
        self.prompts.append(prompt)
        if self.log is not None:
            self.log.append("ask")
        if not self.lines:
            raise EOFError
        line = self.lines.pop(0)
        if isinstance(line, BaseException):
            raise line
        return line

    def say(self, text: str) -> None:
        self.out.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def run(game: NertsGame, lines: list, opponents: list, seat: int = 0, **kw) -> tuple:
    script = Script(game, lines)
    play = play_nerts_interactive(
        game.config, seat, opponents, script.ask, script.say, game=game, **kw
    )
    return script, play


# ---------------------------------------------------------------------- the position
def parser_position() -> NertsGame:
    """p0: Nerts top 5H, waste top AS, work 4S | 3S 2D | - | KS QH; slots need 2C, 2D, 5H,
    5S (slot 3 holds p1:AS p0:2S p1:3S p1:4S)."""
    return build_game(
        TWO,
        seats={
            0: {
                "nerts": "3C 5H",
                "waste": "9C AS",
                "work": ["4S", "3S 2D", "-", "KS QH"],
                "stock": "7D 8D",
            },
            1: {"nerts": "6H 9D", "work": ["KD", "JS", "9S", "QH"], "waste": "7C 8D"},
        },
        foundations=["p1:AC", "p1:AD", "p1:AH..4H", "p1:AS p0:2S p1:3S p1:4S"],
    )


PARSER_LEGAL = sorted(
    [
        WAIT_ID,
        TURN_ID,
        to_slot(NERTS, 2),
        to_slot(2 + 1, 1),
        new_foundation(WASTE, SPADES),
        to_work(NERTS, 2),
        to_work(WASTE, 1),
        to_work(WASTE, 2),
        work_move(0, 2, 1),
        work_move(1, 2, 1),
        work_move(1, 2, 2),
        work_move(3, 2, 1),
        work_move(3, 2, 2),
        slide(NERTS, 0),
    ]
)

FORMS = [
    ("wait", WAIT_ID),
    ("t", TURN_ID),
    ("turn", TURN_ID),
    ("n f", to_slot(NERTS, 2)),
    ("nerts found", to_slot(NERTS, 2)),
    ("n->f", to_slot(NERTS, 2)),
    ("n to f", to_slot(NERTS, 2)),
    ("n f2", to_slot(NERTS, 2)),
    ("n slot2", to_slot(NERTS, 2)),
    ("nerts->slot2", to_slot(NERTS, 2)),
    ("NERTS -> SLOT2", to_slot(NERTS, 2)),
    ("5H f", to_slot(NERTS, 2)),
    ("5h foundation", to_slot(NERTS, 2)),
    ("n 2", to_work(NERTS, 2)),
    ("n work2", to_work(NERTS, 2)),
    ("nerts->work2", to_work(NERTS, 2)),
    ("5H 2", to_work(NERTS, 2)),
    ("n u0", slide(NERTS, 0)),
    ("n under0", slide(NERTS, 0)),
    ("nerts->under0", slide(NERTS, 0)),
    ("w f", new_foundation(WASTE, SPADES)),
    ("w new", new_foundation(WASTE, SPADES)),
    ("w new:S", new_foundation(WASTE, SPADES)),
    ("waste->new:S", new_foundation(WASTE, SPADES)),
    ("AS f", new_foundation(WASTE, SPADES)),
    ("w 1", to_work(WASTE, 1)),
    ("waste->work1", to_work(WASTE, 1)),
    ("w 2", to_work(WASTE, 2)),
    ("1 f", to_slot(2 + 1, 1)),
    ("1 f1", to_slot(2 + 1, 1)),
    ("work1->slot1", to_slot(2 + 1, 1)),
    ("2D f", to_slot(2 + 1, 1)),
    ("1x2 2", work_move(1, 2, 2)),
    ("work1x2->work2", work_move(1, 2, 2)),
    ("3S 2", work_move(1, 2, 2)),
    ("1x1 2", work_move(1, 2, 1)),
    ("2D 2", work_move(1, 2, 1)),
    ("QH 2", work_move(3, 2, 1)),
    ("KS 2", work_move(3, 2, 2)),
    ("3x2 work2", work_move(3, 2, 2)),
    ("work0", work_move(0, 2, 1)),
    ("0 2", work_move(0, 2, 1)),
    ("4S", work_move(0, 2, 1)),
    # a bare number: that entry of the list of legal moves (ascending ids)
    ("1", PARSER_LEGAL[0]),
    ("5", PARSER_LEGAL[4]),
    ("14", PARSER_LEGAL[13]),
]


def test_the_parser_position_has_the_legal_set_written_with_the_n36_formula():
    assert parser_position().legal_actions(0) == PARSER_LEGAL


@pytest.mark.parametrize(("text", "expected"), FORMS)
def test_n36_each_documented_form_maps_to_its_action_id(text, expected):
    game = parser_position()
    before = game.digest()
    assert choose_move(game, 0, text) == expected
    assert game.digest() == before


def test_n36_every_short_form_and_name_reads_back_as_its_id():
    game = parser_position()
    view = NertsView.from_game(game, 0)
    for a in PARSER_LEGAL:
        assert choose_move(game, 0, short_form(TWO, a), view) == a
        assert choose_move(game, 0, game.table.name(a), view) == a


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("w 3", "Illegal move 'w 3': AS on work pile 3 (KS QH) is not a run (N9, N10). Try again."),
        ("n 1", "Illegal move 'n 1': 5H on work pile 1 (3S 2D) is not a run (N9, N10). Try again."),
        ("c", "Illegal move 'c': the Nerts pile still holds 2 card(s) (N22). Try again."),
        ("r", "Illegal move 'r': the stock is not empty (N16). Try again."),
        ("n f0", "Illegal move 'n f0': 5H does not fit slot 0, which needs 2C (N8). Try again."),
        ("n f5", "Illegal move 'n f5': slot 5 is unused, not open (N7). Try again."),
        ("2 2", "Illegal move '2 2': a work pile cannot move onto itself (N36). Try again."),
        (
            "0 f",
            "Illegal move '0 f': 4S fits no foundation: the open slots need 2C, 2D, 5H, 5S, and "
            "only an ace starts one (N8). Try again.",
        ),
        (
            "3 1",
            "Illegal move '3 1': no top part of work pile 3 (KS QH) makes a run on work pile 1 "
            "(3S 2D) (N9, N10). Try again.",
        ),
        ("2 u1", "'2 u1' names no move: only the Nerts top or the waste top slides under"),
        ("KS f", "'KS f' names no move: only the top card of a work pile may go to a foundation"),
        ("n 7", "'7': there is no work pile 7; work piles are 0..3"),
        ("n f30", "'f30': there is no slot 30; slots are 0..23"),
        ("0x14 1", "'0x14': 1 to 13 cards move at a time (N9, N11)"),
        ("15", "there is no move number 15: the legal moves are numbered 1..14"),
        ("0", "there is no move number 0"),
        ("fly away now", "'fly away now' is not a move"),
        ("xyz", "'xyz' is not a move: a source is n (Nerts top), w (waste top)"),
        ("n sideways", "'sideways' is not a destination"),
        # 7D lies in p0's stock (hidden): only the visible cards are named
        (
            "7D f",
            "7D is not one of your movable cards (Nerts top 5H; waste top AS; work 0: 4S; "
            "work 1: 3S 2D; work 2: -; work 3: KS QH)",
        ),
    ],
)
def test_n18_a_move_that_cannot_be_played_gets_the_reason(text, message):
    game = parser_position()
    before = game.digest()
    with pytest.raises(MoveError) as info:
        choose_move(game, 0, text)
    assert str(info.value).startswith(message)
    assert info.value.candidates == ()
    assert game.digest() == before


@pytest.mark.parametrize(
    ("text", "candidates"),
    [
        ("n", [to_slot(NERTS, 2), to_work(NERTS, 2), slide(NERTS, 0)]),
        ("w", [new_foundation(WASTE, SPADES), to_work(WASTE, 1), to_work(WASTE, 2)]),
        ("1 2", [work_move(1, 2, 1), work_move(1, 2, 2)]),
        ("work3", [work_move(3, 2, 1), work_move(3, 2, 2)]),
    ],
)
def test_an_ambiguous_move_lists_its_legal_candidates(text, candidates):
    game = parser_position()
    with pytest.raises(MoveError) as info:
        choose_move(game, 0, text)
    assert info.value.candidates == tuple(candidates)
    message = str(info.value)
    assert message.startswith(f"{text!r} is ambiguous: it fits {len(candidates)} legal moves")
    for a in candidates:
        number = PARSER_LEGAL.index(a) + 1
        assert re.search(rf"^ +{number}  .*{re.escape(game.table.name(a))}", message, re.M)


def test_n34_the_screen_of_a_built_position():
    game = parser_position()
    text = format_screen(NertsView.from_game(game, 0), ["you", "scripted"])
    assert text == "\n".join(
        [
            "Hand 1, step 1 (cap 1000). Steps without progress: 0 (stuck at 60); remedy not "
            "used yet (N25-N27).",
            "Totals: you 0, p1 (scripted) 0.",
            "Foundations:",
            "  slot  0  clubs     needs 2C    p1:AC",
            "  slot  1  diamonds  needs 2D    p1:AD",
            "  slot  2  hearts    needs 5H    p1:AH..4H",
            "  slot  3  spades    needs 5S    p1:AS p0:2S p1:3S..4S",
            "You (p0): Nerts 2, top 5H   stock 42   waste 2, top AS   seen 0/44   hand score -3",
            "  work 0: 4S",
            "  work 1: 3S 2D",
            "  work 2: -",
            "  work 3: KS QH",
            "p1 (scripted): Nerts 2, top 9D   stock 35   waste 2, top 8D   seen 0/37   "
            "hand score 5",
            "  work: KD | JS | 9S | QH",
            "14 legal moves: type yours (moves lists them; hint, help, quit).",
        ]
    )


# ---------------------------------------------------------------------- the loop
def test_n18_an_illegal_move_is_explained_and_asked_again_with_nothing_changed():
    game = parser_position()
    start = game.digest()
    script, play = run(
        game, ["n 1", "n", "bogus", "", "moves", "help", "show", "quit"], [Scripted()]
    )
    assert play.ended == "quit"
    assert set(script.digests) == {start} and game.digest() == start
    assert len(script.prompts) == 8 and set(script.prompts) == {"p0 step 1> "}
    text = script.text
    assert (
        "Illegal move 'n 1': 5H on work pile 1 (3S 2D) is not a run (N9, N10). Try again." in text
    )
    assert "'n' is ambiguous: it fits 3 legal moves" in text
    assert "Type a move (t turns the stock" in text
    assert "Your legal moves (number, short form, name, what it does):\n   1  wait" in text
    assert (
        "  14  n u0      nerts->under0    5H from the Nerts pile under work pile 0 (under 4S)"
        in text
    )
    assert text.endswith("You quit: leaving the game unfinished.")


def collision_game(order: tuple[int, ...], **rules) -> NertsGame:
    """The N20 worked example: slot 3 needs 5H; p0's Nerts top and p2's waste top are 5H."""
    cfg = NertsConfig(num_players=3, **rules)
    return build_game(
        cfg,
        seats={0: {"nerts": "3C 5H"}, 2: {"waste": "9C 5H"}},
        foundations=["p1:AC", "p1:AD", "p1:AS", "p1:AH..4H"],
        steps=step_with_priority(cfg, order, start=57),
    )


def test_n20_n21_a_collision_names_the_winner_by_priority():
    game = collision_game((2, 0, 1))
    p2 = Scripted([to_slot(WASTE, 3)])
    script, _ = run(game, ["n f", "quit"], [Scripted(), p2])
    text = script.text
    assert "  you: 5H from the Nerts pile to slot 3 (on 4H)  -- blocked" in text
    assert "  p2 (scripted): 5H from the waste to slot 3 (on 4H)\n" in text
    assert (
        "you and p2 (scripted) both played to slot 3 (hearts, needs 5H); p2 (scripted) had "
        "priority this step (p2, you, p1), so your 5H stayed on your Nerts pile (N20, N21)."
    ) in text
    assert game.slot_owners[3][-1] == 2 and game.nerts[0][-1] == parse_card("5H")


def test_n20_n21_the_human_wins_a_collision_with_priority():
    game = collision_game((0, 2, 1))
    script, _ = run(game, ["n f3", "quit"], [Scripted(), Scripted([to_slot(WASTE, 3)])])
    assert (
        "you and p2 (scripted) both played to slot 3 (hearts, needs 5H); you had priority "
        "this step (you, p2, p1), so p2's 5H stayed on its waste (N20, N21)."
    ) in script.text
    assert "  p2 (scripted): 5H from the waste to slot 3 (on 4H)  -- blocked" in script.text
    assert game.slot_owners[3][-1] == 0 and game.waste[2][-1] == parse_card("5H")


def test_n20_both_keep_says_every_card_goes_on():
    game = collision_game((2, 0, 1), foundation_tie="both_keep")
    script, _ = run(game, ["n f", "quit"], [Scripted(), Scripted([to_slot(WASTE, 3)])])
    assert (
        "you and p2 (scripted) both played to slot 3 (hearts, needs 5H): with "
        "foundation_tie=both_keep every card goes on, stacked in priority order (p2, you, p1), "
        "and each scores for its owner (N20)."
    ) in script.text
    assert "-- blocked" not in script.text


def test_n7_n20_new_foundations_started_together_take_slots_in_priority_order():
    cfg = NertsConfig(num_players=4)
    game = build_game(
        cfg,
        seats={0: {"work": ["5C", "9H", "AD", "KS"]}, 1: {"waste": "AS"}},
        foundations=["p2:AC", "p2:AD", "p2:AH", "p3:AC", "p3:AH"],
        steps=step_with_priority(cfg, (0, 1, 2, 3)),
    )
    bots = [Scripted([new_foundation(WASTE, SPADES)]), Scripted(), Scripted()]
    script, _ = run(game, ["2 f", "quit"], bots)
    assert (
        "New foundations take the next unused slots in priority order (you, p1, p2, p3): your "
        "AD to slot 5, p1's AS to slot 6 (N7, N20)."
    ) in script.text
    assert game.slot_owners[5] == [0] and game.slot_owners[6] == [1]


def test_n18_the_bots_decide_from_the_start_of_the_step_before_the_human_types():
    game = collision_game((2, 0, 1))
    log: list[str] = []
    start = NertsView.from_game(game, 2)
    p2 = Scripted([to_slot(WASTE, 3)], log=log)
    script = Script(game, ["hint", "moves", "n f", "quit"], log=log)
    play_nerts_interactive(game.config, 0, [Scripted(), p2], script.ask, script.say, game=game)
    # step 1: the bot decides, then the human is asked (hint, moves, then the move);
    # step 2: the bot decides again, then the human quits
    assert log == ["bot", "ask", "ask", "ask", "bot", "ask"]
    assert p2.views[0] == start


def test_n25_n27_remedy_then_blocked_hand_end_and_scores():
    game = build_game(
        ONE_HAND,
        seats={s: {"stock": "", "rest": "nerts"} for s in range(2)},
    )
    script, play = run(game, ["", "wait"], [Scripted()])
    text = script.text
    assert play.ended == "game_over"
    assert script.out[3] == "Your only legal move: wait."  # Enter alone: wait is all there is
    assert (
        "The table was stuck (every player had turned through their whole stock since the last "
        "progress): every stock was re-formed from its waste and its top card moved to the "
        "bottom (N25, N26). Stuck again before any progress, the hand ends (N27)."
    ) in text
    assert (
        "Hand 1 over after 2 steps: the table was stuck again with no progress since the "
        "remedy (N27)."
    ) in text
    assert (
        "  you               0 on foundations, 48 left in the Nerts pile (-96): hand score -96, "
        "total  -96"
    ) in text
    assert text.endswith("Game over. Winners (shared): you and p1 (scripted), total -96 (N31).")


def test_n22_calling_nerts_ends_the_hand_with_the_scores():
    game = build_game(
        ONE_HAND,
        seats={0: {"nerts": "-", "work": ["9S", "TD", "4C", "KH"], "stock": "2H"}},
        foundations=["p0:AC..3C", "p1:AD"],
    )
    script, play = run(game, ["c"], [Scripted()])
    assert play.ended == "game_over"
    assert "Hand 1 over after 1 step: you called Nerts (N22)." in script.text
    assert (
        "  you               3 on foundations,  0 left in the Nerts pile (  0): hand score   3, "
        "total    3"
    ) in script.text
    assert script.text.endswith("Game over. Winner: you, total 3 (N31).")


@pytest.mark.parametrize(
    ("error", "ended", "message"),
    [
        (EOFError(), "end_of_input", "End of input: leaving the game unfinished."),
        (KeyboardInterrupt(), "interrupted", "Interrupted (Ctrl-C): leaving the game unfinished."),
    ],
)
def test_end_of_input_and_ctrl_c_leave_cleanly(error, ended, message):
    game = parser_position()
    start = game.digest()
    script, play = run(game, ["moves", error], [Scripted()])
    assert play.ended == ended and play.game is game
    assert script.out[-1] == message
    assert game.digest() == start


def test_a_bot_choosing_an_illegal_action_raises():
    game = parser_position()
    with pytest.raises(ValueError, match=r"seat 1 chose the illegal action 1: the Nerts pile"):
        run(game, ["wait"], [Scripted([CALL_ID])])


def test_play_nerts_interactive_checks_its_arguments():
    game = parser_position()
    with pytest.raises(ValueError, match=r"seat=2 is not allowed: must be 0\.\.1"):
        run(game, [], [Scripted()], seat=2)
    with pytest.raises(ValueError, match="2 opponents given: 2 players need 1"):
        run(game, [], [Scripted(), Scripted()])


# ---------------------------------------------------------------------- whole hands
def test_a_whole_hand_typed_as_greedy_would_play_it_equals_the_all_greedy_game():
    cfg = NertsConfig(num_players=3, max_hands=1)
    game = NertsGame(cfg, seed=11)
    me = GreedyNertsAgent(0, cfg)
    typed: list[str] = []

    def ask(prompt: str) -> str:
        typed.append(short_form(cfg, me.decide(NertsView.from_game(game, 0))))
        return typed[-1]

    out: list[str] = []
    bots = [GreedyNertsAgent(s, cfg) for s in (1, 2)]
    play = play_nerts_interactive(cfg, 0, bots, ask, out.append, game=game)
    assert play.ended == "game_over"
    ref = NertsGame(cfg, seed=11)
    steps = play_game(ref, [GreedyNertsAgent(s, cfg) for s in range(3)])
    assert len(typed) == steps and game.digest() == ref.digest()
    assert game.hand_results == ref.hand_results
    assert out[-1].startswith("Game over. Winner")


def test_hints_change_nothing_in_the_game():
    cfg = NertsConfig(num_players=2, max_steps_per_hand=25, max_hands=1)
    finals = []
    for with_hints in (False, True):
        game = NertsGame(cfg, seed=5)
        lines = (["hint", "wait"] if with_hints else ["wait"]) * 30
        script, play = run(game, lines, [RandomNertsAgent(9, cfg)])
        assert play.ended == "game_over"
        finals.append(game.digest())
        assert ("Hint (expert): " in script.text) == with_hints  # the strongest bot hints
    assert finals[0] == finals[1]


@pytest.mark.parametrize(("seed", "before"), [(3, 0), (8, 40)])
def test_n35_the_screen_never_shows_a_hidden_card(seed, before):
    """Permuting face-down Nerts cards, stocks and the wastes under their tops changes no
    line the human sees, up to the step that turns new cards up."""
    cfg = NertsConfig(num_players=3)
    game = NertsGame(cfg, seed=seed)
    for _ in range(before):
        game.step([GreedyNertsAgent(0, cfg).decide(NertsView.from_game(game, s)) for s in range(3)])
    other = permute_hidden(game, np.random.default_rng(seed))
    assert other.digest() != game.digest()  # the hidden cards really moved
    lines = ["moves", "hint", "help", "show", "7D f", "KS", "n f", "w", "zz", "wait", "quit"]
    shown = []
    for g in (game, other):
        bots = [GreedyNertsAgent(s, cfg) for s in (1, 2)]
        script, _ = run(g, list(lines), bots)
        upto = next(i for i, chunk in enumerate(script.out) if chunk.startswith("Step "))
        shown.append(script.out[: upto + 1])
    assert shown[0] == shown[1]
    assert len(shown[0]) >= 11


# ---------------------------------------------------------------------- gnome play
def test_gnome_play_game_nerts_in_process(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("moves\nt\nq\n"))
    assert gnome(["play", "--game", "nerts", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "Nerts: 2 players, seed 4. You are p0. Opponents: p1 (greedy). The game is one hand "
        "(N31); a hand ends when someone calls Nerts, when the table is stuck twice, or after "
        "1000 steps.\n"
    )
    assert "p0 step 1> moves\n" in out and "p0 step 2> q\n" in out
    assert "Step 1, priority order " in out and "  you: turn 3 cards from the stock" in out
    assert out.rstrip().endswith("You quit: leaving the game unfinished.")


def test_gnome_play_nerts_takes_seats_opponents_and_rules(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    argv = ["play", "--game", "nerts", "--players", "3", "--seat", "1"]
    assert gnome([*argv, "--opponents", "random,greedy", "--max-hands", "2", "--seed", "0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "Nerts: 3 players, seed 0. You are p1. Opponents: p0 (random), p2 (greedy). The game "
        "is to 100 points or 2 hands (N31)"
    )
    assert "You (p1): " in out and "p0 (random): " in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "7"], "argument --players: 7 is not allowed for --game nerts: use 2..6"),
        (["--seat", "2"], "argument --seat: 2 is not a seat of 2 players"),
        (["--opponents", "grumpy"], "unknown Nerts agent spec 'grumpy'; known Nerts specs:"),
        (["--players", "4", "--opponents", "greedy,random"], "2 specs given for 3 opponents"),
        (["--max-hands", "0"], "argument --max-hands: max_hands=0 is not allowed"),
        (["--max-steps", "0"], "argument --max-steps: max_steps_per_hand=0 is not allowed"),
        (["--max-placements", "2"], "argument --max-placements: only with --game ginny_o"),
        (["--seed", "-1"], "argument --seed: -1 is not allowed"),
    ],
)
def test_gnome_play_nerts_rejects_bad_options(argv, message, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as info:
        gnome(["play", "--game", "nerts", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "gnome play: error:" in err and message in err and "Traceback" not in err


class _CtrlC(io.StringIO):
    def readline(self, *args):  # what input() reads from a non-terminal stdin
        raise KeyboardInterrupt


def test_gnome_play_nerts_ctrl_c_exits_with_130_and_no_traceback(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", _CtrlC())
    assert gnome(["play", "--game", "nerts", "--seed", "1"]) == 130
    captured = capsys.readouterr()
    assert captured.out.rstrip().endswith("Interrupted (Ctrl-C): leaving the game unfinished.")
    assert "Traceback" not in captured.err


def gnome_command() -> list[str]:
    script = Path(sys.executable).with_name("gnome")
    return [str(script)] if script.exists() else [sys.executable, "-m", "training.app.cli"]


def test_gnome_play_nerts_subprocess_plays_a_hand_from_piped_input():
    proc = subprocess.run(
        [*gnome_command(), "play", "--game", "nerts", "--seed", "1", "--max-steps", "3"],
        input="n f\nt\nt\nt\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert [line for line in proc.stderr.splitlines() if "numba kernels" not in line] == []
    out = proc.stdout
    assert out.startswith("Nerts: 2 players, seed 1. You are p0. Opponents: p1 (greedy).")
    assert "Illegal move 'n f': " in out
    assert re.findall(r"^Step (\d), priority order", out, re.M) == ["1", "2", "3"]
    assert "Hand 1 over after 3 steps: the step cap was reached (N28)." in out
    assert re.search(r"^  you +\d+ on foundations, +\d+ left in the Nerts pile", out, re.M)
    last = out.rstrip().splitlines()[-1]
    assert re.fullmatch(r"Game over\. (Winner|Winners \(shared\)): .+, total -?\d+ \(N31\)\.", last)


def test_hint_says_what_the_hint_bot_would_play_from_the_humans_view():
    game = parser_position()
    hint = GreedyNertsAgent(0, TWO)
    script, _ = run(game, ["hint", "quit"], [Scripted()], hint=hint)
    # greedy plays the Nerts top to a foundation first
    assert script.out[3] == (
        "Hint (greedy): n f2 = 5H from the Nerts pile to slot 2 (on 4H) (nerts->slot2, move 3)"
    )


def test_the_hint_bot_is_the_strongest_the_registry_knows(monkeypatch):
    import agents.nerts.human as human

    monkeypatch.setattr(human, "known_nerts_specs", lambda: ("greedy", "ppo", "random"))
    assert human.default_hint_spec() == "greedy"
    monkeypatch.setattr(human, "known_nerts_specs", lambda: ("expert", "greedy", "random"))
    assert human.default_hint_spec() == "expert"


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 3},
        {"num_players": 4, "jokers": 2, "work_piles": 5, "turn_size": 1},
        {"num_players": 2, "work_piles": 3, "slide_under": False, "auto_call": True},
    ],
)
def test_n36_short_forms_and_names_read_back_over_random_games(rules):
    """Every legal move of every seat, in positions reached by random play (jokers, 3 and 5
    work piles included): its short form and its action name mean exactly that move, and
    every screen and move text can be drawn."""
    cfg = NertsConfig(**rules, max_hands=1)
    game = NertsGame(cfg, seed=2)
    bots = [RandomNertsAgent(s, cfg) for s in range(cfg.num_players)]
    checked = 0
    for _ in range(120):
        if game.hand_over:
            break
        for seat in range(cfg.num_players):
            view = NertsView.from_game(game, seat)
            format_screen(view)
            for a in view.legal_actions:
                assert choose_move(game, seat, short_form(cfg, a), view) == a
                assert choose_move(game, seat, game.table.name(a), view) == a
                checked += 1
        game.step([b.decide(NertsView.from_game(game, s)) for s, b in enumerate(bots)])
    assert checked > 300


def test_n33_a_joker_is_named_with_the_card_it_is_declared_as():
    cfg = NertsConfig(num_players=2, jokers=1)
    game = build_game(cfg, seats={0: {"waste": "9C JK"}}, foundations=["p1:AH..4H"])
    f = (4 + 1) * 6  # N7 with one joker: F = 30 slots
    b1 = 5 + (2 + W) * f
    view = NertsView.from_game(game, 0)
    lines = "\n".join(move_lines(view))
    assert "w f0      waste->slot0     JK as 5H from the waste to slot 0 (on 4H)" in lines
    assert "w new:D   waste->new:D     JK as AD from the waste to a new foundation" in lines
    assert choose_move(game, 0, "JK f0") == 5 + 1 * f + 0
    assert choose_move(game, 0, "w new:D") == b1 + 1 * 4 + 1
    with pytest.raises(MoveError, match="is ambiguous: it fits 5 legal moves"):
        choose_move(game, 0, "JK f")  # slot 0 or a new foundation of any suit
