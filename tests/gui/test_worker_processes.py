"""segview's own detectors run in worker processes behind the job runner: the explorer shows the
same results, survives a worker that dies, cancels a running worker job on close, and runs
"all series" through the workers."""
from __future__ import annotations

import os
import signal

import pytest

from segview.core import registry
from segview.core.api import run_spec
from segview.core.io import load


@pytest.fixture
def series(sample):
    return [s for s in load(sample) if len(s) == 3000][:3]


def test_real_detectors_run_in_worker_processes(qtbot, make_window, series):
    spec = registry.get("pelt")
    win = make_window(spec)
    assert win.runner.processes is not None, "the explorer should use the worker processes"
    assert win.runner.processes.worker_pids(), "worker processes were started with the window"
    with qtbot.waitSignal(win.overlay_updated, timeout=60000):
        win.set_dataset(series)
    expected = run_spec(spec, series[0], spec.defaults())
    assert win.lanes["pelt"].positions() == [float(c) for c in expected.change_points]


def test_a_dead_worker_is_a_message_and_the_next_run_works(qtbot, make_window, series):
    spec = registry.get("cpssd")  # seconds per run, reports progress: time to kill its worker
    win = make_window(spec)
    procs = win.runner.processes
    restarts = procs.restarts
    messages: list[str] = []
    win.message_posted.connect(messages.append)
    with qtbot.waitSignal(win.runner.progress, timeout=60000):
        win.set_dataset(series)
    with qtbot.waitSignal(win.runner.job_failed, timeout=60000) as failed:
        for pid in procs.worker_pids():
            os.kill(pid, signal.SIGKILL)
    assert "worker process ended unexpectedly" in failed.args[1]
    assert any("worker process" in m for m in messages)
    assert procs.restarts == restarts + 1
    assert win.dataset_panel.model.cell(series[0].id, "cpssd") == "error"
    expected = run_spec(spec, series[1], spec.defaults())
    with qtbot.waitSignal(win.overlay_updated, timeout=120000):
        win.next_series()  # a new pool answers
    assert win.results[(series[1].id, "cpssd")].steady_start == expected.steady_start


def test_closing_during_a_worker_job_leaves_no_thread(qtbot, make_window, series):
    spec = registry.get("cpssd")
    win = make_window(spec)
    with qtbot.waitSignal(win.runner.progress, timeout=60000):
        win.set_dataset(series)
    assert win.runner.running_lanes()
    win.close()
    assert win.runner.pool.activeThreadCount() == 0


def test_run_on_all_series_goes_through_the_workers(qtbot, make_window, series):
    specs = [registry.get("kbkssd"), registry.get("binseg")]
    win = make_window(*specs)
    with qtbot.waitSignal(win.overlay_updated, timeout=60000):
        win.set_dataset(series)
    win.runner.cancel_all()
    win.model.forget_results()
    done: list[tuple[str, str]] = []
    win.runner.batch_item.connect(lambda sid, name, params, res: done.append((sid, name)))
    with qtbot.waitSignal(win.runner.batch_finished, timeout=120000) as fin:
        assert win.run_on_all()
    assert fin.args == [False]
    assert sorted(done) == sorted((s.id, sp.name) for s in series for sp in specs)
    for s in series:
        for sp in specs:
            want = run_spec(sp, s, sp.defaults())
            got = win.results[(s.id, sp.name)]
            assert got.steady_start == want.steady_start
            assert got.change_points.tolist() == want.change_points.tolist()


def test_without_worker_processes_the_explorer_uses_threads(qtbot, monkeypatch, make_window,
                                                           series):
    from segview.core.workers import runner as procpool
    from segview.gui import jobs

    def refuse(self):
        raise OSError("process creation not permitted")

    monkeypatch.setattr(jobs, "_SHARED_PROCESSES", [])
    monkeypatch.setattr(procpool.ProcessRunner, "start", refuse)
    monkeypatch.setenv("SEGVIEW_IN_PROCESS", "")
    assert jobs.shared_processes() is None
    assert jobs.in_process_only()  # decided once, not retried for every window
    spec = registry.get("binseg")
    win = make_window(spec)
    assert win.runner.processes is None
    with qtbot.waitSignal(win.overlay_updated, timeout=60000):
        win.set_dataset(series)
    expected = run_spec(spec, series[0], spec.defaults())
    assert win.lanes["binseg"].positions() == [float(c) for c in expected.change_points]
