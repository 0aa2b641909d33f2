"""The expert hint of Nerts policies (``expert_hint``, agents/nerts/learned.py): the untrained
residual network plays the expert's moves, its decisions see no hidden card (N35), the
trainer feeds it the expert's action of each learner seat's own view, and runs with it
resume exactly."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.nerts.expert import ExpertNertsAgent  # noqa: E402
from agents.nerts.learned import (  # noqa: E402
    NertsPolicyAgent,
    NertsPolicyNetwork,
    checkpoint_payload,
    read_checkpoint,
    write_checkpoint,
)
from agents.nerts.registry import make_nerts_agent  # noqa: E402
from gnome_env.nerts.config import NertsConfig  # noqa: E402
from gnome_env.nerts.encoding import NertsEncoder  # noqa: E402
from gnome_env.nerts.engine import NertsGame  # noqa: E402
from gnome_env.nerts.information import NertsView  # noqa: E402
from gnome_env.nerts.testing import permute_hidden  # noqa: E402
from training.nerts.ppo import NertsPPOConfig, Rollouts, main, train  # noqa: E402

SHORT = dict(num_envs=2, num_steps=16, total_steps=64, eval_games=0, num_players=[2, 3])


def _hint_checkpoint(path, seed: int = 0, train_policy: bool = False) -> str:
    """A fresh expert-hint network written as a policy checkpoint; with ``train_policy``
    its policy head gets large random weights (so that it may overrule the hint)."""
    rules = NertsConfig()
    net = NertsPolicyNetwork(NertsEncoder(rules).size, rules.n_actions, [32], expert_hint=True)
    gen = torch.Generator().manual_seed(seed)
    net.reset_parameters(gen)
    if train_policy:
        with torch.no_grad():
            net.policy.weight.copy_(torch.randn(net.policy.weight.shape, generator=gen) * 3)
            net.hint_in.copy_(torch.randn(net.hint_in.shape, generator=gen))
    write_checkpoint(checkpoint_payload(net, rules, {}), path)
    return str(path)


def _positions(players: int, seed: int, steps: int):
    """Games along a hand where every seat plays random legal actions (copies, every 3rd step)."""
    cfg = NertsConfig(num_players=players, max_steps_per_hand=400)
    game = NertsGame(cfg, seed)
    bots = [make_nerts_agent("random", seed * 10 + s, cfg) for s in range(players)]
    for t in range(steps):
        if game.hand_over:
            break
        if t % 3 == 0:
            yield game.copy()
        game.step([b.decide(NertsView.from_game(game, s)) for s, b in enumerate(bots)])


@pytest.mark.parametrize("players,seed", [(2, 1), (4, 2), (6, 3)])
def test_untrained_hint_network_plays_the_experts_move(tmp_path, players, seed):
    """With the hint's logit bonus at its initial weight and a near-zero policy head, the
    network's most likely action is the expert's in every position with a choice."""
    cfg = NertsConfig(num_players=players, max_steps_per_hand=400)
    agent = NertsPolicyAgent(_hint_checkpoint(tmp_path / "p.pt"), config=cfg)
    expert = ExpertNertsAgent(0, cfg)
    choices = 0
    for game in _positions(players, seed, 90):
        for s in range(players):
            view = NertsView.from_game(game, s)
            choices += len(view.legal_actions) > 1
            assert agent.decide(view) == expert.decide(view), (game.steps, s)
    assert choices > 20


def test_n35_hint_policy_decisions_do_not_depend_on_hidden_cards(tmp_path):
    """A hint network whose own weights matter (random large policy weights): its action
    probabilities are the same when every seat's hidden cards are permuted."""
    rng = np.random.default_rng(5)
    path = _hint_checkpoint(tmp_path / "p.pt", seed=4, train_policy=True)
    changed = 0
    for players, seed in [(2, 7), (4, 8)]:
        cfg = NertsConfig(num_players=players, max_steps_per_hand=400)
        agent = NertsPolicyAgent(path, config=cfg)
        for game in _positions(players, seed, 60):
            other = permute_hidden(game, rng)
            changed += other.digest() != game.digest()
            for s in range(players):
                p = agent.distribution(NertsView.from_game(game, s))
                q = agent.distribution(NertsView.from_game(other, s))
                assert np.array_equal(p, q), (players, game.steps, s)
    assert changed > 0  # the permutations really moved hidden cards


def test_trained_weights_can_overrule_the_hint(tmp_path):
    """The hint is a bonus, not a rule: with large policy weights some decisions differ
    from the expert's (so the tests above would see a network that ignored the hint)."""
    cfg = NertsConfig(num_players=2, max_steps_per_hand=400)
    agent = NertsPolicyAgent(_hint_checkpoint(tmp_path / "p.pt", 4, True), config=cfg)
    expert = ExpertNertsAgent(0, cfg)
    differ = sum(
        agent.decide(v) != expert.decide(v)
        for game in _positions(2, 9, 90)
        for v in (NertsView.from_game(game, s) for s in range(2))
    )
    assert differ > 0


def test_a_hint_network_without_the_hint_is_refused():
    net = NertsPolicyNetwork(10, 5, [8], expert_hint=True)
    with pytest.raises(ValueError, match="needs the expert's actions"):
        net(torch.zeros(1, 10), torch.ones(1, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match="expert_hint='yes' is not allowed"):
        NertsPolicyNetwork(10, 5, [8], expert_hint="yes")
    with pytest.raises(ValueError, match=r"hint_init=-2\.0 is not allowed"):
        NertsPolicyNetwork(10, 5, [8], expert_hint=True, hint_init=-2.0)


def test_hint_init_sets_the_untrained_bonus_and_so_the_experts_probability():
    """With zero policy weights and a bonus h over k legal actions the expert's action has
    probability e^h / (e^h + k - 1): 3.0 over 5 legal actions gives 20.086 / 24.086 = 0.8339."""
    net = NertsPolicyNetwork(10, 5, [8], expert_hint=True, hint_init=3.0)
    net.reset_parameters(torch.Generator().manual_seed(0))
    with torch.no_grad():
        net.policy.weight.zero_()
        net.policy.bias.zero_()
        logits, _ = net(torch.zeros(1, 10), torch.ones(1, 5, dtype=torch.bool), torch.tensor([2]))
    p = torch.softmax(logits, -1)[0]
    assert torch.allclose(net.hint_weight, torch.full((5,), 3.0))
    assert abs(float(p[2]) - 0.83393) < 1e-4


def test_rollouts_hint_is_the_experts_action_of_each_learner_seats_view():
    """opponents: expert with expert_hint: the hint stored for every learner row is what an
    expert decides from that seat's view (replayed on the Python engine), the rows of the
    opponents hold 0, and the opponents' actions are the Python expert's."""
    cfg = NertsPPOConfig(
        **{**SHORT, "opponents": "expert", "expert_hint": True, "max_steps_per_hand": 400}
    )
    play = Rollouts(cfg)
    net = NertsPolicyNetwork(play.obs_size, play.n_actions, [16], expert_hint=True)
    net.reset_parameters(torch.Generator().manual_seed(0))
    play.start()
    seeds = [int(s) for s in play.engine.game_seeds]
    play.collect(net, np.random.default_rng(0))
    checked = 0
    for e, count in enumerate(play.counts):
        rules = play.rules.replace(num_players=count)
        game, expert = NertsGame(rules, seeds[e]), ExpertNertsAgent(0, rules)
        first = sum(play.counts[:e])
        for t in range(cfg.num_steps):
            want = expert.decide(NertsView.from_game(game, 0))
            assert play.hint[t, first] == want, (e, t)
            assert not play.hint[t, first + 1 : first + count].any()
            for k in range(1, count):  # the opponents (compiled bots) played the expert too
                assert play.act[t, first + k] == expert.decide(NertsView.from_game(game, k))
            checked += 1
            game.step([int(play.act[t, first + k]) for k in range(count)])
            if game.hand_over:
                break
    assert checked > 10


def test_a_hint_run_resumes_exactly_and_its_options_are_checked(tmp_path, capsys):
    cfg = dict(SHORT, total_steps=128, max_steps_per_hand=20, checkpoint_interval=1)
    cfg.update(opponents="expert", reward="win", expert_hint=True, hidden=[16])
    train(NertsPPOConfig(output_dir=str(tmp_path / "whole"), **cfg))
    train(NertsPPOConfig(output_dir=str(tmp_path / "part"), **cfg), stop_after=2)
    assert main(["--resume", str(tmp_path / "part")]) == 0
    whole = read_checkpoint(tmp_path / "whole" / "policy.pt")
    part = read_checkpoint(tmp_path / "part" / "policy.pt")["state_dict"]
    assert whole["network"] == {"hidden": [16], "expert_hint": True}
    assert all(torch.equal(whole["state_dict"][k], part[k]) for k in part)
    assert not torch.equal(  # training moved the hint's weights
        whole["state_dict"]["hint_in"], torch.zeros_like(whole["state_dict"]["hint_in"])
    )
    plain = tmp_path / "plain"
    train(NertsPPOConfig(output_dir=str(plain), hidden=[16], **SHORT))
    for argv, words in [
        (["--pretrain_teacher", "expert"], "expert_hint and pretrain_teacher exclude each other"),
        (["--init_policy", str(plain / "policy.pt")], "hidden, expert_hint"),
        (["--expert_hint", "maybe"], "expert_hint"),
        (["--hint_init", "-1"], "hint_init=-1"),
    ]:
        args = (
            [*argv, "--expert_hint", "true", "--hidden", "[16]"]
            if argv[0] != "--expert_hint"
            else argv
        )
        assert main([*args, "--output_dir", str(tmp_path / "run"), "--total_steps", "64"]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err, (argv, err)
    assert not (tmp_path / "run").exists()
