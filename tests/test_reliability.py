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
from pathlib import Path

import numpy as np
import pytest

from mathbg.cli import main
from mathbg.errors import DatabaseCorruptError, DatabaseError


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


@pytest.mark.dask
@pytest.mark.parametrize(
    "address", ["garbage", "tcp://", "127.0.0.1", "inproc://x", "bogus://h:1", "tcp://h:99999"]
)
def test_a_bad_scheduler_address_is_refused_without_connecting(address, monkeypatch):
    distributed = pytest.importorskip("distributed")

    def no_connection(*args, **kwargs):
        raise AssertionError("a connection was tried")

    monkeypatch.setattr(distributed, "Client", no_connection)
    msg = error_line("bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                     "--scheduler", address, "--quiet")  # fmt: skip
    assert repr(address) in msg


@pytest.mark.dask
def test_a_tls_scheduler_without_tls_configuration_is_one_line():
    msg = error_line("bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                     "--scheduler", "tls://127.0.0.1:1", "--quiet")  # fmt: skip
    assert "tls://127.0.0.1:1" in msg


@pytest.mark.dask
def test_the_space_is_checked_before_the_scheduler(monkeypatch):
    distributed = pytest.importorskip("distributed")

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


def test_a_long_model_met_is_refused_before_the_work():
    start = time.process_time()
    msg = error_line("met", "--model", "zadeh", "--length", "1024")
    assert "up to 512 points" in msg and "1024" in msg
    assert time.process_time() - start < 5  # refused before any table is computed


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


# ------------------------------------------------------------ stored pieces and their identity


def _u16_spec(points, checkers):
    from mathbg.bearoff.generate.blockbuild import BuildSpec

    return BuildSpec(points, checkers, True, "u16")


def _clean_table(tmp_path, spec):
    from mathbg.bearoff.generate.blockbuild import assemble, build_blocks
    from mathbg.bearoff.generate.blockstore import BlockStore

    store = BlockStore(tmp_path / "clean")
    build_blocks(spec, store, progress=False)
    assemble(spec, store, tmp_path / "clean.npy")
    return (tmp_path / "clean.npy").read_bytes()


@pytest.mark.slow
def test_a_block_copied_to_another_coordinate_is_recomputed(tmp_path):
    """The issue's reproducer on a smaller space: a build stopped half way, one block file
    replaced by a same-shape block of another coordinate renamed to this one (its name's
    checksum taken along); the resumed build must give the clean bytes."""
    import shutil

    from mathbg.bearoff.generate.blockbuild import assemble, build_blocks
    from mathbg.bearoff.generate.blockstore import BlockStore
    from mathbg.bearoff.generate.pipblocks import layout

    spec = _u16_spec(5, 6)
    clean = _clean_table(tmp_path, spec)
    lay = layout(5, 6)
    store = BlockStore(tmp_path / "s")
    build_blocks(spec, store, progress=False, stop_after=lay.n_classes**2 // 4, persist=True)
    listing = store.listing()
    by_shape: dict[tuple[int, int], list[int]] = {}
    for a, b in sorted(listing):
        by_shape.setdefault((int(lay.sizes[a]), b), []).append(a)
    (_, b), (a1, a2, *_) = next((k, v) for k, v in sorted(by_shape.items()) if len(v) >= 2)
    for sha in listing[(a1, b)]:
        Path(store._path(a1, b, sha)).unlink()
    sha2 = listing[(a2, b)][0]
    shutil.copy(store._path(a2, b, sha2), store._path(a1, b, sha2))
    resumed = BlockStore(tmp_path / "s")
    build_blocks(spec, resumed, progress=False)
    assemble(spec, resumed, tmp_path / "s.npy")
    assert (tmp_path / "s.npy").read_bytes() == clean


@pytest.mark.slow
def test_a_block_of_another_space_is_recomputed(tmp_path):
    """A block file of another build (another space, same coordinate) in the store: not
    an internal error, not served: recomputed to the clean bytes."""
    import shutil

    from mathbg.bearoff.generate.blockbuild import assemble, build_blocks
    from mathbg.bearoff.generate.blockstore import BlockStore
    from mathbg.bearoff.generate.pipblocks import layout

    spec = _u16_spec(3, 4)
    clean = _clean_table(tmp_path, spec)
    other = BlockStore(tmp_path / "other")
    build_blocks(_u16_spec(4, 3), other, progress=False)
    store = BlockStore(tmp_path / "s")
    store.claim(spec.identity(layout(3, 4)))
    for (a, b), shas in other.listing().items():
        shutil.copy(other._path(a, b, shas[0]), store._path(a, b, shas[0]))
    build_blocks(spec, BlockStore(tmp_path / "s"), progress=False)
    assemble(spec, BlockStore(tmp_path / "s"), tmp_path / "s.npy")
    assert (tmp_path / "s.npy").read_bytes() == clean


@pytest.mark.slow  # a block build: about 7 CPU-s
def test_the_final_manifest_lists_the_only_trusted_copy(tmp_path):
    from mathbg.bearoff.generate.blockbuild import build_blocks
    from mathbg.bearoff.generate.blockstore import BlockStore
    from mathbg.bearoff.generate.pipblocks import layout

    spec = _u16_spec(3, 3)
    store = BlockStore(tmp_path / "s")
    build_blocks(spec, store, progress=False)
    listing = store.listing()
    (a, b), _ = next(iter(sorted(listing.items())))
    block, _ = store.get(a, b)
    # a second, self-consistent copy the manifest does not list is not trusted
    import hashlib

    manifest = store.read_manifest()
    manifest["blocks"][f"{a},{b}"] = hashlib.sha256(b"x").hexdigest()
    store.write_manifest(manifest)
    assert BlockStore(tmp_path / "s", spec.identity(layout(3, 3))).get(a, b) is None
    assert block is not None


@pytest.mark.slow
def test_a_match_cache_file_of_another_score_is_not_served(tmp_path):
    """The issue's reproducer: the 3a5a cache file copied over the 3a3a one."""
    import shutil

    from mathbg.bearoff.exact import match as exact_match

    args = ["bearoff", "match", "0,0,1,1,1,1", "0,0,0,2,1,1", "--json"]
    code, fresh, _ = run(*args, "--away", "3,3")
    assert code == 0
    for away in ("3,3", "3,5"):
        exact_match._MEMORY.clear()  # the solutions kept in memory: solve (and cache) again
        assert run(*args, "--away", away, "--cache")[0] == 0
    cache = tmp_path / "data" / "bearoff" / "match"
    (three,) = cache.glob("*3a3a*.npz")
    (five,) = cache.glob("*3a5a*.npz")
    shutil.copy(five, three)
    exact_match._MEMORY.clear()
    code, served, err = run(*args, "--away", "3,3", "--cache")
    assert code == 0 and "damaged match cache" in err
    assert served == fresh


def _gnubg_onesided(tmp_path, points=6, checkers=6):
    path = tmp_path / f"os{points}{checkers}.bd"
    assert run("bearoff", "build", "--points", str(points), "--checkers", str(checkers),
               "--out", str(path), "--quiet")[0] == 0  # fmt: skip
    return path


def test_every_position_of_a_gnubg_file_passes_its_own_recurrence(tmp_path):
    from mathbg.bearoff import gnubg_bd

    bd = gnubg_bd.read_onesided(_gnubg_onesided(tmp_path, 5, 4))
    for i in range(bd.dist.shape[0]):
        gnubg_bd.check_position(bd, i)


def test_probability_moved_between_bins_is_caught_at_query(tmp_path):
    """Sums and support unchanged (the load checks pass); the row's own equation fails."""
    from mathbg.bearoff import gnubg_bd
    from mathbg.bearoff.index import rank

    bd = gnubg_bd.read_onesided(_gnubg_onesided(tmp_path))
    i = int(rank([0, 0, 1, 1, 1, 1]))
    nz = np.flatnonzero(bd.dist[i])
    damaged = bd.dist.copy()
    amount = min(int(damaged[i, nz[0]]), 20000)
    damaged[i, nz[0]] -= amount
    damaged[i, nz[-1]] += amount
    bad = gnubg_bd.OneSidedBd(bd.header, damaged, bd.gammon)
    gnubg_bd.check_onesided(bad)  # what the load sees: plausible
    with pytest.raises(DatabaseCorruptError, match=f"position {i}"):
        gnubg_bd.check_position(bad, i)


@pytest.mark.slow  # compiles the two-sided build: about 6 CPU-s
def test_a_changed_two_sided_pair_is_caught_at_query(tmp_path):
    from mathbg.bearoff import gnubg_bd

    path = tmp_path / "ts.bd"
    assert run("bearoff", "build", "--two-sided", "--points", "4", "--checkers", "4",
               "--out", str(path), "--quiet")[0] == 0  # fmt: skip
    bd = gnubg_bd.read_twosided(path)
    n = bd.values.shape[0]
    for i, j in [(1, 1), (5, 9), (n - 1, n - 1), (n // 2, 3)]:
        gnubg_bd.check_pair(bd, i, j)
    values = bd.values.copy()
    values[7, 11, 0] += 150  # about 0.0046 of equity
    with pytest.raises(DatabaseCorruptError, match=r"pair \(7, 11\)"):
        gnubg_bd.check_pair(gnubg_bd.TwoSidedBd(bd.header, values), 7, 11)


# ------------------------------------------------------------------------------- Dask


class _Future:
    def __init__(self, done):
        self._done = done

    def done(self):
        return self._done


@pytest.mark.dask
def test_progress_loop_reads_both_wait_behaviours(tmp_path):
    """distributed before 2026: wait(timeout=) returns the finished set; 2026.x raises
    TimeoutError when the time passes. Both mean "not all done yet"."""
    from mathbg.bearoff.generate import blockdask
    from mathbg.bearoff.generate.blockstore import BlockStore
    from mathbg.bearoff.generate.pipblocks import layout

    lay = layout(2, 2)
    store = BlockStore(tmp_path / "s")
    sinks = [_Future(True), _Future(False)]
    calls = []

    def old_wait(futures, timeout=None):
        calls.append("old")
        if len(calls) >= 3:
            sinks[1]._done = True
        return [f for f in futures if f.done()], [f for f in futures if not f.done()]

    def new_wait(futures, timeout=None):
        calls.append("new")
        if not all(f.done() for f in futures):
            if len(calls) >= 6:
                sinks[1]._done = True
            raise TimeoutError
        return list(futures), []

    blockdask._wait(None, sinks, old_wait, store, lay, None, 0, 60)
    sinks[1]._done = False
    blockdask._wait(None, sinks, new_wait, store, lay, None, 0, 60)
    assert calls.count("old") == 3 and calls.count("new") >= 3


@pytest.mark.dask
def test_a_stalled_dask_build_says_so_in_one_line(tmp_path):
    from mathbg.bearoff.generate import blockdask
    from mathbg.bearoff.generate.blockstore import BlockStore
    from mathbg.bearoff.generate.pipblocks import layout

    class Client:
        def scheduler_info(self):
            return {"workers": {}}

    def never(futures, timeout=None):
        time.sleep(min(timeout or 0, 0.05))
        raise TimeoutError

    with pytest.raises(DatabaseError, match=r"no progress for 0 s .* 0 worker\(s\)") as exc:
        blockdask._wait(Client(), [_Future(False)], never, BlockStore(tmp_path / "s"),
                        layout(2, 2), None, 0, 0.2)  # fmt: skip
    assert "\n" not in str(exc.value)


@pytest.mark.dask
@pytest.mark.slow
def test_cli_scheduler_path_with_the_progress_bar(tmp_path):
    """`bearoff build --two-sided --scheduler ADDRESS` as the CLI runs it (bar on),
    against a LocalCluster (threads: the block reader runs in several threads), gives the
    local build's bytes."""
    distributed = pytest.importorskip("distributed")
    local = tmp_path / "local.bd"
    assert run("bearoff", "build", "--two-sided", "--points", "4", "--checkers", "5",
               "--out", str(local), "--quiet")[0] == 0  # fmt: skip
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=False,
                                  protocol="tcp", dashboard_address=":0") as cluster:  # fmt: skip
        out = tmp_path / "dask.bd"
        code, _, err = run("bearoff", "build", "--two-sided", "--points", "4", "--checkers",
                           "5", "--out", str(out), "--scheduler", cluster.scheduler_address,
                           "--store", str(tmp_path / "store"))  # fmt: skip
    assert code == 0, err
    assert "two-sided (dask)" in err  # the bar was drawn
    assert out.read_bytes() == local.read_bytes()


@pytest.mark.dask
@pytest.mark.slow
def test_a_killed_dask_worker_does_not_stop_the_build(tmp_path):
    """SIGKILL one of two worker processes mid-build: the build finishes (its tasks move
    to the worker left or the restarted one) with the local build's bytes."""
    import os
    import signal
    import threading

    distributed = pytest.importorskip("distributed")
    from mathbg.bearoff.generate import blockdask
    from mathbg.bearoff.generate.blockbuild import assemble
    from mathbg.bearoff.generate.blockstore import BlockStore

    spec = _u16_spec(5, 6)
    clean = _clean_table(tmp_path, spec)
    store = BlockStore(tmp_path / "s")
    killed = []
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                 dashboard_address=":0") as cluster,  # fmt: skip
        distributed.Client(cluster) as client,
    ):
        pids = client.run(os.getpid)
        victim = pids[sorted(pids)[0]]

        def kill_mid_build():
            deadline = time.monotonic() + 300
            while len(store.listing()) < 150 and time.monotonic() < deadline:
                time.sleep(0.02)
            os.kill(victim, signal.SIGKILL)
            killed.append(len(store.listing()))

        threading.Thread(target=kill_mid_build, daemon=True).start()
        blockdask.build_blocks(spec, store, client, progress=False, stall=240)
    assert killed and killed[0] < 961  # killed before the end
    assemble(spec, store, tmp_path / "s.npy")
    assert (tmp_path / "s.npy").read_bytes() == clean


def test_a_damaged_gnubg_row_is_not_served_by_show(tmp_path):
    """End to end: `bearoff show --db` of a file with probability moved between two bins of
    the queried position (a file that is not one of gnubg's published ones)."""
    from mathbg.bearoff import gnubg_bd
    from mathbg.bearoff.index import rank

    path = _gnubg_onesided(tmp_path, 6, 6)
    assert run("bearoff", "show", "--db", str(path), "0,0,1,1,1,1")[0] == 0
    bd = gnubg_bd.read_onesided(path)
    i = int(rank([0, 0, 1, 1, 1, 1]))
    damaged = bd.dist.copy()
    nz = np.flatnonzero(damaged[i])
    amount = min(int(damaged[i, nz[0]]), 20000)
    damaged[i, nz[0]] -= amount
    damaged[i, nz[-1]] += amount
    bad = tmp_path / "bad.bd"
    gnubg_bd.write_onesided(bad, damaged, bd.gammon, points=6, checkers=6)
    msg = error_line("bearoff", "show", "--db", str(bad), "0,0,1,1,1,1")
    assert "breaks the one-sided bearoff equation" in msg
    assert run("bearoff", "show", "--db", str(bad), "0,0,0,0,1,1")[0] == 0  # others served


def test_a_damaged_two_sided_pair_is_not_served_by_show(tmp_path):
    from mathbg.bearoff import gnubg_bd

    path = tmp_path / "ts.bd"
    assert run("bearoff", "build", "--two-sided", "--points", "4", "--checkers", "4",
               "--out", str(path), "--quiet")[0] == 0  # fmt: skip
    bd = gnubg_bd.read_twosided(path)
    values = bd.values.copy()
    values[7, 11, :] += 150
    bad = tmp_path / "bad.bd"
    gnubg_bd.write_twosided(bad, values, points=4, checkers=4)
    from mathbg.bearoff.index import unrank

    roller, opponent = (",".join(map(str, unrank(k, 4))) for k in (7, 11))
    msg = error_line("bearoff", "show", "--two-sided", "--db", str(bad), roller, opponent)
    assert "pair (7, 11)" in msg


# ------------------------------------------------------------------- stores and targets


@pytest.mark.slow  # a block build: about 5 CPU-s
@pytest.mark.parametrize("damage", [b"{not json", b"[]", b'{"format": "other"}'])
def test_a_corrupt_manifest_of_mathbgs_own_store_is_discarded(tmp_path, damage):
    """mathbg's hidden block store with a damaged manifest (or another build's): discarded
    with a one-line warning and rebuilt, with --rebuild and --force or without."""
    store = tmp_path / ".db.build" / "store"
    (store / "blocks").mkdir(parents=True)
    (store / "manifest.json").write_bytes(damage)
    argv = ["bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3", "--quiet",
            "--out", str(tmp_path / "db")]  # fmt: skip
    code, _, err = run(*argv)
    assert code == 0, err
    assert "mathbg: warning:" in err and "discarding" in err and err.count("\n") == 1
    assert (tmp_path / "db" / "header.json").exists()
    assert not (tmp_path / ".db.build").exists()


def test_a_corrupt_manifest_of_a_users_store_is_refused_with_the_way_out(tmp_path):
    store = tmp_path / "mystore"
    (store / "blocks").mkdir(parents=True)
    (store / "manifest.json").write_bytes(b"{not json")
    msg = error_line("bearoff", "build", "--two-sided", "--points", "3", "--checkers", "3",
                     "--quiet", "--out", str(tmp_path / "db"), "--store", str(store))  # fmt: skip
    assert "give another --store, or delete" in msg and str(store) in msg
    assert (store / "manifest.json").read_bytes() == b"{not json"


def test_a_memory_refusal_leaves_no_empty_store(tmp_path):
    msg = error_line("bearoff", "build", "--two-sided", "--points", "6", "--checkers", "8",
                     "--memory", "1MiB", "--out", str(tmp_path / "db"))  # fmt: skip
    assert "memory" in msg
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_no_lock_file_stays_beside_the_output(tmp_path):
    for extra in ([], ["--two-sided"]):
        argv = ["bearoff", "build", "--points", "3", "--checkers", "3", "--quiet", *extra]
        assert run(*argv, "--out", str(tmp_path / f"db{len(extra)}"))[0] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db0", "db1"]


def test_concurrent_builds_of_one_target_still_serialise(tmp_path):
    """The lock file goes when a build ends; two threads building the same target
    both end with the database (one builds, the other finds it)."""
    import threading

    from mathbg.bearoff import OneSided

    results, errors = [], []

    def build():
        try:
            results.append(OneSided.build(3, 4, path=tmp_path / "db", progress=False))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors and len(results) == 4
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db"]


def test_force_never_replaces_a_directory_mathbg_did_not_write(tmp_path):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    for extra in ([], ["--two-sided"]):
        msg = error_line("bearoff", "build", "--points", "3", "--checkers", "3", "--quiet",
                         "--out", str(mine), "--force", *extra)  # fmt: skip
        assert "not even with --force" in msg
    assert (mine / "thesis.tex").read_text() == "years of work"
    msg = error_line("met", "--length", "3", "--out", str(mine), "--force")
    assert "directory" in msg
