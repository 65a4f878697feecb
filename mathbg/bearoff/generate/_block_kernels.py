# mypy: disable-error-code="assignment"
# (numba infers the local types; mypy would pin them at their first, Python-int, value)
"""numba kernels of the block-wise two-sided build (internal; compiled lazily on first call).

One kernel computes one pip-class block ``(a, b)`` of the two-sided table (see
:mod:`mathbg.bearoff.generate.pipblocks`); the local build runs it over a layer's blocks in
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

The integer (gnubg) and float branches of the inner loop over the 21 rolls are written
out twice on purpose: each keeps its four values in scalars of its own type (int64 or
float64) that numba holds in registers; one shared loop would need a helper call or a
type switch in the hottest loop of the build.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

#: Weight (out of 36) of each roll in gnubg's order (1 for doubles, 2 otherwise).
WEIGHTS = np.array([1 if d0 == d1 else 2 for d0 in range(1, 7) for d1 in range(1, d0 + 1)],
                   dtype=np.int64)  # fmt: skip


@njit(cache=True)
def pip_order_lengths(ptr: Any, succ: Any, order: Any, lengths: Any) -> None:
    """Row lengths of the pip-order CSR: a (position, roll) that can bear its last checker
    off keeps only that play (its value, +1, is the largest possible), else all plays."""
    n = len(order)
    for p in range(n):
        g = order[p]
        for r in range(21):
            lo = ptr[g * 21 + r]
            hi = ptr[g * 21 + r + 1]
            m = hi - lo
            for q in range(lo, hi):
                if succ[q] == 0:
                    m = 1
                    break
            lengths[p * 21 + r] = m


@njit(cache=True)
def pip_order_csr(
    ptr: Any, succ: Any, order: Any, rank_of: Any, new_ptr: Any, new_succ: Any
) -> None:
    """Successor CSR in pip order: row ``p*21 + r`` lists the pip-order indices of the
    successors of pip-order position ``p`` (gnubg index ``order[p]``); a row with the
    all-off successor is just ``[0]``. ``new_ptr`` comes from :func:`pip_order_lengths`."""
    n = len(order)
    for p in range(n):
        g = order[p]
        for r in range(21):
            lo = ptr[g * 21 + r]
            hi = ptr[g * 21 + r + 1]
            dst = new_ptr[p * 21 + r]
            if new_ptr[p * 21 + r + 1] - dst == 1 and hi - lo > 1:
                new_succ[dst] = 0
                continue
            for q in range(lo, hi):
                new_succ[dst] = rank_of[succ[q]]
                dst += 1


@njit(cache=True, inline="always")
def _half(nd: Any) -> Any:
    """C's ``nd / 2`` on integers (truncation toward zero)."""
    return (nd + (nd < 0)) >> 1


@njit(cache=True)
def fill_block(
    a: Any,
    b: Any,
    offsets: Any,
    ptr: Any,
    succ: Any,
    src: Any,
    base: Any,
    dst: Any,
    dst0: Any,
    nv: Any,
    gnubg: Any,
) -> None:
    """Compute block (a, b) into ``dst[dst0 : dst0 + |a| |b| nv]``.

    Input block (b, c) (row = the opponent j of this block, now on roll, column = the
    roller's successor s) starts at ``src[base[c]]``. The opponent row j is the outer
    loop: its values in the input blocks are first gathered into one contiguous row (in
    pip order, from class ``max(1, a - 24)`` on), which every roller of class a then
    reads. A successor list ``[0]`` (the roller bears the last checker off) has the
    value +1.

    The maximum over plays of ``g(x)`` is taken as a minimum over the opponent's values:
    ``-x0``, ``-x3``, ``-max(x2, DT)`` and ``-max(x1, DT)`` (float), ``~x`` and ``~CubeEquity``
    (gnubg) are decreasing in the tracked quantity, so the results are the same bits.
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
    first_col = offsets[lo]
    width = offsets[hi + 1] - first_col if hi >= lo else 0
    # the opponent's row, transformed once per row into the quantities whose minimum over
    # plays gives the roller's best value: (x0, x3, CubeEquity(x2, x3), CubeEquity(x1, x3))
    # in gnubg's integers (stored + 32768, so in the uint16 range of the storage),
    # (z0, z3, max(z2, DT), max(z1, DT)) in floats (exact in the storage type)
    row = np.empty(max(width, 1) * nv, src.dtype)
    first = offsets[a]
    for jj in range(nb):
        for c in range(lo, hi + 1):
            count = offsets[c + 1] - offsets[c]
            s0 = base[c] + jj * count * nv
            d0 = (offsets[c] - first_col) * nv
            if nv == 1:
                for e in range(count):
                    row[d0 + e] = src[s0 + e]
                continue
            for e in range(count):
                k = s0 + 4 * e
                o = d0 + 4 * e
                if gnubg:
                    x1 = np.int64(src[k + 1]) - 32768
                    x2 = np.int64(src[k + 2]) - 32768
                    x3 = np.int64(src[k + 3]) - 32768
                    dd = 32767 if x3 >= 16383 else 2 * x3
                    row[o] = src[k]
                    row[o + 1] = src[k + 3]
                    row[o + 2] = (dd if x3 >= _half(x2) else x2) + 32768
                    row[o + 3] = (dd if x3 >= _half(x1) else x1) + 32768
                else:
                    z3 = src[k + 3]
                    dt = min(2.0 * z3, 1.0)
                    row[o] = src[k]
                    row[o + 1] = z3
                    row[o + 2] = max(src[k + 2], dt)
                    row[o + 3] = max(src[k + 1], dt)
        for ii in range(na):
            i = first + ii
            out = dst0 + (ii * nb + jj) * nv
            if gnubg:
                t0 = 0
                t1 = 0
                t2 = 0
                t3 = 0
                for r in range(21):
                    q0 = ptr[i * 21 + r]
                    q1 = ptr[i * 21 + r + 1]
                    w = WEIGHTS[r]
                    if succ[q0] == 0:
                        t0 += w * 32767
                        t1 += w * 32767
                        t2 += w * 32767
                        t3 += w * 32767
                        continue
                    m0 = 65535
                    m1 = 65535
                    m2 = 65535
                    m3 = 65535
                    if nv == 1:
                        for q in range(q0, q1):
                            m0 = min(m0, np.int64(row[succ[q] - first_col]))
                    else:
                        for q in range(q0, q1):
                            k = (succ[q] - first_col) * 4
                            m0 = min(m0, np.int64(row[k]))
                            m1 = min(m1, np.int64(row[k + 1]))
                            m2 = min(m2, np.int64(row[k + 2]))
                            m3 = min(m3, np.int64(row[k + 3]))
                    # ~x of the smallest x: -(m - 32768) - 1
                    t0 += w * (32767 - m0)
                    t1 += w * (32767 - m1)
                    t2 += w * (32767 - m2)
                    t3 += w * (32767 - m3)
                q = abs(t0) // 36
                dst[out] = (q if t0 >= 0 else -q) + 32768
                if nv == 4:
                    q = abs(t1) // 36
                    dst[out + 1] = (q if t1 >= 0 else -q) + 32768
                    q = abs(t2) // 36
                    dst[out + 2] = (q if t2 >= 0 else -q) + 32768
                    q = abs(t3) // 36
                    dst[out + 3] = (q if t3 >= 0 else -q) + 32768
            else:
                f0 = 0.0
                f1 = 0.0
                f2 = 0.0
                f3 = 0.0
                for r in range(21):
                    q0 = ptr[i * 21 + r]
                    q1 = ptr[i * 21 + r + 1]
                    w = WEIGHTS[r]
                    if succ[q0] == 0:
                        f0 += w * 1.0
                        f1 += w * 1.0
                        f2 += w * 1.0
                        f3 += w * 1.0
                        continue
                    g0 = np.inf
                    g1 = np.inf
                    g2 = np.inf
                    g3 = np.inf
                    if nv == 1:
                        for q in range(q0, q1):
                            g0 = min(g0, np.float64(row[succ[q] - first_col]))
                    else:
                        for q in range(q0, q1):
                            k = (succ[q] - first_col) * 4
                            g0 = min(g0, np.float64(row[k]))
                            g1 = min(g1, np.float64(row[k + 1]))
                            g2 = min(g2, np.float64(row[k + 2]))
                            g3 = min(g3, np.float64(row[k + 3]))
                    f0 += w * -g0
                    f1 += w * -g1
                    f2 += w * -g2
                    f3 += w * -g3
                dst[out] = f0 / 36.0
                if nv == 4:
                    dst[out + 1] = f1 / 36.0
                    dst[out + 2] = f2 / 36.0
                    dst[out + 3] = f3 / 36.0


@njit(parallel=True, cache=True, nogil=True)
def layer_kernel(
    blk_a: Any,
    blk_b: Any,
    start: Any,
    offsets: Any,
    ptr: Any,
    succ: Any,
    arena: Any,
    nv: Any,
    gnubg: Any,
) -> None:
    """Compute the blocks ``(blk_a[t], blk_b[t])`` (independent) in parallel, in the arena.

    ``start[a, b]`` is the arena offset of block (a, b) (-1 when not resident). The caller
    sets numba's chunk size to 1 so blocks (sorted largest first) are handed out one at a
    time.
    """
    for t in prange(len(blk_a)):
        a = blk_a[t]
        b = blk_b[t]
        fill_block(a, b, offsets, ptr, succ, arena, start[b], arena, start[a, b], nv, gnubg)


@njit(cache=True, nogil=True)
def serial_kernel(
    blk_a: Any,
    blk_b: Any,
    start: Any,
    offsets: Any,
    ptr: Any,
    succ: Any,
    arena: Any,
    nv: Any,
    gnubg: Any,
) -> None:
    """:func:`layer_kernel` on one thread, in order (so the blocks may depend on earlier
    ones of the same call)."""
    for t in range(len(blk_a)):
        a = blk_a[t]
        b = blk_b[t]
        fill_block(a, b, offsets, ptr, succ, arena, start[b], arena, start[a, b], nv, gnubg)


@njit(cache=True, nogil=True)
def block_kernel(
    a: Any,
    b: Any,
    offsets: Any,
    ptr: Any,
    succ: Any,
    src: Any,
    base: Any,
    dst: Any,
    nv: Any,
    gnubg: Any,
) -> None:
    """Compute one block into the flat array ``dst`` (one thread)."""
    fill_block(a, b, offsets, ptr, succ, src, base, dst, 0, nv, gnubg)
