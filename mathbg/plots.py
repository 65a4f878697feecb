"""Plot helpers for mathbg results (matplotlib only).

A flat module of functions: each takes the object to draw and an optional matplotlib
``ax`` (a new figure is made when it is None) and returns the Axes. matplotlib is imported
here only, never by ``import mathbg``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from mathbg.met import MET

__all__ = ["met_heatmap", "post_crawford"]


def met_heatmap(
    met: MET,
    ax: Axes | None = None,
    *,
    length: int | None = None,
    annotate: bool | None = None,
    decimals: int = 0,
    cmap: str = "RdYlGn",
    colorbar: bool = True,
    title: str | None = None,
) -> Axes:
    """Annotated heatmap of the pre-Crawford table (percent MWC of the row player).

    Parameters
    ----------
    met : MET
        The table.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    length : int, optional
        Show only scores up to this many away (default: the whole table).
    annotate : bool, optional
        Write the values in the cells (default: when the table is at most 15 long).
    decimals : int
        Decimals of the percentages written in the cells.
    cmap : str
        Colormap (the centre, 50 %, is a level game).
    colorbar : bool
        Draw a colour bar.
    title : str, optional
        Axes title (default: the table's name).
    """
    n = met.length if length is None else max(1, min(int(length), met.length))
    data = 100.0 * np.asarray(met.pre[:n, :n])
    if ax is None:
        size = 3.0 + 0.35 * n
        _, ax = plt.subplots(figsize=(size + 1.0, size))
    image = ax.imshow(data, cmap=cmap, vmin=0.0, vmax=100.0, origin="upper")
    ticks = np.arange(n)
    ax.set_xticks(ticks, labels=[str(b) for b in range(1, n + 1)])
    ax.set_yticks(ticks, labels=[str(a) for a in range(1, n + 1)])
    ax.set_xlabel("opponent needs (away)")
    ax.set_ylabel("player needs (away)")
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    if annotate is None:
        annotate = n <= 15
    if annotate:
        fontsize = max(5.0, 10.0 - 0.25 * n)
        for i in range(n):
            for j in range(n):
                value = data[i, j]
                colour = "black" if 25.0 <= value <= 75.0 else "white"
                ax.text(
                    j,
                    i,
                    f"{value:.{decimals}f}",
                    ha="center",
                    va="center",
                    fontsize=fontsize,
                    color=colour,
                )
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="MWC %", shrink=0.8)
    ax.set_title(title if title is not None else f"{met.name}: pre-Crawford MWC %", pad=24)
    return ax


def post_crawford(
    met: MET, ax: Axes | None = None, *, title: str | None = None, **plot_kwargs: Any
) -> Axes:
    """The post-Crawford trailer's MWC (percent) against his away score, n = 1..N.

    Both players' vectors are drawn when they differ (unequal-skill tables).
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 4.0))
    n = np.arange(1, met.length + 1)
    same = np.array_equal(met.post[0], met.post[1])
    players = (0,) if same else (0, 1)
    for p in players:
        label = "trailer" if same else f"player {p} trailing"
        ax.plot(n, 100.0 * met.post[p], marker="o", label=label, **plot_kwargs)
    ax.set_xlabel("trailer needs (away), leader 1-away")
    ax.set_ylabel("trailer's MWC %")
    ax.set_xlim(0.5, met.length + 0.5)
    ax.set_ylim(bottom=0.0)
    ax.grid(True, alpha=0.3)
    if not same:
        ax.legend()
    ax.set_title(title if title is not None else f"{met.name}: post-Crawford")
    return ax
