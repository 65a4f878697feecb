"""Exact match play in bearoffs: true cube decisions at any score, and race-game METs.

Every calculator (gnubg, XG, the formulas of :mod:`mathbg.cube.match`) turns cubeless
chances into a match-play cube decision with a take point from a match equity table (MET),
dead or with a guessed cube life. In a bearoff the game tree is small enough to solve
exactly with the score, the cube level and its owner in the state and the MET at the
leaves; this module does that.

The model
---------
A state is ``(roller's position, opponent's position, score, cube level, owner, game)``
with the roller about to roll:

- positions: checker counts on points 1..P of a two-sided space (6 x 6 by default: at
  most 6 checkers a side, 924 positions, 853,776 pairs). With fewer than 15 checkers a side
  every game is single: it ends when one side bears off its last checker and the winner
  scores the cube value ``c``;
- a game won at cube ``c`` moves the score by ``c`` and its value comes from the MET:
  the pre-Crawford table while both sides need >= 2; its 1-away entries (Crawford-game
  values) when a side *first* reaches 1-away; the post-Crawford vector after the Crawford
  game (or a post-Crawford game); 1 / 0 when the match is over;
- doubling only before rolling, with access (cube centred or owned), never in the
  Crawford game, and only by a player who still needs more than ``c`` points (a player
  who wins the match with any win at the current cube has nothing to double for, as in
  gnubg; :func:`solve_game` with ``prune_dead_doubles=False`` allows those doubles too and
  the tests show that it changes no value); cube levels ``1, 2, 4, ..., K`` with ``K`` the
  smallest power of two ``>= max(a, b)`` (beyond it every cube is dead);
- a take gives the taker the cube at ``2c``; a pass gives the doubler ``c`` points;
- checker play is optimal *for each cube state* (it can differ from the play that
  maximises cubeless chances), as are all cube decisions.

With ``N`` the roller's match winning chance (MWC) if he does not double (rolls now),
``DT = N`` of the same pair with the doubled cube owned by the opponent and ``DP`` the
MWC of winning ``c`` points::

    N(i, j, state) = sum_r w_r / 36 * max_{s in S(i, r)} [1 - A(j, s, state seen by the other)]
    A = max(N, min(DT, DP))   with access,   A = N   without

(``S(i, r)`` the positions the roller reaches with roll r, ``w_r`` 1 for doubles and 2
otherwise; a play bearing off the last checker is worth ``DP``). The DP runs over pairs in
shells ``m = max(i, j)`` in numba (:mod:`mathbg.bearoff.exact._kernels`); the cube states
that can never differ (same leaves, same options) are merged before solving, and for a
query only the states reachable from it are kept.

Money play is the limit: with an endless affine MET, ``MWC = 1/2 + (points won) / 2``,
``2 N - 1`` is the money equity per unit cube of the two-sided database
(:func:`money_limit`).

References
----------
gnubg ``makebearoff.c`` (the money version of this recursion); the match rules and MET
conventions as in :mod:`mathbg.met` and :mod:`mathbg.cube.match`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg import _npy
from mathbg._validate import away_score
from mathbg.bearoff.index import check_size, n_positions, rank, validate_counts
from mathbg.cube.decisions import CubeAction, CubeDecision
from mathbg.errors import DatabaseError, InvalidParameterError, InvalidScoreError, ResourceError
from mathbg.met.catalogue import as_met
from mathbg.met.table import MET
from mathbg.rules.cube import CubeOwner
from mathbg.rules.match import ScoreState

__all__ = [
    "OWNERS",
    "GameSolution",
    "MatchEquity",
    "match_equity",
    "money_limit",
    "race_met",
    "solve_game",
    "solve_score",
]

#: Cube owners, in this solver's index order (``"player"`` is the roller).
OWNERS: tuple[str, ...] = tuple(CubeOwner)
_CENTRE, _ROLLER, _OPPONENT = 0, 1, 2

#: Game kinds: an ordinary game, the Crawford game, a post-Crawford game (incl. DMP).
KINDS: tuple[ScoreState, ...] = (ScoreState.NORMAL, ScoreState.CRAWFORD, ScoreState.POST_CRAWFORD)

#: Largest checkers per side (15 would allow gammons, which this solver does not model).
MAX_CHECKERS = 14

#: Bump when the solver's numbers or the cache layout change.
_CACHE_VERSION = 3  # 3: the identity inside the checksum

#: Opponent positions per parallel task in a shell's row part.
_ROW_BLOCK = 32
#: Successor-state evaluations per kernel call at most (progress granularity).
_BATCH = 2.0e8

MwcFunction = Callable[[int, int, str], float]


# ------------------------------------------------------------------------------ inputs


def owner_index(owner: CubeOwner | str) -> int:
    """This solver's index of a cube owner (centre 0, the roller 1, the opponent 2)."""
    return {CubeOwner.CENTRE: _CENTRE, CubeOwner.PLAYER: _ROLLER, CubeOwner.OPPONENT: _OPPONENT}[
        CubeOwner.parse(owner)
    ]


def game_kind(a: int, b: int, crawford: bool) -> ScoreState:
    """Game kind at a score (a side 1-away is post-Crawford unless ``crawford``; double
    match point is a post-Crawford game here)."""
    state = ScoreState.of((a, b), crawford=bool(crawford))
    return ScoreState.POST_CRAWFORD if state is ScoreState.DMP else state


def as_kind(kind: ScoreState | str) -> ScoreState:
    """A game kind of :data:`KINDS` from a :class:`ScoreState` or its name.

    Raises
    ------
    InvalidParameterError
        For anything else.
    """
    try:
        state = ScoreState(kind)
    except ValueError:
        state = None
    if state not in KINDS:
        names = ", ".join(str(k) for k in KINDS)
        raise InvalidParameterError(f"kind must be one of {names}, got {kind!r}")
    assert state is not None
    return state


def cube_cap(a: int, b: int) -> int:
    """The largest cube level: the smallest power of two ``>= max(a, b)``."""
    cap = 1
    while cap < max(a, b):
        cap *= 2
    return cap


def met_mwc(met: MET) -> MwcFunction:
    """Player 0's MWC at the start of a game ``(a, b, kind)`` (a, b >= 1) from a MET."""

    def mwc(a: int, b: int, kind: str) -> float:
        return float(
            met.mwc((a, b), crawford=kind == ScoreState.CRAWFORD,
                    post_crawford=kind == ScoreState.POST_CRAWFORD)
        )  # fmt: skip

    return mwc


def next_kind(kind: str, a: int, b: int) -> ScoreState:
    """The kind of the next game, at ``(a, b)``, after a game of ``kind``."""
    if kind in (ScoreState.CRAWFORD, ScoreState.POST_CRAWFORD):
        return ScoreState.POST_CRAWFORD
    return ScoreState.CRAWFORD if (a == 1 or b == 1) else ScoreState.NORMAL


def after_game(mwc: MwcFunction, a: int, b: int, kind: str) -> float:
    """Player 0's MWC when the next game starts at ``(a, b)`` (<= 0: the match is over)."""
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    return mwc(a, b, kind)


# ------------------------------------------------------------------------------ states


@dataclass(frozen=True)
class CubeStates:
    """The compact list of cube states of one game (see the module docs).

    A full state is ``(orientation, level, owner)``, orientation 0 when player 0 (needing
    ``a``) is on roll and 1 when player 1 is, cube ``2**level``, owner 0 centre / 1 the
    roller / 2 the opponent; or ``"cubeless"`` (win 1, lose 0, no cube: the value is the
    roller's cubeless winning chance). States that always have equal values are merged:
    ``cls[full]`` is the class of a full state, and the arrays are per class.
    """

    levels: int
    full: tuple[Any, ...]
    cls: dict[Any, int]
    win: NDArray[np.float64]
    perm: NDArray[np.int64]
    can_double: NDArray[np.bool_]
    dbl: NDArray[np.int64]

    @property
    def n(self) -> int:
        """Number of state classes solved."""
        return len(self.win)


def _full_states(levels: int) -> list[Any]:
    out: list[Any] = []
    for o in (0, 1):
        for level in range(levels):
            owners = (_CENTRE, _ROLLER, _OPPONENT) if level == 0 else (_ROLLER, _OPPONENT)
            out.extend((o, level, w) for w in owners)
    out.append("cubeless")
    return out


def _flip(state: Any) -> Any:
    if state == "cubeless":
        return state
    o, level, w = state
    return (1 - o, level, {_CENTRE: _CENTRE, _ROLLER: _OPPONENT, _OPPONENT: _ROLLER}[w])


def build_states(
    a: int,
    b: int,
    kind: str,
    mwc: MwcFunction,
    *,
    levels: int | None = None,
    roots: Sequence[Any] | None = None,
    prune_dead_doubles: bool = True,
    merge: bool = True,
) -> CubeStates:
    """The cube states of a game at ``(a, b, kind)``: leaves, options, merged classes.

    Parameters
    ----------
    a, b : int
        Points player 0 and player 1 need.
    kind : ScoreState or {"normal", "crawford", "post-crawford"}
    mwc : callable
        ``mwc(a, b, kind)``: player 0's MWC at the start of a game at that score.
    levels : int, optional
        Number of cube levels (default ``1 + log2(cube_cap(a, b))``).
    roots : sequence, optional
        Keep only the states reachable from these (default: all).
    prune_dead_doubles : bool
        Forbid doubles by a player who needs ``<= c`` (value-neutral; see module docs).
    merge : bool
        Merge states whose values always coincide (same leaves and options).
    """
    if levels is None:
        levels = cube_cap(a, b).bit_length()
    full = _full_states(levels)

    def win(state: Any) -> float:
        if state == "cubeless":
            return 1.0
        o, level, _ = state
        c = 1 << level
        if o == 0:
            return after_game(mwc, a - c, b, next_kind(kind, a - c, b))
        return 1.0 - after_game(mwc, a, b - c, next_kind(kind, a, b - c))

    def can_double(state: Any) -> bool:
        if state == "cubeless" or kind == ScoreState.CRAWFORD:
            return False
        o, level, w = state
        if w == _OPPONENT or level + 1 >= levels:
            return False
        needs = a if o == 0 else b
        return not (prune_dead_doubles and needs <= (1 << level))

    def doubled(state: Any) -> Any:
        o, level, _ = state
        return (o, level + 1, _OPPONENT)

    if roots is not None:
        keep: set[Any] = set()
        todo = list(roots)
        while todo:
            st = todo.pop()
            if st in keep:
                continue
            if st not in full:
                raise InvalidParameterError(f"no cube state {st!r} at {a}-away/{b}-away")
            keep.add(st)
            todo.append(_flip(st))
            if can_double(st):
                todo.append(doubled(st))
        full = [st for st in full if st in keep]

    wins = {st: win(st) for st in full}
    dbls = {st: can_double(st) for st in full}
    # partition refinement: start from (leaf value, option), refine by (class of the
    # flipped state, class of the doubled state) until stable
    labels: dict[Any, Any]
    if merge:
        labels = {st: (round(wins[st], 12), dbls[st]) for st in full}
    else:
        labels = {st: i for i, st in enumerate(full)}
    while True:
        ids = {lab: k for k, lab in enumerate(dict.fromkeys(labels.values()))}
        cls = {st: ids[labels[st]] for st in full}
        refined = {
            st: (cls[st], cls[_flip(st)], cls[doubled(st)] if dbls[st] else -1) for st in full
        }
        if len(set(refined.values())) == len(ids):
            break
        labels = refined
    n = len(ids)
    rep: dict[int, Any] = {}
    for st in full:
        rep.setdefault(cls[st], st)
    win_arr = np.array([wins[rep[k]] for k in range(n)])
    perm = np.array([cls[_flip(rep[k])] for k in range(n)], dtype=np.int64)
    can = np.array([dbls[rep[k]] for k in range(n)], dtype=np.bool_)
    dbl = np.array([cls[doubled(rep[k])] if can[k] else 0 for k in range(n)], dtype=np.int64)
    return CubeStates(levels, tuple(full), cls, win_arr, perm, can, dbl)


# ------------------------------------------------------------------------------ solver


@dataclass(frozen=True)
class _Space:
    points: int
    checkers: int

    @property
    def n(self) -> int:
        return n_positions(self.points, self.checkers)

    def table(self) -> Any:
        from mathbg.bearoff.plays import successors

        return successors(self.points, self.checkers)


def _space(points: int, checkers: int) -> _Space:
    check_size(points, checkers)
    if checkers > MAX_CHECKERS:
        raise DatabaseError(
            f"the match solver covers at most {MAX_CHECKERS} checkers a side (with 15 a "
            "side gammons would be possible, and the space would not fit in memory)"
        )
    return _Space(int(points), int(checkers))


def _run_kernel(
    space: _Space,
    states: CubeStates,
    report: NDArray[np.int64],
    *,
    store: bool,
    progress: bool = False,
    desc: str = "",
    threaded: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Solve every pair; return ``QT`` (see the kernel module) and ``N`` of ``report``.

    The kernel compiled ahead of time (:mod:`mathbg._native`) holds the GIL; ``threaded``
    callers (games solved side by side in threads) take numba's, which releases it."""
    from mathbg._native import compiled
    from mathbg._resources import check_memory

    shells: Any = None if threaded else compiled("exact_shells")
    if shells is None:
        from mathbg.bearoff.exact._kernels import shells_serial as shells

    n = space.n
    S = states.n
    needed = 8 * n * n * (S + (len(report) if store else 0))
    check_memory(
        needed,
        f"solving {space.points}x{space.checkers} at this score ({n:,}^2 pairs x {S} cube states)",
    )
    table = space.table()
    # exactly the kernel's argument types: the compiled kernel does not check them
    ptr = np.ascontiguousarray(table.ptr, dtype=np.int64)
    succ = np.ascontiguousarray(table.succ, dtype=np.int32)
    win = np.ascontiguousarray(states.win, dtype=np.float64)
    perm = np.ascontiguousarray(states.perm, dtype=np.int64)
    can_double = np.ascontiguousarray(states.can_double, dtype=np.bool_)
    dbl = np.ascontiguousarray(states.dbl, dtype=np.int64)
    report = np.ascontiguousarray(report, dtype=np.int64)
    qt = np.empty((n, n, S), dtype=np.float64)
    if store:
        nout = np.full((n, n, len(report)), np.nan)
    else:
        nout = np.empty((1, 1, len(report)))
    per_position = np.diff(table.ptr[::21]).astype(np.float64)
    # successor-state reads of shell m: row part (m - 1) |succ(m)|, column part sum_{i<=m}
    work = np.cumsum((np.arange(-1, n - 1).clip(0) * per_position + np.cumsum(per_position)) * S)
    bar = None
    try:
        m0 = 1
        while m0 < n:
            m1 = int(np.searchsorted(work, work[m0 - 1] + _BATCH)) + 1
            m1 = min(max(m1, m0 + 1), n)
            shells(m0, m1, ptr, succ, qt, win, perm, can_double, dbl, nout, report,
                   bool(store), _ROW_BLOCK)  # fmt: skip
            if bar is not None:
                bar.update(m1 * m1 - m0 * m0)
            elif progress and m1 < n:
                # the first call compiled the kernels (first use): the bar starts after it,
                # so its ETA measures the work
                from tqdm.auto import tqdm

                bar = tqdm(total=n * n, initial=m1 * m1, desc=desc or "match bearoff",
                           unit="pair", unit_scale=True, leave=False)  # fmt: skip
            m0 = m1
    finally:
        if bar is not None:
            bar.close()
    return qt, nout


def _root_values(
    space: _Space, states: CubeStates, qt: NDArray[np.float64], i: int, j: int
) -> NDArray[np.float64]:
    """``N[i, j, :]`` of every state class from a solved ``QT``."""
    from mathbg.bearoff.exact import _kernels as k

    table = space.table()
    out = np.empty(states.n)
    k.pair_no_double(
        i, np.ascontiguousarray(qt[:, j, :]), table.ptr, table.succ, out, np.empty(states.n)
    )
    return out


def _report_states(levels: int) -> list[Any]:
    """The states of the roller = player 0 a query can name, plus the cubeless one."""
    return [st for st in _full_states(levels) if st == "cubeless" or st[0] == 0]


@dataclass(frozen=True, eq=False)
class GameSolution:
    """The exact solution of one game (one score) over every pair of a bearoff space.

    ``no_double[i, j, k]`` is the roller's MWC if he rolls without doubling, for the
    roller = player 0 (needing ``away[0]``) at position index ``i`` against index ``j``, in
    the cube state ``states[k]`` (``(0, level, owner)`` or ``"cubeless"``); entries with a
    side already off are NaN. Cube decisions follow from it (:meth:`decision`).
    """

    points: int
    checkers: int
    away: tuple[int, int]
    kind: ScoreState
    met_name: str
    levels: int
    states: tuple[Any, ...]
    no_double: NDArray[np.float64]
    win: NDArray[np.float64] = field(repr=False)
    access: NDArray[np.bool_] = field(repr=False)

    @property
    def cap(self) -> int:
        """The largest cube value."""
        return 1 << (self.levels - 1)

    def state_index(self, cube: int, owner: str | int) -> int:
        """Column of ``no_double`` for the roller's cube ``cube`` held by ``owner``."""
        from mathbg.cube.inputs import check_cube

        c = int(check_cube(cube))
        w = owner if isinstance(owner, int) else owner_index(owner)
        if w == _CENTRE and c != 1:
            raise InvalidScoreError(f"a centred cube is on 1, got cube {c} centred")
        level = min(c, self.cap).bit_length() - 1  # beyond the cap every cube is dead
        return self.states.index((0, level, w))

    def index(self, counts: ArrayLike, what: str = "position") -> int:
        """Bearoff index of a position of this space (raises if it has no checker)."""
        arr = validate_counts(counts, self.points, self.checkers, what=what)
        if arr.ndim != 1:
            raise InvalidParameterError(f"{what}: give one position")
        if not arr.any():
            raise InvalidParameterError(f"{what} has no checker left: the game is over")
        return int(rank(arr, self.points))

    def p_win(self) -> NDArray[np.float64]:
        """Cubeless winning chance of the roller for every pair (optimal cubeless play)."""
        return self.no_double[..., self.states.index("cubeless")]

    def to_frame(self, cube: int = 1, owner: CubeOwner | str = CubeOwner.CENTRE) -> Any:
        """Every pair's exact cube decision in one cube state as a DataFrame.

        One row per pair with checkers on both sides: ``roller`` and ``opponent`` (checker
        counts as text), the roller's cubeless ``p_win`` and MWCs ``no_double``,
        ``double_take``, ``double_pass`` (NaN without access to the cube: does not
        apply) and ``optimal``. Exact: no cube life. The score and cube state are in
        ``attrs``.
        """
        import pandas as pd

        from mathbg.bearoff.index import all_positions

        arrays = self.decision_arrays(cube, owner)
        boards = all_positions(self.points, self.checkers)
        labels = np.array([",".join(map(str, b)) for b in boards.tolist()], dtype=object)
        n = len(labels)
        i, j = (m.ravel() for m in np.meshgrid(np.arange(1, n), np.arange(1, n), indexing="ij"))
        df = pd.DataFrame(
            {
                "roller": labels[i],
                "opponent": labels[j],
                "p_win": self.p_win()[i, j],
                **{k: arrays[k][i, j] for k in ("no_double", "double_take", "double_pass")},
                "optimal": arrays["optimal"][i, j],
            }
        )
        df.attrs.update(
            name=f"exact cube decisions at {self.away[0]}-away/{self.away[1]}-away "
            f"({self.points}x{self.checkers} bearoffs; MWC of the roller)",
            away=self.away,
            cube=int(cube),
            owner=str(CubeOwner.parse(owner)),
            met=self.met_name,
            cube_life=None,
        )
        return df

    def decision_arrays(self, cube: int = 1, owner: str = "centre") -> dict[str, Any]:
        """ND, DT, DP, optimal MWC and whether the roller doubles / the taker takes, for
        every pair, in one cube state (DT and DP NaN without access)."""
        k = self.state_index(cube, owner)
        nd = self.no_double[..., k]
        c = min(int(cube), self.cap)
        if not self.access[k]:
            nan = np.full_like(nd, np.nan)
            return {
                "no_double": nd,
                "double_take": nan,
                "double_pass": nan,
                "optimal": nd,
                "access": False,
            }
        level = c.bit_length() - 1
        dt = self.no_double[..., self.states.index((0, level + 1, _OPPONENT))]
        dp = float(self.win[k])
        best = np.minimum(dt, dp)
        return {
            "no_double": nd,
            "double_take": dt,
            "double_pass": np.full_like(nd, dp),
            "optimal": np.maximum(nd, best),
            "access": True,
        }

    def decision(
        self,
        roller: ArrayLike,
        opponent: ArrayLike,
        cube: int = 1,
        owner: CubeOwner | str = CubeOwner.CENTRE,
    ) -> MatchEquity:
        """The exact cube decision of one pair (see :class:`MatchEquity`)."""
        from mathbg.cube.decisions import classify

        i = self.index(roller, "roller")
        j = self.index(opponent, "opponent")
        k = self.state_index(cube, owner)
        p = float(self.no_double[i, j, self.states.index("cubeless")])
        nd = float(self.no_double[i, j, k])
        common: dict[str, Any] = {
            "away": self.away,
            "cube": int(cube),
            "owner": CubeOwner.parse(owner),
            "crawford": self.kind == ScoreState.CRAWFORD,
            "met": self.met_name,
        }
        if not self.access[k]:
            return MatchEquity(
                action=CubeAction.NOT_AVAILABLE,
                no_double=nd,
                double_take=None,
                double_pass=None,
                optimal=nd,
                p_win=p,
                **common,
            )
        level = min(int(cube), self.cap).bit_length() - 1
        dt = float(self.no_double[i, j, self.states.index((0, level + 1, _OPPONENT))])
        dp = float(self.win[k])
        action = classify(nd, dt, dp, can_gammon=False, money=False)
        optimal = max(nd, min(dt, dp))
        return MatchEquity(
            action=action,
            no_double=nd,
            double_take=dt,
            double_pass=dp,
            optimal=optimal,
            p_win=p,
            **common,
        )


@dataclass(frozen=True, kw_only=True)
class MatchEquity(CubeDecision):
    """The exact cube decision of the roller in a bearoff at a match score: a
    :class:`~mathbg.cube.decisions.CubeDecision` in match winning chances
    (``unit="mwc"``) with the question asked.

    Attributes
    ----------
    p_win : float
        The roller's cubeless winning chance (optimal cubeless play).
    no_double : float
        The roller's MWC if he rolls without doubling (both sides then play perfectly).
    double_take, double_pass : float or None
        The roller's MWC after double/take (the opponent owns ``2 cube``) and
        double/pass (the roller wins ``cube`` points); None without access to the cube.
    optimal : float
        ``max(ND, min(DT, DP))`` with access, else ND: the MWC with perfect play.
    action : mathbg.cube.decisions.CubeAction
        "no double, take", "double, take", "double, pass" (no gammons, so never "too
        good"; doubling wins ties, DT = DP is named a pass) or "cube not available".
    away, cube, owner, crawford, met :
        The question asked (``owner`` a :class:`~mathbg.rules.cube.CubeOwner`).
    """

    unit: str = "mwc"
    p_win: float
    away: tuple[int, int] = (0, 0)
    cube: int = 1
    owner: CubeOwner = CubeOwner.CENTRE
    crawford: bool = False
    met: str = ""

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (the CLI's keys)."""
        return {
            "p_win": self.p_win,
            "mwc_no_double": self.no_double,
            "mwc_double_take": self.double_take,
            "mwc_double_pass": self.double_pass,
            "mwc_optimal": self.optimal,
            "action": str(self.action),
            "away": list(self.away),
            "cube": self.cube,
            "owner": self.owner,
            "crawford": self.crawford,
            "met": self.met,
        }


def solve_game(
    points: int,
    checkers: int,
    away: tuple[int, int],
    kind: str,
    mwc: MwcFunction,
    *,
    levels: int | None = None,
    prune_dead_doubles: bool = True,
    merge: bool = True,
    met_name: str = "",
    progress: bool = False,
) -> GameSolution:
    """Solve one game exactly for every pair of the ``points`` x ``checkers`` space.

    Parameters
    ----------
    points, checkers : int
        The bearoff space (at most ``checkers`` <= 14 checkers a side on points 1..P).
    away : (int, int)
        Points player 0 (the roller of the reported states) and player 1 need.
    kind : ScoreState or {"normal", "crawford", "post-crawford"}
        The game: ordinary, the Crawford game or post-Crawford (incl. DMP).
    mwc : callable
        ``mwc(a, b, kind) -> float``: player 0's MWC at the start of a later game (a, b
        >= 1); e.g. from a MET, or affine for the money limit.
    levels : int, optional
        Cube levels 1, 2, ..., 2**(levels - 1) (default: up to the smallest power of two
        >= max(away)).
    prune_dead_doubles, merge : bool
        See :func:`build_states` (value-neutral switches, for the tests).
    met_name : str
        Recorded in the result.
    progress : bool
        Show a tqdm bar.

    Returns
    -------
    GameSolution
    """
    kind = as_kind(kind)
    space = _space(points, checkers)
    a, b = int(away[0]), int(away[1])
    states = build_states(
        a, b, kind, mwc, levels=levels, prune_dead_doubles=prune_dead_doubles, merge=merge
    )
    names = _report_states(states.levels)
    report = np.array([states.cls[st] for st in names], dtype=np.int64)
    _, nout = _run_kernel(
        space, states, report, store=True, progress=progress, desc=f"{a}-away/{b}-away"
    )
    # access as gnubg's rules (mathbg.rules.match.may_double): not in the Crawford game, the
    # cube centred or the roller's, and only for a roller who needs more than the cube
    access = [
        st != "cubeless"
        and kind != ScoreState.CRAWFORD
        and st[2] != _OPPONENT
        and st[1] + 1 < states.levels
        and a > (1 << st[1])
        for st in names
    ]
    nout.setflags(write=False)
    return GameSolution(
        points=space.points,
        checkers=space.checkers,
        away=(a, b),
        kind=kind,
        met_name=met_name,
        levels=states.levels,
        states=tuple(names),
        no_double=nout,
        win=states.win[report],
        access=np.array(access, dtype=np.bool_),
    )


# ------------------------------------------------------------------------------ caching


def _met_digest(met: MET) -> str:
    """SHA-256 of the MET's values (pre- and post-Crawford, with their shapes)."""
    digest = hashlib.sha256()
    for arr in (np.ascontiguousarray(met.pre, dtype=np.float64),
                np.ascontiguousarray(met.post, dtype=np.float64)):  # fmt: skip
        digest.update(f"{arr.shape}".encode())
        digest.update(arr.tobytes())
    return digest.hexdigest()


def _cache_identity(points: int, checkers: int, a: int, b: int, kind: str, met_digest: str) -> str:
    """What a match cache file is: inside its checksum, so a file of another score,
    Crawford state, space or MET fails it (even when copied under this file's name)."""
    return (
        f"mathbg-match-cache v{_CACHE_VERSION} space={points}x{checkers} away={a},{b} "
        f"kind={kind} met={met_digest}"
    )


#: The suffix of the stamp beside a cache file that records its last passed check
#: (:func:`mathbg._files.write_stamp`).
STAMP_SUFFIX = ".verified"


def _cache_path(points: int, checkers: int, a: int, b: int, kind: str, key: str) -> Path:
    from mathbg._paths import cache_dir

    name = f"match-v{_CACHE_VERSION}-{points:02d}x{checkers:02d}-{a}a{b}a-{kind}-{key}.npz"
    return cache_dir("bearoff") / "match" / name


def _arrays_digest(arrays: dict[str, NDArray[Any]], identity: str) -> str:
    digest = hashlib.sha256(identity.encode() + b"\n")
    for name in sorted(arrays):
        arr = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}:{arr.dtype.str}:{arr.shape}".encode())
        digest.update(arr.data)
    return digest.hexdigest()


def _save(sol: GameSolution, path: Path, identity: str) -> None:
    """Write a solution to the disk cache (atomic; checksummed over its identity and every
    array)."""
    from mathbg import _files

    arrays: dict[str, Any] = {
        "no_double": np.asarray(sol.no_double),
        "win": np.asarray(sol.win),
        "access": np.asarray(sol.access),
        "levels": np.asarray(np.int64(sol.levels)),
    }
    checksum = np.frombuffer(_arrays_digest(arrays, identity).encode(), dtype=np.uint8)
    needed = sum(a.nbytes for a in arrays.values()) + 4096
    with _files.atomic_file(
        path,
        what="match cache file",
        is_same_kind=lambda p: p.suffix == ".npz",
        force=True,  # the cache directory is mathbg's own
        needed_bytes=needed,
    ) as tmp, open(tmp, "wb") as fh:  # fmt: skip
        np.savez(fh, checksum=checksum, **arrays)


def _cache(sol: GameSolution, path: Path, identity: str) -> None:
    """:func:`_save`, best effort: a cache file that cannot be written (no space, a
    read-only directory) is a one-line warning, the solution is still served."""
    try:
        _save(sol, path, identity)
    except (ResourceError, OSError) as exc:
        import warnings

        from mathbg.errors import MathbgWarning, reason

        why = reason(exc)
        warnings.warn(f"{path}: match cache not written ({why})", MathbgWarning, stacklevel=4)


def _load(
    path: Path, points: int, checkers: int, a: int, b: int, kind: str, name: str, identity: str
) -> GameSolution | None:
    """A cached solution, or None (with a one-line warning) when the file fails a check."""
    try:
        sol = _read_cache(path, points, checkers, a, b, kind, name, identity)
    except Exception as exc:  # any damage means: solve again
        import warnings

        from mathbg.errors import MathbgWarning, reason

        why = reason(exc)
        warnings.warn(
            f"{path}: damaged match cache ({why}); solving again", MathbgWarning, stacklevel=3
        )
        return None
    return sol


def _read_cache(
    path: Path, points: int, checkers: int, a: int, b: int, kind: str, name: str, identity: str
) -> GameSolution:
    from mathbg import _files

    # mapped, not read: the digest below checks every array (and the identity), once per
    # state of the file (a stamp beside it records a check that passed)
    data = _npy.map_npz(path, str(path))
    arrays = {k: data[k] for k in ("no_double", "win", "access", "levels")}
    stored = bytes(data["checksum"]).decode("ascii")
    stamp = path.with_name(path.name + STAMP_SUFFIX)
    token = f"{stored} {hashlib.sha256(identity.encode()).hexdigest()}"
    checked = _files.stamped(stamp, [path], token)
    if not checked and stored != _arrays_digest(arrays, identity):
        raise DatabaseError("checksum mismatch (damaged, or another score, space or MET)")
    levels = int(arrays["levels"])
    if not 1 <= levels <= 13:
        raise DatabaseError(f"cube levels {levels} out of range")
    nd, win, access = arrays["no_double"], arrays["win"], arrays["access"]
    states = tuple(_report_states(levels))
    n = n_positions(points, checkers)
    if nd.shape != (n, n, len(states)) or win.shape != (len(states),):
        raise DatabaseError("arrays of the wrong shape")
    if access.shape != (len(states),) or access.dtype != np.bool_:
        raise DatabaseError("cube-access array malformed")
    # NaN (a state not solved) compares false both ways; two passes without temporaries of
    # the table's size (a tenth of the time of the NaN-or-inside mask)
    if not checked and (np.any(nd < -1e-12) or np.any(nd > 1 + 1e-12)):
        raise DatabaseError("match winning chances outside [0, 1]")
    if not checked:
        _files.write_stamp(stamp, [path], token)
    nd.setflags(write=False)
    return GameSolution(
        points, checkers, (a, b), as_kind(kind), name, levels, states, nd, win, access
    )


_MEMORY: dict[tuple[Any, ...], GameSolution] = {}
_MEMORY_MAX = 4


def solve_score(
    away: tuple[int, int],
    *,
    crawford: bool = False,
    met: MET | str = "kazaross-xg2",
    points: int = 6,
    checkers: int = 6,
    disk_cache: bool = False,
    progress: bool = False,
) -> GameSolution:
    """The exact solution of a game at a match score, cached for further queries.

    Parameters
    ----------
    away : (int, int)
        Points the roller (player 0 of the MET) and the opponent need.
    crawford : bool
        With a side 1-away: the Crawford game (no cube) instead of post-Crawford.
    met : str or mathbg.met.MET
        The match equity table at the leaves (default Kazaross-XG2).
    points, checkers : int
        The bearoff space (default 6 x 6, the size of gnubg's two-sided database).
    disk_cache : bool
        Also keep the solution on disk (``cache_dir("bearoff")/match``, about
        ``8 n^2 (2L + 2)`` bytes, 55 MB for 6 x 6 at 3-away/3-away) and reuse it.
    progress : bool
        Show a tqdm bar while solving.

    Returns
    -------
    GameSolution
        Kept in memory (the last few scores) for further queries.
    """
    a, b = away_score(away)
    kind = game_kind(a, b, crawford)
    table = as_met(met)
    met_digest = _met_digest(table)
    key = met_digest[:16]
    space = _space(points, checkers)
    mkey = (space.points, space.checkers, a, b, kind, key)
    hit = _MEMORY.get(mkey)
    if hit is not None:
        return hit
    name = getattr(table, "name", "custom")
    sol = None
    path = _cache_path(space.points, space.checkers, a, b, kind, key)
    identity = _cache_identity(space.points, space.checkers, a, b, kind, met_digest)
    if disk_cache and path.exists():
        sol = _load(path, space.points, space.checkers, a, b, kind, name, identity)
    if sol is None:
        sol = solve_game(
            space.points,
            space.checkers,
            (a, b),
            kind,
            met_mwc(table),
            met_name=name,
            progress=progress,
        )
        if disk_cache:
            _cache(sol, path, identity)
    if len(_MEMORY) >= _MEMORY_MAX:
        _MEMORY.pop(next(iter(_MEMORY)))
    _MEMORY[mkey] = sol
    return sol


def _fits(roller: ArrayLike, opponent: ArrayLike, points: int) -> int:
    """Checkers per side of the smallest space holding both positions (6 at least)."""
    r = validate_counts(roller, points, MAX_CHECKERS, what="roller")
    o = validate_counts(opponent, points, MAX_CHECKERS, what="opponent")
    if r.ndim != 1 or o.ndim != 1:
        raise InvalidParameterError("give one roller position and one opponent position")
    return max(6, int(r.sum()), int(o.sum()))


def match_equity(
    roller: ArrayLike,
    opponent: ArrayLike,
    away: tuple[int, int],
    cube: int = 1,
    owner: str = "centre",
    crawford: bool = False,
    met: MET | str = "kazaross-xg2",
    *,
    points: int = 6,
    checkers: int | None = None,
    disk_cache: bool = False,
    progress: bool = False,
) -> MatchEquity:
    """The exact cube decision and match winning chances of a bearoff at a match score.

    Parameters
    ----------
    roller, opponent : sequence of int
        Checker counts on points 1..6 (ace point first, each side in its own numbering)
        of the side on roll and of the other side.
    away : (int, int)
        Points the roller and the opponent need (a 1-away side means post-Crawford unless
        ``crawford``).
    cube : int
        Cube value (a power of two; cubes beyond the smallest power of two >= max(away)
        are dead and are treated as that one).
    owner : {"centre", "player", "opponent"} (CubeOwner; "player" is the roller)
        Who holds the cube (a centred cube is on 1).
    crawford : bool
        This is the Crawford game (no doubling).
    met : str or mathbg.met.MET
        Match equity table for the scores after this game (default Kazaross-XG2).
    points, checkers : int
        The bearoff space solved (default 6 points and the smallest checkers >= 6 holding
        both positions).
    disk_cache, progress : bool
        See :func:`solve_score`.

    Returns
    -------
    MatchEquity
        Fields ``p_win``, ``no_double``, ``double_take``, ``double_pass`` (None without
        access), ``optimal``, ``action``.

    Notes
    -----
    The first query at a score solves the whole game (every pair and cube state of the
    space, a few seconds for 6 x 6); later queries at that score are lookups.

    Examples
    --------
    >>> from mathbg.bearoff import match_equity
    >>> eq = match_equity([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1], away=(1, 1))  # doctest: +SKIP
    >>> eq.p_win, eq.optimal                                                   # doctest: +SKIP
    (0.8125, 0.8125)
    """
    from mathbg._validate import cube_state
    from mathbg.cube.inputs import check_cube

    c = int(check_cube(cube))  # the question is checked before any solving
    cube_state(c, owner_index(owner) == _CENTRE, bool(crawford))
    if owner_index(owner) == _CENTRE and c != 1:
        raise InvalidScoreError(f"a centred cube is on 1, got cube {c} centred")
    from mathbg.bearoff.index import check_in_play

    for what, counts in (("roller", roller), ("opponent", opponent)):  # before any solving
        check_in_play(validate_counts(counts, points, MAX_CHECKERS, what=what), what)
    if checkers is None:
        checkers = _fits(roller, opponent, points)
    sol = solve_score(
        away,
        crawford=crawford,
        met=met,
        points=points,
        checkers=checkers,
        disk_cache=disk_cache,
        progress=progress,
    )
    return sol.decision(roller, opponent, cube, owner)


# ------------------------------------------------------------------------------ money limit


def money_limit(points: int = 6, checkers: int = 6, *, levels: int = 10) -> NDArray[np.float64]:
    """Money equities of every pair from the match solver with an endless affine MET.

    With ``MWC(win k points) = 1/2 + k / 2`` and no end to the match, the match recursion is
    the money recursion: ``2 N - 1`` at cube 1 is the money equity per unit cube before the
    roller's decision. Cube levels are capped at ``2**(levels - 1)``, which only matters
    after ``levels - 1`` redoubles: against the uncapped two-sided 6 x 6 database the
    largest difference is 0.016 with 4 levels, 1.3e-4 with 6, 1.6e-7 with 8, 3e-13 with 10 and
    float rounding (1e-15) with 12.

    Returns
    -------
    numpy.ndarray, shape (n, n, 4)
        ``[cubeless, owned, centred, opponent owns]`` as :class:`mathbg.bearoff.TwoSided`
        stores them (NaN where a side has no checker).
    """
    big = 1 << 40

    def affine(a: int, b: int, kind: str) -> float:
        return 0.5 + 0.5 * (b - a)

    sol = solve_game(points, checkers, (big, big), ScoreState.NORMAL, affine, levels=levels,
                     met_name="money (affine)")  # fmt: skip
    out = np.empty((*sol.no_double.shape[:2], 4))
    out[..., 0] = 2.0 * sol.no_double[..., sol.states.index("cubeless")] - 1.0
    for col, w in ((1, _ROLLER), (2, _CENTRE), (3, _OPPONENT)):
        out[..., col] = 2.0 * sol.no_double[..., sol.states.index((0, 0, w))] - 1.0
    return out


# ------------------------------------------------------------------------------ race MET


def _game_start(
    space: _Space,
    a: int,
    b: int,
    kind: str,
    mwc: MwcFunction,
    x: int,
    y: int,
    opening_double: bool,
) -> float:
    """Player 0's MWC at the start of a game at (a, b) from the pair (x, y), coin toss."""
    roots = [(0, 0, _CENTRE), (1, 0, _CENTRE)]
    states = build_states(a, b, kind, mwc, roots=roots)
    report = np.zeros(0, dtype=np.int64)
    qt, _ = _run_kernel(space, states, report, store=False, threaded=True)
    nvec = _root_values(space, states, qt, x, y)
    values = []
    for o in (0, 1):
        k = states.cls[(o, 0, _CENTRE)]
        v = nvec[k]
        if opening_double and states.can_double[k]:
            v = max(v, min(nvec[states.dbl[k]], states.win[k]))
        values.append(v)
    return float(0.5 * values[0] + 0.5 * (1.0 - values[1]))


def race_met(
    roller: ArrayLike,
    opponent: ArrayLike | None = None,
    length: int = 11,
    *,
    points: int = 6,
    checkers: int | None = None,
    opening_double: bool = True,
    progress: bool = True,
) -> Any:
    """The exact MET of matches whose every game is a bearoff race from a fixed start.

    Every game starts with one player (chosen by a fair coin) on roll with ``roller``'s
    checkers against ``opponent``'s (default: the same position), and both players play
    perfectly (checkers and cube, Crawford rule). The table is solved bottom-up over the
    scores: the post-Crawford vector, then the Crawford games, then every score ``(a, b)``
    by increasing ``a + b``, each game's leaves read from the entries already solved.

    Parameters
    ----------
    roller, opponent : sequence of int
        Starting checker counts on points 1..P of the side that rolls first and of the
        other side.
    length : int
        Table length N (scores up to N-away).
    points, checkers : int
        The bearoff space (default 6 points and the fewest checkers >= 1 that hold both
        positions: every position reachable from them).
    opening_double : bool
        Whether the first roller may double before his first roll (default True: the game
        starts in a position with him on roll).
    progress : bool
        Show a tqdm bar over the scores.

    Returns
    -------
    mathbg.met.MET
        Symmetric (equal players): ``pre[a-1, b-1]`` for both sides >= 2 and the Crawford
        entries in the 1-away row and column, ``post`` the post-Crawford vector.
    """
    from mathbg.met import MET

    if opponent is None:
        opponent = roller
    if isinstance(length, bool) or not isinstance(length, int | np.integer) or length < 1:
        raise InvalidScoreError(f"length must be a positive integer, got {length!r}")
    length = int(length)
    r = validate_counts(roller, points, MAX_CHECKERS, what="roller")
    o = validate_counts(opponent, points, MAX_CHECKERS, what="opponent")
    if not r.any() or not o.any():
        raise InvalidParameterError("both starting positions need a checker on the board")
    if checkers is None:
        checkers = max(int(r.sum()), int(o.sum()))
    space = _space(points, checkers)
    x = int(rank(validate_counts(r, points, checkers, what="roller"), points))
    y = int(rank(validate_counts(o, points, checkers, what="opponent"), points))

    post = np.empty(length + 1)  # post[n] = MWC of the trailer n-away vs 1-away
    crawford = np.empty(length + 1)  # crawford[n] = MWC of player 0 1-away vs n-away
    pre = np.full((length + 1, length + 1), np.nan)

    def mwc(a: int, b: int, kind: str) -> float:
        if kind == ScoreState.POST_CRAWFORD:
            return float(post[a] if b == 1 else 1.0 - post[b])
        if kind == ScoreState.CRAWFORD:
            return float(crawford[b] if a == 1 else 1.0 - crawford[a])
        return float(pre[a, b])

    # waves of independent games: the post-Crawford chain (each reads the one before),
    # the Crawford games (read post-Crawford entries), then the scores by a + b
    waves: list[list[tuple[int, int, ScoreState]]] = [
        [(1, n, ScoreState.POST_CRAWFORD)] for n in range(1, length + 1)
    ]
    waves.append([(1, n, ScoreState.CRAWFORD) for n in range(2, length + 1)])
    for total in range(4, 2 * length + 1):
        wave = [(a, total - a, ScoreState.NORMAL)
                for a in range(2, total // 2 + 1) if total - a <= length]  # fmt: skip
        if wave:
            waves.append(wave)

    def run(job: tuple[int, int, str]) -> float:
        a, b, kind = job
        return _game_start(space, a, b, kind, mwc, x, y, opening_double)

    bar = None
    if progress:
        from tqdm.auto import tqdm

        total_jobs = sum(len(w) for w in waves)
        bar = tqdm(total=total_jobs, desc=f"race MET to {length}", unit="score", leave=False)
    from concurrent.futures import ThreadPoolExecutor

    import numba

    space.table()  # build the successor table once, outside the threads
    try:
        with ThreadPoolExecutor(max_workers=max(1, int(numba.get_num_threads()))) as pool:
            for wave in waves:
                for (a, b, kind), value in zip(wave, pool.map(run, wave), strict=True):
                    if kind == ScoreState.POST_CRAWFORD:
                        post[b] = 1.0 - value
                    elif kind == ScoreState.CRAWFORD:
                        crawford[b] = value
                    else:
                        pre[a, b] = value
                        pre[b, a] = 1.0 - value
                    if bar is not None:
                        bar.update()
    finally:
        if bar is not None:
            bar.close()
    table = np.empty((length, length))
    table[1:, 1:] = pre[2:, 2:]
    table[0, 1:] = crawford[2:]
    table[1:, 0] = 1.0 - crawford[2:]
    table[0, 0] = 0.5
    rstr = ",".join(map(str, r.tolist()))
    ostr = ",".join(map(str, o.tolist()))
    return MET(
        pre=np.clip(table, 0.0, 1.0),
        post=np.clip(post[1:], 0.0, 1.0),
        name=f"race-{rstr}-vs-{ostr}",
        source=f"mathbg exact bearoff match solver, every game from {rstr} vs {ostr} "
        f"({space.points}x{space.checkers} space), first roller by coin",
        model="bearoff-race",
        title="Exact race-game MET",
        description="MET of matches whose every game is the same bearoff race, solved exactly",
        notes=f"opening_double={opening_double}",
    )
