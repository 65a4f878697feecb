"""Reproducers of the reliability campaign (issue 25): bad input never ends in an
internal error or a wrong number.

Every bad input here must give exit status 2 and exactly one line on stderr, and the
checks that cost nothing must come before any work (a connection, a build, an
evaluation). Seeded where random, each case bounded in time.
"""

from __future__ import annotations

import contextlib
import io
import random
import time

import pytest

from mathbg.cli import main


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def error_line(*argv: str) -> str:
    """Run ``argv``: exit status 2 and one stderr line (compile notices aside); that line."""
    code, _, err = run(*argv)
    lines = [ln for ln in err.splitlines() if not ln.startswith("compiling ")]
    assert code == 2, (argv, code, err)
    assert len(lines) == 1, (argv, err)
    assert "internal error" not in err and "Traceback" not in err
    return lines[0]


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)


PROBS = "0.70,0.20,0.01,0.05,0.002"


# ----------------------------------------------------------------------- text input files


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (bytes(random.Random(25).randrange(128, 256) for _ in range(300)), 1),  # random bytes
        ("4HPwATDgc/ABMA\n".encode("utf-16"), 1),  # UTF-16 (its BOM is not UTF-8)
        ("4HPwATDgc/ABMA\n# caf\u00e9\n".encode("latin-1"), 2),  # Latin-1 on line 2
    ],
)
def test_a_file_that_is_not_utf8_names_the_line(tmp_path, content, line):
    f = tmp_path / "ids.bin"
    f.write_bytes(content)
    msg = error_line("analyze", "--file", str(f), "--length", "3", "--csv", "o.csv")
    assert f"not UTF-8 text (line {line}" in msg
    assert not (tmp_path / "o.csv").exists()


def test_a_utf8_bom_is_accepted(tmp_path):
    f = tmp_path / "ids.txt"
    f.write_bytes(b"\xef\xbb\xbf4HPwATDgc/ABMA\n")
    code, _, err = run("analyze", "--file", str(f), "--length", "3", "--probs", PROBS,
                       "--csv", "o.csv")  # fmt: skip
    assert code == 0, err
    assert "4HPwATDgc/ABMA" in (tmp_path / "o.csv").read_text()


def test_an_endless_input_file_is_read_only_up_to_the_limit():
    start = time.process_time()
    msg = error_line("analyze", "--file", "/dev/zero", "--length", "3", "--csv", "o.csv")
    assert "longer than 67,108,864 bytes" in msg
    assert time.process_time() - start < 20  # 64 MiB read, not an endless loop
    msg = error_line("met", "--model", "/dev/zero.xml")
    assert "no such file" in msg.lower() or "/dev/zero.xml" in msg


def test_a_met_file_is_read_only_up_to_the_limit(tmp_path):
    f = tmp_path / "big.met"
    with open(f, "wb") as fh:  # sparse: 3 GB on paper, nothing on disk
        fh.truncate(3 << 30)
    start = time.process_time()
    msg = error_line("met", "--model", str(f))
    assert "longer than 67,108,864 bytes" in msg
    assert time.process_time() - start < 20


@pytest.mark.parametrize("encoding", ["utf-7", "idna", "punycode", "rot13", "hex"])
def test_met_xml_in_an_encoding_expat_cannot_read(tmp_path, encoding):
    xml = tmp_path / "a.xml"
    assert run("met", "--length", "3", "--format", "gnubg-xml", "--out", str(xml))[0] == 0
    text = xml.read_text()
    odd = tmp_path / f"b-{encoding}.xml"
    head, _, rest = text.partition("?>")
    odd.write_text(f'<?xml version="1.0" encoding="{encoding}"?>{rest}')
    assert "encoding" in head
    msg = error_line("met", "--model", str(odd))
    assert encoding in msg


def test_met_xml_in_latin1_still_reads(tmp_path):
    xml = tmp_path / "a.xml"
    assert run("met", "--length", "3", "--format", "gnubg-xml", "--out", str(xml))[0] == 0
    body = xml.read_text().partition("?>")[2]
    odd = tmp_path / "latin.xml"
    odd.write_bytes(b'<?xml version="1.0" encoding="latin-1"?>' + body.encode("latin-1"))
    assert run("met", "--model", str(odd))[0] == 0


# ------------------------------------------------------------------------ cheap checks


@pytest.mark.parametrize(
    "address", ["garbage", "tcp://", "127.0.0.1", "inproc://x", "bogus://h:1", "tcp://h:99999"]
)
def test_a_bad_scheduler_address_is_refused_without_connecting(address, monkeypatch):
    import distributed

    def no_connection(*args, **kwargs):
        raise AssertionError("a connection was tried")

    monkeypatch.setattr(distributed, "Client", no_connection)
    msg = error_line("bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                     "--scheduler", address, "--quiet")  # fmt: skip
    assert repr(address) in msg


def test_a_tls_scheduler_without_tls_configuration_is_one_line():
    msg = error_line("bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                     "--scheduler", "tls://127.0.0.1:1", "--quiet")  # fmt: skip
    assert "tls://127.0.0.1:1" in msg


def test_the_space_is_checked_before_the_scheduler(monkeypatch):
    import distributed

    monkeypatch.setattr(distributed, "Client", lambda *a, **k: pytest.fail("connected"))
    msg = error_line("bearoff", "build", "--two-sided", "--points", "-1", "--checkers", "3",
                     "--scheduler", "tcp://127.0.0.1:1")  # fmt: skip
    assert "--points must lie in 1..24, got -1" in msg


@pytest.mark.parametrize(
    ("url", "named"), [("bogus://x/y", "'bogus'"), ("http://127.0.0.1:9/x", "http://")]
)
def test_a_store_url_names_the_protocol_or_the_package(url, named, tmp_path):
    pytest.importorskip("fsspec")
    msg = error_line("bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                     "--store", url, "--quiet")  # fmt: skip
    assert named in msg
    assert not list(tmp_path.rglob("*.build"))


@pytest.mark.parametrize("command", [
    ["takepoint", "--away", "3,5"],
    ["met", "--length", "5"],
    ["race", "/38AAADfAwAAAA"],
    ["analyze", "4HPwATDgc/ABMA", "--length", "3", "--probs", PROBS],
])  # fmt: skip
def test_plot_target_is_checked_before_the_work(command, tmp_path):
    msg = error_line(*command, "--plot", "tp.txt")
    assert "cannot draw a .txt file" in msg
    msg = error_line(*command, "--plot", str(tmp_path / "missing" / "tp.png"))
    assert "no such directory" in msg and "missing" in msg
    _, out, _ = run(*command, "--plot", "tp.txt")
    assert out == ""  # refused before anything was computed or printed


def test_memory_beyond_any_float_is_refused():
    msg = error_line("bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                     "--memory", "1e400")  # fmt: skip
    assert "1e400" in msg


def test_a_memory_refusal_leaves_no_store(tmp_path):
    code, _, _ = run("bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                     "--memory", "1e400", "--out", str(tmp_path / "db"))  # fmt: skip
    assert code == 2
    assert not list(tmp_path.glob(".*build*")) and not (tmp_path / "db").exists()


def test_selfplay_games_have_a_stated_bound():
    for games in ("9223372036854775808", "2147483648"):
        msg = error_line("selfplay", "--games", games)
        assert "games must lie in 1..10000000" in msg and games in msg


@pytest.mark.parametrize("command", [
    ["takepoint", "--away", "3,5", "--json"],
    ["met", "--length", "3"],
    ["cube", "money", "--json"],
    ["cube", "decide", "--probs", PROBS, "--json"],
    ["race", "/38AAADfAwAAAA", "--json"],
    ["bearoff", "show", "0,0,0,0,0,1", "--json"],
    ["bearoff", "match", "0,0,0,0,1,1", "0,0,0,0,1,1", "--away", "3,3", "--json"],
    ["selfplay", "--games", "1", "--json"],
    ["analyze", "4HPwATDgc/ABMA", "--length", "3", "--probs", PROBS, "--json"],
])  # fmt: skip
def test_negative_decimals_are_refused_in_every_command(command):
    msg = error_line(*command, "--decimals", "-1")
    assert "--decimals must lie in 0..17, got -1" in msg


def test_a_huge_away_score_is_one_line_with_the_value_as_given():
    msg = error_line("takepoint", "--away", "9223372036854775808,3")
    assert "9223372036854775808" in msg and "-9223372036854775808" not in msg


def test_refused_quantities():
    assert "--points must lie in 1..24, got 0" in error_line(
        "bearoff", "show", "--points", "0", "0,0,1"
    )
    assert "samples must lie in 1..1048576, got -5" in error_line(
        "race", "--samples", "-5", "/38AAADfAwAAAA"
    )
    assert "--crawford is a match-play state" in error_line(
        "cube", "decide", "--crawford", "--probs", PROBS
    )


@pytest.mark.slow
def test_a_long_model_met_is_refused_before_the_work():
    start = time.process_time()
    msg = error_line("met", "--model", "zadeh", "--length", "1024")
    assert "valid up to about 128-away" in msg
    assert time.process_time() - start < 60  # the full table takes minutes


def test_analyze_checks_the_score_before_evaluating(monkeypatch):
    import mathbg.analysis.matrix as matrix

    monkeypatch.setattr(matrix, "get_evaluator", lambda *a, **k: pytest.fail("evaluated"))
    msg = error_line("analyze", "4HPwATDgc/ABMA")
    assert "--length" in msg


def test_bd_extension_is_case_insensitive(tmp_path):
    code, _, err = run("bearoff", "build", "--points", "3", "--checkers", "3", "--out",
                       str(tmp_path / "x.BD"), "--quiet")  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "x.BD").is_file()
    assert (tmp_path / "x.BD").read_bytes().startswith(b"gnubg")
