"""Ginny-O in the shared arena (:mod:`agents.core.arena`): ``run_arena(..., game="ginny_o")``.

A Ginny-O *deal* is one game seed: every seat rotation plays ``GinnyGame(config, deal_seed)``,
so the first player (G12) and the position of every draw in the box (G4: the ``i``-th draw
of the game takes a position that depends on the seed and ``i`` only) are common to the
rotations; the tiles drawn differ as soon as the players differ. One arena *game* is one
whole Ginny-O game (until G29 ends it).

At each step the acting seat's agent gets ``GinnyView.from_game(game, seat)`` -- its own
information (G17), never the game -- and returns an id from ``view.legal_actions``; an
illegal id is an error (the engine raises, nothing is substituted). Ranks follow G31: the
higher final score first, a tie broken by the smaller rack penalty; seats equal on both
share the rank and the win. A game has one scoring unit, so the table's ``mean game`` is the
mean final score, the same as ``mean total``.

A saved game (``run_arena(..., game="ginny_o", save_games=DIR)``, ``gnome eval --game
ginny_o --save-games DIR``) is a Ginny-O game record (:mod:`gnome_env.ginny_o.records`): the
deal seed, the rules and every turn's action ids, with the arena's ``meta``
(:func:`agents.core.arena.game_meta`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents.core.arena import ArenaGame, average_ranks, full_rules, play_rotations, win_shares
from agents.ginny_o.registry import make_ginny_agent
from gnome_env.ginny_o.config import MAX_PLAYERS, MIN_PLAYERS, GinnyConfig
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.records import record_text, to_record

#: A Ginny-O lineup entry: a spec (``"greedy"``) or a factory ``(seed, GinnyConfig) -> agent``.
GinnyEntry = str | Callable[[int, GinnyConfig], Any]


def ginny_rules_dict(rules: GinnyConfig | Mapping[str, object] | None, n: int) -> dict[str, Any]:
    """The full Ginny-O rules (``GinnyConfig.to_dict``) for ``n`` seats; ``rules`` may be a
    GinnyConfig, a mapping of its fields or None. A ``num_players`` in ``rules`` must be ``n``."""
    return full_rules(GinnyConfig, "num_players", rules, n)


def _check_entry(entry: str, rules_dict: Mapping[str, Any]) -> None:
    """An unknown Ginny-O spec raises here, listing the known Ginny-O specs."""
    make_ginny_agent(entry, 0, GinnyConfig.from_dict(rules_dict))


def _rules_line(rules: Mapping[str, Any], n: int) -> str:
    """The rules line of the printed table: the turn cap (G29d), placements per turn (G14)
    and every other option set away from its default."""
    config = GinnyConfig.from_dict(rules)
    cap = "" if rules["max_turns"] is not None else f" (60 x {n} players)"
    shown = [f"max_turns={config.turn_cap}{cap}", f"max_placements={config.max_placements}"]
    defaults = GinnyConfig(num_players=n).to_dict()
    shown += [
        f"{k}={rules[k]}"
        for k in GinnyConfig.field_names()
        if k not in ("num_players", "max_turns", "max_placements") and rules[k] != defaults[k]
    ]
    return "rules: " + ", ".join(shown)


def _build(entry: GinnyEntry, seed: int, config: GinnyConfig) -> Any:
    if isinstance(entry, str):
        return make_ginny_agent(entry, seed, config)
    return entry(seed, config)


def play_game(game: GinnyGame, agents: Sequence[Any]) -> int:
    """Play ``game`` to its end (G29) with one agent per seat; the number of steps played."""
    steps = 0
    while not game.game_over:
        seat = game.current
        game.step(agents[seat].decide(GinnyView.from_game(game, seat)))
        steps += 1
    return steps


def game_outcome(game: GinnyGame) -> tuple[list[float], list[float]]:
    """Ranks and win shares by seat of a finished game (G31)."""
    return average_ranks(game.ranking_keys()), win_shares(game.winners(), game.num_players)


def play_ginny_deal(
    lineup_specs: Sequence[GinnyEntry],
    num_players: int,
    rules_dict: Mapping[str, object],
    deal_seed: int,
    agent_seed: int,
    record_rotations: Sequence[int] = (),
    record_meta: Mapping[str, Any] | None = None,
    luck: bool = False,
) -> list[dict[str, Any]]:
    """Play the ``num_players`` seat rotations of one Ginny-O deal; one record per game.

    Rotation ``r`` seats lineup entry ``i`` at ``(i + r) % n``; every rotation plays
    ``GinnyGame(config, deal_seed)``. Agents are built fresh per game, seeded by
    :func:`agents.core.arena.agent_seed_for`. A pure function of its arguments. Each record
    lists, by lineup entry: ``seats``, ``totals`` (G30 final scores), ``game_scores`` (one
    list per entry holding its final score: the arena's per-unit scores), ``scores``
    (before penalties), ``penalties``, ``ranks`` and ``win_shares``; plus ``rotation``,
    ``game_seed``, ``first_player``, ``turns``, ``steps``, ``end_reason`` (G29) and the
    final state's ``digest``. The games of the rotations in ``record_rotations`` also get a
    ``"record"``: the Ginny-O game record (:func:`gnome_env.ginny_o.records.to_record`) with
    the meta of :func:`agents.core.arena.game_meta` (``record_meta`` plus who sat where).
    With ``luck``, each record also has ``luck_win`` and ``luck_total`` by entry: the game's
    summed luck-correction terms (:func:`agents.ginny_o.luck.game_luck`).
    """
    config = GinnyConfig.from_dict({**rules_dict, "num_players": num_players})

    def play(
        agents: list[Any], meta: dict[str, Any] | None = None
    ) -> tuple[dict[str, list[Any]], dict[str, Any]]:
        game = GinnyGame(config, deal_seed)
        steps = play_game(game, agents)
        ranks, shares = game_outcome(game)
        assert game.final_scores is not None and game.penalties is not None
        by_seat = {
            "totals": list(game.final_scores),
            "game_scores": [[f] for f in game.final_scores],
            "scores": list(game.scores),
            "penalties": list(game.penalties),
            "ranks": ranks,
            "win_shares": shares,
        }
        if luck:
            from agents.ginny_o.luck import game_luck

            terms = game_luck(config, deal_seed, [a for _, a in game.log])
            by_seat["luck_win"] = terms["win"]
            by_seat["luck_total"] = terms["total"]
        extra = {
            "first_player": game.first_player,
            "turns": game.turn,
            "steps": steps,
            "end_reason": game.end_reason,
            "digest": game.digest(),
        }
        if meta is not None:
            extra["record"] = to_record(game, meta)
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


#: Ginny-O in the shared arena.
GINNY_ARENA = ArenaGame(
    name="ginny_o",
    title="Ginny-O",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    play_deal=play_ginny_deal,
    rules_dict=ginny_rules_dict,
    check_entry=_check_entry,
    rules_line=_rules_line,
    score_name="game",
    score_key="game_scores",
    saves_games=True,
    record_text=record_text,
    luck=lambda: _luck_info(),
)


def _luck_info() -> dict[str, Any]:
    """What ``settings["variance_reduction"]`` says of the value function."""
    from agents.ginny_o.luck import VALUE_FILE, shipped_value

    return {"value": VALUE_FILE.name, "value_meta": shipped_value().meta}
