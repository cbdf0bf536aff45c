"""Ctrl-C in the terminal and SIGTERM (``kill PID``) quit a window as File > Quit does.

Without this, the command line's handlers (:func:`segview.cli.main.sigterm_as_interrupt`) raise
``KeyboardInterrupt`` in whatever Python code the GUI thread runs next: a Qt slot, whose exception
the window's excepthook reports as a bug, and the application carries on. Whoever wanted it gone
then kills it (SIGKILL), nothing is cleaned up, and multiprocessing's resource tracker prints
"There appear to be N leaked semaphore objects" for the detector pool's queues and locks.

:class:`QuitOnSignals` replaces those handlers while the window runs: a signal only notes itself
and asks the event loop to quit the window (the usual close: jobs cancelled, worker processes
stopped, settings saved). Python runs a signal handler only between bytecodes of the main thread,
and the Qt event loop waits in C++; :func:`signal.set_wakeup_fd` and a socket notifier wake it.
"""
from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any

from PySide6.QtCore import QObject, QSocketNotifier, QTimer

#: the signals that quit; the exit code is 128 + the number, as a shell reports them
SIGNALS = tuple(s for s in (getattr(signal, "SIGINT", None), getattr(signal, "SIGTERM", None))
                if s is not None)


class QuitOnSignals:
    """While active (``with``), SIGINT and SIGTERM call ``quit`` once on the GUI thread, from the
    event loop; :attr:`received` lists the signals noted. Outside the main thread it does
    nothing."""

    def __init__(self, quit: Callable[[], object], parent: QObject | None = None) -> None:
        self._quit = [quit]
        self.parent = parent
        self.received: list[int] = []
        self.quitted = False
        self._saved: dict[int, Any] = {}  # what signal.signal returned before
        self._wakeup: int | None = None
        self._socks: tuple[socket.socket, socket.socket] | None = None
        self._notifier: QSocketNotifier | None = None

    def also(self, fn: Callable[[], object]) -> None:
        """Call ``fn`` too when quitting (a local event loop to end)."""
        self._quit.append(fn)

    def quit(self) -> None:
        """Quit now (once; later calls do nothing)."""
        if self.quitted:
            return
        self.quitted = True
        for fn in self._quit:
            fn()

    def exit_code(self) -> int | None:
        """128 + the first signal's number, or None when none came."""
        return 128 + int(self.received[0]) if self.received else None

    def describe(self) -> str:
        """What the command line prints for it (as ``segview`` says for its other commands)."""
        if not self.received:
            return ""
        if self.received[0] == getattr(signal, "SIGTERM", None):
            return "segview: terminated (SIGTERM)"
        return "segview: interrupted"

    def _on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.received.append(signum)
        if len(self.received) == 1:
            QTimer.singleShot(0, self.quit)  # not inside whatever the GUI thread was doing

    def _drain(self, *_args: object) -> None:
        """The wake-up bytes: reading them is all (the handler ran when Python got control)."""
        if self._socks is None:
            return
        try:
            while self._socks[0].recv(64):
                pass
        except (BlockingIOError, InterruptedError, OSError):
            pass

    def __enter__(self) -> "QuitOnSignals":
        if threading.current_thread() is not threading.main_thread():
            return self
        rsock, wsock = socket.socketpair()
        rsock.setblocking(False)
        wsock.setblocking(False)
        try:
            self._wakeup = signal.set_wakeup_fd(wsock.fileno(), warn_on_full_buffer=False)
        except (ValueError, OSError):
            rsock.close()
            wsock.close()
            return self
        self._socks = (rsock, wsock)
        self._notifier = QSocketNotifier(rsock.fileno(), QSocketNotifier.Type.Read, self.parent)
        self._notifier.activated.connect(self._drain)
        for sig in SIGNALS:
            try:
                self._saved[sig] = signal.signal(sig, self._on_signal)
            except (ValueError, OSError):
                pass
        return self

    def __exit__(self, _t: type[BaseException] | None, _e: BaseException | None,
                 _tb: TracebackType | None) -> None:
        for sig, handler in self._saved.items():
            signal.signal(sig, handler)
        self._saved.clear()
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier.deleteLater()
            self._notifier = None
        if self._socks is not None:
            signal.set_wakeup_fd(-1 if self._wakeup is None else self._wakeup)
            for s in self._socks:
                s.close()
            self._socks = None
