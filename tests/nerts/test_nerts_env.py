"""nerts_v0: the PettingZoo Parallel env of Nerts (RULES-nerts.md, RL notes)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils import parallel_to_aec

from gnome_env.core import rng
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts import nerts_v0 as nv
from gnome_env.nerts.encoding import CARD_IDS, NertsEncoder
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.render_image import image_size
from gnome_env.nerts.testing import permute_hidden

INT_KEYS = {k for k in nv.INFO_KEYS if k not in ("hand_scores", "totals")}


def _random_actions(obs: dict, agents: list[str], gen: np.random.Generator) -> dict[str, int]:
    """One masked uniformly random action per agent."""
    return {a: int(gen.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in agents}


def _play(env: nv.NertsParallelEnv, seed: int, policy_seed: int, max_steps: int = 100_000):
    """Play one episode with a seeded masked random policy; the list of step outputs."""
    obs, infos = env.reset(seed=seed)
    gen = np.random.default_rng(policy_seed)
    out = [(obs, None, None, None, infos)]
    for _ in range(max_steps):
        if not env.agents:
            break
        obs, rew, term, trunc, infos = env.step(_random_actions(obs, env.agents, gen))
        out.append((obs, rew, term, trunc, infos))
    return out


# ---------------------------------------------------------------------- PettingZoo API tests
@pytest.mark.parametrize("players", [2, 4, 6])
def test_parallel_api_test_passes(players):
    parallel_api_test(nv.parallel_env(num_players=players), num_cycles=1000)


@pytest.mark.parametrize("players", [2, 6])
def test_parallel_api_test_passes_with_truncation_and_game_episodes(players):
    parallel_api_test(nv.parallel_env(num_players=players, max_steps_per_hand=25), num_cycles=100)
    env = nv.parallel_env(
        num_players=players, episode="game", nerts_size=2, target_score=10, max_hands=3
    )
    parallel_api_test(env, num_cycles=2000)


@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 6, "jokers": 2, "work_piles": 5},
        {"num_players": 3, "work_piles": 3, "turn_size": 1, "auto_call": True},
        {"num_players": 5, "foundation_tie": "both_keep", "slide_under": False, "stall_steps": 5},
    ],
)
def test_rule_variants_play_in_bounds_and_render(rules):
    env = nv.parallel_env(render_mode="rgb_array", **rules)
    enc = env.encoder
    w = env.config.work_piles
    assert enc.size == 6 * (134 + 57 * w) + env.config.num_slots * 14 + 19
    shape = None
    for k, (obs, *_) in enumerate(_play(env, seed=7, policy_seed=7)):
        for agent, o in obs.items():
            assert env.observation_space(agent).contains(o), (rules, agent)
        if k % 50 == 0:
            img = env.render()
            assert shape in (None, img.shape)
            shape = img.shape
    assert env.state_space.contains(env.state())
    parallel_api_test(nv.parallel_env(**rules), num_cycles=200)


@pytest.mark.parametrize("players", [3, 5])
def test_aec_form_passes_api_test(players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's "all zeros mask" note at hand end
        api_test(parallel_to_aec(nv.parallel_env(num_players=players)), num_cycles=300)
        api_test(nv.env(num_players=players, max_steps_per_hand=40), num_cycles=100)
    raw = nv.raw_env(num_players=players)
    raw.reset(seed=1)
    assert raw.state().shape == raw.unwrapped.state_space.shape


def test_metadata_spaces_and_registry():
    import pettingzoo

    env = pettingzoo.make("parallel", "gnome_env/nerts_v0", num_players=3, jokers=1)
    assert isinstance(env, nv.NertsParallelEnv)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert env.config.jokers == 1 and env.n_actions == 433  # N36 with one joker
    assert env.metadata["name"] == "nerts_v0"
    assert env.metadata["is_parallelizable"] is True
    assert set(env.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == 433
    assert env.action_space("player_0") is not env.action_space("player_1")  # own seeding
    assert str(env) == "nerts_v0"


# ---------------------------------------------------------------------- observations
def test_observation_size_is_the_same_for_every_player_count_and_in_bounds():
    sizes = set()
    for p in range(2, 7):
        env = nv.parallel_env(num_players=p, max_steps_per_hand=150)
        space = env.observation_space("player_0")
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].dtype == np.int8
        assert space["action_mask"].shape == (397,)
        sizes.add(space["observation"].shape)
        for obs, *_ in _play(env, seed=p, policy_seed=p):
            for agent, o in obs.items():
                assert o["observation"].shape == (2527,)
                assert env.observation_space(agent).contains(o), (p, agent)
    assert sizes == {(2527,)}
    assert nv.parallel_env().state_space.shape == (3823,)


def test_slices_cover_the_observation_in_order():
    env = nv.parallel_env()
    enc = env.encoder
    blocks = sorted(env.slices.values(), key=lambda s: s.start)
    assert blocks[0].start == 0 and blocks[-1].stop == enc.size
    for a, b in itertools.pairwise(blocks):
        assert a.stop == b.start
    assert enc.seat_width * 6 == env.slices["seats"].stop
    assert enc.seat_slice(1, "nerts_top") == slice(362 + 2, 362 + 2 + CARD_IDS)
    assert enc.slot_slice(3, "owners") == slice(2172 + 3 * 14 + 8, 2172 + 3 * 14 + 14)


def test_observations_are_rotated_and_the_mask_is_the_seats_own():
    env = nv.parallel_env(num_players=4)
    obs, _ = env.reset(seed=3)
    gen = np.random.default_rng(3)
    for _ in range(60):
        obs, *_ = env.step(_random_actions(obs, env.agents, gen))
    enc, game = env.encoder, env.game
    width = enc.seat_width
    for i, agent in enumerate(env.possible_agents):
        o = obs[agent]["observation"]
        np.testing.assert_array_equal(obs[agent]["action_mask"], game.legal_mask(i))
        assert o[enc.slices["present"]].tolist() == [1, 1, 1, 1, 0, 0]
        assert o[enc.seat_slice(0, "nerts_size")][0] == pytest.approx(len(game.nerts[i]) / 13)
        assert not o[4 * width : 6 * width].any()  # padded seats are zeros
        for r in range(4):
            j = (i + r) % 4
            other = obs[env.possible_agents[j]]["observation"]
            np.testing.assert_array_equal(o[r * width : (r + 1) * width], other[:width])
            # the work piles of the seat r places on are there, as membership sets
            sets = o[enc.seat_slice(r, "work_cards")].reshape(4, CARD_IDS)
            for w, pile in enumerate(game.work[j]):
                assert sorted(np.flatnonzero(sets[w]).tolist()) == sorted(pile)
        for f in range(game.slots_used):
            owners = o[enc.slot_slice(f, "owners")] * 13
            for r in range(4):
                count = game.slot_owners[f].count((i + r) % 4)
                assert owners[r] == pytest.approx(count)


def test_n35_observations_unchanged_when_hidden_cards_are_permuted_state_changes():
    for players, seed, steps in [(2, 1, 30), (4, 2, 60), (6, 3, 90)]:
        env = nv.parallel_env(num_players=players)
        obs, _ = env.reset(seed=seed)
        gen = np.random.default_rng(seed)
        for _ in range(steps):
            obs, *_ = env.step(_random_actions(obs, env.agents, gen))
        assert env.agents, "still mid-hand"
        before, state = env.observations(), env.state()
        game = env.game
        other = permute_hidden(game, gen)
        assert other.digest() != game.digest()
        env.game = other
        after = env.observations()
        for agent in env.possible_agents:
            np.testing.assert_array_equal(before[agent]["observation"], after[agent]["observation"])
            np.testing.assert_array_equal(before[agent]["action_mask"], after[agent]["action_mask"])
        assert not np.array_equal(state, env.state())  # the full state sees the hidden cards
        assert env.state_space.contains(env.state())


def test_views_used_for_every_seat_equal_the_information_layer():
    env = nv.parallel_env(num_players=5)
    obs, _ = env.reset(seed=4)
    gen = np.random.default_rng(4)
    for _ in range(30):
        obs, *_ = env.step(_random_actions(obs, env.agents, gen))
    views = env._views()
    enc = NertsEncoder(env.config)
    for s in range(5):
        assert views[s] == NertsView.from_game(env.game, s)
        np.testing.assert_array_equal(
            obs[f"player_{s}"]["observation"], enc.encode(NertsView.from_game(env.game, s))
        )


# ---------------------------------------------------------------------- seeding
def test_same_seed_same_episode_different_seed_differs():
    def trace(seed):
        out = []
        for obs, rew, term, trunc, infos in _play(nv.parallel_env(num_players=3), seed, 11):
            out.append(
                (
                    [o["observation"].tobytes() + o["action_mask"].tobytes() for o in obs.values()],
                    rew,
                    term,
                    trunc,
                    [
                        (k, v.tolist() if isinstance(v, np.ndarray) else v)
                        for i in infos.values()
                        for k, v in i.items()
                    ],
                )
            )
        return out

    a, b, c = trace(5), trace(5), trace(6)
    assert a == b
    assert a != c


def test_seeded_reset_is_the_engine_game_and_unseeded_resets_follow_the_stream():
    env = nv.parallel_env(num_players=4)
    env.reset(seed=123)
    assert env.game_seed == 123
    assert env.game.digest() == NertsGame(env.config, 123).digest()
    env.reset()
    want = int(rng.game_stream(123, 0, 1, 1)[0])
    assert env.game_seed == want
    assert env.game.digest() == NertsGame(env.config, want).digest()
    env.reset()
    assert env.game_seed == int(rng.game_stream(123, 0, 2, 1)[0])
    # an unseeded first reset draws from the operating system
    fresh = [nv.parallel_env(num_players=2) for _ in range(2)]
    for e in fresh:
        e.reset()
    assert fresh[0].game_seed != fresh[1].game_seed
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)


def test_the_engine_steps_as_the_env_does():
    env = nv.parallel_env(num_players=3)
    game = NertsGame(env.config, 9)
    obs, _ = env.reset(seed=9)
    gen = np.random.default_rng(0)
    while env.agents:
        acts = _random_actions(obs, env.agents, gen)
        res = game.step([acts[a] for a in env.possible_agents])
        obs, _, _, _, infos = env.step(acts)
        assert env.game.digest() == game.digest()
        for i, a in enumerate(env.possible_agents):
            assert infos[a]["blocked"] == int(res.blocked[i])
            assert infos[a]["priority"] == res.priority.index(i)
            assert infos[a]["hand_score"] == res.hand_scores[i]


# ---------------------------------------------------------------------- rewards
@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_relative_rewards_are_zero_sum_and_sum_to_the_score_difference(players):
    env = nv.parallel_env(num_players=players)
    steps = _play(env, seed=players, policy_seed=1)
    sums = dict.fromkeys(env.possible_agents, 0.0)
    for _, rew, *_ in steps[1:]:
        assert sum(rew.values()) == pytest.approx(0.0, abs=1e-9)
        for a, r in rew.items():
            sums[a] += r
    final = steps[-1][4]
    scores = final["player_0"]["hand_scores"].tolist()
    for i, a in enumerate(env.possible_agents):
        others = [scores[j] for j in range(players) if j != i]
        want = scores[i] - sum(others) / (players - 1)
        if players - 1 in (1, 2, 4):  # exact binary fractions: the sum is exact
            assert sums[a] == want
        else:
            assert sums[a] == pytest.approx(want, abs=1e-9)
    assert any(s != 0 for s in sums.values())


def test_score_rewards_sum_to_score_plus_twice_the_nerts_size():
    env = nv.parallel_env(num_players=4, reward_mode="score")
    steps = _play(env, seed=8, policy_seed=2)
    sums = dict.fromkeys(env.possible_agents, 0.0)
    for _, rew, *_ in steps[1:]:
        for a, r in rew.items():
            assert r == int(r)
            sums[a] += r
    final = steps[-1][4]
    for a in env.possible_agents:
        assert sums[a] == final[a]["hand_score"] + 2 * 13


def test_sparse_rewards_pay_only_at_the_end_of_the_hand():
    dense = _play(nv.parallel_env(num_players=3), seed=12, policy_seed=3)
    sparse = _play(nv.parallel_env(num_players=3, reward_mode="sparse"), seed=12, policy_seed=3)
    assert len(dense) == len(sparse)
    for _, rew, *_ in sparse[1:-1]:
        assert set(rew.values()) == {0.0}
    totals = {a: sum(step[1][a] for step in dense[1:]) for a in dense[-1][1]}
    last = sparse[-1][1]
    assert last == pytest.approx(totals)
    assert any(r != 0 for r in last.values())


def test_game_episode_plays_several_hands_and_a_new_deal_is_no_reward():
    env = nv.parallel_env(
        num_players=3,
        episode="game",
        reward_mode="score",
        nerts_size=2,
        target_score=15,
        max_hands=6,
    )
    steps = _play(env, seed=21, policy_seed=5)
    ends = [infos for _, _, _, _, infos in steps[1:] if infos["player_0"]["hand_over"]]
    assert len(ends) >= 2, "several hands in one episode"
    assert [e["player_0"]["hand"] for e in ends] == list(range(len(ends)))
    # score-mode rewards sum to sum_h (S_i,h + 2 nerts_size): the reset of S at each new
    # deal (to -4) paid nothing
    final = steps[-1][4]
    assert final["player_0"]["game_over"] == 1
    for i, a in enumerate(env.possible_agents):
        got = sum(step[1][a] for step in steps[1:])
        assert got == final[a]["total"] + 2 * 2 * len(ends)
        assert final[a]["total"] == sum(e[a]["hand_score"] for e in ends)
        assert final[a]["won"] == int(i in env.game.winners())
    # after a hand ends, the observation shows the next deal
    for k, (obs, _, _, _, infos) in enumerate(steps[1:-1], start=1):
        if infos["player_0"]["hand_over"]:
            o = obs["player_0"]["observation"]
            assert o[env.slices["step"]][0] == 0.0
            assert o[env.encoder.seat_slice(0, "nerts_size")][0] == 1.0
            assert steps[k + 1][4]["player_0"]["hand"] == infos["player_0"]["hand"] + 1
    # relative rewards over the game telescope into the totals' difference
    rel = nv.parallel_env(num_players=3, episode="game", nerts_size=2, target_score=15, max_hands=6)
    rsteps = _play(rel, seed=21, policy_seed=5)
    totals = rsteps[-1][4]["player_0"]["totals"].tolist()
    for i, a in enumerate(rel.possible_agents):
        got = sum(step[1][a] for step in rsteps[1:])
        want = totals[i] - sum(totals[j] for j in range(3) if j != i) / 2
        assert got == want


# ---------------------------------------------------------------------- episodes, infos
def test_n28_step_cap_truncates_and_does_not_terminate():
    env = nv.parallel_env(num_players=2, max_steps_per_hand=5)
    steps = _play(env, seed=0, policy_seed=0)
    assert len(steps) == 6
    for _, _, term, trunc, infos in steps[1:-1]:
        assert not any(term.values()) and not any(trunc.values())
        assert infos["player_0"]["hand_over"] == 0
    _, _, term, trunc, infos = steps[-1]
    assert trunc == {"player_0": True, "player_1": True}
    assert term == {"player_0": False, "player_1": False}
    assert infos["player_1"]["end_reason"] == 3 and infos["player_1"]["step"] == 5
    assert env.agents == []
    with pytest.raises(ValueError, match="reset"):
        env.step({})


def test_hand_ended_by_a_call_or_block_terminates():
    reasons = set()
    for seed in range(6):
        env = nv.parallel_env(num_players=2, nerts_size=1)
        _, _, term, trunc, infos = _play(env, seed=seed, policy_seed=seed)[-1]
        reasons.add(infos["player_0"]["end_reason"])
        assert all(term.values()) and not any(trunc.values())
        assert infos["player_0"]["end_reason"] in (1, 2)
    assert 1 in reasons


def test_game_episode_truncates_only_when_its_last_hand_hits_the_cap():
    env = nv.parallel_env(num_players=2, episode="game", max_steps_per_hand=3, max_hands=2)
    steps = _play(env, seed=1, policy_seed=1)
    assert len(steps) == 7  # two capped hands of 3 steps
    first_end = steps[3]
    assert first_end[4]["player_0"]["hand_over"] == 1
    assert first_end[4]["player_0"]["end_reason"] == 3
    assert not any(first_end[2].values()) and not any(first_end[3].values())
    assert all(steps[-1][3].values()) and not any(steps[-1][2].values())


def test_infos_have_fixed_keys_and_numeric_types():
    for episode in ("hand", "game"):
        env = nv.parallel_env(
            num_players=3, episode=episode, nerts_size=2, target_score=8, max_hands=3
        )
        for *_, infos in _play(env, seed=2, policy_seed=2):
            assert set(infos) == set(env.possible_agents)
            for info in infos.values():
                assert tuple(info) == nv.INFO_KEYS
                for k in INT_KEYS:
                    assert type(info[k]) is int, (k, type(info[k]))
                for k in ("hand_scores", "totals"):
                    assert info[k].dtype == np.int64 and info[k].shape == (3,)
    _, infos = nv.parallel_env().reset(seed=0)
    assert infos["player_2"]["priority"] == -1
    assert infos["player_2"]["hand_score"] == -26


# ---------------------------------------------------------------------- errors
def test_illegal_missing_and_malformed_actions_raise_and_change_nothing():
    env = nv.parallel_env(num_players=3)
    with pytest.raises(ValueError, match="reset"):
        env.step({})
    obs, _ = env.reset(seed=4)
    digest = env.game.digest()
    mask = obs["player_1"]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    acts = {a: 0 for a in env.agents}
    with pytest.raises(ValueError, match=rf"player_1: action {illegal} \(.*\) is not legal"):
        env.step({**acts, "player_1": illegal})
    with pytest.raises(ValueError, match="no action for player_2"):
        env.step({"player_0": 0, "player_1": 0})
    with pytest.raises(ValueError, match="player_7"):
        env.step({**acts, "player_7": 0})
    with pytest.raises(ValueError, match="player_0: action 397 is outside"):
        env.step({**acts, "player_0": 397})
    with pytest.raises(ValueError, match="not an int"):
        env.step({**acts, "player_0": 1.0})
    with pytest.raises(ValueError, match="not an int"):
        env.step({**acts, "player_0": True})
    with pytest.raises(ValueError, match="dict"):
        env.step([0, 0, 0])
    assert env.game.digest() == digest and env.game.steps == 0
    env.step({a: np.int64(0) for a in env.agents})  # numpy ints are fine
    env.step({a: np.array(0) for a in env.agents})
    assert env.game.steps == 2


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"num_players": 7}, "players"),
        ({"num_players": 1}, "players"),
        ({"reward": "win"}, "reward"),
        ({"episode": "round"}, "episode"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"nerts_size": 0}, "nerts_size"),
        ({"foundation_tie": "first"}, "foundation_tie"),
        ({"auto_call": 1}, "auto_call"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_kwargs_raise_value_errors_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        nv.parallel_env(**kwargs)


# ---------------------------------------------------------------------- rendering
def test_renders():
    env = nv.parallel_env(num_players=4, render_mode="rgb_array")
    obs, _ = env.reset(seed=6)
    first = env.render()
    assert first.dtype == np.uint8 and first.ndim == 3 and first.shape[2] == 3
    assert first.shape[:2] == image_size(env.config)
    gen = np.random.default_rng(6)
    for _ in range(40):
        obs, *_ = env.step(_random_actions(obs, env.agents, gen))
    later = env.render()
    assert later.shape == first.shape
    assert not np.array_equal(first, later)
    assert np.array_equal(later, env.render())  # the same state, the same pixels
    small = nv.parallel_env(num_players=2, render_mode="rgb_array")
    small.reset(seed=0)
    assert small.render().shape[:2] == image_size(small.config) != first.shape[:2]

    text_env = nv.parallel_env(num_players=2, render_mode="ansi")
    text_env.reset(seed=0)
    text = text_env.render()
    assert isinstance(text, str) and text.startswith("Nerts hand 0")
    assert "\x1b[" not in text


def test_human_render_prints(capsys):
    env = nv.parallel_env(num_players=2, render_mode="human")
    env.reset(seed=0)
    env.step({a: 0 for a in env.agents})
    out = capsys.readouterr().out
    assert out.count("Nerts hand 0") == 2


def test_rgb_array_marks_blocked_plays():
    from gnome_env.nerts.testing import build_game, step_with_priority

    config = NertsConfig(num_players=2)
    k = step_with_priority(config, (1, 0))
    game = build_game(
        config,
        seats={0: {"nerts": "5H"}, 1: {"waste": "5H"}},
        foundations=["p1:AH..4H"],
        steps=k,
    )
    env = nv.parallel_env(num_players=2, render_mode="rgb_array")
    env.reset(seed=0)
    env.game = game
    before = env.render()
    table = game.table
    _, _, _, _, infos = env.step({"player_0": table.to_slot(0, 0), "player_1": table.to_slot(1, 0)})
    assert infos["player_0"]["blocked"] == 1 and infos["player_1"]["blocked"] == 0
    img = env.render()
    red = np.all(img == (235, 60, 50), axis=-1)
    assert red.any() and not np.all(before == (235, 60, 50), axis=-1).any()
