"""The compiled Nerts engine (gnome_env/nerts/_kernels.py, vector.py) against the Python one.

The differential runs step :class:`NertsVectorEngine` and, beside every slot, the Parallel
env ``nerts_v0`` on the pure-Python engine (``use_kernels = False``), with the same actions,
and compare after every step: the whole state (``NertsGame.state_tuple``, the last step's
result and the hand results, through :meth:`NertsVectorEngine.game`), every seat's mask and
observation, the rewards, the ends of episodes and every info. Play is uniformly random or
*collision-seeking* (seats prefer foundation plays onto slots another seat can also play,
so that N20/N21 ties are frequent), over 2-6 seats mixed in one batch and the rule
variants. The runs here take a few seconds; the ``slow`` soak plays over a million
seat-steps each with numba and without (``GNOME_NO_NUMBA=1`` in a child interpreter).
The nerts_v0 compiled path against the Python path is tested the same way below.
"""

from __future__ import annotations

import hashlib
import os
import random
import time

import numpy as np
import pytest

from gnome_env.core import rng
from gnome_env.nerts import NertsConfig, NertsGame, check_invariants
from gnome_env.nerts import _kernels as K
from gnome_env.nerts import nerts_v0 as nv
from gnome_env.nerts.encoding import NertsEncoder
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.testing import build_game, stack_deck, step_with_priority
from gnome_env.nerts.vector import KernelNertsGame, KernelParams, NertsVectorEngine, read_game

#: rule variants the differential runs cover (with 2-6 seats mixed in each batch)
VARIANTS = {
    "default": {},
    "jokers1": {"jokers": 1, "nerts_size": 6},
    "jokers2_both_keep": {"jokers": 2, "foundation_tie": "both_keep", "nerts_size": 5},
    "both_keep": {"foundation_tie": "both_keep", "nerts_size": 4},
    "auto_call": {"auto_call": True, "nerts_size": 3},
    "turn1": {"turn_size": 1, "nerts_size": 5},
    "no_slide_w3": {"slide_under": False, "work_piles": 3, "nerts_size": 4},
    "stuck": {"stall_steps": 2, "max_steps_per_hand": 70, "nerts_size": 6, "turn_size": 2},
    "w5": {"work_piles": 5, "nerts_size": 2, "jokers": 1},
}
SEATS = [2, 3, 4, 5, 6]


# ---------------------------------------------------------------------- policies
def random_actions(vec: NertsVectorEngine, gen: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per seat (absent seats: a stray id, ignored)."""
    out = vec.sample_actions(gen)
    out[vec.legal_counts == 0] = 7  # absent seats' entries are ignored by the engine
    return out


def collision_actions(vec: NertsVectorEngine, gen: np.random.Generator) -> np.ndarray:
    """Seats prefer foundation plays onto slots another seat can play too (N20/N21 ties),
    then any foundation play, then a random legal action."""
    masks = vec.legal_mask()
    table = vec.params.table
    lo, hi, f_count = table.b_slot, table.b_new, table.num_slots
    out = np.zeros((vec.batch_size, 6), dtype=np.int64)
    for b, p in enumerate(vec.num_players.tolist()):
        plays = masks[b, :p, lo:hi].reshape(p, -1, f_count).any(axis=1)  # [seat, slot]
        shared = plays.sum(axis=0) >= 2
        for s in range(p):
            legal = np.flatnonzero(masks[b, s])
            slot_ids = legal[(legal >= lo) & (legal < hi)]
            contested = slot_ids[shared[(slot_ids - lo) % f_count]]
            found = legal[(legal >= lo) & (legal < table.b_work)]
            r = gen.random()
            if contested.size and r < 0.9:
                out[b, s] = contested[gen.integers(contested.size)]
            elif found.size and r < 0.6:
                out[b, s] = found[gen.integers(found.size)]
            else:
                out[b, s] = legal[gen.integers(legal.size)]
    return out


POLICIES = {"random": random_actions, "collision": collision_actions}


# ---------------------------------------------------------------------- the differential
class Reference:
    """``nerts_v0`` on the Python engine for one slot: reset to that slot's game seed."""

    def __init__(self, rules: dict, reward_mode: str, episode: str) -> None:
        self.rules, self.reward_mode, self.episode = rules, reward_mode, episode
        self.envs: dict[int, nv.NertsParallelEnv] = {}

    def reset(self, players: int, seed: int) -> tuple[nv.NertsParallelEnv, dict, dict]:
        env = nv.parallel_env(
            num_players=players, reward_mode=self.reward_mode, episode=self.episode, **self.rules
        )
        env.use_kernels = False
        obs, infos = env.reset(seed=seed)
        return env, obs, infos


def compare_position(vec, b, env, obs, seats) -> None:
    """Slot ``b`` of ``vec`` against the reference env: state, last step, hand results,
    masks and every seat's observation (``seats``: the engine's, ``obs``: the env's; not
    compared when ``seats`` is None)."""
    game, ref = vec.game(b), env.game
    assert game.state_tuple() == ref.state_tuple(), f"slot {b}: state differs"
    assert game.last_result == ref.last_result, f"slot {b}: last step differs"
    assert game.hand_results == ref.hand_results
    assert game.game_over == ref.game_over
    if ref.game_over:
        assert game.winners() == ref.winners()
    p = ref.num_players
    masks = vec._masks[b]
    np.testing.assert_array_equal(masks[:p], ref.legal_masks())
    assert not masks[p:].any()
    if seats is not None:
        for i, agent in enumerate(env.possible_agents):
            np.testing.assert_array_equal(seats[i], obs[agent]["observation"])
            np.testing.assert_array_equal(masks[i], obs[agent]["action_mask"])
        assert not seats[p:].any()


INFO_GAME = ("hand", "step", "hand_over", "end_reason", "remedy", "game_over")
INFO_SEAT = {
    "hand_score": "hand_scores",
    "total": "totals",
    "blocked": "blocked",
    "priority": "priority",
    "progress": "progress",
    "won": "won",
}


def compare_step(res, b, env_out, players) -> bool:
    """One slot's rewards, episode end and infos against the reference env's step."""
    _, rew, terms, truncs, infos = env_out
    agents = [f"player_{i}" for i in range(players)]
    want = np.array([rew[a] for a in agents], dtype=np.float32)
    np.testing.assert_array_equal(res.rewards[b, :players], want)
    assert not res.rewards[b, players:].any()
    done = terms[agents[0]] or truncs[agents[0]]
    assert bool(res.dones[b]) == done
    assert bool(res.info["truncated"][b]) == truncs[agents[0]]
    assert bool(res.info["terminated"][b]) == terms[agents[0]]
    for i, a in enumerate(agents):
        info = infos[a]
        for key in INFO_GAME:
            assert res.info[key][b] == info[key], (key, b)
        for key, column in INFO_SEAT.items():
            assert res.info[column][b, i] == info[key], (key, b, i)
        np.testing.assert_array_equal(res.info["hand_scores"][b, :players], info["hand_scores"])
        np.testing.assert_array_equal(res.info["totals"][b, :players], info["totals"])
    return done


def play_differential(
    rules: dict,
    *,
    seed: int,
    batch: int,
    steps: int,
    policy: str = "random",
    episode: str = "hand",
    reward_mode: str = "relative",
    check_obs: bool = True,
) -> tuple[int, str]:
    """Run the vector engine and the reference side by side; returns ``(seat-steps
    checked, digest of the vector engine's outputs)``. Raises on the first difference."""
    cfg = NertsConfig(**rules)
    vec = NertsVectorEngine(cfg, batch, num_players=SEATS, reward_mode=reward_mode, episode=episode)
    obs, _ = vec.reset(seed=seed)
    ref = Reference(rules, reward_mode, episode)
    envs, ref_obs = [], []
    for b in range(batch):
        env, o, _ = ref.reset(int(vec.num_players[b]), int(vec.game_seeds[b]))
        envs.append(env)
        ref_obs.append(o)
        compare_position(vec, b, env, o, obs[b])
    gen = np.random.default_rng(seed)
    choose = POLICIES[policy]
    digest = hashlib.sha256()
    seat_steps = 0
    for _ in range(steps):
        actions = choose(vec, gen)
        players = vec.num_players.tolist()
        res = vec.step(actions)
        for array in res[:4]:
            digest.update(array.tobytes())
        for b in range(batch):
            p = players[b]
            env = envs[b]
            out = env.step({f"player_{i}": int(actions[b, i]) for i in range(p)})
            seat_steps += p
            if compare_step(res, b, out, p):
                envs[b], o, _ = ref.reset(int(vec.num_players[b]), int(vec.game_seeds[b]))
            else:
                o = out[0]
            compare_position(vec, b, envs[b], o, res.obs[b] if check_obs else None)
    return seat_steps, digest.hexdigest()


# ---------------------------------------------------------------------- CI-sized runs
@pytest.mark.parametrize("name", list(VARIANTS))
@pytest.mark.parametrize("policy", list(POLICIES))
def test_n18_n33_vector_engine_equals_the_python_engine_every_step(name, policy):
    """N18-N33: state, masks, observations, rewards and infos equal after every step."""
    seat_steps, _ = play_differential(VARIANTS[name], seed=11, batch=6, steps=60, policy=policy)
    assert seat_steps >= 6 * 60 * 2


@pytest.mark.parametrize("reward_mode", nv.REWARDS)
def test_n31_game_episodes_and_reward_modes_equal_the_env(reward_mode):
    """N29-N31 with episode="game": hands back to back, game ends, winners, each reward."""
    rules = {"nerts_size": 3, "target_score": 12, "max_hands": 3, "stall_steps": 4}
    rules["max_steps_per_hand"] = 90
    play_differential(
        rules, seed=3, batch=5, steps=150, episode="game", reward_mode=reward_mode,
        policy="collision",
    )  # fmt: skip


def test_n20_collision_play_makes_ties_and_both_endings_happen():
    """The collision-seeking play really produces blocked plays (N21) and the runs reach
    calls, blocked hands and caps (N22, N27, N28) -- otherwise the differential would not
    test them."""
    cfg = NertsConfig(nerts_size=3, stall_steps=4, max_steps_per_hand=30)
    vec = NertsVectorEngine(cfg, 16, num_players=SEATS)
    vec.reset(seed=2)
    gen = np.random.default_rng(2)
    blocked, reasons, remedies = 0, set(), 0
    for _ in range(150):
        res = vec.step(collision_actions(vec, gen))
        blocked += int(res.info["blocked"].sum())
        reasons |= set(res.info["end_reason"][res.info["hand_over"] != 0].tolist())
        remedies += int(res.info["remedy"].sum())
    assert blocked > 20
    assert reasons == {K.END_NERTS, K.END_BLOCKED, K.END_CAP}
    assert remedies > 0


# ---------------------------------------------------------------------- without numba
def uncompiled_differential() -> str:
    """A small differential (random and collision play) and a trajectory digest; the
    child interpreter of the test below runs it with GNOME_NO_NUMBA=1."""
    total = 0
    digests = []
    for name, policy in (("jokers2_both_keep", "collision"), ("stuck", "random")):
        n, d = play_differential(VARIANTS[name], seed=5, batch=3, steps=25, policy=policy)
        total += n
        digests.append(d)
    return f"{total} " + " ".join(digests) + f" {K.COMPILED}"


def test_plain_python_kernels_equal_the_engine_and_the_compiled_ones(run_uncompiled):
    """GNOME_NO_NUMBA=1: the kernels run as plain Python, equal to the engine at every
    step, and with the very outputs of the compiled run."""
    child = run_uncompiled("test_nerts_vector", "uncompiled_differential()").split()
    assert child[-1] == "False"
    here = uncompiled_differential().split()
    assert child[:-1] == here[:-1]
    assert int(child[0]) > 200


# ---------------------------------------------------------------------- soak (not in CI)
def soak(policy: str, seat_steps: int, seed: int) -> str:
    """Differential runs over every variant until ``seat_steps`` seat-steps are checked;
    returns ``"<seat-steps> <seconds>"``."""
    start = time.perf_counter()
    done, k = 0, 0
    names = list(VARIANTS)
    while done < seat_steps:
        name = names[k % len(names)]
        episode = "game" if k % 3 == 2 else "hand"
        mode = nv.REWARDS[k % 3]
        n, _ = play_differential(
            VARIANTS[name], seed=seed + k, batch=16, steps=400, policy=policy,
            episode=episode, reward_mode=mode,
        )  # fmt: skip
        done += n
        k += 1
    return f"{done} {time.perf_counter() - start:.0f}"


@pytest.mark.slow
def test_soak_million_seat_steps_compiled():
    """Over 1M seat-steps (random and collision play) with the compiled kernels."""
    for policy in POLICIES:
        out = soak(policy, 500_000, 100)
        print(f"compiled, {policy} play: {out.replace(' ', ' seat-steps in ')} s")
        assert int(out.split()[0]) >= 500_000


@pytest.mark.slow
def test_soak_million_seat_steps_uncompiled(run_uncompiled):
    """Over 1M seat-steps with the kernels as plain Python (GNOME_NO_NUMBA=1)."""
    for policy in POLICIES:
        out = run_uncompiled("test_nerts_vector", f"soak({policy!r}, 500_000, 200)")
        print(f"uncompiled, {policy} play: {out.replace(' ', ' seat-steps in ')} s")
        assert int(out.split()[0]) >= 500_000


# ---------------------------------------------------------------------- the batch API
def snapshot(vec: NertsVectorEngine) -> tuple[bytes, ...]:
    arrays = (vec._st, vec._masks, vec._counts, vec._seeds, vec._episodes)
    return tuple(a.tobytes() for a in arrays)


def test_n18_illegal_action_names_game_and_seat_and_changes_nothing():
    vec = NertsVectorEngine(NertsConfig(), 4, num_players=[2, 5])
    vec.reset(seed=0)
    gen = np.random.default_rng(0)
    for _ in range(5):
        vec.step(vec.sample_actions(gen))
    before = snapshot(vec)
    acts = vec.sample_actions(gen)
    seat = int(vec.num_players[2]) - 1
    illegal = int(np.flatnonzero(vec.legal_mask()[2, seat] == 0)[0])
    acts[2, seat] = illegal
    with pytest.raises(ValueError, match=rf"game 2, seat {seat}: action {illegal} \(.+\) is not"):
        vec.step(acts)
    assert snapshot(vec) == before
    acts[2, seat] = vec.n_actions
    with pytest.raises(ValueError, match=r"game 2, seat .*outside the action table"):
        vec.step(acts)
    with pytest.raises(ValueError, match="shape"):
        vec.step(acts[:, :4])
    with pytest.raises(ValueError, match="integer"):
        vec.step(acts.astype(float))
    assert snapshot(vec) == before


def test_absent_seats_entries_are_ignored():
    vec = NertsVectorEngine(NertsConfig(), 3, players_per_slot=[2, 3, 6])
    vec.reset(seed=4)
    gen = np.random.default_rng(4)
    acts = vec.sample_actions(gen)
    other = NertsVectorEngine(NertsConfig(), 3, players_per_slot=[2, 3, 6])
    other.reset(seed=4)
    stray = acts.copy()
    stray[0, 2:] = 99999
    stray[1, 3:] = -5
    a, b = vec.step(acts), other.step(stray)
    assert snapshot(vec) == snapshot(other)
    np.testing.assert_array_equal(a.obs, b.obs)


def test_bad_arguments_raise_value_errors_naming_them():
    for kwargs, name in [
        ({"batch_size": 0}, "batch_size"),
        ({"num_players": 7}, "num_players"),
        ({"num_players": []}, "num_players"),
        ({"players_per_slot": [2, 3]}, "players_per_slot"),
        ({"reward_mode": "win"}, "reward_mode"),
        ({"episode": "round"}, "episode"),
        ({"observations": "float"}, "observations"),
    ]:
        with pytest.raises(ValueError, match=name):
            NertsVectorEngine(NertsConfig(), **{"batch_size": 3, **kwargs})
    vec = NertsVectorEngine(NertsConfig(), 2)
    with pytest.raises(RuntimeError, match="reset"):
        vec.step(np.zeros((2, 6), dtype=np.int64))
    with pytest.raises(ValueError, match="seed"):
        vec.reset(seed=-1)
    with pytest.raises(ValueError, match="seeds"):
        vec.reset(seeds=[1])


def trajectory(vec: NertsVectorEngine, seed: int, steps: int) -> list[bytes]:
    obs, masks = vec.reset(seed=seed)
    out = [obs.tobytes(), masks.tobytes()]
    gen = np.random.default_rng(seed)
    for _ in range(steps):
        res = vec.step(vec.sample_actions(gen))
        out += [a.tobytes() for a in res[:4]]
        out += [res.info[k].tobytes() for k in sorted(res.info)]
    return out


def test_determinism_same_seeds_same_arrays_and_no_global_random_state():
    np.random.seed(1)
    random.seed(1)
    np_state = np.random.get_state()[1].copy()
    py_state = random.getstate()
    cfg = NertsConfig(max_steps_per_hand=30)
    first = trajectory(NertsVectorEngine(cfg, 5, num_players=SEATS), 9, 80)
    np.random.seed(2)
    random.seed(2)  # must not matter
    assert trajectory(NertsVectorEngine(cfg, 5, num_players=SEATS), 9, 80) == first
    assert trajectory(NertsVectorEngine(cfg, 5, num_players=SEATS), 10, 80) != first
    np.random.seed(1)
    random.seed(1)
    trajectory(NertsVectorEngine(cfg, 2), 0, 5)
    assert (np.random.get_state()[1] == np_state).all()
    assert random.getstate() == py_state


def test_auto_reset_follows_the_seed_stream_and_deals_the_next_game():
    """A finished slot starts game e + 1 of its key: ``rng.game_stream(key, slot, e, n)``
    gives its seed and seat count, and its first observation is the env's after reset."""
    cfg = NertsConfig(max_steps_per_hand=12)
    vec = NertsVectorEngine(cfg, 3, num_players=[2, 4, 6])
    vec.reset(seed=21)
    for slot in range(3):
        seed, choice = rng.game_stream(21, slot, 0, 3)
        assert vec.game_seeds[slot] == seed and vec.num_players[slot] == (2, 4, 6)[choice]
    gen = np.random.default_rng(0)
    for _ in range(11):
        res = vec.step(vec.sample_actions(gen))
        assert not res.dones.any()
    res = vec.step(vec.sample_actions(gen))  # the cap ends every hand (N28)
    assert res.dones.all() and res.info["truncated"].all()
    assert (res.info["end_reason"] == K.END_CAP).all()
    assert vec.episodes.tolist() == [1, 1, 1]
    for slot in range(3):
        seed, choice = rng.game_stream(21, slot, 1, 3)
        assert vec.game_seeds[slot] == seed and vec.num_players[slot] == (2, 4, 6)[choice]
        assert res.info["game_seed"][slot] == rng.game_stream(21, slot, 0, 3)[0]
        p = int(vec.num_players[slot])
        env = nv.parallel_env(num_players=p, max_steps_per_hand=12)
        env.use_kernels = False
        obs, _ = env.reset(seed=int(seed))
        for i in range(p):
            np.testing.assert_array_equal(res.obs[slot, i], obs[f"player_{i}"]["observation"])
        assert vec.game(slot).digest() == NertsGame(cfg.replace(num_players=p), seed).digest()


def test_reset_with_seeds_plays_those_games():
    cfg = NertsConfig()
    vec = NertsVectorEngine(cfg, 2, players_per_slot=[3, 5])
    vec.reset(seeds=[77, 78])
    assert vec.game(0).digest() == NertsGame(cfg.replace(num_players=3), 77).digest()
    assert vec.game(1).digest() == NertsGame(cfg.replace(num_players=5), 78).digest()


def test_table_observations_expand_to_every_seats_observation():
    cfg = NertsConfig(jokers=1)
    seats = NertsVectorEngine(cfg, 6, num_players=SEATS)
    table = NertsVectorEngine(cfg, 6, num_players=SEATS, observations="table")
    none = NertsVectorEngine(cfg, 6, num_players=SEATS, observations="none")
    results = [v.reset(seed=8) for v in (seats, table, none)]
    assert results[2][0] is None
    gen = [np.random.default_rng(8) for _ in range(3)]
    for _ in range(40):
        a = seats.sample_actions(gen[0])
        out = [v.step(a) for v in (seats, table, none)]
        assert out[1].obs.shape == (6, seats.observation_size)
        np.testing.assert_array_equal(table.expand(out[1].obs, table.num_players), out[0].obs)
        np.testing.assert_array_equal(none.observations(), out[0].obs)
        np.testing.assert_array_equal(out[1].obs, out[0].obs[:, 0])


# ---------------------------------------------------------------------- converters
def built_positions() -> list[NertsGame]:
    """Positions of the test hook, with jokers, complete slots, a last step and past hands."""
    c2 = NertsConfig(num_players=2, jokers=2)
    out = [
        build_game(
            c2,
            seats={0: {"nerts": "5H JK", "work": ["9S JK", "-", "KD", "4C"]}},
            foundations=["p1:AH..4H", "p1:AS..KS", "p1:AC p1:JK=2C"],
            past_hands=[[3, -4]],
            steps=5,
            stall=2,
            remedy_done=True,
        ),
        build_game(
            NertsConfig(num_players=5, work_piles=5),
            seats={3: {"waste": "KH QS", "stock": "2C", "rest": "nerts"}},
            foundations=["p4:AD..TD"],
            seen=[0, 1, 2, 0, 3],
        ),
    ]
    game = NertsGame(NertsConfig(num_players=3, nerts_size=3), 5)
    gen = np.random.default_rng(5)
    while not game.hand_over:
        game.step([int(gen.choice(game.legal_actions(s))) for s in range(3)])
    out.append(game)  # a finished hand, with its last step
    return out


def test_write_game_then_read_game_is_the_same_game():
    for game in built_positions():
        row = np.zeros(K.ROW, dtype=np.int32)
        from gnome_env.nerts.vector import write_game

        write_game(game, row)
        back = read_game(row, game.config, game.seed, game.hand_results, game.stacked_decks)
        assert back.state_tuple() == game.state_tuple()
        assert back.digest() == game.digest()
        assert back.last_result == game.last_result
        assert set(vars(back)) == set(vars(game))
        check_invariants(back)
        for s in range(game.num_players):
            assert back.legal_actions(s) == game.legal_actions(s)


# ---------------------------------------------------------------------- nerts_v0 compiled
def play_env_pair(kwargs: dict, seed: int, steps: int, install=None) -> int:
    """``nerts_v0`` on the compiled path against the Python path: the same observations,
    rewards, ends, infos, states (digests) and ``state()`` at every step."""
    envs = [nv.parallel_env(**kwargs) for _ in range(2)]
    envs[0].use_kernels = True  # also without numba: the kernels as plain Python
    envs[1].use_kernels = False
    outs = [e.reset(seed=seed) for e in envs]
    if install is not None:
        for e in envs:
            e.game = install()
        outs = [(e.observations(), None) for e in envs]
    gen = np.random.default_rng(seed)
    count = 0
    while envs[0].agents and count < steps:
        assert envs[0]._on_kernel and not envs[1]._on_kernel
        assert envs[0].game.digest() == envs[1].game.digest()
        assert envs[0].game.last_result == envs[1].game.last_result
        np.testing.assert_array_equal(envs[0].state(), envs[1].state())
        obs = outs[0][0]
        for agent in envs[1].agents:
            for key in ("observation", "action_mask"):
                np.testing.assert_array_equal(obs[agent][key], outs[1][0][agent][key])
        acts = {}
        for agent in envs[0].agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            acts[agent] = int(legal[gen.integers(legal.size)])
        outs = [e.step(acts) for e in envs]
        for a, b in zip(outs[0][1:], outs[1][1:], strict=True):
            assert a.keys() == b.keys()
            for agent in a:
                if isinstance(a[agent], dict):
                    assert a[agent].keys() == b[agent].keys()
                    for key, value in a[agent].items():
                        assert type(value) is type(b[agent][key]), key
                        np.testing.assert_array_equal(value, b[agent][key])
                else:
                    assert type(a[agent]) is type(b[agent]) and a[agent] == b[agent]
        count += 1
    assert envs[0].agents == envs[1].agents
    assert envs[0].game.digest() == envs[1].game.digest()
    return count


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 2},
        {"num_players": 4, "jokers": 2, "foundation_tie": "both_keep", "nerts_size": 4},
        {"num_players": 6, "stall_steps": 2, "max_steps_per_hand": 80, "reward_mode": "score"},
        {"num_players": 3, "auto_call": True, "nerts_size": 5, "reward_mode": "sparse"},
        {
            "num_players": 3,
            "episode": "game",
            "nerts_size": 3,
            "target_score": 15,
            "max_hands": 4,
            "max_steps_per_hand": 60,
        },
    ],
)
def test_nerts_v0_compiled_path_equals_the_python_path(kwargs):
    assert play_env_pair(kwargs, seed=7, steps=400) > 10


def test_nerts_v0_compiled_path_plays_installed_positions_and_stacked_decks():
    """``env.game = ...`` on the compiled path: a built position (N20 tie in its first
    step) and, with episode="game", a game whose next hand is stacked (the test hook)."""
    config = NertsConfig(num_players=2)
    k = step_with_priority(config, (1, 0))

    def position():
        return build_game(
            config, seats={0: {"nerts": "5H"}, 1: {"waste": "5H"}}, foundations=["p1:AH..4H"],
            steps=k,
        )  # fmt: skip

    env = nv.parallel_env(num_players=2)
    env.use_kernels = True
    env.reset(seed=0)
    env.game = position()
    table = env.game.table
    _, _, _, _, infos = env.step({"player_0": table.to_slot(0, 0), "player_1": table.to_slot(1, 0)})
    assert infos["player_0"]["blocked"] == 1 and infos["player_1"]["blocked"] == 0
    assert play_env_pair({"num_players": 2}, 0, 50, install=position) > 10

    rules = {"num_players": 2, "nerts_size": 1, "target_score": 40, "max_hands": 3}
    stacked = NertsConfig(**rules)
    deck = stack_deck(stacked, nerts="AS", work=["2S", "3S", "4S", "5S"])

    def stacked_game():
        return NertsGame(stacked, 3, stacked_decks={1: {0: deck}})

    assert play_env_pair({**rules, "episode": "game"}, 3, 3000, install=stacked_game) > 10
    env = nv.parallel_env(**rules, episode="game")
    env.use_kernels = True
    env.reset(seed=3)
    env.game = stacked_game()
    while env.game.hand == 0:
        env.step({a: 0 for a in env.agents})
    assert env.game.nerts[0] == [39]  # AS is card 39 (N2)
    assert [p[0] for p in env.game.work[0]] == [40, 41, 42, 43]


def test_nerts_v0_compiled_observations_equal_the_encoder_and_no_leak():
    """N34/N35 on the compiled path: observations are NertsEncoder's of each seat's view,
    and unchanged when the hidden cards are permuted (the full state changes)."""
    from gnome_env.nerts.testing import permute_hidden

    env = nv.parallel_env(num_players=4, jokers=1)
    env.use_kernels = True
    obs, _ = env.reset(seed=12)
    gen = np.random.default_rng(12)
    for _ in range(50):
        acts = {}
        for a in env.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            acts[a] = int(legal[gen.integers(legal.size)])
        obs, *_ = env.step(acts)
    enc = NertsEncoder(env.config)
    game = env.game
    for s, agent in enumerate(env.possible_agents):
        want = enc.encode(NertsView.from_game(game, s))
        np.testing.assert_array_equal(obs[agent]["observation"], want)
    state = env.state()
    env.game = permute_hidden(game, gen)
    again = env.observations()
    for agent in env.possible_agents:
        np.testing.assert_array_equal(again[agent]["observation"], obs[agent]["observation"])
    assert not np.array_equal(state, env.state())


def test_nerts_v0_compiled_env_pickles_and_copies_mid_episode():
    import copy
    import pickle

    env = nv.parallel_env(num_players=3, episode="game", nerts_size=3, target_score=20)
    env.use_kernels = True
    obs, _ = env.reset(seed=2)
    gen = np.random.default_rng(2)

    def actions(obs):
        return {
            a: int(np.flatnonzero(obs[a]["action_mask"])[gen.integers(1000) % 2])
            for a in env.agents
        }

    for _ in range(30):
        obs, *_ = env.step(actions(obs))
    clones = [pickle.loads(pickle.dumps(env)), copy.deepcopy(env)]
    for _ in range(200):
        if not env.agents:
            break
        acts = actions(obs)
        outs = [e.step(acts) for e in (env, *clones)]
        for other in outs[1:]:
            assert other[1] == outs[0][1] and other[2] == outs[0][2]
            for a in outs[0][0]:
                np.testing.assert_array_equal(
                    other[0][a]["observation"], outs[0][0][a]["observation"]
                )
        obs = outs[0][0]
    assert env.game.digest() == clones[0].game.digest() == clones[1].game.digest()


def test_kernel_game_needs_a_fitting_position():
    params = KernelParams(NertsConfig(num_players=2), "relative", "hand")
    kernel = KernelNertsGame(params)
    kernel.reset(1)
    before = kernel.row.copy()
    game = NertsGame(NertsConfig(num_players=2), 3)
    game.nerts_face_up[0][0] = True  # a face-down card shown: not a position of the rules
    with pytest.raises(ValueError, match="N13"):
        kernel.load(game)
    np.testing.assert_array_equal(kernel.row, before)
    with pytest.raises(ValueError, match="config"):
        kernel.load(NertsGame(NertsConfig(num_players=3), 3))


def test_numba_compiles_the_kernels_when_installed():
    pytest.importorskip("numba")
    if os.environ.get("GNOME_NO_NUMBA", "") not in ("", "0"):
        pytest.skip("GNOME_NO_NUMBA is set")
    assert K.COMPILED and hasattr(K.step_batch, "py_func")
    assert nv.parallel_env().use_kernels


def test_load_slot_puts_a_game_in_a_slot_and_play_continues_as_on_the_engine():
    """load_slot (a trainer's resume): a game played 25 steps on the Python engine, loaded
    into slot 1 of a batch, is that slot's game (same digest), its masks are the game's, and
    stepping the batch further matches stepping the game; the other slot is untouched.
    A game of another seat count or rules is refused before anything changes."""
    config = NertsConfig(max_steps_per_hand=400)
    vec = NertsVectorEngine(config, 2, players_per_slot=[3, 3])
    vec.reset(seed=4)
    other = vec.game(0).digest()
    game = NertsGame(config.replace(num_players=3), 99)
    gen = np.random.default_rng(1)
    for _ in range(25):
        game.step([int(gen.choice(game.legal_actions(s))) for s in range(3)])
    vec.load_slot(1, game, episode=5)
    assert vec.game(1).digest() == game.digest() and vec.episodes[1] == 5
    assert vec.game(0).digest() == other
    for _ in range(20):
        masks = vec.legal_mask()
        assert np.array_equal(masks[1, :3], game.legal_masks())
        actions = vec.sample_actions(gen)
        vec.step(actions)
        game.step([int(a) for a in actions[1, :3]])
        if game.hand_over:
            break
        assert vec.game(1).digest() == game.digest()
    before = vec.game(0).digest()
    with pytest.raises(ValueError, match="slot 0 plays 3 seats"):
        vec.load_slot(0, NertsGame(config.replace(num_players=2), 1), episode=0)
    with pytest.raises(ValueError, match="rules differ"):
        vec.load_slot(0, NertsGame(NertsConfig(num_players=3, jokers=1), 1), episode=0)
    assert vec.game(0).digest() == before
