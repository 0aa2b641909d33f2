"""Sequential stopping in the arena (issue #33 item 5): the confidence sequence of
agents/core/sequential.py and ``run_arena(..., until_significant=True)`` / ``gnome eval
--until-significant``.

The error-rate tests draw streams whose mean is exactly the tested rate and look after every
25 observations, as the arena does: the sequence must exclude the true rate in at most 5% of
the runs. The same streams show why a plain interval cannot be used that way (it excludes the
true rate far more often when looked at repeatedly), so the check can fail.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from agents.core.arena import Z_95, run_arena
from agents.core.sequential import BettingConfidenceSequence

LOOK_EVERY = 25
LENGTH = 500
RUNS = 250


def _streams(kind: str, rng: np.random.Generator) -> tuple[float, np.ndarray]:
    """(true mean, RUNS x LENGTH observations in [0, 1])."""
    if kind == "coin":  # 2 seats, no ties: a per-deal mean of 2 rotations of a fair match
        return 0.5, rng.binomial(2, 0.5, size=(RUNS, LENGTH)) / 2.0
    if kind == "three_seats":  # 3 rotations of a 1-in-3 chance, mean 1/3
        return 1 / 3, rng.binomial(3, 1 / 3, size=(RUNS, LENGTH)) / 3.0
    raise AssertionError(kind)


def _excluded_ever(stream: np.ndarray, mean: float) -> bool:
    cs = BettingConfidenceSequence(grid=[mean])
    for start in range(0, LENGTH, LOOK_EVERY):
        cs.update(stream[start : start + LOOK_EVERY])
        if cs.rejects(mean):
            return True
    return False


def _plain_interval_excluded_ever(stream: np.ndarray, mean: float) -> bool:
    for end in range(LOOK_EVERY, LENGTH + 1, LOOK_EVERY):
        x = stream[:end]
        half = Z_95 * x.std(ddof=1) / math.sqrt(end)
        if abs(x.mean() - mean) > half:
            return True
    return False


@pytest.mark.parametrize("kind", ["coin", "three_seats"])
def test_error_rate_at_the_true_rate_stays_within_5_percent(kind):
    mean, streams = _streams(kind, np.random.default_rng(20261204))
    errors = sum(_excluded_ever(s, mean) for s in streams) / RUNS
    assert errors <= 0.05, f"the sequence excluded the true rate in {errors:.3f} of {RUNS} runs"
    # the same looks at the fixed-size normal interval: far above 5%, so a sequence that
    # were no better than it would fail the assertion above
    naive = sum(_plain_interval_excluded_ever(s, mean) for s in streams) / RUNS
    assert naive > 0.1, naive


def test_a_real_edge_is_found_and_the_interval_covers_the_mean():
    rng = np.random.default_rng(7)
    x = rng.binomial(1, 0.6, size=2000).astype(float)
    cs = BettingConfidenceSequence(points=[0.5])
    seen = 0
    widths = []
    while not cs.rejects(0.5):
        cs.update(x[seen : seen + LOOK_EVERY])
        seen += LOOK_EVERY
        low, high = cs.interval()
        widths.append(high - low)
        assert low <= 0.6 <= high  # this seed's run never loses the true mean
    assert seen < 2000 and cs.t == seen
    assert widths[-1] < widths[0]
    low, high = cs.interval()
    assert high < 0.5 or (low > 0.5 and low <= x[:seen].mean() <= high)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match=r"alpha=1.5 is not allowed"):
        BettingConfidenceSequence(alpha=1.5)
    cs = BettingConfidenceSequence()
    with pytest.raises(ValueError, match=r"observation 1.2 is not allowed: must lie in \[0, 1\]"):
        cs.update([0.5, 1.2])


LINEUP = ["greedy", "random", "random"]


def test_arena_stops_early_on_a_clear_edge_and_says_so(tmp_path):
    result = run_arena(LINEUP, 3, 600, seed=3, progress=False, until_significant=True)
    seq = result.settings["sequential"]
    assert seq["stopped_early"] and seq["significant"]
    assert seq["games_used"] == result.settings["games"] == len(result.records) < 600
    assert seq["games_used"] % (3 * LOOK_EVERY) == 0  # whole batches of 25 deals
    assert seq["cs_low"] > 1 / 3 and seq["against"] == pytest.approx(1 / 3)
    assert result.stats[0].games == seq["games_used"]
    assert "stopped after" in result.table() and "excludes 0.333" in result.table()
    path = tmp_path / "r.json"
    result.to_json(path)
    assert json.loads(path.read_text())["settings"]["sequential"]["games_used"] == seq["games_used"]
    # the workers do not change where it stops
    again = run_arena(LINEUP, 3, 600, seed=3, progress=False, until_significant=True, workers=2)
    assert again.records == result.records and again.settings["sequential"] == seq


def test_arena_plays_to_the_cap_when_nothing_is_significant():
    # greedy against greedy: equal strength, so the sequence keeps 1/2 (for this seed)
    result = run_arena(
        ["greedy", "greedy"], 2, 100, seed=5, game="nerts", rules={"max_hands": 1},
        progress=False, until_significant=True,
    )  # fmt: skip
    seq = result.settings["sequential"]
    assert not seq["significant"] and not seq["stopped_early"]
    assert seq["games_used"] == 100 == seq["max_games"]
    assert seq["cs_low"] < 0.5 < seq["cs_high"]
    assert "not significant" in result.table()
    # without sequential stopping the same seed plays the same games
    plain = run_arena(
        ["greedy", "greedy"], 2, 100, seed=5, game="nerts", rules={"max_hands": 1},
        progress=False,
    )  # fmt: skip
    assert plain.records == result.records and "sequential" not in plain.settings


def test_against_sets_the_rate_and_bad_values_are_refused():
    result = run_arena(LINEUP, 3, 150, seed=3, progress=False, until_significant=True, against=0.9)
    assert result.settings["sequential"]["against"] == 0.9
    with pytest.raises(ValueError, match="against is only for until_significant=True"):
        run_arena(LINEUP, 3, 30, progress=False, against=0.5)
    with pytest.raises(ValueError, match=r"against=1.0 is not allowed"):
        run_arena(LINEUP, 3, 30, progress=False, until_significant=True, against=1.0)
    with pytest.raises(ValueError, match=r"check_every=0 is not allowed"):
        run_arena(LINEUP, 3, 30, progress=False, until_significant=True, check_every=0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--against", "0.4"], "argument --against: only with --until-significant"),
        (["--until-significant", "--against", "0"], "argument --against: 0.0 is not allowed"),
    ],
)
def test_gnome_eval_flags_are_checked(argv, message, capsys):
    from training.app.cli import main

    with pytest.raises(SystemExit) as info:
        main(["eval", "--players", "3", "--lineup", "greedy,random,random", "--games", "6", *argv])
    assert info.value.code == 2
    assert message in capsys.readouterr().err


def test_saved_games_of_a_run_that_stopped_early_are_counted_as_written(tmp_path, capsys):
    from training.app.cli import main

    out = tmp_path / "games"
    argv = ["eval", "--game", "nerts", "--players", "2", "--lineup", "greedy,random"]
    argv += ["--max-hands", "1", "--games", "400", "--until-significant", "--no-progress"]
    assert main([*argv, "--save-games", str(out)]) == 0
    written = sorted(p.name for p in out.iterdir())
    assert 0 < len(written) < 400
    text = capsys.readouterr().out
    assert f"{len(written)} Nerts game records written to {out}" in text
