"""Variant positions: starting layouts, geometry, pins, validity, the text form, diagrams."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathbg import Position
from mathbg.errors import InvalidIdError, InvalidPositionError, UnknownVariantError
from mathbg.rules.game import Phase, play_random_game
from mathbg.rules.ruleset import get_ruleset
from mathbg.rules.variants import Variant, VariantPosition, parse_position
from mathbg.rules.variants.geometry import Movement, opponent_point

VARIANTS = ["portes", "plakoto", "fevga", "tavla", "long-nardi"]

# The starting layouts, from the rule texts (each side in its own numbering):
# Portes and Tavla use backgammon's (2 on the 24, 5 on the 13, 3 on the 8, 5 on the 6);
# Plakoto puts all 15 on the opponent's 1-point (own 24); Fevga and Long Nardi on the
# "head", the far right corner, diagonally opposite (own 24 again in our numbering).
STANDARD = {24: 2, 13: 5, 8: 3, 6: 5}
HEAD = {24: 15}
LAYOUT = {
    "portes": STANDARD,
    "tavla": STANDARD,
    "plakoto": HEAD,
    "fevga": HEAD,
    "long-nardi": HEAD,
}


@pytest.mark.parametrize("name", VARIANTS)
def test_initial_positions(name: str) -> None:
    pos = Position.initial(name)
    assert isinstance(pos, VariantPosition) and isinstance(pos, Position)
    assert pos.variant == Variant(name)
    row = [0] * 25
    for p, n in LAYOUT[name].items():
        row[p - 1] = n
    assert pos.player == tuple(row) == pos.opponent
    assert pos.pins == 0 and pos.is_valid()
    assert pos.swap() == pos
    # 167 pips in the standard layout, 15 x 24 = 360 on the head
    assert pos.pips() == ((167, 167) if LAYOUT[name] is STANDARD else (360, 360))
    assert pos.id == pos.text == f"{name}:" + pos.text.split(":", 1)[1]
    assert VariantPosition.from_text(pos.text) == pos


def test_variant_names_and_errors() -> None:
    assert Position.initial("Long Nardi") == Position.initial("long_nardi")
    assert Position.initial("nardi") == Position.initial("long-nardi")
    assert Position.initial(Variant.PLAKOTO) == Position.initial("plakoto")
    assert Position.initial("backgammon") == Position.initial()  # still a standard Position
    assert type(Position.initial()) is Position
    with pytest.raises(UnknownVariantError, match=r"unknown variant 'chess'.*long-nardi"):
        Position.initial("chess")
    # a variant position never equals a standard one, even with the same checkers
    assert Position.initial("portes") != Position.initial()
    assert Position.initial("portes").to_standard() == Position.initial()


def test_geometry_of_the_two_movements() -> None:
    # opposite movement: the opponent's point q is the mover's 25 - q
    assert [opponent_point(p, Movement.OPPOSITE) for p in (1, 6, 13, 24)] == [24, 19, 12, 1]
    # same movement (Fevga, Long Nardi): White's 24 and Black's head at White's 12
    assert opponent_point(24, Movement.SAME) == 12 and opponent_point(12, Movement.SAME) == 24
    # the mover's home (1-6) is the opponent's 13-18
    assert [opponent_point(p, Movement.SAME) for p in range(1, 7)] == list(range(13, 19))
    for m in Movement:
        assert all(opponent_point(opponent_point(p, m), m) == p for p in range(1, 25))


def test_same_direction_sharing_is_checked_with_the_right_geometry() -> None:
    # my 6-point is the opponent's 18-point in Fevga (but its 19-point in Portes)
    ok = VariantPosition.from_counts({6: 1}, {19: 1}, variant="fevga")
    bad = VariantPosition.from_counts({6: 1}, {18: 1}, variant="fevga")
    assert ok.is_valid()
    assert bad.problems() == ["point(s) 6 (side on roll's numbering) held by both sides"]
    assert not VariantPosition.from_counts({6: 1}, {19: 1}, variant="portes").is_valid()
    with pytest.raises(InvalidPositionError, match="held by both sides"):
        bad.check()


def test_pins_layout_swap_and_validity() -> None:
    # the side on roll's checker on its 6-point pinned by the opponent's checker on the
    # opponent's 19-point (the same point, opposite movement)
    pos = VariantPosition.from_counts(
        {24: 13, 20: 1, 6: 1}, {24: 14, 19: 1}, variant="plakoto", pinned=[6]
    )
    assert pos.is_valid() and pos.pinned_player == (6,) and pos.pinned_opponent == ()
    assert pos.text == "plakoto:24x13,20x1,6x1*:24x14,19x1"
    sw = pos.swap()
    assert sw.pinned_opponent == (6,) and sw.pinned_player == () and sw.swap() == pos
    assert sw.text == "plakoto:24x14,19x1:24x13,20x1,6x1*"
    # a pin needs a lone checker under opposing checkers
    alone = VariantPosition.from_counts({6: 1}, {}, variant="plakoto", pinned=[6])
    assert any("pinned checker" in p for p in alone.problems())
    two = VariantPosition.from_counts({6: 2}, {19: 1}, variant="plakoto", pinned=[6])
    assert any("pinned checker" in p for p in two.problems())
    # only Plakoto has pins; only the hitting games have a bar
    assert VariantPosition.from_counts({6: 1}, {}, variant="fevga", pinned=[6]).problems()
    assert VariantPosition.from_counts({25: 1}, {}, variant="plakoto").problems() == [
        "plakoto has no bar, but checkers are on it"
    ]
    assert VariantPosition.from_counts({25: 1}, {}, variant="tavla").is_valid()


def test_text_form_examples_and_errors() -> None:
    pos = VariantPosition.from_text("fevga:24x14,13x1:24x15")
    assert pos.player[12] == 1 and pos.player[23] == 14 and pos.opponent[23] == 15
    assert VariantPosition("fevga:24x14,13x1:24x15") == pos  # the constructor reads text
    assert parse_position("fevga:24x14,13x1:24x15") == pos
    assert parse_position("4HPwATDgc/ABMA") == Position.initial()
    # borne-off checkers are implicit; '-' is a side with nothing on the board
    done = VariantPosition.from_text("long-nardi:-:3x2")
    assert done.off == (15, 13) and done.is_game_over()
    assert VariantPosition.from_text("tavla:barx1,6x14:24x15").player[24] == 1
    bad = {
        "fevga:24x15": "VARIANT:SIDE:SIDE",
        "chess:24x15:24x15": "unknown variant",
        "backgammon:24x15:24x15": "gnubg IDs",
        "fevga:24y15:24x15": "cannot read",
        "fevga:25x1:24x15": "not in 1..24",
        "fevga:24x10,24x5:24x15": "listed twice",
        "fevga:24x16:24x15": "at most 15",
        "fevga::24x15": "empty",
        "plakoto:barx1*:24x15": "no pins",
    }
    for text, why in bad.items():
        with pytest.raises(InvalidIdError, match=why):
            VariantPosition.from_text(text)
    with pytest.raises(InvalidPositionError, match="held by both sides"):
        VariantPosition.from_text("fevga:12x1:24x15")  # my 12 is the opponent's head


def test_contact_in_both_geometries() -> None:
    # same movement: my checker on 5 and the opponent's on its 3 (my 15): I have passed it,
    # it has yet to reach my 5? No: its route goes its 3, 2, 1 (my 15, 14, 13) and off.
    race = VariantPosition.from_counts({5: 1}, {3: 1}, variant="fevga")
    assert not race.has_contact()
    # its checker on its 20 (my 8) still has to pass my checker on 5 (my 5 is its 17)
    assert VariantPosition.from_counts({5: 1}, {20: 1}, variant="fevga").has_contact()
    # my checker on 20 has to pass its checker on its 3 (my 15)
    assert VariantPosition.from_counts({20: 1}, {3: 1}, variant="fevga").has_contact()
    assert Position.initial("fevga").has_contact() and Position.initial("portes").has_contact()
    assert not VariantPosition.from_counts({5: 1}, {5: 1}, variant="portes").has_contact()


def test_diagram_shows_variant_and_pins() -> None:
    pos = VariantPosition.from_counts(
        {24: 13, 20: 1, 6: 1}, {24: 14, 19: 1}, variant="plakoto", pinned=[6]
    )
    text = pos.diagram()
    # issue 23: the text form already names the variant (no "plakoto: plakoto:")
    assert text.splitlines()[0] == f" {pos.text}" and pos.text.startswith("plakoto:")
    assert " x " in text  # the pinned checker at the base of its stack
    assert "lower-case x or o at the base of a stack is a pinned checker" in text
    assert "A = 10 ... F = 15" in text  # the 13- and 14-checker stacks are letters
    assert "X: 338 pips, 0 off (on roll)" in text  # 13 x 24 + 20 + 6
    assert "anticlockwise" in Position.initial("long-nardi").diagram()
    assert repr(pos) == f"VariantPosition({pos.text!r})"


def _game_positions(name: str, seed: int) -> list[VariantPosition]:
    rec = play_random_game(random.Random(seed), variant=name)
    return [s.position for s in rec.states if s.phase == Phase.ROLL]


@given(st.sampled_from(VARIANTS), st.integers(0, 2**32 - 1), st.integers(0, 10_000))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_text_round_trip_and_invariants_on_game_positions(name: str, seed: int, k: int) -> None:
    positions = _game_positions(name, seed)
    pos = positions[k % len(positions)]
    assert pos.is_valid(), pos.problems()
    assert VariantPosition.from_text(pos.text) == pos
    assert pos.swap().swap() == pos
    assert pos.pips() == pos.swap().pips()[::-1]
    assert sum(pos.player) + pos.player_off == 15 and sum(pos.opponent) + pos.opponent_off == 15
    assert get_ruleset(name).legal_plays(pos, (6, 5)).position is pos
