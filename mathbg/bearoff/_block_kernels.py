"""numba kernels of the block-wise two-sided build (internal; compiled lazily on first call).

One kernel computes one pip-class block ``(a, b)`` of the two-sided table (see
:mod:`mathbg.bearoff.pipblocks`); the local build runs it over a layer's blocks in
parallel (:func:`layer_kernel`), the Dask backend once per task (:func:`block_kernel`).

Values are stored in one of three encodings:

- float32 or float64 equities (``gnubg=False``): the recursion of
  :mod:`mathbg.bearoff.twosided` in float64 arithmetic per pair, rounded to the storage
  type after the average over the 21 rolls;
- gnubg's 16-bit fixed point (``gnubg=True``, uint16 ``u = x + 32768`` for gnubg's int16
  ``x``, equity ``u / 32767.5 - 1``): ``makebearoff.c:BearOff2``'s integer arithmetic
  (negation ``~x``, ``CubeEquity`` with C division, the sum over rolls divided by 36 with
  truncation), which reproduces gnubg's ``.bd`` files byte for byte.

A block is a C-ordered array ``[roller, opponent, value]`` of ``nv`` values a pair (1:
cubeless only; 4: cubeless, owned, centred, opponent owns). The kernel reads the input
blocks ``(b, c)`` through a flat buffer ``src`` and the offsets ``base[c]`` of each block
in it, so the same code serves a ring-buffer arena (local build) and a buffer of
concatenated input blocks (one Dask task).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

#: Weight (out of 36) of each roll in gnubg's order (1 for doubles, 2 otherwise).
WEIGHTS = np.array([1 if d0 == d1 else 2 for d0 in range(1, 7) for d1 in range(1, d0 + 1)],
                   dtype=np.int64)  # fmt: skip


@njit(cache=True)
def pip_order_csr(ptr, succ, order, rank_of, pip, offsets, new_ptr, new_cls, new_col):
    """Successor CSR in pip order: row ``p*21 + r`` lists the successors of pip-order position
    ``p`` (gnubg index ``order[p]``) as (pip class, column within the class).

    ``new_ptr`` must be filled by the caller (cumulative row lengths).
    """
    n = len(order)
    for p in range(n):
        g = order[p]
        for r in range(21):
            lo = ptr[g * 21 + r]
            hi = ptr[g * 21 + r + 1]
            dst = new_ptr[p * 21 + r]
            for q in range(lo, hi):
                s = rank_of[succ[q]]
                c = pip[s]
                new_cls[dst] = c
                new_col[dst] = s - offsets[c]
                dst += 1


@njit(cache=True, inline="always")
def _cube_gnubg(nd, dt):
    """gnubg ``CubeEquity(ND, DT, DP=0x7FFF)`` on int16 equities (C integer division)."""
    half = -((-nd) // 2) if nd < 0 else nd // 2
    if dt >= half and 0x7FFF >= nd:
        if dt >= 0x7FFF // 2:
            return 0x7FFF
        return 2 * dt
    return nd


@njit(cache=True)
def fill_block(a, b, offsets, ptr, cls, col, src, base, dst, dst0, nv, gnubg):
    """Compute block (a, b) into ``dst[dst0 : dst0 + |a| |b| nv]``.

    Input block (b, c) (row = the opponent j of this block, now on roll, column = the
    roller's successor s) starts at ``src[base[c]]``; the all-off successor (class 0) is
    the constant E[j, 0] = -1. The opponent row j is the outer loop so that the rows
    ``E[j, .]`` read for all rollers of class a stay in cache.
    """
    na = offsets[a + 1] - offsets[a]
    nb = offsets[b + 1] - offsets[b]
    if a == 0 or b == 0:
        if gnubg:
            value = 32767 + 32768 if a == 0 else 0
        else:
            value = 1.0 if a == 0 else -1.0
        for k in range(na * nb * nv):
            dst[dst0 + k] = value
        return
    lo = max(1, a - 24)
    hi = a - 2
    width = max(hi - lo + 1, 1)
    rowbase = np.zeros(width, np.int64)
    stride = np.zeros(width, np.int64)
    for c in range(lo, hi + 1):
        stride[c - lo] = (offsets[c + 1] - offsets[c]) * nv
    first = offsets[a]
    for jj in range(nb):
        for c in range(lo, hi + 1):
            rowbase[c - lo] = base[c] + jj * stride[c - lo]
        for ii in range(na):
            i = first + ii
            out = dst0 + (ii * nb + jj) * nv
            if gnubg:
                if nv == 1:
                    t0 = 0
                    for r in range(21):
                        b0 = -65535
                        for q in range(ptr[i * 21 + r], ptr[i * 21 + r + 1]):
                            c = cls[q]
                            if c == 0:
                                v0 = 32767
                            else:
                                k = rowbase[c - lo] + col[q]
                                v0 = -(np.int64(src[k]) - 32768) - 1
                            if v0 > b0:
                                b0 = v0
                        t0 += WEIGHTS[r] * b0
                    q0 = abs(t0) // 36
                    dst[out] = (q0 if t0 >= 0 else -q0) + 32768
                else:
                    t0 = 0
                    t1 = 0
                    t2 = 0
                    t3 = 0
                    for r in range(21):
                        b0 = -65535
                        b1 = -65535
                        b2 = -65535
                        b3 = -65535
                        for q in range(ptr[i * 21 + r], ptr[i * 21 + r + 1]):
                            c = cls[q]
                            if c == 0:
                                v0 = 32767
                                v1 = 32767
                                v2 = 32767
                                v3 = 32767
                            else:
                                k = rowbase[c - lo] + col[q] * 4
                                x0 = np.int64(src[k]) - 32768
                                x1 = np.int64(src[k + 1]) - 32768
                                x2 = np.int64(src[k + 2]) - 32768
                                x3 = np.int64(src[k + 3]) - 32768
                                v0 = -x0 - 1
                                v1 = -x3 - 1
                                v2 = -_cube_gnubg(x2, x3) - 1
                                v3 = -_cube_gnubg(x1, x3) - 1
                            if v0 > b0:
                                b0 = v0
                            if v1 > b1:
                                b1 = v1
                            if v2 > b2:
                                b2 = v2
                            if v3 > b3:
                                b3 = v3
                        w = WEIGHTS[r]
                        t0 += w * b0
                        t1 += w * b1
                        t2 += w * b2
                        t3 += w * b3
                    q0 = abs(t0) // 36
                    q1 = abs(t1) // 36
                    q2 = abs(t2) // 36
                    q3 = abs(t3) // 36
                    dst[out] = (q0 if t0 >= 0 else -q0) + 32768
                    dst[out + 1] = (q1 if t1 >= 0 else -q1) + 32768
                    dst[out + 2] = (q2 if t2 >= 0 else -q2) + 32768
                    dst[out + 3] = (q3 if t3 >= 0 else -q3) + 32768
            elif nv == 1:
                f0 = 0.0
                for r in range(21):
                    g0 = -np.inf
                    for q in range(ptr[i * 21 + r], ptr[i * 21 + r + 1]):
                        c = cls[q]
                        if c == 0:
                            y0 = 1.0
                        else:
                            y0 = -np.float64(src[rowbase[c - lo] + col[q]])
                        if y0 > g0:
                            g0 = y0
                    f0 += WEIGHTS[r] * g0
                dst[out] = f0 / 36.0
            else:
                f0 = 0.0
                f1 = 0.0
                f2 = 0.0
                f3 = 0.0
                for r in range(21):
                    g0 = -np.inf
                    g1 = -np.inf
                    g2 = -np.inf
                    g3 = -np.inf
                    for q in range(ptr[i * 21 + r], ptr[i * 21 + r + 1]):
                        c = cls[q]
                        if c == 0:
                            y0 = 1.0
                            y1 = 1.0
                            y2 = 1.0
                            y3 = 1.0
                        else:
                            k = rowbase[c - lo] + col[q] * 4
                            z0 = np.float64(src[k])
                            z1 = np.float64(src[k + 1])
                            z2 = np.float64(src[k + 2])
                            z3 = np.float64(src[k + 3])
                            dt = min(2.0 * z3, 1.0)
                            y0 = -z0
                            y1 = -z3
                            y2 = -max(z2, dt)
                            y3 = -max(z1, dt)
                        if y0 > g0:
                            g0 = y0
                        if y1 > g1:
                            g1 = y1
                        if y2 > g2:
                            g2 = y2
                        if y3 > g3:
                            g3 = y3
                    w = WEIGHTS[r]
                    f0 += w * g0
                    f1 += w * g1
                    f2 += w * g2
                    f3 += w * g3
                dst[out] = f0 / 36.0
                dst[out + 1] = f1 / 36.0
                dst[out + 2] = f2 / 36.0
                dst[out + 3] = f3 / 36.0


@njit(parallel=True, cache=True, nogil=True)
def layer_kernel(blk_a, blk_b, start, offsets, ptr, cls, col, arena, nv, gnubg):
    """Compute the blocks ``(blk_a[t], blk_b[t])`` (independent) in parallel, in the arena.

    ``start[a, b]`` is the arena offset of block (a, b) (-1 when not resident). The caller
    sets numba's chunk size to 1 so blocks (sorted largest first) are handed out one at a
    time.
    """
    for t in prange(len(blk_a)):
        a = blk_a[t]
        b = blk_b[t]
        fill_block(a, b, offsets, ptr, cls, col, arena, start[b], arena, start[a, b], nv, gnubg)


@njit(cache=True, nogil=True)
def block_kernel(a, b, offsets, ptr, cls, col, src, base, dst, nv, gnubg):
    """Compute one block into the flat array ``dst`` (one thread)."""
    fill_block(a, b, offsets, ptr, cls, col, src, base, dst, 0, nv, gnubg)
