"""The arena on other joblib backends (Ray, Dask) gives exactly the local results.

The Ray and Dask tests need the optional extras (``pip install -e ".[rllib,dask]"``);
``.ci/run`` runs them in their own virtual environment. They are skipped elsewhere.
"""

from __future__ import annotations

import pytest

from agents.gnoming.arena import BACKENDS, run_arena

LINEUP = ["greedy", "random", "random", "random"]


def _local():
    return run_arena(LINEUP, 4, 24, seed=5, workers=1, progress=False)


def _same(a, b) -> None:
    assert a.records == b.records
    assert a.stats == b.stats


def test_unknown_backend_and_stray_address_are_refused():
    with pytest.raises(ValueError, match=r"backend='spark' is not allowed: must be one of"):
        run_arena(LINEUP, 4, 4, backend="spark", progress=False)
    with pytest.raises(ValueError, match="address is only for backend='ray' or 'dask'"):
        run_arena(LINEUP, 4, 4, address="127.0.0.1:6379", progress=False)
    assert BACKENDS == ("loky", "ray", "dask")


def test_local_process_count_does_not_change_the_result():
    _same(_local(), run_arena(LINEUP, 4, 24, seed=5, workers=2, progress=False))


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
        remote = run_arena(LINEUP, 4, 24, seed=5, workers=2, backend="ray", progress=False)
        assert remote.settings["backend"] == "ray"
        _same(_local(), remote)
    finally:
        ray.shutdown()
        cluster.shutdown()


def test_dask_cluster_gives_the_local_result():
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = run_arena(
            LINEUP, 4, 24, seed=5, workers=2, backend="dask", address=client.scheduler.address,
            progress=False,
        )  # fmt: skip
    _same(_local(), remote)
