"""File safety of everything bearoff writes (issue 13): refused targets, atomic replacement,
SIGKILL at several moments, full disks, concurrent builds, umask, stale temporaries.

Expected numbers are never mathbg's own output pasted back: a database after an
interrupted build must equal, byte for byte, one built cleanly in another directory.
"""

from __future__ import annotations

import errno
import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from mathbg import _files as storage
from mathbg import _resources
from mathbg.bearoff import OneSided, TwoSided, gnubg_bd
from mathbg.cli import main
from mathbg.errors import InsufficientSpaceError, TargetExistsError

ROOT = Path(__file__).resolve().parents[1]


def _temporaries(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(storage.TMP_PREFIX))


def _same(a: Path, b: Path) -> None:
    """Two native databases hold identical arrays."""
    for f in sorted(a.glob("*.npy")):
        np.testing.assert_array_equal(np.load(f), np.load(b / f.name))
    assert sorted(p.name for p in a.glob("*.npy")) == sorted(p.name for p in b.glob("*.npy"))


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """Clean builds to compare against (one-sided 4x4 gnubg policy, two-sided 4x4)."""
    d = tmp_path_factory.mktemp("ref")
    return {
        "os": OneSided.build(4, 4, path=d / "os", progress=False).path,
        "ts": TwoSided.build(4, 4, path=d / "ts", progress=False).path,
    }


# ------------------------------------------------------------------ refused targets


def test_out_onto_a_directory_with_foreign_files_is_refused(tmp_path, data_dir, capsys):
    target = tmp_path / "mine"
    target.mkdir()
    (target / "thesis.tex").write_text("years of work")
    argv = ["bearoff", "build", "--points", "4", "--checkers", "4", "--quiet"]
    assert main([*argv, "--out", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a directory mathbg did not write" in err
    assert (target / "thesis.tex").read_text() == "years of work"
    assert _temporaries(tmp_path) == []
    # one rule with every writer (met --force never replaces a directory): not with --force
    assert main([*argv, "--out", str(target), "--force"]) == 2
    assert "not even with --force" in capsys.readouterr().err
    assert (target / "thesis.tex").read_text() == "years of work"
    # a mathbg database of another kind is mathbg's: --force replaces it
    two = tmp_path / "two"
    assert main(["bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                 "--quiet", "--out", str(two)]) == 0  # fmt: skip
    assert main([*argv, "--out", str(two)]) == 2
    assert main([*argv, "--out", str(two), "--force"]) == 0


def test_out_onto_an_ordinary_file_is_refused(tmp_path, data_dir, capsys):
    target = tmp_path / "notes.txt"
    target.write_text("keep me")
    for extra in ([], ["--two-sided"]):
        argv = ["bearoff", "build", "--points", "3", "--checkers", "3", "--quiet", *extra]
        assert main([*argv, "--out", str(target)]) == 2
        assert capsys.readouterr().err.count("\n") == 1
        assert target.read_text() == "keep me"
    with pytest.raises(TargetExistsError):
        OneSided.build(3, 3, path=target, progress=False)
    OneSided.build(3, 3, path=target, progress=False, force=True)
    assert target.is_dir()


def test_out_onto_the_current_directory_is_refused_even_with_force(
    tmp_path, data_dir, monkeypatch, capsys
):
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("x")
    monkeypatch.chdir(work)
    for extra in ([], ["--force"]):
        assert main(["bearoff", "build", "--points", "3", "--checkers", "3", "--quiet",
                     "--out", ".", *extra]) == 2  # fmt: skip
        assert "current directory" in capsys.readouterr().err
    assert sorted(p.name for p in work.iterdir()) == ["a.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["work"] or _temporaries(tmp_path) == []
    with pytest.raises(TargetExistsError, match="ancestor"):
        OneSided.build(3, 3, path=tmp_path, progress=False, force=True)


def test_bd_out_onto_a_foreign_file_is_refused(tmp_path, data_dir, capsys):
    target = tmp_path / "x.bd"
    target.write_bytes(b"my own data")
    argv = ["bearoff", "build", "--points", "3", "--checkers", "3", "--quiet", "--out", str(target)]
    assert main(argv) == 2
    assert "not a gnubg one-sided bearoff file" in capsys.readouterr().err
    assert target.read_bytes() == b"my own data"
    assert main([*argv, "--force"]) == 0
    assert target.read_bytes().startswith(b"gnubg-OS-03-03")
    # a one-sided file is replaced by a new one-sided file, not by a two-sided one
    assert main([*argv]) == 0
    assert main([*argv, "--two-sided"]) == 2


def test_a_database_of_the_same_kind_is_replaced(tmp_path, reference):
    target = tmp_path / "db"
    OneSided.build(3, 3, path=target, progress=False)
    db = OneSided.build(4, 4, path=target, progress=False)  # same kind, other size
    assert (db.points, db.checkers) == (4, 4)
    _same(target, reference["os"])
    with pytest.raises(TargetExistsError, match="not a two-sided"):
        TwoSided.build(3, 3, path=target, progress=False)


# ------------------------------------------------------------------ permissions


@pytest.mark.parametrize(("umask", "file_mode", "dir_mode"), [(0o022, 0o644, 0o755),
                                                               (0o077, 0o600, 0o700)])  # fmt: skip
def test_files_get_the_users_umask(tmp_path, umask, file_mode, dir_mode):
    old = os.umask(umask)
    try:
        db = OneSided.build(3, 3, path=tmp_path / "os", progress=False)
        db.to_gnubg(tmp_path / "os.bd")
        TwoSided.build(3, 3, path=tmp_path / "ts", progress=False).to_gnubg(tmp_path / "ts.bd")
    finally:
        os.umask(old)
    for d in ("os", "ts"):
        assert stat.S_IMODE((tmp_path / d).stat().st_mode) == dir_mode
        for f in (tmp_path / d).iterdir():
            assert stat.S_IMODE(f.stat().st_mode) == file_mode, f
    for f in ("os.bd", "ts.bd"):
        assert stat.S_IMODE((tmp_path / f).stat().st_mode) == file_mode


# ------------------------------------------------------------------ stale temporaries


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_stale_temporaries_are_removed_by_the_next_build(tmp_path, reference):
    pid = _dead_pid()
    stale_dir = tmp_path / f"{storage.TMP_PREFIX}{pid}-abcd1234-os"
    stale_dir.mkdir()
    (stale_dir / "dist.npy").write_bytes(b"half")
    stale_file = tmp_path / f"{storage.TMP_PREFIX}{pid}-abcd1234-x.bd"
    stale_file.write_bytes(b"half")
    alive = tmp_path / f"{storage.TMP_PREFIX}{os.getpid()}-abcd1234-other"
    alive.mkdir()  # a live writer's temporary is left alone
    reused = tmp_path / f"{storage.TMP_PREFIX}1-abcd1234-os"  # pid 1 is alive: pid reuse
    reused.mkdir()  # ... but the build holds the lock of "os", so its writer is gone
    OneSided.build(4, 4, path=tmp_path / "os", progress=False)
    assert _temporaries(tmp_path) == [alive.name]
    _same(tmp_path / "os", reference["os"])


# ------------------------------------------------------------------ SIGKILL

_CHILD = """
import os, signal, sys
from pathlib import Path
import numpy as np
from mathbg import _files as storage
from mathbg.bearoff import OneSided, TwoSided
from mathbg.bearoff import native as db_mod
from mathbg.bearoff.generate import onesided, twosided

moment, kind, path = sys.argv[1], sys.argv[2], Path(sys.argv[3])

def die(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)

if moment == "computing":
    if kind == "os":
        real = onesided.build_arrays
        def build_arrays(*a, **k):
            k["progress"] = lambda n: die()
            return real(*a, **k)
        onesided.build_arrays = build_arrays
    else:  # the block build: killed after a few finished blocks (a 4x4 build keeps them
        # in memory; the block store's kill and resume are tested in test_bearoff_bigdb)
        from mathbg.bearoff.generate import blockbuild
        real_update = blockbuild._Progress.update
        done = []
        def update(self, *a, **k):
            done.append(1)
            if len(done) > 3:
                die()
            return real_update(self, *a, **k)
        blockbuild._Progress.update = update
elif moment == "arrays-written":
    db_mod.write_header = die
elif moment == "before-install":
    storage._install = die
elif moment == "after-exchange":
    storage.remove_entry = die  # the old content sits in the temporary, not yet removed
elif moment == "after-install":
    real_install = storage._install
    def install(tmp, final):
        real_install(tmp, final)
        die()
    storage._install = install

cls = OneSided if kind == "os" else TwoSided
cls.build(4, 4, path=path, progress=False, rebuild=True)
print("finished")
"""


def _run_child(moment: str, kind: str, path: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", _CHILD, moment, kind, str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


MOMENTS = ["computing", "arrays-written", "before-install", "after-exchange", "after-install"]


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["os", "ts"])
@pytest.mark.parametrize("existing", [False, True])
def test_sigkill_at_every_moment_then_the_next_build(tmp_path, reference, kind, existing):
    """A build killed at any moment leaves the old database (or none) and no debris once
    the next build has run; the numbers equal a clean build's."""
    cls = OneSided if kind == "os" else TwoSided
    for moment in MOMENTS:
        if moment == "after-exchange" and not existing:
            continue  # nothing to exchange with
        path = tmp_path / moment / "db"
        path.parent.mkdir()
        if existing:
            cls.build(4, 4, path=path, progress=False)
        proc = _run_child(moment, kind, path)
        assert proc.returncode == -signal.SIGKILL, (moment, proc.stderr[-2000:])
        if existing or moment == "after-install":
            # the old database, or the whole new one: never a part
            db = cls.open(path)
            _same(path, reference[kind])
            assert db.points == 4
        else:
            assert not path.exists()
        cls.build(4, 4, path=path, progress=False)
        assert _temporaries(path.parent) == [], moment
        _same(path, reference[kind])


@pytest.mark.slow
def test_sigkill_at_a_random_time_of_a_real_build(tmp_path):
    """A two-sided 6x6 build (about a second) killed part way, by time."""
    import time

    path = tmp_path / "ts"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = "import sys; from mathbg.bearoff import TwoSided; TwoSided.build(6, 6, path=sys.argv[1])"
    for delay in (0.3, 1.2):
        proc = subprocess.Popen([sys.executable, "-c", code, str(path)], env=env,
                                stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(delay)
        proc.kill()
        proc.wait()
    ts = TwoSided.build(6, 6, path=path, progress=False)
    assert _temporaries(tmp_path) == []
    # one checker each on the ace point: the roller always bears it off first
    assert ts.win_probability([1, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]) == 1.0
    # one checker each on the 6-point: a roll misses with 1-1, 2-1, 3-1, 4-1, 3-2 (9 of 36);
    # after a miss the checker is on the 3-point or lower, so P = 3/4 + 1/4 * 1/4 = 13/16
    assert ts.win_probability([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 1]) == 0.8125


# ------------------------------------------------------------------ full disk


def _enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_full_disk_during_a_two_sided_build_is_one_error(tmp_path, reference, monkeypatch):
    path = tmp_path / "ts"
    TwoSided.build(4, 4, path=path, progress=False)
    monkeypatch.setattr(os, "posix_fallocate", _enospc)
    with pytest.raises(InsufficientSpaceError, match="full"):
        TwoSided.build(4, 4, path=path, progress=False, rebuild=True)
    assert _temporaries(tmp_path) == []
    _same(path, reference["ts"])  # the old database stays


def test_full_disk_during_a_one_sided_build_is_one_error(tmp_path, reference, monkeypatch):
    path = tmp_path / "os"
    OneSided.build(4, 4, path=path, progress=False)
    monkeypatch.setattr(np, "save", _enospc)  # the writer of the database files
    with pytest.raises(InsufficientSpaceError):
        OneSided.build(4, 4, path=path, progress=False, rebuild=True)
    monkeypatch.undo()
    assert _temporaries(tmp_path) == []
    _same(path, reference["os"])


def test_full_disk_on_the_cli_is_one_line(tmp_path, data_dir, monkeypatch, capsys):
    monkeypatch.setattr(os, "posix_fallocate", _enospc)
    argv = ["bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3", "--quiet"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "full" in err


def test_gnubg_file_on_a_full_disk(tmp_path, monkeypatch):
    target = tmp_path / "os.bd"
    OneSided.build(3, 3, path=tmp_path / "os", progress=False).to_gnubg(target)
    before = target.read_bytes()
    real_open = open

    def failing_open(file, mode="r", *args, **kwargs):
        fh = real_open(file, mode, *args, **kwargs)
        if "w" in mode and Path(file).name.startswith(storage.TMP_PREFIX):
            fh.write = _enospc
        return fh

    monkeypatch.setattr("builtins.open", failing_open)
    with pytest.raises(InsufficientSpaceError):
        OneSided.open(tmp_path / "os").to_gnubg(target)
    monkeypatch.undo()
    assert target.read_bytes() == before and _temporaries(tmp_path) == []


def test_free_space_is_checked_before_writing(tmp_path, monkeypatch):
    monkeypatch.setattr(_resources, "free_space", lambda path: 1000)
    with pytest.raises(InsufficientSpaceError, match=r"needs .* of disk space at .*only 1000 B"):
        TwoSided.build(4, 4, path=tmp_path / "ts", progress=False)
    assert list(tmp_path.iterdir()) == [] or _temporaries(tmp_path) == []


def test_preallocate_falls_back_to_writing_zeros(tmp_path, monkeypatch):
    f = tmp_path / "sparse"
    with open(f, "wb") as fh:
        fh.truncate(1 << 20)

    def unsupported(*args):
        raise OSError(errno.EOPNOTSUPP, "not supported")

    monkeypatch.setattr(os, "posix_fallocate", unsupported)
    storage.preallocate(f)
    assert f.stat().st_size == 1 << 20 and f.stat().st_blocks * 512 >= 1 << 20


def _small_tmpfs(tmp_path: Path) -> Path | None:
    if os.geteuid() != 0:
        return None
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)],
                          capture_output=True, timeout=10)  # fmt: skip
    return mnt if proc.returncode == 0 else None


def test_a_real_full_filesystem(tmp_path):
    mnt = _small_tmpfs(tmp_path)
    if mnt is None:
        pytest.skip("needs root and permission to mount a tmpfs (simulated ENOSPC tested above)")
    try:
        with pytest.raises(InsufficientSpaceError):  # 4x6 two-sided: 210^2 x 32 B = 1.4 MB
            TwoSided.build(4, 6, path=mnt / "ts", progress=False)
        assert list(mnt.iterdir()) == []  # no lock file, no store left
    finally:
        subprocess.run(["umount", str(mnt)], timeout=10)


# ------------------------------------------------------------------ concurrency


def test_twenty_concurrent_build_pairs(tmp_path, reference):
    """Two builders of one database at once: one builds, the other waits and reuses it."""
    for k in range(20):
        path = tmp_path / f"db{k}"
        errors: list[BaseException] = []
        results: list[OneSided] = []

        def build(path: Path = path, errors=errors, results=results) -> None:
            try:
                results.append(OneSided.build(4, 4, path=path, progress=False))
            except BaseException as exc:  # pragma: no cover - the test reports it
                errors.append(exc)

        threads = [threading.Thread(target=build) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == [] and len(results) == 2
        _same(path, reference["os"])
    assert _temporaries(tmp_path) == []


_RACER = """
import sys
from pathlib import Path
from mathbg.bearoff import OneSided, TwoSided
root, start = Path(sys.argv[1]), sys.argv[2]
print("ready", flush=True)
sys.stdin.readline()  # both processes start together
for k in range(20):
    cls = OneSided if k % 2 else TwoSided
    cls.build(4, 4, path=root / f"db{k}", progress=False)
print("done", flush=True)
"""


@pytest.mark.slow
def test_twenty_concurrent_build_pairs_in_two_processes(tmp_path, reference):
    """Two processes build the same 20 databases in the same order at the same time."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = [subprocess.Popen([sys.executable, "-c", _RACER, str(tmp_path), str(i)], env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(2)]  # fmt: skip
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], results
    for k in range(20):
        _same(tmp_path / f"db{k}", reference["os" if k % 2 else "ts"])
    assert _temporaries(tmp_path) == []


@pytest.mark.slow
def test_concurrent_cli_builds_in_two_processes(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MATHBG_DATA": str(tmp_path / "data")}
    argv = [sys.executable, "-m", "mathbg", "bearoff", "build", "--two-sided", "--points", "6",
            "--checkers", "5", "--quiet"]  # fmt: skip
    for _ in range(2):
        procs = [subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]  # fmt: skip
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outs
        checksums = {line.split("checksum ")[1].split(",")[0] for o, _ in outs
                     for line in o.splitlines()
                     if "checksum" in line and not line.startswith("phases:")}  # fmt: skip
        assert len(checksums) == 1
        (tmp_path / "data" / "bearoff" / "twosided-06x05" / "header.json").unlink()


def test_check_target_unit_rules(tmp_path):
    never = lambda p: False  # noqa: E731
    storage.check_target(tmp_path / "absent", is_same_kind=never, what="x")
    (tmp_path / "empty").mkdir()
    storage.check_target(tmp_path / "empty", is_same_kind=never, what="x")
    (tmp_path / "f").write_text("1")
    with pytest.raises(TargetExistsError):
        storage.check_target(tmp_path / "f", is_same_kind=never, what="x")
    storage.check_target(tmp_path / "f", is_same_kind=never, what="x", force=True)
    with pytest.raises(TargetExistsError, match="root"):
        storage.check_target(Path("/"), is_same_kind=never, what="x", force=True)


def test_gnubg_writer_refuses_a_directory(tmp_path):
    (tmp_path / "d.bd").mkdir()
    with pytest.raises(TargetExistsError, match="directory"):
        gnubg_bd.check_target(tmp_path / "d.bd", "TS")
    with pytest.raises(TargetExistsError, match="directory"):
        TwoSided.build(2, 2, path=tmp_path / "t", progress=False).to_gnubg(tmp_path / "d.bd")
