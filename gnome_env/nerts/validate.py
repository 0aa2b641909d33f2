"""Invariant checks on a :class:`~gnome_env.nerts.engine.NertsGame`, used after steps in tests.

:func:`check_invariants` is cheap enough to call after every step of a soak run;
:func:`check_mask_matches_engine` tries every action id of every seat and is slower.
"""

from __future__ import annotations

from gnome_env.nerts.actions import WAIT
from gnome_env.nerts.cards import KING, NUM_NATURAL, format_card
from gnome_env.nerts.engine import END_REASONS, NertsGame, game_winners, is_run


class NertsInvariantError(AssertionError):
    """A Nerts state broke one of the engine's invariants."""


def _fail(game: NertsGame, message: str) -> None:
    raise NertsInvariantError(f"{message}\n{game.render(reveal=True)}")


def check_invariants(game: NertsGame, dealt: bool = False) -> None:
    """Raise :class:`NertsInvariantError` unless every invariant holds.

    * N1/N6: each seat's 52 + jokers cards are each in exactly one place: its Nerts pile,
      work piles, stock, waste, or a foundation slot with that seat as owner;
    * N9/N32: every work pile is a run;
    * N7/N8/N20: slots are used in order 0, 1, ...; an open or complete slot holds one suit
      from the ace up (equal neighbours only with ``both_keep``), its top rank is its last
      card's, complete exactly when that is a King; unused slots are empty; natural cards
      are declared as themselves; per-owner counts agree;
    * N13: only the Nerts top is face up;
    * N24/N25/N28: exhausted implies seen >= n_i; in a hand in play the stall count and the
      step count are below their limits;
    * N18/N36: during a hand ``wait`` is legal and the mask equals the legal list; after it,
      nothing is legal and the end reason is one of ``nerts``, ``blocked``, ``cap``;
    * N30/N31: totals are the sum of the hand scores; ``game_over`` and the winners agree.

    With ``dealt`` (positions reached from a deal, not built by the test hook; ND21), also: no
    Nerts pile is larger than ``nerts_size`` (N5, N13) and hand scores lie in the N30 range.
    """
    cfg = game.config
    p, w_count, f_count = cfg.num_players, cfg.work_piles, cfg.num_slots
    for name in ("nerts", "nerts_face_up", "work", "stock", "waste", "seen", "exhausted"):
        if len(getattr(game, name)) != p:
            _fail(game, f"{name} has {len(getattr(game, name))} entries for {p} seats")
    for name in ("slot_suit", "slot_top", "slot_complete", "slot_cards", "slot_owners"):
        if len(getattr(game, name)) != f_count:
            _fail(game, f"{name} has {len(getattr(game, name))} entries for F = {f_count}")

    # N1, N6: conservation by owner.
    owned: list[list[int]] = [[] for _ in range(p)]
    for seat in range(p):
        if len(game.work[seat]) != w_count:
            _fail(game, f"seat {seat} has {len(game.work[seat])} work piles, not {w_count}")
        owned[seat].extend(game.nerts[seat])
        for pile in game.work[seat]:
            owned[seat].extend(pile)
        owned[seat].extend(game.stock[seat])
        owned[seat].extend(game.waste[seat])
    for f in range(f_count):
        if len(game.slot_owners[f]) != len(game.slot_cards[f]):
            _fail(game, f"slot {f}: {len(game.slot_cards[f])} cards but owners differ")
        for card, owner in zip(game.slot_cards[f], game.slot_owners[f], strict=True):
            if not 0 <= owner < p:
                _fail(game, f"slot {f}: owner {owner} is not a seat")
            owned[owner].append(card)
    want = list(range(cfg.deck_size))
    for seat in range(p):
        got = sorted(owned[seat])
        if got != want:
            missing = sorted(set(want) - set(got))
            extra = sorted(c for c in set(got) if got.count(c) > 1 or c not in want)
            _fail(
                game,
                f"seat {seat}: cards not conserved: missing "
                f"{[format_card(c) for c in missing]}, duplicated or foreign "
                f"{[format_card(c) if 0 <= c < 54 else c for c in extra]}",
            )

    # N9, N32: runs; N13: face-up flags.
    for seat in range(p):
        for w, pile in enumerate(game.work[seat]):
            if not is_run(pile):
                _fail(game, f"seat {seat} work pile {w} is not a run (N9)")
        up = game.nerts_face_up[seat]
        if len(up) != len(game.nerts[seat]):
            _fail(game, f"seat {seat}: {len(up)} face-up flags for {len(game.nerts[seat])} cards")
        if up and (not up[-1] or any(up[:-1])):
            _fail(game, f"seat {seat}: only the Nerts top may be face up (N13)")
        if dealt and len(game.nerts[seat]) > cfg.nerts_size:
            _fail(game, f"seat {seat}: Nerts pile larger than nerts_size (N5, N13)")

    # N7, N8, N20: foundations.
    used = game.slots_used
    if not 0 <= used <= cfg.max_slots_used:
        _fail(game, f"{used} slots used; at most (4 + jokers) x players = {cfg.max_slots_used}")
    counts = [0] * p
    both_keep = cfg.foundation_tie == "both_keep"
    for f in range(f_count):
        suit, top = game.slot_suit[f], game.slot_top[f]
        cards, declared = game.slot_cards[f], game.slot_declared[f]
        if f >= used:
            if suit != -1 or top != 0 or game.slot_complete[f] or cards or declared:
                _fail(game, f"slot {f} is beyond the used slots but not unused (N7)")
            continue
        if not 0 <= suit <= 3 or not cards or len(declared) != len(cards):
            _fail(game, f"slot {f} is used but has no suit or no cards (N7)")
        prev = 0
        for i, (card, dec) in enumerate(zip(cards, declared, strict=True)):
            if not 0 <= dec < NUM_NATURAL or dec // 13 != suit:
                _fail(game, f"slot {f} card {i} is declared off-suit (N8)")
            if card < NUM_NATURAL and card != dec:
                _fail(game, f"slot {f} card {i}: a natural card declared as another (N33)")
            rank = dec % 13 + 1
            if not (rank == prev + 1 or (both_keep and i > 0 and rank == prev)):
                _fail(game, f"slot {f} is not built up in suit from the ace (N8, N20)")
            prev = rank
        if top != prev:
            _fail(game, f"slot {f}: top rank {top} but the last card has rank {prev}")
        if game.slot_complete[f] != (top == KING):
            _fail(game, f"slot {f}: complete={game.slot_complete[f]} with top rank {top} (N7)")
        for owner in game.slot_owners[f]:
            counts[owner] += 1
    if counts != list(game.found_count):
        _fail(game, f"foundation counts {game.found_count} disagree with the slots {counts}")

    # N24, N25, N28: counters.
    for seat in range(p):
        if game.seen[seat] < 0:
            _fail(game, f"seat {seat}: seen counter is negative")
        if game.exhausted[seat] and game.seen[seat] < game.cycle_size(seat):
            _fail(game, f"seat {seat} is exhausted with seen < n_i (N24)")
    if not game.hand_over:
        if game.stall >= cfg.stall_steps:
            _fail(game, f"stall count {game.stall} reached {cfg.stall_steps} in play (N25)")
        if game.steps >= cfg.max_steps_per_hand:
            _fail(game, f"{game.steps} steps played in a hand still in play (N28)")
        if game.end_reason is not None:
            _fail(game, "a hand in play has an end reason")
        for seat in range(p):
            legal = game.legal_actions(seat)
            if not legal or legal[0] != WAIT:
                _fail(game, f"seat {seat}: wait is not legal (N19, N36)")
            if legal != sorted(set(legal)) or legal[-1] >= game.n_actions:
                _fail(game, f"seat {seat}: legal actions are not sorted unique ids")
            mask = game.legal_mask(seat)
            if mask.shape != (game.n_actions,) or mask.nonzero()[0].tolist() != legal:
                _fail(game, f"seat {seat}: the mask disagrees with legal_actions")
    else:
        if game.end_reason not in END_REASONS:
            _fail(game, f"hand over with end reason {game.end_reason!r}")
        if any(game.legal_actions(seat) for seat in range(p)):
            _fail(game, "hand over but actions are legal")
        if not game.hand_results or game.hand_results[-1].hand != game.hand:
            _fail(game, "hand over without its hand result")

    # N30, N31: scores, totals, game over.
    scores = game.hand_scores()
    if dealt:
        low, high = cfg.score_range
        for seat, s in enumerate(scores):
            if not low <= s <= high:
                _fail(game, f"seat {seat}: hand score {s} outside [{low}, {high}] (N30)")
    sums = [sum(r.scores[i] for r in game.hand_results) for i in range(p)]
    if sums != list(game.totals):
        _fail(game, f"totals {game.totals} are not the sum of hand scores {sums}")
    finished = (
        bool(game.hand_results)
        and game.hand_over
        and (max(game.totals) >= cfg.target_score or len(game.hand_results) >= cfg.max_hands)
    )
    if game.game_over != finished:
        _fail(game, f"game_over={game.game_over} but the N31 condition is {finished}")
    if game.game_over and game.winners() != game_winners(game.totals, game.hand_results[-1].scores):
        _fail(game, "winners disagree with N31")


def check_mask_matches_engine(game: NertsGame) -> None:
    """N18/N36: for every seat and every id, ``step`` with that id for the seat (and
    ``wait`` for the others) is accepted iff the id is in the seat's mask; a rejected id
    raises ``ValueError`` and leaves the state (digest) unchanged. Slow: tries every id."""
    p = game.num_players
    before = game.digest()
    for seat in range(p):
        mask = game.legal_mask(seat)
        for a in range(game.n_actions):
            actions = [WAIT] * p
            actions[seat] = a
            if mask[a]:
                trial = game.copy()
                try:
                    trial.step(actions)
                except ValueError as exc:
                    _fail(game, f"seat {seat}: id {a} is in the mask but step() refused: {exc}")
                if game.digest() != before:
                    _fail(game, f"stepping a copy with id {a} changed the original")
            else:
                try:
                    game.step(actions)
                except ValueError:
                    pass
                else:
                    _fail(game, f"seat {seat}: id {a} is not in the mask but step() took it")
                if game.digest() != before:
                    _fail(game, f"seat {seat}: the rejected id {a} changed the state")
