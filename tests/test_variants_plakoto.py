"""Plakoto: pins instead of hits, closed points, bearing off only when free, the mother rule.

Expected plays and results are derived by hand from the rule texts (Wikipedia "Plakoto";
MSO rules; FIBS "The Board"; pbmserv; Ludii): landing on a single opposing checker pins
it; a pinned checker cannot move until released; a point with a pinning checker, or with
two or more checkers of one side, is closed to the other side; the pinning side may stack
on its pin; bear off only with all checkers home and free; the mother rule.
"""

from __future__ import annotations

import pytest

from mathbg.rules.dice import ROLLS
from mathbg.rules.game import GameState, Phase
from mathbg.rules.match import ResultKind
from mathbg.rules.variants import PLAKOTO, VariantPosition

# slow lane: compiling Plakoto's kernels costs about 9 CPU-s
pytestmark = pytest.mark.slow


def V(player: dict, opponent: dict, **pins) -> VariantPosition:
    return VariantPosition.from_counts(player, opponent, variant="plakoto", **pins)


def test_start_plays_by_hand() -> None:
    start = V({24: 15}, {24: 15})
    # 6-4: 24/18 24/20, or one checker 24/14 (via 18 or 20); nothing to pin yet
    assert set(start.legal_plays((6, 4)).notations()) == {"24/20 24/18", "24/14"}
    # 1-1: partitions of four 1s among checkers leaving 24: (1,1,1,1) (2,1,1) (2,2) (3,1) (4)
    assert set(start.legal_plays((1, 1)).notations()) == {
        "24/23(4)",
        "24/23(2) 24/22",
        "24/22(2)",
        "24/23 24/21",
        "24/20",
    }


# X's checker on 10; O's blot on X's 6 (O's 19) and O's two checkers on X's 5 (O's 20).
PIN_POS = V({10: 1}, {19: 1, 20: 2, 24: 12})


def test_landing_on_a_blot_pins_it() -> None:
    # 4-1: 10/6 pins; 6/5 and 10/9/5 are blocked (O has two on X's 5): only one die can be
    # played and it must be the larger: 10/6*, the O checker pinned under it.
    plays = PIN_POS.legal_plays((4, 1))
    assert plays.notations() == ["10/6*"]
    result = plays[0].result
    assert result.pinned_opponent == (19,) and result.pinned_player == ()
    assert result.opponent == PIN_POS.opponent  # nothing goes to a bar
    assert result.text == "plakoto:6x1:24x12,20x2,19x1*"
    assert plays[0].hits == (6,)
    assert PIN_POS.legal_plays((4, 1)).parse("10/6*") == plays[0]


def test_the_pinned_checker_has_no_plays() -> None:
    pinned = PIN_POS.legal_plays((4, 1))[0].next_position  # O on roll, its 19 pinned
    assert pinned.pinned_player == (19,)
    for roll in ((2, 1), (6, 5), (3, 3)):
        for play in pinned.legal_plays(roll):
            assert all(src != 19 for src, _ in play.moves)
            assert all(dst != 19 for _, dst in play.moves)  # its pinner holds the point
    # with only the pinned checker on the board, no roll can be played at all
    alone = V({19: 1}, {6: 1}, pinned=[19])
    assert alone.is_valid()
    assert all(len(alone.legal_plays(roll)) == 0 for roll in ROLLS)


def test_a_point_with_a_pinning_checker_is_closed_to_the_pinned_side() -> None:
    # X's checker on 6 is pinned by O's checker on O's 19; X's other checker on 10 rolls
    # 4-2: 10/6 is closed, 10/8/4 works (8 and 4 are empty): the only play is 10/4.
    pos = V({10: 1, 6: 1}, {19: 1, 24: 14}, pinned=[6])
    assert pos.legal_plays((4, 2)).notations() == ["10/4"]


def test_the_pinner_may_stack_on_its_pin_and_releases_by_leaving() -> None:
    # X pins O on X's 6 (O's 19); X's checker on 10 may join it. 4-3 by hand:
    # 10/6 6/3 (stack, then move one on: still pinned) = 10/7/3 = 6/3 10/6 (release, then
    # pin again): X on 6 and 3, the pin kept -> "10/3"; 10/7 6/2 = 6/2 10/7: the pinner
    # leaves, the O checker is free again. No bearing off (10 is outside the home board).
    pos = V({10: 1, 6: 1}, {19: 1, 24: 14}, pinned_opponent=[19])
    plays = pos.legal_plays((4, 3))
    results = {p.notation: p.result for p in plays}
    assert set(results) == {"10/3", "10/7 6/2"}
    assert results["10/3"].pinned_opponent == (19,)
    assert results["10/7 6/2"].pinned_opponent == ()


def test_bear_off_only_with_every_checker_free() -> None:
    # all of X's checkers are home, but the one on 3 is pinned: no bearing off, and 6-5
    # cannot move anything inside the board either -> no play
    pinned = V({3: 1, 2: 2}, {22: 1, 24: 14}, pinned=[3])
    assert pinned.legal_plays((6, 5)).notations() == []
    # free: the 6 bears off from the highest point (3), then the 5 from the 2
    free = V({3: 1, 2: 2}, {24: 15})
    assert free.legal_plays((6, 5)).notations() == ["3/off 2/off"]


# The mother rule. The side on roll ("M") pins the other side's last checker on its
# starting point (its 24-point, M's 1-point).
def _state(player: dict, opponent: dict, dice: tuple[int, int]) -> GameState:
    return GameState(
        position=V(player, opponent), turn=0, phase=Phase.MOVE, dice=dice, ruleset=PLAKOTO
    )


def test_mother_pinned_wins_two_points() -> None:
    # M has no checker left on its own start: pinning the mother ends the game, 2 points
    g = _state({3: 1, 6: 14}, {24: 1, 1: 14}, (2, 1))
    end = g.play("3/1* 6/5")
    assert end.is_over
    res = end.result
    assert (res.winner, res.kind, res.points, res.reason, res.name) == (
        0,
        ResultKind.GAMMON,
        2,
        "mother",
        "mother",
    )


def test_mother_exception_then_draw_or_win() -> None:
    # M still has a checker on its own start (its 24): pinning the mother does not end
    # the game (the exception: the pinned side may still pin M's mother)
    g = _state({24: 1, 3: 1, 6: 13}, {24: 1, 7: 14}, (2, 1))
    g = g.play("3/1* 6/5")
    assert g.phase == Phase.ROLL and g.turn == 1
    assert g.position.pinned_player == (24,)  # the pinned side, now on roll
    # (a) the pinned side pins M's mother (M's 24 is its 1): both mothers pinned: draw
    d = g.roll((6, 5)).play("7/1* 7/2")
    assert d.is_over
    assert (d.result.winner, d.result.kind, d.result.points, d.result.name) == (
        None,
        None,
        0,
        "draw",
    )
    # (b) it does not; M then moves its last start checker away: M wins by the mother
    g2 = g.roll((5, 4)).play("7/3 7/2")
    assert not g2.is_over
    w = g2.roll((3, 1)).play("24/21 6/5")
    assert w.is_over and (w.result.winner, w.result.points, w.result.name) == (0, 2, "mother")


def test_ordinary_results() -> None:
    # the winner bears off everything: 1 point if the loser bore off a checker, else 2
    end = PLAKOTO.game_end(V({}, {2: 3}))
    assert end == (ResultKind.SINGLE, "played")
    assert PLAKOTO.game_end(V({}, {2: 15})) == (ResultKind.GAMMON, "played")
    assert PLAKOTO.game_end(V({1: 1}, {2: 15})) is None


@pytest.mark.parametrize("roll", [(6, 5), (3, 3), (2, 1)])
def test_moving_off_a_pin_and_back_is_one_result(roll: tuple[int, int]) -> None:
    # plays are distinct resulting positions (pins included)
    pos = V({13: 2, 8: 3, 24: 10}, {17: 1, 11: 1, 24: 13}, pinned_opponent=[17])
    assert pos.is_valid()
    plays = pos.legal_plays(roll)
    results = [p.result for p in plays]
    assert len(results) == len(set(results))
    assert all(r.is_valid() for r in results)


def test_notation_marks_only_pins_that_remain() -> None:
    # pinning and moving on releases the checker: 10/6/4 is the same play as 10/8/4, no '*'
    one = V({10: 1}, {19: 1, 24: 14})
    assert one.legal_plays((4, 2)).notations() == ["10/4"]
    # two checkers on X's 6 keep the pin: marked; the other plays pin nothing
    two = V({10: 1, 8: 1}, {19: 1, 24: 14})
    plays = {p.notation: p for p in two.legal_plays((4, 2))}
    assert set(plays) == {"10/6* 8/6", "10/4", "8/2"}
    assert plays["10/6* 8/6"].hits == (6,) and plays["10/4"].hits == ()
    assert two.legal_plays((4, 2)).parse("10/6 8/6") == plays["10/6* 8/6"]
