"""Differential tests against gnubg 1.07: its MET files and what it computes from them.

One gnubg run (embedded Python, ``gnubg.met()`` after ``set matchequitytable FILE``) loads
every MET XML that gnubg-data installs, every table mathbg ships, and parametric tables
written by mathbg. gnubg stores single-precision floats: explicit numbers are compared
exactly after rounding ours to float32, computed ones to 1e-6.

gnubg quirks this documents (theory-and-sources §7): a table with ``<length>-1</length>``
(zadeh.xml, mec.xml) is overwritten by Montgomery's normal model; explicit tables get their
last post-Crawford entry recomputed; mec.c adds ``free-drop-4-away`` to the trailer; a
``player="both"`` parameter block reaches player 0 only.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from test_met_models import ZADEH_REFERENCE  # the pure-Zadeh values

from mathbg._paths import published_dir
from mathbg.met import load, mec, montgomery, read, zadeh
from mathbg.met._core import continue_post_crawford
from mathbg.met.formats import format_gnubg_xml
from mathbg.met.models import zadeh_post_crawford
from mathbg.met.published import TABLES

pytestmark = pytest.mark.gnubg(kind="exact")

FULL = 64  # gnubg's MAXSCORE

PARAMETRIC = {
    "zadeh64": lambda: zadeh(FULL),
    "zadeh64-params": lambda: zadeh(
        FULL,
        doubler_gammon_rate=0.3,
        taker_gammon_rate=0.2,
        delta=0.05,
        delta_bar=0.07,
        free_drop_2=0.01,
    ),
    "mec64-fav": lambda: mec(FULL, gammon_rate=0.26, win_rate=0.55),
    "mec64-fd2": lambda: mec(FULL, gammon_rate=0.2, free_drop_2=0.015),
    "mec64-fd4": lambda: mec(FULL, gammon_rate=0.26, free_drop_2=0.015, free_drop_4=0.004),
}


@pytest.fixture(scope="module")
def gnubg_tables(gnubg, tmp_path_factory) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """gnubg.met() (pre 64x64, post 2x64) for every file, keyed by its path."""
    tmp = tmp_path_factory.mktemp("met")
    files = sorted(str(p) for p in gnubg.met_dir.glob("*.xml") if p.name != "catalog.xml")
    files += sorted(str(p) for p in published_dir("met").glob("*.xml"))
    for name, make in PARAMETRIC.items():
        path = tmp / f"{name}.xml"
        path.write_text(format_gnubg_xml(make(), parametric=True))
        files.append(str(path))
    script = (
        "import gnubg, json\n"
        f"for f in {files!r}:\n"
        "    gnubg.command('set matchequitytable ' + f)\n"
        "    print('MET-JSON ' + json.dumps([f, gnubg.met()]))\n"
    )
    out = gnubg.run_python(script, timeout=300)
    tables = {}
    for line in out.splitlines():
        if line.startswith("MET-JSON "):
            path, (pre, post0, post1) = json.loads(line[len("MET-JSON ") :])
            tables[path] = (np.array(pre), np.array([post0, post1]))
    assert set(tables) == set(files), "gnubg did not report every table"
    return tables


def _gnubg_file(gnubg, name: str) -> str:
    return str(gnubg.met_dir / name)


def test_every_gnubg_xml_is_read_like_gnubg(gnubg, gnubg_tables):
    files = [p for p in gnubg.met_dir.glob("*.xml") if p.name != "catalog.xml"]
    assert len(files) >= 12
    explicit = 0
    for path in files:
        ours = read(path)  # every installed file parses
        g_pre, g_post = gnubg_tables[str(path)]
        if ours.model != "explicit":
            continue  # zadeh.xml and mec.xml: see the tests below
        explicit += 1
        n = ours.length
        # the published block, as gnubg stores it (float32 of the same decimal text)
        np.testing.assert_array_equal(ours.pre.astype(np.float32), g_pre[:n, :n].astype(np.float32))
        np.testing.assert_array_equal(
            ours.post[:, : n - 1].astype(np.float32), g_post[:, : n - 1].astype(np.float32)
        )
        # gnubg recomputes the post-Crawford vector from n-away on (Zadeh's recurrence) ...
        for p in (0, 1):
            np.testing.assert_allclose(
                continue_post_crawford(ours.post[p, : n - 1], FULL), g_post[p], rtol=0, atol=2e-6
            )
        # ... and fills scores beyond n with Montgomery's model, as mathbg's extend()
        ext = ours.extend(FULL)
        mask = np.ones((FULL, FULL), dtype=bool)
        mask[:n, :n] = False
        np.testing.assert_allclose(ext.pre[mask], g_pre[mask], rtol=0, atol=2e-6)
    assert explicit >= 10


def test_zadeh_xml_shows_montgomery_not_zadeh(gnubg, gnubg_tables):
    g_pre, g_post = gnubg_tables[_gnubg_file(gnubg, "zadeh.xml")]
    np.testing.assert_allclose(g_pre, montgomery(FULL).pre, rtol=0, atol=2e-6)
    assert g_pre[1, 0] == pytest.approx(0.322756, abs=1e-6)  # Montgomery 2a/1a
    for p in (0, 1):  # the post-Crawford vector does come from the parameters
        np.testing.assert_allclose(g_post[p], zadeh_post_crawford(FULL), rtol=0, atol=2e-6)
    # mathbg's reader computes the model the file names: pure Zadeh, 2a/1a = 0.3125
    assert read(gnubg.met_dir / "zadeh.xml").pre[1, 0] == pytest.approx(0.3125)


def test_mec_xml_free_drop_sign_bug(gnubg, gnubg_tables):
    g_pre, g_post = gnubg_tables[_gnubg_file(gnubg, "mec.xml")]
    np.testing.assert_allclose(g_pre, montgomery(FULL).pre, rtol=0, atol=2e-6)
    ours = mec(FULL, gammon_rate=0.26, free_drop_2=0.015, free_drop_4=0.004)
    assert read(gnubg.met_dir / "mec.xml").allclose(mec(25, 0.26, 0.5, 0.015, 0.004))
    # gnubg's player-0 vector equals ours except at 4-away, where mec.c adds fd4 to the
    # trailer instead of subtracting it: 0.319 (above 3-away's 0.315) instead of 0.311
    diff = g_post[0] - ours.post[0]
    assert diff[3] == pytest.approx(2 * 0.004, abs=1e-6)
    np.testing.assert_allclose(np.delete(diff, 3), 0.0, atol=2e-6)
    assert g_post[0, 3] == pytest.approx(0.319, abs=1e-6)
    assert g_post[0, 3] > g_post[0, 2]
    assert ours.post[0, 3] == pytest.approx(0.311)
    assert ours.post[0, 3] < ours.post[0, 2]
    # player 1 gets gnubg's default parameters (gammon rate 0.25), not the file's
    default = mec(FULL, gammon_rate=0.25, free_drop_2=0.015, free_drop_4=0.004).post[0]
    diff1 = g_post[1] - default
    assert diff1[3] == pytest.approx(2 * 0.004, abs=1e-6)
    np.testing.assert_allclose(np.delete(diff1, 3), 0.0, atol=2e-6)


@pytest.mark.parametrize("name", ["zadeh64", "zadeh64-params", "mec64-fav", "mec64-fd2"])
def test_parametric_tables_match_gnubg(tmp_path_factory, gnubg_tables, name):
    # with a fixed length gnubg shows its own model computation (no Montgomery overwrite)
    ours = PARAMETRIC[name]()
    path = next(p for p in gnubg_tables if p.endswith(f"/{name}.xml"))
    g_pre, g_post = gnubg_tables[path]
    np.testing.assert_allclose(g_pre, ours.pre, rtol=0, atol=1e-6)
    np.testing.assert_allclose(g_post, ours.post, rtol=0, atol=1e-6)


def test_pure_zadeh_reference_values_in_gnubg(gnubg_tables):
    g_pre, g_post = next(v for k, v in gnubg_tables.items() if k.endswith("/zadeh64.xml"))
    for (a, b), value in ZADEH_REFERENCE:
        assert g_pre[a - 1, b - 1] == pytest.approx(value, abs=5e-5)
    np.testing.assert_allclose(g_post[0, 1:6], [0.4850, 0.3125, 0.3029, 0.1797, 0.1742], atol=5e-5)


def test_mec_fd4_differs_only_through_gnubg_sign_bug(gnubg_tables):
    g_pre, g_post = next(v for k, v in gnubg_tables.items() if k.endswith("/mec64-fd4.xml"))
    ours = PARAMETRIC["mec64-fd4"]()
    assert g_post[0, 3] - ours.post[0, 3] == pytest.approx(0.008, abs=1e-6)
    bugged = mec(FULL, gammon_rate=0.26, free_drop_2=0.015, free_drop_4=-0.004)  # gnubg's sign
    np.testing.assert_allclose(g_pre, bugged.pre, rtol=0, atol=1e-6)


def test_shipped_tables_equal_gnubg_files(gnubg, gnubg_tables):
    for key, entry in TABLES.items():
        original = gnubg.met_dir / entry.gnubg_file
        ours = load(key)
        theirs = read(original)
        np.testing.assert_array_equal(ours.pre, theirs.pre)
        np.testing.assert_array_equal(ours.post, theirs.post)
        # gnubg loads our file exactly as it loads its own
        g_ours = gnubg_tables[str(published_dir("met") / f"{key}.xml")]
        g_theirs = gnubg_tables[str(original)]
        np.testing.assert_array_equal(g_ours[0], g_theirs[0])
        np.testing.assert_array_equal(g_ours[1], g_theirs[1])


@pytest.mark.parametrize("key", sorted(TABLES))
def test_cli_json_is_the_published_text_verbatim(gnubg, capsys, key):
    from mathbg.cli import main

    root = ET.parse(Path(gnubg.met_dir) / TABLES[key].gnubg_file).getroot()
    pre = [
        [float(me.text) for me in row.findall("me")]
        for row in root.find("pre-crawford-table").findall("row")
    ]
    posts = {
        el.get("player", "both"): [float(me.text) for me in el.find("row").findall("me")]
        for el in root.findall("post-crawford-table")
    }
    post = posts.get("both", posts.get("0"))
    assert main(["met", "--model", key, "--format", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["length"] == len(pre)
    assert obj["pre"] == pre
    # every published post-Crawford entry, including the last one gnubg replaces
    assert obj["post"][: len(post)] == post
    if "1" in posts:
        assert obj["post_player1"][: len(posts["1"])] == posts["1"]


def test_mec_reproduces_gnubg_mec26_file(gnubg):
    # gnubg-data's mec26.xml, read live: mec with gr 0.26, w 0.5, no free drops, computed in
    # double precision, is within 0.0005 (inclusive: 5a/1a = 0.1575 is printed 0.158) of
    # every printed pre-Crawford entry
    published = read(gnubg.met_dir / "mec26.xml")
    diff = np.abs(mec(25, gammon_rate=0.26, win_rate=0.5).pre - published.pre)
    assert diff.max() <= 0.0005 + 1e-12
    assert published.pre[4, 0] == 0.158
