"""The Nerts expert bot (agents.nerts.expert): its choices in built positions, legality,
blindness to hidden cards (N35), determinism, its predictions of greedy, and its spec.

Its strength (the ladder random < greedy < expert) is measured by ``bench/nerts_ladder.py``
and ``bench/nerts_expert_tune.py`` (``docs/nerts.md``), never asserted here."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.nerts.bots import GreedyNertsAgent, needed_cards
from agents.nerts.expert import ExpertNertsAgent, ExpertSettings, predicted_play
from agents.nerts.registry import known_nerts_specs, make_nerts_agent
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.actions import CALL, TURN, WAIT, Kind, action_table
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.spec import SPEC
from gnome_env.nerts.testing import build_game, permute_hidden

NERTS, WASTE = 0, 1
GREEDY_SETTINGS = ExpertSettings(
    defer_idle=False, starve=False, hold_waste=False, avoid_collisions=False
)


def _view(game: NertsGame, seat: int) -> NertsView:
    return NertsView.from_game(game, seat)


def _expert(cfg: NertsConfig, settings: ExpertSettings | None = None) -> ExpertNertsAgent:
    return ExpertNertsAgent(0, cfg, settings)


def _play(config: NertsConfig, seed: int, specs, steps: int | None = None):
    """Play with agents from ``specs``; yields (game, views, actions) before every step."""
    game = NertsGame(config, seed)
    bots = [make_nerts_agent(s, seed * 7 + i, config) for i, s in enumerate(specs)]
    done = 0
    while not game.game_over and (steps is None or done < steps):
        if game.hand_over:
            game.next_hand()
        views = [_view(game, s) for s in range(game.num_players)]
        actions = [bot.decide(v) for bot, v in zip(bots, views, strict=True)]
        yield game, views, actions
        game.step(actions)
        done += 1


# ---------------------------------------------------------------------- built positions
# Seat 0 decides. Every seat's tops are written out, so no dealt card can change the case.
_QUIET_1 = {"nerts": "2C 8C", "work": ["9S", "3D", "4D", "KH"]}  # seat 1: nothing to play


def test_n20_expert_plays_onto_the_slot_no_one_else_is_racing_for():
    """Two open slots need 5H. Seat 1's Nerts top is 5H, and greedy plays it onto the lowest
    slot (0); a second 5H there would be blocked for one of them (N20, N21). The expert
    sends its waste 5H to slot 1 instead, so both plays succeed; greedy sends it to slot 0."""
    cfg = NertsConfig(num_players=2)
    game = build_game(
        cfg,
        seats={
            0: {"nerts": "3C KD", "waste": "9C 5H", "work": ["QS", "8D", "6C", "JH"]},
            1: {"nerts": "2C 5H", "work": ["9S", "TD", "4C", "KC"]},
        },
        foundations=["p1:AH..4H", "p0:AH..4H"],
    )
    t = action_table(cfg)
    assert {t.to_slot(WASTE, 0), t.to_slot(WASTE, 1)} <= set(game.legal_actions(0))
    assert GreedyNertsAgent(1, cfg).decide(_view(game, 1)) == t.to_slot(NERTS, 0)
    assert _expert(cfg).decide(_view(game, 0)) == t.to_slot(WASTE, 1)
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == t.to_slot(WASTE, 0)
    result = game.step([t.to_slot(WASTE, 1), t.to_slot(NERTS, 0)])
    assert not any(result.blocked)  # both 5H land: N20 has nothing to settle


def _idle_position(cfg: NertsConfig, seat1: dict, others: dict | None = None) -> NertsGame:
    """Seat 0: work pile 0 is ``7S 6H`` (6H fits slot 0, which needs 6H), its Nerts top 9D
    fits on work pile 1 (``TS``)."""
    seats = {0: {"nerts": "3C 9D", "work": ["7S 6H", "TS", "4C", "KD"]}, 1: seat1}
    seats.update(others or {})
    return build_game(cfg, seats=seats, foundations=["p1:AH..5H"])


def test_n13_expert_frees_the_nerts_pile_before_an_idle_foundation_play():
    """6H onto its slot is idle: no other seat can take the slot, 7H is on none of seat 0's
    tops, and 7S below it is no use. Moving the Nerts top 9D onto TS turns the next Nerts
    card up (N13) and takes -2 off the score (N30), so the expert does that first; greedy
    plays the foundation card first."""
    cfg = NertsConfig(num_players=2)
    game = _idle_position(cfg, _QUIET_1)
    t = action_table(cfg)
    assert {t.to_slot(2, 0), t.to_work(NERTS, 1)} <= set(game.legal_actions(0))
    assert _expert(cfg).decide(_view(game, 0)) == t.to_work(NERTS, 1)
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == t.to_slot(2, 0)


def test_n20_expert_races_for_a_slot_another_seat_can_take():
    """Same position, but seat 1's waste top is 6H too and greedy plays it onto slot 0: if
    seat 0 waits, its 6H no longer fits (N8). The expert plays it now (the priority order
    decides, N20) before moving the Nerts top."""
    cfg = NertsConfig(num_players=2)
    seat1 = {**_QUIET_1, "waste": "6H"}
    game = _idle_position(cfg, seat1)
    t = action_table(cfg)
    assert GreedyNertsAgent(1, cfg).decide(_view(game, 1)) == t.to_slot(WASTE, 0)
    assert _expert(cfg).decide(_view(game, 0)) == t.to_slot(2, 0)


def _starve_position(cfg: NertsConfig, stock: str | None) -> NertsGame:
    """Seat 0 can play 6H (idle) and nothing else; seat 1's Nerts top is 7H."""
    seat0 = {"nerts": "3C KD", "work": ["7S 6H", "QS", "4C", "JC"]}
    if stock is not None:
        seat0.update(stock=stock, rest="nerts")
    seats = {0: seat0, 1: {"nerts": "2C 7H", "work": ["9S", "3D", "4D", "KH"]}}
    for s in range(2, cfg.num_players):
        seats[s] = {"nerts": "2C 8C", "work": ["9S", "3D", "4D", "KH"]}
    return build_game(cfg, seats=seats, foundations=["p1:AH..5H"])


def test_n30_expert_withholds_a_card_that_opens_a_play_for_its_one_opponent():
    """At 2 players every point is relative: 6H onto its slot would let the opponent play its
    Nerts top 7H (+3 for it, N30). The expert turns the stock instead; greedy plays 6H."""
    cfg = NertsConfig(num_players=2)
    game = _starve_position(cfg, stock=None)
    t = action_table(cfg)
    assert {t.to_slot(2, 0), TURN} <= set(game.legal_actions(0))
    assert _expert(cfg).decide(_view(game, 0)) == TURN
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == t.to_slot(2, 0)


def test_n15_n16_expert_plays_the_withheld_card_when_the_stock_cannot_move():
    """With stock and waste empty there is no turn (N15) or recycle (N16): the withheld 6H
    is better than waiting."""
    cfg = NertsConfig(num_players=2)
    game = _starve_position(cfg, stock="")
    t = action_table(cfg)
    legal = set(game.legal_actions(0))
    assert TURN not in legal and t.to_slot(2, 0) in legal
    assert _expert(cfg).decide(_view(game, 0)) == t.to_slot(2, 0)


def test_n3_expert_does_not_starve_at_four_players():
    """At 4 players a card withheld from one opponent is also withheld from itself and the
    others gain; the expert plays 6H (it measured better, docs/nerts.md)."""
    cfg = NertsConfig(num_players=4)
    game = _starve_position(cfg, stock=None)
    t = action_table(cfg)
    assert _expert(cfg).decide(_view(game, 0)) == t.to_slot(2, 0)
    forced = _expert(cfg, ExpertSettings(starve=True))
    assert forced.decide(_view(game, 0)) == TURN


def test_n15_n20_expert_keeps_a_waste_top_that_fits_after_a_predicted_play():
    """Slot 0 needs 5H and seat 1's Nerts top is 5H: greedy plays it there this step, and
    then seat 0's waste top 6H fits. Turning (N15) would bury the 6H; the expert waits, then
    plays it. Greedy turns."""
    cfg = NertsConfig(num_players=2)
    game = build_game(
        cfg,
        seats={
            0: {"nerts": "3C KD", "waste": "9C 6H", "work": ["QS", "8D", "4C", "JC"]},
            1: {"nerts": "3C 7C 5H", "work": ["9S", "TD", "4D", "KH"]},
        },
        foundations=["p1:AH..4H"],
    )
    t = action_table(cfg)
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == TURN
    expert = _expert(cfg)
    assert expert.decide(_view(game, 0)) == WAIT
    game.step([WAIT, GreedyNertsAgent(1, cfg).decide(_view(game, 1))])
    assert expert.decide(_view(game, 0)) == t.to_slot(WASTE, 0)


def test_n22_expert_calls_when_level_and_plays_on_when_behind():
    """With an empty Nerts pile the expert calls when its score is at least every other
    seat's (N22), and keeps playing when behind."""
    cfg = NertsConfig(num_players=2)
    seats = {0: {"nerts": "", "work": ["9H", "9C", "8D", "4S"]}, 1: {"nerts": ""}}
    level = build_game(cfg, seats=seats, foundations=["p1:AC..5C", "p0:AD..5D"])
    assert level.hand_scores() == [5, 5]
    assert _expert(cfg).decide(_view(level, 0)) == CALL
    behind = build_game(cfg, seats=seats, foundations=["p1:AC..9C", "p0:AD"])
    assert _expert(cfg).decide(_view(behind, 0)) == TURN


# ---------------------------------------------------------------------- legality and greedy
@pytest.mark.parametrize(
    "config",
    [
        NertsConfig(num_players=2, max_hands=10),
        NertsConfig(num_players=4, jokers=2, turn_size=1, work_piles=5, max_hands=10),
        NertsConfig(num_players=6, jokers=1, slide_under=False, auto_call=True, max_hands=10),
        NertsConfig(num_players=3, nerts_size=4, work_piles=3, foundation_tie="both_keep"),
    ],
)
def test_expert_only_returns_legal_actions(config):
    specs = [("expert", "random", "greedy")[s % 3] for s in range(config.num_players)]
    table = action_table(config)
    kinds = set()
    checked = 0
    for _game, views, actions in _play(config, 5, specs, steps=500):
        for s in range(0, config.num_players, 3):
            assert type(actions[s]) is int and actions[s] in views[s].legal_actions
            kinds.add(table.decode(actions[s]).kind)
            checked += 1
    assert checked > 300
    assert {Kind.TO_SLOT, Kind.NEW_FOUNDATION, Kind.TO_WORK, Kind.TURN} <= kinds


@pytest.mark.parametrize("players", [2, 4, 6])
def test_expert_with_every_idea_off_plays_exactly_as_greedy(players):
    """The expert's ideas sit on greedy's moves: switched off, every decision is greedy's."""
    cfg = NertsConfig(num_players=players, max_hands=1)
    plain = ExpertNertsAgent(0, cfg, GREEDY_SETTINGS)
    greedy = GreedyNertsAgent(0, cfg)
    full = ExpertNertsAgent(0, cfg)
    same = differ = 0
    for seed in range(3):
        for _game, views, _actions in _play(cfg, seed, ["greedy"] * players):
            for view in views:
                assert plain.decide(view) == greedy.decide(view)
                if full.decide(view) == greedy.decide(view):
                    same += 1
                else:
                    differ += 1
    assert same > 100 and differ > 0  # the full expert does differ somewhere


@pytest.mark.parametrize("players", [2, 4, 6])
def test_predicted_play_is_greedys_foundation_play(players):
    """``predicted_play`` (used for N20 collisions and the held waste top) names the slot
    and card greedy actually plays, for every other seat, from one seat's public view."""
    cfg = NertsConfig(num_players=players, max_hands=1)
    table = action_table(cfg)
    greedy = GreedyNertsAgent(0, cfg)
    plays = 0
    for seed in range(3):
        for game, views, actions in _play(cfg, 10 + seed, ["greedy"] * players):
            need = needed_cards(views[0])
            for j in range(1, players):
                if actions[j] == CALL:
                    continue
                d = table.decode(actions[j])
                want = (-1, -1)
                if d.kind in (Kind.TO_SLOT, Kind.NEW_FOUNDATION):
                    pile = [game.nerts[j], game.waste[j], *game.work[j]][d.source]
                    want = (d.slot if d.kind == Kind.TO_SLOT else -1, pile[-1])
                    plays += 1
                assert predicted_play(views[0], j, need) == want
                assert greedy.decide(views[j]) == actions[j]
    assert plays > 50


# ---------------------------------------------------------------------- information, seeds
@pytest.mark.parametrize("players,seed", [(2, 1), (4, 2), (6, 3)])
def test_n35_expert_decision_does_not_depend_on_hidden_cards(players, seed):
    """Permuting every seat's face-down Nerts cards, stock order and waste under its top
    (its own too) leaves every expert decision unchanged."""
    cfg = NertsConfig(num_players=players, max_hands=1)
    rng = np.random.default_rng(seed)
    checked = 0
    for game, views, _actions in _play(cfg, seed, ["expert"] + ["greedy"] * (players - 1)):
        if game.steps % 3:
            continue
        other = permute_hidden(game, rng)
        assert other.digest() != game.digest() or not any(game.stock)
        for s in range(players):
            bot = ExpertNertsAgent(99, cfg)
            assert bot.decide(_view(other, s)) == bot.decide(views[s])
            checked += 1
    assert checked > 30


def test_expert_is_deterministic_and_leaves_global_random_state_alone():
    cfg = NertsConfig(num_players=3, max_hands=1)
    random.seed(4)
    np.random.seed(4)
    before = (random.getstate(), np.random.get_state()[1].copy())
    runs = []
    for _ in range(2):
        runs.append([tuple(a) for _g, _v, a in _play(cfg, 8, ["expert"] * 3, steps=300)])
    assert runs[0] == runs[1] and len(runs[0]) > 20
    assert random.getstate() == before[0]
    assert (np.random.get_state()[1] == before[1]).all()


# ---------------------------------------------------------------------- spec and settings
def test_expert_spec_is_registered_strongest_last():
    cfg = NertsConfig(num_players=2)
    assert "expert" in known_nerts_specs()
    agent = make_nerts_agent("expert", 3, cfg)
    assert isinstance(agent, ExpertNertsAgent) and agent.seed == 3 and agent.config == cfg
    assert SPEC.bots == ("random", "greedy", "expert", "search")
    with pytest.raises(ValueError, match="takes no argument"):
        make_nerts_agent("expert:fast", 0, cfg)


def test_expert_settings_reject_unknown_names_and_wrong_types():
    assert ExpertSettings.from_dict({"starve": True}).starve is True
    with pytest.raises(ValueError, match=r"unknown expert settings.*'starv'"):
        ExpertSettings.from_dict({"starv": True})
    with pytest.raises(ValueError, match="hold_waste='yes' is not allowed: true or false"):
        ExpertSettings.from_dict({"hold_waste": "yes"})
    with pytest.raises(ValueError, match="settings must be ExpertSettings"):
        ExpertNertsAgent(0, NertsConfig(), {"starve": True})  # type: ignore[arg-type]
