"""Workload series W(t) from job logs (spec autoparm.md §11), SWF/CSV readers, cross-site
clustering, the CE-A-shaped generator and ``segview workload``."""
from __future__ import annotations

import json

import numpy as np
import pytest

from segview.cli.main import main
from segview.core import workload as wl
from segview.core.errors import DataFormatError, InputError


def _jobs(seed=0, n=400, shift_at=None):
    """Random jobs: arrivals over 100 h, waits and run times exponential (shorter after shift)."""
    rng = np.random.default_rng(seed)
    ta = np.sort(rng.uniform(1.0, 100 * 3600.0, n))
    run = rng.exponential(4 * 3600.0, n)
    wait = rng.exponential(1800.0, n)
    if shift_at is not None:
        late = ta > shift_at
        wait[late] *= 8.0  # the queue backs up
    ts = ta + wait
    return ta, ts, ts + run


def test_hand_example():
    # job 1: arrives 10, starts 20, ends 50 (d = 30); job 2: arrives 15, starts 40, ends 45 (d = 5)
    log = wl.clean_jobs([10, 15], [20, 40], [50, 45])
    t = np.array([10.0, 12.0, 30.0, 42.0, 47.0, 60.0])
    # t=12: CRA 30, CRS 0, RR 0 -> 30; t=30: CRA 35, CRS 30, RR 20 -> 25
    # t=42: CRA 35, CRS 35, RR (50-42)+(45-42)=11 -> 11; t=47: RR 3 -> 3; t=60: 0
    np.testing.assert_allclose(wl.workload_brute(log, t), [0, 30, 25, 11, 3, 0])
    grid, w = wl.workload(log, 2.0, t0=10.0, t1=60.0)
    np.testing.assert_allclose(w[[0, 1, 10, 16, 18, 25]], [0, 30, 25, 11, 4, 0])  # t = 46: RR 4
    assert grid[1] == 12.0


def test_fast_workload_equals_definition():
    log = wl.clean_jobs(*_jobs(3))
    t, w = wl.workload(log, 1000.0)
    np.testing.assert_allclose(w, wl.workload_brute(log, t), rtol=1e-9, atol=1e-6)


def test_dropped_jobs():
    ta, ts, te = (np.array(v, dtype=float) for v in ([5, 0, 7, 8], [6, 3, 8, 9], [9, 4, 8 + 2 * 86400, 10]))
    log = wl.clean_jobs(ta, ts, te)
    assert log.dropped == 2 and log.arrival.tolist() == [5.0, 8.0]


def test_bad_order_names_the_job():
    with pytest.raises(DataFormatError, match="job 2"):
        wl.clean_jobs([1, 5], [2, 4], [3, 6])


def _write_swf(path, ta, ts, te):
    lines = ["; Version: 2.2", "; synthetic log"]
    for i, (a, s, e) in enumerate(zip(ta, ts, te), start=1):
        fields = [i, a, s - a, e - s, 1, -1, -1, 1, -1, -1, 1, 1, 1, 1, 1, -1, -1, -1]
        lines.append(" ".join(f"{v:.3f}" if isinstance(v, float) else str(v) for v in fields))
    path.write_text("\n".join(lines) + "\n")


def test_swf_and_csv_give_the_same_series(tmp_path):
    ta, ts, te = _jobs(1, 200)
    _write_swf(tmp_path / "a.swf", ta, ts, te)
    (tmp_path / "a.csv").write_text("id,submit,start,end\n" + "".join(
        f"{i},{a:.17g},{s:.17g},{e:.17g}\n" for i, (a, s, e) in enumerate(zip(ta, ts, te))))
    a = wl.read_log(tmp_path / "a.swf")
    b = wl.read_log(tmp_path / "a.csv")
    assert a.arrival.size == b.arrival.size == 200
    np.testing.assert_allclose(wl.workload(a, 3600.0, t0=0, t1=4e5)[1],
                               wl.workload(b, 3600.0, t0=0, t1=4e5)[1], atol=0.01)


@pytest.mark.parametrize("text, where", [
    ("submit,start\n1,2\n", "line 1"),
    ("submit,start,end\n1,2,3\n4,x,6\n", "line 3"),
    ("submit,start,end\n", None),
])
def test_malformed_csv(tmp_path, text, where):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(DataFormatError) as err:
        wl.read_log(path)
    assert "bad.csv" in str(err.value)
    if where:
        assert err.value.where == where


def test_malformed_swf(tmp_path):
    path = tmp_path / "bad.swf"
    path.write_text("; header\n1 0 10 100\n2 5 abc 7 1\n")
    with pytest.raises(DataFormatError) as err:
        wl.read_log(path)
    assert err.value.where == "line 3" and "fields 2-4" in err.value.reason


def test_step_and_empty_log_errors():
    log = wl.clean_jobs([0.0], [0.0], [0.0])
    with pytest.raises(InputError, match="no jobs left"):
        wl.workload(log, 10.0)
    with pytest.raises(InputError, match="step"):
        wl.workload(wl.clean_jobs([1.0], [2.0], [3.0]), 0.0)


def test_cluster_sites():
    got = wl.cluster_sites({"a": [100, 300], "b": [104, 500], "c": [98, 301]}, cutoff=25)
    assert [c["position"] for c in got] == [100.0, 300.5, 500.0]
    assert got[0]["sites"] == ["a", "b", "c"] and got[2]["sites"] == ["b"]


def test_ce_a_like_is_seeded_and_shaped():
    y, starts, orders = wl.ce_a_like(0)
    y2, _, _ = wl.ce_a_like(0)
    assert y.size == 1895 and len(starts) == 20 and len(orders) == 21
    np.testing.assert_array_equal(y, y2)
    assert min(np.diff([0, *starts, 1895])) >= 30


@pytest.mark.slow
def test_cli_workload_two_sites(tmp_path, capsys):
    for name, seed in (("site1", 0), ("site2", 1)):
        ta, ts, te = _jobs(seed, 1500, shift_at=50 * 3600.0)
        (tmp_path / f"{name}.csv").write_text("submit,start,end\n" + "".join(
            f"{a:.17g},{s:.17g},{e:.17g}\n" for a, s, e in zip(ta, ts, te)))
    out = tmp_path / "w.csv"
    code = main(["workload", str(tmp_path / "site1.csv"), str(tmp_path / "site2.csv"),
                 "--step", "1200", "--out", str(out), "--json"])
    assert code == 0
    rep = json.loads(capsys.readouterr().out)
    assert [s["site"] for s in rep["sites"]] == ["site1", "site2"]
    assert all(s["jobs"] + s["dropped"] == 1500 and s["jobs"] > 1400 for s in rep["sites"])
    assert "global" in rep and all(c["size"] >= 1 for c in rep["global"])
    assert out.read_text().splitlines()[0] == "site,t,W,Y"


def test_cli_workload_malformed_log(tmp_path, capsys):
    path = tmp_path / "broken.csv"
    path.write_text("submit,start,end\n1,2,3\n4,5,oops\n")
    assert main(["workload", str(path)]) == 2
    err = capsys.readouterr().err
    assert "broken.csv" in err and "line 3" in err


def test_cli_workload_series_only(tmp_path, capsys):
    ta, ts, te = _jobs(2, 100)
    path = tmp_path / "s.csv"
    path.write_text("submit,start,end\n" + "".join(f"{a:.17g},{s:.17g},{e:.17g}\n" for a, s, e in zip(ta, ts, te)))
    assert main(["workload", str(path), "--no-segment", "--out", str(tmp_path / "o.csv")]) == 0
    rows = (tmp_path / "o.csv").read_text().splitlines()
    assert len(rows) > 50 and rows[1].endswith(",")


def test_swf_zero_submit_time_is_a_job_and_unknown_fields_drop(tmp_path):
    path = tmp_path / "z.swf"
    path.write_text("; log\n1 0 5 10 1 -1 -1 1 -1 -1 1 1 1 1 1 -1 -1 -1\n"
                    "2 3 -1 10 1 -1 -1 1 -1 -1 1 1 1 1 1 -1 -1 -1\n")
    log = wl.read_log(path)
    assert log.arrival.tolist() == [0.0] and log.start.tolist() == [5.0]
    assert log.end.tolist() == [15.0] and log.dropped == 1
