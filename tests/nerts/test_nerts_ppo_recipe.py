"""training/nerts/ppo.py's recipe options: agent opponents, the win reward, imitation
pre-training, a starting policy and the value warm-up."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from agents.nerts.learned import read_checkpoint  # noqa: E402
from agents.nerts.registry import make_nerts_agent  # noqa: E402
from gnome_env.nerts.engine import NertsGame  # noqa: E402
from gnome_env.nerts.information import NertsView  # noqa: E402
from gnome_env.nerts.nerts_v0 import parallel_env  # noqa: E402
from training.nerts.ppo import NertsPPOConfig, Rollouts, hand_winners, main, train  # noqa: E402

SHORT = dict(num_envs=2, num_steps=16, total_steps=64, eval_games=0, num_players=[2, 3])


def _rollout(cfg: NertsPPOConfig) -> tuple[Rollouts, list[int]]:
    """One rollout of a fresh network; the rollouts and each slot's first hand seed."""
    from agents.nerts.learned import NertsPolicyNetwork

    play = Rollouts(cfg)
    net = NertsPolicyNetwork(play.obs_size, play.n_actions, cfg.hidden)
    net.reset_parameters(torch.Generator().manual_seed(0))
    play.start()
    seeds = [int(s) for s in play.engine.game_seeds]
    play.collect(net, __import__("numpy").random.default_rng(0))
    return play, seeds


def test_agent_opponents_play_their_seats_from_their_own_views():
    """opponents: greedy -- every non-learner seat's action is what a greedy agent decides
    from that seat's view (replayed here through a fresh env with the same hand seed), and
    only seat 0's streams are learner streams."""
    cfg = NertsPPOConfig(**{**SHORT, "opponents": "greedy", "max_steps_per_hand": 400})
    play, seeds = _rollout(cfg)
    assert [bool(x) for x in play.learner] == [True, False, True, False, False]
    for e, count in enumerate(play.counts):
        env = parallel_env(num_players=count, max_steps_per_hand=400)
        env.reset()
        env.game = NertsGame(env.config, seeds[e])
        greedy = [make_nerts_agent("greedy", 0, env.config) for _ in range(count)]
        first = sum(play.counts[:e])
        for t in range(cfg.num_steps):
            joint = [int(play.act[t, first + k]) for k in range(count)]
            for k in range(1, count):
                view = NertsView.from_game(env.game, k)
                assert joint[k] == greedy[k].decide(view), (e, t, k)
            env.step(dict(zip(env.possible_agents, joint, strict=True)))
            if env.game.hand_over:
                break


def test_the_win_reward_pays_only_at_a_hands_end_and_sums_to_zero():
    """reward: win -- 1/k to each of the k best hand scores less 1/n, at the step that ends
    the hand (N30, N31), 0 before: each ended hand's rewards sum to 0 over its seats."""
    cfg = NertsPPOConfig(**{**SHORT, "reward": "win", "max_steps_per_hand": 6})
    play, _ = _rollout(cfg)
    ends = 0
    for e, count in enumerate(play.counts):
        cols = slice(sum(play.counts[:e]), sum(play.counts[:e]) + count)
        for t in range(cfg.num_steps):
            rew, done = play.rew[t, cols], play.done[t, cols]
            if done[0]:
                ends += 1
                assert abs(float(rew.sum())) < 1e-6
                assert {round(float(x), 4) for x in rew} <= {
                    round(1 - 1 / count, 4),
                    round(-1 / count, 4),
                } | {round(1 / k - 1 / count, 4) for k in range(2, count + 1)}
            else:
                assert not rew.any()
    assert ends >= 4  # 6-step hands: several ended in 16 steps
    assert hand_winners([3, -2, 3]) == [0, 2] and hand_winners([-4, 1]) == [1]


def test_pretraining_imitates_the_teacher_and_repeats(tmp_path):
    """pretrain_teacher: the network first learns greedy's decisions (held-out accuracy well
    above chance on 40 hands), keeps pretrain.pt, and the same settings give the same
    weights."""
    cfg = dict(SHORT, pretrain_teacher="greedy", pretrain_hands=40, pretrain_epochs=3)
    a = train(NertsPPOConfig(output_dir=str(tmp_path / "a"), **cfg))
    train(NertsPPOConfig(output_dir=str(tmp_path / "b"), **cfg))
    assert a["pretrain"]["accuracy"] > 0.8 and a["pretrain"]["samples"] > 1000
    wa = read_checkpoint(tmp_path / "a" / "pretrain.pt")["state_dict"]
    wb = read_checkpoint(tmp_path / "b" / "pretrain.pt")["state_dict"]
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


def test_init_policy_and_value_warmup_keep_the_policy_and_train_the_value(tmp_path):
    """init_policy starts from a checkpoint's weights; during value_warmup updates only the
    value head changes, so the policy that comes out equals the one that went in."""
    train(NertsPPOConfig(output_dir=str(tmp_path / "a"), **SHORT))
    start = tmp_path / "a" / "policy.pt"
    train(
        NertsPPOConfig(
            output_dir=str(tmp_path / "b"), init_policy=str(start), value_warmup=2, **SHORT
        )
    )
    w0 = read_checkpoint(start)["state_dict"]
    w1 = read_checkpoint(tmp_path / "b" / "policy.pt")["state_dict"]
    for k in w0:
        if k.startswith("value."):
            assert not torch.equal(w0[k], w1[k]), k
        else:
            assert torch.equal(w0[k], w1[k]), k


def test_recipe_options_are_checked(tmp_path, capsys):
    """Bad recipe values are one-line errors naming the field and what is allowed."""
    other = tmp_path / "small"
    train(NertsPPOConfig(output_dir=str(other), hidden=[8], **SHORT))
    for argv, words in [
        (["--opponents", "grandmaster"], "opponents='grandmaster' is not allowed"),
        (["--reward", "score"], "reward='score' is not allowed"),
        (["--init_policy", str(tmp_path / "nope.pt")], "is not a file"),
        (["--init_policy", str(other / "policy.pt")], "actions, hidden, expert_hint)"),
        (["--pretrain_teacher", "chess"], "pretrain_teacher='chess' is not allowed"),
        (["--eval_opponents", "[greedy, best]"], "eval_opponents='best' is not allowed"),
        (["--value_warmup", "-1"], "value_warmup"),
    ]:
        assert main([*argv, "--output_dir", str(tmp_path / "run"), "--total_steps", "64"]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (argv, err)


def test_dagger_samples_label_the_students_positions_with_the_teachers_moves():
    """A student that always waits (id 0, N14) at the odd seats of 2-player hands: those
    seats' Nerts piles never move, so every sample whose own Nerts pile has shrunk comes
    from the teacher's seat, and the labels stay the teacher's (never a wait that the
    teacher would not play: greedy waits only when nothing else is legal)."""
    import numpy as np

    from gnome_env.nerts.config import NertsConfig
    from gnome_env.nerts.encoding import NertsEncoder
    from training.nerts.imitate import teacher_samples

    args = ("greedy", 4, [2], 3, 60, 10_000)
    plain = teacher_samples(*args, log=lambda _: None)
    mixed = teacher_samples(*args, log=lambda _: None, student=lambda obs, mask: 0)
    assert not (len(plain[0]) == len(mixed[0]) and np.array_equal(plain[0], mixed[0]))
    obs, masks, actions = mixed
    assert not np.any((actions == 0) & (masks.sum(1) > 1))  # greedy never waits by choice
    size = NertsEncoder(NertsConfig(num_players=2)).seat_slice(0, "nerts_size")
    own = obs[:, size].astype(np.float32)[:, 0]
    full = np.isclose(own, 1.0)
    assert full.any() and (~full).any()  # the student's seat stays full, the teacher's not


def test_a_run_against_agents_resumes_exactly(tmp_path):
    """opponents: greedy, reward: win, on the batched engine: 4 updates in one go equal 2,
    a stop, and 2 more after --resume (the hands in progress are replayed into their slots
    on the Python engine, the agents deciding again)."""
    cfg = dict(SHORT, total_steps=128, max_steps_per_hand=20, checkpoint_interval=1)
    cfg.update(opponents="greedy", reward="win")
    train(NertsPPOConfig(output_dir=str(tmp_path / "whole"), **cfg))
    train(NertsPPOConfig(output_dir=str(tmp_path / "part"), **cfg), stop_after=2)
    saved = torch.load(tmp_path / "part" / "checkpoint.pt", weights_only=True)["training"]
    assert any(saved["played"]) and max(saved["hands"]) > 0  # mid-hand, after some hands
    assert main(["--resume", str(tmp_path / "part")]) == 0
    whole = read_checkpoint(tmp_path / "whole" / "policy.pt")["state_dict"]
    part = read_checkpoint(tmp_path / "part" / "policy.pt")["state_dict"]
    assert all(torch.equal(whole[k], part[k]) for k in whole)


def test_the_shipped_expert_recipe_policy_is_its_run_and_plays():
    """agents/policies/nerts_expert_ppo is configs/nerts_expert.yaml's run (all but
    output_dir), and it plays: a short one-hand 2-player arena against random is won
    clearly (its README's table has the measured figures, on another seed)."""
    from pathlib import Path

    from agents.core.arena import run_arena
    from training.core.config import build_config, from_mapping, to_dict

    root = Path(__file__).resolve().parents[2]
    shipped = root / "agents" / "policies" / "nerts_expert_ppo"
    data = read_checkpoint(shipped / "policy.pt")
    recipe = build_config(NertsPPOConfig, root / "configs" / "nerts_expert.yaml")
    saved = build_config(NertsPPOConfig, shipped / "config.yaml")
    trained = to_dict(from_mapping(NertsPPOConfig, data["training"]["config"], "checkpoint"))
    for name in NertsPPOConfig.__dataclass_fields__:
        if name != "output_dir":
            assert getattr(recipe, name) == getattr(saved, name) == trained[name], name
    per_update = recipe.num_steps * recipe.num_envs  # updates = total_steps // per_update
    assert data["training"]["env_steps"] == recipe.total_steps // per_update * per_update
    result = run_arena(
        [f"ppo:{shipped / 'policy.pt'}", "random"], 2, 20, seed=3, progress=False,
        game="nerts", rules={"max_hands": 1},
    )  # fmt: skip
    assert result.stats[0].win_rate > 0.7
