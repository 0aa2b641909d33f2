"""Nerts in the shared arena (:mod:`agents.core.arena`): ``run_arena(..., game="nerts")``.

A Nerts *deal* is one game seed: every seat rotation plays ``NertsGame(config, deal_seed)``,
so the decks of every hand (N4) and the priority order of every step (N20: pi depends on the
seed, hand and step only) are common to the rotations. One arena *game* is one whole Nerts
game: hands until N31 ends it (``target_score`` reached or ``max_hands`` played), so
``rules={"max_hands": 1}`` makes every arena game a single hand.

A saved game (``run_arena(..., game="nerts", save_games=DIR)``, ``gnome eval --game nerts
--save-games DIR``) is a Nerts game record (:mod:`gnome_env.nerts.records`): the deal seed,
the rules and every step's joint action, with the arena's ``meta``
(:func:`agents.core.arena.game_meta`).

Each step every seat's agent gets ``NertsView.from_game(game, seat)`` -- its public view
(N34), never the game -- and returns an id from ``view.legal_actions``; an illegal id is an
error (the engine raises, nothing is substituted). Ranks follow N31: higher total first, a
tie broken by the higher last-hand score; seats equal on both share the rank and the win.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents.core.arena import ArenaGame, average_ranks, full_rules, play_rotations, win_shares
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts.config import MAX_PLAYERS, MIN_PLAYERS, NertsConfig
from gnome_env.nerts.engine import NertsGame
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.records import GameLog, record_text, to_record

#: A Nerts lineup entry: a spec (``"greedy"``) or a factory ``(seed, NertsConfig) -> agent``.
NertsEntry = str | Callable[[int, NertsConfig], Any]

#: Rule options shown in the table's rules line even at their defaults.
_ALWAYS_SHOWN = ("target_score", "max_hands", "max_steps_per_hand")


def nerts_rules_dict(rules: NertsConfig | Mapping[str, object] | None, n: int) -> dict[str, Any]:
    """The full Nerts rules (``NertsConfig.to_dict``) for ``n`` seats; ``rules`` may be a
    NertsConfig, a mapping of its fields or None. A ``num_players`` in ``rules`` must be ``n``."""
    return full_rules(NertsConfig, "num_players", rules, n)


def _check_entry(entry: str, rules_dict: Mapping[str, Any]) -> None:
    """An unknown Nerts spec raises here, listing the known Nerts specs."""
    make_nerts_agent(entry, 0, NertsConfig.from_dict(rules_dict))


def _rules_line(rules: Mapping[str, Any], n: int) -> str:
    """The rules line of the printed table: the game's length and every option set."""
    defaults = NertsConfig().to_dict()
    shown = [f"{k}={rules[k]}" for k in _ALWAYS_SHOWN]
    shown += [
        f"{k}={rules[k]}"
        for k in NertsConfig.field_names()
        if k not in _ALWAYS_SHOWN and k != "num_players" and rules[k] != defaults[k]
    ]
    return "rules: " + ", ".join(shown)


def _build(entry: NertsEntry, seed: int, config: NertsConfig) -> Any:
    if isinstance(entry, str):
        return make_nerts_agent(entry, seed, config)
    return entry(seed, config)


def play_game(game: NertsGame | GameLog, agents: Sequence[Any]) -> int:
    """Play ``game`` to its end (N31) with one agent per seat; the number of steps played.
    A :class:`~gnome_env.nerts.records.GameLog` is played the same way and keeps every
    step's joint action."""
    play = game
    if isinstance(game, GameLog):
        game = game.game
    n = game.num_players
    steps = 0
    while True:
        if game.hand_over:
            if game.game_over:
                return steps
            play.next_hand()
        play.step([agents[s].decide(NertsView.from_game(game, s)) for s in range(n)])
        steps += 1


def game_outcome(game: NertsGame) -> tuple[list[float], list[float]]:
    """Ranks and win shares by seat of a finished game (N31: total, then last-hand score)."""
    ranks = average_ranks(game.ranking_keys())
    return ranks, win_shares(game.winners(), game.num_players)


def play_nerts_deal(
    lineup_specs: Sequence[NertsEntry],
    num_players: int,
    rules_dict: Mapping[str, object],
    deal_seed: int,
    agent_seed: int,
    record_rotations: Sequence[int] = (),
    record_meta: Mapping[str, Any] | None = None,
    luck: Any = False,
) -> list[dict[str, Any]]:
    """Play the ``num_players`` seat rotations of one Nerts deal; one record per game.

    Rotation ``r`` seats lineup entry ``i`` at ``(i + r) % n``; every rotation plays
    ``NertsGame(config, deal_seed)`` (common deals). Agents are built fresh per game, seeded
    by :func:`agents.core.arena.agent_seed_for`. A pure function of its arguments. Each
    record lists, by lineup entry: ``seats``, ``totals``, ``hand_scores`` (one list per
    entry), ``ranks`` and ``win_shares``; plus ``rotation``, ``game_seed``, ``hands``,
    ``steps``, ``end_reasons`` (one per hand) and the final state's ``digest``. The games of
    the rotations in ``record_rotations`` also get a ``"record"``: the Nerts game record
    (:func:`gnome_env.nerts.records.to_record`) with the meta of
    :func:`agents.core.arena.game_meta` (``record_meta`` plus who sat where).

    With ``luck``, each record also has ``luck_win`` and ``luck_total`` by entry: the game's
    summed luck-correction terms (:func:`agents.nerts.luck.game_luck`; ``luck`` True uses
    the shipped value, a :class:`~agents.nerts.luck.NertsLuckValue` that one).
    """
    config = NertsConfig.from_dict({**rules_dict, "num_players": num_players})

    def play(
        agents: list[Any], meta: dict[str, Any] | None = None
    ) -> tuple[dict[str, list[Any]], dict[str, Any]]:
        log = GameLog(config, deal_seed) if meta is not None or luck else None
        game = NertsGame(config, deal_seed) if log is None else log.game
        steps = play_game(game if log is None else log, agents)
        ranks, shares = game_outcome(game)
        by_seat = {
            "totals": list(game.totals),
            "hand_scores": [[h.scores[s] for h in game.hand_results] for s in range(num_players)],
            "ranks": ranks,
            "win_shares": shares,
        }
        extra = {
            "hands": len(game.hand_results),
            "steps": steps,
            "end_reasons": [h.end_reason for h in game.hand_results],
            "digest": game.digest(),
        }
        if meta is not None:
            extra["record"] = to_record(log, meta)
        if luck:
            from agents.nerts.luck import game_luck

            terms = game_luck(config, deal_seed, log.hands, None if luck is True else luck)
            by_seat["luck_win"] = terms["win"]
            by_seat["luck_total"] = terms["total"]
        return by_seat, extra

    build = lambda entry, seed: _build(entry, seed, config)  # noqa: E731
    return play_rotations(
        lineup_specs,
        num_players,
        deal_seed,
        agent_seed,
        build,
        play,
        record_rotations=record_rotations,
        record_meta=record_meta,
    )


#: Nerts in the shared arena.
NERTS_ARENA = ArenaGame(
    name="nerts",
    title="Nerts",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    play_deal=play_nerts_deal,
    rules_dict=nerts_rules_dict,
    check_entry=_check_entry,
    rules_line=_rules_line,
    score_name="hand",
    score_key="hand_scores",
    saves_games=True,
    record_text=record_text,
    luck=lambda: _luck_info(),
)


def _luck_info() -> dict[str, Any]:
    """What ``settings["variance_reduction"]`` says of the value function."""
    from agents.nerts.luck import VALUE_FILE, shipped_value

    return {"value": VALUE_FILE.name, "value_meta": shipped_value().meta}
