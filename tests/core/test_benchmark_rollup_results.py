"""Per-benchmark roll-ups of detection results as the explorer shows them on a benchmark row (rollup_results)."""
from __future__ import annotations

from types import SimpleNamespace

from segview.core.benchmark import execution, group, rollup_results


def _res(onset, n_cp):
    return SimpleNamespace(steady_start=onset, change_points=list(range(1, n_cp + 1)))


def test_rollup_counts_steady_and_takes_medians():
    execs = [execution([1.0] * 10, benchmark="b", index=i, harness="h") for i in range(4)]
    bench = group(execs)[0]
    results = {("b/exec0", "m"): _res(4, 1), ("b/exec1", "m"): _res(None, 3),
               ("b/exec2", "m"): _res(6, 2), ("b/exec0", "c"): _res(None, 5)}
    got = rollup_results(bench, results, ["m", "c", "none"])
    m = got["m"]
    assert (m.executions, m.done, m.steady) == (4, 3, 2)
    assert m.median_onset == 5.0  # median of 4 and 6; the never-steady one is not an onset
    assert m.median_change_points == 2.0
    assert m.text("onset") == "2/4 steady, med 5 (3/4 done)"
    assert got["c"].text("change_points") == "med 5 cp (1/4 done)"
    assert got["none"].done == 0 and got["none"].text() == "" and got["none"].median_onset is None
    assert got["none"].sort_key() == float("inf")


def test_rollup_all_done_never_steady():
    execs = [execution([1.0] * 10, benchmark="b", index=i, harness="h") for i in range(2)]
    bench = group(execs)[0]
    results = {(s.id, "m"): _res(None, 0) for s in execs}
    r = rollup_results(bench, results, ["m"])["m"]
    assert r.text() == "0/2 steady" and r.sort_key() == float("inf")
