"""Helpers shared by the MET file formats: number parsing and formatting, messages."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mathbg.errors import METFormatError
from mathbg.met._core import continue_post_crawford

__all__ = [
    "FILE_DIGITS",
    "describe",
    "fit_post_crawford",
    "format_number",
    "parse_number",
    "parse_probability",
    "where_prefix",
]


# Not mathbg._validate.finite_float: a file's numbers are reported by their place in the
# file ("where: 'x' is not a number"), a parameter's by its name and range.
def parse_number(text: str | None, where: str) -> float:
    """``text`` as a finite float, or :class:`METFormatError` naming ``where``.

    Parameters
    ----------
    text : str or None
        A number as the file writes it (white space around it allowed; None reads as "").
    where : str
        The place in the file, for the error message.

    Returns
    -------
    float
        The finite number the text spells.

    Raises
    ------
    METFormatError
        For text that is not a finite number.

    Examples
    --------
    >>> parse_number(" 0.25 ", "row 1")
    0.25
    """
    raw = (text or "").strip()
    try:
        value = float(raw)
    except ValueError:
        raise METFormatError(f"{where}: {raw!r} is not a number") from None
    if not math.isfinite(value):
        raise METFormatError(f"{where}: {raw!r} is not a finite number")
    return value


def parse_probability(text: str | None, where: str) -> float:
    """``text`` as a probability in [0, 1], or :class:`METFormatError` naming ``where``.

    Parameters
    ----------
    text : str or None
        A match winning chance as the file writes it.
    where : str
        The place in the file, named in the error message.

    Returns
    -------
    float
        The chance, in [0, 1].

    Raises
    ------
    METFormatError
        For text that is not a number in [0, 1].

    Examples
    --------
    >>> parse_probability("0.5", "row 1")
    0.5
    """
    value = parse_number(text, where)
    if not 0.0 <= value <= 1.0:
        raise METFormatError(f"{where}: {value!r} is not a probability in [0, 1]")
    return value


#: Significant digits of a computed number in a written MET file unless ``decimals`` is
#: given: no float noise (``0.49999999999999994`` is written ``0.5``), far finer than any
#: table is known to.
FILE_DIGITS = 8

#: A number whose shortest exact form has at most this many significant digits is written
#: exactly (a published table's entries: g11 gives 12 digits).
EXACT_DIGITS = 12


def format_number(x: float, decimals: int | None) -> str:
    """``x`` in plain positional notation for a MET file, without float noise.

    ``decimals`` given: that many fixed decimals. Otherwise the shortest exact form when it
    has at most :data:`EXACT_DIGITS` significant digits (a table's own numbers survive a
    write and read), else :data:`FILE_DIGITS` significant digits without trailing zeros
    (a computed number: ``0.6030172018625299`` -> ``0.6030172``).

    Parameters
    ----------
    x : float
        The number.
    decimals : int or None
        Fixed decimals, or None for the rule above.

    Returns
    -------
    str
        The text.

    Examples
    --------
    >>> format_number(0.1 + 0.2, None), format_number(0.5, 3)
    ('0.3', '0.500')
    >>> format_number(0.6030172018625299, None)
    '0.6030172'
    """
    v = float(x)
    if decimals is not None:
        return f"{v:.{decimals}f}"
    exact = np.format_float_positional(v, unique=True, trim="-")
    if len(exact.lstrip("-0.").replace(".", "")) <= EXACT_DIGITS:
        text = exact
    else:
        text = np.format_float_positional(
            v, precision=FILE_DIGITS, unique=False, fractional=False, trim="-"
        )
    text = "0" if text == "-0" else text
    return text if "." in text else text + ".0"  # 1.0, 0.0: as other programs write them


def describe(met: object) -> tuple[str, str]:
    """The ``name`` and ``description`` a written file carries: a model's table records its
    parameters and length there (a mec20 and a mec26 file look different in gnubg).

    Parameters
    ----------
    met : MET or any object
        The table; its ``title`` (else ``name``), ``description`` (else ``source``),
        ``parameters`` and ``length`` attributes are read when present.

    Returns
    -------
    (name, description) : (str, str)
        With model parameters, both name them and the table's length; without, the
        table's own name and description.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> describe(SimpleNamespace(name="Woolsey", description="published table"))
    ('Woolsey', 'published table')
    >>> describe(SimpleNamespace(name="mec", description="a model", length=9,
    ...                          parameters={"gammon_rate": 0.26}))
    ('mec (gammon_rate=0.26; 9 points)', 'a model; parameters: gammon rate 0.26; length 9')
    """
    name = str(getattr(met, "title", "") or getattr(met, "name", ""))
    description = str(getattr(met, "description", "") or getattr(met, "source", ""))
    params = dict(getattr(met, "parameters", {}) or {})
    if not params:
        return name, description
    length = getattr(met, "length", None)
    listed = ", ".join(f"{k.replace('_', ' ')} {v:g}" for k, v in params.items())
    short = " ".join(f"{k}={v:g}" for k, v in params.items())
    return (
        f"{name} ({short}; {length} points)",
        f"{description}; parameters: {listed}; length {length}",
    )


def where_prefix(path: Path | None) -> str:
    """``"path: "`` for error messages, or nothing without a path.

    Parameters
    ----------
    path : Path or None
        The file.

    Returns
    -------
    str
        ``"path: "`` or ``""``.

    Examples
    --------
    >>> where_prefix(None)
    ''
    """
    return f"{path}: " if path is not None else ""


def fit_post_crawford(values: Sequence[float], n: int) -> tuple[np.ndarray, bool]:
    """Post-Crawford vector of length n: truncated, or continued by Zadeh's recurrence.

    Parameters
    ----------
    values : sequence of float
        The trailer's post-Crawford MWC at 1, 2, ... away.
    n : int
        The length wanted.

    Returns
    -------
    (ndarray, bool)
        The vector and whether it was continued.

    References
    ----------
    N. Zadeh (1977); gnubg ``initPostCrawfordMET``.

    Examples
    --------
    >>> vec, extended = fit_post_crawford([0.5, 0.485], 4)
    >>> vec.tolist(), extended
    ([0.5, 0.485, 0.3125, 0.302875], True)
    """
    arr = np.asarray(values, dtype=np.float64)
    if len(arr) >= n:
        return arr[:n].copy(), False
    return continue_post_crawford(arr, n), True
