"""Compile a module of plain, numba-compatible functions with numba (internal).

Some of mathbg's loops are cheap enough to run in plain Python for one call (a 25-point
match equity table takes a few milliseconds) but worth compiling when a process computes
many; loading numba alone takes about 0.4 s. Such a module is written once, without numba,
and :func:`compile_functions` makes compiled twins of its functions on demand: each twin
runs the same code object, with globals in which the other listed names are twins too, so
compiled functions call compiled functions while the module's own functions stay plain.

The twins keep the module's name, so numba's cache for them lands in mathbg's user cache
directory (:func:`mathbg._compile.numba_cache_root`) like every other kernel.
"""

from __future__ import annotations

import types
from typing import Any

__all__ = ["compile_functions"]


def compile_functions(module: types.ModuleType, names: list[str]) -> dict[str, Any]:
    """numba dispatchers (``njit(cache=True)``) for the functions ``names`` of ``module``.

    A function of ``module`` that is not listed keeps being resolved as a plain global,
    which numba rejects when a listed function calls it: list every function the compiled
    ones call.
    """
    import numba

    namespace = dict(vars(module))
    for name in names:
        plain = getattr(module, name)
        twin = types.FunctionType(
            plain.__code__, namespace, plain.__name__, plain.__defaults__, plain.__closure__
        )
        twin.__qualname__ = plain.__qualname__
        twin.__doc__ = plain.__doc__
        twin.__annotations__ = plain.__annotations__
        namespace[name] = numba.njit(cache=True)(twin)
    return {name: namespace[name] for name in names}
