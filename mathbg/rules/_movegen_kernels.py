"""The numba kernels behind :mod:`mathbg.rules.movegen` (its "Implementation" notes
describe the search), kept apart so that importing the move generator does not import
numba: a process that generates the plays of a few thousand positions one at a time never
loads these (:func:`mathbg.rules.movegen.generate` runs a pure-Python port of
:func:`search` for those); batches and long runs do.

Kernel arrays use gnubg ``TanBoard`` order flattened to 50 ``uint8``: the side not on roll
(points 1..24, bar) then the side on roll; a move is ``(from, to, die)`` with 0-based
indices (24 = bar, -1 = off).
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from mathbg._native import no_refcounts

__all__ = [
    "advance",
    "bears_off",
    "count_plays_kernel",
    "dice_order",
    "dice_pips",
    "generate_kernel",
    "hits_to_bar",
    "leaf",
    "load_board",
    "materialize",
    "search",
    "successors_kernel",
    "unpack",
]

# Hash multipliers (odd 64-bit constants from splitmix64), as signed int64.
_C1 = np.int64(-7046029254386353131)  # 0x9E3779B97F4A7C15
_C2 = np.int64(-4658895280553007687)  # 0xBF58476D1CE4E5B9
_C3 = np.int64(-7723592293110705685)  # 0x94D049BB133111EB


@no_refcounts
def leaf(
    k1: Any, k2: Any, k3: Any, score: Any, nmv: Any, mv: Any, best: Any, n: Any, stamp: Any, ws: Any
) -> Any:
    """Record a finished sequence; returns (best, n, stamp); n = -1 on table overflow.

    ``ws`` is the workspace tuple ``(tab_stamp, tab_idx, stamp_box, ent_keys, ent_moves,
    ...)``.
    """
    tab_stamp, tab_idx, ent_keys, ent_moves = ws[0], ws[1], ws[3], ws[4]
    if score < best:
        return best, n, stamp
    if score > best:
        best = score
        n = 0
        stamp += 1
    mask = tab_stamp.shape[0] - 1
    h = (k1 * _C1) ^ (k2 * _C2) ^ (k3 * _C3)
    h ^= h >> 29
    slot = h & mask
    while tab_stamp[slot] == stamp:
        j = tab_idx[slot]
        if ent_keys[j, 0] == k1 and ent_keys[j, 1] == k2 and ent_keys[j, 2] == k3:
            return best, n, stamp
        slot = (slot + 1) & mask
    if n >= ent_keys.shape[0]:
        return best, -1, stamp
    tab_stamp[slot] = stamp
    tab_idx[slot] = n
    ent_keys[n, 0] = k1
    ent_keys[n, 1] = k2
    ent_keys[n, 2] = k3
    for m in range(4):
        if m < nmv:
            ent_moves[n, m, 0] = mv[m, 0]
            ent_moves[n, m, 1] = mv[m, 1]
            ent_moves[n, m, 2] = mv[m, 2]
        else:
            ent_moves[n, m, 0] = -1
            ent_moves[n, m, 1] = -1
            ent_moves[n, m, 2] = 0
    return best, n + 1, stamp


# Small pieces of the search shared with the variants' kernel
# (:mod:`mathbg.rules.variants._kernel`); numba inlines them.


@nb.njit(cache=True, inline="always")
def load_board(board: Any, me: Any, w1: Any, w2: Any, out: Any) -> Any:
    """Level 0 of the search state from the mover's counts (``board[25:50]``): ``me[0]``
    the counts, ``w1[0]``/``w2[0]`` their nibble keys (indices 0-14, 15-24), ``out[0]``
    the checkers outside the home board. Returns the mover's checkers on the board."""
    total = np.int64(0)
    for i in range(25):
        c = np.int64(board[25 + i])
        me[0, i] = c
        total += c
        if i < 15:
            w1[0] += c << (4 * i)
        else:
            w2[0] += c << (4 * (i - 15))
        if i >= 6:
            out[0] += c
    return total


@nb.njit(cache=True, inline="always")
def dice_order(dseq: Any, d1: Any, d2: Any, order: Any) -> None:
    """The dice of search order 0 (d1 first) or 1 (d2 first); dice 3 and 4 are d1."""
    if order == 0:
        dseq[0] = d1
        dseq[1] = d2
    else:
        dseq[0] = d2
        dseq[1] = d1
    dseq[2] = d1
    dseq[3] = d1


@nb.njit(cache=True, inline="always")
def bears_off(me: Any, lvl: Any, s: Any, t: Any) -> Any:
    """With every checker home, may the checker on index ``s`` bear off, landing at
    ``t < 0``? Exactly (``t == -1``), or with a larger die from the highest point."""
    if t == -1:
        return True
    for i in range(s + 1, 6):
        if me[lvl, i] > 0:
            return False
    return True


@nb.njit(cache=True, inline="always")
def _nibble(a1: Any, a2: Any, i: Any, delta: Any) -> Any:
    """The nibble keys with ``delta`` added to the count of index ``i``."""
    if i < 15:
        a1 += np.int64(delta) << (4 * i)
    else:
        a2 += np.int64(delta) << (4 * (i - 15))
    return a1, a2


@nb.njit(cache=True, inline="always")
def advance(me: Any, w1: Any, w2: Any, out: Any, lvl: Any, found: Any, t: Any) -> None:
    """Level ``lvl + 1`` of the search state: level ``lvl`` with a checker moved from
    index ``found`` to ``t`` (``t < 0``: borne off)."""
    nl = lvl + 1
    for i in range(25):
        me[nl, i] = me[lvl, i]
    me[nl, found] -= 1
    a1, a2 = _nibble(w1[lvl], w2[lvl], found, -1)
    o = out[lvl]
    if t >= 0:
        me[nl, t] += 1
        a1, a2 = _nibble(a1, a2, t, 1)
        if found >= 6 and t < 6:
            o -= 1
    w1[nl] = a1
    w2[nl] = a2
    out[nl] = o


@nb.njit(cache=True, inline="always")
def dice_pips(dseq: Any, k: Any) -> Any:
    """Pips of the first ``k`` dice of the order."""
    pips = 0
    for i in range(k):
        pips += dseq[i]
    return pips


@nb.njit(cache=True, inline="always")
def unpack(board: Any, k1: Any, k2: Any, dest: Any, r: Any) -> None:
    """Row ``r`` of ``dest``: the opponent's cells of ``board`` and the mover's counts
    from the nibble keys."""
    for i in range(25):
        dest[r, i] = board[i]
    for i in range(15):
        dest[r, 25 + i] = (k1 >> (4 * i)) & 15
    for i in range(10):
        dest[r, 40 + i] = (k2 >> (4 * i)) & 15


@nb.njit(cache=True, inline="always")
def hits_to_bar(k3: Any, dest: Any, r: Any) -> None:
    """Move the opposing blots of hit mask ``k3`` (mover's indices) to their bar."""
    if k3 != 0:
        for t in range(24):
            if (k3 >> t) & 1:
                dest[r, 23 - t] = 0
                dest[r, 24] += 1


# The search and its table allocate nothing (their state is in the workspace): they compile
# without numba's reference counts (:func:`mathbg._native.no_refcounts`), as the engine's
# kernels that call them.
@no_refcounts
def search(board: Any, d1: Any, d2: Any, ws: Any) -> Any:
    """Fill the workspace ``ws`` (:meth:`~mathbg.rules._movegen_workspace.Workspace.args`)
    with the distinct legal plays; return their number.

    Returns -1 when the workspace is too small (the caller enlarges it and retries).
    """
    stamp_box = ws[2]
    me = ws[5]
    w1, w2, hit = ws[6][0], ws[6][1], ws[6][2]
    out, src, moved, dseq = ws[7][0], ws[7][1], ws[7][2], ws[7][3]
    mv = ws[8]
    for k in range(5):
        w1[k] = 0
        w2[k] = 0
        hit[k] = 0
        out[k] = 0
    load_board(board, me, w1, w2, out)
    doubles = d1 == d2
    nd = 4 if doubles else 2
    norders = 1 if doubles else 2
    # int64 from the start: a literal first value would make numba compile ``leaf`` for
    # the literal types too, then again for int64 (twice the compile time for nothing)
    best = np.int64(-1)
    n = np.int64(0)
    stamp = stamp_box[0]
    for order in range(norders):
        dice_order(dseq, d1, d2, order)
        lvl = np.int64(0)
        src[0] = 24
        moved[0] = 0
        while lvl >= 0:
            d = dseq[lvl]
            s = src[lvl]
            found = -1
            t = 0
            if me[lvl, 24] > 0:
                # checkers on the bar: the bar is the only source
                if s == 24 and board[d - 1] < 2:
                    found = 24
                    t = 24 - d
            else:
                while s >= 0:
                    if me[lvl, s] > 0:
                        t = s - d
                        if t >= 0:
                            if board[23 - t] < 2:
                                found = s
                                break
                        elif out[lvl] == 0 and bears_off(me, lvl, s, t):
                            found = s
                            break
                    s -= 1
            if found < 0:
                if lvl > 0 and moved[lvl] == 0:
                    score = lvl * 64 + dice_pips(dseq, lvl)
                    best, n, stamp = leaf(
                        w1[lvl], w2[lvl], hit[lvl], score, lvl, mv, best, n, stamp, ws
                    )
                    if n < 0:
                        stamp_box[0] = stamp
                        return -1
                lvl -= 1
                continue
            src[lvl] = found - 1
            moved[lvl] = 1
            nl = lvl + 1
            advance(me, w1, w2, out, lvl, found, t)
            h = hit[lvl]
            if t >= 0:
                if board[23 - t] == 1 and ((h >> t) & 1) == 0:
                    h |= np.int64(1) << t
            else:
                t = -1
            hit[nl] = h
            mv[lvl, 0] = found
            mv[lvl, 1] = t
            mv[lvl, 2] = d
            if nl == nd:
                score = nd * 64 + dice_pips(dseq, nd)
                best, n, stamp = leaf(w1[nl], w2[nl], h, score, nd, mv, best, n, stamp, ws)
                if n < 0:
                    stamp_box[0] = stamp
                    return -1
            else:
                lvl = nl
                src[lvl] = found if doubles else 24
                moved[lvl] = 0
    stamp_box[0] = stamp + 1
    return n


@no_refcounts
def materialize(board: Any, ent_keys: Any, n: Any, dest: Any, row0: Any) -> None:
    """Write the resulting boards of entries 0..n-1 into dest[row0:row0+n]."""
    for j in range(n):
        r = row0 + j
        unpack(board, ent_keys[j, 0], ent_keys[j, 1], dest, r)
        hits_to_bar(ent_keys[j, 2], dest, r)


@nb.njit(cache=True)
def generate_kernel(board: Any, d1: Any, d2: Any, ws: Any) -> Any:
    """The plays of one (board, roll) with the workspace ``ws``
    (:meth:`~mathbg.rules._movegen_workspace.Workspace.args`): ``(n, boards, moves)``,
    n = -1 when the workspace is too small."""
    ent_keys, ent_moves = ws[3], ws[4]
    n = search(board, d1, d2, ws)
    if n < 0:
        return n, np.empty((0, 50), np.uint8), np.empty((0, 4, 3), np.int8)
    boards = np.empty((n, 50), np.uint8)
    materialize(board, ent_keys, n, boards, np.int64(0))  # the native engine's signature
    moves = np.empty((n, 4, 3), np.int8)
    for j in range(n):
        for m in range(4):
            for c in range(3):
                moves[j, m, c] = ent_moves[j, m, c]
    return n, boards, moves


# The batch entry points (successors_kernel, count_plays_kernel) each loop over (board,
# roll) themselves: sharing that loop would put a callback or a mode switch into kernels
# that now compile straight (kept separate).
@nb.njit(cache=True)
def successors_kernel(boards: Any, dice: Any, ws: Any) -> Any:
    """Resulting boards for every (board, roll); CSR layout. Returns (ptr, results, ok)."""
    ent_keys = ws[3]
    nb_ = boards.shape[0]
    nr = dice.shape[0]
    ptr = np.zeros(nb_ * nr + 1, np.int64)
    cap = max(1024, nb_ * nr * 8)
    res = np.empty((cap, 50), np.uint8)
    total = 0
    for b in range(nb_):
        for r in range(nr):
            n = search(boards[b], dice[r, 0], dice[r, 1], ws)
            if n < 0:
                return ptr, res[:0], False
            if total + n > cap:
                while total + n > cap:
                    cap *= 2
                bigger = np.empty((cap, 50), np.uint8)
                bigger[:total] = res[:total]
                res = bigger
            materialize(boards[b], ent_keys, n, res, total)
            total += n
            ptr[b * nr + r + 1] = total
    return ptr, res[:total].copy(), True


@nb.njit(cache=True)
def count_plays_kernel(boards: Any, dice: Any, ws: Any) -> Any:
    """Number of legal plays for every (board, roll); -1 entries flag overflow."""
    out = np.empty((boards.shape[0], dice.shape[0]), np.int32)
    for b in range(boards.shape[0]):
        for r in range(dice.shape[0]):
            out[b, r] = search(boards[b], dice[r, 0], dice[r, 1], ws)
    return out
