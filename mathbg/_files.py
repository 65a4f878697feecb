"""Writing user-visible output files safely (MET files, plots, CSV): one helper for all.

The rules (the brief: "never delete or overwrite what mathbg did not write"):

- **Atomic.** The content goes into a temporary file *beside* the target, named with the
  one prefix :data:`TMP_PREFIX` (shared with :mod:`mathbg.bearoff.storage`) and the
  writer's pid, is flushed (``fsync``) and renamed over the target (``os.replace``): a
  reader sees the old file or the whole new one. On any failure the temporary is removed
  and the target left as it was.
- **The user's umask** decides the permissions (0644 by default): the temporary is
  created with mode 0666 and the umask applied.
- **Nothing foreign is replaced.** An existing target is replaced only when mathbg wrote
  it, decided from the file itself by :func:`written_by_mathbg`, or with ``force=True``
  (``--force``); else :class:`mathbg.errors.TargetExistsError`. A directory is never
  replaced, not even with ``force``.

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

import errno
import functools
import os
import re
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from mathbg.errors import InsufficientSpaceError, TargetExistsError

__all__ = [
    "TMP_PREFIX",
    "check_output",
    "fsync_dir",
    "marker",
    "never_ours",
    "output_file",
    "savefig_metadata",
    "tmp_name",
    "write_output",
    "written_by_mathbg",
    "xg_marker_line",
]

PathLike = str | os.PathLike[str]

#: Prefix of every temporary file or directory mathbg writes beside a target.
TMP_PREFIX = ".mathbg-tmp-"


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
_SVG_CREATOR = re.compile(rb"<dc:creator>\s*<cc:Agent>\s*<dc:title>mathbg[ <]")
_PDF_CREATOR = re.compile(rb"/Creator\s*\(mathbg[ )]")
_XG_COMMENT = re.compile(rb"^[ \t]*; written by mathbg ", re.M)
_XML_COMMENT = re.compile(rb"<!--(?:(?!-->).)*?written by mathbg\.", re.S)


def tmp_name(target: Path) -> Path:
    """A fresh temporary path beside ``target``: ``TMP_PREFIX<pid>-<random>-<name>``.

    The name ends with the target's name, so its suffix (``.png``, ...) is the target's.
    """
    return target.parent / f"{TMP_PREFIX}{os.getpid()}-{secrets.token_hex(4)}-{target.name}"


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
        return bool(_PDF_CREATOR.search(head) or _PDF_CREATOR.search(tail))
    text_head = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text_head.startswith(b"["):  # an INI-style XG .met
        return bool(_XG_COMMENT.search(head))
    if text_head.startswith(b"<"):
        if b"<svg" in head:
            return bool(_SVG_CREATOR.search(head))
        if b"<met" in head:
            return bool(_XML_COMMENT.search(head))
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
    tmp = tmp_name(final)
    os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))  # umask applies
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        if final.is_dir():  # appeared while writing
            _refuse(final, what, force, is_ours)
        os.replace(tmp, final)
        fsync_dir(final.parent)
    except BaseException as exc:
        try:
            tmp.unlink()
        except FileNotFoundError:
            pass
        if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise InsufficientSpaceError(
                f"writing the {what} {final}: the disk holding {final.parent} is full "
                f"({exc.strerror or exc}); nothing was changed"
            ) from None
        raise


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


def never_ours(path: Path) -> bool:
    """``is_ours`` for formats with no marker (CSV, JSON, text): always False."""
    return False
