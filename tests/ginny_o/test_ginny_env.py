"""ginny_o_v0: the PettingZoo AEC env of Ginny-O (RULES-ginny-o.md, RL notes)."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

from gnome_env.core import rng
from gnome_env.ginny_o import GinnyConfig, GinnyGame, IllegalActionError
from gnome_env.ginny_o import actions as A
from gnome_env.ginny_o import ginny_o_v0 as gv
from gnome_env.ginny_o.board import cell
from gnome_env.ginny_o.cards import JOKER, parse_kind, parse_kinds
from gnome_env.ginny_o.encoding import (
    CELL_FIELDS,
    GLOBAL_FIELDS,
    OBS_SIZE,
    SLICES,
    describe_slices,
    encode,
    global_slice,
    named_views,
)
from gnome_env.ginny_o.engine import PHASES
from gnome_env.ginny_o.hidden import permute_hidden
from gnome_env.ginny_o.information import GinnyView
from gnome_env.ginny_o.render_image import IMAGE_SIZE, render_rgb
from gnome_env.ginny_o.testing import stacked_game

CELL = {name: slice(a, b) for name, a, b in CELL_FIELDS}
GLOBAL = {name: slice(a, b) for name, a, b in GLOBAL_FIELDS}
STUCK = {  # racks without any meld: with an empty box nobody can ever place (G29b)
    0: "AC 3D 5H 7S 9C JD KH",  # penalty 15+3+5+7+9+10+10 = 59
    1: "2C 4D 6H 8S TC QD AS",  # 2+4+6+8+10+10+15 = 55
    2: "2D 4H 6S 8C TD QH 3C",  # 2+4+6+8+10+10+3 = 43
}


def play(env, seed: int, policy_seed: int, max_steps: int = 20_000) -> list[tuple]:
    """One episode with a seeded masked-uniform policy: ``(agent, obs, reward, term, trunc,
    info, action)`` per ``agent_iter`` step."""
    env.reset(seed=seed)
    gen = np.random.default_rng(policy_seed)
    out = []
    for agent in env.agent_iter(max_steps):
        obs, reward, term, trunc, info = env.last()
        legal = None if term or trunc else np.flatnonzero(obs["action_mask"])
        action = None if legal is None else int(gen.choice(legal))
        out.append((agent, obs, reward, term, trunc, info, action))
        env.step(action)
    return out


def board_part(obs: np.ndarray) -> np.ndarray:
    return named_views(obs)["board"].reshape(225, -1)


# ---------------------------------------------------------------------- PettingZoo API
@pytest.mark.parametrize("players", [2, 3, 4])
def test_api_test_passes(players):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's notes on Dict spaces, all-zero masks
        api_test(gv.env(num_players=players, max_turns=8), num_cycles=40)
        api_test(gv.raw_env(num_players=players, reward_mode="score", max_turns=6), num_cycles=30)


def test_static_facts_spaces_and_metadata():
    env = gv.raw_env(num_players=3, max_turns=50)
    assert gv.NUM_ACTIONS == A.NUM_ACTIONS == 1864
    assert gv.MAX_STEPS_PER_TURN == 21 and gv.UTILITY_RANGE == (-1.0, 1.0)
    assert env.max_game_length == 50 * 21 == gv.max_game_length(env.config)
    assert gv.max_game_length(GinnyConfig(num_players=2)) == 120 * 21
    assert env.metadata["name"] == "ginny_o_v0" and str(env) == "ginny_o_v0"
    assert env.metadata["is_parallelizable"] is False
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert space is env.observation_space(agent)
        assert space["observation"].shape == (OBS_SIZE,) == (7944,)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].shape == (1864,) and space["action_mask"].dtype == np.int8
        assert env.action_space(agent).n == 1864
    assert env.action_space("player_0") is not env.action_space("player_1")  # own seeding
    assert env.state_space.shape == (gv.STATE_SIZE,) == (8213,)
    assert gv.raw_env(reward_mode="score").utility_range is None
    wrapped = gv.env(num_players=4)
    assert wrapped.unwrapped.config.num_players == 4 and str(wrapped) == "ginny_o_v0"


@pytest.mark.parametrize(
    "kwargs,name",
    [
        ({"num_players": 5}, "players"),
        ({"reward": "win"}, "reward"),
        ({"render_mode": "print"}, "render_mode"),
        ({"max_placements": 0}, "max_placements"),
        ({"colour": 1}, "colour"),
    ],
)
def test_bad_kwargs_raise_value_errors_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        gv.raw_env(**kwargs)


# ---------------------------------------------------------------------- seeding
def test_same_seed_same_episode_different_seed_differs():
    def trace(seed):
        out = []
        for agent, obs, reward, term, trunc, _, action in play(
            gv.raw_env(num_players=3, max_turns=15), seed, policy_seed=5
        ):
            out.append((agent, obs["observation"].tobytes(), reward, term, trunc, action))
        return out

    first = trace(11)
    assert first == trace(11)
    assert first != trace(12)
    assert all(a is None for *_, a in first[-3:])  # the episode ran to its end


def test_seeded_reset_is_the_engine_game_and_unseeded_resets_follow_the_stream():
    env = gv.raw_env(num_players=2)
    env.reset(seed=42)
    assert env.game_seed == 42
    assert env.game.digest() == GinnyGame(env.config, 42).digest()
    env.reset()
    expected = int(rng.game_stream(42, 0, 1, 1)[0])
    assert env.game_seed == expected
    assert env.game.digest() == GinnyGame(env.config, expected).digest()
    fresh = gv.raw_env(num_players=2)
    fresh.reset()  # no seed at all: one drawn from the operating system
    assert 0 <= fresh.game_seed < rng.MAX_SEED
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=-1)


# ---------------------------------------------------------------------- observations
def test_slices_cover_the_observation_in_order():
    at = 0
    for _, start, end in SLICES:
        assert start == at and end > start
        at = end
    assert at == OBS_SIZE == 7944
    assert [n for n, *_ in SLICES] == ["board", "rack", "unseen", "seats", "globals"]
    assert (CELL_FIELDS[-1][2], GLOBAL_FIELDS[-1][2]) == (33, 14)
    text = describe_slices()
    for name in ("board", "premium", "unseen", "phase", "first_meld", "[7930, 7944)"):
        assert name in text


def fresh_stacked() -> GinnyGame:
    return stacked_game(
        GinnyConfig(num_players=2),
        racks={0: "4C 5C 6C 7C 8C * 9D", 1: "AC 2C 3C KD KH 5S 6S"},
        draws="TD",
    )


def test_obs_slices_on_a_stacked_opening_position():
    game = fresh_stacked()
    obs = encode(GinnyView.from_game(game, 0))
    v = named_views(obs)
    board = board_part(obs)
    # An empty board: no tile, every premium uncovered (G6): y 24, g 8, R 8 (not the centre), B 8.
    assert board[:, CELL["occupied"]].sum() == 0
    assert board[:, CELL["premium"]].sum(axis=0).tolist() == [24, 8, 8, 8]
    assert board[cell(7, 7)].sum() == 0  # the centre: no premium (G7)
    assert board[cell(0, 4), CELL["premium"]].tolist() == [0, 0, 0, 1]  # blue
    assert board[cell(1, 7), CELL["premium"]].tolist() == [0, 0, 1, 0]  # red
    # The acting seat's 8 slots, sorted by kind, jokers last: exact one-hot positions.
    kinds = sorted(parse_kinds("4C 5C 6C 7C 8C * 9D TD"))
    assert kinds[-1] == JOKER
    rack = v["rack"]
    for s, k in enumerate(kinds):
        assert np.flatnonzero(rack[s, :53]).tolist() == [k]
    assert rack[:, 53:].sum() == 0  # nothing marked or used
    # Unseen (one set, 2 jokers): own 7 cards 0, the other 45 cards 1, jokers (2 - 1) / 2.
    unseen = v["unseen"]
    assert unseen.sum() == pytest.approx(45.5)
    assert unseen[JOKER] == 0.5 and unseen[parse_kind("TD")] == 0 and unseen[parse_kind("AC")] == 1
    # Seats: self first; present, score / 100, rack size / 8.
    assert v["seats"].tolist() == [[1, 0, 1], [1, 0, 7 / 8], [0, 0, 0], [0, 0, 0]]
    g = v["globals"]
    assert g[GLOBAL["box"]][0] == pytest.approx((54 - 15) / 54)
    assert g[GLOBAL["turn"]][0] == 0 and g[GLOBAL["stall"]][0] == 0
    assert g[GLOBAL["phase"]].tolist() == [1, 0, 0, 0, 0]
    assert g[GLOBAL["direction"]].tolist() == [1, 0, 0]
    assert g[GLOBAL["drew"]][0] == 1 and g[GLOBAL["first_meld"]][0] == 0
    # The seat that is not acting: its sorted rack in slots 0..6, no turn in progress.
    other = named_views(encode(GinnyView.from_game(game, 1)))
    for s, k in enumerate(sorted(parse_kinds("AC 2C 3C KD KH 5S 6S"))):
        assert np.flatnonzero(other["rack"][s, :53]).tolist() == [k]
    assert other["rack"][7].sum() == 0 and other["rack"][:, 53:].sum() == 0
    assert other["globals"][3:13].sum() == 0  # phase, direction, placements, drew
    assert other["seats"].tolist() == [[1, 0, 7 / 8], [1, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert other["unseen"].sum() == pytest.approx(45 + 1)  # 45 cards; both jokers unseen
    assert other["unseen"][JOKER] == 1 and other["unseen"][parse_kind("TD")] == 1


def test_obs_follows_a_placement_with_a_joker_step_by_step():
    game = fresh_stacked()
    # *=3C 4C 5C 6C 7C 8C along row 7 from (7,2): the first meld over the centre (G20).
    placement = next(
        p for p in game.legal_placements() if p.tiles[0] == (cell(7, 2), JOKER, parse_kind("3C"))
    )
    actions = game.placement_actions(placement)
    assert actions[:2] == [A.place(7, cell(7, 2)), A.declare(parse_kind("3C"))]
    env = gv.raw_env(num_players=2)
    env.reset(seed=0)
    env.game = game
    env.step(actions[0])  # the joker, not declared yet: occupied, joker, pending only
    obs = env.observe("player_0")["observation"]
    c = board_part(obs)[cell(7, 2)]
    assert np.flatnonzero(c).tolist() == [0, 18, 19]  # (7,2) is a plain square
    assert named_views(obs)["rack"][7, 54] == 1  # the joker's slot counts as used
    assert obs[global_slice("phase")].tolist() == [0, 0, 1, 0, 0]  # declaring
    theirs = env.observe("player_1")["observation"]
    np.testing.assert_array_equal(theirs, encode(GinnyView.from_game(env.game, 1)))
    assert board_part(theirs)[:, :20].sum() == 0  # the other seat sees no pending tile
    env.step(actions[1])  # DECLARE 3C: suit C, rank 3
    c = board_part(env.observe("player_0")["observation"])[cell(7, 2)]
    assert c[CELL["suit"]].tolist() == [1, 0, 0, 0] and np.flatnonzero(
        c[CELL["rank"]]
    ).tolist() == [2]
    env.step(actions[2])  # 4C on (7,3), a yellow square: its premium still counts
    obs = env.observe("player_0")["observation"]
    c = board_part(obs)[cell(7, 3)]
    assert c[CELL["pending"]][0] == 1 and c[CELL["premium"]].tolist() == [1, 0, 0, 0]
    assert obs[global_slice("direction")].tolist() == [0, 1, 0]  # horizontal
    for a in actions[3:]:
        env.step(a)  # ... COMMIT: 34 points (the worked example's first meld, G27)
    assert env.game.scores == [34, 0] and env.agent_selection == "player_1"
    obs = env.observe("player_1")["observation"]
    board = board_part(obs)
    assert board[:, CELL["occupied"]].sum() == 6 and board[:, CELL["pending"]].sum() == 0
    assert board[:, CELL["region"]].sum(axis=0).tolist() == [6, 0, 0, 0, 0, 0, 0, 0, 0]
    assert board[:, CELL["premium"]].sum(axis=0).tolist() == [23, 8, 8, 8]  # (7,3) covered
    assert board[cell(7, 2), CELL["joker"]][0] == 1
    v = named_views(obs)
    assert v["seats"][:2, 1].tolist() == [0, pytest.approx(0.34)]  # self (P1) first
    assert named_views(env.observe("player_0")["observation"])["seats"][:2, 1].tolist() == [
        pytest.approx(0.34),
        0,
    ]
    assert v["globals"][GLOBAL["first_meld"]][0] == 1
    assert v["unseen"][JOKER] == 0.5  # one joker on the board, one unseen


def test_joker_free_config_has_no_nan():
    env = gv.raw_env(num_players=3, jokers_per_set=0)
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)["observation"]
    assert np.isfinite(obs).all() and named_views(obs)["unseen"][JOKER] == 0
    assert env.observation_space(env.agent_selection).contains(env.observe(env.agent_selection))


def test_mask_is_the_engine_legal_mask_and_obs_is_the_encoded_view():
    env = gv.raw_env(num_players=3, max_turns=12, max_placements=2)
    env.reset(seed=4)
    gen = np.random.default_rng(4)
    steps = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        game = env.game
        if term or trunc:
            assert obs["action_mask"].sum() == 0
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert seat == game.current
        np.testing.assert_array_equal(obs["action_mask"], game.legal_mask())
        np.testing.assert_array_equal(obs["observation"], encode(GinnyView.from_game(game, seat)))
        if steps % 5 == 0:
            for other in env.possible_agents:
                if other != agent:
                    assert env.observe(other)["action_mask"].sum() == 0
        steps += 1
        env.step(int(gen.choice(np.flatnonzero(obs["action_mask"]))))
    assert steps > 30


# ---------------------------------------------------------------------- rewards and ends
def stuck_game(players: int, scores: list[int]) -> GinnyGame:
    """A stacked game whose box is empty and whose racks hold no meld: the first PASS ends it
    (G29b)."""
    return stacked_game(
        GinnyConfig(num_players=players),
        racks={s: STUCK[s] for s in range(players)},
        rest="out",
        scores=scores,
    )


@pytest.mark.parametrize(
    "players,scores,expected",
    [
        (2, [50, 50], [-1.0, 1.0]),  # finals -9, -5
        (3, [100, 96, 84], [-1.0, 0.0, 1.0]),  # finals all 41: smaller penalty wins (G31)
    ],
)
def test_rank_rewards_at_the_end_of_a_stacked_game(players, scores, expected):
    env = gv.raw_env(num_players=players)
    env.reset(seed=0)
    env.game = stuck_game(players, scores)
    obs, *_ = env.last()
    assert np.flatnonzero(obs["action_mask"]).tolist() == [A.PASS]
    env.step(A.PASS)
    game = env.game
    assert game.end_reason == "dead" and not game.truncated
    assert [env._cumulative_rewards[a] for a in env.possible_agents] == expected
    assert game.rank_rewards() == expected
    assert all(env.terminations.values()) and not any(env.truncations.values())
    info = env.infos["player_0"]
    assert info["game_over"] == 1 and info["end_reason"] == gv.END_CODES["dead"] == 2
    assert info["penalty"] == 59 and info["final_score"] == scores[0] - 59
    assert [env.infos[a]["won"] for a in env.possible_agents] == [e == 1.0 for e in expected]
    for agent in env.agent_iter():  # every agent is done: each steps None, then leaves
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc and reward == expected[int(agent[-1])]
        env.step(None)
    assert env.agents == []


def test_rank_rewards_of_a_played_game_are_the_engines_and_zero_sum():
    env = gv.raw_env(num_players=4, max_turns=40)
    trace = play(env, seed=9, policy_seed=9)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent, _, reward, *_ in trace:
        totals[agent] += reward  # last() reports what accrued since the agent's last step
    expected = env.game.rank_rewards()
    assert [totals[a] for a in env.possible_agents] == pytest.approx(expected)
    assert sum(expected) == pytest.approx(0.0)
    assert all(-1.0 <= r <= 1.0 for r in expected)


@pytest.mark.parametrize("players,seed", [(2, 5), (3, 6)])
def test_score_rewards_sum_to_the_final_score_difference(players, seed):
    env = gv.raw_env(num_players=players, reward_mode="score", max_turns=30, max_placements=2)
    env.reset(seed=seed)
    gen = np.random.default_rng(seed)
    totals = np.zeros(players)
    paid_mid_turn = False
    while env.agents and not any(env.terminations.values()) and not any(env.truncations.values()):
        obs = env.observe(env.agent_selection)
        turn = env.game.turn
        env.step(int(gen.choice(np.flatnonzero(obs["action_mask"]))))
        step = np.array([env.rewards[a] for a in env.possible_agents])
        assert step.sum() == pytest.approx(0.0)
        if env.game.turn == turn and not env.game.game_over:
            paid_mid_turn |= bool(step.any())
        totals += step
    assert not paid_mid_turn  # paid once per completed turn
    final = np.array(env.game.final_scores, dtype=float)
    others = (final.sum() - final) / (players - 1)
    np.testing.assert_allclose(totals, (final - others) / 100)
    assert any(env.game.penalties)


def test_g29d_turn_cap_truncates_every_agent():
    env = gv.raw_env(num_players=3, max_turns=3)
    trace = play(env, seed=2, policy_seed=2)
    game = env.game
    assert game.end_reason == "turn_cap" and game.truncated and game.turn == 3
    done = [t for t in trace if t[3] or t[4]]
    assert len(done) == 3
    assert all(trunc and not term for _, _, _, term, trunc, *_ in done)
    assert all(info["end_reason"] == 4 and info["game_over"] == 1 for *_, info, _ in done)
    assert env.agents == []


def test_acting_seat_keeps_agent_selection_through_its_turn():
    env = gv.raw_env(num_players=2, max_turns=20, max_placements=3)
    trace = play(env, seed=8, policy_seed=8)
    turns = []
    for agent, _, _, term, trunc, info, action in trace:
        if term or trunc:
            continue
        if not turns or turns[-1][0] != info["turn"]:
            turns.append((info["turn"], agent, []))
        assert turns[-1][1] == agent  # one agent per turn, whatever the number of steps
        turns[-1][2].append(action)
    assert any(len(acts) > 3 for *_, acts in turns)
    assert all(len(acts) <= gv.MAX_STEPS_PER_TURN for *_, acts in turns)
    seats = [int(agent[-1]) for _, agent, _ in turns]
    assert all((b - a) % 2 == 1 for a, b in itertools.pairwise(seats))


# ---------------------------------------------------------------------- infos and state
def test_infos_have_fixed_keys_and_int_values():
    env = gv.raw_env(num_players=3, max_turns=10)
    env.reset(seed=1)
    gen = np.random.default_rng(1)
    while not env.game.game_over:
        for agent in env.agents:
            info = env.infos[agent]
            assert tuple(info) == gv.INFO_KEYS
            assert all(type(v) is int for v in info.values()), info
        acting = env.infos[env.agent_selection]
        game = env.game
        assert acting["is_acting"] == 1 and acting["phase"] == PHASES.index(game.phase)
        assert acting["placements_available"] == len(game.legal_placements())
        assert acting["box_size"] == len(game.box)
        for agent in env.agents:
            if agent != env.agent_selection:
                info = env.infos[agent]
                assert info["is_acting"] == 0 and info["phase"] == -1
                assert info["placements_available"] == 0
        obs = env.observe(env.agent_selection)
        env.step(int(gen.choice(np.flatnonzero(obs["action_mask"]))))
    assert all(tuple(i) == gv.INFO_KEYS for i in env.infos.values())


def test_state_is_full_information_and_in_its_space():
    env = gv.raw_env(num_players=3)
    env.reset(seed=6)
    state = env.state()
    assert state.dtype == np.float32 and env.state_space.contains(state)
    game = env.game
    np.testing.assert_array_equal(state[:OBS_SIZE], encode(GinnyView.from_game(game, game.current)))
    racks = state[OBS_SIZE + 4 : OBS_SIZE + 4 + 4 * 53].reshape(4, 53)
    assert (racks.sum(axis=1) > 0).tolist() == [True, True, True, False]
    assert state[OBS_SIZE : OBS_SIZE + 4].tolist() == [game.current == s for s in range(4)]
    copies = game.config.copies()
    box = state[-53:] * copies
    assert box.sum() == pytest.approx(len(game.box))
    # Re-dealing hidden tiles changes the state but no observation.
    other = permute_hidden(game, game.current, seed=1)
    before = {a: env.observe(a)["observation"] for a in env.possible_agents}
    env.game = other
    assert not np.array_equal(env.state(), state)
    acting = env.agent_selection
    np.testing.assert_array_equal(env.observe(acting)["observation"], before[acting])


# ---------------------------------------------------------------------- illegal actions
def test_raw_env_illegal_action_raises_and_changes_nothing():
    env = gv.raw_env(num_players=2)
    env.reset(seed=3)
    digest = env.game.digest()
    agent = env.agent_selection
    with pytest.raises(IllegalActionError, match=f"{agent}: .*PASS") as err:
        env.step(A.PASS)  # the box is not empty: no PASS (G14)
    assert isinstance(err.value, ValueError)
    for bad in (1864, -1, "x", 2.5):
        with pytest.raises(ValueError):
            env.step(bad)
    assert env.game.digest() == digest and env.agent_selection == agent
    legal = int(np.flatnonzero(env.observe(agent)["action_mask"])[0])
    env.step(np.int64(legal))
    env.reset(seed=3)
    env.step(np.array(legal))  # a 0-d integer array is an action too


def test_wrapped_env_illegal_action_ends_the_game_with_minus_one(caplog):
    env = gv.env(num_players=3)
    env.reset(seed=3)
    agent = env.agent_selection
    env.step(A.PASS)  # masked out: PettingZoo's TerminateIllegalWrapper ends the game
    assert "Illegal move" in caplog.text
    assert all(env.terminations.values())
    assert env.rewards[agent] == -1.0
    assert sum(env.rewards.values()) == -1.0
    with pytest.raises(AssertionError):
        env2 = gv.env(num_players=2)
        env2.reset(seed=0)
        env2.step(5000)


# ---------------------------------------------------------------------- render
def test_render_ansi_and_rgb_array():
    env = gv.raw_env(num_players=2, render_mode="ansi")
    env.reset(seed=1)
    text = env.render()
    for line in env.game.board.render().splitlines():
        assert line in text
    assert "P0:0" in text and f"P{env.game.current} rack:" in text
    env = gv.raw_env(num_players=4, render_mode="rgb_array", max_turns=8)
    shapes = set()
    for k, _ in enumerate(play(env, seed=2, policy_seed=2)):
        if k % 10 == 0:
            img = env.render()
            assert img.dtype == np.uint8
            shapes.add(img.shape)
    img = env.render()  # game over
    shapes.add(img.shape)
    assert shapes == {(*IMAGE_SIZE, 3)}
    quiet = gv.raw_env()
    quiet.reset(seed=0)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None


def test_rgb_of_a_seat_never_shows_another_rack():
    game = fresh_stacked()
    game.step(game.legal_actions()[0])  # a pending tile: drawn highlighted
    mine = render_rgb(game, seat=1)
    assert mine.shape == (*IMAGE_SIZE, 3)
    other = permute_hidden(game, 1, seed=4)  # the box only (seat 0's turn has begun)
    np.testing.assert_array_equal(render_rgb(other, seat=1), mine)
    fresh = fresh_stacked()
    before = render_rgb(fresh, seat=0)
    shuffled = permute_hidden(fresh, 0, seed=5)  # seat 1's rack re-dealt with the box
    assert shuffled.racks[1] != fresh.racks[1]
    np.testing.assert_array_equal(render_rgb(shuffled, seat=0), before)
    assert not np.array_equal(render_rgb(shuffled, seat=1), render_rgb(fresh, seat=1))
    view = GinnyView.from_game(fresh, 1)
    np.testing.assert_array_equal(render_rgb(view), render_rgb(fresh, seat=1))
    with pytest.raises(ValueError, match="seat"):
        render_rgb(view, seat=0)


# ---------------------------------------------------------------------- the encoder, by hand
def _reference_observation(view: GinnyView) -> np.ndarray:
    """The observation written out from the layout table of ``ginny_o_v0``'s docstring,
    cell by cell and slot by slot (slow and plain: the fast encoder must equal it)."""
    from gnome_env.ginny_o.board import SQUARE

    cfg = view.config
    obs = np.zeros(7944, dtype=np.float32)
    premium_of = {1: 0, 2: 1, 3: 2, 4: 3}  # YELLOW, GREEN, RED, BLUE -> y g R B
    pending = {c: (s, d) for c, s, d in view.pending} if view.acting else {}
    for c in range(225):
        at = 33 * c
        card = view.board.card[c]
        if card >= 0:
            obs[at] = 1
            obs[at + 1 + card // 13] = 1
            obs[at + 5 + card % 13] = 1
            obs[at + 18] = float(view.board.joker[c])
            obs[at + 20 + view.board.region[c]] = 1
        elif SQUARE[c] in premium_of:
            obs[at + 29 + premium_of[SQUARE[c]]] = 1
        if c in pending:
            s, declared = pending[c]
            obs[at] = obs[at + 19] = 1
            if view.slots[s] == JOKER:
                obs[at + 18] = 1
            if declared >= 0:
                obs[at + 1 + declared // 13] = obs[at + 5 + declared % 13] = 1
    kinds = view.slots if view.acting else view.rack
    for s, k in enumerate(kinds):
        at = 7425 + 55 * s
        if k >= 0:
            obs[at + k] = 1
        if view.acting:
            obs[at + 53] = float(view.slot_marked[s])
            obs[at + 54] = float(view.slot_used[s] or any(p[1] == s for p in view.pending))
    copies = cfg.copies()
    for k in range(53):
        obs[7865 + k] = view.unseen[k] / copies[k] if copies[k] else 0.0
    n = cfg.num_players
    for r in range(n):
        s = (view.seat + r) % n
        obs[7918 + 3 * r : 7921 + 3 * r] = (1, view.scores[s] / 100, view.rack_sizes[s] / 8)
    g = 7930
    obs[g] = view.box_size / cfg.tiles_in_play
    obs[g + 1] = min(view.turn / cfg.turn_cap, 1.0)
    obs[g + 2] = min(view.stall / cfg.stall_limit, 1.0) if cfg.stall_limit else 0.0
    if view.acting:
        obs[g + 3 + PHASES.index(view.phase)] = 1
        obs[g + 8 + view.direction] = 1
        obs[g + 11] = view.placements_made / cfg.max_placements
        obs[g + 12] = float(view.drew)
    obs[g + 13] = float(view.first_meld_made)
    return obs


@pytest.mark.parametrize(
    "cfg", [{"num_players": 2}, {"num_players": 4, "max_placements": 3, "jokers_per_set": 0}]
)
def test_encoder_equals_the_layout_written_out_by_hand_for_every_seat(cfg):
    """Every seat's observation at every step of random games (pending tiles, declared and
    undeclared jokers, marked slots, returns) equals the docstring's layout built by hand;
    the board block kept in the board's memo never goes stale."""
    gen = np.random.default_rng(17)
    checked = 0
    for seed in (1, 2):
        game = GinnyGame(GinnyConfig(**cfg), seed)
        while not game.game_over:
            for seat in range(game.num_players):
                view = GinnyView.from_game(game, seat, moves=seat == game.current)
                want = _reference_observation(view)
                np.testing.assert_array_equal(encode(view), want, err_msg=f"{seed} {seat}")
                checked += 1
            legal = game.legal_actions()
            game.step(int(legal[gen.integers(len(legal))]))
    assert checked > 200
