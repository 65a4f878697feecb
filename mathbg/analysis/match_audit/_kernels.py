"""numba kernels of :func:`mathbg.analysis.match_audit.plays.board_classes`,
:func:`~mathbg.analysis.match_audit.plays.play_values` and
:func:`~mathbg.analysis.match_audit.plays.single_cube_values` (internal).

A match's audit classifies and values every play of every roll it looks at (two hundred
thousand boards for a 13-point match): one pass over the rows instead of a dozen numpy
passes over all of them, or dozens of passes for each score and cube state. Its cube
decisions go through the same arithmetic (one implementation of gnubg's cube step).
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from mathbg._native import no_refcounts, no_refcounts_ieee
from mathbg.analysis.match_audit._layout import (
    ALIVE,
    BP_ME,
    BP_OP,
    CASH,
    CENTRED,
    DP,
    GET_POINTS,
    GP_ME,
    GP_OP,
    LEVEL_WIDTH,
    LEVELS,
    LOSE_B,
    LOSE_G,
    MOVE,
    MOVER_LOSE,
    MOVER_WIN,
    OPP_CASH,
    OWNED,
    OWNER,
    TOP,
    WIN_B,
    WIN_G,
)

#: Class codes (:data:`mathbg.analysis.match_audit.plays.CLASS_NAMES`).
OVER, CONTACT, RACE, BEAROFF1, BEAROFF2 = 0, 1, 2, 3, 4


@no_refcounts
def classes_into(boards: Any, classes: Any, pips: Any) -> None:
    """Each board's class and the pips of the side on roll (cells 25-49) into ``classes``
    and ``pips``: a side with no checkers, the game is over; both sides within their home
    boards, a bearoff (two-sided with at most 6 checkers a side); the two backmost
    checkers' points (0-based, the bar 24) summing to at most 22, a race; else contact."""
    for j in range(boards.shape[0]):
        total_off = 0
        total_on = 0
        back_off = -1
        back_on = -1
        outside = False
        pip = 0
        for i in range(25):
            a = int(boards[j, i])
            b = int(boards[j, 25 + i])
            total_off += a
            total_on += b
            pip += (i + 1) * b
            if a > 0:
                back_off = i
                if i >= 6:
                    outside = True
            if b > 0:
                back_on = i
                if i >= 6:
                    outside = True
        if total_off == 0 or total_on == 0:
            k = OVER
        elif not outside:
            k = BEAROFF2 if total_off <= 6 and total_on <= 6 else BEAROFF1
        elif back_off + back_on > 22:
            k = CONTACT
        else:
            k = RACE
        classes[j] = k
        pips[j] = pip


# ----------------------------------------------------------------------------- play values
# gnubg 1.07's 0-ply cube step in its single precision, row by row: Utility, eq2mwc,
# mwc2eq, GetPoints (the live cash points, by the recursion down the cube levels) and
# Cl2CfMatch, each operation in the order gnubg's compiled code (-ffast-math) follows, with
# each state's match equities looked up once beforehand (single.state_tables): the mover's
# value of every play (plays.play_values) and the roller's values of its cube decisions
# (plays.single_cube_values). Where gnubg divides by zero (a cash point of a degenerate
# state) the IEEE result (inf, nan) flows on as it does there.

F32 = np.float32
_ONE, _ZERO, _TWO, _HALF = F32(1.0), F32(0.0), F32(2.0), F32(0.5)


@nb.njit(cache=True, inline="always")
def utility(p: Any, sf: Any) -> Any:
    base = p[0] + p[0] - _ONE
    return ((p[2] * sf[BP_ME] - p[3] * sf[GP_OP]) + (p[1] * sf[GP_ME] + base)) - p[4] * sf[BP_OP]


@nb.njit(cache=True, inline="always")
def cubeful(p: Any, si: Any, sf: Any, x: Any, live: Any) -> Any:
    """The cubeful MWC of the player on roll (gnubg ``Cl2CfMatch``: ``(1 - x) MWC_dead +
    x MWC_live``) of one row of chances ``p`` at the cube state ``si``/``sf``, cube life
    ``x``; ``live`` scratch (2, levels + 2) for the two players' cash points at each
    level (``GetPoints``)."""
    win_c, lose_c = sf[CASH], sf[OPP_CASH]
    dead = _HALF * (utility(p, sf) * (win_c - lose_c) + (win_c + lose_c))
    if si[ALIVE] == 0:
        return dead
    w = p[0]
    g0 = (p[1] - p[2]) / w if w > 0 else _ZERO
    b0 = p[2] / w if w > 0 else _ZERO
    lost = _ONE - w
    g1 = (p[3] - p[4]) / lost if w < 1 else _ZERO
    b1 = p[4] / lost if w < 1 else _ZERO
    win_single = _ONE - b0 - g0 if w > 0 else _ONE
    loss_single = _ONE - p[3] / (_ONE - w) if w < 1 else _ONE
    me = si[MOVE]
    # by player: 0 first
    if me == 0:
        gam0, gam1, bg0, bg1, s0, s1 = g0, g1, b0, b1, win_single, loss_single
    else:
        gam0, gam1, bg0, bg1, s0, s1 = g1, g0, b1, b0, loss_single, win_single
    for n in range(si[TOP], -1, -1):
        for k in range(2):
            c = GET_POINTS + LEVEL_WIDTH * n + 7 * k
            gk, bk, sk = (gam0, bg0, s0) if k == 0 else (gam1, bg1, s1)
            go, bo, so = (gam1, bg1, s1) if k == 0 else (gam0, bg0, s0)
            if si[LEVELS + n] == 1:
                dtl = (so * sf[c] + go * sf[c + 1]) + bo * sf[c + 2]
                tw = gk * sf[c + 4] + bk * sf[c + 5]
                den = (dtl - sk * sf[c + 6]) - tw
                live[k, n] = (dtl - sf[c + 3]) / den
            else:
                dtw = (sk * sf[c + 2] + gk * sf[c + 3]) + bk * sf[c + 4]
                live[k, n] = (sf[c + 1] - dtw) * live[1 - k, n + 1] / (dtw - sf[c]) + _ONE
    tg, cp_opp = live[me, 0], live[1 - me, 0]
    opp_tg = _ONE - cp_opp
    cash, opp_cash = sf[CASH], sf[OPP_CASH]
    lose = (g1 * sf[LOSE_G] + b1 * sf[LOSE_B]) + (_ONE - (g1 + b1)) * opp_cash
    win_g = g0 * sf[WIN_G] + b0 * sf[WIN_B]
    win = win_g + (_ONE - (g0 + b0)) * cash
    if si[OWNER] == OWNED:
        if w <= tg:
            value = lose + (cash - lose) * w / tg if tg > 0 else lose
        else:
            value = cash + (win - cash) * (w - tg) / (_ONE - tg) if tg < 1 else win
    elif w <= opp_tg:
        value = lose + (opp_cash - lose) * w / opp_tg if opp_tg > 0 else lose
    elif si[OWNER] == CENTRED:
        if w < tg:
            value = (opp_cash + (cash - opp_cash) * (w + (cp_opp - _ONE))
                     / ((cp_opp - _ONE) + tg))  # fmt: skip
        else:
            value = cash + (win - cash) * (w - tg) / (_ONE - tg) if tg < 1 else win
    else:
        value = (win_g + ((_ONE - (g0 + b0)) * cash - opp_cash)) * ((w - _ONE) + cp_opp) \
            / cp_opp + opp_cash  # fmt: skip
    return dead * (_ONE - x) + value * x


@no_refcounts_ieee
def _values_rows(p: Any, x_nd: Any, x_dt: Any, group: Any, si: Any, sf: Any, may: Any,
                 gf: Any, live: Any, out: Any) -> None:  # fmt: skip
    for r in range(p.shape[0]):
        g = group[r]
        t, d = 2 * g, 2 * g + 1
        value = cubeful(p[r], si[t], sf[t], x_nd[r], live)
        if may[g]:
            dt = cubeful(p[r], si[d], sf[d], x_dt[r], live)
            dp = gf[g, DP]
            if dt >= value and dp >= value:
                value = dp if dt >= dp else dt
        mwc = _ONE - value
        win, lose = gf[g, MOVER_WIN], gf[g, MOVER_LOSE]
        out[0, r] = (_TWO * mwc - (win + lose)) / (win - lose)
        out[1, r] = mwc
        out[2, r] = -utility(p[r], sf[t])
        win, lose = sf[t, CASH], sf[t, OPP_CASH]
        out[3, r] = -((_TWO * value - (win + lose)) / (win - lose))


@no_refcounts
def play_values_into(p: Any, x_nd: Any, x_dt: Any, group: Any, si: Any, sf: Any, may: Any,
                     gf: Any, live: Any, out: Any) -> None:  # fmt: skip
    """The mover's EMG, MWC, cubeless EMG and EMG as a pass-through of each play into the
    rows of ``out`` (4, n), from the opponent's chances ``p`` (n, 5) float32 and cube
    lives (``x_nd``: the opponent's cube state; ``x_dt``: doubled and taken), play ``r`` in
    group ``group[r]`` whose cube states ``2 g`` (the opponent on roll) and ``2 g + 1``
    (after its double) are rows of ``si``/``sf``, ``may[g]`` whether it may double and
    ``gf[g]`` the group's constants. The arithmetic runs in a function of numpy's error
    model (a division by zero is inf or nan, as in numpy)."""
    _values_rows(p, x_nd, x_dt, group, si, sf, may, gf, live, out)


@no_refcounts_ieee
def _cube_rows(p: Any, x_nd: Any, x_dt: Any, group: Any, si: Any, sf: Any, gf: Any,
               live: Any, out: Any) -> None:  # fmt: skip
    for r in range(p.shape[0]):
        g = group[r]
        t, d = 2 * g, 2 * g + 1
        nd = cubeful(p[r], si[t], sf[t], x_nd[r], live)
        dt = cubeful(p[r], si[d], sf[d], x_dt[r], live)
        dp = gf[g, DP]
        win, lose = sf[t, CASH], sf[t, OPP_CASH]
        out[0, r] = nd
        out[1, r] = dt
        out[2, r] = dp
        out[3, r] = (_TWO * nd - (win + lose)) / (win - lose)
        out[4, r] = (_TWO * dt - (win + lose)) / (win - lose)
        out[5, r] = (_TWO * dp - (win + lose)) / (win - lose)


@no_refcounts
def cube_values_into(p: Any, x_nd: Any, x_dt: Any, group: Any, si: Any, sf: Any, gf: Any,
                     live: Any, out: Any) -> None:  # fmt: skip
    """The roller's no double, double/take and double/pass MWC and the three as EMG
    (``mwc2eq`` at its state) of each cube decision into the rows of ``out`` (6, n), from
    its chances ``p`` (n, 5) float32 and cube lives (``x_nd`` at its state, ``x_dt``
    doubled and taken); decision ``r`` in group ``group[r]``, whose cube states ``2 g``
    (the roller's) and ``2 g + 1`` (after its double) are rows of ``si``/``sf`` and ``gf[g]``
    the group's constants (the tables of the plays that lead to the decision: the mover is
    the roller's opponent). numpy's error model, as :func:`play_values_into`."""
    _cube_rows(p, x_nd, x_dt, group, si, sf, gf, live, out)
