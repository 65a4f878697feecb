"""The generators of the bearoff tables (internal: the user API is :mod:`mathbg.bearoff`).

- :mod:`~mathbg.bearoff.generate.onesided`: one-sided distributions (numba kernels in
  ``_onesided_kernels``, gnubg's policy on numpy in ``_os_vector``);
- the two-sided table, one builder block by block in pip-count classes:
  :mod:`~mathbg.bearoff.generate.pipblocks` (the block structure),
  :mod:`~mathbg.bearoff.generate.blockbuild` (the local build, kernels in ``_block_kernels``),
  :mod:`~mathbg.bearoff.generate.blockdask` (the Dask backend),
  :mod:`~mathbg.bearoff.generate.blockstore` (the resumable block store) and
  :mod:`~mathbg.bearoff.generate.twosided` (the recursion; the whole table in memory);
- ``_schedule``: serial and parallel kernel calls over dependent work units;
- :mod:`~mathbg.bearoff.generate.phases`: wall and CPU time of a build's phases.

:class:`mathbg.bearoff.OneSided` and :class:`mathbg.bearoff.TwoSided` call these and write
the results in the native format (:mod:`mathbg.bearoff.native`).
"""

__all__: list[str] = []
