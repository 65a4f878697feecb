"""The match-play cube solver behind :mod:`mathbg.cube.match` (and its matrix and cubeful
neighbours): a MET seen by one player, the dead and live cube points of every cube level
from the top down, and gammon values. The maths is stated in :mod:`mathbg.cube.match`.

Private to :mod:`mathbg.cube`; its names are public within the package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg._validate import away_pair
from mathbg.cube.inputs import check_away, check_cube, check_cube_life, check_rates
from mathbg.errors import InvalidParameterError
from mathbg.met.catalogue import as_met
from mathbg.met.table import MET

Arr = NDArray[np.float64]
Ints = NDArray[np.int64]
Bools = NDArray[np.bool_]


# ----------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class MetView:
    """A MET seen by one player (0: the table's row player, 1: the other)."""

    met: MET
    player: int

    def swapped(self) -> MetView:
        """The same table seen by the other player."""
        return MetView(self.met, 1 - self.player)


def view_mwc(
    v: MetView, a: NDArray[np.int64], b: NDArray[np.int64], post: NDArray[np.bool_]
) -> Arr:
    """MWC of the viewing player ``a``-away vs ``b``-away after a game (``a``, ``b`` may be <= 0).

    ``post``: the game that ended was the Crawford game or post-Crawford, so a score with a
    side 1-away reads the post-Crawford table; otherwise the pre-Crawford table, whose
    1-away entries are Crawford-game values (gnubg ``getMEMultiple``).
    """
    a, b = np.asarray(a), np.asarray(b)
    n = int(max(a.max(initial=1), b.max(initial=1)))
    grids, size = mwc_grids(v.met, v.player, n)
    # one gather from both grids, flattened: [post-Crawford read][a][b]
    flat = np.maximum(a, 0) * (size + 1) + np.maximum(b, 0)
    post_now = post & ((a == 1) | (b == 1))
    return np.asarray(grids.take(flat + post_now * (size + 1) ** 2))


_GRIDS: dict[tuple[int, int], tuple[MET, int, Arr]] = {}


def mwc_grids(met: MET, player: int, n: int) -> tuple[Arr, int]:
    """:meth:`MET.mwc_array` of ``player`` at every score up to ``size``-away (``size >=
    n``), read once per table, flattened: ``[0, a, b]`` (offset ``a (size + 1) + b``) the
    pre-Crawford (Crawford-game) entries, ``[1, a, b]`` the post-Crawford ones where a side
    is 1-away (0 for a side that has won). The solver reads thousands of small batches; a
    lookup here gives the same numbers as the table's validated read."""
    key = (id(met), player)
    held = _GRIDS.get(key)
    if held is not None and held[0] is met and held[1] >= n:
        return held[2], held[1]
    size = max(n, met.length, held[1] if held is not None and held[0] is met else 0)
    a, b = np.meshgrid(np.arange(size + 1), np.arange(size + 1), indexing="ij")
    pre = met.mwc_array((a, b), post_crawford=False, player=player)
    one_away = (a == 1) | (b == 1)
    post = pre.copy()
    post[one_away] = met.mwc_array((a[one_away], b[one_away]), post_crawford=True,
                                   player=player)
    if len(_GRIDS) >= 16:
        _GRIDS.clear()
    grids = np.concatenate([pre.ravel(), post.ravel()])
    _GRIDS[key] = (met, size, grids)
    return grids, size


# ----------------------------------------------------------------------------- core


@dataclass
class Side:
    """One doubler's MWCs and dead points at one cube level (doubling c -> 2c)."""

    dp: Arr  # MWC double, pass
    ndw: Arr
    ndl: Arr
    dtw: Arr  # at 2c
    dtl: Arr
    rdp: Arr  # D loses 2c (taker's redouble passed)
    needs_le_c: NDArray[np.bool_]


_MULTIPLES = np.array([1, 2, 3, 4, 6], dtype=np.int64)


def side_values(
    t: MetView,
    d: Ints,
    o: Ints,
    c: Ints,
    gd: Arr,
    bd: Arr,
    go: Arr,
    bo: Arr,
    post: Bools,
) -> Side:
    """The doubler's (``d``-away, rates ``gd``/``bd``) values against ``o``-away at cube ``c``."""
    sd = 1.0 - gd - bd
    so = 1.0 - go - bo
    # the doubler winning and losing 1, 2, 3, 4 and 6 times c: two table reads, the
    # multiples along a leading axis
    kc = _MULTIPLES.reshape((-1,) + (1,) * np.ndim(c)) * c
    w1, w2, w3, w4, w6 = view_mwc(t, d - kc, o, post)
    l1, l2, l3, l4, l6 = view_mwc(t, d, o - kc, post)
    return Side(
        dp=w1,
        ndw=sd * w1 + gd * w2 + bd * w3,
        ndl=so * l1 + go * l2 + bo * l3,
        dtw=sd * w2 + gd * w4 + bd * w6,
        dtl=so * l2 + go * l4 + bo * l6,
        rdp=l2,
        needs_le_c=d <= c,
    )


def ratio(num: Arr, den: Arr, fallback: float) -> Arr:
    """``num / den`` elementwise, ``fallback`` where ``den`` is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0.0, num / np.where(den != 0.0, den, 1.0), fallback)


@dataclass
class Level:
    """Both players' quantities at one cube level."""

    cube: NDArray[np.int64]
    p: Side  # first-named player doubling
    o: Side  # opponent doubling (MWCs from the opponent's point of view)
    live: NDArray[np.bool_]  # the doubled (2c) cube is alive: both need > 2c
    auto_p: NDArray[np.bool_]  # the opponent redoubles at once if the player doubles
    auto_o: NDArray[np.bool_]


@dataclass
class Solution:
    """Per-level results (leading axis = level k, cube = c 2^k) for both doublers."""

    cube: NDArray[np.int64]
    post: NDArray[np.bool_]
    crawford_game: NDArray[np.bool_]
    # index 0: first-named player as doubler, 1: opponent as doubler
    double_point: tuple[Arr, Arr]
    double_point_no_redouble: tuple[Arr, Arr]
    cash_dead: tuple[Arr, Arr]
    cash_dead_no_redouble: tuple[Arr, Arr]
    cash_live: tuple[Arr, Arr]
    too_good: tuple[Arr, Arr]
    auto: tuple[NDArray[np.bool_], NDArray[np.bool_]]
    dead_doubled: NDArray[np.bool_]
    # for the cube-life blend of the *taker's* take point against doubler i
    blend: tuple[tuple[Arr, Arr, Arr], tuple[Arr, Arr, Arr]] = field(repr=False)


Rates = tuple[Arr, Arr, Arr, Arr]


def prepare(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike,
    gammons: Any,
    backgammons: Any,
    crawford: bool,
    x: ArrayLike = 0.0,
) -> tuple[MetView, Ints, Ints, Ints, Rates, Bools, Bools, Arr]:
    """Checked inputs broadcast together: the table view, scores, cube, rates
    ``(g0, b0, g1, b1)``, "a side is 1-away", "this is the Crawford game" and ``x``."""
    t = MetView(as_met(met), 0)
    first, second = away_pair(away)
    a = check_away(first, "away[0]")
    b = check_away(second, "away[1]")
    c = check_cube(cube)
    g0, g1 = pair(gammons, "gammons")
    b0, b1 = pair(backgammons, "backgammons")
    g0, b0 = check_rates(g0, b0, "player")
    g1, b1 = check_rates(g1, b1, "opponent")
    xv = check_cube_life(x)
    a, b, c, g0, b0, g1, b1, xv = np.broadcast_arrays(a, b, c, g0, b0, g1, b1, xv)
    one_away = (a == 1) | (b == 1)
    crawford_game = one_away & bool(crawford) & ~((a == 1) & (b == 1))
    return t, a, b, c, (g0, b0, g1, b1), one_away, crawford_game, xv


def pair(values: Any, name: str) -> tuple[Any, Any]:
    """``(first-named player, opponent)`` from one value for both or a pair."""
    if np.ndim(values) == 0:
        return values, values
    if len(values) != 2:
        raise InvalidParameterError(
            f"{name} must be a pair (first-named player, opponent); got {values!r}"
        )
    return values[0], values[1]


def _levels(t: MetView, a: Ints, b: Ints, c: Ints, rates: Rates, post: Bools,
            min_levels: int) -> list[Level]:  # fmt: skip
    """Both doublers' values at cube levels ``c 2^k`` for ``k = 0..K``: up to the first
    level that is dead everywhere (at least ``min_levels``), and one more, which serves
    only the automatic-redouble lookups of the level below."""
    g0, b0, g1, b1 = rates
    ts = t.swapped()
    levels: list[Level] = []
    k = 0
    while True:
        ck = c * (1 << k)
        p_side = side_values(t, a, b, ck, g0, b0, g1, b1, post)
        o_side = side_values(ts, b, a, ck, g1, b1, g0, b0, post)
        live = (a > 2 * ck) & (b > 2 * ck)
        auto_p = (a <= 2 * ck) & (b > 2 * ck)
        auto_o = (b <= 2 * ck) & (a > 2 * ck)
        levels.append(Level(ck, p_side, o_side, live, auto_p, auto_o))
        # results are wanted at levels 0..k-1: level k-1 needs level k for the automatic
        # redouble, and level k's live cash points only where level k-1 is live
        if k >= max(min_levels, 1) and not np.any(levels[k - 1].live):
            return levels
        k += 1


def _taken(side: Side, nxt: Side, auto: Bools) -> tuple[Arr, Arr]:
    """The doubler's MWC after double/take, won and lost (the next level's where the
    taker redoubles at once)."""
    return np.where(auto, nxt.dtw, side.dtw), np.where(auto, nxt.dtl, side.dtl)


def _dead_cash(side: Side, dtw: Arr, dtl: Arr) -> Arr:
    """The doubler's dead cash point: where double/take equals double/pass."""
    return np.where(side.needs_le_c, 1.0, ratio(side.dp - dtl, dtw - dtl, 1.0))


def _live_taker_share(side: Side, cp_opp_next: Arr) -> Arr:
    """The taker's live take point against the doubler: the taker's chance at which the
    doubler's MWC after the take equals double/pass, the taker's cash at ``2c`` being
    ``cp_opp_next``."""
    return cp_opp_next * ratio(side.dtw - side.dp, side.dtw - side.rdp, 0.0)


def live_cash_points(
    t: MetView, a: Ints, b: Ints, c: Ints, rates: Rates, post: Bools
) -> tuple[Arr, Arr]:
    """Both doublers' live cash points at the first level (``solve(...).cash_live[i][0]``,
    the same numbers), without the rest of :func:`solve`: what a cubeful value needs."""
    levels = _levels(t, a, b, c, rates, post, 1)
    above: list[Arr | None] = [None, None]
    for lv in range(len(levels) - 2, -1, -1):
        L, N = levels[lv], levels[lv + 1]
        now = []
        for i, (side, nxt, auto) in enumerate(((L.p, N.p, L.auto_p), (L.o, N.o, L.auto_o))):
            cp_dead = _dead_cash(side, *_taken(side, nxt, auto))
            held = above[1 - i]
            cp_opp_next = np.ones_like(cp_dead) if held is None else held
            now.append(np.where(L.live, 1.0 - _live_taker_share(side, cp_opp_next), cp_dead))
        above = list(now)
    first, second = above
    assert first is not None and second is not None
    return first, second


def solve(
    t: MetView,
    a: Ints,
    b: Ints,
    c: Ints,
    rates: Rates,
    post: Bools,
    crawford_game: Bools,
    min_levels: int = 1,
) -> Solution:
    """Every cube level's dead and live points for both doublers (see :mod:`mathbg.cube.match`)."""
    levels = _levels(t, a, b, c, rates, post, min_levels)
    n_lv = len(levels) - 1  # the last level only serves the auto-redouble lookups

    def dead_points(side: Side, nxt: Side, auto: Bools) -> tuple[Arr, Arr, Arr, Arr, Arr]:
        dtw, dtl = _taken(side, nxt, auto)
        risk = side.ndl - dtl
        gain = dtw - side.ndw
        dp = ratio(risk, risk + gain, 0.0)
        dp_nr = ratio(side.ndl - side.dtl, side.ndl - side.dtl + side.dtw - side.ndw, 0.0)
        cp_nr = ratio(side.dp - side.dtl, side.dtw - side.dtl, 1.0)
        tg = ratio(side.dp - side.ndl, side.ndw - side.ndl, 1.0)
        one = side.needs_le_c
        return (
            np.where(one, 1.0, dp),
            np.where(one, 1.0, dp_nr),
            _dead_cash(side, dtw, dtl),
            np.where(one, 1.0, cp_nr),
            np.where(one, 1.0, tg),
        )

    out: dict[str, list[list[Arr]]] = {k_: [[], []] for k_ in ("dp", "dp_nr", "cp", "cp_nr", "tg")}
    for lv in range(n_lv):
        L, N = levels[lv], levels[lv + 1]
        for i, (side, nxt, auto) in enumerate(((L.p, N.p, L.auto_p), (L.o, N.o, L.auto_o))):
            dp, dp_nr, cp, cp_nr, tg = dead_points(side, nxt, auto)
            out["dp"][i].append(dp)
            out["dp_nr"][i].append(dp_nr)
            out["cp"][i].append(cp)
            out["cp_nr"][i].append(cp_nr)
            out["tg"][i].append(tg)

    # live cash points, from the top level down
    live_cp: list[list[Arr | None]] = [[None] * n_lv, [None] * n_lv]
    blend: list[list[tuple[Arr, Arr, Arr] | None]] = [[None] * n_lv, [None] * n_lv]
    for lv in range(n_lv - 1, -1, -1):
        L = levels[lv]
        for i, side in enumerate((L.p, L.o)):
            cp_dead = out["cp"][i][lv]
            above = live_cp[1 - i][lv + 1] if lv + 1 < n_lv else None
            cp_opp_next = np.ones_like(cp_dead) if above is None else above
            cp_live = np.where(L.live, 1.0 - _live_taker_share(side, cp_opp_next), cp_dead)
            live_cp[i][lv] = cp_live
            # pieces of the blended take point: (gain, dead slope, live slope)
            gain = side.dtw - side.dp
            s_dead = side.dtw - side.dtl
            s_live = ratio(side.dtw - side.rdp, cp_opp_next, np.inf)
            blend[i][lv] = (gain, s_dead, s_live)

    def stack(lists: list[list[Arr]] | list[list[Arr | None]]) -> tuple[Arr, Arr]:
        first, second = (np.stack(x) for x in lists)  # type: ignore[arg-type]
        return first, second

    def blend_parts(i: int) -> tuple[Arr, Arr, Arr]:
        parts = [blend[i][lv] for lv in range(n_lv)]
        gain, s_dead, s_live = (np.stack([p[j] for p in parts if p is not None]) for j in range(3))
        return gain, s_dead, s_live

    live_stack = np.stack([lv.live for lv in levels[:n_lv]])
    return Solution(
        cube=np.stack([lv.cube for lv in levels[:n_lv]]),
        post=post,
        crawford_game=crawford_game,
        double_point=stack(out["dp"]),
        double_point_no_redouble=stack(out["dp_nr"]),
        cash_dead=stack(out["cp"]),
        cash_dead_no_redouble=stack(out["cp_nr"]),
        cash_live=stack(live_cp),
        too_good=stack(out["tg"]),
        auto=(
            np.stack([lv.auto_p for lv in levels[:n_lv]]),
            np.stack([lv.auto_o for lv in levels[:n_lv]]),
        ),
        dead_doubled=~live_stack,
        blend=(blend_parts(0), blend_parts(1)),
    )


def cash_at_x(sol: Solution, i: int, x: Arr) -> Arr:
    """Doubler i's cash point (all levels) at cube life x: 1 - the taker's blended TP."""
    gain, s_dead, s_live = sol.blend[i]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slope = (1.0 - x) * s_dead + np.where(x > 0, x * s_live, 0.0)
        tp = np.where(slope > 0, gain / slope, 0.0)
    blended = np.where(x >= 1.0, sol.cash_live[i], 1.0 - tp)
    return np.where(sol.dead_doubled, sol.cash_dead[i], blended)


def nan_crawford(sol: Solution, arr: Arr) -> Arr:
    """``arr`` with NaN where the game is the Crawford game (no cube)."""
    return np.where(sol.crawford_game, np.nan, arr)


# run's parameters are prepare's: it is prepare then solve, the one call most users need.
def run(
    met: MET | str,
    away: tuple[ArrayLike, ArrayLike],
    cube: ArrayLike,
    gammons: Any,
    backgammons: Any,
    crawford: bool,
    x: ArrayLike = 0.0,
) -> tuple[Solution, Arr]:
    """Check and broadcast the inputs, solve; return the solution and the broadcast x."""
    t, a, b, c, rates, one_away, crawford_game, xv = prepare(
        met, away, cube, gammons, backgammons, crawford, x
    )
    return solve(t, a, b, c, rates, one_away, crawford_game), xv


def scalar(arr: Arr) -> float | Arr:
    """A float for a 0-d result, else the array."""
    return float(arr) if np.ndim(arr) == 0 else arr


def gammon_values(t: MetView, a: Ints, b: Ints, c: Ints, post: Bools) -> tuple[Arr, Arr]:
    """Gammon and backgammon values (XG's convention) of the viewing player."""
    win = view_mwc(t, a - c, b, post)
    win_g = view_mwc(t, a - 2 * c, b, post)
    win_b = view_mwc(t, a - 3 * c, b, post)
    lose = view_mwc(t, a, b - c, post)
    den = win - lose
    ok = np.abs(0.5 * den) > 1e-7  # as gnubg getGammonPrice
    gv = np.maximum(ratio(win_g - win, np.where(ok, den, 0.0), 0.0), 0.0)
    extra = np.maximum(ratio(win_b - win_g, np.where(ok, den, 0.0), 0.0), 0.0)
    return gv, gv + extra
