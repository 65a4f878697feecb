"""Match equity table files: one module per format and one read/write dispatch.

- :mod:`~mathbg.met.formats.gnubg_xml`: gnubg's MET XML (read, write; explicit and
  parametric tables).
- :mod:`~mathbg.met.formats.xg`: eXtreme Gammon's ``.met`` (read, write).
- :mod:`~mathbg.met.formats.text`: CSV (write), JSON (read, write) and text for people.

:func:`read` sniffs the format from the content, :func:`write` picks it from the suffix
(``.xml`` gnubg-xml, ``.met`` xg, ``.csv``, ``.json``, ``.txt`` table), :func:`render`
returns the text. Numbers are written with Python's shortest round-trip representation
unless ``decimals`` is given, so write-then-read returns the same float64 values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mathbg.errors import InvalidScoreError, METFormatError
from mathbg.met._core import MAX_LENGTH
from mathbg.met.formats.gnubg_xml import format_gnubg_xml, parse_gnubg_xml
from mathbg.met.formats.text import (
    format_csv,
    format_json,
    format_post_crawford_csv,
    format_text,
    parse_json,
    post_crawford_csv_path,
)
from mathbg.met.formats.xg import format_xg, parse_xg
from mathbg.met.table import MET

__all__ = [
    "FORMATS",
    "format_csv",
    "format_gnubg_xml",
    "format_json",
    "format_post_crawford_csv",
    "format_text",
    "format_xg",
    "parse_gnubg_xml",
    "parse_json",
    "parse_xg",
    "post_crawford_csv_path",
    "read",
    "render",
    "write",
]

#: Output formats understood by :func:`write` (and the CLI); ``table`` is text for humans.
FORMATS = ("table", "csv", "csv-post-crawford", "json", "gnubg-xml", "xg")

#: The writer of each of :data:`FORMATS` (one table serves :func:`render`).
_RENDERERS: dict[str, Callable[..., str]] = {
    "table": format_text,
    "csv": format_csv,
    "csv-post-crawford": format_post_crawford_csv,
    "json": format_json,
    "gnubg-xml": format_gnubg_xml,
    "xg": format_xg,
}
#: The reader of each file format :func:`read` knows.
_PARSERS: dict[str, Callable[..., MET]] = {
    "gnubg-xml": parse_gnubg_xml,
    "xg": parse_xg,
    "json": parse_json,
}

_SUFFIX_FORMAT = {
    ".xml": "gnubg-xml",
    ".met": "xg",
    ".csv": "csv",
    ".json": "json",
    ".txt": "table",
}


def _sniff(data: bytes) -> str:
    head = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:200]
    if head.startswith(b"<"):
        return "gnubg-xml"
    if head.startswith(b"{"):
        return "json"
    if re.search(rb"\[\s*(current|postcrawford|precrawford)\s*\]", data[:4000], re.I):
        return "xg"
    raise METFormatError("cannot tell the file format: expected gnubg MET XML, XG .met or JSON")


def read(path: str | Path, *, length: int | None = None, format: str | None = None) -> MET:
    """Read a MET file: gnubg MET XML, XG ``.met`` or mathbg JSON (format sniffed from content).

    Parameters
    ----------
    path : str or Path
        File to read.
    length : int, optional
        Extend (Montgomery) or cut the table to this length; for parametric gnubg tables
        (``<length>-1</length>``) the length to compute (default 25).
    format : {"gnubg-xml", "xg", "json"}, optional
        Skip format detection.

    Raises
    ------
    METFormatError
        The file is malformed; the message names the element, section or line.
    FileNotFoundError
        No such file.

    Returns
    -------
    MET
        The file's table (at ``length`` points when given).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from mathbg.met import load
    >>> path = write(load("mec26"), pathlib.Path(tempfile.mkdtemp(), "mec26.json"))
    >>> read(path).name
    'mec26'
    """
    from mathbg._validate import read_bounded

    p = Path(path)
    data = read_bounded(p)  # stops at the document limit (a huge file is never read whole)
    kind = format or _sniff(data)
    if length is not None and (
        isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= MAX_LENGTH
    ):
        raise InvalidScoreError(f"length must be an integer in 1..{MAX_LENGTH}, got {length!r}")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is not None:
        return parser(data, length=length, path=p)
    raise METFormatError(f"unknown MET file format {kind!r}: use gnubg-xml, xg or json")


def render(met: MET, format: str = "table", **options: Any) -> str:
    """The table as text in ``format`` (one of :data:`FORMATS`).

    Parameters
    ----------
    met : MET
        The table.
    format : str, optional
        One of :data:`FORMATS`.
    **options
        Formatter options (``decimals``, ...).

    Returns
    -------
    str
        What :func:`write` would put in a file of that format (with ``\n`` line ends).

    Raises
    ------
    METFormatError
        For an unknown format.

    Examples
    --------
    >>> from mathbg.met import load
    >>> print(render(load("kazaross-xg2", length=2), "csv"))
    away,1,2
    1,0.5,0.67736
    2,0.32264,0.5
    <BLANKLINE>
    """
    renderer = _RENDERERS.get(format) if isinstance(format, str) else None
    if renderer is not None:
        return renderer(met, **options)
    raise METFormatError(f"unknown MET format {format!r}; formats: {', '.join(FORMATS)}")


def write(
    met: MET, path: str | Path, format: str | None = None, *, force: bool = False, **options: Any
) -> Path:
    """Write ``met`` to ``path`` in ``format`` (default from the suffix: .xml gnubg-xml,
    .met xg, .csv, .json, .txt table). ``options`` go to the formatter (``decimals``,
    ``parametric``, ``post_length``, ...). Returns the path.

    The write is atomic and never replaces a file mathbg did not write unless ``force``
    (:mod:`mathbg._files`): a gnubg XML file is recognised by mathbg's header comment, an
    XG ``.met`` by its comment line ``; written by mathbg ...``; CSV, JSON and text files
    carry no marker, so an existing one is refused without ``force``. A CSV matrix also
    writes ``NAME.post-crawford.csv``; both targets are checked before either is written.

    Raises
    ------
    mathbg.errors.TargetExistsError
        A target exists and mathbg did not write it (and ``force`` is false), or is a
        directory.

    Parameters
    ----------
    met : MET
        The table.
    path : str or Path
        The target file.
    format : str, optional
        One of :data:`FORMATS` (default from the suffix).
    force : bool, optional
        Replace a file mathbg did not write.
    **options
        Formatter options.

    Returns
    -------
    Path
        The path written.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from mathbg.met import load
    >>> write(load("mec26"), pathlib.Path(tempfile.mkdtemp(), "t.met")).suffix
    '.met'
    """
    from mathbg._files import (
        never_ours,
        output_file,
        write_output,
        written_by_mathbg,
        xg_marker_line,
    )

    p = Path(path)
    kind = format or _SUFFIX_FORMAT.get(p.suffix.lower())
    if kind is None:
        raise METFormatError(
            f"cannot tell the format from the suffix {p.suffix!r}; pass format= one of "
            f"{', '.join(FORMATS)}"
        )
    text = render(met, kind, **options)
    marked = kind in ("gnubg-xml", "xg")
    if kind == "csv":  # a clean matrix; the post-Crawford vectors in their own file
        post = post_crawford_csv_path(p)
        post_text = format_post_crawford_csv(met, **options)
        with output_file(p, what="MET file", force=force, is_ours=never_ours) as tmp:
            write_output(post, post_text, what="MET file", force=force, is_ours=never_ours)
            tmp.write_text(text, encoding="utf-8")
        return p
    if kind == "xg":
        first, _, rest = text.partition("\n")  # "[Current]", then the marker comment
        text = f"{first}\n{xg_marker_line()}\n{rest}"
        data = text.replace("\n", "\r\n").encode("cp1252", errors="replace")
        write_output(p, data, what="MET file", force=force)
    else:
        is_ours = written_by_mathbg if marked else never_ours
        write_output(p, text, what="MET file", force=force, is_ours=is_ours)
    return p
