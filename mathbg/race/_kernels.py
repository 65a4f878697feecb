"""numba kernels of the race evaluator (internal; compiled lazily on first call).

Boards are int64 arrays of length 24: checkers on the side's own points 1..24 (a race has
no checker on the bar). Plays come from :func:`mathbg.bearoff._play_kernels.roll_successors`
(one side, no opponent in the way: exactly the situation of a race), as indices in the
24-point bearoff numbering, decoded here by :func:`unrank_board`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from mathbg.bearoff._play_kernels import MAX_SUCC, rank_board, roll_dice, roll_successors

#: Points of a race board (no bar).
NPOINTS = 24
#: Average pips of a roll (49/6).
AVG_ROLL = 49.0 / 6.0


@njit(cache=True)
def unrank_board(idx: Any, npoints: Any, binom: Any, out: Any) -> None:
    """Inverse of :func:`rank_board`: the board of bearoff index ``idx`` into ``out``.

    ``idx = sum_k C(c_k, P - k)`` with ``c_k = P - 1 - k + T_k`` strictly decreasing and
    ``T_k`` the checkers on points k+1 and higher; each ``c_k`` is the largest ``c >=
    P - 1 - k`` with ``C(c, P - k) <= idx`` (combinatorial number system, greedy).
    """
    rest = idx
    t_prev = 0
    for k in range(npoints):
        r = npoints - k
        c = r - 1
        while binom[c + 1, r] <= rest:
            c += 1
        rest -= binom[c, r]
        t_k = c - (r - 1)
        if k > 0:
            out[k - 1] = t_prev - t_k
        t_prev = t_k
    out[npoints - 1] = t_prev


@njit(cache=True)
def board_value(b: Any, binom: Any, means6: Any, alpha: Any, beta: Any) -> Any:
    """Heuristic expected rolls to bear off (the play-selection value of the rollout).

    Checkers outside the home board are put on the 6-point; value = exact expected rolls
    of that home board (6-point database) + the pips the outside checkers still need to
    reach the 6-point, divided by 49/6. Exact once every checker is home.
    """
    p6 = np.zeros(6, np.int64)
    extra = 0
    out = 0
    for k in range(6):
        p6[k] = b[k]
    for k in range(6, NPOINTS):
        if b[k] > 0:
            p6[5] += b[k]
            out += b[k]
            extra += b[k] * (k - 5)
    return means6[rank_board(p6, 6, binom)] + alpha * extra / AVG_ROLL + beta * out


@njit(cache=True)
def play_best(
    board: Any,
    d0: Any,
    d1: Any,
    binom: Any,
    means6: Any,
    alpha: Any,
    beta: Any,
    out: Any,
    tails: Any,
    tmp: Any,
    best: Any,
) -> None:
    """Replace ``board`` by the result of the play of ``d0-d1`` with the least
    :func:`board_value` (ties: the first in gnubg's move order)."""
    n = roll_successors(board, NPOINTS, d0, d1, binom, out, tails)
    best_v = 1e300
    for i in range(n):
        unrank_board(out[i], NPOINTS, binom, tmp)
        v = board_value(tmp, binom, means6, alpha, beta)
        if v < best_v:
            best_v = v
            for k in range(NPOINTS):
                best[k] = tmp[k]
    if n > 0:
        for k in range(NPOINTS):
            board[k] = best[k]


@njit(cache=True)
def _state(b: Any) -> Any:
    """(highest occupied point, checkers on board, checkers on points 19..24)."""
    top = 0
    men = 0
    back = 0
    for k in range(NPOINTS):
        if b[k] > 0:
            top = k + 1
            men += b[k]
            if k >= 18:
                back += b[k]
    return top, men, back


@njit(cache=True)
def _advance(board: Any, start: Any, d0: Any, d1: Any, rolls: Any, t_bg: Any, policy: Any,
             work: Any) -> Any:  # fmt: skip
    """``board`` = ``start`` (may be ``board`` itself) after roll number ``rolls``,
    ``d0-d1``, played by :func:`play_best` with ``policy`` (``binom, means6, alpha, beta``)
    and the scratch arrays ``work`` (``out, tails, tmp, best``).

    Returns the highest occupied point after the roll and the roll that first left points
    19..24 empty (``t_bg``, or ``rolls`` if this roll did; -1 while not yet).
    """
    binom, means6, alpha, beta = policy
    out, tails, tmp, best = work
    board[:] = start
    play_best(board, d0, d1, binom, means6, alpha, beta, out, tails, tmp, best)
    top, _, back = _state(board)
    if t_bg < 0 and back == 0:
        t_bg = rolls
    return top, t_bg


@njit(cache=True)
def _finish(
    b: Any,
    rolls: Any,
    weight: Any,
    men0: Any,
    t_bg: Any,
    binom: Any,
    dist6: Any,
    gdist6: Any,
    dist: Any,
    gdist: Any,
    bgdist: Any,
) -> None:
    """Add a bear-in path that ended home after ``rolls`` rolls: the database distributions
    of the home board, shifted by ``rolls``."""
    p6 = np.zeros(6, np.int64)
    for k in range(6):
        p6[k] = b[k]
    idx = rank_board(p6, 6, binom)
    nb = dist6.shape[1]
    for j in range(nb):
        if rolls + j < dist.shape[0]:
            dist[rolls + j] += weight * dist6[idx, j]
    men = 0
    for k in range(6):
        men += b[k]
    if men0 < 15:
        gdist[0] += weight
    elif men < 15:
        gdist[rolls] += weight  # the first checker came off on the last bear-in roll
    else:
        for j in range(gdist6.shape[1]):
            if rolls + j < gdist.shape[0]:
                gdist[rolls + j] += weight * gdist6[idx, j]
    bgdist[t_bg] += weight


@njit(cache=True)
def one_sided_rollout(
    board0: Any,
    dist6: Any,
    gdist6: Any,
    means6: Any,
    binom: Any,
    samples: Any,
    seed: Any,
    nbins: Any,
    alpha: Any,
    beta: Any,
) -> Any:
    """Distribution of the rolls one side needs to bear off, by a one-sided rollout.

    The first two rolls are enumerated exactly (21 x 21 with their weights); from each
    position still outside after two rolls, ``samples`` random continuations are played
    until every checker is home, then the exact 6-point database distribution of the
    home board is added, shifted by the rolls used.

    Returns ``(dist, gdist, bgdist, n_random)``: P(bear off in exactly n rolls); P(first
    checker off on roll n) (a unit mass at 0 when a checker is already off); P(no checker
    left on points 19..24 after roll n, first time) for backgammons; and the number of
    random continuations played.
    """
    np.random.seed(seed)  # noqa: NPY002 (numba's RNG: the legacy API, per thread)
    dist = np.zeros(nbins)
    gdist = np.zeros(nbins)
    bgdist = np.zeros(nbins)
    out = np.empty(MAX_SUCC, np.int64)
    tails = np.empty(NPOINTS + 1, np.int64)
    tmp = np.empty(NPOINTS, np.int64)
    best = np.empty(NPOINTS, np.int64)
    b1 = np.empty(NPOINTS, np.int64)
    b2 = np.empty(NPOINTS, np.int64)
    b3 = np.empty(NPOINTS, np.int64)
    top0, men0, back0 = _state(board0)
    n_random = 0
    if top0 <= 6:
        _finish(board0, 0, 1.0, men0, 0, binom, dist6, gdist6, dist, gdist, bgdist)
        return dist, gdist, bgdist, n_random
    tbg0 = 0 if back0 == 0 else -1
    policy = (binom, means6, alpha, beta)
    work = (out, tails, tmp, best)
    for r1 in range(21):
        d0, d1 = roll_dice(r1)
        w1 = (1.0 if d0 == d1 else 2.0) / 36.0
        top1, tbg1 = _advance(b1, board0, d0, d1, 1, tbg0, policy, work)
        if top1 <= 6:
            _finish(b1, 1, w1, men0, tbg1, binom, dist6, gdist6, dist, gdist, bgdist)
            continue
        for r2 in range(21):
            e0, e1 = roll_dice(r2)
            w2 = w1 * (1.0 if e0 == e1 else 2.0) / 36.0
            top2, tbg2 = _advance(b2, b1, e0, e1, 2, tbg1, policy, work)
            if top2 <= 6:
                _finish(b2, 2, w2, men0, tbg2, binom, dist6, gdist6, dist, gdist, bgdist)
                continue
            w = w2 / samples
            for _ in range(samples):
                n_random += 1
                b3[:] = b2
                rolls = 2
                tbg = tbg2
                top = NPOINTS
                while top > 6:
                    x0 = np.random.randint(1, 7)  # noqa: NPY002
                    x1 = np.random.randint(1, 7)  # noqa: NPY002
                    if x1 > x0:
                        x0, x1 = x1, x0
                    rolls += 1
                    top, tbg = _advance(b3, b3, x0, x1, rolls, tbg, policy, work)
                _finish(b3, rolls, w, men0, tbg, binom, dist6, gdist6, dist, gdist, bgdist)
    return dist, gdist, bgdist, n_random
