"""A position's cube action at every score: the score matrix of one (or many) positions.

For a match of length ``N`` every score (roller ``a``-away, opponent ``b``-away, ``a, b =
1..N``; where a side is 1-away both the Crawford game and post-Crawford), the 1-cube
centred and, up to ``max_cube``, each higher cube owned by the roller while it still
matters (the roller needs more than the cube, ``a > c``, and the opponent had a reason to
double to it, ``b > c / 2``), plus money play (Jacoby and beavers as chosen) as its own row.

Per row, from the position's cubeless probabilities (an :class:`~.evaluation.Evaluation`)
and a cube life ``x``:

- ``no_double``, ``double_take``, ``double_pass``: the roller's cubeful match winning
  chances (MWC; money: equities per unit cube) from mathbg's cubeless -> cubeful
  transformation, :func:`mathbg.cube.cubeful.cubeful_mwc` (gnubg 1.07's 0-ply
  ``Cl2CfMatch``: ``(1 - x) dead + x live``), the double/take value with the doubled cube
  owned by the opponent and the double/pass value the MWC of winning the cube;
  ``optimal = min(DT, DP)`` when doubling is right, else ND; ``emg_*`` the same as
  normalised (EMG) equities (gnubg's ``mwc2eq``, :func:`mathbg.cube.cubeful.emg`);
- ``action``: :func:`mathbg.cube.decisions.classify` (gnubg ``FindBestCubeDecision``),
  worded as ``mathbg cube decide`` words it;
- ``take_point``: the taker's take point in the same model: the taker's cubeless winning
  chance at which double/take and double/pass are worth the same, holding the position's
  gammon and backgammon rates (fractions of each side's wins) and the cube life fixed
  (found on the piecewise-linear double/take value by bracketing and regula falsi); and
  ``take_margin``, the taker's cubeless winning chance minus it. So the margin is
  positive exactly when the row's action is a take (or no double). Where the model has no
  break-even the take point is 0 (always a take) or 1 (never);
- ``cube_life`` (``x``): the cube life, gnubg 1.07's 0-ply choice by position class
  (:func:`~.evaluation.cube_life`) unless given. Inside the two-sided bearoff database
  (and no cube life given) the rows follow gnubg 1.07 exactly as
  :func:`mathbg.race.race_cube_decision` does (money: the database's exact equities;
  match play: the cube life backed out of them, one per cube state; ``cube_life`` then shows the
  no-double one). There the take point holds the double/take cube life (money: 0.6) fixed
  while the chances vary, so its margin is a guide rather than the action's exact rule;
- ``exact_*``: where the exact bearoff match solver covers the position (both sides in a
  6 x 6 two-sided space), its exact values and action (:func:`mathbg.bearoff.match_equity`;
  money: the two-sided database), and ``exact_differs`` when its action is not the
  approximation's.

References
----------
GNU Backgammon 1.07.001 eval.c (``Cl2CfMatch``, ``FindBestCubeDecision``,
``EvalEfficiency``); matchequity.c (``GetPoints``, ``mwc2eq``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.evaluation import (
    Evaluation,
    Evaluator,
    ExactEvaluator,
    as_position,
    get_evaluator,
)
from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.rules.cube import CubeOwner

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "COLUMNS",
    "DEFAULT_MET",
    "PositionAnalysis",
    "analyze",
    "analyze_many",
    "matrix_states",
    "position_matrix",
]

#: Default match equity table (gnubg 1.07's and XG2's default).
DEFAULT_MET = "kazaross-xg2"

#: Columns of :meth:`PositionAnalysis.to_frame`, in order.
COLUMNS: tuple[str, ...] = (
    "position", "engine", "plies", "met", "length", "away", "opp_away", "crawford", "state",
    "cube", "owner", "current", "unit", "cube_life", "action", "no_double", "double_take",
    "double_pass", "optimal", "emg_no_double", "emg_double_take", "emg_double_pass",
    "take_point", "take_margin", "exact_action", "exact_no_double", "exact_double_take",
    "exact_double_pass", "exact_optimal", "exact_differs",
)  # fmt: skip

_VALUE_KEYS = ("no_double", "double_take", "double_pass", "optimal")


@dataclass(frozen=True)
class MatrixState:
    """One row of the matrix: a score and cube state (``away`` None for money)."""

    away: tuple[int, int] | None
    crawford: bool
    cube: int
    owner: CubeOwner

    @property
    def state(self) -> str:
        if self.away is None:
            return "money"
        a, b = self.away
        if a == 1 and b == 1:
            return "dmp"
        if a == 1 or b == 1:
            return "crawford" if self.crawford else "post-crawford"
        return "normal"


def _levels(max_cube: int) -> list[int]:
    c = int(max_cube)
    if c < 1 or c & (c - 1):
        raise InvalidParameterError(f"max cube must be a power of two >= 1, got {max_cube}")
    return [1 << k for k in range(c.bit_length())]


def matrix_states(length: int, max_cube: int = 1) -> list[MatrixState]:
    """The score and cube states of a ``length``-point matrix (see the module notes)."""
    n = int(length)
    if n < 1:
        raise InvalidScoreError(f"match length must be at least 1, got {length}")
    cubes = _levels(max_cube)
    out = []
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            kinds: tuple[bool, ...] = (True, False) if (a == 1) != (b == 1) else (False,)
            for crawford in kinds:
                out.append(MatrixState((a, b), crawford, 1, CubeOwner.CENTRE))
                if crawford or a == 1 or b == 1:
                    continue
                out.extend(MatrixState((a, b), False, c, CubeOwner.PLAYER)
                           for c in cubes[1:] if a > c and 2 * b > c)  # fmt: skip
    return out


# ----------------------------------------------------------------------------- the values


def _rates(p: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
    """Disjoint gammon / backgammon rates (fractions of each side's wins) from gnubg's
    cumulative outputs: ``g = (WG - WB) / W``, ``b = WB / W`` (0 for a side that never
    wins), as :mod:`mathbg.cube` takes them."""
    w, wg, wb, lg, lb = (p[:, k] for k in range(5))
    lose = 1.0 - w
    with np.errstate(divide="ignore", invalid="ignore"):
        g0 = np.where(w > 0, (wg - wb) / np.where(w > 0, w, 1.0), 0.0)
        b0 = np.where(w > 0, wb / np.where(w > 0, w, 1.0), 0.0)
        g1 = np.where(lose > 0, (lg - lb) / np.where(lose > 0, lose, 1.0), 0.0)
        b1 = np.where(lose > 0, lb / np.where(lose > 0, lose, 1.0), 0.0)
    return (np.clip(g0, 0, 1), np.clip(b0, 0, 1), np.clip(g1, 0, 1), np.clip(b1, 0, 1))


def _match_block(
    probs: NDArray[np.float64], xs: NDArray[np.float64], met: Any, states: list[MatrixState]
) -> dict[str, Any]:
    """The approximation at every match state (rows) for every position (columns), in a
    few vectorised calls of :func:`mathbg.cube.cubeful.cubeful_mwc` (one per cube owner
    for no double, one for double/take and the take-point grid, a few for the take-point
    refinement)."""
    from mathbg.cube.cubeful import cubeful_mwc, cubeless_mwc, emg
    from mathbg.cube.decisions import CubeAction, classify
    from mathbg.cube.match import may_double

    n, m = probs.shape[0], len(states)
    a = np.array([st.away[0] for st in states if st.away is not None], dtype=np.int64)
    b = np.array([st.away[1] for st in states if st.away is not None], dtype=np.int64)
    c = np.array([st.cube for st in states], dtype=np.int64)
    cr = np.array([st.crawford for st in states], dtype=bool)
    owners = np.array([str(st.owner) for st in states])
    nd = np.empty((m, n))
    for owner in set(owners.tolist()):
        k = np.nonzero(owners == owner)[0]
        nd[k] = cubeful_mwc(probs[None], met, a[k, None], b[k, None], cube=c[k, None],
                            owner=owner, x=xs[None], crawford=cr[k, None])  # fmt: skip
    nd_emg = np.asarray(emg(nd, met, a[:, None], b[:, None], c[:, None], crawford=cr[:, None],
                            undefined="nan"))  # '-' where undefined; the rows go on
    nan = np.full((m, n), np.nan)
    out: dict[str, Any] = {
        "action": [[CubeAction.NOT_AVAILABLE] * n for _ in range(m)], "no_double": nd,
        "double_take": nan.copy(), "double_pass": nan.copy(), "optimal": nd.copy(),
        "emg_no_double": nd_emg, "emg_double_take": nan.copy(), "emg_double_pass": nan.copy(),
        "take_point": nan.copy(), "take_margin": nan.copy(),
    }  # fmt: skip
    d = np.array([may_double(int(a[j]), int(b[j]), int(c[j]), str(owners[j]),
                             crawford=bool(cr[j])) for j in range(m)], dtype=bool)  # fmt: skip
    if not d.any():
        return out
    j = np.nonzero(d)[0]
    aj, bj, cj, crj = a[j], b[j], c[j], cr[j]
    dp = np.asarray(cubeless_mwc([1.0, 0.0, 0.0, 0.0, 0.0], met, aj, bj, cj, crawford=crj))
    # the positions' own double/take values and the take-point grid in one call
    grid = np.concatenate([probs[:, None, :], _with_win(probs, _grid(n))], axis=1)
    both = np.asarray(cubeful_mwc(grid[None], met, aj[:, None, None], bj[:, None, None],
                                  cube=2 * cj[:, None, None], owner=CubeOwner.OPPONENT,
                                  x=xs[None, :, None], crawford=crj[:, None, None]))  # fmt: skip
    dt = both[:, :, 0]
    flat_s = np.repeat(np.arange(j.size), n)
    flat_p = np.tile(np.arange(n), j.size)

    def dt_at(pw: NDArray[np.float64], k: NDArray[np.int64]) -> NDArray[np.float64]:
        s_, p_ = flat_s[k], flat_p[k]
        return np.asarray(cubeful_mwc(_with_win(probs[p_], pw), met, aj[s_, None],
                                      bj[s_, None], cube=2 * cj[s_, None],
                                      owner=CubeOwner.OPPONENT, x=xs[p_, None],
                                      crawford=crj[s_, None]), dtype=np.float64)  # fmt: skip

    dp_flat = dp[flat_s]
    tp = 1.0 - _break_even(dt_at, dp_flat, j.size * n, both[:, :, 1:].reshape(j.size * n, -1))
    tp = tp.reshape(j.size, n)
    for r, jj in enumerate(j):
        acts = [classify(float(nd[jj, i]), float(dt[r, i]), float(dp[r]),
                         can_gammon=bool(probs[i, 1] > 0.0), money=False)
                for i in range(n)]  # fmt: skip
        out["action"][jj] = acts
        doubles = np.array([act.doubles for act in acts])
        out["optimal"][jj] = np.where(doubles, np.minimum(dt[r], dp[r]), nd[jj])
    out["double_take"][j] = dt
    out["double_pass"][j] = dp[:, None]
    out["emg_double_take"][j] = emg(dt, met, aj[:, None], bj[:, None], cj[:, None],
                                    crawford=crj[:, None], undefined="nan")  # fmt: skip
    out["emg_double_pass"][j] = emg(np.broadcast_to(dp[:, None], (j.size, n)), met,
                                    aj[:, None], bj[:, None], cj[:, None],
                                    crawford=crj[:, None], undefined="nan")  # fmt: skip
    out["take_point"][j] = tp
    out["take_margin"][j] = (1.0 - probs[None, :, 0]) - tp
    return out


def _money_row(probs: Sequence[float], x: float, jacoby: bool, beavers: bool) -> dict[str, Any]:
    from mathbg.cube.cubeful import cube_decision

    dec = cube_decision(probs, None, x=x, jacoby=jacoby, beavers=beavers)
    p = np.asarray(probs, dtype=np.float64)
    return _money_values(dec, _money_tp(p, x), 1.0 - float(p[0]))


def _money_values(dec: Any, tp: float, taker: float) -> dict[str, Any]:
    none = float("nan")
    return {"action": dec.action, "no_double": dec.no_double,
            "double_take": none if dec.double_take is None else dec.double_take,
            "double_pass": none if dec.double_pass is None else dec.double_pass,
            "optimal": _optimal(dec), "emg_no_double": dec.no_double,
            "emg_double_take": none if dec.double_take is None else dec.double_take,
            "emg_double_pass": none if dec.double_pass is None else dec.double_pass,
            "take_point": tp, "take_margin": taker - tp}  # fmt: skip


def _optimal(dec: Any) -> float:
    opt = getattr(dec, "optimal", None)
    if opt is not None:
        return float(opt)
    if dec.double_take is None:
        return float(dec.no_double)
    if dec.action.doubles:
        return float(min(dec.double_take, dec.double_pass))
    return float(dec.no_double)


def _two_sided_rows(
    position: Position, probs: NDArray[np.float64], met: Any, st: MatrixState, x: float,
    jacoby: bool, beavers: bool,
) -> dict[str, Any]:  # fmt: skip
    """gnubg 1.07's 0-ply rule inside the two-sided database (race_cube_decision)."""
    from mathbg.race import race_cube_decision

    if st.away is None:
        dec = race_cube_decision(position, beavers=beavers, jacoby=jacoby)
        return _money_values(dec, _money_tp(probs, x), 1.0 - float(probs[0]))
    a, b = st.away
    dec = race_cube_decision(position, met=met, away=a, opp_away=b, cube=st.cube,
                             owner=st.owner, crawford=st.crawford)  # fmt: skip
    from mathbg.cube.cubeful import cubeful_mwc

    nan = float("nan")
    xs = dec.x[0] if isinstance(dec.x, tuple) else (x if dec.x is None else dec.x)
    x_dt = dec.x[1] if isinstance(dec.x, tuple) else xs
    emgs = dec.emg if dec.emg is not None else (dec.no_double, None, None)
    row = {"action": dec.action, "no_double": dec.no_double,
           "double_take": nan if dec.double_take is None else dec.double_take,
           "double_pass": nan if dec.double_pass is None else dec.double_pass,
           "optimal": _optimal(dec), "emg_no_double": emgs[0],
           "emg_double_take": nan if emgs[1] is None else emgs[1],
           "emg_double_pass": nan if emgs[2] is None else emgs[2],
           "take_point": nan, "take_margin": nan, "cube_life": float(xs)}  # fmt: skip
    if dec.double_take is not None:
        p1 = np.asarray(probs, dtype=np.float64)[None, :]

        def dt_at(pw: NDArray[np.float64], k: NDArray[np.int64]) -> NDArray[np.float64]:
            return np.asarray(
                cubeful_mwc(
                    _with_win(p1[k], pw),
                    met,
                    a,
                    b,
                    cube=2 * st.cube,
                    owner=CubeOwner.OPPONENT,
                    x=x_dt,
                    crawford=st.crawford,
                )
            )

        dp = float(dec.double_pass if dec.double_pass is not None else nan)
        tp = float(1.0 - _break_even(dt_at, dp, 1)[0])
        row["take_point"], row["take_margin"] = tp, (1.0 - float(probs[0])) - tp
    return row


def _money_tp(probs: NDArray[np.float64], x: float) -> float:
    """The taker's money take point in the 0-ply model: DT = 2 x (cubeful equity with the
    opponent owning the cube) against DP = +1 (see the module notes)."""
    from mathbg.cube.cubeful import cubeful_equity

    p1 = np.asarray(probs, dtype=np.float64)[None, :]

    def dt_at(pw: NDArray[np.float64], k: NDArray[np.int64]) -> NDArray[np.float64]:
        eq = cubeful_equity(_with_win(p1[k], pw), owner=CubeOwner.OPPONENT, x=x)
        return 2.0 * np.asarray(eq, dtype=np.float64)

    return float(1.0 - _break_even(dt_at, 1.0, 1)[0])


def _with_win(probs: NDArray[np.float64], pw: NDArray[np.float64]) -> NDArray[np.float64]:
    """``probs`` (n, 5) with the win chance replaced by ``pw`` (n, m), each side's gammon
    and backgammon rates (fractions of its wins) kept: shape (n, m, 5)."""
    g0, b0, g1, b1 = _rates(probs)
    w = pw
    lose = 1.0 - w
    return np.stack([w, w * (g0 + b0)[:, None], w * b0[:, None], lose * (g1 + b1)[:, None],
                     lose * b1[:, None]], axis=-1)  # fmt: skip


#: Grid of win chances bracketing the break-even, and regula falsi steps after it.
_GRID = np.linspace(0.0, 1.0, 21)
_STEPS = 6


def _grid(n: int) -> NDArray[np.float64]:
    return np.broadcast_to(_GRID, (n, _GRID.size))


def _break_even(
    dt_at: Callable[[NDArray[np.float64], NDArray[np.int64]], NDArray[np.float64]],
    dp: float | NDArray[np.float64],
    n: int,
    on_grid: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Per position, the doubler's win chance where ``dt_at(p) = dp`` (``dt_at`` is
    increasing and piecewise linear in p); 0 or 1 when there is none in [0, 1].
    ``on_grid``: ``dt_at`` already evaluated on :data:`_GRID`."""
    k = np.arange(n)
    dpv = np.broadcast_to(np.asarray(dp, dtype=np.float64), (n,))
    values = dt_at(_grid(n), k) if on_grid is None else on_grid
    h = values - dpv[:, None]
    above = h >= 0.0
    first = np.where(above.any(axis=1), above.argmax(axis=1), _GRID.size)
    out = np.where(first == 0, 0.0, 1.0)
    inner = (first > 0) & (first < _GRID.size)
    idx = np.nonzero(inner)[0]
    if idx.size == 0:
        return out
    j = first[idx]
    lo, hi = _GRID[j - 1].copy(), _GRID[j].copy()
    h_lo, h_hi = h[idx, j - 1].copy(), h[idx, j].copy()
    for _ in range(_STEPS):
        with np.errstate(divide="ignore", invalid="ignore"):
            mid = np.where(h_hi > h_lo, lo - h_lo * (hi - lo) / (h_hi - h_lo), 0.5 * (lo + hi))
        mid = np.clip(mid, lo, hi)
        h_mid = dt_at(mid[:, None], idx)[:, 0] - dpv[idx]
        up = h_mid >= 0.0
        hi, h_hi = np.where(up, mid, hi), np.where(up, h_mid, h_hi)
        lo, h_lo = np.where(up, lo, mid), np.where(up, h_lo, h_mid)
        if np.all(np.abs(h_mid) < 1e-13):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.where(h_hi > h_lo, lo - h_lo * (hi - lo) / (h_hi - h_lo), hi)
    out[idx] = np.clip(root, lo, hi)
    return out


def _exact_row(
    exact: ExactEvaluator, position: Position, met: Any, st: MatrixState, beavers: bool,
    disk_cache: bool = False,
) -> dict[str, Any]:  # fmt: skip
    nan = float("nan")
    if st.away is None:
        dec = exact.money(position, beavers=beavers)
    else:
        dec = exact.match(position, st.away, st.cube, st.owner, st.crawford, met,
                          disk_cache=disk_cache)  # fmt: skip
    return {"exact_action": dec.action, "exact_no_double": float(dec.no_double),
            "exact_double_take": nan if dec.double_take is None else float(dec.double_take),
            "exact_double_pass": nan if dec.double_pass is None else float(dec.double_pass),
            "exact_optimal": _optimal(dec)}  # fmt: skip


# ----------------------------------------------------------------------------- results


@dataclass
class PositionAnalysis:
    """A position's cube actions at every score (one row per score and cube state).

    ``rows`` are dicts with the keys of :data:`COLUMNS`; ``compare`` holds the same
    matrix under a second MET (or None). Use :meth:`to_frame`, :meth:`as_dict` (the JSON
    of ``mathbg analyze --json``) and :meth:`met_changes`.
    """

    position: str
    evaluation: Evaluation
    met: str
    length: int | None
    current: tuple[tuple[int, int], bool] | None
    rows: list[dict[str, Any]]
    compare: PositionAnalysis | None = field(default=None, repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The tidy DataFrame (columns :data:`COLUMNS`; NaN where not applicable)."""
        import pandas as pd

        frame = pd.DataFrame(self.rows, columns=list(COLUMNS))
        for key in ("away", "opp_away", "length"):  # whole numbers, <NA> for money
            frame[key] = frame[key].astype("Int64")
        frame["action"] = frame["action"].astype(str)
        frame["exact_action"] = frame["exact_action"].map(lambda v: None if v is None else str(v))
        return frame

    def met_changes(self) -> pd.DataFrame:
        """Rows where the action under the second MET differs from the first.

        Columns ``away, opp_away, crawford, cube, owner, action`` (first MET) and
        ``compare_action``; empty without a second MET.
        """
        import pandas as pd

        keys = ["away", "opp_away", "crawford", "cube", "owner"]
        if self.compare is None:
            return pd.DataFrame(columns=[*keys, "action", "compare_action"])
        first = self.to_frame()
        second = self.compare.to_frame()
        first, second = first[first["state"] != "money"], second[second["state"] != "money"]
        both = first[[*keys, "action"]].merge(
            second[[*keys, "action"]].rename(columns={"action": "compare_action"}), on=keys
        )
        return both[both["action"] != both["compare_action"]].reset_index(drop=True)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready (MWC as fractions of 1, ``None`` where not applicable)."""
        scores, money = [], None
        for row in self.rows:
            entry = _json_row(row)
            if row["state"] == "money":
                money = entry
            else:
                scores.append(entry)
        out: dict[str, Any] = {
            "position": self.position,
            "engine": self.evaluation.engine_dict(),
            "probabilities": self.evaluation.probabilities_dict(),
            "position_class": self.evaluation.position_class,
            "met": self.met,
            "length": self.length,
            "current": None if self.current is None else
            {"away": list(self.current[0]), "crawford": self.current[1]},
            "scores": scores,
            "money": money,
        }  # fmt: skip
        if self.evaluation.gnubg is not None:
            out["gnubg"] = dict(self.evaluation.gnubg)
        if self.compare is not None:
            changes = self.met_changes()
            out["compare"] = {
                "met": self.compare.met,
                "scores": [_json_row(r) for r in self.compare.rows if r["state"] != "money"],
                "changes": [
                    {"away": [int(r.away), int(r.opp_away)], "crawford": bool(r.crawford),
                     "cube": int(r.cube), "owner": str(r.owner), "action": r.action,
                     "compare_action": r.compare_action}
                    for r in changes.itertuples()
                ],
            }  # fmt: skip
        return out


def _num(v: Any) -> float | None:
    if v is None:
        return None
    f = float(v)
    return None if np.isnan(f) else f


def _json_row(row: dict[str, Any]) -> dict[str, Any]:
    exact = None
    if row["exact_action"] is not None:
        exact = {"action": str(row["exact_action"]),
                 **{k: _num(row["exact_" + k]) for k in _VALUE_KEYS},
                 "differs": bool(row["exact_differs"])}  # fmt: skip
    away = None if row["away"] is None else [int(row["away"]), int(row["opp_away"])]
    return {
        "away": away,
        "crawford": bool(row["crawford"]),
        "state": row["state"],
        "cube": int(row["cube"]),
        "owner": str(row["owner"]),
        "current": bool(row["current"]),
        "unit": row["unit"],
        "cube_life": _num(row["cube_life"]),
        "action": str(row["action"]),
        **{k: _num(row[k]) for k in _VALUE_KEYS},
        "emg": {k: _num(row["emg_" + k]) for k in _VALUE_KEYS[:3]},
        "take_point": _num(row["take_point"]),
        "take_margin": _num(row["take_margin"]),
        "exact": exact,
    }


# ----------------------------------------------------------------------------- entry points


def _met_name(met: Any) -> str:
    name = getattr(met, "name", None)
    return str(name if name else met)


def _resolve_met(met: Any) -> Any:
    if isinstance(met, str):
        import mathbg.met as metmod

        return metmod.load(met)
    return met


def _length_and_current(
    length: int | None, money: bool, match: MatchState | None
) -> tuple[int | None, tuple[tuple[int, int], bool] | None, tuple[int, CubeOwner] | None]:
    """Match length, current (away, crawford) and current (cube, owner) seen by the roller."""
    if money:
        if length is not None:
            raise InvalidParameterError("give either a match length or money play, not both")
        return None, None, None
    if match is None or match.is_money:
        if length is None:
            if match is not None:  # a money Match ID / XGID
                return None, None, None
            raise InvalidScoreError(
                "give a match length (--length N), money play (--money) or a Match ID / XGID"
            )
        return int(length), None, None
    me, opp = match.on_roll, 1 - match.on_roll
    n = int(length) if length is not None else match.length
    if n <= max(match.score):
        raise InvalidScoreError(
            f"match length {n} is under the current score {match.score[me]}-{match.score[opp]}"
            " (each side needs at least 1 point)"
        )
    away = (n - match.score[me], n - match.score[opp])
    crawford = bool(match.crawford) and 1 in away and away != (1, 1)
    return n, (away, crawford), (int(match.cube), CubeOwner.of(match.cube_owner, me))


def analyze_many(
    positions: Sequence[Any],
    *,
    length: int | None = None,
    money: bool = False,
    engine: str | Evaluator = "auto",
    probabilities: Any = None,
    plies: int | None = None,
    evaluations: Sequence[Evaluation] | None = None,
    met: Any = DEFAULT_MET,
    compare_met: Any = None,
    cube_life: float | None = None,
    max_cube: int = 1,
    exact: bool = True,
    jacoby: bool = True,
    beavers: bool = True,
    progress: Callable[[int], None] | None = None,
    exact_progress: bool = False,
    disk_cache: bool = False,
) -> list[PositionAnalysis]:
    """Score matrices of many positions (batched evaluation, vectorised cube arithmetic).

    Parameters
    ----------
    positions : sequence of Position or str
        Positions, gnubg Position IDs, ``POSID:MATCHID`` or XGIDs.
    length : int, optional
        Match length; default the Match ID's / XGID's. ``money=True``: money play only.
    engine : str or Evaluator
        :data:`mathbg.analysis.ENGINES` or any :class:`~.evaluation.Evaluator`.
    probabilities : 5 floats, optional
        For the ``given`` engine (W, WG, WB, LG, LB, cumulative gammons).
    plies : int, optional
        For ``gnubg-nn`` and ``gnubg`` (default 0).
    evaluations : sequence of Evaluation, optional
        Skip the engine: use these.
    met, compare_met : str or MET
        The MET and an optional second one (sensitivity).
    cube_life : float, optional
        Override gnubg's cube life by position class.
    max_cube : int
        Highest roller-owned cube in the matrix (1: the centred cube only).
    exact : bool
        Add the exact bearoff match solver's values where it covers the position.
    jacoby, beavers : bool
        Money-play rules of the money row.
    progress : callable, optional
        Called with the number of positions finished after each block of positions.
    exact_progress : bool
        Show a progress bar over the exact solver's scores (a 6 x 6 bearoff takes about a
        second per score the first time).
    disk_cache : bool
        Keep the exact solver's solutions in mathbg's cache directory for later runs.
    """
    if cube_life is not None and not 0.0 <= float(cube_life) <= 1.0:
        raise InvalidParameterError(f"cube life must lie in [0, 1], got {cube_life}")
    parsed = [as_position(p) for p in positions]
    if evaluations is None:
        ev = engine if not isinstance(engine, str) else get_evaluator(
            engine, plies=plies, probabilities=probabilities)  # fmt: skip
        evaluations = ev.evaluate_many([p for p, _ in parsed], [m for _, m in parsed])
    evaluations = list(evaluations)
    met_table = _resolve_met(met)
    results = _matrices(parsed, evaluations, met_table, length=length, money=money,
                        cube_life=cube_life, max_cube=max_cube, exact=exact, jacoby=jacoby,
                        beavers=beavers, progress=progress,
                        exact_options=(exact_progress, disk_cache))  # fmt: skip
    if compare_met is not None and not money:
        other = _matrices(parsed, evaluations, _resolve_met(compare_met), length=length,
                          money=money, cube_life=cube_life, max_cube=max_cube, exact=False,
                          jacoby=jacoby, beavers=beavers, progress=None)  # fmt: skip
        for r, o in zip(results, other, strict=True):
            r.compare = o
    return results


def _matrices(
    parsed: list[tuple[Position, MatchState | None]],
    evaluations: list[Evaluation],
    met: Any,
    *,
    length: int | None,
    money: bool,
    cube_life: float | None,
    max_cube: int,
    exact: bool,
    jacoby: bool,
    beavers: bool,
    progress: Callable[[int], None] | None,
    exact_options: tuple[bool, bool] = (False, False),
) -> list[PositionAnalysis]:
    n = len(parsed)
    infos = [_length_and_current(length, money, m) for _, m in parsed]
    probs = np.array([e.probabilities for e in evaluations], dtype=np.float64).reshape(n, 5)
    xs = np.array([e.cube_life if cube_life is None else float(cube_life)
                   for e in evaluations], dtype=np.float64)  # fmt: skip
    two_sided = np.array([cube_life is None and e.position_class == "two-sided bearoff"
                          for e in evaluations], dtype=bool)  # fmt: skip
    exact_eval = ExactEvaluator()
    covered = [exact and exact_eval.covers(p) for p, _ in parsed]
    exact_rows = 0
    for i in range(n):
        ln_i = infos[i][0]
        if covered[i]:
            exact_rows += 1 + (len(matrix_states(ln_i, max_cube)) if ln_i is not None else 0)
    bar = _ExactBar(exact_options, exact_rows)
    rows: list[list[dict[str, Any]]] = [[] for _ in range(n)]
    ids = [p.id for p, _ in parsed]
    done = 0
    # group the positions by match length: one vectorised pass per state
    by_length: dict[int | None, list[int]] = {}
    for i, (ln, _, _) in enumerate(infos):
        by_length.setdefault(ln, []).append(i)
    for ln, idx in by_length.items():
        states = [MatrixState(None, False, 1, CubeOwner.CENTRE)]
        if ln is not None:
            states += matrix_states(ln, max_cube)
            states += _current_states(states, [infos[i] for i in idx])
        match_states = [st for st in states if st.away is not None]
        for start in range(0, len(idx), _CHUNK):
            chunk = idx[start : start + _CHUNK]
            sel = np.array(chunk)
            block = _match_block(probs[sel], xs[sel], met, match_states) if match_states else {}
            _fill_rows(rows, chunk, block, states, parsed, evaluations, ids, met, ln, infos,
                       probs, xs, two_sided, covered, exact_eval, jacoby, beavers, bar)  # fmt: skip
            done += len(chunk)
            if progress is not None:
                progress(done)
    bar.close()
    return [PositionAnalysis(ids[i], evaluations[i], _met_name(met), infos[i][0], infos[i][1],
                             rows[i]) for i in range(n)]  # fmt: skip


def _current_states(states: list[MatrixState], infos: list[Any]) -> list[MatrixState]:
    """The Match IDs' current score and cube states that the matrix does not list (an
    opponent-owned cube, a cube above ``max_cube``), so that the current row exists."""
    have = set(states)
    extra = []
    for _, current, cube_state in infos:
        if current is None or cube_state is None:
            continue
        st = MatrixState(current[0], current[1], cube_state[0], cube_state[1])
        if st not in have:
            have.add(st)
            extra.append(st)
    return extra


class _ExactBar:
    """An optional tqdm bar over the exact solver's rows."""

    def __init__(self, options: tuple[bool, bool], rows: int) -> None:
        show, self.disk_cache = options
        self._bar: Any = None
        if show and rows:
            from tqdm.auto import tqdm

            self._bar = tqdm(total=rows, desc="exact bearoff solver", unit="row",
                             disable=None, leave=False)  # fmt: skip

    def step(self) -> None:
        if self._bar is not None:
            self._bar.update(1)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


#: Positions per vectorised block (keeps the arrays of every state x position x take-point
#: grid cache-sized).
_CHUNK = 128


def _fill_rows(
    rows: list[list[dict[str, Any]]], chunk: list[int], block: dict[str, Any],
    states: list[MatrixState], parsed: list[tuple[Position, MatchState | None]],
    evaluations: list[Evaluation], ids: list[str], met: Any, ln: int | None,
    infos: list[Any], probs: NDArray[np.float64], xs: NDArray[np.float64],
    two_sided: NDArray[np.bool_], covered: list[bool], exact_eval: ExactEvaluator,
    jacoby: bool, beavers: bool, bar: _ExactBar,
) -> None:  # fmt: skip
    """Append one row per state to each position of ``chunk``."""
    for j_state, st in enumerate(states):
        for k, i in enumerate(chunk):
            pos = parsed[i][0]
            row = _base_row(ids[i], evaluations[i], met, ln, st, infos[i], xs[i])
            if two_sided[i]:
                row.update(_two_sided_rows(pos, probs[i], met, st, float(xs[i]), jacoby,
                                               beavers))  # fmt: skip
            elif st.away is None:
                row.update(_money_row(probs[i], float(xs[i]), jacoby, beavers))
            else:
                jm = j_state - 1  # the money state comes first
                for key, column in block.items():
                    row[key] = column[jm][k]
            if covered[i]:
                row.update(_exact_row(exact_eval, pos, met, st, beavers, bar.disk_cache))
                bar.step()
                row["exact_differs"] = str(row["exact_action"]) != str(row["action"])
            rows[i].append(row)


def _base_row(
    position_id: str, ev: Evaluation, met: Any, length: int | None, st: MatrixState,
    info: tuple[Any, Any, Any], x: float,
) -> dict[str, Any]:  # fmt: skip
    current = False
    if info[1] is not None and st.away is not None:
        cube_state = info[2] or (1, CubeOwner.CENTRE)
        current = (st.away, st.crawford) == info[1] and (st.cube, st.owner) == cube_state
    return {
        "position": position_id, "engine": ev.engine, "plies": ev.plies, "met": _met_name(met),
        "length": length, "away": None if st.away is None else st.away[0],
        "opp_away": None if st.away is None else st.away[1], "crawford": st.crawford,
        "state": st.state, "cube": st.cube, "owner": st.owner, "current": current,
        "unit": "equity" if st.away is None else "mwc", "cube_life": float(x),
        "exact_action": None, "exact_no_double": np.nan, "exact_double_take": np.nan,
        "exact_double_pass": np.nan, "exact_optimal": np.nan, "exact_differs": False,
    }  # fmt: skip


def analyze(position: Any, **options: Any) -> PositionAnalysis:
    """The score matrix of one position (see :func:`analyze_many` for the options)."""
    return analyze_many([position], **options)[0]


def position_matrix(position: Any, **options: Any) -> pd.DataFrame:
    """The tidy DataFrame of :func:`analyze` (one row per score and cube state)."""
    return analyze(position, **options).to_frame()
