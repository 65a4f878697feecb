"""Read and write gnubg's bearoff database files (``.bd``).

Layout (gnubg ``bearoff.c``: ``BearoffInit``, ``GetDistCompressed``,
``GetDistUncompressed``, ``BearoffCubeful``; ``makebearoff.c`` writes them):

- A 40-byte ASCII header, padded with ``x`` and ended by a newline:
  ``gnubg-OS-PP-CC-g-c-n`` (one-sided: points, checkers, gammon distributions,
  compressed, normal approximation) or ``gnubg-TS-PP-CC-f`` (two-sided: points,
  checkers, cubeful).
- One-sided, uncompressed: per position (gnubg bearoff index order) 32 little-endian
  uint16 probabilities ``P(exactly n rolls)``, n = 0..31, in fixed point (0xFFFF = 1),
  followed by 32 more for the gammon distribution (rolls until the first checker is off)
  when ``g`` is 1.
- One-sided, compressed: an index of 8 bytes per position (6 without gammons): uint32
  offset (in uint16 units, into the data area), then ``nz``, ``ioff``, ``nzg``, ``ioffg``
  (length and first bin of the non-zero window of each distribution); then the data
  area, holding only those windows.
- One-sided, normal approximation: 4 float32 per position (mean and standard deviation
  of both distributions).
- Two-sided: per pair, row-major over (roller, opponent) indices, 4 uint16 (1 when not
  cubeful) ``u = (e + 1) * 32767.5``: cubeless equity, cubeful equity with the roller
  owning the cube, centred, opponent owning (money, before the roller's cube decision).

Fixed-point helpers convert to and from floats: probabilities ``u / 65535``, equities
``u / 32767.5 - 1``.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from mathbg.errors import DatabaseError

__all__ = [
    "BdHeader",
    "OneSidedBd",
    "TwoSidedBd",
    "equity_from_u16",
    "probability_from_u16",
    "read",
    "read_header",
    "read_onesided",
    "read_twosided",
    "u16_from_distribution",
    "u16_from_equity",
    "write_onesided",
    "write_twosided",
]

HEADER_SIZE = 40
_INDEX_DTYPE = {
    True: np.dtype(
        [("offset", "<u4"), ("nz", "u1"), ("ioff", "u1"), ("nzg", "u1"), ("ioffg", "u1")]
    ),
    False: np.dtype([("offset", "<u4"), ("nz", "u1"), ("ioff", "u1")]),
}


def _n_positions(points: int, checkers: int) -> int:
    from math import comb

    return comb(points + checkers, points)


@dataclass(frozen=True)
class BdHeader:
    """The fields of a ``.bd`` header (gnubg ``BearoffInit``)."""

    kind: str  #: "OS" one-sided, "TS" two-sided
    points: int
    checkers: int
    gammon: bool = False  #: one-sided: gammon distributions present
    compressed: bool = False  #: one-sided: window compression
    normal: bool = False  #: one-sided: normal approximation (mean, sd)
    cubeful: bool = False  #: two-sided: 4 values per pair (else cubeless only)

    @classmethod
    def parse(cls, raw: bytes, source: str = "file") -> BdHeader:
        """Decode the 40-byte header; raises :class:`DatabaseError` when it is not gnubg's."""
        if len(raw) < HEADER_SIZE or not raw.startswith(b"gnubg-"):
            raise DatabaseError(f"{source}: not a gnubg bearoff database (bad header)")
        text = raw[:HEADER_SIZE].decode("ascii", errors="replace")
        kind = text[6:8]

        def field(start: int, width: int) -> int:
            digits = text[start : start + width]
            if not digits.strip().isdigit():
                raise DatabaseError(f"{source}: malformed bearoff header {text.strip()!r}")
            return int(digits)

        if kind == "OS":
            return cls(
                "OS",
                field(9, 2),
                field(12, 2),
                gammon=bool(field(15, 1)),
                compressed=bool(field(17, 1)),
                normal=bool(field(19, 1)),
            )
        if kind == "TS":
            return cls("TS", field(9, 2), field(12, 2), cubeful=bool(field(15, 1)))
        raise DatabaseError(
            f"{source}: unsupported bearoff database type {kind!r} (only OS and TS are read)"
        )

    def to_bytes(self) -> bytes:
        """The header as gnubg's ``makebearoff`` writes it."""
        if self.kind == "OS":
            text = (
                f"gnubg-OS-{self.points:02d}-{self.checkers:02d}-{int(self.gammon)}-"
                f"{int(self.compressed)}-{int(self.normal)}"
            )
        elif self.kind == "TS":
            text = f"gnubg-TS-{self.points:02d}-{self.checkers:02d}-{int(self.cubeful)}"
        else:  # pragma: no cover - constructor misuse
            raise DatabaseError(f"unknown bearoff database kind {self.kind!r}")
        return (text.ljust(HEADER_SIZE - 1, "x") + "\n").encode("ascii")

    @property
    def n_positions(self) -> int:
        """One-side positions C(P + C, P)."""
        return _n_positions(self.points, self.checkers)


@dataclass(frozen=True)
class OneSidedBd:
    """A one-sided ``.bd`` file's contents (fixed point, as stored)."""

    header: BdHeader
    dist: NDArray[np.uint16] | None  #: [N, 32], None for a normal-approximation file
    gammon: NDArray[np.uint16] | None  #: [N, 32] or None
    normal: NDArray[np.float32] | None = None  #: [N, 4] mean, sd, gammon mean, gammon sd


@dataclass(frozen=True)
class TwoSidedBd:
    """A two-sided ``.bd`` file's contents: ``values[roller, opponent, k]`` uint16."""

    header: BdHeader
    values: NDArray[np.uint16]  #: [n, n, 4] (cubeful) or [n, n, 1]


def read_header(path: str | os.PathLike[str]) -> BdHeader:
    """The header of a ``.bd`` file."""
    with open(path, "rb") as fh:
        return BdHeader.parse(fh.read(HEADER_SIZE), str(path))


def _load(path: str | os.PathLike[str]) -> tuple[BdHeader, NDArray[np.uint8]]:
    data = np.fromfile(path, dtype=np.uint8)
    return BdHeader.parse(data[:HEADER_SIZE].tobytes(), str(path)), data


def _expect_size(path: object, actual: int, expected: int) -> None:
    if actual != expected:
        raise DatabaseError(
            f"{path}: expected {expected} bytes for this bearoff database, found {actual} "
            "(truncated or corrupt)"
        )


def read_onesided(path: str | os.PathLike[str]) -> OneSidedBd:
    """Read a one-sided ``.bd`` file (compressed or not, with or without gammons)."""
    header, data = _load(path)
    if header.kind != "OS":
        raise DatabaseError(f"{path}: a two-sided database, not one-sided")
    n = header.n_positions
    body = data[HEADER_SIZE:]
    if header.normal:
        _expect_size(path, len(body), 16 * n)
        return OneSidedBd(header, None, None, body.view("<f4").reshape(n, 4).copy())
    nd = 2 if header.gammon else 1
    if not header.compressed:
        _expect_size(path, len(body), 64 * nd * n)
        tab = body.view("<u2").reshape(n, 32 * nd).astype(np.uint16)
        return OneSidedBd(header, tab[:, :32].copy(), tab[:, 32:].copy() if header.gammon else None)
    idx_dtype = _INDEX_DTYPE[header.gammon]
    if len(body) < idx_dtype.itemsize * n:
        raise DatabaseError(f"{path}: truncated bearoff index")
    index = body[: idx_dtype.itemsize * n].view(idx_dtype)
    words = body[idx_dtype.itemsize * n :]
    if len(words) % 2:
        raise DatabaseError(f"{path}: odd-sized data area (corrupt)")
    words = words.view("<u2")
    offset = index["offset"].astype(np.int64)
    nz = index["nz"].astype(np.int64)
    ioff = index["ioff"].astype(np.int64)
    nzg = index["nzg"].astype(np.int64) if header.gammon else np.zeros(n, np.int64)
    ioffg = index["ioffg"].astype(np.int64) if header.gammon else np.zeros(n, np.int64)
    if np.any(ioff + nz > 32) or np.any(ioffg + nzg > 32):
        raise DatabaseError(f"{path}: distribution window beyond 32 bins (corrupt)")
    if np.any(offset + nz + nzg > len(words)):
        raise DatabaseError(f"{path}: index points beyond the data area (truncated)")

    def scatter(
        start: NDArray[np.int64], length: NDArray[np.int64], first: NDArray[np.int64]
    ) -> NDArray[np.uint16]:
        out = np.zeros((n, 32), np.uint16)
        rows = np.repeat(np.arange(n), length)
        within = np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length)
        out[rows, np.repeat(first, length) + within] = words[np.repeat(start, length) + within]
        return out

    dist = scatter(offset, nz, ioff)
    gammon = scatter(offset + nz, nzg, ioffg) if header.gammon else None
    return OneSidedBd(header, dist, gammon)


def read_twosided(path: str | os.PathLike[str]) -> TwoSidedBd:
    """Read a two-sided ``.bd`` file into ``uint16[n, n, k]`` (k = 4 cubeful, else 1)."""
    header, data = _load(path)
    if header.kind != "TS":
        raise DatabaseError(f"{path}: a one-sided database, not two-sided")
    n = header.n_positions
    k = 4 if header.cubeful else 1
    body = data[HEADER_SIZE:]
    _expect_size(path, len(body), 2 * k * n * n)
    return TwoSidedBd(header, body.view("<u2").reshape(n, n, k).astype(np.uint16))


def read(path: str | os.PathLike[str]) -> OneSidedBd | TwoSidedBd:
    """Read any supported ``.bd`` file."""
    header = read_header(path)
    return read_onesided(path) if header.kind == "OS" else read_twosided(path)


def _atomic_write(path: str | os.PathLike[str], chunks: list[bytes | NDArray]) -> None:
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk if isinstance(chunk, bytes) else np.ascontiguousarray(chunk).data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _window(tab: NDArray[np.uint16]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """gnubg ``CalcIndex``: first non-zero bin and length of the non-zero window."""
    nonzero = tab != 0
    if not np.all(nonzero.any(axis=1)):
        raise DatabaseError("a distribution with no probability mass cannot be written")
    first = np.argmax(nonzero, axis=1)
    last = tab.shape[1] - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    return first.astype(np.int64), (last - first + 1).astype(np.int64)


def write_onesided(
    path: str | os.PathLike[str],
    dist: NDArray[np.uint16],
    gammon: NDArray[np.uint16] | None = None,
    *,
    points: int,
    checkers: int = 15,
    compressed: bool = True,
) -> None:
    """Write a one-sided ``.bd`` file as gnubg's ``makebearoff -o`` does (atomically).

    ``dist`` and ``gammon`` are ``uint16[N, 32]`` fixed-point distributions in bearoff
    index order (see :func:`u16_from_distribution`).
    """
    n = _n_positions(points, checkers)
    dist = np.asarray(dist, dtype=np.uint16)
    if dist.shape != (n, 32) or (gammon is not None and np.shape(gammon) != (n, 32)):
        raise DatabaseError(f"one-sided {points}x{checkers} tables must have shape ({n}, 32)")
    header = BdHeader("OS", points, checkers, gammon=gammon is not None, compressed=compressed)
    tabs = [dist] if gammon is None else [dist, np.asarray(gammon, dtype=np.uint16)]
    if not compressed:
        _atomic_write(path, [header.to_bytes(), np.hstack(tabs).astype("<u2")])
        return
    windows = [_window(t) for t in tabs]
    lengths = sum(w[1] for w in windows)
    index = np.zeros(n, _INDEX_DTYPE[gammon is not None])
    index["offset"] = np.cumsum(lengths) - lengths
    index["nz"], index["ioff"] = windows[0][1], windows[0][0]
    if gammon is not None:
        index["nzg"], index["ioffg"] = windows[1][1], windows[1][0]
    # data area: per position the window of dist, then of gammon
    pieces = []
    for t, (first, length) in zip(tabs, windows, strict=True):
        rows = np.repeat(np.arange(n), length)
        within = np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length)
        pieces.append((rows, t[rows, np.repeat(first, length) + within]))
    if gammon is None:
        data = pieces[0][1]
    else:
        rows = np.concatenate([pieces[0][0], pieces[1][0]])
        which = np.concatenate([np.zeros(len(pieces[0][0])), np.ones(len(pieces[1][0]))])
        order = np.lexsort((which, rows))  # stable: dist window before gammon window
        data = np.concatenate([pieces[0][1], pieces[1][1]])[order]
    _atomic_write(path, [header.to_bytes(), index, data.astype("<u2")])


def write_twosided(
    path: str | os.PathLike[str],
    values: NDArray[np.uint16],
    *,
    points: int,
    checkers: int,
) -> None:
    """Write a two-sided ``.bd`` file (``values`` uint16[n, n, 4] or [n, n, 1]) atomically."""
    n = _n_positions(points, checkers)
    values = np.asarray(values, dtype=np.uint16)
    if values.ndim != 3 or values.shape[:2] != (n, n) or values.shape[2] not in (1, 4):
        raise DatabaseError(
            f"two-sided {points}x{checkers} values must have shape ({n}, {n}, 4 or 1)"
        )
    header = BdHeader("TS", points, checkers, cubeful=values.shape[2] == 4)
    _atomic_write(path, [header.to_bytes(), values.astype("<u2")])


def probability_from_u16(u: NDArray[np.integer]) -> NDArray[np.float64]:
    """Fixed-point probabilities to floats: ``u / 65535``."""
    return np.asarray(u, dtype=np.float64) / 65535.0


def equity_from_u16(u: NDArray[np.integer]) -> NDArray[np.float64]:
    """Fixed-point two-sided equities to floats: ``u / 32767.5 - 1`` (gnubg ``BearoffCubeful``)."""
    return np.asarray(u, dtype=np.float64) / 32767.5 - 1.0


def u16_from_equity(e: NDArray[np.floating]) -> NDArray[np.uint16]:
    """Equities in [-1, 1] to gnubg's fixed point, rounded to nearest: ``(e + 1) * 32767.5``."""
    e = np.asarray(e, dtype=np.float64)
    if np.any(np.abs(e) > 1.0 + 1e-12):
        raise DatabaseError("two-sided equities must lie in [-1, 1]")
    return np.clip(np.rint((e + 1.0) * 32767.5), 0, 0xFFFF).astype(np.uint16)


def u16_from_distribution(dist: NDArray[np.floating]) -> NDArray[np.uint16]:
    """Distributions (rows summing to 1) to gnubg's 32-bin fixed point.

    Bins beyond 31 are dropped (as gnubg's 32-bin files do); each bin is rounded to
    nearest in units of 1/65535 and the rounding residue is put on the first mode so
    each row sums to exactly 0xFFFF (gnubg ``BearOff``).
    """
    d = np.asarray(dist, dtype=np.float64)
    if d.shape[-1] >= 32:
        d = d[..., :32]
    else:
        d = np.pad(d, [(0, 0)] * (d.ndim - 1) + [(0, 32 - d.shape[-1])])
    u = np.rint(d * 65535.0).astype(np.int64)
    residue = u.sum(axis=-1) - 0xFFFF
    mode = np.argmax(u, axis=-1)
    np.put_along_axis(
        u, mode[..., None], np.take_along_axis(u, mode[..., None], -1) - residue[..., None], -1
    )
    if np.any(u < 0) or np.any(u > 0xFFFF):
        raise DatabaseError("distribution does not fit gnubg's fixed point (rows must sum to 1)")
    return u.astype(np.uint16)
