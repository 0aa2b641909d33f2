"""``render_mode="rgb_array"``: a picture of the table as a uint8 (H, W, 3) numpy array.

Drawn with numpy alone (filled rectangles and a built-in 3x5 pixel font), so it needs no
graphics library. It is a spectator's view, the same information as :meth:`Game.render`'s
text: face-down cards are drawn as backs (never their values), the draw pile as a back with
its size, the two discard piles' top cards and sizes, the card in hand and where it came
from, every seat's layout and game total.

Picture (``slots`` seat panels, 4 per row; the frame size depends only on ``slots``):

* top bar: round ``R 1/3``, the phase (``FLIP``, ``DRAW``, ``PLACE``, ``BOUNCE``,
  ``HAZARD``, ``OVER``), the turn; the draw pile (``DECK``), piles ``A`` and ``B`` (an empty
  pile is an outline), the card in ``HAND`` (outline if none) and its source;
* one panel per seat: ``P<seat>`` and ``OUT`` for the first-out player (R15), the 3x3
  layout (row-major positions 0 1 2 / 3 4 5 / 6 7 8), ``T <total>`` (the game total of the
  rounds already scored). The seat that decides now has a yellow frame; once the game is
  over the winners' panels say ``WIN`` and nobody has the frame. Panels beyond the game's
  seat count stay empty.
* card faces: numbers on white (negative values in blue), a mulligan ``M`` on green, a
  hazard ``H`` on orange; backs are dark red with a light frame.

The same state always gives the same pixels.
"""

from __future__ import annotations

import numpy as np

from gnome_env.core.draw import (  # noqa: F401  (re-exported: the names this module always had)
    ADVANCE,
    BACK,
    BACK_FRAME,
    CARD_H,
    CARD_W,
    DIM,
    FACE,
    FONT,
    FRAME,
    GAP,
    GLYPH_H,
    GLYPH_W,
    GRID_H,
    GRID_W,
    HAZARD_FACE,
    INK,
    MARGIN,
    MULLIGAN_FACE,
    NEGATIVE_INK,
    OUT_MARK,
    OUTLINE,
    PAD,
    PANEL,
    PANEL_H,
    PANEL_W,
    PANELS_PER_ROW,
    SCALE,
    TABLE,
    TEXT,
    TEXT_H,
    TOP_H,
    WIN_MARK,
    _fill,
    _frame,
    draw_text,
    text_width,
)
from gnome_env.gnoming.cards import HAZARD, MULLIGAN, card_token
from gnome_env.gnoming.config import MAX_PLAYERS
from gnome_env.gnoming.engine import Game, Phase, Source

PHASE_NAMES = {
    Phase.OPENING_FLIP: "FLIP",
    Phase.DRAW: "DRAW",
    Phase.PLACE: "PLACE",
    Phase.DISPLACED: "BOUNCE",
    Phase.HAZARD_FLIP: "HAZARD",
    Phase.GAME_OVER: "OVER",
}
SOURCE_NAMES = {
    Source.NONE: "",
    Source.DRAW_PILE: "DECK",
    Source.PILE_A: "PILE A",
    Source.PILE_B: "PILE B",
    Source.DISPLACED: "DISPL",
}


def image_size(slots: int) -> tuple[int, int]:
    """``(height, width)`` of the picture with room for ``slots`` seat panels."""
    columns = min(slots, PANELS_PER_ROW)
    rows = -(-slots // PANELS_PER_ROW)
    width = max(MARGIN + columns * (PANEL_W + MARGIN), 420)
    height = TOP_H + rows * (PANEL_H + MARGIN)
    return height, width


def draw_card(img: np.ndarray, y: int, x: int, code: int | None) -> None:
    """A card at (y, x): its face, or its back if ``code`` is None."""
    if code is None:
        _fill(img, y, x, CARD_H, CARD_W, BACK)
        _frame(img, y + 3, x + 3, CARD_H - 6, CARD_W - 6, BACK_FRAME)
        _frame(img, y + 7, x + 7, CARD_H - 14, CARD_W - 14, BACK_FRAME)
        return
    face, ink = FACE, INK
    if code == MULLIGAN:
        face = MULLIGAN_FACE
    elif code == HAZARD:
        face = HAZARD_FACE
    elif code < 0:
        ink = NEGATIVE_INK
    _fill(img, y, x, CARD_H, CARD_W, face)
    _frame(img, y, x, CARD_H, CARD_W, INK)
    token = card_token(code)
    draw_text(img, y + (CARD_H - TEXT_H) // 2, x + (CARD_W - text_width(token)) // 2, token, ink)


def draw_slot(img: np.ndarray, y: int, x: int) -> None:
    """The outline of a place where no card is (an empty pile, an empty hand)."""
    _frame(img, y, x, CARD_H, CARD_W, OUTLINE)


# ---------------------------------------------------------------------- the table
def render_rgb(game: Game, slots: int | None = None) -> np.ndarray:
    """The table of ``game`` as a new uint8 array (H, W, 3); see the module docstring.

    ``slots`` (``game.num_players`` .. 7, default ``game.num_players``) fixes the number of
    seat panels and so the picture's size, whatever the game's seat count.
    """
    n = game.num_players
    slots = n if slots is None else slots
    if isinstance(slots, bool) or not isinstance(slots, int) or not n <= slots <= MAX_PLAYERS:
        raise ValueError(
            f"slots={slots!r} is not allowed: must be an integer from {n} (the game's seats) "
            f"to {MAX_PLAYERS}"
        )
    height, width = image_size(slots)
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = TABLE
    _draw_top(img, game)
    over = game.phase == Phase.GAME_OVER
    winners = set(game.winners()) if over else set()
    for seat in range(n):
        row, col = divmod(seat, PANELS_PER_ROW)
        y = TOP_H + row * (PANEL_H + MARGIN)
        x = MARGIN + col * (PANEL_W + MARGIN)
        _draw_seat(img, y, x, game, seat, deciding=not over and seat == game.current_seat)
        if seat in winners:
            draw_text(img, y + PAD, x + PANEL_W - PAD - text_width("WIN"), "WIN", WIN_MARK)
    return img


def _draw_top(img: np.ndarray, game: Game) -> None:
    y = MARGIN
    card_y = y + TEXT_H + 4
    count_y = card_y + CARD_H + 4
    rounds = game.config.rounds
    shown_round = min(game.round + 1, rounds)
    draw_text(img, y, MARGIN, f"R {shown_round}/{rounds}", TEXT)
    draw_text(img, card_y, MARGIN, PHASE_NAMES[game.phase], TEXT)
    if game.phase not in (Phase.GAME_OVER, Phase.OPENING_FLIP):
        draw_text(img, card_y + TEXT_H + 6, MARGIN, f"TURN {game.turns_played + 1}", DIM)
    x = 120
    draw_text(img, y, x, "DECK", DIM)
    if game.draw_pile:
        draw_card(img, card_y, x, None)
    else:
        draw_slot(img, card_y, x)
    draw_text(img, count_y, x, str(len(game.draw_pile)), TEXT)
    for i, name in enumerate("AB"):
        x = 176 + 50 * i
        pile = game.piles[i]
        draw_text(img, y, x + (CARD_W - text_width(name)) // 2, name, DIM)
        if pile:
            draw_card(img, card_y, x, pile[-1])
        else:
            draw_slot(img, card_y, x)
        draw_text(img, count_y, x, str(len(pile)), TEXT)
    x = 300
    draw_text(img, y, x, "HAND", DIM)
    if game.held is None:
        draw_slot(img, card_y, x)
    else:
        draw_card(img, card_y, x, game.held)
        draw_text(img, count_y, x, SOURCE_NAMES[game.held_source], TEXT)


def _draw_seat(img: np.ndarray, y: int, x: int, game: Game, seat: int, deciding: bool) -> None:
    _fill(img, y, x, PANEL_H, PANEL_W, PANEL)
    if deciding:
        _frame(img, y, x, PANEL_H, PANEL_W, FRAME, 3)
    draw_text(img, y + PAD, x + PAD, f"P{seat}", FRAME if deciding else TEXT)
    if game.first_out == seat:
        draw_text(img, y + PAD, x + PAD + text_width(f"P{seat}") + 8, "OUT", OUT_MARK)
    grid_y = y + PAD + TEXT_H + PAD
    for q, code in enumerate(game.visible_layout(seat)):
        r, c = divmod(q, 3)
        draw_card(img, grid_y + r * (CARD_H + GAP), x + PAD + c * (CARD_W + GAP), code)
    draw_text(img, grid_y + GRID_H + PAD, x + PAD, f"T {game.totals[seat]}", TEXT)
