"""Match equity without a doubling cube: Zoidis's cubeless MET and the variant rotation.

Without a cube, a game only moves the score by 1, 2 or 3 points, and with equal players
each game is won by either side with probability 1/2.

- :func:`cubeless`: the cubeless MET of one game type (single / gammon / backgammon rates),
  Zoidis's recipe [Zoidis2023]_ (Tavla, a single-variant match).
- :func:`rotation_met`: a match whose games rotate through variants (the Tavli match:
  Portes, Plakoto, Fevga), with per-game gammon and draw rates. Let ``G_k`` be the chance
  that a decisive game of the ``k``-th variant in the rotation is worth 2 points, ``D_k``
  its chance of a draw, and ``M_k(i, j)`` the chance that the player needing ``i`` points
  wins against one needing ``j`` when the next game is variant ``k``::

      M_k(i, j) = D_k M_{k+1}(i, j) + (1 - D_k) / 2 [(1 - G_k) M_{k+1}(i-1, j)
                  + G_k M_{k+1}(i-2, j) + (1 - G_k) M_{k+1}(i, j-1) + G_k M_{k+1}(i, j-2)],

  ``M(i <= 0, j) = 1``, ``M(i, j <= 0) = 0``, rotation indices modulo its length. For one
  variant (or equal ``G_k``) this is exactly :func:`cubeless` with ``backgammon_rate=0``
  and ``one_away=None`` (draws only delay: ``M = b / (1 - D)`` leaves it unchanged). The
  first player's advantage of starting a game is ignored, as in every MET.
- :func:`match_mwc`: a player's chance of winning a match in progress, read from the
  above; the match is any object with the :class:`ScoreSheet` methods (such as
  :class:`mathbg.rules.variants.match.VariantMatch`, which keeps the score and the
  per-variant rates; this module does not import the rules model).

References
----------
.. [Zoidis2023] T. Zoidis, cubeless MET (2023), GNU Backgammon ``met/cubeless.xml``; gammon
   and backgammon rates from Tom Keith's cubeless opening rollouts
   (https://bkgm.com/openings/rollouts.html).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from mathbg.errors import InvalidParameterError, InvalidScoreError
from mathbg.met._core import (
    check_equities,
    check_length,
    check_rate,
    continue_post_crawford,
    recurrence,
)
from mathbg.met.models import MODEL_ABOUT, model_table
from mathbg.met.published import load
from mathbg.met.table import MET

__all__ = ["ScoreSheet", "cubeless", "match_mwc", "rotation_met"]


# Its docstring describes length and gammon_rate in the words of mathbg.met.models's
# generators on purpose (one vocabulary for the MET generators), not shared code.
def cubeless(
    length: int = 25,
    gammon_rate: float = 0.2762,
    backgammon_rate: float = 0.0122,
    one_away: str | MET | None = "kazaross-xg2",
) -> MET:
    """The cubeless MET (matches without a doubling cube: Tavla, Tavli, ...), Zoidis (2023).

    Parameters
    ----------
    length : int
        Table length N (1..1024).
    gammon_rate : float
        Fraction of games ending in a gammon or backgammon, G. Default 27.62 %.
    backgammon_rate : float
        Fraction of games ending in a backgammon, B <= G. Default 1.22 % (both from Tom
        Keith's cubeless opening rollouts).
    one_away : str, MET or None
        Where the n-away vs 1-away entries come from: a table (or shipped table name) whose
        post-Crawford trailer value at (2n - 1)-away is the cubeless n-away vs 1-away MWC
        (post-Crawford every game is played for 2, so 2n - 1 away needs n wins, as n away
        does without a cube). Default Kazaross-XG2; its vector is extended by Zadeh's
        recurrence past its length. ``None`` computes them by the recurrence as well.

    Notes
    -----
    With each game won by either side with probability 1/2, as a single (1 - G), gammon
    (G - B) or backgammon (B)::

        M(i, j) = 1/2 [(1 - G) M(i-1, j) + (G - B) M(i-2, j) + B M(i-3, j)]
                + 1/2 [(1 - G) M(i, j-1) + (G - B) M(i, j-2) + B M(i, j-3)],

    ``M(i <= 0, j) = 1``, ``M(i, j <= 0) = 0``. Without a cube the Crawford rule changes
    nothing, so the post-Crawford vector equals the 1-away column. Reproduces gnubg's
    ``met/cubeless.xml`` (13 points, four decimals).

    Returns
    -------
    MET
        The cubeless ``length``-point table; its post-Crawford vector is its 1-away column.

    Raises
    ------
    InvalidScoreError
        For a length outside 1..1024.
    InvalidParameterError
        For rates out of range (``B > G``) or a ``one_away`` table with unequal players.

    References
    ----------
    G. Zoidis (2023); T. Keith's cubeless opening rollouts for the rates.

    Examples
    --------
    >>> t = cubeless(5)
    >>> float(t.pre[0, 0])
    0.5
    """
    n = check_length(length)
    g = check_rate(gammon_rate, "gammon_rate")
    b = check_rate(backgammon_rate, "backgammon_rate", high=g)
    first = np.full(n + 1, -1.0)
    params = {"gammon_rate": g, "backgammon_rate": b}
    source = MODEL_ABOUT["cubeless"][0]
    if one_away is not None:
        if isinstance(one_away, str):
            table = load(one_away)
        elif isinstance(one_away, MET):
            table = one_away
        else:
            raise InvalidParameterError(
                f"one_away must be a table name, a MET or None, got {one_away!r}"
            )
        need = 2 * n - 1
        pc0 = continue_post_crawford(table.post[0], max(need, table.length))
        pc1 = continue_post_crawford(table.post[1], max(need, table.length))
        for k in range(2, n + 1):
            first[k] = pc0[2 * k - 2]
        if not np.array_equal(pc0, pc1):
            raise InvalidParameterError(
                "one_away table has different post-Crawford vectors per player; "
                "the cubeless recipe needs an equal-players table"
            )
        source += f"; 1-away entries from {table.name}'s odd post-Crawford values"
    pre = recurrence("cubeless_table")(n, g, b, first)
    check_equities((pre,), "cubeless", params)
    post = np.vstack([pre[:, 0], 1.0 - pre[0, :]])
    notes = "" if one_away is None else f"one_away={getattr(one_away, 'name', one_away)}"
    return model_table("cubeless", pre, post, params, source=source, notes=notes)


def rotation_met(
    length: int, gammon_rates: Sequence[float], draw_rates: Sequence[float] | None = None
) -> np.ndarray:
    """Match-winning chances of a cubeless match whose games rotate through variants.

    Parameters
    ----------
    length : int
        Largest away score N.
    gammon_rates : sequence of float
        ``G_k`` for each game of the rotation: the chance a decisive game is worth 2.
    draw_rates : sequence of float, optional
        ``D_k``: the chance a game is drawn (default 0).

    Returns
    -------
    ndarray, shape (R, N + 1, N + 1)
        ``M[k, i, j]`` = chance that the player needing ``i`` wins against one needing
        ``j`` when the next game is the rotation's ``k``-th (index 0 = already won is
        ``M[k, 0, j] = 1``, ``M[k, i, 0] = 0``). The recurrence is in the module
        docstring; draws make it cyclic across the rotation at a fixed score, solved
        exactly: ``x_k = D_k x_{k+1} + b_k`` around the cycle gives
        ``x_0 = sum_m (prod_{l<m} D_l) b_m / (1 - prod_l D_l)``.

    Raises
    ------
    InvalidParameterError
        For a length below 1, gammon rates outside [0, 1], draw rates outside [0, 1) or
        not one draw rate per gammon rate.

    Examples
    --------
    >>> m = rotation_met(3, [0.2, 0.2])
    >>> m.shape, float(m[0, 1, 1])
    ((2, 4, 4), 0.5)
    """
    g = np.asarray(gammon_rates, dtype=float)
    r = len(g)
    d = np.zeros(r) if draw_rates is None else np.asarray(draw_rates, dtype=float)
    if r == 0 or d.shape != (r,):
        raise InvalidParameterError("one gammon rate (and draw rate) per game of the rotation")
    if np.any((g < 0) | (g > 1)) or np.any((d < 0) | (d >= 1)):
        raise InvalidParameterError("gammon rates must be in [0, 1] and draw rates in [0, 1)")
    n = int(length)
    if n < 1:
        raise InvalidParameterError(f"length must be >= 1, got {length}")
    m = np.zeros((r, n + 1, n + 1))
    m[:, 0, 1:] = 1.0

    def at(k: int, i: int, j: int) -> float:
        if i <= 0:
            return 1.0
        if j <= 0:
            return 0.0
        return float(m[k % r, i, j])

    for total in range(2, 2 * n + 1):
        for i in range(max(1, total - n), min(n, total - 1) + 1):
            j = total - i
            b = np.empty(r)
            for k in range(r):
                nk = k + 1
                b[k] = (
                    (1.0 - d[k])
                    * 0.5
                    * (
                        (1.0 - g[k]) * at(nk, i - 1, j)
                        + g[k] * at(nk, i - 2, j)
                        + (1.0 - g[k]) * at(nk, i, j - 1)
                        + g[k] * at(nk, i, j - 2)
                    )
                )
            for k in range(r):
                acc, prod = 0.0, 1.0
                for step in range(r):
                    kk = (k + step) % r
                    acc += prod * b[kk]
                    prod *= d[kk]
                m[k, i, j] = acc / (1.0 - prod)
    return m


class ScoreSheet(Protocol):
    """What :func:`match_mwc` reads from a match without a cube (a structural type)."""

    @property
    def is_over(self) -> bool:
        """The match is won."""
        ...

    @property
    def winner(self) -> int | None:
        """The player who won the match, or None."""
        ...

    @property
    def next_game_index(self) -> int:
        """Index in the rotation of the next game."""
        ...

    def away(self, player: int) -> int:
        """Points ``player`` still needs."""
        ...

    def gammon_rates(
        self, given: Sequence[float] | dict[object, float] | None = None
    ) -> list[float]:
        """``G_k`` for each game of the rotation (``given`` overrides the defaults)."""
        ...

    def draw_rates(self, given: Sequence[float] | dict[object, float] | None = None) -> list[float]:
        """``D_k`` for each game of the rotation (``given`` overrides the defaults)."""
        ...


def match_mwc(
    match: ScoreSheet,
    player: int = 0,
    *,
    gammon_rates: Sequence[float] | dict[object, float] | None = None,
    draw_rates: Sequence[float] | dict[object, float] | None = None,
) -> float:
    """``player``'s chance of winning a match without a cube from its current score.

    A single-variant match reads the cubeless MET (:func:`cubeless`, with the variant's
    gammon rate, no backgammons, 1-away entries by the same recurrence); a rotation (Tavli)
    uses :func:`rotation_met`, which reduces to it when the variants' gammon rates are
    equal.

    Parameters
    ----------
    match : ScoreSheet
        E.g. :class:`mathbg.rules.variants.match.VariantMatch`.
    player : {0, 1}
    gammon_rates, draw_rates : sequence (one per rotation game) or dict by variant, optional
        Default: the match's own (``VariantMatch``: the measured per-variant rates).

    Returns
    -------
    float
        The player's match winning chance.

    Raises
    ------
    InvalidScoreError
        For a player other than 0 or 1.
    InvalidParameterError
        For the match's (or the given) rates out of range.

    Examples
    --------
    >>> from mathbg.rules.variants.match import VariantMatch
    >>> match_mwc(VariantMatch(length=3, rotation=("fevga",)), 0)  # 0-0: even
    0.5
    """
    if player not in (0, 1):
        raise InvalidScoreError(f"player must be 0 or 1, got {player}")
    if match.is_over:
        return 1.0 if match.winner == player else 0.0
    i, j = match.away(player), match.away(1 - player)
    g = match.gammon_rates(gammon_rates)
    if len(g) == 1:
        met = cubeless(max(i, j), gammon_rate=g[0], backgammon_rate=0.0, one_away=None)
        return float(met.mwc((i, j)))
    d = match.draw_rates(draw_rates)
    m = rotation_met(max(i, j), g, d)
    return float(m[match.next_game_index, i, j])
