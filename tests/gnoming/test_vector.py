"""The vectorized engine against the scalar engine, the encoder and the AEC env, step by step.

Every slot of a :class:`~gnome_env.gnoming.vector.VectorGame` is shadowed by a PettingZoo
``raw_env``
(whose ``game`` is the scalar :class:`~gnome_env.Game`) and an ``ObservationEncoder``; both
sides get the same random legal actions, and tokens, float observations, masks, acting
seats, rewards, done flags, round results and winners must agree at every step, across
automatic resets and with mixed seat counts in one batch.
"""

from __future__ import annotations

import hashlib
import os
import random

import numpy as np
import pytest

from gnome_env.core.rng import RESHUFFLE, permutation
from gnome_env.gnoming import Game, RulesConfig, parse_card
from gnome_env.gnoming import _kernels as kernels
from gnome_env.gnoming import actions as A
from gnome_env.gnoming.encoding import ObservationEncoder
from gnome_env.gnoming.engine import deal_order, reshuffle_order
from gnome_env.gnoming.gnoming_a_round_v1 import raw_env
from gnome_env.gnoming.testing import kernel_state, stack_deck
from gnome_env.gnoming.vector import ENDED_BY, KernelGame, VectorGame, game_stream

SEATS = [3, 4, 5, 6, 7]
SMALL_DECK = {"1": 6, "2": 6, "3": 6, "4": 6, "-1": 3, "M": 3, "H": 3, "5": 33}  # 66 cards
VARIANTS = [
    {},
    {"bounce_face_up": True, "discard_taken_card": True},
    {"rotate_start": False, "first_out_tie_is_lowest": False},
    {"max_turns_per_round": 12, "rounds": 2},
    {"bounce_face_up": True, "max_turns_per_round": 25, "rounds": 1},
    # a small deck (9 x 7 + 3 cards): the draw pile runs out and reshuffles (R8) often
    {"deck": SMALL_DECK, "rounds": 1},
]
# (variant, reward mode, steps): every variant, every reward mode at least twice
CASES = [
    (0, "win", 1500),
    (1, "score", 900),
    (2, "raw", 900),
    (3, "win", 500),
    (3, "score", 500),
    (4, "raw", 500),
    (5, "win", 500),
    (5, "score", 400),
]


def aec_game_seed(aec_seed: int) -> int:
    """The Game seed ``raw_env.reset(seed=aec_seed)`` plays (its module docstring: game 0
    of the stream ``(aec_seed, 0)``)."""
    return game_stream((aec_seed, 0), 0)[0]


class Shadow:
    """One slot's scalar side: an AEC ``raw_env`` (its ``game`` is the scalar engine)."""

    def __init__(self, rules: dict, n: int, mode: str, *, aec_seed=None, game_seed=None):
        self.env = raw_env(num_players=n, reward_mode=mode, **rules)
        if aec_seed is not None:
            self.env.reset(seed=aec_seed)
        else:  # a game the vector engine started on its own: play the same seed
            self.env.reset(seed=0)
            self.env.game = Game(self.env.config, game_seed)
        assert self.env.agent_selection == f"player_{self.env.game.current_seat}"
        self.encoder = ObservationEncoder(self.env.config)
        self.agents = self.env.possible_agents


def check_decision(vec: VectorGame, decision, shadows: list[Shadow]) -> None:
    tokens, mask, seat = decision[:3]
    assert tokens.dtype == np.int16 and mask.dtype == bool and seat.dtype == np.int8
    obs = vec.observations()
    assert obs.dtype == np.float32 and obs.shape == (vec.batch_size, vec.observation_size)
    for b, sh in enumerate(shadows):
        game = sh.env.game
        s = game.current_seat
        assert seat[b] == s, f"slot {b}: seat"
        assert sh.env.agent_selection == sh.agents[s]
        np.testing.assert_array_equal(tokens[b], sh.encoder.tokens(game, s), f"slot {b}: tokens")
        observed = sh.env.observe(sh.agents[s])
        np.testing.assert_array_equal(obs[b], observed["observation"], f"slot {b}: obs")
        np.testing.assert_array_equal(mask[b], observed["action_mask"].astype(bool))
        np.testing.assert_array_equal(mask[b], game.legal_mask())


def check_step(vec, shadows, actions, result, rules, mode, stats) -> None:
    """Apply ``actions`` to the shadows and compare with the vector step ``result``."""
    rewards, done, info = result.rewards, result.done, result.info
    assert rewards.dtype == np.float32 and rewards.shape == (vec.batch_size, 7)
    assert done.dtype == bool
    for b, sh in enumerate(shadows):
        env, game = sh.env, sh.env.game
        n = game.num_players
        agent = env.agent_selection
        rounds_before = len(game.round_results)
        env.step(int(actions[b]))
        stats["reshuffles"] = max(stats["reshuffles"], game.reshuffles)
        want = np.zeros(7, dtype=np.float32)
        want[:n] = [env.rewards[a] for a in sh.agents]
        np.testing.assert_array_equal(rewards[b], want, f"slot {b}: rewards")
        assert done[b] == game.game_over, f"slot {b}: done"
        ended = len(game.round_results) > rounds_before
        assert info["round_ended"][b] == ended
        assert info["num_players"][b] == n and info["game_seed"][b] == game.seed
        if ended:
            fixed = env.infos[agent]  # the AEC env's info: the vector engine's codes
            assert fixed["round_ended"] == 1 and fixed["ended_by"] == info["ended_by"][b]
            assert fixed["first_out"] == info["first_out"][b] and fixed["round"] == info["round"][b]
            assert fixed["totals"][:n].tolist() == info["totals"][b, :n].tolist()
            assert fixed["winners"][:n].tolist() == info["winners"][b, :n].astype(int).tolist()
            got = env.last_round  # the same round with agent names
            stats["ended_by"].add(got["ended_by"])
            assert info["round"][b] == got["round"]
            assert ENDED_BY[info["ended_by"][b]] == got["ended_by"]
            for key in ("round_scores", "layout_scores", "totals"):
                assert info[key][b, :n].tolist() == [got[key][a] for a in sh.agents], key
                assert not info[key][b, n:].any()
            first_out = -1 if got["first_out"] is None else sh.agents.index(got["first_out"])
            assert info["first_out"][b] == first_out
        else:
            assert info["first_out"][b] == -1 and info["ended_by"][b] == 0
        if done[b]:
            stats["games"] += 1
            winners = [sh.agents[s] for s in range(n) if info["winners"][b, s]]
            assert winners == env.last_round["winners"]
            assert tuple(np.flatnonzero(info["winners"][b])) == game.winners()
            assert info["totals"][b, :n].tolist() == game.totals
            assert info["round_scores"][b, :n].tolist() == list(game.round_results[-1].round_scores)
            assert info["truncated"][b] == env.truncations[agent]
            assert info["terminated"][b] == env.terminations[agent]
            # the slot's next game: the documented seed stream
            episode = int(vec.episodes[b])
            key = (vec.seed, b) if vec.seed is not None else (stats["first_seeds"][b], b)
            seed, choice = game_stream(key, episode, len(vec.choices))
            assert vec.game_seeds[b] == seed
            new_n = int(vec.num_players[b])
            if stats["players_per_slot"] is None:
                assert new_n == vec.choices[choice]
            else:
                assert new_n == stats["players_per_slot"][b]
            shadows[b] = Shadow(rules, new_n, mode, game_seed=seed)
        else:
            assert not info["winners"][b].any()
            assert not info["truncated"][b] and not info["terminated"][b]


def run_differential(
    rules: dict,
    mode: str,
    steps: int,
    *,
    num_players=None,
    players_per_slot=None,
    batch_size: int = 10,
    seed: int | None = None,
    rng_seed: int = 0,
) -> dict:
    """Play ``steps`` vector steps against shadows; return coverage statistics."""
    seats = players_per_slot or ([num_players] if isinstance(num_players, int) else num_players)
    config = RulesConfig.from_dict({**rules, "num_players": min(seats)})
    vec = VectorGame(
        config,
        batch_size,
        num_players=num_players,
        players_per_slot=players_per_slot,
        reward_mode=mode,
    )
    stats = {
        "games": 0,
        "reshuffles": 0,
        "ended_by": set(),
        "players_per_slot": players_per_slot,
        "first_seeds": None,
    }
    if seed is None:  # explicit seeds: the AEC env's own resets, no game swapping
        aec_seeds = [1000 + b for b in range(batch_size)]
        first = [aec_game_seed(s) for s in aec_seeds]
        stats["first_seeds"] = first
        decision = vec.reset(seeds=first)
        assert vec.game_seeds.tolist() == first
        shadows = [
            Shadow(rules, int(n), mode, aec_seed=s)
            for n, s in zip(vec.num_players, aec_seeds, strict=True)
        ]
    else:
        decision = vec.reset(seed=seed)
        shadows = [
            Shadow(rules, int(n), mode, game_seed=int(s))
            for n, s in zip(vec.num_players, vec.game_seeds, strict=True)
        ]
    rng = np.random.default_rng(rng_seed)
    check_decision(vec, decision, shadows)
    for _ in range(steps):
        mask = decision[1]
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)
        decision = vec.step(actions)
        check_step(vec, shadows, actions, decision, rules, mode, stats)
        check_decision(vec, decision, shadows)
    stats["seat_counts"] = set(vec.num_players.tolist())
    return stats


# ---------------------------------------------------------------------- differential tests
@pytest.mark.parametrize(("variant", "mode", "steps"), CASES)
def test_vector_matches_scalar_engine_encoder_and_aec_env(variant, mode, steps):
    """3-7 seats in one batch (two slots each), explicit seeds, every step compared."""
    stats = run_differential(
        VARIANTS[variant], mode, steps, players_per_slot=SEATS + SEATS, batch_size=10
    )
    assert stats["games"] > 0, "no automatic reset was exercised"
    if variant == 5:
        assert stats["reshuffles"] > 0
    if variant == 3:
        assert "turn_cap" in stats["ended_by"]


def test_seat_counts_drawn_per_game_from_the_seed():
    """``num_players`` choices: each game draws its seat count from its seed stream."""
    stats = run_differential(
        {"max_turns_per_round": 15, "rounds": 2},
        "score",
        600,
        num_players=SEATS,
        batch_size=12,
        seed=7,
    )
    assert stats["games"] > 10
    assert len(stats["seat_counts"]) > 1


def test_nobody_can_draw_ends_the_round_d3():
    """A mulligan-heavy deck reaches D3 (a player passes / the round ends with no draw)."""
    rules = {"deck": {"M": 25, "1": 4, "H": 1}, "max_turns_per_round": 30, "rounds": 3}
    stats = run_differential(rules, "raw", 1200, num_players=3, batch_size=8, seed=3)
    assert "no_draw" in stats["ended_by"]
    assert stats["games"] > 0


# ---------------------------------------------------------------------- shapes and seeds
def test_shapes_dtypes_and_sizes():
    vec = VectorGame(RulesConfig(), 6, num_players=[3, 7])
    tokens, mask, seat = vec.reset(seed=0)
    assert tokens.shape == (6, vec.num_tokens) and vec.num_tokens == 119
    assert mask.shape == (6, A.NUM_ACTIONS) and seat.shape == (6,)
    assert vec.observation_size == 1401 and vec.observations().shape == (6, 1401)
    result = vec.step(vec.sample_actions(np.random.default_rng(0)))
    assert result.rewards.shape == (6, 7) and result.done.shape == (6,)
    for key in ("round_scores", "layout_scores", "totals", "winners"):
        assert result.info[key].shape == (6, 7)
    for key in ("round_ended", "round", "first_out", "ended_by", "terminated", "truncated"):
        assert result.info[key].shape == (6,)
    assert result.info["winners"].dtype == bool
    # expand() takes any leading shape, like ObservationEncoder.expand
    stacked = np.stack([tokens, result.tokens])
    assert vec.expand(stacked).shape == (2, 6, 1401)
    np.testing.assert_array_equal(vec.expand(stacked)[1], vec.observations())


def test_seed_scheme():
    vec = VectorGame(RulesConfig(), 5, num_players=SEATS)
    vec.reset(seed=42)
    assert vec.seed == 42 and vec.episodes.tolist() == [0] * 5
    for b in range(5):
        seed, choice = game_stream((42, b), 0, 5)
        assert vec.game_seeds[b] == seed
        assert vec.num_players[b] == SEATS[choice]
    vec.reset(seeds=[5, 6, 7, 8, 9])
    assert vec.game_seeds.tolist() == [5, 6, 7, 8, 9] and vec.seed is None
    for b in range(5):  # the seat count still comes from the stream
        assert vec.num_players[b] == SEATS[game_stream((5 + b, b), 0, 5)[1]]
    vec.reset()  # fresh entropy, recorded
    assert isinstance(vec.seed, int) and vec.seed >= 0


def test_shuffle_functions_are_the_engine_shuffles():
    """engine.deal_order / reshuffle_order are the R3/R8 shuffles Game uses."""
    config = RulesConfig(num_players=3)
    game = Game(config, 11)
    deck = [config.deck.cards()[i] for i in deal_order(11, 0, config.deck.size)]
    assert game.layouts == [deck[9 * p : 9 * p + 9] for p in range(3)]
    order = permutation(17, RESHUFFLE, 11, 2, 3)
    np.testing.assert_array_equal(reshuffle_order(11, 2, 3, 17), order)


def trajectory_digest(batch_size: int = 3, steps: int = 250) -> str:
    """A fingerprint of a small-deck trajectory (reshuffles and auto-resets included)."""
    config = RulesConfig.from_dict({"deck": SMALL_DECK, "rounds": 1})
    vec = VectorGame(config, batch_size, num_players=[3, 7], reward_mode="score")
    decision = vec.reset(seed=5)
    rng = np.random.default_rng(1)
    h = hashlib.sha256()
    h.update(decision.tokens.tobytes() + decision.mask.tobytes())
    for _ in range(steps):
        result = vec.step(vec.sample_actions(rng))
        for array in result[:5]:
            h.update(array.tobytes())
        for key in sorted(result.info):
            h.update(np.ascontiguousarray(result.info[key]).tobytes())
        h.update(vec.observations().tobytes())
    return h.hexdigest()


def test_plain_python_fallback_gives_the_same_trajectory(run_uncompiled):
    """``GNOME_NO_NUMBA=1``: the kernels run uncompiled, with identical results."""
    assert run_uncompiled("test_vector", "trajectory_digest()") == trajectory_digest()


def test_numba_compiles_the_kernels_when_installed():
    pytest.importorskip("numba")
    if os.environ.get("GNOME_NO_NUMBA", "") not in ("", "0"):
        pytest.skip("GNOME_NO_NUMBA is set")
    assert kernels.COMPILED
    assert hasattr(kernels.step_batch, "py_func")


def test_determinism_and_no_global_random_state():
    np.random.seed(123)
    random.seed(123)
    np_state = np.random.get_state()[1].copy()
    py_state = random.getstate()

    def trajectory(global_seed: int) -> list[bytes]:
        np.random.seed(global_seed)  # must not matter
        random.seed(global_seed)
        vec = VectorGame(RulesConfig(max_turns_per_round=10), 4, num_players=SEATS)
        out = [vec.reset(seed=9).tokens.tobytes()]
        rng = np.random.default_rng(2)
        for _ in range(300):
            result = vec.step(vec.sample_actions(rng))
            out += [a.tobytes() for a in result[:5]]
        return out

    first = trajectory(1)
    assert first == trajectory(2)
    np.random.seed(123)
    random.seed(123)
    VectorGame(RulesConfig(), 3).reset(seed=1)
    assert (np.random.get_state()[1] == np_state).all()
    assert random.getstate() == py_state
    vec = VectorGame(RulesConfig(max_turns_per_round=10), 4, num_players=SEATS)
    assert vec.reset(seed=10).tokens.tobytes() != first[0]


# ---------------------------------------------------------------------- invalid input
def snapshot(vec: VectorGame) -> tuple[bytes, ...]:
    return tuple(a.tobytes() for a in (vec._st, vec._stk, vec._legal, vec._seeds, vec._episodes))


def test_illegal_action_names_game_action_and_legal_ones_and_changes_nothing():
    vec = VectorGame(RulesConfig(), 4)
    vec.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(10):
        vec.step(vec.sample_actions(rng))
    actions = vec.sample_actions(rng)
    legal = np.flatnonzero(vec.legal_mask()[2])
    bad = next(a for a in range(A.NUM_ACTIONS) if a not in legal)
    actions[2] = bad
    before = snapshot(vec)
    with pytest.raises(ValueError, match=rf"illegal action {bad} .* for game 2 .*legal actions: "):
        vec.step(actions)
    assert snapshot(vec) == before
    with pytest.raises(ValueError) as err:
        vec.step(actions)
    assert all(f"{a} ({A.ACTION_NAMES[a]})" in str(err.value) for a in legal)
    actions[2] = legal[0]
    twin = VectorGame(RulesConfig(), 4)
    twin.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(10):
        twin.step(twin.sample_actions(rng))
    np.testing.assert_array_equal(vec.step(actions).tokens, twin.step(actions).tokens)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(3, dtype=np.int64), r"shape \(4,\)"),
        (np.zeros((4, 1), dtype=np.int64), r"shape \(4,\)"),
        (np.zeros(4, dtype=np.float64), "integer array"),
        (np.zeros(4, dtype=bool), "integer array"),
        (np.array([23, 23, 33, 23]), "action 33 for game 2 is out of range"),
        (np.array([23, -1, 23, 23]), "action -1 for game 1 is out of range"),
        ("abcd", "integer array"),
    ],
)
def test_malformed_actions_raise_value_error(actions, message):
    vec = VectorGame(RulesConfig(), 4)
    vec.reset(seed=0)
    before = snapshot(vec)
    with pytest.raises(ValueError, match=message):
        vec.step(actions)
    assert snapshot(vec) == before


def test_step_before_reset_is_refused():
    vec = VectorGame(RulesConfig(), 2)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros(2, dtype=np.int64))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 2}, "num_players=2"),
        ({"num_players": 8}, "num_players=8"),
        ({"num_players": [3, 9]}, r"num_players=\[3, 9\] is not allowed"),
        ({"num_players": []}, "empty"),
        ({"num_players": "5"}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": 4.0}, "num_players"),
        ({"players_per_slot": [3, 4]}, "players_per_slot has 2 entries"),
        ({"players_per_slot": [3, 4, 2]}, "players_per_slot=2"),
        ({"batch_size": 0}, "batch_size=0"),
        ({"batch_size": 2.5}, "batch_size"),
        ({"reward_mode": "points"}, "reward_mode"),
        ({"config": "rules"}, "config must be a RulesConfig"),
    ],
)
def test_bad_construction_raises_value_error(kwargs, message):
    args = {"config": RulesConfig(), "batch_size": 3, **kwargs}
    with pytest.raises(ValueError, match=message):
        VectorGame(args.pop("config"), args.pop("batch_size"), **args)


def test_deck_too_small_for_a_seat_count_is_refused():
    config = RulesConfig(num_players=3, deck={"1": 20, "2": 10})
    VectorGame(config, 2)
    with pytest.raises(ValueError, match="too small for 4 players"):
        VectorGame(config, 2, num_players=[3, 4])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": -1}, "seed=-1"),
        ({"seed": 1.5}, "seed=1.5"),
        ({"seeds": [1, 2]}, "seeds has 2 entries"),
        ({"seeds": [1, -2, 3]}, "seeds"),
        ({"seeds": 5}, "seeds must be a sequence"),
        ({"seed": 1, "seeds": [1, 2, 3]}, "either seed or seeds"),
    ],
)
def test_bad_seeds_raise_value_error(kwargs, message):
    vec = VectorGame(RulesConfig(), 3)
    with pytest.raises(ValueError, match=message):
        vec.reset(**kwargs)


def test_expand_rejects_wrong_token_shapes():
    vec = VectorGame(RulesConfig(), 2)
    vec.reset(seed=0)
    with pytest.raises(ValueError, match="tokens must have shape"):
        vec.expand(np.zeros((2, 5), dtype=np.int16))


def test_state_dict_restores_games_in_progress_exactly():
    """A VectorGame rebuilt from state_dict() continues exactly as the original (resume)."""
    kwargs = {"batch_size": 24, "num_players": [3, 5, 7], "reward_mode": "score"}
    vec = VectorGame(RulesConfig(), **kwargs)
    vec.reset(seed=21)
    rng = np.random.default_rng(21)
    for _ in range(450):  # long enough that some slots are in their second game
        vec.step(vec.sample_actions(rng))
    state = vec.state_dict()
    copy = VectorGame(RulesConfig(), **kwargs)
    tokens, mask, seat = copy.load_state_dict(state)
    assert np.array_equal(tokens, vec._tokens)
    assert np.array_equal(mask, vec.legal_mask()) and np.array_equal(seat, vec._seats)
    assert np.array_equal(copy.episodes, vec.episodes) and copy.episodes.max() >= 1
    for _ in range(300):
        actions = vec.sample_actions(rng)
        a, b = vec.step(actions), copy.step(actions)
        for x, y in zip(a[:5], b[:5], strict=True):
            assert np.array_equal(x, y)
        for key in a.info:
            assert np.array_equal(a.info[key], b.info[key]), key


def test_load_state_dict_refuses_a_state_of_other_games():
    vec = VectorGame(RulesConfig(), batch_size=4, num_players=[3, 4])
    vec.reset(seed=1)
    state = vec.state_dict()
    other = VectorGame(RulesConfig(), batch_size=4, num_players=[3, 5])
    with pytest.raises(ValueError, match="build it with the same arguments"):
        other.load_state_dict(state)
    bad = {**state, "st": state["st"][:, :-1]}
    same = VectorGame(RulesConfig(), batch_size=4, num_players=[3, 4])
    with pytest.raises(ValueError, match="'st' has the wrong shape"):
        same.load_state_dict(bad)
    with pytest.raises(ValueError, match="not a VectorGame state"):
        same.load_state_dict({"st": 1})
    with pytest.raises(RuntimeError, match="call reset"):
        same.state_dict()


# ---------------------------------------------------------------------- KernelGame's test hook
GAME_FIELDS = (
    "num_players", "round", "first_player", "reshuffles", "hazards_removed", "held",
    "held_source", "held_was_face_down", "filled", "turns_played", "first_out",
    "endgame_turns_left", "phase", "current_seat", "turn_player", "flip_queue", "layouts",
    "face_up", "down_count", "draw_pile", "piles", "totals", "_turn_cap",
)  # fmt: skip


def kernel_fields(kgame) -> dict:
    return kernel_state(kgame._g, kgame._cards, kgame._vec._kcode)


def test_kernel_game_stacked_decks_deal_as_game_does():
    """KernelGame.reset(seed, stacked_decks=...) (the test hook) deals the stacked rounds
    from the given orders and the others from the seed, exactly as Game; a pickled copy
    keeps the hook for the rounds still to come."""
    import pickle

    config = RulesConfig.from_dict({"deck": SMALL_DECK, "num_players": 4, "rounds": 3})
    stacked = {
        0: stack_deck(config, layouts=["1 2 3 / 4 5 5 / 5 5 5"], top=["H", "M", "2"]),
        2: stack_deck(config, layouts=[None, "M M 1 / 2 3 4 / -1 5 5"], rest_seed=7),
    }
    game = Game(config, 3, stacked_decks=stacked)
    kgame = KernelGame(config)
    kgame.reset(3, stacked_decks=stacked)
    rng = random.Random(3)
    rounds_seen = set()
    while not game.game_over:
        fields = kernel_fields(kgame)
        assert fields == {name: getattr(game, name) for name in GAME_FIELDS}
        assert kgame.mask.astype(bool).tolist() == game.legal_mask().tolist()
        if game.round not in rounds_seen:  # each round's deal, before any decision
            rounds_seen.add(game.round)
            if game.round in stacked:
                deck = [parse_card(t) for t in stacked[game.round]]
                assert fields["layouts"] == [deck[9 * p : 9 * p + 9] for p in range(4)]
            if game.round == 1:  # from here on, a pickled copy plays for the original
                kgame = pickle.loads(pickle.dumps(kgame))
        action = rng.choice(game.legal_actions())
        game.step(action)
        kgame.step(action)
    assert rounds_seen == {0, 1, 2}
    assert kernel_fields(kgame)["totals"] == game.totals


@pytest.mark.parametrize(
    "stacked",
    [
        {3: None},  # round out of range (rounds=3)
        {"0": None},  # not an int
        {0: ["1"] * 110},  # not a permutation of the deck
        {0: None, 1: []},  # round 1 is not a deck
    ],
)
def test_kernel_game_stacked_decks_validated_as_game_does(stacked):
    config = RulesConfig(num_players=3)
    deck = stack_deck(config)
    stacked = {r: deck if d is None else d for r, d in stacked.items()}
    with pytest.raises(ValueError) as expected:
        Game(config, 0, stacked_decks=stacked)
    kgame = KernelGame(config)
    kgame.reset(5)
    before = (kgame._g.tobytes(), kgame._cards.tobytes(), kgame.mask.tobytes(), kgame.seed)
    with pytest.raises(ValueError) as got:
        kgame.reset(0, stacked_decks=stacked)
    assert str(got.value) == str(expected.value)
    assert (kgame._g.tobytes(), kgame._cards.tobytes(), kgame.mask.tobytes(), kgame.seed) == before
