"""The compiled Expert (agents.gnoming.expert_kernel) decides exactly as
agents.gnoming.expert.ExpertAgent.

Positions come from real games of 3-7 seats in which every seat is played by Expert, Greedy
or uniformly random moves, under several rules variants and decks; on every decision the
kernel's action must equal ``ExpertAgent.decide(SeatView.from_tokens(tokens, mask, rules))``.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents.gnoming.expert as expert_module
from agents.gnoming.expert import ExpertAgent
from agents.gnoming.expert_kernel import expert_actions_batch
from agents.gnoming.greedy import GreedyAgent
from gnome_env.gnoming import Game
from gnome_env.gnoming._kernels import COMPILED, TOK_PHASE
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.vector import VectorGame

#: the R1 deck without hazards and mulligans
PLAIN_DECK = {**{str(v): 7 for v in range(1, 11)}, "11": 6, "12": 6, "-1": 8, "-2": 6}
#: a small deck with extreme values and many mulligans and hazards
ODD_DECK = {"1": 6, "2": 6, "5": 7, "9": 5, "40": 4, "99": 3, "-99": 2, "-5": 4, "M": 6, "H": 6}
#: (rules, seat counts) of the agreement runs
VARIANTS = {
    "default": (RulesConfig(), [3, 4, 5, 6, 7]),
    "rediscard_bounce_up": (
        RulesConfig(discard_taken_card=True, bounce_face_up=True),
        [3, 4, 5, 6, 7],
    ),
    "tie_not_lowest_fixed_start_cap": (
        RulesConfig(first_out_tie_is_lowest=False, rotate_start=False, max_turns_per_round=25),
        [3, 5, 7],
    ),
    "no_hazard_no_mulligan": (RulesConfig(deck=PLAIN_DECK), [3, 4, 6]),
    "small_deck_big_values": (RulesConfig(deck=ODD_DECK, rounds=2), [3, 4]),
}


def play_positions(rules, num_players, batch, steps, seed, mix=(0.45, 0.2, 0.35)):
    """Yield ``(tokens, masks, expert actions)`` per step of ``batch`` games in which each
    seat of each slot is played by Expert, Greedy or random moves (shares ``mix``); the
    expert actions are the Python bot's, on ``SeatView.from_tokens``."""
    vec = VectorGame(rules, batch_size=batch, num_players=num_players)
    tokens, masks, seats = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    roles = rng.choice(3, size=(batch, 7), p=mix)
    expert = ExpertAgent(0, rules)
    greedy = GreedyAgent(seed, rules)
    for _ in range(steps):
        views = [SeatView.from_tokens(t, m, rules) for t, m in zip(tokens, masks, strict=True)]
        want = np.array([expert.decide(v) for v in views], dtype=np.int64)
        yield tokens, masks, want
        actions = vec.sample_actions(rng)
        for b in range(batch):
            role = roles[b, seats[b]]
            if role == 0:
                actions[b] = want[b]
            elif role == 1:
                actions[b] = greedy.decide(views[b])
        tokens, masks, seats, *_ = vec.step(actions)


def check_variant(name, batch, steps, seed):
    """(decisions, phases seen, mismatching rows) of one variant's run."""
    rules, players = VARIANTS[name]
    decisions = 0
    phases: set[int] = set()
    bad = []
    for tokens, masks, want in play_positions(rules, players, batch, steps, seed):
        got = expert_actions_batch(tokens, masks, rules)
        assert got.dtype == np.int64 and masks[np.arange(len(got)), got].all()
        for i in np.flatnonzero(got != want):
            view = SeatView.from_tokens(tokens[i], masks[i], rules)
            bad.append((view.phase.name, int(got[i]), int(want[i]), view))
        decisions += len(got)
        phases.update(int(p) for p in tokens[:, TOK_PHASE])
    return decisions, phases, bad


@pytest.fixture
def branch_counts(monkeypatch):
    """Counts of the Python bot's rarer branches while a test runs: going out (lowest_chance)
    and the bounce lookahead (_with_bounce)."""
    counts = {"going_out": 0, "bounce_lookahead": 0}

    def lowest_chance(*args, **kwargs):
        counts["going_out"] += 1
        return original_chance(*args, **kwargs)

    def with_bounce(self, *args, **kwargs):
        counts["bounce_lookahead"] += 1
        return original_bounce(self, *args, **kwargs)

    original_chance = expert_module.lowest_chance
    original_bounce = ExpertAgent._with_bounce
    monkeypatch.setattr(expert_module, "lowest_chance", lowest_chance)
    monkeypatch.setattr(ExpertAgent, "_with_bounce", with_bounce)
    return counts


@pytest.mark.parametrize(
    ("name", "batch", "steps", "seed"),
    [
        ("default", 64, 300, 1),
        ("rediscard_bounce_up", 48, 160, 2),
        ("tie_not_lowest_fixed_start_cap", 48, 160, 3),
        ("no_hazard_no_mulligan", 48, 100, 4),
        ("small_deck_big_values", 48, 100, 5),
    ],
)
def test_kernel_decides_exactly_as_the_python_expert(name, batch, steps, seed, branch_counts):
    decisions, phases, bad = check_variant(name, batch, steps, seed)
    assert not bad, f"{len(bad)} of {decisions} decisions differ; first: {bad[0]}"
    assert decisions == batch * steps
    expected = {int(p) for p in Phase if p != Phase.GAME_OVER}
    if "no_hazard" in name:
        expected.discard(int(Phase.HAZARD_FLIP))
    assert phases == expected
    assert branch_counts["going_out"] > 0 and branch_counts["bounce_lookahead"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_kernel_decides_exactly_as_the_python_expert_long(name):
    decisions, _, bad = check_variant(name, 128, 800, 100 + sorted(VARIANTS).index(name))
    assert not bad, f"{len(bad)} of {decisions} decisions differ; first: {bad[0]}"


def test_batch_checks_shapes_and_splits_freely():
    rules = RulesConfig()
    tokens, masks, want = next(
        t for i, t in enumerate(play_positions(rules, [3, 7], 40, 60, 9)) if i == 59
    )
    whole = expert_actions_batch(tokens, masks, rules)
    parts = np.concatenate([expert_actions_batch(tokens[i : i + 7], masks[i : i + 7], rules)
                            for i in range(0, len(tokens), 7)])  # fmt: skip
    assert np.array_equal(whole, want) and np.array_equal(parts, want)
    assert expert_actions_batch(tokens[:0], masks[:0], rules).shape == (0,)
    with pytest.raises(ValueError, match=r"masks \[N, 33\]"):
        expert_actions_batch(tokens, masks[:3], rules)
    with pytest.raises(ValueError, match=r"tokens \[N, 119\]"):
        expert_actions_batch(tokens[:, :-1], masks, rules)


# ---------------------------------------------------------------------- plain Python
def game_mismatches(games: int, seed: int = 0) -> list[tuple[int, int, int]]:
    """``(row, kernel, python)`` for every decision of ``games`` scalar games (Expert and
    random seats, tokens from the ObservationEncoder) where the two disagree; the row count
    is appended as ``(-1, rows, 0)``."""
    rng = np.random.default_rng(seed)
    out = []
    rows = 0
    for g in range(games):
        rules = RulesConfig(num_players=3 + g % 5, discard_taken_card=bool(g % 2), rounds=1)
        enc = ObservationEncoder(rules)
        expert = ExpertAgent(0, rules)
        game = Game(rules, seed + g)
        tokens, masks, want = [], [], []
        while not game.game_over:
            seat = game.current_seat
            tok, mask = enc.tokens(game, seat), game.legal_mask()
            action = expert.decide(SeatView.from_game(game, seat))
            tokens.append(tok)
            masks.append(mask)
            want.append(action)
            if rng.random() < 0.3:
                action = int(rng.choice(np.flatnonzero(mask)))
            game.step(action)
        got = expert_actions_batch(np.array(tokens), np.array(masks), rules)
        out += [
            (rows + i, int(a), int(b))
            for i, (a, b) in enumerate(zip(got, want, strict=True))
            if a != b
        ]
        rows += len(want)
    return [*out, (-1, rows, 0)]


def test_kernel_agrees_on_scalar_games_too():
    """Tokens from the ObservationEncoder of the scalar engine, views from the game."""
    result = game_mismatches(6, seed=11)
    assert result[:-1] == [] and result[-1][1] > 500


@pytest.mark.skipif(not COMPILED, reason="this run is uncompiled already")
def test_uncompiled_kernel_agrees(run_uncompiled):
    """With GNOME_NO_NUMBA=1 the kernel runs as plain Python: the same decisions."""
    result = run_uncompiled("test_expert_kernel", "game_mismatches(10, seed=3)")
    mismatches = eval(result)
    assert mismatches[:-1] == [] and mismatches[-1][1] > 1000
