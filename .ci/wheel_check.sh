#!/usr/bin/env bash
# Install mathbg as a user does and run it from outside the checkout:
#   1. build the sdist and, from it, the wheel (python -m build);
#   2. install the wheel into a fresh virtual environment (dependencies from the package index);
#   3. from an empty directory run the README's main job (takepoint, met), bearoff builds
#      that must land in $XDG_CACHE_HOME/mathbg (databases and numba cache; nothing written into
#      site-packages), and tests/wheel/check_installed.py (every
#      shipped table is package data equal to data/met, loads, is listed; cache locations);
#   4. check that nothing was written into the checkout;
#   5. add the extras the notebooks use to that venv and run every notebook from a copy
#      outside the checkout (pytest --nbmake), the executed copies going to EXECUTED_DIR.
# Usage: bash .ci/wheel_check.sh [PYTHON [EXECUTED_DIR]]   (exits non-zero on any failure)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO="$PWD"
PY="${1:-python3}"
EXECUTED="${2:-}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

# build/ and *.egg-info are setuptools' own by-products of step 1; anything else is a write.
snapshot() { git status --porcelain --ignored 2>/dev/null | grep -v -E "build/|egg-info/" | sort || true; }
before="$(snapshot)"

echo "== wheel: build sdist and wheel"
"$PY" -m build -q -o "$WORK/dist" . >"$WORK/build.log" 2>&1 || { cat "$WORK/build.log"; exit 1; }
if grep -E "DeprecationWarning|is deprecated|will be removed" "$WORK/build.log"; then echo "setuptools warned (above)"; exit 1; fi
ls "$WORK/dist"
tar tzf "$WORK"/dist/mathbg-*.tar.gz >"$WORK/sdist.txt"
grep -q "/LICENSE$" "$WORK/sdist.txt"
grep -q "/data/met/kazaross-xg2.xml$" "$WORK/sdist.txt"

echo "== wheel: fresh venv"
"$PY" -m venv "$WORK/venv"
VPY="$WORK/venv/bin/python"
"$VPY" -m pip install -q --disable-pip-version-check "$WORK"/dist/mathbg-*.whl

echo "== wheel: run outside the checkout"
mkdir "$WORK/outside"
cd "$WORK/outside"
export XDG_CACHE_HOME="$WORK/xdg"
unset MATHBG_DATA PYTHONPATH NUMBA_CACHE_DIR
"$WORK/venv/bin/mathbg" --version
"$WORK/venv/bin/mathbg" takepoint --away 3,5 --cube 2
"$WORK/venv/bin/mathbg" met --model kazaross-xg2 --length 7
"$WORK/venv/bin/mathbg" met --list
"$WORK/venv/bin/mathbg" bearoff build --points 3 --checkers 3 --quiet
# gnubg's policy builds on numpy; the min-rolls policy runs (and caches) a numba kernel
"$WORK/venv/bin/mathbg" bearoff build --points 3 --checkers 3 --policy min-rolls --quiet
ls -d "$XDG_CACHE_HOME"/mathbg/bearoff/onesided-03x03*
# numba's cache of mathbg's kernels: in the user cache directory, nothing in site-packages
[ -n "$(find "$XDG_CACHE_HOME/mathbg/numba" -name "*.nbi")" ]
if [ -n "$(find "$WORK/venv" -name "*.nbi")" ]; then echo "numba cache in site-packages"; exit 1; fi
"$VPY" "$REPO/tests/wheel/check_installed.py" "$REPO"

cd "$REPO"
after="$(snapshot)"
if [ "$before" != "$after" ]; then
    echo "the checkout changed:"; diff <(echo "$before") <(echo "$after") || true; exit 1
fi
echo "== wheel: ok"

# 5. The notebooks, as a reader runs them: the wheel with the extras they use, from a copy
#    outside the checkout. A kernel that fails to start (jupyter picks its TCP ports before
#    the kernel binds them, so two kernels starting at once can collide: "Kernel didn't
#    respond", "Kernel died before replying") is infrastructure, not a notebook failure:
#    only then are the notebooks that failed run once more. A notebook whose cells fail
#    fails CI at once.
echo "== notebooks: the wheel with [notebooks,engine,dask,test], run outside the checkout"
WHEEL="$(ls "$WORK"/dist/mathbg-*.whl)"
"$VPY" -m pip install -q --disable-pip-version-check "$WHEEL[notebooks,engine,dask,test]"
mkdir "$WORK/notebooks"
cp "$REPO"/notebooks/*.ipynb "$WORK/notebooks/"
cd "$WORK/notebooks"
export MPLBACKEND=Agg
run_notebooks() { "$VPY" -m pytest -q -n 2 --nbmake --overwrite "$@" . 2>&1 | tee "$WORK/notebooks.log"; }
if ! run_notebooks; then
    if grep -q -E "Kernel didn't respond|Kernel died before replying" "$WORK/notebooks.log"; then
        echo "== notebooks: a kernel failed to start; the failed notebooks once more"
        run_notebooks --last-failed
    else
        exit 1
    fi
fi
if [ -n "$EXECUTED" ]; then mkdir -p "$EXECUTED" && cp "$WORK"/notebooks/*.ipynb "$EXECUTED/"; fi
cd "$REPO"
echo "== notebooks: ok"
