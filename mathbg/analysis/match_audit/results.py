"""The typed results of a match audit: decisions, games, the engine, the statistics.

:class:`AuditResult` holds one :class:`MatchAudit` per match; each has its games
(:class:`GameSummary`), its cube decisions (:class:`AuditedDecision`), its checker plays
(:class:`CheckerDecision`), gnubg's statistics of each game and of the match
(:class:`~mathbg.analysis.match_audit.statistics.MatchStatistics`) and the engine it used
(:class:`EngineInfo`). ``as_dict`` gives the JSON of ``mathbg audit --json``;
``to_frame`` one row per decision, cube and checker (``DECISION_COLUMNS``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from mathbg._output import FrameMixin, JSONObject
from mathbg.analysis.match_audit.cube import ERROR_TOLERANCE, DoublerValues
from mathbg.analysis.match_audit.statistics import MatchStatistics

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from mathbg.rules.record import MatchRules

__all__ = [
    "DECISION_COLUMNS",
    "VERDICTS",
    "AuditResult",
    "AuditedDecision",
    "CheckerDecision",
    "CubeSummary",
    "DecisionPlace",
    "EngineInfo",
    "GameSummary",
    "MatchAudit",
    "MetChange",
    "PlayOption",
    "RolloutCheck",
]

#: Columns of :meth:`AuditResult.to_frame`: one row per decision, cube decisions
#: (``kind`` "double" or "take") and checker plays (``kind`` "move"), in the match's order.
DECISION_COLUMNS: tuple[str, ...] = (
    "file", "game", "move", "player", "position_id", "match_id", "away", "opp_away", "cube",
    "owner", "crawford", "kind", "taken", "best", "action", "no_double", "double_take",
    "double_pass", "emg_no_double", "emg_double_take", "emg_double_pass", "error_mwc",
    "error_emg", "category", "mark", "dice", "plays", "rank", "equity_played",
    "equity_best", "luck_emg", "luck_mwc", "luck_mark", "take_point", "take_margin",
    "cube_life", "engine", "plies", "met", "exact_action", "exact_no_double",
    "exact_double_take", "exact_double_pass", "exact_best", "exact_error_mwc",
)  # fmt: skip


def _fields(obj: Any) -> JSONObject:
    """A flat dataclass's fields by name, each pair or tuple as a list (as JSON reads back)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(obj).items()}


@dataclass(frozen=True)
class EngineInfo:
    """The engine an audit used: ``requested`` as asked (``auto``), ``name`` as resolved,
    its ``version``, the ``plies`` of its chances, and the ``cube_step``: how the chances
    became cube values (``"0-ply cube step"``: mathbg's 0-ply cubeless -> cubeful
    transformation; ``"gnubg's own cubeful analysis"``: the gnubg program's values); ``note``
    what else it does (``auto``: exact inside the two-sided bearoff database)."""

    requested: str
    name: str
    version: str | None
    plies: int | None
    cube_step: str
    note: str | None = None

    def as_dict(self) -> JSONObject:
        """The JSON object of the engine (its fields)."""
        return _fields(self)

    def text(self) -> str:
        """One line for the report: ``gnubg-nn 1.1.0a11, 0-ply chances, 0-ply cube step``."""
        name = self.name + (f" {self.version}" if self.version else "")
        if self.requested != self.name:
            name = f"{self.requested} -> {name}"
        if self.note:
            name += f" ({self.note})"
        plies = "" if self.plies is None else f", {self.plies}-ply chances"
        return f"{name}{plies}, {self.cube_step}"


@dataclass(frozen=True)
class GameSummary:
    """One game: its number, the score before it (players 0 and 1), the winner's name, the
    points, how it ended and the cube it ended at (None for an unfinished game)."""

    game: int
    score: tuple[int, int]
    winner: str | None
    points: int | None
    result: str | None
    cube: int | None

    def as_dict(self) -> JSONObject:
        """The JSON object of the game (its fields; ``score`` as a list)."""
        return _fields(self)


@dataclass(frozen=True)
class CubeSummary:
    """Cube-decision totals of a player (or both): ``decisions``, ``errors``, ``mwc_lost``
    (None in money play), ``emg_lost`` and ``cube_loss_per_decision`` = 1000 x ``emg_lost``
    / ``decisions`` (mEMG per cube decision, every decision counted: not gnubg's cube error
    rate, which divides by its close decisions only)."""

    decisions: int
    errors: int
    mwc_lost: float | None
    emg_lost: float
    cube_loss_per_decision: float | None

    @classmethod
    def of(cls, decisions: Iterable[AuditedDecision]) -> CubeSummary:
        """The totals of ``decisions``."""
        ds = list(decisions)
        n = len(ds)
        emg = sum(d.error_emg for d in ds)
        mwc = [d.error_mwc for d in ds if d.error_mwc is not None]
        return cls(n, sum(d.is_error for d in ds),
                   sum(mwc) if len(mwc) == n and n else (None if n else 0.0), emg,
                   1000.0 * emg / n if n else None)  # fmt: skip

    def as_dict(self) -> JSONObject:
        """The JSON object of the totals (its fields)."""
        return _fields(self)


@dataclass(frozen=True)
class DecisionPlace:
    """Where and at what score a decision was made: the game and move numbers, the player
    who decided, the gnubg Position and Match IDs, ``away`` (the roller's and the
    opponent's), the cube's value and owner, the Crawford game."""

    game: int
    move: int
    player: str
    position_id: str
    match_id: str
    away: tuple[int, int] | None
    cube: int
    owner: str
    crawford: bool

    def place_row(self, file: str | None) -> JSONObject:
        """The place's columns of :data:`DECISION_COLUMNS` (``away`` as two columns)."""
        return {
            "file": file, "game": self.game, "move": self.move, "player": self.player,
            "position_id": self.position_id, "match_id": self.match_id,
            "away": None if self.away is None else self.away[0],
            "opp_away": None if self.away is None else self.away[1], "cube": self.cube,
            "owner": self.owner, "crawford": self.crawford,
        }  # fmt: skip


@dataclass(frozen=True)
class AuditedDecision(DecisionPlace):
    """One audited cube decision (a row of :meth:`AuditResult.to_frame`).

    ``away`` and ``owner`` are seen by the roller (the doubler), as are the values and the
    IDs; ``player`` is the player who decided (the roller, or the taker); ``mark`` gnubg's
    skill mark of the error (``"doubtful"``, ``"bad"``, ``"very bad"``, None).
    """

    kind: str
    taken: str
    best: str
    values: DoublerValues
    error_mwc: float | None
    error_emg: float
    category: str | None
    exact_best: str | None = None
    exact_error_mwc: float | None = None
    mark: str | None = None

    @property
    def is_error(self) -> bool:
        """The decision lost more than :data:`ERROR_TOLERANCE` EMG."""
        return self.error_emg > ERROR_TOLERANCE

    def as_dict(self) -> JSONObject:
        """The JSON object of one decision."""
        exact: JSONObject | None = None
        ex = self.values.exact
        if ex is not None:
            exact = {"action": str(ex.action), "no_double": ex.no_double,
                     "double_take": ex.double_take, "double_pass": ex.double_pass,
                     "best": self.exact_best, "error_mwc": self.exact_error_mwc}  # fmt: skip
        e = self.values.emg
        return {
            "game": self.game, "move": self.move, "player": self.player,
            "position_id": self.position_id, "match_id": self.match_id,
            "away": None if self.away is None else list(self.away), "cube": self.cube,
            "owner": self.owner, "kind": self.kind, "taken": self.taken, "best": self.best,
            "action": self.values.action,
            "mwc": {"no_double": self.values.no_double, "double_take": self.values.double_take,
                    "double_pass": self.values.double_pass},
            "equities": {"no_double": e[0], "double_take": e[1], "double_pass": e[2]},
            "error_emg": self.error_emg, "error_mwc": self.error_mwc,
            "category": self.category, "mark": self.mark, "exact": exact,
        }  # fmt: skip

    def row(self, file: str | None, engine: EngineInfo, met: str) -> JSONObject:
        """The decision's row of :data:`DECISION_COLUMNS`."""
        v, ex = self.values, self.values.exact
        return {
            **self.place_row(file), "kind": self.kind, "taken": self.taken, "best": self.best,
            "action": v.action,
            "no_double": v.no_double, "double_take": v.double_take,
            "double_pass": v.double_pass, "emg_no_double": v.emg[0],
            "emg_double_take": v.emg[1], "emg_double_pass": v.emg[2],
            "error_mwc": self.error_mwc, "error_emg": self.error_emg,
            "category": self.category, "mark": self.mark, "take_point": v.take_point,
            "take_margin": v.take_margin, "cube_life": v.cube_life,
            "engine": engine.name, "plies": engine.plies, "met": met,
            "exact_action": None if ex is None else str(ex.action),
            "exact_no_double": None if ex is None else ex.no_double,
            "exact_double_take": None if ex is None else ex.double_take,
            "exact_double_pass": None if ex is None else ex.double_pass,
            "exact_best": self.exact_best, "exact_error_mwc": self.exact_error_mwc,
        }  # fmt: skip


@dataclass(frozen=True)
class PlayOption:
    """One legal play of a roll: its notation, its value for the mover (EMG; money:
    equity per unit cube), as MWC (None for money), and the mover's cubeless chances after
    it (gnubg's five outputs)."""

    play: str
    equity: float
    mwc: float | None
    probabilities: tuple[float, float, float, float, float]

    def as_dict(self) -> JSONObject:
        """The JSON object of the play (its fields; ``probabilities`` as a list)."""
        return _fields(self)


@dataclass(frozen=True)
class CheckerDecision(DecisionPlace):
    """One roll and its play, analysed at the score (a row of :meth:`AuditResult.to_frame`
    with ``kind="move"``).

    ``played`` and ``best`` are notations (``""`` for a roll that could not be played);
    ``plays`` the number of legal plays (``forced`` when at most one); ``rank`` the play's
    place among them (1 = best; None when the play was not found among the engine's);
    ``equity_played``/``equity_best`` their values (EMG; money per unit cube) and
    ``error_emg``/``error_mwc`` the difference (>= 0; MWC None in money play); ``mark``
    gnubg's skill mark; ``luck_emg``/``luck_mwc`` the roll's luck and ``luck_mark`` its mark;
    ``options`` the best plays (and the one made), best first.
    """

    dice: tuple[int, int]
    played: str
    best: str
    plays: int
    rank: int | None
    equity_played: float | None
    equity_best: float | None
    error_emg: float
    error_mwc: float | None
    mark: str | None
    luck_emg: float | None
    luck_mwc: float | None
    luck_mark: str | None
    options: tuple[PlayOption, ...] = ()

    @property
    def forced(self) -> bool:
        """At most one legal play."""
        return self.plays <= 1

    @property
    def is_error(self) -> bool:
        """The decision lost more than :data:`ERROR_TOLERANCE` EMG."""
        return self.error_emg > ERROR_TOLERANCE

    def as_dict(self) -> JSONObject:
        """The JSON object of one roll and its play (the fields; ``options`` as objects)."""
        out = {k: v for k, v in asdict(self).items() if k != "options"}
        out["away"] = None if self.away is None else list(self.away)
        out["dice"] = list(self.dice)
        out["options"] = [o.as_dict() for o in self.options]
        return out

    def row(self, file: str | None, engine: EngineInfo, met: str) -> JSONObject:
        """The play's row of :data:`DECISION_COLUMNS`."""
        return {
            **self.place_row(file), "kind": "move", "taken": self.played, "best": self.best,
            "error_mwc": self.error_mwc,
            "error_emg": self.error_emg, "mark": self.mark,
            "dice": f"{self.dice[0]}{self.dice[1]}", "plays": self.plays, "rank": self.rank,
            "equity_played": self.equity_played, "equity_best": self.equity_best,
            "luck_emg": self.luck_emg, "luck_mwc": self.luck_mwc, "luck_mark": self.luck_mark,
            "engine": engine.name, "plies": engine.plies, "met": met,
        }  # fmt: skip


@dataclass(frozen=True)
class MetChange:
    """A cube decision whose verdict changes under a second MET."""

    game: int
    move: int
    player: str
    kind: str
    taken: str
    best: str
    compare_best: str
    category: str | None
    compare_category: str | None
    error_emg: float
    compare_error_emg: float

    def as_dict(self) -> JSONObject:
        """The JSON object of the change (its fields)."""
        return _fields(self)


#: The verdicts of :class:`RolloutCheck`: the rollout's best decision is the audit's, is
#: another, or is within 2 standard errors of the other decision.
VERDICTS: tuple[str, ...] = ("kept", "changed", "unresolved")


@dataclass(frozen=True)
class RolloutCheck(DecisionPlace):
    """One cube error of an audit re-checked by a cubeful rollout at its score and cube
    state (:func:`~mathbg.analysis.match_audit.recheck.recheck`).

    The place, ``kind`` and ``taken`` are the audited decision's (values seen by the
    doubler, the player on roll). ``audit_best``, ``audit_action``, ``audit_error_mwc`` and
    ``audit_error_emg`` are the audit's verdict. The rollout's: ``action`` (its cube action
    from the two lines), ``best`` (the decision it prefers), ``no_double`` and
    ``double_take`` with their standard errors (``unit``: MWC, or money equity per unit of
    the cube), ``double_pass`` (exact: the cube's points), ``difference`` = DT - ND with
    the standard error of the paired difference, ``error`` and ``error_emg`` the
    decision's loss by the rollout's values (>= 0). ``margin`` is the lead of the
    rollout's best decision over the other (>= 0; roller: ``|min(DT, DP) - ND|``, taker:
    ``|DP - DT|``, with beavers the gap between the two best answers), with
    ``margin_stderr``; ``verdict`` is ``"unresolved"`` when ``margin < 2 margin_stderr``,
    else ``"kept"`` when ``best`` is ``audit_best`` and ``"changed"`` when not.
    ``trials``, ``engine`` and ``seed`` are the rollout's.
    """

    kind: str
    taken: str
    audit_best: str
    audit_action: str
    audit_error_mwc: float | None
    audit_error_emg: float
    action: str
    best: str
    unit: str
    no_double: float
    no_double_stderr: float
    double_take: float
    double_take_stderr: float
    double_pass: float
    difference: float
    difference_stderr: float
    error: float
    error_emg: float
    margin: float
    margin_stderr: float
    verdict: str
    trials: int
    engine: str
    seed: int

    def as_dict(self) -> JSONObject:
        """The JSON object of the re-checked decision (its fields; ``away`` as a list)."""
        return _fields(self)


@dataclass
class MatchAudit:
    """The audit of one match: its games, its decisions, the statistics, the engine.

    ``decisions`` are the cube decisions, ``plays`` the checker plays (one per roll,
    empty when checker play was not analysed); ``statistics`` gnubg's statistics of the
    match and ``game_statistics`` of each game; ``compare`` the cube decisions whose verdict
    changes under ``compare_met``; ``rollouts`` the costliest cube errors re-checked by
    rollout (:func:`~mathbg.analysis.match_audit.recheck.recheck`; None: not re-checked).
    """

    file: str | None
    length: int
    players: tuple[str, str]
    rules: MatchRules
    engine: EngineInfo
    met: str
    games: list[GameSummary]
    decisions: list[AuditedDecision]
    plays: list[CheckerDecision] = field(default_factory=list)
    statistics: MatchStatistics | None = None
    game_statistics: list[MatchStatistics] = field(default_factory=list)
    compare_met: str | None = None
    compare: list[MetChange] = field(default_factory=list)
    rollouts: list[RolloutCheck] | None = None

    def statistics_text(self) -> str:
        """gnubg's ``show statistics match`` text of the match (its words and digits:
        :func:`~mathbg.analysis.match_audit.report.gnubg_statistics_text`); empty when the
        statistics were not computed."""
        from mathbg.analysis.match_audit.report import gnubg_statistics_text

        return "" if self.statistics is None else gnubg_statistics_text(self.statistics)

    def summary(self) -> dict[str, CubeSummary]:
        """Cube totals per player (players in the record's order)."""
        return {name: CubeSummary.of(d for d in self.decisions if d.player == name)
                for name in self.players}  # fmt: skip

    def totals(self) -> CubeSummary:
        """Cube totals over both players."""
        return CubeSummary.of(self.decisions)

    def costliest(
        self, k: int, kind: str | None = None
    ) -> list[AuditedDecision | CheckerDecision]:
        """The ``k`` errors that cost the most, costliest first: by MWC in a match (EMG in
        money play), then by EMG, ties in the match's order.

        These are the decisions worth a second look by a stronger method: a rollout of
        each re-checks the verdict (the place for issue 31's ``audit --rollout-errors K``).

        Parameters
        ----------
        k : int
            How many (at most; only decisions that lost more than
            :data:`ERROR_TOLERANCE` count).
        kind : {"cube", "checker"} or None
            Only the cube decisions, only the checker plays, or both (None).

        Returns
        -------
        list of AuditedDecision and CheckerDecision

        Raises
        ------
        InvalidParameterError
            For a negative ``k`` or an unknown ``kind``.

        Examples
        --------
        >>> from mathbg.analysis import audit, get_evaluator
        >>> from mathbg.rules.formats.example import example_match
        >>> given = get_evaluator("given", probabilities=[0.6, 0.15, 0.01, 0.1, 0.005])
        >>> m = audit(example_match(), engine=given, exact=False, take_points=False,
        ...           checker=False).matches[0]
        >>> [(d.game, d.move, d.taken, round(d.error_mwc, 4)) for d in m.costliest(3, "cube")]
        [(1, 7, 'pass', 0.0708), (2, 2, 'double', 0.0308), (1, 6, 'double', 0.0119)]
        """
        from mathbg.errors import InvalidParameterError

        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise InvalidParameterError(f"k must be a whole number >= 0, got {k!r}")
        if kind not in (None, "cube", "checker"):
            raise InvalidParameterError(f"kind must be 'cube', 'checker' or None, got {kind!r}")
        found: list[AuditedDecision | CheckerDecision] = []
        if kind != "checker":
            found += [d for d in self.decisions if d.is_error]
        if kind != "cube":
            found += [p for p in self.plays if p.is_error]
        found.sort(key=lambda d: (d.game, d.move))
        found.sort(key=lambda d: (-(d.error_emg if d.error_mwc is None else d.error_mwc),
                                  -d.error_emg))  # fmt: skip
        return found[:k]

    def as_dict(self) -> JSONObject:
        """The JSON object of the match (``mathbg audit --json``'s ``matches`` items)."""
        r = self.rules
        out: JSONObject = {
            "file": self.file, "length": self.length, "players": list(self.players),
            "rules": {"crawford": r.crawford, "jacoby": r.jacoby, "beavers": r.beavers,
                      "cube_limit": r.cube_limit, "variant": r.variant},
            "engine": self.engine.as_dict(), "met": self.met,
            "games": [g.as_dict() for g in self.games],
            "decisions": [d.as_dict() for d in self.decisions],
            "plays": [p.as_dict() for p in self.plays],
            "summary": {k: v.as_dict() for k, v in self.summary().items()},
            "totals": self.totals().as_dict(),
            "statistics": None if self.statistics is None else self.statistics.as_dict(),
            "game_statistics": [s.as_dict() for s in self.game_statistics],
        }  # fmt: skip
        if self.compare_met is not None:
            out["compare"] = {"met": self.compare_met,
                              "changes": [c.as_dict() for c in self.compare]}  # fmt: skip
        if self.rollouts is not None:
            out["rollouts"] = [c.as_dict() for c in self.rollouts]
        return out

    def rows(self) -> list[JSONObject]:
        """One row per decision (:data:`DECISION_COLUMNS`), in the match's order."""
        items: list[tuple[tuple[int, int, int], JSONObject]] = []
        for d in self.decisions:
            items.append(((d.game, d.move, 0 if d.kind == "double" else 2),
                          d.row(self.file, self.engine, self.met)))  # fmt: skip
        for p in self.plays:
            items.append(((p.game, p.move, 1), p.row(self.file, self.engine, self.met)))
        return [r for _, r in sorted(items, key=lambda kv: kv[0])]


@dataclass
class AuditResult(FrameMixin):
    """The audit of one or more matches (:func:`mathbg.analysis.audit`).

    :meth:`to_frame`: one row per decision (columns :data:`DECISION_COLUMNS`);
    :meth:`summary_frame`: cube totals per match and player; :meth:`statistics_frame`:
    gnubg's statistics per match and player; :meth:`as_dict`: the JSON of
    ``mathbg audit --json``.
    """

    matches: list[MatchAudit]

    FRAME_PARTS: ClassVar[dict[str, tuple[str, ...]]] = {}

    def to_frame(self) -> pd.DataFrame:
        """One row per decision of every match (columns :data:`DECISION_COLUMNS`)."""
        import pandas as pd

        rows = [r for m in self.matches for r in m.rows()]
        return pd.DataFrame(rows, columns=list(DECISION_COLUMNS))

    def summary_frame(self) -> pd.DataFrame:
        """Cube totals per match and player (``player`` None: both players)."""
        import pandas as pd

        rows = []
        for m in self.matches:
            for name, t in m.summary().items():
                rows.append({"file": m.file, "player": name, **t.as_dict()})
            rows.append({"file": m.file, "player": None, **m.totals().as_dict()})
        return pd.DataFrame(rows)

    def statistics_frame(self) -> pd.DataFrame:
        """gnubg's statistics of each match, one row per player (nested values flattened)."""
        import pandas as pd

        from mathbg._output import flatten

        rows = []
        for m in self.matches:
            if m.statistics is None:
                continue
            for p in m.statistics.players:
                rows.append({"file": m.file, **flatten(p.as_dict(), {})})
        return pd.DataFrame(rows)

    def as_dict(self) -> JSONObject:
        """The JSON document of ``mathbg audit --json``: ``{"matches": [...]}``."""
        return {"matches": [m.as_dict() for m in self.matches]}

    @property
    def decisions(self) -> list[AuditedDecision]:
        """Every cube decision of every match."""
        return [d for m in self.matches for d in m.decisions]

    @property
    def plays(self) -> list[CheckerDecision]:
        """Every checker play of every match."""
        return [p for m in self.matches for p in m.plays]
