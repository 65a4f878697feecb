"""Play notation: writing, reading any spelling, and errors that say why."""

from __future__ import annotations

import pytest

from mathbg import Position
from mathbg.errors import AmbiguousPlayError, IllegalPlayError, InvalidNotationError
from mathbg.rules.notation import parse_notation

START = Position.initial()
# 0HPwATDgc/ABMA: the start position with an opposing blot on the mover's 20 point
BLOT20 = Position.from_id("0HPwATDgc/ABMA")


def P(player: dict, opponent: dict) -> Position:
    return Position.from_counts(player, opponent)


@pytest.mark.parametrize(
    "text",
    ["24/18 13/11", "13/11 24/18", "24/18, 13/11", " 24/18   13/11 ", "24/18 13/11"],
)
def test_any_order_and_spacing(text):
    plays = START.legal_plays((6, 2))
    assert plays.parse(text).result == P(
        {24: 1, 18: 1, 13: 4, 11: 1, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}
    )


@pytest.mark.parametrize("text", ["24/16(2)", "24/20(2) 20/16(2)", "24/20/16(2)", "24/16 24/16"])
def test_equivalent_spellings_of_doubles(text):
    assert START.legal_plays((4, 4)).parse(text).notation == "24/16(2)"


def test_hits_and_routes():
    plays = BLOT20.legal_plays((6, 4))
    # 24/14 via 18 does not hit; via 20 it does (gnubg writes 24/20*/14)
    assert plays.parse("24/14").hits == ()
    assert plays.parse("24/18/14").hits == ()
    assert plays.parse("24/20*/14").hits == (20,)
    # a written landing on a blot is a hit even without '*'
    assert plays.parse("24/20/14").hits == (20,)
    assert plays.parse("24/20 24/18").hits == (20,)


def test_bar_and_off_spellings():
    pos = P({25: 1, 6: 14}, {3: 1, 12: 14})  # blot on the mover's 22
    plays = pos.legal_plays((3, 1))
    assert plays.parse("bar/22* 6/5").notation == "bar/22* 6/5"
    assert plays.parse("25/22* 6/5") == plays.parse("bar/22* 6/5")
    home = P({6: 2}, {6: 15})
    assert home.legal_plays((6, 6)).parse("6/off 6/off").notation == "6/off(2)"
    assert home.legal_plays((6, 6)).parse("6/0(2)").notation == "6/off(2)"


def test_ambiguous_route():
    # one checker on 24; opposing blots on the mover's 18 and 20 (its 7 and 5). 6-4:
    # 24/14 goes through 18 (hit) or 20 (hit): two plays, "24/14" names neither.
    pos = P({24: 1, 6: 14}, {7: 1, 5: 1, 12: 13})
    plays = pos.legal_plays((6, 4))
    with pytest.raises(AmbiguousPlayError, match=r"24/18\*/14.*24/20\*/14|24/20\*/14.*24/18\*/14"):
        plays.parse("24/14")
    assert plays.parse("24/18*/14").hits == (18,)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("24/18 x/11", "'x' is not a point"),
        ("24-18", "cannot read|from/to"),
        ("18/24", "does not move forward"),
        ("24/18(5)", "1 to 4 times"),
        ("off/3", "'off' can only end"),
        ("13/bar", "'bar' can only start"),
        ("24/26", "not in 1..24"),
        ("24/off*", "nothing is hit"),
        ("*24/18", "not a point"),
        ("24/18**", "misplaced"),
    ],
)
def test_unreadable_notation(text, message):
    with pytest.raises(InvalidNotationError, match=message):
        parse_notation(text)


def test_illegal_plays_say_why():
    plays = START.legal_plays((6, 4))
    with pytest.raises(IllegalPlayError, match="13/12 cannot be played with 6-4"):
        plays.parse("24/18 13/12")
    with pytest.raises(IllegalPlayError, match="not enough checkers on point 9"):
        plays.parse("9/3 8/4")
    with pytest.raises(IllegalPlayError, match="point 19 is blocked"):
        START.legal_plays((5, 2)).parse("24/19 13/11")
    # the bar: 13/7 13/8 with a checker on the bar
    bar = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    with pytest.raises(IllegalPlayError, match="on the bar must enter"):
        bar.legal_plays((6, 5)).parse("13/7 13/8")
    # both dice must be played: 24/23 alone when 24/23/17 is possible
    both = P({24: 1}, {7: 2, 3: 13})
    with pytest.raises(IllegalPlayError, match="both dice of 6-1 must be played"):
        both.legal_plays((6, 1)).parse("24/23")
    # the larger die: 24/19 when only one die can be played and the 6 can
    larger = P({24: 1}, {12: 2, 2: 13})
    with pytest.raises(IllegalPlayError, match=r"must be the larger \(6\)"):
        larger.legal_plays((6, 5)).parse("24/19")
    # bearing off with a checker outside
    outside = P({8: 1, 6: 14}, {6: 15})
    with pytest.raises(IllegalPlayError, match="outside the home board"):
        outside.legal_plays((6, 5)).parse("6/off 6/1")
    # an empty play when a play exists, and a play when none exists
    with pytest.raises(IllegalPlayError, match="an empty play is illegal"):
        plays.parse("")
    dance = P({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5})
    with pytest.raises(IllegalPlayError, match="no play to choose"):
        dance.legal_plays((5, 4)).parse("")


def test_contains():
    plays = START.legal_plays((3, 1))
    assert "8/5 6/5" in plays
    assert "8/4" in plays
    assert "8/5 6/4" not in plays
    assert plays[0] in plays and plays[0].result in plays
    assert 42 not in plays


def test_play_objects():
    plays = START.legal_plays((3, 1))
    p = plays.parse("8/5 6/5")
    assert p.roll == (3, 1) and p.position == START
    assert sorted(p.moves) == [(6, 5), (8, 5)]
    assert sorted(p.dice) == [1, 3]
    assert p.next_position == p.result.swap()
    assert p.next_position.opponent == p.result.player
    assert str(p) == "8/5 6/5" and "8/5 6/5" in repr(p)
    assert plays.find(p.result) == p
    assert plays[-1] == plays[len(plays) - 1]
    assert len(plays[2:5]) == 3
    with pytest.raises(IndexError):
        plays[99]
    assert plays.boards.shape == (16, 2, 25)


@pytest.mark.parametrize(
    "text", ["1" * 5000 + "/3", "24/" + "2" * 5000, "8/5(" + "9" * 5000 + ")", "²/1", "8/5(٣)"]
)
def test_huge_or_foreign_numbers_are_a_notation_error_not_a_crash(text):
    """Python refuses int() on over 4,300 digits (ValueError) and reads other scripts' digits;
    a point or a count is ASCII with at most a few digits, and the message stays short."""
    with pytest.raises(InvalidNotationError) as err:
        parse_notation(text)
    assert len(str(err.value)) < 200
