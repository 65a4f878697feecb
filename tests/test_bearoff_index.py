"""The combinatorial bearoff index (gnubg's PositionBearoff order).

Expected values: the test vectors of code-anchors §1.4 (checked against gnubg's
``position_bearoff``), sizes C(P+C, P) (stars and bars), and the block structure that
follows from the closed form (index 0 = all off, S-checker block starts at C(S-1+P, P)).
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.bearoff import all_positions, n_positions, rank, unrank
from mathbg.bearoff.index import block_start, pips, validate_counts
from mathbg.errors import DatabaseError, InvalidPositionError, MathbgError

# code-anchors §1.4 (P = 6), checked against gnubg
VECTORS = [
    ([0, 0, 0, 0, 0, 0], 0),
    ([1, 0, 0, 0, 0, 0], 1),
    ([0, 1, 0, 0, 0, 0], 2),
    ([0, 0, 0, 0, 0, 1], 6),
    ([2, 0, 0, 0, 0, 0], 7),
    ([15, 0, 0, 0, 0, 0], 38760),
    ([3, 3, 3, 3, 3, 0], 43685),
    ([0, 0, 0, 0, 0, 15], 54263),
    ([0, 0, 0, 0, 0, 6], 923),
]


@pytest.mark.parametrize(("counts", "expected"), VECTORS)
def test_gnubg_vectors(counts, expected):
    assert rank(counts) == expected
    assert unrank(expected, 6).tolist() == counts


def test_vectorised_rank_and_unrank():
    boards = np.array([c for c, _ in VECTORS])
    assert rank(boards).tolist() == [e for _, e in VECTORS]
    assert unrank(np.array([e for _, e in VECTORS]), 6).tolist() == boards.tolist()


@pytest.mark.parametrize(
    ("points", "checkers", "size"),
    # theory §4.1 sizes
    [(6, 15, 54264), (6, 6, 924), (7, 15, 170544), (8, 15, 490314), (10, 15, 3268760)],
)
def test_sizes(points, checkers, size):
    assert n_positions(points, checkers) == size == comb(points + checkers, points)


@pytest.mark.parametrize(("points", "checkers"), [(1, 5), (3, 4), (6, 6), (6, 15), (8, 9)])
def test_all_positions_is_the_index_order(points, checkers):
    boards = all_positions(points, checkers)
    assert boards.shape == (comb(points + checkers, points), points)
    np.testing.assert_array_equal(rank(boards, points), np.arange(len(boards)))
    np.testing.assert_array_equal(unrank(np.arange(len(boards)), points), boards)
    # distinct, and every vector of <= C checkers appears exactly once
    assert len({tuple(b) for b in boards}) == len(boards)
    assert boards.sum(axis=1).max() == checkers


def test_blocks_by_checker_count_and_prefix_property():
    boards = all_positions(6, 15)
    totals = boards.sum(axis=1)
    # the S-checker block starts at C(S - 1 + P, P): totals are non-decreasing
    assert np.all(np.diff(totals) >= 0)
    for s in range(16):
        assert block_start(6, s) == (0 if s == 0 else comb(s - 1 + 6, 6))
        assert totals[block_start(6, s)] == s
    # the 6x6 space is a prefix of the 6x15 space
    np.testing.assert_array_equal(all_positions(6, 6), boards[:924])


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 10)
    .flatmap(lambda p: st.lists(st.integers(0, 4), min_size=p, max_size=p))
    .filter(lambda c: sum(c) <= 15)
)
def test_rank_unrank_round_trip(counts):
    p, total = len(counts), sum(counts)
    idx = rank(counts)
    # inside its checker-count block [C(S-1+P, P), C(S+P, P))
    assert block_start(p, total) <= idx < comb(p + total, p)
    assert unrank(idx, p).tolist() == counts


def test_pips():
    assert pips([0, 0, 0, 0, 0, 15]) == 90
    assert pips(np.array([[1, 0, 0], [0, 0, 2]])).tolist() == [1, 6]


@pytest.mark.parametrize(
    ("counts", "error", "fragment"),
    [
        ([0, 0, 0, 0, 0, 16], InvalidPositionError, "16 checkers"),
        ([0, -1, 0], InvalidPositionError, ">= 0"),
        ([0.5, 0], InvalidPositionError, "integers"),
        ([0, 0, 0, 0, 0, 0, 1], DatabaseError, "point 7"),
        ([0, 0, 0, 0, 0, 7], DatabaseError, "at most 6"),
        ("abc", InvalidPositionError, "checker counts"),
    ],
)
def test_validation_errors(counts, error, fragment):
    with pytest.raises(error, match=fragment) as info:
        validate_counts(counts, 6, 6)
    assert isinstance(info.value, MathbgError) and isinstance(info.value, ValueError)


def test_validation_pads_and_accepts_empty_extra_points():
    assert validate_counts([1, 2], 4).tolist() == [1, 2, 0, 0]
    assert validate_counts([1, 2, 0, 0, 0, 0, 0, 0], 4).tolist() == [1, 2, 0, 0]
