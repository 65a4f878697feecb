"""The exact engine's games: bearoff races played by the exact match bearoff solver.

Both players take checker play and cube decisions from
:func:`mathbg.bearoff.exact.match.solve_game`, solved for the entry's score under the
table built so far (both rollers' solutions, cached per process by the table's digest).
A game is a walk through the bearoff space: at each turn the roller doubles when ``DT >=
ND`` and ``DP >= ND`` (the opponent takes when ``DT < DP``), then plays the successor
with the smallest value for the opponent.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from mathbg.analysis.selfplay.batch import Batch, new_arrays, strata
from mathbg.analysis.selfplay.table import Entry, after
from mathbg.errors import InvalidParameterError
from mathbg.met.table import MET
from mathbg.rules.dice import ROLL_INDEX
from mathbg.rules.match import ScoreState

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.bearoff.exact.match import GameSolution

__all__ = ["exact_space", "play_exact"]


def exact_space(start: Any) -> tuple[int, int, int, int]:
    """The bearoff space of a start and both sides' ranks in it.

    Parameters
    ----------
    start : (counts, counts)
        The first roller's and the other side's checkers on points 1..6.

    Returns
    -------
    (int, int, int, int)
        Points (6), checkers (the larger side), the roller's and the other side's rank.

    Raises
    ------
    InvalidParameterError
        For anything but two sides of 1..14 checkers on points 1..6.

    Examples
    --------
    >>> exact_space(([0, 0, 0, 0, 0, 2], [1]))[:2]
    (6, 2)
    """
    from mathbg.bearoff.index import rank, validate_counts

    if not (isinstance(start, tuple) and len(start) == 2):
        raise InvalidParameterError(
            "the exact engine plays bearoff races: give start=(counts, counts), checker "
            "counts on points 1..6 of the first roller and of the other side"
        )
    r = validate_counts(start[0], 6, 14, what="start roller")
    o = validate_counts(start[1], 6, 14, what="start opponent")
    if not r.any() or not o.any():
        raise InvalidParameterError("both starting positions need a checker on the board")
    checkers = int(max(r.sum(), o.sum()))
    return 6, checkers, int(rank(r, 6)), int(rank(o, 6))


class _Boxed:
    """A MET hashed by a digest (the solution cache's key)."""

    def __init__(self, met: MET, digest: str) -> None:
        self.met, self.digest = met, digest

    def __hash__(self) -> int:
        return hash(self.digest)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Boxed) and other.digest == self.digest


@lru_cache(maxsize=2)
def _solutions(
    points: int, checkers: int, entry: Entry, table: _Boxed
) -> tuple[GameSolution, GameSolution]:
    """Both rollers' exact solutions of one entry under the table (cached per process)."""
    from mathbg.bearoff.exact.match import met_mwc, solve_game

    mwc0 = met_mwc(table.met)

    def mwc1(x: int, y: int, k: str) -> float:
        return 1.0 - mwc0(y, x, k)

    state, (a, b) = entry
    return (
        solve_game(points, checkers, (a, b), state, mwc0),
        solve_game(points, checkers, (b, a), state, mwc1),
    )


def play_exact(job: Batch, met: MET, rng: np.random.Generator) -> dict[str, NDArray[Any]]:
    """Both players exact: the bearoff solver's checker play and cube decisions.

    Parameters
    ----------
    job : Batch
        The batch (its ``start`` a bearoff race).
    met : MET
        The table built so far.
    rng : numpy.random.Generator
        The batch's dice.

    Returns
    -------
    dict of str to ndarray
        The per-game arrays (:data:`~mathbg.analysis.selfplay.batch.FIELDS`).

    Examples
    --------
    One checker each on the 1-point at 2-away/2-away: the first roller bears off at once
    (doubling first: a double is always a pass there), so player 0 wins the games he starts.

    >>> from mathbg.analysis.registry import get_player
    >>> from mathbg.met import load
    >>> xg, exact = load("kazaross-xg2", length=2), get_player("exact")
    >>> job = Batch(Entry(ScoreState.NORMAL, (2, 2)), 0, 72, 0, (exact, exact), True,
    ...             ([1], [1]), None, True, np.array(xg.pre), np.array(xg.post))
    >>> games = play_exact(job, xg, job.streams()[0])
    >>> bool(((games["winner"] == 0) == (games["first"] == 0)).all())
    True
    """
    from mathbg.bearoff.plays import successors

    points, checkers, x0, y0 = exact_space(job.start)
    digest = hashlib.sha256(job.pre.tobytes() + job.post.tobytes()).hexdigest()
    sols = _solutions(points, checkers, job.entry, _Boxed(met, digest))
    table = successors(points, checkers)
    arrays: dict[tuple[int, int, int], dict[str, Any]] = {}

    def arr(view: int, c: int, own: int) -> dict[str, Any]:
        key = (view, c, own)
        if key not in arrays:
            name = "centre" if own < 0 else "player" if own == view else "opponent"
            arrays[key] = sols[view].decision_arrays(c, name)
        return arrays[key]

    out = new_arrays(job.games)
    count, stratum = strata(job.start)
    for g in range(job.games):
        h = g % count
        first, roll = stratum(h)
        out["stratum"][g], out["first"][g] = h, first
        _walk(out, g, first, roll, (x0, y0), arr, table, job.entry, rng)
        w, pts = int(out["winner"][g]), int(out["points"][g])
        out["value"][g] = after(met, job.entry, pts if w == 0 else 0, pts if w == 1 else 0)
    return out


_ROLLS = {(d1, d2): ROLL_INDEX[(max(d1, d2), min(d1, d2))]
          for d1 in range(1, 7) for d2 in range(1, 7)}  # fmt: skip


def _walk(
    out: dict[str, NDArray[Any]],
    g: int,
    first: int,
    roll: tuple[int, int],
    start: tuple[int, int],
    arr: Callable[[int, int, int], dict[str, Any]],
    table: Any,
    entry: Entry,
    rng: np.random.Generator,
) -> None:
    """Game ``g``: from the start to the end, the solver's cube and checker play."""
    away = entry.away
    cubeless = entry.state is ScoreState.CRAWFORD
    r, (i, j) = first, start
    c, own, turn = 1, -1, 0
    while True:
        if not cubeless and (own in (-1, r)) and away[r] > c:
            d = arr(r, c, own)
            if d["access"]:
                nd, dt = d["no_double"][i, j], d["double_take"][i, j]
                dp = float(d["double_pass"][i, j])
                if dt >= nd and dp >= nd:
                    if out["first_double"][g] < 0:
                        out["first_double"][g] = turn
                        out["first_passed"][g] = 0 if dt < dp else 1
                    if not dt < dp:
                        out["winner"][g], out["points"][g], out["cube"][g] = r, c, c
                        return
                    c, own = 2 * c, 1 - r
        d1, d2 = roll if turn == 0 else (int(v) for v in rng.integers(1, 7, 2))
        out["rolls"][g] += 1
        k = _ROLLS[(d1, d2)]
        succ = table.succ[table.ptr[i * 21 + k] : table.ptr[i * 21 + k + 1]]
        if (succ == 0).any():
            out["winner"][g], out["points"][g], out["cube"][g] = r, c, c
            out["result"][g] = 1
            return
        opt = arr(1 - r, c, own)["optimal"]
        r, i, j = 1 - r, j, int(succ[int(np.argmin(opt[j, succ]))])
        turn += 1
