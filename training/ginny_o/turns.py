"""Train a whole-turn Ginny-O policy (:mod:`agents.ginny_o.turns`): imitate the expert, then PPO.

1. **Games of the expert's rule.** Every seat of 2- and 4-player games plays the expert's
   choice computed from its own features (:class:`~agents.ginny_o.turns.TurnFeatures`: the
   highest equity among the replied candidates, the weak-tile return, or a pass), and every
   decision is kept with that choice and the seat's final win share.
2. **Behaviour cloning.** The network learns the choices (cross-entropy over the masked
   logits) and its value head the win shares (squared error).
3. **PPO** (optional, ``--ppo-games``): one learner seat, sampling from the network, against
   n-1 ``expert`` bots, 2 and 4 players in turn; the reward is the learner's win share minus
   1/n at the game's end (G31), nothing before; GAE over each game's decisions.

With ``--own-samples N`` the imitated rule is the own-turn look-ahead
(:class:`~agents.ginny_o.expert.LookaheadGinnyAgent`, ``--own-weight``) and the candidates
get its ``own_next`` feature (the ``ginny_lookahead`` policy).

Games use seeds ``SEED_BASE + seed * 1_000_000 + i`` (:data:`SEED_BASE`), never an arena
seed. One torch thread; the same arguments give the same checkpoints. Writes ``OUT/bc.pt``,
``OUT/policy.pt`` (the final network: after PPO, or the BC one without it) and
``OUT/train_log.json``; ``OUT`` must not exist unless ``--overwrite``.

Run: python -m training.ginny_o.turns --out runs/ginny_turns --seed 1
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
import torch

from agents.ginny_o.expert import ExpertGinnyAgent
from agents.ginny_o.turns import (
    EQUITY_FEATURES,
    MAX_CANDIDATES,
    TurnFeatures,
    TurnPolicyNetwork,
    save_policy,
    turn_actions,
)
from gnome_env.ginny_o.config import GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.information import GinnyView

SEED_BASE = 60_000_000


def _turn_start(view: GinnyView) -> bool:
    return view.phase == "choose"


def expert_rule_games(
    players: int, games: int, seed0: int, k: int, search: dict[str, Any]
) -> tuple[list[dict[str, Any]], list[float]]:
    """Play ``games`` games where every seat follows the expert's rule on its own features;
    the decisions (features, mask, label, seat's win share) and each game's seconds."""
    data: list[dict[str, Any]] = []
    for g in range(games):
        game = GinnyGame(GinnyConfig(num_players=players), seed0 + g)
        feats = [TurnFeatures(seed0 + g * 10 + s, game.config, k, **search) for s in range(players)]
        plan: list[list[int]] = [[] for _ in range(players)]
        mine: list[list[int]] = [[] for _ in range(players)]
        while not game.game_over:
            seat = game.current
            view = GinnyView.from_game(game, seat)
            if plan[seat] and plan[seat][0] in view.legal_actions:
                game.step(plan[seat].pop(0))
                continue
            if not _turn_start(view):
                game.step(feats[seat].expert.decide(view))
                continue
            f = feats[seat].build(view)
            seq = turn_actions(view, f["order"], k, f["expert"])
            assert seq is not None
            mine[seat].append(len(data))
            data.append(
                {
                    "c": f["candidates"],
                    "x": f["context"],
                    "m": f["mask"],
                    "a": f["expert"],
                    "seat": seat,
                }
            )
            plan[seat] = list(seq[1:])
            game.step(seq[0])
        shares = _shares(game)
        for seat in range(players):
            for i in mine[seat]:
                data[i]["win"] = shares[seat]
    return data, []


def _shares(game: GinnyGame) -> list[float]:
    winners = game.winners()
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(game.num_players)]


def _batch(items: list[dict[str, Any]]) -> tuple[torch.Tensor, ...]:
    return (
        torch.as_tensor(np.stack([d["c"] for d in items])),
        torch.as_tensor(np.stack([d["x"] for d in items])),
        torch.as_tensor(np.stack([d["m"] for d in items])),
    )


def behaviour_clone(
    net: TurnPolicyNetwork,
    data: list[dict[str, Any]],
    epochs: int,
    lr: float,
    gen: torch.Generator,
    log: list[dict[str, Any]],
    smoothing: float = 0.0,
) -> None:
    """Cross-entropy on the expert's choices plus squared error of the value on win shares."""
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    c, x, m = _batch(data)
    a = torch.as_tensor([d["a"] for d in data])
    w = torch.as_tensor([d["win"] for d in data], dtype=torch.float32)
    n = len(data)
    for epoch in range(epochs):
        perm = torch.randperm(n, generator=gen)
        total = correct = 0.0
        for start in range(0, n, 256):
            idx = perm[start : start + 256]
            logits, value = net(c[idx], x[idx], m[idx])
            # label smoothing over the legal actions only (the masked ones stay at 0)
            legal = m[idx].float()
            target = (1.0 - smoothing) * torch.nn.functional.one_hot(a[idx], legal.shape[1])
            target = target + smoothing * legal / legal.sum(1, keepdim=True)
            logp = torch.log_softmax(logits, -1)
            ce = -(target * torch.where(m[idx], logp, torch.zeros_like(logp))).sum(1).mean()
            loss = ce + 0.5 * ((value - w[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(idx)
            correct += float((logits.argmax(-1) == a[idx]).sum())
        log.append({"phase": "bc", "epoch": epoch, "loss": total / n, "agree": correct / n})
        print(
            f"bc epoch {epoch}: loss {total / n:.4f}, agrees with the expert {correct / n:.4f}",
            flush=True,
        )


def ppo_games(
    net: TurnPolicyNetwork,
    players: int,
    games: int,
    seed0: int,
    k: int,
    gen: torch.Generator,
    search: dict[str, Any],
) -> tuple[list[dict[str, Any]], list[float]]:
    """One learner seat (rotating) sampling from ``net`` against expert bots; decisions with
    log-probabilities, values and GAE targets (reward: win share - 1/n at the end)."""
    out: list[dict[str, Any]] = []
    wins = []
    for g in range(games):
        config = GinnyConfig(num_players=players)
        game = GinnyGame(config, seed0 + g)
        me = g % players
        bots = {s: ExpertGinnyAgent(seed0 + g * 10 + s, config) for s in range(players) if s != me}
        feats = TurnFeatures(seed0 + g * 10 + me, config, k, **search)
        plan: list[int] = []
        steps: list[dict[str, Any]] = []
        while not game.game_over:
            seat = game.current
            view = GinnyView.from_game(game, seat)
            if seat != me:
                game.step(bots[seat].decide(view))
                continue
            if plan and plan[0] in view.legal_actions:
                game.step(plan.pop(0))
                continue
            if not _turn_start(view):
                game.step(feats.expert.decide(view))
                continue
            f = feats.build(view)
            with torch.no_grad():
                logits, value = net(
                    torch.as_tensor(f["candidates"])[None],
                    torch.as_tensor(f["context"])[None],
                    torch.as_tensor(f["mask"])[None],
                )
            probs = torch.softmax(logits[0], -1)
            a = int(torch.multinomial(probs, 1, generator=gen))
            steps.append(
                {
                    "c": f["candidates"],
                    "x": f["context"],
                    "m": f["mask"],
                    "a": a,
                    "same": a == f["expert"],
                    "logp": float(torch.log(probs[a])),
                    "v": float(value[0]),
                }
            )
            seq = turn_actions(view, f["order"], k, a)
            plan = list(seq[1:])
            game.step(seq[0])
        share = _shares(game)[me]
        wins.append(share)
        reward = share - 1.0 / players
        adv, nxt = 0.0, 0.0
        for i in reversed(range(len(steps))):
            r = reward if i == len(steps) - 1 else 0.0
            delta = r + nxt - steps[i]["v"]
            adv = delta + 0.95 * adv
            steps[i]["adv"], steps[i]["ret"] = adv, adv + steps[i]["v"]
            nxt = steps[i]["v"]
        out.extend(steps)
    return out, wins


def ppo_update(
    net: TurnPolicyNetwork,
    opt: torch.optim.Optimizer,
    data: list[dict[str, Any]],
    gen: torch.Generator,
    epochs: int = 3,
    clip: float = 0.2,
    ent: float = 0.003,
) -> dict[str, float]:
    c, x, m = _batch(data)
    a = torch.as_tensor([d["a"] for d in data])
    old = torch.as_tensor([d["logp"] for d in data], dtype=torch.float32)
    adv = torch.as_tensor([d["adv"] for d in data], dtype=torch.float32)
    ret = torch.as_tensor([d["ret"] for d in data], dtype=torch.float32)
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    n = len(data)
    stats = {"kl": 0.0}
    for _ in range(epochs):
        perm = torch.randperm(n, generator=gen)
        for start in range(0, n, 256):
            idx = perm[start : start + 256]
            logits, value = net(c[idx], x[idx], m[idx])
            logp_all = torch.log_softmax(logits, -1)
            logp = logp_all.gather(1, a[idx, None]).squeeze(1)
            ratio = torch.exp(logp - old[idx])
            pg = -torch.min(ratio * adv[idx], ratio.clamp(1 - clip, 1 + clip) * adv[idx]).mean()
            probs = logp_all.exp()
            entropy = -(probs * torch.where(m[idx], logp_all, torch.zeros_like(logp_all))).sum(-1)
            loss = pg + 0.5 * ((value - ret[idx]) ** 2).mean() - ent * entropy.mean()
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 0.5)
            opt.step()
            stats["kl"] = float((old[idx] - logp).detach().mean())
    return stats


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m training.ginny_o.turns", description=__doc__.splitlines()[0]
    )
    p.add_argument("--out", required=True, help="output directory (new)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing --out")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--bc-games-2p", type=int, default=120)
    p.add_argument("--bc-games-4p", type=int, default=60)
    p.add_argument("--bc-epochs", type=int, default=30)
    p.add_argument("--bc-lr", type=float, default=1e-3)
    p.add_argument("--ppo-games", type=int, default=0, help="PPO games (0: no PPO)")
    p.add_argument("--ppo-batch", type=int, default=64, help="games per PPO update")
    p.add_argument("--ppo-lr", type=float, default=2e-4)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument(
        "--reply-top",
        type=int,
        default=8,
        help="candidates whose next-seat reply is estimated (the expert: 6)",
    )
    p.add_argument(
        "--reply-samples",
        type=int,
        default=12,
        help="racks sampled for each reply estimate (the expert: 6)",
    )
    p.add_argument(
        "--own-samples",
        type=int,
        default=0,
        help="look at the seat's own next turn with this many refilled racks per replied "
        "candidate and imitate that rule (LookaheadGinnyAgent; 0: the expert's rule)",
    )
    p.add_argument(
        "--own-weight",
        type=float,
        default=0.8,
        help="weight of the own next turn's expected best score in the imitated equity",
    )
    p.add_argument(
        "--reply-per-seat",
        type=float,
        default=None,
        help="weight the reply estimate by this times the number of other seats in the "
        "imitated equity (default: the expert's fixed 0.5)",
    )
    p.add_argument(
        "--label-smoothing",
        type=float,
        default=0.1,
        help="behaviour cloning: this share of the target spread over legal actions",
    )
    p.add_argument(
        "--no-equity",
        action="store_true",
        help="zero the expert's reply and equity features (the ablation)",
    )
    args = p.parse_args(argv)
    for name in (
        "bc_games_2p",
        "bc_games_4p",
        "bc_epochs",
        "ppo_games",
        "ppo_batch",
        "own_samples",
    ):
        if getattr(args, name) < 0:
            p.error(f"--{name.replace('_', '-')} must be at least 0")
    if (
        min(args.hidden, args.reply_top, args.reply_samples) < 1
        or args.bc_lr <= 0
        or args.ppo_lr <= 0
    ):
        p.error("--hidden, --reply-top, --reply-samples, --bc-lr and --ppo-lr must be positive")
    if args.reply_per_seat is not None and not args.reply_per_seat >= 0:
        p.error("--reply-per-seat must be at least 0")
    if not 0.0 <= args.label_smoothing < 1.0:
        p.error("--label-smoothing must be in [0, 1)")
    if args.bc_games_2p + args.bc_games_4p < 1:
        p.error("behaviour cloning needs at least one game (--bc-games-2p / --bc-games-4p)")
    out = Path(args.out)
    if out.exists() and not args.overwrite:
        p.error(f"--out {out} already exists: give a new directory, or --overwrite")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    gen = torch.Generator().manual_seed(args.seed)
    k = MAX_CANDIDATES
    base = SEED_BASE + args.seed * 1_000_000
    search: dict[str, Any] = {"top": args.reply_top, "samples": args.reply_samples}
    if args.own_samples:
        search.update(own=args.own_samples, own_weight=args.own_weight)
    if args.reply_per_seat is not None:
        search["reply_per_seat"] = args.reply_per_seat
    start = time.perf_counter()
    log: list[dict[str, Any]] = []
    data = []
    for players, games, offset in ((2, args.bc_games_2p, 0), (4, args.bc_games_4p, 100_000)):
        t = time.perf_counter()
        d, _ = expert_rule_games(players, games, base + offset, k, search)
        data += d
        print(
            f"{games} {players}-player games of the expert's rule: {len(d)} decisions, "
            f"{time.perf_counter() - t:.0f} s",
            flush=True,
        )
    drop = EQUITY_FEATURES if args.no_equity else ()
    net = TurnPolicyNetwork(k=k, hidden=args.hidden, drop=drop, own=bool(args.own_samples))
    behaviour_clone(net, data, args.bc_epochs, args.bc_lr, gen, log, args.label_smoothing)
    config = {k_: v for k_, v in vars(args).items() if k_ not in ("out", "overwrite")}
    bc_s = time.perf_counter() - start
    save_policy(
        net,
        out / "bc.pt",
        {"config": config, "phase": "bc", "decisions": len(data), "seconds": round(bc_s, 1)},
        search,
    )
    opt = torch.optim.Adam(net.parameters(), lr=args.ppo_lr)
    played = 0
    update = 0
    while played < args.ppo_games:
        players = 2 if update % 2 == 0 else 4
        n = min(args.ppo_batch, args.ppo_games - played)
        t = time.perf_counter()
        net.eval()
        d, wins = ppo_games(net, players, n, base + 200_000 + played, k, gen, search)
        net.train()
        stats = ppo_update(net, opt, d, gen)
        net.eval()
        played += n
        update += 1
        row = {
            "phase": "ppo",
            "update": update,
            "players": players,
            "games": played,
            "win": float(np.mean(wins)),
            "decisions": len(d),
            "expert_share": float(np.mean([x["same"] for x in d])),
            **stats,
            "seconds": round(time.perf_counter() - t, 1),
        }
        log.append(row)
        print(json.dumps(row), flush=True)
        save_policy(
            net,
            out / "policy.pt",
            {
                "config": config,
                "phase": "ppo",
                "games": played,
                "seconds": round(time.perf_counter() - start, 1),
            },
            search,
        )
    total = time.perf_counter() - start
    if args.ppo_games == 0:
        shutil.copyfile(out / "bc.pt", out / "policy.pt")
    (out / "train_log.json").write_text(
        json.dumps(
            {
                "config": config,
                "seconds": round(total, 1),
                "bc_seconds": round(bc_s, 1),
                "decisions": len(data),
                "log": log,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"done in {total:.0f} s: {out / 'policy.pt'}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
