"""Legal actions in plain words, for people: menus, move logs, debugging.

:func:`describe_action` reads only public information (R3-R16): face-up cards, pile tops
and sizes, the card in hand (R7: a taken card is visible to all), never a face-down card.
Positions are written 1-based as "row r, column c" of the 3x3 layout (R2).
"""

from __future__ import annotations

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, MULLIGAN
from gnome_env.gnoming.engine import Game, Phase

PILE_NAMES = ("A", "B")


def card_name(code: int) -> str:
    """A card's name: ``7``, ``-2``, ``mulligan``, ``hazard``."""
    if code == MULLIGAN:
        return "mulligan"
    if code == HAZARD:
        return "hazard"
    return str(code)


def card_words(code: int, article: str = "the") -> str:
    """A card in words with an article: ``the 7``, ``the -2``, ``the mulligan``, ``a hazard``."""
    return f"{article} {card_name(code)}"


def position_words(pos: int) -> str:
    """Layout position 0..8 (row-major, R2) as ``row r, column c``, both 1-based."""
    return f"row {pos // 3 + 1}, column {pos % 3 + 1}"


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def _replacing(game: Game, pos: int) -> str:
    """What a place or bounce to ``pos`` displaces, as the table sees it before the move."""
    seat = game.turn_player
    if not game.face_up[seat][pos]:
        return "replacing a face-down card"
    return f"replacing the face-up {card_name(game.layouts[seat][pos])}"


def _discard(game: Game, action: int) -> str:
    held = game.held
    assert held is not None
    if held == HAZARD:  # R13: a discarded hazard leaves play; the action id is discard_a.
        return "discard the hazard (removed from play)"
    return f"discard {card_words(held)} onto pile {PILE_NAMES[action - A.DISCARD_A]}"


def describe_action(game: Game, action: int) -> str:
    """The legal ``action`` of ``game.current_seat`` in plain words; ``ValueError`` if illegal.

    Examples: ``draw from the draw pile (37 cards)``, ``take the 7 from pile A``,
    ``place the 9 at row 2, column 3 (replacing a face-down card)``,
    ``discard the hazard (removed from play)``, ``flip the card at row 3, column 2``.
    """
    action = A.coerce_action(action)
    legal = game.legal_actions()
    if action not in legal:
        allowed = ", ".join(A.ACTION_NAMES[a] for a in legal) or "none (the game is over)"
        raise ValueError(
            f"action {action} ({A.ACTION_NAMES[action]}) is not legal now "
            f"(phase {game.phase.name}, seat {game.current_seat}); legal: {allowed}"
        )
    phase = game.phase
    if phase == Phase.DRAW:
        if action == A.DRAW:
            size = len(game.draw_pile)
            if size:
                return f"draw from the draw pile ({_cards(size)})"
            # R8: the draw pile is rebuilt from the discards under the two pile tops.
            below = sum(max(len(pile) - 1, 0) for pile in game.piles)
            return f"draw from the draw pile (empty: reshuffle {_cards(below)} of discards)"
        pile = action - A.TAKE_A
        return f"take {card_words(game.piles[pile][-1])} from pile {PILE_NAMES[pile]}"
    if phase == Phase.PLACE:
        if action < A.DISCARD_A:
            pos = action - A.PLACE
            held = card_words(game.held)  # type: ignore[arg-type]
            return f"place {held} at {position_words(pos)} ({_replacing(game, pos)})"
        return _discard(game, action)
    if phase == Phase.DISPLACED:
        if action >= A.BOUNCE:
            pos = action - A.BOUNCE
            held = card_words(game.held)  # type: ignore[arg-type]
            return f"bounce {held} to {position_words(pos)} ({_replacing(game, pos)})"
        return _discard(game, action)
    # OPENING_FLIP (R5) or HAZARD_FLIP (R13)
    if action == A.DECLINE:
        return "decline the flip"
    return f"flip the card at {position_words(action - A.FLIP)}"
