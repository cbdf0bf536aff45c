"""Detector runs in worker processes: same answers as in-process runs, cancellation and progress
across the process boundary, errors carried back, a dead worker replaced, clean shutdown."""
from __future__ import annotations

import os
import signal
import sys

import numpy as np
import pytest

from segview.core import registry
from segview.core.api import run_spec
from segview.core.context import RunContext
from segview.core.errors import Cancelled, InputError, RecoverableError
from segview.core.io import load
from segview.core.model import Series
from segview.core.workers.pool import WorkerPool
from segview.core.workers.runner import (DetectorBug, Outcome, ProcessRunner, SharedFlag,
                                          WorkerDied, runs_in_worker, unpack)
from segview.core.resources import sample_dir
from segview.core.synthetic import warmup_plateau


@pytest.fixture(scope="module")
def procs():
    runner = ProcessRunner(workers=2, warm=False).start()
    yield runner
    runner.shutdown()
    assert runner.worker_pids() == []


@pytest.fixture(scope="module")
def jmh() -> Series:
    return load(sample_dir() / "s0065.json")[0]


@pytest.mark.parametrize("name", ["kbkssd", "pelt", "binseg", "fisher"])
def test_worker_result_equals_in_process_result(procs, jmh, name):
    spec = registry.get(name)
    params = spec.defaults()
    expected = run_spec(spec, jmh, params)
    result, state = procs.run(spec, jmh, params, RunContext())
    assert result.change_points.tolist() == expected.change_points.tolist()
    assert result.steady_start == expected.steady_start
    assert [t.name for t in result.tracks] == [t.name for t in expected.tracks]
    for got, want in zip(result.tracks, expected.tracks):
        np.testing.assert_array_equal(got.y, want.y)
    assert (state is not None) == (spec.prepare is not None)


def test_cached_prepare_state_is_used_by_the_worker(procs, jmh):
    spec = registry.get("kbkssd")
    first, state = procs.run(spec, jmh, spec.defaults(), RunContext())
    stricter = spec.coerce({"prob_threshold": 0.99})
    again, state2 = procs.run(spec, jmh, stricter, RunContext(), prepared=state)
    assert state2 is None  # nothing recomputed, nothing sent back
    assert again.steady_start == run_spec(spec, jmh, stricter).steady_start


def test_cancel_reaches_the_worker_and_the_pool_stays_usable(procs):
    spec = registry.get("cpssd")  # seconds of work with ctx.check() in its loops
    s, _ = warmup_plateau(n=3000, seed=3)
    ctx = RunContext()
    seen: list[float] = []

    def on_progress(fraction: float, message: str) -> None:
        seen.append(fraction)
        ctx.cancel()  # cancel at the first progress report

    # ten times the bootstrap: the run must outlast the parent's polling by far, whatever the
    # machine (since CP-SSD got faster the default run could end before its first report was seen)
    slow = spec.coerce({"bootstrap_resamples": 100_000})
    call = procs.submit(spec, s, slow)
    with pytest.raises(Cancelled):
        call.wait(lambda: ctx.cancelled, on_progress)
    assert seen and 0 < seen[0] <= 1
    assert call.future.result(timeout=60).status == "cancelled"  # the worker stopped, not finished
    ok, _ = procs.run(registry.get("pelt"), s, registry.get("pelt").defaults(), RunContext())
    assert ok.change_points.size >= 0


def test_progress_messages_cross_the_process_boundary(procs):
    spec = registry.get("cpssd")
    s, _ = warmup_plateau(n=3000, seed=4)
    reports: list[tuple[float, str]] = []
    ctx = RunContext(on_progress=lambda f, m: reports.append((f, m)))
    # long enough that the parent polls while the worker still runs (see the test above)
    result, _ = procs.run(spec, s, spec.coerce({"bootstrap_resamples": 100_000}), ctx)
    assert result.detector == "cpssd"
    assert reports, "no progress reported"
    fractions = [f for f, _ in reports]
    assert all(0 < f <= 1 for f in fractions)
    assert any(m for _, m in reports)


def test_input_error_comes_back_as_a_recoverable_error(procs):
    spec = registry.get("kbkssd")
    short = Series(np.arange(5.0), id="tiny")
    with pytest.raises(RecoverableError, match="tiny"):
        procs.run(spec, short, spec.defaults(), RunContext())


def test_unpack_maps_every_status():
    assert unpack(Outcome("ok", 1, 2)) == (1, 2)
    with pytest.raises(Cancelled):
        unpack(Outcome("cancelled"))
    with pytest.raises(RecoverableError, match="bad input"):
        unpack(Outcome("recoverable", text="bad input"))
    with pytest.raises(DetectorBug, match="ZeroDivisionError"):
        unpack(Outcome("bug", text="Traceback ...\nZeroDivisionError: x"))


def test_a_killed_worker_is_reported_and_replaced():
    runner = ProcessRunner(workers=1, warm=False).start()
    try:
        spec = registry.get("cpssd")
        s, _ = warmup_plateau(n=3000, seed=5)
        started: list[float] = []
        call = runner.submit(spec, s, spec.defaults())

        def on_progress(fraction: float, message: str) -> None:
            if not started:  # the worker is busy with our call: kill it
                started.append(fraction)
                for pid in runner.worker_pids():
                    os.kill(pid, signal.SIGKILL)

        with pytest.raises(WorkerDied, match="ended unexpectedly"):
            call.wait(lambda: False, on_progress)
        assert runner.restarts == 1
        pelt = registry.get("pelt")
        result, _ = runner.run(pelt, s, pelt.defaults(), RunContext())
        assert result.detector == "pelt"
    finally:
        runner.shutdown()
    assert runner.worker_pids() == []


def test_only_segviews_own_detectors_run_in_workers():
    assert all(runs_in_worker(s) for s in registry.all_specs())
    from tests.fakes import FAKE_ONSET

    assert not runs_in_worker(FAKE_ONSET)  # registered at run time: a worker would not know it


def test_shared_flag_behaves_like_an_event():
    import ctypes
    import multiprocessing as mp

    flags = mp.get_context("spawn").RawArray(ctypes.c_int8, 4)
    flag = SharedFlag(flags, 2)
    assert not flag.is_set() and not flag.wait(0.01)
    flag.set()
    assert flag.is_set() and flag.wait(0.01) and flags[2] == 1 and flags[1] == 0
    flag.clear()
    assert not flag.is_set()


def test_input_errors_are_input_errors_in_process_too():
    # the in-process path of the same helper raises the typed error (the worker sends text)
    from segview.core.workers.runner import compute

    spec = registry.get("kbkssd")
    with pytest.raises(InputError):
        compute(spec, Series(np.arange(5.0), id="tiny"), spec.defaults(), RunContext())


class _BrokenPool:
    """Stands in for a pool whose worker died while idle: every submit raises."""

    _broken = "a worker died"
    _processes: dict = {}

    def submit(self, *args, **kwargs):
        from concurrent.futures.process import BrokenProcessPool

        raise BrokenProcessPool(self._broken)

    def shutdown(self, wait=True, cancel_futures=False):
        pass


def test_submit_replaces_a_pool_found_broken_and_never_loses_a_slot(monkeypatch):
    from concurrent.futures.process import BrokenProcessPool

    runner = ProcessRunner(workers=1, warm=False)
    free = len(runner._free)
    try:
        runner.pool._executor = _BrokenPool()  # a worker died while the pool was idle
        pelt = registry.get("pelt")
        s = Series(np.r_[np.zeros(50), np.ones(50) * 5], id="step")
        result, _ = runner.run(pelt, s, pelt.defaults(), RunContext())
        assert result.change_points.tolist() == run_spec(pelt, s, pelt.defaults()).change_points.tolist()
        assert runner.restarts == 1
        monkeypatch.setattr(WorkerPool, "executor", property(lambda self: _BrokenPool()))
        with pytest.raises(BrokenProcessPool):
            runner.submit(pelt, s, pelt.defaults())  # the retry fails too
        assert len(runner._free) == free  # every slot came back
    finally:
        monkeypatch.undo()
        runner.shutdown()


def test_workers_report_their_warm_up_phase(procs):
    from segview.core.workers.runner import PHASE_READY
    procs.run(registry.get("pelt"), Series(np.r_[np.zeros(50), np.ones(50)], id="w"),
              registry.get("pelt").defaults(), RunContext())
    status = procs.warmup_status()
    assert 1 <= len(status) <= procs.workers
    assert any(phase == PHASE_READY and text == "ready" for phase, text in status)


def test_a_numba_compilation_is_reported_as_phase_and_progress(monkeypatch):
    import ctypes
    import multiprocessing as mp

    from numba import njit
    from numba.core import event

    from segview.core.workers import runner as pp
    texts = mp.RawArray(ctypes.c_char, pp.WORKER_SLOTS * pp.MESSAGE_BYTES)
    phases = mp.RawArray(ctypes.c_int8, pp.WORKER_SLOTS)
    fractions = mp.RawArray(ctypes.c_double, 4)
    messages = mp.RawArray(ctypes.c_char, 4 * pp.MESSAGE_BYTES)
    flags = mp.RawArray(ctypes.c_int8, 4)
    fake = {"phases": phases, "texts": texts, "index": 3, "fractions": fractions,
            "messages": messages, "flags": flags, "slot": 2}
    monkeypatch.setattr(pp, "_SHARED", fake)
    pp._set_phase(pp.PHASE_READY, "ready")
    seen = []

    class Spy(event.Listener):   # registered after pp's listener: sees its published state
        def on_start(self, ev):
            seen.append((phases[3], bytes(texts[3 * pp.MESSAGE_BYTES:4 * pp.MESSAGE_BYTES])))

        def on_end(self, ev):
            pass

    listener, spy = pp._watch_compilation(), Spy()
    event.register("numba:compile", spy)
    try:
        def freshly_compiled_kernel(x):
            return x + 1

        freshly_compiled_kernel.__module__ = "segview.core.detectors.fake"   # one of segview's
        assert njit(freshly_compiled_kernel)(1) == 2
    finally:
        event.unregister("numba:compile", listener)
        event.unregister("numba:compile", spy)
    assert seen and seen[0][0] == pp.PHASE_COMPILING
    assert b"compiling numba kernel freshly_compiled_kernel" in seen[0][1]
    assert phases[3] == pp.PHASE_READY                       # restored when compiled
    assert b"freshly_compiled_kernel" in bytes(messages[2 * pp.MESSAGE_BYTES:3 * pp.MESSAGE_BYTES])
    assert 0 < fractions[2] < 0.01


def _worker_facts() -> tuple[int, bool, bool, object]:
    import multiprocessing.forkserver as fs

    return (os.getppid(), "segview.core.workers.preload" in sys.modules,
            "segview.core.detectors._kbkssd_kernels" in sys.modules,
            fs._forkserver._forkserver_alive_fd)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork server: Linux only")
def test_workers_are_forked_from_a_server_that_loaded_numba_and_the_kernels():
    # issue 15.6: numba and the kernel modules are imported once, by the fork server, and the
    # workers share those pages; a worker keeps no write end of the server's alive pipe (it would
    # keep the server, its parent, alive after this process died)
    runner = ProcessRunner(workers=1, warm=False)
    try:
        parent, preloaded, kernels, alive_fd = runner.pool.executor.submit(
            _worker_facts).result(timeout=120)
    finally:
        runner.shutdown()
    assert parent != os.getpid()  # the server's child, not ours
    assert preloaded and kernels  # before this worker ran any detector
    assert alive_fd is None


def test_an_abandoned_call_that_ignores_cancel_stops_its_pool_and_queued_calls_still_answer():
    """A cancelled call whose code never looks at the cancel flag (time.sleep here; a long
    numba kernel in the explorer) must not keep a worker busy for minutes: after the grace
    period its pool is stopped, and a call queued behind it runs on a new pool."""
    import time

    runner = ProcessRunner(workers=1, warm=False).start()
    try:
        first = unpack(runner.submit_call(os.getpid).wait(lambda: False))[0]
        stuck = runner.submit_call(time.sleep, 120)
        queued = runner.submit_call(os.getpid)  # behind the stuck call in the only worker
        start = time.monotonic()
        with pytest.raises(Cancelled):  # as the explorer's runnable: cancelled once it runs
            stuck.wait(stuck.future.running)
        timer = runner.abandon([stuck], grace_s=0.3)
        assert timer is not None
        timer.join()
        assert runner.reaps == 1
        again = unpack(queued.wait(lambda: False))[0]
        assert again != first and time.monotonic() - start < 60
        with pytest.raises(ProcessLookupError):
            os.kill(first, 0)  # the worker that ran the abandoned call is gone
    finally:
        runner.shutdown()
    assert runner.worker_pids() == []


def test_abandoning_calls_that_already_ended_stops_nothing(procs):
    call = procs.submit_call(os.getpid)
    unpack(call.wait(lambda: False))
    assert procs.abandon([call]) is None and procs.reaps == 0
