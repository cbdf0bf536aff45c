"""Slider precision (issue 29): each slider spans the parameter panel's width, and Shift-drag or
Shift+arrow moves it at a tenth of the speed, so a 0..1 threshold (step 0.01) can be set to
0.01 by mouse."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

from . import fakes

SHIFT = Qt.KeyboardModifier.ShiftModifier
NONE = Qt.KeyboardModifier.NoModifier
LEFT = Qt.MouseButton.LeftButton


def send(widget, kind, x: float, mods, buttons=LEFT, button=LEFT) -> None:
    pos = QPointF(x, widget.height() / 2)
    ev = QMouseEvent(kind, pos, widget.mapToGlobal(pos), button, buttons, mods)
    QApplication.sendEvent(widget, ev)


def drag(slider, dx: float, mods) -> None:
    x0 = slider.width() / 2
    send(slider, QEvent.Type.MouseButtonPress, x0, mods)
    for k in range(1, 6):  # a drag in a few moves
        send(slider, QEvent.Type.MouseMove, x0 + dx * k / 5, mods, button=Qt.MouseButton.NoButton)
    send(slider, QEvent.Type.MouseButtonRelease, x0 + dx, mods, buttons=Qt.MouseButton.NoButton)


def level_editor(qtbot, make_window):
    win = make_window(fakes.FAKE_ONSET)
    qtbot.waitExposed(win)
    return win, win.param_panel.editor("fake_onset", "level")


def test_a_slider_uses_the_panels_width(qtbot, make_window):
    win, ed = level_editor(qtbot, make_window)
    panel = win.param_panel.viewport().width()
    assert ed.slider.width() >= 0.75 * panel  # its own row, not beside label and spin box


def test_shift_drag_moves_a_tenth_and_sets_a_threshold_to_the_hundredth(qtbot, make_window):
    win, ed = level_editor(qtbot, make_window)
    slider = ed.slider
    assert ed.spec.low == 0.0 and ed.spec.high == 1.0 and ed.spec.step == 0.01
    ticks_per_hundredth = 0.01 / (1.0 / slider.maximum())  # 1 tick = one step of 0.01
    px_per_hundredth_fine = ticks_per_hundredth / slider.ticks_per_pixel(fine=True)
    assert px_per_hundredth_fine >= 10  # easy to hit by mouse
    assert px_per_hundredth_fine == 10 * ticks_per_hundredth / slider.ticks_per_pixel()
    start = ed.value()
    with qtbot.waitSignal(win.param_panel.params_changed, timeout=2000):
        drag(slider, px_per_hundredth_fine, SHIFT)  # one hundredth, in fine mode
    assert round(ed.value() - start, 10) == 0.01
    normal = ed.value()
    drag(slider, px_per_hundredth_fine, NONE)  # the same movement without Shift: ten times more
    assert round(ed.value() - normal, 10) == 0.1


def test_shift_arrow_moves_a_tenth_of_an_arrow(qtbot, make_window):
    win = make_window(fakes.FAKE_CP)  # every: 2..1000, 998 ticks
    qtbot.waitExposed(win)
    slider = win.param_panel.editor("fake_cp", "every").slider
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus)
    v = slider.value()
    qtbot.keyClick(slider, Qt.Key.Key_Right)
    assert slider.value() - v == 998 // 100
    v = slider.value()
    qtbot.keyClick(slider, Qt.Key.Key_Right, SHIFT)
    assert slider.value() - v == 1  # a tenth of 9 ticks, at least one
    qtbot.keyClick(slider, Qt.Key.Key_Left, SHIFT)
    assert slider.value() == v
