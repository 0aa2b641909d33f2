"""The heuristic bots (``greedy``, ``expert``): legality, honesty, act == decide, scripted
positions with an obvious right move, and a small deterministic strength check.

Scripted positions are built with :func:`gnome_env.gnoming.testing.stack_deck`; positions are
row-major (R2): 0 1 2 / 3 4 5 / 6 7 8.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents import ExpertAgent, GreedyAgent, RandomAgent, make_agent
from agents.gnoming.heuristics import CardStats, Evaluator, expected_layout_score, lowest_chance
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import Game, Phase
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.scoring import layout_score_codes
from gnome_env.gnoming.testing import layout_tokens, permute_hidden_cards, stack_deck

BOTS = [GreedyAgent, ExpertAgent]
SMALL_DECK = {"1": 6, "2": 6, "3": 6, "4": 6, "-1": 3, "M": 3, "H": 3}
CONFIGS = [
    RulesConfig(num_players=3),
    RulesConfig(num_players=5, bounce_face_up=True),
    RulesConfig(num_players=7, discard_taken_card=True, rounds=2),
    RulesConfig(num_players=4, bounce_face_up=True, discard_taken_card=True, rounds=2),
    RulesConfig(num_players=3, rounds=1, deck=SMALL_DECK, max_turns_per_round=90),
]


def config_id(config: RulesConfig) -> str:
    flags = [f"{config.num_players}p"]
    if config.bounce_face_up:
        flags.append("bounce_face_up")
    if config.discard_taken_card:
        flags.append("discard_taken_card")
    if config.deck.size != 110:
        flags.append("small_deck")
    return "-".join(flags)


def mixed_playout(config: RulesConfig, seed: int, max_steps: int = 20_000):
    """Yield ``(game, seat)`` at every decision of a game whose seats are driven in turn by a
    random player, the greedy bot and the expert bot (so both random-looking and bot-like
    positions come up)."""
    n = config.num_players
    drivers = []
    for s in range(n):
        kind = (s + seed) % 3
        if kind == 0:
            drivers.append(RandomAgent(seed * 31 + s))
        elif kind == 1:
            drivers.append(GreedyAgent(seed * 31 + s, config))
        else:
            drivers.append(ExpertAgent(seed * 31 + s, config))
    game = Game(config, seed)
    for _ in range(max_steps):
        if game.game_over:
            return
        seat = game.current_seat
        yield game, seat
        driver = drivers[seat]
        if isinstance(driver, RandomAgent):
            action = driver.act(np.zeros(1, np.float32), game.legal_mask())
        else:
            action = driver.decide(SeatView.from_game(game, seat))
        game.step(action)  # raises ValueError on an illegal action
    raise AssertionError("playout did not finish")


def sampled_positions(config: RulesConfig, count: int, every: int):
    """Yield ``count`` positions ``(step, game, seat)``: every ``every``-th decision of mixed
    playouts with seeds 0, 1, 2, ..."""
    step = 0
    for seed in range(100):
        for game, seat in mixed_playout(config, seed):
            if step % every == 0:
                yield step, game, seat
                count -= 1
                if not count:
                    return
            step += 1
    raise AssertionError("not enough positions")


def apply_names(game: Game, names: list[str]) -> None:
    for name in names:
        game.step(A.action_from_name(name))


# ---------------------------------------------------------------------- (a) legality
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_bots_only_choose_legal_actions(config):
    checked = 0
    phases = set()
    for seed in range(40):
        if checked >= 1500:
            break
        greedy = GreedyAgent(seed, config)
        expert = ExpertAgent(seed, config)
        for game, seat in mixed_playout(config, seed):
            view = SeatView.from_game(game, seat)
            legal = set(game.legal_actions())
            for bot in (greedy, expert):
                action = bot.decide(view)
                assert type(action) is int
                assert action in legal, (
                    f"{bot!r} chose {A.action_name(action)} in phase {game.phase.name}; "
                    f"legal: {sorted(legal)}\n{game.render()}"
                )
            phases.add(game.phase)
            checked += 1
    assert checked >= 1500
    assert {Phase.OPENING_FLIP, Phase.DRAW, Phase.PLACE, Phase.DISPLACED} <= phases


# ---------------------------------------------------------------------- (b) honesty
@pytest.mark.parametrize("config", CONFIGS[:2], ids=config_id)
@pytest.mark.parametrize("bot_class", BOTS, ids=lambda c: c.spec)
def test_decisions_ignore_cards_the_seat_cannot_see(config, bot_class):
    rng = random.Random(11)
    checked = hidden_changed = 0
    for step, game, seat in sampled_positions(config, 300, every=3):
        twin = permute_hidden_cards(game, rng)
        if twin.state_tuple() != game.state_tuple():
            hidden_changed += 1
        one = bot_class(step, config).decide(SeatView.from_game(game, seat))
        two = bot_class(step, config).decide(SeatView.from_game(twin, seat))
        assert one == two, f"step {step}: {one} != {two}\n{game.render()}"
        checked += 1
    assert checked == 300
    assert hidden_changed > checked // 2


# ---------------------------------------------------------------------- (c) act == decide
@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@pytest.mark.parametrize("bot_class", BOTS, ids=lambda c: c.spec)
def test_act_on_the_observation_equals_decide_on_the_view(config, bot_class):
    encoder = ObservationEncoder(config)
    by_act = bot_class(7, config)
    by_view = bot_class(7, config)
    checked = 0
    for _, game, seat in sampled_positions(config, 200, every=2):
        obs = encoder.encode(game, seat)
        mask = game.legal_mask()
        assert by_act.act(obs, mask) == by_view.decide(SeatView.from_game(game, seat))
        checked += 1
    assert checked == 200


def test_registry_builds_the_bots():
    config = RulesConfig(num_players=5)
    greedy = make_agent("greedy", 3, config)
    expert = make_agent("expert", 3, config)
    assert isinstance(greedy, GreedyAgent) and greedy.config == config
    assert isinstance(expert, ExpertAgent) and expert.config == config
    assert isinstance(make_agent("expert", 0), ExpertAgent)  # default rules
    for spec in ("greedy:1", "expert:x"):
        with pytest.raises(ValueError, match="takes no argument"):
            make_agent(spec, 0)


# ---------------------------------------------------------------------- helpers
def test_expected_layout_score_uses_the_mean_unseen_card_for_face_down_cards():
    stats = CardStats([(2, 1), (6, 1)])  # mean 4
    layout = layout_tokens("5 5 5 / 1 2 3 / 4 6 7")
    assert expected_layout_score(layout, stats) == layout_score_codes(layout)
    with_down = list(layout)
    with_down[8] = None  # 7 -> mean 4; the column 5 3 ? cannot match
    assert expected_layout_score(with_down, stats) == layout_score_codes(layout) - 3
    with_down[2] = None  # the row of 5s cannot match while a card is face down
    assert expected_layout_score(with_down, stats) == 5 + 5 + 4 + 1 + 2 + 3 + 4 + 6 + 4


def test_evaluator_agrees_with_the_score_of_a_face_up_layout_and_counts_cards():
    layout = layout_tokens("5 5 M / 1 2 7 / 3 4 7")
    ev = Evaluator(CardStats([(5, 3), (9, 3)]), horizon=0.0)
    assert ev.value(layout) == pytest.approx(layout_score_codes(layout))
    down = list(layout)
    down[2] = None  # 5 5 ? completes with a 5: chance 1/2 here
    base = ev.prepare(down)
    assert base.total == pytest.approx(ev.value(down))
    assert ev.value_at(base, 2, 0) == pytest.approx(layout_score_codes(layout))
    only_nines = Evaluator(CardStats([(9, 6)]), horizon=0.0)
    assert only_nines.value(down) > ev.value(down)  # no 5 left: the row cannot match
    assert lowest_chance(0.0, [(20.0, 3.0)]) > 0.99
    assert lowest_chance(20.0, [(0.0, 3.0)]) < 0.01


# ---------------------------------------------------------------------- (d) scripted positions
OPENING = ["flip@0", "flip@1"] * 3  # every seat of a 3-seat game turns its cards 0 and 1 up


@pytest.mark.parametrize("bot_class", BOTS, ids=lambda c: c.spec)
def test_bot_takes_the_discard_that_completes_a_line(bot_class):
    config = RulesConfig(num_players=3)
    deck = stack_deck(config, layouts=["9 9 4 / 5 6 7 / 8 10 11"], top=["9", "12"])
    game = Game(config, 0, stacked_decks={0: deck})
    apply_names(game, OPENING)
    assert game.phase == Phase.DRAW and game.current_seat == 0
    bot = bot_class(0, config)
    assert bot.decide(SeatView.from_game(game, 0)) == A.TAKE_A  # the 9 on pile A
    game.step(A.TAKE_A)
    assert bot.decide(SeatView.from_game(game, 0)) == A.PLACE + 2  # 9 9 9: the row scores -9


@pytest.mark.parametrize("bot_class", BOTS, ids=lambda c: c.spec)
def test_bot_bounces_a_displaced_matching_card_onto_a_face_down_card(bot_class):
    config = RulesConfig(num_players=3)
    deck = stack_deck(config, layouts=["7 7 5 / 4 7 6 / 8 3 2"], top=["10", "11", "1"])
    game = Game(config, 0, stacked_decks={0: deck})
    apply_names(game, [*OPENING, "draw", "place@4"])  # the 1 goes on the face-down 7
    assert game.phase == Phase.DISPLACED and game.can_bounce
    bot = bot_class(0, config)
    assert bot.decide(SeatView.from_game(game, 0)) == A.BOUNCE + 2  # 7 7 7 matches (R11)


def endgame_position(opponent_low: bool) -> Game:
    """Seat 0 shows ``-1 1 3 / 1 -1 2 / 2 1 #`` (8 points without its last card) and holds a
    drawn -2. Seat 1 shows seven cards and keeps two face down: negative cards (-21) if
    ``opponent_low``, else high cards (66). Seat 2 keeps seven cards face down."""
    config = RulesConfig(num_players=3)
    seat0 = ["3", "1", "-1", "2", "2", "1"]  # drawn by seat 0 for its positions 2..7
    if opponent_low:
        seat1_layout = "-4 -4 5 / 5 6 6 / 8 4 4"
        seat1 = ["-3", "-3", "-3", "-2", "-2", "9"]  # positions 2..6, then drawn, discarded
    else:
        seat1_layout = "12 12 5 / 5 6 6 / 3 4 4"
        seat1 = ["9", "9", "8", "8", "8", "7"]
    seat2 = ["10", "10", "10", "10", "11", "11"]  # drawn and discarded
    draws = [card for turn in zip(seat0, seat1, seat2, strict=True) for card in turn]
    deck = stack_deck(
        config,
        layouts=["-1 1 12 / 12 11 11 / 10 10 9", seat1_layout],
        top=["12", "12", *draws, "-2"],
    )
    game = Game(config, 0, stacked_decks={0: deck})
    apply_names(game, OPENING)
    for turn in range(6):
        apply_names(game, ["draw", f"place@{2 + turn}", "discard_a"])  # seat 0
        if turn < 5:
            apply_names(game, ["draw", f"place@{2 + turn}", "discard_a"])  # seat 1
        else:
            apply_names(game, ["draw", "discard_a"])
        apply_names(game, ["draw", "discard_a"])  # seat 2
    apply_names(game, ["draw"])
    assert game.phase == Phase.PLACE and game.current_seat == 0 and game.held == -2
    assert game.visible_layout(0) == [-1, 1, 3, 1, -1, 2, 2, 1, None]
    assert game.visible_layout(1).count(None) == 2
    assert game.visible_layout(2).count(None) == 7
    return game


def test_expert_declines_to_go_out_when_an_opponent_is_clearly_lower():
    game = endgame_position(opponent_low=True)
    view = SeatView.from_game(game, 0)
    # Going out (-2 on the last face-down card) scores 6, but seat 1 shows -21: R21 would
    # add 5. The expert keeps its face-down card (about 4.4 expected) and replaces its worst
    # card, the 3, instead: 3 + 4.4 < 6 + 5.
    assert ExpertAgent(0, game.config).decide(view) == A.PLACE + 2
    # The greedy bot, blind to R21, takes the lowest layout estimate: it goes out.
    assert GreedyAgent(0, game.config).decide(view) == A.PLACE + 8


def test_expert_goes_out_when_it_is_clearly_lowest():
    game = endgame_position(opponent_low=False)
    view = SeatView.from_game(game, 0)
    # The same 6 points, now far below seat 1 (66 face up) and seat 2 (seven face-down
    # cards): going out is worth the R21 bonus of -5.
    assert ExpertAgent(0, game.config).decide(view) == A.PLACE + 8
    game.step(A.PLACE + 8)
    game.step(ExpertAgent(0, game.config).decide(SeatView.from_game(game, 0)))
    assert game.first_out == 0 or game.endgame_turns_left is not None


# ---------------------------------------------------------------------- (e) strength
def win_rate(strong: type, weak: type | None, num_players: int, games: int) -> float:
    """Share of wins (shared wins split) of one ``strong`` bot, rotated over the seats,
    against ``weak`` bots (None: random players), with fixed seeds."""
    config = RulesConfig(num_players=num_players)
    dummy = np.zeros(1, np.float32)
    wins = 0.0
    for g in range(games):
        strong_seat = g % num_players
        players = []
        for s in range(num_players):
            seed = 1000 * g + s
            if s == strong_seat:
                players.append(strong(seed, config))
            elif weak is None:
                players.append(RandomAgent(seed))
            else:
                players.append(weak(seed, config))
        game = Game(config, 500 + g)
        while not game.game_over:
            seat = game.current_seat
            player = players[seat]
            if isinstance(player, RandomAgent):
                game.step(player.act(dummy, game.legal_mask()))
            else:
                game.step(player.decide(SeatView.from_game(game, seat)))
        winners = game.winners()
        if strong_seat in winners:
            wins += 1 / len(winners)
    return wins / games


def test_greedy_beats_random():
    assert win_rate(GreedyAgent, None, 3, 60) > 0.8  # baseline 1/3


def test_expert_beats_greedy():
    assert win_rate(ExpertAgent, GreedyAgent, 3, 60) > 0.5  # baseline 1/3
