"""Cube theory and MET models tested against exact match play in bearoffs.

Flat functions returning pandas DataFrames, on top of :mod:`mathbg.bearoff.exact.match`:

- :func:`take_boundary` / :func:`take_boundary_summary`: the exact take/pass decision of
  every pair at a score against three rules from the MET: the no-recube take point (no
  recube at all), gnubg's convention (mathbg's *dead* take point: the taker redoubles at
  once when the doubler needs ``<= 2c`` and the taker more,
  ``mathbg.cube.match.take_point_dead``) and the fully-live take point (gnubg
  ``GetPoints``); the words as :data:`mathbg.cube.match.TERMS` defines them; where and
  by how much each rule errs, with the recube vig that explains it;
- :func:`implied_cube_life` / :func:`cube_life_table`: the cube life ``x`` at which
  gnubg's blend ``(1 - x) dead + x live`` (:func:`mathbg.cube.cubeful.cubeful_mwc`) would
  give the exact no-double MWC of a position, by score and pip count;
- :func:`fit_met_model`: the parameters of Zadeh's or Tornberg's (mec) MET model that fit
  a table best (e.g. the exact race-game MET of :func:`mathbg.bearoff.exact.match.race_met`),
  with the remaining error.

All probabilities and MWCs are fractions in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from mathbg._validate import away_score
from mathbg.bearoff.exact.match import (
    after_game,
    game_kind,
    met_mwc,
    next_kind,
    solve_score,
)
from mathbg.bearoff.index import all_positions, pips
from mathbg.errors import InvalidParameterError
from mathbg.met.catalogue import as_met
from mathbg.rules.match import ScoreState

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.met.table import MET

__all__ = [
    "MetFit",
    "cube_life_table",
    "fit_met_model",
    "implied_cube_life",
    "take_boundary",
    "take_boundary_summary",
]

#: The take rules compared with the exact decision.
#: The take rules compared with the exact decision. ``no_recube`` and ``gnubg`` are the
#: "no recube" and "dead" take points of :data:`mathbg.cube.match.TERMS` (the word "dead"
#: is not used for a rule here: ``gnubg`` is mathbg's dead take point, with the taker's free
#: redouble); ``live`` is the fully live one.
RULES: tuple[str, ...] = ("no_recube", "gnubg", "live")


def _labels(points: int, checkers: int) -> tuple[np.ndarray, np.ndarray]:
    boards = all_positions(points, checkers)
    text = np.array([",".join(map(str, b)) for b in boards.tolist()], dtype=object)
    return text, pips(boards)


def _pairs(n: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.meshgrid(np.arange(1, n), np.arange(1, n), indexing="ij")
    return i.ravel(), j.ravel()


def _taker_outcomes(met: MET, a: int, b: int, kind: str, c: int) -> dict[str, float]:
    """The taker's MWCs after pass, and after winning / losing 2c and 4c (roller = doubler
    needing ``a``, taker needing ``b``), with the Crawford transitions."""
    mwc = met_mwc(met)

    def roller_wins(k: int) -> float:
        return after_game(mwc, a - k, b, next_kind(kind, a - k, b))

    def roller_loses(k: int) -> float:
        return after_game(mwc, a, b - k, next_kind(kind, a, b - k))

    return {
        "pass": 1.0 - roller_wins(c),
        "win2": 1.0 - roller_loses(2 * c),
        "lose2": 1.0 - roller_wins(2 * c),
        "win4": 1.0 - roller_loses(4 * c),
        "lose4": 1.0 - roller_wins(4 * c),
    }


def take_boundary(
    away: tuple[int, int],
    cube: int = 1,
    owner: str | None = None,
    *,
    met: MET | str = "kazaross-xg2",
    crawford: bool = False,
    points: int = 6,
    checkers: int = 6,
    doubles_only: bool = True,
) -> pd.DataFrame:
    """The exact take/pass decision of every pair at a score, against the MET rules.

    The roller (needing ``away[0]``) doubles from ``cube`` (held by ``owner``: default
    centred on 1, the roller's for a redouble); the opponent takes (owning ``2 cube``) or
    passes. The exact decision compares the taker's MWC after a take, ``1 - DT``, with the
    pass, ``1 - DP``. The rules take when the taker's cubeless chance ``p_t`` is at least:

    - ``no_recube``: ``(P - L2) / (W2 - L2)`` with the taker's MWCs after pass (P) and
      after winning / losing ``2 cube`` (no recube at all: "no recube" in
      :data:`mathbg.cube.match.TERMS`);
    - ``gnubg``: the same, but at ``4 cube`` when the doubler needs ``<= 2 cube`` and the
      taker more (the taker redoubles at once, gnubg ``GetPoints``): mathbg's *dead* take
      point (:func:`mathbg.cube.match.take_point_dead`);
    - ``live``: the fully-live take point (the taker's recube at its live cash point).

    Parameters
    ----------
    away : (int, int)
        Points the doubler (on roll) and the taker need.
    cube : int
        Cube value before the double.
    owner : {"centre", "player"}, optional
        Who holds the cube (default: centre on a 1-cube, else the roller).
    met, crawford, points, checkers :
        As :func:`mathbg.bearoff.exact.match.solve_score`.
    doubles_only : bool
        Keep only the pairs where doubling is right (``min(DT, DP) >= ND``): the real
        decisions (default). False keeps every pair.

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``roller``, ``opponent`` (checker counts as text), their
        ``roller_pips``, ``opponent_pips``, the roller's cubeless ``p_roller``, the taker's
        ``p_taker``, the doubler's MWCs ``no_double``, ``double_take``, ``double_pass``,
        ``doubles``, ``exact_take``, ``take_margin`` (taker's MWC take minus pass),
        ``recube_vig`` (taker's exact MWC after the take minus its no-recube value:
        what owning the 2-cube is worth), ``convention_gap`` (gnubg's assumed MWC after
        the take minus the exact one), and per rule ``take_<rule>`` (bool) and
        ``error_<rule>`` (MWC the taker loses by following the rule, 0 when right).
        ``df.attrs`` holds the score, cube and the three take points ``tp_<rule>``.
    """
    import pandas as pd

    from mathbg.cube.match import take_point_dead, take_point_live

    a, b = away_score(away)
    own = owner if owner is not None else ("centre" if cube == 1 else "player")
    sol = solve_score((a, b), crawford=crawford, met=met, points=points, checkers=checkers)
    arrays = sol.decision_arrays(cube, own)
    if not arrays["access"]:
        raise InvalidParameterError(
            f"the roller cannot double a {cube}-cube held by {own} at {a}-away/{b}-away"
            + (" (Crawford game)" if sol.kind == ScoreState.CRAWFORD else "")
        )
    table = as_met(met)
    kind = game_kind(a, b, crawford)
    out = _taker_outcomes(table, a, b, kind, int(cube))
    auto = a <= 2 * cube < b
    tp = {
        "no_recube": (out["pass"] - out["lose2"]) / (out["win2"] - out["lose2"]),
        "gnubg": float(take_point_dead(table, (b, a), cube)),
        "live": float(take_point_live(table, (b, a), cube)),
    }
    n = sol.no_double.shape[0]
    i, j = _pairs(n)
    p = sol.p_win()[i, j]
    nd = arrays["no_double"][i, j]
    dt = arrays["double_take"][i, j]
    dp = arrays["double_pass"][i, j]
    pt = 1.0 - p
    exact_take = dt < dp
    doubles = np.minimum(dt, dp) >= nd
    dead_take_mwc = pt * out["win2"] + (1.0 - pt) * out["lose2"]
    if auto:
        conv = pt * out["win4"] + (1.0 - pt) * out["lose4"]
    else:
        conv = dead_take_mwc
    labels, pip = _labels(sol.points, sol.checkers)
    data: dict[str, Any] = {
        "roller": labels[i],
        "opponent": labels[j],
        "roller_pips": pip[i],
        "opponent_pips": pip[j],
        "p_roller": p,
        "p_taker": pt,
        "no_double": nd,
        "double_take": dt,
        "double_pass": dp,
        "doubles": doubles,
        "exact_take": exact_take,
        "take_margin": dp - dt,
        "recube_vig": (1.0 - dt) - dead_take_mwc,
        "convention_gap": conv - (1.0 - dt),
    }
    for rule in RULES:
        says = pt >= tp[rule]
        data[f"take_{rule}"] = says
        data[f"error_{rule}"] = np.where(says != exact_take, np.abs(dp - dt), 0.0)
    df = pd.DataFrame(data)
    if doubles_only:
        df = df[df["doubles"]].reset_index(drop=True)
    df.attrs.update(
        {
            "away": (a, b),
            "cube": int(cube),
            "owner": own,
            "met": sol.met_name,
            "auto_redouble": bool(auto),
            **{f"tp_{r}": v for r, v in tp.items()},
        }
    )
    return df


def take_boundary_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Where and by how much each rule errs, from a :func:`take_boundary` frame.

    Returns one row per rule (index ``rule``): its take point ``take_point``, the number
    of ``decisions``, ``wrong_takes`` (the rule takes an exact pass), ``wrong_passes``,
    ``max_error`` and ``mean_error`` (MWC lost on the wrong ones), the mean
    ``recube_vig`` and ``convention_gap`` over the wrong ones, and the exact boundary:
    ``lowest_exact_take`` and ``highest_exact_pass`` (taker's cubeless chance).
    """
    import pandas as pd

    take = df["exact_take"].to_numpy()
    pt = df["p_taker"].to_numpy()
    rows = []
    for rule in RULES:
        says = df[f"take_{rule}"].to_numpy()
        err = df[f"error_{rule}"].to_numpy()
        wrong = says != take
        rows.append(
            {
                "rule": rule,
                "take_point": df.attrs.get(f"tp_{rule}", np.nan),
                "decisions": len(df),
                "wrong_takes": int(np.sum(says & ~take)),
                "wrong_passes": int(np.sum(~says & take)),
                "max_error": float(err.max()) if len(err) else 0.0,
                "mean_error": float(err[wrong].mean()) if wrong.any() else 0.0,
                "recube_vig_wrong": float(df["recube_vig"].to_numpy()[wrong].mean())
                if wrong.any()
                else np.nan,
                "convention_gap_wrong": float(df["convention_gap"].to_numpy()[wrong].mean())
                if wrong.any()
                else np.nan,
                "lowest_exact_take": float(pt[take].min()) if take.any() else np.nan,
                "highest_exact_pass": float(pt[~take].max()) if (~take).any() else np.nan,
            }
        )
    return pd.DataFrame(rows).set_index("rule")


def implied_cube_life(
    away: tuple[int, int],
    cube: int = 1,
    owner: str = "centre",
    *,
    met: MET | str = "kazaross-xg2",
    crawford: bool = False,
    points: int = 6,
    checkers: int = 6,
    tolerance: float = 1e-3,
) -> pd.DataFrame:
    """The cube life x at which gnubg's blend reproduces the exact no-double MWC.

    gnubg's cubeful MWC (``Cl2CfMatch``, :func:`mathbg.cube.cubeful.cubeful_mwc`) is
    ``(1 - x) dead + x live`` with ``dead = p W + (1 - p) L`` (cubeless, at the current
    cube) and ``live`` piecewise linear in p through the live cash points; so the exact
    no-double MWC ``E`` of a pair implies ``x = (E - dead) / (live - dead)``.

    Parameters
    ----------
    away, cube, owner, met, crawford, points, checkers :
        The score and cube state (owner ``"centre"``, ``"player"`` (the roller) or ``"opponent"``)
        and the solved space, as :func:`mathbg.bearoff.exact.match.match_equity`.
    tolerance : float
        ``x`` is NaN where ``|live - dead| < tolerance`` (the cube hardly matters, or
        gnubg treats the score as cubeless: Crawford, DMP, 2-away/2-away).

    Returns
    -------
    pandas.DataFrame
        One row per pair: ``roller``, ``opponent``, ``roller_pips``, ``opponent_pips``,
        ``pips`` (both), ``p`` (roller's cubeless chance), ``exact``, ``dead``, ``live``,
        ``x``. ``df.attrs`` holds the score and cube state.
    """
    import pandas as pd

    from mathbg.bearoff.exact.match import owner_index
    from mathbg.cube.cubeful import cubeful_mwc

    a, b = away_score(away)
    sol = solve_score((a, b), crawford=crawford, met=met, points=points, checkers=checkers)
    k = sol.state_index(cube, owner)
    table = as_met(met)
    n = sol.no_double.shape[0]
    i, j = _pairs(n)
    p = sol.p_win()[i, j]
    exact = sol.no_double[i, j, k]
    gnubg_owner = {0: "centre", 1: "player", 2: "opponent"}[owner_index(owner)]
    probs = np.zeros((len(p), 5))
    probs[:, 0] = p
    dead = np.asarray(
        cubeful_mwc(
            probs, table, (a, b), cube=cube, owner=gnubg_owner, cube_life=0.0, crawford=crawford
        )
    )
    live = np.asarray(
        cubeful_mwc(
            probs, table, (a, b), cube=cube, owner=gnubg_owner, cube_life=1.0, crawford=crawford
        )
    )
    span = live - dead
    ok = np.abs(span) >= tolerance
    x = np.full(len(p), np.nan)
    x[ok] = (exact[ok] - dead[ok]) / span[ok]
    labels, pip = _labels(sol.points, sol.checkers)
    df = pd.DataFrame(
        {
            "roller": labels[i],
            "opponent": labels[j],
            "roller_pips": pip[i],
            "opponent_pips": pip[j],
            "pips": pip[i] + pip[j],
            "p": p,
            "exact": exact,
            "dead": dead,
            "live": live,
            "x": x,
        }
    )
    df.attrs.update({"away": (a, b), "cube": int(cube), "owner": owner, "met": sol.met_name})
    return df


def cube_life_table(
    scores: Sequence[tuple[int, int]],
    cube: int = 1,
    owner: str = "centre",
    *,
    by: str = "pips",
    bins: Sequence[float] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Implied cube life by score and pip count: quantiles of :func:`implied_cube_life`.

    Parameters
    ----------
    scores : sequence of (int, int)
        Scores (roller's away, opponent's away).
    cube, owner : as :func:`implied_cube_life`.
    by : {"pips", "roller_pips", "opponent_pips"}
        The pip count to group by.
    bins : sequence of float, optional
        Bin edges (default width 6 from 0).
    **options
        Passed to :func:`implied_cube_life` (``met``, ``points``, ``checkers``, ...).

    Returns
    -------
    pandas.DataFrame
        Columns ``away``, ``opp_away``, ``pips`` (bin's lower edge), ``n``, ``x_mean``,
        ``x_median``, ``x_q25``, ``x_q75``.
    """
    import pandas as pd

    if by not in ("pips", "roller_pips", "opponent_pips"):
        raise InvalidParameterError(f"by must be pips, roller_pips or opponent_pips, got {by!r}")
    frames = []
    for away in scores:
        df = implied_cube_life(away, cube, owner, **options).dropna(subset=["x"])
        edges = np.asarray(bins if bins is not None else np.arange(0, df[by].max() + 7, 6))
        group = pd.cut(df[by], edges, right=False, labels=edges[:-1])
        stats = df.groupby(group, observed=True)["x"].describe()
        stats = stats.rename(
            columns={
                "count": "n",
                "mean": "x_mean",
                "50%": "x_median",
                "25%": "x_q25",
                "75%": "x_q75",
            }
        )
        stats = stats[["n", "x_mean", "x_median", "x_q25", "x_q75"]].reset_index(names="pips")
        stats.insert(0, "opp_away", away[1])
        stats.insert(0, "away", away[0])
        frames.append(stats)
    out = pd.concat(frames, ignore_index=True)
    out["pips"] = out["pips"].astype(float)
    out["n"] = out["n"].astype(int)
    return out


# ------------------------------------------------------------------------------ MET fits

_FIT_DEFAULTS = {
    "zadeh": (
        "doubler_gammon_rate",
        "taker_gammon_rate",
        "delta",
        "delta_bar",
        "post_crawford_gammon_rate",
        "free_drop_2",
        "free_drop_4",
    ),
    "mec": ("gammon_rate", "free_drop_2", "free_drop_4", "post_crawford_gammon_rate"),
}
_BOUNDS = {
    "delta": (-0.5, 0.5),
    "delta_bar": (-0.5, 0.5),
    "free_drop_2": (-0.5, 0.5),
    "free_drop_4": (-0.5, 0.5),
}


@dataclass(frozen=True)
class MetFit:
    """A MET model fitted to a target table (see :func:`fit_met_model`).

    Attributes
    ----------
    model : str
        ``"zadeh"`` or ``"mec"``.
    parameters : dict
        The fitted parameters (others at the model's defaults).
    met : mathbg.met.MET
        The fitted table.
    rms, max_abs : float
        Root-mean-square and largest ``|model - target|`` over the fitted entries (MWC).
    residuals : pandas.DataFrame
        ``model - target`` of the pre-Crawford table (index away, columns opp_away).
    post_residuals : numpy.ndarray
        ``model - target`` of the post-Crawford vector.
    """

    model: str
    parameters: dict[str, float]
    met: MET
    rms: float
    max_abs: float
    residuals: Any
    post_residuals: np.ndarray

    def to_frame(self) -> pd.DataFrame:
        """One row: ``model``, the fitted parameters, ``rms`` and ``max_abs`` (MWC
        fractions); the residual tables stay in :attr:`residuals`/:attr:`post_residuals`."""
        from mathbg._output import frame

        row = {"model": self.model, **self.parameters, "rms": self.rms, "max_abs": self.max_abs}
        return frame([row], name=f"{self.model} fit", met=getattr(self.met, "name", ""))


def fit_met_model(
    target: Any,
    model: str = "zadeh",
    parameters: Sequence[str] | None = None,
    *,
    length: int | None = None,
) -> MetFit:
    """Fit a MET model's parameters to a table by least squares.

    Minimises ``sum (model - target)^2`` over the pre-Crawford entries (both sides 1..N)
    and the post-Crawford vector (trailer 2..N) with scipy's bounded least squares.

    Parameters
    ----------
    target : mathbg.met.MET
        The table to fit (e.g. :func:`mathbg.bearoff.exact.match.race_met`).
    model : {"zadeh", "mec"}
        :func:`mathbg.met.zadeh` (gammon rates, delta, delta-bar, post-Crawford gammon
        rate and free drops) or :func:`mathbg.met.mec` (gammon rate, free drops, the
        post-Crawford gammon rate; equal players).
    parameters : sequence of str, optional
        Which parameters to fit (default all of those listed); the others keep the
        model's defaults. Rates are bounded to [0, 1], deltas and free drops to
        [-0.5, 0.5].
    length : int, optional
        Fit scores up to this (default the target's length).

    Returns
    -------
    MetFit
    """
    import inspect

    import pandas as pd
    from scipy.optimize import least_squares

    from mathbg import met as metmod

    if model not in _FIT_DEFAULTS:
        raise InvalidParameterError(f"model must be one of {', '.join(_FIT_DEFAULTS)}")
    names = tuple(parameters) if parameters is not None else _FIT_DEFAULTS[model]
    builder = getattr(metmod, model)
    signature = inspect.signature(builder).parameters
    unknown = [p for p in names if p not in signature]
    if unknown:
        raise InvalidParameterError(f"{model} has no parameter {', '.join(unknown)}")
    n = int(length) if length is not None else target.length
    if not 2 <= n <= target.length:
        raise InvalidParameterError(f"length must lie in 2..{target.length}, got {length}")
    defaults = {}
    for p in names:
        d = signature[p].default
        defaults[p] = float(d) if d is not None else 0.25
    lo = np.array([_BOUNDS.get(p, (0.0, 1.0))[0] for p in names])
    hi = np.array([_BOUNDS.get(p, (0.0, 1.0))[1] for p in names])
    x0 = np.clip(np.array([defaults[p] for p in names]), lo + 1e-9, hi - 1e-9)
    pre_t = np.asarray(target.pre[:n, :n])
    post_t = np.asarray(target.post[0, 1:n])

    def build(x: np.ndarray) -> Any:
        return builder(n, **dict(zip(names, (float(v) for v in x), strict=True)))

    def residual(x: np.ndarray) -> np.ndarray:
        try:
            m = build(x)
        except ValueError:
            return np.full(n * n + n - 1, 1.0)
        return np.concatenate([(m.pre - pre_t).ravel(), m.post[0, 1:n] - post_t])

    res = least_squares(residual, x0, bounds=(lo, hi), diff_step=1e-4)
    fitted = build(res.x)
    r = residual(res.x)
    labels = pd.Index(range(1, n + 1), name="away")
    frame = pd.DataFrame(fitted.pre - pre_t, index=labels, columns=labels.rename("opp_away"))
    return MetFit(
        model=model,
        parameters={p: float(v) for p, v in zip(names, res.x, strict=True)},
        met=fitted.with_metadata(name=f"{model} fit to {target.name}"),
        rms=float(np.sqrt(np.mean(r**2))),
        max_abs=float(np.max(np.abs(r))),
        residuals=frame,
        post_residuals=fitted.post[0, 1:n] - post_t,
    )
