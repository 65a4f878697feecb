"""The README's promises hold on a fresh machine.

- ``## Quickstart`` holds exactly two fenced code blocks, each a single shell line.
- The first is run *as written* (``bash -c``) in a fresh virtual environment
  (``python -m venv --system-site-packages``, so the scientific stack is not downloaded
  again) inside a copy of the repository without any generated data: it must succeed, print
  the take points and write the PNG heatmap it names.
- The second is ``bash .ci/run``, and that script runs ruff, the fast lane (``-m "not slow"``)
  first, then the slow tests and the notebooks (it is not run from here: it would run this
  test again).
- Every ``mathbg`` command of the README's tour runs (exit status 0, some output), and the
  Python example runs.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
FENCE = re.compile(r"^```([A-Za-z]*)[ \t]*\n(.*?)^```[ \t]*$", re.M | re.S)


def _section(text: str, heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}[ \t]*\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"README has no '## {heading}' section"
    return match.group(1)


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block."""
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def quickstart_commands() -> list[str]:
    blocks = _blocks(_section(README.read_text(encoding="utf-8"), "Quickstart"))
    blocks = [(lang, body) for lang, body in blocks if lang != "text"]  # quoted output
    assert len(blocks) == 2, f"Quickstart must hold exactly two code blocks, found {len(blocks)}"
    commands = []
    for _, body in blocks:
        lines = [line for line in body.splitlines() if line.strip()]
        assert len(lines) == 1, f"a Quickstart block must be a single shell line: {body!r}"
        commands.append(lines[0].strip())
    return commands


def test_quickstart_has_exactly_two_single_line_commands() -> None:
    first, _ = quickstart_commands()
    assert first.startswith("pip install -e .")
    assert "mathbg" in first


def test_quickstart_quotes_the_first_answer_as_printed() -> None:
    # issue 23: the Quickstart answers its question (the initial double, cube 1 -> 2) and
    # quotes the output of its first takepoint command exactly
    from mathbg.cli import main

    first, _ = quickstart_commands()
    takepoint = first.split("&&")[1].strip()
    assert shlex.split(takepoint) == ["mathbg", "takepoint", "--away", "3,5", "--cube", "1"]
    quoted = [b for lang, b in _blocks(_section(README.read_text(encoding="utf-8"), "Quickstart"))
              if lang == "text"]  # fmt: skip
    assert len(quoted) == 1
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(shlex.split(takepoint)[1:]) == 0
    assert out.getvalue() == quoted[0]
    assert "cube 1 -> 2 (initial double)" in quoted[0]


def test_second_command_runs_exactly_what_ci_runs() -> None:
    _, second = quickstart_commands()
    assert shlex.split(second) == ["bash", ".ci/run"]
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install" in script
    extras = re.search(r"pip install .*-e '\.\[([\w,]+)\]'", script)
    assert extras and {"test", "notebooks"} <= set(extras.group(1).split(","))
    assert "apt-get install" in script and "gnubg" in script
    ruff = re.search(r"^\s*python3? -m ruff check \.", script, re.M)
    # the fast lane first, right after ruff, so that a failure stops CI early; then the rest
    fast = re.search(r'^\s*python3? -m pytest .*-m "not slow" tests$', script, re.M)
    slow = re.search(r"^\s*python3? -m pytest .*-m slow tests$", script, re.M)
    # the notebooks run last, in the wheel's venv from a copy outside the checkout
    wheel = re.search(r'^\s*bash \.ci/wheel_check\.sh python3 "\$CI_DIR/executed"$', script, re.M)
    wheel_script = (ROOT / ".ci" / "wheel_check.sh").read_text(encoding="utf-8")
    notebooks = re.search(
        r'^run_notebooks\(\) \{ "\$VPY" -m pytest .*--nbmake ', wheel_script, re.M
    )
    assert ruff and fast and slow and wheel and notebooks
    assert ruff.end() < fast.start() < slow.start() < wheel.start()
    assert fast.start() < script.index("lint-imports")
    assert wheel_script.index("cp \"$REPO\"/notebooks/*.ipynb") < notebooks.start()
    assert "NUMBA_CACHE_DIR" in script[: fast.start()]  # timed with an empty numba cache
    assert "set -euo pipefail" in script  # any failure fails CI


def test_ci_installs_what_a_newcomer_gets_and_readme_names_the_versions() -> None:
    """CI makes a fresh venv (newest allowed versions, nothing borrowed from the running
    interpreter), prints what pip resolved, and README quotes the versions CI tested."""
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    venv = re.search(r'^"\$BASE_PY" -m venv "\$CI_DIR/venv"$', script, re.M)
    install = script.index("-e '.[test,")
    assert venv and venv.end() < install
    assert "resolved versions" in script[install:]
    for name in ("run", "dask_oldest.sh", "test_only.sh", "wheel_check.sh"):
        text = (ROOT / ".ci" / name).read_text(encoding="utf-8")
        lines = [ln for ln in text.splitlines() if " -m venv " in ln and not ln.startswith("#")]
        assert lines and not any("--system-site-packages" in ln for ln in lines), name
    oldest = (ROOT / ".ci" / "dask_oldest.sh").read_text(encoding="utf-8")
    assert '"pytest>=8,<9"' in oldest
    quickstart = _section(README.read_text(encoding="utf-8"), "Quickstart")
    tested = re.search(r"Versions CI last tested[^:]*: (.*?)\n\n", quickstart, re.S)
    assert tested, "README must say which versions CI tested"
    for name in ("CPython 3.11", "numpy", "numba", "pytest", "hypothesis", "numpydoc", "dask"):
        assert name in tested.group(1), name


_NUMBERS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen").split()  # fmt: skip


def test_the_notebook_table_lists_every_shipped_notebook() -> None:
    section = _section(README.read_text(encoding="utf-8"), "Notebooks")
    shipped = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    listed = re.findall(r"^\| `(\d\d_\w+)` \|", section, re.M)
    assert listed == shipped
    count = re.match(r"\s*(\w+) short tutorials", section)
    assert count and count.group(1).lower() == _NUMBERS[len(shipped)], count


def _shipped_data() -> list[str]:
    """The ``data/`` folders setup.py ships as package data."""
    import re

    return re.findall(r'"mathbg\._data\.(\w+)"', (ROOT / "setup.py").read_text(encoding="utf-8"))


def _copy_repo(dest: Path) -> Path:
    """The working tree without VCS data, caches and generated databases."""

    def ignore(directory: str, names: list[str]) -> set[str]:
        skip = {".git", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "build",
                "dist", ".ipynb_checkpoints"}  # fmt: skip
        out = {n for n in names if n in skip or n.endswith((".egg-info", ".nbi", ".nbc"))}
        if Path(directory).resolve() == (ROOT / "data").resolve():  # shipped data only
            out |= {n for n in names if n not in (*_shipped_data(), "README.md")}
        return out

    shutil.copytree(ROOT, dest, ignore=ignore)
    return dest


@pytest.mark.slow
def test_first_command_works_in_a_fresh_virtual_environment(tmp_path: Path) -> None:
    first, _ = quickstart_commands()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, capture_output=True)  # fmt: skip
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    repo = _copy_repo(tmp_path / "checkout")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PATH=f"{bindir}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(venv),
        MATHBG_DATA=str(tmp_path / "cache"),
        MPLBACKEND="Agg",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    proc = subprocess.run(["bash", "-c", first], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=900)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (bindir / "mathbg").exists(), "the command did not install the mathbg script"
    # the main job: both players' take points at the chosen score, then the matrix
    out = proc.stdout
    assert "kazaross-xg2" in out and "take point, dead" in out
    assert "3-away" in out and "5-away" in out
    assert "take points (%)" in out
    # and its picture: every file the command names with --plot exists and is a real PNG
    pngs = re.findall(r"--plot\s+(\S+)", first)
    assert pngs, "the first command writes no picture"
    for name in pngs:
        png = repo / name
        assert png.is_file(), f"{name} was not written"
        data = png.read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
    # the installed mathbg is the copy's, inside the fresh environment
    where = subprocess.run([str(bindir / "python"), "-c", "import mathbg; print(mathbg.__file__)"],
                           cwd=venv, env=env, capture_output=True, text=True,
                           check=True)  # fmt: skip
    assert Path(where.stdout.strip()).resolve().is_relative_to(repo.resolve())


def tour_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    quick = _section(text, "Quickstart")
    rest = text.replace(quick, "")
    lines = []
    for lang, body in _blocks(rest):
        if lang == "bash":
            lines += [line.strip() for line in body.splitlines() if line.startswith("mathbg ")]
    return lines


def test_the_tour_covers_every_command() -> None:
    import argparse

    from mathbg.cli import build_parser

    registered = {
        name
        for action in build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    }
    toured = {shlex.split(line)[1] for line in tour_commands()}
    assert registered <= toured, f"commands missing from the README tour: {registered - toured}"


@pytest.mark.slow
@pytest.mark.parametrize("line", tour_commands())
def test_tour_command_runs(line: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mathbg.cli import main

    monkeypatch.chdir(tmp_path)  # files a command writes (--out, --plot) land here
    if "matches/" in line:  # the match files of the tests, as a folder the command reads
        import shutil

        shutil.copytree(Path(__file__).parent / "data" / "matches", tmp_path / "matches")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(shlex.split(line)[1:])
    assert status == 0, err.getvalue()[-2000:]
    assert out.getvalue().strip() or list(tmp_path.iterdir())


def test_python_example_runs() -> None:
    text = README.read_text(encoding="utf-8")
    examples = [body for lang, body in _blocks(text) if lang == "python"]
    assert examples
    for body in examples:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(body, "README.md", "exec"), {})
