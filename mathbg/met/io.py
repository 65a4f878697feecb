"""Reading and writing match equity table files.

Formats
-------
``gnubg-xml``
    GNU Backgammon's MET XML (``met/met.dtd``): ``<met><info><name/><description/><length/>
    </info><pre-crawford-table type="explicit|zadeh|mec">`` with ``<row>``s of ``<me>`` (row =
    player's away 1..N, column = opponent's away) or ``<parameters><parameter name=...>``,
    then one or two ``<post-crawford-table player="both|0|1">`` with one ``<row>`` (the
    trailer's MWC at n-away vs 1-away, n = 1..) or parameters. ``<length>-1</length>`` marks
    a parametric table with no fixed length. Parsed with :mod:`defusedxml` (no entity
    expansion, no external references); anything malformed raises
    :class:`~mathbg.errors.METFormatError` naming the element.
``xg``
    eXtreme Gammon's ``.met`` (INI-like): ``[Current]`` ``Name=``, ``Version=``,
    ``Description=``, ``Copyright=``; ``[PostCrawford]`` ``Size=N`` and ``Data=`` (trailer at
    n-away vs 1-away, n = 1..N); ``[PreCrawford]`` ``Size=N`` and lines ``i=...`` (row i =
    i-away). One post-Crawford vector only (equal players). Written in cp1252 with CRLF.
``csv``
    Write only: a clean matrix, the pre-Crawford table (column ``away``, then opponent
    aways 1..N; 1-away entries are Crawford-game values). :func:`write` puts the
    post-Crawford vectors beside it in ``NAME.post-crawford.csv`` (``away,player_0,player_1``;
    format ``csv-post-crawford``).
``json``
    ``{name, length, model, source, parameters, pre, post[, post_player1]}``, as
    :meth:`mathbg.met.MET.to_dict`; read and written.

Numbers are written with Python's shortest round-trip representation unless ``decimals`` is
given, so write-then-read returns the same float64 values; CSV and JSON, read by people and
spreadsheets, carry 15 significant digits (no float noise such as ``0.6950000000000001``).

gnubg differences: an explicit table whose post-Crawford row is shorter than its length is
continued by Zadeh's recurrence (gnubg also recomputes the last published entry; mathbg keeps
it), a longer one is cut to the length; parametric tables are computed by mathbg's
:func:`~mathbg.met.zadeh` and :func:`~mathbg.met.mec` (gnubg 1.07 overwrites them with
Montgomery's model when the length is -1, applies ``free-drop-4-away`` with the wrong sign in
mec, and applies a ``player="both"`` parameter block to player 0 only).
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape, quoteattr

import numpy as np

from mathbg.errors import InvalidScoreError, METFormatError
from mathbg.met._core import MAX_LENGTH, continue_post_crawford
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
    "write",
]

#: Output formats understood by :func:`write` (and the CLI); ``table`` is text for humans.
FORMATS = ("table", "csv", "csv-post-crawford", "json", "gnubg-xml", "xg")

_SUFFIX_FORMAT = {
    ".xml": "gnubg-xml",
    ".met": "xg",
    ".csv": "csv",
    ".json": "json",
    ".txt": "table",
}

#: Default length for parametric tables read with ``<length>-1</length>``.
PARAMETRIC_LENGTH = 25

# gnubg parameter names -> mathbg keyword, per (table type, element)
_PRE_PARAMS = {
    "zadeh": {
        "gammon-rate-leader": "doubler_gammon_rate",
        "gammon-rate-trailer": "taker_gammon_rate",
        "delta": "delta",
        "delta-bar": "delta_bar",
        "deltebar": "delta_bar",  # gnubg's getDefaultMET spelling
    },
    "mec": {"gammon-rate": "gammon_rate", "win-rate": "win_rate"},
}
_POST_PARAMS = {
    "zadeh": {
        "gammon-rate-trailer": "post_crawford_gammon_rate",
        "free-drop-2-away": "free_drop_2",
        "free-drop-4-away": "free_drop_4",
    },
    "mec": {
        "gammon-rate": "post_crawford_gammon_rate",
        "win-rate": "win_rate",
        "free-drop-2-away": "free_drop_2",
        "free-drop-4-away": "free_drop_4",
    },
}
# gnubg's defaults for parameters a block leaves out (matchequity.c)
_PRE_DEFAULTS = {
    "zadeh": {
        "doubler_gammon_rate": 0.25,
        "taker_gammon_rate": 0.15,
        "delta": 0.08,
        "delta_bar": 0.06,
    },
    "mec": {"gammon_rate": 0.15, "win_rate": 0.5},
}
_POST_DEFAULTS = {
    "zadeh": {"post_crawford_gammon_rate": 0.25, "free_drop_2": 0.015, "free_drop_4": 0.004},
    "mec": {
        "post_crawford_gammon_rate": 0.25,
        "win_rate": 0.5,
        "free_drop_2": 0.015,
        "free_drop_4": 0.004,
    },
}


# ============================================================================ helpers
def _number(text: str | None, where: str) -> float:
    raw = (text or "").strip()
    try:
        value = float(raw)
    except ValueError:
        raise METFormatError(f"{where}: {raw!r} is not a number") from None
    if not math.isfinite(value):
        raise METFormatError(f"{where}: {raw!r} is not a finite number")
    return value


def _probability(text: str | None, where: str) -> float:
    value = _number(text, where)
    if not 0.0 <= value <= 1.0:
        raise METFormatError(f"{where}: {value!r} is not a probability in [0, 1]")
    return value


def _fmt(x: float, decimals: int | None) -> str:
    return repr(float(x)) if decimals is None else f"{float(x):.{decimals}f}"


def _display(path: Path | None) -> str:
    return f"{path}: " if path is not None else ""


def _extend_post(values: Sequence[float], n: int) -> tuple[np.ndarray, bool]:
    """Post-Crawford vector of length n: truncated, or continued by Zadeh's recurrence."""
    arr = np.asarray(values, dtype=np.float64)
    if len(arr) >= n:
        return arr[:n].copy(), False
    return continue_post_crawford(arr, n), True


# ============================================================================ gnubg XML
class _Builder(ET.TreeBuilder):
    """TreeBuilder that also keeps the document's comments (licence notices)."""

    def __init__(self) -> None:
        super().__init__()
        self.comments: list[str] = []

    def comment(self, text: str) -> None:
        self.comments.append(text)


def _parse_xml(data: bytes, where: str) -> tuple[ET.Element, list[str]]:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import DefusedXMLParser

    builder = _Builder()
    parser = DefusedXMLParser(
        target=builder, forbid_dtd=False, forbid_entities=True, forbid_external=True
    )
    try:
        parser.feed(data)
        root = parser.close()
    except ET.ParseError as exc:
        line, col = getattr(exc, "position", (0, 0))
        lines = data.decode("utf-8", "replace").splitlines()
        snippet = (
            lines[line - 1][max(col - 10, 0) : col + 30].strip() if 0 < line <= len(lines) else ""
        )
        near = f" near {snippet!r}" if snippet else ""
        raise METFormatError(f"{where}malformed XML ({exc}){near}") from None
    except DefusedXmlException as exc:
        name = getattr(exc, "name", None)
        what = f"<!ENTITY {name}>" if name else type(exc).__name__
        raise METFormatError(
            f"{where}forbidden XML construct {what}: entity declarations and external "
            "references are rejected (entity-expansion protection)"
        ) from None
    return root, builder.comments


def _children(elem: ET.Element, allowed: set[str], where: str) -> None:
    for child in elem:
        if not isinstance(child.tag, str):  # comments, processing instructions
            continue
        if child.tag not in allowed:
            raise METFormatError(f"{where}unexpected element <{child.tag}> in <{elem.tag}>")


def _one(elem: ET.Element, tag: str, where: str, required: bool = True) -> ET.Element | None:
    found = elem.findall(tag)
    if len(found) > 1:
        raise METFormatError(f"{where}<{elem.tag}> has {len(found)} <{tag}> elements, expected one")
    if not found:
        if required:
            raise METFormatError(f"{where}<{elem.tag}> has no <{tag}> element")
        return None
    return found[0]


def _table_type(elem: ET.Element, where: str) -> str:
    kind = (elem.get("type") or "explicit").strip()
    if kind not in ("explicit", "zadeh", "mec"):
        raise METFormatError(
            f"{where}<{elem.tag} type={kind!r}>: type must be explicit, zadeh or mec"
        )
    return kind


def _parameters(elem: ET.Element, names: dict[str, str], where: str) -> dict[str, float]:
    block = _one(elem, "parameters", where)
    assert block is not None
    _children(elem, {"parameters"}, where)
    _children(block, {"parameter"}, where)
    out: dict[str, float] = {}
    for param in block.findall("parameter"):
        pname = param.get("name")
        if pname is None:
            raise METFormatError(f"{where}<parameter> without a name attribute in <{elem.tag}>")
        key = names.get(pname)
        if key is None:
            raise METFormatError(
                f"{where}<parameter name={pname!r}> is not a parameter of <{elem.tag} "
                f"type={elem.get('type')!r}> (known: {', '.join(sorted(names))})"
            )
        out[key] = _number(param.text, f"{where}<parameter name={pname!r}>")
    return out


def _rows(elem: ET.Element, where: str) -> list[list[float]]:
    _children(elem, {"row"}, where)
    rows = []
    for r, row in enumerate(elem.findall("row"), start=1):
        _children(row, {"me"}, where)
        rows.append(
            [
                _probability(me.text, f"{where}<me> {c} of <row> {r} in <{elem.tag}>")
                for c, me in enumerate(row.findall("me"), start=1)
            ]
        )
    return rows


def parse_gnubg_xml(
    data: bytes | str,
    *,
    length: int | None = None,
    path: Path | None = None,
) -> MET:
    """Parse gnubg MET XML (bytes or text); see :func:`read`."""
    where = _display(path)
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    root, comments = _parse_xml(raw, where)
    if root.tag != "met":
        raise METFormatError(f"{where}root element is <{root.tag}>, expected <met>")
    _children(root, {"info", "pre-crawford-table", "post-crawford-table"}, where)
    info = _one(root, "info", where)
    assert info is not None
    _children(info, {"name", "description", "length"}, where)
    title_el = _one(info, "name", where, required=False)
    desc_el = _one(info, "description", where, required=False)
    len_el = _one(info, "length", where)
    assert len_el is not None
    title = (title_el.text or "").strip() if title_el is not None else ""
    description = (desc_el.text or "").strip() if desc_el is not None else ""
    len_text = (len_el.text or "").strip()
    try:
        native = int(len_text)
    except ValueError:
        raise METFormatError(f"{where}<length> {len_text!r} is not an integer") from None
    if native != -1 and not 1 <= native <= MAX_LENGTH:
        raise METFormatError(f"{where}<length> {native} must be -1 or lie in 1..{MAX_LENGTH}")

    pre_el = _one(root, "pre-crawford-table", where)
    assert pre_el is not None
    pre_type = _table_type(pre_el, where)
    post_els = root.findall("post-crawford-table")
    if not post_els:
        raise METFormatError(f"{where}<met> has no <post-crawford-table> element")
    players: dict[int, ET.Element] = {}
    for el in post_els:
        who = (el.get("player") or "both").strip()
        if who not in ("both", "0", "1"):
            raise METFormatError(
                f"{where}<post-crawford-table player={who!r}>: player must be both, 0 or 1"
            )
        for p in (0, 1) if who == "both" else (int(who),):
            if p in players:
                raise METFormatError(f"{where}<post-crawford-table> for player {p} is given twice")
            players[p] = el
    if len(players) != 2:
        missing = 1 if 0 in players else 0
        raise METFormatError(f"{where}no <post-crawford-table> for player {missing}")
    post_types = {p: _table_type(el, where) for p, el in players.items()}

    notes: list[str] = []
    if pre_type == "explicit":
        if native == -1:
            raise METFormatError(
                f"{where}<length> -1 (parametric) with an explicit <pre-crawford-table>"
            )
        n = native
        rows = _rows(pre_el, where)
        if len(rows) != n:
            raise METFormatError(
                f"{where}<pre-crawford-table> has {len(rows)} <row> elements, <length> is {n}"
            )
        for r, row in enumerate(rows, start=1):
            if len(row) != n:
                raise METFormatError(
                    f"{where}<row> {r} of <pre-crawford-table> has {len(row)} <me> "
                    f"elements, <length> is {n}"
                )
        pre = np.array(rows, dtype=np.float64)
        post = np.empty((2, n))
        for p in (0, 1):
            el = players[p]
            if post_types[p] == "explicit":
                prow = _rows(el, where)
                if len(prow) != 1:
                    raise METFormatError(
                        f"{where}<post-crawford-table> needs exactly one <row>, has {len(prow)}"
                    )
                if not prow[0]:
                    raise METFormatError(f"{where}<row> of <post-crawford-table> has no <me>")
                post[p], extended = _extend_post(prow[0], n)
                if extended and p == 0:
                    notes.append(
                        f"post-Crawford row has {len(prow[0])} entries for length {n}: "
                        "continued by Zadeh's recurrence (g 0.25, free drops 0.015/0.004)"
                    )
            else:
                post[p] = _parametric_post(el, post_types[p], p, n, where)
        met = MET(
            pre=pre,
            post=post,
            name=path.stem if path else (title or "explicit"),
            source=description or title,
            model="explicit",
            title=title,
            description=description,
            notice=_notice(comments),
            native_length=n,
            notes="; ".join(notes),
        )
        if length is not None and length != n:
            met = met.extend(length)
        return met

    # parametric pre-Crawford table
    if any(t == "explicit" for t in post_types.values()):
        raise METFormatError(
            f"{where}a parametric <pre-crawford-table type={pre_type!r}> with an explicit "
            "<post-crawford-table> is not supported"
        )
    if any(t != pre_type for t in post_types.values()):
        raise METFormatError(
            f"{where}<post-crawford-table> type differs from <pre-crawford-table type={pre_type!r}>"
        )
    n = length if length is not None else (native if native > 0 else PARAMETRIC_LENGTH)
    pre_params = dict(_PRE_DEFAULTS[pre_type])
    pre_params.update(_parameters(pre_el, _PRE_PARAMS[pre_type], where))
    post_params = {p: _post_params(players[p], pre_type, where) for p in (0, 1)}
    from mathbg.met.models import mec, zadeh

    if pre_type == "zadeh":
        if post_params[0] != post_params[1]:
            raise METFormatError(
                f"{where}per-player zadeh <post-crawford-table> parameters differ: unsupported"
            )
        met = zadeh(n, **pre_params, **post_params[0])
    else:
        w = pre_params["win_rate"]
        p0, p1 = dict(post_params[0]), dict(post_params[1])
        w0, w1 = p0.pop("win_rate"), p1.pop("win_rate")
        if (
            p0 != p1
            or not math.isclose(w0, w, abs_tol=1e-9)
            or not (math.isclose(w1, w, abs_tol=1e-9) or math.isclose(w1, 1 - w, abs_tol=1e-9))
        ):
            raise METFormatError(
                f"{where}mec <post-crawford-table> parameters disagree with each other or "
                "with the <pre-crawford-table> win-rate: unsupported"
            )
        pc_g = p0.pop("post_crawford_gammon_rate")
        met = mec(
            n,
            pre_params["gammon_rate"],
            w,
            p0["free_drop_2"],
            p0["free_drop_4"],
            post_crawford_gammon_rate=None if pc_g == pre_params["gammon_rate"] else pc_g,
        )
    return met.with_metadata(
        name=path.stem if path else met.name,
        title=title or met.title,
        description=description or met.description,
        notice=_notice(comments),
        notes=f"parametric {pre_type} table computed by mathbg at length {n}"
        + (f" (file length {native})" if native > 0 else " (file length -1)"),
    )


def _post_params(el: ET.Element, kind: str, where: str) -> dict[str, float]:
    params = dict(_POST_DEFAULTS[kind])
    params.update(_parameters(el, _POST_PARAMS[kind], where))
    return params


def _parametric_post(el: ET.Element, kind: str, player: int, n: int, where: str) -> np.ndarray:
    params = _post_params(el, kind, where)
    if kind == "zadeh":
        from mathbg.met.models import zadeh_post_crawford

        return zadeh_post_crawford(
            n, params["post_crawford_gammon_rate"], params["free_drop_2"], params["free_drop_4"]
        )
    from mathbg.met.models import mec

    table = mec(
        n,
        params["post_crawford_gammon_rate"],
        params["win_rate"],
        params["free_drop_2"],
        params["free_drop_4"],
    )
    if (el.get("player") or "both").strip() == "both":
        # win-rate is player 0's game-winning chance; each player gets his own vector
        return table.post[player]
    # a per-player block (as gnubg computes it): win-rate is that player's chance
    return table.post[0]


def _notice(comments: list[str]) -> str:
    text = "\n".join(c.strip("\n") for c in comments if c.strip())
    lines = [line.rstrip() for line in text.splitlines()]
    indent = min((len(x) - len(x.lstrip()) for x in lines if x.strip()), default=0)
    return "\n".join(x[indent:] for x in lines).strip()


def _comment_text(text: str) -> str:
    body = text.replace("--", "- -")
    return "\n".join(("     " + line) if line else "" for line in body.splitlines())


def format_gnubg_xml(
    met: MET,
    *,
    parametric: bool = False,
    post_length: int | None = None,
    decimals: int | None = None,
    comment: str | None = None,
) -> str:
    """The table as gnubg MET XML text.

    Parameters
    ----------
    parametric : bool
        Write a ``zadeh``/``mec`` parameter block instead of the numbers (only for tables
        built by those models; the length written is the table's). gnubg then recomputes
        the table itself (see the module notes for its quirks).
    post_length : int, optional
        Write only the first ``post_length`` post-Crawford entries (for a published table
        whose source gives fewer than N).
    decimals : int, optional
        Round the numbers (default: exact shortest representation).
    comment : str, optional
        Header comment (default: the table's notice, source and notes).
    """
    n = met.length
    if comment is None:
        parts = [f"Match equity table {met.name!r} written by mathbg."]
        if met.source:
            parts.append(f"Source: {met.source}")
        if met.notes:
            parts.append(f"Notes: {met.notes}")
        if met.notice:
            parts.append("")
            parts.append(met.notice)
        comment = "\n".join(parts)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE met PUBLIC "-//GNU Backgammon//DTD Match Equity Tables//EN" "met.dtd">',
        "",
        "<!--",
        "",
        _comment_text(comment),
        "",
        " -->",
        "",
        "<met>",
        "  <info>",
        f"    <name>{escape(met.title or met.name)}</name>",
        f"    <description>{escape(met.description or met.source)}</description>",
        f"    <length>{n}</length>",
        "  </info>",
        "",
    ]
    if parametric:
        out += _parametric_blocks(met)
    else:
        out.append('  <pre-crawford-table type="explicit">')
        for row in met.pre:
            cells = "".join(f"<me>{_fmt(x, decimals)}</me>" for x in row)
            out.append(f"    <row>{cells}</row>")
        out.append("  </pre-crawford-table>")
        out.append("")
        k = n if post_length is None else max(1, min(int(post_length), n))
        same = np.array_equal(met.post[0], met.post[1])
        for who in ("both",) if same else ("0", "1"):
            vec = met.post[0 if who in ("both", "0") else 1][:k]
            cells = "".join(f"<me>{_fmt(x, decimals)}</me>" for x in vec)
            out.append(f'  <post-crawford-table type="explicit" player={quoteattr(who)}>')
            out.append(f"    <row>{cells}</row>")
            out.append("  </post-crawford-table>")
    out += ["", "</met>", ""]
    return "\n".join(out)


def _param_xml(tag: str, kind: str, params: dict[str, float], player: str | None) -> list[str]:
    attr = f" player={quoteattr(player)}" if player is not None else ""
    lines = [f'  <{tag} type="{kind}"{attr}>', "    <parameters>"]
    for name, value in params.items():
        lines.append(f"      <parameter name={quoteattr(name)}>{value!r}</parameter>")
    return [*lines, "    </parameters>", f"  </{tag}>"]


def _parametric_blocks(met: MET) -> list[str]:
    p = dict(met.parameters)
    if met.model == "zadeh":
        pre = {
            "gammon-rate-leader": p["doubler_gammon_rate"],
            "gammon-rate-trailer": p["taker_gammon_rate"],
            "delta": p["delta"],
            "delta-bar": p["delta_bar"],
        }
        post = {
            "gammon-rate-trailer": p["post_crawford_gammon_rate"],
            "free-drop-2-away": p["free_drop_2"],
            "free-drop-4-away": p["free_drop_4"],
        }
        # one block per player: gnubg applies a player="both" block to player 0 only
        return [
            *_param_xml("pre-crawford-table", "zadeh", pre, None),
            "",
            *_param_xml("post-crawford-table", "zadeh", post, "0"),
            *_param_xml("post-crawford-table", "zadeh", post, "1"),
        ]
    if met.model == "mec":
        w = p["win_rate"]
        pre = {"gammon-rate": p["gammon_rate"], "win-rate": w}
        lines = [*_param_xml("pre-crawford-table", "mec", pre, None), ""]
        # one block per player: gnubg applies a player="both" block to player 0 only
        for player, rate in (("0", w), ("1", 1.0 - w)):
            post = {
                "gammon-rate": p.get("post_crawford_gammon_rate", p["gammon_rate"]),
                "win-rate": rate,
                "free-drop-2-away": p["free_drop_2"],
                "free-drop-4-away": p["free_drop_4"],
            }
            lines += _param_xml("post-crawford-table", "mec", post, player)
        return lines
    raise METFormatError(
        f"parametric gnubg XML needs a zadeh or mec table, {met.name!r} is {met.model!r}"
    )


# ============================================================================ XG .met
_XG_ROW = re.compile(r"^\s*(\d+)\s*=(.*)$")


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def parse_xg(data: bytes | str, *, length: int | None = None, path: Path | None = None) -> MET:
    """Parse an eXtreme Gammon ``.met`` file (bytes or text); see :func:`read`."""
    where = _display(path)
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
        _probability(tok, f"{where}[PostCrawford] Data value {k}")
        for k, tok in enumerate(data_text.split(), start=1)
    ]
    if len(post_vals) != m_post:
        raise METFormatError(
            f"{where}[PostCrawford] Data has {len(post_vals)} values, Size={m_post}"
        )
    if sorted(rows) != list(range(1, n + 1)):
        raise METFormatError(
            f"{where}[PreCrawford] rows are {sorted(rows)[:5]}..., expected 1..{n} (Size={n})"
        )
    pre = np.empty((n, n))
    for r in range(1, n + 1):
        vals = [
            _probability(tok, f"{where}[PreCrawford] row {r} value {c}")
            for c, tok in enumerate(rows[r].split(), start=1)
        ]
        if len(vals) != n:
            raise METFormatError(f"{where}[PreCrawford] row {r} has {len(vals)} values, Size={n}")
        pre[r - 1] = vals
    post, extended = _extend_post(post_vals, n)
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
        notes=(
            f"[PostCrawford] has {m_post} values for length {n}: continued by Zadeh's recurrence"
        )
        if extended
        else "",
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
    """
    if not np.array_equal(met.post[0], met.post[1]):
        raise METFormatError(
            f"XG .met holds one post-Crawford vector; {met.name!r} has different vectors "
            "for the two players (unequal-skill table)"
        )
    notice = met.notice.strip().splitlines()[0] if met.notice.strip() else ""
    n = met.length
    lines = [
        "[Current]",
        f"Name={_one_line(met.title or met.name)}",
        f"Version={version}",
        f"Description={_one_line(met.description or met.source)}",
        f"Copyright={_one_line(notice)}",
        "",
        "[Version]",
        f"Current={version}",
        "",
        "[PostCrawford]",
        f"Size={n}",
        "Data=" + " ".join(_fmt(x, decimals) for x in met.post[0]),
        "",
        "[PreCrawford]",
        f"Size={n}",
    ]
    width = len(str(n))
    for r, row in enumerate(met.pre, start=1):
        lines.append(f"{r:>{width}}=" + " ".join(_fmt(x, decimals) for x in row))
    return "\n".join(lines) + "\n"


# ============================================================================ CSV / JSON / text
def format_csv(met: MET, *, decimals: int | None = None) -> str:
    """The pre-Crawford table as a clean CSV matrix (nothing else in the file).

    Header ``away,1,..,N``; row ``a``: player 0's MWC at a-away vs 1..N-away. Row and
    column 1 hold the Crawford-game values, as in :meth:`MET.to_frame`; the post-Crawford
    vectors are in their own CSV (:func:`format_post_crawford_csv`). Numbers without float
    noise (15 significant digits) unless ``decimals`` rounds them.
    """
    from mathbg._output import format_number

    n = met.length
    lines = ["away," + ",".join(str(b) for b in range(1, n + 1))]
    for a, row in enumerate(met.pre, start=1):
        lines.append(f"{a}," + ",".join(format_number(x, decimals) for x in row))
    return "\n".join(lines) + "\n"


def format_post_crawford_csv(met: MET, *, decimals: int | None = None) -> str:
    """The post-Crawford vectors as CSV: ``away,player_0,player_1``, one row per n-away.

    Row ``n``: each player's MWC at n-away against the other at 1-away after the Crawford
    game (:meth:`MET.post_frame`). :func:`write` puts it beside the matrix CSV as
    ``NAME.post-crawford.csv``.
    """
    from mathbg._output import format_number

    lines = ["away,player_0,player_1"]
    for n, (p0, p1) in enumerate(zip(met.post[0], met.post[1], strict=True), start=1):
        lines.append(f"{n},{format_number(p0, decimals)},{format_number(p1, decimals)}")
    return "\n".join(lines) + "\n"


def post_crawford_csv_path(path: str | Path) -> Path:
    """Where :func:`write` puts the post-Crawford CSV of the matrix CSV ``path``."""
    p = Path(path)
    return p.with_name(p.stem + ".post-crawford.csv")


def format_json(met: MET, *, indent: int | None = None, decimals: int | None = None) -> str:
    """JSON text of :meth:`MET.to_dict` (15 significant digits: no float noise; or rounded
    to ``decimals`` places)."""
    from mathbg._output import dumps

    return dumps(met.to_dict(), indent=indent, decimals=decimals) + "\n"


def parse_json(data: bytes | str, *, length: int | None = None, path: Path | None = None) -> MET:
    """Parse the JSON written by :func:`format_json`."""
    where = _display(path)
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


# ============================================================================ entry points
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
    """
    p = Path(path)
    data = p.read_bytes()
    kind = format or _sniff(data)
    if length is not None and (
        isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= MAX_LENGTH
    ):
        raise InvalidScoreError(f"length must be an integer in 1..{MAX_LENGTH}, got {length!r}")
    if kind == "gnubg-xml":
        return parse_gnubg_xml(data, length=length, path=p)
    if kind == "xg":
        return parse_xg(data, length=length, path=p)
    if kind == "json":
        return parse_json(data, length=length, path=p)
    raise METFormatError(f"unknown MET file format {kind!r}: use gnubg-xml, xg or json")


def render(met: MET, format: str = "table", **options: Any) -> str:
    """The table as text in ``format`` (one of :data:`FORMATS`)."""
    if format == "table":
        return format_text(met, **options)
    if format == "csv":
        return format_csv(met, **options)
    if format == "csv-post-crawford":
        return format_post_crawford_csv(met, **options)
    if format == "json":
        return format_json(met, **options)
    if format == "gnubg-xml":
        return format_gnubg_xml(met, **options)
    if format == "xg":
        return format_xg(met, **options)
    raise METFormatError(f"unknown MET format {format!r}; formats: {', '.join(FORMATS)}")


def write(met: MET, path: str | Path, format: str | None = None, **options: Any) -> Path:
    """Write ``met`` to ``path`` in ``format`` (default from the suffix: .xml gnubg-xml,
    .met xg, .csv, .json, .txt table). ``options`` go to the formatter (``decimals``,
    ``parametric``, ``post_length``, ...). Returns the path."""
    p = Path(path)
    kind = format or _SUFFIX_FORMAT.get(p.suffix.lower())
    if kind is None:
        raise METFormatError(
            f"cannot tell the format from the suffix {p.suffix!r}; pass format= one of "
            f"{', '.join(FORMATS)}"
        )
    text = render(met, kind, **options)
    if kind == "csv":  # a clean matrix; the post-Crawford vectors in their own file
        post_crawford_csv_path(p).write_text(
            format_post_crawford_csv(met, **options), encoding="utf-8"
        )
    if kind == "xg":
        p.write_bytes(text.replace("\n", "\r\n").encode("cp1252", errors="replace"))
    else:
        p.write_text(text, encoding="utf-8")
    return p
