"""The cube half of a match audit: every cube decision at its score, judged and priced.

The decisions (:func:`cube_points`):

- **the roller's decisions** (``kind="double"``): every turn where the player about to
  roll had access to the cube (not the opening roll of a game, not the Crawford game, not
  the post-Crawford leader, not a dead cube, not a cube the opponent owns, a doubled
  cube within the match's cube limit), whether they doubled (``taken="double"``) or
  rolled on (``taken="no double"``);
- **the taker's decisions** (``kind="take"``): every double received, taken, passed or
  (money play) beavered.

For each, the engine's cubeless chances of the position before the roll turn into the
doubler's no double, double/take and double/pass values at the match score and cube state
with mathbg's match cube theory under the chosen MET (gnubg 1.07's 0-ply cubeless ->
cubeful transformation and its ``FindBestCubeDecision``:
:func:`mathbg.analysis.matrix.rows_at`, the same rows as ``mathbg analyze``), as match
winning chances (MWC) and as gnubg prints them, normalised to the cube (EMG, ``mwc2eq``).
An engine that answers with its own cubeful values (the ``gnubg`` program) gives them
instead. Where the exact bearoff match solver reaches (both sides in a 6 x 6 bearoff) its
exact values and action stand beside the approximation.

Judging a decision
------------------
The doubler's value of doubling is ``min(DT, DP)`` (the taker answers at their best).

- roller: best ``"double"`` when the action doubles (double/take or double/pass), else
  ``"no double"`` (no double, take; too good). Error = value(best) - value(taken).
- taker: best ``"take"`` when ``DT <= DP`` (the doubler gains less from the take),
  else ``"pass"``; error = ``|DT - DP|`` when the other was chosen. Money play with
  beavers, where gnubg's action says beaver: a beaver is worth ``2 DT`` to the doubler and
  is best when that is lowest (``"missed beaver"``, ``"wrong beaver"``).

Errors are losses of the deciding player, >= 0, in MWC (fractions of 1) and in EMG
(normalised to the current cube: the EMG scale is the same from either side, so the
taker's error in EMG is ``|EMG(DT) - EMG(DP)|``). Money sessions: equities per unit of
the cube; ``error_mwc`` does not apply.

Categories, as gnubg names them: ``"missed double"``, ``"wrong double"`` (``"wrong
double (too good)"`` when the position was too good to double: the player should have
played on for the gammon), ``"wrong take"``, ``"wrong pass"`` (money: ``"missed beaver"``,
``"wrong beaver"``); None for a right decision. A decision is an *error* when its EMG error
exceeds 1e-9 (float noise).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mathbg.analysis.matrix import MatrixRow, MatrixState, rows_at
from mathbg.cube.decisions import CubeDecision
from mathbg.errors import InvalidParameterError
from mathbg.rules.cube import CubeOwner

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.base import Evaluation, Evaluator
    from mathbg.met.table import MET
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position
    from mathbg.rules.record import Decision as RecordDecision
    from mathbg.rules.record import MatchRecord

__all__ = [
    "ERROR_TOLERANCE",
    "CubePoint",
    "DoublerValues",
    "cube_points",
    "evaluate_points",
    "given_values",
    "judge",
    "matrix_state",
    "value_points",
]

#: EMG errors at or below this are float noise, not errors.
ERROR_TOLERANCE = 1e-9


# ----------------------------------------------------------------------------- the values


@dataclass(frozen=True)
class DoublerValues:
    """The doubler's cube values at one decision.

    ``no_double``, ``double_take``, ``double_pass`` are MWC (match) or equities per unit
    cube (money); ``emg`` the same normalised to the cube as gnubg prints them;
    ``action`` the right action (:class:`mathbg.cube.CubeAction` text); ``take_point``
    the taker's take point (their cubeless winning chance) and ``take_margin`` their
    chance minus it (None when not computed); ``exact`` the exact bearoff solver's decision
    or None; ``probabilities`` the engine's cubeless chances of the roller.
    """

    action: str
    no_double: float
    double_take: float
    double_pass: float
    emg: tuple[float, float, float]
    take_point: float | None
    take_margin: float | None
    cube_life: float
    money: bool = False
    exact: CubeDecision | None = None
    probabilities: tuple[float, ...] = ()

    @classmethod
    def from_row(cls, row: MatrixRow, probabilities: Sequence[float] = ()) -> DoublerValues:
        """From a :func:`mathbg.analysis.matrix.rows_at` row."""
        exact = None
        if row.exact_action is not None:
            exact = CubeDecision(row.exact_action, float(row.exact_no_double),
                                 _num(row.exact_double_take), _num(row.exact_double_pass),
                                 float(row.exact_optimal), "mwc")  # fmt: skip
        return cls(
            action=str(row.action),
            no_double=float(row.no_double),
            double_take=float(row.double_take),
            double_pass=float(row.double_pass),
            emg=(float(row.emg_no_double), float(row.emg_double_take), float(row.emg_double_pass)),
            take_point=_num(row.take_point),
            take_margin=_num(row.take_margin),
            cube_life=float(row.cube_life),
            money=row.away is None,
            exact=exact,
            probabilities=tuple(float(v) for v in probabilities),
        )

    @property
    def doubles(self) -> bool:
        """Doubling is right (double/take or double/pass)."""
        return self.action.startswith("double")

    @property
    def too_good(self) -> bool:
        """Too good to double."""
        return self.action.startswith("too good")

    @property
    def optimal_emg(self) -> float:
        """The EMG of the right action (gnubg's ``arDouble[OUTPUT_OPTIMAL]``)."""
        nd, dt, dp = self.emg
        if dt >= nd and dp >= nd:
            return dp if dt >= dp else dt
        return nd


def _num(v: Any) -> float | None:
    if v is None:
        return None
    f = float(v)
    return None if f != f else f


def judge(values: DoublerValues, kind: str, taken: str) -> tuple[str, float, float, str | None]:
    """Best decision, error in the values' unit, error in EMG, and the category.

    Parameters
    ----------
    values : DoublerValues
        The doubler's values and the action.
    kind : {"double", "take"}
        The roller's decision or the taker's.
    taken : str
        ``"no double"`` / ``"double"`` (roller) or ``"take"`` / ``"pass"`` / ``"beaver"``.

    Returns
    -------
    (best, error, error_emg, category)
        ``error`` in the values' unit (MWC, or money equity), both >= 0.

    Raises
    ------
    InvalidParameterError
        For a ``kind`` or ``taken`` outside the lists above.

    Examples
    --------
    >>> values = DoublerValues("double, take", 0.55, 0.60, 0.70, (0.1, 0.2, 0.4), None,
    ...                        None, 0.68)
    >>> best, error, error_emg, category = judge(values, "double", "no double")
    >>> best, round(error, 4), round(error_emg, 4), category
    ('double', 0.05, 0.1, 'missed double')
    >>> best, error, error_emg, category = judge(values, "take", "pass")
    >>> best, round(error, 4), round(error_emg, 4), category
    ('take', 0.1, 0.2, 'wrong pass')
    """
    nd, dt, dp = values.no_double, values.double_take, values.double_pass
    end, edt, edp = values.emg
    action = values.action
    if kind == "double":
        if taken not in ("double", "no double"):
            raise InvalidParameterError(f"a roller's decision is 'double' or 'no double', "
                                        f"got {taken!r}")  # fmt: skip
        best = "double" if action.startswith("double") else "no double"
        value = {"no double": (nd, end), "double": (min(dt, dp), min(edt, edp))}
        err = value[best][0] - value[taken][0]
        err_emg = value[best][1] - value[taken][1]
        category = None
        if err_emg > ERROR_TOLERANCE:
            if taken == "no double":
                category = "missed double"
            else:
                category = "wrong double (too good)" if action.startswith("too good") \
                    else "wrong double"  # fmt: skip
        return best, max(err, 0.0), max(err_emg, 0.0), category
    if kind != "take" or taken not in ("take", "pass", "beaver"):
        raise InvalidParameterError(f"a taker's decision is 'take', 'pass' or 'beaver', "
                                    f"got {kind!r}/{taken!r}")  # fmt: skip
    # the doubler's value of each answer (money with beavers: a beaver doubles DT)
    options = {"take": (dt, edt), "pass": (dp, edp)}
    if "beaver" in action:
        options["beaver"] = (2.0 * dt, 2.0 * edt)
    best = min(options, key=lambda k: options[k][0])
    chose = taken if taken in options else "take"
    if chose == best:
        return best, 0.0, 0.0, None
    err = options[chose][0] - options[best][0]
    err_emg = options[chose][1] - options[best][1]
    category = None
    if err_emg > ERROR_TOLERANCE:
        category = {"take": "wrong take", "pass": "wrong pass", "beaver": "wrong beaver"}[chose]
        if best == "beaver" and chose == "take":
            category = "missed beaver"
    return best, max(err, 0.0), max(err_emg, 0.0), category


# ----------------------------------------------------------------------------- decisions


def matrix_state(match: MatchState, roller: int) -> MatrixState:
    """The score and cube state of ``match`` seen by ``roller`` (the matrix's row key).

    Parameters
    ----------
    match : MatchState
        The state.
    roller : int
        Who looks (0 or 1).

    Returns
    -------
    MatrixState
        The score, the cube and its owner from ``roller``'s side.

    Examples
    --------
    >>> from mathbg.rules.match import MatchState
    >>> matrix_state(MatchState(length=5, score=(1, 3)), 1).away
    (2, 4)
    """
    owner = CubeOwner.of(match.cube_owner, roller)
    if match.length == 0:
        return MatrixState(None, False, match.cube, owner)
    away = (match.length - match.score[roller], match.length - match.score[1 - roller])
    crawford = bool(match.crawford) and (away[0] == 1) != (away[1] == 1)
    return MatrixState(away, crawford, match.cube, owner)


@dataclass(frozen=True)
class CubePoint:
    """A cube decision found in the replay, before it is valued: who decided
    (``player``), who was on roll (``roller``, the doubler), the position and match state
    before the roll, the IDs gnubg prints, the kind of decision and what was done."""

    game: int
    move: int
    player: int
    roller: int
    position: Position
    match: MatchState
    position_id: str
    match_id: str
    kind: str
    taken: str


def cube_points(
    record: MatchRecord, *, decisions: Sequence[RecordDecision] | None = None
) -> list[CubePoint]:
    """The cube decisions of ``record`` in order (see the module notes).

    Parameters
    ----------
    record : MatchRecord
        The match.
    decisions : sequence of Decision, optional
        The record's checked replay (``list(record.replay())``) when the caller has it;
        default: replayed here.

    Returns
    -------
    list of CubePoint
        Every point where a side could double or had to answer, game by game.

    Examples
    --------
    >>> from mathbg.rules.formats.example import example_match
    >>> [(p.game, p.kind, p.taken) for p in cube_points(example_match())][:3]
    [(1, 'double', 'no double'), (1, 'double', 'no double'), (1, 'double', 'no double')]
    """
    from mathbg.rules.record import Beaver, Double, Move, Pass, Take

    limit = record.rules.cube_limit
    out: list[CubePoint] = []
    last_double: RecordDecision | None = None
    prev: Any = None
    prev_game = None
    for d in record.replay() if decisions is None else decisions:
        a = d.action
        if d.game != prev_game:
            prev, prev_game, last_double = None, d.game, None
        if isinstance(a, Move):
            follows_double = isinstance(prev, (Take, Beaver))
            if prev is not None and not follows_double and d.match.cube_available(d.player, limit):
                out.append(CubePoint(d.game, d.move, d.player, d.player, d.position, d.match,
                                     d.position_id, d.before_roll.id, "double",
                                     "no double"))  # fmt: skip
        elif isinstance(a, Double):
            last_double = d
            if d.match.cube_available(d.player, limit):
                out.append(CubePoint(d.game, d.move, d.player, d.player, d.position, d.match,
                                     d.position_id, d.before_roll.id, "double",
                                     "double"))  # fmt: skip
        elif isinstance(a, (Take, Pass, Beaver)) and last_double is not None:
            if last_double.match.cube_available(last_double.player, limit):
                taken = "take" if isinstance(a, Take) else "pass" if isinstance(a, Pass) \
                    else "beaver"  # fmt: skip
                out.append(CubePoint(d.game, d.move, d.player, last_double.player,
                                     last_double.position, last_double.match,
                                     last_double.position_id, d.match_id, "take",
                                     taken))  # fmt: skip
        prev = a
    return out


def evaluate_points(points: Sequence[CubePoint], evaluator: Evaluator) -> list[Evaluation]:
    """The engine's chances of each point's position (each position evaluated once).

    Parameters
    ----------
    points : sequence of CubePoint
        The decisions.
    evaluator : Evaluator
        The engine.

    Returns
    -------
    list of Evaluation
        The roller's chances at each point, in order.

    Examples
    --------
    >>> from mathbg.analysis import get_evaluator
    >>> from mathbg.rules.formats.example import example_match
    >>> points = cube_points(example_match())
    >>> given = get_evaluator("given", probabilities=[0.6, 0.1, 0.0, 0.1, 0.0])
    >>> len(evaluate_points(points, given)) == len(points)
    True
    """
    uniq: dict[str, int] = {}
    pos: list[Position] = []
    states: list[MatchState | None] = []
    for p in points:
        if p.position.id not in uniq:
            uniq[p.position.id] = len(pos)
            pos.append(p.position)
            states.append(p.match)
    evs = evaluator.evaluate_many(pos, states) if pos else []
    return [evs[uniq[p.position.id]] for p in points]


def value_points(
    points: Sequence[CubePoint],
    evaluations: Sequence[Evaluation],
    met: MET,
    *,
    exact: bool = True,
    jacoby: bool = False,
    beavers: bool = False,
    take_points: bool = True,
    disk_cache: bool = False,
    two_sided: Callable[[], Any] | None = None,
) -> list[DoublerValues]:
    """The doubler's :class:`DoublerValues` at each decision point (shared positions valued
    once).

    Parameters
    ----------
    points : sequence of CubePoint
        The decisions.
    evaluations : sequence of Evaluation
        The engine's chances of each point's position.
    met : MET
        The match equity table.
    exact : bool, optional
        The exact bearoff solver's values beside, where it reaches.
    jacoby, beavers : bool, optional
        Money rules.
    take_points : bool, optional
        Compute the taker's take point (slower).
    disk_cache : bool, optional
        Keep the exact solver's solutions in mathbg's cache directory.
    two_sided : callable, optional
        Returns the two-sided database the engine's cube lives there are backed out of
        (called only when a decision is inside it; None: those keep the double-precision
        values).

    Returns
    -------
    list of DoublerValues

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> from mathbg.analysis import get_evaluator
    >>> from mathbg.rules.formats.example import example_match
    >>> points = cube_points(example_match())[:1]
    >>> given = get_evaluator("given", probabilities=[0.7, 0.2, 0.0, 0.05, 0.0])
    >>> v, = value_points(points, evaluate_points(points, given), as_met("kazaross-xg2"),
    ...                   exact=False, take_points=False)
    >>> v.action
    'double, pass'
    """
    keys: dict[tuple[str, MatrixState], int] = {}
    uniq_pos: list[Position] = []
    uniq_ev: list[Evaluation] = []
    uniq_st: list[MatrixState] = []
    lengths: list[int | None] = []
    index = []
    for p, ev in zip(points, evaluations, strict=True):
        st = matrix_state(p.match, p.roller)
        key = (p.position.id, st)
        if key not in keys:
            keys[key] = len(uniq_pos)
            uniq_pos.append(p.position)
            uniq_ev.append(ev)
            uniq_st.append(st)
            lengths.append(p.match.length or None)
        index.append(keys[key])
    rows = rows_at(uniq_pos, uniq_ev, uniq_st, met, lengths=lengths, exact=exact,
                   jacoby=jacoby, beavers=beavers, take_points=take_points,
                   disk_cache=disk_cache)  # fmt: skip
    values = [DoublerValues.from_row(r, ev.probabilities)
              for r, ev in zip(rows, uniq_ev, strict=True)]  # fmt: skip
    single: dict[tuple[int, int], DoublerValues] = {}
    scored: dict[tuple[int, int], CubePoint] = {}
    for p, i in zip(points, index, strict=True):
        at = (i, p.roller)
        if p.match.length:
            scored.setdefault(at, p)
        elif two_sided is not None and at not in single:
            single[at] = _money_two_sided(values[i], p, two_sided, beavers)
    ats = list(scored)
    single.update(zip(ats, _in_single([values[i] for i, _ in ats], list(scored.values()), met,
                                      two_sided), strict=True))  # fmt: skip
    return [single.get((i, p.roller), values[i]) for p, i in zip(points, index, strict=True)]


def _money_two_sided(
    v: DoublerValues, p: CubePoint, two_sided: Callable[[], Any], beavers: bool
) -> DoublerValues:
    """A money decision inside the two-sided database as gnubg values it: the database's
    cubeful equities of the engine's own table (gnubg's 16-bit file: ``BearoffCubeful``'s
    single precision), no double the cube owner's column, double/take twice the taker's;
    ``v`` as it is elsewhere."""
    import dataclasses

    import numpy as np

    from mathbg.analysis.match_audit import single
    from mathbg.analysis.match_audit.plays import board_classes
    from mathbg.cube.decisions import classify

    cells = np.frombuffer(p.position.cells, dtype=np.uint8)[None]
    if int(board_classes(cells)[0][0]) != 4:
        return v
    db = two_sided()
    if getattr(db, "dtype", None) != "u16":  # the exact database: the values already are
        return v
    eq = single.table_equities(db, cells)[0]
    column = {CubeOwner.PLAYER: 1, CubeOwner.CENTRE: 2, CubeOwner.OPPONENT: 3}
    nd = float(eq[column[CubeOwner.of(p.match.cube_owner, p.roller)]])
    dt = float(np.float32(2.0) * eq[3])
    action = classify(nd, dt, 1.0, can_gammon=False, beavers=beavers, money=True)
    return dataclasses.replace(v, action=str(action), no_double=nd, double_take=dt,
                               double_pass=1.0, emg=(nd, dt, 1.0))


def _in_single(
    vs: Sequence[DoublerValues], ps: Sequence[CubePoint], met: MET,
    two_sided: Callable[[], Any] | None,
) -> list[DoublerValues]:  # fmt: skip
    """Each ``v``'s no double, double/take and double/pass at its point ``p`` in gnubg's
    single precision (:func:`~mathbg.analysis.match_audit.plays.single_cube_values`: its
    0-ply cube analysis, ``FindCubeDecision``, to the bit given the same chances), all
    points in one call; inside the two-sided database the chance and the cube lives are
    gnubg's from the database's values (``v`` as it is without one)."""
    import dataclasses

    import numpy as np

    from mathbg.analysis.match_audit import single
    from mathbg.analysis.match_audit.plays import (
        board_classes,
        single_cube_lives,
        single_cube_values,
        two_sided_single,
    )
    from mathbg.analysis.match_audit.turns import score_states
    from mathbg.cube.decisions import classify

    if not ps:
        return []
    cells = np.array([np.frombuffer(p.position.cells, dtype=np.uint8) for p in ps],
                     dtype=np.uint8).reshape(-1, 50)  # fmt: skip
    classes, pips = board_classes(cells)
    x = single_cube_lives(classes, pips)
    x_dt = x.copy()
    probs = np.array([v.probabilities for v in vs], dtype=np.float64).astype(np.float32)
    # the two-sided database: gnubg's chance and lives from its values (none: kept as is)
    keep = np.isnan(x) if two_sided is None else np.zeros(len(ps), dtype=bool)
    if two_sided is not None and np.isnan(x).any():
        states = score_states([p.match for p in ps], [p.roller for p in ps])
        two_sided_single(cells, classes, states, two_sided(), probs, (x, x_dt))
    rollers = [single.match_cube_info(p.match, p.roller) for p in ps]
    values = single_cube_values(probs, (x, x_dt), rollers, met)
    nd, dt, dp, nd_emg, dt_emg, dp_emg = (a.tolist() for a in values)
    out = list(vs)
    for k, v in enumerate(vs):
        if keep[k]:
            continue
        gammons = len(v.probabilities) > 1 and float(v.probabilities[1]) > 0.0
        action = classify(nd[k], dt[k], dp[k], can_gammon=gammons, money=False)
        out[k] = dataclasses.replace(v, action=str(action), no_double=nd[k],
                                     double_take=dt[k], double_pass=dp[k],
                                     emg=(nd_emg[k], dt_emg[k], dp_emg[k]))  # fmt: skip
    return out


def given_values(
    points: Sequence[CubePoint], own: Sequence[tuple[Sequence[float], float, float]], met: MET
) -> list[DoublerValues]:
    """Values from an engine's own cubeful evaluation (the gnubg program's ``analyse
    match``): per point the roller's chances and their no double and double/take values
    (MWC; money: equities, double/take per unit of the current cube); the action and EMG
    follow gnubg's rules (:func:`mathbg.cube.decisions.classify`, ``mwc2eq``).

    Parameters
    ----------
    points : sequence of CubePoint
        The decisions.
    own : sequence of (chances, no double, double/take)
        The engine's values of each.
    met : MET
        The match equity table (the double/pass value, the EMG).

    Returns
    -------
    list of DoublerValues
        One per point, in the order given.

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> from mathbg.rules.formats.example import example_match
    >>> points = cube_points(example_match())[:1]
    >>> [v.action for v in given_values(points, [([0.5, 0, 0, 0, 0], 0.5, 0.45)],
    ...                                 as_met("kazaross-xg2"))]
    ['no double, take']
    """
    import numpy as np

    from mathbg.analysis.match_audit.equity import scale_of
    from mathbg.cube.cubeful import emg
    from mathbg.cube.decisions import classify

    out = []
    for p, (probs, nd, dt) in zip(points, own, strict=True):
        st = matrix_state(p.match, p.roller)
        can_gammon = len(probs) > 1 and float(probs[1]) > 0.0
        if st.away is None:
            dp = 1.0
            action = classify(nd, dt, dp, can_gammon=can_gammon, money=True)
            out.append(DoublerValues(str(action), nd, dt, dp, (nd, dt, dp), None, None, 0.0,
                                     True, None, tuple(probs)))  # fmt: skip
            continue
        a, b = st.away
        wl = scale_of(met, p.match, p.roller)
        dp = wl[0] if wl is not None else 1.0
        action = classify(nd, dt, dp, can_gammon=can_gammon, money=False)
        e = tuple(float(x) for x in np.ravel(emg([nd, dt, dp], met, (a, b), st.cube,
                                                 crawford=st.crawford, undefined="nan")))
        out.append(DoublerValues(str(action), nd, dt, dp, e, None, None, 0.0,  # type: ignore[arg-type]
                                 False, None, tuple(probs)))  # fmt: skip
    return out

