"""Race counts: pip, Keith, Thorp, Kleinman, 8-9-12, Trice (rule 62) and Isight.

A flat module of pure, vectorised functions. Every count takes one or both sides' checker
counts in the **point-count layout**, the layout of a row of
:attr:`mathbg.rules.position.Position.board` (gnubg's ``TanBoard`` row):

=======  ====================================================================
index    content
=======  ====================================================================
0..23    checkers on points 1..24, numbered from that side's own home (point 1
         is the side's ace point, the last point it bears off from)
24       checkers on the bar (counted as point 25)
=======  ====================================================================

An array of shape ``(25,)`` is one side; ``(..., 25)`` is a batch, and every function
broadcasts over the leading axes. Borne-off checkers are implicit (15 minus those on the
board). ``player`` is always the side on roll ("leader" L in the counts' literature, even
when it trails) and ``opponent`` the side not on roll ("trailer" T).

Each count comes with its own cube advice, with the thresholds as the count's author stated
them; where sources disagree the author's version is the default and the others are
options (the ``convention`` parameters). The advice is a :class:`CountAdvice`: three
booleans (initial double right, redouble right, take right) and a one-line ``verdict``.

Sources (summarised in ``theory-and-sources.md`` §3): E. O. Thorp (1975) via the bkgm.com
glossary and S. Woodhead (r.g.b. 1991); T. Keith, "Cube Handling In Noncontact Positions"
and the bkgm.com glossary; D. Kleinman's metric as restated by Ø. Johansen (r.g.b. 2001);
B. Robertie's 8-9-12 rule (*Advanced Backgammon*; M. Zehr, r.g.b. 1995); W. Trice's rule
62 (*Backgammon Boot Camp*; XG2 help "Trice count"); the Isight count as gnubg defines it
(``eval.c: IsightCount``, ``show.c: show_isight``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg._output import FrameMixin
from mathbg._special import erfc
from mathbg.errors import InvalidParameterError, InvalidPositionError

__all__ = [
    "AVERAGE_ROLL_PIPS",
    "BAR_INDEX",
    "CountAdvice",
    "CountVerdict",
    "as_side",
    "checkers_left",
    "crossovers",
    "isight_advice",
    "isight_count",
    "isight_counts",
    "isight_win_probability",
    "keith_adjusted",
    "keith_advice",
    "keith_count",
    "kleinman_advice",
    "kleinman_metric",
    "kleinman_win_probability",
    "lead_8912",
    "lead_8912_advice",
    "pip_count",
    "thorp_adjusted",
    "thorp_advice",
    "thorp_count",
    "trice_adjusted_counts",
    "trice_advice",
    "trice_point_of_last_take",
]

#: Column of the bar in the point-count layout (point 25).
BAR_INDEX = 24
#: Average pips of a roll, doubles counted four times: ``(2*sum_{a<b}(a+b) + 4*sum_d d)/36``.
AVERAGE_ROLL_PIPS = 49.0 / 6.0

_POINTS = np.arange(1, 26, dtype=np.int64)  # point number of each column (bar = 25)
_QUADRANT = (_POINTS - 1) // 6  # 0 home, 1 outer, 2 opponent's outer, 3 opponent's home, 4 bar

Int = Any  # an int, or an int64 array for batches
Float = Any  # a float, or a float64 array for batches
Bool = Any  # a bool, or a bool array for batches


# ----------------------------------------------------------------------------- layout


def as_side(counts: ArrayLike, name: str = "counts") -> NDArray[np.int64]:
    """Check and convert one side's (or a batch of sides') point counts.

    Parameters
    ----------
    counts : array_like of int, shape (..., 25) or (..., 24)
        Checkers on points 1..24 and (optionally, index 24) the bar; with 24 columns the
        bar is empty.
    name : str
        Used in error messages.

    Returns
    -------
    numpy.ndarray of int64, shape (..., 25)

    Raises
    ------
    InvalidPositionError
        For another shape, negative counts or more than 15 checkers on a side.
    """
    a = np.asarray(counts)
    if a.dtype == object:  # e.g. a 20-digit count numpy cannot hold
        raise InvalidPositionError(f"{name}: checker counts must be small whole numbers")
    if a.ndim == 0 or a.shape[-1] not in (24, 25):
        raise InvalidPositionError(
            f"{name}: expected point counts of shape (..., 25) (points 1..24, bar), "
            f"got shape {a.shape}"
        )
    if a.size and not np.issubdtype(a.dtype, np.integer):
        if not np.all(np.equal(np.mod(a, 1), 0)):
            raise InvalidPositionError(f"{name}: checker counts must be whole numbers")
    a = a.astype(np.int64, copy=False)
    if a.shape[-1] == 24:
        a = np.concatenate([a, np.zeros((*a.shape[:-1], 1), np.int64)], axis=-1)
    if a.size:
        if a.min() < 0:
            raise InvalidPositionError(f"{name}: negative checker count")
        if a.sum(axis=-1).max() > 15:
            raise InvalidPositionError(f"{name}: more than 15 checkers on a side")
    return a


def _scalar(a: Any) -> Any:
    """0-d arrays to Python scalars; arrays unchanged."""
    if isinstance(a, np.ndarray) and a.ndim == 0:
        return a.item()
    if isinstance(a, np.generic):
        return a.item()
    return a


def _pair(player: ArrayLike, opponent: ArrayLike) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    return as_side(player, "player"), as_side(opponent, "opponent")


# ----------------------------------------------------------------------------- advice


class CountVerdict(StrEnum):
    """A race count's cube verdict, worded as gnubg's ``show keith|thorp|8912|isight``.

    ``REDOUBLE_TAKE`` means the count says both an initial double and a redouble are
    right; ``DOUBLE_TAKE`` an initial double only.
    """

    NO_DOUBLE_TAKE = "no double, take"
    DOUBLE_TAKE = "double, take"
    REDOUBLE_TAKE = "redouble, take"
    DOUBLE_PASS = "double, pass"


@dataclass(frozen=True)
class CountAdvice(FrameMixin):
    """The cube advice of one count (booleans, or boolean arrays for a batch).

    Attributes
    ----------
    double : bool
        The side on roll has an initial double (centred cube).
    redouble : bool
        The side on roll has a redouble (it owns the cube).
    take : bool
        The opponent should take a double.
    """

    double: Bool
    redouble: Bool
    take: Bool

    @property
    def verdict(self) -> Any:
        """One :class:`CountVerdict` (a string), or an array of them for a batch:
        ``double, pass`` when the opponent should pass, else ``redouble, take`` when even
        a redouble is right, ``double, take`` when an initial double is, else
        ``no double, take``."""
        d, r, t = (np.asarray(v, dtype=bool) for v in (self.double, self.redouble, self.take))
        names = np.array([str(v) for v in CountVerdict], dtype=object)
        code = np.where(~t, 3, np.where(r, 2, np.where(d, 1, 0)))
        out = names[code]
        return CountVerdict(str(out)) if np.ndim(out) == 0 else out

    def as_dict(self) -> dict[str, Any]:
        """``{"double", "redouble", "take", "verdict"}`` (plain Python values for one
        position)."""
        return {
            "double": _scalar(np.asarray(self.double)),
            "redouble": _scalar(np.asarray(self.redouble)),
            "take": _scalar(np.asarray(self.take)),
            "verdict": str(self.verdict) if np.ndim(self.double) == 0 else self.verdict,
        }


def _advice(double: Any, redouble: Any, take: Any) -> CountAdvice:
    return CountAdvice(_scalar(np.asarray(double)), _scalar(np.asarray(redouble)),
                       _scalar(np.asarray(take)))  # fmt: skip


def _check_choice(value: str, choices: tuple[str, ...], what: str) -> str:
    if value not in choices:
        raise InvalidParameterError(f"{what} must be one of {choices}, got {value!r}")
    return value


# ----------------------------------------------------------------------------- basics


def pip_count(side: ArrayLike) -> Int:
    """Pip count: ``sum_p p * n_p``, a checker on the bar counting 25.

    The starting position has 167 pips a side.
    """
    a = as_side(side)
    return _scalar(a @ _POINTS)


def checkers_left(side: ArrayLike) -> Int:
    """Checkers still on the board (bar included)."""
    return _scalar(as_side(side).sum(axis=-1))


def crossovers(side: ArrayLike) -> Int:
    """Crossovers still to make: ``sum_p n_p * floor((p - 1) / 6)`` (a checker on the bar
    needs 4, one in the opponent's home board 3, ...), as gnubg's ``IsightCount``."""
    return _scalar(as_side(side) @ _QUADRANT)


# ----------------------------------------------------------------------------- Keith


def keith_count(side: ArrayLike) -> Int:
    """Tom Keith's count for one side, before the side-on-roll addition.

    ``K = pips + 2 (n_1 - 1)^+ + (n_2 - 1)^+ + (n_3 - 3)^+ + #{empty among points 4, 5, 6}``

    with ``n_p`` the checkers on point p and ``x^+ = max(x, 0)``: 2 pips per checker
    beyond one on the 1-point, 1 per checker beyond one on the 2-point, 1 per checker
    beyond three on the 3-point, 1 per empty 4-, 5- or 6-point.

    References
    ----------
    T. Keith, "Cube Handling In Noncontact Positions" (bkgm.com, 2004); bkgm.com glossary
    "Keith count"; gnubg ``eval.c: KeithCount`` (identical terms).
    """
    a = as_side(side)
    k = (
        a @ _POINTS
        + 2 * np.maximum(a[..., 0] - 1, 0)
        + np.maximum(a[..., 1] - 1, 0)
        + np.maximum(a[..., 2] - 3, 0)
        + (a[..., 3:6] == 0).sum(axis=-1)
    )
    return _scalar(k)


def keith_adjusted(count: ArrayLike, rounding: Literal["down", "none"] = "down") -> Any:
    """The side on roll's Keith count after adding one seventh.

    Parameters
    ----------
    count : int or array of int
        The raw :func:`keith_count` of the side on roll.
    rounding : {"down", "none"}
        ``"down"`` (default, as Keith wrote): ``K + floor(K / 7)``, an integer;
        ``"none"``: ``8 K / 7`` unrounded, as gnubg 1.07 prints it (gnubg changed to integer
        division in Feb 2025).
    """
    _check_choice(rounding, ("down", "none"), "rounding")
    k = np.asarray(count)
    if rounding == "down":
        return _scalar(k + k // 7)
    return _scalar(k + k / 7.0)


def keith_advice(
    player: ArrayLike,
    opponent: ArrayLike,
    *,
    rounding: Literal["down", "none"] = "down",
    convention: Literal["keith", "gnubg"] = "keith",
) -> CountAdvice:
    """Keith's cube advice from both sides' point counts.

    With ``L`` the side on roll's adjusted count (:func:`keith_adjusted`) and ``T`` the
    opponent's raw count, Keith: double if ``L - T <= 4``, redouble if ``L - T <= 3``,
    take if ``L - T >= 2``.

    ``convention="gnubg"`` reproduces gnubg 1.07's ``show keith`` (``show.c: show_keith``):
    pass when ``L - T <= 2`` (so ``L - T = 2`` exactly is a pass, where Keith says take),
    computed in single precision as gnubg does; use it with ``rounding="none"`` to
    reproduce gnubg's verdict.
    """
    _check_choice(convention, ("keith", "gnubg"), "convention")
    kp, ko = keith_count(player), keith_count(opponent)
    if convention == "gnubg":
        f32 = np.float32
        lf = np.asarray(kp, dtype=f32) * f32(8.0) / f32(7.0)
        if rounding == "down":
            lf = np.asarray(keith_adjusted(kp, "down"), dtype=f32)
        t = np.asarray(ko, dtype=f32)
        return _advice(t >= lf - f32(4.0), t >= lf - f32(3.0), ~(t >= lf - f32(2.0)))
    diff = np.asarray(keith_adjusted(kp, rounding)) - np.asarray(ko)
    return _advice(diff <= 4, diff <= 3, diff >= 2)


# ----------------------------------------------------------------------------- Thorp


def thorp_count(side: ArrayLike) -> Int:
    """Edward O. Thorp's count for one side, before the side-on-roll addition.

    ``T = pips + 2 * (checkers left) + n_1 - (home points occupied)``

    (pip count, plus 2 per checker on the board, plus 1 per checker on the 1-point,
    minus 1 per occupied point of the home board).

    References
    ----------
    E. O. Thorp, "Backgammon: the optimal strategy for the pure running game" (1975);
    bkgm.com glossary "Thorp count"; S. Woodhead, r.g.b. 11 Sep 1991 (bkgm.com rgb
    view+772); gnubg ``eval.c: ThorpCount`` (identical terms).
    """
    a = as_side(side)
    t = a @ _POINTS + 2 * a.sum(axis=-1) + a[..., 0] - (a[..., :6] > 0).sum(axis=-1)
    return _scalar(t)


def thorp_adjusted(count: ArrayLike, rounding: Literal["none", "down"] = "none") -> Any:
    """The side on roll's Thorp count after the 10 % addition.

    ``L = T + T / 10`` when ``T > 30``, else ``T``. Thorp's own rounding is not on record;
    ``"none"`` (default) keeps the tenths, as gnubg prints them and as C. Bower advised
    (r.g.b. 1999, view+947, which also avoids most ties); ``"down"`` gives
    ``T + floor(T / 10)`` (J. Greenwood, r.g.b. 1997).
    """
    _check_choice(rounding, ("none", "down"), "rounding")
    t = np.asarray(count)
    add = t // 10 if rounding == "down" else t / 10.0
    return _scalar(np.where(t > 30, t + add, t * (1.0 if rounding == "none" else 1)))


def thorp_advice(
    player: ArrayLike,
    opponent: ArrayLike,
    *,
    convention: Literal["thorp", "gnubg", "xg"] = "thorp",
    rounding: Literal["none", "down"] = "none",
) -> CountAdvice:
    """Thorp's cube advice from both sides' point counts.

    With ``L`` the side on roll's adjusted count (:func:`thorp_adjusted`) and ``T`` the
    opponent's raw count, Thorp: double if ``L <= T + 2``, redouble if ``L <= T + 1``,
    take if ``T <= L + 2`` (bkgm.com glossary; Woodhead 1991: "if T > L + 2 the trailer
    should pass").

    The sources disagree on the pass line, so ``convention`` chooses it:

    - ``"thorp"`` (default): pass if ``T > L + 2``;
    - ``"gnubg"``: pass if ``T >= L + 2`` (gnubg 1.07 ``show thorp``, computed in single
      precision with ``L = 1.1f * T`` as gnubg does);
    - ``"xg"``: pass if ``L - T <= -1``, i.e. ``T >= L + 1`` (eXtreme Gammon's help,
      "Race formulas").
    """
    _check_choice(convention, ("thorp", "gnubg", "xg"), "convention")
    tp, to = thorp_count(player), thorp_count(opponent)
    if convention == "gnubg":
        f32 = np.float32
        tpa = np.asarray(tp)
        lf = np.where(tpa > 30, tpa.astype(f32) * f32(1.1), tpa.astype(f32)).astype(f32)
        if rounding == "down":
            lf = np.asarray(thorp_adjusted(tp, "down"), dtype=f32)
        t = np.asarray(to, dtype=f32)
        return _advice(t >= lf - f32(2.0), t >= lf - f32(1.0), ~(t >= lf + f32(2.0)))
    lead = np.asarray(thorp_adjusted(tp, rounding)) - np.asarray(to)  # L - T
    take = lead >= -2 if convention == "thorp" else lead > -1
    return _advice(lead <= 2, lead <= 1, take)


# ----------------------------------------------------------------------------- Kleinman


def kleinman_metric(pips_player: ArrayLike, pips_opponent: ArrayLike) -> Float:
    """Danny Kleinman's metric ``K = (D + 4)^2 / (S - 4)``.

    ``D = pips_opponent - pips_player`` (the side on roll's lead; being on roll is worth 4
    pips) and ``S = pips_opponent + pips_player``. NaN when ``S <= 4`` (the model does
    not apply).

    Note gnubg's ``show kleinman`` prints ``(D + 4) / (2 sqrt(S - 4))``, which is
    ``sign(D + 4) sqrt(K) / 2``, not K.
    """
    p = np.asarray(pips_player, dtype=np.float64)
    o = np.asarray(pips_opponent, dtype=np.float64)
    d, s = o - p, o + p
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.where(s > 4, (d + 4.0) ** 2 / np.where(s > 4, s - 4.0, 1.0), np.nan)
    return _scalar(k)


def kleinman_win_probability(pips_player: ArrayLike, pips_opponent: ArrayLike) -> Float:
    """Kleinman's cubeless winning chance of the side on roll.

    ``P = Phi(sign(D + 4) sqrt(K / 2)) = Phi((D + 4) / sqrt(2 (S - 4)))``: under the model
    each roll moves 8 pips on average with standard deviation about 4, and the sign of
    ``D + 4`` (lost by squaring in K) comes back. ``K = 1`` gives 76.0 %.
    NaN when ``S <= 4``.

    References
    ----------
    D. Kleinman; Ø. Johansen, "Kleinman Count", r.g.b. 22 Feb 2001; gnubg ``eval.c:
    KleinmanCount`` (``0.5 (1 + erf((D + 4) / (2 sqrt(S - 4))))``).
    """
    p = np.asarray(pips_player, dtype=np.float64)
    o = np.asarray(pips_opponent, dtype=np.float64)
    d, s = o - p, o + p
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(s > 4, (d + 4.0) / np.sqrt(2.0 * np.where(s > 4, s - 4.0, 1.0)), np.nan)
    # Phi(z) = erfc(-z / sqrt 2) / 2 (the standard library's erfc: no scipy to import)
    return _scalar(0.5 * erfc(-z / math.sqrt(2.0)))


def kleinman_advice(pips_player: ArrayLike, pips_opponent: ArrayLike) -> CountAdvice:
    """Kleinman's rules of thumb (as restated by Ø. Johansen, r.g.b. 2001).

    With the side on roll ahead (``D + 4 > 0``): double from ``K = 0.5`` (69 %), redouble
    from ``K = 0.7`` (72 %), take up to ``K = 1.2`` (78 %, the borderline).
    """
    p = np.asarray(pips_player)
    o = np.asarray(pips_opponent)
    k = np.asarray(kleinman_metric(p, o))
    ahead = (o - p + 4) > 0
    ok = ~np.isnan(k)
    return _advice(ahead & ok & (k >= 0.5), ahead & ok & (k >= 0.7), ~(ahead & ok & (k > 1.2)))


# ----------------------------------------------------------------------------- 8-9-12


def lead_8912(pips_player: ArrayLike, pips_opponent: ArrayLike) -> Float:
    """The side on roll's lead as a percentage of its own pip count, ``100 (T - L) / L``
    (negative when it trails). NaN for ``L = 0``."""
    p = np.asarray(pips_player, dtype=np.float64)
    o = np.asarray(pips_opponent, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _scalar(np.where(p > 0, 100.0 * (o - p) / np.where(p > 0, p, 1.0), np.nan))


def lead_8912_advice(pips_player: ArrayLike, pips_opponent: ArrayLike) -> CountAdvice:
    """Robertie's 8-9-12 rule: double with a lead of 8 % or more, redouble with 9 % or
    more, take when the lead is at most 12 %.

    References
    ----------
    B. Robertie, *Advanced Backgammon* (1984); S. Woodhead, r.g.b. 1991; M. Zehr,
    r.g.b. 1995. gnubg's ``show 8912`` uses strict inequalities and swaps the labels (it
    prints "Redouble, Take" for 8-9 % and "Double, Take" for 9-12 %).
    """
    lead = np.asarray(lead_8912(pips_player, pips_opponent))
    ok = ~np.isnan(lead)
    return _advice(ok & (lead >= 8.0), ok & (lead >= 9.0), ~(ok & (lead > 12.0)))


# ----------------------------------------------------------------------------- Trice


def trice_adjusted_counts(player: ArrayLike, opponent: ArrayLike) -> tuple[Float, Float]:
    """Both sides' adjusted counts for Trice's rule 62 (also called Ward's adjusted count).

    For each side, relative to the other: ``pips + 2 (checkers more than the opponent)^+
    + 2 (n_1 - 2)^+ + (n_2 - 2)^+ + (occupied home points fewer than the opponent's)^+
    + 1/2 (checkers outside the home board)``. The home-point term is the XG help's
    "-1 per extra occupied home point versus the opponent" written as a penalty to the
    side with fewer points, so only the difference of the two counts matters.

    Returns
    -------
    (float, float)
        The side on roll's and the opponent's adjusted counts.

    References
    ----------
    W. Trice, *Backgammon Boot Camp* (2004); eXtreme Gammon help, "Trice count".
    """
    a, b = _pair(player, opponent)

    def adjust(x: NDArray[np.int64], y: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.asarray(
            x @ _POINTS
            + 2.0 * np.maximum(x.sum(axis=-1) - y.sum(axis=-1), 0)
            + 2.0 * np.maximum(x[..., 0] - 2, 0)
            + np.maximum(x[..., 1] - 2, 0)
            + np.maximum((y[..., :6] > 0).sum(axis=-1) - (x[..., :6] > 0).sum(axis=-1), 0)
            + 0.5 * x[..., 6:].sum(axis=-1)
        )

    return _scalar(adjust(a, b)), _scalar(adjust(b, a))


def trice_point_of_last_take(leader_count: ArrayLike) -> Int:
    """Trice's point of last take: how many pips the trailer may be behind and still take.

    ``PLT = floor((L - 5) / 7)`` for ``L < 62``, else ``ceil(L / 10 + 1)`` ("-5, /7, down;
    /10, +1, up; switch at 62": both give 8 at L = 62), with ``L`` the leader's (adjusted)
    count.
    """
    lc = np.asarray(leader_count, dtype=np.float64)
    plt = np.where(lc < 62, np.floor((lc - 5.0) / 7.0), np.ceil(lc / 10.0 + 1.0))
    return _scalar(plt.astype(np.int64))


def trice_advice(player: ArrayLike, opponent: ArrayLike) -> CountAdvice:
    """Trice's rule 62 on the adjusted counts (:func:`trice_adjusted_counts`).

    With ``Q = L + PLT(L) - T`` (``L``, ``T`` the adjusted counts of the side on roll and
    of the opponent): ``Q < 0`` pass; ``Q <= 2`` redouble (and take); ``Q <= 3`` initial
    double; ``Q > 3`` no double.
    """
    lc, tc = trice_adjusted_counts(player, opponent)
    q = np.asarray(lc) + np.asarray(trice_point_of_last_take(lc)) - np.asarray(tc)
    return _advice(q <= 3, q <= 2, q >= 0)


# ----------------------------------------------------------------------------- Isight


def isight_counts(player: ArrayLike, opponent: ArrayLike) -> tuple[Int, Int]:
    """The Isight counts of both sides, as gnubg defines them (``eval.c: IsightCount``).

    For each side, relative to the other:

    ``pips + (checkers more than the opponent)^+ + 2 (n_1 - 2)^+ + (n_2 - 2)^+
    + (n_3 - 3)^+ + #{p in 4, 5, 6: own point p empty and the opponent's point p held}
    + (own crossovers - opponent's crossovers)^+``

    with crossovers as :func:`crossovers` (the bar counting 4). No addition for the side on
    roll (being on roll is in the winning-chance formula).

    Returns
    -------
    (int, int)
        The side on roll's and the opponent's counts.
    """
    a, b = _pair(player, opponent)
    cross_a, cross_b = a @ _QUADRANT, b @ _QUADRANT
    men_a, men_b = a.sum(axis=-1), b.sum(axis=-1)

    def one(
        x: NDArray[np.int64], y: NDArray[np.int64], men: tuple[Any, ...], cross: tuple[Any, ...]
    ) -> NDArray[np.float64]:
        return np.asarray(
            x @ _POINTS
            + np.maximum(men[0] - men[1], 0)
            + 2 * np.maximum(x[..., 0] - 2, 0)
            + np.maximum(x[..., 1] - 2, 0)
            + np.maximum(x[..., 2] - 3, 0)
            + ((x[..., 3:6] == 0) & (y[..., 3:6] > 0)).sum(axis=-1)
            + np.maximum(cross[0] - cross[1], 0)
        )

    return (
        _scalar(one(a, b, (men_a, men_b), (cross_a, cross_b))),
        _scalar(one(b, a, (men_b, men_a), (cross_b, cross_a))),
    )


def isight_count(side: ArrayLike, other: ArrayLike) -> Int:
    """The Isight count of ``side`` against ``other`` (see :func:`isight_counts`)."""
    return isight_counts(side, other)[0]


def isight_win_probability(count_player: ArrayLike, count_opponent: ArrayLike) -> Float:
    """Isight's estimated winning chance of the side on roll, in percent.

    ``GWC = 80 - L / 3 + 2 (T - L)`` with ``L``, ``T`` the Isight counts of the side on
    roll and of the opponent (gnubg ``show.c: show_isight``; gnubg 1.07 labels the last
    term "2*(L-T)" but computes ``2 (T - L)``). Not clamped: it exceeds 100 in short
    bear-offs, as gnubg prints it.
    """
    lc = np.asarray(count_player, dtype=np.float64)
    tc = np.asarray(count_opponent, dtype=np.float64)
    return _scalar(80.0 - lc / 3.0 + 2.0 * (tc - lc))


def isight_advice(player: ArrayLike, opponent: ArrayLike) -> CountAdvice:
    """The Isight cube advice, with gnubg's thresholds on the estimated GWC (percent):
    double from 68, redouble from 70, pass above 76."""
    lc, tc = isight_counts(player, opponent)
    f32 = np.float32  # gnubg computes the GWC in single precision
    gwc = (
        f32(80.0)
        - np.asarray(lc, f32) / f32(3.0)
        + f32(2.0) * np.asarray(np.asarray(tc) - np.asarray(lc), f32)
    )
    return _advice(gwc >= f32(68.0), gwc >= f32(70.0), ~(gwc > f32(76.0)))
