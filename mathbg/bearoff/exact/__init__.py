"""Exact match play in bearoffs: cube decisions and match winning chances at a score.

- :mod:`~mathbg.bearoff.exact.match`: the solver (:func:`~mathbg.bearoff.exact.match.match_equity`,
  also :func:`mathbg.bearoff.match_equity`), numba kernels in ``_kernels``;
- :mod:`~mathbg.bearoff.exact.analysis`: take boundaries, implied cube life and MET fits
  built on the solver.
"""

__all__: list[str] = []
