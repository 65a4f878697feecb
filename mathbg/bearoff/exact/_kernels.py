"""numba kernels of the exact match-play bearoff solver (internal; compiled on first call).

Nothing here is public API; :mod:`mathbg.bearoff.exact.match` builds the inputs and wraps them.

Layout
------
A game is solved for every pair ``(x, y)`` of one-side positions (x the roller, y the
opponent) and every cube state ``q`` of a compact list of ``S`` states (cube level, owner,
which player is on roll, plus a cubeless state). The table ``QT`` holds

    ``QT[y, x, q] = A[x, y, perm[q]]``

where ``A[x, y, k]`` is the roller's match winning chance (MWC) at the start of his turn
(before his cube decision, decisions optimal) in state ``k``, and ``perm[q]`` is state
``q`` seen from the other side (roller and opponent exchanged). Stored that way, the
values a roller in state ``q`` at ``(i, j)`` needs after a play to ``s`` are
``A[j, s, perm[q]] = QT[s, j, q]``: contiguous in ``(j, q)`` for a fixed successor.

Recursion (the roller in state q at (i, j), rolls r with weights w_r / 36, successors
S(i, r))::

    N[i, j, q] = 1 - sum_r w_r / 36 * min_{s in S(i, r)} QT[s, j, q]
    A[i, j, q] = max(N[q], min(N[dbl[q]], win[q]))   if can_double[q]   else N[q]

(min over the opponent's MWC = max over the roller's; after a double/take the roller
still rolls, with the doubled cube owned by the opponent: state ``dbl[q]``; a pass gives
the doubler ``win[q]``, the MWC of winning the current cube). Base entries:
``A[x, 0, q] = 1 - win[perm[q]]`` (the opponent has borne off: the roller lost the cube),
so ``QT[0, x, q] = 1 - win[q]`` and a play that bears off the last checker reads
``1 - QT[0, j, q] = win[q]``.

Order: shells ``m = max(i, j)`` (every play lowers a position's index): the row part
``(m, j)``, ``j < m``, reads only earlier shells; the column part ``(i, m)``, ``i <= m``,
reads earlier shells and the row part of shell ``m``. The kernels release the GIL:
independent games (e.g. the scores of one anti-diagonal of a race MET) run in parallel
threads. Inside one game everything runs on
one thread: on a shared 2-core machine, per-shell parallel regions (two barriers per
shell) were up to ten times slower than one thread whenever the other core was busy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from mathbg.bearoff._play_kernels import ROLL_WEIGHTS


@njit(cache=True, nogil=True)
def base_entries(m: Any, QT: Any, win: Any, perm: Any) -> None:
    """Fill ``A[m, 0, :]`` (the opponent is off: the roller lost) into ``QT[0, m, :]``.

    ``QT[0, m, q] = A[m, 0, perm[q]] = 1 - win[perm[perm[q]]] = 1 - win[q]``.
    """
    if m > 0:
        for q in range(win.shape[0]):
            QT[0, m, q] = 1.0 - win[q]


@njit(cache=True)
def _decide(nvec: Any, avec: Any, win: Any, can_double: Any, dbl: Any) -> None:
    """``A = max(N, min(N[dbl], win))`` where the roller may double, else ``N``."""
    S = win.shape[0]
    for q in range(S):
        a = nvec[q]
        if can_double[q]:
            dt = nvec[dbl[q]]
            dp = win[q]
            take_or_pass = dt if dt < dp else dp
            if take_or_pass > a:
                a = take_or_pass
        avec[q] = a


# row_block, column_block and shells_serial take the same tables one by one (njit kernels
# take arrays, not objects); their loops differ (a row of opponents, a column of rollers,
# whole shells), so the repeated parameter lists stay.
@njit(cache=True, nogil=True)
def row_block(
    m: Any,
    j0: Any,
    j1: Any,
    ptr: Any,
    succ: Any,
    QT: Any,
    win: Any,
    perm: Any,
    can_double: Any,
    dbl: Any,
    NOUT: Any,
    nsel: Any,
    store: Any,
    acc: Any,
    best: Any,
) -> None:
    """Entries ``(m, j)`` for ``j0 <= j < j1``: the roller ``m`` against opponents ``j``.

    Reads ``QT[s, j0:j1, :]`` (contiguous) for every successor ``s`` of ``m``.
    """
    S = win.shape[0]
    nj = j1 - j0
    width = nj * S
    base = j0 * S
    for k in range(width):
        acc[k] = 0.0
    for r in range(21):
        lo = ptr[m * 21 + r]
        hi = ptr[m * 21 + r + 1]
        # slices indexed from 0 (no wrap-around checks) let LLVM vectorise the min
        src = QT[succ[lo]].reshape(-1)[base : base + width]
        for k in range(width):
            best[k] = src[k]
        for qq in range(lo + 1, hi):
            src = QT[succ[qq]].reshape(-1)[base : base + width]
            for k in range(width):
                best[k] = min(best[k], src[k])
        w = ROLL_WEIGHTS[r]
        for k in range(width):
            acc[k] += w * best[k]
    nvec = np.empty(S)
    avec = np.empty(S)
    for jj in range(nj):
        for q in range(S):
            nvec[q] = 1.0 - acc[jj * S + q] / 36.0
        _decide(nvec, avec, win, can_double, dbl)
        j = j0 + jj
        for q in range(S):
            QT[j, m, q] = avec[perm[q]]
        if store:
            for k in range(nsel.shape[0]):
                NOUT[m, j, k] = nvec[nsel[k]]


@njit(cache=True, nogil=True)
def pair_no_double(i: Any, col: Any, ptr: Any, succ: Any, nvec: Any, best: Any) -> None:
    """``N[i, j, :]`` (no-double MWCs of every state) of the roller ``i`` against a fixed
    opponent ``j`` whose values ``col[s, :] = QT[s, j, :]`` have been gathered."""
    S = nvec.shape[0]
    for q in range(S):
        nvec[q] = 0.0
    for r in range(21):
        lo = ptr[i * 21 + r]
        hi = ptr[i * 21 + r + 1]
        src = col[succ[lo]]
        for q in range(S):
            best[q] = src[q]
        for qq in range(lo + 1, hi):
            src = col[succ[qq]]
            for q in range(S):
                best[q] = min(best[q], src[q])
        w = ROLL_WEIGHTS[r]
        for q in range(S):
            nvec[q] += w * best[q]
    for q in range(S):
        nvec[q] = 1.0 - nvec[q] / 36.0


@njit(cache=True, nogil=True)
def gather_column(m: Any, QT: Any, col: Any) -> None:
    """``col[s, :] = QT[s, m, :]`` for ``s <= m``: the values ``A[m, s]`` the column part
    of shell m reads, made contiguous."""
    for s in range(m + 1):
        for q in range(col.shape[1]):  # element-wise: a slice copy compiles numba's
            col[s, q] = QT[s, m, q]  # shape-mismatch error path (seconds on first use)


@njit(cache=True, nogil=True)
def column_block(
    m: Any,
    i0: Any,
    i1: Any,
    col: Any,
    ptr: Any,
    succ: Any,
    QT: Any,
    win: Any,
    perm: Any,
    can_double: Any,
    dbl: Any,
    NOUT: Any,
    nsel: Any,
    store: Any,
) -> None:
    """Entries ``(i, m)``, ``i0 <= i < i1``: the rollers ``i`` against the opponent ``m``."""
    S = win.shape[0]
    nvec = np.empty(S)
    avec = np.empty(S)
    best = np.empty(S)
    for i in range(i0, i1):
        pair_no_double(i, col, ptr, succ, nvec, best)
        _decide(nvec, avec, win, can_double, dbl)
        row = QT[m, i]
        for q in range(S):
            row[q] = avec[perm[q]]
        if store:
            for k in range(nsel.shape[0]):
                NOUT[i, m, k] = nvec[nsel[k]]


@njit(cache=True, nogil=True)
def shells_serial(
    m_lo: Any,
    m_hi: Any,
    ptr: Any,
    succ: Any,
    QT: Any,
    win: Any,
    perm: Any,
    can_double: Any,
    dbl: Any,
    NOUT: Any,
    nsel: Any,
    store: Any,
    block: Any,
) -> None:
    """Fill the shells ``m_lo <= m < m_hi`` on one thread."""
    S = win.shape[0]
    acc = np.empty(block * S)
    best = np.empty(block * S)
    col = np.empty((m_hi, S))
    for m in range(m_lo, m_hi):
        base_entries(m, QT, win, perm)
        for j0 in range(1, m, block):
            row_block(
                m,
                j0,
                min(m, j0 + block),
                ptr,
                succ,
                QT,
                win,
                perm,
                can_double,
                dbl,
                NOUT,
                nsel,
                store,
                acc,
                best,
            )
        gather_column(m, QT, col)
        column_block(m, 1, m + 1, col, ptr, succ, QT, win, perm, can_double, dbl, NOUT, nsel, store)
