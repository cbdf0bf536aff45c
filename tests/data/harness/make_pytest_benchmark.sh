#!/bin/sh
# Makes the pytest-benchmark fixtures with the real pytest-benchmark (PyPI) on two tiny tests,
# one of them parametrized. Usage: sh tests/data/harness/make_pytest_benchmark.sh [python]
set -eu
out=$(cd tests/data/harness/pytest_benchmark && pwd)
py=${1:-/work/venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/test_tiny.py" <<'PY'
import pytest


def test_sum(benchmark):
    benchmark.pedantic(sum, args=(range(100),), rounds=8, iterations=10, warmup_rounds=2)


@pytest.mark.parametrize("n", [10, 1000])
def test_sorted(benchmark, n):
    data = list(range(n, 0, -1))
    benchmark.pedantic(sorted, args=(data,), rounds=6, iterations=5)
PY
cd "$tmp"
# --benchmark-json always writes each round's time (stats.data) in pytest-benchmark 5.x; the
# flag is given anyway, as the brief for these fixtures asked.
"$py" -m pytest -q -p no:cacheprovider test_tiny.py --benchmark-json="$out/saved_data.json" \
    --benchmark-save-data
# --benchmark-save/--benchmark-autosave write stats.data only with --benchmark-save-data: without
# it the saved file holds summaries only.
"$py" -m pytest -q -p no:cacheprovider test_tiny.py -k test_sum \
    --benchmark-storage="file://$tmp/storage" --benchmark-save=summaries
cp "$tmp"/storage/*/0001_summaries.json "$out/summaries_only.json"
