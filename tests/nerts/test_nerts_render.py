"""The Nerts ``rgb_array`` picture (gnome_env.nerts.render_image): one frame size per config
for a whole game, a layout that uses the frame at every player count, and words a newcomer
reads, found in the pixels by drawing the expected text with the same label font and
looking for it exactly."""

from __future__ import annotations

import numpy as np
import pytest

from agents.nerts.registry import make_nerts_agent
from gnome_env.core.draw import DIM, INK, LABEL_H, TABLE, TEXT, WIN_MARK, draw_label, label_width
from gnome_env.nerts import NertsConfig, NertsGame
from gnome_env.nerts.actions import CALL, WAIT, action_table
from gnome_env.nerts.information import NertsView
from gnome_env.nerts.records import GameLog
from gnome_env.nerts.render_image import BLOCKED, SEAT_COLOURS, image_size, render_rgb
from gnome_env.nerts.testing import build_game, step_with_priority


def find_text(img: np.ndarray, text: str, colour: tuple[int, int, int]) -> list[tuple[int, int]]:
    """Top-left corners where ``text`` is drawn in ``colour`` by ``draw_label``: every pixel
    of its glyphs has the colour, and no other pixel of its box has it."""
    stamp = np.zeros((LABEL_H, label_width(text), 3), dtype=np.uint8)
    draw_label(stamp, 0, 0, text, (255, 255, 255))
    mask = np.all(stamp == 255, axis=-1)
    dy, dx = (int(v[0]) for v in np.nonzero(mask))
    hits = np.all(img == np.array(colour, dtype=np.uint8), axis=-1)
    h, w = mask.shape
    found = []
    for y, x in np.argwhere(hits):
        top, left = y - dy, x - dx
        if top < 0 or left < 0 or top + h > img.shape[0] or left + w > img.shape[1]:
            continue
        if np.array_equal(hits[top : top + h, left : left + w], mask):
            found.append((int(top), int(left)))
    return found


def frame_of(game: NertsGame) -> np.ndarray:
    return render_rgb(NertsView.from_game(game, 0), game.end_reason if game.hand_over else None)


def test_find_text_can_fail():
    img = np.zeros((40, 300, 3), dtype=np.uint8)
    draw_label(img, 5, 7, "stock 31", TEXT)
    assert find_text(img, "stock 31", TEXT) == [(5, 7)]
    assert find_text(img, "stock 35", TEXT) == [] and find_text(img, "stock 31", DIM) == []


# ---------------------------------------------------------------------- the frame
@pytest.mark.parametrize(
    "rules",
    [
        {"num_players": 2},
        {"num_players": 4},
        {"num_players": 6, "jokers": 2, "work_piles": 5},
        {"num_players": 3, "work_piles": 3},
    ],
)
def test_one_frame_size_for_a_whole_game(rules):
    config = NertsConfig(max_hands=2, **rules)
    log = GameLog(config, 3)
    shapes = set()
    agents = [make_nerts_agent("greedy", s, config) for s in range(config.num_players)]
    game = log.game
    while not game.game_over:
        if game.hand_over:
            shapes.add(frame_of(game).shape)  # the hand's end
            log.next_hand()
        if game.steps % 15 == 0:
            shapes.add(frame_of(game).shape)
        log.step([a.decide(NertsView.from_game(game, s)) for s, a in enumerate(agents)])
    shapes.add(frame_of(game).shape)
    assert shapes == {(*image_size(config), 3)}


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_the_layout_uses_the_frame_at_every_player_count(n):
    """Blocks of 24 x 24 pixels with nothing drawn (table green only) are under a quarter of
    the frame (the former 4-player picture had a third of its blocks empty)."""
    game = NertsGame(NertsConfig(num_players=n), 1)
    for _ in range(30):
        game.step([game.legal_actions(s)[-1] for s in range(n)])
    img = frame_of(game)
    background = np.all(img == TABLE, axis=-1)
    b = 24
    cells = [
        background[y : y + b, x : x + b].all()
        for y in range(0, img.shape[0] - b + 1, b)
        for x in range(0, img.shape[1] - b + 1, b)
    ]
    assert np.mean(cells) < 0.25
    assert img.shape[0] <= 1200 and img.shape[1] <= 1600  # and the frame stays a video size


# ---------------------------------------------------------------------- words
@pytest.mark.parametrize("n", [2, 4, 6])
def test_a_fresh_deal_is_written_in_words(n):
    img = frame_of(NertsGame(NertsConfig(num_players=n), 2))
    assert len(find_text(img, "Nerts pile", TEXT)) == n
    assert len(find_text(img, "13 left (-26)", DIM)) == n  # N5 deal, N30 penalty
    assert len(find_text(img, "35 cards", DIM)) == n  # the stock
    assert len(find_text(img, "hand score -26", TEXT)) == n
    assert len(find_text(img, "waiting for the first step", TEXT)) == n
    assert len(find_text(img, "work piles", DIM)) == n
    for s in range(n):
        assert find_text(img, f"Player {s}", SEAT_COLOURS[s])
    head = "Nerts · hand 0 · step 0 (at most 1000) · the game ends at 100 points"
    assert len(find_text(img, head, TEXT)) == 1
    assert len(find_text(img, "nobody has played yet;", DIM)) == 1
    assert len(find_text(img, "foundations (", TEXT)) == 1


def test_n20_n21_a_blocked_play_is_written_in_red_and_the_winner_is_named():
    config = NertsConfig(num_players=2)
    k = step_with_priority(config, (1, 0))
    game = build_game(
        config,
        seats={0: {"nerts": "5H", "work": ["TS", "", "", ""]}, 1: {"waste": "5H"}},
        foundations=["p1:AH..4H"],
        steps=k,
    )
    table = action_table(config)
    game.step([table.to_slot(0, 0), table.to_slot(1, 0)])
    img = frame_of(game)
    assert find_text(img, "blocked: player 1 got to foundation", BLOCKED)  # wrapped:
    assert find_text(img, "0 first, so 5♥ stays in the Nerts", BLOCKED)
    assert find_text(img, "played 5♥ from the waste onto", DIM)  # then "foundation 0"
    assert find_text(img, "last step: ties on a foundation went to player 1, then 0 (N20)", DIM)
    assert find_text(img, "10♠", INK)  # the card face of work pile 0
    # the foundation's top card and, under it, its owner in player 1's colour
    assert find_text(img, "p1", SEAT_COLOURS[1])


def test_n22_n26_the_end_of_a_hand_and_the_remedy_are_written():
    config = NertsConfig(num_players=2)
    game = build_game(config, seats={0: {"nerts": "-"}})
    game.step([CALL, WAIT])
    img = frame_of(game)
    assert find_text(img, "HAND OVER: Nerts was called (N22)", WIN_MARK)
    assert find_text(img, "called Nerts! (the hand ends with", (255, 140, 60))
    stuck = build_game(config, seats={s: {"stock": "", "rest": "nerts"} for s in (0, 1)})
    stuck.step([WAIT, WAIT])
    assert stuck.remedy_done
    assert find_text(frame_of(stuck), "no progress: the table was stuck, so every stock", DIM)
