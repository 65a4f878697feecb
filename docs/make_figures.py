"""Draw the README's picture, ``docs/mathbg.png``, with mathbg's public API.

Run from the repository root: ``python docs/make_figures.py`` (a few seconds; the first run
builds the one-sided 6x15 bearoff database into the user cache directory or ``$MATHBG_DATA``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from mathbg import plots
from mathbg.bearoff import OneSided
from mathbg.cube.matrix import score_matrix
from mathbg.met import load

OUT = Path(__file__).resolve().parent / "mathbg.png"


def main(out: Path = OUT) -> Path:
    """Four panels: a MET, take points at every score, take point vs gammons, a bear-off."""
    kxg2 = load("kazaross-xg2")
    fig, axes = plt.subplots(2, 2, figsize=(13, 11.5))
    plots.met_heatmap(kxg2, ax=axes[0, 0], length=9, title="Kazaross-XG2: match winning chance %")
    plots.cube_point_heatmap(
        score_matrix(kxg2, 9),
        "take_live",
        ax=axes[0, 1],
        title="take point % against an initial double (live cube)",
    )
    plots.take_point_vs_gammon_rate(
        kxg2, (3, 5), ax=axes[1, 0], title="3-away taker vs 5-away doubler: take point vs gammons"
    )
    db = OneSided.build(points=6, checkers=15)
    plots.bearoff_distribution(
        db,
        [[0, 0, 0, 0, 0, 15], [0, 0, 0, 5, 5, 5], [3, 3, 3, 3, 3, 0]],
        ax=axes[1, 1],
        title="exact bear-offs: rolls to bear off 15 checkers",
    )
    fig.tight_layout()
    fig.savefig(out, dpi=70)
    plt.close(fig)
    return out


if __name__ == "__main__":
    print(main(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))
