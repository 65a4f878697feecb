"""Published match equity tables shipped with mathbg (``data/met/*.xml``).

Each table is stored as gnubg MET XML written by :func:`mathbg.met.formats.format_gnubg_xml`,
with the numbers of the published source unchanged and its copyright and licence notice in
the header comment. The numbers were taken from the XML files of gnubg-data 1.07.001
(``/usr/share/gnubg/met``) by :func:`convert_gnubg_tables`; ``data/met/README.md`` lists
every table with its source, native length and notes.

>>> from mathbg.met import load
>>> load("kazaross-xg2").mwc((2, 3))  # doctest: +SKIP
0.40053
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mathbg._paths import checkout_data_dir, published_dir, published_files
from mathbg.errors import DatabaseError, UnknownTableError
from mathbg.met.table import MET

__all__ = [
    "DEFAULT",
    "TABLES",
    "PublishedTable",
    "available",
    "convert_gnubg_tables",
    "load",
    "resolve",
]

#: The default table (the modern standard; gnubg's and XG's default).
DEFAULT = "kazaross-xg2"


@dataclass(frozen=True)
class PublishedTable:
    """Catalogue entry of a shipped table."""

    key: str
    gnubg_file: str
    length: int
    source: str
    notes: str = ""


TABLES: dict[str, PublishedTable] = {
    t.key: t
    for t in (
        PublishedTable(
            "kazaross-xg2",
            "Kazaross-XG2.xml",
            25,
            "Neil Kazaross (2011): eXtreme Gammon (XG2) rollouts to 9-away, Rockwell-Kazaross "
            "beyond (extended to 25 by projecting take points); T. Keith, 'The Kazaross-XG2 "
            "Match Equity Table' (2013), bkgm.com/articles/Keith/KazarossXG2MET/",
            "the default table of gnubg and XG2",
        ),
        PublishedTable(
            "rockwell-kazaross",
            "Rockwell-Kazaross.xml",
            25,
            "David Rockwell and Neil Kazaross (2008-2010): gnubg 0.90 Supremo full rollouts "
            "to 15-away, extended to 25 by projecting take points",
        ),
        PublishedTable(
            "g11",
            "g11.xml",
            25,
            "Robert-Jan Veldhuizen 'Zorba' (2003-2004): gnubg 0.14 full rollouts to 11-away, "
            "extended to 25 with Tornberg's mec",
            "the source lists 24 post-Crawford entries: the 25-away one is continued by "
            "Zadeh's recurrence (g 0.25)",
        ),
        PublishedTable(
            "mec26",
            "mec26.xml",
            25,
            "Claes Tornberg's mec (1996) with gammon rate 0.26 and game-winning chance 0.5, "
            "no free drop; transcribed for gnubg by Joseph Heled",
            "three-decimal pre-Crawford entries; the post-Crawford vector was not made by mec "
            "with these parameters and is shipped as published; the source lists 24 "
            "post-Crawford entries: the 25-away one is continued by Zadeh's recurrence",
        ),
        PublishedTable(
            "snowie",
            "snowie.xml",
            15,
            "Oasya SA, Snowie 2.1 match equity table (1999), gammon rate 26 %",
        ),
        PublishedTable(
            "woolsey",
            "woolsey.xml",
            15,
            "Kit Woolsey, Inside Backgammon 2(2), March-April 1992 (expert-match database "
            "of Hal Heinrich plus a program), two-digit percentages",
        ),
        PublishedTable(
            "jacobs",
            "jacobs.xml",
            25,
            "Jake Jacobs and Walter Trice, 'Can a Fish Taste Twice as Good' (1996)",
        ),
        PublishedTable(
            "jac050",
            "jac050.xml",
            25,
            "Jake Jacobs and Walter Trice, 'Can a Fish Taste Twice as Good' (1996): player 0 "
            "a 50-Elo favourite",
            "unequal players: not complementary; post-Crawford vectors per player",
        ),
        PublishedTable(
            "jac100",
            "jac100.xml",
            25,
            "Jake Jacobs and Walter Trice, 'Can a Fish Taste Twice as Good' (1996): player 0 "
            "a 100-Elo favourite",
            "unequal players: not complementary; post-Crawford vectors per player",
        ),
        PublishedTable(
            "ortega",
            "ortega.xml",
            15,
            "Antonio Ortega and Danny Kleinman (2001), 'Backgammon With the Giants, Neil "
            "Kazaross': Woolsey's table adjusted toward Kleinman's values",
            "as published, not complementary: MET(a, b) + MET(b, a) differs from 1 by up to 0.002",
        ),
    )
}

_ALIASES = {
    "kxg2": "kazaross-xg2",
    "kazaross": "kazaross-xg2",
    "rk": "rockwell-kazaross",
    "jacobs-trice": "jacobs",
    "jacobs-trice-50": "jac050",
    "jacobs-trice-100": "jac100",
    "ortega-kleinman": "ortega",
    "snowie21": "snowie",
}
for _t in TABLES.values():
    _ALIASES.setdefault(Path(_t.gnubg_file).stem.lower(), _t.key)


def available() -> list[str]:
    """Names of the shipped tables present in this installation, default first then alphabetical.

    Only tables whose file is found (package data of an installed mathbg, or the checkout's
    ``data/met``) are listed, so every name returned can be passed to :func:`load`.

    Returns
    -------
    list of str
        The names, the default (``kazaross-xg2``) first.

    Examples
    --------
    >>> available()[0]
    'kazaross-xg2'
    """
    present = published_files("met")
    ordered = [DEFAULT, *sorted(k for k in TABLES if k != DEFAULT)]
    return [k for k in ordered if k in present]


def resolve(name: str, models: tuple[str, ...] = ()) -> str:
    """The canonical key of a shipped table name or alias, or of one of ``models``.

    The one naming rule of every table and model name (``mathbg.met.load``,
    ``mathbg.met.build``, ``--model`` and ``--met``): case-insensitive, an optional ``.xml``
    suffix, and any unambiguous prefix of a name or alias (``kazaross-xg`` and ``kazaross``
    are Kazaross-XG2, ``rock`` is Rockwell-Kazaross; ``jac`` is refused as ambiguous). An
    exact name always wins over a longer one it prefixes (``mec`` the model, not ``mec26``).

    Parameters
    ----------
    name : str
        A table name, alias or file name (or a model name when ``models`` holds it).
    models : tuple of str, optional
        Model names that also resolve (the models of :func:`mathbg.met.build`).

    Returns
    -------
    str
        The canonical key.

    Raises
    ------
    UnknownTableError
        For an unknown or ambiguous name.

    Examples
    --------
    >>> resolve("Kazaross-XG2.xml"), resolve("rock")
    ('kazaross-xg2', 'rockwell-kazaross')
    """
    key = str(name).strip().lower()
    if key.endswith(".xml"):
        key = key[:-4]
    names = {**{m: m for m in models}, **{k: k for k in TABLES}, **_ALIASES}
    if key in names:
        return names[key]
    hits = sorted({canon for n, canon in names.items() if key and n.startswith(key)})
    if len(hits) == 1:
        return hits[0]
    what = "match equity table" + (" or model" if models else "")
    listed = f"models: {', '.join(models)}; " if models else ""
    if hits:
        raise UnknownTableError(f"ambiguous {what} name {name!r}: it could be {', '.join(hits)}")
    raise UnknownTableError(
        f"unknown {what} {name!r}; {listed}shipped tables: {', '.join(available())} "
        "(any unambiguous prefix works)"
    )


@functools.cache
def _load(key: str) -> MET:
    from mathbg.met.formats import read

    entry = TABLES[key]
    item = published_files("met").get(key)
    if item is None:
        raise DatabaseError(
            f"shipped table {key!r} is missing from this installation "
            f"(no {key}.xml in {published_dir('met')}); reinstall mathbg"
        )
    with resources.as_file(item) as path:
        met = read(path)
    return met.with_metadata(
        name=key,
        source=entry.source,
        model="published",
        notes=entry.notes,
    )


def load(name: str = DEFAULT, length: int | None = None) -> MET:
    """A shipped published table by name (see :func:`available`).

    Parameters
    ----------
    name : str
        Table name or alias, case-insensitive (``"kazaross-xg2"``, ``"mec26"``, ``"jacobs"``,
        ``"Kazaross-XG2.xml"``, ...).
    length : int, optional
        Extend with Montgomery's model or cut to this length (default: native length).

    Raises
    ------
    UnknownTableError
        No such table (the message lists the available ones).

    Returns
    -------
    MET
        The published numbers, named by the table's canonical name (``"kazaross-xg2"``).

    Examples
    --------
    >>> t = load("kazaross-xg2")
    >>> t.name, t.length
    ('kazaross-xg2', 25)
    """
    met = _load(resolve(name))
    return met if length is None else met.extend(length)


def convert_gnubg_tables(
    src_dir: str | Path = "/usr/share/gnubg/met", dest_dir: str | Path | None = None
) -> list[Path]:
    """Write the shipped tables from gnubg-data's XML files (how ``data/met`` was made).

    Each gnubg file is read with :func:`mathbg.met.formats.read` and written back with
    :func:`mathbg.met.formats.format_gnubg_xml`: same numbers, only the published post-Crawford
    entries, the original notice preserved in the header. ``dest_dir`` defaults to the source
    checkout's ``data/met`` (never an installed package).

    Parameters
    ----------
    src_dir : str or Path, optional
        gnubg's MET directory.
    dest_dir : str or Path, optional
        Where to write (default the checkout's ``data/met``).

    Returns
    -------
    list of Path
        The files written.

    Raises
    ------
    METFormatError
        For a malformed gnubg file.

    Examples
    --------
    >>> import tempfile
    >>> convert_gnubg_tables(dest_dir=tempfile.mkdtemp())  # doctest: +SKIP
    """
    from defusedxml import ElementTree as DET

    from mathbg.met.formats import format_gnubg_xml, read

    src = Path(src_dir)
    if dest_dir is None:
        checkout = checkout_data_dir()
        if checkout is None:
            raise DatabaseError(
                "convert_gnubg_tables writes into a source checkout's data/met; "
                "outside a checkout pass dest_dir"
            )
        dest = checkout / "met"
    else:
        dest = Path(dest_dir)
    written = []
    for entry in TABLES.values():
        path = src / entry.gnubg_file
        met = read(path)
        root = DET.parse(path).getroot()
        post_len = max(len(el.findall("row/me")) for el in root.findall("post-crawford-table"))
        comment = "\n".join(
            [
                f"mathbg shipped match equity table {entry.key!r} ({met.title}).",
                f"Source: {entry.source}.",
                f"Numbers unchanged from gnubg-data 1.07.001, met/{entry.gnubg_file}; written",
                "by mathbg.met.formats.format_gnubg_xml (shortest exact decimal form).",
                *([f"Notes: {entry.notes}."] if entry.notes else []),
                "",
                "Original notice of the gnubg file:",
                "",
                met.notice,
            ]
        )
        text = format_gnubg_xml(met, post_length=post_len, comment=comment)
        out = dest / f"{entry.key}.xml"
        out.write_text(text, encoding="utf-8")
        written.append(out)
    _load.cache_clear()
    return written


if __name__ == "__main__":  # pragma: no cover
    import sys

    for written_path in convert_gnubg_tables(*sys.argv[1:3]):
        print(written_path)
