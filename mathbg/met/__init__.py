"""Match equity tables: the :class:`MET` value object, models, shipped tables, file formats.

``import mathbg.met`` is cheap (numpy only); models compile their numba kernels on first
use, pandas and scipy load where used.

- Value object: :class:`MET` (``pre``, ``post``, ``mwc``, ``eq2mwc``, ``to_frame``, ...).
- Models: :func:`zadeh`, :func:`mec` (Tornberg, unequal players), :func:`cubeless`,
  :func:`montgomery`, :func:`extend`, :func:`build`.
- Published tables: :func:`load`, :func:`available` (Kazaross-XG2 is the default).
- Files: :func:`read`, :func:`write` (gnubg MET XML, XG ``.met``, CSV, JSON).
- Over-the-board formulas: :mod:`mathbg.met.approx` (Janowski, Turner, Neil's numbers).
"""

from __future__ import annotations

from mathbg.met.io import read, write
from mathbg.met.models import MODELS, build, cubeless, extend, mec, montgomery, zadeh
from mathbg.met.published import DEFAULT, available, load
from mathbg.met.table import MET

__all__ = [
    "DEFAULT",
    "MET",
    "MODELS",
    "available",
    "build",
    "cubeless",
    "extend",
    "load",
    "mec",
    "montgomery",
    "read",
    "write",
    "zadeh",
]
