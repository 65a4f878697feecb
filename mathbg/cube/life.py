"""The cube-life model: how live the cube is, as one function of the position class and pips.

The cube life (Janowski's cube-life index, gnubg's *cube efficiency*; the symbol
:math:`x` of the formulas) runs from 0 (a dead cube: no later double is ever made at the
right moment) to 1 (a fully live cube: every later double is made exactly at the cash
point). The cubeful value of every formula in :mod:`mathbg.cube` is the blend
``(1 - x) dead + x live`` with it.

The one rule
------------
The default cube life is gnubg 1.07.001's 0-ply cube efficiency for the position's class
(eval.c ``EvalEfficiency``, ``show cubeefficiency``), :func:`cube_life`:

==================  =============================================================
class               cube life
==================  =============================================================
``contact``         0.68 (gnubg's contact and crashed classes)
``race``            ``0.55 + 0.00125 * pips`` of the side on roll, clamped to
                    [0.6, 0.7]
``bearoff``         0.6 (gnubg's one-sided bearoff class, ``rOSCubeX``)
==================  =============================================================

A command that knows no position (``mathbg cube decide``, which takes cubeless chances)
takes the contact value, ``cube_life("contact")``; ``mathbg analyze`` and ``mathbg race``
take the class of their position (inside the two-sided bearoff database gnubg backs the
life out of the exact equities instead, :func:`mathbg.race.race_cube_decision`).
Two commands print tables of the theory rather than a decision and keep their own values
(their printed numbers are asserted by the tests): ``mathbg cube money`` tabulates
Janowski's points at his "normal" cube life :data:`JANOWSKI_CUBE_LIFE` = 2/3, and
``mathbg takepoint`` prints the dead (0) and the fully live (:data:`LIVE_CUBE_LIFE` = 1)
limits.

References
----------
.. [1] R. Janowski, "Take-Points in Money Games" (1993): the cube-life index x, the
   "normal" x = 2/3 and its range 1/2 .. 3/4.
.. [2] GNU Backgammon 1.07.001, eval.c: ``ClassifyPosition``, ``EvalEfficiency``
   (``rContactX`` 0.68, ``rCrashedX`` 0.68, ``rOSCubeX`` 0.6, ``rRaceFactorX`` 0.00125,
   ``rRaceCoefficientX`` 0.55, ``rRaceMin`` 0.6, ``rRaceMax`` 0.7).
"""

from __future__ import annotations

from typing import overload

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg.errors import InvalidParameterError

__all__ = [
    "BEAROFF_CUBE_LIFE",
    "CLASSES",
    "CONTACT_CUBE_LIFE",
    "JANOWSKI_CUBE_LIFE",
    "LIVE_CUBE_LIFE",
    "RACE_CUBE_LIFE_RANGE",
    "RACE_PIP_FACTOR",
    "RACE_PIP_OFFSET",
    "cube_life",
]

#: The position classes of the model (what :attr:`mathbg.rules.position.Position.position_class`
#: answers).
CLASSES: tuple[str, ...] = ("contact", "race", "bearoff")
#: gnubg 1.07.001's cube life of contact and crashed positions (``rContactX``, ``rCrashedX``).
CONTACT_CUBE_LIFE = 0.68
#: gnubg 1.07.001's cube life of one-sided bearoff positions (``rOSCubeX``).
BEAROFF_CUBE_LIFE = 0.6
#: gnubg 1.07.001's race rule ``offset + factor * pips`` (``rRaceCoefficientX``,
#: ``rRaceFactorX``) ...
RACE_PIP_OFFSET = 0.55
RACE_PIP_FACTOR = 0.00125
#: ... clamped to this range (``rRaceMin``, ``rRaceMax``).
RACE_CUBE_LIFE_RANGE = (0.6, 0.7)
#: Janowski's "normal" cube life, the default of the money points table (``cube money``).
JANOWSKI_CUBE_LIFE = 2.0 / 3.0
#: A fully live cube: the live limit of the take-point tables (``takepoint``).
LIVE_CUBE_LIFE = 1.0

#: Finer class names mathbg's analysis uses, mapped to the model's classes.
_ALIASES = {"one-sided bearoff": "bearoff", "two-sided bearoff": "bearoff", "crashed": "contact"}


@overload
def cube_life(position_class: str = ..., pips: None = ...) -> float: ...
@overload
def cube_life(position_class: str, pips: float) -> float: ...
@overload
def cube_life(position_class: str, pips: ArrayLike) -> float | NDArray[np.float64]: ...
def cube_life(
    position_class: str = "contact", pips: ArrayLike | None = None
) -> float | NDArray[np.float64]:
    """gnubg 1.07.001's 0-ply cube life of a position class (the module's one rule).

    Parameters
    ----------
    position_class : str, optional
        ``"contact"`` (default: what a command without a position assumes), ``"race"``
        or ``"bearoff"``; mathbg's finer names ``"one-sided bearoff"``, ``"two-sided
        bearoff"`` and gnubg's ``"crashed"`` are accepted too.
    pips : int or array_like of int, optional
        The pip count of the side on roll; required for ``"race"``, ignored otherwise.
        An array gives an array of cube lives.

    Returns
    -------
    float or ndarray
        The cube life in [0, 1]: contact 0.68, race ``0.55 + 0.00125 * pips`` clamped to
        [0.6, 0.7], bearoff 0.6.

    Raises
    ------
    InvalidParameterError
        For an unknown class, a race without pips, or negative pips.

    References
    ----------
    GNU Backgammon 1.07.001 eval.c ``EvalEfficiency``; R. Janowski, "Take-Points in Money
    Games" (1993) for the index itself.

    Examples
    --------
    >>> cube_life("contact")
    0.68
    >>> cube_life("race", 100)
    0.675
    >>> cube_life("race", 30), cube_life("race", 160)
    (0.6, 0.7)
    >>> cube_life("bearoff")
    0.6
    """
    klass = str(position_class).strip().lower()
    klass = _ALIASES.get(klass, klass)
    if klass == "contact":
        return CONTACT_CUBE_LIFE
    if klass == "bearoff":
        return BEAROFF_CUBE_LIFE
    if klass != "race":
        raise InvalidParameterError(
            f"unknown position class {position_class!r}; choose one of {', '.join(CLASSES)}"
        )
    if pips is None:
        raise InvalidParameterError("the cube life of a race needs the roller's pip count")
    p = np.asarray(pips, dtype=np.float64)
    if np.any(p < 0):
        raise InvalidParameterError(f"pips must be non-negative, got {pips}")
    lo, hi = RACE_CUBE_LIFE_RANGE
    x = np.clip(RACE_PIP_OFFSET + RACE_PIP_FACTOR * p, lo, hi)
    return float(x) if np.ndim(x) == 0 else x
