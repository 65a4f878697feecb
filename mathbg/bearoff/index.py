"""Combinatorial index of one-side bearoff positions (gnubg's ``PositionBearoff`` order).

A one-side bearoff position is a vector ``b`` of checker counts on the side's own points
1..P (``b[0]`` is the ace point) with at most C checkers in total; the checkers not on
the board are borne off. There are ``C(P + C, P)`` such positions (stars and bars).

gnubg ranks them with the combinatorial number system (``positionid.c``:
``PositionBearoff``/``PositionFromBearoff``). In closed form, with
``T_k = b[k] + b[k+1] + ... + b[P-1]`` the number of checkers on point ``k+1`` or higher,

.. math::

    \\operatorname{rank}(b) = \\sum_{k=0}^{P-1} \\binom{P-1-k+T_k}{P-k}

(with ``C(n, r) = 0`` for ``n < r``). Consequences used throughout :mod:`mathbg.bearoff`:

- index 0 is "all checkers off";
- positions come in blocks by total checkers: the block with ``S`` checkers starts at
  ``C(S - 1 + P, P)``, so the index does not depend on C and the 6x6 space is a prefix
  of the 6x15 space;
- every bearoff play goes to a lower index and to strictly fewer pips.

Since the terms ``c_k = P-1-k+T_k`` are strictly decreasing, ``rank`` is the
combinatorial-number-system representation of the index, and :func:`unrank` decodes it
greedily (Knuth, TAOCP 7.2.1.3).

References
----------
gnubg ``positionid.c`` (``PositionBearoff``, ``PositionF``, ``PositionFromBearoff``);
mathbg ``shared/reference/code-anchors.md`` section 1.4 (test vectors).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg.errors import DatabaseError, InvalidPositionError

#: Largest number of points and checkers the index supports (gnubg's limits are 13/15
#: for one-sided files; the index itself works up to these bounds).
MAX_POINTS = 24
MAX_CHECKERS = 15

__all__ = [
    "MAX_CHECKERS",
    "MAX_POINTS",
    "all_positions",
    "binomial_table",
    "block_start",
    "check_in_play",
    "n_positions",
    "pips",
    "rank",
    "unrank",
    "validate_counts",
]


@cache
def binomial_table(nmax: int = MAX_POINTS + MAX_CHECKERS + 1) -> NDArray[np.int64]:
    """Table ``B[n, r] = C(n, r)`` for ``0 <= n, r <= nmax`` (zero when ``r > n``).

    Built by Pascal's rule ``C(n, r) = C(n-1, r-1) + C(n-1, r)``; read-only.
    """
    table = np.zeros((nmax + 1, nmax + 1), dtype=np.int64)
    table[:, 0] = 1
    for n in range(1, nmax + 1):
        table[n, 1 : n + 1] = table[n - 1, 0:n] + table[n - 1, 1 : n + 1]
    table.setflags(write=False)
    return table


def check_size(points: int, checkers: int) -> None:
    if not (isinstance(points, int | np.integer) and 1 <= points <= MAX_POINTS):
        raise DatabaseError(f"points must be an integer in 1..{MAX_POINTS}, got {points!r}")
    if not (isinstance(checkers, int | np.integer) and 1 <= checkers <= MAX_CHECKERS):
        raise DatabaseError(f"checkers must be an integer in 1..{MAX_CHECKERS}, got {checkers!r}")


def n_positions(points: int, checkers: int) -> int:
    """Number of positions of at most ``checkers`` checkers on ``points`` points: C(P+C, P).

    Examples: 6x15 54,264; 6x6 924; 8x15 490,314; 10x15 3,268,760.
    """
    check_size(points, checkers)
    return int(binomial_table()[points + checkers, points])


def block_start(points: int, total: int) -> int:
    """First index of the positions with exactly ``total`` checkers: C(total-1+P, P).

    ``block_start(P, 0) == 0`` (the empty board) and ``block_start(P, S + 1)`` is one past
    the end of the S-checker block.
    """
    if total <= 0:
        return 0
    return int(binomial_table()[total - 1 + points, points])


def validate_counts(
    counts: ArrayLike, points: int, checkers: int | None = None, *, what: str = "position"
) -> NDArray[np.int64]:
    """Check checker counts and return them as an ``int64`` array of shape (..., P).

    ``counts`` holds the checkers on points 1..n (last axis). A shorter last axis is
    padded with empty points, a longer one is accepted when the extra points are empty.

    Raises
    ------
    InvalidPositionError
        Non-integer or negative counts, or more than 15 checkers.
    DatabaseError
        A checker beyond point ``points`` or more than ``checkers`` checkers in total
        (the position exists but this database does not cover it).
    """
    arr = np.asarray(counts)
    if arr.dtype == object or arr.ndim == 0:
        raise InvalidPositionError(
            f"{what} must be a sequence of checker counts on points 1..{points}, got {counts!r}"
        )
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        as_int = arr.astype(np.int64) if np.issubdtype(arr.dtype, np.number) else None
        if as_int is None or not np.array_equal(as_int, arr):
            raise InvalidPositionError(f"{what}: checker counts must be integers, got {counts!r}")
        arr = as_int
    arr = arr.astype(np.int64, copy=False)
    if np.any(arr < 0):
        raise InvalidPositionError(f"{what}: checker counts must be >= 0, got {counts!r}")
    width = arr.shape[-1]
    if width > points:
        extra = arr[..., points:]
        if np.any(extra):
            bad = int(np.nonzero(np.any(extra.reshape(-1, width - points), axis=0))[0][0])
            raise DatabaseError(
                f"{what} has checkers on point {points + bad + 1}, outside this "
                f"{points}-point database"
            )
        arr = arr[..., :points]
    elif width < points:
        pad = [(0, 0)] * (arr.ndim - 1) + [(0, points - width)]
        arr = np.pad(arr, pad)
    totals = arr.sum(axis=-1)
    if np.any(totals > MAX_CHECKERS):
        raise InvalidPositionError(
            f"{what} has {int(np.max(totals))} checkers; a side has at most {MAX_CHECKERS}"
        )
    if checkers is not None and np.any(totals > checkers):
        raise DatabaseError(
            f"{what} has {int(np.max(totals))} checkers but this database covers at most "
            f"{checkers} per side"
        )
    return arr


def check_in_play(counts: Any, what: str = "position") -> None:
    """Refuse a side with no checker left: it has borne off, the game is over.

    Used for every two-sided question (equities, cube decisions) by the API and the CLI.
    """
    from mathbg.errors import InvalidPositionError

    arr = np.asarray(counts)
    if arr.ndim == 1 and not arr.any():
        raise InvalidPositionError(
            f"the {what} has no checker left: the game is over (nothing to decide)"
        )


def rank(counts: Sequence[int] | NDArray[np.integer], points: int | None = None) -> Any:
    """Index of a position (or of each row of an array of positions) in gnubg's order.

    Parameters
    ----------
    counts : array_like of int, shape (..., P)
        Checkers on points 1..P (``counts[..., 0]`` is the ace point).
    points : int, optional
        Number of points P of the index space; default the length of the last axis.

    Returns
    -------
    int or numpy.ndarray of int64
        ``sum_k C(P-1-k+T_k, P-k)`` with ``T_k`` the checkers on point k+1 or higher.

    Examples
    --------
    >>> rank([0, 0, 0, 0, 0, 1]), rank([15, 0, 0, 0, 0, 0]), rank([0, 0, 0, 0, 0, 15])
    (6, 38760, 54263)
    """
    arr = np.asarray(counts)
    p = arr.shape[-1] if points is None else points
    arr = validate_counts(arr, p)
    binom = binomial_table()
    tails = np.cumsum(arr[..., ::-1], axis=-1)[..., ::-1]  # T_k
    k = np.arange(p)
    idx = binom[(p - 1 - k) + tails, p - k].sum(axis=-1)
    return int(idx) if np.ndim(idx) == 0 else idx


def unrank(index: Any, points: int) -> NDArray[np.uint8]:
    """Position(s) with the given index: inverse of :func:`rank`.

    Greedy decoding of the combinatorial number system: ``c_0`` is the largest ``c`` with
    ``C(c, P) <= index``, then ``c_1`` the largest with ``C(c, P-1) <= index - C(c_0, P)``
    and so on; ``T_k = c_k - (P-1-k)`` and ``b[k] = T_k - T_{k+1}``.

    Returns a ``uint8`` array of shape ``index.shape + (points,)``.
    """
    idx = np.asarray(index, dtype=np.int64)
    if np.any(idx < 0):
        raise DatabaseError(f"bearoff index must be >= 0, got {index!r}")
    binom = binomial_table()
    rem = idx.copy()
    tails = np.empty((*idx.shape, points + 1), dtype=np.int64)
    tails[..., points] = 0
    for k in range(points):
        column = binom[:, points - k]
        c = np.searchsorted(column, rem, side="right") - 1
        rem = rem - column[c]
        tails[..., k] = c - (points - 1 - k)
    counts = tails[..., :-1] - tails[..., 1:]
    if np.any(tails[..., 0] > MAX_CHECKERS):
        raise DatabaseError(f"bearoff index {index!r} is beyond {MAX_CHECKERS} checkers")
    return counts.astype(np.uint8)


@lru_cache(maxsize=8)
def _all_positions_cached(points: int, checkers: int) -> NDArray[np.uint8]:
    # rank_P(b) = C(P-1+S, P) + rank_{P-1}(b[1:]) with S = sum(b): the S-checker block lists
    # the tails b[1:] with at most S checkers in their own (P-1)-point order.
    if points == 1:
        boards = np.arange(checkers + 1, dtype=np.uint8)[:, None]
    else:
        tails = _all_positions_cached(points - 1, checkers)
        tail_totals = tails.sum(axis=1, dtype=np.int64)
        parts = []
        for total in range(checkers + 1):
            sub = tails[: n_positions(points - 1, total) if total else 1]
            block = np.empty((len(sub), points), dtype=np.uint8)
            block[:, 0] = total - tail_totals[: len(sub)]
            block[:, 1:] = sub
            parts.append(block)
        boards = np.concatenate(parts)
    boards.setflags(write=False)
    return boards


def all_positions(points: int, checkers: int) -> NDArray[np.uint8]:
    """Every position of the P x C space in index order, ``uint8[C(P+C, P), P]`` (read-only)."""
    check_size(points, checkers)
    return _all_positions_cached(int(points), int(checkers))


def pips(boards: NDArray[np.integer]) -> Any:
    """Pip count(s): ``sum_k (k+1) * b[k]`` over the last axis."""
    arr = np.asarray(boards, dtype=np.int64)
    value = arr @ np.arange(1, arr.shape[-1] + 1)
    return int(value) if np.ndim(value) == 0 else value


def is_position(obj: Any) -> bool:
    """Is ``obj`` a rules-model :class:`~mathbg.rules.position.Position` (duck-typed)?"""
    return hasattr(obj, "player") and hasattr(obj, "opponent") and hasattr(obj, "cells")


def position_side(position: Any, side: str) -> Any:
    """Checker counts of a rules-model Position's side ("player" on roll or "opponent")."""
    counts = getattr(position, side)
    if len(counts) == 25 and counts[24]:
        raise DatabaseError(f"the {side} has a checker on the bar: not a bearoff position")
    return counts[:24]
