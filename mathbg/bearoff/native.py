"""The native bearoff database format: a directory of ``.npy`` arrays and a ``header.json``.

- one-sided (``onesided-PPxCC-POLICY``, :class:`mathbg.bearoff.onesided.OneSided`):
  ``dist.npy`` float64[N, nb] (P(exactly n rolls to bear off all), n = 0..nb-1),
  ``gammon.npy`` float64[N15, nbg] (P(first checker off on roll n) for the block of
  15-checker positions, which starts at index ``gammon_start``; other positions have a
  unit mass at 0) and, for gnubg's policy, ``gnubg.npy`` uint16[N, 64] (gnubg's own
  fixed-point table, for exact ``.bd`` export);
- two-sided (``twosided-PPxCC``, :class:`mathbg.bearoff.twosided.TwoSided`): ``equity.npy``
  [n, n, 4] (float64, float32 or gnubg's uint16 fixed point), ``[roller, opponent]`` ->
  the cubeless equity and the cubeful ones by cube owner (money, before the roller's cube
  decision), or [n, n, 1] (cubeless only).

``header.json`` records the format name and version (:data:`FORMAT_VERSION`), kind,
points, checkers, policy (one-sided), the names of the values (two-sided: ``values``,
the keys of :data:`mathbg.bearoff.twosided.CUBE_STATES`: ``cubeless``, ``player``,
``centre``, ``opponent``), the arrays' shapes, dtypes and file sizes, ``header_checksum``
(SHA-256 of the canonical header fields: JSON with sorted keys and no spaces, without the
two checksums) and ``checksum`` (SHA-256 of the canonical header followed by every array
file), so a wrong header field is caught as surely as a flipped bit.

Versions: 3 (this one); 2, still read, named the two-sided values ``cubeless``,
``owned``, ``centred``, ``opponent_owns`` (same columns, same numbers): its header is
verified as written and presented in today's names (:func:`current_names`).
Writing goes through :mod:`mathbg._files`: a temporary directory beside the
target, renamed into place only when complete, a lock so concurrent builds take turns,
refusal of a target that is not a database of the same kind (unless ``force``).
The classes' ``build`` reuse a valid database at the target path (checksum verified,
:func:`reuse`) and rebuild an invalid one (a damaged one with a one-line
:class:`~mathbg.errors.MathbgWarning`). Opening checks the header and the file sizes
always and the full checksum once per state of the files (``verify=False`` skips it): a
verification that passed is recorded beside the arrays (``verified.json``: each array
file's inode, size, modification and status-change times, and the checksum), and a later
process that finds the files in the same state does not read and hash them again (any
write to a file changes its status-change time, which no user call can set back); a damaged
database raises :class:`~mathbg.errors.DatabaseCorruptError`. Arrays are opened
memory-mapped.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, Self, TypeVar

from numpy.typing import NDArray

from mathbg import _files, _npy
from mathbg.bearoff import index as _index
from mathbg.bearoff.generate.onesided import POLICIES
from mathbg.errors import DatabaseCorruptError, DatabaseError, MathbgWarning

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "READABLE_VERSIONS",
    "current_names",
    "generator",
    "is_native",
    "load_arrays",
    "open_directory",
    "read_header",
    "remember_written",
    "reuse",
    "write_header",
]

FORMAT = "mathbg-bearoff"
#: Bump when the generated numbers or the layout change (older caches are rebuilt unless
#: :data:`READABLE_VERSIONS` lists them).
FORMAT_VERSION = 3
#: Header versions this reader accepts.
READABLE_VERSIONS = (2, 3)
#: Today's name of each two-sided value name of version 2 (version 3 took
#: :class:`~mathbg.rules.cube.CubeOwner`'s vocabulary).
_V2_VALUES = {"cubeless": "cubeless", "owned": "player", "centred": "centre",
              "opponent_owns": "opponent"}  # fmt: skip

PathLike = str | os.PathLike[str]


#: The files a native database directory may hold (anything else is foreign).
_DB_FILES = frozenset({"header.json", "dist.npy", "gammon.npy", "gnubg.npy", "equity.npy",
                       "verified.json"})
#: The record of the last full verification (:func:`load_arrays`).
STAMP = "verified.json"
#: What :meth:`OneSided.open` / :meth:`TwoSided.open` fully verified in this process.
_VERIFIED: set[tuple[Any, ...]] = set()


def _canonical(header: dict[str, Any]) -> bytes:
    """The header's bytes covered by the checksums (every field but the checksums)."""
    body = {k: v for k, v in header.items() if k not in ("checksum", "header_checksum")}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def _header_digest(header: dict[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(_canonical(header)).hexdigest()


def _full_digest(directory: Path, header: dict[str, Any]) -> str:
    files = [directory / f"{name}.npy" for name in header["arrays"]]
    return "sha256:" + _files.sha256_files(files, prefix=_canonical(header))


def is_native(kind: str) -> Callable[[Path], bool]:
    """Is an existing path a native database of ``kind`` (valid or damaged)?"""

    def check(path: Path) -> bool:
        if not path.is_dir():
            return False
        try:
            header = json.loads((path / "header.json").read_text())
            if isinstance(header, dict) and header.get("format") == FORMAT:
                return header.get("kind") == kind
        except (OSError, ValueError, RecursionError):
            pass
        names = {p.name for p in path.iterdir()}
        # only our file names (a stamp being written included): a damaged database
        return all(n in _DB_FILES or n.startswith(f".{STAMP}.") for n in names)

    return check


def write_header(directory: Path, header: dict[str, Any], arrays: list[str]) -> dict[str, Any]:
    files = [directory / f"{name}.npy" for name in arrays]
    info = {}
    for name, f in zip(arrays, files, strict=True):
        arr = _npy.memmap(f)
        info[name] = {"shape": list(arr.shape), "dtype": str(arr.dtype), "bytes": f.stat().st_size}
        del arr
    header = {"format": FORMAT, "version": FORMAT_VERSION, **header, "arrays": info}
    header["header_checksum"] = _header_digest(header)
    header["checksum"] = _full_digest(directory, header)
    tmp = directory / "header.json.tmp"
    tmp.write_text(json.dumps(header, indent=2) + "\n")
    os.replace(tmp, directory / "header.json")
    return header


def _corrupt(directory: Path, why: str) -> DatabaseCorruptError:
    return DatabaseCorruptError(f"{directory}: {why} (corrupt database)")


def read_header(directory: Path, kind: str) -> dict[str, Any]:
    """Read and check ``header.json``: format, version, kind, its own checksum, its fields."""
    try:
        text = (directory / "header.json").read_text()
    except FileNotFoundError:
        msg = f"{directory}: no header.json (not a mathbg bearoff database)"
        raise DatabaseError(msg) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise _corrupt(directory, f"unreadable header.json ({exc})") from None
    if len(text) > 1 << 20:
        raise _corrupt(directory, "header.json is too large")
    try:
        header = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise _corrupt(directory, f"unreadable header.json ({exc})") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise DatabaseError(f"{directory}: not a mathbg bearoff database")
    if header.get("version") not in READABLE_VERSIONS:
        raise DatabaseError(
            f"{directory}: format version {header.get('version')}, this mathbg reads "
            f"{', '.join(map(str, READABLE_VERSIONS))}: rebuild it"
        )
    if header.get("kind") != kind:
        raise DatabaseError(f"{directory}: a {header.get('kind')} database, not {kind}")
    if header.get("header_checksum") != _header_digest(header):
        raise _corrupt(directory, "header.json does not match its checksum")
    _check_fields(directory, header, kind)
    return header


def current_names(header: dict[str, Any]) -> dict[str, Any]:
    """The header in today's vocabulary (a copy; the stored one is what the checksums cover).

    A version 2 two-sided header's ``values`` (``owned``, ``centred``, ``opponent_owns``)
    become ``player``, ``centre``, ``opponent``; a version 3 header is returned as it is.
    """
    if header.get("version") != 2 or "values" not in header:
        return header
    return {**header, "values": [_V2_VALUES.get(v, v) for v in header["values"]]}


def _check_fields(directory: Path, header: dict[str, Any], kind: str) -> None:
    """The header's fields have the types and values a database of ``kind`` needs."""

    def whole(name: str, lo: int, hi: int) -> int:
        value = header.get(name)
        if type(value) is not int or not lo <= value <= hi:
            raise _corrupt(directory, f"header field {name}={value!r} out of range")
        return value

    points, checkers = whole("points", 1, _index.MAX_POINTS), whole("checkers", 1, 15)
    n = _index.n_positions(points, checkers)
    if whole("n_positions", 0, n) != n:
        raise _corrupt(directory, "header field n_positions does not match points/checkers")
    arrays = header.get("arrays")
    expected = {"one-sided": {"dist", "gammon"}, "two-sided": {"equity"}}[kind]
    if not isinstance(arrays, dict) or not expected <= set(arrays) <= expected | {"gnubg"}:
        raise _corrupt(directory, "header field arrays is malformed")
    for name, info in arrays.items():
        ok = isinstance(info, dict) and isinstance(info.get("shape"), list)
        ok = ok and all(type(x) is int and x >= 0 for x in info["shape"])
        if not ok or type(info.get("bytes")) is not int or not isinstance(info.get("dtype"), str):
            raise _corrupt(directory, f"header entry of {name}.npy is malformed")
    if kind == "one-sided":
        if header.get("policy") not in POLICIES:
            raise _corrupt(directory, f"header field policy={header.get('policy')!r} unknown")
        whole("gammon_start", 0, n)


def _array_files(directory: Path, header: dict[str, Any]) -> list[Path]:
    return [directory / f"{name}.npy" for name in header["arrays"]]


def _verified_key(directory: Path, header: dict[str, Any]) -> tuple[Any, ...]:
    """What a full verification covers: the directory, its checksum, and each array
    file's state (:func:`mathbg._files.file_states`; a changed file is verified again)."""
    states = tuple(tuple(s) for s in _files.file_states(_array_files(directory, header)))
    return (str(directory.resolve()), header.get("checksum"), states)


def _stamped(directory: Path, header: dict[str, Any]) -> bool:
    """Does the directory's stamp record a verification of its files as they are now?"""
    return _files.stamped(directory / STAMP, _array_files(directory, header),
                          str(header.get("checksum")))  # fmt: skip


def _stamp(directory: Path, header: dict[str, Any]) -> None:
    """Record that the files, as they are now, passed the full checksum."""
    _files.write_stamp(directory / STAMP, _array_files(directory, header),
                       str(header.get("checksum")))  # fmt: skip


def remember_written(directory: Path, header: dict[str, Any]) -> None:
    """A database just written: :func:`write_header` hashed its files as they are on
    disk, so opening it (in this process or a later one) does not read and hash them a
    second time (for a 6x15 two-sided table, 22 GiB)."""
    _VERIFIED.add(_verified_key(directory, header))
    _stamp(directory, header)


def load_arrays(directory: Path, header: dict[str, Any], verify: bool) -> dict[str, NDArray[Any]]:
    """Memory-map the arrays, checking shape, dtype and file size (always) and the full
    checksum (when ``verify``, once per state of the files: see the module notes)."""
    arrays = {}
    for name, info in header["arrays"].items():
        f = directory / f"{name}.npy"
        try:
            st = f.stat()
            arr = _npy.memmap(f, f"{name}.npy")
        except FileNotFoundError:
            raise _corrupt(directory, f"{name}.npy is missing") from None
        except (OSError, ValueError, EOFError, DatabaseCorruptError) as exc:
            raise _corrupt(directory, f"cannot load {name}.npy ({exc})") from None
        if list(arr.shape) != info["shape"] or str(arr.dtype) != info["dtype"]:
            raise _corrupt(directory, f"{name}.npy does not match its header")
        if st.st_size != info["bytes"]:  # (data and header agree: checked by the reader)
            raise _corrupt(directory, f"{name}.npy has {st.st_size} bytes, not {info['bytes']}")
        arrays[name] = arr
    key = _verified_key(directory, header)
    if verify and key not in _VERIFIED:
        if not _stamped(directory, header):
            if _full_digest(directory, header) != header.get("checksum"):
                raise _corrupt(directory, "checksum mismatch")
            _stamp(directory, header)
        _VERIFIED.add(key)
    return arrays


def open_directory(
    directory: Path, kind: str, verify: bool
) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
    """The checked header and the arrays of the ``kind`` database in ``directory``
    (:func:`read_header`, then :func:`load_arrays`); :class:`DatabaseError` when
    ``directory`` is not a directory."""
    if not directory.is_dir():
        raise DatabaseError(f"{directory}: no such bearoff database")
    header = read_header(directory, kind)
    return header, load_arrays(directory, header, verify)


def _warn(message: str) -> None:
    import warnings

    warnings.warn(message, MathbgWarning, stacklevel=3)


class Database(Protocol):
    """What :func:`reuse` needs of a database class (OneSided, TwoSided)."""

    @classmethod
    def open(cls, path: PathLike, *, verify: bool = True) -> Self:
        """Open (and check) the database at ``path``."""
        ...

    def _identity(self) -> tuple[Any, ...]: ...


_Db = TypeVar("_Db", bound=Database)


def reuse(
    cls: type[_Db], target: Path, wanted: tuple[Any, ...], default: bool, *, warn: bool = True
) -> _Db | None:
    """The valid database at ``target`` when it is the one wanted, else None.

    A damaged one is reported with a one-line warning (it is about to be rebuilt).
    """
    if not target.exists():
        return None
    try:
        db = cls.open(target, verify=True)
    except DatabaseCorruptError as exc:
        if warn:
            _warn(f"{exc}: rebuilding {'the cached database' if default else 'it'}")
        return None
    except DatabaseError:
        return None
    if db._identity() != wanted:
        return None
    _files.clean_stale(target.parent)  # debris of a killed build beside a valid database
    return db


def generator() -> str:
    """The header's ``generator`` field: ``mathbg <version>``."""
    from mathbg import __version__

    return f"mathbg {__version__}"
