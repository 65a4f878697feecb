"""``mathbg met`` command line: formats, shipped tables verbatim, models, errors."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from mathbg.cli import main
from mathbg.met import load, mec, montgomery, read, zadeh


def run_json(capsys, *args: str) -> dict:
    assert main(["met", *args, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def shipped_numbers(name: str) -> tuple[list[list[float]], list[float]]:
    """The numbers of a shipped file, parsed here independently of mathbg's reader."""
    from mathbg._paths import published_dir

    root = ET.parse(published_dir("met") / f"{name}.xml").getroot()
    pre = [
        [float(me.text) for me in row.findall("me")]
        for row in root.find("pre-crawford-table").findall("row")
    ]
    post = [float(me.text) for me in root.find("post-crawford-table").find("row").findall("me")]
    return pre, post


@pytest.mark.parametrize("name", ["kazaross-xg2", "snowie", "woolsey", "ortega", "jac100", "g11"])
def test_json_shipped_table_verbatim(capsys, name):
    obj = run_json(capsys, "--model", name)
    pre, post = shipped_numbers(name)
    assert obj["name"] == name
    assert obj["length"] == len(pre) == (15 if name in ("snowie", "woolsey", "ortega") else 25)
    assert obj["pre"] == pre  # rows a = 1..N, columns b = 1..N
    assert obj["post"][: len(post)] == post
    assert len(obj["post"]) == obj["length"]


def test_json_default_is_kazaross_xg2(capsys):
    obj = run_json(capsys)
    assert obj["name"] == "kazaross-xg2" and obj["length"] == 25
    assert obj["pre"][0][1] == 0.67736 and obj["post"][1] == 0.48803


def assert_json_equal(written, exact):
    # issue 14: JSON numbers carry 15 significant digits (no float noise), so a model's
    # table comes back within 5e-16 (absolute; relative 1e-14) of its float64 values
    np.testing.assert_allclose(written, exact, rtol=1e-14, atol=0)


def test_json_models(capsys):
    obj = run_json(capsys, "--model", "montgomery", "--length", "7")
    assert_json_equal(obj["pre"], montgomery(7).pre)
    obj = run_json(capsys, "--model", "mec", "--gammon-rate", "0.26", "--length", "5")
    assert_json_equal(obj["pre"], mec(5).pre)
    obj = run_json(capsys, "--model", "mec", "--win-rate", "0.55", "--free-drop", "0.015,0.004")
    assert obj["length"] == 25 and "post_player1" in obj
    assert_json_equal(obj["pre"], mec(25, 0.26, 0.55, 0.015, 0.004).pre)
    obj = run_json(
        capsys, "--model", "zadeh", "--free-drop", "0.02,0.005", "--param", "delta_bar=0.05"
    )
    ref = zadeh(25, free_drop_2=0.02, free_drop_4=0.005, delta_bar=0.05)
    assert_json_equal(obj["pre"], ref.pre)
    obj = run_json(capsys, "--model", "cubeless", "--length", "13")
    assert obj["parameters"]["gammon_rate"] == 0.2762
    obj = run_json(capsys, "--model", "woolsey", "--length", "18")
    assert obj["length"] == 18


def test_other_formats_and_out(tmp_path, capsys):
    for fmt, suffix in (("gnubg-xml", "xml"), ("xg", "met"), ("json", "json")):
        out = tmp_path / f"t.{suffix}"
        assert main(["met", "--model", "snowie", "--format", fmt, "--out", str(out)]) == 0
        assert read(out).allclose(load("snowie"))
    assert main(["met", "--model", "woolsey", "--format", "csv"]) == 0
    assert capsys.readouterr().out.startswith("away,1,2,3")
    assert main(["met", "--length", "3"]) == 0
    text = capsys.readouterr().out
    assert "67.7" in text and "post-Crawford" in text
    # a MET file as the model
    assert main(["met", "--model", str(tmp_path / "t.met"), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["length"] == 15


@pytest.mark.slow
def test_plot(tmp_path):
    png = tmp_path / "m.png"
    assert main(["met", "--model", "jac050", "--length", "9", "--plot", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_list(capsys):
    assert main(["met", "--list"]) == 0
    out = capsys.readouterr().out
    assert "kazaross-xg2" in out and "montgomery" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "nonesuch"], "unknown match equity table or model"),
        (["--model", "zadeh", "--gammon-rate", "0.2"], "no parameter gammon_rate"),
        (["--model", "snowie", "--win-rate", "0.6"], "published table"),
        (["--model", "mec", "--win-rate", "1.2"], "win_rate"),
        (["--model", "mec", "--free-drop", "0.1"], "F2,F4"),
        (["--model", "mec", "--param", "x"], "NAME=VALUE"),
        (["--length", "0"], "length"),
        (["--model", "jac050", "--format", "xg"], "one post-Crawford vector"),
    ],
)
def test_errors_exit_2(capsys, args, message):
    assert main(["met", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_console_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "mathbg", "met", "--model", "woolsey", "--format", "json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout)["pre"][0][1] == 0.7
