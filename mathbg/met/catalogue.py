"""Tables by name: :func:`build` (a model or a shipped table) and :func:`as_met`.

The one place where a string becomes a :class:`~mathbg.met.MET`: every function that
takes ``met: MET | str`` calls :func:`as_met`.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mathbg.errors import InvalidParameterError, UnknownTableError
from mathbg.met.formats import read
from mathbg.met.models import mec, montgomery, zadeh
from mathbg.met.nocube import cubeless
from mathbg.met.published import load, resolve
from mathbg.met.table import MET

__all__ = ["MODELS", "as_met", "build"]

#: Names accepted by :func:`build` besides the shipped tables.
MODELS = ("zadeh", "mec", "cubeless", "montgomery")

_BUILDERS: dict[str, Callable[..., MET]] = {
    "zadeh": zadeh,
    "mec": mec,
    "cubeless": cubeless,
    "montgomery": montgomery,
}

#: File suffixes :func:`as_met` reads as MET files.
_FILE_SUFFIXES = (".xml", ".met", ".json")


def build(model: str = "kazaross-xg2", length: int | None = None, **params: Any) -> MET:
    """Build a table by name: a model (``zadeh``, ``mec``, ``cubeless``, ``montgomery``) or a
    shipped table (``kazaross-xg2``, ``mec26``, ...; see :func:`mathbg.met.available`).

    ``length`` defaults to 25 for models and to the native length for shipped tables (a
    different length extends with Montgomery's model or cuts). ``params`` go to the model
    function; shipped tables take none. Parameters that are ``None`` are ignored.

    Parameters
    ----------
    model : str, optional
        A model or shipped table name (case-insensitive).
    length : int, optional
        The table's length.
    **params
        The model's parameters (e.g. ``gammon_rate``).

    Returns
    -------
    MET
        The model's table computed at ``length``, or the shipped table at ``length``.

    Raises
    ------
    UnknownTableError
        For an unknown name.
    InvalidParameterError
        For parameters the model does not take or out of range, parameters given to a
        shipped table, or a model table longer than :data:`MAX_MODEL_LENGTH`.

    Examples
    --------
    >>> t = build("zadeh", 5)
    >>> t.name, t.pre.shape, round(float(t.pre[1, 0]), 4)  # Crawford 2-away/1-away
    ('zadeh', (5, 5), 0.3125)
    """
    params = {k: v for k, v in params.items() if v is not None}
    key = resolve(model, MODELS)  # one naming rule: :func:`mathbg.met.published.resolve`
    builder = _BUILDERS.get(key)
    if builder is not None:
        accepted = [p for p in inspect.signature(builder).parameters if p != "length"]
        unknown = sorted(set(params) - set(accepted))
        if unknown:
            raise InvalidParameterError(
                f"model {key!r} has no parameter {', '.join(unknown)}; "
                f"its parameters are: {', '.join(accepted) or 'none'}"
            )
        n = 25 if length is None else length
        if isinstance(n, int) and not isinstance(n, bool) and n > MAX_MODEL_LENGTH:
            raise InvalidParameterError(
                f"{key} tables are computed up to {MAX_MODEL_LENGTH} points (minutes of work "
                f"there); a {n}-point table is refused"
            )
        return builder(n, **params)
    name = key
    if params:
        raise InvalidParameterError(
            f"{name} is a published table: parameters ({', '.join(sorted(params))}) apply "
            f"only to the models {', '.join(MODELS)}"
        )
    met = load(name)
    return met if length is None else met.extend(length)


#: The longest model table :func:`build` computes (the work grows with the cube of the
#: length: a 512-point Zadeh table takes about a minute).
MAX_MODEL_LENGTH = 512


@functools.lru_cache(maxsize=16)
def _by_name(key: str) -> MET:
    return build(key)


def as_met(obj: MET | str | os.PathLike[str]) -> MET:
    """A :class:`MET` from a MET, a table or model name, or a MET file.

    Parameters
    ----------
    obj : MET, str or path
        A table (returned as is); a shipped table or model name with default parameters
        (:func:`build`; case-insensitive, any unambiguous prefix, cached); or the path of an
        existing ``.xml``, ``.met`` or ``.json`` MET file (:func:`mathbg.met.read`).

    Raises
    ------
    UnknownTableError
        An unknown name, or a path (with a directory or a ``.met``/``.json`` suffix) that
        names no file ("no such file: ...").
    InvalidParameterError
        Neither a MET, a name nor a path.

    Returns
    -------
    MET
        ``obj`` itself, the named table with default parameters (cached), or the file's.

    Examples
    --------
    >>> as_met("zadeh").name, as_met(as_met("mec26")).name
    ('zadeh', 'mec26')
    """
    if isinstance(obj, os.PathLike) or (
        isinstance(obj, str) and obj.lower().endswith(_FILE_SUFFIXES) and Path(obj).exists()
    ):
        return read(Path(obj))
    if isinstance(obj, str):
        # a path that names no file is a missing file, not an unknown table
        if any(sep in obj for sep in ("/", os.sep)) or obj.lower().endswith((".met", ".json")):
            raise UnknownTableError(f"no such file: {obj}")
        return _by_name(obj.strip().lower())
    if not hasattr(obj, "mwc_array"):
        raise InvalidParameterError(
            f"expected a mathbg.met.MET or the name of a shipped table; got {obj!r}"
        )
    return obj
