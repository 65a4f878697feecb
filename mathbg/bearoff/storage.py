"""Safe storage for everything the bearoff package writes (databases, ``.bd`` files, caches).

One module owns the rules, so every writer gets them:

- **Nothing is destroyed by accident.** A target that exists and is not a mathbg file of
  the same kind (a directory with foreign files, an ordinary file, the current
  directory) is refused with :class:`mathbg.errors.TargetExistsError` unless
  ``force=True`` (``--force`` on the command line). The current directory, an ancestor
  of it, the home directory and ``/`` are never replaced.
- **Atomic replacement.** New content is written into a temporary directory or file
  *beside* the target, named with the one prefix :data:`TMP_PREFIX` (with the writer's
  pid), flushed to disk (``fsync``) and renamed into place: a reader sees the old
  content or the whole new one, never a part. Directories are swapped with Linux
  ``renameat2(RENAME_EXCHANGE)`` where available (else two renames). On any failure
  the temporary is removed and the old content stays.
- **Stale temporaries are cleaned.** A killed process cannot remove its temporary;
  the next write into the same directory removes every :data:`TMP_PREFIX` entry whose
  pid is no longer alive (or that is older than :data:`STALE_SECONDS`), and a build
  holding the target's lock removes every other temporary of that target (its writer is
  gone even if the pid has been reused).
- **Concurrent builds serialise.** :func:`build_lock` takes an exclusive ``flock`` on
  a lock file beside the target; a second builder waits, then finds the result.
- **The user's umask** decides the permissions (0644 files and 0755 directories by
  default): temporaries are created with mode 0666 / 0777 and the umask applied.
- **Space first.** :func:`mathbg._resources.check_space` refuses a write that cannot
  fit; :func:`preallocate` reserves a memory-mapped file's blocks (``posix_fallocate``,
  else by writing zeros) so writes through the map can never hit a full disk (which
  would raise ``SIGBUS``); an ``ENOSPC`` during the work becomes one
  :class:`mathbg.errors.InsufficientSpaceError`.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mathbg._files import TMP_PREFIX, fsync_dir, tmp_name
from mathbg._resources import check_space, format_bytes
from mathbg.errors import InsufficientSpaceError, TargetExistsError

__all__ = [
    "LOCK_PREFIX",
    "STALE_SECONDS",
    "TMP_PREFIX",
    "atomic_directory",
    "atomic_file",
    "build_lock",
    "check_target",
    "clean_stale",
    "fsync_tree",
    "preallocate",
    "sha256_files",
    "space_error",
]

PathLike = str | os.PathLike[str]

# TMP_PREFIX (the prefix of every temporary mathbg writes beside a target) comes from
# mathbg._files, shared with the writers of plots and MET files.
#: Prefix of the lock files beside a target (kept: removing a lock file is racy).
LOCK_PREFIX = ".mathbg-lock-"
#: A temporary older than this is stale even if its pid is alive (pid reuse).
STALE_SECONDS = 7 * 24 * 3600


# ------------------------------------------------------------------------------ targets


def _protected(target: Path) -> str | None:
    """Why ``target`` may never be replaced, or None."""
    resolved = target.resolve()
    if resolved == Path(resolved.anchor):
        return "the root directory"
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        cwd = None
    if cwd is not None and cwd == resolved:
        return "the current directory"
    if cwd is not None and resolved in cwd.parents:
        return "an ancestor of the current directory"
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        home = None
    if home is not None and resolved == home:
        return "the home directory"
    return None


def check_target(
    target: PathLike,
    *,
    is_same_kind: Callable[[Path], bool],
    what: str,
    force: bool = False,
) -> None:
    """Refuse to replace ``target`` unless it is absent, empty, or a ``what`` already.

    Parameters
    ----------
    target : path
        The directory or file about to be (re)written.
    is_same_kind : callable
        ``is_same_kind(path) -> bool``: is the existing ``path`` a mathbg file of the
        kind being written (a valid or damaged one: it may be replaced)?
    what : str
        The kind, for the message (e.g. ``"one-sided bearoff database"``).
    force : bool
        Replace anything but a protected directory (see the module docstring).

    Raises
    ------
    mathbg.errors.TargetExistsError
    """
    p = Path(target)
    if not (p.exists() or p.is_symlink()):
        return
    reason = _protected(p) if p.is_dir() else None
    if reason is not None:
        raise TargetExistsError(f"{p}: refusing to replace {reason} with a {what}")
    if p.is_dir() and not p.is_symlink() and not any(p.iterdir()):
        return  # an empty directory holds nothing to lose
    if force or is_same_kind(p):
        return
    kind = "directory" if p.is_dir() else "file"
    raise TargetExistsError(
        f"{p}: exists and is not a {what} (an existing {kind}); choose another path, or "
        "use --force (force=True) to replace it"
    )


# ------------------------------------------------------------------------------ temporaries


_tmp_name = tmp_name


def _pid_of(name: str) -> int | None:
    rest = name[len(TMP_PREFIX) :]
    head = rest.split("-", 1)[0]
    return int(head) if head.isdigit() else None


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, someone else's
        return True
    except OSError:
        return True
    return True


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def clean_stale(directory: PathLike, *, locked: str | None = None) -> list[Path]:
    """Remove the :data:`TMP_PREFIX` entries in ``directory`` left by dead processes.

    An entry is stale when the pid in its name is not alive, or when it is older than
    :data:`STALE_SECONDS`; or, when the caller holds :func:`build_lock` of the target
    named ``locked``, when it is a temporary of that target (whoever wrote it is gone,
    even if its pid now belongs to another process). Returns the removed paths.
    """
    d = Path(directory)
    removed: list[Path] = []
    try:
        entries = list(d.iterdir())
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not entry.name.startswith(TMP_PREFIX):
            continue
        pid = _pid_of(entry.name)
        try:
            age = now - entry.lstat().st_mtime
        except OSError:
            continue
        ours = locked is not None and entry.name.split("-", 4)[-1] == locked
        if ours and pid == os.getpid():
            ours = False  # this process's own temporary (another thread's write)
        if pid is None or ours or not _alive(pid) or age > STALE_SECONDS:
            _remove(entry)
            removed.append(entry)
    return removed


def fsync_tree(path: PathLike) -> None:
    """Flush a file, or every file of a directory and the directory itself, to disk."""
    p = Path(path)
    files = [f for f in p.rglob("*") if f.is_file()] if p.is_dir() else [p]
    for f in files:
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    if p.is_dir():
        _fsync_dir(p)


_fsync_dir = fsync_dir


def space_error(exc: OSError, path: PathLike, what: str) -> InsufficientSpaceError:
    """The one-line error for an ``ENOSPC`` / ``EDQUOT`` while writing ``path``."""
    return InsufficientSpaceError(
        f"{what}: the disk holding {Path(path).parent} is full ({exc.strerror or exc}); "
        "nothing was changed, free some space and retry"
    )


def _is_space(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT)


# ------------------------------------------------------------------------------ renames

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two paths (Linux renameat2 RENAME_EXCHANGE); False if unsupported."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
    renameat2.argtypes += [ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    rc = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    if rc == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _install(tmp: Path, target: Path) -> None:
    """Put ``tmp`` at ``target``, replacing what is there; the old content is removed."""
    if not (target.exists() or target.is_symlink()):
        os.rename(tmp, target)
        return
    if tmp.is_dir() == target.is_dir() and not target.is_symlink():
        if tmp.is_dir():
            if _exchange(tmp, target):  # tmp now holds the old content
                _remove(tmp)
                return
        else:
            os.replace(tmp, target)
            return
    old = _tmp_name(target)
    os.rename(target, old)
    try:
        os.rename(tmp, target)
    except BaseException:
        os.rename(old, target)
        raise
    _remove(old)


# ------------------------------------------------------------------------------ writers


def _prepare(
    final: Path,
    what: str,
    is_same_kind: Callable[[Path], bool],
    force: bool,
    needed_bytes: int,
    locked: bool,
) -> Path:
    """The checks before writing ``final`` (its parent created, :func:`check_target`,
    :func:`clean_stale`, the free space); returns the temporary name beside it."""
    final.parent.mkdir(parents=True, exist_ok=True)
    check_target(final, is_same_kind=is_same_kind, what=what, force=force)
    clean_stale(final.parent, locked=final.name if locked else None)
    if needed_bytes:
        check_space(final.parent, needed_bytes, f"the {what}")
    return _tmp_name(final)


@contextmanager
def _install_on_success(
    tmp: Path, final: Path, what: str, recheck: Callable[[], None] | None = None
) -> Iterator[Path]:
    """Yield ``tmp``; when the body returns flush it, run ``recheck`` and install it as
    ``final`` (:func:`_install`); on any exception remove it (``ENOSPC`` re-raised as
    :class:`~mathbg.errors.InsufficientSpaceError`)."""
    try:
        yield tmp
        fsync_tree(tmp)
        if recheck is not None:
            recheck()
        _install(tmp, final)
        _fsync_dir(final.parent)
    except BaseException as exc:
        _remove(tmp)
        if _is_space(exc):
            assert isinstance(exc, OSError)
            raise space_error(exc, final, f"writing the {what} {final}") from None
        raise


@contextmanager
def atomic_directory(
    target: PathLike,
    *,
    what: str,
    is_same_kind: Callable[[Path], bool],
    force: bool = False,
    needed_bytes: int = 0,
    locked: bool = False,
) -> Iterator[Path]:
    """Yield an empty temporary directory beside ``target``; install it on success.

    The target is checked first (:func:`check_target`), stale temporaries beside it are
    removed (:func:`clean_stale`) and the free space checked against ``needed_bytes``.
    When the ``with`` body returns, the files are flushed and the directory replaces the
    target atomically; on any exception it is removed and the target left as it was (an
    ``ENOSPC`` is re-raised as :class:`~mathbg.errors.InsufficientSpaceError`).
    """
    final = Path(target)
    tmp = _prepare(final, what, is_same_kind, force, needed_bytes, locked)
    os.mkdir(tmp, 0o777)  # the umask applies

    def recheck() -> None:
        check_target(final, is_same_kind=is_same_kind, what=what, force=force)

    with _install_on_success(tmp, final, what, recheck) as path:
        yield path


@contextmanager
def atomic_file(
    target: PathLike,
    *,
    what: str,
    is_same_kind: Callable[[Path], bool],
    force: bool = False,
    needed_bytes: int = 0,
) -> Iterator[Path]:
    """Yield a temporary file path beside ``target`` (created empty, umask applied).

    Same contract as :func:`atomic_directory`, for a single file.
    """
    final = Path(target)
    if final.is_dir() and not force:
        raise TargetExistsError(f"{final}: is a directory; a {what} is a single file")
    tmp = _prepare(final, what, is_same_kind, force, needed_bytes, locked=False)
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    with _install_on_success(tmp, final, what) as path:
        yield path


def preallocate(path: PathLike, size: int | None = None) -> None:
    """Reserve the disk blocks of ``path`` up to ``size`` bytes (default: its size).

    A sparse file written through a memory map gets ``SIGBUS`` when the disk fills;
    with its blocks reserved first the failure is an ``ENOSPC`` here, before any work
    (raised as :class:`~mathbg.errors.InsufficientSpaceError`).
    """
    p = Path(path)
    length = p.stat().st_size if size is None else int(size)
    fd = os.open(p, os.O_RDWR)
    try:
        try:
            os.posix_fallocate(fd, 0, length)
            return
        except OSError as exc:
            if _is_space(exc):
                raise space_error(exc, p, f"reserving {format_bytes(length)} for {p}") from None
            if exc.errno not in (errno.EOPNOTSUPP, errno.EINVAL, errno.ENOSYS):
                raise
        except AttributeError:  # pragma: no cover - no posix_fallocate on this platform
            pass
        _fill_zeros(fd, p, length)
    finally:
        os.close(fd)


def _fill_zeros(fd: int, path: Path, length: int) -> None:
    """Allocate by writing zeros wherever the file is still a hole (the map is unused)."""
    chunk = 1 << 22
    zeros = bytes(chunk)
    offset = 0
    try:
        while offset < length:
            n = min(chunk, length - offset)
            os.pwrite(fd, zeros[:n], offset)
            offset += n
        os.fsync(fd)
    except OSError as exc:
        if _is_space(exc):
            raise space_error(exc, path, f"reserving {format_bytes(length)} for {path}") from None
        raise


# ------------------------------------------------------------------------------ locks


@contextmanager
def build_lock(target: PathLike) -> Iterator[None]:
    """Hold an exclusive lock on ``target`` (a lock file beside it) while building.

    A second process (or thread) building the same target waits here; when it gets the
    lock the first build has finished, and it should look for the result again.
    """
    import fcntl

    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    lock = final.parent / f"{LOCK_PREFIX}{final.name}"
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        try:
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)


# ------------------------------------------------------------------------------ digests


def sha256_files(files: list[Path], prefix: bytes = b"") -> str:
    """SHA-256 of ``prefix`` followed by the bytes of each file, in order (hex)."""
    digest = hashlib.sha256(prefix)
    for f in files:
        with open(f, "rb") as fh:
            while chunk := fh.read(1 << 24):
                digest.update(chunk)
    return digest.hexdigest()
