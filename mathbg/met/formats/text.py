"""Text for people, CSV and mathbg's JSON: the plain MET formats.

``csv``
    Write only: a clean matrix, the pre-Crawford table (column ``away``, then opponent
    aways 1..N; 1-away entries are Crawford-game values). :func:`mathbg.met.formats.write`
    puts the post-Crawford vectors beside it in ``NAME.post-crawford.csv``
    (``away,player_0,player_1``; format ``csv-post-crawford``).

CSV and JSON, read by people and spreadsheets, carry 15 significant digits (no float noise
such as ``0.6950000000000001``) unless ``decimals`` rounds them.

``json``
    ``{name, length, model, source, parameters, pre, post[, post_player1]}``, as
    :meth:`mathbg.met.MET.to_dict`; read and written.

``table``
    Write only: percentages for people (:func:`format_text`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from mathbg.errors import METFormatError
from mathbg.met.formats.common import (
    where_prefix,
)
from mathbg.met.table import MET

__all__ = [
    "format_csv",
    "format_json",
    "format_post_crawford_csv",
    "format_text",
    "parse_json",
    "post_crawford_csv_path",
]


def format_csv(met: MET, *, decimals: int | None = None) -> str:
    """The pre-Crawford table as a clean CSV matrix (nothing else in the file).

    Header ``away,1,..,N``; row ``a``: player 0's MWC at a-away vs 1..N-away. Row and
    column 1 hold the Crawford-game values, as in :meth:`MET.to_frame`; the post-Crawford
    vectors are in their own CSV (:func:`format_post_crawford_csv`). Numbers without float
    noise (15 significant digits) unless ``decimals`` rounds them.

    Parameters
    ----------
    met : MET
        The table; only its pre-Crawford matrix is written.
    decimals : int, optional
        Round the numbers to this many places (default: 15 significant digits).

    Returns
    -------
    str
        The CSV text: the header, then one line per away score of the player.

    Examples
    --------
    >>> from mathbg.met import load
    >>> print(format_csv(load("kazaross-xg2", length=2)))
    away,1,2
    1,0.5,0.67736
    2,0.32264,0.5
    <BLANKLINE>
    """
    from mathbg._output import format_number as cell

    n = met.length
    lines = ["away," + ",".join(str(b) for b in range(1, n + 1))]
    for a, row in enumerate(met.pre, start=1):
        lines.append(f"{a}," + ",".join(cell(x, decimals) for x in row))
    return "\n".join(lines) + "\n"


def format_post_crawford_csv(met: MET, *, decimals: int | None = None) -> str:
    """The post-Crawford vectors as CSV: ``away,player_0,player_1``, one row per n-away.

    Row ``n``: each player's MWC at n-away against the other at 1-away after the Crawford
    game (:meth:`MET.post_frame`). :func:`mathbg.met.formats.write` puts it beside the
    matrix CSV as ``NAME.post-crawford.csv``.

    Parameters
    ----------
    met : MET
        The table; only its two post-Crawford vectors are written.
    decimals : int, optional
        Round the numbers to this many places (default: 15 significant digits).

    Returns
    -------
    str
        The CSV text, a header line and a line per trailer's away score.

    Examples
    --------
    >>> from mathbg.met import load
    >>> print(format_post_crawford_csv(load("kazaross-xg2", length=2)))
    away,player_0,player_1
    1,0.5,0.5
    2,0.48803,0.48803
    <BLANKLINE>
    """
    from mathbg._output import format_number as cell

    lines = ["away,player_0,player_1"]
    for n, (p0, p1) in enumerate(zip(met.post[0], met.post[1], strict=True), start=1):
        lines.append(f"{n},{cell(p0, decimals)},{cell(p1, decimals)}")
    return "\n".join(lines) + "\n"


def post_crawford_csv_path(path: str | Path) -> Path:
    """Where :func:`mathbg.met.formats.write` puts the post-Crawford CSV of ``path``.

    Parameters
    ----------
    path : str or Path
        The matrix CSV.

    Returns
    -------
    Path
        ``NAME.post-crawford.csv`` beside it.

    Examples
    --------
    >>> post_crawford_csv_path("tables/kxg2.csv").as_posix()
    'tables/kxg2.post-crawford.csv'
    """
    p = Path(path)
    return p.with_name(p.stem + ".post-crawford.csv")


def format_json(met: MET, *, indent: int | None = None, decimals: int | None = None) -> str:
    """JSON text of :meth:`MET.to_dict` (15 significant digits: no float noise; or rounded
    to ``decimals`` places).

    Parameters
    ----------
    met : MET
        The table, error bars and metadata included.
    indent : int, optional
        JSON indentation.
    decimals : int, optional
        Round the numbers to this many places (default: 15 significant digits).

    Returns
    -------
    str
        One JSON object and a newline.

    Examples
    --------
    >>> from mathbg.met import load
    >>> parse_json(format_json(load("kazaross-xg2", length=2))).name
    'kazaross-xg2'
    """
    from mathbg._output import dumps

    return dumps(met.to_dict(), indent=indent, decimals=decimals) + "\n"


def parse_json(data: bytes | str, *, length: int | None = None, path: Path | None = None) -> MET:
    """Parse the JSON written by :func:`format_json`.

    Parameters
    ----------
    data : bytes or str
        The JSON document (bytes or text).
    length : int, optional
        Extend (Montgomery) or cut the table to this length (default: the document's).
    path : Path, optional
        The file the document came from: named in error messages, its stem the table's
        name when the document names none.

    Returns
    -------
    MET
        The table :meth:`MET.to_dict` wrote, error bars and metadata included.

    Raises
    ------
    METFormatError
        For malformed JSON, a missing ``pre`` or ``post``, or a ``length`` that differs from
        the table's size.

    Examples
    --------
    >>> t = parse_json('{"name": "tiny", "pre": [[0.5, 0.7], [0.3, 0.5]], "post": [0.5, 0.49]}')
    >>> t.name, t.length, t.post.tolist()  # one "post" vector: both players'
    ('tiny', 2, [[0.5, 0.49], [0.5, 0.49]])
    """
    where = where_prefix(path)
    from mathbg._validate import check_depth

    check_depth(data, f"{where}JSON" if where else "JSON")
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise METFormatError(f"{where}malformed JSON: {exc}") from None
    if not isinstance(obj, dict) or "pre" not in obj or "post" not in obj:
        raise METFormatError(f"{where}JSON MET needs an object with 'pre' and 'post'")
    try:
        pre = np.array(obj["pre"], dtype=np.float64)
        post0 = np.array(obj["post"], dtype=np.float64)
        post1 = np.array(obj.get("post_player1", obj["post"]), dtype=np.float64)
        met = MET(
            pre=pre,
            post=np.vstack([post0, post1]),
            name=str(obj.get("name", path.stem if path else "json")),
            source=str(obj.get("source", "")),
            parameters=obj.get("parameters") or {},
            model=str(obj.get("model", "explicit")),
            **_measured(obj),
        )
    except (ValueError, TypeError) as exc:
        raise METFormatError(f"{where}invalid JSON MET: {exc}") from None
    if obj.get("length") not in (None, met.length):
        raise METFormatError(f"{where}'length' {obj['length']} differs from the table size")
    if length is not None and length != met.length:
        met = met.extend(length)
    return met


def _measured(obj: dict[str, Any]) -> dict[str, Any]:
    """A measured table's error bars, game counts and metadata (null: exact, NaN)."""
    out: dict[str, Any] = {}

    def cells(row: Any) -> list[float]:
        return [np.nan if v is None else v for v in row]

    for key in ("stderr", "games"):
        if obj.get(key) is not None:
            out[key] = np.array([cells(row) for row in obj[key]], dtype=np.float64)
    for key in ("post_stderr", "post_games"):  # shaped as post (player 1's beside it)
        if obj.get(key) is not None:
            row0 = cells(obj[key])
            out[key] = np.array([row0, cells(obj.get(f"{key}_player1", row0))], dtype=np.float64)
    if isinstance(obj.get("metadata"), dict):
        out["metadata"] = obj["metadata"]
    return out


def format_text(met: MET, *, decimals: int = 1) -> str:
    """Human-readable table in percent: rows player 0 away, columns opponent away.

    Parameters
    ----------
    met : MET
        The table; its name, source and parameters head the text.
    decimals : int, optional
        Decimals of the percentages.

    Returns
    -------
    str
        Lines of percentages: the pre-Crawford table, then the post-Crawford vector(s).

    Examples
    --------
    >>> from mathbg.met import load
    >>> print(format_text(load("kazaross-xg2", length=2)).splitlines()[4])
        1  50.0  67.7
    """
    n = met.length
    width = max(decimals + 5, len(str(n)) + 2)
    head = f"{met.name}: {met.title or met.description or met.model}"
    lines = [head]
    if met.source:
        lines.append(f"source: {met.source}")
    if met.parameters:
        lines.append("parameters: " + ", ".join(f"{k}={v:g}" for k, v in met.parameters.items()))
    lines.append(
        "MWC % of the row player (away) vs the column player (away); "
        "1-away rows/columns are Crawford games"
    )
    label = "away"
    lines.append(f"{label:>5}" + "".join(f"{b:>{width}}" for b in range(1, n + 1)))
    for a, row in enumerate(met.pre, start=1):
        lines.append(f"{a:>5}" + "".join(f"{100 * x:>{width}.{decimals}f}" for x in row))
    lines.append("")
    lines.append("post-Crawford: trailer MWC % at n-away vs 1-away")
    lines.append(f"{'n':>5}" + "".join(f"{b:>{width}}" for b in range(1, n + 1)))
    players = (0,) if np.array_equal(met.post[0], met.post[1]) else (0, 1)
    for p in players:
        tag = "pc" if len(players) == 1 else f"pc{p}"
        lines.append(f"{tag:>5}" + "".join(f"{100 * x:>{width}.{decimals}f}" for x in met.post[p]))
    return "\n".join(lines) + "\n"
