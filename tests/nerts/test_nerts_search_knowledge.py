"""bench/nerts_search_knowledge.py: the search with more of the hidden cards known. With nothing
known it is the search; with everything known and one sample it is the oracle labeller; its
memory holds exactly the cards that have been waste tops, and a memory search never depends
on a card that has not been one."""

from __future__ import annotations

import numpy as np
from conftest import bench_script

from agents.nerts import _bot_kernels as BK
from agents.nerts import search as S
from gnome_env.nerts import _kernels as K
from training.nerts.oracle import OracleBuffers, oracle_batch

SETTINGS = {"samples": 3, "horizon": 15, "score_weight": 0.1, "margin": 0.0, "z": 0.0}


def _experts(table, players: int, steps: int) -> None:
    kinds = np.zeros((table.st.shape[0], 6), np.int64)
    kinds[:, :players] = BK.KIND_EXPERT
    for _ in range(steps):
        joint = np.zeros_like(kinds)
        table.experts(kinds, joint)
        table.step(joint)


def test_knowing_nothing_is_the_pilots_search_game_for_game():
    script = bench_script("nerts_search_knowledge")
    pilot = bench_script("nerts_search_pilot")
    base = pilot.play(3, 6, 5, 3, SETTINGS)
    again = pilot.play(3, 6, 5, 3, SETTINGS, script.knowing_table("none"))
    assert np.array_equal(base[0], again[0]) and base[1:] == again[1:]
    assert base[2] > 0  # it does leave the expert's move, the same number of times
    stocks = pilot.play(3, 6, 5, 3, SETTINGS, script.knowing_table("stocks"))
    assert stocks[2] != base[2] or not np.array_equal(stocks[0], base[0])


def test_knowing_everything_with_one_sample_gives_the_oracles_values():
    script = bench_script("nerts_search_knowledge")
    table = script.knowing_table("all")(3, 24, 8)
    _experts(table, 3, 20)
    st, prm, ids, counts = table.st, table.prm, table.ids, table.counts
    keys = np.arange(24, dtype=np.int64) * 13 + 1
    qv = np.zeros((24, table.engine.n_actions), np.float32)
    oracle_batch(st, prm, ids, counts, keys, 15, 0.1, *OracleBuffers(qv.shape[1]).tail(), qv)
    b = table.bufs
    compared = 0
    for r in range(24):
        if np.isnan(qv[r]).all():
            continue
        nc = S.candidates(st[r], prm, 0, ids[r, 0], counts[r, 0], b.sc, b.bs, b.cands, b.every)
        script.known_cells(st[r], table.seen[r], 0, script.ALL, b.known, b.places, 3)
        S.hidden_from_row(st[r], b.hid, b.hid_n, b.known, b.places)
        S.search_values(st[r], prm, 0, b.cands, nc, 1, 15, keys[r], b.hid, b.hid_n, b.known,
                        0.1, b.det, b.g, b.ids, b.sc, b.bs, b.acts, b.hid_work, b.places,
                        b.values, b.now, b.sq)  # fmt: skip
        got = {int(b.cands[c]): float(np.float32(b.values[c])) for c in range(nc)}
        want = {int(a): float(qv[r, a]) for a in np.flatnonzero(~np.isnan(qv[r]))}
        assert got == want
        compared += 1
    assert compared >= 10


def test_memory_holds_exactly_the_cards_that_have_been_waste_tops():
    script = bench_script("nerts_search_knowledge")
    table = script.knowing_table("memory")(2, 8, 3)
    tops: list[set] = [set() for _ in range(8 * 2)]
    kinds = np.zeros((8, 6), np.int64)
    kinds[:, :2] = BK.KIND_EXPERT
    for _ in range(150):
        joint = np.zeros_like(kinds)
        table.experts(kinds, joint)
        table.step(joint)
        for b in range(8):
            g = table.st[b]
            for j in range(2):
                if g[K.C_STEPS] == 0:
                    tops[b * 2 + j] = set()
                w = g[K.S_WLEN + j]
                if w:
                    tops[b * 2 + j].add(int(g[K.WASTE + j * K.MAX_DECK + w - 1]))
                assert set(np.flatnonzero(table.seen[b, j]).tolist()) == tops[b * 2 + j]
    assert sum(len(t) for t in tops) > 20


def test_a_memory_search_never_reads_a_card_that_was_never_a_waste_top():
    """Permuting each seat's never-seen hidden cards among their places changes no sample of
    the memory search (they are redealt from their sorted set), so no decision."""
    script = bench_script("nerts_search_knowledge")
    table = script.knowing_table("memory")(2, 16, 12)
    _experts(table, 2, 60)
    rng = np.random.default_rng(0)
    who = np.zeros((16, 6), np.int64)
    who[:, :2] = 1
    keys = np.arange(16 * 6, dtype=np.int64).reshape(16, 6)
    first, dev = np.zeros((16, 6), np.int64), np.zeros((16, 6), np.int64)
    table.search(who, keys, SETTINGS, first, dev)
    places = np.zeros(K.MAX_DECK, np.int64)
    before = table.st.copy()
    moved = 0
    for b in range(16):
        for j in range(2):
            n = S.hidden_places(table.st[b], j, places)
            free = [p for p in places[:n] if not table.seen[b, j, table.st[b, p]]]
            cards = table.st[b, free].copy()
            table.st[b, free] = rng.permutation(cards)
            moved += int((table.st[b, free] != cards).any())
    assert moved > 20
    second = np.zeros_like(first)
    table.search(who, keys, SETTINGS, second, dev)
    assert np.array_equal(first, second)
    # the same permutation does reach a search that knows every hidden card
    b = table.bufs
    told = [np.zeros_like(first), np.zeros_like(first)]
    for k, state in enumerate((before, table.st)):
        script.knowing_batch(state, table.prm, table.ids, table.counts, who, keys, 3, 15, 0.1,
                             0.0, 0.0, b.every, table.seen, script.ALL, b.hid, b.hid_n, b.known,
                             *b.tail(), told[k], dev)  # fmt: skip
    assert not np.array_equal(told[0], told[1])


def test_features_mode_knows_exactly_the_cards_the_memory_features_name():
    """``--knows features``: per seat, the cards kept in place are the remembered cards that
    :func:`agents.nerts.memory.memory_features_rows` names for that seat (observer 0, so
    seat j is feature block j), and they are a part of what ``memory`` keeps; ``cycle``
    adds every remembered card of the seat's own stock and waste."""
    from agents.nerts.memory import FEATURE_CARDS, MEMORY_FEATURES, memory_features_rows
    from gnome_env.nerts.encoding import CARD_IDS

    script = bench_script("nerts_search_knowledge")
    table = script.knowing_table("features")(3, 12, 4)
    _experts(table, 3, 90)
    st, b = table.st, table.bufs
    feats = np.zeros((12, MEMORY_FEATURES), np.float32)
    memory_features_rows(st, table.seen, np.zeros(12, np.int64), 3, feats)
    named = 0
    for r in range(12):
        memory = b.known.copy()
        script.known_cells(st[r], table.seen[r], 0, script.MEMORY, memory, b.places, 3)
        script.known_cells(st[r], table.seen[r], 0, script.FEATURES, b.known, b.places, 3)
        assert (b.known <= memory).all()
        cycle = b.known.copy()
        script.known_cells(st[r], table.seen[r], 0, script.CYCLE, cycle, b.places, 3)
        own = np.zeros_like(cycle)
        n = S.hidden_places(st[r], 0, b.places)
        own[b.places[:n]] = 1  # seat 0's hidden places
        # ``cycle``: all that memory keeps of seat 0, and what the features name elsewhere
        assert np.array_equal(cycle, np.where(own == 1, memory, b.known))
        for j in range(3):
            n = S.hidden_places(st[r], j, b.places)
            kept = {int(st[r, p]) for p in b.places[:n] if b.known[p]}
            block = feats[r, j * FEATURE_CARDS * CARD_IDS : (j + 1) * FEATURE_CARDS * CARD_IDS]
            assert kept == set(np.flatnonzero(block.reshape(FEATURE_CARDS, CARD_IDS).any(0)))
            named += len(kept)
    assert named > 30
