"""A fresh explorer ticks segview's default change-point method ``auto`` (issue 28) and leaves the
benchmark reproductions (amoc, segneigh, bocpd, cpnp, wbs, kcpa, ecp) off: they are registered, with
lanes when chosen. A user's saved choice of methods is kept, and a method that became a default
since the user last started the app is told about once, not ticked."""
from __future__ import annotations

from segview.core import registry

BENCHMARK = {"amoc", "segneigh", "bocpd", "cpnp", "wbs", "kcpa", "ecp"}


def _window(qtbot, settings, names, persist=False):
    from segview.gui.main_window import MainWindow

    win = MainWindow(settings, specs=[registry.get(n) for n in names], persist=persist)
    qtbot.addWidget(win)
    return win


def test_fresh_explorer_ticks_auto_and_leaves_benchmark_methods_off(qtbot):
    from segview.gui.settings import Settings

    win = _window(qtbot, Settings(), ("auto", "pelt", *sorted(BENCHMARK)))  # nothing saved
    assert {"auto", "pelt"} <= win.enabled
    assert not win.enabled & BENCHMARK
    assert registry.get("auto").enabled_by_default
    assert all(not registry.get(n).enabled_by_default for n in BENCHMARK)


def test_a_new_default_is_told_once_and_not_ticked_in_a_saved_choice(qtbot):
    from segview.gui.settings import Settings

    settings = Settings()
    settings.set_enabled_methods({"pelt"})  # saved by a version where auto was off
    win = _window(qtbot, settings, ("auto", "pelt"), persist=True)
    assert win.enabled == {"pelt"}  # the user's choice stands
    told = [win.messages.item(i).text() for i in range(win.messages.count())]
    assert any("Auto (vote of five models)" in t and "default change-point method" in t
               for t in told), told
    win.close()
    again = _window(qtbot, settings, ("auto", "pelt"), persist=True)  # the next start: silent
    told = [again.messages.item(i).text() for i in range(again.messages.count())]
    assert not any("fresh explorer" in t for t in told), told
    assert again.enabled == {"pelt"}


def test_a_fresh_user_is_not_told(qtbot):
    from segview.gui.settings import Settings

    win = _window(qtbot, Settings(), ("auto", "pelt"), persist=True)
    told = [win.messages.item(i).text() for i in range(win.messages.count())]
    assert not any("fresh explorer" in t for t in told), told
