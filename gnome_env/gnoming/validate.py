"""Invariant checks on a :class:`~gnome_env.gnoming.engine.Game`, used after every decision in
tests."""

from __future__ import annotations

from gnome_env.gnoming import actions as A
from gnome_env.gnoming.cards import HAZARD, card_token
from gnome_env.gnoming.engine import ALL_FILLED, Game, Phase


class InvariantError(AssertionError):
    """A game state broke one of the engine's invariants."""


def _fail(game: Game, message: str) -> None:
    raise InvariantError(f"{message}\n{game.render()}")


def check_invariants(game: Game, check_actions: bool = True) -> None:
    """Raise :class:`InvariantError` unless every invariant holds.

    * every card of the deck spec is in exactly one place (layouts, draw pile, discard
      piles, the card in hand, hazards removed) -- no card missing, none twice;
    * face-down counts, the card in hand and the deciding seat agree with the phase;
    * no hazard lies on a discard pile (R4, R13);
    * a game that is not over has at least one legal action;
    * with ``check_actions``: the mask equals the set of actions ``apply`` accepts, and a
      rejected action leaves the state unchanged.
    """
    n = game.num_players
    if game.card_count() != game.config.deck.counter():
        want, got = game.config.deck.counter(), game.card_count()
        _fail(
            game,
            "cards not conserved: missing "
            f"{ {card_token(c): k for c, k in (want - got).items()} }, extra "
            f"{ {card_token(c): k for c, k in (got - want).items()} }",
        )
    for seat in range(n):
        if game.down_count[seat] != game.face_up[seat].count(False):
            _fail(game, f"seat {seat}: down_count {game.down_count[seat]} disagrees with face_up")
    for pile in game.piles:
        if HAZARD in pile:
            _fail(game, "a hazard lies on a discard pile")
    phase = game.phase
    holding = phase in (Phase.PLACE, Phase.DISPLACED)
    if holding != (game.held is not None):
        _fail(game, f"phase {phase.name} but card in hand is {game.held!r}")
    if phase == Phase.GAME_OVER:
        if game.current_seat != -1 or len(game.round_results) != game.config.rounds:
            _fail(game, "game over but seat or round results are inconsistent")
        if game.legal_actions():
            _fail(game, "game over but actions are legal")
        return
    if not 0 <= game.current_seat < n:
        _fail(game, f"current seat {game.current_seat} out of range")
    if phase in (Phase.DRAW, Phase.PLACE, Phase.DISPLACED):
        if game.current_seat != game.turn_player:
            _fail(game, "a turn decision is not made by the player whose turn it is")
    if phase in (Phase.OPENING_FLIP, Phase.HAZARD_FLIP):
        if not game.flip_queue or game.flip_queue[0] != game.current_seat:
            _fail(game, "flip queue does not start with the deciding seat")
    if phase == Phase.HAZARD_FLIP:
        if game.current_seat == game.turn_player or game.down_count[game.current_seat] < 2:
            _fail(game, "hazard flip offered to the discarder or a seat with < 2 face-down cards")
    if phase == Phase.DRAW and game.filled:
        _fail(game, "positions marked filled before the turn's draw")
    if game.filled & ~ALL_FILLED:
        _fail(game, "filled mask out of range")
    for q in range(9):
        if game.filled >> q & 1 and not game.face_up[game.turn_player][q]:
            _fail(game, f"position {q} filled this turn but face down")
    legal = game.legal_actions()
    if not legal:
        _fail(game, "game not over but no legal action")
    mask = game.legal_mask()
    if sorted(legal) != [a for a in range(A.NUM_ACTIONS) if mask[a]]:
        _fail(game, "legal_actions() and legal_mask() disagree")
    if check_actions:
        before = game.state_tuple()
        for action in range(A.NUM_ACTIONS):
            if mask[action]:
                game.copy().step(action)  # must not raise
            else:
                try:
                    game.step(action)
                except ValueError:
                    pass
                else:
                    _fail(game, f"apply accepted masked-out action {action}")
        if game.state_tuple() != before:
            _fail(game, "a rejected action changed the state")
