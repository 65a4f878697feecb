"""The MET models' recurrences compiled with numba (internal; imported on demand).

The code is :mod:`mathbg.met._recurrences`; this module only compiles it
(:func:`mathbg._jit.compile_functions`). :func:`mathbg.met.models.recurrence` picks this
or the plain functions.
"""

from __future__ import annotations

from mathbg._jit import compile_functions
from mathbg.met import _recurrences

__all__ = ["cubeless_table", "mec_table", "zadeh_table"]

_COMPILED = compile_functions(_recurrences, _recurrences.__all__)

zadeh_table = _COMPILED["zadeh_table"]
mec_table = _COMPILED["mec_table"]
cubeless_table = _COMPILED["cubeless_table"]
