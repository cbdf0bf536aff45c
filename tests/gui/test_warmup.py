"""The first launch narrates its warm-up (worker start, numba compilation) in the status bar."""
from __future__ import annotations

from segview.core.workers.runner import PHASE_COMPILING, PHASE_IMPORTING, PHASE_READY
from segview.gui import warmup
from segview.gui.warmup import WarmupStatus, describe


def test_describe_names_what_the_workers_do():
    assert describe([], 2) == ("starting 2 worker processes…", False)
    text, ready = describe([(PHASE_IMPORTING, "importing the detectors"),
                            (PHASE_COMPILING, "compiling numba kernel step (first run only)")], 2)
    assert not ready and text.startswith("compiling numba kernel step") and "0 of 2" in text
    text, ready = describe([(PHASE_READY, "ready"), (PHASE_IMPORTING, "importing the detectors")], 2)
    assert not ready and text == "importing the detectors · 1 of 2 workers ready…"
    assert describe([(PHASE_READY, "ready")] * 2, 2)[1]


class FakePool:
    workers = 2
    closed = False
    started_at = None

    def __init__(self):
        self.status, self.calls_started, self.calls_done = [], 1, 0

    def warmup_status(self):
        return list(self.status)


def test_status_label_follows_the_phases_and_hides_when_done(qtbot, monkeypatch):
    monkeypatch.setattr(warmup, "SETTLE_S", 0.0)
    pool = FakePool()
    label = WarmupStatus(pool)
    qtbot.addWidget(label)
    assert "starting 2 worker processes" in label.text()
    pool.status = [(PHASE_COMPILING, "compiling numba kernel k (first run only)"),
                   (PHASE_READY, "ready")]
    label.refresh()
    assert "compiling numba kernel k" in label.text() and "1 of 2 workers ready" in label.text()
    pool.status = [(PHASE_READY, "ready")] * 2
    label.refresh()
    assert "waiting for the first results" in label.text()   # no result yet
    pool.calls_done = 1
    label.refresh()
    label.refresh()
    assert label.text().startswith("Warm-up done in") and label.finished_after is not None
    assert not label.timer.isActive()
