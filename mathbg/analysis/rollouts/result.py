"""What a rollout reports: each line's value with its standard error, the difference between
lines with the standard error of the difference, the cube decision they make, the cube
events and how the trials ended; computed from the trials' arrays
(:func:`~mathbg.analysis.rollouts.trials.run_trials`).

Standard errors are the sample standard deviation over the trials divided by the square
root of their number (the rotated first rolls make the true error a little smaller: the
figure is conservative). The lines are played on the same dice, so the error of their
difference is that of the trials' differences, far below ``sqrt(SE1^2 + SE2^2)`` (the
figure two independent rollouts would give: ``unpaired_stderr``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from mathbg._output import FrameMixin, JSONObject
from mathbg.analysis.rollouts.trials import EXACT, PASSED, PLAYED, RACE
from mathbg.analysis.rollouts.values import ScoreValues
from mathbg.cube.decisions import CubeDecision, classify

__all__ = [
    "CHANCES",
    "CubeEvents",
    "LineDifference",
    "LineResult",
    "TrialEnds",
    "decision",
    "differences",
    "line_results",
    "standard_error",
]  # fmt: skip

#: The cubeless chances, gnubg's five outputs (cumulative gammons).
CHANCES: tuple[str, ...] = ("win", "win_gammon", "win_backgammon", "lose_gammon",
                            "lose_backgammon")  # fmt: skip


def standard_error(samples: NDArray[np.float64]) -> float:
    """The standard error of the mean of ``samples`` (NaN for fewer than two).

    Parameters
    ----------
    samples : ndarray
        One value per trial.

    Returns
    -------
    float
        ``std(samples, ddof=1) / sqrt(n)``.

    Examples
    --------
    >>> standard_error(np.array([0.0, 1.0, 0.0, 1.0]))
    0.28867513459481287
    """
    n = len(samples)
    if n < 2:
        return math.nan
    return float(np.std(samples, ddof=1) / math.sqrt(n))


@dataclass(frozen=True)
class CubeEvents:
    """How often the cube moved in a line's trials: the share of trials in which each side
    (the player on roll at the position, the opponent) doubled, took and passed, and the
    share in which the cube never turned."""

    player_doubled: float
    opponent_doubled: float
    player_took: float
    opponent_took: float
    player_passed: float
    opponent_passed: float
    never_turned: float


@dataclass(frozen=True)
class TrialEnds:
    """How a line's trials ended: the shares played out, passed, ended by the exact
    bearoff solver and ended by the race evaluator, and the mean number of rolls."""

    played: float
    passed: float
    exact: float
    race: float
    rolls: float


@dataclass(frozen=True)
class LineResult(FrameMixin):
    """One line of a rollout.

    Attributes
    ----------
    line : str
        ``"no_double"`` or ``"double_take"``.
    cube : int
        The cube the line starts with.
    owner : str
        Who holds it (``"centre"``, ``"player"``, ``"opponent"``; the player is on roll).
    value, stderr : float
        The player's cubeful value and its standard error: match winning chances at a
        match score, equity per unit of the position's cube in money play.
    plain_stderr : float
        The standard error of the same trials without the luck subtracted (the variance
        reduction's gain is ``plain_stderr / stderr``).
    emg, emg_stderr : float
        The value as an EMG equity at the position's cube (money: the equity itself);
        NaN where the EMG is undefined.
    chances, chances_stderr : tuple of 5 floats
        The player's cubeless chances (:data:`CHANCES`) and their standard errors. Each
        mean is kept within [0, 1] as gnubg's ``rollout.c`` keeps it: with the luck
        subtracted, the trials' mean of a rare outcome (a backgammon) can fall below 0.
    events : CubeEvents
        The cube's moves.
    ends : TrialEnds
        How the trials ended.
    trials : int
        Trials played.
    """

    line: str
    cube: int
    owner: str
    value: float
    stderr: float
    plain_stderr: float
    emg: float
    emg_stderr: float
    chances: tuple[float, float, float, float, float]
    chances_stderr: tuple[float, float, float, float, float]
    events: CubeEvents
    ends: TrialEnds
    trials: int

    FRAME_PARTS: ClassVar[dict[str, tuple[str, ...]]] = {
        "chances": CHANCES, "chances_stderr": CHANCES,
    }  # fmt: skip

    def as_dict(self) -> JSONObject:
        """The line as JSON types (the chances by name)."""
        out = asdict(self)
        out["chances"] = dict(zip(CHANCES, self.chances, strict=True))
        out["chances_stderr"] = dict(zip(CHANCES, self.chances_stderr, strict=True))
        return out


@dataclass(frozen=True)
class LineDifference(FrameMixin):
    """The difference between two lines played on the same dice.

    Attributes
    ----------
    first, second : str
        The lines (the difference is ``second - first``).
    value, stderr : float
        The difference of the values and its standard error (of the paired trials).
    unpaired_stderr : float
        ``sqrt(SE1^2 + SE2^2)``: the error two independent rollouts would give.
    """

    first: str
    second: str
    value: float
    stderr: float
    unpaired_stderr: float


def _events(games: Mapping[str, NDArray[Any]], k: int) -> CubeEvents:
    d, t, p = (np.asarray(games[f][:, k, :]) > 0 for f in ("doubled", "taken", "passed"))
    share = [float(np.mean(a[:, s])) for a in (d, t, p) for s in (0, 1)]
    return CubeEvents(share[0], share[1], share[2], share[3], share[4], share[5],
                      float(np.mean(~d.any(axis=1))))  # fmt: skip


def _ends(games: Mapping[str, NDArray[Any]], k: int) -> TrialEnds:
    end = np.asarray(games["end"][:, k])
    share = [float(np.mean(end == e)) for e in (PLAYED, PASSED, EXACT, RACE)]
    return TrialEnds(share[0], share[1], share[2], share[3], float(np.mean(games["turns"][:, k])))


def line_results(
    games: Mapping[str, NDArray[Any]], lines: tuple[Any, ...], values: ScoreValues,
    owners: tuple[str, ...],
) -> tuple[LineResult, ...]:  # fmt: skip
    """Each line's estimates from the trials' arrays (shaped (trials, lines, ...)).

    Parameters
    ----------
    games : mapping of str to ndarray
        :func:`~mathbg.analysis.rollouts.trials.run_trials`'s arrays of every trial.
    lines : tuple of Line
        The lines, in the arrays' order.
    values : ScoreValues
        The score (for the EMG).
    owners : tuple of str
        Each line's cube owner in words.

    Returns
    -------
    tuple of LineResult
        One per line.

    Examples
    --------
    Four money trials of two lines on the same dice (the second line's cube doubled):

    >>> from mathbg.analysis.rollouts.trials import Line
    >>> from mathbg.analysis.rollouts.values import MoneyValues
    >>> raw = np.array([[1.0, 2.0], [-1.0, -2.0], [1.0, 2.0], [1.0, -2.0]])
    >>> zeros = {f: np.zeros((4, 2, 2), dtype=np.int64) for f in ("doubled", "taken", "passed")}
    >>> games = {"raw": raw, "luck": np.zeros((4, 2)), "chances": np.zeros((4, 2, 5)),
    ...          "chances_luck": np.zeros((4, 2, 5)), "turns": np.ones((4, 2)),
    ...          "end": np.zeros((4, 2), dtype=np.int64), **zeros}
    >>> lines = (Line("no_double", 1, -1), Line("double_take", 2, 1))
    >>> res = line_results(games, lines, MoneyValues(1, None), ("centre", "opponent"))
    >>> [(r.line, r.value) for r in res]
    [('no_double', 0.5), ('double_take', 0.0)]
    >>> differences(games, res)[0].value
    -0.5
    >>> decision(res, MoneyValues(1, None)).action.value
    'no double, take'
    """
    out = []
    n = int(games["raw"].shape[0])
    for k, ln in enumerate(lines):
        est = np.asarray(games["raw"][:, k] - games["luck"][:, k])
        chances = np.asarray(games["chances"][:, k, :] - games["chances_luck"][:, k, :])
        value, se = float(np.mean(est)), standard_error(est)
        emg, factor = values.emg(value, values.cube0)
        ch = tuple(min(max(float(v), 0.0), 1.0) for v in chances.mean(axis=0))
        ch_se = tuple(standard_error(chances[:, i]) for i in range(5))
        out.append(LineResult(ln.name, int(ln.cube), owners[k], value, se,
                              standard_error(np.asarray(games["raw"][:, k])), emg,
                              abs(factor) * se, ch, ch_se, _events(games, k),  # type: ignore[arg-type]
                              _ends(games, k), n))  # fmt: skip
    return tuple(out)


def differences(
    games: Mapping[str, NDArray[Any]], results: tuple[LineResult, ...]
) -> tuple[LineDifference, ...]:
    """The difference of every line from the first, with the paired standard error.

    Parameters
    ----------
    games : mapping of str to ndarray
        The trials' arrays.
    results : tuple of LineResult
        The lines' estimates (:func:`line_results`).

    Returns
    -------
    tuple of LineDifference
        One per line after the first.

    Examples
    --------
    The paired error is that of the trials' own differences (in the example of
    :func:`line_results`, DT - ND is -0.5: the mean of the trials' 1, -1, 1 and -3).
    """
    est = np.asarray(games["raw"] - games["luck"])
    out = []
    for k in range(1, len(results)):
        d = est[:, k] - est[:, 0]
        a, b = results[0], results[k]
        out.append(LineDifference(a.line, b.line, float(np.mean(d)), standard_error(d),
                                  math.hypot(a.stderr, b.stderr)))  # fmt: skip
    return tuple(out)


def decision(results: tuple[LineResult, ...], values: ScoreValues) -> CubeDecision | None:
    """The cube decision the no-double and double/take lines make (double/pass: the
    player wins the cube's points), or None without both lines.

    Parameters
    ----------
    results : tuple of LineResult
        The lines' estimates.
    values : ScoreValues
        The score.

    Returns
    -------
    CubeDecision or None
        ND, DT and DP with the action (gnubg's ``FindBestCubeDecision``), exact cube life
        (None: a rollout has no cube-life model).

    Examples
    --------
    See :func:`line_results` (money: DP is the cube's one point).
    """
    by = {r.line: r for r in results}
    if "no_double" not in by or "double_take" not in by:
        return None
    nd, dt = by["no_double"].value, by["double_take"].value
    dp = values.win(0, values.cube0)
    money = values.unit == "equity"
    action = classify(nd, dt, dp, can_gammon=by["no_double"].chances[1] > 0, money=money,
                      beavers=values.beavers)  # fmt: skip
    optimal = min(dt, dp) if action.doubles else nd
    emg = None
    if not money:
        emg = tuple(values.emg(v, values.cube0)[0] for v in (nd, dt, dp))
    return CubeDecision(action, nd, dt, dp, optimal, values.unit, emg, None)  # type: ignore[arg-type]
