"""Rollout-distilled policy: measure where Expert's move is not the best, and learn it.

One step of policy improvement over the Expert bot, distilled into the policy network so
that it costs one forward pass at play time (``ppo:PATH``):

1. **generate** -- Expert plays itself on the vector engine (3-7 seats, compiled Expert,
   :mod:`agents.gnoming.expert_kernel`). At a random share (``record_prob``) of the decisions that
   offer a real choice (draw, place, displaced card, hazard flip) the deciding seat's
   position is recorded together with a measured value of *every* legal action: the mean,
   over ``samples`` determinized games consistent with the seat's view
   (:func:`gnome_env.gnoming.information.sample_game`), of the round played out on the kernels
   after that action with every seat playing Expert (:func:`agents.gnoming.rollout_search.evaluate`,
   common random numbers across actions). The value is the other seats' mean round score
   minus the seat's own (R22), in points. Stored: the tokens, mask, Expert's action and each
   action's advantage over Expert's (``adv[a] = Q(a) - Q(expert)``, NaN if illegal).
   With ``win_weight`` > 0 a rollout that ends the game (final round) also earns
   ``win_weight`` points times the seat's share of the win (R23), so that final-round
   decisions are valued by what they do to the game, not only to the round.
   Opening flips are recorded with Expert's flip as the best (no rollouts).
   With ``rollout_network`` (a policy checkpoint) the recorded seat's later moves in the
   rollouts are that network's (:mod:`agents.gnoming.net_kernel`) and the other seats' Expert's:
   the values are then those of the network's own play, so a fit on them is a further
   step of policy improvement over that network (the positions still come from Expert's
   games). With ``position_network`` one seat of every game (drawn per game) is played by
   that network and only its decisions are recorded: the positions are then the ones the
   network meets in its own games (on-policy data, as DAgger), Expert's move at each still
   the reference of the advantages.
2. **fit** -- a :class:`~agents.gnoming.learned.PolicyNetwork` with Greedy's features and the
   expert hint is trained by regression so that, for every legal action ``a`` other than
   Expert's, ``logit[a] - logit[expert] = scale * (clip(adv[a], -clip, +inf) - margin)``:
   its most likely action is Expert's unless it predicts another to be more than
   ``margin`` points better. The weights of the epoch with the lowest loss on the held-out
   chunks are kept (early stopping). Then, on the held-out positions, each of
   ``play_margins`` (extra points for Expert's move at play time) is tried, and the one
   whose choices have the best measured advantage is built into the policy (added to the
   expert hint's weight). With ``init_policy`` the fit starts from that checkpoint's
   weights instead of a fresh network, and the start itself is a candidate of the early
   stopping (epoch 0). ``extra_data`` adds every chunk of other runs' data directories to
   the training part (the holdout stays this run's own). Per-position measurements are
   noisy (a paired difference has a standard deviation of about 10-18 points), the
   network averages them over many positions.

The data is written in chunks (``output_dir/data/w{worker}_c{chunk}.npz``), each a pure
function of ``(seed, worker, chunk)``: an interrupted ``generate`` resumes where it
stopped, and the same config gives the same data and (on CPU, one torch thread) the same
weights. Run ``gnome distill --config configs/qdistill.yaml`` (or ``python -m
training.gnoming.qdistill ...``; both stages); ``--stage generate`` / ``--stage fit`` run one. Needs
numba and torch.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from training.core.config import (
    ConfigError,
    check_at_least,
    check_in_range,
    to_dict,
)
from training.core.runs import config_from_command_line as run_command_line
from training.core.runs import interrupted
from training.gnoming.chunks import (
    check_stage,
    chunk_file,
    config_field,
    directory_chunks,
    join,
    read_chunk,
    run_stages,
    run_workers,
    split_chunks,
    write_chunks,
)

SEARCHED_PHASES = (1, 2, 3, 4)  # Phase.DRAW, PLACE, DISPLACED, HAZARD_FLIP
OPENING_PHASE = 0


@dataclass
class QDistillConfig:
    """Settings of a rollout-distillation run (see the module docstring)."""

    trainer: str = config_field(
        "the trainer this config is for: qdistill (gnome train --config FILE then runs it)",
        "qdistill",
    )
    seed: int = config_field("run seed (data and weights)", 0)
    output_dir: str = config_field(
        "directory for data/, policy.pt and the summary", "runs/qdistill"
    )
    stage: str = config_field("all, generate or fit", "all")
    num_players: list[int] = config_field(
        "seat counts of the generated games (one drawn per game; a count listed twice is "
        "drawn twice as often)",
        factory=lambda: [3, 4, 5, 6, 7],
    )
    workers: int = config_field("generation processes", 2)
    chunks: int = config_field("data chunks per worker", 60)
    chunk_positions: int = config_field("positions recorded per chunk", 500)
    samples: int = config_field("determinized games per recorded position", 16)
    win_weight: float = config_field(
        "points added to a rollout's value for the seat's share of the win when the rollout "
        "ends the game (final round, R23); 0 values the round score only",
        0.0,
    )
    rollout_network: str = config_field(
        "a policy checkpoint (ppo:PATH format, one hidden size) that plays the recorded "
        "seat's later moves in the rollouts (agents.gnoming.net_kernel): the values are then those "
        "of that policy, a further step of policy improvement; empty: Expert plays them",
        "",
    )
    position_network: str = config_field(
        "a policy checkpoint (as rollout_network) that plays one seat of every generated "
        "game, drawn per game; only that seat's decisions are recorded, so the positions "
        "are those the policy meets itself (on-policy data); empty: Expert plays every seat "
        "and any seat's decisions are recorded",
        "",
    )
    batch_games: int = config_field("games played side by side while generating", 32)
    record_prob: float = config_field("share of real-choice decisions recorded", 0.15)
    opening_prob: float = config_field("share of opening flips recorded (no rollouts)", 0.02)
    hidden: list[int] = config_field("hidden layer sizes", factory=lambda: [256, 256])
    init_policy: str = config_field(
        "a policy checkpoint (features + expert hint) whose weights the fit starts from "
        "instead of a fresh network (its hidden sizes replace hidden); the start itself is "
        "epoch 0 of the early stopping; empty: a fresh network",
        "",
    )
    extra_data: list[str] = config_field(
        "more training data for the fit: directories of chunks (w{worker}_c{chunk}.npz, e.g. "
        "another run's output_dir/data); every chunk in them is trained on, none held out",
        factory=list,
    )
    epochs: int = config_field("passes over the data", 10)
    minibatch: int = config_field("positions per gradient step", 256)
    learning_rate: float = config_field("Adam learning rate", 0.001)
    scale: float = config_field("logit units per point of advantage", 0.5)
    margin: float = config_field("points an action must beat Expert's by (predicted)", 1.0)
    clip: float = config_field("advantages below -clip points count as -clip", 6.0)
    holdout: float = config_field("share of chunks held out for validation", 0.1)
    play_margins: list[float] = config_field(
        "extra points Expert's move gets at play time: the one with the best measured gain "
        "on the held-out positions is built into the policy",
        factory=lambda: [0.0, 0.5, 1.0, 1.5, 2.0, 3.0],
    )
    torch_threads: int = config_field("torch threads for the fit", 1)

    def validate(self) -> None:
        if self.trainer != "qdistill":
            raise ConfigError(f"trainer={self.trainer!r} is not allowed here: must be qdistill")
        check_stage(self.stage)
        if not self.num_players or any(not 3 <= n <= 7 for n in self.num_players):
            raise ConfigError(f"num_players={self.num_players!r}: a non-empty list of 3..7")
        for name in ("workers", "chunks", "chunk_positions", "samples", "batch_games"):
            check_at_least(name, getattr(self, name), 1)
        for name in ("epochs", "minibatch", "torch_threads"):
            check_at_least(name, getattr(self, name), 1)
        check_at_least("seed", self.seed, 0)
        check_in_range("record_prob", self.record_prob, 0.0, 1.0, low_open=True)
        check_in_range("opening_prob", self.opening_prob, 0.0, 1.0)
        check_in_range("learning_rate", self.learning_rate, 0.0, None, low_open=True)
        check_in_range("scale", self.scale, 0.0, None, low_open=True)
        check_in_range("margin", self.margin, 0.0, None)
        check_in_range("clip", self.clip, 0.0, None, low_open=True)
        check_in_range("win_weight", self.win_weight, 0.0, None)
        check_in_range("holdout", self.holdout, 0.0, 0.5)
        if not self.play_margins:
            raise ConfigError("play_margins=[]: give at least one value (e.g. [0.0])")
        for m in self.play_margins:
            check_in_range("play_margins[...]", m, 0.0, None)
        if not self.hidden or any(h < 1 for h in self.hidden):
            raise ConfigError(f"hidden={self.hidden!r}: a non-empty list of sizes >= 1")


# ---------------------------------------------------------------------- generate
def chunk_path(cfg: QDistillConfig, worker: int, chunk: int) -> Path:
    return chunk_file(cfg.output_dir, worker, chunk)


def generate_chunk(cfg: QDistillConfig, worker: int, chunk: int) -> dict[str, np.ndarray]:
    """Positions and measured advantages of one chunk: a pure function of (seed, worker,
    chunk) and the config."""
    from agents.gnoming.expert_kernel import expert_batch, expert_tables
    from agents.gnoming.net_kernel import net_action
    from agents.gnoming.rollout_search import evaluate, write_samples
    from gnome_env.core import rng as grng
    from gnome_env.gnoming import _kernels as K
    from gnome_env.gnoming.config import RulesConfig
    from gnome_env.gnoming.information import SeatView
    from gnome_env.gnoming.vector import VectorGame

    rules = RulesConfig()
    key = grng.derive_seed(grng.ARENA, cfg.seed, 1000 + worker, chunk + 1)
    pick = np.random.default_rng([cfg.seed, worker, chunk])
    vec = VectorGame(rules, cfg.batch_games, num_players=list(cfg.num_players))
    decision = vec.reset(seed=key)
    wf, wi, _ = expert_tables(rules)
    wf, wi = wf.copy(), wi.copy()
    prm, kcode, kcount, canon = vec._prm, vec._kcode, vec._kcount, vec._canon
    g = np.zeros(vec._st.shape[1], dtype=vec._st.dtype)
    cards = np.zeros(vec._stk.shape[1:], dtype=vec._stk.dtype)
    tok_buf = np.zeros(vec.num_tokens, dtype=np.int16)
    legal_buf = np.zeros(33, dtype=np.bool_)
    rew = np.zeros(7, dtype=np.float64)
    res = np.zeros(K.NUM_RESULTS, dtype=np.int32)
    k = cfg.samples
    rows = np.zeros((k, g.shape[0]), dtype=g.dtype)
    stacks = np.zeros((k, *cards.shape), dtype=cards.dtype)
    seeds = np.zeros(k, dtype=np.int64)
    net = rollout_net(cfg)
    player = network_player(cfg.position_network, "position_network")
    # the seat the position network plays in each slot's game (-1: none), drawn per game
    # from a stream of its own, so that chunks without a position network are unchanged
    seat_pick = np.random.default_rng([cfg.seed, worker, chunk, 1])
    learner = np.full(cfg.batch_games, -1, dtype=np.int64)
    if player is not None:
        learner[:] = seat_pick.integers(0, vec.num_players)
    out_tokens, out_masks, out_expert, out_adv = [], [], [], []
    experts = np.zeros(cfg.batch_games, dtype=np.int64)
    while len(out_tokens) < cfg.chunk_positions:
        tokens, masks = decision.tokens, decision.mask
        expert_batch(tokens, masks, wf, wi, experts)
        actions = experts.copy()
        if player is not None:
            for b in np.flatnonzero(decision.seat == learner):
                actions[b] = net_action(tokens[b], masks[b], wf, wi, player[0], player[1])
        for b in range(cfg.batch_games):
            if len(out_tokens) >= cfg.chunk_positions:
                break
            if player is not None and decision.seat[b] != learner[b]:
                continue  # on-policy data: only the network's own seat is recorded
            legal = np.flatnonzero(masks[b])
            if legal.size < 2:
                continue
            phase = int(tokens[b, K.TOK_PHASE])
            expert = int(experts[b])
            adv = np.full(33, np.nan)
            if phase == OPENING_PHASE:
                if pick.random() >= cfg.opening_prob:
                    continue
                adv[legal] = -cfg.clip
                adv[expert] = 0.0
            else:
                if pick.random() >= cfg.record_prob:
                    continue
                view = SeatView.from_tokens(tokens[b], masks[b], rules)
                write_samples(view, pick, rows, stacks, seeds, vec._kind)
                values = np.zeros((k, legal.size), dtype=np.float64)
                evaluate(
                    rows, stacks, seeds, legal.astype(np.int64), view.seat, prm, kcode,
                    kcount, canon, g, cards, tok_buf, legal_buf, rew, res, wf, wi,
                    cfg.win_weight, values, 0, 1, net,
                )  # fmt: skip
                q = values.mean(axis=0)
                adv[legal] = q - q[list(legal).index(expert)]
            out_tokens.append(tokens[b].copy())
            out_masks.append(masks[b].copy())
            out_expert.append(expert)
            out_adv.append(adv)
        decision = vec.step(actions)
        if player is not None and decision.done.any():  # new games: draw their network seats
            ended = np.flatnonzero(decision.done)
            learner[ended] = seat_pick.integers(0, vec.num_players[ended])
    return {
        "tokens": np.array(out_tokens, dtype=np.int16),
        "masks": np.array(out_masks, dtype=np.bool_),
        "expert": np.array(out_expert, dtype=np.int64),
        "adv": np.array(out_adv, dtype=np.float32),
    }


def rollout_net(cfg: QDistillConfig) -> tuple | None:
    """``(tables, scratch)`` of ``rollout_network`` for the rollouts, or None (Expert).
    A checkpoint that cannot be used is a :class:`ConfigError` saying why."""
    return network_player(cfg.rollout_network, "rollout_network")


def network_player(path: str, setting: str) -> tuple | None:
    """``(tables, scratch)`` of the compiled forward of the checkpoint ``path`` (the
    config's ``setting``), or None if ``path`` is empty; a checkpoint that cannot be used
    is a :class:`ConfigError` saying why."""
    if not path:
        return None
    from agents.gnoming.net_kernel import net_scratch

    tables = _network_tables(path, setting)
    return tables, net_scratch(tables)


@functools.lru_cache(maxsize=4)
def _network_tables(path: str, setting: str) -> tuple:
    """The compiled forward's tables of the checkpoint at ``path``, read once per process
    (every chunk of a worker uses them; they are never written to)."""
    from agents.gnoming.learned import network_from_checkpoint, read_checkpoint
    from agents.gnoming.net_kernel import network_tables

    where = f"{setting}={path!r}"
    try:
        return network_tables(network_from_checkpoint(read_checkpoint(path), where))
    except ValueError as err:
        role = "the rollouts" if setting == "rollout_network" else "its seat"
        raise ConfigError(f"{where} cannot play {role}: {err}") from None


def _generate_worker(cfg_dict: dict[str, Any], worker: int) -> int:
    cfg = QDistillConfig(**cfg_dict)
    return write_chunks(
        cfg.output_dir, worker, cfg.chunks, lambda chunk: generate_chunk(cfg, worker, chunk)
    )


def generate(cfg: QDistillConfig) -> None:
    """Write every missing chunk, ``workers`` processes in parallel."""
    rollout_net(cfg)  # an unusable checkpoint is an error here, before any worker starts
    network_player(cfg.position_network, "position_network")
    start = time.perf_counter()
    run_workers(_generate_worker, to_dict(cfg), cfg.workers)
    print(f"generate: done in {time.perf_counter() - start:.0f} s", flush=True)


# ---------------------------------------------------------------------- fit
def load_data(cfg: QDistillConfig) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(train, holdout): the chunks, the last ``holdout`` share of each worker's chunks held
    out, then every chunk of the ``extra_data`` directories added to the training part. A
    missing or unreadable chunk is a clear error."""
    keys = ("tokens", "masks", "expert", "adv")
    train, held = split_chunks(cfg.output_dir, cfg.workers, cfg.chunks, cfg.holdout, keys)
    for directory in cfg.extra_data:
        for path in directory_chunks(directory):
            part = read_chunk(path, keys)
            for key in keys:
                train[key].append(part[key])
    return join(train), join(held)


def targets(cfg: QDistillConfig, data: dict[str, np.ndarray]) -> tuple[Any, Any]:
    """The regression goals of the non-Expert legal moves (their clipped measured advantage,
    scaled, minus the margin) and which entries count."""
    import torch

    adv = data["adv"].astype(np.float64)
    use = ~np.isnan(adv)
    use[np.arange(len(adv)), data["expert"]] = False
    goal = cfg.scale * (np.maximum(np.nan_to_num(adv, nan=0.0), -cfg.clip) - cfg.margin)
    return torch.as_tensor(goal, dtype=torch.float32), torch.as_tensor(use)


def regression_loss(logits: Any, exp: Any, gl: Any, us: Any) -> Any:
    """The mean squared error of each move's logit over Expert's against its goal."""
    diff = logits - logits.gather(1, exp[:, None])
    err = (diff - gl) ** 2 * us
    return err.sum() / us.sum().clamp(min=1)


def holdout_figures(
    net: Any, cfg: QDistillConfig, held: dict[str, np.ndarray], held_feats: Any
) -> dict[str, float]:
    """The held-out loss, how often the network leaves Expert's move and what it gains."""
    import torch

    if held_feats is None:
        return {}
    hg, hu = targets(cfg, held)
    ht, he = torch.as_tensor(held["tokens"]), torch.as_tensor(held["expert"])
    with torch.no_grad():  # one forward pass gives both the loss and the choices
        logits, _ = net.forward_tokens(ht, None, held_feats)
        loss = float(regression_loss(logits, he, hg, hu))
        masked = logits.masked_fill(~torch.as_tensor(held["masks"]), -1e9)
        choice = masked.argmax(1).numpy()
    adv = np.nan_to_num(held["adv"], nan=-1e9)
    deviate = choice != held["expert"]
    gain = adv[np.arange(len(adv)), choice]  # measured advantage of the choice
    return {
        "holdout_loss": loss,
        "holdout_deviation_rate": float(deviate.mean()),
        "holdout_measured_gain_per_position": float(gain.mean()),
        "holdout_measured_gain_when_deviating": float(gain[deviate].mean())
        if deviate.any()
        else 0.0,
    }


def fit(cfg: QDistillConfig) -> dict[str, Any]:
    """Train the network on the chunks and write ``policy.pt``; returns the summary."""
    import torch

    from agents.gnoming.learned import PolicyNetwork, checkpoint_header, write_checkpoint
    from gnome_env.gnoming.config import RulesConfig

    torch.set_num_threads(cfg.torch_threads)
    train, held = load_data(cfg)
    if cfg.init_policy:
        net = initial_network(cfg.init_policy)
    else:
        net = PolicyNetwork(RulesConfig(), cfg.hidden, features=True, expert_hint=True)
        net.reset_parameters(torch.Generator().manual_seed(cfg.seed))
    feats = net.feature_arrays(train["tokens"], train["masks"], hint=train["expert"])
    held_feats = None
    if len(held["tokens"]):
        held_feats = net.feature_arrays(held["tokens"], held["masks"], hint=held["expert"])

    goal, use = targets(cfg, train)
    tokens = torch.as_tensor(train["tokens"])
    expert = torch.as_tensor(train["expert"])
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    gen = torch.Generator().manual_seed(cfg.seed + 1)
    n = len(tokens)

    def loss_of(idx: torch.Tensor, f, tok, exp, gl, us) -> torch.Tensor:
        logits, _ = net.forward_tokens(tok[idx], None, f.take(idx.numpy()))
        return regression_loss(logits, exp[idx], gl[idx], us[idx])

    def evaluate_holdout() -> dict[str, float]:
        return holdout_figures(net, cfg, held, held_feats)

    history = []
    best: tuple[float, int, dict[str, torch.Tensor]] | None = None
    start = time.perf_counter()
    if cfg.init_policy and held_feats is not None:  # the warm start is a candidate too
        row = {"epoch": 0, **evaluate_holdout()}
        history.append(row)
        print(json.dumps(row), flush=True)
        best = (row["holdout_loss"], 0, {k: v.clone() for k, v in net.state_dict().items()})
    for epoch in range(cfg.epochs):
        order = torch.randperm(n, generator=gen)
        total = 0.0
        for lo in range(0, n, cfg.minibatch):
            idx = order[lo : lo + cfg.minibatch]
            loss = loss_of(idx, feats, tokens, expert, goal, use)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        row = {"epoch": epoch + 1, "train_loss": total / n, **evaluate_holdout()}
        history.append(row)
        print(json.dumps(row), flush=True)
        score = row.get("holdout_loss", -epoch)  # without a holdout: the last epoch
        if best is None or score < best[0]:
            best = (score, epoch + 1, {k: v.clone() for k, v in net.state_dict().items()})
    assert best is not None
    net.load_state_dict(best[2])  # early stopping: the epoch with the lowest holdout loss
    sweep = play_margin_sweep(net, held, held_feats, cfg)
    chosen = max(sweep, key=lambda row: row["gain_per_position"]) if sweep else None
    play_margin = chosen["play_margin"] if chosen else cfg.play_margins[0]
    with torch.no_grad():  # Expert's move gets play_margin more points
        net.hint_weight += cfg.scale * play_margin
    summary = {
        "config": to_dict(cfg),
        "train_positions": n,
        "holdout_positions": len(held["tokens"]) if held_feats is not None else 0,
        "fit_seconds": time.perf_counter() - start,
        "kept_epoch": best[1],
        "play_margin": play_margin,
        "play_margin_sweep": sweep,
        "history": history,
    }
    payload = checkpoint_header(net)
    payload["training_summary"] = summary
    write_checkpoint(payload, Path(cfg.output_dir) / "policy.pt")
    (Path(cfg.output_dir) / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def initial_network(path: str) -> Any:
    """The network of the checkpoint ``path`` (the config's ``init_policy``) in training
    mode; a checkpoint that cannot be used (unreadable, or without the features and the
    expert hint) is a :class:`ConfigError`."""
    from agents.gnoming.learned import network_from_checkpoint, read_checkpoint

    where = f"init_policy={path!r}"
    try:
        net = network_from_checkpoint(read_checkpoint(path), where)
    except ValueError as err:
        raise ConfigError(f"{where} cannot start the fit: {err}") from None
    if not (net.features and net.expert_hint):
        raise ConfigError(
            f"{where} cannot start the fit: the fit needs a network with features and "
            "expert_hint (a distilled policy)"
        )
    return net.train()


def play_margin_sweep(net, held, held_feats, cfg: QDistillConfig) -> list[dict[str, float]]:
    """For each of ``cfg.play_margins``: how often the network leaves Expert's move on the
    held-out positions and the measured advantage of its choice (mean per position, with a
    95% half-width, and mean when it leaves Expert's move)."""
    import torch

    if held_feats is None:
        return []
    with torch.no_grad():
        logits, _ = net.forward_tokens(torch.as_tensor(held["tokens"]), None, held_feats)
    logits = logits.numpy().astype(np.float64)
    rows = np.arange(len(held["expert"]))
    adv = np.nan_to_num(held["adv"].astype(np.float64), nan=-1e9)
    out = []
    for margin in cfg.play_margins:
        shifted = np.where(held["masks"], logits, -1e9)
        shifted[rows, held["expert"]] += cfg.scale * margin
        choice = shifted.argmax(1)
        deviate = choice != held["expert"]
        gain = adv[rows, choice]
        out.append(
            {
                "play_margin": float(margin),
                "deviation_rate": float(deviate.mean()),
                "gain_per_position": float(gain.mean()),
                "gain_half_width_95": float(1.96 * gain.std() / np.sqrt(len(gain))),
                "gain_when_deviating": float(gain[deviate].mean()) if deviate.any() else 0.0,
            }
        )
        print(json.dumps(out[-1]), flush=True)
    return out


#: Fields a later invocation of the same run may change (``stage``: its next stage).
SAME_RUN = ("stage", "workers")


def main(argv: list[str] | None = None) -> int:
    """``gnome distill --config FILE [--FIELD VALUE ...]`` (``--resume DIR`` continues a run:
    the chunks written are kept); Ctrl-C says what is kept."""
    cfg = run_command_line(
        QDistillConfig, "gnome distill", __doc__.split("\n\n")[0], argv, same_run_ignores=SAME_RUN
    )
    if cfg is None:
        return 2
    try:
        return run_stages(cfg, generate, fit)
    except KeyboardInterrupt:
        return interrupted(cfg.output_dir, kind="chunks")


if __name__ == "__main__":
    sys.exit(main())
