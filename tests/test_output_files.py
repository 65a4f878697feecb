"""Output files (MET files, plots, CSV): never over a file mathbg did not write.

The rules are in :mod:`mathbg._files`: atomic writes beside the target, the user's umask,
refusal of an existing foreign file unless ``force`` and of a directory always, and the
markers by which mathbg recognises its own PNG, SVG, PDF, gnubg XML and XG files.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest

from mathbg import _files
from mathbg._files import TMP_PREFIX, written_by_mathbg
from mathbg.cli import main
from mathbg.errors import TargetExistsError
from mathbg.met import build, read
from mathbg.met.formats import write
from mathbg.plots import save_figure

FOREIGN = b"the user's own file\n"
START = "4HPwATDgc/ABMA"
PROBS = "0.6,0.15,0.01,0.1,0.003"


def _temporaries(d: Path) -> list[str]:
    return [p.name for p in d.iterdir() if p.name.startswith(TMP_PREFIX)]


def _figure() -> plt.Figure:
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    return fig


@pytest.fixture(scope="module")
def met():
    return build("woolsey", length=5)


# ------------------------------------------------------------------------------ markers


@pytest.mark.parametrize("ext", ["png", "svg", "pdf"])
def test_plot_marker_read_back(tmp_path, ext):
    ours, theirs = tmp_path / f"ours.{ext}", tmp_path / f"theirs.{ext}"
    save_figure(_figure(), ours)
    fig = _figure()
    fig.savefig(theirs)  # matplotlib's own metadata: not mathbg's
    plt.close(fig)
    assert written_by_mathbg(ours)
    assert not written_by_mathbg(theirs)


def test_png_marker_is_the_software_text_chunk(tmp_path):
    path = tmp_path / "a.png"
    save_figure(_figure(), path)
    software = _files._png_software(path.read_bytes())
    assert software == _files.marker()
    assert software.startswith("mathbg ")


@pytest.mark.parametrize(("fmt", "name"), [("gnubg-xml", "t.xml"), ("xg", "t.met")])
def test_met_marker_and_reader_accepts_it(tmp_path, met, fmt, name):
    path = write(met, tmp_path / name, format=fmt)
    assert written_by_mathbg(path)
    back = read(path)
    assert (back.pre == met.pre).all() and (back.post == met.post).all()


def test_marker_absent_in_lookalikes(tmp_path):
    cases = {
        "a.met": "[Current]\nName=x\n; written by someone else\n",
        "b.xml": "<?xml version='1.0'?>\n<!-- my table -->\n<met></met>\n",
        "c.xml": "<met><info><name>written by mathbg.</name></info></met>\n",  # not a comment
        "d.png": "\x89PNG\r\n\x1a\n",
    }
    for name, text in cases.items():
        (tmp_path / name).write_bytes(text.encode("latin-1"))
        assert not written_by_mathbg(tmp_path / name), name


# ------------------------------------------------------------------------------ API


@pytest.mark.parametrize("name", ["t.xml", "t.met", "t.json", "t.csv", "t.txt"])
def test_met_write_refuses_foreign_file(tmp_path, met, name):
    target = tmp_path / name
    target.write_bytes(FOREIGN)
    with pytest.raises(TargetExistsError, match="--force") as info:
        write(met, target)
    assert str(target) in str(info.value)
    assert target.read_bytes() == FOREIGN
    assert not _temporaries(tmp_path)
    write(met, target, force=True)
    assert target.read_bytes() != FOREIGN


@pytest.mark.parametrize("name", ["t.xml", "t.met"])
def test_met_write_replaces_its_own_file(tmp_path, met, name):
    target = tmp_path / name
    write(met, target)
    write(build("zadeh", length=5), target)  # no force needed
    assert read(target).name != "" and not _temporaries(tmp_path)


def test_met_csv_checks_the_post_crawford_file_first(tmp_path, met):
    target, post = tmp_path / "t.csv", tmp_path / "t.post-crawford.csv"
    post.write_bytes(FOREIGN)
    with pytest.raises(TargetExistsError, match="post-crawford"):
        write(met, target)
    assert not target.exists() and post.read_bytes() == FOREIGN
    assert not _temporaries(tmp_path)
    write(met, target, force=True)
    assert post.read_text().startswith("away,player_0,player_1")


def test_save_figure_refuses_foreign_and_replaces_its_own(tmp_path):
    target = tmp_path / "plot.png"
    target.write_bytes(FOREIGN)
    with pytest.raises(TargetExistsError, match="--force"):
        save_figure(_figure(), target)
    assert target.read_bytes() == FOREIGN
    save_figure(_figure(), target, force=True)
    assert written_by_mathbg(target)
    save_figure(_figure(), target)  # mathbg's own file: replaced without force
    assert written_by_mathbg(target) and not _temporaries(tmp_path)


@pytest.mark.parametrize("force", [False, True])
def test_directory_target_is_refused_even_with_force(tmp_path, met, force):
    d = tmp_path / "out.png"
    d.mkdir()
    (d / "keep").write_bytes(FOREIGN)
    with pytest.raises(TargetExistsError, match="directory"):
        save_figure(_figure(), d, force=force)
    xml = tmp_path / "out.xml"
    xml.mkdir()
    with pytest.raises(TargetExistsError, match="directory"):
        write(met, xml, force=force)
    assert (d / "keep").read_bytes() == FOREIGN and xml.is_dir()
    assert not _temporaries(tmp_path)


def test_failure_mid_write_leaves_no_temporary(tmp_path, met, monkeypatch):
    target = tmp_path / "t.xml"
    write(met, target)
    before = target.read_bytes()

    def boom(*args, **kwargs):
        raise OSError(5, "simulated I/O error")

    monkeypatch.setattr(_files.os, "fsync", boom)  # after the content, before the rename
    with pytest.raises(OSError, match="simulated"):
        write(build("zadeh", length=5), target)
    with pytest.raises(OSError, match="simulated"):
        save_figure(_figure(), tmp_path / "p.png")
    assert target.read_bytes() == before
    assert not (tmp_path / "p.png").exists()
    assert not _temporaries(tmp_path)


def test_failure_in_savefig_leaves_no_temporary(tmp_path, monkeypatch):
    fig = _figure()

    def boom(*args, **kwargs):
        raise RuntimeError("simulated savefig failure")

    monkeypatch.setattr(fig, "savefig", boom)
    with pytest.raises(RuntimeError, match="simulated"):
        save_figure(fig, tmp_path / "p.png")
    assert list(tmp_path.iterdir()) == []


def test_full_disk_is_one_error_and_no_temporary(tmp_path, met, monkeypatch):
    import errno

    from mathbg.errors import InsufficientSpaceError

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_files.os, "fsync", full)
    with pytest.raises(InsufficientSpaceError, match="full"):
        write(met, tmp_path / "t.met")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mask", [0o022, 0o077])
def test_umask_is_honoured(tmp_path, met, mask):
    old = os.umask(mask)
    try:
        xml = write(met, tmp_path / "t.xml")
        png = save_figure(_figure(), tmp_path / "p.png")
    finally:
        os.umask(old)
    for path in (xml, png):
        assert path.stat().st_mode & 0o777 == 0o666 & ~mask


# ------------------------------------------------------------------------------ CLI


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    _, err = capsys.readouterr()
    return code, err


CLI_WRITERS = {
    "met --out": (
        ["met", "--model", "woolsey", "--length", "5", "--format", "gnubg-xml", "--out"],
        "t.xml",
    ),
    "met --out xg": (
        ["met", "--model", "woolsey", "--length", "5", "--format", "xg", "--out"],
        "t.met",
    ),
    "met --plot": (["met", "--model", "woolsey", "--length", "5", "--plot"], "m.png"),
    "takepoint --plot": (["takepoint", "--length", "3", "--matrix", "--plot"], "t.png"),
    "race --plot": (["race", "--counts", "6:1", "6:1", "--plot"], "r.png"),
    "analyze --plot": (
        ["analyze", START, "--length", "3", "--probs", PROBS, "--no-exact", "--plot"],
        "a.png",
    ),
}


@pytest.mark.parametrize("case", list(CLI_WRITERS))
def test_cli_refuses_foreign_overwrites_own_and_force(tmp_path, capsys, case):
    argv, name = CLI_WRITERS[case]
    target = tmp_path / name
    target.write_bytes(FOREIGN)
    code, err = _run(capsys, *argv, str(target))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "--force" in err and str(target) in err
    assert target.read_bytes() == FOREIGN
    code, err = _run(capsys, *argv, str(target), "--force")
    assert code == 0, err
    assert written_by_mathbg(target)
    code, err = _run(capsys, *argv, str(target))  # mathbg's own file now: re-runnable
    assert code == 0, err
    assert not _temporaries(tmp_path)


@pytest.mark.parametrize("case", ["met --plot", "race --plot"])
def test_cli_refuses_a_directory(tmp_path, capsys, case):
    argv, name = CLI_WRITERS[case]
    d = tmp_path / name
    d.mkdir()
    code, err = _run(capsys, *argv, str(d), "--force")
    assert code == 2 and "directory" in err and len(err.strip().splitlines()) == 1
    assert d.is_dir()


@pytest.mark.slow  # about 3 CPU-s
def test_readme_job_runs_twice(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for _ in range(2):
        code, err = _run(capsys, "takepoint", "--length", "7", "--matrix", "--plot",
                         "takepoints.png")  # fmt: skip
        assert code == 0, err
    assert written_by_mathbg(tmp_path / "takepoints.png")


def test_cli_met_csv_needs_force_for_existing_files(tmp_path, capsys):
    out = tmp_path / "t.csv"
    argv = ["met", "--model", "woolsey", "--length", "5", "--format", "csv", "--out", str(out)]
    assert _run(capsys, *argv)[0] == 0
    code, err = _run(capsys, *argv)  # CSV has no marker: even mathbg's own needs --force
    assert code == 2 and "--force" in err
    assert _run(capsys, *argv, "--force")[0] == 0
    assert (tmp_path / "t.post-crawford.csv").exists()


def test_cli_analyze_csv_refuses_foreign_file(tmp_path, capsys):
    ids = tmp_path / "ids.txt"
    ids.write_text(f"{START}\n")
    out = tmp_path / "out.csv"
    out.write_bytes(FOREIGN)
    argv = ["analyze", "--file", str(ids), "--length", "3", "--probs", PROBS, "--no-exact",
            "--csv", str(out)]  # fmt: skip
    code, err = _run(capsys, *argv)
    assert code == 2 and "--force" in err and str(out) in err
    assert out.read_bytes() == FOREIGN
    code, err = _run(capsys, *argv, "--force")
    assert code == 0, err
    assert out.read_text().startswith("position") or "," in out.read_text()
    assert not _temporaries(tmp_path)


def test_match_files_mathbg_wrote_are_recognised(tmp_path):
    """One written_by_mathbg for every kind of file: mathbg's .mat and .sgf files are its
    own; a match file someone else wrote is not."""
    from mathbg._files import written_by_mathbg
    from mathbg.rules.formats import write_match
    from mathbg.rules.formats.example import example_match

    record = example_match()
    for ext in ("mat", "sgf"):
        ours = write_match(record, tmp_path / f"ours.{ext}")
        assert written_by_mathbg(ours), ext
    (tmp_path / "theirs.mat").write_text(" 5 point match\n\n Game 1\n", encoding="utf-8")
    gnubg_sgf = "(;FF[4]GM[6]AP[GNU Backgammon:1.07.001])"
    (tmp_path / "theirs.sgf").write_text(gnubg_sgf, encoding="utf-8")
    assert not written_by_mathbg(tmp_path / "theirs.mat")
    assert not written_by_mathbg(tmp_path / "theirs.sgf")
