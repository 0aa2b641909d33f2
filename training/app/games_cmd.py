"""``gnome games``: the registered games (:mod:`gnome_env.registry`) as a table or JSON."""

from __future__ import annotations

import argparse
import json
from typing import Any

from gnome_env.registry import games


def game_rows() -> list[dict[str, Any]]:
    """``gnome games --json``: one mapping per registered game, in registry order."""
    rows = []
    for spec in games():
        row: dict[str, Any] = {
            "name": spec.name,
            "title": spec.title,
            "api": spec.api,
            "min_players": spec.min_players,
            "max_players": spec.max_players,
            "default_players": spec.default_players,
            "env_ids": list(spec.env_ids),
            "bots": list(spec.bots),
            "trainers": list(spec.trainers),
            "shipped": [p.name for p in spec.shipped],
            "terminal_play": "play" in spec.commands,
            "docs": spec.docs,
        }
        if spec.strongest_policy is not None:
            row["strongest_policy"] = spec.strongest_policy.spec
        rows.append(row)
    return rows


def _games(args: argparse.Namespace) -> int:
    """``gnome games``: the registered games as a table (``--json``: a JSON list)."""
    rows = game_rows()
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    table = [["name", "API", "seats", "env ids", "bots", "shipped policies (strongest first)"]]
    for r in rows:
        seats = f"{r['min_players']}..{r['max_players']} ({r['default_players']})"
        lists = [", ".join(r[k]) or "-" for k in ("env_ids", "bots", "shipped")]
        table.append([r["name"], r["api"], seats, *lists])
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    for row in table:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    return 0


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """``gnome games [--json]``."""
    gm = sub.add_parser(
        "games",
        help="list the registered games (name, API, seats, env ids, bots, shipped policies)",
        description="The registered games as a table, or with --json as a JSON list (each with "
        "strongest_policy, the agent spec of its strongest shipped policy, where it has one).",
    )
    gm.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    gm.set_defaults(func=_games, parser=gm)
    return gm
