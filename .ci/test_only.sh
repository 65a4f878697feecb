#!/usr/bin/env bash
# The fast lane with only the test extra installed: the optional extras' tests (engine,
# dask, docs, notebooks) skip, everything else passes. A fresh virtual environment of its
# own, as a contributor who ran `pip install -e '.[test]'` has.
# Usage: bash .ci/test_only.sh [PYTHON [VENV]]   (exits non-zero on any failure)
#   With VENV, the environment is VENV: made and installed there unless an earlier
#   `bash .ci/test_only.sh PYTHON VENV --install` did it (.ci/run installs it in the
#   background while the slow tests run); `--install` stops after installing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
VENV="${2:-$WORK/venv}"
start=$SECONDS
if [ ! -e "$VENV/.installed" ]; then
    "$PY" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e '.[test]'
    touch "$VENV/.installed"
    echo "== test extra only: installed in $((SECONDS - start)) s"
fi
if [ "${3:-}" = "--install" ]; then exit 0; fi
VPY="$VENV/bin/python"
unset PYTHONPATH MATHBG_REQUIRE_EXTRAS
export MATHBG_DATA="$WORK/data" NUMBA_CACHE_DIR="$WORK/numba" MPLBACKEND=Agg
"$VPY" -m pytest -q -n 2 -p no:cacheprovider -p no:nbmake -m "not slow" tests
echo "== test extra only took $((SECONDS - start)) s"
