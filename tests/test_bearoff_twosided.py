"""Two-sided bearoff database: exact cubeless and cubeful money equities.

Expected numbers: hand derivations in the comments (one checker each), the values read
from gnubg's shipped 6x6 file in theory §4.3 and code-anchors §1.6 (4 decimals, gnubg's
16-bit arithmetic, so compared at 2e-4), structural facts of cube ownership, and the
Bellman equation itself re-evaluated in Python from independently generated plays.
"""

from __future__ import annotations

import numpy as np
import pytest

from mathbg.bearoff import TwoSided, play_results, rank, successors
from mathbg.bearoff.generate.twosided import build_arrays
from mathbg.bearoff.index import all_positions
from mathbg.bearoff.twosided import cube_decision
from mathbg.errors import DatabaseError, InvalidParameterError

SIX = [0, 0, 0, 0, 0, 1]


@pytest.fixture(scope="module")
def ts(tmp_path_factory) -> TwoSided:
    return TwoSided.build(6, 6, path=tmp_path_factory.mktemp("ts") / "ts", progress=False)


def on(*points: int) -> list[int]:
    """Checker counts with one checker on each given point (repeats allowed)."""
    counts = [0] * 6
    for p in points:
        counts[p - 1] += 1
    return counts


def test_one_checker_each_on_the_six_point(ts):
    # the roller bears off with 27/36; else the opponent does with 27/36; else the roller
    # surely does: p = 3/4 + 1/4 * 1/4 = 0.8125
    assert ts.win_probability(SIX, SIX) == 0.8125
    eq = ts.equities(SIX, SIX)
    assert eq.cubeless == pytest.approx(0.625, abs=1e-15)
    # centred, no double: when the roller misses (1/4), the opponent doubles (p = 3/4,
    # DT = 2 x (3/4 - 1/4) = 1 >= DP) and the roller passes: ND = 3/4 - 1/4 = 0.5
    assert eq.centre == pytest.approx(0.5, abs=1e-15)
    # the opponent owning the cube gives the same (its double is the same cash)
    assert eq.opponent == pytest.approx(0.5, abs=1e-15)
    # the roller owning it: the opponent cannot double: 0.8125 - 0.1875 = 0.625
    assert eq.player == pytest.approx(0.625, abs=1e-15)
    # double/take = 2 x 0.5 = 1.0 = double/pass: a double (named pass at equality)
    dec = ts.cube_decision(SIX, SIX)
    assert (dec.no_double, dec.double_take, dec.double_pass) == pytest.approx((0.5, 1.0, 1.0))
    assert dec.should_double and dec.optimal == 1.0
    assert str(dec.action) == "double, pass"
    owned = ts.cube_decision(SIX, SIX, owner="player")
    assert owned.no_double == pytest.approx(0.625) and owned.should_double


@pytest.mark.parametrize(
    ("roller", "opponent", "p", "player", "centre", "opp"),
    [
        # theory §4.3 (gnubg_ts0.bd: cubeless p / player owns / centred / opponent owns)
        (on(6), on(5), 0.7847, 0.5695, 0.5000, 0.5000),
        (on(4, 2), on(5, 1), 0.7693, 0.5386, 0.4383, 0.4383),
        (on(6, 6, 6, 6, 6, 6), on(6, 6, 6, 6, 6, 6), 0.6512, 0.5449, 0.4849, 0.2215),
        (on(1, 1, 1, 2, 2, 2), on(1, 1, 1, 1, 1, 1), 0.7734, 0.7528, 0.7528, 0.5468),
        # code-anchors §1.6: 2 on the 6-point vs 1: cubeless equity -.4421 -> p .27895
        (on(6, 6), on(6), (1 - 0.4421) / 2, -0.4089, -0.7778, -0.7778),
    ],
)
def test_gnubg_checked_values(ts, roller, opponent, p, player, centre, opp):
    eq = ts.equities(roller, opponent)
    assert eq.win_probability == pytest.approx(p, abs=2e-4)
    assert (eq.player, eq.centre, eq.opponent) == pytest.approx((player, centre, opp), abs=2e-4)


def test_two_on_the_six_point_vs_one_centred_is_minus_seven_ninths(ts):
    # the roller bears both off only with 3-3, 4-4, 5-5, 6-6 (4/36); otherwise the
    # opponent, with one checker against the roller's remaining checker(s), has a
    # double/pass: ND = 4/36 - 32/36 = -7/9
    assert ts.equities(on(6, 6), on(6)).centre == pytest.approx(-7 / 9, abs=1e-12)


def test_cube_ownership_order_and_bounds(ts):
    e = np.asarray(ts._equity)
    assert np.all(np.abs(e) <= 1.0 + 1e-12)
    # owning the cube is worth at least the centred cube, which is worth at least the
    # opponent owning it; never doubling when owning reproduces the cubeless game
    assert np.all(e[..., 1] >= e[..., 2] - 1e-12)
    assert np.all(e[..., 2] >= e[..., 3] - 1e-12)
    assert np.all(e[..., 1] >= e[..., 0] - 1e-12)
    assert np.all(e[..., 3] <= e[..., 0] + 1e-12)
    # base cases: roller off -> +1, opponent off (roller not) -> -1
    assert np.all(e[0] == 1.0) and np.all(e[1:, 0] == -1.0)


def _bellman(ts, i: int, j: int) -> np.ndarray:
    """Re-evaluate E[i, j] from the stored E[j, s] (the opponent on roll) in Python."""
    boards = all_positions(6, 6)
    e = np.asarray(ts._equity)
    total = np.zeros(4)
    for a in range(1, 7):
        for b in range(1, a + 1):
            best = np.full(4, -np.inf)
            for res in play_results(boards[i], (a, b)):
                x = e[j, rank(res)]
                dt = min(2 * x[3], 1.0)
                cand = [-x[0], -x[3], -max(x[2], dt), -max(x[1], dt)]
                best = np.maximum(best, cand)
            total += (1 if a == b else 2) * best
    return total / 36


def test_bellman_equation_holds(ts):
    rng = np.random.default_rng(7)
    for i, j in [(923, 923), (6, 6), (27, 6), *rng.integers(1, 924, (40, 2))]:
        np.testing.assert_allclose(ts.values(all_positions(6, 6)[i], all_positions(6, 6)[j]),
                                   _bellman(ts, i, j), atol=1e-14)  # fmt: skip


# The recursion once more, shell by shell in numpy (the builder before the block build
# took its place), as an oracle for the block build's bits: the same operations in the
# same order (a maximum over the plays, the rolls summed in gnubg's order, then / 36).
_W = np.array([1 if d0 == d1 else 2 for d0 in range(1, 7) for d1 in range(1, d0 + 1)])


def _cube_equity(nd: np.ndarray, dt: np.ndarray) -> np.ndarray:
    """gnubg's ``CubeEquity(ND, DT, DP = 0x7FFF)`` on int16 values (C division)."""
    half = np.where(nd >= 0, nd // 2, -(-nd // 2))
    return np.where(dt >= half, np.where(dt >= 0x7FFF // 2, 0x7FFF, 2 * dt), nd)


def _g(x: np.ndarray, gnubg: bool) -> np.ndarray:
    """The roller's four values after a play to the stored opponent entries ``x[..., 4]``."""
    if gnubg:
        x = x.astype(np.int64)
        cube = (_cube_equity(x[..., 2], x[..., 3]), _cube_equity(x[..., 1], x[..., 3]))
        return np.stack([-x[..., 0] - 1, -x[..., 3] - 1, -cube[0] - 1, -cube[1] - 1], -1)
    dt = np.minimum(2.0 * x[..., 3], 1.0)
    return np.stack([-x[..., 0], -x[..., 3], -np.maximum(x[..., 2], dt),
                     -np.maximum(x[..., 1], dt)], -1)  # fmt: skip


def _finish(acc: np.ndarray, gnubg: bool) -> np.ndarray:
    if gnubg:
        return np.where(acc >= 0, acc // 36, -(-acc // 36))
    return acc / 36.0


def _shell_reference(points: int, checkers: int, gnubg: bool) -> np.ndarray:
    table = successors(points, checkers)
    ptr, succ = table.ptr, table.succ.astype(np.int64)
    n = len(ptr[::21]) - 1
    E = np.zeros((n, n, 4), np.int64 if gnubg else np.float64)
    E[0, :] = 32767 if gnubg else 1.0  # the roller has borne off
    E[1:, 0] = -32768 if gnubg else -1.0  # the opponent has
    for m in range(1, n):
        # row part E[m, j], j < m: reads E[j, s], s in succ(m) (earlier shells)
        acc = np.zeros((m - 1, 4), E.dtype)
        for r in range(21):
            plays = succ[ptr[m * 21 + r] : ptr[m * 21 + r + 1]]
            acc += _W[r] * _g(E[1:m][:, plays], gnubg).max(axis=1)
        E[m, 1:m] = _finish(acc, gnubg)
        # column part E[i, m], i <= m: reads E[m, s], s < i (the row just done)
        lo, hi = ptr[21], ptr[(m + 1) * 21]
        best = np.maximum.reduceat(_g(E[m, succ[lo:hi]], gnubg), ptr[21 : (m + 1) * 21] - lo)
        best = best.reshape(m, 21, 4)
        acc = np.zeros((m, 4), E.dtype)
        for r in range(21):
            acc += _W[r] * best[:, r]
        E[1 : m + 1, m] = _finish(acc, gnubg)
    return E


@pytest.mark.parametrize("space", [(2, 2), (4, 5), pytest.param((6, 3), marks=pytest.mark.slow)])
def test_the_builder_gives_the_shell_recursions_bits(space):
    assert np.array_equal(build_arrays(*space), _shell_reference(*space, gnubg=False))
    fixed = _shell_reference(*space, gnubg=True)
    assert np.array_equal(build_arrays(*space, gnubg=True), fixed.astype(np.int16))


@pytest.mark.slow
def test_gnubg_integer_mode_is_close_to_float(ts):
    exact = np.asarray(ts._equity)
    fixed = build_arrays(6, 6, gnubg=True).astype(np.float64) / 32767.5 + 32768 / 32767.5 - 1
    assert np.max(np.abs(fixed - exact)) < 2e-4


def test_a_take_the_taker_is_ahead_after_is_a_beaver_when_allowed(ts, capsys):
    """Two on the six point against one: the roller wins only by a double at once (4/36),
    else the opponent redoubles and the roller passes, so after a double the opponent's
    2-cube leaves the roller 2 x (4/36 - 32/36) = -14/9: a take that leaves the taker ahead
    is a beaver with beavers (gnubg's default, the other commands'), a take without."""
    import json

    from mathbg.cli import main

    dec = ts.cube_decision(on(6, 6), on(6), beavers=True)
    assert dec.double_take == pytest.approx(-14 / 9, abs=1e-12)
    assert str(dec.action) == "no double, beaver"
    assert str(ts.cube_decision(on(6, 6), on(6)).action) == "no double, take"
    for extra, action in (([], "no double, beaver"), (["--no-beavers"], "no double, take")):
        argv = ["bearoff", "show", "--two-sided", "0,0,0,0,0,2", "0,0,0,0,0,1", "--json"]
        assert main(argv + extra) == 0
        assert json.loads(capsys.readouterr().out)["decision"] == action
    assert main(["bearoff", "show", "0,0,0,0,0,2", "--no-beavers"]) == 2
    assert "go with --two-sided" in capsys.readouterr().err


def test_cube_decision_helper():
    # ND 0.3, DT 2 x 0.2 = 0.4, DP 1: double, take
    dec = cube_decision([0.0, 0.5, 0.3, 0.2], "centre")
    assert str(dec.action) == "double, take" and dec.optimal == pytest.approx(0.4)
    dec = cube_decision([0.0, 0.5, 0.3, 0.1], "centre")
    assert str(dec.action) == "no double, take" and dec.optimal == 0.3
    dec = cube_decision([0.0, 0.5, 0.3, 0.1], "opponent")
    assert not dec.should_double and dec.optimal == 0.1
    with pytest.raises(InvalidParameterError):
        cube_decision([0, 0, 0, 0], "mine")


def test_position_input(ts):
    from mathbg.rules.position import Position

    p = Position.from_counts(on(4, 2) + [0] * 18, on(5, 1) + [0] * 18)
    assert ts.equities(p) == ts.equities(on(4, 2), on(5, 1))
    assert ts.win_probability(p) == ts.win_probability(on(4, 2), on(5, 1))


def test_bad_input(ts):
    with pytest.raises(DatabaseError, match="at most 6"):
        ts.equities(on(6, 6, 6, 6, 6, 6, 6), SIX)
    with pytest.raises(DatabaseError, match="point 7"):
        ts.win_probability([0, 0, 0, 0, 0, 0, 1], SIX)
    with pytest.raises(InvalidParameterError):
        ts.equities(SIX)
