"""Benchmark reproductions (amoc, segneigh, bocpd, cpnp, wbs, kcpa, ecp) are registered, with lanes when chosen, but
off in a fresh explorer: only detectors with ``enabled_by_default`` start enabled."""
from __future__ import annotations

from segview.core import registry


def test_fresh_explorer_leaves_benchmark_methods_off(qtbot):
    from segview.gui.main_window import MainWindow
    from segview.gui.settings import Settings

    specs = [registry.get(n) for n in ("pelt", "amoc", "segneigh", "bocpd", "cpnp", "wbs", "kcpa",
                                        "ecp")]
    win = MainWindow(Settings(), specs=specs)  # no saved choice of methods
    qtbot.addWidget(win)
    assert "pelt" in win.enabled
    assert not win.enabled & {"amoc", "segneigh", "bocpd", "cpnp", "wbs", "kcpa", "ecp"}
    assert all(not s.enabled_by_default for s in specs[1:])
