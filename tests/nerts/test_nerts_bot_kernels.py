"""The compiled Nerts bots (agents.nerts._bot_kernels) against the Python bots they rewrite.

Every decision of the compiled ``greedy`` and ``expert`` is compared with
``GreedyNertsAgent`` / ``ExpertNertsAgent`` deciding from the seat's ``NertsView``, for every
seat at every step of whole games (2-6 seats and the rule variants), with numba and, in a
child interpreter, as plain Python; and the batched call over a ``NertsVectorEngine`` equals
the per-seat Python decisions too. The Python bots are the reference: their own behaviour is
tested in ``test_nerts_bots.py`` and ``test_nerts_expert.py``."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from agents.nerts import _bot_kernels as BK
from agents.nerts.bots import GreedyNertsAgent
from agents.nerts.expert import ExpertNertsAgent, ExpertSettings
from agents.nerts.registry import make_nerts_agent
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts import _kernels as K
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.vector import KernelParams, NertsVectorEngine, write_game

KINDS = {
    "greedy": (BK.KIND_GREEDY, lambda cfg: GreedyNertsAgent(0, cfg)),
    "expert": (BK.KIND_EXPERT, lambda cfg: ExpertNertsAgent(0, cfg)),
    "expert_starve": (
        BK.KIND_EXPERT_STARVE,
        lambda cfg: ExpertNertsAgent(0, cfg, ExpertSettings(starve=True)),
    ),
    "expert_no_starve": (
        BK.KIND_EXPERT_NO_STARVE,
        lambda cfg: ExpertNertsAgent(0, cfg, ExpertSettings(starve=False)),
    ),
}

CONFIGS = [
    NertsConfig(num_players=2),
    NertsConfig(num_players=3),
    NertsConfig(num_players=4),
    NertsConfig(num_players=5),
    NertsConfig(num_players=6),
    NertsConfig(num_players=2, jokers=1),
    NertsConfig(num_players=4, jokers=2),
    NertsConfig(num_players=3, turn_size=1),
    NertsConfig(num_players=2, work_piles=3),
    NertsConfig(num_players=4, work_piles=5),
    NertsConfig(num_players=3, slide_under=False),
    NertsConfig(num_players=2, auto_call=True),
    NertsConfig(num_players=4, foundation_tie="both_keep"),
]


def _compare_games(config: NertsConfig, seed: int, games: int, max_steps: int) -> int:
    """Play ``games`` games (seats mixing random, greedy and expert, so that the positions
    differ from any one bot's); before every step compare every kind's compiled decision
    with the Python bot's for every seat. Returns the number of decisions compared."""
    params = KernelParams(config, "relative", "hand")
    prm = params.prm
    row = np.zeros(K.ROW, dtype=np.int32)
    ids = np.zeros(params.n_actions, dtype=np.int16)
    sc = np.zeros(K.SCRATCH, dtype=np.int64)
    bs = BK.empty_scratch(params.n_actions)
    refs = {name: (code, make(config)) for name, (code, make) in KINDS.items()}
    specs = ["random", "greedy", "expert"]
    compared = 0
    for k in range(games):
        game = NertsGame(config, seed + k)
        players = [
            make_nerts_agent(specs[(k + i) % 3], seed * 31 + k * 7 + i, config)
            for i in range(config.num_players)
        ]
        steps = 0
        while not game.game_over and steps < max_steps:
            if game.hand_over:
                game.next_hand()
            write_game(game, row)
            views = [NertsView.from_game(game, s) for s in range(game.num_players)]
            for s, view in enumerate(views):
                for name, (code, ref) in refs.items():
                    want = ref.decide(view)
                    got = int(BK.decide_row(row, prm, s, code, ids, sc, bs))
                    assert got == want, (
                        f"{name}, {config}, game seed {seed + k}, step {steps}, seat {s}: "
                        f"compiled {got}, Python {want}"
                    )
                    compared += 1
            game.step([bot.decide(v) for bot, v in zip(players, views, strict=True)])
            steps += 1
    return compared


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: repr(c)[:80])
def test_compiled_bots_decide_as_the_python_bots(config):
    compared = _compare_games(config, seed=4100 + config.num_players, games=3, max_steps=400)
    assert compared > 1000


def test_decide_batch_equals_the_python_bots_on_the_vector_engine():
    """Mixed seat counts in one batch, bots of every kind on some seats, left to play on:
    each step's batched decisions equal the Python bots' from each slot's game."""
    config = NertsConfig(max_steps_per_hand=300)
    engine = NertsVectorEngine(config, 6, num_players=[2, 3, 4, 5, 6], observations="none")
    engine.reset(seed=77)
    st, prm, ids, counts = engine.compiled_state()
    gen = np.random.default_rng(5)
    kinds = gen.integers(0, 5, size=(6, K.MAX_P)).astype(np.int64)
    sc = np.zeros(K.SCRATCH, dtype=np.int64)
    bs = BK.empty_scratch(engine.n_actions)
    makers = {code: make for code, make in KINDS.values()}
    checked = 0
    for _ in range(250):
        acts = engine.sample_actions(gen)
        out = acts.copy()
        BK.decide_batch(st, prm, ids, counts, kinds, sc, bs, out)
        for b in range(engine.batch_size):
            game = engine.game(b)
            for s in range(game.num_players):
                code = int(kinds[b, s])
                if code == BK.KIND_NONE:
                    assert out[b, s] == acts[b, s]  # left as it was
                    continue
                cfg = config.replace(num_players=game.num_players)
                want = makers[code](cfg).decide(NertsView.from_game(game, s))
                assert int(out[b, s]) == want
                checked += 1
        engine.step(out)
    assert checked > 2000


def test_compiled_bots_as_plain_python_decide_the_same():
    """The same comparison with numba switched off (GNOME_NO_NUMBA=1, a child interpreter):
    the kernels run as the Python they are written in."""
    code = (
        "from tests.nerts.test_nerts_bot_kernels import _compare_games\n"
        "from gnome_env.nerts import NertsConfig\n"
        "from gnome_env.core.jit import COMPILED\n"
        "assert not COMPILED\n"
        "n = _compare_games(NertsConfig(num_players=3, jokers=1), 99, 1, 150)\n"
        "print(n)\n"
    )
    env = dict(os.environ, GNOME_NO_NUMBA="1")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout.split()[-1]) > 300
