"""What the explorer leaves for PySide's exit clean-up: nothing of its window.

PySide deletes every Qt object Python still owns in an ``atexit`` function, one by one in no
particular order. With the GUI thread's collector (segview.gui.gcguard) automatic collection is off,
so the closed window (kept by reference cycles) and its plots in no layout (the tracks of a
method out of focus: parentless pyqtgraph PlotItems) were left to it: a pyqtgraph axis's label
could be deleted before its axis, the axis's Python ``resizeEvent`` then failed, and PySide crashed
reporting it (SIGSEGV at exit in bench_gui.py ``--only bocpd``). ``segview.gui.app.run`` (and the
bench) now call ``gcguard.release``: the window deleted and the garbage collected while the
QApplication exists.
"""
from __future__ import annotations

import weakref

import shiboken6

from segview.core import registry

from . import fakes


def _gone(ref: weakref.ref) -> bool:
    obj = ref()
    return obj is None or not shiboken6.isValid(obj)


def test_release_deletes_the_closed_window_and_its_plots_in_no_layout(qtbot, sample):
    from segview.gui.gcguard import release
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    with fakes.registered(*fakes.FAST):
        settings = Settings()
        settings.set_enabled_methods({"fake_onset"})
        win = MainWindow(settings, specs=[registry.get("fake_onset")], persist=False)
        win.show()
        with qtbot.waitSignal(win.overlay_updated, timeout=10000,
                              check_params_cb=lambda name: name == "fake_onset"):
            assert win.open_paths([str(sample)])
        plots = [v.plot for v in win.tracks.all_views()]
        assert plots  # fake_onset draws one diagnostic track
        win.set_method_enabled("fake_onset", False)  # out of focus: its track leaves the layout
        # what PySide's exit clean-up would delete on its own, in no particular order
        assert all(shiboken6.ownedByPython(p) and p.parentItem() is None for p in plots)
        window = weakref.ref(win)
        refs = [weakref.ref(p) for p in plots]
        del plots
        win.close()
        release(win)  # the caller still holds the window object, as run() and the bench do
        assert _gone(window), "the closed window is left for PySide's exit clean-up"
        assert all(_gone(r) for r in refs), "a track plot is left for PySide's exit clean-up"
        del win


def test_release_leaves_an_open_window_alone(qtbot):
    from PySide6.QtWidgets import QWidget

    from segview.gui.gcguard import release

    w = QWidget()
    qtbot.addWidget(w)
    w.show()
    release(w, None)
    assert shiboken6.isValid(w) and w.isVisible()


def test_release_passes_over_dead_weak_proxies(qtbot):
    """The garbage holds weak proxies whose object is gone (a whole test suite leaves some):
    release must not touch them (``isinstance`` on one raises ReferenceError)."""
    import gc

    from PySide6.QtWidgets import QWidget

    from segview.gui.gcguard import release

    class Thing:
        pass

    holder = [weakref.proxy(Thing())]  # its object is gone at once; the proxy stays tracked
    assert any(type(o) is weakref.ProxyType for o in gc.get_objects())
    w = QWidget()
    w.close()
    release(w)
    assert not shiboken6.isValid(w)
    assert holder
