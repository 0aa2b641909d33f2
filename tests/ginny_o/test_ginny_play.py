"""Terminal play of Ginny-O (agents.ginny_o.human) and ``gnome play --game ginny_o``.

The human's lines are scripted; every prompt records the game's digest, so a test can check
that a rejected input changed nothing."""

from __future__ import annotations

import io
import sys

import pytest

from agents.ginny_o.bots import GreedyGinnyAgent
from agents.ginny_o.human import (
    explain_placement,
    find_placement,
    format_result,
    play_ginny_interactive,
)
from gnome_env.ginny_o import GinnyConfig, GinnyGame
from gnome_env.ginny_o.cards import format_kind
from gnome_env.ginny_o.notation import format_placement, parse_placement
from gnome_env.ginny_o.testing import stacked_game
from training.app.cli import main as gnome

TWO = GinnyConfig(num_players=2)
# The worked example of RULES-ginny-o.md: P0 opens 4C..8C down from (3,7) for 34 (G20, G27);
# P1 (greedy) then adds AC 2C 3C above it for 44.
RACKS = {0: "4C 5C 6C 7C 8C 2H 9D", 1: "AC 2C 3C KD KH 5S 6S"}


class Script:
    """``ask`` for play_ginny_interactive: the scripted lines, then end of input; records
    the game's digest and the text said so far at every prompt."""

    def __init__(self, game: GinnyGame, lines: list[str]) -> None:
        self.game = game
        self.lines = list(lines)
        self.digests: list[str] = []
        self.out: list[str] = []

    def ask(self, prompt: str) -> str:
        self.digests.append(self.game.digest())
        if not self.lines:
            raise EOFError
        return self.lines.pop(0)

    def say(self, text: str) -> None:
        self.out.append(text)

    @property
    def text(self) -> str:
        return "\n".join(self.out)


def run(lines: list[str], game: GinnyGame | None = None, **kw) -> Script:
    game = game or stacked_game(TWO, racks=RACKS, draws="TD JD QD KC")
    script = Script(game, lines)
    config = game.config
    opponents = [GreedyGinnyAgent(s, config) for s in range(config.players) if s != 0]
    play_ginny_interactive(config, 0, opponents, script.ask, script.say, game=game, **kw)
    return script


# ---------------------------------------------------------------------- placements
def test_a_typed_legal_placement_is_played_and_scored():
    script = run(["4C 5C 6C 7C 8C @ 3,7 down", "quit"])
    game = script.game
    assert game.scores == [34, 44] and game.turn == 2
    assert "P0 (you): 4C 5C 6C 7C 8C @ 3,7 down for 34 points (score 34)" in script.text
    assert "P1 (greedy): AC 2C 3C @ 0,7 down for 44 points (score 44)" in script.text
    assert script.text.endswith("You quit: leaving the game unfinished.")
    assert not game.game_over


def test_an_illegal_placement_is_explained_and_asked_again_with_nothing_changed():
    script = run(["4C 5C 6C @ 6,7 across", "4C 5C 6C 7C 8C @ 3,7 down"])
    assert (
        "Illegal placement '4C 5C 6C @ 6,7 across': the first meld must cover the centre "
        "(7,7) (G20). Try again." in script.text
    )
    assert script.digests[0] == script.digests[1]  # the rejected line changed nothing
    assert script.game.scores[0] == 34


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (
            "2H 9D TD @ 7,6 across",
            "the row from 7,6 to 7,8 would read 2H 9D TD, which is not a meld",
        ),
        ("4C 5C @ 7,7 down", "the first meld needs at least 3 tiles (G20)"),
        ("4C 5C 6C 7C AS @ 7,7 down", "you have no AS to place"),
        ("4C 5C 6C @ 7,7", "Not a placement: '4C 5C 6C @ 7,7': 3 tiles need a direction"),
        ("7C 7H", "'7C 7H' is not a placement or a command"),
    ],
)
def test_g18_g20_bad_input_gets_a_reason(line, reason):
    script = run([line])
    assert reason in script.text
    assert script.digests[0] == script.digests[1] and script.game.turn == 0


def test_explain_placement_names_the_rule_on_a_built_board():
    # The rules' worked example after row 5 (P1 to move): region 0 and the region founded
    # on the red square (11,11) by Q-diamonds, joker, Q-hearts.
    game = stacked_game(
        TWO,
        racks={0: "TD JD 2S 3S 4S 7H QS", 1: "5H 8H 8D 9S KC KS 2D"},
        board=[
            "4C 5C 6C 7C 8C @ 3,7 down",
            "AC 2C 3C @ 0,7 down",
            "AD AH AS @ 0,4 across",
            "9C 9H 9D @ 8,7 across",
            "6H 6D @ 5,5 across",
            "QD *=QS QH @ 11,9 across",
        ],
    )

    def why(text: str) -> str:
        return explain_placement(game, parse_placement(text, game.board))

    assert find_placement(game, parse_placement("TD JD @ 9,9 down", game.board)) is None
    assert why("TD JD @ 9,9 down") == "it would join two regions, and regions never merge (G23)"
    assert "touches no tile" in why("2S 3S 4S @ 13,0 across") and "(G21, G22)" in why(
        "2S 3S 4S @ 13,0 across"
    )
    assert why("3S 4S @ 3,3 across") == "a new region needs at least 3 tiles (G22)"
    assert "would read QD *=QS QH QS" in why("QS @ 11,12")  # G11: the joker is Q-spades
    assert "runs ascend in reading order" in why("4S 3S 2S @ 3,2 across")
    legal = parse_placement("2S 3S 4S @ 3,3 across", game.board)  # founds region (3,3)
    assert find_placement(game, legal) is not None


# ---------------------------------------------------------------------- commands
def test_return_then_pass_refused_after_a_draw_then_hint_help_and_eof():
    script = run(["pass", "return 9D 9D", "return 9D 2H", "hint", "help", "board"])
    text = script.text
    assert "you drew a tile this turn, so you cannot pass" in text
    assert "You have no other 9D to return." in text
    assert "P0 (you): returned 9D 2H; your rack is now " in text
    assert script.game.turn == 2 and len(script.game.racks[0]) == 8  # its next turn drew
    assert "Best legal placements (points, placement):" in text
    assert "Commands (one per line):" in text
    assert text.endswith("End of input: leaving the game unfinished.")
    assert len(set(script.digests[:3])) == 1 and len(set(script.digests[3:])) == 1


def test_g14_pass_when_the_box_is_empty():
    game = stacked_game(
        TWO, racks={0: "2C 3C 6D 7D 9H TH QS", 1: "AC 2D 3D KD 5H 6S 7H"}, rest="out"
    )
    script = run(["hint", "return 2C", "pass", "quit"], game=game)
    assert "No legal placement: type pass" in script.text
    assert "returning needs a draw this turn and the box is empty (G14)" in script.text
    assert "P0 (you): passed" in script.text
    assert game.log[0] == (0, 1863) and game.turn >= 1


def test_g14_end_after_a_placement_when_more_are_allowed():
    config = GinnyConfig(num_players=2, max_placements=3)
    game = stacked_game(config, racks=RACKS, draws="TD JD QD KC")
    script = run(["end", "4C 5C 6C 7C 8C @ 3,7 down", "end", "quit"], game=game)
    assert "end only ends a turn after a placement (G14)" in script.text
    assert "You may make 2 more placements this turn or type end" in script.text
    assert "P0 (you): ended the turn" in script.text
    assert game.log[:7][-1] == (0, 1862) and game.scores[0] == 34


def test_a_whole_game_through_the_human_interface():
    """The human plays greedy's moves by typing them; the game ends and is summarised."""
    game = GinnyGame(GinnyConfig(num_players=3, max_turns=45), 4)

    def ask(prompt: str) -> str:
        placements = game.legal_placements()
        if placements:
            return format_placement(max(placements, key=lambda p: p.score).tiles)
        if game.drew:
            return f"return {format_kind(game.racks[0][0])}"
        return "pass"

    out: list[str] = []
    opponents = [GreedyGinnyAgent(1), GreedyGinnyAgent(2)]
    play_ginny_interactive(game.config, 0, opponents, ask, out.append, game=game)
    assert game.game_over
    assert out[-1] == format_result(game, 0, ["you", "greedy", "greedy"])
    assert out[-1].startswith("Game over after ") and "P0 (you)" in out[-1]


# ---------------------------------------------------------------------- gnome play
def test_gnome_play_game_ginny_o_in_process(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("hint\nquit\n"))
    assert gnome(["play", "--game", "ginny_o", "--seed", "3", "--opponents", "random"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Ginny-O: 2 players, seed 3. You are P0. Opponents: P1 (random).")
    assert "Best legal placements" in out and "P0> " in out
    assert "You quit: leaving the game unfinished." in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--players", "5"], "argument --players: 5 is not allowed for --game ginny_o: use 2..4"),
        (["--seat", "2"], "argument --seat: 2 is not a seat of 2 players"),
        (["--opponents", "master"], "known Ginny-O specs: expert, greedy, heuristic"),
        (["--players", "3", "--opponents", "a,b,c"], "give one Ginny-O spec for every opponent"),
        (["--max-placements", "0"], "argument --max-placements: max_placements=0 is not"),
        (["--max-turns", "0"], "argument --max-turns: max_turns=0 is not allowed"),
        (["--rounds", "2"], "argument --rounds: only with --game gnoming (this is --game ginny_o)"),
        (["--overwrite"], "argument --overwrite: only with --save PATH"),
        (["--seed", "-2"], "argument --seed: -2 is not allowed"),
    ],
)
def test_gnome_play_ginny_o_rejects_bad_options(argv, message, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as info:
        gnome(["play", "--game", "ginny_o", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "gnome play: error:" in err and message in err and "Traceback" not in err


def test_gnome_play_other_games(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit):
        gnome(["play", "--max-placements", "2"])
    assert "argument --max-placements: only with --game ginny_o" in capsys.readouterr().err
