#!/usr/bin/env bash
# The fast lane with only the test extra installed: the optional extras' tests (engine,
# dask, docs, notebooks) skip, everything else passes. A fresh virtual environment of its
# own, as a contributor who ran `pip install -e '.[test]'` has, on a machine without a C
# compiler: MATHBG_NATIVE=0 builds no ahead-of-time kernels and keeps any the checkout
# already holds unused (mathbg/_native.py), so numba compiles every kernel, as it does there.
# Usage: bash .ci/test_only.sh [PYTHON]   (exits non-zero on any failure)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-python3}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
start=$SECONDS
export MATHBG_NATIVE=0
"$PY" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
"$VPY" -m pip install -q --disable-pip-version-check -e '.[test]'
echo "== test extra only: installed in $((SECONDS - start)) s"
unset PYTHONPATH MATHBG_REQUIRE_EXTRAS
export MATHBG_DATA="$WORK/data" NUMBA_CACHE_DIR="$WORK/numba" MPLBACKEND=Agg
"$VPY" -m pytest -q -n 2 -p no:cacheprovider -p no:nbmake -m "not slow" tests
echo "== test extra only took $((SECONDS - start)) s"
