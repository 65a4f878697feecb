"""Fevga and Long Nardi: same-direction travel, single-checker blocks, start and prime rules.

Expected plays are derived by hand from the rule texts. Fevga (Wikipedia "Fevga" after
Mamoun 2018; BrainKing; iTavli; aipbg.ru): both sides start on the far right corner,
diagonally opposite (the opponent's start is the mover's 12-point), and move anticlockwise;
one checker holds a point; the first checker must pass the opponent's start before a
second leaves; the start quarter (own 19-24) is never full; a six-block trapping every
opposing checker must be opened (or, as a regional alternative, may not be built). Long
Nardi (Wikipedia "Long Nardy"; Georgian federation rules; bkgm.com Narde): one checker
leaves the head per turn, two on a first roll of 6-6, 4-4 or 3-3; no six-block unless an
opposing checker is already ahead of it.
"""

from __future__ import annotations

import pytest

from mathbg import Position
from mathbg.errors import InvalidParameterError
from mathbg.rules.variants import FEVGA, LONG_NARDI, VariantPosition

# slow lane: compiling the Fevga and Long Nardi kernels costs about 11 CPU-s
pytestmark = pytest.mark.slow


def F(player: dict, opponent: dict) -> VariantPosition:
    return VariantPosition.from_counts(player, opponent, variant="fevga")


def N(player: dict, opponent: dict) -> VariantPosition:
    return VariantPosition.from_counts(player, opponent, variant="long-nardi")


def plays(pos: VariantPosition, roll: tuple[int, int], rules=None) -> set[str]:
    ps = pos.legal_plays(roll) if rules is None else rules.legal_plays(pos, roll)
    return set(ps.notations())


# ---------------------------------------------------------------------------- Fevga


@pytest.mark.parametrize(
    ("roll", "expected"),
    [
        # one checker leaves; 18/12 is blocked by the opponent's start, and no second
        # checker may leave before the first passes it: one 6 only
        ((6, 6), {"24/18"}),
        # 24/19/14/9 passes the opponent's start (the 12): then a second checker may leave
        ((5, 5), {"24/4", "24/19 24/9"}),
        # 24/21/18/15, then 15/12 blocked, no second checker: three 3s
        ((3, 3), {"24/15"}),
        ((4, 4), {"24/16"}),
        # non-doubles: one checker plays both dice (24/18/13 or 24/19/13)
        ((6, 5), {"24/13"}),
        ((6, 1), {"24/17"}),
    ],
)
def test_fevga_first_checker_rule_from_the_start(roll, expected) -> None:
    assert plays(Position.initial("fevga"), roll) == expected


def test_fevga_second_checker_leaves_once_the_first_has_passed() -> None:
    # the first checker on 13 has not passed the opponent's start (X's 12) yet. 2-1:
    # 13/11 passes, then the 1 may take a second checker off: 24/23 13/11; or 13/11/10.
    # 13/12 is blocked and 24/23 first is illegal (nothing has passed yet).
    pos = F({24: 14, 13: 1}, {24: 15})
    assert plays(pos, (2, 1)) == {"13/10", "24/23 13/11"}
    # once a checker has passed, any number may leave the start
    passed = F({24: 14, 9: 1}, {24: 15})
    assert "24/23 24/22" in plays(passed, (2, 1))


def test_fevga_one_checker_holds_a_point() -> None:
    # a single opposing checker on X's 8 (the opponent's 20): 13/8 is closed; 5-5 can then
    # move nothing (13/8 blocked, no second checker may leave before one passes)
    assert plays(F({24: 14, 13: 1}, {24: 14, 20: 1}), (5, 5)) == set()
    # the same checker one point further on (X's 7, its 19): 13/8/3 passes, then two more
    # checkers may leave: every play uses all four 5s
    open_ = F({24: 14, 13: 1}, {24: 14, 19: 1})
    assert all(sum(m[0] - m[1] for m in p.moves) == 20 for p in open_.legal_plays((5, 5)))


def test_fevga_start_quarter_is_never_full() -> None:
    # X holds 20-24 (one each), has passed (checker on 5); 24/19 with the 5 fills the
    # quarter unless the 1 empties one of those points again
    pos = F({24: 10, 23: 1, 22: 1, 21: 1, 20: 1, 5: 1}, {24: 15})
    got = plays(pos, (5, 1))
    assert "24/19 5/4" not in got and "24/19 24/23" not in got
    assert "24/19 20/19" in got  # the 20-point is emptied again
    assert "23/18 5/4" in got
    free = FEVGA.with_options(start_quarter_rule=False)
    assert "24/19 5/4" in plays(pos, (5, 1), free)


# X's block 6-11 lies on the opponent's 18-23, in front of all 15 of its checkers (on its
# 24): a trapping six-prime.
TRAP = F({11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 6: 1, 3: 9}, {24: 15})


def test_fevga_trapping_prime_must_be_opened() -> None:
    # 2-1: the only play keeping the block is 3/2 3/1 (every checker on 6-11 would leave a
    # gap nothing behind can fill); it is illegal while some play opens the block
    got = plays(TRAP, (2, 1))
    assert "3/2 3/1" not in got and got
    for p in TRAP.legal_plays((2, 1)):
        assert not all(p.result.player[k - 1] for k in range(6, 12))
    allowed = FEVGA.with_options(prime_rule="allowed")
    assert "3/2 3/1" in plays(TRAP, (2, 1), allowed)


def test_fevga_prime_building_default_and_regional_ban() -> None:
    # X holds 7-11 and has a checker on 13: 13/7/6 (6 then 1) completes 6-11 in front of
    # every opposing checker. Allowed by default (it must be opened later); banned by the
    # regional alternative (and in Long Nardi)
    pos = F({11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 13: 1, 3: 9}, {24: 15})
    assert "13/6" in plays(pos, (6, 1))
    assert "13/6" not in plays(pos, (6, 1), FEVGA.with_options(prime_rule="ban"))


# ---------------------------------------------------------------------------- Long Nardi


@pytest.mark.parametrize(
    ("roll", "expected"),
    [
        # first roll 6-6: one checker cannot go on (18/12 is the opponent's head): two
        # checkers leave the head, 24/18(2)
        ((6, 6), {"24/18(2)"}),
        # 4-4: 24/20/16 twice (16/12 blocked)
        ((4, 4), {"24/16(2)"}),
        # 3-3: 24/21/18/15 + 24/21, or 24/18 twice
        ((3, 3), {"24/18(2)", "24/21 24/15"}),
        # 5-5 is not an exception: one checker, 24/19/14/9/4
        ((5, 5), {"24/4"}),
        # non-doubles: one checker from the head plays both dice
        ((6, 5), {"24/13"}),
        ((2, 1), {"24/21"}),
    ],
)
def test_nardi_first_roll_head_rule(roll, expected) -> None:
    assert plays(Position.initial("long-nardi"), roll) == expected


def test_nardi_second_players_first_roll_and_later_rolls() -> None:
    # the second player's first roll is also a first roll (all 15 on its head)
    after = Position.initial("long-nardi").legal_plays((6, 6))[0].next_position
    assert after.player[23] == 15
    assert plays(after, (6, 6)) == {"24/18(2)"}
    # not a first roll (a checker has left): only one checker leaves the head. 6-6: 24/18
    # and nothing else moves (18/12 blocked for both)
    later = N({24: 14, 18: 1}, {24: 15})
    assert plays(later, (6, 6)) == {"24/18"}
    # 4-4: the head checker takes h = 0, 1 or 2 steps (16/12 blocked), the other 4 - h
    assert plays(later, (4, 4)) == {"18/2", "24/20 18/6", "24/16 18/10"}


def test_nardi_azerbaijani_first_roll_flag() -> None:
    # Şeş-Beş (Ludii): only 6-6 and 4-4 let two checkers leave on the first roll
    seshbesh = LONG_NARDI.with_options(first_roll_doubles=(6, 4))
    start = Position.initial("long-nardi")
    assert plays(start, (3, 3), seshbesh) == {"24/15"}
    assert plays(start, (6, 6), seshbesh) == {"24/18(2)"}


def test_nardi_no_six_block_without_an_opposing_checker_ahead() -> None:
    # 13/7/6 would complete 6-11 (the opponent's 18-23) with all its checkers behind
    pos = N({11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 13: 1, 3: 9}, {24: 15})
    got = plays(pos, (6, 1))
    assert "13/6" not in got and got
    for p in pos.legal_plays((6, 1)):
        assert not all(p.result.player[k - 1] for k in range(6, 12))
    # one opposing checker already past the block (its 10-point, X's 22): allowed
    ahead = N({11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 13: 1, 3: 9}, {24: 14, 10: 1})
    assert "13/6" in plays(ahead, (6, 1))


def test_nardi_single_checker_blocks_and_bear_off() -> None:
    # the opponent's single checker on its 14 (X's 2) blocks 6/2. 4-4 with X on 6 and 5
    # (all home): no checker on 4 to bear off; 5/1 moves; 6/2 is blocked; the checker on 1
    # may not bear off with a 4 while the 6 stands higher. So one 4 only: 5/1.
    pos = N({6: 1, 5: 1}, {14: 1, 24: 14})
    assert plays(pos, (4, 4)) == {"5/1"}


def test_nardi_options_are_checked() -> None:
    with pytest.raises(InvalidParameterError, match="head rule"):
        FEVGA.with_options(first_roll_doubles=(6,))
    with pytest.raises(InvalidParameterError, match="hitting game"):
        LONG_NARDI.with_options(home_hit_and_run=False)
