"""gnubg 1.07's 0-ply cube step for match play in its single precision: the states, the
table lookups and the two-sided database's values.

gnubg turns a position's cubeless chances into a cubeful match winning chance (MWC) in
C ``float`` arithmetic: each sum, product and quotient rounded to single precision.
:mod:`mathbg.cube.cubeful` computes the same formulas in double precision, which differs
from gnubg's values by a few units in the last place of a single: enough to move a printed
statistic's last digit now and then. The audit values plays and cube decisions as gnubg
does, to the bit given the same cubeless chances (the native engine's are;
tests/test_match_analysis.py checks 20,000 plays and every cube decision of 16 matches):

- the arithmetic row by row (``Utility``, ``eq2mwc``, ``mwc2eq``, ``GetPoints``: the live
  cube's cash points by the recursion down the cube levels, ``Cl2CfMatch``) is one
  compiled kernel, :mod:`mathbg.analysis.match_audit._kernels`;
- this module gives it each cube state's values, looked up once (:func:`state_tables`,
  laid out as :mod:`mathbg.analysis.match_audit._layout` says): ``getME``, a player's MWC
  after a game read from the table in single precision
  (:func:`mathbg.analysis.match_audit.equity.mwc_after`), ``getGammonPrice``, the cube
  levels of ``GetPoints`` with ``GetCubePrimeValue``, ``GetDPEq`` and ``fDoCubeful``;
- and what the kernel does not: ``EvalEfficiency``, a class's cube life ``x`` (the race's
  from its pips); ``BearoffCubeful``, ``Cl2CfMoney`` and ``EvaluatePositionCubeful4``'s
  two-sided branch: the database's equities, its winning chance and the cube lives backed
  out of them.

gnubg 1.07 (Debian's build) is compiled with ``-ffast-math``: the compiler reorders the
source's operations (a reciprocal for a repeated divisor, sums regrouped, ``1 - (1 - c)``
folded to ``c``), so the order here and in the kernel is the one its machine code follows,
read from the binary and checked against its values.

A cube state is gnubg's ``cubeinfo``: the players' scores as points they need
(``away``, record order), the cube, its owner (``-1`` centred, else the player), the
player on roll and the Crawford game. The chances are float32 rows ``(W, WG, WB, LG,
LB)`` of the player on roll.

References
----------
GNU Backgammon 1.07.001: eval.c (``Utility``, ``mwc2eq``, ``eq2mwc``, ``Cl2CfMatch``,
``fDoCubeful``, ``GetDPEq``, ``EvalEfficiency``, ``Cl2CfMoney``,
``EvaluatePositionCubeful4``), matchequity.c (``getME``, ``getMEMultiple``,
``getGammonPrice``, ``GetPoints``, ``GetCubePrimeValue``), bearoff.c (``BearoffCubeful``);
the Debian amd64 binary of 1.07.001 for the compiled order.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.match_audit.equity import mwc_after

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.met.table import MET
    from mathbg.rules.match import MatchState

__all__ = [
    "CubeInfo",
    "cube_alive",
    "double_pass",
    "match_cube_info",
    "race_cube_life",
    "search_tables",
    "state_tables",
    "table_equities",
    "two_sided_cube_life",
    "two_sided_equities",
]

F32 = NDArray[np.float32]
f32 = np.float32
ONE = f32(1.0)
ZERO = f32(0.0)
TWO = f32(2.0)
HALF = f32(0.5)
#: gnubg's race cube life: ``pips x 0.00125f + 0.55f`` clamped to [0.6f, 0.7f].
_RACE_FACTOR, _RACE_OFFSET, _RACE_MIN, _RACE_MAX = f32(0.00125), f32(0.55), f32(0.6), f32(0.7)


@dataclass(frozen=True)
class CubeInfo:
    """gnubg's ``cubeinfo`` in match play.

    Attributes
    ----------
    away : (int, int)
        Points players 0 and 1 (record order) need.
    cube : int
        The cube value.
    owner : int
        ``-1`` centred, else the player who holds it.
    move : int
        The player on roll.
    crawford : bool
        The Crawford game.
    """

    away: tuple[int, int]
    cube: int
    owner: int
    move: int
    crawford: bool

    def turned(self) -> CubeInfo:
        """The same state with the other player on roll."""
        return CubeInfo(self.away, self.cube, self.owner, 1 - self.move, self.crawford)

    def doubled(self) -> CubeInfo:
        """The state after the player on roll doubles and the other takes (gnubg
        ``MakeCubePos``: the cube twice as high, owned by the taker)."""
        return CubeInfo(self.away, 2 * self.cube, 1 - self.move, self.move, self.crawford)


def match_cube_info(match: MatchState, player: int) -> CubeInfo:
    """gnubg's ``cubeinfo`` of a match state with ``player`` on roll (the Crawford flag
    only in the Crawford game itself).

    Parameters
    ----------
    match : MatchState
        The state (a match, not money).
    player : int
        The player on roll.

    Returns
    -------
    CubeInfo

    Examples
    --------
    >>> from mathbg.rules.match import MatchState
    >>> match_cube_info(MatchState(length=7, score=(2, 4)), 1)
    CubeInfo(away=(5, 3), cube=1, owner=-1, move=1, crawford=False)
    """
    away = (match.length - match.score[0], match.length - match.score[1])
    crawford = bool(match.crawford) and (away[0] == 1) != (away[1] == 1)
    owner = -1 if match.cube_owner is None else match.cube_owner
    return CubeInfo(away, match.cube, owner, player, crawford)


@lru_cache(maxsize=65536)
def get_me(met: MET, away: tuple[int, int], crawford: bool, player: int, points: int,
           winner: int) -> np.float32:  # fmt: skip
    """``player``'s MWC after ``winner`` wins ``points`` at ``away`` (gnubg ``getME``)."""
    a0, a1 = away
    after = (a0 - points, a1) if winner == 0 else (a0, a1 - points)
    post = crawford or a0 == 1 or a1 == 1
    return f32(mwc_after(met, after, player, post))


@lru_cache(maxsize=4096)
def gammon_prices(met: MET, away: tuple[int, int], cube: int) -> tuple[np.float32, ...]:
    """gnubg's ``arGammonPrice`` of a score and cube (``getGammonPrice``, as
    ``SetCubeInfoMatch`` picks it: computed without the Crawford flag in every case)."""
    win = get_me(met, away, False, 0, cube, 0)
    win_g = get_me(met, away, False, 0, 2 * cube, 0)
    win_b = get_me(met, away, False, 0, 3 * cube, 0)
    lose = get_me(met, away, False, 0, cube, 1)
    lose_g = get_me(met, away, False, 0, 2 * cube, 1)
    lose_b = get_me(met, away, False, 0, 3 * cube, 1)
    center = HALF * (lose + win)
    d = win - center
    if abs(float(d)) > float(f32(1.0e-7)):
        r = ONE / d
        prices = ((win_g - center) * r - ONE, (center - lose_g) * r - ONE,
                  (win_b - win_g) * r, (lose_g - lose_b) * r)  # fmt: skip
    else:
        prices = (ZERO, ZERO, ZERO, ZERO)
    return tuple(ZERO if g <= 0 else f32(g) for g in prices)


def _win_lose(met: MET, ci: CubeInfo) -> tuple[np.float32, np.float32]:
    """The MWC of the player on roll after winning and after losing the cube."""
    win = get_me(met, ci.away, ci.crawford, ci.move, ci.cube, ci.move)
    lose = get_me(met, ci.away, ci.crawford, ci.move, ci.cube, 1 - ci.move)
    return win, lose


def cube_alive(ci: CubeInfo) -> bool:
    """The cube is alive (gnubg ``fDoCubeful``): not dead for both players, not at
    2-away/2-away, not the Crawford game.

    Parameters
    ----------
    ci : CubeInfo
        The state.

    Returns
    -------
    bool

    Examples
    --------
    >>> cube_alive(CubeInfo((5, 5), 1, -1, 0, False)), cube_alive(CubeInfo((2, 2), 1, -1, 0, False))
    (True, False)
    """
    a0, a1 = ci.away
    if a0 <= ci.cube and a1 <= ci.cube:
        return False
    if a0 == 2 and a1 == 2:
        return False
    return not ci.crawford


def double_pass(met: MET, ci: CubeInfo) -> tuple[bool, np.float32]:
    """Whether the player on roll may double, and the double/pass MWC (gnubg ``GetDPEq``).

    Parameters
    ----------
    met : MET
        The table.
    ci : CubeInfo
        The state.

    Returns
    -------
    (bool, float32)

    Examples
    --------
    Player 1 doubles at 3-away/3-away; a pass leaves them 2-away against 3-away:

    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> may, dp = double_pass(t, CubeInfo((3, 3), 1, -1, 1, False))
    >>> may, dp == np.float32(1.0) - np.float32(t.mwc((3, 2)))
    (True, np.True_)
    """
    a_me = ci.away[ci.move]
    post = not ci.crawford and 1 in ci.away
    may = (not ci.crawford and a_me > ci.cube and not (post and a_me == 1)
           and ci.owner in (-1, ci.move))  # fmt: skip
    return may, get_me(met, ci.away, ci.crawford, ci.move, ci.cube, ci.move)


def _me(met: MET, ci: CubeInfo, k: int, win: bool, points: int) -> np.float32:
    """Player ``k``'s MWC after winning (losing) ``points`` at the state."""
    return get_me(met, ci.away, ci.crawford, k, points, k if win else 1 - k)


def _prime(i: int, j: int, value: int) -> int:
    """gnubg ``GetCubePrimeValue``: the cube after an automatic redouble."""
    return 2 * value if i < 2 * value and j >= 2 * value else value


def _state_rows(met: MET, ci: CubeInfo) -> tuple[list[int], list[np.float32]]:
    """One cube state's rows of the audit's kernel
    (:mod:`mathbg.analysis.match_audit._layout`): what gnubg's ``Utility``, ``eq2mwc``,
    ``GetPoints`` and ``Cl2CfMatch`` look up in the table, in their order."""
    from mathbg.analysis.match_audit import _layout as lay

    me, op = ci.move, 1 - ci.move
    gp = gammon_prices(met, ci.away, ci.cube)

    def get(won: bool, points: int) -> np.float32:
        return get_me(met, ci.away, ci.crawford, me, points, me if won else op)

    owner = lay.OWNED if ci.owner == me else lay.CENTRED if ci.owner == -1 else lay.OTHER
    # a single win and loss at the cube: Cl2CfMatch's cash values and the values eq2mwc
    # interpolates between (_win_lose) are the same lookups
    f = [gp[me], gp[op], gp[2 + me], gp[2 + op], get(True, ci.cube), get(False, ci.cube),
         get(False, 2 * ci.cube), get(False, 3 * ci.cube), get(True, 2 * ci.cube),
         get(True, 3 * ci.cube)]  # fmt: skip
    i, j = ci.away[0] - 1, ci.away[1] - 1
    dead, top = ci.cube, 0
    while i >= 2 * dead and j >= 2 * dead:
        top += 1
        dead *= 2
    kinds = [0] * (top + 1)
    level: dict[int, list[np.float32]] = {}
    value, n = dead, top
    while value >= ci.cube:
        kinds[n] = int(i < 2 * value or j < 2 * value)
        level[n] = []
        for k in (0, 1):
            if kinds[n]:
                pk = (_prime(i, j, value), _prime(j, i, value))[k]
                level[n] += [_me(met, ci, k, w, pts) for w, pts in (
                    (False, 2 * pk), (False, 4 * pk), (False, 6 * pk), (True, value),
                    (True, 4 * pk), (True, 6 * pk), (True, 2 * pk))]  # fmt: skip
            else:
                level[n] += [_me(met, ci, k, w, pts) for w, pts in (
                    (False, 2 * value), (True, value), (True, 2 * value), (True, 4 * value),
                    (True, 6 * value))] + [ZERO, ZERO]  # fmt: skip
        value //= 2
        n -= 1
    for n in range(top + 1):
        f += level[n]
    return [int(cube_alive(ci)), me, owner, top, *kinds], f


def state_tables(
    met: MET, movers: list[CubeInfo]
) -> tuple[NDArray[np.int64], F32, NDArray[np.int64], F32]:
    """The tables the play values' kernel reads for plays of the movers' states
    (:mod:`mathbg.analysis.match_audit._layout`): for each mover ``g``, cube states
    ``2 g`` (the opponent on roll, :meth:`CubeInfo.turned`) and ``2 g + 1`` (after its
    double and a take), whether the opponent may double, and the group's constants.

    Parameters
    ----------
    met : MET
        The table.
    movers : list of CubeInfo
        Each group's state with the mover on roll.

    Returns
    -------
    (int64 array, float32 array, int64 array, float32 array)
        The cube states' integer and float32 rows (padded), ``may`` (1: the opponent may
        double) and the groups' float32 rows (double/pass MWC, the mover's MWC after the
        cube is won and lost).

    Examples
    --------
    At 3-away/3-away, cube centred, the opponent may double (and the mover's MWC after
    winning the cube is its MWC at 2-away/3-away):

    >>> from mathbg.met import as_met
    >>> t = as_met("kazaross-xg2")
    >>> si, sf, may, gf = state_tables(t, [CubeInfo((3, 3), 1, -1, 0, False)])
    >>> si.shape[0], int(may[0]), bool(gf[0, 1] == np.float32(t.mwc((2, 3))))
    (2, 1, True)
    """
    rows = []
    may = np.zeros(len(movers), dtype=np.int64)
    groups = np.zeros((len(movers), 3), dtype=np.float32)
    for g, mover in enumerate(movers):
        ci = mover.turned()
        rows += [_state_rows(met, ci), _state_rows(met, ci.doubled())]
        ok, dp = double_pass(met, ci)
        may[g] = int(ok)
        groups[g] = (dp, *_win_lose(met, mover))
    width_i = max((len(r[0]) for r in rows), default=0)
    width_f = max((len(r[1]) for r in rows), default=0)
    si = np.zeros((len(rows), width_i), dtype=np.int64)
    sf = np.zeros((len(rows), width_f), dtype=np.float32)
    for r, (ints, floats) in enumerate(rows):
        si[r, : len(ints)] = ints
        sf[r, : len(floats)] = floats
    return si, sf, may, groups


def search_tables(
    met: MET, away: tuple[int, int], cube: int, crawford: bool, levels: int
) -> tuple[tuple[NDArray[np.int64], F32, NDArray[np.int64], F32, F32, F32,
                 NDArray[np.int64], NDArray[np.int64]], int]:  # fmt: skip
    """The cube states an n-ply search of a score can reach, as the tables of
    :mod:`mathbg.analysis.match_audit.search` read them.

    State ``search_state(level, owner, move)`` is ``(level * 3 + owner + 1) * 2 + move``:
    the cube ``cube * 2**level``, its owner (-1 centred) and the player on roll.

    Parameters
    ----------
    met : MET
        The table.
    away : (int, int)
        Points the players need (record order).
    cube : int
        The lowest cube value.
    crawford : bool
        The Crawford game.
    levels : int
        Cube levels (``plies + 2`` reach every double of an n-ply search from a cube
        decision).

    Returns
    -------
    (tables, int)
        ``(si, sf, may, dp, win, lose, doubled, turned)``: each state's integer and
        float32 rows (as :func:`state_tables`), whether the player on roll may double
        (never at the highest level), the double/pass MWC, the MWC of the player on roll
        after winning and after losing the cube, the state after a double and take (-1:
        none) and the state with the other player on roll; and the number of states.

    Examples
    --------
    At 3-away/3-away the player on roll holding a centred cube may double; after the
    double and take the other player holds a 2-cube:

    >>> from mathbg.met import as_met
    >>> t, n = search_tables(as_met("kazaross-xg2"), (3, 3), 1, False, 3)
    >>> s = (0 * 3 + 0) * 2 + 1  # level 0, centred, player 1 on roll
    >>> n, int(t[2][s]), int(t[6][s]) == (1 * 3 + 0 + 1) * 2 + 1
    (18, 1, True)
    """
    cis = [CubeInfo(away, cube * 2**e, o, mv, crawford)
           for e in range(levels) for o in (-1, 0, 1) for mv in (0, 1)]  # fmt: skip
    rows = [_state_rows(met, ci) for ci in cis]
    n = len(cis)
    si = np.zeros((n, max(len(r[0]) for r in rows)), dtype=np.int64)
    sf = np.zeros((n, max(len(r[1]) for r in rows)), dtype=np.float32)
    may = np.zeros(n, dtype=np.int64)
    dp = np.zeros(n, dtype=np.float32)
    win = np.zeros(n, dtype=np.float32)
    lose = np.zeros(n, dtype=np.float32)
    doubled = np.full(n, -1, dtype=np.int64)
    turned = np.zeros(n, dtype=np.int64)
    for s, (ci, (ints, floats)) in enumerate(zip(cis, rows, strict=True)):
        si[s, : len(ints)] = ints
        sf[s, : len(floats)] = floats
        level = s // 6
        ok, dp[s] = double_pass(met, ci)
        may[s] = int(ok and level + 1 < levels)
        win[s], lose[s] = _win_lose(met, ci)
        if level + 1 < levels:
            doubled[s] = ((level + 1) * 3 + (1 - ci.move) + 1) * 2 + ci.move
        turned[s] = (level * 3 + ci.owner + 1) * 2 + 1 - ci.move
    return (si, sf, may, dp, win, lose, doubled, turned), n


def race_cube_life(pips: NDArray[np.int64]) -> F32:
    """gnubg's race cube life of the side on roll's pips (``EvalEfficiency``), in single
    precision.

    Parameters
    ----------
    pips : int array
        The pips of the side on roll.

    Returns
    -------
    float32 array

    Examples
    --------
    >>> race_cube_life(np.array([20, 100, 150])).tolist() == [np.float32(0.6),
    ...     np.float32(0.675), np.float32(0.7)]
    True
    """
    eff = pips.astype(np.float32) * _RACE_FACTOR + _RACE_OFFSET
    return np.where(eff > _RACE_MAX, _RACE_MAX, np.where(eff < _RACE_MIN, _RACE_MIN, eff))


#: gnubg's two-sided cube life (``rTSCubeX``) and its fixed-point scale (1 / 32767.5).
_TS_CUBE_LIFE, _TS_SCALE = f32(0.6), ONE / f32(32767.5)


def two_sided_equities(raw: NDArray[np.integer]) -> F32:
    """gnubg's ``BearoffCubeful``: a two-sided database's 16-bit equities as floats,
    ``u x (1 / 32767.5) - 1`` in single precision (the order its compiled code uses).

    Parameters
    ----------
    raw : uint16 array (..., 4)
        The stored [cubeless, player, centre, opponent] values.

    Returns
    -------
    float32 array (..., 4)

    Examples
    --------
    >>> two_sided_equities(np.array([0, 65535])).tolist()
    [-1.0, 1.0]
    """
    out: F32 = np.asarray(np.asarray(raw).astype(np.float32) * _TS_SCALE - ONE, dtype=np.float32)
    return out


def table_equities(database: Any, cells: NDArray[np.integer]) -> F32:
    """The two-sided database's [cubeless, player, centre, opponent] equities of boards
    as the engine reads them: gnubg's 16-bit file through :func:`two_sided_equities`
    (``BearoffCubeful``), an exact table rounded to single precision.

    Parameters
    ----------
    database : TwoSided
        The database.
    cells : int array (n, 50)
        Boards in ``TanBoard`` order, the side on roll in cells 25-49.

    Returns
    -------
    float32 array (n, 4)

    Examples
    --------
    A 16-bit table whose every value is its largest code (a certain win):

    >>> class Table:
    ...     dtype = "u16"
    ...     def values(self, roller, opponent):
    ...         return np.full((len(roller), 4), 65535 / 32767.5 - 1.0)
    >>> table_equities(Table(), np.zeros((1, 50), np.int64)).tolist()
    [[1.0, 1.0, 1.0, 1.0]]
    """
    b = np.asarray(cells, dtype=np.int64).reshape(-1, 50)
    values = np.asarray(database.values(b[:, 25:31], b[:, 0:6]), dtype=np.float64).reshape(-1, 4)
    if getattr(database, "dtype", None) == "u16":  # gnubg's 16-bit file: its own decoding
        return two_sided_equities(np.rint((values + 1.0) * 32767.5).astype(np.int64))
    return values.astype(np.float32)


def _money_live(w: F32, owner: str) -> F32:
    """gnubg's ``MoneyLive`` at a fully live cube (``Cl2CfMoney`` with x = 1) of a
    gammonless position (a two-sided bearoff: W = w, gammons 0), per unit cube, in its
    compiled order; ``2w - 1`` (the dead cube) outside (1e-7, 0.9999999)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        gw = ZERO / w  # (WG + WB) / W and (LG + LB) / (1 - W): no gammons here
        gl = ZERO / (ONE - w)
    rw_half = gw + f32(1.5)
    rl = gl + ONE
    d = rw_half + rl
    tp = (gl + HALF) / d
    cp = (gl + TWO) / d
    with np.errstate(divide="ignore", invalid="ignore"):
        below_tp = (w * gl) / tp - rl
        above_cp = (w - cp) * gw / (ONE - cp) + ONE
        if owner == "centre":
            mid = (w - tp + (w - tp)) / ((gl + TWO) - (gl + HALF)) * d - ONE
            live = np.where(tp > w, below_tp, np.where(cp > w, mid, above_cp))
        elif owner == "player":
            live = np.where(cp > w, (w * (gl + TWO)) / cp - rl, above_cp)
        else:
            live = np.where(tp > w, below_tp, (gw + TWO) * (w - tp) / (ONE - tp) - ONE)
    dead = w + w - ONE
    out: F32 = np.asarray(np.where((w > f32(1e-7)) & (w < f32(0.9999999)), live, dead),
                          dtype=np.float32)  # fmt: skip
    return out


def two_sided_cube_life(equities: F32, owner: str) -> tuple[F32, F32]:
    """gnubg's match-play cube life inside the two-sided database and the winning chance
    it is applied to (``EvaluatePositionCubeful4``, class ``BEAROFF2``): the x at which the
    money blend of the cubeless and the live equity meets the database's money value of the
    cube state, clamped to [0, 0.6]; 0.6 where the two are within 1e-4.

    Parameters
    ----------
    equities : float32 array (n, 4)
        :func:`two_sided_equities` of the positions (the side on roll's view).
    owner : {"centre", "player", "opponent"}
        Who holds the cube, seen by the side on roll.

    Returns
    -------
    (x, w) : float32 arrays (n,)
        The cube life and gnubg's winning chance there, ``(1 + E) x 0.5``.

    Examples
    --------
    A certain win: the dead and live equities agree, so the life is gnubg's 0.6.

    >>> x, w = two_sided_cube_life(np.array([[1, 1, 1, 1]], np.float32), "centre")
    >>> float(w[0]), bool(x[0] == np.float32(0.6))
    (1.0, True)
    """
    e = np.asarray(equities, dtype=np.float32)
    w = (ONE + e[:, 0]) * HALF
    cl = e[:, 0]
    cf = _money_live(w, owner)
    money = e[:, {"player": 1, "centre": 2, "opponent": 3}[owner]]
    with np.errstate(divide="ignore", invalid="ignore"):
        backed = (money - cl) / (cf - cl)
    x = np.where(np.abs(cl - cf) > f32(0.0001), backed, _TS_CUBE_LIFE)
    x = np.minimum(np.maximum(x, ZERO), _TS_CUBE_LIFE)
    return np.asarray(x, dtype=np.float32), np.asarray(w, dtype=np.float32)
