"""The Nerts search bot (agents.nerts.search): the position it rebuilds from a view, blindness
to hidden cards (N35), determinism, legality and its spec.

Its strength against the expert is measured by the arena (``docs/nerts.md``), never asserted
here."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import bench_script

from agents.nerts.expert import ExpertNertsAgent
from agents.nerts.registry import make_nerts_agent
from agents.nerts.search import (
    SearchBuffers,
    SearchNertsAgent,
    allowed_candidates,
    candidates,
    clear_gain,
    row_from_view,
    sample_key,
    search_batch,
)
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.testing import permute_hidden
from gnome_env.nerts.vector import NertsVectorEngine, write_game

# Row cells that only describe the last step (the search starts from the position itself).
_LAST = {K.C_HAS_LAST, K.C_LAST_STEP, K.C_LAST_REMEDY, K.C_END, K.C_HANDS}
_LAST |= {c + s for c in (K.S_LAST_SCORE, K.S_LAST_ACT, K.S_LAST_BLOCKED) for s in range(6)}
_LAST |= {c + s for c in (K.S_LAST_PI, K.S_LAST_PROG, K.S_LAST_CALLED) for s in range(6)}


def _expert_games(config: NertsConfig, seed: int, steps: int):
    """Positions of an expert game: yields the game before each of ``steps`` steps."""
    game = NertsGame(config, seed)
    bots = [ExpertNertsAgent(0, config) for _ in range(config.num_players)]
    for _ in range(steps):
        if game.hand_over:
            return
        yield game
        game.step([b.decide(NertsView.from_game(game, s)) for s, b in enumerate(bots)])


@pytest.mark.parametrize("players", [2, 4, 6])
def test_n34_n35_the_rebuilt_row_is_the_game_less_its_hidden_cards(players):
    """Every public cell of the row rebuilt from a view equals the engine's row; each seat's
    hidden places (Nerts pile under the top, stock, waste under the top) are left for the
    sample, and the cards offered for them are exactly the cards the engine has there."""
    config = NertsConfig(num_players=players)
    true_row = np.zeros(K.ROW, np.int32)
    row = np.zeros(K.ROW, np.int32)
    hid = np.zeros((K.MAX_P, K.MAX_DECK), np.int32)
    hid_n = np.zeros(K.MAX_P, np.int64)
    checked = 0
    for game in _expert_games(config, 31 + players, 150):
        write_game(game, true_row)
        row_from_view(NertsView.from_game(game, checked % players), row, hid, hid_n)
        hidden = set()
        for s in range(players):
            places = []
            for base, length_col in ((K.NERTS, K.S_NLEN), (K.STOCK, K.S_SLEN), (K.WASTE, K.S_WLEN)):
                n = int(true_row[length_col + s])
                top = n if base == K.STOCK else n - 1  # the stock has no face-up top
                places += [base + s * K.MAX_DECK + i for i in range(max(top, 0))]
            hidden |= set(places)
            assert sorted(hid[s, : hid_n[s]].tolist()) == sorted(true_row[places].tolist())
        public = [i for i in range(K.ROW) if i not in hidden and i not in _LAST]
        public = [i for i in public if i < K.T_RESET or i >= K.NERTS]  # step scratch aside
        assert np.array_equal(row[public], true_row[public])
        checked += 1
    assert checked > 30


def test_n35_the_decision_does_not_depend_on_hidden_cards():
    """Permuting every seat's face-down cards (Nerts pile, stock, waste under the top)
    changes nothing the search decides."""
    config = NertsConfig(num_players=3)
    gen = np.random.default_rng(3)
    compared = 0
    for game in _expert_games(config, 8, 60):
        other = permute_hidden(game, gen)
        for seat in range(3):
            a = SearchNertsAgent(5, config, samples=4).decide(NertsView.from_game(game, seat))
            b = SearchNertsAgent(5, config, samples=4).decide(NertsView.from_game(other, seat))
            assert a == b
            compared += 1
    assert compared > 100


def test_the_search_is_legal_deterministic_and_sometimes_leaves_the_expert():
    config = NertsConfig(num_players=2)
    deviations = 0
    for game in _expert_games(config, 12, 120):
        view = NertsView.from_game(game, 0)
        first = SearchNertsAgent(9, config, samples=4)
        a = first.decide(view)
        assert a in view.legal_actions
        assert SearchNertsAgent(9, config, samples=4).decide(view) == a  # same seed, same move
        if first.deviated:
            assert a != ExpertNertsAgent(0, config).decide(view)
        deviations += first.deviated
    assert deviations > 0  # the playouts do overrule the expert somewhere


def test_the_batched_search_decides_as_the_agent_from_its_view():
    """``search_batch`` on the batched engine's full rows (hidden cards and all) decides as
    ``SearchNertsAgent`` from each seat's view: the row's hidden cards enter only as a
    sorted set, which is what the view leaves unknown."""
    config = NertsConfig(max_steps_per_hand=300)
    engine = NertsVectorEngine(config, 3, num_players=[2, 3, 4], observations="none")
    engine.reset(seed=21)
    st, prm, ids, counts = engine.compiled_state()
    bufs = SearchBuffers(engine.n_actions)
    gen = np.random.default_rng(2)
    checked = 0
    for _ in range(40):
        who = np.zeros((3, 6), np.int64)
        keys = np.zeros((3, 6), np.int64)
        for b in range(3):
            game = engine.game(b)
            for s in range(game.num_players):
                who[b, s] = 1
                keys[b, s] = sample_key(7 + s, game.hand, game.steps)
        out = np.zeros((3, 6), np.int64)
        dev = np.zeros((3, 6), np.int64)
        search_batch(st, prm, ids, counts, who, keys, 4, 60, 0.1, 0.3, 0.0, bufs.every,
                     bufs.no_seen, bufs.hid, bufs.hid_n, bufs.known,
                     *bufs.tail(), out, dev, np.zeros((0, 1), np.float32))  # fmt: skip
        for b in range(3):
            game = engine.game(b)
            cfg = config.replace(num_players=game.num_players)
            for s in range(game.num_players):
                bot = SearchNertsAgent(7 + s, cfg, samples=4)
                assert out[b, s] == bot.decide(NertsView.from_game(game, s))
                assert dev[b, s] == bot.deviated
                checked += 1
        engine.step(engine.sample_actions(gen))
    assert checked > 200


def test_the_search_spec_and_its_limits_are_clear():
    bot = make_nerts_agent("search", 4, NertsConfig(num_players=4))
    assert isinstance(bot, SearchNertsAgent) and bot.samples == 16
    with pytest.raises(ValueError, match="jokers=0 only"):
        make_nerts_agent("search", 4, NertsConfig(jokers=1))
    tuned = make_nerts_agent("search:z=2: margin=0.1:samples=8", 4, NertsConfig())
    assert (tuned.z, tuned.margin, tuned.samples, tuned.horizon) == (2.0, 0.1, 8, 60)
    for spec, message in (
        ("search:5", "is not KEY=VALUE with KEY one of samples, horizon"),
        ("search:depth=3", "is not KEY=VALUE"),
        ("search:z=abc", "z must be a number, got 'abc'"),
        ("search:samples=2.5", "samples must be an integer"),
        ("search:z=1:z=2", "sets z twice"),
        ("search:z=-1", "z must be a number >= 0"),
        ("search:samples=0", "samples must be an integer >= 1"),
    ):
        with pytest.raises(ValueError, match=message):
            make_nerts_agent(spec, 4, NertsConfig())


def test_clear_gain_needs_the_margin_and_z_standard_errors():
    """The deviation test on exact numbers: 4 samples whose paired differences from the
    expert's move are 1, 0, 1, 0 (mean 0.5, sample variance 1/3, standard error 0.289)."""
    values = np.array([0.2, 0.7])  # the expert's move first, mean gain 0.5
    sq = np.array([0.0, 0.5])  # the mean squared difference: (1 + 0 + 1 + 0) / 4
    assert clear_gain(values, sq, 1, 4, 0.3, 0.0)  # the margin alone
    assert not clear_gain(values, sq, 1, 4, 0.6, 0.0)  # a gain below the margin
    assert clear_gain(values, sq, 1, 4, 0.3, 1.5)  # 0.5 > 1.5 x 0.289
    assert not clear_gain(values, sq, 1, 4, 0.3, 2.0)  # 0.5 < 2 x 0.289
    same = np.array([0.0, 0.25])  # every difference 0.5: no spread at all
    assert clear_gain(values, same, 1, 4, 0.3, 10.0)


def test_with_z_the_search_leaves_the_expert_only_where_the_plain_search_does():
    """The same seed gives the same samples and values, so a positive z can only keep the
    expert's move where the plain search left it, never make another deviation; over these
    positions it keeps some."""
    config = NertsConfig(num_players=4)
    plain_devs = z_devs = 0
    for game in _expert_games(config, 17, 150):
        view = NertsView.from_game(game, 1)
        plain = SearchNertsAgent(3, config, samples=8, margin=0.05)
        strict = SearchNertsAgent(3, config, samples=8, margin=0.05, z=2.0)
        a, b = plain.decide(view), strict.decide(view)
        if strict.deviated:
            assert plain.deviated and a == b
        elif not plain.deviated:
            assert a == b
        plain_devs += plain.deviated
        z_devs += strict.deviated
    assert 0 < z_devs < plain_devs


def test_the_kind_gate_keeps_exactly_the_allowed_deviations():
    """bench/nerts_search_kinds.py: with every kind allowed the gated search plays the
    search's moves, with none the expert's, and with one group the search's move exactly
    where it is the expert's or of that group; unknown kinds are refused by name."""
    from gnome_env.nerts.actions import Kind, action_table

    kinds = bench_script("nerts_search_kinds")
    config = NertsConfig(num_players=2)
    table = action_table(config)
    foundation = kinds.parse_kinds("foundation")
    assert foundation == {Kind.TO_SLOT, Kind.NEW_FOUNDATION}
    assert kinds.parse_kinds("none") == frozenset()
    assert kinds.parse_kinds("not-wait") == frozenset(Kind) - {Kind.WAIT}
    assert kinds.parse_kinds("wait, turn") == {Kind.WAIT, Kind.TURN}
    with pytest.raises(ValueError, match="unknown kind 'foundations'"):
        kinds.parse_kinds("foundations")
    every = kinds.GatedAgent(SearchNertsAgent(9, config, samples=4), config, 0, frozenset(Kind))
    nothing = kinds.GatedAgent(SearchNertsAgent(9, config, samples=4), config, 0, frozenset())
    moves = kinds.parse_kinds("stock,work")  # here: a turn and a waste-to-work-pile move
    some = kinds.GatedAgent(SearchNertsAgent(9, config, samples=4), config, 0, moves)
    left = 0
    for game in _expert_games(config, 12, 120):
        view = NertsView.from_game(game, 0)
        search = SearchNertsAgent(9, config, samples=4).decide(view)
        expert = ExpertNertsAgent(0, config).decide(view)
        assert every.decide(view) == search
        assert nothing.decide(view) == expert
        allowed = table.decode(search).kind in moves
        assert some.decide(view) == (search if allowed else expert)
        left += search != expert
    assert left > 0
    assert every.left == nothing.left == some.left == left
    assert every.kept == left and nothing.kept == 0
    assert 0 < some.kept < left


def test_candidates_of_some_kinds_are_the_experts_move_and_those_kinds_only():
    """``candidates=KINDS``: the candidate list is the full one's first entry (the expert's
    move) and then exactly its entries of those kinds, in the same order; the agent then
    leaves the expert's move only for such a move, and the spec names unknown kinds."""
    from gnome_env.nerts.actions import Kind, action_table
    from gnome_env.nerts.vector import KernelParams

    config = NertsConfig(num_players=2)
    table = action_table(config)
    prm = KernelParams(config, "relative", "hand").prm
    bufs = SearchBuffers(config.n_actions)
    turn = allowed_candidates(config, "turn")
    assert turn.sum() == 1 and table.decode(int(np.flatnonzero(turn)[0])).kind == Kind.TURN
    both = allowed_candidates(config, "turn+foundation")
    assert both.sum() == 1 + table.of_kinds({Kind.TO_SLOT, Kind.NEW_FOUNDATION}).sum()
    assert allowed_candidates(config, None).shape == (0,)
    row = np.zeros(K.ROW, np.int32)
    restricted = 0
    agent = SearchNertsAgent(9, config, samples=4, margin=0.0, candidates="turn")
    left = 0
    for game in _expert_games(config, 12, 150):
        write_game(game, row)
        legal = np.asarray(game.legal_actions(0), np.int16)
        full = bufs.cands[: candidates(row, prm, 0, legal, len(legal), bufs.sc, bufs.bs,
                                       bufs.cands, bufs.every)].tolist()  # fmt: skip
        some = bufs.cands[: candidates(row, prm, 0, legal, len(legal), bufs.sc, bufs.bs,
                                       bufs.cands, turn)].tolist()  # fmt: skip
        assert some == full[:1] + [a for a in full[1:] if turn[a]]
        restricted += len(some) < len(full)
        view = NertsView.from_game(game, 0)
        a = agent.decide(view)
        if a != ExpertNertsAgent(0, config).decide(view):
            assert table.decode(a).kind == Kind.TURN
            left += 1
    assert restricted > 50 and left > 0 and agent.deviated == left
    spec = make_nerts_agent("search:candidates=turn+foundation:memory=1", 4, config)
    assert spec.candidates == "turn+foundation"
    with pytest.raises(ValueError, match=r"unknown kind 'turns'.*turn"):
        make_nerts_agent("search:candidates=turns", 4, config)


def test_the_pilot_with_an_unreachable_margin_plays_the_experts_games():
    """bench/nerts_search_pilot.py: a search that may never leave the expert's move (a
    margin no playout value reaches) plays exactly the games of the expert in the tested
    seat, game for game on the same deals; with no margin the same search does leave it."""
    pilot = bench_script("nerts_search_pilot")
    settings = {"samples": 2, "horizon": 10, "score_weight": 0.1, "margin": 1e9, "z": 0.0}
    expert, none, _ = pilot.play(3, 6, 5, 3, None)
    held, decisions, deviations = pilot.play(3, 6, 5, 3, settings)
    assert none == 0 and decisions > 100 and deviations == 0
    assert np.array_equal(held, expert)
    assert expert.sum() > 0 and len(expert) == 6
    _, _, free = pilot.play(3, 6, 5, 3, {**settings, "margin": 0.0})
    assert free > 0


def test_the_agreement_count_is_full_for_one_stream_and_partial_for_two():
    """bench/nerts_search_agreement.py: the same search twice (one stream) makes the same
    deviations; two sample streams make different ones on the same positions."""
    script = bench_script("nerts_search_agreement")
    settings = {"samples": 4, "horizon": 20, "score_weight": 0.1, "margin": 0.1, "z": 0.0}
    positions, first, second, same = script.agreement(2, 30, 4, 3, settings, streams=(1, 1))
    assert positions == 120 and first == second == same > 0
    positions, first, second, same = script.agreement(2, 30, 4, 3, settings)
    assert positions == 120 and first > 0 and same < min(first, second)


def test_the_agreement_count_by_kind_splits_the_deviations():
    """``--kinds``: the deviations to stock moves and to every other kind add up to all
    of them, in each search and in the count of the same deviation twice."""
    from gnome_env.nerts.actions import parse_kinds

    script = bench_script("nerts_search_agreement")
    settings = {"samples": 4, "horizon": 20, "score_weight": 0.1, "margin": 0.1, "z": 0.0}
    every = script.agreement(2, 30, 4, 3, settings)
    stock = script.agreement(2, 30, 4, 3, settings, kinds=parse_kinds("stock"))
    rest = script.agreement(2, 30, 4, 3, settings, kinds=parse_kinds("foundation,work,wait,call"))
    assert stock[0] == rest[0] == every[0]
    assert [s + r for s, r in zip(stock[1:], rest[1:], strict=True)] == list(every[1:])
    assert stock[1] > 0 and rest[1] > 0
