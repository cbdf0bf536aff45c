"""Application bootstrap: QApplication, icon, excepthook, and the ``--screenshot`` mode."""
from __future__ import annotations

import logging
import os
import sys
import traceback
from pathlib import Path
from types import TracebackType

log = logging.getLogger(__name__)

ORGANIZATION = "segview"
APPLICATION = "segview"
SCREENSHOT_TIMEOUT_MS = 300_000
SCREENSHOT_SIZE = (1500, 900)


def icon_path() -> Path:
    from ..core.resources import resources_dir

    return resources_dir() / "icons" / "segview.png"


def ensure_platform(screenshot: str | None) -> None:
    """Render offscreen for screenshots when there is no display."""
    if screenshot and "QT_QPA_PLATFORM" not in os.environ and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and sys.platform.startswith("linux"):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


def _install_excepthook(window: object) -> None:
    """Uncaught exceptions in slots are bugs: log them and show them in the Messages panel."""
    previous = sys.excepthook

    def hook(etype: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
        text = "".join(traceback.format_exception(etype, value, tb))
        log.error("unexpected error:\n%s", text)
        try:
            window.post(f"Unexpected error (a bug): {etype.__name__}: {value}", tooltip=text)
        except Exception:  # the window may be gone
            previous(etype, value, tb)

    sys.excepthook = hook


def run(paths: list[str], screenshot: str | None = None, fill_missing: str | None = None) -> int:
    """Open the explorer on ``paths`` (the bundled sample when empty); returns the exit code.

    With ``screenshot``, the main window is rendered once every enabled detector finished on the
    first series, saved as PNG and the application exits (0 on success, 1 when it timed out or the
    data could not be opened).
    """
    ensure_platform(screenshot)
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from ..core.resources import sample_dir
    from .main_window import MainWindow
    from .settings import Settings

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "segview"])
    if not app.organizationName():  # tests (and embedding apps) choose their own settings location
        app.setOrganizationName(ORGANIZATION)
        app.setApplicationName(APPLICATION)
    if icon_path().is_file():
        app.setWindowIcon(QIcon(str(icon_path())))
    from .gcguard import install as install_gc_guard
    from .gcguard import pin_none_refcount

    pin_none_refcount()  # PySide6 6.12 + CPython 3.11 would otherwise abort in a long session
    install_gc_guard()  # cyclic GC only on the GUI thread (detectors run Python on the pool)
    window = MainWindow(Settings(), persist=screenshot is None)
    _install_excepthook(window)
    if window.runner.processes is not None:  # narrate the first launch's warm-up
        from .warmup import WarmupStatus

        window.statusBar().addPermanentWidget(WarmupStatus(window.runner.processes, window))
    if screenshot:
        window.resize(*SCREENSHOT_SIZE)
    window.fill_missing = fill_missing  # TCPD gaps: filled by this named rule, else reported
    window.show()  # first: a question while opening (the cost of a big file) comes over it
    opened = window.open_paths(list(paths) if paths else [str(sample_dir())])
    from .jobs import shutdown_shared_processes

    from .quit_signals import install as quit_on_signals

    uninstall = quit_on_signals(app)  # kill PID / Ctrl+C close the windows as Ctrl+Q does
    try:
        if screenshot is None:
            return int(app.exec())
        if not opened:
            window.close()
            return 1
        return _take_screenshot(app, window, screenshot)
    finally:
        uninstall()
        from .gcguard import release

        # the closed windows deleted and the garbage collected while the QApplication exists:
        # left to PySide's exit clean-up they could crash the interpreter (see release)
        release(window, window.annotation_window)
        shutdown_shared_processes()


def _take_screenshot(app: object, window: object, path: str) -> int:
    from PySide6.QtCore import QEventLoop, QTimer

    state = {"code": 1, "done": False}
    loop = QEventLoop()  # a local loop: quitting it leaves the application object usable

    def save() -> None:
        if state["done"]:
            return
        state["done"] = True
        from ..core.atomic import atomic_path
        from ..core.errors import OutputError

        try:
            try:
                with atomic_path(path) as tmp:  # whole or absent, like every output
                    if not window.grab().save(str(tmp)):
                        raise OSError(f"the image writer could not write {path}")
                ok = True
            except OutputError:
                ok = False
            if ok:
                log.info("screenshot saved to %s", path)
                state["code"] = 0 if not state.get("timeout") else 1
            else:
                print(f"segview: error: could not write {path}", file=sys.stderr)
            window.close()
        finally:  # whatever failed above, the command ends (save runs once: a later call returns)
            loop.quit()

    def settle() -> None:  # let the last overlay paint before grabbing
        QTimer.singleShot(250, save)

    def timeout() -> None:
        state["timeout"] = True
        print("segview: warning: detectors did not finish in time; saving the window as it is",
              file=sys.stderr)
        save()

    def start() -> None:
        if window.runner.is_busy():
            window.runner.idle.connect(settle)
        else:
            settle()

    loader = window.__dict__.get("_loader")
    if loader is not None and loader.busy():  # a large input still loading in the background
        loader.done.connect(lambda: QTimer.singleShot(0, start))
    else:
        start()
    QTimer.singleShot(SCREENSHOT_TIMEOUT_MS, timeout)
    if not state["done"]:
        loop.exec()
    return int(state["code"])
