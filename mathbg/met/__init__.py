"""Match equity tables: the :class:`MET` value object, models, shipped tables, file formats.

``import mathbg.met`` is cheap (numpy only); models compile their numba kernels on first
use, pandas and scipy load where used.

- Value object: :class:`MET` (``pre``, ``post``, ``mwc``, ``eq2mwc``, ``extend``,
  ``to_frame``, ...).
- Models: :func:`zadeh`, :func:`mec` (Tornberg, unequal players), :func:`montgomery`,
  :func:`extend`; without a cube: :func:`cubeless`, :func:`rotation_met` (Tavli) and
  :func:`match_mwc` (:mod:`mathbg.met.nocube`).
- Published tables: :func:`load`, :func:`available` (Kazaross-XG2 is the default).
- By name: :func:`build` (a model or a shipped table), :func:`as_met` (a MET, a name or a
  MET file: what every ``met: MET | str`` parameter accepts).
- Files: :func:`read`, :func:`write`, :func:`render` (gnubg MET XML, XG ``.met``, CSV,
  JSON, text; :mod:`mathbg.met.formats`).
- Over-the-board formulas: :mod:`mathbg.met.approx` (Janowski, Turner, Neil's numbers).

Layers inside the package (each imports only those before it): ``_core`` -> ``table`` ->
``models`` -> ``formats`` -> ``published`` -> ``nocube`` -> ``catalogue``.
"""

from __future__ import annotations

from mathbg.met.catalogue import MODELS, as_met, build
from mathbg.met.formats import read, render, write
from mathbg.met.models import extend, mec, montgomery, zadeh
from mathbg.met.nocube import cubeless, match_mwc, rotation_met
from mathbg.met.published import DEFAULT, available, load
from mathbg.met.table import MET

__all__ = [
    "DEFAULT",
    "MET",
    "MODELS",
    "as_met",
    "available",
    "build",
    "cubeless",
    "extend",
    "load",
    "match_mwc",
    "mec",
    "montgomery",
    "read",
    "render",
    "rotation_met",
    "write",
    "zadeh",
]
