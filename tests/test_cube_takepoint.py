"""The 0-ply take point root finding (mathbg.cube.takepoint) against closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.cube import match
from mathbg.cube.cubeful import cubeless_mwc
from mathbg.cube.money import money_take_point as janowski_take_point
from mathbg.cube.takepoint import (
    break_even,
    match_take_point,
    match_take_points,
    money_take_point,
    probabilities_at,
)

KXG2 = "kazaross-xg2"
rate = st.floats(0.0, 0.4)
life = st.floats(0.0, 1.0)


def _probs(w: float, g0: float, g1: float) -> list[float]:
    """Doubler's five outputs with disjoint gammon rates g0 (its wins), g1 (its losses)."""
    return [w, w * g0, 0.0, (1.0 - w) * g1, 0.0]


def test_money_gammonless_janowski() -> None:
    # Janowski 1993: 25 % dead, 20 % live, 21.43 % at x = 2/3 (W = L = 1)
    p = _probs(0.8, 0.0, 0.0)
    assert money_take_point(p, 0.0) == pytest.approx(0.25, abs=1e-12)
    assert money_take_point(p, 1.0) == pytest.approx(0.20, abs=1e-12)
    assert money_take_point(p, 2 / 3) == pytest.approx(0.5 / (2 + 1 / 3), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(g0=rate, g1=rate, x=life, w=st.floats(0.55, 0.95))
def test_money_matches_janowski_formula(g0: float, g1: float, x: float, w: float) -> None:
    # the taker's W is 1 + g1 (the doubler's losses), its L is 1 + g0
    tp = money_take_point(_probs(w, g0, g1), x)
    assert tp == pytest.approx(janowski_take_point(1 + g1, 1 + g0, x), abs=1e-9)


@settings(max_examples=15, deadline=None)
@given(a=st.integers(3, 9), b=st.integers(2, 9), g0=rate, g1=rate, x=life)
def test_match_matches_the_solver(a: int, b: int, g0: float, g1: float, x: float) -> None:
    # the doubler a-away, the taker b-away: the taker's point from mathbg.cube.match. A
    # doubler 2-away is excluded: after the take it needs no more than the cube, gnubg's
    # 0-ply model treats the game as cubeless while the solver's points count the taker's
    # free redouble.
    tp = match_take_point(_probs(0.7, g0, g1), KXG2, (a, b), cube_life=x)
    assert tp == pytest.approx(match.take_point(KXG2, (b, a), 1, (g1, g0), cube_life=x), abs=1e-9)


def test_batch_equals_one_at_a_time() -> None:
    probs = np.array([_probs(0.7, 0.2, 0.1), _probs(0.6, 0.0, 0.3)])
    scores = [(3, 3), (5, 7), (4, 2)]
    a, b = [s[0] for s in scores], [s[1] for s in scores]
    dp = [cubeless_mwc([1.0, 0.0, 0.0, 0.0, 0.0], KXG2, (x, y), 1) for x, y in scores]
    xs = [0.68, 0.6]
    _, tp = match_take_points(probs, KXG2, (a, b), [1] * 3, [False] * 3, xs, dp)
    for j, (x, y) in enumerate(scores):
        for i in range(2):
            one = match_take_point(probs[i], KXG2, (x, y), cube_life=xs[i])
            assert tp[j, i] == pytest.approx(one, abs=1e-12)


def test_break_even_ends_and_rates_kept() -> None:
    line = lambda p, rows: 2.0 * p - 1.0  # noqa: E731
    assert break_even(line, -1.0, 1)[0] == 0.0  # at or above the target everywhere
    assert break_even(line, 1.5, 1)[0] == 1.0  # never reaches it
    assert break_even(line, 0.0, 1)[0] == pytest.approx(0.5, abs=1e-15)
    at = probabilities_at(np.array([_probs(0.5, 0.2, 0.4)]), np.array([[0.25, 1.0]]))
    assert at[0, 0].tolist() == pytest.approx([0.25, 0.05, 0.0, 0.3, 0.0])
    assert at[0, 1].tolist() == pytest.approx([1.0, 0.2, 0.0, 0.0, 0.0])


@settings(max_examples=40, deadline=None)
@given(a=st.integers(1, 17), b=st.integers(1, 17), cube=st.sampled_from([1, 2, 4, 8]),
       post=st.booleans(), rates=st.lists(st.floats(0.0, 0.45), min_size=8, max_size=8))
def test_live_cash_points_are_the_solvers(a: int, b: int, cube: int, post: bool,
                                          rates: list[float]) -> None:  # fmt: skip
    """The cubeful value's shortcut (the first level's live cash points alone) gives the
    full solver's numbers to the bit, at every score, cube and gammon rates (two rows)."""
    from mathbg.cube._solver import MetView, live_cash_points, solve
    from mathbg.met import as_met

    view = MetView(as_met(KXG2), 0)
    g0, b0, g1, b1 = (np.array(rates[k::4]) for k in range(4))
    a_, b_, c_ = (np.array([v, v]) for v in (a, b, cube))
    flag = np.array([post, post])
    sol = solve(view, a_, b_, c_, (g0, b0, g1, b1), flag, np.zeros(2, dtype=bool))
    first, second = live_cash_points(view, a_, b_, c_, (g0, b0, g1, b1), flag)
    np.testing.assert_array_equal(first, sol.cash_live[0][0])
    np.testing.assert_array_equal(second, sol.cash_live[1][0])
