#!/bin/sh
# Makes the Google Benchmark fixtures with the real library (Debian packages libbenchmark-dev, g++).
# Usage: sh tests/data/harness/make_gbench.sh   (from the repository root)
# libbenchmark 1.7.1 takes --benchmark_min_time as plain seconds (the "0.01s" form came in 1.8).
set -eu
out=tests/data/harness/gbench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
g++ -O2 -o "$tmp/tiny" tests/data/harness/gbench_tiny.cc -lbenchmark -lpthread
common="--benchmark_repetitions=10 --benchmark_min_time=0.01"
# Per-repetition rows plus the aggregates (mean, median, stddev, cv), JSON and CSV.
"$tmp/tiny" $common --benchmark_out="$out/repetitions.json" --benchmark_out_format=json \
    --benchmark_format=console >/dev/null
"$tmp/tiny" $common --benchmark_format=csv > "$out/repetitions.csv"
# Aggregates only: what segview cannot analyse (it names the flag to drop).
"$tmp/tiny" --benchmark_repetitions=3 --benchmark_min_time=0.01 --benchmark_filter=BM_Sum \
    --benchmark_report_aggregates_only=true --benchmark_out="$out/aggregates_only.json" \
    --benchmark_out_format=json --benchmark_format=console >/dev/null
dpkg-query -W libbenchmark-dev g++
