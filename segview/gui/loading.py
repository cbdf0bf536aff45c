"""Opening large inputs without freezing the explorer: the files are read on a worker thread.

A folder of thousands of files or a file of millions of points takes seconds to read; on the GUI
thread that is a frozen window. :class:`BackgroundLoader` runs :func:`segview.core.io.load` on a
private one-thread pool with a :class:`~segview.core.context.RunContext` (progress per file,
cancellation between files) and shows the progress in the status bar with a Cancel button (Esc
cancels too, through the window's "Cancel running jobs"). The worker only reads files and builds
:class:`~segview.core.model.Series`; it never touches a widget. Its signals arrive on the GUI
thread (queued), where the window installs the dataset.

Small inputs (:func:`is_small`) are still read synchronously, so an ``open_paths`` of a few files
has its result at once.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, Signal, Slot
from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QStatusBar

from ..core.context import RunContext
from ..core.errors import MissingValuesError, RecoverableError
from ..core.io import load
from .runnable import Job, JobSignals

#: Inputs up to this many files and bytes are read on the GUI thread (a few hundred ms at most).
SMALL_FILES = 400
SMALL_BYTES = 8 * 2**20


def is_small(paths: list[str], max_files: int | None = None, max_bytes: int | None = None) -> bool:
    """True when ``paths`` hold at most ``max_files`` files and ``max_bytes`` bytes (default
    :data:`SMALL_FILES`, :data:`SMALL_BYTES`; the walk stops as soon as either is exceeded, so a
    huge folder is not listed twice)."""
    max_files = SMALL_FILES if max_files is None else max_files
    max_bytes = SMALL_BYTES if max_bytes is None else max_bytes
    files = 0
    size = 0
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for root, dirs, names in os.walk(p):
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                for n in names:
                    files += 1
                    try:
                        size += os.stat(os.path.join(root, n)).st_size
                    except OSError:
                        pass
                    if files > max_files or size > max_bytes:
                        return False
        else:
            files += 1
            try:
                size += p.stat().st_size
            except OSError:
                pass  # missing or unreadable: load() names the problem at once
        if files > max_files or size > max_bytes:
            return False
    return True


#: File > Missing values: (rule, menu text, status tip); None reports a file with gaps
FILL_CHOICES: tuple[tuple[str | None, str, str], ...] = (
    (None, "&Report the file (do not open it)",
     "a file with missing values is named in Messages and not opened"),
    ("linear", "Fill &linearly", "each gap takes the straight line between its neighbours"),
    ("previous", "Carry the &previous value forward", "each gap takes the last value before it"),
)
#: how a missing-value error says to choose a rule in the explorer (the menu above)
FILL_HINT = ("choose File > Missing values (TCPD) > Fill linearly, or Carry the previous value "
             "forward, then open it again")


def in_gui_words(err: object) -> object:
    """A missing-value error names the explorer's menu (instead of the library's
    ``fill_missing=`` argument); anything else is returned as it is."""
    return err.with_hint(FILL_HINT) if isinstance(err, MissingValuesError) else err


class _LoadJob(Job):
    """Reads the files (tag: the load's generation; result: the Dataset)."""

    def __init__(self, gen: int, paths: list[str], options: dict[str, Any], ctx: RunContext,
                 signals: JobSignals) -> None:
        super().__init__(gen, ctx, signals)
        self.gen, self.paths, self.options = gen, paths, options

    def compute(self) -> object:
        try:
            return load(self.paths, ctx=self.ctx, **self.options)
        except MissingValuesError as err:
            raise in_gui_words(err) from None
        except MemoryError:
            raise RecoverableError("not enough memory to load " + ", ".join(self.paths)) from None


class BackgroundLoader(QObject):
    """One background load at a time; a new :meth:`start` cancels the previous one.

    Signals (GUI thread): ``loaded(paths, dataset)``, ``failed(paths, message)``,
    ``cancelled(paths)`` and ``done()`` after any of them.
    """

    loaded = Signal(object, object)
    failed = Signal(object, str)
    cancelled = Signal(object)
    done = Signal()

    def __init__(self, status_bar: QStatusBar, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setMaxThreadCount(1)
        self.signals = JobSignals()  # no parent: the pending job may outlive a closed window
        self.signals.progress.connect(self._on_progress)
        self.signals.finished.connect(self._on_finished)
        self.signals.failed.connect(self._on_failed)
        self.signals.cancelled.connect(self._on_cancelled)
        self.gen = 0
        self.ctx: RunContext | None = None
        self.paths: list[str] = []
        self._jobs: list[_LoadJob] = []
        self.label = QLabel(status_bar)
        self.bar = QProgressBar(status_bar)
        self.bar.setMaximumWidth(160)
        self.bar.setRange(0, 1000)
        self.button = QPushButton("Cancel", status_bar)
        self.button.setToolTip("Stop loading (Esc)")
        self.button.clicked.connect(self.cancel)
        for w in (self.label, self.bar, self.button):
            status_bar.addPermanentWidget(w)
            w.hide()

    def busy(self) -> bool:
        return self.ctx is not None

    def start(self, paths: list[str], **options: Any) -> None:
        """Read ``paths`` on the worker thread (``options`` go to :func:`load`)."""
        self.cancel(quiet=True)
        self.gen += 1
        gen = self.gen
        self.paths = list(paths)
        self.ctx = RunContext(on_progress=lambda f, m: self.signals.progress.emit(gen, f, m),
                              min_interval=0.1)
        job = _LoadJob(gen, self.paths, options, self.ctx, self.signals)
        self._jobs.append(job)
        names = ", ".join(Path(p).name or str(p) for p in self.paths)
        self.label.setText(f"Loading {names}…")
        self.bar.setRange(0, 0)  # busy until the first progress report
        for w in (self.label, self.bar, self.button):
            w.show()
        self.pool.start(job)

    def cancel(self, quiet: bool = False) -> bool:
        """Stop the running load (True when there was one); its files are dropped."""
        if self.ctx is None:
            return False
        self.ctx.cancel()
        self.ctx = None
        self._hide()
        if not quiet:
            self.cancelled.emit(self.paths)
            self.done.emit()
        return True

    def shutdown(self, msecs: int = 5000) -> bool:
        """Cancel and wait for the worker (at window close)."""
        self.cancel(quiet=True)
        return self.pool.waitForDone(msecs)

    def _hide(self) -> None:
        for w in (self.label, self.bar, self.button):
            w.hide()

    def _current(self, gen: int) -> bool:
        return gen == self.gen and self.ctx is not None

    @Slot(object, float, str)
    def _on_progress(self, gen: int, fraction: float, message: str) -> None:
        if not self._current(gen):
            return
        if self.bar.maximum() == 0 and len(self.paths) == 1 and not Path(self.paths[0]).is_dir():
            return  # one file: no per-file progress, keep the busy bar
        self.bar.setRange(0, 1000)
        self.bar.setValue(int(1000 * fraction))
        self.label.setText(f"Loading: {message}")

    def _ended(self, gen: int) -> bool:
        """Forget the finished job; True when it is the current load (which then ends here)."""
        self._jobs = [j for j in self._jobs if j.gen > gen]
        if not self._current(gen):
            return False  # superseded or cancelled: its outcome is dropped
        self.ctx = None
        self._hide()
        return True

    @Slot(object, object)
    def _on_finished(self, gen: int, ds: object) -> None:
        if self._ended(gen):
            self.loaded.emit(self.paths, ds)
            self.done.emit()

    @Slot(object, str, bool)
    def _on_failed(self, gen: int, message: str, recoverable: bool) -> None:
        if not recoverable:  # a loader bug: its traceback's last line names it
            message = (message.strip().splitlines() or ["failed"])[-1]
        if self._ended(gen):
            self.failed.emit(self.paths, message)
            self.done.emit()

    @Slot(object)
    def _on_cancelled(self, gen: int) -> None:
        self._ended(gen)  # cancel() already reported it
