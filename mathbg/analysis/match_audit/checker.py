"""Checker play and luck of every turn of a match, from an engine's cubeless chances.

For each turn (:class:`~mathbg.analysis.match_audit.turns.Turn`) every legal play of the
roll is valued at the score (:func:`~mathbg.analysis.match_audit.plays.play_values`: gnubg's
0-ply cubeful score, in EMG), the plays are ranked (the higher value first, ties by the
cubeless value) and the play made is found among them. The luck of the roll is its best
play's value minus the mean over all rolls of their best plays' values, as gnubg 1.07's
``LuckAnalysis`` computes it at 0 plies:

- ``LuckNormal``: the mean over the 36 rolls (the 21 distinct ones, non-doubles twice);
- ``LuckFirst``, for a non-double rolled from the starting position: the mean over the 30
  non-doubles, 15 as the roller's and 15 as the opponent's (seen from the roller: minus
  the opponent's best value at the opponent's score).

A roll that cannot be played is valued by the position itself, the opponent on roll.

The engines: one that values all the plays of many (board, roll) pairs in one call
(``evaluate_plays(boards, rolls)``, as the ``gnubg-nn`` engine does in C) is used directly;
any other evaluator gets the plays from mathbg's move generator
(:func:`mathbg.rules.movegen.successors`) and evaluates the positions they leave with its
``evaluate_many``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.match_audit.plays import F64, I64, PlayValues, ScoreStates, invert, play_values
from mathbg.analysis.match_audit.turns import Turn, score_states
from mathbg.rules.dice import ROLLS

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.analysis.base import Evaluator
    from mathbg.analysis.match_audit.cube import CubePoint, DoublerValues
    from mathbg.met.table import MET

__all__ = ["ROLL_WEIGHTS", "MatchValues", "TurnValues", "deeper", "turn_values"]

#: Weight of each of :data:`mathbg.rules.dice.ROLLS` among the 36 (doubles 1, others 2).
ROLL_WEIGHTS: NDArray[np.float64] = np.array([1.0 if a == b else 2.0 for a, b in ROLLS])
_ROLL_INDEX = {r: i for i, r in enumerate(ROLLS)}
_NON_DOUBLES = [i for i, (a, b) in enumerate(ROLLS) if a != b]
_ALL_ROLLS = list(range(len(ROLLS)))
_ROLLER = [0] * len(ROLLS)
_OPENING_SIDES = [0] * len(_NON_DOUBLES) + [1] * len(_NON_DOUBLES)
_ROLL_ARRAY = np.array(ROLLS, dtype=np.int64).reshape(-1, 2)


@dataclass(frozen=True)
class TurnValues:
    """The engine's view of one turn's checker play and luck.

    Attributes
    ----------
    results : uint8 array (n, 50)
        The positions the roll's plays leave (the roller's view), best first.
    equity : float array (n,)
        Each play's value for the roller (EMG; money: equity per unit cube).
    mwc : float array (n,) or None
        The same as match winning chances (None for money).
    probs : float array (n, 5)
        The roller's cubeless outputs after each play.
    played : int
        The row of the play made (-1: none of them, e.g. a roll left unplayed).
    luck : float or None
        The roll's luck (EMG; money: per unit cube); None when not computed.
    legal : int
        The number of legal plays: 0 when the roll could not be played (then the one row
        is the position itself).
    """

    results: NDArray[np.uint8]
    equity: F64
    mwc: F64 | None
    probs: F64
    played: int
    luck: float | None
    legal: int

    @property
    def plays(self) -> int:
        """The number of rows (at least 1: the position itself when nothing could be
        played)."""
        return int(self.equity.shape[0])


@dataclass(frozen=True)
class MatchValues:
    """An engine's values of one match: its cube points and their values, its rolls and
    theirs (empty without checker analysis)."""

    points: list[CubePoint]
    values: list[DoublerValues]
    turns: list[Turn]
    turn_values: list[TurnValues]


# ----------------------------------------------------------------------------- tasks


@dataclass(frozen=True)
class _Tasks:
    """Boards to play (the mover on roll) with a roll and the mover's state."""

    boards: NDArray[np.uint8]
    rolls: I64
    states: ScoreStates
    turn: I64  # the turn each task belongs to
    roll: I64  # index into ROLLS
    side: I64  # 0: the roller's roll, 1: the opponent's (LuckFirst)


def _tasks(turns: Sequence[Turn], luck: bool) -> _Tasks:
    n = len(turns)
    rolls_of = [[_ROLL_INDEX[t.dice]] if not luck
                else _NON_DOUBLES * 2 if t.opening else _ALL_ROLLS for t in turns]  # fmt: skip
    sides_of = [[0] if not luck else _OPENING_SIDES if t.opening else _ROLLER for t in turns]
    counts = np.array([len(r) for r in rolls_of], dtype=np.int64)
    turn = np.repeat(np.arange(n, dtype=np.int64), counts)
    roll = np.array([r for rs in rolls_of for r in rs], dtype=np.int64)
    side = np.array([s for ss in sides_of for s in ss], dtype=np.int64)
    cells = np.frombuffer(b"".join(t.position.cells for t in turns), dtype=np.uint8)
    # each turn's state seen by its roller (rows 0..n-1) and by the opponent (n..2n-1)
    players = [t.player for t in turns]
    both = score_states([t.match for t in turns] * 2, players + [1 - p for p in players])
    return _Tasks(cells.reshape(n, 50)[turn], _ROLL_ARRAY[roll], both.take(turn + n * side),
                  turn, roll, side)  # fmt: skip


# ----------------------------------------------------------------------------- engines


def _swap(boards: NDArray[np.uint8]) -> NDArray[np.uint8]:
    return np.ascontiguousarray(np.concatenate([boards[:, 25:], boards[:, :25]], axis=1))


def _evaluate_boards(evaluator: Evaluator, boards: NDArray[np.uint8]) -> F64:
    """The engine's outputs for boards (the side on roll in cells 25-49)."""
    from mathbg.rules.position import make_position
    from mathbg.rules.ruleset import classify_result

    out = np.zeros((boards.shape[0], 5))
    # a play that bears off the last checker ends the game: its result is exact (gnubg's
    # EvalOver at any ply), and no engine evaluates a finished game
    over = boards[:, :25].sum(axis=1) == 0
    for i in np.flatnonzero(over):
        kind = int(classify_result(make_position(bytes(_swap(boards[i:i + 1])[0]))) or 1)
        out[i, 3:] = (float(kind >= 2), float(kind >= 3))  # the side on roll has lost
    rest = np.flatnonzero(~over)
    fast = getattr(evaluator, "board_chances", None)  # an engine's array call
    if rest.size and fast is not None:
        out[rest] = fast(np.ascontiguousarray(boards[rest]))
    elif rest.size:
        evs = evaluator.evaluate_many([make_position(bytes(boards[i])) for i in rest], None)
        out[rest] = np.array([e.probabilities for e in evs], dtype=np.float64).reshape(-1, 5)
    return out


def _generic_plays(
    evaluator: Evaluator, boards: NDArray[np.uint8], rolls: I64
) -> tuple[I64, NDArray[np.uint8], F64]:
    """Plays from mathbg's move generator, evaluated one position at a time."""
    from mathbg.rules.movegen import successors

    ptr = np.zeros(boards.shape[0] + 1, dtype=np.int64)
    parts = []
    for i, (b, r) in enumerate(zip(boards, rolls, strict=True)):
        _, res = successors(b[None], [(int(r[0]), int(r[1]))])
        parts.append(res)
        ptr[i + 1] = ptr[i] + res.shape[0]
    results = _swap(np.concatenate(parts)) if parts else np.zeros((0, 50), np.uint8)
    return ptr, results, _evaluate_boards(evaluator, results)


def _plays(
    evaluator: Evaluator, boards: NDArray[np.uint8], rolls: I64
) -> tuple[I64, NDArray[np.uint8], F64, I64]:
    """Every play of each distinct (board, roll), the opponent on roll, with the engine's
    outputs (the opponent's view); a roll that cannot be played keeps one row: the board
    itself, the opponent on roll."""
    fast = getattr(evaluator, "evaluate_plays", None)
    if fast is not None:
        ptr, results, probs = fast(boards, rolls)
    else:
        ptr, results, probs = _generic_plays(evaluator, boards, rolls)
    legal = np.diff(ptr)
    empty = np.nonzero(legal == 0)[0]
    if empty.size == 0:
        return ptr, results, probs, legal
    stay = _swap(boards[empty])
    stay_probs = _evaluate_boards(evaluator, stay)
    counts = np.diff(ptr)
    counts[empty] = 1
    new_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    # each unplayable roll's row goes where its (empty) range starts: the rows between
    # copied as whole blocks
    out = _interleave(results, ptr[empty], stay)
    out_p = _interleave(probs, ptr[empty], stay_probs)
    return new_ptr, out, out_p, legal


def _interleave(rows: Any, at: I64, extra: Any) -> Any:
    """``rows`` with ``extra[k]`` inserted before row ``at[k]`` (``at`` ascending; equal
    ones in the order given): ``np.insert``'s result, copied block by block."""
    pieces = []
    for k, block in enumerate(np.split(rows, at)):
        pieces.append(block)
        if k < len(at):
            pieces.append(extra[k : k + 1])
    return np.concatenate(pieces)


def _ranges(ptr: I64, which: I64) -> I64:
    """The rows ``ptr[j]:ptr[j + 1]`` of each ``j`` in ``which``, one after the other."""
    counts = ptr[which + 1] - ptr[which]
    starts = np.repeat(ptr[which] - np.cumsum(counts) + counts, counts)
    return (starts + np.arange(int(counts.sum()), dtype=np.int64)).astype(np.int64)


# ----------------------------------------------------------------------------- values


def _distinct(tasks: _Tasks) -> tuple[NDArray[np.uint8], I64, I64]:
    """The distinct (board, roll) pairs of the tasks, in the order they first come, and
    each task's pair."""
    keys = np.concatenate([tasks.boards, tasks.rolls.astype(np.uint8)], axis=1)
    rows = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1]))).reshape(-1)
    _, first, inverse = np.unique(rows, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # first-come order
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    sel = first[order].astype(np.int64)
    return tasks.boards[sel], tasks.rolls[sel], rank[inverse.reshape(-1)].astype(np.int64)


def _valued(
    tasks: _Tasks, evaluator: Evaluator, met: MET, two_sided: Any
) -> tuple[I64, NDArray[np.uint8], F64, PlayValues, I64]:
    """Every task's plays (rows ``ptr[t]:ptr[t + 1]``), their outputs and values, and
    each task's number of legal plays."""
    boards, rolls, pair = _distinct(tasks)
    pptr, results, probs, legal = _plays(evaluator, boards, rolls)
    counts = np.diff(pptr)[pair]
    ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    rows = _ranges(pptr, pair)
    task_of = np.repeat(np.arange(pair.size, dtype=np.int64), counts)
    if not np.array_equal(rows, np.arange(rows.size)):  # some (board, roll) repeated
        results, probs = results.take(rows, axis=0), probs.take(rows, axis=0)
    values = play_values(results, probs, tasks.states, met, two_sided, state_of=task_of)
    return ptr, results, probs, values, legal[pair]


def _best(ptr: I64, equity: F64) -> F64:
    """The best value of each task's plays."""
    return np.maximum.reduceat(equity, ptr[:-1]) if equity.size else np.zeros(0)


def _luck(tasks: _Tasks, best: F64, n_turns: int) -> NDArray[np.float32]:
    """gnubg's ``LuckNormal`` / ``LuckFirst`` mean of each turn from the best values, summed
    in its order and single precision: the 21 rolls as :data:`ROLLS` lists them, each
    non-double twice (``aar * 2.0f``), times 1/36 (gnubg's compiled code multiplies by the
    rounded reciprocal); at the opening the roller's 15 non-doubles in that order, then the
    opponent's by their lower die, then the higher, times 1/30."""
    means = np.full(n_turns, np.nan, dtype=np.float32)
    value = np.where(tasks.side == 0, best, -best).astype(np.float32)
    lo = np.array([b for _, b in ROLLS])[tasks.roll]
    hi = np.array([a for a, _ in ROLLS])[tasks.roll]
    counts = np.bincount(tasks.turn, minlength=n_turns)
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    # the tasks of a turn are consecutive, the 21 rolls in ROLLS order; the sums run one
    # value after another in single precision (a cumulative sum: numpy's sums pair them)
    full = np.flatnonzero(counts == len(ROLLS))
    if full.size:
        k = start[full][:, None] + np.arange(len(ROLLS))
        weighted = np.where(lo[k] == hi[k], value[k], value[k] * np.float32(2.0))
        sums = np.cumsum(weighted.astype(np.float32), axis=1, dtype=np.float32)[:, -1]
        means[full] = sums * np.float32(1.0 / 36.0)
    for t in np.flatnonzero((counts > 0) & (counts != len(ROLLS))):  # openings
        k = np.arange(start[t], start[t] + counts[t])
        total = np.float32(0.0)
        key = np.where(tasks.side[k] == 0, tasks.roll[k], 100 + 10 * lo[k] + hi[k])
        for i in k[np.argsort(key, kind="stable")]:
            total += value[i]
        means[t] = total * np.float32(1.0 / 30.0)
    return means


def turn_values(
    turns: Sequence[Turn],
    evaluator: Evaluator,
    met: MET,
    *,
    luck: bool = True,
    two_sided: Any = None,
) -> list[TurnValues]:
    """The checker play and luck of each turn (see the module notes).

    Parameters
    ----------
    turns : sequence of Turn
        The turns (:func:`~mathbg.analysis.match_audit.turns.match_turns`).
    evaluator : Evaluator
        The engine (0-ply chances).
    met : MET
        The match equity table.
    luck : bool, optional
        Also value the other rolls and the luck (``False``: the rolled one only).
    two_sided : TwoSided, optional
        The two-sided database of the cube lives there
        (:func:`~mathbg.analysis.match_audit.plays.play_values`).

    Returns
    -------
    list of TurnValues
        One per turn.

    Examples
    --------
    >>> from mathbg.met import as_met
    >>> from mathbg.analysis import get_evaluator
    >>> from mathbg.rules.formats.example import example_match
    >>> from mathbg.analysis.match_audit.turns import match_turns
    >>> turns = match_turns(example_match())[:2]
    >>> given = get_evaluator("given", probabilities=[0.5, 0.1, 0.0, 0.1, 0.0])
    >>> [v.legal for v in turn_values(turns, given, as_met("kazaross-xg2"), luck=False)]
    [9, 13]
    """
    if not turns:
        return []
    tasks = _tasks(turns, luck)
    ptr, results, probs, values, legal = _valued(tasks, evaluator, met, two_sided)
    best = _best(ptr, values.equity)
    if values.passed is not None:  # a roll that cannot be played, as gnubg's luck values it
        stuck = np.flatnonzero(legal == 0)
        best[stuck] = values.passed[ptr[stuck]]
    means = _luck(tasks, best, len(turns)) if luck else None
    # each turn's task of its roller and roll (the first, where the opening lists a roll
    # twice), found for all turns at once
    mine = np.flatnonzero(tasks.side == 0)[::-1]
    task_of = np.empty(len(turns) * len(ROLLS), dtype=np.int64)
    task_of[tasks.turn[mine] * len(ROLLS) + tasks.roll[mine]] = mine
    out = []
    for t_i, t in enumerate(turns):
        k = int(task_of[t_i * len(ROLLS) + _ROLL_INDEX[t.dice]])
        out.append(_turn(t, ptr, k, results, probs, values, int(legal[k]),
                         None if means is None
                         else float(np.float32(best[k]) - means[t_i])))  # fmt: skip
    return out


def _turn(
    t: Turn, ptr: I64, k: int, results: NDArray[np.uint8], probs: F64, values: PlayValues,
    legal: int, luck: float | None,
) -> TurnValues:  # fmt: skip
    lo, hi = int(ptr[k]), int(ptr[k + 1])
    eq, cl = values.equity[lo:hi], values.cubeless[lo:hi]
    order = np.lexsort((-cl, -eq))
    res = _swap(results[lo:hi][order])
    cells = np.frombuffer(t.result, dtype=np.uint8)
    hit = np.nonzero((res == cells).all(axis=1))[0]
    mwc = None if values.mwc is None else values.mwc[lo:hi][order]
    return TurnValues(res, eq[order], mwc, invert(probs[lo:hi][order]),
                      int(hit[0]) if hit.size else -1, luck, legal)  # fmt: skip


def deeper(
    turns: Sequence[Turn], values: Sequence[TurnValues], evaluator: Evaluator, met: MET,
    extra: int, threshold: float, two_sided: Any = None,
) -> list[TurnValues]:  # fmt: skip
    """Each roll's plays within ``threshold`` of the best (at most ``extra``) and the one
    made, valued again with the evaluator's chances and ranked above the others (gnubg's
    move filter before an n-ply evaluation).

    Parameters
    ----------
    turns : sequence of Turn
        The rolls.
    values : sequence of TurnValues
        Their 0-ply values (:func:`turn_values`).
    evaluator : Evaluator
        The deeper engine (its ``evaluate_many``).
    met : MET
        The match equity table.
    extra, threshold : int, float
        At most ``extra`` plays within ``threshold`` EMG of the best.
    two_sided : TwoSided, optional
        The database of the cube lives inside it.

    Returns
    -------
    list of TurnValues
        The plays re-ranked.

    Examples
    --------
    >>> deeper([], [], None, None, 16, 0.32)  # doctest: +SKIP
    []
    """
    from dataclasses import replace

    picks: list[list[int]] = []
    boards, owners = [], []
    for k, tv in enumerate(values):
        rows = [i for i in range(min(extra, tv.plays))
                if tv.equity[i] >= tv.equity[0] - threshold] if tv.legal > 1 else []
        if rows and tv.played >= 0 and tv.played not in rows:
            rows.append(tv.played)
        picks.append(rows)
        for i in rows:
            boards.append(tv.results[i])
            owners.append(k)
    if not boards:
        return list(values)
    opp = _swap(np.array(boards, dtype=np.uint8))
    probs = _evaluate_boards(evaluator, opp)
    states = score_states([turns[k].match for k in owners], [turns[k].player for k in owners])
    new = play_values(opp, probs, states, met, two_sided)
    out, at = [], 0
    for tv, rows in zip(values, picks, strict=True):
        if not rows:
            out.append(tv)
            continue
        n = len(rows)
        eq, cl = new.equity[at:at + n], new.cubeless[at:at + n]
        order = [rows[j] for j in np.lexsort((-cl, -eq))]
        rank = order + [i for i in range(tv.plays) if i not in rows]
        equity = tv.equity.copy()
        equity[rows] = eq
        mwc = None
        if tv.mwc is not None and new.mwc is not None:
            mwc = tv.mwc.copy()
            mwc[rows] = new.mwc[at:at + n]
        p = tv.probs.copy()
        p[rows] = invert(probs[at:at + n])
        at += n
        idx = np.array(rank)
        out.append(replace(tv, results=tv.results[idx], equity=equity[idx],
                           mwc=None if mwc is None else mwc[idx], probs=p[idx],
                           played=rank.index(tv.played) if tv.played >= 0 else -1))
    return out
