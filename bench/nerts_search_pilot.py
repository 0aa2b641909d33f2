"""A fast pilot for Nerts search settings: the search in one seat against n-1 compiled experts
on the batched engine.

    python bench/nerts_search_pilot.py --players 4 --games 1000 --seed 11 --z 2 --margin 0.1

``--envs`` one-hand games (400-step cap) run together on
:class:`gnome_env.nerts.vector.NertsVectorEngine`; in game ``e`` of slot ``b`` the search
plays seat ``(b + e) % n`` and the compiled expert (:mod:`agents.nerts._bot_kernels`) every
other seat. The search decides through :func:`agents.nerts.search.search_batch` on the
engine's rows, which reads each seat's hidden cards only as a sorted set and decides as
:class:`agents.nerts.search.SearchNertsAgent` does from the seat's view (tested), at about a
third of the arena's cost (no views, no Python bots). The deals are the engine's streams
of ``--seed``, so two settings run with one seed meet the same deals. It prints the search's
win share (1/k for k best hand scores, N30) with a 95% interval over games, how often it
left the expert's move, and the time. ``--expert`` plays the expert in the tested seat
instead (the same deals): the pilot's reference.

A pilot, not a result: the arena (``gnome eval``) on a seed no pilot used gives the figures
in ``docs/nerts.md``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from _script import run

from agents.nerts import _bot_kernels as BK
from agents.nerts.memory import remember_waste_tops, seen_array
from agents.nerts.search import SearchBuffers, allowed_candidates, search_batch
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.vector import NertsVectorEngine


class SearchTable:
    """One-hand games (400-step cap) on the batched engine with the buffers that the
    compiled experts and the search need; shared by the search's bench scripts."""

    #: the engine's observations (``"seats"``: every seat's, kept in ``obs`` after each step)
    observations = "none"

    def __init__(self, players: int, envs: int, seed: int) -> None:
        config = NertsConfig(num_players=players, max_hands=1, max_steps_per_hand=400)
        self.engine = NertsVectorEngine(config, envs, observations=self.observations)
        self.obs, self.masks = self.engine.reset(seed=seed)
        self.st, self.prm, self.ids, self.counts = self.engine.compiled_state()
        self.sc = np.zeros(K.SCRATCH, np.int64)
        self.bs = BK.empty_scratch(self.engine.n_actions)
        self.bufs = SearchBuffers(self.engine.n_actions)
        self.no_values = np.zeros((0, 1), np.float32)
        self._allow: dict[str | None, np.ndarray] = {}
        self.seen = seen_array(envs)  # the waste tops of every game's hand so far (memory)
        remember_waste_tops(self.st, self.seen)

    def experts(self, kinds: np.ndarray, out: np.ndarray) -> None:
        """``out[b, s]``: the compiled bot ``kinds[b, s]``'s move (0: left as it is)."""
        BK.decide_batch(self.st, self.prm, self.ids, self.counts, kinds, self.sc, self.bs, out)

    def step(self, joint: np.ndarray):
        """One engine step of every game (``joint``: every seat's action); its result."""
        result = self.engine.step(joint)
        self.obs, self.masks = result.obs, result.masks
        remember_waste_tops(self.st, self.seen)
        return result

    def allow(self, settings: dict) -> np.ndarray:
        """The ``allow`` flags of the search's candidates for ``settings`` (built once per
        setting: the search asks for them every step)."""
        kinds = settings.get("candidates")
        if kinds not in self._allow:
            self._allow[kinds] = allowed_candidates(NertsConfig(), kinds)
        return self._allow[kinds]

    def search(self, who, keys, settings: dict, out: np.ndarray, dev: np.ndarray) -> None:
        """``out[b, s]`` / ``dev[b, s]``: the search's move and whether it left the expert's,
        for every seat with ``who[b, s]`` set (``search_batch`` with ``settings``)."""
        seen = self.seen if settings.get("memory") else self.bufs.no_seen
        search_batch(self.st, self.prm, self.ids, self.counts, who, keys, settings["samples"],
                     settings["horizon"], settings["score_weight"], settings["margin"],
                     settings["z"], self.allow(settings), seen,
                     self.bufs.hid, self.bufs.hid_n, self.bufs.known,
                     *self.bufs.tail(), out, dev, self.no_values)  # fmt: skip


def add_search_options(p: argparse.ArgumentParser) -> None:
    """The search's settings as options (its defaults: the ``search`` spec's)."""
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--horizon", type=int, default=60)
    p.add_argument("--score-weight", type=float, default=0.1)
    p.add_argument("--margin", type=float, default=0.3)
    p.add_argument("--z", type=float, default=0.0, help="the deviation test (0: none)")
    p.add_argument("--memory", action="store_true", help="the search remembers waste tops")
    p.add_argument(
        "--candidates",
        metavar="KINDS",
        default=None,
        help="only these kinds besides the expert's move (e.g. turn; default: all)",
    )


def search_settings(p: argparse.ArgumentParser, args: argparse.Namespace) -> dict:
    """The settings of :func:`add_search_options`, a parser error for a value out of range."""
    if min(args.samples, args.horizon) < 1:
        p.error("--samples and --horizon must be at least 1")
    if min(args.margin, args.score_weight, args.z) < 0:
        p.error("--margin, --score-weight and --z must be at least 0")
    settings = {
        "samples": args.samples, "horizon": args.horizon, "score_weight": args.score_weight,
        "margin": args.margin, "z": args.z, "memory": int(args.memory),
    }  # fmt: skip
    if args.candidates is not None:
        try:
            allowed_candidates(NertsConfig(), args.candidates)
            settings["candidates"] = args.candidates
        except ValueError as err:
            p.error(f"--candidates: {err}")
    return settings


def play(
    players: int, games: int, seed: int, envs: int, settings: dict | None, table_class=None
) -> tuple[np.ndarray, int, int]:
    """``(shares, decisions, deviations)``: the tested seat's win share in each of
    ``games`` games (slot-major order), and its searched decisions and deviations;
    ``settings`` (samples, horizon, score_weight, margin, z, optionally memory) or None for
    the expert;
    ``table_class``: a :class:`SearchTable` subclass with its own search (default: it)."""
    envs = min(envs, games)
    per_slot = math.ceil(games / envs)
    table = (table_class or SearchTable)(players, envs, seed)
    counts = table.counts
    rows = np.arange(envs)
    done = np.zeros(envs, np.int64)  # games finished per slot
    shares = np.full((envs, per_slot), np.nan)
    kinds = np.zeros((envs, 6), np.int64)
    who = np.zeros((envs, 6), np.int64)
    keys = np.zeros((envs, 6), np.int64)
    joint = np.zeros((envs, 6), np.int64)
    searched = np.zeros((envs, 6), np.int64)
    dev = np.zeros((envs, 6), np.int64)
    decisions = deviations = step = 0
    while (done < per_slot).any():
        tested = (rows + done) % players
        kinds[:, :players] = BK.KIND_EXPERT
        who[:] = 0
        active = done < per_slot  # (finished slots play on with the expert, unrecorded)
        if settings is not None:
            kinds[rows[active], tested[active]] = BK.KIND_NONE
            who[rows, tested] = active
        joint[:] = 0
        table.experts(kinds, joint)
        if settings is not None:
            keys[rows, tested] = (seed * 1_000_003 + rows * 10_007 + step) % 2**62
            searched[:] = joint
            dev[:] = 0
            table.search(who, keys, settings, searched, dev)
            multi = counts[rows, tested] > 1
            decisions += int((active & multi).sum())
            deviations += int(dev[rows, tested].sum())
            joint[rows, tested] = np.where(active, searched[rows, tested], joint[rows, tested])
        result = table.step(joint)
        step += 1
        for b in np.flatnonzero(result.dones).tolist():
            if done[b] < per_slot:
                scores = result.info["hand_scores"][b, :players]
                best = scores == scores.max()
                shares[b, done[b]] = best[tested[b]] / best.sum()
            done[b] += 1
    return shares.reshape(-1)[:games], decisions, deviations


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=4, choices=range(2, 7))
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=11, help="the engine seed of the deals")
    p.add_argument("--envs", type=int, default=100, help="games stepped together")
    add_search_options(p)
    p.add_argument("--expert", action="store_true", help="the expert in the tested seat")
    args = p.parse_args(argv)
    if min(args.games, args.envs) < 1 or not 0 <= args.seed < 2**62:
        p.error("--games and --envs must be at least 1, --seed in 0..2**62-1")
    settings = search_settings(p, args)
    if args.expert:
        settings = None
    start = time.perf_counter()
    shares, decisions, deviations = play(args.players, args.games, args.seed, args.envs, settings)
    who = "expert" if settings is None else ", ".join(f"{k} {v}" for k, v in settings.items())
    print(report(args.players, args.seed, f" ({who})", shares, decisions if settings else None,
                 deviations, time.perf_counter() - start))  # fmt: skip
    return 0


def report(players: int, seed: int, label: str, shares: np.ndarray, decisions: int | None,
           deviations: int, seconds: float) -> str:  # fmt: skip
    """The line a search bench prints: the tested seat's mean win share with its 95%
    interval over games, and (unless ``decisions`` is None) how often it left the expert."""
    half = 1.96 * shares.std(ddof=1) / math.sqrt(len(shares)) if len(shares) > 1 else math.nan
    left = (
        ""
        if decisions is None
        else f", left the expert at {deviations / max(decisions, 1):.1%} of {decisions:,} decisions"
    )
    return (
        f"players {players}, games {len(shares)}, seed {seed}{label}: win share "
        f"{shares.mean():.4f} [{shares.mean() - half:.4f}, {shares.mean() + half:.4f}] "
        f"(1/n = {1 / players:.3f}){left}, {seconds:.0f} s"
    )


if __name__ == "__main__":
    run(main)
