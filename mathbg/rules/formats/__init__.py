"""Match files: reading and writing :class:`~mathbg.rules.record.MatchRecord`, one module
per format.

- :mod:`~mathbg.rules.formats.mat`: Jellyfish/gnubg ``.mat`` text and its dialects.
- :mod:`~mathbg.rules.formats.sgf`: gnubg's ``.sgf`` (Smart Game Format, game 6).
- :mod:`~mathbg.rules.formats.fields`: what both hold by the same rules (bounded numbers,
  names and tags, gnubg's variation names).

:func:`read_match` reads a path, a text or bytes (the format told from the contents:
:func:`detect`); :func:`render_match` gives a record's text in a format;
:func:`write_match` writes it to a file (the format from the file name:
:func:`format_for_path`). The record classes know no format: the formats sit above them.
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
    "MAX_BYTES",
    "detect",
    "format_for_path",
    "read_match",
    "render_match",
    "write_match",
]

#: Formats mathbg reads and writes, with the file extensions that name them.
FORMATS: dict[str, tuple[str, ...]] = {"mat": (".mat", ".txt", ".gam"), "sgf": (".sgf",)}

#: Largest match file read (bytes): real ones are well under a megabyte.
MAX_BYTES = 64 * 1024 * 1024

# [ \t] and not \s: a pattern that could run over line breaks would scan every run of blank
# lines once per line (quadratic in a file of blank lines)
_MAT_LENGTH = re.compile(r"^[ \t]*[+-]?[0-9]+[ \t]+point[ \t]+match[ \t]*\r?$",
                         re.IGNORECASE | re.MULTILINE)
_MAT_GAME = re.compile(r"^[ \t]*Game[ \t]+[0-9]+[ \t]*\r?$", re.MULTILINE)


def detect(text: str) -> str | None:
    """The format of a match file's text (``"mat"`` or ``"sgf"``), None if neither.

    Examples
    --------
    >>> detect("(;FF[4]GM[6]MI[length:3])"), detect(" 3 point match\\n"), detect("hello")
    ('sgf', 'mat', None)
    """
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("(") and re.match(r"\(\s*[;(]", head):
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

    Examples
    --------
    >>> format_for_path("match.sgf"), format_for_path("match.txt")
    ('sgf', 'mat')
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


def _read_file(path: str | os.PathLike[str]) -> tuple[str, str]:
    """The text and the name of the match file at ``path``."""
    name = os.fspath(path)
    if len(name) > 1024:
        name = name[:1021] + "..."  # a message stays readable
    try:
        p = Path(path)
        size = p.stat().st_size
        if size > MAX_BYTES:
            raise MatchFileError(f"{size} bytes: too large for a match file", name, None)
        with open(p, "rb") as fh:
            data = fh.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise MatchFileError("a directory, not a match file", name, None) from None
    except OSError as exc:
        raise MatchFileError(f"cannot read: {exc.strerror or exc}", name, None) from None
    except ValueError as exc:  # a NUL byte in the path
        raise MatchFileError(f"not a file name ({exc})", repr(name)[:80], None) from None
    if len(data) > MAX_BYTES:
        raise MatchFileError("too large for a match file (it grew while read)", name, None)
    return _decode(data, name), name


def read_match(
    source: str | os.PathLike[str] | bytes,
    *,
    format: str | None = None,
    check: bool = True,
    name: str | None = None,
) -> MatchRecord:
    """Read a match file (``.mat`` in all its dialects, or gnubg ``.sgf``).

    Parameters
    ----------
    source : path, str or bytes
        A file path, or the file's contents (a ``str`` holding a newline, or ``bytes``).
    format : str, optional
        ``"mat"`` or ``"sgf"``; detected from the contents by default.
    check : bool
        Replay the match to check every play and result (default).
    name : str, optional
        The name messages give the file (default: the path; ``<bytes>`` or ``<match>``
        for contents).

    Raises
    ------
    MatchFileError
        For a file that is not a match, is truncated, binary, holds an unknown line, a
        number out of its range (a match length above 64, a score past the length, a cube
        value that is not a power of two), a score contradicting the results before it, a
        result in the middle of a game, a match that contradicts its own length, or
        (with ``check``) an illegal play: one line naming the file and the line.

    Examples
    --------
    >>> from mathbg.rules.formats.example import EXAMPLE_MAT
    >>> record = read_match(EXAMPLE_MAT)
    >>> record.length, record.players, record.final_score
    (3, ('Ann Lee', 'Bob'), (2, 1))
    """
    if isinstance(source, bytes):
        label = name or "<bytes>"
        text = _decode(source, label)
    elif isinstance(source, str) and ("\n" in source or "\r" in source):
        text, label = source, name or "<match>"
    else:
        text, path_name = _read_file(source)
        label = name or path_name
    return _parse(text, format=format, check=check, name=label)


def _parse(text: str, *, format: str | None, check: bool, name: str) -> MatchRecord:
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


def _renderer(format: str) -> Callable[[MatchRecord], str]:
    if format == "mat":
        from mathbg.rules.formats import mat

        return mat.render
    if format == "sgf":
        from mathbg.rules.formats import sgf

        return sgf.render
    raise InvalidParameterError(f"mathbg writes match files as mat or sgf, not {format!r}")


def render_match(record: MatchRecord, format: str = "mat") -> str:
    """The text of ``record`` as a ``format`` file (``"mat"``: gnubg's export style, or
    ``"sgf"``); :func:`read_match` reads it back to the same record.

    Raises
    ------
    InvalidParameterError
        For a format mathbg does not write, or a record the format cannot hold (a
        player's name with a colon in a ``.mat`` file, ...).

    Examples
    --------
    >>> from mathbg.rules.formats.example import example_match
    >>> text = render_match(example_match(), "sgf")
    >>> text.startswith("(;FF[4]GM[6]"), read_match(text) == example_match()
    (True, True)
    """
    return _renderer(format)(record)


def write_match(
    record: MatchRecord,
    path: str | os.PathLike[str],
    format: str | None = None,
    *,
    force: bool = False,
) -> Path:
    """Write ``record`` to ``path`` as ``format`` (default: from the file name's extension,
    ``.mat``/``.txt`` or ``.sgf``). Returns the path written.

    The file is written beside the target and renamed into place (a failure leaves the
    target as it was). An existing file is replaced only when mathbg wrote it (its
    ``; written by mathbg`` line or ``AP[mathbg...]``), or with ``force``.

    Raises
    ------
    InvalidParameterError
        For a format mathbg cannot write (or an extension that names none).
    TargetExistsError
        The target exists and mathbg did not write it (without ``force``).
    """
    from mathbg._files import write_output, written_by_mathbg

    target = Path(path)
    fmt = format or format_for_path(target)
    text = render_match(record, fmt)
    return write_output(target, text, what=f".{fmt} match file", force=force,
                        is_ours=written_by_mathbg)
