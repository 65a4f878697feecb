"""The recurrences of the MET models in plain Python (internal).

Written for mathbg from the formulas stated in :mod:`mathbg.met.models`; indices here are
0-based (``M[i, j]``: player needing ``i + 1`` vs ``j + 1``) for Zadeh and 1-based with a
row/column 0 for finished matches for MEC and the cubeless recurrence.

The functions are numba-compatible: :mod:`mathbg.met._kernels` compiles the same code.
The models run them as they are unless numba is already loaded in the process (see
:func:`mathbg.met.models.recurrence`): a 25-point table takes 1-6 ms here, while loading
numba takes about 0.4 s and compiling these functions for the first time about a second.
Both give the same bits (``tests/test_met_models.py``).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "cubeless_table",
    "dead_drop_point",
    "doubling_point",
    "mec_table",
    "mwc_at",
    "taker_mwc",
    "zadeh_table",
]


def mwc_at(m: np.ndarray, i: int, j: int) -> float:
    """M(i, j) with finished matches: i < 0 -> won (1), else j < 0 -> lost (0)."""
    if i < 0:
        return 1.0
    if j < 0:
        return 0.0
    return float(m[i, j])


def dead_drop_point(
    m: np.ndarray, i: int, j: int, cube: int, g_doubler: float, g_taker: float
) -> float:
    """Doubler's win probability at the taker's dead-cube drop point (Zadeh's D-bar).

    The player ``i`` (0-based away) doubles to ``2 * cube``; when the doubler needs at most
    ``2 * cube`` but the taker needs more, the taker's redouble is automatic and the game is
    played for ``c' = 4 * cube`` (c' = 2 * cube in Zadeh's notation), else for ``2 * cube``.
    The drop point equates the taker's pass and take MWCs.
    """
    if i < 2 * cube and j >= 2 * cube:
        cp = 2 * cube
    else:
        cp = cube
    pass_mwc = mwc_at(m, i - cube, j)
    win_single = mwc_at(m, i - 2 * cp, j)
    win_gammon = mwc_at(m, i - 4 * cp, j)
    lose_single = mwc_at(m, i, j - 2 * cp)
    lose_gammon = mwc_at(m, i, j - 4 * cp)
    lose = g_taker * lose_gammon + (1.0 - g_taker) * lose_single
    win = g_doubler * win_gammon + (1.0 - g_doubler) * win_single
    if not win - lose > 1e-300:
        # at lopsided long-match scores winning and losing the doubled game give the same
        # MWC to machine precision (e.g. 2-away vs 148-away: 1 - 4e-18): the double decides
        # nothing, and any drop point in [1/2, 1] gives the same entry; 1 keeps 0/0 out
        return 1.0
    return (pass_mwc - lose) / (win - lose)


def zadeh_table(
    n: int,
    post: np.ndarray,
    g_doubler: float,
    g_taker: float,
    delta: float,
    delta_bar: float,
    levels: int,
) -> np.ndarray:
    """Zadeh's pre-Crawford table (n x n) from the post-Crawford trailer vector ``post``."""
    m = np.empty((n, n))
    # Crawford row/column: the trailer (i-away) wins a gammon (rate g_doubler) or a single
    for i in range(n):
        two = post[i - 2] if i >= 2 else 1.0
        one = post[i - 1] if i >= 1 else 1.0
        m[i, 0] = 0.5 * (g_doubler * two + (1.0 - g_doubler) * one)
        m[0, i] = 1.0 - m[i, 0]
    for i in range(1, n):
        for j in range(1, i + 1):
            d1_next = 0.0
            d2_next = 0.0
            d1 = 0.0
            d2 = 0.0
            for level in range(levels - 1, -1, -1):
                cube = 1 << level
                d1_bar = dead_drop_point(m, i, j, cube, g_doubler, g_taker)
                d2_bar = dead_drop_point(m, j, i, cube, g_doubler, g_taker)
                if i < 2 * cube or j < 2 * cube:
                    d1 = d1_bar
                    d2 = d2_bar
                else:  # semi-efficient recube: live drop point from the next level's
                    d1 = 1.0 + (d2_next + delta) * (d1_bar - 1.0)
                    d2 = 1.0 + (d1_next + delta) * (d2_bar - 1.0)
                d1_next = d1
                d2_next = d2
            value = (
                (d2 + delta_bar - 0.5) * mwc_at(m, i - 1, j)
                + (d1 + delta_bar - 0.5) * mwc_at(m, i, j - 1)
            ) / (d1 + d2 + 2.0 * delta_bar - 1.0)
            m[i, j] = value
            if i != j:
                m[j, i] = 1.0 - value
    return m


def taker_mwc(e: np.ndarray, doubler_is_0: bool, taker: int, doubler: int) -> float:
    """MWC of the taker needing ``taker`` when the doubler needs ``doubler`` (0 = won)."""
    if doubler_is_0:
        return float(1.0 - e[doubler, taker])
    return float(e[taker, doubler])


def doubling_point(
    e: np.ndarray, p: int, o: int, cube: int, gr: float, p_is_0: bool
) -> tuple[float, float]:
    """Tornberg's doubling point of ``p`` (needing p) doubling ``o`` to ``cube``.

    Returns ``(mwc, w)`` for the doubler: his MWC when the taker passes and his game-winning
    chance at the taker's take point. The taker's MWC is linear in his winning chance from
    (0, his MWC losing at ``cube``, gammon-weighted) to his own redouble point one level up;
    the take point is where that line reaches his pass MWC. Computed from the top of the
    redouble chain down (a player needing at most ``cube / 2`` never doubles: point (1, 1)).
    """
    depth = 0
    pp = p
    oo = o
    cc = cube
    while pp > cc // 2:
        tmp = pp
        pp = oo
        oo = tmp
        cc *= 2
        depth += 1
    mwc = 1.0
    w = 1.0
    for level in range(depth - 1, -1, -1):
        if level % 2 == 0:
            dbl, tkr, dbl_is_0 = p, o, p_is_0
        else:
            dbl, tkr, dbl_is_0 = o, p, not p_is_0
        c = cube << level
        lose = (1.0 - gr) * taker_mwc(e, dbl_is_0, tkr, max(dbl - c, 0)) + gr * taker_mwc(
            e, dbl_is_0, tkr, max(dbl - 2 * c, 0)
        )
        pass_mwc = taker_mwc(e, dbl_is_0, tkr, max(dbl - c // 2, 0))
        # at lopsided long-match scores the two ends are equal to machine precision: the
        # take point decides nothing there (no 0/0)
        den = mwc - lose
        take_w = (pass_mwc - lose) * w / den if den > 1e-300 else w
        mwc = 1.0 - pass_mwc
        w = 1.0 - take_w
    return mwc, w


def mec_table(
    n: int, gr: float, pc_gr: float, w: float, fd2: float, fd4: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Tornberg's MEC: returns (pre n x n, post player 0, post player 1)."""
    e = np.zeros((n + 1, n + 1))
    for i in range(1, n + 1):
        e[0, i] = 1.0
        e[i, 0] = 0.0
    # post-Crawford: e[k, 1] player 0 trailing at k, e[1, k] player 0 leading vs k
    e[1, 1] = w
    for i in range(2, n + 1):
        if i % 2 == 0:  # the trailer doubles at once: 2k-away plays like (2k-1)-away
            e[1, i] = e[1, i - 1]
            e[i, 1] = e[i - 1, 1]
            if i == 2:
                e[1, i] += fd2
                e[i, 1] -= fd2
            elif i == 4:
                e[1, i] += fd4
                e[i, 1] -= fd4
        else:
            e[1, i] = (
                w * e[0, i]
                + (1.0 - w) * (1.0 - pc_gr) * e[1, max(i - 2, 0)]
                + (1.0 - w) * pc_gr * e[1, max(i - 4, 0)]
            )
            e[i, 1] = (
                (1.0 - w) * e[i, 0]
                + w * (1.0 - pc_gr) * e[max(i - 2, 0), 1]
                + w * pc_gr * e[max(i - 4, 0), 1]
            )
    post0 = e[1:, 1].copy()
    post1 = 1.0 - e[1, 1:]
    # Crawford game (no cube), downwards so post-Crawford values are read before overwritten
    for i in range(n, 1, -1):
        e[1, i] = w * e[0, i] + (1.0 - w) * (1.0 - gr) * e[1, i - 1] + (1.0 - w) * gr * e[1, i - 2]
        e[i, 1] = (1.0 - w) * e[i, 0] + w * (1.0 - gr) * e[i - 1, 1] + w * gr * e[i - 2, 1]
    for i in range(2, n + 1):
        for j in range(i, n + 1):
            for k in range(2):
                a = i if k == 0 else j
                b = j if k == 0 else i
                if k == 1 and a == b:
                    break
                fm, fw = doubling_point(e, a, b, 2, gr, True)
                um, uw = doubling_point(e, b, a, 2, gr, False)
                um = 1.0 - um
                uw = 1.0 - uw
                # the entry lies between the two doubling points' MWCs (t in [0, 1]); at
                # lopsided long-match scores their chances agree to rounding, and the
                # clamp keeps that noise from leaving the interval
                den = fw - uw
                t = (w - uw) / den if den > 1e-300 else 0.5
                t = min(max(t, 0.0), 1.0)
                e[a, b] = um + (fm - um) * t
    return e[1:, 1:].copy(), post0, post1


def cubeless_table(n: int, g: float, bg: float, first: np.ndarray) -> np.ndarray:
    """Cubeless recurrence; ``first[k]`` (k = 1..n) preset M(k, 1) when >= 0, else computed."""
    m = np.zeros((n + 3, n + 3))  # offset 2: m[x + 2, y + 2] = M(x, y), x, y >= -2
    for x in range(-2, n + 1):
        for y in range(-2, n + 1):
            if x <= 0:
                m[x + 2, y + 2] = 1.0
            elif y <= 0:
                m[x + 2, y + 2] = 0.0
    single = 1.0 - g
    gammon = g - bg
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            if j == 1 and i > 1 and first[i] >= 0.0:
                m[i + 2, 3] = first[i]
                continue
            if i == 1 and j > 1 and first[j] >= 0.0:
                m[3, j + 2] = 1.0 - first[j]
                continue
            win = single * m[i + 1, j + 2] + gammon * m[i, j + 2] + bg * m[i - 1, j + 2]
            lose = single * m[i + 2, j + 1] + gammon * m[i + 2, j] + bg * m[i + 2, j - 1]
            m[i + 2, j + 2] = 0.5 * (win + lose)
    return m[3:, 3:].copy()
