"""Memory of waste tops (agents/nerts/memory.py, N34/N35) and the search that uses it
(``search:memory=1``): what a seat remembers is where the engine has those cards, it is
exactly the cards that have been waste tops, the batched memory equals the views' one, and
the memory search reads no card that has not been a waste top."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import bench_script

from agents.nerts.bots import RandomNertsAgent
from agents.nerts.expert import ExpertNertsAgent
from agents.nerts.memory import WasteMemory, remember_waste_tops, seen_array
from agents.nerts.registry import make_nerts_agent
from agents.nerts.search import (
    SearchBuffers,
    SearchNertsAgent,
    known_from_seen,
    sample_key,
    search_batch,
)
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.vector import NertsVectorEngine


def _hidden_stock_cells(game: NertsGame, seat: int) -> dict[int, int]:
    """Row cell -> card of ``seat``'s stock and waste under its top (bottom -> top)."""
    out = {K.STOCK + seat * K.MAX_DECK + i: c for i, c in enumerate(game.stock[seat])}
    waste = game.waste[seat][:-1]
    out |= {K.WASTE + seat * K.MAX_DECK + i: c for i, c in enumerate(waste)}
    return out


def _batch_with_memory(seats: list[int], seed: int):
    """A batched engine of one game per entry of ``seats`` after reset, its rows, and the
    waste tops seen so far (``remember_waste_tops``)."""
    config = NertsConfig(max_steps_per_hand=300)
    engine = NertsVectorEngine(config, len(seats), num_players=seats, observations="none")
    engine.reset(seed=seed)
    st = engine.compiled_state()[0]
    seen = seen_array(len(seats))
    remember_waste_tops(st, seen)
    return config, engine, st, seen


@pytest.mark.parametrize("players", [2, 3, 5])
def test_n35_memory_holds_exactly_the_waste_tops_seen_where_they_are(players):
    """Mixed expert and random play (turns, recycles, shifts, remedies, waste plays, blocked
    plays): after every step each seat's memory puts every card that has been a waste top
    this hand and is still in a stock or under a waste top at the engine's place for it,
    and remembers nothing else."""
    config = NertsConfig(num_players=players, stall_steps=6)
    gen = np.random.default_rng(players)
    remembered = remedies = 0
    for seed in range(4):
        game = NertsGame(config, 100 * players + seed)
        bots = [
            ExpertNertsAgent(0, config) if s % 2 == 0 else RandomNertsAgent(seed, config)
            for s in range(players)
        ]
        memories = [WasteMemory() for _ in range(players)]
        tops: list[set[int]] = [set() for _ in range(players)]
        stalling = 0
        for _ in range(400):
            if game.game_over:
                break
            if game.steps == 0:
                tops = [set() for _ in range(players)]
            for j in range(players):
                if game.waste[j]:
                    tops[j].add(game.waste[j][-1])
            views = [NertsView.from_game(game, s) for s in range(players)]
            for s in range(players):
                memories[s].observe(views[s])
                for j in range(players):
                    truth = _hidden_stock_cells(game, j)
                    want = {cell: c for cell, c in truth.items() if c in tops[j]}
                    assert dict(memories[s].known(j)) == want
                    remembered += len(want)
            acts = [b.decide(v) for b, v in zip(bots, views, strict=True)]
            if stalling or gen.random() < 0.02:  # now and then the table stalls: a remedy
                stalling = (stalling or 8) - 1
                acts = [0] * players
            result = game.step(acts)
            remedies += result.remedy
            if game.hand_over and not game.game_over:
                game.next_hand()
    assert remembered > 1000 and remedies > 0


def test_a_missed_step_forgets_rather_than_guesses():
    config = NertsConfig(num_players=2)
    game = NertsGame(config, 4)
    bots = [ExpertNertsAgent(0, config) for _ in range(2)]
    memory = WasteMemory()
    for _ in range(60):
        memory.observe(NertsView.from_game(game, 0))
        game.step([b.decide(NertsView.from_game(game, s)) for s, b in enumerate(bots)])
    assert sum(len(memory.known(j)) for j in range(2)) > 0
    game.step([b.decide(NertsView.from_game(game, s)) for s, b in enumerate(bots)])  # unseen
    memory.observe(NertsView.from_game(game, 0))
    assert all(memory.known(j) == [] for j in range(2))


def test_the_batched_memory_is_the_views_memory():
    """``remember_waste_tops`` on the batched engine's rows and ``known_from_seen`` mark
    exactly the cells a seat's ``WasteMemory`` holds, in every game of a batch."""
    _, engine, st, seen = _batch_with_memory([2, 3, 4, 6], 5)
    memories = [WasteMemory() for _ in range(4)]
    known = np.zeros(K.ROW, np.int8)
    places = np.zeros(K.MAX_DECK, np.int64)
    gen = np.random.default_rng(1)
    marked = 0
    for _ in range(250):
        for b in range(4):
            game = engine.game(b)
            memories[b].observe(NertsView.from_game(game, 0))
            known_from_seen(st[b], seen, b, known, places)
            cells = {cell for j in range(game.num_players) for cell, _ in memories[b].known(j)}
            assert set(np.flatnonzero(known).tolist()) == cells
            assert all(st[b, cell] == c for j in range(game.num_players)
                       for cell, c in memories[b].known(j))  # fmt: skip
            marked += len(cells)
        engine.step(engine.sample_actions(gen))
        remember_waste_tops(st, seen)
    assert marked > 500


def test_the_batched_memory_search_decides_as_the_agents_that_watched_every_step():
    """``search_batch`` with the rows' memory decides as ``search:memory=1`` agents that saw
    every view of their game; with memory the decisions differ from the search without it
    somewhere (it is used)."""
    config, engine, st, seen = _batch_with_memory([2, 3, 4], 23)
    _, prm, ids, counts = engine.compiled_state()
    bufs = SearchBuffers(engine.n_actions)
    agents = {}
    for b in range(3):
        cfg = config.replace(num_players=engine.game(b).num_players)
        for s in range(cfg.num_players):
            agents[b, s] = SearchNertsAgent(7 + s, cfg, samples=4, memory=True)
    gen = np.random.default_rng(2)
    checked = differ = 0
    for _ in range(60):
        who = np.zeros((3, 6), np.int64)
        keys = np.zeros((3, 6), np.int64)
        for (b, s), _agent in agents.items():
            game = engine.game(b)
            who[b, s] = 1
            keys[b, s] = sample_key(7 + s, game.hand, game.steps)
        out, plain = np.zeros((3, 6), np.int64), np.zeros((3, 6), np.int64)
        dev = np.zeros((3, 6), np.int64)
        for seen_now, dest in ((seen, out), (bufs.no_seen, plain)):
            search_batch(st, prm, ids, counts, who, keys, 4, 60, 0.1, 0.3, 0.0, bufs.every,
                         seen_now, bufs.hid, bufs.hid_n, bufs.known, *bufs.tail(), dest, dev,
                         np.zeros((0, 1), np.float32))  # fmt: skip
        for (b, s), agent in agents.items():
            assert out[b, s] == agent.decide(NertsView.from_game(engine.game(b), s))
            checked += 1
        differ += int((out != plain).any())
        engine.step(engine.sample_actions(gen))
        remember_waste_tops(st, seen)
    assert checked > 400 and differ > 0


def test_n35_the_batched_memory_search_reads_no_card_that_was_never_a_waste_top():
    """Permuting every seat's never-seen hidden cards among their places changes no
    decision of the batched memory search; permuting remembered ones does change some."""
    pilot = bench_script("nerts_search_pilot")
    table = pilot.SearchTable(2, 16, 12)
    kinds = np.zeros((16, 6), np.int64)
    kinds[:, :2] = 2  # the compiled expert
    for _ in range(80):
        joint = np.zeros_like(kinds)
        table.experts(kinds, joint)
        table.step(joint)
    settings = {"samples": 3, "horizon": 15, "score_weight": 0.1, "margin": 0.0, "z": 0.0,
                "memory": 1}  # fmt: skip
    who = np.zeros((16, 6), np.int64)
    who[:, :2] = 1
    keys = np.arange(16 * 6, dtype=np.int64).reshape(16, 6)
    dev = np.zeros((16, 6), np.int64)

    def decisions() -> np.ndarray:
        out = np.zeros((16, 6), np.int64)
        table.search(who, keys, settings, out, dev)
        return out

    first = decisions()
    rng = np.random.default_rng(0)
    places = np.zeros(K.MAX_DECK, np.int64)
    from agents.nerts.search import hidden_places

    saved = table.st.copy()
    for remembered in (False, True):
        table.st[:] = saved
        moved = 0
        for b in range(16):
            for j in range(2):
                n = hidden_places(table.st[b], j, places)
                pick = [p for p in places[:n] if table.seen[b, j, table.st[b, p]] == remembered]
                cards = table.st[b, pick].copy()
                table.st[b, pick] = rng.permutation(cards)
                moved += int((table.st[b, pick] != cards).any())
        assert moved > 10
        assert np.array_equal(decisions(), first) != remembered
    table.st[:] = saved


def test_memory_is_a_search_setting_with_clear_errors():
    config = NertsConfig(num_players=2)
    agent = make_nerts_agent("search:z=2:margin=0.1:memory=1", 0, config)
    assert isinstance(agent.memory, WasteMemory) and agent.z == 2.0
    assert make_nerts_agent("search", 0, config).memory is None
    with pytest.raises(ValueError, match="memory must be 0 or 1"):
        make_nerts_agent("search:memory=2", 0, config)
    with pytest.raises(ValueError, match="memory must be an integer"):
        make_nerts_agent("search:memory=yes", 0, config)


def test_the_knowledge_benchs_memory_is_the_pilots_memory_search():
    """bench/nerts_search_knowledge.py --knows memory plays the pilot's ``--memory`` search
    game for game (the same samples)."""
    script = bench_script("nerts_search_knowledge")
    pilot = bench_script("nerts_search_pilot")
    settings = {"samples": 3, "horizon": 15, "score_weight": 0.1, "margin": 0.0, "z": 0.0}
    mine = pilot.play(2, 6, 5, 3, {**settings, "memory": 1})
    bench = pilot.play(2, 6, 5, 3, settings, script.knowing_table("memory"))
    plain = pilot.play(2, 6, 5, 3, settings)
    assert np.array_equal(mine[0], bench[0]) and mine[1:] == bench[1:]
    assert mine[2] != plain[2] or not np.array_equal(mine[0], plain[0])


def test_memory_features_name_the_remembered_next_cards_alike_from_views_and_rows():
    """The memory features from a seat's ``WasteMemory`` and from the batched rows agree
    for every seat of every game (random play), are one-hot where set, and name the card
    the engine really turns up next where they name one."""
    from agents.nerts.memory import (
        CARD_IDS,
        FEATURE_CARDS,
        MEMORY_FEATURES,
        SEAT_FEATURES,
        memory_features,
        memory_features_rows,
    )

    config, engine, st, seen = _batch_with_memory([2, 3, 4, 6], 9)
    cycles = 0
    memories = {(b, s): WasteMemory() for b in range(4) for s in range(6)}
    rows = np.zeros((4, MEMORY_FEATURES), np.float32)
    gen = np.random.default_rng(4)
    named = 0
    for _ in range(200):
        for s in range(6):
            seats = np.full(4, s, np.int64)
            memory_features_rows(st, seen, seats, config.turn_size, rows)
            for b in range(4):
                game = engine.game(b)
                if s >= game.num_players:
                    continue
                view = NertsView.from_game(game, s)
                memories[b, s].observe(view)
                feats = memory_features(memories[b, s], view)
                assert np.array_equal(feats, rows[b])
                cycles += int(feats[SEAT_FEATURES:].sum() > 0)
                blocks = feats[:SEAT_FEATURES].reshape(6, FEATURE_CARDS, CARD_IDS)
                assert blocks.sum(2).max() <= 1.0
                for r in range(game.num_players):
                    j = (s + r) % game.num_players
                    stock = game.stock[j]  # bottom -> top
                    hit = np.flatnonzero(blocks[r, 0])
                    if hit.size:  # the next turn's waste top
                        assert hit[0] == stock[len(stock) - min(3, len(stock))]
                        named += 1
        engine.step(engine.sample_actions(gen))
        remember_waste_tops(st, seen)
    assert named > 100 and cycles > 1000


def test_n15_n16_cycle_features_place_each_remembered_card_in_its_stocks_passes():
    """N15/N16 with turn size 3: stock a b c d e (top e) and waste f g (top g). This pass's
    turns show c, then a (the last, short turn); the next pass turns f g e d c b a and shows
    e, b, a; with g played first it turns f e d c b a and shows d, a."""
    from agents.nerts.memory import (
        CARD_IDS,
        CYCLE_FIELDS,
        SEAT_FEATURES,
        UNKNOWN,
        memory_features,
    )

    game = NertsGame(NertsConfig(num_players=2), seed=1)
    view = NertsView.from_game(game, 0)
    memory = WasteMemory()
    a, b, c, d, e, f, g = 10, 11, 12, 13, 14, 15, 16
    memory.stock = [[a, b, c, d, e], []]
    memory.waste = [[f, g], []]
    cycle = memory_features(memory, view)[SEAT_FEATURES:].reshape(len(CYCLE_FIELDS), CARD_IDS)
    named = {name: set(np.flatnonzero(cycle[i])) for i, name in enumerate(CYCLE_FIELDS)}
    assert named == {
        "in_stock": {a, b, c, d, e},
        "in_waste": {f, g},
        "now": {c, a, g},
        "next": {e, b, a},
        "next_if_played": {d, a},
    }
    memory.stock[0][1] = UNKNOWN  # b forgotten: no entry for it, the others keep theirs
    cycle = memory_features(memory, view)[SEAT_FEATURES:].reshape(len(CYCLE_FIELDS), CARD_IDS)
    assert set(np.flatnonzero(cycle[CYCLE_FIELDS.index("next")])) == {e, a}
