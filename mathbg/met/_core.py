"""Low-level MET formulas shared by the value object and the models (numpy only).

- Montgomery's normal model for a single score (and vectorised), used to extend any table.
- The post-Crawford recurrence of Zadeh (1977) that gnubg uses to continue a trailer vector.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from mathbg._special import erfc
from mathbg._validate import strict_integer
from mathbg.errors import InvalidParameterError, InvalidScoreError

#: Largest table length mathbg builds (gnubg stops at 64).
MAX_LENGTH = 1024

#: Montgomery's per-game standard deviation of the score, indexed by points away (1..10);
#: 1.77 for anything longer (gnubg matchequity.c ``ExtendMET``).
MONTGOMERY_SD = (1.24, 1.27, 1.47, 1.50, 1.60, 1.61, 1.66, 1.68, 1.70, 1.72)
MONTGOMERY_SD_LONG = 1.77

#: gnubg's default post-Crawford extension parameters (trailer gammon rate, free drops).
PC_GAMMON_RATE = 0.25
PC_FREE_DROP_2 = 0.015
PC_FREE_DROP_4 = 0.004

_SQRT2 = math.sqrt(2.0)
_ERFC6 = math.erfc(6.0 / _SQRT2)  # 2 * (1 - Phi(6))
#: Rounding allowed in the monotonicity of a model's table (check_equities).
_MONOTONE_TOL = 1e-9


def montgomery_sd(away: int) -> float:
    """Montgomery's per-game score standard deviation at ``away`` points away."""
    return MONTGOMERY_SD[away - 1] if away <= len(MONTGOMERY_SD) else MONTGOMERY_SD_LONG


def montgomery_mwc(away: int, opp_away: int) -> float:
    """MWC of the player ``away`` from victory against ``opp_away`` under Montgomery's model.

    For the trailer (``away >= opp_away``), with ``s(n)`` the per-game sd,
    ``sigma = sqrt(s(away)**2 + s(opp_away)**2) * sqrt((away + opp_away) / 2)`` and
    ``MWC = Phi(6) - Phi((away - opp_away) / sigma)`` (0 beyond six sigma); the leader's value
    is the complement. The diagonal is ``Phi(6) - 1/2``, not exactly 1/2, as in gnubg.
    """
    if away < opp_away:
        return 1.0 - montgomery_mwc(opp_away, away)
    s0, s1 = montgomery_sd(away), montgomery_sd(opp_away)
    sigma = math.sqrt(s0 * s0 + s1 * s1) * math.sqrt((away + opp_away) / 2.0)
    diff = away - opp_away
    if 6.0 * sigma <= diff:
        return 0.0
    # Phi(6) - Phi(z) = (erfc(z / sqrt 2) - erfc(6 / sqrt 2)) / 2, accurate in the tail
    return 0.5 * (math.erfc(diff / sigma / _SQRT2) - _ERFC6)


def montgomery_array(away: np.ndarray, opp_away: np.ndarray) -> np.ndarray:
    """Vectorised :func:`montgomery_mwc` (``away``, ``opp_away`` >= 1, broadcast together)."""
    a, b = np.broadcast_arrays(np.asarray(away, dtype=np.int64), np.asarray(opp_away, np.int64))
    sd = np.asarray((0.0, *MONTGOMERY_SD), dtype=np.float64)
    hi, lo = np.maximum(a, b), np.minimum(a, b)
    s_hi = np.where(hi <= 10, sd[np.minimum(hi, 10)], MONTGOMERY_SD_LONG)
    s_lo = np.where(lo <= 10, sd[np.minimum(lo, 10)], MONTGOMERY_SD_LONG)
    sigma = np.sqrt(s_hi**2 + s_lo**2) * np.sqrt((hi + lo) / 2.0)
    diff = (hi - lo).astype(np.float64)
    tail = erfc(diff / sigma / _SQRT2)
    trailer = np.where(6.0 * sigma > diff, 0.5 * (tail - _ERFC6), 0.0)
    return np.where(a >= b, trailer, 1.0 - trailer)


def continue_post_crawford(
    values: np.ndarray,
    length: int,
    gammon_rate: float = PC_GAMMON_RATE,
    free_drop_2: float = PC_FREE_DROP_2,
    free_drop_4: float = PC_FREE_DROP_4,
) -> np.ndarray:
    """Continue a post-Crawford trailer vector to ``length`` entries by Zadeh's recurrence.

    ``values[n-1]`` is the trailer's MWC at n-away against a 1-away leader. The trailer
    doubles at once, so each game is worth 2 points (4 with a gammon, rate ``g``)::

        PC(n) = 1/2 [(1 - g) PC(n - 2) + g PC(n - 4)],   PC(k <= 0) = 1,

    then ``PC(2) -= free_drop_2`` and ``PC(4) -= free_drop_4`` (the leader's free drop), the
    corrections applying only to entries this call creates. gnubg (``initPostCrawfordMET``)
    extends explicit tables this way with g = 0.25, 0.015 and 0.004.
    """
    out = np.empty(length, dtype=np.float64)
    given = min(len(values), length)
    out[:given] = values[:given]
    for i in range(given, length):  # i = n - 1
        two = out[i - 2] if i >= 2 else 1.0
        four = out[i - 4] if i >= 4 else 1.0
        out[i] = 0.5 * ((1.0 - gammon_rate) * two + gammon_rate * four)
        if i == 1:
            out[i] -= free_drop_2
        elif i == 3:
            out[i] -= free_drop_4
    return out


def check_length(length: Any) -> int:
    """``length`` as a table length in 1..:data:`MAX_LENGTH`, or :class:`InvalidScoreError`."""
    return strict_integer(length, "length", 1, MAX_LENGTH, error=InvalidScoreError)


def check_rate(
    value: Any, what: str, *, low: float = 0.0, high: float = 1.0, open_ends: bool = False
) -> float:
    """``value`` as a float in ``[low, high]`` (open with ``open_ends``), or
    :class:`InvalidParameterError` naming ``what``."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{what} must be a number, got {value!r}") from None
    ok = (low < x < high) if open_ends else (low <= x <= high)
    if not (math.isfinite(x) and ok):
        bounds = f"({low}, {high})" if open_ends else f"[{low}, {high}]"
        raise InvalidParameterError(f"{what} must lie in {bounds}, got {value!r}")
    return x


def check_equities(arrays: tuple[np.ndarray, ...], model: str, params: dict[str, float]) -> None:
    """Raise :class:`InvalidParameterError` when a model's output is not a match equity
    table: values outside [0, 1], or (``arrays[0]``, the pre-Crawford table ``M[i, j]``,
    i and j the away scores) not falling as the own away score grows and rising with the
    opponent's. Zadeh's live-cube drop points, for example, break down for large
    ``delta``: with ``delta = 0.14`` and no gammons, 19-away/3-away comes out 1.3e-5
    above 18-away/3-away at length 19, and the 64-point table leaves [0, 1] from
    ``delta = 0.1``. (gnubg 1.07 loads such parameters as they come: its 64-point table
    for ``delta = 0.1``, ``delta-bar = 0`` has negative entries and 16 rising ones.)"""
    shown = ", ".join(f"{k}={v:g}" for k, v in params.items())
    n = len(arrays[0])

    def valid_up_to(bad: np.ndarray) -> str:
        # the first away score (either side) where the table breaks, from the bad cells
        first = int(np.min(np.max(np.atleast_2d(bad), axis=-1))) + 1
        return (
            f"at length {n}: valid up to about {max(first - 1, 1)}-away with these "
            "parameters (the model breaks down beyond)"
        )

    for arr in arrays:
        ok = np.isfinite(arr) & (arr >= 0.0) & (arr <= 1.0)
        if not np.all(ok):
            bad = np.argwhere(~ok)
            raise InvalidParameterError(
                f"{model} parameters ({shown}) give match equities outside [0, 1] "
                f"{valid_up_to(bad if arr.ndim == 2 else bad[:, :1])}"
            )
    pre = arrays[0]
    rise = np.add(np.argwhere(np.diff(pre, axis=0) > _MONOTONE_TOL), (1, 0))
    fall = np.add(np.argwhere(np.diff(pre, axis=1) < -_MONOTONE_TOL), (0, 1))
    if len(rise) or len(fall):
        raise InvalidParameterError(
            f"{model} parameters ({shown}) give match equities that do not fall as the "
            f"away score grows {valid_up_to(np.concatenate([rise, fall]))}"
        )


def recurrence(name: str) -> Callable[..., Any]:
    """The model recurrence ``name`` of :mod:`mathbg.met._recurrences`, compiled
    (:mod:`mathbg.met._kernels`) when numba is already loaded in this process, else the
    plain function: one table takes milliseconds in Python (64 points: Zadeh 30 ms, MEC
    50 ms), while loading numba takes about 0.4 s. Both give the same bits."""
    if "numba" in sys.modules:
        from mathbg.met import _kernels

        return getattr(_kernels, name)  # type: ignore[no-any-return]
    from mathbg.met import _recurrences

    return getattr(_recurrences, name)  # type: ignore[no-any-return]
