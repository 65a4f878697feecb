"""gnubg 1.07's cubeful n-ply analysis of a match in mathbg's kernels: its cube decisions,
its checker play and its luck with gnubg's numbers, without the gnubg program.

gnubg's ``analyse match`` at n plies values

- each cube decision by ``GeneralCubeDecisionE``: the recursion of
  ``EvaluatePositionCubeful4`` over the 21 rolls, each roll's best play found by
  ``FindBestMoveInEval`` (the pruning networks, then the cubeful 0-ply value), the
  positions ``n`` plies down valued by the networks and ``Cl2CfMatch``, with the cube
  states of no double and double/take carried through every level
  (:mod:`mathbg.analysis.match_audit._search`);
- each roll's plays by ``FindnSaveBestMoves`` with the analysis move filter
  (:data:`MOVE_FILTER`, gnubg's default ``MOVEFILTER_LARGE``): every play at 0 plies, then
  the best 16 within 0.32 EMG of the best at n plies, unless only the best is left (it
  keeps its 0-ply value); the play made is always valued at the deepest ply reached, and
  when only the best was kept and the play made is more than :data:`DOUBTFUL` behind it,
  both are valued at n plies;
- each roll's luck at 0 plies (``ecLuck``), as the 0-ply audit does.

:func:`search_values` does this for a match; :class:`SearchEvaluator` is the audit's
engine that uses it (``mathbg audit --plies 2``). Tested decision by decision against the
gnubg program's own analysis documents (tests/test_match_search.py).

References
----------
GNU Backgammon 1.07: eval.c (``EvaluatePositionCubeful4``, ``FindBestMoveInEval``,
``ScoreMove``, ``FindnSaveBestMoves``, ``GeneralCubeDecisionE``, ``MakeCubePos``,
``GetECF3``), analysis.c (``AnalyzeMove``, ``LuckAnalysis``).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import BatchEvaluator, Evaluation
from mathbg.analysis.match_audit import single
from mathbg.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.match_audit.checker import MatchValues, TurnValues
    from mathbg.analysis.match_audit.cube import CubePoint
    from mathbg.analysis.match_audit.turns import Turn
    from mathbg.met.table import MET
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position
    from mathbg.rules.record import MatchRecord

__all__ = ["DOUBTFUL", "MAX_PLIES", "MOVE_FILTER", "SearchEvaluator", "search_values"]

#: The deepest search: gnubg's move filter between 2 and 3 plies evaluates at 2 plies
#: (``{0, 2, 0.04}``), which this module does not do.
MAX_PLIES = 2

#: gnubg's default analysis move filter (``MOVEFILTER_LARGE``) at 1 and 2 plies: per ply
#: below the top, ``(accept, extra, threshold)``; accept -1 skips the ply.
MOVE_FILTER: dict[int, tuple[tuple[int, int, float], ...]] = {
    1: ((0, 16, 0.32),),
    2: ((0, 16, 0.32), (-1, 0, 0.0)),
}

#: gnubg's "doubtful" mark (``arSkillLevel[SKILL_DOUBTFUL]``, EMG): the play made that far
#: behind the only play kept is valued at the top ply with the best.
DOUBTFUL = 0.04

F32 = np.float32
U8 = NDArray[np.uint8]


def _state(level: int, owner: int, move: int) -> int:
    """A state's row in :func:`~mathbg.analysis.match_audit.single.search_tables`."""
    return (level * 3 + owner + 1) * 2 + move


@dataclass(frozen=True)
class _Score:
    """One score's tables (away, lowest cube, Crawford)."""

    tables: tuple[Any, ...]
    live: NDArray[np.float32]
    number: int  # the node cache's key of the tables


#: Each score's tables a number of its own (in this process and the workers it forks).
_NUMBERS = itertools.count(1)


class _Tables:
    """The scores' tables, built once each."""

    def __init__(self, met: MET, plies: int) -> None:
        self.met, self.plies = met, plies
        self._kept: dict[tuple[tuple[int, int], int, bool], _Score] = {}

    def get(self, away: tuple[int, int], cube: int, crawford: bool) -> _Score:
        key = (away, cube, crawford)
        got = self._kept.get(key)
        if got is None:
            tables, _ = single.search_tables(self.met, away, cube, crawford, self.plies + 3)
            got = self._kept[key] = _Score(tables, np.zeros((2, tables[0].shape[1]), F32),
                                           next(_NUMBERS))  # fmt: skip
        return got


def _run(score: _Score, boards: U8, movers: NDArray[np.int64], plies: int,
         top: bool) -> tuple[NDArray[np.float32], NDArray[np.float32]]:  # fmt: skip
    """The kernel over boards of one score, the workspace and the plays' scratch enlarged
    until they fit."""
    from mathbg._native import compiled
    from mathbg.analysis.match_audit import _layout
    from mathbg.analysis.net.engine import search_state
    from mathbg.rules.movegen import workspace

    kernel = compiled("audit_search")
    if kernel is None:
        from mathbg.analysis.match_audit import _search

        kernel = _search.evaluate_into

    model, work, cache, ws, pruning, two_sided = search_state()
    out_p = np.empty((boards.shape[0], 5), F32)
    out_v = np.empty((boards.shape[0], 2), F32)
    sx = getattr(_SCRATCH, "sx", None) or _layout.search_scratch()
    nodes = getattr(_SCRATCH, "nodes", None)
    if nodes is None:
        nodes = _SCRATCH.nodes = _layout.node_cache()
    # exactly the compiled kernel's argument types: it does not check them
    boards = np.ascontiguousarray(boards, dtype=np.uint8)
    movers = np.ascontiguousarray(movers, dtype=np.int64)
    while True:
        _SCRATCH.sx = sx
        nodes[4][2] = score.number % (1 << 30)
        ctx = (model, work, ws, cache, score.live, pruning, two_sided, sx, nodes)
        got = kernel(boards, movers, int(plies), bool(top), score.tables, ctx, out_p, out_v)
        if got == _layout.SEARCH_DONE:
            return out_p, out_v
        if got == _layout.SEARCH_WORKSPACE:
            ws = workspace(grow=True)
        else:
            sx = _layout.search_scratch(2 * sx[0].shape[0])


#: Each thread's scratch arrays of the kernels, made once (grown when a roll has more
#: plays).
_SCRATCH = threading.local()


Values = tuple[NDArray[np.float32], NDArray[np.float32]]


def _run_jobs(jobs: list[tuple[_Score, U8, NDArray[np.int64], bool]], plies: int,
              bar: Any = None) -> list[Values]:  # fmt: skip
    """Each job's (one score's boards, their states, cube decisions or plays) chances and
    values, the bar advanced by its boards."""
    out = []
    for score, boards, movers, top in jobs:
        out.append(_run(score, boards, movers, plies, top))
        if bar is not None:
            bar.update(len(boards))
    return out


def _cube_state(m: MatchState, player: int) -> tuple[tuple[int, int], int, bool, int]:
    """(away, cube, Crawford, state row) of ``player`` on roll."""
    ci = single.match_cube_info(m, player)
    return ci.away, ci.cube, ci.crawford, _state(0, ci.owner, ci.move)


# ----------------------------------------------------------------------------- cube


def cube_values(
    points: Sequence[CubePoint], met: MET, plies: int, tables: _Tables | None = None, *,
    bar: Any = None,
) -> list[tuple[list[float], float, float]]:  # fmt: skip
    """gnubg's n-ply cube decision of each point: the roller's chances, the MWC of no
    double and of double/take (``GeneralCubeDecisionE``).

    Parameters
    ----------
    points : sequence of CubePoint
        The decisions (:func:`~mathbg.analysis.match_audit.cube.cube_points`).
    met : MET
        The match equity table.
    plies : int
        1 or 2.
    tables : optional
        The scores' tables (internal: shared with the checker play).
    bar : tqdm, optional
        Advanced by the positions valued.

    Returns
    -------
    list of (chances, no double, double/take)
        One per point, as :func:`~mathbg.analysis.match_audit.cube.given_values` takes
        them.

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> from mathbg.rules.formats.example import example_match
    >>> from mathbg.analysis.match_audit.cube import cube_points
    >>> probs, nd, dt = cube_values(cube_points(example_match())[:1], as_met("kazaross-xg2"), 1)[0]
    >>> 0.4 < probs[0] < 0.6 and 0.4 < nd < 0.6
    True
    """
    tables = tables or _Tables(met, plies)
    keys: dict[tuple[Any, ...], int] = {}
    groups: dict[tuple[Any, ...], list[int]] = {}
    index = []
    for p in points:
        away, cube, crawford, s = _cube_state(p.match, p.roller)
        key = (p.position.cells, away, cube, crawford, s)
        if key not in keys:
            keys[key] = len(keys)
            groups.setdefault((away, cube, crawford), []).append(keys[key])
        index.append(keys[key])
    flat = list(keys)
    probs = np.zeros((len(flat), 5), F32)
    values = np.zeros((len(flat), 2), F32)
    jobs = [(tables.get(*key), np.array([np.frombuffer(flat[r][0], dtype=np.uint8)
                                         for r in rows]),
             np.array([flat[r][4] for r in rows], dtype=np.int64), True)
            for key, rows in groups.items()]  # fmt: skip
    results = _run_jobs(jobs, plies, bar)
    for rows, (got_p, got_v) in zip(groups.values(), results, strict=True):
        probs[rows], values[rows] = got_p, got_v
    return [([float(x) for x in probs[k]], float(values[k, 0]), float(values[k, 1]))
            for k in index]  # fmt: skip


# ----------------------------------------------------------------------------- plays


def _kept(equity: NDArray[np.float32], plies: int) -> int:
    """How many of the plays (best first at 0 plies) the move filter keeps for the top
    ply (1: only the best, which keeps its 0-ply value)."""
    accept, extra, threshold = MOVE_FILTER[plies][0]
    n = equity.shape[0]
    kept = min(accept, n)
    floor = equity[0] - F32(threshold)
    while kept < min(n, accept + extra) and not equity[kept] < floor:
        kept += 1
    return int(kept)


@dataclass
class _Plan:
    """One roll's rows to value at the top ply and how to rank them after."""

    rows: list[int]
    top: int  # the rows ranked among the top-ply values: the first ``top`` after sorting


def _plan(tv: TurnValues, plies: int) -> _Plan:
    """``FindnSaveBestMoves``' choice of the plays valued at n plies (see the module
    notes)."""
    if tv.legal <= 1:
        return _Plan([], 0)
    eq = tv.equity.astype(F32)
    kept = _kept(eq, plies)
    played = tv.played
    if kept > 1:
        rows = list(range(kept))
        if played >= kept:
            rows.append(played)
        return _Plan(rows, kept)
    if played > 0 and abs(eq[played] - eq[0]) > F32(DOUBTFUL):
        return _Plan([0, played], 1)
    return _Plan([], 0)


def _single(probs: NDArray[np.float64]) -> NDArray[np.float64]:
    """The 0-ply chances of the roller as gnubg keeps them: ``1 - W`` in single precision
    (the 0-ply audit turns them round in double)."""
    return probs.astype(F32).astype(np.float64)


def _ranked(tv: TurnValues, plan: _Plan, eq: NDArray[np.float32], eq2: NDArray[np.float32],
            probs: NDArray[np.float64]) -> TurnValues:  # fmt: skip
    """The roll's plays in gnubg's order: the ones valued at n plies first (sorted by
    their value, then their cubeless value), the play made among them, the others in
    their 0-ply order."""
    order = list(range(tv.plays))
    equity = tv.equity.astype(np.float64).copy()
    p = _single(tv.probs)
    second = np.full(tv.plays, -np.inf)
    for j, r in enumerate(plan.rows):
        equity[r], second[r], p[r] = float(eq[j]), float(eq2[j]), probs[j]
    head = order[: plan.top]
    if tv.played >= plan.top and tv.played in plan.rows:
        head.append(tv.played)
    elif plan.top == 1 and len(plan.rows) == 2:
        head.append(plan.rows[1])
    tail = [i for i in order if i not in head]
    # qsort with gnubg's CompareMoves: the larger value first, ties to the larger cubeless
    # value, equal ones in the order given
    head.sort(key=lambda i: (-F32(equity[i]), -F32(second[i])))
    rank = head + tail
    idx = np.array(rank, dtype=np.int64)
    return replace(tv, results=tv.results[idx], equity=equity[idx], mwc=None, probs=p[idx],
                   played=rank.index(tv.played) if tv.played >= 0 else -1)  # fmt: skip


def play_values(
    turns: Sequence[Turn], zero: Sequence[TurnValues], met: MET, plies: int,
    tables: _Tables | None = None, *, bar: Any = None,
) -> list[TurnValues]:  # fmt: skip
    """Each roll's plays valued as gnubg's analysis does at n plies (see the module notes).

    Parameters
    ----------
    turns : sequence of Turn
        The rolls.
    zero : sequence of TurnValues
        Their 0-ply values (the native engine's, as gnubg's: best first).
    met : MET
        The match equity table.
    plies : int
        1 or 2.
    tables : optional
        The scores' tables (internal: shared with the cube decisions).
    bar : tqdm, optional
        Advanced by the positions valued.

    Returns
    -------
    list of TurnValues
        The plays ranked as gnubg ranks them, values in EMG (``mwc`` None, as the gnubg
        program's analysis gives them).
    """
    tables = tables or _Tables(met, plies)
    plans = [_plan(tv, plies) for tv in zero]
    groups: dict[tuple[Any, ...], list[tuple[int, int]]] = {}
    for k, (t, plan) in enumerate(zip(turns, plans, strict=True)):
        if plan.rows:
            away, cube, crawford, _ = _cube_state(t.match, t.player)
            groups.setdefault((away, cube, crawford), []).extend((k, r) for r in plan.rows)
    got: dict[tuple[int, int], tuple[float, float, NDArray[np.float64]]] = {}
    jobs, mover_rows = [], []
    for key, items in groups.items():
        score = tables.get(*key)
        boards = np.array([zero[k].results[r] for k, r in items], dtype=np.uint8)
        boards = np.ascontiguousarray(np.concatenate([boards[:, 25:], boards[:, :25]], axis=1))
        movers = np.array([_cube_state(turns[k].match, turns[k].player)[3] for k, _ in items],
                          dtype=np.int64)  # fmt: skip
        jobs.append((score, boards, score.tables[7][movers], False))
        mover_rows.append(movers)
    results = _run_jobs(jobs, plies, bar)
    for (score, _, _, _), movers, items, (p, v) in zip(jobs, mover_rows, groups.values(),
                                                       results, strict=True):  # fmt: skip
        inv = score.tables[7]
        win, lose = score.tables[4][movers], score.tables[5][movers]
        mwc = F32(1.0) - v[:, 0]
        eq = (F32(2.0) * mwc - (win + lose)) / (win - lose)
        sf = score.tables[1][inv[movers]]
        for j, (k, r) in enumerate(items):
            mine = np.array([1.0 - p[j, 0], p[j, 3], p[j, 4], p[j, 1], p[j, 2]], dtype=F32)
            got[(k, r)] = (float(eq[j]), float(-_utility(p[j], sf[j])),
                           mine.astype(np.float64))  # fmt: skip
    out = []
    for k, (tv, plan) in enumerate(zip(zero, plans, strict=True)):
        if tv.legal == 0:  # a roll that could not be played: no plays valued (as gnubg)
            out.append(replace(tv, equity=np.zeros(1), mwc=None, probs=np.zeros((1, 5)),
                               played=0))  # fmt: skip
            continue
        if not plan.rows:
            out.append(replace(tv, mwc=None, probs=_single(tv.probs)))
            continue
        vals = [got[(k, r)] for r in plan.rows]
        out.append(_ranked(tv, plan, np.array([v[0] for v in vals], F32),
                           np.array([v[1] for v in vals], F32), np.array([v[2] for v in vals])))
    return out


def _utility(p: NDArray[np.float32], sf: NDArray[np.float32]) -> Any:
    """gnubg ``Utility`` of the chances at a state (single precision)."""
    from mathbg.analysis.match_audit import _layout as lay

    base = p[0] + p[0] - F32(1.0)
    return ((p[2] * sf[lay.BP_ME] - p[3] * sf[lay.GP_OP]) + (p[1] * sf[lay.GP_ME] + base)) \
        - p[4] * sf[lay.BP_OP]  # fmt: skip


# ----------------------------------------------------------------------------- a match


def search_values(
    record: MatchRecord, points: Sequence[CubePoint], turns: Sequence[Turn], met: MET,
    plies: int, *, checker: bool = True, luck: bool = True, progress: bool | None = None,
    threads: int | None = None,
) -> MatchValues:  # fmt: skip
    """A match's cube decisions, plays and luck as gnubg's analysis values them at
    ``plies`` (see the module notes).

    Parameters
    ----------
    record : MatchRecord
        The match.
    points : sequence of CubePoint
        Its cube decisions.
    turns : sequence of Turn
        Its rolls (empty without ``checker``).
    met : MET
        The match equity table.
    plies : int
        1 or 2.
    checker, luck : bool, optional
        Value the plays, the luck.
    progress : bool, optional
        A progress bar over the positions searched (default: when the output is a
        terminal).
    threads : int, optional
        Worker processes sharing the search (default: one per CPU, as gnubg's threads;
        one inside a Dask worker). The numbers do not depend on it.

    Returns
    -------
    MatchValues

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> from mathbg.rules.formats.example import example_match
    >>> from mathbg.analysis.match_audit.cube import cube_points
    >>> rec = example_match()
    >>> v = search_values(rec, cube_points(rec), [], as_met("kazaross-xg2"), 1, checker=False)
    >>> len(v.values) == len(v.points)
    True
    """
    from tqdm.auto import tqdm

    from mathbg.analysis.match_audit.checker import MatchValues, turn_values
    from mathbg.analysis.match_audit.cube import given_values
    from mathbg.analysis.net.engine import NativeEvaluator

    _check_plies(plies)
    zero: list[TurnValues] = []
    if checker and turns:  # the 0-ply pass: the move filter's values and the luck
        native = NativeEvaluator()
        zero = turn_values(turns, native, met, luck=luck, two_sided=native.two_sided_database())
    games = sorted({p.game for p in points} | {t.game for t in turns})
    tasks = [([p for p in points if p.game == g],
              [k for k, t in enumerate(turns) if t.game == g]) for g in games]  # fmt: skip
    work = [len({(p.position.cells, _cube_state(p.match, p.roller)) for p in ps})
            + sum(len(_plan(zero[k], plies).rows) for k in ks) for ps, ks in tasks]  # fmt: skip
    bar = tqdm(total=sum(work), desc=f"mathbg {plies}-ply analysis", unit="position",
               disable=None if progress is None else not progress, leave=False)  # fmt: skip
    _GAMES.append((met, plies, [(ps, [turns[k] for k in ks], [zero[k] for k in ks])
                                for ps, ks in tasks]))  # fmt: skip
    done: dict[int, tuple[list[tuple[list[float], float, float]], list[TurnValues]]] = {}
    try:
        workers = min(_workers(threads, plies), len(tasks))
        order = sorted(range(len(tasks)), key=lambda g: -work[g])  # the longest games first
        if workers > 1:
            import multiprocessing

            from mathbg.analysis.net.engine import search_state

            search_state()  # the networks and tables loaded once, before the fork
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                for g, got in zip(order, pool.imap(_game, order), strict=True):
                    done[g] = got
                    bar.update(work[g])
        else:
            for g in order:
                done[g] = _game(g)
                bar.update(work[g])
    finally:
        _GAMES.pop()
        bar.close()
    own = [v for g in range(len(tasks)) for v in done[g][0]]
    by_turn = {k: tv for g, (_, ks) in enumerate(tasks) for k, tv in zip(ks, done[g][1],
                                                                         strict=True)}  # fmt: skip
    tv = [by_turn[k] for k in range(len(turns))] if zero else []
    del record
    return MatchValues(list(points), given_values(points, own, met),
                       list(turns) if checker else [], tv)  # fmt: skip


#: The games the worker processes analyse (set before they are forked).
_GAMES: list[tuple[Any, int, list[tuple[list[Any], list[Any], list[Any]]]]] = []


def _game(g: int) -> tuple[list[tuple[list[float], float, float]], list[TurnValues]]:
    """Game ``g`` of :func:`search_values`' match: its cube decisions, then its plays (the
    cube decision after a play finds the play's 1-ply nodes in the node cache)."""
    met, plies, tasks = _GAMES[-1]
    points, turns, zero = tasks[g]
    tables = _Tables(met, plies)
    tv = play_values(turns, zero, met, plies, tables) if zero else []
    return cube_values(points, met, plies, tables), tv


def _workers(threads: int | None, plies: int) -> int:
    """Worker processes: ``threads``, else gnubg's default for the plies (one per CPU at
    1 ply or more, one inside a Dask worker); one where processes cannot be forked."""
    import multiprocessing

    from mathbg.analysis.gnubg_program import analysis_threads

    if "fork" not in multiprocessing.get_all_start_methods():  # pragma: no cover
        return 1
    return max(1, threads if threads is not None else analysis_threads(plies))


def _check_plies(plies: Any) -> None:
    if isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= MAX_PLIES:
        raise InvalidParameterError(
            f"mathbg's n-ply search analyses at 1 to {MAX_PLIES} plies, got plies={plies!r} "
            f"(deeper: the gnubg engine, the gnubg program)")  # fmt: skip


class SearchEvaluator(BatchEvaluator):
    """The audit's native engine at 1 or 2 plies: gnubg 1.07's n-ply analysis in mathbg's
    kernels (:func:`search_values`), shared among ``threads`` worker processes (default one
    per CPU). Its :meth:`evaluate_many` gives the n-ply chances of positions at their match
    scores (the roller's cube decision's)."""

    name = "native"
    note = "gnubg 1.07's n-ply analysis in mathbg's kernels"
    engine_name = "native"

    def __init__(self, plies: int = 2, threads: int | None = None) -> None:
        _check_plies(plies)
        self.plies: int | None = plies
        self.threads = threads

    def search_values(self, record: MatchRecord, points: Sequence[CubePoint],
                      turns: Sequence[Turn], met: MET, *, checker: bool = True,
                      luck: bool = True, progress: bool | None = None) -> MatchValues:  # fmt: skip
        """:func:`search_values` at this engine's plies and worker processes."""
        return search_values(record, points, turns, met, int(self.plies or 0), checker=checker,
                             luck=luck, progress=progress, threads=self.threads)  # fmt: skip

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        """The n-ply chances of each position (the side on roll's) at its match state (the
        plays chosen with the audit's default table)."""
        from mathbg.analysis.base import check_probabilities, evaluation_class
        from mathbg.analysis.matrix import DEFAULT_MET
        from mathbg.cube.life import cube_life
        from mathbg.met import as_met

        if matches is None or len(matches) != len(positions) or any(m is None for m in matches):
            raise InvalidParameterError(
                "mathbg's n-ply search evaluates positions at a match score: pass each "
                "position's match state")  # fmt: skip
        plies = int(self.plies or 1)
        tables = _Tables(as_met(DEFAULT_MET), plies)
        out = []
        for pos, m in zip(positions, matches, strict=True):
            assert m is not None
            away, cube, crawford, s = _cube_state(m, int(m.on_roll))
            board = np.frombuffer(pos.cells, dtype=np.uint8)[None]
            p, _ = _run(tables.get(away, cube, crawford), board, np.array([s]), plies, True)
            klass = evaluation_class(pos)
            out.append(Evaluation(check_probabilities(p[0].astype(np.float64)), self.name,
                                  plies, klass, cube_life(klass, pos.pips()[0]),
                                  method="gnubg 1.07's n-ply search (mathbg's kernels)"))
        return out
