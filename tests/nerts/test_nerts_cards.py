"""Nerts cards (N1, N2): ids, notation, colours, owners and jokers."""

from __future__ import annotations

import pytest

from gnome_env.nerts.cards import (
    BLACK,
    JOKER,
    RED,
    assign_jokers,
    card_id,
    colour_of,
    deck,
    format_card,
    format_cards,
    is_joker,
    parse_card,
    parse_cards,
    parse_owned,
    rank_of,
    suit_of,
)


def test_n2_card_id_is_13_suit_plus_rank_minus_one():
    assert card_id(1, 0) == 0  # AC
    assert card_id(13, 3) == 51  # KS
    assert parse_card("7H") == 13 * 2 + 7 - 1
    assert parse_card("TD") == 13 * 1 + 10 - 1
    assert parse_card("JK") == JOKER == 52


def test_n2_every_id_round_trips_through_its_token():
    for c in range(52):
        assert parse_card(format_card(c)) == c
        assert rank_of(c) == c % 13 + 1 and suit_of(c) == c // 13
    assert format_card(52) == format_card(53) == "JK"


def test_n2_colours_clubs_spades_black_diamonds_hearts_red():
    assert colour_of(parse_card("7C")) == BLACK
    assert colour_of(parse_card("7S")) == BLACK
    assert colour_of(parse_card("7D")) == RED
    assert colour_of(parse_card("7H")) == RED


def test_n2_owner_notation():
    assert parse_owned("p2:7H") == (2, parse_card("7H"))
    assert parse_owned("7H") == (None, parse_card("7H"))
    assert format_card(parse_card("7H"), owner=2) == "p2:7H"
    with pytest.raises(ValueError, match="owner"):
        parse_owned("x2:7H")


def test_n2_piles_parse_bottom_to_top_and_dash_is_empty():
    assert parse_cards("9S 8H 7C") == [parse_card(t) for t in ("9S", "8H", "7C")]
    assert parse_cards("-") == [] and parse_cards("") == []
    assert format_cards([]) == "-"
    assert format_cards(parse_cards("9S 8H")) == "9S 8H"


@pytest.mark.parametrize("bad", ["1H", "7X", "H7", "", "JKR", 7, None])
def test_n2_bad_tokens_raise_value_error(bad):
    with pytest.raises(ValueError, match="not allowed"):
        parse_card(bad)


def test_n1_decks_have_52_cards_plus_jokers():
    assert deck(0) == list(range(52))
    assert deck(2) == [*range(52), 52, 53]
    assert is_joker(52) and is_joker(53) and not is_joker(51)
    with pytest.raises(ValueError, match="jokers=3"):
        deck(3)
    with pytest.raises(ValueError, match="rank"):
        rank_of(52)


def test_nd13_second_joker_written_is_53():
    left = [52, 53]
    assert assign_jokers(parse_cards("JK 5H JK"), left) == [52, parse_card("5H"), 53]
    with pytest.raises(ValueError, match="more jokers"):
        assign_jokers([52], [])
