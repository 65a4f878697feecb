"""Plot helpers for mathbg results (matplotlib only).

A flat module of functions: each takes the object to draw and an optional matplotlib
``ax`` (a new figure is made when it is None) and returns the Axes. matplotlib is imported
here only, never by ``import mathbg``.

:func:`save_figure` writes a figure to a file safely (atomic, marked as mathbg's, never
over a file mathbg did not write unless ``force``); it is not a plot, so it is not in
``__all__``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

import matplotlib.pyplot as plt
import numpy as np

from mathbg._validate import away_score
from mathbg.errors import InvalidParameterError, InvalidScoreError

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

    from mathbg.met import MET

__all__ = [
    "audit_timeline",
    "bearoff_distribution",
    "bearoff_wastage",
    "corpus_heatmap",
    "cube_action_grid",
    "cube_point_heatmap",
    "exact_take_boundary",
    "implied_cube_life",
    "market_window_bars",
    "met_difference_heatmap",
    "met_heatmap",
    "post_crawford",
    "race_chances_by_lead",
    "race_rolls",
    "rollout_grid",
    "take_point_vs_cube_life",
    "take_point_vs_gammon_rate",
]


def save_figure(
    figure: Any,
    path: str | os.PathLike[str],
    *,
    force: bool = False,
    dpi: float = 100,
    tight_layout: bool = True,
    close: bool = True,
    **savefig: Any,
) -> Path:
    """Save ``figure`` to ``path`` safely and (by default) close it.

    The format comes from the suffix (``savefig``'s rule). The file is written atomically
    and marked as mathbg's (PNG ``Software``, SVG/PDF ``Creator`` metadata), so saving to
    the same path again replaces it; an existing file mathbg did not write is refused
    unless ``force`` (see :mod:`mathbg._files`).

    Raises
    ------
    mathbg.errors.TargetExistsError
        ``path`` is a directory, or a file mathbg did not write (and ``force`` is false).
    """
    from mathbg._files import output_file, savefig_metadata

    final = Path(path)
    fmt = savefig.pop("format", None) or final.suffix.lstrip(".").lower() or "png"
    metadata = savefig_metadata(fmt)
    if metadata is not None:
        savefig.setdefault("metadata", metadata)
    try:
        if tight_layout:
            figure.tight_layout()
        with output_file(final, what=f"{fmt.upper()} plot", force=force) as tmp:
            figure.savefig(tmp, dpi=dpi, format=fmt, **savefig)
    finally:
        if close:
            plt.close(figure)
    return final


def __dir__() -> list[str]:
    """The public plotting functions only (not ``np``, ``plt`` or helpers)."""
    return sorted(__all__)


def _annotate_cells(ax: Axes, image: Any, data: np.ndarray, fmt: str, fontsize: float) -> None:
    """Write each finite cell's value, black on light cells and white on dark ones.

    The text colour follows the luminance of the cell's colour in ``image``'s colour map,
    so it stays readable with any map and in grey-scale print.
    """
    rgba = image.cmap(image.norm(data))
    luminance = 0.299 * rgba[..., 0] + 0.587 * rgba[..., 1] + 0.114 * rgba[..., 2]
    for i in range(data.shape[0]):
        for j in range(data.shape[1]):
            value = data[i, j]
            if np.isfinite(value):
                text = fmt.format(value)
                if float(text) == 0.0:  # no "-0.0"
                    text = fmt.format(0.0)
                colour = "black" if luminance[i, j] > 0.5 else "white"
                ax.text(j, i, text, ha="center", va="center", fontsize=fontsize, color=colour)


def _heatmap(
    data: np.ndarray,
    ax: Axes | None,
    *,
    cmap: str,
    xticklabels: list[str],
    yticklabels: list[str],
    xlabel: str,
    ylabel: str,
    annotate: bool | None,
    fmt: str,
    font_step: float,
    colorbar: bool,
    colorbar_label: str,
    **imshow_kwargs: Any,
) -> Axes:
    """Draw ``data`` as a heatmap with its tick labels on top (a new square-ish figure when
    ``ax`` is None), write the cells (``annotate``; default: at most 15 x 15) and add a
    colour bar. The font of the cells shrinks by ``font_step`` points per row/column."""
    size_n = max(data.shape)
    if ax is None:
        size = 3.0 + 0.35 * size_n
        _, ax = plt.subplots(figsize=(size + 1.0, size))
    colours = plt.get_cmap(cmap).with_extremes(bad=(1.0, 1.0, 1.0, 0.0))  # NaN: blank
    image = ax.imshow(np.ma.masked_invalid(data), cmap=colours, origin="upper", **imshow_kwargs)
    ax.set_xticks(np.arange(data.shape[1]), labels=xticklabels)
    ax.set_yticks(np.arange(data.shape[0]), labels=yticklabels)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.xaxis.set_label_position("top")
    ax.xaxis.tick_top()
    if annotate is None:
        annotate = size_n <= 15
    if annotate:
        _annotate_cells(ax, image, data, fmt, max(5.0, 10.0 - font_step * size_n))
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label=colorbar_label, shrink=0.8)
    return ax


def _titled(ax: Axes, title: str | None, default: str, **options: Any) -> Axes:
    """``ax`` with its title: ``title`` when given, else the plot's ``default``."""
    ax.set_title(title if title is not None else default, **options)
    return ax


def _away_labels(n: int) -> list[str]:
    return [str(a) for a in range(1, n + 1)]


def _met_axes(n: int) -> dict[str, Any]:
    """The axes of an ``n`` x ``n`` MET heatmap: rows the player's away score, columns the
    opponent's (tick labels 1..n)."""
    return {"xticklabels": _away_labels(n), "yticklabels": _away_labels(n),
            "xlabel": "opponent needs (away)", "ylabel": "player needs (away)"}  # fmt: skip


def met_heatmap(
    met: MET,
    ax: Axes | None = None,
    *,
    length: int | None = None,
    annotate: bool | None = None,
    decimals: int = 0,
    cmap: str = "cividis",
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
        Colormap (default ``cividis``: perceptually uniform, colour-blind safe, monotone
        in grey-scale print; dark = the row player is behind).
    colorbar : bool
        Draw a colour bar.
    title : str, optional
        Axes title (default: the table's name).
    """
    n = met.length if length is None else max(1, min(int(length), met.length))
    data = 100.0 * np.asarray(met.pre[:n, :n])
    ax = _heatmap(
        data,
        ax,
        cmap=cmap,
        vmin=0.0,
        vmax=100.0,
        **_met_axes(n),
        annotate=annotate,
        fmt=f"{{:.{decimals}f}}",
        font_step=0.25,
        colorbar=colorbar,
        colorbar_label="MWC %",
    )
    return _titled(ax, title, f"{met.name}: pre-Crawford MWC %", pad=24)


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
    return _titled(ax, title, f"{met.name}: post-Crawford")


def met_difference_heatmap(
    met: MET,
    reference: MET,
    ax: Axes | None = None,
    *,
    length: int | None = None,
    annotate: bool | None = None,
    decimals: int = 1,
    cmap: str = "PuOr",
    limit: float | None = None,
    colorbar: bool = True,
    title: str | None = None,
) -> Axes:
    """Heatmap of ``met - reference`` (pre-Crawford, percentage points of MWC).

    Cell (a, b) is how many percentage points the row player's MWC at a-away vs b-away
    is higher in ``met`` than in ``reference``. Both tables are compared on their common
    scores (up to the shorter length, or ``length``).

    Parameters
    ----------
    met, reference : MET
        The table to show and the one it is compared with (e.g. Kazaross-XG2).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    length : int, optional
        Largest away score shown (default: the shorter table's length).
    annotate : bool, optional
        Write the differences in the cells (default: up to 15 x 15).
    decimals : int
        Decimals of the written differences.
    cmap : str
        Diverging colour map centred on 0 (default ``PuOr``: colour-blind safe).
    limit : float, optional
        Colour scale from ``-limit`` to ``+limit`` points (default: the largest ``|difference|``).
    """
    n = min(met.length, reference.length)
    if length is not None:
        n = max(1, min(int(length), n))
    data = 100.0 * (np.asarray(met.pre[:n, :n]) - np.asarray(reference.pre[:n, :n]))
    lim = float(np.max(np.abs(data))) if limit is None else float(limit)
    lim = lim if lim > 0.0 else 1.0
    ax = _heatmap(
        data,
        ax,
        cmap=cmap,
        vmin=-lim,
        vmax=lim,
        **_met_axes(n),
        annotate=annotate,
        fmt=f"{{:+.{decimals}f}}",
        font_step=0.3,
        colorbar=colorbar,
        colorbar_label="MWC difference (% points)",
    )
    default = f"{met.name} minus {reference.name} (MWC % points)"
    return _titled(ax, title, default, pad=24)


# ----------------------------------------------------------------------------- cube points


def cube_point_heatmap(
    matrix: Any,
    column: str = "take_dead",
    cube: int = 1,
    ax: Axes | None = None,
    *,
    annotate: bool | None = None,
    decimals: int = 0,
    cmap: str = "viridis",
    colorbar: bool = True,
    title: str | None = None,
) -> Axes:
    """Heatmap of one score-matrix column (percent) for one cube level.

    Cells whose point does not apply (NaN: the Crawford game, a doubler who needs no more
    than the cube) are left blank, with no number.

    Parameters
    ----------
    matrix : pandas.DataFrame
        A :func:`mathbg.cube.matrix.score_matrix` result.
    column : str
        ``take_dead``, ``take_no_recube``, ``take_live``, ``double``, ``cash_dead``, ``cash_live``,
        ``too_good``, ``take_x``, ``cash_x`` or a gammon-value column (shown as is, not
        in percent).
    cube : int
        Cube value; take points are against a double from ``cube`` to ``2 cube``.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    annotate : bool, optional
        Write the values in the cells (default: up to 15 x 15).
    """
    from mathbg.cube.matrix import take_point_table

    table = take_point_table(matrix, cube, column)
    percent = "value" not in column
    data = table.to_numpy(dtype=float) * (100.0 if percent else 1.0)
    taker = column.startswith("take")
    if percent:
        label = "taker's winning chance %" if taker else "doubler's winning chance %"
    else:
        money_value = "1" if "backgammon" in column else "0.5"
        label = f"{column.replace('_', ' ')} (XG convention: money = {money_value})"
    ax = _heatmap(
        data,
        ax,
        cmap=cmap,
        aspect="auto",
        xticklabels=[str(v) for v in table.columns],
        yticklabels=[str(v) for v in table.index],
        xlabel="doubler needs (away)" if taker else "opponent needs (away)",
        ylabel="taker needs (away)" if taker else "doubler needs (away)",
        annotate=annotate,
        fmt=f"{{:.{decimals}f}}" if percent else "{:.2f}",
        font_step=0.25,
        colorbar=colorbar,
        colorbar_label=label,
    )
    met = matrix.attrs.get("met", "")
    names = {
        "take_dead": "take point, dead cube",
        "take_no_recube": "take point, no recube",
        "take_live": "take point, live cube (x = 1)",
        "take_x": f"take point at cube life x = {matrix.attrs.get('cube_life')}",
        "double": "double point (dead)",
        "cash_dead": "cash point, dead cube",
        "cash_live": "cash point, live cube (x = 1)",
        "cash_x": f"cash point at cube life x = {matrix.attrs.get('cube_life')}",
        "too_good": "too-good point",
    }
    what = names.get(column, column.replace("_", " "))
    if np.isnan(data).any():
        what += " (blank: n/a)"
    default = (
        f"{met}: {what}, cube {cube}\u2192{2 * cube}" if percent else f"{met}: {what}, cube {cube}"
    )
    return _titled(ax, title, default, pad=24)


def market_window_bars(points: Any, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """Both players' market windows at a score as horizontal bars (winning chance %).

    ``points`` is a :class:`mathbg.cube.match.ScorePoints` (from
    :func:`mathbg.cube.match.points`). For each player: the dead window (double point to
    dead cash point), the no-recube window where it differs (the taker's redouble is free,
    :data:`mathbg.cube.match.TERMS`), the live window (to the live cash point) and the
    too-good point. A player with nothing to double for has no bars.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 3.0))
    labels = []
    y = 0
    for who, pl, away in zip(("player", "opponent"), points.players, points.away, strict=True):
        no_recube = getattr(pl, "cash_point_no_recube", None)
        dp_nr = getattr(pl, "double_point_no_recube", None)
        differs = (
            no_recube is not None
            and dp_nr is not None
            and pl.cash_point_dead is not None
            and pl.double_point_dead is not None
            and max(abs(no_recube - pl.cash_point_dead), abs(dp_nr - pl.double_point_dead))
            > 1e-12
        )
        rows = [("dead", pl.double_point_dead, pl.cash_point_dead, "tab:blue")]
        if differs:  # the taker's redouble is free: gnubg's second dead line
            rows.append(("no recube", dp_nr, no_recube, "tab:purple"))
        rows.append(("live", pl.double_point_dead, pl.cash_point_live, "tab:green"))
        for kind, double, cash, colour in rows:
            if cash is None or double is None:  # does not apply: no bar
                continue
            lo = 100.0 * double
            ax.barh(y, 100.0 * cash - lo, left=lo, color=colour, alpha=0.7, height=0.6)
            ax.text(lo, y, f"{lo:.1f} ", ha="right", va="center", fontsize=8)
            ax.text(100.0 * cash, y, f" {100.0 * cash:.1f}", ha="left", va="center", fontsize=8)
            if pl.too_good_point is not None and pl.too_good_point < 1.0:
                ax.plot([100.0 * pl.too_good_point] * 2, [y - 0.35, y + 0.35], color="tab:red")
            labels.append(f"{who} ({away}-away), {kind}")
            y += 1
    ax.set_yticks(np.arange(len(labels)), labels=labels)
    ax.set_xlim(0.0, 100.0)
    ax.set_xlabel("doubler's winning chance % (double point to cash point; red: too good)")
    ax.invert_yaxis()
    ax.grid(True, axis="x", alpha=0.3)
    default = (
        f"{points.met}: {points.away[0]}-away vs {points.away[1]}-away, cube {points.cube} -> "
        f"{2 * points.cube}, {points.state}"
    )
    return _titled(ax, title, default)


def take_point_vs_gammon_rate(
    met: MET | str,
    away: tuple[int, int],
    cube: int = 1,
    ax: Axes | None = None,
    *,
    rates: Any = None,
    side: str = "both",
    title: str | None = None,
) -> Axes:
    """Dead and live take point of the first-named player against a gammon rate.

    ``away = (player_away, opponent_away)``: the taker's and the doubler's points to go.
    ``side``: whose gammon rate varies, ``"both"`` (same rate for both sides), ``"taker"``
    (the first-named player's, the opponent's 0) or ``"doubler"``. Rates are disjoint
    fractions of that side's wins (default 0..0.5).
    """
    from mathbg.cube.match import take_point_dead, take_point_live

    r = np.linspace(0.0, 0.5, 51) if rates is None else np.asarray(rates, dtype=float)
    zero = np.zeros_like(r)
    gammons = {"both": (r, r), "taker": (r, zero), "doubler": (zero, r)}.get(side)
    if gammons is None:
        raise InvalidParameterError(f"side must be both, taker or doubler; got {side!r}")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 4.0))
    a, b = away_score(away)
    dead = take_point_dead(met, (a, b), cube, gammons)
    live = take_point_live(met, (a, b), cube, gammons)
    ax.plot(100.0 * r, 100.0 * np.asarray(dead), label="dead cube")
    ax.plot(100.0 * r, 100.0 * np.asarray(live), label="live cube", linestyle="--")
    ax.set_xlabel(f"gammon rate % ({side}; share of wins)")
    ax.set_ylabel("take point %")
    ax.grid(True, alpha=0.3)
    ax.legend()
    name = getattr(met, "name", met)
    default = f"{name}: taker {a}-away vs {b}-away, cube {cube}"
    return _titled(ax, title, default)


def take_point_vs_cube_life(
    met: MET | str | None = None,
    away: tuple[int, int] | None = None,
    cube: int = 1,
    ax: Axes | None = None,
    *,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    cube_life: Any = None,
    title: str | None = None,
) -> Axes:
    """Take point against the cube life x (0 dead .. 1 live): money (``met=None``,
    Janowski) or at the match score ``away = (player_away, opponent_away)``. Rates are
    disjoint fractions of wins; ``cube_life`` the values to plot (default 0 .. 1)."""
    xs = np.linspace(0.0, 1.0, 51) if cube_life is None else np.asarray(cube_life, dtype=float)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.0, 4.0))
    if met is None:
        from mathbg.cube.money import money_take_point as money_tp

        g0, g1 = gammons if np.ndim(gammons) else (gammons, gammons)
        b0, b1 = backgammons if np.ndim(backgammons) else (backgammons, backgammons)
        tp = money_tp(1.0 + g0 + 2.0 * b0, 1.0 + g1 + 2.0 * b1, xs)
        default = "money play (Janowski)"
    else:
        from mathbg.cube.match import take_point

        if away is None:
            raise InvalidScoreError(
                "match play needs the score, away=(player_away, opponent_away)"
            )
        a, b = away_score(away)
        tp = take_point(met, (a, b), cube, gammons, backgammons, cube_life=xs)
        default = f"{getattr(met, 'name', met)}: taker {a}-away vs {b}-away, cube {cube}"
    ax.plot(xs, 100.0 * np.asarray(tp))
    ax.set_xlabel("cube life x (0 dead, 1 fully live)")
    ax.set_ylabel("take point %")
    ax.grid(True, alpha=0.3)
    return _titled(ax, title, default)


# ----------------------------------------------------------------------------- races


def _rolls_of(d: Any) -> np.ndarray:
    return np.asarray(getattr(d, "rolls", d), dtype=float)


def race_rolls(
    first: Any,
    second: Any = None,
    ax: Axes | None = None,
    *,
    labels: tuple[str, str] = ("on roll", "opponent"),
    title: str | None = None,
) -> Axes:
    """Both sides' distributions of the number of rolls to bear off, as side-by-side bars.

    Parameters
    ----------
    first : RaceChances, RollDistribution or array
        A :class:`mathbg.race.evaluate.RaceChances` with both sides' distributions, or the
        side on roll's :class:`~mathbg.race.evaluate.RollDistribution` (or probabilities
        ``P(n rolls)``), with ``second`` the opponent's.
    second : RollDistribution or array, optional
        The opponent's distribution when ``first`` is one side.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    """
    if second is None:
        roller, opponent = getattr(first, "roller", None), getattr(first, "opponent", None)
        if roller is None or opponent is None:
            raise InvalidParameterError(
                "give both sides' distributions (mathbg.race.evaluate.roll_distribution)"
            )
        first, second = roller, opponent
    a, b = _rolls_of(first), _rolls_of(second)
    n = max(np.flatnonzero(a > 1e-6).max(initial=0), np.flatnonzero(b > 1e-6).max(initial=0)) + 2
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    k = np.arange(n)
    pad = np.zeros(n)
    for off, d, label in ((-0.2, a, labels[0]), (0.2, b, labels[1])):
        m = min(n, len(d))
        vals = pad.copy()
        vals[:m] = d[:m]
        mean = float(np.arange(len(d)) @ d)
        ax.bar(k + off, 100.0 * vals, width=0.4, label=f"{label} (mean {mean:.2f} rolls)")
    ax.set_xlabel("rolls to bear off")
    ax.set_ylabel("probability %")
    ax.set_xticks(k)
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    return _titled(ax, title, "rolls to finish the race")


def race_chances_by_lead(
    pip_counts: Any = (40, 80, 120),
    leads: Any = None,
    ax: Axes | None = None,
    *,
    points: Any = None,
    title: str | None = None,
) -> Axes:
    """Winning chances of the side on roll against its pip lead (Kleinman's model).

    One curve per pip count L of the side on roll: ``P = Phi((D + 4) / sqrt(2 (2 L + D -
    4)))`` with D the lead in pips (:func:`mathbg.race.counts.kleinman_win_probability`),
    and dashed lines at 69 % and 78 %, the usual money doubling and pass points of long
    races (Kleinman's K = 0.5 and 1.2, Ø. Johansen 2001). ``points`` adds evaluated
    positions, an array of ``(lead, p_win)`` rows (e.g. from
    :func:`mathbg.race.evaluate.race_chances`).
    """
    from mathbg.race.counts import kleinman_win_probability

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    d = np.arange(-10, 31) if leads is None else np.asarray(leads)
    for pips in np.atleast_1d(pip_counts):
        p = kleinman_win_probability(pips, pips + d)
        ax.plot(d, 100.0 * np.asarray(p), label=f"{int(pips)} pips on roll (Kleinman)")
    if points is not None:
        pts = np.asarray(points, dtype=float)
        ax.scatter(pts[:, 0], 100.0 * pts[:, 1], s=12, color="black", label="evaluated")
    for level in (69.0, 78.0):
        ax.axhline(level, ls="--", lw=0.8, color="grey")
    ax.set_xlabel("lead in pips (opponent's pips - on roll's)")
    ax.set_ylabel("winning chance %")
    ax.grid(True, alpha=0.3)
    ax.legend()
    return _titled(ax, title, "race winning chances by pip lead")


# ----------------------------------------------------------------------------- bearoff

_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_LINESTYLES = ("-", "--", "-.", ":")


def bearoff_distribution(
    db: Any,
    positions: Any,
    ax: Axes | None = None,
    *,
    labels: Any = None,
    gammon: bool = False,
    title: str | None = None,
) -> Axes:
    """Distribution of the number of rolls to bear off, for one or more positions.

    Each curve is ``P(exactly n rolls)`` in percent against n, with the position's mean
    number of rolls and its effective pip count (EPC = mean rolls x 49/6, Trice) in the
    legend. Curves differ in marker and line style as well as colour (readable in print).

    Parameters
    ----------
    db : mathbg.bearoff.OneSided
        The one-sided database.
    positions : sequence
        Checker counts on points 1..P of each position (or a single position).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).
    labels : sequence of str, optional
        Legend labels (default: the counts, e.g. ``0,0,0,0,0,15``).
    gammon : bool
        Draw the gammon distribution instead: the roll on which the first checker comes
        off (15-checker positions).
    """
    arr = np.asarray(positions)
    if arr.ndim == 1:
        arr = arr[None, :]
    if labels is None:
        labels = [",".join(str(int(v)) for v in row) for row in arr]
    elif len(labels) != len(arr):
        raise InvalidParameterError(f"{len(labels)} labels for {len(arr)} positions")
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 4.0))
    dists = db.gammon_distribution(arr) if gammon else db.distribution(arr)
    means = dists @ np.arange(dists.shape[1])
    last = 1
    for k, (dist, mean, label) in enumerate(zip(dists, means, labels, strict=True)):
        n = np.arange(len(dist))
        nonzero = np.flatnonzero(dist > 1e-9)
        last = max(last, int(nonzero[-1]) if nonzero.size else 0)
        extra = (
            f"mean {mean:.2f} rolls"
            if gammon
            else f"mean {mean:.2f} rolls, EPC {mean * 49 / 6:.1f}"
        )
        ax.plot(
            n,
            100.0 * dist,
            label=f"{label} ({extra})",
            marker=_MARKERS[k % len(_MARKERS)],
            linestyle=_LINESTYLES[k % 4],
        )
    ax.set_xlim(-0.5, last + 1.5)
    ax.set_ylim(bottom=0.0)
    what = "roll on which the first checker comes off" if gammon else "rolls to bear off all"
    ax.set_xlabel(f"{what} (number of rolls)")
    ax.set_ylabel("probability %")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    default = f"one-sided {db.points}x{db.checkers} bearoff: " + (
        "rolls to the first checker off" if gammon else "rolls to bear off"
    )
    return _titled(ax, title, default)


def bearoff_wastage(
    db: Any,
    ax: Axes | None = None,
    *,
    checkers: int | None = None,
    title: str | None = None,
) -> Axes:
    """Wastage (EPC minus pip count) of every position of a one-sided database.

    Each position is a point at (pip count, EPC - pips), with EPC = mean rolls x 49/6; the
    line is the mean wastage at each pip count. Low, spread positions waste few pips; a
    stack on a low point wastes many (e.g. one checker on the 6-point: 4.21 pips).

    Parameters
    ----------
    db : mathbg.bearoff.OneSided
        The one-sided database.
    checkers : int, optional
        Only positions with exactly this many checkers (default: all non-empty ones).
    """
    from mathbg.bearoff import all_positions
    from mathbg.bearoff.index import pips as pip_counts

    boards = all_positions(db.points, db.checkers)
    count = boards.sum(axis=1)
    keep = count > 0 if checkers is None else count == int(checkers)
    if not np.any(keep):
        raise InvalidParameterError(f"no positions with {checkers} checkers in this database")
    boards = boards[keep]
    pips = np.asarray(pip_counts(boards))
    waste = np.asarray(db.epc(boards)) - pips
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 4.0))
    ax.scatter(pips, waste, s=2, alpha=0.25, color="tab:blue", rasterized=True, label="positions")
    grid = np.unique(pips)
    mean = np.bincount(pips, weights=waste)[grid] / np.bincount(pips)[grid]
    ax.plot(grid, mean, color="black", linewidth=1.5, label="mean at each pip count")
    ax.set_xlabel("pip count (pips)")
    ax.set_ylabel("wastage = EPC - pips (pips)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, markerscale=4)
    which = "all positions" if checkers is None else f"{checkers} checkers"
    default = f"one-sided {db.points}x{db.checkers} bearoff: wastage ({which})"
    return _titled(ax, title, default)


# ----------------------------------------------------------------------------- exact match play


def exact_take_boundary(
    frame: Any,
    ax: Axes | None = None,
    *,
    max_points: int = 20000,
    title: str | None = None,
) -> Axes:
    """The exact take/pass margin of every pair against the taker's cubeless chance.

    ``frame`` is :func:`mathbg.bearoff.exact.analysis.take_boundary`: each dot is a pair,
    at the taker's cubeless winning chance (x) and its MWC gained by taking rather than
    passing (y, percentage points; above 0 the exact answer is a take). The vertical lines
    are the take points of the rules: no recube, dead (gnubg's convention, with the taker's
    free redouble) and fully live (:data:`mathbg.cube.match.TERMS`). A random sample of
    ``max_points`` dots is drawn.
    """
    df = frame
    if len(df) > max_points:
        df = df.sample(max_points, random_state=0)
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 4.5))
    pt = 100.0 * df["p_taker"].to_numpy()
    margin = 100.0 * df["take_margin"].to_numpy()
    take = df["exact_take"].to_numpy()
    ax.scatter(pt[take], margin[take], s=3, alpha=0.3, color="tab:blue", label="exact take",
               rasterized=True)  # fmt: skip
    ax.scatter(pt[~take], margin[~take], s=3, alpha=0.3, color="tab:orange",
               label="exact pass", rasterized=True)  # fmt: skip
    ax.axhline(0.0, color="black", linewidth=0.8)
    styles = {"no_recube": ("no recube", "--"),
              "gnubg": ("dead (gnubg: taker's free redouble)", ":"),
              "live": ("fully live", "-.")}  # fmt: skip
    for rule, (label, style) in styles.items():
        tp = frame.attrs.get(f"tp_{rule}")
        if tp is not None and np.isfinite(tp):
            ax.axvline(100.0 * tp, color="black", linestyle=style, linewidth=1.0,
                       label=f"{label} TP {100 * tp:.1f} %")  # fmt: skip
    lo = max(0.0, min(pt.min(initial=100.0), 100.0 * frame.attrs.get("tp_live", 0.2)) - 5.0)
    ax.set_xlim(lo, min(100.0, lo + 35.0))
    ax.set_xlabel("taker's cubeless winning chance (%)")
    ax.set_ylabel("taker's MWC: take minus pass (% points)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, markerscale=3)
    a, b = frame.attrs.get("away", ("?", "?"))
    cube = frame.attrs.get("cube", 1)
    default = f"exact take/pass at {a}-away (doubler) / {b}-away (taker), cube {cube}"
    return _titled(ax, title, default)


def implied_cube_life(
    table: Any,
    ax: Axes | None = None,
    *,
    title: str | None = None,
) -> Axes:
    """Implied cube life x by pip count, one line per score (median with quartile band).

    ``table`` is :func:`mathbg.bearoff.exact.analysis.cube_life_table`. gnubg uses
    x = 0.6 in bearoffs and 0.68 in contact; the exact x is where its blend
    ``(1 - x) dead + x live`` would have to sit to give the exact no-double MWC.
    """
    if ax is None:
        _, ax = plt.subplots(figsize=(7.0, 4.5))
    for (a, b), group in table.groupby(["away", "opp_away"], sort=False):
        group = group[group["n"] >= 20]
        x = group["pips"].to_numpy()
        (line,) = ax.plot(x, group["x_median"], marker="o", markersize=3,
                          label=f"{a}-away/{b}-away")  # fmt: skip
        ax.fill_between(x, group["x_q25"], group["x_q75"], color=line.get_color(), alpha=0.15)
    ax.axhline(0.6, color="black", linestyle=":", linewidth=1.0, label="gnubg bearoff x = 0.6")
    ax.set_xlabel("pip count (both sides)")
    ax.set_ylabel("implied cube life x")
    ax.set_ylim(-0.1, 1.3)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return _titled(ax, title, "cube life implied by exact match play")


#: Categorical colours of the cube actions in :func:`cube_action_grid`.
ACTION_COLOURS: dict[str, str] = {
    "no double, take": "#4c72b0",
    "no double, beaver": "#64b5cd",
    "double, take": "#55a868",
    "double, beaver": "#8bc34a",
    "double, pass": "#c44e52",
    "too good, take": "#8172b2",
    "too good, pass": "#937860",
    "cube not available": "#d9d9d9",
}


def cube_action_grid(
    analysis: Any,
    ax: Axes | None = None,
    *,
    cube: int = 1,
    owner: str | None = None,
    exact: bool = False,
    title: str | None = None,
) -> Axes:
    """A position's cube actions as a score grid (:func:`mathbg.analysis.analyze`).

    Rows are the roller's points to go, columns the opponent's; each cell is coloured by
    the action (categorical colours, :data:`ACTION_COLOURS`) and shows the take margin
    (taker's chances minus the take point, percentage points); blank where no such state
    exists. 1-away scores show post-Crawford (the Crawford game has no cube).
    ``exact=True`` draws the exact bearoff solver's actions instead, where present.
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    frame = analysis.to_frame() if hasattr(analysis, "to_frame") else analysis
    compare = getattr(analysis, "compare", None)
    if compare is not None and not callable(compare):  # a DataFrame's is its method
        frame.attrs["compare_met"] = compare.met
    owner = owner or ("centre" if cube == 1 else "player")
    sel = frame[(frame["state"] != "money") & (frame["cube"] == cube) & (frame["owner"] == owner)
                & ~frame["crawford"].astype(bool)]  # fmt: skip
    if sel.empty:
        raise InvalidParameterError(f"no rows with cube {cube} owned by {owner}")
    n = int(max(sel["away"].max(), sel["opp_away"].max()))
    names = list(ACTION_COLOURS)
    codes = np.full((n, n), np.nan)
    margin = np.full((n, n), np.nan)
    column = "exact_action" if exact else "action"
    for r in sel.itertuples():
        act = getattr(r, column)
        if act is None or (isinstance(act, float) and np.isnan(act)):
            if str(r.action) != "cube not available":
                continue
            act = r.action  # no cube here in either panel: the same grey
        i, j = int(r.away) - 1, int(r.opp_away) - 1
        codes[i, j] = names.index(str(act))
        if exact:  # the exact solver's own margin: the taker's MWC gain by taking
            margin[i, j] = 100.0 * (r.exact_double_pass - r.exact_double_take)
        else:
            margin[i, j] = 100.0 * r.take_margin
    if ax is None:
        _, ax = plt.subplots(figsize=(3.5 + 0.6 * n, 1.2 + 0.55 * n))
    cmap = ListedColormap([ACTION_COLOURS[k] for k in names]).with_extremes(bad="white")
    ax.imshow(np.ma.masked_invalid(codes), cmap=cmap, vmin=-0.5, vmax=len(names) - 0.5,
              origin="upper")  # fmt: skip
    for i in range(n):
        for j in range(n):
            if np.isfinite(margin[i, j]):
                ax.text(j, i, f"{margin[i, j]:+.1f}", ha="center", va="center", fontsize=7)
    labels = _away_labels(n)
    ax.set_xticks(range(n), labels)
    ax.set_yticks(range(n), labels)
    ax.set_xlabel("opponent (taker) away")
    ax.set_ylabel("roller away")
    present = sorted({int(c) for c in codes[np.isfinite(codes)]})
    ax.legend(handles=[Patch(color=ACTION_COLOURS[names[k]], label=names[k]) for k in present],
              loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=7, frameon=False)  # fmt: skip
    text = (
        "text: DP - DT, the taker's MWC gain by taking, pp"
        if exact
        else "text: take margin, pp of winning chance"
    )
    meta = _grid_caption(frame)
    default = f"{'exact ' if exact else ''}cube action, {_cube_words(cube, owner)}{meta}\n({text})"
    ax.set_title(title or default, fontsize=9)
    return ax



def rollout_grid(matrix: Any, ax: Axes | None = None, *, title: str | None = None) -> Axes:
    """A rollout matrix as a score grid, marked where it differs from the 0-ply matrix.

    Each cell (the roller's points to go by row, the taker's by column; 1-away:
    post-Crawford) is coloured by the rollout's action and shows DP - DT, the taker's MWC
    gain by taking (pp); a black frame and the 0-ply action's short name mark the scores
    where the 0-ply matrix of :func:`mathbg.analysis.analyze` says something else.

    Parameters
    ----------
    matrix : RolloutMatrix or DataFrame
        :func:`mathbg.analysis.rollout_matrix` (or its frame).
    ax : Axes, optional
        Where to draw.
    title : str, optional
        The title (default: what the grid shows).

    Returns
    -------
    Axes
        The grid.
    """
    from matplotlib.patches import Rectangle

    from mathbg.cube.decisions import CubeAction

    frame = matrix.to_frame() if hasattr(matrix, "to_frame") else matrix
    grid = frame.copy()
    grid["exact_action"] = grid["action"]
    grid["exact_double_pass"] = grid["double_pass"]
    grid["exact_double_take"] = grid["double_take"]
    attrs = getattr(frame, "attrs", {})
    for key in ("position", "met", "engine"):
        if key in attrs:
            grid[key] = attrs[key]
    caption = f"rollout cube action ({attrs.get('trials', '?')} trials a score)"
    note = "(text: DP - DT, pp; framed: the 0-ply action differs, its short name below)"
    title = title or f"{caption}{_grid_caption(grid)}\n{note}"
    ax = cube_action_grid(grid, ax, exact=True, title=title)
    for r in frame.itertuples():
        if bool(r.differs):
            i, j = int(r.away) - 1, int(r.opp_away) - 1
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2, color="black"))
            ax.text(j, i + 0.33, CubeAction(r.zero_ply_action).short, ha="center",
                    va="center", fontsize=5)  # fmt: skip
    return ax


def audit_timeline(
    result: Any, match: int = 0, ax: Axes | None = None, *, title: str | None = None
) -> Axes:
    """A match's MWC along its cube decisions, with the decisions and their errors marked.

    The line is the first-named player's match winning chance (percent) before each cube
    decision, after the right action (:func:`mathbg.analysis.audit` values); doubles are
    triangles, takes circles, passes crosses; an error is red, its marker growing with the
    MWC it cost. Vertical lines separate the games.

    Parameters
    ----------
    result : AuditResult
        :func:`mathbg.analysis.audit`.
    match : int
        Which of the result's matches.
    """
    m = result.matches[match]
    if not m.decisions:
        raise InvalidParameterError("the audit has no cube decisions to draw")
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 4))
    first = m.players[0]
    xs, ys = [], []
    last_game = None
    for i, d in enumerate(m.decisions):
        v = d.values
        roller_is_first = (d.player == first) == (d.kind == "double")
        best = v.no_double if not v.doubles else min(v.double_take, v.double_pass)
        value = best if roller_is_first else 1.0 - best
        if v.money:
            value = best if roller_is_first else -best
        xs.append(i)
        ys.append(value * (1.0 if v.money else 100.0))
        if d.game != last_game:
            if last_game is not None:
                ax.axvline(i - 0.5, color="0.85", lw=0.8, zorder=0)
            ax.text(i, 1.0, f"g{d.game}", transform=ax.get_xaxis_transform(), fontsize=6,
                    va="bottom", color="0.4")  # fmt: skip
            last_game = d.game
    ax.plot(xs, ys, color="0.3", lw=1.0, zorder=1)
    marks = {"double": "^", "take": "o", "pass": "x", "beaver": "o"}
    for i, d in enumerate(m.decisions):
        if d.kind == "double" and d.taken == "no double" and not d.is_error:
            continue
        marker = marks.get(d.taken, "s") if d.taken != "no double" else "v"
        lost = 100.0 * (d.error_mwc if d.error_mwc is not None else d.error_emg / 2.0)
        colour = "tab:red" if d.is_error else "tab:blue"
        size = 25.0 + 60.0 * lost if d.is_error else 25.0
        ax.scatter([xs[i]], [ys[i]], marker=marker, s=size, color=colour, zorder=2)
    money = m.decisions[0].values.money
    ax.set_xlabel("cube decision (in match order)")
    ax.set_ylabel(f"{first}'s equity" if money else f"{first}'s MWC %")
    ax.set_title(title or f"{m.players[0]} v {m.players[1]}: cube decisions "
                 f"(red: errors; MET {m.met}, {m.engine.name})", fontsize=9)  # fmt: skip
    return ax


def corpus_heatmap(
    stats: Any,
    rate: str = "gammon_rate",
    ax: Axes | None = None,
    *,
    crawford: bool = False,
    annotate: bool | None = None,
    cmap: str = "viridis",
    title: str | None = None,
) -> Axes:
    """A corpus rate (percent) by score: leader's away (rows) against trailer's (columns).

    ``crawford=False`` draws the games before the Crawford game and the post-Crawford
    games (the 1-away row); ``crawford=True`` the Crawford games. Scores without games
    are blank.

    Parameters
    ----------
    stats : CorpusStats
        :func:`mathbg.analysis.corpus_stats`.
    rate : str
        ``gammon_rate``, ``backgammon_rate``, ``pass_rate``, ``double_rate`` or
        ``resign_rate``.
    """
    rows = [r for r in stats.by_score
            if r.leader_away is not None and bool(r.crawford) == crawford]  # fmt: skip
    if not rows:
        raise InvalidParameterError("the corpus has no match-play games to draw")
    if rate not in rows[0].rates:
        raise InvalidParameterError(f"unknown rate {rate!r}")
    n = max(r.trailer_away for r in rows)
    data = np.full((n, n), np.nan)
    for r in rows:
        value = r.rates[rate]
        if value is not None:
            data[r.leader_away - 1, r.trailer_away - 1] = 100.0 * value
    labels = _away_labels(n)
    ax = _heatmap(data, ax, cmap=cmap, xticklabels=labels, yticklabels=labels,
                  xlabel="trailer needs (away)", ylabel="leader needs (away)",
                  annotate=annotate, fmt="{:.0f}", font_step=0.25, colorbar=True,
                  colorbar_label=rate.replace("_", " ") + " %")  # fmt: skip
    what = "Crawford games" if crawford else "games by score"
    ax.set_title(title or f"{rate.replace('_', ' ')}: {what} ({stats.games} games)", fontsize=9)
    return ax


def _cube_words(cube: int, owner: str) -> str:
    """``cube 1 -> 2 (initial double)``; ``cube 2 -> 4 (redouble, roller holds it)``."""
    kind = "initial double" if cube == 1 else "redouble"
    held = "" if owner == "centre" else f", {'roller' if owner == 'player' else owner} holds it"
    return f"cube {cube} -> {2 * cube} ({kind}{held})"


def _grid_caption(frame: Any) -> str:
    """The position, MET, engine and compared MET of an analysis frame, for titles."""
    if not len(frame):
        return ""
    first = frame.iloc[0]
    parts = [
        f"{label}{first[key]}"
        for key, label in (("position", ""), ("met", "MET "), ("engine", "engine "))
        if key in frame.columns and first[key] == first[key] and first[key] is not None
    ]
    compare = getattr(frame, "attrs", {}).get("compare_met")
    if compare:
        parts.append(f"compared with {compare}")
    return ("\n" + ", ".join(parts)) if parts else ""
