"""Helpers shared by the MET file formats: number parsing and formatting, messages."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mathbg.errors import METFormatError
from mathbg.met._core import continue_post_crawford

__all__ = [
    "fit_post_crawford",
    "format_number",
    "parse_number",
    "parse_probability",
    "where_prefix",
]


# Not mathbg._validate.finite_float: a file's numbers are reported by their place in the
# file ("where: 'x' is not a number"), a parameter's by its name and range.
def parse_number(text: str | None, where: str) -> float:
    """``text`` as a finite float, or :class:`METFormatError` naming ``where``."""
    raw = (text or "").strip()
    try:
        value = float(raw)
    except ValueError:
        raise METFormatError(f"{where}: {raw!r} is not a number") from None
    if not math.isfinite(value):
        raise METFormatError(f"{where}: {raw!r} is not a finite number")
    return value


def parse_probability(text: str | None, where: str) -> float:
    """``text`` as a probability in [0, 1], or :class:`METFormatError` naming ``where``."""
    value = parse_number(text, where)
    if not 0.0 <= value <= 1.0:
        raise METFormatError(f"{where}: {value!r} is not a probability in [0, 1]")
    return value


def format_number(x: float, decimals: int | None) -> str:
    """Shortest round-trip form of ``x``, or ``decimals`` fixed decimals."""
    return repr(float(x)) if decimals is None else f"{float(x):.{decimals}f}"


def where_prefix(path: Path | None) -> str:
    """``"path: "`` for error messages, or nothing without a path."""
    return f"{path}: " if path is not None else ""


def fit_post_crawford(values: Sequence[float], n: int) -> tuple[np.ndarray, bool]:
    """Post-Crawford vector of length n: truncated, or continued by Zadeh's recurrence."""
    arr = np.asarray(values, dtype=np.float64)
    if len(arr) >= n:
        return arr[:n].copy(), False
    return continue_post_crawford(arr, n), True
