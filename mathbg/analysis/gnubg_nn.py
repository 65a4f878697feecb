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

import math
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.base import (
    BatchEvaluator,
    Board,
    Candidates,
    EngineNotAvailableError,
    Evaluation,
    GameEnd,
    check_probabilities,
    evaluation_class,
)
from mathbg.cube.life import CONTACT_CUBE_LIFE, cube_life
from mathbg.errors import InvalidParameterError
from mathbg.rules.dice import ROLLS, WEIGHTS

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.match import MatchState
    from mathbg.rules.position import Position

__all__ = [
    "MAX_NOISE",
    "MAX_PLIES",
    "GnubgNNEvaluator",
    "GnubgNNPlayer",
    "board_of",
    "nn_plays",
    "nn_probabilities",
    "noisy_move",
    "sane_probabilities",
]

#: Deepest search ``gnubg_nn.probabilities`` accepts.
MAX_PLIES = 4
#: Largest noise a noisy player takes (cubeless equity, points a game).
MAX_NOISE = 10.0


def _module() -> Any:
    """The ``gnubg_nn`` module (:class:`EngineNotAvailableError` naming the extra without it)."""
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
            klass = evaluation_class(pos)
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


def _boards_from_keys(keys: Sequence[str]) -> NDArray[np.uint8]:
    """Boards (flattened ``TanBoard``, 50 cells) from gnubg-nn's 20-letter position keys:
    the 10 bytes of the Position ID's bit string, each as two letters ``A``-``P`` (high
    nibble first); the bits, least significant first, give each point's checkers in unary
    (ones, then a zero), the side not on roll first."""
    m = len(keys)
    if m == 0:
        return np.zeros((0, 50), dtype=np.uint8)
    raw = np.frombuffer("".join(keys).encode("ascii"), dtype=np.uint8).reshape(m, 20) - 65
    octets = (raw[:, 0::2] * 16 + raw[:, 1::2]).astype(np.uint8)
    out = np.empty((m, 50), dtype=np.uint8)
    for lo in range(0, m, 16384):  # in slices: the bit arrays are 80 bytes a board
        bits = np.unpackbits(octets[lo:lo + 16384], axis=1, bitorder="little").astype(bool)
        zero = ~bits
        cell = np.cumsum(zero, axis=1, dtype=np.int16) - zero  # the zeros before a bit
        ones = bits & (cell < 50)
        rows = np.arange(bits.shape[0], dtype=np.int32)[:, None] * 50
        out[lo:lo + 16384] = np.bincount((rows + cell)[ones], minlength=bits.shape[0] * 50
                                         ).reshape(-1, 50)  # fmt: skip
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

# ----------------------------------------------------------------------------- the player


def sane_probabilities(probs: Sequence[float]) -> tuple[float, float, float, float, float]:
    """gnubg-nn's five outputs made consistent (as gnubg's own sanity check does).

    The network's float32 outputs can break ``0 <= WB <= WG <= W <= 1``, ``0 <= LB <= LG
    <= 1 - W`` by a little in rare positions, and are NaN in a few near-finished bearoffs
    (read as 0); each is clipped into its bounds (consistent chances are returned
    unchanged).

    Parameters
    ----------
    probs : sequence of 5 floats
        ``W, WG, WB, LG, LB`` as the network gives them.

    Returns
    -------
    tuple of 5 floats
        The same, each clipped into its bounds.

    Examples
    --------
    >>> sane_probabilities([0.97, 0.9800001, 0.01, 0.0300002, -1e-7])
    (0.97, 0.97, 0.01, 0.030000000000000027, 0.0)
    """
    p = [v if v == v else 0.0 for v in map(float, probs)]  # NaN -> 0
    w = min(max(p[0], 0.0), 1.0)
    wg = min(max(p[1], 0.0), w)
    wb = min(max(p[2], 0.0), wg)
    lg = min(max(p[3], 0.0), 1.0 - w)
    lb = min(max(p[4], 0.0), lg)
    return w, wg, wb, lg, lb


def _end(after: Board) -> GameEnd | None:
    """The end of the game on a board after a play (the mover, row 0, has borne off)."""
    if any(after[0]):
        return None
    other = after[1]
    if sum(other) == 15:
        return GameEnd(True, 3 if any(other[18:]) else 2)
    return GameEnd(True, 1)


def noisy_move(
    nn: Any, board: Board, d1: int, d2: int, plies: int, sigma: float, rng: np.random.Generator
) -> str:
    """The position key of a noisy player's play (gnubg-nn's candidates, equity + noise).

    Each candidate play gnubg-nn lists (at ``plies``) gets ``sigma * N(0, 1)`` added to
    its cubeless equity; the largest wins (the first of equals, as gnubg-nn's own order).
    One normal is drawn per candidate of a roll with a choice. ``sigma = 0`` is
    ``best_move``'s play.

    Parameters
    ----------
    nn : module
        ``gnubg_nn``.
    board : pair of 25-tuples
        gnubg-nn's board (side not on roll, side on roll).
    d1, d2 : int
        The dice.
    plies : int
        The evaluation depth.
    sigma : float
        The noise's standard deviation.
    rng : numpy.random.Generator
        The noise stream.

    Returns
    -------
    str
        The key of the position after the play (``board_from_position_key`` reads it).

    Examples
    --------
    A stand-in for gnubg-nn with two candidate plays, of equities 0.10 and 0.12: without
    noise the better one; with a noise far larger than their difference, either.

    >>> class Net:
    ...     @staticmethod
    ...     def best_move(board, d1, d2, n, b, list):
    ...         return None, "B", [("A", 0, 0, 0.10), ("B", 0, 0, 0.12)]
    >>> rng = np.random.default_rng(1)
    >>> noisy_move(Net, None, 3, 1, 0, 0.0, rng)
    'B'
    >>> sorted({noisy_move(Net, None, 3, 1, 0, 1.0, rng) for _ in range(50)})
    ['A', 'B']
    """
    _, key, cands = nn.best_move(board, d1, d2, n=plies, b=1, list=1)
    if len(cands) < 2:
        return str(key)
    eq = np.array([c[3] for c in cands]) + sigma * rng.standard_normal(len(cands))
    return str(cands[int(np.argmax(eq))][0])


_ROLL_WEIGHTS = np.array([float(w) for w in WEIGHTS]) / 36.0


@lru_cache(maxsize=65536)
def _roll_equities(board: tuple[tuple[int, ...], tuple[int, ...]]) -> tuple[float, ...]:
    nn = _module()
    eqs = []
    for d1, d2 in ROLLS:
        _, key, cands = nn.best_move(board, d1, d2, n=0, b=1, list=1)
        if cands:
            eqs.append(float(cands[0][3]))
        else:  # no legal play: the opponent's 0-ply cubeless equity, negated
            w, wg, wb, lg, lb = nn.probabilities(nn.board_from_position_key(key), 0)
            eqs.append(-(2 * w - 1 + wg + wb - lg - lb))
    return (*eqs, float(np.dot(_ROLL_WEIGHTS, eqs)))


class GnubgNNPlayer:
    """gnubg's networks playing: ``best_move`` at ``plies``, optionally a noisy player.

    ``noise`` makes a weaker player as gnubg's noisy players are made: Gaussian noise of
    this standard deviation (cubeless equity, in points a game) is added to each candidate
    play's equity before the best is chosen (:func:`noisy_move`), drawn from the stream the
    caller gives (the dice are untouched, so ``noise=0`` is the plain player bit for bit).
    The cube decisions read :meth:`chances` at ``plies`` (noise-free) and gnubg 1.07's
    0-ply cube life of the board's class.

    Parameters
    ----------
    plies : int
        Search depth, 0..:data:`MAX_PLIES`.
    noise : float
        The noise's standard deviation, 0..:data:`MAX_NOISE`.

    Raises
    ------
    InvalidParameterError
        For plies or noise out of range.
    EngineNotAvailableError
        When the ``gnubg-nn`` package is not installed.
    """

    name = "gnubg-nn"
    own_cube = False

    def __init__(self, plies: int = 0, noise: float = 0.0) -> None:
        if isinstance(plies, bool) or not isinstance(plies, int) or plies < 0:
            raise InvalidParameterError(f"plies must be a non-negative integer, got {plies!r}")
        if plies > MAX_PLIES:
            raise InvalidParameterError(f"gnubg-nn offers plies 0..{MAX_PLIES}, got {plies}")
        if (
            isinstance(noise, bool)
            or not isinstance(noise, int | float)
            or not math.isfinite(noise)
            or not 0 <= noise <= MAX_NOISE
        ):
            raise InvalidParameterError(
                f"noise must be a number in 0..{MAX_NOISE:g}, got {noise!r}"
            )
        self.plies = plies
        self.noise = float(noise)
        self._nn = _module()

    @property
    def label(self) -> str:
        """``gnubg-nn K-ply`` (and the noise)."""
        extra = f", noise {self.noise:g}" if self.noise else ""
        return f"gnubg-nn {self.plies}-ply{extra}"

    def __getstate__(self) -> dict[str, Any]:  # the module is not pickled (Dask workers)
        return {"plies": self.plies, "noise": self.noise}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.plies, self.noise = state["plies"], state["noise"]
        self._nn = _module()

    def chances(self, board: Board) -> tuple[float, float, float, float, float]:
        """The network's chances at ``plies`` (:func:`sane_probabilities`)."""
        return sane_probabilities(self._nn.probabilities(board, self.plies))

    def cube_life(self, board: Board) -> float:
        """gnubg 1.07's 0-ply cube life of the board's class (gnubg-nn's classifier)."""
        nn = self._nn
        klass = int(nn.classify([list(board[0]), list(board[1])]))
        if klass in (nn.c_contact, nn.c_crashed):
            return CONTACT_CUBE_LIFE
        if klass == nn.c_race:
            pips = sum((i + 1) * c for i, c in enumerate(board[1]))
            return float(cube_life("race", pips))
        return cube_life("bearoff")

    def play(
        self, board: Board, d1: int, d2: int, u: float, noise: np.random.Generator
    ) -> Board | GameEnd:
        """gnubg-nn's play (noisy with ``noise``); the next roller's board or the end."""
        nn = self._nn
        if self.noise:
            key = noisy_move(nn, board, d1, d2, self.plies, self.noise, noise)
        else:
            _, key = nn.best_move(board, d1, d2, n=self.plies, b=1)
        after: Board = nn.board_from_position_key(key)  # (mover, other): the next roller's
        return _end(after) or after

    def _after(self, key: str) -> Board | GameEnd:
        after: Board = self._nn.board_from_position_key(key)
        return _end(after) or after

    def candidates(self, board: Board, d1: int, d2: int, plies: int | None = None) -> Candidates:
        """gnubg-nn's candidate plays (``best_move(..., list=1)``) at ``plies`` (default the
        player's), the next roller's chances after each (a play that bears off the last
        checker: the finished game's; a forced play, which ``best_move`` does not
        evaluate: the network's chances after it)."""
        nn = self._nn
        n = self.plies if plies is None else plies
        _, key, cands = nn.best_move(board, d1, d2, n=0, b=1, list=1)
        if n > 0 and len(cands) > 1:
            # gnubg-nn 1.1's best_move(n >= 1, list=1) crashes (SIGSEGV) on a forced play
            # (e.g. two checkers on the bar entering with 1-2): list at n plies only when
            # 0 ply finds a choice
            _, key, cands = nn.best_move(board, d1, d2, n=n, b=1, list=1)
        if not cands:  # no legal play: the turn passes
            probs = nn.probabilities(nn.board_from_position_key(key), n)
            return Candidates(np.array([probs], dtype=np.float64), [key], self._after)
        keys = [c[0] for c in cands]
        if len(cands) == 1:  # a forced play is not evaluated (placeholder chances)
            probs = nn.probabilities(nn.board_from_position_key(keys[0]), n)
            chances = np.array([probs], dtype=np.float64)
        else:
            chances = np.array([c[2] for c in cands], dtype=np.float64)
        if sum(board[1]) <= 4:  # the mover may bear off his last checker
            for i, k in enumerate(keys):
                end = _end(nn.board_from_position_key(k))
                if end is not None:
                    chances[i] = (0.0, 0.0, 0.0, float(end.result >= 2), float(end.result == 3))
        return Candidates(chances, keys, self._after)

    def roll_equities(self, board: Board) -> tuple[float, ...]:
        """The roller's 0-ply cubeless equity after gnubg-nn's best play for each of the 21
        rolls, and their dice-weighted mean last (cached: the first turns' positions
        repeat)."""
        return _roll_equities((tuple(board[0]), tuple(board[1])))
