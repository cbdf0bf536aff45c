"""Run Python's cyclic garbage collector only on the GUI thread.

With detectors running Python code on pool threads, an automatic collection can start on a worker
thread and destroy Qt/pyqtgraph objects there (timers stopped from the wrong thread, crashes at
exit). While installed, automatic collection is off and a GUI-thread timer collects instead, with
the interpreter's own generation thresholds.

At the end of an application's run, :func:`release` deletes its closed windows and collects what is
left while the QApplication still exists, so that nothing Qt-related is left for PySide's exit
clean-up (see there).
"""
from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Slot

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget


class GuiThreadCollector(QObject):
    """Disable automatic GC and collect from a QTimer on the thread that created this object."""

    def __init__(self, interval_ms: int = 500, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.threshold = gc.get_threshold()
        self.was_enabled = gc.isenabled()
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._on_timer_timeout)

    def start(self) -> None:
        gc.disable()
        self.timer.start()

    def stop(self, collect: bool = True) -> None:
        self.timer.stop()
        if collect:
            gc.collect()
        if self.was_enabled:
            gc.enable()

    @Slot()
    def _on_timer_timeout(self) -> None:
        c0, c1, c2 = gc.get_count()
        t0, t1, t2 = self.threshold
        if c0 > t0:
            gen = 2 if (c1 > t1 and c2 > t2) else 1 if c1 > t1 else 0
            gc.collect(gen)


_INSTALLED: GuiThreadCollector | None = None


GUI_SWITCH_INTERVAL = 0.001


def install(interval_ms: int = 500) -> GuiThreadCollector:
    """Install the collector once per process (call on the GUI thread after the QApplication).

    Also shortens the interpreter's thread switch interval (5 ms -> 1 ms): PySide releases the GIL
    around every Qt call, and while a detector runs Python code on the pool each re-acquisition in a
    paint could otherwise wait up to 5 ms.
    """
    global _INSTALLED
    if _INSTALLED is None:
        sys.setswitchinterval(GUI_SWITCH_INTERVAL)
        _INSTALLED = GuiThreadCollector(interval_ms)
        _INSTALLED.start()
    return _INSTALLED


def release(*windows: QWidget | None) -> None:
    """Delete the closed ``windows`` and collect the garbage now, at the end of an application's
    run while the QApplication still exists; the collector (when installed) stops and automatic
    collection is back as it was. An open window (``isVisible``) is left alone.

    Otherwise PySide's exit clean-up (an ``atexit`` function, before the interpreter's own last
    collection) finds them: the window, kept only by reference cycles, and the plots in no layout
    (the diagnostic tracks of a method not in focus, or switched off: pyqtgraph PlotItems without
    a parent, which the window does not delete with it). It deletes every Python-owned Qt object
    one by one in no particular order, so a pyqtgraph AxisItem's label (a QGraphicsTextItem that
    Python owns) can go before its axis; deleting another item then resizes the axis, its Python
    ``resizeEvent`` fails on the deleted label, and PySide 6.11 crashes while reporting that
    error (SIGSEGV in ``PepException_GetArgs``, no Python frame). Deleted here, a window and each
    parentless graphics item take their children down parent first, as when Qt deletes a window
    during a session.
    """
    import shiboken6
    from PySide6.QtWidgets import QGraphicsItem

    global _INSTALLED
    for window in windows:
        if window is not None and shiboken6.isValid(window) and not window.isVisible():
            shiboken6.delete(window)
    if _INSTALLED is not None:
        _INSTALLED.stop(collect=True)
        _INSTALLED = None
    else:
        gc.collect()
    # what is still referenced (the caller's window object holds its plots that are in no
    # layout: the unfocused methods' tracks), one top-level item at a time, children with it
    for obj in gc.get_objects():
        # type(), not isinstance(): a weakref proxy whose object is gone raises ReferenceError
        # on isinstance (its __class__ is looked up through the dead reference)
        if (issubclass(type(obj), QGraphicsItem) and shiboken6.isValid(obj)
                and shiboken6.ownedByPython(obj) and obj.parentItem() is None
                and obj.scene() is None):
            shiboken6.delete(obj)


def pin_none_refcount() -> bool:
    """Work around PySide6 6.12 on CPython < 3.12 dropping a reference to ``None`` on every Qt call
    that returns None (each pyqtgraph repaint, ``QObject.parent()``...): after some tens of
    thousands of such calls CPython aborts with "none_dealloc", so a long explorer session would
    crash. ``None`` is a static singleton, so extra references are harmless; from 3.12 on it is
    immortal and nothing is done. Returns True when the workaround was applied.
    """
    import ctypes

    import PySide6

    affected = tuple(PySide6.__version_info__[:2]) == (6, 12)
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython" or not affected:
        return False
    if getattr(pin_none_refcount, "done", False):
        return True
    ctypes.c_ssize_t.from_address(id(None)).value += 1 << 40
    pin_none_refcount.done = True  # type: ignore[attr-defined]  # a function attribute marks that the pin is done (once per process)
    return True
