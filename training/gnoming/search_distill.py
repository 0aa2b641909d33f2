"""Expert iteration: a policy network fitted to the search bot's decisions.

The search bot ``netsearch:PATH`` (:class:`agents.gnoming.net_search.NetSearchAgent`) checks a
network's doubtful decisions with determinized rollouts and beats Expert where the network
alone does not (issue #13). This trainer distils the search back into the network:

1. **generate** -- games on the vector engine (``num_players``, one drawn per game); in
   each game one seat, drawn per game, is played by the search bot over
   ``search_policy`` and the others by Expert (the compiled Expert,
   :mod:`agents.gnoming.expert_kernel`). At every decision of that seat with a real choice the
   seat's position (tokens, legal mask), Expert's move there and the search bot's move are
   recorded. The positions are the search bot's own games, its decisions use only its own
   observation (the information-set sampler), and each chunk
   (``output_dir/data/w{worker}_c{chunk}.npz``, ``chunk_positions`` positions) is a pure
   function of ``(seed, worker, chunk)`` and the config: an interrupted run resumes.
2. **fit** -- starting from ``init_policy``'s weights (a network with Greedy's features and
   the expert hint, e.g. the one the search uses), the cross-entropy of the network's
   masked policy on the search bot's move is minimised (Adam); the last ``holdout`` share of
   each worker's chunks is held out, the epoch with the lowest held-out cross-entropy is
   kept (the start counts as epoch 0), and ``policy.pt`` is written with the summary
   (per epoch: losses, how often the network's most likely move is the search bot's).

``gnome train --config configs/exit.yaml`` runs both stages (the config says
``trainer: search_distill``); ``--stage generate`` / ``--stage fit`` run one. Needs numba
and torch.
"""

from __future__ import annotations

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
    join,
    run_stages,
    run_workers,
    split_chunks,
    write_chunks,
)

KEYS = ("tokens", "masks", "expert", "search")


@dataclass
class SearchDistillConfig:
    """Settings of an expert-iteration run (see the module docstring)."""

    trainer: str = config_field(
        "the trainer this config is for: search_distill (gnome train --config FILE runs it)",
        "search_distill",
    )
    seed: int = config_field("run seed (data and fit)", 0)
    output_dir: str = config_field("directory for data/, policy.pt and the summary", "runs/exit")
    stage: str = config_field("all, generate or fit", "all")
    num_players: list[int] = config_field(
        "seat counts of the generated games (one drawn per game; a count listed twice is "
        "drawn twice as often)",
        factory=lambda: [3, 4, 5, 6, 7],
    )
    workers: int = config_field("generation processes", 2)
    chunks: int = config_field("data chunks per worker", 60)
    chunk_positions: int = config_field("positions recorded per chunk", 500)
    batch_games: int = config_field("games played side by side while generating", 16)
    search_policy: str = config_field(
        "the network the search bot searches with (netsearch:PATH, default settings)",
        "agents/policies/distill2_3to7/policy.pt",
    )
    init_policy: str = config_field(
        "the checkpoint the fit starts from (features + expert hint)",
        "agents/policies/distill2_3to7/policy.pt",
    )
    epochs: int = config_field("passes over the data", 4)
    minibatch: int = config_field("positions per gradient step", 256)
    learning_rate: float = config_field("Adam learning rate", 0.0003)
    holdout: float = config_field("share of each worker's chunks held out for validation", 0.1)
    torch_threads: int = config_field("torch threads for the fit", 1)

    def validate(self) -> None:
        if self.trainer != "search_distill":
            raise ConfigError(
                f"trainer={self.trainer!r} is not allowed here: must be search_distill"
            )
        check_stage(self.stage)
        if not self.num_players or any(not 3 <= n <= 7 for n in self.num_players):
            raise ConfigError(f"num_players={self.num_players!r}: a non-empty list of 3..7")
        for name in ("workers", "chunks", "chunk_positions", "batch_games", "epochs"):
            check_at_least(name, getattr(self, name), 1)
        check_at_least("minibatch", self.minibatch, 1)
        check_at_least("torch_threads", self.torch_threads, 1)
        check_at_least("seed", self.seed, 0)
        check_in_range("learning_rate", self.learning_rate, 0.0, None, low_open=True)
        check_in_range("holdout", self.holdout, 0.0, 0.5)
        for name in ("search_policy", "init_policy"):
            if not getattr(self, name):
                raise ConfigError(f"{name} is empty: give a policy checkpoint (ppo:PATH file)")


# ---------------------------------------------------------------------- generate
def chunk_path(cfg: SearchDistillConfig, worker: int, chunk: int) -> Path:
    return chunk_file(cfg.output_dir, worker, chunk)


def search_agent(cfg: SearchDistillConfig, seed: int) -> Any:
    """The search bot over ``search_policy``; a checkpoint it cannot use is a ConfigError."""
    from agents.gnoming.net_search import NetSearchAgent

    try:
        return NetSearchAgent(cfg.search_policy, seed=seed)
    except (ValueError, OSError) as err:
        raise ConfigError(f"search_policy={cfg.search_policy!r} cannot search: {err}") from None


def generate_chunk(cfg: SearchDistillConfig, worker: int, chunk: int) -> dict[str, np.ndarray]:
    """Positions of the search bot's seat, Expert's and the search bot's moves: a pure
    function of (seed, worker, chunk) and the config."""
    from agents.gnoming.expert_kernel import expert_batch, expert_tables
    from gnome_env.core import rng as grng
    from gnome_env.gnoming.config import RulesConfig
    from gnome_env.gnoming.encoding import ObservationEncoder
    from gnome_env.gnoming.vector import VectorGame

    rules = RulesConfig()
    key = grng.derive_seed(grng.ARENA, cfg.seed, 2000 + worker, chunk + 1)
    seat_pick = np.random.default_rng([cfg.seed, worker, chunk, 2])
    bot = search_agent(cfg, seed=int(seat_pick.integers(2**62)))
    encoder = ObservationEncoder(rules)
    vec = VectorGame(rules, cfg.batch_games, num_players=list(cfg.num_players))
    decision = vec.reset(seed=key)
    wf, wi, _ = expert_tables(rules)
    wf, wi = wf.copy(), wi.copy()
    searcher = seat_pick.integers(0, vec.num_players)
    out: dict[str, list] = {k: [] for k in KEYS}
    experts = np.zeros(cfg.batch_games, dtype=np.int64)
    while len(out["tokens"]) < cfg.chunk_positions:
        tokens, masks = decision.tokens, decision.mask
        expert_batch(tokens, masks, wf, wi, experts)
        actions = experts.copy()
        for b in np.flatnonzero(decision.seat == searcher):
            if masks[b].sum() < 2:
                continue  # one legal action: nothing to decide, nothing recorded
            actions[b] = bot.act(encoder.expand(tokens[b]), masks[b])
            if len(out["tokens"]) < cfg.chunk_positions:
                out["tokens"].append(tokens[b].copy())
                out["masks"].append(masks[b].copy())
                out["expert"].append(int(experts[b]))
                out["search"].append(int(actions[b]))
        decision = vec.step(actions)
        if decision.done.any():  # new games: draw their search seats
            ended = np.flatnonzero(decision.done)
            searcher[ended] = seat_pick.integers(0, vec.num_players[ended])
    return {
        "tokens": np.array(out["tokens"], dtype=np.int16),
        "masks": np.array(out["masks"], dtype=np.bool_),
        "expert": np.array(out["expert"], dtype=np.int64),
        "search": np.array(out["search"], dtype=np.int64),
    }


def _generate_worker(cfg_dict: dict[str, Any], worker: int) -> int:
    cfg = SearchDistillConfig(**cfg_dict)
    return write_chunks(
        cfg.output_dir, worker, cfg.chunks, lambda chunk: generate_chunk(cfg, worker, chunk)
    )


def generate(cfg: SearchDistillConfig) -> None:
    """Write every missing chunk, ``workers`` processes in parallel."""
    search_agent(cfg, seed=0)  # an unusable checkpoint is an error here, before any worker
    start = time.perf_counter()
    run_workers(_generate_worker, to_dict(cfg), cfg.workers)
    print(f"generate: done in {time.perf_counter() - start:.0f} s", flush=True)


# ---------------------------------------------------------------------- fit
def load_data(cfg: SearchDistillConfig) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """(train, holdout): the last ``holdout`` share of each worker's chunks held out."""
    train, held = split_chunks(cfg.output_dir, cfg.workers, cfg.chunks, cfg.holdout, KEYS)
    return join(train), join(held)


def fit(cfg: SearchDistillConfig) -> dict[str, Any]:
    """Fine-tune ``init_policy`` on the search bot's moves and write ``policy.pt``."""
    import torch
    import torch.nn.functional as F

    from agents.gnoming.learned import checkpoint_header, masked_log_probs, write_checkpoint
    from training.gnoming.qdistill import initial_network

    torch.set_num_threads(cfg.torch_threads)
    train, held = load_data(cfg)
    net = initial_network(cfg.init_policy)  # qdistill's warm start: same checks, messages
    feats = net.feature_arrays(train["tokens"], train["masks"], hint=train["expert"])
    held_feats = None
    if len(held["tokens"]):
        held_feats = net.feature_arrays(held["tokens"], held["masks"], hint=held["expert"])
    tokens, masks = torch.as_tensor(train["tokens"]), torch.as_tensor(train["masks"])
    target = torch.as_tensor(train["search"])
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    gen = torch.Generator().manual_seed(cfg.seed + 1)
    n = len(tokens)

    def loss_of(idx, f, tok, msk, tgt) -> torch.Tensor:
        logits, _ = net.forward_tokens(tok[idx], None, f.take(idx.numpy()))
        return F.nll_loss(masked_log_probs(logits, msk[idx]), tgt[idx])

    def evaluate_holdout() -> dict[str, float]:
        if held_feats is None:
            return {}
        ht, hm = torch.as_tensor(held["tokens"]), torch.as_tensor(held["masks"])
        hs = torch.as_tensor(held["search"])
        with torch.no_grad():  # one forward pass gives both the loss and the choices
            logits, _ = net.forward_tokens(ht, None, held_feats)
            loss = float(F.nll_loss(masked_log_probs(logits, hm), hs))
            choice = logits.masked_fill(~hm, -1e9).argmax(1).numpy()
        return {
            "holdout_cross_entropy": loss,
            "holdout_agrees_with_search": float((choice == held["search"]).mean()),
            "holdout_leaves_expert": float((choice != held["expert"]).mean()),
        }

    history = []
    start = time.perf_counter()
    row = {"epoch": 0, **evaluate_holdout()}
    history.append(row)
    print(json.dumps(row), flush=True)
    best = (row.get("holdout_cross_entropy", 0.0), 0, _copy(net))
    for epoch in range(cfg.epochs):
        order = torch.randperm(n, generator=gen)
        total = 0.0
        for lo in range(0, n, cfg.minibatch):
            idx = order[lo : lo + cfg.minibatch]
            loss = loss_of(idx, feats, tokens, masks, target)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
        row = {"epoch": epoch + 1, "train_cross_entropy": total / n, **evaluate_holdout()}
        history.append(row)
        print(json.dumps(row), flush=True)
        score = row.get("holdout_cross_entropy", -epoch)  # without a holdout: the last epoch
        if held_feats is None or score < best[0]:
            best = (score, epoch + 1, _copy(net))
    net.load_state_dict(best[2])
    summary = {
        "config": to_dict(cfg),
        "train_positions": n,
        "holdout_positions": len(held["tokens"]) if held_feats is not None else 0,
        "search_leaves_expert_train": float((train["search"] != train["expert"]).mean()),
        "fit_seconds": time.perf_counter() - start,
        "kept_epoch": best[1],
        "history": history,
    }
    payload = checkpoint_header(net)
    payload["training_summary"] = summary
    write_checkpoint(payload, Path(cfg.output_dir) / "policy.pt")
    (Path(cfg.output_dir) / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def _copy(net: Any) -> dict[str, Any]:
    return {k: v.clone() for k, v in net.state_dict().items()}


#: Fields a later invocation of the same run may change (``stage``: its next stage).
SAME_RUN = ("stage", "workers")


def main(argv: list[str] | None = None) -> int:
    """``gnome train --config FILE [--FIELD VALUE ...]`` (``--resume DIR`` continues a run:
    the chunks written are kept); Ctrl-C says what is kept."""
    cfg = run_command_line(
        SearchDistillConfig,
        "gnome train",
        __doc__.split("\n\n")[0],
        argv,
        same_run_ignores=SAME_RUN,
    )
    if cfg is None:
        return 2
    try:
        return run_stages(cfg, generate, fit)
    except KeyboardInterrupt:
        return interrupted(cfg.output_dir, kind="chunks")


if __name__ == "__main__":
    sys.exit(main())
