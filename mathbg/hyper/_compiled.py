"""The way to the Hypergammon kernels (internal): compiled ahead of time when the build
did (:mod:`mathbg._native`), else numba's."""

from __future__ import annotations

from typing import Any

__all__ = ["kernel"]


def kernel(name: str) -> Any:
    """The Hypergammon kernel ``name`` (of :mod:`mathbg.hyper._kernels`): compiled ahead
    of time when the build did (:mod:`mathbg._native`), else numba's (compiled on first
    use). The compiled ones do not check their arguments: pass exactly the types of
    :func:`mathbg._native.signatures`.

    Examples
    --------
    >>> callable(kernel("pair_plays"))
    True
    """
    from mathbg._native import compiled

    fn = compiled("hyper_" + name)
    if fn is None:
        from mathbg.hyper import _kernels

        fn = getattr(_kernels, name)
    return fn
