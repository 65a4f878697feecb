"""Bearoff plays on numpy alone (internal): one-checker moves and small successor tables.

:func:`single_moves` is the one-checker move table of a space (the numba kernel
:func:`mathbg.bearoff._play_kernels.single_moves` computes the same table);
:func:`successor_table` the CSR successor table of :func:`mathbg.bearoff.plays.successors`
for small spaces, where compiling the numba kernels (about 3 s on first use) would cost
more than the whole table: every move sequence of a roll is enumerated at once, in
gnubg's order, and reduced to the distinct results of the plays that use the most dice.

gnubg's order (``GenerateMoves``; see :func:`mathbg.bearoff._play_kernels.roll_successors`):

- a non-double ``a > b``: die ``a`` from the highest source down, then die ``b`` from the
  highest source down; then the order ``b``, ``a``. Plays of both dice if there are any;
  otherwise the single-die plays of ``a`` if any, else of ``b``;
- a double ``d``: four moves, each from a source not above the previous one, sequences in
  lexicographically decreasing order; only the sequences of the most moves count;
- a result already listed keeps its first place.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.bearoff.index import all_positions, binomial_table, n_positions

__all__ = ["fits", "moves_by_source", "single_moves", "successor_table"]

#: Largest space (positions) whose successor table is built on numpy; bigger spaces
#: amortise the kernels' compilation, and their candidate arrays would be large.
MAX_POSITIONS = 5005  # 6x9
#: Most points (a double's non-increasing 4-move sequences grow as C(P + 3, 4)).
MAX_POINTS = 8


def fits(points: int, checkers: int) -> bool:
    """Whether :func:`successor_table` handles this space."""
    return points <= MAX_POINTS and n_positions(points, checkers) <= MAX_POSITIONS


def single_moves(
    boards: NDArray[np.uint8], index: NDArray[np.int64]
) -> NDArray[np.signedinteger[Any]]:
    """``S[i, d-1, s]``: index after moving a checker of ``boards[i]`` (whose index is
    ``index[i]``) from point index ``s`` by ``d`` pips, or ``N`` (one past the last
    index of the space) when the move is illegal. A view of :func:`moves_by_source`."""
    return moves_by_source(boards, index).transpose(2, 1, 0)


def moves_by_source(
    boards: NDArray[np.uint8], index: NDArray[np.int64], lookup: NDArray[np.int32] | None = None
) -> NDArray[np.signedinteger[Any]]:
    """The table of :func:`single_moves` as ``[s, d - 1, i]`` (contiguous in ``i``), or
    with ``lookup`` (``N + 1`` entries) its image ``lookup[S]``, in ``lookup``'s dtype.

    The rules of :func:`mathbg.bearoff._play_kernels.single_moves`: a checker may bear off
    when no checker is outside points 1..6, exactly or from the highest occupied point.
    The new index follows from the closed form of the rank: moving a checker from ``s``
    to ``dest`` lowers ``T_k`` by one for ``dest < k <= s``, which lowers the index by
    ``C(P-2-k+T_k, P-1-k)`` for each such ``k`` (Pascal's rule).
    """
    npoints = boards.shape[1]
    counts = boards.T  # [s, i]
    occupied = counts > 0
    binom = binomial_table()
    n = int(binom[npoints + int(counts.sum(0).max()), npoints])  # positions in the space
    # term[k, t]: the index drop of lowering T_k = t by one (0 for t = 0)
    t = np.arange(16)
    k = np.arange(npoints)[:, None]
    term = np.where(t > 0, binom[np.maximum(npoints - 2 - k + t, 0), npoints - 1 - k], 0)
    # drops[k] = the index drop of lowering T_0..T_{k-1} by one; T_k = sum_{k' >= k} counts
    drops = np.zeros((npoints + 1, len(index)), np.int64)
    tails = np.zeros(len(index), np.int64)
    back = np.full(len(index), -1, np.int64)  # the highest occupied point index
    for j in range(npoints - 1, -1, -1):
        tails += counts[j]
        drops[j + 1] = np.take(term[j], tails, mode="wrap")
        np.copyto(back, j, where=(back < 0) & occupied[j])
    np.cumsum(drops, axis=0, out=drops)
    dtype = np.int64 if lookup is None else lookup.dtype
    illegal = n if lookup is None else lookup[n]
    table = np.empty((npoints, 6, len(index)), dtype)
    moved = np.empty(len(index), np.int64)
    home = back <= 5
    for s in range(npoints):
        for d in range(1, 7):
            dest = s - d
            legal = occupied[s]
            if dest < 0:  # bearing off: all home, exactly or from the highest occupied point
                legal = legal & home & ((back == s) | (dest == -1))
            row = table[s, d - 1]
            np.subtract(drops[s + 1], drops[max(dest, -1) + 1], out=moved)
            np.subtract(index, moved, out=moved)
            if lookup is None:
                row[:] = moved
            else:
                np.take(lookup, moved, out=row, mode="wrap")
            np.copyto(row, illegal, where=~legal)
    return table


def _sequences(npoints: int) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """For depth k = 1..4, ``(parent, source)`` of every non-increasing source sequence of
    length k, in lexicographically decreasing order (``parent`` indexes depth k - 1)."""
    levels: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = []
    last = list(range(npoints - 1, -1, -1))  # depth 1: the sources, from the top
    levels.append((np.zeros(npoints, np.int64), np.array(last, np.int64)))
    for _ in range(3):
        parent, source = [], []
        for q, s in enumerate(last):
            for t in range(s, -1, -1):
                parent.append(q)
                source.append(t)
        levels.append((np.array(parent, np.int64), np.array(source, np.int64)))
        last = source
    return levels


def _double(moves: NDArray[np.int64], die: int, n: int) -> NDArray[np.int64]:
    """Results of the double ``die`` (index d - 1) for every position: ``[N, K]`` in gnubg's
    order, ``n`` where there is no play; only the sequences of the most moves."""
    npoints = moves.shape[2]
    flat = moves[:, die, :]  # [N + 1, P]
    reached = [np.arange(moves.shape[0] - 1)[:, None]]
    for parent, source in _sequences(npoints):
        reached.append(flat[reached[-1][:, parent], source])
    width = reached[-1].shape[1]
    out = np.full((moves.shape[0] - 1, width), n, np.int64)
    for level in reached[1:]:  # deeper levels overwrite the rows where they have a play
        deeper = (level < n).any(1)
        out[deeper] = n
        out[deeper, : level.shape[1]] = level[deeper]
    return out


def _mixed(moves: NDArray[np.int64], a: int, b: int, n: int) -> NDArray[np.int64]:
    """Results of the non-double (die indices ``a > b``) for every position, ``[N, K]``."""
    orders = []
    for first, second in ((a, b), (b, a)):
        one = moves[:-1, first, ::-1]  # [N, P], sources from the top
        two = moves[one, second, ::-1]  # [N, P, P]
        single = np.where((two < n).any(2), n, one)
        orders.append((two.reshape(len(one), -1), single))
    both = np.concatenate([orders[0][0], orders[1][0]], axis=1)
    out = both.copy()
    no_two = ~(both < n).any(1)
    for single in (orders[1][1], orders[0][1]):  # the larger die's singles win
        rows = no_two & (single < n).any(1)
        out[rows] = n
        out[rows, : single.shape[1]] = single[rows]
    return out


def _first_occurrences(cand: NDArray[np.int64], n: int) -> NDArray[np.bool_]:
    """Mask of the entries that are plays (``< n``) and not repeats of an earlier entry."""
    order = np.argsort(cand, axis=1, kind="stable")
    ranked = np.take_along_axis(cand, order, 1)
    first = np.ones_like(ranked, dtype=bool)
    first[:, 1:] = ranked[:, 1:] != ranked[:, :-1]
    keep = np.zeros_like(first)
    np.put_along_axis(keep, order, first & (ranked < n), 1)
    return keep


def successor_table(points: int, checkers: int) -> tuple[NDArray[np.int64], NDArray[np.int32]]:
    """``(ptr, succ)`` of :class:`mathbg.bearoff.plays.SuccessorTable` for a small space
    (see :func:`fits`): row ``i * 21 + r`` lists the distinct results of roll ``r`` from
    position ``i`` in gnubg's order."""
    boards = all_positions(points, checkers)
    n = len(boards)
    moves = np.empty((n + 1, 6, points), np.int64)
    moves[:n] = single_moves(boards, np.arange(n, dtype=np.int64))
    moves[n] = n
    per_roll = []
    for d0 in range(6):
        for d1 in range(d0 + 1):
            cand = _double(moves, d0, n) if d0 == d1 else _mixed(moves, d0, d1, n)
            keep = _first_occurrences(cand, n)
            per_roll.append((cand, keep))
    counts = np.stack([keep.sum(1) for _, keep in per_roll], axis=1)  # [N, 21]
    ptr = np.zeros(n * 21 + 1, np.int64)
    np.cumsum(counts.reshape(-1), out=ptr[1:])
    succ = np.empty(int(ptr[-1]), np.int32)
    for r, (cand, keep) in enumerate(per_roll):
        rank = np.cumsum(keep, axis=1) - 1  # place of each kept entry within its row
        rows, cols = np.nonzero(keep)
        succ[ptr[rows * 21 + r] + rank[rows, cols]] = cand[rows, cols]
    return ptr, succ
