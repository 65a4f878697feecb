"""What mathbg keeps in its cache directory, and clearing it.

mathbg generates data on demand and keeps it for the next run: bearoff databases, exact
bearoff and Hypergammon solutions, gnubg's analyses of matches, the native engine's
tables and numba's compiled kernels. They live in the cache directory
(``$MATHBG_DATA``, else the platform's user cache directory: ``~/.cache/mathbg`` on
Linux; numba's kernels always in the latter, ``~/.cache/mathbg/numba``, unless
``NUMBA_CACHE_DIR`` sends them elsewhere), one folder per *area*:

========== ================= ==========================================================
area       folder            what
========== ================= ==========================================================
databases  ``bearoff``       bearoff databases (``mathbg bearoff build``, first use)
solutions  ``bearoff/match`` exact bearoff solutions at a score (``bearoff match``,
                             ``audit``)
hyper      ``hyper``         Hypergammon solutions, checkpoints, MET records
analyses   ``gnubg``         the gnubg program's analyses of matches (``audit``,
                             ``corpus --audit``)
native     ``native``        the native engine's two-sided table
kernels    ``numba``         numba's compiled kernels
========== ================= ==========================================================

Nothing in an area is needed: whatever is removed is made again when it is next used
(at the cost of the time it took). :func:`cache_usage` says what each area holds;
:func:`clear_cache` removes an area's entries, and only those mathbg wrote: a file whose
name is one mathbg gives in that folder, a directory whose ``header.json`` names a mathbg
format (numba's: a folder of kernel files only). Anything else there (a user's file, a
symbolic link, another user's entry) is left alone, and so is an entry a running build
holds its lock on. Its stale temporaries (those of writers that are gone) go too.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from mathbg.errors import InvalidParameterError

__all__ = ["AREAS", "Area", "AreaUsage", "Removed", "cache_usage", "clear_cache"]


@dataclass(frozen=True)
class Area:
    """One kind of data mathbg keeps.

    Attributes
    ----------
    name : str
        The area's name (``mathbg cache clear NAME``).
    folder : str
        Its folder in the cache directory.
    what : str
        What it holds, one line.
    names : str
        A regular expression every entry's name fully matches.
    kind : str
        ``"file"``, ``"directory"`` (a database: ``header.json`` naming a mathbg
        format), ``"either"`` or ``"kernels"`` (a folder of numba's kernel files).
    """

    name: str
    folder: str
    what: str
    names: str
    kind: str


#: The areas, in the order ``mathbg cache`` lists them.
AREAS: dict[str, Area] = {a.name: a for a in (
    Area("databases", "bearoff", "bearoff databases (mathbg bearoff build, first use)",
         r"(onesided|twosided)-\d\dx\d\d(-[A-Za-z0-9_-]+)?", "directory"),
    Area("solutions", "bearoff/match",
         "exact bearoff solutions at a score (mathbg bearoff match, audit)",
         r"match-v\d+-\d\dx\d\d-\d+a\d+a-[a-z-]+-[0-9a-f]+\.npz(\.verified)?", "file"),
    Area("hyper", "hyper", "Hypergammon solutions, checkpoints and MET records (mathbg hyper)",
         r"(money|game|met)-c\d+-[A-Za-z0-9_-]+(\.partial|\.json)?", "either"),
    Area("analyses", "gnubg",
         "the gnubg program's analyses of matches (mathbg audit, corpus --audit)",
         r"analysis-\d+ply(-cube)?-[0-9a-f]{32}\.json\.gz", "file"),
    Area("native", "native", "the native engine's two-sided table (first use)",
         r"twosided-\d\dx\d\d(-[A-Za-z0-9_-]+)?", "directory"),
    Area("kernels", "numba", "numba's compiled kernels (first use)",
         r"[A-Za-z0-9_]+_[0-9a-f]{40}", "kernels"),
)}  # fmt: skip


@dataclass(frozen=True)
class AreaUsage:
    """What an area holds: its folder, its entries and their size.

    Attributes
    ----------
    area : Area
    path : pathlib.Path
        The folder (it may not exist: nothing kept yet).
    entries : int
        mathbg's entries there.
    bytes : int
        Their size on disk (files' sizes, links not followed).
    newest : float or None
        The newest entry's modification time (seconds since the epoch), None when empty.
    """

    area: Area
    path: Path
    entries: int
    bytes: int
    newest: float | None


@dataclass(frozen=True)
class Removed:
    """An entry :func:`clear_cache` removed (or would remove, with ``dry_run``).

    Attributes
    ----------
    area : str
        The area's name.
    path : pathlib.Path
        The file or directory.
    bytes : int
        Its size on disk.
    """

    area: str
    path: Path
    bytes: int


def _folder(area: Area) -> Path:
    if area.kind == "kernels":
        from mathbg._compile import numba_cache_root

        return Path(numba_cache_root())
    from mathbg._paths import cache_root

    return cache_root() / area.folder


def _ours(area: Area, entry: Path) -> bool:
    """Did mathbg write ``entry`` of ``area``: its name, its kind, its owner."""
    from mathbg import _files

    if not re.fullmatch(area.names, entry.name) or entry.is_symlink():
        return False
    try:
        info = entry.lstat()
    except OSError:
        return False
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return False
    if entry.is_dir():
        if area.kind == "kernels":
            return all(p.is_file() and not p.is_symlink() and p.suffix in (".nbi", ".nbc")
                       for p in entry.iterdir())  # fmt: skip
        return area.kind in ("directory", "either") and _files.mathbg_directory(entry)
    if not entry.is_file() or area.kind not in ("file", "either"):
        return False
    if area.kind == "either":  # a Hypergammon MET record: a JSON file of mathbg's format
        import json

        try:
            with open(entry, "rb") as fh:
                data = json.loads(fh.read(1 << 24))
        except (OSError, ValueError, RecursionError):
            return False
        return isinstance(data, dict) and str(data.get("format", "")).startswith("mathbg")
    return True


def _entries(area: Area) -> list[Path]:
    try:
        return sorted(p for p in _folder(area).iterdir() if _ours(area, p))
    except OSError:
        return []


def _areas(names: Iterable[str] | None) -> list[Area]:
    if names is None:
        return list(AREAS.values())
    out = []
    for name in names:
        if name not in AREAS:
            raise InvalidParameterError(
                f"no cache area {name!r}; the areas are {', '.join(AREAS)}")
        if AREAS[name] not in out:
            out.append(AREAS[name])
    return out


def cache_usage(areas: Iterable[str] | None = None) -> list[AreaUsage]:
    """What each area of the cache holds (nothing is created or changed).

    Parameters
    ----------
    areas : iterable of str, optional
        Area names (:data:`AREAS`); default all of them.

    Returns
    -------
    list of AreaUsage
        One per area, in :data:`AREAS`'s order.

    Raises
    ------
    InvalidParameterError
        An unknown area name.

    Examples
    --------
    >>> [u.area.name for u in cache_usage(["analyses", "solutions"])]
    ['analyses', 'solutions']
    """
    from mathbg import _files

    out = []
    for area in _areas(areas):
        entries = _entries(area)
        times = []
        for e in entries:
            try:
                times.append(e.lstat().st_mtime)
            except OSError:
                pass
        out.append(AreaUsage(area, _folder(area), len(entries),
                             sum(_files.disk_size(e) for e in entries),
                             max(times) if times else None))  # fmt: skip
    return out


def _locked(entry: Path) -> bool:
    """Does a running build hold the lock of ``entry`` (:func:`mathbg._files.build_lock`)?"""
    from mathbg import _files

    lock = entry.parent / f"{_files.LOCK_PREFIX}{entry.name}"
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return False
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    except ImportError:  # pragma: no cover - no flock: no lock to respect
        return False
    finally:
        os.close(fd)
    return False


def clear_cache(areas: Iterable[str], *, older_than: float | None = None,
                dry_run: bool = False) -> list[Removed]:  # fmt: skip
    """Remove mathbg's entries from areas of the cache.

    Only what mathbg wrote there goes (the module's notes say how that is told); an entry
    a running build holds its lock on stays. Each area's stale temporaries go too.

    Parameters
    ----------
    areas : iterable of str
        Area names (:data:`AREAS`).
    older_than : float, optional
        Only entries last written more than this many days ago.
    dry_run : bool
        Remove nothing; return what would be removed.

    Returns
    -------
    list of Removed
        The entries removed (or that would be), area by area.

    Raises
    ------
    InvalidParameterError
        An unknown area name, or a negative ``older_than``.

    Examples
    --------
    >>> clear_cache(["analyses"], older_than=1e9, dry_run=True)
    []
    """
    from mathbg import _files

    chosen = _areas(areas)
    if older_than is not None and not older_than >= 0:
        raise InvalidParameterError(f"older_than must be >= 0 days, got {older_than!r}")
    cutoff = None if older_than is None else time.time() - older_than * 86400.0
    out = []
    for area in chosen:
        for entry in _entries(area):
            try:
                mtime = entry.lstat().st_mtime
            except OSError:
                continue
            if cutoff is not None and mtime > cutoff:
                continue
            if _locked(entry):
                continue
            out.append(Removed(area.name, entry, _files.disk_size(entry)))
            if not dry_run:
                _files.remove_entry(entry)
        if not dry_run:
            _files.clean_stale(_folder(area))
    return out
