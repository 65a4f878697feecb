"""numba kernel of :func:`mathbg.cube.cubeful.cubeful_mwc_rows` (internal).

:func:`mathbg.cube.cubeful.cubeful_mwc` row by row, each row with its own score, cube and
owner: the same operations in the same order on each element as the vectorised code
(:func:`~mathbg.cube.cubeful.cubeless_mwc`, :func:`mathbg.cube._solver.live_cash_points`),
so the same bits (numba compiles without fast-math). A rollout values thousands of
positions a turn at a few cube states; the vectorised code's hundred numpy calls a cube
state were most of a rollout's time outside the engine.

The table comes as :func:`mathbg.cube._solver.mwc_grids` flattens it, once seen by the
player on roll (``grid0``) and once by the opponent (``grid1``): entry ``a (size + 1) + b``
the pre-Crawford MWC at ``a``-away/``b``-away (0 for a side that has won), the
post-Crawford one ``(size + 1)^2`` further on where a side is 1-away.
"""

from __future__ import annotations

from typing import Any

import numba as nb

from mathbg._native import no_refcounts

#: ``owner`` codes: the cube in the centre, held by the player on roll, by the opponent.
CENTRE, PLAYER, OPPONENT = 0, 1, 2


@nb.njit(cache=True, inline="always")
def _view(grid: Any, size: Any, a: Any, b: Any, post: Any) -> Any:
    """``view_mwc``: the MWC at ``a``-away/``b``-away after a game (``post``: the game
    that ended was not a normal one, so a side 1-away reads the post-Crawford table)."""
    row = size + 1
    k = max(a, 0) * row + max(b, 0)
    if post and (a == 1 or b == 1):
        k += row * row
    return grid[k]


@nb.njit(cache=True, inline="always")
def _ratio(num: Any, den: Any, fallback: Any) -> Any:
    return num / den if den != 0.0 else fallback


@nb.njit(cache=True, inline="always")
def _lin(p: Any, x0: Any, y0: Any, x1: Any, y1: Any) -> Any:
    return y0 + (y1 - y0) * (p - x0) / (x1 - x0) if x1 > x0 else y1


@nb.njit(cache=True, inline="always")
def _clip(v: Any) -> Any:
    return min(max(v, 0.0), 1.0)


@no_refcounts
def _side(grid: Any, size: Any, d: Any, o: Any, c: Any, gd: Any, bd: Any, go: Any, bo: Any,
          post: Any, out: Any) -> None:  # fmt: skip
    """``side_values``: the doubler's (``d``-away) double/pass, the taker's redouble
    passed, no-double won and lost, double/take won and lost at cube ``c``, into ``out``
    (dp, rdp, ndw, ndl, dtw, dtl)."""
    sd = 1.0 - gd - bd
    so = 1.0 - go - bo
    w1 = _view(grid, size, d - c, o, post)
    w2 = _view(grid, size, d - 2 * c, o, post)
    w3 = _view(grid, size, d - 3 * c, o, post)
    w4 = _view(grid, size, d - 4 * c, o, post)
    w6 = _view(grid, size, d - 6 * c, o, post)
    l1 = _view(grid, size, d, o - c, post)
    l2 = _view(grid, size, d, o - 2 * c, post)
    l3 = _view(grid, size, d, o - 3 * c, post)
    l4 = _view(grid, size, d, o - 4 * c, post)
    l6 = _view(grid, size, d, o - 6 * c, post)
    out[0] = w1
    out[1] = l2
    out[2] = sd * w1 + gd * w2 + bd * w3
    out[3] = so * l1 + go * l2 + bo * l3
    out[4] = sd * w2 + gd * w4 + bd * w6
    out[5] = so * l2 + go * l4 + bo * l6


@no_refcounts
def _cash_point(below: Any, above: Any, auto: Any, live: Any, needs_le_c: Any,
                cp_opp_next: Any) -> Any:  # fmt: skip
    """One doubler's live cash point at a level (``below``: its values there, ``above``:
    at the next level, read where the taker redoubles at once)."""
    dtw = above[4] if auto else below[4]
    dtl = above[5] if auto else below[5]
    cp_dead = 1.0 if needs_le_c else _ratio(below[0] - dtl, dtw - dtl, 1.0)
    if not live:
        return cp_dead
    return 1.0 - cp_opp_next * _ratio(below[4] - below[0], below[4] - below[1], 0.0)


@no_refcounts
def cubeful_rows(probs: Any, x: Any, a: Any, b: Any, c: Any, owner: Any, crawford: Any,
                 grid0: Any, size0: Any, grid1: Any, size1: Any, levels: Any,
                 out: Any) -> None:  # fmt: skip
    """The cubeful MWC of each row (``probs`` the player on roll's five outputs,
    cumulative gammons; ``x`` the cube life; ``a``, ``b`` the player's and the opponent's
    points to go; ``c`` the cube; ``owner`` a code above; ``crawford`` the game is the
    Crawford game) into ``out``. ``levels`` is scratch of shape (at least the cube
    levels + 1, 2, 6): both doublers' values at each level."""
    for r in range(probs.shape[0]):
        w, wg, wb, lg, lb = probs[r, 0], probs[r, 1], probs[r, 2], probs[r, 3], probs[r, 4]
        ar, br, cr = a[r], b[r], c[r]
        lose = 1.0 - w
        g0 = _clip((wg - wb) / w if w > 0 else 0.0)
        b0 = _clip(wb / w if w > 0 else 0.0)
        g1 = _clip((lg - lb) / lose if lose > 0 else 0.0)
        b1 = _clip(lb / lose if lose > 0 else 0.0)
        dmp = ar == 1 and br == 1
        one = (ar == 1) != (br == 1)
        post = one or dmp
        w1 = _view(grid0, size0, ar - cr, br, post)
        w2 = _view(grid0, size0, ar - 2 * cr, br, post)
        w3 = _view(grid0, size0, ar - 3 * cr, br, post)
        l1 = _view(grid0, size0, ar, br - cr, post)
        l2 = _view(grid0, size0, ar, br - 2 * cr, post)
        l3 = _view(grid0, size0, ar, br - 3 * cr, post)
        dead = ((w - wg) * w1 + (wg - wb) * w2 + wb * w3 + (lose - lg) * l1 + (lg - lb) * l2
                + lb * l3)  # fmt: skip
        no_cube = (crawford and one) or dmp or (ar <= cr and br <= cr) or (ar == 2 and br == 2)
        if no_cube:
            out[r] = dead
            continue
        # both doublers' values at cube c 2^k, up to the first level dead for this row
        k = 0
        while True:
            ck = cr * (1 << k)
            _side(grid0, size0, ar, br, ck, g0, b0, g1, b1, post, levels[k, 0])
            _side(grid1, size1, br, ar, ck, g1, b1, g0, b0, post, levels[k, 1])
            if k >= 1 and not (ar > 2 * (ck // 2) and br > 2 * (ck // 2)):
                break
            k += 1
        # live cash points from the top level down (the top one only serves the level
        # below's automatic redoubles)
        cp0 = 1.0
        cp1 = 1.0
        for lv in range(k - 1, -1, -1):
            ck = cr * (1 << lv)
            live = ar > 2 * ck and br > 2 * ck
            auto_p = ar <= 2 * ck and br > 2 * ck
            auto_o = br <= 2 * ck and ar > 2 * ck
            top = lv == k - 1
            n0 = _cash_point(levels[lv, 0], levels[lv + 1, 0], auto_p, live, ar <= ck,
                             1.0 if top else cp1)  # fmt: skip
            n1 = _cash_point(levels[lv, 1], levels[lv + 1, 1], auto_o, live, br <= ck,
                             1.0 if top else cp0)  # fmt: skip
            cp0 = n0
            cp1 = n1
        tg = cp0
        opp_tg = 1.0 - cp1
        win_g = (1.0 - g0 - b0) * w1 + g0 * w2 + b0 * w3
        lose_g = (1.0 - g1 - b1) * l1 + g1 * l2 + b1 * l3
        o = owner[r]
        if o == CENTRE:
            if w <= opp_tg:
                live_v = _lin(w, 0.0, lose_g, opp_tg, l1)
            elif w < tg:
                live_v = _lin(w, opp_tg, l1, tg, w1)
            else:
                live_v = _lin(w, tg, w1, 1.0, win_g)
        elif o == PLAYER:
            live_v = _lin(w, 0.0, lose_g, tg, w1) if w <= tg else _lin(w, tg, w1, 1.0, win_g)
        else:
            if w <= opp_tg:
                live_v = _lin(w, 0.0, lose_g, opp_tg, l1)
            else:
                live_v = _lin(w, opp_tg, l1, 1.0, win_g)
        xr = x[r]
        out[r] = (1.0 - xr) * dead + xr * live_v
