"""RunContext: cooperative cancellation, progress reporting and prepared state for long work.

Every long core function takes ``ctx: RunContext = NULL_CONTEXT``; the CLI passes one that drives a
progress bar, the GUI one whose cancel event the job runner sets. Detectors call ``ctx.check()``
between stages and every ~1000 iterations of a long loop.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol

from .errors import Cancelled

ProgressCallback = Callable[[float, str], None]


class CancelFlag(Protocol):
    """What a RunContext needs of its cancel event: :class:`threading.Event`, or a flag another
    process sets (``workers.runner.SharedFlag``)."""

    def is_set(self) -> bool: ...

    def set(self) -> None: ...

    def clear(self) -> None: ...

    def wait(self, timeout: float | None = None) -> bool: ...


@dataclass
class RunContext:
    """Cancellation token, progress sink and holder of a detector's cached ``prepare`` output."""

    cancel_event: CancelFlag = field(default_factory=threading.Event)
    on_progress: ProgressCallback | None = None
    prepared: object | None = None
    min_interval: float = 0.1
    _last: float = field(default=0.0, repr=False)

    def cancel(self) -> None:
        self.cancel_event.set()

    @property
    def cancelled(self) -> bool:
        return self.cancel_event.is_set()

    def check(self) -> None:
        """Raise :class:`Cancelled` once cancellation was requested."""
        if self.cancel_event.is_set():
            raise Cancelled()

    def progress(self, fraction: float, message: str = "") -> None:
        """Report progress in [0, 1], throttled to ``1/min_interval`` Hz (1.0 always passes)."""
        self.check()
        if self.on_progress is None:
            return
        now = time.monotonic()
        if fraction < 1.0 and now - self._last < self.min_interval:
            return
        self._last = now
        self.on_progress(min(max(float(fraction), 0.0), 1.0), message)

    def part(self, start: float, end: float, label: str = "") -> "RunContext":
        """A context for one step of this job: it shares the cancel event, and its progress
        ``f`` is reported here as ``start + f * (end - start)`` with ``label`` before its message
        (a folder load gives each file its share, and the file's reader reports within it)."""
        if self.on_progress is None:
            return RunContext(self.cancel_event, None, None, self.min_interval)
        span = end - start

        def report(fraction: float, message: str) -> None:
            self.progress(start + fraction * span, f"{label}: {message}" if label and message
                          else (label or message))

        return RunContext(self.cancel_event, report, None, self.min_interval)

    def with_prepared(self, prepared: object | None) -> "RunContext":
        """A context sharing this one's cancel event and progress sink, carrying ``prepared``."""
        return RunContext(self.cancel_event, self.on_progress, prepared, self.min_interval)


class _NullContext(RunContext):
    """Never cancelled, reports nothing; shared default."""

    def cancel(self) -> None:  # the shared default must never become cancelled
        raise RuntimeError("NULL_CONTEXT cannot be cancelled; create a RunContext()")


NULL_CONTEXT: RunContext = _NullContext()
