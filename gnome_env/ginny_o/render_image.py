"""Ginny-O ``render_mode="rgb_array"``: the board and one seat's rack as a uint8 (H, W, 3) array.

Drawn with numpy alone, with the primitives and the 3x5 pixel font of :mod:`gnome_env.core.draw`
(as the Gnoming and Nerts pictures; no graphics library is needed). Everything is drawn
from one seat's :class:`~gnome_env.ginny_o.information.GinnyView` (G17), so the picture
shows that seat's rack and never another's.

Picture (one frame size, :data:`IMAGE_SIZE`, for every game and config):

* top line: ``TURN t/cap  BOX b`` and who is to act, with the phase (``GAME OVER`` at the
  end, with the end reason when a game was given); second line: every seat's score and
  rack size (``P1 44 R7``), the acting seat in yellow; once the game is over the final
  scores (G30) and the winners (G31) in blue, when a game was given;
* the 15 x 15 board (G6) with row and column numbers: plain squares beige, premium squares
  coloured -- red (double meld), blue (triple meld), yellow (double tile), green (triple
  tile) -- with their letter, and the centre pink with a star; a tile shows its card
  (``7H``, ``TS``; red suits in red ink); a joker is lavender with a star in its corner and
  its declared card in purple (``*?`` while it waits for its declaration); tiles placed this
  turn and not committed yet have an orange frame;
* the seat's rack: ``P<seat> RACK`` then its slots with their numbers. For the acting seat
  these are the turn's slots (RL notes): a used slot is grey, a pending one grey with an
  orange frame, one marked for return has a cyan frame. For a seat that is not acting, its
  rack sorted.
"""

from __future__ import annotations

import numpy as np

from gnome_env.core.draw import (
    ADVANCE,
    DIM,
    FACE,
    FRAME,
    GLYPH_H,
    GLYPH_W,
    INK,
    MARGIN,
    SCALE,
    TABLE,
    TEXT,
    TEXT_H,
    WIN_MARK,
    draw_text,
    fill,
    frame,
    text_width,
)
from gnome_env.ginny_o.board import BLUE, GREEN, LAYOUT, RED, SIZE, SQUARE, START, YELLOW, cell
from gnome_env.ginny_o.cards import JOKER, RANKS, SUITS
from gnome_env.ginny_o.config import MAX_PLAYERS, MAX_SLOTS
from gnome_env.ginny_o.engine import GinnyGame
from gnome_env.ginny_o.information import GinnyView

CELL = 28  # board pitch in pixels
TILE = CELL - 4  # a tile inside its square
LINE = TEXT_H + 4
SEAT_COLUMN = 110
SLOT_PITCH = CELL + 6
GRID_X = MARGIN + 18
GRID_Y = MARGIN + 2 * LINE + 4 + LINE
RACK_Y = GRID_Y + SIZE * CELL + 8
WIDTH = GRID_X + SIZE * CELL + MARGIN
HEIGHT = RACK_Y + LINE + CELL + 2 + TEXT_H + MARGIN
#: ``(height, width)`` of every frame.
IMAGE_SIZE = (HEIGHT, WIDTH)
assert MARGIN + MAX_PLAYERS * SEAT_COLUMN <= WIDTH  # every seat's score fits on one line

SQUARE_COLOUR = {
    0: (214, 200, 160),  # plain
    YELLOW: (235, 205, 70),
    GREEN: (70, 165, 80),
    RED: (205, 55, 50),
    BLUE: (60, 100, 205),
    START: (240, 150, 165),  # the centre
}
JOKER_FACE = (222, 205, 245)
JOKER_INK = (120, 40, 170)
RED_INK = (200, 20, 30)
USED_FACE = (165, 165, 155)
USED_INK = (80, 80, 75)
PENDING = (255, 140, 0)
MARKED = (80, 210, 255)
GRID_LINE = (60, 70, 50)

#: Glyphs the shared font lacks (drawn here, at the font's scale).
_EXTRA = {"*": ("#.#", ".#.", "###", ".#.", "#.#")}
_EXTRA_GLYPHS = {
    ch: np.kron(
        np.array([[c == "#" for c in row] for row in rows]), np.ones((SCALE, SCALE), dtype=bool)
    )
    for ch, rows in _EXTRA.items()
}


def _text(img: np.ndarray, y: int, x: int, text: str, colour: tuple[int, int, int]) -> None:
    """:func:`gnome_env.core.draw.draw_text`, plus the glyphs of :data:`_EXTRA`."""
    for i, ch in enumerate(text):
        x0 = x + i * ADVANCE
        glyph = _EXTRA_GLYPHS.get(ch)
        if glyph is None:
            draw_text(img, y, x0, ch, colour)
            continue
        region = img[y : y + TEXT_H, x0 : x0 + GLYPH_W * SCALE]
        region[glyph[: region.shape[0], : region.shape[1]]] = colour


def _star(img: np.ndarray, y: int, x: int, colour: tuple[int, int, int]) -> None:
    """A small (3x5 pixel) star, for a joker's corner."""
    glyph = np.array([[c == "#" for c in row] for row in _EXTRA["*"]])
    region = img[y : y + GLYPH_H, x : x + GLYPH_W]
    region[glyph[: region.shape[0], : region.shape[1]]] = colour


def _card_text(card: int) -> str:
    return RANKS[card % 13] + SUITS[card // 13]


def _ink(card: int) -> tuple[int, int, int]:
    return RED_INK if card // 13 in (1, 2) else INK  # diamonds and hearts


def draw_tile(
    img: np.ndarray,
    y: int,
    x: int,
    kind: int,
    card: int,
    *,
    used: bool = False,
    pending: bool = False,
    marked: bool = False,
) -> None:
    """A tile of ``kind`` reading as ``card`` (-1: a joker not declared yet, or a joker on
    a rack) with its top left at (y, x)."""
    joker = kind == JOKER
    face = USED_FACE if used else JOKER_FACE if joker else FACE
    fill(img, y, x, TILE, TILE, face)
    frame(img, y, x, TILE, TILE, INK)
    if joker:
        text, ink = ("*?" if pending else "*") if card < 0 else _card_text(card), JOKER_INK
        if card >= 0:
            _star(img, y + 2, x + 2, JOKER_INK)
    else:
        text, ink = _card_text(card), _ink(card)
    if used:
        ink = USED_INK if not joker else JOKER_INK
    _text(img, y + (TILE - TEXT_H) // 2 + 1, x + (TILE - text_width(text)) // 2, text, ink)
    if pending:
        frame(img, y - 1, x - 1, TILE + 2, TILE + 2, PENDING, 3)
    elif marked:
        frame(img, y - 1, x - 1, TILE + 2, TILE + 2, MARKED, 3)


def render_rgb(game_or_view: GinnyGame | GinnyView, seat: int | None = None) -> np.ndarray:
    """The board and ``seat``'s rack (default: the acting seat; for a view, its own seat) as
    a new uint8 array of shape ``(*IMAGE_SIZE, 3)``. Only one seat's information is drawn
    (G17); a game's final scores and winners are added once it is over (they are public)."""
    final: list[int] | None = None
    winners: tuple[int, ...] = ()
    end = ""
    if isinstance(game_or_view, GinnyView):
        view = game_or_view
        if seat is not None and seat != view.seat:
            raise ValueError(f"seat={seat!r}: a view is drawn for its own seat {view.seat}")
    elif isinstance(game_or_view, GinnyGame):
        game = game_or_view
        view = GinnyView.from_game(game, game.current if seat is None else seat)
        if game.game_over:
            final, winners = list(game.final_scores or []), game.winners()
            end = (game.end_reason or "").replace("_", " ")
    else:
        raise ValueError(
            f"render_rgb needs a GinnyGame or a GinnyView, got {type(game_or_view).__name__}"
        )
    img = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    img[:] = TABLE
    _draw_header(img, view, final, winners, end)
    _draw_board(img, view)
    _draw_rack(img, view)
    return img


def _draw_header(
    img: np.ndarray,
    view: GinnyView,
    final: list[int] | None,
    winners: tuple[int, ...],
    end: str,
) -> None:
    cfg = view.config
    draw_text(img, MARGIN, MARGIN, f"TURN {view.turn}/{cfg.turn_cap}  BOX {view.box_size}", TEXT)
    if view.game_over:
        right = f"GAME OVER {end}".rstrip()
    else:
        right = f"P{view.current} TO ACT"
        if view.acting:
            right += " " + view.phase.replace("_", " ")
    draw_text(img, MARGIN, WIDTH - MARGIN - text_width(right), right, FRAME)
    y = MARGIN + LINE
    for s in range(cfg.num_players):
        x = MARGIN + s * SEAT_COLUMN
        if final is not None:
            text = f"P{s} {final[s]}"
            colour = WIN_MARK if s in winners else TEXT
        else:
            text = f"P{s} {view.scores[s]} R{view.rack_sizes[s]}"
            colour = FRAME if s == view.current and not view.game_over else TEXT
        draw_text(img, y, x, text, colour)


def _draw_board(img: np.ndarray, view: GinnyView) -> None:
    label_y = GRID_Y - LINE
    for i in range(SIZE):
        num = str(i)
        draw_text(img, label_y, GRID_X + i * CELL + (CELL - text_width(num)) // 2, num, DIM)
        draw_text(img, GRID_Y + i * CELL + (CELL - TEXT_H) // 2, MARGIN, num, DIM)
    fill(img, GRID_Y - 1, GRID_X - 1, SIZE * CELL + 1, SIZE * CELL + 1, GRID_LINE)
    board = view.board
    pending = {c: (s, card) for c, s, card in view.pending}
    for r in range(SIZE):
        for col in range(SIZE):
            c = cell(r, col)
            y, x = GRID_Y + r * CELL, GRID_X + col * CELL
            square = SQUARE[c]
            colour = SQUARE_COLOUR[square]
            fill(img, y, x, CELL - 1, CELL - 1, colour)
            ty, tx = y + 1, x + 1
            if board.card[c] >= 0:
                kind = JOKER if board.joker[c] else board.card[c]
                draw_tile(img, ty, tx, kind, board.card[c])
            elif c in pending:
                s, card = pending[c]
                draw_tile(img, ty, tx, view.slots[s], card, pending=True)
            elif square != 0:
                mark = "*" if square == START else LAYOUT[r][col].upper()
                ink = tuple(int(v * 0.55) for v in colour)
                if square == START:
                    ink = (255, 255, 255)
                _text(
                    img, y + (CELL - TEXT_H) // 2, x + (CELL - 1 - GLYPH_W * SCALE) // 2, mark, ink
                )


def _draw_rack(img: np.ndarray, view: GinnyView) -> None:
    label = f"P{view.seat} RACK"
    if view.acting:
        label += "  TO ACT"
    draw_text(img, RACK_Y, GRID_X, label, TEXT)
    y = RACK_Y + LINE
    if view.acting:
        kinds = list(view.slots)
        pending_slots = {s for _, s, _ in view.pending}
        used = list(view.slot_used)
        marked = list(view.slot_marked)
    else:
        kinds = list(view.rack) + [-1] * (MAX_SLOTS - len(view.rack))
        pending_slots = set()
        used = marked = [False] * MAX_SLOTS
    for s in range(MAX_SLOTS):
        x = GRID_X + s * SLOT_PITCH
        k = kinds[s] if s < len(kinds) else -1
        if k < 0:
            frame(img, y, x, TILE, TILE, DIM)
        else:
            draw_tile(
                img,
                y,
                x,
                k,
                -1 if k == JOKER else k,
                used=used[s] or s in pending_slots,
                marked=marked[s],
            )
            if s in pending_slots:
                frame(img, y - 1, x - 1, TILE + 2, TILE + 2, PENDING, 3)
        draw_text(img, y + TILE + 3, x + (TILE - text_width(str(s))) // 2, str(s), DIM)


__all__ = ["IMAGE_SIZE", "draw_tile", "render_rgb"]
