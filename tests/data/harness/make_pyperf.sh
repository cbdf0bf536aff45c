#!/bin/sh
# Makes the pyperf fixtures with the real pyperf (from PyPI) in a throwaway venv.
# Usage: sh tests/data/harness/make_pyperf.sh   (from the repository root)
set -eu
out=tests/data/harness/pyperf
venv=${PYPERF_VENV:-/tmp/pyperf-venv}
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv" && "$venv/bin/pip" install -q pyperf; }
py="$venv/bin/python"
rm -f "$out/timeit.json" "$out/two_benchmarks.json.gz" "$out/bench_sort.json" "$out/bench_sum.json"
# One benchmark, 4 worker processes (+1 calibration run), 2 warm-ups and 5 values each.
"$py" -m pyperf timeit --processes 4 --values 5 --warmups 2 --loops 1000 \
    -o "$out/timeit.json" "sum(range(100))"
# Two benchmarks in one gzip-compressed file (pyperf writes .json.gz compressed), made with
# `pyperf convert --add` from two timeit runs; --loops omitted so pyperf calibrates (the calibration
# run holds warm-ups only).
"$py" -m pyperf timeit --processes 3 --values 4 --warmups 1 --min-time 0.001 --name sum \
    -o "$out/bench_sum.json" "sum(range(50))"
"$py" -m pyperf timeit --processes 3 --values 4 --warmups 1 --loops 100 --name sort \
    -o "$out/bench_sort.json" "sorted([3, 1, 2] * 10)"
"$py" -m pyperf convert "$out/bench_sum.json" --add "$out/bench_sort.json" \
    -o "$out/two_benchmarks.json.gz"
rm -f "$out/bench_sum.json" "$out/bench_sort.json"
"$venv/bin/pip" show pyperf | grep -i '^version'
