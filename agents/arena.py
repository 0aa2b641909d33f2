"""The evaluation arena: a fixed lineup of agents plays many games; win rates, ranks, ratings.

How a run is built (see docs/arena.md for the full story):

* **Seat rotation.** The lineup has one entry per seat. A *deal* is played ``n`` times
  (``n`` = players): rotation ``r`` puts lineup entry ``i`` at seat ``(i + r) % n``, so
  every entry plays every seat equally often. ``games`` is rounded up to a multiple of ``n``.
* **Common deals.** All rotations of a deal use the same game seed, hence the same cards
  (R3 deals, R8 reshuffles): each entry gets each hand once, which removes most of the
  luck of the cards from the comparison (variance reduction).
* **Pure work units.** :func:`play_deal` plays the rotations of one deal and is a pure
  function of its arguments (specs, seat count, rules as a plain dict, two seeds), so a
  deal can run in any process or on any machine; :func:`run_arena` spreads deals over
  joblib workers -- local processes (loky), a Ray cluster or a Dask cluster -- and gets
  the same results for every ``workers`` and backend.
* **Metrics** per entry: win rate (mean win share, a shared win among ``k`` winners gives
  each ``1/k``) with a 95% confidence interval (normal approximation over per-deal means,
  :func:`normal_ci`), mean round score, mean total, mean rank (1 = best, ties share the
  average rank) and an OpenSkill Plackett-Luce rating.

Agents are built fresh for every game, by spec string through
:func:`agents.registry.make_agent` or by a factory ``factory(seed, config) -> agent``.
An agent with ``decide(view)`` (a :class:`agents.base.BotAgent`) gets
``SeatView.from_game(game, seat)``, the same public information its ``act`` would decode
from the observation; any other agent gets ``act(observation, mask)``.
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
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import make_agent
from gnome_env import rng
from gnome_env.config import MAX_PLAYERS, MIN_PLAYERS, RulesConfig, check_int
from gnome_env.encoding import ObservationEncoder
from gnome_env.engine import Game
from gnome_env.information import SeatView
from gnome_env.policies import Policy
from gnome_env.records import to_record

#: A lineup entry: an agent spec string (``"random"``) or a factory ``(seed, config) -> agent``.
AgentFactory = Callable[[int, RulesConfig], Policy]
LineupEntry = str | AgentFactory

Z_95 = 1.959963984540054  # two-sided 95% quantile of the standard normal
CI_METHOD = (
    "normal approximation over deals: mean of the per-deal mean win shares "
    "+- 1.96 * s / sqrt(D), s = sample standard deviation (ddof=1) of the D per-deal means, "
    "clipped to [0, 1]; [0, 1] when D < 2"
)
RATING_MODEL = "openskill PlackettLuce (defaults mu=25, sigma=25/3), one rate() per game"


# ---------------------------------------------------------------------- small pure helpers
def ladder_lineup(strong: LineupEntry, weak: LineupEntry, n: int) -> list[LineupEntry]:
    """The strength-ladder lineup: one ``strong`` entry against ``n - 1`` copies of ``weak``."""
    check_int("num_players", n, MIN_PLAYERS, MAX_PLAYERS)
    return [strong] + [weak] * (n - 1)


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


def game_outcome(game: Game) -> tuple[list[float], list[float]]:
    """Ranks and win shares by seat of a finished game.

    Seats are ordered as R23 orders them: total, then last-round score; seats equal on both
    share a rank and share the win. So the seats with rank ``(1 + k) / 2`` are exactly the
    ``k`` seats of ``game.winners()``.
    """
    ranks = average_ranks(game.ranking_keys())
    return ranks, win_shares(game.winners(), game.num_players)


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
    (:mod:`gnome_env.rng`), so a deal's seeds do not depend on how many deals the run has,
    on which worker plays it, or on the numpy version.
    """
    return (
        rng.derive_seed(rng.ARENA, seed, deal, 0, 0),
        rng.derive_seed(rng.ARENA, seed, deal, 0, 1),
    )


def agent_seed_for(agent_seed: int, rotation: int, entry: int) -> int:
    """The seed of lineup entry ``entry`` in rotation ``rotation`` of a deal with ``agent_seed``."""
    return rng.derive_seed(rng.ARENA, agent_seed, rotation + 1, entry + 1)


def _compiled_expert(agent: object, config: RulesConfig) -> Callable[[Game, int], int] | None:
    """The compiled Expert (:func:`agents.expert_kernel.game_decider`) for a plain
    :class:`~agents.expert.ExpertAgent` when numba is there, else None. It takes the same
    action at every decision (tests/test_expert_kernel.py, tests/test_arena.py)."""
    from agents.expert import ExpertAgent

    if type(agent) is not ExpertAgent or not USE_COMPILED_EXPERT:
        return None
    from agents.expert_kernel import game_decider

    return game_decider(config)


#: Set False to play ``expert`` seats with the Python ExpertAgent (the tests compare both).
USE_COMPILED_EXPERT = True


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


def _build_agent(entry: LineupEntry, seed: int, config: RulesConfig) -> Policy:
    if isinstance(entry, str):
        return make_agent(entry, seed, config)
    return entry(seed, config)


# ---------------------------------------------------------------------- the unit of work
def play_deal(
    lineup_specs: Sequence[LineupEntry],
    num_players: int,
    rules_dict: Mapping[str, object],
    deal_seed: int,
    agent_seed: int,
    record_rotations: Sequence[int] = (),
    record_meta: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Play the ``num_players`` seat rotations of one deal; one record per game.

    Rotation ``r`` seats lineup entry ``i`` at ``(i + r) % n``; every rotation plays
    ``Game(config, deal_seed)`` (common deals). Agents are built fresh per game, seeded by
    :func:`agent_seed_for`. The result is a pure function of the arguments. Each record
    lists, by lineup entry: ``seats``, ``totals``, ``round_scores`` (one list per entry),
    ``ranks`` and ``win_shares``; plus ``rotation``, ``game_seed``, ``decisions`` and the
    final state's ``digest``.

    The games of the rotations in ``record_rotations`` also get a ``"record"``: the game
    record (:func:`gnome_env.records.to_record`) with a ``meta`` of ``record_meta`` plus
    ``num_players``, ``lineup`` (entry labels), ``players`` (the label of the agent at each
    seat), ``seats`` (the seat of each entry), ``rotation``, ``agent_seeds`` (by seat) and,
    when ``record_meta`` has a ``deal``, ``game_index = deal * n + rotation``.
    """
    n = num_players
    if len(lineup_specs) != n:
        raise ValueError(f"{len(lineup_specs)} lineup entries for {n} players: give exactly {n}")
    config = RulesConfig.from_dict({**rules_dict, "num_players": n})
    encoder: ObservationEncoder | None = None
    records = []
    for rotation in range(n):
        seats = [(i + rotation) % n for i in range(n)]
        entry_seeds = [agent_seed_for(agent_seed, rotation, i) for i in range(n)]
        deciders: list[Callable[[Game, int], object]] = [None] * n  # type: ignore[list-item]
        for i, entry in enumerate(lineup_specs):
            agent = _build_agent(entry, entry_seeds[i], config)
            decide = getattr(agent, "decide", None)
            fast = _compiled_expert(agent, config)
            if fast is not None:  # the compiled Expert: the same actions, faster
                deciders[seats[i]] = fast
            elif callable(decide):  # fast path: same public view, no encode/decode round trip
                deciders[seats[i]] = lambda game, seat, d=decide: d(SeatView.from_game(game, seat))
            else:
                if encoder is None:
                    encoder = ObservationEncoder(config)
                deciders[seats[i]] = lambda game, seat, a=agent, e=encoder: a.act(
                    e.encode(game, seat), game.legal_mask()
                )
        game = Game(config, deal_seed)
        while not game.is_over:
            seat = game.current_seat
            game.apply(deciders[seat](game, seat))
        ranks, shares = game_outcome(game)
        game_rec: dict[str, Any] = {
            "rotation": rotation,
            "game_seed": deal_seed,
            "seats": seats,
            "totals": [game.totals[s] for s in seats],
            "round_scores": [
                [result.round_scores[s] for result in game.round_results] for s in seats
            ],
            "ranks": [ranks[s] for s in seats],
            "win_shares": [shares[s] for s in seats],
            "decisions": len(game.actions),
            "digest": game.digest(),
        }
        if rotation in record_rotations:
            game_rec["record"] = to_record(
                game, _game_meta(lineup_specs, seats, rotation, entry_seeds, record_meta)
            )
        records.append(game_rec)
    return records


def _game_meta(
    lineup: Sequence[LineupEntry],
    seats: Sequence[int],
    rotation: int,
    entry_seeds: Sequence[int],
    base: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The ``meta`` of a saved arena game (see :func:`play_deal`); JSON-ready."""
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


# ---------------------------------------------------------------------- results
@dataclass(frozen=True)
class EntryStats:
    """The metrics of one lineup entry (the fields of the JSON and CSV outputs, in order)."""

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


STAT_FIELDS = tuple(f.name for f in fields(EntryStats))


def summarize(names: Sequence[str], records: Sequence[Mapping[str, Any]]) -> list[EntryStats]:
    """Per-entry metrics from game records (each with ``deal`` and ``rotation`` keys).

    Ratings are updated one game at a time in ``(deal, rotation)`` order, so the result does
    not depend on the order the records arrive in.
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
        round_scores = [x for rec in ordered for x in rec["round_scores"][i]]
        out.append(
            EntryStats(
                name=name,
                games=len(ordered),
                win_rate=float(np.mean(shares)),
                ci_low=low,
                ci_high=high,
                mean_round_score=float(np.mean(round_scores)),
                mean_total=float(np.mean([rec["totals"][i] for rec in ordered])),
                mean_rank=float(np.mean([rec["ranks"][i] for rec in ordered])),
                rating_mu=float(ratings[i].mu),
                rating_sigma=float(ratings[i].sigma),
            )
        )
    return out


@dataclass(frozen=True)
class ArenaResult:
    """What :func:`run_arena` returns: per-entry stats, every game record and the settings."""

    names: tuple[str, ...]
    stats: tuple[EntryStats, ...]
    records: tuple[dict[str, Any], ...]
    settings: dict[str, Any]

    def table(self) -> str:
        """The settings and one line of metrics per entry, as printed by ``gnome eval``."""
        s = self.settings
        n = s["num_players"]
        lines = [
            f"Arena: {n} players, {s['games']} games = {s['deals']} deals x {n} seat rotations "
            f"(common deals), seed {s['seed']}, workers {s['workers']}"
        ]
        if s["games"] != s["games_requested"]:
            lines.append(
                f"note: {s['games_requested']} games requested, rounded up to {s['games']} "
                f"(a multiple of {n} players, so every entry plays every seat equally often)"
            )
        rules = s["rules"]
        cap = rules["max_turns_per_round"]
        lines.append(
            f"rules: rounds={rules['rounds']}, max_turns_per_round="
            f"{cap if cap is not None else f'{60 * n} (60 x players)'}"
            + "".join(
                f", {k}={rules[k]}"
                for k in ("rotate_start", "discard_taken_card", "bounce_face_up")
                if rules[k] != getattr(RulesConfig, k)
            )
        )
        lines.append(
            "win rate = mean win share (a shared win among k gives 1/k each); 95% CI: normal "
            "approximation over per-deal means; rating: openskill PlackettLuce"
        )
        width = max(5, *(len(name) for name in self.names))
        head = (
            f"{'entry':<{width}}  {'games':>6}  {'win rate [95% CI]':<22}  {'mean round':>10}  "
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
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def to_dict(self) -> dict[str, Any]:
        """``{"settings": ..., "entries": [one record of STAT_FIELDS per entry]}``."""
        return {"settings": self.settings, "entries": [asdict(st) for st in self.stats]}

    def to_json(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n")

    def to_csv(self, path: str | Path) -> None:
        """Write one row per entry with the columns :data:`STAT_FIELDS`."""
        with Path(path).open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=STAT_FIELDS)
            writer.writeheader()
            for st in self.stats:
                writer.writerow(asdict(st))

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


# ---------------------------------------------------------------------- the run
def _rules_dict(rules: RulesConfig | Mapping[str, object] | None, n: int) -> dict[str, object]:
    if rules is None:
        values: dict[str, object] = {}
    elif isinstance(rules, RulesConfig):
        values = rules.to_dict()
    elif isinstance(rules, Mapping):
        values = dict(rules)
    else:
        raise ValueError(f"rules must be a RulesConfig, a mapping or None, got {rules!r}")
    if values.get("num_players", n) != n:
        raise ValueError(
            f"rules say num_players={values['num_players']!r} but num_players={n}: "
            "they must agree (or leave num_players out of rules)"
        )
    return RulesConfig.from_dict({**values, "num_players": n}).to_dict()


BACKENDS = ("loky", "ray", "dask")
RECORD_SOURCE = "gnome eval"  #: ``meta["source"]`` of the game records the arena saves


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


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically (temp file + rename), as
    :func:`gnome_env.records.save_record` writes a record."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1))
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


def run_arena(
    lineup: Sequence[LineupEntry],
    num_players: int,
    games: int,
    seed: int = 0,
    workers: int = 1,
    rules: RulesConfig | Mapping[str, object] | None = None,
    progress: bool = True,
    backend: str = "loky",
    address: str | None = None,
    save_games: str | os.PathLike[str] | None = None,
    save_every: int = 1,
) -> ArenaResult:
    """Play ``games`` games (rounded up to a multiple of ``num_players``) of ``lineup``.

    ``lineup`` has one entry per seat: spec strings (``"random"``) or factories
    ``factory(seed, config) -> agent``. Deals are seeded from ``seed`` (:func:`deal_seeds`)
    and played by :func:`play_deal` on ``workers`` joblib workers of ``backend``
    (``"loky"``: local processes; ``"ray"`` or ``"dask"``: a cluster at ``address``, see
    :func:`_parallel`); the result is the same for every ``workers`` and backend. ``rules``
    (a RulesConfig or mapping) sets the rule options. A progress bar goes to stderr unless
    ``progress`` is False.

    ``save_games`` (a directory, created if missing) keeps the game record
    (:mod:`gnome_env.records`) of every ``save_every``-th game: game ``k = deal * n +
    rotation`` is written to ``save_games/game_{k:06d}.json`` when ``k % save_every == 0``
    (replay one with ``gnome_env.load_record(path)``). Its ``meta`` says where it came from:
    ``source``, ``num_players``, ``lineup``, ``players`` (the entry label at each seat),
    ``seats`` (the seat of each entry), ``arena_seed``, ``deal``, ``rotation``,
    ``game_index`` and ``agent_seeds`` (by seat). Saving does not change the result.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend={backend!r} is not allowed: must be one of {BACKENDS}")
    check_int("num_players", num_players, MIN_PLAYERS, MAX_PLAYERS)
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
    rules_dict = _rules_dict(rules, n)
    config = RulesConfig.from_dict(rules_dict)
    for entry in lineup:
        if isinstance(entry, str):
            make_agent(entry, 0, config)  # an unknown spec raises here, listing known specs
        elif not callable(entry):
            raise ValueError(
                f"lineup entry {entry!r} is not allowed: use an agent spec string or a "
                "factory(seed, config) -> agent"
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
        delayed(play_deal)(
            lineup,
            n,
            rules_dict,
            *deal_seeds(int(seed), d),
            record_rotations=saved_rotations(d),
            record_meta={"source": RECORD_SOURCE, "arena_seed": int(seed), "deal": d},
        )
        for d in range(deals)
    )
    records: list[dict[str, Any]] = []
    with tqdm(
        total=deals * n, unit="game", desc="arena", file=sys.stderr, disable=not progress
    ) as bar:
        parallel = _parallel(backend, int(workers), address)
        for d, deal_records in enumerate(parallel(tasks)):  # generator keeps deal order
            for rec in deal_records:
                game_record = rec.pop("record", None)
                if game_record is not None and save_dir is not None:
                    _write_json(save_dir / record_file_name(d * n + rec["rotation"]), game_record)
                records.append({"deal": d, **rec})
            bar.update(n)
    settings = {
        "lineup": [entry_label(e) for e in lineup],
        "names": names,
        "num_players": n,
        "games_requested": int(games),
        "games": deals * n,
        "deals": deals,
        "seed": int(seed),
        "workers": int(workers),
        "backend": backend,
        "rules": rules_dict,
        "ci_method": CI_METHOD,
        "rating_model": RATING_MODEL,
    }
    stats = summarize(names, records)
    return ArenaResult(tuple(names), tuple(stats), tuple(records), settings)
