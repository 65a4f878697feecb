"""gnubg's MET XML (``met/met.dtd``), read and written.

GNU Backgammon's MET XML (``met/met.dtd``): ``<met><info><name/><description/><length/>
</info><pre-crawford-table type="explicit|zadeh|mec">`` with ``<row>``s of ``<me>`` (row =
player's away 1..N, column = opponent's away) or ``<parameters><parameter name=...>``,
then one or two ``<post-crawford-table player="both|0|1">`` with one ``<row>`` (the
trailer's MWC at n-away vs 1-away, n = 1..) or parameters. ``<length>-1</length>`` marks
a parametric table with no fixed length. Parsed with :mod:`defusedxml` (no entity
expansion, no external references); anything malformed raises
:class:`~mathbg.errors.METFormatError` naming the element.

Numbers are written with 8 significant digits unless ``decimals`` is given (no float noise;
write-then-read returns every value to within 5e-9), and a model's table records its
parameters and length in ``<name>`` and ``<description>``.

gnubg differences: an explicit table whose post-Crawford row is shorter than its length is
continued by Zadeh's recurrence (gnubg also recomputes the last published entry; mathbg keeps
it), a longer one is cut to the length; parametric tables are computed by mathbg's
:func:`~mathbg.met.zadeh` and :func:`~mathbg.met.mec` (gnubg 1.07 overwrites them with
Montgomery's model when the length is -1, applies ``free-drop-4-away`` with the wrong sign in
mec, and applies a ``player="both"`` parameter block to player 0 only).
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from mathbg.errors import METFormatError
from mathbg.met._core import MAX_LENGTH
from mathbg.met.formats.common import (
    describe,
    fit_post_crawford,
    format_number,
    parse_number,
    parse_probability,
    where_prefix,
)
from mathbg.met.table import MET

__all__ = ["PARAMETRIC_LENGTH", "format_gnubg_xml", "parse_gnubg_xml"]

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


# ============================================================================ gnubg XML
class _Builder(ET.TreeBuilder):
    """TreeBuilder that also keeps the document's comments (licence notices)."""

    def __init__(self) -> None:
        super().__init__()
        self.comments: list[str] = []
        self.depth = 0

    def comment(self, text: str) -> None:  # type: ignore[override]  # kept, not inserted
        self.comments.append(text)

    def start(self, tag: str, attrs: dict[str, str]) -> ET.Element:
        from mathbg._validate import MAX_DEPTH

        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise METFormatError(f"XML nested deeper than {MAX_DEPTH} elements")
        return super().start(tag, attrs)

    def end(self, tag: str) -> ET.Element:
        self.depth -= 1
        return super().end(tag)


def _parse_xml(data: bytes, where: str) -> tuple[ET.Element, list[str]]:
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import DefusedXMLParser

    from mathbg._validate import xml_encoding

    xml_encoding(data, where.rstrip(": ") or "XML")  # an unknown encoding is refused
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
    except METFormatError as exc:
        raise METFormatError(f"{where}{exc}") from None
    except LookupError as exc:  # an encoding expat or Python does not know
        raise METFormatError(f"{where}unknown XML encoding ({exc})") from None
    except DefusedXmlException as exc:
        name = getattr(exc, "name", None)
        what = f"<!ENTITY {name}>" if name else type(exc).__name__
        raise METFormatError(
            f"{where}forbidden XML construct {what}: entity declarations and external "
            "references are rejected (entity-expansion protection)"
        ) from None
    except (ValueError, UnicodeError) as exc:  # an encoding expat cannot use after all
        raise METFormatError(f"{where}unusable XML encoding ({exc})") from None
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
        out[key] = parse_number(param.text, f"{where}<parameter name={pname!r}>")
    return out


def _rows(elem: ET.Element, where: str) -> list[list[float]]:
    _children(elem, {"row"}, where)
    rows = []
    for r, row in enumerate(elem.findall("row"), start=1):
        _children(row, {"me"}, where)
        rows.append(
            [
                parse_probability(me.text, f"{where}<me> {c} of <row> {r} in <{elem.tag}>")
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
    """Parse gnubg MET XML (bytes or text); see :func:`read`.

    Parameters
    ----------
    data : bytes or str
        The XML document (UTF-8 bytes, or text).
    length : int, optional
        An explicit table is extended (Montgomery) or cut to this length; a parametric
        one is computed at it (default: its ``<length>``, :data:`PARAMETRIC_LENGTH` for -1).
    path : Path, optional
        The file the document came from: named in error messages, its stem the table's name.

    Returns
    -------
    MET
        The document's numbers, or the table its ``zadeh``/``mec`` parameters describe.

    Raises
    ------
    METFormatError
        For malformed XML or a document outside ``met.dtd`` (the message names the element).

    Examples
    --------
    >>> from mathbg.met import load
    >>> t = load("kazaross-xg2", length=2)
    >>> parse_gnubg_xml(format_gnubg_xml(t)).pre.tolist()
    [[0.5, 0.67736], [0.32264, 0.5]]
    """
    where = where_prefix(path)
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
                post[p], extended = fit_post_crawford(prow[0], n)
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
        out: np.ndarray = table.post[player]
        return out
    # a per-player block (as gnubg computes it): win-rate is that player's chance
    first: np.ndarray = table.post[0]
    return first


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
    met : MET
        The table to write (its numbers, or its model's parameters).
    parametric : bool
        Write a ``zadeh``/``mec`` parameter block instead of the numbers (only for tables
        built by those models; the length written is the table's). gnubg then recomputes
        the table itself (see the module notes for its quirks).
    post_length : int, optional
        Write only the first ``post_length`` post-Crawford entries (for a published table
        whose source gives fewer than N).
    decimals : int, optional
        Round the numbers to this many decimals (default: 8 significant digits, no float
        noise: :func:`mathbg.met.formats.common.format_number`).
    comment : str, optional
        Header comment (default: the table's notice, source and notes).

    Returns
    -------
    str
        The XML text.

    Raises
    ------
    METFormatError
        For ``parametric`` on a table no model built.

    Examples
    --------
    >>> from mathbg.met import load
    >>> xml = format_gnubg_xml(load("kazaross-xg2", length=2))
    >>> [line.strip() for line in xml.splitlines() if "<me>" in line][:2]
    ['<row><me>0.5</me><me>0.67736</me></row>', '<row><me>0.32264</me><me>0.5</me></row>']
    """
    from xml.sax.saxutils import escape, quoteattr  # urllib with it: import on use

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
        f"    <name>{escape(describe(met)[0])}</name>",
        f"    <description>{escape(describe(met)[1])}</description>",
        f"    <length>{n}</length>",
        "  </info>",
        "",
    ]
    if parametric:
        out += _parametric_blocks(met)
    else:
        out.append('  <pre-crawford-table type="explicit">')
        for row in met.pre:
            cells = "".join(f"<me>{format_number(x, decimals)}</me>" for x in row)
            out.append(f"    <row>{cells}</row>")
        out.append("  </pre-crawford-table>")
        out.append("")
        k = n if post_length is None else max(1, min(int(post_length), n))
        same = np.array_equal(met.post[0], met.post[1])
        for who in ("both",) if same else ("0", "1"):
            vec = met.post[0 if who in ("both", "0") else 1][:k]
            cells = "".join(f"<me>{format_number(x, decimals)}</me>" for x in vec)
            out.append(f'  <post-crawford-table type="explicit" player={quoteattr(who)}>')
            out.append(f"    <row>{cells}</row>")
            out.append("  </post-crawford-table>")
    out += ["", "</met>", ""]
    return "\n".join(out)


def _param_xml(tag: str, kind: str, params: dict[str, float], player: str | None) -> list[str]:
    from xml.sax.saxutils import quoteattr  # urllib with it: import on use

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
