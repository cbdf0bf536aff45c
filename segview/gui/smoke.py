"""Smoke test of the real desktop: ``python -m segview.gui.smoke``.

Opens the explorer on the bundled sample and the annotator on a throw-away session, lets both paint,
and exits 0; exits 1 when the platform libraries are missing (with the apt line) or a window failed
to appear. CI runs it on the ``xcb`` platform under Xvfb (``tests/gui/test_xcb_smoke.py``), so a
missing system library fails CI instead of a user's first start. Settings and the database go to a
temporary folder.
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .qtdeps import check, platform_name


def main() -> int:
    if not check():
        return 1
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from ..core.resources import sample_dir
    from .annotate.window import AnnotationWindow
    from .jobs import shutdown_shared_processes
    from .main_window import MainWindow
    from .settings import Settings

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setOrganizationName("segview-smoke")
    app.setApplicationName("segview-smoke")
    with tempfile.TemporaryDirectory(prefix="segview-smoke-") as tmp:
        QSettings.setDefaultFormat(QSettings.Format.IniFormat)
        QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tmp)
        settings = Settings()
        settings.set_enabled_methods(set())  # the windows, not the detectors, are under test
        win = MainWindow(settings, persist=False)
        ok = win.open_paths([str(sample_dir())])
        win.show()
        ann = AnnotationWindow([str(sample_dir())])
        ok = ann.open_session(str(Path(tmp) / "smoke.sqlite"), "smoke", "smoke-judge",
                              create=True) and ok
        ann.show()
        for _ in range(20):
            app.processEvents()
        shots = [w.grab() for w in (win, ann)]
        exposed = all(w.isVisible() and w.windowHandle() is not None and w.windowHandle().isExposed()
                      for w in (win, ann))
        ok = ok and exposed and all(not s.isNull() and s.width() > 100 for s in shots)
        print(f"segview smoke: platform {app.platformName()} (expected {platform_name()}), "
              f"explorer {len(win.series)} series, annotator on {ann.series_id}, "
              f"windows exposed: {exposed} -> {'ok' if ok else 'FAILED'}")
        ann.close()
        win.close()
        app.processEvents()
        shutdown_shared_processes()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
