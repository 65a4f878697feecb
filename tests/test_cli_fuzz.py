"""Seeded fuzzing of every subcommand, in-process through :func:`mathbg.cli.main`.

Arguments are drawn from valid values and hostile ones (huge, negative, non-finite,
empty, over-long, non-ASCII, mutated IDs and MET files). Every call must end with exit
status 0 or 2, and a status-2 call prints exactly one stderr line; never a traceback,
never "internal error" (exit 1). Each call has a CPU-time limit (ITIMER_PROF: user + system
seconds of this process, so a loaded machine does not fail it), each subcommand a case and
CPU-time budget, and the kernels a subcommand compiles on first use are compiled once before
the timed calls (a session fixture); the seed makes every failure reproducible.
"""

from __future__ import annotations

import contextlib
import io
import random
import shutil
import signal
import time
from pathlib import Path

import pytest

from mathbg.cli import main

SEED = 20261201
CASES = 300  # per subcommand
BUDGET = 12.0  # CPU seconds per subcommand
PER_CALL = 20  # CPU seconds per call (ITIMER_PROF)

#: One valid call per subcommand that compiles what it needs, run before the timed cases.
WARM_UP = {
    "selfplay": [
        ["selfplay", "--variant", variant, "--games", "1", "--seed", "1", *player]
        for variant in ("backgammon", "plakoto", "portes", "fevga", "nardi")
        for player in ([], ["--player", "random"], ["--player", "greedy"])
    ],
}

INTS = ["0", "1", "2", "3", "4", "5", "7", "-1", "-4", "25", "64", "1024", "1025",
        "999999999999999999999", "18446744073709551616", "1" * 5000, "3.5", "nan", "inf",
        "", " ", "x", "0x10", "+3", "-0", "\u0663", "1e3"]  # fmt: skip
FLOATS = ["0", "0.5", "1", "0.2", "0.68", "-0.1", "1.5", "nan", "inf", "-inf", "1e308",
          "1e-320", "", "x", "0,5", "2/3", "1" * 400]  # fmt: skip
SMALL = ["1", "2", "3", "4", "5", "6"]
IDS = ["4HPwATDgc/ABMA", "/38AAADfAwAAAA", "4HPwATDgc/ABMA:cAkAAAAAAAAA",
       "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10",
       "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10",
       "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:7:0:0:7:10",
       "", ":", "XGID=", "gnubgid", "\u00e9" * 20, "A" * 3000]  # fmt: skip


def _mutate(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 4)):
        op = rng.random()
        k = rng.randrange(len(chars) + 1)
        if op < 0.3 and chars:
            chars[min(k, len(chars) - 1)] = rng.choice("0123456789:/-+=ABCxyz,.\u00ff")
        elif op < 0.6:
            chars.insert(k, rng.choice(":0-9AZaz/\n\t"))
        elif chars:
            del chars[min(k, len(chars) - 1)]
    return "".join(chars)


def _pair(rng: random.Random, pool: list[str]) -> str:
    r = rng.random()
    if r < 0.6:
        return f"{rng.choice(pool)},{rng.choice(pool)}"
    if r < 0.8:
        return rng.choice(pool)
    return rng.choice([",", "3,3,3", "3,", ",3", " , ", "3;3"])


def _counts(rng: random.Random, points: int = 6) -> str:
    if rng.random() < 0.2:
        return rng.choice(["", ",", "a,b", "0," * 30, "-1,2", "1e9", "0,0,0,0,0,16", "15"])
    n = rng.randint(1, points)
    values = [str(rng.choice([0, 0, 0, 1, 1])) for _ in range(n)]  # small: fast databases
    if rng.random() < 0.1:
        values[rng.randrange(n)] = rng.choice(["-1", "99", "999999999999999999999", "x"])
    return ",".join(values)


def _met_file(tmp: Path, rng: random.Random, k: int) -> str:
    """A shipped-table file written by mathbg, then mutated."""
    from mathbg.met import build
    from mathbg.met.formats import render

    fmt, ext = rng.choice([("gnubg-xml", "xml"), ("xg", "met"), ("json", "json")])
    text = render(build("kazaross-xg2", length=rng.choice([3, 5, 7])), fmt)
    if rng.random() < 0.8:
        lines = text.splitlines(keepends=True)
        i = rng.randrange(len(lines))
        lines[i] = _mutate(lines[i], rng)
        text = "".join(lines)
    f = tmp / f"m{k}.{ext}"
    f.write_text(text, encoding="utf-8", errors="surrogateescape")
    return str(f)


def _opt(argv: list[str], rng: random.Random, p: float, name: str, value: str | None = None):
    if rng.random() < p:
        argv.append(name)
        if value is not None:
            argv.append(value)


def case_position(rng, tmp, k):
    ident = rng.choice(IDS)
    if rng.random() < 0.6:
        ident = _mutate(ident, rng)
    argv = ["position", ident]
    _opt(argv, rng, 0.5, "--roll", rng.choice(["64", "6-4", "11", "07", "", "x", "6 4", "666"]))
    _opt(argv, rng, 0.3, "--json")
    return argv


def case_met(rng, tmp, k):
    argv = ["met"]
    model = rng.choice(["kazaross-xg2", "zadeh", "mec", "montgomery", "cubeless", "bogus", "",
                        "g11", "FILE", "FILE"])  # fmt: skip
    if model == "FILE":
        model = _met_file(tmp, rng, k)
    _opt(argv, rng, 0.8, "--model", model)
    _opt(argv, rng, 0.4, "--length", rng.choice(INTS))
    _opt(argv, rng, 0.2, "--gammon-rate", rng.choice(FLOATS))
    _opt(argv, rng, 0.2, "--param", rng.choice(["length=3", "delta_bar=0.05", "x", "a=b",
                                                "gammon_rate=nan", "=1"]))  # fmt: skip
    _opt(argv, rng, 0.2, "--decimals", rng.choice(INTS))
    _opt(argv, rng, 0.3, "--format", rng.choice(["table", "csv", "json", "xml", "xg", "bogus"]))
    _opt(argv, rng, 0.05, "--out", str(tmp / rng.choice(["o.xml", "o.met", "o.json", "d/o.csv"])))
    return argv


def case_takepoint(rng, tmp, k):
    argv = ["takepoint"]
    if rng.random() < 0.7:
        _opt(argv, rng, 1.0, "--away", _pair(rng, INTS))
    else:
        _opt(argv, rng, 0.9, "--length", rng.choice(INTS[:14]))
        _opt(argv, rng, 0.8, "--score", rng.choice(["4-3", "0-0", "9-9", "-1-2", "x", "3"]))
    _opt(argv, rng, 0.4, "--cube", rng.choice(INTS))
    _opt(argv, rng, 0.3, "--owner", rng.choice(["centre", "player", "opponent", "x"]))
    _opt(argv, rng, 0.3, "--gammons", _pair(rng, FLOATS))
    _opt(argv, rng, 0.2, "--backgammons", _pair(rng, FLOATS))
    _opt(argv, rng, 0.2, "--crawford")
    _opt(argv, rng, 0.1, "--post-crawford")
    _opt(argv, rng, 0.2, "--x", rng.choice(FLOATS))
    _opt(argv, rng, 0.2, "--met", rng.choice(["kazaross-xg2", "zadeh", "bogus", ""]))
    if rng.random() < 0.1:
        argv += ["--matrix", "--length", rng.choice(["1", "3", "5", "129", "1024", "-2"])]
    _opt(argv, rng, 0.3, "--json")
    return argv


def case_cube(rng, tmp, k):
    if rng.random() < 0.4:
        argv = ["cube", "money"]
        _opt(argv, rng, 0.6, "--gammons", _pair(rng, FLOATS))
        _opt(argv, rng, 0.3, "--backgammons", _pair(rng, FLOATS))
        _opt(argv, rng, 0.3, "--x", rng.choice(FLOATS))
        _opt(argv, rng, 0.2, "--jacoby")
        _opt(argv, rng, 0.2, "--beavers")
    else:
        argv = ["cube", "decide"]
        probs = ",".join(rng.choice(FLOATS[:6]) for _ in range(rng.choice([5, 5, 5, 4, 6])))
        _opt(argv, rng, 0.95, "--probs", probs)
        _opt(argv, rng, 0.5, "--away", _pair(rng, INTS))
        _opt(argv, rng, 0.4, "--cube", rng.choice(INTS))
        _opt(argv, rng, 0.3, "--owner", rng.choice(["centre", "player", "opponent"]))
        _opt(argv, rng, 0.2, "--x", rng.choice(FLOATS))
        _opt(argv, rng, 0.2, "--crawford")
        _opt(argv, rng, 0.1, "--jacoby")
        _opt(argv, rng, 0.1, "--beavers")
    _opt(argv, rng, 0.3, "--json")
    return argv


def case_bearoff(rng, tmp, k):
    r = rng.random()
    if r < 0.25:
        argv = ["bearoff", "build", "--quiet"]
        _opt(argv, rng, 0.8, "--points", rng.choice(["1", "2", "3", "4", "0", "-1", "x", "99"]))
        _opt(argv, rng, 0.8, "--checkers", rng.choice(["1", "2", "3", "4", "0", "-3", "16"]))
        _opt(argv, rng, 0.3, "--two-sided")
        _opt(argv, rng, 0.2, "--policy", rng.choice(["gnubg", "min-rolls", "x"]))
        out = rng.choice([None, "db", "x.bd", "file.txt", ".", "sub/db"])
        if out == "file.txt":
            if (tmp / "file.txt").is_dir():  # replaced by an earlier --force
                shutil.rmtree(tmp / "file.txt")
            (tmp / "file.txt").write_text("user data")
        if out is not None:
            argv += ["--out", str(tmp / out) if out != "." else "."]
        _opt(argv, rng, 0.1, "--force")
    elif r < 0.7:
        two = rng.random() < 0.4
        argv = ["bearoff", "show", _counts(rng)] + ([_counts(rng)] if two else [])
        _opt(argv, rng, 1.0 if two else 0.05, "--two-sided")
        _opt(argv, rng, 0.2, "--checkers", rng.choice(["1", "3", "6", "0", "16", "x"]))
        _opt(argv, rng, 0.1, "--points", rng.choice(["6", "0", "25"]))
        _opt(argv, rng, 0.1, "--db", str(tmp / rng.choice(["db", "x.bd", "file.txt", "none"])))
        _opt(argv, rng, 0.3, "--json")
    else:
        argv = ["bearoff", "match", _counts(rng), _counts(rng), "--away", _pair(rng, INTS[:9])]
        _opt(argv, rng, 0.3, "--cube", rng.choice(INTS[:9]))
        _opt(argv, rng, 0.3, "--owner", rng.choice(["centre", "player", "opponent"]))
        _opt(argv, rng, 0.2, "--crawford")
        _opt(argv, rng, 0.9, "--checkers", rng.choice(["1", "2", "3", "0", "15", "x"]))
        _opt(argv, rng, 0.3, "--json")
    return argv


def case_race(rng, tmp, k):
    if rng.random() < 0.6:
        ident = rng.choice(["/38AAADfAwAAAA", "4HPwATDgc/ABMA", "2w4AAMDbAQAAAA", *IDS])
        argv = ["race", _mutate(ident, rng) if rng.random() < 0.5 else ident]
    else:
        sides = ["6:2,5:3", "1:15", "25:1", "6:16", "x", "", "0:1", "1:1", ",".join(["0"] * 24),
                 "6:99999999999999999999"]  # fmt: skip
        argv = ["race", "--counts", rng.choice(sides), rng.choice(sides)]
    _opt(argv, rng, 0.2, "--x", rng.choice(FLOATS))
    _opt(argv, rng, 0.2, "--money")
    _opt(argv, rng, 0.2, "--samples", rng.choice(["1", "8", "0", "-1", "x", "100"]))
    _opt(argv, rng, 0.2, "--seed", rng.choice(INTS))
    _opt(argv, rng, 0.1, "--met", rng.choice(["zadeh", "bogus"]))
    _opt(argv, rng, 0.3, "--json")
    return argv


def case_selfplay(rng, tmp, k):
    argv = ["selfplay"]
    _opt(argv, rng, 0.7, "--variant", rng.choice(["backgammon", "plakoto", "portes", "fevga",
                                                  "nardi", "bogus", ""]))  # fmt: skip
    _opt(argv, rng, 1.0, "--games", rng.choice(["1", "2", "3", "0", "-5", "x", "1e3"]))
    _opt(argv, rng, 0.5, "--seed", rng.choice(INTS))
    _opt(argv, rng, 0.2, "--player", rng.choice(["random", "greedy", "x"]))
    _opt(argv, rng, 0.3, "--json")
    return argv


GENERATORS = {
    "position": case_position,
    "met": case_met,
    "takepoint": case_takepoint,
    "cube": case_cube,
    "bearoff": case_bearoff,
    "race": case_race,
    "selfplay": case_selfplay,
}


class _TooSlow(Exception):
    pass


def _alarm(signum, frame):
    raise _TooSlow


@pytest.fixture(scope="session")
def compiled():
    """Compile each subcommand's kernels once per session, outside any time limit."""
    done: set[str] = set()

    def warm(command: str) -> None:
        if command in WARM_UP and command not in done:
            with (
                contextlib.redirect_stdout(io.StringIO()),
                contextlib.redirect_stderr(io.StringIO()),
            ):
                for argv in WARM_UP[command]:
                    main(argv)
            done.add(command)

    return warm


@pytest.mark.slow
@pytest.mark.parametrize("command", list(GENERATORS))
def test_fuzz_subcommand(command, tmp_path, monkeypatch, compiled):
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    compiled(command)
    rng = random.Random(f"{SEED}-{command}")
    old = signal.signal(signal.SIGPROF, _alarm)
    start = time.process_time()
    done = 0
    try:
        for k in range(CASES):
            if time.process_time() - start > BUDGET:
                break
            argv = GENERATORS[command](rng, tmp_path, k)
            out, err = io.StringIO(), io.StringIO()
            signal.setitimer(signal.ITIMER_PROF, PER_CALL)
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = main(argv)
            except _TooSlow:
                pytest.fail(f"case {k} (seed {SEED}) took over {PER_CALL} CPU s: {argv!r}")
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            text = err.getvalue()
            where = f"case {k} (seed {SEED}): {argv!r} -> {code}\n{text[-3000:]}"
            assert code in (0, 2), where
            assert "Traceback" not in text and "internal error" not in text, where
            if code == 2:
                lines = [line for line in text.splitlines() if not line.startswith("mathbg: ")]
                assert len(lines) <= 1, where  # one error line (warnings aside)
            done += 1
    finally:
        signal.signal(signal.SIGPROF, old)
    assert done >= 10
