"""Terminal play (agents.gnoming.human), the agent registry, and the ``gnome play`` command.

The human answers with 1-based menu numbers; scripted input comes from ``io.StringIO``.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import RandomAgent, known_specs, make_agent
from agents.gnoming.human import make_opponents, play_interactive
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import card_token
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.describe import card_words
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.policies import Policy, RandomPolicy
from gnome_env.gnoming.testing import stack_deck
from training.app.cli import main

ROOT = Path(__file__).resolve().parents[2]


class ScriptedPolicy:
    """Plays a fixed list of actions, checking each is legal under the mask it is given."""

    def __init__(self, actions: list[int]) -> None:
        self.actions = list(actions)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        assert observation.dtype == np.float32
        action = self.actions.pop(0)
        assert mask[action], f"scripted action {action} is not legal"
        return action


def play(text: str, seat: int = 0, players: int = 3, seed: int = 0, **kw: object):
    out = io.StringIO()
    opponents = kw.pop("opponents", None) or [RandomAgent(10 + s) for s in range(players - 1)]
    game = play_interactive(
        players,
        seat,
        opponents,  # type: ignore[arg-type]
        seed,
        io.StringIO(text),
        out,
        **kw,  # type: ignore[arg-type]
    )
    return game, out.getvalue()


# ---------------------------------------------------------------------- agents
def test_random_agent_is_a_seeded_random_policy():
    agent = RandomAgent(3)
    assert isinstance(agent, RandomPolicy) and isinstance(agent, Policy)
    mask = np.zeros(A.NUM_ACTIONS, dtype=bool)
    mask[[A.DRAW, A.TAKE_B, A.DECLINE]] = True
    obs = np.zeros(4, dtype=np.float32)
    picks = [agent.act(obs, mask) for _ in range(50)]
    assert set(picks) == {A.DRAW, A.TAKE_B, A.DECLINE}
    again = RandomAgent(3)
    assert [again.act(obs, mask) for _ in range(50)] == picks


def test_make_agent_builds_random_and_rejects_unknown_specs_listing_known_ones():
    agent = make_agent("random", seed=5)
    assert isinstance(agent, RandomAgent)
    assert "random" in known_specs()
    with pytest.raises(
        ValueError,
        match=r"unknown agent spec 'grumpy'; known specs: expert, greedy, netsearch, ppo, "
        r"ppo-sample, random, rllib, rollout, sb3, search",
    ):
        make_agent("grumpy", seed=0)
    with pytest.raises(ValueError, match="takes no argument"):
        make_agent("random:3", seed=0)


def test_make_opponents_one_spec_for_all_or_one_per_other_seat():
    opponents = make_opponents(["random"], num_players=4, seat=2, seed=1)
    assert len(opponents) == 3 and all(isinstance(p, RandomAgent) for p in opponents)
    assert [p.seed for p in opponents] == [8, 9, 11]  # 8 * seed + seat, seats 0, 1, 3
    assert len(make_opponents(["random"] * 3, num_players=4, seat=0, seed=1)) == 3
    with pytest.raises(ValueError, match=r"give 1 spec .* or 3, one per other seat"):
        make_opponents(["random", "random"], num_players=4, seat=0, seed=1)


# ---------------------------------------------------------------------- play_interactive
def test_bad_inputs_reprompt_with_a_message_then_a_legal_move_is_applied_and_echoed():
    game, out = play("abc\n0\n10\n\n3\nq\n")
    assert "'abc' is not a number: enter a move number from 1 to 9, or q to quit." in out
    assert "0 is not on the menu: enter a move number from 1 to 9, or q to quit." in out
    assert "10 is not on the menu: enter a move number from 1 to 9, or q to quit." in out
    assert "Nothing entered: enter a move number from 1 to 9, or q to quit." in out
    assert out.count("Your move (1-9, q quits): ") == 5  # first ask + four re-prompts
    assert game.actions == [A.FLIP + 2]  # menu entry 3 of the opening flip = position 2
    revealed = card_words(game.layouts[0][2])
    assert f"you (seat 0): flip the card at row 1, column 3 -> turned up {revealed}" in out
    assert out.count("Your move (1-8, q quits): ") == 1  # the second opening flip
    assert out.rstrip().endswith("You quit: leaving the game unfinished.")
    assert not game.game_over


def test_table_and_menu_shown_before_each_decision_use_public_information_only():
    _, out = play("q\n")
    assert "Round 1/3 | phase OPENING_FLIP | seat 0" in out
    assert "seat 0<" in out
    assert "Your decision, seat 0: opening flip (R5)" in out
    assert "   1. flip the card at row 1, column 1\n" in out
    assert "   9. flip the card at row 3, column 3\n" in out
    # Nothing face down is shown: every layout cell before the first flip is ##.
    grid = [line for line in out.splitlines() if line.startswith(" ##")]
    assert len(grid) == 3 and all(set(line.replace(" ", "")) == {"#"} for line in grid)


def test_end_of_input_ends_cleanly():
    game, out = play("1\n")
    assert game.actions == [A.FLIP + 0]
    assert game.current_seat == 0 and game.phase == Phase.OPENING_FLIP
    assert out.rstrip().endswith("End of input: leaving the game unfinished.")


def test_opponents_move_first_and_each_move_is_one_line():
    game, out = play("", seat=2)
    assert len(game.actions) == 4  # seats 0 and 1 made their opening flips (R5)
    lines = [line for line in out.splitlines() if re.match(r"seat \d: ", line)]
    assert [line[:7] for line in lines] == ["seat 0:", "seat 0:", "seat 1:", "seat 1:"]
    for line, action in zip(lines, game.actions, strict=True):
        row, col = divmod(action - A.FLIP, 3)
        assert f"flip the card at row {row + 1}, column {col + 1} -> turned up the " in line
    assert "Your decision, seat 2: opening flip" in out
    # Same seeds, same opponents' choices.
    again, _ = play("", seat=2)
    assert again.actions == game.actions


def test_r13_hazard_flip_is_asked_of_the_human_out_of_turn():
    cfg = RulesConfig(num_players=3)
    deck = stack_deck(cfg, top=["8", "-1", "H"])
    seat0 = ScriptedPolicy([A.FLIP + 0, A.FLIP + 1, A.DRAW, A.DISCARD_A])
    seat2 = ScriptedPolicy([A.FLIP + 0, A.FLIP + 1, A.DECLINE])
    # Human at seat 1: opening flips at positions 0 and 1, then the hazard flip: menu 8 is
    # "decline" (7 face-down positions come first), then leave on seat 1's own turn.
    game, out = play(
        "1\n1\n8\nq\n", seat=1, opponents=[seat0, seat2], stacked_decks={0: deck}, rules=cfg
    )
    assert "seat 0: discard the hazard (removed from play)" in out
    assert "Your decision, seat 1: seat 0 discarded a hazard (R13)" in out
    assert "   8. decline the flip\n" in out
    assert "you (seat 1): decline the flip\nseat 2: decline the flip\n" in out
    assert game.actions[-2:] == [A.DECLINE, A.DECLINE]
    assert game.phase == Phase.DRAW and game.current_seat == 1
    assert out.rstrip().endswith("You quit: leaving the game unfinished.")


def test_full_game_prints_every_round_result_and_the_winner():
    rules = RulesConfig(num_players=3, max_turns_per_round=3)
    game, out = play("1\n" * 500, rules=rules, seed=4)
    assert game.game_over
    assert re.findall(r"Round (\d) over: ", out) == ["1", "2", "3"]
    for result in game.round_results:
        assert result.first_out is None  # 3 turns are too few to go out
        assert result.layout_scores == result.round_scores  # so no R21 bonus
    assert out.count("first-out: none") == 3
    last = game.round_results[-1]
    names = ["seat 0 (you)", "seat 1", "seat 2"]
    for seat, name in enumerate(names):
        cells = [f"{card_token(c):>3}" for c in last.layouts[seat]]
        layout = " /".join("".join(cells[i : i + 3]) for i in (0, 3, 6))
        assert (
            f"  {name.ljust(12)}  {layout}   layout {last.layout_scores[seat]:>4}"
            f"   round {last.round_scores[seat]:>4}"
        ) in out
    totals = ", ".join(f"{name} {t}" for name, t in zip(names, game.totals, strict=True))
    assert out.count(f"Totals: {totals}\n") == 1
    winners = ", ".join(names[s] for s in game.winners())
    assert out.rstrip().splitlines()[-1] in (
        f"Game over. Winner: {winners}",
        f"Game over. Winners (shared): {winners}",
    )


def test_play_interactive_validates_its_arguments():
    two = [RandomAgent(0), RandomAgent(1)]
    with pytest.raises(ValueError, match="3 players need 2, one per seat other than 0"):
        play_interactive(3, 0, two[:1], 0, io.StringIO(), io.StringIO())
    with pytest.raises(ValueError, match=r"seat=3 is not allowed: must be 0\.\.2"):
        play_interactive(3, 3, two, 0, io.StringIO(), io.StringIO())
    with pytest.raises(ValueError, match=r"does not match rules\.num_players=4"):
        play_interactive(3, 0, two, 0, io.StringIO(), io.StringIO(), RulesConfig(num_players=4))
    with pytest.raises(ValueError, match="is not a Policy"):
        play_interactive(3, 0, [two[0], object()], 0, io.StringIO(), io.StringIO())  # type: ignore[list-item]


def test_an_opponent_choosing_an_illegal_action_raises():
    cheat = ScriptedPolicy([])
    cheat.act = lambda observation, mask: A.DRAW  # type: ignore[method-assign]
    # After the human's two opening flips (menu entry 1 twice) seat 1 must flip, not draw.
    with pytest.raises(ValueError, match=r"seat 1 chose the illegal action 0 \(draw\)"):
        play("1\n1\n", seat=0, opponents=[cheat, RandomAgent(0)])


# ---------------------------------------------------------------------- gnome play
def gnome_command() -> list[str]:
    script = Path(sys.executable).with_name("gnome")
    return [str(script)] if script.exists() else [sys.executable, "-m", "training.app.cli"]


def test_gnome_play_subprocess_plays_a_complete_game_from_scripted_stdin():
    args = ["play", "--players", "3", "--seat", "0", "--opponents", "random", "--seed", "1"]
    proc = subprocess.run(
        [*gnome_command(), *args, "--max-turns", "4"],
        input="1\n" * 500,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert [
        line for line in proc.stderr.splitlines() if "numba kernels" not in line
    ] == []  # (a fresh checkout: the compile notice)
    out = proc.stdout
    assert out.startswith("Gnoming A Round: 3 players, 3 rounds, seed 1. You are seat 0.\n")
    assert "Opponents: seat 1 RandomAgent(seed=9), seat 2 RandomAgent(seed=10)." in out
    assert re.findall(r"Round (\d) over: ", out) == ["1", "2", "3"]
    totals = r"^Totals: seat 0 \(you\) -?\d+, seat 1 -?\d+, seat 2 -?\d+$"
    assert len(re.findall(totals, out, re.M)) == 3
    last = out.rstrip().splitlines()[-1]
    assert re.fullmatch(r"Game over\. (Winner|Winners \(shared\)): seat \d.*", last), last


def test_gnome_play_in_process_quit_and_per_seat_opponents(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    assert (
        main(["play", "--players", "4", "--seat", "3", "--opponents", "random,random,random"]) == 0
    )
    out = capsys.readouterr().out
    assert "You are seat 3." in out
    assert out.count("RandomAgent(") == 3
    assert out.rstrip().endswith("You quit: leaving the game unfinished.")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--players", "4", "--opponents", "random,random"],
            "argument --opponents: 2 specs given for 3 opponents; give one spec for every opponent",
        ),
        (["--opponents", "grumpy"], "unknown agent spec 'grumpy'; known specs: expert, greedy"),
        (["--players", "3", "--seat", "3"], "argument --seat: 3 is not a seat of 3 players"),
        (["--max-turns", "0"], "argument --max-turns: max_turns_per_round=0 is not allowed"),
        (["--rounds", "0"], "argument --rounds: rounds=0 is not allowed"),
        (["--seed", "-1"], "argument --seed: -1 is not allowed"),
        (["--players", "8"], "argument --players: 8 is not allowed for --game gnoming: use 3..7"),
        (["--num-players", "9"], "argument --num-players: 9 is not allowed for --game gnoming"),
    ],
)
def test_gnome_play_rejects_bad_options_with_a_message_saying_what_is_allowed(
    argv, message, monkeypatch, capsys
):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as info:
        main(["play", *argv])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "gnome play: error:" in err
    assert message in err


# ---------------------------------------------------------------- prompts (issue #15)
def _states(players: int, seed: int):
    """Every state of one random game (the game object is reused: use it at once)."""
    import random

    from gnome_env.gnoming.engine import Game

    rng = random.Random(seed)
    game = Game(RulesConfig(num_players=players), seed)
    while not game.game_over:
        yield game
        legal = game.legal_actions()
        game.step(legal[rng.randrange(len(legal))])


def test_place_prompt_offers_a_discard_only_when_one_is_legal():
    from agents.gnoming.human import _phase_hint

    seen = {True: 0, False: 0}
    for seed in range(6):
        for game in _states(4, seed):
            if game.phase != Phase.PLACE:
                continue
            legal = game.legal_actions()
            can = A.DISCARD_A in legal or A.DISCARD_B in legal
            hint = _phase_hint(game)
            assert ("or discard it (R14)" in hint) == can, (hint, legal)
            assert ("no discard is allowed now" in hint) == (not can)
            seen[can] += 1
    assert seen[True] > 10 and seen[False] > 10  # R14: a pile card taken must be placed


def test_a_single_forced_move_is_played_with_enter_and_said_so():
    from agents.gnoming.human import _Console

    for seed in range(20):
        game = next((g for g in _states(5, seed) if len(g.legal_actions()) == 1), None)
        if game is not None:
            break
    assert game is not None
    out = io.StringIO()
    console = _Console(io.StringIO("\n"), out)
    assert console.ask(game, game.current_seat) == game.legal_actions()[0]
    text = out.getvalue()
    assert "Only one move: Enter plays it (q quits)" in text and "(1-1" not in text


def test_the_header_names_the_deciding_seat_during_a_hazard_flip():
    for seed in range(30):
        game = next((g for g in _states(5, seed) if g.phase == Phase.HAZARD_FLIP), None)
        if game is not None:
            break
    assert game is not None and game.current_seat != game.turn_player
    head = game.render().splitlines()[0]
    assert head.endswith(f"seat {game.turn_player}'s turn; seat {game.current_seat} decides")
    assert "total: points of the rounds scored so far" in game.render()
