"""Nerts ``render_mode="rgb_array"``: a picture of the table as a uint8 (H, W, 3) numpy array.

Drawn with numpy alone, with the drawing primitives and the 3x5 pixel font of
:mod:`gnome_env.gnoming.render_image`. It is a spectator's view drawn from a :class:`NertsView`
(public information, N34): face-down cards are backs, never their values.

Picture (the frame size depends only on the config -- players, work piles, jokers --
never on the state):

* top bar: ``HAND h  STEP k/cap  STALL s/n``, ``REMEDY`` while the remedy flag is set, the
  end of the hand (``OVER NERTS`` / ``OVER BLOCKED`` / ``OVER CAP``), and the last step's
  priority order ``PI 2 0 1``;
* foundations: one small card per slot that can be used ((4 + jokers) x players), showing
  the declared top card (outline while unused); a complete slot has a yellow frame; the
  owner of the top card is written under it (``P2``);
* one panel per seat (3 per row): ``P<seat>``, hand score ``S``, total ``T``; the Nerts pile
  (its face-up top and size ``N 12``), the stock (a back and its size), the waste (its top
  and size), then the work piles fanned bottom -> top so that every card's rank and suit
  shows. A seat whose play was blocked in the last step (N21) has a red frame and
  ``BLOCKED``; a seat that called has ``NERTS``; an exhausted seat (N24) shows ``EX``.

Red suits are drawn in red ink, jokers in purple. The same view always gives the same pixels.
"""

from __future__ import annotations

import numpy as np

from gnome_env.core.draw import (
    BACK,
    BACK_FRAME,
    CARD_H,
    CARD_W,
    DIM,
    FACE,
    FRAME,
    GAP,
    INK,
    MARGIN,
    OUTLINE,
    PAD,
    PANEL,
    TABLE,
    TEXT,
    TEXT_H,
    WIN_MARK,
    _fill,
    _frame,
    draw_text,
    text_width,
)
from gnome_env.nerts.cards import NUM_NATURAL, SUIT_COLOUR, format_card
from gnome_env.nerts.config import NertsConfig
from gnome_env.nerts.information import NertsView

RED_INK = (200, 20, 30)
JOKER_INK = (120, 40, 170)
BLOCKED = (235, 60, 50)
CALLED = (255, 140, 60)
FAN = TEXT_H + 4  # visible strip of a covered card in a work pile
MAX_RUN = 13
PANELS_PER_ROW = 3
SLOT_CELL_H = CARD_H + 2 + TEXT_H
LINE = TEXT_H + 4


def _panel_size(config: NertsConfig) -> tuple[int, int]:
    width = PAD + 3 * (CARD_W + GAP) + 2 * GAP + config.work_piles * (CARD_W + GAP) - GAP + PAD
    piles = max(CARD_H + 2 + TEXT_H, (MAX_RUN - 1) * FAN + CARD_H)
    height = PAD + TEXT_H + PAD + piles + PAD
    return height, width


def _slots_shown(config: NertsConfig) -> int:
    return config.max_slots_used  # N7: no more slots are ever used


def _layout(config: NertsConfig) -> dict[str, int]:
    panel_h, panel_w = _panel_size(config)
    cols = min(config.num_players, PANELS_PER_ROW)
    rows = -(-config.num_players // PANELS_PER_ROW)
    width = max(MARGIN + cols * (panel_w + MARGIN), 440)
    per_row = max(1, (width - MARGIN) // (CARD_W + GAP))
    slot_rows = -(-_slots_shown(config) // per_row)
    found_y = MARGIN + 2 * LINE
    panels_y = found_y + slot_rows * (SLOT_CELL_H + GAP) + MARGIN
    height = panels_y + rows * (panel_h + MARGIN)
    return {
        "width": width,
        "height": height,
        "panel_w": panel_w,
        "panel_h": panel_h,
        "per_row": per_row,
        "found_y": found_y,
        "panels_y": panels_y,
    }


def image_size(config: NertsConfig) -> tuple[int, int]:
    """``(height, width)`` of every frame of ``config``."""
    lay = _layout(config)
    return lay["height"], lay["width"]


def draw_card(img: np.ndarray, y: int, x: int, card: int | None) -> None:
    """A card at (y, x) with its token near the top edge (visible when fanned); a back if
    ``card`` is None."""
    if card is None:
        _fill(img, y, x, CARD_H, CARD_W, BACK)
        _frame(img, y + 3, x + 3, CARD_H - 6, CARD_W - 6, BACK_FRAME)
        return
    _fill(img, y, x, CARD_H, CARD_W, FACE)
    _frame(img, y, x, CARD_H, CARD_W, INK)
    ink = JOKER_INK if card >= NUM_NATURAL else RED_INK if SUIT_COLOUR[card // 13] else INK
    token = format_card(card)
    draw_text(img, y + 2, x + (CARD_W - text_width(token)) // 2, token, ink)


def _outline(img: np.ndarray, y: int, x: int) -> None:
    _frame(img, y, x, CARD_H, CARD_W, OUTLINE)


def render_rgb(view: NertsView, end_reason: str | None = None) -> np.ndarray:
    """The table seen in ``view`` (public information) as a new uint8 array (H, W, 3);
    ``end_reason`` (``nerts``, ``blocked``, ``cap``; public, N29) is written once the hand
    is over."""
    cfg = view.config
    lay = _layout(cfg)
    img = np.empty((lay["height"], lay["width"], 3), dtype=np.uint8)
    img[:] = TABLE
    _draw_top(img, view, end_reason)
    _draw_foundations(img, view, lay)
    for seat in range(view.num_players):
        row, col = divmod(seat, PANELS_PER_ROW)
        y = lay["panels_y"] + row * (lay["panel_h"] + MARGIN)
        x = MARGIN + col * (lay["panel_w"] + MARGIN)
        _draw_seat(img, y, x, view, seat, lay)
    return img


def _draw_top(img: np.ndarray, view: NertsView, end_reason: str | None) -> None:
    cfg = view.config
    head = (
        f"HAND {view.hand}  STEP {view.step}/{cfg.max_steps_per_hand}  "
        f"STALL {view.stall}/{cfg.stall_steps}"
    )
    draw_text(img, MARGIN, MARGIN, head, TEXT)
    x = MARGIN + text_width(head) + 12
    if view.remedy_done:
        draw_text(img, MARGIN, x, "REMEDY", CALLED)
    if view.last_priority is not None:
        pi = "PI " + " ".join(str(s) for s in view.last_priority)
        draw_text(img, MARGIN + LINE, MARGIN, pi, DIM)
    if view.hand_over:
        text = "OVER" + (f" {end_reason}" if end_reason else "")
        text += "  GAME OVER" if view.game_over else ""
        draw_text(img, MARGIN + LINE, img.shape[1] - MARGIN - text_width(text), text, WIN_MARK)


def _draw_foundations(img: np.ndarray, view: NertsView, lay: dict[str, int]) -> None:
    per_row = lay["per_row"]
    for f in range(_slots_shown(view.config)):
        row, col = divmod(f, per_row)
        y = lay["found_y"] + row * (SLOT_CELL_H + GAP)
        x = MARGIN + col * (CARD_W + GAP)
        slot = view.slots[f]
        if slot.suit < 0:
            _outline(img, y, x)
            continue
        draw_card(img, y, x, slot.cards[-1])  # the declared card (N33)
        if slot.complete:
            _frame(img, y, x, CARD_H, CARD_W, FRAME, 2)
        draw_text(img, y + CARD_H + 2, x + 2, f"P{slot.owners[-1]}", DIM)


def _draw_seat(
    img: np.ndarray, y: int, x: int, view: NertsView, seat: int, lay: dict[str, int]
) -> None:
    h, w = lay["panel_h"], lay["panel_w"]
    _fill(img, y, x, h, w, PANEL)
    blocked = view.last_blocked is not None and view.last_blocked[seat]
    if blocked:
        _frame(img, y, x, h, w, BLOCKED, 3)
    label = f"P{seat} S {view.hand_scores[seat]} T {view.totals[seat]}"
    draw_text(img, y + PAD, x + PAD, label, TEXT)
    marks = []
    if blocked:
        marks.append(("BLOCKED", BLOCKED))
    if view.last_actions is not None and view.last_actions[seat] == 1:  # N36: id 1 = call
        marks.append(("NERTS", CALLED))
    if view.exhausted[seat]:
        marks.append(("EX", DIM))
    mx = x + w - PAD
    for text, colour in reversed(marks):
        mx -= text_width(text)
        draw_text(img, y + PAD, mx, text, colour)
        mx -= 8
    top = y + PAD + TEXT_H + PAD
    cx = x + PAD
    count_y = top + CARD_H + 2
    # Nerts pile, stock, waste.
    if view.nerts_size[seat]:
        draw_card(img, top, cx, view.nerts_top[seat])
    else:
        _outline(img, top, cx)
    draw_text(img, count_y, cx, f"N{view.nerts_size[seat]}", TEXT)
    cx += CARD_W + GAP
    if view.stock_size[seat]:
        draw_card(img, top, cx, None)
    else:
        _outline(img, top, cx)
    draw_text(img, count_y, cx, str(view.stock_size[seat]), TEXT)
    cx += CARD_W + GAP
    if view.waste_top[seat] is not None:
        draw_card(img, top, cx, view.waste_top[seat])
    else:
        _outline(img, top, cx)
    draw_text(img, count_y, cx, str(view.waste_size[seat]), TEXT)
    cx += CARD_W + GAP + 2 * GAP
    # Work piles, fanned bottom -> top.
    for pile in view.work[seat]:
        if not pile:
            _outline(img, top, cx)
        for i, card in enumerate(pile):
            draw_card(img, top + i * FAN, cx, card)
        cx += CARD_W + GAP
