"""One-sided bearoff databases: :class:`OneSided` and the statistics of a distribution.

For a side alone on the board, ``dist[n]`` is the probability of needing exactly ``n``
rolls to bear off all its checkers, and the "gammon" distribution ``gdist[n]`` the
probability that the first checker comes off on roll ``n`` (meaningful only when all
15 checkers are on the board; otherwise it is a unit mass at 0). The distributions
depend on the move policy (``"gnubg"`` or ``"min-rolls"``), see
:mod:`mathbg.bearoff.generate.onesided`, which generates them; the database directory's
format is :mod:`mathbg.bearoff.native`, gnubg's ``.bd`` files open with the same class
(``OneSided.open("gnubg_os0.bd")``, :mod:`mathbg.bearoff.gnubg_bd`).

Statistics: mean ``E[N] = sum n d[n]``, variance ``sum (n - E[N])^2 d[n]``; effective
pip count ``EPC = E[N] * 49/6`` (49/6 = 8.1667 is the average pips of a roll,
Trice/Walter Trice's definition), wastage ``EPC - pips``.

Positions are checker counts on points 1..P (the side's own numbering, ace point
first), or a :class:`mathbg.rules.position.Position` whose checkers are all within the
database's points (queries use the side on roll).

References
----------
gnubg ``bearoff.c`` (``BearoffEvalOneSided``); Walter Trice, "Effective pip count";
Stig Eide's minimal wastage table (r.g.b. 1996).
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg import _files, _resources
from mathbg.bearoff import gnubg_bd, native
from mathbg.bearoff import index as _index
from mathbg.bearoff.generate import onesided as _gen
from mathbg.bearoff.index import is_position, position_side
from mathbg.errors import DatabaseError, InvalidParameterError

__all__ = [
    "AVERAGE_ROLL_PIPS",
    "OneSided",
    "epc",
    "mean_rolls",
    "std_rolls",
    "variance_rolls",
    "wastage",
    "win_probability",
]

PathLike = str | os.PathLike[str]

#: Average pips of one roll, doubles counted four times: (2*sum_{a<b}(a+b) + sum_d 4d)/36.
AVERAGE_ROLL_PIPS = 49.0 / 6.0


def mean_rolls(dist: NDArray[np.floating]) -> Any:
    """Expected number of rolls ``sum_n n * d[n]`` over the last axis."""
    d = np.asarray(dist, dtype=np.float64)
    value = d @ np.arange(d.shape[-1], dtype=np.float64)
    return float(value) if np.ndim(value) == 0 else value


def variance_rolls(dist: NDArray[np.floating]) -> Any:
    """Variance ``sum_n (n - mean)^2 d[n]`` over the last axis (two-pass, no cancellation)."""
    d = np.asarray(dist, dtype=np.float64)
    n = np.arange(d.shape[-1], dtype=np.float64)
    mu = np.asarray(d @ n)[..., None]
    value = np.sum(d * (n - mu) ** 2, axis=-1)
    return float(value) if np.ndim(value) == 0 else value


def std_rolls(dist: NDArray[np.floating]) -> Any:
    """Standard deviation of the number of rolls."""
    return np.sqrt(variance_rolls(dist)) if np.ndim(dist) > 1 else math.sqrt(variance_rolls(dist))


def epc(dist: NDArray[np.floating]) -> Any:
    """Effective pip count: expected rolls times 49/6, the average pips of a roll."""
    return mean_rolls(dist) * AVERAGE_ROLL_PIPS


def wastage(dist: NDArray[np.floating], pip_count: Any) -> Any:
    """Wastage ``EPC - pips``: pips the position is worse than its raw count."""
    return epc(dist) - pip_count


def win_probability(dist_roller: NDArray[np.floating], dist_opponent: NDArray[np.floating]) -> Any:
    """Probability that the side on roll finishes first, from two independent distributions.

    The roller wins ties (it rolls first): ``P = sum_n d_r[n] * P(N_o >= n)``. This is the
    cubeless winning chance when both sides follow their one-sided policies, which equals
    the exact (two-sided) value whenever those policies are optimal, e.g. one checker each.
    Broadcasts over leading axes.
    """
    a = np.asarray(dist_roller, dtype=np.float64)
    b = np.asarray(dist_opponent, dtype=np.float64)
    width = max(a.shape[-1], b.shape[-1])
    a = np.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, width - a.shape[-1])])
    b = np.pad(b, [(0, 0)] * (b.ndim - 1) + [(0, width - b.shape[-1])])
    survival = np.cumsum(b[..., ::-1], axis=-1)[..., ::-1]  # P(N_o >= n)
    value = np.sum(a * survival, axis=-1)
    return float(value) if np.ndim(value) == 0 else value


#: Peak memory per position of a one-sided build in bytes (measured: 10x15 one-sided
#: 4.3 GiB for 3.27 M positions), with a margin.
_BYTES_PER_ONESIDED_POSITION = 1500


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

    #: The gnubg file a database was read from (None for a native database).
    _gnubg_file: Any = None
    _checked: set[int]

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
        self._checked = set()
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
        if policy not in _gen.POLICIES:
            raise InvalidParameterError(f"policy must be one of {_gen.POLICIES}, got {policy!r}")
        default = path is None
        target = Path(path) if path is not None else cls.default_path(points, checkers, policy)
        wanted = (points, checkers, policy)
        what = "one-sided bearoff database"
        reused = None if rebuild else native.reuse(cls, target, wanted, default, warn=False)
        if reused is not None:
            return reused
        n = _index.n_positions(points, checkers)
        _check_memory(n * _BYTES_PER_ONESIDED_POSITION, f"one-sided {points}x{checkers}")
        same_kind = native.is_native("one-sided")
        _files.check_target(target, is_same_kind=same_kind, what=what, force=force or default)
        with _files.build_lock(target):
            if not rebuild and (db := native.reuse(cls, target, wanted, default)) is not None:
                return db  # built meanwhile by a concurrent build
            # before the bar, so its ETA measures the build (gnubg's policy: nothing to compile)
            _gen.compile_kernels(points, checkers, policy=policy)
            bar = _gen.progress_bar(n, f"one-sided {points}x{checkers}", progress)
            start = time.perf_counter()
            try:
                with_gnubg = policy == "gnubg"
                arrays = _gen.build_arrays(
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
            with _files.atomic_directory(
                target, what=what, is_same_kind=same_kind, force=force or default,
                needed_bytes=needed, locked=True,
            ) as tmp:  # fmt: skip
                for name in names:
                    np.save(tmp / f"{name}.npy", getattr(arrays, name))
                header = native.write_header(
                    tmp,
                    {
                        "kind": "one-sided",
                        "points": points,
                        "checkers": checkers,
                        "policy": policy,
                        "n_positions": _index.n_positions(points, checkers),
                        "gammon_start": arrays.gammon_start,
                        "build_seconds": round(seconds, 3),
                        "generator": native.generator(),
                    },
                    names,
                )
            native.remember_written(target, header)
            return cls.open(target)

    @classmethod
    def open(cls, path: PathLike, *, verify: bool = True) -> OneSided:
        """Open a native database directory or a gnubg one-sided ``.bd`` file.

        Native arrays are memory-mapped. The header (fields and its own checksum) and the
        file sizes are always checked; ``verify`` (default) also checks the full
        checksum, over the header and every array, once per state of the files (a check
        that passed is recorded beside them: :mod:`mathbg.bearoff.native`). A gnubg
        file is read into memory, checked for plausibility (:mod:`mathbg.bearoff.gnubg_bd`)
        and converted from 16-bit fixed point (``u / 65535``).

        Raises
        ------
        mathbg.errors.DatabaseCorruptError
            The database fails a check: it is never served.
        """
        p = Path(path)
        if gnubg_bd.is_gnubg_file(p):
            return cls._from_gnubg(p)
        header, arrays = native.open_directory(p, "one-sided", verify)
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
        db = cls(
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
        db._gnubg_file = bd  # a queried position is checked by its own recurrence
        return db

    def to_gnubg(self, path: PathLike, *, compressed: bool = True, force: bool = False) -> None:
        """Write a gnubg ``.bd`` file (32 bins, 16-bit fixed point, gammon distributions).

        With gnubg's policy the stored gnubg table is written, so the file equals what
        ``makebearoff -o P`` produces, byte for byte; otherwise the float distributions
        are rounded (:func:`mathbg.bearoff.gnubg_bd.u16_from_distribution`).
        """
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
    def gnubg_table(self) -> NDArray[np.uint16] | None:
        """gnubg's 16-bit table (rows of 64: the 32 bins of the rolls distribution, then the
        32 of the gammon distribution, each ``u / 65535``), as ``makebearoff`` writes it;
        None for a database built with another policy."""
        return self._gnubg

    @property
    def n_positions(self) -> int:
        """Number of positions C(P + C, P)."""
        return len(self._dist)

    @property
    def max_rolls(self) -> int:
        """Length of the stored distributions minus one (the longest possible bearoff)."""
        return int(self._dist.shape[1]) - 1

    def index(self, counts: ArrayLike) -> Any:
        """Bearoff index of a position (int) or of each row of a 2-D array (int64 array)."""
        if is_position(counts):
            counts = position_side(counts, "player")
        arr = _index.validate_counts(counts, self.points, self.checkers)
        idx = _index.rank(arr, self.points)
        if self._gnubg_file is not None and np.ndim(idx) == 0 and idx not in self._checked:
            # a gnubg file: the sums and support were checked at load; the queried row is
            # checked against its successors' (21 rolls), so a damaged row is not served
            gnubg_bd.check_position(self._gnubg_file, int(idx), self.path)
            self._checked.add(int(idx))
        return idx

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
        return mean_rolls(self.distribution(counts))

    def variance_rolls(self, counts: ArrayLike) -> Any:
        """Variance of the number of rolls."""
        return variance_rolls(self.distribution(counts))

    def std_rolls(self, counts: ArrayLike) -> Any:
        """Standard deviation of the number of rolls."""
        return std_rolls(self.distribution(counts))

    def epc(self, counts: ArrayLike) -> Any:
        """Effective pip count: mean rolls x 49/6."""
        return epc(self.distribution(counts))

    def wastage(self, counts: ArrayLike) -> Any:
        """EPC minus the pip count."""
        arr = counts
        if is_position(counts):
            arr = position_side(counts, "player")
        arr = _index.validate_counts(arr, self.points, self.checkers)
        return wastage(self.distribution(arr), _index.pips(arr))

    def mean_gammon_rolls(self, counts: ArrayLike) -> Any:
        """Expected rolls until the first checker is off (0 when one is already off)."""
        return mean_rolls(self.gammon_distribution(counts))

    def win_probability(self, roller: ArrayLike, opponent: ArrayLike | None = None) -> Any:
        """The roller's chance to finish first when both sides follow this database's policy.

        ``sum_n P_roller(n) P_opponent(>= n)`` (the roller wins ties). Exact only where
        the policy is optimal (see :mod:`mathbg.bearoff.twosided` for exact values).
        A single :class:`~mathbg.rules.position.Position` gives both sides.
        """
        if opponent is None and is_position(roller):
            roller, opponent = position_side(roller, "player"), position_side(roller, "opponent")
        dist_r = self.distribution(roller)
        # a missing opponent fails in validate_counts, naming the problem
        dist_o = self.distribution(opponent)  # type: ignore[arg-type]
        return win_probability(dist_r, dist_o)

    def __repr__(self) -> str:
        return (
            f"OneSided(points={self.points}, checkers={self.checkers}, policy={self.policy!r}, "
            f"path={str(self.path) if self.path else None!r})"
        )
