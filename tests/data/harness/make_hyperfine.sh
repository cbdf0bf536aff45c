#!/bin/sh
# Makes the hyperfine fixtures with the real hyperfine (Debian package `hyperfine`).
# Usage: sh tests/data/harness/make_hyperfine.sh   (from the repository root)
set -eu
out=tests/data/harness/hyperfine
hyperfine --version
# Two commands, 20 runs each after 3 warm-up runs (hyperfine does not export warm-up runs).
hyperfine --runs 20 --warmup 3 -N --style none \
    --export-json "$out/commands.json" --export-csv "$out/commands.csv" \
    'true' 'sleep 0.001'
# A parameter scan: one benchmark per parameter value, the parameter in results[].parameters.
hyperfine --runs 10 --warmup 2 --style none --parameter-scan ms 1 3 \
    --export-json "$out/scan.json" 'sleep 0.00{ms}'
