"""Distil the Nerts search bot into a network, on the compiled batched engine (DAgger).

The teacher is :mod:`agents.nerts.search` (the expert's candidate moves tried in sampled
playouts); the student is :class:`agents.nerts.learned.NertsPolicyNetwork` with the expert
hint (the expert's move as an input and a logit bonus, so that the untrained student plays
exactly the expert) -- a policy that learns where to leave the expert's move.

Every round plays ``--envs`` one-hand games at a time on
:class:`gnome_env.nerts.vector.NertsVectorEngine` (seat counts ``--players`` by slot,
auto-reset): seat 0 is the learner, every other seat the compiled expert
(:mod:`agents.nerts._bot_kernels`). At each of ``--steps`` steps the teacher labels seat 0's
position (:func:`agents.nerts.search.search_batch`, from the engine's rows: the hidden cards
enter only as a sorted set per seat, what the view leaves unknown) and the compiled expert
gives the hint; seat 0 plays the teacher's move in round 0 and the student's most likely
move in later rounds (DAgger: the positions the student reaches, the teacher's labels).
Every position with more than one legal action is a sample (the seat's ``nerts_v0``
observation, its mask, the hint, the label). After each round the student is fitted by
cross-entropy over all samples so far; the games of every :data:`HOLD_OUT`-th engine slot are
held out for the accuracy figures (whole games, the same slots in every round, so no held-out
position was fitted or shares a deal with a fitted one).

With ``--memory`` the teacher remembers every waste top of the hand (``search:memory=1``,
:mod:`agents.nerts.memory`, from :func:`~agents.nerts.memory.remember_waste_tops` on the
rows) and the student reads seat 0's memory features after its observation
(:func:`~agents.nerts.memory.memory_features_rows`; the agent builds the same from the views
it is shown).

``--teacher oracle`` (:mod:`training.nerts.oracle`, ``--target value`` only) labels instead
with one playout per candidate on the true deal: an unbiased, very noisy estimate of each
candidate's gain over the expert's move. Round 0 then plays the expert's move (the oracle's
own choices would steer by the hidden cards). With value targets the held-out figures also
give :func:`held_gains`: the teacher's value of the student's choices minus the expert's,
per decision -- with the oracle, an unbiased estimate of the student's one-step gain.

``--candidates KINDS`` restricts the teacher's candidates to the expert's move and actions of
those kinds (``search:candidates=KINDS``, e.g. ``turn``: is turning the stock better than the
expert's move?), which makes labelling many times cheaper. ``--scorer WIDTH`` gives the
student the per-action scoring head (:mod:`agents.nerts.action_scorer`); ``--label-kinds``
fits it to the teacher's deviations of some kinds only (N19; other labels count as the
expert's move, other kinds' values are dropped). ``--student gate`` fits instead the turn
gate (:mod:`agents.nerts.turn_gate`: the expert's move or a turn, decided by a small network
over features built for that question) to the turn's values. ``--save-samples`` writes the labelled
positions to ``samples.npz`` after every round, and ``--samples-from`` trains a new student
on saved files in place of round 0 (a file labelled for ``--target value`` also serves a
label student).

Every draw is seeded: the engine's games from ``(seed, round)``, the teacher's samples from
its stream per (slot, hand, step), the fit from a ``torch.Generator``; with one torch thread
the same command gives the same weights on CPU.

    python -m training.nerts.distill --out runs/nerts_search_distill

writes ``policy.pt`` (agent spec ``ppo:runs/nerts_search_distill/policy.pt``) and
``summary.json`` (the command's settings, each round's samples, labels that leave the
expert, accuracies and times).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

ROUND_STREAM = 11  # the ``b`` of derive_seed(GAME, seed, b, round): each round's engine seed


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m training.nerts.distill",
        description="Distil the Nerts search bot into an expert-hint network (DAgger, "
        "batched engine).",
    )
    p.add_argument("--out", required=True, help="output directory (must be new)")
    p.add_argument("--overwrite", action="store_true", help="replace --out if it exists")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--players", type=int, nargs="+", default=[2, 4, 6], help="seat counts")
    p.add_argument("--envs", type=int, default=48, help="games stepped together")
    p.add_argument("--rounds", type=int, default=3, help="round 0 teacher, then DAgger")
    p.add_argument("--steps", type=int, default=600, help="engine steps per round")
    p.add_argument(
        "--teacher", choices=("search", "oracle"), default="search",
        help="search: the search bot's labels; oracle: one playout per candidate on the true "
        "deal (training/nerts/oracle.py; needs --target value; round 0 plays the expert)",
    )  # fmt: skip
    p.add_argument("--samples", type=int, default=16, help="the teacher's sampled deals")
    p.add_argument("--horizon", type=int, default=60, help="the teacher's playout steps")
    p.add_argument("--margin", type=float, default=0.3, help="the teacher's margin")
    p.add_argument("--score-weight", type=float, default=0.1, help="the teacher's weight")
    p.add_argument(
        "--z", type=float, default=0.0,
        help="the teacher's deviation test: standard errors its gain must also exceed (0: none)",
    )  # fmt: skip
    p.add_argument(
        "--no-wait-deviations", action="store_true",
        help="with --target value: waiting is never a move to leave the expert's for (its "
        "value is dropped where the expert does not wait)",
    )  # fmt: skip
    p.add_argument(
        "--memory", action="store_true",
        help="the teacher remembers waste tops (search:memory=1) and the student reads its "
        "seat's memory features (agents/nerts/memory.py)",
    )  # fmt: skip
    p.add_argument(
        "--candidates", metavar="KINDS", default=None,
        help="the teacher's candidates besides the expert's move: only actions of these kinds "
        "(search:candidates=KINDS; kinds or groups joined by commas or '+'; default: all its "
        "candidates)",
    )  # fmt: skip
    p.add_argument(
        "--label-kinds", default="all",
        help="kinds (N19) of the teacher's deviations the student is fitted to, comma-separated "
        "kinds or groups (foundation, work, stock, not-wait, ...); a label of another kind "
        "counts as the expert's move, and with --target value the values of other kinds' "
        "candidates are dropped (default all)",
    )  # fmt: skip
    p.add_argument(
        "--student", choices=("network", "gate"), default="network",
        help="network: the expert-hint network over the observation (agents/nerts/learned.py); "
        "gate: the turn gate (agents/nerts/turn_gate.py: the expert's move or a turn, from "
        "features built for that question; needs --memory and --target value, and fits the "
        "turn's values only)",
    )  # fmt: skip
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument(
        "--scorer", type=int, default=0,
        help="width of the student's per-action scoring head (agents/nerts/action_scorer.py; "
        "0: none, the plain head only)",
    )  # fmt: skip
    p.add_argument(
        "--save-samples", action="store_true",
        help="also write every round's samples so far to samples.npz in --out",
    )  # fmt: skip
    p.add_argument(
        "--samples-from", metavar="NPZ", nargs="+", default=None,
        help="start from the samples of earlier runs' samples.npz files (the same --teacher, "
        "--target and --memory): they stand for round 0, which is not played again",
    )  # fmt: skip
    p.add_argument("--epochs", type=int, default=4, help="passes over the samples per round")
    p.add_argument(
        "--save-epochs", action="store_true",
        help="also write the last round's student after each epoch (policy_epochK.pt)",
    )  # fmt: skip
    p.add_argument("--lr", type=float, default=1e-3, help="Adam rate")
    p.add_argument("--hint-init", type=float, default=5.0, help="initial hint bonus")
    p.add_argument(
        "--target",
        choices=("label", "value"),
        default="label",
        help="label: imitate the search's moves; value: regress the logits on its playout values",
    )
    p.add_argument("--value-scale", type=float, default=10.0, help="logits per unit of value")
    p.add_argument(
        "--value-margin", type=float, default=0.1, help="value a move must gain over the expert's"
    )
    args = p.parse_args(argv)
    if any(n < 2 or n > 6 for n in args.players):
        p.error("--players must be seat counts 2..6")
    for name in ("envs", "rounds", "steps", "samples", "horizon", "epochs"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")
    from gnome_env.nerts.actions import parse_kinds

    try:
        args.kept_kinds = parse_kinds(args.label_kinds)
    except ValueError as err:
        p.error(f"--label-kinds: {err}")
    if args.candidates is not None:
        from agents.nerts.search import candidate_kinds

        try:  # one spelling per set of kinds (--samples-from compares it)
            kinds = candidate_kinds(args.candidates)
        except ValueError as err:
            p.error(f"--candidates: {err}")
        args.candidates = "+".join(sorted(k.name.lower() for k in kinds)) or "none"
        if args.teacher == "oracle":
            p.error("--candidates is for the search teacher (the oracle tries every candidate)")
    if args.student == "gate":
        if not args.memory or args.target != "value":
            p.error("--student gate needs --memory and --target value (it regresses the turn's "
                    "playout value on features of the seat's memory)")  # fmt: skip
        if args.scorer or args.label_kinds not in ("all", "turn"):
            p.error("--student gate has no --scorer and fits turns only (--label-kinds turn)")
        args.kept_kinds = parse_kinds("turn")
    if not 0 <= args.scorer <= 1024:
        p.error("--scorer must be a width in 1..1024, or 0 (no per-action head)")
    if min(args.hidden) < 1 or args.lr <= 0 or min(args.margin, args.score_weight, args.z) < 0:
        p.error("--hidden and --lr must be positive, --margin, --score-weight and --z at least 0")
    if args.teacher == "oracle" and args.target != "value":
        p.error("--teacher oracle needs --target value (its one-deal labels are for regression)")
    if not 0 <= args.hint_init <= 50:
        p.error("--hint-init must be in [0, 50]")
    out = Path(args.out)
    if out.exists() and not args.overwrite:
        p.error(f"--out {out} already exists: give a new directory, or --overwrite")
    return args


def collect(args: argparse.Namespace, net: Any, rnd: int, log: Any) -> dict[str, np.ndarray]:
    """One round of play on the batched engine: seat 0's samples (module docstring)."""
    import torch

    from agents.nerts import _bot_kernels as BK
    from agents.nerts.memory import (
        MEMORY_FEATURES,
        memory_features_rows,
        remember_waste_tops,
        seen_array,
    )
    from agents.nerts.search import SearchBuffers, allowed_candidates, sample_key, search_batch
    from gnome_env.core import rng as grng
    from gnome_env.nerts import _kernels as K
    from gnome_env.nerts.actions import WAIT
    from gnome_env.nerts.config import NertsConfig
    from gnome_env.nerts.vector import NertsVectorEngine
    from training.nerts.oracle import OracleBuffers, oracle_batch

    counts = [args.players[e % len(args.players)] for e in range(args.envs)]
    rules = NertsConfig(max_steps_per_hand=400)
    engine = NertsVectorEngine(rules, args.envs, players_per_slot=counts, observations="seats")
    obs, masks = engine.reset(seed=grng.derive_seed(grng.GAME, args.seed, ROUND_STREAM, rnd))
    st, prm, ids, lcounts = engine.compiled_state()
    b = args.envs
    seen = seen_array(b)  # the waste tops of each game's hand so far (kept with --memory)
    if args.memory:
        remember_waste_tops(st, seen)
    feats = np.zeros((b, MEMORY_FEATURES), np.float32)
    seat0 = np.zeros(b, np.int64)
    experts = np.zeros((b, 6), np.int64)  # every seat: the opponents' moves and seat 0's hint
    for e, n in enumerate(counts):
        experts[e, :n] = BK.KIND_EXPERT
    who = np.zeros((b, 6), np.int64)
    who[:, 0] = 1
    sc = np.zeros(K.SCRATCH, np.int64)
    bs = BK.empty_scratch(engine.n_actions)
    bufs = SearchBuffers(engine.n_actions)
    allow = allowed_candidates(rules, args.candidates)
    obufs = OracleBuffers(engine.n_actions)
    oracle = args.teacher == "oracle"
    key_base = grng.derive_seed(grng.GAME, args.seed, ROUND_STREAM + 1, rnd)
    out: dict[str, list[np.ndarray]] = {k: [] for k in ("obs", "mask", "hint", "label", "slot")}
    values = args.target == "value"
    out["value"] = []
    qv = np.zeros((b, engine.n_actions) if values else (0, 1), np.float32)
    start = time.perf_counter()
    for t in range(args.steps):
        joint = np.zeros((b, 6), np.int64)
        BK.decide_batch(st, prm, ids, lcounts, experts, sc, bs, joint)
        hint = joint[:, 0].copy()  # seat 0's expert move (joint[:, 0] is replaced below)
        keys = np.zeros((b, 6), np.int64)
        seeds = engine.game_seeds
        steps = st[:, K.C_STEPS]
        for e in range(b):
            keys[e, 0] = sample_key(key_base + int(seeds[e]) % 1_000_003, 0, int(steps[e]))
        label = np.zeros((b, 6), np.int64)
        if oracle:
            oracle_batch(st, prm, ids, lcounts, keys[:, 0], args.horizon, args.score_weight,
                         *obufs.tail(), qv)  # fmt: skip
            label[:, 0] = oracle_labels(qv, hint, args.margin)
        else:
            dev = np.zeros((b, 6), np.int64)
            search_batch(st, prm, ids, lcounts, who, keys, args.samples, args.horizon,
                         args.score_weight, args.margin, args.z, allow,
                         seen if args.memory else bufs.no_seen, bufs.hid,
                         bufs.hid_n, bufs.known,
                         *bufs.tail(), label, dev, qv)  # fmt: skip
        o, m = obs[:, 0].copy(), masks[:, 0].astype(bool)
        if args.memory:  # the student reads seat 0's memory features too
            memory_features_rows(st, seen, seat0, rules.turn_size, feats)
            o = np.concatenate([o, feats], axis=1)
        if rnd == 0:  # the oracle's moves would steer by the hidden cards: the expert plays
            joint[:, 0] = hint if oracle else label[:, 0]
        else:
            with torch.no_grad():
                logits, _ = net(torch.as_tensor(o), torch.as_tensor(m), torch.as_tensor(hint))
            joint[:, 0] = logits.argmax(1).numpy()
        keep = lcounts[:, 0] > 1
        out["obs"].append(o[keep].astype(np.float16))
        out["mask"].append(m[keep])
        out["hint"].append(hint[keep])
        out["label"].append(label[keep, 0])
        out["slot"].append(np.flatnonzero(keep))
        if values:
            if args.no_wait_deviations:
                qv[hint != WAIT, WAIT] = np.nan
            out["value"].append(qv[keep].copy())
        obs, masks, _, _, _ = engine.step(joint)
        if args.memory:
            remember_waste_tops(st, seen)
        if (t + 1) % 100 == 0 or t + 1 == args.steps:
            n = sum(len(x) for x in out["label"])
            log(f"round {rnd}: step {t + 1}/{args.steps}, {n} samples, "
                f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    return {k: np.concatenate(v) for k, v in out.items() if v}


def oracle_labels(qv: np.ndarray, hint: np.ndarray, margin: float) -> np.ndarray:
    """Each row's best valued candidate where it beats the expert's move (``hint``) by more
    than ``margin``, else the expert's move."""
    filled = np.where(np.isnan(qv), -np.inf, qv)
    best = filled.argmax(1)
    rows = np.arange(len(hint))
    with np.errstate(invalid="ignore"):  # -inf - -inf: nothing valued, the expert's move
        gain = filled[rows, best] - filled[rows, hint]
    return np.where(np.isfinite(gain) & (gain > margin), best, hint)


def value_loss(logits: Any, mask: Any, hint: Any, value: Any, args: argparse.Namespace) -> Any:
    """``--target value``: each searched candidate's logit minus the expert's regresses on
    ``--value-scale`` x (its playout value - the expert's move's - ``--value-margin``); every
    other legal action's logit is pushed at least 1 below the expert's (squared hinge).
    Positions that were not searched (one candidate) only keep that order."""
    import torch

    base = logits.gather(1, hint[:, None])
    diff = logits - base
    v_expert = value.gather(1, hint[:, None])
    searched = ~torch.isnan(value)
    target = args.value_scale * (value - v_expert - args.value_margin)
    cand = searched & mask
    cand[torch.arange(len(hint)), hint] = False
    other = mask & ~searched
    other[torch.arange(len(hint)), hint] = False
    reg = torch.where(cand, (diff - torch.nan_to_num(target)) ** 2, torch.zeros_like(diff))
    hinge = torch.where(other, torch.relu(diff + 1.0) ** 2, torch.zeros_like(diff))
    count = cand.sum() + other.sum()
    return (reg.sum() + hinge.sum()) / count.clamp(min=1)


#: Every ``HOLD_OUT``-th engine slot's games are held out of the fit in every round: whole
#: games, so that no held-out position shares a deal with a fitted one.
HOLD_OUT = 16

#: Extra logit given to the expert's move in :func:`held_gains` (0: the student as it is).
SHIFTS = (0.0, 1.0, 2.0, 4.0)


def held_gains(logits: Any, hint: Any, value: Any) -> dict[str, float]:
    """The held-out positions' teacher values of the student's choices: for each shift in
    :data:`SHIFTS` of the expert move's logit, how often the student leaves the expert's
    move (``off``), the mean over positions of its chosen move's value minus the expert's
    (``gain``, a deviation to a move the teacher did not value counting 0) with its standard
    error (``se``), and the share of deviations the teacher did not value (``unvalued``).
    With the oracle teacher each value is an unbiased one-deal estimate, so ``gain`` is an
    unbiased estimate of the student's one-step gain over the expert per decision."""
    import torch

    rows = torch.arange(len(hint))
    out: dict[str, float] = {}
    v_hint = value[rows, hint]
    for shift in SHIFTS:
        shifted = logits.clone()
        shifted[rows, hint] += shift
        pred = shifted.argmax(1)
        dev = pred != hint
        v_pred = value[rows, pred]
        valued = dev & ~torch.isnan(v_pred) & ~torch.isnan(v_hint)
        gain = torch.where(valued, v_pred - v_hint, torch.zeros_like(v_pred)).double()
        tag = f"shift{shift:g}"
        out[f"{tag}_off"] = float(dev.double().mean())
        out[f"{tag}_gain"] = float(gain.mean())
        out[f"{tag}_se"] = float(gain.std() / max(len(gain), 1) ** 0.5)
        out[f"{tag}_unvalued"] = float((dev & ~valued).sum()) / max(int(dev.sum()), 1)
    return out


def kept_labels(label: np.ndarray, hint: np.ndarray, kinds: frozenset) -> np.ndarray:
    """``label`` where it is the expert's move (``hint``) or of one of ``kinds``, else
    the expert's move."""
    from gnome_env.nerts.actions import action_table
    from gnome_env.nerts.config import NertsConfig

    allowed = action_table(NertsConfig()).of_kinds(kinds)
    return np.where(allowed[label], label, hint)


def kept_values(value: np.ndarray, hint: np.ndarray, kinds: frozenset) -> np.ndarray:
    """``value`` with the candidates of other kinds than ``kinds`` dropped (NaN, as if not
    searched: :func:`value_loss` then keeps them below the expert's move), the expert's
    move's own value kept. Returns ``value`` itself when every kind is kept."""
    from gnome_env.nerts.actions import Kind, action_table
    from gnome_env.nerts.config import NertsConfig

    if kinds == frozenset(Kind):
        return value
    dropped = ~action_table(NertsConfig()).of_kinds(kinds)
    out = value.copy()
    rows = np.arange(len(hint))
    own = out[rows, hint]
    out[:, dropped] = np.nan
    out[rows, hint] = own
    return out


def fit(
    net: Any,
    data: dict[str, np.ndarray],
    gen: Any,
    args: argparse.Namespace,
    log: Any,
    after_epoch: Any = None,
):
    """Cross-entropy of the student's masked logits against the teacher's labels; returns
    the held-out accuracy overall and on the labels that leave the expert's move.
    ``after_epoch(epoch, figures)``, if given, is called after each epoch."""
    import torch

    obs = torch.as_tensor(data["obs"])
    mask = torch.as_tensor(data["mask"])
    hint = torch.as_tensor(data["hint"])
    label = torch.as_tensor(kept_labels(data["label"], data["hint"], args.kept_kinds))
    value = None
    if "value" in data:
        value = torch.as_tensor(kept_values(data["value"], data["hint"], args.kept_kinds))
    n = len(label)
    index = torch.arange(n)
    out = torch.as_tensor(data["slot"]) % HOLD_OUT == 0  # whole games: the same slots every round
    held, train = index[out], index[~out]
    opt = torch.optim.Adam(net.parameters(), lr=args.lr)
    figures: dict[str, float] = {}
    for epoch in range(args.epochs):
        losses = []
        shuffled = train[torch.randperm(len(train), generator=gen)]
        for i in range(0, len(shuffled), 512):
            rows = shuffled[i : i + 512]
            logits, _ = net(obs[rows].float(), mask[rows], hint[rows])
            if value is None:
                loss = torch.nn.functional.cross_entropy(logits, label[rows])
            else:
                loss = value_loss(logits, mask[rows], hint[rows], value[rows].float(), args)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
        with torch.no_grad():
            logits, _ = net(obs[held].float(), mask[held], hint[held])
            pred = logits.argmax(1)
        off = label[held] != hint[held]
        figures = {
            "loss": float(np.mean(losses)),
            "accuracy": float((pred == label[held]).float().mean()),
            "accuracy_off_expert": float((pred[off] == label[held][off]).float().mean())
            if off.any()
            else float("nan"),
            "student_off_expert": float((pred != hint[held]).float().mean()),
        }
        if value is not None:
            figures |= held_gains(logits, hint[held], value[held].float())
        log(f"fit epoch {epoch + 1}/{args.epochs}: " + ", ".join(
            f"{k} {v:.4f}" for k, v in figures.items()))  # fmt: skip
        if after_epoch is not None:
            after_epoch(epoch + 1, figures)
    return figures


def sample_settings(args: argparse.Namespace) -> dict[str, Any]:
    """What the labels of a samples file depend on (checked by ``--samples-from``; a file
    labelled with ``--target value`` holds the same labels, and serves either target)."""
    return {
        "teacher": args.teacher, "target": args.target, "memory": args.memory,
        "candidates": args.candidates,
    }  # fmt: skip


def read_samples(
    path: str, args: argparse.Namespace, input_size: int, n_actions: int
) -> dict[str, np.ndarray]:
    """The samples of ``--samples-from``; ``ValueError`` saying why a file is unusable."""
    try:
        with np.load(path, allow_pickle=False) as f:
            data = {k: f[k] for k in f.files}
    except (OSError, ValueError, EOFError) as err:
        raise ValueError(f"--samples-from {path!r} cannot be read as samples: {err}") from None
    need = {"obs", "mask", "hint", "label", "slot", "settings"}
    if not need <= set(data):
        raise ValueError(f"--samples-from {path!r} lacks {sorted(need - set(data))}")
    saved = json.loads(str(data.pop("settings")))
    saved.setdefault("candidates", None)  # (files written before --candidates)
    ours = sample_settings(args)
    if saved | {"target": None} != ours | {"target": None}:  # either target's labels serve
        raise ValueError(f"--samples-from {path!r} was labelled with {saved}; this run has {ours}")
    n = len(data["label"])
    if data["obs"].shape != (n, input_size) or data["mask"].shape != (n, n_actions):
        raise ValueError(
            f"--samples-from {path!r} holds observations of width {data['obs'].shape[1:]} and "
            f"masks of width {data['mask'].shape[1:]}; this student reads {input_size} and "
            f"{n_actions}"
        )
    if args.target == "value" and "value" not in data:
        raise ValueError(f"--samples-from {path!r} has no values for --target value")
    if args.target == "label":
        data.pop("value", None)  # (a value file's labels serve a label student)
    return data


def turn_rows(data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The samples where the teacher valued a turn that is not the expert's move: the only
    ones a turn gate learns from (elsewhere its loss is zero), so its fit and held-out
    figures are over these. ``--samples-from`` files are cut to them as they are read, so
    ``data`` itself is returned when every row is one (no copy of a file's worth of rows)."""
    from gnome_env.nerts.actions import TURN

    keep = ~np.isnan(data["value"][:, TURN]) & (data["hint"] != TURN)
    if keep.all():
        return data
    return {k: v[keep] for k, v in data.items()}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import torch

    from agents.nerts.learned import NertsPolicyNetwork, checkpoint_payload, write_checkpoint
    from gnome_env.nerts.config import NertsConfig
    from gnome_env.nerts.encoding import NertsEncoder

    torch.set_num_threads(1)
    rules = NertsConfig()
    if args.student == "gate":
        from agents.nerts.turn_gate import NertsTurnGate

        net = NertsTurnGate(NertsEncoder(rules).size, rules.n_actions, args.hidden)
    else:
        net = NertsPolicyNetwork(
            NertsEncoder(rules).size, rules.n_actions, args.hidden, expert_hint=True,
            hint_init=args.hint_init, memory=args.memory, scorer=args.scorer,
        )  # fmt: skip
    gen = torch.Generator().manual_seed(args.seed)
    net.reset_parameters(gen)
    data: dict[str, np.ndarray] | None = None
    if args.samples_from is not None:  # read before --out is touched: it may be inside it
        try:
            parts = []
            for path in args.samples_from:
                part = read_samples(path, args, net.input_size, rules.n_actions)
                parts.append(turn_rows(part) if args.student == "gate" else part)
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        data = {k: np.concatenate([part.pop(k) for part in parts]) for k in list(parts[0])}
        del parts  # (the concatenated copy is all that is kept)
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)

    def log(line: str) -> None:
        print(line, flush=True)

    settings = {k: v for k, v in vars(args).items() if k != "kept_kinds"}

    def save_epoch(epoch: int, figures: dict) -> None:
        """``--save-epochs``: the student after ``epoch`` of the last round."""
        meta = {"distill": settings | {"out": str(out), "epoch": epoch}, "held_out": figures}
        write_checkpoint(checkpoint_payload(net, rules, meta), out / f"policy_epoch{epoch}.pt")

    start = time.perf_counter()
    rounds = []
    try:
        for rnd in range(args.rounds):
            t0 = time.perf_counter()
            if rnd == 0 and data is not None:  # the saved samples stand for round 0
                new = data
                data = None
            else:
                new = collect(args, net, rnd, log)
            data = new if data is None else {k: np.concatenate([data[k], new[k]]) for k in data}
            t1 = time.perf_counter()
            last = args.save_epochs and rnd == args.rounds - 1
            fitted = turn_rows(data) if args.student == "gate" else data
            figures = fit(net, fitted, gen, args, log, save_epoch if last else None)
            del fitted
            rounds.append({
                "round": rnd,
                "new_samples": len(new["label"]),
                "new_labels_off_expert": float(np.mean(new["label"] != new["hint"])),
                "new_labels_off_expert_kept": float(np.mean(
                    kept_labels(new["label"], new["hint"], args.kept_kinds) != new["hint"])),
                "samples": len(data["label"]),
                "play_seconds": round(t1 - t0, 1),
                "fit_seconds": round(time.perf_counter() - t1, 1),
                **figures,
            })  # fmt: skip
            meta = {"distill": settings | {"out": str(out)}, "rounds": rounds}
            write_checkpoint(checkpoint_payload(net, rules, meta), out / "policy.pt")
            if args.save_samples:
                np.savez_compressed(
                    out / "samples.npz", **data,
                    settings=np.array(json.dumps(sample_settings(args))),
                )  # fmt: skip
    except KeyboardInterrupt:
        print(f"interrupted: the rounds finished so far are in {out}", file=sys.stderr)
        return 130
    summary = {
        "command": "python -m training.nerts.distill " + " ".join(argv or sys.argv[1:]),
        "settings": {k: v for k, v in settings.items() if k not in ("out", "overwrite")},
        "rounds": rounds,
        "seconds": round(time.perf_counter() - start, 1),
        "torch_threads": 1,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(f"policy written to {out / 'policy.pt'} ({summary['seconds']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
