"""The Nerts and Ginny-O PPO trainers reach pinned weights on short fixed-seed CPU runs.

The digests were recorded on 80e0433, before issue #30 moved the three trainers onto one PPO
core, so that the move can be checked to change no float. (Gnoming's trainer has its own pin,
tests/gnoming/test_ppo.py::test_a_short_training_run_reaches_the_pinned_weights.) A digest is the
SHA-256 of every tensor of the final policy's state dict in key order; one torch thread;
recorded on an Intel Xeon (kernels round differently on other processors: see
conftest.pinned_digest).
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from conftest import pinned_digest

torch = pytest.importorskip("torch")

from agents.ginny_o.learned import read_checkpoint as read_ginny  # noqa: E402
from agents.nerts.learned import read_checkpoint as read_nerts  # noqa: E402
from training.ginny_o.ppo import GinnyPPOConfig  # noqa: E402
from training.ginny_o.ppo import train as train_ginny  # noqa: E402
from training.nerts.ppo import NertsPPOConfig  # noqa: E402
from training.nerts.ppo import train as train_nerts  # noqa: E402

# The AuthenticAMD entries were recorded on 81f2296 (the same trainers as 80e0433), on an AMD
# EPYC machine, before the trainers moved onto training/core/ppo.py.
# The AuthenticAMD/avx2 entries were recorded on d3065bb on an AMD EPYC without AVX-512,
# which reproduces neither AuthenticAMD entry even on the commit that recorded them (5d7c096):
# the pins hold for a processor kind, not a vendor (conftest.cpu_isa).
NERTS_SELF_DIGEST = {
    "AuthenticAMD": "ffa67ae0ac534c97c17f035eecd6f33438abeb2cd922a455da3f7cb66d25c74a",
    "AuthenticAMD/avx2": "43f8f580cc56b4739eec4fd3dabc343da75291fe31f5ba99d418350dfdc55493",
    "GenuineIntel": "13bff3c107c5bbc3e3e81921740091fb99babc08cedd70cc935c8b8f095a0aef",
}
# Issue #31 moved the Nerts trainer onto the batched engine and samples only the learner
# streams' actions from the network, which changes the random draws of opponents=random
# runs (self-play runs draw the same numbers and keep their pins): re-recorded on an Intel
# Xeon; the AMD entry is to be recorded on an AMD machine.
NERTS_RANDOM_DIGEST = {
    "AuthenticAMD/avx2": "8eefc6f1a41546ab5d8fbfdf264e39c7ebb2f5ff11d7b1942f98db21e2134e54",
    "GenuineIntel": "ca4855bc1b5af341f7c6e4bb43887e16a85e26ba2b4b8281d6bb4860153e5d16",
}
GINNY_DIGEST = {
    "AuthenticAMD": "8721841dc890f535e5ec7000da7c2fc68b4790a2a47be2245b2a74040a0020d2",
    "AuthenticAMD/avx2": "cc64adabb43f20cc3493ece998975c4caa5017da2d65d14a819f5e2380128c78",
    "GenuineIntel": "4b388682d3ab189280e5f6bf3a1a352b33e6209d96ed796eee7553caaf43eee1",
}


def _digest(state_dict: dict) -> str:
    h = hashlib.sha256()
    for key in sorted(state_dict):
        h.update(key.encode())
        h.update(state_dict[key].numpy().tobytes())
    return h.hexdigest()


@pytest.fixture(autouse=True)
def _recorded_versions():
    if torch.__version__ != "2.13.0+cpu" or not np.__version__.startswith("2.4."):
        pytest.skip(
            f"the digests were recorded with torch 2.13.0+cpu and numpy 2.4.x (here torch "
            f"{torch.__version__}, numpy {np.__version__})"
        )
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize(
    ("opponents", "players", "seed", "pinned"),
    [("self", [2, 3], 11, NERTS_SELF_DIGEST), ("random", [3], 12, NERTS_RANDOM_DIGEST)],
)
def test_nerts_trainer_reaches_the_pinned_weights(tmp_path, opponents, players, seed, pinned):
    cfg = NertsPPOConfig(
        output_dir=str(tmp_path), num_envs=2, num_steps=16, total_steps=96, eval_games=0,
        players=players, opponents=opponents, seed=seed, torch_threads=1,
    )  # fmt: skip
    train_nerts(cfg)
    assert _digest(read_nerts(tmp_path / "policy.pt")["state_dict"]) == pinned_digest(
        pinned, "the Nerts PPO pin"
    )


def test_ginny_trainer_reaches_the_pinned_weights(tmp_path):
    cfg = GinnyPPOConfig(
        output_dir=str(tmp_path), num_envs=2, num_steps=24, total_steps=144, eval_games=0,
        players=[2, 3], opponents=["random", "self"], hidden=[32], channels=4, embedding=8,
        seed=11, torch_threads=1,
    )  # fmt: skip
    train_ginny(cfg)
    assert _digest(read_ginny(tmp_path / "policy.pt")["state_dict"]) == pinned_digest(
        GINNY_DIGEST, "the Ginny-O PPO pin"
    )
