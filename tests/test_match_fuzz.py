"""Mutation fuzzing of the match-file readers (issue 33), in the slow lane.

At least 3,000 files are made from the shipped matches (their ``.mat`` text and their
``.sgf`` renderings) by seeded mutations: numbers replaced (by huge, negative, zero or
random ones), lines deleted, doubled, swapped or cut, characters inserted and deleted,
keywords exchanged, results moved, and files grown towards a megabyte (comment lines,
blank lines, long lines, repeated games, deep SGF nesting, long SGF values). Each file
is read in-process (the parser is the whole of ``convert``'s work but the writing) and must
end one of two ways: read, or refused with one :class:`~mathbg.errors.MatchFileError` line
naming the file (what the CLI prints with exit status 2); any other exception is what the
CLI reports as an internal error (exit 1) and fails the test. No file under 1 MB may take
more than 2 s of CPU (a super-linear reader shows there). Every file read is written as
``.mat`` and ``.sgf`` and must read back to the same record (or be refused by the writer
in one line, exit 2). A sample goes through ``mathbg convert`` in a subprocess.

Cost: about a minute of CPU (CI's slow lane).
"""

from __future__ import annotations

import random
import re
import signal
import subprocess
import sys
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mathbg.errors import InvalidParameterError, MatchFileError
from mathbg.rules import read_match, render_match

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parent / "data" / "matches"
SEED = 20261203
FILES = 3000
CPU_LIMIT = 2.0  # seconds of CPU for a file under 1 MB
NAME = "fuzz-input"


def _seeds() -> list[tuple[str, str]]:
    """(format, text) of every shipped match, as .mat and as .sgf."""
    out = []
    for path in sorted(DATA.glob("*.txt")) + sorted(DATA.glob("*.mat")):
        text = path.read_text(encoding="utf-8")
        out.append(("mat", text))
        out.append(("sgf", render_match(read_match(text), "sgf")))
    return out


SEEDS = _seeds()
NUMBERS = ["0", "-1", "-3", "1", "2", "3", "7", "63", "64", "65", "100000", "4016", "1024",
           "1025", "3", "9" * 25, "9" * 5000, "1" * 4400, "+5", "٣"]  # fmt: skip
KEYWORDS = ["Doubles => 2", "Takes", "Drops", "Beavers => 4", "Wins 1 point",
            "Wins 4016 points", "Losses 2 point", "and the match", "Resigned Game", "???",
            "Cannot Move", "; [Variation \"NackGammon\"]", "; [CubeLimit \"1\"]",
            ";W[double]", ";B[take]", ";W[drop]", "RE[W+3R]", "RU[Jacoby]", "MI[length:3]",
            "(", ")", ";", "[", "]", "\\", ":", "/", "*", "(2)", "bar/", "/off", "\r",
            "\n", "\t", "\x00", "\ufeff", "Game 9", " 3 point match"]  # fmt: skip
_NUMBER = re.compile(r"[0-9]+")


def _mutate(rng: random.Random, text: str) -> str:
    """One to three random mutations of ``text``."""
    for _ in range(rng.randint(1, 3)):
        lines = text.split("\n")
        kind = rng.randrange(12)
        if kind == 0:  # a number replaced
            spots = list(_NUMBER.finditer(text))
            if spots:
                m = rng.choice(spots)
                text = text[: m.start()] + rng.choice(NUMBERS) + text[m.end():]
        elif kind == 1 and len(lines) > 1:  # a line deleted
            del lines[rng.randrange(len(lines))]
            text = "\n".join(lines)
        elif kind == 2:  # a line doubled
            i = rng.randrange(len(lines))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == 3 and len(lines) > 1:  # two lines swapped
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
        elif kind == 4:  # cut short
            text = text[: rng.randrange(len(text) + 1)]
        elif kind == 5:  # characters deleted
            i = rng.randrange(len(text) + 1)
            text = text[:i] + text[i + rng.randint(1, 40):]
        elif kind == 6:  # a keyword inserted
            i = rng.randrange(len(text) + 1)
            text = text[:i] + rng.choice(KEYWORDS) + text[i:]
        elif kind == 7:  # a keyword replaced by another
            found = [k for k in KEYWORDS if len(k) > 3 and k in text]
            if found:
                text = text.replace(rng.choice(found), rng.choice(KEYWORDS), 1)
        elif kind == 8:  # random characters
            i = rng.randrange(len(text) + 1)
            junk = "".join(rng.choice("0123456789 /:*()[];abxyzWBR+-=\"\n") for _ in
                           range(rng.randint(1, 12)))
            text = text[:i] + junk + text[i:]
        elif kind == 9:  # a result line moved into the middle of a game
            wins = [i for i, ln in enumerate(lines) if "Wins" in ln]
            if wins and len(lines) > 2:
                ln = lines.pop(rng.choice(wins))
                lines.insert(rng.randrange(len(lines)), ln)
                text = "\n".join(lines)
        elif kind == 10:  # a name emptied or made odd
            name = rng.choice(["", " ", "a:b", "x  y", "\\", "]"])
            if "PW[" in text:
                m = re.search(r"(PW|PB)\[[^\]]*\]", text)
                if m:
                    text = text[: m.start()] + f"{m.group(1)}[{name}]" + text[m.end():]
            else:
                m = re.search(r"^ (\S+) :", text, re.M)
                if m:
                    text = text[: m.start()] + f" {name} :" + text[m.end():]
        else:  # case changed
            i = rng.randrange(len(text) + 1)
            text = text[:i] + text[i:i + 30].swapcase() + text[i + 30:]
    return text


def _grow(rng: random.Random, fmt: str, text: str) -> str:
    """A file grown towards a megabyte in a way a reader must pass through linearly."""
    size = rng.choice([100_000, 400_000, 900_000])
    kind = rng.randrange(6)
    if kind == 0:  # comment lines in the header
        return "; a comment line of the header\n" * (size // 31) + text
    if kind == 1:  # blank lines everywhere
        return text.replace("\n", "\n" + "\n" * rng.randint(1, 40), rng.randint(1, 50)) + \
            "\n" * size
    if kind == 2:  # one long line
        i = rng.randrange(len(text) + 1)
        return text[:i] + " " * size + text[i:]
    if kind == 3:  # the games again and again
        return text * max(1, size // max(len(text), 1))
    if kind == 4 and fmt == "sgf":  # a long property value / deep nesting
        if rng.random() < 0.5:
            return text.replace("AP[", "C[" + "x\\]" * (size // 3) + "]AP[", 1)
        return "(" * (size // 2) + text + ")" * (size // 2)
    return text + ("  1) 31: 8/5 6/5\n" * (size // 17))


def corpus(n: int, seed: int) -> Iterator[tuple[int, str, bytes]]:
    """``n`` mutated files: (index, seed format, bytes)."""
    rng = random.Random(seed)
    for i in range(n):
        fmt, text = SEEDS[rng.randrange(len(SEEDS))]
        if i % 25 == 24:
            text = _grow(rng, fmt, text)
        else:
            text = _mutate(rng, text)
        data = text.encode("utf-8", "surrogatepass")
        if rng.random() < 0.02:  # not UTF-8
            data = data.replace(b"a", b"\xe9", 3)
        yield i, fmt, data


class _Hang(Exception):
    pass


def _on_prof(signum: int, frame: object) -> None:
    raise _Hang


def read_one(data: bytes) -> tuple[str, object]:
    """("read", record) or ("refused", message); anything else raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "read", read_match(data, name=NAME)
        except MatchFileError as exc:
            message = str(exc)
            assert "\n" not in message and message.startswith(NAME), message
            return "refused", message


def round_trip(record: object) -> str:
    """Write the record in both formats and read each back: "same", or "refused" when a
    writer cannot hold it (convert's exit 2)."""
    outcome = "same"
    for fmt in ("mat", "sgf"):
        try:
            text = render_match(record, fmt)  # type: ignore[arg-type]
        except InvalidParameterError as exc:
            assert "\n" not in str(exc)
            outcome = "refused"
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            again = read_match(text)
        assert again == record, f"{fmt} round trip differs"
    return outcome


def test_three_thousand_mutated_files_are_read_or_refused_in_linear_time() -> None:
    outcomes: Counter[str] = Counter()
    trips: Counter[str] = Counter()
    slowest = (0.0, -1, 0)
    old = signal.signal(signal.SIGPROF, _on_prof)
    try:
        for i, _fmt, data in corpus(FILES, SEED):
            signal.setitimer(signal.ITIMER_PROF, 30)  # a hang detector
            start = time.process_time()
            try:
                outcome, value = read_one(data)
            except _Hang:
                pytest.fail(f"file {i} (seed {SEED}, {len(data)} bytes) ran past 30 s of CPU")
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
            cpu = time.process_time() - start
            slowest = max(slowest, (cpu, i, len(data)))
            if len(data) < 1 << 20:
                assert cpu <= CPU_LIMIT, f"file {i} (seed {SEED}): {cpu:.2f} s of CPU for " \
                    f"{len(data)} bytes"
            outcomes[outcome] += 1
            if outcome == "read":
                trips[round_trip(value)] += 1
    finally:
        signal.signal(signal.SIGPROF, old)
    print(f"outcomes {dict(outcomes)}, round trips {dict(trips)}, slowest {slowest}")
    assert sum(outcomes.values()) == FILES
    # the mutations reach both outcomes often (a fuzz that only ever refuses tests little)
    assert outcomes["read"] >= 300 and outcomes["refused"] >= 1500, (outcomes, slowest)
    assert trips["same"] >= 300, trips


def test_the_command_line_reads_or_refuses_in_one_line(tmp_path: Path) -> None:
    """A sample through ``mathbg convert`` in a subprocess: exit 0 or 2, never 1."""
    statuses: Counter[int] = Counter()
    for i, fmt, data in corpus(12, SEED + 1):
        src = tmp_path / f"in{i}.{'sgf' if fmt == 'sgf' else 'mat'}"
        src.write_bytes(data)
        out = tmp_path / f"out{i}.sgf"
        proc = subprocess.run([sys.executable, "-m", "mathbg", "convert", str(src), str(out)],
                              capture_output=True, text=True, timeout=300)
        statuses[proc.returncode] += 1
        errors = [ln for ln in proc.stderr.splitlines() if not ln.startswith("mathbg: warning:")]
        assert proc.returncode in (0, 2), proc.stderr
        if proc.returncode == 2:
            assert len(errors) == 1 and errors[0].startswith("mathbg convert: error: "), errors
            assert not out.exists()
        else:
            assert not errors and read_match(out) == read_match(src)
    assert statuses[2] >= 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(SEEDS) - 1), seed=st.integers(0, 2**32 - 1),
       rounds=st.integers(0, 3))
def test_every_record_read_from_a_mutated_file_round_trips(index: int, seed: int,
                                                           rounds: int) -> None:
    """The round-trip property over the shipped matches (``rounds=0``) and mutations of
    them: whatever mathbg reads, it writes as ``.mat`` and ``.sgf`` and reads back equal."""
    rng = random.Random(seed)
    _, text = SEEDS[index]
    for _ in range(rounds):
        text = _mutate(rng, text)
    outcome, value = read_one(text.encode("utf-8", "surrogatepass"))
    if outcome == "read":
        round_trip(value)
