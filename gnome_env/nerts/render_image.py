"""Nerts ``render_mode="rgb_array"``: a picture of the table as a uint8 (H, W, 3) numpy array,
written in words a newcomer reads.

Drawn with numpy alone, in the 5x9 label font of :mod:`gnome_env.core.draw`. It is a
spectator's view drawn from a :class:`NertsView` (public information, N34): face-down cards
are backs, never their values.

The frame size depends only on the config (players, work piles, jokers), never on the
state, so a video recorder gets frames of one size. From top to bottom:

* the status band: ``Nerts · hand 2 · step 40 of at most 1000 · the game ends at 100
  points``, the hand's end when it is over (``HAND OVER: Nerts was called (N22)``), the
  stall counter and remedy flag in words (``no progress for 3 steps ...``, N25-N27), and the
  last step's priority order with the plays it blocked (N20, N21);
* the foundations (shared by everyone, N7, N8): one card per slot that can be used,
  ``(4 + jokers) x players``, showing its top (declared) card, its number above (the
  number the words use) and the owner of the top card below, in that player's colour; a
  complete slot is framed in yellow, an unused one is an outline; where the row has room
  (2 and 3 players), a square in its owner's colour beside the card for every card on it;
* one panel per seat, in a grid that fills the frame (2 players: 2 x 1, 3: 3 x 1, 4: 2 x 2,
  5 and 6: 3 x 2; the sixth cell of a 5-player table explains the scoring): the player's
  name in its colour (and the agent's, when given) and its total; what the player did in
  the last step (:mod:`gnome_env.nerts.describe`; a blocked play in red, with a red frame);
  the Nerts pile (its face-up top, ``9 left (-18)``), the stock (a back, ``31 cards``), the
  waste (its top and size), the cards on foundations and this hand's score (N30); the work
  piles fanned bottom -> top, so that every card's rank and suit shows, numbered under
  them.

Red suits are drawn in red ink, jokers in purple. The same view always gives the same pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gnome_env.core.draw import (
    BACK,
    BACK_FRAME,
    DIM,
    FACE,
    FRAME,
    INK,
    LABEL_ADVANCE,
    OUTLINE,
    PANEL,
    TABLE,
    TEXT,
    WIN_MARK,
    draw_label,
    fill,
    frame,
    label_width,
    wrap_label,
)
from gnome_env.nerts.cards import NUM_NATURAL, SUIT_COLOUR
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.describe import (
    END_WORDS,
    SUIT_SYMBOLS,
    card_token,
    seat_name,
    stall_words,
    step_words,
)
from gnome_env.nerts.information import NertsView

RED_INK = (200, 20, 30)
JOKER_INK = (120, 40, 170)
BLOCKED = (235, 60, 50)
CALLED = (255, 140, 60)
SEAT_COLOURS = (
    (255, 214, 90),
    (120, 200, 255),
    (255, 150, 205),
    (170, 235, 120),
    (255, 170, 90),
    (205, 175, 255),
)
CARD_W, CARD_H = 48, 64
GAP = 8
LINE = 22  # one line of label text
MARGIN = 10
PAD = 8
FAN_MAX, FAN_MIN = 22, 16  # visible strip of a covered work-pile card
MAX_RUN = 13  # N9
PILE_AREA = CARD_H + (MAX_RUN - 1) * FAN_MIN
LEFT_W = CARD_W + GAP + 12 * LABEL_ADVANCE  # Nerts pile, stock, waste with their words
WORDS_LINES = 3
STATUS_LINES = 4
GRID_COLUMNS = {2: 2, 3: 3, 4: 2, 5: 3, 6: 3}
SLOT_CELL_W = CARD_W + GAP
CHIP, CHIPS_PER_ROW = 10, 4  # owner squares beside a foundation card, where there is room
WIDE_SLOT_CELL_W = CARD_W + 4 + CHIPS_PER_ROW * (CHIP + 2) + GAP
SLOT_CELL_H = LINE + CARD_H + LINE


def _panel_size(config: NertsConfig) -> tuple[int, int]:
    """``(height, width)`` of one seat panel."""
    width = PAD + LEFT_W + 2 * GAP + config.work_piles * (CARD_W + GAP) - GAP + PAD
    height = PAD + LINE * (1 + WORDS_LINES) + GAP + PILE_AREA + 4 + LINE + PAD
    return height, width


def _layout(config: NertsConfig) -> dict[str, int]:
    """Where everything goes: a function of the config alone (the frame size is fixed)."""
    panel_h, panel_w = _panel_size(config)
    cols = GRID_COLUMNS[config.num_players]
    rows = -(-config.num_players // cols)
    width = MARGIN + cols * (panel_w + MARGIN)
    wide = config.max_slots_used * WIDE_SLOT_CELL_W <= width - 2 * MARGIN + GAP
    cell_w = WIDE_SLOT_CELL_W if wide else SLOT_CELL_W
    per_row = max(1, (width - 2 * MARGIN + GAP) // cell_w)
    slot_rows = -(-config.max_slots_used // per_row)
    found_y = MARGIN + STATUS_LINES * LINE + GAP
    panels_y = found_y + LINE + slot_rows * SLOT_CELL_H + GAP
    return {
        "width": width,
        "height": panels_y + rows * (panel_h + MARGIN),
        "panel_w": panel_w,
        "panel_h": panel_h,
        "cols": cols,
        "per_row": per_row,
        "slot_w": cell_w,
        "chips": wide,
        "found_y": found_y,
        "panels_y": panels_y,
    }


def image_size(config: NertsConfig) -> tuple[int, int]:
    """``(height, width)`` of every frame of ``config``."""
    lay = _layout(config)
    return lay["height"], lay["width"]


def _ink(card: int) -> tuple[int, int, int]:
    if card >= NUM_NATURAL:
        return JOKER_INK
    return RED_INK if SUIT_COLOUR[card // 13] else INK


def draw_card(img: np.ndarray, y: int, x: int, card: int | None) -> None:
    """A card at (y, x): its rank and suit near the top edge (visible when fanned) and a
    big suit below; a back if ``card`` is None."""
    if card is None:
        fill(img, y, x, CARD_H, CARD_W, BACK)
        frame(img, y + 4, x + 4, CARD_H - 8, CARD_W - 8, BACK_FRAME)
        return
    fill(img, y, x, CARD_H, CARD_W, FACE)
    frame(img, y, x, CARD_H, CARD_W, INK)
    ink = _ink(card)
    draw_label(img, y + 2, x + 4, card_token(card), ink)
    big = "*" if card >= NUM_NATURAL else SUIT_SYMBOLS[card // 13]
    draw_label(img, y + CARD_H - 30, x + (CARD_W - label_width(big, 4)) // 2, big, ink, scale=4)


def _outline(img: np.ndarray, y: int, x: int) -> None:
    frame(img, y, x, CARD_H, CARD_W, OUTLINE)


def render_rgb(
    view: NertsView, end_reason: str | None = None, names: Sequence[str] | None = None
) -> np.ndarray:
    """The table seen in ``view`` (public information) as a new uint8 array (H, W, 3);
    ``end_reason`` (``nerts``, ``blocked``, ``cap``; public, N29) is written once the hand
    is over; ``names`` (one per seat, e.g. agent specs) are written after the seat names."""
    cfg = view.config
    lay = _layout(cfg)
    img = np.empty((lay["height"], lay["width"], 3), dtype=np.uint8)
    img[:] = TABLE
    words = step_words(view)
    _draw_status(img, view, end_reason, words)
    _draw_foundations(img, view, lay)
    cols = lay["cols"]
    for cell in range(-(-view.num_players // cols) * cols):
        row, col = divmod(cell, cols)
        y = lay["panels_y"] + row * (lay["panel_h"] + MARGIN)
        x = MARGIN + col * (lay["panel_w"] + MARGIN)
        if cell < view.num_players:
            name = names[cell] if names is not None and cell < len(names) else None
            _draw_seat(img, y, x, view, cell, lay, words, name)
        else:
            _draw_legend(img, y, x, view, lay)
    return img


def _draw_status(img, view, end_reason, words) -> None:  # type: ignore[no-untyped-def]
    """Four lines: the hand and step, its end or the stall counter (two lines), and the
    last step's priority order."""
    cfg = view.config
    x, width = MARGIN, img.shape[1] - 2 * MARGIN
    head = (
        f"Nerts · hand {view.hand} · step {view.step} (at most {cfg.max_steps_per_hand}) · "
        f"the game ends at {cfg.target_score} points"
    )
    lines: list[tuple[str, tuple[int, int, int]]] = [(head, TEXT)]
    stall = [(line, DIM) for line in wrap_label(stall_words(view), width)]
    if view.hand_over:
        text = "HAND OVER: " + END_WORDS.get(end_reason or "", "the hand ended")
        lines.append((text + (" · GAME OVER" if view.game_over else ""), WIN_MARK))
        lines += stall[:1]
    else:
        lines += stall[:2]
    if words is None:
        lines.append(("first step of the hand: everyone plays at once, one action each", DIM))
    else:
        first, *rest = view.last_priority
        text = f"last step: ties on a foundation went to player {first}, then "
        lines.append((text + ", ".join(str(s) for s in rest) + " (N20)", DIM))
    lines = [(text, colour) for text, colour in lines if text]
    for i, (text, colour) in enumerate(lines):
        draw_label(img, MARGIN + i * LINE, x, wrap_label(text, width)[0], colour)


def _draw_foundations(img: np.ndarray, view: NertsView, lay: dict[str, int]) -> None:
    title = "foundations (everyone builds up by suit, A to K; +1 point per own card)"
    if lay["chips"]:
        title = "foundations (up by suit, A to K; +1 per own card; squares: who played it)"
    draw_label(img, lay["found_y"], MARGIN, wrap_label(title, img.shape[1] - 2 * MARGIN)[0], TEXT)
    per_row = lay["per_row"]
    for f in range(view.config.max_slots_used):
        row, col = divmod(f, per_row)
        y = lay["found_y"] + LINE + row * SLOT_CELL_H
        x = MARGIN + col * lay["slot_w"]
        number = str(f)
        draw_label(img, y + 2, x + (CARD_W - label_width(number)) // 2, number, DIM)
        slot = view.slots[f]
        if slot.suit < 0:
            _outline(img, y + LINE, x)
            continue
        draw_card(img, y + LINE, x, slot.cards[-1])  # the declared card (N33)
        if slot.complete:
            frame(img, y + LINE, x, CARD_H, CARD_W, FRAME, 3)
        owner = slot.owners[-1]
        tag = f"p{owner}"
        colour = SEAT_COLOURS[owner % len(SEAT_COLOURS)]
        draw_label(img, y + LINE + CARD_H + 2, x + (CARD_W - label_width(tag)) // 2, tag, colour)
        if lay["chips"]:  # who played each card, bottom -> top, in the players' colours
            for i, who in enumerate(slot.owners):
                row, col = divmod(i, CHIPS_PER_ROW)
                fill(
                    img,
                    y + LINE + row * (CHIP + 2),
                    x + CARD_W + 4 + col * (CHIP + 2),
                    CHIP,
                    CHIP,
                    SEAT_COLOURS[who % len(SEAT_COLOURS)],
                )


def _draw_seat(img, y, x, view, seat, lay, words, name) -> None:  # type: ignore[no-untyped-def]
    h, w = lay["panel_h"], lay["panel_w"]
    fill(img, y, x, h, w, PANEL)
    mine = words[seat] if words is not None else None
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    frame(img, y, x, h, w, BLOCKED if mine is not None and mine.blocked else colour, 3)
    score = f"total {view.totals[seat]}"
    title = seat_name(seat).capitalize() + (" · stuck" if view.exhausted[seat] else "")
    room = (w - 2 * PAD - label_width(score)) // LABEL_ADVANCE - 1
    if name:
        title += f" ({name})"
    if len(title) > room:
        title = title[: room - 2] + "…)"
    draw_label(img, y + PAD, x + PAD, title, colour)
    draw_label(img, y + PAD, x + w - PAD - label_width(score), score, TEXT)
    text = "waiting for the first step" if mine is None else mine.text
    ink = TEXT if mine is None else BLOCKED if mine.blocked else DIM
    if mine is not None and mine.action == 1:
        ink = CALLED
    for i, line in enumerate(wrap_label(text, w - 2 * PAD)[:WORDS_LINES]):
        draw_label(img, y + PAD + LINE * (1 + i), x + PAD, line, ink)
    top = y + PAD + LINE * (1 + WORDS_LINES) + GAP
    _draw_own_piles(img, top, x + PAD, view, seat)
    _draw_work_piles(img, top, x + PAD + LEFT_W + 2 * GAP, view, seat)


def _draw_own_piles(img: np.ndarray, top: int, x: int, view: NertsView, seat: int) -> None:
    """Nerts pile, stock and waste, each a card with two lines of words beside it."""
    nerts = view.nerts_size[seat]
    stock, waste = view.stock_size[seat], view.waste_size[seat]
    rows = (
        (view.nerts_top[seat], nerts > 0, "Nerts pile", f"{nerts} left ({-2 * nerts:+d})"),
        (None, stock > 0, "stock", f"{stock} card{'s' if stock != 1 else ''}"),
        (view.waste_top[seat], waste > 0, "waste", f"{waste} card{'s' if waste != 1 else ''}"),
    )
    for i, (card, present, label, count) in enumerate(rows):
        y = top + i * (CARD_H + GAP)
        if present:
            draw_card(img, y, x, card)
        else:
            _outline(img, y, x)
        draw_label(img, y + 8, x + CARD_W + GAP, label, TEXT)
        draw_label(img, y + 8 + LINE, x + CARD_W + GAP, count, DIM)
    y = top + 3 * (CARD_H + GAP)
    draw_label(img, y, x, f"on foundations {view.found_count[seat]}", DIM)
    draw_label(img, y + LINE, x, f"hand score {view.hand_scores[seat]:+d}", TEXT)


def _draw_work_piles(img: np.ndarray, top: int, x: int, view: NertsView, seat: int) -> None:
    """N9: the work piles fanned bottom -> top (the strip narrows for long piles)."""
    for w, pile in enumerate(view.work[seat]):
        cx = x + w * (CARD_W + GAP)
        if not pile:
            _outline(img, top, cx)
        fan = FAN_MAX if len(pile) < 2 else min(FAN_MAX, (PILE_AREA - CARD_H) // (len(pile) - 1))
        for i, card in enumerate(pile):
            draw_card(img, top + i * max(fan, FAN_MIN), cx, card)
        label = str(w)
        draw_label(img, top + PILE_AREA + 6, cx + (CARD_W - label_width(label)) // 2, label, DIM)
    draw_label(img, top + PILE_AREA + 6, x - GAP - label_width("work piles"), "work piles", DIM)


def _draw_legend(img, y, x, view, lay) -> None:  # type: ignore[no-untyped-def]
    """The spare cell of a 5-player table: how a hand is scored and won."""
    h, w = lay["panel_h"], lay["panel_w"]
    fill(img, y, x, h, w, PANEL)
    cfg = view.config
    lines = [
        "How Nerts is played",
        "Everyone plays at once, one action per step (N18).",
        "Empty your Nerts pile, then call Nerts: the hand ends (N22).",
        "A hand scores +1 for each of your cards on the foundations and -2 for each card "
        "left in your Nerts pile (N30).",
        f"The game ends when a total reaches {cfg.target_score} points (N31).",
        "Two plays onto one foundation in one step: the player first in the step's priority "
        "order gets it, the other play is blocked (N20, N21).",
    ]
    yy = y + PAD
    for i, text in enumerate(lines):
        for line in wrap_label(text, w - 2 * PAD):
            draw_label(img, yy, x + PAD, line, TEXT if i == 0 else DIM)
            yy += LINE
        yy += GAP
