"""The evaluation arena: a fixed lineup of agents plays many games; win rates, ranks, ratings.

How a run is built (see docs/arena.md for the full story):

* **Games.** ``run_arena(..., game="gnoming")`` (the default) plays Gnoming A Round;
  ``game="nerts"`` plays Nerts (:mod:`agents.nerts.arena`) and ``game="ginny_o"`` Ginny-O
  (:mod:`agents.ginny_o.arena`). What every game shares --
  seeds, metrics, results, the run loop -- lives once in :mod:`agents.core.arena`; this
  module is the front door and Gnoming A Round's side.
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
:func:`agents.gnoming.registry.make_agent` or by a factory ``factory(seed, config) -> agent``.
An agent with ``decide(view)`` (a :class:`agents.gnoming.base.BotAgent`) gets
``SeatView.from_game(game, seat)``, the same public information its ``act`` would decode
from the observation; any other agent gets ``act(observation, mask)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents.core.arena import (
    BACKENDS,
    CI_METHOD,
    GAMES,
    RATING_MODEL,
    RECORD_SOURCE,
    STAT_FIELDS,
    Z_95,
    ArenaGame,
    ArenaResult,
    EntryStats,
    agent_seed_for,
    arena_game,
    average_ranks,
    deal_seeds,
    entry_label,
    entry_names,
    full_rules,
    game_meta,
    normal_ci,
    prepare_save_dir,
    record_file_name,
    rotation_seats,
    run_arena,
    summarize,
    win_shares,
)
from agents.gnoming.registry import make_agent
from gnome_env.gnoming.config import MAX_PLAYERS, MIN_PLAYERS, RulesConfig, check_int
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import Game
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.policies import Policy
from gnome_env.gnoming.records import to_record

__all__ = [
    "BACKENDS",
    "CI_METHOD",
    "GAMES",
    "GNOMING_ARENA",
    "RATING_MODEL",
    "RECORD_SOURCE",
    "STAT_FIELDS",
    "Z_95",
    "ArenaGame",
    "ArenaResult",
    "EntryStats",
    "agent_seed_for",
    "arena_game",
    "average_ranks",
    "deal_seeds",
    "entry_label",
    "entry_names",
    "game_outcome",
    "ladder_lineup",
    "normal_ci",
    "play_deal",
    "prepare_save_dir",
    "record_file_name",
    "run_arena",
    "summarize",
    "win_shares",
]

#: A lineup entry: an agent spec string (``"random"``) or a factory ``(seed, config) -> agent``.
AgentFactory = Callable[[int, RulesConfig], Policy]
LineupEntry = str | AgentFactory


# ---------------------------------------------------------------------- small pure helpers
def ladder_lineup(strong: LineupEntry, weak: LineupEntry, n: int) -> list[LineupEntry]:
    """The strength-ladder lineup: one ``strong`` entry against ``n - 1`` copies of ``weak``."""
    check_int("num_players", n, MIN_PLAYERS, MAX_PLAYERS)
    return [strong] + [weak] * (n - 1)


def game_outcome(game: Game) -> tuple[list[float], list[float]]:
    """Ranks and win shares by seat of a finished game.

    Seats are ordered as R23 orders them: total, then last-round score; seats equal on both
    share a rank and share the win. So the seats with rank ``(1 + k) / 2`` are exactly the
    ``k`` seats of ``game.winners()``.
    """
    ranks = average_ranks(game.ranking_keys())
    return ranks, win_shares(game.winners(), game.num_players)


def _compiled_expert(agent: object, config: RulesConfig) -> Callable[[Game, int], int] | None:
    """The compiled Expert (:func:`agents.gnoming.expert_kernel.game_decider`) for a plain
    :class:`~agents.gnoming.expert.ExpertAgent` when numba is there, else None. It takes the same
    action at every decision (tests/gnoming/test_expert_kernel.py, tests/gnoming/test_arena.py)."""
    from agents.gnoming.expert import ExpertAgent

    if type(agent) is not ExpertAgent or not USE_COMPILED_EXPERT:
        return None
    from agents.gnoming.expert_kernel import game_decider

    return game_decider(config)


#: Set False to play ``expert`` seats with the Python ExpertAgent (the tests compare both).
USE_COMPILED_EXPERT = True


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
    luck: bool = False,
) -> list[dict[str, Any]]:
    """Play the ``num_players`` seat rotations of one deal; one record per game.

    Rotation ``r`` seats lineup entry ``i`` at ``(i + r) % n``; every rotation plays
    ``Game(config, deal_seed)`` (common deals). Agents are built fresh per game, seeded by
    :func:`agent_seed_for`. The result is a pure function of the arguments. Each record
    lists, by lineup entry: ``seats``, ``totals``, ``round_scores`` (one list per entry),
    ``ranks`` and ``win_shares``; plus ``rotation``, ``game_seed``, ``decisions`` and the
    final state's ``digest``.

    The games of the rotations in ``record_rotations`` also get a ``"record"``: the game
    record (:func:`gnome_env.gnoming.records.to_record`) with a ``meta`` of ``record_meta`` plus
    ``num_players``, ``lineup`` (entry labels), ``players`` (the label of the agent at each
    seat), ``seats`` (the seat of each entry), ``rotation``, ``agent_seeds`` (by seat) and,
    when ``record_meta`` has a ``deal``, ``game_index = deal * n + rotation``.

    With ``luck``, each record also has ``luck_win`` and ``luck_total`` by lineup entry: the
    game's summed luck-correction terms (:func:`agents.gnoming.luck.game_luck`).
    """
    n = num_players
    if len(lineup_specs) != n:
        raise ValueError(f"{len(lineup_specs)} lineup entries for {n} players: give exactly {n}")
    config = RulesConfig.from_dict({**rules_dict, "num_players": n})
    encoder: ObservationEncoder | None = None
    records = []
    for rotation in range(n):
        seats = rotation_seats(n, rotation)
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
        while not game.game_over:
            seat = game.current_seat
            game.step(deciders[seat](game, seat))
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
        if luck:
            from agents.gnoming.luck import game_luck

            terms = game_luck(config, deal_seed, game.actions)
            game_rec["luck_win"] = [terms["win"][s] for s in seats]
            game_rec["luck_total"] = [terms["total"][s] for s in seats]
        if rotation in record_rotations:
            game_rec["record"] = to_record(
                game, _game_meta(lineup_specs, seats, rotation, entry_seeds, record_meta)
            )
        records.append(game_rec)
    return records


#: The ``meta`` of a saved arena game (see :func:`play_deal`): the shared one.
_game_meta = game_meta


# ---------------------------------------------------------------------- the run
def _rules_dict(rules: RulesConfig | Mapping[str, object] | None, n: int) -> dict[str, object]:
    return full_rules(RulesConfig, "num_players", rules, n)


def _check_entry(entry: str, rules_dict: Mapping[str, object]) -> None:
    """An unknown Gnoming spec raises here, listing the known specs."""
    make_agent(entry, 0, RulesConfig.from_dict(rules_dict))


def _rules_line(rules: Mapping[str, Any], n: int) -> str:
    """The rules line of the printed table: rounds, turn cap and the options set."""
    cap = rules["max_turns_per_round"]
    return (
        f"rules: rounds={rules['rounds']}, max_turns_per_round="
        f"{cap if cap is not None else f'{60 * n} (60 x players)'}"
        + "".join(
            f", {k}={rules[k]}"
            for k in ("rotate_start", "discard_taken_card", "bounce_face_up")
            if rules[k] != getattr(RulesConfig, k)
        )
    )


#: Gnoming A Round in the shared arena (:mod:`agents.core.arena`).
GNOMING_ARENA = ArenaGame(
    name="gnoming",
    title="Gnoming A Round",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    play_deal=play_deal,
    rules_dict=_rules_dict,
    check_entry=_check_entry,
    rules_line=_rules_line,
    score_name="round",
    score_key="round_scores",
    saves_games=True,
    luck=lambda: _luck_info(),
)


def _luck_info() -> dict[str, Any]:
    """What ``settings["variance_reduction"]`` says of the value function."""
    from agents.gnoming.luck import VALUE_FILE, shipped_value

    return {"value": VALUE_FILE.name, "value_meta": shipped_value().meta}
