"""Vectorised (numpy, no compilation) one-sided build with gnubg's policy (internal).

:func:`build` computes, for spaces small enough (6x15 and below, see :func:`fits`), the
same arrays as the numba kernel
:func:`mathbg.bearoff.generate._onesided_kernels.os_layers_serial` with
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
count by at most 6), with the positions on the innermost axis, so every operation runs
over contiguous positions (running minima and reductions over the sources are a few
element-wise operations on whole planes). gnubg's table is kept in int32 while it is
built, so the chosen rows are gathered whole and summed without conversions. The plays
never depend on the float distributions, and numpy releases the GIL in its loops: with
two threads, the float sums of a layer run on the second thread while the first chooses
the plays of the next layers. 6x15 takes about 0.18 s on two cores (the warm numba
kernel about 0.35 s, after numba's 0.6 s start-up).

References
----------
gnubg ``makebearoff.c`` (``BearOff``, ``RollsOS``) and ``eval.c`` (``GenerateMoves``);
the kernel it is checked against:
:func:`mathbg.bearoff.generate._onesided_kernels.os_layers_serial`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff._plays_vector import moves_by_source
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
#: Largest space (positions) built on the numpy path; bigger ones use the numba kernel.
_MAX_POSITIONS = 1 << 17

_D0 = np.array([a for a in range(1, 7) for b in range(1, a + 1)])
_D1 = np.array([b for a in range(1, 7) for b in range(1, a + 1)])
_WF = np.where(_D0 == _D1, 1.0, 2.0)  # a roll's weight out of 36
_DOUBLES = np.nonzero(_D0 == _D1)[0]
_MIXED = np.nonzero(_D0 != _D1)[0]
#: The rolls as best() returns them (the doubles first); _ROLL_ORDER puts them back.
_GROUPED = np.concatenate([_DOUBLES, _MIXED])
_ROLL_ORDER = np.argsort(_GROUPED)


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
    cache loading, about 0.6 s, against 0.18 s for the whole 6x15 build); above it the
    parallel kernel is faster."""
    return n_positions(points, checkers) <= _MAX_POSITIONS


class _Paths:
    """The tables ``F_0..F_3`` of one value channel (packed keys).

    A play moves a checker at most 6 pips, so ``F`` is read only for the last 7 pip
    layers: the tables are a ring of ``cap`` rows (position ``i`` in row ``i % cap``) and
    row ``cap`` is the "no move" sentinel. The ring row is the innermost axis, so every
    array operation below runs over contiguous positions: running minima and reductions
    over the sources are a few element-wise operations on whole planes.

    One buffer holds every plane: ``F_0`` (the position itself), then ``F_1..F_3`` as
    ``table[j - 1, smax, d - 1, row]``; one gather reads the candidates of
    :meth:`fill` or :meth:`best` from it. Stored entries carry no priority bits.
    """

    def __init__(self, cap: int, npoints: int) -> None:
        self.npoints = npoints
        width = cap + 1
        self.flat = np.empty((1 + 3 * npoints * 6) * width, np.int64)
        self.zero = self.flat[:width]  # F_0
        self.table = self.flat[width:].reshape(3, npoints, 6, width)
        self.zero[cap] = _NONE << _KS
        self.table[..., cap] = _NONE << _KS
        dice = np.arange(6)
        sources = np.arange(npoints)[:, None]
        top = npoints - 1

        def plane(j: int, s: NDArray[np.int64] | int) -> NDArray[np.int64]:
            """Offset of the plane ``F_j`` (j >= 1) of source ``s``, die ``dice``."""
            return ((1 + ((j - 1) * npoints + s) * 6 + dice) * width).astype(np.int64)

        # fill(): the candidates F_0, F_1, F_2 of die d after a move from s, [s, j, d, 1]
        self._fill = np.stack(
            [np.zeros((npoints, 6), np.int64), plane(1, sources), plane(2, sources)], axis=1
        )[..., None]
        # the priority of source s among equal keys: the higher source comes first
        self._priority = ((top - sources).astype(np.int64) << _SH)[:, :, None, None]
        # best(), doubles: F_3 of die d at smax = s, [s, d, 1]
        self._doubles = plane(3, sources)[..., None]
        self._doubles_order = ((top - sources).astype(np.int64) << _SH)[..., None]
        # best(), non-doubles: F_1 of the second die b at smax = top after a move of die
        # a from s, [b, s, a, 1]; gnubg's order: die a = the larger first (source from the
        # top), then the smaller first
        b_, s_, a_ = np.ix_(dice, np.arange(npoints), dice)
        self._mixed_order = ((top - s_ + np.where(b_ > a_, npoints, 0)).astype(np.int64)
                             << _SH)[..., None]  # fmt: skip
        self._big, self._small = _D0[_MIXED] - 1, _D1[_MIXED] - 1

    def best(self, moves: NDArray[np.signedinteger[Any]]) -> NDArray[np.int64]:
        """Best successor (index) of each position for the 21 rolls (``[21, m]``: the
        doubles, then the non-doubles, :data:`_GROUPED`); ``moves[s, d - 1]`` the ring
        rows after one move (``[P, 6, m]``). The candidates carry their place in gnubg's
        order as the priority: the minimum is the first best one."""
        out = np.empty((21, moves.shape[2]), np.int64)
        cand = np.take(self.flat, moves + self._doubles, mode="wrap")  # [s, d, m]
        cand |= self._doubles_order
        np.minimum.reduce(cand, axis=0, out=out[:6])
        after = np.take(self.table[0, self.npoints - 1], moves, axis=1, mode="wrap")
        after |= self._mixed_order  # [b, s, a, m]
        low = np.minimum.reduce(after, axis=1)  # [b, a, m]
        np.minimum(low[self._small, self._big], low[self._big, self._small], out=out[6:])
        out &= _MASK
        return out

    def fill(
        self, lo: int, hi: int, moves: NDArray[np.signedinteger[Any]], value: NDArray[np.int64],
        ids: NDArray[np.int64],
    ) -> None:  # fmt: skip
        """Set ``F_0..F_3`` of the positions ``lo..hi-1`` (their values known; ``ids``
        their gnubg indices, the endpoints the tables return; ``moves`` as in
        :meth:`best`).

        ``F_j(c, smax)`` is a running minimum over the sources ``0..smax`` (ties to the
        higher source, which comes first in gnubg's order), started from "no move" (``j``
        dice unused): ``P`` element-wise minima over keys that carry the priority.
        """
        m = hi - lo
        npoints = self.npoints
        _put(self.zero, lo, hi, (value << _KS) | ids)
        cand = np.empty((npoints + 1, 3, 6, m), np.int64)
        unused = (np.arange(1, 4) * _M)[:, None, None]
        cand[0] = ((unused + value) << _KS) | ids
        np.take(self.flat, moves[:, None] + self._fill, out=cand[1:], mode="wrap")
        body = cand[1:]
        body |= self._priority
        for s in range(1, npoints + 1):
            np.minimum(cand[s - 1], cand[s], out=cand[s])
        body &= _CLEAR
        self.store(lo, hi, body.transpose(1, 0, 2, 3))

    def store(self, lo: int, hi: int, rows: NDArray[np.int64]) -> None:
        """Rows ``lo..hi-1`` of ``F_1..F_3`` (``[3, P, 6, m]``, no priority bits)."""
        _put(self.table, lo, hi, rows)

    def copy_dice_of(self, other: _Paths, lo: int, hi: int, ids: NDArray[np.int64]) -> None:
        """Rows ``lo..hi-1`` for a value that is 0 at every endpoint (the gammon value of
        a position with a checker off): the unused dice of ``other``'s best, its endpoint."""
        x = _get(other.table, lo, hi)
        end = x & _MASK
        x >>= _KS + 22  # the unused dice (_M = 2**22)
        x <<= _KS + 22
        x |= end
        self.store(lo, hi, x)
        _put(self.zero, lo, hi, ids)


def _put(ring: NDArray[np.int64], lo: int, hi: int, values: NDArray[np.int64]) -> None:
    """``ring[..., i % cap] = values[..., i - lo]`` for ``i`` in ``lo..hi-1`` (``cap`` is
    the last axis' length minus one)."""
    cap = ring.shape[-1] - 1
    a = lo % cap
    k = min(hi - lo, cap - a)
    ring[..., a : a + k] = values[..., :k]
    ring[..., : hi - lo - k] = values[..., k:]


def _get(ring: NDArray[np.int64], lo: int, hi: int) -> NDArray[np.int64]:
    """``ring[..., i % cap]`` for ``i`` in ``lo..hi-1``."""
    cap = ring.shape[-1] - 1
    a = lo % cap
    k = min(hi - lo, cap - a)
    return np.concatenate([ring[..., a : a + k], ring[..., : hi - lo - k]], axis=-1)


def _round_to_ffff(acc: NDArray[np.int32]) -> NDArray[np.int32]:
    """gnubg's fixed point: ``(acc + 18) // 36`` per bin, the residue onto the first mode."""
    v = (acc + 18) // 36
    mode = np.argmax(v, axis=1)
    v[np.arange(len(v)), mode] -= v.sum(1) - 0xFFFF
    return v


def _accumulate(
    rows: NDArray[np.float64], window: tuple[NDArray[np.int64], NDArray[np.int64]],
    best: NDArray[np.int64], ids: NDArray[np.int64],
) -> None:  # fmt: skip
    """``rows[ids, n + 1] = sum_r w_r rows[best_r, n] / 36``, over the union of the
    chosen rows' windows (``window`` = their first and last non-zero bins). ``einsum``
    adds over r in index order here (r is the outermost axis): the kernel's order,
    hence its bits (checked in the tests)."""
    first = int(window[0].min())
    last = int(window[1].max()) + 1
    acc = np.einsum("rmw,r->mw", rows[best[_ROLL_ORDER], first:last], _WF)
    rows[ids, first + 1 : last + 1] = acc / 36.0


def _windows(
    lo: NDArray[np.int64], hi: NDArray[np.int64],
    window: tuple[NDArray[np.int64], NDArray[np.int64]], ids: NDArray[np.int64],
) -> None:  # fmt: skip
    """Set the bins ``[lo, hi]`` outside which the distributions of ``ids`` are zero."""
    lo[ids] = window[0].min(0) + 1
    hi[ids] = window[1].max(0) + 1


def _accumulate_fixed(fixed: NDArray[np.int32], best: NDArray[np.int64]) -> NDArray[np.int32]:
    """gnubg's sum ``acc[n + 1] = sum_r w_r fixed[best_r, n]`` (n < 31) of one half of the
    table (``fixed[N, 32]``, ``best`` grouped as :meth:`_Paths.best` returns it). The
    chosen rows are gathered whole (128-byte items, one copy each); the sums are exact
    integers, so their order does not matter."""
    rows = np.take(fixed.view(np.dtype((np.void, 128))).reshape(-1), best, mode="wrap")
    part = rows.view(np.int32).reshape(21, best.shape[1], 32)
    twice = part[6:].sum(axis=0, dtype=np.int32)
    twice <<= 1
    twice += part[:6].sum(axis=0, dtype=np.int32)
    acc: NDArray[np.int32] = np.empty_like(twice)
    acc[:, 0] = 0
    acc[:, 1:] = twice[:, :31]
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

    ``progress`` is called with each pip layer's count of positions once its plays are
    chosen; ``want_float=False`` skips the float distributions (returned as zeros);
    ``threads`` (default: the CPUs this process may use) above 1 runs the float sums on a
    second thread.

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
    # gnubg's table while it is built: [half, index, bin] in int32 (each half's rows
    # contiguous, 128 bytes), converted to uint16[N, 64] at the end
    fixed = np.zeros((2, n, 32), np.int32)
    fixed[1, :gstart, 0] = 0xFFFF
    fixed[0, 0, 0] = 0xFFFF
    bins = np.arange(32)
    # ring size: the positions of any 7 consecutive pip layers fit
    window = int((starts[7:] - starts[:-7]).max()) if len(starts) > 7 else n
    cap = 1 << max(window - 1, 1).bit_length()
    slot = np.append(new % cap, cap).astype(np.int32)  # gnubg index -> ring row (cap: none)
    # the ring rows after one move, [s, d - 1, position in pip order]
    moves = moves_by_source(boards[order], order, slot)
    rolls = _Paths(cap, points)
    rolls.zero[0] = 0
    empty = np.broadcast_to(((np.arange(1, 4) * _M) << _KS)[:, None, None, None],
                            (3, points, 6, 1))  # fmt: skip
    rolls.store(0, 1, empty)  # the empty board: no move, j dice unused
    gammon = _Paths(cap, points) if gstart < n else None
    # positions a play from a 15-checker position passes through (a double bears off at
    # most four checkers) have gammon tables derived from the rolls tables
    passing = (boards.sum(1, dtype=np.int64) >= 11)[order]
    if gammon is not None:
        gammon.copy_dice_of(rolls, 0, 1, np.zeros(1, np.int64))

    Sums = tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.int64],
                 NDArray[np.int64], NDArray[np.int64]]  # fmt: skip

    def choices(lo: int, mid: int, hi: int) -> list[Sums]:
        """The plays and gnubg's table of positions lo..hi-1 of one pip layer (those from
        mid on have 15 checkers); returns the float sums still to do."""
        mv = moves[:, :, lo:hi]
        ids = order[lo:hi]
        best = rolls.best(mv)
        half = _round_to_ffff(_accumulate_fixed(fixed[0], best))
        fixed[0, ids] = half
        rolls.fill(lo, hi, mv, half @ bins, ids)
        todo = [(dist, dlo, dhi, best, ids)]
        if gammon is None:
            return todo
        if hi > mid:
            gbest = gammon.best(mv[:, :, mid - lo :])
            half = _round_to_ffff(_accumulate_fixed(fixed[1], gbest))
            fixed[1, ids[mid - lo :]] = half
            gammon.fill(mid, hi, mv[:, :, mid - lo :], half @ bins, ids[mid - lo :])
            todo.append((gdist, glo, ghi, gbest, ids[mid - lo :]))
        rest = np.nonzero(passing[lo:mid])[0]
        if len(rest):
            a = lo + int(rest[0])
            gammon.copy_dice_of(rolls, a, mid, order[a:mid])
        return todo

    def sums(todo: list[Sums]) -> None:
        """The float distributions of one layer's positions, from their chosen plays."""
        for rows, lo, hi, best, ids in todo:
            window = (np.take(lo, best, mode="wrap"), np.take(hi, best, mode="wrap"))
            _accumulate(rows, window, best, ids)
            _windows(lo, hi, window, ids)

    # The plays never depend on the float sums: with two threads the sums of a layer run
    # on the second one while this one chooses the plays of the next layers.
    pool = ThreadPoolExecutor(1) if want_float and (threads or _threads()) > 1 else None
    done: list[Future[None]] = []
    try:
        for layer in range(1, len(starts) - 1):
            lo, mid, hi = int(starts[layer]), int(full_starts[layer]), int(starts[layer + 1])
            if hi == lo:
                continue
            todo = choices(lo, mid, hi)
            if pool is not None:
                done.append(pool.submit(sums, todo))
            elif want_float:
                sums(todo)
            if progress is not None:
                progress(hi - lo)
        for job in done:
            job.result()  # the worker's exception, if any, is raised here
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
    tab = np.empty((n, 64), np.uint16)
    tab[:, :32] = fixed[0]
    tab[:, 32:] = fixed[1]
    return dist, gdist[gstart:], gstart, tab
