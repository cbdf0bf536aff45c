"""Issue 30, item 7: the Dask scheduler lost mid-run is a named error, not a raw
``FutureCancelledError``; what finished is kept (``detect -o`` writes it as ``OUT.partial.csv``).

A real in-process ``LocalCluster`` is closed after the first task's rows arrived (from the batch's
own progress callback, in the calling thread, so the moment is deterministic); the tasks still
out are blocked on an event until then, so they can only end by the scheduler's loss.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from segview.core import registry
from segview.core.errors import RecoverableError
from segview.core.evaluation import batch
from segview.core.model import Series
from segview.core.params import ParamSpec
from segview.core.registry import DetectorSpec
from segview.core.result import DetectionResult

distributed = pytest.importorskip("distributed")

RELEASE = threading.Event()


def _run(values, params, ctx):
    """Onset = the series' first value (as an index); every series but the first waits until the
    test releases it (bounded, so a worker thread never hangs the test session)."""
    if values[0] != 0:
        RELEASE.wait(30)
    return DetectionResult("fake_lost", params, np.array([], dtype=np.int64), int(values[0]))


FAKE = DetectorSpec(name="fake_lost", label="Fake", version="1", produces="onset",
                    params=(ParamSpec("k", "int", 1, low=0, high=10),), run=_run, min_length=3)


@pytest.fixture()
def fake_detector():
    registry.register(FAKE)
    RELEASE.clear()
    yield FAKE
    RELEASE.set()
    registry._REGISTRY.pop("fake_lost", None)


def _series():
    return [Series(np.full(10, float(k)), id=f"s{k}") for k in range(6)]


def test_a_lost_scheduler_keeps_the_finished_rows_and_names_itself(fake_detector):
    import dask

    # the client gives a lost scheduler this long to come back (30 s by default)
    timeouts = dask.config.set({"distributed.comm.timeouts.connect": "3s"})
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                       dashboard_address=None)
    address = cluster.scheduler_address
    stopped: list[int] = []

    def progress(done: int, total: int) -> None:
        if done >= 1 and not stopped:
            stopped.append(done)  # the scheduler goes away with 5 runs still out (its workers
            cluster.sync(cluster.scheduler.close)  # stay, blocked: only the scheduler is lost)

    try:
        with pytest.raises(RecoverableError) as info:  # not a raw FutureCancelledError
            batch.run_batch(_series(), ["fake_lost"], executor=address, progress=progress)
    finally:
        RELEASE.set()
        cluster.close()
        timeouts.__exit__(None, None, None)
    err = info.value
    assert isinstance(err, batch.BatchIncomplete) and isinstance(err.lost, batch.ExecutorLost)
    assert address in str(err) and "lost" in str(err)
    assert err.total == 6 and [r["series_id"] for r in err.rows] == ["s0"]
    assert err.rows[0]["steady_index"] == 0


def test_detect_writes_the_partial_csv_and_exits_1(monkeypatch, tmp_path, capsys, fake_detector):
    from segview.cli import detect, main

    def lost(series, specs, **kw):  # what run_batch raises when the scheduler goes away
        rows = batch.run_batch(series[:2], specs, executor=batch.SerialExecutor())
        raise batch.BatchIncomplete(rows, len(series) * len(specs), batch.ExecutorLost(
            "scheduler tcp://10.0.0.1:8786", "connection lost mid-run"))

    monkeypatch.setattr(detect, "run_batch", lost)
    RELEASE.set()
    for k in range(4):
        (tmp_path / f"s{k}.json").write_text(str([[float(k)] * 10]))
    out = tmp_path / "det.csv"
    assert main.main(["detect", str(tmp_path), "-m", "fake_lost", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "scheduler tcp://10.0.0.1:8786: connection lost mid-run" in err
    assert "2 of 4 runs" in err and str(tmp_path / "det.partial.csv") in err
    assert not out.exists()
    assert len((tmp_path / "det.partial.csv").read_text().splitlines()) == 1 + 2
