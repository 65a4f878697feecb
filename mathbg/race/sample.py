"""Random race positions, for tests, benchmarks and calibration.

:func:`random_races` draws positions without contact in the point-count layout of
:mod:`mathbg.race.counts` (rows of shape 25: points 1..24 then the bar, each side in its
own numbering). It is a test-data generator, not a model of positions arising in play: the
distribution is documented so that measured errors can be read against it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from mathbg.errors import InvalidParameterError

__all__ = ["ordinary_races", "random_races"]


def _side(
    rng: np.random.Generator, back: int, checkers: int, home_weight: float
) -> NDArray[np.int64]:
    """One side: one checker on ``back`` and ``checkers - 1`` on points 1..back, point p
    drawn with weight ``home_weight`` inside the home board and 1 outside it."""
    row = np.zeros(25, np.int64)
    row[back - 1] = 1
    w = np.where(np.arange(1, back + 1) <= 6, home_weight, 1.0)
    pts = rng.choice(back, size=checkers - 1, p=w / w.sum())
    np.add.at(row, pts, 1)
    return row


def random_races(
    n: int,
    seed: int | np.random.Generator | None = None,
    *,
    back: tuple[int, int] = (1, 6),
    checkers: tuple[int, int] = (1, 15),
    home_weight: float = 1.0,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``n`` random race positions (no contact), as point-count arrays.

    For each position: the side on roll's rearmost point ``a`` is uniform on ``back``; the
    opponent's rearmost point ``b`` is uniform on ``[back[0], min(back[1], 24 - a)]`` (so
    ``a + b <= 24``: no contact, no shared point); each side's number of checkers on the
    board is uniform on ``checkers``; one checker sits on the rearmost point and the
    others on points ``1..rearmost``, independently, with weight ``home_weight`` for
    home-board points and 1 for the others.

    Parameters
    ----------
    n : int
        Number of positions.
    seed : int or numpy.random.Generator, optional
        Seed for reproducibility.
    back : (int, int)
        Range of the rearmost point (1..24, and ``back[0] <= 12`` so that both sides fit).
    checkers : (int, int)
        Range of checkers on the board per side (1..15).
    home_weight : float
        Relative weight of the home-board points (> 0).

    Returns
    -------
    (player, opponent) : two int64 arrays of shape (n, 25)
    """
    lo, hi = back
    if not (1 <= lo <= hi <= 24 and lo <= 12):
        raise InvalidParameterError(f"back must satisfy 1 <= lo <= hi <= 24, lo <= 12; got {back}")
    clo, chi = checkers
    if not 1 <= clo <= chi <= 15:
        raise InvalidParameterError(f"checkers must satisfy 1 <= lo <= hi <= 15; got {checkers}")
    if not home_weight > 0:
        raise InvalidParameterError(f"home_weight must be > 0, got {home_weight}")
    rng = np.random.default_rng(seed)
    player = np.zeros((n, 25), np.int64)
    opponent = np.zeros((n, 25), np.int64)
    for i in range(n):
        a = int(rng.integers(lo, min(hi, 24 - lo) + 1))
        b = int(rng.integers(lo, min(hi, 24 - a) + 1))
        player[i] = _side(rng, a, int(rng.integers(clo, chi + 1)), home_weight)
        opponent[i] = _side(rng, b, int(rng.integers(clo, chi + 1)), home_weight)
    return player, opponent


def ordinary_races(
    n: int = 100, seed: int = 2024, *, max_lead: float = 0.15, min_pips: int = 60
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``n`` "ordinary" long races: the test set of the long-race approximation.

    Candidates from :func:`random_races` with rearmost points 8-18, 13-15 checkers a side
    and home-board weight 2, kept (in order) when both sides have at least ``min_pips``
    pips and the side on roll's lead is within ``max_lead`` of its pip count (so that
    the race is neither a bear-off nor decided).
    """
    from mathbg.race.counts import pip_count

    player, opponent = random_races(
        max(40 * n, 100), seed, back=(8, 18), checkers=(13, 15), home_weight=2.0
    )
    pp, po = pip_count(player), pip_count(opponent)
    keep = np.nonzero((np.abs(po - pp) <= max_lead * pp) & (pp >= min_pips) & (po >= min_pips))[0][
        :n
    ]
    if len(keep) < n:
        raise InvalidParameterError(f"only {len(keep)} races match; ask for fewer")
    return player[keep], opponent[keep]
