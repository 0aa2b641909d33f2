"""The PettingZoo AEC environment: API conformance, masks, rewards, infos, leaks, checks."""

from __future__ import annotations

import logging
import random

import numpy as np
import pytest
from conftest import aec_snapshot
from pettingzoo.test import api_test, seed_test

from gnome_env.gnoming import actions as A
from gnome_env.gnoming import gnoming_a_round_v1
from gnome_env.gnoming.config import RulesConfig
from gnome_env.gnoming.engine import Phase
from gnome_env.gnoming.infos import ENDED_BY
from gnome_env.gnoming.testing import permute_hidden_cards

SEATS = [3, 4, 5, 6, 7]
MODES = ["win", "score", "raw"]


def random_action(env, rng: random.Random):
    obs, _, term, trunc, _ = env.last()
    if term or trunc:
        return None
    return rng.choice(np.flatnonzero(obs["action_mask"]).tolist())


def play_out(env, seed: int, rng_seed: int = 0):
    """Reset with ``seed`` and play random legal actions to the end; return the reward sums."""
    env.reset(seed=seed)
    rng = random.Random(rng_seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, _, _, _ = env.last()
        totals[agent] += reward
        env.step(random_action(env, rng))
    return totals


# ---------------------------------------------------------------------- PettingZoo's own tests
@pytest.mark.parametrize("num_players", SEATS)
@pytest.mark.parametrize("mode", MODES)
def test_pettingzoo_api_and_seed_tests(num_players, mode):
    api_test(gnoming_a_round_v1.env(num_players=num_players, reward_mode=mode), num_cycles=200)
    seed_test(
        lambda: gnoming_a_round_v1.env(num_players=num_players, reward_mode=mode), num_cycles=200
    )


@pytest.mark.parametrize("mode", MODES)
def test_pettingzoo_api_and_seed_tests_with_a_seat_count_drawn_per_reset(mode):
    seats = [3, 4, 5, 6, 7]
    api_test(gnoming_a_round_v1.env(num_players=seats, reward_mode=mode), num_cycles=200)
    seed_test(lambda: gnoming_a_round_v1.env(num_players=seats, reward_mode=mode), 200)


def test_seat_count_list_draws_every_count_from_the_seed_with_fixed_possible_agents():
    """num_players=[...]: possible_agents and the spaces are those of the largest count;
    every reset draws a count from its seed (so the same seeds give the same counts) and
    only the first n players act, are rewarded and are reported in the infos."""
    env = gnoming_a_round_v1.env(num_players=[3, 5, 7], reward_mode="score")
    assert env.possible_agents == [f"player_{i}" for i in range(7)]
    space = gnoming_a_round_v1.env(num_players=3).observation_space("player_0")
    assert env.observation_space("player_6") == space
    drawn = []
    for seed in range(30):
        env.reset(seed=seed)
        n = env.config.num_players
        drawn.append(n)
        players = [f"player_{i}" for i in range(n)]
        assert env.agents == players and env.num_agents == n
        rng = random.Random(seed)
        acted = set()
        for agent in env.agent_iter():
            acted.add(agent)
            *_, info = env.last()
            assert info["num_players"] == n
            for key in ("round_scores", "layout_scores", "totals", "winners"):
                assert info[key].shape == (7,) and not info[key][n:].any()
            env.step(random_action(env, rng))
        assert acted == set(players)
        assert env.game.num_players == n
    assert set(drawn) == {3, 5, 7}
    again = gnoming_a_round_v1.env(num_players=[3, 5, 7], reward_mode="score")
    for seed, n in enumerate(drawn):
        again.reset(seed=seed)
        assert again.config.num_players == n


def test_seat_count_list_absent_seats_observe_all_zeros_and_read_as_done():
    """A possible agent the game does not have (seat-count mode) observes an all-zero
    observation and mask of the usual structure; rewards, terminations, truncations and
    infos answer for it (0.0, True, True, a blank info) without listing it, so libraries
    that read every possible agent (TorchRL) work, and PettingZoo's key checks still hold."""
    env = gnoming_a_round_v1.env(num_players=[3, 7])
    space = env.observation_space("player_5")
    for seed in range(20):
        env.reset(seed=seed)
        if env.config.num_players == 3:
            break
    assert env.config.num_players == 3
    rng = random.Random(0)
    steps = 0
    while env.agents:
        for absent in ("player_3", "player_6"):
            obs = env.observe(absent)
            assert obs.keys() == {"observation", "action_mask"}
            assert space.contains(obs)
            assert not obs["observation"].any() and not obs["action_mask"].any()
            assert env.rewards[absent] == 0.0
            assert env.terminations[absent] is True and env.truncations[absent] is True
            assert env.infos[absent].keys() == env.infos[env.agent_selection].keys()
            assert env.infos[absent]["round_ended"] == 0 and env.infos[absent]["num_players"] == 3
        assert set(env.rewards) == set(env.terminations) == set(env.infos) == set(env.agents)
        assert "player_3" not in env.infos and len(env.infos) == len(env.agents)
        present = env.observe("player_0")
        assert present["observation"].any()  # a present seat is not zeros
        env.step(random_action(env, rng))
        steps += 1
    assert steps > 50
    with pytest.raises(KeyError):
        env.observe("player_7")  # not a possible agent at all
    with pytest.raises(KeyError):
        env.rewards["player_7"]


@pytest.mark.parametrize("num_players", [3, 7])
def test_pettingzoo_api_test_on_raw_env(num_players):
    api_test(gnoming_a_round_v1.raw_env(num_players=num_players), num_cycles=200)


def test_registered_in_pettingzoo_registry():
    pettingzoo = pytest.importorskip("pettingzoo")
    if not hasattr(pettingzoo, "make"):
        pytest.skip("this PettingZoo has no registry")
    env = pettingzoo.make("aec", "gnome_env/gnoming_a_round_v1", num_players=6)
    assert env.possible_agents == [f"player_{i}" for i in range(6)]


def test_metadata_spaces_and_same_observation_size_for_every_seat_count():
    sizes = set()
    for n in SEATS:
        env = gnoming_a_round_v1.env(num_players=n)
        assert env.metadata["name"] == "gnoming_a_round_v1"
        assert env.metadata["is_parallelizable"] is False
        assert set(env.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
        space = env.observation_space("player_0")
        assert space["action_mask"].shape == (A.NUM_ACTIONS,)
        assert space["action_mask"].dtype == np.int8
        assert space["observation"].dtype == np.float32
        assert env.action_space("player_0").n == A.NUM_ACTIONS
        sizes.add(space["observation"].shape)
        env.reset(seed=0)
        assert env.state().shape == env.state_space.shape
        assert env.state_space.contains(env.state())
    assert sizes == {(1401,)}


# ---------------------------------------------------------------------- masks and actions
@pytest.mark.parametrize("num_players", SEATS)
def test_mask_matches_engine_legal_set_at_every_step(num_players):
    env = gnoming_a_round_v1.raw_env(num_players=num_players, bounce_face_up=True)
    env.reset(seed=num_players)
    rng = random.Random(1)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        game = env.game
        if not (term or trunc):
            seat = int(agent.split("_")[1])
            assert seat == game.current_seat
            assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(game.legal_actions())
            for other in env.agents:
                if other != agent:
                    assert not env.observe(other)["action_mask"].any()
            steps += 1
        env.step(random_action(env, rng))
    assert steps > 100


def test_int_and_numpy_int_actions_give_the_same_game():
    results = []
    for cast in (int, np.int64, np.int32, np.uint8, np.intp):
        env = gnoming_a_round_v1.env(num_players=4)
        env.reset(seed=3)
        rng = random.Random(5)
        for _ in range(300):
            action = random_action(env, rng)
            env.step(None if action is None else cast(action))
            if not env.agents:
                break
        results.append(env.game.digest())
    assert len(set(results)) == 1


def test_raw_env_illegal_action_raises_and_leaves_state_unchanged():
    env = gnoming_a_round_v1.raw_env(num_players=3)
    env.reset(seed=0)
    before = env.game.digest()
    with pytest.raises(ValueError, match=r"illegal action 0 \(draw\) in phase OPENING_FLIP"):
        env.step(A.DRAW)
    assert env.game.digest() == before
    assert env.agent_selection == "player_0"


# ---------------------------------------------------------------------- rewards and infos
@pytest.mark.parametrize("num_players", SEATS)
def test_win_rewards_are_zero_sum_and_pay_the_winners(num_players):
    env = gnoming_a_round_v1.env(num_players=num_players)
    for seed in range(3):
        totals = play_out(env, seed)
        assert sum(totals.values()) == pytest.approx(0.0)
        winners = env.game.winners()
        for seat, agent in enumerate(env.possible_agents):
            if seat in winners:
                assert totals[agent] == pytest.approx(1 / len(winners))
            else:
                assert totals[agent] == pytest.approx(-1 / (num_players - len(winners)))


@pytest.mark.parametrize("num_players", [3, 5, 7])
def test_score_and_raw_rewards_follow_the_round_scores(num_players):
    for mode in ("score", "raw"):
        env = gnoming_a_round_v1.env(num_players=num_players, reward_mode=mode)
        totals = play_out(env, seed=11)
        rounds = env.game.round_results
        for seat, agent in enumerate(env.possible_agents):
            own = sum(r.round_scores[seat] for r in rounds)
            if mode == "raw":
                expected = -own / 10
            else:
                others = sum(
                    sum(r.round_scores[s] for s in range(num_players) if s != seat) for r in rounds
                )
                expected = (others / (num_players - 1) - own) / 10
            assert totals[agent] == pytest.approx(expected)
        if mode == "score":
            assert sum(totals.values()) == pytest.approx(0.0)


def test_round_end_infos_carry_scores_totals_and_winners():
    env = gnoming_a_round_v1.raw_env(num_players=3)
    env.reset(seed=2)
    assert env.last_round is None
    rng = random.Random(0)
    seen_rounds = []
    while env.agents:
        agent = env.agent_selection
        info = env.infos[agent]
        if info["round_ended"] and info["round"] not in seen_rounds:
            seen_rounds.append(info["round"])
            result = env.game.round_results[info["round"]]
            assert info["round_scores"].tolist() == list(result.round_scores)
            assert info["layout_scores"].tolist() == list(result.layout_scores)
            assert info["ended_by"] == ENDED_BY.index(result.ended_by) > 0
            first_out = -1 if result.first_out is None else result.first_out
            assert info["first_out"] == first_out
            assert info["game_over"] == int(info["round"] == 2)
            rich = env.last_round  # the same round with agent names, as infos held before
            assert rich["round"] == info["round"]
            assert rich["round_scores"] == {f"player_{s}": result.round_scores[s] for s in range(3)}
            assert rich["ended_by"] == result.ended_by
        elif not info["round_ended"]:
            assert info["round"] == -1 and info["first_out"] == -1 and info["ended_by"] == 0
            assert not info["round_scores"].any() and not info["winners"].any()
        env.step(random_action(env, rng))
    assert seen_rounds == [0, 1, 2]


def test_game_end_info_gives_winners_as_a_0_1_vector_for_every_agent():
    env = gnoming_a_round_v1.raw_env(num_players=4)
    env.reset(seed=8)
    rng = random.Random(0)
    while not env.game.game_over:
        env.step(random_action(env, rng))
    winners = env.game.winners()
    for agent in env.agents:
        info = env.infos[agent]
        assert info["winners"].tolist() == [int(s in winners) for s in range(4)]
        assert info["winners"].dtype == np.int8
        assert info["totals"].tolist() == list(env.game.totals)
        assert info["game_over"] == 1 and info["round_ended"] == 1
        assert env.terminations[agent] and not env.truncations[agent]
    assert env.last_round["winners"] == [f"player_{s}" for s in winners]
    assert env.last_round["totals"] == {f"player_{s}": t for s, t in enumerate(env.game.totals)}
    # every agent has its own arrays
    a, b = env.infos["player_0"], env.infos["player_1"]
    assert not np.shares_memory(a["totals"], b["totals"])


def test_round_cap_in_last_round_truncates_instead_of_terminating():
    env = gnoming_a_round_v1.env(num_players=3, rounds=1, max_turns_per_round=4)
    env.reset(seed=0)
    rng = random.Random(0)
    while not env.game.game_over:
        env.step(random_action(env, rng))
    assert env.game.round_results[0].ended_by == "turn_cap"
    assert all(env.truncations.values())
    assert not any(env.terminations.values())
    assert sum(env._cumulative_rewards.values()) == pytest.approx(0.0)
    # every agent is then stepped out with None
    for _agent in env.agent_iter():
        _, _, term, trunc, _ = env.last()
        assert trunc and not term
        env.step(None)
    assert env.agents == []


def test_round_cap_in_an_earlier_round_does_not_end_the_episode():
    env = gnoming_a_round_v1.env(num_players=3, rounds=2, max_turns_per_round=4)
    env.reset(seed=0)
    rng = random.Random(0)
    while len(env.game.round_results) == 0:
        env.step(random_action(env, rng))
    assert env.game.round_results[0].ended_by == "turn_cap"
    assert not any(env.truncations.values()) and not any(env.terminations.values())
    assert env.game.phase == Phase.OPENING_FLIP


# ---------------------------------------------------------------------- no hidden-information leak
@pytest.mark.parametrize("num_players", SEATS)
def test_no_information_leak_permuting_unseen_cards(num_players):
    env = gnoming_a_round_v1.raw_env(num_players=num_players)
    env.reset(seed=21)
    rng = random.Random(4)
    checked = 0
    changed_state = 0
    for step in range(400):
        if not env.agents or env.game.game_over:
            break
        if step % 7 == 0:
            game = env.game
            twin = permute_hidden_cards(game, rng)
            for seat in range(num_players):
                obs_a = env.encoder.encode(game, seat)
                obs_b = env.encoder.encode(twin, seat)
                assert np.array_equal(obs_a, obs_b)
            assert twin.legal_actions() == game.legal_actions()
            if not np.array_equal(
                env.state_encoder.encode(game, 0), env.state_encoder.encode(twin, 0)
            ):
                changed_state += 1  # the full state does see the hidden cards
            checked += 1
        env.step(random_action(env, rng))
    assert checked > 20
    assert changed_state > 0


# env() == the standard wrapper stack: tests/core/test_checked_env.py (every game)


# ---------------------------------------------------------------------- arguments and rendering
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 8}, "num_players=8"),
        ({"num_players": 2}, "num_players=2"),
        ({"num_players": []}, "num_players=\\[\\] is not allowed"),
        ({"num_players": [3, 9]}, "num_players=\\[3, 9\\] is not allowed"),
        ({"num_players": "3"}, "num_players='3' is not allowed"),
        ({"reward_mode": "points"}, "reward_mode='points'"),
        ({"render_mode": "rgb"}, "render_mode='rgb' is not allowed.*rgb_array"),
        ({"rounds": 0}, "rounds=0"),
        ({"max_turns_per_round": -3}, "max_turns_per_round=-3"),
        ({"colour": "red"}, "unknown rules config field"),
    ],
)
def test_bad_keyword_arguments_are_clear_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gnoming_a_round_v1.env(**kwargs)


def test_rules_keyword_arguments_reach_the_engine():
    env = gnoming_a_round_v1.env(num_players=6, rounds=2, bounce_face_up=True, rotate_start=False)
    env.reset(seed=0)
    assert env.game.config.rounds == 2
    assert env.game.config.bounce_face_up is True
    assert env.game.config.rotate_start is False
    assert env.possible_agents == [f"player_{i}" for i in range(6)]


def test_ansi_render_returns_the_table_and_human_prints_it(capsys):
    env = gnoming_a_round_v1.env(num_players=3, render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert text == env.game.render()
    assert text.count("##") == 27
    human = gnoming_a_round_v1.env(num_players=3, render_mode="human")
    human.reset(seed=0)
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text.strip()


def test_unseeded_resets_after_a_seeded_one_are_reproducible():
    a, b = gnoming_a_round_v1.env(num_players=3), gnoming_a_round_v1.env(num_players=3)
    a.reset(seed=123)
    b.reset(seed=123)
    a.reset()
    b.reset()
    assert a.game.digest() == b.game.digest()
    c = gnoming_a_round_v1.env(num_players=3)
    c.reset(seed=124)
    c.reset()
    assert c.game.digest() != a.game.digest()


# ---------------------------------------------------------------------- the compiled fast path
FAST_VARIANTS = [
    {},
    {"bounce_face_up": True, "discard_taken_card": True, "rotate_start": False},
    {"max_turns_per_round": 12, "rounds": 2},
    {"deck": {"1": 6, "2": 6, "3": 6, "4": 6, "5": 40, "-1": 3, "M": 3, "H": 3}, "rounds": 1},
]


def full_snapshot(env):
    """last() plus every agent's observation: what a user of the env can see."""
    head = aec_snapshot(env)
    if not env.agents:
        return head
    every = tuple(
        (env.observe(a)["observation"].tobytes(), env.observe(a)["action_mask"].tobytes())
        for a in env.possible_agents[: env.config.num_players]
    )
    return head, every


def everything(env):
    """All a user of the env can see, as text: full_snapshot, every agent's info, the reward
    dicts (repr tells every float bit apart, -0.0 from 0.0), terminations, truncations."""
    return repr(
        (
            full_snapshot(env),
            env.agents,
            env.infos,
            env.rewards,
            env._cumulative_rewards,
            env.terminations,
            env.truncations,
        )
    )


def outcome_of(fn):
    """("ok", result) or (exception type, message)."""
    try:
        return ("ok", fn())
    except Exception as err:
        return (type(err).__name__, str(err))


def kernel_pair(make=gnoming_a_round_v1.raw_env, **kwargs):
    """The same env with the kernel game (fast) and on the Game alone (slow)."""
    pytest.importorskip("numba")
    from gnome_env.gnoming import _kernels

    if not _kernels.COMPILED:
        pytest.skip("the kernels are not compiled (GNOME_NO_NUMBA)")
    fast, slow = make(**kwargs), make(**kwargs)
    slow._use_kernels = False
    return fast, slow


@pytest.mark.parametrize("num_players", [3, 5, 7, [3, 6, 7]])
@pytest.mark.parametrize("variant", range(len(FAST_VARIANTS)))
def test_kernel_game_gives_the_encoders_observations_at_every_step(num_players, variant):
    """With numba, raw_env plays the game on a kernel copy (gnome_env.gnoming.vector.KernelGame) and
    syncs its Game only on demand; everything a user sees must equal the Game-only env's,
    step by step: every agent's observation and mask (mid-game and after the game), infos,
    rewards (bit for bit), terminations, state(), render(), and illegal or malformed
    actions (the same ValueError, nothing changed)."""
    rules = dict(FAST_VARIANTS[variant])
    fast, slow = kernel_pair(num_players=num_players, render_mode="ansi", **rules)
    for seed in (variant, 100 + variant):
        fast.reset(seed=seed)
        slow.reset(seed=seed)
        assert fast._kernel_game is not None and slow._kernel_game is None
        rng = random.Random(seed)
        steps = 0
        for agent in fast.agent_iter():
            assert agent == slow.agent_selection
            assert everything(fast) == everything(slow)
            if steps % 29 == 7:  # the Game synced on demand, several actions at once
                assert fast.state().tobytes() == slow.state().tobytes()
                assert fast.render() == slow.render()
            if steps % 31 == 11 and not (fast.terminations[agent] or fast.truncations[agent]):
                mask = fast.observe(agent)["action_mask"]
                for bad in (int(np.flatnonzero(mask == 0)[0]), A.NUM_ACTIONS, -1, None, 2.5):
                    got = outcome_of(lambda bad=bad: fast.step(bad))
                    assert got[0] == "ValueError"
                    assert got == outcome_of(lambda bad=bad: slow.step(bad))
                assert everything(fast) == everything(slow)
            action = random_action(fast, rng)
            fast.step(action)
            slow.step(action)
            steps += 1
        assert everything(fast) == everything(slow)
        assert fast.state().tobytes() == slow.state().tobytes()
        assert fast.render() == slow.render()
        assert fast.game.digest() == slow.game.digest()
        assert steps > 30


@pytest.mark.parametrize("illegal_at", [0, 1, 9, 60, 200])
def test_kernel_game_checked_env_illegal_action_mid_game(illegal_at, caplog):
    """env() on the kernel game: an illegal action mid-game ends the game exactly as on the Game
    alone (warning, -1, every agent terminated and stepped out, observations after it)."""
    caplog.set_level(logging.WARNING)
    fast, slow = kernel_pair(gnoming_a_round_v1.env, num_players=4, reward_mode="score")
    traces = []
    for env in (fast, slow):
        env.reset(seed=17)
        rng = random.Random(4)
        trace = []
        for _ in range(illegal_at):
            trace.append(everything(env))
            env.step(random_action(env, rng))
        mask = env.last()[0]["action_mask"]
        caplog.clear()
        env.step(int(np.flatnonzero(mask == 0)[-1]))
        trace.append(("warned", any("illegal" in r.getMessage().lower() for r in caplog.records)))
        trace.append(env.state().tobytes())
        while env.agents:
            trace.append(everything(env))
            env.step(None)
        trace.append(everything(env))
        traces.append(trace)
    assert traces[0] == traces[1]
    assert ("warned", True) in traces[0]
    assert fast.game.digest() == slow.game.digest()


@pytest.mark.parametrize("mode", MODES)
def test_kernel_game_rewards_and_infos_over_many_games(mode):
    """Round ends and game ends on the kernel game, over many short games and every reward
    mode: rewards bit for bit, infos, terminations and truncations (turn cap)."""
    fast, slow = kernel_pair(num_players=3, reward_mode=mode, rounds=2, max_turns_per_round=30)
    last_round_ends = set()
    for seed in range(16):
        fast.reset(seed=seed)
        slow.reset(seed=seed)
        rng = random.Random(seed)
        for _agent in fast.agent_iter():
            assert everything(fast) == everything(slow)
            action = random_action(fast, rng)
            fast.step(action)
            slow.step(action)
        assert everything(fast) == everything(slow)
        last_round_ends.add(slow.game.round_results[-1].ended_by)
    assert {"turn_cap", "endgame"} <= last_round_ends  # truncated and terminated games


def test_kernel_game_keeps_a_handed_out_game_current_and_follows_it_if_played_on():
    """``env.game`` is synced lazily; once handed out it stays current at every step, and
    if someone plays on it directly the env follows that Game (as the Game-only env)."""
    fast, slow = kernel_pair(num_players=4)
    fast.reset(seed=6)
    slow.reset(seed=6)
    rng = random.Random(6)
    for _ in range(25):
        action = random_action(fast, rng)
        fast.step(action)
        slow.step(action)
    held_fast, held_slow = fast.game, slow.game
    for _ in range(25):
        action = random_action(fast, rng)
        fast.step(action)
        slow.step(action)
        assert held_fast.digest() == held_slow.digest()
        assert everything(fast) == everything(slow)
    for game in (held_fast, held_slow):  # a legal action played on the Game itself
        game.step(game.legal_actions()[0])
    assert everything(fast) == everything(slow)
    for _ in range(40):
        action = slow.game.legal_actions()[-1]
        fast.step(action)
        slow.step(action)
        assert everything(fast) == everything(slow)
        assert fast.game.digest() == slow.game.digest()


def test_kernel_game_env_survives_copy_and_pickle():
    """A copied or pickled env (kernel game and lazy Game included) plays on like the original."""
    import copy
    import pickle

    fast, slow = kernel_pair(num_players=5)
    fast.reset(seed=2)
    slow.reset(seed=2)
    rng = random.Random(2)
    for _ in range(30):
        action = random_action(fast, rng)
        fast.step(action)
        slow.step(action)
    for twin in (copy.deepcopy(fast), pickle.loads(pickle.dumps(fast))):
        reference = copy.deepcopy(slow)
        rng = random.Random(3)
        for _agent in twin.agent_iter():
            assert everything(twin) == everything(reference)
            action = random_action(twin, rng)
            twin.step(action)
            reference.step(action)
        assert twin.game.digest() == reference.game.digest()


def test_kernel_game_steps_aside_when_the_game_is_replaced():
    """A test or user may put another Game into env.game: observations then follow it."""
    pytest.importorskip("numba")
    from gnome_env.gnoming.engine import Game

    env = gnoming_a_round_v1.raw_env(num_players=4)
    env.reset(seed=3)
    for _ in range(10):
        env.step(random_action(env, random.Random(1)))
    env.game = Game(env.config, 777)
    env.agent_selection = env.possible_agents[env.game.current_seat]
    for _ in range(30):
        seat = env.game.current_seat
        obs = env.observe(env.agent_selection)
        assert np.array_equal(obs["observation"], env.encoder.encode(env.game, seat))
        assert np.array_equal(obs["action_mask"].astype(bool), env.game.legal_mask())
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_v0_names_are_gone_with_a_message_naming_v1():
    """v1 changed the deals (own generator); the v0 names fail loudly, pointing to v1."""
    import importlib

    import gymnasium

    with pytest.raises(ImportError, match="gnoming_a_round_v1"):
        importlib.import_module("gnome_env.gnoming.gnoming_a_round_v0")
    with pytest.raises(gymnasium.error.Error, match="GnomingARound-v1"):
        gymnasium.make("gnome_env/GnomingARound-v0")


def test_a_seeded_reset_plays_the_games_of_vector_slot_0():
    """Module docstring (Seeding): game e after reset(seed=s) is Game(config, game_seed) with
    game_seed from vector.game_stream((s, 0), e, len(seat_counts)); VectorGame's slot 0 plays
    the same games after reset(seed=s)."""
    from gnome_env.gnoming.vector import VectorGame, game_stream

    env = gnoming_a_round_v1.raw_env(num_players=[3, 5, 7])
    vec = VectorGame(RulesConfig(), 1, num_players=[3, 5, 7])
    vec.reset(seed=123)
    for e in range(4):
        if e == 0:
            env.reset(seed=123)
        else:
            env.reset()
        seed, choice = game_stream((123, 0), e, 3)
        assert env.game.seed == seed == int(vec.game_seeds[0])
        assert env.config.num_players == (3, 5, 7)[choice] == int(vec.num_players[0])
        while vec.episodes[0] == e:  # play slot 0's game to its end
            vec.step(np.argmax(vec.legal_mask(), axis=1))


@pytest.mark.parametrize("seed", [-1, 2**63, "7", 1.5])
def test_bad_reset_seed_is_a_clear_error(seed):
    env = gnoming_a_round_v1.raw_env()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=seed)
