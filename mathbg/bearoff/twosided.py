"""Two-sided bearoff databases: exact cubeless and cubeful money equities.

For every pair (roller's position i, opponent's position j) of a P x C space the table
holds four values, as gnubg's ``makebearoff -t PxC`` does (``makebearoff.c:BearOff2``):

0. cubeless equity ``2p - 1`` (gammons are impossible to count here: with at most C
   checkers a side, p is the probability that the roller finishes first);
1. cubeful money equity per unit cube when the roller owns the cube;
2. ... when the cube is centred;
3. ... when the opponent owns the cube.

The cubeful values are *before the roller's own cube decision* ("no double" values, as
gnubg and Sconyers store them): both sides use the cube optimally at every later turn,
but the root decision is left to :func:`cube_decision`.

Recursion (float64). With ``S(i, r)`` the positions the roller can reach with roll r,
weights ``w_r`` 1 (doubles) or 2 out of 36, and ``x = E[j, s]`` the values with the
opponent on roll:

.. math::

    E_v[i, j] = \\sum_r \\frac{w_r}{36} \\max_{s \\in S(i, r)} g_v(E[j, s])

    g_0 = -x_0, \\quad g_1 = -x_3, \\quad
    g_2 = -\\max(x_2, \\min(2 x_3, 1)), \\quad g_3 = -\\max(x_1, \\min(2 x_3, 1))

with ``E[0, j] = +1`` (the roller has borne off) and ``E[i, 0] = -1`` (i > 0). In
``g_2``/``g_3`` the opponent, on roll with access to the cube (centred, or owning it),
doubles when double/take ``2 x_3`` or double/pass ``+1`` (the taker picks the smaller,
``min(2 x_3, 1)``) is at least its no-double value; after a double/take the roller owns
the cube. When the roller owns the cube (``g_1``) the opponent cannot double.

The DP runs in shells ``m = max(i, j)``: E[i, j] needs E[j, s] with ``s < i``; the row
part of a shell (E[m, j], j < m) depends only on earlier shells and the column part
(E[i, m], i <= m) only on earlier shells and the row m, so each part is computed in
parallel (numba ``prange``).

``gnubg=True`` reproduces gnubg's 16-bit integer arithmetic exactly (``~x`` negation,
its ``CubeEquity`` with C integer division, sum / 36 truncated), which gives its
``.bd`` file byte for byte.

References
----------
gnubg ``makebearoff.c`` (``BearOff2``, ``CubeEquity``), ``eval.c``
(``EvaluatePerfectCubeful``); Hugh Sconyers' bearoff databases (four cube states).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from mathbg._deprecation import warn_deprecated
from mathbg.bearoff.index import check_size, n_positions
from mathbg.cube.decisions import CubeAction, CubeDecision, classify
from mathbg.errors import InvalidParameterError
from mathbg.rules.cube import CubeOwner

__all__ = [
    "CUBE_STATES",
    "OWNER_COLUMN",
    "CubeDecision",
    "build_arrays",
    "cube_decision",
]

#: Column of each cube state in a two-sided table.
CUBE_STATES = {"cubeless": 0, "owned": 1, "centred": 2, "opponent_owns": 3}
#: Column of the stored 4-vector holding the no-double equity for each cube owner.
OWNER_COLUMN: dict[CubeOwner, int] = {
    CubeOwner.PLAYER: 1,
    CubeOwner.CENTRE: 2,
    CubeOwner.OPPONENT: 3,
}

#: Shells with at least this many successor evaluations run in parallel (``_schedule``).
_PARALLEL_SHELL = 1.0e6
#: Successor evaluations per kernel call at most (progress granularity).
_BATCH = 5.0e7
#: Opponent positions per parallel task in a shell's row part.
_ROW_BLOCK = 64

ProgressHook = Callable[[int], None]


def build_arrays(
    points: int,
    checkers: int,
    *,
    gnubg: bool = False,
    out: NDArray | None = None,
    progress: ProgressHook | None = None,
) -> NDArray:
    """Compute the two-sided table ``E[roller, opponent, value]`` of a P x C space.

    Parameters
    ----------
    points, checkers : int
        The space: at most ``checkers`` checkers a side on points 1..``points``.
    gnubg : bool
        False: float64 equities (exact up to float rounding). True: gnubg's int16
        fixed point (equity ``x / 32767.5`` after ``x + 32768`` is stored as uint16).
    out : numpy.ndarray, optional
        Array (e.g. a memory map) of shape (n, n, 4) and dtype float64 (int16 when
        ``gnubg``) to fill; allocated when omitted.
    progress : callable, optional
        Called with the number of pairs finished after each batch of shells.

    Returns
    -------
    numpy.ndarray
        ``E`` of shape (n, n, 4), n = C(P + C, P).
    """
    from mathbg.bearoff._kernels import ts_shells_parallel, ts_shells_serial
    from mathbg.bearoff._schedule import dynamic_chunks, plan
    from mathbg.bearoff.moves import successors

    check_size(points, checkers)
    n = n_positions(points, checkers)
    dtype = np.int16 if gnubg else np.float64
    if out is None:
        out = np.empty((n, n, 4), dtype)
    elif out.shape != (n, n, 4) or out.dtype != dtype:
        raise InvalidParameterError(f"out must have shape {(n, n, 4)} and dtype {dtype}")
    table = successors(points, checkers)
    transposed = np.empty((n, n, 4), dtype)
    # successor evaluations per shell: row part (m - 1) x |succ(m)|, column part
    # sum_{i <= m} |succ(i)|
    per_position = np.diff(table.ptr[::21]).astype(np.float64)
    work = np.arange(-1, n - 1).clip(0) * per_position + np.cumsum(per_position)
    for m0, m1, parallel in plan(work, parallel_min=_PARALLEL_SHELL, batch=_BATCH):
        args = (m0, m1, table.ptr, table.succ, out, transposed, gnubg, _ROW_BLOCK)
        if parallel:
            with dynamic_chunks():
                ts_shells_parallel(*args)
        else:
            ts_shells_serial(*args)
        if progress is not None:
            progress(m1 * m1 - m0 * m0)
    del transposed
    return out


def cube_decision(
    values: NDArray[np.floating],
    owner: CubeOwner | str = CubeOwner.CENTRE,
    *,
    cube: str | None = None,
) -> CubeDecision:
    """Apply the roller's root cube decision to a stored 4-vector of equities.

    Parameters
    ----------
    values : array_like, shape (4,)
        [cubeless, roller owns, centred, opponent owns] no-double equities of a pair.
    owner : CubeOwner or str
        Who owns the cube before the roller's turn (``"centre"``, ``"player"`` = the
        roller, ``"opponent"``; the old ``"centred"``, ``"owned"``, ``"opponent_owns"``
        are deprecated).
    cube : str, optional
        Deprecated spelling of ``owner``.

    Returns
    -------
    mathbg.cube.decisions.CubeDecision
        Money equities per unit cube (``unit="equity"``): ND = the stored value for the
        owner, DT = 2 x the stored "opponent owns" value (after the double the opponent
        owns a 2-cube), DP = +1; the action is named by
        :func:`mathbg.cube.decisions.classify` without gammons (doubling wins ties, and
        DT = DP is named a pass), or "cube not available" when the opponent owns the cube.

    Notes
    -----
    The roller doubles when ``min(DT, DP) >= ND`` (gnubg's ``CubeEquity`` convention) and
    the optimal value is ``max(ND, min(DT, DP))``.
    """
    if cube is not None:
        warn_deprecated("cube_decision(cube=...)", "cube_decision(owner=...)")
        owner = cube
    who = CubeOwner.parse(owner)
    v = np.asarray(values, dtype=np.float64)
    nd = float(v[OWNER_COLUMN[who]])
    dt = 2.0 * float(v[OWNER_COLUMN[CubeOwner.OPPONENT]])
    dp = 1.0
    if who == CubeOwner.OPPONENT:
        return CubeDecision(CubeAction.NOT_AVAILABLE, nd, None, None, nd, "equity")
    action = classify(nd, dt, dp, can_gammon=False, beavers=False, money=True)
    optimal = min(dt, dp) if action.doubles else nd
    return CubeDecision(action, nd, dt, dp, optimal, "equity")
