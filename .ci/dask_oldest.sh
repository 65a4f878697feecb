#!/usr/bin/env bash
# The Dask tests with the OLDEST dask[distributed] the `dask` extra allows, and pytest 8.
# CI's main run tests the newest (what pip installs for the ranges in pyproject.toml); this
# script tests the lower ends:
#   1. a fresh virtual environment of its own (no --system-site-packages: it borrows
#      nothing from the interpreter or venv that runs it, so it works the same inside an
#      activated venv and outside one), with mathbg from this checkout and its test, engine
#      and dask extras, dask and distributed pinned exactly to the range's lower bound in
#      the same request (pip refuses a pin outside the range), and pytest 8 (the test
#      extra allows 8 and 9; the optional-extra skips must work under both);
#   2. the tests marked `dask` (LocalCluster / Client: the two-sided build, the CLI's
#      --scheduler path with its progress bar, the worker-kill tests of the build, the corpus
#      and the self-play MET, the scheduler-address refusals), and the check that every test
#      module imports with the optional extras hidden (pytest 8's importorskip).
# Usage: bash .ci/dask_oldest.sh [PYTHON]   (exits non-zero on any failure)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
start=$SECONDS

# the lower bound of `dask[distributed]>=LOW,<HIGH` in pyproject.toml's dask extra
LOW="$(sed -n 's/^dask = \["dask\[distributed\]>=\([0-9.]*\),.*/\1/p' pyproject.toml)"
if [ -z "$LOW" ]; then echo "no dask[distributed]>=LOW,<HIGH in pyproject.toml"; exit 1; fi

echo "== dask oldest: fresh venv, mathbg[dask] with dask[distributed]==$LOW"
"$PY" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
# with mathbg's dask extra in the same request: pip refuses a pin outside the extra's range
"$VPY" -m pip install -q --disable-pip-version-check -e '.[test,engine,dask]' \
    "dask[distributed]==$LOW" "distributed==$LOW" "pytest>=8,<9"
echo "== dask oldest: installed in $((SECONDS - start)) s"
"$VPY" -c 'import sys, dask, distributed, numpy, pandas, pytest, tornado
print("python", sys.version.split()[0], "dask", dask.__version__, "distributed",
      distributed.__version__, "numpy", numpy.__version__, "pandas", pandas.__version__,
      "tornado", tornado.version, "pytest", pytest.__version__)'
"$VPY" -c "import dask, distributed; from packaging.version import Version as V
assert V(dask.__version__) == V(distributed.__version__) == V('$LOW'), 'not the lower bound'"

# hermetic, as CI's main run: no databases or compiled kernels of earlier runs
unset PYTHONPATH
export MATHBG_DATA="$WORK/data" NUMBA_CACHE_DIR="$WORK/numba" MPLBACKEND=Agg
# the 6x8 Dask build against makebearoff's bytes is left to the main run: the same Dask
# path is built here at 5x6 (worker killed) and 4x5 (the CLI), at a third of the time
echo "== dask oldest: pytest -m dask"
DASK_TESTS=$(grep -l "pytest.mark.dask" tests/test_*.py)
"$VPY" -m pytest -q -n 2 -p no:cacheprovider -p no:nbmake --durations=5 -m dask $DASK_TESTS \
    --deselect tests/test_bearoff_bigdb.py::test_dask_build_equals_the_local_build
echo "== dask oldest: the test modules import with the optional extras hidden (pytest 8)"
"$VPY" -m pytest -q -p no:cacheprovider -p no:nbmake \
    tests/test_fast_lane.py::test_the_test_modules_import_without_the_optional_extras
echo "== dask oldest took $((SECONDS - start)) s"
