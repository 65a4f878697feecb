"""Money-play cube theory (Janowski 1993) against the paper's formulas and numbers.

Expected values: Janowski, "Take-Points in Money Games" (1993): closed forms restated in
each test, the gammonless 25/20 % take points, the Jacoby factors of his table
(W = 2, L = 1: k1 = 0.750 dead, 0.938 at x = 2/3; k2 = 0.900, 0.971), and gnubg 1.07.001's
``show marketwindow`` money output (which prints Janowski's dead/live values: see also the
live differential test in test_cube_gnubg.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.cube import money
from mathbg.cube.decisions import CubeAction, classify
from mathbg.errors import InvalidParameterError, MathbgError

X23 = 2.0 / 3.0


# ----------------------------------------------------------------------------- points


def test_gammonless_points_dead_live():
    # W = L = 1: TP (1/2)/(2 + x/2); CP (3/2 + x/2)/(2 + x/2); TG 2/(2 + x/2) ...
    pts = money.money_points((0.0, 0.0), (0.0, 0.0), X23)
    assert pts.take.dead == pytest.approx(0.25)
    assert pts.take.live == pytest.approx(0.20)
    assert pts.take.x == pytest.approx(0.5 / (2 + 1 / 3))  # 21.43 %
    assert round(100 * pts.take.x, 2) == 21.43
    assert (pts.beaver.dead, pts.beaver.live) == pytest.approx((0.5, 0.4))
    assert (pts.raccoon.dead, pts.raccoon.live) == pytest.approx((0.5, 0.6))
    assert (pts.initial_double.dead, pts.initial_double.live) == pytest.approx((0.5, 0.8))
    assert (pts.redouble.dead, pts.redouble.live) == pytest.approx((0.5, 0.8))
    assert (pts.cash.dead, pts.cash.live) == pytest.approx((0.75, 0.8))
    assert (pts.too_good.dead, pts.too_good.live) == pytest.approx((1.0, 0.8))


def test_twenty_percent_gammons():
    # W = L = 1.2; values as gnubg 1.07.001 prints them for `show marketwindow 20 20 0 0`
    pts = money.money_points((0.2, 0.2))
    expected = {
        "take": (29.167, 24.138),
        "beaver": (50.000, 41.379),
        "raccoon": (50.000, 58.621),
        "initial_double": (50.000, 75.862),
        "redouble": (50.000, 75.862),
        "cash": (70.833, 75.862),
        "too_good": (91.667, 75.862),
    }
    for name, (dead, live) in expected.items():
        p = getattr(pts, name)
        assert round(100 * p.dead, 3) == dead, name
        assert round(100 * p.live, 3) == live, name


def test_rates_are_disjoint_fractions_of_wins():
    # W = 1 + g + 2 b: 25 % gammons (not backgammons) and 1 % backgammons -> 1.27
    assert money.win_value(0.25, 0.01) == pytest.approx(1.27)
    pts = money.money_points((0.25, 0.1), (0.01, 0.02))
    assert pts.W == pytest.approx(1.27)
    assert pts.L == pytest.approx(1.14)
    assert pts.take.dead == pytest.approx((1.14 - 0.5) / (1.27 + 1.14))


def test_take_point_equity():
    # E_take = TP (W + L) - L: -0.5 dead, -0.6 live, -4/7 at x = 2/3 (W = L = 1)
    for x, eq in ((0.0, -0.5), (1.0, -0.6), (X23, -4.0 / 7.0)):
        tp = money.money_take_point(1, 1, x)
        assert money.equity_cubeless(tp, 1, 1) == pytest.approx(eq)


def test_jacoby_factors_janowski_table():
    assert round(money.jacoby_factor(2, 1, 0.0), 3) == 0.750
    assert round(money.jacoby_factor(2, 1, X23), 3) == 0.938
    assert round(money.jacoby_factor(2, 1, 0.0, beavers=True), 3) == 0.900
    assert round(money.jacoby_factor(2, 1, X23, beavers=True), 3) == 0.971
    # a live cube: Jacoby changes nothing
    assert money.jacoby_factor(1.7, 1.2, 1.0) == pytest.approx(1.0)


def test_jacoby_initial_double_dead_matches_gnubg_closed_forms():
    # gnubg getMoneyPoints, dead cube: (L - 1/2)/(W + L - 1) and (L - 1/4)/(W + L - 1/2)
    w, l_ = 1.4, 1.1
    assert money.initial_double_point(w, l_, 0.0, jacoby=True) == pytest.approx(0.6 / 1.5)
    assert money.initial_double_point(w, l_, 0.0, jacoby=True, beavers=True) == pytest.approx(
        0.85 / 2.0
    )
    # beavers are the taker's option: never a lower double point than without (k2 >= k1)
    for w, l_ in ((1.0, 2.0), (1.2, 1.6), (2.0, 1.0)):
        for x in (0.0, 0.3, 0.7):
            assert money.jacoby_factor(w, l_, x, beavers=True) >= money.jacoby_factor(w, l_, x)


def test_initial_double_formula_and_limits():
    # ID = [L + x(3 - x)/(2(2 - x))] / (W + L + x/2): dead L/(W+L), live (L+1)/(W+L+1/2)
    for w, l_ in ((1.0, 1.0), (1.3, 1.1), (1.8, 1.5)):
        assert money.initial_double_point(w, l_, 0.0) == pytest.approx(l_ / (w + l_))
        assert money.initial_double_point(w, l_, 1.0) == pytest.approx((l_ + 1) / (w + l_ + 0.5))
        # equivalently: the centred equity equals the double/take equity there
        for x in (0.2, 0.5, 0.9):
            p = money.initial_double_point(w, l_, x)
            centred = money.equity_centred(p, w, l_, x)
            doubled = money.equity_unavailable(p, w, l_, x, cube=2)
            assert centred == pytest.approx(doubled)


def test_initial_double_vs_redouble_gap():
    # Janowski: the gap between redouble and initial double points peaks at 3.75 % near
    # x = 0.57 (W = L = 1); the maximum of the closed forms is at x = 0.5585
    xs = np.linspace(0.0, 1.0, 10001)
    gap = money.redouble_point(1, 1, xs) - money.initial_double_point(1, 1, xs)
    i = int(np.argmax(gap))
    assert round(100 * gap[i], 2) == 3.75
    assert xs[i] == pytest.approx(0.57, abs=0.015)


def test_redouble_and_cash_points_break_even():
    # RD: owned equity = double/take equity; CP: double/take equity = +1 (pass)
    w, l_, x = 1.25, 1.15, 0.6
    rd = money.redouble_point(w, l_, x)
    assert money.equity_owned(rd, w, l_, x) == pytest.approx(
        money.equity_unavailable(rd, w, l_, x, cube=2)
    )
    cp = money.money_cash_point(w, l_, x)
    assert money.equity_unavailable(cp, w, l_, x, cube=2) == pytest.approx(1.0)
    tg = money.money_too_good_point(w, l_, x)
    assert money.equity_owned(tg, w, l_, x) == pytest.approx(1.0)
    # dead too good: p W - (1 - p) L = 1
    tg0 = money.money_too_good_point(w, l_, 0.0)
    assert tg0 * w - (1 - tg0) * l_ == pytest.approx(1.0)


# ----------------------------------------------------------------------------- equities


def test_cubeful_equity_matches_janowski_inside_window():
    # gnubg's live lines: owned (0,-L)-(CP,+1), unavailable (TP,-1)-(1,W); blended with the
    # dead line they give Janowski's E_owned = p(W+L+x/2) - L below CP and
    # E_unavailable = p(W+L+x/2) - L - x/2 above TP, for every x
    w, l_ = 1.25, 1.2
    tp = money.money_take_point(w, l_, 1.0)
    cp = money.money_cash_point(w, l_, 1.0)
    for x in (0.0, 0.4, X23, 1.0):
        for p in np.linspace(0.0, cp, 7):
            assert money.cubeful_equity(p, w, l_, x, "player") == pytest.approx(
                money.equity_owned(p, w, l_, x)
            )
        for p in np.linspace(tp, 1.0, 7):
            assert money.cubeful_equity(p, w, l_, x, "opponent") == pytest.approx(
                money.equity_unavailable(p, w, l_, x)
            )
    for x in (0.0, 1.0):  # centred: gnubg's blend equals Janowski's E_centred at the ends
        for p in np.linspace(tp, cp, 5):
            assert money.cubeful_equity(p, w, l_, x) == pytest.approx(
                money.equity_centred(p, w, l_, x)
            )


def test_cubeful_equity_live_nodes():
    # live centred equity passes through (0,-L), (TP,-1), (CP,+1), (1,W)
    w, l_ = 1.3, 1.2
    tp = (l_ - 0.5) / (w + l_ + 0.5)
    cp = (l_ + 1.0) / (w + l_ + 0.5)
    f = money.cubeful_equity
    assert f(0.0, w, l_, 1.0) == pytest.approx(-l_)
    assert f(tp, w, l_, 1.0) == pytest.approx(-1.0)
    assert f(cp, w, l_, 1.0) == pytest.approx(1.0)
    assert f(1.0, w, l_, 1.0) == pytest.approx(w)
    # Jacoby: flat outside the window for a centred cube, dead part ignores gammons
    assert f(0.95, w, l_, 1.0, jacoby=True) == pytest.approx(1.0)
    assert f(0.9, w, l_, 0.0, jacoby=True) == pytest.approx(0.8)


def test_money_cube_action_regions():
    w = l_ = 1.0
    x = X23
    id_, cp = money.initial_double_point(w, l_, x), money.money_cash_point(w, l_, x)
    assert money.cube_action(id_ - 0.01, w, l_, x).action == CubeAction.NO_DOUBLE_TAKE
    assert money.cube_action(id_ + 0.01, w, l_, x).action == CubeAction.DOUBLE_TAKE
    assert money.cube_action(cp + 0.01, w, l_, x).action == CubeAction.DOUBLE_PASS
    # no gammons: never too good
    assert money.cube_action(0.99, w, l_, x).action == CubeAction.DOUBLE_PASS
    wg = 1.3
    tg = money.money_too_good_point(wg, l_, x)
    assert money.cube_action(tg + 0.01, wg, l_, x).action == CubeAction.TOO_GOOD_PASS
    assert money.cube_action(0.7, w, l_, x, "opponent").action == CubeAction.NOT_AVAILABLE
    # Kauder paradox: with Jacoby and beavers a gammonish double can be right and beavered
    w2, l2 = 2.0, 1.0
    # ID with Jacoby and beavers = k2 L/(W+L) = 0.3 < p = 0.32 < RP = L/(W+L) = 1/3
    res = money.cube_action(0.32, w2, l2, 0.0, jacoby=True, beavers=True)
    assert res.double_point == pytest.approx(0.3)
    assert res.double_point < 0.32 < res.raccoon_point
    assert res.action == CubeAction.DOUBLE_BEAVER
    assert res.action.short == "beaver"


def test_classify_cases():
    # gnubg FindBestCubeDecision cases 1-6
    assert classify(1.2, 1.1, 1.0) == CubeAction.TOO_GOOD_PASS  # ND > DT > DP
    assert classify(1.2, 0.9, 1.0) == CubeAction.TOO_GOOD_TAKE  # ND > DP > DT
    assert classify(0.95, 1.2, 0.9) == CubeAction.TOO_GOOD_PASS  # DT >= ND > DP
    assert classify(0.5, 1.2, 1.0) == CubeAction.DOUBLE_PASS  # DT >= DP >= ND
    assert classify(0.5, 0.3, 1.0) == CubeAction.NO_DOUBLE_TAKE  # DP > ND > DT
    assert classify(0.5, 0.6, 1.0) == CubeAction.DOUBLE_TAKE  # DP > DT >= ND
    assert classify(1.2, 1.1, 1.0, can_gammon=False) == CubeAction.DOUBLE_PASS
    # a beaver leaves the doubler 2 DT: still a double when 2 DT >= ND
    assert classify(-0.9, -0.4, 1.0, beavers=True) == CubeAction.DOUBLE_BEAVER
    assert classify(-0.5, -0.4, 1.0, beavers=True) == CubeAction.NO_DOUBLE_BEAVER
    assert classify(-0.3, -0.5, 1.0, beavers=True) == CubeAction.NO_DOUBLE_BEAVER
    assert classify(-0.9, -0.4, 1.0, beavers=True, money=False) == CubeAction.DOUBLE_TAKE
    assert CubeAction.DOUBLE_PASS.doubles and not CubeAction.TOO_GOOD_PASS.doubles


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("gammons", "backgammons"),
    [((1.2, 0.2), (0, 0)), ((-0.1, 0.2), (0, 0)), ((0.1, 0.2), (0.2, 0)), ((0.6, 0), (0.5, 0))],
)
def test_bad_rates(gammons, backgammons):
    with pytest.raises(InvalidParameterError):
        money.money_points(gammons, backgammons)


def test_bad_x_and_values():
    with pytest.raises(InvalidParameterError, match="cube life"):
        money.money_take_point(1, 1, 1.5)
    with pytest.raises(InvalidParameterError):
        money.money_take_point(0.5, 1, 0.5)
    with pytest.raises(InvalidParameterError):
        money.cube_action(1.5, 1, 1, 0.5)
    with pytest.raises(MathbgError, match="owner"):
        money.cubeful_equity(0.5, 1, 1, 0.5, owner="nobody")


# ----------------------------------------------------------------------------- properties

rate = st.floats(0.0, 0.45)
xs = st.floats(0.0, 1.0)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(g0=rate, g1=rate, b0=st.floats(0, 0.05), b1=st.floats(0, 0.05), x=xs)
def test_properties(g0, g1, b0, b1, x):
    w = 1 + g0 + 2 * b0
    l_ = 1 + g1 + 2 * b1
    tp = money.money_take_point(w, l_, x)
    assert 0.0 <= tp <= 1.0
    # one player's take point is one minus the other's cash point
    assert tp == pytest.approx(1.0 - money.money_cash_point(l_, w, x))
    # the cube's value lowers the take point: dead >= at x >= live
    dead, live = money.money_take_point(w, l_, 0.0), money.money_take_point(w, l_, 1.0)
    assert dead >= tp - 1e-12 >= live - 2e-12
    # ordering of the doubler's points
    id_ = money.initial_double_point(w, l_, x)
    cp = money.money_cash_point(w, l_, x)
    tg = money.money_too_good_point(w, l_, x)
    assert id_ <= cp + 1e-12 <= tg + 2e-12
    assert money.beaver_point(w, l_, x) >= tp
    # symmetric rates: symmetric results
    if math.isclose(w, l_):
        tp_x = money.money_take_point(w, l_, x)
        assert money.money_cash_point(w, l_, x) == pytest.approx(1 - tp_x)
