"""A learned Nerts policy: the network, its checkpoints, and the agent that plays it.

Needs torch. The network is an MLP over the ``nerts_v0`` observation (the same size for
every player count), with a policy head over the N36 action table and a value head. With
``expert_hint`` it also takes the **expert hint**: the action the ``expert`` bot
(:mod:`agents.nerts.expert`) would play, decided from the same seat's view (so from public
information only, N34), enters the first layer as a one-hot input and adds a learned
per-action weight (initially :data:`HINT_INIT`) to that action's logit: the untrained
network's most likely action is the expert's, and training learns where to deviate (the
residual policy of Gnoming's ``ppo_hint_3to7``). With ``memory`` the first layer also
reads the seat's memory features (:func:`agents.nerts.memory.memory_features`: the
remembered cards that its next turns and plays would show, N35), and the agent keeps the
seat's :class:`~agents.nerts.memory.WasteMemory` from every view it decides on. The
agent (:class:`NertsPolicyAgent`, spec ``ppo:PATH`` in the Nerts registry) decides from a
:class:`gnome_env.nerts.information.NertsView` -- the observation is built from the view
(:class:`gnome_env.nerts.encoding.NertsEncoder`, the env's own encoder), so it sees what
its seat may know only --
and plays its most likely legal action (``sample=True``: samples it, seeded).

A checkpoint is a ``torch.save`` dict of plain values and tensors (``weights_only`` loads):
``format`` ``gnome_env-nerts-policy``, ``version``, ``observation_size``, ``num_actions``,
``rules`` (the :class:`NertsConfig` dict of the table sizes it was trained on), ``network``
(constructor arguments), ``state_dict``, and ``training`` (the run's config and counters).
:func:`read_checkpoint` turns every unusable file into a ``ValueError`` saying why.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.core.checkpoint_io import check_policy_header, load_torch_file, policy_payload
from agents.core.checkpoint_io import write_checkpoint as write_checkpoint  # re-exported
from agents.nerts.memory import MEMORY_FEATURES, WasteMemory, memory_features
from gnome_env.nerts.config import NertsConfig

CHECKPOINT_FORMAT = "gnome_env-nerts-policy"
CHECKPOINT_VERSION = 1
MASKED_LOGIT = -1e9
#: Initial weight of the expert hint in its action's logit: with ten legal actions the
#: untrained network samples the expert's move about 94% of the time (a Nerts hand is a race
#: of hundreds of steps, so exploration has to be rarer than in Gnoming), and its most
#: likely action is always the expert's.
HINT_INIT = 5.0


class NertsPolicyNetwork(nn.Module):
    """MLP trunk -> (logits over the N36 actions, value); with ``expert_hint`` the expert's
    action is a one-hot input of the first layer and a bonus on its logit (module docs)."""

    def __init__(
        self,
        observation_size: int,
        num_actions: int,
        hidden: Sequence[int] = (256, 256),
        expert_hint: bool = False,
        hint_init: float = HINT_INIT,
        memory: bool = False,
        scorer: int = 0,
    ):
        super().__init__()
        self.observation_size = int(observation_size)
        if not isinstance(memory, bool):
            raise ValueError(f"memory={memory!r} is not allowed: true or false")
        self.memory = memory
        #: what the first layer reads: the observation, then with ``memory`` the seat's
        #: memory features (:func:`agents.nerts.memory.memory_features`)
        self.input_size = self.observation_size + (MEMORY_FEATURES if memory else 0)
        self.num_actions = int(num_actions)
        self.hidden = [int(h) for h in hidden]
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden={hidden!r} is not allowed: a non-empty list of sizes >= 1")
        if not isinstance(expert_hint, bool):
            raise ValueError(f"expert_hint={expert_hint!r} is not allowed: true or false")
        self.expert_hint = expert_hint
        if not (isinstance(hint_init, (int, float)) and 0.0 <= float(hint_init) <= 50.0):
            raise ValueError(f"hint_init={hint_init!r} is not allowed: a number in [0, 50]")
        self.hint_init = float(hint_init)
        layers: list[nn.Module] = []
        width = self.input_size
        for h in self.hidden:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.policy = nn.Linear(width, self.num_actions)
        self.value = nn.Linear(width, 1)
        if isinstance(scorer, bool) or not isinstance(scorer, int) or not 0 <= scorer <= 1024:
            raise ValueError(f"scorer={scorer!r} is not allowed: a width in 1..1024, or 0 (none)")
        #: width of the per-action scoring head (:mod:`agents.nerts.action_scorer`; 0: none)
        self.scorer = scorer
        self.scorer_head = None
        if scorer:
            from agents.nerts.action_scorer import ActionScorer, table_sizes
            from gnome_env.nerts.config import NertsConfig

            w, j = table_sizes(self.observation_size, self.num_actions)
            rules = NertsConfig(work_piles=w, jokers=j)
            self.scorer_head = ActionScorer(rules, width, scorer, memory)
        if self.expert_hint:
            self.hint_in = nn.Parameter(torch.zeros(self.num_actions, self.hidden[0]))
            self.hint_weight = nn.Parameter(torch.full((self.num_actions,), self.hint_init))

    def reset_parameters(self, generator: torch.Generator) -> None:
        """Orthogonal init from an explicit generator (CleanRL's gains: sqrt 2, 0.01, 1)."""
        gains = [2**0.5] * len(self.hidden)
        linears = [m for m in self.trunk if isinstance(m, nn.Linear)]
        for layer, gain in [
            *zip(linears, gains, strict=True),
            (self.policy, 0.01),
            (self.value, 1.0),
        ]:
            flat = torch.randn(layer.weight.shape, generator=generator)
            q, r = torch.linalg.qr(flat if flat.shape[0] >= flat.shape[1] else flat.T)
            q = q * torch.sign(torch.diagonal(r))
            weight = q if flat.shape[0] >= flat.shape[1] else q.T
            with torch.no_grad():
                layer.weight.copy_(gain * weight)
                layer.bias.zero_()
        if self.expert_hint:  # the hint's input rows start at zero: the trunk sees the obs
            with torch.no_grad():
                self.hint_in.zero_()
                self.hint_weight.fill_(self.hint_init)
        if self.scorer_head is not None:
            self.scorer_head.reset_parameters(generator)

    def forward(
        self, obs: torch.Tensor, mask: torch.Tensor, hint: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(masked logits, value) for a batch of observations and boolean masks; ``hint``
        (int64 ``[B]``, the expert's action ids) is required with ``expert_hint``."""
        if not self.expert_hint:
            z = self.trunk(obs)
            logits = self.policy(z)
        else:
            if hint is None:
                raise ValueError("a network with expert_hint needs the expert's actions (hint)")
            first = self.trunk[0]
            z = first(obs) + self.hint_in[hint]
            z = self.trunk[1:](torch.relu(z))
            bonus = nn.functional.one_hot(hint, self.num_actions).to(z.dtype) * self.hint_weight
            logits = self.policy(z) + bonus
        if self.scorer_head is not None:
            logits = logits + self.scorer_head(obs, z, mask)
        return logits.masked_fill(~mask, MASKED_LOGIT), self.value(z).squeeze(-1)

    def describe(self) -> dict[str, Any]:
        """Constructor arguments, for checkpoints (``expert_hint`` and ``memory`` only when
        on, so that older checkpoints and plain networks read the same)."""
        out: dict[str, Any] = {"hidden": list(self.hidden)}
        if self.expert_hint:
            out["expert_hint"] = True
        if self.memory:
            out["memory"] = True
        if self.scorer:
            out["scorer"] = self.scorer
        return out


def table_rules(config: NertsConfig) -> dict[str, int]:
    """The rule fields that fix the observation and action sizes."""
    return {"jokers": config.jokers, "work_piles": config.work_piles}


def checkpoint_payload(net: NertsPolicyNetwork, config: NertsConfig, training: dict) -> dict:
    """What :func:`write_checkpoint` stores for ``net``."""
    return policy_payload(CHECKPOINT_FORMAT, CHECKPOINT_VERSION, net, table_rules(config), training)


def read_checkpoint(path: str | Path) -> dict[str, Any]:
    """Load and check a Nerts policy checkpoint; any problem is a ``ValueError``."""
    data, where = load_torch_file(path)
    return check_policy_header(
        data, where, CHECKPOINT_FORMAT, CHECKPOINT_VERSION, "Nerts", "training/nerts/ppo.py"
    )


def network_from_checkpoint(data: dict[str, Any], where: str = "checkpoint") -> nn.Module:
    """Rebuild the network of a checked checkpoint dict: a :class:`NertsPolicyNetwork`, or
    with ``network.kind`` ``turn_gate`` an :class:`agents.nerts.turn_gate.NertsTurnGate`
    (the same interface)."""
    try:
        network = dict(data["network"])
        if network.pop("kind", None) == "turn_gate":
            from agents.nerts.turn_gate import NertsTurnGate

            net = NertsTurnGate(data["observation_size"], data["num_actions"], **network)
        else:
            net = NertsPolicyNetwork(data["observation_size"], data["num_actions"], **network)
    except (TypeError, ValueError) as err:
        raise ValueError(
            f"{where}: unusable network description {data['network']!r}: {err}"
        ) from None
    try:
        net.load_state_dict(data["state_dict"])
    except (RuntimeError, KeyError) as err:
        raise ValueError(f"{where}: weights do not fit the network: {str(err)[:200]}") from None
    net.eval()
    return net


class NertsPolicyAgent:
    """Plays a Nerts checkpoint from a seat's :class:`NertsView` (most likely legal action,
    or sampled with ``sample=True``)."""

    def __init__(
        self,
        path: str | Path,
        seed: int = 0,
        config: NertsConfig | None = None,
        sample: bool = False,
    ):
        from gnome_env.nerts.encoding import NertsEncoder

        config = config or NertsConfig()
        self.encoder = NertsEncoder(config)
        data = read_checkpoint(path)
        where = f"checkpoint {str(path)!r}"
        if data["rules"] != table_rules(config):
            raise ValueError(
                f"{where} was trained with {data['rules']}; these rules have {table_rules(config)} "
                "(the observation and action sizes differ)"
            )
        if data["observation_size"] != self.encoder.size or data["num_actions"] != config.n_actions:
            raise ValueError(f"{where} does not fit these rules' observation/action sizes")
        self.net = network_from_checkpoint(data, where)
        self.hinter = None
        if self.net.expert_hint:
            from agents.nerts.expert import ExpertNertsAgent

            self.hinter = ExpertNertsAgent(seed, config)
        self.config = config
        self.sample = bool(sample)
        self.rng = np.random.default_rng(seed)
        self.path = str(path)
        #: a network with ``memory`` reads what this seat remembers of the waste tops
        #: (N35): the agent watches every step's view (``decide`` is called every step)
        self.memory = WasteMemory() if self.net.memory else None

    def distribution(self, view: Any) -> np.ndarray:
        """Action probabilities (0 for illegal ids) from a seat's view."""
        x = self.encoder.encode(view)
        if self.memory is not None:
            x = np.concatenate([x, memory_features(self.memory, view)])
        obs = torch.as_tensor(x, dtype=torch.float32)[None]
        mask = torch.zeros((1, self.config.n_actions), dtype=torch.bool)
        mask[0, list(view.legal_actions)] = True
        hint = None
        if self.hinter is not None:  # the expert's choice from this same view
            hint = torch.tensor([int(self.hinter.decide(view))], dtype=torch.long)
        with torch.no_grad():
            logits, _ = self.net(obs, mask, hint)
            return torch.softmax(logits, -1)[0].numpy().astype(np.float64)

    def decide(self, view: Any) -> int:
        """The chosen action id for the seat's view."""
        if self.memory is not None:
            self.memory.observe(view)
        if len(view.legal_actions) == 1:
            return int(view.legal_actions[0])
        p = self.distribution(view)
        if self.sample:
            return int(self.rng.choice(len(p), p=p / p.sum()))
        return int(np.argmax(p))

    def __repr__(self) -> str:
        return f"NertsPolicyAgent({self.path!r}, sample={self.sample})"
