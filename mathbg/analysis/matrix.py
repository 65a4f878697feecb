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

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg._docstrings import shared_sections
from mathbg._output import JSONObject
from mathbg.analysis.base import CubefulEvaluator, CubeSetting
from mathbg.analysis.evaluation import (
    Evaluation,
    Evaluator,
    ExactEvaluator,
    as_position,
)
from mathbg.analysis.registry import engines, get_evaluator
from mathbg.cube.cubeful import cube_decision, cubeful_mwc, cubeless_mwc, emg
from mathbg.cube.decisions import CubeAction, CubeDecision, classify
from mathbg.cube.takepoint import match_take_point, match_take_points, money_take_point
from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.met.catalogue import as_met
from mathbg.met.table import MET
from mathbg.rules.cube import CubeOwner
from mathbg.rules.match import ScoreState, may_double

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "COLUMNS",
    "CUBE_EVALS",
    "DEFAULT_MET",
    "MatrixKeywords",
    "MatrixOptions",
    "MatrixRow",
    "MatrixState",
    "PositionAnalysis",
    "RowValues",
    "analyze",
    "analyze_many",
    "matrix_states",
    "position_matrix",
    "rows_at",
]

#: Default match equity table (gnubg 1.07's and XG2's default).
DEFAULT_MET = "kazaross-xg2"

_NAN = float("nan")

# the parameters analyze and position_matrix share
_POSITION_OPTIONS = """
position : Position or str
    A position, gnubg Position ID, ``POSID:MATCHID`` or XGID.
options : MatrixOptions, optional
    How to compute it (as for :func:`analyze_many`).
"""

_VALUE_KEYS = ("no_double", "double_take", "double_pass", "optimal")


@dataclass(frozen=True)
class MatrixState:
    """One score and cube state of the matrix (``away`` None for money).

    Attributes
    ----------
    away : (int, int) or None
        Points the roller and the opponent need; None for money play.
    crawford : bool
        The Crawford game (a side 1-away).
    cube : int
        The cube value.
    owner : CubeOwner
        Who holds the cube.
    """

    away: tuple[int, int] | None
    crawford: bool
    cube: int
    owner: CubeOwner

    @property
    def state(self) -> ScoreState:
        """The :class:`~mathbg.rules.match.ScoreState` of the row."""
        return ScoreState.of(self.away, crawford=self.crawford)


@dataclass(frozen=True)
class RowValues:
    """The approximation's (or the exact solver's) values of one row.

    Attributes
    ----------
    action : CubeAction
        The action (:func:`mathbg.cube.decisions.classify`).
    no_double, double_take, double_pass, optimal : float
        MWC (money: equity per unit cube); NaN where not applicable.
    emg_no_double, emg_double_take, emg_double_pass : float
        The same as normalised (EMG) equities.
    take_point, take_margin : float
        The taker's take point and its cubeless winning chance minus it.
    """

    action: CubeAction
    no_double: float
    double_take: float = _NAN
    double_pass: float = _NAN
    optimal: float = _NAN
    emg_no_double: float = _NAN
    emg_double_take: float = _NAN
    emg_double_pass: float = _NAN
    take_point: float = _NAN
    take_margin: float = _NAN


@dataclass
class MatrixRow:
    """One row of a position's matrix: a score and cube state and its values.

    The fields are the columns of :meth:`PositionAnalysis.to_frame`, in order
    (:data:`COLUMNS`), but for the score ``away = (player_away, opponent_away)`` (None for
    money), the frame's two columns ``away`` and ``opp_away``; the module notes say what
    each value means. ``exact_*`` are NaN
    (``exact_action`` None) where the exact solver does not cover the position.
    ``cube_eval`` says where the cube values come from: ``"mathbg"`` (the engine's cubeless
    chances through mathbg's 0-ply cubeless -> cubeful step) or ``"engine"`` (the engine's
    own n-ply cubeful evaluation at the row's score and cube, e.g. gnubg's ``hint``; then
    ``engine_action`` holds the engine's recommendation in its words, e.g. "Optional
    double, pass", and the cube life and take point, which its search does not use, are NaN).
    ``jacoby`` and ``beavers`` are a money row's rules (None at a match score).
    """

    position: str
    engine: str
    plies: int | None
    met: str
    length: int | None
    away: tuple[int, int] | None
    crawford: bool
    state: str
    cube: int
    owner: CubeOwner
    current: bool
    unit: str
    cube_life: float
    action: CubeAction
    no_double: float
    double_take: float
    double_pass: float
    optimal: float
    emg_no_double: float
    emg_double_take: float
    emg_double_pass: float
    take_point: float
    take_margin: float
    exact_action: CubeAction | None = None
    exact_no_double: float = _NAN
    exact_double_take: float = _NAN
    exact_double_pass: float = _NAN
    exact_optimal: float = _NAN
    exact_differs: bool = False
    cube_eval: str = "mathbg"
    engine_action: str | None = None
    jacoby: bool | None = None
    beavers: bool | None = None

    def values(self) -> dict[str, object]:
        """The row as a dict of its columns (the DataFrame's row)."""
        away = (None, None) if self.away is None else self.away
        score = {"away": away[0], "opp_away": away[1]}
        return {name: score[name] if name in score else getattr(self, name) for name in COLUMNS}

    def set_exact(self, exact: CubeDecision) -> None:
        """Fill the ``exact_*`` columns from the exact solver's decision."""
        self.exact_action = exact.action
        self.exact_no_double = float(exact.no_double)
        self.exact_double_take = _float(exact.double_take)
        self.exact_double_pass = _float(exact.double_pass)
        self.exact_optimal = _optimal(exact)
        self.exact_differs = str(self.exact_action) != str(self.action)


#: Columns of :meth:`PositionAnalysis.to_frame`, in order: the fields of :class:`MatrixRow`,
#: its score ``away`` as two columns ``away`` and ``opp_away``.
COLUMNS: tuple[str, ...] = tuple(
    name for f in fields(MatrixRow)
    for name in (("away", "opp_away") if f.name == "away" else (f.name,))
)  # fmt: skip


def _float(v: float | None) -> float:
    return _NAN if v is None else float(v)


def _levels(max_cube: int) -> list[int]:
    c = int(max_cube)
    if c < 1 or c & (c - 1):
        raise InvalidParameterError(f"max cube must be a power of two >= 1, got {max_cube}")
    return [1 << k for k in range(c.bit_length())]


def matrix_states(length: int, max_cube: int = 1) -> list[MatrixState]:
    """The score and cube states of a ``length``-point matrix (see the module notes).

    Parameters
    ----------
    length : int
        The match length.
    max_cube : int, optional
        Highest roller-owned cube (a power of two; 1: the centred cube only).

    Returns
    -------
    list of MatrixState
        Every score, the Crawford game and post-Crawford where a side is 1-away, the
        centred cube and each higher roller-owned cube while it still matters.

    Raises
    ------
    InvalidScoreError
        For a length below 1.
    InvalidParameterError
        For a ``max_cube`` that is not a power of two.

    Examples
    --------
    Nine scores, the Crawford game beside post-Crawford at the four 1-away scores, and
    the roller's 2-cube where the roller needs 3 and the opponent 2 or 3:

    >>> len(matrix_states(3)), len(matrix_states(3, max_cube=2))
    (13, 15)
    """
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


@dataclass
class _Block:
    """The approximation at every match state (rows) for every position (columns)."""

    action: list[list[CubeAction]]
    no_double: NDArray[np.float64]
    double_take: NDArray[np.float64]
    double_pass: NDArray[np.float64]
    optimal: NDArray[np.float64]
    emg_no_double: NDArray[np.float64]
    emg_double_take: NDArray[np.float64]
    emg_double_pass: NDArray[np.float64]
    take_point: NDArray[np.float64]
    take_margin: NDArray[np.float64]

    def values(self, j: int, k: int) -> RowValues:
        """State ``j``, position ``k`` of the block."""
        return RowValues(
            self.action[j][k], *(getattr(self, f.name)[j][k] for f in fields(RowValues)[1:])
        )


def _match_block(
    probs: NDArray[np.float64],
    xs: NDArray[np.float64],
    met: MET,
    states: list[MatrixState],
    take_points: bool = True,
    paired: bool = False,
) -> _Block:
    """The approximation at every match state for every position, in a few vectorised
    calls of :func:`mathbg.cube.cubeful.cubeful_mwc` (one per cube owner for no double,
    and :func:`mathbg.cube.takepoint.match_take_points` for double/take and the take
    points). ``paired``: ``states[i]`` is position ``i``'s own state, and the block is
    one row, each position at its state only (the work of ``n`` cells, not ``m x n``)."""
    n, m = probs.shape[0], len(states)
    a = np.array([st.away[0] for st in states if st.away is not None], dtype=np.int64)
    b = np.array([st.away[1] for st in states if st.away is not None], dtype=np.int64)
    c = np.array([st.cube for st in states], dtype=np.int64)
    cr = np.array([st.crawford for st in states], dtype=bool)
    owners = np.array([str(st.owner) for st in states])

    def lay(v: NDArray[Any]) -> NDArray[Any]:  # a state array against the positions
        return v[None, :] if paired else v[:, None]

    rows = 1 if paired else m
    nd = np.empty((rows, n))
    for owner in set(owners.tolist()):
        k = np.nonzero(owners == owner)[0]
        if paired:
            nd[0, k] = cubeful_mwc(probs[k], met, (a[k], b[k]), cube=c[k], owner=owner,
                                   cube_life=xs[k], crawford=cr[k])  # fmt: skip
        else:
            nd[k] = cubeful_mwc(probs[None], met, (a[k, None], b[k, None]), cube=c[k, None],
                                owner=owner, cube_life=xs[None], crawford=cr[k, None])  # fmt: skip
    score = (lay(a), lay(b))
    nd_emg = np.asarray(emg(nd, met, score, lay(c), crawford=lay(cr),
                            undefined="nan"))  # '-' where undefined; the rows go on
    nan = np.full((rows, n), np.nan)
    out = _Block([[CubeAction.NOT_AVAILABLE] * n for _ in range(rows)], nd, nan.copy(),
                 nan.copy(), nd.copy(), nd_emg, nan.copy(), nan.copy(), nan.copy(),
                 nan.copy())  # fmt: skip
    d = np.array([may_double((int(a[j]), int(b[j])), int(c[j]), str(owners[j]),
                             crawford=bool(cr[j])) for j in range(m)], dtype=bool)  # fmt: skip
    if not d.any():
        return out
    j = np.nonzero(d)[0]
    aj, bj, cj, crj = a[j], b[j], c[j], cr[j]
    dp = np.asarray(cubeless_mwc([1.0, 0.0, 0.0, 0.0, 0.0], met, (aj, bj), cj, crawford=crj))
    if take_points:
        dt, tp = match_take_points(probs[j] if paired else probs, met, (aj, bj), cj, crj,
                                   xs[j] if paired else xs, dp, paired=paired)  # fmt: skip
    else:  # the double/take values alone (the take point search is most of the cost)
        if paired:  # the doubling positions j, each at its own state
            dt = np.asarray(cubeful_mwc(probs[j], met, (aj, bj), cube=2 * cj,
                                        owner=CubeOwner.OPPONENT, cube_life=xs[j],
                                        crawford=crj))  # fmt: skip
        else:  # the doubling states j, every position
            dt = np.asarray(cubeful_mwc(probs[None], met, (aj[:, None], bj[:, None]),
                                        cube=2 * cj[:, None], owner=CubeOwner.OPPONENT,
                                        cube_life=xs[None], crawford=crj[:, None]))  # fmt: skip
        tp = np.full(np.shape(dt), np.nan)
    cells = (np.zeros_like(j), j) if paired else (j, slice(None))
    dt_all, tp_all, dp_all = nan.copy(), nan.copy(), nan.copy()
    dt_all[cells], tp_all[cells] = dt, tp
    dp_all[cells] = dp if paired else dp[:, None]
    pairs = [(0, i) for i in j.tolist()] if paired else [(r, i) for r in j.tolist()
                                                         for i in range(n)]  # fmt: skip
    for r, i in pairs:
        out.action[r][i] = classify(float(nd[r, i]), float(dt_all[r, i]), float(dp_all[r, i]),
                                    can_gammon=bool(probs[i, 1] > 0.0), money=False)  # fmt: skip
    doubles = np.array([[act.doubles for act in acts] for acts in out.action], dtype=bool)
    out.optimal = np.where(doubles, np.minimum(dt_all, dp_all), nd)
    out.double_take, out.double_pass, out.take_point = dt_all, dp_all, tp_all
    out.emg_double_take = np.asarray(emg(dt_all, met, score, lay(c), crawford=lay(cr),
                                         undefined="nan"))  # fmt: skip
    out.emg_double_pass = np.asarray(emg(dp_all, met, score, lay(c), crawford=lay(cr),
                                         undefined="nan"))  # fmt: skip
    out.take_margin = (1.0 - probs[None, :, 0]) - tp_all
    return out


def _money_values(dec: CubeDecision, tp: float, taker: float) -> RowValues:
    if dec.double_take is None:  # the cube not available (an opponent-owned cube)
        tp = _NAN
    return RowValues(dec.action, dec.no_double, _float(dec.double_take),
                      _float(dec.double_pass), _optimal(dec), dec.no_double,
                      _float(dec.double_take), _float(dec.double_pass), tp,
                      taker - tp)  # fmt: skip


def _money_row(
    probs: NDArray[np.float64], x: float, jacoby: bool, beavers: bool, owner: str = "centre"
) -> RowValues:
    dec = cube_decision(probs, None, owner=owner, cube_life=x, jacoby=jacoby, beavers=beavers)
    p = np.asarray(probs, dtype=np.float64)
    return _money_values(dec, money_take_point(p, x), 1.0 - float(p[0]))


def _optimal(dec: CubeDecision) -> float:
    opt = getattr(dec, "optimal", None)
    if opt is not None:
        return float(opt)
    if dec.double_take is None or dec.double_pass is None:
        return float(dec.no_double)
    if dec.action.doubles:
        return float(min(dec.double_take, dec.double_pass))
    return float(dec.no_double)


def _two_sided_values(
    position: Position, probs: NDArray[np.float64], met: MET, st: MatrixState, x: float,
    jacoby: bool, beavers: bool,
) -> tuple[RowValues, float]:  # fmt: skip
    """gnubg 1.07's 0-ply rule inside the two-sided database
    (:func:`mathbg.race.race_cube_decision`) and the cube life it shows."""
    from mathbg.race import race_cube_decision

    if st.away is None:
        dec = race_cube_decision(position, owner=str(st.owner), beavers=beavers, jacoby=jacoby)
        return _money_values(dec, money_take_point(probs, x), 1.0 - float(probs[0])), x
    a, b = st.away
    dec = race_cube_decision(position, met=met, away=(a, b), cube=st.cube,
                             owner=st.owner, crawford=st.crawford)  # fmt: skip
    xs = dec.x[0] if isinstance(dec.x, tuple) else (x if dec.x is None else dec.x)
    x_dt = dec.x[1] if isinstance(dec.x, tuple) else xs
    emgs = dec.emg if dec.emg is not None else (dec.no_double, None, None)
    tp = tm = _NAN
    if dec.double_take is not None:
        dp = _float(dec.double_pass)
        tp = match_take_point(probs, met, (a, b), cube=st.cube, crawford=st.crawford,
                              cube_life=x_dt, double_pass=dp)  # fmt: skip
        tm = (1.0 - float(probs[0])) - tp
    values = RowValues(dec.action, dec.no_double, _float(dec.double_take),
                        _float(dec.double_pass), _optimal(dec), float(emgs[0]),
                        _float(emgs[1]), _float(emgs[2]), tp, tm)  # fmt: skip
    return values, float(xs)


def _exact_decision(
    exact: ExactEvaluator, position: Position, met: MET, st: MatrixState, beavers: bool,
    disk_cache: bool = False,
) -> CubeDecision:  # fmt: skip
    if st.away is None:
        dec: CubeDecision = exact.money(position, owner=str(st.owner), beavers=beavers)
        return dec
    dec = exact.match(position, st.away, st.cube, st.owner, st.crawford, met,
                      disk_cache=disk_cache)  # fmt: skip
    return dec


# ----------------------------------------------------------------------------- results


@dataclass
class PositionAnalysis:
    """A position's cube actions at every score (one row per score and cube state).

    ``rows`` are :class:`MatrixRow` (their fields are :data:`COLUMNS`; the row of a Match
    ID's or XGID's score and cube state has ``current``, a money ID's owned cube a money
    row of its own); ``compare`` holds the same matrix under a second MET (or None);
    ``money_rules`` the money rows' (Jacoby rule, beavers): the options', each turned off
    where a money ID says so. Use :meth:`to_frame`, :meth:`as_dict` (the JSON of ``mathbg
    analyze --json``) and :meth:`met_changes`.
    """

    position: str
    evaluation: Evaluation
    met: str
    length: int | None
    current: tuple[tuple[int, int], bool] | None
    rows: list[MatrixRow]
    compare: PositionAnalysis | None = field(default=None, repr=False)
    cube_eval: str = "mathbg"
    money_rules: tuple[bool, bool] = (True, True)

    def to_frame(self) -> pd.DataFrame:
        """The tidy DataFrame (columns :data:`COLUMNS`; NaN where not applicable).

        Returns
        -------
        pandas.DataFrame
            One row per score and cube state.
        """
        import pandas as pd

        frame = pd.DataFrame([r.values() for r in self.rows], columns=list(COLUMNS))
        for key in ("away", "opp_away", "length"):  # whole numbers, <NA> for money
            frame[key] = frame[key].astype("Int64")
        frame["action"] = frame["action"].astype(str)
        frame["exact_action"] = frame["exact_action"].map(lambda v: None if v is None else str(v))
        return frame

    def met_changes(self) -> pd.DataFrame:
        """Rows where the action under the second MET differs from the first.

        Returns
        -------
        pandas.DataFrame
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

    def as_dict(self) -> JSONObject:
        """JSON-ready (MWC as fractions of 1, ``None`` where not applicable).

        Returns
        -------
        dict
            The JSON of ``mathbg analyze --json``.
        """
        scores, money, owned = [], None, None
        for row in self.rows:
            entry = _json_row(row)
            if row.state != "money":
                scores.append(entry)
            elif money is None:  # the centred cube's
                money = entry
            else:  # a money ID's cube, owned by a side
                owned = entry
        out: JSONObject = {
            "position": self.position,
            "engine": self.evaluation.engine_dict(),
            "probabilities": self.evaluation.probabilities_dict(),
            "evaluation_class": self.evaluation.evaluation_class,
            "cube_eval": self.cube_eval,
            "met": self.met,
            "length": self.length,
            "current": None if self.current is None else
            {"away": list(self.current[0]), "crawford": self.current[1]},
            "scores": scores,
            "money": money,
            "money_current": owned,
            "money_rules": {"jacoby": self.money_rules[0], "beavers": self.money_rules[1]},
        }  # fmt: skip
        if self.evaluation.gnubg is not None:
            out["gnubg"] = dict(self.evaluation.gnubg)
        if self.compare is not None:
            changes = self.met_changes()
            out["compare"] = {
                "met": self.compare.met,
                "scores": [_json_row(r) for r in self.compare.rows if r.state != "money"],
                "changes": [
                    {"away": [int(r.away), int(r.opp_away)], "crawford": bool(r.crawford),
                     "cube": int(r.cube), "owner": str(r.owner), "action": r.action,
                     "compare_action": r.compare_action}
                    for r in changes.itertuples()
                ],
            }  # fmt: skip
        return out


def _num(v: float | None) -> float | None:
    if v is None:
        return None
    f = float(v)
    return None if np.isnan(f) else f


def _json_row(row: MatrixRow) -> JSONObject:
    exact = None
    if row.exact_action is not None:
        exact = {"action": str(row.exact_action),
                 **{k: _num(getattr(row, "exact_" + k)) for k in _VALUE_KEYS},
                 "differs": bool(row.exact_differs)}  # fmt: skip
    away = None if row.away is None else [int(row.away[0]), int(row.away[1])]
    return {
        "away": away,
        "crawford": bool(row.crawford),
        "state": row.state,
        "cube": int(row.cube),
        "owner": str(row.owner),
        "current": bool(row.current),
        "unit": row.unit,
        "cube_life": _num(row.cube_life),
        "action": str(row.action),
        **{k: _num(getattr(row, k)) for k in _VALUE_KEYS},
        "emg": {k: _num(getattr(row, "emg_" + k)) for k in _VALUE_KEYS[:3]},
        "take_point": _num(row.take_point),
        "take_margin": _num(row.take_margin),
        "exact": exact,
        **({"engine_action": row.engine_action} if row.engine_action is not None else {}),
    }


# ----------------------------------------------------------------------------- options

#: Where a matrix's cube values can come from.
#: Where a matrix's cube values come from: mathbg's cube step or the engine's own (engines
#: with the registry's ``cubeful`` capability).
CUBE_EVALS: tuple[str, ...] = ("mathbg", "engine")


@dataclass(frozen=True)
class MatrixOptions:
    """How a score matrix is computed: every option of :func:`analyze`,
    :func:`analyze_many` and :func:`position_matrix` (which take these as keywords too).

    Attributes
    ----------
    length : int, optional
        Match length; default the Match ID's / XGID's.
    money : bool
        Money play only.
    engine : str or Evaluator
        A registered engine (:func:`mathbg.analysis.engines`) or any
        :class:`~.evaluation.Evaluator`; default ``auto``.
    probabilities : 5 floats, optional
        For the ``given`` engine (W, WG, WB, LG, LB, cumulative gammons).
    plies : int, optional
        For ``gnubg-nn`` and ``gnubg`` (default 0).
    met, compare_met : MET or str
        The MET (a table, a shipped table or model name, or a MET file;
        :func:`mathbg.met.as_met`) and an optional second one (sensitivity).
    cube_life : float, optional
        Override gnubg's cube life by position class (:func:`mathbg.cube.life.cube_life`).
    max_cube : int
        Highest roller-owned cube in the matrix (1: the centred cube only).
    exact : bool
        Add the exact bearoff match solver's values where it covers the position.
    jacoby, beavers : bool
        Money-play rules of the money row.
    exact_progress : bool
        Show a progress bar over the exact solver's scores (a 6 x 6 bearoff takes about a
        second per score the first time).
    disk_cache : bool
        Keep the exact solver's solutions in mathbg's cache directory for later runs.
    cube_eval : {"mathbg", "engine"}
        Where the cube values come from: ``"mathbg"`` (default) puts the engine's cubeless
        chances through mathbg's 0-ply cubeless -> cubeful step; ``"engine"`` (only with an
        engine of the registry's ``cubeful`` capability, :func:`~mathbg.analysis.engines`;
        ``gnubg``) takes the engine's own ``plies``-ply cubeful evaluation at each row's
        score and cube state (for gnubg the numbers of its ``hint``, one ``cfevaluate`` per
        row).

    Raises
    ------
    InvalidParameterError
        For a cube life outside [0, 1] or an unknown ``cube_eval``.

    Examples
    --------
    >>> MatrixOptions(length=7, max_cube=2).replace(money=True, length=None).money
    True
    """

    length: int | None = None
    money: bool = False
    engine: str | Evaluator = "auto"
    probabilities: ArrayLike | None = None
    plies: int | None = None
    met: MET | str = DEFAULT_MET
    compare_met: MET | str | None = None
    cube_life: float | None = None
    max_cube: int = 1
    exact: bool = True
    jacoby: bool = True
    beavers: bool = True
    exact_progress: bool = False
    disk_cache: bool = False
    cube_eval: str = "mathbg"

    def __post_init__(self) -> None:
        if self.cube_life is not None and not 0.0 <= float(self.cube_life) <= 1.0:
            raise InvalidParameterError(f"cube life must lie in [0, 1], got {self.cube_life}")
        if self.cube_eval not in CUBE_EVALS:
            raise InvalidParameterError(
                f"cube_eval must be 'mathbg' or 'engine', got {self.cube_eval!r}"
            )

    def replace(self, **changes: Any) -> MatrixOptions:
        """These options with ``changes`` (the names of the attributes).

        Raises
        ------
        InvalidParameterError
            For a name that is not an option.
        """
        unknown = sorted(set(changes) - {f.name for f in fields(self)})
        if unknown:
            names = ", ".join(f.name for f in fields(self))
            raise InvalidParameterError(
                f"unknown option(s) {', '.join(unknown)}; the options are {names}"
            )
        return dataclasses.replace(self, **changes)


class MatrixKeywords(TypedDict, total=False):
    """The keywords :func:`analyze`, :func:`analyze_many` and :func:`position_matrix` take:
    the attributes of :class:`MatrixOptions` (for the type checker)."""

    length: int | None
    money: bool
    engine: str | Evaluator
    probabilities: ArrayLike | None
    plies: int | None
    met: MET | str
    compare_met: MET | str | None
    cube_life: float | None
    max_cube: int
    exact: bool
    jacoby: bool
    beavers: bool
    exact_progress: bool
    disk_cache: bool
    cube_eval: str


def _options(options: MatrixOptions | None, changes: MatrixKeywords) -> MatrixOptions:
    return (options or MatrixOptions()).replace(**changes)


# ----------------------------------------------------------------------------- entry points

#: (match length, current (away, crawford), current (cube, owner)) of a position.
_Info = tuple[int | None, tuple[tuple[int, int], bool] | None, tuple[int, CubeOwner] | None]


#: Longest match :func:`analyze` tabulates (its matrix has N x N scores per cube level).
MAX_MATCH_LENGTH = 128


def _length_and_current(length: int | None, money: bool, match: MatchState | None) -> _Info:
    """Match length, current (away, crawford) and current (cube, owner) seen by the roller."""
    if length is not None:
        from mathbg._validate import integer

        integer(length, "match length", 1, MAX_MATCH_LENGTH, error=InvalidScoreError)
    if match is not None and not match.is_money and length is None:
        integer_length = int(match.length)
        if integer_length > MAX_MATCH_LENGTH:
            raise InvalidScoreError(
                f"match length {integer_length} (from the Match ID) is beyond the "
                f"{MAX_MATCH_LENGTH} points analyze tabulates"
            )
    # the ID's cube state seen by the roller (money play: its own row, marked current)
    cube_state = None if match is None else (int(match.cube),
                                             CubeOwner.of(match.cube_owner, match.on_roll))
    if money:
        if length is not None:
            raise InvalidParameterError("give either a match length or money play, not both")
        return None, None, cube_state
    if match is None or match.is_money:
        if length is None:
            if match is not None:  # a money Match ID / XGID
                return None, None, cube_state
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
    return n, (away, crawford), cube_state


def analyze_many(
    positions: Sequence[Position | str],
    options: MatrixOptions | None = None,
    *,
    evaluations: Sequence[Evaluation] | None = None,
    progress: Callable[[int], None] | None = None,
    **changes: Unpack[MatrixKeywords],
) -> list[PositionAnalysis]:
    """Score matrices of many positions (batched evaluation, vectorised cube arithmetic).

    Parameters
    ----------
    positions : sequence of Position or str
        Positions, gnubg Position IDs, ``POSID:MATCHID`` or XGIDs.
    options : MatrixOptions, optional
        How to compute them (default :class:`MatrixOptions`'s defaults).
    evaluations : sequence of Evaluation, optional
        Skip the engine: use these.
    progress : callable, optional
        Called with the number of positions finished after each block of positions.
    **changes
        Any attribute of :class:`MatrixOptions` (``length=7``, ``engine="gnubg-nn"``, ...),
        applied over ``options``.

    Returns
    -------
    list of PositionAnalysis
        One per position, in order.

    Raises
    ------
    InvalidPositionError, InvalidIdError
        For a position that cannot be read or is finished.
    InvalidScoreError, InvalidParameterError
        For a bad length, cube life, cube, engine or an unknown option.
    UnknownTableError
        For an unknown MET name.
    EngineNotAvailableError
        For an engine that is not installed or does not cover a position.

    References
    ----------
    GNU Backgammon 1.07.001 eval.c (``Cl2CfMatch``, ``FindBestCubeDecision``).

    Examples
    --------
    >>> results = analyze_many(["4HPwATDgc/ABMA"], length=3,
    ...                        probabilities=[0.7, 0.2, 0.01, 0.05, 0.002])
    >>> len(results), results[0].length
    (1, 3)
    """
    opts = _options(options, changes)
    parsed = [as_position(p) for p in positions]
    for _, m in parsed:  # the score of every position is checked before any evaluation
        _length_and_current(opts.length, opts.money, m)
    ev = _evaluator(opts) if evaluations is None else None
    if ev is not None:
        evaluations = ev.evaluate_many([p for p, _ in parsed], [m for _, m in parsed])
    assert evaluations is not None
    rules = [_money_rules(raw, m, opts) for raw, (_, m) in zip(positions, parsed, strict=True)]
    batch = _Batch.of(parsed, list(evaluations), opts, rules)
    results = batch.matrices(as_met(opts.met), exact=opts.exact, progress=progress,
                             exact_options=(opts.exact_progress, opts.disk_cache))  # fmt: skip
    if isinstance(ev, CubefulEvaluator) and opts.cube_eval == "engine":
        _engine_cubeful(results, parsed, ev, rules)
    if opts.compare_met is not None and not opts.money:
        other = batch.matrices(as_met(opts.compare_met), exact=False, progress=None)
        for r, o in zip(results, other, strict=True):
            r.compare = o
    return results


def _evaluator(opts: MatrixOptions) -> Evaluator:
    """The options' engine, checked against the cube step asked for."""
    ev = opts.engine
    if isinstance(ev, str):
        ev = get_evaluator(ev, plies=opts.plies, probabilities=opts.probabilities)
    if opts.cube_eval == "engine" and not isinstance(ev, CubefulEvaluator):
        raise InvalidParameterError(
            f"cube_eval 'engine' (the engine's own cubeful evaluation) needs an engine that "
            f"takes its own cube decisions ({', '.join(engines('cubeful'))}), not {ev.name}"
        )
    if opts.cube_eval == "engine" and opts.compare_met is not None:
        raise InvalidParameterError(
            "compare_met goes with mathbg's cube step, not cube_eval 'engine'"
        )
    return ev


def _engine_cubeful(
    results: list[PositionAnalysis],
    parsed: list[tuple[Position, MatchState | None]],
    ev: CubefulEvaluator,
    rules: list[tuple[bool, bool]],
) -> None:
    """Replace every row's cube values by the engine's own cubeful evaluation at the row's
    score and cube state (one batch for all rows)."""
    settings = [[CubeSetting(r.length, r.away, r.crawford, r.cube, str(r.owner), *rule)
                 for r in an.rows] for an, rule in zip(results, rules, strict=True)]
    decisions = ev.cube_decisions([p for p, _ in parsed], settings)
    for an, decs in zip(results, decisions, strict=True):
        an.cube_eval, an.met = "engine", ev.cube_met
        for row, dec in zip(an.rows, decs, strict=True):
            allowed = (str(row.owner) != "opponent" if row.away is None else
                       may_double(row.away, row.cube, str(row.owner), crawford=row.crawford))
            action = dec.action if allowed else CubeAction.NOT_AVAILABLE
            none = action is CubeAction.NOT_AVAILABLE
            row.cube_eval, row.engine_action, row.action = "engine", dec.text, action
            row.met = ev.cube_met
            row.no_double, row.optimal = dec.no_double, dec.no_double if none else dec.optimal
            row.double_take, row.double_pass = (
                (_NAN, _NAN) if none else (dec.double_take, dec.double_pass)
            )
            row.emg_no_double = dec.emg_no_double
            row.emg_double_take = _NAN if none else dec.emg_double_take
            row.emg_double_pass = _NAN if none else dec.emg_double_pass
            row.cube_life = row.take_point = row.take_margin = _NAN
            if row.exact_action is not None:
                row.exact_differs = str(row.exact_action) != str(row.action)


@dataclass
class _Batch:
    """Positions, their evaluations and everything derived from them once."""

    parsed: list[tuple[Position, MatchState | None]]
    evaluations: list[Evaluation]
    options: MatrixOptions
    infos: list[_Info]
    probs: NDArray[np.float64]
    xs: NDArray[np.float64]
    two_sided: NDArray[np.bool_]
    ids: list[str]
    rules: list[tuple[bool, bool]]  # each position's money rules (Jacoby, beavers)

    @classmethod
    def of(
        cls,
        parsed: list[tuple[Position, MatchState | None]],
        evaluations: list[Evaluation],
        options: MatrixOptions,
        rules: list[tuple[bool, bool]] | None = None,
    ) -> _Batch:
        n = len(parsed)
        life = options.cube_life
        infos = [_length_and_current(options.length, options.money, m) for _, m in parsed]
        probs = np.array([e.probabilities for e in evaluations], dtype=np.float64).reshape(n, 5)
        xs = np.array([e.cube_life if life is None else float(life)
                       for e in evaluations], dtype=np.float64)  # fmt: skip
        two_sided = np.array([life is None and e.evaluation_class == "two-sided bearoff"
                              for e in evaluations], dtype=bool)  # fmt: skip
        ids = [p.id for p, _ in parsed]
        if rules is None:
            rules = [(options.jacoby, options.beavers)] * n
        return cls(parsed, evaluations, options, infos, probs, xs, two_sided, ids, rules)

    def matrices(
        self,
        met: MET,
        *,
        exact: bool,
        progress: Callable[[int], None] | None,
        exact_options: tuple[bool, bool] = (False, False),
    ) -> list[PositionAnalysis]:
        n = len(self.parsed)
        max_cube = self.options.max_cube
        exact_eval = ExactEvaluator()
        covered = [exact and exact_eval.covers(p) for p, _ in self.parsed]
        # group the positions by match length: one vectorised pass per state
        by_length: dict[int | None, list[int]] = {}
        for i, (ln, _, _) in enumerate(self.infos):
            by_length.setdefault(ln, []).append(i)
        group_states: dict[int | None, list[MatrixState]] = {}
        for ln, idx in by_length.items():
            states = [MatrixState(None, False, 1, CubeOwner.CENTRE)]
            if ln is not None:
                states += matrix_states(ln, max_cube)
            states += _current_states(states, [self.infos[i] for i in idx])
            group_states[ln] = states
        exact_rows = sum(len(group_states[self.infos[i][0]]) for i in range(n) if covered[i])
        bar = _ExactBar(exact_options, exact_rows)
        rows: list[list[MatrixRow]] = [[] for _ in range(n)]
        done = 0
        for ln, idx in by_length.items():
            states = group_states[ln]
            match_states = [st for st in states if st.away is not None]
            for start in range(0, len(idx), _CHUNK):
                chunk = idx[start : start + _CHUNK]
                block = None
                if match_states:
                    sel = np.array(chunk)
                    block = _match_block(self.probs[sel], self.xs[sel], met, match_states)
                for j_state, st in enumerate(states):
                    for k, i in enumerate(chunk):
                        row = self._row(i, st, met, ln, block, j_state - 1, k)
                        if covered[i]:
                            pos = self.parsed[i][0]
                            row.set_exact(_exact_decision(exact_eval, pos, met, st,
                                                          self.rules[i][1],
                                                          bar.disk_cache))  # fmt: skip
                            bar.step()
                        rows[i].append(row)
                done += len(chunk)
                if progress is not None:
                    progress(done)
        bar.close()
        return [PositionAnalysis(self.ids[i], self.evaluations[i], _met_name(met),
                                 self.infos[i][0], self.infos[i][1], rows[i],
                                 money_rules=self.rules[i])
                for i in range(n)]  # fmt: skip

    def rows_of(
        self,
        chunk: list[int],
        states: list[MatrixState],
        met: MET,
        lengths: list[int | None],
        take_points: bool,
    ) -> list[MatrixRow]:
        """Positions ``chunk``'s rows, each at its own state, in one vectorised block of
        the positions at a match state, each at its state only."""
        at_match = [k for k, st in enumerate(states) if st.away is not None]
        column = {k: col for col, k in enumerate(at_match)}
        block = None
        if at_match:
            sel = np.array([chunk[k] for k in at_match])
            block = _match_block(self.probs[sel], self.xs[sel], met,
                                 [states[k] for k in at_match], take_points, paired=True)
        return [self._row(i, st, met, lengths[i], block, 0, column.get(k, -1))
                for k, (i, st) in enumerate(zip(chunk, states, strict=True))]  # fmt: skip

    def _row(
        self, i: int, st: MatrixState, met: MET, length: int | None, block: _Block | None,
        j: int, k: int,
    ) -> MatrixRow:  # fmt: skip
        """Position ``i``'s row at state ``st`` (``block[j, k]`` for the match states)."""
        x = float(self.xs[i])
        if self.two_sided[i]:
            values, x = _two_sided_values(self.parsed[i][0], self.probs[i], met, st, x,
                                          *self.rules[i])  # fmt: skip
        elif st.away is None:
            values = _money_row(self.probs[i], x, *self.rules[i], str(st.owner))
        else:
            assert block is not None  # the money state comes first, then the match states
            values = block.values(j, k)
        current = _is_current(self.infos[i], st)
        ev = self.evaluations[i]
        row = MatrixRow(
            self.ids[i], ev.engine, ev.plies, _met_name(met), length,
            st.away, st.crawford, st.state, st.cube, st.owner, current,
            "equity" if st.away is None else "mwc", x,
            *(getattr(values, f.name) for f in fields(RowValues)),
        )  # fmt: skip
        if st.away is None:
            row.jacoby, row.beavers = self.rules[i]
        return row


def rows_at(
    positions: Sequence[Position],
    evaluations: Sequence[Evaluation],
    states: Sequence[MatrixState],
    met: MET | str = DEFAULT_MET,
    *,
    lengths: Sequence[int | None] | None = None,
    exact: bool = True,
    jacoby: bool = True,
    beavers: bool = True,
    disk_cache: bool = False,
    take_points: bool = True,
) -> list[MatrixRow]:
    """One matrix row per position, each at its own score and cube state.

    Parameters
    ----------
    positions : sequence of Position
        The positions, each seen by its side on roll.
    evaluations : sequence of Evaluation
        One engine evaluation per position.
    states : sequence of MatrixState
        One score and cube state per position, seen by the side on roll.
    met : MET or str, optional
        The match equity table (anything :func:`mathbg.met.as_met` takes).
    lengths : sequence of int or None, optional
        Fills the ``length`` column only.
    exact : bool, optional
        The exact solver's values beside the approximation where it covers a position.
    jacoby, beavers : bool, optional
        Money rules.
    disk_cache : bool, optional
        Cache the exact match solver's tables on disk.
    take_points : bool, optional
        ``False`` skips the take-point search (NaN; several times faster at match scores).

    Returns
    -------
    list of MatrixRow
        The same values as the row of that state in :func:`analyze_many`, without the rest
        of the matrix: positions that share a state are computed in one vectorised block.

    Raises
    ------
    InvalidParameterError
        When ``evaluations`` or ``states`` does not hold one item per position.

    Examples
    --------
    >>> from mathbg.rules import Position
    >>> from mathbg.rules.cube import CubeOwner
    >>> position = Position.from_id("4HPwATDgc/ABMA")
    >>> chances = get_evaluator("given", probabilities=[0.7, 0.2, 0.01, 0.05, 0.002])
    >>> state = MatrixState((3, 3), False, 1, CubeOwner.CENTRE)
    >>> [row] = rows_at([position], [chances.evaluate(position)], [state], exact=False)
    >>> row.state, row.away, str(row.action)
    ('normal', (3, 3), 'double, pass')
    >>> [round(float(v), 4) for v in (row.no_double, row.double_take, row.double_pass)]
    [0.5857, 0.6074, 0.5995]
    """
    n = len(positions)
    if len(evaluations) != n or len(states) != n:
        raise InvalidParameterError("rows_at needs one evaluation and one state per position")
    table = as_met(met)
    lens: list[int | None] = list(lengths) if lengths is not None else [None] * n
    options = MatrixOptions(money=True, jacoby=jacoby, beavers=beavers)  # no current state
    batch = _Batch.of([(p, None) for p in positions], list(evaluations), options)
    exact_eval = ExactEvaluator() if exact else None
    out: list[MatrixRow] = []
    # one vectorised block per chunk of positions, each at its own state (the cost of a
    # block is mostly per call, not per cell)
    for start in range(0, n, _PAIRED_CHUNK):
        chunk = list(range(start, min(n, start + _PAIRED_CHUNK)))
        out += batch.rows_of(chunk, [states[i] for i in chunk], table, lens, take_points)
    if exact_eval is not None:
        for i, row in enumerate(out):
            if exact_eval.covers(positions[i]):
                row.set_exact(_exact_decision(exact_eval, positions[i], table, states[i],
                                              beavers, disk_cache))  # fmt: skip
    return out


def _met_name(met: MET) -> str:
    name = getattr(met, "name", None)
    return str(name if name else met)


def _money_rules(raw: Any, match: MatchState | None, opts: MatrixOptions) -> tuple[bool, bool]:
    """The money row's rules for a position: the options', each turned off where a money ID
    says so (:func:`mathbg.rules.ids.money_rules`), as a rollout of the same ID plays them."""
    from mathbg.rules.ids import money_rules

    jacoby, beavers = money_rules(raw, match)
    return opts.jacoby and jacoby, opts.beavers and beavers


def _is_current(info: _Info, st: MatrixState) -> bool:
    """Whether ``st`` is the score and cube state of the position's Match ID / XGID (money
    play: the ID's cube state on the money row)."""
    length, current, cube_state = info
    if cube_state is None:
        return False
    if st.away is None:
        return current is None and length is None and (st.cube, st.owner) == cube_state
    return current is not None and (st.away, st.crawford) == current and (
        (st.cube, st.owner) == cube_state)


def _current_states(states: list[MatrixState], infos: list[_Info]) -> list[MatrixState]:
    """The Match IDs' current score and cube states that the matrix does not list (an
    opponent-owned cube, a cube above ``max_cube``; money play: a cube owned), so that the
    current row exists."""
    have = set(states)
    extra = []
    for length, current, cube_state in infos:
        if cube_state is None or (current is None and length is not None):
            continue
        if current is None:  # money play (the ID's or --money): the ID's cube state
            st = MatrixState(None, False, cube_state[0], cube_state[1])
        else:
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

#: Positions per paired block of :func:`rows_at` (each position at its own state: the
#: arrays grow with the positions only).
_PAIRED_CHUNK = 4096


@shared_sections(position_options=_POSITION_OPTIONS)
def analyze(
    position: Position | str,
    options: MatrixOptions | None = None,
    *,
    evaluation: Evaluation | None = None,
    **changes: Unpack[MatrixKeywords],
) -> PositionAnalysis:
    """The score matrix of one position.

    Parameters
    ----------
    {position_options}
    evaluation : Evaluation, optional
        Skip the engine: use this evaluation.
    **changes
        Any attribute of :class:`MatrixOptions`, applied over ``options``.

    Returns
    -------
    PositionAnalysis
        The rows at every score and cube state, money included.

    Raises
    ------
    MathbgError
        As :func:`analyze_many`.

    References
    ----------
    GNU Backgammon 1.07.001 eval.c (``Cl2CfMatch``, ``FindBestCubeDecision``).

    Examples
    --------
    >>> an = analyze("4HPwATDgc/ABMA", length=3, met="zadeh",
    ...              probabilities=[0.7, 0.2, 0.01, 0.05, 0.002])
    >>> an.met, an.rows[0].state, an.rows[1].away[0]
    ('zadeh', 'money', 1)
    """
    evaluations = None if evaluation is None else [evaluation]
    return analyze_many([position], options, evaluations=evaluations, **changes)[0]


@shared_sections(position_options=_POSITION_OPTIONS)
def position_matrix(
    position: Position | str,
    options: MatrixOptions | None = None,
    **changes: Unpack[MatrixKeywords],
) -> pd.DataFrame:
    """The tidy DataFrame of :func:`analyze` (one row per score and cube state).

    Parameters
    ----------
    {position_options}
    **changes
        Any attribute of :class:`MatrixOptions`, applied over ``options``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`COLUMNS`.

    Raises
    ------
    MathbgError
        As :func:`analyze_many`.

    Examples
    --------
    >>> df = position_matrix("4HPwATDgc/ABMA", money=True,
    ...                      probabilities=[0.7, 0.2, 0.01, 0.05, 0.002])
    >>> list(df["state"])
    ['money']
    """
    return analyze(position, options, **changes).to_frame()
