"""Issue 23: the README's picture draws no number where nothing applies.

``docs/mathbg.png`` is drawn by ``docs/make_figures.py``; its take-point panel once showed a
column of 0 % take points against a 1-away doubler (who has nothing to double for). The
panel is redrawn here as the script draws it, and every number written on it must sit on a
cell whose take point applies (the committed picture is regenerated with the script).
"""

from __future__ import annotations

import matplotlib
import numpy as np

matplotlib.use("Agg")


def test_take_point_panel_writes_numbers_only_where_they_apply() -> None:
    import matplotlib.pyplot as plt

    from mathbg import plots
    from mathbg.cube.matrix import score_matrix, take_point_table
    from mathbg.met import load

    sm = score_matrix(load("kazaross-xg2"), 9)
    ax = plots.cube_point_heatmap(sm, "take_live")
    table = take_point_table(sm, 1, "take_live").to_numpy()
    assert np.isnan(table[:, 0]).all()  # a 1-away doubler: nothing to double for
    written = {(round(t.get_position()[1]), round(t.get_position()[0])) for t in ax.texts}
    assert written, "the panel writes its numbers"
    for i, j in written:
        assert np.isfinite(table[i, j]), f"a number drawn on a not-applicable cell {i + 1}/{j + 1}"
    assert len(written) == int(np.isfinite(table).sum())
    plt.close(ax.figure)
