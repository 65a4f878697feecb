"""The MET models' recurrences run as plain Python or compiled by numba, with the same bits.

:mod:`mathbg.met._recurrences` is the code; :mod:`mathbg.met._kernels` compiles it
(:func:`mathbg._jit.compile_functions`). A process that has not loaded numba computes its
tables in Python (milliseconds; loading numba takes about 0.4 s): ``mathbg met --model
zadeh`` never imports numba.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mathbg.met import _kernels, _recurrences
from mathbg.met._core import recurrence
from mathbg.met.models import _levels, zadeh_post_crawford

lengths = st.integers(1, 25)
rate = st.floats(0.0, 0.5)


@settings(max_examples=40, deadline=None)
@given(n=lengths, g1=rate, g2=rate, delta=st.floats(0.0, 0.1), delta_bar=st.floats(0.0, 0.1))
def test_zadeh_plain_and_compiled_agree_bit_for_bit(n, g1, g2, delta, delta_bar):
    post = zadeh_post_crawford(n)
    args = (n, post, g1, g2, delta, delta_bar, _levels(n))
    with np.errstate(all="ignore"):
        plain = _recurrences.zadeh_table(*args)
        compiled = _kernels.zadeh_table(*args)
    np.testing.assert_array_equal(plain, compiled)


@settings(max_examples=40, deadline=None)
@given(n=lengths, g=rate, pg=rate, w=st.floats(0.3, 0.7), fd2=st.floats(0, 0.03),
       fd4=st.floats(0, 0.01))  # fmt: skip
def test_mec_plain_and_compiled_agree_bit_for_bit(n, g, pg, w, fd2, fd4):
    with np.errstate(all="ignore"):
        plain = _recurrences.mec_table(n, g, pg, w, fd2, fd4)
        compiled = _kernels.mec_table(n, g, pg, w, fd2, fd4)
    for a, b in zip(plain, compiled, strict=True):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(n=lengths, g=st.floats(0.0, 1.0), frac=st.floats(0.0, 1.0))
def test_cubeless_plain_and_compiled_agree_bit_for_bit(n, g, frac):
    first = np.full(n + 1, -1.0)
    plain = _recurrences.cubeless_table(n, g, g * frac, first)
    compiled = _kernels.cubeless_table(n, g, g * frac, first)
    np.testing.assert_array_equal(plain, compiled)


def test_the_compiled_kernels_are_used_once_numba_is_loaded():
    assert "numba" in sys.modules  # _kernels was imported above
    assert recurrence("zadeh_table") is _kernels.zadeh_table


def test_a_met_command_does_not_load_numba():
    code = (
        "import sys\n"
        "from mathbg.cli import main\n"
        "assert main(['met', '--model', 'zadeh', '--length', '25']) == 0\n"
        "assert main(['met', '--model', 'mec', '--length', '11']) == 0\n"
        "from mathbg.met._core import recurrence\n"
        "from mathbg.met import _recurrences\n"
        "assert recurrence('mec_table') is _recurrences.mec_table\n"
        "assert 'numba' not in sys.modules, 'numba was imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
