"""Which of a Nerts agent's deviations from the expert carry its edge: keep only some kinds.

    python bench/nerts_search_kinds.py --agent search --allow foundation --players 2 \
        --games 1000 --seed 555001

``--agent`` (a Nerts agent spec: ``search``, ``ppo:PATH``, ...) decides every move of the
tested seat; where its move is not the expert bot's move on the same view and the move's
kind (N36, :class:`gnome_env.nerts.actions.Kind`) is not in ``--allow``, the expert's move
is played instead. So ``--allow all`` is the agent itself and ``--allow none`` the expert.
Kinds: ``wait``, ``call``, ``turn``, ``recycle``, ``shift``, ``to_slot``,
``new_foundation``, ``to_work``, ``work_move``, ``slide``, and the groups ``foundation``
(``to_slot``, ``new_foundation``), ``work`` (``to_work``, ``work_move``, ``slide``),
``stock`` (``turn``, ``recycle``, ``shift``), ``all``, ``none`` and ``not-wait``; several
are joined with commas. The gated agent plays ``--games`` one-hand games (400-step cap)
against n-1 experts in the arena (:func:`agents.core.arena.run_arena`: common deals,
rotated seats, luck-corrected rates) and the arena's table is printed, with how often the
agent left the expert's move and how many of those were kept.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _script import run

from agents.core.arena import run_arena
from agents.nerts.expert import ExpertNertsAgent
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts.actions import Kind, action_table, parse_kinds
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.information import NertsView


class GatedAgent:
    """``agent``'s move where it is the expert's or of an allowed kind, else the expert's."""

    def __init__(self, agent: Any, config: NertsConfig, seed: int, allow: frozenset[Kind]):
        self.agent = agent
        self.expert = ExpertNertsAgent(seed, config)
        self.table = action_table(config)
        self.allow = allow
        self.decisions = self.left = self.kept = 0

    def decide(self, view: NertsView) -> int:
        """The gated move for ``view``."""
        move = int(self.agent.decide(view))
        expert = int(self.expert.decide(view))
        self.decisions += 1
        if move == expert:
            return move
        self.left += 1
        if self.table.decode(move).kind in self.allow:
            self.kept += 1
            return move
        return expert


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agent", default="search", help="the agent spec to gate (default search)")
    p.add_argument("--allow", default="all", help="kinds whose deviations are kept")
    p.add_argument("--players", type=int, default=2, choices=range(2, 7))
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--seed", type=int, default=555001, help="the arena seed")
    p.add_argument("--workers", type=int, default=1)
    args = p.parse_args(argv)
    try:
        allow = parse_kinds(args.allow)
    except ValueError as err:
        p.error(f"--allow: {err}")
    if args.games < 1 or args.workers < 1:
        p.error("--games and --workers must be >= 1")
    rules = {"max_hands": 1, "max_steps_per_hand": 400}
    config = NertsConfig.from_dict({"num_players": args.players, **rules})
    try:
        make_nerts_agent(args.agent, 0, config)
    except ValueError as err:
        p.error(f"--agent: {err}")
    gated: list[GatedAgent] = []

    def factory(seed: int, cfg: NertsConfig) -> GatedAgent:
        agent = GatedAgent(make_nerts_agent(args.agent, seed, cfg), cfg, seed, allow)
        gated.append(agent)
        return agent

    factory.__name__ = f"{args.agent}[{args.allow}]"  # the arena's label of the entry
    lineup = [factory] + ["expert"] * (args.players - 1)
    result = run_arena(
        lineup, args.players, args.games, seed=args.seed, workers=args.workers, rules=rules,
        progress=False, game="nerts", variance_reduction=True,
    )  # fmt: skip
    print(result)
    decisions = sum(g.decisions for g in gated)
    if decisions:  # (with --workers > 1 the agents live in the workers: no counts here)
        left, kept = sum(g.left for g in gated), sum(g.kept for g in gated)
        print(
            f"{args.agent} left the expert's move at {left:,} of {decisions:,} decisions "
            f"({left / decisions:.1%}); {kept:,} of those were kept (--allow {args.allow})"
        )
    return 0


if __name__ == "__main__":
    run(main)
