"""SIGTERM and SIGINT close segview's windows the way Ctrl+Q does.

While Qt's event loop waits for input, no Python byte code runs, so a Python signal handler is
never called: ``kill PID`` (SIGTERM, what a session manager or ``timeout`` sends) and Ctrl+C in
the launching terminal did nothing until some event happened to arrive. Here the C-level handler
writes a byte to a socket (``signal.set_wakeup_fd``) that a ``QSocketNotifier`` watches; its slot is
Python code, so the interpreter runs the pending handler, which closes every top-level window
(their ``closeEvent`` saves the layout and settings, stops the detector jobs and closes the
annotation store; annotations are already saved as they are made) and quits the event loop.
"""
from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Callable

QUIT_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def install(app: object, on_signal: Callable[[int], None] | None = None) -> Callable[[], None]:
    """Route SIGTERM/SIGINT through Qt's event loop; returns a function that undoes it.

    ``on_signal(signum)`` replaces the default action (close all windows, quit) for tests and
    embedding applications. Does nothing (and returns a no-op) off the main thread, where Python
    cannot install signal handlers."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    from PySide6.QtCore import QSocketNotifier

    reader, writer = socket.socketpair()
    reader.setblocking(False)
    writer.setblocking(False)
    try:
        previous_fd = signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:  # not the main interpreter's main thread
        reader.close()
        writer.close()
        return lambda: None

    def drain() -> None:  # the byte's only job was to wake the loop; Python runs the handler now
        try:
            while reader.recv(64):
                pass
        except OSError:
            pass

    notifier = QSocketNotifier(reader.fileno(), QSocketNotifier.Type.Read)
    notifier.activated.connect(drain)

    def default(signum: int) -> None:
        app.closeAllWindows()  # type: ignore[attr-defined]
        app.quit()  # type: ignore[attr-defined]

    action = on_signal or default

    def handler(signum: int, frame: object) -> None:
        action(signum)

    previous = {sig: signal.signal(sig, handler) for sig in QUIT_SIGNALS}

    def uninstall() -> None:
        for sig, old in previous.items():
            signal.signal(sig, old)
        signal.set_wakeup_fd(previous_fd)
        notifier.setEnabled(False)
        notifier.deleteLater()
        reader.close()
        writer.close()

    # keep the notifier and the sockets alive as long as the application
    setattr(app, "_segview_quit_signals", (notifier, reader, writer, uninstall))
    return uninstall
