"""A policy network's decision inside compiled code: rollouts where a seat plays the network.

:func:`network_tables` turns a :class:`~agents.gnoming.learned.PolicyNetwork` into a tuple of numpy
arrays, and :func:`net_action` (numba) plays its most likely legal action from one seat's
observation tokens and legal mask -- what ``ppo:PATH`` (greedy mode) plays, computed
from the tokens the kernels write (:func:`gnome_env.gnoming._kernels.write_seat_tokens`) instead
of the float observation. The first layer sums the rows of ``first`` that the one-hot
tokens select plus the scaled counts times their rows (as
:meth:`~agents.gnoming.learned.PolicyNetwork.forward_tokens`), the Greedy features come from the
same compiled loop as training's (:func:`agents.gnoming.features._features_kernel`), the Expert
hint from the compiled Expert (:func:`agents.gnoming.expert_kernel.expert_decide`); then the
ReLU layers and the policy head. Only the sums' order differs from torch, so the logits
agree to float32 rounding (``tests/gnoming/test_net_kernel.py``) and the action is the same but
for near-exact ties.

It is what lets rollouts use the learned policy for the searching seat
(:func:`agents.gnoming.rollout_search.evaluate` with ``net``): a few tens of microseconds per
decision on one core, against a few for the compiled Expert.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.gnoming.expert_kernel import expert_decide
from agents.gnoming.features import NUM_INPUTS, LayoutFeatures, _features_kernel
from gnome_env.gnoming import _kernels as K
from gnome_env.gnoming.actions import NUM_ACTIONS
from gnome_env.gnoming.config import MAX_PLAYERS


def network_tables(net: Any) -> tuple:
    """The arrays :func:`net_action` reads, from a ``PolicyNetwork`` (float32 weights).

    Every hidden layer must have the same size (all shipped networks do); a network
    without features or without the Expert hint gets zero-sized stand-ins and a flag.
    """
    hidden = [int(h) for h in net.hidden]
    if len(set(hidden)) != 1:
        raise ValueError(
            f"network_tables needs hidden layers of one size, got {hidden}: "
            "the compiled forward stacks them"
        )
    size = hidden[0]

    def arr(t: Any, dtype: Any = np.float32) -> np.ndarray:
        return np.ascontiguousarray(t.detach().cpu().numpy().astype(dtype))

    trunk_w = np.zeros((len(net.trunk), size, size), dtype=np.float32)
    trunk_b = np.zeros((len(net.trunk), size), dtype=np.float32)
    for i, layer in enumerate(net.trunk):
        trunk_w[i] = arr(layer.weight).T
        trunk_b[i] = arr(layer.bias)
    lf = LayoutFeatures(net.rules)  # its tables are passed along even when unused
    if net.features:
        feature_in, bias_weight = arr(net.feature_in), arr(net.bias_weight)
    else:
        feature_in = np.zeros((NUM_INPUTS, size), dtype=np.float32)
        bias_weight = np.zeros(NUM_ACTIONS, dtype=np.float32)
    if net.expert_hint:
        hint_in, hint_weight = arr(net.hint_in), arr(net.hint_weight)
    else:
        hint_in = np.zeros((NUM_ACTIONS, size), dtype=np.float32)
        hint_weight = np.zeros(NUM_ACTIONS, dtype=np.float32)
    return (
        arr(net.first),
        arr(net.first_bias),
        trunk_w,
        trunk_b,
        np.ascontiguousarray(arr(net.policy_head.weight).T),
        arr(net.policy_head.bias),
        feature_in,
        bias_weight,
        hint_in,
        hint_weight,
        np.int64(1 if net.features else 0),
        np.int64(1 if net.expert_hint else 0),
        arr(net.cat_tok, np.int64),
        arr(net.cat_off, np.int64),
        arr(net.sc_tok, np.int64),
        arr(net.sc_row, np.int64),
        arr(net.sc_scale),
        arr(net.present_tok, np.int64),
        *lf.kernel_tables(),  # in the order _features_kernel takes them
    )


def net_scratch(tables: tuple) -> tuple:
    """Work arrays for :func:`net_action` (the kernels allocate nothing per decision)."""
    size = tables[0].shape[1]
    return (
        np.zeros(size, dtype=np.float32),
        np.zeros(size, dtype=np.float32),
        np.zeros(NUM_ACTIONS, dtype=np.float32),
        np.zeros((1, NUM_ACTIONS), dtype=np.float32),
        np.zeros((1, NUM_INPUTS), dtype=np.float32),
        np.zeros(9, dtype=np.int64),
        np.zeros((3, 9), dtype=np.float64),
    )


@K.maybe_njit
def net_logits(tokens, legal, wf, wi, tables, scratch):  # pragma: no cover - compiled
    """The policy logits of one token row into ``scratch[2]`` (illegal actions included).

    ``wf``/``wi``: the compiled Expert's tables (for the hint)."""
    (
        first, first_bias, trunk_w, trunk_b, head_w, head_b, feature_in, bias_weight,
        hint_in, hint_weight, use_features, use_hint, cat_tok, cat_off, sc_tok, sc_row,
        sc_scale, present_tok, f_layouts, f_hand, f_tops, f_us, f_ue, f_kind_points,
        f_line, f_matches, f_c, f_points, f_positive, f_line_index, f_mulligan,
    ) = tables  # fmt: skip
    h, h2, logits, fbias, finputs, fcat, fchange = scratch
    size = first.shape[1]
    for j in range(size):
        h[j] = 0.0
    for k in range(cat_tok.shape[0]):
        r = tokens[cat_tok[k]] + cat_off[k]
        for j in range(size):
            h[j] += first[r, j]
    players = 0
    for k in range(present_tok.shape[0]):
        players += tokens[present_tok[k]]
    players = min(max(players, 0), MAX_PLAYERS)
    for k in range(sc_tok.shape[0]):
        c = np.float32(tokens[sc_tok[k]]) * sc_scale[players, k]
        if c != 0.0:
            r = sc_row[k]
            for j in range(size):
                h[j] += c * first[r, j]
    hint = -1
    if use_features != 0:
        for a in range(NUM_ACTIONS):
            fbias[0, a] = 0.0
        _features_kernel(
            tokens.reshape(1, tokens.shape[0]), f_layouts, f_hand, f_tops, f_us, f_ue,
            f_kind_points, f_line, f_matches, f_c, f_points, f_positive, f_line_index,
            f_mulligan, fbias, finputs, fcat, fchange,
        )  # fmt: skip
        for i in range(finputs.shape[1]):
            x = finputs[0, i]
            if x != 0.0:
                for j in range(size):
                    h[j] += x * feature_in[i, j]
    if use_hint != 0:
        hint = expert_decide(tokens, legal, wf, wi)
        for j in range(size):
            h[j] += hint_in[hint, j]
    for j in range(size):
        h[j] = max(h[j] + first_bias[j], np.float32(0.0))
    for layer in range(trunk_w.shape[0]):
        for j in range(size):
            h2[j] = trunk_b[layer, j]
        for i in range(size):
            x = h[i]
            if x != 0.0:
                for j in range(size):
                    h2[j] += x * trunk_w[layer, i, j]
        for j in range(size):
            h[j] = max(h2[j], np.float32(0.0))
    for a in range(NUM_ACTIONS):
        logits[a] = head_b[a]
    for i in range(size):
        x = h[i]
        if x != 0.0:
            for a in range(NUM_ACTIONS):
                logits[a] += x * head_w[i, a]
    if use_features != 0:
        for a in range(NUM_ACTIONS):
            logits[a] += fbias[0, a] * bias_weight[a]
    if hint >= 0:
        logits[hint] += hint_weight[hint]


@K.maybe_njit
def net_action(tokens, legal, wf, wi, tables, scratch):  # pragma: no cover - compiled
    """The network's most likely legal action for one token row and its legal mask."""
    net_logits(tokens, legal, wf, wi, tables, scratch)
    logits = scratch[2]
    best = -1
    for a in range(NUM_ACTIONS):
        if legal[a] and (best < 0 or logits[a] > logits[best]):
            best = a
    return best
