"""gnubg 1.07's 0-ply cube step for match play in numpy, operation by operation in its
single precision: the reference the audit's kernels are tested against.

The package computes these values row by row in one compiled kernel
(:mod:`mathbg.analysis.match_audit._kernels`: every play's value and every cube
decision's), and tests/test_match_analysis.py checks the kernel against gnubg's own values
on real matches. This module is a second, independent transcription of the same C code,
vectorised over many rows of one cube state, so that the kernel can also be checked to the
bit on random rows and states no real match reaches (deep cash-point recursions, cubes to
64, certain wins and losses, no gammons or all gammons):

- ``Utility``: the cubeless equity, the gammon and backgammon prices weighing the chances;
- ``eq2mwc`` and ``mwc2eq``: the linear maps between EMG and MWC;
- ``GetPoints``: the live cube's cash points, by the recursion down the cube levels;
- ``Cl2CfMatch`` (centred, owned, unavailable): ``(1 - x) MWC_dead + x MWC_live``.

gnubg 1.07 (Debian's build) is compiled with ``-ffast-math``: the compiler reorders the
source's operations (a reciprocal for a repeated divisor, sums regrouped, ``1 - (1 - c)``
folded to ``c``), so the order here is the one its machine code follows.

References
----------
GNU Backgammon 1.07.001: eval.c (``Utility``, ``mwc2eq``, ``eq2mwc``, ``Cl2CfMatch``,
``Cl2CfMatchCentered``, ``Cl2CfMatchOwned``, ``Cl2CfMatchUnavailable``), matchequity.c
(``GetPoints``, ``GetCubePrimeValue``); the Debian amd64 binary of 1.07.001.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

# the single-precision constants and the table lookups are the package's (its kernel's
# tables are built from them); the arithmetic below is this module's own
from mathbg.analysis.match_audit.single import (
    F32,
    HALF,
    ONE,
    TWO,
    ZERO,
    CubeInfo,
    cube_alive,
    gammon_prices,
    get_me,
)

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.met.table import MET

def _win_lose(met: MET, ci: CubeInfo) -> tuple[np.float32, np.float32]:
    """The MWC of the player on roll after winning and after losing the cube."""
    return (get_me(met, ci.away, ci.crawford, ci.move, ci.cube, ci.move),
            get_me(met, ci.away, ci.crawford, ci.move, ci.cube, 1 - ci.move))  # fmt: skip


def _me(met: MET, ci: CubeInfo, k: int, win: bool, points: int) -> np.float32:
    """Player ``k``'s MWC after winning (losing) ``points`` at the state."""
    return get_me(met, ci.away, ci.crawford, k, points, k if win else 1 - k)


def _prime(i: int, j: int, value: int) -> int:
    """gnubg ``GetCubePrimeValue``: the cube after an automatic redouble."""
    return 2 * value if i < 2 * value and j >= 2 * value else value


def utility(p: F32, met: MET, ci: CubeInfo) -> F32:
    """The cubeless equity of the player on roll at the score (gnubg ``Utility``).

    Examples
    --------
    A certain single win is worth one cube:

    >>> from mathbg.met import as_met
    >>> ci = CubeInfo((5, 5), 1, -1, 0, False)
    >>> utility(np.array([[1, 0, 0, 0, 0]], np.float32), as_met("kazaross-xg2"), ci).tolist()
    [1.0]
    """
    gp = gammon_prices(met, ci.away, ci.cube)
    me, op = ci.move, 1 - ci.move
    base = p[:, 0] + p[:, 0] - ONE
    out: F32 = np.asarray(((p[:, 2] * gp[2 + me] - p[:, 3] * gp[op]) + (p[:, 1] * gp[me] + base))
                          - p[:, 4] * gp[2 + op], dtype=np.float32)  # fmt: skip
    return out


def eq2mwc(eq: F32 | np.float32, met: MET, ci: CubeInfo) -> F32:
    """EMG to MWC for the player on roll (gnubg ``eq2mwc``).

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> float(eq2mwc(np.float32(0), as_met("kazaross-xg2"), CubeInfo((5, 5), 1, -1, 0, False)))
    0.5
    """
    win, lose = _win_lose(met, ci)
    out: F32 = np.asarray(HALF * (eq * (win - lose) + (win + lose)), dtype=np.float32)
    return out


def mwc2eq(mwc: F32 | np.float32, met: MET, ci: CubeInfo) -> F32:
    """MWC to EMG for the player on roll (gnubg ``mwc2eq``).

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> float(mwc2eq(np.float32(0.5), as_met("kazaross-xg2"), CubeInfo((5, 5), 1, -1, 0, False)))
    0.0
    """
    win, lose = _win_lose(met, ci)
    out: F32 = np.asarray((TWO * mwc - (win + lose)) / (win - lose), dtype=np.float32)
    return out



def _rates(p: F32) -> tuple[F32, F32, F32, F32]:
    """The gammon and backgammon ratios of the side on roll's wins and losses (0 where the
    side never wins or never loses), as gnubg computes them."""
    w = p[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        g0 = np.where(w > 0, (p[:, 1] - p[:, 2]) / w, ZERO)
        b0 = np.where(w > 0, p[:, 2] / w, ZERO)
        lost = ONE - w
        g1 = np.where(w < 1, (p[:, 3] - p[:, 4]) / lost, ZERO)
        b1 = np.where(w < 1, p[:, 4] / lost, ZERO)
    return g0, b0, g1, b1



def live_cash_points(p: F32, met: MET, ci: CubeInfo) -> tuple[F32, F32]:
    """Players 0's and 1's live cube cash points at the state (gnubg ``GetPoints``).

    Examples
    --------
    Gammonless at 5-away/5-away, cube centred, the two players' cash points are the same:

    >>> from mathbg.met import as_met
    >>> p = np.array([[0.6, 0, 0, 0, 0]], np.float32)
    >>> c0, c1 = live_cash_points(p, as_met("kazaross-xg2"), CubeInfo((5, 5), 1, -1, 0, False))
    >>> bool(c0[0] == c1[0]) and 0.7 < float(c0[0]) < 0.9
    True
    """
    i, j = ci.away[0] - 1, ci.away[1] - 1
    g0, b0, g1, b1 = _rates(p)
    w = p[:, 0]
    # the weight of a single win/loss, as gnubg's compiled code forms it: 1 - b - g from the
    # wins' ratios, 1 - LG / (1 - W) from the losses'; 1 where the side never wins/loses
    with np.errstate(divide="ignore", invalid="ignore"):
        win_single = np.where(w > 0, ONE - b0 - g0, ONE)
        loss_single = np.where(w < 1, ONE - p[:, 3] / (ONE - w), ONE)
    gam = (g0, g1) if ci.move == 0 else (g1, g0)  # by player
    bg = (b0, b1) if ci.move == 0 else (b1, b0)
    single = (win_single, loss_single) if ci.move == 0 else (loss_single, win_single)
    dead, levels = ci.cube, 0
    while i >= 2 * dead and j >= 2 * dead:
        levels += 1
        dead *= 2
    live: dict[tuple[int, int], F32] = {}
    value, n = dead, levels

    def mix(k: int, side: int, win: bool, c: int) -> F32:
        """``single x MWC(c) + gammon x MWC(2c) + backgammon x MWC(3c)`` of player
        ``side``'s results, seen by ``k`` (``DTW``/``DTL``: doubled twice over)."""
        out: F32 = ((single[side] * _me(met, ci, k, win, 2 * c)
                     + gam[side] * _me(met, ci, k, win, 4 * c))
                    + bg[side] * _me(met, ci, k, win, 6 * c))  # fmt: skip
        return out

    with np.errstate(divide="ignore", invalid="ignore"):
        while value >= ci.cube:
            prime = (_prime(i, j, value), _prime(j, i, value))
            for k in (0, 1):
                o = 1 - k
                if i < 2 * value or j < 2 * value:
                    pk = prime[k]
                    dtl = mix(k, o, False, pk)
                    dp = _me(met, ci, k, True, value)
                    tw = (gam[k] * _me(met, ci, k, True, 4 * pk)
                           + bg[k] * _me(met, ci, k, True, 6 * pk))  # fmt: skip
                    den = (dtl - single[k] * _me(met, ci, k, True, 2 * pk)) - tw
                    live[k, n] = np.asarray((dtl - dp) / den, dtype=np.float32)
                else:
                    rdp = _me(met, ci, k, False, 2 * value)
                    dp = _me(met, ci, k, True, value)
                    dtw = mix(k, k, True, value)
                    live[k, n] = (dp - dtw) * live[o, n + 1] / (dtw - rdp) + ONE
            value //= 2
            n -= 1
    return live[0, 0], live[1, 0]


def cubeful_mwc(p: F32, met: MET, ci: CubeInfo, x: F32 | np.float32) -> F32:
    """The cubeful MWC of the player on roll (gnubg ``Cl2CfMatch``).

    Examples
    --------
    In the Crawford game the cube is dead: the cubeful MWC is the cubeless one.

    >>> from mathbg.met import as_met
    >>> t, p = as_met("kazaross-xg2"), np.array([[0.6, 0.1, 0, 0.1, 0]], np.float32)
    >>> ci = CubeInfo((1, 4), 1, -1, 1, True)
    >>> bool(cubeful_mwc(p, t, ci, np.float32(0.68))[0] == eq2mwc(utility(p, t, ci), t, ci)[0])
    True
    """
    dead = eq2mwc(utility(p, met, ci), met, ci)
    if not cube_alive(ci):
        return dead
    g0, b0, g1, b1 = _rates(p)
    cp = live_cash_points(p, met, ci)
    me, op = ci.move, 1 - ci.move

    def get(win: bool, points: int) -> np.float32:
        return get_me(met, ci.away, ci.crawford, me, points, me if win else op)

    cash, opp_cash = get(True, ci.cube), get(False, ci.cube)
    w = p[:, 0]
    # gnubg's compiled code (-ffast-math) forms the sums and interpolations thus
    lose = ((g1 * get(False, 2 * ci.cube) + b1 * get(False, 3 * ci.cube))
            + (ONE - (g1 + b1)) * opp_cash)  # fmt: skip
    win_g = g0 * get(True, 2 * ci.cube) + b0 * get(True, 3 * ci.cube)
    win = win_g + (ONE - (g0 + b0)) * cash
    tg, cp_opp = cp[me], cp[op]
    opp_tg = ONE - cp_opp
    with np.errstate(divide="ignore", invalid="ignore"):
        if ci.owner == me:  # owned: lose .. my cash point .. win
            low = np.where(tg > 0, lose + (cash - lose) * w / tg, lose)
            high = np.where(tg < 1, cash + (win - cash) * (w - tg) / (ONE - tg), win)
            live = np.where(w <= tg, low, high)
        else:
            low = np.where(opp_tg > 0, lose + (opp_cash - lose) * w / opp_tg, lose)
            if ci.owner == -1:  # centred: lose .. opponent's cash .. my cash .. win
                mid = (opp_cash + (cash - opp_cash) * (w + (cp_opp - ONE))
                       / ((cp_opp - ONE) + tg))  # fmt: skip
                high = np.where(tg < 1, cash + (win - cash) * (w - tg) / (ONE - tg), win)
                live = np.where(w <= opp_tg, low, np.where(w < tg, mid, high))
            else:  # unavailable: lose .. opponent's cash .. win
                high = (win_g + ((ONE - (g0 + b0)) * cash - opp_cash)) * ((w - ONE) + cp_opp) \
                    / cp_opp + opp_cash  # fmt: skip
                live = np.where(w <= opp_tg, low, high)
    out: F32 = np.asarray(dead * (ONE - x) + live * x, dtype=np.float32)
    return out


