"""What the first launch is waiting for, shown in the status bar (issue 12 item 8).

On a fresh install the window used to sit silent for most of a minute while the detector worker
processes started, imported the detectors and numba compiled every kernel on its first call.
:class:`WarmupStatus` polls the worker pool's phases (:meth:`ProcessRunner.warmup_status`) and
says what is happening, with the elapsed time::

    Warming up: starting 2 worker processes… 1.2 s
    Warming up: compiling numba kernel step_decision (first run only) · 1 of 2 workers ready… 4.0 s

and "Warm-up done in 6.3 s" once the first results came and every worker has been ready, with
nothing compiling, for a second (then it hides).
Results still appear one by one as each detector finishes: the method list and the plot update
per result, so the user sees progress while slower methods (Monte Carlo critical values, CROPS)
keep running; their own progress messages reach the progress bar.
"""
from __future__ import annotations

import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QWidget

from ..core.workers.runner import PHASE_COMPILING, PHASE_READY, ProcessRunner

POLL_MS = 200
DONE_SHOWN_MS = 6000
SETTLE_S = 1.0   # every worker ready (nothing compiling) this long: warm-up is over


def describe(status: list[tuple[int, str]], workers: int) -> tuple[str, bool]:
    """The status-bar text for the workers' ``(phase, text)`` list, and whether they are all idle
    (ready, nothing compiling)."""
    if not status:
        return f"starting {workers} worker processes…", False
    ready = sum(phase == PHASE_READY for phase, _ in status)
    compiling = [text for phase, text in status if phase == PHASE_COMPILING]
    if ready == workers and len(status) >= workers:
        return f"{workers} workers ready", True
    if compiling:
        what = compiling[0]
    else:
        busy = [text for phase, text in status if phase != PHASE_READY]
        what = busy[0] if busy else f"starting {workers} worker processes"
    return f"{what} · {ready} of {workers} workers ready…", False


class WarmupStatus(QLabel):
    """A status-bar label that narrates the worker pool's warm-up, then hides itself."""

    def __init__(self, processes: ProcessRunner, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.processes = processes
        self.start = processes.started_at or time.monotonic()
        self.finished_after: float | None = None
        self.ready_since: float | None = None
        self.setObjectName("warmupStatus")
        self.timer = QTimer(self)
        self.timer.setInterval(POLL_MS)
        self.timer.timeout.connect(self.refresh)
        self.refresh()
        self.timer.start()

    def refresh(self) -> None:
        if self.processes.closed:
            self.timer.stop()
            self.hide()
            return
        text, ready = describe(self.processes.warmup_status(), self.processes.workers)
        now = time.monotonic()
        elapsed = now - self.start
        if not ready or self.processes.calls_done == 0 and self.processes.calls_started > 0:
            self.ready_since = None  # still starting, compiling, or the first results pending
        elif self.ready_since is None:
            self.ready_since = now
        if self.ready_since is not None and now - self.ready_since >= SETTLE_S:
            self.finished_after = self.ready_since - self.start
            self.timer.stop()
            self.setText(f"Warm-up done in {self.finished_after:.1f} s")
            QTimer.singleShot(DONE_SHOWN_MS, self.hide)
            return
        if ready:
            text = "waiting for the first results…"
        self.setText(f"Warming up: {text} {elapsed:.1f} s")
        self.show()
