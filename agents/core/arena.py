"""The game-independent half of the evaluation arena: seeds, metrics, results, the run loop.

The front door is :func:`run_arena` (``run_arena(..., game="gnoming" | "nerts" | "ginny_o")``,
re-exported by :mod:`agents.gnoming.arena` at its old path ``agents.arena``); this module is
what every game shares, written once. A game plugs in as an
:class:`ArenaGame`: its seat range, how it normalises rule options to a plain dict, how it
checks a lineup entry, its pure per-deal work unit ``play_deal`` and the text of its rules
line. The games are the registered ones (:data:`GAMES`), each plug-in loaded lazily by
:func:`arena_game`, so running one game's arena never imports another game.

Every game's ``play_deal(lineup, n, rules_dict, deal_seed, agent_seed, record_rotations=(),
record_meta=None)`` returns one record per seat rotation with, by lineup entry, ``seats``,
``totals``, the per-round/hand/game scores (under the game's ``score_key``), ``ranks`` (1 =
best, ties share the average) and ``win_shares`` (a shared win among k gives 1/k each);
:func:`summarize` turns those into the metrics of :class:`EntryStats`.
"""

from __future__ import annotations

import csv
import json
import math
import os
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from gnome_env.core import rng
from gnome_env.core.config import check_int
from gnome_env.core.renamed import rename_keys
from gnome_env.registry import game_names, get_game

#: A lineup entry: an agent spec string (``"random"``) or a factory ``(seed, config) -> agent``.
LineupEntry = str | Callable[[int, Any], Any]

Z_95 = 1.959963984540054  # two-sided 95% quantile of the standard normal
CI_METHOD = (
    "normal approximation over deals: mean of the per-deal mean win shares "
    "+- 1.96 * s / sqrt(D), s = sample standard deviation (ddof=1) of the D per-deal means, "
    "clipped to [0, 1]; [0, 1] when D < 2"
)
RATING_MODEL = "openskill PlackettLuce (defaults mu=25, sigma=25/3), one rate() per game"
BACKENDS = ("loky", "ray", "dask")
#: Sequential stopping (``until_significant``): the deals between two looks, and the error
#: level of the confidence sequence (:mod:`agents.core.sequential`).
SEQUENTIAL_CHECK_EVERY = 25
SEQUENTIAL_ALPHA = 0.05
LUCK_METHOD = (
    "control variate from chance events (AIVAT without decision terms): each game's outcome "
    "minus, summed over its chance events, the value after the outcome that happened minus "
    "the exact expectation of that value over the outcomes that could have happened; "
    "intervals over per-deal means as for the plain figures"
)
RECORD_SOURCE = "gnome eval"  #: ``meta["source"]`` of the game records the arena saves

#: The games the arena plays: every registered game (:mod:`gnome_env.registry`), whose
#: descriptor names its :class:`ArenaGame` plug-in.
GAMES = game_names()


@dataclass(frozen=True)
class ArenaGame:
    """What the shared arena needs to know about one game."""

    name: str
    title: str
    min_players: int
    max_players: int
    play_deal: Callable[..., list[dict[str, Any]]]
    """The pure work unit (module level, so worker processes can import it)."""
    rules_dict: Callable[[Any, int], dict[str, Any]]
    """``(rules, n) -> dict``: the full, validated rule options as a plain dict."""
    check_entry: Callable[[Any, Mapping[str, Any]], None]
    """``(spec, rules_dict)``: raise ValueError (listing the known specs) for a bad spec."""
    rules_line: Callable[[Mapping[str, Any], int], str]
    """``(rules_dict, n) -> str``: the rules line of the printed table."""
    score_name: str
    """What one scoring unit is called in the table: ``round`` or ``hand``."""
    score_key: str
    """The record key of the per-unit scores: ``round_scores`` or ``hand_scores``."""
    saves_games: bool
    """Whether ``save_games`` is supported (a replayable record format exists)."""
    record_text: Callable[[Mapping[str, Any]], str] | None = None
    """How a saved game record is written (None: indented JSON)."""
    luck: Callable[[], dict[str, Any]] | None = None
    """Luck correction (``variance_reduction``): None where the game has none; else a
    function returning what describes its value function (``settings["variance_reduction"]``),
    and ``play_deal(..., luck=True)`` adds ``luck_win`` and ``luck_total`` (by lineup entry:
    the summed correction terms of the game) to each record."""


def arena_game(name: str) -> ArenaGame:
    """The :class:`ArenaGame` of ``name`` (one of :data:`GAMES`), imported on first use."""
    return get_game(name).load("arena")


# ---------------------------------------------------------------------- small pure helpers
def average_ranks(keys: Sequence[Any]) -> list[float]:
    """Rank of each item by its key, lowest key first (1 = best); equal keys share the mean rank.

    ``average_ranks([10, 5, 5, 20])`` is ``[3.0, 1.5, 1.5, 4.0]``.
    """
    n = len(keys)
    order = sorted(range(n), key=lambda i: keys[i])
    ranks = [0.0] * n
    i = 0
    while i < n:
        j = i
        while j + 1 < n and keys[order[j + 1]] == keys[order[i]]:
            j += 1
        shared = (i + j) / 2 + 1  # positions i..j (0-based) share the mean of ranks i+1..j+1
        for k in range(i, j + 1):
            ranks[order[k]] = shared
        i = j + 1
    return ranks


def win_shares(winners: Sequence[int], n: int) -> list[float]:
    """Win share of each of ``n`` seats: ``1/k`` for each of the ``k`` winners, else 0."""
    if not winners:
        raise ValueError("a finished game has at least one winner")
    share = 1.0 / len(winners)
    out = [0.0] * n
    for seat in winners:
        out[seat] = share
    return out


def normal_ci(samples: Sequence[float], z: float = Z_95) -> tuple[float, float, float]:
    """Mean and normal-approximation interval ``mean +- z * s / sqrt(N)``, clipped to [0, 1].

    ``s`` is the sample standard deviation (``ddof=1``). With fewer than two samples there
    is no spread estimate and the interval is the whole of [0, 1].
    """
    values = np.asarray(samples, dtype=float)
    if values.size == 0:
        raise ValueError("normal_ci needs at least one sample")
    mean = float(values.mean())
    if values.size < 2:
        return mean, 0.0, 1.0
    half = z * float(values.std(ddof=1)) / math.sqrt(values.size)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def deal_seeds(seed: int, deal: int) -> tuple[int, int]:
    """``(game_seed, agent_seed)`` of deal number ``deal`` of a run seeded with ``seed``.

    Outputs 0 and 1 of the stream ``(ARENA, seed, deal)`` of the project's generator
    (:mod:`gnome_env.core.rng`), so a deal's seeds do not depend on how many deals the run has,
    on which worker plays it, or on the numpy version.
    """
    return (
        rng.derive_seed(rng.ARENA, seed, deal, 0, 0),
        rng.derive_seed(rng.ARENA, seed, deal, 0, 1),
    )


def agent_seed_for(agent_seed: int, rotation: int, entry: int) -> int:
    """The seed of lineup entry ``entry`` in rotation ``rotation`` of a deal with ``agent_seed``."""
    return rng.derive_seed(rng.ARENA, agent_seed, rotation + 1, entry + 1)


def entry_label(entry: LineupEntry) -> str:
    """How an entry is named in tables: its spec, or a factory's ``__name__``."""
    if isinstance(entry, str):
        return entry.strip()
    return getattr(entry, "__name__", None) or type(entry).__name__


def entry_names(lineup: Sequence[LineupEntry]) -> list[str]:
    """Unique entry names; a repeated label is numbered: ``greedy#1``, ``greedy#2``."""
    labels = [entry_label(e) for e in lineup]
    counts = Counter(labels)
    seen: Counter[str] = Counter()
    names = []
    for label in labels:
        if counts[label] > 1:
            seen[label] += 1
            names.append(f"{label}#{seen[label]}")
        else:
            names.append(label)
    return names


def rotation_seats(n: int, rotation: int) -> list[int]:
    """Rotation ``rotation`` seats lineup entry ``i`` at ``(i + rotation) % n``."""
    return [(i + rotation) % n for i in range(n)]


def game_meta(
    lineup: Sequence[LineupEntry],
    seats: Sequence[int],
    rotation: int,
    entry_seeds: Sequence[int],
    base: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The ``meta`` of a saved arena game, JSON-ready: ``base`` (the run's ``source``,
    ``arena_seed``, ``deal``) plus ``num_players``, ``lineup`` (entry labels), ``players``
    (the label of the agent at each seat), ``seats`` (the seat of each entry), ``rotation``,
    ``agent_seeds`` (by seat) and, when ``base`` has a ``deal``, ``game_index = deal * n +
    rotation``."""
    n = len(seats)
    entry_at = [0] * n
    for i, seat in enumerate(seats):
        entry_at[seat] = i
    labels = [entry_label(e) for e in lineup]
    meta: dict[str, Any] = dict(base or {})
    meta.update(
        num_players=n,
        lineup=labels,
        players=[labels[entry_at[s]] for s in range(n)],
        seats=list(seats),
        rotation=rotation,
        agent_seeds=[int(entry_seeds[entry_at[s]]) for s in range(n)],
    )
    if "deal" in meta:
        meta["game_index"] = int(meta["deal"]) * n + rotation
    return meta


def play_rotations(
    lineup_specs: Sequence[Any],
    n: int,
    deal_seed: int,
    agent_seed: int,
    build: Callable[[Any, int], Any],
    play: Callable[..., tuple[dict[str, list[Any]], dict[str, Any]]],
    record_rotations: Sequence[int] = (),
    record_meta: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """The ``n`` seat rotations of one deal, for the games played by a ``play`` callback
    (Nerts, Ginny-O).

    Rotation ``r`` seats lineup entry ``i`` at ``(i + r) % n`` with the agent
    ``build(entry, agent_seed_for(agent_seed, r, i))``; ``play(agents_by_seat)`` plays the
    deal's game and returns ``(by_seat, extra)``: lists indexed by seat (``totals``, the
    per-unit scores, ``ranks``, ``win_shares``, ...) and game-wide values. Each record is
    ``rotation``, ``game_seed``, ``seats``, every ``by_seat`` list reordered by lineup entry,
    then ``extra``. For a rotation in ``record_rotations``, ``play`` is called as
    ``play(agents_by_seat, meta)`` with the saved game's :func:`game_meta` and puts the game
    record under ``extra["record"]``.
    """
    if len(lineup_specs) != n:
        raise ValueError(f"{len(lineup_specs)} lineup entries for {n} players: give exactly {n}")
    records = []
    for rotation in range(n):
        seats = rotation_seats(n, rotation)
        entry_seeds = [agent_seed_for(agent_seed, rotation, i) for i in range(n)]
        agents: list[Any] = [None] * n
        for i, entry in enumerate(lineup_specs):
            agents[seats[i]] = build(entry, entry_seeds[i])
        if rotation in record_rotations:
            meta = game_meta(lineup_specs, seats, rotation, entry_seeds, record_meta)
            by_seat, extra = play(agents, meta)
        else:
            by_seat, extra = play(agents)
        record: dict[str, Any] = {"rotation": rotation, "game_seed": deal_seed, "seats": seats}
        for key, values in by_seat.items():
            record[key] = [values[s] for s in seats]
        record.update(extra)
        records.append(record)
    return records


# ---------------------------------------------------------------------- results
@dataclass(frozen=True)
class EntryStats:
    """The metrics of one lineup entry (the fields of the JSON and CSV outputs, in order).

    ``mean_round_score`` is the mean score per scoring unit: per round in Gnoming A Round,
    per hand in Nerts. The ``corrected_*`` fields and the variance-reduction factors are set
    only by a run with the luck correction (``variance_reduction=True``; None otherwise, and
    then left out of the JSON and CSV): the mean of the luck-corrected win shares and game
    totals with their 95% intervals over per-deal means, and the factors
    ``variance_reduction`` (plain variance of the per-deal mean win shares / corrected one)
    and ``total_variance_reduction`` (the same for totals).
    """

    name: str
    games: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_round_score: float
    mean_total: float
    mean_rank: float
    rating_mu: float
    rating_sigma: float
    corrected_win_rate: float | None = None
    corrected_ci_low: float | None = None
    corrected_ci_high: float | None = None
    variance_reduction: float | None = None
    corrected_mean_total: float | None = None
    corrected_total_ci_low: float | None = None
    corrected_total_ci_high: float | None = None
    total_variance_reduction: float | None = None

    def fields_dict(self) -> dict[str, Any]:
        """The fields, without the corrected ones of a run that did not compute them."""
        out = asdict(self)
        if self.corrected_win_rate is None:
            for name in CORRECTED_FIELDS:
                out.pop(name)
        return out


_ALL_FIELDS = tuple(f.name for f in fields(EntryStats))
#: The fields of every run's JSON and CSV entries, in order.
STAT_FIELDS = _ALL_FIELDS[: _ALL_FIELDS.index("corrected_win_rate")]
#: The fields a run with the luck correction adds after them.
CORRECTED_FIELDS = _ALL_FIELDS[len(STAT_FIELDS) :]


def _mean_ci(samples: Sequence[float], z: float = Z_95) -> tuple[float, float, float]:
    """Mean and normal-approximation interval (not clipped); the interval is infinite for
    fewer than 2 samples."""
    x = np.asarray(samples, dtype=np.float64)
    mean = float(x.mean())
    if len(x) < 2:
        return mean, -math.inf, math.inf
    half = z * float(x.std(ddof=1)) / math.sqrt(len(x))
    return mean, mean - half, mean + half


def _ratio(plain: Sequence[float], corrected: Sequence[float]) -> float:
    """Variance of ``plain`` / variance of ``corrected`` (nan with fewer than 2 samples;
    inf when the corrected variance is 0 and the plain one is not)."""
    if len(plain) < 2:
        return math.nan
    vp = float(np.var(plain, ddof=1))
    vc = float(np.var(corrected, ddof=1))
    if vc == 0.0:
        return math.nan if vp == 0.0 else math.inf
    return vp / vc


def corrected_stats(entry: int, ordered: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The corrected fields of :class:`EntryStats` for lineup entry ``entry``: every record
    carries ``luck_win`` and ``luck_total`` (the game's summed correction terms by entry),
    subtracted from the win share and the total; intervals over per-deal means."""
    plain: dict[int, list[float]] = {}
    fixed: dict[int, list[float]] = {}
    plain_t: dict[int, list[float]] = {}
    fixed_t: dict[int, list[float]] = {}
    for rec in ordered:
        d = rec["deal"]
        share, total = float(rec["win_shares"][entry]), float(rec["totals"][entry])
        plain.setdefault(d, []).append(share)
        fixed.setdefault(d, []).append(share - float(rec["luck_win"][entry]))
        plain_t.setdefault(d, []).append(total)
        fixed_t.setdefault(d, []).append(total - float(rec["luck_total"][entry]))
    means = {
        k: [float(np.mean(v)) for v in m.values()]
        for k, m in (("p", plain), ("f", fixed), ("pt", plain_t), ("ft", fixed_t))
    }
    win, low, high = _mean_ci(means["f"])
    total, t_low, t_high = _mean_ci(means["ft"])
    return {
        "corrected_win_rate": win,
        "corrected_ci_low": low,
        "corrected_ci_high": high,
        "variance_reduction": _ratio(means["p"], means["f"]),
        "corrected_mean_total": total,
        "corrected_total_ci_low": t_low,
        "corrected_total_ci_high": t_high,
        "total_variance_reduction": _ratio(means["pt"], means["ft"]),
    }


def summarize(
    names: Sequence[str],
    records: Sequence[Mapping[str, Any]],
    score_key: str = "round_scores",
) -> list[EntryStats]:
    """Per-entry metrics from game records (each with ``deal`` and ``rotation`` keys).

    ``score_key`` names the per-round (Gnoming) or per-hand (Nerts: ``hand_scores``) score
    lists of each record. Ratings are updated one game at a time in ``(deal, rotation)``
    order, so the result does not depend on the order the records arrive in.
    """
    from openskill.models import PlackettLuce

    if not records:
        raise ValueError("summarize needs at least one game record")
    ordered = sorted(records, key=lambda rec: (rec["deal"], rec["rotation"]))
    model = PlackettLuce()
    ratings = [model.rating(name=name) for name in names]
    for rec in ordered:
        teams = model.rate([[r] for r in ratings], ranks=list(rec["ranks"]))
        ratings = [team[0] for team in teams]
    out = []
    for i, name in enumerate(names):
        per_deal: dict[int, list[float]] = {}
        for rec in ordered:
            per_deal.setdefault(rec["deal"], []).append(rec["win_shares"][i])
        _, low, high = normal_ci([float(np.mean(v)) for v in per_deal.values()])
        shares = [rec["win_shares"][i] for rec in ordered]
        unit_scores = [x for rec in ordered for x in rec[score_key][i]]
        corrected = corrected_stats(i, ordered) if "luck_win" in ordered[0] else {}
        out.append(
            EntryStats(
                name=name,
                games=len(ordered),
                win_rate=float(np.mean(shares)),
                ci_low=low,
                ci_high=high,
                mean_round_score=float(np.mean(unit_scores)),
                mean_total=float(np.mean([rec["totals"][i] for rec in ordered])),
                mean_rank=float(np.mean([rec["ranks"][i] for rec in ordered])),
                rating_mu=float(ratings[i].mu),
                rating_sigma=float(ratings[i].sigma),
                **corrected,
            )
        )
    return out


@dataclass(frozen=True)
class ArenaResult:
    """What :func:`run_arena` returns: per-entry stats, every game record and
    the settings (``settings["game"]`` names the game when it is not Gnoming A Round)."""

    names: tuple[str, ...]
    stats: tuple[EntryStats, ...]
    records: tuple[dict[str, Any], ...]
    settings: dict[str, Any]

    @property
    def game(self) -> str:
        """The game played: ``gnoming`` (settings without a ``game`` key), ``nerts`` or
        ``ginny_o``."""
        return self.settings.get("game", "gnoming")

    def table(self) -> str:
        """The settings and one line of metrics per entry, as printed by ``gnome eval``."""
        s = self.settings
        n = s["num_players"]
        game = arena_game(self.game)
        title = "Arena" if game.name == "gnoming" else f"Arena ({game.title})"
        lines = [
            f"{title}: {n} players, {s['games']} games = {s['deals']} deals x {n} seat "
            f"rotations (common deals), seed {s['seed']}, workers {s['workers']}"
        ]
        seq = s.get("sequential")
        if seq is not None:
            interval = (
                f"the 95% confidence sequence of {seq['entry']}'s win rate, "
                f"[{seq['cs_low']:.3f}, {seq['cs_high']:.3f}],"
            )
            if seq["stopped_early"]:
                verdict = (
                    f"stopped after {seq['games_used']} of at most {seq['max_games']} games: "
                    f"{interval} excludes {seq['against']:.3f}"
                )
            elif seq["significant"]:
                verdict = (
                    f"significant after all {seq['games_used']} games: {interval} excludes "
                    f"{seq['against']:.3f}"
                )
            else:
                verdict = (
                    f"played all {seq['games_used']} games: {interval} still holds "
                    f"{seq['against']:.3f} (not significant)"
                )
            lines.append(
                f"until significant (looked every {seq['check_every_deals']} deals; an "
                f"anytime-valid interval, wider than the fixed-size CI below): {verdict}"
            )
        elif s["games"] != s["games_requested"]:
            lines.append(
                f"note: {s['games_requested']} games requested, rounded up to {s['games']} "
                f"(a multiple of {n} players, so every entry plays every seat equally often)"
            )
        lines.append(game.rules_line(s["rules"], n))
        lines.append(
            "win rate = mean win share (a shared win among k gives 1/k each); 95% CI: normal "
            "approximation over per-deal means; rating: openskill PlackettLuce"
        )
        width = max(5, *(len(name) for name in self.names))
        unit = f"mean {game.score_name}"
        head = (
            f"{'entry':<{width}}  {'games':>6}  {'win rate [95% CI]':<22}  {unit:>10}  "
            f"{'mean total':>10}  {'mean rank':>9}  {'rating mu ± sigma':>17}"
        )
        lines += ["", head, "-" * len(head)]
        for st in self.stats:
            ci = f"{st.win_rate:.3f} [{st.ci_low:.3f}, {st.ci_high:.3f}]"
            rating = f"{st.rating_mu:.2f} ± {st.rating_sigma:.2f}"
            lines.append(
                f"{st.name:<{width}}  {st.games:>6}  {ci:<22}  {st.mean_round_score:>10.2f}  "
                f"{st.mean_total:>10.2f}  {st.mean_rank:>9.2f}  {rating:>17}"
            )
        lines.append(f"(equal strength: win rate {1 / n:.3f}, mean rank {(n + 1) / 2:.2f})")
        if self.stats[0].corrected_win_rate is not None:
            lines += ["", *self._corrected_lines(width)]
        return "\n".join(lines)

    def _corrected_lines(self, width: int) -> list[str]:
        """The luck-corrected block of the table (``variance_reduction=True``)."""
        head = (
            f"{'entry':<{width}}  {'corrected win rate [95% CI]':<28}  {'var. red.':>9}  "
            f"{'corrected mean total [95% CI]':<31}  {'var. red.':>9}"
        )
        lines = [
            "luck-corrected (each chance event's value minus its expectation subtracted, "
            "docs/arena.md); var. red. = plain / corrected variance of the per-deal means",
            head,
            "-" * len(head),
        ]
        for st in self.stats:
            ci = (
                f"{st.corrected_win_rate:.3f} "
                f"[{st.corrected_ci_low:.3f}, {st.corrected_ci_high:.3f}]"
            )
            tot = (
                f"{st.corrected_mean_total:.2f} [{st.corrected_total_ci_low:.2f}, "
                f"{st.corrected_total_ci_high:.2f}]"
            )
            lines.append(
                f"{st.name:<{width}}  {ci:<28}  {st.variance_reduction:>8.2f}x  {tot:<31}  "
                f"{st.total_variance_reduction:>8.2f}x"
            )
        return lines

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """``{"settings": ..., "entries": [one record of STAT_FIELDS per entry]}``."""
        return {"settings": self.settings, "entries": [st.fields_dict() for st in self.stats]}

    def to_json(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    def to_csv(self, path: str | Path) -> None:
        """Write one row per entry with the columns :data:`STAT_FIELDS`."""
        rows = [st.fields_dict() for st in self.stats]
        with Path(path).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            for row in rows:
                writer.writerow(row)

    def plot(self, path: str | Path) -> None:
        """Save a PNG: win rate per entry with its 95% CI, and the equal-strength line 1/n."""
        try:
            from matplotlib.figure import Figure  # no pyplot: no global backend state
        except ImportError as err:
            raise ImportError(
                "ArenaResult.plot needs matplotlib, which is not installed; install the "
                "'train' extra (pip install 'gnome-env[train]') or skip --plot"
            ) from err
        n = self.settings["num_players"]
        rates = [st.win_rate for st in self.stats]
        below = [st.win_rate - st.ci_low for st in self.stats]
        above = [st.ci_high - st.win_rate for st in self.stats]
        fig = Figure(figsize=(max(5.0, 1.2 * len(self.names) + 2), 4), layout="constrained")
        ax = fig.subplots()
        ax.bar(self.names, rates, yerr=[below, above], capsize=5, color="tab:blue")
        ax.axhline(1 / n, color="tab:red", linestyle="--", label=f"equal strength 1/{n}")
        ax.set_ylabel("win rate (mean win share)")
        ax.set_ylim(0, 1)
        ax.set_title(
            f"{n} players, {self.settings['games']} games, seed {self.settings['seed']} "
            "(bars: 95% CI)"
        )
        ax.legend()
        fig.savefig(path, format="png", dpi=120)


# ---------------------------------------------------------------------- saving, workers
def record_file_name(game_index: int) -> str:
    """The file name of the saved record of game ``game_index`` (``deal * n + rotation``)."""
    return f"game_{game_index:06d}.json"


def prepare_save_dir(path: str | os.PathLike[str]) -> Path:
    """The directory ``path`` for saved game records, created (parents too) if missing.

    A path that is an existing file, a directory that cannot be created or one that is not
    writable is a ValueError naming the path (and the OS reason).
    """
    if not isinstance(path, (str, os.PathLike)) or str(path) == "":
        raise ValueError(f"save_games={path!r} is not allowed: give a directory path")
    directory = Path(path)
    if directory.exists() and not directory.is_dir():
        raise ValueError(
            f"save_games={str(directory)!r} is an existing file, not a directory: give a "
            "directory for the game records (it is created if missing)"
        )
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(
            f"save_games={str(directory)!r}: cannot create the directory: {err.strerror or err}"
        ) from None
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ValueError(
            f"save_games={str(directory)!r}: the directory is not writable (permission denied)"
        )
    return directory


def saved_record_paths(
    directory: str | os.PathLike[str], games: int, save_every: int
) -> list[Path]:
    """The files a run of ``games`` games (already a multiple of the seat count) saving
    every ``save_every``-th game writes in ``directory``."""
    return [Path(directory) / record_file_name(k) for k in range(0, games, save_every)]


def _write_json(path: Path, data: dict[str, Any], text: Callable[[Any], str] | None = None) -> None:
    """Write ``data`` as JSON (``text(data)``, default indented) to ``path`` atomically
    (temp file + rename), as :func:`gnome_env.gnoming.records.save_record` writes a record."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) if text is None else text(data))
    os.replace(tmp, path)


def _parallel(backend: str, workers: int, address: str | None) -> Callable[[Any], Any]:
    """A function that runs joblib tasks on the chosen backend and returns their results in
    task order (an iterator for loky, so the progress bar moves; a list for the clusters).

    * ``loky``: ``workers`` local processes (``address`` must be None);
    * ``ray``: Ray's joblib backend; connects with ``ray.init(address=address)`` unless Ray
      is already initialised (``None``: a local Ray, or the cluster ``RAY_ADDRESS`` names;
      ``"auto"``: the cluster this machine belongs to);
    * ``dask``: dask.distributed's joblib backend, on the current ``Client`` or one made for
      ``address`` (a scheduler address; ``None``: a local cluster of ``workers`` processes).
    """
    from joblib import Parallel, parallel_config

    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} is not allowed: must be one of {BACKENDS}")
    if backend == "loky":
        if address is not None:
            raise ValueError("address is only for backend='ray' or 'dask'")
        return Parallel(n_jobs=workers, backend="loky", return_as="generator")
    if backend == "ray":
        try:
            import ray
            from ray.util.joblib import register_ray
        except ImportError:
            raise ValueError("backend='ray' needs Ray: pip install -e '.[rllib]'") from None
        if not ray.is_initialized():
            ray.init(address=address, log_to_driver=False)
        register_ray()
    else:
        try:
            from dask.distributed import Client, LocalCluster, get_client
        except ImportError:
            raise ValueError(
                "backend='dask' needs dask.distributed: pip install -e '.[dask]'"
            ) from None
        try:
            current = get_client()
        except ValueError:
            current = None
        if address is not None:
            if current is None or current.scheduler.address != address:
                Client(address)  # becomes the current client
        elif current is None:  # a local cluster, closed at interpreter exit
            Client(LocalCluster(n_workers=workers, threads_per_worker=1, processes=True))

    def run(tasks: Any) -> list[Any]:
        with parallel_config(backend=backend, n_jobs=workers):
            return Parallel(return_as="list")(tasks)

    return run


def full_rules(config_cls: Any, count_field: str, rules: Any, n: int) -> dict[str, Any]:
    """Every rule field of a game's config class for ``n`` seats, as a dict: ``rules`` may be
    a ``config_cls``, a mapping of its fields or None; a seat count in it (``count_field``)
    must be ``n``. Bad values raise the config's own ValueError."""
    if rules is None:
        values: dict[str, Any] = {}
    elif isinstance(rules, config_cls):
        values = rules.to_dict()
    elif isinstance(rules, Mapping):
        values = dict(rules)
    else:
        raise ValueError(f"rules must be a {config_cls.__name__}, a mapping or None, got {rules!r}")
    values = rename_keys(f"{config_cls.__name__} rules", values, getattr(config_cls, "RENAMED", {}))
    if values.get(count_field, n) != n:
        raise ValueError(
            f"rules say {count_field}={values[count_field]!r} but num_players={n}: "
            f"they must agree (or leave {count_field} out of rules)"
        )
    return config_cls.from_dict({**values, count_field: n}).to_dict()


# ---------------------------------------------------------------------- the run
def run_games(
    game: ArenaGame,
    lineup: Sequence[LineupEntry],
    num_players: int,
    games: int,
    seed: int = 0,
    workers: int = 1,
    rules: Any = None,
    progress: bool = True,
    backend: str = "loky",
    address: str | None = None,
    save_games: str | os.PathLike[str] | None = None,
    save_every: int = 1,
    until_significant: bool = False,
    against: float | None = None,
    check_every: int = SEQUENTIAL_CHECK_EVERY,
    variance_reduction: bool = False,
) -> ArenaResult:
    """The arena run of :func:`run_arena` for one :class:`ArenaGame`."""
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} is not allowed: must be one of {BACKENDS}")
    check_int("num_players", num_players, game.min_players, game.max_players)
    n = num_players
    if isinstance(lineup, str) or not isinstance(lineup, Sequence):
        raise ValueError(f"lineup must be a list of agent specs or factories, got {lineup!r}")
    lineup = list(lineup)
    if len(lineup) != n:
        raise ValueError(
            f"lineup has {len(lineup)} entries for {n} players: give exactly {n} entries, "
            "one per seat (a repeated spec is a separate entry)"
        )
    check_int("games", games, 1)
    check_int("workers", workers, 1)
    check_int("seed", seed, 0, rng.MAX_SEED - 1)
    check_int("save_every", save_every, 1)
    check_int("check_every", check_every, 1)
    if against is not None and not until_significant:
        raise ValueError("against is only for until_significant=True (the rate it tests)")
    target = 1.0 / n if against is None else against
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 < target < 1:
        raise ValueError(f"against={against!r} is not allowed: a win rate strictly between 0 and 1")
    rules_dict = game.rules_dict(rules, n)
    for entry in lineup:
        if isinstance(entry, str):
            game.check_entry(entry, rules_dict)  # an unknown spec raises, listing known specs
        elif not callable(entry):
            raise ValueError(
                f"lineup entry {entry!r} is not allowed: use an agent spec string or a "
                "factory(seed, config) -> agent"
            )
    if variance_reduction and game.luck is None:
        raise ValueError(
            f"variance_reduction is not available for game={game.name!r} yet: its arena has "
            "no luck correction (games with one: "
            f"{', '.join(g for g in GAMES if arena_game(g).luck is not None)})"
        )
    if save_games is not None and not game.saves_games:
        raise ValueError(
            f"save_games is not available for game={game.name!r}: it has no game record format"
        )
    names = entry_names(lineup)
    deals = -(-int(games) // n)
    every = int(save_every)
    save_dir = None if save_games is None else prepare_save_dir(save_games)

    def saved_rotations(deal: int) -> list[int]:
        if save_dir is None:
            return []
        return [r for r in range(n) if (deal * n + r) % every == 0]

    from joblib import delayed
    from tqdm import tqdm

    tasks = (
        delayed(game.play_deal)(
            lineup,
            n,
            rules_dict,
            *deal_seeds(int(seed), d),
            record_rotations=saved_rotations(d),
            record_meta={"source": RECORD_SOURCE, "arena_seed": int(seed), "deal": d},
            **({"luck": True} if variance_reduction else {}),
        )
        for d in range(deals)
    )
    records: list[dict[str, Any]] = []
    sequence = None
    if until_significant:
        from agents.core.sequential import BettingConfidenceSequence

        sequence = BettingConfidenceSequence(SEQUENTIAL_ALPHA, points=[float(target)])
    # Without sequential stopping every deal is one batch; with it, the deals come in
    # batches of check_every (a fixed number, so that where a run stops does not depend on
    # the workers or the backend) and the run stops after the first batch whose end
    # rejects the target rate.
    step = deals if sequence is None else int(check_every)
    stopped = False
    with tqdm(
        total=deals * n, unit="game", desc="arena", file=sys.stderr, disable=not progress
    ) as bar:
        parallel = _parallel(backend, int(workers), address)
        for first in range(0, deals, step):
            batch = islice(tasks, min(step, deals - first))
            for d, deal_records in enumerate(parallel(batch), start=first):  # deal order
                for rec in deal_records:
                    game_record = rec.pop("record", None)
                    if game_record is not None and save_dir is not None:
                        path = save_dir / record_file_name(d * n + rec["rotation"])
                        _write_json(path, game_record, game.record_text)
                    records.append({"deal": d, **rec})
                if sequence is not None:
                    sequence.update([float(np.mean([r["win_shares"][0] for r in deal_records]))])
                bar.update(n)
            if sequence is not None and sequence.rejects(float(target)):
                stopped = True
                break
    played = len(records) // n
    settings: dict[str, Any] = {} if game.name == "gnoming" else {"game": game.name}
    settings.update(
        {
            "lineup": [entry_label(e) for e in lineup],
            "names": names,
            "num_players": n,
            "games_requested": int(games),
            "games": played * n,
            "deals": played,
            "seed": int(seed),
            "workers": int(workers),
            "backend": backend,
            "rules": rules_dict,
            "ci_method": CI_METHOD,
            "rating_model": RATING_MODEL,
        }
    )
    if variance_reduction:
        settings["variance_reduction"] = {"method": LUCK_METHOD, **game.luck()}
    if sequence is not None:
        from agents.core.sequential import METHOD

        low, high = sequence.interval()
        settings["sequential"] = {
            "entry": names[0],
            "against": float(target),
            "alpha": SEQUENTIAL_ALPHA,
            "check_every_deals": int(check_every),
            "max_games": deals * n,
            "stopped_early": stopped and played < deals,
            "significant": stopped,
            "games_used": played * n,
            "deals_used": played,
            "cs_low": low,
            "cs_high": high,
            "method": METHOD,
        }
    stats = summarize(names, records, game.score_key)
    return ArenaResult(tuple(names), tuple(stats), tuple(records), settings)


def run_arena(
    lineup: Sequence[Any],
    num_players: int,
    games: int,
    seed: int = 0,
    workers: int = 1,
    rules: Any = None,
    progress: bool = True,
    backend: str = "loky",
    address: str | None = None,
    save_games: str | os.PathLike[str] | None = None,
    save_every: int = 1,
    game: str = "gnoming",
    until_significant: bool = False,
    against: float | None = None,
    check_every: int = SEQUENTIAL_CHECK_EVERY,
    variance_reduction: bool = False,
) -> ArenaResult:
    """Play ``games`` games (rounded up to a multiple of ``num_players``) of ``lineup``.

    ``game`` picks the game: ``"gnoming"`` (Gnoming A Round, the default) or ``"nerts"``
    (:mod:`agents.nerts.arena`: seats 2..6, ``rules`` a ``NertsConfig`` or a mapping of its
    fields, specs from :func:`agents.nerts.registry.make_nerts_agent`, one game = hands until
    the N31 game end; saved games are :mod:`gnome_env.nerts.records`).

    ``lineup`` has one entry per seat: spec strings (``"random"``) or factories
    ``factory(seed, config) -> agent``. Deals are seeded from ``seed`` (:func:`deal_seeds`)
    and played by :func:`play_deal` on ``workers`` joblib workers of ``backend``
    (``"loky"``: local processes; ``"ray"`` or ``"dask"``: a cluster at ``address``, see
    :func:`agents.core.arena._parallel`); the result is the same for every ``workers`` and
    backend. ``rules`` (a RulesConfig or mapping) sets the rule options. A progress bar
    goes to stderr unless ``progress`` is False.

    ``save_games`` (a directory, created if missing) keeps the game record
    (:mod:`gnome_env.gnoming.records`, :mod:`gnome_env.nerts.records`) of every
    ``save_every``-th game: game ``k = deal * n + rotation`` is written to
    ``save_games/game_{k:06d}.json`` when ``k % save_every == 0`` (replay one with
    ``gnome replay``, ``gnome_env.load_record(path)`` or, for Nerts,
    ``gnome_env.nerts.records.load_record(path)``). Its ``meta`` says where it came from:
    ``source``, ``num_players``, ``lineup``, ``players`` (the entry label at each seat),
    ``seats`` (the seat of each entry), ``arena_seed``, ``deal``, ``rotation``,
    ``game_index`` and ``agent_seeds`` (by seat). Saving does not change the result.

    ``until_significant``: play the deals in batches of ``check_every`` and stop after the
    first batch at whose end the confidence sequence of the first lineup entry's win rate
    (:mod:`agents.core.sequential`: valid however often it is looked at, 95%) excludes
    ``against`` (default 1/n); ``games`` is then the most it plays.
    ``settings["sequential"]`` reports the games used, whether it stopped early and the
    sequence's interval; the stats are over the games played. Where a run stops depends
    only on ``seed`` and ``check_every``, never on the workers or the backend.

    ``variance_reduction``: also compute each game's luck correction
    (:mod:`agents.gnoming.luck`, :mod:`agents.nerts.luck`, :mod:`agents.ginny_o.luck`; a
    game registered without one refuses it with a ``ValueError``) and report the
    luck-corrected win rate and mean total of every entry, with 95% intervals and the
    variance-reduction factors (the ``corrected_*`` fields of :class:`EntryStats`;
    ``settings["variance_reduction"]`` describes the value function). The plain figures do
    not change.
    """
    return run_games(
        arena_game(game),
        lineup,
        num_players,
        games,
        seed=seed,
        workers=workers,
        rules=rules,
        progress=progress,
        backend=backend,
        address=address,
        save_games=save_games,
        save_every=save_every,
        until_significant=until_significant,
        against=against,
        check_every=check_every,
        variance_reduction=variance_reduction,
    )


def one_against_bots(
    agent_factory: Any,
    seat_counts: Sequence[int],
    opponent_specs: Sequence[str],
    games: int,
    seed: int,
    rules: Any,
    game: str,
    variance_reduction: bool = False,
) -> list[dict[str, Any]]:
    """The arena rows of one agent (``agent_factory(seed, config) -> agent``) against n - 1
    copies of each bot spec, for each seat count: seats rotated, arena seed ``seed``; one
    row (and one printed line) per seat count and spec (the library examples' final table).
    ``variance_reduction``: the runs also compute the luck correction (:func:`run_arena`),
    and each row gains the agent's ``corrected_win_rate``, ``corrected_ci_low``,
    ``corrected_ci_high`` and ``variance_reduction`` (the plain fields do not change)."""
    rows = []
    head = f"{'seats':>5}  {'opponents':<10} {'games':>5}  {'win rate [95% CI]':<22}  {'1/n':>5}"
    if variance_reduction:
        head += f"  {'luck-corrected [95% CI]':<25}  {'var. red.':>9}"
    print(head)
    for n in dict.fromkeys(seat_counts):
        for spec in opponent_specs:
            result = run_arena(
                [agent_factory] + [spec] * (n - 1),
                n,
                games,
                seed=seed,
                rules=rules,
                progress=False,
                game=game,
                variance_reduction=variance_reduction,
            )
            me = result.stats[0]
            row = {
                "num_players": n,
                "opponents": spec,
                "games": me.games,
                "win_rate": me.win_rate,
                "ci_low": me.ci_low,
                "ci_high": me.ci_high,
                "equal_share": 1 / n,
                "mean_hand_score": me.mean_round_score,
            }
            ci = f"{me.win_rate:.3f} [{me.ci_low:.3f}, {me.ci_high:.3f}]"
            line = f"{n:>5}  {spec:<10} {me.games:>5}  {ci:<22}  {1 / n:>5.3f}"
            if variance_reduction:
                row.update(corrected_fields(me))
                line += "  " + corrected_text(me)
            rows.append(row)
            print(line)
    return rows


def corrected_fields(stats: EntryStats) -> dict[str, float | None]:
    """The luck-corrected win rate, its interval and the variance-reduction factor of one
    entry of a run with ``variance_reduction=True`` (the keys of its JSON entry)."""
    factor = stats.variance_reduction
    return {
        "corrected_win_rate": stats.corrected_win_rate,
        "corrected_ci_low": stats.corrected_ci_low,
        "corrected_ci_high": stats.corrected_ci_high,
        # None where undefined (fewer than 2 deals, or no variance at all): nan is no JSON
        "variance_reduction": None if factor is None or math.isnan(factor) else factor,
    }


def corrected_text(stats: EntryStats) -> str:
    """``corrected [low, high]`` and the factor, as :func:`one_against_bots` prints them (the
    factor is ``-`` where it is undefined: fewer than 2 deals, or no variance at all)."""
    ci = (
        f"{stats.corrected_win_rate:.3f} "
        f"[{stats.corrected_ci_low:.3f}, {stats.corrected_ci_high:.3f}]"
    )
    factor = corrected_fields(stats)["variance_reduction"]
    factor_text = "-" if factor is None else f"{factor:.2f}x"
    return f"{ci:<25}  {factor_text:>9}"
