"""GUI test fixtures: offscreen Qt, a throw-away QSettings location, fake detectors, and a check
that no job-runner thread outlives its test."""
from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QSettings  # noqa: E402

from segview.core.resources import sample_dir  # noqa: E402

from segview.gui.gcguard import pin_none_refcount  # noqa: E402

from . import fakes  # noqa: E402

pin_none_refcount()  # as the app does (PySide6 6.12 + CPython 3.11 None refcount leak)


@pytest.fixture(autouse=True)
def isolated_settings(qapp, tmp_path: Path):
    """Point QSettings at a temporary folder so tests never touch the user's settings."""
    qapp.setOrganizationName("segview-tests")
    qapp.setApplicationName("segview-tests")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    yield tmp_path / "qsettings"


@pytest.fixture(autouse=True)
def gc_on_gui_thread(qapp):
    """As in the app: no automatic cyclic GC on worker threads while a test runs."""
    from segview.gui.gcguard import GuiThreadCollector

    guard = GuiThreadCollector()
    guard.start()
    yield
    guard.stop()


@pytest.fixture(autouse=True)
def no_dangling_threads(qapp):
    """Fail when a JobRunner pool still has active threads at teardown (after windows closed)."""
    from segview.gui.jobs import LIVE_RUNNERS

    yield
    leftovers = []
    for runner in list(LIVE_RUNNERS):
        try:
            for pool in (runner.pool, runner.warmup_pool):
                if pool.activeThreadCount() and not pool.waitForDone(200):
                    leftovers.append(pool.activeThreadCount())
                    runner.shutdown(5000)
        except RuntimeError:  # C++ object already deleted: nothing can be running
            continue
    fakes.GATE.set()
    assert not leftovers, f"job runner threads still active at teardown: {leftovers}"


@pytest.fixture(autouse=True)
def reset_fakes():
    fakes.LOG.reset()
    fakes.GATE.clear()
    yield
    fakes.GATE.set()


@pytest.fixture
def sample() -> Path:
    path = sample_dir()
    if not (path / "labels.csv").is_file():
        pytest.skip("bundled sample missing")
    return path


@pytest.fixture
def make_window(qtbot):
    """Factory: a MainWindow over the given fake specs (registered for the test), shown offscreen."""
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    registered = []

    def make(*specs, enabled=None):
        from segview.core import registry
        registry.all_specs()
        for s in specs:
            if s.name not in registry._REGISTRY:
                registry.register(s)
                registered.append(s)
        settings = Settings()
        settings.set_enabled_methods(set(enabled) if enabled is not None else {s.name for s in specs})
        win = MainWindow(settings, specs=list(specs))
        qtbot.addWidget(win)
        win.resize(1400, 860)  # the offscreen screen is 800x600; the window would fit it
        win.show()
        return win

    yield make
    from segview.core import registry
    for s in registered:
        registry._REGISTRY.pop(s.name.lower(), None)
