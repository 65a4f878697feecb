"""Race plot helpers in mathbg.plots."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from mathbg import plots
from mathbg.race.evaluate import race_chances, roll_distribution


def test_race_rolls() -> None:
    c = race_chances(([5, 4] + [0] * 23, [15] + [0] * 24))
    ax = plots.race_rolls(c)
    heights = [p.get_height() for p in ax.patches]
    # two bar series over the same rolls; each sums to 100 %
    assert sum(heights) == pytest.approx(200.0, abs=0.05)
    assert "4.41" in ax.get_legend().get_texts()[0].get_text()  # 4.41 rolls (gnubg FAQ)
    _, ax2 = plt.subplots()
    d = roll_distribution([0] * 5 + [1] + [0] * 19)
    assert plots.race_rolls(d, d.rolls, ax=ax2) is ax2
    with pytest.raises(ValueError, match="both sides"):
        plots.race_rolls(race_chances(([0] * 5 + [1] + [0] * 19, [0] * 5 + [1] + [0] * 19)))
    plt.close("all")


def test_race_chances_by_lead() -> None:
    ax = plots.race_chances_by_lead((40, 100), leads=np.arange(-4, 11),
                                    points=[(5, 0.7), (10, 0.8)])  # fmt: skip
    lines = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 15]
    assert len(lines) == 2
    # at D + 4 = 0 the Kleinman chance is 1/2
    y = lines[0].get_ydata()
    assert y[0] == pytest.approx(50.0)
    assert np.all(np.diff(y) > 0)
    plt.close("all")
