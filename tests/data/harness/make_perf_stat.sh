#!/bin/sh
# Makes the perf stat fixtures with the real tool (Debian package linux-perf; software events only,
# so no hardware counters or privileges are needed). Run from the repository root.
set -eu
out=tests/data/harness/perf_stat
mkdir -p "$out"
rm -f "$out/perf_runs.csv" "$out/perf_interval.csv"
# eight runs appended to one file, each the mean of three repeats (-r 3): one value per event per run
for i in 1 2 3 4 5 6 7 8; do
  perf stat -x, -r 3 -e task-clock,page-faults,context-switches -o "$out/perf_runs.csv" --append \
    -- python3 -c "sum(range(200000))"
done
# interval mode (-I 100 ms), two runs appended: each run is one execution of each event
for i in 1 2; do
  perf stat -x, -I 100 -e task-clock,page-faults -o "$out/perf_interval.csv" --append \
    -- python3 -c "import time; t = time.time()
while time.time() - t < 0.75: sum(range(10000))"
done
perf --version
