"""One batch of games of one entry: the unit of work (a Dask task, a stored file), its
strata, its start and its per-game arrays.

A batch's dice come from ``numpy.random.SeedSequence(seed, spawn_key=(kind_index, a, b,
batch))`` (the entry's ``away=(a, b)``) and a noisy player's noise from a stream of its
own (``spawn_key + (1,)``), so a batch depends only on its key and the table below its
level. The games are
played by :mod:`mathbg.analysis.selfplay.games` (board players) or
:mod:`mathbg.analysis.selfplay.exact` (the exact engine).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import Player
from mathbg.analysis.selfplay.table import Entry

__all__ = ["FIELDS", "OPENING", "Batch", "GameArrays", "new_arrays", "start_board", "strata"]

#: A batch's (or an entry's) per-game arrays, by field name (:data:`FIELDS`).
GameArrays = Mapping[str, NDArray[Any]]

#: The per-game arrays of a batch: player 0's MWC after the game (``value``), the
#: stratum and first roller, the winner, points, result (0 passed, 1 single, 2 gammon,
#: 3 backgammon), final cube, the turn of the first double (-1: none) and whether it was
#: passed, the rolls played, and the first cube decision's turn, chances and cube life.
FIELDS = ("value", "stratum", "first", "winner", "points", "result", "cube", "first_double",
          "first_passed", "rolls", "dec_turn", "dec_p0", "dec_p1", "dec_p2", "dec_p3",
          "dec_p4", "dec_x")  # fmt: skip
_FLOATS = {"value", "dec_p0", "dec_p1", "dec_p2", "dec_p3", "dec_p4", "dec_x"}
#: The 15 non-double opening rolls, higher die first.
OPENING = tuple((hi, lo) for hi in range(2, 7) for lo in range(1, hi))
_OPENING_ROW = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


@dataclass(frozen=True)
class Batch:
    """Everything one batch needs (picklable, small).

    Attributes
    ----------
    entry : Entry
        The score played.
    batch : int
        The batch's number within the entry (part of its seed).
    games : int
        Games to play.
    seed : int
        The build's seed.
    players : (Player, Player)
        Player 0's and player 1's.
    equal : bool
        The same player on both sides (one view of the table).
    start : object
        Where every game starts (None: the opening).
    cube_limit : int or None
        Largest cube value.
    crawford : bool
        The Crawford rule.
    pre, post : ndarray
        The table built so far (its cells below the entry's level are read).
    luck_rolls : int
        Rolls after the opening whose luck is measured.
    """

    entry: Entry
    batch: int
    games: int
    seed: int
    players: tuple[Player, Player]
    equal: bool
    start: Any
    cube_limit: int | None
    crawford: bool
    pre: NDArray[np.float64]
    post: NDArray[np.float64]
    luck_rolls: int = 0

    def streams(self) -> tuple[np.random.Generator, np.random.Generator]:
        """The dice stream and the noise stream of this batch."""
        key = (self.entry.kind_index, *self.entry.away, self.batch)
        dice = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=key))
        noise = np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(*key, 1)))
        return dice, noise


def strata(start: Any) -> tuple[int, Callable[[int], tuple[int, tuple[int, int]]]]:
    """The strata of the first rolls: 30 (first roller x non-double opening roll) from
    the opening, 72 (first roller x first roll) from a ``start``, and the stratum's
    (first roller, first roll) by its number.

    Parameters
    ----------
    start : object
        The batch's start (None: the opening).

    Returns
    -------
    (int, callable)
        The count and ``stratum(h) -> (first roller, (d1, d2))``.

    Examples
    --------
    >>> count, stratum = strata(None)
    >>> count, stratum(0), stratum(29)
    (30, (0, (2, 1)), (1, (6, 5)))
    """
    if start is None:

        def opening(h: int) -> tuple[int, tuple[int, int]]:
            return h % 2, OPENING[h // 2]

        return 30, opening

    def first(h: int) -> tuple[int, tuple[int, int]]:
        return h % 2, (h // 2 // 6 + 1, h // 2 % 6 + 1)

    return 72, first


def start_board(start: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The board of the first roller's turn (side not on roll, side on roll).

    Parameters
    ----------
    start : object
        None (the opening), ``(counts, counts)`` (the first roller's and the other side's
        checkers on points 1..), or a position / Position ID.

    Returns
    -------
    (tuple of 25 int, tuple of 25 int)
        gnubg's ``TanBoard``.

    Examples
    --------
    >>> start_board(([0, 0, 1], [2]))[1][:3]
    (0, 0, 1)
    """
    if start is None:
        return _OPENING_ROW, _OPENING_ROW
    if isinstance(start, tuple) and len(start) == 2 and not isinstance(start[0], str):
        roller, other = (list(map(int, s)) + [0] * 25 for s in start)
        return tuple(other[:25]), tuple(roller[:25])
    from mathbg.analysis.base import as_position

    pos, _ = as_position(start)
    return tuple(int(v) for v in pos.board[0]), tuple(int(v) for v in pos.board[1])


def new_arrays(n: int, luck_rolls: int = 0) -> dict[str, NDArray[Any]]:
    """A batch's per-game arrays (:data:`FIELDS`, and the luck of each measured roll),
    zero, no double and no decision yet.

    Parameters
    ----------
    n : int
        Games.
    luck_rolls : int, optional
        Rolls whose luck is measured (``luck1``, ...).

    Returns
    -------
    dict of str to ndarray
        The arrays.

    Examples
    --------
    >>> arrays = new_arrays(3, luck_rolls=1)
    >>> arrays["first_double"].tolist(), "luck1" in arrays
    ([-1, -1, -1], True)
    """
    out = {f: np.zeros(n, dtype=np.float64 if f in _FLOATS else np.int64) for f in FIELDS}
    out["first_double"][:] = -1
    out["dec_turn"][:] = -1
    for t in range(1, luck_rolls + 1):
        out[f"luck{t}"] = np.zeros(n)
    return out
