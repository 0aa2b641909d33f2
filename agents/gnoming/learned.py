"""Learned policies: the policy-value network, masked action distributions, checkpoints.

This module needs torch (``pip install -e ".[train]"``); the rest of ``agents`` does not.

The network (:class:`PolicyNetwork`)
------------------------------------
Input is the observation of :mod:`gnome_env.gnoming.encoding` -- either the float32 vector
(``[B, 1401]``, what the environments and the arena hand a policy) or the compact int16
tokens it is expanded from (``[B, 119]``, what :class:`gnome_env.gnoming.vector.VectorGame`
returns). Both give the same result: the first layer is one weight matrix ``W [1401, H]``;
on floats it is ``obs @ W``, on tokens it sums the rows of ``W`` that the one-hot blocks
select (``embedding_bag``) plus the scaled counts times their rows, which skips the ~1,300
zeros of every observation. Then ``len(hidden) - 1`` more ReLU layers, a policy head (33
logits) and a value head (the acting seat's expected return). One network serves every
seat count: observations are seen from the acting seat and padded to 7 seats.

Masked distribution
-------------------
Illegal actions get the logit ``-1e9`` (:func:`masked_logits`), so their probability is
exactly 0 in float32 and the entropy (:func:`masked_entropy`) runs over legal actions only,
as in sb3-contrib's ``MaskableCategorical``. A single legal action has probability 1,
log-probability 0 and entropy 0. Sampling (:func:`sample_masked`) uses the Gumbel-max
trick with an explicit ``torch.Generator``, never the global one.

Checkpoints
-----------
A checkpoint is a ``torch.save`` of a dict of tensors and plain values (so it loads with
``torch.load(weights_only=True)``): ``format``/``version``, ``env`` (environment name and
package version), ``observation_size``, ``num_tokens``, ``num_actions``, ``rules`` (the
:class:`RulesConfig` dict the observation layout comes from), ``network`` (constructor
arguments), ``state_dict``, and, in training checkpoints, ``training`` (optimizer, config,
counters, random states, games in progress). :func:`write_checkpoint` writes atomically
(temporary file in the same directory, fsync, ``os.replace``): a crash never leaves a
half-written file under the final name. :func:`read_checkpoint` turns every way a file can
be unusable -- missing, not a torch file, corrupt, not one of ours, another observation or
action size -- into a ``ValueError`` that says what is wrong.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from agents.core.checkpoint_io import atomic_write as atomic_write  # re-exported
from agents.core.checkpoint_io import load_torch_file
from agents.core.checkpoint_io import write_checkpoint as write_checkpoint  # re-exported
from agents.gnoming.features import NUM_INPUTS, LayoutFeatures, expert_actions, one_hot
from gnome_env import __version__ as ENV_PACKAGE_VERSION
from gnome_env.core.jit import COMPILED, maybe_njit
from gnome_env.gnoming.actions import NUM_ACTIONS
from gnome_env.gnoming.config import MAX_PLAYERS, MIN_PLAYERS, RulesConfig
from gnome_env.gnoming.encoding import ObservationEncoder

CHECKPOINT_FORMAT = "gnome_env-policy"
CHECKPOINT_VERSION = 1
ENV_NAME = "gnoming_a_round_v1"
MASKED_LOGIT = -1e9
#: From this many first-layer indices a minibatch may skip sorting them (FirstLayer).
STABLE_SORT_FROM = 32768
#: Initial weight of an action's Greedy estimate change in its logit (per point, negated:
#: an action that lowers the estimate by 1 point starts e times likelier).
BIAS_INIT = 1.0
#: Initial weight of the expert hint in its action's logit: with ten legal actions the
#: untrained network samples the expert's move about 2/3 of the time, and its most likely
#: action is always the expert's.
HINT_INIT = 3.0
POLICY_MODES = ("greedy", "sample")


# ---------------------------------------------------------------------- masked distribution
def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with illegal actions (``mask`` False) set to -1e9."""
    return logits.masked_fill(~mask, MASKED_LOGIT)


def masked_log_probs(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the masked categorical distribution (illegal: about -1e9)."""
    return torch.log_softmax(masked_logits(logits, mask), dim=-1)


def masked_entropy(log_probs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Entropy over the legal actions only (0 when a single action is legal).

    The illegal entries (about -1e9) are set to 0 before ``exp``: their terms are dropped
    anyway, and ``exp`` of a huge negative number takes a slow path (about ten times the
    time of the whole row's). Values and gradients are the same floats as without it
    (``tests/gnoming/test_learned.py``).
    """
    illegal = ~mask
    probs = log_probs.masked_fill(illegal, 0.0).exp()
    return -(probs * log_probs).masked_fill(illegal, 0.0).sum(-1)


def sample_masked(
    logits: torch.Tensor, mask: torch.Tensor, generator: torch.Generator | None
) -> torch.Tensor:
    """One action per row from the masked distribution (Gumbel-max), never an illegal one.

    Every row needs at least one legal action.
    """
    u = torch.rand(logits.shape, generator=generator, dtype=torch.float32, device=logits.device)
    gumbel = -torch.log(-torch.log(u.clamp_(1e-20, 1.0 - 1e-7)))
    return torch.argmax(masked_logits(logits.float(), mask) + gumbel, dim=-1)


# ---------------------------------------------------------------------- the network
class NetFeatures(NamedTuple):
    """What a network computes outside torch for a batch (numpy arrays or tensors).

    ``bias [N, 33]`` and ``inputs [N, NUM_INPUTS]`` are :class:`LayoutFeatures` (None
    without ``features``); ``hint [N]`` is the expert's action (None without
    ``expert_hint``). Training computes them once per sample and reuses them in every
    update epoch (:func:`take` picks a minibatch).
    """

    bias: Any
    inputs: Any
    hint: Any

    def take(self, index: Any) -> NetFeatures:
        """The rows ``index`` of every array."""
        return NetFeatures(*(None if x is None else x[index] for x in self))

    def to_torch(self, device: torch.device | str = "cpu") -> NetFeatures:
        """The same features as tensors on ``device``."""
        return NetFeatures(*(None if x is None else torch.as_tensor(x).to(device) for x in self))

    @staticmethod
    def concatenate(parts: Sequence[NetFeatures]) -> NetFeatures:
        """Row-wise concatenation of numpy features (empty parts allowed)."""
        return NetFeatures(
            *(None if xs[0] is None else np.concatenate(xs) for xs in zip(*parts, strict=True))
        )


class TokenInputs(NamedTuple):
    """The first layer's view of a batch of tokens (:meth:`PolicyNetwork.token_inputs`):
    ``rows [B, 71]`` int64, the rows of ``first`` that the one-hot blocks select, and
    ``counts [B, 48]`` float32, the scaled counts (each multiplies its own row)."""

    rows: torch.Tensor
    counts: torch.Tensor

    def take(self, index: Any) -> TokenInputs:
        """The rows ``index`` (a slice keeps views)."""
        return TokenInputs(self.rows[index], self.counts[index])


@maybe_njit
def _scatter_rows(
    order: np.ndarray, rows: np.ndarray, bag: int, grad: np.ndarray, out: np.ndarray
) -> None:  # pragma: no cover - compiled
    """``out[rows[p]] += grad[order[p] // bag]`` for ``p`` in turn (numba): the backward of
    a sum over bags of ``bag`` rows, given the flat row indices sorted (``rows``) and where
    each came from (``order``)."""
    for p in range(order.shape[0]):
        i = order[p] // bag
        r = rows[p]
        for j in range(grad.shape[1]):
            out[r, j] += grad[i, j]


@maybe_njit
def _scatter_bags(rows: np.ndarray, grad: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """``out[rows[i, k]] += grad[i]`` for every ``i``, then ``k`` (numba): each row of
    ``out`` gets its terms in the order of a stable sort of the flat indices."""
    for i in range(rows.shape[0]):
        for k in range(rows.shape[1]):
            r = rows[i, k]
            for j in range(grad.shape[1]):
                out[r, j] += grad[i, j]


@functools.lru_cache(maxsize=64)
def _torch_sort_is_stable(n: int) -> bool:
    """Whether ``torch.sort`` keeps equal int64 values of a 1-D tensor of ``n`` in their
    order. It is the sort ``embedding_bag``'s CPU backward orders its sums by; from
    ``at::internal::GRAIN_SIZE`` (32,768) values up it is a stable radix sort in the
    builds we know, below it ``std::sort``. Checked once per size, on values with many
    repeats (an unstable sort does not keep 32,768 of them in order by chance)."""
    values = torch.from_numpy((np.arange(n, dtype=np.int64) * 7919) % 1009)
    _, order = values.sort()
    return bool(np.array_equal(order.numpy(), np.argsort(values.numpy(), kind="stable")))


def _fast_first_layer(first: torch.Tensor) -> bool:
    """Whether :class:`FirstLayer` serves this call: a gradient is wanted, on the CPU, in
    float32, with numba (without it the scatter would be a slow Python loop)."""
    return (
        COMPILED
        and torch.is_grad_enabled()
        and first.requires_grad
        and first.device.type == "cpu"
        and first.dtype == torch.float32
    )


class FirstLayer(torch.autograd.Function):
    """``embedding_bag(rows, W, "sum") + counts @ W[sc_row]`` with a compiled backward.

    Forward is the same two torch calls as the plain path. Backward adds the output
    gradient of each occurrence of a row to that row in the order of ``torch.sort`` of the
    flat row indices, as ``embedding_bag``'s own CPU backward does: the same additions in
    the same order, so the same floats, two to three times as fast. Where that sort is
    stable (:func:`_torch_sort_is_stable`: 32,768 indices or more, a 512-row minibatch) the
    order is the samples' own and no sort is needed (:func:`_scatter_bags`); otherwise the
    indices are sorted the same way (:func:`_scatter_rows`). Then ``counts.T @ grad`` is added
    at the count rows, which the one-hot rows never touch. ``tests/gnoming/test_learned.py`` checks
    that values and gradients equal the plain path's exactly.
    """

    @staticmethod
    def forward(ctx: Any, rows, counts, weight, sc_row):  # type: ignore[override]
        ctx.save_for_backward(rows, counts, sc_row)
        ctx.shape = weight.shape
        return F.embedding_bag(rows, weight, mode="sum") + counts @ weight[sc_row]

    @staticmethod
    def backward(ctx: Any, grad):  # type: ignore[override]
        rows, counts, sc_row = ctx.saved_tensors
        grad = grad.contiguous()
        out = torch.zeros(ctx.shape, dtype=grad.dtype)
        if rows.numel() >= STABLE_SORT_FROM and _torch_sort_is_stable(rows.numel()):
            _scatter_bags(rows.contiguous().numpy(), grad.numpy(), out.numpy())  # no sort needed
        else:
            flat, order = rows.reshape(-1).sort()
            _scatter_rows(order.numpy(), flat.numpy(), rows.shape[1], grad.numpy(), out.numpy())
        out.index_put_((sc_row,), counts.t().mm(grad), accumulate=True)
        return None, None, out, None


class PolicyNetwork(nn.Module):
    """Policy and value heads over the observation (float32 or tokens); see the module docs."""

    def __init__(
        self,
        rules: RulesConfig | None = None,
        hidden: Sequence[int] = (256, 256),
        features: bool = False,
        expert_hint: bool = False,
    ):
        super().__init__()
        rules = rules if rules is not None else RulesConfig()
        hidden = [int(h) for h in hidden]
        if not hidden or any(h < 1 for h in hidden):
            raise ValueError(f"hidden={hidden!r} is not allowed: a non-empty list of sizes >= 1")
        enc = ObservationEncoder(rules)
        self.hidden = hidden
        self.rules = rules
        self.observation_size = enc.size
        self.num_tokens = enc.num_tokens
        self.num_actions = NUM_ACTIONS
        self.first = nn.Parameter(torch.empty(enc.size, hidden[0]))
        self.first_bias = nn.Parameter(torch.zeros(hidden[0]))
        self.trunk = nn.ModuleList(nn.Linear(a, b) for a, b in itertools.pairwise(hidden))
        self.policy_head = nn.Linear(hidden[-1], NUM_ACTIONS)
        self.value_head = nn.Linear(hidden[-1], 1)
        # Optional Greedy-arithmetic features (agents.gnoming.features): extra first-layer inputs,
        # and each action's estimate change added to its logit with a learned weight.
        self.features = bool(features)
        self.expert_hint = bool(expert_hint)
        self.featurizer = LayoutFeatures(rules) if self.features else None
        # With the expert hint the untrained network follows the expert, so the Greedy
        # bias starts switched off (its weight is still learned).
        self._bias_init = 0.0 if self.expert_hint else -BIAS_INIT
        if self.features:
            self.feature_in = nn.Parameter(torch.zeros(NUM_INPUTS, hidden[0]))
            self.bias_weight = nn.Parameter(torch.full((NUM_ACTIONS,), self._bias_init))
        # Optional expert hint (agents.gnoming.features.expert_actions): the expert's action as a
        # one-hot input and added to its logit with a learned weight per action.
        if self.expert_hint:
            self.hint_in = nn.Parameter(torch.zeros(NUM_ACTIONS, hidden[0]))
            self.hint_weight = nn.Parameter(torch.full((NUM_ACTIONS,), HINT_INIT))
        self._encoder = enc
        # Token layout: which token selects which row of `first` (categorical) or scales one.
        self.register_buffer("cat_tok", torch.as_tensor(enc._cat_tok, dtype=torch.long), False)
        self.register_buffer("cat_off", torch.as_tensor(enc._cat_off, dtype=torch.long), False)
        self.register_buffer("sc_tok", torch.as_tensor(enc._sc_tok, dtype=torch.long), False)
        self.register_buffer("sc_row", torch.as_tensor(enc._sc_out, dtype=torch.long), False)
        # The scale of a count can depend on the seat count (turns_played / R17 turn cap):
        # one row of scales per seat count, picked by the tokens' "present" flags.
        scales = np.zeros((MAX_PLAYERS + 1, len(enc._sc_scale)), dtype=np.float32)
        for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
            scales[n] = ObservationEncoder(rules.replace(num_players=n))._sc_scale
        self.register_buffer("sc_scale", torch.as_tensor(scales), False)
        self.register_buffer(
            "present_tok",
            torch.arange(enc.token_slices["present"].start, enc.token_slices["present"].stop),
            False,
        )

    def reset_parameters(self, generator: torch.Generator | None = None) -> None:
        """Orthogonal initialisation (gains as in CleanRL's PPO), from ``generator``."""
        root2 = float(np.sqrt(2.0))
        nn.init.orthogonal_(self.first.data.T, root2, generator=generator)
        nn.init.zeros_(self.first_bias)
        for layer in self.trunk:
            nn.init.orthogonal_(layer.weight, root2, generator=generator)
            nn.init.zeros_(layer.bias)
        nn.init.orthogonal_(self.policy_head.weight, 0.01, generator=generator)
        nn.init.zeros_(self.policy_head.bias)
        nn.init.orthogonal_(self.value_head.weight, 1.0, generator=generator)
        nn.init.zeros_(self.value_head.bias)
        if self.features:
            nn.init.orthogonal_(self.feature_in.data.T, root2, generator=generator)
            nn.init.constant_(self.bias_weight, self._bias_init)
        if self.expert_hint:
            nn.init.orthogonal_(self.hint_in.data.T, root2, generator=generator)
            nn.init.constant_(self.hint_weight, HINT_INIT)

    @property
    def uses_features(self) -> bool:
        """Whether the network needs :meth:`feature_arrays` (features or expert hint)."""
        return self.features or self.expert_hint

    def feature_arrays(
        self, tokens: np.ndarray, masks: np.ndarray | None = None, hint: np.ndarray | None = None
    ) -> NetFeatures | None:
        """The :class:`NetFeatures` of int tokens ``[B, T]`` (numpy), or None if the network
        takes none. The expert hint needs the masks, or the expert's actions as ``hint``."""
        if not self.uses_features:
            return None
        bias = inputs = None
        if self.featurizer is not None:
            bias, inputs = self.featurizer(tokens)
        if self.expert_hint:
            if hint is None:
                if masks is None:
                    raise ValueError("a network with expert_hint needs the action masks")
                hint = expert_actions(tokens, masks, self.rules)
            hint = np.asarray(hint, dtype=np.int64)
        else:
            hint = None
        return NetFeatures(bias, inputs, hint)

    def _heads(
        self, h: torch.Tensor, feats: NetFeatures | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        bias = None
        if self.uses_features:
            assert feats is not None
            device = h.device
            if self.features:
                x = torch.as_tensor(feats.inputs).to(device)
                h = h + x @ self.feature_in
                bias = torch.as_tensor(feats.bias).to(device) * self.bias_weight
            if self.expert_hint:
                hint = torch.as_tensor(feats.hint).to(device)
                h = h + self.hint_in[hint]
                hot = F.one_hot(hint, NUM_ACTIONS).to(h.dtype) * self.hint_weight
                bias = hot if bias is None else bias + hot
        h = F.relu(h + self.first_bias)
        for layer in self.trunk:
            h = F.relu(layer(h))
        logits = self.policy_head(h)
        if bias is not None:
            logits = logits + bias
        return logits, self.value_head(h).squeeze(-1)

    def forward(
        self,
        observation: torch.Tensor,
        masks: torch.Tensor | None = None,
        feats: NetFeatures | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits ``[B, 33]``, value ``[B]``) from float observations ``[B, 1401]``.

        A network with features computes them from the observation (decoded back to
        tokens) unless ``feats`` are given; the expert hint also needs ``masks``.
        """
        if self.uses_features and feats is None:
            tokens = self._encoder.decode(observation.detach().cpu().numpy())
            feats = self.feature_arrays(tokens, _numpy(masks))
        return self._heads(observation @ self.first, feats)

    def forward_tokens(
        self,
        tokens: torch.Tensor,
        masks: torch.Tensor | None = None,
        feats: NetFeatures | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits, value) from int16 tokens ``[B, 119]``; equals ``forward(expand(tokens))``.

        ``feats``: precomputed :meth:`feature_arrays` of these rows (else computed here;
        the expert hint also needs ``masks``).
        """
        if self.uses_features and feats is None:
            feats = self.feature_arrays(tokens.detach().cpu().numpy(), _numpy(masks))
        return self.forward_inputs(self.token_inputs(tokens), feats)

    def token_inputs(self, tokens: torch.Tensor) -> TokenInputs:
        """What the first layer reads from int tokens ``[B, 119]`` (:class:`TokenInputs`).

        A pure function of the tokens, so training computes it once per rollout sample and
        slices it per minibatch (:func:`training.gnoming.ppo.update.ppo_update`).
        """
        with torch.no_grad():
            tokens = tokens.long()
            rows = tokens[:, self.cat_tok] + self.cat_off
            players = tokens[:, self.present_tok].sum(1)
            counts = tokens[:, self.sc_tok].float() * self.sc_scale[players]
        return TokenInputs(rows, counts)

    def forward_inputs(
        self, inputs: TokenInputs, feats: NetFeatures | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits, value) from :meth:`token_inputs`; the network's features must be given
        (``feats``) if it uses any. ``forward_tokens`` is ``forward_inputs(token_inputs)``.

        The first layer sums the rows of ``first`` that ``inputs.rows`` select
        (``embedding_bag``) and adds ``inputs.counts @ first[sc_row]``. When a gradient is
        wanted on the CPU with numba, :class:`FirstLayer` computes the same sum and scatters
        its gradient with a compiled loop, about twice as fast as ``embedding_bag``'s own
        backward, with the same values and gradients to the bit (``tests/gnoming/test_learned.py``).
        """
        rows, counts = inputs
        if self.uses_features and feats is None:
            raise ValueError("this network uses features: pass feats (feature_arrays)")
        first = self.first
        if _fast_first_layer(first):
            h = FirstLayer.apply(rows, counts, first, self.sc_row)
        else:
            h = F.embedding_bag(rows, first, mode="sum") + counts @ first[self.sc_row]
        return self._heads(h, feats)

    def describe(self) -> dict[str, Any]:
        """Constructor arguments, for checkpoints."""
        out: dict[str, Any] = {"hidden": list(self.hidden)}
        if self.features:  # absent in checkpoints of networks without them
            out["features"] = True
        if self.expert_hint:
            out["expert_hint"] = True
        return out


def _numpy(x: Any) -> np.ndarray | None:
    if x is None:
        return None
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


# ---------------------------------------------------------------------- checkpoint files
def checkpoint_header(network: PolicyNetwork) -> dict[str, Any]:
    """The part of a checkpoint that says what it is and what it fits."""
    return {
        "format": CHECKPOINT_FORMAT,
        "version": CHECKPOINT_VERSION,
        "env": {"name": ENV_NAME, "package_version": ENV_PACKAGE_VERSION},
        "observation_size": network.observation_size,
        "num_tokens": network.num_tokens,
        "num_actions": network.num_actions,
        "rules": network.rules.to_dict(),
        "network": network.describe(),
        "state_dict": network.state_dict(),
    }


def read_checkpoint(path: str | Path, rules: RulesConfig | None = None) -> dict[str, Any]:
    """Load and check a checkpoint (``weights_only=True``); any problem is a ``ValueError``.

    With ``rules``, the checkpoint must also fit observations under those rules (same
    observation size, i.e. the same deck's number of card kinds).
    """
    data, where = load_torch_file(path)
    if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(
            f"{where} is not a gnome_env policy checkpoint (expected a dict with "
            f"format={CHECKPOINT_FORMAT!r}, as written by gnome train)"
        )
    if data.get("version") != CHECKPOINT_VERSION:
        raise ValueError(
            f"{where} has checkpoint version {data.get('version')!r}; this gnome_env reads "
            f"version {CHECKPOINT_VERSION}"
        )
    missing = [
        key
        for key in ("observation_size", "num_actions", "rules", "network", "state_dict")
        if key not in data
    ]
    if missing:
        raise ValueError(f"{where} lacks {', '.join(missing)}: the file is incomplete")
    if data["num_actions"] != NUM_ACTIONS:
        raise ValueError(
            f"{where} has {data['num_actions']} actions; this environment has {NUM_ACTIONS}"
        )
    try:
        saved_rules = RulesConfig.from_dict(data["rules"])
    except (ValueError, TypeError) as err:
        raise ValueError(f"{where} holds rules this gnome_env cannot use: {err}") from None
    size = ObservationEncoder(saved_rules).size
    if data["observation_size"] != size:
        raise ValueError(
            f"{where} says observation size {data['observation_size']} but its rules give "
            f"{size}: the file is inconsistent"
        )
    if rules is not None:
        wanted = ObservationEncoder(rules).size
        if wanted != size:
            raise ValueError(
                f"{where} was trained on observations of size {size}; the rules in use give "
                f"size {wanted} (another deck): it cannot play these games"
            )
    return data


def network_from_checkpoint(data: dict[str, Any], where: str = "checkpoint") -> PolicyNetwork:
    """The :class:`PolicyNetwork` a checked checkpoint dict describes, with its weights."""
    try:
        net = PolicyNetwork(RulesConfig.from_dict(data["rules"]), **data["network"])
        net.load_state_dict(data["state_dict"])
    except (TypeError, ValueError, RuntimeError, KeyError) as err:
        raise ValueError(f"{where} does not hold a usable network: {err}") from None
    net.eval()
    return net


# ---------------------------------------------------------------------- the agent
def _numpy_layers(net: PolicyNetwork) -> tuple[Any, ...]:
    """The policy path's weights as float32 numpy arrays (``x @ w + b`` per layer)."""

    def arr(t: torch.Tensor) -> np.ndarray:
        return t.detach().cpu().numpy().astype(np.float32)

    return (
        arr(net.first),
        arr(net.first_bias),
        [(arr(layer.weight).T.copy(), arr(layer.bias)) for layer in net.trunk],
        (arr(net.policy_head.weight).T.copy(), arr(net.policy_head.bias)),
        (arr(net.feature_in), arr(net.bias_weight)) if net.features else None,
        (arr(net.hint_in), arr(net.hint_weight)) if net.expert_hint else None,
    )


_NETWORK_CACHE: dict[tuple[str, int, int], PolicyNetwork] = {}


class PolicyAgent:
    """A learned policy as an agent: ``act(observation, mask)`` over float observations.

    ``mode="greedy"`` plays the most likely legal action; ``"sample"`` samples the masked
    distribution from a generator seeded with ``seed``.
    """

    def __init__(
        self, network: PolicyNetwork, *, mode: str = "greedy", seed: int | None = None
    ) -> None:
        if mode not in POLICY_MODES:
            raise ValueError(f"mode={mode!r} is not allowed: must be one of {POLICY_MODES}")
        self.network = network.eval()
        self.mode = mode
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self._layers = _numpy_layers(network)

    @classmethod
    def load(
        cls,
        path: str | Path,
        *,
        mode: str = "greedy",
        seed: int | None = None,
        config: RulesConfig | None = None,
    ) -> PolicyAgent:
        """The policy in checkpoint ``path`` (see :func:`read_checkpoint` for the errors).

        The network is read once per file version and shared by every agent built from it
        (the arena builds a fresh agent for every game).
        """
        resolved = Path(path).resolve()
        try:
            stat = resolved.stat()
            key = (str(resolved), stat.st_mtime_ns, stat.st_size)
        except OSError:
            key = None
        net = _NETWORK_CACHE.get(key) if key is not None else None
        if net is None:
            data = read_checkpoint(path, config)
            net = network_from_checkpoint(data, f"checkpoint {str(path)!r}")
            if key is not None:
                _NETWORK_CACHE[key] = net
        elif config is not None and ObservationEncoder(config).size != net.observation_size:
            read_checkpoint(path, config)  # raises the size error
        return cls(net, mode=mode, seed=seed)

    def distribution(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Action probabilities ``[33]`` (0 for illegal actions) for one observation."""
        legal = np.asarray(mask, dtype=bool)
        if legal.shape != (NUM_ACTIONS,) or not legal.any():
            raise ValueError(f"mask must be {NUM_ACTIONS} booleans with a legal action")
        obs = np.asarray(observation, dtype=np.float32)
        if obs.shape != (self.network.observation_size,):
            raise ValueError(
                f"observation has shape {obs.shape}; this policy takes "
                f"({self.network.observation_size},)"
            )
        # One observation: numpy on the ~100 non-zero entries is ~10x faster than a torch
        # call and never waits for torch's thread pool (tests compare it with forward()).
        first, first_bias, trunk, (pw, pb), feat, hint = self._layers
        nz = np.flatnonzero(obs)
        h = obs[nz] @ first[nz] + first_bias
        bias = 0.0
        if self.network.uses_features:
            tokens = self.network._encoder.decode(obs[None])
            feats = self.network.feature_arrays(tokens, legal[None])
            assert feats is not None
            if feat is not None:
                h = h + feats.inputs[0] @ feat[0]
                bias = feats.bias[0] * feat[1]
            if hint is not None:
                a = int(feats.hint[0])
                h = h + hint[0][a]
                bias = bias + one_hot(feats.hint)[0] * hint[1]
        h = np.maximum(h, 0.0)
        for w, b in trunk:
            h = np.maximum(h @ w + b, 0.0)
        logits = np.where(legal, h @ pw + pb + bias, -np.inf)
        z = np.exp(logits - logits.max())
        return (z / z.sum()).astype(np.float32)

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """A legal action: the most likely one, or sampled (``mode``)."""
        probs = self.distribution(observation, mask)
        legal = np.asarray(mask, dtype=bool)
        if self.mode == "greedy":
            return int(np.argmax(np.where(legal, probs, -1.0)))
        choices = np.flatnonzero(legal)
        p = probs[choices].astype(np.float64)
        return int(choices[self.rng.choice(choices.size, p=p / p.sum())])

    def __repr__(self) -> str:
        return f"PolicyAgent(hidden={self.network.hidden}, mode={self.mode!r}, seed={self.seed!r})"
