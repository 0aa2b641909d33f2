"""Coverage of the arena's luck-corrected intervals where the truth is known (issue #33, 2a/2c).

In a lineup of n copies of one bot every entry's true win rate is 1/n by symmetry. This
script plays ``--runs`` independent small arena runs (arena seeds ``--seed``, ``--seed + 1``,
...; ``--deals`` deals of n rotations each, exactly as ``gnome eval`` plays them) and
counts how often entry 0's 95% interval covers 1/n:

* ``plain``: the arena's interval over per-deal mean win shares;
* ``corrected``: the luck-corrected interval (:mod:`agents.gnoming.luck`);
* ``biased``: the same with a deliberately wrong expectation -- at every chance event of
  the seat where entry 0 sits, the expectation weights each card *kind* equally instead of
  by how many copies are unseen (only entry 0's own terms, so that the bias cannot cancel
  over the seat rotations of a symmetric lineup, which it would for an error shared by all
  seats).

The bot must be stochastic (``greedy`` breaks ties with its seeded generator), otherwise
the rotations of a deal are the same game and every per-deal mean is exactly 1/n.

``--game nerts`` does the same for Nerts (:mod:`agents.nerts.luck`) with one-hand games
capped at ``--max-steps`` steps and the ``random`` bot (Nerts' greedy and expert draw no
random numbers); its deliberately wrong expectation averages each of entry 0's reveals over
the seat's whole deck, cards already shown included, instead of over the unseen cards.

Run:  python bench/luck_coverage.py --runs 200 --deals 20 \
          --out results/gnoming/luck/coverage_3p.json
      python bench/luck_coverage.py --game nerts --bot random --runs 200 --deals 10 \
          --out results/nerts/luck/coverage_random_3p.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from agents.core.arena import Z_95, agent_seed_for, deal_seeds, rotation_seats
from agents.gnoming import luck_kernel as K
from agents.gnoming.luck import chance_events, event_terms, shipped_value
from agents.gnoming.registry import make_agent
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.information import SeatView


def biased_terms(event, value, tie: bool) -> np.ndarray:
    """Win terms with the wrong expectation: every card kind of the support weighted equally."""
    if event.kind == K.REVEAL_ALL:
        return event_terms(event, value, tie)[0]
    wrong = event.counts
    event.counts = np.ones_like(wrong)
    try:
        return event_terms(event, value, tie)[0]
    finally:
        event.counts = wrong


def play_deal(spec: str, n: int, seed: int, deal: int) -> list[tuple[float, float, float]]:
    """Entry 0's (win share, correct luck, biased luck) in each rotation of one deal."""
    config = RulesConfig(num_players=n)
    value = shipped_value()
    tie = bool(config.first_out_tie_is_lowest)
    game_seed, agent_seed = deal_seeds(seed, deal)
    out = []
    for rotation in range(n):
        seats = rotation_seats(n, rotation)
        agents = [None] * n
        for i in range(n):
            agents[seats[i]] = make_agent(spec, agent_seed_for(agent_seed, rotation, i), config)
        game = Game(config, game_seed)
        while not game.game_over:
            s = game.current_seat
            game.step(agents[s].decide(SeatView.from_game(game, s)))
        me = seats[0]
        share = 1.0 / len(game.winners()) if me in game.winners() else 0.0
        luck = biased = 0.0
        for event in chance_events(config, game_seed, game.actions):
            term = event_terms(event, value, tie)[0][me]
            luck += term
            own = event.kind != K.REVEAL_ALL and event.seat == me
            biased += biased_terms(event, value, tie)[me] if own else term
        out.append((share, luck, biased))
    return out


def play_nerts_deal(
    spec: str, n: int, seed: int, deal: int, max_steps: int
) -> list[tuple[float, float, float]]:
    """Nerts: entry 0's (win share, correct luck, biased luck) in each rotation of one deal."""
    from agents.nerts.arena import play_game as play_nerts
    from agents.nerts.luck import _Tracker, chance_terms
    from agents.nerts.luck import shipped_value as nerts_value
    from agents.nerts.registry import make_nerts_agent
    from gnome_env.nerts.config import NertsConfig
    from gnome_env.nerts.records import GameLog

    config = NertsConfig(num_players=n, max_hands=1, max_steps_per_hand=max_steps)
    game_seed, agent_seed = deal_seeds(seed, deal)
    out = []
    for rotation in range(n):
        seats = rotation_seats(n, rotation)
        agents = [None] * n
        for i in range(n):
            agents[seats[i]] = make_nerts_agent(
                spec, agent_seed_for(agent_seed, rotation, i), config
            )
        log = GameLog(config, game_seed)
        play_nerts(log, agents)
        me = seats[0]
        winners = log.game.winners()
        share = 1.0 / len(winners) if me in winners else 0.0
        scale = nerts_value().scale[0]
        luck = float(chance_terms(config, game_seed, log.hands, nerts_value()).win[me]) * scale
        # the same replay with a wrong support at entry 0's own reveals
        tracker = _Tracker(GameLog(config, game_seed).game, nerts_value())
        honest = tracker._reveal_terms
        whole = list(range(config.deck_size))

        def wrong(*args, honest=honest, whole=whole, me=me):
            snap, seat, where, index, card, unseen = args
            support = whole if seat == me else unseen
            return honest(snap, seat, where, index, card, support)

        tracker._reveal_terms = wrong
        tracker.reveals(0)
        for joint in log.hands[0]:
            tracker.step(joint)
        out.append((share, luck, float(tracker.win[me]) * scale))
    return out


def interval(samples: list[float]) -> tuple[float, float]:
    x = np.asarray(samples)
    half = Z_95 * x.std(ddof=1) / np.sqrt(len(x))
    return float(x.mean() - half), float(x.mean() + half)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=["gnoming", "nerts"], default="gnoming")
    parser.add_argument("--bot", default="greedy", help="the bot of every seat (stochastic)")
    parser.add_argument("--max-steps", type=int, default=150, help="Nerts: the hand's step cap")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--deals", type=int, default=20, help="deals per run")
    parser.add_argument("--seed", type=int, default=880000, help="arena seed of the first run")
    parser.add_argument("--out", help="write the figures to this new JSON file")
    args = parser.parse_args(argv)
    if args.runs < 1 or args.deals < 2:
        parser.error("--runs must be at least 1 and --deals at least 2")
    if args.out and Path(args.out).exists():
        parser.error(f"--out {args.out} already exists: give another file name")
    n = args.players
    start = time.perf_counter()
    hits = {"plain": 0, "corrected": 0, "biased": 0}
    widths = {"plain": [], "corrected": [], "biased": []}
    plain_means, fixed_means = [], []
    for run in range(args.runs):
        if args.game == "nerts":
            deals = [
                play_nerts_deal(args.bot, n, args.seed + run, d, args.max_steps)
                for d in range(args.deals)
            ]
        else:
            deals = [play_deal(args.bot, n, args.seed + run, d) for d in range(args.deals)]
        per = {
            "plain": [np.mean([g[0] for g in deal]) for deal in deals],
            "corrected": [np.mean([g[0] - g[1] for g in deal]) for deal in deals],
            "biased": [np.mean([g[0] - g[2] for g in deal]) for deal in deals],
        }
        plain_means += per["plain"]
        fixed_means += per["corrected"]
        for key, samples in per.items():
            low, high = interval(samples)
            hits[key] += low <= 1 / n <= high
            widths[key].append(high - low)
        if (run + 1) % 10 == 0:
            cov = {k: round(v / (run + 1), 3) for k, v in hits.items()}
            print(
                f"{run + 1} runs, {time.perf_counter() - start:.0f} s: coverage {cov}",
                file=sys.stderr,
                flush=True,
            )
    figures = {
        "command": "python bench/luck_coverage.py " + " ".join(argv or sys.argv[1:]),
        "game": args.game,
        "bot": args.bot,
        "players": n,
        "runs": args.runs,
        "deals_per_run": args.deals,
        "games": args.runs * args.deals * n,
        "coverage": {k: v / args.runs for k, v in hits.items()},
        "mean_width": {k: float(np.mean(v)) for k, v in widths.items()},
        "variance_reduction": float(np.var(plain_means, ddof=1) / np.var(fixed_means, ddof=1)),
        "seconds": round(time.perf_counter() - start, 1),
    }
    print(json.dumps(figures, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
