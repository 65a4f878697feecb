"""Match file formats: one module per format, each a reader and a writer of
:class:`~mathbg.rules.record.MatchRecord`.

- :mod:`~mathbg.rules.formats.mat`: Jellyfish/gnubg ``.mat`` text and its dialects.
- :mod:`~mathbg.rules.formats.sgf`: gnubg's ``.sgf`` (Smart Game Format, game 6).

:func:`detect` tells the format from the contents (the extension is only a hint);
:func:`read_source` reads a path or a text; :func:`writer` gives the writer of a format.
XG's binary ``.xg`` is not read this round (see the documentation).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from mathbg.errors import InvalidParameterError, MatchFileError

if TYPE_CHECKING:  # pragma: no cover
    from mathbg.rules.record import MatchRecord

__all__ = [
    "FORMATS",
    "detect",
    "format_for_path",
    "read_source",
    "read_text",
    "writer",
    "written_by_mathbg",
]

#: Formats mathbg reads and writes, with the file extensions that name them.
FORMATS: dict[str, tuple[str, ...]] = {"mat": (".mat", ".txt", ".gam"), "sgf": (".sgf",)}

#: Largest match file read (bytes): real ones are well under a megabyte.
MAX_BYTES = 64 * 1024 * 1024

_MAT_LENGTH = re.compile(r"^\s*\d+\s+point\s+match\s*$", re.IGNORECASE | re.MULTILINE)
_MAT_GAME = re.compile(r"^\s*Game\s+\d+\s*$", re.MULTILINE)


def detect(text: str) -> str | None:
    """The format of a match file's text (``"mat"`` or ``"sgf"``), None if neither."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("(") and re.match(r"\(\s*;", head):
        return "sgf"
    if _MAT_LENGTH.search(text) or _MAT_GAME.search(text):
        return "mat"
    return None


def format_for_path(path: str | os.PathLike[str]) -> str:
    """The format an output file name asks for (by its extension).

    Raises
    ------
    InvalidParameterError
        For an extension that names no format mathbg writes.
    """
    suffix = Path(path).suffix.lower()
    for name, exts in FORMATS.items():
        if suffix in exts:
            return name
    known = ", ".join(e for exts in FORMATS.values() for e in exts)
    raise InvalidParameterError(
        f"{os.fspath(path)}: cannot tell the match file format from {suffix or 'no extension'!r}"
        f" (use one of {known}, or say the format)"
    )


def _decode(data: bytes, name: str) -> str:
    if data[:4] == b"RGMH":
        raise MatchFileError(
            "an eXtreme Gammon binary match (.xg): mathbg does not read these yet; export the "
            "match from XG as a .mat text file", name, None)
    if b"\x00" in data[:65536]:
        raise MatchFileError("a binary file, not a match file (.mat or .sgf text)", name, None)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # older .mat files are ISO-8859-1


def read_source(
    source: str | os.PathLike[str] | bytes, *, format: str | None = None, check: bool = True
) -> MatchRecord:
    """Read a match from a path, a text (a ``str`` holding a newline) or bytes."""
    if isinstance(source, bytes):
        return read_text(_decode(source, "<bytes>"), format=format, check=check, name="<bytes>")
    if isinstance(source, str) and ("\n" in source or "\r" in source):
        return read_text(source, format=format, check=check)
    path = Path(source)
    name = os.fspath(source)
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            raise MatchFileError(f"{size} bytes: too large for a match file", name, None)
        data = path.read_bytes()
    except IsADirectoryError:
        raise MatchFileError("a directory, not a match file", name, None) from None
    except OSError as exc:
        raise MatchFileError(f"cannot read: {exc.strerror or exc}", name, None) from None
    return read_text(_decode(data, name), format=format, check=check, name=name)


def read_text(
    text: str, *, format: str | None = None, check: bool = True, name: str | None = None
) -> MatchRecord:
    """Read a match from its text (format detected unless given)."""
    fmt = format or detect(text)
    if fmt is None:
        first = next((i for i, ln in enumerate(text.splitlines(), 1) if ln.strip()), None)
        raise MatchFileError(
            "not a match file (no 'N point match' line of a .mat file, no SGF game tree)",
            name, first)
    if fmt == "mat":
        from mathbg.rules.formats import mat

        return mat.read(text, name=name, check=check)
    if fmt == "sgf":
        from mathbg.rules.formats import sgf

        return sgf.read(text, name=name, check=check)
    raise InvalidParameterError(f"unknown match file format {fmt!r} (mat or sgf)")


def writer(format: str) -> Callable[[MatchRecord], str]:
    """The function writing a record as ``format`` text (``"mat"`` or ``"sgf"``)."""
    if format == "mat":
        from mathbg.rules.formats import mat

        return mat.dumps
    if format == "sgf":
        from mathbg.rules.formats import sgf

        return sgf.dumps
    raise InvalidParameterError(f"mathbg writes match files as mat or sgf, not {format!r}")


def written_by_mathbg(path: Path) -> bool:
    """Did mathbg write this match file? (a ``.mat`` file's first line ``; written by
    mathbg ...``, an ``.sgf`` file's ``AP[mathbg:...]``)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    return head.startswith(b"; written by mathbg ") or (
        head.startswith(b"(;") and b"AP[mathbg:" in head
    )
