"""training.gnoming.ensemble: the packed network's logits and value are the mean of its members'
(also for members of different widths), it loads as a ppo: policy, and members that do
not fit are clear errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.gnoming.learned import (  # noqa: E402
    PolicyNetwork,
    checkpoint_header,
    network_from_checkpoint,
    read_checkpoint,
    write_checkpoint,
)
from gnome_env.gnoming.config import RulesConfig  # noqa: E402
from gnome_env.gnoming.vector import VectorGame  # noqa: E402
from training.gnoming.ensemble import main, pack_ensemble  # noqa: E402

SHIPPED = Path(__file__).resolve().parents[2] / "agents/policies/distill2_3to7/policy.pt"


def positions(n_steps: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Tokens and masks of real decisions, 3-7 seats."""
    vec = VectorGame(RulesConfig(), 16, num_players=[3, 4, 5, 6, 7])
    decision = vec.reset(seed=5)
    rng = np.random.default_rng(5)
    tokens, masks = [], []
    for _ in range(n_steps):
        tokens.append(decision.tokens.copy())
        masks.append(decision.mask.copy())
        decision = vec.step(vec.sample_actions(rng))
    return np.concatenate(tokens), np.concatenate(masks)


def random_member(hidden: list[int], seed: int, **inputs) -> PolicyNetwork:
    net = PolicyNetwork(RulesConfig(), hidden, **inputs)
    net.reset_parameters(torch.Generator().manual_seed(seed))
    with torch.no_grad():  # make every part of the network matter
        for p in net.parameters():
            p.add_(0.05 * torch.randn(p.shape, generator=torch.Generator().manual_seed(seed)))
    return net.eval()


def test_packed_logits_and_value_are_the_members_mean():
    shipped = network_from_checkpoint(read_checkpoint(SHIPPED))
    other = random_member([96, 48], 1, features=True, expert_hint=True)
    third = random_member([32, 16], 2, features=True, expert_hint=True)
    members = [shipped, other, third]
    packed = pack_ensemble(members)
    assert packed.hidden == [256 + 96 + 32, 256 + 48 + 16]
    tok, masks = positions()
    t, m = torch.as_tensor(tok), torch.as_tensor(masks)
    with torch.no_grad():
        outs = [net.forward_tokens(t, m) for net in members]
        logits, value = packed.forward_tokens(t, m)
    mean_logits = torch.stack([o[0] for o in outs]).mean(0)
    mean_value = torch.stack([o[1] for o in outs]).mean(0)
    torch.testing.assert_close(logits, mean_logits, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(value, mean_value, atol=1e-5, rtol=1e-5)
    # and it is not simply one member's output
    assert (outs[0][0] - outs[1][0]).abs().max() > 0.1


def test_members_that_do_not_fit_are_clear_errors():
    base = random_member([32, 32], 0, features=True, expert_hint=True)
    with pytest.raises(ValueError, match="other inputs"):
        pack_ensemble([base, random_member([32, 32], 1, features=True)])
    with pytest.raises(ValueError, match="same depth"):
        pack_ensemble([base, random_member([32], 1, features=True, expert_hint=True)])
    with pytest.raises(ValueError, match="at least one"):
        pack_ensemble([])


def test_the_command_writes_a_loadable_policy_and_refuses_a_bad_member(tmp_path, capsys):
    from agents.gnoming.learned import PolicyAgent

    a, b = tmp_path / "a.pt", tmp_path / "b.pt"
    write_checkpoint(checkpoint_header(random_member([32, 24], 3, features=True)), a)
    write_checkpoint(checkpoint_header(random_member([16, 8], 4, features=True)), b)
    out = tmp_path / "ens.pt"
    assert main(["--out", str(out), str(a), str(b)]) == 0
    assert "packed 2 networks" in capsys.readouterr().out
    PolicyAgent.load(out)  # loads as a ppo: policy
    packed = network_from_checkpoint(read_checkpoint(out))
    assert packed.hidden == [48, 32]
    bad = tmp_path / "bad.pt"
    bad.write_text("not a checkpoint")
    assert main(["--out", str(tmp_path / "x.pt"), str(a), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "error:" in err and "bad.pt" in err
    assert not (tmp_path / "x.pt").exists()
