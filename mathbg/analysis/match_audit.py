"""The cube audit of a real match: every cube decision at its score, judged and priced.

:func:`audit` replays a match record (:class:`mathbg.rules.record.MatchRecord`, or a
match file) and audits every cube decision in it:

- **the roller's decisions** (``kind="double"``): every turn where the player about to
  roll had access to the cube (not the opening roll of a game, not the Crawford game, not
  the post-Crawford leader, not a dead cube, not a cube the opponent owns, a doubled
  cube within the match's cube limit), whether they doubled (``taken="double"``) or
  rolled on (``taken="no double"``);
- **the taker's decisions** (``kind="take"``): every double received, taken, passed or
  (money play) beavered.

For each, the engine's cubeless chances of the position before the roll
(:func:`mathbg.analysis.get_evaluator`: ``auto``, ``exact``, ``race``, ``gnubg-nn``,
``gnubg``) turn into the doubler's no double, double/take and double/pass values at the
match score and cube state with mathbg's match cube theory under the chosen MET (gnubg
1.07's 0-ply cubeless -> cubeful transformation and its ``FindBestCubeDecision``:
:func:`mathbg.analysis.matrix.rows_at`, the same rows as ``mathbg analyze``), as match
winning chances (MWC) and as gnubg prints them, normalised to the cube (EMG,
``mwc2eq``). Where the exact bearoff match solver reaches (both sides in a 6 x 6
bearoff) its exact values and action stand beside the approximation.

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
``"wrong beaver"``); None for a right decision.
A decision is an *error* when its EMG error exceeds 1e-9 (float noise).

Totals and the error rate
-------------------------
Per player and per match: ``decisions`` (both kinds), ``errors``, ``mwc_lost`` (sum of
the MWC errors), ``emg_lost`` and ``error_rate`` = 1000 x ``emg_lost`` / ``decisions``,
millipoints (mEMG) per cube decision. gnubg's "cube error rate" divides the same EMG sum by
its *close* cube decisions only (so it reads higher: most turns are not close), and XG's PR
is 500 x the mean EMG error over its non-obvious decisions (half the scale, fewer
decisions). The definition here counts every decision audited, so it is lower than
both; compare players with the same definition.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mathbg._output import FrameMixin
from mathbg.analysis.evaluation import Evaluation, Evaluator
from mathbg.analysis.matrix import DEFAULT_MET, MatrixRow, MatrixState, rows_at
from mathbg.analysis.registry import get_evaluator
from mathbg.errors import InvalidParameterError
from mathbg.rules.cube import CubeOwner

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position
    from mathbg.rules.record import Decision as RecordDecision
    from mathbg.rules.record import MatchRecord

__all__ = [
    "DECISION_COLUMNS",
    "ERROR_TOLERANCE",
    "AuditResult",
    "AuditedDecision",
    "CubeValues",
    "MatchAudit",
    "audit",
    "judge",
]

#: EMG errors at or below this are float noise, not errors.
ERROR_TOLERANCE = 1e-9

#: Columns of :meth:`AuditResult.to_frame` (one row per decision), in order.
DECISION_COLUMNS: tuple[str, ...] = (
    "file", "game", "move", "player", "position_id", "match_id", "away", "opp_away", "cube",
    "owner", "crawford", "kind", "taken", "best", "action", "no_double", "double_take",
    "double_pass", "emg_no_double", "emg_double_take", "emg_double_pass", "error_mwc",
    "error_emg", "category", "take_point", "take_margin", "cube_life", "engine", "plies",
    "met", "exact_action", "exact_no_double", "exact_double_take", "exact_double_pass",
    "exact_best", "exact_error_mwc",
)  # fmt: skip


# ----------------------------------------------------------------------------- the values


@dataclass(frozen=True)
class CubeValues(FrameMixin):
    """The doubler's cube values at one decision (a row of :func:`rows_at`).

    ``no_double``, ``double_take``, ``double_pass`` are MWC (match) or equities per unit
    cube (money); ``emg`` the same normalised to the cube as gnubg prints them;
    ``action`` the right action (:class:`mathbg.cube.CubeAction` text); ``take_point``
    the taker's take point (their cubeless winning chance) and ``take_margin`` their
    chance minus it; ``exact`` the exact bearoff solver's values (``action``,
    ``no_double``, ``double_take``, ``double_pass``) or None.
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
    exact: dict[str, Any] | None = None

    @classmethod
    def from_row(cls, row: MatrixRow) -> CubeValues:
        """From a :func:`rows_at` row."""
        exact = None
        if row.exact_action is not None:
            exact = {"action": str(row.exact_action),
                     "no_double": _num(row.exact_no_double),
                     "double_take": _num(row.exact_double_take),
                     "double_pass": _num(row.exact_double_pass)}  # fmt: skip
        return cls(
            action=str(row.action),
            no_double=float(row.no_double),
            double_take=float(row.double_take),
            double_pass=float(row.double_pass),
            emg=(
                float(row.emg_no_double),
                float(row.emg_double_take),
                float(row.emg_double_pass),
            ),
            take_point=_num(row.take_point),
            take_margin=_num(row.take_margin),
            cube_life=float(row.cube_life),
            money=row.away is None,
            exact=exact,
        )

    @property
    def doubles(self) -> bool:
        """Doubling is right (double/take or double/pass)."""
        return self.action.startswith("double")

    @property
    def too_good(self) -> bool:
        """Too good to double."""
        return self.action.startswith("too good")


def _num(v: Any) -> float | None:
    if v is None:
        return None
    f = float(v)
    return None if f != f else f


def judge(
    values: Any, kind: str, taken: str
) -> tuple[str, float, float, str | None]:
    """Best decision, error in the values' unit, error in EMG, and the category.

    Parameters
    ----------
    values : CubeValues or dict
        The doubler's ``no_double``, ``double_take``, ``double_pass``, ``emg`` (3 values)
        and ``action``; a dict needs the same keys.
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
    >>> values = {"no_double": 0.55, "double_take": 0.60, "double_pass": 0.70,
    ...           "emg": (0.1, 0.2, 0.4), "action": "double, take"}
    >>> best, error, error_emg, category = judge(values, "double", "no double")
    >>> best, round(error, 4), round(error_emg, 4), category
    ('double', 0.05, 0.1, 'missed double')
    >>> best, error, error_emg, category = judge(values, "take", "pass")
    >>> best, round(error, 4), round(error_emg, 4), category
    ('take', 0.1, 0.2, 'wrong pass')
    """
    def get(key: str) -> Any:
        return values[key] if isinstance(values, dict) else getattr(values, key)

    nd, dt, dp = float(get("no_double")), float(get("double_take")), float(get("double_pass"))
    end, edt, edp = (float(v) for v in get("emg"))
    action = str(get("action"))
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


# ----------------------------------------------------------------------------- the cube


def _state(match: MatchState, roller: int) -> MatrixState:
    owner = CubeOwner.of(match.cube_owner, roller)
    if match.length == 0:
        return MatrixState(None, False, match.cube, owner)
    away = (match.length - match.score[roller], match.length - match.score[1 - roller])
    crawford = bool(match.crawford) and (away[0] == 1) != (away[1] == 1)
    return MatrixState(away, crawford, match.cube, owner)


# ----------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class _Point:
    """A cube decision found in the replay, before it is valued."""

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


def cube_points(record: MatchRecord) -> list[_Point]:
    """The cube decisions of ``record`` in order (see the module notes)."""
    from mathbg.rules.record import Beaver, Double, Move, Pass, Take

    limit = record.rules.cube_limit
    out: list[_Point] = []
    last_double: RecordDecision | None = None
    prev: Any = None
    prev_game = None
    for d in record.replay():
        a = d.action
        if d.game != prev_game:
            prev, prev_game, last_double = None, d.game, None
        if isinstance(a, Move):
            follows_double = isinstance(prev, (Take, Beaver))
            if prev is not None and not follows_double and d.match.cube_available(d.player, limit):
                out.append(_Point(d.game, d.move, d.player, d.player, d.position, d.match,
                                  d.position_id, d.before_roll.id, "double",
                                  "no double"))  # fmt: skip
        elif isinstance(a, Double):
            last_double = d
            if d.match.cube_available(d.player, limit):
                out.append(_Point(d.game, d.move, d.player, d.player, d.position, d.match,
                                  d.position_id, d.before_roll.id, "double",
                                  "double"))  # fmt: skip
        elif isinstance(a, (Take, Pass, Beaver)) and last_double is not None:
            if last_double.match.cube_available(last_double.player, limit):
                taken = "take" if isinstance(a, Take) else "pass" if isinstance(a, Pass) \
                    else "beaver"  # fmt: skip
                out.append(_Point(d.game, d.move, d.player, last_double.player,
                                  last_double.position, last_double.match,
                                  last_double.position_id, d.match_id, "take", taken))  # fmt: skip
        prev = a
    return out


# ----------------------------------------------------------------------------- results


@dataclass(frozen=True)
class AuditedDecision:
    """One audited cube decision (a row of :meth:`AuditResult.to_frame`).

    ``away`` and ``owner`` are seen by the roller (the doubler), as are the values and the
    IDs; ``player`` is the player who decided (the roller, or the taker).
    """

    game: int
    move: int
    player: str
    position_id: str
    match_id: str
    away: tuple[int, int] | None
    cube: int
    owner: str
    crawford: bool
    kind: str
    taken: str
    best: str
    values: CubeValues
    error_mwc: float | None
    error_emg: float
    category: str | None
    exact_best: str | None = None
    exact_error_mwc: float | None = None

    @property
    def is_error(self) -> bool:
        return self.error_emg > ERROR_TOLERANCE

    def as_dict(self) -> dict[str, Any]:
        """The JSON object of one decision (the issue's schema)."""
        exact = None
        if self.values.exact is not None:
            exact = dict(self.values.exact, best=self.exact_best,
                         error_mwc=self.exact_error_mwc)  # fmt: skip
        e = self.values.emg
        return {
            "game": self.game, "move": self.move, "player": self.player,
            "position_id": self.position_id, "match_id": self.match_id,
            "away": None if self.away is None else list(self.away), "cube": self.cube,
            "owner": self.owner, "kind": self.kind, "taken": self.taken, "best": self.best,
            "equities": {"no_double": e[0], "double_take": e[1], "double_pass": e[2]},
            "error_emg": self.error_emg, "error_mwc": self.error_mwc,
            "category": self.category, "exact": exact,
        }  # fmt: skip

    def row(self, file: str | None, engine: dict[str, Any], met: str) -> dict[str, Any]:
        v, ex = self.values, self.values.exact or {}
        return {
            "file": file, "game": self.game, "move": self.move, "player": self.player,
            "position_id": self.position_id, "match_id": self.match_id,
            "away": None if self.away is None else self.away[0],
            "opp_away": None if self.away is None else self.away[1], "cube": self.cube,
            "owner": self.owner, "crawford": self.crawford, "kind": self.kind,
            "taken": self.taken, "best": self.best, "action": v.action,
            "no_double": v.no_double, "double_take": v.double_take,
            "double_pass": v.double_pass, "emg_no_double": v.emg[0],
            "emg_double_take": v.emg[1], "emg_double_pass": v.emg[2],
            "error_mwc": self.error_mwc, "error_emg": self.error_emg,
            "category": self.category, "take_point": v.take_point,
            "take_margin": v.take_margin, "cube_life": v.cube_life,
            "engine": engine["name"], "plies": engine["plies"], "met": met,
            "exact_action": ex.get("action"), "exact_no_double": ex.get("no_double"),
            "exact_double_take": ex.get("double_take"),
            "exact_double_pass": ex.get("double_pass"), "exact_best": self.exact_best,
            "exact_error_mwc": self.exact_error_mwc,
        }  # fmt: skip


def _totals(decisions: Iterable[AuditedDecision]) -> dict[str, Any]:
    ds = list(decisions)
    n = len(ds)
    emg = sum(d.error_emg for d in ds)
    mwc = [d.error_mwc for d in ds if d.error_mwc is not None]
    return {"decisions": n, "errors": sum(d.is_error for d in ds),
            "mwc_lost": sum(mwc) if len(mwc) == n and n else (None if n else 0.0),
            "emg_lost": emg, "error_rate": 1000.0 * emg / n if n else None}  # fmt: skip


@dataclass
class MatchAudit:
    """The audit of one match: its games, its decisions and the totals per player.

    ``compare`` holds, under a second MET, the decisions whose verdict (best decision or
    category) changes: dicts with ``game``, ``move``, ``player``, ``kind``, ``taken``,
    ``best``, ``compare_best``, ``category``, ``compare_category``, ``error_emg``,
    ``compare_error_emg``.
    """

    file: str | None
    length: int
    players: tuple[str, str]
    rules: dict[str, Any]
    engine: dict[str, Any]
    met: str
    games: list[dict[str, Any]]
    decisions: list[AuditedDecision]
    compare_met: str | None = None
    compare: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, dict[str, Any]]:
        """Totals per player (see the module notes), players in the record's order."""
        return {name: _totals(d for d in self.decisions if d.player == name)
                for name in self.players}  # fmt: skip

    def totals(self) -> dict[str, Any]:
        """Totals over both players."""
        return _totals(self.decisions)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "file": self.file, "length": self.length, "players": list(self.players),
            "rules": self.rules, "engine": self.engine, "met": self.met, "games": self.games,
            "decisions": [d.as_dict() for d in self.decisions], "summary": self.summary(),
            "totals": self.totals(),
        }  # fmt: skip
        if self.compare_met is not None:
            out["compare"] = {"met": self.compare_met, "changes": self.compare}
        return out

    def rows(self) -> list[dict[str, Any]]:
        return [d.row(self.file, self.engine, self.met) for d in self.decisions]


@dataclass
class AuditResult(FrameMixin):
    """The audit of one or more matches (:func:`audit`).

    :meth:`to_frame`: one row per decision (columns :data:`DECISION_COLUMNS`);
    :meth:`summary_frame`: totals per match and player; :meth:`as_dict`: the JSON of
    ``mathbg audit --json``.
    """

    matches: list[MatchAudit]

    FRAME_PARTS: ClassVar[dict[str, tuple[str, ...]]] = {}

    def to_frame(self) -> pd.DataFrame:
        import pandas as pd

        rows = [r for m in self.matches for r in m.rows()]
        return pd.DataFrame(rows, columns=list(DECISION_COLUMNS))

    def summary_frame(self) -> pd.DataFrame:
        """Totals per match and player (``player`` None: both players)."""
        import pandas as pd

        rows = []
        for m in self.matches:
            for name, t in m.summary().items():
                rows.append({"file": m.file, "player": name, **t})
            rows.append({"file": m.file, "player": None, **m.totals()})
        return pd.DataFrame(rows)

    def as_dict(self) -> dict[str, Any]:
        return {"matches": [m.as_dict() for m in self.matches]}

    @property
    def decisions(self) -> list[AuditedDecision]:
        return [d for m in self.matches for d in m.decisions]


# ----------------------------------------------------------------------------- the audit


def _load(record_or_path: Any) -> MatchRecord:
    from mathbg.rules.formats import read_match
    from mathbg.rules.record import MatchRecord

    if isinstance(record_or_path, MatchRecord):
        return record_or_path
    if isinstance(record_or_path, (str, os.PathLike, bytes)):
        return read_match(record_or_path)
    raise InvalidParameterError(
        f"audit takes a MatchRecord or a match file path, got {type(record_or_path).__name__}"
    )


def _games(record: MatchRecord) -> list[dict[str, Any]]:
    out = []
    for g in record.games:
        r = g.result
        out.append({"game": g.number, "score": list(g.score),
                    "winner": None if r is None else record.players[r.winner],
                    "points": None if r is None else r.points,
                    "result": None if r is None else r.kind,
                    "cube": None if r is None else r.cube})  # fmt: skip
    return out


def _rules(record: MatchRecord) -> dict[str, Any]:
    r = record.rules
    return {"crawford": r.crawford, "jacoby": r.jacoby, "beavers": r.beavers,
            "cube_limit": r.cube_limit, "variant": r.variant}  # fmt: skip


def _met_name(met: Any) -> str:
    name = getattr(met, "name", None)
    return str(name if name else met)


def value_points(
    points: Sequence[Any],
    evaluations: Sequence[Evaluation],
    met: Any,
    *,
    exact: bool = True,
    jacoby: bool = False,
    beavers: bool = False,
    take_points: bool = True,
) -> list[CubeValues]:
    """The doubler's :class:`CubeValues` at each decision point (shared positions valued
    once)."""
    keys: dict[tuple[str, MatrixState], int] = {}
    uniq_pos: list[Position] = []
    uniq_ev: list[Evaluation] = []
    uniq_st: list[MatrixState] = []
    lengths: list[int | None] = []
    index = []
    for p, ev in zip(points, evaluations, strict=True):
        st = _state(p.match, p.roller)
        key = (p.position.id, st)
        if key not in keys:
            keys[key] = len(uniq_pos)
            uniq_pos.append(p.position)
            uniq_ev.append(ev)
            uniq_st.append(st)
            lengths.append(p.match.length or None)
        index.append(keys[key])
    rows = rows_at(uniq_pos, uniq_ev, uniq_st, met, lengths=lengths, exact=exact,
                   jacoby=jacoby, beavers=beavers, take_points=take_points)  # fmt: skip
    values = [CubeValues.from_row(r) for r in rows]
    return [values[i] for i in index]


def _evaluate(points: Sequence[_Point], evaluator: Evaluator) -> list[Evaluation]:
    uniq: dict[str, int] = {}
    pos: list[Position] = []
    states: list[MatchState] = []
    for p in points:
        if p.position.id not in uniq:
            uniq[p.position.id] = len(pos)
            pos.append(p.position)
            states.append(p.match)
    evs = evaluator.evaluate_many(pos, states) if pos else []
    return [evs[uniq[p.position.id]] for p in points]


def _audit_one(
    record: MatchRecord,
    evaluator: Evaluator,
    met: Any,
    compare_met: Any,
    player: str | None,
    exact: bool,
    take_points: bool = True,
) -> MatchAudit:
    points = cube_points(record)
    if player is not None:
        points = [p for p in points if record.players[p.player].lower() == player.lower()]
    evaluations = _evaluate(points, evaluator)
    r = record.rules
    values = value_points(points, evaluations, met, exact=exact, jacoby=r.jacoby,
                          beavers=r.beavers, take_points=take_points)  # fmt: skip
    decisions = []
    for p, v in zip(points, values, strict=True):
        best, err, err_emg, category = judge(v, p.kind, p.taken)
        exact_best = exact_err = None
        if v.exact is not None and not v.money:
            ex = {"no_double": v.exact["no_double"], "double_take": v.exact["double_take"],
                  "double_pass": v.exact["double_pass"], "action": v.exact["action"],
                  "emg": (0.0, 0.0, 0.0)}  # fmt: skip
            if ex["double_take"] is not None:
                exact_best, exact_err, _, _ = judge(ex, p.kind, p.taken)
        st = _state(p.match, p.roller)
        decisions.append(AuditedDecision(
            p.game, p.move, record.players[p.player], p.position_id, p.match_id, st.away,
            p.match.cube, str(st.owner), st.crawford, p.kind, p.taken, best, v,
            None if v.money else err, err_emg if not v.money else err, category,
            exact_best, exact_err))  # fmt: skip
    ev0 = evaluations[0] if evaluations else None
    engine = {"name": getattr(evaluator, "name", str(evaluator)),
              "plies": ev0.plies if ev0 is not None else getattr(evaluator, "plies", None)}
    result = MatchAudit(record.source, record.length, record.players, _rules(record),
                        engine, _met_name(met), _games(record), decisions)  # fmt: skip
    if compare_met is not None:
        result.compare_met = _met_name(compare_met)
        other = value_points(points, evaluations, compare_met, exact=False, jacoby=r.jacoby,
                             beavers=r.beavers, take_points=False)  # fmt: skip
        for d, v in zip(decisions, other, strict=True):
            best2, _, err2, cat2 = judge(v, d.kind, d.taken)
            if best2 != d.best or cat2 != d.category:
                result.compare.append({
                    "game": d.game, "move": d.move, "player": d.player, "kind": d.kind,
                    "taken": d.taken, "best": d.best, "compare_best": best2,
                    "category": d.category, "compare_category": cat2,
                    "error_emg": d.error_emg, "compare_error_emg": err2,
                })  # fmt: skip
    return result


def audit(
    record_or_path: Any,
    *,
    engine: str | Evaluator = "auto",
    met: Any = DEFAULT_MET,
    plies: int | None = None,
    compare_met: Any = None,
    player: str | None = None,
    exact: bool = True,
    take_points: bool = True,
) -> AuditResult:
    """Audit every cube decision of one or more matches (see the module notes).

    Parameters
    ----------
    record_or_path : MatchRecord, path, or a sequence of them
        The match(es): records or match files (any format :func:`mathbg.rules.read_match`
        reads).
    engine : str or Evaluator
        The engine of the cubeless chances (:data:`mathbg.analysis.ENGINES`, default
        ``auto``: exact, race, then gnubg-nn).
    met : str or MET
        The match equity table (default Kazaross-XG2, gnubg's and XG's default).
    plies : int, optional
        Search depth of ``gnubg-nn`` / ``gnubg`` (default 0).
    compare_met : str or MET, optional
        A second MET: the decisions whose verdict changes under it
        (:attr:`MatchAudit.compare`).
    player : str, optional
        Audit only this player's decisions (case-insensitive name).
    exact : bool
        Add the exact bearoff match solver's values where it reaches.
    take_points : bool
        Compute the taker's take point and margin (``False``: None, about three times
        faster; the corpus statistics skip them).

    Returns
    -------
    AuditResult

    Raises
    ------
    InvalidParameterError
        When ``player`` is not in the match(es) (and for an unknown engine or MET).

    Examples
    --------
    With the same given chances at every position (fast; a real audit uses an engine):

    >>> from mathbg.analysis import get_evaluator
    >>> from mathbg.rules.formats.example import example_match
    >>> given = get_evaluator("given", probabilities=[0.6, 0.15, 0.01, 0.1, 0.005])
    >>> result = audit(example_match(), engine=given, exact=False, take_points=False)
    >>> result.summary_frame()[["player", "decisions", "errors"]].values.tolist()
    [['Ann Lee', 8, 2], ['Bob', 7, 2], [nan, 15, 4]]
    >>> audit(example_match(), player="Carl")
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: player 'Carl' is not in the match(es): Ann Lee, Bob
    """
    import mathbg.met as metmod

    items = record_or_path
    if isinstance(items, (str, os.PathLike, bytes)) or not isinstance(items, Sequence):
        items = [items]
    records = [_load(x) for x in items]
    if player is not None:
        names = {n.lower() for rec in records for n in rec.players}
        if player.lower() not in names:
            raise InvalidParameterError(
                f"player {player!r} is not in the match(es): "
                + ", ".join(sorted({n for rec in records for n in rec.players}))
            )
    evaluator = engine if not isinstance(engine, str) else get_evaluator(engine, plies=plies)
    met_t = metmod.as_met(met) if isinstance(met, str) else met
    cmp_t = metmod.as_met(compare_met) if isinstance(compare_met, str) else compare_met
    return AuditResult([_audit_one(rec, evaluator, met_t, cmp_t, player, exact, take_points)
                        for rec in records])  # fmt: skip
