"""Position: construction, views, validity flags, pips, swap, contact."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from rules_strategies import valid_positions

from mathbg import Position
from mathbg.errors import InvalidPositionError, UnknownVariantError
from mathbg.rules.position import PositionStatus


def test_initial_position():
    # standard set-up (bkgm.com rules; seed text 001 section 3): 2 on the 24-point,
    # 5 on the 13, 3 on the 8, 5 on the 6; 167 pips each.
    start = Position.initial()
    row = [0] * 25
    row[23], row[12], row[7], row[5] = 2, 5, 3, 5
    assert start.player == tuple(row) == start.opponent
    assert start.pips() == (167, 167)
    assert start.off == (0, 0)
    assert start.swap() == start
    assert start.has_contact() and not start.is_race()
    assert start.is_valid() and start.status() == PositionStatus.VALID
    assert Position.initial("backgammon") == Position.initial(" Backgammon ")


def test_unknown_variant():
    with pytest.raises(UnknownVariantError, match=r"unknown variant 'checkers'.*backgammon"):
        Position.initial("checkers")


def test_from_counts_forms_agree():
    a = Position.from_counts({6: 2, "bar": 1}, {1: 1})
    b = Position.from_counts([0, 0, 0, 0, 0, 2] + [0] * 18 + [1], [1] + [0] * 23)
    c = Position.from_counts({6: 2, 25: 1}, {1: 1})
    assert a == b == c
    assert a.player[24] == 1 and a.player_off == 12 and a.opponent_off == 14
    # the bar counts 25 pips
    assert a.pips() == (2 * 6 + 25, 1)


def test_board_view_is_tanboard():
    pos = Position.from_counts({6: 2, 25: 1}, {3: 4})
    board = pos.board
    assert board.shape == (2, 25) and board.dtype == np.uint8
    # row 0 = side not on roll, row 1 = side on roll; column k = own point k + 1, 24 = bar
    assert board[1, 5] == 2 and board[1, 24] == 1 and board[0, 2] == 4
    assert not board.flags.writeable
    assert Position.from_board(board) == pos
    assert Position.from_board(board[::-1]) == pos.swap()


def test_swap_exchanges_sides():
    pos = Position.from_counts({6: 2, 25: 1}, {3: 4})
    s = pos.swap()
    assert s.player == pos.opponent and s.opponent == pos.player
    assert s.pips() == pos.pips()[::-1]
    assert s.swap() == pos


def test_status_flags_each_problem():
    too_many = Position.from_counts({6: 16}, {6: 15})
    assert too_many.status() == PositionStatus.TOO_MANY_CHECKERS_PLAYER
    assert too_many.swap().status() == PositionStatus.TOO_MANY_CHECKERS_OPPONENT
    # the mover's point 7 is the opponent's point 18
    shared = Position.from_counts({7: 1}, {18: 1})
    assert shared.status() == PositionStatus.SHARED_POINT
    closed = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 25: 1}
    assert Position.from_counts(closed, closed).status() == PositionStatus.BOTH_CLOSED_OUT
    assert Position.from_counts({}, {}).status() == PositionStatus.NO_CHECKERS
    both = Position.from_counts({7: 16}, {18: 1})
    assert both.status() == (PositionStatus.TOO_MANY_CHECKERS_PLAYER | PositionStatus.SHARED_POINT)
    with pytest.raises(InvalidPositionError) as info:
        both.check()
    assert "16 checkers" in str(info.value) and "7" in str(info.value)


def test_lenient_construction_keeps_invalid_positions():
    pos = Position.from_counts({6: 20}, {})
    assert not pos.is_valid()
    assert pos.player_off == 0
    assert "from_counts" in repr(pos)


def test_bad_constructor_input():
    with pytest.raises(InvalidPositionError, match="50 cells"):
        Position(b"\x00" * 49)
    with pytest.raises(InvalidPositionError, match="24 or 25 counts"):
        Position.from_counts([1, 2, 3], [])
    with pytest.raises(InvalidPositionError, match="point 26"):
        Position.from_counts({26: 1}, {})
    with pytest.raises(InvalidPositionError, match="-1 checkers"):
        Position.from_counts({3: -1}, {})
    with pytest.raises(InvalidPositionError, match="shape"):
        Position.from_board(np.zeros((3, 25)))


def test_contact_and_race():
    # the mover's rearmost checker on 7, the opponent's on its 18 (= the mover's 7)... no:
    # contact iff p + q > 25 (p, q = rearmost points in each side's own numbering)
    assert not Position.from_counts({7: 1}, {18: 1}).has_contact()  # p + q = 25, shared
    assert Position.from_counts({8: 1}, {18: 1}).has_contact()  # 26 > 25
    assert not Position.from_counts({6: 15}, {6: 15}).has_contact()
    assert Position.from_counts({6: 14, 25: 1}, {6: 15}).has_contact()  # bar = 25
    assert Position.from_counts({6: 1}, {}).is_race()


def test_repr_round_trips():
    pos = Position.from_id("zGbiIQgxH/AAWA")
    assert eval(repr(pos), {"Position": Position}) == pos


def test_diagram_mentions_pips():
    text = Position.initial().diagram()
    assert "167 pips" in text and "4HPwATDgc/ABMA" in text
    assert text.count("\n") >= 13


@pytest.mark.slow
@given(valid_positions())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_views_are_consistent(pos):
    c = pos.cells
    assert pos.player == tuple(c[25:]) and pos.opponent == tuple(c[:25])
    assert sum(pos.player) + pos.player_off == 15
    assert sum(pos.opponent) + pos.opponent_off == 15
    assert pos.pips()[0] == sum((k + 1) * n for k, n in enumerate(pos.player))
    assert pos.swap().swap() == pos
    assert hash(Position(bytes(c))) == hash(pos)
