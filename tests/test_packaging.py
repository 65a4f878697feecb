"""The sdist and the wheel carry the shipped tables and the licence (``python -m build``).

``.ci/wheel_check.sh`` goes further: it installs the wheel in a fresh virtual environment and
runs mathbg from outside the checkout.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
TABLES = sorted((REPO / "data" / "met").glob("*.xml"))


def test_licence_is_the_gpl_version_3_and_declared_as_spdx():
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "GNU GENERAL PUBLIC LICENSE" in text and "Version 3, 29 June 2007" in text
    assert "END OF TERMS AND CONDITIONS" in text
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    assert project["license"] == "GPL-3.0-or-later"
    assert project["license-files"] == ["LICENSE"]
    assert not any(c.startswith("License ::") for c in project["classifiers"])  # PEP 639
    assert {"Homepage", "Source", "Issues", "Documentation"} <= set(project["urls"])
    assert any(d.startswith("platformdirs") for d in project["dependencies"])


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> tuple[Path, str]:
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "-o", str(out), str(REPO)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return out, proc.stdout + proc.stderr


@pytest.mark.slow
def test_build_has_no_setuptools_deprecation_warning(dist):
    _, log = dist
    warned = re.findall(r".*(?:DeprecationWarning|is deprecated|will be removed).*", log)
    assert warned == []


@pytest.mark.slow
def test_sdist_carries_data_met_licence_and_setup_py(dist):
    out, _ = dist
    (sdist,) = out.glob("mathbg-*.tar.gz")
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"LICENSE", "setup.py", "pyproject.toml"} <= names
    assert {f"data/met/{p.name}" for p in TABLES} <= names


@pytest.mark.slow
def test_wheel_carries_every_table_byte_for_byte_and_the_licence(dist):
    out, _ = dist
    (wheel,) = out.glob("mathbg-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for path in TABLES:
            assert zf.read(f"mathbg/_data/met/{path.name}") == path.read_bytes()
        (meta,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        metadata = zf.read(meta).decode()
        (lic,) = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert zf.read(lic) == (REPO / "LICENSE").read_bytes()
    assert "License-Expression: GPL-3.0-or-later" in metadata
    assert "Requires-Dist: platformdirs" in metadata
    assert not any(n.startswith(("data/", "tests/")) for n in names)


def test_every_shipped_data_folder_is_committed():
    """What setup.py ships from ``data/`` is in git, so a clean clone's wheel carries it too
    (``data/*`` is ignored for the generated databases; the shipped folders are let back in)."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    setup = (REPO / "setup.py").read_text(encoding="utf-8")
    folders = re.findall(r'"mathbg\._data\.(\w+)"', setup)
    assert {"met", "matches"} <= set(folders)
    for folder in folders:
        on_disk = {p.name for p in (REPO / "data" / folder).iterdir() if p.is_file()}
        tracked = subprocess.run(
            ["git", "ls-files", f"data/{folder}"], cwd=REPO, capture_output=True, text=True,
            check=True,
        ).stdout.split()
        assert on_disk and on_disk <= {Path(t).name for t in tracked}, folder
