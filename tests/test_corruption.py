"""Damaged databases are refused, rebuilt or reported, never served (issue 13).

Native databases (one- and two-sided), gnubg ``.bd`` files and the exact-match cache are
damaged in every way the issue lists (bit flips, truncation, zero-fill, wrong header
fields, appended bytes) and then opened through the API and the CLI.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

from mathbg.bearoff import OneSided, TwoSided, gnubg_bd
from mathbg.bearoff import native as db_mod
from mathbg.cli import main
from mathbg.errors import DatabaseCorruptError, DatabaseError, MathbgWarning

# slow lane: the damaged databases are built by module fixtures (about 35 CPU-s in all)
pytestmark = pytest.mark.slow


def _flip(f: Path, offset: int, bit: int = 0) -> None:
    raw = bytearray(f.read_bytes())
    raw[offset] ^= 1 << bit
    f.write_bytes(bytes(raw))


def _edit_header(d: Path, **fields) -> None:
    header = json.loads((d / "header.json").read_text())
    header.update(fields)
    (d / "header.json").write_text(json.dumps(header))


def _damage(d: Path, kind: str) -> None:
    """Damage a native database directory in place."""
    arrays = sorted(d.glob("*.npy"))
    data = arrays[0]
    if kind == "flip-last":
        _flip(data, -1, 3)
    elif kind == "flip-middle":
        _flip(data, data.stat().st_size // 2, 7)
    elif kind == "flip-every-array":
        for f in arrays:
            _flip(f, f.stat().st_size - 9, 0)
    elif kind == "flip-npy-header":
        _flip(data, 20, 1)
    elif kind == "truncate":
        data.write_bytes(data.read_bytes()[:-8])
    elif kind == "empty":
        data.write_bytes(b"")
    elif kind == "zero-fill":
        data.write_bytes(bytes(data.stat().st_size))
    elif kind == "append":
        data.write_bytes(data.read_bytes() + b"\0" * 8)
    elif kind == "missing-array":
        data.unlink()
    elif kind == "header-points":
        _edit_header(d, points=5)
    elif kind == "header-checkers-type":
        _edit_header(d, checkers="3")
    elif kind == "header-shape":
        header = json.loads((d / "header.json").read_text())
        name = next(iter(header["arrays"]))
        header["arrays"][name]["shape"][0] += 1
        (d / "header.json").write_text(json.dumps(header))
    elif kind == "header-field-resigned":  # a deliberate edit with its own checksum redone
        header = json.loads((d / "header.json").read_text())
        header["points"] = 2
        header["header_checksum"] = db_mod._header_digest(header)
        (d / "header.json").write_text(json.dumps(header))
    elif kind == "header-checksum":
        _edit_header(d, checksum="sha256:" + "0" * 64)
    elif kind == "header-garbage":
        (d / "header.json").write_bytes(b"\xff\xfe{{{")
    elif kind == "header-deep":
        (d / "header.json").write_text("[" * 100_000 + "]" * 100_000)
    elif kind == "header-list":
        (d / "header.json").write_text("[1, 2, 3]")
    else:  # pragma: no cover
        raise AssertionError(kind)


NATIVE_DAMAGE = [
    "flip-last", "flip-middle", "flip-every-array", "flip-npy-header", "truncate", "empty",
    "zero-fill", "append", "missing-array", "header-points", "header-checkers-type",
    "header-shape", "header-field-resigned", "header-checksum", "header-garbage",
    "header-deep", "header-list",
]  # fmt: skip


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    d = tmp_path_factory.mktemp("clean")
    return {
        "os": OneSided.build(6, 3, path=d / "os", progress=False),
        "ts": TwoSided.build(6, 3, path=d / "ts", progress=False),
    }


@pytest.mark.parametrize("kind", NATIVE_DAMAGE)
@pytest.mark.parametrize("which", ["os", "ts"])
def test_damaged_native_database_is_never_served(tmp_path, clean, which, kind, capsys):
    cls = OneSided if which == "os" else TwoSided
    path = tmp_path / "db"
    cls.build(6, 3, path=path, progress=False)
    _damage(path, kind)
    with pytest.raises(DatabaseError):
        cls.open(path)
    # by path on the command line: refused, one line, exit 2
    argv = ["bearoff", "show", "--db", str(path)]
    argv += ["--two-sided", "0,0,1", "0,0,0,0,1"] if which == "ts" else ["0,0,1"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err
    # rebuilding over it gives the clean numbers
    with pytest.warns(MathbgWarning) if _is_corrupt(cls, path) else _nothing():
        db = cls.build(6, 3, path=path, progress=False)
    for f in clean[which].path.glob("*.npy"):
        np.testing.assert_array_equal(np.load(f), np.load(path / f.name))
    assert db.points == 6


def _is_corrupt(cls, path: Path) -> bool:
    try:
        cls.open(path)
    except DatabaseCorruptError:
        return True
    except DatabaseError:
        return False
    return False


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("kind", ["truncate", "zero-fill", "header-points", "header-deep"])
def test_cheap_checks_even_without_verify(tmp_path, kind):
    path = tmp_path / "db"
    OneSided.build(6, 3, path=path, progress=False)
    _damage(path, kind)
    with pytest.raises(DatabaseError):
        OneSided.open(path, verify=False)


def test_a_damaged_default_database_is_rebuilt_with_one_warning(tmp_path, monkeypatch, capsys):
    """Issue reproducer: ``: > $MATHBG_DATA/bearoff/onesided-06x15-gnubg/dist.npy`` then any
    command that needs it (here a 6x3 default database, the same code path)."""
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    argv = ["bearoff", "show", "0,0,0,0,0,1", "--checkers", "3", "--json"]
    assert main(argv) == 0
    good = json.loads(capsys.readouterr().out)
    (tmp_path / "bearoff" / "onesided-06x03-gnubg" / "dist.npy").write_bytes(b"")
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == good
    assert err.count("\n") == 1 and err.startswith("mathbg: warning:") and "rebuilding" in err
    # one checker on the 6-point: off in one roll unless 1-1, 2-1, 3-1, 4-1, 3-2 (9/36),
    # then surely in the second
    assert good["mean_rolls"] == pytest.approx(1 + 9 / 36)


def test_flipped_bit_in_dist_is_refused_not_served(tmp_path, capsys):
    """Issue reproducer: one flipped bit in dist.npy gave mean rolls 2.4408 for 4.2060."""
    path = tmp_path / "os"
    OneSided.build(6, 15, path=path, progress=False)
    dist = np.load(path / "dist.npy", mmap_mode="r")
    offset = dist.offset + 8 * (1000 * dist.shape[1] + 3) + 7  # high byte of one value
    del dist
    _flip(path / "dist.npy", offset, 5)
    assert main(["bearoff", "show", "--db", str(path), "0,0,0,3,5,7"]) == 2
    assert "checksum mismatch" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["one-sided", "two-sided"])
def test_a_database_just_built_is_hashed_once_and_a_changed_one_again(tmp_path, monkeypatch, kind):
    """The build hashes the files it wrote (as they are on disk); opening them in the same
    process does not read them a second time (22 GiB for 6x15), but a file changed since
    is verified again and refused."""
    calls = []
    real = db_mod._files.sha256_files

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(db_mod._files, "sha256_files", counting)
    path = tmp_path / "db"
    if kind == "one-sided":
        OneSided.build(4, 4, path=path, progress=False)
        opener, name = OneSided.open, "dist.npy"
    else:
        TwoSided.build(3, 3, path=path, progress=False)
        opener, name = TwoSided.open, "equity.npy"
    assert len(calls) == 1
    opener(path)
    assert len(calls) == 1
    _flip(path / name, (path / name).stat().st_size - 1, 3)
    with pytest.raises(DatabaseCorruptError, match="checksum mismatch"):
        opener(path)
    assert len(calls) == 2


# ------------------------------------------------------------------ gnubg .bd files


@pytest.fixture(scope="module")
def bd_files(tmp_path_factory, clean):
    d = tmp_path_factory.mktemp("bd")
    OneSided.build(6, 15, path=d / "os15", progress=False).to_gnubg(d / "published-os.bd")
    clean["os"].to_gnubg(d / "os.bd")
    clean["os"].to_gnubg(d / "os-u.bd", compressed=False)
    clean["ts"].to_gnubg(d / "ts.bd")
    TwoSided.build(6, 6, path=d / "ts66", progress=False).to_gnubg(d / "published-ts.bd")
    return d


def _read(f: Path):
    return gnubg_bd.read(f)


@pytest.mark.parametrize(
    "name",
    [
        "published-os.bd",
        pytest.param("published-ts.bd", marks=pytest.mark.slow),  # 20 s of CPU
    ],
)
def test_any_bit_flip_in_a_published_gnubg_file_is_refused(tmp_path, bd_files, name):
    """Refused, or (a two-sided flip within the 16-bit rounding, or in the header's 'x'
    padding) served with every value within 3 units of 1/32767.5 of the original."""
    raw = (bd_files / name).read_bytes()
    original = _read(bd_files / name)
    rng = random.Random(13)
    f = tmp_path / name
    for _ in range(40 if name == "published-os.bd" else 12):  # a 6x6 check takes ~1 s
        b = bytearray(raw)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        f.write_bytes(bytes(b))
        try:
            served = _read(f)
        except DatabaseError:
            continue
        assert name == "published-ts.bd"
        diff = np.abs(served.values.astype(int) - original.values.astype(int))
        assert diff.max() <= gnubg_bd.RECURRENCE_TOLERANCE


def test_issue_reproducers_for_gnubg_files(tmp_path, bd_files):
    """A flipped bit gave distributions summing to 1.5, a P(win) of 0.6303 for 0.1303."""
    f = tmp_path / "os.bd"
    raw = bytearray((bd_files / "os.bd").read_bytes())
    raw[-1] ^= 0x80  # the high byte of the last stored value: +/- 0.5
    f.write_bytes(bytes(raw))
    with pytest.raises(DatabaseCorruptError, match=r"os\.bd.*sums to"):
        OneSided.open(f)
    ts = bd_files / "published-ts.bd"
    pair = ([0, 0, 0, 0, 2, 3], [0, 0, 0, 0, 0, 2])
    n = gnubg_bd.read_header(ts).n_positions
    from mathbg.bearoff.index import rank

    i, j = rank(pair[0], 6), rank(pair[1], 6)
    raw = bytearray(ts.read_bytes())
    raw[gnubg_bd.HEADER_SIZE + 8 * (i * n + j) + 1] ^= 0x80  # cubeless, +1.0 in equity
    f = tmp_path / "ts.bd"
    f.write_bytes(bytes(raw))
    with pytest.raises(DatabaseCorruptError, match=r"ts\.bd"):
        TwoSided.open(f)


@pytest.mark.parametrize("name", ["os.bd", "os-u.bd", "ts.bd"])
@pytest.mark.parametrize("kind", ["truncate", "zero-fill", "append", "header", "high-bits"])
def test_damaged_gnubg_files_are_refused(tmp_path, bd_files, name, kind, capsys):
    raw = bytearray((bd_files / name).read_bytes())
    f = tmp_path / name
    if kind == "truncate":
        raw = raw[:-2]
    elif kind == "zero-fill":
        raw = raw[:40] + bytes(len(raw) - 40)
    elif kind == "append":
        raw = raw + b"\0\0"
    elif kind == "header":
        raw[9:11] = b"9x"
    f.write_bytes(bytes(raw))
    if kind == "high-bits":  # the high bit of stored values, one at a time (150 sampled)
        if name == "ts.bd":  # every value: checked against the bearoff equations
            offsets = range(40 + 1, len(raw), 2)
        elif name == "os.bd":  # compressed: the index comes first
            offsets = range(40 + 8 * gnubg_bd.read_header(bd_files / name).n_positions + 1,
                            len(raw), 2)  # fmt: skip
        else:
            offsets = range(40 + 1, len(raw), 2)
        for offset in random.Random(1).sample(offsets, min(150, len(offsets))):
            b = bytearray(raw)
            b[offset] ^= 0x80
            f.write_bytes(bytes(b))
            with pytest.raises(DatabaseError):
                _read(f)
        return
    with pytest.raises(DatabaseError):
        _read(f)
    which = ["--two-sided", "0,0,1", "0,0,1"] if name.startswith("ts") else ["0,0,1"]
    assert main(["bearoff", "show", "--db", str(f), *which]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("bit", [0, 2, 5])
def test_small_flips_in_a_two_sided_file_break_its_equations(tmp_path, bd_files, bit):
    """Even a change of a few units of 1/32767.5 is refused (the recurrence check)."""
    raw = (bd_files / "ts.bd").read_bytes()
    rng = random.Random(bit)
    f = tmp_path / "ts.bd"
    for _ in range(40):
        b = bytearray(raw)
        b[40 + 2 * rng.randrange(1, (len(raw) - 40) // 2)] ^= 1 << (bit + 2)  # low byte
        f.write_bytes(bytes(b))
        with pytest.raises(DatabaseCorruptError):
            _read(f)


@pytest.mark.slow  # over 5 s of CPU in the fast lane (tests/conftest.py)
def test_rounded_two_sided_export_with_the_published_header_reads(tmp_path, bd_files):
    """A 6x6 table written from float equities has gnubg's header but other bytes: it is
    verified by its equations instead of by gnubg's MD5, and reads."""
    ts = TwoSided.open(bd_files / "published-ts.bd")
    native = TwoSided.build(6, 6, path=tmp_path / "ts66", progress=False)
    native.to_gnubg(tmp_path / "rounded.bd", exact=False)
    back = TwoSided.open(tmp_path / "rounded.bd")
    pair = ([0, 0, 0, 0, 2, 3], [0, 0, 0, 0, 0, 2])
    assert back.win_probability(*pair) == pytest.approx(ts.win_probability(*pair), abs=2e-4)


def test_clean_gnubg_files_pass_the_plausibility_checks(bd_files):
    for f in bd_files.glob("*.bd"):
        _read(f)


# ------------------------------------------------------------------ match cache


@pytest.mark.parametrize("kind", ["flip", "truncate", "zero-fill", "garbage", "wrong-array"])
def test_damaged_match_cache_is_solved_again(tmp_path, monkeypatch, kind, capsys):
    from mathbg.bearoff.exact import match as M

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    argv = ["bearoff", "match", "0,0,0,1,1", "0,0,1,1", "--away", "3,2", "--checkers", "2",
            "--cache", "--json"]  # fmt: skip
    M._MEMORY.clear()
    assert main(argv) == 0
    good = json.loads(capsys.readouterr().out)
    (cache,) = (tmp_path / "bearoff" / "match").glob("*.npz")
    raw = bytearray(cache.read_bytes())
    if kind == "flip":
        raw[len(raw) // 3] ^= 0x10
    elif kind == "truncate":
        raw = raw[: len(raw) // 2]
    elif kind == "zero-fill":
        raw = bytearray(len(raw))
    elif kind == "garbage":
        raw = bytearray(b"PK\x03\x04" + b"x" * 100)
    if kind == "wrong-array":
        with np.load(cache) as data:
            arrays = {k: data[k] for k in data.files}
        arrays["no_double"] = arrays["no_double"] * 2.0  # checksum no longer matches
        np.savez(cache, **arrays)
    else:
        cache.write_bytes(bytes(raw))
    M._MEMORY.clear()
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert json.loads(out) == good
    err = re.sub(r"^compiling .* \(first use only\) \.\.\.\n", "", err, flags=re.M)  # cold cache
    assert err.count("\n") == 1 and "damaged match cache" in err
    M._MEMORY.clear()
    assert main(argv) == 0  # the cache was rewritten: no warning now
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("value", [-0.5, 1.5, np.inf, -np.inf])
def test_match_cache_with_chances_outside_0_1_is_refused(tmp_path, value):
    """A cache file whose checksum matches but which holds a winning chance outside [0, 1]
    (written so by a bug, not damaged) is refused; NaN, an unsolved state, is not."""
    from mathbg.bearoff.exact import match as M
    from mathbg.errors import DatabaseError

    sol = M.solve_game(6, 2, (3, 2), "normal", M.met_mwc(M.as_met("kazaross-xg2")))
    path = tmp_path / "m.npz"
    M._save(sol, path, "id")
    nd = np.array(sol.no_double)
    nd.flat[nd.size // 2] = np.nan  # an unsolved state: fine
    fine = M.GameSolution(sol.points, sol.checkers, sol.away, sol.kind, sol.met_name,
                          sol.levels, sol.states, nd, sol.win, sol.access)  # fmt: skip
    M._save(fine, path, "id")
    read = M._read_cache(path, 6, 2, 3, 2, "normal", "k", "id")
    assert np.isnan(read.no_double.flat[nd.size // 2])
    nd.flat[nd.size // 3] = value
    bad = M.GameSolution(sol.points, sol.checkers, sol.away, sol.kind, sol.met_name,
                         sol.levels, sol.states, nd, sol.win, sol.access)  # fmt: skip
    M._save(bad, path, "id")
    with pytest.raises(DatabaseError, match=r"outside \[0, 1\]"):
        M._read_cache(path, 6, 2, 3, 2, "normal", "k", "id")
