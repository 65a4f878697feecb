"""Hardened inputs (issue 13): every reproducer of the issue as a named regression test,
the CLI error contract, the validation rule, memory checks and XG's short tables.

Each bad input must give exit status 2 and exactly one stderr line (never a traceback);
the API raises a specific :class:`mathbg.errors.MathbgError` subclass.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pytest

from mathbg import _resources, _validate
from mathbg.cli import main, run_handler
from mathbg.errors import (
    ConfigurationError,
    InputTooLargeError,
    InsufficientMemoryError,
    InvalidIdError,
    InvalidParameterError,
    InvalidPositionError,
    InvalidScoreError,
    MathbgError,
    METFormatError,
)


def bad_input(capsys, argv: list[str], fragment: str = "") -> str:
    """Run the CLI; assert exit 2 with one stderr line (containing ``fragment``)."""
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (argv, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "internal error" not in err, err
    assert fragment in err, err
    return err


@pytest.fixture(autouse=True)
def _data(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "data"))


PROBS = "0.72,0.25,0.01,0.05,0.002"
HUGE = "999999999999999999999"


# ------------------------------------------------------------------ the CLI contract


def test_an_unexpected_exception_is_an_internal_error_exit_1(capsys):
    def boom(args):
        raise ZeroDivisionError("a bug")

    assert run_handler(boom, argparse.Namespace(), "x") == 1
    err = capsys.readouterr().err
    assert err == "mathbg x: internal error, please report: ZeroDivisionError: a bug\n"


def test_a_plain_value_error_is_an_internal_error_not_bad_input(capsys):
    def boom(args):
        raise ValueError("not a mathbg error")

    assert run_handler(boom, argparse.Namespace(), "x") == 1
    assert "internal error, please report" in capsys.readouterr().err


def test_memory_error_is_one_line_exit_2_with_a_hint(capsys):
    def boom(args):
        raise MemoryError

    assert run_handler(boom, argparse.Namespace(), "x") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "out of memory" in err and "smaller" in err


def test_mathbg_and_os_errors_are_one_line_exit_2(capsys):
    for exc in (InvalidScoreError("bad\nscore"), FileNotFoundError(2, "No such file", "f.xml")):

        def boom(args, exc=exc):
            raise exc

        assert run_handler(boom, argparse.Namespace(), "x") == 2
        assert capsys.readouterr().err.count("\n") == 1


def test_every_specific_error_is_a_mathbg_error():
    from mathbg import errors

    for name in ("DatabaseCorruptError", "TargetExistsError", "ResourceError",
                 "InsufficientSpaceError", "InsufficientMemoryError", "InputTooLargeError",
                 "ConfigurationError"):  # fmt: skip
        assert issubclass(getattr(errors, name), MathbgError)
    assert issubclass(errors.DatabaseCorruptError, errors.DatabaseError)
    assert issubclass(errors.InsufficientSpaceError, errors.ResourceError)


# ------------------------------------------------------------------ the reproducers


@pytest.mark.parametrize(
    "argv",
    [
        ["takepoint", "--away", f"{HUGE},3"],
        ["cube", "decide", "--probs", PROBS, "--away", f"{HUGE},3"],
        ["bearoff", "match", "0,0,0,0,0,1", "0,0,0,0,0,1", "--away", f"{HUGE},3"],
        ["takepoint", "--length", "5", "--score", f"{HUGE}-3"],
        ["takepoint", "--away", "3,3", "--cube", "18446744073709551616"],
        ["cube", "decide", "--probs", PROBS, "--away", "3,3", "--cube", "18446744073709551616"],
    ],
)
def test_reproducer_huge_integers(capsys, argv):
    bad_input(capsys, argv)


def test_reproducer_met_param_length(capsys):
    bad_input(capsys, ["met", "--param", "length=3"], "--length")


def test_reproducer_xml_with_an_unknown_encoding(tmp_path, capsys):
    f = tmp_path / "e.xml"
    f.write_text('<?xml version="1.0" encoding="x-bogus"?>\n<met/>')
    bad_input(capsys, ["met", "--model", str(f)], "unknown XML encoding")
    bad_input(capsys, ["takepoint", "--away", "3,3", "--met", str(f)], "unknown XML encoding")


def test_reproducer_json_nested_100000_deep(tmp_path, capsys):
    f = tmp_path / "deep.json"
    f.write_text('{"pre": ' + "[" * 100_000 + "]" * 100_000 + "}")
    bad_input(capsys, ["met", "--model", str(f)], "nested deeper")


def test_reproducer_deep_xml(tmp_path, capsys):
    f = tmp_path / "deep.xml"
    f.write_text("<met>" + "<a>" * 10_000 + "</a>" * 10_000 + "</met>")
    bad_input(capsys, ["met", "--model", str(f)], "nested deeper")


def test_reproducer_mathbg_data_with_an_unknown_user(monkeypatch, capsys):
    monkeypatch.setenv("MATHBG_DATA", "~nouser-mathbg-test/x")
    bad_input(capsys, ["bearoff", "show", "0,0,0,0,0,1", "--checkers", "1"], "MATHBG_DATA")
    from mathbg._paths import cache_dir

    with pytest.raises(ConfigurationError):
        cache_dir("bearoff")


def test_reproducer_xgid_with_a_5000_digit_field(capsys):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:1" + "0" * 5000
    bad_input(capsys, ["position", xgid])
    from mathbg.rules.ids import decode_xgid, parse_id

    with pytest.raises(InvalidIdError):
        parse_id(xgid)
    with pytest.raises(InvalidIdError):
        decode_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:1" + "0" * 50)


def test_reproducer_match_bearoff_that_cannot_fit_in_memory(capsys, monkeypatch):
    """``bearoff match 0,0,0,0,0,14 0,0,0,0,0,1 --away 3,3`` asked for 67 GiB: now refused
    before any allocation (n = C(20, 6) = 38,760 positions, n^2 pairs x cube states)."""
    monkeypatch.setattr(_resources, "available_memory", lambda: 16 * 2**30)
    err = bad_input(
        capsys, ["bearoff", "match", "0,0,0,0,0,14", "0,0,0,0,0,1", "--away", "3,3"], "GiB"
    )
    assert "38,760" in err
    from mathbg.bearoff.exact.match import solve_score

    with pytest.raises(InsufficientMemoryError):
        solve_score((3, 3), checkers=14)


def test_reproducer_met_decimals(capsys):
    bad_input(capsys, ["met", "--decimals", "100000000"], "--decimals")


def test_reproducer_takepoint_matrix_1024(capsys, monkeypatch):
    bad_input(capsys, ["takepoint", "--length", "1024", "--matrix", "--cube", "64"], "--matrix")
    from mathbg.cube.matrix import score_matrix

    monkeypatch.setattr(_resources, "available_memory", lambda: 2**30)
    with pytest.raises(InsufficientMemoryError, match="1024-away"):
        score_matrix("kazaross-xg2", 1024)


@pytest.mark.parametrize("cube", ["3", "0", "-4"])
def test_reproducer_money_cube_not_a_power_of_two(capsys, cube):
    bad_input(capsys, ["cube", "decide", "--probs", PROBS, "--cube", cube], "power of two")
    from mathbg.cube.cubeful import cube_decision

    with pytest.raises(InvalidScoreError):
        cube_decision([float(x) for x in PROBS.split(",")], cube=int(cube))


def test_reproducer_cube_in_the_crawford_game(capsys):
    bad_input(capsys, ["takepoint", "--away", "1,3", "--crawford", "--cube", "2"], "Crawford")
    bad_input(capsys, ["takepoint", "--away", "1,3", "--crawford", "--owner", "player"],
              "Crawford")  # fmt: skip
    bad_input(capsys, ["cube", "decide", "--probs", PROBS, "--away", "1,3", "--crawford",
                       "--cube", "2"], "Crawford")  # fmt: skip
    bad_input(capsys, ["bearoff", "match", "0,0,0,0,0,1", "0,0,0,0,0,1", "--away", "1,3",
                       "--crawford", "--owner", "player", "--cube", "2"], "Crawford")  # fmt: skip
    from mathbg.cube.match import points

    with pytest.raises(InvalidScoreError, match="Crawford"):
        points("kazaross-xg2", (1, 3), cube=2, crawford=True)
    # the Crawford game itself is fine with the cube on 1 in the centre
    assert main(["takepoint", "--away", "1,3", "--crawford"]) == 0


@pytest.mark.parametrize(
    ("roller", "opponent"),
    [("0,0,0,0,0,0", "0,0,0,0,0,0"), ("0,0,0,0,0,0", "0,0,0,0,0,1"), ("0,0,0,1", "0")],
)
def test_reproducer_two_sided_game_over(capsys, roller, opponent):
    bad_input(capsys, ["bearoff", "show", "--two-sided", roller, opponent], "game is over")


def test_game_over_pair_through_the_api(tmp_path):
    from mathbg.bearoff import TwoSided

    ts = TwoSided.build(3, 2, path=tmp_path / "ts", progress=False)
    with pytest.raises(InvalidPositionError, match="game is over"):
        ts.equities([0, 0, 0], [0, 0, 1])
    with pytest.raises(InvalidPositionError, match="game is over"):
        ts.cube_decision([0, 0, 1], [0, 0, 0])
    # the arrays API still serves the terminal rows (used by the race evaluator)
    assert ts.win_probability([0, 0, 0], [0, 0, 1]) == 1.0


def test_reproducer_xgid_of_a_finished_match(capsys):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10"
    bad_input(capsys, ["position", xgid], "match is over")
    from mathbg.rules.match import GameStatus, MatchState

    with pytest.raises(InvalidScoreError, match="match is over"):
        MatchState(length=7, score=(7, 3))
    over = MatchState(length=7, score=(7, 3), status=GameStatus.OVER)  # a finished record
    assert MatchState.from_id(over.id).score == (7, 3)
    # a Match ID claiming a game in play at 7-3 in a 7-point match (written by the codec)
    from mathbg.rules.idcodec import match_id_from_fields

    mid = match_id_from_fields(
        length=7, score=(7, 3), crawford=False, cube=1, cube_owner=None, on_roll=0, turn=0,
        dice=None, doubled=False, resigned=0, status=int(GameStatus.PLAYING), jacoby=False,
    )  # fmt: skip
    with pytest.raises(InvalidIdError, match="match is over"):
        MatchState.from_id(mid)


def test_reproducer_impossible_positions_have_no_plays():
    from mathbg.rules.position import Position

    with pytest.raises(InvalidPositionError, match="16 checkers"):
        Position.from_counts({6: 8, 8: 8}, {6: 2}).legal_plays((3, 1))
    with pytest.raises(InvalidPositionError, match="held by both sides"):
        Position.from_counts({6: 2}, {19: 2}).legal_plays((3, 1))


def test_reproducer_position_cli_impossible(capsys):
    # 16 checkers for the side on roll (a Position ID cannot hold it; an XGID can)
    bad_input(capsys, ["position", "XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:7:10"])


# ------------------------------------------------------------------ the rule


def test_validation_rule_integers():
    assert _validate.score(1024) == 1024
    assert _validate.score(np.int64(7)) == 7 and _validate.score(7.0) == 7
    for bad in (1025, -1, 2.5, float("nan"), float("inf"), True, "7", None, 10**30):
        with pytest.raises(InvalidScoreError):
            _validate.score(bad, lo=0) if not isinstance(bad, str) else _validate.score("x")
    assert _validate.cube_value(4096) == 4096
    for bad in (0, 3, 8192, -4, 2**64):
        with pytest.raises(InvalidScoreError):
            _validate.cube_value(bad)


def test_validation_rule_floats_and_text():
    assert _validate.finite_float("0.5", "x", 0, 1) == 0.5
    for bad in ("nan", "inf", "-inf", "1e400", "2", "x", None, True):
        with pytest.raises(InvalidParameterError):
            _validate.finite_float(bad, "x", 0, 1)
    with pytest.raises(InputTooLargeError):
        _validate.bounded_text("x" * 5000, "an ID", 4096)
    with pytest.raises(InvalidParameterError):
        _validate.parse_int("1" * 40, "n")
    assert _validate.parse_int(" -12 ", "n") == -12


def test_validation_rule_documents():
    with pytest.raises(METFormatError):
        _validate.json_loads("[" * 65 + "]" * 65, "doc")
    assert _validate.json_loads('{"a": "[[[[[[[["}', "doc") == {"a": "[[[[[[[["}
    assert _validate.json_loads("[" * 64 + "]" * 64, "doc") is not None
    assert _validate.xml_encoding(b'<?xml version="1.0" encoding="UTF-8"?><a/>', "x") == "UTF-8"
    assert _validate.xml_encoding(b"<a/>", "x") is None
    with pytest.raises(METFormatError, match="unknown XML encoding"):
        _validate.xml_encoding(b"<?xml version='1.0' encoding='klingon'?><a/>", "x")
    # a NUL byte in the name (hypothesis found it: codecs.lookup raises ValueError there)
    with pytest.raises(METFormatError, match="unknown XML encoding"):
        _validate.xml_encoding(b'<?xml version="1.0" encoding="\x00TF-8"?><a/>', "x")


def test_memory_is_the_tightest_of_ram_ulimit_and_cgroup(monkeypatch):
    monkeypatch.setattr(_resources, "_meminfo", lambda field: 8 << 30)
    monkeypatch.setattr(_resources, "_address_space_left", lambda: 2 << 30)
    monkeypatch.setattr(_resources, "_cgroup_left", lambda: 4 << 30)
    assert _resources.available_memory() == 2 << 30
    monkeypatch.setattr(_resources, "_address_space_left", lambda: None)
    assert _resources.available_memory() == 4 << 30
    with pytest.raises(InsufficientMemoryError, match=r"needs about 5\.0 GiB.*4\.0 GiB"):
        _resources.check_memory(5 << 30, "this")


def test_ulimit_v_is_read_in_a_child_process():
    import subprocess
    import sys

    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
        "from mathbg._resources import available_memory; print(available_memory())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, check=True).stdout  # fmt: skip
    assert int(out) <= 3 << 30


def test_cgroup_files_are_parsed(tmp_path, monkeypatch):
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "memory.max").write_text("1073741824\n")
    (v2 / "memory.current").write_text("268435456\n")
    monkeypatch.setattr(_resources, "_cgroup_dirs", lambda: [(2, v2)])
    assert _resources._cgroup_left() == 768 << 20
    (v2 / "memory.max").write_text("max\n")
    assert _resources._cgroup_left() is None


# ------------------------------------------------------------------ XG's short table


def test_xg_table_with_size_25_and_24_post_crawford_values_loads(tmp_path, capsys):
    from mathbg.met import build, read
    from mathbg.met.formats.xg import format_xg

    met = build("kazaross-xg2")
    text = format_xg(met)
    lines = text.splitlines()
    k = next(i for i, line in enumerate(lines) if line.startswith("Data="))
    values = lines[k].split("=", 1)[1].split()
    assert len(values) == 25
    lines[k] = "Data=" + " ".join(values[:24])  # XG's own file: Size=25, 24 values
    f = tmp_path / "xg.met"
    f.write_text("\r\n".join(lines) + "\r\n", encoding="cp1252")
    back = read(f)
    assert back.length == 25
    np.testing.assert_allclose(back.post[0][:24], [float(v) for v in values[:24]])
    assert "Size=25 but holds 24 values" in back.notes
    assert 0.0 < back.post[0][24] < back.post[0][23]
    assert main(["met", "--model", str(f), "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["length"] == 25


def test_show_never_starts_a_fifteen_checker_build(tmp_path, monkeypatch, capsys):
    """`bearoff show --two-sided` on a pair outside every built database, beyond what a show
    builds on demand (6x10), names the build command instead of silently starting a
    15-minute, 22 GiB build (a fuzz case, 'bearoff show 0,1,1,1,1,1 15 --two-sided
    --points 0', once did)."""
    from mathbg.cli import main

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    argv = ["bearoff", "show", "--two-sided", "0,0,0,0,0,15", "0,0,0,0,0,15"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "mathbg bearoff build --two-sided --points 6 --checkers 15" in err
    assert main(["bearoff", "show", "0,1,1,1,1,1", "15", "--two-sided", "--points", "0"]) == 2
    assert "--points must lie in 1..24, got 0" in capsys.readouterr().err
    assert not list(tmp_path.glob("bearoff/twosided-*"))  # nothing was built
