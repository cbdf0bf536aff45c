"""JobRunner: coalescing, stale-result dropping, prepare cache, errors, batch, shutdown."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core.model import Series
from segview.gui.jobs import JobRunner

from . import fakes


@pytest.fixture
def runner(qtbot):
    r = JobRunner(debounce_ms=60)
    yield r
    r.shutdown(5000)


@pytest.fixture
def series() -> Series:
    rng = np.random.default_rng(1)
    return Series(np.r_[np.linspace(10, 1, 200), 1 + 0.05 * rng.random(800)], id="synthetic")


def collect(runner, lane):
    got = []
    runner.result_ready.connect(lambda ln, res: got.append(res) if ln == lane else None)
    return got


def test_rapid_requests_give_one_result_for_the_last_value(qtbot, runner, series):
    spec = fakes.FAKE_SLOW
    lane = (series.id, spec.name)
    got = collect(runner, lane)
    with qtbot.waitSignal(runner.idle, timeout=10000):
        for at in range(101, 121):
            runner.request(series, spec, spec.coerce({"at": at, "ms": 200}))
    assert [r.params["at"] for r in got] == [120]
    assert len(fakes.LOG.calls) <= 2
    assert fakes.LOG.finished[-1]["at"] == 120


def test_stale_result_is_dropped(qtbot, runner, series):
    """Slow first call (blocks, ignores cancel), fast second call: only the second is shown."""
    spec = fakes.FAKE_GATED
    lane = (series.id, spec.name)
    got = collect(runner, lane)
    runner.request(series, spec, spec.coerce({"at": 50}), immediate=True)
    qtbot.waitUntil(lambda: len(fakes.LOG.calls) == 1, timeout=5000)
    runner.request(series, spec, spec.coerce({"at": 150}), immediate=True)
    with qtbot.waitSignal(runner.idle, timeout=10000):
        fakes.GATE.set()
    assert [c["at"] for c in fakes.LOG.finished] == [50, 150]  # the slow one did finish...
    assert [r.params["at"] for r in got] == [150]  # ...but its result was dropped


def test_prepare_runs_once_per_prepare_params(qtbot, runner, series):
    spec = fakes.FAKE_ONSET
    for level in (0.5, 0.3, 0.7):
        with qtbot.waitSignal(runner.result_ready, timeout=5000) as blk:
            runner.request(series, spec, spec.coerce({"level": level}), immediate=True)
        assert blk.args[1].params["level"] == level
    assert fakes.LOG.prepares == 1
    assert len(fakes.LOG.calls) == 3
    assert runner.cache.hits == 2


def test_error_is_reported_and_other_lanes_continue(qtbot, runner, series):
    with qtbot.waitSignal(runner.job_failed, timeout=5000) as blk:
        runner.request(series, fakes.FAKE_BOOM, fakes.FAKE_BOOM.defaults(), immediate=True)
    lane, text, recoverable = blk.args
    assert lane == (series.id, "fake_boom") and "ZeroDivisionError" in text and not recoverable
    with qtbot.waitSignal(runner.result_ready, timeout=5000) as blk:
        runner.request(series, fakes.FAKE_CP, fakes.FAKE_CP.defaults(), immediate=True)
    assert list(blk.args[1].change_points) == list(range(100, 1000, 100))


def test_too_short_series_is_a_recoverable_error(qtbot, runner):
    tiny = Series([1.0], id="tiny")
    with qtbot.waitSignal(runner.job_failed, timeout=5000) as blk:
        runner.request(tiny, fakes.FAKE_ONSET, fakes.FAKE_ONSET.defaults(), immediate=True)
    assert blk.args[2] is True and "at least 2" in blk.args[1]


def test_batch_runs_everything_and_can_be_cancelled(qtbot, runner, series):
    others = [Series(series.values[:500 + 50 * k], id=f"s{k}") for k in range(4)]
    items = []
    runner.batch_item.connect(lambda sid, det, p, res: items.append((sid, det)))
    with qtbot.waitSignal(runner.batch_finished, timeout=10000) as blk:
        runner.run_batch(others, [(fakes.FAKE_CP, fakes.FAKE_CP.defaults())])
    assert blk.args == [False] and sorted(items) == [(f"s{k}", "fake_cp") for k in range(4)]
    slow = [(fakes.FAKE_SLOW, fakes.FAKE_SLOW.coerce({"ms": 2000}))]
    assert runner.run_batch(others, slow)
    qtbot.waitUntil(lambda: len(fakes.LOG.calls) >= 1, timeout=5000)
    with qtbot.waitSignal(runner.batch_finished, timeout=5000) as blk:
        runner.cancel_all()
    assert blk.args == [True]


def test_shutdown_cancels_running_jobs(qtbot, runner, series):
    runner.request(series, fakes.FAKE_SLOW, fakes.FAKE_SLOW.coerce({"ms": 5000}), immediate=True)
    qtbot.waitUntil(lambda: len(fakes.LOG.calls) == 1, timeout=5000)
    assert runner.shutdown(3000)
    assert runner.pool.activeThreadCount() == 0
    assert fakes.LOG.finished == []  # cancelled, not completed


def test_an_in_thread_warmup_analysis_stops_compiling_when_cancelled(qtbot, monkeypatch):
    """Without worker processes the warm-up analysis runs in a pool thread; its first call in a
    process compiles numba kernels for tens of seconds, and a cancel (another benchmark, the
    window closed) used to be noticed only after that: the window closed with the thread still
    running (``test_without_worker_processes_the_explorer_uses_threads`` failed its teardown when
    run alone). A cancelled job now stops at the next compilation."""
    import numba

    from segview.core.context import RunContext
    from segview.gui import jobs

    @numba.njit(cache=False)
    def never_compiled(x):
        return x * 2.0

    compiled: list[float] = []
    cancel_first = {"ctx": None}

    def analysis(benchmark, method, params):  # stands in for the first analysis of a process
        if cancel_first["ctx"] is not None:
            cancel_first["ctx"].cancel()  # the window closes while the analysis starts
        compiled.append(never_compiled(1.0))
        return "result"

    monkeypatch.setattr(jobs, "analyse_benchmark_job", analysis)
    ctx = cancel_first["ctx"] = RunContext()
    job = jobs.WarmupJob(("b", "barrett", 1.0, "absolute"), 1, object(), "barrett", {}, ctx)
    with qtbot.waitSignal(job.signals.cancelled, timeout=5000):
        job.run()  # here, as a pool thread would
    assert compiled == [] and job.done.is_set()
    cancel_first["ctx"] = None
    fresh = jobs.WarmupJob(("b", "barrett", 1.0, "absolute"), 2, object(), "barrett", {},
                           RunContext())
    with qtbot.waitSignal(fresh.signals.finished, timeout=60000):
        fresh.run()
    assert compiled == [2.0]  # not cancelled: the same kernel compiles and runs


def test_prepare_cache_is_bounded_by_bytes_and_keeps_the_newest():
    """kcpa's prepare state is an n x n table (72 MB at 3,000 samples): 64 of them must not stay."""
    from segview.gui.jobs import PrepareCache

    class State:
        def __init__(self, nbytes):
            self.nbytes = nbytes

    cache = PrepareCache(capacity=64, max_bytes=100)
    cache.put("a", State(40))
    cache.put("b", State(40))
    cache.put("c", object())  # no size: counts 0
    assert len(cache) == 3 and cache.nbytes == 80
    assert cache.get("a") is not None  # a is now the most recent; b the oldest sized one
    cache.put("d", State(40))
    assert cache.get("b") is None and cache.get("a") is not None and len(cache) == 3
    grown = cache.get("d")
    grown.nbytes = 500  # a state grown in place (segneigh's layers): alone above the bound
    assert cache.get("d") is grown and len(cache) == 1
