"""The ``native`` engine: :class:`NativeEvaluator` and :class:`NativePlayer`.

Both evaluate with gnubg 1.07's networks in mathbg's own kernels
(:mod:`mathbg.analysis.net`), at 0 plies: the same five outputs gnubg's ``evaluate``
gives, with nothing to install beyond mathbg. Batches go to the kernels whole: the
evaluator's :meth:`~NativeEvaluator.evaluate_plays` generates and evaluates every play of
many (board, roll) pairs in one call.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import (
    BatchEvaluator,
    Board,
    Candidates,
    Evaluation,
    GameEnd,
    check_probabilities,
    evaluation_class,
)
from mathbg.analysis.net._workspace import (
    ALL_PLAYS,
    BEST_PLAY,
    EVALUATE,
    EVALUATE_CACHED,
    new_cache,
    scratch,
)
from mathbg.cube.life import CONTACT_CUBE_LIFE, cube_life
from mathbg.errors import InvalidParameterError
from mathbg.rules.dice import ROLLS, WEIGHTS

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "NativeEvaluator",
    "NativePlayer",
    "best_plays",
    "cached_outputs",
    "evaluate_boards",
    "play_outputs",
    "search_state",
]

U8 = NDArray[np.uint8]
F64 = NDArray[np.float64]
I64 = NDArray[np.int64]

_LOCAL = threading.local()


def _kernel() -> Any:
    """The engine's one kernel: compiled ahead of time (:mod:`mathbg._native`), else numba's."""
    from mathbg._native import compiled

    run = compiled("net_run")
    if run is None:
        from mathbg.analysis.net._kernels import run
    return run


#: The kernel's modes that read and fill the position cache.
_CACHED_MODES = frozenset({EVALUATE_CACHED, BEST_PLAY})


def _state(cached: bool) -> tuple[Any, Any, Any]:
    """The kernels' model (once a process), and this thread's scratch arrays and position
    cache (a position's 0-ply outputs do not depend on the score: kept for the process;
    made on the first call of a mode that uses it, ``cached``: 9 MB the other modes stand
    in for with a cache of one slot they never read)."""
    from mathbg.analysis.net.tables import model

    work = getattr(_LOCAL, "work", None)
    if work is None:
        work = _LOCAL.work = scratch()
        _LOCAL.cache = None
        _LOCAL.no_cache = new_cache(1)
    if cached and _LOCAL.cache is None:
        _LOCAL.cache = new_cache()
    return model(), work, _LOCAL.cache if cached else _LOCAL.no_cache


def search_state() -> tuple[Any, ...]:
    """What gnubg's n-ply search reads beside the networks
    (:mod:`mathbg.analysis.match_audit.search`): the kernels' model, this thread's scratch
    arrays and position cache, the move generator's workspace, the contact, race and
    crashed pruning networks as :func:`~mathbg.analysis.net._kernels.forward` reads them
    (exact: the search ranks plays by them as gnubg does), and gnubg's two-sided table's
    16-bit equities (924 x 924 x 4).

    Returns
    -------
    tuple
        ``(model, work, cache, workspace, pruning, two_sided)``.

    Examples
    --------
    >>> state = search_state()  # doctest: +SKIP
    >>> state[5].shape  # doctest: +SKIP
    (924, 924, 4)
    """
    from mathbg.analysis.net.tables import pruning_networks, two_sided_table
    from mathbg.rules.movegen import workspace

    model, work, cache = _state(True)
    if getattr(_LOCAL, "two_sided", None) is None:
        _LOCAL.two_sided = np.array(two_sided_table().stored, dtype=np.uint16)  # writable
    return model, work, cache, workspace(), pruning_networks(), _LOCAL.two_sided


def _run(mode: int, boards: U8, rolls: Any = None, weights: Any = None,
         keep: int = 0) -> tuple[Any, ...]:  # fmt: skip
    """The kernel :func:`~mathbg.analysis.net._kernels.run` with the workspace enlarged
    until the move generator fits."""
    from mathbg.rules.movegen import workspace

    # exactly the kernel's argument types: the compiled kernel does not check them
    n = boards.shape[0]
    dice = np.zeros((n, 2), np.int64) if rolls is None else np.ascontiguousarray(
        np.asarray(rolls, dtype=np.int64).reshape(-1, 2))  # fmt: skip
    w = np.zeros((n, 5)) if weights is None else np.ascontiguousarray(
        np.asarray(weights, dtype=np.float64).reshape(-1, 5))  # fmt: skip
    if dice.shape[0] != n or w.shape[0] != n:
        raise InvalidParameterError(
            f"{n} boards need {n} rolls and weights, got {dice.shape[0]} and {w.shape[0]}")
    model, work, cache = _state(mode in _CACHED_MODES)
    ws = workspace()
    run = _kernel()
    while True:
        *out, ok = run(int(mode), boards, dice, w, int(keep), model, work, ws, cache)
        if ok:
            return tuple(out)
        ws = workspace(grow=True)


def _boards(boards: Any) -> U8:
    arr = np.ascontiguousarray(np.asarray(boards, dtype=np.uint8).reshape(-1, 50))
    if arr.size and int(arr.max()) > 15:
        from mathbg.errors import InvalidPositionError

        raise InvalidPositionError("a point holds more than 15 checkers")
    return arr


def evaluate_boards(boards: Any) -> tuple[F64, I64]:
    """gnubg 1.07's 0-ply outputs of many boards, in one kernel call.

    Parameters
    ----------
    boards : uint8 array (n, 50)
        Flat ``TanBoard`` boards (cells 25..49 the side on roll).

    Returns
    -------
    probs : float64 array (n, 5)
        W, WG, WB, LG, LB of the side on roll (gnubg's float32 values).
    classes : int64 array (n,)
        gnubg's position class of each (0 over, 4 two-sided bearoff, 6 one-sided bearoff,
        8 race, 9 crashed, 10 contact).

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> b = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    >>> probs, classes = evaluate_boards(b)
    >>> round(float(probs[0, 0]), 4), int(classes[0])
    (0.5215, 10)
    """
    _, _, probs, classes, _ = _run(EVALUATE, _boards(boards))
    return probs.astype(np.float64), classes


def play_outputs(boards: Any, rolls: Any) -> tuple[I64, U8, F64]:
    """Every distinct legal play of each (board, roll) with gnubg 1.07's 0-ply outputs after
    it, in one kernel call.

    Parameters
    ----------
    boards : uint8 array (n, 50)
        Flat ``TanBoard`` boards, the side to play on roll (cells 25..49).
    rolls : int array (n, 2)
        The dice of each board.

    Returns
    -------
    (ptr, results, probs)
        The plays of board ``i`` are rows ``ptr[i]:ptr[i + 1]``: ``results`` the positions
        they leave with the opponent on roll, ``probs`` the opponent's outputs there (a
        play that bears off the last checker: the finished game's). A roll that cannot be
        played has no rows.

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> b = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    >>> ptr, results, probs = play_outputs(b, np.array([[3, 1]]))
    >>> int(ptr[-1]), results.shape, probs.shape
    (16, (16, 50), (16, 5))
    """
    ptr, results, probs, _, _ = _run(ALL_PLAYS, _boards(boards), rolls)
    return ptr, results, probs.astype(np.float64)


def best_plays(boards: Any, rolls: Any, weights: Any,
               keep: int = 0) -> tuple[U8, NDArray[np.float32], I64, I64]:  # fmt: skip
    """The play with the largest ``outputs @ weights`` of each (board, roll), in one kernel
    call (positions already evaluated in this thread come from its cache).

    Parameters
    ----------
    boards : uint8 array (n, 50)
        The boards, the side to play on roll.
    rolls : int array (n, 2)
        The dice.
    weights : float array (n, 5)
        The mover's weights of the next side's outputs (the largest ``outputs @ weights``
        is played; the first of equals in the move generator's order).
    keep : int, optional
        0: every play valued by the full network; ``k > 0``: gnubg's pruned search, the
        pruning networks rank the plays and only the best ``k`` are valued (when every play
        leaves a position of one network class, as gnubg's ``FindBestMoveInEval`` asks:
        race, crashed or contact; else every play is valued).

    Returns
    -------
    (after, outputs, classes, pips)
        The board after each chosen play (the next side on roll), the next side's float32
        outputs there, its gnubg class (0: the game is over) and the next side's pip count.

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> b = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    >>> after, probs, classes, pips = best_plays(b, [[3, 1]], [[-2.0, -1, -1, 1, 1]])
    >>> int(classes[0]), int(pips[0])
    (10, 167)
    """
    _, after, probs, classes, pips = _run(BEST_PLAY, _boards(boards), rolls,
                                          weights, keep)  # fmt: skip
    return after, probs, classes, pips


def cached_outputs(boards: Any) -> tuple[NDArray[np.float32], I64, I64]:
    """gnubg 1.07's 0-ply outputs of many boards through this thread's position cache.

    Parameters
    ----------
    boards : uint8 array (n, 50)
        Flat ``TanBoard`` boards (cells 25..49 the side on roll).

    Returns
    -------
    (outputs, classes, pips)
        The float32 outputs (as :func:`evaluate_boards`), gnubg's classes and the pip
        counts of the side on roll.

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> b = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    >>> probs, classes, pips = cached_outputs(b)
    >>> int(classes[0]), int(pips[0]), bool(probs[0, 0] == evaluate_boards(b)[0][0, 0])
    (10, 167, True)
    """
    _, _, probs, classes, pips = _run(EVALUATE_CACHED, _boards(boards))
    return probs, classes, pips


def _position_evaluations(positions: Sequence[Position], name: str) -> list[Evaluation]:
    boards = np.array([np.frombuffer(p.cells, dtype=np.uint8) for p in positions],
                      dtype=np.uint8).reshape(-1, 50)  # fmt: skip
    probs, _ = evaluate_boards(boards)
    out = []
    for pos, row in zip(positions, probs, strict=True):
        klass = evaluation_class(pos)
        out.append(Evaluation(check_probabilities(row), name, 0, klass,
                              cube_life(klass, pos.pips()[0]),
                              method="gnubg 1.07 networks (mathbg's kernels)"))  # fmt: skip
    return out


class NativeEvaluator(BatchEvaluator):
    """gnubg 1.07's 0-ply evaluation in mathbg's own kernels (no extra to install).

    Parameters
    ----------
    plies : int, optional
        0 (the only depth this engine evaluates).

    Raises
    ------
    InvalidParameterError
        For plies other than 0.

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> ev = NativeEvaluator().evaluate(Position.initial())
    >>> ev.engine, round(ev.win, 4)
    ('native', 0.5215)
    """

    name = "native"

    def __init__(self, plies: int = 0) -> None:
        if isinstance(plies, bool) or int(plies) != plies or plies != 0:
            raise InvalidParameterError(
                f"the native engine evaluates positions at 0 plies, got plies={plies!r} "
                "(deeper: --engine gnubg, the gnubg program, or --engine gnubg-nn; a "
                "match's audit takes --engine native at 1 or 2 plies)"
            )
        self.plies: int | None = 0

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        return _position_evaluations(positions, self.name)

    def evaluate_plays(self, boards: U8, rolls: I64) -> tuple[I64, U8, F64]:
        """Every play of each (board, roll) with its 0-ply outputs (:func:`play_outputs`)."""
        return play_outputs(boards, rolls)

    def board_chances(self, boards: U8) -> F64:
        """The chances :meth:`evaluate_many` gives, of boards (flat ``TanBoard``, the side
        on roll in cells 25-49; games not over), in one call and without positions."""
        from mathbg.analysis.base import clip_chances

        return clip_chances(evaluate_boards(boards)[0])

    def two_sided_database(self) -> Any:
        """gnubg's 16-bit two-sided 6 x 6 table this engine reads (gnubg backs the cube life
        of its bearoffs out of it)."""
        from mathbg.analysis.net.tables import two_sided_table

        return two_sided_table()


_ROLL_WEIGHTS = np.array([float(w) for w in WEIGHTS]) / 36.0


def _cells(board: Board) -> U8:
    return np.array([*board[0], *board[1]], dtype=np.uint8)


def _after(cells: bytes) -> Board | GameEnd:
    """The board after a play (opponent on roll), or the game's end when the mover (row 0
    now) has borne off."""
    row0, row1 = tuple(cells[:25]), tuple(cells[25:])
    if any(row0):
        return (row0, row1)
    if sum(row1) == 15:
        return GameEnd(True, 3 if any(row1[18:]) else 2)
    return GameEnd(True, 1)


def _equity(p: Sequence[float]) -> float:
    return float(2 * p[0] - 1 + p[1] + p[2] - p[3] - p[4])


class NativePlayer:
    """gnubg 1.07's networks playing at 0 plies: the candidate with the largest cubeless
    equity (the first of equals, in the move generator's order).

    Parameters
    ----------
    plies : int, optional
        0 (the only depth this engine plays at).

    Raises
    ------
    InvalidParameterError
        For plies other than 0.
    """

    name = "native"
    own_cube = False
    label = "native 0-ply (gnubg 1.07 networks)"

    def __init__(self, plies: int = 0) -> None:
        NativeEvaluator(plies)
        self.plies = 0

    def chances(self, board: Board) -> tuple[float, float, float, float, float]:
        """The network's 0-ply chances of the side on roll."""
        probs, _ = evaluate_boards(_cells(board)[None])
        return check_probabilities(probs[0])

    def cube_life(self, board: Board) -> float:
        """gnubg 1.07's 0-ply cube life of the board's class."""
        _, classes = evaluate_boards(_cells(board)[None])
        klass = int(classes[0])
        if klass >= 9:
            return CONTACT_CUBE_LIFE
        if klass == 8:
            pips = sum((i + 1) * c for i, c in enumerate(board[1]))
            return float(cube_life("race", pips))
        return cube_life("bearoff")

    def candidates(self, board: Board, d1: int, d2: int, plies: int | None = None) -> Candidates:
        """Every play of the roll with the next side's 0-ply chances after it (a roll that
        cannot be played: the one "play" that passes the turn)."""
        if plies:
            NativeEvaluator(plies)
        cells = _cells(board)
        ptr, results, probs = play_outputs(cells[None], np.array([[d1, d2]]))
        if ptr[-1] == 0:
            stay = np.concatenate([cells[25:], cells[:25]])
            p, _ = evaluate_boards(stay[None])
            return Candidates(p, [stay.tobytes()], _after)
        return Candidates(probs, [r.tobytes() for r in results], _after)

    def play(
        self, board: Board, d1: int, d2: int, u: float, noise: np.random.Generator
    ) -> Board | GameEnd:
        """The play with the largest 0-ply cubeless equity."""
        cands = self.candidates(board, d1, d2)
        eq = cands.chances @ np.array([2.0, 1.0, 1.0, -1.0, -1.0]) - 1.0
        return _after(cands.keys[int(np.argmin(eq))])

    def roll_equities(self, board: Board) -> tuple[float, ...]:
        """The roller's 0-ply cubeless equity after its best play for each of the 21 rolls,
        and their dice-weighted mean last."""
        cells = _cells(board)
        boards = np.repeat(cells[None], len(ROLLS), axis=0)
        ptr, _, probs = play_outputs(boards, np.array(ROLLS, dtype=np.int64))
        eqs = []
        for r in range(len(ROLLS)):
            rows = probs[ptr[r] : ptr[r + 1]]
            if len(rows):
                eqs.append(-min(_equity(p) for p in rows))
            else:
                stay = np.concatenate([cells[25:], cells[:25]])
                p, _ = evaluate_boards(stay[None])
                eqs.append(-_equity(p[0]))
        return (*eqs, float(np.dot(_ROLL_WEIGHTS, eqs)))


