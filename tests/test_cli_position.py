"""`mathbg position`: board, pips, legal plays, JSON; errors exit 2 with one line."""

from __future__ import annotations

import json

import pytest

from mathbg.cli import main


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_json_with_roll(capsys):
    status, out, err = run(capsys, "position", "4HPwATDgc/ABMA", "--roll", "31", "--json")
    # stderr is empty, or (numba's cache cold) the CLI's one-line compile notice
    assert status == 0 and err in ("", "compiling the move generator (first use only) ...\n")
    data = json.loads(out)
    assert data["id"] == "4HPwATDgc/ABMA"
    assert data["pips"] == [167, 167]  # the standard start
    assert data["legal_plays"] == 16  # published count (tests/data/movecounts.txt)
    assert len(data["plays"]) == 16 and "8/5 6/5" in data["plays"]


def test_json_without_roll_has_no_plays(capsys):
    status, out, _ = run(capsys, "position", "4HPwATDgc/ABMA", "--json")
    data = json.loads(out)
    assert status == 0 and "legal_plays" not in data and data["pips"] == [167, 167]


def test_text_output(capsys):
    status, out, _ = run(capsys, "position", "0HPwATDgc/ABMA", "--roll", "64")
    assert status == 0
    assert "+13-14-15-16-17-18------19-20-21-22-23-24-+" in out
    assert "15 legal plays" in out  # published: 0HPwATDgc/ABMA 6-4 has 15
    assert "24/20*/14" in out


def test_the_cube_owner_is_named_by_the_diagram_s_sides(capsys):
    """XGID cube position 1 is the bottom player's (gnubg's player 1), -1 the top player's;
    turn 1 puts the bottom player on roll, drawn as X."""
    for pos, who in ((1, "X's, player 1"), (-1, "O's, player 0")):
        status, out, _ = run(capsys, "position",
                             f"XGID=-b----E-C---eE---c-e----B-:1:{pos}:1:00:0:0:3:0:10")
        assert status == 0 and f"cube 2 ({who})" in out


def test_dance(capsys):
    status, out, _ = run(capsys, "position", "4HPwATDgc/ABUA", "--roll", "66", "--json")
    assert status == 0 and json.loads(out)["legal_plays"] == 0


@pytest.mark.parametrize(
    "ident",
    [
        "4HPwATDgc/ABMA:QYkqASAAIAAA",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
    ],
)
def test_id_forms(capsys, ident):
    status, out, _ = run(capsys, "position", ident, "--json")
    data = json.loads(out)
    assert status == 0 and data["id"] == "4HPwATDgc/ABMA" and "match_id" in data


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("position", "4HPwATDgc/ABM"), "14 base64 characters"),
        (("position", "4HPwATDgc/ABMA", "--roll", "71"), "die 7"),
        (("position", "4HPwATDgc/ABMA:QYkqASAAIAAI"), "unused bits"),
        (("position", "XGID=-b----E-C---eE---c-e----B-:0:0:7:52:0:0:3:0:10"), "turn"),
    ],
)
def test_errors_exit_2_with_one_line(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == ""
    assert message in err and "Traceback" not in err and err.count("\n") == 1


def test_impossible_position_is_rejected(capsys):
    from mathbg import Position

    shared = Position.from_counts({1: 1}, {24: 1})  # both sides on the same point
    status, _, err = run(capsys, "position", shared.id)
    assert status == 2 and "held by both sides" in err
