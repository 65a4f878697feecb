"""What mathbg keeps in its cache directory, and clearing it (mathbg.cache, mathbg cache).

The areas' names are checked against what mathbg's own writers leave there (a bearoff
database, an exact bearoff solution, a Hypergammon solution, a kept gnubg analysis), and
clearing against what it must never touch: a user's file, a link, a database folder
without mathbg's header, an entry a running build holds its lock on.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import threading
import time
from pathlib import Path

import pytest

from mathbg import _files
from mathbg.cache import AREAS, cache_usage, clear_cache
from mathbg.cli import main
from mathbg.errors import InvalidParameterError


@pytest.fixture()
def data(monkeypatch, tmp_path):
    root = tmp_path / "data"
    monkeypatch.setenv("MATHBG_DATA", str(root))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))  # numba's kernels' folder
    return root


def _usage() -> dict[str, tuple[int, int]]:
    return {u.area.name: (u.entries, u.bytes) for u in cache_usage()}


def _kernels(tmp_path: Path) -> Path:
    return tmp_path / "xdg" / "mathbg" / "numba"


def test_showing_an_empty_cache_creates_nothing(data, tmp_path):
    assert _usage() == {name: (0, 0) for name in AREAS}
    assert not data.exists() and not _kernels(tmp_path).exists()
    assert main(["cache"]) == 0
    assert not data.exists()


def test_the_writers_entries_are_found_in_their_areas_and_cleared(data, capsys):
    from mathbg.bearoff import OneSided
    from mathbg.bearoff.exact.match import solve_score
    from mathbg.hyper.money import solve_money

    OneSided.build(2, 2)  # bearoff/onesided-02x02-gnubg
    solve_score((3, 3), points=2, checkers=2, disk_cache=True)  # bearoff/match/match-...npz
    solve_money(1)  # hyper/money-c1-...
    before = _usage()
    assert before["databases"][0] == 1 and before["solutions"][0] >= 1
    assert before["hyper"][0] >= 1 and before["analyses"] == (0, 0)
    on_disk = {p: p.stat().st_size for p in data.rglob("*") if p.is_file()}
    assert before["databases"][1] + before["solutions"][1] + before["hyper"][1] \
        == sum(on_disk.values())  # every byte written belongs to an area, counted once

    assert main(["cache", "clear", "solutions", "--dry-run"]) == 0
    assert "would remove" in capsys.readouterr().out
    assert _usage() == before  # a dry run removes nothing

    removed = clear_cache(["databases", "solutions", "hyper"])
    assert {r.area for r in removed} == {"databases", "solutions", "hyper"}
    assert sum(r.bytes for r in removed) == sum(on_disk.values())
    assert not [p for p in data.rglob("*") if p.is_file()]
    # made again on the next use
    OneSided.build(2, 2)
    assert _usage()["databases"][0] == 1


def test_a_kept_analysis_is_in_the_analyses_area():
    from mathbg.analysis.gnubg_program import kept_analysis_path

    path = kept_analysis_path("; a match\n", 2)
    if path is None:
        pytest.skip("the gnubg program is not installed (the kept analyses need it)")
    cube_only = kept_analysis_path("; a match\n", 2, checker=False)
    for p in (path, cube_only):
        assert p is not None and p.parent.name == AREAS["analyses"].folder
        assert re.fullmatch(AREAS["analyses"].names, p.name)


def test_the_native_table_and_kernel_folders_are_named_as_their_areas_say():
    # the native engine's table (mathbg.analysis.net.tables.two_sided_table) and the
    # folders numba's cache locator makes (a module's name, then 40 hex digits)
    assert re.fullmatch(AREAS["native"].names, "twosided-06x06-u16")
    assert re.fullmatch(AREAS["kernels"].names, "match_audit_" + "0" * 40)


def _analysis(folder: Path, key: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"analysis-2ply-{key}.json.gz"
    path.write_bytes(gzip.compress(b"x" * 1000))
    return path


def test_clearing_never_touches_what_mathbg_did_not_write(data, tmp_path):
    gnubg = data / "gnubg"
    mine = _analysis(gnubg, "a" * 32)
    user = gnubg / "notes.txt"
    user.write_text("my notes")
    near = gnubg / "analysis-2ply-short.json.gz"  # not a name mathbg gives
    near.write_text("x")
    elsewhere = tmp_path / "precious.json.gz"
    elsewhere.write_text("precious")
    link = gnubg / f"analysis-2ply-{'b' * 32}.json.gz"
    link.symlink_to(elsewhere)
    bearoff = data / "bearoff"
    bare = bearoff / "twosided-06x06"  # a database's name, no mathbg header
    bare.mkdir(parents=True)
    (bare / "equity.npy").write_bytes(b"user data")
    foreign = bearoff / "onesided-06x15-gnubg"
    foreign.mkdir()
    (foreign / "header.json").write_text(json.dumps({"format": "someone-else"}))
    kernels = _kernels(tmp_path) / ("rules_" + "1" * 40)
    kernels.mkdir(parents=True)
    (kernels / "k.py311.nbi").write_bytes(b"i")
    (kernels / "k.py311.1.nbc").write_bytes(b"c")
    mixed = _kernels(tmp_path) / ("met_" + "2" * 40)
    mixed.mkdir()
    (mixed / "k.py311.nbi").write_bytes(b"i")
    (mixed / "readme.txt").write_text("a user's file among numba's")

    assert _usage()["analyses"] == (1, mine.stat().st_size)
    removed = clear_cache(list(AREAS))
    assert sorted(r.path for r in removed) == sorted([mine, kernels])
    assert not mine.exists() and not kernels.exists()
    for kept in (user, near, link, bare / "equity.npy", foreign / "header.json",
                 mixed / "readme.txt"):
        assert kept.exists(), kept
    assert elsewhere.read_text() == "precious"


def test_older_than_keeps_the_newer_entries(data):
    old = _analysis(data / "gnubg", "c" * 32)
    new = _analysis(data / "gnubg", "d" * 32)
    ten_days_ago = time.time() - 10 * 86400
    os.utime(old, (ten_days_ago, ten_days_ago))
    assert [r.path for r in clear_cache(["analyses"], older_than=30)] == []
    assert [r.path for r in clear_cache(["analyses"], older_than=7)] == [old]
    assert new.exists() and not old.exists()
    with pytest.raises(InvalidParameterError, match="older_than"):
        clear_cache(["analyses"], older_than=-1)


def test_an_entry_a_running_build_holds_stays(data):
    held = _analysis(data / "gnubg", "e" * 32)
    free = _analysis(data / "gnubg", "f" * 32)
    locked, release = threading.Event(), threading.Event()

    def build():
        with _files.build_lock(held):
            locked.set()
            release.wait(30)

    t = threading.Thread(target=build)
    t.start()
    try:
        assert locked.wait(30)
        assert [r.path for r in clear_cache(["analyses"])] == [free]
        assert held.exists()
    finally:
        release.set()
        t.join()
    assert [r.path for r in clear_cache(["analyses"])] == [held]


def test_a_stale_temporary_goes_with_its_area(data):
    gnubg = data / "gnubg"
    gnubg.mkdir(parents=True)
    stale = gnubg / f"{_files.TMP_PREFIX}999999999-0123abcd-analysis-2ply-{'0' * 32}.json.gz"
    stale.write_text("half written")
    os.utime(stale, (0, 0))
    clear_cache(["analyses"])
    assert not stale.exists()


def test_the_command_line(data, capsys):
    _analysis(data / "gnubg", "9" * 32)
    assert main(["cache"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^analyses\s+1\s", out, re.M) and str(data / "gnubg") in out
    assert main(["cache", "show", "--json"]) == 0
    shown = {row["area"]: row for row in json.loads(capsys.readouterr().out)}
    assert list(shown) == list(AREAS) and shown["analyses"]["entries"] == 1
    assert main(["cache", "clear", "analyses", "--json"]) == 0
    cleared = json.loads(capsys.readouterr().out)
    assert cleared["dry_run"] is False and len(cleared["removed"]) == 1
    assert cleared["bytes"] == shown["analyses"]["bytes"]
    assert main(["cache", "clear", "nothing"]) == 2
    assert "invalid choice: 'nothing'" in capsys.readouterr().err
    with pytest.raises(InvalidParameterError, match="no cache area 'nothing'"):
        cache_usage(["nothing"])
