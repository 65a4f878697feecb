"""From an entry's games to its estimate: the stratified mean and its standard error, the
errors it inherits from the entries its games reach, the rounds a target error needs, the
entry's by-products and the cube life its first decisions fit.

The estimate of an entry is the mean of its stratum means; its standard error the
stratified one, ``SE^2 = sum_h s_h^2 / n_h / H^2`` (Cochran, *Sampling Techniques*, ch.
5), after subtracting the luck of the first rolls where it is measured (a regression
estimator, Cochran ch. 7). Each entry's reported error adds, to first order, the errors of
the entries its games reach, weighted by how often they are reached.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.selfplay.batch import GameArrays
from mathbg.analysis.selfplay.table import Entry, after, decide, next_entry, source
from mathbg.met.table import MET

__all__ = [
    "CubeLifeFit",
    "CubeShare",
    "EntryStats",
    "ScoreRow",
    "entry_stats",
    "estimate",
    "fit_cube_life",
    "plan_batches",
    "propagate",
    "record",
]

#: d(entry) / d(sampling error of each entry it reads), by entry.
Jacobian = dict[Entry, float]
#: A row's value in a frame.
Cell = str | int | float | bool | None


def record(row: EntryStats | CubeShare | CubeLifeFit) -> dict[str, Cell]:
    """A row as a frame's record: its fields, the score ``away`` as two columns ``away``
    and ``opp_away`` (player 0's and player 1's away scores).

    Parameters
    ----------
    row : EntryStats, ScoreRow, CubeShare or CubeLifeFit
        A typed row.

    Returns
    -------
    dict
        Column name -> value, in field order.

    Examples
    --------
    >>> record(CubeShare("normal", (3, 5), 2, 0.25))
    {'state': 'normal', 'away': 3, 'opp_away': 5, 'cube': 2, 'share': 0.25}
    """
    out: dict[str, Cell] = {}
    for f in fields(row):
        value = getattr(row, f.name)
        if f.name == "away":
            out["away"], out["opp_away"] = int(value[0]), int(value[1])
        else:
            out[f.name] = value
    return out


@dataclass(frozen=True)
class EntryStats:
    """One entry's by-products: how its games went.

    Attributes
    ----------
    state : str
        The entry's :class:`~mathbg.rules.match.ScoreState` word.
    away : (int, int)
        The score: player 0's and player 1's away scores (the frame's columns ``away``
        and ``opp_away``: :func:`record`).
    games : int
        Games played.
    pass_rate, single_rate, gammon_rate, backgammon_rate : float
        Shares of the games that ended in a pass, a single game, a gammon, a backgammon.
    gammon_rate_played : float
        Gammons and backgammons among the games played out.
    first_double_rate, first_double_pass_rate : float
        Games with a double, and the share of first doubles passed (NaN without one).
    mean_cube, mean_rolls, player0_win_rate : float
        The final cube, the rolls played and player 0's wins, on average.
    """

    state: str
    away: tuple[int, int]
    games: int
    pass_rate: float
    single_rate: float
    gammon_rate: float
    backgammon_rate: float
    gammon_rate_played: float
    first_double_rate: float
    first_double_pass_rate: float
    mean_cube: float
    mean_rolls: float
    player0_win_rate: float


@dataclass(frozen=True)
class ScoreRow(EntryStats):
    """A row of a self-play table's ``frames["scores"]``: the entry's by-products and its
    estimate.

    Attributes
    ----------
    mwc : float
        Player 0's MWC at the entry.
    stderr : float
        Its standard error (its own and the inherited ones).
    stderr_own, plain_stderr_own : float
        Its own stratified (with the luck control, if any) and plain standard errors.
    reached : bool or None
        With a target error: the entry reached it (None without a target).
    """

    mwc: float = math.nan
    stderr: float = math.nan
    stderr_own: float = math.nan
    plain_stderr_own: float = math.nan
    reached: bool | None = None


@dataclass(frozen=True)
class CubeShare:
    """The share of an entry's games that ended on one cube value (``frames["cubes"]``)."""

    state: str
    away: tuple[int, int]
    cube: int
    share: float


@dataclass(frozen=True)
class CubeLifeFit:
    """The cube life an entry's first cube decisions fit (``frames["cube_life"]``).

    Attributes
    ----------
    state : str
        The entry's state word.
    away : (int, int)
        The score.
    cube_life : float
        The fitted x (NaN without a root or with fewer than 10 decisions).
    stderr : float
        Its standard error.
    decisions : int
        The first cube decisions the fit read.
    """

    state: str
    away: tuple[int, int]
    cube_life: float
    stderr: float
    decisions: int


def estimate(
    values: NDArray[np.float64],
    strata: NDArray[np.int64],
    controls: NDArray[np.float64] | None = None,
) -> tuple[float, float, float]:
    """Mean, stratified SE and plain SE of one entry's game values.

    ``controls`` (games x k, each of known mean zero: the luck of the first rolls) are
    subtracted with the within-stratum least-squares coefficients first (a regression
    estimator, Cochran ch. 7); the plain SE is that of the raw values.

    Parameters
    ----------
    values : ndarray
        Player 0's MWC after each game.
    strata : ndarray of int
        Each game's stratum.
    controls : ndarray, shape (games, k), optional
        Control variates of known mean zero.

    Returns
    -------
    (float, float, float)
        The mean, its stratified standard error and the plain one.

    Examples
    --------
    >>> mean, se, plain = estimate(np.array([1.0, 0.0, 1.0, 1.0]), np.array([0, 1, 0, 1]))
    >>> mean, round(se, 4), round(plain, 4)
    (0.75, 0.25, 0.25)
    """
    n = len(values)
    if controls is not None and controls.size and n > controls.shape[1] + 1:
        hs = np.unique(strata)
        y = values.astype(np.float64).copy()
        x = controls.astype(np.float64).copy()
        for h in hs:
            m = strata == h
            y[m] -= y[m].mean()
            x[m] -= x[m].mean(axis=0)
        keep = x.std(axis=0) > 0
        if keep.any():
            beta = np.linalg.lstsq(x[:, keep], y, rcond=None)[0]
            adjusted = values - controls[:, keep] @ beta
            mean, se, _ = estimate(adjusted, strata)
            return mean, se, float(values.std(ddof=1) / math.sqrt(n))
    mean = float(values.mean())
    plain = float(values.std(ddof=1) / math.sqrt(n)) if n > 1 else math.nan
    hs = np.unique(strata)
    counts = np.array([(strata == h).sum() for h in hs])
    if counts.min() < 2 or counts.min() != counts.max():
        return mean, plain, plain
    var = sum(float(values[strata == h].var(ddof=1)) / c for h, c in zip(hs, counts, strict=True))
    return mean, math.sqrt(var) / len(hs), plain


def propagate(
    entry: Entry,
    games: GameArrays,
    jac: Mapping[Entry, Jacobian],
    equal: bool,
    crawford: bool,
) -> Jacobian:
    """d(entry)/d(sampling error of each earlier entry), to first order.

    The entry is the mean of the table at the scores its games reach, so its error is its
    own sampling error plus the reached entries' errors weighted by how often they were
    reached (the errors of different entries come from different games: independent).

    Parameters
    ----------
    entry : Entry
        The entry.
    games : mapping of str to ndarray
        Its games (``winner``, ``points``).
    jac : mapping
        The rows of the entries finished so far.
    equal, crawford : bool
        Equal players; the Crawford rule.

    Returns
    -------
    dict of Entry to float
        The entry's row (itself 1).

    Examples
    --------
    >>> from mathbg.rules.match import ScoreState
    >>> post = ScoreState.POST_CRAWFORD
    >>> e, lower = Entry(post, (3, 1)), Entry(post, (2, 1))
    >>> games = {"winner": np.array([0, 1]), "points": np.array([1, 1])}
    >>> propagate(e, games, {lower: {lower: 1.0}}, True, True)[lower]
    0.5
    """
    row: Jacobian = {entry: 1.0}
    n = len(games["winner"])
    won = np.stack([np.where(games["winner"] == 0, games["points"], 0),
                    np.where(games["winner"] == 1, games["points"], 0)], axis=1)  # fmt: skip
    keys, counts = np.unique(won, axis=0, return_counts=True)
    for (w0, w1), cnt in zip(keys.tolist(), counts.tolist(), strict=True):
        src = source(next_entry(entry, w0, w1), equal, crawford)
        if src is None:
            continue
        for k, d in jac[src[0]].items():
            row[k] = row.get(k, 0.0) + cnt / n * src[1] * d
    return row


def plan_batches(
    batches: int, batch_size: int, own: float, inherited: float, target: float, cap: int
) -> int:
    """How many batches one entry adds in the next round to reach a target standard error.

    The entry's error is ``sqrt(own^2 + inherited^2)``: its own sampling error (falling as
    one over the square root of its games) and the errors of the entries its games reach.
    With ``n`` games played, the own error reaches ``sqrt(target^2 - inherited^2)`` at
    about ``n * (own / that)^2`` games; the next round plays the whole batches to 5 % more
    than that, at least one, at most up to ``cap`` batches. Zero when the target is met,
    when the cap is reached, or when the inherited error alone exceeds the target (more
    games of this entry cannot help). A function of finished batches only: the same plan
    on every scheduler and on resume.

    Parameters
    ----------
    batches, batch_size : int
        Batches played so far and games per batch.
    own, inherited : float
        The entry's own (stratified) standard error and the inherited one.
    target : float
        The target standard error.
    cap : int
        Most batches for the entry.

    Returns
    -------
    int
        Batches to add (0: the entry is finished).

    Examples
    --------
    3600 games gave an own error of 0.8 pp: 0.5 pp needs 2.56 times the games.

    >>> plan_batches(1, 3600, 0.008, 0.0, 0.005, 100)
    2
    >>> plan_batches(3, 3600, 0.0049, 0.0, 0.005, 100)  # met
    0
    >>> plan_batches(3, 3600, 0.004, 0.004, 0.005, 3)  # at the cap
    0
    """
    if math.hypot(own, inherited) <= target or batches >= cap or inherited >= target:
        return 0
    need = batches * batch_size * (own * own / (target * target - inherited * inherited)) * 1.05
    return max(1, min(cap - batches, math.ceil(need / batch_size) - batches))


def entry_stats(entry: Entry, games: GameArrays) -> EntryStats:
    """One entry's by-products (the first columns of a row of ``frames["scores"]``).

    Parameters
    ----------
    entry : Entry
        The table entry played.
    games : mapping of str to ndarray
        The entry's per-game arrays: ``value``, ``result`` (0 passed, 1 single,
        2 gammon, 3 backgammon), ``first_double`` (-1 without a double),
        ``first_passed``, ``cube``, ``rolls`` and ``winner``.

    Returns
    -------
    EntryStats
        The rates and means (NaN for the first double's pass rate without doubles).

    Examples
    --------
    >>> from mathbg.rules.match import ScoreState
    >>> games = {"value": np.array([1.0, 0.0, 1.0, 0.0]), "result": np.array([1, 2, 0, 1]),
    ...          "first_double": np.array([-1, 3, 5, -1]),
    ...          "first_passed": np.array([0, 0, 1, 0]), "cube": np.array([1, 2, 1, 1]),
    ...          "rolls": np.array([30, 41, 12, 25]), "winner": np.array([0, 1, 0, 1])}
    >>> row = entry_stats(Entry(ScoreState.NORMAL, (3, 3)), games)
    >>> row.games, row.pass_rate, row.gammon_rate, row.first_double_pass_rate
    (4, 0.25, 0.25, 0.5)
    >>> row.mean_cube, row.mean_rolls, row.player0_win_rate
    (1.25, 27.0, 0.5)
    """
    result = games["result"]
    passed = result == 0
    played = ~passed
    first = games["first_double"] >= 0
    return EntryStats(
        state=entry.state.value,
        away=entry.away,
        games=len(games["value"]),
        pass_rate=float(passed.mean()),
        single_rate=float((result == 1).mean()),
        gammon_rate=float((result == 2).mean()),
        backgammon_rate=float((result == 3).mean()),
        gammon_rate_played=float((result[played] >= 2).mean()) if played.any() else 0.0,
        first_double_rate=float(first.mean()),
        first_double_pass_rate=(
            float(games["first_passed"][first].mean()) if first.any() else math.nan
        ),
        mean_cube=float(games["cube"].mean()),
        mean_rolls=float(games["rolls"].mean()),
        player0_win_rate=float((games["winner"] == 0).mean()),
    )


def fit_cube_life(entry: Entry, games: GameArrays, met: MET) -> CubeLifeFit:
    """The cube life x that makes the 0-ply decisions' predicted MWC match the realised one.

    At each game's first cube decision (cube 1, centred) the roller's predicted MWC is
    ``max(ND(x), min(DT(x), DP))`` from the recorded cubeless chances; the realised MWC is
    the table's value after the game. ``x`` solves ``mean(predicted) = mean(realised)`` on
    a grid of 0, 0.1, ..., 1 (linear in between; NaN without a root), its standard error
    the realised-minus-predicted one over the slope. Equal players only.

    Parameters
    ----------
    entry : Entry
        The table entry played.
    games : mapping of str to ndarray
        The entry's per-game arrays: ``value`` (player 0's MWC after the game), ``first``
        (the first roller), ``dec_turn`` (turn of the first cube decision, -1 without)
        and ``dec_p0`` .. ``dec_p4`` (the roller's cubeless chances there).
    met : MET
        The table the games were played with.

    Returns
    -------
    CubeLifeFit
        The fitted cube life, its standard error and the decisions (NaN values with fewer
        than 10 decisions).

    Examples
    --------
    Ten first decisions with the same chances, realised MWC 0.57 on average:

    >>> from mathbg.met import as_met
    >>> from mathbg.rules.match import ScoreState
    >>> games = {"dec_turn": np.zeros(10, dtype=int), "first": np.zeros(10, dtype=int),
    ...          "value": np.array([0.56, 0.58] * 5)}
    >>> for i, p in enumerate([0.65, 0.15, 0.01, 0.1, 0.005]):
    ...     games[f"dec_p{i}"] = np.full(10, p)
    >>> fit = fit_cube_life(Entry(ScoreState.NORMAL, (3, 3)), games, as_met("Kazaross-XG2"))
    >>> fit.decisions, round(fit.cube_life, 2), round(fit.stderr, 3)
    (10, 0.44, 0.083)
    """
    a, b = entry.away
    d = games["dec_turn"] >= 0
    m = int(d.sum())
    fit = CubeLifeFit(entry.state.value, entry.away, math.nan, math.nan, m)
    if m < 10:
        return fit
    first = games["first"][d]
    roller = np.where(games["dec_turn"][d] % 2 == 0, first, 1 - first)
    probs = np.stack([games[f"dec_p{i}"][d] for i in range(5)], axis=1)
    ar, br = np.where(roller == 0, a, b), np.where(roller == 0, b, a)
    realised = np.where(roller == 0, games["value"][d], 1.0 - games["value"][d])
    win = {0: after(met, entry, 1, 0), 1: 1.0 - after(met, entry, 0, 1)}
    dp = np.array([win[int(r)] for r in roller])
    grid = np.linspace(0.0, 1.0, 11)
    ones = np.ones(m, dtype=np.int64)
    preds = []
    for xv in grid:
        nd, dt = decide(probs, np.full(m, xv), [met], 0 * ones, ar, br, ones, ones == 1)
        preds.append(np.maximum(nd, np.minimum(dt, dp)))
    gap = np.array([p.mean() for p in preds]) - realised.mean()
    for i in range(len(grid) - 1):
        if gap[i] == 0 or gap[i] * gap[i + 1] < 0:
            t = gap[i] / (gap[i] - gap[i + 1]) if gap[i] != gap[i + 1] else 0.0
            slope = (gap[i + 1] - gap[i]) / (grid[i + 1] - grid[i])
            resid = realised - ((1 - t) * preds[i] + t * preds[i + 1])
            se = float(resid.std(ddof=1) / math.sqrt(m) / abs(slope)) if slope != 0 else math.nan
            x = float(grid[i] + t * (grid[i + 1] - grid[i]))
            return CubeLifeFit(fit.state, entry.away, x, se, m)
    return fit
