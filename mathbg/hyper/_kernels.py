"""numba kernels of the exact Hypergammon solver (internal; compiled on first call, cached).

Nothing here is public API: :mod:`mathbg.hyper.space` builds the tables, and
:mod:`mathbg.hyper.money` and :mod:`mathbg.hyper.match` run the sweeps.

Tables
------
A side is 25 cell counts (points 1..24 of its own numbering, cell 24 the bar); sides are
indexed by :func:`rank` (gnubg's ``PositionBearoff`` over 25 points). For the roller's
side ``i`` and roll ``r`` (gnubg's order, ``d0 >= d1``) the *candidates*
``ptr[21 i + r] : ptr[21 i + r + 1]`` are every sequence of single-die moves the side can
make by itself, with ``mask`` the points it lands on (bit ``p - 1`` for point ``p`` of
the roller), ``res`` the side it reaches and ``group = 2 * dice used + larger`` (``larger``
= 1 for one die of a non-double, the larger one), sorted by ``group`` descending. Against
an opponent ``j`` (``block[j]``: the roller's points it holds with two or more; ``blots[j]``
those with one) a candidate is legal when ``mask & block[j] == 0``, and the plays are the
legal candidates of the first group that has one: backgammon's rules (use as many dice as
possible; with one die of a non-double playable, the larger if it can be). A play hits
the blots on ``mask & blots[j]``; ``hit_next[j, subset]`` is the opponent's side after
those (listed in ``blotbit[j]``) go to the bar, and ``lose_kind[j]`` what a loser with
side ``j`` loses (1 single, 2 gammon, 3 backgammon).

Values
------
``T[o, r, :]`` holds the values of the pair ``(roller r, opponent o)``: the table is stored
opponent-major, so the successors of a roller against consecutive opponents are read
along contiguous rows. A sweep visits the pairs in shells ``m = max(r, o)`` (the row part
``(m, o)``, ``o < m``, then the column part ``(r, m)``, ``r <= m``) and updates them in
place: a play that hits nothing lowers the mover's index and so reads a pair already
updated in this sweep; only hits and dances read older values, which is why a few sweeps
converge (Gauss-Seidel in the order of the game's own progress).

Money values, per unit cube, for the roller before his cube decision (gnubg's convention),
with ``cube(ND, E) = max(ND, min(2 E, 1))`` (beavers: ``4 E`` when ``E < 0``)::

    0 cubeless equity   1 roller owns   2 centred   3 centred, Jacoby   4 opponent owns
    5..9 cubeless probabilities: win, win gammon, win backgammon, lose gammon, lose bg

A play to the successor value ``v`` (the opponent's, on roll) is worth ``-v[0]``,
``-v[4]``, ``-cube(v[2], v[4])``, ``-cube(v[3], v[4])``, ``-cube(v[1], v[4])``; a play
that bears off the last checker wins ``lose_kind`` (1 under the Jacoby rule, centred); a
roll that cannot be played hands the turn over with the cube where it is (makehyper
1.07.001 instead negates every value of the swapped pair, so that the owner changes and
the opponent's cube decision is skipped: ``gnubg_dance``).

Match values: ``A[q]`` is the roller's match winning chance (MWC) in cube state ``q``
*after* his own cube decision (see :mod:`mathbg.hyper.match`)::

    N[q] = sum_r w_r / 36 * max_plays (1 - A_succ[perm[q]])      (a win: win_k[q])
    A[q] = max(N[q], min(N[dbl[q]], win_1[q]))   if can_double[q]   else N[q]

with, along the chosen plays and decisions, the probabilities that the roller wins and
loses a gammon or more (float32 ``G[o, r, q, 0:2]``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from mathbg.hyper._layout import (
    BLOCK,
    BLOTBIT,
    BLOTS,
    HIT_NEXT,
    LOSE_KIND,
    MONEY_VALUES,
    NBLOT,
    OCC,
    OPP_COLUMNS,
    ROLL_DICE,
    ROLL_WEIGHTS,
    TIE,
)


@njit(cache=True)
def rank(b: Any, binom: Any) -> Any:
    """Index of a side (25 cells) in gnubg's ``PositionBearoff`` order over 25 points."""
    idx = 0
    tail = 0
    for k in range(24, -1, -1):
        tail += b[k]
        idx += binom[24 - k + tail, 25 - k]
    return idx


@njit(cache=True)
def _dest(b: Any, src: Any, d: Any) -> Any:
    """Cell a checker of ``b`` on cell ``src`` reaches with die ``d``: a cell, -1 (borne
    off) or -2 (no such move by the side's own rules)."""
    if b[src] == 0 or (b[24] > 0 and src != 24):
        return -2
    dest = src - d
    if dest >= 0:
        return dest
    for k in range(6, 25):
        if b[k]:
            return -2
    if dest < -1:  # overshoot: only from the highest occupied point
        for k in range(src + 1, 6):
            if b[k]:
                return -2
    return -1


@njit(cache=True)
def _roll_candidates(
    side: Any, d0: Any, d1: Any, binom: Any, tm: Any, tr: Any, tg: Any, boards: Any,
    masks: Any, ptrs: Any, dice: Any,
) -> Any:
    """The distinct (mask, result, group) candidates of one side and roll into tm/tr/tg."""
    cnt = 0
    orders = 1 if d0 == d1 else 2
    for o in range(orders):
        if d0 == d1:
            nd = 4
            for k in range(4):
                dice[k] = d0
        else:
            nd = 2
            dice[0] = d0 if o == 0 else d1
            dice[1] = d1 if o == 0 else d0
        boards[0, :] = side
        masks[0] = 0
        ptrs[0] = 0
        depth = 0
        while depth >= 0:
            if depth == nd:
                depth -= 1
                continue
            pushed = False
            while ptrs[depth] < 25:
                src = ptrs[depth]
                ptrs[depth] += 1
                dest = _dest(boards[depth], src, dice[depth])
                if dest == -2:
                    continue
                boards[depth + 1, :] = boards[depth, :]
                boards[depth + 1, src] -= 1
                m = masks[depth]
                if dest >= 0:
                    boards[depth + 1, dest] += 1
                    m |= 1 << dest
                depth += 1
                masks[depth] = m
                ptrs[depth] = 0
                g = 2 * depth
                if d0 != d1 and depth == 1 and dice[0] == d0:
                    g += 1
                rk = rank(boards[depth], binom)
                dup = False
                for c in range(cnt):
                    if tm[c] == m and tr[c] == rk and tg[c] == g:
                        dup = True
                        break
                if not dup:
                    tm[cnt] = m
                    tr[cnt] = rk
                    tg[cnt] = g
                    cnt += 1
                pushed = True
                break
            if not pushed:
                depth -= 1
    return cnt


@njit(cache=True)
def build_candidates(sides: Any, binom: Any) -> Any:
    """``(ptr, cand)``: every side's candidates by roll, ``cand[c] = (mask, res, group)``
    (see the module docs)."""
    n = sides.shape[0]
    cap = n * 21 * 40
    ptr = np.zeros(n * 21 + 1, dtype=np.int64)
    mask = np.empty(cap, dtype=np.uint32)
    res = np.empty(cap, dtype=np.int32)
    group = np.empty(cap, dtype=np.int8)
    tm = np.empty(512, dtype=np.int64)
    tr = np.empty(512, dtype=np.int64)
    tg = np.empty(512, dtype=np.int64)
    boards = np.empty((5, 25), dtype=np.int64)
    masks = np.zeros(5, dtype=np.int64)
    ptrs = np.zeros(5, dtype=np.int64)
    dice = np.empty(4, dtype=np.int64)
    pos = 0
    for i in range(n):
        for r in range(21):
            d0 = ROLL_DICE[r, 0]
            d1 = ROLL_DICE[r, 1]
            cnt = _roll_candidates(sides[i], d0, d1, binom, tm, tr, tg, boards, masks, ptrs, dice)
            if pos + cnt > cap:  # pragma: no cover - the bound holds for <= 3 checkers
                grown = max(2 * cap, pos + cnt)
                mask = np.concatenate((mask, np.empty(grown - cap, dtype=np.uint32)))
                res = np.concatenate((res, np.empty(grown - cap, dtype=np.int32)))
                group = np.concatenate((group, np.empty(grown - cap, dtype=np.int8)))
                cap = grown
            for g in range(8, 1, -1):  # groups in descending order
                for c in range(cnt):
                    if tg[c] == g:
                        mask[pos] = tm[c]
                        res[pos] = tr[c]
                        group[pos] = g
                        pos += 1
            ptr[i * 21 + r + 1] = pos
    cand = np.empty((pos, 3), dtype=np.int64)
    cand[:, 0] = mask[:pos]
    cand[:, 1] = res[:pos]
    cand[:, 2] = group[:pos]
    return ptr, cand




@njit(cache=True)
def opponent_table(sides: Any, binom: Any) -> Any:
    """Each side seen as the opponent: ``opp[j, :]`` (columns :data:`BLOCK` ...).

    ``BLOCK`` and ``BLOTS`` are masks of the *roller's* points (the opponent's point ``p``
    is the roller's ``25 - p``) held by two or more, by one; ``BLOTBIT + t`` the bit of
    blot ``t`` (``NBLOT`` of them); ``HIT_NEXT + subset`` the side after the blots of
    ``subset`` are hit; ``LOSE_KIND`` what the side loses when the other finishes (1
    single, 2 gammon, 3 backgammon); ``OCC`` the side's own occupied points as the roller.
    """
    n = sides.shape[0]
    checkers = 0
    for k in range(25):
        checkers += sides[n - 1, k]
    opp = np.zeros((n, OPP_COLUMNS), dtype=np.int64)
    cells = np.zeros(3, dtype=np.int64)
    row = np.empty(25, dtype=np.int64)
    for j in range(n):
        b = sides[j]
        nb = 0
        on = 0
        back = False
        for k in range(25):
            on += b[k]
            if k >= 18 and b[k] > 0:
                back = True
            if k < 24 and b[k] > 0:
                opp[j, OCC] |= 1 << k
                bit = 1 << (23 - k)
                if b[k] >= 2:
                    opp[j, BLOCK] |= bit
                else:
                    opp[j, BLOTS] |= bit
                    opp[j, BLOTBIT + nb] = bit
                    cells[nb] = k
                    nb += 1
        opp[j, NBLOT] = nb
        for sub in range(1 << nb):
            row[:] = b
            for t in range(nb):
                if sub & (1 << t):
                    row[cells[t]] -= 1
                    row[24] += 1
            opp[j, HIT_NEXT + sub] = rank(row, binom)
        if on < checkers:
            opp[j, LOSE_KIND] = 1
        elif back:
            opp[j, LOSE_KIND] = 3
        else:
            opp[j, LOSE_KIND] = 2
    return opp


@njit(cache=True)
def pair_plays(i: Any, j: Any, ptr: Any, cand: Any, opp: Any, out: Any, start: Any) -> Any:
    """Every play of every roll for roller ``i`` against ``j``; returns their number.

    The plays of roll ``r`` are ``out[start[r]:start[r + 1]]``: play ``t`` leads to the
    pair ``(out[t, 0], out[t, 1])`` (the opponent, possibly hit, on roll) with
    ``out[t, 2] = 0``, or wins the game: ``out[t, 2]`` = 1, 2, 3 (single, gammon,
    backgammon). A roll that cannot be played is one play to ``(j, i)`` with
    ``out[t, 2] = -1``. (One call per pair: a call per roll costs more than the work.)
    """
    bj = opp[j, BLOCK]
    lj = opp[j, BLOTS]
    n = 0
    for r in range(21):
        start[r] = n
        hi = ptr[i * 21 + r + 1]
        c = ptr[i * 21 + r]
        while c < hi and (cand[c, 0] & bj) != 0:
            c += 1
        if c == hi:
            out[n, 0] = j
            out[n, 1] = i
            out[n, 2] = -1
            n += 1
            continue
        g = cand[c, 2]
        while c < hi and cand[c, 2] == g:
            m = cand[c, 0]
            if (m & bj) == 0:
                h = m & lj
                jn = j
                if h != 0:
                    sub = 0
                    for t in range(opp[j, NBLOT]):
                        if h & opp[j, BLOTBIT + t]:
                            sub |= 1 << t
                    jn = opp[j, HIT_NEXT + sub]
                s = cand[c, 1]
                out[n, 0] = jn
                out[n, 1] = s
                out[n, 2] = opp[jn, LOSE_KIND] if s == 0 else 0
                n += 1
            c += 1
    start[21] = n
    return n


@njit(cache=True)
def money_pair(
    i: Any, j: Any, T: Any, row: Any, ms: Any, new: Any, out: Any, start: Any,
    beavers: Any, gnubg_dance: Any,
) -> None:
    """The money values of pair (i, j) from its successors into ``new`` (see module docs);
    ``out``/``start`` hold the pair's plays (:func:`pair_plays`); ``row[o]`` is a
    contiguous copy of ``T[o, ms]`` (the pairs with roller ``ms``; ``ms = -1``: none).
    (Scalars, not arrays, hold the running bests: LLVM keeps them in registers.)"""
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = s8 = s9 = 0.0
    for r in range(21):
        w = ROLL_WEIGHTS[r]
        lo = start[r]
        hi = start[r + 1]
        if out[lo, 2] == -1 and gnubg_dance:
            v = row[i] if j == ms else T[i, j]
            s0 -= w * v[0]
            s1 -= w * v[1]
            s2 -= w * v[2]
            s3 -= w * v[3]
            s4 -= w * v[4]
            s5 += w * (1.0 - v[5])
            s6 += w * v[8]
            s7 += w * v[9]
            s8 += w * v[6]
            s9 += w * v[7]
            continue
        b0 = b1 = b2 = b3 = b4 = -1e300
        p5 = p6 = p7 = p8 = p9 = 0.0
        arg = -1e300
        for t in range(lo, hi):
            kind = out[t, 2]
            if kind > 0:
                e0 = float(kind)
                owned = e0
                centre = e0
                jac = 1.0
                opp = e0
                q5 = 1.0
                q6 = 1.0 if kind >= 2 else 0.0
                q7 = 1.0 if kind >= 3 else 0.0
                q8 = 0.0
                q9 = 0.0
            else:
                v = row[out[t, 1]] if out[t, 0] == ms else T[out[t, 1], out[t, 0]]
                e0 = -v[0]
                e4 = v[4]
                owned = -e4
                dt = 4.0 * e4 if (beavers and e4 < 0.0) else 2.0 * e4
                if dt > 1.0:
                    dt = 1.0
                centre = -max(v[2], dt)
                jac = -max(v[3], dt)
                opp = -max(v[1], dt)
                q5 = 1.0 - v[5]
                q6 = v[8]
                q7 = v[9]
                q8 = v[6]
                q9 = v[7]
            b0 = max(b0, e0)
            if e0 > arg + TIE:
                arg = e0
                p5, p6, p7, p8, p9 = q5, q6, q7, q8, q9
            b1 = max(b1, owned)
            b2 = max(b2, centre)
            b3 = max(b3, jac)
            b4 = max(b4, opp)
        s0 += w * b0
        s1 += w * b1
        s2 += w * b2
        s3 += w * b3
        s4 += w * b4
        s5 += w * p5
        s6 += w * p6
        s7 += w * p7
        s8 += w * p8
        s9 += w * p9
    new[0] = s0 / 36.0
    new[1] = s1 / 36.0
    new[2] = s2 / 36.0
    new[3] = s3 / 36.0
    new[4] = s4 / 36.0
    new[5] = s5 / 36.0
    new[6] = s6 / 36.0
    new[7] = s7 / 36.0
    new[8] = s8 / 36.0
    new[9] = s9 / 36.0


@njit(cache=True, nogil=True)
def money_sweep(
    m0: Any, m1: Any, T: Any, ptr: Any, cand: Any, opp: Any, beavers: Any, gnubg_dance: Any
) -> Any:
    """Update the pairs of shells ``m0 <= m < m1`` in place; return the largest change."""
    new = np.empty(MONEY_VALUES)
    out = np.empty((1024, 3), dtype=np.int64)
    start = np.empty(22, dtype=np.int64)
    row = np.empty((T.shape[0], MONEY_VALUES))
    delta = 0.0
    for m in range(max(m0, 1), m1):
        for part in range(2):
            top = m if part == 0 else m + 1
            ms = -1
            if part == 1:  # the column part reads the pairs of roller m: copy them together
                row[:, :] = T[:, m, :]
                ms = m
            for x in range(1, top):
                i = m if part == 0 else x
                j = x if part == 0 else m
                if opp[i, OCC] & (opp[j, BLOCK] | opp[j, BLOTS]):
                    continue
                pair_plays(i, j, ptr, cand, opp, out, start)
                money_pair(i, j, T, row, ms, new, out, start, beavers, gnubg_dance)
                old = T[j, i]
                for k in range(MONEY_VALUES):
                    d = abs(new[k] - old[k])
                    if d > delta:
                        delta = d
                    old[k] = new[k]
                    if i == ms:
                        row[j, k] = new[k]
    return delta


@njit(cache=True)
def match_pair(
    i: Any, j: Any, P: Any, G: Any, row: Any, rowg: Any, ms: Any, out: Any, start: Any,
    win: Any, perm: Any, can_double: Any, dbl: Any, nv: Any, ng: Any, av: Any, ag: Any,
) -> None:
    """The match values of pair (i, j): ``av[q]`` (after the roller's cube decision) and
    ``ag[q, :]`` (P(the roller wins, loses a gammon or more)) of every state ``q``.

    ``P[o, r, q] = A(r, o)[perm[q]]`` and ``G`` likewise: a play to ``(r, o)`` is worth
    ``1 - P[o, r, q]`` to the roller in state ``q``; a play that wins ``k`` points x cube
    is worth ``win[q, k - 1]``; ``row``/``rowg`` are contiguous copies of the pairs of
    roller ``ms`` (as :func:`money_pair`). The work arrays are allocated here, so the
    compiler knows they alias nothing (measured 1.5 times faster than passed-in ones).
    """
    S = win.shape[0]
    best = np.empty(S)
    arg = np.empty(S)
    bg = np.empty((S, 2))
    for q in range(S):
        nv[q] = 0.0
        ng[q, 0] = 0.0
        ng[q, 1] = 0.0
    for r in range(21):
        for q in range(S):
            best[q] = -1.0
            arg[q] = -1.0
        for t in range(start[r], start[r + 1]):
            kind = out[t, 2]
            if kind > 0:
                c0 = 1.0 if kind >= 2 else 0.0
                for q in range(S):
                    v = win[q, kind - 1]
                    best[q] = max(best[q], v)
                    if v > arg[q] + TIE:
                        arg[q] = v
                        bg[q, 0] = c0
                        bg[q, 1] = 0.0
                continue
            if out[t, 0] == ms:
                src = row[out[t, 1]]
                gsrc = rowg[out[t, 1]]
            else:
                src = P[out[t, 1], out[t, 0]]
                gsrc = G[out[t, 1], out[t, 0]]
            for q in range(S):
                v = 1.0 - src[q]
                best[q] = max(best[q], v)
                if v > arg[q] + TIE:
                    arg[q] = v
                    bg[q, 0] = gsrc[q, 1]
                    bg[q, 1] = gsrc[q, 0]
        w = ROLL_WEIGHTS[r] / 36.0
        for q in range(S):
            nv[q] += w * best[q]
            ng[q, 0] += w * bg[q, 0]
            ng[q, 1] += w * bg[q, 1]
    for q in range(S):
        a = nv[q]
        g0 = ng[q, 0]
        g1 = ng[q, 1]
        if can_double[q]:
            dt = nv[dbl[q]]
            dp = win[q, 0]
            if dp <= dt:
                if dp > a:  # double, pass: the game ends, no gammon
                    a = dp
                    g0 = 0.0
                    g1 = 0.0
            elif dt > a:  # double, take
                a = dt
                g0 = ng[dbl[q], 0]
                g1 = ng[dbl[q], 1]
        av[q] = a
        ag[q, 0] = g0
        ag[q, 1] = g1


@njit(cache=True, nogil=True)
def match_sweep(
    m0: Any, m1: Any, P: Any, G: Any, ptr: Any, cand: Any, opp: Any, win: Any, perm: Any,
    can_double: Any, dbl: Any,
) -> Any:
    """Update the pairs of shells ``m0 <= m < m1`` in place; return the largest change of
    a match winning chance."""
    S = win.shape[0]
    nv = np.empty(S)
    ng = np.empty((S, 2))
    av = np.empty(S)
    ag = np.empty((S, 2))
    out = np.empty((1024, 3), dtype=np.int64)
    start = np.empty(22, dtype=np.int64)
    row = np.empty((P.shape[0], S))
    rowg = np.empty((P.shape[0], S, 2), dtype=G.dtype)
    delta = 0.0
    for m in range(max(m0, 1), m1):
        for part in range(2):
            top = m if part == 0 else m + 1
            ms = -1
            if part == 1:  # the column part reads the pairs of roller m: copy them together
                row[:, :] = P[:, m, :]
                rowg[:, :, :] = G[:, m, :, :]
                ms = m
            for x in range(1, top):
                i = m if part == 0 else x
                j = x if part == 0 else m
                if opp[i, OCC] & (opp[j, BLOCK] | opp[j, BLOTS]):
                    continue
                pair_plays(i, j, ptr, cand, opp, out, start)
                match_pair(i, j, P, G, row, rowg, ms, out, start, win, perm, can_double, dbl,
                           nv, ng, av, ag)
                old = P[j, i]
                gold = G[j, i]
                for q in range(S):
                    v = av[perm[q]]
                    d = abs(v - old[q])
                    if d > delta:
                        delta = d
                    old[q] = v
                    gold[q, 0] = ag[perm[q], 0]
                    gold[q, 1] = ag[perm[q], 1]
                    if i == ms:
                        row[j, q] = v
                        rowg[j, q, 0] = gold[q, 0]
                        rowg[j, q, 1] = gold[q, 1]
    return delta


@njit(cache=True)
def match_no_double(
    i: Any, j: Any, P: Any, G: Any, ptr: Any, cand: Any, opp: Any, win: Any, perm: Any,
    can_double: Any, dbl: Any,
) -> Any:
    """``(N, A)``: the roller's no-double and optimal MWC of every state at one pair."""
    S = win.shape[0]
    nv = np.empty(S)
    ng = np.empty((S, 2))
    av = np.empty(S)
    ag = np.empty((S, 2))
    out = np.empty((1024, 3), dtype=np.int64)
    start = np.empty(22, dtype=np.int64)
    pair_plays(i, j, ptr, cand, opp, out, start)
    match_pair(i, j, P, G, P[:1, 0], G[:1, 0], -1, out, start, win, perm, can_double, dbl, nv,
               ng, av, ag)
    return nv, av, ng
