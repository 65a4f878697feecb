"""The store of finished batches of a self-play table: a killed or interrupted build
resumes from it.

A :class:`~mathbg.analysis.batchstore.BatchStore` of kind ``self-play`` (a local directory
or an fsspec URL): one ``.npz`` per batch, ``{state}-{a:03d}-{b:03d}/batch-{k:05d}.npz``,
with its identity (the build's manifest, the entry, the batch number and the arrays: a
damaged file or one copied from another batch, score or build is refused with one line,
never served), and ``manifest.json`` with the build's parameters: a store made by another
build is refused (:class:`StoreMismatchError`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from numpy.typing import NDArray

from mathbg._docstrings import shared_sections
from mathbg.analysis.batchstore import BatchStore, StoreMismatchError
from mathbg.analysis.selfplay.table import Entry

__all__ = ["SelfPlayStore", "StoreMismatchError"]

# the parameters that name one batch, for get_batch and put_batch
_BATCH_PARAMS = """
entry : Entry
    The score.
batch : int
    The batch's number.
"""


class SelfPlayStore(BatchStore):
    """Finished batches of a self-play build: a local directory or an fsspec URL.

    Parameters
    ----------
    location : str or path
        Where the batches go: a directory (made when needed) or a URL (``memory://run``).

    Raises
    ------
    InvalidParameterError
        A URL store without fsspec (``pip install 'mathbg[dask]'``).

    Examples
    --------
    >>> import tempfile
    >>> import numpy as np
    >>> from mathbg.rules.match import ScoreState
    >>> store = SelfPlayStore(tempfile.mkdtemp())
    >>> store.check_manifest({"seed": 1})
    >>> entry = Entry(ScoreState.NORMAL, (2, 3))
    >>> store.put_batch(entry, 0, {"value": np.array([0.5, 1.0])})
    >>> store.get_batch(entry, 0)["value"].tolist(), store.get_batch(entry, 1)
    ([0.5, 1.0], None)
    """

    def __init__(self, location: str | os.PathLike[str]) -> None:
        super().__init__(location, "self-play")

    @staticmethod
    def _where(entry: Entry, batch: int) -> tuple[str, object, str]:
        state, (a, b) = entry
        name = f"{state.value}-{a:03d}-{b:03d}/batch-{batch:05d}.npz"
        return name, [[state.value, a, b], batch], f"batch {batch} of {state.value} {a}a/{b}a"

    @shared_sections(batch_params=_BATCH_PARAMS)
    def get_batch(self, entry: Entry, batch: int) -> dict[str, NDArray[Any]] | None:
        """Batch ``batch`` of ``entry``, or None when it is not stored.

        Parameters
        ----------
        {batch_params}

        Returns
        -------
        dict of str to ndarray or None
            The batch's arrays.

        Raises
        ------
        DatabaseCorruptError
            The file is damaged or is not this build's batch ``batch`` of ``entry``.
        """
        return self.get(*self._where(entry, batch))

    @shared_sections(batch_params=_BATCH_PARAMS)
    def put_batch(self, entry: Entry, batch: int, arrays: Mapping[str, NDArray[Any]]) -> None:
        """Store batch ``batch`` of ``entry`` (:meth:`get_batch` checks its identity).

        Parameters
        ----------
        {batch_params}
        arrays : mapping of str to ndarray
            The batch's per-game arrays (none called ``identity``).
        """
        name, label, _ = self._where(entry, batch)
        self.put(name, label, arrays)
