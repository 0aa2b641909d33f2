"""Drawing for the ``rgb_array`` renders of every game: a 3x5 pixel font, colours and
filled rectangles on uint8 numpy arrays -- no graphics library. Game-independent: the
Gnoming picture (:mod:`gnome_env.gnoming.render_image`) and the Nerts picture
(:mod:`gnome_env.nerts.render_image`) both draw with it."""

from __future__ import annotations

import numpy as np

# ---------------------------------------------------------------------- the font
_GLYPHS = {
    "0": ("###", "#.#", "#.#", "#.#", "###"),
    "1": (".#.", "##.", ".#.", ".#.", "###"),
    "2": ("###", "..#", "###", "#..", "###"),
    "3": ("###", "..#", ".##", "..#", "###"),
    "4": ("#.#", "#.#", "###", "..#", "..#"),
    "5": ("###", "#..", "###", "..#", "###"),
    "6": ("###", "#..", "###", "#.#", "###"),
    "7": ("###", "..#", "..#", ".#.", ".#."),
    "8": ("###", "#.#", "###", "#.#", "###"),
    "9": ("###", "#.#", "###", "..#", "###"),
    "A": (".#.", "#.#", "###", "#.#", "#.#"),
    "B": ("##.", "#.#", "##.", "#.#", "##."),
    "C": (".##", "#..", "#..", "#..", ".##"),
    "D": ("##.", "#.#", "#.#", "#.#", "##."),
    "E": ("###", "#..", "##.", "#..", "###"),
    "F": ("###", "#..", "##.", "#..", "#.."),
    "G": (".##", "#..", "#.#", "#.#", ".##"),
    "H": ("#.#", "#.#", "###", "#.#", "#.#"),
    "I": ("###", ".#.", ".#.", ".#.", "###"),
    "J": ("..#", "..#", "..#", "#.#", ".#."),
    "K": ("#.#", "#.#", "##.", "#.#", "#.#"),
    "L": ("#..", "#..", "#..", "#..", "###"),
    "M": ("#.#", "###", "###", "#.#", "#.#"),
    "N": ("##.", "#.#", "#.#", "#.#", "#.#"),
    "O": (".#.", "#.#", "#.#", "#.#", ".#."),
    "P": ("##.", "#.#", "##.", "#..", "#.."),
    "Q": (".#.", "#.#", "#.#", "##.", ".##"),
    "R": ("##.", "#.#", "##.", "#.#", "#.#"),
    "S": (".##", "#..", ".#.", "..#", "##."),
    "T": ("###", ".#.", ".#.", ".#.", ".#."),
    "U": ("#.#", "#.#", "#.#", "#.#", "###"),
    "V": ("#.#", "#.#", "#.#", "#.#", ".#."),
    "W": ("#.#", "#.#", "###", "###", "#.#"),
    "X": ("#.#", "#.#", ".#.", "#.#", "#.#"),
    "Y": ("#.#", "#.#", ".#.", ".#.", ".#."),
    "Z": ("###", "..#", ".#.", "#..", "###"),
    "-": ("...", "...", "###", "...", "..."),
    "/": ("..#", "..#", ".#.", "#..", "#.."),
    " ": ("...", "...", "...", "...", "..."),
    "?": ("###", "..#", ".#.", "...", ".#."),
}
FONT = {ch: np.array([[c == "#" for c in row] for row in rows]) for ch, rows in _GLYPHS.items()}
GLYPH_W, GLYPH_H = 3, 5

# ---------------------------------------------------------------------- geometry and colours
SCALE = 2  # font pixels per glyph dot
ADVANCE = (GLYPH_W + 1) * SCALE  # text: one character every 8 pixels
TEXT_H = GLYPH_H * SCALE
CARD_W, CARD_H, GAP = 30, 40, 4
GRID_W, GRID_H = 3 * CARD_W + 2 * GAP, 3 * CARD_H + 2 * GAP
PAD = 6
PANEL_W = GRID_W + 2 * PAD
PANEL_H = PAD + TEXT_H + PAD + GRID_H + PAD + TEXT_H + PAD
PANELS_PER_ROW = 4
MARGIN = 8
TOP_H = MARGIN + TEXT_H + 4 + CARD_H + 4 + TEXT_H + MARGIN

TABLE = (20, 90, 40)
PANEL = (14, 66, 28)
FRAME = (255, 210, 0)
TEXT = (235, 235, 225)
DIM = (150, 180, 150)
FACE = (245, 245, 235)
MULLIGAN_FACE = (190, 235, 190)
HAZARD_FACE = (255, 170, 80)
INK = (20, 20, 20)
NEGATIVE_INK = (25, 60, 200)
BACK = (140, 25, 40)
BACK_FRAME = (230, 200, 200)
OUTLINE = (120, 150, 120)
OUT_MARK = (255, 140, 60)
WIN_MARK = (120, 220, 255)


# ---------------------------------------------------------------------- drawing primitives
def fill(img: np.ndarray, y: int, x: int, h: int, w: int, colour: tuple[int, int, int]) -> None:
    img[y : y + h, x : x + w] = colour


def frame(
    img: np.ndarray, y: int, x: int, h: int, w: int, colour: tuple[int, int, int], t: int = 1
) -> None:
    fill(img, y, x, t, w, colour)
    fill(img, y + h - t, x, t, w, colour)
    fill(img, y, x, h, t, colour)
    fill(img, y, x + w - t, h, t, colour)


def text_width(text: str) -> int:
    """Width in pixels of ``text`` drawn by :func:`draw_text`."""
    return max(len(text) * ADVANCE - SCALE, 0)


def draw_text(img: np.ndarray, y: int, x: int, text: str, colour: tuple[int, int, int]) -> None:
    """Draw ``text`` (upper-cased; unknown characters as ``?``) with its top left at (y, x)."""
    for i, ch in enumerate(text.upper()):
        glyph = FONT.get(ch, FONT["?"])
        big = np.kron(glyph, np.ones((SCALE, SCALE), dtype=bool))
        x0 = x + i * ADVANCE
        region = img[y : y + TEXT_H, x0 : x0 + GLYPH_W * SCALE]
        region[big[: region.shape[0], : region.shape[1]]] = colour


_fill, _frame = fill, frame  # the names the renders were written with
