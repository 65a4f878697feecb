"""Block-wise two-sided builds: gnubg bytes, restriction, backends, kill/resume, Bellman.

Expected numbers come from gnubg (the shipped ``gnubg_ts0.bd``, ``makebearoff -t 6x8``'s
MD5), from the independent shell-order builder of :mod:`mathbg.bearoff.twosided` (itself
checked byte for byte against ``makebearoff``), from the structure of the index (a 6 x n
space is a prefix of every larger one) and from the Bellman equation re-evaluated with the
rules model's own legal plays.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from mathbg._resources import parse_memory
from mathbg.bearoff import TwoSided, rank
from mathbg.bearoff.generate.blockbuild import (
    BlockStore,
    BuildSpec,
    assemble,
    build_blocks,
    minimum_memory,
)
from mathbg.bearoff.generate.pipblocks import MAX_DROP, layout
from mathbg.bearoff.index import all_positions, n_positions
from mathbg.errors import DatabaseError, InsufficientMemoryError, InvalidParameterError

# slow lane: builds two-sided databases and gnubg files (about 30 CPU-s in all)
pytestmark = pytest.mark.slow

#: MD5 of ``makebearoff -t 6x8 -f x.bd`` (gnubg 1.07.001, run 2026-12-01 on the dev box;
#: 72,144,112 bytes, 12 min 25 s).
MAKEBEAROFF_6X8_MD5 = "fcdbbc80b7ef84ddc81b839d0f26bed1"
ROOT = Path(__file__).resolve().parent.parent


def _build(tmp: Path, points: int, checkers: int, **kw) -> np.ndarray:
    """Blocks into a store, then the assembled query table (gnubg order)."""
    spec = BuildSpec(points, checkers, kw.pop("cubeful", True), kw.pop("dtype", "u16"))
    store = BlockStore(tmp / "store")
    arena, plan, _ = build_blocks(spec, store, progress=False, **kw)
    assemble(spec, store, tmp / "q.npy", arena=arena, plan=plan)
    return np.load(tmp / "q.npy")


@pytest.fixture(scope="module")
def u16_6x8(tmp_path_factory) -> np.ndarray:
    return _build(tmp_path_factory.mktemp("u68"), 6, 8)


@pytest.fixture(scope="module")
def u16_6x6(tmp_path_factory) -> np.ndarray:
    return _build(tmp_path_factory.mktemp("u66"), 6, 6)


def _bd_bytes(values: np.ndarray, points: int, checkers: int) -> bytes:
    header = f"gnubg-TS-{points:02d}-{checkers:02d}-{int(values.shape[2] == 4)}".ljust(39, "x")
    return header.encode() + b"\n" + values.astype("<u2").tobytes()


# ----------------------------------------------------------------- layout
def test_layout_classes_and_dependencies():
    lay = layout(6, 8)
    assert lay.n == n_positions(6, 8) == 3003 and lay.n_classes == 49
    boards = all_positions(6, 8)
    pip = (boards * np.arange(1, 7)).sum(axis=1)[lay.order]
    assert np.all(np.diff(pip) >= 0)  # pip order, classes contiguous
    assert list(lay.offsets[:3]) == [0, 1, 2]  # all off, then one checker on the ace
    assert sorted(lay.order) == list(range(lay.n))
    # block (a, b) reads row band b, columns a-24 .. a-2, all on lower layers
    for a, b in [(30, 20), (3, 5), (48, 1)]:
        cols = list(lay.inputs(a, b))
        assert cols[0] == max(1, a - MAX_DROP) and cols[-1] == a - 2
        assert all(b + c < a + b for c in cols)


def test_every_successor_lies_in_the_input_classes():
    from mathbg.bearoff.generate.blockbuild import pip_csr

    lay = layout(6, 8)
    csr = pip_csr(lay)
    cls_of_pos = lay.pip_of_class_positions()
    rows = np.repeat(np.arange(lay.n * 21) // 21, np.diff(csr.ptr))
    a = cls_of_pos[rows]
    c = cls_of_pos[csr.succ]
    assert np.all((c == 0) | ((c >= a - MAX_DROP) & (c <= a - 2)))
    # a roll that bears the last checker off keeps only that play (worth +1, the most)
    lengths = np.diff(csr.ptr)
    row_of_entry = np.repeat(np.arange(lay.n * 21), lengths)
    rows_with_off = np.unique(row_of_entry[csr.succ == 0])
    assert np.all(lengths[rows_with_off] == 1)


# ----------------------------------------------------------------- gnubg bytes
@pytest.mark.gnubg(kind="exact")
def test_u16_6x6_is_gnubg_ts0_byte_for_byte(gnubg, u16_6x6):
    assert _bd_bytes(u16_6x6, 6, 6) == gnubg.ts_db.read_bytes()


@pytest.mark.slow  # the 6x8 build of its fixture (setup, outside the budget's call phase)
def test_u16_6x8_is_makebearoff_byte_for_byte(u16_6x8):
    assert hashlib.md5(_bd_bytes(u16_6x8, 6, 8)).hexdigest() == MAKEBEAROFF_6X8_MD5


@pytest.mark.gnubg(kind="exact")
@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("MATHBG_BIG_PEER") != "1",
                    reason="runs makebearoff -t 6x8 (5-13 min): set MATHBG_BIG_PEER=1")  # fmt: skip
def test_u16_6x8_equals_a_fresh_makebearoff_run(gnubg, tmp_path, u16_6x8):
    out = tmp_path / "mb.bd"
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    cmd = [str(gnubg.makebearoff), "-t", "6x8", "-f", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    assert out.read_bytes() == _bd_bytes(u16_6x8, 6, 8)


@pytest.mark.slow  # over 5 s of CPU in the fast lane (tests/conftest.py)
def test_cubeless_u16_is_the_first_value_of_the_cubeful_one(tmp_path, u16_6x8):
    # gnubg's cubeless recursion reads only cubeless values (makebearoff -C stores them)
    assert np.array_equal(_build(tmp_path, 6, 8, cubeful=False), u16_6x8[..., :1])


def test_u16_file_equals_the_in_memory_table_in_gnubg_arithmetic(u16_6x6):
    from mathbg.bearoff.generate.twosided import build_arrays

    fixed = build_arrays(6, 6, gnubg=True)
    assert np.array_equal(u16_6x6, (fixed.astype(np.int32) + 0x8000).astype(np.uint16))


# ----------------------------------------------------------------- float encodings
@pytest.mark.slow
def test_f64_file_equals_the_in_memory_table_and_f32_is_within_2e5(tmp_path):
    from mathbg.bearoff.generate.twosided import build_arrays

    reference = build_arrays(6, 7)  # the float64 table built in memory
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert np.array_equal(_build(tmp_path / "a", 6, 7, dtype="f64"), reference)
    f32 = _build(tmp_path / "b", 6, 7, dtype="f32")
    assert f32.dtype == np.float32
    assert np.max(np.abs(f32 - reference)) < 2e-5


# ----------------------------------------------------------------- restriction, backends
@pytest.mark.slow  # the 6x8 build of its fixture (setup, outside the budget's call phase)
def test_restriction_to_six_checkers_is_the_6x6_database(u16_6x8, u16_6x6):
    # the 6x6 index space is a prefix of the 6x8 one
    assert np.array_equal(u16_6x8[:924, :924], u16_6x6)


@pytest.mark.slow  # over 5 s of CPU in the fast lane (tests/conftest.py)
def test_out_of_core_build_equals_the_in_memory_one(tmp_path, u16_6x8):
    spec = BuildSpec(6, 8, True, "u16")
    budget = minimum_memory(spec)
    store = BlockStore(tmp_path / "store")
    arena, plan, _ = build_blocks(spec, store, memory=budget, progress=False)
    assert not plan.keep_all and arena is None
    assert plan.capacity < 3003**2 * 4  # blocks are dropped and re-read from the store
    assemble(spec, store, tmp_path / "q.npy")
    table = np.load(tmp_path / "q.npy")
    assert np.array_equal(table, u16_6x8)
    (tmp_path / "six").mkdir()
    assert np.array_equal(table[:924, :924], _build(tmp_path / "six", 6, 6))


def test_budget_below_the_live_window_is_refused_before_building(tmp_path):
    spec = BuildSpec(6, 8, True, "u16")
    store = BlockStore(tmp_path / "store")
    with pytest.raises(InsufficientMemoryError, match=r"two-sided 6x8 needs about .* live window"):
        build_blocks(spec, store, memory=minimum_memory(spec) - 2**20, progress=False)
    assert store.listing() == {}


@pytest.mark.dask
@pytest.mark.slow
def test_dask_build_equals_the_local_build(tmp_path, u16_6x8):
    distributed = pytest.importorskip("distributed")
    from mathbg.bearoff.generate import blockdask

    spec = BuildSpec(6, 8, True, "u16")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                 dashboard_address=":0") as cluster,  # fmt: skip
        distributed.Client(cluster) as client,
    ):
        store = BlockStore(tmp_path / "store")
        blockdask.build_blocks(spec, store, client, progress=False)
        listing = {ab: os.stat(store._path(*ab, shas[0])).st_mtime_ns
                   for ab, shas in store.listing().items()}  # fmt: skip
        # a rerun finds every block in the store: nothing is computed again
        blockdask.build_blocks(spec, store, client, progress=False)
        again = {ab: os.stat(store._path(*ab, shas[0])).st_mtime_ns
                 for ab, shas in store.listing().items()}  # fmt: skip
    assert again == listing
    assemble(spec, store, tmp_path / "q.npy")
    table = np.load(tmp_path / "q.npy")
    assert np.array_equal(table, u16_6x8)
    assert hashlib.md5(_bd_bytes(table, 6, 8)).hexdigest() == MAKEBEAROFF_6X8_MD5


# ----------------------------------------------------------------- kill and resume
_CHILD = textwrap.dedent(
    """
    import sys
    from mathbg.bearoff.generate.blockbuild import BlockStore, BuildSpec, build_blocks
    spec = BuildSpec(6, 7, True, "u16")
    build_blocks(spec, BlockStore(sys.argv[1]), memory=int(sys.argv[2]), progress=False)
    """
)


def _files(store: Path) -> dict[str, int]:
    blocks = store / "blocks"
    return {p.name: p.stat().st_mtime_ns for p in blocks.iterdir() if p.suffix == ".npy"}


@pytest.mark.slow
def test_sigkill_at_several_moments_then_resume_gives_identical_bytes(tmp_path, u16_6x8):
    store = tmp_path / "store"
    spec = BuildSpec(6, 7, True, "u16")
    budget = str(minimum_memory(spec))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    total = layout(6, 7).n_classes ** 2
    n7 = n_positions(6, 7)
    kills = 0
    for threshold in (1, total // 3, (4 * total) // 5):
        before = _files(store) if (store / "blocks").exists() else {}
        if len(before) >= threshold:
            continue
        proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(store), budget], env=env)
        deadline = time.monotonic() + 120
        while proc.poll() is None and time.monotonic() < deadline:
            if (store / "blocks").exists() and len(_files(store)) >= threshold:
                os.kill(proc.pid, signal.SIGKILL)
                kills += 1
                break
            time.sleep(0.005)
        proc.wait()
        after = _files(store)
        # blocks finished before this run were neither recomputed nor rewritten
        assert all(after.get(name) == mtime for name, mtime in before.items())
    assert kills >= 2
    before = _files(store)
    resumed = BlockStore(store)
    _, _, stats = build_blocks(spec, resumed, memory=int(budget), progress=False)
    assert stats.computed == total - len(before)
    assert all(_files(store)[name] == mtime for name, mtime in before.items())
    assert len(resumed.listing()) == total and all(len(v) == 1 for v in resumed.listing().values())
    assemble(spec, resumed, tmp_path / "q.npy")
    # the 6x7 space is a prefix of the 6x8 one (a clean build, = makebearoff -t 6x8)
    assert np.array_equal(np.load(tmp_path / "q.npy"), u16_6x8[:n7, :n7])

    # a corrupted finished block is detected and recomputed (only that one)
    (ab, [sha]) = sorted(resumed.listing().items())[900]
    path = Path(resumed._path(*ab, sha))
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF
    path.write_bytes(bytes(raw))
    _, _, stats = build_blocks(spec, resumed, memory=int(budget), progress=False)
    assert stats.computed == 1
    assemble(spec, resumed, tmp_path / "q2.npy")
    assert np.array_equal(np.load(tmp_path / "q2.npy"), u16_6x8[:n7, :n7])


def test_store_of_another_build_is_refused(tmp_path):
    store = BlockStore(tmp_path / "s")
    build_blocks(BuildSpec(3, 3, True, "u16"), store, progress=False)
    with pytest.raises(DatabaseError, match="another build"):
        build_blocks(BuildSpec(3, 3, True, "f32"), store, progress=False)


# ----------------------------------------------------------------- Bellman equation
def _cube(nd: int, dt: int) -> int:
    """gnubg's CubeEquity(ND, DT, DP = 0x7FFF), C integer division."""
    half = int(nd / 2)
    if dt >= half:
        return 0x7FFF if dt >= 0x7FFF // 2 else 2 * dt
    return nd


@pytest.mark.slow
def test_bellman_equation_at_sampled_pairs_of_6x9(tmp_path):
    """E[i, j] = trunc(sum_r w_r max_play g(E[j, s]) / 36) in gnubg's integer arithmetic,
    with the plays from Position.legal_plays (not the bearoff move generator)."""
    from mathbg.rules.position import Position

    points, checkers = 6, 9  # 6x10 takes 1-2 minutes on CI's two cores
    table = _build(tmp_path, points, checkers)
    x = table.astype(np.int64) - 32768
    boards = all_positions(points, checkers)
    rng = np.random.default_rng(2026)
    pairs = [(len(boards) - 1, len(boards) - 1), *rng.integers(1, len(boards), (25, 2))]
    for i, j in pairs:
        roller, opponent = [int(v) for v in boards[i]], [int(v) for v in boards[j]]
        pos = Position.from_counts(roller + [0] * 18, opponent + [0] * 18)
        totals = np.zeros(4, np.int64)
        for d0 in range(1, 7):
            for d1 in range(1, d0 + 1):
                best = np.full(4, -65535, np.int64)
                for play in pos.legal_plays((d0, d1)):
                    s = rank(list(play.result.player[:points]), points)
                    if s == 0:
                        cand = np.full(4, 32767)
                    else:
                        e = x[j, s]
                        cand = np.array([-e[0] - 1, -e[3] - 1, -_cube(e[2], e[3]) - 1,
                                         -_cube(e[1], e[3]) - 1])  # fmt: skip
                    best = np.maximum(best, cand)
                totals += (1 if d0 == d1 else 2) * best
        expected = np.sign(totals) * (np.abs(totals) // 36)
        np.testing.assert_array_equal(x[i, j], expected, err_msg=f"pair {i}, {j}")


# ----------------------------------------------------------------- API
def test_twosided_build_api_opens_what_is_built(tmp_path):
    path = tmp_path / "db"
    ts = TwoSided.build(6, 4, dtype="u16", path=path, progress=False)
    assert (ts.dtype, ts.cubeful, ts.n_positions) == ("u16", True, 210)
    mtime = (path / "equity.npy").stat().st_mtime_ns
    again = TwoSided.build(6, 4, dtype="u16", path=path, progress=False)
    assert (path / "equity.npy").stat().st_mtime_ns == mtime and again.dtype == "u16"
    six = [0, 0, 0, 0, 0, 1]
    # gnubg_ts0.bd stores [.625, .625, .5, .5] for one checker each on the six-point
    assert ts.equities(six, six).cubeless == pytest.approx(0.625, abs=1 / 32767)
    assert ts.win_probability(six, six) == pytest.approx(0.8125, abs=1 / 32767)
    # DT = 2 x 0.5 = DP in exact arithmetic; in 16 bits DT is a hair below: still a double
    assert ts.cube_decision(six, six).should_double
    assert not path.with_name(".db.build").exists()  # the block store is removed
    cubeless = TwoSided.build(6, 4, cubeful=False, dtype="f32", path=tmp_path / "c",
                              progress=False)  # fmt: skip
    assert not cubeless.cubeful and cubeless.win_probability(six, six) == 0.8125
    with pytest.raises(DatabaseError, match="cubeless"):
        cubeless.equities(six, six)


def test_largest_built_database_is_found(tmp_path):
    for c in (3, 5):
        TwoSided.build(6, c, dtype="u16", path=tmp_path / f"twosided-06x0{c}-u16", progress=False)
    TwoSided.build(6, 7, cubeful=False, dtype="u16", path=tmp_path / "twosided-06x07-u16-cubeless",
                   progress=False)  # fmt: skip
    best = TwoSided.largest(directory=tmp_path)
    assert best is not None and best.checkers == 5
    assert TwoSided.largest(directory=tmp_path, cubeful=False).checkers == 7
    assert TwoSided.largest(directory=tmp_path / "nothing") is None


@pytest.mark.gnubg(kind="exact")
def test_export_to_gnubg_format(gnubg, tmp_path):
    ts = TwoSided.build(6, 6, dtype="u16", path=tmp_path / "db", progress=False)
    ts.to_gnubg(tmp_path / "x.bd")
    assert (tmp_path / "x.bd").read_bytes() == gnubg.ts_db.read_bytes()
    back = TwoSided.open(tmp_path / "x.bd")
    assert np.array_equal(back.values(all_positions(6, 6)[5], all_positions(6, 6)[9]),
                          ts.values(all_positions(6, 6)[5], all_positions(6, 6)[9]))  # fmt: skip


def test_export_refuses_what_gnubg_cannot_hold():
    table = np.lib.stride_tricks.as_strided(np.zeros(1, np.uint16), (18564, 18564, 4), (0, 0, 0))
    fake = TwoSided(table, points=6, checkers=12)
    with pytest.raises(DatabaseError, match="2 GB"):
        fake.to_gnubg("/nonexistent/x.bd")


@pytest.mark.parametrize(
    ("text", "value"),
    [("12GiB", 12 * 2**30), ("500MB", 500 * 10**6), ("2g", 2 * 10**9), (1024, 1024),
     ("1.5 GiB", int(1.5 * 2**30))],
)  # fmt: skip
def test_parse_memory(text, value):
    assert parse_memory(text) == value


@pytest.mark.parametrize("text", ["lots", "-1GB", "12XB", 0])
def test_parse_memory_rejects(text):
    with pytest.raises(InvalidParameterError):
        parse_memory(text)


# ----------------------------------------------------------------- CLI
def test_cli_builds_and_shows_a_two_sided_u16_database(tmp_path, capsys, monkeypatch):
    from mathbg.cli import main

    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "data"))
    argv = ["bearoff", "build", "--two-sided", "--points", "6", "--checkers", "7",
            "--dtype", "u16", "--memory", "1GiB", "--quiet"]  # fmt: skip
    assert main(argv) == 0
    assert "two-sided 6x7" in capsys.readouterr().out
    assert (tmp_path / "data" / "bearoff" / "twosided-06x07-u16" / "header.json").exists()
    # show uses the largest database built (6x7 holds this 7-checker pair)
    assert main(["bearoff", "show", "--two-sided", "0,0,0,0,0,7", "0,0,0,0,0,7", "--json"]) == 0
    out = capsys.readouterr().out
    assert '"two-sided 6x7"' in out and "decision" in out
    assert main(["bearoff", "build", "--memory", "1GiB", "--quiet"]) == 2
    assert "--memory needs --two-sided" in capsys.readouterr().err


def test_cli_writes_a_cubeless_gnubg_file(tmp_path, capsys):
    from mathbg.bearoff import gnubg_bd
    from mathbg.cli import main

    out = tmp_path / "ts.bd"
    argv = ["bearoff", "build", "--two-sided", "--points", "4", "--checkers", "4",
            "--cubeless-only", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    bd = gnubg_bd.read_twosided(out)
    assert not bd.header.cubeful and bd.values.shape == (70, 70, 1)
    assert bd.values[0, 5, 0] == 65535 and bd.values[5, 0, 0] == 0  # +1 / -1


@pytest.mark.gnubg(kind="exact")
@pytest.mark.parametrize(("size", "flags"), [("4x5", []), ("3x3", ["-C"]), ("7x4", [])])
def test_cli_gnubg_file_equals_a_fresh_makebearoff(gnubg, tmp_path, size, flags):
    from mathbg.cli import main

    if gnubg.makebearoff is None:
        pytest.fail("makebearoff is missing")
    ref = tmp_path / "mb.bd"
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    subprocess.run([str(gnubg.makebearoff), "-t", size, *flags, "-f", str(ref)], check=True,
                   capture_output=True, env=env, timeout=300)  # fmt: skip
    points, checkers = size.split("x")
    out = tmp_path / "ours.bd"
    argv = ["bearoff", "build", "--two-sided", "--points", points, "--checkers", checkers,
            "--out", str(out), "--quiet"] + (["--cubeless-only"] if flags else [])  # fmt: skip
    assert main(argv) == 0
    assert out.read_bytes() == ref.read_bytes()


def test_block_store_behind_an_fsspec_url_gives_the_same_bytes(tmp_path):
    pytest.importorskip("fsspec")
    spec = BuildSpec(4, 5, True, "u16")
    url = BlockStore(f"file://{tmp_path / 'url'}")
    build_blocks(spec, url, progress=False)
    assemble(spec, url, tmp_path / "a.npy")
    (tmp_path / "p").mkdir()
    assert np.array_equal(np.load(tmp_path / "a.npy"), _build(tmp_path / "p", 4, 5))
    # the rerun finds every block (verified through the URL) and computes nothing
    _, _, stats = build_blocks(spec, url, progress=False)
    assert stats.computed == 0


def test_removing_a_store_leaves_other_files_alone(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "notes.txt").write_text("mine")
    store = BlockStore(shared)
    build_blocks(BuildSpec(3, 2, True, "u16"), store, progress=False)
    store.remove_all()
    assert [p.name for p in shared.iterdir()] == ["notes.txt"]


# ----------------------------------------------------------------- small builds
def test_a_small_database_build_keeps_its_blocks_in_memory(tmp_path, monkeypatch):
    """6x6 and smaller: no block files (writing them took longer than the build) and
    one thread; the bytes are the in-memory table's all the same."""
    from mathbg.bearoff.generate import blockbuild
    from mathbg.bearoff.generate.twosided import build_arrays

    puts: list[tuple[int, int]] = []
    real_put = BlockStore.put

    def spy(self, a, b, block):
        puts.append((a, b))
        return real_put(self, a, b, block)

    monkeypatch.setattr(BlockStore, "put", spy)
    ts = TwoSided.build(5, 6, path=tmp_path / "ts", dtype="f64", progress=False)
    assert puts == []
    assert ts.dtype == "f64"
    assert np.array_equal(np.load(tmp_path / "ts" / "equity.npy"), build_arrays(5, 6))
    lay = layout(5, 6)
    spec = BuildSpec(5, 6, True, "f64")
    csr = blockbuild.pip_csr(lay)
    work = blockbuild.block_work(lay, csr)
    plan = blockbuild.plan_arena(spec, lay, csr, None)
    assert sum(work.values()) < blockbuild._SERIAL_BUILD
    assert not any(parallel for _, parallel in blockbuild._steps(lay, plan, 4, work))


def test_a_bigger_build_writes_its_blocks_and_runs_parallel_steps():
    from mathbg.bearoff.generate import blockbuild

    lay = layout(6, 8)
    spec = BuildSpec(6, 8, True, "u16")
    csr = blockbuild.pip_csr(lay)
    work = blockbuild.block_work(lay, csr)
    plan = blockbuild.plan_arena(spec, lay, csr, None)
    assert sum(work.values()) >= blockbuild._PERSIST_WORK
    assert any(parallel for _, parallel in blockbuild._steps(lay, plan, 4, work))
