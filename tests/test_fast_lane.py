"""The fast lane (`pytest -m "not slow"`) stays fast and hermetic.

- tests/conftest.py fails an unmarked test whose call phase spends more than the CPU budget
  (numba's compiling excluded); checked here on planted tests in a child pytest;
- an optional extra (dask, gnubg-nn, Sphinx, ...) is never imported at a test module's top
  level, and a test that needs one skips without it (``@pytest.mark.extra(name)``, which
  fails instead under MATHBG_REQUIRE_EXTRAS=1, or ``pytest.importorskip``);
- with only the test extra installed, the fast lane passes (CI runs it in a venv of its
  own), the extras' tests skipped.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent

#: Packages of the optional extras (pyproject.toml: engine, dask, docs, notebooks) and of
#: tools the tests may lack; the core dependencies and the test extra's pytest and
#: hypothesis are always there.
OPTIONAL = {
    "build", "dask", "distributed", "docutils", "fsspec", "gnubg_nn", "ipykernel",
    "ipywidgets", "jupyter", "myst_nb", "nbclient", "nbformat", "nbmake", "numpydoc",
    "pydata_sphinx_theme", "sphinx",
}  # fmt: skip

PLANTED = '''
import time

import numba
import pytest


def _burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass


def test_burns_cpu():
    _burn(0.6)


@pytest.mark.slow
def test_burns_cpu_but_is_marked_slow():
    _burn(0.6)


def test_sleeps():
    time.sleep(0.6)  # wall time, no CPU


def test_burns_cpu_in_a_subprocess():
    import subprocess
    import sys

    burn = "import time\\nend = time.process_time() + 0.6\\nwhile time.process_time() < end: pass"
    subprocess.run([sys.executable, "-c", burn], check=True)


def test_burns_cpu_in_a_child_left_running():
    # as a long-lived gnubg session: the child outlives the test, never waited for
    import atexit
    import subprocess
    import sys

    burn = ("import sys, time\\nend = time.process_time() + 0.6\\n"
            "while time.process_time() < end: pass\\nprint('burnt', flush=True)\\ntime.sleep(60)")
    child = subprocess.Popen([sys.executable, "-c", burn], stdout=subprocess.PIPE, text=True)
    atexit.register(child.kill)
    assert child.stdout.readline() == "burnt\\n"


def test_compiles():
    @numba.njit
    def total(n):
        s = 0
        for i in range(n):
            s += i * i
        return s

    assert total(10) == 285
'''


@pytest.mark.slow  # a child pytest that loads numba
def test_the_budget_fails_a_slow_unmarked_test_only(tmp_path: Path) -> None:
    (tmp_path / "test_planted.py").write_text(PLANTED, encoding="utf-8")
    log = tmp_path / "cpu.log"
    env = dict(os.environ, MATHBG_FAST_CPU_BUDGET="0.3", MATHBG_TEST_CPU_LOG=str(log))
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(ROOT), env.get("PYTHONPATH", "")])
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
         "-p", "no:xdist", "-c", os.devnull, "--rootdir", str(tmp_path), str(tmp_path)],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600,
    )  # fmt: skip
    assert "3 failed, 3 passed" in run.stdout, run.stdout + run.stderr
    assert "test_burns_cpu - " in run.stdout and "mark it @pytest.mark.slow" in run.stdout
    assert "test_burns_cpu_in_a_subprocess - " in run.stdout  # its child's CPU counts
    assert "test_burns_cpu_in_a_child_left_running - " in run.stdout  # a running one's too
    rows = {
        line.split("\t")[0].rsplit("::", 1)[1]: [float(x) for x in line.split("\t")[1:]]
        for line in log.read_text(encoding="utf-8").splitlines()
    }
    assert rows["test_burns_cpu"][0] >= 0.6 and rows["test_sleeps"][0] < 0.3
    assert rows["test_burns_cpu_in_a_subprocess"][3] >= 0.6  # the children column
    assert rows["test_burns_cpu_in_a_child_left_running"][3] >= 0.6
    cpu, compiled, _setup, _children = rows["test_compiles"]
    assert compiled > 0.0 and cpu < 0.3  # numba's compile is not counted


def _optional_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """Top-level imports of an optional package, and function-level ones whose function
    does not call ``pytest.importorskip`` on it or carry a skip marker."""
    found = []

    def top(name: str | None) -> str:
        return (name or "").split(".")[0]

    def imported(node: ast.AST) -> set[str]:
        if isinstance(node, ast.Import):
            return {top(a.name) for a in node.names} & OPTIONAL
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            return {top(node.module)} & OPTIONAL
        return set()

    for node in tree.body:
        found += [(node.lineno, name) for name in sorted(imported(node))]
    for func in ast.walk(tree):
        if not isinstance(func, ast.FunctionDef):
            continue
        guarded = {
            call.args[0].value
            for call in ast.walk(func)
            if isinstance(call, ast.Call)
            and getattr(call.func, "attr", "") == "importorskip"
            and call.args
            and isinstance(call.args[0], ast.Constant)
        }
        skipped = any(
            any(w in ast.unparse(d) for w in ("skip", "needs_", "mark.extra(", "mark.dask"))
            for d in func.decorator_list
        )
        for node in ast.walk(func):
            for name in sorted(imported(node) - guarded):
                if not skipped:
                    found.append((node.lineno, name))
    return found


def test_optional_extras_are_imported_only_behind_importorskip() -> None:
    wrong = []
    for path in sorted(TESTS.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        wrong += [f"{path.name}:{line} imports {name}" for line, name in _optional_imports(tree)]
    assert not wrong, "\n".join(wrong)


def test_the_optional_import_check_catches_a_planted_import() -> None:
    tree = ast.parse(
        "import dask\n"
        "def test_a():\n"
        "    import sphinx\n"
        "def test_b():\n"
        "    pytest.importorskip('docutils')\n"
        "    import docutils\n"
    )
    assert _optional_imports(tree) == [(1, "dask"), (3, "sphinx")]


@pytest.mark.slow
def test_the_test_modules_import_without_the_optional_extras() -> None:
    """Collecting a test module needs only the core dependencies and pytest: with every
    optional extra hidden from the import system, each test module still imports."""
    script = (
        "import sys, importlib.util\n"
        "class _Hide:\n"
        f"    names = {sorted(OPTIONAL)!r}\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in self.names:\n"
        "            raise ModuleNotFoundError(f'{name} hidden (optional extra)', name=name)\n"
        "sys.meta_path.insert(0, _Hide())\n"
        "_find = importlib.util.find_spec\n"  # and "is it installed?" answers no
        "importlib.util.find_spec = lambda name, package=None: (\n"
        "    None if name.split('.')[0] in _Hide.names else _find(name, package))\n"
        f"sys.path[:0] = [{str(TESTS)!r}, {str(ROOT)!r}]\n"
        "failed = []\n"
        f"for path in {[str(p) for p in sorted(TESTS.glob('test_*.py'))]!r}:\n"
        "    spec = importlib.util.spec_from_file_location(path.rsplit('/', 1)[1][:-3], path)\n"
        "    try:\n"
        "        spec.loader.exec_module(importlib.util.module_from_spec(spec))\n"
        "    except BaseException as exc:\n"  # a module-level importorskip skips: fine
        "        if type(exc).__name__ != 'Skipped':\n"
        "            failed.append(f'{path}: {exc!r}')\n"
        "print('\\n'.join(failed))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=900
    )
    assert run.returncode == 0 and run.stdout.strip() == "", run.stdout + run.stderr[-2000:]


EXTRA_PLANTED = '''
import pytest


@pytest.mark.extra("engine")
def test_needs_an_extra_that_is_missing():
    pass
'''


@pytest.mark.slow  # two child pytest runs
@pytest.mark.parametrize(("require", "outcome"), [("0", "1 skipped"), ("1", "1 error")])
def test_a_missing_extra_skips_or_fails_under_require_extras(tmp_path, require, outcome):
    """The extra marker skips a test whose extra is missing, and fails it under
    MATHBG_REQUIRE_EXTRAS=1 (as CI sets)."""
    (tmp_path / "test_planted.py").write_text(EXTRA_PLANTED, encoding="utf-8")
    (tmp_path / "conftest.py").write_text(
        (TESTS / "conftest.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (tmp_path / "gnubg_peer.py").write_text(
        (TESTS / "gnubg_peer.py").read_text(encoding="utf-8"), encoding="utf-8"
    )
    hide = tmp_path / "sitecustomize.py"  # gnubg_nn hidden from the child
    hide.write_text(
        "import importlib.util, sys\n"
        "_find = importlib.util.find_spec\n"
        "importlib.util.find_spec = lambda n, p=None: None if n == 'gnubg_nn' else _find(n, p)\n",
        encoding="utf-8",
    )
    env = {**os.environ, "MATHBG_REQUIRE_EXTRAS": require,
           "PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}  # fmt: skip
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbmake",
         str(tmp_path / "test_planted.py")],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300,
    )  # fmt: skip
    assert outcome in run.stdout, run.stdout[-2000:]
