"""Two-sided bearoff tables: the shell-by-shell generator of the exact money equities.

For every pair (roller's position i, opponent's position j) of a P x C space the table
holds four values, as gnubg's ``makebearoff -t PxC`` does (``makebearoff.c:BearOff2``):

0. cubeless equity ``2p - 1`` (gammons are impossible to count here: with at most C
   checkers a side, p is the probability that the roller finishes first);
1. cubeful money equity per unit cube when the roller owns the cube;
2. ... when the cube is centred;
3. ... when the opponent owns the cube.

The cubeful values are *before the roller's own cube decision* ("no double" values, as
gnubg and Sconyers store them): both sides use the cube optimally at every later turn,
but the root decision is left to :func:`mathbg.bearoff.twosided.cube_decision`.

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

from mathbg.bearoff.index import check_size, n_positions
from mathbg.errors import InvalidParameterError

__all__ = ["build_arrays", "compile_kernels"]

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
    from mathbg.bearoff.build._schedule import dynamic_chunks, plan
    from mathbg.bearoff.build._twosided_kernels import ts_shells_parallel, ts_shells_serial
    from mathbg.bearoff.plays import successors

    check_size(points, checkers)
    n = n_positions(points, checkers)
    dtype = np.int16 if gnubg else np.float64
    if out is None:
        out = np.empty((n, n, 4), dtype)
    elif out.shape != (n, n, 4) or out.dtype != dtype:
        raise InvalidParameterError(f"out must have shape {(n, n, 4)} and dtype {dtype}")
    table = successors(points, checkers)
    transposed = np.empty((n, n, 4), dtype)
    work = _shell_work(table.ptr, n)
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


def _shell_work(ptr: NDArray[np.int64], n: int) -> NDArray[np.float64]:
    """Successor evaluations per shell m: row part (m - 1) x |succ(m)|, column part
    sum_{i <= m} |succ(i)| (``ptr``: the successor table's CSR pointers)."""
    per_position = np.diff(ptr[::21]).astype(np.float64)
    return np.arange(-1, n - 1).clip(0) * per_position + np.cumsum(per_position)


def compile_kernels(points: int, checkers: int, *, gnubg: bool = False) -> None:
    """Compile (or load from numba's cache) the kernels a ``points`` x ``checkers`` build uses.

    Builds the successor table and the two-sided table of a tiny space with the same
    argument types (and runs the parallel shell kernel on it when the real build will), under
    :func:`mathbg._compile.compile_notice`, so a caller can start its progress bar after the
    compiler has finished. Milliseconds once numba's cache is warm.
    """
    from mathbg._compile import compile_notice
    from mathbg.bearoff.build._schedule import dynamic_chunks, threads
    from mathbg.bearoff.build._twosided_kernels import ts_shells_parallel
    from mathbg.bearoff.plays import successors

    with compile_notice("the bearoff kernels"):
        build_arrays(2, 2, gnubg=gnubg)
        # the real space's successor table (kept for its build): does any shell go parallel?
        work = _shell_work(successors(points, checkers).ptr, n_positions(points, checkers))
        if threads() > 1 and bool(np.any(work >= _PARALLEL_SHELL)):
            small = n_positions(2, 2)
            table = successors(2, 2)
            dtype = np.int16 if gnubg else np.float64
            out = np.empty((small, small, 4), dtype)
            transposed = np.empty((small, small, 4), dtype)
            with dynamic_chunks():
                ts_shells_parallel(0, small, table.ptr, table.succ, out, transposed, gnubg, 1)
