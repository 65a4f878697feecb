"""eXtreme Gammon's ``.met`` match equity tables, read and written.

eXtreme Gammon's ``.met`` (INI-like): ``[Current]`` ``Name=``, ``Version=``,
``Description=``, ``Copyright=``; ``[PostCrawford]`` ``Size=N`` and ``Data=`` (trailer at
n-away vs 1-away, n = 1..N); ``[PreCrawford]`` ``Size=N`` and lines ``i=...`` (row i =
i-away). One post-Crawford vector only (equal players). Written in cp1252 with CRLF.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from mathbg.errors import METFormatError
from mathbg.met._core import MAX_LENGTH
from mathbg.met.formats.common import (
    describe,
    fit_post_crawford,
    format_number,
    parse_probability,
    where_prefix,
)
from mathbg.met.table import MET

__all__ = ["format_xg", "parse_xg"]

_XG_ROW = re.compile(r"^\s*(\d+)\s*=(.*)$")


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def parse_xg(data: bytes | str, *, length: int | None = None, path: Path | None = None) -> MET:
    """Parse an eXtreme Gammon ``.met`` file (bytes or text); see :func:`read`.

    Parameters
    ----------
    data : bytes or str
        The ``.met`` text (bytes: UTF-8, else cp1252 as XG writes it).
    length : int, optional
        Extend (Montgomery) or cut the table to this length (default: ``[PreCrawford]``
        ``Size``).
    path : Path, optional
        The file the text came from: named in error messages, its stem the table's name.

    Returns
    -------
    MET
        The table, a short ``[PostCrawford]`` vector continued by Zadeh's recurrence.

    Raises
    ------
    METFormatError
        For a missing section, size or row, or a value that is not a probability (the
        message names the section and line).

    Examples
    --------
    >>> text = '''[PostCrawford]
    ... Size=2
    ... Data=0.5 0.48803
    ... [PreCrawford]
    ... Size=2
    ... 1=0.5 0.67736
    ... 2=0.32264 0.5
    ... '''
    >>> parse_xg(text).pre.tolist()
    [[0.5, 0.67736], [0.32264, 0.5]]
    """
    where = where_prefix(path)
    text = _decode(data) if isinstance(data, bytes) else data
    sections: dict[str, dict[str, str]] = {}
    rows: dict[int, str] = {}
    current: str | None = None
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            current = stripped[1:-1].strip().lower()
            sections.setdefault(current, {})
            continue
        if current is None:
            raise METFormatError(f"{where}line {lineno}: {stripped[:40]!r} before any [section]")
        if current == "precrawford":
            m = _XG_ROW.match(line)
            if m:
                r = int(m.group(1))
                if r in rows:
                    raise METFormatError(f"{where}[PreCrawford] row {r} is given twice")
                rows[r] = m.group(2)
                continue
        if "=" not in stripped:
            raise METFormatError(f"{where}line {lineno} in [{current}]: expected key=value")
        key, _, value = stripped.partition("=")
        sections[current][key.strip().lower()] = value.strip()
    for sec in ("postcrawford", "precrawford"):
        if sec not in sections:
            name = "PostCrawford" if sec == "postcrawford" else "PreCrawford"
            raise METFormatError(f"{where}missing section [{name}]")

    def size(sec: str, label: str) -> int:
        raw = sections[sec].get("size")
        if raw is None:
            raise METFormatError(f"{where}[{label}] has no Size=")
        try:
            value = int(raw)
        except ValueError:
            raise METFormatError(f"{where}[{label}] Size={raw!r} is not an integer") from None
        if not 1 <= value <= MAX_LENGTH:
            raise METFormatError(f"{where}[{label}] Size={value} must lie in 1..{MAX_LENGTH}")
        return value

    n = size("precrawford", "PreCrawford")
    m_post = size("postcrawford", "PostCrawford")
    data_text = sections["postcrawford"].get("data")
    if data_text is None:
        raise METFormatError(f"{where}[PostCrawford] has no Data=")
    post_vals = [
        parse_probability(tok, f"{where}[PostCrawford] Data value {k}")
        for k, tok in enumerate(data_text.split(), start=1)
    ]
    if len(post_vals) > m_post or not post_vals:
        raise METFormatError(
            f"{where}[PostCrawford] Data has {len(post_vals)} values, Size={m_post}"
        )
    # XG ships a table declaring Size=25 with 24 values: read what is there (the rest is
    # continued below, as for a short Size) and say so in the notes
    short = len(post_vals) < m_post
    if sorted(rows) != list(range(1, n + 1)):
        raise METFormatError(
            f"{where}[PreCrawford] rows are {sorted(rows)[:5]}..., expected 1..{n} (Size={n})"
        )
    pre = np.empty((n, n))
    for r in range(1, n + 1):
        vals = [
            parse_probability(tok, f"{where}[PreCrawford] row {r} value {c}")
            for c, tok in enumerate(rows[r].split(), start=1)
        ]
        if len(vals) != n:
            raise METFormatError(f"{where}[PreCrawford] row {r} has {len(vals)} values, Size={n}")
        pre[r - 1] = vals
    post, extended = fit_post_crawford(post_vals, n)
    cur = sections.get("current", {})
    title = cur.get("name", "")
    met = MET(
        pre=pre,
        post=post,
        name=path.stem if path else (title or "xg"),
        source=cur.get("description", "") or title,
        model="explicit",
        title=title,
        description=cur.get("description", ""),
        notice=cur.get("copyright", ""),
        native_length=n,
        notes=" ".join(
            note
            for note in (
                f"[PostCrawford] declares Size={m_post} but holds {len(post_vals)} values: "
                "the values present are used."
                if short
                else "",
                f"[PostCrawford] has {len(post_vals)} values for length {n}: continued by "
                "Zadeh's recurrence."
                if extended
                else "",
            )
            if note
        ),
    )
    if length is not None and length != n:
        met = met.extend(length)
    return met


def _one_line(text: str) -> str:
    return " ".join(text.split())


def format_xg(met: MET, *, decimals: int | None = None, version: str = "1.0") -> str:
    """The table as an eXtreme Gammon ``.met`` text (CRLF line ends added by :func:`write`).

    XG files hold one post-Crawford vector: tables whose players' vectors differ raise
    :class:`~mathbg.errors.METFormatError`.

    Parameters
    ----------
    met : MET
        The table to write: both players' post-Crawford vectors must be equal.
    decimals : int, optional
        Round the numbers to this many places (default: 15 significant digits).
    version : str, optional
        The XG file version written in the header.

    Returns
    -------
    str
        The ``.met`` text: ``[Current]``, ``[Version]``, ``[PostCrawford]``, ``[PreCrawford]``.

    Raises
    ------
    METFormatError
        For a table whose players' post-Crawford vectors differ.

    Examples
    --------
    >>> from mathbg.met import load
    >>> text = format_xg(load("kazaross-xg2", length=2))
    >>> text.splitlines()[-3:]
    ['Size=2', '1=0.5 0.67736', '2=0.32264 0.5']
    >>> parse_xg(text).pre.tolist()  # read back
    [[0.5, 0.67736], [0.32264, 0.5]]
    """
    if not np.array_equal(met.post[0], met.post[1]):
        raise METFormatError(
            f"XG .met holds one post-Crawford vector; {met.name!r} has different vectors "
            "for the two players (unequal-skill table)"
        )
    notice = met.notice.strip().splitlines()[0] if met.notice.strip() else ""
    n = met.length
    name, description = describe(met)
    lines = [
        "[Current]",
        f"Name={_one_line(name)}",
        f"Version={version}",
        f"Description={_one_line(description)}",
        f"Copyright={_one_line(notice)}",
        "",
        "[Version]",
        f"Current={version}",
        "",
        "[PostCrawford]",
        f"Size={n}",
        "Data=" + " ".join(format_number(x, decimals) for x in met.post[0]),
        "",
        "[PreCrawford]",
        f"Size={n}",
    ]
    width = len(str(n))
    for r, row in enumerate(met.pre, start=1):
        lines.append(f"{r:>{width}}=" + " ".join(format_number(x, decimals) for x in row))
    return "\n".join(lines) + "\n"
