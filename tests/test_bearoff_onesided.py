"""One-sided bearoff distributions: theory and published reference values.

Sources of the expected numbers:
- closed forms derived in the comments (single checkers, first-roll probabilities);
- the minimal-wastage table of Stig Eide (r.g.b. 1996) and the expected-roll values of
  theory §4.6 (points written 1..6 left to right: "000357" = 3 on the 4-point, 5 on the
  5-point, 7 on the 6-point);
- Taper_Mike's count (bgonline 2013, theory §4.6) of position-rolls where the EPC-best
  play bears off nothing although a checker could come off: 3,825 (3,626 positions);
- gnubg's shipped file for two distributions quoted in code-anchors §1.5 (the full
  differential test against gnubg is in test_bearoff_gnubg.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.bearoff import OneSided, TwoSided, play_results, rank, successors
from mathbg.bearoff import onesided as os_
from mathbg.bearoff.generate import onesided as os_gen
from mathbg.bearoff.index import all_positions
from mathbg.errors import DatabaseError, InvalidParameterError, InvalidPositionError

EPC_FACTOR = 49 / 6  # average pips of a roll


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> OneSided:
    return OneSided.build(6, 15, path=tmp_path_factory.mktemp("os") / "os", progress=False)


@pytest.fixture(scope="module")
def exact() -> os_gen.OneSidedArrays:
    return os_gen.build_arrays(6, 15, policy="min-rolls")


def pos(text: str) -> list[int]:
    """'000357' -> counts on points 1..6."""
    return [int(c) for c in text]


def test_distributions_sum_to_one(db):
    dist = np.asarray(db._dist)
    np.testing.assert_allclose(dist.sum(axis=1), 1.0, atol=1e-12)
    assert np.all(dist >= 0)
    gammon = np.asarray(db._gammon)
    np.testing.assert_allclose(gammon.sum(axis=1), 1.0, atol=1e-12)
    # 0 rolls only for the empty board; gammon: nobody is off at roll 0 with 15 on board
    assert dist[0, 0] == 1.0 and np.all(dist[1:, 0] == 0)
    assert np.all(gammon[:, 0] == 0)


@pytest.mark.parametrize("point", range(1, 7))
def test_single_checker_closed_form(db, point):
    # one checker on `point` comes off in one roll iff some die, the sum, or 4 x a double
    # reaches it; otherwise it is on point <= 5... and any roll takes it off next time.
    hits = sum(
        (1 if a == b else 2)
        for a in range(1, 7)
        for b in range(1, a + 1)
        if (4 * a >= point if a == b else max(a, b) >= point or a + b >= point)
    )
    counts = [0] * 6
    counts[point - 1] = 1
    d = db.distribution(counts)
    assert d[1] == pytest.approx(hits / 36, abs=1e-15)
    assert d[2] == pytest.approx(1 - hits / 36, abs=1e-15)
    assert db.mean_rolls(counts) == pytest.approx(2 - hits / 36, abs=1e-14)


def test_one_checker_on_the_six_point(db):
    # 27 of 36 rolls bear it off (fail: 1-1, 2-1, 3-1, 4-1, 3-2): mean 1.25
    assert db.distribution([0, 0, 0, 0, 0, 1])[:3].tolist() == [0.0, 0.75, 0.25]
    assert db.mean_rolls([0, 0, 0, 0, 0, 1]) == 1.25
    assert db.epc([0, 0, 0, 0, 0, 1]) == pytest.approx(1.25 * EPC_FACTOR)
    assert db.wastage([0, 0, 0, 0, 0, 1]) == pytest.approx(1.25 * EPC_FACTOR - 6)
    assert round(db.wastage([0, 0, 0, 0, 0, 1]), 2) == 4.21


@pytest.mark.parametrize(
    ("text", "mean", "sd"),
    [
        ("00000F", 12.2662, 1.5125),  # 15 on the 6-point (the slowest position)
        ("F00000", 6.9796, None),  # 15 on the ace point
        ("033333", 8.4596, None),  # 3 on each of points 2-6
        ("000357", 10.5391, None),
        ("540000", 4.4101, None),  # 5 on the ace, 4 on the 2-point
    ],
)
def test_published_expected_rolls(db, text, mean, sd):
    counts = [int(c, 16) for c in text]
    assert db.mean_rolls(counts) == pytest.approx(mean, abs=6e-5)
    if sd is not None:
        assert db.std_rolls(counts) == pytest.approx(sd, abs=6e-5)


def test_epc_and_wastage_of_the_540000_position(db):
    # theory §4.6: 4.4101 rolls, EPC 36.02, wastage 23.02 (13 pips)
    counts = pos("540000")
    assert round(db.epc(counts), 2) == 36.02
    assert round(db.wastage(counts), 2) == 23.02
    assert db.epc(counts) == pytest.approx(db.mean_rolls(counts) * EPC_FACTOR)


@pytest.mark.parametrize(
    ("text", "wastage"),
    # Stig Eide's minimal-wastage table (theory §4.6)
    [
        ("000001", 4.21),
        ("000010", 4.30),
        ("101000", 4.62),
        ("110000", 5.17),
        ("200000", 6.17),
        ("000011", 5.01),
        ("000002", 5.23),
        ("000222", 6.25),
        ("000123", 6.15),
        ("000357", 7.07),
    ],
)
def test_wastage_table(db, text, wastage):
    assert round(db.wastage(pos(text)), 2) == pytest.approx(wastage, abs=1e-9)


def test_eight_on_the_six_point_wastes_more_than_000144(db):
    # theory §4.6: 48 pips each; wastage 8.177 vs 6.691
    assert db.wastage(pos("000008")) == pytest.approx(8.177, abs=6e-4)
    assert db.wastage(pos("000144")) == pytest.approx(6.691, abs=6e-4)


def test_two_checkers_on_the_six_point_vs_gnubg_file_values(db):
    # code-anchors §1.5 (gnubg_os0.bd, 16-bit): .11112, .67129, .21447, .00313; mean 2.1096
    d = db.distribution([0, 0, 0, 0, 0, 2])
    np.testing.assert_allclose(d[1:5], [0.11112, 0.67129, 0.21447, 0.00313], atol=2e-5)
    assert db.mean_rolls([0, 0, 0, 0, 0, 2]) == pytest.approx(2.1096, abs=1e-4)


def test_gammon_distribution_of_fifteen_on_the_six_point(db):
    # first checker off in one roll: any 6 (11), 5-1, 4-2 (2 each), 3-3, 2-2 -> 17/36
    g = db.gammon_distribution([0, 0, 0, 0, 0, 15])
    assert g[1] == pytest.approx(17 / 36, abs=1e-15)
    assert g.sum() == pytest.approx(1.0)
    # a position with a checker already off has nothing to save: unit mass at 0
    assert db.gammon_distribution([0, 0, 0, 0, 0, 14])[:2].tolist() == [1.0, 0.0]
    assert db.mean_gammon_rolls([0, 0, 0, 0, 0, 14]) == 0.0


@pytest.mark.slow
def test_taper_mike_dont_bear_off_count(exact):
    # position-rolls (non-doubles) where a checker could be borne off but the play of
    # minimum expected rolls bears none off: 3,825 in 3,626 positions; the only
    # two-checker case is 6- and 4-points with 5-2 (6/1 4/2 beats 6/4 4/off)
    mean = os_.mean_rolls(exact.dist)
    table = successors(6, 15)
    boards = all_positions(6, 15)
    totals = boards.sum(axis=1)
    rows = np.repeat(np.arange(len(table.ptr) - 1), np.diff(table.ptr))  # i*21 + r
    owner = rows // 21
    off = totals[table.succ] < totals[owner]
    best_off = np.full(len(table.ptr) - 1, np.inf)
    best_stay = np.full(len(table.ptr) - 1, np.inf)
    np.minimum.at(best_off, rows[off], mean[table.succ[off]])
    np.minimum.at(best_stay, rows[~off], mean[table.succ[~off]])
    doubles = np.array([a == b for a in range(1, 7) for b in range(1, a + 1)])
    hit = ~doubles[np.arange(len(best_off)) % 21] & (best_stay < best_off - 1e-12)
    hit &= np.isfinite(best_off)
    hit_rows = np.nonzero(hit)[0]
    assert (len(hit_rows), len(np.unique(hit_rows // 21))) == (3825, 3626)
    two = [(boards[k // 21].tolist(), k % 21) for k in hit_rows if totals[k // 21] == 2]
    assert two == [([0, 0, 0, 1, 0, 1], 11)]  # roll number 11 = (5, 2)
    # 6/1 4/2 leaves 1.000 rolls, 6/4 4/off 1.056 (theory §4.6)
    assert mean[1 + 2] == 1.0  # index of [1,1,0,0,0,0] is 3
    np.testing.assert_allclose(mean[4], 1 + 2 / 36)  # [0,0,0,1,0,0]: fails only 1-1, 2-1


@pytest.mark.slow  # its database fixture: about 14 CPU-s
def test_min_rolls_policy_is_optimal_for_the_mean(db, exact):
    # Bellman: choosing the play of least expected rolls at every step minimises the
    # expectation, so gnubg's fixed-point choices can only be equal or worse
    exact_mean = os_.mean_rolls(exact.dist)
    gnubg_mean = os_.mean_rolls(np.asarray(db._dist))
    assert np.all(exact_mean <= gnubg_mean + 1e-12)
    assert np.max(gnubg_mean - exact_mean) < 5e-4


def test_win_probability_equals_two_sided_with_one_checker_each(db, tmp_path):
    # with one checker a side every policy is optimal, so the one-sided convolution
    # sum_n P_me(n) P_opp(>= n) equals the exact two-sided cubeless value
    ts = TwoSided.build(6, 1, path=tmp_path / "ts", progress=False)
    for a in range(6):
        for b in range(6):
            me = [0] * 6
            opp = [0] * 6
            me[a], opp[b] = 1, 1
            assert db.win_probability(me, opp) == pytest.approx(
                ts.win_probability(me, opp), abs=1e-14
            )
    assert db.win_probability([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]) == 0.8125


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(index=st.integers(1, 54263))
def test_recursion_holds(db, index):
    # d_i[n] = sum_r w_r/36 d_{s*(i,r)}[n-1], s* the play gnubg picks: the first strict
    # minimum of its fixed-point expected rolls sum_n n*u[n] in gnubg's move order; and
    # the gammon distribution with its own choice (minimum expected rolls to first off)
    boards = all_positions(6, 15)
    table = np.asarray(db._gnubg).astype(np.int64)
    rolls = table[:, :32] @ np.arange(32)
    grolls = table[:, 32:] @ np.arange(32)
    full = index >= db.gammon_start
    dist = np.zeros(db.max_rolls + 2)
    gdist = np.zeros(40)
    for a in range(1, 7):
        for b in range(1, a + 1):
            w = (1 if a == b else 2) / 36
            succ = [rank(p) for p in play_results(boards[index], (a, b))]
            best = min(succ, key=lambda s: (rolls[s], succ.index(s)))
            dist[1:] += w * db.distribution(boards[best])[: len(dist) - 1]
            if full:
                gbest = min(succ, key=lambda s: (grolls[s], succ.index(s)))
                g = db.gammon_distribution(boards[gbest])
                gdist[1 : len(g) + 1] += w * g
    np.testing.assert_allclose(db.distribution(boards[index]), dist[: db.max_rolls + 1], atol=1e-15)
    if full:
        g = db.gammon_distribution(boards[index])
        np.testing.assert_allclose(g, gdist[: len(g)], atol=1e-15)


def test_vectorised_queries_match_scalar(db):
    rng = np.random.default_rng(1)
    boards = all_positions(6, 15)[rng.integers(0, 54264, 50)]
    means = db.mean_rolls(boards)
    assert means.shape == (50,)
    for b, m in zip(boards, means, strict=True):
        assert db.mean_rolls(b) == pytest.approx(m, rel=1e-14)
    assert db.distribution(boards).shape == (50, db.max_rolls + 1)
    np.testing.assert_allclose(db.std_rolls(boards) ** 2, db.variance_rolls(boards))


def test_statistics_helpers():
    d = np.array([0.0, 0.25, 0.5, 0.25])
    assert os_.mean_rolls(d) == 2.0
    assert os_.variance_rolls(d) == 0.5
    assert os_.epc(d) == pytest.approx(2 * 49 / 6)
    assert os_.win_probability([0, 1.0], [0, 0, 1.0]) == 1.0
    assert os_.win_probability([0, 0, 1.0], [0, 1.0]) == 0.0
    assert os_.win_probability([0, 1.0], [0, 1.0]) == 1.0  # the roller wins ties


def test_position_queries_use_the_side_on_roll(db):
    from mathbg.rules.position import Position

    p = Position.from_counts([0, 0, 0, 0, 0, 15] + [0] * 18, [0, 0, 0, 0, 0, 1] + [0] * 18)
    assert db.mean_rolls(p) == db.mean_rolls([0, 0, 0, 0, 0, 15])
    assert db.win_probability(p) == db.win_probability([0, 0, 0, 0, 0, 15], [0, 0, 0, 0, 0, 1])


def test_bad_input(db):
    with pytest.raises(DatabaseError, match="point 7"):
        db.mean_rolls([0, 0, 0, 0, 0, 0, 1])
    with pytest.raises(InvalidPositionError, match="16 checkers"):
        db.distribution([0, 0, 0, 0, 0, 16])
    with pytest.raises(InvalidPositionError):
        db.epc([-1, 0])
    with pytest.raises(InvalidParameterError):
        os_gen.build_arrays(2, 2, policy="best")
    with pytest.raises(DatabaseError):
        OneSided.build(0, 15)
