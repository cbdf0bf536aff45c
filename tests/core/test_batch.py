"""Batch engine: serial, local processes and Dask give the same rows; the cache recomputes nothing."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core import registry
from segview.core.errors import InputError
from segview.core.evaluation import batch
from segview.core.model import Series
from segview.core.params import ParamSpec
from segview.core.registry import DetectorSpec
from segview.core.result import DetectionResult

CALLS: list[int] = []


def _fake_run(values, params, ctx):
    """Onset = first index whose value is <= threshold (None if none); one change point there."""
    CALLS.append(1)
    hits = np.flatnonzero(values <= params["threshold"])
    onset = int(hits[0]) if hits.size else None
    cps = [onset] if onset else []
    return DetectionResult("fake_batch", params, np.array(cps, dtype=np.int64), onset)


FAKE = DetectorSpec(
    name="fake_batch", label="Fake", version="1", produces="onset",
    params=(ParamSpec("threshold", "float", 5.0, low=-100, high=100),), run=_fake_run,
    min_length=3)


@pytest.fixture()
def fake_detector():
    registry.register(FAKE)
    CALLS.clear()
    yield FAKE
    registry._REGISTRY.pop("fake_batch", None)


def _series():
    # decreasing ramps: onset of threshold t is the first index with value <= t
    return [Series(np.arange(20 + k, 0, -1, dtype=float), id=f"r{k}") for k in range(6)] + [
        Series([1.0, 2.0], id="short")]


def _expected(series, t):
    out = []
    for s in series:
        if len(s) < 3:
            out.append(None)
            continue
        hits = np.flatnonzero(s.values <= t)
        out.append(int(hits[0]) if hits.size else None)
    return out


def test_serial_rows_and_errors(fake_detector):
    series = _series()
    rows = batch.run_batch(series, [("fake_batch", {"threshold": 5}), ("fake_batch", {"threshold": 50})],
                           workers=1)
    assert len(rows) == 2 * len(series)
    assert [r["series_id"] for r in rows[:4]] == ["r0", "r0", "r1", "r1"]
    got5 = [r["steady_index"] for r in rows if r["params"]["threshold"] == 5]
    assert got5 == _expected(series, 5)
    short = [r for r in rows if r["series_id"] == "short"]
    assert all(r["error"] and "at least 3" in r["error"] for r in short)
    got50 = [r["steady_index"] for r in rows if r["params"]["threshold"] == 50]
    assert got50[:6] == [0] * 6


def test_cache_recomputes_nothing(fake_detector, tmp_path):
    series = _series()[:6]
    specs = [("fake_batch", {"threshold": t}) for t in (3, 7)]
    first = batch.run_batch(series, specs, workers=1, cache_dir=tmp_path)
    assert len(CALLS) == 12 and not any(r["cached"] for r in first)
    progress = []
    second = batch.run_batch(series, specs, workers=1, cache_dir=tmp_path,
                             progress=lambda d, n: progress.append((d, n)))
    assert len(CALLS) == 12  # nothing recomputed
    assert all(r["cached"] for r in second)
    assert [r["steady_index"] for r in second] == [r["steady_index"] for r in first]
    assert progress[-1] == (12, 12)
    # a new parameter value or a new detector version is computed
    batch.run_batch(series, [("fake_batch", {"threshold": 4})], workers=1, cache_dir=tmp_path)
    assert len(CALLS) == 18


def test_version_change_invalidates_cache(fake_detector, tmp_path):
    import dataclasses
    series = _series()[:3]
    batch.run_batch(series, ["fake_batch"], workers=1, cache_dir=tmp_path)
    v2 = batch.MethodSpec(dataclasses.replace(FAKE, version="2"), FAKE.defaults())
    batch.run_batch(series, [v2], workers=1, cache_dir=tmp_path)
    assert len(CALLS) == 6


def test_local_processes_match_serial(fake_detector):
    series = _series()
    specs = [("fake_batch", {"threshold": t}) for t in (2, 9, 15)]
    serial = batch.run_batch(series, specs, workers=1)
    progress = []
    local = batch.run_batch(series, specs, workers=2, progress=lambda d, n: progress.append(d))
    strip = lambda rows: [(r["series_id"], r["params"]["threshold"], r["steady_index"],  # noqa: E731
                           r["change_points"], r["error"]) for r in rows]
    assert strip(local) == strip(serial)
    assert progress[-1] == len(series) * 3 and progress == sorted(progress)


def test_dask_local_cluster_matches_local(fake_detector):
    distributed = pytest.importorskip("distributed")
    series = _series()
    specs = [("fake_batch", {"threshold": t}) for t in (2, 9)]
    local = batch.run_batch(series, specs, workers=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        ex = batch.DaskExecutor(client=client)
        remote = batch.run_batch(series, specs, executor=ex)
    assert [r["steady_index"] for r in remote] == [r["steady_index"] for r in local]
    assert [r["error"] for r in remote] == [r["error"] for r in local]


def test_dask_executor_needs_address():
    with pytest.raises(InputError):
        batch.DaskExecutor()


PREPARES: list[int] = []


def _prep(values, params, ctx):
    PREPARES.append(1)
    return values * params["scale"]


def _decide(values, params, ctx):
    hits = np.flatnonzero(ctx.prepared <= params["threshold"])
    onset = int(hits[0]) if hits.size else None
    return DetectionResult("fake_prep", params, np.zeros(0, np.int64), onset)


PREP = DetectorSpec(
    name="fake_prep", label="Fake prepare", version="1", produces="onset",
    params=(ParamSpec("scale", "float", 1.0, stage="prepare"),
            ParamSpec("threshold", "float", 5.0)), run=_decide, prepare=_prep)


@pytest.fixture()
def prep_detector():
    registry.register(PREP)
    PREPARES.clear()
    yield PREP
    registry._REGISTRY.pop("fake_prep", None)


def test_prepare_stage_shared_across_decide_params(prep_detector):
    series = _series()[:5]
    specs = [("fake_prep", {"scale": s, "threshold": t}) for s in (1.0, 2.0) for t in (3, 8, 12)]
    rows = batch.run_batch(series, specs, workers=1)
    assert len(PREPARES) == 2 * 5  # one prepare per (series, scale), not per threshold
    for r in rows:  # same answers as each configuration alone
        alone = segview_detect(series[r["series_index"]], r["params"])
        assert r["steady_index"] == alone


def segview_detect(s, params):
    from segview.core.api import detect
    return detect(s, "fake_prep", **params).steady_start


@pytest.mark.shared
def test_kbkssd_on_dask_matches_local_processes(jmh_series, jmh_labels):
    distributed = pytest.importorskip("distributed")
    from segview.core.errors import UnknownMethodError
    try:
        registry.get("kbkssd")
    except UnknownMethodError:
        pytest.skip("kbkssd is not registered")
    series = [jmh_series[k] for k in sorted(jmh_series)[:8]]
    specs = ["kbkssd", ("kbkssd", {"prob_threshold": 0.8})]
    local = batch.run_batch(series, specs, workers=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = batch.run_batch(series, specs, executor=batch.DaskExecutor(client=client))
    assert [r["steady_index"] for r in remote] == [r["steady_index"] for r in local]
    assert [r["change_points"] for r in remote] == [r["change_points"] for r in local]
    # the faithful default reproduces the published reference onsets (labels.csv)
    assert [r["steady_index"] for r in local if r["spec_index"] == 0] == [
        jmh_labels[s.id].onsets["kbkssd_reference"] for s in series]


def test_cancel_keeps_the_finished_rows(fake_detector):
    from segview.core.context import RunContext
    series = _series()
    ctx = RunContext()
    seen = []

    def progress(done, total):
        seen.append(done)
        if done >= 3:
            ctx.cancel()   # cancelled after some chunks finished

    with pytest.raises(batch.BatchCancelled) as exc:
        batch.run_batch(series, [("fake_batch", {"threshold": 5})], executor=batch.SerialExecutor(),
                        progress=progress, ctx=ctx)
    rows, total = exc.value.rows, exc.value.total
    assert total == len(series) and 3 <= len(rows) < total
    expected = _expected(series, 5)
    for row in rows:   # every kept row is a finished, correct run
        assert row["steady_index"] == expected[row["series_index"]] or row["error"]


def test_partial_path_and_eta():
    assert batch.partial_path("out/det.csv").as_posix() == "out/det.partial.csv"
    assert batch.format_eta(batch.eta_seconds(1, 4, 20.0)) == "ETA 1:00"
    assert batch.format_eta(3723) == "ETA 1:02:03"
    assert batch.format_eta(batch.eta_seconds(0, 4, 5.0)) == ""


def test_detect_cli_writes_partial_results_when_interrupted(monkeypatch, tmp_path, fake_detector):
    from segview.cli import detect, main
    real = batch.run_batch

    def interrupted(series, specs, **kw):
        rows = real(series[:2], specs, executor=batch.SerialExecutor())
        raise batch.BatchCancelled(rows, len(series) * len(specs))

    monkeypatch.setattr(detect, "run_batch", interrupted)
    for k in range(4):
        (tmp_path / f"s{k}.json").write_text(str(list(range(30, 0, -1))))
    out = tmp_path / "det.csv"
    code = main.main(["detect", str(tmp_path), "-m", "fake_batch", "-o", str(out)])
    assert code == 130 and not out.exists()
    lines = (tmp_path / "det.partial.csv").read_text().strip().splitlines()
    assert len(lines) == 1 + 2   # header and the two finished runs


def test_builtin_method_specs_travel_by_name():
    import pickle
    ms = batch.MethodSpec.of("pelt")
    back = pickle.loads(pickle.dumps(ms))
    assert back.spec is registry.get("pelt") and back.params == ms.params
    assert len(pickle.dumps(ms)) < 2000   # name and parameters, not the spec's functions


def test_a_spec_holding_a_lambda_still_runs_in_local_processes():
    import dataclasses
    spec = registry.get("pelt")
    odd = dataclasses.replace(spec, min_length=lambda p: 4)   # what pickle cannot send
    registry._REGISTRY["pelt"] = odd
    try:
        rows = batch.run_batch([Series(np.r_[np.zeros(40), np.ones(40)], id="a")], ["pelt"],
                               workers=2)
    finally:
        registry._REGISTRY["pelt"] = spec
    assert rows[0]["error"] is None and rows[0]["change_points"] == [40]


def test_local_processes_after_a_parallel_kernel_ran_here():
    # op's parallel kernel starts numba's OpenMP threads in this process; forking then aborts
    from segview.core.api import detect
    y = np.r_[np.zeros(300), np.ones(300)] + np.random.default_rng(0).normal(0, 0.1, 600)
    detect(y, "op", threads=2, search="dp")  # the threaded programme (auto prunes in 1 thread)
    rows = batch.run_batch([Series(y, id="a")], ["pelt"], workers=2)
    assert rows[0]["error"] is None and rows[0]["change_points"]


@pytest.mark.skipif(not __import__("sys").platform.startswith("linux"),
                    reason="fork server: Linux only")
def test_local_workers_start_from_the_fork_server_unless_told_to_spawn(monkeypatch):
    # issue 15.6: forked from a fresh server that loaded numba once (never a fork of this
    # process); SEGVIEW_WORKER_START=spawn is the escape hatch
    assert batch._pool_context().get_start_method() == "forkserver"
    monkeypatch.setenv("SEGVIEW_WORKER_START", "spawn")
    assert batch._pool_context().get_start_method() == "spawn"
