"""One set of output rules for every result mathbg prints, writes or returns as a table.

- Probabilities, chances and match winning chances are **fractions** in JSON, CSV and
  DataFrames, and **percentages** in text.
- A value that does not apply (no cube in the Crawford game, a doubler who needs no more
  points than the cube holds, ...) is ``None`` in Python, ``null`` in JSON, NaN in a
  DataFrame, ``"-"`` in text and a blank cell in a heatmap.
- JSON and CSV numbers carry no float noise: each float is written as the ``repr`` of the
  float rounded to 15 significant digits (``0.6950000000000001`` -> ``0.695``), or rounded
  to ``decimals`` places when the user asks (``--decimals``).

Standard library only (numpy and pandas are imported inside the functions that need them),
so every layer may use it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, TypeAlias

__all__ = [
    "SIGNIFICANT_DIGITS",
    "FrameMixin",
    "JSONObject",
    "JSONValue",
    "clean",
    "clean_number",
    "dumps",
    "flatten",
    "format_number",
    "frame",
    "pct",
]

#: A JSON value as a result's ``as_dict`` gives it (what :func:`dumps` writes).
#: (Sequence and Mapping: covariant, so a ``list[float]`` or ``dict[str, float]`` is one.)
JSONValue: TypeAlias = (
    "bool | int | float | str | Sequence[JSONValue] | Mapping[str, JSONValue] | None"
)
#: A JSON document: the type of every result's ``as_dict``.
JSONObject: TypeAlias = "dict[str, JSONValue]"

#: Significant digits kept by default: every double has at least 15 exact ones.
SIGNIFICANT_DIGITS = 15


def clean_number(value: Any, decimals: int | None = None) -> Any:
    """A JSON-ready scalar: NaN, infinities and None -> None, floats without noise, ints
    and bools kept.

    Parameters
    ----------
    value : int, float, bool, numpy scalar or None
        The value.
    decimals : int, optional
        Round floats to this many decimal places; default: 15 significant digits.
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if hasattr(value, "item") and not isinstance(value, (int, float)):
        value = value.item()  # numpy scalar -> Python scalar
        if isinstance(value, (bool, str)):
            return value
    if isinstance(value, int):
        return value
    x = float(value)
    if not math.isfinite(x):  # NaN: does not apply; JSON has no infinity either
        return None
    if decimals is not None:
        return round(x, int(decimals)) + 0.0  # + 0.0: no "-0.0"
    return float(f"{x:.{SIGNIFICANT_DIGITS}g}") + 0.0


def clean(obj: Any, decimals: int | None = None) -> Any:
    """``obj`` with every number passed through :func:`clean_number`, recursively
    (dicts, lists, tuples and numpy arrays; tuples become lists)."""
    if isinstance(obj, Mapping):
        return {str(k): clean(v, decimals) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean(v, decimals) for v in obj]
    if hasattr(obj, "tolist") and getattr(obj, "ndim", 0) > 0:
        return [clean(v, decimals) for v in obj.tolist()]
    return clean_number(obj, decimals)


def dumps(obj: Any, *, indent: int | None = 2, decimals: int | None = None) -> str:
    """JSON text of ``obj`` after :func:`clean` (NaN is never written: it becomes ``null``)."""
    return json.dumps(clean(obj, decimals), indent=indent, allow_nan=False)


def format_number(value: Any, decimals: int | None = None) -> str:
    """One CSV cell: empty for a value that does not apply, else the cleaned number."""
    v = clean_number(value, decimals)
    if v is None:
        return ""
    if decimals is not None and isinstance(v, float):
        return f"{v:.{int(decimals)}f}"
    return repr(v) if isinstance(v, float) else str(v)


def pct(value: Any, width: int = 0, decimals: int = 2) -> str:
    """A fraction as a percentage for text output (``"-"`` when it does not apply)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"{'-':>{width}}"
    return f"{100.0 * float(value):{max(width - 1, 0)}.{decimals}f}%"


def frame(
    rows: Iterable[Mapping[str, Any]] | Mapping[str, Any],
    *,
    name: str,
    index: str | None = None,
    **attrs: Any,
) -> Any:
    """A :class:`pandas.DataFrame` of result records (``None`` -> NaN in numeric columns).

    ``name`` says what the rows are (stored in ``df.attrs["name"]``); the keyword
    arguments go to ``df.attrs`` too (the MET, the cube life used, ...).
    """
    import numpy as np
    import pandas as pd

    records = [rows] if isinstance(rows, Mapping) else list(rows)
    df = pd.DataFrame.from_records(records)
    for col in df.columns:
        if df[col].dtype == object:
            values = df[col].tolist()
            if all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                   for v in values):  # fmt: skip
                df[col] = np.array([np.nan if v is None else v for v in values], dtype=float)
    if index is not None:
        df = df.set_index(index)
    df.attrs.update(name=name, **attrs)
    return df


def _flat(prefix: str, value: Any, out: dict[str, Any], parts: Mapping[str, Any]) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flat(f"{prefix}_{k}" if prefix else str(k), v, out, parts)
    elif isinstance(value, (list, tuple)):
        names = parts.get(prefix, tuple(str(i) for i in range(len(value))))
        if len(names) != len(value):
            out[prefix] = list(value)
            return
        for name, v in zip(names, value, strict=True):
            _flat(f"{prefix}_{name}", v, out, parts)
    elif isinstance(value, str):
        out[prefix] = str(value)  # StrEnum members become plain strings
    else:
        out[prefix] = value


def flatten(record: Mapping[str, Any], parts: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """One flat record: nested dicts joined with ``_``; a sequence under key ``k`` becomes
    ``k_<name>`` columns with the names ``parts[k]`` (default ``k_0``, ``k_1``, ...)."""
    out: dict[str, Any] = {}
    for k, v in record.items():
        _flat(str(k), v, out, parts or {})
    return out


class FrameMixin:
    """``to_frame()`` for a result dataclass: one row of its :meth:`as_dict` (or fields),
    flattened (:func:`flatten`, with the class's ``FRAME_PARTS`` naming the parts of its
    sequences), NaN where a value does not apply; ``df.attrs`` holds the class name and
    the cube life used, when the result has one."""

    FRAME_PARTS: ClassVar[Mapping[str, tuple[str, ...]]] = {}

    def to_frame(self) -> Any:
        """The result as a one-row :class:`pandas.DataFrame` (fractions; NaN = n/a)."""
        import dataclasses

        if hasattr(self, "as_dict"):
            record = self.as_dict()
        else:
            record = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}  # type: ignore[arg-type]
        flat = flatten(record, self.FRAME_PARTS)
        attrs: dict[str, Any] = {}
        lives = [k for k in flat if k == "cube_life" or k.endswith("_cube_life")]
        if "cube_life" in record:
            attrs["cube_life"] = record["cube_life"]
        elif lives:
            attrs["cube_life"] = flat[lives[0]]
        elif "x" in record:
            attrs["cube_life"] = record["x"]
        return frame([flat], name=type(self).__name__, **attrs)
