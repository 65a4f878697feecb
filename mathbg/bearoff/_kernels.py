"""numba kernels of the bearoff package (internal; compiled lazily on first call).

Nothing here is public API: :mod:`mathbg.bearoff.moves`,
:mod:`~mathbg.bearoff.onesided` and :mod:`~mathbg.bearoff.twosided` wrap these kernels.

Conventions
-----------
- A board is an integer array of length P: ``b[k]`` checkers on the side's point k+1.
- Rolls are numbered 0..20 in gnubg's order ``(d0, d1)`` for ``d0 = 1..6``, ``d1 = 1..d0``
  (so ``d0 >= d1``); a roll's weight is 1 (double) or 2 (non-double) out of 36.
- Successor lists are in gnubg's move-list order (see :func:`roll_successors`), which
  matters only for tie-breaks between plays of equal value.

Why some code looks repeated here: :func:`roll_successors` (moving checkers, for single
queries and spaces too big for a move table) and :func:`roll_successors_indexed` (walking
the one-checker move table, the build's hot path, 3-4 times faster) enumerate the same
plays in the same order over different primitives, each with its own shortcuts; the
doubles' four nested loops are that enumeration's shape (sources never above the previous
one). One generic version would need function-typed arguments and cost the builds speed,
so both are kept and tested against each other. The float64 and gnubg-integer two-sided
recursions already share one kernel (the ``gnubg`` flag).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

#: Weight (out of 36) of each roll in gnubg's order: 1 for doubles, 2 otherwise.
ROLL_WEIGHTS = np.array([1.0 if d0 == d1 else 2.0 for d0 in range(1, 7) for d1 in range(1, d0 + 1)])

#: Upper bound on the distinct results of one roll (4 moves of one die from <= 24 points).
MAX_SUCC = 4096


@njit(cache=True, inline="always")
def rank_board(b: Any, npoints: Any, binom: Any) -> Any:
    """gnubg bearoff index of board ``b`` (closed form, see :mod:`mathbg.bearoff.index`)."""
    idx = 0
    tail = 0
    for k in range(npoints - 1, -1, -1):
        tail += b[k]
        idx += binom[npoints - 1 - k + tail, npoints - k]
    return idx


@njit(cache=True)
def roll_dice(r: Any) -> Any:
    """Dice ``(d0, d1)``, ``d0 >= d1``, of roll number ``r`` in gnubg's order."""
    k = 0
    for d0 in range(1, 7):
        for d1 in range(1, d0 + 1):
            if k == r:
                return d0, d1
            k += 1
    return 0, 0


@njit(cache=True, inline="always")
def _can_move(tails: Any, npoints: Any, src: Any, die: Any) -> Any:
    """Whether a checker on point index ``src`` may move ``die`` pips (bear-off rule)."""
    if tails[src] == tails[src + 1]:
        return False
    dest = src - die
    if dest >= 0:
        return True
    if tails[6 if npoints > 6 else npoints] > 0:  # a checker outside the home board
        return False
    if dest == -1:
        return True
    return tails[src + 1] == 0  # larger die: only from the highest occupied point


@njit(cache=True, inline="always")
def _move(tails: Any, npoints: Any, src: Any, die: Any, idx: Any, binom: Any) -> Any:
    """Move a checker from index ``src`` by ``die`` in place; return the new index.

    The board is kept as its tails ``T[k]`` = checkers on points k+1..P; a move src ->
    dest lowers ``T[dest+1..src]`` by one and the index by ``C(P-2-k+T[k], P-1-k)`` for
    each k in that range (Pascal's rule on the closed form of the index).
    """
    dest = max(src - die, -1)
    for k in range(dest + 1, src + 1):
        idx -= binom[npoints - 2 - k + tails[k], npoints - 1 - k]
        tails[k] -= 1
    return idx


@njit(cache=True, inline="always")
def _unmove(tails: Any, src: Any, die: Any) -> None:
    for k in range(max(src - die, -1) + 1, src + 1):
        tails[k] += 1


@njit(cache=True, inline="always")
def _save(out: Any, n_out: Any, idx: Any, check: Any) -> Any:
    """Append ``idx`` to ``out[:n_out]`` unless already there (when ``check``)."""
    if check:
        for q in range(n_out):
            if out[q] == idx:
                return n_out
    out[n_out] = idx
    return n_out + 1


@njit(cache=True)
def roll_successors(
    board: Any, npoints: Any, d0: Any, d1: Any, binom: Any, out: Any, tails: Any
) -> Any:
    """Distinct positions reachable from ``board`` with the roll ``d0-d1`` (``d0 >= d1``).

    The rules are backgammon's, restricted to one side's checkers on points 1..P with no
    opponent checkers in the way:

    - a checker moves ``d`` pips from point p to point p-d when p-d >= 1;
    - it bears off (p-d <= 0) only when every checker is in the home board (points 1..6),
      and then either exactly (p == d) or from the highest occupied point when the die is
      larger than that point;
    - as many dice as possible must be used (up to four for doubles); if only one die of
      a non-double can be used, the larger one must be used when possible.

    The enumeration follows gnubg's ``GenerateMoves``: the dice order (larger, smaller)
    then (smaller, larger); at each step sources from the highest point down, for doubles
    never above the previous source; a play is recorded when no further die can be
    played; only plays using the most dice (then the most pips) are kept; duplicates of a
    resulting position keep their first place. ``out`` receives the indices (gnubg order)
    of the resulting positions; the count is returned. ``tails`` (int64[P + 1]) is
    scratch space.

    Shortcuts that keep the result (content and order) but skip work:

    - doubles need no duplicate check: sources never increase along a play, and the
      multiplicities ``m`` of the sources are recovered from the result's changes ``c``
      from the top down (``m[s] = m[s + d] - c[s]``), so distinct plays of four moves
      give distinct positions;
    - with a non-double, a two-move play of the second dice order (smaller die first)
      without a bear-off has the same result as a play of the first order (the same
      moves, larger die first, are legal when nothing is borne off), which came first:
      the second order only looks for plays with a bear-off, and is skipped when two
      checkers are outside the home board and the first order played both dice.
    """
    tails[npoints] = 0
    for k in range(npoints - 1, -1, -1):
        tails[k] = tails[k + 1] + board[k]
    r0 = rank_board(board, npoints, binom)
    top = npoints - 1
    n_out = 0
    if d0 == d1:
        d = d0
        most = 0  # most dice played so far
        for s1 in range(top, -1, -1):
            if not _can_move(tails, npoints, s1, d):
                continue
            r1 = _move(tails, npoints, s1, d, r0, binom)
            deeper1 = False
            for s2 in range(s1, -1, -1):
                if not _can_move(tails, npoints, s2, d):
                    continue
                deeper1 = True
                r2 = _move(tails, npoints, s2, d, r1, binom)
                deeper2 = False
                for s3 in range(s2, -1, -1):
                    if not _can_move(tails, npoints, s3, d):
                        continue
                    deeper2 = True
                    r3 = _move(tails, npoints, s3, d, r2, binom)
                    deeper3 = False
                    for s4 in range(s3, -1, -1):
                        if not _can_move(tails, npoints, s4, d):
                            continue
                        deeper3 = True
                        r4 = _move(tails, npoints, s4, d, r3, binom)
                        if most < 4:
                            most, n_out = 4, 0
                        n_out = _save(out, n_out, r4, False)
                        _unmove(tails, s4, d)
                    if not deeper3 and most <= 3:
                        if most < 3:
                            most, n_out = 3, 0
                        n_out = _save(out, n_out, r3, False)
                    _unmove(tails, s3, d)
                if not deeper2 and most <= 2:
                    if most < 2:
                        most, n_out = 2, 0
                    n_out = _save(out, n_out, r2, False)
                _unmove(tails, s2, d)
            if not deeper1 and most <= 1:
                most = 1
                n_out = _save(out, n_out, r1, False)
            _unmove(tails, s1, d)
        return n_out
    # non-double: order (d0, d1), then (d1, d0)
    two = False  # a play of both dice exists
    one_big = False  # a single-die play uses the larger die
    for s1 in range(top, -1, -1):
        if not _can_move(tails, npoints, s1, d0):
            continue
        r1 = _move(tails, npoints, s1, d0, r0, binom)
        deeper = False
        for s2 in range(top, -1, -1):
            if not _can_move(tails, npoints, s2, d1):
                continue
            deeper = True
            r2 = _move(tails, npoints, s2, d1, r1, binom)
            if not two:
                two, n_out = True, 0
            n_out = _save(out, n_out, r2, True)
            _unmove(tails, s2, d1)
        if not deeper and not two:
            one_big = True
            n_out = _save(out, n_out, r1, True)
        _unmove(tails, s1, d0)
    outside = tails[6] if npoints > 6 else 0
    if two and outside >= 2:
        return n_out
    for s1 in range(top, -1, -1):
        if not _can_move(tails, npoints, s1, d1):
            continue
        off1 = s1 - d1 < 0
        r1 = _move(tails, npoints, s1, d1, r0, binom)
        deeper = False
        lowest = top if off1 else min(top, d0 - 1)
        if not off1 and d0 <= top and tails[d0] > 0:
            deeper = True  # a non-bear-off second move exists: it repeats the first order
        for s2 in range(lowest, -1, -1):
            if not _can_move(tails, npoints, s2, d0):
                continue
            deeper = True
            r2 = _move(tails, npoints, s2, d0, r1, binom)
            if not two:
                two, n_out = True, 0
            n_out = _save(out, n_out, r2, True)
            _unmove(tails, s2, d0)
        if not deeper and not two and not one_big:
            n_out = _save(out, n_out, r1, True)
        _unmove(tails, s1, d1)
    return n_out


@njit(parallel=True, cache=True)
def single_moves(boards: Any, binom: Any, S: Any, outside2: Any) -> None:
    """Table of one-checker moves: ``S[i, d-1, s]`` = index after moving a checker from
    point index ``s`` of position ``i`` by ``d`` pips, or -1 when that move is illegal
    (empty point, or a bear-off the rules forbid). ``outside2[i]``: two or more checkers
    outside the home board.

    A legal play is a chain of such moves, each legal in the position reached so far, so
    :func:`roll_successors_indexed` can follow the table instead of moving checkers.
    """
    n, npoints = boards.shape
    for i in prange(n):
        b = np.empty(npoints, np.int64)
        for k in range(npoints):
            b[k] = boards[i, k]
        back = npoints - 1
        while back >= 0 and b[back] == 0:
            back -= 1
        outside = 0
        for k in range(6, npoints):
            outside += b[k]
        outside2[i] = outside >= 2
        for d in range(1, 7):
            for src in range(npoints):
                S[i, d - 1, src] = -1
                if b[src] == 0:
                    continue
                dest = src - d
                if dest < 0 and (back > 5 or (src != back and dest != -1)):
                    continue
                b[src] -= 1
                if dest >= 0:
                    b[dest] += 1
                S[i, d - 1, src] = rank_board(b, npoints, binom)
                b[src] += 1
                if dest >= 0:
                    b[dest] -= 1


@njit(cache=True)
def roll_successors_indexed(
    i: Any, npoints: Any, d0: Any, d1: Any, S: Any, outside2: Any, out: Any
) -> Any:
    """:func:`roll_successors` for position index ``i`` using the table of
    :func:`single_moves`: the same enumeration, the same results in the same order."""
    top = npoints - 1
    n_out = 0
    if d0 == d1:
        d = d0 - 1
        most = 0
        for s1 in range(top, -1, -1):
            r1 = S[i, d, s1]
            if r1 < 0:
                continue
            deeper1 = False
            for s2 in range(s1, -1, -1):
                r2 = S[r1, d, s2]
                if r2 < 0:
                    continue
                deeper1 = True
                deeper2 = False
                for s3 in range(s2, -1, -1):
                    r3 = S[r2, d, s3]
                    if r3 < 0:
                        continue
                    deeper2 = True
                    deeper3 = False
                    for s4 in range(s3, -1, -1):
                        r4 = S[r3, d, s4]
                        if r4 < 0:
                            continue
                        deeper3 = True
                        if most < 4:
                            most, n_out = 4, 0
                        n_out = _save(out, n_out, r4, False)
                    if not deeper3 and most <= 3:
                        if most < 3:
                            most, n_out = 3, 0
                        n_out = _save(out, n_out, r3, False)
                if not deeper2 and most <= 2:
                    if most < 2:
                        most, n_out = 2, 0
                    n_out = _save(out, n_out, r2, False)
            if not deeper1 and most <= 1:
                most = 1
                n_out = _save(out, n_out, r1, False)
        return n_out
    a = d0 - 1
    b = d1 - 1
    two = False
    one_big = False
    for s1 in range(top, -1, -1):
        r1 = S[i, a, s1]
        if r1 < 0:
            continue
        deeper = False
        for s2 in range(top, -1, -1):
            r2 = S[r1, b, s2]
            if r2 < 0:
                continue
            deeper = True
            if not two:
                two, n_out = True, 0
            n_out = _save(out, n_out, r2, True)
        if not deeper and not two:
            one_big = True
            n_out = _save(out, n_out, r1, True)
    if two and outside2[i]:
        return n_out
    for s1 in range(top, -1, -1):
        r1 = S[i, b, s1]
        if r1 < 0:
            continue
        off1 = s1 < d1
        deeper = False
        for s2 in range(top, -1, -1):
            r2 = S[r1, a, s2]
            if r2 < 0:
                continue
            deeper = True
            if not off1 and s2 >= d0:
                continue  # no bear-off: the first dice order already gave this result
            if not two:
                two, n_out = True, 0
            n_out = _save(out, n_out, r2, True)
        if not deeper and not two and not one_big:
            n_out = _save(out, n_out, r1, True)
    return n_out


@njit(cache=True, inline="always")
def _successors_of(
    i: Any, boards: Any, d0: Any, d1: Any, binom: Any, S: Any, outside2: Any, out: Any, tails: Any
) -> Any:
    """Successors of position ``i`` for ``d0-d1``: from the move table when there is one
    (``S.shape[0] > 1``), else by moving checkers."""
    if S.shape[0] > 1:
        return roll_successors_indexed(i, boards.shape[1], d0, d1, S, outside2, out)
    return roll_successors(boards[i], boards.shape[1], d0, d1, binom, out, tails)


# --------------------------------------------------------------------------------------
# Successor tables (CSR)


@njit(parallel=True, cache=True)
def csr_counts(boards: Any, binom: Any, S: Any, outside2: Any, counts: Any) -> None:
    """``counts[i*21 + r]`` = number of successors of position i for roll r."""
    n, npoints = boards.shape
    for i in prange(n):
        if i == 0:
            for r in range(21):
                counts[r] = 0
            continue
        out = np.empty(MAX_SUCC, np.int64)
        tails = np.empty(npoints + 1, np.int64)
        r = 0
        for d0 in range(1, 7):
            for d1 in range(1, d0 + 1):
                m = _successors_of(i, boards, d0, d1, binom, S, outside2, out, tails)
                counts[i * 21 + r] = m
                r += 1


@njit(parallel=True, cache=True)
def csr_fill(boards: Any, binom: Any, S: Any, outside2: Any, ptr: Any, succ: Any) -> None:
    """Fill ``succ[ptr[i*21+r]:ptr[i*21+r+1]]`` with the successors of (i, r)."""
    n, npoints = boards.shape
    for i in prange(1, n):
        out = np.empty(MAX_SUCC, np.int64)
        tails = np.empty(npoints + 1, np.int64)
        r = 0
        for d0 in range(1, 7):
            for d1 in range(1, d0 + 1):
                m = _successors_of(i, boards, d0, d1, binom, S, outside2, out, tails)
                base = ptr[i * 21 + r]
                for q in range(m):
                    succ[base + q] = out[q]
                r += 1


@njit(cache=True, inline="always")
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
            m = _successors_of(i, boards, d0, d1, binom, S, outside2, out, tails)
            best = out[0]
            gbest = out[0]
            if int_policy:
                best_rolls = rolls[best, 0]
                for q in range(1, m):
                    s = out[q]
                    if rolls[s, 0] < best_rolls:
                        best = s
                        best_rolls = rolls[s, 0]
                if full:
                    gbest_rolls = rolls[gbest, 1]
                    for q in range(1, m):
                        s = out[q]
                        if rolls[s, 1] < gbest_rolls:
                            gbest = s
                            gbest_rolls = rolls[s, 1]
            else:
                best_mean = mean[best]
                for q in range(1, m):
                    s = out[q]
                    if mean[s] < best_mean - tol:
                        best = s
                        best_mean = mean[s]
                if full:
                    gbest_mean = gmean[gbest]
                    for q in range(1, m):
                        s = out[q]
                        if gmean[s] < gbest_mean - tol:
                            gbest = s
                            gbest_mean = gmean[s]
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
        for n in range(d_lo, d_hi + 1):
            dist[i, n] = acc[n] / 36.0
            acc[n] = 0.0
        win[i, 0] = d_lo
        win[i, 1] = d_hi
        mean[i] = 1.0 + m_acc / 36.0
        if full:
            row = i - gstart
            for n in range(g_lo, g_hi + 1):
                gdist[row, n] = gacc[n] / 36.0
                gacc[n] = 0.0
            win[i, 2] = g_lo
            win[i, 3] = g_hi
            gmean[i] = 1.0 + g_acc / 36.0
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


@njit(cache=True, inline="always")
def _cdiv(a: Any, b: Any) -> Any:
    """C integer division (truncation toward zero); exact on integer-valued floats."""
    q = abs(a) // b
    return q if a >= 0 else -q


@njit(cache=True, inline="always")
def _cube_gnubg(nd: Any, dt: Any) -> Any:
    """gnubg ``CubeEquity(ND, DT, DP=0x7FFF)`` on int16 equities."""
    if dt >= _cdiv(nd, 2) and 0x7FFF >= nd:
        if dt >= 0x7FFF // 2:
            return 0x7FFF
        return 2 * dt
    return nd


@njit(cache=True, inline="always")
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


@njit(cache=True, inline="always")
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
