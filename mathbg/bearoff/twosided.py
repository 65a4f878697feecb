"""Two-sided bearoff databases: :class:`TwoSided`, its :class:`Equities` and cube decisions.

For every pair (roller's position i, opponent's position j) of a P x C space the table
holds four values, as gnubg's ``makebearoff -t PxC`` does (``makebearoff.c:BearOff2``):

0. cubeless equity ``2p - 1`` (gammons are impossible to count here: with at most C
   checkers a side, p is the probability that the roller finishes first);
1. ``player``: cubeful money equity per unit cube when the roller owns the cube;
2. ``centre``: ... when the cube is centred;
3. ``opponent``: ... when the opponent owns the cube

(the keys of :data:`CUBE_STATES`, the names of the database header's values and of the
:class:`Equities` fields: :class:`~mathbg.rules.cube.CubeOwner`'s vocabulary).

The cubeful values are *before the roller's own cube decision* ("no double" values, as
gnubg and Sconyers store them): both sides use the cube optimally at every later turn,
but the root decision is left to :func:`cube_decision`. The recursion and its generators
are in :mod:`mathbg.bearoff.generate` (:mod:`~mathbg.bearoff.generate.twosided`,
:mod:`~mathbg.bearoff.generate.blockbuild`); the database directory's format is
:mod:`mathbg.bearoff.native`, gnubg's ``.bd`` files open with the same class
(:mod:`mathbg.bearoff.gnubg_bd`).

Positions are checker counts on points 1..P (the side's own numbering, ace point
first), or one :class:`mathbg.rules.position.Position` whose checkers are all within the
database's points.

References
----------
gnubg ``makebearoff.c`` (``BearOff2``, ``CubeEquity``), ``eval.c``
(``EvaluatePerfectCubeful``); Hugh Sconyers' bearoff databases (four cube states).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from mathbg import _files, _resources
from mathbg._output import FrameMixin
from mathbg.bearoff import gnubg_bd, native
from mathbg.bearoff import index as _index
from mathbg.bearoff.index import is_position, position_side
from mathbg.cube.decisions import CubeAction, CubeDecision, classify
from mathbg.errors import (
    DatabaseError,
    InsufficientMemoryError,
    InsufficientSpaceError,
    InvalidParameterError,
)
from mathbg.rules.cube import CubeOwner

if TYPE_CHECKING:  # pragma: no cover - the builder's modules are imported to build
    import logging

    from mathbg.bearoff.generate.phases import BuildReport

__all__ = [
    "CUBE_STATES",
    "OWNER_COLUMN",
    "CubeDecision",
    "Equities",
    "TwoSided",
    "cube_decision",
]

PathLike = str | os.PathLike[str]


def _log() -> logging.Logger:
    """This module's logger (:mod:`logging` imported when a build reports)."""
    import logging

    return logging.getLogger(__name__)


#: Column of each value in a two-sided table: the cubeless equity, then the cubeful ones by
#: who owns the cube (:class:`~mathbg.rules.cube.CubeOwner`'s names; ``player`` = the
#: roller). The database header names its values with these keys.
CUBE_STATES = {"cubeless": 0, "player": 1, "centre": 2, "opponent": 3}
#: Column of the stored 4-vector holding the no-double equity for each cube owner.
OWNER_COLUMN: dict[CubeOwner, int] = {
    owner: CUBE_STATES[owner.value]
    for owner in (CubeOwner.PLAYER, CubeOwner.CENTRE, CubeOwner.OPPONENT)
}


@dataclass(frozen=True)
class Equities(FrameMixin):
    """The four stored values of a two-sided pair (money, per unit cube, roller's view).

    ``player``, ``centre`` and ``opponent`` (who owns the cube, ``player`` = the roller) are
    cubeful equities *before* the roller's own cube decision (see
    :meth:`TwoSided.cube_decision`).
    """

    cubeless: float  #: 2p - 1, p the probability that the roller finishes first
    player: float  #: the roller owns the cube
    centre: float  #: centred cube
    opponent: float  #: the opponent owns the cube

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

    #: The gnubg file a database was read from (None for a native database).
    _gnubg_file: Any = None
    #: Wall and CPU seconds of the phases (blocks, assembly, checksum) of the build that
    #: wrote this database in this process (None when it was opened or reused).
    build_report: BuildReport | None = None

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
        (:mod:`mathbg.bearoff.generate.blockbuild`): only the live window of layers is kept in
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
            :meth:`default_dtype`. Drift from the float64 build, measured over every
            pair: u16 up to 1.8e-4 in equity on 6x8 cubeful (mean 4.8e-5), 1.4e-4 on 6x8
            and 1.7e-4 on 6x10 cubeless (means 5.9e-5, 7.3e-5): gnubg's rounding
            accumulates along the recursion, so it grows slowly with the checkers (a
            15-checker pair: 1.1e-4); f32 up to 8.1e-8 (float32's rounding of the stored
            value, not growing with the size).
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
        _index.check_size(points, checkers)
        dtype = cls.default_dtype(points, checkers, cubeful) if dtype is None else dtype
        budget = _resources.parse_memory(memory)
        default = path is None
        target = (
            Path(path) if path is not None
            else cls.default_path(points, checkers, dtype=dtype, cubeful=cubeful)
        )  # fmt: skip
        wanted = (points, checkers, dtype, bool(cubeful))
        what = "two-sided bearoff database"
        reused = None if rebuild else native.reuse(cls, target, wanted, default, warn=False)
        if reused is not None:
            return reused
        from mathbg.bearoff.generate import blockbuild as _bb  # the builder: only to build
        from mathbg.bearoff.generate.phases import PhaseClock

        spec = _bb.BuildSpec(int(points), int(checkers), bool(cubeful), dtype)
        if budget is None:
            available = _resources.available_memory()
            budget = None if available is None else int(0.8 * available)
        n = _index.n_positions(points, checkers)
        table_bytes = n * n * spec.nv * spec.numpy_dtype.itemsize
        same_kind = native.is_native("two-sided")
        _files.check_target(target, is_same_kind=same_kind, what=what, force=force or default)
        with _files.build_lock(target):
            if not rebuild and (db := native.reuse(cls, target, wanted, default)) is not None:
                return db  # built meanwhile by a concurrent build
            # the block store (resumable after a kill) lives beside the target
            work = target.parent / f".{target.name}.build"
            start = time.perf_counter()
            clock = PhaseClock()
            block_store = _claim_store(spec, store, work)
            try:
                with clock.phase("blocks"):
                    if client is not None:
                        from mathbg.bearoff.generate import blockdask

                        blockdask.build_blocks(spec, block_store, client, progress=progress)
                        arena = plan = None
                    else:
                        arena, plan, _ = _bb.build_blocks(spec, block_store, memory=budget,
                                                          progress=progress,
                                                          persist=None)  # fmt: skip
            except InsufficientSpaceError:
                # a full disk: leave no debris (a kill or Ctrl+C keeps the store to resume)
                if store is None:
                    shutil.rmtree(work, ignore_errors=True)
                raise
            except InsufficientMemoryError:
                # refused before any block was computed: no empty store left behind
                if store is None and not block_store.listing():
                    shutil.rmtree(work, ignore_errors=True)
                raise
            try:
                with _files.atomic_directory(
                    target, what=what, is_same_kind=same_kind, force=force or default,
                    needed_bytes=table_bytes + 4096, locked=True,
                ) as tmp:  # fmt: skip
                    with clock.phase("assembly"):
                        _bb.assemble(spec, block_store, tmp / "equity.npy", arena=arena,
                                     plan=plan, progress=progress)  # fmt: skip
                    del arena
                    fields = {
                        "kind": "two-sided",
                        "points": points,
                        "checkers": checkers,
                        "n_positions": n,
                        "values": list(CUBE_STATES)[: spec.nv],
                        "dtype": dtype,
                        "encoding": "gnubg fixed point: equity = u / 32767.5 - 1"
                        if dtype == "u16"
                        else "equity",
                        "build_seconds": round(time.perf_counter() - start, 3),
                        "backend": "dask" if client is not None else "local",
                        "generator": native.generator(),
                    }
                    with clock.phase("checksum"):
                        header = native.write_header(tmp, fields, ["equity"])
            except InsufficientSpaceError:
                # no room for the table: a store holding no blocks (a small build keeps
                # them in memory) has nothing to resume, so it goes
                if store is None and not block_store.listing():
                    shutil.rmtree(work, ignore_errors=True)
                raise
            native.remember_written(target, header)
            block_store.remove_all()
            shutil.rmtree(work, ignore_errors=True)
            db = cls.open(target)
            db.build_report = clock.report()
            _log().info("two-sided %dx%d %s build %s", points, checkers, dtype,
                      db.build_report.line())  # fmt: skip
            return db

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
                header = native.read_header(d, "two-sided")
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
        if gnubg_bd.is_gnubg_file(p):
            bd = gnubg_bd.read_twosided(p)
            h = bd.header
            db = cls(
                gnubg_bd.equity_from_u16(bd.values),
                points=h.points,
                checkers=h.checkers,
                path=p,
                header={"kind": "two-sided", "source": "gnubg"},
            )
            db._gnubg_file = bd  # a queried pair is checked by its own equation
            return db
        header, arrays = native.open_directory(p, "two-sided", verify)
        return cls(
            arrays["equity"],
            points=header["points"],
            checkers=header["checkers"],
            path=p,
            header=native.current_names(header),
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
        return int(self._equity.shape[0])

    def _pair(
        self, roller: ArrayLike, opponent: ArrayLike | None, *, in_play: bool = False
    ) -> tuple[Any, Any]:
        if opponent is None:
            if not is_position(roller):
                raise InvalidParameterError(
                    "give the roller's and the opponent's checker counts, or one Position"
                )
            roller, opponent = position_side(roller, "player"), position_side(roller, "opponent")
        r = _index.validate_counts(roller, self.points, self.checkers, what="roller")
        o = _index.validate_counts(opponent, self.points, self.checkers, what="opponent")
        if in_play:  # a single question about a game: both sides still have checkers
            _index.check_in_play(r, "roller")
            _index.check_in_play(o, "opponent")
        return _index.rank(r, self.points), _index.rank(o, self.points)

    @property
    def stored(self) -> NDArray[Any]:
        """The table as stored, ``(n, n, 4)`` (or ``(n, n, 1)`` cubeless) indexed by the
        roller's and the opponent's bearoff index: equities, or gnubg's 16-bit fixed point
        ``u`` (equity ``u / 32767.5 - 1``) when :attr:`dtype` is ``"u16"``."""
        return self._equity

    @property
    def cubeful(self) -> bool:
        """Whether the cubeful equities are stored (else the cubeless one only)."""
        return bool(self._equity.shape[2] == 4)

    def values(
        self, roller: ArrayLike, opponent: ArrayLike | None = None, *, in_play: bool = False
    ) -> NDArray[np.float64]:
        """The stored 4-vector(s) [cubeless, player, centre, opponent] as equities.

        ``in_play`` refuses a pair where a side has no checker left (the game is over).
        """
        i, j = self._pair(roller, opponent, in_play=in_play)
        if self._gnubg_file is not None and np.ndim(i) == 0 and np.ndim(j) == 0:
            # a gnubg file: the load checks sample the rows of a large table; the queried
            # pair is checked by its own recurrence (21 rolls), so a damaged one is not served
            gnubg_bd.check_pair(self._gnubg_file, int(i), int(j), self.path)
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
        beavers: bool = False,
    ) -> CubeDecision:
        """The roller's cube decision: no double, double/take, double/pass and the action.

        ND is the stored value for ``owner`` (``"centre"``, ``"player"`` = the roller, or
        ``"opponent"``), DT twice the stored ``opponent`` value, DP = +1; a take the taker
        would beaver is named so with ``beavers`` (see
        :func:`mathbg.bearoff.twosided.cube_decision`). Returns a
        :class:`mathbg.cube.decisions.CubeDecision`.
        """
        v = self.values(roller, opponent, in_play=True)
        if v.ndim != 1:
            raise InvalidParameterError("cube_decision() takes one pair")
        self._require_cubeful()
        return cube_decision(v, owner, beavers=beavers)

    def __repr__(self) -> str:
        return (
            f"TwoSided(points={self.points}, checkers={self.checkers}, dtype={self.dtype!r}, "
            f"cubeful={self.cubeful}, path={str(self.path) if self.path else None!r})"
        )


def cube_decision(
    values: NDArray[np.floating],
    owner: CubeOwner | str = CubeOwner.CENTRE,
    *,
    beavers: bool = False,
) -> CubeDecision:
    """Apply the roller's root cube decision to a stored 4-vector of equities.

    Parameters
    ----------
    values : array_like, shape (4,)
        The no-double equities of a pair in the columns of :data:`CUBE_STATES`:
        [cubeless, player, centre, opponent].
    owner : CubeOwner or str
        Who owns the cube before the roller's turn (``"centre"``, ``"player"`` = the
        roller, ``"opponent"``).
    beavers : bool, optional
        Beavers allowed: a take that leaves the taker ahead (DT < 0) is named a beaver
        (the values do not change: the database's equities are those of a 2-cube).

    Returns
    -------
    mathbg.cube.decisions.CubeDecision
        Money equities per unit cube (``unit="equity"``): ND = the stored value for the
        owner, DT = 2 x the stored ``opponent`` value (after the double the opponent
        owns a 2-cube), DP = +1; the action is named by
        :func:`mathbg.cube.decisions.classify` without gammons (doubling wins ties, and
        DT = DP is named a pass), or "cube not available" when the opponent owns the cube.

    Notes
    -----
    The roller doubles when ``min(DT, DP) >= ND`` (gnubg's ``CubeEquity`` convention) and
    the optimal value is ``max(ND, min(DT, DP))``.
    """
    who = CubeOwner.parse(owner)
    v = np.asarray(values, dtype=np.float64)
    nd = float(v[OWNER_COLUMN[who]])
    dt = 2.0 * float(v[OWNER_COLUMN[CubeOwner.OPPONENT]])
    dp = 1.0
    if who == CubeOwner.OPPONENT:
        return CubeDecision(CubeAction.NOT_AVAILABLE, nd, None, None, nd, "equity")
    action = classify(nd, dt, dp, can_gammon=False, beavers=beavers, money=True)
    optimal = min(dt, dp) if action.doubles else nd
    return CubeDecision(action, nd, dt, dp, optimal, "equity")


def _claim_store(spec: Any, store: Any, work: Path) -> Any:
    """The block store of a build, claimed for ``spec``.

    mathbg's own store (beside the target, ``store`` None) whose manifest is damaged or
    describes another build is discarded with a warning and started afresh; a store the
    user gave (``store``) is refused with the way out in the message.
    """
    import warnings

    from mathbg.bearoff.generate import blockbuild as _bb
    from mathbg.bearoff.generate.pipblocks import layout
    from mathbg.errors import MathbgWarning

    location = store if store is not None else work / "store"
    block_store = _bb.BlockStore(location)
    identity = spec.identity(layout(spec.points, spec.checkers))
    try:
        block_store.claim(identity)
    except DatabaseError as exc:
        if store is not None:
            raise DatabaseError(
                f"{exc}; it is not this build's store: give another --store, or delete "
                f"{location} to start this build afresh"
            ) from None
        warnings.warn(
            f"{exc}; discarding mathbg's block store of this build and starting afresh",
            MathbgWarning,
            stacklevel=3,
        )
        shutil.rmtree(work / "store", ignore_errors=True)
        block_store = _bb.BlockStore(location)
        block_store.claim(identity)
    return block_store
