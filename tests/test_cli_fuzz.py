"""Seeded fuzzing of every subcommand, in-process through :func:`mathbg.cli.main`.

Arguments are drawn from valid values and hostile ones (huge, negative, non-finite,
empty, over-long, non-ASCII, mutated IDs and MET files). Every call must end with exit
status 0 or 2, and a status-2 call prints exactly one stderr line; never a traceback,
never "internal error" (exit 1). Each call has a CPU-time limit (SIGPROF), each
subcommand a case and CPU-time budget, after an untimed warm-up call that compiles its
kernels; the seed makes every failure reproducible (it is in the message).
"""

from __future__ import annotations

import contextlib
import io
import random
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

from mathbg.cli import main

SEED = 20261201
CASES = 300  # per subcommand
BUDGET = 12.0  # CPU seconds per subcommand
# CPU seconds per call (SIGPROF): a hang detector, with room for a call that compiles kernels
# its warm-up did not (e.g. `corpus --audit` on a match that reaches the race engine, with
# an empty numba cache: about 25 CPU-s)
PER_CALL = 60

INTS = ["0", "1", "2", "3", "4", "5", "7", "-1", "-4", "25", "64", "1024", "1025",
        "999999999999999999999", "18446744073709551616", "1" * 5000, "3.5", "nan", "inf",
        "", " ", "x", "0x10", "+3", "-0", "\u0663", "1e3"]  # fmt: skip
#: --plies for a whole match (audit, corpus --audit): INTS without the valid 2..4, where
#: `--engine auto` hands the match to the gnubg program, minutes of CPU at 3-4 plies that
#: the budget does not see (a long-lived child process). The 2-ply path has its own tests.
MATCH_PLIES = [p for p in INTS if not (len(p) < 9 and p.strip().lstrip("+-").isdecimal()
                                        and 2 <= int(p) <= 4)]  # fmt: skip
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


def _plot(tmp: Path, rng: random.Random) -> str:
    """A --plot target: valid, an unknown format, a missing directory, a directory."""
    return rng.choice([str(tmp / "p.png"), "p.txt", str(tmp / "no" / "p.png"), str(tmp),
                       "p", "p.PNG", "p.svg"])  # fmt: skip


def _decimals(argv: list[str], rng: random.Random) -> None:
    _opt(argv, rng, 0.15, "--decimals", rng.choice(["0", "3", "17", "18", "-1", *INTS]))


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
    _opt(argv, rng, 0.1, "--win-rate", rng.choice(FLOATS))
    _opt(argv, rng, 0.1, "--free-drop", _pair(rng, FLOATS))
    _opt(argv, rng, 0.05, "--plot", _plot(tmp, rng))
    _opt(argv, rng, 0.05, "--list")
    _opt(argv, rng, 0.05, "--force")
    if rng.random() < 0.25:  # the self-play table: every argument checked before any game
        argv += ["--model", "selfplay"]
        _opt(argv, rng, 0.6, "--games", rng.choice(["0", "-1", "1", "2", "2147483648", "x"]))
        _opt(argv, rng, 0.4, "--seed", rng.choice(["1", "-1", "x", *INTS[:6]]))
        _opt(argv, rng, 0.4, "--engine", rng.choice(["gnubg-nn", "exact", "race", "bogus"]))
        _opt(argv, rng, 0.3, "--plies", rng.choice(INTS))
        _opt(argv, rng, 0.3, "--no-crawford")
        _opt(argv, rng, 0.3, "--cube-limit", rng.choice(["1", "2", "3", "64", "-2", "x"]))
        _opt(argv, rng, 0.2, "--start", rng.choice(["0,0,1,1", "x", "1,1", ""]))
        _opt(argv, rng, 0.2, "--store", rng.choice([str(tmp / "st"), "bogus://x/y"]))
        _opt(argv, rng, 0.2, "--scheduler", rng.choice(["garbage", "tcp://", "local:0"]))
        _opt(argv, rng, 0.2, "--compare", rng.choice(["kazaross-xg2", "bogus"]))
        _opt(argv, rng, 0.2, "--target-se", rng.choice(["0.005", "0", "-0.1", "nan", "x", "1e-9"]))
        _opt(argv, rng, 0.2, "--max-games", rng.choice(["0", "-1", "600", "x", *INTS[:4]]))
        if rng.random() < 0.2:
            specs = ["gnubg-nn", "gnubg-nn:noise=0.1", "gnubg-nn:noise=-1", "gnubg-nn:plies=x",
                     "instant:0.5,0.1,0,0.1,0", "bogus", ""]  # fmt: skip
            argv += ["--players", rng.choice(specs), rng.choice(specs)]
        if "--games" not in argv or argv[argv.index("--games") + 1] not in ("0", "-1", "x"):
            argv += ["--length", rng.choice(["0", "-1", "x", "1025"])]  # no games played
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
    _opt(argv, rng, 0.2, "--cube-life", rng.choice(FLOATS))
    _opt(argv, rng, 0.2, "--met", rng.choice(["kazaross-xg2", "zadeh", "bogus", ""]))
    if rng.random() < 0.1:
        argv += ["--matrix", "--length", rng.choice(["1", "3", "5", "129", "1024", "-2"])]
    _opt(argv, rng, 0.3, "--json")
    _opt(argv, rng, 0.05, "--plot", _plot(tmp, rng))
    _opt(argv, rng, 0.05, "--force")
    _decimals(argv, rng)
    return argv


def case_cube(rng, tmp, k):
    if rng.random() < 0.4:
        argv = ["cube", "money"]
        _opt(argv, rng, 0.6, "--gammons", _pair(rng, FLOATS))
        _opt(argv, rng, 0.3, "--backgammons", _pair(rng, FLOATS))
        _opt(argv, rng, 0.3, "--cube-life", rng.choice(FLOATS))
        _opt(argv, rng, 0.2, "--jacoby")
        _opt(argv, rng, 0.2, "--beavers")
    else:
        argv = ["cube", "decide"]
        probs = ",".join(rng.choice(FLOATS[:6]) for _ in range(rng.choice([5, 5, 5, 4, 6])))
        _opt(argv, rng, 0.95, "--probs", probs)
        _opt(argv, rng, 0.5, "--away", _pair(rng, INTS))
        _opt(argv, rng, 0.4, "--cube", rng.choice(INTS))
        _opt(argv, rng, 0.3, "--owner", rng.choice(["centre", "player", "opponent"]))
        _opt(argv, rng, 0.2, "--cube-life", rng.choice(FLOATS))
        _opt(argv, rng, 0.2, "--crawford")
        _opt(argv, rng, 0.1, "--jacoby")
        _opt(argv, rng, 0.1, "--beavers")
        _opt(argv, rng, 0.1, "--met", rng.choice(["kazaross-xg2", "zadeh", "bogus", ""]))
    _opt(argv, rng, 0.3, "--json")
    _decimals(argv, rng)
    return argv


def case_bearoff(rng, tmp, k):
    r = rng.random()
    if r < 0.25:
        argv = ["bearoff", "build", "--quiet"]
        _opt(argv, rng, 0.9, "--points", rng.choice(["1", "2", "3", "0", "-1", "x", "99"]))
        _opt(argv, rng, 0.9, "--checkers", rng.choice(["1", "2", "3", "0", "-3", "16"]))
        _opt(argv, rng, 0.3, "--two-sided")
        _opt(argv, rng, 0.2, "--policy", rng.choice(["gnubg", "min-rolls", "x"]))
        _opt(argv, rng, 0.1, "--cubeless-only")
        _opt(argv, rng, 0.1, "--dtype", rng.choice(["u16", "f32", "f64", "x"]))
        _opt(argv, rng, 0.1, "--memory", rng.choice(["1e400", "1KiB", "1GiB", "-1", "x", "",
                                                     "nan", "inf", "1e30TiB", "8G"]))  # fmt: skip
        _opt(argv, rng, 0.1, "--scheduler", rng.choice(["garbage", "tcp://", "127.0.0.1",
                                                        "inproc://x", "bogus://h:1", "",
                                                        "tcp://h:0", "[::1]"]))  # fmt: skip
        _opt(argv, rng, 0.1, "--store", rng.choice(["bogus://x/y", "http://127.0.0.1:9/x",
                                                    str(tmp / "store"), "", "://"]))  # fmt: skip
        _opt(argv, rng, 0.1, "--rebuild")
        out = rng.choice([None, "db", "x.bd", "x.BD", "file.txt", ".", "sub/db"])
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
        _opt(argv, rng, 0.1, "--policy", rng.choice(["gnubg", "min-rolls"]))
        _opt(argv, rng, 0.1, "--owner", rng.choice(["centre", "player", "opponent", "x"]))
        _opt(argv, rng, 0.1, "--no-beavers")
        _opt(argv, rng, 0.3, "--json")
        _decimals(argv, rng)
    else:
        argv = ["bearoff", "match", _counts(rng), _counts(rng), "--away", _pair(rng, INTS[:9])]
        _opt(argv, rng, 0.3, "--cube", rng.choice(INTS[:9]))
        _opt(argv, rng, 0.3, "--owner", rng.choice(["centre", "player", "opponent"]))
        _opt(argv, rng, 0.2, "--crawford")
        _opt(argv, rng, 0.9, "--checkers", rng.choice(["1", "2", "3", "0", "15", "x"]))
        _opt(argv, rng, 0.1, "--met", rng.choice(["kazaross-xg2", "zadeh", "bogus"]))
        _opt(argv, rng, 0.1, "--cache")
        _opt(argv, rng, 0.3, "--json")
        _decimals(argv, rng)
    return argv


def case_race(rng, tmp, k):
    if rng.random() < 0.6:
        ident = rng.choice(["/38AAADfAwAAAA", "4HPwATDgc/ABMA", "2w4AAMDbAQAAAA", *IDS])
        argv = ["race", _mutate(ident, rng) if rng.random() < 0.5 else ident]
    else:
        sides = ["6:2,5:3", "1:15", "25:1", "6:16", "x", "", "0:1", "1:1", ",".join(["0"] * 24),
                 "6:99999999999999999999"]  # fmt: skip
        argv = ["race", "--counts", rng.choice(sides), rng.choice(sides)]
    _opt(argv, rng, 0.2, "--cube-life", rng.choice(FLOATS))
    _opt(argv, rng, 0.2, "--money")
    _opt(argv, rng, 0.1, "--no-jacoby")
    _opt(argv, rng, 0.1, "--no-beavers")
    _opt(argv, rng, 0.2, "--samples", rng.choice(["1", "8", "0", "-1", "x", "100"]))
    _opt(argv, rng, 0.2, "--seed", rng.choice(INTS))
    _opt(argv, rng, 0.1, "--met", rng.choice(["zadeh", "bogus"]))
    _opt(argv, rng, 0.1, "--keith-rounding", rng.choice(["down", "none", "x"]))
    _opt(argv, rng, 0.1, "--thorp", rng.choice(["thorp", "gnubg", "xg", "x"]))
    _opt(argv, rng, 0.05, "--plot", _plot(tmp, rng))
    _opt(argv, rng, 0.05, "--force")
    _opt(argv, rng, 0.3, "--json")
    _decimals(argv, rng)
    return argv


def case_selfplay(rng, tmp, k):
    argv = ["selfplay"]
    _opt(argv, rng, 0.7, "--variant", rng.choice(["backgammon", "plakoto", "portes", "fevga",
                                                  "nardi", "bogus", ""]))  # fmt: skip
    _opt(argv, rng, 1.0, "--games", rng.choice(["1", "2", "3", "0", "-5", "x", "1e3",
                                                "9223372036854775808", "2147483648"]))  # fmt: skip
    _opt(argv, rng, 0.5, "--seed", rng.choice(INTS))
    _opt(argv, rng, 0.2, "--player", rng.choice(["random", "greedy", "x"]))
    _opt(argv, rng, 0.3, "--json")
    _decimals(argv, rng)
    return argv


def _ids_file(tmp: Path, rng: random.Random, k: int) -> str:
    """A batch file: IDs, mutated IDs, comments, odd encodings and bytes."""
    kind = rng.random()
    f = tmp / f"ids{k}.txt"
    if kind < 0.15:
        return rng.choice(["/dev/zero", str(tmp / "missing.txt"), str(tmp)])
    lines = [rng.choice(IDS[:3]) if rng.random() < 0.7 else _mutate(rng.choice(IDS), rng)
             for _ in range(rng.randint(0, 3))]  # fmt: skip
    text = "\n".join(["# batch", *lines]) + "\n"
    encoding = rng.choice(["utf-8", "utf-8", "utf-8-sig", "utf-16", "latin-1"])
    data = text.encode(encoding, errors="replace")
    if rng.random() < 0.2:
        data += bytes(rng.randrange(256) for _ in range(20))
    f.write_bytes(data)
    return str(f)


def case_analyze(rng, tmp, k):
    argv = ["analyze"]
    if rng.random() < 0.25:
        argv += ["--file", _ids_file(tmp, rng, k)]
        _opt(argv, rng, 0.7, "--csv", rng.choice([str(tmp / "o.csv"), str(tmp), "o.csv"]))
    else:
        ident = rng.choice(IDS[:3])
        argv.append(_mutate(ident, rng) if rng.random() < 0.3 else ident)
    r = rng.random()
    if r < 0.6:
        argv += ["--length", rng.choice(["1", "3", "5", "0", "-1", "1025", "x", *INTS])]
    elif r < 0.8:
        argv.append("--money")
    probs = ",".join(rng.choice(FLOATS[:6]) for _ in range(rng.choice([5, 5, 5, 4, 6])))
    _opt(argv, rng, 0.9, "--probs", probs)  # mostly the given engine: no engine to load
    _opt(argv, rng, 0.1, "--engine", rng.choice(["given", "race", "exact", "auto", "x"]))
    _opt(argv, rng, 0.1, "--plies", rng.choice(["0", "1", "-1", "9", "x"]))
    _opt(argv, rng, 0.1, "--met", rng.choice(["kazaross-xg2", "zadeh", "bogus", ""]))
    _opt(argv, rng, 0.1, "--compare-met", rng.choice(["woolsey", "zadeh", "bogus"]))
    _opt(argv, rng, 0.1, "--cube-life", rng.choice(FLOATS))
    _opt(argv, rng, 0.1, "--max-cube", rng.choice(["1", "2", "4", "3", "0", "-2", "99999"]))
    _opt(argv, rng, 0.1, "--no-exact")
    _opt(argv, rng, 0.1, "--no-jacoby")
    _opt(argv, rng, 0.1, "--no-beavers")
    _opt(argv, rng, 0.05, "--cube-eval", rng.choice(["mathbg", "engine", "x"]))  # engine: refused
    _opt(argv, rng, 0.05, "--plot", _plot(tmp, rng))
    _opt(argv, rng, 0.05, "--force")
    _opt(argv, rng, 0.3, "--json")
    # --rollout: refused values only (a valid one rolls out at every score: too slow here)
    _opt(argv, rng, 0.05, "--rollout", rng.choice(["0", "-1", "x", "", "3600001"]))
    _decimals(argv, rng)
    return argv


#: Bearoffs inside the exact solver (a rollout's trials end at once), and a contact position
#: (its rollouts are only given refused options here).
ROLLOUT_IDS = ["AwAAWAAAAAAAAA", "4HPwATDgc/ABMA"]


def case_rollout(rng, tmp, k):
    ident = rng.choice(ROLLOUT_IDS + IDS)
    argv = ["rollout", _mutate(ident, rng) if rng.random() < 0.2 else ident]
    cheap = ident == ROLLOUT_IDS[0]
    r = rng.random()
    if r < 0.6:
        argv += ["--away", rng.choice(["3,3", "2,2"]) if cheap and rng.random() < 0.5
                 else _pair(rng, INTS)]  # fmt: skip
    elif r < 0.7:
        argv.append("--money")
    elif r < 0.8:
        argv += ["--matrix", "--length", rng.choice(["2", "0", "1", "26", "x"]
                                                    if cheap else ["0", "1", "26", "x"])]
    trials = ["36", "1", "0", "-5", "x", "3600001", ""] if cheap else ["0", "-5", "x", ""]
    argv += ["--trials", rng.choice(trials)] if rng.random() < 0.9 else [
        "--target-se", rng.choice(["0", "-0.1", "nan", "x", "inf"])]  # fmt: skip
    _opt(argv, rng, 0.1, "--max-trials", rng.choice(["0", "72", "x"]))
    _opt(argv, rng, 0.1, "--cube", rng.choice(["1", "2", "3", "0", "x", "1024"]))
    _opt(argv, rng, 0.1, "--owner", rng.choice(["centre", "player", "opponent", "x"]))
    _opt(argv, rng, 0.05, "--crawford")
    _opt(argv, rng, 0.05, "--cube-limit", rng.choice(["1", "2", "3", "0", "x"]))
    _opt(argv, rng, 0.1, "--no-jacoby")
    _opt(argv, rng, 0.1, "--no-beavers")
    _opt(argv, rng, 0.05, "--met", rng.choice(["kazaross-xg2", "zadeh", "bogus", ""]))
    _opt(argv, rng, 0.05, "--engine", rng.choice(["gnubg-nn", "exact", "x"]))
    _opt(argv, rng, 0.05, "--plies", rng.choice(["0", "-1", "9", "x"]))
    _opt(argv, rng, 0.05, "--seed", rng.choice(["0", "-1", "x", "1" * 30]))
    _opt(argv, rng, 0.05, "--no-variance-reduction")
    _opt(argv, rng, 0.05, "--truncate", rng.choice(["exact", "race", "none", "x"]))
    _opt(argv, rng, 0.05, "--lines", rng.choice(["no_double", "double_take", "x", ",", ""]))
    _opt(argv, rng, 0.05, "--scheduler", rng.choice(["local:0", "local:x", ""]))
    _opt(argv, rng, 0.05, "--store", rng.choice([str(tmp / f"s{k}"), str(tmp), "x://y"]))
    _opt(argv, rng, 0.05, "--plot", _plot(tmp, rng))
    _opt(argv, rng, 0.05, "--force")
    if rng.random() < 0.3:
        argv.append("--json")
    else:
        _opt(argv, rng, 0.1, "--csv", rng.choice([str(tmp / "o.csv"), str(tmp), "o.txt"]))
    _decimals(argv, rng)
    return argv


MATCHES = Path(__file__).resolve().parent / "data" / "matches"


def _match_file(tmp: Path, rng: random.Random, k: int) -> str:
    """A bundled match file (the small hand-built one most often), often mutated, or a
    path that is not a match at all."""
    r = rng.random()
    if r < 0.1:
        return rng.choice([str(tmp / "missing.mat"), str(tmp), "", "\u00e9.mat"])
    if r < 0.15:
        f = tmp / f"bin{k}.mat"
        f.write_bytes(bytes(rng.randrange(256) for _ in range(200)))
        return str(f)
    name = "handbuilt_last_roll.mat" if rng.random() < 0.7 else rng.choice(
        sorted(p.name for p in MATCHES.glob("match*.txt")))
    text = (MATCHES / name).read_text(encoding="utf-8")
    if rng.random() < 0.5:
        lines = text.splitlines(keepends=True)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            lines[i] = _mutate(lines[i], rng)
        text = "".join(lines)
    f = tmp / f"f{k}.{rng.choice(['mat', 'txt', 'sgf', 'MAT'])}"
    f.write_text(text, encoding="utf-8", errors="surrogateescape")
    return str(f)


def case_audit(rng, tmp, k):
    argv = ["audit", _match_file(tmp, rng, k)]
    _opt(argv, rng, 0.4, "--engine", rng.choice(["race", "exact", "auto", "bogus", "gnubg-nn",
                                                 "given", ""]))  # fmt: skip
    _opt(argv, rng, 0.2, "--plies", rng.choice(MATCH_PLIES))
    _opt(argv, rng, 0.1, "--threads", rng.choice(["0", "1", "2", "-3", "x", ""]))
    _opt(argv, rng, 0.2, "--met", rng.choice(["kazaross-xg2", "zadeh", "bogus", ""]))
    _opt(argv, rng, 0.2, "--compare-met", rng.choice(["woolsey", "g11", "bogus"]))
    _opt(argv, rng, 0.2, "--player", rng.choice(["lasse", "nobody", "", "\u00e9" * 9]))
    r = rng.random()
    if r < 0.1:
        argv.append("--all")
    elif r < 0.2:
        argv.append("--errors")
    _opt(argv, rng, 0.6, "--cube-only")  # the whole analysis is the slow part
    _opt(argv, rng, 0.1, "--statistics")
    _opt(argv, rng, 0.1, "--sgf", str(tmp / rng.choice(["a.sgf", "no/a.sgf", "a.mat"])))
    _opt(argv, rng, 0.2, "--no-exact")
    r = rng.random()
    if r < 0.08:  # one rollout of at most 36 trials (the default 1296 is minutes)
        argv += ["--rollout-errors", rng.choice(["0", "-1", "1", "x", ""]),
                 "--rollout-trials", rng.choice(["0", "1", "36", "x", "3600001"])]  # fmt: skip
    elif r < 0.1:
        argv += ["--rollout-trials", "36"]  # without --rollout-errors: refused
    r = rng.random()
    if r < 0.3:
        argv.append("--json")
    elif r < 0.4:
        argv += ["--csv", str(tmp / rng.choice(["a.csv", "no/a.csv"]))]
    _opt(argv, rng, 0.05, "--plot", _plot(tmp, rng))
    _opt(argv, rng, 0.05, "--force")
    _decimals(argv, rng)
    return argv


def case_cache(rng, tmp, k):
    if rng.random() < 0.4:
        argv = ["cache"] if rng.random() < 0.3 else ["cache", "show"]
        _opt(argv, rng, 0.5, "--json")  # `mathbg cache --json` is a usage error
        return argv
    areas = ["databases", "solutions", "hyper", "analyses", "native", "kernels", "bogus", ""]
    argv = ["cache", "clear", *rng.sample(areas, rng.randint(1, 3))]
    if "kernels" in argv:  # numba's folder is the user's, not the test's MATHBG_DATA
        argv.append("--dry-run")
    else:
        _opt(argv, rng, 0.5, "--dry-run")
    _opt(argv, rng, 0.4, "--older-than", rng.choice(["0", "30", "-1", "nan", "x", "1e400"]))
    _opt(argv, rng, 0.3, "--json")
    return argv


def case_corpus(rng, tmp, k):
    argv = ["corpus", *(_match_file(tmp, rng, 1000 * k + i) for i in range(rng.randint(1, 3)))]
    _opt(argv, rng, 0.1, "--audit")
    _opt(argv, rng, 0.7, "--cube-only")
    _opt(argv, rng, 0.1, "--player", rng.choice(["lasse", "nobody", ""]))
    _opt(argv, rng, 0.1, "--min-n", rng.choice(INTS))
    _opt(argv, rng, 0.2, "--engine", rng.choice(["race", "auto", "bogus", ""]))
    _opt(argv, rng, 0.1, "--plies", rng.choice(MATCH_PLIES))
    _opt(argv, rng, 0.2, "--met", rng.choice(["kazaross-xg2", "bogus"]))
    _opt(argv, rng, 0.2, "--rate", rng.choice(["gammon_rate", "pass_rate", "bogus", ""]))
    _opt(argv, rng, 0.1, "--scheduler", rng.choice(["garbage", "tcp://", "bogus://h:1"]))
    r = rng.random()
    if r < 0.3:
        argv.append("--json")
    elif r < 0.4:
        argv += ["--csv", str(tmp / rng.choice(["c.csv", "no/c.csv"]))]
    _opt(argv, rng, 0.05, "--plot", _plot(tmp, rng))
    _opt(argv, rng, 0.05, "--force")
    _decimals(argv, rng)
    return argv


def case_convert(rng, tmp, k):
    argv = ["convert"]
    if rng.random() < 0.15:
        argv += ["--example", str(tmp / rng.choice(["e.mat", "e.sgf", "e.bogus", "no/e.mat"]))]
    else:
        argv.append(_match_file(tmp, rng, k))
        argv.append(str(tmp / rng.choice(["o.mat", "o.sgf", "o.txt", "o.bogus", "no/o.mat"])))
    _opt(argv, rng, 0.2, "--to", rng.choice(["mat", "sgf", "xg", ""]))
    _opt(argv, rng, 0.2, "--from", rng.choice(["mat", "sgf", "bogus"]))
    _opt(argv, rng, 0.2, "--force")
    return argv


HYPER_IDS = ["AACAAAAAAgAAAA", "AAAAAQAAAQAAAA", "AABAAQAACgAAAA", "AACgAgAAKgAAAA",
             "4HPwATDgc/ABMA", "", "A" * 300]  # fmt: skip


def case_hyper(rng, tmp, k):
    """1-checker solves only (seconds): every valid case names --checkers 1 or a contradiction."""
    ident = rng.choice(HYPER_IDS)
    if rng.random() < 0.4:
        ident = _mutate(ident, rng)
    argv = ["hyper", ident, "--checkers", rng.choice(["1"] * 8 + ["0", "4", "x", "-1", ""])]
    _opt(argv, rng, 0.15, "--variant", rng.choice(["hypergammon1", "hypergammon3",
                                                   "backgammon", "bogus", ""]))  # fmt: skip
    if rng.random() < 0.5:
        argv += ["--away", _pair(rng, SMALL if rng.random() < 0.8 else INTS)]
        _opt(argv, rng, 0.2, "--crawford")
        _opt(argv, rng, 0.1, "--met", rng.choice(["kazaross-xg2", "bogus", ""]))
    _opt(argv, rng, 0.3, "--cube", rng.choice(["1", "2", "4", "3", "0", "-2", "x"]))
    _opt(argv, rng, 0.3, "--owner", rng.choice(["centre", "player", "opponent", "x"]))
    _opt(argv, rng, 0.1, "--jacoby")
    _opt(argv, rng, 0.1, "--beavers")
    _opt(argv, rng, 0.1, "--tolerance", rng.choice(["1e-9", "1e-6", "0", "0.5", *FLOATS]))
    _opt(argv, rng, 0.1, "--store", rng.choice([str(tmp / "hs"), str(tmp / "hs" / "no")]))
    _opt(argv, rng, 0.05, "--write-gnubg", rng.choice([str(tmp / "h.bd"), str(tmp / "no/h.bd"),
                                                       str(tmp)]))  # fmt: skip
    _opt(argv, rng, 0.05, "--scheduler", rng.choice(["garbage", "tcp://", "bogus://h:1"]))
    _opt(argv, rng, 0.05, "--force")
    _opt(argv, rng, 0.3, "--json")
    _decimals(argv, rng)
    return argv


GENERATORS = {
    "position": case_position,
    "met": case_met,
    "takepoint": case_takepoint,
    "cube": case_cube,
    "bearoff": case_bearoff,
    "race": case_race,
    "selfplay": case_selfplay,
    "analyze": case_analyze,
    "audit": case_audit,
    "corpus": case_corpus,
    "cache": case_cache,
    "convert": case_convert,
    "rollout": case_rollout,
    "hyper": case_hyper,
}


class _TooSlow(BaseException):  # not an Exception: the CLI's handlers must not catch it
    pass


#: One valid call per subcommand, run untimed first: it compiles the kernels the
#: subcommand uses (first use only), so no budget below depends on compile time.
WARM_UP = {
    "position": ["position", "4HPwATDgc/ABMA", "--roll", "64"],
    "met": ["met", "--length", "3"],
    "takepoint": ["takepoint", "--away", "3,5"],
    "cube": ["cube", "decide", "--probs", "0.7,0.2,0.01,0.05,0.002", "--away", "3,3"],
    "bearoff": ["bearoff", "show", "0,0,1", "--checkers", "3"],
    "race": ["race", "2w4AAMDbAQAAAA"],
    "selfplay": ["selfplay", "--games", "1"],
    "analyze": ["analyze", "4HPwATDgc/ABMA", "--length", "3", "--probs",
                "0.7,0.2,0.01,0.05,0.002"],
    "audit": ["audit", str(MATCHES / "handbuilt_last_roll.mat"), "--json"],
    "corpus": ["corpus", str(MATCHES / "handbuilt_last_roll.mat"), "--json"],
    "cache": ["cache"],
    "convert": ["convert", str(MATCHES / "handbuilt_last_roll.mat"), "warm.sgf", "--force"],
    "rollout": ["rollout", "AwAAWAAAAAAAAA", "--away", "3,3", "--trials", "36"],
    "hyper": ["hyper", "AACAAAAAAgAAAA", "--checkers", "1", "--away", "3,3"],
}  # fmt: skip


_BAR = re.compile(r"\d+%\||\[\d\d:\d\d[<,\]]")  # a tqdm bar: "45%|" or "[00:01<"


def _message_lines(text: str) -> list[str]:
    """The stderr lines a reader sees as messages: progress bars (redrawn with \\r) and
    the compile notice aside."""
    lines = []
    for line in text.splitlines():
        parts = [p for p in line.split("\r") if p.strip() and not _BAR.search(p)]
        lines += [p for p in parts if not p.startswith("compiling ")]
    return lines


def _alarm(signum, frame):
    raise _TooSlow


@pytest.mark.slow
@pytest.mark.parametrize("command", list(GENERATORS))
def test_fuzz_subcommand(command, tmp_path, monkeypatch):
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    rng = random.Random(f"{SEED}-{command}")
    if command == "rollout":  # its warm-up rolls out with the gnubg-nn checker player
        pytest.importorskip("gnubg_nn")
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(WARM_UP[command]) == 0
    # budgets in CPU seconds of this process: the verdict does not depend on the load
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
            if code == 2:  # one line means one line (compile notices, progress bars aside)
                assert len(_message_lines(text)) == 1, where
            done += 1
    finally:
        signal.signal(signal.SIGPROF, old)
    assert done >= 10


def _options(parser) -> dict[str, set[str]]:
    """Every subcommand path's visible option strings (``--help`` and hidden ones aside)."""
    import argparse

    found: dict[str, set[str]] = {}

    def walk(p, path):
        opts = set()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}".strip())
            elif action.option_strings and action.help is not argparse.SUPPRESS:
                opts.update(o for o in action.option_strings if o.startswith("--"))
        opts.discard("--help")
        if opts:
            found[path] = opts
    walk(parser, "")
    return found


def test_fuzz_reaches_every_subcommand_and_flag(tmp_path):
    """The generators above draw every subcommand and every visible flag (so a new flag
    must be added to the fuzzing)."""
    from mathbg.cli import build_parser

    wanted = _options(build_parser())
    wanted.pop("", None)  # --version
    seen: dict[str, set[str]] = {}
    for command, generate in GENERATORS.items():
        rng = random.Random(f"{SEED}-{command}")
        for k in range(CASES):
            argv = generate(rng, tmp_path, k)
            words = [a for a in argv if not a.startswith("-")]
            path = " ".join(words[:2]) if " ".join(words[:2]) in wanted else words[0]
            seen.setdefault(path, set()).update(a for a in argv if a.startswith("--"))
    missing = {path: sorted(opts - seen.get(path, set())) for path, opts in wanted.items()}
    missing = {path: opts for path, opts in missing.items() if opts}
    assert not missing, missing
