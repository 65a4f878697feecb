"""Over-the-board MET formulas (Janowski, Turner, Neil's numbers).

Expected: the formulas evaluated by hand, and the error statistics against Kazaross-XG2
quoted in theory-and-sources §1.7 (leader 3..10-away, trailer up to 11-away).
"""

from __future__ import annotations

import numpy as np
import pytest

from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.met import load
from mathbg.met.approx import approx_table, janowski, neil, turner


def test_formulas_by_hand():
    # leader 3-away, trailer 4-away: D = 1, T = 4
    assert janowski((3, 4)) == pytest.approx(0.50 + 0.85 / 10)  # 50 + 85 D/(T+6) = 58.5 %
    assert turner((3, 4)) == pytest.approx(0.50 + (24 / 4 + 3) / 100)  # 59 %
    assert neil((3, 4)) == pytest.approx(0.59)  # N(4) = 9
    assert neil((5, 7)) == pytest.approx(0.50 + 2 * 6.5 / 100)  # N(7) between 7 and 6
    assert neil((10, 13)) == pytest.approx(0.50 + 3 * 4.5 / 100)  # N(13) between 5 and 4
    # the trailer gets the complement; level scores are 50 %
    assert janowski((4, 3)) == pytest.approx(1 - janowski((3, 4)))
    assert turner((7, 7)) == neil((7, 7)) == janowski((7, 7)) == 0.5
    assert turner((1, 25)) == 1.0  # clipped (the raw formula exceeds 100 %)


def test_vectorised():
    a = np.arange(1, 6)
    np.testing.assert_allclose(janowski((a, 6)), [janowski((int(x), 6)) for x in a])
    table = approx_table("neil", 9)
    assert table.shape == (9, 9)
    np.testing.assert_allclose(table + table.T, 1.0)


@pytest.mark.parametrize(
    ("func", "mean", "worst", "where"),
    [
        (janowski, 0.30, 1.35, (3, 4)),
        (neil, 0.35, 1.85, (3, 4)),
        (turner, 0.50, 2.0, (3, 11)),
    ],
)
def test_errors_against_kazaross_xg2(func, mean, worst, where):
    kxg2 = load("kazaross-xg2")
    errors = {
        (lead, trail): 100 * abs(func((lead, trail)) - kxg2.mwc((lead, trail)))
        for lead in range(3, 11)
        for trail in range(lead + 1, 12)
    }
    assert np.mean(list(errors.values())) == pytest.approx(mean, abs=0.01)
    worst_score = max(errors, key=errors.get)
    assert worst_score == where
    assert errors[worst_score] == pytest.approx(worst, abs=0.02)


def test_errors():
    with pytest.raises(InvalidScoreError):
        janowski((0, 3))
    with pytest.raises(InvalidScoreError):
        turner((2.5, 3))
    with pytest.raises(InvalidParameterError):
        approx_table("kleinman")
