"""Arena evaluation of the network during and after training, its table and its plot."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from agents.gnoming.learned import PolicyAgent, PolicyNetwork
from gnome_env.gnoming.config import RulesConfig


def evaluate(
    net: PolicyNetwork,
    rules: RulesConfig,
    seat_counts: list[int],
    opponents: list[str],
    games: int,
    seed: int,
    progress: bool = False,
) -> dict[str, dict[int, dict[str, float]]]:
    """Arena games of the greedy policy vs n-1 copies of each bot, per seat count.

    Returns ``{bot: {n: {"win_rate", "low", "high", "mean_round_score", "games"}}}``.
    """
    from agents.gnoming.arena import run_arena

    frozen = copy.deepcopy(net).cpu().eval()

    def policy(agent_seed: int, config: RulesConfig) -> PolicyAgent:
        return PolicyAgent(frozen, mode="greedy", seed=agent_seed)

    out: dict[str, dict[int, dict[str, float]]] = {}
    for bot in opponents:
        out[bot] = {}
        for n in seat_counts:
            res = run_arena(
                [policy] + [bot] * (n - 1),
                n,
                games,
                seed=seed,
                rules=rules.replace(num_players=n),
                progress=progress,
            )
            s = res.stats[0]
            out[bot][n] = {
                "win_rate": s.win_rate,
                "low": s.ci_low,
                "high": s.ci_high,
                "mean_round_score": s.mean_round_score,
                "games": res.settings["games"],
            }
    return out


def arena_table(results: dict[str, dict[int, dict[str, float]]]) -> str:
    """Markdown table of :func:`evaluate`'s results, with the 1/n a coin-flip seat gets."""
    lines = [
        "| opponents | seats | games | win rate | 95% interval | 1/n | mean round score |",
        "|---|---|---|---|---|---|---|",
    ]
    for bot, per_n in results.items():
        for n, r in sorted(per_n.items()):
            lines.append(
                f"| {n - 1} x {bot} | {n} | {r['games']} | {r['win_rate']:.3f} | "
                f"[{r['low']:.3f}, {r['high']:.3f}] | {1 / n:.3f} | {r['mean_round_score']:.2f} |"
            )
    return "\n".join(lines)


def plot_learning_curve(history: list[dict[str, Any]], path: Path) -> None:
    """Win rate vs each bot (mean over seat counts, and per seat count) against steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    evals = [h for h in history if "eval" in h]
    if not evals:
        return
    bots = list(evals[0]["eval"])
    fig, axes = plt.subplots(1, len(bots), figsize=(5.5 * len(bots), 4), squeeze=False)
    for ax, bot in zip(axes[0], bots, strict=True):
        steps = [h["global_step"] for h in evals]
        for n in sorted({int(k) for h in evals for k in h["eval"][bot]}):
            ys = [h["eval"][bot][str(n)]["win_rate"] for h in evals]
            ax.plot(steps, ys, marker="o", label=f"{n} seats")
            ax.axhline(1 / n, color=ax.lines[-1].get_color(), linestyle=":", linewidth=0.8)
        ax.set_title(f"policy (most likely action) vs n-1 {bot} (dotted: 1/n)")
        ax.set_xlabel("decisions played (all seats)")
        ax.set_ylabel("arena win rate")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
