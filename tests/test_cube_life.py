"""The cube-life model (gnubg 1.07.001 eval.c EvalEfficiency) and position classes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mathbg.analysis.base import evaluation_class
from mathbg.cube.life import CLASSES, cube_life
from mathbg.errors import InvalidParameterError
from mathbg.rules.position import Position


def test_race_rule() -> None:
    # gnubg eval.c EvalEfficiency (race): 0.55 + 0.00125 pips, clamped to [0.6, 0.7].
    assert cube_life("race", 30) == 0.6
    assert cube_life("race", 100) == pytest.approx(0.675)
    assert cube_life("race", 160) == 0.7
    assert list(cube_life("race", [40, 120])) == pytest.approx([0.6, 0.7])


def test_class_values() -> None:
    # gnubg 1.07.001 `show cubeefficiency`: contact/crashed 0.68, one-sided bearoff 0.6.
    assert cube_life() == cube_life("contact") == cube_life("crashed") == 0.68
    assert cube_life("bearoff") == cube_life("one-sided bearoff") == 0.6
    assert cube_life("two-sided bearoff") == 0.6
    with pytest.raises(InvalidParameterError, match="contact, race, bearoff"):
        cube_life("middle game")
    with pytest.raises(InvalidParameterError, match="pip"):
        cube_life("race")
    with pytest.raises(InvalidParameterError, match="non-negative"):
        cube_life("race", -1)


@given(st.integers(0, 400), st.integers(0, 400))
def test_race_life_is_monotone_and_bounded(p: int, q: int) -> None:
    lo, hi = sorted((p, q))
    a, b = cube_life("race", lo), cube_life("race", hi)
    assert 0.6 <= a <= b <= 0.7
    assert np.isclose(a, min(max(0.55 + 0.00125 * lo, 0.6), 0.7))


def test_position_classifies_itself() -> None:
    start = Position.initial()
    race = Position.from_counts({6: 5, 8: 5, 10: 5}, {6: 5, 8: 5, 9: 5})
    small = Position.from_counts({1: 2, 3: 2}, {2: 3})
    big = Position.from_counts({1: 5, 2: 5, 3: 5}, {2: 3})
    bar = Position.from_counts({25: 1, 1: 2}, {1: 2})  # on the bar: contact
    assert [p.position_class for p in (start, race, small, big, bar)] == [
        "contact", "race", "bearoff", "bearoff", "contact",
    ]  # fmt: skip
    assert {p.position_class for p in (start, race, small)} <= set(CLASSES)
    assert evaluation_class(small) == "two-sided bearoff"
    assert evaluation_class(big) == "one-sided bearoff"
    assert evaluation_class(race) == "race" and evaluation_class(start) == "contact"


@given(st.lists(st.integers(0, 3), min_size=6, max_size=6),
       st.lists(st.integers(0, 3), min_size=6, max_size=6))  # fmt: skip
def test_home_boards_are_bearoffs(me: list[int], opp: list[int]) -> None:
    if not any(me) or not any(opp):
        return
    p = Position.from_counts({k + 1: n for k, n in enumerate(me) if n},
                             {k + 1: n for k, n in enumerate(opp) if n})  # fmt: skip
    assert p.position_class == "bearoff"
    assert cube_life(p.position_class, p.pips()[0]) == 0.6
