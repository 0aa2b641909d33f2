"""Ginny-O bots (agents.ginny_o): legal, deterministic per seed, greedy on exact stacked
positions (G14, G28), weak-tile returns, and blind to other racks and the box (G17)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from agents.ginny_o import (
    GreedyGinnyAgent,
    HeuristicGinnyAgent,
    RandomGinnyAgent,
    known_ginny_specs,
    make_ginny_agent,
)
from agents.ginny_o.bots import are_partners, partner_counts, remaining_tiles, weak_slots
from agents.ginny_o.expert import ExpertGinnyAgent
from gnome_env.ginny_o import GinnyConfig, GinnyGame, parse_kinds
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o.board import cell
from gnome_env.ginny_o.cards import JOKER
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.notation import format_placement
from gnome_env.ginny_o.testing import stacked_game

BOT_SPECS = ("random", "greedy", "heuristic", "expert")  # every spec that needs no file
TWO = GinnyConfig(num_players=2)


def view_of(game: GinnyGame) -> GinnyView:
    return GinnyView.from_game(game, game.current)


def play(game: GinnyGame, bots, max_steps: int | None = None):
    """Step ``game`` with one bot per seat; yields ``(view, action)`` before each step."""
    steps = 0
    while not game.game_over and (max_steps is None or steps < max_steps):
        view = view_of(game)
        action = bots[game.current].decide(view)
        yield view, action
        game.step(action)
        steps += 1


def permute_hidden(game: GinnyGame, seat: int, seed: int) -> GinnyGame:
    """A copy of ``game`` in which every tile ``seat`` cannot see (the other racks and the
    box, G17) is shuffled among those places; rack and box sizes stay the same."""
    out = game.copy()
    others = [s for s in range(out.num_players) if s != seat]
    pool = list(out.box) + [t for s in others for t in out.racks[s]]
    pool = [int(t) for t in np.random.default_rng(seed).permutation(pool)]
    for s in others:
        size = len(out.racks[s])
        out.racks[s] = sorted(pool[:size])
        pool = pool[size:]
    out.box = pool
    return out


# ---------------------------------------------------------------------- registry
def test_registry_builds_every_bot_and_lists_the_specs():
    assert known_ginny_specs() == (
        "expert",
        "greedy",
        "heuristic",
        "ppo",
        "ppo-sample",
        "random",
        "turns",
        "turns-sample",
    )
    assert isinstance(make_ginny_agent("random", 1), RandomGinnyAgent)
    assert isinstance(make_ginny_agent(" greedy ", 1, TWO), GreedyGinnyAgent)
    bot = make_ginny_agent("heuristic", 7, TWO)
    assert isinstance(bot, HeuristicGinnyAgent) and bot.seed == 7 and bot.config == TWO
    assert repr(bot) == "HeuristicGinnyAgent(seed=7)"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("master", r"unknown Ginny-O agent spec 'master'; known Ginny-O specs: expert, greedy"),
        ("greedy:3", r"'greedy' takes no argument, got 'greedy:3'"),
        ("ppo", r"'ppo' needs a checkpoint path: ppo:PATH"),
        (3, r"must be a string"),
    ],
)
def test_registry_rejects_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        make_ginny_agent(spec, 0)


def test_registry_learned_spec_without_its_module_is_a_clear_error(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "agents.ginny_o.learned", None)  # import -> ImportError
    with pytest.raises(ValueError, match=r"'ppo-sample'.*(not available|needs torch)"):
        make_ginny_agent("ppo-sample:x.pt", 0)
    with pytest.raises(ValueError, match="config must be a GinnyConfig"):
        make_ginny_agent("random", 0, {"players": 2})


# ---------------------------------------------------------------------- legality, determinism
@pytest.mark.parametrize(
    "config",
    [
        TWO,
        GinnyConfig(num_players=3, max_placements=3, max_turns=45),
        GinnyConfig(num_players=4, max_turns=40),
    ],
)
def test_bots_only_return_legal_actions(config):
    game = GinnyGame(config, 5)
    bots = [
        make_ginny_agent(BOT_SPECS[s % len(BOT_SPECS)], 10 + s, config)
        for s in range(config.num_players)
    ]
    kinds = set()
    for view, action in play(game, bots):
        assert type(action) is int and action in view.legal_actions
        kinds.add(A.kind_of(action))
    assert game.game_over
    assert {"place", "commit", "confirm_return"} <= kinds


def test_random_agent_is_deterministic_per_seed_and_uses_no_global_state():
    def actions(seed: int) -> list[int]:
        game = GinnyGame(TWO, 3)
        bots = [RandomGinnyAgent(seed, TWO), RandomGinnyAgent(seed + 1, TWO)]
        out = []
        for _view, action in play(game, bots, max_steps=60):
            np.random.seed(123)  # global generators are never read by the bots
            out.append(action)
        return out

    first = actions(4)
    assert actions(4) == first
    assert actions(5) != first


def test_random_agent_is_uniform_over_the_legal_ids():
    game = stacked_game(
        TWO, racks={0: "2C 5D 9H KS 7C 9C JD", 1: "AC 2D 3D KD 5H 6S 7H"}, draws="4H"
    )
    view = view_of(game)
    assert not view.placements and len(view.legal_actions) == 8  # RETURN(0..7) only
    bot = RandomGinnyAgent(0, TWO)
    counts = np.bincount([bot.decide(view) - A.RETURN_BASE for _ in range(800)], minlength=8)
    assert counts.min() > 60


# ---------------------------------------------------------------------- greedy, stacked positions
def test_g28_greedy_takes_the_highest_scoring_placement():
    # Board: the worked example's first meld, 4C..8C down column 7 from (3,7). The rack can
    # add 3C above (3 + 30 = 33), 9C below (9 + 30 = 39), or both in one placement along the
    # column (G18: the occupied cells between them close the segment; 3 + 9 + 30 = 42).
    game = stacked_game(
        TWO,
        racks={0: "9C 3C KD KH 5S 2H QS", 1: "AC 2C 3D KS 5H 6S 7H"},
        draws="2S",
        board=["4C 5C 6C 7C 8C @ 3,7 down"],
    )
    view = view_of(game)
    scores = {format_placement(p.tiles): p.score for p in view.placements}
    assert scores == {"3C @ 2,7": 33, "3C 9C @ 2,7 down": 42, "9C @ 8,7": 39}
    bot = GreedyGinnyAgent(0, TWO)
    steps = []
    while game.current == 0:
        action = bot.decide(view_of(game))
        steps.append(action)
        result = game.step(action)
    assert result.points == 42 and game.scores == [42, 0]
    # the rack sorts by kind: 3C and 9C are in slots 0 and 1 (RL notes)
    assert steps == [A.place(0, cell(2, 7)), A.place(1, cell(8, 7)), A.COMMIT]


def test_greedy_ties_go_to_the_first_placement_in_generator_order():
    game = stacked_game(
        TWO, racks={0: "4C 5C 6C 9D 2H KS QS", 1: "AC 2C 3D KD 5H 6S 7H"}, draws="JH"
    )
    view = view_of(game)
    best = max(p.score for p in view.placements)
    first = next(i for i, p in enumerate(view.placements) if p.score == best)
    assert sum(p.score == best for p in view.placements) > 1  # a real tie
    bot = GreedyGinnyAgent(0, TWO)
    assert bot.choose(view) == first
    assert bot.decide(view) == view.placement_actions[first][0]


def test_greedy_returns_its_weak_tiles_when_it_cannot_place():
    # 8 tiles, no meld on the empty board. Partners: 7C-9C (one suit, 2 apart), 9C-9H (one
    # rank). 2C, 5D, JD, 4H and KS have none: they go back (slots 0, 3, 4, 5, 7).
    game = stacked_game(
        TWO, racks={0: "2C 5D 9H KS 7C 9C JD", 1: "AC 2D 3D KD 5H 6S 7H"}, draws="4H"
    )
    assert not view_of(game).placements
    bot = GreedyGinnyAgent(0, TWO)
    steps = []
    while game.current == 0:
        steps.append(bot.decide(view_of(game)))
        game.step(steps[-1])
    assert steps == [A.return_slot(s) for s in (0, 3, 4, 5, 7)] + [A.CONFIRM_RETURN]
    assert len(game.racks[0]) == 7 and game.turn == 1


def test_greedy_returns_the_single_worst_tile_when_every_tile_has_a_partner():
    # Pairs 2C-3C, 6D-7D, 9H-TH, QS-KS: no tile is weak; the worst has the fewest partners,
    # then the highest penalty (TH, QS, KS: 10), then the highest slot: KS in slot 7.
    game = stacked_game(
        TWO, racks={0: "2C 3C 6D 7D 9H TH QS", 1: "AC 2D 3D KD 5H 6S 7H"}, draws="KS"
    )
    bot = GreedyGinnyAgent(0, TWO)
    assert bot.decide(view_of(game)) == A.return_slot(7)
    game.step(A.return_slot(7))
    assert bot.decide(view_of(game)) == A.CONFIRM_RETURN


def test_weak_tiles_never_include_jokers():
    assert are_partners(parse_kinds("7C")[0], parse_kinds("9C")[0])
    assert are_partners(*parse_kinds("AS KS")) and are_partners(*parse_kinds("AS 3S"))
    assert not are_partners(*parse_kinds("KS 2S")) and not are_partners(*parse_kinds("7C 7C"))
    assert partner_counts([JOKER, *parse_kinds("7C 7H")]) == [0, 1, 1]
    kinds = [*sorted(parse_kinds("2C 9D KS")), JOKER]
    assert weak_slots([*kinds, -1, -1, -1, -1]) == [0, 1, 2]
    assert weak_slots([*parse_kinds("7C 8C"), JOKER, -1]) == [1]  # 8C: higher penalty
    assert weak_slots([JOKER, JOKER, -1]) == [1]  # G14 asks for at least one tile


def test_g14_greedy_passes_when_the_box_is_empty_and_it_cannot_place():
    game = stacked_game(
        TWO, racks={0: "2C 3C 6D 7D 9H TH QS", 1: "AC 2D 3D KD 5H 6S 7H"}, rest="out"
    )
    view = view_of(game)
    assert view.box_size == 0 and not view.drew and view.legal_actions == (A.PASS,)
    assert GreedyGinnyAgent(0, TWO).decide(view) == A.PASS
    assert HeuristicGinnyAgent(0, TWO).decide(view) == A.PASS


def test_g14_greedy_keeps_placing_then_ends_the_turn_with_max_placements():
    config = GinnyConfig(num_players=3, max_placements=4, max_turns=60)
    game = GinnyGame(config, 2)
    bots = [GreedyGinnyAgent(s, config) for s in range(3)]
    ends = commits = 0
    for view, action in play(game, bots):
        if view.phase in ("choose", "after_commit") and view.placements:
            best = max(p.score for p in view.placements)
            assert action in {
                a[0]
                for p, a in zip(view.placements, view.placement_actions, strict=True)
                if p.score == best
            }
        if view.phase == "after_commit":
            if view.placements:
                assert action != A.END_TURN
            else:
                assert action == A.END_TURN
                ends += 1
        commits += action == A.COMMIT
    assert commits > ends > 0


def test_greedy_drops_a_plan_that_is_no_longer_legal():
    # The plan made in one position is not followed in another: the bot rechecks each step.
    racks = {0: "9C 3C KD KH 5S 2H QS", 1: "AC 2C 3D KS 5H 6S 7H"}
    game = stacked_game(TWO, racks=racks, draws="2S", board=["4C 5C 6C 7C 8C @ 3,7 down"])
    bot = GreedyGinnyAgent(0, TWO)
    bot.decide(view_of(game))  # plans 3C 9C @ 2,7 down
    other = stacked_game(
        TWO, racks={0: "2C 5D 9H KS 7C 9C JD", 1: "AC 2D 3D KD 5H 6S 7H"}, draws="4H"
    )
    assert bot.decide(view_of(other)) == A.return_slot(0)  # replanned from the new view


# ---------------------------------------------------------------------- heuristic
def test_heuristic_keeps_a_joker_unless_the_play_pays_for_it():
    # QC KC with a joker makes a run; the real-tile play 5C 5D 5H scores less but keeps
    # the joker. Greedy spends the joker, the heuristic does not.
    game = stacked_game(
        TWO, racks={0: "QC KC 5C 5D 5H 2S *", 1: "AC 2D 3D KD 5S 6S 7H"}, draws="9H"
    )
    view = view_of(game)
    greedy = view.placements[GreedyGinnyAgent(0, TWO).choose(view)]
    heuristic = view.placements[HeuristicGinnyAgent(0, TWO).choose(view)]
    assert any(t == JOKER for _, t, _ in greedy.tiles)
    assert all(t != JOKER for _, t, _ in heuristic.tiles) and heuristic.score < greedy.score
    assert JOKER in remaining_tiles(view, heuristic)


# ---------------------------------------------------------------------- G17: no hidden information
@pytest.mark.parametrize("spec", BOT_SPECS)
def test_g17_decisions_do_not_depend_on_other_racks_or_the_box(spec):
    config = GinnyConfig(num_players=3, max_turns=60)
    game = GinnyGame(config, 8)
    bots = [make_ginny_agent(spec, 20 + s, config) for s in range(3)]
    checked = 0
    for _ in range(150):
        if game.game_over:
            break
        seat = game.current
        bot = bots[seat]
        before = copy.deepcopy(bot)  # its plan and generator as they are now
        action = bot.decide(GinnyView.from_game(game, seat))
        if checked < 40:
            checked += 1
            for k in range(2):
                other = permute_hidden(game, seat, seed=100 * checked + k)
                assert other.box != game.box
                twin = copy.deepcopy(before)
                assert twin.decide(GinnyView.from_game(other, seat)) == action
        game.step(action)
    assert checked == 40


# ---------------------------------------------------------------------- the equity bot
def _choice_positions(seed: int, count: int):
    """Views of the acting seat at ``count`` decision points with 2+ placements, from a game
    of greedy bots."""
    game = GinnyGame(TWO, seed)
    bots = [GreedyGinnyAgent(0, TWO), GreedyGinnyAgent(1, TWO)]
    out = []
    for view, _action in play(game, bots):
        if view.phase == "choose" and len(view.placements) >= 2:
            out.append(view)
            if len(out) == count:
                break
    return out


def test_expert_reply_is_the_mean_best_score_of_the_sampled_racks_after_the_placement():
    """Checked with the reference generator on a board rebuilt through the engine's own
    placement of the tiles (an independent path to the same numbers)."""
    from gnome_env.ginny_o.movegen import generate_reference

    bot = ExpertGinnyAgent(3, TWO)
    for view in _choice_positions(4, 6):
        racks = bot.sample_racks(view)
        assert len(racks) == bot.SAMPLES
        assert all(sum(r) == 7 for r in racks)
        unseen = np.asarray(view.unseen)
        assert all((np.asarray(r) <= unseen).all() for r in racks)  # drawn from the unseen
        p = view.placements[-1]
        board = view.board.copy()
        for c, tile, card in p.tiles:
            board.put(c, tile == JOKER, card, p.region)
        want = np.mean(
            [
                max((q.score for q in generate_reference(board, r, max_tiles=7)), default=0)
                for r in racks
            ]
        )
        assert bot.reply(view, p, racks) == pytest.approx(want)


def test_expert_takes_the_highest_equity_of_the_heuristic_top_k():
    """choose() is argmax over the heuristic's top TOP_K of value - REPLY_WEIGHT x reply,
    with the racks its generator draws; with REPLY_WEIGHT 0 it is the heuristic's choice."""
    for view in _choice_positions(5, 8):
        bot = ExpertGinnyAgent(9, TWO)
        twin = copy.deepcopy(bot)
        got = bot.choose(view)
        values = [twin.value(view, p) for p in view.placements]
        top = sorted(range(len(values)), key=lambda i: (-values[i], i))[: twin.TOP_K]
        racks = twin.sample_racks(view)
        equity = {
            i: values[i] - twin.REPLY_WEIGHT * twin.reply(view, view.placements[i], racks)
            for i in top
        }
        assert equity[got] == max(equity.values())
        flat = type("Flat", (ExpertGinnyAgent,), {"REPLY_WEIGHT": 0.0, "TOP_K": 1000})(9, TWO)
        assert flat.choose(view) == HeuristicGinnyAgent(9, TWO).choose(view)
