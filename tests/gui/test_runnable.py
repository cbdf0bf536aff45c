"""The one background-job runnable of the GUI (segview/gui/runnable.py): each outcome of a job's
work reaches the GUI thread as exactly one signal, carrying the job's tag."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QThreadPool

from segview.core.errors import Cancelled, InputError
from segview.core.workers.runner import DetectorBug
from segview.gui.runnable import Job


class _Job(Job):
    def __init__(self, outcome):
        super().__init__(tag=("lane", 7))
        self.outcome = outcome

    def compute(self):
        self.report(0.5, "half way")
        if isinstance(self.outcome, BaseException):
            raise self.outcome
        return self.outcome


def _run(qtbot, job):
    seen = []
    for name in ("finished", "failed", "cancelled"):
        getattr(job.signals, name).connect(lambda *a, n=name: seen.append((n, *a)))
    progress = []
    job.signals.progress.connect(lambda *a: progress.append(a))
    pool = QThreadPool()
    with qtbot.waitSignals([job.signals.progress], timeout=10_000):
        pool.start(job)
    qtbot.waitUntil(lambda: len(seen) >= 1, timeout=10_000)
    pool.waitForDone(10_000)
    assert job.done.is_set()
    assert progress == [(("lane", 7), 0.5, "half way")]
    return seen


@pytest.mark.parametrize("outcome, expected", [
    (42, ("finished", ("lane", 7), 42)),
    (Cancelled(), ("cancelled", ("lane", 7))),
    (InputError("series", "is empty"), ("failed", ("lane", 7), "series: is empty", True)),
    (DetectorBug("Traceback: boom in a worker"),
     ("failed", ("lane", 7), "Traceback: boom in a worker", False)),
])
def test_each_outcome_is_one_signal_with_the_tag(qtbot, outcome, expected):
    assert _run(qtbot, _Job(outcome)) == [expected]


def test_a_bug_is_reported_with_its_traceback_not_raised(qtbot):
    (seen,) = _run(qtbot, _Job(ZeroDivisionError("bad arithmetic")))
    name, tag, text, recoverable = seen
    assert (name, tag, recoverable) == ("failed", ("lane", 7), False)
    assert "Traceback" in text and "ZeroDivisionError: bad arithmetic" in text
