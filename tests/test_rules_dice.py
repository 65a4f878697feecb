"""Dice: the 21 rolls and their weights, parsing, the opening roll."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest

from mathbg.errors import InvalidRollError
from mathbg.rules.dice import (
    ROLL_INDEX,
    ROLLS,
    WEIGHTS,
    opening_roll,
    parse_roll,
    probability,
)


def test_21_rolls_weights_from_36_ordered_outcomes():
    # count the 36 ordered outcomes of two dice by unordered roll
    counts = Counter(
        tuple(sorted(d, reverse=True)) for d in itertools.product(range(1, 7), repeat=2)
    )
    assert len(ROLLS) == 21 == len(counts)
    assert dict(zip(ROLLS, WEIGHTS, strict=True)) == counts
    assert sum(WEIGHTS) == 36
    assert sum(Fraction(w, 36) for w in WEIGHTS) == 1
    assert all(ROLL_INDEX[r] == i for i, r in enumerate(ROLLS))


def test_probability():
    assert probability((6, 6)) == pytest.approx(1 / 36)
    assert probability((4, 6)) == pytest.approx(2 / 36)


@pytest.mark.parametrize(
    ("roll", "expected"),
    [((6, 4), (6, 4)), ((4, 6), (6, 4)), ("64", (6, 4)), ("4-6", (6, 4)), ([3, 3], (3, 3))],
)
def test_parse_roll(roll, expected):
    assert parse_roll(roll) == expected


@pytest.mark.parametrize(
    ("roll", "message"),
    [
        ((7, 1), "die 7"),
        ((0, 1), "die 0"),
        ((1, 2, 3), "got 3"),
        ("6", "two dice"),
        (5, "expected two dice"),
        ((1.5, 2), "not a die value"),
        ((True, 2), "not a die value"),
    ],
)
def test_bad_rolls(roll, message):
    with pytest.raises(InvalidRollError, match=message):
        parse_roll(roll)


def test_opening_roll_never_double_and_uniform():
    # each side rolls one die, ties re-rolled: the 30 ordered non-tie pairs are equally
    # likely, so each of the 15 non-double rolls has probability 1/15 and the winner is
    # player 0 half of the time.
    rng = random.Random(7)
    n = 30_000
    outcomes = [opening_roll(rng) for _ in range(n)]
    assert all(o.roll[0] > o.roll[1] for o in outcomes)
    by_roll = Counter(o.roll for o in outcomes)
    assert len(by_roll) == 15
    for c in by_roll.values():
        assert abs(c / n - 1 / 15) < 5 * (1 / 15 * 14 / 15 / n) ** 0.5
    wins0 = sum(o.winner == 0 for o in outcomes)
    assert abs(wins0 / n - 0.5) < 5 * (0.25 / n) ** 0.5
    # ties: P(tie) = 1/6 per throw, so the mean number of ties is (1/6)/(5/6) = 0.2
    mean_ties = sum(o.ties for o in outcomes) / n
    assert abs(mean_ties - 0.2) < 0.02
