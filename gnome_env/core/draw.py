"""Drawing for the ``rgb_array`` renders of every game: a 3x5 pixel font, a 5x9 label font
with lower case and card suits (:func:`draw_label`), colours and filled rectangles on uint8
numpy arrays -- no graphics library. Game-independent: the
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


# ---------------------------------------------------------------------- the label font
# A 5x9 pixel font with lower case, for pictures that explain themselves in words: capitals
# and digits use rows 0-6, lower case has its x-height in rows 2-6 and its descenders in
# rows 7-8. Drawn at LABEL_SCALE (2): 10x18 pixels a glyph, one character every 12 pixels.
_LABEL_ROWS = {
    "A": ".###. #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #...# .###.",
    "D": "####. #...# #...# #...# #...# #...# ####.",
    "E": "##### #.... #.... ####. #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #....",
    "G": ".###. #...# #.... #.### #...# #...# .####",
    "H": "#...# #...# #...# ##### #...# #...# #...#",
    "I": ".###. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "J": "..### ...#. ...#. ...#. ...#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...#",
    "N": "#...# #...# ##..# #.#.# #..## #...# #...#",
    "O": ".###. #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# ####. #.#.. #..#. #...#",
    "S": ".###. #...# #.... .###. ....# #...# .###.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. ..#..",
    "W": "#...# #...# #...# #.#.# #.#.# #.#.# .#.#.",
    "X": "#...# #...# .#.#. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #####",
    "a": "..... ..... .###. ....# .#### #...# .####",
    "b": "#.... #.... ####. #...# #...# #...# ####.",
    "c": "..... ..... .#### #.... #.... #.... .####",
    "d": "....# ....# .#### #...# #...# #...# .####",
    "e": "..... ..... .###. #...# ##### #.... .###.",
    "f": "..##. .#..# .#... ###.. .#... .#... .#...",
    "g": "..... ..... .#### #...# #...# #...# .#### ....# .###.",
    "h": "#.... #.... #.##. ##..# #...# #...# #...#",
    "i": "..#.. ..... .##.. ..#.. ..#.. ..#.. .###.",
    "j": "...#. ..... ..##. ...#. ...#. ...#. ...#. #..#. .##..",
    "k": "#.... #.... #..#. #.#.. ##... #.#.. #..#.",
    "l": ".##.. ..#.. ..#.. ..#.. ..#.. ..#.. .###.",
    "m": "..... ..... ##.#. #.#.# #.#.# #.#.# #.#.#",
    "n": "..... ..... #.##. ##..# #...# #...# #...#",
    "o": "..... ..... .###. #...# #...# #...# .###.",
    "p": "..... ..... ####. #...# #...# #...# ####. #.... #....",
    "q": "..... ..... .#### #...# #...# #...# .#### ....# ....#",
    "r": "..... ..... #.##. ##..# #.... #.... #....",
    "s": "..... ..... .#### #.... .###. ....# ####.",
    "t": ".#... .#... ###.. .#... .#... .#..# ..##.",
    "u": "..... ..... #...# #...# #...# #..## .##.#",
    "v": "..... ..... #...# #...# #...# .#.#. ..#..",
    "w": "..... ..... #...# #...# #.#.# #.#.# .#.#.",
    "x": "..... ..... #...# .#.#. ..#.. .#.#. #...#",
    "y": "..... ..... #...# #...# #...# #...# .#### ....# .###.",
    "z": "..... ..... ##### ...#. ..#.. .#... #####",
    "0": ".###. #...# #..## #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. ..#.. ..#.. ..#.. ..#.. .###.",
    "2": ".###. #...# ....# ...#. ..#.. .#... #####",
    "3": "##### ...#. ..#.. ...#. ....# #...# .###.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#.",
    "5": "##### #.... ####. ....# ....# #...# .###.",
    "6": "..##. .#... #.... ####. #...# #...# .###.",
    "7": "##### ....# ...#. ..#.. .#... .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# .###.",
    "9": ".###. #...# #...# .#### ....# ...#. .##..",
    " ": "",
    ".": "..... ..... ..... ..... ..... .##.. .##..",
    ",": "..... ..... ..... ..... ..... .##.. .##.. ..#.. .#...",
    ":": "..... .##.. .##.. ..... ..... .##.. .##..",
    ";": "..... .##.. .##.. ..... ..... .##.. .##.. ..#.. .#...",
    "!": "..#.. ..#.. ..#.. ..#.. ..#.. ..... ..#..",
    "?": ".###. #...# ....# ...#. ..#.. ..... ..#..",
    "-": "..... ..... ..... .###.",
    "+": "..... ..#.. ..#.. ##### ..#.. ..#..",
    "=": "..... ..... ##### ..... #####",
    "/": "....# ....# ...#. ..#.. .#... #.... #....",
    "(": "...#. ..#.. .#... .#... .#... ..#.. ...#.",
    ")": ".#... ..#.. ...#. ...#. ...#. ..#.. .#...",
    "[": ".###. .#... .#... .#... .#... .#... .###.",
    "]": ".###. ...#. ...#. ...#. ...#. ...#. .###.",
    "'": "..#.. ..#.. .#...",
    '"': ".#.#. .#.#.",
    "#": ".#.#. .#.#. ##### .#.#. ##### .#.#. .#.#.",
    "%": "##..# ##..# ...#. ..#.. .#... #..## #..##",
    ">": ".#... ..#.. ...#. ....# ...#. ..#.. .#...",
    "<": "...#. ..#.. .#... #.... .#... ..#.. ...#.",
    "_": "..... ..... ..... ..... ..... ..... #####",
    "*": "..... ..#.. #.#.# .###. #.#.# ..#..",
    "&": ".##.. #..#. #.#.. .#... #.#.# #..#. .##.#",
    "×": "..... #...# .#.#. ..#.. .#.#. #...#",
    "·": "..... ..... ..... .##.. .##..",
    "→": "..... ..#.. ...#. ##### ...#. ..#..",
    "…": "..... ..... ..... ..... ..... ..... #.#.#",
    "♣": ".###. .###. ##.## ##### ##.## ..#.. .###.",
    "♦": "..#.. .###. ##### ##### .###. ..#..",
    "♥": ".#.#. ##### ##### ##### .###. ..#..",
    "♠": "..#.. .###. ##### ##### #.#.# ..#.. .###.",
}
LABEL_W, LABEL_ROWS, LABEL_SCALE = 5, 9, 2


def _label_glyph(rows: str) -> np.ndarray:
    lines = rows.split()
    lines += ["." * LABEL_W] * (LABEL_ROWS - len(lines))
    return np.array([[c == "#" for c in line] for line in lines])


LABEL_FONT = {ch: _label_glyph(rows) for ch, rows in _LABEL_ROWS.items()}
LABEL_FONT["−"] = LABEL_FONT["-"]  # the minus sign
LABEL_H = LABEL_ROWS * LABEL_SCALE  #: pixels from the top of a line to its descenders' end
LABEL_ADVANCE = (LABEL_W + 1) * LABEL_SCALE  #: pixels from one character to the next


_SCALED: dict[tuple[str, int], np.ndarray] = {}


def _scaled_glyph(ch: str, scale: int) -> np.ndarray:
    """The glyph of ``ch`` (``?`` if unknown) blown up ``scale`` times (cached)."""
    key = (ch, scale)
    big = _SCALED.get(key)
    if big is None:
        glyph = LABEL_FONT.get(ch, LABEL_FONT["?"])
        big = _SCALED[key] = np.kron(glyph, np.ones((scale, scale), dtype=bool))
    return big


def label_width(text: str, scale: int = LABEL_SCALE) -> int:
    """Width in pixels of ``text`` drawn by :func:`draw_label`."""
    return max(len(text) * (LABEL_W + 1) * scale - scale, 0)


def draw_label(
    img: np.ndarray,
    y: int,
    x: int,
    text: str,
    colour: tuple[int, int, int],
    scale: int = LABEL_SCALE,
) -> int:
    """Draw ``text`` in the label font (upper and lower case; an unknown character as
    ``?``) with its top left at (y, x), clipped to the image; returns the x after it."""
    h, w = img.shape[:2]
    for i, ch in enumerate(text):
        if ch == " ":
            continue
        big = _scaled_glyph(ch, scale)
        x0 = x + i * (LABEL_W + 1) * scale
        if x0 >= w or y >= h:
            break
        region = img[y : y + big.shape[0], x0 : x0 + big.shape[1]]
        region[big[: region.shape[0], : region.shape[1]]] = colour
    return x + label_width(text, scale)


def wrap_label(text: str, width: int, scale: int = LABEL_SCALE) -> list[str]:
    """``text`` cut at spaces into lines of at most ``width`` pixels in the label font
    (a word longer than a line is cut where it has to be)."""
    per_line = max(1, (width + scale) // ((LABEL_W + 1) * scale))
    lines: list[str] = []
    line = ""
    for word in text.split():
        while len(word) > per_line:
            if line:
                lines.append(line)
                line = ""
            lines.append(word[:per_line])
            word = word[per_line:]
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= per_line:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines
