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

Reading checks plausibility (:func:`check_onesided`, :func:`check_twosided`): the file
size, the compressed index (windows within 32 bins, offsets contiguous and exactly
covering the data area), every distribution summing to 0xFFFF within its 16-bit
rounding (:data:`SUM_TOLERANCE`), each distribution within the rolls its pip count
allows, the game-over rows; for two-sided cubeful files the order the cube's value
imposes (owning the cube is worth at least a centred cube, which is worth at least the
opponent owning it; the roller owning it at least the cubeless equity, which is at least
the equity with the opponent owning it) and, for two-sided files, every value against the
equation that defines it (:func:`check_recurrence`, within 3 units of 1/32767.5; all rows
up to 1000 positions a side, a sample beyond). gnubg's published files
(:data:`PUBLISHED_MD5`) are recognised by their MD5 instead. A file that fails is refused
with :class:`mathbg.errors.DatabaseCorruptError` naming it. Writing
goes through :mod:`mathbg._files` (atomic, umask permissions, refuses to
replace a file that is not a ``.bd`` of the same kind unless ``force``).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from mathbg import _files
from mathbg.errors import DatabaseCorruptError, DatabaseError, TargetExistsError

__all__ = [
    "PUBLISHED_MD5",
    "SUM_TOLERANCE",
    "BdHeader",
    "OneSidedBd",
    "TwoSidedBd",
    "check_onesided",
    "check_recurrence",
    "check_target",
    "check_twosided",
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
#: How far (in units of 1/65535) a stored distribution's sum may be from 0xFFFF: half a
#: unit of rounding in each of the 32 bins.
SUM_TOLERANCE = 16
#: Slack (in units of 1/32767.5) allowed in the two-sided cube-value order.
ORDER_TOLERANCE = 2
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


#: MD5 of the files gnubg distributes (gnubg's manual, "Obtaining bearoff databases"),
#: by their 40-byte header: a file with one of these headers must be that file.
PUBLISHED_MD5 = {
    b"gnubg-OS-06-15-1-1-0".ljust(HEADER_SIZE - 1, b"x") + b"\n": (
        "3dc7b833c4670849cee00479a9e21b49"
    ),
    b"gnubg-TS-06-06-1".ljust(HEADER_SIZE - 1, b"x") + b"\n": "44b6040b49b46cb9dd2ce8caa947044d",
}


def _load(path: str | os.PathLike[str]) -> tuple[BdHeader, NDArray[np.uint8], bool]:
    """Header, raw bytes, and whether the file is one of gnubg's published files.

    A one-sided file with a published header must be that file (its MD5); a two-sided one
    that is not is verified in full by :func:`check_twosided` instead (a table written
    with rounded float equities has the same header).
    """
    data = np.fromfile(path, dtype=np.uint8)
    header = BdHeader.parse(data[:HEADER_SIZE].tobytes(), str(path))
    published = PUBLISHED_MD5.get(data[:HEADER_SIZE].tobytes())
    if published is None:
        return header, data, False
    import hashlib

    if hashlib.md5(data.data, usedforsecurity=False).hexdigest() == published:
        return header, data, True
    if header.kind == "OS":
        raise _implausible(
            path,
            f"differs from gnubg's published {header.kind} file (md5 {published}); a file "
            "with this header must be gnubg's own (gnubg's move policy)",
        )
    return header, data, False


def _expect_size(path: object, actual: int, expected: int) -> None:
    if actual != expected:
        raise DatabaseCorruptError(
            f"{path}: expected {expected} bytes for this bearoff database, found {actual} "
            "(truncated or corrupt)"
        )


def read_onesided(path: str | os.PathLike[str]) -> OneSidedBd:
    """Read a one-sided ``.bd`` file (compressed or not, with or without gammons)."""
    header, data, _published = _load(path)
    if header.kind != "OS":
        raise DatabaseError(f"{path}: a two-sided database, not one-sided")
    n = header.n_positions
    body = data[HEADER_SIZE:]
    if header.normal:
        _expect_size(path, len(body), 16 * n)
        result = OneSidedBd(header, None, None, body.view("<f4").reshape(n, 4).copy())
        check_onesided(result, path)
        return result
    nd = 2 if header.gammon else 1
    if not header.compressed:
        _expect_size(path, len(body), 64 * nd * n)
        tab = body.view("<u2").reshape(n, 32 * nd).astype(np.uint16)
        result = OneSidedBd(
            header, tab[:, :32].copy(), tab[:, 32:].copy() if header.gammon else None
        )
        check_onesided(result, path)
        return result
    idx_dtype = _INDEX_DTYPE[header.gammon]
    if len(body) < idx_dtype.itemsize * n:
        raise DatabaseCorruptError(f"{path}: truncated bearoff index")
    index = body[: idx_dtype.itemsize * n].view(idx_dtype)
    words = body[idx_dtype.itemsize * n :]
    if len(words) % 2:
        raise DatabaseCorruptError(f"{path}: odd-sized data area (corrupt)")
    words = words.view("<u2")
    offset = index["offset"].astype(np.int64)
    nz = index["nz"].astype(np.int64)
    ioff = index["ioff"].astype(np.int64)
    nzg = index["nzg"].astype(np.int64) if header.gammon else np.zeros(n, np.int64)
    ioffg = index["ioffg"].astype(np.int64) if header.gammon else np.zeros(n, np.int64)
    if np.any(ioff + nz > 32) or np.any(ioffg + nzg > 32):
        raise DatabaseCorruptError(f"{path}: distribution window beyond 32 bins (corrupt)")
    if np.any(offset + nz + nzg > len(words)):
        raise DatabaseCorruptError(f"{path}: index points beyond the data area (truncated)")
    length = nz + nzg
    if n and (offset[0] != 0 or np.any(offset[1:] != offset[:-1] + length[:-1])):
        raise DatabaseCorruptError(f"{path}: bearoff index offsets not contiguous (corrupt)")
    if int(length.sum()) != len(words):
        raise DatabaseCorruptError(
            f"{path}: the index covers {int(length.sum())} values, the data area holds "
            f"{len(words)} (corrupt)"
        )

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
    result = OneSidedBd(header, dist, gammon)
    check_onesided(result, path)
    return result


def read_twosided(path: str | os.PathLike[str]) -> TwoSidedBd:
    """Read a two-sided ``.bd`` file into ``uint16[n, n, k]`` (k = 4 cubeful, else 1)."""
    header, data, published = _load(path)
    if header.kind != "TS":
        raise DatabaseError(f"{path}: a one-sided database, not two-sided")
    n = header.n_positions
    k = 4 if header.cubeful else 1
    body = data[HEADER_SIZE:]
    _expect_size(path, len(body), 2 * k * n * n)
    result = TwoSidedBd(header, body.view("<u2").reshape(n, n, k).astype(np.uint16))
    check_twosided(result, path, recurrence=not published)
    return result


def _implausible(path: object, why: str) -> DatabaseCorruptError:
    return DatabaseCorruptError(f"{path}: {why} (corrupt or not a gnubg bearoff database)")


def _check_sums(tab: NDArray[np.uint16], path: object, what: str) -> None:
    sums = tab.astype(np.int64).sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 0xFFFF) > SUM_TOLERANCE)
    if len(bad):
        i = int(bad[0])
        raise _implausible(path, f"the {what} of position {i} sums to {sums[i] / 65535:.6f}, not 1")


def check_onesided(bd: OneSidedBd, path: object = "file") -> None:
    """Refuse an implausible one-sided table (see the module docstring).

    Raises
    ------
    mathbg.errors.DatabaseCorruptError
        Naming ``path`` and the first position that fails.
    """
    if bd.normal is not None:
        values = bd.normal
        if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1000):
            raise _implausible(path, "a mean or standard deviation out of range")
        if len(values) and np.any(values[0] != 0):
            raise _implausible(path, "the empty position does not need 0 rolls")
        return
    assert bd.dist is not None
    _check_sums(bd.dist, path, "distribution")
    if len(bd.dist) and (bd.dist[0, 0] < 0xFFFF - SUM_TOLERANCE or np.any(bd.dist[1:, 0])):
        raise _implausible(path, "only the empty position can be borne off in 0 rolls")
    _check_support(bd, path)
    if bd.gammon is not None:
        _check_sums(bd.gammon, path, "gammon distribution")


def _check_support(bd: OneSidedBd, path: object) -> None:
    """Each distribution lies where the rolls can fall: a roll removes 2..24 pips.

    So a position with ``p`` pips takes at least ``ceil(p / 24)`` rolls and at most
    ``ceil(p / 2)`` (every die moves a checker or bears one off, one pip at least).
    """
    from mathbg.bearoff.index import all_positions

    assert bd.dist is not None
    h = bd.header
    pip = all_positions(h.points, h.checkers).astype(np.int64) @ np.arange(1, h.points + 1)
    nonzero = bd.dist != 0
    first = np.argmax(nonzero, axis=1)
    last = bd.dist.shape[1] - 1 - np.argmax(nonzero[:, ::-1], axis=1)
    low, high = -(-pip // 24), -(-pip // 2)
    bad = np.flatnonzero((first < low) | ((last > high) & (high < bd.dist.shape[1] - 1)))
    if len(bad):
        i = int(bad[0])
        raise _implausible(
            path, f"position {i} ({int(pip[i])} pips) has rolls outside {low[i]}..{high[i]}"
        )


def check_twosided(
    bd: TwoSidedBd, path: object = "file", *, rows: int = 256, recurrence: bool = True
) -> None:
    """Refuse an implausible two-sided table (see the module docstring).

    ``rows`` roller positions are checked at a time (bounded extra memory). With
    ``recurrence``, the table is also checked against the equations that define it
    (:func:`check_recurrence`).

    Raises
    ------
    mathbg.errors.DatabaseCorruptError
    """
    v = bd.values
    n = v.shape[0]
    if n == 0:
        return
    if np.any(v[0] != 0xFFFF):
        raise _implausible(path, "a roller with no checkers left has not won")
    if np.any(v[1:, 0] != 0):
        raise _implausible(path, "an opponent with no checkers left has not won")
    if v.shape[2] != 4:
        return
    t = ORDER_TOLERANCE
    for lo in range(0, n, rows):
        block = v[lo : lo + rows].astype(np.int32)
        cubeless, owned, centred, opp = (block[..., k] for k in range(4))
        for hi_v, lo_v, what in (
            (owned, centred, "owning the cube is worth less than a centred cube"),
            (centred, opp, "a centred cube is worth less than the opponent owning it"),
            (owned, cubeless, "owning the cube is worth less than no cube"),
            (cubeless, opp, "the opponent owning the cube is worth more than no cube"),
        ):
            bad = np.argwhere(lo_v - hi_v > t)
            if len(bad):
                i, j = int(bad[0][0]) + lo, int(bad[0][1])
                raise _implausible(path, f"at pair ({i}, {j}) {what}")
    if recurrence:
        check_recurrence(bd, path)


#: Largest two-sided space (positions a side) whose every row :func:`check_recurrence`
#: checks; larger tables have :data:`RECURRENCE_SAMPLE` rows checked.
RECURRENCE_FULL = 1000
RECURRENCE_SAMPLE = 128
#: Slack of the recurrence check, in units of 1/32767.5 (gnubg's and mathbg's residues are
#: below 1.5: each stored value is rounded or truncated once).
RECURRENCE_TOLERANCE = 3.0


def check_recurrence(bd: TwoSidedBd, path: object = "file") -> None:
    """Check each stored value against the equation that defines it (money, per unit cube).

    With ``V[i, j, k]`` the stored equity of the roller at ``i`` against ``j`` and
    ``A`` the value after the roller's own cube decision (``A_owned = max(V_owned,
    min(2 V_opp, 1))``, likewise centred; ``A = V`` otherwise),

    ``V_k(i, j) = sum_r w_r / 36 * max_{s in succ(i, r)} -A_k'(j, s)``

    where ``k'`` is the opponent's view of the cube after no double (owned <-> opponent
    owns, centred and cubeless unchanged). Every row is checked up to
    :data:`RECURRENCE_FULL` positions, otherwise a spread sample of rows.

    Raises
    ------
    mathbg.errors.DatabaseCorruptError
        Naming the first pair whose value breaks its equation.
    """
    from mathbg.bearoff.plays import ROLL_WEIGHTS, successors

    h = bd.header
    v = bd.values.astype(np.float64) / 32767.5 - 1.0
    n, _, k = v.shape
    if n < 2:
        return
    table = successors(h.points, h.checkers)
    if k == 4:
        dt = np.minimum(2.0 * v[..., 3], 1.0)
        # the opponent's value (his view) the roller maximises against, per roller state
        src = np.stack(
            [v[..., 0], v[..., 3], np.maximum(v[..., 2], dt), np.maximum(v[..., 1], dt)],
            axis=-1,
        )
    else:
        src = v
    tol = RECURRENCE_TOLERANCE / 32767.5
    row_list: list[int] = (
        list(range(1, n))
        if n <= RECURRENCE_FULL
        else sorted({int(x) for x in np.linspace(1, n - 1, RECURRENCE_SAMPLE)})
    )
    for i in row_list:
        acc = np.zeros((n, k))
        for r in range(21):
            s = table.succ[table.ptr[i * 21 + r] : table.ptr[i * 21 + r + 1]]
            acc += ROLL_WEIGHTS[r] * (-src[:, s, :]).max(axis=1)
        acc /= 36.0
        bad = np.argwhere(np.abs(acc[1:] - v[i, 1:]) > tol)
        if len(bad):
            j, kk = int(bad[0][0]) + 1, int(bad[0][1])
            name = ("cubeless", "owned", "centred", "opponent-owns")[kk]
            raise _implausible(
                path, f"the {name} value of pair ({int(i)}, {j}) breaks the bearoff equation"
            )


#: Slack of the query-time one-sided check, in units of 1/65535 per bin (each stored
#: value is rounded once; the mix of 21 rounded rows adds at most about 11 units).
POSITION_TOLERANCE = 24.0


def check_position(bd: OneSidedBd, i: int, path: object = "file") -> None:
    """Check position ``i``'s stored distribution against its successors' (at query time).

    By the one-sided recurrence ``d_i[n] = sum_r w_r / 36 d_{s*(i, r)}[n - 1]``, with
    ``s*(i, r)`` the play gnubg's policy chooses: the least expected rolls, computed from
    the stored 16-bit distributions as gnubg does. Plays tied at the minimum give the
    range the bin may take. A damaged row (e.g. probability moved between two bins, which
    keeps its sum and support) breaks the equation: 21 rolls, cheap per query. Only the
    roll distribution is checked (not the gammon one); files of means and deviations
    only (gnubg's "normal" format) have nothing to check.

    Raises
    ------
    mathbg.errors.DatabaseCorruptError
        Naming ``path`` and the position.
    """
    if bd.dist is None or i <= 0:
        return
    from mathbg.bearoff.plays import ROLL_WEIGHTS, successors

    h = bd.header
    table = successors(h.points, h.checkers)
    dist = bd.dist.astype(np.float64)
    bins = np.arange(dist.shape[1], dtype=np.float64)
    low = np.zeros(dist.shape[1])
    high = np.zeros(dist.shape[1])
    for r in range(21):
        s = table.succ[table.ptr[i * 21 + r] : table.ptr[i * 21 + r + 1]]
        rows = dist[s]
        mean = rows @ bins
        best = rows[mean <= mean.min() + 1e-9 * max(1.0, mean.min())]
        shifted = np.zeros_like(best)
        shifted[:, 1:] = best[:, :-1]  # one more roll
        low += ROLL_WEIGHTS[r] * shifted.min(axis=0)
        high += ROLL_WEIGHTS[r] * shifted.max(axis=0)
    low /= 36.0
    high /= 36.0
    row = dist[i]
    bad = np.flatnonzero((row < low - POSITION_TOLERANCE) | (row > high + POSITION_TOLERANCE))
    if len(bad):
        n = int(bad[0])
        raise _implausible(
            path,
            f"position {i}: P({n} rolls) = {row[n] / 65535:.6f} breaks the one-sided bearoff "
            f"equation ({low[n] / 65535:.6f} from its successors)",
        )


def check_pair(bd: TwoSidedBd, i: int, j: int, path: object = "file") -> None:
    """Check the stored values of pair ``(i, j)`` by their own equation (at query time):
    the recurrence of :func:`check_recurrence` for one pair, over the 21 rolls of the
    roller. Cheap; it covers every pair a query reads, where the check at load time
    samples :data:`RECURRENCE_SAMPLE` rows of a large table.

    Raises
    ------
    mathbg.errors.DatabaseCorruptError
        Naming ``path`` and the pair.
    """
    if i <= 0 or j <= 0:
        return  # a side with no checkers: checked at load
    from mathbg.bearoff.plays import ROLL_WEIGHTS, successors

    h = bd.header
    k = bd.values.shape[2]
    table = successors(h.points, h.checkers)
    acc = np.zeros(k)
    for r in range(21):
        s = table.succ[table.ptr[i * 21 + r] : table.ptr[i * 21 + r + 1]]
        v = bd.values[j, s].astype(np.float64) / 32767.5 - 1.0  # the opponent's view
        if k == 4:
            dt = np.minimum(2.0 * v[:, 3], 1.0)
            v = np.stack([v[:, 0], v[:, 3], np.maximum(v[:, 2], dt), np.maximum(v[:, 1], dt)],
                         axis=-1)  # fmt: skip
        acc += ROLL_WEIGHTS[r] * (-v).max(axis=0)
    acc /= 36.0
    stored = bd.values[i, j].astype(np.float64) / 32767.5 - 1.0
    bad = np.flatnonzero(np.abs(acc - stored) > RECURRENCE_TOLERANCE / 32767.5)
    if len(bad):
        name = ("cubeless", "owned", "centred", "opponent-owns")[int(bad[0])]
        raise _implausible(path, f"the {name} value of pair ({i}, {j}) breaks the bearoff equation")


def read(path: str | os.PathLike[str]) -> OneSidedBd | TwoSidedBd:
    """Read any supported ``.bd`` file."""
    header = read_header(path)
    return read_onesided(path) if header.kind == "OS" else read_twosided(path)


def is_gnubg_file(path: Path) -> bool:
    """Does ``path`` hold a gnubg bearoff file (its header starts with ``gnubg-``)?"""
    if not path.is_file():
        return False
    with open(path, "rb") as fh:
        return fh.read(6) == b"gnubg-"


def _is_bd(kind: str) -> Callable[[Path], bool]:
    def check(path: Path) -> bool:
        if not path.is_file():
            return False
        if path.stat().st_size == 0:
            return True
        with open(path, "rb") as fh:
            return fh.read(9) == f"gnubg-{kind}-".encode()

    return check


def _what(kind: str) -> str:
    return "gnubg " + ("one-sided" if kind == "OS" else "two-sided") + " bearoff file"


def check_target(path: str | os.PathLike[str], kind: str, *, force: bool = False) -> None:
    """Refuse (before any work) to write a ``kind`` ("OS"/"TS") file over a foreign one."""
    target = Path(path)
    if target.is_dir():
        raise TargetExistsError(f"{target}: is a directory; a {_what(kind)} is a single file")
    _files.check_target(target, is_same_kind=_is_bd(kind), what=_what(kind), force=force)


def _write(
    path: str | os.PathLike[str], chunks: list[bytes | NDArray[Any]], kind: str, force: bool
) -> None:
    """Write ``chunks`` to ``path`` (:func:`mathbg._files.atomic_file`)."""
    needed = sum(len(c) if isinstance(c, bytes) else np.asarray(c).nbytes for c in chunks)
    with _files.atomic_file(
        path, what=_what(kind), is_same_kind=_is_bd(kind), force=force, needed_bytes=needed
    ) as tmp, open(tmp, "wb") as fh:  # fmt: skip
        for chunk in chunks:
            fh.write(chunk if isinstance(chunk, bytes) else np.ascontiguousarray(chunk).data)


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
    force: bool = False,
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
        _write(path, [header.to_bytes(), np.hstack(tabs).astype("<u2")], "OS", force)
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
    _write(path, [header.to_bytes(), index, data.astype("<u2")], "OS", force)


def write_twosided(
    path: str | os.PathLike[str],
    values: NDArray[np.uint16],
    *,
    points: int,
    checkers: int,
    force: bool = False,
) -> None:
    """Write a two-sided ``.bd`` file (``values`` uint16[n, n, 4] or [n, n, 1]) atomically."""
    n = _n_positions(points, checkers)
    values = np.asarray(values, dtype=np.uint16)
    if values.ndim != 3 or values.shape[:2] != (n, n) or values.shape[2] not in (1, 4):
        raise DatabaseError(
            f"two-sided {points}x{checkers} values must have shape ({n}, {n}, 4 or 1)"
        )
    header = BdHeader("TS", points, checkers, cubeful=values.shape[2] == 4)
    _write(path, [header.to_bytes(), values.astype("<u2")], "TS", force)


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
    u: NDArray[np.uint16] = np.clip(np.rint((e + 1.0) * 32767.5), 0, 0xFFFF).astype(np.uint16)
    return u


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
