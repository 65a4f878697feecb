"""The score matrix: cube points at every score and cube level, as a tidy DataFrame.

One call solves every score ``away, opp_away = 1..n`` and every cube level at once with
the vectorised solver of :mod:`mathbg.cube.match` (the live-cube recursion runs once over
the cube levels for the whole grid), so the full 25 x 25 x 7 matrix takes milliseconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from mathbg._resources import check_memory
from mathbg._validate import score
from mathbg.cube._solver import MetView, cash_at_x, gammon_values, pair, solve
from mathbg.cube.inputs import CUBE_LEVELS, check_cube, check_cube_life, check_rates
from mathbg.errors import InvalidParameterError
from mathbg.met.catalogue import as_met

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.met.table import MET

__all__ = ["COLUMNS", "score_matrix", "take_point_table"]

#: Columns of :func:`score_matrix` (``take_x``/``cash_x`` only when ``x`` is given).
COLUMNS: tuple[str, ...] = (
    "away",
    "opp_away",
    "cube",
    "owner",
    "state",
    "take_dead",
    "take_no_recube",
    "take_live",
    "double",
    "cash_dead",
    "cash_live",
    "too_good",
    "auto_redouble",
    "may_double",
    "gammon_value",
    "backgammon_value",
    "opp_gammon_value",
    "opp_backgammon_value",
)


#: Peak memory per row of :func:`score_matrix` (measured 1.3 kB at 64-away), with a margin.
_BYTES_PER_ROW = 1600


def score_matrix(
    met: MET | str,
    n: int | None = None,
    *,
    cubes: tuple[int, ...] = CUBE_LEVELS,
    gammons: Any = (0.0, 0.0),
    backgammons: Any = (0.0, 0.0),
    crawford: bool = False,
    cube_life: float | None = None,
) -> pd.DataFrame:
    """Cube points of the first-named player at every score up to ``n``-away x ``n``-away.

    Parameters
    ----------
    met : mathbg.met.MET or str
        The match equity table (or a shipped table's name).
    n : int, optional
        Largest score (points away) on either side; default the table's length.
    cubes : tuple of int
        Cube values (powers of two), default 1, 2, 4, ..., 64.
    gammons, backgammons : (G0, G1), (B0, B1)
        The first-named (row) player's and the opponent's gammon and backgammon rates,
        disjoint fractions of that side's wins (gammons that are not backgammons;
        backgammons), as gnubg's ``show marketwindow`` takes them.
    crawford : bool
        Scores with a side 1-away are the Crawford game (no cube: NaN points) instead of
        post-Crawford.
    cube_life : float, optional
        Also give ``take_x`` and ``cash_x``, the points at this cube life.

    Returns
    -------
    pandas.DataFrame
        One row per ``(away, opp_away, cube, owner)``: ``owner`` is ``"centre"`` on the
        1-cube; a higher cube has a row ``"player"`` (the player holds it and may redouble:
        ``double``, ``cash_*``, ``too_good`` are the player's points, the take columns NaN)
        and a row ``"opponent"`` (the opponent may redouble: ``take_*`` are the player's
        take points, the doubling columns NaN). All points are the player's winning
        chances; ``take_*`` against the opponent's double from ``cube`` to ``2 cube``. The
        other columns: ``state`` (normal, crawford, post-crawford, dmp),
        ``auto_redouble`` (the player's double would be redoubled at once), ``may_double``
        (the cube rules let the player double here), and both sides' gammon and backgammon
        values at the cube (XG convention). Post-Crawford the doubled cube is dead, so the
        live columns equal the dead ones. ``*_dead`` count the taker's free redouble,
        ``take_no_recube`` does not (:data:`mathbg.cube.match.TERMS`). NaN where a point
        does not apply: the Crawford game, a doubler who needs ``<= cube`` (the player's
        doubling columns when ``away <= cube``, its take columns when ``opp_away <=
        cube``), and post-Crawford above the 1-cube (only the leader, with nothing to
        double for, ever holds that cube). ``take_live`` is fully live (x = 1);
        ``df.attrs["cube_life"]`` is the x of ``take_x``/``cash_x``.

    Raises
    ------
    InvalidScoreError
        For a bad length or cube.
    InvalidParameterError
        For bad rates or a cube life outside [0, 1].

    Examples
    --------
    >>> df = score_matrix("kazaross-xg2", 3, cubes=(1,))
    >>> round(float(df.query("away == 3 and opp_away == 3")["take_dead"].iloc[0]), 4)
    0.3017
    """
    import pandas as pd

    m = as_met(met)
    n = score(m.length if n is None else n, "n", lo=1)
    cube_arr = check_cube(np.asarray(cubes))
    if cube_arr.ndim != 1 or cube_arr.size == 0:
        raise InvalidParameterError(
            f"cubes must be a non-empty sequence of powers of two; got {cubes}"
        )
    # measured peak about 1.3 kB per row (n^2 x (2 cubes - 1) rows), with a margin
    check_memory(
        n * n * 2 * cube_arr.size * _BYTES_PER_ROW,
        f"the score matrix up to {n}-away with {cube_arr.size} cube values",
    )
    g = pair(gammons, "gammons")
    bg = pair(backgammons, "backgammons")
    g0, b0 = (float(v) for v in check_rates(g[0], bg[0], "player"))
    g1, b1 = (float(v) for v in check_rates(g[1], bg[1], "opponent"))
    xv = None if cube_life is None else float(check_cube_life(cube_life))

    away = np.arange(1, n + 1, dtype=np.int64)
    a, b = np.meshgrid(away, away, indexing="ij")
    one_away = (a == 1) | (b == 1)
    dmp = (a == 1) & (b == 1)
    crawford_game = one_away & ~dmp & bool(crawford)
    levels_needed = int(np.log2(cube_arr.max())) + 1
    view = MetView(m, 0)
    rates = (np.full(a.shape, g0), np.full(a.shape, b0), np.full(a.shape, g1), np.full(a.shape, b1))
    sol = solve(view, a, b, np.ones_like(a), rates, one_away, crawford_game, levels_needed)
    if xv is not None:
        cash_x = (cash_at_x(sol, 0, np.asarray(xv)), cash_at_x(sol, 1, np.asarray(xv)))

    state = np.where(
        dmp,
        "dmp",
        np.where(crawford_game, "crawford", np.where(one_away, "post-crawford", "normal")),
    )
    frames = []
    nan = np.nan
    for c in cube_arr.tolist():
        k = int(np.log2(c))
        ck = np.full(a.shape, c, dtype=np.int64)
        gv0, bv0 = gammon_values(view, a, b, ck, one_away)
        gv1, bv1 = gammon_values(view.swapped(), b, a, ck, one_away)
        no_cube = crawford_game | dmp
        base = {
            "away": a.ravel(),
            "opp_away": b.ravel(),
            "cube": ck.ravel(),
            "state": state.ravel(),
            "gammon_value": gv0.ravel(),
            "backgammon_value": bv0.ravel(),
            "opp_gammon_value": gv1.ravel(),
            "opp_backgammon_value": bv1.ravel(),
        }
        # not applicable (NaN): no cube in the Crawford game; a doubler who needs <= cube
        # has nothing to double for (no doubling points, and no take point against it)
        # post-Crawford a cube above 1 is the leader's (it took the trailer's double) and
        # the leader has nothing to double for: no redouble arises there
        hypothetical = one_away & (c > 1)
        no_take = crawford_game | (b <= c) | hypothetical
        no_double = crawford_game | (a <= c) | hypothetical
        take_dead = np.where(no_take, nan, 1.0 - sol.cash_dead[1][k])
        take_no_recube = np.where(no_take, nan, 1.0 - sol.cash_dead_no_redouble[1][k])
        take_live = np.where(no_take, nan, 1.0 - sol.cash_live[1][k])
        double = np.where(no_double, nan, sol.double_point[0][k])
        cash_dead = np.where(no_double, nan, sol.cash_dead[0][k])
        cash_live = np.where(no_double, nan, sol.cash_live[0][k])
        too_good = np.where(no_double, nan, sol.too_good[0][k])
        leader_pc = one_away & (a == 1)
        may = ~no_cube & ~leader_pc & (a > c) & ~hypothetical
        cols = {
            "take_dead": take_dead,
            "take_no_recube": take_no_recube,
            "take_live": take_live,
            "double": double,
            "cash_dead": cash_dead,
            "cash_live": cash_live,
            "too_good": too_good,
        }
        if xv is not None:
            cols["take_x"] = np.where(no_take, nan, 1.0 - cash_x[1][k])
            cols["cash_x"] = np.where(no_double, nan, cash_x[0][k])
        owners = ("centre",) if c == 1 else ("player", "opponent")
        for owner in owners:
            data = dict(base)
            data["owner"] = np.full(a.size, owner)
            for name, arr in cols.items():
                hide = (owner == "player" and name.startswith("take")) or (
                    owner == "opponent" and not name.startswith("take")
                )
                data[name] = np.full(a.size, nan) if hide else arr.ravel()
            data["auto_redouble"] = (sol.auto[0][k] & (owner != "opponent")).ravel()
            data["may_double"] = (may & (owner != "opponent")).ravel()
            frames.append(data)
    columns = list(COLUMNS) + (["take_x", "cash_x"] if xv is not None else [])
    merged = {col: np.concatenate([f[col] for f in frames]) for col in columns}
    df = pd.DataFrame(merged, columns=columns)
    df["owner"] = pd.Categorical(df["owner"], categories=["centre", "player", "opponent"])
    df["state"] = pd.Categorical(
        df["state"], categories=["normal", "crawford", "post-crawford", "dmp"]
    )
    df.attrs.update(
        name="cube points of the row player at every score (NaN: does not apply)",
        met=getattr(m, "name", ""),
        gammons=(g0, g1),
        backgammons=(b0, b1),
        crawford=bool(crawford),
        cube_life=xv,
    )
    return df


def take_point_table(df: pd.DataFrame, cube: int = 1, column: str = "take_dead") -> pd.DataFrame:
    """Pivot a :func:`score_matrix` column for one cube: rows ``away``, columns ``opp_away``.

    For ``take_*`` columns the row is the taker's score (the opponent doubles from ``cube``);
    for doubling columns the row is the doubler's.

    Parameters
    ----------
    df : pandas.DataFrame
        A :func:`score_matrix`.
    cube : int, optional
        The cube before the double.
    column : str, optional
        The column to pivot.

    Returns
    -------
    pandas.DataFrame
        Rows ``away``, columns ``opp_away``.

    Raises
    ------
    InvalidParameterError
        For a column the matrix does not have, or a cube it has no rows for.

    Examples
    --------
    >>> t = take_point_table(score_matrix("kazaross-xg2", 3, cubes=(1,)))
    >>> round(float(t.loc[3, 3]), 4)
    0.3017
    """
    if column not in df.columns:
        raise InvalidParameterError(f"no column {column!r}; have {list(df.columns)}")
    sel = df[df["cube"] == cube]
    if cube > 1:
        sel = sel[sel["owner"] == ("opponent" if column.startswith("take") else "player")]
    if sel.empty:
        raise InvalidParameterError(f"the matrix has no rows for cube {cube}")
    return sel.pivot(index="away", columns="opp_away", values=column)
