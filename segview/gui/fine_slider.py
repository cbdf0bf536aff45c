"""A slider with a fine mode: Shift-drag and Shift+arrow move it at a tenth of the speed.

A 0..1 threshold with a 0.01 step has 100 ticks; on a slider 150 px wide one tick is 1.5 px, too
little to hit a value by mouse. Holding Shift while dragging moves the value by a tenth of the
mouse's movement (15 px per tick there); pressing Shift mid-drag switches without a jump (the
drag is relative from then on). The arrow keys move ``singleStep`` ticks, Shift+arrow a tenth of
that (at least one tick). The parameter panel also gives each slider a row of its own, the
panel's whole width (:class:`~segview.gui.param_panel.MethodParamsBox`).
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QSlider, QStyle, QStyleOptionSlider

FINE = 10  # fine mode: a tenth of the speed
SHIFT = Qt.KeyboardModifier.ShiftModifier


class FineSlider(QSlider):
    """A horizontal ``QSlider`` with Shift for fine moves (see the module docstring)."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self._drag: tuple[float, float, bool] | None = None  # anchor x, anchor value, fine
        self._exact = 0.0

    def travel(self) -> float:
        """Pixels the handle travels from minimum to maximum."""
        opt = QStyleOptionSlider()
        self.initStyleOption(opt)
        style = self.style()
        groove = style.subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                      QStyle.SubControl.SC_SliderGroove, self)
        handle = style.subControlRect(QStyle.ComplexControl.CC_Slider, opt,
                                      QStyle.SubControl.SC_SliderHandle, self)
        return float(max(1, groove.width() - handle.width()))

    def ticks_per_pixel(self, fine: bool = False) -> float:
        return (self.maximum() - self.minimum()) / self.travel() / (FINE if fine else 1)

    def fine_step(self) -> int:
        return max(1, round(self.singleStep() / FINE))

    # ------------------------------------------------------------------ mouse
    def _anchor(self, x: float, fine: bool, value: float | None = None) -> None:
        self._exact = float(self.value()) if value is None else value
        self._drag = (x, self._exact, fine)

    def mousePressEvent(self, ev: QMouseEvent) -> None:  # noqa: N802 (Qt override)
        if ev.button() == Qt.MouseButton.LeftButton and ev.modifiers() & SHIFT:
            self._anchor(ev.position().x(), True)  # no jump to the pointer
            self.setSliderDown(True)
            ev.accept()
            return
        super().mousePressEvent(ev)

    def mouseMoveEvent(self, ev: QMouseEvent) -> None:  # noqa: N802
        fine = bool(ev.modifiers() & SHIFT)
        x = ev.position().x()
        if self._drag is None:
            if not (fine and ev.buttons() & Qt.MouseButton.LeftButton):
                super().mouseMoveEvent(ev)
                return
            self.setSliderDown(True)
            self._anchor(x, True)  # Shift pressed during a drag: fine from here on
        elif fine != self._drag[2]:
            self._anchor(x, fine, self._exact)  # switching speed never jumps
        ax, av, mode = self._drag
        self._exact = min(max(av + (x - ax) * self.ticks_per_pixel(mode), self.minimum()),
                          self.maximum())
        self.setValue(round(self._exact))
        ev.accept()

    def mouseReleaseEvent(self, ev: QMouseEvent) -> None:  # noqa: N802
        if self._drag is not None:
            self._drag = None
            self.setSliderDown(False)
            ev.accept()
            return
        super().mouseReleaseEvent(ev)

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, ev: QKeyEvent) -> None:  # noqa: N802
        up = (Qt.Key.Key_Right, Qt.Key.Key_Up)
        down = (Qt.Key.Key_Left, Qt.Key.Key_Down)
        if ev.modifiers() & SHIFT and ev.key() in (*up, *down):
            sign = 1 if ev.key() in up else -1
            self.setValue(self.value() + sign * self.fine_step())
            ev.accept()
            return
        super().keyPressEvent(ev)
