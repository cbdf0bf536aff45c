"""Precise, safe controls: the wheel over the Parameters panel, focused controls keeping their keys,
log sliders, undo/redo of parameter changes, the preset menu, and a window that fits the screen."""
from __future__ import annotations

import math

import pytest
from PySide6.QtCore import QPoint, QPointF, QRect, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from segview.core.params import ParamSpec, Preset
from segview.core.registry import DetectorSpec
from segview.gui.geometry import clamp_to_screen, default_geometry
from segview.gui.param_panel import DEFAULTS, ParamEditor

from . import fakes

FAKE_PRESETS = DetectorSpec(
    name="fake_presets", label="Fake presets", version="1", produces="change_points",
    params=(ParamSpec("every", "int", 100, 2, 1000, 1, help="spacing"),
            ParamSpec("gain", "float", 1.0, 0.0, 100.0, 0.01, help="a decades-wide range")),
    run=fakes._cp_run,
    presets=(Preset("faithful", {"every": 100}, "the paper's"),
             Preset("tight", {"every": 40, "gain": 2.5}, "closer change points")))


def _wheel(widget, delta: int = -120) -> None:
    pos = QPointF(widget.width() / 2, widget.height() / 2)
    ev = QWheelEvent(pos, QPointF(widget.mapToGlobal(pos.toPoint())), QPoint(0, 0),
                     QPoint(0, delta), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                     Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, ev)


def _controls(panel):
    for box in panel.boxes.values():
        if box.preset_combo is not None:
            yield box.preset_combo
        for ed in box.editors.values():
            for w in (ed.slider, ed.spin, ed.combo, ed.alias):
                if w is not None:
                    yield w


def test_wheel_over_parameters_panel_changes_no_parameter(qtbot, make_window):
    win = make_window(fakes.FAKE_ONSET, fakes.FAKE_CP, FAKE_PRESETS)
    panel = win.param_panel
    panel.setFixedHeight(160)  # so that the panel has something to scroll
    qtbot.waitUntil(lambda: panel.verticalScrollBar().maximum() > 0)
    before = {name: panel.params(name) for name in panel.boxes}
    win.dataset_panel.setFocus()
    scrolled = False
    for w in _controls(panel):
        assert not w.hasFocus()
        top = panel.verticalScrollBar().value()
        _wheel(w, -120)
        scrolled |= panel.verticalScrollBar().value() != top
    assert {name: panel.params(name) for name in panel.boxes} == before
    assert {name: win.params[name] for name in panel.boxes} == before
    assert scrolled  # the wheel went to the panel instead
    assert win.undo_stack.count() == 0


def test_focused_slider_takes_the_wheel_and_keeps_page_keys(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    first = win.current.id
    slider = win.param_panel.editor("fake_cp", "every").slider
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus)
    _wheel(slider, -120)
    assert win.param_panel.params("fake_cp")["every"] != 100  # a focused control is wheelable
    qtbot.keyClick(slider, Qt.Key.Key_PageDown)
    assert win.current.id == first  # PgDn moved the slider, not to the next series
    win.dataset_panel.table.setFocus()
    qtbot.keyClick(win.dataset_panel.table, Qt.Key.Key_PageDown)
    qtbot.waitUntil(lambda: win.current.id != first)


def test_undo_restores_a_parameter(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        win.param_panel.set_value("fake_cp", "every", 750)
    assert win.params["fake_cp"]["every"] == 750
    assert win.lanes["fake_cp"].positions() == [750.0, 1500.0, 2250.0]
    assert win.undo_action.isEnabled()
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        qtbot.keyClick(win, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert win.params["fake_cp"]["every"] == 100
    assert win.param_panel.params("fake_cp")["every"] == 100
    assert win.param_panel.editor("fake_cp", "every").spin.value() == 100
    assert win.lanes["fake_cp"].visible_count() == 29
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        win.redo_action.trigger()
    assert win.params["fake_cp"]["every"] == 750
    assert "every" in win.undo_stack.text(0)


def test_slider_drag_is_one_undo_step(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    slider = win.param_panel.editor("fake_cp", "every").slider
    for tick in (slider.value() + 5, slider.value() + 10, slider.value() + 15):
        slider.setValue(tick)  # as a drag does, within a second
    assert win.undo_stack.count() == 1
    win.undo_stack.undo()
    assert win.params["fake_cp"]["every"] == 100


def test_preset_menu_sets_values_and_marks_changes_relative_to_it(qtbot, make_window):
    win = make_window(FAKE_PRESETS)
    box = win.param_panel.boxes["fake_presets"]
    combo = box.preset_combo
    assert [combo.itemText(i) for i in range(combo.count())] == [DEFAULTS, "faithful", "tight"]
    combo.setCurrentIndex(2)
    combo.activated.emit(2)
    assert win.params["fake_presets"] == FAKE_PRESETS.coerce({}, preset="tight")
    assert box.changed_names() == [] and box.status.text() == "preset tight"
    win.param_panel.set_value("fake_presets", "every", 60)
    assert box.changed_names() == ["every"]
    assert box.status.text().startswith("1 changed from preset tight")
    assert box.labels["every"].text().startswith("\u2022")
    assert not box.labels["gain"].text().startswith("\u2022")  # 2.5 is tight's value
    assert win.settings.preset(FAKE_PRESETS) == "tight"
    win.undo_stack.undo()
    assert win.params["fake_presets"]["every"] == 40
    box.reset()
    assert win.params["fake_presets"] == FAKE_PRESETS.coerce({}, preset="tight")


def test_decades_wide_range_gets_a_log_slider_starting_at_zero(qapp):
    ed = ParamEditor(ParamSpec("gain", "float", 1.0, 0.0, 100.0, 0.01))
    assert ed._log_ok()
    assert ed.tick_to_value(0) == 0.0
    vals = [ed.tick_to_value(t) for t in range(1, ed.slider.maximum() + 1)]
    assert vals[0] == pytest.approx(0.01) and vals[-1] == pytest.approx(100.0)
    ratios = [b / a for a, b in zip(vals, vals[1:]) if a > 0]
    assert max(ratios) < 1.02  # one tick never jumps more than 2 % of the value
    for v in (0.0, 0.05, 0.5, 4.0, 22.99):
        back = ed.tick_to_value(ed.value_to_tick(v))
        assert back == pytest.approx(v, rel=0.02, abs=1e-12)
    linear = ParamEditor(ParamSpec("p", "float", 0.95, 0.0, 1.0, 0.01))
    assert not linear._log_ok()


def test_default_geometry_fits_a_1280x720_screen(qtbot, make_window):
    screen = QRect(0, 0, 1280, 720 - 40)  # a 1280x720 logical screen minus a panel
    g = default_geometry(screen)
    assert screen.contains(g)
    assert g.width() <= 1280 and g.height() <= 680
    win = make_window(fakes.FAKE_ONSET, fakes.FAKE_CP, FAKE_PRESETS)
    win.setGeometry(g)
    QApplication.processEvents()
    win._initial_dock_sizes()
    QApplication.processEvents()
    hint = win.minimumSizeHint()
    assert hint.width() <= g.width() and hint.height() <= g.height()
    assert win.width() <= 1280 and win.height() <= 680
    inside = QRect(0, 0, win.width(), win.height())
    for dock in win.docks.values():
        r = dock.geometry()
        assert inside.contains(r), (dock.windowTitle(), r, inside)
    assert win.plot_widget.width() >= 400  # the plot keeps most of the room
    big = QRect(1500, 900, 1900, 1150)  # restored from a larger monitor
    assert screen.contains(clamp_to_screen(big, screen))
    assert math.isclose(default_geometry(QRect(0, 0, 2560, 1400)).width(), 1400)


def test_every_enabled_method_has_a_lane_of_its_own(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_ONSET, fakes.FAKE_CP, FAKE_PRESETS, enabled=["fake_cp"])
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    win.set_method_enabled("fake_onset", True)
    win.set_method_enabled("fake_presets", True)
    lanes = win.lanes
    assert lanes.order == ["fake_onset", "fake_cp", "fake_presets"]
    assert lanes.plot.vb.viewRange()[1] == [0.0, 3.0]  # all three rows in view
    qtbot.waitUntil(lambda: lanes["fake_onset"].region_bounds() is not None)
    # the main plot draws full-height lines of the focused method only
    win.set_focus("fake_cp")
    assert win.marks["fake_cp"].visible_count() == 29
    assert win.marks["fake_onset"].region_bounds() is None and win.marks["fake_presets"].visible_count() == 0
    win._on_lane_hovered("fake_presets")  # hovering a lane shows that method's lines instead
    assert win.marks["fake_cp"].visible_count() == 0 and win.marks["fake_presets"].visible_count() > 0
    win._on_lane_hovered(None)
    assert win.marks["fake_cp"].visible_count() == 29
    names = [t[1] for t in lanes.axis._tickLevels[0]]
    assert names == ["Fake onset", "fake_cp", "fake_presets"]  # labels over 11 characters: the name


def _wheel_at(view, scene_pt, delta=120, mods=Qt.KeyboardModifier.NoModifier):
    pos = QPointF(view.mapFromScene(scene_pt))
    ev = QWheelEvent(pos, QPointF(view.viewport().mapToGlobal(pos.toPoint())), QPoint(0, 0),
                     QPoint(0, delta), Qt.MouseButton.NoButton, mods, Qt.ScrollPhase.NoScrollPhase,
                     False)
    QApplication.sendEvent(view.viewport(), ev)


def test_wheel_zooms_x_with_y_fitted_and_ctrl_zooms_y(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    vb = win.main_plot.vb
    (x0, x1), (y0, y1) = vb.viewRange()
    centre = vb.mapViewToScene(QPointF(1500.0, 0.5 * (y0 + y1)))
    for _ in range(5):
        _wheel_at(win.plot_widget, centre)
    win.plot_widget.viewport().repaint()
    (a0, a1), (b0, b1) = vb.viewRange()
    assert a1 - a0 < 0.8 * (x1 - x0)  # zoomed in x around the pointer
    assert a0 < 1500 < a1
    shown = win.current.values[max(0, int(a0)):int(a1) + 1]
    assert b0 <= shown.min() and b1 >= shown.max()  # y fits the samples in view
    assert b1 - b0 <= 1.1 * (shown.max() - shown.min())
    assert vb.state["autoRange"][1]  # y still auto
    # Ctrl+wheel zooms y only
    _wheel_at(win.plot_widget, centre, mods=Qt.KeyboardModifier.ControlModifier)
    (c0, c1), (d0, d1) = vb.viewRange()
    assert (c0, c1) == (a0, a1) and (d1 - d0) < (b1 - b0)
    # the overview follows, and follows Reset zoom
    r0, r1 = win.overview.region.getRegion()
    assert (r0, r1) == pytest.approx((c0, c1))
    win.reset_zoom()
    assert win.overview.region.getRegion() == pytest.approx(tuple(vb.viewRange()[0]))
    assert vb.state["autoRange"][1]


def test_overview_click_pans_even_at_full_zoom(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_CP)
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    win.main_plot.setXRange(100, 110, padding=0)  # full zoom: the region is under a pixel wide
    win.overview.center_on(2500.0)
    lo, hi = win.main_plot.vb.viewRange()[0]
    assert lo == pytest.approx(2495.0) and hi == pytest.approx(2505.0)
    assert win.overview.region.getRegion() == pytest.approx((lo, hi))


def test_right_click_menu_offers_view_all_and_export(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)
    texts = [t for t, _ in filter(None, win.main_plot.vb.menu_items())]
    assert "View all" in texts and "Export plot…" in texts
    assert any("diagnostic tracks" in t for t in texts)


def test_diagnostic_tracks_collapse_and_come_back(qtbot, make_window, sample):
    win = make_window(fakes.FAKE_ONSET)
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    track = win.tracks.view("fake_onset", "relative level").plot
    assert track in win.layout_item.items
    win.tracks_action.trigger()  # View > Diagnostic tracks (Ctrl+T)
    assert track not in win.layout_item.items and not win.tracks_action.isChecked()
    assert win.lanes.plot in win.layout_item.items  # the lanes stay
    win.show_tracks(True)
    assert track in win.layout_item.items and win.tracks_action.isChecked()


def test_a_click_on_a_method_shows_its_parameters(qtbot, make_window):
    """Clicking a method's name in the Methods list (not only double-clicking it) scrolls the
    Parameters panel to its box, as a click on its lane does."""
    win = make_window(fakes.FAKE_ONSET, fakes.FAKE_CP, FAKE_PRESETS)
    panel = win.param_panel
    panel.setFixedHeight(160)
    qtbot.waitUntil(lambda: panel.verticalScrollBar().maximum() > 0)
    bar = panel.verticalScrollBar()
    bar.setValue(0)
    last = win.method_list.item(win.method_list.count() - 1)
    name = last.data(Qt.ItemDataRole.UserRole)
    box = panel.boxes[name]
    assert box.y() > 0 and name in win.enabled
    rect = win.method_list.visualItemRect(last)
    qtbot.mouseClick(win.method_list.viewport(), Qt.MouseButton.LeftButton,
                     pos=rect.center() + QPoint(20, 0))
    # the box comes into view (the panel was at its top, the box below its bottom edge)
    view = panel.viewport()
    qtbot.waitUntil(lambda: bar.value() > 0
                    and -box.height() + 20 < box.mapTo(view, QPoint(0, 0)).y() < view.height() - 20)
    assert win.tracks.focus == name


def test_the_pointer_leaving_the_plot_ends_a_lane_hover(qtbot, make_window, sample):
    """A hovered lane shows its method's lines on the series; when the pointer leaves the plot
    (a fast move out gives no last move inside it) the focused method's lines come back."""
    from PySide6.QtCore import QEvent

    win = make_window(fakes.FAKE_ONSET, fakes.FAKE_CP, FAKE_PRESETS, enabled=["fake_cp"])
    with qtbot.waitSignal(win.overlay_updated, timeout=10000):
        assert win.open_paths([str(sample)])
    win.set_method_enabled("fake_presets", True)
    qtbot.waitUntil(lambda: (win.current.id, "fake_presets") in win.results)
    win.set_focus("fake_cp")
    lanes = win.lanes
    row = lanes.order.index("fake_presets")
    pos = lanes.plot.vb.mapViewToScene(QPointF(1500.0, row + 0.5))
    win.plot_widget.scene().sigMouseMoved.emit(pos)  # the pointer over fake_presets' lane
    assert win.marks["fake_cp"].visible_count() == 0
    assert win.hover_label.text().startswith("Fake presets:")
    QApplication.sendEvent(win.plot_widget, QEvent(QEvent.Type.Leave))
    assert win.hover_label.text() == ""
    assert win.marks["fake_cp"].visible_count() == 29
    assert win.marks["fake_presets"].visible_count() == 0
