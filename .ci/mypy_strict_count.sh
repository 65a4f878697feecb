#!/usr/bin/env bash
# mypy --strict on the whole package, counted. Fails when the number of errors is above the
# committed baseline (.ci/mypy-strict-baseline), so the count can only go down; when it went
# down, says so: commit the new count to keep it there.
set -uo pipefail
cd "$(dirname "$0")/.."

baseline=$(tr -dc '0-9' < .ci/mypy-strict-baseline)
out=$(python3 -m mypy --strict mathbg 2>&1)
count=$(printf '%s\n' "$out" | grep -c ': error:' || true)
echo "mypy --strict: $count errors (baseline $baseline)"
if [ "$count" -gt "$baseline" ]; then
    printf '%s\n' "$out" | grep ': error:'
    echo "mypy --strict: $count errors, more than the baseline $baseline in .ci/mypy-strict-baseline"
    exit 1
fi
if [ "$count" -lt "$baseline" ]; then
    echo "mypy --strict: down from $baseline to $count; write $count to .ci/mypy-strict-baseline"
fi
