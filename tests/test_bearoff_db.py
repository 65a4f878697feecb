"""Native database storage (atomic, checksummed, cached, memory-mapped) and the CLI.

The MD5 sums of the default gnubg files come from gnubg's manual ("Obtaining bearoff
databases", theory §4.4): one-sided 6 points/15 checkers compressed
3dc7b833c4670849cee00479a9e21b49, two-sided 6x6 44b6040b49b46cb9dd2ce8caa947044d.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from mathbg import _resources
from mathbg._files import LOCK_PREFIX, TMP_PREFIX
from mathbg.bearoff import OneSided, TwoSided
from mathbg.bearoff import native as db_mod
from mathbg.cli import main
from mathbg.errors import DatabaseError, InsufficientMemoryError, MathbgWarning

GNUBG_MANUAL_MD5 = {
    "os-6": "3dc7b833c4670849cee00479a9e21b49",
    "ts-6x6": "44b6040b49b46cb9dd2ce8caa947044d",
}


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path))
    return tmp_path


def test_build_writes_header_and_reuses(tmp_path):
    path = tmp_path / "os4"
    db = OneSided.build(4, 5, path=path, progress=False)
    header = json.loads((path / "header.json").read_text())
    assert header["format"] == "mathbg-bearoff" and header["version"] == db_mod.FORMAT_VERSION
    assert (header["kind"], header["points"], header["checkers"], header["policy"]) == (
        "one-sided", 4, 5, "gnubg"
    )  # fmt: skip
    assert header["checksum"].startswith("sha256:")
    assert isinstance(db._dist, np.memmap)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(TMP_PREFIX)]  # no temp left
    stamp = (path / "dist.npy").stat().st_mtime_ns
    again = OneSided.build(4, 5, path=path, progress=False)
    assert (path / "dist.npy").stat().st_mtime_ns == stamp  # reused, not rebuilt
    np.testing.assert_array_equal(again._dist, db._dist)


def test_a_version_2_header_with_the_old_value_names_is_read(tmp_path):
    """Format version 2 named the two-sided values "cubeless", "owned", "centred",
    "opponent_owns" (the native format's documentation); version 3 uses the cube owners'
    names. A version 2 database is verified as written and shown in today's names."""
    path = tmp_path / "ts"
    TwoSided.build(6, 1, path=path, progress=False)
    header = json.loads((path / "header.json").read_text())
    assert header["version"] == 3
    assert header["values"] == ["cubeless", "player", "centre", "opponent"]

    def rewrite(version: int) -> None:
        # the documented layout: the header checksum covers the canonical JSON of every
        # field but the two checksums, the checksum that followed by the array file
        old = {k: v for k, v in header.items() if k not in ("checksum", "header_checksum")}
        old["version"] = version
        old["values"] = ["cubeless", "owned", "centred", "opponent_owns"]
        canonical = json.dumps(old, sort_keys=True, separators=(",", ":")).encode()
        array = (path / "equity.npy").read_bytes()
        old["header_checksum"] = "sha256:" + hashlib.sha256(canonical).hexdigest()
        old["checksum"] = "sha256:" + hashlib.sha256(canonical + array).hexdigest()
        (path / "header.json").write_text(json.dumps(old, indent=2) + "\n")

    rewrite(2)
    stamp = (path / "header.json").stat().st_mtime_ns
    ts = TwoSided.open(path, verify=True)
    assert ts.header["version"] == 2
    assert ts.header["values"] == ["cubeless", "player", "centre", "opponent"]
    # Janowski's man on the 6-point each (theory 2.1): p = 27/36 + 9/36 x 1/4 = 0.8125,
    # cubeless 0.625, the roller's cube 0.625, centred and the opponent's cube 0.5
    eq = ts.equities([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1])
    assert (eq.cubeless, eq.player, eq.centre, eq.opponent) == pytest.approx(
        (0.625, 0.625, 0.5, 0.5)
    )
    again = TwoSided.build(6, 1, path=path, progress=False)  # reused, not rebuilt
    assert (path / "header.json").stat().st_mtime_ns == stamp and again.header["version"] == 2
    rewrite(1)
    with pytest.raises(DatabaseError, match="format version 1"):
        TwoSided.open(path)


@pytest.mark.slow
def test_show_names_the_cube_owner(data_dir, capsys):
    args = ["bearoff", "show", "--two-sided", "0,0,0,0,0,1", "0,0,0,0,0,1", "--json"]
    assert main([*args, "--owner", "player"]) == 0
    new = json.loads(capsys.readouterr().out)
    assert new["cube_decision"]["owner"] == "player"
    assert main([*args, "--cube", "owned"]) == 2  # the old --cube flag is gone
    assert "--cube" in capsys.readouterr().err


def test_corrupt_database_is_detected_and_rebuilt(tmp_path):
    path = tmp_path / "os"
    OneSided.build(3, 4, path=path, progress=False)
    raw = bytearray((path / "dist.npy").read_bytes())
    raw[-1] ^= 0xFF
    (path / "dist.npy").write_bytes(bytes(raw))
    with pytest.raises(DatabaseError, match="checksum"):
        OneSided.open(path, verify=True)
    with pytest.warns(MathbgWarning, match="checksum mismatch.*rebuilding"):
        db = OneSided.build(3, 4, path=path, progress=False)  # rebuilt
    assert db.distribution([0, 0, 0]).tolist()[:1] == [1.0]
    OneSided.open(path, verify=True)


def _new_process(monkeypatch):
    """Forget this process's verifications, as a new process starts."""
    monkeypatch.setattr(db_mod, "_VERIFIED", set())


def _count_hashing(monkeypatch):
    """A list that gets one item each time the arrays are hashed."""
    calls = []
    digest = db_mod._full_digest
    monkeypatch.setattr(db_mod, "_full_digest", lambda *a: calls.append(1) or digest(*a))
    return calls


def _no_hashing(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the arrays were hashed")

    monkeypatch.setattr(db_mod, "_full_digest", refuse)


def test_a_verified_database_is_not_hashed_again_by_a_later_process(tmp_path, monkeypatch):
    path = tmp_path / "os"
    OneSided.build(3, 4, path=path, progress=False)
    stamp = json.loads((path / db_mod.STAMP).read_text())
    assert stamp["token"] == json.loads((path / "header.json").read_text())["checksum"]
    _new_process(monkeypatch)
    _no_hashing(monkeypatch)
    assert OneSided.open(path, verify=True).distribution([0, 0, 0]).tolist()[:1] == [1.0]


def test_without_status_change_times_every_opening_hashes(tmp_path, monkeypatch):
    """Where a file's ctime is not its status-change time (Windows), no stamp is kept or
    read: every process checks the files in full."""
    from mathbg import _files

    path = tmp_path / "os"
    OneSided.build(3, 4, path=path, progress=False)
    assert (path / db_mod.STAMP).exists()
    monkeypatch.setattr(_files, "STAMPS", False)
    _new_process(monkeypatch)
    calls = _count_hashing(monkeypatch)
    OneSided.open(path, verify=True)
    assert calls == [1]


def test_a_file_changed_behind_a_stamp_is_hashed_and_refused(tmp_path, monkeypatch):
    path = tmp_path / "os"
    OneSided.build(3, 4, path=path, progress=False)
    f = path / "dist.npy"
    before = f.stat()
    raw = bytearray(f.read_bytes())
    raw[-1] ^= 0xFF
    f.write_bytes(bytes(raw))
    import os

    os.utime(f, ns=(before.st_atime_ns, before.st_mtime_ns))  # same size, same mtime
    assert f.stat().st_mtime_ns == before.st_mtime_ns and f.stat().st_size == before.st_size
    _new_process(monkeypatch)
    with pytest.raises(DatabaseError, match="checksum"):
        OneSided.open(path, verify=True)


@pytest.mark.parametrize("text", ["", "{", "[]", '{"token": "sha256:0", "files": []}'])
def test_a_bad_stamp_means_a_full_verification(tmp_path, monkeypatch, text):
    path = tmp_path / "ts"
    TwoSided.build(2, 3, path=path, progress=False)
    (path / db_mod.STAMP).write_text(text)
    _new_process(monkeypatch)
    calls = _count_hashing(monkeypatch)
    TwoSided.open(path, verify=True)
    assert calls == [1]
    assert json.loads((path / db_mod.STAMP).read_text())["files"]  # written afresh


def test_a_read_only_database_opens_without_a_stamp(tmp_path, monkeypatch):
    path = tmp_path / "os"
    OneSided.build(3, 4, path=path, progress=False)
    (path / db_mod.STAMP).unlink()
    _new_process(monkeypatch)
    path.chmod(0o555)
    try:
        OneSided.open(path, verify=True)
        assert not (path / db_mod.STAMP).exists() or __import__("os").geteuid() == 0
        assert [p.name for p in path.iterdir() if p.name.startswith(".")] == []
    finally:
        path.chmod(0o755)


def test_interrupted_build_leaves_nothing_loadable(tmp_path, monkeypatch):
    path = tmp_path / "ts"

    def boom(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(db_mod, "write_header", boom)
    with pytest.raises(KeyboardInterrupt):
        TwoSided.build(3, 3, path=path, progress=False)
    assert not path.exists()
    # no temporary and no lock file left; the hidden block store stays, to resume
    assert sorted(p.name for p in tmp_path.iterdir()) == [".ts.build"]
    assert not (tmp_path / f"{LOCK_PREFIX}ts").exists()
    monkeypatch.undo()
    # a directory without a header (e.g. a copy interrupted by hand) is not a database
    path.mkdir()
    np.save(path / "equity.npy", np.zeros((20, 20, 4)))
    with pytest.raises(DatabaseError, match="header"):
        TwoSided.open(path)
    ts = TwoSided.build(3, 3, path=path, progress=False)
    # one checker on the 3-point: every roll (even 2-1) bears it off, the roller wins
    assert ts.win_probability([0, 0, 1], [0, 0, 1]) == 1.0


def test_version_and_kind_mismatch(tmp_path):
    path = tmp_path / "os"
    OneSided.build(2, 2, path=path, progress=False)
    with pytest.raises(DatabaseError, match="one-sided database, not two-sided"):
        TwoSided.open(path)
    header = json.loads((path / "header.json").read_text())
    header["version"] = 999
    (path / "header.json").write_text(json.dumps(header))
    with pytest.raises(DatabaseError, match="version"):
        OneSided.open(path)
    with pytest.raises(DatabaseError, match="no such"):
        OneSided.open(tmp_path / "missing")


@pytest.mark.slow
def test_gnubg_export_matches_the_published_md5(tmp_path):
    OneSided.build(6, 15, path=tmp_path / "os", progress=False).to_gnubg(tmp_path / "os.bd")
    assert hashlib.md5((tmp_path / "os.bd").read_bytes()).hexdigest() == GNUBG_MANUAL_MD5["os-6"]
    back = OneSided.open(tmp_path / "os.bd")
    assert back.mean_rolls([0, 0, 0, 0, 0, 15]) == pytest.approx(12.2662, abs=2e-4)


@pytest.mark.slow  # 12 s of numba compiling (the min-rolls policy) on a cold cache
def test_min_rolls_policy_database(tmp_path):
    db = OneSided.build(6, 3, policy="min-rolls", path=tmp_path / "mr", progress=False)
    assert db.policy == "min-rolls"
    db.to_gnubg(tmp_path / "mr.bd")  # rounded from floats
    back = OneSided.open(tmp_path / "mr.bd")
    mine = db.distribution([0, 0, 3])
    np.testing.assert_allclose(back.distribution([0, 0, 3])[: len(mine)], mine, atol=1e-5)


# ------------------------------------------------------------------ CLI
@pytest.mark.slow
def test_cli_show_builds_the_default_database_on_demand(data_dir, capsys):
    assert main(["bearoff", "show", "0,0,0,0,0,15", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mean_rolls"] == pytest.approx(12.2662, abs=6e-5)
    assert out["std_rolls"] == pytest.approx(1.5125, abs=6e-5)
    assert out["epc"] == pytest.approx(out["mean_rolls"] * 49 / 6)
    assert out["wastage"] == pytest.approx(out["epc"] - 90)
    assert sum(out["distribution"]) == pytest.approx(1.0)
    assert out["gammon_distribution"][1] == pytest.approx(17 / 36)
    assert (data_dir / "bearoff" / "onesided-06x15-gnubg" / "header.json").exists()
    assert main(["bearoff", "show", "5,4"]) == 0
    text = capsys.readouterr().out
    assert "mean rolls 4.4101" in text and "EPC 36.02" in text and "wastage 23.02" in text


@pytest.mark.slow
def test_cli_show_two_sided(data_dir, capsys):
    args = ["bearoff", "show", "--two-sided", "0,0,0,0,0,1", "0,0,0,0,0,1", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["p_win"] == 0.8125
    assert out["cubeless_equity"] == pytest.approx(0.625)
    cubeful = out["cubeful"]
    assert (cubeful["player"], cubeful["centre"], cubeful["opponent"]) == pytest.approx(
        (0.625, 0.5, 0.5)
    )
    assert out["decision"] == "double, pass"
    assert out["cube_decision"]["double_take"] == pytest.approx(1.0)


@pytest.mark.slow
def test_cli_build_gnubg_files(data_dir, tmp_path, capsys):
    out = tmp_path / "os.bd"
    assert main(["bearoff", "build", "--points", "6", "--out", str(out), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert f"md5:{GNUBG_MANUAL_MD5['os-6']}" in text and "1,465,788 bytes" in text
    out = tmp_path / "ts.bd"
    assert main(["bearoff", "build", "--two-sided", "--out", str(out), "--quiet"]) == 0
    assert f"md5:{GNUBG_MANUAL_MD5['ts-6x6']}" in capsys.readouterr().out


def test_cli_build_native(data_dir, capsys):
    assert main(["bearoff", "build", "--points", "3", "--checkers", "4", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert "onesided-03x04-gnubg" in text and "sha256:" in text


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["bearoff", "show", "0,0,0,0,0,16"], "16 checkers"),
        (["bearoff", "show", "a,b"], "invalid position"),
        (["bearoff", "show", "--two-sided", "0,1"], "two positions"),
        (["bearoff", "show", "--", "-1,2"], ">= 0"),
    ],
)
def test_cli_errors(data_dir, capsys, argv, fragment):
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


def test_build_refuses_what_cannot_fit_in_memory(monkeypatch):
    """A build larger than the free memory is refused up front, naming the sizes.

    One-sided 20x15 has C(35, 20) = 3,247,943,160 positions and two-sided 6x15 has
    54,264^2 pairs: neither fits in the memory of any machine we run on.
    """
    monkeypatch.setattr(_resources, "available_memory", lambda: 8 * 2**30)
    with pytest.raises(InsufficientMemoryError, match=r"one-sided 20x15 needs about .* GiB"):
        OneSided.build(points=20, checkers=15, progress=False)
    with pytest.raises(InsufficientMemoryError, match=r"two-sided 6x15 needs about .* GiB"):
        TwoSided.build(points=6, checkers=15, progress=False)
