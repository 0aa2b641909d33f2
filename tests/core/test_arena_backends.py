"""The arena on other joblib backends (Ray, Dask) gives exactly the local results, for
every game: a Gnoming A Round lineup (also with ``variance_reduction=True``), a Nerts lineup
(``game="nerts"``) and a Ginny-O lineup (``game="ginny_o"``).

The Ray and Dask tests need the optional extras (``pip install -e ".[rllib,dask]"``);
``.ci/run`` runs them in their own virtual environment. They are skipped elsewhere.
"""

from __future__ import annotations

import pytest

from agents.core.arena import BACKENDS, run_arena

LINEUP = ["greedy", "random", "random", "random"]
#: One lineup per game: (lineup, seats, games, keyword arguments of run_arena). The Nerts
#: games are single hands, capped short, so that the file stays fast; random seats make
#: the results depend on every agent seed and every deal seed reaching the workers intact.
#: Every game but the plain Gnoming case also computes its luck correction on the workers.
CASES = {
    "gnoming": (LINEUP, 4, 24, {}),
    # the luck correction (variance_reduction): its terms are computed on the workers
    "gnoming_luck": (LINEUP, 4, 8, {"variance_reduction": True}),
    "nerts": (
        ["greedy", "random", "random"],
        3,
        9,
        {
            "game": "nerts",
            "rules": {"max_hands": 1, "max_steps_per_hand": 150},
            "variance_reduction": True,
        },
    ),
    # Ginny-O games capped at 12 turns (G29d) and played by the equity bot, whose rack
    # samples come from its agent seed, so the comparison covers those seeds too.
    "ginny_o": (
        ["expert", "random", "greedy"],
        3,
        6,
        {"game": "ginny_o", "rules": {"max_turns": 12}, "variance_reduction": True},
    ),
}


def _run(game: str, **kw):
    lineup, n, games, extra = CASES[game]
    return run_arena(lineup, n, games, seed=5, progress=False, **extra, **kw)


def _local(game: str = "gnoming"):
    return _run(game, workers=1)


def _same(a, b) -> None:
    assert a.records == b.records
    assert a.stats == b.stats
    assert {k: v for k, v in a.settings.items() if k not in ("backend", "workers")} == {
        k: v for k, v in b.settings.items() if k not in ("backend", "workers")
    }


def test_unknown_backend_and_stray_address_are_refused():
    with pytest.raises(ValueError, match=r"backend='spark' is not allowed: must be one of"):
        run_arena(LINEUP, 4, 4, backend="spark", progress=False)
    with pytest.raises(ValueError, match="address is only for backend='ray' or 'dask'"):
        run_arena(LINEUP, 4, 4, address="127.0.0.1:6379", progress=False)
    with pytest.raises(ValueError, match=r"backend='spark' is not allowed"):
        _run("nerts", backend="spark")
    assert BACKENDS == ("loky", "ray", "dask")


@pytest.mark.parametrize("game", sorted(CASES))
def test_local_process_count_does_not_change_the_result(game):
    _same(_local(game), _run(game, workers=2))


@pytest.mark.parametrize("game", ["nerts", "ginny_o"])
def test_the_lineup_is_not_trivially_reproducible(game):
    """Guard for the comparisons below: another seed gives other games, so equal results
    across backends are not equal by construction."""
    lineup, n, games, extra = CASES[game]
    other = run_arena(lineup, n, games, seed=6, progress=False, **extra)
    local = _local(game)
    assert local.settings["game"] == game
    assert [r["digest"] for r in other.records] != [r["digest"] for r in local.records]


def test_two_node_ray_cluster_gives_the_local_result():
    ray = pytest.importorskip("ray")
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    try:
        cluster.add_node(num_cpus=1)  # a second node on loopback
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False)
        assert len([n for n in ray.nodes() if n["Alive"]]) == 2
        for game in sorted(CASES):
            remote = _run(game, workers=2, backend="ray")
            assert remote.settings["backend"] == "ray"
            _same(_local(game), remote)
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_dask_cluster_gives_the_local_result():
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = {
            game: _run(game, workers=2, backend="dask", address=client.scheduler.address)
            for game in sorted(CASES)
        }
    for game, result in remote.items():
        assert result.settings["backend"] == "dask"
        _same(_local(game), result)
