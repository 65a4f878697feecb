"""numba kernels of the two-sided shell build (internal; compiled lazily on first call).

:mod:`mathbg.bearoff.build.twosided` wraps these kernels.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from mathbg.bearoff._play_kernels import ROLL_WEIGHTS

# --------------------------------------------------------------------------------------
# Two-sided databases
#
# E[i, j, v]: the side on roll has position i, the opponent position j; v = 0 cubeless
# equity (2p - 1), 1 roller owns the cube, 2 centred, 3 opponent owns (money, cube 1,
# before the roller's own cube decision). ET[j, i] = E[i, j] is kept to stream rows.
# Float mode: E[i,j] = sum_r w_r/36 max_{s in succ(i,r)} g(E[j, s]) with
#   g0 = -x0, g1 = -x3, g2 = -max(x2, min(2 x3, 1)), g3 = -max(x1, min(2 x3, 1))
# (the opponent, on roll at (j, s), doubles when min(2 DT, DP) >= ND; the taker takes
# when 2 DT <= DP = 1). gnubg mode reproduces makebearoff.c:BearOff2's int16 arithmetic:
# negation ~x = -x - 1, CubeEquity with C integer division, total / 36 truncated.


@njit(cache=True)
def _cdiv(a: Any, b: Any) -> Any:
    """C integer division (truncation toward zero); exact on integer-valued floats."""
    q = abs(a) // b
    return q if a >= 0 else -q


@njit(cache=True)
def _cube_gnubg(nd: Any, dt: Any) -> Any:
    """gnubg ``CubeEquity(ND, DT, DP=0x7FFF)`` on int16 equities."""
    if dt >= _cdiv(nd, 2) and 0x7FFF >= nd:
        if dt >= 0x7FFF // 2:
            return 0x7FFF
        return 2 * dt
    return nd


@njit(cache=True)
def _values(x: Any, gnubg: Any) -> Any:
    """The roller's four values after a play leading to the stored opponent entry ``x``.

    Float: ``(-x0, -x3, -max(x2, min(2 x3, 1)), -max(x1, min(2 x3, 1)))``; gnubg: the same
    in int16 arithmetic (``~y`` negation, ``CubeEquity`` with C division).
    """
    if gnubg:
        x1 = np.int64(x[1])
        x3 = np.int64(x[3])
        return (
            -np.int64(x[0]) - 1.0,
            -x3 - 1.0,
            -_cube_gnubg(np.int64(x[2]), x3) - 1.0,
            -_cube_gnubg(x1, x3) - 1.0,
        )
    dt = min(2.0 * x[3], 1.0)
    return -x[0], -x[3], -max(x[2], dt), -max(x[1], dt)


@njit(cache=True)
def _finish(total: Any, gnubg: Any) -> Any:
    if gnubg:
        return _cdiv(total, 36)
    return total / 36.0


@njit(cache=True)
def _ts_base(m: Any, E: Any, ET: Any, gnubg: Any) -> None:
    """Base entries of shell m: E[0, j] = +1 (roller off), E[i, 0] = -1 (i > 0)."""
    win = 32767.0 if gnubg else 1.0
    lose = -32768.0 if gnubg else -1.0
    for v in range(4):
        E[0, m, v] = win
        ET[m, 0, v] = win
        if m > 0:
            E[m, 0, v] = lose
            ET[0, m, v] = lose


@njit(cache=True)
def _ts_row_block(
    m: Any, j0: Any, j1: Any, ptr: Any, succ: Any, E: Any, ET: Any, gnubg: Any, acc: Any, best: Any
) -> None:
    """E[m, j] for j0 <= j < j1: the roller m against opponents j (reads ET[s, j])."""
    low = -65535.0 if gnubg else -np.inf
    nj = j1 - j0
    for jj in range(nj):
        for v in range(4):
            acc[jj, v] = 0.0
    for r in range(21):
        for jj in range(nj):
            for v in range(4):
                best[jj, v] = low
        for q in range(ptr[m * 21 + r], ptr[m * 21 + r + 1]):
            s = succ[q]
            for jj in range(nj):
                v0, v1, v2, v3 = _values(ET[s, j0 + jj], gnubg)
                if v0 > best[jj, 0]:
                    best[jj, 0] = v0
                if v1 > best[jj, 1]:
                    best[jj, 1] = v1
                if v2 > best[jj, 2]:
                    best[jj, 2] = v2
                if v3 > best[jj, 3]:
                    best[jj, 3] = v3
        w = ROLL_WEIGHTS[r]
        for jj in range(nj):
            for v in range(4):
                acc[jj, v] += w * best[jj, v]
    for jj in range(nj):
        for v in range(4):
            val = _finish(acc[jj, v], gnubg)
            E[m, j0 + jj, v] = val
            ET[j0 + jj, m, v] = val


@njit(cache=True)
def _ts_column_entry(m: Any, i: Any, ptr: Any, succ: Any, E: Any, ET: Any, gnubg: Any) -> None:
    """E[i, m]: the roller i against the opponent m (reads the row E[m, s], s < i)."""
    low = -65535.0 if gnubg else -np.inf
    a0 = a1 = a2 = a3 = 0.0
    for r in range(21):
        b0 = b1 = b2 = b3 = low
        for q in range(ptr[i * 21 + r], ptr[i * 21 + r + 1]):
            v0, v1, v2, v3 = _values(E[m, succ[q]], gnubg)
            b0 = max(b0, v0)
            b1 = max(b1, v1)
            b2 = max(b2, v2)
            b3 = max(b3, v3)
        w = ROLL_WEIGHTS[r]
        a0 += w * b0
        a1 += w * b1
        a2 += w * b2
        a3 += w * b3
    for v, total in enumerate((a0, a1, a2, a3)):
        val = _finish(total, gnubg)
        E[i, m, v] = val
        ET[m, i, v] = val


@njit(cache=True)
def ts_shells_serial(
    m_lo: Any, m_hi: Any, ptr: Any, succ: Any, E: Any, ET: Any, gnubg: Any, block: Any
) -> None:
    """Fill the shells ``m_lo <= m < m_hi`` (``m = max(i, j)``) on one thread.

    Shell m needs only shells < m for its row part (E[m, j], j < m: reads E[j, s] with
    s in succ(m) from ET[s, j], contiguous in j) and then the row m for its column part
    (E[i, m], i <= m: reads E[m, s], s < i).
    """
    acc = np.empty((block, 4))
    best = np.empty((block, 4))
    for m in range(m_lo, m_hi):
        _ts_base(m, E, ET, gnubg)
        for j0 in range(1, m, block):
            _ts_row_block(m, j0, min(m, j0 + block), ptr, succ, E, ET, gnubg, acc, best)
        for i in range(1, m + 1):
            _ts_column_entry(m, i, ptr, succ, E, ET, gnubg)


@njit(parallel=True, cache=True)
def ts_shells_parallel(
    m_lo: Any, m_hi: Any, ptr: Any, succ: Any, E: Any, ET: Any, gnubg: Any, block: Any
) -> None:
    """:func:`ts_shells_serial` with each shell's row and column parts in parallel
    (their entries are independent)."""
    for m in range(m_lo, m_hi):
        _ts_base(m, E, ET, gnubg)
        nblk = (m - 1 + block - 1) // block
        for bk in prange(nblk):
            acc = np.empty((block, 4))
            best = np.empty((block, 4))
            j0 = 1 + bk * block
            _ts_row_block(m, j0, min(m, j0 + block), ptr, succ, E, ET, gnubg, acc, best)
        step = max(1, (m + 63) // 64)  # contiguous chunks, handed out one at a time
        for c in prange((m + step - 1) // step):
            for i in range(1 + c * step, min(m, (c + 1) * step) + 1):
                _ts_column_entry(m, i, ptr, succ, E, ET, gnubg)
