"""Checker plays valued at the score: gnubg 1.07's 0-ply cubeful score of a play.

A play is valued by the position it leaves, with the opponent on roll: the engine's cubeless
chances of that position (the opponent's five outputs) become the opponent's cubeful match
winning chance at the score and cube (gnubg ``Cl2CfMatch``, :func:`mathbg.cube.cubeful.cubeful_mwc`,
with the cube life of the position's class), where the opponent doubles when doubling is
right for them (gnubg ``GetECF3``: no double, or the smaller of double/take and
double/pass when both are at least no double). The mover's value is one minus that, as
EMG at the mover's score (gnubg ``mwc2eq``); money: minus the opponent's cubeful equity,
per unit cube. This is gnubg's ``ScoreMove`` at 0 plies with a cubeful evaluation context,
the score its ``FindnSaveBestMoves`` ranks plays by (ties: the higher cubeless equity).

Position classes and cube lives (gnubg ``ClassifyPosition``, ``EvalEfficiency``): a game
over 0; contact and crashed 0.68; race ``0.55 + 0.00125 x`` the pips of the side on roll,
clamped to [0.6, 0.7]; both sides home (the one-sided database) 0.6; both sides home with
at most 6 checkers (gnubg's two-sided database): money play takes the exact cubeful
equities of the database, match play backs a cube life out of them for each cube state
(:func:`mathbg.race.race_cube_decision` does the same for one position).

Everything here works on arrays of boards in gnubg's ``TanBoard`` order flattened to 50
cells (the side not on roll in cells 0-24, the side on roll in 25-49, each from its own
side, bar last), one score state per board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.match_audit import single
from mathbg.analysis.match_audit._layout import LEVELS
from mathbg.cube.life import (
    BEAROFF_CUBE_LIFE,
    CONTACT_CUBE_LIFE,
    RACE_CUBE_LIFE_RANGE,
    RACE_PIP_FACTOR,
    RACE_PIP_OFFSET,
)
from mathbg.rules.cube import CubeOwner

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.met.table import MET

__all__ = [
    "CLASS_NAMES",
    "OWNERS",
    "PlayValues",
    "ScoreStates",
    "board_classes",
    "consistent",
    "cube_lives",
    "invert",
    "play_values",
    "single_cube_lives",
    "single_cube_values",
    "two_sided_single",
]

#: Class codes of :func:`board_classes`, by name.
CLASS_NAMES: tuple[str, ...] = ("over", "contact", "race", "one-sided bearoff",
                                "two-sided bearoff")  # fmt: skip
_OVER, _CONTACT, _RACE, _BEAROFF1, _BEAROFF2 = range(5)
#: Owner codes of :class:`ScoreStates` (seen by the side the state belongs to).
OWNERS: tuple[CubeOwner, ...] = (CubeOwner.CENTRE, CubeOwner.PLAYER, CubeOwner.OPPONENT)
#: Column of a two-sided database's 4-vector holding each owner's money value.
_COLUMN = {CubeOwner.PLAYER: 1, CubeOwner.CENTRE: 2, CubeOwner.OPPONENT: 3}

F64 = NDArray[np.float64]
I64 = NDArray[np.int64]


@dataclass(frozen=True)
class ScoreStates:
    """Score and cube states, one per row, each seen by the side it belongs to.

    Attributes
    ----------
    away : int array (n, 2)
        Points the side and its opponent need (0, 0 in money play).
    cube : int array (n,)
        The cube value.
    owner : int array (n,)
        Who holds the cube, an index into :data:`OWNERS` (0 centre, 1 the side, 2 the
        opponent).
    crawford : bool array (n,)
        The Crawford game.
    money : bool
        Money play (every row).
    jacoby : bool
        The Jacoby rule (money play).
    player : int array (n,), optional
        Which of the record's players (0 or 1) the side is; None: player 0 on every row.
        gnubg reads its table from player 0's side, so the last bits of a value depend on
        it (:mod:`mathbg.analysis.match_audit.single`).
    """

    away: I64
    cube: I64
    owner: I64
    crawford: NDArray[np.bool_]
    money: bool = False
    jacoby: bool = False
    player: I64 | None = None

    def players(self) -> I64:
        """The record's player each row's side is."""
        if self.player is None:
            return np.zeros(len(self), dtype=np.int64)
        return self.player

    def take(self, rows: I64) -> ScoreStates:
        """The states of ``rows``."""
        return ScoreStates(self.away[rows], self.cube[rows], self.owner[rows],
                           self.crawford[rows], self.money, self.jacoby,
                           self.players()[rows])  # fmt: skip

    def opponent(self) -> ScoreStates:
        """The same states seen by the other side."""
        flip = np.array([0, 2, 1], dtype=np.int64)
        return ScoreStates(self.away[:, ::-1].copy(), self.cube, flip[self.owner],
                           self.crawford, self.money, self.jacoby,
                           1 - self.players())  # fmt: skip

    def __len__(self) -> int:
        return int(self.cube.shape[0])


@dataclass(frozen=True)
class PlayValues:
    """The values of plays (one per row) for the side that played them.

    ``equity`` is the cubeful score gnubg ranks plays by: EMG at the score (money: the
    cubeful equity per unit cube); ``mwc`` the cubeful match winning chance (None for
    money); ``cubeless`` the cubeless equity (EMG of the cubeless MWC; money: the cubeless
    equity), gnubg's tie-break; ``passed`` (match play) the same value as gnubg's luck
    analysis forms it for a roll that cannot be played: minus the opponent's EMG at their
    own score (``-mwc2eq``), which may differ from ``equity`` in the last bit.
    """

    equity: F64
    mwc: F64 | None
    cubeless: F64
    passed: F64 | None = None


def invert(probs: ArrayLike2D) -> F64:
    """The five outputs seen by the other side: ``(1 - W, LG, LB, WG, WB)``.

    Parameters
    ----------
    probs : array (..., 5)
        gnubg's outputs (cumulative gammons).

    Returns
    -------
    ndarray (..., 5)

    Examples
    --------
    >>> invert([0.6, 0.2, 0.01, 0.1, 0.005]).round(3).tolist()
    [0.4, 0.1, 0.005, 0.2, 0.01]
    """
    p = np.asarray(probs, dtype=np.float64)
    return np.stack([1.0 - p[..., 0], p[..., 3], p[..., 4], p[..., 1], p[..., 2]], axis=-1)


ArrayLike2D = Any


def consistent(probs: ArrayLike2D) -> F64:
    """Rows of five outputs clipped into their bounds (``0 <= WB <= WG <= W <= 1``,
    ``0 <= LB <= LG <= 1 - W``), as :func:`mathbg.analysis.base.check_probabilities` does
    for one: engines answer in single precision.

    Parameters
    ----------
    probs : array (..., 5)

    Returns
    -------
    float array (n, 5)

    Examples
    --------
    >>> consistent([[1.0000001, 0.5, 0.0, 1e-8, 0.0]]).tolist()
    [[1.0, 0.5, 0.0, 0.0, 0.0]]
    """
    p = np.asarray(probs, dtype=np.float64).reshape(-1, 5)
    w = np.clip(p[:, 0], 0.0, 1.0)
    wg = np.clip(p[:, 1], 0.0, w)
    wb = np.clip(p[:, 2], 0.0, wg)
    lg = np.clip(p[:, 3], 0.0, 1.0 - w)
    lb = np.clip(p[:, 4], 0.0, lg)
    return np.stack([w, wg, wb, lg, lb], axis=1)


def board_classes(boards: NDArray[np.uint8]) -> tuple[I64, I64]:
    """gnubg's position class of each board (:data:`CLASS_NAMES` codes) and the pips of the
    side on roll.

    Parameters
    ----------
    boards : uint8 array (n, 50)
        Boards in flattened ``TanBoard`` order (side on roll in cells 25-49).

    Returns
    -------
    (classes, pips) : int arrays (n,)

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> b = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    >>> [CLASS_NAMES[int(c)] for c in board_classes(b)[0]], int(board_classes(b)[1][0])
    (['contact'], 167)
    """
    b = np.ascontiguousarray(np.asarray(boards, dtype=np.uint8).reshape(-1, 50))
    classes = np.empty(b.shape[0], dtype=np.int64)
    pips = np.empty(b.shape[0], dtype=np.int64)
    _kernel("audit_classes_into", "classes_into")(b, classes, pips)
    return classes, pips


def cube_lives(classes: I64, pips: I64) -> F64:
    """gnubg's 0-ply cube life of each class (:func:`mathbg.cube.life.cube_life`; a game
    over 0, the two-sided database's 0.6 before the match-play back-out).

    Parameters
    ----------
    classes, pips : int arrays
        From :func:`board_classes`.

    Returns
    -------
    float array

    Examples
    --------
    >>> cube_lives(np.array([0, 1, 2, 3]), np.array([0, 100, 100, 10])).tolist()
    [0.0, 0.68, 0.675, 0.6]
    """
    lo, hi = RACE_CUBE_LIFE_RANGE
    race = np.clip(RACE_PIP_OFFSET + RACE_PIP_FACTOR * pips, lo, hi)
    x = np.full(classes.shape, BEAROFF_CUBE_LIFE)
    x = np.where(classes == _CONTACT, CONTACT_CUBE_LIFE, x)
    x = np.where(classes == _RACE, race, x)
    return np.where(classes == _OVER, 0.0, x)


# ----------------------------------------------------------------------------- values


def _money_side_values(probs: F64, states: ScoreStates, x: F64, exact: F64 | None) -> F64:
    """Money play: the cubeful equity per unit cube of the side on roll at its cube state,
    doubling when that is right (gnubg ``GetECF3``: double/take twice the taker's value,
    double/pass +1); inside the two-sided database its exact values (``exact``)."""
    n = probs.shape[0]
    nd = np.empty(n)
    dt = np.full(n, -np.inf)
    dp = np.full(n, np.inf)
    for code, owner in enumerate(OWNERS):
        rows = np.nonzero(states.owner == code)[0]
        if rows.size == 0:
            continue
        nd[rows] = _money_value(probs[rows], owner, x[rows], states.jacoby)
        if exact is not None:
            here = ~np.isnan(exact[rows, 0])
            nd[rows[here]] = exact[rows[here], _COLUMN[owner]]
        if owner is CubeOwner.OPPONENT:  # the side cannot double
            continue
        dt[rows] = 2.0 * _money_value(probs[rows], CubeOwner.OPPONENT, x[rows], False)
        dp[rows] = 1.0
        if exact is not None:
            here = rows[~np.isnan(exact[rows, 0])]
            dt[here] = 2.0 * exact[here, 3]
    doubles = (dt >= nd) & (dp >= nd)
    return np.where(doubles, np.minimum(dt, dp), nd)


def _money_value(probs: F64, owner: CubeOwner, x: F64, jacoby: bool) -> F64:
    from mathbg.cube.cubeful import cubeful_equity

    return np.asarray(cubeful_equity(probs, owner=owner, cube_life=x, jacoby=jacoby),
                      dtype=np.float64)  # fmt: skip


def _two_sided_db() -> Any:
    """The largest cubeful two-sided database built (its 6 x 6 corner is gnubg's), else
    the 6 x 6 one, built on first use (as :func:`mathbg.race.race_cube_decision`)."""
    from mathbg.bearoff import TwoSided

    return TwoSided.largest(cubeful=True) or TwoSided.build(6, 6)


def _two_sided_money(boards: NDArray[np.uint8], classes: I64, database: Any) -> F64 | None:
    """Money play inside the two-sided database: its exact equities (the 4-vector of each
    board there, NaN elsewhere; None when no board is there)."""
    rows = np.nonzero(classes == _BEAROFF2)[0]
    if rows.size == 0:
        return None
    b = np.asarray(boards[rows], dtype=np.int64)
    db = database if database is not None else _two_sided_db()
    exact = np.full((boards.shape[0], 4), np.nan)
    exact[rows] = np.asarray(db.values(b[:, 25:31], b[:, 0:6]), dtype=np.float64).reshape(-1, 4)
    return exact


def two_sided_single(
    boards: NDArray[np.uint8], classes: I64, states: ScoreStates, database: Any,
    p32: NDArray[np.float32], x32: tuple[NDArray[np.float32], ...],
) -> None:  # fmt: skip
    """Inside the two-sided database, match play: gnubg's chances and cube lives there in
    its single precision (:func:`~mathbg.analysis.match_audit.single.two_sided_cube_life`:
    the winning chance from the database's cubeless equity, the lives backed out of its
    money values for no double and double/take), written into ``p32`` and ``x32``.

    Parameters
    ----------
    boards : uint8 array (n, 50)
        The boards, the side the states belong to on roll (cells 25-49).
    classes : int array (n,)
        Their classes (:func:`board_classes`); only the two-sided bearoffs are written.
    states : ScoreStates
        The cube state of each board, seen by the side on roll (its ``owner`` codes).
    database : TwoSided or None
        The two-sided database (None: mathbg's largest cubeful one, else the 6 x 6).
    p32 : float32 array (n, 5)
        The chances: a two-sided row becomes the database's winning chance, no gammons.
    x32 : (float32 array (n,), float32 array (n,))
        The cube lives of no double (the side's cube state) and of double/take (the
        cube on the other side).

    Returns
    -------
    None
        ``p32`` and ``x32`` are written in place.

    Examples
    --------
    A board outside the two-sided database (here the opening) is left as it is:

    >>> from mathbg.rules.position import Position
    >>> b = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    >>> st = ScoreStates(np.array([[3, 3]]), np.array([1]), np.array([0]), np.array([False]))
    >>> p, x = np.full((1, 5), 0.5, np.float32), (np.ones(1, np.float32), np.ones(1, np.float32))
    >>> two_sided_single(b, board_classes(b)[0], st, None, p, x)
    >>> p.tolist(), x[0].tolist()
    ([[0.5, 0.5, 0.5, 0.5, 0.5]], [1.0])
    """
    rows = np.nonzero(classes == _BEAROFF2)[0]
    if rows.size == 0:
        return
    db = database if database is not None else _two_sided_db()
    eq = single.table_equities(db, boards[rows])
    for code, owner in enumerate(OWNERS):
        k = states.owner[rows] == code
        x, w = single.two_sided_cube_life(eq[k], str(owner))
        x32[0][rows[k]] = x
        p32[rows[k]] = 0.0
        p32[rows[k], 0] = w
    x32[1][rows] = single.two_sided_cube_life(eq, "opponent")[0]


def play_values(
    boards: NDArray[np.uint8],
    probs: ArrayLike2D,
    states: ScoreStates,
    met: MET,
    two_sided: Any = None,
    *,
    state_of: I64 | None = None,
) -> PlayValues:
    """The mover's 0-ply cubeful value of each play (see the module notes).

    Parameters
    ----------
    boards : uint8 array (n, 50)
        The positions the plays leave, the opponent on roll (cells 25-49).
    probs : float array (n, 5)
        The engine's cubeless outputs for those positions, the opponent's view.
    states : ScoreStates
        The mover's score and cube state of each play (with ``state_of``: the states the
        plays index).
    met : MET
        The match equity table (unused for money).
    two_sided : TwoSided, optional
        The two-sided database whose money equities the cube lives are backed out of
        (default mathbg's exact one; the engines' own: gnubg's 16-bit file).
    state_of : int array (n,), optional
        Play ``r``'s state is ``states[state_of[r]]``: a match's plays share a few
        thousand states (a turn's), which are then not copied for each of its two hundred
        thousand plays.

    Returns
    -------
    PlayValues
        The mover's values.

    Examples
    --------
    A play that leaves the opponent a 50 % gammonless game at 3-away/3-away, cube centred:
    the opponent, on roll, has no double, so the mover's value is the opponent's cubeful
    MWC's complement, 0 EMG:

    >>> from mathbg.met import as_met
    >>> from mathbg.rules.position import Position
    >>> board = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    >>> st = ScoreStates(np.array([[3, 3]]), np.array([1]), np.array([0]), np.array([False]))
    >>> v = play_values(board, [[0.5, 0, 0, 0, 0]], st, as_met("kazaross-xg2"))
    >>> round(float(v.equity[0]), 9), round(float(v.mwc[0]), 9)
    (0.0, 0.5)
    """
    classes, pips = board_classes(boards)
    if state_of is not None and states.money:
        states, state_of = states.take(state_of), None
    opp = states.opponent()
    if states.money:
        p = consistent(probs)
        exact = _two_sided_money(boards, classes, two_sided)
        value = _money_side_values(p, opp, cube_lives(classes, pips), exact)
        w, wg, wb, lg, lb = (p[:, i] for i in range(5))
        return PlayValues(-value, None, -(2.0 * w - 1.0 + wg + wb - lg - lb))
    p32 = np.asarray(probs, dtype=np.float64).reshape(-1, 5).astype(np.float32)
    lives = single_cube_lives(classes, pips)
    x32 = (lives, lives.copy())
    if state_of is None:
        two_sided_single(boards, classes, opp, two_sided, p32, x32)
    else:  # the few plays in the two-sided database, with their states
        rows = np.flatnonzero(classes == _BEAROFF2)
        if rows.size:
            sub_p, sub_x = p32[rows], (x32[0][rows], x32[1][rows])
            two_sided_single(boards[rows], classes[rows], opp.take(state_of[rows]), two_sided,
                             sub_p, sub_x)  # fmt: skip
            p32[rows], x32[0][rows], x32[1][rows] = sub_p, sub_x[0], sub_x[1]
    return _single_values(p32, x32, states, met, state_of)


def _single_values(p32: NDArray[np.float32], x32: tuple[NDArray[np.float32], NDArray[np.float32]],
                   states: ScoreStates, met: MET, state_of: I64 | None = None,
                   ) -> PlayValues:  # fmt: skip
    """:func:`play_values` at match scores from the opponent's chances and cube lives in
    single precision (no double; doubled and taken), as gnubg's ``ScoreMove`` computes
    them: the opponent, on roll, doubles when that is right (``GetECF3``), the mover's MWC
    is one minus the opponent's (``InvertEvaluationR``), its EMG ``mwc2eq`` at the mover's
    state; all rows in one kernel call (:mod:`mathbg.analysis.match_audit._kernels`), the
    match equities of each score and cube state looked up once
    (:func:`~mathbg.analysis.match_audit.single.state_tables`); row ``r``'s state is
    ``states[state_of[r]]`` (default ``states[r]``)."""
    key = np.stack([states.away[:, 0], states.away[:, 1], states.cube, states.owner,
                    states.crawford.astype(np.int64), states.players()], axis=1)  # fmt: skip
    if len(p32) == 0:
        return PlayValues(*(np.zeros(0) for _ in range(4)))
    group, keys = _groups(key)
    if state_of is not None:
        group = group[state_of]
    movers = []
    for a, b, c, owner, crawford, player in keys:
        away = (a, b) if player == 0 else (b, a)
        holder = {0: -1, 1: player, 2: 1 - player}[owner]
        movers.append(single.CubeInfo(away, c, holder, player, bool(crawford)))
    si, sf, may, gf = single.state_tables(met, movers)
    out = np.empty((4, len(p32)))
    live = np.empty((2, si.shape[1] - LEVELS + 1), dtype=np.float32)
    _kernel("audit_play_values_into", "play_values_into")(
        np.ascontiguousarray(p32), x32[0], x32[1], group, si, sf, may, gf, live, out)
    return PlayValues(out[0], out[1], out[2], out[3])


def single_cube_values(
    p32: NDArray[np.float32], lives: tuple[NDArray[np.float32], NDArray[np.float32]],
    rollers: list[single.CubeInfo], met: MET,
) -> tuple[F64, F64, F64, F64, F64, F64]:  # fmt: skip
    """Cube decisions valued as gnubg 1.07 values them at 0 plies (``FindCubeDecision``),
    in its single precision: the roller's cubeful MWC with no double (at its state) and
    after double/take (the cube doubled, owned by the taker), the double/pass MWC
    (``GetDPEq``), and the three as EMG at the roller's state (``mwc2eq``); all decisions in
    one kernel call, through the same arithmetic as :func:`play_values` (a cube decision
    is the state the opponent's play leads to).

    Parameters
    ----------
    p32 : float32 array (n, 5)
        The roller's cubeless chances.
    lives : (float32 array, float32 array)
        The cube lives at the roller's state and after double/take (``x`` and ``x_dt``).
    rollers : list of CubeInfo
        Each decision's state, the roller on roll.
    met : MET
        The match equity table.

    Returns
    -------
    (nd, dt, dp, nd_emg, dt_emg, dp_emg) : float64 arrays (n,)
        Single-precision values.

    Examples
    --------
    Double/pass at 3-away/3-away leaves the roller 2-away against 3-away:

    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> p = np.array([[0.7, 0.1, 0.0, 0.05, 0.0]], np.float32)
    >>> x = np.array([0.68], np.float32)
    >>> v = single_cube_values(p, (x, x.copy()), [single.CubeInfo((3, 3), 1, -1, 0, False)], t)
    >>> bool(v[2][0] == np.float32(t.mwc((2, 3))))
    True
    """
    n = len(rollers)
    if n == 0:
        return tuple(np.zeros(0) for _ in range(6))  # type: ignore[return-value]
    index: dict[single.CubeInfo, int] = {}
    group = np.array([index.setdefault(ci, len(index)) for ci in rollers], dtype=np.int64)
    si, sf, _, gf = single.state_tables(met, [ci.turned() for ci in index])
    out = np.empty((6, n))
    live = np.empty((2, si.shape[1] - LEVELS + 1), dtype=np.float32)
    _kernel("audit_cube_values_into", "cube_values_into")(
        np.ascontiguousarray(p32, dtype=np.float32),
        np.ascontiguousarray(lives[0], dtype=np.float32),
        np.ascontiguousarray(lives[1], dtype=np.float32), group, si, sf, gf, live, out)
    return out[0], out[1], out[2], out[3], out[4], out[5]


def _groups(key: I64) -> tuple[I64, list[tuple[int, ...]]]:
    """Each row's group (the index of its distinct row of ``key`` (n, k)) and the distinct
    rows, in order of first appearance. Rows of one state come in runs (a turn's plays,
    its 21 rolls), so the runs are found in one pass and only their heads are compared."""
    if len(key) == 0:
        return np.zeros(0, dtype=np.int64), []
    new_run = np.r_[True, np.any(key[1:] != key[:-1], axis=1)]
    starts, run = np.flatnonzero(new_run), np.cumsum(new_run) - 1
    group_of: dict[tuple[int, ...], int] = {}
    heads = [group_of.setdefault(tuple(k), len(group_of)) for k in key[starts].tolist()]
    return np.asarray(heads, dtype=np.int64)[run], list(group_of)


def _kernel(export: str, name: str) -> Any:
    """The kernel ``name`` of :mod:`mathbg.analysis.match_audit._kernels`: compiled ahead
    of time (as ``export``), else numba's."""
    from mathbg._native import compiled

    kernel = compiled(export)
    if kernel is None:
        from mathbg.analysis.match_audit import _kernels

        kernel = getattr(_kernels, name)
    return kernel


def single_cube_lives(classes: I64, pips: I64) -> NDArray[np.float32]:
    """The cube lives of :func:`cube_lives` in gnubg's single precision (``EvalEfficiency``:
    the race's from its pips in float arithmetic); NaN in the two-sided database, where
    gnubg backs them out of its money values for each cube state.

    Parameters
    ----------
    classes, pips : int arrays
        From :func:`board_classes`.

    Returns
    -------
    float32 array

    Examples
    --------
    >>> single_cube_lives(np.array([0, 1, 2, 3, 4]), np.array([0, 100, 100, 10, 10]))
    array([0.   , 0.68 , 0.675, 0.6  ,   nan], dtype=float32)
    """
    x = np.where(classes == _CONTACT, np.float32(CONTACT_CUBE_LIFE),
                 np.where(classes == _RACE, single.race_cube_life(pips),
                          np.float32(BEAROFF_CUBE_LIFE))).astype(np.float32)  # fmt: skip
    x = np.where(classes == _OVER, np.float32(0.0), x)
    return np.where(classes == _BEAROFF2, np.float32(np.nan), x).astype(np.float32)
