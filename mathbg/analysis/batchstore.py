"""A store of finished batches of a long run: a killed or interrupted run resumes from it.

The self-play tables and the rollouts keep their finished batches here. A local directory
(through :mod:`pathlib`) or a URL (``scheme://...``, through fsspec, which the ``dask``
extra brings). One ``.npz`` per batch, written under a temporary name and moved into place
(a file exists only when complete), holding the batch's identity (a SHA-256 of the run's
manifest, the batch's label and its arrays: a damaged file or one copied from another
batch or run is refused with one line, never served), and ``manifest.json`` with the
run's parameters: a store made by another run is refused (:class:`StoreMismatchError`).
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
from mathbg.errors import DatabaseCorruptError, InvalidParameterError, MathbgError

__all__ = ["BatchStore", "StoreMismatchError"]


class StoreMismatchError(MathbgError):
    """The store holds batches of a different run (other parameters)."""


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


class BatchStore:
    """Finished batches of one run: a local directory or an fsspec URL.

    A batch is named by a file name inside the store and a label (JSON types) that its
    identity records; :meth:`get` refuses a file whose identity is not this run's batch of
    that label.

    Parameters
    ----------
    location : str or path
        A directory (created when needed) or a URL with a scheme (``memory://run``).
    kind : str
        What the store holds, for its identities and messages (``"self-play"``,
        ``"rollout"``): a store of one kind never serves another's batch.

    Raises
    ------
    InvalidParameterError
        For a URL without fsspec installed (the message names the extra).

    Examples
    --------
    >>> import tempfile
    >>> store = BatchStore(tempfile.mkdtemp(), "example")
    >>> store.check_manifest({"seed": 1})
    >>> store.put("a/batch-0.npz", [0], {"value": np.array([0.5, 1.0])})
    >>> store.get("a/batch-0.npz", [0], "batch 0")["value"].tolist()
    [0.5, 1.0]
    >>> store.get("a/batch-1.npz", [1], "batch 1") is None
    True
    """

    def __init__(self, location: str | os.PathLike[str], kind: str) -> None:
        loc = str(location)
        self.files = _RemoteFiles(loc) if "://" in loc else _LocalFiles(loc)
        self.location, self.kind = loc, kind
        self._manifest_digest = b""  # set by check_manifest

    def check_manifest(self, params: Mapping[str, object]) -> None:
        """Write the manifest, or refuse a store holding another run.

        Parameters
        ----------
        params : mapping
            The run's parameters (JSON types).

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
            try:
                same = json.loads(old) == json.loads(text)
            except ValueError:
                same = False
            if not same:
                raise StoreMismatchError(
                    f"store {self.location} holds another {self.kind} run (its manifest.json "
                    "differs from these parameters): use a new store"
                )
            return
        self.files.write(path, text.encode())

    def _identity(self, label: object, arrays: Mapping[str, NDArray[Any]]) -> NDArray[np.uint8]:
        """SHA-256 of what a batch is (this run's manifest and the batch's label) and of
        what it holds (every array's name, dtype, shape and bytes)."""
        h = hashlib.sha256(f"mathbg {self.kind} batch 1\0".encode())
        h.update(self._manifest_digest)
        h.update(json.dumps(label).encode())
        for name in sorted(arrays):
            arr = np.ascontiguousarray(arrays[name])
            h.update(json.dumps([name, arr.dtype.str, list(arr.shape)]).encode())
            h.update(arr.tobytes())
        return np.frombuffer(h.digest(), dtype=np.uint8)

    def get(self, name: str, label: object, what: str) -> dict[str, NDArray[Any]] | None:
        """A finished batch, or None.

        Parameters
        ----------
        name : str
            The batch's file inside the store.
        label : object
            What the batch is (JSON types), as :meth:`put` was given it.
        what : str
            The batch in words, for the message of a refused file.

        Returns
        -------
        dict of str to ndarray or None
            The batch's arrays, None when it is not stored.

        Raises
        ------
        DatabaseCorruptError
            The file is damaged, or is not this run's batch ``label`` (a copy of another
            batch or run): the message names it; deleting it makes the next run play it
            again.
        """
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
        if stored is None or not np.array_equal(stored, self._identity(label, arrays)):
            raise DatabaseCorruptError(
                f"store {self.location}: {name} is not {what} of this {self.kind} run "
                f"(damaged, or copied from another batch or run); {way_out}"
            )
        return arrays

    def put(self, name: str, label: object, arrays: Mapping[str, NDArray[Any]]) -> None:
        """Store a finished batch, with its identity (:meth:`get` checks it).

        Parameters
        ----------
        name : str
            The batch's file inside the store.
        label : object
            What the batch is (JSON types).
        arrays : mapping of str to ndarray
            The batch's arrays (none called ``identity``).
        """
        if "identity" in arrays:
            raise ValueError("a batch array may not be called 'identity'")
        buf = io.BytesIO()
        named: dict[str, Any] = {"identity": self._identity(label, arrays), **arrays}
        np.savez(buf, **named)
        self.files.write(self.files.path(name), buf.getvalue())
