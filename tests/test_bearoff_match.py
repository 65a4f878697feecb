"""Exact match play in bearoffs (mathbg.bearoff.exact.match): identities, limits, properties.

Where the expected numbers come from:
- cubeless winning chances: the two-sided money database (``twosided.build_arrays``,
  the bearoff package's own generator, written independently of this solver);
- match winning chances at the leaves: the MET (Kazaross-XG2 unless said otherwise);
- identities of match play stated in each test (DMP, the Crawford game, 2-away/2-away,
  the last roll, owning the cube, the cube cap), the money limit (an endless affine MET
  gives the money recursion) against the two-sided database and gnubg's own file, and the
  binomial MET of a coin-flip game;
- the same recursion written out in plain memoised Python over plays from
  ``play_results`` (the rules model's bearoff moves), on the 6 x 2 space.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg import met as metmod
from mathbg.bearoff import match_equity, rank
from mathbg.bearoff.exact import match as M
from mathbg.bearoff.generate.twosided import build_arrays
from mathbg.cube.decisions import CubeAction
from mathbg.errors import (
    DatabaseError,
    InvalidParameterError,
    InvalidPositionError,
    InvalidScoreError,
)

KXG2 = metmod.load("kazaross-xg2")
SIX = [0, 0, 0, 0, 0, 1]
ACE = [1, 0, 0, 0, 0, 0]


@pytest.fixture(scope="module")
def p3() -> np.ndarray:
    """Cubeless p of every 6x3 pair, from the two-sided money generator."""
    return (build_arrays(6, 3)[..., 0] + 1.0) / 2.0


def solve(away, crawford=False, checkers=3, met=KXG2):
    return M.solve_score(away, crawford=crawford, met=met, points=6, checkers=checkers)


def inner(a: np.ndarray) -> np.ndarray:
    """Pairs where both sides still have checkers."""
    return a[1:, 1:]


# ----------------------------------------------------------------------------- identities


def test_dmp_mwc_is_the_cubeless_chance(p3):
    # 1-away/1-away: the next game decides the match, the cube is useless: MWC = p
    sol = solve((1, 1))
    for owner in ("centre", "player", "opponent"):
        nd = sol.no_double[..., sol.state_index(1, owner)]
        np.testing.assert_allclose(inner(nd), inner(p3), rtol=0, atol=1e-12)
    assert sol.decision(SIX, SIX).action == CubeAction.NOT_AVAILABLE
    assert sol.decision(SIX, SIX).p_win == 0.8125  # 27/36 + 9/36 * 9/36


@pytest.mark.parametrize("away", [(1, 2), (1, 3), (1, 5), (2, 1), (4, 1), (7, 1)])
def test_crawford_game_is_cubeless(p3, away):
    # no cube in the Crawford game: MWC = p MET(after win) + (1 - p) MET(after loss), the
    # next game post-Crawford
    a, b = away
    win = 1.0 if a == 1 else KXG2.mwc((a - 1, b), post_crawford=True)
    lose = 0.0 if b == 1 else KXG2.mwc((a, b - 1), post_crawford=True)
    sol = solve(away, crawford=True)
    nd = sol.no_double[..., sol.state_index(1, "centre")]
    np.testing.assert_allclose(inner(nd), inner(p3 * win + (1 - p3) * lose), rtol=0, atol=1e-12)
    eq = sol.decision(SIX, SIX)
    assert eq.action == CubeAction.NOT_AVAILABLE and eq.double_take is None
    assert eq.optimal == pytest.approx(0.8125 * win + 0.1875 * lose, abs=1e-12)


def test_two_away_two_away(p3):
    # after a double at 2a/2a both sides win the match with any win: the doubled game is
    # worth its cubeless chance, so DT = p exactly; a pass gives the doubler 1a/2a
    # Crawford; the taker takes iff its chance beats MET(2a, 1a Crawford)
    sol = solve((2, 2))
    d = sol.decision_arrays(1, "centre")
    np.testing.assert_allclose(inner(d["double_take"]), inner(p3), rtol=0, atol=1e-12)
    dp = KXG2.mwc((1, 2), crawford=True)
    assert np.all(d["double_pass"] == dp)
    taker_p = 1.0 - inner(p3)
    exact_take = inner(d["double_take"]) <= dp
    rule_take = taker_p >= KXG2.mwc((2, 1), crawford=True)
    clear = np.abs(taker_p - KXG2.mwc((2, 1), crawford=True)) > 1e-12
    assert np.array_equal(exact_take[clear], rule_take[clear])
    assert exact_take.any() and (~exact_take).any()


@pytest.mark.parametrize("away", [(3, 3), (2, 4), (4, 2), (5, 7), (3, 2), (9, 4)])
def test_last_roll_position(away):
    # the roller (one checker on the 6-point) bears off now with 27/36 or loses (the
    # opponent's ace-point checker is off next turn; his double would be passed, worth
    # the same single loss): ND = 3/4 W1 + 1/4 L1, DT = 3/4 W2 + 1/4 L2, DP = W1
    a, b = away

    def after(x: int, y: int) -> float:
        if x <= 0:
            return 1.0
        if y <= 0:
            return 0.0
        return KXG2.mwc((x, y), crawford=(x == 1 or y == 1))

    sol = solve(away, checkers=1)
    eq = sol.decision(SIX, ACE)
    assert eq.p_win == 0.75
    assert eq.no_double == pytest.approx(0.75 * after(a - 1, b) + 0.25 * after(a, b - 1), abs=1e-12)
    assert eq.double_take == pytest.approx(
        0.75 * after(a - 2, b) + 0.25 * after(a, b - 2), abs=1e-12
    )
    assert eq.double_pass == pytest.approx(after(a - 1, b), abs=1e-15)
    assert eq.optimal == pytest.approx(max(eq.no_double, min(eq.double_take, eq.double_pass)))


def test_match_equity_api_and_names():
    eq = match_equity(SIX, SIX, away=(3, 3), checkers=1)
    assert eq.p_win == 0.8125
    assert eq.double_pass == pytest.approx(KXG2.mwc((2, 3)), abs=1e-15)
    assert eq.optimal == max(eq.no_double, min(eq.double_take, eq.double_pass))
    assert str(eq.action) == "double, pass"  # 81 % with a dead-ish cube at 3a/3a
    keys = set(eq.as_dict())
    assert {"p_win", "mwc_no_double", "mwc_double_take", "mwc_double_pass", "mwc_optimal",
            "action"} <= keys  # fmt: skip
    # a MET object and its name give the same numbers
    same = match_equity(SIX, SIX, away=(3, 3), checkers=1, met=KXG2)
    assert same == eq
    # the opponent owning the cube: no access
    opp = match_equity(SIX, SIX, away=(3, 3), cube=2, owner="opponent", checkers=1)
    assert opp.action == CubeAction.NOT_AVAILABLE and opp.double_pass is None
    # a dead cube for the roller (needs <= cube): no access, as gnubg
    dead = match_equity(SIX, SIX, away=(2, 5), cube=2, owner="player", checkers=1)
    assert dead.action == CubeAction.NOT_AVAILABLE
    # post-Crawford: the leader cannot double, the trailer can
    assert match_equity(SIX, SIX, away=(1, 4), checkers=1).action == CubeAction.NOT_AVAILABLE
    assert match_equity(SIX, SIX, away=(4, 1), checkers=1).double_take is not None


def test_values_do_not_depend_on_the_space():
    # the 6x2 index space is a prefix of 6x3: the same pairs, the same values
    small, big = solve((4, 3), checkers=2), solve((4, 3), checkers=3)
    n = small.no_double.shape[0]
    np.testing.assert_allclose(
        inner(small.no_double), inner(big.no_double[:n, :n]), rtol=0, atol=1e-13
    )


def _brute_force(a: int, b: int, kind: str, met, checkers: int = 2) -> dict:
    """The match recursion written out in plain Python (memoised), on plays generated by
    ``play_results``: the roller (player ``o``) at ``i`` against ``j``, cube ``2**level``
    held by ``owner`` ("c", "r" roller, "o" opponent); A = after the roller's cube
    decision, N = rolling without doubling."""

    from mathbg.bearoff import all_positions, play_results
    from mathbg.rules.dice import ROLLS, WEIGHTS

    boards = [tuple(int(x) for x in row) for row in all_positions(6, checkers)]
    succ = {(i, r): [rank(list(p)) for p in play_results(list(boards[i]), roll)]
            for i in range(1, len(boards)) for r, roll in enumerate(ROLLS)}  # fmt: skip
    levels = M.cube_cap(a, b).bit_length()
    nxt = "post-crawford" if kind in ("crawford", "post-crawford") else None

    def start(x: int, y: int) -> float:  # player 0's MWC when the next game starts
        if x <= 0:
            return 1.0
        if y <= 0:
            return 0.0
        if nxt == "post-crawford":
            return met.mwc((x, y), post_crawford=True)
        return met.mwc((x, y), crawford=(x == 1 or y == 1))

    def win(o: int, c: int) -> float:  # the roller (player o) wins c points
        return start(a - c, b) if o == 0 else 1.0 - start(a, b - c)

    flip = {"c": "c", "r": "o", "o": "r"}

    @functools.cache
    def after_decision(i, j, o, level, owner):
        n = no_double(i, j, o, level, owner)
        c = 1 << level
        needs = a if o == 0 else b
        if kind != "crawford" and owner != "o" and needs > c and level + 1 < levels:
            return max(n, min(no_double(i, j, o, level + 1, "o"), win(o, c)))
        return n

    @functools.cache
    def no_double(i, j, o, level, owner):
        total = 0.0
        for r in range(21):
            total += WEIGHTS[r] * max(
                win(o, 1 << level) if s == 0
                else 1.0 - after_decision(j, s, 1 - o, level, flip[owner])
                for s in succ[i, r]
            )  # fmt: skip
        return total / 36.0

    return {"no_double": no_double, "levels": levels, "n": len(boards)}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("away", "crawford"), [((3, 3), False), ((2, 5), False), ((4, 1), False), ((1, 3), True)]
)
def test_solver_equals_a_plain_recursion(away, crawford):
    a, b = away
    kind = M.game_kind(a, b, crawford)
    brute = _brute_force(a, b, kind, KXG2)
    sol = solve(away, crawford=crawford, checkers=2)
    code = {"centre": "c", "player": "r", "opponent": "o"}
    for level in range(brute["levels"]):
        owners = ("centre", "player", "opponent") if level == 0 else ("player", "opponent")
        for owner in owners:
            k = sol.state_index(1 << level, owner)
            for i in range(1, brute["n"]):
                for j in range(1, brute["n"]):
                    want = brute["no_double"](i, j, 0, level, code[owner])
                    assert sol.no_double[i, j, k] == pytest.approx(want, abs=1e-12)


# ----------------------------------------------------------------------------- properties


scores = st.tuples(st.integers(1, 9), st.integers(1, 9), st.booleans())


def _solve_any(a: int, b: int, crawford: bool, **kw) -> M.GameSolution:
    crawford = crawford and (a == 1) != (b == 1)
    return M.solve_game(6, 2, (a, b), M.game_kind(a, b, crawford), M.met_mwc(KXG2), **kw)


@settings(max_examples=25, deadline=None)
@given(scores)
def test_owning_the_cube_is_never_worse(score):
    # an option can always be left unused: the roller's MWC with the cube is at least its
    # MWC with the cube centred, which is at least its MWC with the opponent holding it
    sol = _solve_any(*score)
    nd = inner(sol.no_double)
    eps = 1e-12
    own, centre, opp = (nd[..., sol.state_index(1, w)] for w in ("player", "centre", "opponent"))
    assert np.all(own >= centre - eps) and np.all(centre >= opp - eps)
    for level in range(1, sol.levels):
        c = 1 << level
        assert np.all(
            nd[..., sol.state_index(c, "player")] >= nd[..., sol.state_index(c, "opponent")] - eps
        )
    assert np.all((nd >= -eps) & (nd <= 1 + eps))


@settings(max_examples=15, deadline=None)
@given(scores)
def test_cap_pruning_and_merging_change_nothing(score):
    # doubling the cube cap, allowing the pointless doubles of a player who already wins
    # the match with the cube, and solving every state separately give the same values
    base = _solve_any(*score)
    a, b, _ = score
    wide = _solve_any(*score, levels=M.cube_cap(a, b).bit_length() + 1,
                      prune_dead_doubles=False, merge=False)  # fmt: skip
    for k, name in enumerate(base.states):
        np.testing.assert_allclose(
            base.no_double[..., k], wide.no_double[..., wide.states.index(name)],
            rtol=0, atol=1e-13,
        )  # fmt: skip


# ----------------------------------------------------------------------------- money limit


def test_money_limit_is_the_two_sided_database():
    # endless affine MET: MWC = 1/2 + points/2, so 2 N - 1 obeys the money recursion
    theirs = build_arrays(6, 4)
    ours = M.money_limit(6, 4)
    np.testing.assert_allclose(inner(ours), inner(theirs), rtol=0, atol=1e-9)


@pytest.mark.slow
@pytest.mark.gnubg(kind="exact")
def test_money_limit_matches_gnubg_file(gnubg):
    from mathbg.bearoff import gnubg_bd

    bd = gnubg_bd.read_twosided(gnubg.ts_db)
    assert (bd.header.points, bd.header.checkers) == (6, 6)
    theirs = gnubg_bd.equity_from_u16(bd.values)
    ours = M.money_limit(6, 6, levels=10)
    # our own float two-sided database agrees to rounding; gnubg's 16-bit file to 2e-4
    ts_float = build_arrays(6, 6)
    assert np.abs(inner(ours) - inner(ts_float)).max() < 1e-9
    diff = np.abs(inner(ours) - inner(theirs)).max(axis=(0, 1))
    print(f"money limit vs gnubg_ts0.bd: max |diff| per value {diff}")
    assert np.all(diff < 2e-4)


# ----------------------------------------------------------------------------- race MET


def test_race_met_of_a_sure_first_roll_is_binomial():
    # every game is won by whoever wins the coin toss: a fair coin per point, doubles
    # are passed (a take loses more), so M(a, b) = (M(a-1, b) + M(a, b-1)) / 2
    n = 9
    table = M.race_met(ACE, length=n, progress=False)
    ref = np.zeros((n + 1, n + 1))
    ref[0, 1:] = 1.0
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            ref[a, b] = 0.5 * (ref[a - 1, b] + ref[a, b - 1])
    np.testing.assert_allclose(table.pre, ref[1:, 1:], rtol=0, atol=1e-14)
    np.testing.assert_allclose(table.post[0], ref[1:, 1], rtol=0, atol=1e-14)


def test_race_met_is_a_symmetric_table():
    table = M.race_met([0, 0, 0, 1, 1, 0], length=6, progress=False)
    assert table.is_symmetric(atol=1e-12)
    assert table.post[0, 0] == 0.5  # DMP
    # the Crawford-game entry is a cubeless game: p_first W + ...; all values in (0, 1)
    assert np.all((table.pre > 0) & (table.pre < 1))
    # the leader is ahead: MWC decreases with the points the player needs
    assert np.all(np.diff(table.pre, axis=0) < 0) and np.all(np.diff(table.pre, axis=1) > 0)


# ----------------------------------------------------------------------------- the findings


@pytest.fixture(scope="module")
def three_three():
    return M.solve_score((3, 3), points=6, checkers=6)


def test_three_away_exact_take_far_below_the_dead_take_point(three_three):
    # issue: "3-away/3-away a take at 22.9 % against a dead take point of 30.2 %"
    from mathbg.cube.match import take_point_dead

    d = three_three.decision_arrays(1, "centre")
    taker_p = 1.0 - three_three.p_win()
    take = d["double_take"] < d["double_pass"]
    lowest = taker_p[1:, 1:][take[1:, 1:]].min()
    # to the precision (its numbers come from an independent solver)
    assert round(100 * lowest, 1) == 22.9
    assert round(100 * take_point_dead(KXG2, (3, 3)), 2) == 30.17  # issue 4: 30.17 %


@pytest.mark.slow
def test_two_away_four_away_gnubg_convention_takes_exact_passes():
    # issue: gnubg's convention (the 4-away taker redoubles at once: TP = MET(4a, 1a
    # Crawford) = 18.56 %) takes some exact passes
    from mathbg.cube.match import take_point_dead

    sol = M.solve_score((2, 4), points=6, checkers=6)
    d = sol.decision_arrays(1, "centre")
    taker_p = inner(1.0 - sol.p_win())
    exact_pass = inner(d["double_take"]) >= inner(d["double_pass"])
    tp = take_point_dead(KXG2, (4, 2))
    assert tp == pytest.approx(KXG2.mwc((4, 1), crawford=True), abs=1e-12)
    wrong = (taker_p >= tp) & exact_pass
    assert wrong.any()  # the issue: "takes some exact passes"
    # and no exact take lies below the convention's take point
    assert taker_p[~exact_pass].min() >= tp - 1e-9


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"owner": "nobody"}, InvalidParameterError, "owner"),
        ({"cube": 3}, InvalidScoreError, "power of two"),
        ({"cube": 2, "owner": "centre"}, InvalidScoreError, "centred"),
        ({"away": (0, 3)}, InvalidScoreError, "at least 1"),
        ({"away": 3}, InvalidScoreError, "pair"),
        ({"away": (3, 3), "crawford": True}, InvalidScoreError, "Crawford"),
        ({"away": (1, 1), "crawford": True}, InvalidScoreError, "Crawford"),
    ],
)
def test_bad_questions(kwargs, error, text):
    args = {"away": (3, 3), "checkers": 1, **kwargs}
    with pytest.raises(error, match=text):
        match_equity(SIX, SIX, **args)


def test_bad_positions():
    with pytest.raises(InvalidPositionError, match="no checker"):  # before any solving
        match_equity([0] * 6, SIX, away=(3, 3), checkers=1)
    with pytest.raises(DatabaseError, match="outside"):
        match_equity([0, 0, 0, 0, 0, 0, 1], SIX, away=(3, 3), checkers=1)
    with pytest.raises(DatabaseError, match="at most 14"):
        M.solve_score((3, 3), checkers=15)
    with pytest.raises(ValueError, match=">= 0"):
        match_equity([-1, 0, 0, 0, 0, 1], SIX, away=(3, 3))
    assert rank(SIX) == 6


def test_a_cache_that_cannot_be_written_is_a_warning(tmp_path, monkeypatch):
    """The disk cache is best effort: no space for it is one warning naming the file, and
    the solution is still served (and kept in memory)."""
    from mathbg.errors import InsufficientSpaceError, MathbgWarning

    def full(*args, **kwargs):
        raise InsufficientSpaceError("no space left for the match cache file")

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    monkeypatch.setattr(M, "_save", full)
    M._MEMORY.clear()
    with pytest.warns(MathbgWarning, match=r"match-v.*4a5a.*not written.*no space"):
        sol = M.solve_score((4, 5), checkers=2, disk_cache=True)
    plain = M.solve_game(6, 2, (4, 5), "normal", M.met_mwc(M.as_met("kazaross-xg2")))
    np.testing.assert_array_equal(sol.no_double, plain.no_double)
    assert M.solve_score((4, 5), checkers=2, disk_cache=True) is sol


def test_disk_cache_round_trip(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    M._MEMORY.clear()
    first = M.solve_score((4, 5), checkers=2, disk_cache=True)
    files = list((tmp_path / "bearoff" / "match").glob("*.npz"))
    assert len(files) == 1
    M._MEMORY.clear()
    again = M.solve_score((4, 5), checkers=2, disk_cache=True)
    assert again is not first
    np.testing.assert_array_equal(again.no_double, first.no_double)
    assert again.decision(SIX, SIX) == first.decision(SIX, SIX)


def test_a_checked_cache_file_is_not_hashed_again_until_it_changes(tmp_path, monkeypatch):
    """The first read of a cache file checks its digest and records it in a stamp beside
    it; later reads of the same file state skip the digest, and a file changed in place
    (even with its size and modification time put back) is checked again and refused."""
    import os

    from mathbg.errors import MathbgWarning

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    M._MEMORY.clear()
    first = M.solve_score((4, 5), checkers=2, disk_cache=True)
    (path,) = (tmp_path / "bearoff" / "match").glob("*.npz")
    M._MEMORY.clear()
    M.solve_score((4, 5), checkers=2, disk_cache=True)  # checked, and stamped
    assert (path.parent / (path.name + M.STAMP_SUFFIX)).is_file()
    digest = M._arrays_digest
    monkeypatch.setattr(M, "_arrays_digest", lambda *a: pytest.fail("hashed again"))
    M._MEMORY.clear()
    again = M.solve_score((4, 5), checkers=2, disk_cache=True)
    np.testing.assert_array_equal(again.no_double, first.no_double)
    monkeypatch.setattr(M, "_arrays_digest", digest)
    before = path.stat()
    import zipfile

    with zipfile.ZipFile(path) as z:  # a byte in the middle of the table's values
        info = z.getinfo("no_double.npy")
        middle = info.header_offset + 30 + len(info.filename) + info.compress_size // 2
    raw = bytearray(path.read_bytes())
    raw[middle] ^= 0x01
    path.write_bytes(bytes(raw))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    M._MEMORY.clear()
    with pytest.warns(MathbgWarning, match="damaged match cache"):
        M.solve_score((4, 5), checkers=2, disk_cache=True)

