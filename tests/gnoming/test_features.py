"""agents.gnoming.features: Greedy's layout arithmetic from tokens, checked against Greedy
itself."""

from __future__ import annotations

import numpy as np
import pytest

from agents.gnoming.features import NUM_INPUTS, UNIT, LayoutFeatures
from agents.gnoming.greedy import GreedyAgent, greedy_value
from agents.gnoming.heuristics import CardStats, placeable, placed
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.information import SeatView
from gnome_env.gnoming.vector import VectorGame


def _positions(steps: int = 250, batch: int = 48, seed: int = 3):
    """(tokens, masks) of the deciding seats along random games of 3, 5 and 7 players."""
    rules = RulesConfig()
    vec = VectorGame(rules, batch, num_players=[3, 5, 7])
    tokens, masks, *_ = vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        yield rules, tokens, masks
        tokens, masks, *_ = vec.step(vec.sample_actions(rng))


def test_every_estimate_and_change_equals_greedys_own_arithmetic():
    feats = LayoutFeatures(RulesConfig())
    checked = {"seat": 0, "place": 0, "take": 0, "bounce": 0, "line": 0}
    for rules, tokens, masks in _positions():
        bias, inputs = feats(tokens)
        assert bias.shape == (len(tokens), A.NUM_ACTIONS) and inputs.shape[1] == NUM_INPUTS
        for b in range(0, len(tokens), 7):
            view = SeatView.from_tokens(tokens[b], masks[b], rules)
            stats = CardStats(view.unseen)
            n = len(view.layouts)
            for rel in range(n):
                layout = view.layouts[(view.seat + rel) % n]
                want = greedy_value(layout, stats)
                assert inputs[b, 27 + rel] * UNIT == pytest.approx(want, abs=1e-4)
                checked["seat"] += 1
            assert inputs[b, 27 + n :][:-1].tolist() == [0.0] * (7 - n)  # absent seats
            own = view.layouts[view.seat]
            base = greedy_value(own, stats)
            for q in range(9):
                if view.hand is not None and placeable(own, view.hand, q):
                    change = greedy_value(placed(own, q, view.hand), stats) - base
                    assert bias[b, A.PLACE + q] == pytest.approx(change, abs=1e-4)
                    assert bias[b, A.BOUNCE + q] == pytest.approx(change, abs=1e-4)
                    checked["bounce" if view.phase == Phase.DISPLACED else "place"] += 1
                    checked["line"] += change < -5
            for i, action in enumerate((A.TAKE_A, A.TAKE_B)):
                top = view.pile_tops[i]
                if view.phase != Phase.DRAW or top is None:
                    continue
                options = [
                    greedy_value(placed(own, q, top), stats) - base
                    for q in range(9)
                    if placeable(own, top, q)
                ]
                want = min(options) if options else 0.0
                assert bias[b, action] == pytest.approx(want, abs=1e-4)
                checked["take"] += 1
    assert min(checked.values()) > 50, checked  # every kind of figure was compared, often


def test_actions_that_do_not_place_a_card_have_no_bias():
    feats = LayoutFeatures(RulesConfig())
    none = [A.DRAW, A.DISCARD_A, A.DISCARD_B, A.DECLINE, *range(A.FLIP, A.FLIP + 9)]
    for _, tokens, _ in _positions(steps=40):
        bias, _ = feats(tokens)
        assert not bias[:, none].any()


def test_the_lowest_bias_is_greedys_placement_when_greedy_places():
    """In the place phase Greedy puts the card where the estimate drops most: that is the
    legal place action with the lowest bias (ties excepted)."""
    feats = LayoutFeatures(RulesConfig())
    agreed = 0
    for rules, tokens, masks in _positions(steps=150):
        bias, _ = feats(tokens)
        for b in range(len(tokens)):
            view = SeatView.from_tokens(tokens[b], masks[b], rules)
            if view.phase != Phase.PLACE:
                continue
            action = GreedyAgent(seed=0).decide(view)
            if not A.PLACE <= action < A.PLACE + 9:
                continue
            places = [a for a in range(A.PLACE, A.PLACE + 9) if masks[b, a]]
            best = min(bias[b, a] for a in places)
            assert bias[b, action] == pytest.approx(best, abs=1e-4)
            agreed += 1
    assert agreed > 100


def test_tokens_must_be_a_batch():
    with pytest.raises(ValueError, match=r"\[N, T\]"):
        LayoutFeatures(RulesConfig())(np.zeros(119, dtype=np.int16))


def test_features_and_feature_policy_ignore_hidden_cards():
    """No leak: permuting every card nobody can see (face-down layout cards, the draw pile)
    changes neither the features of any seat nor a feature network's action probabilities."""
    torch = pytest.importorskip("torch")
    from agents.gnoming.learned import PolicyAgent, PolicyNetwork
    from gnome_env.gnoming.encoding import ObservationEncoder
    from gnome_env.gnoming.testing import hidden_card_twins

    rules = RulesConfig(num_players=5)
    feats = LayoutFeatures(rules)
    enc = ObservationEncoder(rules)
    net = PolicyNetwork(rules, (32,), features=True)
    net.reset_parameters(torch.Generator().manual_seed(0))
    agent = PolicyAgent(net)
    compared = 0
    for game, twin in hidden_card_twins(rules, 8):
        for seat in range(5):
            a, b = enc.tokens(game, seat)[None], enc.tokens(twin, seat)[None]
            for x, y in zip(feats(a), feats(b), strict=True):
                assert np.array_equal(x, y)
        seat = game.current_seat
        mask = game.legal_mask()
        assert np.array_equal(
            agent.distribution(enc.encode(game, seat), mask),
            agent.distribution(enc.encode(twin, seat), mask),
        )
        compared += 1
    assert compared > 100


#: a small deck with extreme values and many mulligans and hazards (as the kernels' tests)
ODD_DECK = {"1": 6, "2": 6, "5": 7, "9": 5, "40": 4, "99": 3, "-99": 2, "-5": 4, "M": 6, "H": 6}


@pytest.mark.parametrize(
    "rules",
    [RulesConfig(), RulesConfig(deck=ODD_DECK, rounds=2), RulesConfig(bounce_face_up=True)],
    ids=["default", "odd_deck", "bounce_face_up"],
)
def test_compiled_features_equal_the_numpy_arithmetic_to_the_bit(rules):
    """#13 item 3: with numba the features come from a compiled loop; on positions of
    random games they are the floats of the numpy arithmetic, every one."""
    from gnome_env.gnoming._kernels import COMPILED

    if not COMPILED:
        pytest.skip("without numba the features are the numpy arithmetic itself")
    feats = LayoutFeatures(rules)
    vec = VectorGame(rules, 64, num_players=[3, 4, 5, 6, 7] if rules.rounds == 3 else [3, 4])
    tokens, *_ = vec.reset(seed=8)
    rng = np.random.default_rng(8)
    rows = 0
    for _ in range(200):
        bias, inputs = feats(tokens)
        want_bias, want_inputs = feats.features_numpy(tokens)
        assert bias.dtype == want_bias.dtype == inputs.dtype == want_inputs.dtype == np.float32
        assert np.array_equal(bias, want_bias) and np.array_equal(inputs, want_inputs)
        rows += len(tokens)
        tokens, *_ = vec.step(vec.sample_actions(rng))
    assert rows == 64 * 200
    assert np.abs(want_bias).sum() > 0 and np.abs(want_inputs).sum() > 0
