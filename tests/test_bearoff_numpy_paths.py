"""The numpy paths of the bearoff package against the numba kernels (and so gnubg).

- the one-sided build with gnubg's policy (``mathbg.bearoff.generate._os_vector``);
- the successor tables of small spaces (``mathbg.bearoff._plays_vector``).

The vectorised build (``mathbg.bearoff.generate._os_vector``) replaces the kernel for gnubg's
policy on spaces up to 6x15; its claim is the kernel's arrays bit for bit (the kernel
itself is checked byte for byte against gnubg's makebearoff in test_bearoff_gnubg.py,
which now runs through the numpy path). Here both are run on the same spaces.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.bearoff import _plays_vector
from mathbg.bearoff import plays as moves_
from mathbg.bearoff.generate import _os_vector
from mathbg.bearoff.generate import onesided as os_

# slow lane: compiles every bearoff kernel to compare with the numpy paths (about 14 CPU-s)
pytestmark = pytest.mark.slow

GNUBG_FLAGS = 1 | 2 | 4  # float64 arrays, gnubg's table, plays chosen by gnubg's table


def _both(points: int, checkers: int, **kw: object):
    ours = _os_vector.build(points, checkers, **kw)  # type: ignore[arg-type]
    kernel = os_._generate(points, checkers, GNUBG_FLAGS, 0.0, None, vectorised=False)
    return ours, kernel


def _assert_identical(ours, kernel) -> None:
    dist, gammon, gstart, tab = ours
    k_dist, k_gammon, k_gstart, k_tab = kernel
    assert gstart == k_gstart
    assert tab.dtype == np.uint16 and np.array_equal(tab, k_tab)
    assert dist.shape == k_dist.shape and np.array_equal(dist, k_dist)
    assert gammon.shape == k_gammon.shape and np.array_equal(gammon, k_gammon)


@pytest.mark.parametrize(
    ("points", "checkers"),
    [(1, 1), (2, 2), (6, 1), (6, 6), (4, 9), (3, 15), (2, 15)],
)
def test_numpy_build_equals_the_kernel_bit_for_bit(points, checkers):
    _assert_identical(*_both(points, checkers))


@pytest.mark.parametrize(("points", "checkers"), [(7, 4), (8, 5), (9, 3), (12, 4), (24, 2)])
def test_numpy_build_equals_the_kernel_with_checkers_outside_home(points, checkers):
    # points 7+ hold checkers that must come home before any bear-off
    _assert_identical(*_both(points, checkers))


@pytest.mark.slow
@pytest.mark.parametrize(("points", "checkers"), [(6, 15), (5, 15), (6, 10)])
def test_numpy_build_equals_the_kernel_on_big_spaces(points, checkers):
    _assert_identical(*_both(points, checkers))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 9), st.integers(1, 7))
def test_numpy_build_equals_the_kernel_on_random_spaces(points, checkers):
    _assert_identical(*_both(points, checkers))


def test_one_and_two_threads_agree():
    one = _os_vector.build(6, 9, threads=1)
    two = _os_vector.build(6, 9, threads=2)
    for a, b in zip(one, two, strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_an_error_in_the_float_thread_is_raised(monkeypatch):
    """The float sums run on a second thread: its failure must not be lost."""

    def broken(*args, **kwargs):
        raise MemoryError("the float thread failed")

    monkeypatch.setattr(_os_vector, "_accumulate", broken)
    with pytest.raises(MemoryError, match="float thread"):
        _os_vector.build(5, 6, threads=2)


def test_without_floats_the_table_is_the_same():
    full = _os_vector.build(5, 8)
    table_only = _os_vector.build(5, 8, want_float=False)
    assert np.array_equal(full[3], table_only[3])


def test_progress_counts_every_position_once():
    seen: list[int] = []
    _os_vector.build(6, 8, progress=seen.append)
    assert sum(seen) == 3003 - 1  # C(14, 6) positions, the empty board is the base case


def test_gnubg_policy_uses_the_numpy_path_and_min_rolls_the_kernel():
    assert os_._vectorised(6, 15, GNUBG_FLAGS)
    assert not os_._vectorised(6, 15, 1)  # min-rolls: float64 ties need the kernel
    assert not _os_vector.fits(8, 15)  # 490,314 positions: the parallel kernel


def test_one_sided_gnubg_build_does_not_load_numba(tmp_path):
    """The whole-process cost of ``mathbg bearoff build`` is the build: numba's import
    and start-up (about 0.6 s) are not paid for the one-sided gnubg database."""
    script = (
        "import sys\n"
        "from mathbg.bearoff import OneSided\n"
        f"db = OneSided.build(6, 6, path={str(tmp_path / 'db')!r}, progress=False)\n"
        "print('numba' in sys.modules, round(db.mean_rolls([0, 0, 0, 0, 0, 1]), 6))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    proc = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    loaded, mean = proc.stdout.split()
    assert loaded == "False"
    # one checker on the 6-point stays on only after 2-1, 3-1, 3-2, 4-1 (2/36 each) or
    # 1-1 (four pips): 9/36, and then sits on the 3-point or lower, off next roll
    assert float(mean) == 1 + 9 / 36


def _same_table(points: int, checkers: int) -> None:
    ptr, succ = _plays_vector.successor_table(points, checkers)
    kernel = moves_._successors_compiled(points, checkers)
    assert np.array_equal(ptr, kernel.ptr)
    assert succ.dtype == kernel.succ.dtype and np.array_equal(succ, kernel.succ)


@pytest.mark.parametrize(
    ("points", "checkers"), [(1, 1), (6, 1), (6, 2), (6, 6), (3, 5), (2, 15), (7, 4), (8, 3)]
)
def test_numpy_successor_table_equals_the_kernels(points, checkers):
    _same_table(points, checkers)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 8), st.integers(1, 5))
def test_numpy_successor_table_equals_the_kernels_on_random_spaces(points, checkers):
    _same_table(points, checkers)


def test_successor_rows_follow_the_rules_for_a_known_position():
    # two checkers on the 6-point, roll 6-5: the 6 bears one off and the 5 moves the
    # other to the 1-point, in either order (the 6 cannot bear off from the 1-point while
    # a checker is on the 6-point): one result
    from mathbg.bearoff import unrank

    table = moves_.successors(6, 2)
    got = [tuple(int(x) for x in row) for row in unrank(table.of([0, 0, 0, 0, 0, 2], (6, 5)), 6)]
    assert got == [(1, 0, 0, 0, 0, 0)]
    assert list(table.of([0, 0, 0, 0, 0, 0], (6, 5))) == []
