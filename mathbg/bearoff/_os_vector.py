"""Vectorised (numpy, no compilation) one-sided build with gnubg's policy (internal).

:func:`build` computes, for spaces small enough (6x15 and below, see :func:`fits`), the
same arrays as the numba kernel :func:`mathbg.bearoff._kernels.os_layers_serial` with
``flags = 1 | 2 | 4`` (gnubg's fixed-point table and the float64 distributions of the
plays gnubg chooses), bit for bit. It needs no numba: a first build in a fresh
environment compiles nothing, and a whole ``mathbg bearoff build`` process does not pay
numba's import and start-up (about 0.6 s), which are longer than the 6x15 build itself.

Why paths instead of plays
--------------------------
gnubg chooses, for each roll, the *first strict minimum* of a value over the list of
legal plays in its move-generation order (``makebearoff.c``: ``BearOff``), among the
plays that use the most dice. That list is the enumeration of move sequences: for a
non-double ``a > b``, first die ``a`` from the highest source down then die ``b`` from
the highest source down, then the order ``b``, ``a``; for a double, four moves with
sources never above the previous one. The first strict minimum over the distinct
results equals the lexicographically first minimum over the move *sequences* (a
duplicate result has the value of its first occurrence), so it decomposes over the
moves: with ``F_j(c, s)`` the best (most dice used, then lowest value; first in order on
ties) over sequences of at most ``j`` moves of one die from ``c`` with sources ``<= s``,

.. math::

    F_j(c, s) = \\operatorname{first\\,min}_{s' = s, s-1, \\dots, 0} F_{j-1}(c - s', s'),
    \\qquad F_0(c) = (0, V(c), c)

(``c - s'`` the position after moving a checker from point index ``s'``; with no legal
move, ``(j, V(c), c)``: ``j`` dice unused). A double ``d`` from ``p`` is ``F_4(p, top)``;
a non-double is the first minimum of ``F_1(p - s1 by a, b; top)`` over ``s1`` descending,
then of ``F_1(p - s1 by b, a; top)``. Every move lowers the pip count, so ``F_j`` of a
pip layer needs only lower layers: the build walks the pip layers once, each layer a
handful of array operations. Keys pack (unused dice, value) above the endpoint index.

The distributions are accumulated roll by roll in gnubg's roll order, the same
floating-point operations in the same order as the kernel, hence the same bits.

Speed: the ``F`` tables live in a ring of the last 7 pip layers (a move lowers the pip
count by at most 6), small enough for the cache; numpy releases the GIL in its loops, so
the two halves of a big layer run on two threads. 6x15 takes about 0.33 s on two cores
(the warm numba kernel about 0.35 s, after numba's 0.6 s start-up).

References
----------
gnubg ``makebearoff.c`` (``BearOff``, ``RollsOS``) and ``eval.c`` (``GenerateMoves``);
the kernel it is checked against: :func:`mathbg.bearoff._kernels.os_layers_serial`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff._plays_vector import single_moves
from mathbg.bearoff.index import all_positions, block_start, n_positions, pips

# A packed entry: key << _KS | priority << _SH | endpoint. The key (dice unused, then
# value) decides; the priority (6 bits) is free for whoever compares entries to set, so
# that the smallest packed value is the first best candidate; the endpoint is the index.
_SH = 20  # bits of the endpoint index
_MASK = (1 << _SH) - 1
_KS = _SH + 6  # the key's shift
_CLEAR = ~(((1 << 6) - 1) << _SH)  # the entry without its priority bits
_M = 1 << 22  # one unused die in a key (values, sums of n * tab, are below 2**22)
_NONE = 1 << 30  # key of "no legal move"
#: Layers with fewer positions run on one thread.
_SPLIT_MIN = 400
#: Largest space (positions) built on the numpy path; bigger ones use the numba kernel.
_MAX_POSITIONS = 1 << 17

_D0 = np.array([a for a in range(1, 7) for b in range(1, a + 1)])
_D1 = np.array([b for a in range(1, 7) for b in range(1, a + 1)])
_W = np.where(_D0 == _D1, 1, 2)
_WF = _W.astype(np.float64)
_DOUBLES = np.nonzero(_D0 == _D1)[0]
_MIXED = np.nonzero(_D0 != _D1)[0]


def _threads() -> int:
    """Threads available, as numba counts them (``NUMBA_NUM_THREADS``, else the CPUs this
    process may run on), without importing numba."""
    try:
        return int(os.environ["NUMBA_NUM_THREADS"])
    except (KeyError, ValueError):
        return (
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1
        )


def fits(points: int, checkers: int) -> bool:
    """Whether the numpy path builds this space: up to :data:`_MAX_POSITIONS` positions
    (6x15 has 54,264). Below that it beats the kernel's start-up (numba's import and
    cache loading, about 0.6 s, against 0.33 s for the whole 6x15 build); above it the
    parallel kernel is faster."""
    return n_positions(points, checkers) <= _MAX_POSITIONS


class _Paths:
    """The tables ``F_1..F_3`` of one value channel (packed keys).

    A play moves a checker at most 6 pips, so ``F`` is read only for the last 7 pip
    layers: the tables are a ring of ``cap`` rows (position ``i`` in row ``i % cap``),
    small enough to stay in cache, and row ``cap`` is the "no move" sentinel.
    """

    def __init__(self, cap: int, npoints: int) -> None:
        self.npoints = npoints
        self.cap = cap
        self.stride = 18 * npoints  # [j - 1, d - 1, smax]
        self.table = np.empty((cap + 1, 3, 6, npoints), np.int64)
        self.table[cap] = _NONE << _KS
        self.flat = self.table.reshape(-1)
        self.zero = np.empty(cap + 1, np.int64)  # F_0: the position itself
        self.zero[cap] = _NONE << _KS
        # F_1 of every die at smax = top, contiguous: what the non-doubles read
        self.top1 = np.empty((cap + 1, 6), np.int64)
        self.top1[cap] = _NONE << _KS
        dice = np.arange(6)
        sources = np.arange(npoints)
        top = npoints - 1
        # doubles: F_3 of die d at smax = s, sources from the top down
        self._doubles = ((12 + dice)[:, None] * npoints + sources[::-1][None, :])[None]
        # F_1 / F_2 of die d at smax = s (the tables F_2 and F_3 are built from)
        self._fill = ((np.arange(2)[:, None, None] * 6 + dice[None, :, None]) * npoints
                      + sources[None, None, :])[None]  # fmt: skip
        # the priority of source s among equal keys: the higher source comes first
        self._priority = (top - sources).astype(np.int64) << _SH
        # the priority of a candidate of best(): its place in gnubg's order
        self._order = np.arange(2 * npoints, dtype=np.int64) << _SH

    def best(self, moves: NDArray[np.int64]) -> NDArray[np.int64]:
        """Best successor (index) of each position for the 21 rolls; ``moves`` =
        ``S[ids]``. The candidates go in gnubg's order, their place as the priority: the
        minimum is the first best one."""
        m = len(moves)
        npoints = self.npoints
        rows = moves * self.stride
        out = np.empty((m, 21), np.int64)
        cand = np.take(self.flat, rows[:, :, ::-1] + self._doubles)  # [m, 6, P]
        cand &= _CLEAR
        cand |= self._order[:npoints]
        out[:, _DOUBLES] = cand.min(axis=2)
        # [m, first die, second die, source from the top]: F_1 of each second die
        after = np.take(self.top1, moves[:, :, ::-1], axis=0).transpose(0, 1, 3, 2)
        big, small = _D0[_MIXED] - 1, _D1[_MIXED] - 1
        cand = np.concatenate([after[:, big, small], after[:, small, big]], axis=2)
        cand &= _CLEAR
        cand |= self._order
        out[:, _MIXED] = cand.min(axis=2)
        return out & _MASK

    def fill(
        self, lo: int, hi: int, moves: NDArray[np.int64], value: NDArray[np.int64],
        ids: NDArray[np.int64],
    ) -> None:  # fmt: skip
        """Set ``F_0..F_3`` of the positions ``lo..hi-1`` (their values known; ``ids``
        their gnubg indices, the endpoints the tables return).

        ``F_j(c, smax)`` is a running minimum over the sources ``0..smax`` (ties to the
        higher source, which comes first in gnubg's order), started from "no move" (``j``
        dice unused): one ``minimum.accumulate`` over keys that carry the priority.
        """
        m = hi - lo
        npoints = self.npoints
        _put(self.zero, lo, hi, (value << _KS) | ids)
        cand = np.empty((m, 3, 6, npoints + 1), np.int64)
        unused = (np.arange(1, 4) * _M)[None, :, None]
        cand[..., 0] = ((unused + value[:, None, None]) << _KS) | ids[:, None, None]
        cand[:, 0, :, 1:] = np.take(self.zero, moves)
        cand[:, 1:, :, 1:] = np.take(self.flat, (moves * self.stride)[:, None] + self._fill)
        cand[..., 1:] &= _CLEAR
        cand[..., 1:] |= self._priority
        np.minimum.accumulate(cand, axis=3, out=cand)
        self.store(lo, hi, cand[..., 1:])

    def store(self, lo: int, hi: int, rows: NDArray[np.int64]) -> None:
        """Rows ``lo..hi-1`` of ``F_1..F_3`` (``[m, 3, 6, P]``)."""
        _put(self.table, lo, hi, rows)
        _put(self.top1, lo, hi, rows[:, 0, :, self.npoints - 1])

    def copy_dice_of(self, other: _Paths, lo: int, hi: int, ids: NDArray[np.int64]) -> None:
        """Rows ``lo..hi-1`` for a value that is 0 at every endpoint (the gammon value of
        a position with a checker off): the unused dice of ``other``'s best, its endpoint."""
        x = _get(other.table, lo, hi)
        self.store(lo, hi, (((x >> _KS) // _M * _M) << _KS) | (x & _MASK))
        _put(self.zero, lo, hi, ids)


def _put(ring: NDArray[np.int64], lo: int, hi: int, values: NDArray[np.int64]) -> None:
    """``ring[i % cap] = values[i - lo]`` for ``i`` in ``lo..hi-1`` (``cap = len - 1``)."""
    cap = len(ring) - 1
    a = lo % cap
    k = min(hi - lo, cap - a)
    ring[a : a + k] = values[:k]
    ring[: hi - lo - k] = values[k:]


def _get(ring: NDArray[np.int64], lo: int, hi: int) -> NDArray[np.int64]:
    """``ring[i % cap]`` for ``i`` in ``lo..hi-1``."""
    cap = len(ring) - 1
    a = lo % cap
    k = min(hi - lo, cap - a)
    return np.concatenate([ring[a : a + k], ring[: hi - lo - k]])


def _round_to_ffff(acc: NDArray[np.int64]) -> NDArray[np.int64]:
    """gnubg's fixed point: ``(acc + 18) // 36`` per bin, the residue onto the first mode."""
    v = (acc + 18) // 36
    mode = np.argmax(v, axis=1)
    v[np.arange(len(v)), mode] -= v.sum(1) - 0xFFFF
    return v


def _accumulate(
    rows: NDArray[np.float64], window: tuple[NDArray[np.int64], NDArray[np.int64]],
    best: NDArray[np.int64], ids: NDArray[np.int64],
) -> None:  # fmt: skip
    """``rows[ids, n + 1] = sum_r w_r rows[best[:, r], n] / 36``, over the union of the
    chosen rows' windows (``window`` = their first and last non-zero bins). ``einsum``
    adds over r in index order here (r is not the innermost axis): the kernel's order,
    hence its bits (checked in the tests)."""
    first = int(window[0].min())
    last = int(window[1].max()) + 1
    acc = np.einsum("mrw,r->mw", rows[best, first:last], _WF)
    rows[ids, first + 1 : last + 1] = acc / 36.0


def _windows(
    lo: NDArray[np.int64], hi: NDArray[np.int64],
    window: tuple[NDArray[np.int64], NDArray[np.int64]], ids: NDArray[np.int64],
) -> None:  # fmt: skip
    """Set the bins ``[lo, hi]`` outside which the distributions of ``ids`` are zero."""
    lo[ids] = window[0].min(1) + 1
    hi[ids] = window[1].max(1) + 1


def _accumulate_fixed(
    tab: NDArray[np.uint16], window: tuple[NDArray[np.int64], NDArray[np.int64]],
    best: NDArray[np.int64], half: int,
) -> NDArray[np.int64]:  # fmt: skip
    """gnubg's sum ``acc[n + 1] = sum_r w_r tab[best_r, n]`` (n < 31) of one half of the
    table, over the chosen rows' windows (which bound their non-zero bins)."""
    first = int(window[0].min())
    last = min(int(window[1].max()) + 1, 31)
    acc = np.zeros((len(best), 32), np.int64)
    part = tab[best, half + first : half + last]
    acc[:, first + 1 : last + 1] = np.einsum("mrw,r->mw", part, _W)
    return acc


def build(
    points: int,
    checkers: int,
    progress: Callable[[int], None] | None = None,
    *,
    want_float: bool = True,
    threads: int | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64], int, NDArray[np.uint16]]:
    """``(dist, gammon, gammon_start, table)`` of the space with gnubg's policy.

    ``dist[N, nb]`` and ``gammon[N - gammon_start, nbg]`` are the float64 distributions
    (untrimmed, the shapes of :func:`mathbg.bearoff.onesided._generate`), ``table`` gnubg's
    ``uint16[N, 64]`` fixed-point table.

    Inside, positions are renumbered by pip count (then 15-checker positions last), so a
    pip layer, and its 15-checker part, are contiguous rows of the ``F`` rings; the results
    are written by gnubg index (the tables' endpoints), so nothing is permuted at the end.
    """
    boards = all_positions(points, checkers)
    n = len(boards)
    gstart = block_start(points, 15) if checkers == 15 else n
    pip = pips(boards).astype(np.int64)
    is_full = np.arange(n) >= gstart
    order = np.lexsort((is_full, pip))  # new index -> gnubg index
    new = np.empty(n, np.int64)  # gnubg index -> position in pip order
    new[order] = np.arange(n)
    pip = pip[order]
    is_full = is_full[order]
    starts = np.searchsorted(pip, np.arange(int(pip.max()) + 2))
    full_starts = np.searchsorted(pip * 2 + is_full, np.arange(int(pip.max()) + 1) * 2 + 1)
    max_pips = len(starts) - 2
    nb = max_pips // 3 + checkers + 2
    nbg = max_pips // 3 + 2
    # the results, by gnubg index (the tables' endpoints)
    dist = np.zeros((n, nb))
    dist[0, 0] = 1.0
    dlo = np.zeros(n, np.int64)
    dhi = np.zeros(n, np.int64)
    # gammon distributions by the same rows; a position with a checker off: mass at 0
    gdist = np.zeros((n, nbg))
    gdist[:gstart, 0] = 1.0
    glo = np.zeros(n, np.int64)
    ghi = np.zeros(n, np.int64)
    tab = np.zeros((n, 64), np.uint16)
    tab[:gstart, 32] = 0xFFFF
    tab[0, 0] = 0xFFFF
    bins = np.arange(32)
    # ring size: the positions of any 7 consecutive pip layers fit
    window = int((starts[7:] - starts[:-7]).max()) if len(starts) > 7 else n
    cap = 1 << max(window - 1, 1).bit_length()
    slot = np.append(new % cap, cap)  # gnubg index -> ring row (cap: no move)
    moves = slot[single_moves(boards[order], order)]
    rolls = _Paths(cap, points)
    rolls.zero[0] = 0
    empty = np.broadcast_to(((np.arange(1, 4) * _M) << _KS)[:, None, None], (3, 6, points))
    rolls.store(0, 1, empty[None])  # the empty board: no move, j dice unused
    gammon = _Paths(cap, points) if gstart < n else None
    # positions a play from a 15-checker position passes through (a double bears off at
    # most four checkers) have gammon tables derived from the rolls tables
    passing = (boards.sum(1, dtype=np.int64) >= 11)[order]
    if gammon is not None:
        gammon.copy_dice_of(rolls, 0, 1, np.zeros(1, np.int64))

    def rows(lo: int, mid: int, hi: int) -> None:
        """Positions lo..hi-1 of one pip layer (those from mid on have 15 checkers)."""
        mv = moves[lo:hi]
        ids = order[lo:hi]
        best = rolls.best(mv)
        window = (np.take(dlo, best), np.take(dhi, best))
        half = _round_to_ffff(_accumulate_fixed(tab, window, best, 0))
        tab[ids, :32] = half
        if want_float:
            _accumulate(dist, window, best, ids)
        _windows(dlo, dhi, window, ids)
        rolls.fill(lo, hi, mv, half @ bins, ids)
        if gammon is None:
            return
        if hi > mid:
            gbest = gammon.best(mv[mid - lo :])
            window = (np.take(glo, gbest), np.take(ghi, gbest))
            half = _round_to_ffff(_accumulate_fixed(tab, window, gbest, 32))
            tab[ids[mid - lo :], 32:] = half
            if want_float:
                _accumulate(gdist, window, gbest, ids[mid - lo :])
            _windows(glo, ghi, window, ids[mid - lo :])
            gammon.fill(mid, hi, mv[mid - lo :], half @ bins, ids[mid - lo :])
        rest = np.nonzero(passing[lo:mid])[0]
        if len(rest):
            a = lo + int(rest[0])
            gammon.copy_dice_of(rolls, a, mid, order[a:mid])

    # numpy releases the GIL inside its loops: big layers run as two halves on two threads
    pool = ThreadPoolExecutor(2) if (threads or _threads()) > 1 else None
    try:
        for layer in range(1, len(starts) - 1):
            lo, mid, hi = int(starts[layer]), int(full_starts[layer]), int(starts[layer + 1])
            if hi == lo:
                continue
            if pool is None or hi - lo < _SPLIT_MIN:
                rows(lo, mid, hi)
            else:
                half = (lo + hi) // 2
                job = pool.submit(rows, half, max(mid, half), hi)
                rows(lo, min(mid, half), half)
                job.result()
            if progress is not None:
                progress(hi - lo)
    finally:
        if pool is not None:
            pool.shutdown()
    return dist, gdist[gstart:], gstart, tab
