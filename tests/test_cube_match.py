"""Match-play cube points from a MET: published numbers, closed forms, money limit, rules.

Expected numbers come from (a) the Kazaross-XG2 entries combined by the formula stated in
each test's comment, (b) the reference numbers of issue 4 / gnubg 1.07.001's printed
market windows (3-away/3-away dead 30.17 %, live 22.65 %, ...), and (c) Janowski's money
formulas, which the match formulas must reproduce on a table with linear utility (MWC
linear in the score difference).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mathbg.met as metmod
from mathbg.cube import match, money
from mathbg.errors import InvalidParameterError, InvalidScoreError, MathbgError


@pytest.fixture(scope="module")
def kxg2():
    return metmod.load("kazaross-xg2")


KXG2 = metmod.load("kazaross-xg2")


def pre(a: int, b: int) -> float:
    """K-XG2 pre-Crawford entry (a side 1-away: Crawford game)."""
    return float(KXG2.pre[a - 1, b - 1])


def post(n: int) -> float:
    """K-XG2 post-Crawford trailer n-away vs 1-away."""
    return float(KXG2.post[0, n - 1])


# ----------------------------------------------------------------------------- references


def test_three_away_three_away_gammonless(kxg2):
    # doubler D, taker T at 3a/3a, cube 1 -> 2:
    # DP = MWC(D 2a vs 3a), DTW = MWC(D 1a vs 3a, Crawford), DTL = MWC(D 3a vs 1a Crawford)
    dp, dtw, dtl = pre(2, 3), pre(1, 3), pre(3, 1)
    tp_dead = (dtw - dp) / (dtw - dtl)
    assert match.take_point_dead(kxg2, (3, 3)) == pytest.approx(tp_dead)
    assert round(100 * tp_dead, 2) == 30.17
    # live: the 2-cube is dead for both, T's cash point on it is MWC(T 1a vs 3a) = DTW;
    # TP_live = CP_T(2) (DTW - DP) / (DTW - RDP) with RDP = DTL (gammonless)
    tp_live = pre(1, 3) * (dtw - dp) / (dtw - dtl)
    assert match.take_point_live(kxg2, (3, 3)) == pytest.approx(tp_live)
    assert round(100 * tp_live, 2) == 22.65


def test_three_away_three_away_gammons(kxg2):
    # issue 4 / gnubg `show marketwindow 25 25 1 1` at 3a/3a: dead 65.76, live 71.35
    g, b = (0.25, 0.25), (0.01, 0.01)
    assert round(100 * match.take_point_dead(kxg2, (3, 3), 1, g, b), 2) == 34.24
    assert round(100 * match.take_point_live(kxg2, (3, 3), 1, g, b), 2) == 28.65
    # explicit: D wins single/gammon/bg at 2 -> 1a (Crawford), match, match
    s = 1 - 0.25 - 0.01
    dtw = s * pre(1, 3) + 0.26 * 1.0
    dtl = s * pre(3, 1) + 0.26 * 0.0
    dp = pre(2, 3)
    assert match.take_point_dead(kxg2, (3, 3), 1, g, b) == pytest.approx((dtw - dp) / (dtw - dtl))


def test_two_away_two_away(kxg2):
    # after the double the cube is dead for both: pass -> 2a vs 1a (Crawford), take -> DMP
    # for the match: TP = MWC(2a vs 1a Crawford)
    tp = match.take_point_dead(kxg2, (2, 2))
    assert tp == pytest.approx(pre(2, 1))
    assert round(100 * tp, 2) == 32.26
    assert match.take_point_live(kxg2, (2, 2)) == pytest.approx(tp)


def test_automatic_redouble(kxg2):
    # 4-away taker vs 2-away doubler: the taker redoubles to 4 at once, so the game decides
    # the match: TP = pass value MWC(4a vs 1a Crawford)
    tp = match.take_point_dead(kxg2, (4, 2))
    assert tp == pytest.approx(pre(4, 1))
    assert round(100 * tp, 2) == 18.56
    w_auto, _ = match.market_window(kxg2, (2, 4))
    assert w_auto.auto_redouble
    # without the redouble: pass 4a vs 1a (Crawford), take & lose at 2 -> match lost,
    # take & win at 2 -> 2a vs 2a; TP = (pass - lose) / (win - lose)
    tp_nr = (pre(4, 1) - 0.0) / (0.5 - 0.0)
    assert 1 - w_auto.cash_point_no_recube == pytest.approx(tp_nr)


def test_post_crawford_leader(kxg2):
    # trailer t-away doubles to 2: leader passes -> trailer (t-1)-away vs 1a post-Crawford;
    # takes -> trailer wins 2 (or 4) or loses the match.
    # 3-away trailer: TP = (MWC_trailer(1a/1a) - post(2)) / (0.5 - 0) = 2.4 %
    tp = match.take_point_dead(kxg2, (1, 3))
    assert tp == pytest.approx((0.5 - post(2)) / 0.5)
    assert round(100 * tp, 1) == 2.4
    expected = {2: 50.0, 3: 2.4, 4: 33.9, 5: 3.9, 6: 38.7, 7: 4.9}  # theory notes, K-XG2
    for t, pct in expected.items():
        assert round(100 * match.take_point_dead(kxg2, (1, t)), 1) == pct
    sp = match.points(kxg2, (3, 1))
    assert sp.state == "post-crawford"
    trailer, leader = sp.players
    assert trailer.double_point_dead == 0.0
    assert trailer.cash_point_dead == pytest.approx(1.0 - leader.take_point_dead)
    assert trailer.take_point_live is None and trailer.cash_point_live is None
    assert leader.may_double is False and trailer.may_double is True
    # issue 14: a value that does not apply is null in JSON (the key stays)
    assert sp.as_dict()["players"][0]["take_point_live"] is None
    # the leader (1-away) has nothing to double for: no doubling points, no take point
    assert leader.double_point_dead is None and trailer.take_point_dead is None
    assert match.points(kxg2, (1, 2)).free_drop and not match.points(kxg2, (1, 3)).free_drop


def test_gammon_values(kxg2):
    # XG convention: (MWC(win 2) - MWC(win 1)) / (MWC(win 1) - MWC(lose 1)); 3a/3a K-XG2
    win, win_g, win_bg, lose = pre(2, 3), pre(1, 3), 1.0, pre(3, 2)
    gv = (win_g - win) / (win - lose)
    bv = (win_bg - win) / (win - lose)
    assert match.gammon_value(kxg2, (3, 3)) == pytest.approx(gv)
    assert match.backgammon_value(kxg2, (3, 3)) == pytest.approx(bv)
    assert round(match.gammon_value(kxg2, (3, 3)), 5) == 0.76048
    assert round(match.backgammon_value(kxg2, (3, 3)), 5) == 2.01332
    # a 2-away player on a 2-cube: a single win already wins the match
    assert match.gammon_value(kxg2, (2, 5), 2) == 0.0
    # vectorised over the score
    arr = match.gammon_value(kxg2, ([3, 4], [3, 4]))
    assert arr.shape == (2,)


def test_dead_cube_rules(kxg2):
    # the doubler needs <= cube: nothing to double for
    assert match.double_point(kxg2, (2, 5), 2) == 1.0
    assert match.cash_point_dead(kxg2, (2, 5), 2) == 1.0
    assert match.too_good_point(kxg2, (2, 5), 2) == 1.0
    assert match.take_point_dead(kxg2, (5, 2), 2) == 0.0
    # the doubled cube is dead when either side needs <= 2 cube: live == dead
    for a, b, c in ((3, 7, 2), (7, 3, 2), (4, 4, 2), (2, 9, 1)):
        assert match.take_point_live(kxg2, (a, b), c) == pytest.approx(
            match.take_point_dead(kxg2, (a, b), c)
        )
    # a double that risks nothing: the taker wins the match with any win (needs <= cube)
    assert match.double_point(kxg2, (3, 2), 2) == 0.0


def test_crawford_game_has_no_cube(kxg2):
    assert math.isnan(match.take_point_dead(kxg2, (1, 4), crawford=True))
    assert not math.isnan(match.take_point_dead(kxg2, (1, 4)))
    sp = match.points(kxg2, (1, 4), crawford=True)
    assert sp.state == "crawford"
    d = sp.as_dict()
    for player in d["players"]:  # issue 14: not-applicable values are null, not absent
        assert {k for k, v in player.items() if v is not None} == {
            "gammon_value",
            "backgammon_value",
            "may_double",
        }
    # results of the Crawford game are post-Crawford, as are a post-Crawford game's
    assert sp.players[1].gammon_value == pytest.approx(match.gammon_value(kxg2, (4, 1)))
    # the trailer's gammon wins 2 points in the Crawford game: 4a -> 2a vs 1a post-Crawford
    win, win_g, lose = post(3), post(2), 0.0
    assert sp.players[1].gammon_value == pytest.approx((win_g - win) / (win - lose))
    with pytest.raises(InvalidScoreError, match="Crawford"):
        match.points(kxg2, (3, 4), crawford=True)


def test_dmp(kxg2):
    sp = match.points(kxg2, (1, 1))
    assert sp.state == "dmp"
    for p in sp.players:  # issue 14: no cube action at DMP, so the points do not apply
        assert p.gammon_value == 0.0 and p.double_point_dead is None
        assert p.take_point_dead is None and not p.may_double


def test_too_good_point_break_even(kxg2):
    # TG solves p NDW + (1 - p) NDL = DP, both sides' gammons weighted (5a/4a, 2-cube)
    a, b, c = 5, 4, 1
    g, bg = (0.3, 0.2), (0.02, 0.01)
    s0, s1 = 1 - 0.32, 1 - 0.21
    ndw = s0 * pre(4, 4) + 0.3 * pre(3, 4) + 0.02 * pre(2, 4)
    ndl = s1 * pre(5, 3) + 0.2 * pre(5, 2) + 0.01 * pre(5, 1)
    dp = pre(4, 4)
    tg = match.too_good_point(kxg2, (a, b), c, g, bg)
    assert tg * ndw + (1 - tg) * ndl == pytest.approx(dp)
    # gnubg getMatchPoints' expression coincides only where NDW = DP (no gammons): both 1
    assert match.too_good_point(kxg2, (a, b), c) == 1.0
    ndw0, ndl0 = pre(4, 4), pre(5, 3)
    gnubg_tg = (ndw0 - ndl0) / ((ndw0 - ndl0) + (ndw0 - dp))
    assert gnubg_tg == pytest.approx(1.0)
    assert (ndw - ndl) / ((ndw - ndl) + (ndw - dp)) != pytest.approx(tg)


def test_double_point_closed_form(kxg2):
    # last-roll double point risk / (risk + gain): risk = NDL - DTL, gain = DTW - NDW
    a, b = 6, 5
    ndw, ndl = pre(5, 5), pre(6, 4)
    dtw, dtl = pre(4, 5), pre(6, 3)
    expected = (ndl - dtl) / ((ndl - dtl) + (dtw - ndw))
    assert match.double_point(kxg2, (a, b)) == pytest.approx(expected)


def test_cube_life_blend(kxg2):
    # TP(0) = dead, TP(1) = live and monotone in between for a gammonless taker
    xs = np.linspace(0, 1, 11)
    tps = match.take_point(kxg2, (5, 7), 1, (0.0, 0.2), cube_life=xs)
    assert tps[0] == pytest.approx(match.take_point_dead(kxg2, (5, 7), 1, (0.0, 0.2)))
    assert tps[-1] == pytest.approx(match.take_point_live(kxg2, (5, 7), 1, (0.0, 0.2)))
    assert np.all(np.diff(tps) <= 1e-12)
    assert match.cash_point(kxg2, (7, 5), 1, (0.2, 0.0), cube_life=0.4) == pytest.approx(
        1 - match.take_point(kxg2, (5, 7), 1, (0.0, 0.2), cube_life=0.4)
    )


def test_scores_beyond_table_use_extension(kxg2):
    # 30-away is past K-XG2's 25: Montgomery extension, as gnubg
    tp = match.take_point_dead(kxg2, (30, 28))
    assert 0.2 < tp < 0.3
    ext = kxg2.extend(32)
    assert match.take_point_dead(ext, (30, 28)) == pytest.approx(tp)


# ----------------------------------------------------------------------------- money limit


@pytest.fixture(scope="module")
def linear_met():
    """MET linear in the score difference: cube points must equal Janowski's money ones."""
    n = 1024
    a = np.arange(1, n + 1)
    slope = 0.49 / n
    pre_t = 0.5 + slope * (a[None, :] - a[:, None])
    post_v = 0.5 + slope * (1 - a)
    return metmod.MET(pre_t, post_v, name="linear")


@pytest.mark.parametrize(("g", "bg"), [((0.0, 0.0), (0.0, 0.0)), ((0.3, 0.15), (0.02, 0.01))])
def test_linear_utility_reduces_to_janowski(linear_met, g, bg):
    a = b = 500
    w0 = 1 + g[0] + 2 * bg[0]
    w1 = 1 + g[1] + 2 * bg[1]
    # the first-named player as taker: its W = w0, L = w1 (the doubler's W)
    assert match.take_point_dead(linear_met, (a, b), 1, g, bg) == pytest.approx(
        money.money_take_point(w0, w1, 0.0), abs=1e-9
    )
    assert match.double_point(linear_met, (a, b), 1, g, bg) == pytest.approx(
        money.initial_double_point(w0, w1, 0.0), abs=1e-9
    )
    assert match.cash_point_dead(linear_met, (a, b), 1, g, bg) == pytest.approx(
        money.money_cash_point(w0, w1, 0.0), abs=1e-9
    )
    assert match.too_good_point(linear_met, (a, b), 1, g, bg) == pytest.approx(
        money.money_too_good_point(w0, w1, 0.0), abs=1e-9
    )
    assert match.gammon_value(linear_met, (a, b)) == pytest.approx(0.5)
    assert match.backgammon_value(linear_met, (a, b)) == pytest.approx(1.0)
    # the live recursion converges to Janowski's fully live point (the table's edge, 8
    # cube levels up, fades by about 1/4 per level), and the x blend to his TP(x)
    for x in (1.0, 0.68, 0.3):
        assert match.take_point(linear_met, (a, b), 1, g, bg, cube_life=x) == pytest.approx(
            money.money_take_point(w0, w1, x), abs=2e-4
        )


# ----------------------------------------------------------------------------- errors


def test_bad_input(kxg2):
    with pytest.raises(InvalidScoreError, match="power of two"):
        match.take_point_dead(kxg2, (3, 3), 3)
    with pytest.raises(InvalidScoreError, match="at least 1"):
        match.take_point_dead(kxg2, (0, 3))
    with pytest.raises(InvalidScoreError):
        match.take_point_dead(kxg2, (2.5, 3))
    with pytest.raises(InvalidParameterError, match=r"\[0, 1\]"):
        match.take_point_dead(kxg2, (3, 3), 1, (1.5, 0.0))
    with pytest.raises(InvalidParameterError, match="above the gammon rate"):
        match.take_point_dead(kxg2, (3, 3), 1, (0.1, 0.1), (0.2, 0.0))
    with pytest.raises(InvalidParameterError, match="x"):
        match.take_point(kxg2, (3, 3), cube_life=-0.1)
    with pytest.raises(InvalidParameterError):
        match.points(kxg2, (3, 3), owner="both")
    with pytest.raises(MathbgError):
        match.points("no-such-table", (3, 3))
    with pytest.raises(InvalidParameterError):
        match.take_point_dead(object(), (3, 3))


# ----------------------------------------------------------------------------- properties

aways = st.integers(1, 25)
cubes = st.sampled_from([1, 2, 4, 8])
rates = st.tuples(st.floats(0.0, 0.6), st.floats(0.0, 0.1)).filter(lambda r: r[1] <= r[0])


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(a=aways, b=aways, c=cubes, r0=rates, r1=rates)
def test_properties(a, b, c, r0, r1):
    g, bg = (r0[0], r1[0]), (r0[1], r1[1])
    tp_d = match.take_point_dead(KXG2, (a, b), c, g, bg)
    tp_l = match.take_point_live(KXG2, (a, b), c, g, bg)
    assert 0.0 <= tp_d <= 1.0 + 1e-12 and 0.0 <= tp_l <= 1.0 + 1e-12
    # one player's take point = 1 - the other player's cash point (roles swapped)
    swap_g, swap_bg = (g[1], g[0]), (bg[1], bg[0])
    assert tp_d == pytest.approx(1 - match.cash_point_dead(KXG2, (b, a), c, swap_g, swap_bg))
    assert tp_l == pytest.approx(1 - match.cash_point_live(KXG2, (b, a), c, swap_g, swap_bg))
    # swapping the players swaps the results
    sp = match.points(KXG2, (a, b), cube=c, gammons=g, backgammons=bg)
    sq = match.points(KXG2, (b, a), cube=c, gammons=swap_g, backgammons=swap_bg)
    for key, v in sp.players[0].as_dict().items():
        if key != "may_double":
            w = sq.players[1].as_dict()[key]
            assert (v is None) == (w is None), key
            if v is not None:
                assert v == pytest.approx(w, abs=1e-12), key
    # issue 14: a point is None exactly where it does not apply (doubler needs <= cube)
    # issue 23: post-Crawford a cube above 1 is the leader's, who has nothing to double for
    p0 = sp.players[0]
    no_redouble = (a == 1 or b == 1) and c > 1
    assert (p0.take_point_dead is None) == (b <= c or a == b == 1 or no_redouble)
    assert (p0.double_point_dead is None) == (a <= c or a == b == 1 or no_redouble)
    # every point is a probability (the window may be empty: with valuable gammons the
    # double point can exceed the cash point, and the too-good point lie below it)
    for key, v in sp.players[0].as_dict().items():
        if (key.endswith("point") or "_point_" in key) and v is not None:
            assert -1e-12 <= v <= 1.0 + 1e-12, key


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(a=aways, b=aways, c=cubes, r1=rates, x=st.floats(0, 1))
def test_live_cube_helps_a_gammonless_taker(a, b, c, r1, x):
    # the taker's recube has value: dead TP >= TP(x) >= live TP. (With taker gammons the
    # live model -- the taker cashes at its live cash point instead of playing on for
    # gammons -- can put the live TP above the dead one.)
    g, bg = (0.0, r1[0]), (0.0, r1[1])
    tp_d = match.take_point_dead(KXG2, (a, b), c, g, bg)
    tp_x = match.take_point(KXG2, (a, b), c, g, bg, cube_life=x)
    tp_l = match.take_point_live(KXG2, (a, b), c, g, bg)
    assert tp_d + 1e-12 >= tp_x >= tp_l - 1e-12


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(a=st.integers(2, 25), c=cubes, r=rates)
def test_symmetric_scores_symmetric_results(a, c, r):
    sp = match.points(KXG2, (a, a), cube=c, gammons=r[0], backgammons=r[1])
    d0, d1 = sp.players[0].as_dict(), sp.players[1].as_dict()
    for key in d0:
        assert d0[key] == pytest.approx(d1[key], abs=1e-12), key
