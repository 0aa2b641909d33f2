"""Ray RLlib on Nerts (training/nerts/rllib_ppo.py): the Parallel env in RLlib's wrapper, the
config's checks, the checkpoint as a Nerts arena player, and a tiny real run.

Needs the ``rllib`` extra; ``.ci/run`` runs this file in its own virtual environment
(``.venv-rllib``), and it is skipped where Ray is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (see .venv-rllib in .ci/run)")
torch = pytest.importorskip("torch")

from agents.core.arena import run_arena  # noqa: E402
from agents.core.rllib_module import (  # noqa: E402
    MaskedPPOTorchRLModule,
    greedy_legal_action,
    load_module,
)
from agents.nerts.rllib_agent import RLlibNertsAgent, RLlibNertsEntry  # noqa: E402
from gnome_env.nerts import NertsConfig, nerts_v0  # noqa: E402
from gnome_env.nerts.information import NertsView  # noqa: E402
from training.core.config import ConfigError, build_config  # noqa: E402
from training.nerts.rllib_ppo import RLlibNertsConfig, make_env, parse  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "configs" / "rllib_nerts_ppo.yaml"
TINY = ["--iterations", "1", "--num_players", "3", "--max_steps_per_hand", "40"]
TINY += ["--train_batch_size", "120", "--minibatch_size", "120", "--num_epochs", "1"]
TINY += ["--hidden", "[32]"]


def _module(env) -> MaskedPPOTorchRLModule:
    torch.manual_seed(0)
    return MaskedPPOTorchRLModule(
        observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config={"fcnet_hiddens": [16], "vf_share_layers": False},
    )


def test_rllib_wrapper_keeps_seat_order_spaces_and_the_envs_own_observations():
    env = make_env({"num_players": 5, "reward_mode": "relative", "max_steps_per_hand": 30})
    seats = [f"player_{i}" for i in range(5)]
    assert env.agents == seats and env.possible_agents == seats  # not a set's hash order
    bare = nerts_v0.parallel_env(num_players=5, max_steps_per_hand=30)
    assert env.observation_space["player_3"] == bare.observation_space("player_3")
    assert env.action_space["player_3"] == bare.action_space("player_3")
    obs, _ = env.reset(seed=11)
    expected, _ = bare.reset(seed=11)
    for seat in seats:
        assert np.array_equal(obs[seat]["observation"], expected[seat]["observation"])
    # every seat acts at every step; a hand of 30 capped steps ends with __all__
    for _ in range(30):
        actions = {s: int(np.flatnonzero(obs[s]["action_mask"])[-1]) for s in seats}
        obs, reward, term, trunc, _ = env.step(actions)
        assert set(reward) == set(seats)
        assert abs(sum(reward.values())) < 1e-9  # relative rewards are zero-sum
        if term["__all__"] or trunc["__all__"]:
            break
    assert term["__all__"] or trunc["__all__"], "the 30-step cap ends the hand"


def test_agent_decides_from_its_view_what_the_module_picks_on_the_envs_observation():
    """The arena agent encodes its seat's public view (N34) with the env's encoder: its
    choice is the module's best legal action on the env's own observation of that seat."""
    env = nerts_v0.parallel_env(num_players=3, max_steps_per_hand=200)
    module = _module(env)
    agent = RLlibNertsAgent(module, env.config)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(25):
        for seat, name in enumerate(env.possible_agents):
            view = NertsView.from_game(env.game, seat)
            choice = agent.decide(view)
            assert choice in view.legal_actions
            mask = obs[name]["action_mask"].astype(bool)
            assert choice == greedy_legal_action(module, obs[name]["observation"], mask)
            checked += 1
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(actions)
    assert checked == 75


def test_agent_refuses_a_module_of_other_table_sizes():
    module = _module(nerts_v0.parallel_env(num_players=3))
    with pytest.raises(ValueError, match="these Nerts rules give"):
        RLlibNertsAgent(module, NertsConfig(num_players=3, work_piles=5))
    RLlibNertsAgent(module, NertsConfig(num_players=6))  # the seat count does not matter


def test_bad_config_values_are_refused():
    with pytest.raises(ConfigError, match="num_players"):
        build_config(RLlibNertsConfig, None, {"num_players": 7})
    with pytest.raises(ConfigError, match="minibatch_size=9000 is not allowed"):
        build_config(RLlibNertsConfig, None, {"train_batch_size": 1000, "num_players": 2,
                                              "minibatch_size": 9000})  # fmt: skip
    with pytest.raises(ConfigError, match="reward_mode='win'"):
        build_config(RLlibNertsConfig, None, {"reward_mode": "win"})
    with pytest.raises(ConfigError, match="eval_opponents: 'nobody'"):
        build_config(RLlibNertsConfig, None, {"eval_opponents": ["nobody"]})
    cfg = build_config(RLlibNertsConfig, CONFIG)  # the shipped config
    assert cfg.rules().max_hands == 1


def test_a_directory_holding_a_run_is_refused_without_overwrite(tmp_path, capsys):
    out = tmp_path / "run"
    (out / "checkpoint").mkdir(parents=True)
    (out / "config.yaml").write_text("seed: 0\n")
    assert parse(["--config", str(CONFIG), "--output_dir", str(out)]) is None
    err = capsys.readouterr().err
    assert "already holds a run (config.yaml, checkpoint)" in err and "--overwrite" in err
    assert (out / "config.yaml").read_text() == "seed: 0\n"  # nothing was changed
    cfg = parse(["--config", str(CONFIG), "--output_dir", str(out), "--overwrite"])
    assert cfg is not None and not (out / "checkpoint").exists()
    assert not (out / "config.yaml").exists()


def _train(out: Path, *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    command = [sys.executable, "-m", "training.nerts.rllib_ppo", "--config", str(CONFIG)]
    return subprocess.run(
        [*command, *TINY, *extra, "--output_dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_one_tiny_iteration_trains_repeats_and_the_checkpoint_plays_legal_arena_games(tmp_path):
    """A real run in a subprocess (its own Ray): the env raises on an illegal action, so
    finishing means none was sampled; the same config again (a fresh process, the command
    fixing PYTHONHASHSEED itself) ends with the same weights; the checkpoint then plays
    one-hand arena games, on the arena's own processes too."""
    start = time.perf_counter()
    first = _train(tmp_path / "a", "--eval_games", "3", "--eval_opponents", "[random]")
    seconds = time.perf_counter() - start
    assert first.returncode == 0, first.stderr[-3000:]
    # 120 env steps; hands of at most 40 steps: at least 3 games
    assert "iteration 1/1: 120 env steps" in first.stdout
    assert "| 2 x random | 3 | 3 |" in first.stdout
    print(f"tiny RLlib Nerts run (train + 3 arena games): {seconds:.1f} s")
    second = _train(tmp_path / "b", "--eval_games", "0")
    assert second.returncode == 0, second.stderr[-3000:]
    weights = [load_module(tmp_path / run / "checkpoint").state_dict() for run in ("a", "b")]
    assert weights[0].keys() == weights[1].keys()
    for key, value in weights[0].items():
        assert torch.equal(value, weights[1][key]), key

    entry = RLlibNertsEntry(tmp_path / "a" / "checkpoint")
    rules = {"max_hands": 1, "max_steps_per_hand": 40}
    lineup = [entry, "greedy", "random"]
    one = run_arena(lineup, 3, 6, seed=2, rules=rules, progress=False, game="nerts")
    two = run_arena(lineup, 3, 6, seed=2, rules=rules, workers=2, progress=False, game="nerts")
    assert one.records == two.records and one.stats[0].games == 6
    assert one.names[0] == f"rllib:{tmp_path / 'a' / 'checkpoint'}"
    with pytest.raises(ValueError, match="is not an RLlib checkpoint"):
        RLlibNertsAgent.load(tmp_path)
    with pytest.raises(ValueError, match="does not exist"):
        RLlibNertsAgent.load(tmp_path / "nope")


def test_the_nerts_packages_do_not_import_ray():
    """With Ray installed, the Nerts env, bots, arena and own PPO trainer leave Ray
    unimported; only agents.core.rllib_module and what imports it load it."""
    code = (
        "import sys, gnome_env.nerts.nerts_v0, agents.nerts.arena, agents.nerts.registry, "
        "training.nerts.ppo, training.nerts.rllib_ppo, training.core.rllib_run; "
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "[]"
