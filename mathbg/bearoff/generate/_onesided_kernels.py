"""numba kernels of the one-sided build (internal; compiled lazily on first call).

:mod:`mathbg.bearoff.generate.onesided` wraps these kernels; plays come from
:mod:`mathbg.bearoff._play_kernels` (same conventions).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from mathbg.bearoff._play_kernels import MAX_SUCC, successors_of


@njit(cache=True)
def _round_to_ffff(acc: Any, out: Any, lo: Any) -> None:
    """gnubg's fixed point: ``out = (acc + 18) // 36`` then the residue onto the first mode."""
    total = 0
    mode = 0
    top = -1
    for n in range(32):
        v = (acc[lo + n] + 18) // 36
        out[lo + n] = v
        total += v
        if v > top:
            top = v
            mode = n
    out[lo + mode] = top - (total - 0xFFFF)


@njit(cache=True)
def _least(out: Any, m: Any, values: Any, tol: Any) -> Any:
    """The successor of ``out[:m]`` with the least ``values``: the first one, unless a later
    one is lower by more than ``tol``, and so on (gnubg's tie-break by move order)."""
    best = out[0]
    best_value = values[best]
    for q in range(1, m):
        s = out[q]
        if values[s] < best_value - tol:
            best = s
            best_value = values[s]
    return best


@njit(cache=True)
def _store(
    dist: Any, row: Any, acc: Any, lo: Any, hi: Any, window: Any, mean: Any, i: Any, total: Any
) -> None:
    """Position ``i``'s distribution from the weighted sums ``acc[lo..hi]`` (out of 36, then
    zeroed): ``dist[row]``, its bins ``window = (lo, hi)`` and ``mean[i]``."""
    for n in range(lo, hi + 1):
        dist[row, n] = acc[n] / 36.0
        acc[n] = 0.0
    window[0] = lo
    window[1] = hi
    mean[i] = 1.0 + total / 36.0


@njit(cache=True)
def _os_position(
    i: Any, boards: Any, binom: Any, S: Any, outside2: Any, dist: Any, mean: Any, gdist: Any,
    gmean: Any, gstart: Any, tol: Any, tab: Any, rolls: Any, win: Any,
    flags: Any, out: Any, tails: Any, acc: Any, gacc: Any, iacc: Any,
) -> None:  # fmt: skip
    """Compute one position of a one-sided database (see :func:`os_layers_serial`).

    ``out``, ``tails``, ``acc``, ``gacc`` (zeroed) and ``iacc`` are scratch arrays; ``acc``
    and ``gacc`` are left zeroed.
    """
    nb = dist.shape[1]
    nbg = gdist.shape[1]
    want_float = (flags & 1) != 0
    want_int = (flags & 2) != 0
    int_policy = (flags & 4) != 0
    m_acc = 0.0
    g_acc = 0.0
    d_lo, d_hi, g_lo, g_hi = nb, 0, nbg, 0
    full = i >= gstart
    for n in range(64):
        iacc[n] = 0
    if not full:
        iacc[32] = 0xFFFF * 36
    for d0 in range(1, 7):
        for d1 in range(1, d0 + 1):
            w = 1 if d0 == d1 else 2
            m = successors_of(i, boards, d0, d1, binom, S, outside2, out, tails)
            gbest = out[0]
            if int_policy:
                best = _least(out, m, rolls[:, 0], 0)
                if full:
                    gbest = _least(out, m, rolls[:, 1], 0)
            else:
                best = _least(out, m, mean, tol)
                if full:
                    gbest = _least(out, m, gmean, tol)
            if want_float:
                for n in range(win[best, 0], win[best, 1] + 1):
                    acc[n + 1] += w * dist[best, n]
                d_lo = min(d_lo, win[best, 0] + 1)
                d_hi = max(d_hi, win[best, 1] + 1)
                m_acc += w * mean[best]
                if full:
                    if gbest >= gstart:
                        row = gbest - gstart
                        for n in range(win[gbest, 2], win[gbest, 3] + 1):
                            gacc[n + 1] += w * gdist[row, n]
                        g_lo = min(g_lo, win[gbest, 2] + 1)
                        g_hi = max(g_hi, win[gbest, 3] + 1)
                    else:
                        gacc[1] += w
                        g_lo = min(g_lo, 1)
                        g_hi = max(g_hi, 1)
                    g_acc += w * gmean[gbest]
            if want_int:
                for n in range(31):
                    iacc[n + 1] += w * tab[best, n]
                if full:
                    for n in range(31):
                        iacc[33 + n] += w * tab[gbest, 32 + n]
    if want_float:
        _store(dist, i, acc, d_lo, d_hi, win[i, 0:2], mean, i, m_acc)
        if full:
            _store(gdist, i - gstart, gacc, g_lo, g_hi, win[i, 2:4], gmean, i, g_acc)
    if want_int:
        _round_to_ffff(iacc, tab[i], 0)
        _round_to_ffff(iacc, tab[i], 32)
        r0 = np.int64(0)
        r1 = np.int64(0)
        for n in range(1, 32):
            r0 += n * np.int64(tab[i, n])
            r1 += n * np.int64(tab[i, 32 + n])
        rolls[i, 0] = r0
        rolls[i, 1] = r1


@njit(cache=True)
def os_layers_serial(
    order: Any, lo: Any, hi: Any, boards: Any, binom: Any, S: Any, outside2: Any, dist: Any,
    mean: Any, gdist: Any, gmean: Any, gstart: Any, tol: Any, tab: Any, rolls: Any,
    win: Any, flags: Any,
) -> None:  # fmt: skip
    """Fill the positions ``order[lo:hi]`` of a one-sided database, in order, on one thread.

    ``order`` lists positions by increasing pip count (every play lowers it, so each
    position's successors come first). ``S``/``outside2`` is the move table of
    :func:`single_moves` (or a 1-row dummy: then plays are generated from the boards).

    ``flags`` bit 1: float64 tables ``dist``/``mean`` (and ``gdist``/``gmean`` for the
    15-checker positions, index >= ``gstart``; ``gdist`` row = index - ``gstart``), with
    ``win[i]`` = first and last possibly non-zero bin of
    both distributions; bit 2: gnubg's fixed-point table ``tab`` (uint16[N, 64]: 32 bins,
    then 32 gammon bins) with ``rolls[i] = sum_n n*tab[i, n]`` for both halves; bit 4:
    choose plays by gnubg's fixed-point expected rolls (the first strict minimum in gnubg's
    move order, as ``makebearoff.c:BearOff`` does) instead of the float64 ones (the first
    within ``tol`` of the minimum).

    For each roll the chosen play's distribution is shifted by one roll and added with
    weight 1 (double) or 2 out of 36. The gammon distribution (rolls until the first
    checker is off) uses its own choice, minimising the expected rolls to the first
    checker off; a successor with a checker off has a unit mass at 0. The fixed-point
    table reproduces gnubg's integer arithmetic: accumulation in units of 1/65535 (the
    successor's bin 31 is dropped), ``(x + 18) // 36`` and the residue on the first mode.
    """
    out = np.empty(MAX_SUCC, np.int64)
    tails = np.empty(boards.shape[1] + 1, np.int64)
    acc = np.zeros(dist.shape[1])
    gacc = np.zeros(gdist.shape[1])
    iacc = np.zeros(64, np.int64)
    for t in range(lo, hi):
        _os_position(
            order[t], boards, binom, S, outside2, dist, mean, gdist, gmean, gstart, tol, tab,
            rolls, win, flags, out, tails, acc, gacc, iacc,
        )  # fmt: skip


@njit(parallel=True, cache=True)
def os_layer_parallel(
    order: Any, lo: Any, hi: Any, boards: Any, binom: Any, S: Any, outside2: Any, dist: Any,
    mean: Any, gdist: Any, gmean: Any, gstart: Any, tol: Any, tab: Any, rolls: Any,
    win: Any, flags: Any, nchunks: Any,
) -> None:  # fmt: skip
    """:func:`os_layers_serial` for one pip layer (independent positions), split into
    ``nchunks`` parallel tasks."""
    # contiguous chunks: neighbouring positions share successors (cache reuse); the caller
    # sets numba's parallel chunk size to 1 so chunks are handed out one at a time
    step = (hi - lo + nchunks - 1) // nchunks
    for c in prange(nchunks):
        out = np.empty(MAX_SUCC, np.int64)
        tails = np.empty(boards.shape[1] + 1, np.int64)
        acc = np.zeros(dist.shape[1])
        gacc = np.zeros(gdist.shape[1])
        iacc = np.zeros(64, np.int64)
        for t in range(lo + c * step, min(hi, lo + (c + 1) * step)):
            _os_position(
                order[t], boards, binom, S, outside2, dist, mean, gdist, gmean, gstart, tol,
                tab, rolls, win, flags, out, tails, acc, gacc, iacc,
            )  # fmt: skip
