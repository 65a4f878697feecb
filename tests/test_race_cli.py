"""``mathbg race``: output, JSON keys, input forms and errors."""

from __future__ import annotations

import json

import pytest

from mathbg.cli import main
from mathbg.rules.ids import encode_gnubg_id, encode_xgid
from mathbg.rules.match import MatchState
from mathbg.rules.position import Position

# theory-and-sources.md §3: X = {5 on the 1-point, 4 on the 2-point} on roll, O = {15 on 1}.
SANITY = Position.from_counts({1: 5, 2: 4}, {1: 15})

KEYS = {"pips", "keith", "thorp", "isight", "keith_adjusted", "thorp_adjusted", "kleinman",
        "kleinman_p_win", "lead_8912_fraction", "epc", "p_win", "p_gammon", "method", "cube_action",
        "advice"}  # fmt: skip


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["race", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_sanity_position(capsys: pytest.CaptureFixture[str]) -> None:
    d = run_json(capsys, SANITY.id)
    assert KEYS <= set(d)
    # gnubg 1.07 prints: pips 13/15, Keith 27/46 (L 30.9 unrounded), Thorp 34 (37.4)/59,
    # 8-9-12 lead 15.4 %, Isight 21/47.
    assert d["pips"] == [13, 15] and d["keith"] == [27, 46] and d["thorp"] == [34, 59]
    assert d["keith_adjusted"] == 30  # Keith's rounding down: 27 + floor(27/7)
    assert d["thorp_adjusted"] == pytest.approx(37.4)
    assert d["isight"] == [21, 47]
    # issue 14: fractions in JSON (the 8-9-12 lead 2/13 = 15.4 %), Isight clamped to [0, 1]
    assert round(d["lead_8912_fraction"], 3) == 0.154
    assert d["isight_p_win_estimate"] == 1.0 and "isight_p_win" not in d
    assert d["kleinman"] == pytest.approx(1.5)  # (2 + 4)^2 / (28 - 4)
    assert round(d["epc"][0], 2) == 36.02  # 4.41 rolls x 49/6
    assert d["method"] == "one-sided databases"
    assert d["cube_action"] == "double, pass"
    assert set(d["advice"]) >= {"keith", "thorp", "kleinman", "8912", "trice", "isight"}


def test_input_forms(capsys: pytest.CaptureFixture[str]) -> None:
    a = run_json(capsys, SANITY.id)
    b = run_json(capsys, "--counts", "1:5,2:4", "1:15")
    c = run_json(capsys, encode_xgid(SANITY, MatchState()))
    assert a["p_win"] == b["p_win"] == c["p_win"]
    assert a["pips"] == b["pips"] == c["pips"]
    d = run_json(capsys, "--counts", "5,4" + ",0" * 22, "15" + ",0" * 23)
    assert d["pips"] == [13, 15]


def test_match_id_and_options(capsys: pytest.CaptureFixture[str]) -> None:
    pos = Position.from_counts({6: 3, 5: 3, 4: 3}, {6: 3, 5: 3, 4: 2, 3: 1})
    gid = encode_gnubg_id(pos, MatchState(length=5, score=(1, 2), on_roll=1))
    d = run_json(capsys, gid)
    assert d["cube"]["unit"] == "mwc" and d["cube"]["score"] == [3, 4]
    d = run_json(capsys, gid, "--money", "--cube-life", "0.5")
    assert d["cube"]["unit"] == "equity" and d["cube"]["x"] == 0.5
    d = run_json(capsys, SANITY.id, "--keith-rounding", "none")
    assert d["keith_adjusted"] == pytest.approx(27 * 8 / 7)


def test_text_and_plot(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    png = tmp_path / "rolls.png"
    assert main(["race", "--counts", "6:1", "6:1", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "two-sided database" in out and "Keith" in out and "Cube (money" in out
    assert png.stat().st_size > 1000


def test_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["race", "4HPwATDgc/ABMA"]) == 2  # the starting position: contact
    assert "contact" in capsys.readouterr().err
    assert main(["race", "garbage!"]) == 2
    assert "error" in capsys.readouterr().err
    assert main(["race"]) == 2
    assert main(["race", "--counts", "1:5,x", "1:15"]) == 2
    assert "cannot read" in capsys.readouterr().err
