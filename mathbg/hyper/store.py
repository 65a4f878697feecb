"""The Hypergammon solver's store on disk: solved tables, checkpoints and MET records.

Everything goes under one root, ``cache_dir("hyper")`` by default (``$MATHBG_DATA/hyper``
when set; :mod:`mathbg._paths`):

- a **table** (a money solution, one score's game) is a directory ``NAME/`` with
  ``header.json`` and one ``.npy`` per array; a **checkpoint** of an unfinished solve is
  the same under ``NAME.partial/`` (the table after a whole number of sweeps, so that a
  resumed solve produces the same bits as one never interrupted);
- the **records** of a MET build are ``NAME.json``: one entry per finished game.

Every header and record carries the *identity* of what it holds (the game, the checker
count, the tolerance, the options, the values at the leaves, the format version) and a
SHA-256 over that identity, its metadata and its arrays' bytes (each array's digest is in
the header). A store entry is served only when its identity is the one asked for and
every digest matches; a damaged entry is reported with a one-line
:class:`~mathbg.errors.MathbgWarning` and solved again, a foreign one (another identity)
is solved again and replaced. Writes go through :mod:`mathbg._files` (atomic, no foreign
file replaced, stale temporaries cleaned, the free space checked first).
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg import _files, _npy
from mathbg.errors import DatabaseCorruptError, MathbgWarning

__all__ = ["FORMAT", "FORMAT_VERSION", "Store", "default_root", "digest"]

FORMAT = "mathbg-hyper"
#: Bump when the numbers or the layout change (older entries are then foreign: re-solved).
FORMAT_VERSION = 2  # 2: a game solves only the cube states it can reach

_FILES = frozenset({"header.json"})


def default_root() -> Path:
    """``cache_dir("hyper")``: where solutions go unless a store root is given.

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> default_root().name
    'hyper'
    """
    from mathbg._paths import cache_dir

    return cache_dir("hyper")


def _canonical(obj: Any) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()


def digest(identity: dict[str, Any]) -> str:
    """A short name-safe digest of an identity (16 hex digits).

    Parameters
    ----------
    identity : dict
        JSON-serialisable.

    Returns
    -------
    str

    Examples
    --------
    >>> len(digest({"kind": "money", "checkers": 3}))
    16
    """
    return hashlib.sha256(_canonical(identity)).hexdigest()[:16]


def _array_digest(path: Path) -> str:
    return "sha256:" + _files.sha256_files([path])


def _checksum(identity: dict[str, Any], meta: dict[str, Any], arrays: dict[str, Any]) -> str:
    body = {"format": FORMAT, "version": FORMAT_VERSION, "identity": identity, "meta": meta,
            "arrays": arrays}
    return "sha256:" + hashlib.sha256(_canonical(body)).hexdigest()


def _is_ours(path: Path) -> bool:
    """An existing path this store wrote (valid or damaged): replaceable."""
    if path.is_file():
        return path.suffix == ".json" and _json_format(path) in (FORMAT, None)
    if not path.is_dir():
        return False
    if _json_format(path / "header.json") == FORMAT:
        return True
    return all(p.name in _FILES or p.suffix == ".npy" for p in path.iterdir())


def _json_format(path: Path) -> str | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError, RecursionError):
        return None
    return data.get("format") if isinstance(data, dict) else None


class Store:
    """The solver's store under ``root`` (default :func:`default_root`).

    Parameters
    ----------
    root : str or os.PathLike, optional
        The directory (created on demand).
    """

    def __init__(self, root: str | os.PathLike[str] | None = None) -> None:
        self.root = Path(root) if root is not None else default_root()
        self._verified: set[tuple[Any, ...]] = set()

    def __repr__(self) -> str:
        return f"Store({str(self.root)!r})"

    # ------------------------------------------------------------------ tables
    def save(
        self,
        name: str,
        arrays: dict[str, NDArray[Any]],
        identity: dict[str, Any],
        meta: dict[str, Any],
    ) -> None:
        """Write the table ``name`` (atomically replacing an older one of this store)."""
        target = self.root / name
        needed = sum(a.nbytes for a in arrays.values()) + (1 << 16)
        with _files.atomic_directory(
            target, what="Hypergammon table", is_same_kind=_is_ours, needed_bytes=needed,
        ) as tmp:
            info = {}
            for key, arr in arrays.items():
                f = tmp / f"{key}.npy"
                with open(f, "wb") as fh:  # streamed: no copy of a large table in memory
                    np.lib.format.write_array(fh, np.ascontiguousarray(arr), allow_pickle=False)
                info[key] = {"shape": list(arr.shape), "dtype": str(arr.dtype),
                             "sha256": _array_digest(f)}
            header = {"format": FORMAT, "version": FORMAT_VERSION, "identity": identity,
                      "meta": meta, "arrays": info,
                      "checksum": _checksum(identity, meta, info)}
            (tmp / "header.json").write_text(json.dumps(header, indent=1) + "\n")
        self._verified.add(self._stamp(target, header))

    def load(
        self, name: str, identity: dict[str, Any], *, mmap: bool = False
    ) -> tuple[dict[str, NDArray[Any]], dict[str, Any]] | None:
        """The arrays and metadata of table ``name`` if it holds ``identity``, else None.

        A damaged table (unreadable, a digest that does not match) is reported with a
        one-line warning and None is returned: the caller solves again.
        """
        path = self.root / name
        if not path.exists():
            return None
        try:
            return self._read(path, identity, mmap)
        except _Foreign:
            return None
        except (DatabaseCorruptError, OSError, ValueError, KeyError, TypeError, EOFError) as exc:
            why = " ".join(str(exc).split())[:160]
            warnings.warn(f"{path}: damaged Hypergammon table ({why}); solving again",
                          MathbgWarning, stacklevel=3)
            return None

    def _read(
        self, path: Path, identity: dict[str, Any], mmap: bool
    ) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        text = (path / "header.json").read_text()
        if len(text) > 1 << 22:
            raise DatabaseCorruptError("header.json is too large")
        header = json.loads(text)
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise DatabaseCorruptError("not a Hypergammon table header")
        if header.get("version") != FORMAT_VERSION or header.get("identity") != identity:
            raise _Foreign()
        meta, info = header.get("meta"), header.get("arrays")
        if not isinstance(meta, dict) or not isinstance(info, dict):
            raise DatabaseCorruptError("malformed header")
        if header.get("checksum") != _checksum(identity, meta, info):
            raise DatabaseCorruptError("header.json does not match its checksum")
        stamp = self._stamp(path, header)
        arrays = {}
        for key, entry in info.items():
            f = path / f"{key}.npy"
            if stamp not in self._verified and _array_digest(f) != entry["sha256"]:
                raise DatabaseCorruptError(f"{key}.npy does not match its digest")
            arr = _npy.memmap(f, f"{key}.npy")
            if not mmap:
                arr = np.array(arr)
            if list(arr.shape) != entry["shape"] or str(arr.dtype) != entry["dtype"]:
                raise DatabaseCorruptError(f"{key}.npy does not match its header")
            arrays[key] = arr
        self._verified.add(stamp)
        return arrays, meta

    @staticmethod
    def _stamp(path: Path, header: dict[str, Any]) -> tuple[Any, ...]:
        files = []
        for key in header["arrays"]:
            st = (path / f"{key}.npy").stat()
            files.append((key, st.st_ino, st.st_size, st.st_mtime_ns))
        return (str(path.resolve()), header["checksum"], tuple(files))

    def remove(self, name: str) -> None:
        """Remove the table ``name`` if this store wrote it (a finished solve's checkpoint)."""
        import shutil

        path = self.root / name
        if path.is_dir() and _is_ours(path):
            shutil.rmtree(path, ignore_errors=True)

    # ------------------------------------------------------------------ records
    def records(self, name: str, identity: dict[str, Any]) -> dict[str, Any]:
        """The valid records of ``name.json`` for ``identity`` (each with its own digest);
        damaged ones are dropped with a warning, a foreign file gives none."""
        path = self.root / f"{name}.json"
        if not path.exists():
            return {}
        try:
            data = json.loads(path.read_text())
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError("not a Hypergammon record file")
        except (OSError, ValueError, UnicodeDecodeError, RecursionError) as exc:
            warnings.warn(f"{path}: damaged Hypergammon records ({exc}); solving again",
                          MathbgWarning, stacklevel=2)
            return {}
        if data.get("version") != FORMAT_VERSION or data.get("identity") != identity:
            return {}
        good: dict[str, Any] = {}
        entries = data.get("records")
        for key, rec in (entries.items() if isinstance(entries, dict) else ()):
            ok = isinstance(rec, dict) and rec.get("checksum") == _record_sum(identity, key, rec)
            if ok:
                good[key] = rec
            else:
                warnings.warn(f"{path}: damaged record {key}; solving it again",
                              MathbgWarning, stacklevel=2)
        return good

    def add_record(self, name: str, identity: dict[str, Any], key: str, rec: dict[str, Any]
                   ) -> None:
        """Add (or replace) one record of ``name.json`` (atomic rewrite of the file)."""
        recs = self.records(name, identity)
        body = {k: v for k, v in rec.items() if k != "checksum"}
        recs[key] = {**body, "checksum": _record_sum(identity, key, body)}
        data = {"format": FORMAT, "version": FORMAT_VERSION, "identity": identity,
                "records": recs}
        with _files.atomic_file(
            self.root / f"{name}.json", what="Hypergammon records", is_same_kind=_is_ours,
        ) as tmp:
            tmp.write_text(json.dumps(data, indent=1) + "\n")


class _Foreign(Exception):
    """A store entry of another identity (solve again; not an error)."""


def _record_sum(identity: dict[str, Any], key: str, rec: dict[str, Any]) -> str:
    body = {k: v for k, v in rec.items() if k != "checksum"}
    return "sha256:" + hashlib.sha256(_canonical([identity, key, body])).hexdigest()
