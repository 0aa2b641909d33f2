"""Nerts bots (agents.nerts): legal, sensible in built positions, blind to hidden cards (N35),
deterministic per seed, and registered by spec."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.nerts import GreedyNertsAgent, RandomNertsAgent, known_nerts_specs, make_nerts_agent
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.actions import CALL, RECYCLE, SHIFT, TURN, WAIT, Kind, action_table
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.testing import build_game, permute_hidden

NERTS, WASTE = 0, 1
BOT_SPECS = ("random", "greedy")  # every spec that needs no file


def _view(game: NertsGame, seat: int) -> NertsView:
    return NertsView.from_game(game, seat)


def _play(config: NertsConfig, seed: int, specs, steps: int | None = None):
    """Play with bots from ``specs``; yields (game, views, actions) before every step."""
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


# ---------------------------------------------------------------------- legality
@pytest.mark.parametrize(
    "config",
    [
        NertsConfig(num_players=2, max_hands=2),
        NertsConfig(num_players=4, jokers=2, turn_size=1, work_piles=5, max_hands=1),
        NertsConfig(num_players=6, jokers=1, slide_under=False, auto_call=True, max_hands=1),
    ],
)
def test_bots_only_return_legal_actions(config):
    specs = [BOT_SPECS[s % 2] for s in range(config.num_players)]
    seen_kinds = set()
    table = action_table(config)
    for _game, views, actions in _play(config, 3, specs, steps=400):
        for view, a in zip(views, actions, strict=True):
            assert type(a) is int and a in view.legal_actions
            seen_kinds.add(table.decode(a).kind)
    # the bots really played: foundations, work piles and the stock
    assert {Kind.TO_SLOT, Kind.NEW_FOUNDATION, Kind.TO_WORK, Kind.TURN} <= seen_kinds


# ---------------------------------------------------------------------- greedy, built positions
def test_greedy_plays_the_nerts_top_to_its_foundation():
    cfg = NertsConfig(num_players=2)
    game = build_game(
        cfg,
        seats={0: {"nerts": "3C 5H", "waste": "9C 5S", "work": ["KD", "QS", "2H", "8D"]}},
        foundations=["p1:AH..4H", "p1:AS..4S"],
    )
    t = action_table(cfg)
    legal = set(game.legal_actions(0))
    assert {t.to_slot(NERTS, 0), t.to_slot(WASTE, 1), TURN} <= legal
    # the Nerts top (worth 3: +1 on the foundation, -2 less in the pile) goes first
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == t.to_slot(NERTS, 0)


def test_greedy_plays_a_work_card_to_a_foundation_before_turning():
    cfg = NertsConfig(num_players=2)
    game = build_game(
        cfg,
        seats={0: {"nerts": "3C KH", "work": ["9S", "5D", "QC", "JC"]}},
        foundations=["p1:AD..4D"],
    )
    t = action_table(cfg)
    assert TURN in game.legal_actions(0)
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == t.to_slot(3, 0)  # work1 -> slot0


def test_greedy_starts_a_foundation_with_an_ace():
    cfg = NertsConfig(num_players=3)
    game = build_game(cfg, seats={1: {"nerts": "5C AS", "work": ["9S", "5D", "QC", "JC"]}})
    t = action_table(cfg)
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 1)) == t.new_foundation(NERTS, 3)


def test_greedy_never_waits_or_turns_when_a_foundation_play_exists():
    """Over many positions of played games: whenever a foundation play is legal, greedy
    plays one (or calls Nerts)."""
    cfg = NertsConfig(num_players=3, max_hands=1)
    table = action_table(cfg)
    checked = 0
    for seed in range(4):
        for _game, views, actions in _play(cfg, seed, ["greedy", "random", "greedy"]):
            for seat in (0, 2):
                kinds = {table.decode(a).kind for a in views[seat].legal_actions}
                if kinds & {Kind.TO_SLOT, Kind.NEW_FOUNDATION}:
                    chosen = table.decode(actions[seat]).kind
                    assert chosen in (Kind.TO_SLOT, Kind.NEW_FOUNDATION, Kind.CALL)
                    checked += 1
    assert checked > 50


def test_greedy_moves_the_nerts_top_onto_a_run_before_an_empty_pile():
    cfg = NertsConfig(num_players=2)
    game = build_game(cfg, seats={0: {"nerts": "3C 8H", "work": ["9S", "", "QC", "JC"]}})
    t = action_table(cfg)
    assert {t.to_work(NERTS, 0), t.to_work(NERTS, 1)} <= set(game.legal_actions(0))
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == t.to_work(NERTS, 0)


def test_greedy_frees_a_space_for_a_stuck_nerts_king():
    cfg = NertsConfig(num_players=2)
    game = build_game(cfg, seats={0: {"nerts": "3C KS", "work": ["9H", "TS", "4D", "4C"]}})
    t = action_table(cfg)
    # no foundation, no run and no space takes KS: move the whole pile 9H onto TS
    decision = GreedyNertsAgent(0, cfg).decide(_view(game, 0))
    assert decision == t.work_move(0, 1, 1)
    game.step([decision, WAIT])
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == t.to_work(NERTS, 0)


def test_greedy_shifts_when_exhausted_and_recycles_an_empty_stock():
    cfg = NertsConfig(num_players=2)
    game = build_game(
        cfg,
        seats={0: {"nerts": "3C KS", "work": ["9H", "9C", "4D", "4S"], "stock": "2D 7D 5S"}},
        seen=[99, 0],
        exhausted=[True, False],
    )
    assert SHIFT in game.legal_actions(0)
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == SHIFT
    game = build_game(
        cfg,
        seats={
            0: {
                "nerts": "3C KS",
                "work": ["9H", "9C", "4D", "4S"],
                "stock": "",
                "waste": "5S",
                "rest": "nerts",
            }
        },
    )
    assert RECYCLE in game.legal_actions(0)
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == RECYCLE


def test_greedy_calls_nerts_when_clearly_ahead():
    cfg = NertsConfig(num_players=3)
    game = build_game(
        cfg,
        seats={0: {"nerts": ""}},
        foundations=["p0:AC..9C", "p0:AD..4D"],
    )
    assert game.hand_scores() == [13, -26, -26]
    assert CALL in game.legal_actions(0)
    assert GreedyNertsAgent(0, cfg).decide(_view(game, 0)) == CALL


def test_greedy_plays_on_when_behind_and_calls_when_nothing_is_left():
    cfg = NertsConfig(num_players=2)
    seats = {0: {"nerts": "", "work": ["9H", "9C", "4D", "4S"]}, 1: {"nerts": ""}}
    behind = build_game(cfg, seats=seats, foundations=["p1:AC..9C", "p0:AD"])
    assert behind.hand_scores() == [1, 9]
    view = _view(behind, 0)
    assert CALL in view.legal_actions and not view.exhausted[0]
    assert GreedyNertsAgent(0, cfg).decide(view) == TURN  # its stock may still help
    stuck = build_game(
        cfg, seats=seats, foundations=["p1:AC..9C", "p0:AD"], seen=[99, 0], exhausted=[True, False]
    )
    assert GreedyNertsAgent(0, cfg).decide(_view(stuck, 0)) == CALL


def test_greedy_makes_no_ping_pong_between_work_piles():
    """A work-pile move is never undone by the next one unless something progressed between."""
    moves = 0
    for players in (2, 4):
        cfg = NertsConfig(num_players=players, max_hands=2)
        table = action_table(cfg)
        game = NertsGame(cfg, players)
        bots = [GreedyNertsAgent(s, cfg) for s in range(players)]
        last: dict[int, tuple[int, int, int]] = {}
        while not game.game_over:
            if game.hand_over:
                game.next_hand()
                last.clear()
            actions = [b.decide(_view(game, s)) for s, b in enumerate(bots)]
            for seat, a in enumerate(actions):
                d = table.decode(a)
                if d.kind == Kind.WORK_MOVE:
                    moves += 1
                    assert last.get(seat) != (d.target, d.pile, d.count), "ping-pong"
                    last[seat] = (d.pile, d.target, d.count)
            if game.step(actions).progress:  # after progress a move back may be useful
                last.clear()
    assert moves > 10


# ---------------------------------------------------------------------- information, seeds
@pytest.mark.parametrize("players,seed,steps", [(2, 1, 25), (4, 2, 60), (6, 3, 90)])
def test_n35_no_bot_decision_depends_on_hidden_cards(players, seed, steps):
    cfg = NertsConfig(num_players=players, jokers=seed % 3)
    rng = np.random.default_rng(seed)
    changed = 0
    for game, _views, _actions in _play(cfg, seed, ["random"] * players, steps=steps):
        if game.steps % 5:
            continue
        other = permute_hidden(game, rng)
        changed += other.digest() != game.digest()
        for spec in BOT_SPECS:
            for seat in range(players):
                a = make_nerts_agent(spec, 11, cfg).decide(_view(game, seat))
                b = make_nerts_agent(spec, 11, cfg).decide(_view(other, seat))
                assert a == b, (spec, seat)
    assert changed > 0  # the permutations really moved hidden cards


def test_same_seed_same_decisions_and_no_global_random_state():
    cfg = NertsConfig(num_players=3, max_hands=1)

    def decisions(seed: int) -> list[list[int]]:
        game = NertsGame(cfg, 5)
        bots = [RandomNertsAgent(seed, cfg), GreedyNertsAgent(seed, cfg), RandomNertsAgent(seed)]
        out = []
        for _ in range(150):
            if game.hand_over:
                break
            acts = [b.decide(_view(game, s)) for s, b in enumerate(bots)]
            out.append(acts)
            game.step(acts)
        return out

    random.seed(1)
    np.random.seed(1)
    state = (random.getstate(), np.random.get_state()[1].copy())
    first = decisions(42)
    assert random.getstate() == state[0]  # no bot touched the global generators
    assert (np.random.get_state()[1] == state[1]).all()
    random.seed(99)
    np.random.seed(99)
    assert decisions(42) == first
    assert decisions(43) != first


def test_registry_specs_and_errors():
    assert known_nerts_specs() == (
        "expert",
        "greedy",
        "ppo",
        "ppo-sample",
        "random",
        "rllib",
        "search",
    )
    cfg = NertsConfig(num_players=3)
    assert isinstance(make_nerts_agent("greedy", 0, cfg), GreedyNertsAgent)
    assert isinstance(make_nerts_agent(" random ", 0), RandomNertsAgent)
    with pytest.raises(
        ValueError, match=r"unknown Nerts agent spec 'expertt'; known Nerts specs: "
    ):
        make_nerts_agent("expertt", 0, cfg)
    with pytest.raises(ValueError, match="takes no argument"):
        make_nerts_agent("greedy:3", 0, cfg)
    with pytest.raises(ValueError, match="needs a checkpoint path"):
        make_nerts_agent("ppo", 0, cfg)
    with pytest.raises(ValueError, match="must be a NertsConfig"):
        make_nerts_agent("greedy", 0, {"players": 3})
