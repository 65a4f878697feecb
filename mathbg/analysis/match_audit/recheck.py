"""The costliest cube errors of an audit re-checked by cubeful rollouts at their score.

An audit judges every cube decision with a 0-ply (or n-ply) evaluation turned cubeful by a
formula; the reference answer is a cubeful rollout at the match score
(:func:`mathbg.analysis.rollout`). :func:`recheck` takes the ``k`` cube errors that cost
the most (:meth:`~mathbg.analysis.match_audit.results.MatchAudit.costliest`), rolls each
position out at its score and cube state (the doubler on roll before rolling, the no
double and double/take lines on the same dice, the match's cube limit, the audit's MET),
and judges the decision again by the rollout's values with the audit's own rule
(:func:`~mathbg.analysis.match_audit.cube.judge`).

The verdict: the rollout's best decision leads the other by ``|min(DT, DP) - ND|`` (the
roller's decision) or by ``|DP - DT|`` (the taker's; with beavers, the gap between the two
best answers); DP is exact (the cube's points), so the standard error of that margin is
the paired one of DT - ND, that of ND, or that of DT. A margin below 2 of its standard
errors leaves the verdict ``"unresolved"``; otherwise it is ``"kept"`` (the rollout's best
decision is the audit's) or ``"changed"``. In a bearoff
inside the exact match solver every trial ends at once with the exact value (standard
error 0): the rollout's verdict is the exact solver's.

A money session is rolled out under its own rules, the Jacoby rule and beavers as the
match file gives them (see :mod:`mathbg.analysis.rollouts.values`); its beavers enter the
verdict as the audit's (a beaver is worth 2 DT to the doubler).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mathbg.analysis.match_audit.cube import DoublerValues, judge
from mathbg.analysis.match_audit.results import AuditedDecision, MatchAudit, RolloutCheck
from mathbg.cube.decisions import CubeDecision, classify
from mathbg.errors import InvalidParameterError
from mathbg.met.table import MET

if TYPE_CHECKING:  # pragma: no cover - the rollouts are imported when a re-check runs
    from mathbg.analysis.rollouts import RolloutOptions, RolloutResult

__all__ = ["RecheckOptions", "check_of", "margin_of", "recheck", "verdict"]

#: The rollouts' trials by default: :data:`mathbg.analysis.rollouts.DEFAULT_TRIALS` (every
#: pair of first and second roll once; written out so that an audit does not import the
#: rollouts, and tested equal).
TRIALS = 1296

#: A position any rollout accepts: the options are checked on it before any work.
_PROBE = "4HPwATDgc/ABMA"


@dataclass(frozen=True)
class RecheckOptions:
    """How the errors are re-checked, checked at once (bad input stops here, before any
    work).

    Attributes
    ----------
    k : int
        How many of the costliest cube errors of each match (>= 1).
    trials : int
        Trials of each rollout (rounded up to a multiple of 36; default 1296: every pair
        of first and second roll once).
    seed : int
        The rollouts' seed.
    engine, plies : str, int
        The rollouts' checker player (``auto``: the native engine at 0 plies, gnubg-nn
        deeper) and its plies.
    variance_reduction : bool
        The rollouts' lookahead.

    Raises
    ------
    InvalidParameterError
        For ``k`` < 1, trials outside 1..3600000, a bad seed, an engine that cannot roll
        out.
    EngineNotAvailableError
        For an engine that is not installed.

    Examples
    --------
    >>> RecheckOptions(0)
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: the number of errors to re-check must lie in >= 1, got 0
    """

    k: int
    trials: int = TRIALS
    seed: int = 0
    engine: str = "auto"
    plies: int = 0
    variance_reduction: bool = True

    def __post_init__(self) -> None:
        from mathbg._validate import integer

        integer(self.k, "the number of errors to re-check", 1)
        # the rollout's own checks (trials, seed, engine) on a probe position
        self.rollout_options(_PROBE, away="money")

    def rollout_options(self, position: str, **score: Any) -> RolloutOptions:
        """The rollout of ``position`` at ``score`` (``away``, ``cube``, ...) with these
        settings and both lines.

        Parameters
        ----------
        position : str
            A gnubg Position ID (the doubler on roll, before rolling).
        **score
            :class:`~mathbg.analysis.rollouts.RolloutOptions` fields: the score, the cube
            state, the cube limit, the MET.

        Returns
        -------
        RolloutOptions
        """
        from mathbg.analysis.rollouts import RolloutOptions

        return RolloutOptions(position, trials=self.trials, seed=self.seed, engine=self.engine,
                              plies=self.plies, variance_reduction=self.variance_reduction,
                              **score)  # fmt: skip


def _values(result: RolloutResult) -> tuple[CubeDecision, float, float, float]:
    """The rollout's decision, ND, DT and DP (refused without the double/take line)."""
    dec = result.decision
    if dec is None or dec.double_take is None or dec.double_pass is None:
        raise InvalidParameterError("the rollout has no double/take line to judge a double by")
    return dec, dec.no_double, dec.double_take, dec.double_pass


def margin_of(kind: str, result: RolloutResult, action: str | None = None) -> tuple[float, float]:
    """By how much the rollout's best decision beats the other (>= 0, in the doubler's
    values) and the standard error of that lead.

    The roller's: ``|min(DT, DP) - ND|``; the taker's: the gap between the two lowest of
    DT, DP (and 2 DT, a beaver, where ``action`` names one). DP is exact (the cube's
    points), so the error is the paired one of DT - ND, that of ND, or a multiple of DT's.

    Parameters
    ----------
    kind : {"double", "take"}
        The roller's decision or the taker's.
    result : RolloutResult
        A rollout with both lines.
    action : str, optional
        The cube action judged by (default the rollout's).

    Returns
    -------
    (margin, stderr) : (float, float)

    Raises
    ------
    InvalidParameterError
        For a rollout without the double/take line.

    Examples
    --------
    A last-roll bearoff (exact: no standard error; the checker player needs
    ``pip install 'mathbg[engine]'``): doubling gains DT - ND.

    >>> from mathbg.analysis import rollout
    >>> res = rollout("AQAAGAAAAAAAAA", away=(5, 5), trials=36, progress=False)  # doctest: +SKIP
    >>> [round(v, 4) for v in margin_of("double", res)]  # doctest: +SKIP
    [0.0314, 0.0]
    """
    dec, nd, dt, dp = _values(result)
    se_nd, se_dt = result.line("no_double").stderr, result.line("double_take").stderr
    if kind == "take":
        answers = [(dt, se_dt), (dp, 0.0)]
        if "beaver" in (str(dec.action) if action is None else action):
            answers.append((2.0 * dt, 2.0 * se_dt))
        (a, sa), (b, sb) = sorted(answers)[:2]
        return b - a, abs(sb - sa) if sa and sb else max(sa, sb)
    if dt <= dp:
        return abs(dt - nd), result.differences[0].stderr
    return abs(dp - nd), se_nd


def verdict(best: str, audit_best: str, margin: float, stderr: float) -> str:
    """``"unresolved"`` when the rollout's lead ``margin`` is below 2 ``stderr``, else
    ``"kept"`` when the rollout's ``best`` is the audit's, else ``"changed"``.

    Parameters
    ----------
    best, audit_best : str
        The rollout's best decision and the audit's.
    margin, stderr : float
        The rollout's margin for its verdict and its standard error (:func:`margin_of`).

    Returns
    -------
    str
        One of :data:`~mathbg.analysis.match_audit.results.VERDICTS`.

    Examples
    --------
    >>> verdict("double", "double", 0.004, 0.001), verdict("take", "pass", 0.01, 0.002)
    ('kept', 'changed')
    >>> verdict("double", "no double", 0.003, 0.002)
    'unresolved'
    >>> verdict("double", "double", 0.001, 0.0)  # an exact bearoff: no error
    'kept'
    """
    if margin < 2.0 * stderr:
        return "unresolved"
    return "kept" if best == audit_best else "changed"


def check_of(decision: AuditedDecision, result: RolloutResult, beavers: bool = False
             ) -> RolloutCheck:  # fmt: skip
    """The audited ``decision`` judged again by the values of its rollout ``result``.

    Parameters
    ----------
    decision : AuditedDecision
        A cube decision of an audit.
    result : RolloutResult
        Its position rolled out at its score and cube state, both lines.
    beavers : bool
        Money play: the taker may beaver (the action is named with beavers, as the
        audit's).

    Returns
    -------
    RolloutCheck

    Raises
    ------
    InvalidParameterError
        When the rollout did not play the double/take line (no double to judge by).

    Examples
    --------
    The missed double of a hand-built last-roll match (needs ``mathbg[engine]``):

    >>> from mathbg.analysis import audit, rollout
    >>> m = audit("tests/data/matches/handbuilt_last_roll.mat", checker=False,
    ...           luck=False).matches[0]  # doctest: +SKIP
    >>> d = m.costliest(1, "cube")[0]  # doctest: +SKIP
    >>> res = rollout(d.position_id, away=d.away, trials=36, progress=False)  # doctest: +SKIP
    >>> check_of(d, res).verdict  # doctest: +SKIP
    'kept'
    """
    dec, nd, dt, dp = _values(result)
    money = result.unit == "equity"
    emg = (nd, dt, dp) if money or dec.emg is None else \
        (dec.emg[0], float(dec.emg[1] or 0.0), float(dec.emg[2] or 0.0))  # fmt: skip
    action = str(dec.action)
    if money and beavers:
        gammons = result.line("no_double").chances[1] > 0
        action = str(classify(nd, dt, dp, can_gammon=gammons, beavers=True, money=True))
    values = DoublerValues(action, nd, dt, dp, emg, None, None, math.nan, money=money)
    best, error, error_emg, _ = judge(values, decision.kind, decision.taken)
    margin, margin_se = margin_of(decision.kind, result, action)
    diff = result.differences[0]
    d = decision
    return RolloutCheck(
        d.game, d.move, d.player, d.position_id, d.match_id, d.away, d.cube, d.owner,
        d.crawford, d.kind, d.taken, d.best, d.values.action, d.error_mwc, d.error_emg,
        action, best, result.unit, nd, result.line("no_double").stderr, dt,
        result.line("double_take").stderr, dp, diff.value, diff.stderr, error, error_emg,
        margin, margin_se, verdict(best, d.best, margin, margin_se), result.trials,
        result.engine, result.seed,
    )  # fmt: skip


def recheck(
    audit: MatchAudit,
    k: int | RecheckOptions,
    *,
    met: MET | str | None = None,
    player: str | None = None,
    client: Any = None,
    progress: bool = True,
    disk_cache: bool = False,
    **options: Any,
) -> list[RolloutCheck]:
    """Re-check the ``k`` costliest cube errors of a match by cubeful rollouts at their
    score and cube state (see the module notes).

    Parameters
    ----------
    audit : MatchAudit
        The audit of one match (:func:`mathbg.analysis.audit`'s ``matches`` items).
    k : int or RecheckOptions
        How many errors (the costliest first), or every setting.
    met : MET or str, optional
        The rollouts' match equity table (default the audit's, by name).
    player : str, optional
        Only this player's errors (case-insensitive).
    client : dask.distributed.Client, optional
        Play the trials on this cluster (the same bits as without).
    progress : bool
        One tqdm bar over every rollout's trials.
    disk_cache : bool
        Keep the exact truncation's solutions of each score on disk and reuse them (as
        :func:`~mathbg.analysis.rollouts.rollout`).
    **options
        :class:`RecheckOptions` fields: ``trials``, ``seed``, ``engine``, ``plies``,
        ``variance_reduction``.

    Returns
    -------
    list of RolloutCheck
        One per error, costliest first (fewer when the match has fewer errors). Assign
        it to ``audit.rollouts`` to have it in ``audit.as_dict()``.

    Raises
    ------
    InvalidParameterError
        For bad settings (:class:`RecheckOptions`), before any rollout.
    EngineNotAvailableError
        When the rollouts' engine is not installed.

    Examples
    --------
    >>> from mathbg.analysis import audit, get_evaluator
    >>> from mathbg.rules.formats.example import example_match
    >>> given = get_evaluator("given", probabilities=[0.6, 0.15, 0.01, 0.1, 0.005])
    >>> m = audit(example_match(), engine=given, exact=False, checker=False).matches[0]
    >>> recheck(m, 0)
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: the number of errors to re-check must lie in >= 1, got 0
    >>> checks = recheck(m, 1, trials=36, progress=False)  # doctest: +SKIP
    >>> checks[0].verdict in ("kept", "changed", "unresolved")  # doctest: +SKIP
    True
    """
    from mathbg._validate import options_or_keywords
    from mathbg.analysis.rollouts import LINES
    from mathbg.analysis.rollouts.driver import RolloutRun, progress_bar, run_rollouts
    from mathbg.met.catalogue import as_met

    opts = options_or_keywords(k, options, RecheckOptions, "settings")
    table = as_met(audit.met if met is None else met)
    who = None if player is None else player.lower()
    errors = [d for d in audit.costliest(len(audit.decisions), "cube")
              if who is None or d.player.lower() == who][: opts.k]  # fmt: skip
    chosen = [d for d in errors if isinstance(d, AuditedDecision)]
    rules = audit.rules
    runs = [RolloutRun(opts.rollout_options(
        d.position_id, away="money" if d.away is None else d.away, cube=d.cube, owner=d.owner,
        crawford=d.crawford, cube_limit=rules.cube_limit, met=table, lines=LINES,
        **({"jacoby": bool(rules.jacoby), "beavers": bool(rules.beavers)} if d.away is None
           else {}),
    ), None, disk_cache=disk_cache) for d in chosen]  # fmt: skip
    bar = progress_bar("rollouts") if progress and runs else None
    try:
        run_rollouts(runs, client, bar)
    finally:
        if bar is not None:
            bar.close()
    beavers = audit.rules.beavers
    return [check_of(d, run.result(), beavers) for d, run in zip(chosen, runs, strict=True)]
