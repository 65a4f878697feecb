"""Exact Hypergammon match play: every score solved outright, and the exact METs.

A game at a match score is solved for every pair of sides and every cube state, with
checker play and cube decisions that maximise the match winning chance (MWC) in each
state. The model, as in :mod:`mathbg.bearoff.exact.match` but with gammons and
backgammons:

- a state is ``(orientation, cube level, owner)``: orientation 0 when player 0 (needing
  ``a``, the MET's row) is on roll, 1 when player 1 (needing ``b``) is; cube ``2**level``;
  owner centre (cube 1 only), the roller or the opponent. Cube levels run to the smallest
  power of two ``>= max(a, b)``; only the states the game can reach from its start are
  solved (:func:`reachable_states`: in the Crawford game the centred cube alone, after it
  the trailer's one double), and states whose values always coincide are merged;
- a game won with ``k`` points x cube (``k`` = 1, 2, 3: single, gammon, backgammon) moves
  the score; its value is the MWC at the start of the next game: the Crawford game when a
  side first reaches 1-away, post-Crawford games after it, 1 / 0 when the match is over.
  These *leaf* values come from the exact solutions of the lower scores
  (:func:`hyper_met`), or from any MET (``met=``);
- doubling only before rolling, with access (centred or owned), never in the Crawford
  game, and only by a player who needs more than the cube (gnubg's rule, value-neutral);
  a take gives the taker the cube at ``2 c``, a pass gives the doubler ``c`` points.

The MWC at the start of a game is the opening-roll winner's value averaged over the 15
non-doubles, averaged over who wins the opening roll. Along the optimal plays and
decisions each state also carries the probability that the roller wins, and that he
loses, a gammon or more: the *gammon rates under optimal play* (where plays tie on MWC,
the first in the generator's order is the one followed).

A solve sweeps until no MWC changes by more than the tolerance; each game is kept in the
store (:mod:`mathbg.hyper.store`) and checkpointed while it runs, and a MET build records
every finished game, so a killed build resumes where it stopped. The games of one
anti-diagonal ``a + b`` are independent: :func:`hyper_met` runs them in parallel on Dask
(``scheduler``), with the same bits as locally.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg._validate import away_score, strict_integer
from mathbg.bearoff.exact.match import (
    CubeStates,
    after_game,
    cube_cap,
    game_kind,
    met_mwc,
    next_kind,
)
from mathbg.cube.decisions import CubeAction, CubeDecision, classify
from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.hyper import _layout as k
from mathbg.hyper._compiled import kernel
from mathbg.hyper._iterate import as_store, check_tolerance, finish, run_sweeps
from mathbg.hyper.money import DEFAULT_TOLERANCE
from mathbg.hyper.space import HyperSpace, check_checkers, space
from mathbg.hyper.store import Store, digest
from mathbg.met.table import MET
from mathbg.rules.cube import CubeOwner
from mathbg.rules.match import ScoreState
from mathbg.rules.position import Position

__all__ = [
    "MAX_LENGTH",
    "HyperDecision",
    "ScoreSolution",
    "build_states",
    "check_state",
    "cube_action",
    "game_list",
    "hyper_met",
    "reachable_states",
    "solve_game",
    "solve_score",
]

#: Longest exact MET built (and highest score solved).
MAX_LENGTH = 25
#: A pair's plays cost about this many cube states' work in a match sweep (measured).
_WORK_PER_PAIR = 15

_CENTRE, _ROLLER, _OPPONENT = 0, 1, 2
_OWNERS = {CubeOwner.CENTRE: _CENTRE, CubeOwner.PLAYER: _ROLLER, CubeOwner.OPPONENT: _OPPONENT}

MwcFunction = Callable[[int, int, str], float]
State = tuple[int, int, int]


# ------------------------------------------------------------------------------ states


def _flip(st: State) -> State:
    o, level, w = st
    return (1 - o, level, {_CENTRE: _CENTRE, _ROLLER: _OPPONENT, _OPPONENT: _ROLLER}[w])


def _doubled(st: State) -> State:
    return (st[0], st[1] + 1, _OPPONENT)


def _rules(a: int, b: int, kind: ScoreState) -> tuple[int, Callable[[State], bool]]:
    """The cube levels of the game and who may double in a state (see the module docs)."""
    levels = cube_cap(a, b).bit_length()

    def can_double(st: State) -> bool:
        o, level, w = st
        needs = a if o == 0 else b
        return (kind != ScoreState.CRAWFORD and w != _OPPONENT and level + 1 < levels
                and needs > (1 << level))

    return levels, can_double


def reachable_states(a: int, b: int, kind: ScoreState | str) -> list[State]:
    """The cube states a game at ``(a, b, kind)`` can reach from its start (the centred
    cube, either side on roll), in a fixed order: the only ones solved.

    Parameters
    ----------
    a, b : int
        Points player 0 and player 1 need.
    kind : ScoreState or {"normal", "crawford", "post-crawford"}

    Returns
    -------
    list of (orientation, level, owner)

    Examples
    --------
    >>> reachable_states(1, 5, "crawford")  # no cube in the Crawford game
    [(0, 0, 0), (1, 0, 0)]
    >>> len(reachable_states(1, 5, "post-crawford"))  # the trailer doubles once, at most
    4
    """
    _, can_double = _rules(a, b, ScoreState(kind))
    seen: dict[State, None] = {}
    todo: list[State] = [(0, 0, _CENTRE), (1, 0, _CENTRE)]
    while todo:
        st = todo.pop()
        if st in seen:
            continue
        seen[st] = None
        todo.append(_flip(st))
        if can_double(st):
            todo.append(_doubled(st))
    return sorted(seen)


def build_states(a: int, b: int, kind: ScoreState | str, mwc: MwcFunction) -> CubeStates:
    """The cube states of the game at ``(a, b, kind)`` with leaves from ``mwc``: the
    reachable ones (:func:`reachable_states`), those whose values always coincide merged.

    Parameters
    ----------
    a, b : int
        The away scores of the game (player 0's, player 1's).
    kind : ScoreState or {"normal", "crawford", "post-crawford"}
    mwc : callable
        ``mwc(a, b, kind)``: the leaves, player 0's MWC when a later game starts.

    Returns
    -------
    CubeStates
        The state classes (:class:`mathbg.bearoff.exact.match.CubeStates`; here ``win`` is
        ``float64[S, 3]``, the roller's MWC for winning 1, 2, 3 points x cube).

    Examples
    --------
    >>> st = build_states(1, 1, "post-crawford", lambda a, b, k: 0.5)
    >>> st.n, st.win.tolist()  # double match point: one state, every win is the match
    (1, [[1.0, 1.0, 1.0]])
    """
    kind = ScoreState(kind)
    levels, can_double = _rules(a, b, kind)
    full = reachable_states(a, b, kind)

    def win(st: State, points: int) -> float:
        o, level, _ = st
        c = points << level
        if o == 0:
            return after_game(mwc, a - c, b, next_kind(kind, a - c, b))
        return 1.0 - after_game(mwc, a, b - c, next_kind(kind, a, b - c))

    wins = {st: tuple(win(st, p) for p in (1, 2, 3)) for st in full}
    dbls = {st: can_double(st) for st in full}
    labels: dict[State, Any] = {st: (tuple(round(x, 13) for x in wins[st]), dbls[st])
                                for st in full}
    while True:  # partition refinement: (class, class of the flip, class of the double)
        ids = {lab: i for i, lab in enumerate(dict.fromkeys(labels.values()))}
        cls = {st: ids[labels[st]] for st in full}
        refined = {st: (cls[st], cls[_flip(st)], cls[_doubled(st)] if dbls[st] else -1)
                   for st in full}
        if len(set(refined.values())) == len(ids):
            break
        labels = refined
    rep: dict[int, State] = {}
    for st in full:
        rep.setdefault(cls[st], st)
    n = len(ids)
    return CubeStates(
        levels=levels,
        full=tuple(full),
        cls=cls,
        win=np.array([wins[rep[q]] for q in range(n)], dtype=np.float64),
        perm=np.array([cls[_flip(rep[q])] for q in range(n)], dtype=np.int64),
        can_double=np.array([dbls[rep[q]] for q in range(n)], dtype=np.bool_),
        dbl=np.array([cls[_doubled(rep[q])] if dbls[rep[q]] else 0 for q in range(n)],
                     dtype=np.int64),
    )


# ------------------------------------------------------------------------------ results


def check_state(
    cube: Any, owner: CubeOwner | str, away: tuple[int, int] | None = None,
    kind: ScoreState | str = ScoreState.NORMAL,
) -> State:
    """The cube state of a question at a score, checked: it must occur in the game.

    Parameters
    ----------
    cube : int
        A power of two (a cube above the game's highest level is as dead as that one).
    owner : CubeOwner or {"centre", "player", "opponent"}
        ``player``: the side on roll (player 0, needing ``away[0]``).
    away : (int, int), optional
        The score; None for money play (only the cube and owner are checked).
    kind : ScoreState or {"normal", "crawford", "post-crawford"}

    Returns
    -------
    (orientation, level, owner)
        The state (orientation 0; for money play the level is ``log2(cube)``).

    Raises
    ------
    InvalidParameterError
        For a cube that is not a power of two, a centred cube other than 1, or a cube
        no sequence of legal doubles reaches at this score.
    InvalidScoreError
        For a doubled cube in the Crawford game.

    Examples
    --------
    >>> check_state(2, "player", (3, 5), "normal")
    (0, 1, 1)
    >>> check_state(2, "opponent", (1, 5), "post-crawford")  # the trailer never owns it
    Traceback (most recent call last):
    ...
    mathbg.errors.InvalidParameterError: cube 2 owned by the opponent does not occur at ...
    """
    who = CubeOwner.parse(owner)
    if isinstance(cube, bool) or not isinstance(cube, int | np.integer) or cube < 1 \
            or (int(cube) & (int(cube) - 1)):
        raise InvalidParameterError(f"cube must be a power of two, got {cube!r}")
    if (who == CubeOwner.CENTRE) != (cube == 1):
        raise InvalidParameterError(
            f"a centred cube is on 1 and an owned cube on 2 or more, got cube {cube} {who}"
        )
    if away is None:
        return (0, int(cube).bit_length() - 1, _OWNERS[who])
    kind = ScoreState(kind)
    kind = ScoreState.POST_CRAWFORD if kind == ScoreState.DMP else kind
    if kind == ScoreState.CRAWFORD and cube != 1:
        raise InvalidScoreError("the Crawford game is played without the cube")
    a, b = away
    levels, _ = _rules(a, b, kind)
    st = (0, min(int(cube).bit_length() - 1, levels - 1), _OWNERS[who])
    if st not in reachable_states(a, b, kind):
        raise InvalidParameterError(
            f"cube {cube} owned by the {who} does not occur at {a}-away/{b}-away {kind}: no "
            "sequence of legal doubles reaches it"
        )
    return st


@dataclass(frozen=True, kw_only=True)
class HyperDecision(CubeDecision):
    """The exact cube decision of the player on roll at a match score (MWC).

    A :class:`~mathbg.cube.decisions.CubeDecision` (``unit="mwc"``) with the question
    asked and the gammon rates under optimal play from here.

    Attributes
    ----------
    position : str
        The Position ID.
    checkers : int
    away : (int, int)
        Points the roller and the opponent need.
    cube : int
    owner : CubeOwner
    crawford : bool
    gammons : (float, float)
        P(the roller wins a gammon or more), P(he loses one) under optimal play (after
        the optimal cube action).
    """

    unit: str = "mwc"
    position: str = ""
    checkers: int = 3
    away: tuple[int, int] = (1, 1)
    cube: int = 1
    owner: CubeOwner = CubeOwner.CENTRE
    crawford: bool = False
    gammons: tuple[float, float] = (0.0, 0.0)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (the CLI's keys)."""
        return {
            "position": self.position,
            "variant": f"hypergammon{self.checkers}",
            "away": list(self.away),
            "cube": self.cube,
            "owner": str(self.owner),
            "crawford": self.crawford,
            **super().as_dict(),
            "gammons": {"win": self.gammons[0], "lose": self.gammons[1]},
        }


@dataclass(frozen=True, eq=False)
class ScoreSolution:
    """One game of a match solved exactly over every pair and cube state.

    Attributes
    ----------
    checkers : int
    away : (int, int)
        Points player 0 and player 1 need.
    kind : ScoreState
        ``normal``, ``crawford`` or ``post-crawford`` (double match point included).
    states : CubeStates
    values : numpy.ndarray
        ``float64[n, n, S]``: ``values[o, r, q]`` is the MWC, after his cube decision, of
        the roller ``r`` against ``o`` in the state ``perm[q]`` (see
        :mod:`mathbg.hyper._kernels`).
    gammons : numpy.ndarray
        ``float32[n, n, S, 2]``: P(the roller wins, loses a gammon or more), same layout.
    tolerance : float
    residuals : tuple of float
        Every sweep's largest change of an MWC.
    """

    checkers: int
    away: tuple[int, int]
    kind: ScoreState
    states: CubeStates
    values: NDArray[np.float64]
    gammons: NDArray[np.float32]
    tolerance: float
    residuals: tuple[float, ...]
    seconds: float = field(default=0.0, compare=False)

    @property
    def residual(self) -> float:
        """The last sweep's largest change."""
        return self.residuals[-1]

    @property
    def space(self) -> HyperSpace:
        """The position space."""
        return space(self.checkers)

    def _state(self, cube: int, owner: CubeOwner | str) -> int:
        return self.states.cls[check_state(cube, owner, self.away, self.kind)]

    def _pair_values(self, i: int, j: int) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
        t, st = self.space.tables, self.states
        out: tuple[NDArray[Any], NDArray[Any], NDArray[Any]] = kernel("match_no_double")(
            int(i), int(j), *_arrays(self.values, self.gammons, t, st))
        return out

    def decision(
        self,
        position: Position | str,
        cube: int = 1,
        owner: CubeOwner | str = CubeOwner.CENTRE,
    ) -> HyperDecision:
        """The exact cube decision of the side on roll (player 0, needing ``away[0]``).

        Raises
        ------
        InvalidPositionError
            For a position that is not one of this game in progress.
        InvalidParameterError
            For a cube value or owner that does not exist.
        """
        i, j = self.space.pair(position)
        q = self._state(cube, owner)
        nv, av, ng = self._pair_values(i, j)
        st = self.states
        pos = self.space.position(i, j)
        gam = ng[q]
        dt = dp = None
        action = CubeAction.NOT_AVAILABLE
        if st.can_double[q]:  # the kernel's choice: pass if DP <= DT, else take
            dt, dp = float(nv[st.dbl[q]]), float(st.win[q, 0])
            action = classify(float(nv[q]), dt, dp, can_gammon=pos.opponent_off == 0,
                              money=False)
            if min(dt, dp) > nv[q]:
                gam = np.zeros(2) if dp <= dt else ng[st.dbl[q]]
        return HyperDecision(
            action=action, no_double=float(nv[q]), double_take=dt, double_pass=dp,
            optimal=float(av[q]), position=pos.id, checkers=self.checkers, away=self.away,
            cube=int(cube), owner=CubeOwner.parse(owner),
            crawford=self.kind == ScoreState.CRAWFORD,
            gammons=(float(gam[0]), float(gam[1])),
        )

    def opening(self) -> tuple[float, tuple[float, float]]:
        """Player 0's MWC at the start of the game, and P(player 0 wins, player 1 wins a
        gammon or more) under optimal play."""
        sp = self.space
        i0 = sp.rank(Position.initial(f"hypergammon{self.checkers}").player)
        mwc = 0.0
        gam = np.zeros(2)
        for o in (0, 1):
            q = self.states.cls[(o, 0, _CENTRE)]
            value, g = _opening_roller(self, i0, q)
            mwc += 0.5 * (value if o == 0 else 1.0 - value)
            gam += 0.5 * (g if o == 0 else g[::-1])
        return float(mwc), (float(gam[0]), float(gam[1]))


def _opening_roller(sol: ScoreSolution, i0: int, q: int) -> tuple[float, NDArray[Any]]:
    """The opening-roll winner's MWC and gammon rates in state ``q`` (15 non-doubles)."""
    t = sol.space.tables
    out = np.empty((1024, 3), dtype=np.int64)
    start = np.empty(22, dtype=np.int64)
    kernel("pair_plays")(int(i0), int(i0), t["ptr"], t["cand"], t["opp"], out, start)
    value = 0.0
    gam = np.zeros(2)
    for r, (d0, d1) in enumerate(k.ROLL_DICE):
        if d0 == d1:
            continue
        best, bg = -1.0, np.zeros(2)
        for p in range(start[r], start[r + 1]):
            v = 1.0 - sol.values[out[p, 1], out[p, 0], q]
            if v > best:
                best = v
                g = sol.gammons[out[p, 1], out[p, 0], q]
                bg = np.array([g[1], g[0]], dtype=np.float64)
        value += best / 15.0
        gam += bg / 15.0
    return value, gam


# ------------------------------------------------------------------------------ solving


def _leaf_key(states: CubeStates) -> list[str]:
    return [float(x).hex() for x in states.win.ravel()]


def _identity(c: int, a: int, b: int, kind: ScoreState, tol: float, st: CubeStates
              ) -> dict[str, Any]:
    return {"kind": "game", "checkers": c, "away": [a, b], "game": str(kind),
            "tolerance": tol, "leaves": _leaf_key(st)}


def solve_game(
    checkers: int,
    away: tuple[int, int],
    kind: ScoreState | str,
    mwc: MwcFunction,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    store: Store | str | os.PathLike[str] | bool | None = None,
    progress: bool = False,
    max_sweeps: int = 10_000,
    checkpoint_seconds: float = 300.0,
) -> ScoreSolution:
    """Solve the game at ``away`` (``kind``) with leaves from ``mwc`` (or load it).

    Parameters
    ----------
    checkers : {1, 2, 3}
    away : (int, int)
        Points player 0 and player 1 need.
    kind : ScoreState or str
        ``normal``, ``crawford`` or ``post-crawford``.
    mwc : callable
        ``mwc(a, b, kind)``: player 0's MWC at the start of a later game.
    tolerance, store, progress, max_sweeps, checkpoint_seconds :
        As :func:`mathbg.hyper.solve_money`.

    Returns
    -------
    ScoreSolution

    Examples
    --------
    >>> sol = solve_game(1, (1, 1), "post-crawford", lambda a, b, kind: 0.5, store=False)
    >>> round(sol.opening()[0], 12)  # double match point is fair
    0.5
    """
    from mathbg._resources import check_memory

    c, tol = check_checkers(checkers), check_tolerance(tolerance)
    a, b = int(away[0]), int(away[1])
    kind = ScoreState(kind)
    states = build_states(a, b, kind, mwc)
    st = as_store(store)
    ident = _identity(c, a, b, kind, tol, states)
    name = f"game-c{c}-{a}a{b}a-{kind}-{digest(ident)}"
    sp = space(c)
    n, S = sp.n, states.n
    if st is not None:
        hit = st.load(name, ident)
        if hit is not None:
            arrays, meta = hit
            return ScoreSolution(c, (a, b), kind, states, arrays["values"], arrays["gammons"],
                                 tol, tuple(meta["residuals"]), float(meta["seconds"]))
    check_memory(2 * 16 * n * n * S, f"solving {c}-checker Hypergammon at {a}-away/{b}-away "
                 f"({n:,}^2 pairs x {S} cube states)")
    values, gammons, residuals, seconds = _resume(st, name, ident, n, S)
    t0 = time.perf_counter()
    t = sp.tables
    sweep = partial(_match_sweep, values, gammons, t, states)

    def checkpoint(done: list[float]) -> None:
        if st is not None:
            meta = {"residuals": done, "seconds": seconds + time.perf_counter() - t0}
            st.save(name + ".partial", {"values": values, "gammons": gammons}, ident, meta)

    residuals = run_sweeps(sweep, n, tolerance=tol, max_sweeps=max_sweeps, deltas=residuals,
                           progress=progress, desc=f"hypergammon{c} {a}-away/{b}-away {kind}",
                           checkpoint=checkpoint if st is not None else None,
                           checkpoint_seconds=checkpoint_seconds, arrays=[values, gammons])
    seconds += time.perf_counter() - t0
    meta = {"residuals": residuals, "seconds": seconds}
    if finish(st, name, {"values": values, "gammons": gammons}, ident, meta, tol):
        values.setflags(write=False)
        gammons.setflags(write=False)
    return ScoreSolution(c, (a, b), kind, states, values, gammons, tol, tuple(residuals),
                         seconds)


def _match_sweep(values: NDArray[Any], gammons: NDArray[Any], t: dict[str, Any],
                 st: CubeStates, m0: int, m1: int) -> float:
    return float(kernel("match_sweep")(int(m0), int(m1), *_arrays(values, gammons, t, st)))


def _arrays(values: NDArray[Any], gammons: NDArray[Any], t: dict[str, Any], st: CubeStates
            ) -> tuple[NDArray[Any], ...]:  # fmt: skip
    """The match kernels' array arguments, in exactly their types (the kernels compiled
    ahead of time do not check them; the tables are made so: :attr:`HyperSpace.tables`)."""
    c = np.ascontiguousarray
    return (c(values, np.float64), c(gammons, np.float32), t["ptr"], t["cand"], t["opp"],
            c(st.win, np.float64), c(st.perm, np.int64), c(st.can_double, np.bool_),
            c(st.dbl, np.int64))  # fmt: skip


def _resume(st: Store | None, name: str, ident: dict[str, Any], n: int, S: int
            ) -> tuple[NDArray[Any], NDArray[Any], list[float], float]:
    """A checkpoint of this solve, or the start (every MWC 1/2, no gammons)."""
    if st is not None:
        hit = st.load(name + ".partial", ident)
        if hit is not None and hit[0]["values"].shape == (n, n, S):
            arrays, meta = hit
            return (np.array(arrays["values"]), np.array(arrays["gammons"]),
                    list(meta["residuals"]), float(meta["seconds"]))
    return np.full((n, n, S), 0.5), np.zeros((n, n, S, 2), dtype=np.float32), [], 0.0


# ------------------------------------------------------------------------------ the MET


def _check_length(length: Any) -> int:
    return strict_integer(length, "length", 1, MAX_LENGTH)


def game_list(length: int) -> list[tuple[int, int, ScoreState]]:
    """The games an exact MET of ``length`` solves, in an order that respects their
    dependencies (by ``a + b``): ``(a, b, kind)`` with ``a <= b`` (the mirror game is
    the same solve seen from the other side).

    Parameters
    ----------
    length : int
        The table's length (1..25).

    Returns
    -------
    list of (int, int, ScoreState)

    Raises
    ------
    InvalidParameterError
        For a length outside 1..25.

    Examples
    --------
    >>> game_list(2)
    [(1, 1, 'post-crawford'), (1, 2, 'crawford'), (1, 2, 'post-crawford'), (2, 2, 'normal')]
    """
    n = _check_length(length)
    games: list[tuple[int, int, ScoreState]] = []
    for total in range(2, 2 * n + 1):
        for a in range(1, n + 1):
            b = total - a
            if not a <= b <= n:
                continue
            if a == 1 and b > 1:
                games += [(1, b, ScoreState.CRAWFORD), (1, b, ScoreState.POST_CRAWFORD)]
            else:
                games.append((a, b, ScoreState.POST_CRAWFORD if a == 1 else ScoreState.NORMAL))
    return games


def _key(a: int, b: int, kind: str) -> str:
    return f"{a},{b},{kind}"


class _Leaves:
    """``mwc(a, b, kind)`` from the finished games' records (mirrors by symmetry)."""

    def __init__(self, records: dict[str, Any]) -> None:
        self.records = records

    def __call__(self, a: int, b: int, kind: str) -> float:
        kind = ScoreState.POST_CRAWFORD if kind == ScoreState.DMP else ScoreState(kind)
        if a <= b:
            return float(self.records[_key(a, b, kind)]["mwc"])
        return 1.0 - float(self.records[_key(b, a, kind)]["mwc"])


def _solve_record(
    checkers: int, a: int, b: int, kind: str, leaves: dict[str, Any], tolerance: float,
    store_root: str | None, keep: bool, *, progress: bool = False,
) -> dict[str, Any]:
    """Solve one game of a MET build; its record (a picklable task for Dask)."""
    st: Store | bool = Store(store_root) if (keep and store_root is not None) else False
    sol = solve_game(checkers, (a, b), kind, _Leaves(leaves), tolerance=tolerance, store=st,
                     progress=progress)
    mwc, gam = sol.opening()
    return {"mwc": mwc, "gammons": list(gam), "residual": sol.residual,
            "sweeps": len(sol.residuals), "seconds": sol.seconds, "states": sol.states.n}


def _met_identity(c: int, tol: float) -> dict[str, Any]:
    return {"kind": "met", "checkers": c, "tolerance": tol}


def hyper_met(
    checkers: int = 3,
    length: int = 9,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    scheduler: str | None = None,
    store: Store | str | os.PathLike[str] | bool | None = None,
    keep_tables: bool | None = None,
    progress: bool = False,
) -> MET:
    """The exact match equity table of ``checkers``-checker Hypergammon.

    Parameters
    ----------
    checkers : {1, 2, 3}
    length : int
        Largest away score (1..25).
    tolerance : float
        Convergence tolerance of every game's solve (the largest residual is in the
        table's description and ``metadata["residual"]``).
    scheduler : str, optional
        Run the games of each anti-diagonal on Dask (``local``, ``local:N`` or a scheduler
        address; :func:`mathbg._dask.dask_client`); default in this process.
    store : Store, path, bool or None
        Where the finished games are recorded (and resumed from); default the cache.
    keep_tables : bool, optional
        Also keep every game's full table (default for 1 and 2 checkers; 3 checkers need
        about 1 GB a game).
    progress : bool
        Show a bar over the games (and each game's sweeps when run here).

    Returns
    -------
    MET
        ``name="hypergammon{checkers}"``; ``frames["games"]`` holds each game's opening
        MWC, gammon rates under optimal play, residual, sweeps and seconds, ``metadata``
        the largest residual and the total time.

    Examples
    --------
    >>> met = hyper_met(1, 3, store=False)
    >>> round(met.mwc((2, 2)), 6)
    0.5
    """
    c, n, tol = check_checkers(checkers), _check_length(length), check_tolerance(tolerance)
    st = as_store(store)
    keep = (c < 3) if keep_tables is None else bool(keep_tables)
    ident = _met_identity(c, tol)
    name = f"met-c{c}-{digest(ident)}"
    records = st.records(name, ident) if st is not None else {}
    todo = [g for g in game_list(n) if _key(*g) not in records]
    root = str(st.root) if st is not None else None
    for rec_key, rec in _run_games(c, todo, records, tol, root, keep, scheduler, progress):
        records[rec_key] = rec
        if st is not None:
            st.add_record(name, ident, rec_key, rec)
    return _assemble(c, n, tol, records)


def _run_games(
    c: int, todo: list[tuple[int, int, ScoreState]], records: dict[str, Any], tol: float,
    root: str | None, keep: bool, scheduler: str | None, progress: bool,
) -> Iterator[tuple[str, dict[str, Any]]]:
    """Solve the games left, anti-diagonal by anti-diagonal; yield each record."""
    bar: Any = None
    # a game's work is about (per-pair plays + its cube states) sweeps of every pair
    # (measured: a state costs a fifteenth of a pair's plays), so the bar and its ETA
    # count that, not games of very different sizes
    work = {g: _WORK_PER_PAIR + len(reachable_states(*g)) for g in todo}
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=sum(work.values()), desc=f"hypergammon{c} MET", unit="work",
                   leave=False, bar_format="{l_bar}{bar}| [{elapsed}<{remaining}{postfix}]")
    diagonals: dict[int, list[tuple[int, int, ScoreState]]] = {}
    for g in todo:
        diagonals.setdefault(g[0] + g[1], []).append(g)
    try:
        if scheduler is None:
            for games in diagonals.values():
                for a, b, kind in games:
                    rec = _solve_record(c, a, b, kind, dict(records), tol, root, keep,
                                        progress=progress)
                    records[_key(a, b, kind)] = rec
                    yield _key(a, b, kind), rec
                    if bar is not None:
                        bar.update(work[(a, b, kind)])
        else:
            yield from _run_dask(c, diagonals, records, tol, root, keep, scheduler, bar, work)
    finally:
        if bar is not None:
            bar.close()


def _run_dask(
    c: int, diagonals: dict[int, list[tuple[int, int, ScoreState]]], records: dict[str, Any],
    tol: float, root: str | None, keep: bool, scheduler: str, bar: Any,
    work: dict[tuple[int, int, ScoreState], int],
) -> Iterator[tuple[str, dict[str, Any]]]:
    from mathbg._dask import as_finished, dask_client

    with dask_client(scheduler) as client:
        for games in diagonals.values():
            leaves = dict(records)
            keys = [_key(a, b, kind) for a, b, kind in games]
            futures = [client.submit(_solve_record, c, a, b, str(kind), leaves, tol, root, keep,
                                     pure=False) for a, b, kind in games]
            for i, rec in as_finished(client, futures, "Hypergammon MET build"):
                records[keys[i]] = rec
                yield keys[i], rec
                if bar is not None:
                    bar.update(work[games[i]])


def _assemble(c: int, n: int, tol: float, records: dict[str, Any]) -> MET:
    """The MET from the games' records, with the gammon rates and the residuals."""
    import pandas as pd

    leaves = _Leaves(records)
    pre = np.empty((n, n))
    for a in range(1, n + 1):
        for b in range(1, n + 1):
            kind = game_kind(a, b, crawford=(a == 1) != (b == 1))
            pre[a - 1, b - 1] = leaves(a, b, kind)
    post = np.array([1.0 - leaves(1, m, ScoreState.POST_CRAWFORD) for m in range(1, n + 1)])
    rows = []
    for key, rec in sorted(records.items()):
        first, second, game = key.split(",")
        if int(first) <= n and int(second) <= n:
            rows.append({"away": (int(first), int(second)), "game": game, "mwc": rec["mwc"],
                         "gammon_win": rec["gammons"][0], "gammon_lose": rec["gammons"][1],
                         "residual": rec["residual"], "sweeps": rec["sweeps"],
                         "seconds": rec["seconds"]})
    frame = pd.DataFrame(rows)
    residual = float(frame["residual"].max())
    desc = (f"exact {c}-checker Hypergammon match equities, solved by mathbg (value "
            f"iteration, tolerance {tol:g}, largest residual {residual:.3g})")
    return MET(
        pre=pre, post=post, name=f"hypergammon{c}", source=desc, model="hypergammon",
        parameters={"checkers": float(c), "tolerance": tol},
        title=f"Hypergammon {c} exact", description=desc,
        notes=f"convergence residual {residual:.3g} (tolerance {tol:g})",
        metadata={"checkers": c, "tolerance": tol, "residual": residual,
                  "seconds": float(frame["seconds"].sum()), "games": len(frame)},
        frames={"games": frame},
    )


# ------------------------------------------------------------------------------ queries


def solve_score(
    away: tuple[int, int],
    *,
    checkers: int = 3,
    crawford: bool = False,
    met: MET | str | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    scheduler: str | None = None,
    store: Store | str | os.PathLike[str] | bool | None = None,
    progress: bool = False,
) -> ScoreSolution:
    """The exact solution of the game at ``away`` (the side on roll needing ``away[0]``).

    Parameters
    ----------
    away : (int, int)
    checkers : {1, 2, 3}
    crawford : bool
        With a side 1-away: the Crawford game instead of a post-Crawford one.
    met : MET or str, optional
        The table for the scores after this game; default the exact Hypergammon MET (its
        lower scores are solved first: :func:`hyper_met`).
    tolerance, scheduler, store, progress :
        As :func:`hyper_met`.

    Returns
    -------
    ScoreSolution

    Raises
    ------
    InvalidScoreError
        For a score beyond 25-away, or not a score.

    Examples
    --------
    >>> sol = solve_score((2, 3), checkers=1, store=False)
    >>> sol.kind, sol.residual <= sol.tolerance
    ('normal', True)
    """
    a, b = away_score(away)
    if max(a, b) > MAX_LENGTH:
        raise InvalidScoreError(f"away {a},{b}: the exact solver goes to {MAX_LENGTH}-away")
    kind = game_kind(a, b, crawford)
    c = check_checkers(checkers)
    if met is None:
        table = hyper_met(c, max(a, b), tolerance=tolerance, scheduler=scheduler, store=store,
                          progress=progress)
        mwc = met_mwc(table)
    else:
        from mathbg.met.catalogue import as_met

        mwc = met_mwc(as_met(met))
    return solve_game(c, (a, b), kind, mwc, tolerance=tolerance, store=store, progress=progress)


def cube_action(
    position: Position | str,
    away: tuple[int, int],
    *,
    checkers: int = 3,
    cube: int = 1,
    owner: CubeOwner | str = CubeOwner.CENTRE,
    crawford: bool = False,
    met: MET | str | None = None,
    tolerance: float = DEFAULT_TOLERANCE,
    store: Store | str | os.PathLike[str] | bool | None = None,
    progress: bool = False,
) -> HyperDecision:
    """The exact cube action of a Hypergammon position at a match score.

    Parameters
    ----------
    position : Position or str
        The position (side on roll's view) or its Position ID.
    away : (int, int)
        Points the side on roll and the opponent need.
    checkers, crawford, met, tolerance, store, progress :
        As :func:`solve_score`.
    cube, owner :
        The cube (a power of two) and who holds it (``centre``: cube 1).

    Returns
    -------
    HyperDecision

    Examples
    --------
    One checker at 2-away/2-away: every win is a gammon and wins the match, so the cube
    changes nothing and the roller plays on (his MWC is his chance to win the game):

    >>> d = cube_action("AACAAAAAAgAAAA", (2, 2), checkers=1, store=False)
    >>> str(d.action), round(d.optimal, 4)
    ('too good, pass', 0.6016)
    """
    from mathbg.rules.variations import hypergammon_position

    c = check_checkers(checkers)  # every input is checked before any solving
    pos = hypergammon_position(position, c)
    space(c).pair(pos)
    a, b = away_score(away)
    check_state(cube, owner, (a, b), game_kind(a, b, crawford))
    check_tolerance(tolerance)
    sol = solve_score((a, b), checkers=c, crawford=crawford, met=met, tolerance=tolerance,
                      store=store, progress=progress)
    return sol.decision(pos, cube, owner)
