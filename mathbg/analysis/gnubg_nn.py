"""The ``gnubg-nn`` engine: gnubg's neural networks as a Python extension (PyPI ``gnubg-nn``).

Install with ``pip install 'mathbg[engine]'``. The package evaluates a board with
``gnubg_nn.probabilities(board, plies)`` and answers gnubg's five outputs for the side on
roll (cumulative gammons), like gnubg's ``evaluate``. Its board is gnubg's ``TanBoard``
(two rows of 25: row 0 the side *not* on roll, row 1 the side on roll, each in its own
numbering with the bar last), which is :attr:`mathbg.rules.position.Position.board`
unchanged; the tests check that on asymmetric positions against gnubg itself.

Plies 0 to 4 are offered (times per position on this machine, first evaluation, cache
cold: 0-ply about 10 microseconds, 1-ply 2 ms, 2-ply 20 ms, 3-ply 1 s, 4-ply 17 s); the
package caches evaluations internally. Batches are a Python loop over the boards (the
package has no array entry point; 0-ply costs about 10 microseconds a position). The
chances are cubeless and do not depend on the match score (the package's own score and
cube settings are left alone); the score enters only in the cubeless -> cubeful step of
:mod:`mathbg.analysis.matrix`.

Difference from gnubg 1.07.001
------------------------------
``gnubg-nn`` 1.1.0a11 ships its own weights file (``gnubg_nn/data/gnubg.weights``), not
the 1.07.001 networks. Measured at 0-ply against gnubg 1.07.001's ``evaluate`` on 200
contact and 200 race positions from random games
(:func:`mathbg.analysis.sample.random_positions`, seeds 5 and 6;
``tests/test_analysis_gnubg.py`` keeps the bounds):

- contact: mean absolute difference (largest in brackets) win 0.0010 (0.013), win gammon
  0.0011 (0.022), win backgammon 0.0003 (0.008), lose gammon 0.0005 (0.005), lose
  backgammon 0.0001 (0.002);
- race: below 1e-4 in every output.

The contact networks differ slightly; the
race network and the bearoff databases are gnubg's. Over the 7-point matrices of the same
positions (every score, cubes 1 and 2, money: 18,400 rows each) the cube actions agree on
99.5 % of the contact rows and 99.5 % of the race rows; of the 100 race disagreements 72
are the naming of "too good, pass" against "double, pass" (one engine gives a gammon
chance of exactly 0, the other a few 1e-7) and the rest near-ties of no double and
double/take. So ``gnubg-nn`` stands in for gnubg's networks but
is not gnubg 1.07.001: the differential tests against gnubg use the ``gnubg`` engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import (
    BatchEvaluator,
    EngineNotAvailableError,
    Evaluation,
    check_probabilities,
    position_class,
)
from mathbg.cube.life import cube_life
from mathbg.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = ["MAX_PLIES", "GnubgNNEvaluator", "board_of", "nn_plays", "nn_probabilities"]

#: Deepest search ``gnubg_nn.probabilities`` accepts.
MAX_PLIES = 4


def _module() -> Any:
    try:
        import gnubg_nn  # type: ignore[import-untyped]
    except ImportError:
        raise EngineNotAvailableError(
            "the gnubg-nn package is not installed: pip install 'mathbg[engine]' "
            "(or pip install gnubg-nn)"
        ) from None
    return gnubg_nn


def board_of(position: Position) -> list[list[int]]:
    """gnubg-nn's board for ``position``: ``[side not on roll, side on roll]``, 25 each.

    Parameters
    ----------
    position : Position
        The position.

    Returns
    -------
    list of 2 lists of 25 int
        gnubg's ``TanBoard``: row 0 the side not on roll, row 1 the side on roll.

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> board = board_of(Position.initial())
    >>> len(board), len(board[0]), sum(board[1])
    (2, 25, 15)
    """
    b = position.board
    return [[int(v) for v in b[0]], [int(v) for v in b[1]]]


def nn_probabilities(boards: Sequence[Any], plies: int = 0) -> list[tuple[float, ...]]:
    """``gnubg_nn.probabilities`` of each board (TanBoard layout), unchanged.

    Parameters
    ----------
    boards : sequence of boards
        gnubg ``TanBoard`` layouts.
    plies : int, optional
        Search depth (0 to :data:`MAX_PLIES`).

    Returns
    -------
    list of tuple of 5 floats
        gnubg's five outputs per board.

    Raises
    ------
    EngineNotAvailableError
        When the ``gnubg-nn`` package is not installed.
    InvalidParameterError
        For plies out of range.

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> (w, *_), = nn_probabilities([board_of(Position.initial())])  # doctest: +SKIP
    >>> 0.45 < w < 0.55  # doctest: +SKIP
    True
    """
    nn = _module()
    return [tuple(float(v) for v in nn.probabilities(board, int(plies))) for board in boards]


class GnubgNNEvaluator(BatchEvaluator):
    """gnubg's networks through the ``gnubg-nn`` package at ``plies`` (0..4)."""

    name = "gnubg-nn"

    def __init__(self, plies: int = 0) -> None:
        if not 0 <= int(plies) <= MAX_PLIES:
            raise InvalidParameterError(f"gnubg-nn offers plies 0..{MAX_PLIES}, got {plies}")
        self.plies: int | None = int(plies)
        _module()

    def evaluate_many(
        self, positions: Sequence[Position], matches: Sequence[MatchState | None] | None = None
    ) -> list[Evaluation]:
        raw = nn_probabilities([board_of(p) for p in positions], self.plies or 0)
        out = []
        for pos, probs in zip(positions, raw, strict=True):
            klass = position_class(pos)
            life = cube_life(klass, pos.pips()[0])
            out.append(Evaluation(check_probabilities(probs), self.name, self.plies, klass,
                                  life, method="gnubg-nn networks"))  # fmt: skip
        return out

    def evaluate_plays(
        self, boards: NDArray[np.uint8], rolls: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.uint8], NDArray[np.float64]]:
        """Every play of each (board, roll) with its 0-ply outputs (:func:`nn_plays`)."""
        return nn_plays(boards, rolls)


# ----------------------------------------------------------------------------- plays


def _decode_keys(raw: Any, out: Any) -> None:  # pragma: no cover - compiled by numba
    m = raw.shape[0]
    for r in range(m):
        cell = 0
        for k in range(10):
            byte = (raw[r, 2 * k] - 65) * 16 + (raw[r, 2 * k + 1] - 65)
            for bit in range(8):
                if cell >= 50:
                    break
                if (byte >> bit) & 1:
                    out[r, cell] += 1
                else:
                    cell += 1


_DECODE: Any = None


def _boards_from_keys(keys: Sequence[str]) -> NDArray[np.uint8]:
    """Boards (flattened ``TanBoard``, 50 cells) from gnubg-nn's 20-letter position keys:
    the 10 bytes of the Position ID's bit string, each as two letters ``A``-``P`` (high
    nibble first); the bits, least significant first, give each point's checkers in unary
    (ones, then a zero), the side not on roll first."""
    global _DECODE
    m = len(keys)
    out = np.zeros((m, 50), dtype=np.uint8)
    if m == 0:
        return out
    if _DECODE is None:
        import numba as nb

        _DECODE = nb.njit(cache=True)(_decode_keys)
    raw = np.frombuffer("".join(keys).encode("ascii"), dtype=np.uint8).reshape(m, 20)
    _DECODE(raw.astype(np.int64), out)
    return out


def nn_plays(
    boards: NDArray[np.uint8], rolls: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.uint8], NDArray[np.float64]]:
    """Every legal play of each (board, roll) with gnubg-nn's 0-ply outputs, in one C call
    per roll (``gnubg_nn.best_move(..., list=1)``: the package's move generator and
    networks, gnubg's rule of distinct resulting positions).

    Parameters
    ----------
    boards : uint8 array (n, 50)
        Flattened ``TanBoard`` boards, the side to play on roll (cells 25-49).
    rolls : int array (n, 2)
        The dice of each board.

    Returns
    -------
    (ptr, results, probs)
        The plays of board ``i`` are rows ``ptr[i]:ptr[i + 1]``: ``results`` (uint8, m x
        50) the positions they leave with the opponent on roll, ``probs`` (m x 5) the
        opponent's outputs there. A roll that cannot be played has no rows.

    Raises
    ------
    EngineNotAvailableError
        When the ``gnubg-nn`` package is not installed.

    Examples
    --------
    >>> from mathbg.rules.position import Position
    >>> b = np.frombuffer(Position.initial().cells, dtype=np.uint8)[None]
    >>> ptr, results, probs = nn_plays(b, np.array([[3, 1]]))  # doctest: +SKIP
    >>> int(ptr[-1]), results.shape, probs.shape  # doctest: +SKIP
    (16, (16, 50), (16, 5))
    """
    nn = _module()
    arr = np.asarray(boards, dtype=np.int64).reshape(-1, 50).tolist()
    dice = np.asarray(rolls, dtype=np.int64).reshape(-1, 2).tolist()
    ptr = np.zeros(len(arr) + 1, dtype=np.int64)
    keys: list[str] = []
    probs: list[Any] = []
    forced: list[int] = []
    for i, (cells, (d1, d2)) in enumerate(zip(arr, dice, strict=True)):
        found = nn.best_move([cells[:25], cells[25:]], d1, d2, list=1)
        plays = found[1] if len(found) > 1 else ()
        if len(plays) == 1:  # a forced play: the list's outputs are not filled in
            forced.append(len(keys))
        for entry in plays:
            keys.append(entry[0])
            probs.append(entry[2])
        ptr[i + 1] = len(keys)
    results = _boards_from_keys(keys)
    out = np.array(probs, dtype=np.float64).reshape(-1, 5)
    for k in forced:
        b = results[k].tolist()
        out[k] = nn.probabilities([b[:25], b[25:]], 0)
    return ptr, results, out
