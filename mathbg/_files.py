"""Everything mathbg writes goes through here: output files, databases, caches.

The rules (the brief: "never delete or overwrite what mathbg did not write"):

- **Atomic.** The content goes into a temporary file or directory *beside* the target,
  named with the one prefix :data:`TMP_PREFIX` and the writer's pid, is flushed to disk
  (``fsync``) and renamed into place: a reader sees the old content or the whole new one,
  never a part. Directories are swapped with Linux ``renameat2(RENAME_EXCHANGE)`` where
  available (else two renames). On any failure the temporary is removed and the target
  left as it was; an ``ENOSPC`` becomes one :class:`mathbg.errors.InsufficientSpaceError`.
- **The user's umask** decides the permissions (0644 files and 0755 directories by
  default): temporaries are created with mode 0666 / 0777 and the umask applied.
- **Nothing foreign is replaced.** User-visible output files (MET files, plots, CSV;
  :func:`output_file`): an existing target is replaced only when mathbg wrote it, decided
  from the file itself by :func:`written_by_mathbg`, or with ``force=True`` (``--force``);
  else :class:`mathbg.errors.TargetExistsError`. A directory is never replaced, not even
  with ``force``. Databases and caches (:func:`atomic_directory`, :func:`atomic_file`):
  a target that exists and is not a mathbg file of the same kind (each format says how it
  is recognised: ``is_same_kind``, written beside the format) is refused unless
  ``force=True``, and a directory mathbg did not write is never replaced (one rule with
  the output files: ``force`` replaces files, and mathbg's own databases of another
  kind); the current directory, an ancestor of it, the home directory and ``/`` are
  never replaced either.
- **Stale temporaries are cleaned.** A killed process cannot remove its temporary; the
  next write into the same directory (an output file or a database) removes every
  temporary whose writer is gone: its name is exactly one :func:`tmp_name` gives, its
  owner is the current user, and the pid in its name is no longer alive (or it is older
  than :data:`STALE_SECONDS`); a build holding the target's lock removes every other
  temporary of that target (its writer is gone even if the pid has been reused). Nothing
  else is ever removed.
- **Messages name the user's paths**, never a temporary's: a write that fails (a missing
  directory, no permission) is reported for the target.
- **Concurrent builds serialise.** :func:`build_lock` takes an exclusive ``flock`` on a
  lock file beside the target (removed when the build ends); a second builder waits,
  then finds the result.
- **Space first.** :func:`mathbg._resources.check_space` refuses a write that cannot fit;
  :func:`preallocate` reserves a memory-mapped file's blocks (``posix_fallocate``, else by
  writing zeros) so writes through the map can never hit a full disk (which would raise
  ``SIGBUS``).

How a file says "mathbg wrote it" (:func:`marker` is ``"mathbg <version>"``):

- PNG: a ``tEXt`` chunk ``Software`` = :func:`marker` (matplotlib ``savefig`` metadata,
  see :func:`savefig_metadata`);
- SVG: the Dublin Core creator (``<dc:creator><cc:Agent><dc:title>mathbg ...``);
- PDF: the document information ``/Creator (mathbg ...)``;
- gnubg MET XML: the header comment mathbg writes (``... written by mathbg.``);
- XG ``.met``: a comment line ``; written by mathbg <version>`` (second line, after
  ``[Current]``).

CSV, JSON and text tables carry no safe marker, so an existing one is always refused
without ``force``.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import hashlib
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mathbg._resources import check_space, format_bytes
from mathbg.errors import InsufficientSpaceError, TargetExistsError

__all__ = [
    "LOCK_PREFIX",
    "STALE_SECONDS",
    "TMP_PREFIX",
    "atomic_directory",
    "atomic_file",
    "build_lock",
    "check_output",
    "check_target",
    "clean_stale",
    "disk_size",
    "fsync_dir",
    "fsync_tree",
    "marker",
    "mathbg_directory",
    "never_ours",
    "output_file",
    "preallocate",
    "remove_entry",
    "savefig_metadata",
    "sha256_files",
    "space_error",
    "tmp_name",
    "write_output",
    "written_by_mathbg",
    "xg_marker_line",
]

PathLike = str | os.PathLike[str]

#: Prefix of every temporary file or directory mathbg writes beside a target.
TMP_PREFIX = ".mathbg-tmp-"
#: Prefix of the lock files beside a target (kept: removing a lock file is racy).
LOCK_PREFIX = ".mathbg-lock-"
#: A temporary older than this is stale even if its pid is alive (pid reuse).
STALE_SECONDS = 7 * 24 * 3600


@functools.cache
def marker() -> str:
    """What mathbg writes into a file's metadata to recognise it later: ``mathbg <version>``.

    The version is the installed distribution's (``importlib.metadata``; ``import mathbg``
    is not used: the match equity tables must not import the rules model through it).
    """
    from importlib import metadata

    try:
        version = metadata.version("mathbg")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"mathbg {version}"


def xg_marker_line() -> str:
    """The comment line mathbg puts in an XG ``.met`` file after ``[Current]`` (``;`` starts
    a comment in XG's INI-style files)."""
    return f"; written by {marker()}"


_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_HEAD = 1 << 16
#: mathbg's marks in the files it writes, by kind: compiled on first use (most processes
#: never look for them).
_MARKS: dict[str, tuple[bytes, int]] = {
    "svg": (rb"<dc:creator>\s*<cc:Agent>\s*<dc:title>mathbg[ <]", 0),
    "pdf": (rb"/Creator\s*\(mathbg[ )]", 0),
    "xg": (rb"^[ \t]*; written by mathbg ", re.M),
    "xml": (rb"<!--(?:(?!-->).)*?written by mathbg\.", re.S),
}


@functools.cache
def _mark(kind: str) -> re.Pattern[bytes]:
    pattern, flags = _MARKS[kind]
    return re.compile(pattern, flags)


def tmp_name(target: Path) -> Path:
    """A fresh temporary path beside ``target``: ``TMP_PREFIX<pid>-<random>-<name>``.

    The name ends with the target's name, so its suffix (``.png``, ...) is the target's.
    """
    return target.parent / f"{TMP_PREFIX}{os.getpid()}-{os.urandom(4).hex()}-{target.name}"


def fsync_dir(d: Path) -> None:
    """Flush a directory entry (after a rename into it) to disk; best effort."""
    try:
        fd = os.open(d, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ------------------------------------------------------------------------------ markers


def savefig_metadata(format: str) -> dict[str, str] | None:
    """The ``metadata=`` for matplotlib ``savefig`` in ``format`` that marks mathbg's file.

    PNG takes ``Software``, SVG and PDF ``Creator``; other formats (JPEG, PS, ...) None:
    such a file is not recognised later, so replacing it needs ``force``.
    """
    fmt = format.lower().lstrip(".")
    if fmt == "png":
        return {"Software": marker()}
    if fmt in ("svg", "pdf"):
        return {"Creator": marker()}
    return None


def _png_software(head: bytes) -> str | None:
    """The ``Software`` value of the ``tEXt`` chunks before the image data, or None."""
    pos = len(_PNG_SIGNATURE)
    while pos + 8 <= len(head):
        length = int.from_bytes(head[pos : pos + 4], "big")
        kind = head[pos + 4 : pos + 8]
        data = head[pos + 8 : pos + 8 + length]
        if kind in (b"IDAT", b"IEND") or len(data) < length:
            return None
        if kind == b"tEXt":
            key, _, value = data.partition(b"\0")
            if key == b"Software":
                return value.decode("latin-1")
        pos += 12 + length
    return None


def written_by_mathbg(path: PathLike) -> bool:
    """Did mathbg write the file at ``path``? Decided from its content (module docstring)."""
    p = Path(path)
    try:
        with open(p, "rb") as fh:
            head = fh.read(_HEAD)
            size = os.fstat(fh.fileno()).st_size
            tail = b""
            if size > _HEAD:
                fh.seek(max(_HEAD, size - _HEAD))
                tail = fh.read(_HEAD)
    except OSError:
        return False
    if head.startswith(_PNG_SIGNATURE):
        software = _png_software(head)
        return software is not None and software.startswith("mathbg ")
    if head.startswith(b"%PDF"):
        return bool(_mark("pdf").search(head) or _mark("pdf").search(tail))
    if head.startswith(b"; written by mathbg "):  # a match file (.mat)
        return True
    if head.startswith(b"(;"):  # a match file (.sgf): the application property
        return b"AP[mathbg:" in head
    text_head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text_head.startswith(b"["):  # an INI-style XG .met
        return bool(_mark("xg").search(head))
    if text_head.startswith(b"<"):
        if b"<svg" in head:
            return bool(_mark("svg").search(head))
        if b"<met" in head:
            return bool(_mark("xml").search(head))
    return False


# ------------------------------------------------------------------------------ writers


def check_output(
    target: PathLike,
    *,
    what: str = "file",
    force: bool = False,
    is_ours: Callable[[Path], bool] = written_by_mathbg,
) -> None:
    """Raise :class:`~mathbg.errors.TargetExistsError` now if :func:`output_file` would
    refuse ``target`` (to check every output of a command before writing any)."""
    _refuse(Path(target), what, force, is_ours)
    _check_directory(Path(target), what)


def _refuse(final: Path, what: str, force: bool, is_ours: Callable[[Path], bool]) -> None:
    if final.is_dir():
        raise TargetExistsError(
            f"{final}: is a directory; mathbg never replaces a directory with a {what} "
            "(not even with --force): choose a file name"
        )
    if (final.exists() or final.is_symlink()) and not force and not is_ours(final):
        raise TargetExistsError(
            f"{final}: exists and mathbg did not write it; choose another path, or use "
            "--force (force=True) to replace it"
        )


@contextmanager
def output_file(
    target: PathLike,
    *,
    what: str = "file",
    force: bool = False,
    is_ours: Callable[[Path], bool] = written_by_mathbg,
) -> Iterator[Path]:
    """Yield an empty temporary file beside ``target``; on success it replaces the target.

    Parameters
    ----------
    target : path
        The output file.
    what : str
        What is written, for messages (``"PNG plot"``, ``"MET file"``, ...).
    force : bool
        Replace an existing file that mathbg did not write (never a directory).
    is_ours : callable
        ``is_ours(path) -> bool``: may the existing file be replaced without ``force``?
        Default :func:`written_by_mathbg`; ``lambda p: False`` for formats with no marker.

    Raises
    ------
    mathbg.errors.TargetExistsError
        The target is a directory, or exists, is not mathbg's and ``force`` is false.
    mathbg.errors.InsufficientSpaceError
        The disk filled while writing (the target is unchanged).
    """
    final = Path(target)
    _refuse(final, what, force, is_ours)
    _check_directory(final, what)
    clean_stale(final.parent)  # the temporaries of writers that are gone
    tmp = tmp_name(final)
    try:
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # umask applies
    except OSError as exc:
        raise _for_target(exc, tmp, final) from None

    def recheck() -> None:
        if final.is_dir():  # appeared while writing
            _refuse(final, what, force, is_ours)

    with _install_on_success(tmp, final, what, recheck) as path:
        yield path


def write_output(
    target: PathLike,
    data: str | bytes,
    *,
    what: str = "file",
    force: bool = False,
    is_ours: Callable[[Path], bool] = written_by_mathbg,
    encoding: str = "utf-8",
) -> Path:
    """Write ``data`` (text in ``encoding``, or bytes) to ``target`` by :func:`output_file`.

    Returns the target path.
    """
    final = Path(target)
    raw = data.encode(encoding) if isinstance(data, str) else data
    with output_file(final, what=what, force=force, is_ours=is_ours) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(raw)
    return final


def _check_directory(final: Path, what: str) -> None:
    """Refuse a target whose directory does not exist (named as the user wrote it)."""
    parent = final.parent
    if not parent.is_dir():
        from mathbg.errors import InvalidParameterError

        why = "does not exist" if not parent.exists() else "is not a directory"
        raise InvalidParameterError(f"{final}: cannot write the {what}: {parent} {why}")


def _for_target(exc: OSError, tmp: Path, final: Path) -> OSError:
    """``exc`` raised for the temporary ``tmp`` as raised for ``final`` (the user's
    path); any other error as it is."""
    if exc.filename is None or os.fspath(exc.filename) != os.fspath(tmp):
        return exc
    return type(exc)(exc.errno or 0, exc.strerror or str(exc), str(final))


def never_ours(path: Path) -> bool:
    """``is_ours`` for formats with no marker (CSV, JSON, text): always False."""
    return False


# ==============================================================================
# Databases and caches: directories and files of a known kind, locks, digests

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


def mathbg_directory(path: Path) -> bool:
    """Did mathbg write the directory ``path`` (a database of any kind: its
    ``header.json`` names a mathbg format)?"""
    try:
        with open(path / "header.json", "rb") as fh:
            raw = fh.read(1 << 20)
        import json

        header = json.loads(raw)
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(header, dict) and str(header.get("format", "")).startswith("mathbg")


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
        Replace any file, and a directory only when mathbg wrote it (a database of
        another kind); never a directory of other files (one rule with every writer of
        mathbg) nor a protected one (see the module docstring).

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
    if is_same_kind(p):
        return
    if p.is_dir() and not p.is_symlink() and not mathbg_directory(p):
        raise TargetExistsError(
            f"{p}: is a directory mathbg did not write; mathbg never replaces such a "
            f"directory with a {what}, not even with --force: choose another path"
        )
    if force:
        return
    kind = "directory" if p.is_dir() else "file"
    raise TargetExistsError(
        f"{p}: exists and is not a {what} (an existing {kind}); choose another path, or "
        "use --force (force=True) to replace it"
    )


# ------------------------------------------------------------------------------ temporaries


#: The name :func:`tmp_name` gives (and nothing else is a temporary of mathbg's).
_TMP_NAME = re.escape(TMP_PREFIX) + r"([0-9]{1,10})-[0-9a-f]{8}-(.+)"


def _pid_of(name: str) -> int | None:
    """The writer's pid of a temporary's name, None for a name mathbg does not give."""
    m = re.fullmatch(_TMP_NAME, name, re.S)
    return int(m.group(1)) if m else None


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


def remove_entry(path: Path) -> None:
    """Remove a file, or a directory with everything in it (a link is unlinked, not
    followed); a path already gone is no error."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except FileNotFoundError:
            pass


def clean_stale(directory: PathLike, *, locked: str | None = None) -> list[Path]:
    """Remove the temporaries in ``directory`` left by writers that are gone.

    Only entries named as :func:`tmp_name` names them and owned by the current user are
    considered. One is stale when the pid in its name is not alive, or when it is older
    than :data:`STALE_SECONDS`; or, when the caller holds :func:`build_lock` of the
    target named ``locked``, when it is a temporary of that target (whoever wrote it is
    gone, even if its pid now belongs to another process). Returns the removed paths.
    """
    d = Path(directory)
    removed: list[Path] = []
    try:
        entries = list(d.iterdir())
    except OSError:
        return removed
    now = time.time()
    uid = os.getuid() if hasattr(os, "getuid") else None
    for entry in entries:
        pid = _pid_of(entry.name)
        if pid is None:
            continue  # not a name mathbg gives: never touched
        try:
            info = entry.lstat()
        except OSError:
            continue
        if uid is not None and info.st_uid != uid:
            continue  # another user's
        age = now - info.st_mtime
        ours = locked is not None and entry.name.split("-", 4)[-1] == locked
        if ours and pid == os.getpid():
            ours = False  # this process's own temporary (another thread's write)
        if ours or not _alive(pid) or age > STALE_SECONDS:
            remove_entry(entry)
            removed.append(entry)
    return removed


def disk_size(path: PathLike) -> int:
    """The bytes of a file, or of every file under a directory (links counted as links,
    never followed; a file that vanishes meanwhile counts 0)."""
    p = Path(path)
    try:
        info = p.lstat()
    except OSError:
        return 0
    if not p.is_dir() or p.is_symlink():
        return info.st_size
    total = 0
    for top, dirs, files in os.walk(p):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            try:
                total += os.lstat(os.path.join(top, name)).st_size
            except OSError:
                pass
    return total


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
        fsync_dir(p)


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
                remove_entry(tmp)
                return
        else:
            os.replace(tmp, target)
            return
    old = tmp_name(target)
    os.rename(target, old)
    try:
        os.rename(tmp, target)
    except BaseException:
        os.rename(old, target)
        raise
    remove_entry(old)


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
    return tmp_name(final)


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
        fsync_dir(final.parent)
    except BaseException as exc:
        remove_entry(tmp)
        if _is_space(exc):
            assert isinstance(exc, OSError)
            raise space_error(exc, final, f"writing the {what} {final}") from None
        if isinstance(exc, OSError):
            raise _for_target(exc, tmp, final) from None
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

    The lock file is removed when the lock is released (no empty file stays beside the
    output): its holder unlinks it while still holding it, and a waiter that then gets
    the lock of the unlinked file sees that the path no longer names it and locks the
    path's new file instead.
    """
    import fcntl

    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    lock = final.parent / f"{LOCK_PREFIX}{final.name}"
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            held, named = os.fstat(fd), os.stat(lock)
        except FileNotFoundError:  # unlinked by the holder we waited for
            os.close(fd)
            continue
        except BaseException:
            os.close(fd)
            raise
        if (held.st_dev, held.st_ino) == (named.st_dev, named.st_ino):
            break
        os.close(fd)  # we locked a file its holder has since removed: lock the new one
    try:
        yield
    finally:
        try:
            with contextlib.suppress(OSError):
                os.unlink(lock)
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


# ------------------------------------------------------------------------------ verification stamps


#: Whether a file's ``st_ctime`` is its status-change time (POSIX), which every write
#: updates: stamps are kept only then (on Windows it is the creation time, and every
#: opening checks the files in full).
STAMPS = os.name == "posix"


def file_states(files: list[Path]) -> list[list[int]]:
    """Each file's inode, size, modification and status-change times (ns): what a write
    to it changes (the status-change time cannot be set back by any user call)."""
    out = []
    for f in files:
        st = f.stat()
        out.append([st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
    return out


def stamped(stamp: Path, files: list[Path], token: str) -> bool:
    """Does ``stamp`` record a full verification of ``files`` as they are now, for
    ``token`` (what was verified: a checksum, an identity)? A missing, unreadable or
    malformed stamp is a no."""
    import json

    if not STAMPS:
        return False
    try:
        record = json.loads(stamp.read_text())
        return (isinstance(record, dict) and record.get("token") == token
                and record.get("files") == file_states(files))  # fmt: skip
    except (OSError, ValueError, RecursionError):
        return False


def write_stamp(stamp: Path, files: list[Path], token: str) -> None:
    """Record that ``files``, as they are now, passed a full verification for ``token``
    (written to a temporary name beside and renamed; where it cannot be written there is
    no stamp, and the next reader verifies again)."""
    import json

    if not STAMPS:
        return
    tmp = stamp.with_name(f".{stamp.name}.{os.getpid()}")
    try:
        tmp.write_text(json.dumps({"token": token, "files": file_states(files)}))
        os.replace(tmp, stamp)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()

