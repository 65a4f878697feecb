"""Machine resources checked before work starts: memory and free disk space.

Standard library only (cheap to import from any layer). Work whose size is known in
advance asks :func:`check_memory` / :func:`check_space` first, so it is refused with a
:class:`mathbg.errors.InsufficientMemoryError` / :class:`~mathbg.errors.InsufficientSpaceError`
naming the need, instead of being killed by the system (or by ``MemoryError`` half-way).

Memory available to this process is the tightest of

- the kernel's estimate of memory available without swapping (``MemAvailable`` in
  ``/proc/meminfo``),
- the address-space limit (``ulimit -v``, ``RLIMIT_AS``) less what the process has
  mapped already (``VmSize``),
- the cgroup limit less the cgroup's usage (v2 ``memory.max`` / ``memory.current``,
  v1 ``memory.limit_in_bytes`` / ``memory.usage_in_bytes``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = [
    "available_memory",
    "check_memory",
    "check_space",
    "format_bytes",
    "free_space",
    "parse_memory",
]

_CGROUP_ROOT = Path("/sys/fs/cgroup")
#: cgroup v1 reports "no limit" as a huge number near 2^63.
_NO_LIMIT = 1 << 60


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit that keeps it >= 1 (e.g. ``"1.5 GiB"``)."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(n) < 1024 or unit == "TiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover - loop always returns


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if not text or text == "max":
        return None
    try:
        return int(text)
    except ValueError:
        return None


def _meminfo(field: str) -> int | None:
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _address_space_left() -> int | None:
    """``RLIMIT_AS`` (``ulimit -v``) less this process's mapped size, or None."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft < 0:
        return None
    used = 0
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    used = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError, IndexError):
        pass
    return max(0, soft - used)


def _cgroup_dirs() -> list[tuple[int, Path]]:
    """The memory cgroup directories of this process: (version, path)."""
    out: list[tuple[int, Path]] = []
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return out
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, rel = parts
        rel = rel.lstrip("/")
        if controllers == "":  # v2 unified hierarchy
            for base in (_CGROUP_ROOT / rel, _CGROUP_ROOT):
                if (base / "memory.max").exists():
                    out.append((2, base))
                    break
        elif "memory" in controllers.split(","):
            for base in (_CGROUP_ROOT / "memory" / rel, _CGROUP_ROOT / "memory"):
                if (base / "memory.limit_in_bytes").exists():
                    out.append((1, base))
                    break
    return out


def _cgroup_left() -> int | None:
    """The cgroup memory limit less the cgroup's current usage, or None (no limit)."""
    best: int | None = None
    for version, base in _cgroup_dirs():
        if version == 2:
            limit, usage = _read_int(base / "memory.max"), _read_int(base / "memory.current")
        else:
            limit = _read_int(base / "memory.limit_in_bytes")
            usage = _read_int(base / "memory.usage_in_bytes")
        if limit is None or limit >= _NO_LIMIT:
            continue
        left = max(0, limit - (usage or 0))
        best = left if best is None else min(best, left)
    return best


def available_memory() -> int | None:
    """Bytes a new allocation can use: the tightest of RAM, ``ulimit -v`` and the cgroup.

    None when none of them can be read (then nothing is refused).
    """
    candidates = [_meminfo("MemAvailable"), _address_space_left(), _cgroup_left()]
    if candidates[0] is None:
        try:
            candidates[0] = int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
        except (ValueError, OSError, AttributeError):
            pass
    known = [c for c in candidates if c is not None]
    return min(known) if known else None


def check_memory(needed: int, what: str) -> None:
    """Refuse work needing ``needed`` bytes of memory when less is available.

    Raises
    ------
    mathbg.errors.InsufficientMemoryError
        Naming ``what``, the need and what is available.
    """
    available = available_memory()
    if available is not None and needed > available:
        from mathbg.errors import InsufficientMemoryError

        raise InsufficientMemoryError(
            f"{what} needs about {format_bytes(needed)} of memory, but only "
            f"{format_bytes(available)} is available (RAM, ulimit -v and cgroup limit)"
        )


def free_space(path: str | os.PathLike[str]) -> int | None:
    """Free bytes on the filesystem holding ``path`` (its nearest existing ancestor)."""
    p = Path(path).absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    try:
        return shutil.disk_usage(p).free
    except OSError:
        return None


def check_space(path: str | os.PathLike[str], needed: int, what: str) -> None:
    """Refuse to write ``needed`` bytes at ``path`` when its filesystem has less free.

    Raises
    ------
    mathbg.errors.InsufficientSpaceError
        Naming ``what``, the path, the need and the free space.
    """
    free = free_space(path)
    if free is not None and needed > free:
        from mathbg.errors import InsufficientSpaceError

        raise InsufficientSpaceError(
            f"{what} needs {format_bytes(needed)} of disk space at {path}, but only "
            f"{format_bytes(free)} is free"
        )


def parse_memory(text: str | int | float | None) -> int | None:
    """Bytes from ``"12GiB"``, ``"500MB"``, ``"2G"``, ``12e9`` or an int (None stays None).

    Raises
    ------
    InvalidParameterError
        For anything that is not a positive size.

    Examples
    --------
    >>> parse_memory("12GiB"), parse_memory("500MB"), parse_memory(None)
    (12884901888, 500000000, None)
    """
    from mathbg.errors import InvalidParameterError

    if text is None:
        return None
    if isinstance(text, int | float) and not isinstance(text, bool):
        if not 0 < text < 2**63:  # nan and inf fail too
            raise InvalidParameterError(f"memory must be a positive size in bytes, got {text}")
        return int(text)
    units = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "kib": 2**10, "m": 10**6, "mb": 10**6,
             "mib": 2**20, "g": 10**9, "gb": 10**9, "gib": 2**30, "t": 10**12, "tb": 10**12,
             "tib": 2**40}  # fmt: skip
    s = str(text).strip().lower().replace(" ", "")
    num = s.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = s[len(num) :]
    try:
        value = float(num)
    except ValueError:
        value = -1.0
    if unit not in units or not 0 < value * units[unit] < 2.0**63:  # 1e400: not a size
        raise InvalidParameterError(f"memory must look like 12GiB, 500MB or 8G, got {text!r}")
    return int(value * units[unit])
