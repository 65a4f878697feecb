"""The exact engine's matrix against the exact bearoff solver and the two-sided database.

For 6 x 6 bearoff pairs (both sides within 6 points and 6 checkers) every row of a
3-point matrix (Crawford game, post-Crawford, the 1-cube and the roller's 2-cube) must
carry :func:`mathbg.bearoff.match_equity`'s values and action (solved in the default
6 x 6 space, while the analysis solves the smallest space holding the pair: the values
must not depend on it), and the money row the two-sided database's cube decision.
"""

from __future__ import annotations

import pytest

from mathbg.analysis import analyze
from mathbg.bearoff import TwoSided, match_equity
from mathbg.rules.position import Position

pytestmark = pytest.mark.slow

# (roller, opponent): checker counts on points 1..6
PAIRS = [
    ((0, 1, 1, 1, 1, 1), (1, 1, 1, 1, 1, 0)),  # 5 v 5 checkers
    ((2, 2, 1, 0, 0, 0), (0, 0, 0, 1, 1, 1)),  # 5 low v 3 high
    ((0, 0, 0, 0, 2, 2), (1, 1, 1, 1, 0, 1)),  # 4 v 5
]


@pytest.fixture(scope="module")
def analyses():
    out = []
    for me, opp in PAIRS:
        pos = Position.from_counts(list(me) + [0] * 18, list(opp) + [0] * 18)
        an = analyze(pos, length=3, engine="exact", max_cube=2, beavers=False)
        out.append((me, opp, an))
    return out


def test_exact_rows_equal_match_equity(analyses):
    differs = 0
    for me, opp, an in analyses:
        assert an.evaluation.engine == "exact" and an.evaluation.exact
        for row in an.rows:
            if row.state == "money":
                continue
            eq = match_equity(list(me), list(opp), away=row.away, cube=row.cube,
                              owner=row.owner, crawford=row.crawford)  # fmt: skip
            where = (me, opp, row.away, row.crawford, row.cube)
            assert row.exact_action == eq.action, where
            assert row.exact_no_double == pytest.approx(eq.no_double, abs=1e-12), where
            assert row.exact_optimal == pytest.approx(eq.optimal, abs=1e-12), where
            if eq.double_take is not None:
                assert row.exact_double_take == pytest.approx(eq.double_take, abs=1e-12)
                assert row.exact_double_pass == pytest.approx(eq.double_pass, abs=1e-12)
            assert row.exact_differs == (str(eq.action) != row.action)
            differs += row.exact_differs
    assert len(analyses[0][2].rows) == 1 + 9 + 4 + 2


def test_exact_money_row_equals_two_sided_database(analyses):
    ts = TwoSided.build(6, 6)
    for me, opp, an in analyses:
        (row,) = [r for r in an.rows if r.state == "money"]
        dec = ts.cube_decision(list(me), list(opp), "centre")
        assert row.exact_no_double == pytest.approx(dec.no_double, abs=1e-12)
        assert row.exact_double_take == pytest.approx(dec.double_take, abs=1e-12)
        assert row.exact_double_pass == pytest.approx(dec.double_pass, abs=1e-12)
        assert row.exact_action == dec.action
        p = ts.win_probability(list(me), list(opp))
        assert an.evaluation.probabilities == pytest.approx((p, 0.0, 0.0, 0.0, 0.0))
