"""The store of finished batches: a killed or interrupted build resumes from it.

A local directory (through :mod:`pathlib`) or a URL (``scheme://...``, through fsspec,
which the ``dask`` extra brings). One ``.npz`` per batch,
``{state}-{a:03d}-{b:03d}/batch-{k:05d}.npz``, written under a temporary name and moved
into place (a file exists only when complete), holding the batch's identity (a SHA-256
of the build's manifest, the entry, the batch number and the arrays: a damaged file or
one copied from another batch, score or build is refused with one line, never served),
and ``manifest.json`` with the build's parameters: a store made by another build is
refused (:class:`StoreMismatchError`).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg import _npy
from mathbg.analysis.selfplay.table import Entry
from mathbg.errors import DatabaseCorruptError, InvalidParameterError, MathbgError

__all__ = ["SelfPlayStore", "StoreMismatchError"]


class StoreMismatchError(MathbgError):
    """The store holds batches of a different build (other parameters)."""


class _LocalFiles:
    """A directory on this machine."""

    def __init__(self, root: str) -> None:
        self.root = Path(root)

    def path(self, name: str) -> str:
        return str(self.root / name)

    def exists(self, path: str) -> bool:
        return Path(path).exists()

    def read(self, path: str) -> bytes:
        return Path(path).read_bytes()

    def write(self, path: str, data: bytes) -> None:
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f"{target.name}.tmp-{np.random.default_rng().integers(1 << 62):x}")
        tmp.write_bytes(data)
        os.replace(tmp, target)


class _RemoteFiles:
    """A location fsspec reaches (``s3://``, ``gcs://``, ``memory://``, ...)."""

    def __init__(self, url: str) -> None:
        try:
            import fsspec
        except ImportError:
            raise InvalidParameterError(
                f"store {url}: a store URL needs fsspec: pip install 'mathbg[dask]' (or give "
                "a local directory)"
            ) from None
        self.fs, self.root = fsspec.core.url_to_fs(url)

    def path(self, name: str) -> str:
        return f"{str(self.root).rstrip('/')}/{name}"

    def exists(self, path: str) -> bool:
        return bool(self.fs.exists(path))

    def read(self, path: str) -> bytes:
        with self.fs.open(path, "rb") as fh:
            return bytes(fh.read())

    def write(self, path: str, data: bytes) -> None:
        self.fs.makedirs(path.rsplit("/", 1)[0], exist_ok=True)
        tmp = f"{path}.tmp-{np.random.default_rng().integers(1 << 62):x}"
        with self.fs.open(tmp, "wb") as fh:
            fh.write(data)
        self.fs.mv(tmp, path)


class SelfPlayStore:
    """Finished batches of a self-play build: a local directory or an fsspec URL.

    Parameters
    ----------
    location : str or path
        A directory (created when needed) or a URL with a scheme (``memory://run``).

    Raises
    ------
    InvalidParameterError
        For a URL without fsspec installed (the message names the extra).

    Examples
    --------
    >>> import tempfile
    >>> from mathbg.rules.match import ScoreState
    >>> store = SelfPlayStore(tempfile.mkdtemp())
    >>> store.check_manifest({"seed": 1})
    >>> entry = Entry(ScoreState.NORMAL, (2, 3))
    >>> store.put(entry, 0, {"value": np.array([0.5, 1.0])})
    >>> store.get(entry, 0)["value"].tolist(), store.get(entry, 1)
    ([0.5, 1.0], None)
    """

    def __init__(self, location: str | os.PathLike[str]) -> None:
        loc = str(location)
        self.files = _RemoteFiles(loc) if "://" in loc else _LocalFiles(loc)
        self.location = loc
        self._manifest_digest = b""  # set by check_manifest

    def check_manifest(self, params: Mapping[str, object]) -> None:
        """Write the manifest, or refuse a store holding another build.

        Parameters
        ----------
        params : mapping
            The build's parameters (JSON types).

        Raises
        ------
        StoreMismatchError
            When the store's manifest holds other parameters.
        """
        text = json.dumps(params, sort_keys=True, indent=1)
        self._manifest_digest = hashlib.sha256(
            json.dumps(params, sort_keys=True).encode()
        ).digest()
        path = self.files.path("manifest.json")
        if self.files.exists(path):
            old = self.files.read(path).decode()
            if json.loads(old) != json.loads(text):
                raise StoreMismatchError(
                    f"store {self.location} holds another self-play build (its manifest.json "
                    "differs from these parameters): use a new store"
                )
            return
        self.files.write(path, text.encode())

    @staticmethod
    def _name(entry: Entry, batch: int) -> str:
        state, (a, b) = entry
        return f"{state.value}-{a:03d}-{b:03d}/batch-{batch:05d}.npz"

    def _identity(
        self, entry: Entry, batch: int, arrays: Mapping[str, NDArray[Any]]
    ) -> NDArray[np.uint8]:
        """SHA-256 of what a batch is (this build's manifest, its entry and number) and of
        what it holds (every array's name, dtype, shape and bytes)."""
        h = hashlib.sha256(b"mathbg self-play batch 1\0")
        h.update(self._manifest_digest)
        h.update(json.dumps([[entry.state.value, *entry.away], batch]).encode())
        for name in sorted(arrays):
            arr = np.ascontiguousarray(arrays[name])
            h.update(json.dumps([name, arr.dtype.str, list(arr.shape)]).encode())
            h.update(arr.tobytes())
        return np.frombuffer(h.digest(), dtype=np.uint8)

    def get(self, entry: Entry, batch: int) -> dict[str, NDArray[Any]] | None:
        """A finished batch, or None.

        Parameters
        ----------
        entry : Entry
            The score.
        batch : int
            The batch's number.

        Returns
        -------
        dict of str to ndarray or None
            The batch's arrays, None when it is not stored.

        Raises
        ------
        DatabaseCorruptError
            The file is damaged, or is not this build's batch ``batch`` of ``entry`` (a
            copy of another batch, score or build): the message names it; deleting it
            makes the next run play it again.
        """
        name = self._name(entry, batch)
        path = self.files.path(name)
        if not self.files.exists(path):
            return None
        data = self.files.read(path)
        way_out = f"delete {path} to play that batch again"
        try:
            arrays = _npy.decode_npz(data, path)
        except DatabaseCorruptError as exc:
            raise DatabaseCorruptError(f"{exc}; {way_out}") from None
        stored = arrays.pop("identity", None)
        if stored is None or not np.array_equal(stored, self._identity(entry, batch, arrays)):
            raise DatabaseCorruptError(
                f"store {self.location}: {name} is not batch {batch} of {entry.state.value} "
                f"{entry.away[0]}-away/{entry.away[1]}-away of this build (damaged, or copied "
                f"from another batch, score or build); {way_out}"
            )
        return arrays

    def put(self, entry: Entry, batch: int, arrays: Mapping[str, NDArray[Any]]) -> None:
        """Store a finished batch, with its identity (:meth:`get` checks it).

        Parameters
        ----------
        entry : Entry
            The score.
        batch : int
            The batch's number.
        arrays : mapping of str to ndarray
            The batch's per-game arrays (none called ``identity``).
        """
        if "identity" in arrays:
            raise ValueError("a batch array may not be called 'identity'")
        buf = io.BytesIO()
        named: dict[str, Any] = {"identity": self._identity(entry, batch, arrays), **arrays}
        np.savez(buf, **named)
        self.files.write(self.files.path(self._name(entry, batch)), buf.getvalue())
