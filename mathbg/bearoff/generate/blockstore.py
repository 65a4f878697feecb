"""Durable store of finished two-sided blocks: one ``.npy`` per block and a JSON manifest.

A block ``(a, b)`` is written as ``blocks/a{a:03d}-b{b:03d}.{sha256}.npy``: the file is
written under a temporary name and renamed into place, so a block file exists only when
complete, and its name carries the SHA-256 of its bytes, so it is trusted only after its
content hashes to its name (a corrupted or truncated block is ignored and recomputed).
Any number of writers (threads, Dask workers) may write blocks concurrently: each block
is written whole by one rename, and two writers of the same block write the same bytes.

``manifest.json`` records what the blocks are (points, checkers, values per pair,
encoding, pip-class offsets); a store whose manifest disagrees with the build asked for is
refused. The final manifest lists every block with its checksum.

A block is bound to what it is: its checksum covers, besides its bytes, the block file
format (:data:`BLOCK_FORMAT`), its coordinate ``(a, b)`` and the build's identity (space,
values per pair, encoding, pip-class offsets), and the reader checks the shape and dtype
it expects. So a block file copied to another coordinate, or from another build, fails
its checksum and is recomputed like a corrupt one; and once the final manifest lists the
blocks, only the listed copy of each block is trusted. The ``.npy`` header is parsed by
:mod:`mathbg._npy` (never compiled: safe in a threaded Dask worker).

The store is a local directory, or any fsspec URL (``s3://bucket/prefix``,
``file:///shared/dir``, ...) when fsspec is installed, so every Dask worker can reach it.

Block files are written by a rename of a temporary beside them, without ``fsync``: the
store may be remote (fsspec), a rename is atomic against a killed process, and a block
torn by a power loss fails its checksum and is recomputed. Everything else the package
writes goes through :mod:`mathbg._files`.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import re
import uuid
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg import _npy
from mathbg._files import space_error
from mathbg.errors import DatabaseCorruptError, DatabaseError

__all__ = ["BLOCK_FORMAT", "BlockStore"]

#: Version of what a block's checksum covers (2: the coordinate and the build's identity
#: with the bytes; 1 hashed the bytes alone).
BLOCK_FORMAT = 2

_NAME = re.compile(r"^a(\d{3})-b(\d{3})\.([0-9a-f]{64})\.npy$")


def _is_url(location: str) -> bool:
    return "://" in location


def _encode(block: NDArray[Any]) -> bytes:
    return _npy.encode(block)


class BlockStore:
    """A directory (local path or fsspec URL) of finished blocks.

    Parameters
    ----------
    location : str or os.PathLike
        Local directory or fsspec URL; created on demand.
    identity : dict, optional
        The build the blocks belong to (:meth:`bind`); :meth:`claim` binds it too.
    """

    def __init__(
        self, location: str | os.PathLike[str], identity: dict[str, Any] | None = None
    ) -> None:
        self.location = str(location)
        self._identity: dict[str, Any] | None = None
        self._salt = b""
        self._listed: dict[str, str] = {}
        self._fs: Any = None
        if _is_url(self.location):
            try:
                import fsspec
            except ImportError:  # pragma: no cover - depends on the environment
                raise DatabaseError(
                    f"{self.location}: a URL block store needs fsspec (pip install fsspec)"
                ) from None
            self._fs, self._root = fsspec.core.url_to_fs(self.location)
        else:
            self._root = str(Path(self.location))
        self._makedirs(self._join("blocks"))
        if identity is not None:
            self.bind(identity)

    # ------------------------------------------------------------------ identity
    def bind(self, identity: dict[str, Any]) -> None:
        """Bind the store to the build ``identity``: every block's checksum covers it."""
        self._identity = dict(identity)
        canonical = json.dumps(self._identity, sort_keys=True, separators=(",", ":"))
        self._salt = f"mathbg-block {BLOCK_FORMAT} {canonical}".encode()
        self._listed = self._final_blocks()

    def digest(self, a: int, b: int, data: bytes) -> str:
        """The checksum of block ``(a, b)`` with the file bytes ``data``: SHA-256 over the
        block format, the build's identity, the coordinate and the bytes."""
        if self._identity is None:
            raise DatabaseError(f"{self.location}: block store used before its build is known")
        h = hashlib.sha256(self._salt)
        h.update(f" a={a} b={b}\n".encode())
        h.update(data)
        return h.hexdigest()

    def _decode(self, a: int, b: int, data: bytes) -> NDArray[Any]:
        """The block held by ``data``, checked against the shape and dtype the build
        expects (a :class:`DatabaseCorruptError` otherwise)."""
        block = _npy.decode(data, f"block ({a}, {b})")
        ident = self._identity or {}
        offsets, nv = ident.get("class_offsets"), ident.get("values")
        if offsets is not None and nv is not None:
            shape = (offsets[a + 1] - offsets[a], offsets[b + 1] - offsets[b], nv)
            if block.shape != shape:
                raise DatabaseCorruptError(f"block ({a}, {b}) has shape {block.shape}, not {shape}")
        storage = ident.get("storage")
        if storage is not None and block.dtype != np.dtype(storage):
            raise DatabaseCorruptError(f"block ({a}, {b}) holds {block.dtype}, not {storage}")
        return block

    def _trusted(self, a: int, b: int, shas: list[str]) -> list[str]:
        """``shas`` without the copies the final manifest does not list (once it lists
        block ``(a, b)``, only that copy is trusted)."""
        listed = self._listed.get(f"{a},{b}")
        return [sha for sha in shas if listed is None or sha == listed]

    def _final_blocks(self) -> dict[str, str]:
        """The blocks the manifest lists (a finished block build; read once, at bind)."""
        try:
            manifest = self.read_manifest() or {}
        except DatabaseError:
            return {}
        blocks = manifest.get("blocks")
        return blocks if isinstance(blocks, dict) else {}

    # ------------------------------------------------------------------ file system
    def _join(self, *parts: str) -> str:
        return "/".join([self._root.rstrip("/"), *parts])

    def _makedirs(self, path: str) -> None:
        if self._fs is None:
            os.makedirs(path, exist_ok=True)
        else:
            self._fs.makedirs(path, exist_ok=True)

    def _write_atomic(self, path: str, data: bytes) -> None:
        tmp = f"{path}.tmp-{uuid.uuid4().hex}"
        if self._fs is None:
            # no fsync: a rename is atomic against a killed process, and a block torn by a
            # power loss fails its checksum and is recomputed
            try:
                with open(tmp, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            except OSError as exc:
                Path(tmp).unlink(missing_ok=True)
                if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise space_error(exc, path, f"writing a block to {path}") from None
                raise
        else:
            with self._fs.open(tmp, "wb") as fh:
                fh.write(data)
            self._fs.mv(tmp, path)

    def _read(self, path: str) -> bytes:
        if self._fs is None:
            with open(path, "rb") as fh:
                return fh.read()
        with self._fs.open(path, "rb") as fh:
            return bytes(fh.read())

    def _list(self, path: str) -> list[str]:
        if self._fs is None:
            try:
                return os.listdir(path)
            except FileNotFoundError:
                return []
        try:
            return [p.rsplit("/", 1)[-1] for p in self._fs.ls(path, detail=False)]
        except FileNotFoundError:
            return []

    def _remove(self, path: str) -> None:
        """Delete the file ``path`` (already gone: nothing to do)."""
        self._delete(path, directory=False)

    def _delete(self, path: str, *, directory: bool) -> None:
        """Delete a file, or an empty directory; one already gone (or a directory that
        is not empty) stays as it is."""
        missing = OSError if directory else FileNotFoundError
        try:
            if self._fs is None:
                (os.rmdir if directory else os.remove)(path)
            else:
                (self._fs.rmdir if directory else self._fs.rm)(path)
        except missing:
            pass

    # ------------------------------------------------------------------ manifest
    def read_manifest(self) -> dict[str, Any] | None:
        """The manifest, or None when the store has none yet."""
        path = self._join("manifest.json")
        try:
            manifest = json.loads(self._read(path))
        except FileNotFoundError:
            return None
        except (ValueError, RecursionError) as exc:
            raise DatabaseError(f"{self.location}: unreadable manifest.json ({exc})") from None
        if not isinstance(manifest, dict):
            raise DatabaseError(f"{self.location}: unreadable manifest.json (not an object)")
        return manifest

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        """Write the manifest atomically."""
        text = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
        self._write_atomic(self._join("manifest.json"), text.encode())

    def claim(self, identity: dict[str, Any]) -> None:
        """Start or resume a build: write the manifest, or check that it describes ``identity``.

        Raises
        ------
        DatabaseError
            When the store holds blocks of another build.
        """
        self.bind(identity)
        current = self.read_manifest()
        if current is None:
            self.write_manifest({**identity, "blocks": {}})
            return
        mine = {k: current.get(k) for k in identity}
        if mine != identity:
            diff = sorted(k for k in identity if mine[k] != identity[k])
            raise DatabaseError(
                f"{self.location}: holds blocks of another build (differs in {', '.join(diff)})"
            )

    # ------------------------------------------------------------------ blocks
    def listing(self) -> dict[tuple[int, int], list[str]]:
        """Block files present (not yet verified): ``{(a, b): [sha256, ...]}``."""
        out: dict[tuple[int, int], list[str]] = {}
        for name in self._list(self._join("blocks")):
            m = _NAME.match(name)
            if m:
                out.setdefault((int(m[1]), int(m[2])), []).append(m[3])
        return out

    def _path(self, a: int, b: int, sha: str) -> str:
        return self._join("blocks", f"a{a:03d}-b{b:03d}.{sha}.npy")

    def put(self, a: int, b: int, block: NDArray[Any]) -> str:
        """Write block (a, b); return its SHA-256 (hex)."""
        data = _encode(block)
        sha = self.digest(a, b, data)
        self._write_atomic(self._path(a, b, sha), data)
        return sha

    def get(self, a: int, b: int, shas: list[str] | None = None) -> tuple[NDArray[Any], str] | None:
        """Load a verified copy of block (a, b) and its checksum, or None.

        Files whose checksum (over the bytes, the coordinate and the build's identity)
        does not match their name, or whose shape or dtype is not the block's, are deleted
        (they are corrupt, or another block's); a copy the final manifest does not list is
        not trusted.
        """
        if shas is None:
            shas = self.listing().get((a, b), [])
        for sha in self._trusted(a, b, shas):
            path = self._path(a, b, sha)
            try:
                data = self._read(path)
            except FileNotFoundError:
                continue
            if self.digest(a, b, data) != sha:
                self._remove(path)
                continue
            try:
                block = self._decode(a, b, data)
            except DatabaseCorruptError:
                self._remove(path)
                continue
            return block, sha
        return None

    def verified(self) -> dict[tuple[int, int], str]:
        """Every block with a copy whose bytes match its checksum (corrupt copies deleted)."""
        out = {}
        for ab, shas in self.listing().items():
            for sha in self._trusted(*ab, shas):
                path = self._path(*ab, sha)
                try:
                    data = self._read(path)
                except FileNotFoundError:
                    continue
                if self.digest(*ab, data) == sha:
                    try:
                        self._decode(*ab, data)
                    except DatabaseCorruptError:
                        pass
                    else:
                        out[ab] = sha
                        break
                self._remove(path)
        return out

    def remove_all(self) -> None:
        """Delete the blocks and the manifest (after the query file has been assembled).

        Only this store's own files go (block files, their temporaries, the manifest);
        the directories are removed when nothing else is left in them.
        """
        blocks = self._join("blocks")
        for name in self._list(blocks):
            if _NAME.match(name) or ".npy.tmp-" in name:
                self._remove(self._join("blocks", name))
        self._remove(self._join("manifest.json"))
        for path in (blocks, self._root):
            self._delete(path, directory=True)
