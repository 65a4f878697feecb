"""The analysis of a whole match: checker play, cube decisions and luck at the score.

:func:`audit` replays match records or files and analyses every decision as gnubg 1.07's
``analyse match`` does at 0 plies: every legal play of every roll valued by the engine at
the score (cubeful, the match's gammon values), the play made ranked among them and
priced in EMG and MWC, with gnubg's skill marks; every cube decision judged at its score
(missed doubles, wrong doubles, wrong takes and passes); the luck of every roll against
the mean over the rolls; and gnubg's statistics of each game and of the match (``show
statistics match``: error rates, ratings, luck), beside XG's PR and Snowie's error rate.

Modules: :mod:`~.driver` (:func:`audit`, :class:`AuditOptions`, the engine),
:mod:`~.cube` (the cube decisions), :mod:`~.plays` (a play's value at the score),
:mod:`~.turns` and :mod:`~.checker` (the rolls, their plays and luck), :mod:`~.engines`
(``auto``, deeper plies, the gnubg program's own analysis), :mod:`~.statistics`,
:mod:`~.events` (gnubg's statistics), :mod:`~.results` (the typed results),
:mod:`~.report` (gnubg's statistics text), :mod:`~.sgf` (the match written back as an
analysed gnubg ``.sgf``), :mod:`~.recheck` (:func:`recheck`: the costliest cube errors
re-checked by cubeful rollouts at their score).
"""

from mathbg.analysis.match_audit.cube import ERROR_TOLERANCE, DoublerValues, judge
from mathbg.analysis.match_audit.driver import AuditOptions, audit, resolve_engine
from mathbg.analysis.match_audit.recheck import RecheckOptions, recheck
from mathbg.analysis.match_audit.results import (
    DECISION_COLUMNS,
    VERDICTS,
    AuditedDecision,
    AuditResult,
    CheckerDecision,
    CubeSummary,
    DecisionPlace,
    EngineInfo,
    GameSummary,
    MatchAudit,
    MetChange,
    PlayOption,
    RolloutCheck,
)
from mathbg.analysis.match_audit.statistics import MatchStatistics, PlayerStatistics

__all__ = [
    "DECISION_COLUMNS",
    "ERROR_TOLERANCE",
    "VERDICTS",
    "AuditOptions",
    "AuditResult",
    "AuditedDecision",
    "CheckerDecision",
    "CubeSummary",
    "DecisionPlace",
    "DoublerValues",
    "EngineInfo",
    "GameSummary",
    "MatchAudit",
    "MatchStatistics",
    "MetChange",
    "PlayOption",
    "PlayerStatistics",
    "RecheckOptions",
    "RolloutCheck",
    "audit",
    "judge",
    "recheck",
    "resolve_engine",
]
