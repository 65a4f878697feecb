"""Bearoff plays and successor tables.

The numba kernel (gnubg's enumeration order) is compared with an independent pure-Python
generator written from the rules text (shared/seeds, theory §6): a checker moves a die's
pips toward the ace point; it may bear off only when all checkers are home (points 1..6),
exactly, or with a larger die from the highest occupied point; both dice (four for
doubles) must be used when possible, and when only one die of a non-double can be used,
the larger one if possible. Hand-checked examples come from code-anchors §0.7 and theory
§4.6, and the kernel is cross-checked against the rules model's ``Position.legal_plays``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.bearoff import play_results, rank, successors
from mathbg.bearoff.index import all_positions, pips
from mathbg.errors import InvalidRollError

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


# ------------------------------------------------------------------ reference generator
def _single_moves(board: tuple[int, ...], die: int) -> list[tuple[int, ...]]:
    """Positions after playing one die (rules text), points numbered 1..P."""
    out = []
    highest = max((p for p in range(len(board)) if board[p]), default=-1) + 1
    for point in range(1, len(board) + 1):
        if not board[point - 1]:
            continue
        target = point - die
        if target >= 1:
            new = list(board)
            new[point - 1] -= 1
            new[target - 1] += 1
            out.append(tuple(new))
        elif highest <= 6 and (target == 0 or point == highest):
            new = list(board)
            new[point - 1] -= 1
            out.append(tuple(new))
    return out


def reference_results(board: tuple[int, ...], roll: tuple[int, int]) -> set[tuple[int, ...]]:
    a, b = roll
    orders = [(a,) * 4] if a == b else [(a, b), (b, a)]
    found: list[tuple[int, tuple[int, ...], tuple[int, ...]]] = []  # (n used, dice, result)

    def walk(pos: tuple[int, ...], dice: tuple[int, ...], used: tuple[int, ...]) -> None:
        nexts = _single_moves(pos, dice[0]) if dice and any(pos) else []
        if not nexts:
            found.append((len(used), used, pos))
            return
        for nxt in nexts:
            walk(nxt, dice[1:], (*used, dice[0]))

    for order in orders:
        walk(board, order, ())
    most = max(n for n, _, _ in found)
    keep = [(used, pos) for n, used, pos in found if n == most]
    if most == 1 and a != b and any(used[0] == max(a, b) for used, _ in keep):
        keep = [(used, pos) for used, pos in keep if used[0] == max(a, b)]
    return {pos for _, pos in keep}


# ------------------------------------------------------------------ examples
def test_overshoot_only_from_the_highest_point():
    # code-anchors §0.7: 15 on the 6-point with 5-3 cannot bear off (6/1 6/3 is forced)
    assert play_results([0, 0, 0, 0, 0, 15], (5, 3)) == [(1, 0, 1, 0, 0, 13)]
    # with 6-5 one checker comes off (6/off 6/1)
    assert play_results([0, 0, 0, 0, 0, 15], (6, 5)) == [(1, 0, 0, 0, 0, 13)]


def test_taper_mike_two_checker_case_has_both_plays():
    # theory §4.6: checkers on the 6- and 4-points with 5-2: 6/1 4/2 or 6/4 4/off (and more)
    results = set(play_results([0, 0, 0, 1, 0, 1], (5, 2)))
    assert {(1, 1, 0, 0, 0, 0), (0, 0, 0, 1, 0, 0)} <= results


def test_must_bring_checkers_home_before_bearing_off():
    # a checker on the 7-point: 6-1 plays 7/1 then... 1/off is not allowed for the 6
    # before the move; 7/6/off? 7/1 (6) then 1/off (1): legal, all home after the 6
    assert play_results([0, 0, 0, 0, 0, 0, 1], (6, 1)) == [(0,) * 7]
    # two checkers on the 8-point with 2-1: nothing can be borne off
    assert set(play_results([0, 0, 0, 0, 0, 0, 0, 2], (2, 1))) == {
        (0, 0, 0, 0, 1, 0, 0, 1),
        (0, 0, 0, 0, 0, 1, 1, 0),
    }


def test_larger_die_when_only_one_can_be_played():
    # one checker on the 1-point... any die bears it off: the result is all off
    assert play_results([1], (6, 1)) == [(0,)]
    # one checker on the 6-point: 6-5 must use the 6 (6/off); 6/1 then off also uses both
    assert play_results([0, 0, 0, 0, 0, 1], (6, 5)) == [(0,) * 6]


def test_empty_board_has_no_plays():
    assert play_results([0, 0, 0], (3, 3)) == []


def test_bad_roll():
    with pytest.raises(InvalidRollError):
        play_results([0, 1], (7, 1))


# ------------------------------------------------------------------ vs the reference
@pytest.mark.slow
@pytest.mark.parametrize(("points", "checkers"), [(6, 3), (3, 15), (8, 2)])
def test_kernel_equals_reference_exhaustively(points, checkers):
    for board in all_positions(points, checkers)[1:]:
        b = tuple(int(x) for x in board)
        for roll in ROLLS:
            got = play_results(b, roll)
            assert len(got) == len(set(got)), (b, roll)
            assert set(got) == reference_results(b, roll), (b, roll)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(
    st.integers(6, 10)
    .flatmap(lambda p: st.lists(st.integers(0, 4), min_size=p, max_size=p))
    .filter(lambda c: 0 < sum(c) <= 15),
    st.sampled_from(ROLLS),
)
def test_kernel_equals_reference_random(counts, roll):
    assert set(play_results(counts, roll)) == reference_results(tuple(counts), roll)


# ------------------------------------------------------------------ successor table
def test_successor_table_structure():
    table = successors(6, 6)
    n = table.n_positions
    assert n == 924 and len(table.ptr) == n * 21 + 1
    assert table.ptr[21] == 0  # position 0 (all off) has no successors
    boards = all_positions(6, 6)
    counts = np.diff(table.ptr).reshape(n, 21)
    assert np.all(counts[1:] >= 1)
    owner = np.repeat(np.arange(n * 21) // 21, np.diff(table.ptr))
    # every play lowers the index and the pip count (code-anchors §1.4 (c))
    assert np.all(table.succ < owner)
    assert np.all(pips(boards[table.succ]) < pips(boards[owner]))
    # rows agree with the single-position generator
    for i in (1, 6, 27, 500, 923):
        for r, roll in enumerate(ROLLS):
            row = table.succ[table.ptr[i * 21 + r] : table.ptr[i * 21 + r + 1]]
            assert row.tolist() == [rank(p) for p in play_results(boards[i], roll)]
    assert table.of([0, 0, 0, 0, 0, 1], (3, 5)).tolist() == [0]


@pytest.mark.slow  # compiles and walks 6x15: about 4 CPU-s
@pytest.mark.parametrize(("points", "checkers"), [(6, 15), (8, 6), (2, 15)])
def test_move_table_walk_equals_checker_moves(points, checkers):
    # the fast generator (walking the one-checker move table) and the checker-moving one
    # give the same successors in the same order, for every position and roll
    from mathbg.bearoff._play_kernels import MAX_SUCC, roll_successors, roll_successors_indexed
    from mathbg.bearoff.index import binomial_table
    from mathbg.bearoff.plays import move_table

    table, outside2 = move_table(points, checkers)
    assert table.shape[0] == len(all_positions(points, checkers))
    rng = np.random.default_rng(3)
    boards = all_positions(points, checkers)
    a, b = np.empty(MAX_SUCC, np.int64), np.empty(MAX_SUCC, np.int64)
    tails = np.empty(points + 1, np.int64)
    binom = binomial_table()
    for i in rng.integers(1, len(boards), 400):
        for d0, d1 in ROLLS:
            m = roll_successors(boards[i], points, max(d0, d1), min(d0, d1), binom, a, tails)
            k = roll_successors_indexed(i, points, max(d0, d1), min(d0, d1), table, outside2, b)
            assert m == k and a[:m].tolist() == b[:k].tolist()


def test_successor_table_is_cached():
    assert successors(6, 4) is successors(6, 4)


# ------------------------------------------------------------------ vs the rules model
@pytest.mark.slow
def test_kernel_equals_rules_model_legal_plays():
    from mathbg.rules.position import Position

    rng = np.random.default_rng(5)
    boards = all_positions(8, 15)
    for i in itertools.chain(range(1, 200), rng.integers(1, len(boards), 300)):
        counts = [int(x) for x in boards[i]]
        pos = Position.from_counts(counts + [0] * (24 - len(counts)), [0] * 24)
        for roll in ROLLS:
            mine = set(play_results(counts, roll))
            theirs = {tuple(p.result.player[:8]) for p in pos.legal_plays(roll)}
            assert mine == theirs, (counts, roll)
