"""Bearoff databases on disk: :class:`OneSided` and :class:`TwoSided`.

Native format
-------------
A database is a directory holding ``.npy`` arrays and a small ``header.json``:

- one-sided (``onesided-PPxCC-POLICY``): ``dist.npy`` float64[N, nb] (P(exactly n rolls to
  bear off all), n = 0..nb-1), ``gammon.npy`` float64[N15, nbg] (P(first checker off on
  roll n) for the block of 15-checker positions, which starts at index ``gammon_start``;
  other positions have a unit mass at 0) and, for gnubg's policy, ``gnubg.npy``
  uint16[N, 64] (gnubg's own fixed-point table, for exact ``.bd`` export);
- two-sided (``twosided-PPxCC``): ``equity.npy`` float64[n, n, 4], ``[roller, opponent]``
  -> cubeless equity, owned, centred, opponent owns (money, before the roller's cube
  decision).

``header.json`` records the format name and version (2), kind, points, checkers,
policy, the arrays' shapes, dtypes and file sizes, ``header_checksum`` (SHA-256 of the
canonical header fields) and ``checksum`` (SHA-256 of the canonical header followed by
every array file), so a wrong header field is caught as surely as a flipped bit.
Writing goes through :mod:`mathbg.bearoff.storage`: a temporary directory beside the
target, renamed into place only when complete, a lock so concurrent builds take turns,
refusal of a target that is not a database of the same kind (unless ``force``).
:meth:`OneSided.build` / :meth:`TwoSided.build` reuse a valid database at the target
path (checksum verified) and rebuild an invalid one (a damaged one with a one-line
:class:`~mathbg.errors.MathbgWarning`). :meth:`~OneSided.open` checks the header and the
file sizes always and the full checksum once per process (``verify=False`` skips it);
a damaged database raises :class:`~mathbg.errors.DatabaseCorruptError`. Arrays are
opened memory-mapped.

gnubg's ``.bd`` files (:mod:`mathbg.bearoff.gnubg_bd`) open with the same classes
(``OneSided.open("gnubg_os0.bd")``) and are written with ``to_gnubg``.

Positions are checker counts on points 1..P (the side's own numbering, ace point
first), or a :class:`mathbg.rules.position.Position` whose checkers are all within the
database's points (one-sided queries use the side on roll).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg import _resources
from mathbg._output import FrameMixin
from mathbg.bearoff import index as _index
from mathbg.bearoff import onesided as _os
from mathbg.bearoff import storage
from mathbg.cube.decisions import CubeDecision
from mathbg.errors import (
    DatabaseCorruptError,
    DatabaseError,
    InsufficientSpaceError,
    InvalidParameterError,
    MathbgWarning,
)
from mathbg.rules.cube import CubeOwner

__all__ = ["FORMAT", "FORMAT_VERSION", "Equities", "OneSided", "TwoSided"]

FORMAT = "mathbg-bearoff"
#: Bump when the generated numbers or the layout change: older caches are rebuilt.
FORMAT_VERSION = 2

PathLike = str | os.PathLike[str]


# ------------------------------------------------------------------------------ storage

#: The files a native database directory may hold (anything else is foreign).
_DB_FILES = frozenset({"header.json", "dist.npy", "gammon.npy", "gnubg.npy", "equity.npy"})
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
    return "sha256:" + storage.sha256_files(files, prefix=_canonical(header))


def _is_native(kind: str) -> Callable[[Path], bool]:
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
        return names <= _DB_FILES  # only our file names: a damaged database

    return check


def _write_header(directory: Path, header: dict[str, Any], arrays: list[str]) -> dict[str, Any]:
    files = [directory / f"{name}.npy" for name in arrays]
    info = {}
    for name, f in zip(arrays, files, strict=True):
        arr = np.load(f, mmap_mode="r")
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


def _read_header(directory: Path, kind: str) -> dict[str, Any]:
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
    if header.get("version") != FORMAT_VERSION:
        raise DatabaseError(
            f"{directory}: format version {header.get('version')}, this mathbg reads "
            f"{FORMAT_VERSION}: rebuild it"
        )
    if header.get("kind") != kind:
        raise DatabaseError(f"{directory}: a {header.get('kind')} database, not {kind}")
    if header.get("header_checksum") != _header_digest(header):
        raise _corrupt(directory, "header.json does not match its checksum")
    _check_fields(directory, header, kind)
    return header


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
        if header.get("policy") not in _os.POLICIES:
            raise _corrupt(directory, f"header field policy={header.get('policy')!r} unknown")
        whole("gammon_start", 0, n)


def _verified_key(directory: Path, header: dict[str, Any]) -> tuple[Any, ...]:
    """What a full verification covers: the directory, its checksum, and each array
    file's inode, size and modification time (a changed file is verified again)."""
    stamps = []
    for name in header["arrays"]:
        st = (directory / f"{name}.npy").stat()
        stamps.append((name, st.st_ino, st.st_size, st.st_mtime_ns))
    return (str(directory.resolve()), header.get("checksum"), tuple(stamps))


def _remember_written(directory: Path, header: dict[str, Any]) -> None:
    """A database just written: :func:`_write_header` hashed its files as they are on
    disk, so opening it in this process does not read and hash them a second time (for
    a 6x15 two-sided table, 22 GiB)."""
    _VERIFIED.add(_verified_key(directory, header))


def _load_arrays(directory: Path, header: dict[str, Any], verify: bool) -> dict[str, NDArray]:
    """Memory-map the arrays, checking shape, dtype and file size (always) and the full
    checksum (when ``verify``, once per process and file state)."""
    arrays = {}
    for name, info in header["arrays"].items():
        f = directory / f"{name}.npy"
        try:
            st = f.stat()
            arr = np.load(f, mmap_mode="r", allow_pickle=False)
        except FileNotFoundError:
            raise _corrupt(directory, f"{name}.npy is missing") from None
        except (OSError, ValueError, EOFError) as exc:
            raise _corrupt(directory, f"cannot load {name}.npy ({exc})") from None
        if list(arr.shape) != info["shape"] or str(arr.dtype) != info["dtype"]:
            raise _corrupt(directory, f"{name}.npy does not match its header")
        if st.st_size != info["bytes"] or arr.offset + arr.nbytes != st.st_size:
            raise _corrupt(directory, f"{name}.npy has {st.st_size} bytes, not {info['bytes']}")
        arrays[name] = arr
    key = _verified_key(directory, header)
    if verify and key not in _VERIFIED:
        if _full_digest(directory, header) != header.get("checksum"):
            raise _corrupt(directory, "checksum mismatch")
        _VERIFIED.add(key)
    return arrays


def _warn(message: str) -> None:
    import warnings

    warnings.warn(message, MathbgWarning, stacklevel=3)


def _reuse(
    cls: Any, target: Path, wanted: tuple[Any, ...], default: bool, *, warn: bool = True
) -> Any:
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
    storage.clean_stale(target.parent)  # debris of a killed build beside a valid database
    return db


def progress_bar(total: int, desc: str, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="pos", unit_scale=True, leave=False)


def _is_gnubg_file(path: Path) -> bool:
    if not path.is_file():
        return False
    with open(path, "rb") as fh:
        return fh.read(6) == b"gnubg-"


def _position_side(position: Any, side: str) -> Any:
    """Checker counts of a rules-model Position's side ("player" on roll or "opponent")."""
    counts = getattr(position, side)
    if len(counts) == 25 and counts[24]:
        raise DatabaseError(f"the {side} has a checker on the bar: not a bearoff position")
    return counts[:24]


def _is_position(obj: Any) -> bool:
    return hasattr(obj, "player") and hasattr(obj, "opponent") and hasattr(obj, "cells")


# ------------------------------------------------------------------------------ one-sided


#: Peak memory per position of a one-sided build, and per pair of a two-sided build, in
#: bytes (measured: 10x15 one-sided 4.3 GiB for 3.27 M positions; 6x10 two-sided 4.0 GiB
#: for 64 M pairs), with a margin.
_BYTES_PER_ONESIDED_POSITION = 1500
_BYTES_PER_TWOSIDED_PAIR = 70


def _check_memory(needed: int, what: str) -> None:
    """Refuse a build that cannot fit in memory instead of letting the system kill it."""
    _resources.check_memory(needed, what)


class OneSided:
    """A one-sided bearoff database: the distribution of rolls to bear off, per position.

    Build or load with :meth:`build` (cached) or :meth:`open`; query with checker counts
    on points 1..P (or 2-D arrays of them, one position per row).

    Examples
    --------
    >>> db = OneSided.build(points=6, checkers=15)          # doctest: +SKIP
    >>> round(db.mean_rolls([0, 0, 0, 0, 0, 15]), 4)         # doctest: +SKIP
    12.2662
    """

    def __init__(
        self,
        dist: NDArray[np.float64],
        gammon: NDArray[np.float64],
        *,
        points: int,
        checkers: int,
        policy: str,
        gammon_start: int,
        gnubg_table: NDArray[np.uint16] | None = None,
        path: Path | None = None,
        header: dict[str, Any] | None = None,
    ) -> None:
        self._dist = dist
        self._gammon = gammon
        self._gnubg = gnubg_table
        self.points = int(points)
        self.checkers = int(checkers)
        self.policy = policy
        self.gammon_start = int(gammon_start)
        self.path = path
        self.header = header or {}
        expected = _index.n_positions(self.points, self.checkers)
        if dist.shape[0] != expected:
            raise DatabaseError(
                f"one-sided {points}x{checkers} needs {expected} rows, got {dist.shape[0]}"
            )

    # ---------------------------------------------------------------- construction
    @staticmethod
    def default_path(points: int = 6, checkers: int = 15, policy: str = "gnubg") -> Path:
        """Where :meth:`build` keeps the database: ``cache_dir("bearoff")/onesided-...``."""
        from mathbg._paths import cache_dir

        return cache_dir("bearoff") / f"onesided-{points:02d}x{checkers:02d}-{policy}"

    @classmethod
    def build(
        cls,
        points: int = 6,
        checkers: int = 15,
        *,
        policy: str = "gnubg",
        path: PathLike | None = None,
        progress: bool = True,
        rebuild: bool = False,
        force: bool = False,
    ) -> OneSided:
        """Return the database for ``points`` x ``checkers``, generating it if needed.

        A valid database (matching header, verified checksum) at ``path`` (default
        :meth:`default_path`) is reused unless ``rebuild``; otherwise it is generated
        (numba, both cores, a tqdm bar when ``progress``) and written atomically.

        Parameters
        ----------
        points : int
            Points 1..P the checkers may occupy (1..13 for gnubg compatibility).
        checkers : int
            At most this many checkers (1..15); gammon distributions need 15.
        policy : {"gnubg", "min-rolls"}
            The move policy (see :mod:`mathbg.bearoff.onesided`): gnubg's choice
            (default, comparable with gnubg) or exact minimum expected rolls.
        path : path, optional
            Where to keep it (default :meth:`default_path`, the cache).
        progress : bool
            Show a tqdm bar.
        rebuild : bool
            Build even when a valid database is there.
        force : bool
            Replace an existing ``path`` that is not a one-sided database (refused
            otherwise with :class:`~mathbg.errors.TargetExistsError`).

        Concurrent builds of one path serialise (a lock file beside it): the second
        waits and returns the first's result. A damaged database at the path is rebuilt
        with a one-line :class:`~mathbg.errors.MathbgWarning`.
        """
        _index.check_size(points, checkers)
        if policy not in _os.POLICIES:
            raise InvalidParameterError(f"policy must be one of {_os.POLICIES}, got {policy!r}")
        default = path is None
        target = Path(path) if path is not None else cls.default_path(points, checkers, policy)
        wanted = (points, checkers, policy)
        what = "one-sided bearoff database"
        if not rebuild and (db := _reuse(cls, target, wanted, default, warn=False)) is not None:
            return db
        n = _index.n_positions(points, checkers)
        _check_memory(n * _BYTES_PER_ONESIDED_POSITION, f"one-sided {points}x{checkers}")
        same_kind = _is_native("one-sided")
        storage.check_target(target, is_same_kind=same_kind, what=what, force=force or default)
        with storage.build_lock(target):
            if not rebuild and (db := _reuse(cls, target, wanted, default)) is not None:
                return db  # built meanwhile by a concurrent build
            # before the bar, so its ETA measures the build (gnubg's policy: nothing to compile)
            _os.compile_kernels(points, checkers, policy=policy)
            bar = progress_bar(n, f"one-sided {points}x{checkers}", progress)
            start = time.perf_counter()
            try:
                with_gnubg = policy == "gnubg"
                arrays = _os.build_arrays(
                    points,
                    checkers,
                    policy=policy,
                    progress=bar.update if bar is not None else None,
                    gnubg_table=with_gnubg,
                )
            finally:
                if bar is not None:
                    bar.close()
            seconds = time.perf_counter() - start
            names = ["dist", "gammon"] + (["gnubg"] if with_gnubg else [])
            needed = sum(getattr(arrays, name).nbytes + 4096 for name in names)
            with storage.atomic_directory(
                target, what=what, is_same_kind=same_kind, force=force or default,
                needed_bytes=needed, locked=True,
            ) as tmp:  # fmt: skip
                for name in names:
                    np.save(tmp / f"{name}.npy", getattr(arrays, name))
                header = _write_header(
                    tmp,
                    {
                        "kind": "one-sided",
                        "points": points,
                        "checkers": checkers,
                        "policy": policy,
                        "n_positions": _index.n_positions(points, checkers),
                        "gammon_start": arrays.gammon_start,
                        "build_seconds": round(seconds, 3),
                        "generator": _generator(),
                    },
                    names,
                )
            _remember_written(target, header)
            return cls.open(target)

    @classmethod
    def open(cls, path: PathLike, *, verify: bool = True) -> OneSided:
        """Open a native database directory or a gnubg one-sided ``.bd`` file.

        Native arrays are memory-mapped. The header (fields and its own checksum) and the
        file sizes are always checked; ``verify`` (default) also checks the full
        checksum, over the header and every array, once per process and file. A gnubg
        file is read into memory, checked for plausibility (:mod:`mathbg.bearoff.gnubg_bd`)
        and converted from 16-bit fixed point (``u / 65535``).

        Raises
        ------
        mathbg.errors.DatabaseCorruptError
            The database fails a check: it is never served.
        """
        p = Path(path)
        if _is_gnubg_file(p):
            return cls._from_gnubg(p)
        if not p.is_dir():
            raise DatabaseError(f"{p}: no such bearoff database")
        header = _read_header(p, "one-sided")
        arrays = _load_arrays(p, header, verify)
        return cls(
            arrays["dist"],
            arrays["gammon"],
            points=header["points"],
            checkers=header["checkers"],
            policy=header["policy"],
            gammon_start=header["gammon_start"],
            gnubg_table=arrays.get("gnubg"),
            path=p,
            header=header,
        )

    def _identity(self) -> tuple[Any, ...]:
        return (self.points, self.checkers, self.policy)

    @classmethod
    def _from_gnubg(cls, path: Path) -> OneSided:
        from mathbg.bearoff import gnubg_bd

        bd = gnubg_bd.read_onesided(path)
        if bd.dist is None:
            raise DatabaseError(
                f"{path}: a normal-approximation database (mean and sd only) has no "
                "distributions; use a full one-sided database"
            )
        h = bd.header
        n = h.n_positions
        start = _index.block_start(h.points, 15) if h.checkers == 15 else n
        dist = gnubg_bd.probability_from_u16(bd.dist)
        if bd.gammon is not None:
            gammon = gnubg_bd.probability_from_u16(bd.gammon[start:])
            table = np.hstack([bd.dist, bd.gammon])
        else:
            gammon = np.zeros((0, 2))
            start = n
            table = None
        return cls(
            dist,
            gammon,
            points=h.points,
            checkers=h.checkers,
            policy="gnubg",
            gammon_start=start,
            gnubg_table=table,
            path=path,
            header={"kind": "one-sided", "source": "gnubg", "gnubg_header": h.to_bytes().decode()},
        )

    def to_gnubg(self, path: PathLike, *, compressed: bool = True, force: bool = False) -> None:
        """Write a gnubg ``.bd`` file (32 bins, 16-bit fixed point, gammon distributions).

        With gnubg's policy the stored gnubg table is written, so the file equals what
        ``makebearoff -o P`` produces, byte for byte; otherwise the float distributions
        are rounded (:func:`mathbg.bearoff.gnubg_bd.u16_from_distribution`).
        """
        from mathbg.bearoff import gnubg_bd

        if self._gnubg is not None:
            dist, gammon = self._gnubg[:, :32], self._gnubg[:, 32:]
        else:
            n = len(self._dist)
            dist = gnubg_bd.u16_from_distribution(self._dist)
            full = np.zeros((n, 32))
            full[:, 0] = 1.0
            if len(self._gammon):
                full[self.gammon_start :] = 0.0
                width = min(32, self._gammon.shape[1])
                full[self.gammon_start :, :width] = self._gammon[:, :width]
            gammon = gnubg_bd.u16_from_distribution(full)
        gnubg_bd.write_onesided(
            path,
            dist,
            gammon,
            points=self.points,
            checkers=self.checkers,
            compressed=compressed,
            force=force,
        )

    # ---------------------------------------------------------------- queries
    @property
    def n_positions(self) -> int:
        """Number of positions C(P + C, P)."""
        return len(self._dist)

    @property
    def max_rolls(self) -> int:
        """Length of the stored distributions minus one (the longest possible bearoff)."""
        return self._dist.shape[1] - 1

    def index(self, counts: ArrayLike) -> Any:
        """Bearoff index of a position (int) or of each row of a 2-D array (int64 array)."""
        if _is_position(counts):
            counts = _position_side(counts, "player")
        arr = _index.validate_counts(counts, self.points, self.checkers)
        return _index.rank(arr, self.points)

    def distribution(self, counts: ArrayLike) -> NDArray[np.float64]:
        """P(exactly n rolls to bear off all checkers), n = 0, 1, ..., :attr:`max_rolls`.

        Returns a copy, shape (nb,) for one position or (k, nb) for a 2-D input.
        """
        return np.array(self._dist[self.index(counts)], dtype=np.float64)

    def gammon_distribution(self, counts: ArrayLike) -> NDArray[np.float64]:
        """P(the first checker comes off on roll n), n = 0, 1, ...

        Only meaningful with all 15 checkers on the board (the probability of saving a
        gammon); positions with a checker already off give a unit mass at n = 0.
        """
        idx = np.asarray(self.index(counts))
        width = max(self._gammon.shape[1], 1)
        out = np.zeros((*idx.shape, width))
        full = idx >= self.gammon_start
        out[~full, 0] = 1.0
        if np.any(full):
            out[full] = self._gammon[idx[full] - self.gammon_start]
        return out

    def mean_rolls(self, counts: ArrayLike) -> Any:
        """Expected rolls to bear off: ``sum_n n P(n)``."""
        return _os.mean_rolls(self.distribution(counts))

    def variance_rolls(self, counts: ArrayLike) -> Any:
        """Variance of the number of rolls."""
        return _os.variance_rolls(self.distribution(counts))

    def std_rolls(self, counts: ArrayLike) -> Any:
        """Standard deviation of the number of rolls."""
        return _os.std_rolls(self.distribution(counts))

    def epc(self, counts: ArrayLike) -> Any:
        """Effective pip count: mean rolls x 49/6."""
        return _os.epc(self.distribution(counts))

    def wastage(self, counts: ArrayLike) -> Any:
        """EPC minus the pip count."""
        arr = counts
        if _is_position(counts):
            arr = _position_side(counts, "player")
        arr = _index.validate_counts(arr, self.points, self.checkers)
        return _os.wastage(self.distribution(arr), _index.pips(arr))

    def mean_gammon_rolls(self, counts: ArrayLike) -> Any:
        """Expected rolls until the first checker is off (0 when one is already off)."""
        return _os.mean_rolls(self.gammon_distribution(counts))

    def win_probability(self, roller: ArrayLike, opponent: ArrayLike | None = None) -> Any:
        """The roller's chance to finish first when both sides follow this database's policy.

        ``sum_n P_roller(n) P_opponent(>= n)`` (the roller wins ties). Exact only where
        the policy is optimal (see :mod:`mathbg.bearoff.twosided` for exact values).
        A single :class:`~mathbg.rules.position.Position` gives both sides.
        """
        if opponent is None and _is_position(roller):
            roller, opponent = _position_side(roller, "player"), _position_side(roller, "opponent")
        dist_r = self.distribution(roller)
        # a missing opponent fails in validate_counts, naming the problem
        dist_o = self.distribution(opponent)  # type: ignore[arg-type]
        return _os.win_probability(dist_r, dist_o)

    def __repr__(self) -> str:
        return (
            f"OneSided(points={self.points}, checkers={self.checkers}, policy={self.policy!r}, "
            f"path={str(self.path) if self.path else None!r})"
        )


# ------------------------------------------------------------------------------ two-sided


@dataclass(frozen=True)
class Equities(FrameMixin):
    """The four stored values of a two-sided pair (money, per unit cube, roller's view).

    ``owned``, ``centred`` and ``opponent_owns`` are cubeful equities *before* the
    roller's own cube decision (see :meth:`TwoSided.cube_decision`).
    """

    cubeless: float  #: 2p - 1, p the probability that the roller finishes first
    owned: float  #: the roller owns the cube
    centred: float  #: centred cube
    opponent_owns: float  #: the opponent owns the cube

    @property
    def win_probability(self) -> float:
        """p = (cubeless + 1) / 2."""
        return (self.cubeless + 1.0) / 2.0


class TwoSided:
    """A two-sided bearoff database: exact equities for every pair of positions.

    Examples
    --------
    >>> ts = TwoSided.build(points=6, checkers=6)                       # doctest: +SKIP
    >>> ts.win_probability([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])      # doctest: +SKIP
    0.8125
    """

    def __init__(
        self,
        equity: NDArray[np.float64],
        *,
        points: int,
        checkers: int,
        path: Path | None = None,
        header: dict[str, Any] | None = None,
    ) -> None:
        n = _index.n_positions(points, checkers)
        if equity.ndim != 3 or equity.shape[:2] != (n, n) or equity.shape[2] not in (1, 4):
            raise DatabaseError(f"two-sided {points}x{checkers} needs shape ({n}, {n}, 4)")
        if equity.dtype not in (np.uint16, np.float32, np.float64):
            raise DatabaseError(
                f"two-sided tables are uint16, float32 or float64, not {equity.dtype}"
            )
        self._equity: NDArray[Any] = equity
        #: storage: "u16" (gnubg's fixed point, equity = u / 32767.5 - 1), "f32" or "f64"
        self.dtype = {np.dtype(np.uint16): "u16", np.dtype(np.float32): "f32"}.get(
            equity.dtype, "f64"
        )
        self.points = int(points)
        self.checkers = int(checkers)
        self.path = path
        self.header = header or {}

    @staticmethod
    def default_path(
        points: int = 6, checkers: int = 6, *, dtype: str = "f64", cubeful: bool = True
    ) -> Path:
        """Where :meth:`build` keeps the database: ``cache_dir("bearoff")/twosided-PPxCC``,
        with ``-f32``/``-u16`` for those encodings and ``-cubeless`` without cubeful values."""
        from mathbg._paths import cache_dir

        suffix = ("" if dtype == "f64" else f"-{dtype}") + ("" if cubeful else "-cubeless")
        return cache_dir("bearoff") / f"twosided-{points:02d}x{checkers:02d}{suffix}"

    @staticmethod
    def default_dtype(points: int, checkers: int, cubeful: bool = True) -> str:
        """The encoding :meth:`build` uses when none is given: float64 while the table is at
        most 4 GiB (up to 6x10 cubeful), else gnubg's 16-bit fixed point."""
        n = _index.n_positions(points, checkers)
        return "f64" if n * n * (4 if cubeful else 1) * 8 <= 4 * 2**30 else "u16"

    @classmethod
    def build(
        cls,
        points: int = 6,
        checkers: int = 6,
        *,
        cubeful: bool = True,
        dtype: str | None = None,
        memory: str | int | None = None,
        client: Any = None,
        store: str | os.PathLike[str] | None = None,
        path: PathLike | None = None,
        progress: bool = True,
        rebuild: bool = False,
        force: bool = False,
    ) -> TwoSided:
        """Return the two-sided database for ``points`` x ``checkers``, generating it if needed.

        The table is built block by block in pip-count layers
        (:mod:`mathbg.bearoff.blockbuild`): only the live window of layers is kept in
        memory, finished blocks go to a checksummed block store, and an interrupted build
        (even killed) resumes where it stopped when called again (a build of under a
        second, 6x6 and smaller, keeps its blocks in memory and starts over). A database
        already built at the target (matching header, verified checksum) is opened
        instead.

        Parameters
        ----------
        points, checkers : int
            The space: at most ``checkers`` checkers a side on points 1..``points``
            (6 x 15 is the full bearoff: 2.9e9 pairs).
        cubeful : bool
            Store the three cubeful money equities besides the cubeless one (4 values a
            pair); False stores the cubeless equity only.
        dtype : {"u16", "f32", "f64"}, optional
            ``"u16"``: gnubg's 16-bit fixed point computed with gnubg's integer arithmetic
            (byte-identical to ``makebearoff -t``; 2 bytes a value); ``"f32"``/``"f64"``:
            float equities (the float64 recursion, stored as float32 or float64). Default
            :meth:`default_dtype`.
        memory : str or int, optional
            Memory budget (``"12GiB"``, bytes). The build refuses to start when the budget
            cannot hold the live window. Default: the whole table when it fits in 80 % of
            the available memory, else that much.
        client : dask.distributed.Client, optional
            Build on a Dask cluster (one task per block, same kernel, same bytes); the
            block store must then be reachable by every worker (``store``).
        store : str or os.PathLike, optional
            Block store directory or fsspec URL (default: beside the target).
        path : str or os.PathLike, optional
            Target directory (default :meth:`default_path`).
        progress : bool
            A tqdm bar with pairs done, pairs/s and a work-weighted ETA.
        rebuild : bool
            Build even when a valid database exists.
        force : bool
            Replace whatever is at ``path`` (see :meth:`OneSided.build`; concurrency as
            there: a second build of the same target waits for the first).
        """
        from mathbg.bearoff import blockbuild as _bb

        _index.check_size(points, checkers)
        dtype = cls.default_dtype(points, checkers, cubeful) if dtype is None else dtype
        spec = _bb.BuildSpec(int(points), int(checkers), bool(cubeful), dtype)
        budget = _bb.parse_memory(memory)
        if budget is None:
            available = _resources.available_memory()
            budget = None if available is None else int(0.8 * available)
        default = path is None
        target = (
            Path(path) if path is not None
            else cls.default_path(points, checkers, dtype=dtype, cubeful=cubeful)
        )  # fmt: skip
        wanted = (points, checkers, dtype, bool(cubeful))
        what = "two-sided bearoff database"
        if not rebuild and (db := _reuse(cls, target, wanted, default, warn=False)) is not None:
            return db
        n = _index.n_positions(points, checkers)
        table_bytes = n * n * spec.nv * spec.numpy_dtype.itemsize
        same_kind = _is_native("two-sided")
        storage.check_target(target, is_same_kind=same_kind, what=what, force=force or default)
        with storage.build_lock(target):
            if not rebuild and (db := _reuse(cls, target, wanted, default)) is not None:
                return db  # built meanwhile by a concurrent build
            # the block store (resumable after a kill) lives beside the target
            work = target.parent / f".{target.name}.build"
            start = time.perf_counter()
            block_store = _bb.BlockStore(store if store is not None else work / "store")
            try:
                if client is not None:
                    from mathbg.bearoff import blockdask

                    blockdask.build_blocks(spec, block_store, client, progress=progress)
                    arena = plan = None
                else:
                    arena, plan, _ = _bb.build_blocks(spec, block_store, memory=budget,
                                                      progress=progress, persist=None)  # fmt: skip
            except InsufficientSpaceError:
                # a full disk: leave no debris (a kill or Ctrl+C keeps the store to resume)
                if store is None:
                    shutil.rmtree(work, ignore_errors=True)
                raise
            try:
                with storage.atomic_directory(
                    target, what=what, is_same_kind=same_kind, force=force or default,
                    needed_bytes=table_bytes + 4096, locked=True,
                ) as tmp:  # fmt: skip
                    _bb.assemble(spec, block_store, tmp / "equity.npy", arena=arena, plan=plan,
                                 progress=progress)  # fmt: skip
                    del arena
                    header = _write_header(
                        tmp,
                        {
                            "kind": "two-sided",
                            "points": points,
                            "checkers": checkers,
                            "n_positions": n,
                            "values": ["cubeless", "owned", "centred", "opponent_owns"][: spec.nv],
                            "dtype": dtype,
                            "encoding": "gnubg fixed point: equity = u / 32767.5 - 1"
                            if dtype == "u16" else "equity",
                            "build_seconds": round(time.perf_counter() - start, 3),
                            "backend": "dask" if client is not None else "local",
                            "generator": _generator(),
                        },
                        ["equity"],
                    )
            except InsufficientSpaceError:
                # no room for the table: a store holding no blocks (a small build keeps
                # them in memory) has nothing to resume, so it goes
                if store is None and not block_store.listing():
                    shutil.rmtree(work, ignore_errors=True)
                raise
            _remember_written(target, header)
            block_store.remove_all()
            shutil.rmtree(work, ignore_errors=True)
            return cls.open(target)

    @classmethod
    def largest(cls, *, cubeful: bool = True, directory: PathLike | None = None) -> TwoSided | None:
        """The largest two-sided database already built in the cache (or ``directory``).

        "Largest" is the most checkers, then the most points, then the finest encoding
        (f64, f32, u16). Only databases with cubeful values count when ``cubeful``. Nothing
        is built; None when there is none.
        """
        from mathbg._paths import cache_dir

        root = Path(directory) if directory is not None else cache_dir("bearoff")
        best: tuple[tuple[int, int, int], Path] | None = None
        rank = {"f64": 2, "f32": 1, "u16": 0}
        for d in root.glob("twosided-*"):
            try:
                header = _read_header(d, "two-sided")
            except DatabaseError:
                continue
            nvals = len(header.get("values", []))
            if cubeful and nvals != 4:
                continue
            encoding = rank.get(header.get("dtype", "f64"), 0)
            key = (int(header["checkers"]), int(header["points"]), encoding)
            if best is None or key > best[0]:
                best = (key, d)
        if best is None:
            return None
        try:
            return cls.open(best[1])
        except DatabaseError:
            return None

    @classmethod
    def open(cls, path: PathLike, *, verify: bool = True) -> TwoSided:
        """Open a native database directory or a gnubg two-sided ``.bd`` file.

        Checks as in :meth:`OneSided.open`.
        """
        p = Path(path)
        if _is_gnubg_file(p):
            from mathbg.bearoff import gnubg_bd

            bd = gnubg_bd.read_twosided(p)
            h = bd.header
            return cls(
                gnubg_bd.equity_from_u16(bd.values),
                points=h.points,
                checkers=h.checkers,
                path=p,
                header={"kind": "two-sided", "source": "gnubg"},
            )
        if not p.is_dir():
            raise DatabaseError(f"{p}: no such bearoff database")
        header = _read_header(p, "two-sided")
        arrays = _load_arrays(p, header, verify)
        return cls(
            arrays["equity"],
            points=header["points"],
            checkers=header["checkers"],
            path=p,
            header=header,
        )

    def _identity(self) -> tuple[Any, ...]:
        return (self.points, self.checkers, self.dtype, self.cubeful)

    def to_gnubg(self, path: PathLike, *, exact: bool = True, force: bool = False) -> None:
        """Write a gnubg two-sided ``.bd`` file (4 x uint16 per pair, or 1 cubeless).

        A 16-bit database (built with gnubg's arithmetic) is written as stored: the file
        ``makebearoff -t PxC`` writes, byte for byte. For a float database ``exact``
        regenerates the table with gnubg's integer arithmetic (a 16-bit build), otherwise
        the float equities are rounded to the nearest fixed-point value.

        Raises
        ------
        DatabaseError
            When the file would exceed gnubg's 2 GB limit (larger than 6 x 11 cubeful).
        """
        from mathbg.bearoff import gnubg_bd

        n, nv = self.n_positions, self._equity.shape[2]
        if 40 + n * n * nv * 2 > 2**31 - 1:
            raise DatabaseError(
                f"a two-sided {self.points}x{self.checkers} .bd file would be "
                f"{(40 + n * n * nv * 2) / 1e9:.1f} GB: gnubg's format holds at most 2 GB"
            )
        values: NDArray[Any]
        if self.dtype == "u16":
            values = self._equity
        elif exact:
            with tempfile.TemporaryDirectory(prefix="mathbg-ts-") as tmp:
                fixed = TwoSided.build(self.points, self.checkers, cubeful=nv == 4, dtype="u16",
                                       path=Path(tmp) / "db", progress=False)  # fmt: skip
                gnubg_bd.write_twosided(path, fixed._equity, points=self.points,
                                        checkers=self.checkers, force=force)  # fmt: skip
                del fixed
            return
        else:
            values = gnubg_bd.u16_from_equity(self._equity)
        gnubg_bd.write_twosided(
            path, values, points=self.points, checkers=self.checkers, force=force
        )

    @property
    def n_positions(self) -> int:
        """One-side positions n = C(P + C, P) (the table has n^2 pairs)."""
        return self._equity.shape[0]

    def _pair(
        self, roller: ArrayLike, opponent: ArrayLike | None, *, in_play: bool = False
    ) -> tuple[Any, Any]:
        if opponent is None:
            if not _is_position(roller):
                raise InvalidParameterError(
                    "give the roller's and the opponent's checker counts, or one Position"
                )
            roller, opponent = _position_side(roller, "player"), _position_side(roller, "opponent")
        r = _index.validate_counts(roller, self.points, self.checkers, what="roller")
        o = _index.validate_counts(opponent, self.points, self.checkers, what="opponent")
        if in_play:  # a single question about a game: both sides still have checkers
            _index.check_in_play(r, "roller")
            _index.check_in_play(o, "opponent")
        return _index.rank(r, self.points), _index.rank(o, self.points)

    @property
    def cubeful(self) -> bool:
        """Whether the cubeful equities are stored (else the cubeless one only)."""
        return self._equity.shape[2] == 4

    def values(
        self, roller: ArrayLike, opponent: ArrayLike | None = None, *, in_play: bool = False
    ) -> NDArray[np.float64]:
        """The stored 4-vector(s) [cubeless, owned, centred, opponent owns] as equities.

        ``in_play`` refuses a pair where a side has no checker left (the game is over).
        """
        i, j = self._pair(roller, opponent, in_play=in_play)
        raw = np.array(self._equity[i, j], dtype=np.float64)
        if self.dtype == "u16":
            return raw / 32767.5 - 1.0
        return raw

    def win_probability(self, roller: ArrayLike, opponent: ArrayLike | None = None) -> Any:
        """Exact probability that the roller bears off first (optimal checker play)."""
        v = self.values(roller, opponent)[..., 0]
        p = (v + 1.0) / 2.0
        return float(p) if np.ndim(p) == 0 else p

    def equities(self, roller: ArrayLike, opponent: ArrayLike | None = None) -> Equities:
        """The four stored equities of one pair, as named fields."""
        v = self.values(roller, opponent, in_play=True)
        if v.ndim != 1:
            raise InvalidParameterError("equities() takes one pair; use values() for arrays")
        self._require_cubeful()
        return Equities(*(float(x) for x in v))

    def _require_cubeful(self) -> None:
        if self._equity.shape[2] != 4:
            raise DatabaseError(
                f"{self.path}: a cubeless-only database (makebearoff -C) has no cubeful equities"
            )

    def cube_decision(
        self,
        roller: ArrayLike,
        opponent: ArrayLike | None = None,
        owner: CubeOwner | str = CubeOwner.CENTRE,
        *,
        cube: str | None = None,
    ) -> CubeDecision:
        """The roller's cube decision: no double, double/take, double/pass and the action.

        ND is the stored value for ``owner`` (``"centre"``, ``"player"`` = the roller, or
        ``"opponent"``), DT twice the stored "opponent owns" value, DP = +1 (see
        :func:`mathbg.bearoff.twosided.cube_decision`; ``cube=`` is the deprecated
        spelling of ``owner``). Returns a :class:`mathbg.cube.decisions.CubeDecision`.
        """
        from mathbg.bearoff.twosided import cube_decision

        v = self.values(roller, opponent, in_play=True)
        if v.ndim != 1:
            raise InvalidParameterError("cube_decision() takes one pair")
        self._require_cubeful()
        return cube_decision(v, owner, cube=cube)

    def __repr__(self) -> str:
        return (
            f"TwoSided(points={self.points}, checkers={self.checkers}, dtype={self.dtype!r}, "
            f"cubeful={self.cubeful}, path={str(self.path) if self.path else None!r})"
        )


def _generator() -> str:
    from mathbg import __version__

    return f"mathbg {__version__}"


ProgressHook = Callable[[int], None]
