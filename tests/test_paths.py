"""Where mathbg reads its shipped tables and writes generated data (mathbg._paths)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from mathbg import _paths
from mathbg.errors import DatabaseError, UnknownTableError
from mathbg.met import published

REPO = Path(__file__).resolve().parent.parent


def test_cache_dir_honours_xdg_cache_home(monkeypatch, tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("XDG_CACHE_HOME is the Linux convention")
    monkeypatch.delenv("MATHBG_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert _paths.cache_dir("bearoff") == tmp_path / "xdg" / "mathbg" / "bearoff"
    assert (tmp_path / "xdg" / "mathbg" / "bearoff").is_dir()


def test_cache_dir_default_is_home_cache_not_the_checkout(monkeypatch, tmp_path):
    if not sys.platform.startswith("linux"):
        pytest.skip("~/.cache is the Linux default")
    monkeypatch.delenv("MATHBG_DATA", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    where = _paths.cache_dir()
    assert where == tmp_path / ".cache" / "mathbg"
    assert REPO not in where.parents


def test_mathbg_data_wins(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("MATHBG_DATA", str(tmp_path / "mine"))
    assert _paths.cache_dir("bearoff") == tmp_path / "mine" / "bearoff"
    assert not (tmp_path / "xdg").exists()


def test_published_dir_in_a_checkout_is_data_met():
    assert _paths.checkout_data_dir() == REPO / "data"
    assert Path(str(_paths.published_dir("met"))) == REPO / "data" / "met"
    files = _paths.published_files("met")
    assert set(files) == {p.stem for p in (REPO / "data" / "met").glob("*.xml")}


def test_missing_kind_raises_a_database_error():
    with pytest.raises(DatabaseError, match="missing from this installation"):
        _paths.published_dir("no-such-kind")
    assert _paths.published_files("no-such-kind") == {}


def test_catalogue_lists_only_tables_it_can_open(monkeypatch):
    present = _paths.published_files("met")
    shown = {k: v for k, v in present.items() if k != "snowie"}
    monkeypatch.setattr(published, "published_files", lambda kind="met": shown)
    published._load.cache_clear()
    try:
        names = published.available()
        assert "snowie" not in names and names[0] == published.DEFAULT
        assert set(names) == set(published.TABLES) - {"snowie"}
        with pytest.raises(DatabaseError, match="snowie"):
            published.load("snowie")
        with pytest.raises(UnknownTableError):
            published.load("no-such-table")
    finally:
        published._load.cache_clear()


def test_every_listed_table_loads_with_its_catalogue_length():
    for key in published.available():
        assert published.load(key).length == published.TABLES[key].length
