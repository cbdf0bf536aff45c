"""One runnable for every background job of the GUI (detector runs, warm-up analyses, evaluations,
file loads): :class:`Job` runs its :meth:`Job.compute` on a pool thread and reports through a
:class:`JobSignals` object (a QRunnable is not a QObject and cannot emit), whose signals reach
``@Slot`` receivers on the GUI thread queued (design.md section 3).

Each signal carries the job's ``tag``, whatever its receiver needs to tell a current job from a
superseded one (a lane and generation, a load's generation). A job emits exactly one of
``finished(tag, result)``, ``failed(tag, message, recoverable)`` and ``cancelled(tag)``, plus
``progress(tag, fraction, message)`` while it runs, then sets ``done``; the exception ladder is
written once, here:

* :class:`~segview.core.errors.Cancelled` -> ``cancelled``;
* :class:`~segview.core.errors.RecoverableError` (bad input, a file format, a lost database) ->
  ``failed`` with its message, ``recoverable=True``;
* :class:`~segview.core.workers.runner.DetectorBug` (a bug raised in a worker process; its message
  is that process's traceback) -> ``failed``, ``recoverable=False``;
* any other exception (a bug here) -> ``failed`` with the traceback, ``recoverable=False``: the app
  stays alive and the receiver logs or shows it.
"""
from __future__ import annotations

import threading
import traceback

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from ..core.context import RunContext
from ..core.errors import Cancelled, RecoverableError
from ..core.workers.runner import DetectorBug

__all__ = ["Job", "JobSignals"]


class JobSignals(QObject):
    """The signals of one or more :class:`Job` objects (see the module docstring)."""

    finished = Signal(object, object)  # tag, result
    failed = Signal(object, str, bool)  # tag, message (a traceback when not recoverable), recoverable
    cancelled = Signal(object)  # tag
    progress = Signal(object, float, str)  # tag, fraction (< 0: unknown), message


class Job(QRunnable):
    """A background job: subclasses implement :meth:`compute` (pool thread; cancellation and
    progress through ``self.ctx``). Not auto-deleted: its owner keeps the Python reference until
    ``done`` is set, so the C++ object never outlives the wrapper or goes before ``run`` returned.
    """

    def __init__(self, tag: object = None, ctx: RunContext | None = None,
                 signals: JobSignals | None = None) -> None:
        super().__init__()
        self.setAutoDelete(False)
        self.tag = tag
        self.ctx = ctx if ctx is not None else RunContext()
        self.signals = signals if signals is not None else JobSignals()
        self.done = threading.Event()
        self.call = None  # a worker-process call, once submitted (JobRunner.abandon_cancelled)
        self._lend_lock = threading.Lock()
        self._lent_to: QThreadPool | None = None

    def compute(self) -> object:  # pool thread
        raise NotImplementedError

    def cancel(self) -> None:
        self.ctx.cancel()

    def lend_thread(self, pool: QThreadPool) -> None:
        """Cancelled but still running (code that never looks at the cancel flag): give the pool
        one more thread until this job ends, so it holds up no other job."""
        with self._lend_lock:
            if not self.done.is_set() and self._lent_to is None:
                pool.releaseThread()
                self._lent_to = pool

    def report(self, fraction: float, message: str = "") -> None:  # pool thread
        self.signals.progress.emit(self.tag, float(fraction), str(message))

    def run(self) -> None:  # pool thread
        try:
            result = self.compute()
        except Cancelled:
            self.signals.cancelled.emit(self.tag)
        except RecoverableError as err:
            self.signals.failed.emit(self.tag, str(err), True)
        except DetectorBug as err:
            self.signals.failed.emit(self.tag, str(err), False)
        except Exception:  # a bug: report it, keep the app alive
            self.signals.failed.emit(self.tag, traceback.format_exc(), False)
        else:
            self.signals.finished.emit(self.tag, result)
        finally:
            with self._lend_lock:
                self.done.set()
                if self._lent_to is not None:  # the thread lent on cancel is taken back
                    self._lent_to.reserveThread()
                    self._lent_to = None
