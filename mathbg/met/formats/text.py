"""Text for people, CSV and mathbg's JSON: the plain MET formats.

``csv``
    Write only: the pre-Crawford matrix (column ``away``, then opponent aways 1..N) and a
    row ``post-crawford`` (player 0's vector; ``post-crawford-1`` for player 1 when it
    differs).
``json``
    ``{name, length, model, source, parameters, pre, post[, post_player1]}``, as
    :meth:`mathbg.met.MET.to_dict`; read and written.

``table``
    Write only: percentages for people (:func:`format_text`).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from mathbg.errors import METFormatError
from mathbg.met.formats.common import (
    format_number,
    where_prefix,
)
from mathbg.met.table import MET

__all__ = ["format_csv", "format_json", "format_text", "parse_json"]


def format_csv(met: MET, *, decimals: int | None = None) -> str:
    """Pre-Crawford matrix as CSV, then the post-Crawford row(s)."""
    n = met.length
    lines = ["away," + ",".join(str(b) for b in range(1, n + 1))]
    for a, row in enumerate(met.pre, start=1):
        lines.append(f"{a}," + ",".join(format_number(x, decimals) for x in row))
    lines.append("post-crawford," + ",".join(format_number(x, decimals) for x in met.post[0]))
    if not np.array_equal(met.post[0], met.post[1]):
        lines.append("post-crawford-1," + ",".join(format_number(x, decimals) for x in met.post[1]))
    return "\n".join(lines) + "\n"


def format_json(met: MET, *, indent: int | None = None) -> str:
    """JSON text of :meth:`MET.to_dict` (floats exact)."""
    return json.dumps(met.to_dict(), indent=indent) + "\n"


def parse_json(data: bytes | str, *, length: int | None = None, path: Path | None = None) -> MET:
    """Parse the JSON written by :func:`format_json`."""
    where = where_prefix(path)
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
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
        )
    except (ValueError, TypeError) as exc:
        raise METFormatError(f"{where}invalid JSON MET: {exc}") from None
    if obj.get("length") not in (None, met.length):
        raise METFormatError(f"{where}'length' {obj['length']} differs from the table size")
    if length is not None and length != met.length:
        met = met.extend(length)
    return met


def format_text(met: MET, *, decimals: int = 1) -> str:
    """Human-readable table in percent: rows player 0 away, columns opponent away."""
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
