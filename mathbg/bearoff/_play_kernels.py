"""numba kernels of bearoff plays (internal; compiled lazily on first call).

Nothing here is public API: :mod:`mathbg.bearoff.plays` wraps these kernels; the one-sided
build (:mod:`mathbg.bearoff.generate._onesided_kernels`) and the race kernels
(:mod:`mathbg.race._kernels`) call them from their own kernels.

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
so both are kept and tested against each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

#: Weight (out of 36) of each roll in gnubg's order: 1 for doubles, 2 otherwise.
ROLL_WEIGHTS = np.array([1.0 if d0 == d1 else 2.0 for d0 in range(1, 7) for d1 in range(1, d0 + 1)])

#: Upper bound on the distinct results of one roll (4 moves of one die from <= 24 points).
MAX_SUCC = 4096


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _unmove(tails: Any, src: Any, die: Any) -> None:
    for k in range(max(src - die, -1) + 1, src + 1):
        tails[k] += 1


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def successors_of(
    i: Any, boards: Any, d0: Any, d1: Any, binom: Any, S: Any, outside2: Any, out: Any, tails: Any
) -> Any:
    """Successors of position ``i`` for ``d0-d1``: from the move table when there is one
    (``S.shape[0] > 1``), else by moving checkers.

    ``binom=None`` promises a move table: numba then prunes the checker-moving branch at
    compile time, so :func:`roll_successors` is not compiled for builds that never use it.
    """
    if binom is None:
        return roll_successors_indexed(i, boards.shape[1], d0, d1, S, outside2, out)
    if S.shape[0] > 1:
        return roll_successors_indexed(i, boards.shape[1], d0, d1, S, outside2, out)
    return roll_successors(boards[i], boards.shape[1], d0, d1, binom, out, tails)


# --------------------------------------------------------------------------------------
# Successor tables (CSR)


@njit(cache=True)  # serial: about 1 s for 6x15, where compiling prange costs more
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
                m = successors_of(i, boards, d0, d1, binom, S, outside2, out, tails)
                counts[i * 21 + r] = m
                r += 1


@njit(cache=True)  # serial: about 1 s for 6x15, where compiling prange costs more
def csr_fill(boards: Any, binom: Any, S: Any, outside2: Any, ptr: Any, succ: Any) -> None:
    """Fill ``succ[ptr[i*21+r]:ptr[i*21+r+1]]`` with the successors of (i, r)."""
    n, npoints = boards.shape
    for i in prange(1, n):
        out = np.empty(MAX_SUCC, np.int64)
        tails = np.empty(npoints + 1, np.int64)
        r = 0
        for d0 in range(1, 7):
            for d1 in range(1, d0 + 1):
                m = successors_of(i, boards, d0, d1, binom, S, outside2, out, tails)
                base = ptr[i * 21 + r]
                for q in range(m):
                    succ[base + q] = out[q]
                r += 1
