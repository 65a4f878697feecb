"""The first-use compile notice (mathbg._compile) and compiling before progress bars start."""

from __future__ import annotations

import io

import numba
import numpy as np
import pytest

from mathbg._compile import compile_notice, label_of


def _fresh_kernel():
    # a new function object each call: never in numba's cache, so calling it compiles
    @numba.njit
    def kernel(x):
        total = 0.0
        for v in x:
            total += v * v
        return total

    return kernel


def test_notice_is_one_line_once_the_compile_time_is_reached():
    out = io.StringIO()
    with compile_notice("the test kernels A", stream=out, after=0.0):
        assert _fresh_kernel()(np.arange(3.0)) == 5.0
        assert _fresh_kernel()(np.arange(3.0)) == 5.0
    assert out.getvalue() == "compiling the test kernels A (first use only) ...\n"


def test_no_notice_for_a_short_compile_or_no_compile():
    out = io.StringIO()
    with compile_notice("the test kernels B", stream=out, after=60.0):
        _fresh_kernel()(np.arange(3.0))
    with compile_notice("the test kernels C", stream=out, after=0.0):
        pass
    assert out.getvalue() == ""


def test_listener_is_removed_after_the_block():
    out = io.StringIO()
    with compile_notice("the test kernels D", stream=out, after=60.0):
        pass
    with compile_notice("the test kernels D", stream=io.StringIO(), after=0.0):
        pass
    _fresh_kernel()(np.arange(2.0))
    assert out.getvalue() == ""


def test_labels_name_the_package():
    assert label_of("mathbg.bearoff._play_kernels") == "the bearoff kernels"
    assert label_of("mathbg.rules.variants._kernel") == "the variant move generator"
    assert label_of("mathbg.rules.movegen") == "the move generator"
    assert label_of("elsewhere") == "numba kernels"


_SCRIPT = """
from numba.core import event

from mathbg.bearoff.generate import onesided, twosided

class Count(event.Listener):
    n = 0
    def on_start(self, ev):
        Count.n += 1
    def on_end(self, ev):
        pass

with event.install_listener("numba:compile", Count()):
    onesided.compile_kernels(4, 5)  # gnubg's policy: the numpy path, nothing to compile
    onesided.compile_kernels(4, 5, policy="min-rolls")
    twosided.compile_kernels(3, 4)
    before = Count.n
    onesided.build_arrays(4, 5)
    onesided.build_arrays(4, 5, policy="min-rolls")
    twosided.build_arrays(3, 4)
print(before, Count.n - before)
"""


@pytest.mark.slow
def test_build_compiles_nothing_after_compile_kernels(tmp_path):
    """With an empty numba cache, compile_kernels compiles and the builds after it compile
    nothing: a progress bar started then has an ETA of the work alone."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    compiled_first, compiled_in_build = map(int, proc.stdout.split())
    assert compiled_first > 0
    assert compiled_in_build == 0


def _run(args: list[str], env: dict[str, str]):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, *args], env=env, capture_output=True, text=True, timeout=600
    )


def _env(tmp_path):
    import os
    from pathlib import Path

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    env["MATHBG_DATA"] = str(tmp_path / "data")
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return env


def test_cli_commands_without_kernels_never_import_numba(tmp_path):
    code = (
        "import sys; from mathbg.cli import main; "
        "status = main(['met', '--model', 'kazaross-xg2', '--length', '3']); "
        "print(status, 'numba' in sys.modules)"
    )
    proc = _run(["-c", code], _env(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[-2:] == ["0", "False"]


@pytest.mark.slow
def test_cli_says_once_that_it_compiles_and_not_when_warm(tmp_path):
    env = _env(tmp_path)
    # one position's plays come from movegen's pure-Python port: nothing to compile
    shown = _run(["-m", "mathbg", "position", "4HPwATDgc/ABMA", "--roll", "31"], env)
    assert shown.returncode == 0 and shown.stderr == "", shown.stderr
    argv = ["-m", "mathbg", "selfplay", "--variant", "tavla", "--games", "2", "--seed", "1"]
    cold = _run(argv, env)
    assert cold.returncode == 0, cold.stderr
    assert cold.stderr == "compiling the variant move generator (first use only) ...\n"
    warm = _run(argv, env)
    assert warm.returncode == 0 and warm.stderr == ""
    assert warm.stdout == cold.stdout


_CACHE_SCRIPT = """
import sys
import mathbg
assert "numba" not in sys.modules  # importing mathbg does not import numba
import numba
from mathbg.bearoff import _play_kernels as _kernels

@numba.njit(cache=True)
def elsewhere(x):
    return x + 1

print(_kernels.roll_dice._cache._cache_path)
print(elsewhere._cache._cache_path)
print(_kernels.roll_dice(3))
"""


@pytest.mark.slow  # CLI subprocesses compiling: about 3 CPU-s
def test_kernel_cache_goes_to_the_user_cache_not_the_source_tree(tmp_path):
    from pathlib import Path

    env = _env(tmp_path)
    del env["NUMBA_CACHE_DIR"]
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    script = tmp_path / "script.py"  # numba caches only functions defined in a file
    script.write_text(_CACHE_SCRIPT)
    proc = _run([str(script)], env)
    assert proc.returncode == 0, proc.stderr
    ours, theirs, dice = proc.stdout.split("\n")[:3]
    root = tmp_path / "xdg" / "mathbg" / "numba"
    assert Path(ours).is_relative_to(root)
    assert not Path(theirs).is_relative_to(root)  # other packages' functions untouched
    assert dice == "(3, 1)"
    assert list(root.rglob("_play_kernels.roll_dice-*.nbi"))


@pytest.mark.slow  # CLI subprocesses compiling: about 2 CPU-s
def test_numba_cache_dir_still_wins(tmp_path):
    from pathlib import Path

    env = _env(tmp_path)
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")
    script = tmp_path / "script.py"
    script.write_text(_CACHE_SCRIPT)
    proc = _run([str(script)], env)
    assert proc.returncode == 0, proc.stderr
    ours = proc.stdout.split("\n")[0]
    assert Path(ours).is_relative_to(tmp_path / "numba")
    assert not (tmp_path / "xdg" / "mathbg" / "numba").exists()
