"""MET files: gnubg XML and XG .met read/write, round trips, malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mathbg.errors import METFormatError
from mathbg.met import available, cubeless, extend, load, mec, montgomery, read, write, zadeh
from mathbg.met.formats import (
    format_csv,
    format_gnubg_xml,
    format_post_crawford_csv,
    format_text,
    parse_gnubg_xml,
    parse_xg,
)

COMPUTED = {
    "zadeh": lambda: zadeh(11),
    "mec-fav": lambda: mec(9, gammon_rate=0.2, win_rate=0.57, free_drop_2=0.015),
    "cubeless": lambda: cubeless(13),
    "montgomery": lambda: montgomery(7),
    "extended": lambda: extend(load("snowie"), 21),
}


@pytest.mark.parametrize("name", available())
def test_xml_round_trip_shipped(tmp_path, name):
    met = load(name)
    back = read(write(met, tmp_path / f"{name}.xml"))
    # the file's own numbers exactly; computed ones (a continued post-Crawford entry) to 8
    # significant digits (issue 23: no float noise)
    assert back.allclose(met, atol=5e-9)
    assert back.title == met.title and back.length == met.length


@pytest.mark.parametrize("name", sorted(COMPUTED))
def test_xml_round_trip_computed(tmp_path, name):
    met = COMPUTED[name]()
    back = read(write(met, tmp_path / "t.xml"))
    # issue 23: computed numbers are written with 8 significant digits (no float noise)
    assert back.allclose(met, atol=5e-9)


@pytest.mark.parametrize(
    "met",
    [
        zadeh(12, delta=0.07, free_drop_4=0.003),
        mec(10, gammon_rate=0.24, win_rate=0.55, free_drop_2=0.015, free_drop_4=0.004),
        mec(10),
    ],
    ids=["zadeh", "mec-unequal", "mec"],
)
def test_parametric_xml_round_trip(tmp_path, met):
    path = write(met, tmp_path / "p.xml", parametric=True)
    text = path.read_text()
    assert "<parameter name=" in text and "<row>" not in text
    back = read(path)
    assert back.model == met.model
    assert back.allclose(met)
    assert dict(back.parameters) == dict(met.parameters)


def test_parametric_needs_a_model():
    with pytest.raises(METFormatError, match="zadeh or mec"):
        format_gnubg_xml(load("woolsey"), parametric=True)


@pytest.mark.parametrize("name", [n for n in available() if n not in ("jac050", "jac100")])
def test_xg_round_trip(tmp_path, name):
    met = load(name)
    path = write(met, tmp_path / f"{name}.met")
    raw = path.read_bytes()
    assert b"\r\n" in raw and raw.startswith(b"[Current]")
    back = read(path)
    assert back.allclose(met, atol=5e-9)


def test_xg_round_trip_computed(tmp_path):
    met = zadeh(15)
    assert read(write(met, tmp_path / "z.met")).allclose(met, atol=5e-9)


def test_xg_refuses_two_post_crawford_vectors(tmp_path):
    with pytest.raises(METFormatError, match="one post-Crawford vector"):
        write(load("jac050"), tmp_path / "j.met")


def test_xg_reads_xg_layout():
    # XG's own layout: CRLF, cp1252 copyright sign, padded row numbers, trailing blanks
    text = (
        "[Current]\r\nName=Tiny\r\nVersion=1.03\r\nDescription=three points\r\n"
        "Copyright=\xa9 2024 Somebody\r\n\r\n[Version]\r\nCurrent=1.03\r\n\r\n"
        "[PostCrawford]\r\nSize=3\r\nData=0.50000 0.48803 0.32264 \r\n\r\n"
        "[PreCrawford]\r\nSize=3  \r\n 1=0.50000 0.67736 0.75076 \r\n"
        " 2=0.32264 0.50000 0.59947 \r\n 3=0.24924 0.40053 0.50000 \r\n"
    ).encode("cp1252")
    met = parse_xg(text)
    assert met.length == 3 and met.title == "Tiny"
    assert met.notice == "\xa9 2024 Somebody"
    np.testing.assert_array_equal(met.pre[0], [0.5, 0.67736, 0.75076])
    np.testing.assert_array_equal(met.post[0], [0.5, 0.48803, 0.32264])


def test_short_post_crawford_row_is_continued():
    # g11 and mec26 publish 24 post-Crawford entries for 25 points: the 25th continues
    # Zadeh's recurrence, PC(25) = 1/2 [0.75 PC(23) + 0.25 PC(21)]
    met = load("g11")
    pc = met.post[0]
    assert pc[24] == pytest.approx(0.5 * (0.75 * pc[22] + 0.25 * pc[20]), abs=1e-15)
    assert "24 post-Crawford" in met.notes


def test_json_and_csv(tmp_path):
    met = load("jac050")
    back = read(write(met, tmp_path / "j.json"))
    assert back.allclose(met) and back.name == "jac050"
    obj = json.loads((tmp_path / "j.json").read_text())
    assert obj["length"] == 25 and len(obj["pre"]) == 25 and len(obj["post_player1"]) == 25
    csv = format_csv(load("woolsey")).splitlines()
    assert csv[0].split(",")[:3] == ["away", "1", "2"]
    assert csv[1].split(",")[:3] == ["1", "0.5", "0.7"]
    # issue 14: the CSV is a clean matrix; the post-Crawford vectors have their own CSV
    assert len(csv) == 1 + 15 and all(len(row.split(",")) == 16 for row in csv)
    post = format_post_crawford_csv(load("woolsey")).splitlines()
    assert post[0] == "away,player_0,player_1" and post[1] == "1,0.5,0.5"
    assert post[2].startswith("2,0.485,") and post[3].startswith("3,0.3,")
    path = write(load("woolsey"), tmp_path / "w.csv")
    assert path.read_text().splitlines() == csv
    assert (tmp_path / "w.post-crawford.csv").read_text().splitlines() == post
    text = format_text(load("woolsey"))
    assert "70.0" in text and "post-Crawford" in text


def test_decimals_option(tmp_path):
    met = zadeh(5)
    path = write(met, tmp_path / "r.xml", decimals=4)
    np.testing.assert_allclose(read(path).pre, met.pre, atol=5e-5)
    assert "0.3970" in path.read_text()


def test_read_with_length(tmp_path):
    met = read(write(load("woolsey"), tmp_path / "w.xml"), length=20)
    assert met.length == 20 and met.native_length == 15


def test_unknown_suffix_and_content(tmp_path):
    with pytest.raises(METFormatError, match="suffix"):
        write(load("woolsey"), tmp_path / "w.bin")
    junk = tmp_path / "junk.txt"
    junk.write_text("hello")
    with pytest.raises(METFormatError, match="format"):
        read(junk)
    with pytest.raises(FileNotFoundError):
        read(tmp_path / "missing.xml")


# ----------------------------------------------------------------------------- malformed XML
HEAD = '<?xml version="1.0"?>\n'


def _xml(pre: str, post: str | None = None, length: str = "2", info_extra: str = "") -> str:
    if post is None:
        post = '<post-crawford-table type="explicit"><row><me>0.5</me><me>0.49</me></row>'
        post += "</post-crawford-table>"
    return (
        f"{HEAD}<met><info><name>t</name><description>d</description>"
        f"<length>{length}</length>{info_extra}</info>{pre}{post}</met>"
    )


GOOD_PRE = (
    '<pre-crawford-table type="explicit"><row><me>0.5</me><me>0.7</me></row>'
    "<row><me>0.3</me><me>0.5</me></row></pre-crawford-table>"
)


def test_minimal_valid_xml():
    met = parse_gnubg_xml(_xml(GOOD_PRE))
    np.testing.assert_array_equal(met.pre, [[0.5, 0.7], [0.3, 0.5]])
    np.testing.assert_array_equal(met.post, [[0.5, 0.49], [0.5, 0.49]])


MALFORMED = [
    (HEAD + "<met><info></met>", "malformed XML"),
    (HEAD + "<table/>", "<table>"),
    (_xml(GOOD_PRE).replace("<info>", "<inf>").replace("</info>", "</inf>"), "<inf>"),
    (_xml(GOOD_PRE, length="two"), "<length>"),
    (_xml(GOOD_PRE, length="0"), "<length>"),
    (_xml(GOOD_PRE, length="3"), "<pre-crawford-table> has 2 <row>"),
    (_xml(GOOD_PRE.replace("<me>0.7</me>", "")), "<row> 1 of <pre-crawford-table>"),
    (_xml(GOOD_PRE.replace("0.7", "abc")), "<me> 2 of <row> 1"),
    (_xml(GOOD_PRE.replace("0.7", "1.7")), "<me> 2 of <row> 1"),
    (_xml(GOOD_PRE.replace("0.7", "nan")), "<me> 2 of <row> 1"),
    (_xml(GOOD_PRE.replace('type="explicit"', 'type="magic"', 1)), "type='magic'"),
    (_xml(GOOD_PRE, post=""), "<post-crawford-table>"),
    (_xml(GOOD_PRE, info_extra="<colour>red</colour>"), "<colour>"),
    (_xml(GOOD_PRE.replace("<row>", "<rows>", 1).replace("</row>", "</rows>", 1)), "<rows>"),
    (
        _xml(
            GOOD_PRE,
            post='<post-crawford-table player="0"><row><me>0.5</me></row></post-crawford-table>',
        ),
        "player 1",
    ),
    (
        _xml(
            GOOD_PRE,
            post='<post-crawford-table player="3"><row><me>0.5</me></row></post-crawford-table>',
        ),
        "player='3'",
    ),
    (
        _xml(GOOD_PRE, post="<post-crawford-table><row></row></post-crawford-table>"),
        "<post-crawford-table> has no <me>",
    ),
    (
        _xml(
            '<pre-crawford-table type="zadeh"><parameters><parameter name="colour">1'
            "</parameter></parameters></pre-crawford-table>",
            post='<post-crawford-table type="zadeh"><parameters/></post-crawford-table>',
            length="-1",
        ),
        "<parameter name='colour'>",
    ),
    (
        _xml(
            '<pre-crawford-table type="zadeh"><parameters><parameter name="delta">x'
            "</parameter></parameters></pre-crawford-table>",
            post='<post-crawford-table type="zadeh"><parameters/></post-crawford-table>',
            length="-1",
        ),
        "<parameter name='delta'>",
    ),
    (_xml(GOOD_PRE, length="-1"), "<length> -1"),
]


@pytest.mark.parametrize(("text", "named"), MALFORMED)
def test_malformed_xml_rejected_naming_the_element(text, named):
    with pytest.raises(METFormatError) as info:
        parse_gnubg_xml(text)
    assert named in str(info.value)


def test_billion_laughs_rejected(tmp_path):
    entities = ['<!ENTITY lol0 "lol">'] + [
        f'<!ENTITY lol{i} "{("&lol" + str(i - 1) + ";") * 10}">' for i in range(1, 10)
    ]
    text = (
        '<?xml version="1.0"?>\n<!DOCTYPE met [\n' + "\n".join(entities) + "\n]>\n"
        "<met><info><name>&lol9;</name><description/><length>1</length></info>"
        "<pre-crawford-table><row><me>0.5</me></row></pre-crawford-table>"
        "<post-crawford-table><row><me>0.5</me></row></post-crawford-table></met>"
    )
    path = tmp_path / "laughs.xml"
    path.write_text(text)
    with pytest.raises(METFormatError, match=r"<!ENTITY lol0>"):
        read(path)


def test_external_entity_rejected():
    text = (
        '<?xml version="1.0"?>\n<!DOCTYPE met [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
        "<met><info><name>&x;</name><description/><length>1</length></info></met>"
    )
    with pytest.raises(METFormatError, match="ENTITY x"):
        parse_gnubg_xml(text)


XG_MALFORMED = [
    ("[Current]\nName=x\n", "[PostCrawford]"),
    ("[PostCrawford]\nSize=2\nData=0.5 0.4\n[PreCrawford]\nSize=2\n1=0.5 0.6\n", "rows"),
    (
        "[PostCrawford]\nSize=2\nData=0.5 0.4\n[PreCrawford]\nSize=2\n1=0.5\n2=0.4 0.5\n",
        "row 1 has 1 values",
    ),
    # more values than Size is refused; fewer is read (XG ships such a table, issue 13)
    ("[PostCrawford]\nSize=1\nData=0.5 0.4\n[PreCrawford]\nSize=1\n1=0.5\n", "Data has 2"),
    ("[PostCrawford]\nSize=1\nData=x\n[PreCrawford]\nSize=1\n1=0.5\n", "Data value 1"),
    ("[PostCrawford]\nSize=1\nData=0.5\n[PreCrawford]\nSize=z\n1=0.5\n", "Size='z'"),
    ("[PostCrawford]\nSize=1\n[PreCrawford]\nSize=1\n1=0.5\n", "no Data="),
    ("Name=x\n[PostCrawford]\n", "before any [section]"),
]


@pytest.mark.parametrize(("text", "named"), XG_MALFORMED)
def test_malformed_xg_rejected(text, named):
    with pytest.raises(METFormatError) as info:
        parse_xg(text)
    assert named in str(info.value)


def test_written_xml_keeps_gnubg_order_and_notice():
    # the writer keeps gnubg's element order and the licence notice of published tables
    text = format_gnubg_xml(load())
    assert (
        text.index("<info>")
        < text.index("<pre-crawford-table")
        < text.index("<post-crawford-table")
    )
    assert "notice are preserved" in text and "Neil Kazaross" in text
    assert "--" not in text.split("<!--", 1)[1].split("-->", 1)[0]


def test_shipped_files_exist():
    from mathbg._paths import published_dir

    files = {p.stem for p in Path(published_dir("met")).glob("*.xml")}
    assert set(available()) <= files


@pytest.mark.parametrize("fmt", ["gnubg-xml", "xg"])
def test_written_files_have_no_float_noise_and_name_the_parameters(tmp_path, fmt):
    # issue 23: 0.49999999999999994 on the diagonal was written as such; a mec20 and a
    # mec26 file looked the same in gnubg
    import re

    from mathbg.cli import main

    for rate in ("0.2", "0.26"):
        out = tmp_path / f"mec{rate}.{'xml' if fmt == 'gnubg-xml' else 'met'}"
        argv = ["met", "--model", "mec", "--gammon-rate", rate, "--length", "15"]
        assert main([*argv, "--format", fmt, "--out", str(out)]) == 0
        text = out.read_text()
        body = text.split("<met>")[-1].split("[PostCrawford]")[-1]
        numbers = re.findall(r"(?<![\w.])\d\.\d+", body)
        # a number is its exact short form (<= 12 digits) or 8 significant digits
        digits = [len(x.lstrip("0.").replace(".", "")) for x in numbers]
        assert numbers and max(digits) <= 12 and digits.count(8) > len(digits) // 2
        assert "0.49999999999999994" not in text and "0.30000000000000004" not in text
        assert f"gammon_rate={float(rate):g}" in text and "length 15" in text
        assert "free drop 2 0" in text  # the free drops, none by default
        back = read(out)
        assert back.allclose(mec(15, gammon_rate=float(rate)), atol=5e-9)
    # --decimals still fixes the number of decimals
    out = tmp_path / "d.xml"
    assert main(["met", "--model", "zadeh", "--length", "5", "--format", "gnubg-xml", "--decimals",
                 "4", "--out", str(out), "--force"]) == 0  # fmt: skip
    assert "<me>0.6875</me>" in out.read_text() and "<me>0.5000</me>" in out.read_text()
